/* Large messages of derived types between the processes of one node,
   which the library moves through shared memory (interpose/lib/shm.c):
   sizes around the thresholds, another type on the receiving side, a
   contiguous receive, a truncated one, many sends outstanding before any
   receive is posted (received in another order), probes, a send to self,
   an irregular type of large instances, and several threads at once.
   Ranks 2k and 2k+1 are peers; an odd last rank only runs the self test. */
#include "common.h"
#include <pthread.h>

static int peer = -1;

static MPI_Datatype vec(int cnt, int stride) {
	MPI_Datatype t;
	MPI_Type_vector(cnt, 1, stride, MPI_DOUBLE, &t);
	MPI_Type_commit(&t);
	return t;
}

static double val(int from, int seed, long k) { return from * 1e9 + seed * 1e6 + (double)k; }

/* sendvec sends cnt doubles, every stride-th of a buffer, to dest. */
static void sendvec(int mode, int cnt, int stride, int seed, int dest, int tag) {
	double *m = malloc(sizeof(double) * (size_t)cnt * (size_t)stride);
	CHECK(m, "memory");
	for (long k = 0; k < (long)cnt * stride; k++) m[k] = k % stride ? -2 : val(rank_, seed, k / stride);
	MPI_Datatype v = vec(cnt, stride);
	if (mode == 's') MPI_Ssend(m, 1, v, dest, tag, MPI_COMM_WORLD);
	else MPI_Send(m, 1, v, dest, tag, MPI_COMM_WORLD);
	MPI_Type_free(&v);
	free(m);
}

/* recvvec receives up to cnt doubles (every stride-th; stride 0: a
   contiguous receive) and checks the first want of them and that the
   rest of the buffer is untouched; it returns the receive's error code. */
static int recvvec(int cnt, int stride, int seed, int src, int tag, int want) {
	int s = stride ? stride : 1;
	double *r = malloc(sizeof(double) * (size_t)cnt * (size_t)s);
	CHECK(r, "memory");
	for (long k = 0; k < (long)cnt * s; k++) r[k] = -1;
	MPI_Datatype v = stride ? vec(cnt, stride) : MPI_DOUBLE;
	MPI_Status st;
	int rc = MPI_Recv(r, stride ? 1 : cnt, v, src, tag, MPI_COMM_WORLD, &st);
	if (rc == MPI_SUCCESS) {
		int c = -1;
		MPI_Get_count(&st, MPI_DOUBLE, &c);
		CHECK(c == want, "count %d, want %d", c, want);
	}
	/* a truncated receive's buffer is not checked: MPI leaves it undefined */
	for (long k = 0; k < (long)cnt * s && rc == MPI_SUCCESS; k++) {
		double w = k % s ? -1 : k / s < want ? val(src, seed, k / s) : -1;
		CHECK(r[k] == w, "seed %d: r[%ld] = %.0f, want %.0f", seed, k, r[k], w);
	}
	if (stride) MPI_Type_free(&v);
	free(r);
	return rc;
}

static void sizes(void) {
	/* 16.8 KB (packet 0 and a little), 65.6 KB, 320 KB, 2.4 MB */
	int cnts[] = {2100, 8200, 40000, 300000};
	for (int i = 0; i < 4; i++) {
		int c = cnts[i];
		if (rank_ % 2 == 0) {
			sendvec('S', c, 2, i, peer, i);
			CHECK(recvvec(c, 3, 10 + i, peer, 10 + i, c) == MPI_SUCCESS, "receive");
			CHECK(recvvec(c, 0, 20 + i, peer, 20 + i, c) == MPI_SUCCESS, "contiguous receive");
		} else {
			CHECK(recvvec(c, 3, i, peer, i, c) == MPI_SUCCESS, "receive");
			sendvec('s', c, 2, 10 + i, peer, 10 + i);
			sendvec('S', c, 5, 20 + i, peer, 20 + i);
		}
	}
	ok("shm sizes");
}

static void truncated(void) {
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	for (int i = 0; i < 2; i++) {
		int c = i ? 300000 : 40000;
		if (rank_ % 2 == 0) {
			sendvec('S', c, 2, 30 + i, peer, 30);
		} else {
			int rc = recvvec(c / 2, 2, 30 + i, peer, 30, c / 2), cls = -1;
			MPI_Error_class(rc, &cls);
			CHECK(cls == MPI_ERR_TRUNCATE, "truncated receive: error class %d", cls);
		}
	}
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
	/* the next message is whole */
	if (rank_ % 2 == 0) sendvec('S', 40000, 2, 32, peer, 31);
	else CHECK(recvvec(40000, 2, 32, peer, 31, 40000) == MPI_SUCCESS, "receive");
	ok("shm truncated");
}

/* many: NM sends of 512 KB each outstanding before the peer receives them,
   last first. */
enum { NM = 16, MC = 65536 };
static void many(void) {
	if (peer < 0) {
		MPI_Barrier(MPI_COMM_WORLD);
	} else if (rank_ % 2 == 0) {
		double *m = malloc(sizeof(double) * MC * 2 * NM);
		MPI_Request q[NM];
		CHECK(m, "memory");
		MPI_Datatype v = vec(MC, 2);
		for (int j = 0; j < NM; j++) {
			double *b = m + (long)j * MC * 2;
			for (long k = 0; k < MC * 2; k++) b[k] = k % 2 ? -2 : val(rank_, 40 + j, k / 2);
			MPI_Isend(b, 1, v, peer, 40 + j, MPI_COMM_WORLD, &q[j]);
		}
		MPI_Barrier(MPI_COMM_WORLD);
		MPI_Waitall(NM, q, MPI_STATUSES_IGNORE);
		MPI_Type_free(&v);
		free(m);
	} else {
		MPI_Barrier(MPI_COMM_WORLD);
		for (int j = NM - 1; j >= 0; j--)
			CHECK(recvvec(MC, j % 2 ? 2 : 0, 40 + j, peer, 40 + j, MC) == MPI_SUCCESS, "receive %d", j);
	}
	ok("shm many");
}

static void probes(void) {
	if (rank_ % 2 == 0) {
		sendvec('S', 40000, 2, 60, peer, 60);
		sendvec('S', 300000, 3, 61, peer, 61);
	} else {
		MPI_Status st;
		int c = -1;
		MPI_Probe(peer, 60, MPI_COMM_WORLD, &st);
		MPI_Get_count(&st, MPI_DOUBLE, &c);
		CHECK(c == 40000, "probed count %d", c);
		CHECK(recvvec(40000, 4, 60, peer, 60, 40000) == MPI_SUCCESS, "receive");
		MPI_Message msg;
		MPI_Mprobe(peer, 61, MPI_COMM_WORLD, &msg, &st);
		MPI_Get_count(&st, MPI_DOUBLE, &c);
		CHECK(c == 300000, "mprobed count %d", c);
		double *r = malloc(sizeof(double) * 300000);
		CHECK(r, "memory");
		MPI_Mrecv(r, 300000, MPI_DOUBLE, &msg, &st);
		for (long k = 0; k < 300000; k++) CHECK(r[k] == val(peer, 61, k), "mrecv r[%ld] = %.0f", k, r[k]);
		free(r);
	}
	ok("shm probes");
}

static void self(void) {
	int c = 100000;
	double *m = malloc(sizeof(double) * c * 2), *r = malloc(sizeof(double) * c);
	CHECK(m && r, "memory");
	for (long k = 0; k < c * 2; k++) m[k] = k % 2 ? -2 : val(rank_, 70, k / 2);
	MPI_Datatype v = vec(c, 2);
	MPI_Request q;
	MPI_Isend(m, 1, v, rank_, 70, MPI_COMM_WORLD, &q);
	MPI_Recv(r, c, MPI_DOUBLE, rank_, 70, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Wait(&q, MPI_STATUS_IGNORE);
	for (long k = 0; k < c; k++) CHECK(r[k] == val(rank_, 70, k), "self r[%ld] = %.0f", k, r[k]);
	MPI_Type_free(&v);
	free(m), free(r);
	ok("shm self");
}

/* irregular: three instances of an indexed type of blocks of 1..7 doubles,
   about 100 KB each, received as doubles and as the same type. */
enum { NB = 3000 };
static void irregular(void) {
	int bl[NB], dp[NB], n = 0, at = 0;
	for (int i = 0; i < NB; i++) {
		bl[i] = 1 + i % 7;
		dp[i] = at;
		at += bl[i] + 1 + i % 3;
		n += bl[i];
	}
	MPI_Datatype t, r3;
	MPI_Type_indexed(NB, bl, dp, MPI_DOUBLE, &t);
	MPI_Type_create_resized(t, 0, (MPI_Aint)at * 8, &r3);
	MPI_Type_commit(&r3);
	double *m = malloc(sizeof(double) * at * 3), *r = malloc(sizeof(double) * at * 3);
	CHECK(m && r, "memory");
	for (int rep = 0; rep < 2; rep++) {
		if (rank_ % 2 == 0) {
			long q = 0;
			for (int c = 0; c < 3; c++)
				for (int i = 0; i < NB; i++)
					for (int j = 0; j < bl[i]; j++) m[(long)c * at + dp[i] + j] = val(rank_, 80, q++);
			MPI_Send(m, 3, r3, peer, 80 + rep, MPI_COMM_WORLD);
		} else if (rep == 0) {
			MPI_Recv(r, 3 * n, MPI_DOUBLE, peer, 80, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			for (long k = 0; k < 3L * n; k++) CHECK(r[k] == val(peer, 80, k), "irregular r[%ld] = %.0f", k, r[k]);
		} else {
			for (long k = 0; k < 3L * at; k++) r[k] = -1;
			MPI_Recv(r, 3, r3, peer, 81, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			long q = 0;
			for (int c = 0; c < 3; c++)
				for (int i = 0; i < NB; i++)
					for (int j = 0; j < bl[i]; j++, q++)
						CHECK(r[(long)c * at + dp[i] + j] == val(peer, 80, q), "irregular instance %d block %d", c, i);
		}
	}
	MPI_Type_free(&t), MPI_Type_free(&r3);
	free(m), free(r);
	ok("shm irregular");
}

enum { NT = 4, TI = 12 };
static void *work(void *arg) {
	int id = (int)(long)arg;
	for (int it = 0; it < TI; it++) {
		int c = 9000 + ((id * 7 + it * 13) % 10) * 30000; /* 72 KB-2.2 MB */
		if (rank_ % 2 == 0) {
			sendvec('S', c, 2, 100 + id * TI + it, peer, 100 + id);
			CHECK(recvvec(c, 3, 200 + id * TI + it, peer, 200 + id, c) == MPI_SUCCESS, "thread receive");
		} else {
			CHECK(recvvec(c, 3, 100 + id * TI + it, peer, 100 + id, c) == MPI_SUCCESS, "thread receive");
			sendvec('S', c, 2, 200 + id * TI + it, peer, 200 + id);
		}
	}
	return NULL;
}

int main(int argc, char **argv) {
	int provided;
	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
	MPI_Comm_size(MPI_COMM_WORLD, &size_);
	if ((rank_ ^ 1) < size_) peer = rank_ ^ 1;
	self();
	if (peer >= 0) {
		sizes();
		truncated();
		probes();
		irregular();
		if (provided == MPI_THREAD_MULTIPLE) {
			pthread_t th[NT];
			for (long i = 0; i < NT; i++) pthread_create(&th[i], NULL, work, (void *)i);
			for (int i = 0; i < NT; i++) pthread_join(th[i], NULL);
		}
		ok("shm threads");
	}
	many();
	MPI_Finalize();
	return 0;
}
