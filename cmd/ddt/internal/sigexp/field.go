package sigexp

import "math/bits"

// The field of package sig, restated for the experiment's own operator
// (ours): arithmetic modulo the Mersenne prime 2^61 − 1 and sig's fixed
// base x. TestOperators checks that ours hashes like sig.Of.
const (
	prime        = 1<<61 - 1
	base  uint64 = 0x1cfe3cbdafc638b6
)

// mulmod returns a·b mod 2^61 − 1 for a, b < 2^61.
func mulmod(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
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

// powx returns x^n for n ≥ 0.
func powx(n int64) uint64 {
	r, p := uint64(1), base
	for u := uint64(n); u != 0; u >>= 1 {
		if u&1 != 0 {
			r = mulmod(r, p)
		}
		p = mulmod(p, p)
	}
	return r
}
