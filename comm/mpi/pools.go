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
// whole trip through MPI. Guarded by world.mu.
type sigCache struct {
	e    [8]sigEntry
	next int
}

type sigEntry struct {
	t     *ddt.Committed
	count int64
	s     comm.Signature
}

// signature is comm.SignatureOf through the cache.
func (sc *sigCache) signature(t *ddt.Committed, count int64) (comm.Signature, error) {
	for i := range sc.e {
		if e := &sc.e[i]; e.t == t && e.count == count {
			return e.s, nil
		}
	}
	s, err := comm.SignatureOf(t, count)
	if err != nil {
		return s, err
	}
	sc.e[sc.next] = sigEntry{t, count, s}
	sc.next = (sc.next + 1) % len(sc.e)
	return s, nil
}

// check is s.Check(t, count), answered at once when s is the whole
// signature of count instances of t (the common case), else by the
// signature tree (a prefix, or a mismatch, with its error).
func (sc *sigCache) check(s comm.Signature, t *ddt.Committed, count int64) error {
	if full, err := sc.signature(t, count); err == nil && full == s {
		return nil
	}
	return s.Check(t, count)
}
