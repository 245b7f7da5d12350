package comm

import "fmt"

// Alltoall is MPI_Alltoall: block j of send (send.Count instances,
// starting j*send.Count extents after send's origin) goes to rank j, and
// the block from rank i lands at block i of recv. Every rank must call it.
func (c *Comm) Alltoall(send, recv Buffer, tag int) error {
	n := c.Size()
	var reqs []*Request
	for i := range n {
		rb := recv
		rb.Origin = recv.Origin + int64(i)*recv.Count*recv.Type.Type().Extent()
		r, err := c.Irecv(rb, i, tag)
		if err != nil {
			return fmt.Errorf("alltoall: block %d: %w", i, err)
		}
		reqs = append(reqs, r)
	}
	for k := range n {
		j := (c.rank + k) % n // stagger the sends
		sb := send
		sb.Origin = send.Origin + int64(j)*send.Count*send.Type.Type().Extent()
		r, err := c.Isend(sb, j, tag)
		if err != nil {
			return fmt.Errorf("alltoall: block %d: %w", j, err)
		}
		reqs = append(reqs, r)
	}
	return WaitAll(reqs...)
}
