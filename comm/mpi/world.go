//go:build mpi

package mpi

/*
#include "ddt_mpi.h"
*/
import "C"

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"sync"
	"unsafe"

	"github.com/ddtlab/ddt/comm"
	"github.com/ddtlab/ddt/comm/internal/match"
	"github.com/ddtlab/ddt/datatype"
)

// Mode selects how a Comm moves data; see the package documentation.
type Mode uint8

// The modes.
const (
	Packed Mode = iota // ddt packs, MPI moves bytes, signatures checked
	Native             // MPI moves the data with a native datatype, signatures checked
	Raw                // the native datatype only, no header and no checks
)

var modeNames = [...]string{"packed", "native", "raw"}

func (m Mode) String() string {
	if int(m) < len(modeNames) {
		return modeNames[m]
	}
	return fmt.Sprintf("Mode(%d)", m)
}

// ParseMode returns the mode with the given name (packed, native, raw).
func ParseMode(name string) (Mode, error) {
	for i, n := range modeNames {
		if n == name {
			return Mode(i), nil
		}
	}
	return 0, fmt.Errorf("unknown mode %q (want one of %v)", name, modeNames[:])
}

// MaxInline is the largest packed message that may travel inside its
// header message; every rank posts header receives of this size.
const MaxInline = 16 << 10

// Options configure Init.
type Options struct {
	// Mode is the mode of the returned Comm (default Packed).
	Mode Mode
	// InlineLimit is the largest packed message (in bytes) sent inside its
	// header message, as one MPI message; larger ones follow the header as
	// a second message. 0 means 4 KiB, negative means never; it is capped
	// at MaxInline.
	InlineLimit int
	// Direct is the average length in bytes of a type's contiguous runs
	// from which its data messages (those that do not travel inline) go
	// without packing: MPI moves them from and into the user's memory
	// through a datatype of the runs (zero-copy; see docs/comm-mpi.md).
	// 0 means DefaultDirect, negative means never.
	Direct int
	// Packet is the size in bytes of the packets a large staged data
	// message travels in (pipelined: the sender packs packet k+1 while
	// packet k is in flight, the receiver unpacks each as it arrives; see
	// pipe.go); PipeMin is the packed size from which a message is
	// pipelined. 0 means the defaults (DefaultPacket, DefaultPipeMin, or
	// the environment variables DDT_MPI_PACKET and DDT_MPI_PIPE_MIN);
	// a negative Packet means never.
	Packet, PipeMin int
}

// header layout, little-endian 64-bit words: signature hash, elements,
// bytes, data tag (-1: data inline), uniform basic type (+1; 0: none),
// communicator context, source rank in that communicator
const hdrSize = 56

// bytesLimit is the largest byte message sent as a plain MPI_BYTE count;
// larger ones go with the large-count calls or a derived datatype (see
// ddt_isend_bytes). Tests lower it to exercise that path.
var bytesLimit int64 = math.MaxInt32

// hdrRing is the number of header receives kept posted.
const hdrRing = 4

// world is the state of this process's MPI world, shared by the Comms
// that WithMode derives.
type world struct {
	mu         sync.Mutex
	rank, size int
	// hcomm carries headers (with inline data) under the user's tags, dcomm
	// the data messages that follow them under per-pair sequence tags, rcomm
	// Raw messages and ccomm collectives.
	hcomm, dcomm, rcomm, ccomm C.MPI_Comm
	hcommH                     C.ddt_h // hcomm as an integer, for the calls that take it so
	tagUB                      int
	seq                        []int           // next data tag per destination
	hdrDone                    [hdrRing]bool   // header receives completed, not yet taken in
	nrep                       int             // slots taken in, to be posted again (pb.rep)
	hdrRes                     [hdrRing]result // what they completed with
	doneScratch                []*pending      // progressSpin's list of completed requests, reused
	pb                         pollBufs        // its first hdrRing requests are the header receives
	pools                      pools
	sigs                       sigCache
	compact                    compactTables
	hbuf                       unsafe.Pointer // hdrRing receive buffers of hdrSize+MaxInline bytes
	head                       int            // the oldest posted header receive
	q                          match.Queue[*incoming, *recvOp]
	pending                    []*pending // MPI requests in flight
	types                      typeCache
	closed                     bool
	// per world rank: headers and Raw messages sent to it and received
	// from it, for Finalize's accounting
	hsent, hrecv, rsent, rrecv []int64
	nextCtx                    uint32                    // the smallest communicator context not used yet
	nativeReductions           int64                     // reductions MPI did, for tests
	directSends, directRecvs   int64                     // data messages moved directly, for tests
	named                      map[string]C.MPI_Datatype // predefined datatypes by C name, for reductions
	reqNull                    C.MPI_Request             // MPI_REQUEST_NULL, MPI_DATATYPE_NULL: read once,
	typeNull                   C.MPI_Datatype            // not by a cgo call per poll
}

// incoming is a header that arrived.
type incoming struct {
	env     match.Envelope
	wsrc    int // the sender's world rank
	sig     comm.Signature
	dataTag int    // -1 when the data is inline
	packet  int64  // > 0: the data follows in packets of this size (pipe.go)
	inline  []byte // the inline data
}

type recvOp struct {
	buf    comm.Buffer
	mode   Mode
	direct int           // the receiving Comm's direct threshold
	req    *comm.Request // nil for a blocking Recv, which waits for done
	// a blocking Recv's outcome (req == nil)
	done bool
	st   comm.Status
	err  error
}

// finish completes r with its status and error.
func (r *recvOp) finish(st comm.Status, err error) {
	if r.req != nil {
		r.req.Complete(st, err)
		return
	}
	r.st, r.err, r.done = st, err, true
}

// result is what a completed MPI request reports.
type result struct {
	src, tag  int
	bytes     int64
	elements  int64 // for requests with an element type, else 0
	code      int   // MPI error code of the operation
	cancelled bool
}

// pending is an MPI request in flight and what to do when it completes.
type pending struct {
	req     *C.MPI_Request  // in C memory: cgo may not see the Go pointers of pending
	etype   *C.MPI_Datatype // count elements of this type on completion
	done    func(result)    // nil: only buf is released
	rawRecv bool            // a Raw receive, cancelled at Finalize
	res     result          // what it completed with
	pooled  bool            // from pools.pending: back there once done has run
	buf     unsafe.Pointer  // a staging buffer of the pools to release on completion
	bufCap  int64
}

var (
	initMu  sync.Mutex
	started bool
)

// Launched reports whether the process seems to have been started by an
// MPI launcher (mpirun, mpiexec), judging by the environment variables
// Open MPI, MPICH's Hydra, PMI and PMIx set.
func Launched() bool {
	for _, v := range []string{"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "PMI_RANK", "MPI_LOCALNRANKS"} {
		if os.Getenv(v) != "" {
			return true
		}
	}
	return false
}

// Comm is this process's rank of MPI_COMM_WORLD, sending in one Mode. It
// implements comm.Communicator and is safe for concurrent use.
type Comm struct {
	w       *world
	mode    Mode
	inline  int
	direct  int    // Options.Direct, resolved: < 0 never
	packet  int    // Options.Packet, resolved: < 0 never (pipe.go)
	pipeMin int    // Options.PipeMin, resolved
	rank    int    // in this communicator
	group   []int  // the world rank of each rank
	ctx     uint32 // context of point-to-point messages; ctx+1 is the collectives'
}

var _ comm.Communicator = (*Comm)(nil)

// Init initializes MPI and returns this process's communicator. It may be
// called once per process. It locks the calling goroutine to its OS thread;
// call Finalize from the same goroutine.
func Init(opts Options) (*Comm, error) {
	initMu.Lock()
	defer initMu.Unlock()
	if started {
		return nil, errors.New("mpi: Init called twice")
	}
	if int(opts.Mode) >= len(modeNames) {
		return nil, fmt.Errorf("mpi: unknown mode %v", opts.Mode)
	}
	runtime.LockOSThread()
	var provided C.int
	switch rc := C.ddt_init(&provided); {
	case rc == -1:
		return nil, errors.New("mpi: MPI was initialized elsewhere")
	case rc != 0:
		return nil, check("MPI_Init_thread", rc)
	}
	started = true
	if provided < C.ddt_thread_serialized() {
		C.MPI_Finalize()
		return nil, fmt.Errorf("mpi: the MPI library provides thread level %d, at least MPI_THREAD_SERIALIZED is needed", provided)
	}
	w := &world{types: typeCache{m: map[*datatype.Type]C.MPI_Datatype{}, failed: map[*datatype.Type]error{}, verified: map[*datatype.Type]error{}, directs: map[*datatype.Type]*directType{}}}
	var comms [4]C.MPI_Comm
	for i := range comms {
		if err := check("MPI_Comm_dup", C.ddt_dup_world(&comms[i])); err != nil {
			return nil, err
		}
	}
	w.hcomm, w.dcomm, w.rcomm, w.ccomm = comms[0], comms[1], comms[2], comms[3]
	w.hcommH = C.ddt_comm_h(w.hcomm)
	var r, s C.int
	C.MPI_Comm_rank(w.hcomm, &r)
	C.MPI_Comm_size(w.hcomm, &s)
	w.rank, w.size = int(r), int(s)
	w.tagUB = int(C.ddt_tag_ub())
	w.seq = make([]int, w.size)
	w.nextCtx = 2
	w.hsent, w.hrecv = make([]int64, w.size), make([]int64, w.size)
	w.rsent, w.rrecv = make([]int64, w.size), make([]int64, w.size)
	w.reqNull, w.typeNull = C.ddt_request_null(), C.ddt_datatype_null()
	w.hbuf = C.malloc(C.size_t(hdrRing * hdrSlot))
	w.pb.ensure(hdrRing + 16)
	for i := range hdrRing {
		if err := w.postHeader(i); err != nil {
			return nil, err
		}
	}
	group := make([]int, w.size)
	for i := range group {
		group[i] = i
	}
	c := &Comm{w: w, rank: w.rank, group: group}
	return c.WithMode(opts.Mode).withInline(opts.InlineLimit).withDirect(opts.Direct).withPipeline(opts.Packet, opts.PipeMin), nil
}

// hdrSlot is the size of a header receive buffer.
const hdrSlot = hdrSize + MaxInline

func (w *world) hdrBuf(i int) unsafe.Pointer {
	return unsafe.Add(w.hbuf, i*hdrSlot)
}

// hdrReq is the MPI request of header receive i.
func (w *world) hdrReq(i int) *C.MPI_Request {
	return &unsafe.Slice((*C.MPI_Request)(w.pb.reqs), hdrRing)[i]
}

func (w *world) postHeader(i int) error {
	return check("MPI_Irecv", C.ddt_irecv(w.hdrBuf(i), 0, hdrSlot, C.ddt_byte(),
		C.int(anySource), C.int(anyTag), w.hcomm, w.hdrReq(i)))
}

// WithMode returns a Comm of the same world that sends and receives in
// mode m. Packed and Native Comms exchange messages freely; Raw ones only
// with Raw ones.
func (c *Comm) WithMode(m Mode) *Comm {
	d := *c
	d.mode = m
	return &d
}

func (c *Comm) withInline(limit int) *Comm {
	switch {
	case limit == 0:
		limit = 4 << 10
	case limit < 0:
		limit = -1
	case limit > MaxInline:
		limit = MaxInline
	}
	c.inline = limit
	return c
}

func (c *Comm) withDirect(n int) *Comm {
	switch {
	case n == 0:
		n = DefaultDirect
	case n < 0:
		n = -1
	}
	c.direct = n
	return c
}

// WithDirect returns a Comm of the same world with another
// Options.Direct (0: DefaultDirect, negative: never direct).
func (c *Comm) WithDirect(n int) *Comm {
	d := *c
	return d.withDirect(n)
}

// WithInlineLimit returns a Comm of the same world with another
// Options.InlineLimit.
func (c *Comm) WithInlineLimit(limit int) *Comm {
	d := *c
	return d.withInline(limit)
}

// Mode is the mode c sends and receives in.
func (c *Comm) Mode() Mode { return c.mode }

// Rank is this process's rank in the communicator (MPI_COMM_WORLD for the
// Comm of Init).
func (c *Comm) Rank() int { return c.rank }

// Size is the number of ranks of the communicator.
func (c *Comm) Size() int { return len(c.group) }

// Finalize ends the world; see FinalizeContext.
func (c *Comm) Finalize() error { return c.FinalizeContext(context.Background()) }

// FinalizeContext completes the sends and drains in flight, frees the MPI
// datatypes built and finalizes MPI. Every rank must call it. The ranks
// first exchange how many messages each sent to each; messages that were
// sent and never received are then received into scratch memory and
// reported, by the receiver and by the sender, in a *comm.StuckError
// wrapping comm.ErrUnreceived, as are receives still posted (which fail).
// The Comms of the world must not be used afterwards.
//
// If ctx is done before every rank has called it (a rank blocked
// elsewhere), FinalizeContext returns an error wrapping ctx.Err() without
// finalizing MPI.
func (c *Comm) FinalizeContext(ctx context.Context) error {
	w := c.w
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return errors.New("mpi: Finalize called twice")
	}
	w.closed = true
	pending, err := w.settle(ctx)
	if err != nil {
		return err
	}
	for len(w.pending) > 0 {
		w.progress()
	}
	var first error
	keep := func(err error) {
		if first == nil {
			first = err
		}
	}
	if len(pending) > 0 {
		keep(&comm.StuckError{Cause: comm.ErrUnreceived, Pending: pending})
	}
	for i := range hdrRing {
		if *w.hdrReq(i) != C.ddt_request_null() {
			keep(check("MPI_Cancel", C.ddt_cancel(w.hdrReq(i))))
		}
	}
	w.pb.free()
	w.pools.free()
	w.types.free()
	for _, cm := range []C.MPI_Comm{w.hcomm, w.dcomm, w.rcomm, w.ccomm} {
		keep(check("MPI_Comm_free", C.MPI_Comm_free(&cm)))
	}
	C.free(w.hbuf)
	keep(check("MPI_Finalize", C.MPI_Finalize()))
	return first
}

// settle makes sure nothing is left in flight: it exchanges the numbers
// of messages sent to each rank, takes in every header and Raw message
// sent to this rank, drains the data of those never received and fails
// the receives never matched. It returns what was left pending. w.mu is
// held.
func (w *world) settle(ctx context.Context) ([]string, error) {
	n := w.size
	alltoall := func(send []int64) ([]int64, error) {
		recv := make([]int64, len(send))
		cs := (*C.longlong)(C.malloc(C.size_t(8 * len(send))))
		cr := (*C.longlong)(C.malloc(C.size_t(8 * len(send))))
		defer C.free(unsafe.Pointer(cs))
		defer C.free(unsafe.Pointer(cr))
		copy(unsafe.Slice((*int64)(unsafe.Pointer(cs)), len(send)), send)
		done := false
		var code int
		p := newPending(func(r result) { done, code = true, r.code })
		if err := check("MPI_Ialltoall", C.ddt_ialltoall_ll(cs, cr, C.int(len(send)/n), w.ccomm, p.req)); err != nil {
			return nil, err
		}
		w.start(p)
		for !done {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("mpi: finalize: waiting for every rank to finalize: %w", err)
			}
			w.progress()
			w.mu.Unlock()
			runtime.Gosched()
			w.mu.Lock()
		}
		if code != 0 {
			return nil, &Error{Op: "MPI_Ialltoall", Code: code}
		}
		copy(recv, unsafe.Slice((*int64)(unsafe.Pointer(cr)), len(send)))
		return recv, nil
	}
	counts := make([]int64, 2*n)
	for d := range n {
		counts[2*d], counts[2*d+1] = w.hsent[d], w.rsent[d]
	}
	got, err := alltoall(counts)
	if err != nil {
		return nil, err
	}
	var out []string
	lost := make([]int64, n) // messages from each rank never received
	scratch := map[int64]unsafe.Pointer{}
	defer func() {
		for _, p := range scratch {
			C.free(p)
		}
	}()
	for {
		w.progress()
		// Raw messages no receive takes
		var found, osrc, otag C.int
		var bytes C.longlong
		if C.ddt_iprobe(C.int(anySource), C.int(anyTag), w.rcomm, &found, &osrc, &otag, &bytes) == 0 && found != 0 {
			src := int(osrc)
			sp, ok := scratch[int64(bytes)]
			if !ok {
				sp, _ = cbytes(int64(bytes))
				scratch[int64(bytes)] = sp
			}
			p := newPending(func(result) {})
			if C.ddt_irecv_bytes(sp, bytes, C.longlong(bytesLimit), osrc, otag, w.rcomm, p.req) == 0 {
				w.start(p)
				w.rrecv[src]++
				lost[src]++
				out = append(out, fmt.Sprintf("raw message from rank %d to rank %d, tag %d, %d bytes, never received", src, w.rank, otag, bytes))
			}
		}
		done := true
		for s := range n {
			if w.hrecv[s] < got[2*s] || w.rrecv[s] < got[2*s+1] {
				done = false
			}
		}
		if done {
			break
		}
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("mpi: finalize: waiting for messages sent to rank %d: %w", w.rank, err)
		}
		w.mu.Unlock()
		runtime.Gosched()
		w.mu.Lock()
	}
	// headers nobody received
	w.q.Unexpected(func(env match.Envelope, in *incoming) {
		w.drainIn(in)
		lost[in.wsrc]++
		s := fmt.Sprintf("message from rank %d to rank %d, tag %d, %d bytes, never received", in.wsrc, w.rank, env.Tag, in.sig.Bytes)
		if env.Context != 0 {
			s = fmt.Sprintf("message from rank %d to rank %d inside a collective or sub-communicator (context %d, tag %d), %d bytes, never received", in.wsrc, w.rank, env.Context, env.Tag, in.sig.Bytes)
		}
		out = append(out, s)
	})
	var posted []*recvOp
	w.q.Posted(func(ctxt uint32, src, tag int, r *recvOp) {
		posted = append(posted, r)
		out = append(out, fmt.Sprintf("receive from %s, tag %s posted by rank %d, never matched", peerName(src), tagName(tag), w.rank))
	})
	w.q = match.Queue[*incoming, *recvOp]{}
	for _, r := range posted {
		r.req.Complete(comm.Status{}, errors.New("mpi: finalized before a matching message arrived"))
	}
	// Raw receives no message will match
	for _, p := range w.pending {
		if p.rawRecv {
			C.ddt_cancel_only(p.req)
		}
	}
	// tell the senders
	back, err := alltoall(lost)
	if err != nil {
		return nil, err
	}
	for d, k := range back {
		if k > 0 {
			out = append(out, fmt.Sprintf("%d messages from rank %d to rank %d never received", k, w.rank, d))
		}
	}
	return out, nil
}

func peerName(p int) string {
	if p == comm.AnySource {
		return "any rank"
	}
	return fmt.Sprintf("rank %d", p)
}

func tagName(t int) string {
	if t == comm.AnyTag {
		return "any"
	}
	return fmt.Sprint(t)
}

// poll makes progress on everything in flight; requests' Wait calls it.
func (w *world) poll() {
	w.mu.Lock()
	busy := false
	if !w.closed {
		busy = w.progressSpin(spinTime)
	}
	w.mu.Unlock()
	if !busy {
		runtime.Gosched()
	}
}

func (w *world) newRequest() *comm.Request { return comm.NewPolledRequest(w.poll) }

// pollBufs are the C arrays ddt_poll works on, grown as needed.
type pollBufs struct {
	n      int
	rep    unsafe.Pointer // hdrRing int: header slots to post again
	ints   unsafe.Pointer // 4 int out-parameters (in C memory: a Go variable passed to C escapes)
	reqs   unsafe.Pointer // n MPI_Request, the first hdrRing the header receives
	etypes unsafe.Pointer // n MPI_Datatype
	idx    unsafe.Pointer // n int
	sts    unsafe.Pointer // n MPI_Status
	out    unsafe.Pointer // n ddt_result
}

func (b *pollBufs) ensure(n int) {
	if n <= b.n {
		return
	}
	old := *b
	n = max(n, 2*b.n, 16)
	b.n = n
	var t C.MPI_Datatype
	b.reqs = C.malloc(C.size_t(n) * C.ddt_sizeof_request())
	b.rep, b.ints = old.rep, old.ints
	if b.rep == nil {
		b.rep = C.malloc(C.size_t(hdrRing) * C.size_t(unsafe.Sizeof(C.int(0))))
		b.ints = C.malloc(4 * C.size_t(unsafe.Sizeof(C.int(0))))
	}
	hreqs := unsafe.Slice((*C.MPI_Request)(b.reqs), hdrRing)
	if old.reqs != nil {
		copy(hreqs, unsafe.Slice((*C.MPI_Request)(old.reqs), hdrRing))
	} else {
		for i := range hreqs {
			hreqs[i] = C.ddt_request_null()
		}
	}
	old.rep, old.ints = nil, nil
	old.free()
	b.etypes = C.malloc(C.size_t(n) * C.size_t(unsafe.Sizeof(t)))
	b.idx = C.malloc(C.size_t(n) * C.size_t(unsafe.Sizeof(C.int(0))))
	b.sts = C.malloc(C.size_t(n) * C.ddt_sizeof_status())
	b.out = C.malloc(C.size_t(n) * C.size_t(unsafe.Sizeof(C.ddt_result{})))
}

func (b *pollBufs) free() {
	for _, p := range []unsafe.Pointer{b.rep, b.ints, b.reqs, b.etypes, b.idx, b.sts, b.out} {
		C.free(p)
	}
	*b = pollBufs{}
}

// progress takes in the headers that arrived, in order, and completes the
// MPI requests that are done. w.mu is held.
func (w *world) progress() { w.progressSpin(0) }

// spinTime is how long a Wait spins inside MPI before it lets other
// goroutines run.
const spinTime = 10e-6

// progressSpin is progress that, if nothing has completed, keeps testing
// for up to spin seconds. It reports whether anything completed. w.mu is
// held.
func (w *world) progressSpin(spin float64) bool {
	n := hdrRing + len(w.pending)
	b := &w.pb
	b.ensure(n)
	reqs := unsafe.Slice((*C.MPI_Request)(b.reqs), n)
	etypes := unsafe.Slice((*C.MPI_Datatype)(b.etypes), n)
	null, tnull := w.reqNull, w.typeNull
	for i := range hdrRing {
		etypes[i] = tnull
	}
	pend := w.pending
	for i, p := range pend {
		reqs[hdrRing+i], etypes[hdrRing+i] = *p.req, tnull
		if p.etype != nil {
			etypes[hdrRing+i] = *p.etype
		}
	}
	ints := unsafe.Slice((*C.int)(b.ints), 4)
	only := -1
	if len(pend) == 0 && w.nrep < hdrRing { // the oldest header receive is posted
		only = w.head
	}
	rc := C.ddt_poll(cAddr(b.reqs), cAddr(b.etypes), C.int(n), C.double(spin), (*C.int)(b.idx), (*C.MPI_Status)(b.sts), (*C.ddt_result)(b.out), &ints[0],
		(*C.int)(b.rep), C.int(w.nrep), (*C.char)(w.hbuf), C.int(hdrSlot), w.hcommH, &ints[1], C.int(only))
	count, posted := ints[0], ints[1]
	if posted > 0 {
		rep := unsafe.Slice((*C.int)(b.rep), hdrRing)
		copy(rep, rep[posted:w.nrep])
		w.nrep -= int(posted)
	}
	if w.nrep > 0 {
		// a header receive could not be posted again: without header
		// receives nothing more can arrive; fail loudly on every receive
		// that waits
		err := check("MPI_Irecv", rc)
		var rs []*recvOp
		w.q.Posted(func(_ uint32, _, _ int, r *recvOp) { rs = append(rs, r) })
		for _, r := range rs {
			w.q.Withdraw(r)
			r.finish(comm.Status{}, err)
		}
		return len(rs) > 0
	}
	if rc != 0 || count == 0 {
		return false
	}
	out := unsafe.Slice((*C.ddt_result)(b.out), int(count))
	done := w.doneScratch[:0]
	w.doneScratch = nil // a callback that polls again gets its own
	for _, o := range out {
		r := result{src: int(o.src), tag: int(o.tag), bytes: int64(o.bytes), elements: int64(o.elems), code: int(o.err), cancelled: o.cancelled != 0}
		i := int(o.index)
		if i < hdrRing {
			w.hdrDone[i], w.hdrRes[i] = true, r
			continue
		}
		p := pend[i-hdrRing]
		*p.req = null
		p.res = r
		done = append(done, p)
	}
	// take in the headers in order: slot head holds the oldest; each slot
	// taken in is posted again by the next poll, in this order
	for w.hdrDone[w.head] {
		slot := w.head
		r := w.hdrRes[slot]
		w.hdrDone[slot] = false
		w.head = (w.head + 1) % hdrRing
		unsafe.Slice((*C.int)(b.rep), hdrRing)[w.nrep] = C.int(slot)
		w.nrep++
		if r.code == 0 && r.src >= 0 && r.src < w.size {
			w.hrecv[r.src]++
		}
		w.takeIn(w.hdrBuf(slot), r)
	}
	if len(done) > 0 {
		// drop the completed requests, then run what they complete (which
		// may start more)
		k := 0
		for _, p := range w.pending {
			if *p.req != null {
				w.pending[k] = p
				k++
			}
		}
		clear(w.pending[k:])
		w.pending = w.pending[:k]
		for _, p := range done {
			if p.done != nil {
				p.done(p.res)
			}
			if p.buf != nil {
				w.pools.putBuf(p.buf, p.bufCap)
				p.buf = nil
			}
			if p.pooled {
				w.pools.putPending(p)
			}
		}
	}
	clear(done)
	w.doneScratch = done[:0]
	return true
}

// start records p as in flight.
func (w *world) start(p *pending) { w.pending = append(w.pending, p) }

// parseHeader reads the header of a message of r.bytes bytes at buf into
// in; the inline data stays in buf. It reports false for a message that
// is not one of this package's.
func parseHeader(in *incoming, buf unsafe.Pointer, r result) bool {
	if r.code != 0 || r.bytes < hdrSize {
		return false
	}
	b := unsafe.Slice((*byte)(buf), r.bytes)
	in.wsrc = r.src
	in.env = match.Envelope{Context: uint32(le64(b[40:])), Source: int(int64(le64(b[48:]))), Tag: r.tag}
	in.sig.Sig.Hash = le64(b[0:])
	in.sig.Sig.N = int64(le64(b[8:]))
	in.sig.Bytes = int64(le64(b[16:]))
	in.dataTag, in.packet = dataWord(le64(b[24:]))
	if u := le64(b[32:]) & 0xffffffff; u > 0 && u <= uint64(datatype.NumBasic) { // the upper half: a compact header's slot
		in.sig.Sig.Uniform, in.sig.Sig.Basic = true, datatype.Basic(u-1)
	}
	if in.dataTag < 0 {
		in.inline = b[hdrSize:]
		if int64(len(in.inline)) != in.sig.Bytes {
			return false
		}
	}
	return true
}

func putHeader(b []byte, s comm.Signature, dataTag int, ctx uint32, src int) {
	put64(b[40:], uint64(ctx))
	put64(b[48:], uint64(int64(src)))
	put64(b[0:], s.Sig.Hash)
	put64(b[8:], uint64(s.Sig.N))
	put64(b[16:], uint64(s.Bytes))
	put64(b[24:], uint64(int64(dataTag)))
	var u uint64
	if s.Sig.Uniform {
		u = uint64(s.Sig.Basic) + 1
	}
	put64(b[32:], u)
}

func le64(b []byte) uint64 { return binary.LittleEndian.Uint64(b) }

func put64(b []byte, v uint64) { binary.LittleEndian.PutUint64(b, v) }

// takeIn matches the message whose header arrived in the header buffer
// buf with the oldest posted receive it fits, or queues it (with a copy of
// its inline data: buf is posted again). A message matched at once is
// delivered straight from buf, without allocating.
func (w *world) takeIn(buf unsafe.Pointer, res result) {
	var in incoming
	if res.code == 0 && res.bytes >= compactSize && le64(unsafe.Slice((*byte)(buf), compactSize))&compactFlag != 0 {
		if !w.parseCompact(&in, le64(unsafe.Slice((*byte)(buf), compactSize)), unsafe.Slice((*byte)(buf), res.bytes), res.src, res.tag) {
			return
		}
	} else {
		if !parseHeader(&in, buf, res) {
			return
		}
		if in.dataTag < 0 {
			w.storeCompact(&in, le64(unsafe.Slice((*byte)(buf), hdrSize)[32:])>>32)
		}
	}
	if r, ok := w.q.Match(in.env); ok {
		w.deliver(&in, r)
		return
	}
	q := new(incoming)
	*q = in
	if in.dataTag < 0 {
		q.inline = append([]byte(nil), in.inline...)
	}
	w.q.Arrive(q.env, q)
}

// cAddr passes the address of C memory to C as an integer (see ddt_h).
func cAddr(p unsafe.Pointer) C.ddt_h { return C.ddt_h(uintptr(p)) }

func newPending(done func(result)) *pending {
	return &pending{req: new(C.MPI_Request), done: done}
}
