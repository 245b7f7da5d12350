package comm

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"
	"sync"

	"github.com/ddtlab/ddt/comm/internal/match"
)

// Options configure a World.
type Options struct {
	// PacketSize is the size of the packets large messages travel in
	// (default 64 KiB).
	PacketSize int
	// EagerLimit is the largest message that is packed at once and
	// buffered, so that its send completes immediately (default 16 KiB).
	EagerLimit int64
	// NoDeadlockCheck turns off deadlock detection in Run. Detection counts
	// a rank as blocked while one of its goroutines waits in a blocking
	// call; a program in which a rank waits on one goroutine while another
	// of its goroutines works and later communicates must turn it off (and
	// should use RunContext with a deadline instead).
	NoDeadlockCheck bool
}

// World is a set of ranks that communicate in one process: the in-process
// transport of this package.
type World struct {
	opts  Options
	boxes []*mailbox
	comms []*Comm

	// deadlock accounting during Run, guarded by mu: active is the number
	// of ranks that run (neither blocked in a wait nor finished) plus the
	// pipelines in flight; when it drops to zero while someone waits,
	// nothing can ever complete that wait.
	mu       sync.Mutex
	running  bool
	active   int
	waiters  map[*Request]struct{}
	finished []bool
	dead     chan struct{} // closed when deadErr is set
	deadErr  error
	pipes    sync.WaitGroup
}

// Errors of Run and of blocking calls in a World; test with errors.Is.
var (
	// ErrDeadlock: every rank is blocked or finished, and some wait
	// can never complete.
	ErrDeadlock = errors.New("deadlock: every rank is blocked or finished")
	// ErrUnreceived: every rank finished, and messages were never received
	// or receives never matched.
	ErrUnreceived = errors.New("communication left pending when every rank finished")
)

// StuckError is the error of the waits of a World that can never complete
// (Cause ErrDeadlock) or that RunContext's context interrupted (Cause
// ctx.Err()), and of Run when messages are left pending (Cause
// ErrUnreceived). It names what waits and what is pending.
type StuckError struct {
	Cause   error
	Waiting []string // "rank 0 waits in recv from rank 1, tag 3"
	Pending []string // "message from rank 1 to rank 0, tag 4, 8 bytes, never received"
}

const maxListed = 8

func (e *StuckError) Error() string {
	var b strings.Builder
	b.WriteString(e.Cause.Error())
	list := func(head string, xs []string) {
		if len(xs) == 0 {
			return
		}
		b.WriteString("; " + head)
		for i, x := range xs {
			if i == maxListed {
				fmt.Fprintf(&b, ", and %d more", len(xs)-i)
				break
			}
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(x)
		}
	}
	list("", e.Waiting)
	list("pending: ", e.Pending)
	return b.String()
}

// Unwrap returns the cause.
func (e *StuckError) Unwrap() error { return e.Cause }

// PanicError is the error of a rank function that panicked.
type PanicError struct {
	Rank  int
	Value any    // what it panicked with
	Stack []byte // the goroutine's stack at the panic
}

func (e *PanicError) Error() string { return fmt.Sprintf("rank %d panicked: %v", e.Rank, e.Value) }

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
	w := &World{opts: opts, boxes: make([]*mailbox, n), comms: make([]*Comm, n), waiters: map[*Request]struct{}{}}
	for i := range w.boxes {
		w.boxes[i] = &mailbox{}
	}
	for i := range w.comms {
		w.comms[i] = newWorldComm(w, i)
	}
	return w, nil
}

// Size is the number of ranks.
func (w *World) Size() int { return len(w.boxes) }

// Comm returns the communicator of rank r, or an error if r is not a rank
// of w.
func (w *World) Comm(r int) (*Comm, error) {
	if r < 0 || r >= len(w.comms) {
		return nil, fmt.Errorf("comm: rank %d is outside [0, %d)", r, len(w.comms))
	}
	return w.comms[r], nil
}

// Run calls fn for every rank on its own goroutine and waits for all; it
// returns the errors of the ranks that failed, joined, each naming its
// rank. A rank function that panics fails with a *PanicError. A wait that
// can never complete because every rank is blocked or finished fails with
// a *StuckError wrapping ErrDeadlock (unless Options.NoDeadlockCheck), and
// when every rank has finished, messages never received and receives
// never matched are a *StuckError wrapping ErrUnreceived; they are then
// discarded. Run must not be called again before it returns.
func (w *World) Run(fn func(c *Comm) error) error {
	return w.RunContext(context.Background(), fn)
}

// RunContext is Run that interrupts the ranks' waits when ctx is done:
// they fail with a *StuckError wrapping ctx.Err() that names every wait.
func (w *World) RunContext(ctx context.Context, fn func(c *Comm) error) error {
	n := w.Size()
	w.mu.Lock()
	if w.running {
		w.mu.Unlock()
		return errors.New("comm: Run called while the world runs")
	}
	w.running = true
	w.active = n
	w.finished = make([]bool, n)
	w.dead = make(chan struct{})
	w.deadErr = nil
	clear(w.waiters)
	w.mu.Unlock()

	stop := make(chan struct{})
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		select {
		case <-ctx.Done():
			w.declare(ctx.Err())
		case <-stop:
		}
	}()

	errs := make([]error, n+1)
	var wg sync.WaitGroup
	for r := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer w.finish(r)
			defer func() {
				if p := recover(); p != nil {
					errs[r] = &PanicError{Rank: r, Value: p, Stack: debug.Stack()}
				}
			}()
			if err := fn(w.comms[r]); err != nil {
				errs[r] = fmt.Errorf("rank %d: %w", r, err)
			}
		}()
	}
	wg.Wait()
	w.pipes.Wait()
	close(stop)
	<-watched
	errs[n] = w.leftovers()
	w.mu.Lock()
	w.running = false
	w.mu.Unlock()
	return errors.Join(errs...)
}

// RunAll is Run for code written against Communicator.
func (w *World) RunAll(fn func(c Communicator) error) error {
	return w.Run(func(c *Comm) error { return fn(c) })
}

// RunAllContext is RunContext for code written against Communicator.
func (w *World) RunAllContext(ctx context.Context, fn func(c Communicator) error) error {
	return w.RunContext(ctx, func(c *Comm) error { return fn(c) })
}

// block records that r's waiter blocks and returns the channel closed
// when the world is dead; counts tells whether the wait may count as
// blocked for good. It fails if the world is dead already or if this
// wait deadlocks it.
func (w *World) block(r *Request, counts bool) (<-chan struct{}, error) {
	w.mu.Lock()
	if !w.running || r.isDone() {
		w.mu.Unlock()
		return nil, nil
	}
	if w.deadErr != nil {
		w.mu.Unlock()
		return nil, w.deadErr
	}
	if !counts {
		dead := w.dead
		w.mu.Unlock()
		return dead, nil
	}
	r.waiting = true
	w.waiters[r] = struct{}{}
	w.active--
	stuck := w.stuck()
	dead := w.dead
	w.mu.Unlock()
	if stuck {
		w.declare(ErrDeadlock)
	}
	return dead, nil
}

// unblock undoes block for a wait that gives up.
func (w *World) unblock(r *Request) {
	w.mu.Lock()
	if r.waiting {
		r.waiting = false
		delete(w.waiters, r)
		w.active++
	}
	w.mu.Unlock()
}

// stuck reports whether nothing runs while something waits. w.mu is held.
func (w *World) stuck() bool {
	return w.active == 0 && len(w.waiters) > 0 && !w.opts.NoDeadlockCheck
}

// finish records that rank r's function returned.
func (w *World) finish(r int) {
	w.mu.Lock()
	w.finished[r] = true
	w.active--
	stuck := w.stuck()
	w.mu.Unlock()
	if stuck {
		w.declare(ErrDeadlock)
	}
}

// startPipe and endPipe count a pipeline in flight as running.
func (w *World) startPipe() {
	w.pipes.Add(1)
	w.mu.Lock()
	w.active++
	w.mu.Unlock()
}

func (w *World) endPipe() {
	w.mu.Lock()
	w.active--
	stuck := w.stuck()
	w.mu.Unlock()
	w.pipes.Done()
	if stuck {
		w.declare(ErrDeadlock)
	}
}

// declare makes the world dead with cause: every wait fails with a
// *StuckError naming what waits and what is pending.
func (w *World) declare(cause error) {
	pending := w.pending(false)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.deadErr != nil || !w.running {
		return
	}
	if cause == ErrDeadlock && !w.stuck() {
		return // something ran again meanwhile
	}
	e := &StuckError{Cause: cause, Pending: pending}
	for r := range w.waiters {
		e.Waiting = append(e.Waiting, r.info.String())
	}
	for r, f := range w.finished {
		if f {
			e.Waiting = append(e.Waiting, fmt.Sprintf("rank %d finished", r))
		}
	}
	slices.Sort(e.Waiting)
	w.deadErr = e
	close(w.dead)
}

// pending lists the messages not received and, when posted, the receives
// not matched, of every rank.
func (w *World) pending(posted bool) []string {
	var out []string
	for d, b := range w.boxes {
		b.mu.Lock()
		b.q.Unexpected(func(env match.Envelope, m *message) {
			s := fmt.Sprintf("message from rank %d to rank %d, tag %d, %d bytes, never received", m.src, d, env.Tag, m.hdr.Bytes)
			if env.Context != 0 {
				s = fmt.Sprintf("message from rank %d to rank %d inside a collective or sub-communicator (context %d, tag %d), %d bytes, never received", m.src, d, env.Context, env.Tag, m.hdr.Bytes)
			}
			out = append(out, s)
		})
		if posted {
			b.q.Posted(func(ctx uint32, src, tag int, r *recvReq) {
				out = append(out, fmt.Sprintf("%s posted by rank %d, never matched", r.req.info.describe(), d))
			})
		}
		b.mu.Unlock()
	}
	return out
}

// leftovers reports and discards what is pending when every rank has
// finished.
func (w *World) leftovers() error {
	p := w.pending(true)
	for _, b := range w.boxes {
		b.mu.Lock()
		var reqs []*Request
		b.q.Posted(func(_ uint32, _, _ int, r *recvReq) { reqs = append(reqs, r.req) })
		b.q = match.Queue[*message, *recvReq]{}
		for _, pr := range b.probers {
			reqs = append(reqs, pr)
		}
		b.probers = nil
		b.mu.Unlock()
		for _, r := range reqs {
			r.complete(Status{}, ErrUnreceived)
		}
	}
	if len(p) == 0 {
		return nil
	}
	return &StuckError{Cause: ErrUnreceived, Pending: p}
}
