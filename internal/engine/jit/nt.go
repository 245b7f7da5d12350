package jit

import (
	"sync"
)

// Non-temporal stores in the generated code: a second variant of a
// program's code whose pack entries store the middle of every block of
// at least ntBlockMin bytes with aligned non-temporal stores, compiled
// when the first large message asks for it (Engine.PackNT). Package ddt
// runs it for messages above its threshold only: non-temporal stores
// leave the packed bytes in memory, not in the caches.

// ntBlockMin is the least block blockNT stores with non-temporal stores:
// below it the ordinary head and tail lines are most of the block.
const ntBlockMin = 1024

// ntState is an Engine's non-temporal code, compiled once.
type ntState struct {
	once sync.Once
	code *Code // nil when the variant has no non-temporal stores or failed
}

// PackNT is Pack with the non-temporal variant of the code, compiled on
// first use. It returns false, having done nothing, while the engine has
// no code yet, and when the variant has no non-temporal stores (no block
// of the program is long enough) or failed to compile.
func (e *Engine) PackNT(dst, src []byte, origin, count, from int64) bool {
	if len(dst) == 0 || e.code.Load() == nil {
		return false
	}
	e.nt.once.Do(func() {
		if c, err := compileVecNT(e.p, e.vec, true); err == nil && c.nt {
			e.nt.code = c
		}
	})
	c := e.nt.code
	if c == nil {
		return false
	}
	c.run(true, e.fbf, dst, src, origin, count, from)
	return true
}

func (a *asm) subRR(dst, src reg) {
	s := a.pc()
	a.rex(1, byte(src>>3)&1, 0, byte(dst>>3)&1, false)
	a.byte1(0x29, 0xc0|byte(src&7)<<3|byte(dst&7))
	a.note(s, "sub %s, %s", dst, src)
}

func (a *asm) andImm(r reg, imm int32) {
	s := a.pc()
	a.rex(1, 0, 0, byte(r>>3)&1, false)
	a.byte1(0x83, 0xc0|4<<3|byte(r&7), byte(int8(imm)))
	a.note(s, "and %s, %#x", r, imm)
}

func (a *asm) sfence() {
	s := a.pc()
	a.byte1(0x0f, 0xae, 0xf8)
	a.note(s, "sfence")
}

// vstoreNT stores vector register x (w = 32 or 64 bytes) to the aligned m.
func (a *asm) vstoreNT(w, x int, m mem) {
	s := a.pc()
	R, X, B := rexFor(uint8(x), m)
	if w == 64 {
		a.byte1(0x62, (^R&1)<<7|(^X&1)<<6|(^B&1)<<5|1<<4|0x01, 0x7d, 0x48)
	} else {
		a.byte1(0xc4, (^R&1)<<7|(^X&1)<<6|(^B&1)<<5|0x01, 0x78|1<<2|0x01)
	}
	a.byte1(0xe7)
	a.modrm(uint8(x), m)
	a.note(s, "vmovntdq %s, %d", m, x)
}

// blockNT is pack's long case with its stores aligned to lines (vec 32
// or 64, L >= 128+4*vec): an ordinary head of 64 bytes, the packed
// address rounded up to 64 at run time, the loop over [delta,
// delta+main) storing whole lines, with non-temporal stores when nt, then
// ordinary moves over the rest. It returns false, having emitted
// nothing, when the pool has no free register. (Unpack's stores, to
// memory, aligned the same way ran at 0.73-0.92x of the plain loop on
// rows of 408 to 2,048 bytes: TestABAlign.)
func (g *gen) blockNT(mb reg, mo, L, po int64, nt bool) bool {
	rp, ok := g.tryAlloc()
	if !ok {
		return false
	}
	w := int64(g.vec)
	step := 4 * w
	main := (L - 128) / step * step
	// head
	for o := int64(0); o < 64; o += w {
		g.move(w, at(mb, g.d32(mo+o)), at(rsi, g.d32(po+o)))
	}
	g.a.lea(rp, at(rsi, g.d32(po+64)))
	g.a.andImm(rp, -64)                // A = P + 64 - r
	g.a.lea(rdx, at(rsi, g.d32(po)))   // P
	g.a.andImm(rdx, 63)                // r
	g.a.lea(rax, at(mb, g.d32(mo+64))) // M + 64
	g.a.subRR(rax, rdx)                // M + delta
	g.a.movImm(rdx, g.d32(-main))
	top := g.a.pc()
	for k := range 4 {
		g.a.vmove(true, int(w), k, mem{base: rax, index: rdx, disp: g.d32(main + int64(k)*w)}, g.vex)
	}
	for k := range 4 {
		m := mem{base: rp, index: rdx, disp: g.d32(main + int64(k)*w)}
		if nt {
			g.a.vstoreNT(int(w), k, m)
		} else {
			g.a.vmove(false, int(w), k, m, g.vex)
		}
	}
	g.a.addImm(rdx, int32(step))
	g.a.jcc(condNE, top)
	g.ntUsed = g.ntUsed || nt
	// tail: from the end of the aligned region (a line boundary, runtime)
	// for the least tail length, then the last 64 bytes at constant
	// offsets; no ordinary store touches a line the loop stored
	tmin := L - main - 64
	for o := int64(0); o < tmin; o += w {
		o := min(o, tmin-w)
		g.a.vmove(true, int(w), 0, at(rax, g.d32(main+o)), g.vex)
		g.a.vmove(false, int(w), 0, at(rp, g.d32(main+o)), g.vex)
	}
	g.free(rp)
	for o := L - 64; o < L; o += w {
		g.move(w, at(mb, g.d32(mo+o)), at(rsi, g.d32(po+o)))
	}
	return true
}

// NTCode reports whether the engine has compiled a non-temporal variant
// with non-temporal stores (for tests).
func (e *Engine) NTCode() bool { return e.nt.code != nil }
