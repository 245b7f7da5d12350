package comm

import (
	"errors"
	"fmt"
	"sync"

	"github.com/ddtlab/ddt"
)

// Wildcards for Recv, Irecv and Probe.
const (
	AnySource = -1
	AnyTag    = -1
)

// Undefined is what Status.Count returns when the message is not a whole
// number of instances of the type (MPI_UNDEFINED).
const Undefined = -1

// Errors a receive can fail with; test with errors.Is.
var (
	ErrType     = errors.New("type signature mismatch") // MPI_ERR_TYPE
	ErrTruncate = errors.New("message truncated")       // MPI_ERR_TRUNCATE
)

// Options configure a World.
type Options struct {
	// PacketSize is the size of the packets large messages travel in
	// (default 64 KiB).
	PacketSize int
	// EagerLimit is the largest message that is packed at once and
	// buffered, so that its send completes immediately (default 16 KiB).
	EagerLimit int64
}

// World is a set of ranks that communicate in one process.
type World struct {
	opts  Options
	boxes []*mailbox
}

// NewWorld returns a world of n ranks.
func NewWorld(n int, opts Options) (*World, error) {
	if n <= 0 {
		return nil, fmt.Errorf("comm: world size %d is not positive", n)
	}
	if opts.PacketSize < 0 || opts.EagerLimit < 0 {
		return nil, fmt.Errorf("comm: negative packet size %d or eager limit %d", opts.PacketSize, opts.EagerLimit)
	}
	if opts.PacketSize == 0 {
		opts.PacketSize = 64 << 10
	}
	if opts.EagerLimit == 0 {
		opts.EagerLimit = 16 << 10
	}
	w := &World{opts: opts, boxes: make([]*mailbox, n)}
	for i := range w.boxes {
		w.boxes[i] = newMailbox()
	}
	return w, nil
}

// Size is the number of ranks.
func (w *World) Size() int { return len(w.boxes) }

// Comm returns the communicator of rank r.
func (w *World) Comm(r int) *Comm { return &Comm{w: w, rank: r} }

// Run calls fn for every rank on its own goroutine and waits for all; it
// returns the errors of the ranks that failed, joined.
func (w *World) Run(fn func(c *Comm) error) error {
	errs := make([]error, w.Size())
	var wg sync.WaitGroup
	for r := range w.boxes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := fn(w.Comm(r)); err != nil {
				errs[r] = fmt.Errorf("rank %d: %w", r, err)
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Comm is one rank's view of the world (MPI_COMM_WORLD).
type Comm struct {
	w    *World
	rank int
}

// Rank is this rank's number.
func (c *Comm) Rank() int { return c.rank }

// Size is the number of ranks.
func (c *Comm) Size() int { return c.w.Size() }

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

// Buffer is a typed buffer: count instances of Type in Data, with instance
// 0's origin at byte Origin of Data.
type Buffer struct {
	Data   []byte
	Origin int64
	Count  int64
	Type   *ddt.Committed
}

func (b Buffer) check(op string) error {
	if b.Type == nil {
		return fmt.Errorf("%s: nil type", op)
	}
	if b.Count < 0 {
		return fmt.Errorf("%s: negative count %d", op, b.Count)
	}
	return nil
}

// checkPeer checks the rank r and the tag of operation op; wild allows
// AnySource and AnyTag.
func (c *Comm) checkPeer(op string, r, tag int, wild bool) error {
	if !(wild && r == AnySource) && (r < 0 || r >= c.Size()) {
		return fmt.Errorf("%s: rank %d is outside [0, %d)", op, r, c.Size())
	}
	if tag < 0 && !(wild && tag == AnyTag) {
		return fmt.Errorf("%s: negative tag %d", op, tag)
	}
	return nil
}

// NewStatus returns a Status, for other transports of this API.
func NewStatus(source, tag int, bytes, elements int64) Status {
	return Status{Source: source, Tag: tag, bytes: bytes, elements: elements}
}
