package ddt

import (
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ddtlab/ddt/datatype"
)

// edges are the integers the constructor fuzzer favours: zero and ±1, small
// values, the 2^31 and 2^32 boundaries, and the int64 edges.
var edges = []int64{
	0, 1, -1, 2, -2, 3, 4, -4, 7, 8, -8, 16, 64,
	math.MaxInt32, math.MaxInt32 + 1, math.MinInt32, math.MinInt32 - 1, 1 << 32,
	1 << 61, 1 << 62, -1 << 62, math.MaxInt64, math.MaxInt64 - 1, math.MaxInt64 / 2,
	math.MinInt64, math.MinInt64 + 1, math.MinInt64 / 2,
}

// ctorReader turns fuzz input into constructor calls.
type ctorReader struct{ b []byte }

func (r *ctorReader) byte() byte {
	if len(r.b) == 0 {
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

// int64 decodes an argument: an edge value, a small value, or 8 raw bytes.
func (r *ctorReader) int64() int64 {
	tag := int(r.byte())
	switch {
	case tag < len(edges):
		return edges[tag]
	case tag < 0xf0:
		return int64(tag-len(edges)) - 16 // -16 .. about 200
	}
	var raw [8]byte
	for i := range raw {
		raw[i] = r.byte()
	}
	return int64(binary.LittleEndian.Uint64(raw[:]))
}

func (r *ctorReader) ints(n int) []int64 {
	xs := make([]int64, n)
	for i := range xs {
		xs[i] = r.int64()
	}
	return xs
}

// fuzzOps are the constructors the fuzzer calls: every one of the table,
// in an order the seed corpus's encoding assumes.
var fuzzOps = func() []datatype.Combiner {
	ops := []datatype.Combiner{
		datatype.CombinerContiguous, datatype.CombinerVector, datatype.CombinerHVector,
		datatype.CombinerIndexed, datatype.CombinerHIndexed, datatype.CombinerIndexedBlock,
		datatype.CombinerHIndexedBlock, datatype.CombinerStruct, datatype.CombinerSubarray,
		datatype.CombinerDarray, datatype.CombinerResized, datatype.CombinerDup,
	}
	for _, k := range datatype.Constructors() {
		if !slices.Contains(ops, k.Combiner) {
			ops = append(ops, k.Combiner)
		}
	}
	return ops
}()

// build calls the constructor op through the constructor table, with
// arguments read from r in the table's order over types from pool: a list
// length first (1 to 3 for constructors whose count is an int ndims, 0 to
// 4 otherwise), then each argument by its kind. Orders and distributions
// are read as small numbers that include invalid ones.
func (r *ctorReader) build(op datatype.Combiner, pool []*datatype.Type) (*datatype.Type, error) {
	k := op.Constructor()
	old := func() *datatype.Type { return pool[int(r.byte())%len(pool)] }
	n := int(r.byte() % 5)
	if k.Count.Kind == datatype.ArgInt && k.Count.Name != "" {
		n = 1 + n%3
	}
	var a datatype.Args
	for _, p := range k.Params {
		switch p.Kind {
		case datatype.ArgCount, datatype.ArgInt, datatype.ArgAint:
			a.SetInt(p, r.int64())
		case datatype.ArgCounts, datatype.ArgInts, datatype.ArgAints, datatype.ArgDargs:
			a.SetInts(p, r.ints(n))
		case datatype.ArgDistribs:
			a.Distribs = make([]datatype.Distrib, n)
			for i := range a.Distribs {
				a.Distribs[i] = datatype.Distrib(r.byte() % 4)
			}
		case datatype.ArgOrder:
			a.Order = datatype.Order(r.byte() % 3)
		case datatype.ArgType:
			a.Types = []*datatype.Type{old()}
		case datatype.ArgTypes:
			a.Types = make([]*datatype.Type, n)
			for i := range a.Types {
				a.Types[i] = old()
			}
		}
	}
	return k.Build(a)
}

// FuzzConstructors (seed corpus in testdata/fuzz/FuzzConstructors: the
// issue's reproducers, encoded as ctorReader reads them) builds types from extreme integers through the
// constructors directly. Constructors must never panic; their errors must
// be *datatype.ArgError naming the constructor called; a type that builds
// must have bounds whose differences fit in int64 and data inside its data
// bounds; and small ones must pack and unpack with every engine exactly as
// the reference engine does.
func FuzzConstructors(f *testing.F) {
	f.Add([]byte{})
	r := rand.New(rand.NewPCG(9, 9))
	for range 64 {
		b := make([]byte, 8+r.IntN(48))
		for i := range b {
			b[i] = byte(r.IntN(256))
			if r.IntN(3) == 0 { // many small arguments, so that types build
				b[i] = byte(len(edges) + 16 + r.IntN(12))
			}
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzConstructors(t, data)
	})
}

func fuzzConstructors(t *testing.T, data []byte) {
	rd := &ctorReader{b: data}
	pool := []*datatype.Type{
		datatype.Of(datatype.Int), datatype.Of(datatype.Char), datatype.Of(datatype.Double),
		datatype.TwoInt, datatype.Of(datatype.LongDouble),
	}
	rng := rand.New(rand.NewPCG(uint64(len(data)), 1))
	for step := 0; step < 8 && len(rd.b) > 0; step++ {
		op := fuzzOps[int(rd.byte())%len(fuzzOps)]
		ty, err := rd.build(op, pool)
		if err != nil {
			var ae *datatype.ArgError
			if !errors.As(err, &ae) || ae.Constructor != op.String() || !strings.HasPrefix(err.Error(), op.String()+": ") {
				t.Fatalf("%v: error %q (%T) does not name the constructor", op, err, err)
			}
			continue
		}
		if ty.Combiner() != op {
			t.Fatalf("%v built a %v", op, ty.Combiner())
		}
		checkFuzzLayout(t, ty)
		pool = append(pool, ty)
		lo, hi := ty.DataBounds()
		if ty.Size() > 1<<20 || ty.TrueExtent() > 1<<24 || hi-lo > 1<<24 || ty.Elements() > 1<<18 {
			continue
		}
		for count := int64(1); count <= 2; count++ {
			// the origin that puts byte l at the start of a buffer, -l,
			// must be an int64
			if l, h, err := ty.Span(count); err == nil && h-l <= 1<<22 && l > math.MinInt64+64 {
				checkEngines(t, rng, ty, count)
			}
		}
	}
}

// checkFuzzLayout asserts the invariants the engines' single bounds check
// per call rests on.
func checkFuzzLayout(t *testing.T, ty *datatype.Type) {
	t.Helper()
	fits := func(lo, hi int64) bool { return (hi-lo >= 0) == (hi >= lo) }
	if !fits(ty.LB(), ty.UB()) || !fits(ty.TrueLB(), ty.TrueUB()) {
		t.Fatalf("%v: bounds [%d, %d) or true bounds [%d, %d) wrap", ty, ty.LB(), ty.UB(), ty.TrueLB(), ty.TrueUB())
	}
	if ty.Depth() > datatype.MaxDepth {
		t.Fatalf("%v: depth %d", ty, ty.Depth())
	}
	lo, hi := ty.DataBounds()
	if lo > hi || !fits(lo, hi) || (ty.Size() == 0) != (lo == hi) || ty.Size() < 0 || ty.Elements() < 0 {
		t.Fatalf("%v: data bounds [%d, %d), size %d, elements %d", ty, lo, hi, ty.Size(), ty.Elements())
	}
	if ty.Size() > 0 && (lo < ty.TrueLB() || hi > ty.TrueUB()) {
		t.Fatalf("%v: data bounds [%d, %d) outside the true bounds [%d, %d)", ty, lo, hi, ty.TrueLB(), ty.TrueUB())
	}
	if ty.Size() > hi-lo && !fits(lo, hi) {
		t.Fatalf("%v: size %d in data bounds [%d, %d)", ty, ty.Size(), lo, hi)
	}
	if ty.Elements() > 1<<14 {
		return
	}
	var size, n int64
	ty.Walk(1, func(b datatype.Basic, d int64) bool {
		if d < lo || d > hi-b.Size() {
			t.Fatalf("%v: element %v at %d outside the data bounds [%d, %d)", ty, b, d, lo, hi)
		}
		size += b.Size()
		n++
		return true
	})
	if size != ty.Size() || n != ty.Elements() {
		t.Fatalf("%v: the type map has %d bytes in %d elements, want %d in %d", ty, size, n, ty.Size(), ty.Elements())
	}
	var blocks int64
	ty.Blocks(1, func(off, m int64) bool { blocks++; return true })
	if blocks != ty.NumBlocks(1) {
		t.Fatalf("%v: Blocks yields %d runs, NumBlocks says %d", ty, blocks, ty.NumBlocks(1))
	}
}

// TestConstructorsCorpus runs the constructor fuzzer's checks on many
// random inputs in normal test runs (go test -fuzz explores further).
func TestConstructorsCorpus(t *testing.T) {
	n := 600
	if testing.Short() {
		n = 150
	}
	r := rand.New(rand.NewPCG(41, 43))
	for range n {
		b := make([]byte, 8+r.IntN(64))
		for i := range b {
			b[i] = byte(r.IntN(256))
			if r.IntN(2) == 0 {
				b[i] = byte(len(edges) + 16 + r.IntN(12))
			}
		}
		fuzzConstructors(t, b)
	}
}
