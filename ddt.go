package ddt

import (
	"errors"
	"fmt"
	"math/bits"
	"sync"
	"sync/atomic"

	"github.com/ddtlab/ddt/dame"
	"github.com/ddtlab/ddt/dame/opt"
	"github.com/ddtlab/ddt/datatype"
	"github.com/ddtlab/ddt/internal/engine"
	"github.com/ddtlab/ddt/sig"
)

// Engine selects how a committed type moves data.
type Engine uint8

// Engines. Auto lets commit choose from the type's program (see Commit);
// Reference is the plain tree walker every other engine is tested against;
// Interpreter runs the DAME program on a stack machine; Compiled runs it
// with kernels chosen per primitive at commit; Native runs machine code
// generated for the program at commit (internal/engine/jit), where the
// machine and the program allow it, the compiled engine otherwise (Plan
// says which and why).
const (
	Auto        = Engine(engine.Auto)
	Reference   = Engine(engine.KindReference)
	Interpreter = Engine(engine.KindInterpreter)
	Compiled    = Engine(engine.KindCompiled)
	Native      = Engine(engine.KindNative)
)

var engineNames = engine.KindNames

// String is the engine's name as ParseEngine accepts it.
func (e Engine) String() string {
	if int(e) < len(engineNames) {
		return engineNames[e]
	}
	return fmt.Sprintf("Engine(%d)", e)
}

// ParseEngine returns the engine with the given name (auto, reference,
// interpreter, compiled, native).
func ParseEngine(name string) (Engine, error) {
	for i, n := range engineNames {
		if n == name {
			return Engine(i), nil
		}
	}
	return 0, fmt.Errorf("unknown engine %q (want one of %v)", name, engineNames[:])
}

// Normalization says when commit replaces the program of a type by a
// cheaper program that moves the same bytes in the same order
// (opt.Simplify: the local rewrites, and optimal reconstruction of block
// lists, of seed 000 section VI, applied to the program).
type Normalization uint8

// Normalization modes. NormalizeAuto (the zero value) simplifies where it
// pays: when the DAME program still holds explicit lists of 16 to
// AutoNormalizeEntries blocks in all (after Compile merged touching blocks
// and found runs of constant stride) whose gaps mostly repeat, where
// hidden regular structure is likely and the reconstruction takes tens of
// microseconds; the check costs O(nodes + blocks) and allocates nothing.
// Types built from contiguous, vector, hvector, subarray and resized
// nodes, and lists the compiler already reduced (a row and a column listed
// element by element), compile to near-optimal programs; random lists have
// no structure to find. NormalizeAlways simplifies every program within
// opt.CommitBudget (exact reconstruction only of sequences of up to 64
// blocks, about a millisecond of work, nothing for programs of more than
// 2^14 nodes and list entries); NormalizeNever never does.
//
// Normalization never changes the user's type, its Contents or anything
// Committed reports about it; only the engines run the simplified program.
// The reference engine never normalizes.
const (
	NormalizeAuto Normalization = iota
	NormalizeAlways
	NormalizeNever
)

var normNames = [...]string{"auto", "always", "never"}

func (n Normalization) String() string {
	if int(n) < len(normNames) {
		return normNames[n]
	}
	return fmt.Sprintf("Normalization(%d)", n)
}

// Options configure Commit. The zero value is the default.
type Options struct {
	Engine    Engine
	Normalize Normalization
	// Kernels is the kernel set of the engine ("" for the best the CPU
	// supports, lowered by the environment variables DDT_NOASM=1 or
	// DDT_ASM=go|avx2|avx512|neon read once at program start; or "go",
	// "avx2", "avx512", "neon", capped at what the CPU supports: neon is
	// arm64's, where the compiled engine keeps its Go loops and native
	// code is generated). It is fixed at commit.
	Kernels string
	// JITNow makes Auto generate the type's native code (internal/engine/jit) at
	// commit, as Native does. By default it is generated once what the
	// type's calls would have saved with it pays back the 15 µs and more
	// that takes (a model measured by `ddt bench --fig 17`; about 300 calls
	// of 2 KB or 8 of 1 MB for small programs; DDT_JIT_AFTER overrides it);
	// Compiled or Interpreter, Kernels "go", or DDT_NOJIT=1 in the
	// environment turn native code off.
	JITNow bool
	// Threads is how many goroutines move one message, each a range of
	// the packed stream (the engines resume at any byte): 0 lets Pack and
	// Unpack choose (one goroutine below ParallelMin packed bytes, above
	// it up to GOMAXPROCS, each taking at least ParallelMin/2 bytes), 1
	// never splits, n > 1 splits messages of at least 2·64 KiB into at
	// most n ranges of at least 64 KiB. Unpack in parallel assumes, as
	// MPI does of a receive type, that no two entries of the type map
	// overlap; with 1 a type that does overlap unpacks in type-map order.
	Threads int
}

// ParallelMin is the message size (packed bytes) from which Threads 0
// moves a message with several goroutines: below it, starting and
// joining them costs more than the second core gains (docs/performance.md).
const ParallelMin = 4 << 20

// minPiece is the least range of the packed stream a goroutine takes when
// Options.Threads asks for several (a variable for tests only).
var minPiece int64 = 64 << 10

// AutoNormalizeEntries bounds the number of blocks of the lists that
// NormalizeAuto hands to opt.Simplify.
const AutoNormalizeEntries = opt.AutoMaxBlocks

// Committed is a type ready to pack and unpack. It is immutable and safe
// for concurrent use.
type Committed struct {
	t *datatype.Type
	// normalized is set when prog is the simplification of t's program
	normalized bool
	kind       Engine // as asked
	now        bool   // generate native code at commit
	lv         engine.Level
	// threads is Options.Threads, at most MaxInt32 (the small fields sit
	// together so that a one-node committed type fits 288 bytes)
	threads int32
	// par is the size (packed bytes) from which a message is split between
	// goroutines (max int64 for Threads 1)
	par  int64
	prog *dame.Program // nil for the reference engine until Program is called
	// eng is the engine, built on first use (newEngine): a type committed
	// and freed without moving data never pays for its plan.
	eng    atomic.Pointer[engineRef]
	lazy   atomic.Pointer[lazyParts] // made on first use (parts)
	bounds bounds                    // what Pack and Unpack check, precomputed
}

// lazyParts is what a Committed computes on first use only, kept apart so
// that a committed type and its program fit in one small allocation.
type lazyParts struct {
	sigMu  sync.Once
	sig    sig.Sig // signature of one instance (seed 004)
	progMu sync.Once
	treeMu sync.Once
	tree   *sig.Tree
}

// parts returns c's lazily computed parts, making them on first use.
func (c *Committed) parts() *lazyParts {
	if l := c.lazy.Load(); l != nil {
		return l
	}
	l := new(lazyParts)
	if c.lazy.CompareAndSwap(nil, l) {
		return l
	}
	return c.lazy.Load()
}

// engineRef holds a Committed's engine and why engine.Select chose it.
type engineRef struct {
	engine.Engine
	why engine.Reason
	// fast is the engine's path for whole messages (max 0 until the
	// engine has one, see upgrade; its entries keep the code mapped);
	// keep is the engine.Whole it was made from (nil until then).
	fast fastPath
	keep *engine.Whole
}

// fastPath is what Pack and Unpack need to hand a whole message straight
// to the engine's whole-message entry: its entries (pack, unpack; engine.Whole), the packed size,
// extent and data bounds of one instance (as in bounds), and max, the
// most instances one call takes: at most one piece of the code and at
// most bounds.maxCount, so that no product or shifted bound of fits
// overflows. The entries take the caller's origin as it is: the first
// address the code loads then depends only on the arguments, not on
// loads from c (measured: 3 ns of a 45 ns call, where one call's start
// waits for the previous one to drain).
type fastPath struct {
	entry  [2]engine.Entry
	size   int64
	lo, hi int64 // data bounds of instance 0
	eLo    int64 // min(extent, 0): how far each further instance lowers lo
	eHi    int64 // max(extent, 0): how far it raises hi
	max    int64
	// pmax is max for Pack: also fewer instances than pack to
	// NonTemporalMin bytes, which go through packNT instead.
	pmax int64
}

// fits is bounds.fits for a message with count in [1, max] (the caller
// checks that): whether count instances with their origin at byte origin
// of a memory image of n bytes stay inside it and their pack size fits
// np bytes, and that size. Inlined; few registers (the caller's arguments
// stay in theirs).
func (f *fastPath) fits(n, np int, origin, count int64) (int64, bool) {
	k := count - 1
	size := count * f.size
	return size, uint64(origin+limit) < 2*limit && origin+f.lo+k*f.eLo >= 0 &&
		origin+f.hi+k*f.eHi <= int64(n) && size <= int64(np)
}

// Commit prepares t for packing with the default options.
func Commit(t *datatype.Type) (*Committed, error) { return CommitWith(t, Options{}) }

// Compilable reports whether commit compiles t into a DAME program: it
// always does. A type that uses a subtype several times (t_i = struct of
// two t_{i-1}, whose tree expanded is exponentially larger than its
// description) compiles into a program that shares the subtype's
// sub-program (a DAG), in time and memory linear in the description, and
// every engine runs it. (Before programs were shared, such types ran on
// the reference engine; the function stays for callers that asked.)
func Compilable(t *datatype.Type) bool { return t != nil }

// CommitWith prepares t for packing with opts: it compiles t into a DAME
// program (opt.Compile, which applies the local rewrites) and normalizes
// it as opts.Normalize says. The engine is built from the program when it
// is first needed (by Pack, Unpack, Segments, Plan or Engine; at once with
// opts.JITNow or Native): engine.Select chooses it (Auto: native code
// when a generator takes the program, the compiled engine otherwise; Plan
// shows the choice and its reason), and engines build their plan (kernels
// per primitive) then, so a type committed and freed without moving data
// costs only its compilation.
func CommitWith(t *datatype.Type, opts Options) (*Committed, error) {
	if t == nil {
		return nil, errors.New("commit: nil type")
	}
	if int(opts.Engine) >= len(engineNames) {
		return nil, fmt.Errorf("commit: unknown engine %v", opts.Engine)
	}
	if int(opts.Normalize) >= len(normNames) {
		return nil, fmt.Errorf("commit: unknown normalization mode %v", opts.Normalize)
	}
	lv := engine.DefaultLevel()
	if opts.Kernels != "" {
		l, err := engine.ParseLevel(opts.Kernels)
		if err != nil {
			return nil, fmt.Errorf("commit: %w", err)
		}
		lv = min(l, engine.MaxLevel())
	}
	if opts.Threads < 0 {
		return nil, fmt.Errorf("commit: negative thread count %d", opts.Threads)
	}
	th, par := threading(opts.Threads)
	if opts.Engine == Reference {
		c := &Committed{t: t, kind: Reference, lv: lv, threads: th, par: par}
		c.bounds.set(t)
		return c, nil
	}
	// one allocation for the committed type, its program and the
	// program's first two nodes (448 bytes); for a type of two levels or
	// a struct also room for its first short block list (576 bytes: the
	// harness's single cycles of the one-level types pay for the bytes);
	// a struct, whose members mostly differ (a STRUCT node and one child
	// each), has room for three nodes (728 bytes)
	var c *Committed
	var slab []dame.Node
	var room *opt.ListRoom
	if t.Combiner() == datatype.CombinerStruct {
		cp := new(struct {
			c Committed
			p dame.Program
			n [3]dame.Node
			l opt.ListRoom
		})
		c, slab, room = &cp.c, cp.n[:0:len(cp.n)], &cp.l
		c.prog = &cp.p
	} else if t.Depth() >= 2 {
		cp := new(struct {
			c Committed
			p dame.Program
			n [2]dame.Node
			l opt.ListRoom
		})
		c, slab, room = &cp.c, cp.n[:0:len(cp.n)], &cp.l
		c.prog = &cp.p
	} else {
		cp := new(struct {
			c Committed
			p dame.Program
			n [2]dame.Node
		})
		c, slab = &cp.c, cp.n[:0:len(cp.n)]
		c.prog = &cp.p
	}
	c.t, c.kind, c.lv = t, opts.Engine, lv
	c.now = opts.Engine == Native || opts.JITNow && opts.Engine == Auto
	c.threads, c.par = th, par
	c.bounds.set(t)
	opt.CompileInto(c.prog, slab, room, t)
	c.normalize(opts.Normalize)
	if c.now {
		c.engine()
	}
	return c, nil
}

// engine returns c's engine, building it on first use.
func (c *Committed) engine() engine.Engine {
	if r := c.eng.Load(); r != nil {
		return r.Engine
	}
	return c.newEngine().Engine
}

// newEngine builds c's engine (engine.Select). Goroutines that race here
// build one each; all use the first one stored (engines are immutable
// plans, and a native engine compiles its code only once it is used).
func (c *Committed) newEngine() *engineRef {
	r := &engineRef{}
	var p *dame.Program
	if c.kind != Reference {
		p = c.prog
	}
	r.Engine, r.why = engine.Select(p, engine.Caps{Want: engine.Kind(c.kind), Level: c.lv, Now: c.now, Type: c.t})
	if c.eng.CompareAndSwap(nil, r) {
		return r
	}
	return c.eng.Load()
}

// normalize replaces c's program by its simplification (opt.Simplify)
// as mode says, if that gains.
func (c *Committed) normalize(mode Normalization) {
	if q := normalized(c.t, c.prog, mode); q != c.prog {
		c.prog, c.normalized = q, true
	}
}

// Program returns the DAME program the engines run (computing it if the
// type was committed for the reference engine): the type compiled, and
// simplified when Normalized reports so.
func (c *Committed) Program() *dame.Program {
	c.parts().progMu.Do(func() {
		if c.prog == nil {
			c.prog = opt.Compile(c.t)
		}
	})
	return c.prog
}

// Plan describes how the engine moves the data: which engine runs and
// why (engine.Select), its kernel set and the kernel chosen for each
// primitive (building the plan if no data has moved yet).
func (c *Committed) Plan() string {
	c.engine()
	r := c.eng.Load()
	return r.why.String() + "\n" + r.Engine.String()
}

// Normalized reports whether the engines run a simplified program: one
// cheaper than the type's compiled program, moving the same bytes in the
// same order (see Normalization).
func (c *Committed) Normalized() bool { return c.normalized }

// normalized returns p, the program of t, simplified as mode says
// (opt.Simplify within opt.CommitBudget, or AutoBudget restricted to
// lists of AutoNormalizeEntries blocks), or p itself.
func normalized(t *datatype.Type, p *dame.Program, mode Normalization) *dame.Program {
	var q *dame.Program
	switch mode {
	case NormalizeAlways:
		q = opt.Simplify(p, opt.CommitBudget)
	case NormalizeAuto:
		q = opt.Simplify(p, opt.AutoBudget)
	}
	if q == nil || q == p {
		return p
	}
	// Buffers are checked against t's data bounds; the engines must not
	// reach further (they cannot if the programs move the same bytes, as
	// Simplify guarantees, but this is what memory safety rests on).
	lo, hi, ok := q.DataBounds()
	lo0, hi0 := t.DataBounds()
	if !ok || lo < lo0 || hi > hi0 || q.Size != t.Size() || q.Extent != t.Extent() {
		return p
	}
	return q
}

// Signature is the type signature of one instance (its hash and element
// count, seed 004), computed at commit from the type tree.
func (c *Committed) Signature() sig.Sig {
	l := c.parts()
	l.sigMu.Do(func() { l.sig = sig.Of(c.t) })
	return l.sig
}

// SignatureTree is the signature tree of the type (built on first use, in
// O(nodes)): prefixes, elements and Match against a received message's
// signature in O(depth · log), the one signature source for receives.
func (c *Committed) SignatureTree() *sig.Tree {
	l := c.parts()
	l.treeMu.Do(func() { l.tree = sig.NewTree(c.t) })
	return l.tree
}

// MatchSignature checks a message of signature sent against a receive of
// count instances of the type (sig.Match, with the type's tree).
func (c *Committed) MatchSignature(sent sig.Sig, count int64) error {
	return c.SignatureTree().Match(sent, count)
}

// MessageSignature is the signature of count instances: what a message of
// count instances carries, checked by the receiver with sig.Match.
func (c *Committed) MessageSignature(count int64) (sig.Sig, error) {
	if count < 0 {
		return sig.Sig{}, fmt.Errorf("negative count %d", count)
	}
	return c.Signature().Repeat(count)
}

// Type returns the committed type.
func (c *Committed) Type() *datatype.Type { return c.t }

// Engine returns the engine the committed type uses: the one asked for,
// or for Auto the one chosen from its program (Compiled or Native), and
// Compiled for Native where native code does not apply (see Plan), building
// it if no data has moved yet.
func (c *Committed) Engine() Engine {
	if c.kind == Reference || c.kind == Interpreter || c.kind == Compiled {
		return c.kind
	}
	if r := c.eng.Load(); r != nil {
		return Engine(r.why.Kind)
	}
	return Engine(c.newEngine().why.Kind)
}

// PackSize is the number of bytes Pack produces for count instances.
func (c *Committed) PackSize(count int64) (int64, error) {
	if count < 0 {
		return 0, fmt.Errorf("negative count %d", count)
	}
	return c.t.PackSize(count)
}

// BufferError reports a buffer that is too small or that the type would
// reach outside of.
type BufferError struct {
	Op  string // "pack" or "unpack"
	Msg string
}

func (e *BufferError) Error() string { return e.Op + ": " + e.Msg }

// checkImage verifies that count instances with their origin at byte origin
// of a buffer of length n stay inside it, and returns the pack size.
func (c *Committed) checkImage(op string, n int, origin, count int64) (int64, error) {
	if count < 0 {
		return 0, &BufferError{op, fmt.Sprintf("negative count %d", count)}
	}
	size, err := c.t.PackSize(count)
	if err != nil {
		return 0, &BufferError{op, err.Error()}
	}
	lo, hi, err := c.t.Span(count)
	if err != nil {
		return 0, &BufferError{op, err.Error()}
	}
	if lo == hi {
		return size, nil
	}
	first, ok1 := addOK(origin, lo)
	last, ok2 := addOK(origin, hi)
	if !ok1 || !ok2 || first < 0 || last > int64(n) {
		return 0, &BufferError{op, fmt.Sprintf("%d instances touch bytes [%d, %d) relative to origin %d, outside the %d-byte buffer",
			count, lo, hi, origin, n)}
	}
	return size, nil
}

// Pack and Unpack take their arguments in one order, that of copy:
//
//	c.Pack(packed, image, origin, count)   // image → packed
//	c.Unpack(image, packed, origin, count) // packed → image
//
// The destination comes first, the source second, then origin, which always
// locates instance 0 in the memory image (the byte of the image slice where
// displacement 0 of instance 0 lies, so types with negative lower bounds
// work), and the number of instances.

// bounds is what the fast check of Pack and Unpack needs of one instance:
// its packed size, extent and data bounds, and maxCount, a number of
// instances up to which count*size, (count-1)*extent and the bounds
// shifted by that cannot overflow (0 for a type without data: those go the
// checked way, as do counts above it).
type bounds struct {
	size, ext, lo, hi, maxCount int64
}

// limit bounds every product and shifted bound of the fast check, so that
// adding an origin of magnitude below limit cannot overflow either.
const limit = 1 << 61

// set precomputes the fast check of t into b. It writes b's fields in
// place: a bounds built on the stack and copied into the committed type
// was read back (16 bytes at a time) from the fields just written, a
// stalled store forward that cost as much as the rest of it.
func (b *bounds) set(t *datatype.Type) {
	size, ext := t.Size(), t.Extent()
	lo, hi := t.DataBounds()
	b.size, b.ext, b.lo, b.hi, b.maxCount = size, ext, lo, hi, 0
	if size <= 0 || lo <= -limit || hi >= limit || ext <= -limit || ext >= limit {
		return
	}
	// limit >> bits.Len64(m) is limit / m rounded down to a power of two
	// (at least half of it): a shift, not a 64-bit division
	m := max(size, ext, -ext, 1)
	b.maxCount = limit >> bits.Len64(uint64(m))
}

// fits reports whether count instances with their origin at byte origin of
// a buffer of n bytes stay inside it, and their pack size, for the common
// case: count in [1, maxCount] and origin of magnitude below limit (false
// sends everything else to checkImage, which gives the error if any).
// Inlined: a few compares and two multiplications.
func (b *bounds) fits(n int, origin, count int64) (int64, bool) {
	if uint64(count-1) >= uint64(b.maxCount) || uint64(origin+limit) >= 2*limit {
		return 0, false
	}
	lo, hi := b.lo, b.hi
	if sh := (count - 1) * b.ext; sh < 0 {
		lo += sh
	} else {
		hi += sh
	}
	return count * b.size, origin+lo >= 0 && origin+hi <= int64(n)
}

// Pack packs count instances from the memory image src, whose instance 0
// has its origin at byte origin of src, into dst, and returns the number of
// bytes written. It is an error, before any byte is written, if the type
// reaches outside src or dst is too small.
//
// A whole message of an engine with a whole-message entry (native code,
// see upgrade) takes the shortest path: one load, the inlined check of
// fastPath.fits and the call of the entry. That check is the only one
// the message passes: the entry does none.
func (c *Committed) Pack(dst, src []byte, origin, count int64) (int64, error) {
	if r := c.eng.Load(); r != nil && uint64(count-1) < uint64(r.fast.pmax) {
		if size, ok := r.fast.fits(len(src), len(dst), origin, count); ok {
			engine.Call(r.fast.entry[0], src, origin, dst, count)
			return size, nil
		}
	}
	return c.pack(dst, src, origin, count)
}

// pack is Pack through the engine: its fast check, then the full check
// with its errors (and the first call, which builds the engine).
//
//go:noinline
func (c *Committed) pack(dst, src []byte, origin, count int64) (int64, error) {
	if r := c.eng.Load(); r != nil {
		if size, ok := c.bounds.fits(len(src), origin, count); ok && int64(len(dst)) >= size {
			if size >= c.par {
				c.parallel(r, true, src, dst[:size], origin, count)
				return size, nil
			}
			if size >= ntMin {
				packNT(r, c.ntPiece(), dst[:size], src, origin, count, 0)
			} else {
				r.Pack(dst[:size], src, origin, count, 0)
			}
			c.upgrade(r)
			return size, nil
		}
	}
	return c.packChecked(dst, src, origin, count)
}

// packChecked is Pack with the full check and its errors (and the first
// call, which builds the engine).
func (c *Committed) packChecked(dst, src []byte, origin, count int64) (int64, error) {
	size, err := c.checkImage("pack", len(src), origin, count)
	if err != nil {
		return 0, err
	}
	if int64(len(dst)) < size {
		return 0, &BufferError{"pack", fmt.Sprintf("output holds %d bytes, %d instances need %d", len(dst), count, size)}
	}
	if size >= c.par {
		c.parallel(c.engine(), true, src, dst[:size], origin, count)
		return size, nil
	}
	c.packRange(dst[:size], src, origin, count, 0)
	return size, nil
}

// Unpack unpacks count instances from the packed bytes src into the memory
// image dst, whose instance 0 has its origin at byte origin of dst, and
// returns the number of bytes read. Bytes of dst the type does not cover
// are left as they were. It is an error, before any byte is written, if the
// type reaches outside dst or src holds fewer bytes than count instances
// need.
func (c *Committed) Unpack(dst, src []byte, origin, count int64) (int64, error) {
	if r := c.eng.Load(); r != nil && uint64(count-1) < uint64(r.fast.max) {
		if size, ok := r.fast.fits(len(dst), len(src), origin, count); ok {
			engine.Call(r.fast.entry[1], dst, origin, src, count)
			return size, nil
		}
	}
	return c.unpack(dst, src, origin, count)
}

// unpack is Unpack through the engine (see pack).
//
//go:noinline
func (c *Committed) unpack(dst, src []byte, origin, count int64) (int64, error) {
	if r := c.eng.Load(); r != nil {
		if size, ok := c.bounds.fits(len(dst), origin, count); ok && int64(len(src)) >= size {
			if size >= c.par {
				c.parallel(r, false, dst, src[:size], origin, count)
				return size, nil
			}
			r.Unpack(dst, src[:size], origin, count, 0)
			c.upgrade(r)
			return size, nil
		}
	}
	return c.unpackChecked(dst, src, origin, count)
}

// unpackChecked is Unpack with the full check and its errors (and the
// first call, which builds the engine).
func (c *Committed) unpackChecked(dst, src []byte, origin, count int64) (int64, error) {
	size, err := c.checkImage("unpack", len(dst), origin, count)
	if err != nil {
		return 0, err
	}
	if int64(len(src)) < size {
		return 0, &BufferError{"unpack", fmt.Sprintf("input holds %d bytes, %d instances need %d", len(src), count, size)}
	}
	if size >= c.par {
		c.parallel(c.engine(), false, dst, src[:size], origin, count)
		return size, nil
	}
	c.unpackRange(dst, src[:size], origin, count, 0)
	return size, nil
}

// packRange and unpackRange run the engine on a range of the packed
// stream. The caller has checked the whole message against the buffers.
func (c *Committed) packRange(dst, src []byte, origin, count, from int64) {
	if int64(len(dst)) >= ntMin {
		packNT(c.engine(), c.ntPiece(), dst, src, origin, count, from)
		return
	}
	c.engine().Pack(dst, src, origin, count, from)
}

func (c *Committed) unpackRange(dst, src []byte, origin, count, from int64) {
	c.engine().Unpack(dst, src, origin, count, from)
}

func addOK(a, b int64) (int64, bool) {
	c := a + b
	return c, (c > a) == (b > 0)
}
