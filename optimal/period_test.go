package optimal

import (
	"math/rand/v2"
	"os"
	"testing"
)

// periodicMap is c copies of the flattening of a random tree, s apart,
// then its first r elements once more, all shifted by sh.
func periodicMap(r *rand.Rand, maxBlock int) TypeMap {
	var b TypeMap
	for len(b) < 2 {
		b, _ = Flatten(randTree(r, maxBlock, 3, false))
	}
	lo, hi := b[0].Disp, b[0].Disp
	for _, e := range b {
		lo, hi = min(lo, e.Disp), max(hi, e.Disp)
	}
	s := hi - lo + 8 + int64(r.IntN(20))
	if r.IntN(4) == 0 {
		s = -s
	}
	c := 2 + r.IntN(6)
	sh := int64(r.IntN(3)-1) * 24
	var m TypeMap
	for k := range c {
		for _, e := range b {
			m = append(m, Elem{e.Type, e.Disp + int64(k)*s + sh})
		}
	}
	for _, e := range b[:r.IntN(len(b))] {
		m = append(m, Elem{e.Type, e.Disp + int64(c)*s + sh})
	}
	return m
}

// TestPeriodTree: on periodic maps (copies of a random tree's flattening
// at a constant shift, then a prefix of it) the period candidate flattens
// to the map, never costs less than the exact optimum, and is what the
// approximation returns when cheaper; leastPeriod agrees with a brute
// force. On a 3-type map of 2^16 elements whose period is 3000 elements
// the approximation costs less than 200 (the rules alone: thousands).
func TestPeriodTree(t *testing.T) {
	r := rand.New(rand.NewPCG(24, 29))
	found := 0
	for trial := range 300 {
		m := periodicMap(r, 40)
		if len(m) > 250 {
			m = m[:250]
		}
		p := leastPeriod(m)
		want := 0
		for q := 1; q < len(m) && want == 0; q++ {
			ok := true
			for i := 0; i+q < len(m) && ok; i++ {
				ok = m[i+q].Type == m[i].Type && m[i+q].Disp-m[i].Disp == m[q].Disp-m[0].Disp
			}
			if ok {
				want = q
			}
		}
		if p != want {
			t.Fatalf("trial %d: leastPeriod %d, brute force %d: %v", trial, p, want, m)
		}
		tree, c, ok := periodTree(m, DefaultOptions(), 16, 0)
		if !ok {
			continue
		}
		found++
		opt, err := exactCost(t, m, DefaultOptions())
		if err != nil || !flattensTo(tree, m) || c != DefaultCost().Of(tree) || c < opt {
			t.Fatalf("trial %d: tree %v cost %d, optimum %d (%v), flattens %v", trial, tree, c, opt, err, flattensTo(tree, m))
		}
		if _, ac, _, err := approximate(m, DefaultOptions(), 16); err != nil || ac > c {
			t.Fatalf("trial %d: approximation %d (%v) above the period tree's %d", trial, ac, err, c)
		}
	}
	if found < 100 {
		t.Errorf("period tree found on %d of 300 maps", found)
	}
	var m TypeMap
	d := int64(0)
	for i := range 1 << 16 {
		m = append(m, Elem{[]string{"double", "int", "int"}[i%3], d})
		if d += 8; (i+1)%1000 == 0 {
			d += 50
		}
	}
	tree, c, lower, err := approximate(m, DefaultOptions(), 16)
	if err != nil || c >= 200 || lower > c || !flattensTo(tree, m) {
		t.Errorf("3-type map of 2^16: cost %d, lower %d (%v)", c, lower, err)
	}
}

// TestReconstructCandidates: above 1024 elements Reconstruct returns a
// candidate of the approximation when it meets the lower bound; its cost
// is the O(n^3) program's on a row and a column, two column blocks, a
// periodic map of two types and a shifted variant, and its tree
// flattens to the map.
func TestReconstructCandidates(t *testing.T) {
	var maps []TypeMap
	var rc TypeMap
	for k := range 600 {
		rc = append(rc, Elem{"int", int64(4 * k)})
	}
	for k := 1; k < 600; k++ {
		rc = append(rc, Elem{"int", int64(2400 * k)})
	}
	maps = append(maps, rc)
	var cols TypeMap
	for b := range 2 {
		for k := range 560 {
			cols = append(cols, Elem{"double", int64(b*1000000 + k*8*(37+b))})
		}
	}
	maps = append(maps, cols)
	var per TypeMap
	for i := range 1100 {
		per = append(per, Elem{[]string{"double", "int"}[i%2], int64(i/2*24 + i%2*8 + 40)})
	}
	maps = append(maps, per)
	for i, m := range maps {
		tree, c, err := Reconstruct(m, DefaultOptions())
		want, werr := exactCost(t, m, DefaultOptions())
		if err != nil || werr != nil || c != want || !flattensTo(tree, m) {
			t.Errorf("map %d: cost %d (%v), program %d (%v), tree %v", i, c, err, want, werr, tree)
		}
	}
}

// TestStridedBucketsPrefixes (DDT_RECON_SLOW=1 go test -run
// StridedBucketsPrefixes -v ./optimal, about a minute): on prefixes of
// 997 to 4000 elements of the strided-bucket map of docs/normalization.md
// (bucket b at 4096·b, 1 + b mod 7 ints 8 B apart) the period tree costs
// exactly the O(n^3) program's optimum — evidence, not a proof, that the
// 32,768-element answer (cost 43) is optimal.
func TestStridedBucketsPrefixes(t *testing.T) {
	if os.Getenv("DDT_RECON_SLOW") != "1" {
		t.Skip("set DDT_RECON_SLOW=1")
	}
	var all TypeMap
	for b := 0; len(all) < 4096; b++ {
		for j := range 1 + b%7 {
			all = append(all, Elem{"int", int64(4096*b + 8*j)})
		}
	}
	for _, n := range []int{997, 1500, 2003, 2500, 3001, 3500, 4000} {
		m := all[:n]
		_, pc, ok := periodTree(m, DefaultOptions(), 16, 0)
		opt, err := exactCost(t, m, DefaultOptions())
		if !ok || err != nil || pc != opt {
			t.Errorf("%d elements: period tree %d (%v), optimum %d (%v)", n, pc, ok, opt, err)
		}
		t.Logf("%d elements: period tree %d, optimum %d", n, pc, opt)
	}
}
