package ddt

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/ddtlab/ddt/dame"
	"github.com/ddtlab/ddt/datatype"
	"github.com/ddtlab/ddt/internal/typegen"
	"github.com/ddtlab/ddt/lang"
)

// TestNormalizeMatchesReference commits random types with Normalize and
// compares every pack and unpack with the reference engine.
func TestNormalizeMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	normalized := 0
	for i := range 1500 {
		ty := randType(r, 1+i%4)
		if i%2 == 1 {
			ty = typegen.Random(r, typegen.Options{MaxElements: 200, MaxExtent: 1 << 12})
		}
		checkEnginesWith(t, r, ty, r.Int64N(4), true)
		c, err := CommitWith(ty, Options{Normalize: NormalizeAlways})
		if err != nil {
			t.Fatal(err)
		}
		if c.Normalized() {
			normalized++
		}
		if c.Type() != ty {
			t.Fatal("Type() is not the user's type")
		}
	}
	if normalized == 0 {
		t.Fatal("no type was normalized")
	}
	t.Logf("%d of 1500 types normalized", normalized)
}

// rowColIndexedBlock is seed 000 §II's INDEXED_BLOCK_TYPE for an n x n
// int matrix: the first row and the first column, element by element.
func rowColIndexedBlock(n int) string {
	var b strings.Builder
	b.WriteString("indexed_block(1, [")
	for k := range n {
		fmt.Fprintf(&b, "%d, ", k)
	}
	for k := 1; k < n; k++ {
		fmt.Fprintf(&b, "%d, ", k*n)
	}
	return strings.TrimSuffix(b.String(), ", ") + "], int)"
}

func TestNormalizeRowColCommit(t *testing.T) {
	ty, err := lang.Parse("rowcol.ddt", []byte(rowColIndexedBlock(1000)))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	c, err := CommitWith(ty, Options{Normalize: NormalizeAlways})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("commit with normalization: %v", time.Since(start))
	// Compile's local rewrites already find seed 000's optimal tree (the
	// row one run, the column a vector: STRUCT_VEC_TYPE), so Simplify has
	// nothing to gain and the program is the compiled one.
	// (The list's element n lies at n: it continues the row.)
	want := `EXIT(3996004, 0)
STRUCT(2, [1, 1], [0, 8000], [4004, 3992], [4004, 3988004])
  RETURNTO(2)
    CONTIGFINAL(4004)
  BOTTOM
  RETURNTO(2)
    VECTORFINAL(998, 1, 4000, 4, 4)
      CONTIGFINAL(4)
  BOTTOM
BOTTOM
`
	if got := c.Program().String(); got != want || c.Normalized() {
		t.Fatalf("row/column program (normalized %v):\n%s\nwant\n%s", c.Normalized(), got, want)
	}
	r := rand.New(rand.NewPCG(1, 1))
	checkEnginesWith(t, r, ty, 2, true)
	if _, err := CommitWith(datatype.Of(datatype.Int), Options{Normalize: NormalizeAlways}); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkNormalizeRowCol packs seed 000 §II (row and column of an n x n
// int matrix, n = 1000) in the paper's three descriptions with the compiled
// engine, committed as given and with Options.Normalize.
func BenchmarkNormalizeRowCol(b *testing.B) {
	const n = 1000
	var bls, ds []string
	bls, ds = append(bls, fmt.Sprint(n)), append(ds, "0")
	for k := 1; k < n; k++ {
		bls, ds = append(bls, "1"), append(ds, fmt.Sprint(k*n))
	}
	srcs := []struct{ name, src string }{
		{"INDEXED_BLOCK", rowColIndexedBlock(n)},
		{"INDEXED", fmt.Sprintf("indexed([%s], [%s], int)", strings.Join(bls, ", "), strings.Join(ds, ", "))},
		{"STRUCT_VEC", fmt.Sprintf("struct([1, 1], [0, %d], [contiguous(%d, int), vector(%d, 1, %d, int)])", 4*n, n, n-1, n)},
	}
	img := make([]byte, 4*n*n)
	for _, s := range srcs {
		ty, err := lang.Parse(s.name, []byte(s.src))
		if err != nil {
			b.Fatal(err)
		}
		for _, norm := range []bool{false, true} {
			mode := NormalizeNever
			if norm {
				mode = NormalizeAlways
			}
			c, err := CommitWith(ty, Options{Engine: Compiled, Normalize: mode})
			if err != nil {
				b.Fatal(err)
			}
			name := s.name + "/as-given"
			if norm {
				name = s.name + "/normalized"
			}
			b.Run(name, func(b *testing.B) {
				out := make([]byte, ty.Size())
				b.SetBytes(ty.Size())
				for b.Loop() {
					if _, err := c.Pack(out, img, 0, 1); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

func TestAutoNormalizePolicy(t *testing.T) {
	i := datatype.Of(datatype.Int)
	displs := make([]int64, 100)
	for k := range displs {
		displs[k] = int64(k) * 7
	}
	disguised, _ := datatype.IndexedBlock(1, displs, i) // a vector in disguise: Compile sees it
	// a 10 x 10 block of a matrix of small strided elements (two ints 12
	// bytes apart), listed element by element: Compile's local rewrites
	// leave a list of 100 blocks (they find the rows and columns of lists
	// of a leaf, not of other children), the optimizer finds a vector of
	// vectors
	pair, _ := datatype.Vector(2, 1, 3, i)
	grid := make([]int64, 100)
	for k := range grid {
		grid[k] = int64(k/10)*1000 + int64(k%10)*64
	}
	regular, _ := datatype.HIndexedBlock(1, grid, pair)
	// the seed 000 row and column: Compile merges the row and finds the
	// column's stride
	rowcol, err := lang.Parse("rowcol.ddt", []byte(rowColIndexedBlock(100)))
	if err != nil {
		t.Fatal(err)
	}
	vec, _ := datatype.Vector(100, 1, 7, i)
	long := make([]int64, AutoNormalizeEntries+1)
	for k := range long {
		long[k] = int64(k/10)*1000 + int64(k%10)*64
	}
	big, _ := datatype.HIndexedBlock(1, long, pair)
	// the long grid of ints: Compile finds the rows and their stride
	// (segments of one shape at a constant gap; 102 rows and a partial one)
	intGrid := make([]int64, len(long))
	for k := range intGrid {
		intGrid[k] = int64(k/10)*1000 + int64(k%10)*7
	}
	ints, _ := datatype.IndexedBlock(1, intGrid, i)
	rnd := make([]int64, 100)
	for k := range rnd {
		rnd[k] = int64(k*k*7919%1000) + int64(k)*1000
	}
	random, _ := datatype.IndexedBlock(1, rnd, i)
	for _, c := range []struct {
		name string
		ty   *datatype.Type
		opts Options
		want bool
		ops  []dame.Op // the program's ops from the root down
	}{
		{"indexed_block in a grid", regular, Options{}, true, []dame.Op{dame.Vector, dame.Vector, dame.Vector, dame.ContigFinal}},
		{"indexed_block in a grid, NormalizeNever", regular, Options{Normalize: NormalizeNever}, false, []dame.Op{dame.BlockIndex, dame.Vector, dame.ContigFinal}},
		{"indexed_block of ints in a grid, NormalizeNever", ints, Options{Normalize: NormalizeNever}, false, []dame.Op{dame.Struct}},
		{"vector in disguise", disguised, Options{}, false, []dame.Op{dame.Vector, dame.ContigFinal}},
		{"row and column", rowcol, Options{}, false, []dame.Op{dame.Struct}},
		{"vector", vec, Options{}, false, []dame.Op{dame.Vector, dame.ContigFinal}},
		{"list too long", big, Options{}, false, []dame.Op{dame.BlockIndex, dame.Vector, dame.ContigFinal}},
		{"random list", random, Options{}, false, []dame.Op{dame.BlockIndex, dame.ContigFinal}},
		{"random list, NormalizeAlways", random, Options{Normalize: NormalizeAlways}, false, nil}, // nothing to gain
		{"reference engine", regular, Options{Engine: Reference}, false, nil},
	} {
		cm, err := CommitWith(c.ty, c.opts)
		if err != nil {
			t.Fatal(err)
		}
		if cm.Normalized() != c.want {
			t.Errorf("%s: normalized = %v, want %v", c.name, cm.Normalized(), c.want)
		}
		n := cm.Program().Root
		for k, op := range c.ops {
			if n == nil || n.Op != op {
				t.Errorf("%s: program\n%v\nop %d is not %v", c.name, cm.Program(), k, op)
				break
			}
			n = n.Child
		}
	}
}
