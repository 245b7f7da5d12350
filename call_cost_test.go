package ddt

import (
	"fmt"
	"testing"

	"github.com/ddtlab/ddt/datatype"
	"github.com/ddtlab/ddt/internal/engine"
)

// BenchmarkCallPath splits the cost of one 2 KB Unpack and Pack of the
// anchors' L8 S layout (vector(16,16,32,double)) once its native code
// exists: op=api is Committed.Unpack/Pack (the checks of fastPath.fits and
// the call), op=entry the generated code called straight (no check), and
// op=copy a copy of the 2048 packed bytes, in one run:
//
//	go test -run - -bench CallPath -count 6 .
func BenchmarkCallPath(b *testing.B) {
	ty, err := datatype.Vector(16, 16, 32, datatype.Of(datatype.Double))
	if err != nil {
		b.Fatal(err)
	}
	c, err := CommitWith(ty, Options{JITNow: true})
	if err != nil {
		b.Fatal(err)
	}
	mem, pk, cp := make([]byte, 4096), make([]byte, 2048), make([]byte, 2048)
	for range 2 {
		c.Pack(pk, mem, 0, 1)
		c.Unpack(mem, pk, 0, 1)
	}
	r := c.eng.Load()
	if r.fast.max == 0 {
		b.Skip("no native code on this machine")
	}
	for i, op := range []string{"pack", "unpack"} {
		b.Run(fmt.Sprintf("dir=%s/op=api", op), func(b *testing.B) {
			b.SetBytes(2048)
			for b.Loop() {
				if i == 0 {
					c.Pack(pk, mem, 0, 1)
				} else {
					c.Unpack(mem, pk, 0, 1)
				}
			}
		})
		b.Run(fmt.Sprintf("dir=%s/op=entry", op), func(b *testing.B) {
			b.SetBytes(2048)
			e := r.fast.entry[i]
			for b.Loop() {
				engine.Call(e, mem, 0, pk, 1)
			}
		})
	}
	b.Run("dir=none/op=copy", func(b *testing.B) {
		b.SetBytes(2048)
		for b.Loop() {
			copy(cp, pk)
		}
	})
}
