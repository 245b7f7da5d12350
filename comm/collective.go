package comm

import (
	"fmt"
	"math"
)

// Alltoall is MPI_Alltoall: block j of send (send.Count instances,
// starting j*send.Count extents after send's origin) goes to rank j, and
// the block from rank i lands at block i of recv. Every rank must call it.
// All blocks are checked before any is posted, so a bad argument leaves no
// receive behind to take a later message.
func (c *Comm) Alltoall(send, recv Buffer, tag int) error {
	n := c.Size()
	const op = "alltoall"
	if err := c.checkPeer(op, c.rank, tag, false); err != nil {
		return err
	}
	sends, err := blocks(op, send, n)
	if err != nil {
		return err
	}
	recvs, err := blocks(op, recv, n)
	if err != nil {
		return err
	}
	for i := range n {
		if _, err := sends[i].Type.NewPacker(sends[i].Data, sends[i].Origin, sends[i].Count); err != nil {
			return fmt.Errorf("%s: send block %d: %w", op, i, err)
		}
		if _, err := recvs[i].Type.NewUnpacker(recvs[i].Data, recvs[i].Origin, recvs[i].Count); err != nil {
			return fmt.Errorf("%s: receive block %d: %w", op, i, err)
		}
	}
	var reqs []*Request
	for i := range n {
		r, err := c.Irecv(recvs[i], i, tag)
		if err != nil { // cannot happen after the checks above
			return fmt.Errorf("alltoall: block %d: %w", i, err)
		}
		reqs = append(reqs, r)
	}
	for k := range n {
		j := (c.rank + k) % n // stagger the sends
		r, err := c.Isend(sends[j], j, tag)
		if err != nil {
			return fmt.Errorf("alltoall: block %d: %w", j, err)
		}
		reqs = append(reqs, r)
	}
	return WaitAll(reqs...)
}

// blocks cuts b into n consecutive blocks of b.Count instances each.
func blocks(op string, b Buffer, n int) ([]Buffer, error) {
	if b.Type == nil {
		return nil, fmt.Errorf("%s: nil type", op)
	}
	if b.Count < 0 {
		return nil, fmt.Errorf("%s: negative count %d", op, b.Count)
	}
	if b.Count > math.MaxInt64/int64(n) {
		return nil, fmt.Errorf("%s: %d blocks of %d instances overflow", op, n, b.Count)
	}
	if _, _, err := b.Type.Type().Span(int64(n) * b.Count); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	out := make([]Buffer, n)
	for i := range out {
		out[i] = b
		out[i].Origin += int64(i) * b.Count * b.Type.Type().Extent()
	}
	return out, nil
}
