package jit

import (
	"testing"
	"unsafe"

	"github.com/ddtlab/ddt/dame/opt"
	"github.com/ddtlab/ddt/datatype"
)

// BenchmarkLayouts packs and unpacks a few mpipack layouts with the
// generated code and with the compiled engine, in one run.
func BenchmarkLayouts(b *testing.B) {
	dbl, i32, ch, fl := datatype.Of(datatype.Double), datatype.Of(datatype.Int), datatype.Of(datatype.Char), datatype.Of(datatype.Float)
	must := typeMust(b)
	s7 := must(datatype.Resized(must(datatype.Struct([]int64{1, 3, 1, 2}, []int64{0, 8, 32, 36}, []*datatype.Type{i32, dbl, ch, fl})), 0, 48))
	cases := []struct {
		name  string
		t     *datatype.Type
		count int64
		off   int // the image's offset from a 64-byte boundary
	}{
		{"L1S", must(datatype.Vector(256, 1, 3, dbl)), 1, 0},
		{"L1M", must(datatype.Vector(131072, 1, 3, dbl)), 1, 0},
		{"L2S", must(datatype.Resized(dbl, 0, 192)), 256, 0},
		{"L7S", s7, 64, 0},
		{"L7M", s7, 28340, 0},
		{"L8S", must(datatype.Vector(16, 16, 32, dbl)), 1, 0},
		{"L8M", must(datatype.Vector(8192, 16, 32, dbl)), 1, 0},
		// the image 16 bytes past a line, as malloc gives large blocks
		// (pfAligned)
		{"L8M+16", must(datatype.Vector(8192, 16, 32, dbl)), 1, 16},
		// doubles far apart (farPrefetchMaxStride, farPrefetchMinCount)
		// and blocks far apart (blockPrefetchMaxStride):
		// docs/interpose-bench.md, "Far-apart doubles, unpack (far2)"
		{"L3M", must(datatype.HVector(362, 1, 362*362*8, must(datatype.Vector(362, 1, 362, dbl)))), 1, 0},
		{"NAS_MG_xL", must(datatype.HVector(724, 1, 104544, must(datatype.Vector(724, 1, 18, dbl)))), 1, 0},
		{"MILC_su3_zdM", must(datatype.HVector(2, 1, 786432, must(datatype.Vector(16, 128, 2048, must(datatype.Contiguous(6, fl)))))), 1, 16},
	}
	for _, c := range cases {
		p := opt.Compile(c.t)
		size, _ := c.t.PackSize(c.count)
		lo, hi, _ := c.t.Span(c.count)
		img := alignedBytes(int(hi-lo) + c.off)[c.off:]
		for i := 0; i < len(img); i += 4096 {
			img[i] = 1 // fault the pages in before timing
		}
		pk := make([]byte, size)
		comp := refFallback{c.t}
		code, err := Compile(p)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(c.name+"/pack/jit", func(b *testing.B) {
			b.SetBytes(size)
			for b.Loop() {
				code.run(true, comp, pk, img, -lo, c.count, 0)
			}
		})
		b.Run(c.name+"/pack/compiled", func(b *testing.B) {
			b.SetBytes(size)
			for b.Loop() {
				comp.Pack(pk, img, -lo, c.count, 0)
			}
		})
		b.Run(c.name+"/unpack/jit", func(b *testing.B) {
			b.SetBytes(size)
			for b.Loop() {
				code.run(false, comp, pk, img, -lo, c.count, 0)
			}
		})
		b.Run(c.name+"/unpack/compiled", func(b *testing.B) {
			b.SetBytes(size)
			for b.Loop() {
				comp.Unpack(img, pk, -lo, c.count, 0)
			}
		})
	}
}

// alignedBytes returns n bytes starting on a 64-byte boundary.
func alignedBytes(n int) []byte {
	b := make([]byte, n+64)
	a := int(uintptr(unsafe.Pointer(unsafe.SliceData(b))) % 64)
	return b[(64-a)%64:][:n]
}
