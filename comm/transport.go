package comm

import (
	"github.com/ddtlab/ddt"
	"github.com/ddtlab/ddt/sig"
)

// Communicator is the point-to-point API that every transport implements:
// the in-process ranks of a World (*Comm) and, with build tag mpi, real MPI
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
	Alltoall(send, recv Buffer, tag int) error
}

var _ Communicator = (*Comm)(nil)

// RunAll is Run for code written against Communicator.
func (w *World) RunAll(fn func(c Communicator) error) error {
	return w.Run(func(c *Comm) error { return fn(c) })
}

// NewPolledRequest returns a pending request, for transports that make
// progress only when asked: Wait calls poll until the request completes,
// and Test calls it once before looking. poll must not block for long.
func NewPolledRequest(poll func()) *Request {
	r := newRequest()
	r.poll = poll
	return r
}

// Signature is what a transport sends ahead of a message so that the
// receiver can check it: the signature of the message's basic elements
// and the packed size.
type Signature struct {
	Sig   sig.Sig
	Bytes int64
}

// SignatureOf is the signature of count instances of t.
func SignatureOf(t *ddt.Committed, count int64) (Signature, error) {
	size, err := t.PackSize(count)
	if err != nil {
		return Signature{}, err
	}
	h, err := headerOf(t, count, size)
	if err != nil {
		return Signature{}, err
	}
	return Signature{Sig: h.sig, Bytes: h.bytes}, nil
}

// Check reports whether a message with signature s may be received into
// count instances of t, exactly as the in-process ranks check it: an error
// wrapping ErrTruncate if the message is longer, ErrType if its signature
// is not the prefix of t's of the same length.
func (s Signature) Check(t *ddt.Committed, count int64) error {
	return header{sig: s.Sig, bytes: s.Bytes}.check(t.Type(), count)
}
