package ddt

import (
	"errors"
	"fmt"
	"sync"

	"github.com/ddtlab/ddt/dame"
	"github.com/ddtlab/ddt/datatype"
	"github.com/ddtlab/ddt/internal/engine"
	"github.com/ddtlab/ddt/optimal"
	"github.com/ddtlab/ddt/sig"
)

// Engine selects how a committed type moves data.
type Engine uint8

// Engines. Auto lets commit choose from the type's program (see Commit);
// Reference is the plain tree walker every other engine is tested against;
// Interpreter runs the DAME program on a stack machine; Compiled runs it
// with kernels chosen per primitive at commit.
const (
	Auto Engine = iota
	Reference
	Interpreter
	Compiled
)

var engineNames = [...]string{"auto", "reference", "interpreter", "compiled"}

// String is the engine's name as ParseEngine accepts it.
func (e Engine) String() string {
	if int(e) < len(engineNames) {
		return engineNames[e]
	}
	return fmt.Sprintf("Engine(%d)", e)
}

// ParseEngine returns the engine with the given name (auto, reference,
// interpreter, compiled).
func ParseEngine(name string) (Engine, error) {
	for i, n := range engineNames {
		if n == name {
			return Engine(i), nil
		}
	}
	return 0, fmt.Errorf("unknown engine %q (want one of %v)", name, engineNames[:])
}

// Normalization says when commit replaces the program of a type by the
// program of a cheaper type with the same type map (seed 000, section VI).
type Normalization uint8

// Normalization modes. NormalizeAuto (the zero value) normalizes where it
// pays: when the DAME program still holds an explicit list of 16 to
// AutoNormalizeEntries blocks (after merging touching blocks and finding
// runs of constant stride) whose gaps mostly repeat, where hidden regular
// structure is likely and the optimizer takes tens of microseconds. Types
// built from contiguous, vector, hvector, subarray and resized nodes, and
// lists the compiler already reduced (a row and a column listed element by
// element), compile to near-optimal programs; random lists have no
// structure to find. NormalizeAlways normalizes every type within the
// commit budget (optimal.CommitNormalizeOptions: exact reconstruction only
// on small sequences, about a millisecond of work, nothing for very large
// trees); NormalizeNever never does.
//
// Normalization never changes the user's type, its Contents or anything
// Committed reports about it; only the engines run the normalized program.
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
	// DDT_ASM=go|avx2|avx512 read once at program start; or "go", "avx2",
	// "avx512", capped at what the CPU supports). It is fixed at commit.
	Kernels string
	// JITNow makes Auto generate the type's native code (internal/jit) at
	// commit. By default it is generated once the type has moved enough
	// data to pay back the few microseconds that takes; Compiled or
	// Interpreter, Kernels "go", or DDT_NOJIT=1 in the environment turn
	// native code off.
	JITNow bool
}

// AutoNormalizeEntries bounds the number of blocks of the lists that
// NormalizeAuto hands to the optimizer.
const AutoNormalizeEntries = 1024

// Committed is a type ready to pack and unpack. It is immutable and safe
// for concurrent use.
type Committed struct {
	t      *datatype.Type
	exec   *datatype.Type // the type the program was compiled from: t, or t normalized
	kind   Engine
	prog   *dame.Program // nil for the reference engine until Program is called
	eng    engine.Engine
	sig    sig.Sig // signature of one instance (seed 004), computed at commit
	progMu sync.Once
	treeMu sync.Once
	tree   *sig.Tree // built on first use
	bounds bounds    // what Pack and Unpack check, precomputed
}

// Commit prepares t for packing with the default options.
func Commit(t *datatype.Type) (*Committed, error) { return CommitWith(t, Options{}) }

// Compilable reports whether commit compiles t into a DAME program. A type
// whose tree, with each use of a shared subtype expanded, has more than
// 2^20 nodes and more than 16 times its distinct nodes is not: its program
// would be that expanded tree, exponentially larger than its description
// (t_i = struct of two t_{i-1}). Such types run on the reference engine,
// whose work is bounded by the bytes moved, whatever Options.Engine says.
func Compilable(t *datatype.Type) bool {
	const limit = 1 << 20
	distinct, expanded := t.Nodes(limit + 1)
	return expanded <= limit || expanded <= 16*distinct
}

// CommitWith prepares t for packing with opts: it compiles t into a DAME
// program (dame.Compile, which applies the local rewrites), normalizes it
// as opts.Normalize says, and chooses the engine. Auto chooses from the
// program: the native-code engine when one is linked in and accepts the
// program, the compiled engine otherwise. Engines build their plan
// (kernels per primitive) on first use, so a type committed and freed
// without moving data costs only its compilation.
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
	if opts.Engine == Reference || !Compilable(t) {
		return &Committed{t: t, exec: t, kind: Reference, sig: sig.Of(t), eng: engine.NewReference(t), bounds: boundsOf(t)}, nil
	}
	// one allocation for the committed type and its program
	cp := new(struct {
		c Committed
		p dame.Program
	})
	c := &cp.c
	*c = Committed{t: t, exec: t, kind: opts.Engine, sig: sig.Of(t), prog: &cp.p, bounds: boundsOf(t)}
	dame.CompileTo(c.prog, t)
	switch opts.Normalize {
	case NormalizeAlways:
		c.normalize()
	case NormalizeAuto:
		if dame.Irregular(c.prog, 16, AutoNormalizeEntries) {
			c.normalize()
		}
	}
	switch c.kind {
	case Interpreter:
		c.eng = engine.NewInterp(c.prog, lv)
	case Compiled:
		c.eng = engine.NewCompiled(c.prog, lv)
	default:
		c.eng = engine.Choose(c.prog, lv)
		if opts.JITNow {
			compileNow(c.eng)
		}
		c.kind = Compiled
		if _, ok := c.eng.(*engine.Compiled); !ok {
			c.kind = Auto // a native engine linked in
		}
	}
	return c, nil
}

// normalize replaces c's program by that of c's type normalized, if that
// gains.
func (c *Committed) normalize() {
	if nt := normalized(c.t); nt != c.t {
		c.exec, c.prog = nt, dame.Compile(nt)
	}
}

// Program returns the DAME program the type was compiled to (computing it
// if the type was committed for the reference engine); when the type was
// normalized it is the program of the normalized type.
func (c *Committed) Program() *dame.Program {
	c.progMu.Do(func() {
		if c.prog == nil {
			c.prog = dame.Compile(c.exec)
		}
	})
	return c.prog
}

// Plan describes how the engine moves the data: its name, kernel set and
// the kernel chosen for each primitive (building the plan if no data has
// moved yet).
func (c *Committed) Plan() string { return c.eng.String() }

// Normalized reports whether the engines run the program of a normalized
// form of the type (see Normalization).
func (c *Committed) Normalized() bool { return c.exec != c.t }

// normalized returns t normalized within the commit budget, or t itself if
// that gains nothing or fails. The result has t's type map, lower bound and
// extent, which is all the engines depend on.
func normalized(t *datatype.Type) *datatype.Type {
	nt, before, after, err := optimal.Normalize(t, optimal.CommitNormalizeOptions())
	if err != nil || after >= before || nt.LB() != t.LB() || nt.Extent() != t.Extent() || nt.Size() != t.Size() {
		return t
	}
	// Buffers are checked against t's data bounds; the engines must not
	// reach further (they cannot if the type maps are equal, as Normalize
	// guarantees, but this is what memory safety rests on).
	lo, hi := nt.DataBounds()
	lo0, hi0 := t.DataBounds()
	if lo < lo0 || hi > hi0 {
		return t
	}
	return nt
}

// Signature is the type signature of one instance (its hash and element
// count, seed 004), computed at commit from the type tree.
func (c *Committed) Signature() sig.Sig { return c.sig }

// SignatureTree is the signature tree of the type (built on first use, in
// O(nodes)): prefixes, elements and Match against a received message's
// signature in O(depth · log), the one signature source for receives.
func (c *Committed) SignatureTree() *sig.Tree {
	c.treeMu.Do(func() { c.tree = sig.NewTree(c.t) })
	return c.tree
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
	return c.sig.Repeat(count)
}

// Type returns the committed type.
func (c *Committed) Type() *datatype.Type { return c.t }

// Engine returns the engine the committed type uses: the one asked for,
// or for Auto the one commit chose (Compiled, or Auto itself when the
// choice is an engine without a name of its own, such as native code).
func (c *Committed) Engine() Engine { return c.kind }

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
// its packed size, extent and data bounds, and maxCount, the most instances
// for which count*size, (count-1)*extent and the bounds shifted by that
// cannot overflow (0 for a type without data: those go the checked way).
type bounds struct {
	size, ext, lo, hi, maxCount int64
}

// limit bounds every product and shifted bound of the fast check, so that
// adding an origin of magnitude below limit cannot overflow either.
const limit = 1 << 61

// boundsOf precomputes the fast check of t.
func boundsOf(t *datatype.Type) bounds {
	b := bounds{size: t.Size(), ext: t.Extent()}
	b.lo, b.hi = t.DataBounds()
	if b.size <= 0 || b.lo <= -limit || b.hi >= limit || b.ext <= -limit || b.ext >= limit {
		return b
	}
	m := max(b.size, b.ext, -b.ext, 1)
	b.maxCount = limit / m
	return b
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
func (c *Committed) Pack(dst, src []byte, origin, count int64) (int64, error) {
	if size, ok := c.bounds.fits(len(src), origin, count); ok && int64(len(dst)) >= size {
		c.eng.Pack(dst[:size], src, origin, count, 0)
		return size, nil
	}
	return c.packChecked(dst, src, origin, count)
}

// packChecked is Pack with the full check and its errors.
func (c *Committed) packChecked(dst, src []byte, origin, count int64) (int64, error) {
	size, err := c.checkImage("pack", len(src), origin, count)
	if err != nil {
		return 0, err
	}
	if int64(len(dst)) < size {
		return 0, &BufferError{"pack", fmt.Sprintf("output holds %d bytes, %d instances need %d", len(dst), count, size)}
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
	if size, ok := c.bounds.fits(len(dst), origin, count); ok && int64(len(src)) >= size {
		c.eng.Unpack(dst, src[:size], origin, count, 0)
		return size, nil
	}
	return c.unpackChecked(dst, src, origin, count)
}

// unpackChecked is Unpack with the full check and its errors.
func (c *Committed) unpackChecked(dst, src []byte, origin, count int64) (int64, error) {
	size, err := c.checkImage("unpack", len(dst), origin, count)
	if err != nil {
		return 0, err
	}
	if int64(len(src)) < size {
		return 0, &BufferError{"unpack", fmt.Sprintf("input holds %d bytes, %d instances need %d", len(src), count, size)}
	}
	c.unpackRange(dst, src[:size], origin, count, 0)
	return size, nil
}

// packRange and unpackRange run the engine on a range of the packed
// stream. The caller has checked the whole message against the buffers.
func (c *Committed) packRange(dst, src []byte, origin, count, from int64) {
	c.eng.Pack(dst, src, origin, count, from)
}

func (c *Committed) unpackRange(dst, src []byte, origin, count, from int64) {
	c.eng.Unpack(dst, src, origin, count, from)
}

func addOK(a, b int64) (int64, bool) {
	c := a + b
	return c, (c > a) == (b > 0)
}
