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
	olds := []*Type{Of(Int), Of(Double), Of(Char), ShortInt, LongDoubleInt}
	for _, ext := range []int64{-24, -8, 0, 3, 16} {
		rs, _ := Resized(Of(Int), r.Int64N(9)-4, ext)
		olds = append(olds, rs)
	}
	v, _ := Vector(3, 2, -5, Of(Float))
	z, _ := Contiguous(0, Of(Int))
	olds = append(olds, v, z)
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
			want2 := BlockStats{MinBlocklength: slices.Min(bls), MaxBlocklength: slices.Max(bls)}
			for i := range n {
				want2.Total += bls[i]
				want2.ByteOr |= uint64(displs[i] * scale)
				if i > 0 && displs[i]*scale == displs[i-1]*scale+bls[i-1]*ext {
					want2.Touching++
				}
			}
			if st != want2 {
				t.Fatalf("trial %d %v %v %v of %v: stats %+v, want %+v", trial, c, bls, displs, old, st, want2)
			}
		}
	}
	if withStats < 1000 || contig < 50 || declined < 200 {
		t.Errorf("%d types with stats (%d contiguous), %d without: the cases are not covered", withStats, contig, declined)
	}
}
