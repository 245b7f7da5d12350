package optimal

import (
	"math/rand/v2"
	"os"
	"testing"
)

// stridedBuckets is the strided-bucket map of docs/normalization.md: bucket
// b at 4096·b, 1 + b mod 7 ints 8 B apart, n ints (period 28).
func stridedBuckets(n int) TypeMap {
	var m TypeMap
	for b := 0; len(m) < n; b++ {
		for j := range 1 + b%7 {
			if len(m) < n {
				m = append(m, Elem{"int", int64(4096*b + 8*j)})
			}
		}
	}
	return m
}

// TestPeriodicExact: on random periodic maps (copies of a random tree's
// flattening at a shift, then a prefix; one to three types, shifted) of
// up to 200 elements, with random constructor sets without sbuc and random
// cost constants, periodicExact's cost is the O(n³) program's and its tree
// flattens to the map and costs what it says.
func TestPeriodicExact(t *testing.T) {
	r := rand.New(rand.NewPCG(24, 31))
	took := 0
	for range 300 {
		m := periodicMap(r, 30)
		if len(m) > 200 {
			m = m[:200]
		}
		opts := DefaultOptions()
		if r.IntN(2) == 0 {
			opts.Constructors |= AllowContig
		}
		if r.IntN(3) == 0 {
			c := &opts.Cost
			c.Leaf, c.Vec, c.Idx, c.Ix = int64(r.IntN(5)), int64(r.IntN(9)), int64(r.IntN(6)), int64(r.IntN(3))
			c.IdxBuc, c.Bucket, c.Struc, c.Type = int64(r.IntN(6)), int64(r.IntN(3)), int64(r.IntN(4)), int64(r.IntN(3))
		}
		tree, c, _, ok := periodicExact(m, opts, 1<<40)
		if !ok {
			continue
		}
		took++
		want, err := exactCost(t, m, opts)
		if err != nil || c != want || !flattensTo(tree, m) || treeCost(tree, opts.Cost, map[*Node]int64{}) != c {
			t.Fatalf("map %v: periodic %d (tree %v), program %d (%v)", m, c, tree, want, err)
		}
	}
	if took < 200 {
		t.Errorf("only %d of 300 maps periodic", took)
	}
}

// TestReconstructLargePeriodic: the strided-bucket map of 5000 elements
// (above MaxLen) is answered exactly by the program for periodic maps,
// whose cost is below the approximation's certified interval's top only
// if the approximation was not optimal — and never above it.
func TestReconstructLargePeriodic(t *testing.T) {
	m := stridedBuckets(5000)
	a, err := ReconstructLargeAnswer(m, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if !a.Exact || a.Period != 28 || a.Lower != a.Cost || !flattensTo(a.Tree, m) {
		t.Fatalf("answer %+v", a)
	}
	_, approx, lower, err := approximate(m, DefaultOptions(), 16)
	if err != nil || a.Cost > approx || a.Cost < lower || lower >= approx {
		t.Fatalf("exact %d, approximation [%d, %d] (%v)", a.Cost, lower, approx, err)
	}
	t.Logf("exact %d, approximation [%d, %d]", a.Cost, lower, approx)
}

// TestPrefixesAgainstProgram: prefixes of the maps issue 24 names — strided
// buckets, the WRF shape, an index list of 3-double blocks followed by
// arrays gathered at the same indices (LAMMPS's shape) — against the O(n³)
// program: LowerBound never above the optimum, the program for periodic
// maps equal to it, the approximation never below it. DDT_RECON_SLOW=1
// adds prefixes of 1000–2003 elements (about a minute).
func TestPrefixesAgainstProgram(t *testing.T) {
	r := rand.New(rand.NewPCG(24, 45))
	var lammps TypeMap
	idx := r.Perm(5000)[:800]
	for _, k := range idx {
		for j := range 3 {
			lammps = append(lammps, Elem{"double", int64(24*k + 8*j)})
		}
	}
	for a := range 3 {
		for _, k := range idx {
			lammps = append(lammps, Elem{"double", int64(200000*(a+1) + 8*k)})
		}
	}
	maps := map[string]TypeMap{"strided": stridedBuckets(4096), "wrf": wrfLike(26, 1690), "lammps": lammps}
	sizes := []int{50, 97, 150, 233, 301}
	if os.Getenv("DDT_RECON_SLOW") == "1" {
		sizes = append(sizes, 1000, 1500, 2003)
	}
	for name, full := range maps {
		for _, n := range sizes {
			m := full[:n]
			opt, err := exactCost(t, m, DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			lb := LowerBound(m, DefaultOptions())
			if lb > opt {
				t.Fatalf("%s, %d elements: lower bound %d > optimum %d", name, n, lb, opt)
			}
			if tr, c, _, ok := periodicExact(m, DefaultOptions(), 1<<40); ok && (c != opt || !flattensTo(tr, m)) {
				t.Fatalf("%s, %d elements: periodic program %d, optimum %d", name, n, c, opt)
			}
			_, ac, al, err := approximate(m, DefaultOptions(), 16)
			if err != nil || ac < opt || al > opt {
				t.Fatalf("%s, %d elements: approximation [%d, %d] (%v), optimum %d", name, n, al, ac, err, opt)
			}
			t.Logf("%s, %d elements: optimum %d, LowerBound %d, approximation [%d, %d]", name, n, opt, lb, al, ac)
		}
	}
}
