package sig

import (
	"math/bits"

	"github.com/ddtlab/ddt/datatype"
)

// prime is the Mersenne prime 2^61 − 1, the modulus of all hash arithmetic.
const prime = 1<<61 - 1

// base is the fixed evaluation point x of the polynomial hash: a random
// primitive root modulo prime (so x^n runs through all 2^61 − 2 nonzero
// residues before repeating). It is part of the signature format: never
// change it.
const base uint64 = 0x1cfe3cbdafc638b6

// ByteCode is the reserved code of MPI_BYTE: −1 modulo 2^61 − 1, after the
// reserved value (0xFFFFFFFF, −1) that seed 004 §4 suggests for MPI_BYTE.
const ByteCode uint64 = prime - 1

// codes are the fixed random 61-bit codes of the basic types, drawn once
// from crypto/rand (MPI_BYTE excepted, see ByteCode). They are part of the
// signature format: never change or reorder them; append codes for new
// basic types.
var codes = [...]uint64{
	datatype.Char:               0x0f9c7fb95058efc3,
	datatype.SignedChar:         0x1a2fe85bc8daff56,
	datatype.UnsignedChar:       0x08ab359e2140159d,
	datatype.Byte:               ByteCode,
	datatype.CBool:              0x07c1f1173dec1cc8,
	datatype.Int8:               0x1d6f949f22496d01,
	datatype.Uint8:              0x09e18e04bcb022c6,
	datatype.Short:              0x1db520fa186594f9,
	datatype.UnsignedShort:      0x15afcc063b11a3af,
	datatype.Int16:              0x0cdab9cd293c1abb,
	datatype.Uint16:             0x0e5c1a012fab956d,
	datatype.Int:                0x04a4021a18843452,
	datatype.Unsigned:           0x121b8d5606756b53,
	datatype.Float:              0x0947a20be85c1a5c,
	datatype.WChar:              0x0ed106d222562478,
	datatype.Int32:              0x118cb2c0532b282e,
	datatype.Uint32:             0x194ebc8e024ceca2,
	datatype.Long:               0x07dddb68cd8ca409,
	datatype.UnsignedLong:       0x1b89ae50a501edb0,
	datatype.LongLong:           0x0189e945e2db1fa9,
	datatype.UnsignedLongLong:   0x07334a06724768e4,
	datatype.Double:             0x0174f69a012a7660,
	datatype.Int64:              0x0d56a2e546774f4f,
	datatype.Uint64:             0x09344d58f0521c3b,
	datatype.Aint:               0x0edfcca429171f2f,
	datatype.Offset:             0x01c7089fb1703427,
	datatype.Count:              0x029327b18576d87c,
	datatype.CFloatComplex:      0x0e55e4987d471224,
	datatype.LongDouble:         0x082808747b244e79,
	datatype.CDoubleComplex:     0x1b56801da9763dc7,
	datatype.CLongDoubleComplex: 0x1332194daf22f28b,
}

// Code returns the 61-bit code of basic type b (the hash of the signature
// (b)), or 0 if b is not a basic type.
func Code(b datatype.Basic) uint64 {
	if int(b) >= len(codes) {
		return 0
	}
	return codes[b]
}

// mulmod returns a·b mod 2^61 − 1 for a, b < 2^61.
func mulmod(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	// a·b = hi·2^64 + lo = (hi·8 + lo>>61)·2^61 + lo&prime, and 2^61 ≡ 1.
	r := (lo & prime) + (lo>>61 | hi<<3)
	if r >= prime {
		r -= prime
	}
	return r
}

// addmod returns a + b mod 2^61 − 1 for a, b < 2^61 − 1.
func addmod(a, b uint64) uint64 {
	r := a + b
	if r >= prime {
		r -= prime
	}
	return r
}

// basePow[i] is x^(2^i).
var basePow [63]uint64

func init() {
	basePow[0] = base
	for i := 1; i < len(basePow); i++ {
		basePow[i] = mulmod(basePow[i-1], basePow[i-1])
	}
}

// powx returns x^n for n ≥ 0 with at most 63 multiplications.
func powx(n int64) uint64 {
	r := uint64(1)
	for u, i := uint64(n), 0; u != 0; u, i = u>>1, i+1 {
		if u&1 != 0 {
			r = mulmod(r, basePow[i])
		}
	}
	return r
}
