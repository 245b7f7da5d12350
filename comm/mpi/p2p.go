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
	if _, err := buf.Type.CheckBuffer("pack", len(buf.Data), buf.Origin, buf.Count); err != nil {
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
	if c.mode == Packed && sig.Bytes <= int64(c.inline) {
		w.mu.Lock()
		defer w.mu.Unlock()
		e, err := w.sigs.lookup(buf.Type, buf.Count) // whether packing is a copy
		if err != nil {
			return nil, err
		}
		p, sent, err := c.sendInline(buf, e, wdest, tag)
		switch {
		case !sent:
			return nil, err
		case p == nil:
			req.Complete(st, err)
			return req, nil
		}
		p.done = func(r result) {
			var err error
			if r.code != 0 {
				err = &Error{Op: "MPI_Isend", Code: r.code}
			}
			req.Complete(st, err)
		}
		w.start(p)
		return req, nil
	}

	// pack outside the lock: inline into the header message, or into a
	// staging buffer, unless the data goes natively
	var nt C.MPI_Datatype
	native, direct := false, false
	if (c.mode == Native || sig.Bytes > int64(c.inline)) && sig.Bytes > 0 && buf.Count <= math.MaxInt32 {
		// a data message: directly from buf when its runs are long
		w.mu.Lock()
		nt, direct = w.types.direct(buf.Type, buf.Count, c.direct)
		w.mu.Unlock()
	}
	if !direct && c.mode == Native && sig.Bytes > 0 && buf.Count <= math.MaxInt32 {
		w.mu.Lock()
		nt, err = w.types.checked(buf.Type.Type())
		w.mu.Unlock()
		native = err == nil // else: send it packed
	}
	inline := !native && !direct && sig.Bytes <= int64(c.inline)
	if !inline && !native && !direct && c.pipelined(sig.Bytes) {
		return c.isendPipe(buf, sig, wdest, tag, req, st)
	}
	hlen := int64(hdrSize)
	if inline {
		hlen += sig.Bytes
	}
	hptr, hb := cbytes(hlen)
	var dptr unsafe.Pointer
	var db []byte
	if inline {
		db = hb[hdrSize:]
	} else if !native && !direct && sig.Bytes > 0 {
		dptr, db = cbytes(sig.Bytes)
	}
	if db != nil {
		if _, err := buf.Type.Pack(db, buf.Data, buf.Origin, buf.Count); err != nil {
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
	if native || direct {
		if direct {
			w.directSends++
		}
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

// sendInline sends e.s.Bytes <= c.inline bytes of buf packed inside their
// header message, as one MPI message from a pooled C buffer, with one cgo
// call (MPI_Isend and MPI_Test); e is the signature with, from the cache,
// whether packing is a copy. The header is a compact one when the
// receiver holds it already (compact.go). sent reports whether the message left;
// if not, err says why and nothing is in flight. A sent message that MPI
// completed at once returns p == nil and MPI_Test's error; otherwise p is
// the pending send (not yet started: the caller sets its done and starts
// it), which releases the buffer when it completes. w.mu is held.
func (c *Comm) sendInline(buf comm.Buffer, e *sigEntry, wdest, tag int) (p *pending, sent bool, err error) {
	w := c.w
	if w.closed {
		return nil, false, errors.New("mpi: send after Finalize")
	}
	key := compactKey{sig: e.s, ctx: c.ctx, src: c.rank}
	h := key.mix()
	slot := int(h % compactSlots)
	tb := w.compact.peer(&w.compact.out, wdest, w.size)
	short := useCompact && tb[slot].ok && tb[slot].k == key
	hoff := int64(hdrSize)
	if short {
		hoff = compactSize
	}
	hlen := hoff + e.s.Bytes
	hp, hb, hcap := w.pools.getBuf(hlen)
	if e.s.Bytes > 0 {
		if err := packRun(hb[hoff:], buf, e); err != nil {
			w.pools.putBuf(hp, hcap)
			return nil, false, err
		}
	}
	if short {
		putCompact(hb, compactWord(h, slot))
	} else {
		putHeader(hb, e.s, -1, c.ctx, c.rank)
		if useCompact {
			// the receiver keeps it in slot, which stays invalid here
			// until the send has completed
			put64(hb[32:], le64(hb[32:])|uint64(slot+1)<<32)
			tb[slot].ok = false
		}
	}
	p = w.pools.getPending(nil)
	out := &unsafe.Slice((*C.int)(w.pb.ints), 4)[2]
	rc := C.ddt_isend_test((*C.char)(hp), C.int(hlen), C.int(wdest), C.int(tag), w.hcommH, cAddr(unsafe.Pointer(p.req)), out, C.int(testAtOnce))
	done := *out
	if done == 0 && rc != 0 { // MPI_Isend failed
		w.pools.putBuf(hp, hcap)
		w.pools.putPending(p)
		return nil, false, check("MPI_Isend", rc)
	}
	w.hsent[wdest]++
	switch {
	case short:
		w.compact.sent++
	case useCompact && rc == 0 && done != 0:
		// the full header has left without error: later messages with it
		// may name its slot (a send left in flight does not validate it)
		tb[slot] = compactEntry{k: key, ok: true}
	}
	if done != 0 {
		w.pools.putBuf(hp, hcap)
		w.pools.putPending(p)
		return nil, true, check("MPI_Test", rc)
	}
	p.buf, p.bufCap = hp, hcap
	return p, true, nil
}

// testAtOnce is 1 when sendInline tests a send as soon as it is started;
// tests set it to 0 to take the path of sends that MPI does not complete
// at once.
var testAtOnce = 1

// useCompact is whether small messages are sent with compact headers when
// the receiver holds their header (compact.go); tests turn it off.
var useCompact = true

// sendSmall is Send of a message that travels inside its header (Packed
// mode, at most the inline limit): no request, no allocation, one cgo
// call when MPI sends it at once. It reports false, having done nothing,
// for other messages.
func (c *Comm) sendSmall(buf comm.Buffer, dest, tag int) (bool, error) {
	if c.mode != Packed {
		return false, nil
	}
	if err := c.checkArgs("send", buf, dest, tag, false); err != nil {
		return true, err
	}
	if _, err := buf.Type.CheckBuffer("pack", len(buf.Data), buf.Origin, buf.Count); err != nil {
		return true, err
	}
	w := c.w
	w.mu.Lock()
	e, err := w.sigs.lookup(buf.Type, buf.Count)
	if err != nil || e.s.Bytes > int64(c.inline) {
		w.mu.Unlock()
		return err != nil, err
	}
	p, _, err := c.sendInline(buf, e, c.group[dest], tag)
	if p == nil {
		w.mu.Unlock()
		return true, err
	}
	err = w.waitSend(p)
	w.mu.Unlock()
	return true, err
}

// waitSend starts the pending send p and makes progress until it
// completes. w.mu is held (and released while other goroutines run).
func (w *world) waitSend(p *pending) error {
	fin, code := false, 0
	p.done = func(r result) { fin, code = true, r.code }
	w.start(p)
	for !fin {
		busy := w.progressSpin(spinTime)
		if fin {
			break
		}
		w.mu.Unlock()
		if !busy {
			runtime.Gosched()
		}
		w.mu.Lock()
	}
	if code != 0 {
		return &Error{Op: "MPI_Isend", Code: code}
	}
	return nil
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
	if ok, err := c.sendSmall(buf, dest, tag); ok {
		return err
	}
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
	if _, err := buf.Type.CheckBuffer("unpack", len(buf.Data), buf.Origin, buf.Count); err != nil {
		return nil, err
	}
	if c.mode == Raw {
		return c.rawRecv(buf, source, tag)
	}
	w := c.w
	r := &recvOp{buf: buf, mode: c.mode, direct: c.direct, req: w.newRequest()}
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
	// headers that arrived in MPI but are not taken in yet are matched
	// when they are, in order, against the receives posted then
	if _, m, ok := w.q.Post(c.ctx, source, tag, r); ok {
		w.deliver(m, r)
	}
	return r.req, nil
}

// recvBlocking is Recv in Packed and Native mode: a pooled receive record
// instead of a request, matched against the headers as they are taken in
// (a small message is unpacked straight from the header buffer it arrived
// in), and progress made until it completes. It allocates nothing for a
// message that travels inline.
func (c *Comm) recvBlocking(buf comm.Buffer, source, tag int) (comm.Status, error) {
	if err := c.checkArgs("recv", buf, source, tag, true); err != nil {
		return comm.Status{}, err
	}
	if _, err := buf.Type.CheckBuffer("unpack", len(buf.Data), buf.Origin, buf.Count); err != nil {
		return comm.Status{}, err
	}
	w := c.w
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return comm.Status{}, errors.New("mpi: receive after Finalize")
	}
	r := w.pools.getRecv()
	r.buf, r.mode, r.direct = buf, c.mode, c.direct
	if _, m, ok := w.q.Post(c.ctx, source, tag, r); ok {
		w.deliver(m, r)
	}
	for !r.done {
		busy := w.progressSpin(spinTime)
		if r.done {
			break
		}
		w.mu.Unlock()
		if !busy {
			runtime.Gosched()
		}
		w.mu.Lock()
	}
	st, err := r.st, r.err
	w.pools.putRecv(r)
	w.mu.Unlock()
	return st, err
}

// unpackInto unpacks the packed bytes data of a message into buf: at once
// when they are the whole of buf (full: the message's signature is buf's
// whole signature, whose cache entry is e), through an Unpacker when the
// message is shorter (a prefix of buf's signature).
func unpackInto(buf comm.Buffer, data []byte, e *sigEntry, full bool) error {
	if full {
		return unpackRun(buf, data, e)
	}
	u, err := buf.Type.NewUnpacker(buf.Data, buf.Origin, buf.Count)
	if err != nil {
		return err
	}
	_, err = u.Unpack(data)
	return err
}

// deliver moves the message of header in into receive r, checking the
// signature first. in is not kept: inline data is unpacked at once. w.mu
// is held.
func (w *world) deliver(in *incoming, r *recvOp) {
	st := comm.NewStatus(in.env.Source, in.env.Tag, in.sig.Bytes, in.sig.Sig.N)
	src, tag, wsrc, dataTag, n := in.env.Source, in.env.Tag, in.wsrc, in.dataTag, in.sig.Bytes
	e, full, err := w.sigs.check(in.sig, r.buf.Type, r.buf.Count)
	if err != nil {
		w.drainIn(in)
		r.finish(st, fmt.Errorf("recv from rank %d, tag %d: %w", src, tag, err))
		return
	}
	if in.packet > 0 { // in packets: staged, unpacked as they arrive
		w.recvPipe(in, r, st)
		return
	}
	if dataTag < 0 {
		r.finish(st, unpackInto(r.buf, in.inline, e, full))
		return
	}
	fail := func(res result) error {
		switch {
		case res.code != 0:
			return &Error{Op: "MPI_Irecv", Code: res.code}
		case res.bytes != n:
			return fmt.Errorf("recv from rank %d, tag %d: %d of %d bytes arrived: the send failed", src, tag, res.bytes, n)
		}
		return nil
	}
	nt, native := nil0(), false
	if directFits(r.buf.Type, r.buf.Count, n) {
		// a message that fills buf: directly into it when its runs are long
		if nt, native = w.types.direct(r.buf.Type, r.buf.Count, r.direct); native {
			w.directRecvs++
		}
	}
	if !native && r.mode == Native && r.buf.Count <= math.MaxInt32 {
		var err error
		nt, err = w.types.checked(r.buf.Type.Type())
		native = err == nil
	}
	if native {
		base, pn := pinned(r.buf.Data)
		p := w.pools.getPending(func(res result) { pn.Unpin(); r.finish(st, fail(res)) })
		if err := check("MPI_Irecv", C.ddt_irecv(base, C.longlong(r.buf.Origin), C.int(r.buf.Count), nt,
			C.int(wsrc), C.int(dataTag), w.dcomm, p.req)); err != nil {
			pn.Unpin()
			w.pools.putPending(p)
			r.finish(st, err)
			return
		}
		w.start(p)
		return
	}
	// packed, or no native datatype: stage and unpack
	sp, sb, scap := w.pools.getBuf(n)
	var se sigEntry // a copy for the closure: the cache's entry may change
	if full {
		se = *e
	}
	p := w.pools.getPending(func(res result) {
		err := fail(res)
		if err == nil {
			err = unpackInto(r.buf, sb, &se, full)
		}
		r.finish(st, err)
	})
	if err := check("MPI_Irecv", C.ddt_irecv_bytes(sp, C.longlong(n), C.longlong(bytesLimit),
		C.int(wsrc), C.int(dataTag), w.dcomm, p.req)); err != nil {
		w.pools.putBuf(sp, scap)
		w.pools.putPending(p)
		r.finish(st, err)
		return
	}
	p.buf, p.bufCap = sp, scap
	w.start(p)
}

// drain receives the n-byte data message with tag dataTag from world rank
// wsrc of a header that was refused into scratch memory, so that the
// sender completes; nothing for inline data (dataTag < 0).
func (w *world) drain(n int64, wsrc, dataTag int) {
	if dataTag < 0 {
		return
	}
	sp, _, scap := w.pools.getBuf(n)
	p := w.pools.getPending(nil)
	if C.ddt_irecv_bytes(sp, C.longlong(n), C.longlong(bytesLimit), C.int(wsrc), C.int(dataTag), w.dcomm, p.req) != 0 {
		w.pools.putBuf(sp, scap)
		w.pools.putPending(p)
		return
	}
	p.buf, p.bufCap = sp, scap
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
	if c.mode != Raw {
		return c.recvBlocking(buf, source, tag)
	}
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
