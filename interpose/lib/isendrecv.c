//go:build ddtinterpose

// MPI_Isendrecv and MPI_Isendrecv_replace (MPI 4.0; declared by MPICH 4,
// not by Open MPI 4.1). When ddt has a part in them (a served type on
// either side, or a receive that could get a pipelined message), they are
// an MPI_Irecv and an MPI_Isend through the library's own wrappers (so the
// data is staged, moved directly or pipelined as for those calls) under one
// generalized request that the library completes (MPI_Grequest_start)
// once both have: the completion calls advance such requests before they
// ask MPI (comm.c), and the blocking ones poll. The status is the
// receive's: source, tag and the count of what arrived (MPICH 4.0.2's own
// MPI_Isendrecv reports count 0, source 0, tag 0).
#include "shimint.h"
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

// MPI_STATUSES_IGNORE is a null array to gcc
#pragma GCC diagnostic ignored "-Wstringop-overflow"

atomic_long isr_live;

#if MPI_VERSION >= 4
typedef struct isr {
	MPI_Request g;     // the user's request
	MPI_Request in[2]; // the send and the receive
	void *tmp;         // Isendrecv_replace: the packed send
	int64_t tn;
	int tpacked;       // tmp came from PMPI_Pack (else from ddt)
	MPI_Status st;     // the receive's status, once complete
	int err;
	struct isr *next;
} isr;

static isr *isrs;
static pthread_mutex_t ilock = PTHREAD_MUTEX_INITIALIZER;

static int q_fn(void *extra, MPI_Status *status) {
	isr *x = extra;
	MPI_Count c = 0;
	if (PMPI_Get_elements_x(&x->st, MPI_BYTE, &c) != MPI_SUCCESS || c == MPI_UNDEFINED) c = 0;
	status->MPI_SOURCE = x->st.MPI_SOURCE;
	status->MPI_TAG = x->st.MPI_TAG;
	status->MPI_ERROR = x->err;
	PMPI_Status_set_elements_x(status, MPI_BYTE, c);
	PMPI_Status_set_cancelled(status, 0);
	return x->err;
}

static int f_fn(void *extra) {
	isr *x = extra;
	if (x->tpacked) free(x->tmp);
	else ddt_buf_put(x->tmp, x->tn);
	free(x);
	return MPI_SUCCESS;
}

static int c_fn(void *extra, int complete) {
	(void)extra, (void)complete;
	return MPI_SUCCESS;
}

// advance tests the two operations of x (taken off the list by the
// caller) and completes x's request when both are done; it reports that.
static int advance(isr *x) {
	int f = 0;
	MPI_Status sts[2];
	int rc = MPI_Testall(2, x->in, &f, sts);
	if (rc != MPI_SUCCESS && rc != MPI_ERR_IN_STATUS) {
		x->err = rc; // the operations are MPI's to clean up; report the error
		memset(&x->st, 0, sizeof x->st);
	} else if (!f) {
		return 0;
	} else {
		x->st = sts[1];
		x->err = rc == MPI_SUCCESS ? MPI_SUCCESS
			: sts[1].MPI_ERROR != MPI_SUCCESS ? sts[1].MPI_ERROR : sts[0].MPI_ERROR;
	}
	PMPI_Grequest_complete(x->g);
	atomic_fetch_sub(&isr_live, 1);
	return 1;
}

// take removes the live isr of request r from the list, or returns NULL.
static isr *take(MPI_Request r) {
	isr *x = NULL;
	pthread_mutex_lock(&ilock);
	for (isr **p = &isrs; *p; p = &(*p)->next)
		if ((*p)->g == r) {
			x = *p;
			*p = x->next;
			break;
		}
	pthread_mutex_unlock(&ilock);
	return x;
}

static void put(isr *x) {
	pthread_mutex_lock(&ilock);
	x->next = isrs;
	isrs = x;
	pthread_mutex_unlock(&ilock);
}

int isr_poll(int n, const MPI_Request *reqs) {
	int left = 0;
	if (atomic_load_explicit(&isr_live, memory_order_relaxed) == 0 || !reqs) return 0;
	for (int i = 0; i < n; i++) {
		isr *x;
		if (reqs[i] == MPI_REQUEST_NULL || !(x = take(reqs[i]))) continue;
		if (!advance(x)) put(x), left++;
	}
	return left;
}

void isr_poll_all(int wait) {
	do {
		if (atomic_load(&isr_live) == 0) return;
		pthread_mutex_lock(&ilock);
		isr *all = isrs;
		isrs = NULL;
		pthread_mutex_unlock(&ilock);
		for (isr *x = all, *next; x; x = next) {
			next = x->next;
			if (!advance(x)) put(x);
		}
	} while (wait);
}

// start makes the user's request of x (its operations posted).
static int start(isr *x, MPI_Request *request) {
	int rc = PMPI_Grequest_start(q_fn, f_fn, c_fn, x, &x->g);
	if (rc != MPI_SUCCESS) { // cannot happen short of memory: complete the operations here
		MPI_Waitall(2, x->in, MPI_STATUSES_IGNORE);
		f_fn(x);
		return rc;
	}
	atomic_fetch_add(&isr_live, 1);
	put(x);
	*request = x->g;
	return MPI_SUCCESS;
}

static int64_t nbytes(MPI_Datatype t, int64_t count) {
	MPI_Count size = 0;
	if (count <= 0 || PMPI_Type_size_x(t, &size) != MPI_SUCCESS || size <= 0 || size == MPI_UNDEFINED ||
		count > INT64_MAX / size)
		return 0;
	return count * size;
}

// ours reports whether ddt has a part in a send of sc x st and a receive of rc x rt.
static int ours(MPI_Datatype st, int64_t sc, MPI_Datatype rt, int64_t rc) {
	ddt_tinfo ti;
	int64_t n;
	return ddt_on && (ddt_staged(st, sc, &ti, &n) || ddt_staged(rt, rc, &ti, &n) || pl_candidate(nbytes(rt, rc)));
}

int MPI_Isendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
	int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Request *request) {
	isr *x;
	if (!request || !ours(sendtype, sendcount, recvtype, recvcount) || !(x = calloc(1, sizeof *x)))
		return PMPI_Isendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source,
			recvtag, comm, request);
	int rc = MPI_Irecv(recvbuf, recvcount, recvtype, source, recvtag, comm, &x->in[1]);
	if (rc != MPI_SUCCESS) {
		free(x);
		return rc;
	}
	rc = MPI_Isend(sendbuf, sendcount, sendtype, dest, sendtag, comm, &x->in[0]);
	if (rc != MPI_SUCCESS) {
		MPI_Cancel(&x->in[1]);
		MPI_Wait(&x->in[1], MPI_STATUS_IGNORE);
		free(x);
		return rc;
	}
	return start(x, request);
}

int MPI_Isendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source,
	int recvtag, MPI_Comm comm, MPI_Request *request) {
	ddt_tinfo ti;
	int64_t n;
	isr *x;
	if (!request || !ours(datatype, count, datatype, count) || !(x = calloc(1, sizeof *x)))
		return PMPI_Isendrecv_replace(buf, count, datatype, dest, sendtag, source, recvtag, comm, request);
	// the send goes from a packed copy: buf takes the receive
	int ok = 0;
	MPI_Datatype st = MPI_BYTE;
	if (ddt_staged(datatype, count, &ti, &n)) {
		ok = n <= INT_MAX && (x->tmp = ddt_buf_get(n)) && ddt_pack(&ti, buf, count, x->tmp, n) == n;
		x->tn = n;
		if (ok) {
			DDT_COUNT(sends, 1);
			DDT_COUNT(bytes, n);
		}
	} else {
		int sz = 0, pos = 0;
		x->tpacked = 1;
		ok = PMPI_Pack_size(count, datatype, comm, &sz) == MPI_SUCCESS && (x->tmp = malloc(sz ? (size_t)sz : 1)) &&
			PMPI_Pack(buf, count, datatype, x->tmp, sz, &pos, comm) == MPI_SUCCESS;
		n = pos, st = MPI_PACKED;
	}
	if (!ok) {
		f_fn(x);
		return PMPI_Isendrecv_replace(buf, count, datatype, dest, sendtag, source, recvtag, comm, request);
	}
	int rc = MPI_Irecv(buf, count, datatype, source, recvtag, comm, &x->in[1]);
	if (rc != MPI_SUCCESS) {
		f_fn(x);
		return rc;
	}
	rc = PMPI_Isend(x->tmp, (int)n, st, dest, sendtag, comm, &x->in[0]);
	if (rc != MPI_SUCCESS) {
		MPI_Cancel(&x->in[1]);
		MPI_Wait(&x->in[1], MPI_STATUS_IGNORE);
		f_fn(x);
		return rc;
	}
	return start(x, request);
}
#else
int isr_poll(int n, const MPI_Request *reqs) {
	(void)n, (void)reqs;
	return 0;
}
void isr_poll_all(int wait) { (void)wait; }
#endif
