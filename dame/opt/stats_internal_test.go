package opt

import (
	"github.com/ddtlab/ddt/dame"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ddtlab/ddt/datatype"
)

// TestLeafRunsStatsMatchScan builds the node of long indexed lists of a
// leaf both from the block statistics the type recorded and by scanning
// the lists (separateDisps, finish), and requires the same node.
func TestLeafRunsStatsMatchScan(t *testing.T) {
	r := rand.New(rand.NewPCG(51, 52))
	olds := []*datatype.Type{datatype.Of(datatype.Int), datatype.Of(datatype.Char), datatype.Of(datatype.Double)}
	used, apart := 0, 0
	for trial := range 3000 {
		n := 16 + r.IntN(100)
		bls, ds := make([]int64, n), make([]int64, n)
		var d int64
		for i := range n {
			bls[i] = 1 + r.Int64N(3)
			if trial%5 == 0 {
				bls[i] = 2 // no block of one leaf
			}
			ds[i] = d
			gap := r.Int64N(4) // 0: touching
			if trial%2 == 0 {
				gap = 1 + r.Int64N(3)
			}
			d += bls[i] + gap
		}
		if trial%3 == 0 {
			r.Shuffle(n, func(i, j int) { ds[i], ds[j] = ds[j], ds[i] })
		}
		old := olds[r.IntN(len(olds))]
		var ty *datatype.Type
		var err error
		if trial%2 == 0 {
			ty, err = datatype.Indexed(bls, ds, old)
		} else {
			for i := range ds {
				ds[i] *= old.Extent()
			}
			ty, err = datatype.HIndexed(bls, ds, old)
		}
		if err != nil {
			t.Fatal(err)
		}
		if _, _, ok := ty.Runs(); ok {
			continue // kept as runs (see indexedRuns)
		}
		st, ok := ty.BlockStats()
		if !ok {
			t.Fatalf("trial %d: no statistics for %d blocks", trial, n)
		}
		a := ty.Args()
		if b, bd, ok := ty.ByteLists(); ok {
			a.Blocklengths, a.Displacements = b, bd
		} else if ty.Combiner() == datatype.CombinerIndexed && old.Extent() != 1 {
			t.Fatalf("trial %d: indexed of extent %d keeps no byte lists", trial, old.Extent())
		}
		size := old.Size()
		var z1, z2 builder
		n1, d1 := z1.leafRuns(a, 1, 0, size, st, true)
		n2, d2 := z2.leafRuns(a, 1, 0, size, datatype.BlockStats{}, false)
		used++
		if n1.Op == dame.Index && n1.Disps != nil && &n1.Disps[0] == &a.Displacements[0] {
			apart++
		}
		or1, ok1 := n1.DispsOr()
		or2, ok2 := n2.DispsOr()
		if d1 != d2 || n1.Op != n2.Op || n1.Size != n2.Size || n1.Count != n2.Count || n1.Depth != n2.Depth ||
			n1.Blocklen != n2.Blocklen || n1.Stride != n2.Stride || or1 != or2 || ok1 != ok2 ||
			!slices.Equal(n1.Blocklens, n2.Blocklens) || !slices.Equal(n1.Disps, n2.Disps) || n1.Child.Size != n2.Child.Size {
			t.Fatalf("trial %d: from statistics %+v at %d, scanned %+v at %d", trial, *n1, d1, *n2, d2)
		}
	}
	if apart < 200 || used-apart < 200 {
		t.Errorf("%d of %d nodes share the type's lists: the cases are not covered", apart, used)
	}
}
