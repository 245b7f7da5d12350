package bench

import (
	"fmt"
	"testing"

	"github.com/ddtlab/ddt"
)

// BenchmarkSmallPlacement unpacks and packs the 2 KB mpipack layouts of
// one vector (L1, L2, L8 S) with ddt, the hand-written Go loop and a copy
// of the packed bytes, in one run, with the packed buffer at two places:
// page-aligned like the memory image (off=0, as `ddt bench --mpipack` maps
// it) and 2064 bytes into a page (16 bytes past a 64-byte line, where a
// malloc'ed buffer may land, as mpipack.c's pk = malloc(packed+64) does):
// 64-byte moves then cross a cache line each. On a shared machine take the
// minimum over many short runs:
//
//	go test -run - -bench SmallPlacement -count 15 -benchtime 100000x ./cmd/ddt/internal/bench
func BenchmarkSmallPlacement(b *testing.B) {
	for _, d := range mpCases {
		if d.size != "S" || d.kind != kVecBlk && d.kind != kVec1 && d.kind != kResized {
			continue
		}
		c := resolve(d)
		mem, freeMem, err := region(c.alloc, false)
		if err != nil {
			b.Fatal(err)
		}
		fillDense(mem)
		ct, err := ddt.Commit(c.makeType())
		if err != nil {
			b.Fatal(err)
		}
		for _, off := range []int64{0, 2064} {
			buf, freeBuf, err := region(off+2*c.packed, false)
			if err != nil {
				b.Fatal(err)
			}
			pk := buf[off : off+c.packed]
			cp := buf[off+c.packed : off+2*c.packed]
			c.manualPack(mem, pk)
			name := fmt.Sprintf("layout=%s/off=%d", c.id+c.size, off)
			b.Run(name+"/op=unpack/impl=ddt", func(b *testing.B) {
				b.SetBytes(c.packed)
				for b.Loop() {
					ct.Unpack(mem, pk, 0, c.count)
				}
			})
			b.Run(name+"/op=unpack/impl=manual", func(b *testing.B) {
				b.SetBytes(c.packed)
				for b.Loop() {
					c.manualUnpack(pk, mem)
				}
			})
			b.Run(name+"/op=pack/impl=ddt", func(b *testing.B) {
				b.SetBytes(c.packed)
				for b.Loop() {
					ct.Pack(pk, mem, 0, c.count)
				}
			})
			b.Run(name+"/op=pack/impl=manual", func(b *testing.B) {
				b.SetBytes(c.packed)
				for b.Loop() {
					c.manualPack(mem, pk)
				}
			})
			b.Run(name+"/op=copy", func(b *testing.B) {
				b.SetBytes(c.packed)
				for b.Loop() {
					copy(cp, pk)
				}
			})
			freeBuf()
		}
		freeMem()
	}
}
