package comm

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/ddtlab/ddt"
	"github.com/ddtlab/ddt/datatype"
)

// Collectives is the collective part of Communicator. Every rank of the
// communicator must call the same collectives in the same order. Buffers
// are checked before anything is posted, so a bad argument leaves no
// receive behind; every message is checked against the receive's type
// signature as point-to-point messages are (ErrType, ErrTruncate).
type Collectives interface {
	// Barrier returns when every rank has called it.
	Barrier() error
	// Bcast sends buf of rank root to buf of every other rank.
	Bcast(buf Buffer, root int) error
	// Gather collects send of every rank at root: rank i's lands at block
	// i of recv (recv.Count instances, i*recv.Count extents after recv's
	// origin). recv matters at root only.
	Gather(send, recv Buffer, root int) error
	// Gatherv is Gather with counts[i] instances from rank i landing
	// displs[i] extents of recv's type after recv's origin.
	Gatherv(send, recv Buffer, counts, displs []int64, root int) error
	// Scatter sends block i of send at root (send.Count instances) to recv
	// of rank i. send matters at root only.
	Scatter(send, recv Buffer, root int) error
	// Scatterv is Scatter with counts[i] instances displs[i] extents of
	// send's type after send's origin going to rank i.
	Scatterv(send Buffer, counts, displs []int64, recv Buffer, root int) error
	// Allgather is Gather to every rank.
	Allgather(send, recv Buffer) error
	// Alltoall sends block j of send to rank j; the block from rank i
	// lands at block i of recv (blocks as in Gather).
	Alltoall(send, recv Buffer, tag int) error
	// Alltoallv is Alltoall with per-rank counts and displacements (in
	// extents of the buffer's type), as MPI_Alltoallv.
	Alltoallv(send Buffer, scounts, sdispls []int64, recv Buffer, rcounts, rdispls []int64) error
	// Alltoallw is Alltoall with a Buffer per rank, each with its own
	// type, count and origin (MPI_Alltoallw, byte displacements being
	// Origin): send[j] goes to rank j, and rank i's lands in recv[i].
	Alltoallw(send, recv []Buffer) error
	Reductions
}

// PointToPoint is what the collectives of this package need from a
// transport: nonblocking sends and receives in a context of their own.
type PointToPoint interface {
	Rank() int
	Size() int
	Isend(buf Buffer, dest, tag int) (*Request, error)
	Irecv(buf Buffer, source, tag int) (*Request, error)
}

// Tags of the collectives, in their own context.
const (
	tagBarrier = 1 + iota
	tagBcast
	tagGather
	tagScatter
	tagAllgather
	tagAlltoallv
	tagAlltoallw
	tagSplit
)

var (
	byteT  = mustCommit(datatype.Of(datatype.Byte))
	int64T = mustCommit(datatype.Of(datatype.Int64))
)

func mustCommit(t *datatype.Type) *ddt.Committed {
	c, err := ddt.Commit(t)
	if err != nil {
		panic(err)
	}
	return c
}

// NewCollectives returns the collectives of this package over p, for
// transports of this API. p must carry no other messages: it is the
// transport's communicator in a context of its own.
func NewCollectives(p PointToPoint) Collectives { return coll{p} }

type coll struct{ p PointToPoint }

// op is a set of sends and receives checked before any is posted.
type op struct {
	name  string
	sends []Buffer
	dests []int
	recvs []Buffer
	srcs  []int
	tag   int
}

func (o *op) send(b Buffer, dest int) { o.sends, o.dests = append(o.sends, b), append(o.dests, dest) }
func (o *op) recv(b Buffer, src int)  { o.recvs, o.srcs = append(o.recvs, b), append(o.srcs, src) }

// run checks every buffer, then posts the receives, then the sends
// (staggered from this rank on), and waits for all.
func (o *op) run(p PointToPoint) error {
	for i, b := range o.sends {
		if err := checkBuf(b); err != nil {
			return fmt.Errorf("%s: send to rank %d: %w", o.name, o.dests[i], err)
		}
		if _, err := b.Type.NewPacker(b.Data, b.Origin, b.Count); err != nil {
			return fmt.Errorf("%s: send to rank %d: %w", o.name, o.dests[i], err)
		}
	}
	for i, b := range o.recvs {
		if err := checkBuf(b); err != nil {
			return fmt.Errorf("%s: receive from rank %d: %w", o.name, o.srcs[i], err)
		}
		if _, err := b.Type.NewUnpacker(b.Data, b.Origin, b.Count); err != nil {
			return fmt.Errorf("%s: receive from rank %d: %w", o.name, o.srcs[i], err)
		}
	}
	var reqs []*Request
	var first error
	for i, b := range o.recvs {
		r, err := p.Irecv(b, o.srcs[i], o.tag)
		if err != nil {
			first = fmt.Errorf("%s: receive from rank %d: %w", o.name, o.srcs[i], err)
			break
		}
		reqs = append(reqs, r)
	}
	if first == nil {
		n := len(o.sends)
		start := 0
		for start < n && o.dests[start] < p.Rank() {
			start++
		}
		for k := range n {
			i := (start + k) % n
			r, err := p.Isend(o.sends[i], o.dests[i], o.tag)
			if err != nil {
				first = fmt.Errorf("%s: send to rank %d: %w", o.name, o.dests[i], err)
				break
			}
			reqs = append(reqs, r)
		}
	}
	for _, r := range reqs {
		if _, err := r.Wait(); err != nil && first == nil {
			first = fmt.Errorf("%s: %w", o.name, err)
		}
	}
	return first
}

func checkBuf(b Buffer) error {
	if b.Type == nil {
		return errors.New("nil type")
	}
	if b.Count < 0 {
		return fmt.Errorf("negative count %d", b.Count)
	}
	return nil
}

func (x coll) checkRoot(name string, root int) error {
	if root < 0 || root >= x.p.Size() {
		return fmt.Errorf("%s: root %d is outside [0, %d)", name, root, x.p.Size())
	}
	return nil
}

// block is the part of b of count instances starting displ extents after
// b's origin.
func block(name string, b Buffer, count, displ int64) (Buffer, error) {
	if b.Type == nil {
		return b, fmt.Errorf("%s: nil type", name)
	}
	if count < 0 {
		return b, fmt.Errorf("%s: negative count %d", name, count)
	}
	ext := b.Type.Type().Extent()
	off, ok := mul64(displ, ext)
	if ok {
		off, ok = add64(b.Origin, off)
	}
	if !ok {
		return b, fmt.Errorf("%s: displacement %d of %d-byte extents overflows", name, displ, ext)
	}
	b.Origin, b.Count = off, count
	return b, nil
}

func mul64(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	c := a * b
	if c/b != a || (a == -1 && b == math.MinInt64) || (b == -1 && a == math.MinInt64) {
		return 0, false
	}
	return c, true
}

func add64(a, b int64) (int64, bool) {
	c := a + b
	if (c > a) != (b > 0) {
		return 0, false
	}
	return c, true
}

// regular returns the counts and displacements of n blocks of count
// instances each, one after the other.
func regular(n int, count int64) (counts, displs []int64, err error) {
	counts, displs = make([]int64, n), make([]int64, n)
	for i := range n {
		d, ok := mul64(int64(i), count)
		if !ok {
			return nil, nil, fmt.Errorf("%d blocks of %d instances overflow", n, count)
		}
		counts[i], displs[i] = count, d
	}
	return counts, displs, nil
}

func (x coll) checkV(name string, counts, displs []int64) error {
	if len(counts) != x.p.Size() || len(displs) != x.p.Size() {
		return fmt.Errorf("%s: %d counts and %d displacements for %d ranks", name, len(counts), len(displs), x.p.Size())
	}
	return nil
}

// Barrier is a dissemination barrier: ⌈log2 n⌉ rounds of empty messages.
func (x coll) Barrier() error {
	n, r := x.p.Size(), x.p.Rank()
	for k := 1; k < n; k *= 2 {
		o := op{name: "barrier", tag: tagBarrier}
		o.send(Buffer{Type: byteT}, (r+k)%n)
		o.recv(Buffer{Type: byteT}, (r-k+n)%n)
		if err := o.run(x.p); err != nil {
			return err
		}
	}
	return nil
}

// Bcast sends along a binomial tree rooted at root.
func (x coll) Bcast(buf Buffer, root int) error {
	const name = "bcast"
	if err := x.checkRoot(name, root); err != nil {
		return err
	}
	n := x.p.Size()
	rel := (x.p.Rank() - root + n) % n
	// receive from the parent: rel with its lowest set bit cleared
	mask := 1
	for mask < n {
		if rel&mask != 0 {
			o := op{name: name, tag: tagBcast}
			o.recv(buf, (rel-mask+root)%n)
			if err := o.run(x.p); err != nil {
				return err
			}
			break
		}
		mask <<= 1
	}
	o := op{name: name, tag: tagBcast}
	for mask >>= 1; mask > 0; mask >>= 1 {
		if rel+mask < n {
			o.send(buf, (rel+mask+root)%n)
		}
	}
	return o.run(x.p)
}

func (x coll) Gather(send, recv Buffer, root int) error {
	counts, displs, err := regular(x.p.Size(), recv.Count)
	if err != nil {
		return fmt.Errorf("gather: %w", err)
	}
	return x.gatherv("gather", send, recv, counts, displs, root)
}

func (x coll) Gatherv(send, recv Buffer, counts, displs []int64, root int) error {
	return x.gatherv("gatherv", send, recv, counts, displs, root)
}

func (x coll) gatherv(name string, send, recv Buffer, counts, displs []int64, root int) error {
	if err := x.checkRoot(name, root); err != nil {
		return err
	}
	o := op{name: name, tag: tagGather}
	if x.p.Rank() == root {
		if err := x.checkV(name, counts, displs); err != nil {
			return err
		}
		for i := range x.p.Size() {
			b, err := block(name, recv, counts[i], displs[i])
			if err != nil {
				return err
			}
			o.recv(b, i)
		}
	}
	o.send(send, root)
	return o.run(x.p)
}

func (x coll) Scatter(send, recv Buffer, root int) error {
	counts, displs, err := regular(x.p.Size(), send.Count)
	if err != nil {
		return fmt.Errorf("scatter: %w", err)
	}
	return x.scatterv("scatter", send, counts, displs, recv, root)
}

func (x coll) Scatterv(send Buffer, counts, displs []int64, recv Buffer, root int) error {
	return x.scatterv("scatterv", send, counts, displs, recv, root)
}

func (x coll) scatterv(name string, send Buffer, counts, displs []int64, recv Buffer, root int) error {
	if err := x.checkRoot(name, root); err != nil {
		return err
	}
	o := op{name: name, tag: tagScatter}
	if x.p.Rank() == root {
		if err := x.checkV(name, counts, displs); err != nil {
			return err
		}
		for i := range x.p.Size() {
			b, err := block(name, send, counts[i], displs[i])
			if err != nil {
				return err
			}
			o.send(b, i)
		}
	}
	o.recv(recv, root)
	return o.run(x.p)
}

// Allgather sends send to every rank directly.
func (x coll) Allgather(send, recv Buffer) error {
	const name = "allgather"
	n := x.p.Size()
	o := op{name: name, tag: tagAllgather}
	for i := range n {
		b, err := block(name, recv, recv.Count, int64(i)*recv.Count)
		if err != nil {
			return err
		}
		o.recv(b, i)
		o.send(send, i)
	}
	return o.run(x.p)
}

func (x coll) Alltoall(send, recv Buffer, tag int) error {
	const name = "alltoall"
	n := x.p.Size()
	if tag < 0 {
		return fmt.Errorf("%s: negative tag %d", name, tag)
	}
	sc, sd, err := regular(n, send.Count)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	rc, rd, err := regular(n, recv.Count)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return x.alltoallv(name, send, sc, sd, recv, rc, rd, tag)
}

func (x coll) Alltoallv(send Buffer, scounts, sdispls []int64, recv Buffer, rcounts, rdispls []int64) error {
	return x.alltoallv("alltoallv", send, scounts, sdispls, recv, rcounts, rdispls, tagAlltoallv)
}

func (x coll) alltoallv(name string, send Buffer, scounts, sdispls []int64, recv Buffer, rcounts, rdispls []int64, tag int) error {
	if err := x.checkV(name, scounts, sdispls); err != nil {
		return err
	}
	if err := x.checkV(name, rcounts, rdispls); err != nil {
		return err
	}
	o := op{name: name, tag: tag}
	for i := range x.p.Size() {
		s, err := block(name, send, scounts[i], sdispls[i])
		if err != nil {
			return err
		}
		r, err := block(name, recv, rcounts[i], rdispls[i])
		if err != nil {
			return err
		}
		o.send(s, i)
		o.recv(r, i)
	}
	return o.run(x.p)
}

func (x coll) Alltoallw(send, recv []Buffer) error {
	const name = "alltoallw"
	n := x.p.Size()
	if len(send) != n || len(recv) != n {
		return fmt.Errorf("%s: %d send and %d receive buffers for %d ranks", name, len(send), len(recv), n)
	}
	o := op{name: name, tag: tagAlltoallw}
	for i := range n {
		o.send(send[i], i)
		o.recv(recv[i], i)
	}
	return o.run(x.p)
}

// SplitPlan is what Split decides for one rank, for transports of this
// API: the parent ranks of the new communicator in their new order, this
// rank's place among them (-1 if left out) and the new context.
type SplitPlan struct {
	Members []int
	Rank    int
	Context uint32
}

// PlanSplit runs the collective part of MPI_Comm_split over p (the
// parent's collective context): every rank gives its color (Undefined or
// another negative number: left out), its key and the smallest context
// its process has not used, and every rank learns its new communicator.
// Ranks of a color are ordered by key, then by parent rank. The new
// context is the largest next over all ranks, so it is unused by every
// process of the parent; the caller's next context is then Context+2.
func PlanSplit(p PointToPoint, color, key int, next uint32) (SplitPlan, error) {
	n := p.Size()
	mine := make([]byte, 24)
	put := func(b []byte, v int64) {
		for i := range 8 {
			b[i] = byte(v >> (8 * i))
		}
	}
	get := func(b []byte) int64 {
		var v int64
		for i := range 8 {
			v |= int64(b[i]) << (8 * i)
		}
		return v
	}
	put(mine, int64(color))
	put(mine[8:], int64(key))
	put(mine[16:], int64(next))
	all := make([]byte, 24*n)
	send := Buffer{Data: mine, Count: 3, Type: int64T}
	recv := Buffer{Data: all, Count: 3, Type: int64T}
	o := op{name: "split", tag: tagSplit}
	for i := range n {
		b := recv
		b.Origin = int64(24 * i)
		o.recv(b, i)
		o.send(send, i)
	}
	if err := o.run(p); err != nil {
		return SplitPlan{}, err
	}
	plan := SplitPlan{Rank: -1}
	type member struct{ key, rank int64 }
	var ms []member
	for i := range n {
		c, k, nx := get(all[24*i:]), get(all[24*i+8:]), get(all[24*i+16:])
		if nx > int64(plan.Context) {
			plan.Context = uint32(nx)
		}
		if color >= 0 && c == int64(color) {
			ms = append(ms, member{k, int64(i)})
		}
	}
	slices.SortFunc(ms, func(a, b member) int {
		if a.key != b.key {
			if a.key < b.key {
				return -1
			}
			return 1
		}
		return int(a.rank - b.rank)
	})
	for i, m := range ms {
		plan.Members = append(plan.Members, int(m.rank))
		if int(m.rank) == p.Rank() {
			plan.Rank = i
		}
	}
	if plan.Context >= math.MaxUint32-2 {
		return SplitPlan{}, errors.New("split: out of communicator contexts")
	}
	return plan, nil
}
