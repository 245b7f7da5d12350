package dame_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ddtlab/ddt/dame"
	"github.com/ddtlab/ddt/datatype"
)

func must(t *datatype.Type, err error) *datatype.Type {
	if err != nil {
		panic(err)
	}
	return t
}

// The transpose of seed 003 Fig. 2 and Fig. 7: a blockindexed type of
// columns; the optimizer turns the constant-stride blockindexed into a vector.
func ExampleCompile() {
	i32 := datatype.Of(datatype.Int)
	c := must(datatype.HVector(4, 1, 12, i32))
	t := must(datatype.HIndexedBlock(1, []int64{0, 4, 8}, c))
	fmt.Print(dame.Compile(t))
	// Output:
	// EXIT(48, 0)
	// VECTOR1(3, 1, 4, 16, 40)
	//   VECTORFINAL(4, 1, 12, 4, 4)
	//     CONTIGFINAL(4)
	// BOTTOM
}

func TestOptimizations(t *testing.T) {
	i32, f64 := datatype.Of(datatype.Int), datatype.Of(datatype.Double)
	cases := []struct {
		name string
		t    *datatype.Type
		want string
	}{
		{"contig children merge into block length", must(datatype.Vector(3, 2, 5, i32)),
			"EXIT(48, 0)\nVECTORFINAL(3, 1, 20, 8, 8)\n  CONTIGFINAL(8)\nBOTTOM\n"},
		{"touching blocks merge", must(datatype.Indexed([]int64{1, 2, 1}, []int64{0, 1, 5}, i32)),
			"EXIT(24, 0)\nINDEXFINAL(2, [3, 1], [0, 20], 4, 4)\n  CONTIGFINAL(4)\nBOTTOM\n"},
		{"indexed with constant blocklength and stride is a vector", must(datatype.Indexed([]int64{2, 2, 2}, []int64{1, 5, 9}, i32)),
			"EXIT(40, 4)\nVECTORFINAL(3, 1, 16, 8, 8)\n  CONTIGFINAL(8)\nBOTTOM\n"},
		{"struct of same layouts is indexed", must(datatype.Struct([]int64{1, 2}, []int64{0, 64},
			[]*datatype.Type{must(datatype.Vector(2, 1, 3, f64)), must(datatype.Vector(2, 1, 3, f64))})),
			"EXIT(128, 0)\nINDEX(2, [1, 2], [0, 64], 16, 32)\n  CONTIGCHILD\n  VECTORFINAL(2, 1, 24, 8, 8)\n    CONTIGFINAL(8)\nBOTTOM\n"},
		{"nested vectors whose strides compose collapse", must(datatype.HVector(4, 1, 96, must(datatype.Vector(2, 1, 6, f64)))),
			"EXIT(344, 0)\nVECTORFINAL(8, 1, 48, 8, 8)\n  CONTIGFINAL(8)\nBOTTOM\n"},
		{"struct of basics is indexed bytes", must(datatype.Struct([]int64{1, 3, 1, 2}, []int64{0, 8, 32, 36},
			[]*datatype.Type{i32, f64, datatype.Of(datatype.Char), datatype.Of(datatype.Float)})),
			"EXIT(48, 0)\nINDEXFINAL(3, [4, 25, 8], [0, 8, 36], 1, 1)\n  CONTIGFINAL(1)\nBOTTOM\n"},
	}
	for _, c := range cases {
		p := dame.Compile(c.t)
		if got := p.String(); got != c.want {
			t.Errorf("%s:\ngot\n%swant\n%s", c.name, got, c.want)
		}
		q, err := dame.Parse(p.String())
		if err != nil || q.String() != p.String() {
			t.Errorf("%s: round trip: %v", c.name, err)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, text := range []string{
		"", "BOTTOM", "EXIT(1, 0)", "EXIT(8, 0)\nVECTORFINAL(2, 1, 8, 4, 4)\nCONTIGFINAL(8)\nBOTTOM",
		"EXIT(8, 0)\nFOO(1)\nBOTTOM", "EXIT(8, 0)\nCONTIGFINAL(8)\nBOTTOM\nBOTTOM",
		"EXIT(8, 0)\nSTRUCT(1, [1], [0], [4], [4])\nRETURNTO(9)\nCONTIGFINAL(4)\nBOTTOM\nBOTTOM",
	} {
		if _, err := dame.Parse(text); err == nil {
			t.Errorf("Parse(%q) succeeded", text)
		}
	}
}

// TestParseLimits: sizes that overflow int64 and programs nested deeper
// than MaxDepth are errors (issue 9), found without building them.
func TestParseLimits(t *testing.T) {
	for _, text := range []string{
		// 2^62 blocks of 4 bytes
		"EXIT(8, 0)\nVECTORFINAL(4611686018427387904, 1, 8, 4, 4)\nCONTIGFINAL(4)\nBOTTOM",
		// count x blocklen overflows before the size is multiplied
		"EXIT(8, 0)\nVECTOR(4611686018427387904, 4, 64, 4, 4)\nCONTIGCHILD\nCONTIGFINAL(4)\nBOTTOM",
		"EXIT(8, 0)\nCONTIG(3074457345618258603, 3, 3)\nCONTIGFINAL(3)\nBOTTOM",
		"EXIT(8, 0)\nBLOCKINDEXFINAL(2, 4611686018427387904, [0, 8], 2, 2)\nCONTIGFINAL(2)\nBOTTOM",
		// block sums that overflow
		"EXIT(8, 0)\nINDEXFINAL(2, [9223372036854775807, 1], [0, 8], 1, 1)\nCONTIGFINAL(1)\nBOTTOM",
		"EXIT(8, 0)\nSTRUCT(2, [4611686018427387904, 4611686018427387904], [0, 8], [1, 1], [1, 1])\n" +
			"RETURNTO(2)\nCONTIGFINAL(1)\nBOTTOM\nRETURNTO(2)\nCONTIGFINAL(1)\nBOTTOM\nBOTTOM",
		// negative and zero counts
		"EXIT(8, 0)\nVECTORFINAL(-2, 1, 8, 4, 4)\nCONTIGFINAL(4)\nBOTTOM",
		"EXIT(8, 0)\nINDEXFINAL(1, [-1], [0], 4, 4)\nCONTIGFINAL(4)\nBOTTOM",
		"EXIT(8, 0)\nCONTIGFINAL(-4)\nBOTTOM",
		"EXIT(8, 0)\nCONTIGFINAL(99999999999999999999)\nBOTTOM",
	} {
		if p, err := dame.Parse(text); err == nil {
			t.Errorf("Parse(%q) succeeded:\n%v", text, p)
		}
	}

	nested := func(levels int) string {
		var b strings.Builder
		b.WriteString("EXIT(8, 0)\n")
		for range levels {
			b.WriteString("CONTIG(1, 8, 8)\n")
		}
		b.WriteString("CONTIGFINAL(8)\nBOTTOM\n")
		return b.String()
	}
	if _, err := dame.Parse(nested(dame.MaxDepth - 1)); err != nil {
		t.Errorf("a program %d deep: %v", dame.MaxDepth, err)
	}
	for _, levels := range []int{dame.MaxDepth, 1_000_000} {
		_, err := dame.Parse(nested(levels))
		var se *dame.SyntaxError
		if !errors.As(err, &se) || !strings.Contains(err.Error(), "deeper") {
			t.Errorf("a program %d deep: %v, want a depth error", levels+1, err)
		}
	}
}

// FuzzParse: Parse never panics, and what it accepts prints and parses
// back to the same text.
func FuzzParse(f *testing.F) {
	f.Add("EXIT(8, 0)\nVECTORFINAL(2, 1, 8, 4, 4)\nCONTIGFINAL(4)\nBOTTOM")
	f.Add("EXIT(48, 0)\nINDEXFINAL(3, [4, 25, 8], [0, 8, 36], 1, 1)\nCONTIGFINAL(1)\nBOTTOM")
	f.Add("EXIT(8, 0)\nSTRUCT(1, [1], [0], [4], [4])\nRETURNTO(2)\nCONTIGFINAL(4)\nBOTTOM\nBOTTOM")
	f.Add("EXIT(8, 0)\nVECTOR(4, 2, 64, 4, 4)\nCONTIGCHILD\nCONTIGFINAL(4)\nBOTTOM")
	f.Fuzz(func(t *testing.T, text string) {
		p, err := dame.Parse(text)
		if err != nil {
			return
		}
		q, err := dame.Parse(p.String())
		if err != nil {
			t.Fatalf("printed program does not parse: %v\n%v", err, p)
		}
		if q.String() != p.String() || q.Size != p.Size {
			t.Fatalf("round trip differs:\n%v\n%v", p, q)
		}
	})
}
