package datatype

import (
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestUniformBlocksMatchesCheckedPath compares the fast path of indexed
// types with the general, overflow-checked block accumulator.
func TestUniformBlocksMatchesCheckedPath(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	olds := []*Type{Of(Int), Of(Double), ShortInt, LongDoubleInt}
	for _, ext := range []int64{-24, -8, 0, 3, 16} {
		rs, _ := Resized(Of(Int), r.Int64N(9)-4, ext)
		olds = append(olds, rs)
	}
	v, _ := Vector(3, 2, -5, Of(Float))
	olds = append(olds, v)
	contigSeen := 0
	defer func() {
		if contigSeen < 20 {
			t.Errorf("only %d contiguous types of several blocks tested", contigSeen)
		}
	}()
	for trial := range 4000 {
		old := olds[r.IntN(len(olds))]
		n := r.IntN(6)
		bls := make([]int64, n)
		displs := make([]int64, n)
		for i := range n {
			bls[i] = r.Int64N(4)
			displs[i] = r.Int64N(200) - 100
		}
		if trial%3 == 0 && n > 0 {
			// blocks that follow each other, touching or not, forward or
			// backward, so that contig is tested both ways
			step := r.Int64N(2*max(1, bls[0])*max(1, abs64(old.Extent()))+1) - max(1, bls[0])*max(1, abs64(old.Extent()))
			for i := 1; i < n; i++ {
				displs[i] = displs[i-1] + step
			}
		}
		for _, c := range []Combiner{CombinerIndexed, CombinerHIndexed, CombinerIndexedBlock, CombinerHIndexedBlock} {
			var fast *Type
			var err error
			bl := bls
			if c == CombinerIndexedBlock || c == CombinerHIndexedBlock {
				if n > 0 && bls[0] == 0 {
					continue // the zero-length indexed_block rule has its own path
				}
				bl = make([]int64, n)
				for i := range bl {
					bl[i] = max(1, bls[0])
				}
			}
			if c == CombinerIndexed || c == CombinerHIndexed {
				fast, err = indexed(c, bl, displs, old)
			} else {
				var b0 int64 = 1
				if n > 0 {
					b0 = bl[0]
				}
				fast, err = indexedBlock(nil, c, b0, displs, nil, old)
			}
			if err != nil {
				t.Fatal(err)
			}
			slow, _ := newDerived(nil, c, old)
			slow, err = slow.finishBlocks(func(i int) (int64, int64, *Type) { return bl[i], displs[i], old },
				n, c == CombinerIndexed || c == CombinerIndexedBlock, old.size == 0)
			if err != nil {
				t.Fatal(err)
			}
			got := [10]int64{fast.size, fast.lb, fast.ub, fast.trueLB, fast.trueUB, fast.dataLB, fast.dataUB, fast.elements, fast.align, b2i(fast.contig)}
			want := [10]int64{slow.size, slow.lb, slow.ub, slow.trueLB, slow.trueUB, slow.dataLB, slow.dataUB, slow.elements, slow.align, b2i(slow.contig)}
			if fast.contig && n > 1 && fast.size > 0 {
				contigSeen++
			}
			if got != want {
				t.Fatalf("trial %d %v %v %v of %v: fast %v, checked %v", trial, c, bl, displs, old, got, want)
			}
		}
	}
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// TestAbs64MinInt64 checks that the fast path's magnitude test refuses
// -2^63, whose negation does not fit (it let a displacement of -2^63 wrap
// a block out of its type's bounds).
func TestAbs64MinInt64(t *testing.T) {
	if abs64(-1<<63) <= limit || abs64(-5) != 5 || abs64(7) != 7 {
		t.Errorf("abs64(MinInt64) = %d", abs64(-1<<63))
	}
	i := Of(Int)
	ty := &Type{combiner: CombinerHIndexed}
	if ty.uniformBlocks([]int64{1, 1}, 0, []int64{0, -1 << 63}, 1, i) {
		t.Error("the fast path accepted a displacement of -2^63")
	}
}

// TestFastBlocksMatchCheckedBlocks compares the unchecked accumulation of
// byte-displaced blocks (structs, hindexed) with the checked one on random
// blocks of random old types, and checks that it declines values too large
// for it.
func TestFastBlocksMatchCheckedBlocks(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	olds := blockOlds(r)
	for trial := range 5000 {
		n := 1 + r.IntN(6)
		bls, disps, types := make([]int64, n), make([]int64, n), make([]*Type, n)
		for i := range n {
			bls[i] = r.Int64N(4)
			disps[i] = r.Int64N(200) - 100
			types[i] = olds[r.IntN(len(olds))]
			if trial%3 == 0 && i > 0 { // follow the block before, to test contig
				disps[i] = disps[i-1] + bls[i-1]*types[i-1].Extent()
			}
		}
		if trial%50 == 0 {
			j := r.IntN(n)
			disps[j], bls[j], types[j] = 1<<62, 1, olds[0] // too large for the fast path
		}
		block := func(i int) (int64, int64, *Type) { return bls[i], disps[i], types[i] }
		var fast, slow blockAcc
		ok := fast.fast(block, n)
		for i := range n {
			slow.block(disps[i], bls[i], types[i])
		}
		if slow.k.err != nil {
			if ok {
				t.Fatalf("trial %d: the fast path accepted blocks that overflow", trial)
			}
			continue
		}
		if trial%50 == 0 && ok {
			t.Fatalf("trial %d: the fast path accepted a displacement of 2^62", trial)
		}
		slow.k = calc{}
		if ok && fast != slow {
			t.Fatalf("trial %d %v %v %v: fast %+v, checked %+v", trial, bls, disps, types, fast, slow)
		}
	}
}

func TestUnder(t *testing.T) {
	for _, a := range []int64{0, 1, 2, 3, 1000, 1<<30 + 5, 1 << 59, 1<<60 - 1, 1 << 60, 1<<60 + 1, 1<<63 - 1} {
		u := under(a)
		if hi, lo := bits.Mul64(uint64(a), uint64(u)); hi != 0 || lo > limit {
			t.Errorf("under(%d) = %d: the product exceeds 2^60", a, u)
		}
		if a < limit && u == 0 {
			t.Errorf("under(%d) = 0", a)
		}
	}
}

func TestMinMax(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for n := 1; n < 40; n++ {
		xs := make([]int64, n)
		for i := range xs {
			xs[i] = r.Int64() - r.Int64()
		}
		lo, hi := minMax(xs)
		if lo != slices.Min(xs) || hi != slices.Max(xs) {
			t.Fatalf("minMax(%v) = %d, %d", xs, lo, hi)
		}
		if lo, hi := bounds(xs); lo != slices.Min(xs) || hi != slices.Max(xs) {
			t.Fatalf("bounds(%v) = %d, %d", xs, lo, hi)
		}
		slices.Sort(xs)
		if lo, hi := bounds(xs); lo != xs[0] || hi != xs[n-1] {
			t.Fatalf("bounds(%v) = %d, %d", xs, lo, hi)
		}
	}
}
