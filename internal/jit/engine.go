package jit

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/ddtlab/ddt/dame"
)

// Engine runs a program with generated code once it has paid back: it
// starts with the fallback engine (commit stays cheap) and compiles after
// the type has been used in enough calls or moved enough bytes, or at once
// with Options.Now. It is safe for concurrent use.
type Engine struct {
	p    *dame.Program
	fb   Fallback
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
func New(p *dame.Program, fb Fallback, opts Options) *Engine {
	e := &Engine{p: p, fb: fb}
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
		c, err := Compile(e.p)
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
func (e *Engine) Pack(dst, src []byte, origin, count, from int64) {
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
	c.run(true, e.fb, dst, src, origin, count, from)
}

// Unpack reads src, the packed bytes [from, from+len(src)) of count
// instances, into dst, whose instance 0 has its origin at byte origin.
func (e *Engine) Unpack(dst []byte, origin, count, from int64, src []byte) {
	if len(src) == 0 {
		return
	}
	c := e.code.Load()
	if c == nil {
		if c = e.tick(int64(len(src))); c == nil {
			e.fb.Unpack(dst, origin, count, from, src)
			return
		}
	}
	c.run(false, e.fb, src, dst, origin, count, from)
}

// String describes what the engine runs.
func (e *Engine) String() string {
	if c := e.code.Load(); c != nil {
		return fmt.Sprintf("jit(%d bytes, %d-byte vectors, compiled in %v)", c.codeLen, c.vec, c.compiled)
	}
	if err := e.Err(); err != nil {
		return fmt.Sprintf("fallback (%v)", err)
	}
	return "fallback (not compiled yet)"
}
