package jit

import (
	"encoding/binary"

	"github.com/ddtlab/ddt/dame"
)

// Compaction: a node whose instance reads at most 64 bytes of memory and
// packs at most 64 bytes (a small C struct: {int; double[3]; char;
// float[2]} is 37 bytes over 44) moves with three instructions instead of
// one load and one store per block: a masked 64-byte load of exactly the
// bytes it covers, a VPERMB that puts each byte where it goes, and a
// masked store of exactly the bytes it writes. Masked-off bytes are
// neither read nor written (and cannot fault), so the moves stay exact.
// The byte indexes and masks are loaded into ZMM4/ZMM5 and K1-K4 once per
// call.

// shape is the compaction of one node in one direction.
type shape struct {
	lo       int64 // memory window start, from the node's origin
	idx      [64]byte
	ld, st   uint64 // masks of the load and the store
	z        int    // vector register holding idx
	kld, kst byte   // opmask registers holding ld and st
	tbl      int
}

// run is n bytes at memory offset off.
type brun struct{ off, n int64 }

// flatten appends the byte runs of one instance of n at memory offset
// base, in packed order; it gives up (false) past 64 runs or bytes.
func flatten(n *dame.Node, base int64, out *[]brun) bool {
	if n.Size > 64 || len(*out) > 64 {
		return false
	}
	switch n.Op {
	case dame.ContigFinal:
		*out = append(*out, brun{base, n.Size})
		return true
	case dame.Contig:
		for i := range n.Count {
			if !flatten(n.Child, base+i*n.Child.Extent, out) {
				return false
			}
		}
		return true
	}
	for i := range n.NumBlocks() {
		c := n.ChildOf(int(i))
		d := base + n.BlockDisp(i)
		for j := range n.BlockLen(int(i)) {
			if !flatten(c, d+j*c.Extent, out) {
				return false
			}
		}
	}
	return true
}

// shapeOf returns the compaction of n, or nil if n does not fit 64 bytes
// or is too simple to gain.
func (g *gen) shapeOf(n *dame.Node) *shape {
	if n.Op == dame.ContigFinal || n.Size > 64 || n.Size == 0 || g.cost(n) < 3 {
		return nil
	}
	var rs []brun
	if !flatten(n, 0, &rs) {
		return nil
	}
	lo, hi := rs[0].off, rs[0].off+rs[0].n
	for _, r := range rs {
		lo, hi = min(lo, r.off), max(hi, r.off+r.n)
	}
	if hi-lo > 64 {
		return nil
	}
	s := &shape{lo: lo}
	var covered uint64
	q := int64(0)
	for _, r := range rs {
		for b := range r.n {
			m := r.off + b - lo // memory byte in the window
			if g.pack {
				s.idx[q] = byte(m)
			} else {
				s.idx[m] = byte(q) // later runs overwrite: last writer wins
			}
			covered |= 1 << m
			q++
		}
	}
	sizeMask := ^uint64(0) >> (64 - n.Size)
	if g.pack {
		s.ld, s.st = covered, sizeMask
	} else {
		s.ld, s.st = sizeMask, covered
	}
	return s
}

// prepare finds the nodes of c to compact (the topmost ones that fit, at
// most two distinct ones) and loads their indexes and masks.
func (g *gen) prepare(c *dame.Node) {
	g.shapes = nil
	if !g.vbmi {
		return
	}
	seen := map[*dame.Node]bool{} // a program may share nodes (a DAG)
	var walk func(n *dame.Node)
	walk = func(n *dame.Node) {
		if len(g.shapes) == 2 || seen[n] || n.Op == dame.ContigFinal {
			return
		}
		seen[n] = true
		if s := g.shapeOf(n); s != nil {
			k := len(g.shapes)
			s.z, s.kld, s.kst = 4+k, byte(1+2*k), byte(2+2*k)
			if g.shapes == nil {
				g.shapes = map[*dame.Node]*shape{}
			}
			g.shapes[n] = s
			tb := append([]byte(nil), s.idx[:]...)
			tb = binary.LittleEndian.AppendUint64(tb, s.ld)
			tb = binary.LittleEndian.AppendUint64(tb, s.st)
			g.tables = append(g.tables, tb)
			s.tbl = len(g.tables) - 1
			g.a.vmove(true, 64, s.z, rip, true)
			g.ref(s.tbl, 0)
			g.a.kload(s.kld, rip)
			g.ref(s.tbl, 64)
			g.a.kload(s.kst, rip)
			g.ref(s.tbl, 72)
			return
		}
		if n.Child != nil {
			walk(n.Child)
		}
		for _, ch := range n.Children {
			walk(ch)
		}
	}
	walk(c)
}

// compact emits one instance of n (compaction s) at memory mb+mo.
func (g *gen) compact(s *shape, n *dame.Node, mb reg, mo int64) {
	x := g.xr
	g.xr = (g.xr + 1) % 4
	m, p := at(mb, g.d32(mo+s.lo)), at(rsi, g.d32(g.po))
	g.po += n.Size
	if g.pack {
		g.a.loadMasked(x, s.kld, m)
		g.a.permb(x, s.z, x)
		g.a.storeMasked(p, s.kst, x)
		return
	}
	g.a.loadMasked(x, s.kld, p)
	g.a.permb(x, s.z, x)
	g.a.storeMasked(m, s.kst, x)
}
