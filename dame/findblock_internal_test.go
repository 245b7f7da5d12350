package dame

import (
	"math/rand/v2"
	"testing"
)

// TestFindBlockOffsetIrregular checks FindBlockOffset and BlockOffset of
// Index and Struct nodes against a walk of the blocks, for lists whose
// block sizes vary widely (the marks' predicted position mostly wrong),
// with runs of empty blocks (equal marks), empty blocks last, and lists
// around the mark spacing.
func TestFindBlockOffsetIrregular(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	leaf := func(s int64) *Node { return &Node{Op: ContigFinal, Size: s, Extent: s} }
	for it := range 300 {
		nb := []int{1, 2, 63, 64, 65, 127, 129, 300, 1000}[it%9]
		bls, ds := make([]int64, nb), make([]int64, nb)
		kids := make([]*Node, nb)
		for i := range nb {
			switch r.IntN(4) {
			case 0:
				bls[i] = 0
			case 1:
				bls[i] = 1 + r.Int64N(3)
			case 2:
				bls[i] = 1 + r.Int64N(1000)
			default:
				bls[i] = r.Int64N(8)
			}
			if it%5 == 1 && i > nb/2 {
				bls[i] = 0 // a long run of empty blocks, to the end
			}
			ds[i] = int64(i) * 10
			kids[i] = leaf(1 + r.Int64N(12))
		}
		bls[r.IntN(nb)] = 1 + r.Int64N(5) // at least one byte
		var n *Node
		if it%2 == 0 {
			n = (&Node{Op: Index, Blocklens: bls, Disps: ds, Child: leaf(3)}).Finish()
		} else {
			n = (&Node{Op: Struct, Blocklens: bls, Disps: ds, Children: kids}).Finish()
		}
		var off int64
		for i := range int64(nb) {
			if o := n.BlockOffset(i); o != off {
				t.Fatalf("%v list of %d blocks: block %d at %d, want %d", n.Op, nb, i, o, off)
			}
			sz := n.blockSize(i)
			for _, k := range []int64{0, sz / 2, sz - 1} {
				if sz == 0 {
					break
				}
				if b, o := n.FindBlockOffset(off + k); b != i || o != off {
					t.Fatalf("%v list of %d blocks: byte %d in block %d at %d, want %d at %d", n.Op, nb, off+k, b, o, i, off)
				}
			}
			off += sz
		}
		if off != n.Size {
			t.Fatalf("size %d, want %d", n.Size, off)
		}
	}
}

// TestLastMark checks lastMark against a scan, on ascending marks with
// runs of equal values, predicted positions right and far off.
func TestLastMark(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for it := range 2000 {
		m := 1 + r.IntN(300)
		marks := make([]int64, m)
		for k := 1; k < m; k++ {
			marks[k] = marks[k-1]
			if r.IntN(4) > 0 {
				marks[k] += r.Int64N(1 + int64(it%7)*100)
			}
		}
		size := marks[m-1] + 1 + r.Int64N(100)
		for range 20 {
			off := r.Int64N(size)
			want := 0
			for k := range marks {
				if marks[k] <= off {
					want = k
				}
			}
			if got := lastMark(marks, off, size); got != want {
				t.Fatalf("marks %v, offset %d of %d: mark %d, want %d", marks, off, size, got, want)
			}
		}
	}
}
