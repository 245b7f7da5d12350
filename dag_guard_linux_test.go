//go:build linux

package ddt

import (
	"math/rand/v2"
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
	r := rand.New(rand.NewPCG(213, 214))
	n := 40
	if testing.Short() {
		n = 10
	}
	configs := guardConfigs()
	tested := 0
	for _, ty := range sharedTypes(r, n) {
		if guardType(t, r, ty, int64(1+r.IntN(2)), 0, configs, img, packed, nil) {
			tested++
		}
	}
	if tested < n/2 {
		t.Fatalf("only %d types fit the guarded pages", tested)
	}
}
