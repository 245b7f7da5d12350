package comm

import (
	"encoding/binary"
	"fmt"
	"math/big"
	"unsafe"

	"github.com/ddtlab/ddt/datatype"
)

// The kernels of the predefined operations work on packed element runs:
// in and inout hold the same number of elements of one basic type, in
// native byte order, possibly unaligned (a run may start at any byte of a
// packed stream); aligned runs are viewed in place, others are copied in
// chunks through aligned scratch arrays.

type integer interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64
}

type float interface{ ~float32 | ~float64 }

type cplx interface{ ~complex64 | ~complex128 }

// applyRun sets inout = in ∘ inout for the predefined operation k over
// elements of basic type b.
func applyRun(k opKind, b datatype.Basic, in, inout []byte) error {
	switch b {
	case datatype.SignedChar, datatype.Int8:
		return runOf(in, inout, intKernel[int8](k))
	case datatype.UnsignedChar, datatype.Uint8, datatype.Byte, datatype.CBool:
		return runOf(in, inout, intKernel[uint8](k))
	case datatype.Short, datatype.Int16:
		return runOf(in, inout, intKernel[int16](k))
	case datatype.UnsignedShort, datatype.Uint16:
		return runOf(in, inout, intKernel[uint16](k))
	case datatype.Int, datatype.Int32:
		return runOf(in, inout, intKernel[int32](k))
	case datatype.Unsigned, datatype.Uint32:
		return runOf(in, inout, intKernel[uint32](k))
	case datatype.Long, datatype.LongLong, datatype.Int64, datatype.Aint, datatype.Offset, datatype.Count:
		return runOf(in, inout, intKernel[int64](k))
	case datatype.UnsignedLong, datatype.UnsignedLongLong, datatype.Uint64:
		return runOf(in, inout, intKernel[uint64](k))
	case datatype.Float:
		return runOf(in, inout, floatKernel[float32](k))
	case datatype.Double:
		return runOf(in, inout, floatKernel[float64](k))
	case datatype.CFloatComplex:
		return runOf(in, inout, cplxKernel[complex64](k))
	case datatype.CDoubleComplex:
		return runOf(in, inout, cplxKernel[complex128](k))
	case datatype.LongDouble:
		for i := 0; i+16 <= len(inout); i += 16 {
			f80op(k, in[i:i+10], inout[i:i+10])
		}
		return nil
	case datatype.CLongDoubleComplex:
		for i := 0; i+32 <= len(inout); i += 32 {
			c80op(k, in[i:i+32], inout[i:i+32])
		}
		return nil
	}
	return fmt.Errorf("no kernel for %s", b)
}

// runOf applies f to in and inout viewed as slices of T.
func runOf[T any](in, inout []byte, f func(in, inout []T)) error {
	if f == nil {
		return fmt.Errorf("operation not defined on %T", *new(T))
	}
	var z T
	size := int(unsafe.Sizeof(z))
	align := uintptr(unsafe.Alignof(z))
	n := len(inout) / size
	if n == 0 {
		return nil
	}
	if uintptr(unsafe.Pointer(&in[0]))%align == 0 && uintptr(unsafe.Pointer(&inout[0]))%align == 0 {
		f(unsafe.Slice((*T)(unsafe.Pointer(&in[0])), n), unsafe.Slice((*T)(unsafe.Pointer(&inout[0])), n))
		return nil
	}
	const chunk = 256
	var a, b [chunk]T
	ab := unsafe.Slice((*byte)(unsafe.Pointer(&a[0])), chunk*size)
	bb := unsafe.Slice((*byte)(unsafe.Pointer(&b[0])), chunk*size)
	for i := 0; i < n; i += chunk {
		m := min(chunk, n-i)
		copy(ab, in[i*size:(i+m)*size])
		copy(bb, inout[i*size:(i+m)*size])
		f(a[:m], b[:m])
		copy(inout[i*size:(i+m)*size], bb[:m*size])
	}
	return nil
}

func truth[T integer](v bool) T {
	if v {
		return 1
	}
	return 0
}

// arithKernel is the kernel of the operations integers and floating-point
// numbers share (nil for the others).
func arithKernel[T integer | float](k opKind) func(in, inout []T) {
	switch k {
	case opSum:
		return func(in, inout []T) {
			for i := range inout {
				inout[i] = in[i] + inout[i]
			}
		}
	case opProd:
		return func(in, inout []T) {
			for i := range inout {
				inout[i] = in[i] * inout[i]
			}
		}
	case opMin:
		return func(in, inout []T) {
			for i := range inout {
				inout[i] = min(in[i], inout[i])
			}
		}
	case opMax:
		return func(in, inout []T) {
			for i := range inout {
				inout[i] = max(in[i], inout[i])
			}
		}
	}
	return nil
}

func intKernel[T integer](k opKind) func(in, inout []T) {
	switch k {
	case opLand:
		return func(in, inout []T) {
			for i := range inout {
				inout[i] = truth[T](in[i] != 0 && inout[i] != 0)
			}
		}
	case opLor:
		return func(in, inout []T) {
			for i := range inout {
				inout[i] = truth[T](in[i] != 0 || inout[i] != 0)
			}
		}
	case opLxor:
		return func(in, inout []T) {
			for i := range inout {
				inout[i] = truth[T]((in[i] != 0) != (inout[i] != 0))
			}
		}
	case opBand:
		return func(in, inout []T) {
			for i := range inout {
				inout[i] = in[i] & inout[i]
			}
		}
	case opBor:
		return func(in, inout []T) {
			for i := range inout {
				inout[i] = in[i] | inout[i]
			}
		}
	case opBxor:
		return func(in, inout []T) {
			for i := range inout {
				inout[i] = in[i] ^ inout[i]
			}
		}
	}
	return arithKernel[T](k)
}

func floatKernel[T float](k opKind) func(in, inout []T) { return arithKernel[T](k) }

func cplxKernel[T cplx](k opKind) func(in, inout []T) {
	switch k {
	case opSum:
		return func(in, inout []T) {
			for i := range inout {
				inout[i] = in[i] + inout[i]
			}
		}
	case opProd:
		return func(in, inout []T) {
			for i := range inout {
				inout[i] = in[i] * inout[i]
			}
		}
	}
	return nil
}

// locPair applies Minloc (max false) or Maxloc to one packed (value, int)
// pair of value type v: the better value wins; on a tie, the smaller
// index (MPI-4.1 §6.9.4).
func locPair(max bool, v datatype.Basic, in, inout []byte) {
	vs := v.Size()
	c := cmpValue(v, in[:vs], inout[:vs]) // in vs inout
	if max {
		c = -c
	}
	ia := int32(binary.NativeEndian.Uint32(in[vs:]))
	ib := int32(binary.NativeEndian.Uint32(inout[vs:]))
	switch {
	case c < 0:
		copy(inout, in[:vs+4])
	case c == 0 && ia < ib:
		binary.NativeEndian.PutUint32(inout[vs:], uint32(ia))
	}
}

// cmpValue compares two packed values of basic type v: -1, 0 or +1 (0
// also when either is a NaN).
func cmpValue(v datatype.Basic, a, b []byte) int {
	sign := func(x, y float64) int {
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	}
	ne := binary.NativeEndian
	switch v {
	case datatype.Float:
		return sign(float64(fromBits32(ne.Uint32(a))), float64(fromBits32(ne.Uint32(b))))
	case datatype.Double:
		return sign(fromBits64(ne.Uint64(a)), fromBits64(ne.Uint64(b)))
	case datatype.Long:
		x, y := int64(ne.Uint64(a)), int64(ne.Uint64(b))
		return cmpInt(x, y)
	case datatype.Int:
		return cmpInt(int64(int32(ne.Uint32(a))), int64(int32(ne.Uint32(b))))
	case datatype.Short:
		return cmpInt(int64(int16(ne.Uint16(a))), int64(int16(ne.Uint16(b))))
	case datatype.LongDouble:
		x, y := f80decode(a), f80decode(b)
		if x == nil || y == nil {
			return 0
		}
		return x.Cmp(y)
	}
	return 0
}

func cmpInt(x, y int64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

func fromBits32(u uint32) float32 { return *(*float32)(unsafe.Pointer(&u)) }
func fromBits64(u uint64) float64 { return *(*float64)(unsafe.Pointer(&u)) }

// The x87 80-bit extended format of C's long double on x86-64: 64-bit
// significand with an explicit integer bit, 15-bit exponent (bias 16383),
// sign; little-endian in the first 10 of 16 bytes. Go has no such type:
// values are decoded exactly into big.Float, combined at 64-bit
// precision with round-to-nearest-even, and encoded back.

const f80prec = 64

// f80decode returns the value of an 80-bit float, or nil for a NaN.
// Infinities are big.Float infinities.
func f80decode(b []byte) *big.Float {
	mant := binary.LittleEndian.Uint64(b)
	se := binary.LittleEndian.Uint16(b[8:])
	neg := se&0x8000 != 0
	exp := int(se & 0x7fff)
	f := new(big.Float).SetPrec(f80prec)
	if exp == 0x7fff {
		if mant<<1 != 0 {
			return nil
		}
		return f.SetInf(neg)
	}
	if exp == 0 {
		exp = 1 // denormal
	}
	f.SetUint64(mant)
	f.SetMantExp(f, exp-16383-63)
	if neg {
		f.Neg(f)
	}
	return f
}

// f80encode writes f (nil: a NaN) as an 80-bit float into b.
func f80encode(b []byte, f *big.Float) {
	ne := binary.LittleEndian
	if f == nil {
		ne.PutUint64(b, 0xC000000000000000)
		ne.PutUint16(b[8:], 0x7fff)
		return
	}
	var se uint16
	if f.Signbit() {
		se = 0x8000
	}
	if f.IsInf() {
		ne.PutUint64(b, 1<<63)
		ne.PutUint16(b[8:], se|0x7fff)
		return
	}
	if f.Sign() == 0 {
		ne.PutUint64(b, 0)
		ne.PutUint16(b[8:], se)
		return
	}
	g := new(big.Float).SetPrec(f80prec).SetMode(big.ToNearestEven).Abs(f)
	e := g.MantExp(nil) + 16382 // biased exponent of g = m × 2^(e-16383-63), m with its top bit set
	if e <= 0 {
		// subnormal: only 63+e significand bits remain
		bits := 63 + e
		if bits <= 0 {
			ne.PutUint64(b, 0)
			ne.PutUint16(b[8:], se)
			return
		}
		g.SetPrec(uint(bits))
		e = 0
	}
	if e >= 0x7fff {
		ne.PutUint64(b, 1<<63)
		ne.PutUint16(b[8:], se|0x7fff)
		return
	}
	scale := e
	if scale == 0 {
		scale = 1
	}
	m, _ := new(big.Float).SetMantExp(g, -(scale - 16383 - 63)).Uint64()
	if e == 0 && m >= 1<<63 {
		e = 1 // rounded up to the smallest normal
	}
	ne.PutUint64(b, m)
	ne.PutUint16(b[8:], se|uint16(e))
}

// f80op sets inout = in ∘ inout on one 80-bit float.
func f80op(k opKind, in, inout []byte) {
	x, y := f80decode(in), f80decode(inout)
	if x == nil || y == nil {
		if k == opSum || k == opProd {
			f80encode(inout, nil)
		}
		return
	}
	switch k {
	case opSum:
		if x.IsInf() && y.IsInf() && x.Signbit() != y.Signbit() {
			f80encode(inout, nil)
			return
		}
		f80encode(inout, new(big.Float).SetPrec(f80prec).Add(x, y))
	case opProd:
		if (x.IsInf() && y.Sign() == 0) || (y.IsInf() && x.Sign() == 0) {
			f80encode(inout, nil)
			return
		}
		f80encode(inout, new(big.Float).SetPrec(f80prec).Mul(x, y))
	case opMin:
		if x.Cmp(y) < 0 {
			copy(inout, in)
		}
	case opMax:
		if x.Cmp(y) > 0 {
			copy(inout, in)
		}
	}
}

// c80op sets inout = in ∘ inout on one complex long double (two 80-bit
// floats in 16 bytes each): Sum componentwise, Prod (a+bi)(c+di) with
// each product and sum rounded to 64 bits.
func c80op(k opKind, in, inout []byte) {
	if k == opSum {
		f80op(opSum, in[:10], inout[:10])
		f80op(opSum, in[16:26], inout[16:26])
		return
	}
	a, b, c, d := f80decode(in), f80decode(in[16:]), f80decode(inout), f80decode(inout[16:])
	if a == nil || b == nil || c == nil || d == nil || a.IsInf() || b.IsInf() || c.IsInf() || d.IsInf() {
		f80encode(inout, nil)
		f80encode(inout[16:], nil)
		return
	}
	nf := func() *big.Float { return new(big.Float).SetPrec(f80prec) }
	re := nf().Sub(nf().Mul(a, c), nf().Mul(b, d))
	im := nf().Add(nf().Mul(a, d), nf().Mul(b, c))
	f80encode(inout, re)
	f80encode(inout[16:], im)
}
