package ddt

import (
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
