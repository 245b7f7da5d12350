package external32

import (
	"sort"

	"github.com/ddtlab/ddt/datatype"
)

// node is the signature of a type (its sequence of basic types) compressed
// as a tree of repetitions: a leaf is rep elements of one basic type, an
// inner node is rep repetitions of the concatenation of its kids. Types
// built from one basic type compress to a single leaf. The tree has at most
// one node per type-tree node, so building and walking it costs what the
// type description costs, never what the element count is.
type node struct {
	leaf   bool
	b      datatype.Basic // leaves
	kids   []*node        // inner nodes
	extPre []int64        // prefix sums of the kids' external sizes, len(kids)+1
	natPre []int64        // prefix sums of the kids' native sizes
	rep    int64          // repetitions of the unit
	uExt   int64          // external bytes of one repetition (> 0)
	uNat   int64          // native bytes of one repetition
}

func (n *node) ext() int64 { return n.rep * n.uExt }
func (n *node) nat() int64 { return n.rep * n.uNat }

func leaf(b datatype.Basic, rep int64) *node {
	return &node{leaf: true, b: b, rep: rep, uExt: BasicSize(b), uNat: b.Size()}
}

// repeat is k repetitions of s; nil stands for the empty signature.
func repeat(s *node, k int64) *node {
	switch {
	case s == nil || k == 0:
		return nil
	case k == 1:
		return s
	case s.leaf:
		return leaf(s.b, s.rep*k)
	case s.rep == 1:
		c := *s
		c.rep = k
		return &c
	}
	return seq([]*node{s}, k)
}

// seq is k repetitions of the concatenation of kids, with empty kids
// dropped and adjacent leaves of one basic type merged.
func seq(kids []*node, k int64) *node {
	var out []*node
	for _, c := range kids {
		if c == nil {
			continue
		}
		if len(out) > 0 {
			last := out[len(out)-1]
			if last.leaf && c.leaf && last.b == c.b {
				out[len(out)-1] = leaf(c.b, last.rep+c.rep)
				continue
			}
		}
		out = append(out, c)
	}
	if len(out) == 0 || k == 0 {
		return nil
	}
	if len(out) == 1 && (out[0].leaf || out[0].rep == 1) {
		return repeat(out[0], k)
	}
	n := &node{kids: out, rep: k, extPre: make([]int64, len(out)+1), natPre: make([]int64, len(out)+1)}
	for i, c := range out {
		n.extPre[i+1] = n.extPre[i] + c.ext()
		n.natPre[i+1] = n.natPre[i] + c.nat()
	}
	n.uExt, n.uNat = n.extPre[len(out)], n.natPre[len(out)]
	return n
}

// build compresses the signature of one instance of t. Shared subtypes are
// compressed once (memo).
func build(t *datatype.Type, memo map[*datatype.Type]*node) *node {
	if s, ok := memo[t]; ok {
		return s
	}
	var s *node
	switch {
	case t.Elements() == 0:
	case t.IsPredefined():
		if b, ok := t.Basic(); ok {
			s = leaf(b, 1)
		} else { // a pair type: its two members
			var kids []*node
			t.Walk(1, func(b datatype.Basic, _ int64) bool {
				kids = append(kids, leaf(b, 1))
				return true
			})
			s = seq(kids, 1)
		}
	case t.Combiner().Shape() == datatype.ShapeStruct:
		a := t.Args()
		kids := make([]*node, len(a.Types))
		for i, old := range a.Types {
			kids[i] = repeat(build(old, memo), a.Blocklengths[i])
		}
		s = seq(kids, 1)
	case t.Lower() != nil: // subarray, darray, dup
		s = build(t.Lower(), memo)
	default: // count copies of one old type
		old := t.Contents().Types[0]
		if old.Elements() > 0 {
			s = repeat(build(old, memo), t.Elements()/old.Elements())
		}
	}
	memo[t] = s
	return s
}

// position is where an external byte offset falls in the signature: the
// element that holds it, where that element starts in the external and the
// native stream, and how many elements of the same basic type follow in a
// row from it (itself included).
type position struct {
	b            datatype.Basic
	extAt, natAt int64
	run          int64
}

// locate finds the element holding external byte x < root.ext().
func locate(root *node, x int64) position {
	var accExt, accNat int64
	n := root
	for {
		i := x / n.uExt
		rem := x - i*n.uExt
		accExt += i * n.uExt
		accNat += i * n.uNat
		if n.leaf {
			return position{b: n.b, extAt: accExt, natAt: accNat, run: n.rep - i}
		}
		j := sort.Search(len(n.kids), func(j int) bool { return n.extPre[j+1] > rem })
		accExt += n.extPre[j]
		accNat += n.natPre[j]
		x = rem - n.extPre[j]
		n = n.kids[j]
	}
}
