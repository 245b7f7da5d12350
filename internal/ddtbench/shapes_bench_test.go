package ddtbench

import (
	"math/rand/v2"
	"testing"

	"github.com/ddtlab/ddt"
	"github.com/ddtlab/ddt/datatype"
)

// rangeShape is a synthetic irregular type of a few MB for
// BenchmarkRangeShapes: count instances of t in an arena of bytes bytes,
// instance 0's origin at byte 0.
type rangeShape struct {
	name  string
	t     *datatype.Type
	count int64
}

func must(t *datatype.Type, err error) *datatype.Type {
	if err != nil {
		panic(err)
	}
	return t
}

// rangeShapes are irregular layouts that the DDTBench ones do not cover:
// lists of blocks of varying length, lists of non-contiguous elements,
// structs of lists, vectors of small lists, lists in random order.
func rangeShapes() []rangeShape {
	r := rand.New(rand.NewPCG(5, 6))
	f64 := datatype.Of(datatype.Double)
	i32 := datatype.Of(datatype.Int)
	// increasing displacements with gaps; lens 1..maxLen elements of elem bytes
	list := func(n int, maxLen, elem int64, shuffle bool) ([]int64, []int64) {
		lens, disps := make([]int64, n), make([]int64, n)
		d := int64(0)
		for i := range n {
			lens[i] = 1 + r.Int64N(maxLen)
			disps[i] = d
			d += lens[i]*elem + elem*r.Int64N(4)
		}
		if shuffle {
			r.Shuffle(n, func(i, j int) { lens[i], lens[j] = lens[j], lens[i]; disps[i], disps[j] = disps[j], disps[i] })
		}
		return lens, disps
	}
	lv, dv := list(200000, 4, 8, false)
	hvar := must(datatype.HIndexed(lv, dv, f64))
	lb, db := list(4096, 256, 8, false)
	hbig := must(datatype.HIndexed(lb, db, f64))
	lu, du := list(200000, 4, 8, true)
	hshuf := must(datatype.HIndexed(lu, du, f64))
	v3 := must(datatype.Vector(3, 1, 2, f64)) // 24 bytes over 40
	_, dvb := list(150000, 1, 48, false)
	ivec := must(datatype.HIndexedBlock(1, dvb, v3))
	st := must(datatype.Resized(must(datatype.Struct([]int64{1, 1}, []int64{0, 12}, []*datatype.Type{f64, i32})), 0, 24))
	ls, ds := list(100000, 4, 24, false)
	for i := range ds {
		ds[i] /= 24
	}
	istr := must(datatype.Indexed(ls, ds, st))
	lm, dm := list(60000, 3, 8, false)
	small := must(datatype.HIndexed([]int64{1, 2, 1, 3, 1, 1, 2, 1}, []int64{0, 16, 48, 64, 112, 136, 160, 200}, f64))
	mixed := must(datatype.Struct([]int64{1, 1, 1}, []int64{0, 8 << 20, 16 << 20},
		[]*datatype.Type{must(datatype.HIndexed(lm, dm, f64)), ivec, must(datatype.HVector(20000, 1, 256, small))}))
	return []rangeShape{
		{"hindexed_var", hvar, 1},
		{"hindexed_big", hbig, 1},
		{"hindexed_shuffled", hshuf, 1},
		{"hindexed_block_vec", ivec, 1},
		{"indexed_struct", istr, 1},
		{"struct_of_lists", mixed, 1},
		{"hvector_of_hindexed", must(datatype.HVector(40000, 1, 256, small)), 1},
		{"hindexed_var_x4", must(datatype.HIndexed(lv[:20000], dv[:20000], f64)), 40},
	}
}

// BenchmarkRangeShapes is BenchmarkPacketRanges over rangeShapes: each
// type packed and unpacked whole and in 256 KiB packets (Threads 1), or
// in packets of DDT_BENCH_PACKET bytes (K suffix accepted).
func BenchmarkRangeShapes(b *testing.B) {
	packet := benchPacket(b)
	for _, s := range rangeShapes() {
		c, err := ddt.CommitWith(s.t, ddt.Options{Threads: 1, JITNow: true})
		if err != nil {
			b.Fatal(err)
		}
		size, err := c.PackSize(s.count)
		if err != nil {
			b.Fatal(err)
		}
		ext := s.t.TrueLB() + s.t.TrueExtent() + (s.count-1)*s.t.Extent()
		arena := make([]byte, ext)
		for i := range arena {
			arena[i] = byte(i)
		}
		pk := make([]byte, size)
		for range 10 {
			if _, err := c.Pack(pk, arena, 0, s.count); err != nil {
				b.Fatal(err)
			}
		}
		benchWholeAndPackets(b, c, s.name, arena, pk, 0, s.count, packet)
	}
}

// BenchmarkRangeCall is the fixed cost of one range: a Packer or Unpacker
// made, moved to a byte and run over 64 bytes, at offsets 4099 bytes
// apart through the message of each rangeShapes type, as packets go (the
// lists' and the image's cache lines mostly not in cache; ns/op per
// range).
func BenchmarkRangeCall(b *testing.B) {
	for _, s := range rangeShapes() {
		c, err := ddt.CommitWith(s.t, ddt.Options{Threads: 1, JITNow: true})
		if err != nil {
			b.Fatal(err)
		}
		size, err := c.PackSize(s.count)
		if err != nil {
			b.Fatal(err)
		}
		arena := make([]byte, s.t.TrueLB()+s.t.TrueExtent()+(s.count-1)*s.t.Extent())
		pk := make([]byte, 64)
		const step = 4099 // forward, as packets go, not aligned to blocks
		b.Run(s.name+"/pack", func(b *testing.B) {
			off := int64(0)
			for b.Loop() {
				off = (off + step) % (size - 64)
				p, err := c.NewPacker(arena, 0, s.count)
				if err != nil || p.SetPos(off) != nil {
					b.Fatal(err)
				}
				if _, err := p.Pack(pk); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(s.name+"/unpack", func(b *testing.B) {
			off := int64(0)
			for b.Loop() {
				off = (off + step) % (size - 64)
				u, err := c.NewUnpacker(arena, 0, s.count)
				if err != nil || u.SetPos(off) != nil {
					b.Fatal(err)
				}
				if _, err := u.Unpack(pk); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
