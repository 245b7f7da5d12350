package optimal

import (
	"math/rand/v2"
	"testing"
)

// gatheredMap is the shape of DDTBench's LAMMPS and SPECFEM3D_cm send
// types, small: blocks of b elements 8 B apart gathered at the indices of
// a list (SPECFEM3D_cm: that alone), then 0–3 arrays gathered at the same
// indices; the indices are distinct, or over a small alphabet of gaps so
// that squares occur by accident; sometimes a second type.
func gatheredMap(r *rand.Rand, maxLen int) TypeMap {
	cnt := 2 + r.IntN(40)
	var idx []int64
	if r.IntN(2) == 0 {
		for _, k := range r.Perm(400)[:cnt] {
			idx = append(idx, int64(k))
		}
	} else {
		k := int64(r.IntN(50))
		alpha := 2 + r.IntN(4)
		for range cnt {
			idx = append(idx, k)
			k += int64(1+r.IntN(alpha)) * int64(1+2*r.IntN(2))
		}
	}
	b := 1 + r.IntN(4)
	var m TypeMap
	for _, k := range idx {
		for j := range b {
			m = append(m, Elem{"double", 8*int64(b)*k + 8*int64(j)})
		}
	}
	arrays := r.IntN(4)
	stride := int64(8 * (500 + r.IntN(300)))
	for a := range arrays {
		for _, k := range idx {
			m = append(m, Elem{"double", 100000 + int64(a)*stride + 8*k})
		}
	}
	if r.IntN(5) == 0 {
		m[r.IntN(len(m))].Type = "int"
	}
	if len(m) > maxLen {
		m = m[:maxLen]
	}
	return m
}

// TestExcessBound: on gathered maps (LAMMPS and SPECFEM3D_cm shapes,
// with accidental squares, a second type, truncated) and index lists
// under the paper's costs and random ones (sets without contig and sbuc,
// with struc), the excess bound, the window bound with its blocks bounded
// by it, and LowerBound never exceed the O(n³) optimum; and they certify
// maps that the bounds without them leave open.
func TestExcessBound(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 1))
	trials := boundTrials(700)
	checked, certified, raised := 0, 0, 0
	for trial := range trials {
		var m TypeMap
		if r.IntN(4) == 0 {
			m = randListMap(r, 2+r.IntN(60))
		} else {
			m = gatheredMap(r, 170)
		}
		o := randStrucOptions(r)
		opt, err := exactCost(t, m, o)
		if err != nil {
			continue
		}
		checked++
		if len(m) >= 3 {
			rr, k := primaryCount(m, primaryTries)
			if eb := excessBound(m, o, rr, k); eb > opt {
				t.Fatalf("trial %d: excess bound %d > optimum %d under %s %v: %v", trial, eb, opt, o.Constructors, o.Cost, m)
			}
		}
		if pb, ok := partitionBound(m, o, opt+1, 1<<30); ok && pb > opt {
			if tr, _, err := Reconstruct(m, o); err == nil && tr.Kind == Struc && len(tr.Children) >= 2 {
				t.Fatalf("trial %d: window bound %d > optimum %d, whose root is a struc, under %s %v: %v", trial, pb, opt, o.Constructors, o.Cost, m)
			}
		}
		lb := LowerBound(m, o)
		if lb > opt {
			t.Fatalf("trial %d: lower bound %d > optimum %d under %s %v: %v", trial, lb, opt, o.Constructors, o.Cost, m)
		}
		// the approximation's second window pass, with the optimum as
		// its upper bound
		if up := strucBoundUpTo(m, o, 1, lb, opt); up > opt {
			t.Fatalf("trial %d: shape bound with target %d: %d under %s %v: %v", trial, opt, up, o.Constructors, o.Cost, m)
		} else {
			lb = max(lb, up)
		}
		if lb == opt {
			certified++
			noExcess = true
			old := max(LowerBound(m, o), strucBoundUpTo(m, o, 1, 0, opt))
			noExcess = false
			if old < lb {
				raised++
			}
		}
	}
	if checked < trials/2 || raised == 0 {
		t.Errorf("checked %d maps, %d certified, %d only with the excess bound", checked, certified, raised)
	}
	t.Logf("checked %d, certified %d, only with the excess bound %d", checked, certified, raised)
}

// TestWindowRuns: the window bound's shortcuts inside runs of one type at
// one gap (only q dividing the run, q = r and longer q through the letter
// that ends the run; windows inside the run as vecs of its elements) give
// the same bound as every q and every window, on rows of random lengths
// at random jumps, blocks of a few elements, and a second type, under the
// paper's and random costs and targets.
func TestWindowRuns(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 3))
	differ := 0
	for trial := range boundTrials(1500) {
		var m TypeMap
		var d int64
		if r.IntN(2) == 0 {
			// a row of k·q elements, then blocks of q at random jumps
			q := 2 + r.IntN(4)
			for range q * (1 + r.IntN(6)) {
				m = append(m, Elem{"int", d})
				d += 4
			}
			for range 1 + r.IntN(12) {
				d += int64(4 * r.IntN(12))
				for range q {
					m = append(m, Elem{"int", d})
					d += 4
				}
			}
		}
		for range r.IntN(4) {
			gap := int64(4)
			if r.IntN(4) == 0 {
				gap = int64(4 * (2 + r.IntN(2)))
			}
			ln := 1 + r.IntN(40)
			if r.IntN(3) == 0 {
				ln = 1 + r.IntN(4)
			}
			for range ln {
				m = append(m, Elem{"int", d})
				d += gap
			}
			d += int64(4 * r.IntN(40))
		}
		if len(m) < 2 {
			continue
		}
		if r.IntN(5) == 0 {
			m[r.IntN(len(m))].Type = "double"
		}
		o := randStrucOptions(r)
		target := int64(10 + r.IntN(200))
		got, ok1 := partitionBound(m, o, target, 1<<30)
		plainWindows = true
		want, ok2 := partitionBound(m, o, target, 1<<30)
		plainWindows = false
		if ok1 != ok2 || got != want {
			t.Fatalf("trial %d: with the run shortcuts %d (%v), without %d (%v), target %d under %s %v: %v", trial, got, ok1, want, ok2, target, o.Constructors, o.Cost, m)
		}
		if got < target {
			differ++
		}
	}
	if differ == 0 {
		t.Errorf("no map below its target")
	}
}

// wrfRows is the shape of DDTBench's WRF_y_vec send type at its large
// size, smaller: nine runs of 39–41 rows of l floats (4 B apart, rows
// l·4 + 24 B apart) at irregular starts.
func wrfRows(l, rows int) TypeMap {
	var m TypeMap
	bases := []int64{0, 1 << 20, 3 << 20, 4 << 20, 7 << 20, 9 << 20, 12 << 20, 13 << 20, 17 << 20}
	for k, b := range bases {
		for r := range rows + k%3 - 1 {
			for j := range l {
				m = append(m, Elem{"float", b + int64(r)*int64(4*l+24) + int64(4*j)})
			}
		}
	}
	return m
}

// TestWindowBoundRows: the WRF_y shape of 92,160 elements (rows of 256)
// is proven optimal at cost 28 (an idxbuc of nine buckets of rows) by the
// window bound with Lemma 9's candidates; without them its steps exceed
// the limit and the bound stays below.
func TestWindowBoundRows(t *testing.T) {
	m := wrfRows(256, 40)
	tree, cost, lower, exact, err := ReconstructLarge(m, DefaultOptions())
	if err != nil || !exact || cost != 28 || lower != 28 || !flattensTo(tree, m) {
		t.Fatalf("cost %d in [%d, ·], exact %v (%v)", cost, lower, exact, err)
	}
	plainWindows = true
	_, _, lower, exact, _ = ReconstructLarge(m, DefaultOptions())
	plainWindows = false
	if exact || lower >= 28 {
		t.Errorf("without the run shortcuts: lower bound %d (the test would not need them)", lower)
	}
}
