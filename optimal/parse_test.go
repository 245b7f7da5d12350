package optimal

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ddtlab/ddt/internal/golden"
)

func TestParseRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for range 500 {
		n := randTree(rng, 100, 5, true)
		s := n.String()
		p, err := Parse(s, nil)
		if err != nil {
			t.Fatalf("Parse(%q): %v", s, err)
		}
		if !p.Equal(n) || p.String() != s {
			t.Fatalf("Parse(%q) = %v", s, p)
		}
	}
}

func TestParseSpacing(t *testing.T) {
	n, err := Parse(" struc( 2 ,[0,8] ,\n[ leaf(int),vec(3 , -4, leaf( 2 ,double)) ] ) ", nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := "struc(2, [0, 8], [leaf(int), vec(3, -4, leaf(2, double))])"; n.String() != want {
		t.Fatalf("got %v, want %s", n, want)
	}
	m, _ := Flatten(n)
	want := TypeMap{{"int", 0}, {"double", 8}, {"double", 16}, {"double", 4}, {"double", 12}, {"double", 0}, {"double", 8}}
	if !m.Equal(want) {
		t.Fatalf("Flatten = %v, want %v", m, want)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "col 1: expected a constructor"},
		{"leaf", `col 5: expected "("`},
		{"leaf()", "col 6: expected a basic type name"},
		{"leaf(int) x", `col 11: unexpected "x" after the tree`},
		{"tree(int)", `col 1: unknown constructor "tree"`},
		{"vec(-1, 4, leaf(int))", "col 5: negative count -1"},
		{"idx(2, [0], leaf(int))", "col 5: count 2 but 1 displacements"},
		{"idxbuc(2, 4, [0, 8], [1], leaf(int))", "col 8: count 2 but 1 bucket sizes"},
		{"struc(1, [0], [])", "col 7: count 1 but 0 subtrees"},
		{"leaf(4, mystery)", `col 9: contiguous leaf of basic type "mystery" of unknown size`},
		{"leaf(0, int)", "col 6: leaf count 0 < 1"},
		{"vec(2, 99999999999999999999, leaf(int))", `col 8: invalid integer`},
		{"idx(1, [0 1], leaf(int))", `col 11: expected ","`},
		{"vec(2, 4611686018427387904, leaf(int))", "out of range"},
		{strings.Repeat("vec(1, 0, ", 1100) + "leaf(int)" + strings.Repeat(")", 1100), "nested deeper"},
	}
	for _, tc := range tests {
		_, err := Parse(tc.in, nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%.40q) error %v, want it to contain %q", tc.in, err, tc.want)
		}
	}
}

func TestParseTypeMap(t *testing.T) {
	in := "# a comment\nint 0\n\n  double   -8 # trailing\nchar 3\n"
	m, err := ParseTypeMap(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := TypeMap{{"int", 0}, {"double", -8}, {"char", 3}}
	if !m.Equal(want) {
		t.Fatalf("got %v, want %v", m, want)
	}
	back, err := ParseTypeMap(strings.NewReader(m.String()))
	if err != nil || !back.Equal(m) {
		t.Fatalf("round trip: %v, %v", back, err)
	}
}

func TestParseTypeMapErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{"int 0\nint\n", "line 2: want \"BASICTYPE DISPLACEMENT\", got 1 fields"},
		{"int 0 1\n", "line 1: want"},
		{"\n\nint x\n", `line 3: invalid displacement "x"`},
		{"i-nt 4\n", `line 1: invalid basic type name "i-nt"`},
		{"12 4\n", `line 1: invalid basic type name "12"`},
		{"int 4611686018427387905\n", "line 1: displacement 4611686018427387905 out of range"},
	}
	for _, tc := range tests {
		_, err := ParseTypeMap(strings.NewReader(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseTypeMap(%q) error %v, want it to contain %q", tc.in, err, tc.want)
		}
	}
}

func TestParseCost(t *testing.T) {
	c, err := ParseCost("leaf=2, vec=5,type=0")
	if err != nil {
		t.Fatal(err)
	}
	want := DefaultCost()
	want.Vec, want.Type = 5, 0
	if c != want {
		t.Fatalf("got %v, want %v", c, want)
	}
	if back, err := ParseCost(c.String()); err != nil || back != c {
		t.Fatalf("round trip: %v, %v", back, err)
	}
	for in, msg := range map[string]string{
		"vek=4":    `unknown cost key "vek"`,
		"vec":      "want KEY=VALUE",
		"vec=x":    `invalid integer "x"`,
		"vec=-1":   "out of range",
		"ix=70000": "out of range",
	} {
		if _, err := ParseCost(in); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("ParseCost(%q) error %v, want %q", in, err, msg)
		}
	}
}

func TestParseConstructors(t *testing.T) {
	s, err := ParseConstructors("leaf, vec,idx")
	if err != nil || s != AllowVec|AllowIdx || s.String() != "leaf,vec,idx" {
		t.Fatalf("got %v %v", s, err)
	}
	if s, _ := ParseConstructors("default"); s != DefaultConstructors {
		t.Fatalf("default = %v", s)
	}
	if s, _ := ParseConstructors("all"); s != AllConstructors || s.String() != "leaf,vec,idx,idxbuc,struc,contig,sbuc" {
		t.Fatalf("all = %v", s)
	}
	if _, err := ParseConstructors("leaf,vector"); err == nil || !strings.Contains(err.Error(), `unknown constructor "vector"`) {
		t.Fatalf("error %v", err)
	}
}

// TestGolden reconstructs the maps in testdata/*.typemap and compares cost
// and tree with the .golden files. Run with -update to rewrite them.
func TestGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.typemap")
	if len(files) == 0 {
		t.Fatal("no golden inputs")
	}
	for _, f := range files {
		in, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		m, err := ParseTypeMap(in)
		in.Close()
		if err != nil {
			t.Fatal(err)
		}
		tree, cost, err := Reconstruct(m, DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		checkResult(t, m, DefaultOptions(), tree, cost)
		d := Fold(tree)
		got := "cost: " + itoa(cost) + "\n" + tree.String() + "\ndag_cost: " + itoa(d.Cost(DefaultCost())) + "\n" + d.String()
		gf := strings.TrimSuffix(f, ".typemap") + ".golden"
		golden.CheckString(t, gf, got)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"leaf(int)", "leaf(3, char)", "vec(5, 8, leaf(int))", "idx(2, [0, -4], leaf(double))",
		"idxbuc(2, 4, [0, 100], [3, 2], leaf(int))", "struc(2, [0, 8], [leaf(int), vec(3, 4, leaf(int))])",
		"sbuc(3, 100, 4, [3, 2, 1], leaf(int))", "struc(0, [], [])",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := Parse(s, nil)
		if err != nil {
			return
		}
		out := n.String()
		p, err := Parse(out, nil)
		if err != nil {
			t.Fatalf("Parse(%q) ok, but its printing %q fails: %v", s, out, err)
		}
		if !p.Equal(n) || p.String() != out {
			t.Fatalf("round trip of %q: %q then %q", s, out, p.String())
		}
		if l, err := n.Len(); err == nil && l <= 1000 {
			if _, err := Flatten(n); err != nil {
				t.Fatalf("Flatten(%q): %v", out, err)
			}
		}
	})
}

func FuzzParseTypeMap(f *testing.F) {
	f.Add("int 0\ndouble 8\n")
	f.Add("# c\n\nchar -3 # x\n")
	f.Add("int\n")
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseTypeMap(strings.NewReader(s))
		if err != nil {
			if !strings.Contains(err.Error(), "line ") {
				t.Fatalf("error without a line: %v", err)
			}
			return
		}
		back, err := ParseTypeMap(strings.NewReader(m.String()))
		if err != nil || !back.Equal(m) {
			t.Fatalf("round trip of %q: %v, %v", s, back, err)
		}
		if len(m) > 0 && len(m) <= 12 {
			tree, cost, err := Reconstruct(m, DefaultOptions())
			if err != nil {
				t.Fatalf("Reconstruct: %v", err)
			}
			checkResult(t, m, DefaultOptions(), tree, cost)
		}
	})
}
