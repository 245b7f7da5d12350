package datatype

import (
	"fmt"
	"sync/atomic"
)

// Combiner says how a type was built, as MPI_Type_get_envelope reports it.
type Combiner uint8

// The combiners of MPI-4.1 Table 5.1 that ddt supports.
const (
	CombinerNamed Combiner = iota
	CombinerDup
	CombinerContiguous
	CombinerVector
	CombinerHVector
	CombinerIndexed
	CombinerHIndexed
	CombinerIndexedBlock
	CombinerHIndexedBlock
	CombinerStruct
	CombinerSubarray
	CombinerDarray
	CombinerResized
)

// String is the combiner's .ddt constructor name ("named" for predefined types).
func (c Combiner) String() string {
	if int(c) < len(constructors) {
		return constructors[c].Name
	}
	return fmt.Sprintf("Combiner(%d)", c)
}

// Order is the storage order of subarray and darray.
type Order uint8

// Array storage orders.
const (
	OrderC       Order = iota // row-major: the last dimension is fastest
	OrderFortran              // column-major: the first dimension is fastest
)

func (o Order) String() string {
	if o == OrderFortran {
		return "Fortran"
	}
	return "C"
}

// Distrib is the distribution of one darray dimension.
type Distrib uint8

// Darray distributions.
const (
	DistributeBlock Distrib = iota
	DistributeCyclic
	DistributeNone
)

func (d Distrib) String() string {
	switch d {
	case DistributeCyclic:
		return "cyclic"
	case DistributeNone:
		return "none"
	}
	return "block"
}

// DefaultDarg is the distribution argument MPI_DISTRIBUTE_DFLT_DARG.
const DefaultDarg int64 = -1

// Type is an MPI datatype: a node of the type tree. It records the
// constructor and exactly the arguments it was given (its contents) and
// caches its layout properties. A Type is immutable.
type Type struct {
	combiner Combiner
	order    Order // subarray, darray
	isBasic  bool
	basic    Basic
	// contig reports that the data of one instance is the single run
	// [dataLB, dataUB) in type-map order.
	contig bool
	// zero marks MPICH's zero-length type (count 0 or old size 0).
	zero  bool
	depth uint16

	// contents, exactly as given
	count, blocklength, stride int64   // contiguous, vector, hvector, *indexed_block
	blocklengths, displs       []int64 // indexed, hindexed, *_block (displs), struct
	types                      []*Type // oldtype(s)
	one                        [1]*Type
	x                          *extra

	// lower is the equivalent type built from simpler constructors, for
	// subarray and darray (a resized type), and for dup (the old type).
	lower *Type

	// layout, as MPICH 4 reports it
	size, lb, ub, trueLB, trueUB int64
	align                        int64
	elements                     int64
	// dataLB/dataUB bound the bytes that elements actually occupy in one
	// instance (empty when size is 0); unlike trueLB/trueUB they ignore
	// zero-size parts. Buffer checks use them.
	dataLB, dataUB int64
	// expanded is the number of nodes of the tree with every use of a
	// subtype expanded (see Nodes), saturated at maxExpanded.
	expanded int64
}

// maxExpanded saturates Type.expanded; the sum of two fits in int64.
const maxExpanded = 1 << 61

// addExpanded returns the expanded node count of a node with children of
// the given counts.
func addExpanded(n, k int64) int64 { return min(n+k, maxExpanded) }

// extra holds what few types have, so that the common ones stay small:
// the name of a predefined type and the contents of subarray and darray.
type extra struct {
	name                    string
	pair                    *pair
	sizes, subsizes, starts []int64 // subarray
	nprocs, rank            int64   // darray
	gsizes, dargs, psizes   []int64 // darray
	distribs                []Distrib
	runs                    *runLists // the lists of an indexed type, as runs
	// byteScale, when not 0, says that displs of an indexed type holds
	// its displacements in bytes (times byteScale, the old type's extent);
	// units are the displacements as given, written out on first request.
	byteScale int64
	units     atomic.Pointer[[]int64]
	// facts are what the constructor of an indexed type found while it
	// copied the lists (see copyForward), nil if it did not.
	facts *listFacts
}

// ex returns t's extra part, empty if t has none.
func (t *Type) ex() *extra {
	if t.x == nil {
		return &noExtra
	}
	return t.x
}

var noExtra extra

// setOld makes old the one old type of t, stored inside t.
func (t *Type) setOld(old *Type) {
	t.one[0] = old
	t.types = t.one[:]
}

// IsContiguous reports whether the data of one instance is one contiguous
// run of bytes, [DataBounds), traversed in increasing order.
func (t *Type) IsContiguous() bool { return t.contig }

// Combiner reports how t was built.
func (t *Type) Combiner() Combiner { return t.combiner }

// Name is the .ddt name of a predefined type, "" for derived types.
func (t *Type) Name() string { return t.ex().name }

// IsPredefined reports whether t is a predefined (named) type.
func (t *Type) IsPredefined() bool { return t.combiner == CombinerNamed }

// Basic returns the basic type of a predefined non-pair type; ok is false otherwise.
func (t *Type) Basic() (b Basic, ok bool) { return t.basic, t.isBasic }

// Size is the number of bytes of data in one instance (MPI_Type_size).
func (t *Type) Size() int64 { return t.size }

// LB is the lower bound (MPI_Type_get_extent).
func (t *Type) LB() int64 { return t.lb }

// UB is the upper bound, LB + Extent.
func (t *Type) UB() int64 { return t.ub }

// Extent is UB - LB, the spacing of consecutive instances.
func (t *Type) Extent() int64 { return t.ub - t.lb }

// TrueLB is the true lower bound (MPI_Type_get_true_extent).
func (t *Type) TrueLB() int64 { return t.trueLB }

// TrueUB is the true upper bound, TrueLB + TrueExtent.
func (t *Type) TrueUB() int64 { return t.trueUB }

// TrueExtent is TrueUB - TrueLB.
func (t *Type) TrueExtent() int64 { return t.trueUB - t.trueLB }

// Elements is the number of basic elements in one instance (a pair type
// counts two), as MPI_Get_elements counts them.
func (t *Type) Elements() int64 { return t.elements }

// Depth is the nesting depth of the type tree: 0 for predefined types, one
// more than the deepest old type for derived ones.
func (t *Type) Depth() int { return int(t.depth) }

// Align is the alignment MPICH uses when t is a member of a struct.
func (t *Type) Align() int64 { return t.align }

// DataBounds returns the half-open byte range [lo, hi) relative to the
// instance's origin that the elements of one instance occupy; lo == hi when
// the type has no data. It never exceeds [TrueLB, TrueUB).
func (t *Type) DataBounds() (lo, hi int64) { return t.dataLB, t.dataUB }

// Span returns the half-open byte range relative to the origin that count
// instances touch, or an error if it, or its length, overflows int64. The range is empty
// (lo == hi == 0) when nothing is touched.
func (t *Type) Span(count int64) (lo, hi int64, err error) {
	if count < 0 {
		return 0, 0, fmt.Errorf("negative count %d", count)
	}
	if count == 0 || t.size == 0 {
		return 0, 0, nil
	}
	shift, err := mul(count-1, t.Extent())
	if err != nil {
		return 0, 0, fmt.Errorf("span of %d instances: %w", count, err)
	}
	lo, hi = t.dataLB, t.dataUB
	if shift < 0 {
		lo, err = add(lo, shift)
	} else {
		hi, err = add(hi, shift)
	}
	if err == nil {
		_, err = sub(hi, lo)
	}
	if err != nil {
		return 0, 0, fmt.Errorf("span of %d instances: %w", count, err)
	}
	return lo, hi, nil
}

// PackSize is the number of packed bytes of count instances.
func (t *Type) PackSize(count int64) (int64, error) {
	n, err := mul(count, t.size)
	if err != nil {
		return 0, fmt.Errorf("pack size of %d instances: %w", count, err)
	}
	return n, nil
}

// String is a short description for messages, for example "vector(3, 1, 4, int)".
func (t *Type) String() string {
	if t.combiner == CombinerNamed {
		return t.ex().name
	}
	return t.combiner.String() + "(...)"
}

// Lower returns the equivalent type built from simpler constructors that a
// subarray, darray or dup type stands for (for dup, the old type), or nil.
func (t *Type) Lower() *Type { return t.lower }
