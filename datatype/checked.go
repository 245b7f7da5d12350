package datatype

import (
	"errors"
	"math/bits"
)

// errOverflow reports a size or bound that does not fit in int64.
var errOverflow = errors.New("int64 overflow")

func add(a, b int64) (int64, error) {
	c := a + b
	if (c > a) != (b > 0) {
		return 0, errOverflow
	}
	return c, nil
}

func mul(a, b int64) (int64, error) {
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

func absU(a int64) uint64 {
	if a < 0 {
		return uint64(-a)
	}
	return uint64(a)
}

// calc accumulates the first overflow of a chain of checked operations.
type calc struct{ err error }

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
	if b == -1<<63 {
		c.err = errOverflow
		return 0
	}
	return c.add(a, -b)
}

func (c *calc) mul(a, b int64) int64 {
	if c.err != nil {
		return 0
	}
	r, err := mul(a, b)
	c.err = err
	return r
}
