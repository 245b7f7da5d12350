//go:build amd64 && !noasm

package engine

import (
	"unsafe"

	"github.com/ddtlab/ddt/internal/engine/host"
)

//go:noescape
func copyNTAVX2(d, s unsafe.Pointer, n int)

//go:noescape
func copyNTAVX512(d, s unsafe.Pointer, n int)

// ntLevel is the kernel CopyNT uses: the CPU's level (DefaultLevel
// lowers it, as for the block kernels).
var ntLevel = defaultLevel

func copyNT(d, s unsafe.Pointer, n int) bool {
	switch ntLevel {
	case LevelAVX512:
		copyNTAVX512(d, s, n)
	case LevelAVX2:
		copyNTAVX2(d, s, n)
	default:
		return false
	}
	return true
}

// hasNT reports whether CopyNT uses non-temporal stores here.
func hasNT() bool { return ntLevel >= LevelAVX2 && host.CPU.AVX2 }
