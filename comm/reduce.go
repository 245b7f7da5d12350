package comm

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"unsafe"

	"github.com/ddtlab/ddt/datatype"
)

// Reductions is the reduction part of Collectives (MPI-4.1 §6.9–6.11).
// recv must have the signature of the part of the reduced data it
// receives, with any layout. send and recv may share memory (the effect
// of MPI_IN_PLACE): the send data is packed before anything is written. The operation combines element i of every rank's send data, in
// rank order: x_0 ∘ x_1 ∘ … ∘ x_{n-1}.
//
// Every rank must give the same operation and data of the same signature
// (and the same root and counts). When they do not, or when any rank's
// arguments are bad, the reduction fails on every rank with an error
// naming the rank and what differs, and no receive buffer is written.
type Reductions interface {
	// Reduce leaves the reduction of send over all ranks in recv of rank
	// root (MPI_Reduce); recv matters at root only.
	Reduce(send, recv Buffer, op *Op, root int) error
	// Allreduce leaves the reduction in recv of every rank
	// (MPI_Allreduce).
	Allreduce(send, recv Buffer, op *Op) error
	// ReduceScatter reduces send (counts[0]+…+counts[n-1] instances of
	// send's type on every rank) and leaves block i of the result
	// (counts[i] instances) in recv of rank i (MPI_Reduce_scatter).
	ReduceScatter(send, recv Buffer, counts []int64, op *Op) error
	// ReduceScatterBlock is ReduceScatter with blocks of
	// send.Count/Size() instances each (MPI_Reduce_scatter_block);
	// send.Count must be a multiple of Size().
	ReduceScatterBlock(send, recv Buffer, op *Op) error
	// Scan leaves x_0 ∘ … ∘ x_r in recv of rank r (MPI_Scan).
	Scan(send, recv Buffer, op *Op) error
	// Exscan leaves x_0 ∘ … ∘ x_{r-1} in recv of rank r > 0 and does not
	// touch recv of rank 0 (MPI_Exscan).
	Exscan(send, recv Buffer, op *Op) error
}

// Tags of the reductions, in the collectives' context.
const (
	tagReduce = 16 + iota
	tagReduceDown
	tagReduceRoot
	tagScan
)

// ReduceLocal sets inout = in ∘ inout (MPI_Reduce_local): in and inout
// must have the same signature; the operation applies to their packed
// elements, which are then unpacked into inout.
func ReduceLocal(in, inout Buffer, op *Op) error {
	const name = "reduce_local"
	if op == nil {
		return fmt.Errorf("%s: nil op", name)
	}
	if err := checkBuf(in); err != nil {
		return fmt.Errorf("%s: in: %w", name, err)
	}
	if err := checkBuf(inout); err != nil {
		return fmt.Errorf("%s: inout: %w", name, err)
	}
	si, err := SignatureOf(in.Type, in.Count)
	if err != nil {
		return fmt.Errorf("%s: in: %w", name, err)
	}
	so, err := SignatureOf(inout.Type, inout.Count)
	if err != nil {
		return fmt.Errorf("%s: inout: %w", name, err)
	}
	if same, _ := si.Sig.Same(so.Sig); !same {
		return fmt.Errorf("%s: %w: in is %d x %s, inout %d x %s", name, ErrType, in.Count, in.Type.Type(), inout.Count, inout.Type.Type())
	}
	l := elementsOf(in.Type.Type(), si.Sig.Uniform, si.Sig.Basic, in.Count)
	if err := op.check(l); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	b, bok := direct(inout)
	bok = bok && (op.kind != opUser || aligned8(b))
	a, aok := direct(in)
	if !aok || (op.kind == opUser && !aligned8(a)) || (bok && overlap(a, b)) {
		var err error
		if a, err = packed(in, 0); err != nil { // a copy: in may share memory with inout
			return fmt.Errorf("%s: in: %w", name, err)
		}
	}
	if bok {
		// inout's memory is its packed stream: combine in place
		if err := op.apply(a, b, l); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		return nil
	}
	b, err = packed(inout, 0)
	if err != nil {
		return fmt.Errorf("%s: inout: %w", name, err)
	}
	if err := op.apply(a, b, l); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if _, err := inout.Type.Unpack(inout.Data, b, inout.Origin, inout.Count); err != nil {
		return fmt.Errorf("%s: inout: %w", name, err)
	}
	return nil
}

// direct returns the bytes of b when they are its packed stream: a
// contiguous type whose instances follow each other without gaps.
func direct(b Buffer) ([]byte, bool) {
	t := b.Type.Type()
	if !t.IsContiguous() || (b.Count > 1 && t.Extent() != t.Size()) {
		return nil, false
	}
	lo, _ := t.DataBounds()
	size, err := t.PackSize(b.Count)
	if err != nil {
		return nil, false
	}
	start := b.Origin + lo
	if start < 0 || start > int64(len(b.Data)) || size > int64(len(b.Data))-start {
		return nil, false
	}
	return b.Data[start : start+size], true
}

// overlap reports whether a and b share memory.
func overlap(a, b []byte) bool {
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	pa, pb := uintptr(unsafe.Pointer(&a[0])), uintptr(unsafe.Pointer(&b[0]))
	return pa < pb+uintptr(len(b)) && pb < pa+uintptr(len(a))
}

func aligned8(b []byte) bool {
	return len(b) == 0 || uintptr(unsafe.Pointer(&b[0]))%8 == 0
}

// alignedBytes returns n zero bytes, 8-byte aligned.
func alignedBytes(n int64) []byte {
	if n == 0 {
		return []byte{}
	}
	w := make([]uint64, (n+7)/8)
	return unsafeBytes(w)[:n]
}

// packed returns the packed data of b after head bytes of room, aligned.
func packed(b Buffer, head int64) ([]byte, error) {
	size, err := b.Type.PackSize(b.Count)
	if err != nil {
		return nil, err
	}
	out := alignedBytes(head + size)
	if _, err := b.Type.Pack(out[head:], b.Data, b.Origin, b.Count); err != nil && err != io.EOF {
		return nil, err
	}
	return out, nil
}

// A reduction over point-to-point messages runs in two phases whatever
// the arguments, so that no rank hangs and every rank learns of a
// failure: the contributions go up a binomial tree to rank 0 (or along
// the chain of ranks for Scan and Exscan), each message led by a header
// with the sender's description of the reduction and the status of its
// subtree; then the status (with the result, for Allreduce) comes back
// down a binomial tree. A rank compares every description it receives
// with its own, and a mismatch, like a bad argument of any rank, fails
// the reduction on every rank after both phases.
//
// Header: status (0 ok), failing rank, 8 description words, the length
// of the failure's text, and the text.
const (
	rhdrWords = 11
	rhdrText  = 176
	rhdrSize  = 8*rhdrWords + rhdrText // 264
)

// desc describes a reduction as one rank sees it; every rank must see
// the same.
type desc struct {
	kind    uint64 // which reduction
	op      uint64 // Op.id
	hash    uint64 // signature hash of the data reduced
	elems   uint64 // its elements
	uniform uint64 // 1 + basic type if uniform, else 0
	bytes   uint64 // its packed bytes
	root    uint64
	extra   uint64 // hash of ReduceScatter's counts
}

func (d desc) words() [8]uint64 {
	return [8]uint64{d.kind, d.op, d.hash, d.elems, d.uniform, d.bytes, d.root, d.extra}
}

func (d desc) String() string {
	ty := "mixed basic types"
	if d.uniform > 0 {
		ty = fmt.Sprintf("%v", basicName(d.uniform-1))
	}
	s := fmt.Sprintf("%d elements (%d bytes, %s) with %s", int64(d.elems), int64(d.bytes), ty, opName(d.op))
	if d.kind == kindReduce {
		s += fmt.Sprintf(", root %d", int64(d.root))
	}
	if d.kind == kindReduceScatter {
		s += fmt.Sprintf(", counts hash %#x", d.extra)
	}
	return s
}

// Kinds of reduction, in the description.
const (
	kindReduce = 1 + iota
	kindAllreduce
	kindReduceScatter
	kindScan
	kindExscan
)

// rstate is one rank's state in a reduction.
type rstate struct {
	name    string
	p       PointToPoint
	d       desc
	failed  bool
	frank   int    // the rank that failed
	text    string // why
	op      *Op
	l       layout
	msg     []byte // rhdrSize bytes of header room, then the payload
	payload []byte // msg[rhdrSize:]: this rank's data, then the partial results
}

// fail records a failure of rank r if none is recorded yet.
func (s *rstate) fail(r int, format string, args ...any) {
	if s.failed {
		return
	}
	s.failed, s.frank, s.text = true, r, fmt.Sprintf(format, args...)
}

func (s *rstate) putHeader(b []byte) {
	ne := binary.LittleEndian
	if s.failed {
		ne.PutUint64(b, 1)
		ne.PutUint64(b[8:], uint64(s.frank))
	} else {
		ne.PutUint64(b, 0)
		ne.PutUint64(b[8:], 0)
	}
	for i, w := range s.d.words() {
		ne.PutUint64(b[16+8*i:], w)
	}
	t := s.text
	if len(t) > rhdrText {
		t = t[:rhdrText-3] + "..."
	}
	ne.PutUint64(b[80:], uint64(len(t)))
	copy(b[88:], t)
}

// takeHeader merges the header of a message from rank src that arrived
// with n bytes into s.
func (s *rstate) takeHeader(src int, b []byte, n int64) {
	if n < rhdrSize {
		s.fail(src, "rank %d sent a malformed %d-byte message", src, n)
		return
	}
	ne := binary.LittleEndian
	if ne.Uint64(b) != 0 {
		tl := min(ne.Uint64(b[80:]), rhdrText)
		s.fail(int(ne.Uint64(b[8:])), "%s", string(b[88:88+tl]))
		return
	}
	var w [8]uint64
	for i := range w {
		w[i] = ne.Uint64(b[16+8*i:])
	}
	if w != s.d.words() {
		o := desc{w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]}
		if w[0] != s.d.kind {
			s.fail(src, "rank %d is in another reduction (kind %d) than rank %d (%s)", src, w[0], s.p.Rank(), s.name)
			return
		}
		s.fail(src, "rank %d reduces %s, rank %d %s", src, o, s.p.Rank(), s.d)
		return
	}
	if n != rhdrSize && n != rhdrSize+int64(len(s.payload)) {
		s.fail(src, "rank %d sent %d bytes of data, rank %d expects %d", src, n-rhdrSize, s.p.Rank(), len(s.payload))
	}
}

func (s *rstate) err() error {
	if !s.failed {
		return nil
	}
	return fmt.Errorf("%s: rank %d: %s", s.name, s.frank, s.text)
}

// send sends the header and, if withData and nothing failed, the
// payload to dest.
func (s *rstate) send(dest, tag int, withData bool) error {
	msg := alignedBytes(rhdrSize)
	if withData && !s.failed {
		msg = s.msg
	}
	s.putHeader(msg)
	r, err := s.p.Isend(Buffer{Data: msg, Count: int64(len(msg)), Type: byteT}, dest, tag)
	if err != nil {
		return fmt.Errorf("%s: send to rank %d: %w", s.name, dest, err)
	}
	if _, err := r.Wait(); err != nil {
		return fmt.Errorf("%s: send to rank %d: %w", s.name, dest, err)
	}
	return nil
}

// recv receives a message of at most a header and a payload from src
// into a new buffer, merges its header and returns its payload (nil if
// it carried none or failed).
func (s *rstate) recv(src, tag int, size int64) ([]byte, error) {
	b := alignedBytes(rhdrSize + size)
	r, err := s.p.Irecv(Buffer{Data: b, Count: int64(len(b)), Type: byteT}, src, tag)
	if err != nil {
		return nil, fmt.Errorf("%s: receive from rank %d: %w", s.name, src, err)
	}
	st, err := r.Wait()
	if errors.Is(err, ErrTruncate) {
		s.fail(src, "rank %d sent more data than rank %d expects (%d bytes)", src, s.p.Rank(), size)
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: receive from rank %d: %w", s.name, src, err)
	}
	s.takeHeader(src, b, st.Bytes())
	if s.failed || st.Bytes() != rhdrSize+size {
		return nil, nil
	}
	return b[rhdrSize:], nil
}

func basicName(u uint64) string {
	if u < uint64(datatype.NumBasic) {
		return datatype.Basic(u).String()
	}
	return "?"
}

// unsafeBytes views w as bytes.
func unsafeBytes(w []uint64) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(&w[0])), 8*len(w))
}

// hashCounts identifies ReduceScatter's counts across ranks.
func hashCounts(counts []int64) uint64 {
	h := fnv.New64a()
	var b [8]byte
	for _, c := range counts {
		binary.LittleEndian.PutUint64(b[:], uint64(c))
		h.Write(b[:])
	}
	return h.Sum64()
}

// start checks this rank's arguments and packs its send data: every
// error is recorded in the state (to be reported on every rank), never
// returned, so that the rank still takes part.
func (x coll) start(name string, kind uint64, send Buffer, op *Op, root int, extra uint64) *rstate {
	s := &rstate{name: name, p: x.p, op: op}
	s.d.kind, s.d.root, s.d.extra = kind, uint64(int64(root)), extra
	me := x.p.Rank()
	if op == nil {
		s.fail(me, "nil op")
		return s
	}
	s.d.op = op.id()
	if err := checkBuf(send); err != nil {
		s.fail(me, "send: %v", err)
		return s
	}
	sg, err := SignatureOf(send.Type, send.Count)
	if err != nil {
		s.fail(me, "send: %v", err)
		return s
	}
	s.d.hash, s.d.elems, s.d.bytes = sg.Sig.Hash, uint64(sg.Sig.N), uint64(sg.Bytes)
	if sg.Sig.Uniform {
		s.d.uniform = 1 + uint64(sg.Sig.Basic)
	}
	s.l = elementsOf(send.Type.Type(), sg.Sig.Uniform, sg.Sig.Basic, send.Count)
	if err := op.check(s.l); err != nil {
		s.fail(me, "%v", err)
		return s
	}
	b, err := packed(send, rhdrSize)
	if err != nil {
		s.fail(me, "send: %v", err)
		return s
	}
	s.msg, s.payload = b, b[rhdrSize:]
	return s
}

// checkRecv checks that recv can take count instances of send's type (a
// local argument check).
func (s *rstate) checkRecv(send, recv Buffer, count int64) {
	if s.failed {
		return
	}
	me := s.p.Rank()
	if err := checkBuf(recv); err != nil {
		s.fail(me, "recv: %v", err)
		return
	}
	want, err := SignatureOf(send.Type, count)
	if err != nil {
		s.fail(me, "send: %v", err)
		return
	}
	got, err := SignatureOf(recv.Type, recv.Count)
	if err != nil {
		s.fail(me, "recv: %v", err)
		return
	}
	if same, _ := want.Sig.Same(got.Sig); !same {
		s.fail(me, "recv: %v: %d x %s does not have the signature of %d x %s", ErrType, recv.Count, recv.Type.Type(), count, send.Type.Type())
		return
	}
	if _, err := recv.Type.NewUnpacker(recv.Data, recv.Origin, recv.Count); err != nil {
		s.fail(me, "recv: %v", err)
	}
}

// up combines the contributions of all ranks at rank 0 along a binomial
// tree, in rank order: rank r's accumulator covers ranks [r, r+2^k).
func (s *rstate) up() error {
	n, r := s.p.Size(), s.p.Rank()
	for mask := 1; mask < n; mask <<= 1 {
		if r&mask != 0 {
			return s.send(r-mask, tagReduce, true)
		}
		if r+mask >= n {
			continue
		}
		child, err := s.recv(r+mask, tagReduce, int64(len(s.payload)))
		if err != nil {
			return err
		}
		if s.failed {
			continue
		}
		// acc (lower ranks) ∘ child: the child's buffer becomes the accumulator
		if err := s.op.apply(s.payload, child, s.l); err != nil {
			s.fail(r, "%v", err)
			continue
		}
		copy(s.payload, child)
	}
	return nil
}

// down sends the status (and the payload, if withData) from root to every
// rank along a binomial tree.
func (s *rstate) down(root int, withData bool) error {
	n, r := s.p.Size(), s.p.Rank()
	rel := (r - root + n) % n
	mask := 1
	for mask < n {
		if rel&mask != 0 {
			size := int64(0)
			if withData {
				size = int64(len(s.payload))
			}
			// root knows every failure: its status replaces this rank's
			s.failed, s.frank, s.text = false, 0, ""
			got, err := s.recv((rel-mask+root)%n, tagReduceDown, size)
			if err != nil {
				return err
			}
			if got != nil && withData {
				copy(s.payload, got)
			}
			break
		}
		mask <<= 1
	}
	for mask >>= 1; mask > 0; mask >>= 1 {
		if rel+mask < n {
			if err := s.send((rel+mask+root)%n, tagReduceDown, withData); err != nil {
				return err
			}
		}
	}
	return nil
}

// unpack writes the payload bytes [from, from+len) into recv.
func (s *rstate) unpack(recv Buffer, from int64) error {
	size, err := recv.Type.PackSize(recv.Count)
	if err != nil {
		return fmt.Errorf("%s: recv: %w", s.name, err)
	}
	if _, err := recv.Type.Unpack(recv.Data, s.payload[from:from+size], recv.Origin, recv.Count); err != nil {
		return fmt.Errorf("%s: recv: %w", s.name, err)
	}
	return nil
}

// Reduce reduces to rank 0 and, if root is another rank, sends the
// result there; the status comes down from rank 0.
func (x coll) Reduce(send, recv Buffer, op *Op, root int) error {
	s := x.start("reduce", kindReduce, send, op, root, 0)
	n, me := x.p.Size(), x.p.Rank()
	if root < 0 || root >= n {
		s.fail(me, "root %d is outside [0, %d)", root, n)
	}
	if me == root {
		s.checkRecv(send, recv, send.Count)
	}
	if err := s.up(); err != nil {
		return err
	}
	if err := s.down(0, false); err != nil {
		return err
	}
	if s.failed {
		return s.err()
	}
	switch {
	case root == 0 && me == 0:
		return s.unpack(recv, 0)
	case me == 0:
		return s.send(root, tagReduceRoot, true)
	case me == root:
		got, err := s.recv(0, tagReduceRoot, int64(len(s.payload)))
		if err != nil {
			return err
		}
		if s.failed || got == nil {
			return s.err()
		}
		copy(s.payload, got)
		return s.unpack(recv, 0)
	}
	return nil
}

// Allreduce reduces to rank 0 and sends the result down a binomial tree.
func (x coll) Allreduce(send, recv Buffer, op *Op) error {
	s := x.start("allreduce", kindAllreduce, send, op, 0, 0)
	s.checkRecv(send, recv, send.Count)
	if err := s.up(); err != nil {
		return err
	}
	if err := s.down(0, true); err != nil {
		return err
	}
	if s.failed {
		return s.err()
	}
	return s.unpack(recv, 0)
}

// ReduceScatter reduces to rank 0, sends the status down, and then rank
// 0 sends each rank its block.
func (x coll) ReduceScatter(send, recv Buffer, counts []int64, op *Op) error {
	return x.reduceScatter("reduce_scatter", send, recv, counts, op)
}

// ReduceScatterBlock is ReduceScatter with equal counts.
func (x coll) ReduceScatterBlock(send, recv Buffer, op *Op) error {
	n := x.p.Size()
	var counts []int64
	if send.Count%int64(n) == 0 && send.Count >= 0 {
		counts = make([]int64, n)
		for i := range counts {
			counts[i] = send.Count / int64(n)
		}
	}
	return x.reduceScatter("reduce_scatter_block", send, recv, counts, op)
}

func (x coll) reduceScatter(name string, send, recv Buffer, counts []int64, op *Op) error {
	n, me := x.p.Size(), x.p.Rank()
	s := x.start(name, kindReduceScatter, send, op, 0, hashCounts(counts))
	var offs []int64 // block i's first packed byte
	switch {
	case counts == nil && name == "reduce_scatter_block":
		s.fail(me, "send.Count %d is not a multiple of the %d ranks", send.Count, n)
	case len(counts) != n:
		s.fail(me, "%d counts for %d ranks", len(counts), n)
	default:
		total := int64(0)
		for i, c := range counts {
			if c < 0 {
				s.fail(me, "counts[%d] is negative (%d)", i, c)
				break
			}
			total += c
		}
		if !s.failed && total != send.Count {
			s.fail(me, "the counts add up to %d instances, send.Count is %d", total, send.Count)
		}
		if !s.failed {
			size := send.Type.Type().Size()
			acc := int64(0)
			for _, c := range counts {
				offs = append(offs, acc*size)
				acc += c
			}
			s.checkRecv(send, recv, counts[me])
		}
	}
	if err := s.up(); err != nil {
		return err
	}
	if err := s.down(0, false); err != nil {
		return err
	}
	if s.failed {
		return s.err()
	}
	if me == 0 {
		for i := 1; i < n; i++ {
			if err := x.sendBlock(s, i, s.payload[offs[i]:offs[i]+counts[i]*send.Type.Type().Size()]); err != nil {
				return err
			}
		}
		return s.unpack(recv, 0)
	}
	size := counts[me] * send.Type.Type().Size()
	b := alignedBytes(size)
	r, err := x.p.Irecv(Buffer{Data: b, Count: size, Type: byteT}, 0, tagReduceRoot)
	if err != nil {
		return fmt.Errorf("%s: receive from rank 0: %w", name, err)
	}
	if _, err := r.Wait(); err != nil {
		return fmt.Errorf("%s: receive from rank 0: %w", name, err)
	}
	s.payload = b
	return s.unpack(recv, 0)
}

func (x coll) sendBlock(s *rstate, dest int, b []byte) error {
	r, err := x.p.Isend(Buffer{Data: b, Count: int64(len(b)), Type: byteT}, dest, tagReduceRoot)
	if err == nil {
		_, err = r.Wait()
	}
	if err != nil {
		return fmt.Errorf("%s: send to rank %d: %w", s.name, dest, err)
	}
	return nil
}

// Scan passes the prefix along the chain of ranks, then the status comes
// down from the last rank.
func (x coll) Scan(send, recv Buffer, op *Op) error { return x.scan("scan", kindScan, send, recv, op) }

// Exscan is Scan that leaves the prefix of the lower ranks.
func (x coll) Exscan(send, recv Buffer, op *Op) error {
	return x.scan("exscan", kindExscan, send, recv, op)
}

func (x coll) scan(name string, kind uint64, send, recv Buffer, op *Op) error {
	n, me := x.p.Size(), x.p.Rank()
	s := x.start(name, kind, send, op, 0, 0)
	if kind == kindScan || me > 0 {
		s.checkRecv(send, recv, send.Count)
	}
	var prev []byte // x_0 ∘ … ∘ x_{me-1}
	if me > 0 {
		got, err := s.recv(me-1, tagScan, int64(len(s.payload)))
		if err != nil {
			return err
		}
		if !s.failed {
			prev = got
			if err := s.op.apply(got, s.payload, s.l); err != nil {
				s.fail(me, "%v", err)
			}
		}
	}
	if me < n-1 {
		if err := s.send(me+1, tagScan, true); err != nil {
			return err
		}
	}
	if err := s.down(n-1, false); err != nil {
		return err
	}
	if s.failed {
		return s.err()
	}
	if kind == kindExscan {
		if me == 0 {
			return nil
		}
		s.payload = prev
	}
	return s.unpack(recv, 0)
}
