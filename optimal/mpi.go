package optimal

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/ddtlab/ddt/datatype"
)

// This file maps between type trees and MPI datatypes (package datatype).
//
// Tree to MPI (ToType). Every constructor places copies of its subtree at
// explicit byte displacements, with block length 1 wherever the subtree's
// MPI extent would otherwise matter:
//
//	leaf(b)                       b (the predefined type)
//	leaf(c, b)                    contiguous(c, b)   (hvector(c, 1, size, b) if size is not b's)
//	vec(c, s, L)                  hvector(c, 1, s, L)
//	idx(c, [i...], L)             hindexed_block(1, [i...], L)
//	idxbuc(c, s, [i...], [a...], L)
//	                              hindexed([a...], [i...], resized(L, lb(L), s))
//	sbuc(c, s, e, [a...], L)      hindexed([a...], [0, s, 2s, ...], resized(L, lb(L), e))
//	struc(c, [i...], [L...])      struct([1, ...], [i...], [L...])
//
// Only idxbuc and sbuc repeat their subtree within a block, at the subtree's
// extent, so only there is the subtree resized to the paper's substride
// (the resize is left out when the extent already matches or no bucket
// holds more than one copy). The type map of ToType(n) is therefore
// Flatten(n), element for element; its lower bound and extent are whatever
// MPI derives for these constructors (Normalize resizes the result to the
// original type's bounds).
//
// MPI to tree (TreeOf), the cost of an existing MPI type. Each MPI
// constructor maps to the paper's constructor that stores the same
// arguments, a block of bl > 1 copies of an old type being an extra
// vec(bl, extent(old), old):
//
//	predefined basic b            leaf(b)
//	pair type (float_int, ...)    struc(2, [0, off], [leaf(a), leaf(b)])
//	contiguous(c, old)            vec(c, extent(old), old)
//	vector/hvector(c, bl, s, old) vec(c, s bytes, B)
//	indexed/hindexed              idxbuc(c, extent(old), [d...] bytes, [bl...], old)
//	indexed_block/hindexed_block  idx(c, [d...] bytes, B)
//	struct                        struc(c, [d...], [B0, ...])
//	resized, dup                  the old type's tree (no node: resized changes
//	                              no displacement of the type map)
//	subarray, darray              the tree of the equivalent type MPI builds
//	                              from simpler constructors (Type.Lower)
//
// where B is old for bl == 1 and vec(bl, extent(old), old) otherwise.
// Cost(t) is the cost of this tree; a subtype used several times counts
// each time (the tree, not the DAG, cost).

// ToType returns an MPI datatype whose type map (TypeMap(1)) is exactly
// Flatten(n). Leaves must name basic types of package datatype (pair types
// such as float_int are not basic). Subtrees shared by pointer become shared
// *datatype.Type values. It returns an error for malformed trees and for
// trees whose MPI layout overflows int64.
func ToType(n *Node) (*datatype.Type, error) {
	return toType(n, map[*Node]*datatype.Type{}, 0)
}

func toType(n *Node, memo map[*Node]*datatype.Type, depth int) (*datatype.Type, error) {
	if n == nil {
		return nil, errors.New("optimal: nil node")
	}
	if depth > maxDepth {
		return nil, fmt.Errorf("optimal: tree nested deeper than %d", maxDepth)
	}
	if t, ok := memo[n]; ok {
		return t, nil
	}
	child := func() (*datatype.Type, error) {
		if n.Child == nil {
			return nil, fmt.Errorf("optimal: %s: missing subtree", n.Kind)
		}
		return toType(n.Child, memo, depth+1)
	}
	// resizedTo gives c the extent ext if some bucket repeats it.
	resizedTo := func(c *datatype.Type, ext int64) (*datatype.Type, error) {
		if c.Extent() == ext || slices.Max(append([]int64{0}, n.Sizes...)) <= 1 {
			return c, nil
		}
		return datatype.Resized(c, c.LB(), ext)
	}
	var t *datatype.Type
	var err error
	switch n.Kind {
	case Leaf:
		b, ok := datatype.BasicByName(n.Type)
		if !ok {
			return nil, fmt.Errorf("optimal: leaf(%s): not a basic MPI type", n.Type)
		}
		bt := datatype.Of(b)
		switch {
		case n.Count < 1:
			return nil, fmt.Errorf("optimal: leaf: count %d < 1", n.Count)
		case n.Count == 1:
			t = bt
		case n.Size == b.Size():
			t, err = datatype.Contiguous(n.Count, bt)
		default:
			t, err = datatype.HVector(n.Count, 1, n.Size, bt)
		}
	case Vec:
		var c *datatype.Type
		if c, err = child(); err == nil {
			t, err = datatype.HVector(n.Count, 1, n.Stride, c)
		}
	case Idx:
		var c *datatype.Type
		if c, err = child(); err == nil {
			t, err = datatype.HIndexedBlock(1, n.Disps, c)
		}
	case IdxBuc, SBuc:
		disps := n.Disps
		ext := n.Stride
		if n.Kind == SBuc {
			disps = make([]int64, len(n.Sizes))
			for k := range disps {
				var ok bool
				if disps[k], ok = mulOK(int64(k), n.Stride); !ok {
					return nil, fmt.Errorf("optimal: sbuc: bucket %d start out of range", k)
				}
			}
			ext = n.Inner
		} else if len(n.Disps) != len(n.Sizes) {
			return nil, fmt.Errorf("optimal: idxbuc: %d displacements but %d bucket sizes", len(n.Disps), len(n.Sizes))
		}
		var c *datatype.Type
		if c, err = child(); err == nil {
			if c, err = resizedTo(c, ext); err == nil {
				t, err = datatype.HIndexed(n.Sizes, disps, c)
			}
		}
	case Struc:
		if len(n.Disps) != len(n.Children) {
			return nil, fmt.Errorf("optimal: struc: %d displacements but %d subtrees", len(n.Disps), len(n.Children))
		}
		ts := make([]*datatype.Type, len(n.Children))
		ones := make([]int64, len(n.Children))
		for k, ch := range n.Children {
			if ts[k], err = toType(ch, memo, depth+1); err != nil {
				return nil, err
			}
			ones[k] = 1
		}
		t, err = datatype.Struct(ones, n.Disps, ts)
	default:
		return nil, fmt.Errorf("optimal: unknown node kind %d", n.Kind)
	}
	if err != nil {
		return nil, fmt.Errorf("optimal: %s: %w", n.Kind, err)
	}
	memo[n] = t
	return t, nil
}

// TreeOf returns the type tree that stores the same arguments as the MPI
// datatype t, by the mapping documented in this file (leaf for predefined
// types, vec for contiguous and vector, idxbuc for indexed, idx for
// indexed_block, struc for struct; resized and dup add no node). Its
// flattening is t's type map of one instance. A subtype used several times
// by t is one shared *Node.
func TreeOf(t *datatype.Type) (*Node, error) {
	if t == nil {
		return nil, errors.New("optimal: nil type")
	}
	return treeOf(t, map[*datatype.Type]*Node{}, 0)
}

func treeOf(t *datatype.Type, memo map[*datatype.Type]*Node, depth int) (*Node, error) {
	if n, ok := memo[t]; ok {
		return n, nil
	}
	if depth > maxDepth {
		return nil, fmt.Errorf("optimal: type nested deeper than %d", maxDepth)
	}
	sub := func(u *datatype.Type) (*Node, error) { return treeOf(u, memo, depth+1) }
	// block is a block of bl copies of old, extent(old) apart.
	block := func(bl int64, old *datatype.Type) (*Node, error) {
		c, err := sub(old)
		if err != nil || bl == 1 {
			return c, err
		}
		return &Node{Kind: Vec, Count: bl, Stride: old.Extent(), Child: c}, nil
	}
	scaled := func(ds []int64, by int64) ([]int64, error) {
		out := make([]int64, len(ds))
		for k, d := range ds {
			var ok bool
			if out[k], ok = mulOK(d, by); !ok {
				return nil, fmt.Errorf("optimal: displacement %d × extent %d out of range ±2^61", d, by)
			}
		}
		return out, nil
	}
	a := t.Args()
	var n *Node
	var err error
	switch t.Combiner().Shape() {
	case datatype.ShapeNamed:
		if b, ok := t.Basic(); ok {
			n = &Node{Kind: Leaf, Type: b.String(), Count: 1}
			break
		}
		m := t.TypeMap(1)
		if len(m) != 2 {
			return nil, fmt.Errorf("optimal: predefined type %s has %d elements", t.Name(), len(m))
		}
		n = &Node{Kind: Struc, Disps: []int64{m[0].Disp, m[1].Disp}, Children: []*Node{
			{Kind: Leaf, Type: m[0].Basic.String(), Count: 1}, {Kind: Leaf, Type: m[1].Basic.String(), Count: 1}}}
	case datatype.ShapeLowered:
		n, err = sub(t.Lower())
	case datatype.ShapeResized:
		n, err = sub(a.Types[0])
	case datatype.ShapeStrided:
		old := a.Types[0]
		count, bl, _, _ := t.Strided()
		stride := a.Stride
		if count > 1 && t.Combiner().Constructor().Scaled {
			var ok bool
			if stride, ok = mulOK(stride, old.Extent()); !ok {
				return nil, fmt.Errorf("optimal: %s stride %d × extent %d out of range ±2^61", t.Combiner(), stride, old.Extent())
			}
		}
		if !t.Combiner().Constructor().Takes("blocklength") { // contiguous: count instances in a row
			count, bl, stride = bl, 1, old.Extent()
		}
		var c *Node
		if c, err = block(bl, old); err == nil {
			n = &Node{Kind: Vec, Count: count, Stride: stride, Child: c}
		}
	case datatype.ShapeBlocks:
		old := a.Types[0]
		ds := a.Displacements
		if u := t.BlockUnit(); u != 1 {
			ds, err = scaled(ds, u)
		}
		var c *Node
		if err == nil && t.Combiner().Constructor().Takes("blocklengths") {
			if c, err = sub(old); err == nil {
				n = &Node{Kind: IdxBuc, Stride: old.Extent(), Disps: slices.Clone(ds), Sizes: slices.Clone(a.Blocklengths), Child: c}
			}
		} else if err == nil {
			if c, err = block(a.Blocklength, old); err == nil {
				n = &Node{Kind: Idx, Disps: slices.Clone(ds), Child: c}
			}
		}
	case datatype.ShapeStruct:
		n = &Node{Kind: Struc, Disps: slices.Clone(a.Displacements)}
		for k, u := range a.Types {
			var c *Node
			if c, err = block(a.Blocklengths[k], u); err != nil {
				break
			}
			n.Children = append(n.Children, c)
		}
	default:
		return nil, fmt.Errorf("optimal: unsupported combiner %s", t.Combiner())
	}
	if err != nil {
		return nil, err
	}
	memo[t] = n
	return n, nil
}

// Cost returns the cost under cm of the MPI datatype t in the paper's model:
// the cost of TreeOf(t) (see the mapping in TreeOf), counting a subtype as
// often as it is used. The sum saturates at math.MaxInt64.
func Cost(t *datatype.Type, cm CostModel) (int64, error) {
	n, err := TreeOf(t)
	if err != nil {
		return 0, err
	}
	return treeCost(n, cm, map[*Node]int64{}), nil
}

// treeCost is cm.Of(n), memoized per shared node and saturating, so that
// trees that share subtrees (DAGs in memory) cost time linear in their
// distinct nodes.
func treeCost(n *Node, cm CostModel, memo map[*Node]int64) int64 {
	if n == nil {
		return 0
	}
	if c, ok := memo[n]; ok {
		return c
	}
	c := cm.nodeCost(n)
	if n.Child != nil {
		c = satAdd(c, treeCost(n.Child, cm, memo))
	}
	for _, ch := range n.Children {
		c = satAdd(c, treeCost(ch, cm, memo))
	}
	memo[n] = c
	return c
}

func satAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}
