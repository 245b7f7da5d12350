//go:build !amd64 || noasm

package engine

import "unsafe"

// Without the assembly kernels the engine uses its Go loops only (useAsm
// is false); the block kernels below are the Go ones of kern_go.go.

var (
	useAsm   = false
	asmLevel = 0
)

func maxAsmBlock() int { return 0 }

func gatherBlocks(p, m unsafe.Pointer, mo int, offs, lens []int64, es int) {
	gatherBlocksGo(p, m, mo, offs, lens, es)
}

func scatterBlocks(m unsafe.Pointer, mo int, p unsafe.Pointer, offs, lens []int64, es int) {
	scatterBlocksGo(m, mo, p, offs, lens, es)
}

func strided(d unsafe.Pointer, ds int, s unsafe.Pointer, ss int, n, L int) {
	stridedGo(d, ds, s, ss, n, L)
}

func gatherFixed(p, m unsafe.Pointer, mo int, offs []int64, L int) {
	gatherFixedGo(p, m, mo, offs, L)
}

func scatterFixed(m unsafe.Pointer, mo int, p unsafe.Pointer, offs []int64, L int) {
	scatterFixedGo(m, mo, p, offs, L)
}
