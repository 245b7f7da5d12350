package external32

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/ddtlab/ddt"
	"github.com/ddtlab/ddt/datatype"
	"github.com/ddtlab/ddt/internal/typegen"
)

// naiveElem is the external32 form of one element, written independently of
// encode: bytes reversed word by word, longs and wchars cut to their low
// bytes, long doubles through x87ToQuad (checked against C's __float128 in
// internal/conformance).
func naiveElem(b datatype.Basic, nat []byte) []byte {
	rev := func(w []byte) []byte {
		out := make([]byte, len(w))
		for i := range w {
			out[i] = w[len(w)-1-i]
		}
		return out
	}
	switch b {
	case datatype.Long, datatype.UnsignedLong:
		return rev(nat[:4])
	case datatype.WChar:
		return rev(nat[:2])
	case datatype.LongDouble, datatype.CLongDoubleComplex:
		out := make([]byte, len(nat))
		for i := 0; i < len(nat); i += 16 {
			x87ToQuad(out[i:i+16], nat[i:i+16])
		}
		return out
	case datatype.CFloatComplex, datatype.CDoubleComplex:
		h := len(nat) / 2
		return append(rev(nat[:h]), rev(nat[h:])...)
	}
	return rev(nat)
}

// naivePack packs count instances by walking the type map.
func naivePack(t *datatype.Type, img []byte, origin, count int64) []byte {
	var out []byte
	t.Walk(count, func(b datatype.Basic, d int64) bool {
		out = append(out, naiveElem(b, img[origin+d:origin+d+b.Size()])...)
		return true
	})
	return out
}

func randomImage(r *rand.Rand, t *datatype.Type, count int64) (img []byte, origin int64, ok bool) {
	lo, hi, err := t.Span(count)
	if err != nil || hi-lo > 8<<20 {
		return nil, 0, false
	}
	img = make([]byte, hi-lo+16)
	for i := range img {
		img[i] = byte(r.Uint32())
	}
	return img, 8 - lo, true
}

func TestKnownBytes(t *testing.T) {
	// What MPICH 4.0.2's MPI_Pack_external("external32") writes for one
	// element whose native bytes are 01 02 03 ... (see package doc).
	want := map[string]string{
		"char":                  "01",
		"c_bool":                "01",
		"short":                 "0201",
		"int":                   "04030201",
		"float":                 "04030201",
		"long":                  "04030201",
		"unsigned_long":         "04030201",
		"long_long":             "0807060504030201",
		"double":                "0807060504030201",
		"aint":                  "0807060504030201",
		"offset":                "0807060504030201",
		"count":                 "0807060504030201",
		"c_float_complex":       "0403020108070605",
		"c_double_complex":      "0807060504030201100f0e0d0c0b0a09",
		"long_double":           "0a09100e0c0a08060402000000000000",
		"c_long_double_complex": "0a09100e0c0a08060402000000000000" + "1a19302e2c2a28262422000000000000",
		"wchar":                 "0201",
		"double_int":            "08070605040302010c0b0a09",
	}
	img := make([]byte, 64)
	for i := range img {
		img[i] = byte(i + 1)
	}
	for name, w := range want {
		ty := datatype.Predefined(name)
		c, err := ddt.Commit(ty)
		if err != nil {
			t.Fatal(err)
		}
		x := New(c)
		dst := make([]byte, 64)
		n, err := x.Pack(dst, img, 0, 1)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := hex.EncodeToString(dst[:n]); got != w {
			t.Errorf("%s: packed %s, want %s", name, got, w)
		}
		if sz, _ := PackSize(ty, 3); sz != 3*int64(len(w)/2) {
			t.Errorf("%s: PackSize(3) = %d, want %d", name, sz, 3*len(w)/2)
		}
	}
}

func TestLongDoubleValues(t *testing.T) {
	// 1.5L is 3fff c000000000000000 in x87 and 3fff 8000... in binary128.
	nat, _ := hex.DecodeString("00000000000000c0ff3f000000000000")
	q := make([]byte, 16)
	x87ToQuad(q, nat)
	if got := hex.EncodeToString(q); got != "3fff8000000000000000000000000000" {
		t.Fatalf("1.5L: %s", got)
	}
	back := make([]byte, 16)
	quadToX87(back, q)
	if !bytes.Equal(back, nat) {
		t.Fatalf("1.5L back: %x", back)
	}
}

func TestSignExtension(t *testing.T) {
	for _, tc := range []struct {
		name string
		ext  string
		nat  string
	}{
		{"long", "fffffffe", "feffffffffffffff"},
		{"long", "7ffffffe", "feffff7f00000000"},
		{"unsigned_long", "fffffffe", "feffffff00000000"},
		{"wchar", "fffe", "feff0000"},
	} {
		c, _ := ddt.Commit(datatype.Predefined(tc.name))
		src, _ := hex.DecodeString(tc.ext)
		img := bytes.Repeat([]byte{0xee}, 8)
		if _, err := New(c).Unpack(img, src, 0, 1); err != nil {
			t.Fatal(err)
		}
		want, _ := hex.DecodeString(tc.nat)
		if !bytes.HasPrefix(img, want) {
			t.Errorf("%s %s: unpacked %x, want %x", tc.name, tc.ext, img, want)
		}
	}
}

// TestRandomTypes compares Pack with the type-map walk, the Packer in
// random pieces with Pack, and Unpack (whole and in pieces) with unpacking
// through the native representation.
func TestRandomTypes(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 32))
	n := 400
	if testing.Short() {
		n = 100
	}
	for i := range n {
		ty := typegen.Random(r, typegen.Options{MaxElements: 512, MaxExtent: 1 << 16})
		count := int64(r.IntN(4))
		img, origin, ok := randomImage(r, ty, count)
		if !ok {
			continue
		}
		c, err := ddt.Commit(ty)
		if err != nil {
			t.Fatal(err)
		}
		x := New(c)
		want := naivePack(ty, img, origin, count)
		size, err := x.PackSize(count)
		if err != nil || size != int64(len(want)) {
			t.Fatalf("type %d %v: PackSize %d, %v; want %d", i, ty, size, err, len(want))
		}
		got := make([]byte, size)
		if n, err := x.Pack(got, img, origin, count); err != nil || n != size || !bytes.Equal(got, want) {
			t.Fatalf("type %d %v count %d: Pack = %d, %v; differs from the type-map walk", i, ty, count, n, err)
		}
		// in random pieces
		p, err := x.NewPacker(img, origin, count)
		if err != nil {
			t.Fatal(err)
		}
		var pieces [][]byte
		var cat []byte
		for {
			buf := make([]byte, 1+r.IntN(40))
			k, err := p.Pack(buf)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			cat = append(cat, buf[:k]...)
			pieces = append(pieces, buf[:k])
		}
		if !bytes.Equal(cat, want) {
			t.Fatalf("type %d %v count %d: Packer pieces differ from Pack", i, ty, count)
		}
		// unpack: decoding each element and unpacking natively is the reference
		var native []byte
		pos := 0
		ty.Walk(count, func(b datatype.Basic, _ int64) bool {
			e := make([]byte, b.Size())
			decode(b, e, want[pos:], 1)
			pos += int(BasicSize(b))
			native = append(native, e...)
			return true
		})
		whole := make([]byte, len(img))
		if _, err := x.Unpack(whole, want, origin, count); err != nil {
			t.Fatal(err)
		}
		wholeRef := make([]byte, len(img))
		if _, err := c.Unpack(wholeRef, native, origin, count); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(whole, wholeRef) {
			t.Fatalf("type %d %v count %d: Unpack differs from decode + native unpack", i, ty, count)
		}
		pieced := make([]byte, len(img))
		u, err := x.NewUnpacker(pieced, origin, count)
		if err != nil {
			t.Fatal(err)
		}
		for _, pc := range pieces {
			if _, err := u.Unpack(pc); err != nil {
				t.Fatalf("type %d: Unpacker: %v", i, err)
			}
		}
		if !u.Done() || !bytes.Equal(pieced, wholeRef) {
			t.Fatalf("type %d %v count %d: Unpacker pieces differ from Unpack", i, ty, count)
		}
	}
}

func TestPackerSetPos(t *testing.T) {
	ty, _ := datatype.Struct([]int64{2, 1, 3}, []int64{0, 16, 32}, []*datatype.Type{
		datatype.Of(datatype.Long), datatype.Of(datatype.LongDouble), datatype.Of(datatype.WChar)})
	c, _ := ddt.Commit(ty)
	x := New(c)
	img := make([]byte, 5*ty.Extent())
	for i := range img {
		img[i] = byte(i * 7)
	}
	whole := make([]byte, 200)
	n, err := x.Pack(whole, img, 0, 5)
	if err != nil || n != 5*(8+16+6) {
		t.Fatalf("Pack %d %v", n, err)
	}
	p, _ := x.NewPacker(img, 0, 5)
	for _, pos := range []int64{0, 3, 8, 9, 23, 24, 29, 30, 149, 150} {
		if err := p.SetPos(pos); err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(p)
		if !bytes.Equal(got, whole[pos:n]) {
			t.Errorf("from %d: %x, want %x", pos, got, whole[pos:n])
		}
	}
	if err := p.SetPos(151); err == nil {
		t.Error("SetPos past the end accepted")
	}
	u, _ := x.NewUnpacker(make([]byte, len(img)), 0, 5)
	if err := u.SetPos(3); err == nil {
		t.Error("Unpacker.SetPos inside an element accepted")
	}
	if err := u.SetPos(24); err != nil {
		t.Error(err)
	}
}

func TestErrors(t *testing.T) {
	ty, _ := datatype.Vector(3, 1, 2, datatype.Of(datatype.Long))
	c, _ := ddt.Commit(ty)
	x := New(c)
	img := make([]byte, 40)
	var be *ddt.BufferError
	if _, err := x.Pack(make([]byte, 11), img, 0, 1); !errors.As(err, &be) {
		t.Errorf("short dst: %v", err)
	}
	if _, err := x.Pack(make([]byte, 12), img[:39], 0, 1); err == nil {
		t.Error("image too small accepted")
	}
	if _, err := x.Pack(make([]byte, 12), img, 0, -1); err == nil {
		t.Error("negative count accepted")
	}
	if _, err := x.Unpack(img, make([]byte, 11), 0, 1); !errors.As(err, &be) {
		t.Errorf("short src: %v", err)
	}
	u, _ := x.NewUnpacker(img, 0, 1)
	if _, err := u.Unpack(make([]byte, 13)); err == nil {
		t.Error("too many bytes accepted")
	}
	if _, err := PackSize(ty, 1<<62); err == nil {
		t.Error("overflowing count accepted")
	}
}

func BenchmarkPack(b *testing.B) {
	for _, tc := range []struct {
		name string
		old  datatype.Basic
	}{{"double", datatype.Double}, {"long", datatype.Long}, {"long_double", datatype.LongDouble}} {
		ty, _ := datatype.Vector(1<<12, 2, 3, datatype.Of(tc.old))
		c, _ := ddt.Commit(ty)
		x := New(c)
		img := make([]byte, ty.Extent())
		dst := make([]byte, ty.Size())
		ndst := make([]byte, ty.Size())
		b.Run(fmt.Sprintf("%s/native", tc.name), func(b *testing.B) {
			b.SetBytes(ty.Size())
			for b.Loop() {
				c.Pack(ndst, img, 0, 1)
			}
		})
		b.Run(fmt.Sprintf("%s/external32", tc.name), func(b *testing.B) {
			b.SetBytes(ty.Size())
			for b.Loop() {
				x.Pack(dst, img, 0, 1)
			}
		})
	}
}
