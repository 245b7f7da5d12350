/* holerecv.c - Open MPI, no library (docs/interpose.md, "Truncated receives
   on Open MPI"): mpicc.openmpi -O2 -o /tmp/holerecv interpose/bench/holerecv.c &&
   /work/wt/measure.sh mpirun.openmpi --allow-run-as-root --oversubscribe -np 2 /tmp/holerecv

   A/B in one run: ping-pong of n bytes where both ranks receive either as
   n MPI_BYTE (A) or as one instance of the hole type (B: bytes 0..n-2 and n);
   samples alternate A/B; prints min and median round trip (us) per size. Also
   the cost of building+committing+freeing a hole type. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
static int cmp(const void *a, const void *b) { double x = *(double *)a, y = *(double *)b; return x < y ? -1 : x > y; }
static MPI_Datatype hole(int n) {
	int bl[2] = {n - 1, 1}; MPI_Aint d[2] = {0, n}; MPI_Datatype t;
	MPI_Type_create_hindexed(2, bl, d, MPI_BYTE, &t); MPI_Type_commit(&t); return t;
}
int main(int argc, char **argv) {
	MPI_Init(&argc, &argv);
	int r; MPI_Comm_rank(MPI_COMM_WORLD, &r);
	int sizes[] = {64, 1024, 4096, 16384, 65536, 262144, 1048576};
	for (int si = 0; si < 7; si++) {
		int n = sizes[si];
		char *b = calloc(n + 16, 1);
		MPI_Datatype h = hole(n);
		int it = n <= 4096 ? 1000 : n <= 65536 ? 200 : 20;
		enum { R = 15 };
		double s[2][R];
		for (int rep = 0; rep < 2 * R; rep++) {
			int B = rep & 1;
			MPI_Datatype t = B ? h : MPI_BYTE; int c = B ? 1 : n;
			MPI_Barrier(MPI_COMM_WORLD);
			double t0 = MPI_Wtime();
			for (int i = 0; i < it; i++) {
				if (r == 0) { MPI_Send(b, n, MPI_BYTE, 1, 0, MPI_COMM_WORLD); MPI_Recv(b, c, t, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); }
				else { MPI_Recv(b, c, t, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); MPI_Send(b, n, MPI_BYTE, 0, 0, MPI_COMM_WORLD); }
			}
			s[B][rep / 2] = (MPI_Wtime() - t0) / it * 1e6;
		}
		qsort(s[0], R, sizeof(double), cmp); qsort(s[1], R, sizeof(double), cmp);
		if (r == 0) { printf("n=%d bytes: min A %.2f B %.2f (B/A %.2f)  median A %.2f B %.2f (B/A %.2f) us/roundtrip\n", n, s[0][0], s[1][0], s[1][0] / s[0][0], s[0][R/2], s[1][R/2], s[1][R/2] / s[0][R/2]); fflush(stdout); }
		MPI_Type_free(&h); free(b);
	}
	if (r == 0) {
		double best = 1e9;
		for (int rep = 0; rep < 5; rep++) {
			double t0 = MPI_Wtime();
			for (int i = 0; i < 20000; i++) { MPI_Datatype t = hole(1000 + i); MPI_Type_free(&t); }
			double x = (MPI_Wtime() - t0) / 20000 * 1e9; if (x < best) best = x;
		}
		printf("build+commit+free of a hole type: %.0f ns\n", best);
	}
	MPI_Finalize();
}
