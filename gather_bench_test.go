package ddt_test

import (
	"math/rand/v2"
	"testing"

	"github.com/ddtlab/ddt"
	"github.com/ddtlab/ddt/datatype"
)

// BenchmarkRandomGather packs 2^20 floats from random places of a 64 MiB
// image (DDTBench SPECFEM3D_oc's large send type is one): ddt (Auto, which
// splits a 4 MiB message between goroutines, and Threads 1), a hand-written
// loop, and a copy of the same packed bytes, in one run.
func BenchmarkRandomGather(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	ds := make([]int64, 1<<20)
	for i := range ds {
		ds[i] = r.Int64N(16 << 20)
	}
	ty, err := datatype.IndexedBlock(1, ds, datatype.Of(datatype.Float))
	if err != nil {
		b.Fatal(err)
	}
	src := make([]byte, 64<<20)
	for i := range src {
		src[i] = byte(i) // touched: not the zero page
	}
	dst := make([]byte, 4<<20)
	for _, th := range []int{0, 1} {
		c, err := ddt.CommitWith(ty, ddt.Options{Threads: th})
		if err != nil {
			b.Fatal(err)
		}
		name := "ddt"
		if th == 1 {
			name = "ddt-threads1"
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(dst)))
			for b.Loop() {
				if _, err := c.Pack(dst, src, 0, 1); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("hand", func(b *testing.B) {
		b.SetBytes(int64(len(dst)))
		for b.Loop() {
			for i, d := range ds {
				copy(dst[4*i:4*i+4], src[4*d:4*d+4])
			}
		}
	})
	b.Run("copy", func(b *testing.B) {
		b.SetBytes(int64(len(dst)))
		for b.Loop() {
			copy(dst, src[:len(dst)])
		}
	})
}
