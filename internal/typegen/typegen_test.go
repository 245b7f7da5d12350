package typegen

import (
	"math/rand/v2"
	"testing"

	"github.com/ddtlab/ddt/datatype"
)

// TestRandomBoundsAndCoverage checks that generated types respect the bounds
// and that every constructor and the main edge cases occur.
func TestRandomBoundsAndCoverage(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	seen := map[string]int{}
	var o Options
	o = o.withDefaults()
	for range 2000 {
		ty := Random(r, Options{})
		if ty.Elements() > o.MaxElements || ty.TrueExtent() > o.MaxExtent || abs(ty.Extent()) > o.MaxExtent {
			t.Fatalf("type out of bounds: elements %d, true extent %d, extent %d", ty.Elements(), ty.TrueExtent(), ty.Extent())
		}
		if ty.Depth() > o.MaxDepth {
			t.Fatalf("depth %d > %d", ty.Depth(), o.MaxDepth)
		}
		if _, _, err := ty.Span(3); err != nil {
			t.Fatal(err)
		}
		visit(ty, map[*datatype.Type]bool{}, seen)
	}
	want := []string{"named", "dup", "contiguous", "vector", "hvector", "indexed", "hindexed",
		"indexed_block", "hindexed_block", "struct", "subarray", "darray", "resized",
		"negative stride", "negative displacement", "zero count", "zero blocklength",
		"negative extent", "zero extent", "size 0", "order Fortran", "order C",
		"block", "cyclic", "none", "default darg", "explicit darg", "shared", "pair", "padded struct"}
	for _, w := range want {
		if seen[w] == 0 {
			t.Errorf("never generated: %s", w)
		}
	}
	t.Logf("%v", seen)
}

func visit(ty *datatype.Type, done map[*datatype.Type]bool, seen map[string]int) {
	if done[ty] {
		seen["shared"]++
		return
	}
	done[ty] = true
	seen[ty.Combiner().String()]++
	if ty.IsPredefined() {
		if _, ok := ty.Basic(); !ok {
			seen["pair"]++
		}
		return
	}
	a := ty.Args()
	mark := func(cond bool, what string) {
		if cond {
			seen[what]++
		}
	}
	mark(a.Stride < 0, "negative stride")
	for _, d := range a.Displacements {
		mark(d < 0, "negative displacement")
	}
	c := ty.Combiner()
	mark((c == datatype.CombinerContiguous || c == datatype.CombinerVector) && a.Count == 0, "zero count")
	mark((c == datatype.CombinerVector || c == datatype.CombinerIndexedBlock) && a.Blocklength == 0, "zero blocklength")
	for _, b := range a.Blocklengths {
		mark(b == 0, "zero blocklength")
	}
	mark(c == datatype.CombinerResized && a.Extent < 0, "negative extent")
	mark(c == datatype.CombinerResized && a.Extent == 0, "zero extent")
	mark(ty.Size() == 0, "size 0")
	if c == datatype.CombinerSubarray || c == datatype.CombinerDarray {
		seen["order "+a.Order.String()]++
	}
	for i, d := range a.Distribs {
		seen[d.String()]++
		mark(a.Dargs[i] == datatype.DefaultDarg, "default darg")
		mark(a.Dargs[i] != datatype.DefaultDarg, "explicit darg")
	}
	mark(c == datatype.CombinerStruct && ty.Size() > 0 && ty.Extent() > ty.TrueExtent(), "padded struct")
	for _, s := range a.Types {
		visit(s, done, seen)
	}
}
