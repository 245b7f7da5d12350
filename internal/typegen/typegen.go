// Package typegen generates random datatype trees for tests: every
// constructor and predefined type, with the edge cases MPI allows (negative
// strides, displacements and extents, zero counts, zero-length blocks,
// overlapping blocks, struct alignment padding, subarray in both orders,
// darray with every distribution and default or explicit dargs), bounded in
// size so that tests which walk or pack the types stay fast.
package typegen

import (
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/ddtlab/ddt/datatype"
)

// Options bound the generated types. Zero fields take the defaults.
type Options struct {
	// MaxDepth is the largest nesting depth of the tree (default 4).
	MaxDepth int
	// MaxElements bounds the basic elements of one instance (default 4096).
	MaxElements int64
	// MaxExtent bounds the true extent, |extent|, |lb| and |true lb| of the
	// type and of every subtype, in bytes (default 1 MiB).
	MaxExtent int64
	// Share is the probability that a subtree reuses a subtype generated
	// earlier in the same tree (the same *Type), making the tree a DAG.
	// 0 means the default 0.1; negative means never.
	Share float64
	// Constructors, if not empty, restricts the derived types to these
	// combiners (predefined leaves are always allowed).
	Constructors []datatype.Combiner
	// Leaves, if not empty, are the predefined types to draw leaves from
	// (a few, as real programs use, make signatures repeat).
	Leaves []*datatype.Type
}

func (o Options) withDefaults() Options {
	if o.MaxDepth <= 0 {
		o.MaxDepth = 4
	}
	if o.MaxElements <= 0 {
		o.MaxElements = 4096
	}
	if o.MaxExtent <= 0 {
		o.MaxExtent = 1 << 20
	}
	if o.Share == 0 {
		o.Share = 0.1
	}
	return o
}

// AllConstructors lists the combiners of derived types that Random builds:
// every constructor of datatype's table.
var AllConstructors = allConstructors()

func allConstructors() []datatype.Combiner {
	// this order first, which the seeds of tests and golden files assume
	cs := []datatype.Combiner{
		datatype.CombinerContiguous, datatype.CombinerVector, datatype.CombinerHVector,
		datatype.CombinerIndexed, datatype.CombinerHIndexed, datatype.CombinerIndexedBlock,
		datatype.CombinerHIndexedBlock, datatype.CombinerStruct, datatype.CombinerSubarray,
		datatype.CombinerDarray, datatype.CombinerResized, datatype.CombinerDup,
	}
	for _, k := range datatype.Constructors() {
		if !slices.Contains(cs, k.Combiner) {
			cs = append(cs, k.Combiner)
		}
	}
	return cs
}

var predefined []*datatype.Type

func init() {
	for _, n := range datatype.PredefinedNames() {
		predefined = append(predefined, datatype.Predefined(n))
	}
}

type gen struct {
	r    *rand.Rand
	o    Options
	pool []*datatype.Type
}

// Random returns a random type within the bounds of opts. The same r state
// and opts give the same type.
func Random(r *rand.Rand, opts Options) *datatype.Type {
	g := &gen{r: r, o: opts.withDefaults()}
	if len(g.o.Constructors) == 0 {
		g.o.Constructors = AllConstructors
	}
	// Mostly derived types with data at the top: a bare predefined type or
	// an empty type tests little (empty subtypes remain frequent).
	for i := range 20 {
		if t := g.derived(g.o.MaxDepth); t != nil && (t.Size() > 0 || i >= 19 || g.r.IntN(10) == 0) {
			return t
		}
	}
	return g.leaf()
}

// Leaf returns a random predefined type.
func Leaf(r *rand.Rand) *datatype.Type { return predefined[r.IntN(len(predefined))] }

func (g *gen) leaf() *datatype.Type {
	if len(g.o.Leaves) > 0 {
		return g.o.Leaves[g.r.IntN(len(g.o.Leaves))]
	}
	// basic types more often than pair types; a few favourites more often
	switch g.r.IntN(4) {
	case 0:
		return datatype.Of(datatype.Int)
	case 1:
		return datatype.Of(datatype.Basic(g.r.IntN(datatype.NumBasic)))
	}
	return Leaf(g.r)
}

func (g *gen) ok(t *datatype.Type) bool {
	m := g.o.MaxExtent
	return t.Elements() <= g.o.MaxElements && t.TrueExtent() <= m &&
		abs(t.Extent()) <= m && abs(t.LB()) <= m && abs(t.TrueLB()) <= m && abs(t.UB()) <= m && abs(t.TrueUB()) <= m
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// sub returns a subtree of at most depth levels.
func (g *gen) sub(depth int) *datatype.Type {
	if len(g.pool) > 0 && g.r.Float64() < g.o.Share {
		if t := g.pool[g.r.IntN(len(g.pool))]; t.Depth() <= depth {
			return t
		}
	}
	if depth <= 0 || g.r.IntN(3) == 0 {
		return g.leaf()
	}
	if t := g.derived(depth); t != nil {
		return t
	}
	return g.leaf()
}

// small returns an integer in [lo, hi].
func (g *gen) small(lo, hi int64) int64 { return lo + g.r.Int64N(hi-lo+1) }

// derived tries a few times to build a derived type within bounds.
func (g *gen) derived(depth int) *datatype.Type {
	for range 8 {
		c := g.o.Constructors[g.r.IntN(len(g.o.Constructors))]
		t, err := g.build(c, depth)
		if err == nil && t != nil && g.ok(t) {
			g.pool = append(g.pool, t)
			return t
		}
	}
	return nil
}

func (g *gen) ints(n int, lo, hi int64) []int64 {
	v := make([]int64, n)
	for i := range v {
		v[i] = g.small(lo, hi)
	}
	return v
}

// count is a count or blocklength, sometimes 0.
func (g *gen) count(hi int64) int64 {
	if g.r.IntN(16) == 0 {
		return 0
	}
	return g.small(1, hi)
}

// bytes returns a byte displacement or stride: a multiple of the old
// type's extent plus a jitter that is sometimes unaligned.
func (g *gen) bytes(old *datatype.Type, lo, hi int64) int64 {
	ext := old.Extent()
	if ext == 0 {
		ext = max(old.Size(), 1)
	}
	d := g.small(lo, hi) * ext
	switch g.r.IntN(4) {
	case 0:
		d += g.small(-8, 8)
	case 1:
		d += g.small(-2, 2) * old.Align()
	}
	return d
}

func (g *gen) build(c datatype.Combiner, depth int) (*datatype.Type, error) {
	old := g.sub(depth - 1)
	switch c {
	case datatype.CombinerContiguous:
		return datatype.Contiguous(g.count(6), old)
	case datatype.CombinerVector:
		return datatype.Vector(g.count(4), g.count(3), g.small(-5, 5), old)
	case datatype.CombinerHVector:
		return datatype.HVector(g.count(4), g.count(3), g.bytes(old, -4, 4), old)
	case datatype.CombinerIndexed, datatype.CombinerHIndexed:
		n := g.r.IntN(5)
		bls := make([]int64, n)
		ds := make([]int64, n)
		for i := range n {
			bls[i] = g.count(3)
			if c == datatype.CombinerIndexed {
				ds[i] = g.small(-6, 6)
			} else {
				ds[i] = g.bytes(old, -5, 5)
			}
		}
		if c == datatype.CombinerIndexed {
			return datatype.Indexed(bls, ds, old)
		}
		return datatype.HIndexed(bls, ds, old)
	case datatype.CombinerIndexedBlock, datatype.CombinerHIndexedBlock:
		n := g.r.IntN(5)
		ds := make([]int64, n)
		for i := range n {
			if c == datatype.CombinerIndexedBlock {
				ds[i] = g.small(-6, 6)
			} else {
				ds[i] = g.bytes(old, -5, 5)
			}
		}
		if c == datatype.CombinerIndexedBlock {
			return datatype.IndexedBlock(g.count(3), ds, old)
		}
		return datatype.HIndexedBlock(g.count(3), ds, old)
	case datatype.CombinerStruct:
		n := g.r.IntN(4) + 1
		if g.r.IntN(12) == 0 {
			n = 0
		}
		bls := make([]int64, n)
		ds := make([]int64, n)
		ts := make([]*datatype.Type, n)
		var at int64
		for i := range n {
			ts[i] = old
			if i > 0 {
				ts[i] = g.sub(depth - 1)
			}
			bls[i] = g.count(3)
			switch g.r.IntN(3) {
			case 0: // packed one after the other, often unaligned: padding
				ds[i] = at
			case 1: // anywhere, overlaps included
				ds[i] = g.small(-32, 64)
			default: // aligned after the previous member
				a := max(ts[i].Align(), 1)
				ds[i] = (at + a - 1) / a * a
			}
			at = ds[i] + bls[i]*max(ts[i].Extent(), 0)
		}
		return datatype.Struct(bls, ds, ts)
	case datatype.CombinerSubarray:
		n := g.r.IntN(3) + 1
		sizes, subs, starts := make([]int64, n), make([]int64, n), make([]int64, n)
		for i := range n {
			sizes[i] = g.small(1, 6)
			subs[i] = g.small(1, sizes[i])
			starts[i] = g.small(0, sizes[i]-subs[i])
		}
		return datatype.Subarray(sizes, subs, starts, datatype.Order(g.r.IntN(2)), old)
	case datatype.CombinerDarray:
		n := g.r.IntN(3) + 1
		gs, dargs, ps := make([]int64, n), make([]int64, n), make([]int64, n)
		ds := make([]datatype.Distrib, n)
		size := int64(1)
		for i := range n {
			gs[i] = g.small(1, 9)
			ds[i] = datatype.Distrib(g.r.IntN(3))
			ps[i] = g.small(1, 3)
			dargs[i] = datatype.DefaultDarg
			switch ds[i] {
			case datatype.DistributeNone:
				ps[i] = 1
			case datatype.DistributeBlock:
				if g.r.IntN(2) == 0 {
					dargs[i] = (gs[i]+ps[i]-1)/ps[i] + g.small(0, 2)
				}
			case datatype.DistributeCyclic:
				if g.r.IntN(2) == 0 {
					dargs[i] = g.small(1, 3)
				}
			}
			size *= ps[i]
		}
		return datatype.Darray(size, g.small(0, size-1), gs, ds, dargs, ps, datatype.Order(g.r.IntN(2)), old)
	case datatype.CombinerResized:
		var lb, ext int64
		switch g.r.IntN(3) {
		case 0: // around the old bounds
			lb = old.LB() + g.small(-8, 8)
			ext = old.Extent() + g.small(-8, 16)
		case 1: // zero or negative extent
			lb = g.small(-16, 16)
			ext = -g.small(0, 2) * max(old.Size(), 1)
		default:
			lb = g.small(-32, 32)
			ext = g.small(-32, 64)
		}
		return datatype.Resized(old, lb, ext)
	case datatype.CombinerDup:
		return datatype.Dup(old)
	}
	return g.generic(c.Constructor(), old, depth)
}

// generic builds a type of a constructor that build has no case for, from
// the kinds of its arguments in the constructor table: small counts,
// displacements around the old type's extent, one order, lists of up to 4.
// Constructors whose arguments constrain each other (subarray, darray)
// need a case of their own to be generated often.
func (g *gen) generic(k *datatype.Constructor, old *datatype.Type, depth int) (*datatype.Type, error) {
	if k == nil {
		return nil, nil
	}
	var a datatype.Args
	n := g.r.IntN(5)
	for _, p := range k.Params {
		switch p.Kind {
		case datatype.ArgCount, datatype.ArgInt:
			if strings.Contains(p.Name, "count") || strings.Contains(p.Name, "length") {
				a.SetInt(p, g.count(4))
			} else {
				a.SetInt(p, g.small(-5, 5))
			}
		case datatype.ArgAint:
			a.SetInt(p, g.bytes(old, -4, 4))
		case datatype.ArgCounts, datatype.ArgInts:
			v := make([]int64, n)
			for i := range v {
				if strings.Contains(p.Name, "displacement") {
					v[i] = g.small(-6, 6)
				} else {
					v[i] = g.count(3)
				}
			}
			a.SetInts(p, v)
		case datatype.ArgAints:
			v := make([]int64, n)
			for i := range v {
				v[i] = g.bytes(old, -5, 5)
			}
			a.SetInts(p, v)
		case datatype.ArgDargs:
			a.Dargs = make([]int64, n)
			for i := range a.Dargs {
				a.Dargs[i] = datatype.DefaultDarg
			}
		case datatype.ArgDistribs:
			a.Distribs = make([]datatype.Distrib, n)
		case datatype.ArgOrder:
			a.Order = datatype.Order(g.r.IntN(2))
		case datatype.ArgType:
			a.Types = []*datatype.Type{old}
		case datatype.ArgTypes:
			a.Types = make([]*datatype.Type, n)
			for i := range a.Types {
				a.Types[i] = g.sub(depth - 1)
			}
		}
	}
	return k.Build(a)
}
