//go:build amd64 && !noasm

package engine

import (
	"os"
	"unsafe"

	"github.com/ddtlab/ddt/internal/engine/host"
)

// The amd64 block kernels use AVX-512 (F, BW, VL) masked moves and BMI2
// (kern_amd64.s) when the CPU and the OS support them, AVX2 otherwise
// (kern_avx2_amd64.s), and the Go loops on CPUs without AVX2. Each
// engine fixes its kernel set (Level) when it is built; the default is
// DefaultLevel (see there for the environment variables DDT_NOASM and
// DDT_ASM). The build tag noasm leaves the assembly out.

//go:noescape
func gatherAVX512(p, m unsafe.Pointer, mo int, offs, lens *int64, n, lstep, es int)

//go:noescape
func scatterAVX512(m unsafe.Pointer, mo int, p unsafe.Pointer, offs, lens *int64, n, lstep, es int)

//go:noescape
func stridedAVX512(d unsafe.Pointer, ds int, s unsafe.Pointer, ss int, n, L int)

//go:noescape
func gatherAVX2(p, m unsafe.Pointer, mo int, offs, lens *int64, n, lstep, es int)

//go:noescape
func scatterAVX2(m unsafe.Pointer, mo int, p unsafe.Pointer, offs, lens *int64, n, lstep, es int)

//go:noescape
func stridedAVX2(d unsafe.Pointer, ds int, s unsafe.Pointer, ss int, n, L int)

//go:noescape
func gather8AVX2(d, s unsafe.Pointer, ss, n int)

//go:noescape
func gatherPF(p, m unsafe.Pointer, mo int, offs *int64, n, L, dist int)

// scatterKernel reports that gatherScattered prefetches (kern_pf_amd64.s).
const scatterKernel = true

// gatherScattered packs the blocks of L bytes (4, 8, 16 or 24) at
// m+mo+offs[i] one after the other at p, each prefetching the block
// scatterDist entries on (kern_pf_amd64.s).
func gatherScattered(p, m unsafe.Pointer, mo int, offs []int64, L int) {
	if len(offs) > 0 {
		gatherPF(p, m, mo, &offs[0], len(offs), L, scatterDist)
	}
}

// cpuLevel is the CPU's kernel level (host.CPU.Level: 2 for AVX-512 F,
// BW and VL with BMI2, 1 for AVX2, 0 otherwise).
func cpuLevel() int { return host.CPU.Level() }

// defaultLevel is DefaultLevel: the CPU's level, lowered by DDT_NOASM=1
// or DDT_ASM, read once when the program starts.
var defaultLevel = func() Level {
	l := Level(cpuLevel())
	if os.Getenv("DDT_NOASM") == "1" {
		return LevelGo
	}
	if want, err := ParseLevel(os.Getenv("DDT_ASM")); err == nil {
		return min(l, want)
	}
	return l
}()

// maxAsmBlock is the largest block the strided kernel moves; larger ones
// go to memmove one at a time (whose rep movsb wins on long blocks).
func maxAsmBlock(lv Level) int {
	if lv == LevelAVX512 {
		return 4096
	}
	return 256
}

// gatherBlocks packs the blocks of lens[i]*es bytes at m+mo+offs[i] one
// after the other at p.
func gatherBlocks(lv Level, p, m unsafe.Pointer, mo int, offs, lens []int64, es int) {
	if len(offs) > 0 {
		_ = lens[len(offs)-1] // the kernels read len(offs) lengths
	}
	switch {
	case len(offs) == 0:
	case lv == LevelAVX512:
		gatherAVX512(p, m, mo, &offs[0], &lens[0], len(offs), 8, es)
	case lv == LevelGo:
		gatherBlocksGo(p, m, mo, offs, lens, es)
	default:
		gatherAVX2(p, m, mo, &offs[0], &lens[0], len(offs), 8, es)
	}
}

// scatterBlocks unpacks the blocks of lens[i]*es bytes, read one after the
// other from p, to m+mo+offs[i], in list order.
func scatterBlocks(lv Level, m unsafe.Pointer, mo int, p unsafe.Pointer, offs, lens []int64, es int) {
	if len(offs) > 0 {
		_ = lens[len(offs)-1] // the kernels read len(offs) lengths
	}
	switch {
	case len(offs) == 0:
	case lv == LevelAVX512:
		scatterAVX512(m, mo, p, &offs[0], &lens[0], len(offs), 8, es)
	case lv == LevelGo:
		scatterBlocksGo(m, mo, p, offs, lens, es)
	default:
		scatterAVX2(m, mo, p, &offs[0], &lens[0], len(offs), 8, es)
	}
}

// strided copies n blocks of L bytes, block i from s+i*ss to d+i*ds.
func strided(lv Level, d unsafe.Pointer, ds int, s unsafe.Pointer, ss int, n, L int) {
	switch lv {
	case LevelAVX512:
		stridedAVX512(d, ds, s, ss, n, L)
	case LevelAVX2:
		stridedAVX2(d, ds, s, ss, n, L)
	default:
		stridedGo(d, ds, s, ss, n, L)
	}
}

// gatherFixed packs the blocks of L bytes at m+mo+offs[i] one after the
// other at p.
func gatherFixed(lv Level, p, m unsafe.Pointer, mo int, offs []int64, L int) {
	l := int64(L)
	switch {
	case len(offs) == 0:
	case lv == LevelAVX512:
		gatherAVX512(p, m, mo, &offs[0], &l, len(offs), 0, 1)
	case lv == LevelGo:
		gatherFixedGo(p, m, mo, offs, L)
	default:
		gatherAVX2(p, m, mo, &offs[0], &l, len(offs), 0, 1)
	}
}

// scatterFixed unpacks the blocks of L bytes, read one after the other
// from p, to m+mo+offs[i], in list order.
func scatterFixed(lv Level, m unsafe.Pointer, mo int, p unsafe.Pointer, offs []int64, L int) {
	l := int64(L)
	switch {
	case len(offs) == 0:
	case lv == LevelAVX512:
		scatterAVX512(m, mo, p, &offs[0], &l, len(offs), 0, 1)
	case lv == LevelGo:
		scatterFixedGo(m, mo, p, offs, L)
	default:
		scatterAVX2(m, mo, p, &offs[0], &l, len(offs), 0, 1)
	}
}

// gather8 packs n 8-byte elements, element i from s+i*ss, to d one after
// the other: VBROADCASTSD and VBLENDPD groups of four (gather8AVX2) at
// both assembly levels, the Go word loop otherwise.
func gather8(lv Level, d, s unsafe.Pointer, ss, n int) {
	if lv == LevelGo || n < 4 {
		lineW[uint64](d, 0, 8, s, 0, ss, n)
		return
	}
	gather8AVX2(d, s, ss, n)
}
