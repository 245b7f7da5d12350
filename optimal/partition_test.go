package optimal

import (
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
)

// boundTrials is the number of maps TestPartitionBound checks
// (DDT_BOUND_TRIALS overrides it; once run with 20,000).
func boundTrials(def int) int {
	if v, err := strconv.Atoi(os.Getenv("DDT_BOUND_TRIALS")); err == nil && v > 0 {
		return v
	}
	return def
}

// TestPartitionBound: on concatenations of two to four pieces (flattened
// random trees, rows, columns, runs of short blocks; shifted, sometimes
// with a second type) under the paper's costs and random ones (sets with
// struc, without contig and sbuc), partitionBound — the least root-struc
// tree, window by window — and LowerBound never exceed the O(n³)
// optimum, and the window bound certifies maps the other bounds leave open.
func TestPartitionBound(t *testing.T) {
	r := rand.New(rand.NewPCG(24, 33))
	piece := func() TypeMap {
		if r.IntN(2) == 0 {
			for {
				p, err := Flatten(randTree(r, 40, 3, false))
				if err == nil && len(p) > 0 {
					return p
				}
			}
		}
		c := 1 + r.IntN(30)
		st := int64(4 * (1 + r.IntN(30)))
		inner := 1 + r.IntN(3)
		var p TypeMap
		for k := range c {
			base := int64(k) * st * int64(inner+1)
			if r.IntN(6) == 0 {
				base += int64(r.IntN(7)) * 4
			}
			for j := range inner {
				p = append(p, Elem{"int", base + int64(j)*4})
			}
		}
		return p
	}
	trials := boundTrials(800)
	checked, raised := 0, 0
	for trial := range trials {
		var m TypeMap
		for range 2 + r.IntN(3) {
			p := piece()
			off := int64(r.IntN(200) - 50)
			if len(m) > 0 {
				off += m[len(m)-1].Disp + 4
			}
			for _, e := range p {
				m = append(m, Elem{e.Type, e.Disp + off})
			}
		}
		if len(m) > 160 {
			m = m[:160]
		}
		if r.IntN(6) == 0 {
			m[r.IntN(len(m))].Type = "double"
		}
		o := randStrucOptions(r)
		opt, err := exactCost(t, m, o)
		if err != nil {
			continue
		}
		checked++
		if pb, ok := partitionBound(m, o, 1<<40, 1<<30); ok && pb > opt {
			// a root struc is one of the trees, so its least cost is ≥ opt;
			// the bound must not exceed the least root-struc tree, which
			// may be above opt: compare with the program's tree instead
			if tr, _, err := Reconstruct(m, o); err == nil && tr.Kind == Struc && len(tr.Children) >= 2 {
				t.Fatalf("trial %d: window bound %d > optimum %d, whose root is a struc, under %s %v: %v", trial, pb, opt, o.Constructors, o.Cost, m)
			}
		}
		lb := LowerBound(m, o)
		if lb > opt {
			t.Fatalf("trial %d: lower bound %d > optimum %d under %s %v: %v", trial, lb, opt, o.Constructors, o.Cost, m)
		}
		if lb == opt && opt > 0 {
			// would the bound without windows have certified it?
			noWindows = true
			old := LowerBound(m, o)
			noWindows = false
			if old < lb {
				raised++
			}
		}
	}
	if checked < trials/2 || raised == 0 {
		t.Errorf("checked %d maps, %d certified only with the window bound", checked, raised)
	}
	t.Logf("checked %d, certified only with the window bound: %d", checked, raised)
}

// wrfLike is the shape of DDTBench's WRF_x_vec send type: four runs of
// small blocks of 3 floats (4 B apart, blocks 96 B apart) 3264 B apart,
// then five runs of big blocks at irregular starts.
func wrfLike(small, big int) TypeMap {
	var m TypeMap
	run := func(at int64, blocks int) {
		for b := range blocks {
			for j := range 3 {
				m = append(m, Elem{"float", at + int64(b)*96 + int64(j)*4})
			}
		}
	}
	for k := range 4 {
		run(440+int64(k)*3264, small)
	}
	for _, d := range []int64{0, 212160, 424320, 848640, 1272960} {
		run(38072+d, big)
	}
	return m
}

// TestWindowBoundWRF: the WRF shape is proven optimal at cost 28 (an
// idxbuc of 9 buckets of vec(3, 4, float)) by the window bound — at the
// medium configuration's size (25,662 elements) and at a size the O(n³)
// program checks.
func TestWindowBoundWRF(t *testing.T) {
	small := wrfLike(2, 10) // 174 elements
	opt, err := exactCost(t, small, DefaultOptions())
	if err != nil || opt != 28 {
		t.Fatalf("program: %d (%v), want 28", opt, err)
	}
	if lb := LowerBound(small, DefaultOptions()); lb != 28 {
		t.Errorf("174 elements: lower bound %d, want 28", lb)
	}
	m := wrfLike(26, 1690)
	if len(m) != 25662 {
		t.Fatalf("%d elements", len(m))
	}
	tree, cost, lower, exact, err := ReconstructLarge(m, DefaultOptions())
	if err != nil || !exact || cost != 28 || lower != 28 || !flattensTo(tree, m) {
		t.Fatalf("cost %d in [%d, ·], exact %v (%v): %v", cost, lower, exact, err, tree)
	}
	noWindows = true
	old := LowerBound(m, DefaultOptions())
	noWindows = false
	if old >= 28 {
		t.Errorf("without the window bound: %d (the test would not need it)", old)
	}
}
