package datatype

import (
	"errors"
	"fmt"
	"slices"
)

// MaxDepth is the deepest type tree the constructors build: a derived
// type's Depth, and the depth of the simpler types a subarray or darray
// stands for (see Lower), must not exceed it; a constructor asked for a
// deeper type returns an *ArgError wrapping ErrTooDeep.
//
// Real types nest a handful of levels (a struct of vectors of a subarray is
// deep), and MPICH's dataloop engine evaluated types on a fixed stack of 16
// levels; 1024 is far beyond any practical use, yet small enough that every
// recursive walk over a type (signatures, printing, compiling to DAME,
// packing) stays within a few hundred kilobytes of stack, and that an
// adversarial chain of bindings is refused after a thousand types rather
// than after exhausting memory.
const MaxDepth = 1024

// ErrTooDeep is wrapped by the *ArgError of a constructor whose result
// would be deeper than MaxDepth: errors.Is(err, ErrTooDeep).
var ErrTooDeep = errors.New("type tree too deep")

// ArgError is the error of a constructor called with arguments MPI calls
// erroneous, whose sizes or bounds overflow int64 (Err is ErrOverflow), or
// whose result would be deeper than MaxDepth (Err is ErrTooDeep).
type ArgError struct {
	Constructor string // for example "vector"
	Msg         string
	Err         error // ErrOverflow, ErrTooDeep or nil
}

func (e *ArgError) Error() string { return e.Constructor + ": " + e.Msg }

// Unwrap returns Err.
func (e *ArgError) Unwrap() error { return e.Err }

func argErr(c Combiner, format string, a ...any) error {
	return &ArgError{Constructor: c.String(), Msg: fmt.Sprintf(format, a...)}
}

// overflowErr reports that what overflows int64 when c is built from the
// arguments described by args.
func overflowErr(c Combiner, what, args string) error {
	msg := what + " overflows int64"
	if args != "" {
		msg += " (" + args + ")"
	}
	return &ArgError{Constructor: c.String(), Msg: msg, Err: ErrOverflow}
}

// calcErr is overflowErr for the first overflow k recorded.
func calcErr(c Combiner, k *calc, args string) error {
	what := k.what
	if what == "" {
		what = "a bound"
	}
	return overflowErr(c, what, args)
}

func depthErr(c Combiner, depth int) error {
	return &ArgError{Constructor: c.String(),
		Msg: fmt.Sprintf("type tree depth %d exceeds the limit of %d (datatype.MaxDepth)", depth, MaxDepth),
		Err: ErrTooDeep}
}

// lowerErr turns the error of a constructor that subarray or darray (c)
// called to build the type it stands for into an error of c.
func lowerErr(c Combiner, err error, args string) error {
	var ae *ArgError
	if !errors.As(err, &ae) || ae.Constructor == c.String() {
		return err
	}
	switch ae.Err {
	case ErrTooDeep:
		return &ArgError{Constructor: c.String(),
			Msg: fmt.Sprintf("the type it stands for is deeper than the limit of %d (datatype.MaxDepth)", MaxDepth),
			Err: ErrTooDeep}
	case ErrOverflow:
		return overflowErr(c, "a bound of its "+ae.Constructor+" part", args)
	}
	return &ArgError{Constructor: c.String(), Msg: ae.Error(), Err: ae.Err}
}

func checkOld(c Combiner, old *Type, what string) error {
	if old == nil {
		return argErr(c, "%s is nil", what)
	}
	return nil
}

// clone2 copies a and b into one allocation (a type's block lengths and
// displacements live and die together).
func clone2(a, b []int64) ([]int64, []int64) {
	if len(a) == 0 || len(b) == 0 || len(a)+len(b) >= 512 {
		// long lists: two allocations of exactly their size (appending
		// rounds the capacity up by as much as a quarter)
		return slices.Clone(a), slices.Clone(b)
	}
	// make and copy, not append to a full a: the compiler cannot tell that
	// such an append never returns a's memory, so a would escape and the
	// callers' lists (slice literals, the common case) be allocated too;
	// zeroing fewer than 512 elements first costs little
	buf := make([]int64, len(a)+len(b))
	copy(buf, a)
	copy(buf[len(a):], b)
	return buf[:len(a):len(a)], buf[len(a) : len(a)+len(b) : len(a)+len(b)]
}

// arena hands out the types of one construction that builds several
// (subarray: its lower form) from one allocation; a nil arena allocates
// each type on its own.
type arena struct{ ts []Type }

func (a *arena) alloc() *Type {
	if a == nil || len(a.ts) == 0 {
		return new(Type)
	}
	t := &a.ts[0]
	a.ts = a.ts[1:]
	return t
}

// newDerived returns a type of combiner c over children with its depth
// set, or an error if that depth exceeds MaxDepth; ar supplies its memory.
func newDerived(ar *arena, c Combiner, children ...*Type) (*Type, error) {
	t := ar.alloc()
	t.combiner, t.expanded = c, 1
	for _, ch := range children {
		t.depth = max(t.depth, ch.depth+1)
		t.expanded = addExpanded(t.expanded, ch.expanded)
	}
	if len(children) == 0 {
		t.depth = 1
	}
	if t.depth > MaxDepth {
		return nil, depthErr(c, int(t.depth))
	}
	return t, nil
}

// checkBounds returns an error if the extent, true extent or data extent
// of t does not fit in int64, so that every difference of t's bounds (and
// every displacement of its data relative to another) can be computed.
func (t *Type) checkBounds(args func() string) error {
	switch {
	case !fits(t.lb, t.ub):
		return overflowErr(t.combiner, "extent (ub - lb)", args())
	case !fits(t.trueLB, t.trueUB):
		return overflowErr(t.combiner, "true extent", args())
	case !fits(t.dataLB, t.dataUB):
		return overflowErr(t.combiner, "data extent", args())
	}
	return nil
}

// nBlocks describes a list of n blocks for an error (formatted only then).
func nBlocks(n int) func() string {
	return func() string { return fmt.Sprintf("%d blocks", n) }
}

// fits reports whether hi - lo fits in int64.
func fits(lo, hi int64) bool {
	_, err := sub(hi, lo)
	return err == nil
}

// zerolen turns t into MPICH's zero-length type: everything 0.
func (t *Type) zerolen() *Type {
	t.size, t.lb, t.ub, t.trueLB, t.trueUB = 0, 0, 0, 0, 0
	t.dataLB, t.dataUB, t.elements, t.align = 0, 0, 0, 0
	t.contig, t.zero = true, true
	return t
}

// Contiguous is MPI_Type_contiguous: count copies of old, extent(old) apart.
func Contiguous(count int64, old *Type) (*Type, error) { return contiguous(nil, count, old) }

func contiguous(ar *arena, count int64, old *Type) (*Type, error) {
	const c = CombinerContiguous
	if err := checkOld(c, old, "oldtype"); err != nil {
		return nil, err
	}
	if count < 0 {
		return nil, argErr(c, "negative count %d", count)
	}
	t, err := newDerived(ar, c, old)
	if err != nil {
		return nil, err
	}
	t.count = count
	t.setOld(old)
	if count == 0 || old.size == 0 {
		return t.zerolen(), nil
	}
	var k calc
	ext := old.Extent()
	k.at("(count-1)*extent(oldtype)")
	span := k.mul(count-1, ext)
	k.at("extent")
	if old.ub >= old.lb {
		t.lb, t.ub = old.lb, k.add(old.ub, span)
	} else {
		t.lb, t.ub = k.add(old.lb, span), old.ub
	}
	t.inherit(&k, old, count, span)
	args := func() string { return fmt.Sprintf("count=%d, extent(oldtype)=%d", count, ext) }
	if k.err != nil {
		return nil, calcErr(c, &k, args())
	}
	if err := t.checkBounds(args); err != nil {
		return nil, err
	}
	t.contig = old.contig && (count == 1 || ext == old.size)
	return t, nil
}

// inherit sets the fields of a single-child type whose lb/ub are set: true
// bounds shifted as MPICH shifts them, size, elements, align. n is the number
// of old instances; spread the extent of the displacements of the data of
// one old instance relative to the first (may be negative).
func (t *Type) inherit(k *calc, old *Type, n, spread int64) {
	k.at("a true bound")
	t.trueLB = k.add(t.lb, k.sub(old.trueLB, old.lb))
	t.trueUB = k.add(t.ub, k.sub(old.trueUB, old.ub))
	k.at("size")
	t.size = k.mul(n, old.size)
	k.at("number of elements")
	t.elements = k.mul(n, old.elements)
	t.align = old.align
	k.at("a data bound")
	if spread < 0 {
		t.dataLB, t.dataUB = k.add(old.dataLB, spread), old.dataUB
	} else {
		t.dataLB, t.dataUB = old.dataLB, k.add(old.dataUB, spread)
	}
}

// Vector is MPI_Type_vector: count blocks of blocklength copies of old, the
// starts of consecutive blocks stride extents of old apart.
func Vector(count, blocklength, stride int64, old *Type) (*Type, error) {
	return vector(nil, CombinerVector, count, blocklength, stride, old)
}

// HVector is MPI_Type_create_hvector: Vector with the stride in bytes.
func HVector(count, blocklength, strideBytes int64, old *Type) (*Type, error) {
	return vector(nil, CombinerHVector, count, blocklength, strideBytes, old)
}

func vector(ar *arena, c Combiner, count, blocklength, stride int64, old *Type) (*Type, error) {
	if err := checkOld(c, old, "oldtype"); err != nil {
		return nil, err
	}
	if count < 0 {
		return nil, argErr(c, "negative count %d", count)
	}
	if blocklength < 0 {
		return nil, argErr(c, "negative blocklength %d", blocklength)
	}
	t, err := newDerived(ar, c, old)
	if err != nil {
		return nil, err
	}
	t.count, t.blocklength, t.stride = count, blocklength, stride
	t.setOld(old)
	if count == 0 || old.size == 0 {
		return t.zerolen(), nil
	}
	if !t.vectorSmall(c, count, blocklength, stride, old) {
		if err := t.vectorChecked(c, count, blocklength, stride, old); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// vectorChecked sets the layout of vector or hvector t (count > 0, old
// with data) with every operation checked for overflow.
func (t *Type) vectorChecked(c Combiner, count, blocklength, stride int64, old *Type) error {
	var k calc
	ext := old.Extent()
	sb := stride
	if c == CombinerVector {
		k.at("stride*extent(oldtype)")
		sb = k.mul(stride, ext)
	}
	k.at("(blocklength-1)*extent(oldtype)")
	blk := k.mul(blocklength-1, ext) // may be -ext for blocklength 0, as in MPICH
	if c == CombinerVector {
		k.at("(count-1)*stride*extent(oldtype)")
	} else {
		k.at("(count-1)*stride")
	}
	str := k.mul(count-1, sb)
	k.at("extent")
	switch {
	case sb >= 0 && ext >= 0:
		t.lb, t.ub = old.lb, k.add(k.add(old.ub, blk), str)
	case sb < 0 && ext >= 0:
		t.lb, t.ub = k.add(old.lb, str), k.add(old.ub, blk)
	case sb >= 0 && ext < 0:
		t.lb, t.ub = k.add(old.lb, blk), k.add(old.ub, str)
	default:
		t.lb, t.ub = k.add(k.add(old.lb, blk), str), old.ub
	}
	k.at("count*blocklength")
	n := k.mul(count, blocklength)
	t.inherit(&k, old, n, 0)
	if blocklength > 0 {
		t.dataLB = k.add(k.add(old.dataLB, min(0, blk)), min(0, str))
		t.dataUB = k.add(k.add(old.dataUB, max(0, blk)), max(0, str))
	}
	args := func() string {
		return fmt.Sprintf("count=%d, blocklength=%d, stride=%d, extent(oldtype)=%d", count, blocklength, stride, ext)
	}
	if k.err != nil {
		return calcErr(c, &k, args())
	}
	if t.size == 0 {
		t.dataLB, t.dataUB = 0, 0
	}
	if err := t.checkBounds(args); err != nil {
		return err
	}
	t.vectorContig(count, blocklength, sb, ext, old)
	return nil
}

// vectorContig sets whether vector or hvector t of count blocks of
// blocklength instances of old (extent ext), sb bytes apart, is
// contiguous; its size is set.
func (t *Type) vectorContig(count, blocklength, sb, ext int64, old *Type) {
	switch {
	case t.size == 0:
		t.contig = true
	case count == 1:
		t.contig = old.contig && (blocklength == 1 || ext == old.size)
	case blocklength == 1:
		t.contig = old.contig && sb == old.size
	default:
		t.contig = old.contig && ext == old.size && sb == blocklength*old.size // t.size/count
	}
}

// vectorSmall sets the layout of vector or hvector t (count > 0, old
// with data) as vector's checked arithmetic does, when every quantity is
// small enough that nothing can overflow, the common case: count,
// blocklength, count*blocklength, the stride in bytes and old's extent,
// size and elements below 2^29 in magnitude, old's bounds below 2^58.
// Every bound of t is then below 2^61 in magnitude, so checkBounds holds.
// Otherwise it returns false, having set nothing.
func (t *Type) vectorSmall(c Combiner, count, blocklength, stride int64, old *Type) bool {
	const small, big = 1 << 29, 1 << 58
	ext := old.ub - old.lb
	if uint64(count) >= small || uint64(blocklength) >= small || uint64(stride+small) >= 2*small ||
		uint64(ext+small) >= 2*small || uint64(old.size) >= small || uint64(old.elements) >= small ||
		uint64(old.lb+big) >= 2*big || uint64(old.ub+big) >= 2*big ||
		uint64(old.trueLB+big) >= 2*big || uint64(old.trueUB+big) >= 2*big ||
		uint64(old.dataLB+big) >= 2*big || uint64(old.dataUB+big) >= 2*big {
		return false
	}
	sb := stride // each product below: two factors under 2^29
	if c == CombinerVector {
		sb = stride * ext
	}
	n := count * blocklength
	if uint64(sb+small) >= 2*small || n >= small {
		return false
	}
	blk, str := (blocklength-1)*ext, (count-1)*sb
	switch {
	case sb >= 0 && ext >= 0:
		t.lb, t.ub = old.lb, old.ub+blk+str
	case sb < 0 && ext >= 0:
		t.lb, t.ub = old.lb+str, old.ub+blk
	case sb >= 0 && ext < 0:
		t.lb, t.ub = old.lb+blk, old.ub+str
	default:
		t.lb, t.ub = old.lb+blk+str, old.ub
	}
	t.trueLB, t.trueUB = t.lb+(old.trueLB-old.lb), t.ub+(old.trueUB-old.ub)
	t.size, t.elements, t.align = n*old.size, n*old.elements, old.align
	t.dataLB, t.dataUB = old.dataLB, old.dataUB
	if blocklength > 0 {
		t.dataLB += min(0, blk) + min(0, str)
		t.dataUB += max(0, blk) + max(0, str)
	}
	if t.size == 0 {
		t.dataLB, t.dataUB = 0, 0
	}
	t.vectorContig(count, blocklength, sb, ext, old)
	return true
}

// blockAcc accumulates the bounds of the blocks of an indexed or struct
// type the way MPICH does (zero-length blocks are skipped).
type blockAcc struct {
	k                    calc
	found, dfound        bool
	lb, ub, tlb, tub     int64
	dlb, dub             int64
	size, elements, algn int64
	contig               bool
	next                 int64 // where the next byte must start for contig
}

func (a *blockAcc) block(disp, n int64, old *Type) {
	if n == 0 {
		return
	}
	k := &a.k
	ext := old.Extent()
	k.at("(blocklength-1)*extent")
	span := k.mul(n-1, ext)
	k.at("a bound")
	var lb, ub int64
	if old.ub >= old.lb {
		lb, ub = k.add(old.lb, disp), k.add(k.add(old.ub, disp), span)
	} else {
		lb, ub = k.add(k.add(old.lb, disp), span), k.add(old.ub, disp)
	}
	a.bounds(lb, ub, k.add(lb, k.sub(old.trueLB, old.lb)), k.add(ub, k.sub(old.trueUB, old.ub)))
	k.at("size")
	a.size = k.add(a.size, k.mul(n, old.size))
	k.at("number of elements")
	a.elements = k.add(a.elements, k.mul(n, old.elements))
	k.at("a data bound")
	a.algn = max(a.algn, old.align)
	if old.size > 0 {
		dlb := k.add(k.add(disp, old.dataLB), min(0, span))
		dub := k.add(k.add(disp, old.dataUB), max(0, span))
		a.data(dlb, dub, old.contig && (n == 1 || ext == old.size))
	}
}

// bounds records the bounds and true bounds of a block with data or not.
func (a *blockAcc) bounds(lb, ub, tlb, tub int64) {
	if !a.found {
		a.found = true
		a.lb, a.ub, a.tlb, a.tub = lb, ub, tlb, tub
		a.contig = true
	} else {
		a.lb, a.ub = min(a.lb, lb), max(a.ub, ub)
		a.tlb, a.tub = min(a.tlb, tlb), max(a.tub, tub)
	}
}

// data records the data bounds of a block with data, and whether its data
// starts where the data of the block before ends (and is contiguous).
func (a *blockAcc) data(dlb, dub int64, blockContig bool) {
	if !a.dfound {
		a.dfound = true
		a.dlb, a.dub = dlb, dub
		a.contig = blockContig
	} else {
		a.contig = a.contig && blockContig && dlb == a.next
		a.dlb, a.dub = min(a.dlb, dlb), max(a.dub, dub)
	}
	a.next = dub
}

// fast is the loop of finishBlocks for byte displacements, in plain int64
// arithmetic, when every operand is small enough that nothing can
// overflow: displacements and the bounds of the old types below 2^58 in
// magnitude, block lengths, extents, sizes and element counts below 2^29,
// and the sums of sizes and elements kept below 2^60. It reports false as
// soon as a block is outside those limits (a is then to be discarded);
// otherwise a holds exactly what block would have accumulated.
func (a *blockAcc) fast(block func(i int) (bl, disp int64, old *Type), n int) bool {
	const big, small = 1 << 58, 1 << 29
	for i := range n {
		bl, disp, old := block(i)
		if bl == 0 {
			continue
		}
		ext := old.ub - old.lb
		if uint64(bl) >= small || uint64(ext+small) >= 2*small || uint64(old.size) >= small || uint64(old.elements) >= small ||
			uint64(disp+big) >= 2*big || uint64(old.lb+big) >= 2*big || uint64(old.ub+big) >= 2*big ||
			uint64(old.trueLB+big) >= 2*big || uint64(old.trueUB+big) >= 2*big ||
			uint64(old.dataLB+big) >= 2*big || uint64(old.dataUB+big) >= 2*big ||
			a.size >= 1<<60 || a.elements >= 1<<60 {
			return false
		}
		span := (bl - 1) * ext
		var lb, ub int64
		if old.ub >= old.lb {
			lb, ub = old.lb+disp, old.ub+disp+span
		} else {
			lb, ub = old.lb+disp+span, old.ub+disp
		}
		a.bounds(lb, ub, lb+(old.trueLB-old.lb), ub+(old.trueUB-old.ub))
		a.size += bl * old.size
		a.elements += bl * old.elements
		a.algn = max(a.algn, old.align)
		if old.size > 0 {
			a.data(disp+old.dataLB+min(0, span), disp+old.dataUB+max(0, span), old.contig && (bl == 1 || ext == old.size))
		}
	}
	return true
}

func (a *blockAcc) finish(t *Type) {
	t.lb, t.ub, t.trueLB, t.trueUB = a.lb, a.ub, a.tlb, a.tub
	t.dataLB, t.dataUB = a.dlb, a.dub
	t.size, t.elements, t.align = a.size, a.elements, a.algn
	t.contig = a.contig
}

// Indexed is MPI_Type_indexed: blocks of blocklengths[i] copies of old at
// displacements[i] extents of old.
func Indexed(blocklengths, displacements []int64, old *Type) (*Type, error) {
	return indexed(CombinerIndexed, blocklengths, displacements, old)
}

// HIndexed is MPI_Type_create_hindexed: Indexed with displacements in bytes.
func HIndexed(blocklengths, displacementsBytes []int64, old *Type) (*Type, error) {
	return indexed(CombinerHIndexed, blocklengths, displacementsBytes, old)
}

func indexed(c Combiner, bls, displs []int64, old *Type) (*Type, error) {
	if err := checkOld(c, old, "oldtype"); err != nil {
		return nil, err
	}
	if len(bls) != len(displs) {
		return nil, argErr(c, "%d blocklengths but %d displacements", len(bls), len(displs))
	}
	t, err := newDerived(nil, c, old)
	if err != nil {
		return nil, err
	}
	t.setOld(old)
	r := compressLists(bls, displs)
	if r == nil {
		// explicit lists, the usual case: copied, and one pass over each
		// copy finds the layout
		scale := scaleOf(c == CombinerIndexed, old)
		if t.copyForward(bls, displs, scale, c == CombinerIndexed && scale >= 2, old) {
			if err := t.checkBounds(nBlocks(len(bls))); err != nil {
				return nil, err
			}
			return t, nil
		}
	}
	for i, b := range bls {
		if b < 0 {
			return nil, argErr(c, "negative blocklength %d at index %d", b, i)
		}
	}
	if r != nil {
		t.x = &extra{runs: r}
	}
	if len(bls) == 0 || old.size == 0 {
		return t.zerolen(), nil
	}
	if t.uniformBlocks(bls, 0, displs, scaleOf(c == CombinerIndexed, old), old) {
		if err := t.checkBounds(nBlocks(len(bls))); err != nil {
			return nil, err
		}
		return t, nil
	}
	return t.finishBlocks(func(i int) (int64, int64, *Type) {
		return bls[i], displs[i], old
	}, len(bls), c == CombinerIndexed, old.size == 0)
}

// IndexedBlock is MPI_Type_create_indexed_block: blocks of blocklength
// copies of old at displacements[i] extents of old.
func IndexedBlock(blocklength int64, displacements []int64, old *Type) (*Type, error) {
	return indexedBlock(nil, CombinerIndexedBlock, blocklength, displacements, nil, old)
}

// HIndexedBlock is MPI_Type_create_hindexed_block: IndexedBlock with
// displacements in bytes.
func HIndexedBlock(blocklength int64, displacementsBytes []int64, old *Type) (*Type, error) {
	return indexedBlock(nil, CombinerHIndexedBlock, blocklength, displacementsBytes, nil, old)
}

// indexedBlock is IndexedBlock and HIndexedBlock (combiner c), the type
// from ar. keep, if not nil, is displs itself handed over by a lowering
// (Subarray) to be kept instead of a copy; a separate parameter, so that the
// constructors' displs never escape (their callers' lists can stay on
// their stacks).
func indexedBlock(ar *arena, c Combiner, bl int64, displs, keep []int64, old *Type) (*Type, error) {
	if err := checkOld(c, old, "oldtype"); err != nil {
		return nil, err
	}
	if bl < 0 {
		return nil, argErr(c, "negative blocklength %d", bl)
	}
	t, err := newDerived(ar, c, old)
	if err != nil {
		return nil, err
	}
	t.blocklength = bl
	if r := compressLists(nil, displs); r != nil {
		t.x = &extra{runs: r}
	} else if keep != nil {
		t.displs = keep
	} else {
		t.displs = slices.Clone(displs)
	}
	t.setOld(old)
	if bl == 0 && len(displs) > 0 && old.size > 0 {
		// MPICH keeps the bounds of zero-length blocks of indexed_block,
		// computed as for a block of -1 extra instances: an empty span at
		// the displacement (its lb side for a non-negative extent).
		var a blockAcc
		ext := old.Extent()
		for i, d := range displs {
			db := d
			if c == CombinerIndexedBlock {
				a.k.at("displacement*extent(oldtype)")
				db = a.k.mul(d, ext)
			}
			a.k.at("a bound")
			var lb, ub int64
			if old.ub >= old.lb {
				lb, ub = a.k.add(old.lb, db), a.k.sub(a.k.add(old.ub, db), ext)
			} else {
				lb, ub = a.k.sub(a.k.add(old.lb, db), ext), a.k.add(old.ub, db)
			}
			if a.k.err != nil {
				return nil, calcErr(c, &a.k, blockArgs(i, bl, d, "oldtype", ext))
			}
			if !a.found {
				a.found, a.lb, a.ub = true, lb, ub
			} else {
				a.lb, a.ub = min(a.lb, lb), max(a.ub, ub)
			}
		}
		t.lb, t.ub = a.lb, a.ub
		a.k.at("a true bound")
		t.trueLB = a.k.add(t.lb, a.k.sub(old.trueLB, old.lb))
		t.trueUB = a.k.add(t.ub, a.k.sub(old.trueUB, old.ub))
		t.align = old.align
		t.contig = true
		args := func() string {
			return fmt.Sprintf("blocklength=%d, %d displacements, extent(oldtype)=%d", bl, len(displs), ext)
		}
		if a.k.err != nil {
			return nil, calcErr(c, &a.k, args())
		}
		if err := t.checkBounds(args); err != nil {
			return nil, err
		}
		return t, nil
	}
	if len(displs) == 0 || old.size == 0 {
		return t.zerolen(), nil
	}
	if t.uniformBlocks(nil, bl, displs, scaleOf(c == CombinerIndexedBlock, old), old) {
		if err := t.checkBounds(nBlocks(len(displs))); err != nil {
			return nil, err
		}
		return t, nil
	}
	return t.finishBlocks(func(i int) (int64, int64, *Type) {
		return bl, displs[i], old
	}, len(displs), c == CombinerIndexedBlock, old.size == 0)
}

// scaleOf is the factor that turns displacements into bytes: the old
// type's extent for indexed and indexed_block, 1 for their h forms.
func scaleOf(scaled bool, old *Type) int64 {
	if scaled {
		return old.Extent()
	}
	return 1
}

// finishBlocks computes the layout of a type made of n blocks.
func (t *Type) finishBlocks(block func(i int) (bl, disp int64, old *Type), n int, scaled, zeroOld bool) (*Type, error) {
	if n == 0 || zeroOld {
		return t.zerolen(), nil
	}
	var a blockAcc
	if !scaled && a.fast(block, n) {
		if !a.found {
			return t.zerolen(), nil
		}
		a.finish(t)
		return t, nil // every bound below 2^61 in magnitude: checkBounds holds
	}
	a = blockAcc{}
	for i := range n {
		bl, d, old := block(i)
		disp := d
		if scaled {
			a.k.at("displacement*extent(oldtype)")
			d = a.k.mul(d, old.Extent())
		}
		a.block(d, bl, old)
		if a.k.err != nil {
			oldName := "oldtype"
			if t.combiner == CombinerStruct {
				oldName = fmt.Sprintf("types[%d]", i)
			}
			return nil, calcErr(t.combiner, &a.k, blockArgs(i, bl, disp, oldName, old.Extent()))
		}
	}
	if !a.found {
		return t.zerolen(), nil
	}
	a.finish(t)
	if err := t.checkBounds(nBlocks(n)); err != nil {
		return nil, err
	}
	return t, nil
}

// newStruct returns the struct type of these lists, copied, with its depth
// set: for up to 4 blocks (the common case) the type and its three lists
// in one allocation.
func newStruct(blocklengths, displacementsBytes []int64, types []*Type) (*Type, error) {
	const small = 4
	n := len(types)
	if n == 0 || n > small {
		t, err := newDerived(nil, CombinerStruct, types...)
		if err != nil {
			return nil, err
		}
		t.blocklengths, t.displs = clone2(blocklengths, displacementsBytes)
		t.types = slices.Clone(types)
		return t, nil
	}
	s := new(struct {
		t     [1]Type
		types [small]*Type
		lists [2 * small]int64
	})
	t, err := newDerived(&arena{ts: s.t[:]}, CombinerStruct, types...)
	if err != nil {
		return nil, err
	}
	copy(s.types[:], types)
	copy(s.lists[:], blocklengths)
	copy(s.lists[small:], displacementsBytes)
	t.types = s.types[:n:n]
	t.blocklengths, t.displs = s.lists[:n:n], s.lists[small:small+n:small+n]
	return t, nil
}

// blockArgs describes block i of a list constructor for an error.
func blockArgs(i int, bl, disp int64, old string, ext int64) string {
	return fmt.Sprintf("block %d: blocklength=%d, displacement=%d, extent(%s)=%d", i, bl, disp, old, ext)
}

// Struct is MPI_Type_create_struct: blocks of blocklengths[i] copies of
// types[i] at byte displacements[i]. Its extent is padded to the largest
// alignment of its members, as MPICH does.
func Struct(blocklengths, displacementsBytes []int64, types []*Type) (*Type, error) {
	const c = CombinerStruct
	if len(blocklengths) != len(displacementsBytes) || len(blocklengths) != len(types) {
		return nil, argErr(c, "%d blocklengths, %d displacements and %d types differ in length",
			len(blocklengths), len(displacementsBytes), len(types))
	}
	for i, b := range blocklengths {
		if b < 0 {
			return nil, argErr(c, "negative blocklength %d at index %d", b, i)
		}
		if types[i] == nil {
			return nil, argErr(c, "types[%d] is nil", i)
		}
	}
	t, err := newStruct(blocklengths, displacementsBytes, types)
	if err != nil {
		return nil, err
	}
	t, err = t.finishBlocks(func(i int) (int64, int64, *Type) {
		return blocklengths[i], displacementsBytes[i], types[i]
	}, len(types), false, false)
	if err != nil || t.zero {
		return t, err
	}
	if t.size == 0 {
		// MPICH makes a struct with no data the zero-length type
		return t.zerolen(), nil
	}
	if t.align > 0 && !sameMembers(types) {
		// finishBlocks checked that ub - lb fits
		if eps := (t.ub - t.lb) % t.align; eps != 0 {
			ub, err := add(t.ub, t.align-eps)
			if err != nil {
				return nil, overflowErr(c, "upper bound padded to the alignment", fmt.Sprintf("ub=%d, alignment=%d", t.ub, t.align))
			}
			t.ub = ub
		}
	}
	if err := t.checkBounds(func() string { return fmt.Sprintf("%d blocks, padded to alignment %d", len(types), t.align) }); err != nil {
		return nil, err
	}
	return t, nil
}

// sameMembers reports whether all member types of a struct are the same
// type as MPICH 4 (with yaksa) sees it; MPICH then builds the struct as an
// hindexed type and does not pad its extent. The same type means the same
// yaksa type object after yaksa's shortcuts (see yaksaKey), or basic types
// of one class (integers of one size regardless of signedness; every other
// basic type is its own class). Zero-length members count too.
func sameMembers(types []*Type) bool {
	k := yaksaKey(types[0])
	for _, t := range types[1:] {
		if yaksaKey(t) != k {
			return false
		}
	}
	return true
}

// yaksaKey identifies the yaksa type object MPICH 4 builds for t. yaksa
// returns its input type itself, not a new object, for: dup; contiguous
// of count 1; resized to the input's own lb and extent; hvector of count 1
// and blocklength 1 (count 1 becomes contiguous(blocklength)); an
// hindexed_block of one block of 1 at displacement 0 (it becomes an
// hvector of count 1); an hindexed whose blocklengths are all equal (it
// becomes an hindexed_block), and a struct whose members are all the same
// object (it becomes an hindexed). Subarray and darray are built by MPICH
// from those constructors (their lower form here). Checked with MPICH
// 4.0.2: struct([1, 1], [0, 5], [float, X]) has extent 9, not 12, for X
// each of vector(1, 1, s, float), hvector(1, 1, s, float),
// hindexed_block(1, [0], float), indexed([1], [0], float),
// struct([1], [0], [float]), contiguous(1, vector(1, 1, s, float)) and a
// one-element subarray of float.
func yaksaKey(t *Type) any {
	for {
		next := yaksaSame(t)
		if next == nil {
			break
		}
		t = next
	}
	if !t.isBasic {
		return t
	}
	switch t.basic {
	case Short, UnsignedShort, Int16, Uint16, Int, Unsigned, Int32, Uint32,
		Long, UnsignedLong, LongLong, UnsignedLongLong, Int64, Uint64, Aint, Offset, Count:
		return t.basic.Size() // integers of one size
	}
	return t.basic
}

// yaksaSame returns the type whose yaksa object yaksa reuses for t (see
// yaksaKey), or nil if yaksa makes a new object for t.
func yaksaSame(t *Type) *Type {
	if t.isBasic {
		return nil
	}
	// one block of one old type at displacement 0
	single := func(count, bl, disp int64) bool { return count == 1 && bl == 1 && disp == 0 }
	switch t.combiner {
	case CombinerDup:
		return t.types[0]
	case CombinerContiguous:
		if t.count == 1 {
			return t.types[0]
		}
	case CombinerResized:
		if old := t.types[0]; t.lb == old.lb && t.Extent() == old.Extent() {
			return old
		}
	case CombinerVector, CombinerHVector:
		if t.count == 1 && t.blocklength == 1 {
			return t.types[0]
		}
	case CombinerIndexedBlock, CombinerHIndexedBlock:
		if t.nblocks() == 1 && single(1, t.blocklength, t.displs[0]) { // one block: never runs
			return t.types[0]
		}
	case CombinerIndexed, CombinerHIndexed:
		if t.nblocks() == 1 && single(1, t.blocklengths[0], t.displs[0]) { // one block: never runs
			return t.types[0]
		}
	case CombinerStruct:
		if t.nblocks() == 1 && single(1, t.blocklengths[0], t.displs[0]) { // one block: never runs
			return t.types[0]
		}
	case CombinerSubarray, CombinerDarray:
		return t.lower
	}
	return nil
}

// Resized is MPI_Type_create_resized: old with lower bound lb and extent
// extent; the type map and true bounds are old's.
func Resized(old *Type, lb, extent int64) (*Type, error) { return resized(nil, old, lb, extent) }

func resized(ar *arena, old *Type, lb, extent int64) (*Type, error) {
	const c = CombinerResized
	if err := checkOld(c, old, "oldtype"); err != nil {
		return nil, err
	}
	ub, err := add(lb, extent)
	if err != nil {
		return nil, overflowErr(c, "lb + extent", fmt.Sprintf("lb=%d, extent=%d", lb, extent))
	}
	t, err := newDerived(ar, c, old)
	if err != nil {
		return nil, err
	}
	t.setOld(old)
	t.lb, t.ub = lb, ub // the arguments lb and extent too (Args)
	t.trueLB, t.trueUB = old.trueLB, old.trueUB
	t.dataLB, t.dataUB = old.dataLB, old.dataUB
	t.size, t.elements, t.align, t.contig = old.size, old.elements, old.align, old.contig
	return t, nil
}

// Dup is MPI_Type_dup: a new type with old's layout whose contents name old.
func Dup(old *Type) (*Type, error) {
	const c = CombinerDup
	if err := checkOld(c, old, "oldtype"); err != nil {
		return nil, err
	}
	if old.depth+1 > MaxDepth {
		return nil, depthErr(c, int(old.depth)+1)
	}
	t := &Type{combiner: CombinerDup, lower: old, depth: old.depth + 1, expanded: addExpanded(1, old.expanded)}
	t.setOld(old)
	t.size, t.lb, t.ub, t.trueLB, t.trueUB = old.size, old.lb, old.ub, old.trueLB, old.trueUB
	t.align, t.elements, t.dataLB, t.dataUB = old.align, old.elements, old.dataLB, old.dataUB
	t.contig, t.zero = old.contig, old.zero
	return t, nil
}
