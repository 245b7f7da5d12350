// mpirecv: the C side of issue 22's question "would comm/mpi's small
// round trip be faster if it called MPI differently?". It times a 136-byte
// ping-pong (an 80-byte message with comm/mpi's 56-byte header) between
// ranks 0 and 1 in five ways, alternated in every round, and prints the
// minimum of each:
//
//   send+recv      MPI_Send, MPI_Recv from the known source and tag
//   send+recv-any  MPI_Send, MPI_Recv from MPI_ANY_SOURCE, MPI_ANY_TAG
//   isend-test     MPI_Isend then MPI_Test (MPI_Wait if not done), as comm/mpi sends
//   irecv-spin     MPI_Irecv(any) then MPI_Test until done, as comm/mpi polls
//   irecv-wait     MPI_Irecv(any) then MPI_Wait
//
// argv[1] is the thread level asked for: 0 MPI_THREAD_SERIALIZED, 1 MPI_THREAD_MULTIPLE.
//
//   mpicc.mpich -O2 -o /tmp/mpirecv-mpich bench/scripts/mpirecv.c
//   bench/scripts/measure.sh mpirun.mpich -np 2 /tmp/mpirecv-mpich 1
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { NMODES = 5, SIZE = 136, ITERS = 200, ROUNDS = 61 };
static const char *names[NMODES] = {"send+recv", "send+recv-any", "isend-test", "irecv-spin", "irecv-wait"};

static void snd(char *buf, int peer, MPI_Comm c, int mode) {
	if (mode != 2) {
		MPI_Send(buf, SIZE, MPI_BYTE, peer, 0, c);
		return;
	}
	MPI_Request r;
	int done = 0;
	MPI_Isend(buf, SIZE, MPI_BYTE, peer, 0, c, &r);
	MPI_Test(&r, &done, MPI_STATUS_IGNORE);
	if (!done) MPI_Wait(&r, MPI_STATUS_IGNORE);
}

static void rcv(char *buf, int peer, MPI_Comm c, int mode) {
	if (mode <= 2) {
		int any = mode == 1;
		MPI_Recv(buf, SIZE, MPI_BYTE, any ? MPI_ANY_SOURCE : peer, any ? MPI_ANY_TAG : 0, c, MPI_STATUS_IGNORE);
		return;
	}
	MPI_Request r;
	MPI_Status st;
	int done = 0;
	MPI_Irecv(buf, SIZE, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, c, &r);
	if (mode == 3) {
		while (!done) MPI_Test(&r, &done, &st);
	} else {
		MPI_Wait(&r, &st);
	}
}

static double run(MPI_Comm c, int rank, int mode) {
	char buf[SIZE] = {0};
	int peer = 1 - rank;
	MPI_Barrier(c);
	double t0 = MPI_Wtime();
	for (int i = 0; i < ITERS; i++) {
		if (rank == 0) {
			snd(buf, peer, c, mode);
			rcv(buf, peer, c, mode);
		} else {
			rcv(buf, peer, c, mode);
			snd(buf, peer, c, mode);
		}
	}
	return (MPI_Wtime() - t0) / ITERS * 1e6;
}

int main(int argc, char **argv) {
	int provided, multiple = argc > 1 && atoi(argv[1]) != 0, rank, size;
	MPI_Init_thread(&argc, &argv, multiple ? MPI_THREAD_MULTIPLE : MPI_THREAD_SERIALIZED, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size != 2) {
		if (rank == 0) fprintf(stderr, "mpirecv: run with 2 ranks\n");
		MPI_Finalize();
		return 1;
	}
	double best[NMODES];
	for (int m = 0; m < NMODES; m++) best[m] = 1e30;
	for (int r = 0; r < ROUNDS; r++) {
		for (int m = 0; m < NMODES; m++) {
			double t = run(MPI_COMM_WORLD, rank, m);
			if (t < best[m]) best[m] = t;
		}
	}
	if (rank == 0) {
		printf("%s (provided %d):", multiple ? "MULTIPLE" : "SERIALIZED", provided);
		for (int m = 0; m < NMODES; m++) printf(" %s %.2f", names[m], best[m]);
		printf(" µs (min of %d rounds of %d round trips of %d B)\n", ROUNDS, ITERS, SIZE);
	}
	MPI_Finalize();
	return 0;
}
