package jit

import "github.com/ddtlab/ddt/dame"

// isa is what the shared walk of a program needs of one instruction set's
// generator (gen for amd64, agen for arm64), R being its register type.
type isa[R any] interface {
	node(n *dame.Node, mb R, mo int64)
	block(mb R, mo, L int64)
	loop(count, stride int64, c *dame.Node, mb R, mo int64)
	list(n *dame.Node, mb R, mo int64)
	fail(format string, a ...any)
}

// walkNode emits one instance of n whose origin is at memory mb+mo, by its
// operation: the part of node both generators share.
func walkNode[R any](g isa[R], n *dame.Node, mb R, mo int64) {
	switch n.Op {
	case dame.ContigFinal:
		g.block(mb, mo, n.Size)
	case dame.Contig:
		g.loop(n.Count, n.Child.Extent, n.Child, mb, mo)
	case dame.Vector:
		if n.Blocklen == 1 {
			g.loop(n.Count, n.Stride, n.Child, mb, mo)
			return
		}
		// blocks of Blocklen child instances: a vector of vectors
		inner := &dame.Node{Op: dame.Contig, Count: n.Blocklen, Child: n.Child, Size: n.Blocklen * n.Child.Size}
		g.loop(n.Count, n.Stride, inner, mb, mo)
	case dame.BlockIndex, dame.Index, dame.Struct:
		g.list(n, mb, mo)
	default:
		g.fail("unknown op %v", n.Op)
	}
}

// walkRun emits k instances of c, c.Extent apart, the first at mb+mo.
func walkRun[R any](g isa[R], k int64, c *dame.Node, mb R, mo int64) {
	switch {
	case k == 0:
	case c.Op == dame.ContigFinal && c.Extent == c.Size:
		g.block(mb, mo, k*c.Size)
	case k == 1:
		g.node(c, mb, mo)
	default:
		g.loop(k, c.Extent, c, mb, mo)
	}
}
