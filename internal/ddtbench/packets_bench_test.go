package ddtbench

import (
	"testing"

	"github.com/ddtlab/ddt"
)

// BenchmarkPacketRanges packs each large DDTBench send layout whole and in
// 256 KiB packets the way the interposition library's pipeline does
// (interpose/lib/pipe.c: a Packer positioned at the packet's first byte),
// so that the cost of the range path against the whole-message path shows
// per layout (go test -run - -bench PacketRanges ./internal/ddtbench).
func BenchmarkPacketRanges(b *testing.B) {
	ops, err := Load("large")
	if err != nil {
		b.Fatal(err)
	}
	const packet = 256 << 10
	for _, o := range ops {
		if o.Op != "send" {
			continue
		}
		c, err := ddt.Commit(o.Type)
		if err != nil {
			b.Fatal(err)
		}
		arena := make([]byte, o.ArenaBytes)
		o.Fill(arena)
		dst := make([]byte, o.Packed)
		b.Run(o.Case+"/whole", func(b *testing.B) {
			b.SetBytes(o.Packed)
			for b.Loop() {
				if _, err := c.Pack(dst, arena, o.Base, o.Count); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(o.Case+"/packets", func(b *testing.B) {
			b.SetBytes(o.Packed)
			for b.Loop() {
				for off := int64(0); off < o.Packed; off += packet {
					p, err := c.NewPacker(arena, o.Base, o.Count)
					if err != nil || p.SetPos(off) != nil {
						b.Fatal(err)
					}
					if _, err := p.Pack(dst[off:min(off+packet, o.Packed)]); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
