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
