//go:build amd64 && !noasm

package engine

import (
	"os"
	"unsafe"
)

// The amd64 block kernels (kern_amd64.s) use AVX-512 (F, BW, VL) masked
// moves and BMI2. They are used when the CPU and the OS support them and
// the environment variable DDT_NOASM is not set to 1; the build tag noasm
// leaves them out.

//go:noescape
func gatherAVX512(p, m unsafe.Pointer, mo int, offs, lens *int64, n int)

//go:noescape
func scatterAVX512(m unsafe.Pointer, mo int, p unsafe.Pointer, offs, lens *int64, n int)

//go:noescape
func stridedAVX512(d unsafe.Pointer, ds int, s unsafe.Pointer, ss int, n, L int)

func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)
func xgetbv() (eax, edx uint32)

// hasAVX512 reports whether the CPU has AVX-512 F, BW and VL and BMI2, and
// the OS saves the opmask and ZMM registers.
func hasAVX512() bool {
	maxID, _, _, _ := cpuid(0, 0)
	if maxID < 7 {
		return false
	}
	_, _, c1, _ := cpuid(1, 0)
	if c1&(1<<27) == 0 { // OSXSAVE
		return false
	}
	if x, _ := xgetbv(); x&0xe6 != 0xe6 { // SSE, AVX, opmask, ZMM state
		return false
	}
	_, b7, _, _ := cpuid(7, 0)
	const want = 1<<16 | 1<<30 | 1<<31 | 1<<8 // AVX512F, BW, VL, BMI2
	return b7&want == want
}

// useAsm selects the assembly kernels.
var useAsm = hasAVX512() && os.Getenv("DDT_NOASM") != "1"

// gatherBlocks packs the blocks of lens[i] bytes at m+mo+offs[i] one
// after the other at p.
func gatherBlocks(p, m unsafe.Pointer, mo int, offs, lens []int64) {
	if len(offs) > 0 {
		gatherAVX512(p, m, mo, &offs[0], &lens[0], len(offs))
	}
}

// scatterBlocks unpacks the blocks of lens[i] bytes, read one after the
// other from p, to m+mo+offs[i], in list order.
func scatterBlocks(m unsafe.Pointer, mo int, p unsafe.Pointer, offs, lens []int64) {
	if len(offs) > 0 {
		scatterAVX512(m, mo, p, &offs[0], &lens[0], len(offs))
	}
}

// strided copies n blocks of L bytes, block i from s+i*ss to d+i*ds.
func strided(d unsafe.Pointer, ds int, s unsafe.Pointer, ss int, n, L int) {
	stridedAVX512(d, ds, s, ss, n, L)
}
