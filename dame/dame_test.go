package dame_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/ddtlab/ddt/dame"
)

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
	f.Add(sharedText)
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

// sharedText is a program sharing a sub-program: the VECTORFINAL of line
// 4 is the first block of the STRUCT and, as SAME(4), the second.
const sharedText = `EXIT(64, 0)
STRUCT(2, [1, 1], [0, 32], [8, 8], [32, 32])
  RETURNTO(2)
    VECTORFINAL(2, 1, 16, 4, 4)
      CONTIGFINAL(4)
  BOTTOM
  RETURNTO(2)
    SAME(4)
  BOTTOM
BOTTOM`

// TestParseShared checks SAME: the sub-program is one node, used twice,
// printed once; a use with another extent, a line that starts no complete
// primitive (an enclosing one: no cycles) and an unknown line are errors.
func TestParseShared(t *testing.T) {
	p, err := dame.Parse(sharedText)
	if err != nil {
		t.Fatal(err)
	}
	if r := p.Root; r.Children[0] != r.Children[1] || r.Size != 16 {
		t.Fatalf("SAME is not the shared node: %v", p)
	}
	q, err := dame.Parse(p.String())
	if err != nil || q.String() != p.String() || strings.Count(p.String(), "SAME(") != 1 {
		t.Fatalf("round trip: %v\n%v", err, p)
	}
	for _, bad := range []string{
		strings.Replace(sharedText, "[32, 32]", "[32, 16]", 1), // extents differ
		strings.Replace(sharedText, "SAME(4)", "SAME(2)", 1),   // the enclosing STRUCT
		strings.Replace(sharedText, "SAME(4)", "SAME(99)", 1),
		strings.Replace(sharedText, "SAME(4)", "SAME(5)", 1), // a leaf's line
		strings.Replace(sharedText, "SAME(4)", "SAME(4, 4)", 1),
	} {
		if _, err := dame.Parse(bad); err == nil {
			t.Errorf("accepted:\n%s", bad)
		}
	}
}
