package comm

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ddtlab/ddt"
	"github.com/ddtlab/ddt/datatype"
	"github.com/ddtlab/ddt/internal/typegen"
)

// The reference: element i of count instances of a type is read and
// written at its type-map displacement and combined in its basic type with
// plain Go arithmetic, one element at a time, ranks folded in order.

func refCombine(t *testing.T, op *Op, b datatype.Basic, x, y []byte) []byte {
	t.Helper()
	out := make([]byte, len(y))
	ne := binary.NativeEndian
	// integers as int64 (sign- or zero-extended), then truncated
	unsigned := b == datatype.UnsignedChar || b == datatype.Uint8 || b == datatype.Byte || b == datatype.CBool ||
		b == datatype.UnsignedShort || b == datatype.Uint16 || b == datatype.Unsigned || b == datatype.Uint32
	signed := func(size int) {
		get := func(p []byte) int64 {
			switch {
			case size == 1 && unsigned:
				return int64(p[0])
			case size == 1:
				return int64(int8(p[0]))
			case size == 2 && unsigned:
				return int64(ne.Uint16(p))
			case size == 2:
				return int64(int16(ne.Uint16(p)))
			case size == 4 && unsigned:
				return int64(ne.Uint32(p))
			case size == 4:
				return int64(int32(ne.Uint32(p)))
			}
			return int64(ne.Uint64(p))
		}
		a, c := get(x), get(y)
		var r int64
		switch op.kind {
		case opSum:
			r = a + c
		case opProd:
			r = a * c
		case opMin:
			r = min(a, c)
		case opMax:
			r = max(a, c)
		case opLand:
			r = b2i(a != 0 && c != 0)
		case opLor:
			r = b2i(a != 0 || c != 0)
		case opLxor:
			r = b2i((a != 0) != (c != 0))
		case opBand:
			r = a & c
		case opBor:
			r = a | c
		case opBxor:
			r = a ^ c
		default:
			t.Fatalf("reference: %s on %s", op, b)
		}
		for k := range size {
			out[k] = byte(uint64(r) >> (8 * k))
		}
	}
	switch b {
	case datatype.SignedChar, datatype.Int8, datatype.UnsignedChar, datatype.Uint8, datatype.Byte, datatype.CBool:
		signed(1)
	case datatype.Short, datatype.Int16, datatype.UnsignedShort, datatype.Uint16:
		signed(2)
	case datatype.Int, datatype.Int32, datatype.Unsigned, datatype.Uint32:
		signed(4)
	case datatype.Long, datatype.LongLong, datatype.Int64, datatype.Aint, datatype.Offset, datatype.Count:
		signed(8)
	case datatype.UnsignedLong, datatype.UnsignedLongLong, datatype.Uint64:
		a, c := ne.Uint64(x), ne.Uint64(y)
		var r uint64
		switch op.kind {
		case opSum:
			r = a + c
		case opProd:
			r = a * c
		case opMin:
			r = min(a, c)
		case opMax:
			r = max(a, c)
		case opLand, opLor, opLxor, opBand, opBor, opBxor:
			signed(8) // the same bits
			return out
		}
		ne.PutUint64(out, r)
	case datatype.Float:
		a, c := math.Float32frombits(ne.Uint32(x)), math.Float32frombits(ne.Uint32(y))
		ne.PutUint32(out, math.Float32bits(float32(refFloat(t, op, float64(a), float64(c)))))
	case datatype.Double:
		a, c := math.Float64frombits(ne.Uint64(x)), math.Float64frombits(ne.Uint64(y))
		ne.PutUint64(out, math.Float64bits(refFloat(t, op, a, c)))
	case datatype.LongDouble:
		a, c := refF80(x), refF80(y)
		putF80(out, refFloat(t, op, a, c))
	case datatype.CFloatComplex:
		a := complex(float64(math.Float32frombits(ne.Uint32(x))), float64(math.Float32frombits(ne.Uint32(x[4:]))))
		c := complex(float64(math.Float32frombits(ne.Uint32(y))), float64(math.Float32frombits(ne.Uint32(y[4:]))))
		r := refComplex(t, op, a, c)
		ne.PutUint32(out, math.Float32bits(float32(real(r))))
		ne.PutUint32(out[4:], math.Float32bits(float32(imag(r))))
	case datatype.CDoubleComplex:
		a := complex(math.Float64frombits(ne.Uint64(x)), math.Float64frombits(ne.Uint64(x[8:])))
		c := complex(math.Float64frombits(ne.Uint64(y)), math.Float64frombits(ne.Uint64(y[8:])))
		r := refComplex(t, op, a, c)
		ne.PutUint64(out, math.Float64bits(real(r)))
		ne.PutUint64(out[8:], math.Float64bits(imag(r)))
	case datatype.CLongDoubleComplex:
		r := refComplex(t, op, complex(refF80(x), refF80(x[16:])), complex(refF80(y), refF80(y[16:])))
		putF80(out, real(r))
		putF80(out[16:], imag(r))
	default:
		t.Fatalf("reference: no %s", b)
	}
	return out
}

func b2i(v bool) int64 {
	if v {
		return 1
	}
	return 0
}

func refFloat(t *testing.T, op *Op, a, c float64) float64 {
	switch op.kind {
	case opSum:
		return a + c
	case opProd:
		return a * c
	case opMin:
		return min(a, c)
	case opMax:
		return max(a, c)
	}
	t.Fatalf("reference: %s on a float", op)
	return 0
}

func refComplex(t *testing.T, op *Op, a, c complex128) complex128 {
	switch op.kind {
	case opSum:
		return a + c
	case opProd:
		// small integers: exact whatever the formula
		return complex(real(a)*real(c)-imag(a)*imag(c), real(a)*imag(c)+imag(a)*real(c))
	}
	t.Fatalf("reference: %s on a complex", op)
	return 0
}

// refF80 reads an 80-bit float holding a small integer (the tests' values).
func refF80(b []byte) float64 {
	mant := binary.LittleEndian.Uint64(b)
	se := binary.LittleEndian.Uint16(b[8:])
	if mant == 0 {
		if se&0x8000 != 0 {
			return math.Copysign(0, -1)
		}
		return 0
	}
	v := math.Ldexp(float64(mant), int(se&0x7fff)-16383-63)
	if se&0x8000 != 0 {
		v = -v
	}
	return v
}

// putF80 writes an integer-valued float64 as an 80-bit float.
func putF80(b []byte, v float64) {
	clear(b)
	if v == 0 {
		if math.Signbit(v) {
			b[9] = 0x80
		}
		return
	}
	var se uint16
	if v < 0 {
		se, v = 0x8000, -v
	}
	m := uint64(v)
	e := 63
	for m&(1<<63) == 0 {
		m <<= 1
		e--
	}
	binary.LittleEndian.PutUint64(b, m)
	binary.LittleEndian.PutUint16(b[8:], se|uint16(16383+e))
}

func TestF80Encoding(t *testing.T) {
	b := make([]byte, 16)
	for _, v := range []float64{1, -1, 2, 3, 0.5, -1234567, 1e300, 5e-324} {
		f := new(big.Float).SetFloat64(v)
		f80encode(b, f)
		g := f80decode(b)
		if g.Cmp(f) != 0 {
			t.Errorf("%g: round trip gives %v", v, g)
		}
	}
	putF80(b, 1)
	if binary.LittleEndian.Uint64(b) != 1<<63 || binary.LittleEndian.Uint16(b[8:]) != 0x3fff {
		t.Errorf("1.0 is % x", b[:10])
	}
	// 1 + 2^-63 is exact in 80 bits, 1 + 2^-64 rounds to even (1)
	one := new(big.Float).SetPrec(200).SetFloat64(1)
	x := new(big.Float).SetPrec(200).Add(one, new(big.Float).SetMantExp(big.NewFloat(1), -63))
	f80encode(b, x)
	if binary.LittleEndian.Uint64(b) != 1<<63|1 {
		t.Errorf("1+2^-63 is % x", b[:10])
	}
	// the smallest subnormal and the largest finite
	binary.LittleEndian.PutUint64(b, 1)
	binary.LittleEndian.PutUint16(b[8:], 0)
	c := append([]byte(nil), b...)
	f80encode(b, f80decode(c))
	if !bytes.Equal(b[:10], c[:10]) {
		t.Errorf("smallest subnormal: % x, want % x", b[:10], c[:10])
	}
	binary.LittleEndian.PutUint64(b, math.MaxUint64)
	binary.LittleEndian.PutUint16(b[8:], 0x7ffe)
	c = append(c[:0], b...)
	f80encode(b, f80decode(c))
	if !bytes.Equal(b[:10], c[:10]) {
		t.Errorf("largest: % x, want % x", b[:10], c[:10])
	}
	// x87: the largest finite plus itself overflows to infinity
	f80op(opSum, c, b)
	if binary.LittleEndian.Uint16(b[8:]) != 0x7fff || binary.LittleEndian.Uint64(b) != 1<<63 {
		t.Errorf("overflow: % x", b[:10])
	}
}

// value writes a random value of b, small enough that every reduction of
// up to 5 of them is exact.
func value(r *rand.Rand, op *Op, b datatype.Basic, p []byte) {
	p = p[:b.Size()]
	v := int64(r.IntN(5) - 2)
	if op.kind == opLand || op.kind == opLor || op.kind == opLxor || b == datatype.CBool {
		v = int64(r.IntN(2))
		if b != datatype.CBool && r.IntN(2) == 0 {
			v = int64(r.IntN(7))
		}
	}
	ne := binary.NativeEndian
	switch b {
	case datatype.Float:
		ne.PutUint32(p, math.Float32bits(float32(v)))
	case datatype.Double:
		ne.PutUint64(p, math.Float64bits(float64(v)))
	case datatype.LongDouble:
		putF80(p, float64(v))
	case datatype.CFloatComplex:
		ne.PutUint32(p, math.Float32bits(float32(v)))
		ne.PutUint32(p[4:], math.Float32bits(float32(r.IntN(5)-2)))
	case datatype.CDoubleComplex:
		ne.PutUint64(p, math.Float64bits(float64(v)))
		ne.PutUint64(p[8:], math.Float64bits(float64(r.IntN(5)-2)))
	case datatype.CLongDoubleComplex:
		putF80(p, float64(v))
		putF80(p[16:], float64(r.IntN(5)-2))
	default:
		if op.kind == opBand || op.kind == opBor || op.kind == opBxor {
			v = r.Int64()
		}
		for k := range b.Size() {
			p[k] = byte(uint64(v) >> (8 * k))
		}
	}
}

var (
	intLeaves = basics(datatype.SignedChar, datatype.UnsignedChar, datatype.Int8, datatype.Uint8, datatype.Short,
		datatype.UnsignedShort, datatype.Int16, datatype.Uint16, datatype.Int, datatype.Unsigned, datatype.Int32,
		datatype.Uint32, datatype.Long, datatype.UnsignedLong, datatype.LongLong, datatype.UnsignedLongLong,
		datatype.Int64, datatype.Uint64)
	multiLeaves   = basics(datatype.Aint, datatype.Offset, datatype.Count)
	floatLeaves   = basics(datatype.Float, datatype.Double, datatype.LongDouble)
	complexLeaves = basics(datatype.CFloatComplex, datatype.CDoubleComplex, datatype.CLongDoubleComplex)
	pairLeaves    = []*datatype.Type{datatype.FloatInt, datatype.DoubleInt, datatype.LongInt, datatype.TwoInt, datatype.ShortInt, datatype.LongDoubleInt}
)

func basics(bs ...datatype.Basic) []*datatype.Type {
	var out []*datatype.Type
	for _, b := range bs {
		out = append(out, datatype.Of(b))
	}
	return out
}

func leavesFor(op *Op) []*datatype.Type {
	cat := func(xs ...[]*datatype.Type) []*datatype.Type {
		var out []*datatype.Type
		for _, x := range xs {
			out = append(out, x...)
		}
		return out
	}
	switch op.kind {
	case opSum, opProd:
		return cat(intLeaves, multiLeaves, floatLeaves, complexLeaves)
	case opMin, opMax:
		return cat(intLeaves, multiLeaves, floatLeaves)
	case opLand, opLor, opLxor:
		return cat(intLeaves, basics(datatype.CBool))
	case opBand, opBor, opBxor:
		return cat(intLeaves, multiLeaves, basics(datatype.Byte))
	case opMinloc, opMaxloc:
		return pairLeaves
	}
	return nil
}

// matmul is a non-commutative user operation: 2x2 matrices of doubles,
// inout = in · inout.
var matmul = func() *Op {
	op, err := NewSliceOp("matmul2x2", false, func(in, inout [][4]float64) {
		for i := range inout {
			a, b := in[i], inout[i]
			// + 0 makes every zero +0, whatever the order of the products
			inout[i] = [4]float64{a[0]*b[0] + a[1]*b[2] + 0, a[0]*b[1] + a[1]*b[3] + 0, a[2]*b[0] + a[3]*b[2] + 0, a[2]*b[1] + a[3]*b[3] + 0}
		}
	})
	if err != nil {
		panic(err)
	}
	return op
}()

var mat4 = func() *datatype.Type {
	t, err := datatype.Contiguous(4, datatype.Of(datatype.Double))
	if err != nil {
		panic(err)
	}
	return t
}()

// refMatmul is the reference of matmul on the element sequence of one
// instance-free stream: every 4 doubles a matrix, a·b.
func refMatmul(a, b []float64) []float64 {
	out := make([]float64, len(a))
	for i := 0; i+4 <= len(a); i += 4 {
		out[i] = a[i]*b[i] + a[i+1]*b[i+2] + 0
		out[i+1] = a[i]*b[i+1] + a[i+1]*b[i+3] + 0
		out[i+2] = a[i+2]*b[i] + a[i+3]*b[i+2] + 0
		out[i+3] = a[i+2]*b[i+1] + a[i+3]*b[i+3] + 0
	}
	return out
}

// sample is one random reduction: a type, a count, an operation and the
// send images of every rank.
type sample struct {
	op    *Op
	t     *ddt.Committed
	count int64
	n     int
	elems []datatype.Elem // type map of count instances
	sends [][]byte
	orig  int64 // origin of every image
	span  int64
}

func newSample(t *testing.T, r *rand.Rand, op *Op, n int, count int64) (*sample, bool) {
	leaves := leavesFor(op)
	if op == matmul {
		leaves = []*datatype.Type{mat4}
	}
	ty := typegen.Random(r, typegen.Options{MaxDepth: 3, MaxElements: 64, MaxExtent: 2048, Leaves: leaves})
	ct, err := ddt.Commit(ty)
	if err != nil {
		t.Fatal(err)
	}
	s := &sample{op: op, t: ct, count: count, n: n}
	lo, hi, err := ty.Span(count)
	if err != nil {
		return nil, false
	}
	s.orig, s.span = -lo, hi-lo
	s.elems = ty.TypeMap(count)
	if overlaps(s.elems) {
		return nil, false // a receive buffer must not have overlapping elements
	}
	for range n {
		img := make([]byte, s.span)
		for i := range img {
			img[i] = byte(r.IntN(256))
		}
		for _, e := range s.elems {
			value(r, op, e.Basic, img[s.orig+e.Disp:])
		}
		if op.kind == opMinloc || op.kind == opMaxloc {
			// indices: random ints
			for i := 1; i < len(s.elems); i += 2 {
				binary.NativeEndian.PutUint32(img[s.orig+s.elems[i].Disp:], uint32(r.IntN(4)))
			}
		}
		s.sends = append(s.sends, img)
	}
	return s, true
}

// element returns the bytes of element i of rank r's send image.
func (s *sample) element(r, i int) []byte {
	e := s.elems[i]
	return s.sends[r][s.orig+e.Disp : s.orig+e.Disp+e.Basic.Size()]
}

// fold is the reference reduction of element stream of ranks lo..hi-1
// (every element of count instances), as packed bytes per element.
func (s *sample) fold(t *testing.T, lo, hi int) [][]byte {
	out := make([][]byte, len(s.elems))
	if s.op == matmul {
		// 4 elements a matrix
		acc := make([]float64, len(s.elems))
		for i := range acc {
			acc[i] = math.Float64frombits(binary.NativeEndian.Uint64(s.element(lo, i)))
		}
		for r := lo + 1; r < hi; r++ {
			x := make([]float64, len(s.elems))
			for i := range x {
				x[i] = math.Float64frombits(binary.NativeEndian.Uint64(s.element(r, i)))
			}
			acc = refMatmul(acc, x)
		}
		for i := range out {
			out[i] = binary.NativeEndian.AppendUint64(nil, math.Float64bits(acc[i]))
		}
		return out
	}
	if s.op.kind == opMinloc || s.op.kind == opMaxloc {
		for i := 0; i < len(s.elems); i += 2 {
			bv := s.elems[i].Basic
			val, idx := s.element(lo, i), s.element(lo, i+1)
			for r := lo + 1; r < hi; r++ {
				v2, i2 := s.element(r, i), s.element(r, i+1)
				c := refCmp(bv, v2, val) // the new one against the accumulated
				if s.op.kind == opMaxloc {
					c = -c
				}
				a, b := int32(binary.NativeEndian.Uint32(idx)), int32(binary.NativeEndian.Uint32(i2))
				if c < 0 || (c == 0 && b < a) {
					if c < 0 {
						val = v2
					}
					idx = i2
				}
			}
			out[i], out[i+1] = val, idx
		}
		return out
	}
	for i, e := range s.elems {
		acc := s.element(lo, i)
		for r := lo + 1; r < hi; r++ {
			acc = refCombine(t, s.op, e.Basic, acc, s.element(r, i))
		}
		out[i] = acc
	}
	return out
}

func overlaps(elems []datatype.Elem) bool {
	seen := map[int64]bool{}
	for _, e := range elems {
		for k := range e.Basic.Size() {
			if seen[e.Disp+k] {
				return true
			}
			seen[e.Disp+k] = true
		}
	}
	return false
}

func refCmp(b datatype.Basic, x, y []byte) int {
	ne := binary.NativeEndian
	var a, c float64
	switch b {
	case datatype.Float:
		a, c = float64(math.Float32frombits(ne.Uint32(x))), float64(math.Float32frombits(ne.Uint32(y)))
	case datatype.Double:
		a, c = math.Float64frombits(ne.Uint64(x)), math.Float64frombits(ne.Uint64(y))
	case datatype.Long:
		a, c = float64(int64(ne.Uint64(x))), float64(int64(ne.Uint64(y)))
	case datatype.Int:
		a, c = float64(int32(ne.Uint32(x))), float64(int32(ne.Uint32(y)))
	case datatype.Short:
		a, c = float64(int16(ne.Uint16(x))), float64(int16(ne.Uint16(y)))
	case datatype.LongDouble:
		a, c = refF80(x), refF80(y)
	}
	switch {
	case a < c:
		return -1
	case a > c:
		return 1
	}
	return 0
}

// image returns recv's expected image: init with elements [from, from+k)
// of vals written at the type map of the receive (the same type).
func (s *sample) image(init []byte, vals [][]byte, from int) []byte {
	out := append([]byte(nil), init...)
	for i, v := range vals[from:] {
		if i >= len(s.elems) {
			break
		}
		copy(out[s.orig+s.elems[i].Disp:], v)
	}
	return out
}

var allOps = []*Op{Sum, Prod, Min, Max, Land, Lor, Lxor, Band, Bor, Bxor, Minloc, Maxloc}

// run runs fn on n ranks and returns each rank's error.
func runRanks(t *testing.T, n int, fn func(c *Comm) error) []error {
	t.Helper()
	w, err := NewWorld(n, Options{})
	if err != nil {
		t.Fatal(err)
	}
	errs := make([]error, n)
	if err := w.Run(func(c *Comm) error { errs[c.Rank()] = fn(c); return nil }); err != nil {
		t.Fatalf("run: %v", err)
	}
	return errs
}

func TestReductionsAgainstReference(t *testing.T) {
	r := rand.New(rand.NewPCG(22, 1))
	trials := 0
	for trial := 0; trials < 300 && trial < 3000; trial++ {
		ops := append(allOps, matmul)
		op := ops[trial%len(ops)]
		n := 1 + r.IntN(5)
		count := int64(r.IntN(4))
		s, ok := newSample(t, r, op, n, count)
		if !ok {
			continue
		}
		trials++
		which := trial / len(ops) % 6
		name := fmt.Sprintf("trial %d: %s of %d x %s on %d ranks with %s", trial, []string{"allreduce", "reduce", "scan", "exscan", "reduce_scatter", "reduce_scatter_block"}[which], count, s.t.Type(), n, op)
		if !s.check(t, r, which) {
			t.Fatalf("%s failed", name)
		}
	}
	if trials < 200 {
		t.Fatalf("only %d samples", trials)
	}
}

// check runs one collective on s and compares every rank's receive image
// with the reference.
func (s *sample) check(t *testing.T, r *rand.Rand, which int) bool {
	t.Helper()
	n := s.n
	init := make([]byte, s.span)
	for i := range init {
		init[i] = 0xee
	}
	recvs := make([][]byte, n)
	for i := range recvs {
		recvs[i] = append([]byte(nil), init...)
	}
	root := r.IntN(n)
	// reduce_scatter: instances per rank
	counts := make([]int64, n)
	left := s.count
	for i := range n - 1 {
		counts[i] = r.Int64N(left + 1)
		left -= counts[i]
	}
	counts[n-1] = left
	if which == 5 { // block: count instances per rank
		for i := range counts {
			counts[i] = s.count
		}
	}
	sendOf := func(c *Comm) Buffer {
		return Buffer{Data: s.sends[c.Rank()], Origin: s.orig, Count: s.count, Type: s.t}
	}
	if which == 5 && overlaps(s.t.Type().TypeMap(int64(n)*s.count)) {
		return true // n blocks of the send buffer would overlap: skip
	}
	errs := runRanks(t, n, func(c *Comm) error {
		me := c.Rank()
		recv := Buffer{Data: recvs[me], Origin: s.orig, Count: s.count, Type: s.t}
		switch which {
		case 0:
			return c.Allreduce(sendOf(c), recv, s.op)
		case 1:
			return c.Reduce(sendOf(c), recv, s.op, root)
		case 2:
			return c.Scan(sendOf(c), recv, s.op)
		case 3:
			return c.Exscan(sendOf(c), recv, s.op)
		case 4:
			recv.Count = counts[me]
			return c.ReduceScatter(sendOf(c), recv, counts, s.op)
		case 5:
			// the send buffer of n blocks: n copies of the image side by side
			return s.block(c, recv)
		}
		return nil
	})
	ok := true
	for i, err := range errs {
		if err != nil {
			t.Errorf("rank %d: %v", i, err)
			ok = false
		}
	}
	if !ok {
		return false
	}
	full := s.fold(t, 0, n)
	per := 0
	if s.count > 0 {
		per = len(s.elems) / int(s.count)
	}
	for i := range n {
		var want []byte
		switch which {
		case 0:
			want = s.image(init, full, 0)
		case 1:
			want = init
			if i == root {
				want = s.image(init, full, 0)
			}
		case 2:
			want = s.image(init, s.fold(t, 0, i+1), 0)
		case 3:
			want = init
			if i > 0 {
				want = s.image(init, s.fold(t, 0, i), 0)
			}
		case 4:
			from := 0
			for k := range i {
				from += int(counts[k]) * per
			}
			want = s.imageN(init, full[from:from+int(counts[i])*per])
		case 5:
			want = s.image(init, s.blockFold(t, i), 0)
		}
		if !bytes.Equal(recvs[i], want) {
			t.Errorf("rank %d of %d: receive image\n got % x\nwant % x", i, n, recvs[i], want)
			return false
		}
	}
	return true
}

// imageN writes the elements vals at the first len(vals) displacements.
func (s *sample) imageN(init []byte, vals [][]byte) []byte {
	out := append([]byte(nil), init...)
	for i, v := range vals {
		copy(out[s.orig+s.elems[i].Disp:], v)
	}
	return out
}

// block runs ReduceScatterBlock with a send buffer of n blocks: block j
// of rank r is rank (r+j)%n's image, so that every block differs.
func (s *sample) block(c *Comm, recv Buffer) error {
	n, me := c.Size(), c.Rank()
	ext := s.t.Type().Extent()
	if s.count > 0 && ext <= 0 {
		return nil
	}
	// a send image of n*count instances, instance k at k*extent
	stride := s.count * ext
	lo, hi, err := s.t.Type().Span(int64(n) * s.count)
	if err != nil {
		return err
	}
	img := make([]byte, hi-lo)
	for j := range n {
		src := s.sends[(me+j)%n]
		for _, e := range s.elems {
			at := -lo + int64(j)*stride + e.Disp
			copy(img[at:at+e.Basic.Size()], src[s.orig+e.Disp:])
		}
	}
	return c.ReduceScatterBlock(Buffer{Data: img, Origin: -lo, Count: int64(n) * s.count, Type: s.t}, recv, s.op)
}

// blockFold is the expected result of rank i in block: block i of rank r
// is image (r+i)%n, folded in rank order.
func (s *sample) blockFold(t *testing.T, i int) [][]byte {
	perm := &sample{op: s.op, t: s.t, count: s.count, n: s.n, elems: s.elems, orig: s.orig, span: s.span}
	for r := range s.n {
		perm.sends = append(perm.sends, s.sends[(r+i)%s.n])
	}
	return perm.fold(t, 0, s.n)
}

func TestReduceLocal(t *testing.T) {
	r := rand.New(rand.NewPCG(22, 2))
	done := 0
	for trial := 0; done < 100 && trial < 1000; trial++ {
		op := append(allOps, matmul)[trial%13]
		s, ok := newSample(t, r, op, 2, int64(r.IntN(4)))
		if !ok {
			continue
		}
		done++
		in := Buffer{Data: s.sends[0], Origin: s.orig, Count: s.count, Type: s.t}
		io := Buffer{Data: append([]byte(nil), s.sends[1]...), Origin: s.orig, Count: s.count, Type: s.t}
		if err := ReduceLocal(in, io, op); err != nil {
			t.Fatalf("%s on %d x %s: %v", op, s.count, s.t.Type(), err)
		}
		if want := s.image(s.sends[1], s.fold(t, 0, 2), 0); !bytes.Equal(io.Data, want) {
			t.Fatalf("%s on %d x %s:\n got % x\nwant % x", op, s.count, s.t.Type(), io.Data, want)
		}
	}
}

// TestReductionErrors: bad arguments and mismatches between ranks fail on
// every rank, naming the problem, with nothing left pending.
func TestReductionErrors(t *testing.T) {
	dbl := commit(datatype.Of(datatype.Double), nil)
	i32 := commit(datatype.Of(datatype.Int), nil)
	mixed := commit(datatype.Struct([]int64{1, 1}, []int64{0, 8}, []*datatype.Type{datatype.Of(datatype.Int), datatype.Of(datatype.Double)}))
	buf := func(ty *ddt.Committed, count int64) Buffer {
		return Buffer{Data: make([]byte, 64), Count: count, Type: ty}
	}
	userA, _ := NewOp("a", true, func(in, inout []byte, count int64, t *datatype.Type) error { return nil })
	userB, _ := NewOp("b", true, func(in, inout []byte, count int64, t *datatype.Type) error { return nil })
	failing, _ := NewOp("failing", false, func(in, inout []byte, count int64, t *datatype.Type) error {
		return errors.New("the user function fails")
	})
	cases := []struct {
		name string
		fn   func(c *Comm) error
		want []string // in every rank's error
	}{
		{"band on double", func(c *Comm) error { return c.Allreduce(buf(dbl, 2), buf(dbl, 2), Band) },
			[]string{"MPI_BAND", "double", "element 0"}},
		{"sum on a struct with a double, band", func(c *Comm) error { return c.Allreduce(buf(mixed, 2), buf(mixed, 2), Band) },
			[]string{"MPI_BAND", "element 1 is double"}},
		{"minloc on doubles", func(c *Comm) error { return c.Allreduce(buf(dbl, 2), buf(dbl, 2), Minloc) },
			[]string{"MPI_MINLOC", "double", "pairs"}},
		{"counts differ", func(c *Comm) error {
			return c.Allreduce(buf(dbl, int64(1+c.Rank()%2)), buf(dbl, int64(1+c.Rank()%2)), Sum)
		}, []string{"rank 1"}},
		{"types differ", func(c *Comm) error {
			if c.Rank() == 1 {
				return c.Allreduce(buf(i32, 2), buf(i32, 2), Sum)
			}
			return c.Allreduce(buf(dbl, 2), buf(dbl, 2), Sum)
		}, []string{"rank 1", "int"}},
		{"ops differ", func(c *Comm) error {
			op := Sum
			if c.Rank() == c.Size()-1 {
				op = Max
			}
			return c.Allreduce(buf(dbl, 2), buf(dbl, 2), op)
		}, []string{"MPI_MAX", "MPI_SUM"}},
		{"user ops differ", func(c *Comm) error {
			op := userA
			if c.Rank() == 0 {
				op = userB
			}
			return c.Reduce(buf(dbl, 2), buf(dbl, 2), op, 0)
		}, []string{"user operation"}},
		{"nil op on one rank", func(c *Comm) error {
			op := Sum
			if c.Rank() == 1 {
				op = nil
			}
			return c.Scan(buf(dbl, 2), buf(dbl, 2), op)
		}, []string{"nil op"}},
		{"root outside", func(c *Comm) error { return c.Reduce(buf(dbl, 1), buf(dbl, 1), Sum, c.Size()) },
			[]string{"root"}},
		{"roots differ", func(c *Comm) error { return c.Reduce(buf(dbl, 1), buf(dbl, 1), Sum, c.Rank()%2) },
			[]string{"root"}},
		{"recv too small at root", func(c *Comm) error {
			return c.Reduce(buf(dbl, 4), Buffer{Data: make([]byte, 8), Count: 4, Type: dbl}, Sum, 1)
		}, []string{"recv"}},
		{"recv of another signature", func(c *Comm) error { return c.Allreduce(buf(dbl, 2), buf(i32, 4), Sum) },
			[]string{"recv", "signature"}},
		{"nil send type", func(c *Comm) error {
			if c.Rank() == 2 {
				return c.Exscan(Buffer{Count: 1}, buf(dbl, 1), Sum)
			}
			return c.Exscan(buf(dbl, 1), buf(dbl, 1), Sum)
		}, []string{"rank 2", "send", "nil type"}},
		{"reduce_scatter counts", func(c *Comm) error {
			return c.ReduceScatter(buf(dbl, 3), buf(dbl, 1), []int64{1, 1}, Sum)
		}, []string{"counts"}},
		{"reduce_scatter counts differ", func(c *Comm) error {
			counts := []int64{1, 1, 1}
			if c.Rank() == 0 {
				counts = []int64{2, 1, 0}
			}
			return c.ReduceScatter(buf(dbl, 3), buf(dbl, counts[c.Rank()]), counts, Sum)
		}, []string{"counts"}},
		{"reduce_scatter_block not a multiple", func(c *Comm) error {
			return c.ReduceScatterBlock(buf(dbl, 4), buf(dbl, 1), Sum)
		}, []string{"multiple"}},
		{"user function fails", func(c *Comm) error { return c.Allreduce(buf(dbl, 2), buf(dbl, 2), failing) },
			[]string{"the user function fails"}},
		{"slice op on a wrong size", func(c *Comm) error { return c.Allreduce(buf(dbl, 3), buf(dbl, 3), matmul) },
			[]string{"matmul2x2", "not a whole number"}},
	}
	for _, tc := range cases {
		errs := runRanks(t, 3, tc.fn)
		for r, err := range errs {
			if err == nil {
				t.Errorf("%s: rank %d: no error", tc.name, r)
				continue
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%s: rank %d: %v; want it to mention %q", tc.name, r, err, w)
				}
			}
		}
	}
	// the world is still usable: a correct reduction after the failures
	errs := runRanks(t, 3, func(c *Comm) error {
		if err := c.Allreduce(buf(dbl, 2), buf(dbl, 2), Band); err == nil {
			return errors.New("band on double succeeded")
		}
		b := buf(i32, 1)
		binary.NativeEndian.PutUint32(b.Data, uint32(c.Rank()+1))
		out := buf(i32, 1)
		if err := c.Allreduce(b, out, Sum); err != nil {
			return err
		}
		if got := binary.NativeEndian.Uint32(out.Data); got != 6 {
			return fmt.Errorf("sum %d, want 6", got)
		}
		return nil
	})
	for r, err := range errs {
		if err != nil {
			t.Errorf("rank %d: %v", r, err)
		}
	}
}

// TestInPlace: send and recv in the same memory.
func TestInPlace(t *testing.T) {
	i32 := commit(datatype.Of(datatype.Int), nil)
	for _, which := range []string{"allreduce", "scan", "reduce"} {
		errs := runRanks(t, 4, func(c *Comm) error {
			b := Buffer{Data: make([]byte, 8), Count: 2, Type: i32}
			binary.NativeEndian.PutUint32(b.Data, uint32(c.Rank()+1))
			binary.NativeEndian.PutUint32(b.Data[4:], 10)
			var err error
			want := []uint32{10, 40}
			switch which {
			case "allreduce":
				err = c.Allreduce(b, b, Sum)
			case "scan":
				err = c.Scan(b, b, Sum)
				k := uint32(c.Rank() + 1)
				want = []uint32{k * (k + 1) / 2, 10 * k}
			case "reduce":
				err = c.Reduce(b, b, Sum, 2)
				if c.Rank() != 2 {
					want = []uint32{uint32(c.Rank() + 1), 10}
				}
			}
			if err != nil {
				return err
			}
			if got := []uint32{binary.NativeEndian.Uint32(b.Data), binary.NativeEndian.Uint32(b.Data[4:])}; got[0] != want[0] || got[1] != want[1] {
				return fmt.Errorf("%s in place: %v, want %v", which, got, want)
			}
			return nil
		})
		for r, err := range errs {
			if err != nil {
				t.Errorf("rank %d: %v", r, err)
			}
		}
	}
}

// TestReduceLocalAliased: in and inout in the same or overlapping memory
// see in as it was before the call.
func TestReduceLocalAliased(t *testing.T) {
	i32 := commit(datatype.Of(datatype.Int), nil)
	b := make([]byte, 16)
	for i := range 4 {
		binary.NativeEndian.PutUint32(b[4*i:], uint32(i+1))
	}
	if err := ReduceLocal(Buffer{Data: b, Count: 4, Type: i32}, Buffer{Data: b, Count: 4, Type: i32}, Sum); err != nil {
		t.Fatal(err)
	}
	// in = elements 0..2, inout = elements 1..3 of the doubled values
	if err := ReduceLocal(Buffer{Data: b, Count: 3, Type: i32}, Buffer{Data: b, Origin: 4, Count: 3, Type: i32}, Sum); err != nil {
		t.Fatal(err)
	}
	want := []uint32{2, 6, 10, 14}
	for i, w := range want {
		if got := binary.NativeEndian.Uint32(b[4*i:]); got != w {
			t.Errorf("element %d is %d, want %d", i, got, w)
		}
	}
}

func TestNewOpArgs(t *testing.T) {
	if _, err := NewOp("", true, func([]byte, []byte, int64, *datatype.Type) error { return nil }); err == nil {
		t.Error("empty name accepted")
	}
	if _, err := NewOp("x", true, nil); err == nil {
		t.Error("nil function accepted")
	}
	if _, err := NewSliceOp("p", true, func(in, inout []*int) {}); err == nil {
		t.Error("pointer elements accepted")
	}
	type padded struct {
		A float64
		B int32
	}
	if _, err := NewSliceOp("p", true, func(in, inout []padded) {}); err == nil {
		t.Error("padded struct accepted")
	}
	if err := ReduceLocal(Buffer{}, Buffer{}, Sum); err == nil || !strings.Contains(err.Error(), "in") {
		t.Errorf("nil types: %v", err)
	}
}
