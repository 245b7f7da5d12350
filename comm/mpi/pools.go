//go:build mpi

package mpi

/*
#include "ddt_mpi.h"
*/
import "C"

import (
	"math/bits"
	"unsafe"

	"github.com/ddtlab/ddt"
	"github.com/ddtlab/ddt/comm"
)

// Pools of what every operation needs, so that a small send or receive
// allocates nothing: pending records with their MPI_Request in C memory,
// C staging buffers by power-of-two size class, and the records of
// blocking receives. Guarded by world.mu.
type pools struct {
	pending []*pending
	slabs   []unsafe.Pointer // C arrays of MPI_Requests the pooled records point into
	bufs    [bufClasses][]unsafe.Pointer
	recvs   []*recvOp
}

const (
	minBufShift = 8  // the smallest class: 256 bytes
	bufClasses  = 10 // up to 128 KiB; larger buffers are malloc'd and freed
	keepBufs    = 16 // buffers kept per class
	slabLen     = 64 // MPI_Requests per slab
)

// getPending returns a pooled pending record with a null request; it goes
// back to the pool once its completion has run (progressSpin).
func (ps *pools) getPending(done func(result)) *pending {
	if len(ps.pending) == 0 {
		slab := C.malloc(C.size_t(slabLen) * C.ddt_sizeof_request())
		ps.slabs = append(ps.slabs, slab)
		reqs := unsafe.Slice((*C.MPI_Request)(slab), slabLen)
		for i := range reqs {
			reqs[i] = C.ddt_request_null()
			ps.pending = append(ps.pending, &pending{req: &reqs[i], pooled: true})
		}
	}
	p := ps.pending[len(ps.pending)-1]
	ps.pending = ps.pending[:len(ps.pending)-1]
	p.done = done
	return p
}

// putPending returns p to the pool.
func (ps *pools) putPending(p *pending) {
	req := p.req
	*p = pending{req: req, pooled: true}
	ps.pending = append(ps.pending, p)
}

// bufClass is the size class of an n-byte buffer and its capacity, or -1
// for buffers too large to pool.
func bufClass(n int64) (int, int64) {
	if n <= 1<<minBufShift {
		return 0, 1 << minBufShift
	}
	k := bits.Len64(uint64(n-1)) - minBufShift
	if k >= bufClasses {
		return -1, n
	}
	return k, 1 << (k + minBufShift)
}

// getBuf returns C memory of at least n bytes, its Go view of n bytes and
// its capacity, which putBuf takes back.
func (ps *pools) getBuf(n int64) (unsafe.Pointer, []byte, int64) {
	k, capacity := bufClass(n)
	var p unsafe.Pointer
	if k >= 0 && len(ps.bufs[k]) > 0 {
		l := ps.bufs[k]
		p = l[len(l)-1]
		ps.bufs[k] = l[:len(l)-1]
	} else {
		p = C.malloc(C.size_t(max(capacity, 1)))
	}
	return p, unsafe.Slice((*byte)(p), n), capacity
}

// putBuf takes back a buffer of getBuf with its capacity.
func (ps *pools) putBuf(p unsafe.Pointer, capacity int64) {
	if k, c := bufClass(capacity); k >= 0 && c == capacity && len(ps.bufs[k]) < keepBufs {
		ps.bufs[k] = append(ps.bufs[k], p)
		return
	}
	C.free(p)
}

// getRecv returns a pooled record of a blocking receive.
func (ps *pools) getRecv() *recvOp {
	if n := len(ps.recvs); n > 0 {
		r := ps.recvs[n-1]
		ps.recvs = ps.recvs[:n-1]
		return r
	}
	return new(recvOp)
}

// putRecv returns r to the pool.
func (ps *pools) putRecv(r *recvOp) {
	*r = recvOp{}
	ps.recvs = append(ps.recvs, r)
}

// free releases the C memory of the pools (at Finalize, when no request
// is in flight).
func (ps *pools) free() {
	for k := range ps.bufs {
		for _, p := range ps.bufs[k] {
			C.free(p)
		}
	}
	for _, s := range ps.slabs {
		C.free(s)
	}
	*ps = pools{}
}

// sigCache remembers the signatures of the last few (type, count) pairs
// sent or received: computing one (a modular power) and matching a
// received one against a type's tree cost more than a small message's
// whole trip through MPI. With each it keeps whether the packed bytes of
// the pair are one run of memory (see sigEntry.run). Guarded by world.mu.
type sigCache struct {
	e    [8]sigEntry
	next int
}

// sigEntry is what sigCache knows of count instances of t: their
// signature s, and, when run is set, that their packed bytes are the
// s.Bytes bytes of memory from off on, relative to instance 0's origin
// (a type of one run of data that fills its extent: instances adjacent,
// packed order the memory order), so that packing them is a copy.
type sigEntry struct {
	t     *ddt.Committed
	count int64
	s     comm.Signature
	run   bool
	off   int64
}

// lookup returns the entry of (t, count), computing it on a miss. The
// entry stays valid until the next lookup.
func (sc *sigCache) lookup(t *ddt.Committed, count int64) (*sigEntry, error) {
	for i := range sc.e {
		if e := &sc.e[i]; e.t == t && e.count == count {
			return e, nil
		}
	}
	s, err := comm.SignatureOf(t, count)
	if err != nil {
		return nil, err
	}
	e := &sc.e[sc.next]
	sc.next = (sc.next + 1) % len(sc.e)
	*e = sigEntry{t: t, count: count, s: s}
	if s.Bytes > 0 {
		e.off, e.run = oneRun(t)
	}
	return e, nil
}

// oneRun reports whether the data of one instance of t is one run of
// memory that fills its extent, and the run's offset from the origin.
// It reads at most two runs of the type's description.
func oneRun(t *ddt.Committed) (int64, bool) {
	size, ext := t.Type().Size(), t.Type().Extent()
	var off, n int64
	runs := 0
	for o, k := range t.Segments(1, 0) {
		if k == 0 {
			continue
		}
		if runs++; runs > 1 {
			return 0, false
		}
		off, n = o, k
	}
	return off, runs == 1 && n == size && ext == size
}

// signature is comm.SignatureOf through the cache.
func (sc *sigCache) signature(t *ddt.Committed, count int64) (comm.Signature, error) {
	e, err := sc.lookup(t, count)
	if err != nil {
		return comm.Signature{}, err
	}
	return e.s, nil
}

// check is s.Check(t, count), answered at once when s is the whole
// signature of count instances of t (the common case), else by the
// signature tree (a prefix, or a mismatch, with its error). full reports
// the first case; e is then the cache's entry of (t, count), valid until
// the next lookup.
func (sc *sigCache) check(s comm.Signature, t *ddt.Committed, count int64) (e *sigEntry, full bool, err error) {
	if e, err := sc.lookup(t, count); err == nil && e.s == s {
		return e, true, nil
	}
	return nil, false, s.Check(t, count)
}

// packRun packs the message of buf, whose cache entry is e, into dst
// (len(dst) == e.s.Bytes): a copy when its bytes are one run inside
// buf.Data, else Pack.
func packRun(dst []byte, buf comm.Buffer, e *sigEntry) error {
	if e.run {
		if lo := buf.Origin + e.off; lo >= 0 && lo <= int64(len(buf.Data))-e.s.Bytes {
			copy(dst, buf.Data[lo:])
			return nil
		}
	}
	_, err := buf.Type.Pack(dst, buf.Data, buf.Origin, buf.Count)
	return err
}

// unpackRun is the inverse of packRun: it unpacks the whole message data
// (len(data) == e.s.Bytes) into buf.
func unpackRun(buf comm.Buffer, data []byte, e *sigEntry) error {
	if e.run {
		if lo := buf.Origin + e.off; lo >= 0 && lo <= int64(len(buf.Data))-e.s.Bytes {
			copy(buf.Data[lo:], data)
			return nil
		}
	}
	_, err := buf.Type.Unpack(buf.Data, data, buf.Origin, buf.Count)
	return err
}
