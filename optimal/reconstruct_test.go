package optimal

import (
	"errors"
	"flag"
	"math/rand/v2"
	"testing"
)

// oracleScale multiplies the iterations of the oracle tests, and seeds them
// differently, for long runs: go test -run Optimal -oracle.scale 20.
var oracleScale = flag.Int("oracle.scale", 1, "multiply oracle test iterations")

// checkResult asserts everything a Reconstruct result must satisfy apart
// from optimality: it flattens back to m, it uses only allowed constructors,
// and its cost is the reported one.
func checkResult(t *testing.T, m TypeMap, o Options, tree *Node, cost int64) {
	t.Helper()
	o, _ = o.normalized()
	back, err := Flatten(tree)
	if err != nil {
		t.Fatalf("Flatten(%v): %v", tree, err)
	}
	if !back.Equal(m) {
		t.Fatalf("tree %v flattens to\n%vwant\n%v", tree, back, m)
	}
	if got := o.Cost.Of(tree); got != cost {
		t.Fatalf("tree %v costs %d, Reconstruct reported %d", tree, got, cost)
	}
	if !o.Constructors.Allows(tree) {
		t.Fatalf("tree %v uses constructors outside %s", tree, o.Constructors)
	}
	p, err := Parse(tree.String(), o.Sizes)
	if err != nil {
		t.Fatalf("Parse(%q): %v", tree.String(), err)
	}
	if !p.Equal(tree) {
		t.Fatalf("Parse(String()) = %v, want %v", p, tree)
	}
}

// optionSets are the configurations the oracle tests run under.
func optionSets(rng *rand.Rand) []Options {
	def := DefaultOptions()
	lvi := def
	lvi.Constructors = AllowVec | AllowIdx
	noBuc := def
	noBuc.Constructors = AllowVec | AllowIdx | AllowStruc
	all := def
	all.Constructors = AllConstructors
	onlyStruc := def
	onlyStruc.Constructors = AllowStruc
	random := def
	random.Constructors = AllConstructors
	random.Cost = CostModel{
		Leaf: rng.Int64N(4), Vec: rng.Int64N(8), Idx: rng.Int64N(8), IdxBuc: rng.Int64N(8),
		Struc: rng.Int64N(8), Ix: rng.Int64N(4), Bucket: rng.Int64N(4), Type: rng.Int64N(4),
		Contig: rng.Int64N(6), SBuc: rng.Int64N(8),
	}
	if random.Cost == (CostModel{}) {
		random.Cost.Leaf = 1
	}
	return []Options{def, lvi, noBuc, all, onlyStruc, random}
}

func TestOptimalVsExhaustive(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, uint64(*oracleScale)))
	iters := 1500 * *oracleScale
	if testing.Short() {
		iters = 200
	}
	for it := range iters {
		m := randMap(rng, 8, it%2 == 0)
		for _, o := range optionSets(rng) {
			want := exhaustiveCost(m, o)
			tree, cost, err := Reconstruct(m, o)
			if want >= oinf {
				if !errors.Is(err, ErrNotRepresentable) {
					t.Fatalf("map\n%vwith %s: exhaustive finds no tree, Reconstruct: %v, %v", m, o.Constructors, tree, err)
				}
				continue
			}
			if err != nil {
				t.Fatalf("map\n%vwith %s: %v", m, o.Constructors, err)
			}
			checkResult(t, m, o, tree, cost)
			if cost != want {
				t.Fatalf("map\n%vwith %s cost %v: Reconstruct %d (%v), exhaustive %d", m, o.Constructors, o.Cost, cost, tree, want)
			}
		}
	}
}

func TestOptimalVsPaper(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4*uint64(*oracleScale)))
	iters := 300 * *oracleScale
	if testing.Short() {
		iters = 40
	}
	better := 0
	for it := range iters {
		m := randMap(rng, 60, it%2 == 0)
		for _, o := range optionSets(rng) {
			want := paperCost(m, o, true)
			paper := paperCost(m, o, false)
			tree, cost, err := Reconstruct(m, o)
			if want >= oinf {
				if !errors.Is(err, ErrNotRepresentable) {
					t.Fatalf("map\n%vwith %s: reference finds no tree, Reconstruct: %v, %v", m, o.Constructors, tree, err)
				}
				continue
			}
			if err != nil {
				t.Fatalf("map\n%vwith %s: %v", m, o.Constructors, err)
			}
			checkResult(t, m, o, tree, cost)
			if cost != want {
				t.Fatalf("map\n%vwith %s cost %v: Reconstruct %d (%v), O(n^4) reference %d", m, o.Constructors, o.Cost, cost, tree, want)
			}
			if m[0].Disp == 0 && paper != cost {
				t.Fatalf("aligned map\n%v: paper's algorithm %d, Reconstruct %d", m, paper, cost)
			}
			if cost > paper {
				t.Fatalf("map\n%v: Reconstruct %d worse than the paper's %d", m, cost, paper)
			}
			if cost < paper {
				better++
			}
		}
	}
	t.Logf("%d of %d runs beat the paper's Lemma 5 post-processing", better, iters*6)
}

// TestLemma5 is a map where the paper's Lemma 5 is not optimal: the shift
// is absorbed below a vec, not at the root.
func TestLemma5(t *testing.T) {
	var m TypeMap
	for a := range 10 {
		for b := range 3 {
			m = append(m, Elem{"int", int64(7 + 100*a + 4*b)})
		}
	}
	o := DefaultOptions()
	o.Constructors = AllowVec | AllowIdx | AllowStruc
	tree, cost, err := Reconstruct(m, o)
	if err != nil {
		t.Fatal(err)
	}
	checkResult(t, m, o, tree, cost)
	if want := "vec(10, 100, idx(3, [7, 11, 15], leaf(int)))"; tree.String() != want || cost != 12 {
		t.Errorf("got %d %v, want 12 %s", cost, tree, want)
	}
	if p := paperCost(m, o, false); p != 14 {
		t.Errorf("paper's Lemma 5 gives %d, want 14", p)
	}
}

// TestNeverWorseThanSource: the optimum is never worse than the random tree
// the map was flattened from (a property that holds for any n).
func TestNeverWorseThanSource(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	iters := 300
	if testing.Short() {
		iters = 50
	}
	o := DefaultOptions()
	o.Constructors = AllConstructors
	for range iters {
		src := randTree(rng, 300, 5, true)
		m, err := Flatten(src)
		if err != nil {
			t.Fatal(err)
		}
		tree, cost, err := Reconstruct(m, o)
		if err != nil {
			t.Fatal(err)
		}
		checkResult(t, m, o, tree, cost)
		if srcCost := o.Cost.Of(src); cost > srcCost && canonicalSBucs(src) {
			t.Fatalf("source %v costs %d, Reconstruct found %v costing %d", src, srcCost, tree, cost)
		}
	}
}

func TestReconstructCases(t *testing.T) {
	all := DefaultOptions()
	all.Constructors = AllConstructors
	tests := []struct {
		name string
		m    TypeMap
		o    Options
		want string
		cost int64
	}{
		{"single", TypeMap{{"double", 0}}, DefaultOptions(), "leaf(double)", 2},
		{"single shifted", TypeMap{{"double", -8}}, DefaultOptions(), "idx(1, [-8], leaf(double))", 6},
		{"vector", TypeMap{{"int", 0}, {"int", 8}, {"int", 16}, {"int", 24}, {"int", 32}}, DefaultOptions(), "vec(5, 8, leaf(int))", 6},
		{"negative stride", TypeMap{{"int", 0}, {"int", -8}, {"int", -16}}, DefaultOptions(), "vec(3, -8, leaf(int))", 6},
		{"duplicates", TypeMap{{"int", 0}, {"int", 0}, {"int", 0}}, DefaultOptions(), "vec(3, 0, leaf(int))", 6},
		{"contiguous", TypeMap{{"int", 0}, {"int", 4}, {"int", 8}, {"int", 12}}, all, "leaf(4, int)", 2},
		{"idx", TypeMap{{"char", 0}, {"char", 1}, {"char", 2}, {"char", 6}, {"char", 7}, {"char", 8}, {"char", -10}, {"char", -9}, {"char", -8}},
			DefaultOptions(), "idxbuc(3, 1, [0, 6, -10], [3, 3, 3], leaf(char))", 12},
		{"idx", TypeMap{{"char", 0}, {"char", 1}, {"char", 2}, {"char", 6}, {"char", 7}, {"char", 8}, {"char", -10}, {"char", -9}, {"char", -8}},
			Options{Constructors: AllowVec | AllowIdx}, "idx(3, [0, 6, -10], vec(3, 1, leaf(char)))", 12},
		{"struct", TypeMap{{"int", 0}, {"double", 8}}, DefaultOptions(), "struc(2, [0, 8], [leaf(int), leaf(double)])", 10},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tree, cost, err := Reconstruct(tc.m, tc.o)
			if err != nil {
				t.Fatal(err)
			}
			checkResult(t, tc.m, tc.o, tree, cost)
			if tree.String() != tc.want || cost != tc.cost {
				t.Errorf("got %d %v, want %d %s", cost, tree, tc.cost, tc.want)
			}
		})
	}
}

func TestReconstructErrors(t *testing.T) {
	lv := Options{Constructors: AllowVec}
	tests := []struct {
		name string
		m    TypeMap
		o    Options
		is   error
	}{
		{"empty", nil, DefaultOptions(), nil},
		{"shift without irregular", TypeMap{{"int", 4}}, lv, ErrNotRepresentable},
		{"mixed types without struc", TypeMap{{"int", 0}, {"char", 4}}, Options{Constructors: AllowVec | AllowIdx}, ErrNotRepresentable},
		{"bad type name", TypeMap{{"in t", 0}}, DefaultOptions(), nil},
		{"huge displacement", TypeMap{{"int", 1 << 62}}, DefaultOptions(), nil},
		{"negative cost", TypeMap{{"int", 0}}, Options{Cost: CostModel{Leaf: -1}}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tree, _, err := Reconstruct(tc.m, tc.o)
			if err == nil {
				t.Fatalf("no error, tree %v", tree)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Fatalf("error %v is not %v", err, tc.is)
			}
		})
	}
}

func TestCostOverflow(t *testing.T) {
	var m TypeMap
	for k := range 3000 {
		m = append(m, Elem{"int", int64(k * k % 977)})
	}
	c := DefaultCost()
	c.Ix, c.Type, c.Leaf = MaxCostConstant, MaxCostConstant, MaxCostConstant
	_, _, err := Reconstruct(m, Options{Cost: c})
	if err == nil {
		t.Fatal("expected a cost overflow error")
	}
}

// canonicalSBucs reports whether every sbuc node of n has no more buckets
// than the canonical partition of its block positions, the only form
// Reconstruct considers.
func canonicalSBucs(n *Node) bool {
	if n == nil {
		return true
	}
	if n.Kind == SBuc {
		var pos []int64
		for b, a := range n.Sizes {
			for j := range a {
				pos = append(pos, int64(b)*n.Stride+j*n.Inner)
			}
		}
		if _, _, sz, ok := sbucBuckets(pos); !ok || len(sz) > len(n.Sizes) {
			return false
		}
	}
	for _, c := range n.Children {
		if !canonicalSBucs(c) {
			return false
		}
	}
	return canonicalSBucs(n.Child)
}
