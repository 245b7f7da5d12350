package optimal

import (
	"strconv"
	"strings"
)

// DAG is a type tree folded into a directed acyclic graph (seed 000, section
// V): structurally identical subtrees are stored once. Nodes are in
// topological order, children before parents; Root is the last node.
//
// Folding an optimal tree does not in general give an optimal DAG: a DAG can
// profit from reusing a subtree that is not locally optimal (seed 000, Fig.
// 3), and the dynamic programming principle behind Reconstruct does not hold
// for DAG costs. Fold only shares what the tree already repeats.
type DAG struct {
	Nodes []DAGNode
	Root  int
}

// DAGNode is one node of a DAG: a tree node whose Child and Children are
// replaced by indices into DAG.Nodes. Node.Child and Node.Children are nil.
type DAGNode struct {
	Node
	Child    int   // Vec, Idx, IdxBuc, SBuc: index of the subtree, else -1
	Children []int // Struc: indices of the subtrees
	Uses     int   // number of references from parent nodes (0 for the root)
}

// Fold shares identical subtrees of the tree rooted at n. It returns nil for
// a nil tree.
func Fold(n *Node) *DAG {
	if n == nil {
		return nil
	}
	d := &DAG{}
	seen := map[string]int{}
	var fold func(n *Node) int
	fold = func(n *Node) int {
		var key strings.Builder
		dn := DAGNode{Node: *n, Child: -1}
		dn.Node.Child, dn.Node.Children = nil, nil
		var self strings.Builder
		dn.Node.write(&self) // children print as nil
		key.WriteString(self.String())
		if n.Kind == Leaf && n.Count > 1 {
			key.WriteString("/" + strconv.FormatInt(n.Size, 10))
		}
		if n.Child != nil {
			dn.Child = fold(n.Child)
			key.WriteString("#" + strconv.Itoa(dn.Child))
		}
		for _, c := range n.Children {
			ci := fold(c)
			dn.Children = append(dn.Children, ci)
			key.WriteString("#" + strconv.Itoa(ci))
		}
		k := key.String()
		if id, ok := seen[k]; ok {
			return id
		}
		id := len(d.Nodes)
		seen[k] = id
		d.Nodes = append(d.Nodes, dn)
		return id
	}
	d.Root = fold(n)
	for _, dn := range d.Nodes {
		if dn.Child >= 0 {
			d.Nodes[dn.Child].Uses++
		}
		for _, c := range dn.Children {
			d.Nodes[c].Uses++
		}
	}
	return d
}

// Cost returns the additive cost of the DAG under c: each stored node counts
// once, however many parents reference it.
func (d *DAG) Cost(c CostModel) int64 {
	var s int64
	for i := range d.Nodes {
		s += c.nodeCost(&d.Nodes[i].Node)
	}
	return s
}

// Shared returns the number of nodes referenced by more than one parent.
func (d *DAG) Shared() int {
	k := 0
	for _, dn := range d.Nodes {
		if dn.Uses > 1 {
			k++
		}
	}
	return k
}

// Tree unfolds the DAG back into a tree, copying shared subtrees.
func (d *DAG) Tree() *Node {
	var un func(i int) *Node
	un = func(i int) *Node {
		dn := d.Nodes[i]
		n := dn.Node
		if dn.Child >= 0 {
			n.Child = un(dn.Child)
		}
		for _, c := range dn.Children {
			n.Children = append(n.Children, un(c))
		}
		return &n
	}
	return un(d.Root)
}

// String lists the DAG's nodes, one per line, as "%ID = node" with subtrees
// written as references "%ID".
func (d *DAG) String() string {
	var b strings.Builder
	for i, dn := range d.Nodes {
		b.WriteString("%" + strconv.Itoa(i) + " = ")
		n := dn.Node
		refs := map[*Node]int{}
		ref := func(c int) *Node {
			p := &Node{}
			refs[p] = c
			return p
		}
		if dn.Child >= 0 {
			n.Child = ref(dn.Child)
		}
		for _, c := range dn.Children {
			n.Children = append(n.Children, ref(c))
		}
		n.writeWith(&b, func(c *Node, b *strings.Builder) {
			b.WriteString("%" + strconv.Itoa(refs[c]))
		})
		b.WriteByte('\n')
	}
	return b.String()
}
