package sig

import (
	"math/rand/v2"

	"github.com/ddtlab/ddt/datatype"
)

// refHash hashes a sequence of basic types directly from the definition,
// Σ code(b_i)·x^(i−1), independently of combine and repeat.
func refHash(seq []datatype.Basic) uint64 {
	h, xp := uint64(0), uint64(1)
	for _, b := range seq {
		h = addmod(h, mulmod(codes[b], xp))
		xp = mulmod(xp, base)
	}
	return h
}

// flatSeq is the type signature of count instances of t from its type map.
func flatSeq(t *datatype.Type, count int64) []datatype.Basic {
	var s []datatype.Basic
	t.Walk(count, func(b datatype.Basic, _ int64) bool {
		s = append(s, b)
		return true
	})
	return s
}

// seqSig is the signature of seq by folding Combine over its elements.
func seqSig(seq []datatype.Basic) Sig {
	acc := identity
	for _, b := range seq {
		acc = combine(acc, leaf(b))
	}
	return acc.sig()
}

// typeGen builds random types with every constructor, small enough to
// flatten (at most about maxElems elements).
type typeGen struct {
	r        *rand.Rand
	basics   []datatype.Basic // the basic types to draw from
	maxElems int64
}

func newTypeGen(seed uint64) *typeGen {
	g := &typeGen{r: rand.New(rand.NewPCG(seed, 0x5eed)), maxElems: 400}
	// a few types, as real programs use, so that signatures often repeat
	g.basics = []datatype.Basic{datatype.Int, datatype.Double, datatype.Char, datatype.Byte, datatype.Float}
	return g
}

var pairs = []*datatype.Type{datatype.FloatInt, datatype.DoubleInt, datatype.LongInt,
	datatype.TwoInt, datatype.ShortInt, datatype.LongDoubleInt}

func (g *typeGen) leaf() *datatype.Type {
	if g.r.IntN(6) == 0 {
		return pairs[g.r.IntN(len(pairs))]
	}
	return datatype.Of(g.basics[g.r.IntN(len(g.basics))])
}

func (g *typeGen) n(max int) int64 { return int64(g.r.IntN(max + 1)) }

// gen returns a random type of depth at most depth; it never fails (a
// constructor error falls back to a leaf).
func (g *typeGen) gen(depth int) *datatype.Type {
	if depth == 0 || g.r.IntN(5) == 0 {
		return g.leaf()
	}
	old := g.gen(depth - 1)
	e := max(old.Elements(), 1)
	lim := int(max(1, min(6, g.maxElems/e)))
	var t *datatype.Type
	var err error
	switch g.r.IntN(12) {
	case 0:
		t, err = datatype.Contiguous(g.n(lim), old)
	case 1:
		t, err = datatype.Vector(g.n(3), g.n(lim/3+1), g.n(8)-3, old)
	case 2:
		t, err = datatype.HVector(g.n(3), g.n(lim/3+1), g.n(64)-16, old)
	case 3, 4:
		k := g.r.IntN(4)
		bl, d := make([]int64, k), make([]int64, k)
		for i := range k {
			bl[i], d[i] = g.n(lim/4+1), g.n(20)-5
		}
		if g.r.IntN(2) == 0 {
			t, err = datatype.Indexed(bl, d, old)
		} else {
			t, err = datatype.HIndexed(bl, d, old)
		}
	case 5:
		k := g.r.IntN(4)
		d := make([]int64, k)
		for i := range k {
			d[i] = g.n(20) - 5
		}
		if g.r.IntN(2) == 0 {
			t, err = datatype.IndexedBlock(g.n(lim/4+1), d, old)
		} else {
			t, err = datatype.HIndexedBlock(g.n(lim/4+1), d, old)
		}
	case 6, 7:
		k := g.r.IntN(4) + 1
		bl, d, ts := make([]int64, k), make([]int64, k), make([]*datatype.Type, k)
		for i := range k {
			ts[i] = old
			if i > 0 {
				ts[i] = g.gen(depth - 1)
			}
			bl[i] = g.n(int(max(1, min(4, g.maxElems/int64(k)/max(ts[i].Elements(), 1)))))
			d[i] = g.n(100) - 20
		}
		t, err = datatype.Struct(bl, d, ts)
	case 8:
		t, err = datatype.Resized(old, g.n(10)-5, g.n(40))
	case 9:
		t, err = datatype.Dup(old)
	case 10:
		nd := g.r.IntN(3) + 1
		sz, sub, st := make([]int64, nd), make([]int64, nd), make([]int64, nd)
		for i := range nd {
			sz[i] = g.n(3) + 1
			sub[i] = g.n(int(sz[i]-1)) + 1
			st[i] = g.n(int(sz[i] - sub[i]))
		}
		t, err = datatype.Subarray(sz, sub, st, datatype.Order(g.r.IntN(2)), old)
	case 11:
		gs := []int64{g.n(5) + 1, g.n(5) + 1}
		ds := []datatype.Distrib{datatype.Distrib(g.r.IntN(3)), datatype.Distrib(g.r.IntN(3))}
		ps := []int64{1, 1}
		for i := range ps {
			if ds[i] != datatype.DistributeNone {
				ps[i] = g.n(2) + 1
			}
		}
		size := ps[0] * ps[1]
		t, err = datatype.Darray(size, g.n(int(size-1)), gs, ds,
			[]int64{datatype.DefaultDarg, datatype.DefaultDarg}, ps, datatype.Order(g.r.IntN(2)), old)
	}
	if err != nil || t == nil || t.Elements() > 4*g.maxElems {
		return old
	}
	return t
}
