//go:build linux

package ddt

import (
	"bytes"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/ddtlab/ddt/datatype"
	"github.com/ddtlab/ddt/internal/engine"
	"github.com/ddtlab/ddt/internal/typegen"
)

// TestGuardPagesNT is TestGuardPages with the non-temporal pack path on
// for every message of 512 bytes and more, in pieces of 700 bytes: every
// engine and kernel set, with one and several goroutines, whole and
// in resumable pieces, into packed buffers that end at or start after a
// PROT_NONE page, against the reference packing.
func TestGuardPagesNT(t *testing.T) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func(m, c, p int64) { ntMin, ntChunk, minPiece = m, c, p }(ntMin, ntChunk, minPiece)
	ntMin, ntChunk, minPiece = 512, 700, 16 // pieces of 700 bytes or whole units
	const pages = 80
	img, packed := newGuarded(t, pages), newGuarded(t, pages)
	n := 120
	if testing.Short() {
		n = 30
	}
	r := rand.New(rand.NewPCG(61, 62))
	configs := guardConfigs()
	tested := 0
	for i := 0; tested < n && i < 50*n; i++ {
		ty := typegen.Random(r, typegen.Options{MaxElements: 512, MaxExtent: 1 << 14})
		if ty.Size() == 0 {
			continue
		}
		count := max(1, int64(r.IntN(6000))/ty.Size())
		if guardType(t, r, ty, count, ntMin, configs, img, packed, nil) {
			tested++
		}
	}
	if tested < n/2 {
		t.Fatalf("only %d types of at least %d packed bytes fit the guarded pages", tested, ntMin)
	}
	t.Logf("%d types, %d configurations, non-temporal stores: %v", tested, len(configs), ntMin < 1<<62)
}

// TestPackNTLongBlocks packs layouts with blocks of 1 KiB and more, where
// the native code's non-temporal variant stores the blocks' aligned
// middles itself (jit.Engine.PackNT), into packed buffers at every
// offset modulo 64 that end at or start after a PROT_NONE page, whole,
// with two goroutines and in Packer pieces, against the reference; and
// checks that the variant was compiled and used.
func TestPackNTLongBlocks(t *testing.T) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func(m, p int64) { ntMin, minPiece = m, p }(ntMin, minPiece)
	ntMin, minPiece = 16<<10, 4<<10
	dbl := datatype.Of(datatype.Double)
	must := func(t2 *datatype.Type, err error) *datatype.Type {
		if err != nil {
			t.Fatal(err)
		}
		return t2
	}
	types := []*datatype.Type{
		must(datatype.Vector(40, 128, 130, dbl)),  // 1024-byte blocks
		must(datatype.Vector(30, 129, 140, dbl)),  // 1032
		must(datatype.Vector(20, 300, 301, dbl)),  // 2400
		must(datatype.Vector(9, 1025, 1100, dbl)), // 8200
		must(datatype.Subarray([]int64{40, 300}, []int64{30, 200}, []int64{5, 50}, datatype.OrderC, dbl)),
		must(datatype.Struct([]int64{1, 200, 3}, []int64{0, 16, 1700}, []*datatype.Type{dbl, dbl, dbl})),
	}
	const pages = 64
	img, packed := newGuarded(t, pages), newGuarded(t, pages)
	r := rand.New(rand.NewPCG(81, 82))
	used := 0
	for i, ty := range types {
		count := max(1, (int64(40+r.IntN(40))<<10)/ty.Size())
		lo, hi, err := ty.Span(count)
		if err != nil || hi-lo > int64(pages*os.Getpagesize()) {
			t.Fatalf("type %d: span %d..%d", i, lo, hi)
		}
		src, origin := image(ty, count, 3)
		want := naivePack(ty, count, src, origin)
		for _, th := range []int{1, 2} {
			c, err := CommitWith(ty, Options{Engine: Native, Threads: th})
			if err != nil {
				t.Fatal(err)
			}
			for _, atEnd := range []bool{true, false} {
				g := img.buf(int(hi-lo), atEnd, 0)
				copy(g, src[origin+lo:origin+hi])
				for off := range 64 {
					if off%7 != 0 && off != 63 {
						continue
					}
					pb := packed.buf(len(want)+off, atEnd, 9)
					var dst []byte
					if atEnd {
						dst = pb[off:]
					} else {
						dst = pb[off : off+len(want)]
					}
					if k, err := c.Pack(dst, g, -lo, count); err != nil || k != int64(len(want)) || !bytes.Equal(dst, want) {
						t.Fatalf("type %d threads %d offset %d atEnd %v: pack differs (%v)", i, th, off, atEnd, err)
					}
				}
				p, err := c.NewPacker(g, -lo, count)
				if err != nil {
					t.Fatal(err)
				}
				var got []byte
				for p.Pos() < p.Size() {
					piece := packed.buf(int(min(p.Size()-p.Pos(), ntMin+int64(r.IntN(int(ntMin))))), atEnd, 0)
					k, _ := p.Pack(piece)
					got = append(got, piece[:k]...)
				}
				if !bytes.Equal(got, want) {
					t.Fatalf("type %d threads %d: pack in pieces differs", i, th)
				}
			}
			if e, ok := c.engine().(interface{ NTCode() bool }); ok && e.NTCode() {
				used++
			}
		}
	}
	// the non-temporal variant needs 32-byte moves or wider (DDT_JIT_VEC=16
	// caps the generated code at SSE)
	vec16 := os.Getenv("DDT_JIT_VEC") == "16"
	jitOn := runtime.GOARCH == "amd64" && engine.NativeAvailable() && engine.DefaultLevel() >= engine.LevelAVX2 && !vec16
	if ntJIT && jitOn && used == 0 {
		t.Fatal("no type ran the native code's non-temporal variant")
	}
	t.Logf("%d of %d commits ran the native non-temporal variant", used, 2*len(types))
}
