//go:build mpi

package mpi

/*
#include "ddt_mpi.h"
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"unsafe"

	"github.com/ddtlab/ddt/comm"
	"github.com/ddtlab/ddt/comm/internal/match"
)

func (c *Comm) checkArgs(op string, buf comm.Buffer, peer, tag int, wild bool) error {
	if err := match.CheckCount(op, buf.Type == nil, buf.Count); err != nil {
		return err
	}
	return c.checkPeer(op, peer, tag, wild)
}

func (c *Comm) checkPeer(op string, peer, tag int, wild bool) error {
	return match.CheckPeer(op, peer, c.Size(), tag, c.w.tagUB, wild)
}

// cbytes returns n bytes of C memory and a Go view of them.
func cbytes(n int64) (unsafe.Pointer, []byte) {
	p := C.malloc(C.size_t(max(n, 1)))
	return p, unsafe.Slice((*byte)(p), n)
}

// pinned pins the Go buffer b for MPI and returns its base address (nil
// for an empty buffer) and the pinner to unpin it with.
func pinned(b []byte) (unsafe.Pointer, *runtime.Pinner) {
	pn := new(runtime.Pinner)
	if len(b) == 0 {
		return nil, pn
	}
	pn.Pin(&b[0])
	return unsafe.Pointer(&b[0]), pn
}

// Isend starts sending buf to rank dest with tag. The buffer must not be
// modified until the request completes.
func (c *Comm) Isend(buf comm.Buffer, dest, tag int) (*comm.Request, error) {
	const op = "send"
	if err := c.checkArgs(op, buf, dest, tag, false); err != nil {
		return nil, err
	}
	p, err := buf.Type.NewPacker(buf.Data, buf.Origin, buf.Count) // checks buf
	if err != nil {
		return nil, err
	}
	if c.mode == Raw {
		return c.rawSend(buf, dest, tag)
	}
	w := c.w
	sig, err := comm.SignatureOf(buf.Type, buf.Count)
	if err != nil {
		return nil, err
	}
	st := comm.NewStatus(c.rank, tag, sig.Bytes, sig.Sig.N)
	wdest := c.group[dest]
	req := w.newRequest()

	// pack outside the lock: inline into the header message, or into a
	// staging buffer, unless the data goes natively
	var nt C.MPI_Datatype
	native := false
	if c.mode == Native && sig.Bytes > 0 && buf.Count <= math.MaxInt32 {
		w.mu.Lock()
		nt, err = w.types.checked(buf.Type.Type())
		w.mu.Unlock()
		native = err == nil // else: send it packed
	}
	inline := !native && sig.Bytes <= int64(c.inline)
	hlen := int64(hdrSize)
	if inline {
		hlen += sig.Bytes
	}
	hptr, hb := cbytes(hlen)
	var dptr unsafe.Pointer
	var db []byte
	if inline {
		db = hb[hdrSize:]
	} else if !native && sig.Bytes > 0 {
		dptr, db = cbytes(sig.Bytes)
	}
	if db != nil {
		if _, err := p.Pack(db); err != nil && err != io.EOF {
			C.free(hptr)
			C.free(dptr)
			return nil, err
		}
	}

	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		C.free(hptr)
		C.free(dptr)
		return nil, errors.New("mpi: send after Finalize")
	}
	dataTag := -1
	if !inline {
		dataTag = w.seq[wdest]
		w.seq[wdest] = (dataTag + 1) % (w.tagUB + 1)
	}
	putHeader(hb, sig, dataTag, c.ctx, c.rank)
	left := 1
	var firstErr error
	finish := func(r result) {
		if r.code != 0 && firstErr == nil {
			firstErr = &Error{Op: "MPI_Isend", Code: r.code}
		}
		if left--; left == 0 {
			req.Complete(st, firstErr)
		}
	}
	hp := newPending(nil)
	hp.done = func(r result) { C.free(hptr); finish(r) }
	if err := check("MPI_Isend", C.ddt_isend(hptr, 0, C.int(hlen), C.ddt_byte(), C.int(wdest), C.int(tag), w.hcomm, hp.req)); err != nil {
		C.free(hptr)
		C.free(dptr)
		return nil, err
	}
	w.hsent[wdest]++
	w.start(hp)
	if inline {
		return req, nil
	}
	left++
	dp := newPending(nil)
	var rc C.int
	if native {
		base, pn := pinned(buf.Data)
		dp.done = func(r result) { pn.Unpin(); finish(r) }
		rc = C.ddt_isend(base, C.longlong(buf.Origin), C.int(buf.Count), nt, C.int(wdest), C.int(dataTag), w.dcomm, dp.req)
		if rc != 0 {
			pn.Unpin()
		}
	} else {
		dp.done = func(r result) { C.free(dptr); finish(r) }
		rc = C.ddt_isend_bytes(dptr, C.longlong(sig.Bytes), C.longlong(bytesLimit), C.int(wdest), C.int(dataTag), w.dcomm, dp.req)
		if rc != 0 {
			C.free(dptr)
		}
	}
	if err := check("MPI_Isend", rc); err != nil {
		// the header is on its way and the receiver waits for the data:
		// send it an empty data message instead, which fails its receive
		// with a short message, and fail this send
		fp := newPending(func(result) {})
		if C.ddt_isend(nil, 0, 0, C.ddt_byte(), C.int(wdest), C.int(dataTag), w.dcomm, fp.req) == 0 {
			w.start(fp)
		}
		finish(result{code: int(rc)})
		return req, nil
	}
	w.start(dp)
	return req, nil
}

func (c *Comm) rawSend(buf comm.Buffer, dest, tag int) (*comm.Request, error) {
	w := c.w
	if c.ctx != 0 {
		return nil, errors.New("send: raw mode works on the world communicator only")
	}
	if buf.Count > math.MaxInt32 {
		return nil, fmt.Errorf("send: count %d exceeds MPI's int", buf.Count)
	}
	// the signature the committed type carries: no walk of the type
	s, err := comm.SignatureOf(buf.Type, buf.Count)
	if err != nil {
		return nil, fmt.Errorf("send: %w", err)
	}
	st := comm.NewStatus(c.rank, tag, s.Bytes, s.Sig.N)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil, errors.New("mpi: send after Finalize")
	}
	nt, err := w.types.checked(buf.Type.Type())
	if err != nil {
		return nil, fmt.Errorf("send: raw mode: %w", err)
	}
	req := w.newRequest()
	base, pn := pinned(buf.Data)
	p := newPending(func(r result) {
		pn.Unpin()
		var err error
		if r.code != 0 {
			err = &Error{Op: "MPI_Isend", Code: r.code}
		}
		req.Complete(st, err)
	})
	if err := check("MPI_Isend", C.ddt_isend(base, C.longlong(buf.Origin), C.int(buf.Count), nt, C.int(dest), C.int(tag), w.rcomm, p.req)); err != nil {
		pn.Unpin()
		return nil, err
	}
	w.rsent[dest]++
	w.start(p)
	return req, nil
}

// Send sends buf to rank dest with tag and returns when buf may be reused.
func (c *Comm) Send(buf comm.Buffer, dest, tag int) error {
	return c.SendContext(context.Background(), buf, dest, tag)
}

// SendContext is Send that gives up when ctx is done; the send then stays
// in flight (an MPI send cannot be withdrawn), and the buffer must not be
// modified until Finalize.
func (c *Comm) SendContext(ctx context.Context, buf comm.Buffer, dest, tag int) error {
	r, err := c.Isend(buf, dest, tag)
	if err != nil {
		return err
	}
	_, err = r.WaitContext(ctx)
	return err
}

// Irecv starts receiving a message from source (or comm.AnySource) with
// tag (or comm.AnyTag) into buf.
func (c *Comm) Irecv(buf comm.Buffer, source, tag int) (*comm.Request, error) {
	const op = "recv"
	if err := c.checkArgs(op, buf, source, tag, true); err != nil {
		return nil, err
	}
	// check the whole receive buffer once, before anything can arrive
	u, err := buf.Type.NewUnpacker(buf.Data, buf.Origin, buf.Count)
	if err != nil {
		return nil, err
	}
	if c.mode == Raw {
		return c.rawRecv(buf, source, tag)
	}
	w := c.w
	r := &recvOp{buf: buf, mode: c.mode, req: w.newRequest(), u: u}
	r.req.SetCancel(func() bool {
		w.mu.Lock()
		defer w.mu.Unlock()
		return w.q.Withdraw(r)
	})
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil, errors.New("mpi: receive after Finalize")
	}
	w.progress() // take in the headers that arrived
	if _, m, ok := w.q.Post(c.ctx, source, tag, r); ok {
		w.deliver(m, r)
	}
	return r.req, nil
}

// deliver moves the message of header in into receive r, checking the
// signature first. w.mu is held.
func (w *world) deliver(in *incoming, r *recvOp) {
	st := comm.NewStatus(in.env.Source, in.env.Tag, in.sig.Bytes, in.sig.Sig.N)
	if err := in.sig.Check(r.buf.Type, r.buf.Count); err != nil {
		w.drain(in)
		r.req.Complete(st, fmt.Errorf("recv from rank %d, tag %d: %w", in.env.Source, in.env.Tag, err))
		return
	}
	u, err := r.u, error(nil)
	if u == nil {
		u, err = r.buf.Type.NewUnpacker(r.buf.Data, r.buf.Origin, r.buf.Count)
	}
	if err != nil { // checked at Irecv; cannot happen
		w.drain(in)
		r.req.Complete(st, err)
		return
	}
	if in.dataTag < 0 {
		_, err := u.Unpack(in.inline)
		r.req.Complete(st, err)
		return
	}
	fail := func(res result) error {
		if res.code == 0 {
			return nil
		}
		return &Error{Op: "MPI_Irecv", Code: res.code}
	}
	if r.mode == Native && r.buf.Count <= math.MaxInt32 {
		if nt, err := w.types.checked(r.buf.Type.Type()); err == nil {
			base, pn := pinned(r.buf.Data)
			p := newPending(func(res result) { pn.Unpin(); r.req.Complete(st, fail(res)) })
			if err := check("MPI_Irecv", C.ddt_irecv(base, C.longlong(r.buf.Origin), C.int(r.buf.Count), nt,
				C.int(in.wsrc), C.int(in.dataTag), w.dcomm, p.req)); err != nil {
				pn.Unpin()
				r.req.Complete(st, err)
				return
			}
			w.start(p)
			return
		}
	}
	// packed, or no native datatype: stage and unpack
	sp, sb := cbytes(in.sig.Bytes)
	p := newPending(func(res result) {
		err := fail(res)
		if err == nil && res.bytes != in.sig.Bytes {
			err = fmt.Errorf("recv from rank %d, tag %d: %d of %d bytes arrived: the send failed", in.env.Source, in.env.Tag, res.bytes, in.sig.Bytes)
		}
		if err == nil {
			_, err = u.Unpack(sb)
		}
		C.free(sp)
		r.req.Complete(st, err)
	})
	if err := check("MPI_Irecv", C.ddt_irecv_bytes(sp, C.longlong(in.sig.Bytes), C.longlong(bytesLimit),
		C.int(in.wsrc), C.int(in.dataTag), w.dcomm, p.req)); err != nil {
		C.free(sp)
		r.req.Complete(st, err)
		return
	}
	w.start(p)
}

// drain receives the data message of a header that was refused into
// scratch memory, so that the sender completes.
func (w *world) drain(in *incoming) {
	if in.dataTag < 0 {
		return
	}
	sp, _ := cbytes(in.sig.Bytes)
	p := newPending(func(result) { C.free(sp) })
	if C.ddt_irecv_bytes(sp, C.longlong(in.sig.Bytes), C.longlong(bytesLimit), C.int(in.wsrc), C.int(in.dataTag), w.dcomm, p.req) != 0 {
		C.free(sp)
		return
	}
	w.start(p)
}

func (c *Comm) rawRecv(buf comm.Buffer, source, tag int) (*comm.Request, error) {
	w := c.w
	if c.ctx != 0 {
		return nil, errors.New("recv: raw mode works on the world communicator only")
	}
	if buf.Count > math.MaxInt32 {
		return nil, fmt.Errorf("recv: count %d exceeds MPI's int", buf.Count)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil, errors.New("mpi: receive after Finalize")
	}
	nt, err := w.types.checked(buf.Type.Type())
	if err != nil {
		return nil, fmt.Errorf("recv: raw mode: %w", err)
	}
	src, tg := source, tag
	if src == comm.AnySource {
		src = anySource
	}
	if tg == comm.AnyTag {
		tg = anyTag
	}
	req := w.newRequest()
	base, pn := pinned(buf.Data)
	p := newPending(nil)
	p.etype = &nt
	p.rawRecv = true
	completed, cancelled := false, false
	p.done = func(r result) {
		pn.Unpin()
		completed = true
		if r.cancelled {
			cancelled = true
			req.Complete(comm.Status{}, errCancelled)
			return
		}
		if r.src >= 0 && r.src < w.size {
			w.rrecv[r.src]++
		}
		st := comm.NewStatus(r.src, r.tag, r.bytes, r.elements)
		var err error
		switch {
		case r.code != 0 && int(C.ddt_error_class(C.int(r.code))) == errTruncate:
			err = fmt.Errorf("recv from rank %d, tag %d: %w (MPI_ERR_TRUNCATE)", r.src, r.tag, comm.ErrTruncate)
		case r.code != 0:
			err = &Error{Op: "MPI_Irecv", Code: r.code}
		}
		req.Complete(st, err)
	}
	if err := check("MPI_Irecv", C.ddt_irecv(base, C.longlong(buf.Origin), C.int(buf.Count), nt, C.int(src), C.int(tg), w.rcomm, p.req)); err != nil {
		pn.Unpin()
		return nil, err
	}
	w.start(p)
	req.SetCancel(func() bool {
		w.mu.Lock()
		defer w.mu.Unlock()
		if completed {
			return false
		}
		C.ddt_cancel_only(p.req)
		for !completed {
			w.progress()
		}
		return cancelled
	})
	return req, nil
}

// errCancelled completes a Raw receive that was cancelled.
var errCancelled = errors.New("mpi: receive cancelled")

// Recv receives a message from source (or comm.AnySource) with tag (or
// comm.AnyTag) into buf.
func (c *Comm) Recv(buf comm.Buffer, source, tag int) (comm.Status, error) {
	return c.RecvContext(context.Background(), buf, source, tag)
}

// RecvContext is Recv that gives up when ctx is done: a receive that has
// not matched a message yet is withdrawn.
func (c *Comm) RecvContext(ctx context.Context, buf comm.Buffer, source, tag int) (comm.Status, error) {
	r, err := c.Irecv(buf, source, tag)
	if err != nil {
		return comm.Status{}, err
	}
	return r.WaitContext(ctx)
}

// Sendrecv sends sbuf to dest and receives rbuf from source, concurrently.
func (c *Comm) Sendrecv(sbuf comm.Buffer, dest, stag int, rbuf comm.Buffer, source, rtag int) (comm.Status, error) {
	rr, err := c.Irecv(rbuf, source, rtag)
	if err != nil {
		return comm.Status{}, err
	}
	sr, err := c.Isend(sbuf, dest, stag)
	if err != nil {
		rr.Wait() // a posted receive cannot be withdrawn; let it finish
		return comm.Status{}, err
	}
	st, rerr := rr.Wait()
	if _, err := sr.Wait(); err != nil {
		return st, err
	}
	return st, rerr
}

// Probe blocks until a message from source with tag can be received and
// returns its status without receiving it. In Raw mode the status's
// Elements is comm.Undefined: MPI knows the elements only of a typed receive.
func (c *Comm) Probe(source, tag int) (comm.Status, error) {
	return c.ProbeContext(context.Background(), source, tag)
}

// ProbeContext is Probe that gives up when ctx is done.
func (c *Comm) ProbeContext(ctx context.Context, source, tag int) (comm.Status, error) {
	for {
		st, ok, err := c.Iprobe(source, tag)
		if err != nil || ok {
			return st, err
		}
		if err := ctx.Err(); err != nil {
			return comm.Status{}, fmt.Errorf("probe: %w", err)
		}
		runtime.Gosched()
	}
}

// Iprobe is the nonblocking Probe: ok reports whether a message is there.
func (c *Comm) Iprobe(source, tag int) (st comm.Status, ok bool, err error) {
	if err := c.checkPeer("probe", source, tag, true); err != nil {
		return comm.Status{}, false, err
	}
	w := c.w
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return comm.Status{}, false, errors.New("mpi: probe after Finalize")
	}
	if c.mode == Raw {
		src, tg := source, tag
		if src == comm.AnySource {
			src = anySource
		}
		if tg == comm.AnyTag {
			tg = anyTag
		}
		var found, osrc, otag C.int
		var bytes C.longlong
		if err := check("MPI_Iprobe", C.ddt_iprobe(C.int(src), C.int(tg), w.rcomm, &found, &osrc, &otag, &bytes)); err != nil || found == 0 {
			return comm.Status{}, false, err
		}
		return comm.NewStatus(int(osrc), int(otag), int64(bytes), comm.Undefined), true, nil
	}
	w.progress()
	if env, m, ok := w.q.Probe(c.ctx, source, tag); ok {
		return comm.NewStatus(env.Source, env.Tag, m.sig.Bytes, m.sig.Sig.N), true, nil
	}
	return comm.Status{}, false, nil
}

// Barrier blocks until every rank has called it (MPI_Barrier), making
// progress on everything in flight meanwhile.
func (c *Comm) Barrier() error {
	if c.ctx != 0 {
		return c.colls().Barrier()
	}
	w := c.w
	req := w.newRequest()
	p := newPending(func(r result) {
		var err error
		if r.code != 0 {
			err = &Error{Op: "MPI_Ibarrier", Code: r.code}
		}
		req.Complete(comm.Status{}, err)
	})
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return errors.New("mpi: barrier after Finalize")
	}
	if err := check("MPI_Ibarrier", C.ddt_ibarrier(w.ccomm, p.req)); err != nil {
		w.mu.Unlock()
		return err
	}
	w.start(p)
	w.mu.Unlock()
	_, err := req.Wait()
	return err
}

// nativePack packs count instances of buf with MPI_Pack and the native
// datatype, for tests that compare MPI with ddt.
func (c *Comm) nativePack(buf comm.Buffer) ([]byte, error) {
	p, err := buf.Type.NewPacker(buf.Data, buf.Origin, buf.Count)
	if err != nil {
		return nil, err
	}
	w := c.w
	w.mu.Lock()
	defer w.mu.Unlock()
	nt, err := w.types.checked(buf.Type.Type())
	if err != nil {
		return nil, err
	}
	op, ob := cbytes(p.Size())
	defer C.free(op)
	base, pn := pinned(buf.Data)
	defer pn.Unpin()
	var pos C.int
	if err := check("MPI_Pack", C.ddt_pack(base, C.longlong(buf.Origin), C.int(buf.Count), nt, op, C.int(p.Size()), &pos)); err != nil {
		return nil, err
	}
	return append([]byte(nil), ob[:pos]...), nil
}
