package sig

import (
	"fmt"
	"math"
	"sort"

	"github.com/ddtlab/ddt/datatype"
	"github.com/ddtlab/ddt/internal/smallmap"
)

// node is what a Tree knows about one *datatype.Type.
type node struct {
	v val // the signature of one instance
	// old is the one old type of a derived type whose signature is old's
	// repeated; nil for structs and for types hashed from their type map
	// (predefined types).
	old *datatype.Type
	// For struct types, the blocks with elements, in type-map order: the
	// old type and the number of elements up to the end of each block; and
	// pre[i], the signature of the blocks before block i (len(ends)+1
	// entries). They make Prefix logarithmic in the number of blocks.
	types []*datatype.Type
	ends  []int64
	pre   []val
}

// Tree holds the signature tree of one type: the signature of every
// subtree of its type graph (each shared subtree once) and, for structs,
// the prefix signatures of their blocks. It answers Prefix, Element and
// Match in O(depth · log) without recomputing anything. A Tree is built
// in O(nodes · log count) by NewTree, is immutable afterwards and safe for
// concurrent use; a committed type (ddt.Committed) carries one, so
// signatures have one source and nothing is cached globally.
type Tree struct {
	t     *datatype.Type
	nodes map[*datatype.Type]*node
	done  bool // built: lookup no longer writes nodes
}

// NewTree builds the signature tree of t (nil: the empty signature).
func NewTree(t *datatype.Type) *Tree {
	tb := &Tree{t: t, nodes: map[*datatype.Type]*node{}}
	if t != nil {
		tb.lookup(t)
	}
	tb.done = true
	return tb
}

// lookup returns the node of t, building it (and its children's) on first
// use; NewTree builds every node of the type graph.
func (tb *Tree) lookup(t *datatype.Type) *node {
	if n, ok := tb.nodes[t]; ok {
		return n
	}
	n := tb.build(t)
	if !tb.done {
		tb.nodes[t] = n
	}
	return n
}

// build computes the node of t from its children's: O(1) for types with one
// old type (their signature is old's repeated Elements(t)/Elements(old)
// times, however the copies are laid out), O(blocks) for structs.
func (tb *Tree) build(t *datatype.Type) *node {
	e := t.Elements()
	if e <= 0 {
		return &node{v: identity}
	}
	if t.Combiner().Shape() == datatype.ShapeNamed {
		return &node{v: flat(t)}
	}
	a := t.Args()
	if t.Combiner().Shape() == datatype.ShapeStruct {
		n := &node{pre: []val{identity}}
		acc := identity
		for i, old := range a.Types {
			ov := tb.lookup(old).v
			if ov.n == 0 || a.Blocklengths[i] <= 0 {
				continue
			}
			acc = combine(acc, repeat(ov, a.Blocklengths[i]))
			n.types = append(n.types, old)
			n.ends = append(n.ends, acc.n)
			n.pre = append(n.pre, acc)
		}
		n.v = acc
		if acc.n != e { // cannot happen; never answer wrongly
			return &node{v: flat(t)}
		}
		return n
	}
	if len(a.Types) != 1 {
		return &node{v: flat(t)}
	}
	ov := tb.lookup(a.Types[0]).v
	if ov.n == 0 || e%ov.n != 0 { // cannot happen; never answer wrongly
		return &node{v: flat(t)}
	}
	return &node{v: repeat(ov, e/ov.n), old: a.Types[0]}
}

// flat hashes the type map of one instance of t element by element. It is
// used for predefined types (one basic element, or the two members of a
// pair type) and as a safeguard should a type's element count ever disagree
// with its children's.
func flat(t *datatype.Type) val {
	acc := identity
	t.Walk(1, func(b datatype.Basic, _ int64) bool {
		acc = combine(acc, leaf(b))
		return true
	})
	return acc
}

// Of is the signature of one instance of t, computed from the type tree
// (never the flattened type map) in O(nodes · log count), each shared
// subtree once. A nil t has the empty signature. It allocates nothing for
// types without structs of several derived types.
func Of(t *datatype.Type) Sig {
	if t == nil {
		return Sig{}
	}
	var m memo
	return of(t, &m).sig()
}

// memo remembers the signatures of subtrees below structs of several
// derived types (the only way a type graph shares subtrees), switched on
// at the first such struct.
type memo struct {
	on bool
	smallmap.Map[*datatype.Type, val]
}

// of is the signature value of t, with memo switched on at the first
// struct of several derived types.
func of(t *datatype.Type, m *memo) val {
	e := t.Elements()
	if e <= 0 {
		return identity
	}
	if t.Combiner().Shape() == datatype.ShapeNamed {
		return flat(t)
	}
	if m.on {
		if v, ok := m.Get(t); ok {
			return v
		}
	}
	a := t.Args()
	var v val
	switch {
	case t.Combiner().Shape() == datatype.ShapeStruct:
		if !m.on && derivedKids(a.Types) > 1 {
			m.on = true
		}
		acc := identity
		for i, old := range a.Types {
			if a.Blocklengths[i] <= 0 {
				continue
			}
			ov := of(old, m)
			if ov.n == 0 {
				continue
			}
			acc = combine(acc, repeat(ov, a.Blocklengths[i]))
		}
		v = acc
		if acc.n != e { // cannot happen; never answer wrongly
			v = flat(t)
		}
	case len(a.Types) != 1:
		v = flat(t)
	default:
		ov := of(a.Types[0], m)
		if ov.n == 0 || e%ov.n != 0 { // cannot happen; never answer wrongly
			v = flat(t)
		} else {
			v = repeat(ov, e/ov.n)
		}
	}
	if m.on {
		m.Put(t, v)
	}
	return v
}

// derivedKids counts the types that are not predefined: a struct of at
// most one can share no subtree between its blocks.
func derivedKids(ts []*datatype.Type) int {
	n := 0
	for _, t := range ts {
		if t.Combiner().Shape() != datatype.ShapeNamed {
			n++
		}
	}
	return n
}

// OfCount is the signature of count instances of t: Of(t) repeated count
// times, in O(log count) once t is known.
func OfCount(t *datatype.Type, count int64) (Sig, error) {
	if t == nil {
		return Sig{}, fmt.Errorf("sig: nil type")
	}
	return repeatCount(Of(t), count)
}

// Sig is the signature of one instance of the tree's type.
func (tb *Tree) Sig() Sig {
	if tb.t == nil {
		return Sig{}
	}
	return tb.lookup(tb.t).v.sig()
}

// OfCount is the signature of count instances of the tree's type.
func (tb *Tree) OfCount(count int64) (Sig, error) { return repeatCount(tb.Sig(), count) }

func repeatCount(s Sig, count int64) (Sig, error) {
	if count < 0 {
		return Sig{}, fmt.Errorf("sig: negative count %d", count)
	}
	if _, ok := mul(s.N, count); !ok {
		return Sig{}, fmt.Errorf("sig: %d instances of %d elements: %w", count, s.N, ErrOverflow)
	}
	return repeat(s.val(), count).sig(), nil
}

// Prefix is the signature of the first k basic elements of count instances
// of t, for 0 ≤ k ≤ count·Elements(t). It descends the tree once: whole
// instances and whole children are combined by Repeat and only the child
// that holds element k is entered, so it costs O(depth · log) after the
// first use of t (a struct costs a binary search over its blocks). It lets a
// message shorter than the receive be checked exactly against the part
// that arrived (removing the limitation of seed 004 §4).
//
// Prefix builds t's Tree; to ask many questions of one type, build it
// once with NewTree.
func Prefix(t *datatype.Type, count, k int64) (Sig, error) {
	if t == nil {
		return Sig{}, fmt.Errorf("sig: nil type")
	}
	return NewTree(t).Prefix(count, k)
}

// Prefix is the signature of the first k basic elements of count instances
// of the tree's type (see the function Prefix).
func (tb *Tree) Prefix(count, k int64) (Sig, error) {
	v, total, err := tb.instances(count)
	if err != nil {
		return Sig{}, err
	}
	return tb.prefix(v, total, k)
}

// prefix is Prefix, given v, the signature of one instance, and total, the
// number of elements of the count instances.
func (tb *Tree) prefix(v val, total, k int64) (Sig, error) {
	if k < 0 || k > total {
		return Sig{}, fmt.Errorf("sig: prefix of %d elements outside [0, %d]", k, total)
	}
	if v.n == 0 {
		return Sig{}, nil
	}
	acc, _ := tb.descend(tb.t, k%v.n, false)
	return combine(repeat(v, k/v.n), acc).sig(), nil
}

// Element is the basic type of element k (counting from 0) of count
// instances of t, found in O(depth · log) like Prefix.
func Element(t *datatype.Type, count, k int64) (datatype.Basic, error) {
	if t == nil {
		return 0, fmt.Errorf("sig: nil type")
	}
	return NewTree(t).Element(count, k)
}

// Element is the basic type of element k of count instances of the
// table's type (see the function Element).
func (tb *Tree) Element(count, k int64) (datatype.Basic, error) {
	v, total, err := tb.instances(count)
	if err != nil {
		return 0, err
	}
	if k < 0 || k >= total {
		return 0, fmt.Errorf("sig: element %d outside [0, %d)", k, total)
	}
	_, b := tb.descend(tb.t, k%v.n, true) // total > 0, so v.n > 0
	return b, nil
}

// instances returns the signature of one instance of t and the number of
// elements of count instances, capped at MaxInt64 (every real element count
// fits below the cap).
func (tb *Tree) instances(count int64) (val, int64, error) {
	if tb.t == nil {
		return val{}, 0, fmt.Errorf("sig: nil type")
	}
	if count < 0 {
		return val{}, 0, fmt.Errorf("sig: negative count %d", count)
	}
	v := tb.lookup(tb.t).v
	n, ok := mul(v.n, count)
	if !ok {
		return v, math.MaxInt64, nil
	}
	return v, n, nil
}

// descend returns the signature of the first r elements of one instance of
// t (0 ≤ r < Elements(t), or r = 0), and, if elem, the basic type of element
// r.
func (tb *Tree) descend(t *datatype.Type, r int64, elem bool) (val, datatype.Basic) {
	acc := identity
	for r > 0 || elem {
		n := tb.lookup(t)
		if n.v.n == 0 {
			return acc, 0
		}
		if n.old == nil && n.pre == nil {
			// a predefined type (or a type hashed flat): walk its elements
			var b datatype.Basic
			i := int64(0)
			t.Walk(1, func(x datatype.Basic, _ int64) bool {
				if i == r {
					b = x
					return false
				}
				acc = combine(acc, leaf(x))
				i++
				return true
			})
			return acc, b
		}
		var old *datatype.Type
		if n.pre != nil { // struct: binary search for the block holding element r
			i := sort.Search(len(n.ends), func(i int) bool { return n.ends[i] > r })
			if i == len(n.ends) { // cannot happen for r < Elements(t)
				return acc, 0
			}
			acc = combine(acc, n.pre[i])
			r -= n.pre[i].n
			old = n.types[i]
		} else {
			old = n.old
		}
		ov := tb.lookup(old).v
		acc = combine(acc, repeat(ov, r/ov.n))
		r %= ov.n
		t = old
	}
	return acc, 0
}
