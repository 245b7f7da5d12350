//go:build mpi

package main

/*
#include <mpi.h>
#include <stdlib.h>

// cb_bytes runs iters round trips of n bytes between ranks 0 and 1 on
// MPI_COMM_WORLD (comm/mpi talks on duplicates of it) in plain C and
// returns the seconds they took: the floor of the same process's MPI,
// without Go or comm/mpi in the loop.
static double cb_bytes(void *buf, int n, int iters, int rank)
{
	int peer = 1 - rank;
	double t0 = MPI_Wtime();
	for (int i = 0; i < iters; i++) {
		if (rank == 0) {
			MPI_Send(buf, n, MPI_BYTE, peer, 7, MPI_COMM_WORLD);
			MPI_Recv(buf, n, MPI_BYTE, peer, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		} else {
			MPI_Recv(buf, n, MPI_BYTE, peer, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			MPI_Send(buf, n, MPI_BYTE, peer, 7, MPI_COMM_WORLD);
		}
	}
	return MPI_Wtime() - t0;
}
*/
import "C"

import (
	"time"
	"unsafe"
)

// cBytes times k round trips of n bytes by C alone, in this process.
func cBytes(n int64, k, rank int) time.Duration {
	buf := C.calloc(C.size_t(max(n, 1)), 1)
	defer C.free(unsafe.Pointer(buf))
	s := C.cb_bytes(buf, C.int(n), C.int(k), C.int(rank))
	return time.Duration(float64(s) * 1e9)
}
