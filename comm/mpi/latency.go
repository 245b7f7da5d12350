//go:build mpi

package mpi

/*
#include "ddt_mpi.h"

// ddt_c_pingpong runs iters round trips of n bytes between ranks 0 and 1
// of a duplicate of MPI_COMM_WORLD with blocking MPI_Send and MPI_Recv, as
// a C program would, and returns the seconds they took (on ranks 0 and 1).
static double ddt_c_pingpong(int n, int iters) {
	MPI_Comm c;
	int rank;
	MPI_Comm_dup(MPI_COMM_WORLD, &c);
	MPI_Comm_rank(c, &rank);
	char *buf = calloc(n > 0 ? n : 1, 1);
	MPI_Barrier(c);
	double t0 = MPI_Wtime();
	for (int i = 0; i < iters && rank < 2; i++) {
		if (rank == 0) {
			MPI_Send(buf, n, MPI_BYTE, 1, 0, c);
			MPI_Recv(buf, n, MPI_BYTE, 1, 0, c, MPI_STATUS_IGNORE);
		} else {
			MPI_Recv(buf, n, MPI_BYTE, 0, 0, c, MPI_STATUS_IGNORE);
			MPI_Send(buf, n, MPI_BYTE, 0, 0, c);
		}
	}
	double t = MPI_Wtime() - t0;
	free(buf);
	MPI_Comm_free(&c);
	return t;
}

// ddt_c_allreduce runs iters MPI_Allreduce calls (MPI_SUM) of n doubles
// on a duplicate of MPI_COMM_WORLD, as a C program would, and returns the
// seconds they took.
static double ddt_c_allreduce(int n, int iters) {
	MPI_Comm c;
	MPI_Comm_dup(MPI_COMM_WORLD, &c);
	double *in = calloc(n > 0 ? n : 1, sizeof(double)), *out = calloc(n > 0 ? n : 1, sizeof(double));
	MPI_Barrier(c);
	double t0 = MPI_Wtime();
	for (int i = 0; i < iters; i++) MPI_Allreduce(in, out, n, MPI_DOUBLE, MPI_SUM, c);
	double t = MPI_Wtime() - t0;
	free(in);
	free(out);
	MPI_Comm_free(&c);
	return t;
}
*/
import "C"

import (
	"errors"
	"time"
)

// CPingPong measures the C baseline of a ping-pong: iters round trips of
// n bytes between ranks 0 and 1 with blocking MPI_Send and MPI_Recv of
// MPI_BYTE, called from C, on a duplicate of MPI_COMM_WORLD. It returns
// the mean time per round trip. Every rank must call it (ranks above 1
// only take part in the barrier). It is meant for comparing the
// transport's own overhead with MPI's in one run.
func (c *Comm) CPingPong(n, iters int) (time.Duration, error) {
	if n < 0 || iters <= 0 || c.w.size < 2 {
		return 0, errors.New("mpi: CPingPong needs n >= 0, iters > 0 and 2 ranks")
	}
	w := c.w
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return 0, errors.New("mpi: CPingPong after Finalize")
	}
	s := float64(C.ddt_c_pingpong(C.int(n), C.int(iters)))
	return time.Duration(s / float64(iters) * 1e9), nil
}

// CAllreduce measures the C baseline of a reduction: iters blocking
// MPI_Allreduce calls (MPI_SUM) of n doubles, called from C, on a
// duplicate of MPI_COMM_WORLD. It returns the mean time per call. Every
// rank must call it.
func (c *Comm) CAllreduce(n, iters int) (time.Duration, error) {
	if n < 0 || iters <= 0 {
		return 0, errors.New("mpi: CAllreduce needs n >= 0 and iters > 0")
	}
	w := c.w
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return 0, errors.New("mpi: CAllreduce after Finalize")
	}
	s := float64(C.ddt_c_allreduce(C.int(n), C.int(iters)))
	return time.Duration(s / float64(iters) * 1e9), nil
}
