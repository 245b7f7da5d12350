/* The MPI_ERROR field of a status: MPI sets it only in the statuses of
   multiple-completion calls (Waitall, Testall, Waitsome, Testsome), and a
   program may rely on the value it put there (mpi4py initializes it and
   reads it back). Each call below gets a status whose MPI_ERROR is a
   sentinel, with messages of a derived type ddt serves (small, and large
   enough to be pipelined) and of a predefined type; afterwards the field
   must hold the sentinel or MPI_SUCCESS (MPICH writes MPI_SUCCESS in Probe,
   Iprobe and Sendrecv_replace, Open MPI keeps the sentinel), never anything
   else (the library once copied the uninitialized field of its own status
   there). */
#include "common.h"

enum { SENTINEL = 4242, N = 1 << 16 };

static void report(const char *call, const char *kind, MPI_Status *st) {
	CHECK(st->MPI_ERROR == SENTINEL || st->MPI_ERROR == MPI_SUCCESS, "%s %s: MPI_ERROR %d", call, kind, st->MPI_ERROR);
	if (rank_ == 1) printf("ok %s %s\n", call, kind);
}

static MPI_Status fresh(void) {
	MPI_Status st;
	memset(&st, 0, sizeof st);
	st.MPI_ERROR = SENTINEL;
	return st;
}

int main(int argc, char **argv) {
	start(&argc, &argv);
	MPI_Datatype col;
	MPI_Type_vector(N, 1, 2, MPI_DOUBLE, &col); /* 512 KiB packed: pipelined */
	MPI_Type_commit(&col);
	MPI_Datatype small;
	MPI_Type_vector(8, 1, 2, MPI_DOUBLE, &small);
	MPI_Type_commit(&small);
	double *a = malloc(sizeof(double) * 2 * N), *b = malloc(sizeof(double) * 2 * N);
	fill(a, sizeof(double) * 2 * N, 3);
	struct {
		const char *kind;
		MPI_Datatype t;
		int count;
	} cs[3] = {{"small vector", small, 1}, {"large vector", col, 1}, {"doubles", MPI_DOUBLE, 16}};
	if (size_ >= 2 && rank_ < 2) {
		int peer = 1 - rank_;
		for (int k = 0; k < 3; k++) {
			MPI_Datatype t = cs[k].t;
			int c = cs[k].count;
			const char *kind = cs[k].kind;
			MPI_Status st;
			MPI_Request r;
			int flag;
			if (rank_ == 0) {
				for (int i = 0; i < 6; i++) MPI_Send(a, c, t, peer, 10 + i, MPI_COMM_WORLD);
			} else {
				st = fresh();
				MPI_Probe(peer, 10, MPI_COMM_WORLD, &st);
				report("Probe", kind, &st);
				st = fresh();
				MPI_Recv(b, c, t, peer, 10, MPI_COMM_WORLD, &st);
				report("Recv", kind, &st);
				st = fresh();
				flag = 0;
				while (!flag) MPI_Iprobe(peer, 11, MPI_COMM_WORLD, &flag, &st);
				report("Iprobe", kind, &st);
				MPI_Message m;
				st = fresh();
				MPI_Mprobe(peer, 11, MPI_COMM_WORLD, &m, &st);
				report("Mprobe", kind, &st);
				st = fresh();
				MPI_Mrecv(b, c, t, &m, &st);
				report("Mrecv", kind, &st);
				MPI_Irecv(b, c, t, peer, 12, MPI_COMM_WORLD, &r);
				st = fresh();
				MPI_Wait(&r, &st);
				report("Wait", kind, &st);
				MPI_Irecv(b, c, t, peer, 13, MPI_COMM_WORLD, &r);
				st = fresh();
				flag = 0;
				while (!flag) MPI_Test(&r, &flag, &st);
				report("Test", kind, &st);
				int idx;
				MPI_Irecv(b, c, t, peer, 14, MPI_COMM_WORLD, &r);
				st = fresh();
				MPI_Waitany(1, &r, &idx, &st);
				report("Waitany", kind, &st);
				MPI_Irecv(b, c, t, peer, 15, MPI_COMM_WORLD, &r);
				st = fresh();
				flag = 0;
				while (!flag) MPI_Testany(1, &r, &idx, &flag, &st);
				report("Testany", kind, &st);
			}
			st = fresh();
			MPI_Sendrecv(a, c, t, peer, 20, b, c, t, peer, 20, MPI_COMM_WORLD, &st);
			report("Sendrecv", kind, &st);
			st = fresh();
			MPI_Sendrecv_replace(b, c, t, peer, 21, peer, 21, MPI_COMM_WORLD, &st);
			report("Sendrecv_replace", kind, &st);
		}
	}
	MPI_Type_free(&col);
	MPI_Type_free(&small);
	free(a), free(b);
	MPI_Finalize();
	return 0;
}
