package comm

import (
	"errors"
	"fmt"

	"github.com/ddtlab/ddt"
	"github.com/ddtlab/ddt/datatype"
	"github.com/ddtlab/ddt/sig"
)

// header is what travels ahead of a message's data: the signature of its
// basic elements (hash and number) and the packed size.
type header struct {
	sig   sig.Sig
	bytes int64
}

// check reports whether a message with header h may be received into count
// instances of t: ErrTruncate if it is longer, ErrType if its signature is
// not the prefix of t's signature of the same length.
func (h header) check(t *datatype.Type, count int64) error {
	err := sig.Match(h.sig, t, count)
	if err == nil {
		return nil
	}
	var te *sig.TruncationError
	if errors.As(err, &te) {
		return fmt.Errorf("%w: %d elements (%d bytes) arrived for a receive buffer of %d elements (%d x %s)",
			ErrTruncate, te.Sent, h.bytes, te.Capacity, count, t)
	}
	return fmt.Errorf("%w: %v", ErrType, err)
}

// headerOf is the header of a message of count instances of t, using the
// signature computed when t was committed.
func headerOf(t *ddt.Committed, count, bytes int64) (header, error) {
	s, err := t.MessageSignature(count)
	if err != nil {
		return header{}, err
	}
	return header{sig: s, bytes: bytes}, nil
}
