package datatype_test

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ddtlab/ddt/datatype"
	"github.com/ddtlab/ddt/internal/typegen"
)

// TestConstructorTable checks the table's rows against each other and the
// MPI bindings' conventions: unique names, a C function per row, one old
// type or a list of types, and an implicit count exactly when there are
// lists.
func TestConstructorTable(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range datatype.Constructors() {
		if c.Combiner.Constructor() != c || c.Combiner.String() != c.Name {
			t.Errorf("%s: the table is not indexed by combiner", c.Name)
		}
		if k, ok := datatype.LookupConstructor(c.Name); !ok || k != c {
			t.Errorf("%s: LookupConstructor does not find it", c.Name)
		}
		for _, n := range append([]string{c.Name, c.C}, c.Removed...) {
			if seen[n] {
				t.Errorf("%s: name %s used twice", c.Name, n)
			}
			seen[n] = true
		}
		if !strings.HasPrefix(c.C, "MPI_Type_") || c.Python == "" {
			t.Errorf("%s: C name %q, Python name %q", c.Name, c.C, c.Python)
		}
		lists, types := 0, 0
		for _, p := range c.Params {
			if p.Kind.IsList() {
				lists++
			}
			if p.Kind == datatype.ArgType || p.Kind == datatype.ArgTypes {
				types++
			}
		}
		if types != 1 {
			t.Errorf("%s: %d type arguments", c.Name, types)
		}
		if (lists > 0) != (c.Count.Name != "") {
			t.Errorf("%s: %d lists but count %q", c.Name, lists, c.Count.Name)
		}
		if got := len(c.CParams()); got != len(c.Params)+min(1, len(c.Count.Name)) {
			t.Errorf("%s: %d C parameters", c.Name, got)
		}
	}
	if _, ok := datatype.LookupConstructor("named"); ok {
		t.Error("named is not a constructor")
	}
	if datatype.Combiner(200).Constructor() != nil || datatype.Combiner(200).String() != "Combiner(200)" {
		t.Error("an unknown combiner has a table row")
	}
}

// TestBuildByTable builds every node of random types again through the
// table's generic Build from its Args, and checks it equals the node.
func TestBuildByTable(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for i := range 800 {
		ty := typegen.Random(r, typegen.Options{MaxElements: 256})
		if ty.IsPredefined() {
			continue
		}
		c := ty.Combiner().Constructor()
		a := ty.Args()
		back, err := c.Build(a)
		if err != nil {
			t.Fatalf("type %d (%s): Build: %v", i, c.Name, err)
		}
		if !datatype.Equal(back, ty) {
			t.Fatalf("type %d (%s): built type differs", i, c.Name)
		}
		if c.Shape != ty.Combiner().Shape() {
			t.Fatalf("%s: shape", c.Name)
		}
	}
	// unequal lists are an error that names the list
	i := datatype.Of(datatype.Int)
	c, _ := datatype.LookupConstructor("indexed")
	_, err := c.Build(datatype.Args{Blocklengths: []int64{1, 2}, Displacements: []int64{0}, Types: []*datatype.Type{i}})
	if err == nil || !strings.Contains(err.Error(), "displacements has 1 elements") {
		t.Errorf("unequal lists: %v", err)
	}
	if _, err := c.Build(datatype.Args{Blocklengths: []int64{1}, Displacements: []int64{0}}); err == nil {
		t.Error("no old type: no error")
	}
}

// FuzzRebuild: contents of any shape are rebuilt or refused with an error,
// never a panic, and the work is bounded by their length, not by a count
// they hold.
func FuzzRebuild(f *testing.F) {
	f.Add(uint8(datatype.CombinerIndexed), []byte{2, 1, 1, 0, 4}, []byte{}, uint8(1))
	f.Add(uint8(datatype.CombinerStruct), []byte{2, 1, 1}, []byte{0, 8}, uint8(2))
	f.Add(uint8(datatype.CombinerDarray), []byte{4, 1, 1, 8, 0, 255, 2, 0}, []byte{}, uint8(1))
	f.Add(uint8(datatype.CombinerSubarray), []byte{1, 8, 4, 2, 0}, []byte{}, uint8(1))
	f.Add(uint8(datatype.CombinerResized), []byte{}, []byte{0, 16}, uint8(1))
	f.Fuzz(func(t *testing.T, comb uint8, ints, addrs []byte, ntypes uint8) {
		c := datatype.Contents{Combiner: datatype.Combiner(comb % 16)}
		for _, b := range ints {
			c.Ints = append(c.Ints, int64(int8(b)))
		}
		if len(ints) > 0 && ints[0] == 0x7f {
			c.Ints[0] = 1 << 62 // a count far beyond the lists
		}
		for _, b := range addrs {
			c.Addrs = append(c.Addrs, int64(int8(b)))
		}
		for range ntypes % 8 {
			c.Types = append(c.Types, datatype.Of(datatype.Int))
		}
		ty, err := datatype.Rebuild(c)
		if err == nil {
			back := ty.Contents()
			if back.Combiner != c.Combiner || len(back.Ints) != len(c.Ints) || len(back.Addrs) != len(c.Addrs) {
				t.Fatalf("rebuilt %v from %+v, contents %+v", ty.Combiner(), c, back)
			}
		}
	})
}
