// Package host describes what the engines share about the machine they
// run on: the CPU features, detected once for the kernels of the compiled
// engine and the native-code generator alike, and how Go calls a
// whole-message entry of an engine.
package host

import (
	"runtime"
	"unsafe"
)

// Features are the CPU features the engines use.
type Features struct {
	AVX2   bool // AVX2, with the OS saving the YMM registers (amd64)
	AVX512 bool // AVX-512 F, BW and VL, with the OS saving opmask and ZMM state (amd64)
	BMI2   bool // BMI2 (amd64)
	VBMI   bool // AVX512-VBMI (VPERMB) (amd64)
	PrefW  bool // PREFETCHW (amd64; elsewhere the instruction may be a no-op or fault)
	ERMS   bool // enhanced REP MOVSB (amd64)
	NEON   bool // Advanced SIMD, mandatory on arm64 (arm64)
	AMD    bool // the vendor is AMD (amd64): for rules measured on its cores only
}

// CPU is this machine's features, detected once when the program starts.
var CPU = detect()

// Level is the best kernel set the features allow: 2 for AVX-512 (F, BW,
// VL) with BMI2, 1 for AVX2, 3 for NEON (arm64: the compiled engine keeps
// its Go loops there, and native code is generated), 0 for the Go loops.
func (f Features) Level() int {
	switch {
	case f.AVX512 && f.BMI2:
		return 2
	case f.AVX2:
		return 1
	case f.NEON:
		return 3
	}
	return 0
}

// Vec is the widest vector move generated code may use: 64 bytes with
// AVX-512, 32 with AVX2, else 16 (SSE2 on amd64, NEON on arm64).
func (f Features) Vec() int {
	switch {
	case f.AVX512:
		return 64
	case f.AVX2:
		return 32
	}
	return 16
}

// Entry is a whole-message entry as Go calls it: a func value whose code
// moves n instances between the memory image at mem (the first
// instance's origin) and the packed bytes at pk. The first two arguments
// are ignored (pass 0), and so is b0 (pass 0): the signature is that of
// the generated code's entries, so that Go's register ABI puts the
// arguments where the code reads them (see internal/engine/jit).
type Entry func(_, _ uintptr, n int, mem, pk uintptr, b0 int)

// Step is one step of moving a whole instance without the Go side (the
// generated code's Code.Steps, which the interposition library's C layer
// runs): Fn moves N units, its memory operand Mem bytes from the
// instance's origin and its packed bytes Packed bytes from the instance's
// first packed byte, B0 the first block of a listed block entry; a nil Fn
// is a plain copy of N bytes between those two places.
type Step struct {
	Fn          Entry
	Mem, Packed int64
	N, B0       int64
}

// Whole is an engine's path for a whole message of at most Max instances:
// Entry[0] packs and Entry[1] unpacks count instances through Call, given
// the first instance's origin. Size is the packed bytes of one instance.
// Holding a Whole keeps the code behind its entries alive.
type Whole struct {
	Entry [2]Entry
	Max   int64
	Size  int64
}

// Call runs the entry fn on count instances: the memory image starts at
// mem, the first instance's origin lies origin bytes after it, the packed
// bytes start at pk. The caller has checked that every byte the count
// instances touch lies inside both buffers. It is inlined.
func Call(fn Entry, mem []byte, origin int64, pk []byte, count int64) {
	m, p := unsafe.SliceData(mem), unsafe.SliceData(pk)
	fn(0, 0, int(count), uintptr(unsafe.Pointer(m))+uintptr(origin), uintptr(unsafe.Pointer(p)), 0)
	runtime.KeepAlive(m)
	runtime.KeepAlive(p)
}
