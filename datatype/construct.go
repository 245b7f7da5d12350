package datatype

import (
	"fmt"
	"slices"
)

// ArgError is the error of a constructor called with arguments MPI calls
// erroneous, or whose sizes or bounds overflow int64.
type ArgError struct {
	Constructor string // for example "vector"
	Msg         string
}

func (e *ArgError) Error() string { return e.Constructor + ": " + e.Msg }

func argErr(c Combiner, format string, a ...any) error {
	return &ArgError{Constructor: c.String(), Msg: fmt.Sprintf(format, a...)}
}

func overflowErr(c Combiner, what string) error {
	return argErr(c, "%s overflows int64", what)
}

func checkOld(c Combiner, old *Type, what string) error {
	if old == nil {
		return argErr(c, "%s is nil", what)
	}
	return nil
}

// finish fills the fields every derived type shares and returns t.
func newDerived(c Combiner, children ...*Type) *Type {
	t := &Type{combiner: c}
	for _, ch := range children {
		t.depth = max(t.depth, ch.depth+1)
	}
	if len(children) == 0 {
		t.depth = 1
	}
	return t
}

// zerolen turns t into MPICH's zero-length type: everything 0.
func (t *Type) zerolen() *Type {
	t.size, t.lb, t.ub, t.trueLB, t.trueUB = 0, 0, 0, 0, 0
	t.dataLB, t.dataUB, t.elements, t.align = 0, 0, 0, 0
	t.contig, t.zero = true, true
	return t
}

// Contiguous is MPI_Type_contiguous: count copies of old, extent(old) apart.
func Contiguous(count int64, old *Type) (*Type, error) {
	const c = CombinerContiguous
	if err := checkOld(c, old, "oldtype"); err != nil {
		return nil, err
	}
	if count < 0 {
		return nil, argErr(c, "negative count %d", count)
	}
	t := newDerived(c, old)
	t.count = count
	t.types = []*Type{old}
	if count == 0 || old.size == 0 {
		return t.zerolen(), nil
	}
	var k calc
	ext := old.Extent()
	span := k.mul(count-1, ext)
	if old.ub >= old.lb {
		t.lb, t.ub = old.lb, k.add(old.ub, span)
	} else {
		t.lb, t.ub = k.add(old.lb, span), old.ub
	}
	t.inherit(&k, old, count, span)
	if k.err != nil {
		return nil, overflowErr(c, "extent")
	}
	t.contig = old.contig && (count == 1 || ext == old.size)
	return t, nil
}

// inherit sets the fields of a single-child type whose lb/ub are set: true
// bounds shifted as MPICH shifts them, size, elements, align. n is the number
// of old instances; spread the extent of the displacements of the data of
// one old instance relative to the first (may be negative).
func (t *Type) inherit(k *calc, old *Type, n, spread int64) {
	t.trueLB = k.add(t.lb, k.sub(old.trueLB, old.lb))
	t.trueUB = k.add(t.ub, k.sub(old.trueUB, old.ub))
	t.size = k.mul(n, old.size)
	t.elements = k.mul(n, old.elements)
	t.align = old.align
	if spread < 0 {
		t.dataLB, t.dataUB = k.add(old.dataLB, spread), old.dataUB
	} else {
		t.dataLB, t.dataUB = old.dataLB, k.add(old.dataUB, spread)
	}
}

// Vector is MPI_Type_vector: count blocks of blocklength copies of old, the
// starts of consecutive blocks stride extents of old apart.
func Vector(count, blocklength, stride int64, old *Type) (*Type, error) {
	return vector(CombinerVector, count, blocklength, stride, old)
}

// HVector is MPI_Type_create_hvector: Vector with the stride in bytes.
func HVector(count, blocklength, strideBytes int64, old *Type) (*Type, error) {
	return vector(CombinerHVector, count, blocklength, strideBytes, old)
}

func vector(c Combiner, count, blocklength, stride int64, old *Type) (*Type, error) {
	if err := checkOld(c, old, "oldtype"); err != nil {
		return nil, err
	}
	if count < 0 {
		return nil, argErr(c, "negative count %d", count)
	}
	if blocklength < 0 {
		return nil, argErr(c, "negative blocklength %d", blocklength)
	}
	t := newDerived(c, old)
	t.count, t.blocklength, t.stride = count, blocklength, stride
	t.types = []*Type{old}
	if count == 0 || old.size == 0 {
		return t.zerolen(), nil
	}
	var k calc
	ext := old.Extent()
	sb := stride
	if c == CombinerVector {
		sb = k.mul(stride, ext)
	}
	blk := k.mul(blocklength-1, ext) // may be -ext for blocklength 0, as in MPICH
	str := k.mul(count-1, sb)
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
	n := k.mul(count, blocklength)
	t.inherit(&k, old, n, 0)
	if blocklength > 0 {
		t.dataLB = k.add(k.add(old.dataLB, min(0, blk)), min(0, str))
		t.dataUB = k.add(k.add(old.dataUB, max(0, blk)), max(0, str))
	}
	if k.err != nil {
		return nil, overflowErr(c, "extent")
	}
	if t.size == 0 {
		t.dataLB, t.dataUB = 0, 0
	}
	switch {
	case t.size == 0:
		t.contig = true
	case count == 1:
		t.contig = old.contig && (blocklength == 1 || ext == old.size)
	case blocklength == 1:
		t.contig = old.contig && sb == old.size
	default:
		t.contig = old.contig && ext == old.size && sb == t.size/count
	}
	return t, nil
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
	span := k.mul(n-1, ext)
	var lb, ub int64
	if old.ub >= old.lb {
		lb, ub = k.add(old.lb, disp), k.add(k.add(old.ub, disp), span)
	} else {
		lb, ub = k.add(k.add(old.lb, disp), span), k.add(old.ub, disp)
	}
	tlb := k.add(lb, k.sub(old.trueLB, old.lb))
	tub := k.add(ub, k.sub(old.trueUB, old.ub))
	if !a.found {
		a.found = true
		a.lb, a.ub, a.tlb, a.tub = lb, ub, tlb, tub
		a.contig = true
	} else {
		a.lb, a.ub = min(a.lb, lb), max(a.ub, ub)
		a.tlb, a.tub = min(a.tlb, tlb), max(a.tub, tub)
	}
	a.size = k.add(a.size, k.mul(n, old.size))
	a.elements = k.add(a.elements, k.mul(n, old.elements))
	a.algn = max(a.algn, old.align)
	if old.size > 0 {
		dlb := k.add(k.add(disp, old.dataLB), min(0, span))
		dub := k.add(k.add(disp, old.dataUB), max(0, span))
		blockContig := old.contig && (n == 1 || ext == old.size)
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
	for i, b := range bls {
		if b < 0 {
			return nil, argErr(c, "negative blocklength %d at index %d", b, i)
		}
	}
	t := newDerived(c, old)
	t.blocklengths, t.displs = slices.Clone(bls), slices.Clone(displs)
	t.types = []*Type{old}
	if len(bls) == 0 || old.size == 0 {
		return t.zerolen(), nil
	}
	if t.uniformBlocks(bls, 0, displs, scaleOf(c == CombinerIndexed, old), old) {
		return t, nil
	}
	return t.finishBlocks(func(i int) (int64, int64, *Type) {
		return bls[i], displs[i], old
	}, len(bls), c == CombinerIndexed, old.size == 0)
}

// IndexedBlock is MPI_Type_create_indexed_block: blocks of blocklength
// copies of old at displacements[i] extents of old.
func IndexedBlock(blocklength int64, displacements []int64, old *Type) (*Type, error) {
	return indexedBlock(CombinerIndexedBlock, blocklength, displacements, old)
}

// HIndexedBlock is MPI_Type_create_hindexed_block: IndexedBlock with
// displacements in bytes.
func HIndexedBlock(blocklength int64, displacementsBytes []int64, old *Type) (*Type, error) {
	return indexedBlock(CombinerHIndexedBlock, blocklength, displacementsBytes, old)
}

func indexedBlock(c Combiner, bl int64, displs []int64, old *Type) (*Type, error) {
	if err := checkOld(c, old, "oldtype"); err != nil {
		return nil, err
	}
	if bl < 0 {
		return nil, argErr(c, "negative blocklength %d", bl)
	}
	t := newDerived(c, old)
	t.blocklength, t.displs = bl, slices.Clone(displs)
	t.types = []*Type{old}
	if bl == 0 && len(displs) > 0 && old.size > 0 {
		// MPICH keeps the bounds of zero-length blocks of indexed_block,
		// computed as for a block of -1 extra instances: an empty span at
		// the displacement (its lb side for a non-negative extent).
		var a blockAcc
		ext := old.Extent()
		for _, d := range displs {
			db := d
			if c == CombinerIndexedBlock {
				db = a.k.mul(d, ext)
			}
			var lb, ub int64
			if old.ub >= old.lb {
				lb, ub = a.k.add(old.lb, db), a.k.sub(a.k.add(old.ub, db), ext)
			} else {
				lb, ub = a.k.sub(a.k.add(old.lb, db), ext), a.k.add(old.ub, db)
			}
			if !a.found {
				a.found, a.lb, a.ub = true, lb, ub
			} else {
				a.lb, a.ub = min(a.lb, lb), max(a.ub, ub)
			}
		}
		if a.k.err != nil {
			return nil, overflowErr(c, "displacement")
		}
		t.lb, t.ub = a.lb, a.ub
		t.trueLB = a.k.add(t.lb, a.k.sub(old.trueLB, old.lb))
		t.trueUB = a.k.add(t.ub, a.k.sub(old.trueUB, old.ub))
		t.align = old.align
		t.contig = true
		if a.k.err != nil {
			return nil, overflowErr(c, "extent")
		}
		return t, nil
	}
	if len(displs) == 0 || old.size == 0 {
		return t.zerolen(), nil
	}
	if t.uniformBlocks(nil, bl, displs, scaleOf(c == CombinerIndexedBlock, old), old) {
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
	for i := range n {
		bl, d, old := block(i)
		if scaled {
			d = a.k.mul(d, old.Extent())
		}
		a.block(d, bl, old)
	}
	if a.k.err != nil {
		return nil, overflowErr(t.combiner, "a displacement or bound")
	}
	if !a.found {
		return t.zerolen(), nil
	}
	a.finish(t)
	return t, nil
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
	t := newDerived(c, types...)
	t.blocklengths, t.displs, t.types = slices.Clone(blocklengths), slices.Clone(displacementsBytes), slices.Clone(types)
	t, err := t.finishBlocks(func(i int) (int64, int64, *Type) {
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
		if eps := (t.ub - t.lb) % t.align; eps != 0 {
			ub, err := add(t.ub, t.align-eps)
			if err != nil {
				return nil, overflowErr(c, "extent")
			}
			t.ub = ub
		}
	}
	if _, err := add(t.ub, -t.lb); err != nil || t.lb == -1<<63 {
		return nil, overflowErr(c, "extent")
	}
	return t, nil
}

// sameMembers reports whether all member types of a struct are the same
// type as MPICH 4 (with yaksa) sees it; MPICH then builds the struct as an
// hindexed type and does not pad its extent. The same type means: after
// looking through dup, contiguous(1, ·) and resized types that keep their
// old type's lb and extent, the same derived type, or basic types of one
// class (integers of one size regardless of signedness; every other basic
// type is its own class). Zero-length members count too.
func sameMembers(types []*Type) bool {
	for _, t := range types[1:] {
		if yaksaKey(t) != yaksaKey(types[0]) {
			return false
		}
	}
	return true
}

func yaksaKey(t *Type) any {
	for {
		switch {
		case t.combiner == CombinerDup:
			t = t.types[0]
			continue
		case t.combiner == CombinerContiguous && t.count == 1:
			t = t.types[0]
			continue
		case t.combiner == CombinerResized && t.lbArg == t.types[0].lb && t.extentArg == t.types[0].Extent():
			t = t.types[0]
			continue
		}
		break
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

// Resized is MPI_Type_create_resized: old with lower bound lb and extent
// extent; the type map and true bounds are old's.
func Resized(old *Type, lb, extent int64) (*Type, error) {
	const c = CombinerResized
	if err := checkOld(c, old, "oldtype"); err != nil {
		return nil, err
	}
	ub, err := add(lb, extent)
	if err != nil {
		return nil, overflowErr(c, "lb + extent")
	}
	t := newDerived(c, old)
	t.types = []*Type{old}
	t.lbArg, t.extentArg = lb, extent
	t.lb, t.ub = lb, ub
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
	t := *old
	t.combiner = CombinerDup
	t.name, t.isBasic, t.pair = "", false, nil
	t.count, t.blocklength, t.stride = 0, 0, 0
	t.blocklengths, t.displs = nil, nil
	t.sizes, t.subsizes, t.starts = nil, nil, nil
	t.nprocs, t.rank, t.gsizes, t.dargs, t.psizes, t.distribs = 0, 0, nil, nil, nil, nil
	t.lbArg, t.extentArg = 0, 0
	t.types = []*Type{old}
	t.lower = old
	t.depth = old.depth + 1
	return &t, nil
}
