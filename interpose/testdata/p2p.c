/* Point-to-point with derived datatypes: every pair (r, r^1) exchanges a
   column of a matrix through each kind of call; receivers check the
   elements, the untouched gaps and the counts of the status. */
#include "common.h"

enum { N = 40, M = 33 }; /* N x M matrix of doubles */

static double val(int from, int i, int j, int round) { return from * 1e6 + i * 1000 + j + round * 0.5; }

static void setm(double *m, int from, int round) {
	for (int i = 0; i < N; i++)
		for (int j = 0; j < M; j++) m[i * M + j] = val(from, i, j, round);
}

/* checkcols checks that columns [c0, c0+nc) hold from's values and the rest -1. */
static void checkcols(const char *what, double *m, int from, int round, int c0, int nc) {
	for (int i = 0; i < N; i++)
		for (int j = 0; j < M; j++) {
			double w = j >= c0 && j < c0 + nc ? val(from, i, j - c0, round) : -1;
			CHECK(m[i * M + j] == w, "%s: m[%d][%d] = %g, want %g", what, i, j, m[i * M + j], w);
		}
}

static void clear(double *m) {
	for (int i = 0; i < N * M; i++) m[i] = -1;
}

static void status_counts(const char *what, MPI_Status *st, MPI_Datatype t, int want) {
	int c, e;
	MPI_Get_count(st, t, &c);
	CHECK(c == want, "%s: get_count %d, want %d", what, c, want);
	MPI_Get_elements(st, t, &e);
	CHECK(e == want * N, "%s: get_elements %d, want %d", what, e, want * N);
	MPI_Get_count(st, MPI_DOUBLE, &c);
	CHECK(c == want * N, "%s: get_count(double) %d", what, c);
}

int main(int argc, char **argv) {
	start(&argc, &argv);
	int peer = rank_ ^ 1;
	if (peer >= size_) peer = MPI_PROC_NULL;
	double *sm = malloc(sizeof(double) * N * M), *rm = malloc(sizeof(double) * N * M);
	MPI_Datatype col, col1;
	MPI_Type_vector(N, 1, M, MPI_DOUBLE, &col);
	MPI_Type_create_resized(col, 0, sizeof(double), &col1);
	MPI_Type_commit(&col1);
	MPI_Type_free(&col); /* freeing the old type must not matter */
	MPI_Status st;
	int round = 0;
	if (peer == MPI_PROC_NULL) {
		MPI_Finalize();
		return 0;
	}

	/* Send / Recv, 3 columns, into columns 2..5 */
	setm(sm, rank_, ++round);
	clear(rm);
	if (rank_ < peer) {
		MPI_Send(sm, 3, col1, peer, 1, MPI_COMM_WORLD);
		MPI_Recv(rm + 2, 3, col1, peer, 1, MPI_COMM_WORLD, &st);
	} else {
		MPI_Recv(rm + 2, 3, col1, peer, 1, MPI_COMM_WORLD, &st);
		MPI_Send(sm, 3, col1, peer, 1, MPI_COMM_WORLD);
	}
	checkcols("send/recv", rm, peer, round, 2, 3);
	status_counts("send/recv", &st, col1, 3);
	ok("send recv");

	/* a shorter message than the receive: 2 columns into a receive of 4 */
	setm(sm, rank_, ++round);
	clear(rm);
	MPI_Sendrecv(sm, 2, col1, peer, 2, rm, 4, col1, peer, 2, MPI_COMM_WORLD, &st);
	checkcols("sendrecv", rm, peer, round, 0, 2);
	status_counts("sendrecv", &st, col1, 2);
	ok("sendrecv");

	/* Ssend/Rsend/Bsend against Irecv + Waitall */
	MPI_Request rq[3];
	double *r3 = malloc(sizeof(double) * N * M * 3);
	for (int k = 0; k < 3 * N * M; k++) r3[k] = -1;
	setm(sm, rank_, ++round);
	for (int k = 0; k < 3; k++) MPI_Irecv(r3 + k * N * M + 1, 2, col1, peer, 10 + k, MPI_COMM_WORLD, &rq[k]);
	MPI_Barrier(MPI_COMM_WORLD);
	int bsz;
	MPI_Pack_size(2, col1, MPI_COMM_WORLD, &bsz);
	bsz += MPI_BSEND_OVERHEAD;
	void *bbuf = malloc(bsz);
	MPI_Buffer_attach(bbuf, bsz);
	MPI_Ssend(sm, 2, col1, peer, 10, MPI_COMM_WORLD);
	MPI_Rsend(sm, 2, col1, peer, 11, MPI_COMM_WORLD);
	MPI_Bsend(sm, 2, col1, peer, 12, MPI_COMM_WORLD);
	MPI_Status sts[3];
	MPI_Waitall(3, rq, sts);
	for (int k = 0; k < 3; k++) {
		checkcols("irecv waitall", r3 + k * N * M, peer, round, 1, 2);
		status_counts("irecv waitall", &sts[k], col1, 2);
	}
	MPI_Buffer_detach(&bbuf, &bsz);
	free(bbuf);
	ok("ssend rsend bsend irecv waitall");

	/* Isend/Irecv completed by Wait, Test loops, Waitany, Waitsome, with MPI_STATUS_IGNORE */
	setm(sm, rank_, ++round);
	for (int k = 0; k < 3 * N * M; k++) r3[k] = -1;
	MPI_Request s[3], r[3];
	for (int k = 0; k < 3; k++) MPI_Irecv(r3 + k * N * M, 1, col1, peer, 20 + k, MPI_COMM_WORLD, &r[k]);
	for (int k = 0; k < 3; k++) MPI_Isend(sm, 1, col1, peer, 20 + k, MPI_COMM_WORLD, &s[k]);
	int idx, flag = 0;
	MPI_Wait(&r[0], MPI_STATUS_IGNORE);
	while (!flag) MPI_Test(&r[1], &flag, MPI_STATUS_IGNORE);
	MPI_Waitany(3, r, &idx, &st);
	CHECK(idx == 2, "waitany index %d", idx);
	int outc, ind[3];
	MPI_Waitsome(3, s, &outc, ind, MPI_STATUSES_IGNORE);
	MPI_Waitall(3, s, MPI_STATUSES_IGNORE);
	for (int k = 0; k < 3; k++) checkcols("wait/test/any", r3 + k * N * M, peer, round, 0, 1);
	ok("isend irecv wait test waitany waitsome");

	/* Testall / Testany / Testsome */
	setm(sm, rank_, ++round);
	for (int k = 0; k < 3 * N * M; k++) r3[k] = -1;
	for (int k = 0; k < 3; k++) MPI_Irecv(r3 + k * N * M, 1, col1, peer, 30 + k, MPI_COMM_WORLD, &r[k]);
	for (int k = 0; k < 3; k++) MPI_Issend(sm, 1, col1, peer, 30 + k, MPI_COMM_WORLD, &s[k]);
	flag = 0;
	while (!flag) MPI_Testany(3, r, &idx, &flag, MPI_STATUS_IGNORE);
	int left = 2;
	while (left > 0) {
		MPI_Testsome(3, r, &outc, ind, MPI_STATUSES_IGNORE);
		if (outc != MPI_UNDEFINED) left -= outc;
	}
	flag = 0;
	while (!flag) MPI_Testall(3, s, &flag, MPI_STATUSES_IGNORE);
	for (int k = 0; k < 3; k++) checkcols("testany/some/all", r3 + k * N * M, peer, round, 0, 1);
	ok("testany testsome testall");

	/* persistent requests, started 3 times */
	MPI_Request ps, pr;
	MPI_Send_init(sm, 2, col1, peer, 40, MPI_COMM_WORLD, &ps);
	MPI_Recv_init(rm + 4, 2, col1, peer, 40, MPI_COMM_WORLD, &pr);
	for (int it = 0; it < 3; it++) {
		setm(sm, rank_, ++round);
		clear(rm);
		MPI_Start(&pr);
		MPI_Start(&ps);
		MPI_Request both[2] = {pr, ps};
		MPI_Waitall(2, both, sts);
		checkcols("persistent", rm, peer, round, 4, 2);
		status_counts("persistent", &sts[0], col1, 2);
	}
	MPI_Request_free(&ps);
	MPI_Request_free(&pr);
	ok("persistent");

	/* Sendrecv_replace on 3 columns in place */
	setm(rm, rank_, ++round);
	for (int i = 0; i < N; i++)
		for (int j = 3; j < M; j++) rm[i * M + j] = -1;
	MPI_Sendrecv_replace(rm, 3, col1, peer, 50, peer, 50, MPI_COMM_WORLD, &st);
	checkcols("sendrecv_replace", rm, peer, round, 0, 3);
	ok("sendrecv_replace");

	/* Probe, Mprobe/Mrecv, Iprobe/Imrecv */
	setm(sm, rank_, ++round);
	clear(rm);
	MPI_Send(sm, 3, col1, peer, 60, MPI_COMM_WORLD);
	MPI_Probe(peer, 60, MPI_COMM_WORLD, &st);
	int c;
	MPI_Get_count(&st, col1, &c);
	CHECK(c == 3, "probe count %d", c);
	MPI_Message msg;
	MPI_Mprobe(peer, 60, MPI_COMM_WORLD, &msg, &st);
	MPI_Mrecv(rm, 3, col1, &msg, &st);
	checkcols("mrecv", rm, peer, round, 0, 3);
	status_counts("mrecv", &st, col1, 3);
	clear(rm);
	MPI_Send(sm, 1, col1, peer, 61, MPI_COMM_WORLD);
	flag = 0;
	while (!flag) MPI_Improbe(peer, 61, MPI_COMM_WORLD, &flag, &msg, &st);
	MPI_Request mr;
	MPI_Imrecv(rm + 7, 1, col1, &msg, &mr);
	MPI_Wait(&mr, &st);
	checkcols("imrecv", rm, peer, round, 7, 1);
	ok("probe mprobe mrecv imrecv");

	/* Isend + Request_free: the data must still arrive */
	setm(sm, rank_, ++round);
	clear(rm);
	MPI_Request fr;
	MPI_Isend(sm, 2, col1, peer, 70, MPI_COMM_WORLD, &fr);
	MPI_Request_free(&fr);
	MPI_Recv(rm, 2, col1, peer, 70, MPI_COMM_WORLD, &st);
	checkcols("request_free", rm, peer, round, 0, 2);
	ok("isend request_free");

	/* a derived type received as plain doubles, and plain doubles into a derived type */
	setm(sm, rank_, ++round);
	double *flat = malloc(sizeof(double) * N * 2);
	MPI_Sendrecv(sm, 2, col1, peer, 80, flat, 2 * N, MPI_DOUBLE, peer, 80, MPI_COMM_WORLD, &st);
	for (int j = 0; j < 2; j++)
		for (int i = 0; i < N; i++) CHECK(flat[j * N + i] == val(peer, i, j, round), "flat[%d]", j * N + i);
	clear(rm);
	for (int j = 0; j < 2; j++)
		for (int i = 0; i < N; i++) flat[j * N + i] = val(rank_, i, j, round);
	MPI_Sendrecv(flat, 2 * N, MPI_DOUBLE, peer, 81, rm + 3, 2, col1, peer, 81, MPI_COMM_WORLD, &st);
	checkcols("mixed", rm, peer, round, 3, 2);
	ok("mixed derived and predefined");

	/* MPI_Request_get_status sees the data before the request is freed */
	setm(sm, rank_, ++round);
	clear(rm);
	MPI_Request gr;
	MPI_Irecv(rm + 1, 2, col1, peer, 90, MPI_COMM_WORLD, &gr);
	MPI_Send(sm, 2, col1, peer, 90, MPI_COMM_WORLD);
	flag = 0;
	while (!flag) MPI_Request_get_status(gr, &flag, &st);
	checkcols("request_get_status", rm, peer, round, 1, 2);
	status_counts("request_get_status", &st, col1, 2);
	MPI_Wait(&gr, &st);
	checkcols("request_get_status wait", rm, peer, round, 1, 2);
	ok("request_get_status");

	/* MPI_BOTTOM: structs of absolute addresses (DDTBench's LAMMPS and WRF
	   send so); MPICH 4.0.2 rejects MPI_Pack from MPI_BOTTOM, which the
	   library must not call when it times the MPI library's engine
	   (DDT_MPI_OWN, TestOwn) */
	setm(sm, rank_, ++round);
	clear(rm);
	{
		MPI_Datatype abs_s, abs_r;
		MPI_Aint d;
		int bl = 2;
		MPI_Get_address(sm, &d);
		MPI_Type_create_struct(1, &bl, &d, &col1, &abs_s);
		MPI_Get_address(rm + 3, &d);
		MPI_Type_create_struct(1, &bl, &d, &col1, &abs_r);
		MPI_Type_commit(&abs_s);
		MPI_Type_commit(&abs_r);
		if (rank_ < peer) {
			MPI_Send(MPI_BOTTOM, 1, abs_s, peer, 92, MPI_COMM_WORLD);
			MPI_Recv(MPI_BOTTOM, 1, abs_r, peer, 92, MPI_COMM_WORLD, &st);
		} else {
			MPI_Recv(MPI_BOTTOM, 1, abs_r, peer, 92, MPI_COMM_WORLD, &st);
			MPI_Send(MPI_BOTTOM, 1, abs_s, peer, 92, MPI_COMM_WORLD);
		}
		MPI_Type_free(&abs_s);
		MPI_Type_free(&abs_r);
	}
	checkcols("MPI_BOTTOM", rm, peer, round, 3, 2);
	ok("MPI_BOTTOM");

	/* the large-count forms (MPI-4: MPICH) */
#if MPI_VERSION >= 4 && defined(MPICH)
	setm(sm, rank_, ++round);
	clear(rm);
	if (rank_ < peer) {
		MPI_Send_c(sm, 3, col1, peer, 95, MPI_COMM_WORLD);
		MPI_Recv_c(rm + 2, 3, col1, peer, 95, MPI_COMM_WORLD, &st);
	} else {
		MPI_Recv_c(rm + 2, 3, col1, peer, 95, MPI_COMM_WORLD, &st);
		MPI_Send_c(sm, 3, col1, peer, 95, MPI_COMM_WORLD);
	}
	checkcols("send_c/recv_c", rm, peer, round, 2, 3);
	status_counts("send_c/recv_c", &st, col1, 3);
	clear(rm);
	MPI_Request cq[2];
	MPI_Irecv_c(rm, 2, col1, peer, 96, MPI_COMM_WORLD, &cq[0]);
	MPI_Isend_c(sm, 2, col1, peer, 96, MPI_COMM_WORLD, &cq[1]);
	MPI_Waitall(2, cq, sts);
	checkcols("isend_c/irecv_c", rm, peer, round, 0, 2);
#endif
	ok("large-count forms");

	/* cancel a receive that never matches */
	MPI_Request cr;
	MPI_Irecv(rm, 1, col1, peer, 99, MPI_COMM_WORLD, &cr);
	MPI_Cancel(&cr);
	MPI_Wait(&cr, &st);
	int cancelled;
	MPI_Test_cancelled(&st, &cancelled);
	CHECK(cancelled, "receive not cancelled");
	ok("cancel");

	MPI_Type_free(&col1);
	free(sm), free(rm), free(r3), free(flat);
	MPI_Finalize();
	return 0;
}
