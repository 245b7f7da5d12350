package datatype

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestCopyForwardMatchesCheckedPath compares indexed and hindexed types of
// long lists, which take the one-pass copy (copyForward), with the
// general, overflow-checked block accumulator, on random lists that
// include empty blocks, touching blocks and values at and past the fast
// path's range; it checks the recorded BlockStats against the lists and
// that the type keeps its own copy of the lists.
func TestCopyForwardMatchesCheckedPath(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	olds := blockOlds(r)
	var withStats, contig, declined int
	for trial := range 6000 {
		old := olds[r.IntN(len(olds))]
		n := minRunList + r.IntN(30)
		bls, displs := make([]int64, n), make([]int64, n)
		mode := r.IntN(4)
		for i := range n {
			bls[i] = 1 + r.Int64N(4)
			if trial%7 == 0 {
				bls[i] = r.Int64N(4) // empty blocks
			}
			switch mode {
			case 0: // random
				displs[i] = r.Int64N(400) - 200
			case 1: // increasing with gaps
				if i > 0 {
					displs[i] = displs[i-1] + bls[i-1] + r.Int64N(3)
				}
			case 2: // touching in extents of old (a random list of steps 1..3 elements for hindexed)
				if i > 0 {
					step := bls[i-1]
					if old.Extent() != 0 {
						step = bls[i-1] * old.Extent()
					}
					displs[i] = displs[i-1] + step
				}
			case 3: // decreasing
				if i > 0 {
					displs[i] = displs[i-1] - 1 - r.Int64N(5)
				}
			}
		}
		// values past the fast path's range, in non-empty blocks (empty
		// blocks are skipped before their displacement is scaled)
		j := r.IntN(n)
		switch trial % 40 {
		case 1:
			displs[j], bls[j] = 1<<61, 1
		case 2:
			displs[j], bls[j] = -1<<63, 1
		case 3:
			bls[j] = 1 << 59
		case 4:
			displs[j], bls[j] = 1<<62+3, 2
		}
		for _, c := range []Combiner{CombinerIndexed, CombinerHIndexed} {
			in1, in2 := slices.Clone(bls), slices.Clone(displs)
			fast, ferr := indexed(c, in1, in2, old)
			scaled := c == CombinerIndexed
			slow, _ := newDerived(nil, c, old)
			slow, serr := slow.finishBlocks(func(i int) (int64, int64, *Type) { return bls[i], displs[i], old },
				n, scaled, old.size == 0)
			if (ferr != nil) != (serr != nil) {
				t.Fatalf("trial %d %v: errors differ: %v vs checked %v", trial, c, ferr, serr)
			}
			if ferr != nil {
				continue
			}
			if err := slow.checkBounds(nBlocks(n)); err != nil {
				t.Fatalf("trial %d %v: the one-pass path accepted what checkBounds refuses: %v", trial, c, err)
			}
			got := [10]int64{fast.size, fast.lb, fast.ub, fast.trueLB, fast.trueUB, fast.dataLB, fast.dataUB, fast.elements, fast.align, b2i(fast.contig)}
			want := [10]int64{slow.size, slow.lb, slow.ub, slow.trueLB, slow.trueUB, slow.dataLB, slow.dataUB, slow.elements, slow.align, b2i(slow.contig)}
			if got != want {
				t.Fatalf("trial %d %v %v %v of %v: one pass %v, checked %v", trial, c, bls, displs, old, got, want)
			}
			// the type's lists are its own and the ones given
			in1[0], in2[0] = 12345, 12345
			if lb, ld, _ := fast.Lists(); !slices.Equal(lb, bls) || !slices.Equal(ld, displs) {
				t.Fatalf("trial %d %v: Lists %v %v, want %v %v", trial, c, lb, ld, bls, displs)
			}
			ext := old.Extent()
			if b, bd, ok := fast.ByteLists(); ok {
				for i := range bd {
					if !scaled || bd[i] != displs[i]*ext || b[i] != bls[i] {
						t.Fatalf("trial %d %v: ByteLists %v %v for %v %v, extent %d", trial, c, b, bd, bls, displs, ext)
					}
				}
			}
			st, ok := fast.BlockStats()
			if !ok {
				declined++
				continue
			}
			withStats++
			if fast.contig {
				contig++
			}
			scale := int64(1)
			if scaled {
				scale = ext
			}
			want2 := expectedStats(bls, displs, scale, ext)
			if st != want2 {
				t.Fatalf("trial %d %v %v %v of %v: stats %+v, want %+v", trial, c, bls, displs, old, st, want2)
			}
		}
	}
	if withStats < 1000 || contig < 50 || declined < 200 {
		t.Errorf("%d types with stats (%d contiguous), %d without: the cases are not covered", withStats, contig, declined)
	}
}

// blockOlds returns old types for block tests: basic types, pairs,
// resized ints of random lower bounds and extents from -24 to 16, a
// vector of negative stride and an empty contiguous.
func blockOlds(r *rand.Rand) []*Type {
	olds := []*Type{Of(Int), Of(Double), Of(Char), ShortInt, LongDoubleInt}
	for _, ext := range []int64{-24, -8, 0, 3, 16} {
		rs, _ := Resized(Of(Int), r.Int64N(9)-4, ext)
		olds = append(olds, rs)
	}
	v, _ := Vector(3, 2, -5, Of(Float))
	z, _ := Contiguous(0, Of(Int))
	return append(olds, v, z)
}

// expectedStats computes the BlockStats of blocks of bls[i] instances of
// an old type of extent ext at displacements ds[i] in units of scale
// bytes, block by block.
func expectedStats(bls, ds []int64, scale, ext int64) BlockStats {
	want := BlockStats{MinBlocklength: slices.Min(bls), MaxBlocklength: slices.Max(bls)}
	for i := range bls {
		want.Total += bls[i]
		want.ByteOr |= uint64(ds[i] * scale)
		if i > 0 && ds[i]*scale == ds[i-1]*scale+bls[i-1]*ext {
			want.Touching++
		}
	}
	return want
}

// FuzzLongLists builds indexed and hindexed types of long lists (16 to
// 1100 blocks, so the one-pass copy and the sharing of equal lists run)
// from a few fuzzed values, extreme ones included, and requires the layout
// the checked accumulator computes, the same error, and the same type when
// built a second time (shared or not).
func FuzzLongLists(f *testing.F) {
	f.Add(int64(0), int64(1), int64(3), int64(17), uint16(20), uint8(0), uint8(1))
	f.Add(int64(-5), int64(1<<40), int64(1), int64(2), uint16(1030), uint8(1), uint8(2))
	f.Add(int64(1<<61), int64(-1), int64(1<<59), int64(0), uint16(1500), uint8(2), uint8(3))
	f.Add(int64(7), int64(9), int64(2), int64(5), uint16(1100), uint8(3), uint8(4))
	olds := []*Type{Of(Int), Of(Double), Of(Char), ShortInt, LongDoubleInt}
	if rs, err := Resized(Of(Int), -4, 12); err == nil {
		olds = append(olds, rs)
	}
	if v, err := Vector(3, 2, -5, Of(Float)); err == nil {
		olds = append(olds, v)
	}
	// old types of extent 8 and sizes 1, 8 and 2^40: equal lists over them
	// share only within each one's limits
	if small, err := Resized(Of(Char), 0, 8); err == nil {
		olds = append(olds, small)
	}
	if c, err := Contiguous(1<<37, Of(Double)); err == nil {
		if big, err := Resized(c, 0, 8); err == nil {
			olds = append(olds, big)
		}
	}
	f.Fuzz(func(t *testing.T, d0, step, b0, bmod int64, n16 uint16, oldIx, mode uint8) {
		n := 16 + int(n16)%1085
		old := olds[int(oldIx)%len(olds)]
		bls, ds := make([]int64, n), make([]int64, n)
		for i := range n {
			k := int64(i)
			switch mode % 4 {
			case 0: // arithmetic (wrapping)
				ds[i], bls[i] = d0+k*step, b0
			case 1: // varying lengths, touching or not
				bls[i] = b0 + k%max(1, bmod&15)
				if i > 0 {
					ds[i] = ds[i-1] + bls[i-1] + (k*step)&3
				} else {
					ds[i] = d0
				}
			case 2: // pseudo-random around d0
				ds[i], bls[i] = d0+(k*k*step)%1000, 1+(k*bmod)&7
			default: // one extreme value in an ordinary list
				ds[i], bls[i] = k*3, 1+k%3
				if i == int(uint64(bmod)%uint64(n)) {
					ds[i], bls[i] = d0, b0
				}
			}
		}
		for _, c := range []Combiner{CombinerIndexed, CombinerHIndexed} {
			a, errA := indexed(c, bls, ds, old)
			b, errB := indexed(c, bls, ds, old) // shared with a when a took the one-pass copy
			slow, _ := newDerived(nil, c, old)
			slow, errS := slow.finishBlocks(func(i int) (int64, int64, *Type) { return bls[i], ds[i], old },
				n, c == CombinerIndexed, old.size == 0)
			if errS == nil {
				errS = slow.checkBounds(nBlocks(n))
			}
			negative := slices.Min(bls) < 0
			if (errA != nil) != (errB != nil) || !negative && (errA != nil) != (errS != nil) {
				t.Fatalf("%v: errors %v, %v; checked %v", c, errA, errB, errS)
			}
			if errA != nil {
				continue
			}
			for _, ty := range []*Type{a, b} {
				got := [9]int64{ty.size, ty.lb, ty.ub, ty.trueLB, ty.trueUB, ty.dataLB, ty.dataUB, ty.elements, b2i(ty.contig)}
				want := [9]int64{slow.size, slow.lb, slow.ub, slow.trueLB, slow.trueUB, slow.dataLB, slow.dataUB, slow.elements, b2i(slow.contig)}
				if !slow.zero && got != want {
					t.Fatalf("%v of %v: layout %v, checked %v", c, old, got, want)
				}
				if lb, ld, _ := ty.Lists(); !slices.Equal(lb, bls) || !slices.Equal(ld, ds) {
					t.Fatalf("%v: the type's lists differ from its arguments", c)
				}
			}
		}
	})
}
