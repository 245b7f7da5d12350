//go:build !amd64 || noasm

package engine

import "unsafe"

// Without the assembly kernels the engine uses its Go loops only; the
// functions below are never called (useAsm is false) but keep the callers
// portable.

var (
	useAsm   = false
	asmLevel = 0
)

func maxAsmBlock() int { return 0 }

func gatherBlocks(p, m unsafe.Pointer, mo int, offs, lens []int64) {
	q := 0
	for i, o := range offs {
		mvWords(at(p, q), at(m, mo+int(o)), int(lens[i]))
		q += int(lens[i])
	}
}

func scatterBlocks(m unsafe.Pointer, mo int, p unsafe.Pointer, offs, lens []int64) {
	q := 0
	for i, o := range offs {
		mvWords(at(m, mo+int(o)), at(p, q), int(lens[i]))
		q += int(lens[i])
	}
}

func strided(d unsafe.Pointer, ds int, s unsafe.Pointer, ss int, n, L int) {
	for i := range n {
		mv(at(d, i*ds), at(s, i*ss), L)
	}
}
