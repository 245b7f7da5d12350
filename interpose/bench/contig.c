/* contig.c - the round trip of contiguous messages (MPI_BYTE) between two
   ranks, no library: what a message of n bytes costs on this node's MPI,
   eager or rendezvous (docs/interpose-bench.md, "Packet 0 under the eager
   limit"):

     mpicc.openmpi -O2 -o /tmp/contig interpose/bench/contig.c &&
       mpirun.openmpi --allow-run-as-root -np 2 --bind-to core /tmp/contig 64 4000 4096 16416 90804

   For each size (arguments; default 64 4000 16416 90804): REPS round trips
   (rank 0 sends, rank 1 receives and sends back), each timed after a
   barrier; prints the fastest and the median in microseconds. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { REPS = 2000 };

static int cmp(const void *a, const void *b) {
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
	MPI_Init(&argc, &argv);
	int rank, np;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &np);
	if (np != 2) {
		if (rank == 0) fprintf(stderr, "contig: run with 2 ranks\n");
		MPI_Finalize();
		return 2;
	}
	long def[] = {64, 4000, 16416, 90804};
	int nsz = argc > 1 ? argc - 1 : 4;
	static double t[REPS];
	for (int k = 0; k < nsz; k++) {
		long n = argc > 1 ? atol(argv[k + 1]) : def[k];
		if (n < 1 || n > (1 << 30)) {
			if (rank == 0) fprintf(stderr, "contig: size %s out of range\n", argv[k + 1]);
			continue;
		}
		char *b = aligned_alloc(4096, (size_t)(n + 4095) / 4096 * 4096);
		if (!b) MPI_Abort(MPI_COMM_WORLD, 1);
		for (long i = 0; i < n; i++) b[i] = (char)i;
		for (int r = 0; r < REPS; r++) {
			MPI_Barrier(MPI_COMM_WORLD);
			double t0 = MPI_Wtime();
			if (rank == 0) {
				MPI_Send(b, (int)n, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
				MPI_Recv(b, (int)n, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			} else {
				MPI_Recv(b, (int)n, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
				MPI_Send(b, (int)n, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
			}
			t[r] = MPI_Wtime() - t0;
		}
		qsort(t, REPS, sizeof t[0], cmp);
		if (rank == 0) printf("%8ld bytes: fastest %7.2f us, median %7.2f us\n", n, t[0] * 1e6, t[REPS / 2] * 1e6);
		free(b);
	}
	MPI_Finalize();
	return 0;
}
