package optimal

import (
	"math/rand/v2"
	"testing"
)

// naivePrimary counts the primary junctions of m by the definition
// (docs/normalization.md, "Lower bounds", 7): junction i is secondary if
// letter i−1 equals letter i, or if i lies strictly inside the second
// half of a square of half-length L ≥ 2.
func naivePrimary(m TypeMap) int64 {
	n := len(m)
	lh := newLetterHash(m)
	var r int64
	for i := 1; i < n; i++ {
		sec := i >= 2 && lh.same(i-1, i)
		for l := 2; l < n && !sec; l++ {
			for s := 0; s+2*l <= n && !sec; s++ {
				if i <= s+l || i >= s+2*l {
					continue
				}
				ok := true
				for t := 1; t < l && ok; t++ {
					ok = lh.same(s+t, s+l+t)
				}
				sec = ok
			}
		}
		if !sec {
			r++
		}
	}
	return r
}

// randListMap is an index list over a small alphabet of gaps (so letters
// repeat), with repeated factors pasted in now and then, sometimes in
// blocks of a few elements and with a second type.
func randListMap(r *rand.Rand, n int) TypeMap {
	alpha := 2 + r.IntN(8)
	block := 1 + r.IntN(3)
	var gaps []int64
	for len(gaps) < n {
		if len(gaps) > 4 && r.IntN(5) == 0 {
			a := r.IntN(len(gaps) - 1)
			b := a + 1 + r.IntN(min(8, len(gaps)-a-1))
			gaps = append(gaps, gaps[a:b]...)
			continue
		}
		gaps = append(gaps, int64(4*(1+r.IntN(alpha))*(1+r.IntN(2)*7)))
	}
	var m TypeMap
	var d int64
	for _, g := range gaps[:n] {
		d += g
		for j := range block {
			m = append(m, Elem{"int", d + int64(4*j)})
		}
		d += int64(4 * block)
	}
	if r.IntN(4) == 0 {
		m[r.IntN(len(m))].Type = "double"
	}
	return m
}

// TestPrimaryCount compares primaryCount (hashed squares, all earlier
// occurrences) with the definition on small maps.
func TestPrimaryCount(t *testing.T) {
	r := rand.New(rand.NewPCG(24, 41))
	for trial := range 400 {
		var m TypeMap
		if r.IntN(2) == 0 {
			m = randListMap(r, 2+r.IntN(40))
		} else {
			for len(m) < 2 {
				m, _ = Flatten(randTree(r, 50, 3, false))
			}
		}
		got, _ := primaryCount(m, 1<<30)
		if want := naivePrimary(m); got != want {
			t.Fatalf("trial %d: %d primary junctions, by the definition %d: %v", trial, got, want, m)
		}
	}
}

// TestPrimaryBound: on index lists with repeated gaps and factors, runs of
// blocks, flattened random trees (all of vec, idx, idxbuc, struc) and
// concatenations of them, under the paper's costs and random ones (sets
// without contig and sbuc), primaryBound and LowerBound never exceed the
// O(n³) optimum; the bound is tight on some.
func TestPrimaryBound(t *testing.T) {
	r := rand.New(rand.NewPCG(24, 43))
	trials := boundTrials(1500)
	tight, above := 0, 0
	for trial := range trials {
		var m TypeMap
		switch r.IntN(3) {
		case 0:
			m = randListMap(r, 2+r.IntN(60))
		case 1:
			for len(m) < 2 {
				m, _ = Flatten(randTree(r, 120, 4, false))
			}
		default:
			for range 2 + r.IntN(2) {
				var p TypeMap
				if r.IntN(2) == 0 {
					p = randListMap(r, 1+r.IntN(30))
				} else {
					for len(p) < 1 {
						p, _ = Flatten(randTree(r, 60, 3, false))
					}
				}
				off := int64(r.IntN(300))
				if len(m) > 0 {
					off += m[len(m)-1].Disp
				}
				for _, e := range p {
					m = append(m, Elem{e.Type, e.Disp + off})
				}
			}
		}
		if len(m) > 180 {
			m = m[:180]
		}
		o := DefaultOptions()
		if r.IntN(3) == 0 {
			randPaperCosts(r, &o.Cost)
			o.Constructors = Constructors(1+r.IntN(15)) & (AllowVec | AllowIdx | AllowIdxBuc | AllowStruc)
		}
		opt, err := exactCost(t, m, o)
		if err != nil {
			continue
		}
		pb := primaryBound(m, o)
		if pb > opt {
			t.Fatalf("trial %d: junction bound %d > optimum %d under %s %v: %v", trial, pb, opt, o.Constructors, o.Cost, m)
		}
		if lb := LowerBound(m, o); lb > opt {
			t.Fatalf("trial %d: lower bound %d > optimum %d under %s %v: %v", trial, lb, opt, o.Constructors, o.Cost, m)
		}
		if pb == opt {
			tight++
		}
		if pb > letterBound(m, o) {
			above++
		}
	}
	if tight == 0 || above == 0 {
		t.Errorf("junction bound tight on %d maps, above the letter bound on %d", tight, above)
	}
	t.Logf("%d maps: junction bound tight on %d, above the letter bound on %d", trials, tight, above)
}
