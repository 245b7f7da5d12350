package engine

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ddtlab/ddt/dame"
	"github.com/ddtlab/ddt/dame/opt"
	"github.com/ddtlab/ddt/datatype"
)

// scattered is a list of n blocks of bl elements of old, gap bytes apart
// in a random order (seeded).
func scattered(t testing.TB, seed uint64, n int, bl, gap int64, old *datatype.Type) *datatype.Type {
	r := rand.New(rand.NewPCG(seed, 1))
	ds := make([]int64, n)
	for i, p := range r.Perm(n) {
		ds[i] = int64(p) * gap
	}
	ty, err := datatype.HIndexedBlock(bl, ds, old)
	if err != nil {
		t.Fatal(err)
	}
	return ty
}

// TestSortedUnpack: a long list scattered over a wide span in random order
// is unpacked in ascending memory order (dame.UnpackOrder), byte for byte
// like the list order, whole and in pieces; lists in order, short or
// overlapping are not sorted.
func TestSortedUnpack(t *testing.T) {
	defer func(r dame.SortRule) { sortRule = r }(sortRule)
	sortRule = dame.SortRule{MinBlocks: 64, MinSpan: 64 << 10, MaxPacked: 1 << 20, MinAvgBlock: 1}
	db := datatype.Of(datatype.Double)
	// the default rule leaves small blocks in list order
	if dame.DefaultSortRule.UnpackOrder(opt.Compile(scattered(t, 1, 4096, 1, 1<<16, db)).Root) != nil {
		t.Error("the default rule sorts 8-byte blocks")
	}
	cases := []struct {
		name   string
		ty     *datatype.Type
		sorted bool
	}{
		{"gather, random", scattered(t, 1, 300, 1, 1024, db), true},
		{"index, random", scatteredIndexed(t, 2, 300, 1024, db), true},
		{"gather 4 B, random", scattered(t, 10, 300, 1, 1024, datatype.Of(datatype.Int)), true},
		{"gather 12 B, random", scattered(t, 10, 300, 3, 1024, datatype.Of(datatype.Int)), true},
		{"gather 16 B, random", scattered(t, 6, 300, 2, 1024, db), true},
		{"gather 32 B, random", scattered(t, 7, 300, 4, 1024, db), true},
		{"gather 64 B, random", scattered(t, 8, 300, 8, 1024, db), true},
		{"gather 24 B, random", scattered(t, 9, 300, 3, 1024, db), true},
		{"short", scattered(t, 3, 40, 1, 4096, db), false},
		{"narrow span", scattered(t, 4, 300, 1, 16, db), false},
	}
	ov, err := datatype.HIndexedBlock(1, overlapping(300), db)
	if err != nil {
		t.Fatal(err)
	}
	cases = append(cases, struct {
		name   string
		ty     *datatype.Type
		sorted bool
	}{"overlapping", ov, false})
	for _, c := range cases {
		p := opt.Compile(c.ty)
		e := NewCompiled(p, DefaultLevel())
		if got := strings.Contains(e.String(), "unpack=sorted"); got != c.sorted {
			t.Errorf("%s: sorted = %v, want %v; plan\n%s", c.name, got, c.sorted, e)
		}
		for _, count := range []int64{1, 3} {
			lo, hi, _ := c.ty.Span(count)
			packed := make([]byte, count*c.ty.Size())
			r := rand.New(rand.NewPCG(9, uint64(count)))
			for i := range packed {
				packed[i] = byte(r.IntN(256))
			}
			ref := NewReference(c.ty)
			want := make([]byte, hi-lo)
			ref.Unpack(want, packed, -lo, count, 0)
			got := make([]byte, hi-lo)
			e.Unpack(got, packed, -lo, count, 0)
			if !bytes.Equal(got, want) {
				t.Fatalf("%s x %d: unpack differs from the reference", c.name, count)
			}
			// in pieces (the range path, which keeps list order)
			got2 := make([]byte, hi-lo)
			for from := int64(0); from < int64(len(packed)); from += 77 {
				to := min(from+77, int64(len(packed)))
				e.Unpack(got2, packed[from:to], -lo, count, from)
			}
			if !bytes.Equal(got2, want) {
				t.Fatalf("%s x %d: unpack in pieces differs from the reference", c.name, count)
			}
		}
	}
}

func scatteredIndexed(t testing.TB, seed uint64, n int, gap int64, old *datatype.Type) *datatype.Type {
	r := rand.New(rand.NewPCG(seed, 1))
	ds, bls := make([]int64, n), make([]int64, n)
	for i, p := range r.Perm(n) {
		ds[i], bls[i] = int64(p)*gap, 1+int64(r.IntN(int(gap/16)))
	}
	ty, err := datatype.HIndexed(bls, ds, old)
	if err != nil {
		t.Fatal(err)
	}
	return ty
}

// overlapping returns displacements in random order over a wide span where
// some blocks of 8 bytes overlap.
func overlapping(n int) []int64 {
	r := rand.New(rand.NewPCG(5, 5))
	ds := make([]int64, n)
	for i, p := range r.Perm(n) {
		ds[i] = int64(p) * 1024
	}
	ds[n/2] = ds[n/3] + 4
	return ds
}

// BenchmarkSortedUnpack measures the displacement-sorting rule: unpack of
// one instance of a random-order list of 4096 blocks of 8 and 64 bytes
// spread over 8 and 128 MiB, with the sorted plan and with the list-order
// plan of the same engine, in one run (the figures behind
// dame.DefaultSortRule):
//
//	go test -run - -bench SortedUnpack ./internal/engine
func BenchmarkSortedUnpack(b *testing.B) {
	defer func(r dame.SortRule) { sortRule = r }(sortRule)
	sortRule = dame.SortRule{MinBlocks: 64, MinSpan: 64 << 10, MaxPacked: 1 << 20, MinAvgBlock: 1}
	db := datatype.Of(datatype.Double)
	for _, n := range []int{4096} {
		for _, bl := range []int64{1, 8} {
			for _, gap := range []int64{2048, 32768} {
				ty := scattered(b, 7, n, bl, gap, db)
				e := NewCompiled(opt.Compile(ty), DefaultLevel())
				e.plan()
				if e.root.sorted == nil {
					b.Fatalf("n=%d bl=%d: not sorted", n, bl)
				}
				lo, hi, _ := ty.Span(1)
				mem := make([]byte, hi-lo)
				packed := make([]byte, ty.Size())
				for _, sorted := range []bool{false, true} {
					name := fmt.Sprintf("n=%d/L=%d/span=%dKiB/sorted=%v", n, bl*8, (hi-lo)>>10, sorted)
					b.Run(name, func(b *testing.B) {
						s := e.root.sorted
						if !sorted {
							e.root.sorted = nil
							defer func() { e.root.sorted = s }()
						}
						b.SetBytes(int64(len(packed)))
						for b.Loop() {
							e.Unpack(mem, packed, -lo, 1, 0)
						}
					})
				}
			}
		}
	}
}

// TestDefaultSortRule: the default rule sorts a list where sorting was
// measured to pay (ddt bench --fig 14: random-order 4- and 8-byte blocks
// 4 to 32 bytes apart over 128 KiB to 4 MiB, 1.1-1.9x faster unpack) and
// nowhere it was measured to lose or not measured (64-byte blocks, blocks
// 256 bytes apart, spans of 33 MiB, lists in order, index lists, 2-byte
// blocks); where it sorts, Auto keeps the compiled
// engine (whose plan sorts; native code keeps list order), and unpack
// equals the reference engine's, whole and in pieces.
func TestDefaultSortRule(t *testing.T) {
	// the rule Intel's cores apply, whatever this host (dame.HostSortRule)
	defer func(r dame.SortRule) { sortRule = r }(sortRule)
	sortRule = dame.DefaultSortRule
	db := datatype.Of(datatype.Double)
	inOrder, err := datatype.Vector(16384, 1, 4, db)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		ty    *datatype.Type
		sorts bool
	}{
		{"8 B blocks 32 B apart over 512 KiB (pays 1.4-1.8x)", scattered(t, 11, 16384, 1, 32, db), true},
		{"8 B blocks 8 B apart over 128 KiB (pays 1.9x)", scattered(t, 12, 16384, 1, 8, db), true},
		{"8 B blocks 32 B apart over 4 MiB (pays 1.5x)", scattered(t, 13, 131072, 1, 32, db), true},
		{"64 B blocks 64 B apart over 1 MiB (loses, 0.85x)", scattered(t, 14, 16384, 8, 64, db), false},
		{"8 B blocks 256 B apart over 4 MiB (loses, 0.7x)", scattered(t, 15, 16384, 1, 256, db), false},
		{"8 B blocks 32 B apart over 32 MiB (packed 8 MiB; loses to native code)", scattered(t, 16, 1<<20, 1, 32, db), false},
		{"4 B blocks 16 B apart over 1 MiB (pays 1.5x)", scattered(t, 18, 65536, 1, 16, datatype.Of(datatype.Int)), true},
		{"2 B blocks 16 B apart over 1 MiB (not measured)", scattered(t, 19, 65536, 1, 16, datatype.Of(datatype.Short)), false},
		{"in order", inOrder, false},
		{"index of 1-2 B blocks 32 B apart, random (a general move per block: loses)", scatteredIndexed(t, 17, 16384, 32, datatype.Of(datatype.Char)), false},
	}
	for _, c := range cases {
		p := opt.Compile(c.ty)
		if got := dame.DefaultSortRule.Fires(p.Root); got != c.sorts {
			t.Errorf("%s: Fires = %v, want %v", c.name, got, c.sorts)
		}
		if got := dame.DefaultSortRule.UnpackOrder(p.Root) != nil; got != c.sorts {
			t.Errorf("%s: UnpackOrder sorts = %v, want %v", c.name, got, c.sorts)
		}
		if !c.sorts || testing.Short() {
			continue
		}
		e, why := Select(p, Caps{Want: Auto, Level: DefaultLevel(), Type: c.ty})
		if why.Kind != KindCompiled || !strings.Contains(e.String(), "unpack=sorted") {
			t.Errorf("%s: Auto runs %v, plan\n%s", c.name, why, e)
		}
		lo, hi, _ := c.ty.Span(2)
		packed := make([]byte, 2*c.ty.Size())
		r := rand.New(rand.NewPCG(3, 3))
		for i := range packed {
			packed[i] = byte(r.IntN(256))
		}
		want := make([]byte, hi-lo)
		NewReference(c.ty).Unpack(want, packed, -lo, 2, 0)
		got := make([]byte, hi-lo)
		e.Unpack(got, packed, -lo, 2, 0)
		if !bytes.Equal(got, want) {
			t.Fatalf("%s: sorted unpack differs from the reference", c.name)
		}
		clear(got)
		for from := int64(0); from < int64(len(packed)); from += 4099 {
			e.Unpack(got, packed[from:min(from+4099, int64(len(packed)))], -lo, 2, from)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%s: unpack in pieces differs from the reference", c.name)
		}
	}
}
