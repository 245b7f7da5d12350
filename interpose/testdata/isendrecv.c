/* MPI_Isendrecv and MPI_Isendrecv_replace (MPI 4.0: MPICH 4 declares them,
   Open MPI 4.1 does not, where this program only exchanges one message
   with MPI_Sendrecv) of direct, staged and pipelined messages (the library
   runs them as its own Irecv and Isend under a generalized request:
   docs/interpose.md), completed by Wait, Test, Waitall, Waitany and
   Waitsome. MPICH 4.0.2's own MPI_Isendrecv crashes on these derived
   types (a segmentation fault in ucp_tag_recv_nbx) and reports count 0,
   source 0 and tag 0 in its statuses, so this part runs only with the
   library (LD_PRELOAD names it, DDT_MPI is not 0) and prints the same
   lines without it. Pairs (r, r^1) exchange. */
#include "common.h"

static double *mk(long n, double v) {
	double *b = malloc(sizeof(double) * (size_t)n);
	for (long i = 0; i < n; i++) b[i] = v;
	return b;
}

/* strided: element e at 2e (type c) or in blocks of 64 at stride 80 (type a) */
static long at(int blocks, long e) { return blocks ? e / 64 * 80 + e % 64 : 2 * e; }

static void fillv(double *b, int blocks, long n, int seed) {
	for (long e = 0; e < n; e++) b[at(blocks, e)] = e + seed * 1000.0;
}

static void check(const char *what, const double *b, int blocks, long n, long span, int seed) {
	long e = 0;
	for (long i = 0; i < span; i++) {
		if (e < n && at(blocks, e) == i) {
			CHECK(b[i] == e + seed * 1000.0, "%s: element %ld = %g", what, e, b[i]);
			e++;
		} else {
			CHECK(b[i] == -1, "%s: gap %ld written (%g)", what, i, b[i]);
		}
	}
}

int main(int argc, char **argv) {
	start(&argc, &argv);
	int peer = rank_ ^ 1;
	if (peer >= size_) peer = MPI_PROC_NULL;
	MPI_Datatype a, c, tw, two;
	MPI_Type_vector(16, 64, 80, MPI_DOUBLE, &a); /* long runs: direct */
	MPI_Type_commit(&a);
	MPI_Type_vector(1024, 1, 2, MPI_DOUBLE, &c); /* short runs: staged */
	MPI_Type_commit(&c);
	MPI_Type_vector(2, 1, 2, MPI_DOUBLE, &two);  /* pairs at 32-byte extent: pipelined */
	MPI_Type_create_resized(two, 0, 4 * sizeof(double), &tw);
	MPI_Type_commit(&tw);
	const char *pre = getenv("LD_PRELOAD"), *on = getenv("DDT_MPI");
	int lib = pre && strstr(pre, "ddtmpi") && !(on && strcmp(on, "0") == 0);
	(void)lib;
	double *s = mk(2048, -1), *r = mk(2048, -1);
	fillv(s, 0, 1024, rank_);
	MPI_Sendrecv(s, 1, c, peer, 1, r, 1, c, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	if (peer != MPI_PROC_NULL) check("sendrecv", r, 0, 1024, 2048, peer);
	free(s), free(r);
	ok("sendrecv");
#if MPI_VERSION >= 4
	if (!lib) goto skip;
	long sa = 15 * 80 + 64;
	int mine = peer == MPI_PROC_NULL ? 0 : 1;
	MPI_Status st;
	MPI_Request q;
	/* direct send, staged receive, Wait */
	s = mk(sa, -1), r = mk(2048, -1);
	fillv(s, 1, 1024, rank_ + 10);
	MPI_Isendrecv(s, 1, a, peer, 2, r, 1, c, peer, 2, MPI_COMM_WORLD, &q);
	MPI_Wait(&q, &st);
	if (mine) {
		check("isendrecv direct/staged", r, 0, 1024, 2048, peer + 10);
		int n;
		MPI_Get_count(&st, c, &n);
		CHECK(st.MPI_SOURCE == peer && st.MPI_TAG == 2 && n == 1, "status: source %d tag %d count %d",
			st.MPI_SOURCE, st.MPI_TAG, n);
	}
	free(s), free(r);
	/* staged send, direct receive, Test loop */
	s = mk(2048, -1), r = mk(sa, -1);
	fillv(s, 0, 1024, rank_ + 20);
	MPI_Isendrecv(s, 1, c, peer, 3, r, 1, a, peer, 3, MPI_COMM_WORLD, &q);
	for (int f = 0; !f;) MPI_Test(&q, &f, &st);
	if (mine) check("isendrecv staged/direct", r, 1, 1024, sa, peer + 20);
	free(s), free(r);
	ok("isendrecv: direct and staged, Wait and Test");
	/* pipelined both ways (320000 bytes) into contiguous doubles, with a
	   second receive in Waitall */
	long np = 20000;
	s = mk(4 * np, -1), r = mk(2 * np, -1);
	for (long e = 0; e < 2 * np; e++) s[e / 2 * 4 + (e % 2) * 2] = e + (rank_ + 30) * 1000.0;
	double x = -1, y = rank_;
	MPI_Request qs[2];
	MPI_Isendrecv(s, (int)np, tw, peer, 4, r, (int)(2 * np), MPI_DOUBLE, peer, 4, MPI_COMM_WORLD, &qs[0]);
	MPI_Irecv(&x, 1, MPI_DOUBLE, peer, 5, MPI_COMM_WORLD, &qs[1]);
	MPI_Send(&y, 1, MPI_DOUBLE, peer, 5, MPI_COMM_WORLD);
	MPI_Status sts[2];
	MPI_Waitall(2, qs, sts);
	if (mine) {
		for (long e = 0; e < 2 * np; e++) CHECK(r[e] == e + (peer + 30) * 1000.0, "pipelined: element %ld = %g", e, r[e]);
		CHECK(x == peer, "waitall: %g", x);
		int n;
		MPI_Get_count(&sts[0], MPI_DOUBLE, &n);
		CHECK(n == 2 * np && sts[0].MPI_TAG == 4, "pipelined: count %d tag %d", n, sts[0].MPI_TAG);
	}
	free(s), free(r);
	ok("isendrecv: pipelined, Waitall");
	/* Isendrecv_replace, staged and direct, Waitany and Waitsome */
	s = mk(2048, -1);
	fillv(s, 0, 1024, rank_ + 40);
	r = mk(sa, -1);
	fillv(r, 1, 1024, rank_ + 50);
	MPI_Isendrecv_replace(s, 1, c, peer, 6, peer, 6, MPI_COMM_WORLD, &qs[0]);
	MPI_Isendrecv_replace(r, 1, a, peer, 7, peer, 7, MPI_COMM_WORLD, &qs[1]);
	int idx, cnt, ids[2];
	MPI_Waitany(2, qs, &idx, &st);
	MPI_Waitsome(2, qs, &cnt, ids, sts);
	if (cnt != MPI_UNDEFINED) CHECK(cnt == 1 && ids[0] == 1 - idx, "waitsome: %d %d", cnt, ids[0]);
	if (mine) {
		check("replace staged", s, 0, 1024, 2048, peer + 40);
		check("replace direct", r, 1, 1024, sa, peer + 50);
	}
	free(s), free(r);
	ok("isendrecv_replace: staged and direct, Waitany and Waitsome");
	goto done;
skip:
#endif
	ok("isendrecv: direct and staged, Wait and Test");
	ok("isendrecv: pipelined, Waitall");
	ok("isendrecv_replace: staged and direct, Waitany and Waitsome");
#if MPI_VERSION >= 4
done:
#endif
	MPI_Type_free(&a), MPI_Type_free(&c), MPI_Type_free(&tw), MPI_Type_free(&two);
	MPI_Finalize();
	return 0;
}
