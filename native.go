package ddt

import (
	"unsafe"

	"github.com/ddtlab/ddt/internal/engine"
	"github.com/ddtlab/ddt/internal/engine/host"
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

// NativeStep is one step of moving a whole instance by generated code
// (NativeSteps): a call of the code at Code on N units, its memory operand
// Mem bytes from the instance's origin and its packed bytes Packed bytes
// from the instance's first packed byte, B0 in R8 (the first block of a
// listed block entry); Code 0 is a plain copy of N bytes between those two
// places.
type NativeStep struct {
	Code        uintptr
	Mem, Packed int64
	N, B0       int64
}

// NativeSteps returns, once c's generated code exists, the steps that pack
// and unpack one whole instance of c by that code alone, for callers
// outside Go (the interposition library's C layer) where NativeCode has
// no entry: types whose instances are larger than a unit of the code,
// which Go moves in chunks between which it may preempt. The calls follow
// NativeCode's convention (count in RCX, memory in RDI, packed bytes in
// RSI, B0 in R8, X15 zero). ok is false for the other engines and where
// some part of an instance has no code or the steps are many.
func (c *Committed) NativeSteps() (pack, unpack []NativeStep, ok bool) {
	r := c.eng.Load()
	if r == nil || r.why.Kind != engine.KindNative {
		return nil, nil, false
	}
	s, isS := r.Engine.(interface {
		Steps() (pack, unpack []host.Step, ok bool)
	})
	if !isS {
		return nil, nil, false
	}
	p, u, ok := s.Steps()
	if !ok {
		return nil, nil, false
	}
	conv := func(in []host.Step) []NativeStep {
		out := make([]NativeStep, len(in))
		for i, x := range in {
			out[i] = NativeStep{Code: entryAddr(x.Fn), Mem: x.Mem, Packed: x.Packed, N: x.N, B0: x.B0}
		}
		return out
	}
	return conv(p), conv(u), true
}
