package recon

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// naivePhrases is the greedy parse by brute force: at each position the
// longest substring that also starts at an earlier position.
func naivePhrases(sym []int32, disp []int64) int {
	n := len(sym)
	same := func(i, j int) bool { // letters i and j equal
		if i == 0 || j == 0 {
			return i == j
		}
		return sym[i] == sym[j] && disp[i]-disp[i-1] == disp[j]-disp[j-1]
	}
	z := 0
	for i := 0; i < n; z++ {
		best := 1
		for j := range i {
			l := 0
			for i+l < n && same(j+l, i+l) {
				l++
			}
			best = max(best, l)
		}
		i += best
	}
	return z
}

// TestPhrases compares Phrases with the brute-force greedy parse on random
// sequences (runs, repeats, random gaps) and with the suffix array of a
// plain sort.
func TestPhrases(t *testing.T) {
	r := rand.New(rand.NewPCG(24, 11))
	for trial := range 2000 {
		n := 1 + r.IntN(80)
		sym := make([]int32, n)
		disp := make([]int64, n)
		alpha := 1 + r.IntN(4)
		for i := 1; i < n; i++ {
			sym[i] = int32(r.IntN(1 + r.IntN(2)))
			switch {
			case i >= 4 && r.IntN(2) == 0: // repeat an earlier gap
				k := 1 + r.IntN(min(i-1, 6))
				disp[i] = disp[i-1] + disp[i-k] - disp[i-k-1]
				sym[i] = sym[i-k]
			default:
				disp[i] = disp[i-1] + int64(r.IntN(alpha))*4
			}
		}
		got, err := Phrases(sym, disp)
		if err != nil {
			t.Fatal(err)
		}
		if want := naivePhrases(sym, disp); got != want {
			t.Fatalf("trial %d: %d phrases, want %d (sym %v disp %v)", trial, got, want, sym, disp)
		}
		s := make([]int32, n)
		for i := range s {
			s[i] = int32(r.IntN(alpha))
		}
		sa := suffixArray(s, alpha)
		ref := make([]int32, n)
		for i := range ref {
			ref[i] = int32(i)
		}
		slices.SortFunc(ref, func(a, b int32) int { return slices.Compare(s[a:], s[b:]) })
		if !slices.Equal(sa, ref) {
			t.Fatalf("suffix array of %v: %v, want %v", s, sa, ref)
		}
	}
}

// TestPhrasesLarge: a vector of 2^20 elements is 3 phrases; 2^16 random
// gaps about as many phrases as elements.
func TestPhrasesLarge(t *testing.T) {
	n := 1 << 20
	sym, disp := make([]int32, n), make([]int64, n)
	for i := range disp {
		disp[i] = int64(i) * 12
	}
	if z, err := Phrases(sym, disp); err != nil || z != 3 {
		t.Fatalf("vector: %d phrases (%v), want 3", z, err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	n = 1 << 16
	sym, disp = sym[:n], disp[:n]
	for i := range disp {
		disp[i] = int64(r.IntN(1 << 30))
	}
	if z, err := Phrases(sym, disp); err != nil || z < n*9/10 {
		t.Fatalf("random: %d phrases (%v) of %d elements", z, err, n)
	}
}
