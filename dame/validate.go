package dame

import "fmt"

// Validate checks the invariants every engine relies on, in O(nodes + list
// entries) (shared nodes are checked once):
//
//   - a program without data has no root and packs nothing; otherwise the
//     root packs p.Size bytes, and Depth and Align are those of the root at
//     p.Off (Align the largest power of two up to 16 dividing every move,
//     stride, displacement and extent);
//   - every node has the fields of its Op and no others, at least one block,
//     positive counts and block lengths, and children;
//   - every node's cached Size, Count and Depth are what its fields and
//     children give (computed with overflow checks), and a recorded OR of
//     the displacements is their OR;
//   - no node nests deeper than MaxDepth, and the bytes one instance
//     touches (DataBounds) are computable without overflow.
//
// Parse returns only programs that pass. The optimizer (package dame/opt)
// built with the invariants tag calls it after every rewrite.
func Validate(p *Program) error {
	if p == nil {
		return fmt.Errorf("dame: nil program")
	}
	if p.Root == nil {
		if p.Size != 0 {
			return fmt.Errorf("dame: program without a root packs %d bytes", p.Size)
		}
		return nil
	}
	v := validator{seen: map[*Node]bool{}}
	if err := v.node(p.Root, 1); err != nil {
		return err
	}
	if p.Root.Size != p.Size {
		return fmt.Errorf("dame: root packs %d bytes, the program %d", p.Root.Size, p.Size)
	}
	if p.Depth != p.Root.Depth {
		return fmt.Errorf("dame: program depth %d, root depth %d", p.Depth, p.Root.Depth)
	}
	if a := min(p.Root.align(), gcdPow2(p.Off), gcdPow2(p.Extent)); p.Align != a {
		return fmt.Errorf("dame: alignment %d, computed %d", p.Align, a)
	}
	if _, _, ok := p.DataBounds(); !ok {
		return fmt.Errorf("dame: data bounds overflow")
	}
	return nil
}

type validator struct{ seen map[*Node]bool }

// node checks n, at depth (the root at 1), and the tree under it.
func (v *validator) node(n *Node, depth int) error {
	if n == nil {
		return fmt.Errorf("dame: nil node")
	}
	if v.seen[n] {
		return nil
	}
	if depth > MaxDepth {
		return fmt.Errorf("dame: primitives nest deeper than %d", MaxDepth)
	}
	bad := func(format string, a ...any) error {
		return fmt.Errorf("dame: %v node: %s", n.Op, fmt.Sprintf(format, a...))
	}
	var size int64
	ok := true
	acc := func(bl, s int64) {
		p, ok1 := mulOK(bl, s)
		size, ok = size+p, ok && ok1 && bl > 0 && size <= maxInt64-p
	}
	switch n.Op {
	case ContigFinal:
		if n.Size <= 0 || n.Child != nil || n.Children != nil || n.Disps != nil || n.Blocklens != nil || n.Depth != 0 {
			return bad("a leaf moves a positive number of bytes and has nothing else")
		}
		v.seen[n] = true
		return nil
	}
	if n.Sym != 0 {
		return bad("only leaves are symbols")
	}
	switch n.Op {
	case Contig, Vector:
		if n.Count <= 0 || n.Op == Vector && n.Blocklen <= 0 || n.Disps != nil || n.Blocklens != nil || n.Children != nil {
			return bad("count %d, block length %d, or lists present", n.Count, n.Blocklen)
		}
	case BlockIndex:
		if len(n.Disps) == 0 || n.Blocklen <= 0 || n.Count != int64(len(n.Disps)) || n.Blocklens != nil || n.Children != nil {
			return bad("%d displacements, count %d, block length %d", len(n.Disps), n.Count, n.Blocklen)
		}
	case Index, Struct:
		if len(n.Disps) == 0 || len(n.Blocklens) != len(n.Disps) || n.Count != int64(len(n.Disps)) {
			return bad("%d displacements, %d block lengths, count %d", len(n.Disps), len(n.Blocklens), n.Count)
		}
		if n.Op == Struct && (len(n.Children) != len(n.Disps) || n.Child != nil) || n.Op == Index && n.Children != nil {
			return bad("%d children for %d blocks", len(n.Children), len(n.Disps))
		}
	default:
		return fmt.Errorf("dame: unknown op %d", n.Op)
	}
	if n.Op == Struct {
		for i, c := range n.Children {
			if i == 0 || c != n.Children[i-1] {
				if err := v.node(c, depth+1); err != nil {
					return err
				}
			}
		}
	} else if err := v.node(n.Child, depth+1); err != nil {
		return err
	}
	d := 0
	switch n.Op {
	case Contig:
		acc(n.Count, n.Child.Size)
	case Vector, BlockIndex:
		c := n.Count
		if n.Op == BlockIndex {
			c = int64(len(n.Disps))
		}
		b, ok1 := mulOK(c, n.Blocklen)
		acc(b, n.Child.Size)
		ok = ok && ok1
	case Index:
		for _, b := range n.Blocklens {
			acc(b, n.Child.Size)
		}
	case Struct:
		for i, b := range n.Blocklens {
			acc(b, n.Children[i].Size)
			d = max(d, n.Children[i].Depth)
		}
	}
	if n.Op != Struct {
		d = n.Child.Depth
	}
	if !ok {
		return bad("packed size overflows or a block length is not positive")
	}
	if size != n.Size {
		return bad("packs %d bytes, its blocks %d", n.Size, size)
	}
	if n.Depth != d+1 {
		return bad("depth %d, want %d", n.Depth, d+1)
	}
	if n.hasOr {
		var or uint64
		for _, x := range n.Disps {
			or |= uint64(x)
		}
		if or != n.dispsOr {
			return bad("recorded OR of displacements %#x, computed %#x", n.dispsOr, or)
		}
	}
	v.seen[n] = true
	return nil
}

const maxInt64 = 1<<63 - 1
