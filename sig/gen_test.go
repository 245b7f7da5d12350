package sig

import (
	"math/rand/v2"

	"github.com/ddtlab/ddt/datatype"
	"github.com/ddtlab/ddt/internal/typegen"
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

// typeGen builds random types with every constructor through the
// project's one generator (internal/typegen), small enough to flatten (at
// most about maxElems elements), from a few leaves, as real programs use,
// so that signatures often repeat.
type typeGen struct {
	r        *rand.Rand
	leaves   []*datatype.Type
	maxElems int64
}

func newTypeGen(seed uint64) *typeGen {
	g := &typeGen{r: rand.New(rand.NewPCG(seed, 0x5eed)), maxElems: 400}
	for _, b := range []datatype.Basic{datatype.Int, datatype.Double, datatype.Char, datatype.Byte, datatype.Float} {
		g.leaves = append(g.leaves, datatype.Of(b))
	}
	g.leaves = append(g.leaves, datatype.FloatInt, datatype.TwoInt, datatype.DoubleInt)
	return g
}

// gen returns a random type of depth at most depth.
func (g *typeGen) gen(depth int) *datatype.Type {
	return typegen.Random(g.r, typegen.Options{MaxDepth: max(depth, 1), MaxElements: g.maxElems, Leaves: g.leaves})
}
