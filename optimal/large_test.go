package optimal

import (
	"errors"
	"math/rand/v2"
	"testing"
)

// structuredMap returns a random map of the shapes issue 24 names: nested
// vectors, a row and a column, strided buckets, an index list, and mixes
// of two types, of about n elements.
func structuredMap(r *rand.Rand, n int) TypeMap {
	var m TypeMap
	ty := []string{"int", "double", "char"}[r.IntN(3)]
	switch r.IntN(5) {
	case 0: // nested vectors
		inner := 1 + r.IntN(16)
		for i := 0; len(m) < n; i++ {
			for j := range inner {
				m = append(m, Elem{ty, int64(i*1000 + j*16)})
			}
		}
	case 1: // a row and a column
		k := n / 2
		for j := range k {
			m = append(m, Elem{ty, int64(8 * j)})
		}
		for j := 1; j < k; j++ {
			m = append(m, Elem{ty, int64(8 * k * j)})
		}
	case 2: // strided buckets of a few sizes
		sizes := 1 + r.IntN(5)
		for b := 0; len(m) < n; b++ {
			for j := range 1 + b%sizes {
				m = append(m, Elem{ty, int64(b*4096 + j*8)})
			}
		}
	case 3: // an index list
		for range n {
			m = append(m, Elem{ty, int64(8 * r.IntN(4*n))})
		}
	default: // a struct repeated: two types side by side
		for i := 0; len(m) < n; i++ {
			m = append(m, Elem{"int", int64(24 * i)}, Elem{"double", int64(24*i + 8)})
		}
	}
	return m[:min(len(m), n)]
}

// TestByRulesAgainstExact checks the rules' tree on maps the O(n^3)
// program can solve, with exact runs of the rules limited to 16 entries
// (so that grouping and repeated prefixes do the work, as on maps longer
// than MaxLen): it represents the map, and the exact optimum lies between
// LowerBound and its cost (the certificate ReconstructLarge reports is
// sound).
func TestByRulesAgainstExact(t *testing.T) {
	r := rand.New(rand.NewPCG(24, 1))
	opts := DefaultOptions()
	same, total := 0, 0
	var sumRules, sumOpt int64
	for trial := range 120 {
		m := structuredMap(r, 8+r.IntN(400))
		tree, cost, err := byRules(m, opts, 16)
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		got, err := Flatten(tree)
		if err != nil || !got.Equal(m) {
			t.Fatalf("trial %d: the tree %v does not represent the map (%v)", trial, tree, err)
		}
		if c := opts.Cost.Of(tree); c != cost {
			t.Fatalf("trial %d: reported cost %d, the tree costs %d", trial, cost, c)
		}
		_, opt, err := Reconstruct(m, opts)
		if err != nil {
			t.Fatal(err)
		}
		if lb := LowerBound(m, opts); lb > opt || opt > cost {
			t.Fatalf("trial %d: lower bound %d, optimum %d, rules %d\n%v", trial, lb, opt, cost, tree)
		}
		total++
		sumRules, sumOpt = sumRules+cost, sumOpt+opt
		if opt == cost {
			same++
		}
	}
	t.Logf("the rules found the optimum on %d of %d structured maps; total cost %d, optimal %d", same, total, sumRules, sumOpt)
}

// TestReconstructLarge: maps of 32,768 elements of the structured shapes
// come back as trees that represent them, cheap where the structure is
// regular; longer than MaxMapLen is refused.
func TestReconstructLarge(t *testing.T) {
	r := rand.New(rand.NewPCG(24, 2))
	opts := DefaultOptions()
	for trial := range 10 {
		m := structuredMap(r, 1<<15)
		tree, cost, lower, _, err := ReconstructLarge(m, opts)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Flatten(tree)
		if err != nil || !got.Equal(m) {
			t.Fatalf("trial %d: the tree does not represent the map (%v)", trial, err)
		}
		if lower > cost || lower <= 0 {
			t.Fatalf("trial %d: lower bound %d, cost %d", trial, lower, cost)
		}
	}
	nested := make(TypeMap, 0, 1<<15)
	for i := range 2048 {
		for j := range 16 {
			nested = append(nested, Elem{"int", int64(i*1000 + j*8)})
		}
	}
	if _, cost, _, _, err := ReconstructLarge(nested, opts); err != nil || cost != 10 {
		t.Errorf("nested vectors of 32768 ints: cost %d (%v), want 10: vec(2048, 1000, vec(16, 8, leaf(int)))", cost, err)
	}
	// the fallback when the check after the rules fails: always right
	for _, m := range []TypeMap{nested[:100], structuredMap(r, 300), {{"int", 4}, {"char", -3}, {"int", 4}}} {
		if !flattensTo(listTree(m), m) {
			t.Errorf("listTree does not represent %v", m[:min(len(m), 4)])
		}
	}
	if _, _, _, _, err := ReconstructLarge(make(TypeMap, MaxMapLen+1), opts); !errors.Is(err, ErrMapTooLong) {
		t.Errorf("a map of %d elements: %v", MaxMapLen+1, err)
	}
}

// TestByRulesArbitrary: arbitrary small maps (several types, repeated and
// negative displacements) through the rules with tiny exact runs: the tree
// represents the map and the certificate brackets the optimum.
func TestByRulesArbitrary(t *testing.T) {
	r := rand.New(rand.NewPCG(24, 3))
	opts := DefaultOptions()
	types := []string{"int", "double", "char", "short"}
	for trial := range 300 {
		m := make(TypeMap, 1+r.IntN(60))
		for i := range m {
			m[i] = Elem{types[r.IntN(1+r.IntN(len(types)))], int64(r.IntN(200) - 50)}
			if i > 0 && r.IntN(3) == 0 {
				m[i].Disp = m[i-1].Disp + 8 // some runs
			}
		}
		tree, cost, err := byRules(m, opts, 1+r.IntN(8))
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		got, err := Flatten(tree)
		if err != nil || !got.Equal(m) {
			t.Fatalf("trial %d: %v does not represent %v (%v)", trial, tree, m, err)
		}
		_, opt, err := Reconstruct(m, opts)
		if err != nil {
			t.Fatal(err)
		}
		if lb := LowerBound(m, opts); lb > opt || opt > cost {
			t.Fatalf("trial %d: lower bound %d, optimum %d, rules %d", trial, lb, opt, cost)
		}
	}
}
