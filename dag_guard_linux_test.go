//go:build linux

package ddt

import (
	"math/rand/v2"
	"os"
	"runtime/debug"
	"testing"
)

// TestGuardPagesShared runs the types of TestSharedProgramsMatchReference
// (programs sharing sub-programs) through every engine and kernel set with
// buffers against PROT_NONE pages, as TestGuardPages does for random
// types.
func TestGuardPagesShared(t *testing.T) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func(m int64) { minPiece = m }(minPiece)
	minPiece = 16
	const pages = 80
	img, packed := newGuarded(t, pages), newGuarded(t, pages)
	limit := int64(pages * os.Getpagesize())
	r := rand.New(rand.NewPCG(213, 214))
	n := 40
	if testing.Short() {
		n = 10
	}
	configs := guardConfigs()
	tested := 0
	for _, ty := range sharedTypes(r, n) {
		count := int64(1 + r.IntN(2))
		lo, hi, err := ty.Span(count)
		if err != nil || hi-lo > limit {
			continue
		}
		size, err := ty.PackSize(count)
		if err != nil || size > limit {
			continue
		}
		tested++
		src, origin := image(ty, count, 1)
		want := naivePack(ty, count, src, origin)
		overlapping := overlapsIn(ty, count)
		for _, opts := range configs {
			if opts.Threads > 1 && overlapping {
				continue
			}
			c, err := CommitWith(ty, opts)
			if err != nil {
				t.Fatal(err)
			}
			for _, atEnd := range []bool{true, false} {
				guardRun(t, c, opts, ty, count, lo, hi, want, img, packed, atEnd, r)
			}
		}
	}
	if tested < n/2 {
		t.Fatalf("only %d types fit the guarded pages", tested)
	}
}
