//go:build !amd64 || !linux

package jit

import (
	"errors"
	"unsafe"
)

// supported reports whether this build can run generated code: only
// amd64 Linux can; elsewhere the engines keep their Go kernels.
const supported = false

func call(fn uintptr, base unsafe.Pointer, off int, pk unsafe.Pointer, n, b0 int) {
	panic("jit: no code generation on this platform")
}

func hostVec() int { return 16 }

func hostVBMI() bool { return false }

func mapCode(code []byte) ([]byte, error) {
	return nil, errors.New("jit: no code generation on this platform")
}

func unmapCode(m []byte) {}
