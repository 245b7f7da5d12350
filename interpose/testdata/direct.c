/* Direct messages (docs/interpose.md, "Direct messages"): types whose
   runs are long are sent and received by MPI in the user's memory through
   a byte type the library builds from ddt's runs. The wire carries the
   packed stream either way, so these mix direct and staged types and
   predefined ones on the two sides: the sender's type, a different vector,
   a contiguous receive, a receive with short runs (staged), a message
   shorter than the receive (Get_count, Get_elements), of ints whose runs
   are multiples of 8 bytes, truncation under MPI_ERRORS_RETURN,
   MPI_ANY_SOURCE/MPI_ANY_TAG with Irecv, Probe + Get_count, a pipelined
   message (the sender's type has short runs) into a direct receive with
   Recv and Irecv, Sendrecv, Isend, persistent requests, Mrecv, Imrecv and
   Sendrecv_replace (also of a pipelined message). Pairs (r, r^1): the even rank sends. */
#include "common.h"

/* a vector of doubles: nblk blocks of blen at stride (in doubles) */
typedef struct {
	MPI_Datatype t;
	int nblk, blen, stride, count;
	long ext; /* extent of one instance in doubles */
} Vec;

static Vec vec(int nblk, int blen, int stride, int count) {
	Vec v = {MPI_DATATYPE_NULL, nblk, blen, stride, count, (long)(nblk - 1) * stride + blen};
	MPI_Type_vector(nblk, blen, stride, MPI_DOUBLE, &v.t);
	MPI_Type_commit(&v.t);
	return v;
}

static long elems(const Vec *v) { return (long)v->nblk * v->blen * v->count; }
static long span(const Vec *v) { return v->ext * v->count; }
static long pos(const Vec *v, long e) {
	long per = (long)v->nblk * v->blen, i = e / per, k = e % per;
	return i * v->ext + k / v->blen * v->stride + k % v->blen;
}

static double *sendbuf(const Vec *v, int seed) {
	double *b = malloc(sizeof(double) * (size_t)span(v));
	for (long i = 0; i < span(v); i++) b[i] = -2;
	for (long e = 0; e < elems(v); e++) b[pos(v, e)] = e + seed * 1000.0;
	return b;
}

static double *recvbuf(const Vec *v) {
	double *b = malloc(sizeof(double) * (size_t)span(v));
	for (long i = 0; i < span(v); i++) b[i] = -1;
	return b;
}

/* checks that the first n elements arrived and nothing else was written */
static void check(const char *what, const Vec *v, const double *b, long n, int seed) {
	long e = 0;
	for (long i = 0; i < span(v); i++) {
		if (e < elems(v) && pos(v, e) == i) {
			double w = e < n ? e + seed * 1000.0 : -1;
			CHECK(b[i] == w, "%s: element %ld = %g, want %g", what, e, b[i], w);
			e++;
		} else {
			CHECK(b[i] == -1, "%s: gap %ld written (%g)", what, i, b[i]);
		}
	}
}

/* one message from the even rank of each pair to the odd one */
static void one(const char *what, const Vec *s, const Vec *r, int seed) {
	int peer = rank_ ^ 1;
	if (peer >= size_) return;
	if (rank_ % 2 == 0) {
		double *b = sendbuf(s, seed);
		MPI_Send(b, s->count, s->t, peer, seed, MPI_COMM_WORLD);
		free(b);
	} else {
		double *b = recvbuf(r);
		MPI_Status st;
		MPI_Recv(b, r->count, r->t, peer, seed, MPI_COMM_WORLD, &st);
		int c;
		MPI_Get_count(&st, r->t, &c);
		CHECK(c == (elems(s) == elems(r) ? r->count : MPI_UNDEFINED), "%s: count %d", what, c);
		MPI_Get_elements(&st, r->t, &c);
		CHECK(c == elems(s), "%s: elements %d, want %ld", what, c, elems(s));
		check(what, r, b, elems(s), seed);
		free(b);
	}
}

int main(int argc, char **argv) {
	start(&argc, &argv);
	int peer = rank_ ^ 1, even = rank_ % 2 == 0, paired = peer < size_;
	Vec a = vec(16, 64, 80, 1);    /* runs of 512 bytes: direct */
	Vec a3 = vec(16, 64, 80, 3);   /* three instances */
	Vec b = vec(32, 32, 40, 1);    /* another direct vector, same elements */
	Vec c = vec(1024, 1, 2, 1);    /* runs of 8 bytes: staged */
	Vec d = vec(1, 1024, 1, 1);    /* contiguous */
	Vec a3r = vec(96, 32, 33, 1);  /* a3's elements in one instance */

	one("same type", &a, &a, 1);
	one("three instances", &a3, &a3, 2);
	one("other vector", &a, &b, 3);
	one("contiguous receive", &a, &d, 4);
	one("contiguous send", &d, &a, 5);
	one("staged receive", &a, &c, 6);
	one("staged send", &c, &b, 7);
	one("instances into one", &a3, &a3r, 8);
	ok("direct: send and receive types mixed");

	/* a message shorter than the receive */
	Vec p = vec(1, 100, 1, 1);
	one("shorter", &p, &a, 9);
	/* ints in runs of 256 bytes (multiples of 8), 3 of them sent */
	{
		MPI_Datatype iv;
		MPI_Type_vector(8, 64, 100, MPI_INT, &iv);
		MPI_Type_commit(&iv);
		int buf[800];
		if (paired && even) {
			int s[3] = {11, 12, 13};
			MPI_Send(s, 3, MPI_INT, peer, 10, MPI_COMM_WORLD);
		} else if (paired) {
			for (int i = 0; i < 800; i++) buf[i] = -1;
			MPI_Status st;
			MPI_Recv(buf, 1, iv, peer, 10, MPI_COMM_WORLD, &st);
			int n;
			MPI_Get_elements(&st, MPI_INT, &n);
			CHECK(n == 3, "ints: %d elements", n);
			CHECK(buf[0] == 11 && buf[1] == 12 && buf[2] == 13 && buf[3] == -1, "ints: %d %d %d %d", buf[0], buf[1],
				buf[2], buf[3]);
		}
		MPI_Type_free(&iv);
	}
	ok("direct: shorter messages");

	/* truncation: 1024 elements into room for 512 */
	{
		Vec h = vec(8, 64, 80, 1);
		MPI_Comm rc;
		MPI_Comm_dup(MPI_COMM_WORLD, &rc);
		MPI_Comm_set_errhandler(rc, MPI_ERRORS_RETURN);
		if (paired && even) {
			double *s = sendbuf(&a, 11);
			MPI_Send(s, 1, a.t, peer, 11, rc);
			free(s);
		} else if (paired) {
			double *r = recvbuf(&h);
			MPI_Status st;
			int e = MPI_Recv(r, 1, h.t, peer, 11, rc, &st), cls = MPI_SUCCESS;
			if (e != MPI_SUCCESS) MPI_Error_class(e, &cls);
			CHECK(cls == MPI_ERR_TRUNCATE, "truncate: error class %d", cls);
			free(r);
		}
		MPI_Comm_free(&rc);
		MPI_Type_free(&h.t);
	}
	ok("direct: truncation");

	/* wildcards with Irecv; Probe + Get_count */
	if (paired && even) {
		double *s = sendbuf(&a, 12);
		MPI_Send(s, 1, a.t, peer, 12, MPI_COMM_WORLD);
		MPI_Send(s, 1, a.t, peer, 13, MPI_COMM_WORLD);
		free(s);
	} else if (paired) {
		double *r = recvbuf(&b);
		MPI_Request q;
		MPI_Status st;
		MPI_Irecv(r, 1, b.t, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &q);
		MPI_Wait(&q, &st);
		int n;
		MPI_Get_count(&st, b.t, &n);
		CHECK(st.MPI_SOURCE == peer && st.MPI_TAG == 12 && n == 1, "wildcards: source %d tag %d count %d",
			st.MPI_SOURCE, st.MPI_TAG, n);
		check("wildcards", &b, r, elems(&a), 12);
		free(r);
		MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
		MPI_Get_count(&st, MPI_DOUBLE, &n);
		CHECK(st.MPI_SOURCE == peer && st.MPI_TAG == 13 && n == 1024, "probe: source %d tag %d count %d",
			st.MPI_SOURCE, st.MPI_TAG, n);
		r = recvbuf(&a);
		MPI_Recv(r, 1, a.t, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &st);
		check("probe", &a, r, elems(&a), 12);
		free(r);
	}
	ok("direct: wildcards and probes");

	/* a pipelined message (pairs of doubles, 320000 bytes: the sender's
	   type has runs of 8 bytes, so it is staged and pipelined) into direct
	   receives, with Recv and with Irecv */
	{
		MPI_Datatype two, tw;
		MPI_Type_vector(2, 1, 2, MPI_DOUBLE, &two);
		MPI_Type_create_resized(two, 0, 4 * sizeof(double), &tw);
		MPI_Type_commit(&tw);
		Vec sp = {tw, 2, 1, 2, 20000, 4};
		Vec big = vec(625, 64, 80, 1);
		for (int k = 0; k < 2; k++) {
			if (paired && even) {
				double *s = sendbuf(&sp, 14 + k);
				MPI_Send(s, sp.count, tw, peer, 14 + k, MPI_COMM_WORLD);
				free(s);
			} else if (paired) {
				double *r = recvbuf(&big);
				MPI_Status st;
				if (k == 0) {
					MPI_Recv(r, 1, big.t, peer, 14, MPI_COMM_WORLD, &st);
				} else {
					MPI_Request q;
					MPI_Irecv(r, 1, big.t, peer, 15, MPI_COMM_WORLD, &q);
					MPI_Wait(&q, &st);
				}
				int n;
				MPI_Get_count(&st, big.t, &n);
				CHECK(n == 1, "pipelined into direct: count %d", n);
				check("pipelined into direct", &big, r, elems(&big), 14 + k);
				free(r);
			}
		}
		MPI_Type_free(&two);
		MPI_Type_free(&tw);
		MPI_Type_free(&big.t);
	}
	ok("direct: pipelined messages into direct receives");

	/* Sendrecv both ways; Isend into a staged receive */
	if (paired) {
		double *s = sendbuf(&a, 16 + even), *r = recvbuf(&b);
		MPI_Status st;
		MPI_Sendrecv(s, 1, a.t, peer, 16, r, 1, b.t, peer, 16, MPI_COMM_WORLD, &st);
		check("sendrecv", &b, r, elems(&a), 16 + !even);
		free(s), free(r);
		if (even) {
			s = sendbuf(&a, 18);
			MPI_Request q;
			MPI_Isend(s, 1, a.t, peer, 18, MPI_COMM_WORLD, &q);
			MPI_Wait(&q, MPI_STATUS_IGNORE);
			free(s);
		} else {
			r = recvbuf(&c);
			MPI_Recv(r, 1, c.t, peer, 18, MPI_COMM_WORLD, &st);
			check("isend", &c, r, elems(&c), 18);
			free(r);
		}
	}
	ok("direct: sendrecv and isend");

	/* persistent requests, started twice: a direct send into a direct
	   receive of another vector (320000 bytes: the receive is recorded,
	   it could get a pipelined message) */
	if (paired) {
		Vec sa = vec(625, 64, 80, 1), rb = vec(1250, 32, 40, 1);
		double *buf = even ? sendbuf(&sa, 0) : recvbuf(&rb);
		MPI_Request q;
		if (even) MPI_Send_init(buf, 1, sa.t, peer, 19, MPI_COMM_WORLD, &q);
		else MPI_Recv_init(buf, 1, rb.t, peer, 19, MPI_COMM_WORLD, &q);
		for (int k = 0; k < 2; k++) {
			if (even)
				for (long e = 0; e < elems(&sa); e++) buf[pos(&sa, e)] = e + (19 + k) * 1000.0;
			MPI_Start(&q);
			MPI_Wait(&q, MPI_STATUS_IGNORE);
			if (!even) check("persistent", &rb, buf, elems(&rb), 19 + k);
		}
		MPI_Request_free(&q);
		free(buf);
		MPI_Type_free(&sa.t), MPI_Type_free(&rb.t);
	}
	ok("direct: persistent requests");

	/* Mprobe + Mrecv and Improbe + Imrecv into direct types; Sendrecv_replace
	   of a direct type both ways; a pipelined message (staged sender, 320000
	   bytes) into a direct Sendrecv_replace, whose own send is direct */
	if (paired) {
		MPI_Status st;
		MPI_Message m;
		int n;
		if (even) {
			double *s = sendbuf(&a, 21);
			MPI_Send(s, 1, a.t, peer, 21, MPI_COMM_WORLD);
			MPI_Send(s, 1, a.t, peer, 22, MPI_COMM_WORLD);
			free(s);
		} else {
			double *r = recvbuf(&b);
			MPI_Mprobe(peer, 21, MPI_COMM_WORLD, &m, &st);
			MPI_Mrecv(r, 1, b.t, &m, &st);
			MPI_Get_count(&st, b.t, &n);
			CHECK(n == 1 && st.MPI_TAG == 21, "mrecv: count %d tag %d", n, st.MPI_TAG);
			check("mrecv", &b, r, elems(&a), 21);
			free(r);
			r = recvbuf(&a);
			int f = 0;
			while (!f) MPI_Improbe(peer, 22, MPI_COMM_WORLD, &f, &m, &st);
			MPI_Request q;
			MPI_Imrecv(r, 1, a.t, &m, &q);
			MPI_Wait(&q, &st);
			MPI_Get_count(&st, a.t, &n);
			CHECK(n == 1 && st.MPI_TAG == 22, "imrecv: count %d tag %d", n, st.MPI_TAG);
			check("imrecv", &a, r, elems(&a), 21);
			free(r);
		}
		/* each side's buffer has its gaps at -1: after the exchange it
		   holds the peer's elements and its gaps untouched */
		double *x = recvbuf(&a);
		for (long e = 0; e < elems(&a); e++) x[pos(&a, e)] = e + (23 + even) * 1000.0;
		MPI_Sendrecv_replace(x, 1, a.t, peer, 23, peer, 23, MPI_COMM_WORLD, &st);
		MPI_Get_count(&st, a.t, &n);
		CHECK(n == 1 && st.MPI_SOURCE == peer, "sendrecv_replace: count %d source %d", n, st.MPI_SOURCE);
		check("sendrecv_replace", &a, x, elems(&a), 23 + !even);
		free(x);

		MPI_Datatype two, tw;
		MPI_Type_vector(2, 1, 2, MPI_DOUBLE, &two);
		MPI_Type_create_resized(two, 0, 4 * sizeof(double), &tw);
		MPI_Type_commit(&tw);
		Vec sp = {tw, 2, 1, 2, 20000, 4};
		Vec big = vec(625, 64, 80, 1);
		if (even) {
			double *s = sendbuf(&sp, 24), *r = recvbuf(&big);
			MPI_Send(s, sp.count, tw, peer, 24, MPI_COMM_WORLD);
			MPI_Recv(r, 1, big.t, peer, 25, MPI_COMM_WORLD, &st);
			check("sendrecv_replace, direct send", &big, r, elems(&big), 25);
			free(s), free(r);
		} else {
			x = recvbuf(&big);
			for (long e = 0; e < elems(&big); e++) x[pos(&big, e)] = e + 25 * 1000.0;
			MPI_Sendrecv_replace(x, 1, big.t, peer, 25, peer, 24, MPI_COMM_WORLD, &st);
			MPI_Get_count(&st, big.t, &n);
			CHECK(n == 1, "pipelined into sendrecv_replace: count %d", n);
			check("pipelined into sendrecv_replace", &big, x, elems(&big), 24);
			free(x);
		}
		MPI_Type_free(&two);
		MPI_Type_free(&tw);
		MPI_Type_free(&big.t);
	}
	ok("direct: mrecv, imrecv and sendrecv_replace");

	Vec *all[] = {&a, &a3, &b, &c, &d, &a3r, &p};
	for (int i = 0; i < 7; i++) MPI_Type_free(&all[i]->t);
	MPI_Finalize();
	return 0;
}
