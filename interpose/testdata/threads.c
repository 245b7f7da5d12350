/* MPI_THREAD_MULTIPLE: several threads per process create, commit, pack,
   send, receive and free derived types at the same time; each thread
   talks to the same thread of the peer process on its own tag. */
#include "common.h"
#include <pthread.h>

enum { NT = 4, ITERS = 200, N = 32 };
static int peer;

static void *work(void *arg) {
	int id = (int)(long)arg;
	double *m = malloc(sizeof(double) * N * N), *r = malloc(sizeof(double) * N * N);
	for (int it = 0; it < ITERS; it++) {
		int stride = 2 + (id + it) % 5, cnt = N / stride;
		MPI_Datatype v;
		MPI_Type_vector(cnt, 1, stride, MPI_DOUBLE, &v);
		MPI_Type_commit(&v);
		for (int k = 0; k < N * N; k++) m[k] = rank_ * 1e6 + id * 1e4 + it + k * 1e-3, r[k] = -1;
		/* pack and check */
		char pk[N * 8];
		int pos = 0;
		MPI_Pack(m, 1, v, pk, sizeof pk, &pos, MPI_COMM_SELF);
		CHECK(pos == cnt * 8, "thread %d: pack position %d", id, pos);
		for (int k = 0; k < cnt; k++) CHECK(((double *)pk)[k] == m[k * stride], "thread %d: packed %d", id, k);
		if (peer >= 0) {
			MPI_Request q[2];
			MPI_Irecv(r, 1, v, peer, id, MPI_COMM_WORLD, &q[0]);
			MPI_Isend(m, 1, v, peer, id, MPI_COMM_WORLD, &q[1]);
			MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
			for (int k = 0; k < N * N; k++) {
				double w = k % stride == 0 && k / stride < cnt ? peer * 1e6 + id * 1e4 + it + k * 1e-3 : -1;
				CHECK(r[k] == w, "thread %d iteration %d: r[%d] = %g, want %g", id, it, k, r[k], w);
			}
		}
		MPI_Type_free(&v);
	}
	free(m), free(r);
	return NULL;
}

int main(int argc, char **argv) {
	int provided;
	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
	MPI_Comm_size(MPI_COMM_WORLD, &size_);
	if (provided < MPI_THREAD_MULTIPLE) {
		ok("threads (MPI_THREAD_MULTIPLE not provided)");
		MPI_Finalize();
		return 0;
	}
	peer = rank_ ^ 1;
	if (peer >= size_) peer = -1;
	pthread_t th[NT];
	for (long i = 0; i < NT; i++) pthread_create(&th[i], NULL, work, (void *)i);
	for (int i = 0; i < NT; i++) pthread_join(th[i], NULL);
	MPI_Barrier(MPI_COMM_WORLD);
	ok("threads");
	MPI_Finalize();
	return 0;
}
