//go:build amd64 && linux

package jit

import (
	"fmt"
	"syscall"

	"github.com/ddtlab/ddt/internal/engine/host"
)

// supported reports whether this build can run generated code.
const supported = true

// hostVec is the widest vector move the CPU and OS support (host.CPU.Vec):
// 64 with AVX-512 F, BW and VL, 32 with AVX2, else 16 (SSE2).
func hostVec() int { return host.CPU.Vec() }

// hostVBMI reports AVX512-VBMI (VPERMB), used with 64-byte vectors.
func hostVBMI() bool { return host.CPU.AVX512 && host.CPU.VBMI }

// hostPrefW reports PREFETCHW, used by unpack's prefetches.
func hostPrefW() bool { return host.CPU.PrefW }

// hostERMS reports enhanced REP MOVSB, used for long blocks (blockRep).
func hostERMS() bool { return host.CPU.ERMS }

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

// abiProbe is six functions of probeLen bytes each: function k returns
// the register the ABI should hold argument k in (RAX, RBX, RCX, RDI,
// RSI, R8) in RAX, the result register.
var abiProbe = []byte{
	0xc3, 0x90, 0x90, 0x90, // ret
	0x48, 0x89, 0xd8, 0xc3, // mov rax, rbx; ret
	0x48, 0x89, 0xc8, 0xc3, // mov rax, rcx; ret
	0x48, 0x89, 0xf8, 0xc3, // mov rax, rdi; ret
	0x48, 0x89, 0xf0, 0xc3, // mov rax, rsi; ret
	0x4c, 0x89, 0xc0, 0xc3, // mov rax, r8; ret
}

const probeLen = 4

// hostAMD reports whether the CPU is AMD's. The rules measured on AMD's
// cores (an EPYC of family 26) and not on Intel's, each with its
// measurements at its switch: unpackThrottleOn, varMasked, varVec,
// repMinDefault, repAlign, alignMinDefault, farPrefetchMinStride, and the
// sort rule (dame.HostSortRule); in the compiled engine, its sort rule
// and scatterOn (internal/engine).
func hostAMD() bool { return host.CPU.AMD }
