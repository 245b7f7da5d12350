package commtest

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/ddtlab/ddt/comm"
	"github.com/ddtlab/ddt/datatype"
)

// int32s returns a buffer of n ints holding f(0), ..., f(n-1).
func int32s(n int, f func(i int) int) comm.Buffer {
	b := ints(n)
	for i := range n {
		binary.LittleEndian.PutUint32(b.Data[4*i:], uint32(f(i)))
	}
	return b
}

func at(b comm.Buffer, i int) int { return int(int32(binary.LittleEndian.Uint32(b.Data[4*i:]))) }

// Collectives runs every collective once and checks the data: values are
// 1000*source + index, so every misplaced block shows.
func Collectives(c comm.Communicator) error {
	n, r := c.Size(), c.Rank()
	var e errs
	if err := c.Barrier(); err != nil {
		return fmt.Errorf("barrier: %w", err)
	}
	// Bcast from every root
	for root := range n {
		b := int32s(5, func(i int) int { return 1000*r + i })
		if err := c.Bcast(b, root); err != nil {
			return fmt.Errorf("bcast from %d: %w", root, err)
		}
		for i := range 5 {
			if at(b, i) != 1000*root+i {
				e.add("bcast from %d: element %d is %d", root, i, at(b, i))
				break
			}
		}
	}
	// Gather of 2 ints to the last rank, received as pairs (same signature)
	root := n - 1
	pair := commit(datatype.Contiguous(2, datatype.Of(datatype.Int)))
	g := comm.Buffer{Data: make([]byte, 8*n), Count: 1, Type: pair}
	if err := c.Gather(int32s(2, func(i int) int { return 1000*r + i }), g, root); err != nil {
		return fmt.Errorf("gather: %w", err)
	}
	if r == root {
		gi := comm.Buffer{Data: g.Data, Count: int64(2 * n), Type: intT}
		for k := range 2 * n {
			if at(gi, k) != 1000*(k/2)+k%2 {
				e.add("gather: element %d is %d", k, at(gi, k))
				break
			}
		}
	}
	// Gatherv: rank i sends i+1 ints, landing in reverse rank order
	counts, displs := make([]int64, n), make([]int64, n)
	total := int64(0)
	for i := n - 1; i >= 0; i-- {
		counts[i], displs[i] = int64(i+1), total
		total += int64(i + 1)
	}
	gv := ints(int(total))
	if err := c.Gatherv(int32s(r+1, func(i int) int { return 1000*r + i }), gv, counts, displs, 0); err != nil {
		return fmt.Errorf("gatherv: %w", err)
	}
	if r == 0 {
		for i := range n {
			for k := range i + 1 {
				if got := at(gv, int(displs[i])+k); got != 1000*i+k {
					e.add("gatherv: rank %d element %d is %d", i, k, got)
				}
			}
		}
	}
	// Scatter and Scatterv from rank 0: the inverse
	sc := ints(3)
	ss := int32s(3*n, func(i int) int { return 1000*(i/3) + i%3 })
	ss.Count = 3 // per rank
	if err := c.Scatter(ss, sc, 0); err != nil {
		return fmt.Errorf("scatter: %w", err)
	}
	for k := range 3 {
		if at(sc, k) != 1000*r+k {
			e.add("scatter: element %d is %d", k, at(sc, k))
		}
	}
	src := ints(int(total))
	for i := range n {
		for k := range i + 1 {
			binary.LittleEndian.PutUint32(src.Data[4*(int(displs[i])+k):], uint32(1000*i+k))
		}
	}
	sv := ints(r + 1)
	if err := c.Scatterv(src, counts, displs, sv, 0); err != nil {
		return fmt.Errorf("scatterv: %w", err)
	}
	for k := range r + 1 {
		if at(sv, k) != 1000*r+k {
			e.add("scatterv: element %d is %d", k, at(sv, k))
		}
	}
	// Allgather
	ag := ints(2 * n)
	ag.Count = 2
	if err := c.Allgather(int32s(2, func(i int) int { return 1000*r + i }), ag); err != nil {
		return fmt.Errorf("allgather: %w", err)
	}
	for k := range 2 * n {
		if at(ag, k) != 1000*(k/2)+k%2 {
			e.add("allgather: element %d is %d", k, at(ag, k))
			break
		}
	}
	// Alltoallv: rank r sends j+1 ints to rank j; receives r+1 from each
	sc2, sd2, rc2, rd2 := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	off := int64(0)
	for j := range n {
		sc2[j], sd2[j] = int64(j+1), off
		off += int64(j + 1)
		rc2[j], rd2[j] = int64(r+1), int64(j*(r+1))
	}
	send := int32s(int(off), func(i int) int { return 1000*r + i })
	recv := ints(n * (r + 1))
	if err := c.Alltoallv(send, sc2, sd2, recv, rc2, rd2); err != nil {
		return fmt.Errorf("alltoallv: %w", err)
	}
	for j := range n {
		// rank j's block for me starts at sum_{k<r} (k+1) = r(r+1)/2
		for k := range r + 1 {
			if got, want := at(recv, j*(r+1)+k), 1000*j+r*(r+1)/2+k; got != want {
				e.add("alltoallv: from %d element %d is %d, want %d", j, k, got, want)
			}
		}
	}
	return e.err()
}

// Alltoallw transposes an n×n matrix of ints distributed by rows (rank r
// holds row r... as one row of n ints per rank): rank r sends element j of
// its row to rank j as an int and receives column entries, with per-peer
// datatypes: the sender describes each peer's element as a resized int at
// its own byte offset, the receiver as a contiguous int.
func Alltoallw(c comm.Communicator) error {
	n, r := c.Size(), c.Rank()
	row := int32s(n, func(j int) int { return 1000*r + j })
	col := ints(n)
	send, recv := make([]comm.Buffer, n), make([]comm.Buffer, n)
	two := commit(datatype.Contiguous(2, datatype.Of(datatype.Short)))
	for j := range n {
		send[j] = comm.Buffer{Data: row.Data, Origin: int64(4 * j), Count: 1, Type: intT}
		recv[j] = comm.Buffer{Data: col.Data, Origin: int64(4 * j), Count: 1, Type: intT}
	}
	if err := c.Alltoallw(send, recv); err != nil {
		return fmt.Errorf("alltoallw: %w", err)
	}
	for j := range n {
		if at(col, j) != 1000*j+r {
			return fmt.Errorf("alltoallw: element %d is %d, want %d", j, at(col, j), 1000*j+r)
		}
	}
	// a receive type with another signature (two shorts for an int) fails
	// with ErrType at the receiver of rank 0's block; nothing else changes
	for j := range n {
		if j == 0 && r != 0 {
			recv[j] = comm.Buffer{Data: col.Data, Origin: 0, Count: 1, Type: two}
		}
	}
	err := c.Alltoallw(send, recv)
	if r != 0 && !errors.Is(err, comm.ErrType) {
		return fmt.Errorf("alltoallw with a mismatched type: %v, want ErrType", err)
	}
	if r == 0 && err != nil {
		return fmt.Errorf("alltoallw on rank 0: %w", err)
	}
	return nil
}

// CollectiveArgs checks that arguments every rank sees as bad fail on
// every rank without a message sent.
func CollectiveArgs(c comm.Communicator) error {
	b := ints(1)
	if err := c.Bcast(b, c.Size()); err == nil {
		return errors.New("bcast from a root outside the communicator must fail")
	}
	if err := c.Gather(b, b, -1); err == nil {
		return errors.New("gather to a negative root must fail")
	}
	if err := c.Alltoallw([]comm.Buffer{b}, nil); err == nil {
		return errors.New("alltoallw with missing buffers must fail")
	}
	if err := c.Alltoallv(b, nil, nil, b, nil, nil); err == nil {
		return errors.New("alltoallv with missing counts must fail")
	}
	return c.Barrier()
}

// Splitter is a Communicator that can be split (MPI_Comm_split).
type Splitter[C comm.Communicator] interface {
	comm.Communicator
	Split(color, key int) (C, error)
}

// SplitTest splits c into even and odd ranks in reverse order, checks the
// new ranks, runs a Bcast and a ring Sendrecv in each half, and checks that
// a message of the parent is not taken by the halves.
func SplitTest[C comm.Communicator](c Splitter[C]) error {
	n, r := c.Size(), c.Rank()
	var parent *comm.Request
	if r == 0 { // a parent message, received after the halves are done
		var err error
		if parent, err = c.Isend(int32s(1, func(int) int { return 4242 }), n-1, 7); err != nil {
			return err
		}
	}
	h, err := c.Split(r%2, -r)
	if err != nil {
		return fmt.Errorf("split: %w", err)
	}
	size := (n + 1 - r%2) / 2
	var members []int
	for i := n - 1; i >= 0; i-- {
		if i%2 == r%2 {
			members = append(members, i)
		}
	}
	want := -1
	for i, m := range members {
		if m == r {
			want = i
		}
	}
	if h.Size() != size || h.Rank() != want {
		return fmt.Errorf("split: rank %d of %d, want %d of %d", h.Rank(), h.Size(), want, size)
	}
	b := int32s(1, func(int) int { return r })
	if err := h.Bcast(b, 0); err != nil {
		return fmt.Errorf("bcast in the half: %w", err)
	}
	if at(b, 0) != members[0] {
		return fmt.Errorf("bcast in the half: got %d, want %d", at(b, 0), members[0])
	}
	sum := ints(1)
	if err := h.Allreduce(int32s(1, func(int) int { return r }), sum, comm.Sum); err != nil {
		return fmt.Errorf("allreduce in the half: %w", err)
	}
	if want := (size - 1) * size; at(sum, 0) != want+r%2*size { // the sum of the half's ranks
		return fmt.Errorf("allreduce in the half: got %d, want %d", at(sum, 0), want+r%2*size)
	}
	s := int32s(1, func(int) int { return r })
	rb := ints(1)
	hr, hn := h.Rank(), h.Size()
	st, err := h.Sendrecv(s, (hr+1)%hn, 7, rb, comm.AnySource, 7)
	if err != nil {
		return fmt.Errorf("sendrecv in the half: %w", err)
	}
	if st.Source != (hr+hn-1)%hn || at(rb, 0) != members[(hr+hn-1)%hn] {
		return fmt.Errorf("sendrecv in the half: %d from %d", at(rb, 0), st.Source)
	}
	// leaving out: a rank with a negative color gets nothing
	color := 0
	if r == 0 {
		color = comm.Undefined
	}
	x, err := c.Split(color, 0)
	if err != nil {
		return err
	}
	if (r == 0) != isNil(x) {
		return fmt.Errorf("split with an undefined color: rank %d got %v", r, x)
	}
	if r == n-1 {
		b := ints(1)
		if _, err := c.Recv(b, 0, 7); err != nil || at(b, 0) != 4242 {
			return fmt.Errorf("the parent's message: %v, %d", err, at(b, 0))
		}
	}
	if parent != nil {
		_, err = parent.Wait()
	}
	return err
}

func isNil[C any](x C) bool {
	var v any = x
	switch p := v.(type) {
	case *comm.Comm:
		return p == nil
	case nil:
		return true
	}
	return fmt.Sprint(x) == "<nil>"
}
