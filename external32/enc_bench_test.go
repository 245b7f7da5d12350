package external32

import (
	"testing"

	"github.com/ddtlab/ddt/datatype"
)

func BenchmarkEncode(b *testing.B) {
	src := make([]byte, 8*8192)
	dst := make([]byte, 8*8192)
	for _, bt := range []datatype.Basic{datatype.Long, datatype.Double, datatype.Int} {
		b.Run(bt.String(), func(b *testing.B) {
			k := int64(len(src)) / bt.Size()
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				encode(bt, dst, src, k)
			}
		})
	}
}
