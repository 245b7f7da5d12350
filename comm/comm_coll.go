package comm

import "sync/atomic"

var _ Collectives = (*Comm)(nil)

func (c *Comm) colls() Collectives { return coll{c.coll} }

// Barrier returns when every rank has called it (MPI_Barrier).
func (c *Comm) Barrier() error { return c.colls().Barrier() }

// Bcast sends buf of rank root to buf of every other rank (MPI_Bcast).
func (c *Comm) Bcast(buf Buffer, root int) error { return c.colls().Bcast(buf, root) }

// Gather is MPI_Gather; see Collectives.
func (c *Comm) Gather(send, recv Buffer, root int) error { return c.colls().Gather(send, recv, root) }

// Gatherv is MPI_Gatherv; see Collectives.
func (c *Comm) Gatherv(send, recv Buffer, counts, displs []int64, root int) error {
	return c.colls().Gatherv(send, recv, counts, displs, root)
}

// Scatter is MPI_Scatter; see Collectives.
func (c *Comm) Scatter(send, recv Buffer, root int) error { return c.colls().Scatter(send, recv, root) }

// Scatterv is MPI_Scatterv; see Collectives.
func (c *Comm) Scatterv(send Buffer, counts, displs []int64, recv Buffer, root int) error {
	return c.colls().Scatterv(send, counts, displs, recv, root)
}

// Allgather is MPI_Allgather; see Collectives.
func (c *Comm) Allgather(send, recv Buffer) error { return c.colls().Allgather(send, recv) }

// Alltoall is MPI_Alltoall: block j of send (send.Count instances,
// starting j*send.Count extents after send's origin) goes to rank j, and
// the block from rank i lands at block i of recv. Every rank must call it.
// All blocks are checked before any is posted, so a bad argument leaves no
// receive behind to take a later message.
func (c *Comm) Alltoall(send, recv Buffer, tag int) error {
	return c.colls().Alltoall(send, recv, tag)
}

// Alltoallv is MPI_Alltoallv; see Collectives.
func (c *Comm) Alltoallv(send Buffer, scounts, sdispls []int64, recv Buffer, rcounts, rdispls []int64) error {
	return c.colls().Alltoallv(send, scounts, sdispls, recv, rcounts, rdispls)
}

// Alltoallw is MPI_Alltoallw with a Buffer per rank; see Collectives.
func (c *Comm) Alltoallw(send, recv []Buffer) error { return c.colls().Alltoallw(send, recv) }

// Split is MPI_Comm_split: every rank of c calls it, and the ranks that
// give the same color get a new communicator together, ordered by key and
// then by their rank in c. A rank that gives a negative color (such as
// Undefined) takes part but gets nil.
func (c *Comm) Split(color, key int) (*Comm, error) {
	plan, err := PlanSplit(c.coll, color, key, atomic.LoadUint32(c.next))
	if err != nil {
		return nil, err
	}
	atomic.StoreUint32(c.next, plan.Context+2)
	if plan.Rank < 0 {
		return nil, nil
	}
	group := make([]int, len(plan.Members))
	for i, m := range plan.Members {
		group[i] = c.group[m]
	}
	return newComm(c.w, plan.Rank, group, plan.Context, c.next), nil
}

// Reduce is MPI_Reduce; see Reductions.
func (c *Comm) Reduce(send, recv Buffer, op *Op, root int) error {
	return c.colls().Reduce(send, recv, op, root)
}

// Allreduce is MPI_Allreduce; see Reductions.
func (c *Comm) Allreduce(send, recv Buffer, op *Op) error { return c.colls().Allreduce(send, recv, op) }

// ReduceScatter is MPI_Reduce_scatter; see Reductions.
func (c *Comm) ReduceScatter(send, recv Buffer, counts []int64, op *Op) error {
	return c.colls().ReduceScatter(send, recv, counts, op)
}

// ReduceScatterBlock is MPI_Reduce_scatter_block; see Reductions.
func (c *Comm) ReduceScatterBlock(send, recv Buffer, op *Op) error {
	return c.colls().ReduceScatterBlock(send, recv, op)
}

// Scan is MPI_Scan; see Reductions.
func (c *Comm) Scan(send, recv Buffer, op *Op) error { return c.colls().Scan(send, recv, op) }

// Exscan is MPI_Exscan; see Reductions.
func (c *Comm) Exscan(send, recv Buffer, op *Op) error { return c.colls().Exscan(send, recv, op) }
