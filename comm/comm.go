package comm

import (
	"context"
	"errors"
	"fmt"

	"github.com/ddtlab/ddt"
	"github.com/ddtlab/ddt/comm/internal/match"
	"github.com/ddtlab/ddt/sig"
)

// Wildcards for Recv, Irecv and Probe.
const (
	AnySource = match.AnySource
	AnyTag    = match.AnyTag
)

// Undefined is what Status.Count returns when the message is not a whole
// number of instances of the type (MPI_UNDEFINED).
const Undefined = -1

// Errors a receive can fail with; test with errors.Is.
var (
	ErrType     = errors.New("type signature mismatch") // MPI_ERR_TYPE
	ErrTruncate = errors.New("message truncated")       // MPI_ERR_TRUNCATE
)

// Communicator is the API that every transport implements: the
// in-process ranks of a World (*Comm) and, with build tag mpi, real MPI
// (package comm/mpi). Programs written against it run on either.
type Communicator interface {
	// Rank is this rank's number, Size the number of ranks.
	Rank() int
	Size() int
	Send(buf Buffer, dest, tag int) error
	Recv(buf Buffer, source, tag int) (Status, error)
	Isend(buf Buffer, dest, tag int) (*Request, error)
	Irecv(buf Buffer, source, tag int) (*Request, error)
	Probe(source, tag int) (Status, error)
	Iprobe(source, tag int) (st Status, ok bool, err error)
	Sendrecv(sbuf Buffer, dest, stag int, rbuf Buffer, source, rtag int) (Status, error)
	// SendContext, RecvContext and ProbeContext are the blocking calls
	// that give up when ctx is done (see Request.WaitContext).
	SendContext(ctx context.Context, buf Buffer, dest, tag int) error
	RecvContext(ctx context.Context, buf Buffer, source, tag int) (Status, error)
	ProbeContext(ctx context.Context, source, tag int) (Status, error)
	Collectives
}

var _ Communicator = (*Comm)(nil)

// Status describes a received (or probed) message.
type Status struct {
	Source, Tag int
	bytes       int64
	elements    int64
}

// Bytes is the number of packed bytes of the message.
func (s Status) Bytes() int64 { return s.bytes }

// Count is MPI_Get_count: the number of whole instances of t the message
// holds, or Undefined.
func (s Status) Count(t *ddt.Committed) int64 {
	size := t.Type().Size()
	if size == 0 {
		if s.bytes == 0 {
			return 0
		}
		return Undefined
	}
	if s.bytes%size != 0 {
		return Undefined
	}
	return s.bytes / size
}

// Elements is MPI_Get_elements: the number of basic elements received.
func (s Status) Elements() int64 { return s.elements }

// NewStatus returns a Status, for other transports of this API.
func NewStatus(source, tag int, bytes, elements int64) Status {
	return Status{Source: source, Tag: tag, bytes: bytes, elements: elements}
}

// Buffer is a typed buffer: count instances of Type in Data, with instance
// 0's origin at byte Origin of Data.
type Buffer struct {
	Data   []byte
	Origin int64
	Count  int64
	Type   *ddt.Committed
}

// Signature is what a transport sends ahead of a message so that the
// receiver can check it: the signature of the message's basic elements
// and the packed size.
type Signature struct {
	Sig   sig.Sig
	Bytes int64
}

// SignatureOf is the signature of count instances of t, from the signature
// t carries since commit.
func SignatureOf(t *ddt.Committed, count int64) (Signature, error) {
	size, err := t.PackSize(count)
	if err != nil {
		return Signature{}, err
	}
	s, err := t.MessageSignature(count)
	if err != nil {
		return Signature{}, err
	}
	return Signature{Sig: s, Bytes: size}, nil
}

// Check reports whether a message with signature s may be received into
// count instances of t: an error wrapping ErrTruncate if the message is
// longer, ErrType if its signature is not the prefix of t's of the same
// length.
func (s Signature) Check(t *ddt.Committed, count int64) error {
	err := t.MatchSignature(s.Sig, count) // the signature tree t carries since commit
	if err == nil {
		return nil
	}
	var te *sig.TruncationError
	if errors.As(err, &te) {
		return fmt.Errorf("%w: %d elements (%d bytes) arrived for a receive buffer of %d elements (%d x %s)",
			ErrTruncate, te.Sent, s.Bytes, te.Capacity, count, t.Type())
	}
	return fmt.Errorf("%w: %v", ErrType, err)
}
