//go:build !amd64 || noasm

package engine

import "unsafe"

// Without the assembly kernels the engine uses its Go loops only, whatever
// the level; the block kernels below are the Go ones of kern_go.go.

func cpuLevel() int { return 0 }

var defaultLevel = LevelGo

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
