package engine

import "unsafe"

// ntMinCopy is the least copy CopyNT does with non-temporal stores; the
// kernels need at least 128 bytes, and below a few lines the head and
// tail stores dominate.
const ntMinCopy = 256

// CopyNT copies src to dst (min of their lengths, which must not
// overlap) with non-temporal stores where the CPU and build allow
// (amd64 with AVX2, not DDT_NOASM=1 or the noasm tag), and with copy
// otherwise or for copies under 256 bytes. It returns the number of bytes
// copied. The stores are fenced before it returns.
func CopyNT(dst, src []byte) int {
	n := min(len(dst), len(src))
	if n < ntMinCopy || !copyNT(unsafe.Pointer(unsafe.SliceData(dst)), unsafe.Pointer(unsafe.SliceData(src)), n) {
		copy(dst[:n], src[:n])
	}
	return n
}

// HasNT reports whether CopyNT uses non-temporal stores on this machine
// and build.
func HasNT() bool { return hasNT() }
