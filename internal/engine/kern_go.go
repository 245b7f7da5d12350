package engine

import "unsafe"

// The Go versions of the block kernels: the fallback of the assembly ones
// (kern_amd64.go) and the kernels of other architectures (kern_other.go).

// gatherBlocksGo packs the blocks of lens[i]*es bytes at m+mo+offs[i] one
// after the other at p.
func gatherBlocksGo(p, m unsafe.Pointer, mo int, offs, lens []int64, es int) {
	q := 0
	for i, o := range offs {
		L := int(lens[i]) * es
		mvWords(at(p, q), at(m, mo+int(o)), L)
		q += L
	}
}

// scatterBlocksGo unpacks the blocks of lens[i]*es bytes, read one after
// the other from p, to m+mo+offs[i], in list order.
func scatterBlocksGo(m unsafe.Pointer, mo int, p unsafe.Pointer, offs, lens []int64, es int) {
	q := 0
	for i, o := range offs {
		L := int(lens[i]) * es
		mvWords(at(m, mo+int(o)), at(p, q), L)
		q += L
	}
}

// stridedGo copies n blocks of L bytes, block i from s+i*ss to d+i*ds.
func stridedGo(d unsafe.Pointer, ds int, s unsafe.Pointer, ss int, n, L int) {
	for i := range n {
		mv(at(d, i*ds), at(s, i*ss), L)
	}
}

// gatherFixedGo packs the blocks of L bytes at m+mo+offs[i] one after the
// other at p.
func gatherFixedGo(p, m unsafe.Pointer, mo int, offs []int64, L int) {
	for i, o := range offs {
		mv(at(p, i*L), at(m, mo+int(o)), L)
	}
}

// scatterFixedGo unpacks the blocks of L bytes, read one after the other
// from p, to m+mo+offs[i], in list order.
func scatterFixedGo(m unsafe.Pointer, mo int, p unsafe.Pointer, offs []int64, L int) {
	for i, o := range offs {
		mv(at(m, mo+int(o)), at(p, i*L), L)
	}
}
