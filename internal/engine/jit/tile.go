package jit

import (
	"os"

	"github.com/ddtlab/ddt/dame"
)

// Tiles: the columns of a matrix moved a line at a time.
//
// A strided loop over units that are columns of single elements, the
// units e bytes apart for elements of e bytes (FFT2D's receive type: 2,048
// columns of 256 complex doubles 32 KiB apart, the column index running
// slowest in the packed stream), touches every line of memory once per
// element on it: column c brings in its 256 lines, and columns c+1 to c+3,
// which share them, come back after the other 255 have passed through
// the same few cache sets (rows 32 KiB apart fall on one set of the first
// level and two of the second), by which time the lines are gone. Tiled,
// the code moves T = 64/e columns at once, row by row: the T elements of
// a row fill one line, read (pack) or written (unpack) once, and the
// packed side is T sequential streams, B*e bytes apart for columns of B
// rows. The bytes moved are the same; for unpack the order of the stores
// changes, so tiles are used only where no two elements of the loop
// share memory (units*e at most the row stride).
//
// Measured with `ddt bench --type` on 256 rows 32 KiB apart, a whole row
// of columns (AMD EPYC of family 26, 2026-11-27, two runs, GB/s tiled /
// not): 16-byte elements pack 32-34 / 12-13, unpack 12.3 / 2.1-3.0;
// 32-byte elements 35-36 / 24, 11 / 4.5-4.8. Elements of 8 and 4 bytes
// (8 and 16 packed streams) gained nothing measurable (pack 7.9 / 8.0 and
// 4.2 / 4.3, unpack 1.0-1.4 / 1.0 and 0.7 / 0.5-0.7), so they keep the
// plain loop. In the library preloaded (FFT2D.recv L, three processes
// each, PMPI time / library time) pack went from 0.77x to 2.36x of
// MPICH's speed and unpack from 0.67x to 4.30x; on Open MPI 1.12x to
// 3.03x and 0.67x to 4.35x.
//
// DDT_JIT_TILE=0 turns tiling off (for measurements).
var tileOn = os.Getenv("DDT_JIT_TILE") != "0"

// Bounds of the rule: columns of at least tileMinRows rows at least
// tileMinStride bytes apart (each row on lines and pages of its own).
const (
	tileMinRows   = 16
	tileMinStride = 1024
)

// tileOf is the number of columns per tile for count units of c (count
// < 0: not known), stride bytes apart: 64/e for c a column (a vector of
// single elements of e = 16 or 32 bytes, tileMinRows or more rows
// tileMinStride or more bytes apart) and stride e; else 0. It needs the
// registers of a tile (tileRows) and, where count is known, at least one
// whole tile.
func (g *gen) tileOf(c *dame.Node, stride, count int64) int64 {
	if !tileOn || c.Op != dame.Vector || c.Blocklen != 1 || c.Child.Op != dame.ContigFinal {
		return 0
	}
	e, rows, s := c.Child.Size, c.Count, c.Stride
	switch e {
	case 16, 32:
	default:
		return 0
	}
	T := 64 / e
	if stride != e || rows < tileMinRows || s < tileMinStride || s > farOff/64 || sat(T, c.Size) > farOff {
		return 0
	}
	if count >= 0 && count < T {
		return 0
	}
	if g.freeRegs() < 4 { // the loop's two (tileLoop) and the tile's two (tileRows)
		return 0
	}
	return T
}

// tileRows emits one tile: T columns of c whose first starts at rm, row
// by row, the T elements of a row at packed offsets B*e apart (the
// columns' places in the packed stream). RSI advances past the tile's
// packed bytes; rm is unchanged.
func (g *gen) tileRows(c *dame.Node, rm reg, T int64) {
	defer func(pf int64, rep int) { g.pf, g.rep = pf, rep }(g.pf, g.rep)
	g.pf, g.rep = 0, 0
	B, S, e := c.Count, c.Stride, c.Child.Size
	g.flush()
	rr, rc := g.alloc(), g.alloc()
	g.a.movRR(rr, rm)
	ur := int64(1)
	for ur < 8 && 2*ur*T <= 32 && 2*ur <= B {
		ur *= 2
	}
	rows := func(k int64) {
		for j := range k {
			for t := range T {
				g.po = t*B*e + j*e
				g.block(rr, t*e+j*S, e)
			}
		}
		g.po = k * e
		g.flush()
		g.addConst(rr, k*S)
	}
	g.a.movImm(rc, g.d32(B/ur))
	top := g.a.pc()
	rows(ur)
	g.a.dec(rc)
	g.a.jcc(condNE, top)
	if B%ur > 0 {
		rows(B % ur)
	}
	// the rows advanced RSI by one column's B*e bytes; the tile packs T
	g.po = (T - 1) * B * e
	g.flush()
	g.free(rr, rc)
}

// tileLoop emits count instances of c, stride bytes apart, the first at
// mb+mo, as tiles of T (tileOf) and then the count%T left as loop does.
func (g *gen) tileLoop(count, stride, T int64, c *dame.Node, mb reg, mo int64) {
	g.flush()
	rm, rg := g.alloc(), g.alloc()
	g.setAddr(rm, mb, mo)
	g.a.movImm(rg, g.d32(count/T))
	top := g.a.pc()
	g.tileRows(c, rm, T)
	g.addConst(rm, T*stride)
	g.a.dec(rg)
	g.a.jcc(condNE, top)
	g.free(rg)
	if count%T > 0 {
		g.loop(count%T, stride, c, rm, 0)
	}
	g.free(rm)
}

// tileEntry emits, at the start of an entry over RCX units of c stride
// bytes apart, the tiles of T units (tileOf) while T or more are left;
// the entry's own loop follows for the rest, and an entry left with none
// returns here.
func (g *gen) tileEntry(c *dame.Node, stride, T int64) {
	g.a.cmpImm(rcx, int32(T))
	j := g.a.jcc(condB, -1)
	top := g.a.pc()
	g.tileRows(c, rdi, T)
	g.addConst(rdi, T*stride)
	g.a.subImm(rcx, int32(T))
	g.a.cmpImm(rcx, int32(T))
	g.a.jcc(condAE, top)
	g.a.testRR(rcx)
	k := g.a.jcc(condNE, -1)
	g.ret()
	g.a.patch(j, g.a.pc())
	g.a.patch(k, g.a.pc())
}
