package ddt

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ddtlab/ddt/datatype"
	"github.com/ddtlab/ddt/sig"
)

// naivePack is the oracle: flatten the type map and copy each element.
func naivePack(t *datatype.Type, count int64, src []byte, origin int64) []byte {
	var out []byte
	t.Walk(count, func(b datatype.Basic, d int64) bool {
		out = append(out, src[origin+d:origin+d+b.Size()]...)
		return true
	})
	return out
}

func naiveUnpack(t *datatype.Type, count int64, dst []byte, origin int64, src []byte) {
	t.Walk(count, func(b datatype.Basic, d int64) bool {
		n := b.Size()
		copy(dst[origin+d:origin+d+n], src[:n])
		src = src[n:]
		return true
	})
}

func must(t *datatype.Type, err error) *datatype.Type {
	if err != nil {
		panic(err)
	}
	return t
}

// sampleTypes covers every constructor and the MPICH edge cases.
func sampleTypes() map[string]*datatype.Type {
	i, d, c := datatype.Of(datatype.Int), datatype.Of(datatype.Double), datatype.Of(datatype.Char)
	rs := must(datatype.Resized(i, -4, 16))
	st := must(datatype.Struct([]int64{1, 3, 1, 2}, []int64{0, 8, 32, 36}, []*datatype.Type{i, d, c, datatype.Of(datatype.Float)}))
	return map[string]*datatype.Type{
		"int":        i,
		"short_int":  datatype.ShortInt,
		"contig":     must(datatype.Contiguous(5, d)),
		"vector":     must(datatype.Vector(4, 2, 3, i)),
		"vector_neg": must(datatype.Vector(3, 1, -2, d)),
		"hvector":    must(datatype.HVector(3, 2, 20, c)),
		"indexed":    must(datatype.Indexed([]int64{2, 0, 3}, []int64{5, 100, -2}, i)),
		"hindexed":   must(datatype.HIndexed([]int64{1, 2}, []int64{16, 0}, d)),
		"overlap":    must(datatype.IndexedBlock(2, []int64{0, 1, 0}, i)),
		"hblock":     must(datatype.HIndexedBlock(1, []int64{-8, 8}, d)),
		"struct":     st,
		"vec_struct": must(datatype.Vector(3, 2, 3, st)),
		"resized":    must(datatype.Contiguous(3, rs)),
		"neg_ext":    must(datatype.Contiguous(3, must(datatype.Resized(i, 0, -8)))),
		"subarray_c": must(datatype.Subarray([]int64{4, 5, 6}, []int64{2, 3, 2}, []int64{1, 2, 3}, datatype.OrderC, d)),
		"subarray_f": must(datatype.Subarray([]int64{4, 5}, []int64{2, 3}, []int64{1, 1}, datatype.OrderFortran, i)),
		"darray":     must(datatype.Darray(6, 4, []int64{9, 7}, []datatype.Distrib{datatype.DistributeBlock, datatype.DistributeCyclic}, []int64{datatype.DefaultDarg, 2}, []int64{3, 2}, datatype.OrderC, i)),
		"dup":        must(datatype.Dup(st)),
		"zero":       must(datatype.Contiguous(0, d)),
		"pairs":      must(datatype.Struct([]int64{2, 1}, []int64{0, 40}, []*datatype.Type{datatype.DoubleInt, datatype.LongDoubleInt})),
		"nested":     must(datatype.HVector(2, 1, -100, must(datatype.Vector(2, 3, 4, must(datatype.Resized(st, 0, 24)))))),
	}
}

// image returns a patterned buffer large enough for count instances and the
// origin that puts the lowest touched byte at a small offset.
func image(t *datatype.Type, count int64, seed byte) ([]byte, int64) {
	lo, hi, err := t.Span(count)
	if err != nil {
		panic(err)
	}
	pad := int64(3)
	buf := make([]byte, hi-lo+2*pad)
	for k := range buf {
		buf[k] = byte(k*7) + seed
	}
	return buf, pad - lo
}

func TestPackMatchesOracle(t *testing.T) {
	for name, ty := range sampleTypes() {
		c, err := Commit(ty)
		if err != nil {
			t.Fatal(err)
		}
		for count := int64(0); count <= 3; count++ {
			src, origin := image(ty, count, 1)
			want := naivePack(ty, count, src, origin)
			dst := make([]byte, len(want))
			n, err := c.Pack(dst, src, origin, count)
			if err != nil || n != int64(len(want)) || !bytes.Equal(dst, want) {
				t.Errorf("%s count %d: pack = %d, %v; differs from oracle: %v", name, count, n, err, !bytes.Equal(dst, want))
			}
			// unpack into a patterned image equals the oracle's unpack
			got, o := image(ty, count, 9)
			exp := bytes.Clone(got)
			naiveUnpack(ty, count, exp, o, want)
			if _, err := c.Unpack(got, want, o, count); err != nil || !bytes.Equal(got, exp) {
				t.Errorf("%s count %d: unpack differs from oracle (err %v)", name, count, err)
			}
		}
	}
}

func TestChunkedEqualsWhole(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for name, ty := range sampleTypes() {
		c, _ := Commit(ty)
		count := int64(3)
		src, origin := image(ty, count, 1)
		want := naivePack(ty, count, src, origin)
		for trial := 0; trial < 20; trial++ {
			p, err := c.NewPacker(src, origin, count)
			if err != nil {
				t.Fatal(err)
			}
			var got []byte
			for {
				buf := make([]byte, 1+r.IntN(13))
				n, err := p.Pack(buf)
				if err != nil {
					break
				}
				got = append(got, buf[:n]...)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("%s: chunked pack differs from whole pack", name)
			}
			img, o := image(ty, count, 5)
			exp := bytes.Clone(img)
			naiveUnpack(ty, count, exp, o, want)
			u, err := c.NewUnpacker(img, o, count)
			if err != nil {
				t.Fatal(err)
			}
			rest := want
			for len(rest) > 0 {
				k := min(len(rest), 1+r.IntN(11))
				if _, err := u.Unpack(rest[:k]); err != nil {
					t.Fatal(err)
				}
				rest = rest[k:]
			}
			if !u.Done() || !bytes.Equal(img, exp) {
				t.Fatalf("%s: chunked unpack differs from whole unpack", name)
			}
		}
	}
}

func TestBufferChecks(t *testing.T) {
	ty := sampleTypes()["vector_neg"] // touches [-32, 8)
	c, _ := Commit(ty)
	src := make([]byte, 40)
	dst := make([]byte, 24)
	var be *BufferError
	if _, err := c.Pack(dst, src, 31, 1); !errors.As(err, &be) {
		t.Errorf("origin 31 must be rejected (lowest byte at -1), got %v", err)
	}
	if _, err := c.Pack(dst, src, 32, 1); err != nil {
		t.Errorf("origin 32 fits exactly: %v", err)
	}
	if _, err := c.Pack(dst[:23], src, 32, 1); !errors.As(err, &be) {
		t.Errorf("short output must be rejected, got %v", err)
	}
	img := bytes.Repeat([]byte{7}, 40)
	if _, err := c.Unpack(img, dst, 33, 1); err == nil || !bytes.Equal(img, bytes.Repeat([]byte{7}, 40)) {
		t.Errorf("unpack outside image must fail before writing: %v", err)
	}
	if _, err := c.Unpack(img, dst[:5], 32, 1); err == nil {
		t.Errorf("short packed input must be rejected")
	}
	if _, err := c.Pack(dst, src, 32, -1); err == nil {
		t.Errorf("negative count must be rejected")
	}
}

func TestCommitSignature(t *testing.T) {
	for name, ty := range sampleTypes() {
		c, err := Commit(ty)
		if err != nil {
			t.Fatal(err)
		}
		if s := c.Signature(); s.N != ty.Elements() {
			t.Errorf("%s: signature of %d elements, type has %d", name, s.N, ty.Elements())
		}
		m, err := c.MessageSignature(3)
		want, _ := sig.OfCount(ty, 3)
		if err != nil || m != want {
			t.Errorf("%s: message signature %v, want %v (%v)", name, m, want, err)
		}
	}
}

// An Unpacker takes from a longer stream exactly the bytes of its message:
// Write reports the trailing bytes as a short write, ReadFrom never reads
// them.
func TestUnpackerLongerStream(t *testing.T) {
	i32 := datatype.Of(datatype.Int)
	col, _ := datatype.Vector(5, 1, 3, i32)
	c, err := Commit(col)
	if err != nil {
		t.Fatal(err)
	}
	src := make([]byte, col.Extent())
	for i := range src {
		src[i] = byte(i + 1)
	}
	packed := make([]byte, col.Size())
	if _, err := c.Pack(packed, src, 0, 1); err != nil {
		t.Fatal(err)
	}
	want := make([]byte, len(src))
	if _, err := c.Unpack(want, packed, 0, 1); err != nil {
		t.Fatal(err)
	}
	tail := []byte("trailing bytes")
	stream := append(slices.Clone(packed), tail...)

	got := make([]byte, len(src))
	u, _ := c.NewUnpacker(got, 0, 1)
	n, err := u.Write(stream[:3])
	if n != 3 || err != nil {
		t.Fatalf("Write of 3 bytes: %d, %v", n, err)
	}
	n, err = u.Write(stream[3:])
	if n != len(packed)-3 || !errors.Is(err, io.ErrShortWrite) || !u.Done() || !bytes.Equal(got, want) {
		t.Fatalf("Write past the end: n=%d err=%v done=%v image %v, want %v", n, err, u.Done(), got, want)
	}

	for _, chunk := range []int{1, 3, 7, 1 << 20} {
		got := make([]byte, len(src))
		u, _ := c.NewUnpacker(got, 0, 1)
		r := &chunkReader{b: stream, k: chunk}
		n, err := u.ReadFrom(r)
		if n != int64(len(packed)) || err != nil || !bytes.Equal(got, want) || !bytes.Equal(r.b, tail) {
			t.Fatalf("chunk %d: ReadFrom = %d, %v; image %v want %v; left %q", chunk, n, err, got, want, r.b)
		}
	}

	// a stream that ends early
	u, _ = c.NewUnpacker(make([]byte, len(src)), 0, 1)
	if n, err := u.ReadFrom(bytes.NewReader(packed[:5])); n != 5 || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("short stream: %d, %v", n, err)
	}

	// Packer.WriteTo writes the rest of the message
	p, _ := c.NewPacker(src, 0, 1)
	p.Read(make([]byte, 2))
	var out bytes.Buffer
	if n, err := io.Copy(&out, p); n != int64(len(packed)-2) || err != nil || !bytes.Equal(out.Bytes(), packed[2:]) {
		t.Fatalf("WriteTo: %d, %v, %v", n, err, out.Bytes())
	}
}

// chunkReader returns at most k bytes a call.
type chunkReader struct {
	b []byte
	k int
}

func (r *chunkReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), r.k)], r.b)
	r.b = r.b[n:]
	return n, nil
}
