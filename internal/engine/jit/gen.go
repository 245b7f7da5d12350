package jit

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"

	"github.com/ddtlab/ddt/dame"
)

// The generator turns a dame.Program into straight-line moves and loop
// nests. The generated functions are leaves with this convention (Go's
// register ABI puts an Entry's arguments there):
//
//	RDI  memory address of the first unit's origin
//	RSI  address of the first unit's packed bytes
//	RCX  number of units (> 0)
//	R8   first block (listed block entries only)
//
// The root's whole-message entries take RDI at the instance's origin and
// first add the program's offset (one LEA, none when it is 0). Registers
// they keep for Go: RSP, RBP, R14, and X15 (zero; vector registers 0-5
// only). RAX and RBX arrive holding nothing the code needs.
//
// A unit is a whole instance of the program's root (the instance entry) or
// a whole block of a root that is a strided loop (the block entry). The
// packed bytes of consecutive units follow each other; their memory is
// stride bytes apart. Inside a unit every memory operand is a pool
// register (or RDI) plus a constant, every packed operand RSI plus a
// constant; loops advance RSI by what they packed. Scratch: RAX (scalar
// moves), RDX (index of long block copies), vector registers 0-3.
// Nothing is stored outside the caller's buffers and the stack is not
// used.

// ErrUnsupported reports a program the generator does not compile (the
// caller keeps its other engine).
var ErrUnsupported = errors.New("jit: program not supported")

// Limits of the generator.
const (
	maxCode      = 1 << 20 // bytes of code per program (amd64; arm64: code and tables)
	maxTables    = 1 << 27 // bytes of tables per program (amd64)
	unrollMoves  = 32      // a loop whose whole body is at most this many moves is unrolled
	bodyMoves    = 32      // moves per iteration of an unrolled loop body
	maxUnrollLst = 256     // list blocks unrolled at most (moves)
)

var pool = [...]reg{rbx, r8, r9, r10, r11, r12, r13, r15}

type gen struct {
	a        asm
	pack     bool
	vec      int  // widest vector move of the code being emitted: 16, 32 or 64
	pvec     int  // the widest of pack code (setPack: unpack's may be narrower)
	vex      bool // VEX encoding for 16- and 32-byte moves
	vbmi     bool // VPERMB compaction of small nodes (with vec 64)
	po       int64
	used     [16]bool
	tableSet          // constant data placed after the code
	refs     []ripRef // RIP-relative operands addressing the tables
	shapes   map[*dame.Node]*shape
	// sortedOf holds the table of each list unpacked in sorted order
	// (sortedTable)
	sortedOf map[*dame.Node]int
	// costs caches cost of the lists (a program may share nodes: a
	// DAG, whose expanded tree can be exponentially larger)
	costs map[*dame.Node]int64
	err   error
	xr    int  // next vector register
	nt    bool // pack long blocks with non-temporal stores (blockNT)
	pfw   bool // the CPU has PREFETCHW (unpack's prefetches)
	erms  bool // the CPU has enhanced REP MOVSB (blockRep)
	// units is the number of units of the next entry, all calls
	// together (blockUnits; 0: not known)
	units int64
	// noGather turns gather8 off within a loop whose elements do not
	// stay in L1 (fitsL1)
	noGather bool
	// pf is the prefetch distance of the long blocks being emitted: the
	// memory operand of each line a block loop moves is prefetched pf
	// bytes ahead (0: none; see prefetchDist)
	pf int64
	// rep is the number of times pack stores each far element again
	// (throttleOf; 0: none)
	rep int
	// outer is the memory the entry being emitted covers, when known:
	// its units times their stride (0: not known; see prefetchDist)
	outer int64
	// nest is how many times the node being emitted runs per call: the
	// counts of the loops around it times the entry's units when known
	// (0 or 1: once; see throttleOf)
	nest   int64
	ntUsed bool // some code has non-temporal stores: entries end with SFENCE
}

// The emitter methods of the amd64 generator.

func (g *gen) pc() int       { return g.a.pc() }
func (g *gen) failed() error { return g.err }
func (g *gen) setPack(pack bool) {
	g.pack = pack
	g.vec = g.pvec
	if !pack {
		g.vec = min(g.pvec, unpackVec)
	}
}

// unpackVec caps the vector moves of unpack code (pack keeps the full
// width). DDT_JIT_UNPACKVEC=16|32|64 sets it (for measurements).
var unpackVec = func() int {
	switch v := envInt("DDT_JIT_UNPACKVEC", 64); v {
	case 16, 32:
		return int(v)
	}
	return 64
}()

func (g *gen) code() []byte     { return g.a.b }
func (g *gen) lines() []line    { return g.a.txt }
func (g *gen) addOff(off int64) { g.a.lea(rdi, at(rdi, g.d32(off))) }
func (g *gen) tableLens() []int {
	n := make([]int, len(g.tables))
	for i, t := range g.tables {
		n[i] = len(t)
	}
	return n
}

// finish places the tables after the code, 64-byte aligned, and patches
// the references to them.
func (g *gen) finish() error {
	if len(g.a.b) > maxCode {
		return fmt.Errorf("%w: %d bytes of code", ErrUnsupported, len(g.a.b))
	}
	start := make([]int, len(g.tables))
	for i, t := range g.tables {
		for len(g.a.b)%64 != 0 {
			g.a.b = append(g.a.b, 0xcc)
		}
		start[i] = len(g.a.b)
		g.a.b = append(g.a.b, t...)
	}
	if len(g.a.b) > maxCode+maxTables {
		return fmt.Errorf("%w: %d bytes of code and tables", ErrUnsupported, len(g.a.b))
	}
	for _, r := range g.refs {
		g.a.patch(r.pos, start[r.tbl]+r.off)
	}
	return nil
}

// ripRef is a RIP-relative displacement at pos (ending its instruction)
// that addresses byte off of table tbl.
type ripRef struct{ pos, tbl, off int }

// ref records that the instruction just emitted addresses byte off of
// table tbl.
func (g *gen) ref(tbl, off int) {
	g.refs = append(g.refs, ripRef{g.a.pc() - 4, tbl, off})
}

// rip is the placeholder operand of a RIP-relative reference.
var rip = mem{base: noReg, index: noReg}

func (g *gen) fail(format string, a ...any) {
	if g.err == nil {
		g.err = fmt.Errorf("%w: "+format, append([]any{ErrUnsupported}, a...)...)
	}
}

// d32 checks that an operand displacement fits 32 bits.
func (g *gen) d32(x int64) int32 {
	if x < math.MinInt32 || x > math.MaxInt32 {
		g.fail("displacement %d does not fit 32 bits", x)
		return 0
	}
	return int32(x)
}

func (g *gen) alloc() reg {
	for _, r := range pool {
		if !g.used[r] {
			g.used[r] = true
			return r
		}
	}
	g.fail("loops nested too deeply")
	return pool[0]
}

// tryAlloc is alloc for code that has another way when the pool is
// empty: it reports false instead of failing the program.
func (g *gen) tryAlloc() (reg, bool) {
	for _, r := range pool {
		if !g.used[r] {
			g.used[r] = true
			return r, true
		}
	}
	return 0, false
}

// freeRegs is the number of pool registers not in use.
func (g *gen) freeRegs() int {
	n := 0
	for _, r := range pool {
		if !g.used[r] {
			n++
		}
	}
	return n
}

func (g *gen) free(rs ...reg) {
	for _, r := range rs {
		g.used[r] = false
	}
}

// flush adds the pending packed offset to RSI.
func (g *gen) flush() {
	if g.po != 0 {
		g.a.addImm(rsi, g.d32(g.po))
		g.po = 0
	}
}

// moves lists the (offset, width) moves copying exactly L bytes: the
// widest allowed width not above L, repeated, the last one overlapping
// the one before it when L is not a multiple.
func (g *gen) moves(L int64) (w int64, n int64) {
	for _, x := range [...]int64{64, 32, 16, 8, 4, 2, 1} {
		if x <= int64(g.vec) && x <= L {
			w = x
			break
		}
	}
	n = L / w
	if L%w != 0 {
		n++
	}
	return w, n
}

// long reports whether a block of L bytes is copied by a loop.
func (g *gen) long(L int64) bool { return L > int64(8*g.vec) }

// move copies w bytes between memory m and packed operand p.
func (g *gen) move(w int64, m, p mem) {
	src, dst := m, p
	if !g.pack {
		src, dst = p, m
	}
	if w <= 8 {
		g.a.load(int(w), rax, src)
		g.a.store(int(w), dst, rax)
		for range g.rep { // throttleOf (pack only)
			g.a.store(int(w), dst, rax)
		}
		return
	}
	x := g.xr
	g.xr = (g.xr + 1) % 4
	g.a.vmove(true, int(w), x, src, g.vex)
	g.a.vmove(false, int(w), x, dst, g.vex)
}

// block copies the L contiguous bytes at memory mb+mo, packed at RSI+po.
func (g *gen) block(mb reg, mo, L int64) {
	if far(mo) {
		r := g.rebase(mb, mo)
		g.block(r, 0, L)
		g.free(r)
		return
	}
	if !g.pack && g.vec == 64 && L > unpackNarrowMin && L <= unpackNarrowMax {
		g.vec = 32
		defer func() { g.vec = 64 }()
	}
	po := g.po
	g.po += L
	if !g.long(L) {
		if g.pf != 0 && !g.pack && g.pfw {
			for o := int64(0); o < L; o += 64 {
				g.prefetchLines(at(mb, g.d32(mo+o)), 64)
			}
		}
		w, n := g.moves(L)
		for i := int64(0); i < n; i++ {
			o := min(i*w, L-w)
			g.move(w, at(mb, g.d32(mo+o)), at(rsi, g.d32(po+o)))
		}
		return
	}
	if g.nt && g.pack && g.vec >= 32 && L >= ntBlockMin && g.blockNT(mb, mo, L, po, true) {
		return
	}
	if g.erms && L >= repBlockMin && g.blockRep(mb, mo, L, po) {
		return
	}
	if g.pack && g.vec >= 32 && L >= max(alignBlockMin, 128+4*int64(g.vec)) && g.blockNT(mb, mo, L, po, false) {
		return
	}
	// a loop of four vector moves per iteration, RDX counting up to 0
	// from minus the bytes it copies, then vector moves for the rest,
	// the last one overlapping
	w := int64(g.vec)
	step := 4 * w
	main := L / step * step
	g.a.movImm(rdx, g.d32(-main))
	top := g.a.pc()
	mm := mem{base: mb, index: rdx, disp: g.d32(mo + main)}
	pm := mem{base: rsi, index: rdx, disp: g.d32(po + main)}
	src, dst := mm, pm
	if !g.pack {
		src, dst = pm, mm
	}
	g.prefetchLines(mm, step)
	for k := range 4 {
		s := src
		s.disp += int32(k) * int32(w)
		g.a.vmove(true, int(w), k, s, g.vex)
	}
	for k := range 4 {
		d := dst
		d.disp += int32(k) * int32(w)
		g.a.vmove(false, int(w), k, d, g.vex)
	}
	g.a.addImm(rdx, int32(step))
	g.a.jcc(condNE, top)
	for o := main; o < L; o += w {
		o := min(o, L-w)
		g.move(w, at(mb, g.d32(mo+o)), at(rsi, g.d32(po+o)))
	}
}

// alignBlockMin is the least block a pack copies with its stores aligned
// to lines (blockNT without non-temporal stores): the packed offsets of
// blocks whose length is not a multiple of 64 fall anywhere in a line,
// and a loop of unaligned 64-byte stores then splits nearly every store
// over two lines. Measured in one process, samples interleaved
// (TestABAlign with DDT_JIT_AB_ALIGN=1, four runs, docs/interpose-bench.md
// "Long blocks"), with repBlockMin: pack of strided rows of 776 bytes
// 1.03-1.21x as fast, 1,032 bytes 1.07-1.09x, 2,896 (L5a M) 1.05-1.16x,
// rows of 408, 520, 1,024 and 4,096 bytes 0.97-1.05x; unpack is not
// changed. DDT_JIT_ALIGNMIN=bytes sets it (for measurements). On AMD's
// cores it is off (alignMinDefault).
var alignBlockMin = envInt("DDT_JIT_ALIGNMIN", alignMinDefault())

// alignMinDefault is alignBlockMin: 512 bytes, or no block at all on
// AMD's cores, where the plain loop of unaligned 64-byte stores packed
// as fast or faster. Measured on an AMD EPYC of family 26 (2026-11-27):
// TestABAlign (1 MB of rows, samples interleaved) aligned / plain 0.96-0.98x
// on rows of 520 to 1,544 bytes and 0.98-1.02x on the others; in the
// library preloaded (3 processes per setting, PMPI time / library time)
// NAS_MG_z M's pack (64 rows of 1 KiB, 1,040 bytes apart) 0.97x of Open
// MPI's speed aligned and 1.27-1.28x plain, 2.20-2.22x and 2.88x of
// MPICH's; L5a M, L5b M, MILC_su3_zd M, NAS_MG_x/y M within 0.02 either
// way; `ddt bench --type` on NAS_MG_z M's rows 74 GB/s aligned, 93 plain.
// Over the cells whose code changes (5 rounds, old and new library in one
// run): NAS_MG_z M pack 0.98-0.99x -> 1.26-1.28x of Open MPI, L5b L 1.06x
// -> 1.25x and 2.62x -> 3.35x of MPICH; MILC_su3_zd S (16 blocks of 768
// bytes) lost 7 ns of 77 (MPICH 11.6x -> 10.6-10.9x, Open MPI 1.59-1.73x
// -> 1.50-1.64x); the others within 0.05.
func alignMinDefault() int64 {
	if hostAMD() {
		return 1 << 62
	}
	return 512
}

// repBlockMin is the least block copied with REP MOVSB where the CPU has
// ERMS (blockRep), pack and unpack: from about 4 KiB the CPU's string
// copy moves whole lines faster than a loop of vector moves (glibc's
// memcpy, which MPI libraries call for such blocks, does the same).
// Measured as alignBlockMin: rows of 16 KiB 1.01-1.08x as fast (pack)
// and 1.01-1.14x (unpack), of 8 KiB 0.99-1.15x, runs of 192 KiB
// 1.01-1.06x; with the threshold at 1 or 2 KiB, unpack of rows of
// 1,024-2,896 bytes ran at 0.68-0.92x. DDT_JIT_REPMIN=bytes sets it.
// On AMD's cores it is 2 KiB (glibc's memcpy there switches at 2,112
// bytes): MILC_su3_zd M's blocks of 3,072 bytes, the library preloaded,
// 3 processes each, packed and unpacked at 0.82/0.75x of Open MPI's
// speed with the vector loop and 1.05/1.08x with REP MOVSB (not aligned,
// below), MPICH 3.85/4.76x and 4.57/7.39x; L5a M's rows of 2,896 bytes
// 1.01/0.98x and 1.01/1.00x (2026-11-27, an AMD EPYC of family 26).
var repBlockMin = envInt("DDT_JIT_REPMIN", repMinDefault())

func repMinDefault() int64 {
	if hostAMD() {
		return 2048
	}
	return 4096
}

// repAlign: blockRep aligns the destination to a line before its REP
// MOVSB (DDT_JIT_REPALIGN=0 turns it off, =1 on, for measurements). Not
// on AMD's cores, where the plain REP MOVSB ran faster on every long-row
// cell tried (the library preloaded, 3 processes each, pack/unpack
// against Open MPI): L5a L 0.88/0.89x aligned, 1.04/1.05x not; WRF_y_vec
// L 0.93/0.94x and 1.04/1.03x; FFT2D.send L 0.97/0.91x and 1.03/1.06x;
// NAS_MG_y L 1.01/1.00x and 1.04/1.04x; against MPICH L5a L 1.08/1.26x
// and 1.32/1.33x (2026-11-27).
var repAlign = os.Getenv("DDT_JIT_REPALIGN") == "1" || os.Getenv("DDT_JIT_REPALIGN") != "0" && !hostAMD()

// blockRep copies the L bytes of a long block with REP MOVSB, which takes
// its operands in RSI, RDI and RCX: those three are saved in pool
// registers around it. It returns false, having emitted nothing, when
// the pool has fewer than three free registers.
func (g *gen) blockRep(mb reg, mo, L, po int64) bool {
	var sv [3]reg
	n := 0
	for _, r := range pool {
		if n < 3 && !g.used[r] {
			sv[n] = r
			n++
		}
	}
	if n < 3 || L > math.MaxInt32 {
		return false
	}
	rs, rd, rc := sv[0], sv[1], sv[2]
	g.used[rs], g.used[rd], g.used[rc] = true, true, true
	g.a.movRR(rs, rsi)
	g.a.movRR(rd, rdi)
	g.a.movRR(rc, rcx)
	if mb == rdi {
		mb = rd
	}
	m, p := at(mb, g.d32(mo)), at(rs, g.d32(po))
	if g.pack {
		g.a.lea(rsi, m)
		g.a.lea(rdi, p)
	} else {
		g.a.lea(rsi, p)
		g.a.lea(rdi, m)
	}
	if repAlign && L >= 128 && g.vec >= 16 {
		// the destination aligned to a line, as glibc's memcpy does
		// before its REP MOVSB: the first 64 bytes by vector moves,
		// then REP MOVSB from the first line boundary after the
		// destination (delta = 1..64 bytes in)
		w := g.vec
		for o := 0; o < 64; o += w {
			g.a.vmove(true, w, o/w, at(rsi, int32(o)), g.vex)
		}
		for o := 0; o < 64; o += w {
			g.a.vmove(false, w, o/w, at(rdi, int32(o)), g.vex)
		}
		g.a.lea(rdx, at(rdi, 64))
		g.a.andImm(rdx, -64)
		g.a.subRR(rdx, rdi) // delta
		g.a.addRR(rsi, rdx)
		g.a.addRR(rdi, rdx)
		g.a.movImm(rcx, int32(L))
		g.a.subRR(rcx, rdx)
	} else {
		g.a.movImm(rcx, int32(L))
	}
	g.a.repMovsb()
	g.a.movRR(rsi, rs)
	g.a.movRR(rdi, rd)
	g.a.movRR(rcx, rc)
	g.free(rs, rd, rc)
	return true
}

// Unpack copies blocks of more than unpackNarrowMin and at most
// unpackNarrowMax bytes with 32-byte moves, not 64-byte ones. Measured in
// one process, each width's samples interleaved (TestAB with
// DDT_JIT_AB_WIDTHS=1, two runs; docs/interpose-bench.md, "Engine
// losses, second pass"), unpack of strided rows with 32-byte moves
// against 64-byte ones: rows of 408 bytes (L5b M, 51 doubles) 1.09-1.11x
// as fast, 816 bytes 1.14x, 520 and 1000 bytes 1.01-1.06x, 1024 bytes
// 1.01-1.03x; but 128-byte blocks (L8 M) 0.92-0.95x, rows of 2896 and
// 4096 bytes 0.93-1.02x, 192 and 200 bytes 0.98-1.00x, so the band stops
// there. Pack keeps 64-byte moves (no gain measured). With the library
// preloaded, L5b M unpack on MPICH ran at 0.78-0.84x of MPICH's speed
// with 64-byte moves and 0.95-1.05x with DDT_JIT_VEC=32.
const (
	unpackNarrowMin = 256
	unpackNarrowMax = 1024
)

// prefetchLines emits, when a prefetch distance is set, one PREFETCHW
// per 64-byte line of the step bytes from memory operand m on, g.pf bytes
// ahead: unpack only (the destination's lines are then owned before the
// stores reach them), where the CPU has PREFETCHW and the displacement
// fits 32 bits.
func (g *gen) prefetchLines(m mem, step int64) {
	if g.pf == 0 || g.pack || !g.pfw {
		return
	}
	for k := int64(0); k < step; k += 64 {
		d := int64(m.disp) + k + g.pf
		if d < math.MinInt32 || d > math.MaxInt32 {
			return
		}
		p := m
		p.disp = int32(d)
		g.a.prefetchw(p)
	}
}

// Software prefetch of strided blocks. Unpack stores blocks (rows of a
// subarray, the blocks of a vector) apart from each other, and every
// line it writes is first read for ownership; measured, the hardware
// prefetchers leave part of those reads exposed. The unpack loops over
// blocks of 64 bytes to prefetchAhead therefore prefetch the destination
// prefetchAhead bytes of data ahead (rows ahead times the stride, at
// most maxPrefetchRows), the same offset in a later block, one PREFETCHW
// per line. Measured on this project's machine (bench/RESULTS.md §18):
// unpack of 128-byte and 1 KiB blocks 5-8 % faster on one goroutine, L8
// L 17 % (median) on two; pack with PREFETCHT0 of the source no faster at
// any distance, so pack has none; blocks of prefetchAhead bytes and more
// gain nothing either.
const maxPrefetchRows = 8

// prefetchAhead is how many bytes of data ahead the block loops
// prefetch (a variable for measurements).
var prefetchAhead int64 = 4096

// prefetchOn is cleared by DDT_JIT_PF=0 (for measurements).
var prefetchOn = os.Getenv("DDT_JIT_PF") != "0"

// prefetchTail: a loop of known count runs its last instances, those
// whose prefetches would fall past the loop's memory, without
// prefetches (cleared by DDT_JIT_PFTAIL=0, for measurements).
var prefetchTail = os.Getenv("DDT_JIT_PFTAIL") != "0"

// blockPrefetchMaxStride bounds the stride of the blocks whose unpack
// prefetches (a variable for measurements). Farther apart, each block's
// prefetches a few rows ahead fall on pages of their own, and they lost:
// MILC_su3_zd.recv M (32 blocks of 3,072 bytes 49,152 apart, 98 KB
// packed) took 1.28-1.39x the time of the native code without them in
// one process (C, interpose/bench/farunpack.c; docs/interpose-bench.md,
// "Far-apart doubles, unpack (far2)"), and in C at 128 to 680 such
// blocks (0.4 to 2 MB) prefetching 1 block ahead ran at 0.88-1.05x, 4
// ahead 0.58-0.94x of the plain loop, never a gain beyond 5 %. The
// gains measured (bench/RESULTS.md §18: 1 KiB rows 2 KiB apart, 128-byte
// blocks 256 apart) are all within this bound.
var blockPrefetchMaxStride int64 = 4096

// prefetchMinSpan is the least memory a loop of known count spans for
// its unpack to prefetch: below it (L8 S: 16 blocks in 4 KiB) most
// prefetches would fall past the message, and the lines are few.
const prefetchMinSpan = 64 << 10

// farPrefetchMinSpan is the least memory a loop of known count over
// elements of less than 64 bytes, each on a line of its own, spans for
// its unpack to prefetch them, maxPrefetchRows elements ahead: beyond
// the L2 cache. Measured in C on L3 L's scatter (bench/RESULTS.md §23),
// PREFETCHW 8 to 32 elements ahead took 0.66-0.69x the time, 64 ahead
// none.
const farPrefetchMinSpan = 4 << 20

// farPrefetchMaxStride bounds the stride of those elements (inclusive):
// two or more of them share a 4 KiB page. Farther apart nearly every
// element is on a page of its own, and the prefetch, walking the page
// tables a few elements ahead of the store that walks them again, lost:
// measured in C (interpose/bench/farunpack.c, in one process, samples
// interleaved; docs/interpose-bench.md, "Far-apart doubles, unpack
// (far2)"), 131,072 doubles at the stride, time of the plain loop over
// PREFETCHW 8 ahead: 256 bytes 1.16, 512 1.41, 768 1.16, 1,024
// 0.95-1.29, 1,280 1.08, 1,536 1.04; but 2,064 0.92, 2,560 0.93, 2,896
// (L3 M) 0.91-0.95 in three runs, 3,584 0.95 (3,072 1.03, 4,096 1.36:
// the powers of two and their neighbours gain, the strides between
// lose). With the library preloaded, L3 M's unpack ran at 0.80-0.93x of
// MPICH's speed with the prefetch and 0.96-1.01x without.
const farPrefetchMaxStride = 2048

// farPrefetchMinCount is the least count of a loop of such elements
// that prefetches because the loops around it span farPrefetchMinSpan
// (g.outer) while the loop itself spans less: most of its prefetches
// then still fall on its own elements. NAS_MG_x L's rows (724 doubles
// 144 bytes apart, 104 KB, in 724 rows over 75 MB) are such loops:
// PREFETCHW 8 elements ahead took 0.80x the time of the plain loop in C
// (1.25x as fast; 4 ahead 1.20x, 32 ahead 1.25x).
const farPrefetchMinCount = 4 * maxPrefetchRows

// prefetchDist is the prefetch distance for a loop over count instances
// of c (count < 0: not known when compiling, the units of an entry),
// stride bytes apart: rows ahead times the stride when c is one block of
// 64 bytes to prefetchAhead not adjacent to the next (stride beyond its
// size, at most blockPrefetchMaxStride) and the loop spans at least
// prefetchMinSpan; maxPrefetchRows
// times the stride when c is an element of less than 64 bytes, 64 to
// farPrefetchMaxStride bytes apart, and the loop (or, for a loop of
// farPrefetchMinCount or more, the loops around it: g.outer) spans at
// least farPrefetchMinSpan; else 0.
func (g *gen) prefetchDist(c *dame.Node, stride, count int64) int64 {
	if farElement(c, stride) && count >= 0 && (sat(count, stride) >= farPrefetchMinSpan ||
		count >= farPrefetchMinCount && g.outer >= farPrefetchMinSpan) {
		// small elements on lines of their own, far more than L2 holds
		// (L3 L: 2,096,704 doubles 256 bytes apart): every store's line
		// comes from memory
		return sat(maxPrefetchRows, stride)
	}
	if !prefetchOn || c.Op != dame.ContigFinal || c.Size < 64 || c.Size >= prefetchAhead || stride <= c.Size ||
		stride > blockPrefetchMaxStride {
		return 0
	}
	if count >= 0 && sat(count, stride) < prefetchMinSpan {
		return 0
	}
	rows := min((prefetchAhead+c.Size-1)/c.Size, maxPrefetchRows)
	return sat(rows, stride)
}

// farElement reports whether c is an element of less than 64 bytes, 64
// to farPrefetchMaxStride bytes from the next, as the far rule of
// prefetchDist wants (its span aside).
func farElement(c *dame.Node, stride int64) bool {
	return prefetchOn && c.Op == dame.ContigFinal && c.Size < 64 && stride >= farPrefetchMinStride && stride <= farPrefetchMaxStride
}

// farPrefetchMinStride is the least stride of farElement's elements: a
// line. On AMD's cores more than a line: elements on adjacent lines are
// one stream the hardware prefetcher follows, and the prefetches only
// cost there. WRF_x L (66,560 blocks of 12 bytes 64 apart, 4.3 MB), the
// library preloaded, 3 processes each, unpacked at 0.79x of MPICH's speed
// and 1.02x of Open MPI's with them, 1.10x and 1.47x without
// (DDT_JIT_PF=0); the far rule's other cells on that machine (L1 L, L2
// M/L, L3 M/L, NAS_MG_x M/L: strides of 144 to 2,896 bytes) moved by -6
// to +6 % without prefetches, so they keep them (2026-11-27, an AMD EPYC
// of family 26).
var farPrefetchMinStride = func() int64 {
	if hostAMD() {
		return 65
	}
	return 64
}()

// farUnits: an entry over units of a far element (farElement) whose
// count is not known when compiling, each a type's instance (L2:
// 2,097,152 doubles 192 bytes apart), gets the far rule at run time: a
// first loop with the prefetches for calls whose units span
// farPrefetchMinSpan or more, the plain loop for the others; its calls
// move up to farUnitsMin units, not chunkBytes of packed data (which
// at 8 bytes a unit never reached the span). DDT_JIT_FARUNITS=0 turns it
// off, for measurements.
var farUnits = os.Getenv("DDT_JIT_FARUNITS") != "0"

// farUnitsMin is the least count of units stride bytes apart that spans
// farPrefetchMinSpan; the calls of such an entry move that many units at
// most (its perI; chunkBytes of packed data for other entries).
func farUnitsMin(stride int64) int64 { return (farPrefetchMinSpan + stride - 1) / stride }

// Pack of single 8-byte elements far apart (throttleOf). Each element's
// load misses the TLB (two elements or fewer per 4 KiB page), and the
// out-of-order core, with one load and one store per element, keeps
// about as many elements in flight as its store buffer holds: over a
// hundred page walks at once, which on this project's machine (a KVM
// guest on a Xeon of family 6 model 207, 4 KiB pages) ran slower than
// fewer. Storing each element three times to its packed place (the two
// repeats hit the line the first store owns) bounds the elements in
// flight by the store buffer at a third. Measured in C, in one process,
// samples interleaved, 16,384 doubles (NAS_MG_x M's layout at other
// strides), time of one load and one store over three stores: stride
// 2,064 bytes (NAS_MG_x M) 1.36-1.50x in four runs, 2,896 0.97-1.37,
// 3,072 1.28, 4,096 1.43, 16,384 1.25, 2,048 1.06; but 1,024 1.01, 512
// 0.94, 256 0.92, so the rule starts at half a page. Two stores gained
// less (1.26-1.37 at 2,064), four as much as three, six less. Open MPI's
// pack, a function call per element, ran at 1.10-1.14x the plain loop,
// so the library lost to it there (0.81-0.89x); with the repeats it wins
// (docs/interpose-bench.md, "Pack cells below 1, third pass"). Where the
// page tables themselves miss the caches (L3 M: 131,044 doubles 2,896
// bytes apart over 380 MB) the repeats change nothing measurable (0.94x
// against 0.94x of MPICH's speed, in one process). Unpack is not
// changed (no loss measured there).
const (
	throttleMinStride = 2048
	throttleMaxStride = 16384
	throttleRepeats   = 2
)

// throttleMaxElems bounds the elements a call packs with the repeats
// (the loop's count times g.nest): L3 M's 131,044 doubles 2,896 bytes
// apart (380 MB, the page tables themselves beyond the caches) packed
// at 0.84-0.93x of MPICH's speed with the repeats and 0.99-1.00x without
// (three rounds each, one process per setting, the library preloaded;
// on Open MPI the library's own time 7-10 % lower without), and in C
// (interpose/bench/farunpack.c) three stores ran at 0.92-0.96x the speed
// of one in four runs; NAS_MG_x M's 16,384 doubles, where the repeats
// were measured to gain, and farpack.c's 16,384 at 16 KiB apart stay
// under it (docs/interpose-bench.md, "Far-apart doubles, unpack
// (far2)").
const throttleMaxElems = 65536

// throttleOf is the repeated stores (move) of pack for count instances
// of c stride bytes apart (count < 0: not known): throttleRepeats for
// single 8-byte elements throttleMinStride to throttleMaxStride bytes
// apart, at most throttleMaxElems of them per call as far as known,
// else 0. DDT_JIT_THROTTLE=0 turns it off (for measurements).
func (g *gen) throttleOf(c *dame.Node, stride, count int64) int {
	if !g.pack {
		return unpackThrottleOf(c, stride, count, g.nest)
	}
	if !throttleOn || c.Op != dame.ContigFinal || c.Size != 8 {
		return 0
	}
	if s := max(stride, -stride); s < throttleMinStride || s > throttleMaxStride {
		return 0
	}
	if sat(max(g.nest, 1), max(count, 1)) > throttleMaxElems {
		return 0
	}
	return throttleRepeats
}

// throttleOn is cleared by DDT_JIT_THROTTLE=0.
var throttleOn = os.Getenv("DDT_JIT_THROTTLE") != "0"

// Unpack of single elements of 8 bytes or less at strides of 1, 2, 3 or 4
// KiB, on AMD's cores. Each store goes to a line of its own, and the
// lines fall on a few sets of the first-level cache (a quarter of them
// at 1 KiB, one at 4 KiB); a plain loop of one load and one store per
// element ran 2-4x slower there than the same loop storing each element
// four times, which keeps fewer lines in flight (measured in C on this
// project's machine, an AMD EPYC of family 26, 2026-11-27, best of 100
// runs, ns per element: 4-byte elements 1 KiB apart 2.85 with one store,
// 0.75 with four; 8-byte 2 KiB apart 3.96 and 0.76, 1 KiB 1.70 and 0.90,
// 4 KiB 9.7 and 5.9; at 2,064, 512 and 192 bytes the repeats lost, 0.53
// against 0.73 at 2,064). Open MPI and MPICH, a call or a loop turn per
// element, ran 0.4-0.6x of the library's time on L4a-c S's columns (255
// ints 1 KiB apart) before. Intel's cores were not measured with it: the
// rule is AMD's only. DDT_JIT_UNTHROTTLE=0 turns it off.
const (
	unpackThrottleMinStride = 1024
	unpackThrottleMaxStride = 4096
	unpackThrottleRepeats   = 3
)

// unpackThrottleOn is the rule's switch: AMD only, and not
// DDT_JIT_UNTHROTTLE=0 (a variable for tests).
var unpackThrottleOn = hostAMD() && os.Getenv("DDT_JIT_UNTHROTTLE") != "0"

// unpackThrottleOf is the repeated stores of unpack for count instances
// of c stride bytes apart inside loops running nest times (count < 0: not
// known): unpackThrottleRepeats for elements of at most 8 bytes at a
// stride that is a multiple of 1 KiB from unpackThrottleMinStride to
// unpackThrottleMaxStride, at most throttleMaxElems of them per call as
// far as known; else 0.
func unpackThrottleOf(c *dame.Node, stride, count, nest int64) int {
	if !unpackThrottleOn || c.Op != dame.ContigFinal || c.Size > 8 {
		return 0
	}
	if s := max(stride, -stride); s%1024 != 0 || s < unpackThrottleMinStride || s > unpackThrottleMaxStride {
		return 0
	}
	if sat(max(nest, 1), max(count, 1)) > throttleMaxElems {
		return 0
	}
	return unpackThrottleRepeats
}

// gathers reports whether instances of c, stride bytes apart, pack by
// gather8: single 8-byte elements, not contiguous, less than
// gatherMaxStride apart, with vector registers of at least 32 bytes.
func (g *gen) gathers(c *dame.Node, stride int64) bool {
	return g.pack && g.vex && !g.noGather && c.Op == dame.ContigFinal && c.Size == 8 && stride != 8 &&
		stride < gatherMaxStride && stride > -gatherMaxStride && !far(64*stride)
}

// gatherMaxStride bounds the stride of gathered elements. Farther apart
// (NAS_MG_x: doubles 2064 bytes apart, L3 M: 2896) every element is on a
// line and nearly a page of its own, the loads miss, and scalar moves
// (one load and one store each) measured faster than the groups of
// gather8: NAS_MG_x M pack 1.10x, L3 M 1.08x (bench/RESULTS.md §20);
// MPICH and Open MPI move such elements one by one too. The gathers'
// gain is on elements a few per line or page (L1: 192 bytes apart).
// DDT_JIT_GATHERMAX=N sets it (for measurements).
var gatherMaxStride = envInt("DDT_JIT_GATHERMAX", 1024)

// envInt is the integer in environment variable k, else def.
func envInt(k string, def int64) int64 {
	if v, err := strconv.ParseInt(os.Getenv(k), 10, 64); err == nil && v > 0 {
		return v
	}
	return def
}

// gather8 packs k 8-byte elements, element i at memory mb+mo+i*stride,
// into the packed bytes at RSI+po on. Groups of vec/8 elements are
// assembled in one vector register and stored with one move, a fourth or
// an eighth of the stores of scalar moves (the stores bound the pack of
// strided elements); a pair left over is one 16-byte store, a last
// element a scalar move. Only vector registers 0-3 are used.
//
// A group of four is built without shuffles (quad): VMOVSD loads the
// first element, and each other one is a VBROADCASTSD load (no shuffle
// port) and a VBLENDPD into its lane (any vector ALU port); a group of
// eight joins two such quads with one VINSERTF64X4. The VMOVHPD and
// VINSERTF128 of the pairs (blendGather off) are all shuffles, which run
// on one port: 7 per 8 elements, and that port, not the loads or the
// stores, bounded the pack of elements in L1 (L1 S, L2 S: 1.56-1.65x
// the time of the blends, bench/RESULTS.md §23).
func (g *gen) gather8(mb reg, mo, stride, k int64) {
	G := int64(g.vec / 8)
	el := func(i int64) mem { return at(mb, g.d32(mo+i*stride)) }
	pair := func(x int, i int64) {
		g.a.loadLow(x, el(i))
		g.a.loadHigh(x, el(i+1))
	}
	quad := func(x int, i int64) {
		if !blendGather {
			pair(x, i)
			pair(x+1, i+2)
			g.a.insertHigh(32, x, x+1)
			return
		}
		g.a.loadLow(x, el(i))
		for j := int64(1); j < 4; j++ {
			g.a.broadcast8(x+1, el(i+j))
			g.a.blend8(x, x+1, 1<<j)
		}
	}
	i := int64(0)
	for ; i+G <= k; i += G {
		quad(0, i)
		if G == 8 {
			quad(2, i+4)
			g.a.insertHigh(64, 0, 2)
		}
		g.a.vmove(false, int(8*G), 0, at(rsi, g.d32(g.po)), true)
		g.po += 8 * G
	}
	for ; i+2 <= k; i += 2 {
		pair(0, i)
		g.a.vmove(false, 16, 0, at(rsi, g.d32(g.po)), true)
		g.po += 16
	}
	if i < k {
		g.block(mb, mo+i*stride, 8)
	}
}

// fitsL1 reports whether gather8 suits count elements stride bytes
// apart, by the L1 data cache they pass through (64 sets of 64-byte
// lines; 8 ways assumed, a 32 KiB L1). Elements at least 64 bytes apart
// whose stride is a multiple of 256 use only 4096/gcd(stride, 4096) of
// the sets, at most 16; when there are more of them than those sets
// hold, every line comes from L2 or farther on each call, and there
// scalar moves measured faster than gather8 (L3 S, 1,024 doubles 256
// bytes apart: 0.92-0.94x the time; 4,096 of them 0.95x; bench/RESULTS.md
// §23). Elements spread over all 64 sets gather faster than scalar moves
// in L1, L2 and memory alike (192 and 320 bytes apart: 1.09-1.27x), as
// do elements that share lines.
func fitsL1(count, stride int64) bool {
	if stride < 0 {
		stride = -stride
	}
	if stride < 64 || count <= 0 || !fitsL1On {
		return true
	}
	g := int64(4096)
	for a := stride % 4096; a != 0; g, a = a, g%a {
	}
	sets := 4096 / g
	return sets > 16 || count <= sets*l1Ways
}

// l1Ways is the associativity fitsL1 assumes (8: a 32 KiB L1).
const l1Ways = 8

// fitsL1On is cleared by DDT_JIT_FITL1=0 (for measurements: gathers
// whatever the sets, the code before §23).
var fitsL1On = os.Getenv("DDT_JIT_FITL1") != "0"

// blockUnits tells the next entry how many units its calls move in all
// (the blocks of the strided loop it is the block entry of).
func (g *gen) blockUnits(n int64) { g.units = n }

// blendGather is cleared by DDT_JIT_BLEND=0 (for measurements: gather8's
// groups of VMOVHPD pairs joined by VINSERTF128, the code before §23).
var blendGather = os.Getenv("DDT_JIT_BLEND") != "0"

// cost estimates the moves of one instance of n, capped.
func (g *gen) cost(n *dame.Node) int64 {
	switch n.Op {
	case dame.ContigFinal:
		if g.long(n.Size) {
			return 12
		}
		_, k := g.moves(n.Size)
		return k
	case dame.Contig:
		return sat(n.Count, g.cost(n.Child))
	case dame.Vector:
		return sat(n.Count, g.runCost(n.Blocklen, n.Child))
	}
	if n.Op == dame.BlockIndex {
		return sat(int64(len(n.Disps)), g.runCost(n.Blocklen, n.Child))
	}
	if s, ok := g.costs[n]; ok {
		return s
	}
	var s int64
	for i := range n.Disps {
		s = min(maxCost, s+g.runCost(n.BlockLen(i), n.ChildOf(i)))
	}
	if g.costs == nil {
		g.costs = map[*dame.Node]int64{}
	}
	g.costs[n] = s
	return s
}

const maxCost = 1 << 40

// runCost estimates the moves of run(k, c).
func (g *gen) runCost(k int64, c *dame.Node) int64 {
	if c.Op == dame.ContigFinal && c.Extent == c.Size {
		return g.cost(&dame.Node{Op: dame.ContigFinal, Size: sat(k, c.Size)})
	}
	return sat(k, g.cost(c))
}

// sat multiplies non-negative numbers, saturating.
func sat(a, b int64) int64 {
	if a != 0 && b > maxCost/a {
		return maxCost
	}
	return min(a*b, maxCost)
}

// node emits one instance of n whose origin is at memory mb+mo.
func (g *gen) node(n *dame.Node, mb reg, mo int64) {
	if g.err != nil || len(g.a.b) > maxCode {
		g.fail("code too large")
		return
	}
	if far(mo) {
		r := g.rebase(mb, mo)
		g.node(n, r, 0)
		g.free(r)
		return
	}
	if s := g.shapes[n]; s != nil {
		g.compact(s, n, mb, mo)
		return
	}
	walkNode[reg](g, n, mb, mo)
}

// farOff bounds the memory offsets the code uses as constant
// displacements (a node's origin; the moves inside a unit add less than
// 2^31 - farOff): an origin farther from its base register (displacements
// beyond 32 bits, seen from the unit's origin) gets a register of its own,
// its address computed with a 64-bit constant (rebase).
const farOff = 1 << 30

// far reports whether memory offset mo is beyond farOff.
func far(mo int64) bool { return mo < -farOff || mo > farOff }

// rebase returns a new pool register holding the address mb+mo (far).
func (g *gen) rebase(mb reg, mo int64) reg {
	r := g.alloc()
	g.setAddr(r, mb, mo)
	return r
}

// setAddr sets r to the address mb+mo (through a 64-bit constant when mo
// is far).
func (g *gen) setAddr(r, mb reg, mo int64) {
	if far(mo) {
		g.a.movImm64(r, mo)
		g.a.addRR(r, mb)
		return
	}
	g.a.lea(r, at(mb, int32(mo)))
}

// addConst adds v to r: an immediate when it fits 32 bits, else through
// RAX (scratch between moves).
func (g *gen) addConst(r reg, v int64) {
	if v == int64(int32(v)) {
		g.a.addImm(r, int32(v))
		return
	}
	g.a.movImm64(rax, v)
	g.a.addRR(r, rax)
}

// run emits k instances of c, c.Extent apart, the first at mb+mo.
func (g *gen) run(k int64, c *dame.Node, mb reg, mo int64) {
	walkRun[reg](g, k, c, mb, mo)
}

// list emits the blocks of a BlockIndex, Index or Struct node: unrolled
// with their displacements as constants when short, otherwise (equal
// blocks only) a loop over a table of displacements.
func (g *gen) list(n *dame.Node, mb reg, mo int64) {
	nb := len(n.Disps)
	if nb <= maxWalkBlocks || g.cost(n) <= maxUnrollLst {
		for i := range nb {
			g.run(n.BlockLen(i), n.ChildOf(i), mb, mo+n.Disps[i])
		}
		return
	}
	if n.Op == dame.Index {
		g.indexList(n, mb, mo)
		return
	}
	if n.Op != dame.BlockIndex {
		g.fail("%s of %d blocks", n.Op, nb)
		return
	}
	if !g.pack && !far(mo) {
		if st := sortRule.UnpackOrder(n); st != nil {
			g.sortedList(n, st, mb, mo)
			return
		}
	}
	g.flush()
	rt, rm, rc := g.alloc(), g.alloc(), g.alloc()
	g.a.lea(rt, rip)
	g.ref(g.dispTable(n), 0)
	u := g.listUnroll(n)
	g.a.movImm(rc, g.d32(int64(nb)/u))
	top := g.a.pc()
	g.tableBlocks(n, rt, rm, mb, mo, u)
	g.flush()
	g.a.addImm(rt, g.d32(8*u))
	g.a.dec(rc)
	g.a.jcc(condNE, top)
	g.tableBlocks(n, rt, rm, mb, mo, int64(nb)%u)
	g.flush()
	g.free(rt, rm, rc)
}

// sortRule is the displacement-sorting rule of unpack (a variable for
// tests, which lower its bounds): the compiled engine's
// (dame.HostSortRule; none on AMD's cores unless DDT_SORT=1).
var sortRule = dame.HostSortRule(hostAMD())

// sortedList emits the unpack of all blocks of the BlockIndex n, whose
// sorted order st is (sortRule): a loop over a table of (displacement,
// packed offset) pairs in ascending displacement, up to 8 blocks per
// iteration, each block one load from RSI plus its packed offset (RDX)
// and one store to mb+mo plus its displacement. The blocks are 4 or 8
// bytes (sortRule.Lengths) and do not overlap (UnpackOrder), so the bytes
// written are those of list order. Sorting is the compiled engine's rule
// (internal/engine: its plans unpack such lists sorted, and Select keeps
// a root list that fires on the compiled engine); the generated code
// followed list order for lists below the root. Measured in one process
// (TestTierAB, LAMMPS_full.send L: 65,536 random single doubles out of
// 2 MB arrays below a struct): native unpack took 1.19 ms against the
// compiled engine's 0.90 ms; writing each cache line once, in order,
// instead of visiting it again and again, is the gain.
func (g *gen) sortedList(n *dame.Node, st *dame.Sorted, mb reg, mo int64) {
	g.flush()
	L := n.Blocklen * n.Child.Size
	nb := int64(len(n.Disps))
	rt, rm, rc := g.alloc(), g.alloc(), g.alloc()
	g.a.lea(rt, rip)
	g.ref(g.sortedTable(n, st), 0)
	blocks := func(k int64) {
		for j := range k {
			g.a.load(8, rm, at(rt, g.d32(16*j)))
			g.a.load(8, rdx, at(rt, g.d32(16*j+8)))
			g.a.load(int(L), rax, mem{base: rsi, index: rdx})
			g.a.store(int(L), mem{base: mb, index: rm, disp: g.d32(mo)}, rax)
		}
	}
	const u = 8
	if nb >= u {
		g.a.movImm(rc, g.d32(nb/u))
		top := g.a.pc()
		blocks(u)
		g.a.addImm(rt, 16*u)
		g.a.dec(rc)
		g.a.jcc(condNE, top)
	}
	blocks(nb % u)
	g.po += n.Size
	g.free(rt, rm, rc)
}

// sortedEntry emits a function unpacking one whole instance of the
// BlockIndex n, whose sorted order is st, at RDI from the packed bytes at
// RSI (RCX is not read): the walk's call for a whole list above the units
// (LAMMPS: lists of 512 KB packed below a struct), whose block entries
// follow list order.
func (g *gen) sortedEntry(n *dame.Node, st *dame.Sorted) int {
	start := g.a.pc()
	g.po = 0
	g.sortedList(n, st, rdi, 0)
	g.po = 0
	g.ret()
	return start
}

// sortedTable returns the table of the sorted order st of n: per block in
// ascending displacement, its displacement and its packed offset, 8
// bytes each (one per node).
func (g *gen) sortedTable(n *dame.Node, st *dame.Sorted) int {
	if i, ok := g.sortedOf[n]; ok {
		return i
	}
	tb := make([]byte, 0, 16*len(st.Disps))
	for i, d := range st.Disps {
		tb = binary.LittleEndian.AppendUint64(tb, uint64(d))
		tb = binary.LittleEndian.AppendUint64(tb, uint64(st.Packed[i]))
	}
	g.tables = append(g.tables, tb)
	if g.sortedOf == nil {
		g.sortedOf = map[*dame.Node]int{}
	}
	g.sortedOf[n] = len(g.tables) - 1
	return len(g.tables) - 1
}

// listUnroll is how many blocks of the BlockIndex n one iteration of its
// table loop moves: up to 8 when a block is a few moves (SPECFEM3D_oc:
// single floats, LAMMPS: one to three doubles), so that the loop's
// counting and the table pointer's increment are paid once per 8 blocks.
// With tableBlocks' indexed operands a single float is 3 instructions
// (8 before); measured: SPECFEM3D_oc M pack 1.25x, LAMMPS_full L pack
// 1.12-1.19x, and in C the old loop took 1.17x the time of gcc's loop
// over the same list (MPICH's), the new one the same (bench/RESULTS.md
// §20).
func (g *gen) listUnroll(n *dame.Node) int64 {
	if !listUnrollOn {
		return 1
	}
	return unroll(g.runCost(n.Blocklen, n.Child), int64(len(n.Disps)))
}

// listUnrollOn is cleared by DDT_JIT_LISTUNROLL=0 (for measurements: one
// block per iteration, the memory address computed in a register, as
// before).
var listUnrollOn = os.Getenv("DDT_JIT_LISTUNROLL") != "0"

// tableBlocks emits k blocks of the BlockIndex n whose displacements are
// the table entries at rt on, their memory at mb+mo plus the entry (rm:
// a scratch pool register).
func (g *gen) tableBlocks(n *dame.Node, rt, rm, mb reg, mo, k int64) {
	if c := n.Child; listUnrollOn && c.Op == dame.ContigFinal && c.Extent == c.Size && !g.long(sat(n.Blocklen, c.Size)) && !far(mo) {
		// a block of a few moves: the entry indexes the memory operands
		// (no address computed in a register of its own)
		L := n.Blocklen * c.Size
		w, m := g.moves(L)
		for j := int64(0); j < k; j++ {
			g.a.load(8, rm, at(rt, g.d32(8*j)))
			for i := int64(0); i < m; i++ {
				o := min(i*w, L-w)
				g.move(w, mem{base: mb, index: rm, disp: g.d32(mo + o)}, at(rsi, g.d32(g.po+o)))
			}
			g.po += L
		}
		return
	}
	for j := int64(0); j < k; j++ {
		g.a.load(8, rm, at(rt, g.d32(8*j)))
		g.a.addRR(rm, mb)
		g.run(n.Blocklen, n.Child, rm, mo)
	}
}

// dispTable returns the table of n's displacements (one per node).
func (g *gen) dispTable(n *dame.Node) int {
	return g.table(n, func() []byte { return dispBytes(n) })
}

// tableEntry emits a function moving RCX whole blocks of the BlockIndex
// n, from block R8 on, of the instance whose origin is at RDI.
func (g *gen) tableEntry(n *dame.Node) int {
	start := g.a.pc()
	g.po = 0
	g.prepare(n.Child)
	g.used[r8] = true
	rt, rm := g.alloc(), g.alloc()
	g.a.lea(rt, rip)
	g.ref(g.dispTable(n), 0)
	g.a.lea(rt, mem{base: rt, index: r8, scale: 3})
	g.free(r8)
	// u blocks per iteration while at least u are left (as list), then
	// one by one
	g.countedLoop(g.listUnroll(n), func(k int64) {
		g.tableBlocks(n, rt, rm, rdi, 0, k)
		g.flush()
		g.a.addImm(rt, int32(8*k))
	})
	g.free(rt, rm)
	g.ret()
	return start
}

// countedLoop emits a loop over RCX (> 0 on entry) units counting it
// down to 0: k units per iteration while at least k = u are left (u > 1),
// then one at a time; body(k) emits k units' moves and advances its
// pointers.
func (g *gen) countedLoop(u int64, body func(k int64)) {
	rem := -1
	if u > 1 {
		g.a.cmpImm(rcx, int32(u))
		rem = g.a.jcc(condB, -1)
		top := g.a.pc()
		body(u)
		g.a.subImm(rcx, int32(u))
		g.a.cmpImm(rcx, int32(u))
		g.a.jcc(condAE, top)
		g.a.patch(rem, g.a.pc())
		g.a.testRR(rcx)
		rem = g.a.jcc(condE, -1)
	}
	top := g.a.pc()
	body(1)
	g.a.dec(rcx)
	g.a.jcc(condNE, top)
	if rem >= 0 {
		g.a.patch(rem, g.a.pc())
	}
}

// ret emits a generated function's return: a store fence after
// non-temporal stores, VZEROUPPER after 32- or 64-byte moves.
func (g *gen) ret() {
	if g.ntUsed {
		g.a.sfence()
	}
	if g.pvec > 16 {
		g.a.vzeroupper()
	}
	g.a.ret()
}

// unroll is how many copies of a body of c moves an unrolled loop
// iteration holds: a power of two up to 8.
func unroll(c, count int64) int64 {
	u := int64(1)
	for u < 8 && 2*u*max(c, 1) <= bodyMoves && 2*u <= count {
		u *= 2
	}
	return u
}

// unrollOf is unroll for count instances of c (cost cc moves), stride
// bytes apart: gathered elements go 16 per iteration (two vector
// stores), which measured a few percent faster than 8.
func (g *gen) unrollOf(c *dame.Node, stride, cc, count int64) int64 {
	if g.gathers(c, stride) && count >= 16 {
		return 16
	}
	return unroll(cc, min(count, 8))
}

// loop emits count instances of c, stride bytes apart, the first at
// mb+mo: unrolled entirely when short, otherwise a counted loop whose body
// holds a few copies.
func (g *gen) loop(count, stride int64, c *dame.Node, mb reg, mo int64) {
	defer func(r int, n int64) { g.rep, g.nest = r, n }(g.rep, g.nest)
	g.rep = g.throttleOf(c, stride, count)
	g.nest = sat(max(g.nest, 1), count) // c's nodes run count times as often
	if T := g.tileOf(c, stride, count); T > 1 {
		g.tileLoop(count, stride, T, c, mb, mo)
		return
	}
	cc := g.cost(c)
	if sat(count, cc) <= unrollMoves {
		if g.gathers(c, stride) {
			g.gather8(mb, mo, stride, count)
			return
		}
		for k := int64(0); k < count; k++ {
			g.node(c, mb, mo+k*stride)
		}
		return
	}
	defer func(ng bool) { g.noGather = ng }(g.noGather)
	if g.gathers(c, stride) && !fitsL1(count, stride) {
		g.noGather = true
	}
	u := g.unrollOf(c, stride, cc, count)
	defer func(pf int64) { g.pf = pf }(g.pf)
	g.pf = g.prefetchDist(c, stride, count)
	// the last instances, whose prefetches would fall past the loop's
	// memory, run without them (prefetchTail)
	tail := int64(0)
	if g.pf != 0 && prefetchTail {
		tail = min(count, (g.pf+stride-1)/stride)
	}
	g.flush()
	rm, rc := g.alloc(), g.alloc()
	g.setAddr(rm, mb, mo)
	g.counted(c, rm, rc, stride, count-tail, u, tail > 0)
	if tail > 0 {
		g.pf = 0
		g.counted(c, rm, rc, stride, tail, g.unrollOf(c, stride, cc, tail), false)
	}
	g.free(rm, rc)
}

// counted emits n instances of c, stride bytes apart, the first at rm: a
// loop of n/u iterations of u instances (counter rc) and the n%u left;
// with more to follow, rm is left at the instance after the last.
func (g *gen) counted(c *dame.Node, rm, rc reg, stride, n, u int64, more bool) {
	if n >= u && n >= 2 {
		g.a.movImm(rc, g.d32(n/u))
		top := g.a.pc()
		g.nodes(c, rm, 0, stride, u)
		g.flush()
		g.addConst(rm, u*stride)
		g.a.dec(rc)
		g.a.jcc(condNE, top)
		n %= u
	}
	g.nodes(c, rm, 0, stride, n)
	if more && n > 0 {
		g.flush()
		g.addConst(rm, n*stride)
	}
}

// nodes emits k instances of c, stride bytes apart, the first at mb+mo.
func (g *gen) nodes(c *dame.Node, mb reg, mo, stride, k int64) {
	if g.gathers(c, stride) {
		g.gather8(mb, mo, stride, k)
		return
	}
	for i := int64(0); i < k; i++ {
		g.node(c, mb, mo+i*stride)
	}
}

// entry emits a function moving RCX units of c, stride bytes apart (of
// g.units in all, when blockUnits set it just before).
func (g *gen) entry(c *dame.Node, stride int64) int {
	total := int64(-1)
	if g.units > 0 {
		total = g.units
	}
	g.units = 0
	start := g.a.pc()
	g.po = 0
	g.prepare(c)
	g.pf = g.prefetchDist(c, stride, total)
	g.nest = 1
	g.rep = g.throttleOf(c, stride, total)
	if total > 0 {
		g.outer = sat(total, max(stride, -stride))
		g.nest = total
	}
	defer func() { g.pf, g.rep, g.outer, g.nest = 0, 0, 0, 0 }()
	body := func() {
		g.countedLoop(g.unrollOf(c, stride, g.cost(c), 16), func(k int64) {
			if k > 1 {
				g.nodes(c, rdi, 0, stride, k)
			} else {
				g.node(c, rdi, 0)
			}
			g.flush()
			g.addConst(rdi, k*stride)
		})
		g.ret()
	}
	if T := g.tileOf(c, stride, total); T > 1 {
		g.tileEntry(c, stride, T)
	}
	if farUnits && total < 0 && g.pf == 0 && !g.pack && g.pfw && farElement(c, stride) {
		// the far rule at run time (farUnits): RCX units spanning
		// farPrefetchMinSpan or more take the prefetching loop
		g.a.cmpImm(rcx, int32(farUnitsMin(stride)))
		j := g.a.jcc(condB, -1)
		g.pf = sat(maxPrefetchRows, stride)
		body()
		g.a.patch(j, g.a.pc())
		g.pf = 0
	}
	if g.pfAligned(c, stride) {
		// the prefetching loop for blocks on a line boundary, the
		// plain one for the others
		g.a.testImm(rdi, 63)
		j := g.a.jcc(condNE, -1)
		body()
		g.a.patch(j, g.a.pc())
		g.pf = 0
	}
	body()
	return start
}

// pfAligned reports whether the unpack entry over units of c, stride
// bytes apart, prefetches only when the first unit starts on a 64-byte
// line boundary: blocks of 64 bytes to less than pfAlignedMax whose loop
// prefetches (prefetchDist), stride a multiple of 64 (every block then
// lies as the first does). A block of such a size off a line boundary
// covers one line more than its prefetches (one per 64 bytes) reach, and
// the prefetch lost there: measured in C (interpose/bench/farunpack.c,
// one process, samples interleaved; docs/interpose-bench.md, "Far-apart
// doubles, unpack (far2)"), L8 M's unpack (8,192 blocks of 128 bytes 256
// apart) with both buffers 16 or 48 bytes past a line boundary, as
// malloc returns large blocks: the native code with its prefetch took
// 1.15-1.25x the time of a plain loop of 64-byte moves (six runs),
// without it 0.93-1.04x; on a line boundary it ran 1.10-1.19x as fast as
// that loop.
func (g *gen) pfAligned(c *dame.Node, stride int64) bool {
	return g.pf != 0 && !g.pack && g.pfw && c.Op == dame.ContigFinal && c.Size >= 64 && c.Size < pfAlignedMax &&
		stride%64 == 0
}

// pfAlignedMax bounds the blocks of pfAligned: blocks of 256 bytes and
// more (1 KiB rows, L5b M's 408 bytes) showed no loss off a line
// boundary (within this machine's noise), and one line more weighs less
// there.
const pfAlignedMax = 256
