/* Large messages of derived datatypes, which the library pipelines
   (DDT_MPI_PIPELINE, 256 KiB by default; docs/interpose.md, "Pipelining"):
   sizes just below, at and above the threshold and not multiples of the
   packet size; the receiving type the sender's, a contiguous one, or a
   different derived one; Send/Recv, Ssend, Rsend, Isend/Irecv with
   MPI_ANY_SOURCE and MPI_ANY_TAG completed by Wait/Waitall/Test,
   Sendrecv, Sendrecv_replace, Probe + Get_count, Mprobe + Mrecv, and the
   order of several messages on one (source, tag). Pairs (r, r^1); each
   receiver checks every byte, the gaps, and the status. */
#include "common.h"

#define T (256 << 10) /* the library's default threshold */
#ifndef PL_L0
#error "compile with -DPL_L0=N, the length of packet 0 (interpose_test.go)"
#endif
#define L0 PL_L0

/* the byte type: every other byte (vector of MPI_BYTE); packed bytes = count */
static MPI_Datatype every2;
/* the record type: {int, double} at 0 and 8 of a 24-byte extent: 12 bytes
   packed per instance, so packets split instances */
static MPI_Datatype rec;

static unsigned char pat(long i, int seed) { return (unsigned char)(i * 13 + seed * 101 + (i >> 9) + 7); }

/* fills a buffer of the byte type: byte 2i is element i */
static void fill2(unsigned char *b, long n, int seed) {
	for (long i = 0; i < n; i++) b[2 * i] = pat(i, seed), b[2 * i + 1] = 0xEE;
}

static void check2(const char *what, const unsigned char *b, long n, long cap, int seed) {
	for (long i = 0; i < cap; i++) {
		unsigned char w = i < n ? pat(i, seed) : 0x55;
		CHECK(b[2 * i] == w, "%s: element %ld = %d, want %d (n=%ld)", what, i, b[2 * i], w, n);
		CHECK(b[2 * i + 1] == 0x55, "%s: gap %ld written", what, i);
	}
}

static void checkraw(const char *what, const unsigned char *b, long n, long cap, int seed) {
	for (long i = 0; i < cap; i++) {
		unsigned char w = i < n ? pat(i, seed) : 0x55;
		CHECK(b[i] == w, "%s: byte %ld = %d, want %d (n=%ld)", what, i, b[i], w, n);
	}
}

typedef struct {
	int i;
	int pad;
	double d;
	char gap[8];
} Rec;

/* fillrec fills n records; their gaps get the byte g */
static void fillrecg(Rec *r, long n, int seed, int g) {
	for (long k = 0; k < n; k++) {
		r[k].i = (int)(k * 3 + seed), r[k].d = k * 0.25 + seed;
		memset(r[k].gap, g, sizeof r[k].gap);
		memset(&r[k].pad, g, sizeof r[k].pad);
	}
}

static void fillrec(Rec *r, long n, int seed) { fillrecg(r, n, seed, 0xEE); }

static void checkrec(const char *what, const Rec *r, long n, long cap, int seed) {
	for (long k = 0; k < cap; k++) {
		if (k < n) {
			CHECK(r[k].i == (int)(k * 3 + seed) && r[k].d == k * 0.25 + seed, "%s: record %ld = {%d, %g}", what, k,
				r[k].i, r[k].d);
		} else {
			CHECK(r[k].i == 0x55555555, "%s: record %ld past the message written", what, k);
		}
		CHECK(r[k].pad == 0x55555555 && (unsigned char)r[k].gap[3] == 0x55, "%s: gap of record %ld written", what, k);
	}
}

static void counts(const char *what, MPI_Status *st, MPI_Datatype t, long want, int src, int tag) {
	int c;
	MPI_Get_count(st, t, &c);
	CHECK(c == want, "%s: get_count %d, want %ld", what, c, want);
	CHECK(st->MPI_SOURCE == src, "%s: source %d, want %d", what, st->MPI_SOURCE, src);
	CHECK(st->MPI_TAG == tag, "%s: tag %d, want %d", what, st->MPI_TAG, tag);
}

static void *mk(size_t n) {
	void *p = malloc(n);
	CHECK(p != NULL, "malloc %zu", n);
	memset(p, 0x55, n);
	return p;
}

int main(int argc, char **argv) {
	start(&argc, &argv);
	int peer = rank_ ^ 1;
	{
		MPI_Datatype b;
		MPI_Type_create_resized(MPI_BYTE, 0, 2, &b);
		MPI_Type_contiguous(1, b, &every2); /* count instances of 1 byte, extent 2 */
		MPI_Type_free(&b);
		MPI_Type_commit(&every2);
	}
	{
		int bl[2] = {1, 1};
		MPI_Aint d[2] = {offsetof(Rec, i), offsetof(Rec, d)};
		MPI_Datatype ts[2] = {MPI_INT, MPI_DOUBLE}, s;
		MPI_Type_create_struct(2, bl, d, ts, &s);
		MPI_Type_create_resized(s, 0, sizeof(Rec), &rec);
		MPI_Type_free(&s);
		MPI_Type_commit(&rec);
	}
	if (peer >= size_) {
		MPI_Finalize();
		return 0;
	}
	int lo = rank_ < peer;
	/* sizes in packed bytes: below, at and above the threshold, not
	   multiples of the packet, and several packets */
	long sizes[] = {T - 1, T, T + 1, T + 12345, 4 * T + 777, 9 * T / 2 + 3};
	int ns = (int)(sizeof sizes / sizeof sizes[0]);
	long maxn = 9 * T / 2 + 3 + 64;
	unsigned char *s2 = mk(2 * maxn), *r2 = mk(2 * maxn), *raw = mk(maxn);
	MPI_Status st;
	int seed = rank_ * 1000;

	for (int k = 0; k < ns; k++) {
		long n = sizes[k];
		char what[64];
		/* Send / Recv of the same type; the receive is larger by 5 */
		seed++;
		fill2(s2, n, seed);
		memset(r2, 0x55, 2 * maxn);
		if (lo) {
			MPI_Send(s2, (int)n, every2, peer, 7, MPI_COMM_WORLD);
			MPI_Recv(r2, (int)n + 5, every2, peer, 7, MPI_COMM_WORLD, &st);
		} else {
			MPI_Recv(r2, (int)n + 5, every2, peer, 7, MPI_COMM_WORLD, &st);
			MPI_Send(s2, (int)n, every2, peer, 7, MPI_COMM_WORLD);
		}
		snprintf(what, sizeof what, "send/recv %ld", n);
		check2(what, r2, n, n + 5, seed - 1000 * rank_ + 1000 * peer);
		counts(what, &st, every2, n, peer, 7);

		/* derived to contiguous: Ssend of the byte type, MPI_BYTE receive
		   with MPI_ANY_SOURCE, MPI_ANY_TAG */
		seed++;
		fill2(s2, n, seed);
		memset(raw, 0x55, maxn);
		if (lo) {
			MPI_Ssend(s2, (int)n, every2, peer, 8 + k, MPI_COMM_WORLD);
			MPI_Recv(raw, (int)n + 3, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
		} else {
			MPI_Recv(raw, (int)n + 3, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
			MPI_Ssend(s2, (int)n, every2, peer, 8 + k, MPI_COMM_WORLD);
		}
		snprintf(what, sizeof what, "ssend/recv bytes %ld", n);
		checkraw(what, raw, n, n + 3, seed - 1000 * rank_ + 1000 * peer);
		counts(what, &st, MPI_BYTE, n, peer, 8 + k);

		/* contiguous to derived, Isend / Irecv + Wait */
		seed++;
		for (long i = 0; i < n; i++) raw[i] = pat(i, seed);
		memset(r2, 0x55, 2 * maxn);
		MPI_Request rq[2];
		MPI_Irecv(r2, (int)n, every2, peer, 9, MPI_COMM_WORLD, &rq[0]);
		MPI_Isend(raw, (int)n, MPI_BYTE, peer, 9, MPI_COMM_WORLD, &rq[1]);
		MPI_Wait(&rq[0], &st);
		MPI_Wait(&rq[1], MPI_STATUS_IGNORE);
		snprintf(what, sizeof what, "isend bytes/irecv %ld", n);
		check2(what, r2, n, n, seed - 1000 * rank_ + 1000 * peer);
		counts(what, &st, every2, n, peer, 9);

		/* Sendrecv_replace (of the byte type: MPICH 4.0.2's own
		   Sendrecv_replace truncates messages of the record type) */
		seed++;
		fill2(s2, n, seed);
		for (long i = 0; i < n; i++) s2[2 * i + 1] = 0x55;
		MPI_Sendrecv_replace(s2, (int)n, every2, peer, 31, peer, 31, MPI_COMM_WORLD, &st);
		snprintf(what, sizeof what, "sendrecv_replace %ld", n);
		check2(what, s2, n, n, seed - 1000 * rank_ + 1000 * peer);
		counts(what, &st, every2, n, peer, 31);
	}

	/* records: Isend/Irecv of the record type both sides, wildcards, Waitall;
	   then a different receiving type (the bytes of the packed records) */
	for (int k = 0; k < ns; k++) {
		long cnt = sizes[k] / 12 + 1, n = cnt * 12;
		char what[64];
		Rec *sr = mk(sizeof(Rec) * cnt), *rr = mk(sizeof(Rec) * (cnt + 2));
		seed++;
		fillrec(sr, cnt, seed);
		MPI_Request rq[2];
		MPI_Irecv(rr, (int)cnt + 2, rec, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &rq[0]);
		MPI_Isend(sr, (int)cnt, rec, peer, 20 + k, MPI_COMM_WORLD, &rq[1]);
		MPI_Status sts[2];
		MPI_Waitall(2, rq, sts);
		snprintf(what, sizeof what, "isend/irecv records %ld", n);
		checkrec(what, rr, cnt, cnt + 2, seed - 1000 * rank_ + 1000 * peer);
		counts(what, &sts[0], rec, cnt, peer, 20 + k);

		/* Sendrecv, both directions at once */
		seed++;
		fillrec(sr, cnt, seed);
		memset(rr, 0x55, sizeof(Rec) * (cnt + 2));
		MPI_Sendrecv(sr, (int)cnt, rec, peer, 30, rr, (int)cnt + 1, rec, peer, 30, MPI_COMM_WORLD, &st);
		snprintf(what, sizeof what, "sendrecv records %ld", n);
		checkrec(what, rr, cnt, cnt + 1, seed - 1000 * rank_ + 1000 * peer);
		counts(what, &st, rec, cnt, peer, 30);

		/* Probe + Get_count, then a receive of exactly that many; Rsend
		   after the receiver said it is ready */
		seed++;
		fillrec(sr, cnt, seed);
		memset(rr, 0x55, sizeof(Rec) * (cnt + 2));
		if (lo) {
			MPI_Send(sr, (int)cnt, rec, peer, 32, MPI_COMM_WORLD);
			MPI_Probe(MPI_ANY_SOURCE, 32, MPI_COMM_WORLD, &st);
			int c;
			MPI_Get_count(&st, rec, &c);
			CHECK(c == cnt, "probe: get_count %d, want %ld", c, cnt);
			MPI_Recv(rr, c, rec, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &st);
		} else {
			MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
			int c;
			MPI_Get_count(&st, rec, &c);
			CHECK(c == cnt, "probe: get_count %d, want %ld", c, cnt);
			MPI_Recv(rr, c, rec, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &st);
			MPI_Send(sr, (int)cnt, rec, peer, 32, MPI_COMM_WORLD);
		}
		snprintf(what, sizeof what, "probe/recv records %ld", n);
		checkrec(what, rr, cnt, cnt, seed - 1000 * rank_ + 1000 * peer);
		counts(what, &st, rec, cnt, peer, 32);

		/* Mprobe + Mrecv */
		seed++;
		fillrec(sr, cnt, seed);
		memset(rr, 0x55, sizeof(Rec) * (cnt + 2));
		MPI_Request sq;
		MPI_Isend(sr, (int)cnt, rec, peer, 33, MPI_COMM_WORLD, &sq);
		MPI_Message msg;
		MPI_Mprobe(peer, 33, MPI_COMM_WORLD, &msg, &st);
		int c;
		MPI_Get_count(&st, rec, &c);
		CHECK(c == cnt, "mprobe: get_count %d, want %ld", c, cnt);
		MPI_Mrecv(rr, c, rec, &msg, &st);
		MPI_Wait(&sq, MPI_STATUS_IGNORE);
		snprintf(what, sizeof what, "mprobe/mrecv records %ld", n);
		checkrec(what, rr, cnt, cnt, seed - 1000 * rank_ + 1000 * peer);
		counts(what, &st, rec, cnt, peer, 33);
		free(sr), free(rr);
	}

	/* order: three messages on one (source, tag): large, small, large,
	   received by MPI_ANY_TAG receives posted before the sends; then the
	   same with blocking receives posted after */
	{
		long cnt = 3 * T / 12, small = 10;
		Rec *a = mk(sizeof(Rec) * cnt), *b = mk(sizeof(Rec) * cnt), *c = mk(sizeof(Rec) * cnt);
		Rec *ra = mk(sizeof(Rec) * cnt), *rb = mk(sizeof(Rec) * cnt), *rc = mk(sizeof(Rec) * cnt);
		fillrec(a, cnt, rank_ + 1), fillrec(b, small, rank_ + 2), fillrec(c, cnt, rank_ + 3);
		MPI_Request rq[6];
		MPI_Irecv(ra, (int)cnt, rec, peer, MPI_ANY_TAG, MPI_COMM_WORLD, &rq[0]);
		MPI_Irecv(rb, (int)cnt, rec, peer, MPI_ANY_TAG, MPI_COMM_WORLD, &rq[1]);
		MPI_Irecv(rc, (int)cnt, rec, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &rq[2]);
		MPI_Isend(a, (int)cnt, rec, peer, 40, MPI_COMM_WORLD, &rq[3]);
		MPI_Isend(b, (int)small, rec, peer, 40, MPI_COMM_WORLD, &rq[4]);
		MPI_Isend(c, (int)cnt, rec, peer, 40, MPI_COMM_WORLD, &rq[5]);
		MPI_Status sts[6];
		/* complete the receives in reverse order */
		MPI_Wait(&rq[2], &sts[2]);
		int flag = 0;
		while (!flag) MPI_Test(&rq[1], &flag, &sts[1]);
		MPI_Request rest[4] = {rq[0], rq[3], rq[4], rq[5]};
		MPI_Waitall(4, rest, sts + 2);
		checkrec("order 1", ra, cnt, cnt, peer + 1);
		checkrec("order 2", rb, small, small, peer + 2);
		checkrec("order 3", rc, cnt, cnt, peer + 3);
		counts("order 2", &sts[1], rec, small, peer, 40);
		counts("order 3", &sts[2], rec, cnt, peer, 40);

		memset(ra, 0x55, sizeof(Rec) * cnt), memset(rb, 0x55, sizeof(Rec) * cnt), memset(rc, 0x55, sizeof(Rec) * cnt);
		if (lo) {
			MPI_Send(a, (int)cnt, rec, peer, 41, MPI_COMM_WORLD);
			MPI_Send(b, (int)small, rec, peer, 41, MPI_COMM_WORLD);
			MPI_Send(c, (int)cnt, rec, peer, 41, MPI_COMM_WORLD);
		} else {
			/* let all three arrive first */
			MPI_Barrier(MPI_COMM_SELF);
			MPI_Recv(ra, (int)cnt, rec, MPI_ANY_SOURCE, 41, MPI_COMM_WORLD, &st);
			MPI_Recv(rb, (int)cnt, rec, peer, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
			counts("order blocking 2", &st, rec, small, peer, 41);
			MPI_Recv(rc, (int)cnt, rec, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
			checkrec("order blocking 1", ra, cnt, cnt, peer + 1);
			checkrec("order blocking 2", rb, small, small, peer + 2);
			checkrec("order blocking 3", rc, cnt, cnt, peer + 3);
		}
		free(a), free(b), free(c), free(ra), free(rb), free(rc);
	}
	/* a communicator whose ranks are not MPI_COMM_WORLD's (reversed), a
	   probe on it, and a message too long for its receive (truncation
	   under MPI_ERRORS_RETURN) */
	{
		MPI_Comm rev;
		MPI_Comm_split(MPI_COMM_WORLD, 0, size_ - rank_, &rev);
		int rr, rpeer;
		MPI_Comm_rank(rev, &rr);
		int wp[1] = {peer}, rp[1];
		MPI_Group gw, gr;
		MPI_Comm_group(MPI_COMM_WORLD, &gw);
		MPI_Comm_group(rev, &gr);
		MPI_Group_translate_ranks(gw, 1, wp, gr, rp);
		rpeer = rp[0];
		MPI_Group_free(&gw), MPI_Group_free(&gr);
		long cnt = 2 * T / 12 + 5;
		Rec *a = mk(sizeof(Rec) * cnt), *b = mk(sizeof(Rec) * cnt);
		fillrec(a, cnt, rank_ + 60);
		MPI_Request q;
		MPI_Isend(a, (int)cnt, rec, rpeer, 60, rev, &q);
		int flag = 0;
		while (!flag) MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, rev, &flag, &st);
		counts("split: iprobe", &st, rec, cnt, rpeer, 60);
		MPI_Recv(b, (int)cnt, rec, MPI_ANY_SOURCE, 60, rev, &st);
		MPI_Wait(&q, MPI_STATUS_IGNORE);
		checkrec("split", b, cnt, cnt, peer + 60);
		counts("split", &st, rec, cnt, rpeer, 60);

		MPI_Comm_set_errhandler(rev, MPI_ERRORS_RETURN);
		memset(b, 0x55, sizeof(Rec) * cnt);
		MPI_Isend(a, (int)cnt, rec, rpeer, 61, rev, &q);
		int rc = MPI_Recv(b, (int)cnt - 7000, rec, rpeer, 61, rev, &st), cls = -1;
		MPI_Error_class(rc, &cls);
		MPI_Wait(&q, MPI_STATUS_IGNORE);
		CHECK(cls == MPI_ERR_TRUNCATE, "truncated receive: error class %d, want MPI_ERR_TRUNCATE", cls);
		/* the next message on the same pair and tag is intact */
		memset(b, 0x55, sizeof(Rec) * cnt);
		MPI_Sendrecv(a, (int)cnt, rec, rpeer, 61, b, (int)cnt, rec, rpeer, 61, rev, &st);
		checkrec("after truncation", b, cnt, cnt, peer + 60);
		MPI_Comm_free(&rev);
		free(a), free(b);
	}

	/* one instance larger than a packet: a receive of cnt records as one
	   instance of a contiguous type of them (unpacked whole once all
	   packets are in), and a send of it (not pipelined) */
	{
		long cnt = 5 * T / 12 + 3;
		MPI_Datatype big;
		MPI_Type_contiguous((int)cnt, rec, &big);
		MPI_Type_commit(&big);
		Rec *a = mk(sizeof(Rec) * cnt), *b = mk(sizeof(Rec) * cnt);
		fillrec(a, cnt, rank_ + 80);
		MPI_Sendrecv(a, (int)cnt, rec, peer, 80, b, 1, big, peer, 80, MPI_COMM_WORLD, &st);
		checkrec("records into one big instance", b, cnt, cnt, peer + 80);
		counts("records into one big instance", &st, big, 1, peer, 80);
		memset(b, 0x55, sizeof(Rec) * cnt);
		MPI_Sendrecv(a, 1, big, peer, 81, b, (int)cnt, rec, peer, 81, MPI_COMM_WORLD, &st);
		checkrec("one big instance into records", b, cnt, cnt, peer + 80);
		counts("one big instance into records", &st, rec, cnt, peer, 81);
		MPI_Type_free(&big);
		free(a), free(b);
	}

	/* instances larger than half a packet of an irregular indexed type
	   (runs of 1-5 doubles, gaps of 1-4: ddt's byte ranges of it are not
	   cheap), several per message: the sender's packets hold whole
	   instances (aligned packets, pipe.c pl_span), the receiver of that
	   type unpacks each instance as it arrives; received as the same type,
	   as contiguous doubles, into more instances than sent, and into fewer
	   (MPI_ERR_TRUNCATE); and packets of small instances (a vector of
	   doubles) that end inside instances of the receiver's irregular type */
	{
		enum { NB = 6000 };
		int *bl = mk(sizeof(int) * NB), *dp = mk(sizeof(int) * NB);
		long per = 0, ext = 0;
		for (int i = 0; i < NB; i++) {
			bl[i] = (i * 7) % 5 + 1;
			dp[i] = (int)ext;
			per += bl[i];
			ext += bl[i] + (i * 3) % 4 + 1;
		}
		ext = dp[NB - 1] + bl[NB - 1]; /* the type's extent in doubles */
		long *pos = mk(sizeof(long) * per); /* element j of an instance lies at pos[j] */
		for (int i = 0, j = 0; i < NB; i++)
			for (int k = 0; k < bl[i]; k++) pos[j++] = dp[i] + k;
		MPI_Datatype irr, vd;
		MPI_Type_indexed(NB, bl, dp, MPI_DOUBLE, &irr);
		MPI_Type_commit(&irr);
		MPI_Type_create_resized(MPI_DOUBLE, 0, 2 * sizeof(double), &vd);
		MPI_Type_commit(&vd);
		const int cnt = 3;
		long n = cnt * per, cap = (cnt + 1) * ext; /* elements sent; doubles of the buffers */
		double *a = mk(sizeof(double) * cap), *b = mk(sizeof(double) * cap);
		for (int round = 0; round < 6; round++) {
			for (long i = 0; i < cap; i++) a[i] = -2, b[i] = -1;
			int tag = 110 + round, rcnt = cnt, rc = MPI_SUCCESS;
			/* sender: cnt irr (rounds 0-3) or n vd (4-5); receiver: rcnt irr, or n doubles (round 1) */
			if (round < 4) {
				for (int k = 0; k < cnt; k++)
					for (long j = 0; j < per; j++) a[k * ext + pos[j]] = k * per + j + 0.5 + rank_;
			} else {
				for (long e = 0; e < n; e++) a[2 * e] = e + 0.5 + rank_;
			}
			if (round == 2) rcnt = cnt + 1;
			if (round == 3) rcnt = cnt - 1;
			if (round == 3) MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
			if (round == 1) {
				MPI_Sendrecv(a, cnt, irr, peer, tag, b, (int)n, MPI_DOUBLE, peer, tag, MPI_COMM_WORLD, &st);
				counts("irregular instances into doubles", &st, MPI_DOUBLE, n, peer, tag);
				for (long e = 0; e < n; e++)
					CHECK(b[e] == e + 0.5 + peer, "irregular instances into doubles: element %ld = %g", e, b[e]);
				continue;
			}
			if (round == 3) {
				MPI_Request q;
				MPI_Isend(a, cnt, irr, peer, tag, MPI_COMM_WORLD, &q);
				rc = MPI_Recv(b, rcnt, irr, peer, tag, MPI_COMM_WORLD, &st);
				MPI_Wait(&q, MPI_STATUS_IGNORE);
				MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
				int cls = MPI_SUCCESS;
				MPI_Error_class(rc, &cls);
				CHECK(cls == MPI_ERR_TRUNCATE, "irregular instances truncated: error class %d, want MPI_ERR_TRUNCATE", cls);
				continue; /* what a truncated receive holds is the MPI library's */
			}
			if (round < 4)
				MPI_Sendrecv(a, cnt, irr, peer, tag, b, rcnt, irr, peer, tag, MPI_COMM_WORLD, &st);
			else
				MPI_Sendrecv(a, (int)n, vd, peer, tag, b, rcnt, irr, peer, tag, MPI_COMM_WORLD, &st);
			counts("irregular instances", &st, irr, cnt, peer, tag);
			for (long i = 0, k = 0, j = 0; i < cap; i++) {
				/* element k*per+j of the stream lies at k*ext+pos[j] */
				double w = -1;
				if (k < cnt && i == k * ext + pos[j]) {
					w = k * per + j + 0.5 + peer;
					if (++j == per) j = 0, k++;
				}
				CHECK(b[i] == w, "irregular instances round %d: double %ld = %g, want %g", round, i, b[i], w);
			}
		}
		MPI_Type_free(&irr), MPI_Type_free(&vd);
		free(a), free(b), free(pos), free(bl), free(dp);
	}

	/* one large instance of a vector of doubles (the cost rule, DDT_MPI_PIPE_COST,
	   may pipeline it in packets that split the instance; docs/interpose.md,
	   "Pipelining by cost"): sizes between packet 0 and the threshold and
	   above it, several messages of one type (the rule decides after a few),
	   received as the same vector, as contiguous doubles, as a vector of
	   another stride, by Irecv + Waitall, and by a receive too short for it
	   (MPI_ERR_TRUNCATE, and the next message on the pair is intact) */
	{
		long cnts[] = {(L0 + 8) / 8 + 1, 20000, 3 * T / 16 + 5, 5 * T / 8 + 3};
		for (int c = 0; c < 4; c++) {
			long cnt = cnts[c];
			MPI_Datatype v3, v2;
			MPI_Type_vector((int)cnt, 1, 3, MPI_DOUBLE, &v3);
			MPI_Type_commit(&v3);
			MPI_Type_vector((int)cnt, 1, 2, MPI_DOUBLE, &v2);
			MPI_Type_commit(&v2);
			double *a = mk(sizeof(double) * 3 * cnt), *b = mk(sizeof(double) * 3 * cnt);
			for (long i = 0; i < 3 * cnt; i++) a[i] = i % 3 ? -2 : i / 3 + 0.25 * c + rank_;
			for (int round = 0; round < 8; round++) {
				for (long i = 0; i < 3 * cnt; i++) b[i] = -1;
				int tag = 90 + round;
				long stride = 3;
				if (round < 4) {
					MPI_Sendrecv(a, 1, v3, peer, tag, b, 1, v3, peer, tag, MPI_COMM_WORLD, &st);
					counts("vector instance", &st, v3, 1, peer, tag);
				} else if (round == 4) {
					MPI_Sendrecv(a, 1, v3, peer, tag, b, (int)cnt, MPI_DOUBLE, peer, tag, MPI_COMM_WORLD, &st);
					counts("vector instance into doubles", &st, MPI_DOUBLE, cnt, peer, tag);
					stride = 1;
				} else if (round == 5) {
					MPI_Sendrecv(a, 1, v3, peer, tag, b, 1, v2, peer, tag, MPI_COMM_WORLD, &st);
					counts("vector instance into another vector", &st, v2, 1, peer, tag);
					stride = 2;
				} else if (round == 6) {
					MPI_Request q[2];
					MPI_Irecv(b, 1, v3, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &q[0]);
					MPI_Isend(a, 1, v3, peer, tag, MPI_COMM_WORLD, &q[1]);
					MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
				} else {
					/* the receive holds the first cnt-7 elements: MPI_ERR_TRUNCATE
					   (a receive shorter than packet 0 would leave the rest of a
					   pipelined message to MPI_Finalize: docs/interpose.md) */
					if ((cnt - 7) * 8 < L0) continue;
					MPI_Datatype vt;
					MPI_Type_vector((int)cnt - 7, 1, 3, MPI_DOUBLE, &vt);
					MPI_Type_commit(&vt);
					MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
					MPI_Request q;
					MPI_Isend(a, 1, v3, peer, tag, MPI_COMM_WORLD, &q);
					int rc = MPI_Recv(b, 1, vt, peer, tag, MPI_COMM_WORLD, &st);
					int cls = MPI_SUCCESS;
					MPI_Error_class(rc, &cls);
					CHECK(cls == MPI_ERR_TRUNCATE, "vector instance truncated: error class %d, want MPI_ERR_TRUNCATE", cls);
					MPI_Wait(&q, MPI_STATUS_IGNORE);
					MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
					MPI_Type_free(&vt);
					continue; /* what a truncated receive holds is the MPI library's */
				}
				for (long i = 0; i < 3 * cnt; i++) {
					double w = i % stride == 0 && i / stride < cnt ? i / stride + 0.25 * c + peer : -1;
					CHECK(b[i] == w, "vector instance %ld round %d: element %ld = %g, want %g", cnt, round, i, b[i], w);
				}
			}
			MPI_Type_free(&v3), MPI_Type_free(&v2);
			free(a), free(b);
		}
	}

	/* a receive of a type ddt does not serve (built on an f90 type) gets a
	   pipelined message: Recv, Irecv + Wait, Sendrecv */
	{
		MPI_Datatype r8, vr;
		MPI_Type_create_f90_real(15, MPI_UNDEFINED, &r8);
		long cnt = 3 * T / 8 + 11;
		MPI_Type_vector((int)cnt, 1, 2, r8, &vr);
		MPI_Type_commit(&vr);
		MPI_Datatype vd; /* the same layout of doubles, served: cnt instances */
		MPI_Type_create_resized(MPI_DOUBLE, 0, 2 * sizeof(double), &vd);
		MPI_Type_commit(&vd);
		double *a = mk(sizeof(double) * 2 * cnt), *b = mk(sizeof(double) * 2 * cnt);
		for (long i = 0; i < 2 * cnt; i++) a[i] = i + 0.5 + rank_;
		for (int round = 0; round < 3; round++) {
			for (long i = 0; i < 2 * cnt; i++) b[i] = -1;
			if (round == 0) {
				MPI_Request q;
				MPI_Isend(a, (int)cnt, vd, peer, 70, MPI_COMM_WORLD, &q);
				MPI_Recv(b, 1, vr, peer, 70, MPI_COMM_WORLD, &st);
				MPI_Wait(&q, MPI_STATUS_IGNORE);
			} else if (round == 1) {
				MPI_Request q[2];
				MPI_Irecv(b, 1, vr, MPI_ANY_SOURCE, 71, MPI_COMM_WORLD, &q[0]);
				MPI_Isend(a, (int)cnt, vd, peer, 71, MPI_COMM_WORLD, &q[1]);
				MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
			} else {
				MPI_Sendrecv(a, (int)cnt, vd, peer, 72, b, 1, vr, peer, 72, MPI_COMM_WORLD, &st);
			}
			for (long i = 0; i < 2 * cnt; i++) {
				double w = i % 2 ? -1 : i + 0.5 + peer;
				CHECK(b[i] == w, "f90 receive %d: element %ld = %g, want %g", round, i, b[i], w);
			}
		}
		MPI_Type_free(&vr), MPI_Type_free(&vd);
		free(a), free(b);
	}

	/* messages of exactly packet 0's length (L0 bytes) and either side of
	   it that are not pipelined: every receive that can hold L0 bytes and
	   got exactly L0 looks for packet 0's trailer in them
	   (docs/interpose.md, "Every receive looks for the trailer") and must
	   deliver them as they are: raw bytes into the byte type (a staged
	   receive), the byte type into raw bytes after Probe + Get_count, and
	   doubles into a direct type (blocks of 256 bytes, a receive of more
	   than 64 KiB, which MPI fills in place) */
	{
		enum { NB = 300 }; /* 300 blocks of 32 doubles at a stride of 64: 75 KiB */
		MPI_Datatype blk;
		MPI_Type_vector(NB, 32, 64, MPI_DOUBLE, &blk);
		MPI_Type_commit(&blk);
		double *db = mk(sizeof(double) * 64 * NB), *ds = mk(L0 + 64);
		long ns0[] = {L0 - 1, L0, L0 + 1, L0 + 8};
		for (int k = 0; k < 4; k++) {
			long n = ns0[k];
			int sd = 700 + k, cnt;
			char what[80];
			/* raw bytes (lo) into the byte type (hi) */
			memset(r2, 0x55, 2 * maxn);
			if (lo) {
				for (long i = 0; i < n; i++) raw[i] = pat(i, sd);
				MPI_Send(raw, (int)n, MPI_BYTE, peer, 60, MPI_COMM_WORLD);
			} else {
				MPI_Recv(r2, (int)n + 100, every2, peer, 60, MPI_COMM_WORLD, &st);
				snprintf(what, sizeof what, "%ld raw bytes into the byte type", n);
				check2(what, r2, n, n + 100, sd);
				counts(what, &st, every2, n, peer, 60);
			}
			/* the byte type (hi) into raw bytes (lo), probed first */
			if (lo) {
				memset(raw, 0x55, maxn);
				MPI_Probe(peer, 61, MPI_COMM_WORLD, &st);
				MPI_Get_count(&st, MPI_BYTE, &cnt);
				snprintf(what, sizeof what, "probe of %ld bytes of the byte type", n);
				CHECK(cnt == n, "%s: get_count %d", what, cnt);
				MPI_Recv(raw, (int)maxn, MPI_BYTE, peer, 61, MPI_COMM_WORLD, &st);
				checkraw(what, raw, n, n + 64, sd);
				counts(what, &st, MPI_BYTE, n, peer, 61);
			} else {
				fill2(s2, n, sd);
				MPI_Send(s2, (int)n, every2, peer, 61, MPI_COMM_WORLD);
			}
			/* doubles (lo) into the direct type (hi) */
			if (n % 8) continue;
			if (lo) {
				for (long i = 0; i < n / 8; i++) ds[i] = sd + 0.5 * (double)i;
				MPI_Send(ds, (int)(n / 8), MPI_DOUBLE, peer, 62, MPI_COMM_WORLD);
			} else {
				memset(db, 0x55, sizeof(double) * 64 * NB);
				MPI_Recv(db, 1, blk, peer, 62, MPI_COMM_WORLD, &st);
				snprintf(what, sizeof what, "%ld bytes of doubles into a direct type", n);
				counts(what, &st, MPI_DOUBLE, n / 8, peer, 62);
				const unsigned char *u = (const unsigned char *)db;
				for (long i = 0; i < 64 * NB; i++) {
					long e = i / 64 * 32 + i % 64; /* the element at i, if i % 64 < 32 */
					if (i % 64 < 32 && e < n / 8) {
						CHECK(db[i] == sd + 0.5 * (double)e, "%s: element %ld = %g", what, e, db[i]);
					} else {
						for (int b = 0; b < 8; b++) CHECK(u[8 * i + b] == 0x55, "%s: double %ld written", what, i);
					}
				}
			}
		}
		MPI_Type_free(&blk);
		free(db), free(ds);
	}

	/* a contiguous derived type is not staged (MPI takes the user's
	   memory; the statistics show no send or receive for it), and a
	   contiguous receive of a pipelined message takes it in place */
	{
		MPI_Datatype row;
		long cnt = 5 * T / 8 / 1000 + 1;
		MPI_Type_contiguous(1000, MPI_DOUBLE, &row);
		MPI_Type_commit(&row);
		double *a = mk(sizeof(double) * 1000 * cnt), *b = mk(sizeof(double) * 1000 * cnt);
		for (long i = 0; i < 1000 * cnt; i++) a[i] = i + rank_;
		MPI_Sendrecv(a, (int)cnt, row, peer, 50, b, (int)cnt, row, peer, 50, MPI_COMM_WORLD, &st);
		for (long i = 0; i < 1000 * cnt; i++) CHECK(b[i] == i + peer, "contiguous: element %ld = %g", i, b[i]);
		counts("contiguous", &st, row, cnt, peer, 50);
		MPI_Type_free(&row);
		free(a), free(b);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	ok("pipe");
	MPI_Type_free(&every2);
	MPI_Type_free(&rec);
	free(s2), free(r2), free(raw);
	MPI_Finalize();
	return 0;
}
