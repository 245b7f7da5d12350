package engine

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ddtlab/ddt/dame"
	"github.com/ddtlab/ddt/dame/opt"
	"github.com/ddtlab/ddt/datatype"
)

// TestScatteredPack: lists of small blocks in random order over more
// than dame.ScatterMinSpan pack with the prefetching kernel when it is on
// (the plan says so) and exactly as the reference engine packs them, whole and in
// pieces, for each block size the kernel takes (4, 8, 16 and 24 bytes);
// 12-byte blocks (the rule holds, the kernel does not take them) and
// the same lists in memory order, over a narrow span or one block short
// keep the plain kernels.
func TestScatteredPack(t *testing.T) {
	defer func(on bool) { scatterOn = on }(scatterOn)
	scatterOn = true // whatever the vendor: the kernel runs where asked
	fl, db := datatype.Of(datatype.Float), datatype.Of(datatype.Double)
	wide := int64(dame.ScatterMinSpan/dame.ScatterMinBlocks) + 64 // spans just over the bound
	inOrder := func(n int, gap int64, old *datatype.Type) *datatype.Type {
		ds := make([]int64, n)
		for i := range ds {
			ds[i] = int64(i) * gap
		}
		ty, err := datatype.HIndexedBlock(1, ds, old)
		if err != nil {
			t.Fatal(err)
		}
		return ty
	}
	for _, c := range []struct {
		name     string
		ty       *datatype.Type
		rule, pf bool // dame.Scattered, the prefetching kernel
	}{
		{"floats", scattered(t, 1, dame.ScatterMinBlocks, 1, wide, fl), true, true},
		{"doubles", scattered(t, 2, dame.ScatterMinBlocks+77, 1, wide, db), true, true},
		{"16 bytes", scattered(t, 3, dame.ScatterMinBlocks+1, 2, wide, db), true, true},
		{"24 bytes", scattered(t, 4, dame.ScatterMinBlocks+129, 3, wide, db), true, true},
		{"12 bytes", scattered(t, 5, dame.ScatterMinBlocks, 3, wide, fl), true, false},
		{"in memory order", inOrder(dame.ScatterMinBlocks, wide, fl), false, false},
		{"narrow span", scattered(t, 6, dame.ScatterMinBlocks, 1, 64, fl), false, false},
		{"short list", scattered(t, 7, dame.ScatterMinBlocks-1, 1, 2*wide, fl), false, false},
	} {
		p := opt.Compile(c.ty)
		if got := dame.Scattered(p.Root); got != c.rule {
			t.Errorf("%s: dame.Scattered = %v, want %v", c.name, got, c.rule)
		}
		e := NewCompiled(p, DefaultLevel())
		if got := strings.Contains(e.String(), "pack=prefetched"); got != (c.pf && scatterKernel && DefaultLevel() > LevelGo) {
			t.Errorf("%s: prefetched pack in the plan %v, want %v\n%s", c.name, got, c.pf, e)
		}
		lo, hi, _ := c.ty.Span(1)
		mem := make([]byte, hi-lo)
		r := rand.New(rand.NewPCG(3, 4))
		for i := range mem {
			mem[i] = byte(r.IntN(256))
		}
		want := make([]byte, c.ty.Size())
		NewReference(c.ty).Pack(want, mem, -lo, 1, 0)
		got := make([]byte, len(want))
		e.Pack(got, mem, -lo, 1, 0)
		if !bytes.Equal(got, want) {
			t.Fatalf("%s: pack differs from the reference", c.name)
		}
		// in pieces that cut blocks and leave fewer blocks than the
		// prefetch distance
		clear(got)
		for from, step := int64(0), int64(4093); from < int64(len(got)); from += step {
			to := min(from+step, int64(len(got)))
			e.Pack(got[from:to], mem, -lo, 1, from)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%s: pack in pieces differs from the reference", c.name)
		}
	}
}

// TestGatherScattered checks the prefetching kernel alone against the
// word loop for every block size it takes and counts below, at and
// above the prefetch distance, and that it writes nothing past the
// packed bytes.
func TestGatherScattered(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	mem := make([]byte, 1<<16)
	for i := range mem {
		mem[i] = byte(r.IntN(256))
	}
	for _, L := range []int{4, 8, 16, 24} {
		for _, n := range []int{0, 1, scatterDist - 1, scatterDist, scatterDist + 1, 3*scatterDist + 5} {
			n = max(n, 0)
			offs := make([]int64, n)
			for i := range offs {
				offs[i] = int64(r.IntN(len(mem) - L))
			}
			want := make([]byte, n*L+16)
			got := make([]byte, n*L+16)
			gather(ptr(want), 0, ptr(mem), 0, offs, L)
			gatherScattered(ptr(got), ptr(mem), 0, offs, L)
			if !bytes.Equal(got, want) {
				t.Fatalf("L=%d n=%d: the prefetching kernel differs from the word loop", L, n)
			}
		}
	}
}
