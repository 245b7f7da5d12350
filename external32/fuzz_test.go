package external32

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/ddtlab/ddt"
	"github.com/ddtlab/ddt/internal/typegen"
)

// FuzzPieces unpacks arbitrary bytes as the external32 stream of a random
// type, whole and in pieces whose sizes the input chooses, and packs the
// result again whole and in pieces: the images and streams must agree and
// nothing may panic.
func FuzzPieces(f *testing.F) {
	f.Add(uint64(1), []byte{3, 1, 4, 1, 5, 9, 2, 6})
	f.Add(uint64(7), bytes.Repeat([]byte{0xff}, 64))
	f.Fuzz(func(t *testing.T, seed uint64, in []byte) {
		r := rand.New(rand.NewPCG(seed, seed>>7))
		ty := typegen.Random(r, typegen.Options{MaxElements: 64, MaxExtent: 1 << 10})
		count := int64(r.IntN(3))
		c, err := ddt.Commit(ty)
		if err != nil {
			t.Fatal(err)
		}
		x := New(c)
		size, err := x.PackSize(count)
		if err != nil {
			return
		}
		img, origin, ok := randomImage(r, ty, count)
		if !ok {
			return
		}
		stream := make([]byte, size)
		for i := range stream {
			if len(in) > 0 {
				stream[i] = in[i%len(in)]
			}
		}
		whole := bytes.Clone(img)
		if _, err := x.Unpack(whole, stream, origin, count); err != nil {
			t.Fatal(err)
		}
		pieced := bytes.Clone(img)
		u, err := x.NewUnpacker(pieced, origin, count)
		if err != nil {
			t.Fatal(err)
		}
		rest, k := stream, 0
		for len(rest) > 0 {
			n := 1
			if len(in) > 0 {
				n += int(in[k%len(in)]) % 37
			}
			k++
			n = min(n, len(rest))
			if _, err := u.Unpack(rest[:n]); err != nil {
				t.Fatal(err)
			}
			rest = rest[n:]
		}
		if !bytes.Equal(whole, pieced) {
			t.Fatalf("%v count %d: unpacking in pieces differs", ty, count)
		}
		again := make([]byte, size)
		if _, err := x.Pack(again, whole, origin, count); err != nil {
			t.Fatal(err)
		}
		p, _ := x.NewPacker(whole, origin, count)
		var cat []byte
		buf := make([]byte, 5)
		for {
			n, err := p.Pack(buf[:1+int(binary.LittleEndian.Uint16(append(in, 0, 0)))%5])
			if n == 0 || err != nil {
				break
			}
			cat = append(cat, buf[:n]...)
		}
		if !bytes.Equal(cat, again) {
			t.Fatalf("%v count %d: packing in pieces differs", ty, count)
		}
	})
}
