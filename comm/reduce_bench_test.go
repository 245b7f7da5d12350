package comm

import (
	"testing"
	"unsafe"

	"github.com/ddtlab/ddt"
	"github.com/ddtlab/ddt/datatype"
)

// BenchmarkReduceLocal sums 64Ki doubles with ReduceLocal (pack both
// operands, add the packed streams, unpack), contiguous and every other
// double of a vector, against a hand-written loop over the same memory
// and a plain copy of it.
func BenchmarkReduceLocal(b *testing.B) {
	const n = 64 << 10
	contig := commit(datatype.Contiguous(n, datatype.Of(datatype.Double)))
	strided := commit(datatype.Vector(n, 1, 2, datatype.Of(datatype.Double)))
	in, inout := make([]float64, 2*n), make([]float64, 2*n)
	for i := range in {
		in[i] = float64(i)
	}
	bytesOf := func(f []float64) []byte { return unsafe.Slice((*byte)(unsafe.Pointer(&f[0])), 8*len(f)) }
	for _, c := range []struct {
		name string
		t    *ddt.Committed
	}{{"contiguous", contig}, {"strided", strided}} {
		b.Run("ReduceLocal/"+c.name, func(b *testing.B) {
			b.SetBytes(8 * n)
			for range b.N {
				if err := ReduceLocal(Buffer{Data: bytesOf(in), Count: 1, Type: c.t}, Buffer{Data: bytesOf(inout), Count: 1, Type: c.t}, Sum); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("loop/contiguous", func(b *testing.B) {
		b.SetBytes(8 * n)
		for range b.N {
			for i := range n {
				inout[i] += in[i]
			}
		}
	})
	b.Run("loop/strided", func(b *testing.B) {
		b.SetBytes(8 * n)
		for range b.N {
			for i := 0; i < 2*n; i += 2 {
				inout[i] += in[i]
			}
		}
	})
	b.Run("copy", func(b *testing.B) {
		b.SetBytes(8 * n)
		for range b.N {
			copy(inout[:n], in[:n])
		}
	})
}
