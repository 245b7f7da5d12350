package jit

import (
	"fmt"

	"github.com/ddtlab/ddt/dame"
)

// The arm64 generator emits the same entries as the amd64 one (gen.go),
// from the same plan (jit.go), with this convention (Go's register ABI
// on arm64 passes an Entry's arguments in R0-R5):
//
//	X2  number of units (> 0)
//	X3  memory address of the first unit's origin
//	X4  address of the first unit's packed bytes
//	X5  first block (listed block entries only)
//
// X0 and X1 arrive holding nothing the code needs. Scratch: X0 (memory
// pointer of long block loops), X1 (memory addresses whose offsets do not
// fit an instruction), X6 (scalar moves), X7 (iterations of long block
// loops; the second of a pair of scalar moves), X16 (packed addresses), X17 (constants), Q0-Q7; loops take
// their pointer and counter registers from X8-X15 and X19-X25. The code
// never names SP, X18 (reserved by the platform), X26 (closure context),
// X27, X28 (the goroutine), X29 (frame pointer) or X30 (link register, but
// for RET). Moves: 32 bytes as an LDP/STP of two Q registers, 16 as
// LDR/STR of one, 8, 4, 2, 1 through X6/W6, the last move of a run
// overlapping the one before it when the run is not a multiple; runs
// longer than 8 vectors copy 4 vectors per iteration with post-indexed
// pointers. Packed operands are X4 plus the pending offset (flushed into
// X4 when it no longer fits the instruction, and at every loop's end),
// memory operands a loop pointer plus the type's constant offset.
const (
	xLong  xr = 0
	xAddr  xr = 1
	xCnt   xr = 2
	xMem   xr = 3
	xPk    xr = 4
	xB0    xr = 5
	xDat   xr = 6
	xIter  xr = 7
	xPAddr xr = 16
	xK     xr = 17
)

var a64pool = [...]xr{8, 9, 10, 11, 12, 13, 14, 15, 19, 20, 21, 22, 23, 24, 25}

// agen generates arm64 code; it implements emitter.
type agen struct {
	a    a64
	cm   *gen // the cost model: the amd64 generator's move counts at the same width
	pack bool
	vec  int   // widest move: 16 or 32 bytes
	po   int64 // packed offset from X4 not yet added to it
	used [32]bool
	tableSet
	refs []aref
	err  error
	vr   xr // next vector register
	// xAddr holds cbase+cdisp when cok (a memory address reused by the
	// moves after it while their offsets from it fit)
	cok   bool
	cbase xr
	cdisp int64
}

// aref is an ADR at pos addressing table tbl.
type aref struct{ pos, tbl int }

func newA64gen(vec int, log bool) *agen {
	if vec != 16 {
		vec = 32
	}
	g := &agen{vec: vec, cm: &gen{vec: vec}}
	g.a.log = log
	return g
}

func (g *agen) pc() int           { return g.a.pc() }
func (g *agen) failed() error     { return g.err }
func (g *agen) setPack(pack bool) { g.pack = pack }
func (g *agen) code() []byte      { return g.a.b }
func (g *agen) lines() []line     { return g.a.txt }
func (g *agen) addOff(off int64)  { g.addConst(xMem, xMem, off) }

func (g *agen) tableLens() []int {
	n := make([]int, len(g.tables))
	for i, t := range g.tables {
		n[i] = len(t)
	}
	return n
}

func (g *agen) fail(format string, a ...any) {
	if g.err == nil {
		g.err = fmt.Errorf("%w: "+format, append([]any{ErrUnsupported}, a...)...)
	}
}

// finish places the tables after the code, 64-byte aligned, and patches
// the ADRs addressing them.
func (g *agen) finish() error {
	start := make([]int, len(g.tables))
	for i, t := range g.tables {
		for len(g.a.b)%64 != 0 {
			g.a.b = append(g.a.b, 0)
		}
		start[i] = len(g.a.b)
		g.a.b = append(g.a.b, t...)
	}
	if len(g.a.b) > maxCode {
		return fmt.Errorf("%w: %d bytes of code", ErrUnsupported, len(g.a.b))
	}
	for _, r := range g.refs {
		g.a.patchAdr(r.pos, start[r.tbl]) // within maxCode: ADR reaches 1 MiB
	}
	return nil
}

// inval forgets the cached address when r, its base or xAddr, changes.
func (g *agen) inval(r xr) {
	if r == xAddr || r == g.cbase {
		g.cok = false
	}
}

// label returns the position of a branch target: nothing is known of
// the registers there.
func (g *agen) label() int {
	g.cok = false
	return g.a.pc()
}

// movConst sets d to v: MOVZ or MOVN of the lowest halfword that needs
// one, MOVK of the others.
func (g *agen) movConst(d xr, v int64) {
	g.inval(d)
	u, first := uint64(v), uint32(2)
	if v < 0 {
		u, first = ^u, 0
	}
	hw0 := 0
	for hw0 < 3 && (u>>(16*hw0))&0xffff == 0 {
		hw0++
	}
	g.a.movw(first, d, uint32(u>>(16*hw0))&0xffff, hw0)
	for hw := hw0 + 1; hw < 4; hw++ {
		if (u>>(16*hw))&0xffff != 0 {
			g.a.movw(3, d, uint32(uint64(v)>>(16*hw))&0xffff, hw)
		}
	}
}

// addConst sets d = n + v.
func (g *agen) addConst(d, n xr, v int64) {
	g.inval(d)
	sub, u := v < 0, v
	if sub {
		u = -v
	}
	switch {
	case v == 0:
		if d != n {
			g.a.mov(d, n)
		}
	case u < 1<<12:
		g.a.addsub(sub, false, d, n, uint32(u), false)
	case u < 1<<24:
		g.a.addsub(sub, false, d, n, uint32(u>>12), true)
		if u&0xfff != 0 {
			g.a.addsub(sub, false, d, d, uint32(u&0xfff), false)
		}
	default:
		g.movConst(xK, v)
		g.a.addReg(d, n, xK, 0)
	}
}

// countDown subtracts 1 from r, setting the flags (SUBS r, r, #1).
func (g *agen) countDown(r xr) {
	g.inval(r)
	g.a.addsub(true, true, r, r, 1, false)
}

func (g *agen) alloc() xr {
	for _, r := range a64pool {
		if !g.used[r] {
			g.used[r] = true
			return r
		}
	}
	g.fail("loops nested too deeply")
	return a64pool[0]
}

func (g *agen) free(rs ...xr) {
	for _, r := range rs {
		g.used[r] = false
	}
}

// flush adds the pending packed offset to X4.
func (g *agen) flush() {
	if g.po != 0 {
		g.addConst(xPk, xPk, g.po)
		g.po = 0
	}
}

// memAt returns a register and offset addressing the memory byte mb+disp
// for a move of w bytes (pair: LDP/STP of two Q registers), computing the
// address into X1 when disp does not fit the instruction.
func (g *agen) memAt(mb xr, disp int64, w int, pair bool) (xr, int64) {
	if fitsMove(disp, w, pair) {
		return mb, disp
	}
	if g.cok && g.cbase == mb && fitsMove(disp-g.cdisp, w, pair) {
		return xAddr, disp - g.cdisp
	}
	g.addConst(xAddr, mb, disp)
	g.cok, g.cbase, g.cdisp = true, mb, disp
	return xAddr, 0
}

// pkAt returns a register and offset addressing the packed byte o after
// the current position (X4 plus the pending offset).
func (g *agen) pkAt(o int64, w int, pair bool) (xr, int64) {
	if off := g.po + o; fitsMove(off, w, pair) {
		return xPk, off
	}
	g.flush()
	if fitsMove(o, w, pair) {
		return xPk, o
	}
	g.addConst(xPAddr, xPk, o)
	return xPAddr, 0
}

// move copies w bytes between memory mb+mo and the packed byte o after
// the current position.
func (g *agen) move(w int64, mb xr, mo, o int64) {
	switch w {
	case 32:
		v := g.vr &^ 1
		g.vr = (v + 2) % 8
		mr, md := g.memAt(mb, mo, 16, true)
		pr, pd := g.pkAt(o, 16, true)
		if g.pack {
			g.a.ldstp(true, v, mr, md, false)
			g.a.ldstp(false, v, pr, pd, false)
		} else {
			g.a.ldstp(true, v, pr, pd, false)
			g.a.ldstp(false, v, mr, md, false)
		}
		return
	}
	t := xDat
	if w == 16 {
		t = g.vr
		g.vr = (g.vr + 1) % 8
	}
	mr, md := g.memAt(mb, mo, int(w), false)
	pr, pd := g.pkAt(o, int(w), false)
	if g.pack {
		g.a.ldst(true, int(w), t, mr, md)
		g.a.ldst(false, int(w), t, pr, pd)
	} else {
		g.a.ldst(true, int(w), t, pr, pd)
		g.a.ldst(false, int(w), t, mr, md)
	}
}

// block copies the L contiguous bytes at memory mb+mo to or from the
// current packed position, and advances it.
func (g *agen) block(mb xr, mo, L int64) {
	if !g.cm.long(L) {
		w, n := g.cm.moves(L)
		for i := int64(0); i < n; i++ {
			o := min(i*w, L-w)
			g.move(w, mb, mo+o, o)
		}
		g.po += L
		return
	}
	// four vector moves per iteration, both pointers post-indexed, X7
	// counting the iterations; then the rest, the last move overlapping
	w := int64(g.vec)
	step := 4 * w
	main := L / step * step
	g.flush()
	g.addConst(xLong, mb, mo)
	g.movConst(xIter, main/step)
	top := g.label()
	src, dst := xLong, xPk
	if !g.pack {
		src, dst = xPk, xLong
	}
	for _, load := range []bool{true, false} {
		r := src
		if !load {
			r = dst
		}
		for k := xr(0); k < 4; k++ {
			if w == 32 {
				g.a.ldstp(load, 2*k, r, 32, true)
			} else {
				g.a.ldstPost(load, 16, k, r, 16)
			}
		}
	}
	g.inval(xLong)
	g.countDown(xIter)
	g.a.bcond(a64NE, top)
	for o := main; o < L; o += w {
		o := min(o, L-w)
		g.move(w, xLong, o-main, o-main)
	}
	g.po += L - main
}

// node emits one instance of n whose origin is at memory mb+mo.
func (g *agen) node(n *dame.Node, mb xr, mo int64) {
	if g.err != nil || len(g.a.b) > maxCode {
		g.fail("code too large")
		return
	}
	walkNode[xr](g, n, mb, mo)
}

// run emits k instances of c, c.Extent apart, the first at mb+mo.
func (g *agen) run(k int64, c *dame.Node, mb xr, mo int64) {
	walkRun[xr](g, k, c, mb, mo)
}

// list emits the blocks of a BlockIndex, Index or Struct node: unrolled
// with their displacements as constants when short, otherwise (equal
// blocks only) a loop over a table of displacements, u blocks per
// iteration.
func (g *agen) list(n *dame.Node, mb xr, mo int64) {
	nb := int64(len(n.Disps))
	if nb <= maxWalkBlocks || g.cm.cost(n) <= maxUnrollLst {
		for i := range nb {
			g.run(n.BlockLen(int(i)), n.ChildOf(int(i)), mb, mo+n.Disps[i])
		}
		return
	}
	if n.Op != dame.BlockIndex {
		g.fail("%s of %d blocks", n.Op, nb)
		return
	}
	g.flush()
	u := g.tableUnroll(n)
	rt, rc := g.alloc(), g.alloc()
	rm := g.allocN(u)
	g.tableAddr(rt, n)
	g.movConst(rc, nb/u)
	top := g.label()
	g.tableBlocks(n, rt, rm, mb, mo)
	g.flush()
	g.countDown(rc)
	g.a.bcond(a64NE, top)
	if r := nb % u; r > 0 {
		g.tableBlocks(n, rt, rm[:r], mb, mo)
	}
	g.free(rt, rc)
	g.free(rm...)
}

// tableUnroll is how many blocks of the BlockIndex n an iteration of its
// table loop moves: 4 (or 2) when a block is a few moves of straight-line
// code, else 1.
func (g *agen) tableUnroll(n *dame.Node) int64 {
	switch c := g.cm.runCost(n.Blocklen, n.Child); {
	case c <= 4:
		return 4
	case c <= 8:
		return 2
	}
	return 1
}

func (g *agen) allocN(k int64) []xr {
	rs := make([]xr, k)
	for i := range rs {
		rs[i] = g.alloc()
	}
	return rs
}

// tableAddr sets rt to the address of n's displacement table.
func (g *agen) tableAddr(rt xr, n *dame.Node) {
	g.inval(rt)
	g.refs = append(g.refs, aref{g.a.adr(rt), g.dispTable(n)})
}

// tableBlocks emits len(rm) blocks of the BlockIndex n whose
// displacements rt points to (advancing rt past them), relative to mb+mo:
// the displacements loaded into rm (in pairs by LDP), made addresses,
// then the blocks one after the other.
func (g *agen) tableBlocks(n *dame.Node, rt xr, rm []xr, mb xr, mo int64) {
	g.inval(rt)
	for i := 0; i < len(rm); i += 2 {
		g.inval(rm[i])
		if i+1 < len(rm) {
			g.inval(rm[i+1])
			g.a.ldpPost(rm[i], rm[i+1], rt)
		} else {
			g.a.ldstPost(true, 8, rm[i], rt, 8)
		}
	}
	if L := n.Blocklen * n.Child.Size; mo == 0 && n.Child.Op == dame.ContigFinal && n.Child.Extent == n.Child.Size &&
		L <= 16 && L&(L-1) == 0 {
		// a block of one move: memory addressed [mb, rm] (register offset)
		for _, r := range rm {
			t := xDat
			if L == 16 {
				t = g.vr
				g.vr = (g.vr + 1) % 8
			}
			pr, pd := g.pkAt(0, int(L), false)
			if g.pack {
				g.a.ldstIdx(true, int(L), t, mb, r)
				g.a.ldst(false, int(L), t, pr, pd)
			} else {
				g.a.ldst(true, int(L), t, pr, pd)
				g.a.ldstIdx(false, int(L), t, mb, r)
			}
			g.po += L
		}
		return
	}
	for _, r := range rm {
		g.a.addReg(r, r, mb, 0)
	}
	for _, r := range rm {
		g.run(n.Blocklen, n.Child, r, mo)
	}
}

// dispTable returns the table of n's displacements (one per node).
func (g *agen) dispTable(n *dame.Node) int {
	return g.table(n, func() []byte { return dispBytes(n) })
}

// tableEntry emits a function moving X2 whole blocks of the BlockIndex
// n, from block X5 on, of the instance whose origin is at X3: u blocks
// per iteration while at least u are left, then one at a time.
func (g *agen) tableEntry(n *dame.Node) int {
	start := g.label()
	g.po = 0
	u := g.tableUnroll(n)
	rt := g.alloc()
	rm := g.allocN(u)
	g.tableAddr(rt, n)
	g.a.addReg(rt, rt, xB0, 3)
	rem := -1
	if u > 1 {
		g.a.addsub(true, true, xzr, xCnt, uint32(u), false)
		rem = g.a.bcond(a64LO, -1)
		top := g.label()
		g.tableBlocks(n, rt, rm, xMem, 0)
		g.flush()
		g.a.addsub(true, false, xCnt, xCnt, uint32(u), false)
		g.a.addsub(true, true, xzr, xCnt, uint32(u), false)
		g.a.bcond(a64HS, top)
		g.a.patch(rem, g.label())
		rem = g.a.cbz(xCnt, -1)
	}
	top := g.label()
	g.tableBlocks(n, rt, rm[:1], xMem, 0)
	g.flush()
	g.countDown(xCnt)
	g.a.bcond(a64NE, top)
	if rem >= 0 {
		g.a.patch(rem, g.label())
	}
	g.free(rt)
	g.free(rm...)
	g.a.ret()
	return start
}

// loop emits count instances of c, stride bytes apart, the first at
// mb+mo: unrolled entirely when short, otherwise a counted loop whose body
// holds a few copies.
func (g *agen) loop(count, stride int64, c *dame.Node, mb xr, mo int64) {
	cc := g.cm.cost(c)
	if sat(count, cc) <= unrollMoves {
		g.nodes(c, mb, mo, stride, count)
		return
	}
	u := unroll(cc, min(count, 8))
	g.flush()
	rm, rc := g.alloc(), g.alloc()
	g.addConst(rm, mb, mo)
	g.movConst(rc, count/u)
	top := g.label()
	g.nodes(c, rm, 0, stride, u)
	g.flush()
	g.addConst(rm, rm, u*stride)
	g.countDown(rc)
	g.a.bcond(a64NE, top)
	g.nodes(c, rm, 0, stride, count%u)
	g.free(rm, rc)
}

// nodes emits k instances of c, stride bytes apart, the first at mb+mo.
// Separate elements of 4 or 8 bytes go in pairs: two loads and an STP
// of the pair to the packed bytes (pack), or an LDP and two stores
// (unpack), half the packed side's instructions.
func (g *agen) nodes(c *dame.Node, mb xr, mo, stride, k int64) {
	i := int64(0)
	if c.Op == dame.ContigFinal && (c.Size == 4 || c.Size == 8) && stride != c.Size {
		for ; i+2 <= k; i += 2 {
			g.pair(int(c.Size), mb, mo+i*stride, mo+(i+1)*stride)
		}
	}
	for ; i < k; i++ {
		g.node(c, mb, mo+i*stride)
	}
}

// pair moves the w-byte elements at memory mb+m1 and mb+m2 to or from
// the 2w packed bytes at the current position (X6 and X7 hold them), and
// advances it.
func (g *agen) pair(w int, mb xr, m1, m2 int64) {
	fits := func(off int64) bool { return off%int64(w) == 0 && off/int64(w) >= -64 && off/int64(w) <= 63 }
	if !fits(g.po) {
		g.flush()
	}
	po := g.po
	if g.pack {
		r, d := g.memAt(mb, m1, w, false)
		g.a.ldst(true, w, xDat, r, d)
		r, d = g.memAt(mb, m2, w, false)
		g.a.ldst(true, w, xIter, r, d)
		g.a.ldstpGP(false, w, xDat, xIter, xPk, po)
	} else {
		g.a.ldstpGP(true, w, xDat, xIter, xPk, po)
		r, d := g.memAt(mb, m1, w, false)
		g.a.ldst(false, w, xDat, r, d)
		r, d = g.memAt(mb, m2, w, false)
		g.a.ldst(false, w, xIter, r, d)
	}
	g.po += int64(2 * w)
}

// entry emits a function moving X2 units of c, stride bytes apart: u
// units per iteration while at least u are left, then one at a time.
func (g *agen) entry(c *dame.Node, stride int64) int {
	start := g.label()
	g.po = 0
	u := unroll(g.cm.cost(c), 16)
	rem := -1
	if u > 1 {
		g.a.addsub(true, true, xzr, xCnt, uint32(u), false)
		rem = g.a.bcond(a64LO, -1)
		top := g.label()
		g.nodes(c, xMem, 0, stride, u)
		g.flush()
		g.addConst(xMem, xMem, u*stride)
		g.a.addsub(true, false, xCnt, xCnt, uint32(u), false)
		g.a.addsub(true, true, xzr, xCnt, uint32(u), false)
		g.a.bcond(a64HS, top)
		g.a.patch(rem, g.label())
		rem = g.a.cbz(xCnt, -1)
	}
	top := g.label()
	g.node(c, xMem, 0)
	g.flush()
	g.addConst(xMem, xMem, stride)
	g.countDown(xCnt)
	g.a.bcond(a64NE, top)
	if rem >= 0 {
		g.a.patch(rem, g.label())
	}
	g.a.ret()
	return start
}

// indexEntry: the arm64 generator leaves long Index lists to the fallback
// engine (see index.go).
func (g *agen) indexEntry(n *dame.Node) int {
	g.fail("%s of %d blocks", n.Op, len(n.Disps))
	return 0
}
