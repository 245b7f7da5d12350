package comm

import (
	"context"
	"fmt"
	"io"
	"math"
	"sync"

	"github.com/ddtlab/ddt/comm/internal/match"
)

// TagUB is the largest tag of the in-process ranks (MPI_TAG_UB).
const TagUB = math.MaxInt32

// Comm is one rank's view of a communicator of a World: the world itself
// (MPI_COMM_WORLD) or one that Split made.
type Comm struct {
	w     *World
	rank  int    // in this communicator
	group []int  // the world rank of each rank
	ctx   uint32 // context of point-to-point messages; ctx+1 is the collectives'
	coll  *Comm  // the same communicator in the collectives' context
	// next is the smallest context this rank has not used, for Split
	next *uint32
}

func newWorldComm(w *World, r int) *Comm {
	group := make([]int, w.Size())
	for i := range group {
		group[i] = i
	}
	next := uint32(2) // (not new(uint32(2)): that needs Go 1.26, go.mod says 1.25)
	return newComm(w, r, group, 0, &next)
}

func newComm(w *World, r int, group []int, ctx uint32, next *uint32) *Comm {
	c := &Comm{w: w, rank: r, group: group, ctx: ctx, next: next}
	cc := *c
	cc.ctx = ctx + 1
	c.coll = &cc
	cc.coll = &cc
	return c
}

// Rank is this rank's number.
func (c *Comm) Rank() int { return c.rank }

// Size is the number of ranks.
func (c *Comm) Size() int { return len(c.group) }

// message is a send as the receiver's mailbox holds it.
type message struct {
	src     int // in the communicator
	hdr     Signature
	eager   []byte     // the packed data of an eager message
	packer  packSource // the data of a rendezvous message
	sendReq *Request   // completes when a rendezvous message is delivered
	tag     int
}

// packSource is the sender side of a rendezvous message.
type packSource interface {
	Pack(dst []byte) (int, error)
}

type recvReq struct {
	buf Buffer
	req *Request
}

// mailbox is the matching state of one world rank.
type mailbox struct {
	mu      sync.Mutex
	q       match.Queue[*message, *recvReq]
	probers []*Request // blocked probes, woken by every arrival
}

func (c *Comm) newRequest(op string, peer, tag int, bytes int64) *Request {
	r := newRequest()
	r.w = c.w
	r.info = opInfo{op: op, rank: c.group[c.rank], peer: peer, tag: tag, bytes: bytes, ctxt: c.ctx}
	return r
}

func (c *Comm) checkPeer(op string, peer, tag int, wild bool) error {
	return match.CheckPeer(op, peer, c.Size(), tag, TagUB, wild)
}

// Isend starts sending buf to rank dest with tag.
func (c *Comm) Isend(buf Buffer, dest, tag int) (*Request, error) {
	const op = "send"
	if err := match.CheckCount(op, buf.Type == nil, buf.Count); err != nil {
		return nil, err
	}
	if err := c.checkPeer(op, dest, tag, false); err != nil {
		return nil, err
	}
	p, err := buf.Type.NewPacker(buf.Data, buf.Origin, buf.Count)
	if err != nil {
		return nil, err
	}
	hdr, err := SignatureOf(buf.Type, buf.Count)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	m := &message{src: c.rank, tag: tag, hdr: hdr}
	req := c.newRequest(op, dest, tag, hdr.Bytes)
	if p.Size() <= c.w.opts.EagerLimit {
		m.eager = make([]byte, p.Size())
		if _, err := p.Pack(m.eager); err != nil && err != io.EOF {
			return nil, err
		}
		req.complete(m.status(), nil)
	} else {
		m.packer, m.sendReq = p, req
		box := c.w.boxes[c.group[dest]]
		req.cancel = func() bool {
			box.mu.Lock()
			defer box.mu.Unlock()
			return box.q.Remove(m)
		}
	}
	box := c.w.boxes[c.group[dest]]
	box.mu.Lock()
	r, ok := box.q.Arrive(match.Envelope{Context: c.ctx, Source: c.rank, Tag: tag}, m)
	var probers []*Request
	if !ok {
		probers, box.probers = box.probers, nil
	}
	box.mu.Unlock()
	for _, pr := range probers {
		pr.complete(Status{}, nil)
	}
	if ok {
		c.w.deliver(m, r)
	}
	return req, nil
}

// Send sends buf to rank dest with tag and returns when buf may be reused.
func (c *Comm) Send(buf Buffer, dest, tag int) error {
	return c.SendContext(context.Background(), buf, dest, tag)
}

// SendContext is Send that gives up when ctx is done.
func (c *Comm) SendContext(ctx context.Context, buf Buffer, dest, tag int) error {
	r, err := c.Isend(buf, dest, tag)
	if err != nil {
		return err
	}
	_, err = r.WaitContext(ctx)
	return err
}

// Irecv starts receiving a message from source (or AnySource) with tag (or
// AnyTag) into buf.
func (c *Comm) Irecv(buf Buffer, source, tag int) (*Request, error) {
	const op = "recv"
	if err := match.CheckCount(op, buf.Type == nil, buf.Count); err != nil {
		return nil, err
	}
	if err := c.checkPeer(op, source, tag, true); err != nil {
		return nil, err
	}
	// check the whole receive buffer once, before anything can arrive
	if _, err := buf.Type.NewUnpacker(buf.Data, buf.Origin, buf.Count); err != nil {
		return nil, err
	}
	r := &recvReq{buf: buf, req: c.newRequest(op, source, tag, 0)}
	box := c.w.boxes[c.group[c.rank]]
	r.req.cancel = func() bool {
		box.mu.Lock()
		defer box.mu.Unlock()
		return box.q.Withdraw(r)
	}
	box.mu.Lock()
	_, m, ok := box.q.Post(c.ctx, source, tag, r)
	box.mu.Unlock()
	if ok {
		c.w.deliver(m, r)
	}
	return r.req, nil
}

// Recv receives a message from source (or AnySource) with tag (or AnyTag)
// into buf.
func (c *Comm) Recv(buf Buffer, source, tag int) (Status, error) {
	return c.RecvContext(context.Background(), buf, source, tag)
}

// RecvContext is Recv that gives up when ctx is done.
func (c *Comm) RecvContext(ctx context.Context, buf Buffer, source, tag int) (Status, error) {
	r, err := c.Irecv(buf, source, tag)
	if err != nil {
		return Status{}, err
	}
	return r.WaitContext(ctx)
}

// Sendrecv sends sbuf to dest and receives rbuf from source, concurrently.
func (c *Comm) Sendrecv(sbuf Buffer, dest, stag int, rbuf Buffer, source, rtag int) (Status, error) {
	return sendrecv(c, sbuf, dest, stag, rbuf, source, rtag)
}

// sendrecv is Sendrecv over any transport.
func sendrecv(c Communicator, sbuf Buffer, dest, stag int, rbuf Buffer, source, rtag int) (Status, error) {
	rr, err := c.Irecv(rbuf, source, rtag)
	if err != nil {
		return Status{}, err
	}
	sr, err := c.Isend(sbuf, dest, stag)
	if err != nil {
		rr.Wait() // a posted receive cannot be withdrawn everywhere; let it finish
		return Status{}, err
	}
	st, rerr := rr.Wait()
	if _, err := sr.Wait(); err != nil && rerr == nil {
		return st, err
	}
	return st, rerr
}

// Probe blocks until a message from source with tag can be received and
// returns its status without receiving it.
func (c *Comm) Probe(source, tag int) (Status, error) {
	return c.ProbeContext(context.Background(), source, tag)
}

// ProbeContext is Probe that gives up when ctx is done.
func (c *Comm) ProbeContext(ctx context.Context, source, tag int) (Status, error) {
	for {
		st, ok, pr, err := c.probe(source, tag, true)
		if err != nil || ok {
			return st, err
		}
		if _, err := pr.WaitContext(ctx); err != nil {
			return Status{}, err
		}
	}
}

// Iprobe is the nonblocking Probe: ok reports whether a message is there.
func (c *Comm) Iprobe(source, tag int) (st Status, ok bool, err error) {
	st, ok, _, err = c.probe(source, tag, false)
	return st, ok, err
}

// probe looks for a message; if there is none and block is set, it
// returns a request that completes when the next message arrives.
func (c *Comm) probe(source, tag int, block bool) (Status, bool, *Request, error) {
	if err := c.checkPeer("probe", source, tag, true); err != nil {
		return Status{}, false, nil, err
	}
	box := c.w.boxes[c.group[c.rank]]
	box.mu.Lock()
	defer box.mu.Unlock()
	if _, m, ok := box.q.Probe(c.ctx, source, tag); ok {
		return m.status(), true, nil, nil
	}
	if !block {
		return Status{}, false, nil, nil
	}
	pr := c.newRequest("probe", source, tag, 0)
	pr.cancel = func() bool {
		box.mu.Lock()
		defer box.mu.Unlock()
		for i, p := range box.probers {
			if p == pr {
				box.probers = append(box.probers[:i], box.probers[i+1:]...)
				return true
			}
		}
		return false
	}
	box.probers = append(box.probers, pr)
	return Status{}, false, pr, nil
}

func (m *message) status() Status {
	return Status{Source: m.src, Tag: m.tag, bytes: m.hdr.Bytes, elements: m.hdr.Sig.N}
}

// deliver moves matched message m into receive r, checking signatures first.
func (w *World) deliver(m *message, r *recvReq) {
	st := m.status()
	fail := func(err error) {
		if m.sendReq != nil {
			m.sendReq.complete(st, nil) // the send itself succeeded
		}
		r.req.complete(st, err)
	}
	if err := m.hdr.Check(r.buf.Type, r.buf.Count); err != nil {
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
	w.startPipe()
	go w.pipeline(m, r, u, st)
}

// pipeline moves a rendezvous message in packets: the sender packs packet
// k+1 while the receiver unpacks packet k.
func (w *World) pipeline(m *message, r *recvReq, u interface{ Unpack([]byte) (int, error) }, st Status) {
	defer w.endPipe()
	size := int(min(int64(w.opts.PacketSize), m.hdr.Bytes))
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
