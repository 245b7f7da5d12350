package recon

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
)

// chainSeq returns a random sequence of about up to 64 elements of one
// symbol: a random chain of vec and idx levels (a displacement perturbed
// now and then, a random shift), or random displacements.
func chainSeq(r *rand.Rand) Seq {
	var disp []int64
	if r.IntN(6) == 0 {
		for range 1 + r.IntN(24) {
			disp = append(disp, int64(r.IntN(40))*4)
		}
	} else {
		disp = []int64{0}
		if r.IntN(3) == 0 { // contiguous bottom
			for k := range 1 + r.IntN(4) {
				disp = append(disp, int64(k+1)*4)
			}
		}
		for lv := r.IntN(4); lv >= 0 && len(disp) < 64; lv-- {
			c := 2 + r.IntN(3)
			var pos []int64
			switch r.IntN(3) {
			case 0:
				st := int64(r.IntN(5)-1) * 4 * int64(1+r.IntN(8))
				for k := range c {
					pos = append(pos, int64(k)*st)
				}
			case 1: // buckets: runs at one stride from random starts
				st := int64(4 + 4*r.IntN(3))
				c += 3
				var at int64
				for k := range c {
					if k%(1+r.IntN(3)) == 0 {
						at += int64(r.IntN(50)) * 64
					}
					pos = append(pos, at+int64(k)*st)
				}
			default:
				for k := range c {
					pos = append(pos, int64(k*8+r.IntN(6))*16)
				}
			}
			var next []int64
			for _, p := range pos {
				for _, x := range disp {
					next = append(next, p+x)
				}
			}
			disp = next
		}
		if r.IntN(5) == 0 {
			disp[r.IntN(len(disp))] += 4
		}
	}
	if r.IntN(3) == 0 {
		sh := int64(r.IntN(9)-4) * 8
		for k := range disp {
			disp[k] += sh
		}
	}
	sym := make([]int32, len(disp))
	if r.IntN(12) == 0 && len(sym) > 1 {
		sym[r.IntN(len(sym))] = 1
	}
	return Seq{Sym: sym, Disp: disp, LeafCost: []int64{2, 2}, Size: []int64{4, 8}}
}

func randChainSet(r *rand.Rand) Set {
	for {
		if s := Set(r.IntN(8)) & 0b111; s != 0 || r.IntN(2) == 0 {
			if r.IntN(2) == 0 {
				s |= AllowContig
			}
			return s
		}
	}
}

func randCost(r *rand.Rand) Cost {
	if r.IntN(2) == 0 {
		return paperCost
	}
	c := paperCost
	c.Leaf, c.Vec, c.Idx, c.Ix, c.Contig = int64(r.IntN(5)), int64(r.IntN(9)), int64(r.IntN(6)), int64(r.IntN(3)), int64(r.IntN(6))
	c.IdxBuc, c.Bucket = int64(r.IntN(6)), int64(r.IntN(3))
	return c
}

// chainCost is the cost of a chain tree under c (costOf), and a huge
// negative number when t is not a chain (a struc or strided-bucket node).
func chainCost(t *Tree, c Cost, lc []int64) int64 {
	for n := t; n.Kind != Leaf; n = n.Child {
		if n.Kind != Vec && n.Kind != Idx && n.Kind != IdxBuc {
			return -1 << 40
		}
	}
	return costOf(t, c, lc)
}

// checkChain compares SolveChain with Solve on s.
func checkChain(t *testing.T, s Seq, c Cost, set Set) {
	t.Helper()
	want, wc, werr := Solve(s, c, set)
	got, gc, gerr := SolveChain(s, c, set)
	if (werr == nil) != (gerr == nil) || (werr != nil && !errors.Is(gerr, werr)) {
		t.Fatalf("set %#x disps %v: Solve err %v, SolveChain err %v", set, s.Disp, werr, gerr)
	}
	if werr != nil {
		return
	}
	if gc != wc {
		t.Fatalf("set %#x cost %+v disps %v: SolveChain cost %d (%+v), Solve %d (%+v)", set, c, s.Disp, gc, got, wc, want)
	}
	if cc := chainCost(got, c, s.LeafCost); cc != gc {
		t.Fatalf("disps %v: tree costs %d, reported %d", s.Disp, cc, gc)
	}
	sy, ds := flatten(got, 0, nil, nil)
	if !slices.Equal(sy, s.Sym) || !slices.Equal(ds, s.Disp) {
		t.Fatalf("disps %v: tree flattens to %v", s.Disp, ds)
	}
}

// TestChainAgainstSolve: on random sequences of up to 64 elements, with
// random chain sets and cost constants, SolveChain's cost is Solve's, its
// tree flattens to the sequence and costs what it says, and both refuse
// the same sequences.
func TestChainAgainstSolve(t *testing.T) {
	r := rand.New(rand.NewPCG(24, 7))
	kinds := map[Kind]int{}
	for range 3000 {
		s, c, set := chainSeq(r), randCost(r), randChainSet(r)
		checkChain(t, s, c, set)
		if tr, _, err := SolveChain(s, c, set); err == nil {
			for x := tr; x != nil; x = x.Child {
				kinds[x.Kind]++
			}
		}
	}
	if kinds[Vec] == 0 || kinds[Idx] == 0 || kinds[IdxBuc] == 0 || kinds[Leaf] == 0 {
		t.Errorf("node kinds of the trees: %v", kinds)
	}
}

// TestChainLarge: a chain of 2^20 elements (three vec levels and an idx)
// is solved in linear time, its tree flattening to the sequence.
func TestChainLarge(t *testing.T) {
	var disp []int64
	for a := range 16 { // idx level
		for b := range 64 {
			for c := range 32 {
				for e := range 32 {
					disp = append(disp, int64(a*a)*1<<24+int64(b)*1<<16+int64(c)*256+int64(e)*4+12)
				}
			}
		}
	}
	s := Seq{Sym: make([]int32, len(disp)), Disp: disp, LeafCost: []int64{2}, Size: []int64{4}}
	tr, cost, err := SolveChain(s, paperCost, AllowVec|AllowIdx|AllowContig)
	if err != nil {
		t.Fatal(err)
	}
	// idx(16) + vec + vec + contig leaf: 3+16 + 4 + 4 + 2
	if cost != 29 {
		t.Fatalf("cost %d, want 29: %+v", cost, tr)
	}
	_, ds := flatten(tr, 0, nil, nil)
	if !slices.Equal(ds, disp) {
		t.Fatal("tree does not flatten to the sequence")
	}
}

// FuzzChain compares SolveChain with Solve on sequences read from the
// fuzzer's bytes.
func FuzzChain(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7}, uint8(3), uint8(0))
	f.Add([]byte{0, 1, 10, 11, 20, 21, 30, 31}, uint8(1), uint8(1))
	f.Add([]byte{5, 6, 7, 8, 15, 16, 17, 18, 25, 26, 27, 28}, uint8(7), uint8(2))
	f.Fuzz(func(t *testing.T, b []byte, set, costSel uint8) {
		if len(b) == 0 || len(b) > 96 {
			return
		}
		disp := make([]int64, len(b))
		for k, x := range b {
			disp[k] = int64(x) * 4
		}
		s := Seq{Sym: make([]int32, len(b)), Disp: disp, LeafCost: []int64{2}, Size: []int64{4}}
		c := paperCost
		if costSel&1 != 0 {
			c.Vec, c.Idx, c.Ix = 1, 0, 2
		}
		checkChain(t, s, c, Set(set)&ChainSet)
	})
}
