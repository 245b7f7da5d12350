// C helpers of package mpi: wrappers of MPI macros and calls that cgo
// cannot express directly. Included by every cgo file of the package.
#ifndef DDT_MPI_H
#define DDT_MPI_H
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

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
static int ddt_test(MPI_Request *r, int *done, int *src, int *tag, long long *bytes, int *err) {
	MPI_Status st;
	int rc = MPI_Test(r, done, &st);
	if (*done) {
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
static int ddt_test_elements(MPI_Request *r, MPI_Datatype t, int *done, int *src, int *tag, long long *bytes, long long *elems, int *err) {
	MPI_Status st;
	int rc = MPI_Test(r, done, &st);
	if (*done) {
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
#endif
