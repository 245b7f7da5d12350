package lang

import (
	"errors"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/ddtlab/ddt/datatype"
	"github.com/ddtlab/ddt/internal/typegen"
)

func mustParse(t *testing.T, src string) *datatype.Type {
	t.Helper()
	ty, err := Parse("t.ddt", []byte(src))
	if err != nil {
		t.Fatalf("Parse(%q): %v", src, err)
	}
	return ty
}

func must(t *testing.T) func(*datatype.Type, error) *datatype.Type {
	return func(x *datatype.Type, err error) *datatype.Type {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
}

func TestParseSpecExample(t *testing.T) {
	src := `# first row and first column of a 1000 x 1000 int matrix (seed 000, Fig. 2)
row = contiguous(1000, int)
col = vector(999, 1, 1000, int)
struct([1, 1], [0, 4000], [row, col])
`
	f, err := ParseFile("ex.ddt", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	m := must(t)
	i := datatype.Of(datatype.Int)
	row := m(datatype.Contiguous(1000, i))
	col := m(datatype.Vector(999, 1, 1000, i))
	want := m(datatype.Struct([]int64{1, 1}, []int64{0, 4000}, []*datatype.Type{row, col}))
	if !datatype.Equal(f.Type, want) {
		t.Errorf("got %s", Format(f.Type))
	}
	if len(f.Bindings) != 2 || f.Bindings[0].Name != "row" || f.Bindings[1].Pos != (Pos{3, 1}) {
		t.Errorf("bindings %+v", f.Bindings)
	}
	if !datatype.Equal(f.Lookup("col"), col) || f.Lookup("nope") != nil {
		t.Error("Lookup")
	}
	if f.Type.Size() != 7996 || f.Type.Extent() != 3996004 {
		t.Errorf("size %d extent %d", f.Type.Size(), f.Type.Extent())
	}
}

// TestParseForms checks each constructor, keywords, aliases and line
// continuation against the same type built directly.
func TestParseForms(t *testing.T) {
	m := must(t)
	i, d, ch := datatype.Of(datatype.Int), datatype.Of(datatype.Double), datatype.Of(datatype.Char)
	vec := m(datatype.Vector(3, 2, -4, i))
	cases := []struct {
		src  string
		want *datatype.Type
	}{
		{"int", i},
		{"c_complex", datatype.Of(datatype.CFloatComplex)},
		{"2int", datatype.TwoInt},
		{"two_int", datatype.TwoInt},
		{"contiguous(0, double)", m(datatype.Contiguous(0, d))},
		{"vector(3, 2, -4, int)", vec},
		{"vector(count=3, blocklength=2, stride=-4, oldtype=int)", vec},
		{"vector(3, 2, oldtype=int, stride=-4)", vec},
		{"vector(\n  3,   # count\n  2,\n  -4,\n  int\n)", vec},
		{"a = vector(3, 2, -4, int)\nb = a\nb", vec},
		{"hvector(2, 1, -16, double)", m(datatype.HVector(2, 1, -16, d))},
		{"indexed([1, 0, 2], [-3, 5, 1], int)", m(datatype.Indexed([]int64{1, 0, 2}, []int64{-3, 5, 1}, i))},
		{"hindexed([], [], int)", m(datatype.HIndexed([]int64{}, []int64{}, i))},
		{"indexed_block(2, [0, 7], char)", m(datatype.IndexedBlock(2, []int64{0, 7}, ch))},
		{"hindexed_block(blocklength=0, displacements=[4], oldtype=char)", m(datatype.HIndexedBlock(0, []int64{4}, ch))},
		{"struct([1, 1], [0, 8], [c_complex, 2int])", m(datatype.Struct([]int64{1, 1}, []int64{0, 8},
			[]*datatype.Type{datatype.Of(datatype.CFloatComplex), datatype.TwoInt}))},
		{"subarray([4, 5], [2, 3], [1, 1], C, double)", m(datatype.Subarray([]int64{4, 5}, []int64{2, 3}, []int64{1, 1}, datatype.OrderC, d))},
		{"subarray([4, 5], [2, 3], [1, 1], order=Fortran, oldtype=double)", m(datatype.Subarray([]int64{4, 5}, []int64{2, 3}, []int64{1, 1}, datatype.OrderFortran, d))},
		{"darray(6, 4, [7, 8, 3], [block, cyclic, none], [default, 2, default], [2, 3, 1], Fortran, int)",
			m(datatype.Darray(6, 4, []int64{7, 8, 3}, []datatype.Distrib{datatype.DistributeBlock, datatype.DistributeCyclic, datatype.DistributeNone},
				[]int64{datatype.DefaultDarg, 2, datatype.DefaultDarg}, []int64{2, 3, 1}, datatype.OrderFortran, i))},
		{"resized(int, -4, 16)", m(datatype.Resized(i, -4, 16))},
		{"resized(extent=0, lb=0, oldtype=int)", m(datatype.Resized(i, 0, 0))},
		{"dup(dup(float_int))", m(datatype.Dup(m(datatype.Dup(datatype.FloatInt))))},
		{"contiguous(2, int)\r\ndup(char)  # the last statement counts\r\n", m(datatype.Dup(ch))},
		{"C = contiguous(2, int)\nsubarray([2], [1], [0], C, C)", m(datatype.Subarray([]int64{2}, []int64{1}, []int64{0}, datatype.OrderC, m(datatype.Contiguous(2, i))))},
		{"contiguous(-9223372036854775808, int)  # error", nil},
	}
	for _, c := range cases {
		if c.want == nil {
			continue
		}
		got := mustParse(t, c.src)
		if !datatype.Equal(got, c.want) {
			t.Errorf("%q: got %q, want %q", c.src, Format(got), Format(c.want))
		}
	}
}

// TestParseErrors checks the message and position of each kind of error.
func TestParseErrors(t *testing.T) {
	cases := []struct{ src, want string }{
		{"\n\nrow = struct([1], [0], [vector(-1, 1, 1, int)])", "f.ddt:3:25: vector: negative count -1"},
		{"a = contiguous(1, int)\na = contiguous(2, int)", "f.ddt:2:1: a is already bound at 1:1"},
		{"int = contiguous(1, char)", "f.ddt:1:1: cannot bind int: it is a predefined type"},
		{"two_int = dup(int)", "f.ddt:1:1: cannot bind two_int: it is a predefined type"},
		{"a = contiguous(2, b)\nb = dup(int)", "f.ddt:1:19: b is used before it is bound (at 2:1)"},
		{"a = contiguous(2, a)", "f.ddt:1:19: a is used before it is bound (at 1:1)"},
		{"contiguous(2, nosuch)", "f.ddt:1:15: undefined type name nosuch"},
		{"frob(1, int)", "f.ddt:1:1: unknown constructor frob"},
		{"int(3)", "f.ddt:1:1: int is a predefined type, not a constructor"},
		{"contiguous(2, vector)", "f.ddt:1:15: constructor vector needs arguments in parentheses"},
		{"vector(3, 1, stride_bytes=2, oldtype=int)", "f.ddt:1:14: vector: unknown keyword stride_bytes (the arguments are count, blocklength, stride, oldtype)"},
		{"vector(1, 2, int)", "f.ddt:1:14: vector: stride must be an integer, not the name int"},
		{"vector(1, 2, 3)", "f.ddt:1:1: vector: missing oldtype: 3 arguments given, want 4 (count, blocklength, stride, oldtype)"},
		{"dup()", "f.ddt:1:1: dup: missing oldtype: 0 arguments given, want 1 (oldtype)"},
		{"vector(1, 2, 3, int, 4)", "f.ddt:1:22: vector: too many arguments, want 4 (count, blocklength, stride, oldtype)"},
		{"resized(int, lb=0, lb=4, extent=2)", "f.ddt:1:20: resized: argument lb given twice"},
		{"resized(int, 0, lb=4, extent=2)", "f.ddt:1:17: resized: argument lb given twice"},
		{"vector(count=1, 2, 3, int)", "f.ddt:1:17: vector: positional argument after a keyword argument"},
		{"indexed([1, 2], [3], int)", "f.ddt:1:17: indexed: 1 displacements but 2 blocklengths"},
		{"struct([1, 1], [0, 4], [int])", "f.ddt:1:24: struct: 1 types but 2 blocklengths"},
		{"darray(1, 0, [4], [block, block], [default], [1], C, int)", "f.ddt:1:19: darray: 2 distribs but 1 gsizes"},
		{"contiguous([2], int)", "f.ddt:1:12: contiguous: count must be an integer, not a list"},
		{"contiguous(int, 2)", "f.ddt:1:12: contiguous: count must be an integer, not the name int"},
		{"contiguous(2, 3)", "f.ddt:1:15: contiguous: oldtype must be a type, not an integer"},
		{"indexed([1, int], [0, 1], int)", "f.ddt:1:13: indexed: the elements of blocklengths must be integers, not the name int"},
		{"struct([1], [0], [4])", "f.ddt:1:19: struct: the elements of types must be types, not an integer"},
		{"subarray([2], [1], [0], c, int)", "f.ddt:1:25: subarray: order must be C or Fortran, not c"},
		{"subarray([2], [1], [0], 0, int)", "f.ddt:1:25: subarray: order must be C or Fortran, not an integer"},
		{"darray(1, 0, [4], [blocked], [default], [1], C, int)", "f.ddt:1:20: darray: unknown distribution blocked (want block, cyclic or none)"},
		{"darray(1, 0, [4], [block], [dflt], [1], C, int)", "f.ddt:1:29: darray: unknown distribution argument dflt (want an integer or default)"},
		{"darray(2, 0, [4], [none], [default], [2], C, int)", "f.ddt:1:1: darray: psizes[0] = 2 must be 1 for distribution none"},
		{"contiguous(9223372036854775808, int)", "f.ddt:1:12: integer 9223372036854775808 does not fit in 64 bits"},
		{"contiguous(-9223372036854775809, int)", "f.ddt:1:12: integer -9223372036854775809 does not fit in 64 bits"},
		{"contiguous(9223372036854775807, int)", "f.ddt:1:1: contiguous: (count-1)*extent(oldtype) overflows int64 (count=9223372036854775807, extent(oldtype)=4)"},
		{"x = contiguous(2,\n  int", "f.ddt:2:6: expected ',' or ')' in the arguments of contiguous at 1:5, found end of file"},
		{"contiguous(2, int))", "f.ddt:1:19: unexpected ')' after the statement"},
		{"contiguous(2, int) dup(int)", "f.ddt:1:20: unexpected name dup after the statement"},
		{"x = 5", "f.ddt:1:5: a statement must be a type expression, not an integer"},
		{"x = [int]", "f.ddt:1:5: a statement must be a type expression, not a list"},
		{"contiguous(2, - 3)", "f.ddt:1:15: '-' must be followed by a digit"},
		{"3x = int", "f.ddt:1:1: malformed token 3x"},
		{"contiguous(2, int); dup(int)", "f.ddt:1:19: unexpected character ';'"},
		{"x = contiguous(2, int) = 3", "f.ddt:1:24: unexpected '=' after the statement"},
		{"indexed([1,, 2], [0, 1], int)", "f.ddt:1:12: expected a value, found ','"},
		{"", "f.ddt:1:1: no type: the file has no statement"},
		{"# nothing\n\n", "f.ddt:3:1: no type: the file has no statement"},
		{strings.Repeat("dup(", 2000) + "int" + strings.Repeat(")", 2000), "f.ddt:1:4004: nested more than 1000 levels deep"},
	}
	for _, c := range cases {
		_, err := Parse("f.ddt", []byte(c.src))
		if len(c.src) > 60 {
			c.src = c.src[:60] + "..."
		}
		if err == nil {
			t.Errorf("%q: no error, want %q", c.src, c.want)
			continue
		}
		var pe *Error
		if !errors.As(err, &pe) {
			t.Errorf("%q: error %T is not *Error", c.src, err)
		}
		if err.Error() != c.want {
			t.Errorf("%q:\n got %s\nwant %s", c.src, err, c.want)
		}
	}
}

func TestConstructorErrorUnwraps(t *testing.T) {
	_, err := Parse("x.ddt", []byte("a = dup(int)\nb = vector(2, -1, 1, a)"))
	var ae *datatype.ArgError
	if !errors.As(err, &ae) || ae.Constructor != "vector" {
		t.Fatalf("error %v does not unwrap to a *datatype.ArgError", err)
	}
	if err.Error() != "x.ddt:2:5: vector: negative blocklength -1" {
		t.Errorf("got %s", err)
	}
}

// TestFormatShared checks that a subtype used twice is bound once.
func TestFormatShared(t *testing.T) {
	m := must(t)
	i := datatype.Of(datatype.Int)
	v := m(datatype.Vector(2, 1, 3, i))
	c := m(datatype.Contiguous(2, v))
	st := m(datatype.Struct([]int64{1, 2, 1}, []int64{0, 64, -8}, []*datatype.Type{v, c, datatype.TwoInt}))
	got := Format(st)
	want := "t1 = vector(2, 1, 3, int)\nstruct([1, 2, 1], [0, 64, -8], [t1, contiguous(2, t1), two_int])\n"
	if got != want {
		t.Errorf("got\n%swant\n%s", got, want)
	}
	if !datatype.Equal(mustParse(t, got), st) {
		t.Error("round trip")
	}
	if got := Format(i); got != "int\n" {
		t.Errorf("Format(int) = %q", got)
	}
	if got := FormatExpr(st); got != "struct([1, 2, 1], [0, 64, -8], [vector(2, 1, 3, int), contiguous(2, vector(2, 1, 3, int)), two_int])" {
		t.Errorf("FormatExpr = %s", got)
	}
}

// TestFormatDeep checks that very deep trees print as text the parser reads.
func TestFormatDeep(t *testing.T) {
	ty := datatype.Of(datatype.Char)
	for range datatype.MaxDepth {
		ty = must(t)(datatype.Dup(ty))
	}
	if !datatype.Equal(mustParse(t, Format(ty)), ty) {
		t.Error("deep round trip")
	}
}

// TestFormatRoundTripRandom is the property print-then-parse gives an Equal
// type, with the same layout, on random types.
func TestFormatRoundTripRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	n := 3000
	if testing.Short() {
		n = 300
	}
	for k := range n {
		ty := typegen.Random(r, typegen.Options{})
		src := Format(ty)
		got, err := Parse("rand.ddt", []byte(src))
		if err != nil {
			t.Fatalf("type %d: %v\n%s", k, err, src)
		}
		if !datatype.Equal(got, ty) {
			t.Fatalf("type %d: not equal after round trip:\n%s\n%s", k, src, Format(got))
		}
		if got.Size() != ty.Size() || got.LB() != ty.LB() || got.Extent() != ty.Extent() ||
			got.TrueLB() != ty.TrueLB() || got.TrueExtent() != ty.TrueExtent() {
			t.Fatalf("type %d: layout differs after round trip:\n%s", k, src)
		}
		if Format(got) != src {
			t.Fatalf("type %d: printing is not stable:\n%s\n%s", k, src, Format(got))
		}
	}
}

// TestTestdataFiles checks that the sample files parse and round-trip.
func TestTestdataFiles(t *testing.T) {
	for _, name := range []string{"testdata/matrix.ddt", "testdata/all.ddt"} {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		ty, err := Parse(name, src)
		if err != nil {
			t.Fatal(err)
		}
		if !datatype.Equal(mustParse(t, Format(ty)), ty) {
			t.Errorf("%s: round trip", name)
		}
		t.Logf("%s: size %d extent %d\n%s", name, ty.Size(), ty.Extent(), Format(ty))
	}
}
