package sig

import (
	"errors"
	"flag"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/ddtlab/ddt/datatype"
)

func randSeq(r *rand.Rand, maxLen int) []datatype.Basic {
	s := make([]datatype.Basic, r.IntN(maxLen+1))
	for i := range s {
		s[i] = datatype.Basic(r.IntN(datatype.NumBasic))
	}
	return s
}

func mustT(t testing.TB) func(Sig, error) Sig {
	return func(s Sig, err error) Sig {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
}

func TestFieldConstants(t *testing.T) {
	if len(codes) != datatype.NumBasic {
		t.Fatalf("%d codes for %d basic types", len(codes), datatype.NumBasic)
	}
	seen := map[uint64]bool{}
	for b, c := range codes {
		if c == 0 || c >= prime || seen[c] {
			t.Errorf("code of %v = %#x: zero, out of range or repeated", datatype.Basic(b), c)
		}
		seen[c] = true
	}
	// x is a primitive root: x^((p−1)/q) ≠ 1 for every prime q | p−1.
	const pm1 = prime - 1
	for _, q := range []int64{2, 3, 5, 7, 11, 13, 31, 41, 61, 151, 331, 1321} {
		if powx(pm1/q) == 1 {
			t.Errorf("x has order dividing (p-1)/%d", q)
		}
	}
	if powx(pm1) != 1 {
		t.Error("x^(p-1) != 1")
	}
	if a, b := uint64(prime-1), uint64(prime-2); mulmod(a, b) != 2 { // (−1)(−2) = 2
		t.Errorf("mulmod(-1, -2) = %d", mulmod(a, b))
	}
}

func TestMonoidLaws(t *testing.T) {
	must := mustT(t)
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		as, bs, cs := randSeq(r, 8), randSeq(r, 8), randSeq(r, 8)
		a, b, c := seqSig(as), seqSig(bs), seqSig(cs)
		for _, s := range []struct {
			seq []datatype.Basic
			sig Sig
		}{{as, a}, {bs, b}, {cs, c}} {
			if s.sig.Hash != refHash(s.seq) || s.sig.N != int64(len(s.seq)) {
				t.Fatalf("%v: %v, want hash %x", s.seq, s.sig, refHash(s.seq))
			}
		}
		ab, bc := must(a.Combine(b)), must(b.Combine(c))
		l, rr := must(ab.Combine(c)), must(a.Combine(bc))
		if l != rr {
			t.Fatalf("not associative: (%v %v) %v = %v, %v (%v %v) = %v", as, bs, cs, l, as, bs, cs, rr)
		}
		if want := seqSig(slices.Concat(as, bs, cs)); l != want {
			t.Fatalf("%v %v %v: %v, want %v", as, bs, cs, l, want)
		}
		if e := must(a.Combine(Sig{})); e != a {
			t.Fatalf("identity: %v ⊕ 0 = %v", a, e)
		}
		if e := must(Sig{}.Combine(a)); e != a {
			t.Fatalf("identity: 0 ⊕ %v = %v", a, e)
		}
		ba := must(b.Combine(a))
		if seqEq := slices.Equal(slices.Concat(as, bs), slices.Concat(bs, as)); (ab == ba) != seqEq {
			t.Fatalf("commutation of %v and %v: sequences equal %v, hashes %v %v", as, bs, seqEq, ab, ba)
		}
		if same, _ := ab.Same(ba); same != slices.Equal(slices.Concat(as, bs), slices.Concat(bs, as)) {
			t.Fatalf("Same(%v, %v) = %v", ab, ba, same)
		}
	}
	// the paper's example: (int, double) ≠ (double, int)
	id := must(OfBasic(datatype.Int).Combine(OfBasic(datatype.Double)))
	di := must(OfBasic(datatype.Double).Combine(OfBasic(datatype.Int)))
	if id == di {
		t.Fatal("(int, double) hashes like (double, int)")
	}
}

func TestRepeat(t *testing.T) {
	must := mustT(t)
	r := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		seq := randSeq(r, 5)
		c := r.Int64N(40)
		var all []datatype.Basic
		for range c {
			all = append(all, seq...)
		}
		got := must(seqSig(seq).Repeat(c))
		if want := seqSig(all); got != want {
			t.Fatalf("%d × %v = %v, want %v", c, seq, got, want)
		}
	}
	if _, err := OfBasic(datatype.Int).Repeat(-1); err == nil {
		t.Error("negative count accepted")
	}
	big := must(OfBasic(datatype.Int).Repeat(1 << 62))
	if _, err := big.Repeat(2); !errors.Is(err, ErrOverflow) {
		t.Errorf("2^63 elements: %v", err)
	}
	if _, err := big.Combine(big); !errors.Is(err, ErrOverflow) {
		t.Errorf("2^63 elements: %v", err)
	}
	// 10^12 elements: compare with the closed form c·(x^N − 1)/(x − 1)
	n := int64(1_000_000_000_000)
	s := must(OfBasic(datatype.Double).Repeat(n))
	inv := powmod(base-1, prime-2)
	want := mulmod(mulmod(codes[datatype.Double], powx(n)-1), inv)
	if s.Hash != want || !s.Uniform || s.Basic != datatype.Double || s.N != n {
		t.Fatalf("10^12 doubles: %v, want hash %x", s, want)
	}
}

func powmod(a uint64, e uint64) uint64 {
	r := uint64(1)
	for ; e > 0; e >>= 1 {
		if e&1 == 1 {
			r = mulmod(r, a)
		}
		a = mulmod(a, a)
	}
	return r
}

func mk(t *testing.T) func(*datatype.Type, error) *datatype.Type {
	return func(ty *datatype.Type, err error) *datatype.Type {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return ty
	}
}

func TestLayoutsHashEqual(t *testing.T) {
	m := mk(t)
	in, db := datatype.Of(datatype.Int), datatype.Of(datatype.Double)
	groups := [][]*datatype.Type{
		{ // 12 ints
			m(datatype.Contiguous(12, in)),
			m(datatype.Vector(3, 4, 7, in)),
			m(datatype.Vector(4, 3, -5, in)),
			m(datatype.HVector(2, 6, 1000, in)),
			m(datatype.Indexed([]int64{5, 0, 7}, []int64{30, 2, 0}, in)),
			m(datatype.IndexedBlock(4, []int64{9, 0, 40}, in)),
			m(datatype.Struct([]int64{2, 10}, []int64{0, 64}, []*datatype.Type{in, in})),
			m(datatype.Subarray([]int64{5, 6}, []int64{3, 4}, []int64{1, 2}, datatype.OrderC, in)),
			m(datatype.Subarray([]int64{5, 6}, []int64{4, 3}, []int64{0, 0}, datatype.OrderFortran, in)),
			m(datatype.Contiguous(6, datatype.TwoInt)),
			m(datatype.Resized(m(datatype.Contiguous(12, in)), -8, 3)),
			m(datatype.Dup(m(datatype.Vector(2, 6, 9, in)))),
			m(datatype.Darray(4, 1, []int64{8, 6}, []datatype.Distrib{datatype.DistributeBlock, datatype.DistributeCyclic},
				[]int64{datatype.DefaultDarg, datatype.DefaultDarg}, []int64{2, 2}, datatype.OrderC, in)),
		},
		{ // (double, int) × 3
			m(datatype.Contiguous(3, datatype.DoubleInt)),
			m(datatype.Vector(3, 1, 2, datatype.DoubleInt)),
			m(datatype.Contiguous(3, m(datatype.Struct([]int64{1, 1}, []int64{0, 8}, []*datatype.Type{db, in})))),
			m(datatype.Struct([]int64{1, 1, 1, 1, 1, 1}, []int64{40, 0, 16, 100, 8, -4}, []*datatype.Type{db, in, db, in, db, in})),
			m(datatype.Struct([]int64{1, 2}, []int64{0, 64}, []*datatype.Type{datatype.DoubleInt,
				m(datatype.Struct([]int64{1, 1}, []int64{4, 0}, []*datatype.Type{db, in}))})),
		},
	}
	for gi, g := range groups {
		want := Of(g[0])
		for i, ty := range g {
			if got := Of(ty); got != want {
				t.Errorf("group %d type %d: %v, want %v", gi, i, got, want)
			}
			if h := refHash(flatSeq(ty, 1)); h != want.Hash {
				t.Errorf("group %d type %d: type map hashes to %x, want %x", gi, i, h, want.Hash)
			}
		}
	}
	if !Of(groups[0][0]).Uniform || Of(groups[1][0]).Uniform {
		t.Error("uniformity")
	}
	// different signatures, same sizes
	fi := Of(datatype.FloatInt)
	iF := Of(m(datatype.Struct([]int64{1, 1}, []int64{0, 4}, []*datatype.Type{in, datatype.Of(datatype.Float)})))
	if fi == iF {
		t.Error("float_int hashes like (int, float)")
	}
	if Of(datatype.TwoInt) == Of(datatype.Of(datatype.Long)) || Of(datatype.Of(datatype.Int64)) == Of(datatype.Of(datatype.Long)) {
		t.Error("types of equal size hash equal")
	}
}

func TestRandomTypes(t *testing.T) {
	must := mustT(t)
	g := newTypeGen(7)
	r := rand.New(rand.NewPCG(8, 9))
	n := 3000
	if testing.Short() {
		n = 500
	}
	for i := range n {
		ty := g.gen(1 + i%5)
		c := r.Int64N(4)
		seq := flatSeq(ty, c)
		s, err := OfCount(ty, c)
		if err != nil {
			t.Fatal(err)
		}
		if s.N != int64(len(seq)) || s.Hash != refHash(seq) {
			t.Fatalf("type %d: %v, want %x/%d", i, s, refHash(seq), len(seq))
		}
		uni := len(seq) > 0
		for _, b := range seq {
			uni = uni && b == seq[0]
		}
		if s.Uniform != uni || (uni && s.Basic != seq[0]) {
			t.Fatalf("type %d: %v, uniform %v", i, s, uni)
		}
		// count c of T is contiguous(c, T)
		if ct, err := datatype.Contiguous(c, ty); err == nil {
			if got := Of(ct); got != s {
				t.Fatalf("type %d: contiguous(%d) %v, count %v", i, c, got, s)
			}
		}
		// the full prefix is the whole; random prefixes match the type map
		if p := must(Prefix(ty, c, s.N)); p != s {
			t.Fatalf("type %d: full prefix %v, want %v", i, p, s)
		}
		for range 5 {
			k := r.Int64N(s.N + 1)
			p := must(Prefix(ty, c, k))
			if want := seqSig(seq[:k]); p != want || p.Hash != refHash(seq[:k]) {
				t.Fatalf("type %d: prefix %d: %v, want %v", i, k, p, want)
			}
			if k < s.N {
				if b, err := Element(ty, c, k); err != nil || b != seq[k] {
					t.Fatalf("type %d: element %d = %v, %v; want %v", i, k, b, err, seq[k])
				}
			}
		}
		if _, err := Prefix(ty, c, s.N+1); err == nil {
			t.Fatalf("type %d: prefix beyond the end accepted", i)
		}
	}
}

var collisions = flag.Int("sig.signatures", 2_000_000, "number of random signatures TestNoCollisions hashes")

// rleSig draws a random signature as runs of one basic type, with run
// lengths up to 10^9 (so hashing exercises Repeat), from the seed id.
func rleSig(id uint64) (runs [][2]int64) {
	r := rand.New(rand.NewPCG(id, 0xc0111de))
	nr := 1 + r.IntN(6)
	for range nr {
		b := int64(r.IntN(datatype.NumBasic))
		var n int64
		switch r.IntN(3) {
		case 0:
			n = 1 + r.Int64N(4)
		case 1:
			n = 1 + r.Int64N(1000)
		default:
			n = 1 + r.Int64N(1_000_000_000)
		}
		if len(runs) > 0 && runs[len(runs)-1][0] == b {
			runs[len(runs)-1][1] += n // normal form: adjacent runs merged
			continue
		}
		runs = append(runs, [2]int64{b, n})
	}
	return runs
}

func hashRuns(runs [][2]int64) uint64 {
	acc := identity
	for _, r := range runs {
		acc = combine(acc, repeat(leaf(datatype.Basic(r[0])), r[1]))
	}
	return acc.h
}

// TestNoCollisions hashes millions of random signatures (set the number
// with -sig.signatures) and requires every two different ones to hash
// differently.
func TestNoCollisions(t *testing.T) {
	n := *collisions
	if testing.Short() {
		n = min(n, 200_000)
	}
	seen := make(map[uint64]uint32, n)
	distinct := 0
	for id := range uint32(n) {
		runs := rleSig(uint64(id))
		h := hashRuns(runs)
		prev, ok := seen[h]
		if !ok {
			seen[h] = id
			distinct++
			continue
		}
		if !slices.Equal(rleSig(uint64(prev)), runs) {
			t.Fatalf("collision: %v and %v both hash to %x", rleSig(uint64(prev)), runs, h)
		}
	}
	t.Logf("%d signatures, %d distinct, no collisions", n, distinct)
}

// TestConcurrentOf hashes fresh types from several goroutines at once (run
// with -race).
func TestConcurrentOf(t *testing.T) {
	g := newTypeGen(11)
	types := make([]*datatype.Type, 200)
	for i := range types {
		types[i] = g.gen(4)
	}
	want := make([]uint64, len(types))
	for i, ty := range types {
		want[i] = refHash(flatSeq(ty, 1))
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for i, ty := range types {
				if p, err := Prefix(ty, 2, ty.Elements()); err != nil || Of(ty).Hash != want[i] || p != Of(ty) {
					t.Errorf("type %d: %v %v", i, Of(ty), err)
				}
			}
		})
	}
	wg.Wait()
}
