package dame

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortedIndex compares sortedIndex (radix for long lists) with a
// stable comparison sort: the same permutation, equal displacements in
// list order, on short and long lists, narrow and wide spans (the wide
// ones take the comparison sort), negative displacements and repeats.
func TestSortedIndex(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 255, 256, 257, 1000, 4096, 65537} {
		for _, span := range []int64{1, 7, 1 << 11, 1 << 22, 1 << 40, math.MaxInt64 / 2} {
			ds := make([]int64, n)
			for i := range ds {
				ds[i] = r.Int64N(span) - span/3
			}
			if n > 2 {
				ds[n-1], ds[0] = ds[0], ds[n/2] // repeats
			}
			want := make([]int32, n)
			for i := range want {
				want[i] = int32(i)
			}
			slices.SortStableFunc(want, func(a, b int32) int { return cmp.Compare(ds[a], ds[b]) })
			if got := sortedIndex(ds); !slices.Equal(got, want) {
				t.Fatalf("n=%d span=%d: sortedIndex differs from a stable sort", n, span)
			}
		}
	}
	ds := []int64{math.MinInt64, math.MaxInt64, 0}
	if got := sortedIndex(ds); !slices.Equal(got, []int32{0, 2, 1}) {
		t.Fatalf("extremes: %v", got)
	}
}

func BenchmarkSortedIndex(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	ds := make([]int64, 65536)
	for i := range ds {
		ds[i] = r.Int64N(4<<20) &^ 7
	}
	b.Run("radix", func(b *testing.B) {
		for b.Loop() {
			sortedIndex(ds)
		}
	})
	b.Run("compare", func(b *testing.B) {
		for b.Loop() {
			idx := make([]int32, len(ds))
			for i := range idx {
				idx[i] = int32(i)
			}
			slices.SortFunc(idx, func(a, b int32) int { return cmp.Compare(ds[a], ds[b]) })
		}
	})
}

// TestHostSortRule: Intel's cores keep DefaultSortRule; on AMD's the rule
// fires nowhere, not even on a list the default rule sorts, unless
// DDT_SORT=1.
func TestHostSortRule(t *testing.T) {
	t.Setenv("DDT_SORT", "")
	n := &Node{Op: BlockIndex, Blocklen: 1, Child: &Node{Op: ContigFinal, Size: 8, Extent: 8}}
	r := rand.New(rand.NewPCG(1, 2))
	for _, p := range r.Perm(16384) {
		n.Disps = append(n.Disps, int64(p)*16) // 8-byte blocks 16 bytes apart over 256 KiB
	}
	n.Size = 8 * int64(len(n.Disps))
	if !DefaultSortRule.Fires(n) || DefaultSortRule.UnpackOrder(n) == nil {
		t.Fatal("the default rule does not sort the test's list")
	}
	if !HostSortRule(false).Fires(n) {
		t.Error("Intel's rule does not sort the list")
	}
	if off := HostSortRule(true); off.Fires(n) || off.UnpackOrder(n) != nil {
		t.Error("AMD's rule sorts the list")
	}
	t.Setenv("DDT_SORT", "1")
	if !HostSortRule(true).Fires(n) {
		t.Error("AMD's rule with DDT_SORT=1 does not sort the list")
	}
}
