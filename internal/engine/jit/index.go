package jit

import (
	"encoding/binary"
	"os"

	"github.com/ddtlab/ddt/dame"
)

// Index lists (blocks of varying lengths, L6's shape) longer than the
// generator unrolls run a loop over a table of (displacement, length)
// pairs, 16 bytes per block: the length is the block's bytes when its
// child's instances are contiguous bytes (one copy of a length known at
// run time, varBlock), otherwise its number of child instances (a counted
// loop over the child's code). amd64 only; the arm64 generator leaves
// such lists to the fallback engine.

// indexTable returns the table of n's (displacement, length) pairs (one
// per node).
func (g *gen) indexTable(n *dame.Node) int {
	return g.table(n, func() []byte {
		leaf := leafBlocks(n)
		tb := make([]byte, 0, 16*len(n.Disps))
		for i, d := range n.Disps {
			l := n.Blocklens[i]
			if leaf {
				l *= n.Child.Size
			}
			tb = binary.LittleEndian.AppendUint64(tb, uint64(d))
			tb = binary.LittleEndian.AppendUint64(tb, uint64(l))
		}
		return tb
	})
}

// tableSet holds a generator's tables: constant data placed after the
// code, at most one per node (a node shared by several uses of a DAG
// program has one table).
type tableSet struct {
	tables [][]byte
	tblOf  map[*dame.Node]int
}

// table returns the index of n's table, built by build the first time.
func (t *tableSet) table(n *dame.Node, build func() []byte) int {
	if i, ok := t.tblOf[n]; ok {
		return i
	}
	t.tables = append(t.tables, build())
	if t.tblOf == nil {
		t.tblOf = map[*dame.Node]int{}
	}
	t.tblOf[n] = len(t.tables) - 1
	return len(t.tables) - 1
}

// dispBytes is the table of n's displacements, 8 bytes each.
func dispBytes(n *dame.Node) []byte {
	tb := make([]byte, 0, 8*len(n.Disps))
	for _, d := range n.Disps {
		tb = binary.LittleEndian.AppendUint64(tb, uint64(d))
	}
	return tb
}

// leafBlocks reports whether the blocks of the Index n are contiguous
// bytes: instances of a leaf as long as its extent.
func leafBlocks(n *dame.Node) bool {
	return n.Child.Op == dame.ContigFinal && n.Child.Extent == n.Child.Size
}

// indexList emits all blocks of the Index n at memory mb+mo.
func (g *gen) indexList(n *dame.Node, mb reg, mo int64) {
	g.flush()
	rt, rc := g.alloc(), g.alloc()
	g.a.lea(rt, rip)
	g.ref(g.indexTable(n), 0)
	g.a.movImm(rc, g.d32(int64(len(n.Disps))))
	g.indexBlocks(n, rt, rc, mb, mo)
	g.free(rt, rc)
}

// indexEntry emits a function moving RCX whole blocks of the Index n,
// from block R8 on, of the instance whose origin is at RDI.
func (g *gen) indexEntry(n *dame.Node) int {
	start := g.a.pc()
	g.po = 0
	g.prepare(n.Child)
	g.used[r8] = true
	rt := g.alloc()
	g.a.lea(rt, rip)
	g.ref(g.indexTable(n), 0)
	g.a.lea(rt, mem{base: rt, index: r8, scale: 3})
	g.a.lea(rt, mem{base: rt, index: r8, scale: 3})
	g.free(r8)
	g.indexBlocks(n, rt, rcx, rdi, 0)
	g.free(rt)
	g.ret()
	return start
}

// indexBlocks emits the loop over rc (> 0) blocks of the Index n whose
// table entries rt points to, relative to memory mb+mo; it advances rt
// and counts rc down to 0. The packed offset is flushed (RSI) on entry.
func (g *gen) indexBlocks(n *dame.Node, rt, rc, mb reg, mo int64) {
	rm, rl := g.alloc(), g.alloc()
	top := g.a.pc()
	g.a.load(8, rm, at(rt, 0))
	g.a.addRR(rm, mb)
	g.a.load(8, rl, at(rt, 8))
	if leafBlocks(n) {
		g.varBlock(rm, mo, rl)
	} else {
		c := n.Child
		inner := g.a.pc()
		g.node(c, rm, mo)
		g.flush()
		g.addConst(rm, c.Extent)
		g.a.dec(rl)
		g.a.jcc(condNE, inner)
	}
	g.a.addImm(rt, 16)
	g.a.dec(rc)
	g.a.jcc(condNE, top)
	g.free(rm, rl)
}

// varBlock copies rl (> 0) contiguous bytes between memory rm+mo and
// RSI (no packed offset pending) and advances RSI past them. At least one
// vector: vector moves from the start, the last one ending at the end
// (overlapping the one before). Less: the widest power of two w not above
// rl moves twice, at the start and ending at the end. Scratch RAX, RDX.
func (g *gen) varBlock(rm reg, mo int64, rl reg) {
	W := min(int64(g.vec), varVec)
	mo32 := g.d32(mo)
	var done []int
	masked := W == 64 && varMasked
	if masked {
		// up to 128 bytes: two masked loads and stores of exactly rl
		// bytes, the masks from a table (AVX-512: the masked-off bytes are
		// neither read nor written); no branch on the length
		g.a.cmpImm(rl, 128)
		big := g.a.jcc(condA, -1)
		g.a.lea(rax, rip)
		g.ref(g.maskTable(), 0)
		g.a.lea(rdx, mem{base: rl, index: rl})
		g.a.kload(kVar, mem{base: rax, index: rdx, scale: 3})
		g.a.kload(kVar+1, mem{base: rax, index: rdx, scale: 3, disp: 8})
		x, y := g.xr, (g.xr+1)%4
		g.xr = (g.xr + 2) % 4
		m0, m1, p0, p1 := at(rm, mo32), at(rm, mo32+64), at(rsi, 0), at(rsi, 64)
		if !g.pack {
			m0, m1, p0, p1 = p0, p1, m0, m1
		}
		g.a.loadMasked(x, kVar, m0)
		g.a.loadMasked(y, kVar+1, m1)
		g.a.storeMasked(p0, kVar, x)
		g.a.storeMasked(p1, kVar+1, y)
		done = append(done, g.a.jmp(-1))
		g.a.patch(big, g.a.pc())
	} else {
		g.a.cmpImm(rl, int32(W))
	}
	small := -1
	if !masked {
		small = g.a.jcc(condB, -1)
	}
	// rl >= W: RDX from 0 while below RAX = rl-W, then one move at RAX
	g.a.lea(rax, at(rl, int32(-W)))
	g.a.movImm(rdx, 0)
	loop := g.a.pc()
	g.a.cmpRR(rdx, rax)
	last := g.a.jcc(condAE, -1)
	g.move(W, mem{base: rm, index: rdx, disp: mo32}, mem{base: rsi, index: rdx})
	g.a.addImm(rdx, int32(W))
	g.a.jmp(loop)
	g.a.patch(last, g.a.pc())
	g.vecAt(W, rm, mo32, rax)
	if masked {
		g.a.patch(done[0], g.a.pc())
		g.a.addRR(rsi, rl)
		return
	}
	done = append(done, g.a.jmp(-1))
	g.a.patch(small, g.a.pc())
	for w := W / 2; w >= 1; w /= 2 {
		g.a.cmpImm(rl, int32(w))
		next := g.a.jcc(condB, -1)
		g.move(w, mem{base: rm, index: noReg, disp: mo32}, at(rsi, 0))
		if w > 1 {
			g.move(w, mem{base: rm, index: rl, disp: mo32 - int32(w)}, mem{base: rsi, index: rl, disp: -int32(w)})
			done = append(done, g.a.jmp(-1))
		}
		g.a.patch(next, g.a.pc())
	}
	for _, p := range done {
		g.a.patch(p, g.a.pc())
	}
	g.a.addRR(rsi, rl)
}

// varMasked lets varBlock move blocks of up to 128 bytes by masked
// 64-byte moves. Not on AMD's cores: there L6 L (blocks of random length
// at random places; the library preloaded, 3 processes each) packed at
// 0.90x and unpacked at 0.95x of MPICH's speed with them and at 1.31x and
// 1.58x with 32-byte vectors and no masks (DDT_JIT_VEC=32), against Open
// MPI 0.75x / 0.70x and 1.27x / 1.35x (2026-11-27, an AMD EPYC of family
// 26). DDT_JIT_VARMASK=0 turns them off elsewhere too (a variable for
// tests).
var varMasked = !hostAMD() && os.Getenv("DDT_JIT_VARMASK") != "0"

// varVec bounds the vector width of varBlock's moves (DDT_JIT_VARVEC=16,
// 32 or 64 sets it; the default is the code's width, but 32 on AMD's
// cores). There blocks of random lengths from memory, not from the
// caches, moved faster in narrower vectors: L6 L (60 x 4,096 blocks of
// 8-128 bytes at random places, 16.6 MB packed; `ddt bench --type
// --count 60 --engine native`) packed at 8.9 GB/s with 64-byte moves,
// 10.3 with 32 and 10.9 with 16, unpacked at 11.5, 14.6 and 14.6; in L2
// (one instance, 276 KB) the same code packed at 46.3, 44.4 and 36.4 GB/s
// (2026-11-27, an AMD EPYC of family 26). 32 loses 4 % in L2 and gains
// 15-27 % from memory.
var varVec = varVecDefault()

func varVecDefault() int64 {
	switch os.Getenv("DDT_JIT_VARVEC") {
	case "16":
		return 16
	case "32":
		return 32
	case "64":
		return 64
	}
	if hostAMD() {
		return 32
	}
	return 64
}

// kVar and kVar+1 are the opmask registers of varBlock's masked moves
// (compaction uses K1-K4).
const kVar = 5

// maskKey names the table of byte masks in gen.tblOf.
var maskKey = new(dame.Node)

// maskTable returns the table of the pairs of byte masks of 0 to 128
// bytes: entry l (16 bytes) holds the masks of the first 64 and the next
// 64 bytes of l.
func (g *gen) maskTable() int {
	if t, ok := g.tblOf[maskKey]; ok {
		return t
	}
	mask := func(l int) uint64 {
		if l >= 64 {
			return ^uint64(0)
		}
		return 1<<max(l, 0) - 1
	}
	tb := make([]byte, 0, 16*129)
	for l := range 129 {
		tb = binary.LittleEndian.AppendUint64(tb, mask(l))
		tb = binary.LittleEndian.AppendUint64(tb, mask(l-64))
	}
	g.tables = append(g.tables, tb)
	if g.tblOf == nil {
		g.tblOf = map[*dame.Node]int{}
	}
	g.tblOf[maskKey] = len(g.tables) - 1
	return len(g.tables) - 1
}

// vecAt moves W bytes at offset r: memory rm+mo+r, packed RSI+r.
func (g *gen) vecAt(W int64, rm reg, mo int32, r reg) {
	g.move(W, mem{base: rm, index: r, disp: mo}, mem{base: rsi, index: r})
}

// cmpRR sets the flags from x - y (64 bits).
func (a *asm) cmpRR(x, y reg) {
	s := a.pc()
	a.rex(1, byte(y>>3)&1, 0, byte(x>>3)&1, false)
	a.byte1(0x39, 0xc0|byte(y&7)<<3|byte(x&7))
	a.note(s, "cmp %s, %s", x, y)
}

// jmp jumps to target; target < 0 means a forward jump patched later:
// jmp returns the position of its displacement.
func (a *asm) jmp(target int) int {
	s := a.pc()
	a.byte1(0xe9)
	p := a.pc()
	a.imm32(0)
	if target >= 0 {
		a.patch(p, target)
		a.note(s, "jmp %#x", target)
	} else {
		a.note(s, "jmp")
	}
	return p
}

// movImm64 sets r to the 64-bit constant v (MOVABS).
func (a *asm) movImm64(r reg, v int64) {
	s := a.pc()
	a.rex(1, 0, 0, byte(r>>3)&1, false)
	a.byte1(0xb8 | byte(r&7))
	a.b = binary.LittleEndian.AppendUint64(a.b, uint64(v))
	a.note(s, "mov %s, %#x", r, v)
}
