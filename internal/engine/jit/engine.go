package jit

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/ddtlab/ddt/dame"
	"github.com/ddtlab/ddt/internal/engine"
)

// init links the JIT into engine.Choose: commit's Auto engine runs
// generated code for the programs it covers, with vector moves as wide as
// the kernel level allows (none at the Go level, which means portable
// code). Compilation is deferred (see Engine).
func init() {
	engine.NewNative = func(p *dame.Program, l engine.Level) (engine.Engine, bool) {
		if l == engine.LevelGo || !Available() || !Eligible(p) || engine.Transposes(p) {
			return nil, false
		}
		vec := 32
		if l >= engine.LevelAVX512 {
			vec = 64
		}
		return New(p, engine.NewCompiled(p, l), Options{Vec: vec}), true
	}
}

// Eligible reports, in constant time, whether p is worth compiling: it has
// data and is not one contiguous run (a plain copy). Whether the generator
// covers p is known only when it runs.
func Eligible(p *dame.Program) bool {
	return p.Root != nil && !(p.Root.Op == dame.ContigFinal && p.Root.Extent == p.Root.Size)
}

// Engine runs a program with generated code once it has paid back: it
// starts with the fallback engine (commit stays cheap) and compiles after
// the type has been used in enough calls or moved enough bytes, or at once
// with Options.Now. It is safe for concurrent use.
type Engine struct {
	p    *dame.Program
	fb   engine.Engine
	fbf  Fallback // fb, converted once (not on every call)
	vec  int
	code atomic.Pointer[Code]
	// state: 0 counting uses, 1 compiled (or compiling), 2 never
	state atomic.Int32
	uses  atomic.Int64 // calls*callWeight + bytes, while counting
	once  sync.Once
	err   error
}

// Options configure New.
type Options struct {
	// Now compiles at once instead of after the type has been used enough.
	Now bool
	// Off never compiles: the engine is the fallback.
	Off bool
	// Vec caps the vector moves (16, 32 or 64 bytes; 0 for the widest the
	// CPU has, as lowered by DDT_JIT_VEC).
	Vec int
}

// Tiering thresholds: a program is compiled once calls*callWeight plus
// bytes moved reach compileAfter. Compiling costs a few to tens of
// microseconds (two system calls and the generator); a call of generated
// code saves tens of nanoseconds on small messages and a good fraction of
// the time on large ones.
const (
	callWeight   = 8 << 10
	compileAfter = 256 << 10
)

// New returns the engine of p with fallback fb.
func New(p *dame.Program, fb engine.Engine, opts Options) *Engine {
	e := &Engine{p: p, fb: fb, fbf: fb, vec: defaultVec}
	if opts.Vec == 16 || opts.Vec == 32 || opts.Vec == 64 {
		e.vec = min(e.vec, opts.Vec)
	}
	if opts.Off || !Available() || p.Root == nil {
		e.state.Store(2)
		return e
	}
	if opts.Now {
		e.compile()
	}
	return e
}

// compile generates the code once; on failure the engine stays with its
// fallback.
func (e *Engine) compile() {
	e.once.Do(func() {
		e.state.Store(1)
		c, err := compileVec(e.p, e.vec)
		if err != nil {
			e.err = err
			e.state.Store(2)
			return
		}
		e.code.Store(c)
	})
}

// tick counts a use of n bytes and compiles when the uses have paid back.
func (e *Engine) tick(n int64) *Code {
	if e.state.Load() != 0 {
		return e.code.Load()
	}
	if e.uses.Add(callWeight+n) >= compileAfter {
		e.compile()
		return e.code.Load()
	}
	return nil
}

// CompileNow compiles at once (if not done yet) instead of waiting for
// the type to be used enough.
func (e *Engine) CompileNow() {
	if e.state.Load() == 0 {
		e.compile()
	}
}

// Code returns the generated code, or nil while the engine runs its
// fallback.
func (e *Engine) Code() *Code { return e.code.Load() }

// Err is why the program was not compiled, if it was tried and failed.
func (e *Engine) Err() error {
	if e.state.Load() == 1 {
		return nil
	}
	return e.err
}

// Pack writes the packed bytes [from, from+len(dst)) of count instances
// from src, whose instance 0 has its origin at byte origin, into dst. The
// caller has checked that every byte the program touches lies inside the
// slices.
//
// The common call, a whole message of at most one piece, goes straight to
// the root's instance entry: a few compares and the call of the code, no
// resumable state and no call of the walker.
func (e *Engine) Pack(dst, src []byte, origin, count, from int64) {
	if c := e.code.Load(); c != nil && from == 0 && uint64(count-1) < uint64(c.wholeMax) && int64(len(dst)) == count*c.size {
		Call(c.whole[0], src, origin, dst, count)
		return
	}
	e.pack(dst, src, origin, count, from)
}

// Whole is the fast path of compiled code for a whole message of at most
// Max instances (one piece): Entry[0] packs and Entry[1] unpacks count
// instances through Call, given the first instance's origin (the type's
// origin, not the program's: the entries add the program's offset
// themselves, so that the first address the code loads depends on no
// load of the caller). Only the root's instance entries qualify.
type Whole struct {
	Entry [2]Entry
	Max   int64
	Size  int64 // packed bytes of one instance
}

// Whole returns the fast path of e's code, or nil while e runs its
// fallback or when its code has no whole-message entry. It is inlined.
// The Whole lies inside the Code, so holding it keeps the code mapped.
func (e *Engine) Whole() *Whole {
	if c := e.code.Load(); c != nil && c.wholeMax > 0 {
		return &c.fast
	}
	return nil
}

// pack is Pack's general case: pieces, partial units, and the fallback
// while the program is not compiled.
//
//go:noinline
func (e *Engine) pack(dst, src []byte, origin, count, from int64) {
	if len(dst) == 0 {
		return
	}
	c := e.code.Load()
	if c == nil {
		if c = e.tick(int64(len(dst))); c == nil {
			e.fb.Pack(dst, src, origin, count, from)
			return
		}
	}
	c.run(true, e.fbf, dst, src, origin, count, from)
}

// Unpack reads src, the packed bytes [from, from+len(src)) of count
// instances, into dst, whose instance 0 has its origin at byte origin.
func (e *Engine) Unpack(dst, src []byte, origin, count, from int64) {
	if c := e.code.Load(); c != nil && from == 0 && uint64(count-1) < uint64(c.wholeMax) && int64(len(src)) == count*c.size {
		Call(c.whole[1], dst, origin, src, count)
		return
	}
	e.unpack(dst, src, origin, count, from)
}

// unpack is Unpack's general case.
//
//go:noinline
func (e *Engine) unpack(dst, src []byte, origin, count, from int64) {
	if len(src) == 0 {
		return
	}
	c := e.code.Load()
	if c == nil {
		if c = e.tick(int64(len(src))); c == nil {
			e.fb.Unpack(dst, src, origin, count, from)
			return
		}
	}
	c.run(false, e.fbf, src, dst, origin, count, from)
}

// Segments implements engine.Engine with the fallback.
func (e *Engine) Segments(count, from int64, yield func(off, n int64) bool) {
	e.fb.Segments(count, from, yield)
}

// String describes what the engine runs: the state of the native code,
// then the fallback's plan.
func (e *Engine) String() string {
	var s string
	switch c := e.code.Load(); {
	case c != nil:
		s = fmt.Sprintf("native code: %d bytes, %d-byte vector moves, compiled in %v; partial units:\n", c.codeLen, c.vec, c.compiled)
	case e.Err() != nil:
		s = fmt.Sprintf("native code: none (%v); fallback:\n", e.Err())
	default:
		s = "native code: not compiled yet (tiered); until then:\n"
	}
	return s + e.fb.String()
}

var _ engine.Engine = (*Engine)(nil)
