package comm

import (
	"errors"
	"fmt"
	"hash/fnv"
	"reflect"
	"unsafe"

	"github.com/ddtlab/ddt/datatype"
)

// opKind numbers the predefined operations; user operations are opUser.
type opKind uint8

const (
	opUser opKind = iota
	opSum
	opProd
	opMin
	opMax
	opLand
	opLor
	opLxor
	opBand
	opBor
	opBxor
	opMinloc
	opMaxloc
	numOps
)

// Op is a reduction operation: one of MPI's predefined operations (Sum,
// Prod, Min, Max, Land, Lor, Lxor, Band, Bor, Bxor, Minloc, Maxloc) or a
// user-defined one (NewOp, NewSliceOp). Every rank of a reduction must
// give the same operation: the same predefined Op, or user operations of
// the same name and commutativity. An Op is immutable and safe for
// concurrent use.
//
// An operation combines two sequences of basic elements, in and inout,
// into inout = in ∘ inout, where in holds the contributions of the lower
// ranks; a reduction over ranks 0..n-1 computes x_0 ∘ x_1 ∘ … ∘ x_{n-1}.
// The predefined operations are commutative and apply elementwise, each
// element in its own basic type; see the package documentation for the
// types each accepts.
type Op struct {
	name        string
	kind        opKind
	commutative bool
	fn          UserFunc
}

// The predefined operations of MPI-4.1 §6.9.2.
var (
	Sum    = &Op{name: "MPI_SUM", kind: opSum, commutative: true}
	Prod   = &Op{name: "MPI_PROD", kind: opProd, commutative: true}
	Min    = &Op{name: "MPI_MIN", kind: opMin, commutative: true}
	Max    = &Op{name: "MPI_MAX", kind: opMax, commutative: true}
	Land   = &Op{name: "MPI_LAND", kind: opLand, commutative: true}
	Lor    = &Op{name: "MPI_LOR", kind: opLor, commutative: true}
	Lxor   = &Op{name: "MPI_LXOR", kind: opLxor, commutative: true}
	Band   = &Op{name: "MPI_BAND", kind: opBand, commutative: true}
	Bor    = &Op{name: "MPI_BOR", kind: opBor, commutative: true}
	Bxor   = &Op{name: "MPI_BXOR", kind: opBxor, commutative: true}
	Minloc = &Op{name: "MPI_MINLOC", kind: opMinloc, commutative: true}
	Maxloc = &Op{name: "MPI_MAXLOC", kind: opMaxloc, commutative: true}
)

var predefinedOps = [numOps]*Op{nil, Sum, Prod, Min, Max, Land, Lor, Lxor, Band, Bor, Bxor, Minloc, Maxloc}

// UserFunc is the body of a user-defined operation. in and inout hold
// count instances of t each, packed: t's basic elements concatenated in
// type-map order in native byte order, as ddt.Committed.Pack produces
// them, starting 8-byte aligned. It must leave in ∘ inout in inout and may
// not keep either slice. An error it returns fails the reduction on every
// rank.
type UserFunc func(in, inout []byte, count int64, t *datatype.Type) error

// NewOp returns a user-defined operation (MPI_Op_create). name identifies
// it across ranks: a reduction fails on every rank if ranks give
// operations of different names or commutativity. A non-commutative
// operation is applied in rank order; a commutative one may be applied
// in any order (this package still applies it in rank order).
func NewOp(name string, commutative bool, fn UserFunc) (*Op, error) {
	if name == "" {
		return nil, errors.New("comm: NewOp: empty name")
	}
	if fn == nil {
		return nil, fmt.Errorf("comm: NewOp %q: nil function", name)
	}
	return &Op{name: name, commutative: commutative, fn: fn}, nil
}

// NewSliceOp returns a user-defined operation over values of E: the packed
// elements of in and inout are viewed as []E, so E must be plain data laid
// out as the packed elements are (numbers, and arrays and structs of them
// without padding; for example [4]float64 for a 2x2 matrix of doubles).
// fn must set inout[i] = in[i] ∘ inout[i]. A reduction whose packed data
// is not a whole number of E fails with an error naming the op.
func NewSliceOp[E any](name string, commutative bool, fn func(in, inout []E)) (*Op, error) {
	rt := reflect.TypeFor[E]()
	if err := plain(rt); err != nil {
		return nil, fmt.Errorf("comm: NewSliceOp %q: element type %v: %w", name, rt, err)
	}
	if fn == nil {
		return nil, fmt.Errorf("comm: NewSliceOp %q: nil function", name)
	}
	size := int(rt.Size())
	return NewOp(name, commutative, func(in, inout []byte, count int64, t *datatype.Type) error {
		if len(inout)%size != 0 || len(in) != len(inout) {
			return fmt.Errorf("op %s: %d packed bytes (%d x %s) are not a whole number of %d-byte %v", name, len(inout), count, t, size, rt)
		}
		fn(viewAs[E](in, size), viewAs[E](inout, size))
		return nil
	})
}

// viewAs views b (aligned for E by the caller) as a slice of E.
func viewAs[E any](b []byte, size int) []E {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*E)(unsafe.Pointer(&b[0])), len(b)/size)
}

// plain reports whether values of t are numbers without pointers or
// padding.
func plain(t reflect.Type) error {
	switch t.Kind() {
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint8, reflect.Uint16,
		reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128, reflect.Bool:
		return nil
	case reflect.Array:
		return plain(t.Elem())
	case reflect.Struct:
		var sum uintptr
		for i := range t.NumField() {
			f := t.Field(i)
			if err := plain(f.Type); err != nil {
				return err
			}
			if f.Offset != sum {
				return fmt.Errorf("field %s is padded", f.Name)
			}
			sum += f.Type.Size()
		}
		if sum != t.Size() {
			return errors.New("trailing padding")
		}
		return nil
	}
	return fmt.Errorf("kind %v is not plain numeric data", t.Kind())
}

// Name is the operation's name: MPI's for the predefined ones (MPI_SUM).
func (o *Op) Name() string { return o.name }

// Commutative reports whether the operation is commutative
// (MPI_Op_commutative).
func (o *Op) Commutative() bool { return o.commutative }

// Predefined reports whether o is one of MPI's predefined operations.
func (o *Op) Predefined() bool { return o.kind != opUser }

func (o *Op) String() string { return o.name }

// id identifies o across ranks: the predefined kind, or a hash of a user
// operation's name and commutativity.
func (o *Op) id() uint64 {
	if o.kind != opUser {
		return uint64(o.kind)
	}
	h := fnv.New64a()
	h.Write([]byte(o.name))
	v := h.Sum64() | 1<<63
	if o.commutative {
		v ^= 1 << 62
	}
	return v
}

// opName names the operation with identifier id, for error messages.
func opName(id uint64) string {
	if id < uint64(numOps) && id > 0 {
		return predefinedOps[id].name
	}
	return fmt.Sprintf("a user operation (id %#x)", id)
}

// Type groups of MPI-4.1 §6.9.2.
const (
	gCInt = 1 << iota
	gMulti
	gFloat
	gComplex
	gLogical
	gByte
)

func group(b datatype.Basic) int {
	switch b {
	case datatype.SignedChar, datatype.UnsignedChar, datatype.Int8, datatype.Uint8, datatype.Short,
		datatype.UnsignedShort, datatype.Int16, datatype.Uint16, datatype.Int, datatype.Unsigned,
		datatype.Int32, datatype.Uint32, datatype.Long, datatype.UnsignedLong, datatype.LongLong,
		datatype.UnsignedLongLong, datatype.Int64, datatype.Uint64:
		return gCInt
	case datatype.Aint, datatype.Offset, datatype.Count:
		return gMulti
	case datatype.Float, datatype.Double, datatype.LongDouble:
		return gFloat
	case datatype.CFloatComplex, datatype.CDoubleComplex, datatype.CLongDoubleComplex:
		return gComplex
	case datatype.CBool:
		return gLogical
	case datatype.Byte:
		return gByte
	}
	return 0 // char, wchar: no reduction
}

// domain is the set of type groups each predefined operation is defined on.
var domain = [numOps]int{
	opSum:  gCInt | gMulti | gFloat | gComplex,
	opProd: gCInt | gMulti | gFloat | gComplex,
	opMin:  gCInt | gMulti | gFloat,
	opMax:  gCInt | gMulti | gFloat,
	opLand: gCInt | gLogical,
	opLor:  gCInt | gLogical,
	opLxor: gCInt | gLogical,
	opBand: gCInt | gMulti | gByte,
	opBor:  gCInt | gMulti | gByte,
	opBxor: gCInt | gMulti | gByte,
}

// Defined reports whether the predefined operation o is defined on the
// basic type b (MPI-4.1 §6.9.2). It is false for Minloc and Maxloc, which
// are defined on pairs (see the package documentation), and true for
// every user operation.
func (o *Op) Defined(b datatype.Basic) bool {
	if o.kind == opUser {
		return true
	}
	return domain[o.kind]&group(b) != 0
}

// pairValue reports whether b may be the value of a Minloc/Maxloc pair
// (the first member of float_int, double_int, long_int, 2int, short_int
// or long_double_int).
func pairValue(b datatype.Basic) bool {
	switch b {
	case datatype.Float, datatype.Double, datatype.Long, datatype.Int, datatype.Short, datatype.LongDouble:
		return true
	}
	return false
}

// run is n consecutive elements of one basic type.
type run struct {
	b datatype.Basic
	n int64
}

// layout is the element sequence of count instances of a type, in runs:
// the runs of one instance, repeated count times.
type layout struct {
	t     *datatype.Type
	count int64
	runs  []run // of one instance
	size  int64 // packed bytes of one instance
}

// elementsOf returns the element sequence of count instances of t. It
// walks one instance unless t's elements are all of one basic type.
func elementsOf(t *datatype.Type, uniform bool, basic datatype.Basic, count int64) layout {
	l := layout{t: t, count: count, size: t.Size()}
	if uniform {
		l.runs = []run{{basic, t.Elements()}}
		if b, ok := t.Basic(); ok {
			l.runs[0].b = b
		}
		return l
	}
	t.Walk(1, func(b datatype.Basic, _ int64) bool {
		if k := len(l.runs); k > 0 && l.runs[k-1].b == b {
			l.runs[k-1].n++
		} else {
			l.runs = append(l.runs, run{b, 1})
		}
		return true
	})
	return l
}

// check reports whether the predefined operation o is defined on every
// element of l, naming the type and the first element it is not.
func (o *Op) check(l layout) error {
	if o.kind == opUser {
		return nil
	}
	if o.kind == opMinloc || o.kind == opMaxloc {
		// the elements must be (value, int) pairs
		var k int64 // element index in the instance
		var prev datatype.Basic
		for _, r := range l.runs {
			for i := int64(0); i < r.n; i++ {
				if k%2 == 0 && !pairValue(r.b) {
					return fmt.Errorf("%s is not defined on %s: element %d (%s) is not the value of a (value, int) pair",
						o.name, l.t, k, r.b)
				}
				if k%2 == 1 && r.b != datatype.Int {
					return fmt.Errorf("%s is not defined on %s: element %d (%s) follows the value %s where an int index must",
						o.name, l.t, k, r.b, prev)
				}
				prev = r.b
				k++
			}
		}
		if k%2 != 0 {
			return fmt.Errorf("%s is not defined on %s: its %d elements are not whole (value, int) pairs", o.name, l.t, k)
		}
		return nil
	}
	var k int64
	for _, r := range l.runs {
		if !o.Defined(r.b) {
			return fmt.Errorf("%s is not defined on %s: element %d is %s", o.name, l.t, k, r.b)
		}
		k += r.n
	}
	return nil
}

// apply sets inout = in ∘ inout over the packed elements of l.
func (o *Op) apply(in, inout []byte, l layout) error {
	if int64(len(inout)) != l.size*l.count || len(in) != len(inout) {
		return fmt.Errorf("op %s: %d and %d packed bytes for %d x %s", o.name, len(in), len(inout), l.count, l.t)
	}
	if o.kind == opUser {
		return o.fn(in, inout, l.count, l.t)
	}
	if o.kind == opMinloc || o.kind == opMaxloc {
		return o.applyPairs(in, inout, l)
	}
	if len(l.runs) == 1 {
		// one basic type: one run over every instance
		return applyRun(o.kind, l.runs[0].b, in, inout)
	}
	off := int64(0)
	for range l.count {
		for _, r := range l.runs {
			n := r.n * r.b.Size()
			if err := applyRun(o.kind, r.b, in[off:off+n], inout[off:off+n]); err != nil {
				return err
			}
			off += n
		}
	}
	return nil
}

// applyPairs applies Minloc or Maxloc to the (value, int) pairs of l.
func (o *Op) applyPairs(in, inout []byte, l layout) error {
	// the value type of each pair of one instance
	var vals []datatype.Basic
	k := 0
	for _, r := range l.runs {
		for range r.n {
			if k%2 == 0 {
				vals = append(vals, r.b)
			}
			k++
		}
	}
	off := int64(0)
	for range l.count {
		for _, v := range vals {
			n := v.Size() + 4
			locPair(o.kind == opMaxloc, v, in[off:off+n], inout[off:off+n])
			off += n
		}
	}
	return nil
}
