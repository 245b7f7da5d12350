package external32

import (
	"encoding/binary"

	"github.com/ddtlab/ddt/datatype"
)

var le, be = binary.LittleEndian, binary.BigEndian

// BasicSize is the size in bytes of one element of b in external32.
func BasicSize(b datatype.Basic) int64 {
	switch b {
	case datatype.Long, datatype.UnsignedLong:
		return 4
	case datatype.WChar:
		return 2
	}
	return b.Size()
}

// maxElem is the largest native or external element size.
const maxElem = 32

// encode converts k elements of b from their native bytes in src to
// external32 in dst. src and dst may be the same slice when the sizes are
// equal.
func encode(b datatype.Basic, dst, src []byte, k int64) {
	ns, es := b.Size(), BasicSize(b)
	switch {
	case b == datatype.LongDouble || b == datatype.CLongDoubleComplex:
		for i := range k * ns / 16 {
			x87ToQuad(dst[i*16:i*16+16], src[i*16:i*16+16])
		}
	case ns == 1:
		copy(dst[:k], src[:k])
	case b == datatype.Long || b == datatype.UnsignedLong:
		for i := range k {
			be.PutUint32(dst[i*4:], uint32(le.Uint64(src[i*8:])))
		}
	case b == datatype.WChar:
		for i := range k {
			be.PutUint16(dst[i*2:], uint16(le.Uint32(src[i*4:])))
		}
	default:
		swapWords(dst[:k*es], src[:k*ns], wordSize(b))
	}
}

// decode converts k elements of b from external32 in src to native bytes in
// dst.
func decode(b datatype.Basic, dst, src []byte, k int64) {
	ns := b.Size()
	switch {
	case b == datatype.LongDouble || b == datatype.CLongDoubleComplex:
		for i := range k * ns / 16 {
			quadToX87(dst[i*16:i*16+16], src[i*16:i*16+16])
		}
	case ns == 1:
		copy(dst[:k], src[:k])
	case b == datatype.Long:
		for i := range k {
			le.PutUint64(dst[i*8:], uint64(int64(int32(be.Uint32(src[i*4:])))))
		}
	case b == datatype.UnsignedLong:
		for i := range k {
			le.PutUint64(dst[i*8:], uint64(be.Uint32(src[i*4:])))
		}
	case b == datatype.WChar:
		for i := range k {
			le.PutUint32(dst[i*4:], uint32(be.Uint16(src[i*2:])))
		}
	default:
		swapWords(dst[:k*ns], src[:k*ns], wordSize(b))
	}
}

// wordSize is the size of the numbers whose bytes are reversed: the size of
// b, or half of it for complex types.
func wordSize(b datatype.Basic) int64 {
	switch b {
	case datatype.CFloatComplex, datatype.CDoubleComplex:
		return b.Size() / 2
	}
	return b.Size()
}

// swapWords reverses the bytes of each w-byte word of src into dst (which may
// be src).
func swapWords(dst, src []byte, w int64) {
	n := int64(len(src))
	switch w {
	case 2:
		for i := int64(0); i+2 <= n; i += 2 {
			be.PutUint16(dst[i:], le.Uint16(src[i:]))
		}
	case 4:
		for i := int64(0); i+4 <= n; i += 4 {
			be.PutUint32(dst[i:], le.Uint32(src[i:]))
		}
	case 8:
		for i := int64(0); i+8 <= n; i += 8 {
			be.PutUint64(dst[i:], le.Uint64(src[i:]))
		}
	default:
		panic("external32: bad word size")
	}
}

// x87ToQuad converts an x87 extended-precision number (10 significant bytes
// of a 16-byte little-endian slot) to big-endian IEEE binary128, as
// (__float128)x does with GCC's libgcc on x86-64: the sign and the 15-bit
// exponent are kept (both formats have the same bias), the explicit integer
// bit is dropped (also for pseudo-denormals and unnormals, as libgcc does)
// and the 63 fraction bits become the top of the 112-bit fraction.
// Signalling NaNs become quiet.
func x87ToQuad(dst, src []byte) {
	m := le.Uint64(src[0:8])
	se := le.Uint16(src[8:10])
	exp := se & 0x7fff
	frac := m &^ (1 << 63)
	if exp == 0x7fff && frac != 0 {
		frac |= 1 << 62 // quiet the NaN
	}
	// 112-bit fraction: bits 111..49 are frac's 63 bits.
	hi := uint64(se&0x8000|exp)<<48 | frac>>15
	lo := frac << 49
	be.PutUint64(dst[0:8], hi)
	be.PutUint64(dst[8:16], lo)
}

// quadToX87 converts big-endian IEEE binary128 to an x87 extended-precision
// number in a 16-byte little-endian slot, as (long double)q does with GCC's
// libgcc on x86-64: the fraction is rounded to 63 bits to nearest, ties to
// even; a carry out of the fraction increments the exponent (up to
// infinity). NaNs stay NaNs, made quiet. The 6 padding bytes are zeroed.
func quadToX87(dst, src []byte) {
	hi := be.Uint64(src[0:8])
	lo := be.Uint64(src[8:16])
	sign := uint16(hi>>48) & 0x8000
	exp := uint16(hi>>48) & 0x7fff
	fhi := hi & (1<<48 - 1) // fraction bits 111..64
	// the top 63 bits of the fraction, and the 49 bits below them
	top := fhi<<15 | lo>>49
	rest := lo & (1<<49 - 1)
	var m uint64
	switch {
	case exp == 0x7fff:
		if fhi|lo == 0 {
			m = 1 << 63 // infinity
		} else {
			m = 1<<63 | 1<<62 | top // quiet NaN, payload truncated
		}
	default:
		const half = 1 << 48
		if rest > half || rest == half && top&1 == 1 {
			top++
		}
		if top == 1<<63 { // the fraction overflowed: next binade
			top = 0
			exp++
		}
		m = top
		if exp != 0 {
			m |= 1 << 63
		}
		if exp == 0x7fff {
			m = 1 << 63
		}
	}
	le.PutUint64(dst[0:8], m)
	le.PutUint16(dst[8:10], sign|exp)
	clear(dst[10:16])
}
