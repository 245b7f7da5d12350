package jit

import (
	"encoding/binary"
	"fmt"
	"strings"
)

// This file is a minimal x86-64 encoder: exactly the instructions the
// generator emits (moves of 1 to 64 bytes between registers and memory
// operands [base + index + disp], a few integer operations, conditional
// jumps, RET and VZEROUPPER), each optionally logged in Intel syntax for
// the text dump. It is plain Go and runs on any architecture; only running
// the code needs amd64.

// reg is a general-purpose register, numbered as in the instruction
// encoding (RAX = 0 ... R15 = 15).
type reg uint8

const (
	rax reg = iota
	rcx
	rdx
	rbx
	rsp
	rbp
	rsi
	rdi
	r8
	r9
	r10
	r11
	r12
	r13
	r14
	r15
	noReg reg = 0xff
)

var reg64 = [...]string{"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15"}

func (r reg) String() string { return reg64[r] }

// regName is the name of r's low w bytes (w = 1, 2, 4, 8).
func regName(r reg, w int) string {
	if w == 8 {
		return reg64[r]
	}
	if r >= r8 {
		return reg64[r] + map[int]string{1: "b", 2: "w", 4: "d"}[w]
	}
	switch w {
	case 4:
		return "e" + reg64[r][1:]
	case 2:
		return reg64[r][1:]
	}
	return [...]string{"al", "cl", "dl", "bl", "spl", "bpl", "sil", "dil"}[r]
}

// mem is the memory operand [base + index + disp].
type mem struct {
	base  reg
	index reg  // noReg for none
	scale byte // index scale: 0 for 1, 3 for 8
	disp  int32
}

func at(base reg, disp int32) mem { return mem{base: base, index: noReg, disp: disp} }

func (m mem) String() string {
	var b strings.Builder
	b.WriteString("[")
	if m.base == noReg {
		b.WriteString("rip")
	} else {
		b.WriteString(m.base.String())
	}
	if m.index != noReg {
		b.WriteString("+" + m.index.String())
		if m.scale != 0 {
			fmt.Fprintf(&b, "*%d", 1<<m.scale)
		}
	}
	if m.disp > 0 {
		fmt.Fprintf(&b, "+%#x", m.disp)
	} else if m.disp < 0 {
		fmt.Fprintf(&b, "-%#x", -int64(m.disp))
	}
	b.WriteString("]")
	return b.String()
}

// asm accumulates machine code.
type asm struct {
	b   []byte
	log bool
	txt []line
}

// line is one instruction of the text dump: its offset, bytes and text.
type line struct {
	off, n int
	text   string
}

func (a *asm) pc() int { return len(a.b) }

func (a *asm) note(start int, format string, args ...any) {
	if a.log {
		a.txt = append(a.txt, line{start, len(a.b) - start, fmt.Sprintf(format, args...)})
	}
}

func (a *asm) byte1(bs ...byte) { a.b = append(a.b, bs...) }

func (a *asm) imm32(v int32) { a.b = binary.LittleEndian.AppendUint32(a.b, uint32(v)) }

// rexFor returns the REX bits R, X, B for register field r and operand m.
func rexFor(r uint8, m mem) (R, X, B byte) {
	R = (r >> 3) & 1
	if m.index != noReg {
		X = byte(m.index>>3) & 1
	}
	if m.base != noReg {
		B = byte(m.base>>3) & 1
	}
	return
}

// modrm appends the ModRM byte (with SIB and displacement) for register
// field r and memory operand m. It always uses a 32-bit displacement when
// one is needed, so that EVEX's scaled 8-bit displacements never apply.
func (a *asm) modrm(r uint8, m mem) {
	r &= 7
	if m.base == noReg { // RIP-relative
		a.byte1(r<<3 | 5)
		a.imm32(m.disp)
		return
	}
	mod := byte(2)
	if m.disp == 0 && m.base&7 != 5 {
		mod = 0
	}
	if m.index == noReg && m.base&7 != 4 {
		a.byte1(mod<<6 | r<<3 | byte(m.base&7))
	} else {
		idx := byte(4) // none
		if m.index != noReg {
			idx = byte(m.index & 7)
		}
		a.byte1(mod<<6|r<<3|4, m.scale<<6|idx<<3|byte(m.base&7))
	}
	if mod == 2 {
		a.imm32(m.disp)
	}
}

// rex appends a REX prefix if any bit is set (or force).
func (a *asm) rex(w, R, X, B byte, force bool) {
	v := 0x40 | w<<3 | R<<2 | X<<1 | B
	if v != 0x40 || force {
		a.byte1(v)
	}
}

// load moves w (1, 2, 4, 8) bytes from m into r.
func (a *asm) load(w int, r reg, m mem) {
	s := a.pc()
	a.gpMem(w, r, m, 0x8b)
	a.note(s, "mov %s, %s", regName(r, w), m)
}

// store moves the low w bytes of r to m.
func (a *asm) store(w int, m mem, r reg) {
	s := a.pc()
	a.gpMem(w, r, m, 0x89)
	a.note(s, "mov %s, %s", m, regName(r, w))
}

// lea sets r to the address of m.
func (a *asm) lea(r reg, m mem) {
	s := a.pc()
	a.gpMem(8, r, m, 0x8d)
	a.note(s, "lea %s, %s", r, m)
}

// gpMem encodes a general-purpose instruction with opcode op (the 16-,
// 32- and 64-bit form; op-1 is the byte form) between r and m.
func (a *asm) gpMem(w int, r reg, m mem, op byte) {
	R, X, B := rexFor(uint8(r), m)
	var W byte
	switch w {
	case 8:
		W = 1
	case 2:
		a.byte1(0x66)
	case 1:
		op--
	}
	a.rex(W, R, X, B, w == 1 && r >= rsp && r < r8)
	a.byte1(op)
	a.modrm(uint8(r), m)
}

// aluImm applies the group-1 operation ext (0 add, 5 sub, 7 cmp) with a
// sign-extended immediate to the 64-bit register r.
func (a *asm) aluImm(ext byte, r reg, imm int32) {
	s := a.pc()
	a.rex(1, 0, 0, byte(r>>3)&1, false)
	if imm >= -128 && imm < 128 {
		a.byte1(0x83, 0xc0|ext<<3|byte(r&7), byte(int8(imm)))
	} else {
		a.byte1(0x81, 0xc0|ext<<3|byte(r&7))
		a.imm32(imm)
	}
	a.note(s, "%s %s, %#x", [...]string{0: "add", 5: "sub", 7: "cmp"}[ext], r, imm)
}

func (a *asm) addImm(r reg, imm int32) { a.aluImm(0, r, imm) }
func (a *asm) subImm(r reg, imm int32) { a.aluImm(5, r, imm) }
func (a *asm) cmpImm(r reg, imm int32) { a.aluImm(7, r, imm) }

// addRR adds src to dst (64 bits).
func (a *asm) addRR(dst, src reg) {
	s := a.pc()
	a.rex(1, byte(src>>3)&1, 0, byte(dst>>3)&1, false)
	a.byte1(0x01, 0xc0|byte(src&7)<<3|byte(dst&7))
	a.note(s, "add %s, %s", dst, src)
}

// movRR copies src to dst (64 bits).
func (a *asm) movRR(dst, src reg) {
	s := a.pc()
	a.rex(1, byte(src>>3)&1, 0, byte(dst>>3)&1, false)
	a.byte1(0x89, 0xc0|byte(src&7)<<3|byte(dst&7))
	a.note(s, "mov %s, %s", dst, src)
}

// repMovsb copies RCX bytes from [RSI] to [RDI] (the direction flag is
// clear in Go code), advancing both and counting RCX down to 0.
func (a *asm) repMovsb() {
	s := a.pc()
	a.byte1(0xf3, 0xa4)
	a.note(s, "rep movsb")
}

// testRR sets the flags from r AND r.
func (a *asm) testRR(r reg) {
	s := a.pc()
	a.rex(1, byte(r>>3)&1, 0, byte(r>>3)&1, false)
	a.byte1(0x85, 0xc0|byte(r&7)<<3|byte(r&7))
	a.note(s, "test %s, %s", r, r)
}

// testImm sets the flags from r AND the sign-extended 32-bit immediate
// imm (64 bits).
func (a *asm) testImm(r reg, imm int32) {
	s := a.pc()
	a.rex(1, 0, 0, byte(r>>3)&1, false)
	a.byte1(0xf7, 0xc0|byte(r&7))
	a.imm32(imm)
	a.note(s, "test %s, %#x", r, imm)
}

// movImm sets r to the sign-extended 32-bit immediate imm.
func (a *asm) movImm(r reg, imm int32) {
	s := a.pc()
	a.rex(1, 0, 0, byte(r>>3)&1, false)
	a.byte1(0xc7, 0xc0|byte(r&7))
	a.imm32(imm)
	a.note(s, "mov %s, %#x", r, imm)
}

// dec decrements r (64 bits), setting ZF when it reaches 0.
func (a *asm) dec(r reg) {
	s := a.pc()
	a.rex(1, 0, 0, byte(r>>3)&1, false)
	a.byte1(0xff, 0xc8|byte(r&7))
	a.note(s, "dec %s", r)
}

// Condition codes of jcc.
const (
	condB  = 0x2 // below (unsigned)
	condAE = 0x3
	condE  = 0x4
	condNE = 0x5
	condA  = 0x7 // above (unsigned)
)

var condNames = map[byte]string{condB: "jb", condAE: "jae", condE: "je", condNE: "jne", condA: "ja"}

// jcc jumps to target if the condition holds; target < 0 means a forward
// jump whose displacement is patched later: jcc returns the position of
// its displacement.
func (a *asm) jcc(cond byte, target int) int {
	s := a.pc()
	a.byte1(0x0f, 0x80|cond)
	p := a.pc()
	a.imm32(0)
	if target >= 0 {
		a.patch(p, target)
		a.note(s, "%s %#x", condNames[cond], target)
	} else {
		a.note(s, "%s", condNames[cond])
	}
	return p
}

// patch sets the 32-bit relative displacement at p (ending its
// instruction) to reach target.
func (a *asm) patch(p, target int) {
	binary.LittleEndian.PutUint32(a.b[p:], uint32(int32(target-(p+4))))
	if a.log {
		for i := len(a.txt) - 1; i >= 0; i-- {
			if l := &a.txt[i]; l.off < p && p < l.off+l.n {
				if !strings.ContainsRune(l.text, ' ') {
					l.text += fmt.Sprintf(" %#x", target)
				}
				break
			}
		}
	}
}

func (a *asm) ret() {
	s := a.pc()
	a.byte1(0xc3)
	a.note(s, "ret")
}

func (a *asm) vzeroupper() {
	s := a.pc()
	a.byte1(0xc5, 0xf8, 0x77)
	a.note(s, "vzeroupper")
}

// Vector moves: the encoding family of the unaligned 16-, 32- and 64-byte
// loads and stores.
const (
	encSSE  = iota // MOVDQU xmm
	encVEX         // VMOVDQU xmm/ymm
	encEVEX        // VMOVDQU64 zmm
)

// vmove moves w (16, 32, 64) bytes between vector register x (0-7) and
// m: a load when load is set, else a store. enc selects the encoding of
// 16- and 32-byte moves (64-byte ones are always EVEX).
func (a *asm) vmove(load bool, w, x int, m mem, vex bool) {
	s := a.pc()
	op := byte(0x7f)
	if load {
		op = 0x6f
	}
	R, X, B := rexFor(uint8(x), m)
	name := [...]string{16: "xmm", 32: "ymm", 64: "zmm"}[w]
	mn := "vmovdqu"
	switch {
	case w == 64:
		mn = "vmovdqu64"
		a.byte1(0x62, (^R&1)<<7|(^X&1)<<6|(^B&1)<<5|1<<4|0x01, 0xfe, 0x48)
	case vex:
		L := byte(0)
		if w == 32 {
			L = 1
		}
		a.byte1(0xc4, (^R&1)<<7|(^X&1)<<6|(^B&1)<<5|0x01, 0x78|L<<2|0x02)
	default:
		mn = "movdqu"
		a.byte1(0xf3)
		a.rex(0, R, X, B, false)
		a.byte1(0x0f)
	}
	a.byte1(op)
	a.modrm(uint8(x), m)
	if load {
		a.note(s, "%s %s%d, %s", mn, name, x, m)
	} else {
		a.note(s, "%s %s, %s%d", mn, m, name, x)
	}
}

// listing formats the logged instructions, one per line: offset, bytes,
// text.
func (a *asm) listing(b *strings.Builder) {
	for _, l := range a.txt {
		fmt.Fprintf(b, "%6x  %-30x  %s\n", l.off, a.b[l.off:l.off+l.n], l.text)
	}
}

// evex appends an EVEX prefix: register field r (vector 0-31 or k), vvvv
// operand v (vector register; 0 when unused), memory or register operand
// rm (B and X bits from m), map mm (1 0F, 2 0F38), W, pp (0 none, 1 66,
// 2 F3, 3 F2), zeroing z, opmask aaa, 512-bit length.
func (a *asm) evex(r uint8, v uint8, m mem, mm, W, pp, z, aaa byte) {
	R, X, B := rexFor(r, m)
	a.byte1(0x62,
		(^R&1)<<7|(^X&1)<<6|(^B&1)<<5|(^(r>>4)&1)<<4|mm,
		W<<7|(^v&15)<<3|1<<2|pp,
		z<<7|2<<5|(^(v>>4)&1)<<3|aaa)
}

// loadMasked loads the bytes of m selected by opmask k into zmm x,
// zeroing the others (VMOVDQU8 zmm{k}{z}, m512). Bytes not selected are
// not read and cannot fault.
func (a *asm) loadMasked(x int, k byte, m mem) {
	s := a.pc()
	a.evex(uint8(x), 0, m, 1, 0, 3, 1, k)
	a.byte1(0x6f)
	a.modrm(uint8(x), m)
	a.note(s, "vmovdqu8 zmm%d{k%d}{z}, %s", x, k, m)
}

// storeMasked stores the bytes of zmm x selected by opmask k to m
// (VMOVDQU8 m512{k}, zmm); the other bytes of m are not written.
func (a *asm) storeMasked(m mem, k byte, x int) {
	s := a.pc()
	a.evex(uint8(x), 0, m, 1, 0, 3, 0, k)
	a.byte1(0x7f)
	a.modrm(uint8(x), m)
	a.note(s, "vmovdqu8 %s{k%d}, zmm%d", m, k, x)
}

// permb sets zmm dst to the bytes of zmm src picked by the byte indexes
// in zmm idx (VPERMB, AVX512-VBMI).
func (a *asm) permb(dst, idx, src int) {
	s := a.pc()
	a.evex(uint8(dst), uint8(idx), mem{base: reg(src), index: noReg}, 2, 0, 1, 0, 0)
	a.byte1(0x8d, 0xc0|byte(dst&7)<<3|byte(src&7))
	a.note(s, "vpermb zmm%d, zmm%d, zmm%d", dst, idx, src)
}

// kload loads opmask k from m (KMOVQ k, m64).
func (a *asm) kload(k byte, m mem) {
	s := a.pc()
	_, X, B := rexFor(0, m)
	a.byte1(0xc4, 0x80|(^X&1)<<6|(^B&1)<<5|0x01, 0xf8)
	a.byte1(0x90)
	a.modrm(k, m)
	a.note(s, "kmovq k%d, %s", k, m)
}

// vex3 appends a three-byte VEX prefix: register field r, vvvv operand v
// (0 when unused), memory or register operand m (X and B bits), map mm (1
// 0F, 3 0F3A), length L (0 for 128, 1 for 256 bits), pp (1 66, 2 F3, 3 F2);
// W is 0.
func (a *asm) vex3(r, v uint8, m mem, mm, L, pp byte) {
	R, X, B := rexFor(r, m)
	a.byte1(0xc4, (^R&1)<<7|(^X&1)<<6|(^B&1)<<5|mm, (^v&15)<<3|L<<2|pp)
}

// loadLow loads the 8 bytes at m into the low half of xmm x, zeroing the
// rest (VMOVSD xmm, m64).
func (a *asm) loadLow(x int, m mem) {
	s := a.pc()
	a.vex3(uint8(x), 0, m, 1, 0, 3)
	a.byte1(0x10)
	a.modrm(uint8(x), m)
	a.note(s, "vmovsd xmm%d, %s", x, m)
}

// loadHigh sets xmm x to the low half of xmm x and the 8 bytes at m
// (VMOVHPD xmm, xmm, m64).
func (a *asm) loadHigh(x int, m mem) {
	s := a.pc()
	a.vex3(uint8(x), uint8(x), m, 1, 0, 1)
	a.byte1(0x16)
	a.modrm(uint8(x), m)
	a.note(s, "vmovhpd xmm%d, xmm%d, %s", x, x, m)
}

// insertHigh sets the upper half of vector register dst (ymm for w 32,
// zmm for w 64) to the lower half of src, keeping its lower half
// (VINSERTF128 ymm, ymm, xmm, 1 or VINSERTF64X4 zmm, zmm, ymm, 1).
func (a *asm) insertHigh(w, dst, src int) {
	s := a.pc()
	rm := mem{base: reg(src), index: noReg}
	if w == 64 {
		a.evex(uint8(dst), uint8(dst), rm, 3, 1, 1, 0, 0)
		a.byte1(0x1a, 0xc0|byte(dst&7)<<3|byte(src&7), 1)
		a.note(s, "vinsertf64x4 zmm%d, zmm%d, ymm%d, 0x1", dst, dst, src)
		return
	}
	a.vex3(uint8(dst), uint8(dst), rm, 3, 1, 1)
	a.byte1(0x18, 0xc0|byte(dst&7)<<3|byte(src&7), 1)
	a.note(s, "vinsertf128 ymm%d, ymm%d, xmm%d, 0x1", dst, dst, src)
}

// broadcast8 sets every 8-byte lane of ymm x to the 8 bytes at m
// (VBROADCASTSD ymm, m64: a load alone, no shuffle).
func (a *asm) broadcast8(x int, m mem) {
	s := a.pc()
	a.vex3(uint8(x), 0, m, 2, 1, 1)
	a.byte1(0x19)
	a.modrm(uint8(x), m)
	a.note(s, "vbroadcastsd ymm%d, %s", x, m)
}

// blend8 sets the 8-byte lanes of ymm dst selected by the low four bits
// of imm to those of ymm src and keeps the others (VBLENDPD ymm, ymm,
// ymm, imm8).
func (a *asm) blend8(dst, src int, imm byte) {
	s := a.pc()
	a.vex3(uint8(dst), uint8(dst), mem{base: reg(src), index: noReg}, 3, 1, 1)
	a.byte1(0x0d, 0xc0|byte(dst&7)<<3|byte(src&7), imm)
	a.note(s, "vblendpd ymm%d, ymm%d, ymm%d, %#x", dst, dst, src, imm)
}

// prefetchw emits PREFETCHW m.
func (a *asm) prefetchw(m mem) {
	s := a.pc()
	_, X, B := rexFor(0, m)
	a.rex(0, 0, X, B, false)
	a.byte1(0x0f, 0x0d)
	a.modrm(1, m)
	a.note(s, "prefetchw %s", m)
}
