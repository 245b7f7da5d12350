package optimal

import (
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
