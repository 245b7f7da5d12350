package jit

import (
	"testing"

	"github.com/ddtlab/ddt/dame/opt"
	"github.com/ddtlab/ddt/datatype"
)

// BenchmarkLayouts packs and unpacks a few mpipack layouts with the
// generated code and with the compiled engine, in one run.
func BenchmarkLayouts(b *testing.B) {
	dbl, i32, ch, fl := datatype.Of(datatype.Double), datatype.Of(datatype.Int), datatype.Of(datatype.Char), datatype.Of(datatype.Float)
	must := func(t *datatype.Type, err error) *datatype.Type {
		if err != nil {
			b.Fatal(err)
		}
		return t
	}
	s7 := must(datatype.Resized(must(datatype.Struct([]int64{1, 3, 1, 2}, []int64{0, 8, 32, 36}, []*datatype.Type{i32, dbl, ch, fl})), 0, 48))
	cases := []struct {
		name  string
		t     *datatype.Type
		count int64
	}{
		{"L1S", must(datatype.Vector(256, 1, 3, dbl)), 1},
		{"L1M", must(datatype.Vector(131072, 1, 3, dbl)), 1},
		{"L2S", must(datatype.Resized(dbl, 0, 192)), 256},
		{"L7S", s7, 64},
		{"L7M", s7, 28340},
		{"L8S", must(datatype.Vector(16, 16, 32, dbl)), 1},
		{"L8M", must(datatype.Vector(8192, 16, 32, dbl)), 1},
	}
	for _, c := range cases {
		p := opt.Compile(c.t)
		size, _ := c.t.PackSize(c.count)
		lo, hi, _ := c.t.Span(c.count)
		img := make([]byte, hi-lo)
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
