package optimal

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ddtlab/ddt/datatype"
	"github.com/ddtlab/ddt/internal/typegen"
	"github.com/ddtlab/ddt/lang"
)

// mpiMap is the type map of one instance of t in this package's form.
func mpiMap(t *datatype.Type) TypeMap {
	var m TypeMap
	t.Walk(1, func(b datatype.Basic, d int64) bool {
		m = append(m, Elem{b.String(), d})
		return true
	})
	return m
}

func diffMaps(t *testing.T, what string, got, want TypeMap) {
	t.Helper()
	if got.Equal(want) {
		return
	}
	k := 0
	for k < len(got) && k < len(want) && got[k] == want[k] {
		k++
	}
	t.Fatalf("%s: type maps differ at element %d (lengths %d, %d)", what, k, len(got), len(want))
}

// checkToType checks that ToType(n) has exactly Flatten(n) as type map, and
// that the .ddt text of it parses back to the same map.
func checkToType(t *testing.T, n *Node) {
	t.Helper()
	want, err := Flatten(n)
	if err != nil {
		t.Fatal(err)
	}
	ty, err := ToType(n)
	if err != nil {
		t.Fatalf("ToType(%v): %v", n, err)
	}
	diffMaps(t, n.String(), mpiMap(ty), want)
	back, err := lang.Parse("x.ddt", []byte(lang.Format(ty)))
	if err != nil {
		t.Fatalf("Format/Parse of ToType(%v): %v", n, err)
	}
	diffMaps(t, "parsed "+n.String(), mpiMap(back), want)
	if _, err := lang.ExportC(ty, "t"); err != nil {
		t.Fatalf("ExportC(ToType(%v)): %v", n, err)
	}
}

func TestToTypeRandomTrees(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 3000 {
		checkToType(t, randTree(rng, 60, 5, rng.IntN(2) == 0))
	}
}

func TestToTypeReconstructed(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 300 {
		m := randMap(rng, 40, true)
		opts := DefaultOptions()
		opts.Constructors = AllConstructors
		tree, _, err := Reconstruct(m, opts)
		if err != nil {
			t.Fatal(err)
		}
		checkToType(t, tree)
	}
}

func TestToTypeCases(t *testing.T) {
	for _, s := range []string{
		"leaf(int)",
		"leaf(5, double)",
		"idxbuc(2, -4, [8, 100], [3, 2], leaf(int))",
		"idxbuc(2, 0, [8, 100], [3, 2], struc(2, [0, 1], [leaf(char), leaf(char)]))",
		"sbuc(3, 100, 4, [3, 2, 1], leaf(int))",
		"vec(3, -8, idx(2, [5, -5], leaf(short)))",
		"struc(2, [0, 4000], [vec(1000, 4, leaf(int)), vec(999, 4000, leaf(int))])",
	} {
		n, err := Parse(s, DefaultSizes())
		if err != nil {
			t.Fatal(err)
		}
		checkToType(t, n)
	}
	// A contiguous leaf whose size is not the MPI size of its type.
	checkToType(t, &Node{Kind: Leaf, Type: "int", Count: 3, Size: 8})
}

func TestToTypeErrors(t *testing.T) {
	for _, n := range []*Node{
		nil,
		{Kind: Leaf, Type: "float_int", Count: 1},
		{Kind: Leaf, Type: "nosuch", Count: 1},
		{Kind: Vec, Count: 2, Stride: 4},
		{Kind: IdxBuc, Disps: []int64{0}, Child: &Node{Kind: Leaf, Type: "int", Count: 1}},
		{Kind: Struc, Disps: []int64{0}},
		{Kind: Kind(99)},
	} {
		if _, err := ToType(n); err == nil {
			t.Errorf("ToType(%v): no error", n)
		}
	}
}

// TestTreeOf checks that the tree of an MPI type flattens to its type map,
// for random types of every constructor.
func TestTreeOf(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for k := range 2000 {
		ty := typegen.Random(rng, typegen.Options{MaxElements: 500})
		n, err := TreeOf(ty)
		if err != nil {
			t.Fatalf("%d: TreeOf(%s): %v", k, lang.FormatExpr(ty), err)
		}
		got, err := Flatten(n)
		if err != nil {
			t.Fatal(err)
		}
		diffMaps(t, lang.FormatExpr(ty), got, mpiMap(ty))
	}
}

func TestCostOfMPITypes(t *testing.T) {
	cm := DefaultCost()
	for _, c := range []struct {
		src  string
		want int64
	}{
		{"int", 2},
		{"float_int", 2 + 2*2 + 2*2},                        // struc(2) of two leaves
		{"contiguous(10, int)", 4 + 2},                      // vec
		{"vector(10, 1, 5, int)", 4 + 2},                    // vec
		{"vector(10, 2, 5, int)", 4 + 4 + 2},                // vec of vec
		{"indexed([1, 2, 3], [0, 10, 20], int)", 4 + 6 + 2}, // idxbuc(3)
		{"hindexed_block(1, [0, 10, 20], int)", 3 + 3 + 2},  // idx(3)
		{"indexed_block(2, [0, 10, 20], int)", 3 + 3 + 4 + 2},
		{"struct([1, 2], [0, 8], [int, double])", 2 + 4 + 2 + 4 + 2},
		{"resized(contiguous(10, int), 0, 100)", 6},
		{"subarray([4, 4], [2, 2], [1, 1], C, int)", -1}, // tree of the lower type
	} {
		ty, err := lang.Parse("x.ddt", []byte(c.src))
		if err != nil {
			t.Fatal(err)
		}
		got, err := Cost(ty, cm)
		if err != nil {
			t.Fatal(err)
		}
		if c.want >= 0 && got != c.want {
			t.Errorf("Cost(%s) = %d, want %d", c.src, got, c.want)
		}
		if c.want < 0 && got <= 0 {
			t.Errorf("Cost(%s) = %d", c.src, got)
		}
	}
	if !strings.Contains(lang.Format(datatype.Of(datatype.Int)), "int") {
		t.Fatal("Format of int")
	}
}
