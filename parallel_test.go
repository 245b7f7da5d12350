package ddt

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/ddtlab/ddt/datatype"
	"github.com/ddtlab/ddt/internal/typegen"
)

// TestParallel packs and unpacks messages of several hundred KiB (and one
// above ParallelMin, for Threads 0) with several goroutines per message,
// every engine, against the reference packing of the same message.
func TestParallel(t *testing.T) {
	dbl := datatype.Of(datatype.Double)
	l8, _ := datatype.Vector(1<<15, 16, 32, dbl) // 4 MiB packed: mpipack L8 L
	types := []*datatype.Type{l8}
	r := rand.New(rand.NewPCG(7, 8))
	for len(types) < 6 {
		ty := typegen.Random(r, typegen.Options{MaxElements: 256, MaxExtent: 1 << 12})
		if ty.Size() >= 8 && ty.Extent() > 0 && !overlapsIn(ty, 2) { // no two bytes of a message overlap
			types = append(types, ty)
		}
	}
	for i, ty := range types {
		count := int64(1)
		if i > 0 {
			count = max(1, (200<<10)/ty.Size())
		}
		src, origin := image(ty, count, 3)
		want := naivePack(ty, count, src, origin)
		threads := []int{2, 7}
		if i == 0 {
			threads = append(threads, 0) // 4 MiB: at ParallelMin
		}
		for _, th := range threads {
			for _, e := range []Engine{Auto, Compiled, Interpreter, Native, Reference} {
				c, err := CommitWith(ty, Options{Engine: e, Threads: th})
				if err != nil {
					t.Fatal(err)
				}
				if n := c.pieces(int64(len(want))); n < 2 && (th > 1 || runtime.GOMAXPROCS(0) > 1) {
					t.Fatalf("type %d: %d bytes in %d pieces", i, len(want), n)
				}
				for round := range 2 { // the first call builds the engine
					got := make([]byte, len(want))
					if n, err := c.Pack(got, src, origin, count); err != nil || n != int64(len(want)) || !bytes.Equal(got, want) {
						t.Fatalf("type %d %v threads %d round %d: pack differs (%v)", i, e, th, round, err)
					}
					img := make([]byte, len(src))
					wantImg := make([]byte, len(src))
					naiveUnpack(ty, count, wantImg, origin, want)
					if _, err := c.Unpack(img, want, origin, count); err != nil || !bytes.Equal(img, wantImg) {
						t.Fatalf("type %d %v threads %d round %d: unpack differs (%v)", i, e, th, round, err)
					}
				}
			}
		}
	}
}

// overlapsIn reports whether two bytes of count instances of t overlap.
func overlapsIn(t *datatype.Type, count int64) bool {
	lo, hi := t.DataBounds()
	e := t.Extent()
	return count > 1 && max(e, -e) < hi-lo || overlaps(t)
}

// overlaps reports whether two entries of t's type map share a byte.
func overlaps(t *datatype.Type) bool {
	seen := map[int64]bool{}
	dup := false
	t.Blocks(1, func(off, n int64) bool {
		for b := off; b < off+n; b++ {
			if seen[b] {
				dup = true
				return false
			}
			seen[b] = true
		}
		return true
	})
	return dup
}

// TestThreadsOption checks the thread counts Commit accepts and when
// messages are split: never below 2·64 KiB, Threads 0 only from
// ParallelMin, Threads 1 never.
func TestThreadsOption(t *testing.T) {
	ty := datatype.Of(datatype.Double)
	if _, err := CommitWith(ty, Options{Threads: -1}); err == nil {
		t.Error("Threads -1 accepted")
	}
	for _, c := range []struct {
		threads int
		size    int64
		split   bool
	}{
		{0, 2 << 10, false}, {0, ParallelMin - 1, false}, {0, ParallelMin, true},
		{1, 1 << 30, false}, {2, 2*minPiece - 1, false}, {2, 2 * minPiece, true},
	} {
		ct, err := CommitWith(ty, Options{Threads: c.threads})
		if err != nil {
			t.Fatal(err)
		}
		if got := c.size >= ct.par; got != c.split {
			t.Errorf("Threads %d, %d bytes: split %v, want %v", c.threads, c.size, got, c.split)
		}
	}
}

// BenchmarkParallelThreshold packs vector(n, 16, 32, double) messages of
// 256 KiB to 16 MiB packed bytes with Threads 1 and Threads 2: the
// crossover, where Threads 2 first beats Threads 1, is the measurement
// behind ParallelMin. Run with
//
//	go test -run '^$' -bench ParallelThreshold -count 3 .
func BenchmarkParallelThreshold(b *testing.B) {
	dbl := datatype.Of(datatype.Double)
	for _, packed := range []int64{256 << 10, 1 << 20, 4 << 20, 16 << 20} {
		ty, err := datatype.Vector(packed/128, 16, 32, dbl)
		if err != nil {
			b.Fatal(err)
		}
		src, dst := make([]byte, 2*packed), make([]byte, packed)
		for _, threads := range []int{1, 2} {
			c, err := CommitWith(ty, Options{Threads: threads})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := c.Pack(dst, src, 0, 1); err != nil { // page faults, native code: not measured
				b.Fatal(err)
			}
			b.Run(fmt.Sprintf("%dKiB/threads=%d", packed>>10, threads), func(b *testing.B) {
				b.SetBytes(packed)
				for b.Loop() {
					if _, err := c.Pack(dst, src, 0, 1); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
