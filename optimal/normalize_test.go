package optimal

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/ddtlab/ddt/datatype"
	"github.com/ddtlab/ddt/internal/typegen"
	"github.com/ddtlab/ddt/lang"
)

func mustParseDDT(t testing.TB, src string) *datatype.Type {
	t.Helper()
	ty, err := lang.Parse("x.ddt", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return ty
}

// prefix returns the first k elements of count instances of t.
func prefix(t *datatype.Type, count int64, k int) []datatype.Elem {
	var out []datatype.Elem
	t.Walk(count, func(b datatype.Basic, d int64) bool {
		out = append(out, datatype.Elem{Basic: b, Disp: d})
		return len(out) < k
	})
	return out
}

// checkSame checks that nt describes the same data as t: bounds, sizes,
// and the type map of three instances (or, for huge types, its first
// elements and the number of contiguous runs).
func checkSame(t *testing.T, what string, ty, nt *datatype.Type) {
	t.Helper()
	if nt.Size() != ty.Size() || nt.Extent() != ty.Extent() || nt.LB() != ty.LB() || nt.Elements() != ty.Elements() {
		t.Fatalf("%s: size/extent/lb/elements %d/%d/%d/%d, want %d/%d/%d/%d", what,
			nt.Size(), nt.Extent(), nt.LB(), nt.Elements(), ty.Size(), ty.Extent(), ty.LB(), ty.Elements())
	}
	lo, hi := ty.DataBounds()
	nlo, nhi := nt.DataBounds()
	if lo != nlo || hi != nhi {
		t.Fatalf("%s: data bounds [%d, %d), want [%d, %d)", what, nlo, nhi, lo, hi)
	}
	if ty.Elements() <= 20000 {
		a, b := ty.TypeMap(3), nt.TypeMap(3)
		if len(a) != len(b) {
			t.Fatalf("%s: %d elements, want %d", what, len(b), len(a))
		}
		for k := range a {
			if a[k] != b[k] {
				t.Fatalf("%s: element %d is %v, want %v", what, k, b[k], a[k])
			}
		}
		return
	}
	a, b := prefix(ty, 2, 5000), prefix(nt, 2, 5000)
	for k := range a {
		if a[k] != b[k] {
			t.Fatalf("%s: element %d is %v, want %v", what, k, b[k], a[k])
		}
	}
	if x, y := ty.NumBlocks(2), nt.NumBlocks(2); x != y {
		t.Fatalf("%s: %d contiguous runs, want %d", what, y, x)
	}
}

func checkNormalize(t *testing.T, ty *datatype.Type, opts NormalizeOptions) (before, after int64) {
	t.Helper()
	what := strings.TrimSpace(lang.FormatExpr(ty))
	if len(what) > 300 {
		what = what[:300] + "..."
	}
	tree, before, after, err := NormalizeTree(ty, opts)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if after > before {
		t.Fatalf("%s: cost %d after, %d before", what, after, before)
	}
	if c := opts.Cost.Of(tree); c != after {
		t.Fatalf("%s: tree %v costs %d, reported %d", what, tree, c, after)
	}
	if want, err := Cost(ty, opts.Cost); err != nil || want != before {
		t.Fatalf("%s: cost before %d, Cost %d (%v)", what, before, want, err)
	}
	if ty.Elements() <= 20000 {
		got, err := Flatten(tree)
		if err != nil {
			t.Fatal(err)
		}
		diffMaps(t, what, got, mpiMap(ty))
	}
	nt, b2, a2, err := Normalize(ty, opts)
	if err != nil || b2 != before || a2 != after {
		t.Fatalf("%s: Normalize costs %d, %d (%v), NormalizeTree %d, %d", what, b2, a2, err, before, after)
	}
	checkSame(t, what, ty, nt)
	if after == before && nt != ty {
		t.Fatalf("%s: no improvement but a new type", what)
	}
	return before, after
}

func TestNormalizeRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	exact := DefaultNormalizeOptions()
	structural := DefaultNormalizeOptions()
	structural.ExactLimit = 6 // force the structural path on small types
	var gain [2]int64
	for k := range 1500 {
		ty := typegen.Random(rng, typegen.Options{MaxElements: 300})
		for i, o := range []NormalizeOptions{exact, structural} {
			b, a := checkNormalize(t, ty, o)
			gain[i] += b - a
			_ = k
		}
	}
	t.Logf("total cost saved: exact %d, structural %d", gain[0], gain[1])
}

func TestNormalizeContigAndSBuc(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	o := DefaultNormalizeOptions()
	o.Constructors = AllConstructors
	for range 300 {
		ty := typegen.Random(rng, typegen.Options{MaxElements: 200})
		checkNormalize(t, ty, o)
		o.ExactLimit = 5
		checkNormalize(t, ty, o)
		o.ExactLimit = 0
	}
}

// TestNormalizeHuge wraps random types in huge counts, where flattening is
// impossible, and checks the result structurally.
func TestNormalizeHuge(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	o := DefaultNormalizeOptions()
	o.ExactLimit = 64
	for k := range 300 {
		inner := typegen.Random(rng, typegen.Options{MaxElements: 50, MaxExtent: 1 << 12})
		if inner.Size() == 0 {
			continue
		}
		var ty *datatype.Type
		var err error
		big := int64(1)<<30 + rng.Int64N(1000)
		switch k % 5 {
		case 0:
			ty, err = datatype.Contiguous(big, inner)
		case 1:
			ty, err = datatype.Vector(big, 1+rng.Int64N(3), 4, inner)
		case 2:
			ty, err = datatype.HIndexed([]int64{big, 1, big / 2}, []int64{0, -64, 1 << 40}, inner)
		case 3:
			var v *datatype.Type
			v, err = datatype.HVector(big, 1, inner.Extent()*2+8, inner)
			if err == nil {
				ty, err = datatype.Struct([]int64{1, 3, 1}, []int64{0, 1 << 42, -(1 << 41)}, []*datatype.Type{inner, v, inner})
			}
		default:
			var v *datatype.Type
			v, err = datatype.Contiguous(big, inner)
			if err == nil {
				ty, err = datatype.IndexedBlock(2, []int64{0, 3, 7}, v)
			}
		}
		if err != nil {
			continue // overflow
		}
		checkNormalize(t, ty, o)
	}
}

// rowcol builds seed 000 §II: the first row and then the first column of an
// n x n int matrix, in the three descriptions of the paper.
func rowcol(t testing.TB, n int) (indexedBlock, indexed, structVec *datatype.Type) {
	var ds, bls []int64
	for k := range n {
		ds = append(ds, int64(k))
	}
	for k := 1; k < n; k++ {
		ds = append(ds, int64(k*n))
	}
	var src strings.Builder
	fmt.Fprintf(&src, "indexed_block(1, %s, int)\n", list(ds))
	indexedBlock = mustParseDDT(t, src.String())
	ds = []int64{0}
	bls = []int64{int64(n)}
	for k := 1; k < n; k++ {
		ds, bls = append(ds, int64(k*n)), append(bls, 1)
	}
	src.Reset()
	fmt.Fprintf(&src, "indexed(%s, %s, int)\n", list(bls), list(ds))
	indexed = mustParseDDT(t, src.String())
	structVec = mustParseDDT(t, fmt.Sprintf("struct([1, 1], [0, %d], [contiguous(%d, int), vector(%d, 1, %d, int)])\n", 4*n, n, n-1, n))
	return
}

func list(xs []int64) string {
	s := make([]string, len(xs))
	for k, x := range xs {
		s[k] = fmt.Sprint(x)
	}
	return "[" + strings.Join(s, ", ") + "]"
}

func TestNormalizeRowCol(t *testing.T) {
	for _, n := range []int{10, 1000, 100000} {
		ib, ix, sv := rowcol(t, n)
		for _, o := range []NormalizeOptions{DefaultNormalizeOptions(), CommitNormalizeOptions()} {
			for _, ty := range []*datatype.Type{ib, ix, sv} {
				start := time.Now()
				_, after := checkNormalize(t, ty, o)
				if want := int64(18); after != want && (n < 100000 || o.MaxTree > 1<<14) {
					t.Errorf("n=%d %s: cost after %d, want %d", n, ty.Combiner(), after, want)
				}
				t.Logf("n=%d %s exact<=%d: %v", n, ty.Combiner(), o.ExactLimit, time.Since(start))
			}
		}
	}
}

func TestNormalizeZeroSize(t *testing.T) {
	ty := mustParseDDT(t, "contiguous(0, int)")
	nt, b, a, err := Normalize(ty, DefaultNormalizeOptions())
	if err != nil || nt != ty || a != b {
		t.Fatalf("Normalize(empty) = %v, %d, %d, %v", nt, b, a, err)
	}
}

func TestNormalizeOptionErrors(t *testing.T) {
	ty := mustParseDDT(t, "int")
	o := DefaultNormalizeOptions()
	o.Constructors = AllowVec | AllowIdx
	if _, _, _, err := Normalize(ty, o); err == nil {
		t.Error("no error for a constructor set without struc")
	}
	o = DefaultNormalizeOptions()
	o.Cost.Vec = -1
	if _, _, _, err := Normalize(ty, o); err == nil {
		t.Error("no error for a negative cost")
	}
	if _, _, _, err := Normalize(nil, DefaultNormalizeOptions()); err == nil {
		t.Error("no error for nil")
	}
}

func ExampleNormalize() {
	// Seed 000 §II: row and column of a 1000x1000 int matrix, listed
	// element by element with MPI_Type_create_indexed_block.
	var b strings.Builder
	b.WriteString("indexed_block(1, [")
	for k := range 1000 {
		fmt.Fprintf(&b, "%d, ", k)
	}
	for k := 1; k < 1000; k++ {
		fmt.Fprintf(&b, "%d, ", 1000*k)
	}
	b.WriteString("], int)")
	src := strings.Replace(b.String(), ", ]", "]", 1)
	t, _ := lang.Parse("rowcol.ddt", []byte(src))
	nt, before, after, err := Normalize(t, DefaultNormalizeOptions())
	if err != nil {
		panic(err)
	}
	fmt.Println("cost:", before, "->", after)
	fmt.Print(lang.Format(nt))
	// Output:
	// cost: 2004 -> 18
	// struct([1, 1], [0, 8000], [hvector(1001, 1, 4, int), hvector(998, 1, 4000, int)])
}
