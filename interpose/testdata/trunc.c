/* Truncated receives of staged types: each even rank sends contiguous
   doubles, twice (or far more than) what its odd peer's receive of a
   strided vector holds, under MPI_ERRORS_RETURN. The receive must fail
   with MPI_ERR_TRUNCATE, count what it holds, fill its elements and leave
   every other byte alone: the gaps of the vector and guard memory before
   and after it. Open MPI 4.1's single-copy path (vader) writes a whole
   rendezvous message into a contiguous receive buffer, whatever its size,
   so the library must not post staged receives as plain bytes there
   (docs/interpose.md, "Truncated receives"). Messages of 8 KiB, 64 KiB and
   1 MiB, received by Recv, Irecv + Wait, Sendrecv, Sendrecv_replace,
   Recv_init + Start + Wait and Mprobe + Mrecv. */
#include "common.h"

#define GUARD 4096

enum { RECV, IRECV, SENDRECV, REPLACE, PERSIST, MRECV, NKIND };
static const char *kinds[NKIND] = {"recv", "irecv", "sendrecv", "sendrecv_replace", "recv_init", "mrecv"};

/* one case: the receive holds k doubles (every other of 2k-1), the
   message has m doubles */
static void one(MPI_Comm comm, int peer, int even, int kind, int k, int m) {
	MPI_Datatype v;
	MPI_Type_vector(k, 1, 2, MPI_DOUBLE, &v);
	MPI_Type_commit(&v);
	size_t ext = (size_t)(2 * k - 1) * sizeof(double);
	int tag = 100 + kind;
	if (even) {
		double *s = malloc((size_t)m * sizeof(double));
		for (int i = 0; i < m; i++) s[i] = i + 0.5;
		if (kind == SENDRECV || kind == REPLACE) {
			/* the peer's Sendrecv(_replace) sends k doubles of v: take them whole */
			double *r = malloc((size_t)k * sizeof(double));
			MPI_Status st;
			int e = MPI_Sendrecv(s, m, MPI_DOUBLE, peer, tag, r, k, MPI_DOUBLE, peer, tag, comm, &st);
			CHECK(e == MPI_SUCCESS, "%s k=%d: sender's Sendrecv failed", kinds[kind], k);
			for (int i = 0; i < k; i++) CHECK(r[i] == -(i + 1.0), "%s k=%d: sender got %g at %d", kinds[kind], k, r[i], i);
			free(r);
		} else {
			CHECK(MPI_Send(s, m, MPI_DOUBLE, peer, tag, comm) == MPI_SUCCESS, "%s: send failed", kinds[kind]);
		}
		free(s);
	} else {
		unsigned char *mem = malloc(ext + 2 * GUARD), *want = malloc(ext + 2 * GUARD), *orig = malloc(ext + 2 * GUARD);
		fill(mem, ext + 2 * GUARD, kind + k);
		double *r = (double *)(mem + GUARD);
		if (kind == REPLACE) {
			/* the send takes the vector's elements from r, then the
			   receive overwrites them */
			for (int i = 0; i < k; i++) {
				double x = -(i + 1.0);
				memcpy(mem + GUARD + (size_t)i * 2 * sizeof(double), &x, sizeof x);
			}
		}
		memcpy(want, mem, ext + 2 * GUARD);
		memcpy(orig, mem, ext + 2 * GUARD);
		for (int i = 0; i < k; i++) {
			double x = i + 0.5;
			memcpy(want + GUARD + (size_t)i * 2 * sizeof(double), &x, sizeof x);
		}
		MPI_Status st;
		MPI_Request rq = MPI_REQUEST_NULL;
		MPI_Message msg;
		int e = MPI_SUCCESS;
		switch (kind) {
		case RECV:
			e = MPI_Recv(r, 1, v, peer, tag, comm, &st);
			break;
		case IRECV:
			e = MPI_Irecv(r, 1, v, peer, tag, comm, &rq);
			CHECK(e == MPI_SUCCESS, "irecv k=%d: MPI_Irecv failed", k);
			e = MPI_Wait(&rq, &st);
			break;
		case SENDRECV:
		case REPLACE: {
			double *s = malloc(ext);
			for (int i = 0; i < 2 * k - 1; i++) s[i] = -(i / 2 + 1.0);
			if (kind == SENDRECV) {
				e = MPI_Sendrecv(s, 1, v, peer, tag, r, 1, v, peer, tag, comm, &st);
			} else {
				/* the send takes the vector's elements from r, then the
				   receive overwrites them */
				e = MPI_Sendrecv_replace(r, 1, v, peer, tag, peer, tag, comm, &st);
			}
			free(s);
			break;
		}
		case PERSIST:
			e = MPI_Recv_init(r, 1, v, peer, tag, comm, &rq);
			CHECK(e == MPI_SUCCESS, "recv_init k=%d: MPI_Recv_init failed", k);
			MPI_Start(&rq);
			e = MPI_Wait(&rq, &st);
			if (rq != MPI_REQUEST_NULL) MPI_Request_free(&rq); /* Open MPI frees it on an error */
			break;
		case MRECV:
			e = MPI_Mprobe(peer, tag, comm, &msg, &st);
			CHECK(e == MPI_SUCCESS, "mrecv k=%d: MPI_Mprobe failed", k);
			e = MPI_Mrecv(r, 1, v, &msg, &st);
			break;
		}
		int cls = MPI_SUCCESS, n = -1;
		if (e != MPI_SUCCESS) MPI_Error_class(e, &cls);
		CHECK(cls == MPI_ERR_TRUNCATE, "%s k=%d m=%d: error class %d, want MPI_ERR_TRUNCATE", kinds[kind], k, m, cls);
		MPI_Get_count(&st, MPI_BYTE, &n);
		/* Open MPI counts the message: printed, to compare with and
		   without the library (MPICH 4.0 counts 0 or 4 bytes, by turns) */
#ifdef OMPI_MAJOR_VERSION
		printf("rank %d: %s of %d doubles into %d: status counts %d bytes\n", rank_, kinds[kind], m, k, n);
#endif
		CHECK(st.MPI_SOURCE == peer && st.MPI_TAG == tag, "%s k=%d: status source %d tag %d", kinds[kind], k,
			st.MPI_SOURCE, st.MPI_TAG);
		/* the elements hold the message's first k doubles (Open MPI) or
		   are left alone (MPICH 4.0) */
		int untouched = memcmp(mem + GUARD, orig + GUARD, ext) == 0;
		for (size_t i = 0; i < ext + 2 * GUARD; i++) {
			const char *where = i < GUARD ? "guard before" : i >= GUARD + ext ? "guard after" : "receive";
			CHECK(mem[i] == want[i] || untouched, "%s k=%d m=%d: byte %zd (%s the buffer) is %d, want %d", kinds[kind], k, m,
				(ptrdiff_t)i - GUARD, where, mem[i], want[i]);
		}
		free(mem), free(want), free(orig);
	}
	MPI_Type_free(&v);
}

int main(int argc, char **argv) {
	start(&argc, &argv);
	MPI_Comm comm;
	MPI_Comm_dup(MPI_COMM_WORLD, &comm);
	MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
	int peer = rank_ ^ 1, paired = peer < size_, even = rank_ % 2 == 0;
	/* message bytes, receive bytes */
	static const int cases[][2] = {{8 << 10, 4 << 10}, {64 << 10, 32 << 10}, {1 << 20, 512 << 10}, {64 << 10, 256}};
	for (int kind = 0; kind < NKIND; kind++) {
		/* TRUNC_KIND=k runs kind k alone (to debug) */
		if (getenv("TRUNC_KIND") && atoi(getenv("TRUNC_KIND")) != kind) continue;
		for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
			if (paired) one(comm, peer, even, kind, cases[c][1] / 8, cases[c][0] / 8);
		}
		char name[64];
		snprintf(name, sizeof name, "trunc: %s", kinds[kind]);
		ok(name);
	}
	MPI_Comm_free(&comm);
	MPI_Finalize();
	return 0;
}
