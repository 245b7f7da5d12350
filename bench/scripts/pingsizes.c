// pingsizes: the C round trip of MPI_Send and MPI_Recv of MPI_BYTE between
// ranks 0 and 1 for message sizes around comm/mpi's small messages (80
// bytes of data with an 8-byte compact header or a 56-byte full one),
// sizes alternated in every round, minimum of ROUNDS rounds of ITERS
// round trips each (docs/comm-mpi.md, "Third pass").
//
//   mpicc.mpich -O2 -o /tmp/pingsizes-mpich bench/scripts/pingsizes.c
//   bench/scripts/measure.sh mpirun.mpich -np 2 /tmp/pingsizes-mpich
#include <mpi.h>
#include <stdio.h>

static const int sizes[] = {8, 16, 24, 40, 56, 64, 72, 80, 84, 88, 92, 96, 104, 136, 144};
enum { NS = sizeof sizes / sizeof sizes[0], ITERS = 200, ROUNDS = 101 };

int main(int argc, char **argv) {
	int rank;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	static char buf[256];
	double best[NS];
	for (int s = 0; s < NS; s++) best[s] = 1e9;
	for (int r = 0; r < ROUNDS; r++) {
		for (int s = 0; s < NS; s++) {
			int n = sizes[s];
			MPI_Barrier(MPI_COMM_WORLD);
			double t0 = MPI_Wtime();
			for (int i = 0; i < ITERS && rank < 2; i++) {
				if (rank == 0) {
					MPI_Send(buf, n, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
					MPI_Recv(buf, n, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
				} else {
					MPI_Recv(buf, n, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
					MPI_Send(buf, n, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
				}
			}
			double t = (MPI_Wtime() - t0) / ITERS * 1e6;
			if (t < best[s]) best[s] = t;
		}
	}
	if (rank == 0) {
		for (int s = 0; s < NS; s++) printf("%d\t", sizes[s]);
		printf("bytes\n");
		for (int s = 0; s < NS; s++) printf("%.2f\t", best[s]);
		printf("us\n");
	}
	MPI_Finalize();
	return 0;
}
