package ddt

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/ddtlab/ddt/dame"
	"github.com/ddtlab/ddt/dame/opt"
	"github.com/ddtlab/ddt/datatype"
	"github.com/ddtlab/ddt/internal/typegen"
	"github.com/ddtlab/ddt/sig"
)

// randType returns a random type of at most depth levels from the
// project's one generator (internal/typegen), small enough for the engine
// comparisons: a predefined type for depth 0.
func randType(r *rand.Rand, depth int) *datatype.Type {
	if depth <= 0 {
		return typegen.Leaf(r)
	}
	return typegen.Random(r, typegen.Options{MaxDepth: depth, MaxElements: 512, MaxExtent: 1 << 14})
}

var fastEngines = []Engine{Interpreter, Compiled, Auto} // Auto: native code when the JIT applies

// checkEngines packs and unpacks count instances of ty with every engine,
// whole and in random chunks, and compares with the reference engine.
func checkEngines(t *testing.T, r *rand.Rand, ty *datatype.Type, count int64) {
	t.Helper()
	checkEnginesWith(t, r, ty, count, false)
}

// referenceRun is what every engine must produce for count instances of
// ty: the reference engine's packing of image(ty, count, 1) (src at
// origin) into want, and its unpacking of want into image(ty, count, 9)
// (wantImg, at origin o).
func referenceRun(t *testing.T, ty *datatype.Type, count int64) (src []byte, origin int64, want, wantImg []byte, o int64) {
	t.Helper()
	ref, err := CommitWith(ty, Options{Engine: Reference})
	if err != nil {
		t.Fatal(err)
	}
	src, origin = image(ty, count, 1)
	want = make([]byte, mustSize(ref, count))
	if _, err := ref.Pack(want, src, origin, count); err != nil {
		t.Fatal(err)
	}
	wantImg, o = image(ty, count, 9)
	if _, err := ref.Unpack(wantImg, want, o, count); err != nil {
		t.Fatal(err)
	}
	return src, origin, want, wantImg, o
}

// checkEnginesWith is checkEngines, committing the fast engines with
// Options.Normalize NormalizeAlways if normalize is set, NormalizeNever
// otherwise.
func checkEnginesWith(t *testing.T, r *rand.Rand, ty *datatype.Type, count int64, normalize bool) {
	t.Helper()
	src, origin, want, wantImg, o := referenceRun(t, ty, count)
	for _, e := range fastEngines {
		mode := NormalizeNever
		if normalize {
			mode = NormalizeAlways
		}
		c, err := CommitWith(ty, Options{Engine: e, Normalize: mode, JITNow: true})
		if err != nil {
			t.Fatal(err)
		}
		got := make([]byte, len(want))
		if _, err := c.Pack(got, src, origin, count); err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%v: pack of %d differs from reference (err %v)\nprogram:\n%s\ngot  %v\nwant %v", e, count, err, c.Program(), got, want)
		}
		img, _ := image(ty, count, 9)
		if _, err := c.Unpack(img, want, o, count); err != nil || !bytes.Equal(img, wantImg) {
			t.Fatalf("%v: unpack of %d differs from reference (err %v)\nprogram:\n%s", e, count, err, c.Program())
		}
		// chunked, in order
		p, _ := c.NewPacker(src, origin, count)
		var chunks []byte
		for {
			buf := make([]byte, r.IntN(max(len(want)/3, 1)+1)+1)
			n, err := p.Pack(buf)
			if err != nil {
				break
			}
			chunks = append(chunks, buf[:n]...)
		}
		if !bytes.Equal(chunks, want) {
			t.Fatalf("%v: chunked pack differs\nprogram:\n%s\ngot  %v\nwant %v", e, c.Program(), chunks, want)
		}
		// chunked unpack, pieces in random order (resumed with SetPos)
		img, _ = image(ty, count, 9)
		u, _ := c.NewUnpacker(img, o, count)
		var cuts []int64
		for pos := int64(0); pos < int64(len(want)); {
			cuts = append(cuts, pos)
			pos += r.Int64N(int64(max(len(want)/3, 1))) + 1
		}
		for _, k := range r.Perm(len(cuts)) {
			end := int64(len(want))
			if k+1 < len(cuts) {
				end = cuts[k+1]
			}
			u.SetPos(cuts[k])
			if _, err := u.Unpack(want[cuts[k]:end]); err != nil {
				t.Fatal(err)
			}
		}
		if !bytes.Equal(img, wantImg) {
			t.Fatalf("%v: chunked unpack in random order differs\nprogram:\n%s", e, c.Program())
		}
	}
}

func mustSize(c *Committed, count int64) int64 {
	n, err := c.PackSize(count)
	if err != nil {
		panic(err)
	}
	return n
}

func TestEnginesMatchReference(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for name, ty := range sampleTypes() {
		t.Run(name, func(t *testing.T) {
			for count := int64(0); count <= 3; count++ {
				checkEngines(t, r, ty, count)
			}
		})
	}
	for i := range 3000 {
		ty := randType(r, 1+i%4)
		checkEngines(t, r, ty, r.Int64N(4))
	}
}

func TestProgramRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 1000 {
		ty := randType(r, 1+i%4)
		p := opt.Compile(ty)
		text := p.String()
		q, err := dame.Parse(text)
		if err != nil {
			t.Fatalf("parse: %v\n%s", err, text)
		}
		if q.String() != text || !dame.Equal(p.Root, q.Root) || p.Off != q.Off || p.Extent != q.Extent || p.Align != q.Align {
			t.Fatalf("round trip differs:\n%s\n%s", text, q.String())
		}
	}
}

func FuzzEngines(f *testing.F) {
	f.Add(uint64(1), uint8(3), uint8(2))
	f.Add(uint64(99), uint8(4), uint8(1))
	f.Fuzz(func(t *testing.T, seed uint64, depth, count uint8) {
		r := rand.New(rand.NewPCG(seed, 1))
		checkEngines(t, r, randType(r, int(depth%5)), int64(count%5))
	})
}

func TestSegmentsConcatenateToPack(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for i := range 1500 {
		ty := randType(r, 1+i%4)
		count := r.Int64N(4)
		c, _ := Commit(ty)
		src, origin := image(ty, count, 1)
		want := make([]byte, mustSize(c, count))
		c.Pack(want, src, origin, count)
		from := int64(0)
		if len(want) > 0 {
			from = r.Int64N(int64(len(want)))
		}
		var got []byte
		for off, n := range c.Segments(count, from) {
			got = append(got, src[origin+off:origin+off+n]...)
		}
		if !bytes.Equal(got, want[from:]) {
			t.Fatalf("segments from %d differ from pack\n%s", from, c.Program())
		}
	}
}

func TestTranspackEqualsUnpackOfPack(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	i32 := datatype.Of(datatype.Int)
	// a 5 x 4 matrix transposed (seed 003 Fig. 2) and random pairs of types
	// with the same signature (any type against contiguous of its elements)
	col := must(datatype.HVector(5, 1, 16, i32))
	tr := must(datatype.HIndexedBlock(1, []int64{0, 4, 8, 12}, col))
	pairs := [][2]*datatype.Type{{tr, must(datatype.Contiguous(20, i32))}}
	for i := range 400 {
		a := randType(r, 1+i%3)
		if a.Size() == 0 {
			continue
		}
		var bs datatype.Basic
		uniform := true
		first := true
		a.Walk(1, func(b datatype.Basic, _ int64) bool {
			if first {
				bs, first = b, false
			}
			uniform = uniform && b == bs
			return uniform
		})
		if !uniform {
			continue
		}
		n := a.Size() / bs.Size()
		b := must(datatype.Vector(n, 1, 2, datatype.Of(bs)))
		pairs = append(pairs, [2]*datatype.Type{a, b}, [2]*datatype.Type{b, a})
	}
	for _, p := range pairs {
		a, b := p[0], p[1]
		ca, _ := Commit(a)
		cb, _ := Commit(b)
		src, so := image(a, 2, 1)
		packed := make([]byte, mustSize(ca, 2))
		ca.Pack(packed, src, so, 2)
		want, do := image(b, 2, 5)
		got := bytes.Clone(want)
		cb.Unpack(want, packed, do, 2)
		if _, err := Transpack(cb, got, do, 2, ca, src, so, 2); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("transpack differs from unpack(pack())")
		}
	}
	if _, err := Transpack(cb(t), make([]byte, 64), 0, 1, cb(t), make([]byte, 64), 0, 2); err == nil {
		t.Error("transpack of different sizes succeeded")
	}
}

func cb(t *testing.T) *Committed {
	c, err := Commit(datatype.Of(datatype.Double))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestTranspackSignatures: Transpack compares the signatures computed at
// commit; messages of one size and different basic types, or the same
// basic types in another order, are refused.
func TestTranspackSignatures(t *testing.T) {
	in, fl, db := datatype.Of(datatype.Int), datatype.Of(datatype.Float), datatype.Of(datatype.Double)
	id, _ := datatype.Struct([]int64{1, 1}, []int64{0, 8}, []*datatype.Type{in, db})
	di, _ := datatype.Struct([]int64{1, 1}, []int64{0, 8}, []*datatype.Type{db, in})
	id2, _ := datatype.Contiguous(2, id)
	commit := func(ty *datatype.Type) *Committed {
		c, err := Commit(ty)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	buf := make([]byte, 64)
	for _, c := range []struct {
		name             string
		dst, src         *datatype.Type
		dstCount, srcCnt int64
		ok               bool
	}{
		{"int as float", fl, in, 1, 1, false},
		{"(int, double) as (double, int)", di, id, 1, 1, false},
		{"2 x (int, double) as contiguous(2, (int, double))", id2, id, 1, 2, true},
		{"uniform, other count", in, in, 2, 2, true},
	} {
		_, err := Transpack(commit(c.dst), buf, 0, c.dstCount, commit(c.src), make([]byte, 64), 0, c.srcCnt)
		if (err == nil) != c.ok {
			t.Errorf("%s: err = %v, want ok = %v", c.name, err, c.ok)
		}
	}
	// the committed type's tree answers like sig.Match
	c := commit(id2)
	s, _ := sig.OfCount(id, 1)
	if err := c.MatchSignature(s, 1); err != nil {
		t.Errorf("MatchSignature of a prefix: %v", err)
	}
	s3, _ := sig.OfCount(id, 3)
	if err := c.MatchSignature(s3, 1); err == nil {
		t.Error("MatchSignature of 3 instances into 2 succeeded")
	}
	if got, want := c.SignatureTree().Sig(), c.Signature(); got != want {
		t.Errorf("tree signature %v, commit signature %v", got, want)
	}
}
