//go:build amd64 && linux

package jit

import (
	"fmt"
	"syscall"
)

func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)
func xgetbv() (eax, edx uint32)

// supported reports whether this build can run generated code.
const supported = true

// hostVec is the widest vector move the CPU and OS support: 64 with
// AVX-512 F, BW and VL (the OS saving opmask and ZMM state), 32 with AVX2
// (the OS saving YMM state), else 16 (SSE2, always present on amd64).
func hostVec() int {
	maxID, _, _, _ := cpuid(0, 0)
	if maxID < 7 {
		return 16
	}
	_, _, c1, _ := cpuid(1, 0)
	if c1&(1<<27) == 0 || c1&(1<<28) == 0 { // OSXSAVE, AVX
		return 16
	}
	x, _ := xgetbv()
	_, b7, _, _ := cpuid(7, 0)
	if x&6 != 6 || b7&(1<<5) == 0 { // SSE and AVX state, AVX2
		return 16
	}
	const avx512 = 1<<16 | 1<<30 | 1<<31 // AVX512F, BW, VL
	if x&0xe6 == 0xe6 && b7&avx512 == avx512 {
		return 64
	}
	return 32
}

// hostVBMI reports AVX512-VBMI (VPERMB), used with 64-byte vectors.
func hostVBMI() bool {
	if hostVec() < 64 {
		return false
	}
	_, _, c7, _ := cpuid(7, 0)
	return c7&(1<<1) != 0
}

// mapCode copies code into fresh pages mapped read+write, then makes them
// read+execute (never writable and executable at once).
func mapCode(code []byte) ([]byte, error) {
	n := (len(code) + pageSize - 1) &^ (pageSize - 1)
	m, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return nil, fmt.Errorf("jit: mmap %d bytes: %w", n, err)
	}
	copy(m, code)
	if err := syscall.Mprotect(m, syscall.PROT_READ|syscall.PROT_EXEC); err != nil {
		syscall.Munmap(m)
		return nil, fmt.Errorf("jit: mprotect: %w", err)
	}
	return m, nil
}

// unmapCode releases pages of mapCode.
func unmapCode(m []byte) { syscall.Munmap(m) }

var pageSize = syscall.Getpagesize()
