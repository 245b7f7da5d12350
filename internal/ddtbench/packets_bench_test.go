package ddtbench

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/ddtlab/ddt"
)

// BenchmarkPacketRanges packs and unpacks each large DDTBench send layout
// whole and in 256 KiB packets (DDT_BENCH_PACKET=8K etc. for other sizes)
// the way the interposition library's pipeline does (interpose/lib/pipe.c,
// ddtgoPackRange and ddtgoUnpackRange: a Packer or Unpacker positioned at
// the packet's first byte), so that the cost of the range path against the
// whole-message path shows per layout (go test -run '^$' -bench
// PacketRanges ./internal/ddtbench). Types are committed with Threads 1,
// as the library commits them: the whole message then runs on one
// goroutine, like each packet; and with JITNow, so that both run the best
// engine (native code where the generator covers the type, as the
// library's types run once used enough; DDT_NOJIT=1 measures the compiled
// engine).
func BenchmarkPacketRanges(b *testing.B) {
	ops, err := Load("large")
	if err != nil {
		b.Fatal(err)
	}
	packet := benchPacket(b)
	for _, o := range ops {
		if o.Op != "send" {
			continue
		}
		c, err := ddt.CommitWith(o.Type, ddt.Options{Threads: 1, JITNow: true})
		if err != nil {
			b.Fatal(err)
		}
		arena := make([]byte, o.ArenaBytes)
		o.Fill(arena)
		pk := make([]byte, o.Packed)
		for range 10 {
			if _, err := c.Pack(pk, arena, o.Base, o.Count); err != nil {
				b.Fatal(err)
			}
		}
		benchWholeAndPackets(b, c, o.Case, arena, pk, o.Base, o.Count, packet)
	}
}

// benchWholeAndPackets runs four benchmarks of count instances of c in
// arena (instance 0's origin at byte base), pk its packed bytes: name/pack
// and name/unpack move the whole message in one call, name/pack-packets
// and name/unpack-packets in ranges of packet bytes, each through a new
// Packer or Unpacker moved to the range's first byte.
func benchWholeAndPackets(b *testing.B, c *ddt.Committed, name string, arena, pk []byte, base, count, packet int64) {
	size := int64(len(pk))
	b.Run(name+"/pack", func(b *testing.B) {
		b.SetBytes(size)
		for b.Loop() {
			if _, err := c.Pack(pk, arena, base, count); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run(name+"/pack-packets", func(b *testing.B) {
		b.SetBytes(size)
		for b.Loop() {
			for off := int64(0); off < size; off += packet {
				p, err := c.NewPacker(arena, base, count)
				if err != nil || p.SetPos(off) != nil {
					b.Fatal(err)
				}
				if _, err := p.Pack(pk[off:min(off+packet, size)]); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run(name+"/unpack", func(b *testing.B) {
		b.SetBytes(size)
		for b.Loop() {
			if _, err := c.Unpack(arena, pk, base, count); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run(name+"/unpack-packets", func(b *testing.B) {
		b.SetBytes(size)
		for b.Loop() {
			for off := int64(0); off < size; off += packet {
				u, err := c.NewUnpacker(arena, base, count)
				if err != nil || u.SetPos(off) != nil {
					b.Fatal(err)
				}
				if _, err := u.Unpack(pk[off:min(off+packet, size)]); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}

// benchPacket is the packet size of the packet benchmarks: 256 KiB, the
// interposition library's default, or DDT_BENCH_PACKET bytes (K suffix
// accepted).
func benchPacket(b *testing.B) int64 {
	v := os.Getenv("DDT_BENCH_PACKET")
	if v == "" {
		return 256 << 10
	}
	k, err := strconv.ParseInt(strings.TrimSuffix(v, "K"), 10, 64)
	if err != nil || k <= 0 {
		b.Fatalf("DDT_BENCH_PACKET=%q", v)
	}
	if strings.HasSuffix(v, "K") {
		k <<= 10
	}
	return k
}
