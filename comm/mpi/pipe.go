//go:build mpi

package mpi

/*
#include "ddt_mpi.h"
*/
import "C"

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"strconv"

	"github.com/ddtlab/ddt"
	"github.com/ddtlab/ddt/comm"
)

// Pipelined data messages. A staged data message (Packed mode, above the
// inline limit, not zero-copy) of at least PipeMin bytes travels as
// packets of Packet bytes (the last one shorter) under its one data tag,
// in order (MPI does not let messages of one source, tag and
// communicator overtake each other). The header says so: the upper half
// of its data-tag word holds the packet size (0: one data message), so
// the receiver needs nothing but the header to know what follows, and
// each side decides alone:
//
//   - the sender packs packet k+1 while packet k is in flight: it starts
//     up to pipeWindow packets at once and packs and starts the next one
//     whenever one completes (in the progress of whoever waits), so the
//     staging memory is pipeWindow packets, not the message;
//   - the receiver posts up to pipeWindow packet receives into pooled
//     buffers and unpacks each as it completes, at its place in the
//     message (ddt's Unpacker resumes at any byte), then posts the next;
//   - a receive that would have gone directly (zero-copy) or natively
//     stages a packetized message like any other; a direct or native
//     sender never packetizes.
//
// Checks are the header's, as for every data message: the signature
// (mismatch and truncation) is checked before any packet is received; a
// refused message's packets are drained into scratch memory. Every
// packet receive checks that its whole packet arrived: a sender whose
// MPI_Isend fails sends the packets it has left empty, and the receiver
// fails after receiving all of them, so nothing hangs.

// DefaultPacket is the default Options.Packet: the packet size of
// pipelined messages, in bytes (measured in docs/comm-mpi.md,
// "Pipelined messages").
const DefaultPacket = 64 << 10

// DefaultPipeMin is the default Options.PipeMin: the packed size in bytes
// from which a staged data message is pipelined.
const DefaultPipeMin = 512 << 10

// defaultWindow is the number of packets in flight per pipelined message
// on each side unless DDT_MPI_PIPE_WINDOW says otherwise.
const defaultWindow = 4

// envInt reads a positive integer from the environment, or def.
func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n != 0 {
		return n
	}
	return def
}

var (
	envPacket  = envInt("DDT_MPI_PACKET", DefaultPacket) // negative: never
	envPipeMin = envInt("DDT_MPI_PIPE_MIN", DefaultPipeMin)
	pipeWindow = max(1, envInt("DDT_MPI_PIPE_WINDOW", defaultWindow))
)

// For tests, guarded by world.mu: pipelined messages sent and received
// (drains not counted), and the packet whose MPI_Isend is made to fail
// (-1: none).
var (
	pipeSends, pipeRecvs int64
	pipeFailAt           = -1
)

// maxPacket bounds the packet size: it travels in 32 bits of the header.
const maxPacket = 1 << 30

func (c *Comm) withPipeline(packet, pipeMin int) *Comm {
	if packet == 0 {
		packet = envPacket
	}
	if packet < 0 {
		packet = -1
	}
	packet = min(packet, maxPacket)
	if pipeMin == 0 {
		pipeMin = envPipeMin
	}
	c.packet, c.pipeMin = packet, max(pipeMin, 0)
	return c
}

// WithPipeline returns a Comm of the same world with other
// Options.Packet and Options.PipeMin (0: the defaults; a negative packet
// size: never pipelined).
func (c *Comm) WithPipeline(packet, pipeMin int) *Comm {
	d := *c
	return d.withPipeline(packet, pipeMin)
}

// pipelined reports whether a staged data message of n packed bytes goes
// in packets.
func (c *Comm) pipelined(n int64) bool {
	return c.packet > 0 && n > int64(c.packet) && n >= int64(c.pipeMin)
}

// dataWord splits the header's data-tag word: the data tag (-1: inline
// data) and the packet size (0: one data message).
func dataWord(x uint64) (tag int, packet int64) {
	if int64(x) < 0 {
		return int(int64(x)), 0
	}
	return int(uint32(x)), int64(x >> 32)
}

// packets is the number of packets of an n-byte message in packets of pkt
// bytes.
func packets(n, pkt int64) int { return int((n + pkt - 1) / pkt) }

// pipeSend is a pipelined message on its way out. Guarded by world.mu.
type pipeSend struct {
	w              *world
	pk             *ddt.Packer
	n, pkt         int64
	next, total    int // packets started, all packets
	inflight       int
	wdest, dataTag int
	failed         bool // a packet could not be sent: the rest go empty
	err            error
	fin            func(error) // completes the send, once
	onDone         func(result)
}

// isendPipe is Isend of a staged message in packets: it sends the header
// (with the packet size) and the first packets; progress sends the rest.
func (c *Comm) isendPipe(buf comm.Buffer, sig comm.Signature, wdest, tag int, req *comm.Request, st comm.Status) (*comm.Request, error) {
	pk, err := buf.Type.NewPacker(buf.Data, buf.Origin, buf.Count)
	if err != nil {
		return nil, err
	}
	w := c.w
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil, errors.New("mpi: send after Finalize")
	}
	hp, hb, hcap := w.pools.getBuf(hdrSize)
	dataTag := w.seq[wdest]
	putHeader(hb, sig, dataTag, c.ctx, c.rank)
	binary.LittleEndian.PutUint32(hb[28:], uint32(c.packet))
	s := &pipeSend{w: w, pk: pk, n: sig.Bytes, pkt: int64(c.packet), total: packets(sig.Bytes, int64(c.packet)), wdest: wdest, dataTag: dataTag}
	left := 2 // the header and the packets
	var firstErr error
	finish := func(err error) {
		if err != nil && firstErr == nil {
			firstErr = err
		}
		if left--; left == 0 {
			req.Complete(st, firstErr)
		}
	}
	s.fin = finish
	s.onDone = s.sent
	hpend := w.pools.getPending(func(r result) {
		var err error
		if r.code != 0 {
			err = &Error{Op: "MPI_Isend", Code: r.code}
		}
		finish(err)
	})
	if err := check("MPI_Isend", C.ddt_isend(hp, 0, C.int(hdrSize), C.ddt_byte(), C.int(wdest), C.int(tag), w.hcomm, hpend.req)); err != nil {
		w.pools.putBuf(hp, hcap)
		w.pools.putPending(hpend)
		return nil, err
	}
	hpend.buf, hpend.bufCap = hp, hcap
	w.seq[wdest] = (dataTag + 1) % (w.tagUB + 1)
	w.hsent[wdest]++
	w.start(hpend)
	pipeSends++
	s.fill()
	return req, nil
}

// fill starts packets until pipeWindow are in flight, and completes the
// send after the last one. w.mu is held.
func (s *pipeSend) fill() {
	for s.inflight < pipeWindow && s.next < s.total {
		s.send()
	}
	if s.inflight == 0 && s.next == s.total && s.fin != nil {
		fin := s.fin
		s.fin = nil
		fin(s.err)
	}
}

// send packs and starts packet s.next (an empty message once a packet
// could not be sent).
func (s *pipeSend) send() {
	w := s.w
	k := s.next
	s.next++
	size := min(s.pkt, s.n-int64(k)*s.pkt)
	p := w.pools.getPending(s.onDone)
	if !s.failed {
		bp, bb, bcap := w.pools.getBuf(size)
		var rc C.int
		if _, err := s.pk.Pack(bb); err != nil {
			s.err = errors.Join(s.err, err)
			rc = -1
		} else if k == pipeFailAt {
			s.err = errors.Join(s.err, fmt.Errorf("send: packet %d: injected failure", k))
			rc = -1
		} else {
			rc = C.ddt_isend_bytes(bp, C.longlong(size), C.longlong(bytesLimit), C.int(s.wdest), C.int(s.dataTag), w.dcomm, p.req)
		}
		if rc == 0 {
			p.buf, p.bufCap = bp, bcap
			s.inflight++
			w.start(p)
			return
		}
		w.pools.putBuf(bp, bcap)
		if rc != -1 {
			s.err = errors.Join(s.err, check("MPI_Isend", rc))
		}
		// the receiver waits for every packet: the rest go empty, which
		// fails its receive with a short packet
		s.failed = true
	}
	if C.ddt_isend(nil, 0, 0, C.ddt_byte(), C.int(s.wdest), C.int(s.dataTag), w.dcomm, p.req) != 0 {
		w.pools.putPending(p)
		return
	}
	s.inflight++
	w.start(p)
}

// sent is the completion of a packet send.
func (s *pipeSend) sent(r result) {
	s.inflight--
	if r.code != 0 && s.err == nil {
		s.err = &Error{Op: "MPI_Isend", Code: r.code}
	}
	s.fill()
}

// pipeRecv is a pipelined message being received (or drained: u == nil).
// Guarded by world.mu.
type pipeRecv struct {
	w           *world
	u           *ddt.Unpacker // nil: drain
	r           *recvOp       // nil: drain
	st          comm.Status
	n, pkt      int64
	next, total int
	inflight    int
	wsrc        int
	dataTag     int
	src, tag    int // for errors
	err         error
}

// recvPipe receives the packets of the message of header in into r,
// whose signature has been checked. w.mu is held.
func (w *world) recvPipe(in *incoming, r *recvOp, st comm.Status) {
	u, err := r.buf.Type.NewUnpacker(r.buf.Data, r.buf.Origin, r.buf.Count)
	pr := &pipeRecv{w: w, u: u, r: r, st: st, n: in.sig.Bytes, pkt: in.packet, total: packets(in.sig.Bytes, in.packet),
		wsrc: in.wsrc, dataTag: in.dataTag, src: in.env.Source, tag: in.env.Tag, err: err}
	if err != nil {
		pr.u = nil // receive the packets, unpack nothing
	}
	pipeRecvs++
	pr.fill()
}

// drainIn receives the data of the refused or never received message of
// header in into scratch memory, so that the sender completes.
func (w *world) drainIn(in *incoming) {
	if in.packet <= 0 || in.dataTag < 0 {
		w.drain(in.sig.Bytes, in.wsrc, in.dataTag)
		return
	}
	pr := &pipeRecv{w: w, n: in.sig.Bytes, pkt: in.packet, total: packets(in.sig.Bytes, in.packet), wsrc: in.wsrc, dataTag: in.dataTag}
	pr.fill()
}

// fill posts packet receives until pipeWindow are in flight, and finishes
// the receive after the last one. w.mu is held.
func (pr *pipeRecv) fill() {
	for pr.inflight < pipeWindow && pr.next < pr.total {
		pr.post()
	}
	if pr.inflight == 0 && pr.next == pr.total && pr.r != nil {
		r := pr.r
		pr.r = nil
		r.finish(pr.st, pr.err)
	}
}

// post posts the receive of packet pr.next into a pooled buffer.
func (pr *pipeRecv) post() {
	w := pr.w
	k := pr.next
	pr.next++
	off := int64(k) * pr.pkt
	size := min(pr.pkt, pr.n-off)
	bp, bb, bcap := w.pools.getBuf(size)
	p := w.pools.getPending(func(res result) { pr.arrived(res, off, bb) })
	if err := check("MPI_Irecv", C.ddt_irecv_bytes(bp, C.longlong(size), C.longlong(bytesLimit),
		C.int(pr.wsrc), C.int(pr.dataTag), w.dcomm, p.req)); err != nil {
		// the packet stays unreceived; the receive fails now
		w.pools.putBuf(bp, bcap)
		w.pools.putPending(p)
		pr.fail(err)
		pr.next = pr.total
		return
	}
	p.buf, p.bufCap = bp, bcap // released after arrived has run
	pr.inflight++
	w.start(p)
}

func (pr *pipeRecv) fail(err error) {
	if pr.err == nil {
		pr.err = err
	}
	pr.u = nil
}

// arrived is the completion of the receive of the packet at byte off of
// the message, into b.
func (pr *pipeRecv) arrived(res result, off int64, b []byte) {
	pr.inflight--
	switch {
	case res.code != 0:
		pr.fail(&Error{Op: "MPI_Irecv", Code: res.code})
	case res.bytes != int64(len(b)):
		pr.fail(fmt.Errorf("recv from rank %d, tag %d: packet at byte %d: %d of %d bytes arrived: the send failed", pr.src, pr.tag, off, res.bytes, len(b)))
	case pr.u != nil:
		if pr.u.Pos() != off {
			if err := pr.u.SetPos(off); err != nil {
				pr.fail(err)
				break
			}
		}
		if _, err := pr.u.Unpack(b); err != nil {
			pr.fail(err)
		}
	}
	pr.fill()
}
