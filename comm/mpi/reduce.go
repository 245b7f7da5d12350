//go:build mpi

package mpi

/*
#include "ddt_mpi.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"unsafe"

	"github.com/ddtlab/ddt/comm"
	"github.com/ddtlab/ddt/datatype"
)

// Reductions: see the package documentation.

// nativeOps are the operations MPI reduces, by their number in ddt_op.
var nativeOps = [...]*comm.Op{nil, comm.Sum, comm.Prod, comm.Min, comm.Max, comm.Land, comm.Lor, comm.Lxor, comm.Band, comm.Bor, comm.Bxor, comm.Minloc, comm.Maxloc}

// pairTypes are the pair types MINLOC and MAXLOC take.
var pairTypes = [...]*datatype.Type{datatype.FloatInt, datatype.DoubleInt, datatype.LongInt, datatype.TwoInt, datatype.ShortInt, datatype.LongDoubleInt}

// pairOf returns the pair type whose (value, int) pairs are all the
// elements of one instance of t, or nil.
func pairOf(t *datatype.Type) *datatype.Type {
	var val datatype.Basic
	k, ok := int64(0), true
	t.Walk(1, func(b datatype.Basic, _ int64) bool {
		switch {
		case k == 0:
			val = b
		case k%2 == 0:
			ok = b == val
		default:
			ok = b == datatype.Int
		}
		k++
		return ok
	})
	if !ok || k == 0 || k%2 != 0 {
		return nil
	}
	for _, pt := range pairTypes {
		var first datatype.Basic
		pt.Walk(1, func(b datatype.Basic, _ int64) bool { first = b; return false })
		if first == val {
			return pt
		}
	}
	return nil
}

func nativeOp(op *comm.Op) int {
	for i, o := range nativeOps {
		if o != nil && o == op {
			return i
		}
	}
	return 0
}

// trusted reports whether MPI libraries reduce b with op correctly. MIN
// and MAX on unsigned integers are not: MPICH 4.0.2 compares them as
// signed (pmodels/mpich#6083), Open MPI 4.1.2-4.1.4 compares
// MPI_UNSIGNED_LONG as signed (open-mpi/ompi#10525) and, on this
// machine's 4.1.4, MPI_OFFSET as unsigned; ddt reduces those, and
// the multi-language types (MPI_AINT, MPI_OFFSET, MPI_COUNT), itself.
func trusted(op *comm.Op, b datatype.Basic) bool {
	if op != comm.Min && op != comm.Max {
		return true
	}
	switch b {
	case datatype.UnsignedChar, datatype.Uint8, datatype.UnsignedShort, datatype.Uint16, datatype.Unsigned,
		datatype.Uint32, datatype.UnsignedLong, datatype.UnsignedLongLong, datatype.Uint64,
		datatype.Aint, datatype.Offset, datatype.Count:
		return false
	}
	return true
}

// Reduction kinds of ddt_ireduction.
const (
	redReduce = 1 + iota
	redAllreduce
	redReduceScatter
	redReduceScatterBlock
	redScan
	redExscan
)

var redNames = [...]string{"", "MPI_Ireduce", "MPI_Iallreduce", "MPI_Ireduce_scatter", "MPI_Ireduce_scatter_block", "MPI_Iscan", "MPI_Iexscan"}

// isWorld reports whether c is the world communicator, on which MPI's
// collectives may run.
func (c *Comm) isWorld() bool { return c.ctx == 0 && len(c.group) == c.w.size }

// redArgs are a reduction's arguments.
type redArgs struct {
	kind       int
	send, recv comm.Buffer
	op         *comm.Op
	root       int
	counts     []int64
}

// plan is what this rank decides about a native reduction. MPI reduces
// units: basic elements, or (value, int) pairs for MINLOC and MAXLOC.
type plan struct {
	ok      bool // its arguments are good and MPI can do it
	basic   datatype.Basic
	pair    *datatype.Type // the pair type of MINLOC and MAXLOC, else nil
	units   int64          // units of send
	perInst int64          // units of one instance of send's type
	words   [8]uint64
}

// plan describes a on this rank; ok is false (and the reduction left to
// ddt) for anything MPI cannot do or any bad argument.
func (c *Comm) plan(a redArgs) plan {
	var p plan
	p.words[0] = uint64(a.kind)
	k := nativeOp(a.op)
	p.words[1] = uint64(k)
	if a.op != nil && k == 0 {
		p.words[1] = 1 << 40 // a user operation or MINLOC/MAXLOC
	}
	p.words[5] = uint64(int64(a.root))
	if a.counts != nil {
		h := fnv.New64a()
		for _, x := range a.counts {
			var b [8]byte
			for i := range b {
				b[i] = byte(uint64(x) >> (8 * i))
			}
			h.Write(b[:])
		}
		p.words[6] = h.Sum64()
	}
	if a.send.Type == nil || a.send.Count < 0 {
		return p
	}
	sig, err := comm.SignatureOf(a.send.Type, a.send.Count)
	if err != nil {
		return p
	}
	p.words[2], p.words[3] = sig.Sig.Hash, uint64(sig.Sig.N)
	if sig.Sig.Uniform {
		p.words[4] = 1 + uint64(sig.Sig.Basic)
	}
	n, me := c.Size(), c.Rank()
	if k == 0 || sig.Sig.N > math.MaxInt32 {
		return p
	}
	if a.op == comm.Minloc || a.op == comm.Maxloc {
		if p.pair = pairOf(a.send.Type.Type()); p.pair == nil {
			return p
		}
		p.units, p.perInst = sig.Sig.N/2, a.send.Type.Type().Elements()/2
	} else {
		if !sig.Sig.Uniform || !a.op.Defined(sig.Sig.Basic) || !trusted(a.op, sig.Sig.Basic) {
			return p
		}
		p.basic, p.units, p.perInst = sig.Sig.Basic, sig.Sig.N, a.send.Type.Type().Elements()
	}
	if _, err := a.send.Type.NewPacker(a.send.Data, a.send.Origin, a.send.Count); err != nil {
		return p
	}
	recvCount := a.send.Count // instances of send's type that recv takes
	needRecv := true
	switch a.kind {
	case redReduce:
		if a.root < 0 || a.root >= n {
			return p
		}
		needRecv = me == a.root
	case redExscan:
		needRecv = me > 0
	case redReduceScatter, redReduceScatterBlock:
		if len(a.counts) != n {
			return p
		}
		total := int64(0)
		for _, x := range a.counts {
			if x < 0 || x > math.MaxInt32 {
				return p
			}
			total += x
		}
		if total != a.send.Count || a.counts[me]*p.perInst > math.MaxInt32 {
			return p
		}
		recvCount = a.counts[me]
	}
	if needRecv {
		if a.recv.Type == nil || a.recv.Count < 0 {
			return p
		}
		want, err1 := comm.SignatureOf(a.send.Type, recvCount)
		got, err2 := comm.SignatureOf(a.recv.Type, a.recv.Count)
		if err1 != nil || err2 != nil {
			return p
		}
		if same, _ := want.Sig.Same(got.Sig); !same {
			return p
		}
		if _, err := a.recv.Type.NewUnpacker(a.recv.Data, a.recv.Origin, a.recv.Count); err != nil {
			return p
		}
	}
	p.ok = true
	return p
}

// agree runs the MPI_Iallreduce that tells every rank whether all planned
// the same native reduction.
func (c *Comm) agree(p plan) (bool, error) {
	// words as 32-bit halves, each with its negation: MAX gives the
	// maximum and minus the minimum of every half
	const nw = len(plan{}.words)
	const n = 4*nw + 2
	buf := C.malloc(C.size_t(2 * 8 * n))
	defer C.free(buf)
	v := unsafe.Slice((*int64)(buf), 2*n)
	for i, w := range p.words {
		hi, lo := int64(w>>32), int64(w&0xffffffff)
		v[4*i], v[4*i+1], v[4*i+2], v[4*i+3] = hi, -hi, lo, -lo
	}
	ok := int64(0)
	if p.ok {
		ok = 1
	}
	v[4*nw], v[4*nw+1] = ok, -ok
	req, err := c.w.ireduction("MPI_Iallreduce", redAllreduce, buf, unsafe.Add(buf, 8*n), n, nil, C.ddt_long_long(), 4, 0)
	if err != nil {
		return false, err
	}
	if _, err := req.Wait(); err != nil {
		return false, err
	}
	out := v[n:]
	for i := 0; i < n; i += 2 {
		if out[i] != -out[i+1] {
			return false, nil // the ranks differ
		}
	}
	return out[4*nw] == 1, nil
}

// namedType returns MPI's predefined datatype of the given C name,
// looked up once.
func (w *world) namedType(name string) C.MPI_Datatype {
	w.mu.Lock()
	defer w.mu.Unlock()
	if t, ok := w.named[name]; ok {
		return t
	}
	cs := C.CString(name)
	t := C.ddt_named(cs)
	C.free(unsafe.Pointer(cs))
	if w.named == nil {
		w.named = map[string]C.MPI_Datatype{}
	}
	w.named[name] = t
	return t
}

// ireduction starts an MPI reduction and returns its request.
func (w *world) ireduction(name string, kind int, s, r unsafe.Pointer, count int, counts *C.int, t C.MPI_Datatype, op, root int) (*comm.Request, error) {
	req := w.newRequest()
	p := newPending(func(res result) {
		var err error
		if res.code != 0 {
			err = &Error{Op: name, Code: res.code}
		}
		req.Complete(comm.Status{}, err)
	})
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil, errors.New("mpi: reduction after Finalize")
	}
	if err := check(name, C.ddt_ireduction(C.int(kind), s, r, C.int(count), counts, t, C.int(op), C.int(root), w.ccomm, p.req)); err != nil {
		return nil, err
	}
	w.start(p)
	return req, nil
}

// reduce runs a on MPI if every rank agrees that MPI can do it; handled
// is false when the reduction is left to ddt.
func (c *Comm) reduce(a redArgs) (handled bool, err error) {
	if !c.isWorld() {
		return false, nil
	}
	p := c.plan(a)
	ok, err := c.agree(p)
	if err != nil {
		return true, err
	}
	if !ok {
		return false, nil
	}
	name := redNames[a.kind]
	n, me := c.Size(), c.Rank()
	// units: packed size psize, in MPI's layout msize bytes with the
	// index (of a pair) at offset idx
	psize, msize, idx := p.basic.Size(), p.basic.Size(), int64(0)
	cn := p.basic.CName()
	if p.pair != nil {
		psize, msize, cn = p.pair.Size(), p.pair.Extent(), pairCNames[p.pair.Name()]
		p.pair.Walk(1, func(_ datatype.Basic, d int64) bool { idx = d; return true })
	}
	t := c.w.namedType(cn)
	// one C allocation: the send units, then room for the received ones
	rmax := p.units
	if a.kind == redReduceScatter || a.kind == redReduceScatterBlock {
		rmax = a.counts[me] * p.perInst
	}
	sbuf, all := cbytes((p.units + max(rmax, 1)) * msize)
	defer C.free(sbuf)
	sb := all[:p.units*msize]
	packed := sb
	if p.pair != nil {
		packed = make([]byte, p.units*psize)
	}
	if _, err := a.send.Type.Pack(packed, a.send.Data, a.send.Origin, a.send.Count); err != nil && err != io.EOF {
		return true, fmt.Errorf("%s: send: %w", name, err)
	}
	if p.pair != nil { // (value, int) pairs to MPI's struct layout
		for j := range p.units {
			copy(sb[j*msize:j*msize+psize-4], packed[j*psize:])
			copy(sb[j*msize+idx:j*msize+idx+4], packed[j*psize+psize-4:])
		}
	}
	count := p.units
	runits := p.units // units this rank receives
	var counts *C.int
	switch a.kind {
	case redReduce:
		if me != a.root {
			runits = 0
		}
	case redExscan:
		if me == 0 {
			runits = 0
		}
	case redReduceScatter:
		cs := C.malloc(C.size_t(4 * n))
		defer C.free(cs)
		cv := unsafe.Slice((*C.int)(cs), n)
		for i, x := range a.counts {
			cv[i] = C.int(x * p.perInst)
		}
		counts = (*C.int)(cs)
		runits = a.counts[me] * p.perInst
	case redReduceScatterBlock:
		count = a.counts[me] * p.perInst
		runits = count
	}
	rbuf, rb := unsafe.Add(sbuf, p.units*msize), all[p.units*msize:]
	req, err := c.w.ireduction(name, a.kind, sbuf, rbuf, int(count), counts, t, nativeOp(a.op), a.root)
	if err != nil {
		return true, err
	}
	if _, err := req.Wait(); err != nil {
		return true, err
	}
	c.w.mu.Lock()
	c.w.nativeReductions++
	c.w.mu.Unlock()
	if runits == 0 && !(a.kind == redReduceScatter || a.kind == redReduceScatterBlock) {
		return true, nil
	}
	res := rb[:runits*msize]
	if p.pair != nil { // back to packed pairs
		res = make([]byte, runits*psize)
		for j := range runits {
			copy(res[j*psize:j*psize+psize-4], rb[j*msize:])
			copy(res[j*psize+psize-4:j*psize+psize], rb[j*msize+idx:])
		}
	}
	if _, err := a.recv.Type.Unpack(a.recv.Data, res, a.recv.Origin, a.recv.Count); err != nil {
		return true, fmt.Errorf("%s: recv: %w", name, err)
	}
	return true, nil
}
