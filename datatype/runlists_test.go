package datatype

import (
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
)

// TestRunLists builds indexed types from lists of a few arithmetic runs
// (stored as runs) and from random lists (stored as given) and checks that
// the type reports exactly the lists it was given, whichever way it keeps
// them, and that a run form expands to them.
func TestRunLists(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	runsSeen := 0
	for trial := range 2000 {
		var ds, bls []int64
		for range 1 + r.IntN(10) {
			d, step, bl, bstep := r.Int64N(1000)-500, r.Int64N(40)-20, 1+r.Int64N(5), r.Int64N(2)
			for range 1 + r.IntN(30) {
				ds, bls = append(ds, d), append(bls, bl)
				d += step
				bl += bstep
			}
		}
		if trial%5 == 0 {
			for i := range ds {
				ds[i] = r.Int64N(1 << 20)
			}
		}
		in := Of(Int)
		var ty *Type
		var err error
		switch trial % 4 {
		case 0:
			ty, err = Indexed(bls, ds, in)
		case 1:
			ty, err = HIndexed(bls, ds, in)
		case 2:
			ty, err = IndexedBlock(3, ds, in)
			bls = nil
		default:
			ty, err = HIndexedBlock(2, ds, in)
			bls = nil
		}
		if err != nil {
			t.Fatal(err)
		}
		a := ty.Args()
		if !slices.Equal(a.Displacements, ds) || !slices.Equal(a.Blocklengths, bls) {
			t.Fatalf("trial %d: Args differ from the lists given", trial)
		}
		if rb, rd, ok := ty.Runs(); ok {
			runsSeen++
			if !slices.Equal(expand(rd, len(ds)), ds) || (bls != nil) != (rb != nil) || (bls != nil && !slices.Equal(expand(rb, len(bls)), bls)) {
				t.Fatalf("trial %d: runs do not expand to the lists", trial)
			}
			if len(rd) > maxRuns || len(ds) < minRunList {
				t.Fatalf("trial %d: %d runs of a list of %d", trial, len(rd), len(ds))
			}
		}
		// an equal type built again compares equal
		var ty2 *Type
		switch trial % 4 {
		case 0:
			ty2, _ = Indexed(slices.Clone(bls), slices.Clone(ds), in)
		case 1:
			ty2, _ = HIndexed(slices.Clone(bls), slices.Clone(ds), in)
		case 2:
			ty2, _ = IndexedBlock(3, slices.Clone(ds), in)
		default:
			ty2, _ = HIndexedBlock(2, slices.Clone(ds), in)
		}
		if !Equal(ty, ty2) {
			t.Fatalf("trial %d: rebuilt type differs", trial)
		}
	}
	if runsSeen < 200 {
		t.Errorf("only %d types kept their lists as runs", runsSeen)
	}
}

// TestRunListsConcurrent writes the lists of a run-stored type out from
// several goroutines at once (run with -race).
func TestRunListsConcurrent(t *testing.T) {
	ds := make([]int64, 100)
	for i := range ds {
		ds[i] = int64(i * 7)
	}
	ty, err := HIndexedBlock(1, ds, Of(Char))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, ok := ty.Runs(); !ok {
		t.Fatal("a strided list is not kept as runs")
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if !slices.Equal(ty.Args().Displacements, ds) {
				t.Error("displacements differ")
			}
		})
	}
	wg.Wait()
}

// TestRunBoundsMatchCheckedPath computes the layout of indexed types whose
// lists are kept as runs (bounds from the runs) and compares it with the
// checked block accumulator over the lists written out.
func TestRunBoundsMatchCheckedPath(t *testing.T) {
	r := rand.New(rand.NewPCG(51, 52))
	olds := []*Type{Of(Int), Of(Double), ShortInt}
	for _, ext := range []int64{4, 8, 16} {
		rs, _ := Resized(Of(Int), r.Int64N(5)-2, ext)
		olds = append(olds, rs)
	}
	checked := 0
	for trial := range 3000 {
		old := olds[r.IntN(len(olds))]
		var ds, bls []int64
		for range 1 + r.IntN(4) {
			d, bl := r.Int64N(400)-200, 1+r.Int64N(4)
			if len(ds) > 0 && r.IntN(2) == 0 { // follow the block before
				d = ds[len(ds)-1] + bls[len(bls)-1]
			}
			step, bstep := []int64{0, 1, 2, 3, 5, -3}[r.IntN(6)], []int64{0, 0, 1, -1}[r.IntN(4)]
			if trial%2 == 0 {
				bstep = 0
			}
			for range 4 + r.IntN(20) {
				if bl < 1 {
					bl = 1
				}
				ds, bls = append(ds, d), append(bls, bl)
				if step == 1 {
					d += bl // touching
				} else {
					d += step
				}
				bl += bstep
			}
		}
		for _, c := range []Combiner{CombinerIndexed, CombinerHIndexed, CombinerIndexedBlock, CombinerHIndexedBlock} {
			var fast *Type
			var err error
			bl := bls
			if c == CombinerIndexedBlock || c == CombinerHIndexedBlock {
				bl = make([]int64, len(ds))
				for i := range bl {
					bl[i] = bls[0]
				}
				fast, err = indexedBlock(nil, c, bls[0], ds, nil, old)
			} else {
				fast, err = indexed(c, bl, ds, old)
			}
			if err != nil {
				t.Fatal(err)
			}
			if _, _, ok := fast.Runs(); !ok {
				continue
			}
			checked++
			var a blockAcc
			scale := int64(1)
			if c == CombinerIndexed || c == CombinerIndexedBlock {
				scale = old.Extent()
			}
			for i := range ds {
				a.block(ds[i]*scale, bl[i], old)
			}
			if a.k.err != nil {
				t.Fatal(a.k.err)
			}
			slow := &Type{}
			a.finish(slow)
			got := [10]int64{fast.size, fast.lb, fast.ub, fast.trueLB, fast.trueUB, fast.dataLB, fast.dataUB, fast.elements, fast.align, b2i(fast.contig)}
			want := [10]int64{slow.size, slow.lb, slow.ub, slow.trueLB, slow.trueUB, slow.dataLB, slow.dataUB, slow.elements, slow.align, b2i(slow.contig)}
			if got != want {
				t.Fatalf("trial %d %v bls %v ds %v of %v: runs %v, checked %v", trial, c, bl, ds, old, got, want)
			}
		}
	}
	if checked < 1000 {
		t.Errorf("only %d types with run lists checked", checked)
	}
}

// TestRunBoundsContig checks contiguity from runs on lists built to touch
// or to overlap.
func TestRunBoundsContig(t *testing.T) {
	in := Of(Int)
	seq := func(n int, start, step int64) []int64 {
		xs := make([]int64, n)
		for i := range xs {
			xs[i] = start + int64(i)*step
		}
		return xs
	}
	for _, c := range []struct {
		bls, ds []int64
		contig  bool
	}{
		{seq(20, 2, 0), seq(20, 0, 2), true},    // blocks of 2 ints, 2 apart: one run
		{seq(20, 2, 1), seq(20, 0, 2), false},   // growing blocks 2 apart: they overlap
		{seq(20, 2, 0), seq(20, 0, 3), false},   // gaps
		{seq(20, 1, 0), seq(20, 5, 1), true},    // one int each, consecutive
		{seq(20, 1, 0), seq(20, 20, -1), false}, // consecutive, backwards
	} {
		ty, err := Indexed(c.bls, c.ds, in)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, ok := ty.Runs(); !ok {
			t.Fatalf("%v %v: not kept as runs", c.bls, c.ds)
		}
		if ty.IsContiguous() != c.contig {
			t.Errorf("bls %v ds %v: contiguous %v, want %v", c.bls, c.ds, ty.IsContiguous(), c.contig)
		}
	}
}

// TestByteListsConcurrent reads the displacements of an indexed type that
// keeps them in bytes from several goroutines at once (run with -race).
func TestByteListsConcurrent(t *testing.T) {
	r := rand.New(rand.NewPCG(61, 62))
	bls, ds := make([]int64, 300), make([]int64, 300)
	var pos int64
	for i := range ds {
		bls[i] = 1 + r.Int64N(4)
		ds[i] = pos
		pos += bls[i] + 1 + r.Int64N(5)
	}
	ty, err := Indexed(bls, ds, Of(Double))
	if err != nil {
		t.Fatal(err)
	}
	bl, bd, ok := ty.ByteLists()
	if !ok || !slices.Equal(bl, bls) {
		t.Fatal("a random indexed list of doubles is not kept in bytes")
	}
	for i := range bd {
		if bd[i] != ds[i]*8 {
			t.Fatalf("byte displacement %d is %d, want %d", i, bd[i], ds[i]*8)
		}
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if a := ty.Args(); !slices.Equal(a.Displacements, ds) || !slices.Equal(a.Blocklengths, bls) {
				t.Error("Args differ from the lists given")
			}
		})
	}
	wg.Wait()
	ty2, _ := Indexed(slices.Clone(bls), slices.Clone(ds), Of(Double))
	if !Equal(ty, ty2) {
		t.Error("rebuilt type differs")
	}
}

// TestRunListsWrap gives lists whose steps or runs overflow int64 (0,
// MinInt64, 0, …: a "run" of step MinInt64 in wrapping arithmetic) and
// checks that the type is refused or its bounds hold every block, as
// without runs.
func TestRunListsWrap(t *testing.T) {
	const minInt = -1 << 63
	var lists [][]int64
	for _, n := range []int{20, 21} {
		l0, l1, l2 := make([]int64, n), make([]int64, n), make([]int64, n)
		for i := range n {
			if i%2 == 1 {
				l0[i] = minInt
			}
			l1[i] = int64(i) * (1 << 62) // wraps after a few steps
			l2[i] = 1<<62 - int64(i)*(1<<61)
		}
		lists = append(lists, l0, l1, l2)
	}
	for k, ds := range lists {
		for _, c := range []Combiner{CombinerHIndexedBlock, CombinerIndexedBlock} {
			ty, err := indexedBlock(nil, c, 1, ds, nil, Of(Char))
			if err != nil {
				continue // refused: fine
			}
			lo, hi := ty.DataBounds()
			for _, d := range ds {
				if d < lo || d+1 > hi {
					t.Fatalf("list %d %v: block at %d outside the data bounds [%d, %d)", k, c, d, lo, hi)
				}
			}
		}
	}
}

// TestRunListsLargeValues builds indexed types from lists of a few runs
// with steps and values near the ends of int64 and compares their layout
// with the checked accumulator over the same lists: both refuse, or both
// give the same bounds.
func TestRunListsLargeValues(t *testing.T) {
	r := rand.New(rand.NewPCG(71, 72))
	bigs := []int64{0, 1, -1, 1 << 40, -1 << 40, 1 << 58, -1 << 58, 1 << 61, -1 << 61, 1 << 62, -1 << 62, 1<<63 - 1, -1 << 63}
	pick := func() int64 { return bigs[r.IntN(len(bigs))] + r.Int64N(3) - 1 }
	for trial := range 5000 {
		var ds []int64
		for range 1 + r.IntN(3) {
			d, step := pick(), pick()
			for range 8 + r.IntN(12) {
				ds = append(ds, d)
				d += step // may wrap: the list then is not one progression
			}
		}
		bls := make([]int64, len(ds))
		for i := range bls {
			bls[i] = 1 + int64(i%2)
		}
		old := Of(Int)
		for _, c := range []Combiner{CombinerIndexed, CombinerHIndexed, CombinerIndexedBlock, CombinerHIndexedBlock} {
			bl := bls
			var fast *Type
			var err error
			if c == CombinerIndexedBlock || c == CombinerHIndexedBlock {
				bl = make([]int64, len(ds))
				for i := range bl {
					bl[i] = 1
				}
				fast, err = indexedBlock(nil, c, 1, ds, nil, old)
			} else {
				fast, err = indexed(c, bl, ds, old)
			}
			slow, _ := newDerived(nil, c, old)
			scaled := c == CombinerIndexed || c == CombinerIndexedBlock
			slow, serr := slow.finishBlocks(func(i int) (int64, int64, *Type) { return bl[i], ds[i], old }, len(ds), scaled, false)
			if (err == nil) != (serr == nil) {
				t.Fatalf("trial %d %v %v: runs path err %v, checked err %v", trial, c, ds, err, serr)
			}
			if err != nil {
				continue
			}
			got := [6]int64{fast.size, fast.lb, fast.ub, fast.dataLB, fast.dataUB, b2i(fast.contig)}
			want := [6]int64{slow.size, slow.lb, slow.ub, slow.dataLB, slow.dataUB, b2i(slow.contig)}
			if got != want {
				t.Fatalf("trial %d %v %v: layout %v, checked %v", trial, c, ds, got, want)
			}
		}
	}
}
