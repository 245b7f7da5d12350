package datatype

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
)

// The constructor table: every combiner described once. The .ddt parser
// and printer, the C, Fortran and mpi4py exports, MPI_Type_get_contents
// (Contents, Rebuild), the interposition library's generated C wrappers
// and the engines' lowering (Shape) read this table instead of switching
// over Combiner; adding a constructor is a row here, its function in
// construct.go, and its case in internal/typegen (RATIONALE.md).

// ArgKind is the kind of one constructor argument, as the MPI C binding
// passes it.
type ArgKind uint8

// Argument kinds. "Large" is the MPI-4 large-count form of a constructor
// (MPI_Type_vector_c, ...).
const (
	ArgCount    ArgKind = iota // an integer: int, MPI_Count in the large forms
	ArgInt                     // an integer that stays int in the large forms (size, rank, ndims)
	ArgAint                    // a byte offset: MPI_Aint, MPI_Count in the large forms
	ArgOrder                   // MPI_ORDER_C or MPI_ORDER_FORTRAN
	ArgType                    // the old type
	ArgCounts                  // a list of ArgCount
	ArgInts                    // a list of ArgInt
	ArgAints                   // a list of ArgAint
	ArgDistribs                // a list of MPI_DISTRIBUTE_BLOCK, _CYCLIC, _NONE (int)
	ArgDargs                   // a list of distribution arguments or DefaultDarg (int)
	ArgTypes                   // a list of old types
)

// IsList reports whether arguments of kind k are lists.
func (k ArgKind) IsList() bool { return k >= ArgCounts }

// InContents says where MPI_Type_get_contents returns an argument of kind
// k: 'i' in the integers, 'a' in the addresses, 't' in the types.
func (k ArgKind) InContents() byte {
	switch k {
	case ArgAint, ArgAints:
		return 'a'
	case ArgType, ArgTypes:
		return 't'
	}
	return 'i'
}

// Param is one argument of a constructor.
type Param struct {
	Name  string  // its .ddt keyword, and its field of Args
	MPI   string  // its name in the MPI standard's C binding
	Short string  // a short name for the arrays of exported code
	Kind  ArgKind // how it is passed
}

// Shape is how the instances of a combiner's types are laid out: the one
// question the compiler, the engines, the optimizer and the drawing ask of
// a constructor. A new constructor with an existing shape needs nothing
// from them.
type Shape uint8

// Shapes.
const (
	ShapeNamed   Shape = iota // a predefined type
	ShapeLowered              // exactly Type.Lower, a type of other constructors (dup, subarray, darray)
	ShapeResized              // the old type with new bounds
	ShapeStrided              // Strided: count blocks of blocklength old types, a fixed stride apart
	ShapeBlocks               // a list of blocks of one old type (Type.Lists; displacements times BlockUnit)
	ShapeStruct               // a list of blocks of distinct old types, byte displacements
)

// Constructor describes one combiner: its names in every language ddt
// reads or writes, its arguments and how its types lower.
type Constructor struct {
	Combiner Combiner
	Name     string   // .ddt constructor, and Combiner.String
	C        string   // the MPI C (and Fortran, case-insensitive) function
	Removed  []string // MPI-1 C functions with the same arguments that MPI-3 removed
	Python   string   // the mpi4py method (of the old type, or of MPI.Datatype for struct)
	Params   []Param  // the arguments in .ddt order (the C order without the implicit count)
	// Count is the implicit argument of the C binding that gives the length
	// of the lists (every list of a constructor has that length), inserted
	// before Params[CountAt]; Count.Name is "" when there is none.
	Count   Param
	CountAt int
	Shape   Shape
	// Scaled says that the stride or displacements are in extents of the
	// old type (vector, indexed), not bytes.
	Scaled bool
	// Large says that MPI-4 has a large-count form C+"_c".
	Large bool
	build func(a *Args) (*Type, error)
}

var (
	pCount        = Param{"count", "count", "count", ArgCount}
	pBlocklength  = Param{"blocklength", "blocklength", "blocklength", ArgCount}
	pOld          = Param{"oldtype", "oldtype", "oldtype", ArgType}
	pBlocklengths = Param{"blocklengths", "array_of_blocklengths", "bl", ArgCounts}
	pDispls       = Param{"displacements", "array_of_displacements", "disp", ArgCounts}
	pByteDispls   = Param{"displacements", "array_of_displacements", "disp", ArgAints}
	pOrder        = Param{"order", "order", "order", ArgOrder}
	pNdims        = Param{"ndims", "ndims", "ndims", ArgInt}
)

// constructors is the table, indexed by Combiner. It is filled by init
// because its build functions refer, through the constructors' errors, to
// Combiner.String, which reads it.
var constructors [CombinerResized + 1]Constructor

func init() { constructors = table() }

func table() [CombinerResized + 1]Constructor {
	return [...]Constructor{
		CombinerNamed: {Combiner: CombinerNamed, Name: "named", Shape: ShapeNamed},
		CombinerDup: {Combiner: CombinerDup, Name: "dup", C: "MPI_Type_dup", Python: "Dup",
			Params: []Param{pOld}, Shape: ShapeLowered,
			build: func(a *Args) (*Type, error) { return Dup(a.old()) }},
		CombinerContiguous: {Combiner: CombinerContiguous, Name: "contiguous", C: "MPI_Type_contiguous",
			Python: "Create_contiguous", Params: []Param{pCount, pOld}, Shape: ShapeStrided, Scaled: true, Large: true,
			build: func(a *Args) (*Type, error) { return Contiguous(a.Count, a.old()) }},
		CombinerVector: {Combiner: CombinerVector, Name: "vector", C: "MPI_Type_vector", Python: "Create_vector",
			Params: []Param{pCount, pBlocklength, {"stride", "stride", "stride", ArgCount}, pOld},
			Shape:  ShapeStrided, Scaled: true, Large: true,
			build: func(a *Args) (*Type, error) { return Vector(a.Count, a.Blocklength, a.Stride, a.old()) }},
		CombinerHVector: {Combiner: CombinerHVector, Name: "hvector", C: "MPI_Type_create_hvector",
			Removed: []string{"MPI_Type_hvector"}, Python: "Create_hvector",
			Params: []Param{pCount, pBlocklength, {"stride", "stride", "stride", ArgAint}, pOld},
			Shape:  ShapeStrided, Large: true,
			build: func(a *Args) (*Type, error) { return HVector(a.Count, a.Blocklength, a.Stride, a.old()) }},
		CombinerIndexed: {Combiner: CombinerIndexed, Name: "indexed", C: "MPI_Type_indexed", Python: "Create_indexed",
			Params: []Param{pBlocklengths, pDispls, pOld}, Count: pCount, Shape: ShapeBlocks, Scaled: true, Large: true,
			build: func(a *Args) (*Type, error) { return Indexed(a.Blocklengths, a.Displacements, a.old()) }},
		CombinerHIndexed: {Combiner: CombinerHIndexed, Name: "hindexed", C: "MPI_Type_create_hindexed",
			Removed: []string{"MPI_Type_hindexed"}, Python: "Create_hindexed",
			Params: []Param{pBlocklengths, pByteDispls, pOld}, Count: pCount, Shape: ShapeBlocks, Large: true,
			build: func(a *Args) (*Type, error) { return HIndexed(a.Blocklengths, a.Displacements, a.old()) }},
		CombinerIndexedBlock: {Combiner: CombinerIndexedBlock, Name: "indexed_block", C: "MPI_Type_create_indexed_block",
			Python: "Create_indexed_block", Params: []Param{pBlocklength, pDispls, pOld}, Count: pCount,
			Shape: ShapeBlocks, Scaled: true, Large: true,
			build: func(a *Args) (*Type, error) { return IndexedBlock(a.Blocklength, a.Displacements, a.old()) }},
		CombinerHIndexedBlock: {Combiner: CombinerHIndexedBlock, Name: "hindexed_block", C: "MPI_Type_create_hindexed_block",
			Python: "Create_hindexed_block", Params: []Param{pBlocklength, pByteDispls, pOld}, Count: pCount,
			Shape: ShapeBlocks, Large: true,
			build: func(a *Args) (*Type, error) { return HIndexedBlock(a.Blocklength, a.Displacements, a.old()) }},
		CombinerStruct: {Combiner: CombinerStruct, Name: "struct", C: "MPI_Type_create_struct",
			Removed: []string{"MPI_Type_struct"}, Python: "Create_struct",
			Params: []Param{pBlocklengths, pByteDispls, {"types", "array_of_types", "types", ArgTypes}},
			Count:  pCount, Shape: ShapeStruct, Large: true,
			build: func(a *Args) (*Type, error) { return Struct(a.Blocklengths, a.Displacements, a.Types) }},
		CombinerSubarray: {Combiner: CombinerSubarray, Name: "subarray", C: "MPI_Type_create_subarray",
			Python: "Create_subarray", Params: []Param{{"sizes", "array_of_sizes", "sizes", ArgCounts},
				{"subsizes", "array_of_subsizes", "subsizes", ArgCounts}, {"starts", "array_of_starts", "starts", ArgCounts},
				pOrder, pOld}, Count: pNdims, Shape: ShapeLowered, Large: true,
			build: func(a *Args) (*Type, error) {
				return Subarray(a.Sizes, a.Subsizes, a.Starts, a.Order, a.old())
			}},
		CombinerDarray: {Combiner: CombinerDarray, Name: "darray", C: "MPI_Type_create_darray", Python: "Create_darray",
			Params: []Param{{"size", "size", "size", ArgInt}, {"rank", "rank", "rank", ArgInt},
				{"gsizes", "array_of_gsizes", "gsizes", ArgCounts}, {"distribs", "array_of_distribs", "distribs", ArgDistribs},
				{"dargs", "array_of_dargs", "dargs", ArgDargs}, {"psizes", "array_of_psizes", "psizes", ArgInts},
				pOrder, pOld}, Count: pNdims, CountAt: 2, Shape: ShapeLowered, Large: true,
			build: func(a *Args) (*Type, error) {
				return Darray(a.Size, a.Rank, a.Gsizes, a.Distribs, a.Dargs, a.Psizes, a.Order, a.old())
			}},
		CombinerResized: {Combiner: CombinerResized, Name: "resized", C: "MPI_Type_create_resized",
			Python: "Create_resized", Params: []Param{pOld, {"lb", "lb", "lb", ArgAint}, {"extent", "extent", "extent", ArgAint}},
			Shape: ShapeResized, Large: true,
			build: func(a *Args) (*Type, error) { return Resized(a.old(), a.LB, a.Extent) }},
	}
}

// Constructors returns the derived-type constructors (every combiner but
// CombinerNamed), in Combiner order. The entries must not be modified.
func Constructors() []*Constructor {
	cs := make([]*Constructor, 0, len(constructors)-1)
	for i := range constructors[1:] {
		cs = append(cs, &constructors[i+1])
	}
	return cs
}

// LookupConstructor returns the constructor whose .ddt name is name.
func LookupConstructor(name string) (*Constructor, bool) {
	for i := range constructors[1:] {
		if c := &constructors[i+1]; c.Name == name {
			return c, true
		}
	}
	return nil, false
}

// Constructor returns c's entry of the constructor table, or nil for an
// unknown combiner.
func (c Combiner) Constructor() *Constructor {
	if int(c) < len(constructors) {
		return &constructors[c]
	}
	return nil
}

// Shape is the shape of c's types (ShapeNamed for an unknown combiner).
func (c Combiner) Shape() Shape {
	if int(c) < len(constructors) {
		return constructors[c].Shape
	}
	return ShapeNamed
}

// CParams returns the arguments of the C binding before the new type: the
// Params with the implicit count inserted.
func (c *Constructor) CParams() []Param {
	if c.Count.Name == "" {
		return c.Params
	}
	ps := slices.Clone(c.Params)
	return slices.Insert(ps, c.CountAt, c.Count)
}

// Build builds a type from a's arguments named in c.Params (the others are
// ignored), checking that the lists have equal lengths.
func (c *Constructor) Build(a Args) (*Type, error) {
	if c.build == nil {
		return nil, fmt.Errorf("%s: not a constructor", c.Name)
	}
	n := -1
	for _, p := range c.Params {
		var k int
		switch s := a.slot(p.Name).(type) {
		case *[]int64:
			k = len(*s)
		case *[]Distrib:
			k = len(*s)
		case *[]*Type:
			if p.Kind == ArgType {
				if len(*s) != 1 || (*s)[0] == nil {
					return nil, argErr(c.Combiner, "%s: want one old type", p.Name)
				}
				continue
			}
			k = len(*s)
		default:
			continue
		}
		if n >= 0 && k != n {
			return nil, argErr(c.Combiner, "%s has %d elements, the lists before it %d", p.Name, k, n)
		}
		n = k
	}
	return c.build(&a)
}

// old is the one old type of a constructor that has one.
func (a *Args) old() *Type { return a.Types[0] }

// slot returns a pointer to the field of a named by a Param.Name.
func (a *Args) slot(name string) any {
	switch name {
	case "count":
		return &a.Count
	case "blocklength":
		return &a.Blocklength
	case "stride":
		return &a.Stride
	case "blocklengths":
		return &a.Blocklengths
	case "displacements":
		return &a.Displacements
	case "oldtype", "types":
		return &a.Types
	case "sizes":
		return &a.Sizes
	case "subsizes":
		return &a.Subsizes
	case "starts":
		return &a.Starts
	case "order":
		return &a.Order
	case "size":
		return &a.Size
	case "rank":
		return &a.Rank
	case "gsizes":
		return &a.Gsizes
	case "distribs":
		return &a.Distribs
	case "dargs":
		return &a.Dargs
	case "psizes":
		return &a.Psizes
	case "lb":
		return &a.LB
	case "extent":
		return &a.Extent
	}
	panic("datatype: no argument " + name) // a table entry names a field that Args lacks
}

// Int returns the integer argument named p.Name (ArgCount, ArgInt, ArgAint).
func (a *Args) Int(p Param) int64 { return *a.slot(p.Name).(*int64) }

// SetInt sets the integer argument named p.Name.
func (a *Args) SetInt(p Param, v int64) { *a.slot(p.Name).(*int64) = v }

// Ints returns the integer list argument named p.Name (ArgCounts, ArgInts,
// ArgAints, ArgDargs).
func (a *Args) Ints(p Param) []int64 { return *a.slot(p.Name).(*[]int64) }

// SetInts sets the integer list argument named p.Name.
func (a *Args) SetInts(p Param, v []int64) { *a.slot(p.Name).(*[]int64) = v }

// Len is the length of the lists of a's constructor c (0 if it has none).
func (a *Args) Len(c *Constructor) int {
	for _, p := range c.Params {
		switch s := a.slot(p.Name).(type) {
		case *[]int64:
			return len(*s)
		case *[]Distrib:
			return len(*s)
		case *[]*Type:
			if p.Kind == ArgTypes {
				return len(*s)
			}
		}
	}
	return 0
}

// contents lays out t's arguments as MPI_Type_get_contents does, from the
// table: the C arguments in order, integers, addresses and types apart.
func contents(t *Type) Contents {
	c := Contents{Combiner: t.combiner}
	k := t.combiner.Constructor()
	if k == nil || k.Shape == ShapeNamed {
		return c
	}
	a := t.Args()
	for _, p := range k.CParams() {
		switch p.Kind {
		case ArgCount, ArgInt:
			if p.Name == k.Count.Name && k.Count.Name != "" {
				c.Ints = append(c.Ints, int64(a.Len(k)))
			} else {
				c.Ints = append(c.Ints, a.Int(p))
			}
		case ArgAint:
			c.Addrs = append(c.Addrs, a.Int(p))
		case ArgOrder:
			c.Ints = append(c.Ints, int64(a.Order))
		case ArgCounts, ArgInts, ArgDargs:
			c.Ints = append(c.Ints, a.Ints(p)...)
		case ArgAints:
			c.Addrs = append(c.Addrs, a.Ints(p)...)
		case ArgDistribs:
			for _, d := range a.Distribs {
				c.Ints = append(c.Ints, int64(d))
			}
		case ArgType, ArgTypes:
			c.Types = append(c.Types, a.Types...)
		}
	}
	return c
}

// rebuild decodes contents by the table and builds the type.
func rebuild(c Contents) (*Type, error) {
	k := c.Combiner.Constructor()
	if k == nil || k.build == nil {
		return nil, fmt.Errorf("rebuild: unknown combiner %d", c.Combiner)
	}
	bad := func(why string) (*Type, error) { return nil, argErr(c.Combiner, "malformed contents: %s", why) }
	var a Args
	ints, addrs, types := c.Ints, c.Addrs, c.Types
	n := int64(-1) // the implicit count, once read
	take := func(src *[]int64, m int64) ([]int64, bool) {
		if m < 0 || m > int64(len(*src)) {
			return nil, false
		}
		v := (*src)[:m:m]
		*src = (*src)[m:]
		return v, true
	}
	for _, p := range k.CParams() {
		if p.Name == k.Count.Name && k.Count.Name != "" {
			v, ok := take(&ints, 1)
			if !ok {
				return bad("no " + p.Name)
			}
			if n = v[0]; n < 0 {
				return bad(fmt.Sprintf("%s = %d", p.Name, n))
			}
			continue
		}
		m := int64(1)
		if p.Kind.IsList() {
			m = n
			if m < 0 { // not a constructor's table row: lists come after the count
				return bad("a list before its count")
			}
		}
		switch p.Kind {
		case ArgCount, ArgInt:
			v, ok := take(&ints, 1)
			if !ok {
				return bad("no " + p.Name)
			}
			a.SetInt(p, v[0])
		case ArgAint:
			v, ok := take(&addrs, 1)
			if !ok {
				return bad("no " + p.Name)
			}
			a.SetInt(p, v[0])
		case ArgOrder:
			v, ok := take(&ints, 1)
			if !ok || (v[0] != int64(OrderC) && v[0] != int64(OrderFortran)) {
				return bad("no order, or an unknown one")
			}
			a.Order = Order(v[0])
		case ArgCounts, ArgInts, ArgDargs:
			v, ok := take(&ints, m)
			if !ok {
				return bad("too few integers for " + p.Name)
			}
			a.SetInts(p, v)
		case ArgAints:
			v, ok := take(&addrs, m)
			if !ok {
				return bad("too few addresses for " + p.Name)
			}
			a.SetInts(p, v)
		case ArgDistribs:
			v, ok := take(&ints, m)
			if !ok {
				return bad("too few integers for " + p.Name)
			}
			a.Distribs = make([]Distrib, len(v))
			for i, d := range v {
				if d < 0 || d > int64(DistributeNone) {
					return bad(fmt.Sprintf("distribs[%d] = %d", i, d))
				}
				a.Distribs[i] = Distrib(d)
			}
		case ArgType:
			if len(types) < 1 {
				return bad("no old type")
			}
			a.Types, types = types[:1:1], types[1:]
		case ArgTypes:
			if m > int64(len(types)) {
				return bad("too few types")
			}
			a.Types, types = types[:m:m], types[m:]
		}
	}
	if len(ints) != 0 || len(addrs) != 0 || len(types) != 0 {
		return bad("arguments left over")
	}
	for _, t := range a.Types {
		if t == nil {
			return bad("a nil type")
		}
	}
	return k.build(&a)
}

// Takes reports whether c takes a parameter named name.
func (c *Constructor) Takes(name string) bool {
	for _, p := range c.Params {
		if p.Name == name {
			return true
		}
	}
	return false
}

// Strided returns the layout of a type of ShapeStrided: count blocks of
// blocklength instances of its old type, strideBytes apart (a constructor
// without a block length, contiguous, is one block of its count
// instances). ok is false for other shapes.
func (t *Type) Strided() (count, blocklength, strideBytes int64, ok bool) {
	k := t.combiner.Constructor()
	if k == nil || k.Shape != ShapeStrided {
		return 0, 0, 0, false
	}
	count, blocklength, strideBytes = t.count, t.blocklength, t.stride
	if t.combiner == CombinerContiguous { // the one without a blocklength: one block of count instances
		return 1, count, 0, true
	}
	if k.Scaled {
		hi, lo := bits.Mul64(uint64(max(strideBytes, -strideBytes)), uint64(max(t.types[0].Extent(), -t.types[0].Extent())))
		if hi != 0 || lo > math.MaxInt64 {
			// only when count <= 1 (the constructor checked the span of
			// more): the stride places nothing
			return count, blocklength, 0, true
		}
		strideBytes *= t.types[0].Extent()
	}
	return count, blocklength, strideBytes, true
}

// BlockUnit is the number of bytes one unit of the displacements that Args
// (or Lists) reports for t stands for: the old type's extent for indexed
// and indexed_block, 1 for byte displacements and every other type.
func (t *Type) BlockUnit() int64 {
	if k := t.combiner.Constructor(); k != nil && k.Shape == ShapeBlocks && k.Scaled {
		return t.types[0].Extent()
	}
	return 1
}
