package bench

import (
	"testing"

	"github.com/ddtlab/ddt"
)

// BenchmarkMPIPack packs the medium (~1 MB) mpipack layouts with each
// engine, the hand-written Go loop and a copy of the same bytes:
//
//	go test -run - -bench MPIPack ./internal/bench
func BenchmarkMPIPack(b *testing.B) {
	for _, d := range mpCases {
		if d.size != "M" || d.kind == kRCHIB || d.kind == kRCIdx || d.kind == kRCStruct {
			continue
		}
		c := resolve(d)
		src := make([]byte, c.alloc)
		fillDense(src)
		pk := make([]byte, c.packed)
		name := "layout=" + c.id + c.size
		for _, e := range []ddt.Engine{ddt.Interpreter, ddt.Compiled} {
			ct, _ := ddt.CommitWith(c.makeType(), ddt.Options{Engine: e})
			b.Run("engine="+e.String()+"/"+name, func(b *testing.B) {
				b.SetBytes(c.packed)
				for b.Loop() {
					ct.Pack(pk, src, 0, c.count)
				}
			})
		}
		b.Run("engine=manual/"+name, func(b *testing.B) {
			b.SetBytes(c.packed)
			for b.Loop() {
				c.manualPack(src, pk)
			}
		})
		a := make([]byte, c.packed)
		b.Run("engine=copy/"+name, func(b *testing.B) {
			b.SetBytes(c.packed)
			for b.Loop() {
				copy(pk, a)
			}
		})
	}
}
