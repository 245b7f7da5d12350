//go:build linux

package ddt

import (
	"math/rand/v2"
	"os"
	"runtime/debug"
	"testing"

	"github.com/ddtlab/ddt/internal/typegen"
)

// TestGuardPagesNT is TestGuardPages with the non-temporal pack path on
// for every message of 512 bytes and more, in pieces of 700 bytes: every
// engine and kernel set, with one and several goroutines, whole and
// in resumable pieces, into packed buffers that end at or start after a
// PROT_NONE page, against the reference packing.
func TestGuardPagesNT(t *testing.T) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func(m, c, p int64) { ntMin, ntChunk, minPiece = m, c, p }(ntMin, ntChunk, minPiece)
	ntMin, ntChunk, minPiece = 512, 700, 16 // pieces of 700 bytes or whole units
	const pages = 80
	img, packed := newGuarded(t, pages), newGuarded(t, pages)
	limit := int64(pages * os.Getpagesize())
	n := 120
	if testing.Short() {
		n = 30
	}
	r := rand.New(rand.NewPCG(61, 62))
	configs := guardConfigs()
	tested := 0
	for i := 0; tested < n && i < 50*n; i++ {
		ty := typegen.Random(r, typegen.Options{MaxElements: 512, MaxExtent: 1 << 14})
		if ty.Size() == 0 {
			continue
		}
		count := max(1, int64(r.IntN(6000))/ty.Size())
		lo, hi, err := ty.Span(count)
		if err != nil || hi-lo > limit {
			continue
		}
		size, err := ty.PackSize(count)
		if err != nil || size > limit || size < ntMin {
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
		t.Fatalf("only %d types of at least %d packed bytes fit the guarded pages", tested, ntMin)
	}
	t.Logf("%d types, %d configurations, non-temporal stores: %v", tested, len(configs), ntMin < 1<<62)
}
