package recon

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
)

// costOf is the cost of any tree under c with leaf costs lc.
func costOf(t *Tree, c Cost, lc []int64) int64 {
	switch t.Kind {
	case Leaf:
		if t.Count > 1 {
			return c.Contig
		}
		return lc[t.Sym]
	case Vec:
		return c.Vec + costOf(t.Child, c, lc)
	case Idx:
		return c.Idx + int64(len(t.Disps))*c.Ix + costOf(t.Child, c, lc)
	case IdxBuc:
		return c.IdxBuc + int64(len(t.Disps))*(c.Ix+c.Bucket) + costOf(t.Child, c, lc)
	case SBuc:
		return c.SBuc + int64(len(t.Sizes))*c.Bucket + costOf(t.Child, c, lc)
	}
	v := c.Struc + int64(len(t.Children))*(c.Ix+c.Type)
	for _, ch := range t.Children {
		v += costOf(ch, c, lc)
	}
	return v
}

// periodicSeq returns a random sequence of period p ≤ 24 and length up to
// 160: a block of p elements (one or two symbols; gaps from a small set,
// or the strided-bucket shape: runs of one gap separated by jumps) repeated
// at a shift, cut at a random length, translated at random.
func periodicSeq(r *rand.Rand) Seq {
	p := 1 + r.IntN(24)
	bsym := make([]int32, p)
	bgap := make([]int64, p) // gap before block element k (k ≥ 1)
	two := r.IntN(3) == 0
	switch r.IntN(4) {
	case 3: // a motif repeated inside the period, one gap changed
		mlen := 1 + r.IntN(max(1, p/2))
		motif := make([]int64, mlen)
		for k := range motif {
			motif[k] = int64(1+r.IntN(4)) * 4
		}
		for k := range p {
			bgap[k] = motif[k%mlen]
		}
		bgap[r.IntN(p)] += 4
	case 0: // small gap alphabet
		for k := range p {
			bgap[k] = int64(1+r.IntN(3)) * 4
		}
	case 1: // buckets: runs of 8 with jumps
		for k := range p {
			bgap[k] = 8
			if r.IntN(3) == 0 {
				bgap[k] = int64(64 + 8*r.IntN(3))
			}
		}
	default: // random gaps
		for k := range p {
			bgap[k] = int64(1+r.IntN(40)) * 4
		}
	}
	if two {
		for k := range p {
			bsym[k] = int32(r.IntN(2))
		}
	}
	var span int64
	for k := 1; k < p; k++ {
		span += bgap[k]
	}
	shift := span + bgap[0]
	if r.IntN(4) == 0 {
		shift += int64(r.IntN(5)) * 4
	}
	n := 1 + r.IntN(160)
	if r.IntN(3) == 0 {
		n = p*(1+r.IntN(6)) + r.IntN(3)
	}
	s := Seq{Sym: make([]int32, n), Disp: make([]int64, n), LeafCost: []int64{2, 2}, Size: []int64{4, 8}}
	var x int64
	if r.IntN(3) == 0 {
		x = int64(r.IntN(9)-4) * 8
	}
	for i := range n {
		k := i % p
		if i > 0 {
			if k == 0 {
				x += shift - span
			} else {
				x += bgap[k]
			}
		}
		s.Sym[i], s.Disp[i] = bsym[k], x
	}
	return s
}

// checkPeriodic compares SolvePeriodic with Solve on s; it reports
// whether SolvePeriodic took the sequence.
func checkPeriodic(t *testing.T, s Seq, c Cost, set Set) bool {
	t.Helper()
	got, gc, gerr := SolvePeriodic(s, c, set)
	if errors.Is(gerr, ErrNotPeriodic) {
		return false
	}
	want, wc, werr := Solve(s, c, set)
	if (werr == nil) != (gerr == nil) || (werr != nil && !errors.Is(gerr, werr)) {
		t.Fatalf("set %#x disps %v syms %v: Solve err %v, SolvePeriodic err %v", set, s.Disp, s.Sym, werr, gerr)
	}
	if werr != nil {
		return true
	}
	if gc != wc {
		t.Fatalf("set %#x cost %+v disps %v syms %v: SolvePeriodic cost %d (%+v), Solve %d (%+v)", set, c, s.Disp, s.Sym, gc, got, wc, want)
	}
	if cc := costOf(got, c, s.LeafCost); cc != gc {
		t.Fatalf("disps %v: tree costs %d, reported %d", s.Disp, cc, gc)
	}
	sy, ds := flatten(got, 0, nil, nil)
	if !slices.Equal(sy, s.Sym) || !slices.Equal(ds, s.Disp) {
		t.Fatalf("disps %v: tree flattens to %v %v", s.Disp, sy, ds)
	}
	return true
}

// TestPeriodicAgainstSolve: on random periodic sequences of up to 160
// elements, with random constructor sets (without sbuc) and cost
// constants, SolvePeriodic's cost is the O(n³) program's, its tree
// flattens to the sequence and costs what it says, and both refuse the
// same sequences.
func TestPeriodicAgainstSolve(t *testing.T) {
	r := rand.New(rand.NewPCG(24, 28))
	took := 0
	for range 2500 {
		s := periodicSeq(r)
		set := Set(r.IntN(16)) | AllowStruc
		if r.IntN(8) == 0 {
			set &^= AllowStruc
		}
		if r.IntN(3) == 0 {
			set |= AllowContig
		}
		if checkPeriodic(t, s, randCost(r), set) {
			took++
		}
	}
	if took < 1700 {
		t.Errorf("only %d of 2500 sequences taken as periodic", took)
	}
}

// TestPeriodicStridedBuckets: prefixes of the strided-bucket map of
// docs/normalization.md (bucket b at 4096·b, 1 + b mod 7 ints 8 B apart,
// period 28) against the O(n³) program.
func TestPeriodicStridedBuckets(t *testing.T) {
	var s Seq
	s.LeafCost, s.Size = []int64{2}, []int64{4}
	for b := 0; len(s.Disp) < 600; b++ {
		for j := range 1 + b%7 {
			s.Sym, s.Disp = append(s.Sym, 0), append(s.Disp, int64(4096*b+8*j))
		}
	}
	for _, n := range []int{57, 100, 197, 250, 301, 450, 600} {
		x := Seq{Sym: s.Sym[:n], Disp: s.Disp[:n], LeafCost: s.LeafCost, Size: s.Size}
		if !checkPeriodic(t, x, paperCost, paperSet) {
			t.Fatalf("%d elements: not taken as periodic", n)
		}
	}
}

// TestLetterPeriod checks LetterPeriod against a brute force.
func TestLetterPeriod(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		s := periodicSeq(r)
		if r.IntN(4) == 0 && len(s.Disp) > 2 {
			s.Disp[r.IntN(len(s.Disp))] += 4
		}
		n := len(s.Sym)
		want, wok := n, false
		for q := 1; q < n; q++ {
			ok := true
			for i := 1; i+q < n; i++ {
				if s.Sym[i] != s.Sym[i+q] || s.Disp[i]-s.Disp[i-1] != s.Disp[i+q]-s.Disp[i+q-1] {
					ok = false
					break
				}
			}
			if ok {
				want, wok = q, s.Sym[q] == s.Sym[0]
				if !wok {
					want = n
				}
				break
			}
		}
		if got, ok := LetterPeriod(s); got != want || ok != wok {
			t.Fatalf("disps %v syms %v: LetterPeriod %d %v, want %d %v", s.Disp, s.Sym, got, ok, want, wok)
		}
	}
}

// TestPeriodicBlocksEqual checks the lemma SolvePeriodic rests on — two
// consecutive blocks of a length q > p that is not a multiple of the
// letters' least period p are never equal once aligned, and of a multiple
// always are — against a letter-by-letter comparison.
func TestPeriodicBlocksEqual(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	checked := 0
	for range 800 {
		s := periodicSeq(r)
		p, ok := LetterPeriod(s)
		if !ok {
			continue
		}
		ps := newPSolver(s, p, paperCost, paperSet)
		n := len(s.Sym)
		for q := 1; 2*q <= n; q++ {
			for x := 0; x+2*q <= n; x++ {
				want := s.Sym[x] == s.Sym[x+q]
				for y := x + 1; y < x+q && want; y++ {
					want = s.Sym[y] == s.Sym[y+q] && ps.gaps[y] == ps.gaps[y+q]
				}
				if got := ps.blocksEqual(x, q); got != want {
					t.Fatalf("period %d, blocks of %d at %d: %v, compared %v (disps %v)", p, q, x, got, want, s.Disp)
				}
				checked++
			}
		}
	}
	if checked < 10000 {
		t.Errorf("only %d block pairs checked", checked)
	}
}

// FuzzPeriodic compares SolvePeriodic with Solve on periodic sequences
// read from the fuzzer's bytes: the first p bytes give the block's gaps
// (and, by their top bit, its symbols), the last byte its length.
func FuzzPeriodic(f *testing.F) {
	f.Add([]byte{2, 2, 64, 2, 2, 2, 80}, uint8(7), uint8(90))
	f.Add([]byte{1, 3, 1, 3, 5}, uint8(4), uint8(40))
	f.Add([]byte{130, 2, 9}, uint8(3), uint8(31))
	f.Fuzz(func(t *testing.T, b []byte, p, n uint8) {
		if len(b) == 0 || p == 0 || int(p) > len(b) || n == 0 || n > 140 {
			return
		}
		s := Seq{LeafCost: []int64{2, 2}, Size: []int64{4, 8}}
		var x int64
		for i := range int(n) {
			c := b[i%int(p)]
			if i > 0 {
				x += int64(c&127) * 4
			}
			s.Sym, s.Disp = append(s.Sym, int32(c>>7)), append(s.Disp, x)
		}
		set := paperSet
		if p&1 != 0 {
			set |= AllowContig
		}
		checkPeriodic(t, s, paperCost, set)
	})
}
