package bench

import (
	"github.com/ddtlab/ddt/internal/ddtbench"
	"testing"

	"github.com/ddtlab/ddt"
)

// BenchmarkMPIPack packs the medium (~1 MB) mpipack layouts with each
// engine, the hand-written Go loop and a copy of the same bytes:
//
//	go test -run - -bench MPIPack ./cmd/ddt/internal/bench
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

// BenchmarkCommit commits the mpipack layouts (all sizes) with the compiled
// engine:
//
//	go test -run - -bench Commit ./cmd/ddt/internal/bench
func BenchmarkCommit(b *testing.B) {
	for _, d := range mpCases {
		c := resolve(d)
		t := c.makeType()
		b.Run("layout="+c.id+c.size, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ddt.CommitWith(t, ddt.Options{Engine: ddt.Compiled}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSmall packs and unpacks the small (2 KB) mpipack layouts: the
// fixed cost of one call.
//
//	go test -run - -bench Small ./cmd/ddt/internal/bench
func BenchmarkSmall(b *testing.B) {
	for _, d := range mpCases {
		if d.size != "S" {
			continue
		}
		c := resolve(d)
		src := make([]byte, c.alloc)
		fillDense(src)
		pk := make([]byte, c.packed)
		ct, _ := ddt.Commit(c.makeType())
		b.Run("op=pack/layout="+c.id, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(c.packed)
			for b.Loop() {
				ct.Pack(pk, src, 0, c.count)
			}
		})
		b.Run("op=unpack/layout="+c.id, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(c.packed)
			for b.Loop() {
				ct.Unpack(src, pk, 0, c.count)
			}
		})
		b.Run("op=manual/layout="+c.id, func(b *testing.B) {
			b.SetBytes(c.packed)
			for b.Loop() {
				c.manualPack(src, pk)
			}
		})
	}
}

// BenchmarkCommitDDTBench commits the DDTBench send types:
//
//	go test -run - -bench CommitDDTBench ./cmd/ddt/internal/bench
func BenchmarkCommitDDTBench(b *testing.B) {
	ops, err := ddtbench.Load()
	if err != nil {
		b.Fatal(err)
	}
	for _, o := range ops {
		if o.Op != "send" {
			continue
		}
		b.Run("case="+o.Case+"/config="+o.Config, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ddt.CommitWith(o.Type, ddt.Options{Engine: ddt.Compiled}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
