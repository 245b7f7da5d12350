package ddt

import (
	"github.com/ddtlab/ddt/internal/engine"
	"github.com/ddtlab/ddt/internal/jit" // links native code generation into Auto (engine.NewNative)
)

// compileNow asks a native-code engine to generate its code now (see
// Options.JITNow); other engines have nothing to do.
func compileNow(e engine.Engine) {
	if n, ok := e.(interface{ CompileNow() }); ok {
		n.CompileNow()
	}
}

// upgrade stores in c a copy of r with the native code's whole-message
// fast path (jit.Whole) once that code exists, so that Pack and Unpack
// reach the code through c and its engineRef only. Other engines, and
// native code without a whole-message entry, keep r.
func (c *Committed) upgrade(r *engineRef) {
	if r.keep != nil {
		return
	}
	n, ok := r.Engine.(*jit.Engine)
	if !ok {
		return
	}
	if w := n.Whole(); w != nil {
		nr := *r
		nr.whole, nr.keep = *w, w
		c.eng.CompareAndSwap(r, &nr)
	}
}
