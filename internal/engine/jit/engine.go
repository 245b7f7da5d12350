package jit

import (
	"fmt"
	"math"
	"os"
	"sync"
	"sync/atomic"

	"github.com/ddtlab/ddt/dame"
	"github.com/ddtlab/ddt/internal/engine/host"
)

// Base is the engine an Engine runs until its code exists, and for what
// the code does not move (partial units): the compiled engine, as
// internal/engine.Select builds it. Segments and String are its.
type Base interface {
	Fallback
	Segments(count, from int64, yield func(off, n int64) bool)
	String() string
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
	fb   Base
	fbf  Fallback // fb, converted once (not on every call)
	vec  int
	code atomic.Pointer[Code]
	// state: 0 counting uses, 1 compiled (or compiling), 2 never
	state atomic.Int32
	uses  atomic.Int64 // callUses of the calls so far, while counting
	after int64        // threshold(p): compile when uses reach it
	w     int64        // weightOf(p): what a packed byte adds to uses, in 16ths
	once  sync.Once
	err   error
	nt    ntState // the non-temporal pack code (PackNT)
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

// Tiering: a program is compiled once what its native code would have
// saved so far reaches what compiling it costs (the rent-or-buy rule: at
// most twice the cost of the better choice made knowing the future, when
// the estimates hold). A call moving n packed bytes saves about gainCall
// + n/gainBytes nanoseconds; compiling a program of s nodes and list
// entries costs about costBase + s*costNode nanoseconds. Counted in
// bytes, every call adds callWeight + n to the engine's uses, and the
// program compiles when they reach threshold(p) = (costBase +
// s*costNode)*gainBytes: about 7.7 MB for small programs, so about 300
// calls of 2 KB or 7 of 1 MB. The constants are medians of `ddt bench
// --fig 17` over the DDTBench and mpipack layouts on the project's 2-core
// x86 VM (docs/performance.md, "Tuning from measurement"): compiling
// takes 10-35 µs plus about 45 ns per node or entry; generated code saves
// 0.03-0.5 µs per call on 2 KB messages and, on 1 MB ones, from nothing
// (strided rows, where both run the same vector loop) to 0.15 ms (the
// struct array L7), median about 1 ns per 512 bytes. Programs with long
// lists gain per list entry besides (see byteWeight): their bytes count
// more. DDT_JIT_AFTER=SIZE (K, M, G suffixes; 0 compiles at the first
// use) replaces threshold(p) by SIZE for every program.
const (
	gainBytes  = 512 // packed bytes moved per nanosecond saved
	gainCall   = 50  // nanoseconds saved per call besides the bytes
	callWeight = gainCall * gainBytes
	costBase   = 15000 // nanoseconds: mapping the code (two system calls) and the generator's setup
	costNode   = 45    // nanoseconds per node or list entry
	// gainEntries is the list entries moved per nanosecond saved, and
	// entryGainMax the most list entries a program may have for that
	// gain to be counted (byteWeight).
	gainEntries  = 8
	entryGainMax = 1 << 19
)

// byteWeight is what one packed byte of p counts toward the threshold, in
// 16ths: 16, plus, for a program of at most entryGainMax list entries,
// the gain of the entries an instance moves expressed in bytes (E entries
// per instance of S packed bytes save about E/gainEntries ns, worth
// gainBytes*E/(gainEntries*S) bytes per byte). Measured in one process,
// compiled engine against native code on the DDTBench layouts
// (TestTierAB; docs/interpose-bench.md, "Engine losses, second pass"):
// lists of single floats and a few doubles save 0.1-1 ns per entry and
// pack + unpack (SPECFEM3D_oc M pack 1.27-1.38x faster native, 25,602
// entries, which compiled only after 4,669 calls of 100 KB, so MPI_Pack
// benchmarks of a few thousand calls ran the compiled engine: 0.78x of
// MPICH's speed; LAMMPS_full.send M 1.13-1.38x / 1.17-1.28x), lists of
// longer blocks about nothing (SPECFEM3D_cm M 1.00x / 0.98x); 4 MB
// messages of 131,083 to 349,158 entries gain on pack (LAMMPS_full.send
// L 1.06-1.09x, LAMMPS_atomic L 1.09-1.12x, SPECFEM3D_cm L 1.02-1.03x)
// and about nothing on unpack (since lists below the root unpack sorted:
// gen.sortedList), but the 1,048,578 single floats of SPECFEM3D_oc L (an
// 8 MB table) lose on both (0.92-0.97x), so programs of more entries
// than entryGainMax keep the byte model. With 1 ns per 8 entries
// SPECFEM3D_oc M compiles after about 340 calls and LAMMPS_full.send L
// after about 240 (the compile cost model over the gains measured: about
// 350 and 240 calls).
//
// The gain counts the entries an instance moves (movedEntries): a list
// that a struct repeats (LAMMPS_full.send L: a list of 65,536 entries used
// once and one used five times) saves per entry moved, however often the program
// holds it; the cost (threshold) and the bound entryGainMax count each
// list once, as the generator emits it.
func byteWeight(p *dame.Program) int64 {
	e := listEntries(p.Root, map[*dame.Node]bool{}, 0)
	s := p.Root.Size
	if e == 0 || e > entryGainMax || s <= 0 {
		return 16
	}
	m := movedEntries(p.Root, map[*dame.Node]int64{})
	return 16 + 16*gainBytes*min(m, movedMax)/(gainEntries*s)
}

// movedMax bounds movedEntries (saturating), far above any message's
// entries and low enough that byteWeight cannot overflow.
const movedMax = 1 << 40

// movedEntries is the number of list entries (block displacements) one
// instance of r moves: each node's own entries, and its children's times
// the instances of them each block holds (saturating at movedMax).
func movedEntries(r *dame.Node, memo map[*dame.Node]int64) int64 {
	if r == nil || r.Op == dame.ContigFinal {
		return 0
	}
	if m, ok := memo[r]; ok {
		return m
	}
	m := int64(len(r.Disps))
	switch r.Op {
	case dame.Struct:
		for i, c := range r.Children {
			m = satAdd(m, satMul(r.Blocklens[i], movedEntries(c, memo)))
		}
	case dame.Index:
		if k := movedEntries(r.Child, memo); k > 0 {
			for _, b := range r.Blocklens {
				m = satAdd(m, satMul(b, k))
			}
		}
	case dame.Contig:
		m = satMul(r.Count, movedEntries(r.Child, memo))
	default: // Vector, BlockIndex
		m = satAdd(m, satMul(satMul(r.NumBlocks(), r.Blocklen), movedEntries(r.Child, memo)))
	}
	memo[r] = m
	return m
}

// satAdd and satMul are a+b and a*b of non-negative counts, at most
// movedMax.
func satAdd(a, b int64) int64 { return min(a+b, movedMax) }

func satMul(a, b int64) int64 {
	if a <= 0 || b <= 0 {
		return 0
	}
	if a > movedMax/b {
		return movedMax
	}
	return min(a*b, movedMax)
}

// listEntries adds to n the list entries of the nodes under r, each
// shared node once, stopping past entryGainMax.
func listEntries(r *dame.Node, seen map[*dame.Node]bool, n int64) int64 {
	if r == nil || seen[r] || n > entryGainMax {
		return n
	}
	seen[r] = true
	n += int64(len(r.Disps))
	n = listEntries(r.Child, seen, n)
	for _, c := range r.Children {
		n = listEntries(c, seen, n)
	}
	return n
}

// callUses is what a call moving n packed bytes adds to the uses of an
// engine whose bytes weigh w 16ths (saturating).
func callUses(n, w int64) int64 {
	if n > (math.MaxInt64/4)/w {
		return math.MaxInt64 / 4
	}
	return callWeight + n*w/16
}

// afterEnv is DDT_JIT_AFTER, read once (-1 when unset or malformed).
var afterEnv = func() int64 {
	return parseAfter(os.Getenv("DDT_JIT_AFTER"))
}()

// parseAfter reads a DDT_JIT_AFTER value: a size (host.ParseSize) or 0;
// -1 when empty or malformed.
func parseAfter(s string) int64 {
	if s == "0" {
		return 0
	}
	if n, ok := host.ParseSize(s); ok {
		return n
	}
	return -1
}

// threshold is the uses (callWeight per call plus the bytes moved) after
// which p is compiled.
func threshold(p *dame.Program) int64 {
	if afterEnv >= 0 {
		return afterEnv
	}
	return (costBase + int64(ProgramSize(p))*costNode) * gainBytes
}

// ProgramSize is the number of nodes and list entries of p, each shared
// node once, counted up to a little past 2^16: what the generator's time
// grows with.
func ProgramSize(p *dame.Program) int {
	n := 0
	nodes(p.Root, map[*dame.Node]bool{}, &n)
	return n
}

func nodes(n *dame.Node, seen map[*dame.Node]bool, total *int) {
	if n == nil || seen[n] || *total > maxEntries {
		return
	}
	seen[n] = true
	*total += 1 + len(n.Disps)
	nodes(n.Child, seen, total)
	for _, c := range n.Children {
		nodes(c, seen, total)
	}
}

// TieredCalls is the number of calls moving n packed bytes each after
// which the tiered engine of p compiles.
func TieredCalls(p *dame.Program, n int64) int64 {
	t, u := threshold(p), callUses(n, weightOf(p))
	return max(1, (t+u-1)/u)
}

// weightOf is byteWeight(p), or 16 when DDT_JIT_AFTER sets the threshold
// (it counts plain bytes).
func weightOf(p *dame.Program) int64 {
	if afterEnv >= 0 {
		return 16
	}
	return byteWeight(p)
}

// New returns the engine of p with fallback fb.
func New(p *dame.Program, fb Base, opts Options) *Engine {
	e := &Engine{p: p, fb: fb, fbf: fb, vec: defaultVec}
	if opts.Vec == 16 || opts.Vec == 32 || opts.Vec == 64 {
		e.vec = min(e.vec, opts.Vec)
	}
	if opts.Off || !Available() || p.Root == nil {
		e.state.Store(2)
		return e
	}
	e.after, e.w = threshold(p), weightOf(p)
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
	if e.uses.Add(callUses(n, e.w)) >= e.after {
		e.compile()
		return e.code.Load()
	}
	return nil
}

// Prepare compiles at once (if not done yet) instead of waiting for the
// type to be used enough.
func (e *Engine) Prepare() {
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
// slices. Whole messages take Whole's entries in the caller (package ddt);
// here they take the same entry through Code.run.
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
	c.run(true, e.fbf, dst, src, origin, count, from)
}

// Whole returns the fast path of e's code, or nil while e runs its
// fallback or when its code has no whole-message entry. It is inlined.
// The Whole lies inside the Code, so holding it keeps the code mapped.
func (e *Engine) Whole() *host.Whole {
	if c := e.code.Load(); c != nil && c.wholeMax > 0 {
		return &c.fast
	}
	return nil
}

// Steps returns the steps of e's code that move one whole instance
// without the Go side (Code.Steps), once the code exists.
func (e *Engine) Steps() (pack, unpack []host.Step, ok bool) {
	if c := e.code.Load(); c != nil {
		return c.Steps()
	}
	return nil, nil, false
}

// Unpack reads src, the packed bytes [from, from+len(src)) of count
// instances, into dst, whose instance 0 has its origin at byte origin.
func (e *Engine) Unpack(dst, src []byte, origin, count, from int64) {
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

// Segments is the fallback's.
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
