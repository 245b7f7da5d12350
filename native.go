package ddt

import (
	"unsafe"

	"github.com/ddtlab/ddt/internal/engine"
	"github.com/ddtlab/ddt/internal/engine/jit" // links native code generation into Auto (engine.NewNative)
)

// compileNow asks a native-code engine to generate its code now (see
// Options.JITNow); other engines have nothing to do.
func compileNow(e engine.Engine) {
	if n, ok := e.(interface{ CompileNow() }); ok {
		n.CompileNow()
	}
}

// upgrade stores in c a copy of r with the native code's whole-message
// fast path (jit.Whole, as a fastPath) once that code exists, so that Pack
// and Unpack reach the code through c and its engineRef only. Other
// engines, native code without a whole-message entry, and (never seen)
// code whose instances pack another size than the type's keep r.
func (c *Committed) upgrade(r *engineRef) {
	if r.keep != nil {
		return
	}
	n, ok := r.Engine.(*jit.Engine)
	if !ok {
		return
	}
	if w := n.Whole(); w != nil && w.Size == c.bounds.size && c.bounds.maxCount > 0 {
		b := &c.bounds
		nr := *r
		nr.fast = fastPath{entry: w.Entry, size: b.size, lo: b.lo, hi: b.hi,
			eLo: min(b.ext, 0), eHi: max(b.ext, 0), max: min(w.Max, b.maxCount)}
		nr.keep = w
		c.eng.CompareAndSwap(r, &nr)
	}
}

// NativeCode returns the addresses of the generated whole-message pack
// and unpack code of c and the most instances one call of it takes, once
// that code exists (ok is false before, and for the other engines). It
// serves callers outside Go — the C layer of the MPI interposition
// library (interpose/lib) — which call the code with Go's register ABI
// (see internal/engine/jit.Entry): the instance count in RCX, the address
// of instance 0's origin in RDI, the packed bytes in RSI, R8 zero and X15
// zero; the code changes every register but RSP, RBP and R14 and uses no
// stack. The caller checks the buffers as Pack does and keeps c alive
// while it uses the addresses.
func (c *Committed) NativeCode() (pack, unpack uintptr, max int64, ok bool) {
	r := c.eng.Load()
	if r == nil || r.keep == nil {
		return 0, 0, 0, false
	}
	return entryAddr(r.fast.entry[0]), entryAddr(r.fast.entry[1]), r.fast.max, true
}

// entryAddr is the code address of an Entry: the first word of the func
// value it points to.
func entryAddr(e jit.Entry) uintptr {
	if e == nil {
		return 0
	}
	return **(**uintptr)(unsafe.Pointer(&e))
}
