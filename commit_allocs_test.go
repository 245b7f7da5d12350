// The invariants build tag validates programs after every rewrite, which
// allocates.

//go:build !invariants

package ddt

import (
	"math/rand/v2"
	"testing"

	"github.com/ddtlab/ddt/datatype"
)

// TestCommitAllocs bounds what committing a type of 4096 random blocks
// (the anchors' L6 layout) allocates: the committed type with its program
// and the program's node, nothing of the lists' size and nothing for the
// compiler's attempts that fail. The L6 commit regression of issue 20 was
// three allocations of such an attempt (the segmenter and its growing
// slice: 2.4 KB before, 3.3 KB once segments grew), paid in page faults by
// the harness's create+commit cycles (bench/RESULTS.md §14).
func TestCommitAllocs(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 4096))
	bls, ds := make([]int64, 4096), make([]int64, 4096)
	pos := int64(0)
	for i := range bls {
		if i > 0 {
			pos += 1 + r.Int64N(16)
		}
		bls[i], ds[i] = 1+r.Int64N(16), pos
		pos += bls[i]
	}
	ty, err := datatype.Indexed(bls, ds, datatype.Of(datatype.Double))
	if err != nil {
		t.Fatal(err)
	}
	n := testing.AllocsPerRun(50, func() {
		if _, err := Commit(ty); err != nil {
			t.Fatal(err)
		}
	})
	if n > 2 {
		t.Errorf("committing 4096 random blocks allocates %v times, want at most 2", n)
	}
}
