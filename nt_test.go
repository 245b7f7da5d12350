package ddt

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/ddtlab/ddt/internal/typegen"
)

// TestPackNTLarge packs random types at a few hundred KiB (many pieces
// of the default size through the scratch buffer), with every engine,
// one and two goroutines, whole and through a Packer in random pieces,
// with the non-temporal path on from 64 KiB, against the reference
// packing; packed buffers start at every offset modulo 64 that the test
// draws.
func TestPackNTLarge(t *testing.T) {
	defer func(m int64) { ntMin = m }(ntMin)
	ntMin = 64 << 10
	r := rand.New(rand.NewPCG(71, 72))
	n := 12
	if testing.Short() {
		n = 4
	}
	for tested := 0; tested < n; {
		ty := typegen.Random(r, typegen.Options{MaxElements: 256, MaxExtent: 1 << 12})
		if ty.Size() < 8 || ty.Extent() <= 0 || overlapsIn(ty, 2) {
			continue
		}
		tested++
		count := max(1, (int64(200+r.IntN(300))<<10)/ty.Size())
		src, origin := image(ty, count, 5)
		want := naivePack(ty, count, src, origin)
		for _, th := range []int{1, 2} {
			for _, e := range []Engine{Auto, Compiled, Interpreter, Native, Reference} {
				c, err := CommitWith(ty, Options{Engine: e, Threads: th, JITNow: e == Auto})
				if err != nil {
					t.Fatal(err)
				}
				for round := range 2 { // the second call takes the native fast path, where there is one
					off := r.IntN(64)
					buf := make([]byte, len(want)+off+64)
					got := buf[off : off+len(want)]
					if k, err := c.Pack(got, src, origin, count); err != nil || k != int64(len(want)) || !bytes.Equal(got, want) {
						t.Fatalf("%v: %d instances, %v threads %d round %d: pack differs (%v)", ty, count, e, th, round, err)
					}
					for i, b := range buf {
						if (i < off || i >= off+len(want)) && b != 0 {
							t.Fatalf("%v threads %d: byte %d outside the packed buffer written", e, th, i)
						}
					}
				}
				p, err := c.NewPacker(src, origin, count)
				if err != nil {
					t.Fatal(err)
				}
				var got []byte
				for p.Pos() < p.Size() {
					piece := make([]byte, 1+r.IntN(len(want)/2))
					k, _ := p.Pack(piece)
					got = append(got, piece[:k]...)
				}
				if !bytes.Equal(got, want) {
					t.Fatalf("%v: %d instances, %v threads %d: pack in pieces differs", ty, count, e, th)
				}
			}
		}
	}
}

// TestLargeLayoutsNT packs the 16 MB cells of the anchors harness with
// the non-temporal path on and off, against their hand-written loops.
func TestLargeLayoutsNT(t *testing.T) {
	if testing.Short() {
		t.Skip("16 MB layouts")
	}
	defer func(m int64) { ntMin = m }(ntMin)
	for _, l := range ntLayouts(t) {
		src := make([]byte, l.alloc)
		for i := range src {
			src[i] = byte(i*7 + i>>9)
		}
		want := make([]byte, l.packed)
		l.hand(want, src)
		for _, m := range []int64{1 << 20, 1 << 62} {
			ntMin = m
			for _, th := range []int{0, 1} {
				c, err := CommitWith(l.ty, Options{Threads: th})
				if err != nil {
					t.Fatal(err)
				}
				for round := range 2 {
					got := make([]byte, l.packed)
					if k, err := c.Pack(got, src, 0, l.count); err != nil || k != l.packed || !bytes.Equal(got, want) {
						t.Fatalf("%s ntMin %d threads %d round %d: pack differs (%v)", l.name, m, th, round, err)
					}
				}
			}
		}
	}
}
