package optimal

import (
	"fmt"
	"math"

	"github.com/ddtlab/ddt/dame"
	"github.com/ddtlab/ddt/dame/opt"
	"github.com/ddtlab/ddt/internal/recon"
)

// The structural normalizer runs the one rule set of the project, dame/opt's:
// a type tree becomes a DAME program whose leaves are symbols (one per
// basic type, dame.Node.Sym: repeated by the rules, never merged with other
// bytes), opt.Simplify rewrites it within OfflineBudget's rules under this
// normalization's cost model and limits, and the program is read back as a
// tree. A DAME node is a type-tree node of the same shape (Vector a vec,
// BlockIndex an idx, Index an idxbuc whose substride is the child's extent,
// Struct a struc; a block of several instances one more vec), so the cost
// Simplify minimizes is the tree's cost.

// bridge converts between type trees and symbol programs.
type bridge struct {
	o     Options
	ids   map[string]uint16 // basic type name -> symbol
	names []string          // symbol-1 -> name
	sizes []int64           // symbol-1 -> size
	to    map[*Node]*dame.Node
	back  map[*dame.Node]*Node
	ok    bool
}

func newBridge(o Options) *bridge {
	return &bridge{o: o, ids: map[string]uint16{}, to: map[*Node]*dame.Node{}, back: map[*dame.Node]*Node{}, ok: true}
}

// symLeaf is the symbol leaf of basic type name, nil if its size is unknown.
func (b *bridge) symLeaf(name string) *dame.Node {
	id, ok := b.ids[name]
	if !ok {
		sz, known := b.o.Sizes.Size(name)
		if !known || sz <= 0 || sz > MaxDisp || len(b.names) == 1<<16-1 {
			return nil
		}
		b.names, b.sizes = append(b.names, name), append(b.sizes, sz)
		id = uint16(len(b.names))
		b.ids[name] = id
	}
	sz := b.sizes[id-1]
	return &dame.Node{Op: dame.ContigFinal, Size: sz, Extent: sz, Sym: id}
}

// withExtent is n, or a copy of it, with extent e.
func withExtent(n *dame.Node, e int64) *dame.Node {
	if n.Extent == e {
		return n
	}
	c := *n
	c.Extent = e
	return &c
}

// program is the symbol program of tree n, nil if n is empty or cannot be
// converted (b.ok is then false).
func (b *bridge) program(n *Node) *dame.Program {
	root := b.node(n)
	if root == nil || !b.ok {
		return nil
	}
	p := &dame.Program{Size: root.Size, Extent: root.Extent}
	p.SetRoot(root, 0)
	if dame.Validate(p) != nil {
		return nil
	}
	return p
}

// node converts n; nil for an empty type map (or on failure, b.ok false).
// Nodes other than leaves get extent 0: a block of one instance ignores
// its child's extent, and the nodes that repeat a child (Index) copy it
// with their substride.
func (b *bridge) node(n *Node) *dame.Node {
	if m, ok := b.to[n]; ok {
		return m
	}
	var m *dame.Node
	switch n.Kind {
	case Leaf:
		l := b.symLeaf(n.Type)
		switch {
		case l == nil:
			b.ok = false
		case n.Count == 1:
			m = l
		case n.Count > 1:
			m = (&dame.Node{Op: dame.Vector, Count: n.Count, Blocklen: 1, Stride: l.Size, Child: l}).Finish()
		}
	case Vec:
		if c := b.node(n.Child); c != nil && n.Count > 0 {
			m = (&dame.Node{Op: dame.Vector, Count: n.Count, Blocklen: 1, Stride: n.Stride, Child: c}).Finish()
		}
	case Idx:
		if c := b.node(n.Child); c != nil && len(n.Disps) > 0 {
			m = (&dame.Node{Op: dame.BlockIndex, Blocklen: 1, Disps: n.Disps, Child: c}).Finish()
		}
	case IdxBuc, SBuc:
		c := b.node(n.Child)
		if c == nil {
			break
		}
		var ds, bls []int64
		for k, a := range n.Sizes {
			if a <= 0 {
				continue
			}
			d := int64(k) * n.Stride // SBuc: bucket k at k*Stride
			if n.Kind == IdxBuc {
				d = n.Disps[k]
			} else if k != 0 && d/int64(k) != n.Stride {
				b.ok = false
				return nil
			}
			ds, bls = append(ds, d), append(bls, a)
		}
		if len(ds) == 0 {
			break
		}
		e := n.Stride
		if n.Kind == SBuc {
			e = n.Inner
		}
		m = (&dame.Node{Op: dame.Index, Blocklens: bls, Disps: ds, Child: withExtent(c, e)}).Finish()
	case Struc:
		var ds, bls []int64
		var cs []*dame.Node
		for k, ch := range n.Children {
			if c := b.node(ch); c != nil {
				ds, bls, cs = append(ds, n.Disps[k]), append(bls, 1), append(cs, c)
			}
		}
		if len(cs) > 0 {
			m = (&dame.Node{Op: dame.Struct, Blocklens: bls, Disps: ds, Children: cs}).Finish()
		}
	}
	if !b.ok {
		return nil
	}
	b.to[n] = m
	return m
}

// tree reads symbol program p back as a type tree, nil if it holds
// anything but symbol leaves.
func (b *bridge) tree(p *dame.Program) *Node {
	root := b.treeOf(p.Root)
	if root == nil {
		return nil
	}
	if p.Off == 0 {
		return root
	}
	// the cheapest of: the first irregular node under a chain of vecs
	// absorbing the shift (seed 000, Lemma 5), a root vec as an idx of its
	// copies' displacements, and an irregular node of count 1 on top
	var cands []*Node
	if t := shiftInto(root, p.Off); t != nil {
		cands = append(cands, t)
	}
	if root.Kind == Vec && root.Count <= 64 {
		ds := make([]int64, root.Count)
		for k := range ds {
			ds[k] = p.Off + int64(k)*root.Stride
		}
		cands = append(cands, &Node{Kind: Idx, Disps: ds, Child: root.Child})
	}
	if root.Kind == Vec {
		cands = append(cands, &Node{Kind: IdxBuc, Stride: root.Stride, Disps: []int64{p.Off}, Sizes: []int64{root.Count}, Child: root.Child})
	}
	cands = append(cands, &Node{Kind: Idx, Disps: []int64{p.Off}, Child: root},
		&Node{Kind: IdxBuc, Disps: []int64{p.Off}, Sizes: []int64{1}, Child: root})
	best := cands[0]
	for _, c := range cands[1:] {
		if b.o.Cost.Of(c) < b.o.Cost.Of(best) {
			best = c
		}
	}
	return best
}

// shiftInto returns n shifted by off through its first irregular node
// below a chain of vecs, or nil if the chain ends in a leaf.
func shiftInto(n *Node, off int64) *Node {
	switch {
	case n.Irregular():
		m := *n
		m.Disps = make([]int64, len(n.Disps))
		for k, d := range n.Disps {
			m.Disps[k] = d + off
		}
		return &m
	case n.Kind == Vec:
		if c := shiftInto(n.Child, off); c != nil {
			m := *n
			m.Child = c
			return &m
		}
	}
	return nil
}

func (b *bridge) treeOf(n *dame.Node) *Node {
	if t, ok := b.back[n]; ok {
		return t
	}
	// block is bl instances of c, c.Extent apart.
	block := func(bl int64, c *dame.Node) *Node {
		t := b.treeOf(c)
		if t == nil || bl == 1 {
			return t
		}
		return b.vec(bl, c.Extent, t)
	}
	var t *Node
	switch n.Op {
	case dame.ContigFinal:
		if n.Sym == 0 || int(n.Sym) > len(b.names) || n.Size != b.sizes[n.Sym-1] {
			return nil
		}
		t = &Node{Kind: Leaf, Type: b.names[n.Sym-1], Count: 1}
	case dame.Contig:
		if c := block(1, n.Child); c != nil {
			t = b.vec(n.Count, n.Child.Extent, c)
		}
	case dame.Vector:
		if c := block(n.Blocklen, n.Child); c != nil {
			t = b.vec(n.Count, n.Stride, c)
		}
	case dame.BlockIndex:
		if c := block(n.Blocklen, n.Child); c != nil {
			t = &Node{Kind: Idx, Disps: n.Disps, Child: c}
		}
	case dame.Index:
		if c := block(1, n.Child); c != nil {
			t = &Node{Kind: IdxBuc, Stride: n.Child.Extent, Disps: n.Disps, Sizes: n.Blocklens, Child: c}
		}
	case dame.Struct:
		t = &Node{Kind: Struc, Disps: n.Disps, Children: make([]*Node, len(n.Children))}
		for k, c := range n.Children {
			if t.Children[k] = block(n.Blocklens[k], c); t.Children[k] == nil {
				return nil
			}
		}
	}
	b.back[n] = t
	return t
}

// vec is count copies of c stride apart: a contiguous leaf when c is a
// plain leaf at its size, the constructor is allowed and it is cheaper.
func (b *bridge) vec(count, stride int64, c *Node) *Node {
	if c.Kind == Leaf && c.Count == 1 && b.o.Constructors.Has(AllowContig) && b.o.Cost.Contig < b.o.Cost.Vec+b.o.Cost.Leaf {
		if sz := b.sizes[b.ids[c.Type]-1]; stride == sz {
			return &Node{Kind: Leaf, Type: c.Type, Count: count, Size: sz}
		}
	}
	return &Node{Kind: Vec, Count: count, Stride: stride, Child: c}
}

// viaRules normalizes tree in through dame/opt's rules within o's limits
// and work, returning nil when the tree cannot be converted.
func viaRules(in *Node, o NormalizeOptions, work int64) *Node {
	b := newBridge(o.Options)
	p := b.program(in)
	if p == nil {
		return nil
	}
	cm := recon.Cost(o.Cost)
	bud := opt.OfflineBudget
	bud.MaxSeq, bud.Work, bud.MaxProgram, bud.Cost = o.ExactLimit, work, o.MaxTree, &cm
	// p itself may be cheaper than in: empty members are gone
	return b.tree(opt.Simplify(p, bud))
}

// largeBytesPerElem bounds the memory ReconstructLarge uses per element of
// the map (the program's lists, the rules' block lists, symbol and group
// sequences, the candidates and the lower bound's suffix array and gap
// maps; 2^20 random displacements measured 499 MB of maximum RSS with the
// map read): checked before anything of the map's size is allocated.
const largeBytesPerElem = 640

// MaxLargeMemory is the most memory ReconstructLarge may plan to use.
const MaxLargeMemory = 1 << 30

// ReconstructLarge returns a tree whose flattening equals m, for maps of up
// to MaxMapLen elements. For at most MaxLen elements, or constructors
// within ChainConstructors, it is Reconstruct's exact least-cost tree
// (exact is true). Longer maps over other sets are too long for the O(n^3)
// program; their tree is the approximation (approximate): the cheapest of
// what the rewrite rules of dame/opt find (opt.Simplify within
// opt.OfflineBudget on a program of one symbol per basic type: touching
// blocks merge, constant strides become vectors, and runs of equal blocks
// at a constant stride are grouped level by level — nested vectors, a row
// and a column, strided buckets — with exact reconstruction over each
// level of at most 1024 groups), the least-cost chain tree and the list of
// every element. lower is LowerBound's certificate: the optimal cost lies
// in [lower, cost], so cost/lower bounds this instance's approximation
// factor, and exact is true when they meet. A priori the factor is at most
// ListCost(m)/LowerBound(m) (proof in docs/normalization.md).
// Time and memory are O(n) per level of the rules (at most log2 n levels)
// plus their exact runs (2^32 steps at most), O(n log n) for the bound;
// the memory is checked before it is allocated.
func ReconstructLarge(m TypeMap, opts Options) (tree *Node, cost, lower int64, exact bool, err error) {
	a, err := ReconstructLargeAnswer(m, opts)
	return a.Tree, a.Cost, a.Lower, a.Exact, err
}

// ReconstructLargeAnswer is ReconstructLarge with how the answer was found.
// Above MaxLen elements, when the approximation's cost does not meet the
// lower bound and the map is periodic — its letters have a least period p
// that is also a period of its types, p ≤ n/2 — and the exact program for
// periodic maps (recon.SolvePeriodic, O(p·n²) time, O(p·n) memory) fits
// MaxPeriodicWork and MaxLargeMemory, the answer is that program's: exact.
func ReconstructLargeAnswer(m TypeMap, opts Options) (a LargeAnswer, err error) {
	fail := func(err error) (LargeAnswer, error) { return LargeAnswer{}, err }
	if opts, err = opts.normalized(); err != nil {
		return fail(err)
	}
	if len(m) <= MaxLen || opts.Constructors&^ChainConstructors == 0 {
		tree, cost, err := Reconstruct(m, opts)
		return LargeAnswer{Tree: tree, Cost: cost, Lower: cost, Exact: err == nil}, err
	}
	if !opts.Constructors.Has(DefaultConstructors) {
		return fail(fmt.Errorf("optimal: a map of more than %d elements is reconstructed by the rewrite rules, which need the constructors %s (or a set within %s: exact), got %s", MaxLen, DefaultConstructors, ChainConstructors, opts.Constructors))
	}
	if len(m) > MaxMapLen {
		return fail(fmt.Errorf("optimal: type map of %d elements: %w", len(m), ErrMapTooLong))
	}
	if err := checkMemory(len(m), largeBytesPerElem); err != nil {
		return fail(err)
	}
	for i, e := range m {
		if !validTypeName(e.Type) {
			return fail(fmt.Errorf("optimal: element %d: invalid basic type name %q", i, e.Type))
		}
		if e.Disp > MaxDisp || e.Disp < -MaxDisp {
			return fail(fmt.Errorf("optimal: element %d: displacement %d out of range ±2^61", i, e.Disp))
		}
	}
	tree, cost, lower, err := approximate(m, opts, opt.OfflineBudget.MaxSeq)
	if err != nil {
		return fail(err)
	}
	a = LargeAnswer{Tree: tree, Cost: cost, Lower: lower, Exact: cost == lower, Bound: lower}
	if !a.Exact {
		if t, c, p, ok := periodicExact(m, opts, MaxPeriodicWork); ok && c <= cost {
			a.Tree, a.Cost, a.Lower, a.Exact, a.Period = t, c, c, true, p
		}
	}
	return a, nil
}

// approximate is ReconstructLarge's answer for a checked map of any
// length: the cheapest of the rewrite rules' tree (exact runs of at most
// maxSeq entries), the least-cost chain tree (one basic type), the pieces
// of segmentTree and the list of every element, with LowerBound. Its cost is at most the list's, so
// cost/OPT ≤ ListCost(m)/LowerBound(m) (docs/normalization.md, "The
// approximation").
func approximate(m TypeMap, opts Options, maxSeq int) (tree *Node, cost, lower int64, err error) {
	return approximateAt(m, opts, maxSeq, 0)
}

// approximateAt is approximate for a map at depth in periodTree's
// recursion.
func approximateAt(m TypeMap, opts Options, maxSeq, depth int) (tree *Node, cost, lower int64, err error) {
	tree = listTree(m)
	cost = treeCost(tree, opts.Cost, map[*Node]int64{})
	lower = LowerBound(m, opts)
	if oneType(m) {
		if t, c, err := chainTree(m, opts); err == nil && c < cost {
			tree, cost = t, c
		}
	}
	if cost > lower {
		if t, c, ok := segmentTree(m, opts); ok && c < cost && flattensTo(t, m) {
			tree, cost = t, c
		}
	}
	if cost > lower {
		if t, c, ok := periodTree(m, opts, maxSeq, depth); ok && c < cost && flattensTo(t, m) {
			tree, cost = t, c
		}
	}
	if cost <= lower {
		return tree, cost, lower, nil // optimal: the rules cannot do better
	}
	if t, c, err := byRules(m, opts, maxSeq); err != nil {
		return nil, 0, 0, err
	} else if c < cost {
		// The rules are equivalences; this O(n) check makes sure of the
		// answer (the list is the fallback, which is always right).
		if l, err := t.Len(); err == nil && l == int64(len(m)) && flattensTo(t, m) {
			tree, cost = t, c
		}
	}
	if cost > lower {
		// the window bound with the answer's cost as its target (the
		// shape bound's own target may be far larger: no cheap chain)
		lower = max(lower, strucBoundUpTo(m, opts, 1, lower, cost))
	}
	return tree, cost, lower, nil
}

// ListCost is the cost of the tree that lists m element by element (an idx
// of one leaf for one basic type, a struc of leaves otherwise): the
// approximation's cost is at most it, so ListCost(m)/LowerBound(m) is an
// a-priori bound on its factor.
func ListCost(m TypeMap, opts Options) int64 {
	return treeCost(listTree(m), opts.Cost, map[*Node]int64{})
}

// byRules is the rewrite rules' tree for m (see ReconstructLarge), whatever
// its length, with exact runs on sequences of at most maxSeq entries, and
// its cost.
func byRules(m TypeMap, opts Options, maxSeq int) (tree *Node, cost int64, err error) {
	b := newBridge(opts)
	leaves := map[string]*dame.Node{}
	ds, bls := make([]int64, len(m)), make([]int64, len(m))
	cs := make([]*dame.Node, len(m))
	for i, e := range m {
		l, ok := leaves[e.Type]
		if !ok {
			if l = b.symLeaf(e.Type); l == nil {
				return nil, 0, fmt.Errorf("optimal: element %d: unknown size of basic type %q", i, e.Type)
			}
			leaves[e.Type] = l
		}
		ds[i], bls[i], cs[i] = e.Disp, 1, l
	}
	root := (&dame.Node{Op: dame.Struct, Blocklens: bls, Disps: ds, Children: cs}).Finish()
	p := &dame.Program{Size: root.Size}
	p.SetRoot(root, 0)
	if err := dame.Validate(p); err != nil {
		return nil, 0, fmt.Errorf("optimal: %v", err)
	}
	cm := recon.Cost(opts.Cost)
	bud := opt.OfflineBudget
	bud.MaxProgram, bud.MaxSeq, bud.Cost = 2*len(m)+16, maxSeq, &cm
	q := opt.Simplify(p, bud)
	if tree = b.tree(q); tree == nil {
		return nil, 0, fmt.Errorf("optimal: the rules built a program of other leaves") // unreachable
	}
	return tree, treeCost(tree, opts.Cost, map[*Node]int64{}), nil
}

// SimpleLowerBound returns a lower bound on the cost of every tree over
// opts.Constructors whose flattening is m (proof in docs/normalization.md),
// in O(n); LowerBound is at least it:
// every distinct basic type of m is the type of some leaf, and a tree of
// two or more elements has an interior node, unless it is one contiguous
// leaf (one type, contig allowed). With k types,
//
//	lower = k·min(leaf, contig) + (the cheapest interior node)   (n ≥ 2)
//
// where the cheapest interior node is the least of vec, idx+ix,
// idxbuc+ix+bucket, struc+ix+type and sbuc+bucket over the allowed
// constructors; and contig alone if that is less and applies.
func SimpleLowerBound(m TypeMap, opts Options) int64 {
	types := map[string]bool{}
	for _, e := range m {
		types[e.Type] = true
	}
	c := opts.Cost
	leaf := c.Leaf
	if opts.Constructors.Has(AllowContig) {
		leaf = min(leaf, c.Contig)
	}
	lb := int64(len(types)) * leaf
	if len(m) < 2 {
		return lb
	}
	inner := int64(math.MaxInt64)
	if opts.Constructors.Has(AllowVec) {
		inner = min(inner, c.Vec)
	}
	if opts.Constructors.Has(AllowIdx) {
		inner = min(inner, c.Idx+c.Ix)
	}
	if opts.Constructors.Has(AllowIdxBuc) {
		inner = min(inner, c.IdxBuc+c.Ix+c.Bucket)
	}
	if opts.Constructors.Has(AllowStruc) {
		inner = min(inner, c.Struc+c.Ix+c.Type)
	}
	if opts.Constructors.Has(AllowSBuc) {
		inner = min(inner, c.SBuc+c.Bucket)
	}
	if inner == math.MaxInt64 {
		inner = 0
	}
	lb += inner
	if len(types) == 1 && opts.Constructors.Has(AllowContig) {
		lb = min(lb, c.Contig)
	}
	return lb
}

// flattensTo reports whether tree's type map is m (tree has len(m)
// elements).
func flattensTo(tree *Node, m TypeMap) bool {
	got, err := Flatten(tree)
	return err == nil && got.Equal(m)
}

// listTree is the tree that lists m element by element: an idx of one
// leaf when m has one basic type, a struc of leaves otherwise.
func listTree(m TypeMap) *Node {
	ds := make([]int64, len(m))
	one := true
	for i, e := range m {
		ds[i] = e.Disp
		one = one && e.Type == m[0].Type
	}
	if one {
		return &Node{Kind: Idx, Disps: ds, Child: &Node{Kind: Leaf, Type: m[0].Type, Count: 1}}
	}
	leaves := map[string]*Node{}
	cs := make([]*Node, len(m))
	for i, e := range m {
		if leaves[e.Type] == nil {
			leaves[e.Type] = &Node{Kind: Leaf, Type: e.Type, Count: 1}
		}
		cs[i] = leaves[e.Type]
	}
	return &Node{Kind: Struc, Disps: ds, Children: cs}
}
