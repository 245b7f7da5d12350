package comm

import (
	"context"
	"fmt"
	"sync/atomic"
)

// Request is a pending nonblocking operation.
type Request struct {
	done   chan struct{} // closed on completion; nil for polled requests, which use fin
	fin    atomic.Bool   // a polled request has completed (st and err are set)
	st     Status
	err    error
	poll   func()      // makes progress, for transports that need it (NewPolledRequest)
	cancel func() bool // withdraws the operation if it has not matched yet

	// in-process requests: the world whose deadlock accounting they join
	// while waited for, and what they are, for its reports
	w       *World
	info    opInfo
	waiting bool // guarded by w.mu
}

// opInfo describes an operation for deadlock reports.
type opInfo struct {
	op        string // "send", "recv", "probe"
	rank      int    // the rank that waits
	peer, tag int
	bytes     int64 // of a send
	ctxt      uint32
}

func (i opInfo) String() string { return fmt.Sprintf("rank %d waits in %s", i.rank, i.describe()) }

// describe describes the operation: "recv from rank 1, tag 3".
func (i opInfo) describe() string {
	peer := func(p int) string {
		if p == AnySource {
			return "any rank"
		}
		return fmt.Sprintf("rank %d", p)
	}
	tag := fmt.Sprint(i.tag)
	if i.tag == AnyTag {
		tag = "any"
	}
	var s string
	switch i.op {
	case "send":
		s = fmt.Sprintf("send to %s, tag %s, %d bytes", peer(i.peer), tag, i.bytes)
	default:
		s = fmt.Sprintf("%s from %s, tag %s", i.op, peer(i.peer), tag)
	}
	if i.ctxt != 0 {
		s += fmt.Sprintf(" (context %d: a collective or sub-communicator)", i.ctxt)
	}
	return s
}

// what names the operation in errors.
func (i opInfo) what() string {
	if i.op == "" {
		return "wait"
	}
	return i.op
}

func newRequest() *Request { return &Request{done: make(chan struct{})} }

// isDone reports whether r has completed.
func (r *Request) isDone() bool {
	if r.done == nil {
		return r.fin.Load()
	}
	select {
	case <-r.done:
		return true
	default:
		return false
	}
}

func (r *Request) complete(st Status, err error) {
	if r.done == nil { // polled: no channel to allocate per request
		r.st, r.err = st, err
		r.fin.Store(true)
		return
	}
	if w := r.w; w != nil {
		w.mu.Lock()
		r.st, r.err = st, err
		close(r.done)
		if r.waiting { // its waiter runs again
			r.waiting = false
			delete(w.waiters, r)
			w.active++
		}
		w.mu.Unlock()
		return
	}
	r.st, r.err = st, err
	close(r.done)
}

// Wait blocks until the operation completes and returns its status and
// error. In a World run by Run or RunContext, a Wait that can never
// return (every rank blocked or finished) fails with a *StuckError
// wrapping ErrDeadlock. A wait whose context can be done (WaitContext) is
// not counted as blocked.
func (r *Request) Wait() (Status, error) { return r.WaitContext(context.Background()) }

// WaitContext is Wait that gives up when ctx is done. A receive that has
// not matched a message yet is then withdrawn, and the error wraps
// ctx.Err(); a receive whose message is already arriving is waited for.
// On the in-process ranks a send not yet received is withdrawn too; on
// other transports it may stay pending, and its buffer must not be
// modified.
func (r *Request) WaitContext(ctx context.Context) (Status, error) {
	if r.isDone() {
		return r.st, r.err
	}
	if r.poll != nil {
		cdone := ctx.Done()
		for {
			if r.fin.Load() {
				return r.st, r.err
			}
			if cdone != nil {
				select {
				case <-cdone:
					if r.cancel == nil || r.cancel() {
						return Status{}, fmt.Errorf("wait: %w", ctx.Err())
					}
					cdone = nil // matched: let it finish
				default:
				}
			}
			r.poll()
		}
	}
	w := r.w
	var dead <-chan struct{}
	if w != nil {
		var err error
		// a wait that can time out is not blocked for good
		if dead, err = w.block(r, ctx.Done() == nil); err != nil {
			return Status{}, err
		}
	}
	select {
	case <-r.done:
		return r.st, r.err
	case <-dead:
		if r.isDone() {
			return r.st, r.err
		}
		return Status{}, w.deadErr
	case <-ctx.Done():
		if w != nil {
			w.unblock(r)
		}
		if r.cancel != nil && r.cancel() {
			return Status{}, fmt.Errorf("%s: %w", r.info.what(), ctx.Err())
		}
		// matched already: the data is on its way
		return r.WaitContext(context.Background())
	}
}

// Test reports whether the operation has completed (ok), and if so its
// status and error. Its results are in the order of Iprobe's and of Go's
// comma-ok idiom: the value, then whether it is there.
func (r *Request) Test() (st Status, ok bool, err error) {
	if r.poll != nil {
		r.poll()
	}
	if r.isDone() {
		return r.st, true, r.err
	}
	return Status{}, false, nil
}

// WaitAll waits for all requests and returns the first error.
func WaitAll(reqs ...*Request) error {
	return WaitAllContext(context.Background(), reqs...)
}

// WaitAllContext is WaitAll that gives up when ctx is done: the requests
// not yet complete are then handled as by WaitContext.
func WaitAllContext(ctx context.Context, reqs ...*Request) error {
	var first error
	for _, r := range reqs {
		if _, err := r.WaitContext(ctx); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// NewRequest returns a pending request, for other transports of this API;
// Complete finishes it.
func NewRequest() *Request { return newRequest() }

// NewPolledRequest returns a pending request, for transports that make
// progress only when asked: Wait calls poll until the request completes,
// and Test calls it once before looking. poll must not block for long.
func NewPolledRequest(poll func()) *Request {
	return &Request{poll: poll}
}

// SetCancel sets what WaitContext calls on a request of a transport
// (NewRequest, NewPolledRequest) when its context is done: cancel
// withdraws the operation and reports true if it had not matched yet, or
// reports false if the request must be waited for. Without it, WaitContext
// returns at once, leaving the operation pending. Call it before the
// request is shared.
func (r *Request) SetCancel(cancel func() bool) { r.cancel = cancel }

// Complete finishes a request made by NewRequest or NewPolledRequest with
// its status and error.
func (r *Request) Complete(st Status, err error) { r.complete(st, err) }
