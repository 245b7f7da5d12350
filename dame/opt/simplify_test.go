package opt_test

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/ddtlab/ddt/dame"
	"github.com/ddtlab/ddt/dame/opt"
	"github.com/ddtlab/ddt/datatype"
	"github.com/ddtlab/ddt/internal/engine"
	"github.com/ddtlab/ddt/internal/engine/ref"
	"github.com/ddtlab/ddt/internal/typegen"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// budgets are the normalization modes of ddt (never, auto, always) and a
// generous offline budget.
var budgets = []struct {
	name string
	b    *opt.Budget
}{
	{"never", nil},
	{"auto", &opt.AutoBudget},
	{"always", &opt.CommitBudget},
	{"offline", &opt.Budget{MaxProgram: 1 << 16, MaxSeq: 200, Work: 1 << 28}},
	// OfflineBudget's rules (levels of groups, repeated prefixes, the
	// blocks' instances), with short exact runs so that they do the work
	{"offline-rules", &opt.Budget{MaxProgram: 1 << 16, MaxSeq: 8, Work: 1 << 24, Offline: true}},
}

// listTypes generates types whose lists hide regular structure or nest:
// grids listed element by element, in rows or columns, structs of structs,
// touching blocks of vectors.
func listTypes(r *rand.Rand) *datatype.Type {
	i32 := datatype.Of(datatype.Int)
	f64 := datatype.Of(datatype.Double)
	switch r.IntN(5) {
	case 0: // a rows x cols block of a matrix, element by element, maybe transposed
		rows, cols := 1+r.IntN(12), 1+r.IntN(12)
		ld := int64(cols + r.IntN(20))
		var ds []int64
		for a := range rows {
			for b := range cols {
				ds = append(ds, int64(a)*ld+int64(b)*int64(1+r.IntN(2)))
			}
		}
		if r.IntN(2) == 0 {
			slicesReverse(ds)
		}
		return must(datatype.IndexedBlock(1+int64(r.IntN(2)), ds, i32))
	case 1: // struct of structs of lists
		inner := must(datatype.Struct([]int64{1, 1}, []int64{0, 16}, []*datatype.Type{i32, i32}))
		n := 2 + r.IntN(20)
		bls, ds, ts := make([]int64, n), make([]int64, n), make([]*datatype.Type, n)
		for k := range n {
			bls[k], ds[k], ts[k] = 1, int64(k)*int64(32+8*r.IntN(2)), inner
			if r.IntN(4) == 0 {
				ts[k] = f64
			}
		}
		return must(datatype.Struct(bls, ds, ts))
	case 2: // touching blocks of a vector
		v := must(datatype.Vector(2, 1, 3, f64)) // extent 32
		n := 3 + r.IntN(30)
		bls, ds := make([]int64, n), make([]int64, n)
		var d int64
		for k := range n {
			bls[k] = 1 + int64(r.IntN(3))
			ds[k] = d
			d += bls[k] * 32
			if r.IntN(3) == 0 {
				d += 32 * int64(1+r.IntN(4))
			}
		}
		return must(datatype.HIndexed(bls, ds, v))
	case 3: // the row and column of seed 000 in some order
		n := 4 + r.IntN(40)
		var ds []int64
		for k := range n {
			ds = append(ds, int64(k))
		}
		for k := 1; k < n; k++ {
			ds = append(ds, int64(k*n))
		}
		if r.IntN(2) == 0 {
			r.Shuffle(len(ds), func(a, b int) { ds[a], ds[b] = ds[b], ds[a] })
		}
		return must(datatype.IndexedBlock(1, ds, i32))
	}
	return typegen.Random(r, typegen.Options{MaxElements: 300, MaxExtent: 1 << 13})
}

func slicesReverse(xs []int64) {
	for i, j := 0, len(xs)-1; i < j; i, j = i+1, j-1 {
		xs[i], xs[j] = xs[j], xs[i]
	}
}

// memImage is a memory image for count instances of t and its origin.
func memImage(t *datatype.Type, count int64, seed byte) ([]byte, int64) {
	lo, hi, err := t.Span(count)
	if err != nil {
		panic(err)
	}
	buf := make([]byte, hi-lo+6)
	for k := range buf {
		buf[k] = byte(k*7) + seed
	}
	return buf, 3 - lo
}

// checkSimplified packs and unpacks count instances of t with the engines
// running q, whole and split at a random byte, and compares with the
// reference engine.
func checkSimplified(t *testing.T, r *rand.Rand, ty *datatype.Type, p, q *dame.Program, what string) {
	t.Helper()
	if q.Size != p.Size || q.Extent != p.Extent {
		t.Fatalf("%s: size %d extent %d, want %d %d", what, q.Size, q.Extent, p.Size, p.Extent)
	}
	lo, hi, ok := q.DataBounds()
	lo0, hi0 := ty.DataBounds()
	if ty.Size() > 0 && (!ok || lo != lo0 || hi != hi0) {
		t.Fatalf("%s: data bounds [%d, %d) %v, the type's [%d, %d)\n%v", what, lo, hi, ok, lo0, hi0, q)
	}
	count := r.Int64N(3) + 1
	src, origin := memImage(ty, count, 1)
	size := ty.Size() * count
	want := make([]byte, size)
	ref.Pack(ty, count, src, origin, 0, want)
	wantImg, _ := memImage(ty, count, 9)
	ref.Unpack(ty, count, wantImg, origin, 0, want)
	for _, e := range []engine.Engine{engine.NewInterp(q, engine.LevelGo), engine.NewCompiled(q, engine.DefaultLevel())} {
		got := make([]byte, size)
		split := r.Int64N(size + 1)
		e.Pack(got[:split], src, origin, count, 0)
		e.Pack(got[split:], src, origin, count, split)
		if !bytes.Equal(got, want) {
			t.Fatalf("%s: %T: pack of %d split at %d differs from the reference\nbefore:\n%vafter:\n%v", what, e, count, split, p, q)
		}
		img, _ := memImage(ty, count, 9)
		e.Unpack(img, want[:split], origin, count, 0)
		e.Unpack(img, want[split:], origin, count, split)
		if !bytes.Equal(img, wantImg) {
			t.Fatalf("%s: %T: unpack of %d split at %d differs from the reference\nbefore:\n%vafter:\n%v", what, e, count, split, p, q)
		}
	}
}

// TestSimplifyMatchesReference: for random types, the simplified program
// packs and unpacks byte-identically to the reference engine in every
// mode, split at any byte, and p itself is left unchanged.
func TestSimplifyMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(10, 10))
	r2 := rand.New(rand.NewPCG(10, 11))
	changed := map[string]int{}
	n := 1500
	if testing.Short() {
		n = 300
	}
	for i := range n {
		var ty *datatype.Type
		if i%2 == 0 {
			ty = listTypes(r)
		} else {
			ty = typegen.Random(r, typegen.Options{MaxElements: 400, MaxExtent: 1 << 14})
		}
		if ty.Size() == 0 {
			continue
		}
		p := opt.Compile(ty)
		before := p.String()
		for _, b := range budgets {
			q := p
			if b.b != nil {
				q = opt.Simplify(p, *b.b)
			}
			if q != p {
				changed[b.name]++
			}
			rr := r
			if b.name == "offline-rules" {
				rr = r2 // the other budgets' cases stay those of before it was added
			}
			checkSimplified(t, rr, ty, p, q, b.name)
		}
		if p.String() != before {
			t.Fatalf("Simplify changed its input:\n%s\nnow\n%v", before, p)
		}
	}
	t.Logf("programs changed of %d: %v", n, changed)
	// auto fires on a few of the 1500 (lists whose gaps mostly repeat),
	// possibly none of the first 300 that -short runs
	if changed["always"] == 0 || (!testing.Short() && changed["auto"] == 0) || changed["offline"] < changed["always"] {
		t.Errorf("programs changed: %v", changed)
	}
}

// Buckets of 1, 2 and 3 doubles, the three repeated 4 times 256 bytes
// apart: Compile leaves a list of 12 blocks (its rules see no constant
// length or stride), Simplify finds a vector of the three buckets (seed
// 000's reconstruction over the program's blocks).
func ExampleSimplify() {
	var bls, ds []int64
	for rep := range int64(4) {
		for k := range int64(3) {
			bls, ds = append(bls, k+1), append(ds, rep*32+k*8)
		}
	}
	p := opt.Compile(must(datatype.Indexed(bls, ds, datatype.Of(datatype.Double))))
	fmt.Print(p)
	fmt.Print(opt.Simplify(p, opt.CommitBudget))
	// Output:
	// EXIT(920, 0)
	// INDEXFINAL(12, [1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3], [0, 64, 128, 256, 320, 384, 512, 576, 640, 768, 832, 896], 8, 8)
	//   CONTIGFINAL(8)
	// BOTTOM
	// EXIT(920, 0)
	// VECTOR1(4, 1, 256, 48, 0)
	//   INDEXFINAL(3, [1, 2, 3], [0, 64, 128], 8, 8)
	//     CONTIGFINAL(8)
	// BOTTOM
}

// FuzzSimplify: for any program Parse accepts (of a bounded size), the
// simplified program moves the same bytes in the same order, and Simplify
// never panics.
func FuzzSimplify(f *testing.F) {
	f.Add("EXIT(8, 0)\nBLOCKINDEXFINAL(4, 1, [0, 8, 100, 108], 4, 4)\nCONTIGFINAL(4)\nBOTTOM")
	f.Add("EXIT(48, 0)\nINDEXFINAL(3, [4, 25, 8], [0, 8, 36], 1, 1)\nCONTIGFINAL(1)\nBOTTOM")
	f.Add("EXIT(64, 0)\nSTRUCT(2, [1, 1], [0, 16], [8, 8], [8, 8])\nRETURNTO(2)\nBLOCKINDEXFINAL(2, 1, [0, 4], 4, 4)\nCONTIGFINAL(4)\nBOTTOM\n" +
		"RETURNTO(2)\nBLOCKINDEXFINAL(2, 1, [0, 4], 4, 4)\nCONTIGFINAL(4)\nBOTTOM\nBOTTOM")
	f.Add("EXIT(8, 0)\nVECTOR(4, 2, 64, 4, 4)\nCONTIGCHILD\nCONTIGFINAL(4)\nBOTTOM")
	f.Fuzz(func(t *testing.T, text string) {
		p, err := dame.Parse(text)
		if err != nil || p.Size > 1<<14 {
			return
		}
		lo, hi, ok := p.DataBounds()
		if !ok || hi-lo > 1<<20 || lo < -(1<<40) || hi > 1<<40 {
			return
		}
		for _, b := range budgets[1:] {
			q := opt.Simplify(p, *b.b)
			lq, hq, okq := q.DataBounds()
			if q.Size != p.Size || q.Extent != p.Extent || !okq || lq != lo || hq != hi {
				t.Fatalf("%s: size, extent or bounds changed:\n%v\n%v", b.name, p, q)
			}
			src := make([]byte, hi-lo)
			for k := range src {
				src[k] = byte(k*13 + 1)
			}
			want, got := make([]byte, p.Size), make([]byte, p.Size)
			engine.NewInterp(p, engine.LevelGo).Pack(want, src, -lo, 1, 0)
			engine.NewInterp(q, engine.LevelGo).Pack(got, src, -lo, 1, 0)
			if !bytes.Equal(got, want) {
				t.Fatalf("%s: packs differ:\n%v\n%v", b.name, p, q)
			}
		}
	})
}

// TestSimplifyNoWorkNoAlloc: where nothing fires — the automatic policy
// turning a program away, or a program of vectors Compile built — Simplify
// returns its input without allocating, so NormalizeAuto costs commit no
// allocation.
func TestSimplifyNoWorkNoAlloc(t *testing.T) {
	if opt.Invariants {
		t.Skip("the invariant checks allocate")
	}
	r := rand.New(rand.NewPCG(3, 4))
	rnd := make([]int64, 4096)
	for k := range rnd {
		rnd[k] = int64(k)*64 + r.Int64N(32)
	}
	f64 := datatype.Of(datatype.Double)
	for _, c := range []struct {
		name string
		t    *datatype.Type
		b    opt.Budget
	}{
		{"vector, auto", must(datatype.Vector(100, 2, 5, f64)), opt.AutoBudget},
		{"vector of vectors, always", must(datatype.HVector(7, 1, 4096, must(datatype.Vector(100, 2, 5, f64)))), opt.CommitBudget},
		{"4096 random blocks, auto", must(datatype.IndexedBlock(1, rnd, f64)), opt.AutoBudget},
		{"4096 random blocks, always", must(datatype.IndexedBlock(1, rnd, f64)), opt.CommitBudget},
		{"struct, auto", must(datatype.Struct([]int64{1, 3, 1}, []int64{0, 8, 40}, []*datatype.Type{datatype.Of(datatype.Int), f64, datatype.Of(datatype.Char)})), opt.AutoBudget},
	} {
		p := opt.Compile(c.t)
		if q := opt.Simplify(p, c.b); q != p {
			t.Fatalf("%s: simplified:\n%v", c.name, q)
		}
		if n := testing.AllocsPerRun(20, func() { opt.Simplify(p, c.b) }); n != 0 {
			t.Errorf("%s: %v allocations, want 0", c.name, n)
		}
	}
}

// BenchmarkSimplifiedPack packs layouts the rules change with the compiled
// engine, in one run: "before" runs the compiled program (or, where Compile
// finds the structure itself, the list of every block it compiled to
// before its segment rule), "after" the simplified one:
//
//	go test -run - -bench SimplifiedPack ./dame/opt
func BenchmarkSimplifiedPack(b *testing.B) {
	grid := func(rows, cols, ld int64) *datatype.Type { // every other element of a block of a double matrix, one by one
		ds := make([]int64, 0, rows*cols)
		for a := range rows {
			for c := range cols {
				ds = append(ds, a*ld+2*c)
			}
		}
		return must(datatype.IndexedBlock(1, ds, datatype.Of(datatype.Double)))
	}
	v := must(datatype.Vector(2, 1, 3, datatype.Of(datatype.Double)))
	bls, ds := make([]int64, 64), make([]int64, 64)
	var d int64
	for k := range bls {
		bls[k], ds[k] = 1+int64(k%2), d
		d += bls[k] * 32 // touching blocks: one vector
	}
	// runs of one and two doubles alternating at a constant stride
	abls, ads := make([]int64, 64), make([]int64, 64)
	for k := range abls {
		abls[k], ads[k] = 1+int64(k%2), int64(k)*48
	}
	for _, c := range []struct {
		name string
		t    *datatype.Type
	}{
		{"grid-32x32-of-1024", grid(32, 32, 1024)},
		{"grid-64x64-of-1024", grid(64, 64, 1024)},
		{"touching-vectors", must(datatype.HIndexed(bls, ds, v))},
		{"alternating-runs", must(datatype.HIndexed(abls, ads, datatype.Of(datatype.Double)))},
	} {
		p := opt.Compile(c.t)
		q := opt.Simplify(p, opt.CommitBudget)
		if q == p {
			// Compile found the structure itself (a grid of a leaf: its
			// segments of one shape at a constant gap); compare with the
			// list of every block it compiled to before that rule
			p = listed(c.t)
		}
		src, origin := memImage(c.t, 1, 1)
		dst := make([]byte, c.t.Size())
		for _, r := range []struct {
			name string
			p    *dame.Program
		}{{"before", p}, {"after", q}} {
			e := engine.NewCompiled(r.p, engine.DefaultLevel())
			b.Run(c.name+"/"+r.name, func(b *testing.B) {
				b.SetBytes(c.t.Size())
				for b.Loop() {
					e.Pack(dst, src, origin, 1, 0)
				}
			})
		}
	}
}

// listed is the program of t's blocks listed one by one: a BLOCKINDEX of
// its one-leaf elements (t is a block-indexed type of a basic type).
func listed(t *datatype.Type) *dame.Program {
	var ds []int64
	var size int64
	t.Walk(1, func(bt datatype.Basic, d int64) bool {
		ds, size = append(ds, d), bt.Size()
		return true
	})
	leaf := &dame.Node{Op: dame.ContigFinal, Size: size, Extent: size}
	root := (&dame.Node{Op: dame.BlockIndex, Blocklen: 1, Disps: ds, Child: leaf}).Finish()
	p := &dame.Program{Size: t.Size(), Extent: t.Extent()}
	p.SetRoot(root, 0)
	return p
}

// TestSimplifyDeep: a program of lists nested 36 deep (3^36 elements,
// every list irregular, so every level is visited) simplifies in time
// linear in its size, not in 2^depth.
func TestSimplifyDeep(t *testing.T) {
	ty := datatype.Of(datatype.Int)
	for range 36 {
		ty = must(datatype.Resized(must(datatype.IndexedBlock(1, []int64{0, 1, 5}, ty)), 0, 8))
	}
	p := opt.Compile(ty)
	if p.Depth < 36 {
		t.Fatalf("program %d deep", p.Depth)
	}
	start := time.Now()
	q := opt.Simplify(p, opt.CommitBudget)
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Simplify of a program %d deep took %v", p.Depth, d)
	}
	if q.Size != p.Size {
		t.Fatal("size changed")
	}
}
