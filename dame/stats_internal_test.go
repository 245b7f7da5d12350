package dame

import (
	"math/rand/v2"
	"slices"
	"sync"
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
		if n1.Op == Index && n1.Disps != nil && &n1.Disps[0] == &a.Displacements[0] {
			apart++
		}
		if d1 != d2 || n1.Op != n2.Op || n1.Size != n2.Size || n1.Count != n2.Count || n1.Depth != n2.Depth ||
			n1.Blocklen != n2.Blocklen || n1.Stride != n2.Stride || n1.hasOr != n2.hasOr || n1.dispsOr != n2.dispsOr ||
			!slices.Equal(n1.Blocklens, n2.Blocklens) || !slices.Equal(n1.Disps, n2.Disps) || n1.Child.Size != n2.Child.Size {
			t.Fatalf("trial %d: from statistics %+v at %d, scanned %+v at %d", trial, *n1, d1, *n2, d2)
		}
	}
	if apart < 200 || used-apart < 200 {
		t.Errorf("%d of %d nodes share the type's lists: the cases are not covered", apart, used)
	}
}

// TestMarkTable checks the marks written on first use against the block
// sizes, with goroutines racing to write them (run with -race).
func TestMarkTable(t *testing.T) {
	for _, nb := range []int{1, 63, 64, 65, 128, 129, 1000} {
		bls, ds := make([]int64, nb), make([]int64, nb)
		var want []int64
		var s int64
		for i := range nb {
			bls[i] = int64(i%5) + 1
			ds[i] = int64(i) * 100
			if i%markEvery == 0 {
				want = append(want, s)
			}
			s += bls[i] * 3
		}
		n := (&Node{Op: Index, Blocklens: bls, Disps: ds, Child: &Node{Op: ContigFinal, Size: 3, Extent: 3}}).finish()
		if n.Size != s {
			t.Fatalf("%d blocks: size %d, want %d", nb, n.Size, s)
		}
		var wg sync.WaitGroup
		got := make([][]int64, 4)
		for g := range got {
			wg.Go(func() { got[g] = n.markTable() })
		}
		wg.Wait()
		for _, m := range got {
			if nb <= markEvery && m != nil || nb > markEvery && !slices.Equal(m, want) {
				t.Fatalf("%d blocks: marks %v, want %v", nb, m, want)
			}
		}
		// every packed byte's block, found through the marks
		var off int64
		for i := range int64(nb) {
			for k := range bls[i] * 3 {
				if b, o := n.FindBlockOffset(off + k); b != i || o != off {
					t.Fatalf("%d blocks: byte %d in block %d at %d, want %d at %d", nb, off+k, b, o, i, off)
				}
			}
			if o := n.BlockOffset(i); o != off {
				t.Fatalf("%d blocks: block %d at %d, want %d", nb, i, o, off)
			}
			off += bls[i] * 3
		}
	}
}
