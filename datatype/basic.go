package datatype

import "sort"

// Basic identifies a basic (predefined, non-pair) MPI type: the unit of a type
// map and of a type signature.
type Basic uint8

// The basic types, in the order of the .ddt language table.
const (
	Char Basic = iota
	SignedChar
	UnsignedChar
	Byte
	CBool
	Int8
	Uint8
	Short
	UnsignedShort
	Int16
	Uint16
	Int
	Unsigned
	Float
	WChar
	Int32
	Uint32
	Long
	UnsignedLong
	LongLong
	UnsignedLongLong
	Double
	Int64
	Uint64
	Aint
	Offset
	Count
	CFloatComplex
	LongDouble
	CDoubleComplex
	CLongDoubleComplex
	numBasic
)

type basicInfo struct {
	name  string // .ddt name
	cname string // MPI C name
	size  int64
	align int64 // C alignof on x86-64, which MPICH uses to pad struct extents
}

var basicTable = [numBasic]basicInfo{
	Char:               {"char", "MPI_CHAR", 1, 1},
	SignedChar:         {"signed_char", "MPI_SIGNED_CHAR", 1, 1},
	UnsignedChar:       {"unsigned_char", "MPI_UNSIGNED_CHAR", 1, 1},
	Byte:               {"byte", "MPI_BYTE", 1, 1},
	CBool:              {"c_bool", "MPI_C_BOOL", 1, 1},
	Int8:               {"int8_t", "MPI_INT8_T", 1, 1},
	Uint8:              {"uint8_t", "MPI_UINT8_T", 1, 1},
	Short:              {"short", "MPI_SHORT", 2, 2},
	UnsignedShort:      {"unsigned_short", "MPI_UNSIGNED_SHORT", 2, 2},
	Int16:              {"int16_t", "MPI_INT16_T", 2, 2},
	Uint16:             {"uint16_t", "MPI_UINT16_T", 2, 2},
	Int:                {"int", "MPI_INT", 4, 4},
	Unsigned:           {"unsigned", "MPI_UNSIGNED", 4, 4},
	Float:              {"float", "MPI_FLOAT", 4, 4},
	WChar:              {"wchar", "MPI_WCHAR", 4, 4},
	Int32:              {"int32_t", "MPI_INT32_T", 4, 4},
	Uint32:             {"uint32_t", "MPI_UINT32_T", 4, 4},
	Long:               {"long", "MPI_LONG", 8, 8},
	UnsignedLong:       {"unsigned_long", "MPI_UNSIGNED_LONG", 8, 8},
	LongLong:           {"long_long", "MPI_LONG_LONG", 8, 8},
	UnsignedLongLong:   {"unsigned_long_long", "MPI_UNSIGNED_LONG_LONG", 8, 8},
	Double:             {"double", "MPI_DOUBLE", 8, 8},
	Int64:              {"int64_t", "MPI_INT64_T", 8, 8},
	Uint64:             {"uint64_t", "MPI_UINT64_T", 8, 8},
	Aint:               {"aint", "MPI_AINT", 8, 8},
	Offset:             {"offset", "MPI_OFFSET", 8, 8},
	Count:              {"count", "MPI_COUNT", 8, 8},
	CFloatComplex:      {"c_float_complex", "MPI_C_FLOAT_COMPLEX", 8, 4},
	LongDouble:         {"long_double", "MPI_LONG_DOUBLE", 16, 16},
	CDoubleComplex:     {"c_double_complex", "MPI_C_DOUBLE_COMPLEX", 16, 8},
	CLongDoubleComplex: {"c_long_double_complex", "MPI_C_LONG_DOUBLE_COMPLEX", 32, 16},
}

// NumBasic is the number of basic types; Basic values are below it.
const NumBasic = int(numBasic)

// Size is the size in bytes of one element of b.
func (b Basic) Size() int64 { return basicTable[b].size }

// Align is the alignment of b on x86-64 (C alignof), used for struct padding.
func (b Basic) Align() int64 { return basicTable[b].align }

// String is the .ddt name of b.
func (b Basic) String() string { return basicTable[b].name }

// CName is the MPI C name of b, for example MPI_DOUBLE.
func (b Basic) CName() string { return basicTable[b].cname }

// BasicByName returns the basic type with the given .ddt name (aliases
// included: c_complex); ok is false for other names, pair types included.
func BasicByName(name string) (b Basic, ok bool) {
	if name == "c_complex" {
		return CFloatComplex, true
	}
	for i := range basicTable {
		if basicTable[i].name == name {
			return Basic(i), true
		}
	}
	return 0, false
}

// Predefined types, one *Type per name. Pair types are predefined structs.
var (
	predef        = map[string]*Type{}
	basicTypes    [numBasic]*Type
	FloatInt      *Type // MPI_FLOAT_INT: (float, int)
	DoubleInt     *Type // MPI_DOUBLE_INT: (double, int)
	LongInt       *Type // MPI_LONG_INT: (long, int)
	TwoInt        *Type // MPI_2INT: (int, int)
	ShortInt      *Type // MPI_SHORT_INT: (short, int)
	LongDoubleInt *Type // MPI_LONG_DOUBLE_INT: (long double, int)
)

// pair describes a predefined pair type: its members and what MPICH 4
// reports for it on x86-64 (true_ub is MPICH's, which for short_int is the
// padded struct size).
type pair struct {
	name, cname    string
	a, b           Basic
	offB           int64
	extent, trueUB int64
}

var pairTable = []pair{
	{"float_int", "MPI_FLOAT_INT", Float, Int, 4, 8, 8},
	{"double_int", "MPI_DOUBLE_INT", Double, Int, 8, 16, 12},
	{"long_int", "MPI_LONG_INT", Long, Int, 8, 16, 12},
	{"two_int", "MPI_2INT", Int, Int, 4, 8, 8},
	{"short_int", "MPI_SHORT_INT", Short, Int, 4, 8, 8},
	{"long_double_int", "MPI_LONG_DOUBLE_INT", LongDouble, Int, 16, 32, 20},
}

func init() {
	for i := range basicTable {
		b := Basic(i)
		t := &Type{combiner: CombinerNamed, x: &extra{name: b.String()}, basic: b, isBasic: true, expanded: 1}
		t.size = b.Size()
		t.ub = t.size
		t.trueUB = t.size
		t.dataLB, t.dataUB = 0, t.size
		t.elements = 1
		t.contig = true
		t.align = b.Align()
		basicTypes[b] = t
		predef[t.x.name] = t
	}
	predef["c_complex"] = basicTypes[CFloatComplex]
	for i := range pairTable {
		p := &pairTable[i]
		t := &Type{combiner: CombinerNamed, x: &extra{name: p.name, pair: p}, expanded: 1}
		t.size = p.a.Size() + p.b.Size()
		t.ub = p.extent
		t.trueUB = p.trueUB
		t.dataLB, t.dataUB = 0, p.offB+p.b.Size()
		t.elements = 2
		t.contig = p.offB == p.a.Size()
		t.align = max(p.a.Align(), p.b.Align())
		predef[p.name] = t
	}
	predef["2int"] = predef["two_int"]
	FloatInt, DoubleInt, LongInt = predef["float_int"], predef["double_int"], predef["long_int"]
	TwoInt, ShortInt, LongDoubleInt = predef["two_int"], predef["short_int"], predef["long_double_int"]
}

// Predefined returns the predefined type with the given .ddt name (basic or
// pair type, aliases included), or nil.
func Predefined(name string) *Type { return predef[name] }

// PredefinedNames lists the canonical .ddt names of all predefined types.
func PredefinedNames() []string {
	var names []string
	for i := range basicTable {
		names = append(names, basicTable[i].name)
	}
	for _, p := range pairTable {
		names = append(names, p.name)
	}
	sort.Strings(names)
	return names
}

// Of returns the predefined *Type of basic type b.
func Of(b Basic) *Type { return basicTypes[b] }
