package jit

import (
	"sync"
	"unsafe"

	"github.com/ddtlab/ddt/internal/engine/host"
)

// Entry is a generated function as Go calls it: a func value whose code
// is the generated code, called directly with Go's register ABI
// (ABIInternal on amd64: integer arguments in RAX, RBX, RCX, RDI, RSI,
// R8, ...), so the arguments land in the registers the generated code
// reads (see gen.go) and no trampoline, stack arguments or ABI wrapper
// stand between the caller and the code: RCX the number of units, RDI the
// memory address of the first unit's origin, RSI its packed bytes, R8 the
// first block of a listed block entry. The first two arguments fill RAX
// and RBX and are ignored (pass 0).
//
// The generated code keeps what that ABI asks of a callee: RSP, RBP and
// R14 (the goroutine) unchanged, X15 zero (it uses vector registers 0-5
// only, and ends with VZEROUPPER); everything else is caller-saved. On
// arm64 (ABIInternal: arguments in R0-R5, so R2 the units, R3 the memory
// address, R4 the packed bytes, R5 the first block) the code leaves RSP,
// R18, R26-R30 alone but for RET through R30 (see a64gen.go). It
// is a leaf that uses no stack, so it needs no frame and no stack check;
// Go never preempts it (its PCs are not Go code), which is why calls move
// bounded pieces. Addresses are passed as uintptr: the caller keeps the
// buffers alive (runtime.KeepAlive) and nothing can move them during the
// call (no safe point lies between forming the address and the call's
// return). abiOK checks the register assignment before any code is used.
type Entry = host.Entry

// funcval is the layout of a Go func value's target: its code pointer
// first (what a func value points to), then, as a closure's captured
// variables, the Code owning the pages, so that an Entry keeps its code
// mapped: a caller need not keep anything else alive across the call
// (the goroutine's stack is scanned only at safe points, none of which
// lies inside the generated code, and a scan before the call finds the
// Entry in a register or the caller's frame).
type funcval struct {
	fn   uintptr
	code *Code
}

// makeEntry returns the func value running the code at addr, in the
// pages owned by code.
func makeEntry(addr uintptr, code *Code) Entry {
	if addr == 0 {
		return nil
	}
	fv := &funcval{fn: addr, code: code}
	return *(*Entry)(unsafe.Pointer(&fv))
}

// abiOK reports whether Go passes the arguments of an Entry in the
// registers the generated code reads: it runs abiProbe (of the
// architecture, probeLen bytes per function) once (reading
// registers only, so a different ABI gives wrong numbers, never a
// crash). When it fails (a Go release that changed its register ABI),
// Compile refuses every program and the engines keep their fallbacks.
var abiOK = sync.OnceValue(func() bool {
	if !supported {
		return false
	}
	m, err := mapCode(abiProbe)
	if err != nil {
		return false
	}
	defer unmapCode(m)
	base := uintptr(unsafe.Pointer(unsafe.SliceData(m)))
	for k := range 6 {
		fv := &funcval{fn: base + uintptr(probeLen*k)}
		f := *(*func(a, b, c, d, e, f uintptr) uintptr)(unsafe.Pointer(&fv))
		if f(101, 102, 103, 104, 105, 106) != uintptr(101+k) {
			return false
		}
	}
	return true
})
