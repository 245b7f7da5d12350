package engine

import (
	"os"
	"strconv"
	"unsafe"

	"github.com/ddtlab/ddt/internal/engine/host"
)

// The moves below work on a base pointer plus a byte offset, so that no
// pointer outside the caller's slices is ever formed. The callers (the ddt
// package) validate once per call that every byte the program touches lies
// inside the slices; the kernels rely on that and do no checks of their own.

func at(b unsafe.Pointer, off int) unsafe.Pointer { return unsafe.Add(b, off) }

// mv copies n bytes from s to d exactly: small sizes with one or two
// possibly overlapping word moves, large ones with memmove.
func mv(d, s unsafe.Pointer, n int) {
	switch {
	case n > 32:
		copy(unsafe.Slice((*byte)(d), n), unsafe.Slice((*byte)(s), n))
	case n >= 16:
		a0, a1 := *(*uint64)(s), *(*uint64)(at(s, 8))
		b0, b1 := *(*uint64)(at(s, n-16)), *(*uint64)(at(s, n-8))
		*(*uint64)(d), *(*uint64)(at(d, 8)) = a0, a1
		*(*uint64)(at(d, n-16)), *(*uint64)(at(d, n-8)) = b0, b1
	case n >= 8:
		a, b := *(*uint64)(s), *(*uint64)(at(s, n-8))
		*(*uint64)(d), *(*uint64)(at(d, n-8)) = a, b
	case n >= 4:
		a, b := *(*uint32)(s), *(*uint32)(at(s, n-4))
		*(*uint32)(d), *(*uint32)(at(d, n-4)) = a, b
	case n >= 2:
		a, b := *(*uint16)(s), *(*uint16)(at(s, n-2))
		*(*uint16)(d), *(*uint16)(at(d, n-2)) = a, b
	case n == 1:
		*(*uint8)(d) = *(*uint8)(s)
	}
}

// line moves n elements of L bytes: element i at d+do+i*ds from s+so+i*ss.
// Pack and unpack both use it, with the strides swapped.
func line(lv Level, d unsafe.Pointer, do, ds int, s unsafe.Pointer, so, ss, n, L int) {
	switch L {
	case 1:
		lineW[uint8](d, do, ds, s, so, ss, n)
	case 2:
		lineW[uint16](d, do, ds, s, so, ss, n)
	case 4:
		lineW[uint32](d, do, ds, s, so, ss, n)
	case 8:
		if ds == 8 && ss != 8 && lv > LevelGo && n >= 8 && !fewSets(n, ss) {
			// a pack of strided words: vector groups (gather8)
			gather8(lv, at(d, do), at(s, so), ss, n)
			return
		}
		lineW[uint64](d, do, ds, s, so, ss, n)
	case 12:
		for i := 0; i < n; i++ {
			p, q := at(s, so+i*ss), at(d, do+i*ds)
			a, b := *(*uint64)(p), *(*uint32)(at(p, 8))
			*(*uint64)(q), *(*uint32)(at(q, 8)) = a, b
		}
	case 16:
		for i := 0; i < n; i++ {
			p, q := at(s, so+i*ss), at(d, do+i*ds)
			a, b := *(*uint64)(p), *(*uint64)(at(p, 8))
			*(*uint64)(q), *(*uint64)(at(q, 8)) = a, b
		}
	case 24:
		for i := 0; i < n; i++ {
			p, q := at(s, so+i*ss), at(d, do+i*ds)
			a, b, c := *(*uint64)(p), *(*uint64)(at(p, 8)), *(*uint64)(at(p, 16))
			*(*uint64)(q), *(*uint64)(at(q, 8)), *(*uint64)(at(q, 16)) = a, b, c
		}
	case 32:
		for i := 0; i < n; i++ {
			p, q := at(s, so+i*ss), at(d, do+i*ds)
			a, b, c, e := *(*uint64)(p), *(*uint64)(at(p, 8)), *(*uint64)(at(p, 16)), *(*uint64)(at(p, 24))
			*(*uint64)(q), *(*uint64)(at(q, 8)), *(*uint64)(at(q, 16)), *(*uint64)(at(q, 24)) = a, b, c, e
		}
	default:
		if lv > LevelGo && L <= maxAsmBlock(lv) {
			if n <= 0 {
				return
			}
			strided(lv, at(d, do), ds, at(s, so), ss, n, L)
			return
		}
		if L < 64 {
			for i := 0; i < n; i++ {
				mv(at(d, do+i*ds), at(s, so+i*ss), L)
			}
			return
		}
		for i := 0; i < n; i++ {
			copy(unsafe.Slice((*byte)(at(d, do+i*ds)), L), unsafe.Slice((*byte)(at(s, so+i*ss)), L))
		}
	}
}

// fewSets reports whether n elements ss bytes apart, each on a line of
// its own, map to at most 16 of an L1 cache's 64 sets and overflow them
// (8 ways): their lines then come from L2 or farther on every call, and
// the word loop measured faster than gather8's groups (L3 S, doubles 256
// bytes apart: 0.94x the time; as the native code's fitsL1,
// bench/RESULTS.md §23).
func fewSets(n, ss int) bool {
	if ss < 0 {
		ss = -ss
	}
	if ss < 64 {
		return false
	}
	g := 4096
	for a := ss % 4096; a != 0; g, a = a, g%a {
	}
	sets := 4096 / g
	return sets <= 16 && n > 8*sets
}

// wordGather reports whether gather and scatter have a word kernel for
// elements of L bytes (otherwise the assembly kernels take them).
func wordGather(L int) bool { return L == 4 || L == 8 || L == 12 || L == 16 || L == 24 }

// gather moves len(offs) elements of L bytes: element i from s+so+offs[i]
// to d+do+i*L (pack), or the reverse when scatter is set (unpack).
func gather(d unsafe.Pointer, do int, s unsafe.Pointer, so int, offs []int64, L int) {
	switch L {
	case 4:
		for i, o := range offs {
			*(*uint32)(at(d, do+i*4)) = *(*uint32)(at(s, so+int(o)))
		}
	case 8:
		for i, o := range offs {
			*(*uint64)(at(d, do+i*8)) = *(*uint64)(at(s, so+int(o)))
		}
	case 12:
		for i, o := range offs {
			p, q := at(s, so+int(o)), at(d, do+i*12)
			a, b := *(*uint64)(p), *(*uint32)(at(p, 8))
			*(*uint64)(q), *(*uint32)(at(q, 8)) = a, b
		}
	case 16:
		for i, o := range offs {
			p, q := at(s, so+int(o)), at(d, do+i*16)
			a, b := *(*uint64)(p), *(*uint64)(at(p, 8))
			*(*uint64)(q), *(*uint64)(at(q, 8)) = a, b
		}
	case 24:
		for i, o := range offs {
			p, q := at(s, so+int(o)), at(d, do+i*24)
			a, b, c := *(*uint64)(p), *(*uint64)(at(p, 8)), *(*uint64)(at(p, 16))
			*(*uint64)(q), *(*uint64)(at(q, 8)), *(*uint64)(at(q, 16)) = a, b, c
		}
	default:
		for i, o := range offs {
			mv(at(d, do+i*L), at(s, so+int(o)), L)
		}
	}
}

func scatter(d unsafe.Pointer, do int, s unsafe.Pointer, so int, offs []int64, L int) {
	switch L {
	case 4:
		for i, o := range offs {
			*(*uint32)(at(d, do+int(o))) = *(*uint32)(at(s, so+i*4))
		}
	case 8:
		for i, o := range offs {
			*(*uint64)(at(d, do+int(o))) = *(*uint64)(at(s, so+i*8))
		}
	case 12:
		for i, o := range offs {
			p, q := at(s, so+i*12), at(d, do+int(o))
			a, b := *(*uint64)(p), *(*uint32)(at(p, 8))
			*(*uint64)(q), *(*uint32)(at(q, 8)) = a, b
		}
	case 16:
		for i, o := range offs {
			p, q := at(s, so+i*16), at(d, do+int(o))
			a, b := *(*uint64)(p), *(*uint64)(at(p, 8))
			*(*uint64)(q), *(*uint64)(at(q, 8)) = a, b
		}
	case 24:
		for i, o := range offs {
			p, q := at(s, so+i*24), at(d, do+int(o))
			a, b, c := *(*uint64)(p), *(*uint64)(at(p, 8)), *(*uint64)(at(p, 16))
			*(*uint64)(q), *(*uint64)(at(q, 8)), *(*uint64)(at(q, 16)) = a, b, c
		}
	default:
		for i, o := range offs {
			mv(at(d, do+int(o)), at(s, so+i*L), L)
		}
	}
}

// lineW is line for elements of one word of type W, unrolled by four with
// the offsets advanced by addition.
func lineW[W uint8 | uint16 | uint32 | uint64](d unsafe.Pointer, do, ds int, s unsafe.Pointer, so, ss, n int) {
	ds2, ss2 := 2*ds, 2*ss
	i := 0
	for ; i+4 <= n; i += 4 {
		a0, a1 := *(*W)(at(s, so)), *(*W)(at(s, so+ss))
		a2, a3 := *(*W)(at(s, so+ss2)), *(*W)(at(s, so+ss2+ss))
		*(*W)(at(d, do)), *(*W)(at(d, do+ds)) = a0, a1
		*(*W)(at(d, do+ds2)), *(*W)(at(d, do+ds2+ds)) = a2, a3
		so += 2 * ss2
		do += 2 * ds2
	}
	for ; i < n; i++ {
		*(*W)(at(d, do)) = *(*W)(at(s, so))
		so += ss
		do += ds
	}
}

// maxWordBlock is the largest block mvBlock moves with word loads and
// stores; larger blocks go to memmove, whose vector moves win from there
// on (measured on L8's 128-byte blocks).
const maxWordBlock = 64

// mvBlock copies n bytes from s to d exactly, blocks of up to maxWordBlock
// bytes with 32-byte groups of word moves (the last group overlapping the
// one before it), without a call to memmove.
func mvBlock(d, s unsafe.Pointer, n int) {
	if n < 32 || n > maxWordBlock {
		mv(d, s, n)
		return
	}
	i := 0
	for ; i+32 <= n; i += 32 {
		mv32(at(d, i), at(s, i))
	}
	if i < n {
		mv32(at(d, n-32), at(s, n-32))
	}
}

func mv32(d, s unsafe.Pointer) {
	a, b := *(*uint64)(s), *(*uint64)(at(s, 8))
	c, e := *(*uint64)(at(s, 16)), *(*uint64)(at(s, 24))
	*(*uint64)(d), *(*uint64)(at(d, 8)) = a, b
	*(*uint64)(at(d, 16)), *(*uint64)(at(d, 24)) = c, e
}

// mvWords copies n bytes from s to d: the word multiples that index blocks
// of doubles and floats merge into (8, 16, 24, 32 bytes) with inline word
// moves, everything else through mvBlock.
func mvWords(d, s unsafe.Pointer, n int) {
	switch n {
	case 8:
		*(*uint64)(d) = *(*uint64)(s)
	case 16:
		*(*[2]uint64)(d) = *(*[2]uint64)(s)
	case 24:
		*(*[3]uint64)(d) = *(*[3]uint64)(s)
	case 32:
		*(*[4]uint64)(d) = *(*[4]uint64)(s)
	default:
		if n > 32 {
			copy(unsafe.Slice((*byte)(d), n), unsafe.Slice((*byte)(s), n))
			return
		}
		mv(d, s, n)
	}
}

// transposeTile is how many bytes of a memory row transpose moves per
// tile: 8 columns of 4 bytes or 4 of 8.
const transposeTile = 32

// transpose moves cols columns of rows elements of type W: element (c, r)
// at memory m+mo+c*w+r*rs and packed at p+po+(c*rows+r)*w (w the size of
// W), memory to packed when pack is set. It runs a tile of columns at a
// time, row by row, so that memory is read (or written) several words of
// one cache line at a time instead of one word per line. No two elements
// share memory bytes (rs >= cols*w), so the order of unpack's writes does
// not matter.
func transpose[W uint32 | uint64](pack bool, m unsafe.Pointer, mo, rs int, p unsafe.Pointer, po, cols, rows int) {
	w := int(unsafe.Sizeof(W(0)))
	T := transposeTile / w
	cs := rows * w // packed bytes of a column
	c0 := 0
	for ; c0+T <= cols; c0 += T {
		for j := 0; j < T; j += 4 {
			c := c0 + j
			transpose4[W](pack, m, mo+c*w, rs, p, po+c*cs, cs, rows)
		}
	}
	for ; c0 < cols; c0++ { // the last columns one by one
		if pack {
			lineW[W](p, po+c0*cs, w, m, mo+c0*w, rs, rows)
		} else {
			lineW[W](m, mo+c0*w, rs, p, po+c0*cs, w, rows)
		}
	}
}

// transpose4 moves four adjacent columns of rows elements, column j's
// packed bytes cs after column j-1's.
func transpose4[W uint32 | uint64](pack bool, m unsafe.Pointer, mo, rs int, p unsafe.Pointer, po, cs, rows int) {
	w := int(unsafe.Sizeof(W(0)))
	cs2 := 2 * cs
	for range rows {
		if pack {
			a0, a1 := *(*W)(at(m, mo)), *(*W)(at(m, mo+w))
			a2, a3 := *(*W)(at(m, mo+2*w)), *(*W)(at(m, mo+3*w))
			*(*W)(at(p, po)), *(*W)(at(p, po+cs)) = a0, a1
			*(*W)(at(p, po+cs2)), *(*W)(at(p, po+cs2+cs)) = a2, a3
		} else {
			a0, a1 := *(*W)(at(p, po)), *(*W)(at(p, po+cs))
			a2, a3 := *(*W)(at(p, po+cs2)), *(*W)(at(p, po+cs2+cs))
			*(*W)(at(m, mo)), *(*W)(at(m, mo+w)) = a0, a1
			*(*W)(at(m, mo+2*w)), *(*W)(at(m, mo+3*w)) = a2, a3
		}
		mo += rs
		po += w
	}
}

// Packing lists of small blocks scattered over much memory
// (dame.Scattered): the assembly kernel (kern_pf_amd64.s) loads each
// block as the word loop does and prefetches the block scatterDist
// entries ahead. Measured in C on 1,048,576 floats at random places in
// 64 MiB (AMD EPYC of family 26, 2026-11-27, best of 15, ns per float):
// the plain loop 3.4-4.5, prefetching 16 blocks ahead 4.0, 64 2.8, 128
// 2.5-2.6, 256 2.6-2.9. With `ddt bench --type` on 700,000 floats at
// random places in 64 MiB the compiled engine packed 0.61-0.63 GB/s
// without it, 1.37-1.43 with (native code: 1.3-1.5 either way). Lists this
// long compile to native code only after many calls (tiering), so
// MPI_Pack benchmarks run this kernel: in the library preloaded on MPICH
// (three processes each, PMPI time / library time) SPECFEM3D_oc L's pack
// went from 0.68x to 1.46-1.49x of MPICH's speed, LAMMPS_atomic.send L's
// from 0.81x to 1.09x. Only AMD's cores were measured: on the Intel Xeon
// the project measured before, more misses in flight on far-apart
// elements ran slower (page walks; see the jit's throttleOf), so the
// kernel is AMD's only unless DDT_LISTPF is set. DDT_LISTPF=N sets the
// distance (0 turns the kernel off; for measurements).
var scatterDist = envDist("DDT_LISTPF", 128)

// scatterOn is the kernel's switch (a variable for tests): AMD's cores,
// or DDT_LISTPF set, and a distance above 0.
var scatterOn = scatterDist > 0 && (host.CPU.AMD || os.Getenv("DDT_LISTPF") != "")

// scatteredPack reports whether pack of blocks of L bytes takes the
// prefetching kernel where dame.Scattered holds.
func scatteredPack(L int) bool {
	return scatterOn && (L == 4 || L == 8 || L == 16 || L == 24)
}

// envDist is the distance in environment variable k: 0 to 1024, else def.
func envDist(k string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(k)); err == nil && v >= 0 && v <= 1024 {
		return v
	}
	return def
}
