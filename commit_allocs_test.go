// The invariants build tag validates programs after every rewrite, which
// allocates.

//go:build !invariants

package ddt

import (
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/ddtlab/ddt/dame"
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

// TestCommitSmallAllocs checks that simple types (the anchors' L1, L2
// and L8 layouts, issue 24) commit in one allocation of at most 448 bytes:
// the committed type, its program and the program's first two nodes.
func TestCommitSmallAllocs(t *testing.T) {
	dbl := datatype.Of(datatype.Double)
	mk := func(ty *datatype.Type, err error) *datatype.Type {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return ty
	}
	for i, ty := range []*datatype.Type{
		mk(datatype.Vector(256, 1, 24, dbl)),
		mk(datatype.Vector(256, 16, 32, dbl)),
		mk(datatype.HVector(7, 3, -40, dbl)),
		mk(datatype.Resized(dbl, 0, 192)),
		mk(datatype.Contiguous(1000, dbl)),
		mk(datatype.Vector(4, 512, 1024, dbl)), // blocks of 4096 bytes: the leaf is a node
		dbl,
	} {
		n := testing.AllocsPerRun(20, func() {
			if _, err := Commit(ty); err != nil {
				t.Fatal(err)
			}
		})
		if n != 1 {
			t.Errorf("type %d: Commit allocates %v times, want 1", i, n)
		}
	}
	if s := unsafe.Sizeof(struct {
		c Committed
		p dame.Program
		n [2]dame.Node
	}{}); s > 448 {
		t.Errorf("a committed type with two nodes is %d bytes, want at most 448", s)
	}
}
