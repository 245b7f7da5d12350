package sig

import (
	"errors"
	"fmt"
	"math"

	"github.com/ddtlab/ddt/datatype"
)

// Sig is the hashed type signature of a sequence of basic elements: the
// monoid element (Hash, N) of seed 004 §3 with ⊕ defined as
//
//	(α, n) ⊕ (β, m) = (α + β·x^n mod 2^61−1, n + m),
//
// plus an exact record of uniformity (all elements of one basic type), the
// common case of seed 004 Fig. 1, which comparisons decide exactly.
//
// The zero Sig is the signature of the empty sequence and the identity of
// Combine. Sigs computed by this package can be compared with ==: equal
// sequences give equal Sigs. Use Same to learn whether a comparison was
// exact.
type Sig struct {
	// Hash is Σ code(b_i)·x^(i−1) mod 2^61−1 over the elements b_1..b_N.
	Hash uint64
	// N is the number of basic elements (MPI_Get_elements).
	N int64
	// Uniform reports that N > 0 and every element is of basic type Basic.
	// It is exact: false means the sequence is empty or mixes basic types.
	Uniform bool
	// Basic is the basic type of every element when Uniform, otherwise 0.
	Basic datatype.Basic
}

// ErrOverflow is returned when an element count does not fit in int64.
var ErrOverflow = errors.New("sig: element count overflows int64")

// val is the internal form of a Sig: it also carries x^n, so that ⊕ costs
// two multiplications.
type val struct {
	h, xn uint64 // hash and x^n
	n     int64
	u     uint8 // 0 empty, 1+b uniform of basic b, mixed otherwise
}

const mixed = 0xff

var identity = val{xn: 1}

func leaf(b datatype.Basic) val {
	return val{h: codes[b], xn: base, n: 1, u: uint8(b) + 1}
}

// combine is a ⊕ b; the caller guarantees that a.n + b.n fits in int64.
func combine(a, b val) val {
	if a.n == 0 {
		return b
	}
	if b.n == 0 {
		return a
	}
	u := a.u
	if u != b.u {
		u = mixed
	}
	return val{h: addmod(a.h, mulmod(b.h, a.xn)), xn: mulmod(a.xn, b.xn), n: a.n + b.n, u: u}
}

// repeat is a ⊕ a ⊕ … (c times), by doubling: O(log c) multiplications. The
// caller guarantees c ≥ 0 and that a.n·c fits in int64; no intermediate
// value exceeds the result.
func repeat(a val, c int64) val {
	if c <= 0 || a.n == 0 {
		return identity
	}
	r := identity
	for {
		if c&1 != 0 {
			r = combine(r, a)
		}
		c >>= 1
		if c == 0 {
			return r
		}
		a = combine(a, a)
	}
}

func (v val) sig() Sig {
	s := Sig{Hash: v.h, N: v.n}
	if v.n > 0 && v.u != mixed && v.u != 0 {
		s.Uniform, s.Basic = true, datatype.Basic(v.u-1)
	}
	return s
}

// val converts a valid Sig to its internal form.
func (s Sig) val() val {
	if s.N == 0 {
		return identity
	}
	v := val{h: s.Hash, xn: powx(s.N), n: s.N, u: mixed}
	if s.Uniform {
		v.u = uint8(s.Basic) + 1
	}
	return v
}

// Valid reports whether s is a signature this package could have computed:
// Hash below 2^61−1, N ≥ 0, the empty signature all zero, and a Uniform
// signature's hash that of N elements of Basic. A signature received from
// another process is user input: check it before use.
func (s Sig) Valid() error {
	switch {
	case s.Hash >= prime:
		return fmt.Errorf("sig: hash %#x is not below 2^61-1", s.Hash)
	case s.N < 0:
		return fmt.Errorf("sig: negative element count %d", s.N)
	case s.N == 0 && (s.Hash != 0 || s.Uniform || s.Basic != 0):
		return errors.New("sig: empty signature with nonzero fields")
	case !s.Uniform && s.Basic != 0:
		return errors.New("sig: basic type set on a signature that is not uniform")
	case s.Uniform && int(s.Basic) >= datatype.NumBasic:
		return fmt.Errorf("sig: unknown basic type %d", s.Basic)
	case s.Uniform && repeat(leaf(s.Basic), s.N).h != s.Hash:
		return fmt.Errorf("sig: hash %#x is not that of %d × %v", s.Hash, s.N, s.Basic)
	}
	return nil
}

// OfBasic is the signature of one element of basic type b, or the empty
// signature if b is not a basic type.
func OfBasic(b datatype.Basic) Sig {
	if int(b) >= datatype.NumBasic {
		return Sig{}
	}
	return leaf(b).sig()
}

// Combine is s ⊕ t, the signature of s's elements followed by t's. It is
// associative and not commutative, and the zero Sig is its identity. The
// error is ErrOverflow if s.N + t.N does not fit in int64.
func (s Sig) Combine(t Sig) (Sig, error) {
	if s.N > math.MaxInt64-t.N {
		return Sig{}, ErrOverflow
	}
	return combine(s.val(), t.val()).sig(), nil
}

// Repeat is s ⊕ s ⊕ … ⊕ s, count times, computed in O(log count) by
// doubling (the geometric series Σ x^(i·N), i < count). The error is
// ErrOverflow if N·count does not fit in int64, or an error for a negative
// count.
func (s Sig) Repeat(count int64) (Sig, error) {
	if count < 0 {
		return Sig{}, fmt.Errorf("sig: negative count %d", count)
	}
	if _, ok := mul(s.N, count); !ok {
		return Sig{}, ErrOverflow
	}
	return repeat(s.val(), count).sig(), nil
}

// Same reports whether s and t are the signatures of the same sequence, and
// whether that answer is exact. It is exact whenever either is uniform (the
// (count, basic type) case of seed 004 Fig. 1, compared without the hash),
// or the element counts differ; otherwise the hashes are compared, and two
// different sequences of at most n elements collide with probability at
// most n/(2^61−1) over the choice of x.
func (s Sig) Same(t Sig) (same, exact bool) {
	switch {
	case s.N != t.N:
		return false, true
	case s.Uniform || t.Uniform:
		return s.Uniform == t.Uniform && s.Basic == t.Basic, true
	case s.N == 0:
		return true, true
	}
	return s.Hash == t.Hash, false
}

// String describes s, for example "1a2b3c4d5e6f7081/12" or
// "0174f69a012a7660/3×double" for a uniform signature.
func (s Sig) String() string {
	if s.Uniform {
		return fmt.Sprintf("%s/%d×%v", Format(s), s.N, s.Basic)
	}
	return fmt.Sprintf("%s/%d", Format(s), s.N)
}

// Format is the hash of s as 16 lower-case hex digits, the HASH column of
// `ddt sig` and the signature of `ddt show`.
func Format(s Sig) string { return fmt.Sprintf("%016x", s.Hash) }

// mul returns a·b for a, b ≥ 0 and whether it fits in int64.
func mul(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	if a > math.MaxInt64/b {
		return 0, false
	}
	return a * b, true
}
