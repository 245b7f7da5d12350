//go:build mpi

package mpi

import (
	"errors"

	"github.com/ddtlab/ddt/comm"
)

var _ comm.Collectives = (*Comm)(nil)

// colls returns the collectives of package comm over c's collective
// context (Raw Comms use Packed messages there).
func (c *Comm) colls() comm.Collectives {
	d := *c
	d.ctx = c.ctx + 1
	if d.mode == Raw {
		d.mode = Packed
	}
	return comm.NewCollectives(&d)
}

// Bcast sends buf of rank root to buf of every other rank (MPI_Bcast).
func (c *Comm) Bcast(buf comm.Buffer, root int) error { return c.colls().Bcast(buf, root) }

// Gather is MPI_Gather; see comm.Collectives.
func (c *Comm) Gather(send, recv comm.Buffer, root int) error {
	return c.colls().Gather(send, recv, root)
}

// Gatherv is MPI_Gatherv; see comm.Collectives.
func (c *Comm) Gatherv(send, recv comm.Buffer, counts, displs []int64, root int) error {
	return c.colls().Gatherv(send, recv, counts, displs, root)
}

// Scatter is MPI_Scatter; see comm.Collectives.
func (c *Comm) Scatter(send, recv comm.Buffer, root int) error {
	return c.colls().Scatter(send, recv, root)
}

// Scatterv is MPI_Scatterv; see comm.Collectives.
func (c *Comm) Scatterv(send comm.Buffer, counts, displs []int64, recv comm.Buffer, root int) error {
	return c.colls().Scatterv(send, counts, displs, recv, root)
}

// Allgather is MPI_Allgather; see comm.Collectives.
func (c *Comm) Allgather(send, recv comm.Buffer) error { return c.colls().Allgather(send, recv) }

// Alltoall is MPI_Alltoall: block j of send (send.Count instances,
// starting j*send.Count extents after send's origin) goes to rank j, and
// the block from rank i lands at block i of recv. Every rank must call it.
func (c *Comm) Alltoall(send, recv comm.Buffer, tag int) error {
	return c.colls().Alltoall(send, recv, tag)
}

// Alltoallv is MPI_Alltoallv; see comm.Collectives.
func (c *Comm) Alltoallv(send comm.Buffer, scounts, sdispls []int64, recv comm.Buffer, rcounts, rdispls []int64) error {
	return c.colls().Alltoallv(send, scounts, sdispls, recv, rcounts, rdispls)
}

// Alltoallw is MPI_Alltoallw with a Buffer per rank; see comm.Collectives.
func (c *Comm) Alltoallw(send, recv []comm.Buffer) error { return c.colls().Alltoallw(send, recv) }

// Split is MPI_Comm_split: every rank of c calls it, and the ranks that
// give the same color get a new communicator together, in c's mode,
// ordered by key and then by their rank in c. A rank that gives a negative
// color (such as comm.Undefined) takes part but gets nil. The new
// communicator's messages travel on the same MPI communicators as c's,
// told apart by a context in their header; Raw mode works on the world
// communicator only.
func (c *Comm) Split(color, key int) (*Comm, error) {
	w := c.w
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return nil, errors.New("mpi: split after Finalize")
	}
	next := w.nextCtx
	w.mu.Unlock()
	d := *c
	d.ctx = c.ctx + 1
	if d.mode == Raw {
		d.mode = Packed
	}
	plan, err := comm.PlanSplit(&d, color, key, next)
	if err != nil {
		return nil, err
	}
	w.mu.Lock()
	w.nextCtx = max(w.nextCtx, plan.Context+2)
	w.mu.Unlock()
	if plan.Rank < 0 {
		return nil, nil
	}
	s := *c
	s.rank, s.ctx = plan.Rank, plan.Context
	s.group = make([]int, len(plan.Members))
	for i, m := range plan.Members {
		s.group[i] = c.group[m]
	}
	return &s, nil
}

// Reduce is MPI_Reduce; see comm.Reductions and the package documentation
// for when MPI reduces and when ddt does.
func (c *Comm) Reduce(send, recv comm.Buffer, op *comm.Op, root int) error {
	if ok, err := c.reduce(redArgs{kind: redReduce, send: send, recv: recv, op: op, root: root}); ok {
		return err
	}
	return c.colls().Reduce(send, recv, op, root)
}

// Allreduce is MPI_Allreduce; see Reduce.
func (c *Comm) Allreduce(send, recv comm.Buffer, op *comm.Op) error {
	if ok, err := c.reduce(redArgs{kind: redAllreduce, send: send, recv: recv, op: op}); ok {
		return err
	}
	return c.colls().Allreduce(send, recv, op)
}

// ReduceScatter is MPI_Reduce_scatter; see Reduce.
func (c *Comm) ReduceScatter(send, recv comm.Buffer, counts []int64, op *comm.Op) error {
	if ok, err := c.reduce(redArgs{kind: redReduceScatter, send: send, recv: recv, op: op, counts: counts}); ok {
		return err
	}
	return c.colls().ReduceScatter(send, recv, counts, op)
}

// ReduceScatterBlock is MPI_Reduce_scatter_block; see Reduce.
func (c *Comm) ReduceScatterBlock(send, recv comm.Buffer, op *comm.Op) error {
	var counts []int64
	if n := int64(c.Size()); send.Count >= 0 && send.Count%n == 0 {
		counts = make([]int64, n)
		for i := range counts {
			counts[i] = send.Count / n
		}
	}
	if ok, err := c.reduce(redArgs{kind: redReduceScatterBlock, send: send, recv: recv, op: op, counts: counts}); ok {
		return err
	}
	return c.colls().ReduceScatterBlock(send, recv, op)
}

// Scan is MPI_Scan; see Reduce.
func (c *Comm) Scan(send, recv comm.Buffer, op *comm.Op) error {
	if ok, err := c.reduce(redArgs{kind: redScan, send: send, recv: recv, op: op}); ok {
		return err
	}
	return c.colls().Scan(send, recv, op)
}

// Exscan is MPI_Exscan; see Reduce.
func (c *Comm) Exscan(send, recv comm.Buffer, op *comm.Op) error {
	if ok, err := c.reduce(redArgs{kind: redExscan, send: send, recv: recv, op: op}); ok {
		return err
	}
	return c.colls().Exscan(send, recv, op)
}
