package jit

import (
	"encoding/binary"
	"fmt"
	"strings"
)

// This file is a minimal AArch64 (arm64) encoder: exactly the
// instructions the arm64 generator (a64gen.go) emits — loads and stores of
// 1 to 16 bytes (LDR/STR with scaled unsigned offsets, LDUR/STUR with
// unscaled signed ones, post-indexed forms), LDP/STP of two Q registers
// (32 bytes), ADD/SUB/SUBS with immediates, ADD of a shifted register,
// MOVZ/MOVN/MOVK, B.cond, CBZ, ADR and RET — each optionally logged in
// the GNU assembler's syntax for the text dump. It is plain Go and runs
// on any architecture; only running the code needs arm64.

// xr is an arm64 general-purpose register X0-X30; 31 is XZR (or SP,
// which the generator never names).
type xr uint8

const xzr xr = 31

func (r xr) String() string {
	if r == xzr {
		return "xzr"
	}
	return fmt.Sprintf("x%d", r)
}

// wname is the name of r as the operand of a move of w bytes: Wn for up
// to 4 bytes, Xn for 8, Qn (a vector register) for 16.
func wname(r xr, w int) string {
	switch w {
	case 8:
		return r.String()
	case 16:
		return fmt.Sprintf("q%d", r)
	}
	return fmt.Sprintf("w%d", r)
}

// a64 accumulates arm64 machine code: little-endian 32-bit words.
type a64 struct {
	b   []byte
	log bool
	txt []line
}

func (a *a64) pc() int { return len(a.b) }

// put appends the instruction word w, logging its text.
func (a *a64) put(w uint32, format string, args ...any) {
	s := a.pc()
	a.b = binary.LittleEndian.AppendUint32(a.b, w)
	if a.log {
		a.txt = append(a.txt, line{s, 4, fmt.Sprintf(format, args...)})
	}
}

// Load/store opcodes per width (1, 2, 4, 8, 16 bytes): the unsigned
// scaled offset form and the unscaled (LDUR/STUR) form, loads and stores;
// the post-indexed form is the unscaled one with bit 10 set.
var ldstOps = map[int][4]uint32{
	1:  {0x39400000, 0x39000000, 0x38400000, 0x38000000},
	2:  {0x79400000, 0x79000000, 0x78400000, 0x78000000},
	4:  {0xb9400000, 0xb9000000, 0xb8400000, 0xb8000000},
	8:  {0xf9400000, 0xf9000000, 0xf8400000, 0xf8000000},
	16: {0x3dc00000, 0x3d800000, 0x3cc00000, 0x3c800000},
}

var ldstSuffix = map[int]string{1: "b", 2: "h"}

// fitsU reports whether off is a scaled unsigned offset of a w-byte move.
func fitsU(off int64, w int) bool { return off >= 0 && off%int64(w) == 0 && off/int64(w) < 4096 }

// fits9 reports whether off is an unscaled signed 9-bit offset.
func fits9(off int64) bool { return off >= -256 && off <= 255 }

// fitsPair reports whether off is the offset of an LDP/STP of Q registers.
func fitsPair(off int64) bool { return off%16 == 0 && off >= -1024 && off <= 1008 }

// fitsMove reports whether a move of w bytes (pair: two Q registers) can
// address base+off directly.
func fitsMove(off int64, w int, pair bool) bool {
	if pair {
		return fitsPair(off)
	}
	return fitsU(off, w) || fits9(off)
}

func memText(n xr, off int64) string {
	if off == 0 {
		return fmt.Sprintf("[%s]", n)
	}
	return fmt.Sprintf("[%s, #%d]", n, off)
}

// ldst moves w bytes between register t (Wt, Xt or Qt) and [n+off]: a
// load when load is set. off must satisfy fitsMove(off, w, false).
func (a *a64) ldst(load bool, w int, t, n xr, off int64) {
	ops := ldstOps[w]
	mn := "str"
	if load {
		mn = "ldr"
	}
	var op uint32
	switch {
	case fitsU(off, w):
		op = ops[1]
		if load {
			op = ops[0]
		}
		op |= uint32(off/int64(w)) << 10
	case fits9(off):
		op = ops[3]
		if load {
			op = ops[2]
		}
		op |= uint32(off&0x1ff) << 12
		mn = mn[:2] + "u" + mn[2:]
	default:
		panic(fmt.Sprintf("jit: arm64 offset %d of a %d-byte move", off, w))
	}
	a.put(op|uint32(n)<<5|uint32(t), "%s%s %s, %s", mn, ldstSuffix[w], wname(t, w), memText(n, off))
}

// ldstPost moves w bytes between t and [n], then adds off (9 bits signed)
// to n.
func (a *a64) ldstPost(load bool, w int, t, n xr, off int64) {
	ops := ldstOps[w]
	op, mn := ops[3], "str"
	if load {
		op, mn = ops[2], "ldr"
	}
	a.put(op|1<<10|uint32(off&0x1ff)<<12|uint32(n)<<5|uint32(t), "%s%s %s, [%s], #%d", mn, ldstSuffix[w], wname(t, w), n, off)
}

// ldstp moves 32 bytes between Q registers v, v+1 and [n+off] (LDP/STP);
// with post, at [n], then n += off.
func (a *a64) ldstp(load bool, v, n xr, off int64, post bool) {
	var op uint32 = 0xad000000
	if post {
		op = 0xac800000
	}
	mn := "stp"
	if load {
		op |= 1 << 22
		mn = "ldp"
	}
	m := memText(n, off)
	if post {
		m = fmt.Sprintf("[%s], #%d", n, off)
	}
	a.put(op|uint32((off/16)&0x7f)<<15|uint32(v+1)<<10|uint32(n)<<5|uint32(v), "%s q%d, q%d, %s", mn, v, v+1, m)
}

// ldstIdx moves w (1, 2, 4, 8, 16) bytes between t and [n+m] (register
// offset).
func (a *a64) ldstIdx(load bool, w int, t, n, m xr) {
	op := map[int]uint32{1: 0x38206800, 2: 0x78206800, 4: 0xb8206800, 8: 0xf8206800, 16: 0x3ca06800}[w]
	mn := "str"
	if load {
		op |= 1 << 22
		mn = "ldr"
	}
	a.put(op|uint32(m)<<16|uint32(n)<<5|uint32(t), "%s%s %s, [%s, %s]", mn, ldstSuffix[w], wname(t, w), n, m)
}

// ldstpGP moves 2w bytes (w 4 or 8) between Wt, Wt2 or Xt, Xt2 and
// [n+off] (LDP/STP of general registers; off a multiple of w within 64
// of them of 0).
func (a *a64) ldstpGP(load bool, w int, t, t2, n xr, off int64) {
	op := uint32(0x29000000)
	if w == 8 {
		op = 0xa9000000
	}
	mn := "stp"
	if load {
		op |= 1 << 22
		mn = "ldp"
	}
	a.put(op|uint32((off/int64(w))&0x7f)<<15|uint32(t2)<<10|uint32(n)<<5|uint32(t), "%s %s, %s, %s", mn, wname(t, w), wname(t2, w), memText(n, off))
}

// ldpPost loads the 16 bytes at [n] into Xt, Xt2 (LDP), then adds 16 to n.
func (a *a64) ldpPost(t, t2, n xr) {
	a.put(0xa8c00000|2<<15|uint32(t2)<<10|uint32(n)<<5|uint32(t), "ldp %s, %s, [%s], #16", t, t2, n)
}

// addsub emits ADD, SUB (sub), or their flag-setting forms (flags) of a
// 12-bit immediate, shifted left by 12 with hi: d = n ± imm.
func (a *a64) addsub(sub, flags bool, d, n xr, imm uint32, hi bool) {
	op := uint32(0x91000000)
	mn := "add"
	if sub {
		op |= 1 << 30
		mn = "sub"
	}
	if flags {
		op |= 1 << 29
		mn += "s"
	}
	sh := ""
	if hi {
		op |= 1 << 22
		sh = ", lsl #12"
	}
	w := op | imm<<10 | uint32(n)<<5 | uint32(d)
	if flags && sub && d == xzr {
		a.put(w, "cmp %s, #%#x%s", n, imm, sh)
		return
	}
	a.put(w, "%s %s, %s, #%#x%s", mn, d, n, imm, sh)
}

// addReg sets d = n + (m << sh).
func (a *a64) addReg(d, n, m xr, sh uint) {
	s := ""
	if sh != 0 {
		s = fmt.Sprintf(", lsl #%d", sh)
	}
	a.put(0x8b000000|uint32(m)<<16|uint32(sh)<<10|uint32(n)<<5|uint32(d), "add %s, %s, %s%s", d, n, m, s)
}

// mov copies register m to d (ORR d, XZR, m).
func (a *a64) mov(d, m xr) {
	a.put(0xaa0003e0|uint32(m)<<16|uint32(d), "mov %s, %s", d, m)
}

// movw emits MOVZ (op 2), MOVN (op 0) or MOVK (op 3) of the 16-bit
// immediate imm at halfword hw of d.
func (a *a64) movw(op uint32, d xr, imm uint32, hw int) {
	w := 0x92800000 | op<<29 | uint32(hw)<<21 | imm<<5 | uint32(d)
	sh := ""
	if hw != 0 {
		sh = fmt.Sprintf(", lsl #%d", 16*hw)
	}
	a.put(w, "%s %s, #%#x%s", map[uint32]string{0: "movn", 2: "movz", 3: "movk"}[op], d, imm, sh)
}

// Condition codes of bcond.
const (
	a64EQ = 0x0
	a64NE = 0x1
	a64HS = 0x2
	a64LO = 0x3
)

var a64CondNames = map[uint32]string{a64EQ: "b.eq", a64NE: "b.ne", a64HS: "b.hs", a64LO: "b.lo"}

// bcond branches to target if the condition holds; target < 0 is a
// forward branch patched later. It returns its position.
func (a *a64) bcond(cond uint32, target int) int {
	p := a.pc()
	a.put(0x54000000|cond, "%s", a64CondNames[cond])
	if target >= 0 {
		a.patch(p, target)
	}
	return p
}

// cbz branches to target (patched later when < 0) if t is zero.
func (a *a64) cbz(t xr, target int) int {
	p := a.pc()
	a.put(0xb4000000|uint32(t), "cbz %s,", t)
	if target >= 0 {
		a.patch(p, target)
	}
	return p
}

// patch sets the 19-bit word offset of the branch at p to reach target.
func (a *a64) patch(p, target int) {
	w := binary.LittleEndian.Uint32(a.b[p:])
	w = w&^(0x7ffff<<5) | uint32((target-p)/4)&0x7ffff<<5
	binary.LittleEndian.PutUint32(a.b[p:], w)
	a.retext(p, target)
}

// adr sets d to a PC-relative address, patched later by patchAdr; it
// returns its position.
func (a *a64) adr(d xr) int {
	p := a.pc()
	a.put(0x10000000|uint32(d), "adr %s,", d)
	return p
}

// patchAdr sets the ADR at p to address target (within 1 MiB).
func (a *a64) patchAdr(p, target int) {
	off := uint32(target - p)
	w := binary.LittleEndian.Uint32(a.b[p:])
	w = w&^(3<<29|0x7ffff<<5) | (off&3)<<29 | (off>>2)&0x7ffff<<5
	binary.LittleEndian.PutUint32(a.b[p:], w)
	a.retext(p, target)
}

// retext appends the target to the logged text of the instruction at p.
func (a *a64) retext(p, target int) {
	if !a.log {
		return
	}
	for i := len(a.txt) - 1; i >= 0; i-- {
		if l := &a.txt[i]; l.off == p {
			l.text = strings.TrimSuffix(l.text, ",")
			if strings.ContainsRune(l.text, ' ') {
				l.text += ","
			}
			l.text += fmt.Sprintf(" %#x", target)
			return
		}
	}
}

func (a *a64) ret() { a.put(0xd65f03c0, "ret") }
