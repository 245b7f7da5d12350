package ddt

import (
	"errors"
	"fmt"

	"github.com/ddtlab/ddt/dame"
	"github.com/ddtlab/ddt/datatype"
	"github.com/ddtlab/ddt/internal/engine"
	"github.com/ddtlab/ddt/internal/ref"
	"github.com/ddtlab/ddt/optimal"
	"github.com/ddtlab/ddt/sig"
)

// Engine selects how a committed type moves data.
type Engine uint8

// Engines. Auto lets the type choose the fastest engine that applies (today
// always Compiled). Reference is the plain tree walker every other engine is
// tested against; Interpreter runs the DAME program on a stack machine;
// Compiled runs it with kernels specialized at commit.
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

// Options configure Commit.
type Options struct {
	Engine Engine
	// Normalize lets commit replace the type's internal description by a
	// cheaper one with the same type map, lower bound and extent (seed 000,
	// section VI; optimal.Normalize with optimal.CommitNormalizeOptions:
	// exact reconstruction only on small sequences, a work budget of about
	// a millisecond, and nothing done for types with very large trees). The
	// user's type, its Contents and everything Committed reports about it
	// are unchanged; only the engines run on the normalized type. The
	// reference engine never normalizes.
	//
	// Without Normalize, commit still normalizes automatically the types
	// where it pays: those with explicit displacement lists (indexed,
	// hindexed, indexed_block, hindexed_block, struct) of 16 to
	// AutoNormalizeEntries entries in all whose gaps mostly repeat, where
	// hidden regular structure is likely and normalizing costs tens of
	// microseconds. Types built from contiguous, vector, hvector, subarray
	// and resized nodes are already near-optimal, and random lists have no
	// structure to find; they are committed as they are.
	Normalize bool
	// NoNormalize turns automatic normalization off.
	NoNormalize bool
}

// AutoNormalizeEntries bounds the total number of list entries of the types
// commit normalizes automatically (see Options.Normalize).
const AutoNormalizeEntries = 1024

// autoNormalize reports whether commit normalizes t by default: it has
// displacement lists of 16 to AutoNormalizeEntries entries in all, and they
// look regular — most consecutive gaps repeat the gap before them, as in a
// vector or a row and a column listed element by element. Random lists
// (the usual gather lists of applications) have no structure for the
// optimizer to find and are committed as they are, in microseconds.
func autoNormalize(t *datatype.Type) bool {
	var s listStats
	if !s.add(t, map[*datatype.Type]bool{}) {
		return false
	}
	return s.entries >= 16 && s.breaks*4 <= s.entries
}

// listStats counts the list entries of a type tree and the breaks in their
// gap sequences (places where a gap differs from the previous gap).
type listStats struct {
	entries, breaks int
}

// add adds t's tree; it returns false once the entries pass
// AutoNormalizeEntries.
func (s *listStats) add(t *datatype.Type, seen map[*datatype.Type]bool) bool {
	if seen[t] {
		return true
	}
	seen[t] = true
	a := t.Args()
	switch t.Combiner() {
	case datatype.CombinerIndexed, datatype.CombinerHIndexed, datatype.CombinerIndexedBlock,
		datatype.CombinerHIndexedBlock, datatype.CombinerStruct:
		d := a.Displacements
		s.entries += len(d)
		if s.entries > AutoNormalizeEntries {
			return false
		}
		for i := 2; i < len(d); i++ {
			if d[i]-d[i-1] != d[i-1]-d[i-2] {
				s.breaks++
			}
		}
	}
	for _, ch := range a.Types {
		if !s.add(ch, seen) {
			return false
		}
	}
	return true
}

// Committed is a type ready to pack and unpack. It is immutable and safe
// for concurrent use.
type Committed struct {
	t      *datatype.Type
	exec   *datatype.Type // what the engines run: t, or t normalized
	engine Engine
	prog   *dame.Program
	interp *engine.Interp
	comp   *engine.Compiled
	sig    sig.Sig // signature of one instance (seed 004), computed at commit
}

// Commit prepares t for packing with the default options.
func Commit(t *datatype.Type) (*Committed, error) { return CommitWith(t, Options{}) }

// CommitWith prepares t for packing with opts.
func CommitWith(t *datatype.Type, opts Options) (*Committed, error) {
	if t == nil {
		return nil, errors.New("commit: nil type")
	}
	if int(opts.Engine) >= len(engineNames) {
		return nil, fmt.Errorf("commit: unknown engine %v", opts.Engine)
	}
	e := opts.Engine
	if e == Auto {
		e = Compiled
	}
	c := &Committed{t: t, exec: t, engine: e, sig: sig.Of(t)}
	if e != Reference {
		if opts.Normalize || !opts.NoNormalize && autoNormalize(t) {
			c.exec = normalized(t)
		}
		c.prog = dame.Compile(c.exec)
		switch e {
		case Interpreter:
			c.interp = engine.NewInterp(c.prog)
		case Compiled:
			c.comp = engine.NewCompiled(c.prog)
		}
	}
	return c, nil
}

// Program returns the DAME program the type was compiled to (computing it
// if the type was committed for the reference engine); with
// Options.Normalize it is the program of the normalized type.
func (c *Committed) Program() *dame.Program {
	if c.prog == nil {
		return dame.Compile(c.exec)
	}
	return c.prog
}

// Normalized reports whether the engines run on a normalized form of the
// type (see Options.Normalize).
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

// Engine returns the engine the committed type uses.
func (c *Committed) Engine() Engine { return c.engine }

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

// Pack packs count instances from the memory image src, whose instance 0
// has its origin at byte origin of src, into dst, and returns the number of
// bytes written. It is an error, before any byte is written, if the type
// reaches outside src or dst is too small.
func (c *Committed) Pack(dst, src []byte, origin, count int64) (int64, error) {
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
	switch c.engine {
	case Compiled:
		c.comp.Pack(dst, src, origin, count, from)
	case Interpreter:
		c.interp.Pack(dst, src, origin, count, from)
	default:
		ref.Pack(c.t, count, src, origin, from, dst)
	}
}

func (c *Committed) unpackRange(dst, src []byte, origin, count, from int64) {
	switch c.engine {
	case Compiled:
		c.comp.Unpack(dst, origin, count, from, src)
	case Interpreter:
		c.interp.Unpack(dst, origin, count, from, src)
	default:
		ref.Unpack(c.t, count, dst, origin, from, src)
	}
}

func addOK(a, b int64) (int64, bool) {
	c := a + b
	return c, (c > a) == (b > 0)
}
