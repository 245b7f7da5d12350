package comm

import (
	"fmt"

	"github.com/ddtlab/ddt/datatype"
)

// header is what travels ahead of a message's data: the signature hash of
// its basic elements, their number and the packed size.
type header struct {
	hash     uint64
	elements int64
	bytes    int64
}

// check reports whether a message with header h may be received into count
// instances of t: ErrTruncate if it is longer, ErrType if its signature is
// not the prefix of t's signature of the same length.
func (h header) check(t *datatype.Type, count int64) error {
	capacity := count * t.Elements()
	if h.elements > capacity {
		return fmt.Errorf("%w: %d elements (%d bytes) arrived for a receive buffer of %d elements (%d x %s)",
			ErrTruncate, h.elements, h.bytes, capacity, count, t)
	}
	hash, bytes := prefix(t, count, h.elements)
	if hash != h.hash || bytes != h.bytes {
		return fmt.Errorf("%w: the %d elements that arrived do not match the first %d elements of %d x %s",
			ErrType, h.elements, h.elements, count, t)
	}
	return nil
}

func headerOf(t *datatype.Type, count int64) header {
	hash, bytes := prefix(t, count, count*t.Elements())
	return header{hash: hash, elements: count * t.Elements(), bytes: bytes}
}
