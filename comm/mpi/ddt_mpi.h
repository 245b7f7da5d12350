// C helpers of package mpi: wrappers of MPI macros and calls that cgo
// cannot express directly. Included by every cgo file of the package.
#ifndef DDT_MPI_H
#define DDT_MPI_H
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>

// ddt_h carries an MPI handle (an int on MPICH, a pointer on Open MPI) or
// the address of C memory from Go to C as an integer: cgo checks every
// argument whose C type is a pointer to something holding pointers (on
// Open MPI a communicator, or the address of a request) for Go pointers,
// on every call, and these never are. The calls on a small message's path
// take their handles so.
typedef uintptr_t ddt_h;

static ddt_h ddt_comm_h(MPI_Comm c) { return (ddt_h)c; }

static int ddt_init(int *provided) {
	int flag = 0;
	MPI_Initialized(&flag);
	if (flag) return -1;
	int rc = MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, provided);
	if (rc != MPI_SUCCESS) return rc;
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
	return MPI_SUCCESS;
}

static int ddt_thread_serialized(void) { return MPI_THREAD_SERIALIZED; }

static int ddt_dup_world(MPI_Comm *c) {
	int rc = MPI_Comm_dup(MPI_COMM_WORLD, c);
	if (rc == MPI_SUCCESS) MPI_Comm_set_errhandler(*c, MPI_ERRORS_RETURN);
	return rc;
}

static int ddt_tag_ub(void) {
	int *ub, flag = 0;
	MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag);
	return flag ? *ub : 32767;
}

static MPI_Datatype ddt_named(const char *n) {
#define T(x) if (strcmp(n, #x) == 0) return x;
	T(MPI_CHAR) T(MPI_SIGNED_CHAR) T(MPI_UNSIGNED_CHAR) T(MPI_BYTE) T(MPI_C_BOOL)
	T(MPI_INT8_T) T(MPI_UINT8_T) T(MPI_SHORT) T(MPI_UNSIGNED_SHORT) T(MPI_INT16_T)
	T(MPI_UINT16_T) T(MPI_INT) T(MPI_UNSIGNED) T(MPI_FLOAT) T(MPI_WCHAR) T(MPI_INT32_T)
	T(MPI_UINT32_T) T(MPI_LONG) T(MPI_UNSIGNED_LONG) T(MPI_LONG_LONG)
	T(MPI_UNSIGNED_LONG_LONG) T(MPI_DOUBLE) T(MPI_INT64_T) T(MPI_UINT64_T) T(MPI_AINT)
	T(MPI_OFFSET) T(MPI_COUNT) T(MPI_C_FLOAT_COMPLEX) T(MPI_LONG_DOUBLE)
	T(MPI_C_DOUBLE_COMPLEX) T(MPI_C_LONG_DOUBLE_COMPLEX)
	T(MPI_FLOAT_INT) T(MPI_DOUBLE_INT) T(MPI_LONG_INT) T(MPI_2INT) T(MPI_SHORT_INT)
	T(MPI_LONG_DOUBLE_INT)
#undef T
	return MPI_DATATYPE_NULL;
}

static int ddt_is_null(MPI_Datatype t) { return t == MPI_DATATYPE_NULL; }
static MPI_Datatype ddt_byte(void) { return MPI_BYTE; }
static int ddt_order(int fortran) { return fortran ? MPI_ORDER_FORTRAN : MPI_ORDER_C; }
static int ddt_distrib(int d) {
	switch (d) {
	case 1: return MPI_DISTRIBUTE_CYCLIC;
	case 2: return MPI_DISTRIBUTE_NONE;
	}
	return MPI_DISTRIBUTE_BLOCK;
}
static int ddt_darg(long long d) { return d < 0 ? MPI_DISTRIBUTE_DFLT_DARG : (int)d; }

static int ddt_type_info(MPI_Datatype t, long long *size, long long *lb, long long *extent) {
	MPI_Count s, l, e;
	int rc = MPI_Type_size_x(t, &s);
	if (rc != MPI_SUCCESS) return rc;
	rc = MPI_Type_get_extent_x(t, &l, &e);
	*size = s; *lb = l; *extent = e;
	return rc;
}

static int ddt_isend(void *base, long long off, int count, MPI_Datatype t, int dest, int tag, MPI_Comm c, MPI_Request *r) {
	return MPI_Isend((char *)base + off, count, t, dest, tag, c, r);
}

static int ddt_irecv(void *base, long long off, int count, MPI_Datatype t, int src, int tag, MPI_Comm c, MPI_Request *r) {
	return MPI_Irecv((char *)base + off, count, t, src, tag, c, r);
}

// ddt_test tests r; on completion it fills source, tag, the received byte
// count and the error of the status.
static int ddt_test(MPI_Request *r, int *done, int *src, int *tag, long long *bytes, int *err, int *cancelled) {
	MPI_Status st;
	int rc = MPI_Test(r, done, &st);
	if (*done) {
		MPI_Test_cancelled(&st, cancelled);
		MPI_Count n = 0;
		*src = st.MPI_SOURCE;
		*tag = st.MPI_TAG;
		*err = rc == MPI_ERR_IN_STATUS ? st.MPI_ERROR : rc;
		MPI_Get_elements_x(&st, MPI_BYTE, &n);
		*bytes = n;
	}
	return rc;
}

// ddt_test_elements is ddt_test that also reports the number of basic
// elements of t received, or -1 when MPI reports MPI_UNDEFINED.
static int ddt_test_elements(MPI_Request *r, MPI_Datatype t, int *done, int *src, int *tag, long long *bytes, long long *elems, int *err, int *cancelled) {
	MPI_Status st;
	int rc = MPI_Test(r, done, &st);
	if (*done) {
		MPI_Test_cancelled(&st, cancelled);
		MPI_Count n = 0, e = 0;
		*src = st.MPI_SOURCE;
		*tag = st.MPI_TAG;
		*err = rc == MPI_ERR_IN_STATUS ? st.MPI_ERROR : rc;
		MPI_Get_elements_x(&st, MPI_BYTE, &n);
		*bytes = n;
		MPI_Count size = 0;
		MPI_Type_size_x(t, &size);
		if (size > 0) { /* MPICH divides by the size */
			MPI_Get_elements_x(&st, t, &e);
		}
		*elems = e == MPI_UNDEFINED ? -1 : e;
	}
	return rc;
}

static int ddt_iprobe(int src, int tag, MPI_Comm c, int *found, int *osrc, int *otag, long long *bytes) {
	MPI_Status st;
	int rc = MPI_Iprobe(src, tag, c, found, &st);
	if (rc == MPI_SUCCESS && *found) {
		MPI_Count n = 0;
		*osrc = st.MPI_SOURCE;
		*otag = st.MPI_TAG;
		MPI_Get_elements_x(&st, MPI_BYTE, &n);
		*bytes = n;
	}
	return rc;
}

static int ddt_cancel(MPI_Request *r) {
	int rc = MPI_Cancel(r);
	if (rc != MPI_SUCCESS) return rc;
	return MPI_Wait(r, MPI_STATUS_IGNORE);
}

static int ddt_ibarrier(MPI_Comm c, MPI_Request *r) { return MPI_Ibarrier(c, r); }

static int ddt_pack(void *in, long long off, int count, MPI_Datatype t, void *out, int outsize, int *pos) {
	*pos = 0;
	return MPI_Pack((char *)in + off, count, t, out, outsize, pos, MPI_COMM_WORLD);
}

static int ddt_any_source(void) { return MPI_ANY_SOURCE; }
static int ddt_any_tag(void) { return MPI_ANY_TAG; }
static int ddt_err_truncate(void) { return MPI_ERR_TRUNCATE; }
static int ddt_error_class(int code) { int c = code; MPI_Error_class(code, &c); return c; }
static int ddt_success(void) { return MPI_SUCCESS; }

static void ddt_error_string(int code, char *buf) {
	int n = 0;
	MPI_Error_string(code, buf, &n);
	buf[n < MPI_MAX_ERROR_STRING ? n : MPI_MAX_ERROR_STRING - 1] = 0;
}
static int ddt_max_error_string(void) { return MPI_MAX_ERROR_STRING; }
// ddt_bytes_type makes a committed datatype of n bytes, n > chunk, out of
// chunk-byte blocks, for libraries without the MPI-4 large-count calls.
static int ddt_bytes_type(long long n, long long chunk, MPI_Datatype *t) {
	long long q = n / chunk, rem = n % chunk;
	if (q > 2147483647LL || chunk > 2147483647LL || rem > 2147483647LL) return MPI_ERR_COUNT;
	MPI_Datatype blk, body;
	int rc = MPI_Type_contiguous((int)chunk, MPI_BYTE, &blk);
	if (rc != MPI_SUCCESS) return rc;
	rc = MPI_Type_contiguous((int)q, blk, &body);
	MPI_Type_free(&blk);
	if (rc != MPI_SUCCESS) return rc;
	int bl[2] = {1, (int)rem};
	MPI_Aint d[2] = {0, (MPI_Aint)(q * chunk)};
	MPI_Datatype ts[2] = {body, MPI_BYTE};
	rc = MPI_Type_create_struct(rem > 0 ? 2 : 1, bl, d, ts, t);
	MPI_Type_free(&body);
	if (rc != MPI_SUCCESS) return rc;
	return MPI_Type_commit(t);
}

// ddt_large_count reports whether the library has the MPI-4 large-count
// calls that ddt_isend_bytes and ddt_irecv_bytes use above limit.
static int ddt_large_count(void) {
#if MPI_VERSION >= 4
	return 1;
#else
	return 0;
#endif
}

// ddt_isend_bytes sends the n bytes at p as one message: as MPI_BYTEs when
// n <= limit (at most INT_MAX), else with MPI_Isend_c (MPI 4) or as one
// instance of a derived datatype of n bytes.
static int ddt_isend_bytes(void *p, long long n, long long limit, int dest, int tag, MPI_Comm c, MPI_Request *r) {
	if (n <= limit) return MPI_Isend(p, (int)n, MPI_BYTE, dest, tag, c, r);
#if MPI_VERSION >= 4
	return MPI_Isend_c(p, (MPI_Count)n, MPI_BYTE, dest, tag, c, r);
#else
	MPI_Datatype t;
	int rc = ddt_bytes_type(n, limit, &t);
	if (rc != MPI_SUCCESS) return rc;
	rc = MPI_Isend(p, 1, t, dest, tag, c, r);
	MPI_Type_free(&t); /* freed when the send completes */
	return rc;
#endif
}

// ddt_irecv_bytes is the receive of ddt_isend_bytes.
static int ddt_irecv_bytes(void *p, long long n, long long limit, int src, int tag, MPI_Comm c, MPI_Request *r) {
	if (n <= limit) return MPI_Irecv(p, (int)n, MPI_BYTE, src, tag, c, r);
#if MPI_VERSION >= 4
	return MPI_Irecv_c(p, (MPI_Count)n, MPI_BYTE, src, tag, c, r);
#else
	MPI_Datatype t;
	int rc = ddt_bytes_type(n, limit, &t);
	if (rc != MPI_SUCCESS) return rc;
	rc = MPI_Irecv(p, 1, t, src, tag, c, r);
	MPI_Type_free(&t);
	return rc;
#endif
}

// ddt_cancel_only asks MPI to cancel r; r completes later, cancelled or not.
static int ddt_cancel_only(MPI_Request *r) { return MPI_Cancel(r); }

// ddt_ialltoall_ll is MPI_Ialltoall of n long longs per rank.
static int ddt_ialltoall_ll(long long *send, long long *recv, int n, MPI_Comm c, MPI_Request *r) {
	return MPI_Ialltoall(send, n, MPI_LONG_LONG, recv, n, MPI_LONG_LONG, c, r);
}
// ddt_op returns MPI's predefined operation number k of package mpi's
// table (1 MPI_SUM ... 10 MPI_BXOR, 11 MPI_MINLOC, 12 MPI_MAXLOC), or MPI_OP_NULL.
static MPI_Op ddt_op(int k) {
	switch (k) {
	case 1: return MPI_SUM;
	case 2: return MPI_PROD;
	case 3: return MPI_MIN;
	case 4: return MPI_MAX;
	case 5: return MPI_LAND;
	case 6: return MPI_LOR;
	case 7: return MPI_LXOR;
	case 8: return MPI_BAND;
	case 9: return MPI_BOR;
	case 10: return MPI_BXOR;
	case 11: return MPI_MINLOC;
	case 12: return MPI_MAXLOC;
	}
	return MPI_OP_NULL;
}

// ddt_ireduction starts the nonblocking reduction kind (1 MPI_Ireduce, 2
// MPI_Iallreduce, 3 MPI_Ireduce_scatter with counts, 4
// MPI_Ireduce_scatter_block, 5 MPI_Iscan, 6 MPI_Iexscan) of count
// elements of t with operation op (see ddt_op).
static int ddt_ireduction(int kind, void *s, void *r, int count, int *counts, MPI_Datatype t, int op, int root, MPI_Comm c, MPI_Request *req) {
	MPI_Op o = ddt_op(op);
	switch (kind) {
	case 1: return MPI_Ireduce(s, r, count, t, o, root, c, req);
	case 2: return MPI_Iallreduce(s, r, count, t, o, c, req);
	case 3: return MPI_Ireduce_scatter(s, r, counts, t, o, c, req);
	case 4: return MPI_Ireduce_scatter_block(s, r, count, t, o, c, req);
	case 5: return MPI_Iscan(s, r, count, t, o, c, req);
	case 6: return MPI_Iexscan(s, r, count, t, o, c, req);
	}
	return -1;
}

static MPI_Datatype ddt_long_long(void) { return MPI_LONG_LONG; }

// ddt_result is what a completed request reports to Go.
typedef struct {
	int index, src, tag, err, cancelled;
	long long bytes, elems;
} ddt_result;

// ddt_poll tests the n requests of reqs with MPI_Testsome, again and again
// for up to spin seconds until one completes, and writes the results of
// the completed ones to out (at most n), returning their number in *count.
// etypes[i], if not MPI_DATATYPE_NULL, is the type whose elements request
// i counts. Completed requests become MPI_REQUEST_NULL in reqs. Spinning
// here, rather than in Go, keeps a waiting rank as quick to notice a
// message as a C program calling MPI_Wait.
//
// Before testing, it posts the header receives of the nrep ring slots
// listed in rep, in that order, into reqs[rep[j]] (slot i receives into
// hbuf + i*slot, from any source with any tag on hc), and counts those it
// posted in *posted: a failed post returns its error with the later slots
// not posted. Reposting here, in the call that waits for the next message,
// spares a call per received header.
//
// When only (n == 0 after the ring, only >= 0) request only is to be
// watched, it is tested alone with MPI_Test: the oldest header receive,
// which completes first (MPI matches the ring's receives in posting
// order), when nothing else is in flight.
static int ddt_poll(ddt_h reqsh, ddt_h etypesh, int n, double spin,
		int *idx, MPI_Status *sts, ddt_result *out, int *count,
		const int *rep, int nrep, char *hbuf, int slot, ddt_h hch, int *posted, int only) {
	MPI_Request *reqs = (MPI_Request *)reqsh;
	MPI_Datatype *etypes = (MPI_Datatype *)etypesh;
	MPI_Comm hc = (MPI_Comm)hch;
	int k = 0, rc;
	double t0 = 0;
	*count = 0;
	*posted = 0;
	for (int j = 0; j < nrep; j++) {
		rc = MPI_Irecv(hbuf + (long)rep[j] * slot, slot, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, hc, &reqs[rep[j]]);
		if (rc != MPI_SUCCESS) return rc;
		(*posted)++;
	}
	for (long iter = 0;; iter++) {
		if (only >= 0) {
			int flag = 0;
			rc = MPI_Test(&reqs[only], &flag, &sts[0]);
			if (rc != MPI_SUCCESS && rc != MPI_ERR_IN_STATUS) return rc;
			if (rc == MPI_ERR_IN_STATUS) rc = MPI_SUCCESS, sts[0].MPI_ERROR = MPI_ERR_OTHER;
			k = flag ? 1 : 0;
			idx[0] = only;
		} else
		rc = MPI_Testsome(n, reqs, &k, idx, sts);
		if (rc != MPI_SUCCESS && rc != MPI_ERR_IN_STATUS) return rc;
		if (k == MPI_UNDEFINED) k = 0;
		if (k > 0 || spin <= 0) break;
		if (iter == 0) t0 = MPI_Wtime();
		else if ((iter & 15) == 0 && MPI_Wtime() - t0 > spin) break;
	}
	for (int j = 0; j < k; j++) {
		MPI_Status *st = &sts[j];
		ddt_result *r = &out[j];
		MPI_Count nb = 0, e = 0;
		r->index = idx[j];
		r->src = st->MPI_SOURCE;
		r->tag = st->MPI_TAG;
		r->err = rc == MPI_ERR_IN_STATUS ? st->MPI_ERROR : MPI_SUCCESS;
		r->cancelled = 0;
		MPI_Test_cancelled(st, &r->cancelled);
		MPI_Get_elements_x(st, MPI_BYTE, &nb);
		r->bytes = nb;
		r->elems = 0;
		MPI_Datatype t = etypes[idx[j]];
		if (t != MPI_DATATYPE_NULL) {
			MPI_Count size = 0;
			MPI_Type_size_x(t, &size);
			if (size > 0) MPI_Get_elements_x(st, t, &e); /* MPICH divides by the size */
			r->elems = e == MPI_UNDEFINED ? -1 : e;
		}
	}
	*count = k;
	return MPI_SUCCESS;
}

// ddt_isend_test starts MPI_Isend of the n bytes at p and tests it once:
// *done is set when the send completed at once (small messages, which MPI
// sends eagerly), and the request is then MPI_REQUEST_NULL. One call for
// what a blocking send of a small message needs. With test 0 it only
// starts the send (for the tests of the path that waits). p is a char *,
// not a void *: cgo checks every unsafe.Pointer argument for Go pointers,
// and p is always C memory; the communicator and the request (in C
// memory) come as ddt_h, for the same reason.
static int ddt_isend_test(char *p, int n, int dest, int tag, ddt_h ch, ddt_h rh, int *done, int test) {
	MPI_Comm c = (MPI_Comm)ch;
	MPI_Request *r = (MPI_Request *)rh;
	*done = 0;
	int rc = MPI_Isend(p, n, MPI_BYTE, dest, tag, c, r);
	if (rc != MPI_SUCCESS || !test) return rc;
	rc = MPI_Test(r, done, MPI_STATUS_IGNORE);
	if (rc != MPI_SUCCESS) *done = 1; /* failed: nothing is left in flight */
	return rc;
}

static MPI_Datatype ddt_datatype_null(void) { return MPI_DATATYPE_NULL; }
static MPI_Request ddt_request_null(void) { return MPI_REQUEST_NULL; }
static size_t ddt_sizeof_request(void) { return sizeof(MPI_Request); }
static size_t ddt_sizeof_status(void) { return sizeof(MPI_Status); }
#endif
