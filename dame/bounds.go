package dame

import "math/bits"

// DataBounds returns the bytes [lo, hi) one instance of the program
// touches, relative to the type's origin (lo == hi == 0 when it has no
// data), computed from the program in O(nodes + list entries); ok is false
// if that arithmetic overflows.
func (p *Program) DataBounds() (lo, hi int64, ok bool) {
	if p.Root == nil {
		return 0, 0, true
	}
	return bounds(p.Root, p.Off)
}

// bounds returns the bytes [lo, hi) that n, placed at off, touches, and
// false if computing them overflows.
func bounds(n *Node, off int64) (lo, hi int64, ok bool) {
	var memo map[*Node]span
	clo, chi, ok := nodeBounds(n, &memo)
	lo, ok1 := add(clo, off)
	hi, ok2 := add(chi, off)
	return lo, hi, ok && ok1 && ok2
}

// span is the bounds of a node (ok false on overflow).
type span struct {
	lo, hi int64
	ok     bool
}

// nodeBounds returns the bytes [lo, hi) one instance of n touches from its
// origin. The children of a Struct are computed once each (*memo, made on
// the first Struct child), so that a program sharing nodes (a DAG) costs
// its distinct nodes, not its expanded tree.
func nodeBounds(n *Node, memo *map[*Node]span) (lo, hi int64, ok bool) {
	// rep is the bounds of k copies of [lo, hi) step bytes apart.
	rep := func(lo, hi, k, step int64) (int64, int64, bool) {
		span, ok := mul(k-1, step)
		if !ok {
			return 0, 0, false
		}
		l, ok1 := add(lo, min(span, 0))
		h, ok2 := add(hi, max(span, 0))
		return l, h, ok1 && ok2
	}
	switch n.Op {
	case ContigFinal:
		return 0, n.Size, true
	case Contig, Vector:
		lo, hi, ok = nodeBounds(n.Child, memo)
		if ok && n.Op == Vector && n.Blocklen > 1 {
			lo, hi, ok = rep(lo, hi, n.Blocklen, n.Child.Extent)
		}
		step := n.Stride
		if n.Op == Contig {
			step = n.Child.Extent
		}
		if ok {
			lo, hi, ok = rep(lo, hi, n.Count, step)
		}
		return lo, hi, ok
	}
	first := true
	var prev *Node
	var clo, chi int64
	for i, d := range n.Disps {
		c := n.ChildOf(i)
		if c != prev {
			if n.Op != Struct {
				clo, chi, ok = nodeBounds(c, memo)
			} else if s, done := (*memo)[c]; done {
				clo, chi, ok = s.lo, s.hi, s.ok
			} else {
				clo, chi, ok = nodeBounds(c, memo)
				if *memo == nil {
					*memo = map[*Node]span{}
				}
				(*memo)[c] = span{clo, chi, ok}
			}
			if !ok {
				return 0, 0, false
			}
			prev = c
		}
		l, h, ok := rep(clo, chi, n.BlockLen(i), c.Extent)
		if !ok {
			return 0, 0, false
		}
		l, ok1 := add(l, d)
		h, ok2 := add(h, d)
		if !ok1 || !ok2 {
			return 0, 0, false
		}
		if first {
			lo, hi, first = l, h, false
		} else {
			lo, hi = min(lo, l), max(hi, h)
		}
	}
	return lo, hi, !first
}

func add(a, b int64) (int64, bool) {
	c := a + b
	return c, (c > a) == (b > 0)
}

func mul(a, b int64) (int64, bool) {
	hi, lo := bits.Mul64(uint64(abs(a)), uint64(abs(b)))
	if hi != 0 || lo > 1<<62 {
		return 0, false
	}
	return a * b, true
}

func abs(a int64) int64 {
	if a < 0 {
		return -a
	}
	return a
}
