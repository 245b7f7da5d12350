package ddt

import (
	"unsafe"

	"github.com/ddtlab/ddt/internal/engine"
)

// upgrade stores in c a copy of r with the engine's whole-message fast
// path (engine.Whole, as a fastPath) once the engine has one (native code,
// once generated), so that Pack and Unpack reach the code through c and
// its engineRef only. Engines without a whole-message entry, and (never
// seen) entries whose instances pack another size than the type's keep r.
func (c *Committed) upgrade(r *engineRef) {
	if r.keep != nil || r.why.Kind != engine.KindNative {
		return
	}
	if w := r.Engine.Whole(); w != nil && w.Size == c.bounds.size && c.bounds.maxCount > 0 {
		b := &c.bounds
		nr := *r
		nr.fast = fastPath{entry: w.Entry, size: b.size, lo: b.lo, hi: b.hi,
			eLo: min(b.ext, 0), eHi: max(b.ext, 0), max: min(w.Max, b.maxCount)}
		nr.fast.pmax = min(nr.fast.max, ntCount(b.size))
		nr.keep = w
		c.eng.CompareAndSwap(r, &nr)
	}
}

// NativeCode returns the addresses of the generated whole-message pack
// and unpack code of c and the most instances one call of it takes, once
// that code exists (ok is false before, and for the other engines). It
// serves callers outside Go — the C layer of the MPI interposition
// library (interpose/lib) — which call the code with Go's register ABI
// (see internal/engine.Entry): the instance count in RCX, the address
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
func entryAddr(e engine.Entry) uintptr {
	if e == nil {
		return 0
	}
	return **(**uintptr)(unsafe.Pointer(&e))
}
