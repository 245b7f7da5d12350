//go:build !amd64 || noasm

package engine

import (
	"os"
	"runtime"
	"unsafe"

	"github.com/ddtlab/ddt/internal/engine/host"
)

// Without the assembly kernels the engine uses its Go loops only, whatever
// the level; the block kernels below are the Go ones of kern_go.go.

// cpuLevel is the CPU's level: NEON on arm64 (native code is generated
// there; the block kernels stay the Go loops), the Go loops elsewhere
// (and on amd64 built with noasm).
func cpuLevel() int {
	if runtime.GOARCH == "arm64" {
		return host.CPU.Level()
	}
	return 0
}

// defaultLevel is DefaultLevel: the CPU's level, lowered by DDT_NOASM=1
// or DDT_ASM (DDT_ASM=go turns native code off), read once when the
// program starts.
var defaultLevel = func() Level {
	l := Level(cpuLevel())
	if os.Getenv("DDT_NOASM") == "1" {
		return LevelGo
	}
	if want, err := ParseLevel(os.Getenv("DDT_ASM")); err == nil && want < l {
		return want
	}
	return l
}()

func maxAsmBlock(Level) int { return 0 }

func gatherBlocks(_ Level, p, m unsafe.Pointer, mo int, offs, lens []int64, es int) {
	gatherBlocksGo(p, m, mo, offs, lens, es)
}

func scatterBlocks(_ Level, m unsafe.Pointer, mo int, p unsafe.Pointer, offs, lens []int64, es int) {
	scatterBlocksGo(m, mo, p, offs, lens, es)
}

func strided(_ Level, d unsafe.Pointer, ds int, s unsafe.Pointer, ss int, n, L int) {
	stridedGo(d, ds, s, ss, n, L)
}

func gatherFixed(_ Level, p, m unsafe.Pointer, mo int, offs []int64, L int) {
	gatherFixedGo(p, m, mo, offs, L)
}

func scatterFixed(_ Level, m unsafe.Pointer, mo int, p unsafe.Pointer, offs []int64, L int) {
	scatterFixedGo(m, mo, p, offs, L)
}

func gather8(_ Level, d, s unsafe.Pointer, ss, n int) {
	lineW[uint64](d, 0, 8, s, 0, ss, n)
}

// scatterKernel reports that gatherScattered prefetches: not here.
const scatterKernel = false

// gatherScattered packs the blocks of L bytes at m+mo+offs[i] one after
// the other at p (the Go loop: no prefetches here).
func gatherScattered(p, m unsafe.Pointer, mo int, offs []int64, L int) {
	gather(p, 0, m, mo, offs, L)
}
