package ddt

import "github.com/ddtlab/ddt/internal/engine"

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
		nr.keep = w
		c.eng.CompareAndSwap(r, &nr)
	}
}
