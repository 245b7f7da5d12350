package comm

import (
	"fmt"
	"io"
	"sync"
)

// Request is a pending nonblocking operation.
type Request struct {
	done chan struct{}
	st   Status
	err  error
	poll func() // makes progress, for transports that need it (NewPolledRequest)
}

func newRequest() *Request { return &Request{done: make(chan struct{})} }

func (r *Request) complete(st Status, err error) {
	r.st, r.err = st, err
	close(r.done)
}

// Wait blocks until the operation completes and returns its status and error.
func (r *Request) Wait() (Status, error) {
	if r.poll != nil {
		for {
			select {
			case <-r.done:
				return r.st, r.err
			default:
				r.poll()
			}
		}
	}
	<-r.done
	return r.st, r.err
}

// Test reports whether the operation has completed, and if so its status
// and error.
func (r *Request) Test() (bool, Status, error) {
	if r.poll != nil {
		r.poll()
	}
	select {
	case <-r.done:
		return true, r.st, r.err
	default:
		return false, Status{}, nil
	}
}

// WaitAll waits for all requests and returns the first error.
func WaitAll(reqs ...*Request) error {
	var first error
	for _, r := range reqs {
		if _, err := r.Wait(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// message is a send as the receiver's mailbox holds it.
type message struct {
	src, tag int
	hdr      header
	eager    []byte     // the packed data of an eager message
	packer   packSource // the data of a rendezvous message
	sendReq  *Request   // completes when a rendezvous message is delivered
}

// packSource is the sender side of a rendezvous message.
type packSource interface {
	Pack(dst []byte) (int, error)
}

type recvReq struct {
	src, tag int
	buf      Buffer
	req      *Request
}

func (r *recvReq) matches(m *message) bool {
	return (r.src == AnySource || r.src == m.src) && (r.tag == AnyTag || r.tag == m.tag)
}

type mailbox struct {
	mu         sync.Mutex
	arrived    *sync.Cond
	unexpected []*message // in arrival order
	posted     []*recvReq // in posting order
}

func newMailbox() *mailbox {
	b := &mailbox{}
	b.arrived = sync.NewCond(&b.mu)
	return b
}

// Isend starts sending buf to rank dest with tag.
func (c *Comm) Isend(buf Buffer, dest, tag int) (*Request, error) {
	const op = "send"
	if err := buf.check(op); err != nil {
		return nil, err
	}
	if err := c.checkPeer(op, dest, tag, false); err != nil {
		return nil, err
	}
	p, err := buf.Type.NewPacker(buf.Data, buf.Origin, buf.Count)
	if err != nil {
		return nil, err
	}
	hdr, err := headerOf(buf.Type, buf.Count, p.Size())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	m := &message{src: c.rank, tag: tag, hdr: hdr}
	req := newRequest()
	if p.Size() <= c.w.opts.EagerLimit {
		m.eager = make([]byte, p.Size())
		if _, err := p.Pack(m.eager); err != nil && err != io.EOF {
			return nil, err
		}
		req.complete(m.status(), nil)
	} else {
		m.packer, m.sendReq = p, req
	}
	box := c.w.boxes[dest]
	box.mu.Lock()
	for i, r := range box.posted {
		if r.matches(m) {
			box.posted = append(box.posted[:i], box.posted[i+1:]...)
			box.mu.Unlock()
			c.w.deliver(m, r)
			return req, nil
		}
	}
	box.unexpected = append(box.unexpected, m)
	box.arrived.Broadcast()
	box.mu.Unlock()
	return req, nil
}

// Send sends buf to rank dest with tag and returns when buf may be reused.
func (c *Comm) Send(buf Buffer, dest, tag int) error {
	r, err := c.Isend(buf, dest, tag)
	if err != nil {
		return err
	}
	_, err = r.Wait()
	return err
}

// Irecv starts receiving a message from source (or AnySource) with tag (or
// AnyTag) into buf.
func (c *Comm) Irecv(buf Buffer, source, tag int) (*Request, error) {
	const op = "recv"
	if err := buf.check(op); err != nil {
		return nil, err
	}
	if err := c.checkPeer(op, source, tag, true); err != nil {
		return nil, err
	}
	// check the whole receive buffer once, before anything can arrive
	if _, err := buf.Type.NewUnpacker(buf.Data, buf.Origin, buf.Count); err != nil {
		return nil, err
	}
	r := &recvReq{src: source, tag: tag, buf: buf, req: newRequest()}
	box := c.w.boxes[c.rank]
	box.mu.Lock()
	for i, m := range box.unexpected {
		if r.matches(m) {
			box.unexpected = append(box.unexpected[:i], box.unexpected[i+1:]...)
			box.mu.Unlock()
			c.w.deliver(m, r)
			return r.req, nil
		}
	}
	box.posted = append(box.posted, r)
	box.mu.Unlock()
	return r.req, nil
}

// Recv receives a message from source (or AnySource) with tag (or AnyTag)
// into buf.
func (c *Comm) Recv(buf Buffer, source, tag int) (Status, error) {
	r, err := c.Irecv(buf, source, tag)
	if err != nil {
		return Status{}, err
	}
	return r.Wait()
}

// Sendrecv sends sbuf to dest and receives rbuf from source, concurrently.
func (c *Comm) Sendrecv(sbuf Buffer, dest, stag int, rbuf Buffer, source, rtag int) (Status, error) {
	rr, err := c.Irecv(rbuf, source, rtag)
	if err != nil {
		return Status{}, err
	}
	sr, err := c.Isend(sbuf, dest, stag)
	if err != nil {
		return Status{}, err
	}
	st, rerr := rr.Wait()
	if _, err := sr.Wait(); err != nil {
		return st, err
	}
	return st, rerr
}

// Probe blocks until a message from source with tag can be received and
// returns its status without receiving it.
func (c *Comm) Probe(source, tag int) (Status, error) {
	st, _, err := c.probe(source, tag, true)
	return st, err
}

// Iprobe is the nonblocking Probe: ok reports whether a message is there.
func (c *Comm) Iprobe(source, tag int) (st Status, ok bool, err error) {
	return c.probe(source, tag, false)
}

func (c *Comm) probe(source, tag int, block bool) (Status, bool, error) {
	if err := c.checkPeer("probe", source, tag, true); err != nil {
		return Status{}, false, err
	}
	r := &recvReq{src: source, tag: tag}
	box := c.w.boxes[c.rank]
	box.mu.Lock()
	defer box.mu.Unlock()
	for {
		for _, m := range box.unexpected {
			if r.matches(m) {
				return m.status(), true, nil
			}
		}
		if !block {
			return Status{}, false, nil
		}
		box.arrived.Wait()
	}
}

func (m *message) status() Status {
	return Status{Source: m.src, Tag: m.tag, bytes: m.hdr.bytes, elements: m.hdr.sig.N}
}

// deliver moves matched message m into receive r, checking signatures first.
func (w *World) deliver(m *message, r *recvReq) {
	st := m.status()
	fail := func(err error) {
		r.req.complete(st, err)
		if m.sendReq != nil {
			m.sendReq.complete(st, nil) // the send itself succeeded
		}
	}
	if err := m.hdr.check(r.buf.Type.Type(), r.buf.Count); err != nil {
		fail(fmt.Errorf("recv from rank %d, tag %d: %w", m.src, m.tag, err))
		return
	}
	u, err := r.buf.Type.NewUnpacker(r.buf.Data, r.buf.Origin, r.buf.Count)
	if err != nil {
		fail(err)
		return
	}
	if m.eager != nil || m.packer == nil {
		if _, err := u.Unpack(m.eager); err != nil {
			fail(err)
			return
		}
		r.req.complete(st, nil)
		return
	}
	go w.pipeline(m, r, u, st)
}

// pipeline moves a rendezvous message in packets: the sender packs packet
// k+1 while the receiver unpacks packet k.
func (w *World) pipeline(m *message, r *recvReq, u interface{ Unpack([]byte) (int, error) }, st Status) {
	size := int(min(int64(w.opts.PacketSize), m.hdr.bytes))
	full := make(chan []byte, 2)
	free := make(chan []byte, 2)
	free <- make([]byte, size)
	free <- make([]byte, size)
	var sendErr error
	go func() {
		defer close(full)
		for {
			b := <-free
			n, err := m.packer.Pack(b)
			if err == io.EOF {
				return
			}
			if err != nil {
				sendErr = err
				return
			}
			full <- b[:n]
		}
	}()
	var recvErr error
	for b := range full {
		if recvErr == nil {
			_, recvErr = u.Unpack(b)
		}
		free <- b[:cap(b)]
	}
	m.sendReq.complete(st, sendErr)
	if recvErr == nil {
		recvErr = sendErr
	}
	r.req.complete(st, recvErr)
}

// NewRequest returns a pending request, for other transports of this API;
// Complete finishes it.
func NewRequest() *Request { return newRequest() }

// Complete finishes a request made by NewRequest with its status and error.
func (r *Request) Complete(st Status, err error) { r.complete(st, err) }
