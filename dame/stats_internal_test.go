package dame

import (
	"slices"
	"sync"
	"testing"
)

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
		n := (&Node{Op: Index, Blocklens: bls, Disps: ds, Child: &Node{Op: ContigFinal, Size: 3, Extent: 3}}).Finish()
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
