package datatype

import (
	"errors"
	"math/bits"
)

// ErrOverflow is wrapped by the *ArgError of a constructor whose sizes,
// bounds or extents do not fit in int64: errors.Is(err, ErrOverflow).
var ErrOverflow = errors.New("int64 overflow")

// errOverflow is the internal name of ErrOverflow.
var errOverflow = ErrOverflow

func add(a, b int64) (int64, error) {
	c := a + b
	if (c > a) != (b > 0) {
		return 0, errOverflow
	}
	return c, nil
}

func sub(a, b int64) (int64, error) {
	c := a - b
	if (c < a) != (b > 0) {
		return 0, errOverflow
	}
	return c, nil
}

func mul(a, b int64) (int64, error) {
	if smallPair(a, b) {
		return a * b, nil // |a·b| < 2^62: no overflow (the usual case, inlined)
	}
	return mulWide(a, b)
}

// smallPair reports whether a and b both lie in [-2^31, 2^31).
func smallPair(a, b int64) bool { return uint64(a+1<<31)|uint64(b+1<<31) < 1<<32 }

// mulWide is mul for operands that may overflow.
func mulWide(a, b int64) (int64, error) {
	if a == 0 || b == 0 {
		return 0, nil
	}
	neg := (a < 0) != (b < 0)
	ua, ub := absU(a), absU(b)
	hi, lo := bits.Mul64(ua, ub)
	if hi != 0 {
		return 0, errOverflow
	}
	if neg {
		if lo > 1<<63 {
			return 0, errOverflow
		}
		return int64(-lo), nil
	}
	if lo > 1<<63-1 {
		return 0, errOverflow
	}
	return int64(lo), nil
}

// absU is |a| as a uint64; it is exact for every int64, MinInt64 included.
func absU(a int64) uint64 {
	if a < 0 {
		return uint64(-a) // for MinInt64, -a wraps to MinInt64, whose uint64 is 2^63
	}
	return uint64(a)
}

// calc accumulates the first overflow of a chain of checked operations and
// what was being computed when it happened (set with at), for the error.
type calc struct {
	err  error
	what string
}

// at names the quantity the following operations compute, unless an
// overflow has already happened.
func (c *calc) at(what string) {
	if c.err == nil {
		c.what = what
	}
}

func (c *calc) add(a, b int64) int64 {
	if c.err != nil {
		return 0
	}
	r, err := add(a, b)
	c.err = err
	return r
}

func (c *calc) sub(a, b int64) int64 {
	if c.err != nil {
		return 0
	}
	r, err := sub(a, b)
	c.err = err
	return r
}

func (c *calc) mul(a, b int64) int64 {
	if uint64(a|b) < 1<<31 {
		// both in [0, 2^31): no overflow (after an overflow the caller
		// reports k.err and ignores the values)
		return a * b
	}
	return c.mulWide(a, b)
}

func (c *calc) mulWide(a, b int64) int64 {
	if c.err != nil {
		return 0
	}
	r, err := mulWide(a, b)
	c.err = err
	return r
}
