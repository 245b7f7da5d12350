package datatype

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"testing"
)

// TestSharedLists checks that types made from equal long lists share one
// copy of them, and that lists that differ anywhere (after the caller
// changed its arrays, in a value the slot hash does not sample, by 2^61
// displacements that scale to the same bytes) get their own.
func TestSharedLists(t *testing.T) {
	r := rand.New(rand.NewPCG(61, 62))
	n := shareMin + 37
	bls, ds := make([]int64, n), make([]int64, n)
	var d int64
	for i := range n {
		bls[i] = 1 + r.Int64N(16)
		ds[i] = d
		d += bls[i] + 1 + r.Int64N(16)
	}
	dbl := Of(Double)
	same := func(a, b *Type) bool { return &a.displs[0] == &b.displs[0] }
	layout := func(a *Type) [9]int64 {
		return [9]int64{a.size, a.lb, a.ub, a.trueLB, a.trueUB, a.dataLB, a.dataUB, a.elements, b2i(a.contig)}
	}
	check := func(name string, a *Type, wantBls, wantDs []int64) {
		old := a.Old()
		t.Helper()
		lb, ld, _ := a.Lists()
		if !slices.Equal(lb, wantBls) || !slices.Equal(ld, wantDs) {
			t.Fatalf("%s: the type's lists differ from its arguments", name)
		}
		slow, _ := newDerived(nil, a.combiner, old)
		slow, err := slow.finishBlocks(func(i int) (int64, int64, *Type) { return wantBls[i], wantDs[i], old },
			len(wantBls), a.combiner == CombinerIndexed, false)
		if err != nil || layout(slow) != layout(a) {
			t.Fatalf("%s: layout %v, checked %v (%v)", name, layout(a), layout(slow), err)
		}
		ext, scale := old.Extent(), int64(1)
		if a.combiner == CombinerIndexed {
			scale = ext
		}
		want := expectedStats(wantBls, wantDs, scale, ext)
		if st, ok := a.BlockStats(); !ok || st != want {
			t.Fatalf("%s: stats %+v, want %+v", name, st, want)
		}
	}
	for _, c := range []Combiner{CombinerIndexed, CombinerHIndexed} {
		t1, err := indexed(c, bls, ds, dbl)
		if err != nil {
			t.Fatal(err)
		}
		t2, _ := indexed(c, slices.Clone(bls), slices.Clone(ds), dbl)
		if !same(t1, t2) {
			t.Errorf("%v: equal lists not shared", c)
		}
		check("shared", t2, bls, ds)
		d3 := slices.Clone(ds)
		d3[n-2] += 1 << 61 // the same bytes modulo 2^64 once scaled by 8
		if t5, err := indexed(c, bls, d3, dbl); err == nil && same(t1, t5) {
			t.Errorf("%v: a displacement 2^61 away shared the lists", c)
		}
		if t6, _ := indexed(c, bls, ds, dbl); !same(t1, t6) {
			t.Errorf("%v: equal lists not shared after a miss", c)
		}
		// the caller changes its arrays: the type made before keeps its
		// lists, the next one has its own
		b2, d2 := slices.Clone(bls), slices.Clone(ds)
		t3, _ := indexed(c, b2, d2, dbl)
		b2[5]++ // (blocks 0, 68, 136, ... are sampled; 5 is not)
		t4, _ := indexed(c, b2, d2, dbl)
		if same(t3, t4) {
			t.Errorf("%v: lists that differ in block 5 shared", c)
		}
		check("before the change", t3, bls, ds)
		check("after the change", t4, b2, d2)
		runtime.KeepAlive(t1)
		runtime.KeepAlive(t2)
	}
	// different old types of one extent share; of another extent do not
	i64 := Of(Int64)
	ta, _ := Indexed(bls, ds, dbl)
	tb, _ := Indexed(bls, ds, i64)
	tc, _ := Indexed(bls, ds, Of(Int))
	if !same(ta, tb) || same(ta, tc) {
		t.Errorf("sharing across old types: same extent %v, other extent %v", same(ta, tb), same(ta, tc))
	}
	check("int", tc, bls, ds)
	hd, _ := HIndexed(bls, ds, dbl)
	hi, _ := HIndexed(bls, ds, Of(Int))
	if same(hd, hi) {
		t.Error("hindexed lists of old types of different extents shared")
	}
	check("hindexed int", hi, bls, ds)

	// many goroutines making equal and different types at once (-race)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			b, dd := slices.Clone(bls), slices.Clone(ds)
			b[g+1] += int64(g % 2)
			for range 20 {
				ty, err := Indexed(b, dd, dbl)
				if err != nil {
					t.Error(err)
					return
				}
				if lb, _, _ := ty.Lists(); !slices.Equal(lb, b) {
					t.Error("a type made concurrently has another type's lists")
					return
				}
			}
		})
	}
	wg.Wait()
}

// TestSharedListsCheckOldSize shares lists only within the limits of the
// old type at hand: equal lists over a larger old type of the same extent
// must take the checked path (here its size overflows int64).
func TestSharedListsCheckOldSize(t *testing.T) {
	n := shareMin
	bls, ds := make([]int64, n), make([]int64, n)
	for i := range n {
		bls[i], ds[i] = 1<<20-int64(i*i%5), int64(i)<<21+int64(i*i%7) // not a few runs
	}
	small, _ := Resized(Of(Char), 0, 8) // size 1, extent 8
	big0, err := Contiguous(1<<37, Of(Double))
	if err != nil {
		t.Fatal(err)
	}
	big, _ := Resized(big0, 0, 8) // size 2^40, extent 8
	a, err := HIndexed(bls, ds, small)
	if err != nil {
		t.Fatal(err)
	}
	if a.Size() > int64(n)<<20 || a.Size() < int64(n)<<19 {
		t.Fatalf("size %d", a.Size())
	}
	if st, ok := a.BlockStats(); !ok || a.displs == nil {
		t.Fatalf("no one-pass copy: %v %v", st, ok)
	}
	b, err := HIndexed(bls, ds, big)
	if err == nil {
		t.Fatalf("hindexed of 2^30 instances of a 2^40-byte type built, size %d", b.Size())
	}
	runtime.KeepAlive(a)
}
