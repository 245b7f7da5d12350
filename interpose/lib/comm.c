//go:build ddtinterpose

// Point-to-point, completion and collective operations with derived
// datatypes: the data of a served, non-contiguous type is packed by ddt
// into a staging buffer and travels as MPI_BYTE; received bytes are
// unpacked by ddt. Every other call goes to PMPI untouched.
#include "shimint.h"
#include "_cgo_export.h"
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static void count_send(int64_t n) {
	DDT_COUNT(sends, 1);
	DDT_COUNT(bytes, n);
}

static void count_recv(int64_t n) {
	DDT_COUNT(recvs, 1);
	DDT_COUNT(bytes, n);
}

// packed returns a staging buffer with count instances at buf packed, or
// NULL (then the caller leaves the call to MPI).
static void *packed(const ddt_tinfo *ti, const void *buf, int64_t count, int64_t n) {
	void *tmp = ddt_buf_get(n);
	if (!tmp) return NULL;
	if (ddt_pack(ti, buf, count, tmp, n) != n) {
		ddt_buf_put(tmp, n);
		return NULL;
	}
	count_send(n);
	return tmp;
}

static int64_t status_bytes(const MPI_Status *st) {
	MPI_Count c = 0;
	if (PMPI_Get_elements_x(st, MPI_BYTE, &c) != MPI_SUCCESS || c == MPI_UNDEFINED || c < 0) return 0;
	return c;
}

// unpacked unpacks the bytes a receive into tmp delivered.
// The type is ti when the caller has it, else the pinned entry pin.
static void unpacked(const ddt_tinfo *ti, int32_t pin, void *tmp, int64_t n, const MPI_Status *st, void *buf,
	int64_t count) {
	int64_t got = status_bytes(st);
	if (got > n) got = n;
	if (got > 0 && (ti ? ddt_unpack(ti, tmp, got, buf, count) : ddtgoUnpack(pin, tmp, got, buf, count, NULL)) >= 0)
		count_recv(got);
}

// recvd completes a receive into s (a staging buffer ddt unpacks, or the
// user's memory) whose first message arrived with return code rc and
// status *st: a pipelined message (pipe.c) is received whole and *st
// counts all of it. It returns the call's return code.
static int dir_recvd(const pl_sink *s, MPI_Comm comm, int rc, MPI_Status *st);

static int recvd(const pl_sink *s, MPI_Comm comm, int rc, MPI_Status *st) {
	if (s->kind == PL_DIR) return dir_recvd(s, comm, rc, st);
	if (rc != MPI_SUCCESS && rc != MPI_ERR_TRUNCATE) return rc;
	if (s->hole) ddt_rfix(s->mem, s->cap, st);
	int prc;
	int64_t done;
	if (rc == MPI_SUCCESS && pl_finish(s, comm, st, &prc, &done)) {
		if (done > 0) count_recv(done);
		else if (s->kind == PL_DDT) unpacked(&s->ti, 0, s->mem, s->cap, st, s->buf, s->count);
		rc = prc;
	} else if (s->kind == PL_DDT) {
		unpacked(&s->ti, 0, s->mem, s->cap, st, s->buf, s->count);
	}
	if (s->kind == PL_MPI) pl_unpack_mpi(s, status_bytes(st));
	pl_progress(0);
	return rc;
}

// ddtsink describes a staged receive of count instances of ti at buf into tmp (n bytes).
static pl_sink ddtsink(const ddt_tinfo *ti, void *tmp, int64_t n, void *buf, int64_t count) {
	pl_sink s;
	memset(&s, 0, sizeof s);
	s.kind = PL_DDT, s.mem = tmp, s.cap = n, s.ti = *ti, s.buf = buf, s.count = count;
	s.rtype = MPI_BYTE, s.rcount = n;
	return s;
}

// rsink describes a staged receive MPI makes into tmp: its type and count
// bound what MPI writes there (ddt_rtype); once posted, rposted frees a
// type of the receive's own.
static pl_sink rsink(const ddt_tinfo *ti, void *tmp, int64_t n, void *buf, int64_t count) {
	pl_sink s = ddtsink(ti, tmp, n, buf, count);
	pl_rstage(&s);
	return s;
}

// ---- direct messages (direct.c) ---------------------------------------------

// dirsink describes a receive of count instances of ti at buf that MPI
// takes in the user's memory through the type's direct type (n bytes).
static pl_sink dirsink(const ddt_tinfo *ti, int64_t n, void *buf, int64_t count) {
	pl_sink s;
	memset(&s, 0, sizeof s);
	s.kind = PL_DIR, s.cap = n, s.ti = *ti, s.buf = buf, s.count = count;
	return s;
}

// dir_recvd completes a direct receive: a message of exactly PL_L0 bytes
// may be packet 0 of a pipelined message (the sender's type was staged),
// whose trailer then lies in the user's memory at bytes PL_D0.. of the
// packed stream. ddt gathers those bytes to look; for a pipelined
// message it gathers packet 0 into a staging buffer and the receive goes
// on as a staged one (recvd with a PL_DDT sink: the rest arrives in
// packets and ddt unpacks it).
static int dir_recvd(const pl_sink *s, MPI_Comm comm, int rc, MPI_Status *st) {
	if (rc == MPI_SUCCESS && pl_candidate(s->cap) && status_bytes(st) == PL_L0) {
		char *tmp = ddt_buf_get(s->cap);
		if (tmp &&
			ddtgoPackRange(s->ti.pin, s->buf, s->count, PL_D0, tmp + PL_D0, PL_TRAILER) == PL_TRAILER &&
			pl_packet0(tmp, PL_L0) && ddtgoPackRange(s->ti.pin, s->buf, s->count, 0, tmp, PL_D0) == PL_D0) {
			pl_sink d = ddtsink(&s->ti, tmp, s->cap, s->buf, s->count);
			rc = recvd(&d, comm, rc, st);
		}
		ddt_buf_put(tmp, s->cap);
	}
	pl_progress(0);
	return rc;
}

// dir_done completes a direct receive of capacity n (pl_candidate(n))
// whose message arrived with return code rc and status *st, as recvd with
// dirsink's sink, but builds the sink only for a message of exactly PL_L0
// bytes, the one size dir_recvd looks at: the rest of the receives pay
// one status look-up (the sink's copy of the type record cost a few
// percent of a 98 KB round trip, issue 19).
static int dir_done(const ddt_tinfo *ti, int64_t n, void *buf, int64_t count, MPI_Comm comm, int rc,
	MPI_Status *st) {
	if (rc == MPI_SUCCESS && status_bytes(st) == PL_L0) {
		pl_sink s = dirsink(ti, n, buf, count);
		return recvd(&s, comm, rc, st);
	}
	pl_progress(0);
	return rc;
}

static int small(int64_t n) { return n <= INT_MAX; }
static int intra(MPI_Comm comm, int *rank, int *size);

// ---- pending requests -----------------------------------------------------

typedef struct pend {
	uintptr_t key;
	struct pend *next;
	int recv, persistent, active;
	void *tmp;
	int64_t n;
	void *buf;
	int64_t count;
	int32_t pin;
	pl_sink sink;  // a receive: where its bytes land (sink.kind 0: a send)
	MPI_Comm comm; // a receive's communicator (MPI_COMM_NULL: unknown)
	int ovr;       // a receive served from a held message: its status
	int osource, otag;
	int64_t on;
} pend;

#define NBUCKET 4096
static pend *pbuckets[NBUCKET];
static pthread_mutex_t plock2 = PTHREAD_MUTEX_INITIALIZER;
static atomic_long npending;

static size_t pslot(uintptr_t k) { return (size_t)(((uint64_t)k * 0x9E3779B97F4A7C15ull) >> 40) & (NBUCKET - 1); }

static void preg(MPI_Request r, pend *p) {
	p->key = DDT_H(r);
	p->next = NULL;
	pthread_mutex_lock(&plock2);
	pend **q = &pbuckets[pslot(p->key)];
	while (*q) q = &(*q)->next; // after older requests under a reused handle
	*q = p;
	atomic_fetch_add(&npending, 1);
	pthread_mutex_unlock(&plock2);
}

// pget finds the oldest pending operation of r; take removes it.
static pend *pget(MPI_Request r, int take) {
	uintptr_t k = DDT_H(r);
	pend *p = NULL;
	pthread_mutex_lock(&plock2);
	for (pend **q = &pbuckets[pslot(k)]; *q; q = &(*q)->next) {
		if ((*q)->key == k) {
			p = *q;
			if (take) {
				*q = p->next;
				atomic_fetch_sub(&npending, 1);
			}
			break;
		}
	}
	pthread_mutex_unlock(&plock2);
	return p;
}

static void prelease(pend *p) {
	ddt_buf_put(p->tmp, p->n);
	if (p->pin >= 0) ddtgoUnpin(p->pin);
	free(p);
}

static pend *pnew(int recv, int persistent, const ddt_tinfo *ti, void *tmp, int64_t n, const void *buf,
	int64_t count) {
	pend *p = calloc(1, sizeof *p);
	if (!p) return NULL;
	p->recv = recv, p->persistent = persistent, p->active = !persistent;
	p->tmp = tmp, p->n = n, p->buf = (void *)buf, p->count = count;
	p->comm = MPI_COMM_NULL;
	p->pin = ddtgoPin(ti->pin);
	if (p->pin < 0) {
		free(p);
		return NULL;
	}
	if (recv) {
		p->sink = tmp ? rsink(ti, tmp, n, (void *)buf, count) : ddtsink(ti, tmp, n, (void *)buf, count);
		p->sink.ti.pin = p->pin;
		p->sink.ti.key = 0; // the handle may be freed and reused while pending
	}
	return p;
}

// prawnew records a receive that MPI takes into the user's memory and that
// may get a pipelined message (sink from pl_raw).
static pend *prawnew(int persistent, const pl_sink *sink, MPI_Comm comm) {
	pend *p = calloc(1, sizeof *p);
	if (!p) return NULL;
	p->recv = 1, p->persistent = persistent, p->active = !persistent;
	p->pin = -1;
	p->sink = *sink;
	p->sink.rown = 0; // the caller frees the receive's type once posted
	p->comm = comm;
	if (sink->kind == PL_MPI) p->tmp = sink->mem, p->n = sink->cap; // released with the record
	return p;
}

// finish completes p's operation, which MPI completed with status st and
// error err (a truncated receive is unpacked only where a blocking one is:
// recvd).
static void finish(pend *p, MPI_Status *st, int err) {
	if (p->recv && p->active) {
		int cancelled = 0;
		PMPI_Test_cancelled(st, &cancelled);
		if (!cancelled) recvd(&p->sink, p->comm, err, st);
		if (p->ovr) {
			st->MPI_SOURCE = p->osource, st->MPI_TAG = p->otag;
			PMPI_Status_set_elements_x(st, MPI_BYTE, p->on);
		}
	}
	p->active = 0;
}

// A completion call claims the pending records of its requests before it
// calls MPI: while a request is active its handle cannot be reused, so the
// record found is the request's own (after MPI completes a request, another
// thread may get the same handle for a new one). Records of persistent
// requests stay in the table (their handles live until freed).
static pend *claim(MPI_Request r) {
	if (r == MPI_REQUEST_NULL) return NULL;
	pend *p = pget(r, 0);
	if (p && !p->persistent) p = pget(r, 1);
	return p;
}

// settle finishes the claimed record p of request old once MPI completed
// it (completed, status st; now is the handle MPI left, MPI_REQUEST_NULL
// for a freed request), or puts it back.
static void settle(pend *p, MPI_Request old, MPI_Request now, int completed, MPI_Status *st, int err) {
	if (!p) return;
	if (!p->persistent) {
		if (completed && now == MPI_REQUEST_NULL) {
			finish(p, st, err);
			prelease(p);
		} else {
			preg(old, p);
		}
	} else {
		if (completed && p->active) finish(p, st, err);
		if (now == MPI_REQUEST_NULL && pget(old, 0) == p && pget(old, 1) == p) {
			// Open MPI frees a persistent request whose receive failed
			// (a truncation): its handle is gone, so is the record
			prelease(p);
		}
	}
}

static int tracking(void) {
	return ddt_on && (atomic_load_explicit(&npending, memory_order_relaxed) > 0 ||
				 atomic_load_explicit(&isr_live, memory_order_relaxed) > 0);
}

// orphans: requests freed by the user while ddt still owes them work.
typedef struct orphan {
	MPI_Request r;
	pend *p;
	struct orphan *next;
} orphan;
static orphan *orphans;
static atomic_long norphans;
static pthread_mutex_t olock = PTHREAD_MUTEX_INITIALIZER;

static void reap(int wait) {
	pl_progress(0);
	isr_poll_all(wait);
	if (atomic_load(&norphans) == 0) return;
	pthread_mutex_lock(&olock);
	for (orphan **q = &orphans; *q;) {
		orphan *o = *q;
		MPI_Status st;
		int flag = 0;
		if (wait) {
			PMPI_Wait(&o->r, &st);
			flag = 1;
		} else {
			PMPI_Test(&o->r, &flag, &st);
		}
		if (!flag) {
			q = &o->next;
			continue;
		}
		o->p->active = 1;
		finish(o->p, &st, MPI_SUCCESS);
		if (o->r != MPI_REQUEST_NULL) PMPI_Request_free(&o->r);
		prelease(o->p);
		*q = o->next;
		free(o);
		atomic_fetch_sub(&norphans, 1);
	}
	pthread_mutex_unlock(&olock);
}

void ddt_reap(void) { reap(1); }

int ddt_pending(void) { return atomic_load(&npending) > 0 || atomic_load(&norphans) > 0; }

int MPI_Request_free(MPI_Request *request) {
	if (!tracking() || !request) return PMPI_Request_free(request);
	pend *p = pget(*request, 1);
	if (!p) return PMPI_Request_free(request);
	if (!p->active) {
		prelease(p);
		return PMPI_Request_free(request);
	}
	orphan *o = malloc(sizeof *o);
	if (!o) { // cannot keep it: give up the unpack, keep memory safe
		preg(*request, p);
		return PMPI_Request_free(request);
	}
	o->r = *request, o->p = p;
	pthread_mutex_lock(&olock);
	o->next = orphans;
	orphans = o;
	atomic_fetch_add(&norphans, 1);
	pthread_mutex_unlock(&olock);
	*request = MPI_REQUEST_NULL;
	return MPI_SUCCESS;
}

// ---- completion -----------------------------------------------------------

// The blocking completion calls poll (the Test forms) while one of their
// requests is an MPI_Isendrecv that the library completes (isendrecv.c).
#define POLL(TEST)                                                      \
	for (;;) {                                                          \
		int f_ = 0, rc_ = TEST;                                         \
		if (rc_ != MPI_SUCCESS || f_) return rc_;                       \
	}

int MPI_Wait(MPI_Request *request, MPI_Status *status) {
	if (!tracking() || !request) return PMPI_Wait(request, status);
	if (isr_poll(1, request)) POLL(MPI_Test(request, &f_, status))
	MPI_Request old = *request;
	pend *p = claim(old);
	MPI_Status st;
	int rc = PMPI_Wait(request, &st);
	settle(p, old, *request, rc == MPI_SUCCESS || *request == MPI_REQUEST_NULL, &st, rc);
	ddt_status_out(status, &st);
	return rc;
}

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status) {
	if (!tracking() || !request || !flag) return PMPI_Test(request, flag, status);
	isr_poll(1, request);
	MPI_Request old = *request;
	pend *p = claim(old);
	MPI_Status st;
	*flag = 0;
	int rc = PMPI_Test(request, flag, &st);
	settle(p, old, *request, *flag, &st, rc);
	if (*flag) ddt_status_out(status, &st);
	return rc;
}

// claims holds the requests of an array call and their claimed records.
typedef struct {
	int n;
	MPI_Request obuf[16], *old;
	pend *pbuf[16], **p;
	char dbuf[16], *done;
} claims;

static int claim_all(claims *c, int n, MPI_Request reqs[]) {
	c->n = n;
	c->old = n <= 16 ? c->obuf : malloc(sizeof(MPI_Request) * (size_t)n);
	c->p = n <= 16 ? c->pbuf : malloc(sizeof(pend *) * (size_t)n);
	c->done = n <= 16 ? c->dbuf : malloc((size_t)n);
	if (!c->old || !c->p || !c->done) {
		if (c->old != c->obuf) free(c->old);
		if (c->p != c->pbuf) free(c->p);
		if (c->done != c->dbuf) free(c->done);
		return 0;
	}
	for (int i = 0; i < n; i++) {
		c->old[i] = reqs[i];
		c->p[i] = claim(reqs[i]);
		c->done[i] = 0;
	}
	return 1;
}

// settle_one settles request i as completed with status st; rc is the
// call's return code (MPI_ERR_IN_STATUS: st has the request's error).
static void settle_one(claims *c, MPI_Request reqs[], int i, MPI_Status *st, int rc) {
	if (i < 0 || i >= c->n || c->done[i]) return;
	settle(c->p[i], c->old[i], reqs[i], 1, st, rc == MPI_ERR_IN_STATUS ? st->MPI_ERROR : rc);
	c->done[i] = 1;
}

// settle_rest puts back the records of the requests not completed, and
// releases the arrays.
static void settle_rest(claims *c, MPI_Request reqs[]) {
	for (int i = 0; i < c->n; i++)
		if (!c->done[i]) settle(c->p[i], c->old[i], reqs[i], 0, NULL, MPI_SUCCESS);
	if (c->old != c->obuf) free(c->old);
	if (c->p != c->pbuf) free(c->p);
	if (c->done != c->dbuf) free(c->done);
}

int MPI_Waitany(int count, MPI_Request reqs[], int *index, MPI_Status *status) {
	claims c;
	if (tracking() && count > 0 && reqs && index && isr_poll(count, reqs))
		POLL(MPI_Testany(count, reqs, index, &f_, status))
	if (!tracking() || count <= 0 || !reqs || !index || !claim_all(&c, count, reqs))
		return PMPI_Waitany(count, reqs, index, status);
	MPI_Status st;
	int rc = PMPI_Waitany(count, reqs, index, &st);
	if (*index != MPI_UNDEFINED) settle_one(&c, reqs, *index, &st, rc);
	settle_rest(&c, reqs);
	ddt_status_out(status, &st);
	return rc;
}

int MPI_Testany(int count, MPI_Request reqs[], int *index, int *flag, MPI_Status *status) {
	claims c;
	if (tracking() && count > 0 && reqs) isr_poll(count, reqs);
	if (!tracking() || count <= 0 || !reqs || !index || !flag || !claim_all(&c, count, reqs))
		return PMPI_Testany(count, reqs, index, flag, status);
	MPI_Status st;
	*flag = 0;
	int rc = PMPI_Testany(count, reqs, index, flag, &st);
	if (*flag && *index != MPI_UNDEFINED) settle_one(&c, reqs, *index, &st, rc);
	settle_rest(&c, reqs);
	if (*flag) ddt_status_out(status, &st);
	return rc;
}

// MPI_Request_get_status: a receive that MPI reports complete is unpacked
// now (the request stays; its completion call will not unpack again).
int MPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status) {
	if (!tracking() || !flag) return PMPI_Request_get_status(request, flag, status);
	isr_poll(1, &request);
	MPI_Status st;
	*flag = 0;
	int rc = PMPI_Request_get_status(request, flag, &st);
	if (rc == MPI_SUCCESS && *flag) {
		pend *p = pget(request, 0);
		if (p && p->recv && p->active) finish(p, &st, MPI_SUCCESS);
	}
	if (*flag) ddt_status_out(status, &st);
	return rc;
}

static int all(int test, int count, MPI_Request reqs[], int *flag, MPI_Status statuses[]) {
	claims c;
	MPI_Status *sts = statuses == MPI_STATUSES_IGNORE ? malloc(sizeof(MPI_Status) * (size_t)count) : statuses;
	if (!sts || !claim_all(&c, count, reqs)) {
		if (sts != statuses) free(sts);
		return test ? PMPI_Testall(count, reqs, flag, statuses) : PMPI_Waitall(count, reqs, statuses);
	}
	int f = 1;
	int rc = test ? PMPI_Testall(count, reqs, &f, sts) : PMPI_Waitall(count, reqs, sts);
	if (f && (rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS)) {
		for (int i = 0; i < count; i++) {
			if (rc == MPI_ERR_IN_STATUS && sts[i].MPI_ERROR == MPI_ERR_PENDING) continue;
			settle_one(&c, reqs, i, &sts[i], rc);
		}
	}
	settle_rest(&c, reqs);
	if (sts != statuses) free(sts);
	if (test) *flag = f;
	return rc;
}

int MPI_Waitall(int count, MPI_Request reqs[], MPI_Status statuses[]) {
	if (!tracking() || count <= 0 || !reqs) return PMPI_Waitall(count, reqs, statuses);
	if (isr_poll(count, reqs)) POLL(MPI_Testall(count, reqs, &f_, statuses))
	return all(0, count, reqs, NULL, statuses);
}

int MPI_Testall(int count, MPI_Request reqs[], int *flag, MPI_Status statuses[]) {
	if (!tracking() || count <= 0 || !reqs || !flag) return PMPI_Testall(count, reqs, flag, statuses);
	isr_poll(count, reqs);
	return all(1, count, reqs, flag, statuses);
}

static int some(int test, int incount, MPI_Request reqs[], int *outcount, int indices[], MPI_Status statuses[]) {
	claims c;
	MPI_Status *sts = statuses == MPI_STATUSES_IGNORE ? malloc(sizeof(MPI_Status) * (size_t)incount) : statuses;
	if (!sts || !claim_all(&c, incount, reqs)) {
		if (sts != statuses) free(sts);
		return test ? PMPI_Testsome(incount, reqs, outcount, indices, statuses)
			    : PMPI_Waitsome(incount, reqs, outcount, indices, statuses);
	}
	int rc = test ? PMPI_Testsome(incount, reqs, outcount, indices, sts)
		      : PMPI_Waitsome(incount, reqs, outcount, indices, sts);
	if ((rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS) && *outcount != MPI_UNDEFINED)
		for (int k = 0; k < *outcount; k++) settle_one(&c, reqs, indices[k], &sts[k], rc);
	settle_rest(&c, reqs);
	if (sts != statuses) free(sts);
	return rc;
}

int MPI_Waitsome(int incount, MPI_Request reqs[], int *outcount, int indices[], MPI_Status statuses[]) {
	if (!tracking() || incount <= 0 || !reqs || !outcount || !indices)
		return PMPI_Waitsome(incount, reqs, outcount, indices, statuses);
	if (isr_poll(incount, reqs))
		for (;;) {
			int rc = MPI_Testsome(incount, reqs, outcount, indices, statuses);
			if (rc != MPI_SUCCESS || *outcount != 0) return rc;
		}
	return some(0, incount, reqs, outcount, indices, statuses);
}

int MPI_Testsome(int incount, MPI_Request reqs[], int *outcount, int indices[], MPI_Status statuses[]) {
	if (!tracking() || incount <= 0 || !reqs || !outcount || !indices)
		return PMPI_Testsome(incount, reqs, outcount, indices, statuses);
	isr_poll(incount, reqs);
	return some(1, incount, reqs, outcount, indices, statuses);
}

// ---- point-to-point -------------------------------------------------------
//
// A message of a served, non-contiguous type is packed by ddt and travels as
// bytes; one of more than DDT_MPI_PIPELINE packed bytes travels in packets
// (pipe.c; MODE is pl_send's mode, 0 for the buffered sends, which are
// never pipelined). Every receive that could get a pipelined message
// (pl_candidate, pl_raw) completes through recvd.

// deliver gives the held message h (pipe.c) to a receive of count
// instances of datatype at buf, and releases it.
static int deliver(held *h, void *buf, int64_t count, MPI_Datatype datatype, MPI_Comm comm, MPI_Status *status) {
	ddt_tinfo ti;
	int64_t n, cap = 0;
	MPI_Count size = 0, lb, ext, tlb, text;
	if (ddt_staged(datatype, count, &ti, &n)) {
		cap = n;
		int64_t k = h->n < n ? h->n : n;
		if (k > 0 && ddt_unpack(&ti, h->data, k, buf, count) >= 0) count_recv(k);
	} else if (count > 0 && PMPI_Type_size_x(datatype, &size) == MPI_SUCCESS && size > 0 &&
		   size != MPI_UNDEFINED && count <= INT64_MAX / size) {
		cap = count * size;
		int64_t k = h->n < cap ? h->n : cap;
		if (PMPI_Type_get_true_extent_x(datatype, &tlb, &text) == MPI_SUCCESS && text == size &&
			(count == 1 || (PMPI_Type_get_extent_x(datatype, &lb, &ext) == MPI_SUCCESS && ext == size))) {
			memcpy((char *)buf + tlb, h->data, (size_t)k);
		} else {
			int pos = 0;
			PMPI_Unpack(h->data, (int)k, &pos, buf, (int)count, datatype, comm);
		}
	}
	MPI_Status st;
	pl_hstatus(h, &st);
	int rc = MPI_SUCCESS;
	if (h->n > cap) {
		PMPI_Status_set_elements_x(&st, MPI_BYTE, cap);
		PMPI_Comm_call_errhandler(comm, MPI_ERR_TRUNCATE);
		rc = MPI_ERR_TRUNCATE;
	}
	ddt_status_out(status, &st);
	pl_release(h);
	return rc;
}

// ideliver gives the held message h to a non-blocking receive: the
// request, a receive from MPI_PROC_NULL, is complete at once and its
// completion call reports h's status.
static int ideliver(held *h, void *buf, int64_t count, MPI_Datatype datatype, MPI_Comm comm, MPI_Request *request) {
	pend *p = calloc(1, sizeof *p);
	MPI_Status st;
	if (!p) return -1;
	int rc = deliver(h, buf, count, datatype, comm, &st);
	p->recv = 1, p->active = 1, p->pin = -1, p->comm = MPI_COMM_NULL;
	p->ovr = 1, p->osource = st.MPI_SOURCE, p->otag = st.MPI_TAG;
	MPI_Count c = 0;
	PMPI_Get_elements_x(&st, MPI_BYTE, &c);
	p->on = c;
	int rc2 = PMPI_Irecv(NULL, 0, MPI_BYTE, MPI_PROC_NULL, 0, MPI_COMM_SELF, request);
	if (rc2 != MPI_SUCCESS) {
		free(p);
		return rc2;
	}
	preg(*request, p);
	return rc;
}

#define SENDLIKE(NAME, MODE)                                                                            \
	int MPI_##NAME(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) { \
		const ddt_tinfo *tp;                                                                                   \
		int64_t n;                                                                                      \
		void *tmp;                                                                                      \
		if ((tp = ddt_staged_ref(datatype, count, &n))) {                                                     \
			int rc;                                                                                     \
			MPI_Datatype dt;                                                                            \
			if (ddt_direct(tp, n, datatype, buf, count, &dt)) {                                                                 \
				DDT_COUNT(direct, 1);                                                                   \
				return PMPI_##NAME(buf, count, dt, dest, tag, comm);                                    \
			}                                                                                           \
			if (MODE && pl_send(MODE, tp, buf, count, n, dest, tag, comm, NULL, NULL, &rc)) return rc; \
			if (small(n) && (tmp = packed(tp, buf, count, n))) {                                       \
				rc = PMPI_##NAME(tmp, (int)n, MPI_BYTE, dest, tag, comm);                               \
				ddt_buf_put(tmp, n);                                                                    \
				return rc;                                                                              \
			}                                                                                           \
		}                                                                                               \
		return PMPI_##NAME(buf, count, datatype, dest, tag, comm);                                      \
	}
SENDLIKE(Send, 'S')
SENDLIKE(Ssend, 's')
SENDLIKE(Rsend, 'r')
SENDLIKE(Bsend, 0)

// isend_pl sends a pipelined message for a non-blocking send: the request
// is packet 0's, whose staging its record releases.
static int isend_pl(int mode, const ddt_tinfo *ti, const void *buf, int64_t count, int64_t n, int dest, int tag,
	MPI_Comm comm, MPI_Request *request, int *rc) {
	if (!mode || pl_comm == MPI_COMM_NULL || n <= PL_L0) return 0;
	pend *p = pnew(0, 0, ti, NULL, PL_L0, buf, count);
	if (!p) return 0;
	void *p0 = NULL;
	if (!pl_send(mode, ti, buf, count, n, dest, tag, comm, request, &p0, rc)) {
		prelease(p);
		return 0;
	}
	p->tmp = p0;
	if (*rc == MPI_SUCCESS) preg(*request, p);
	else prelease(p);
	return 1;
}

#define ISENDLIKE(NAME, MODE)                                                                              \
	int MPI_##NAME(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,     \
		MPI_Request *request) {                                                                            \
		const ddt_tinfo *tp;                                                                                      \
		int64_t n;                                                                                         \
		void *tmp;                                                                                         \
		reap(0);                                                                                           \
		if (request && (tp = ddt_staged_ref(datatype, count, &n))) {                                             \
			int rc;                                                                                        \
			MPI_Datatype dt;                                                                               \
			if (ddt_direct(tp, n, datatype, buf, count, &dt)) {                                                                    \
				DDT_COUNT(direct, 1);                                                                      \
				return PMPI_##NAME(buf, count, dt, dest, tag, comm, request);                              \
			}                                                                                              \
			if (isend_pl(MODE, tp, buf, count, n, dest, tag, comm, request, &rc)) return rc;              \
			if (small(n) && (tmp = packed(tp, buf, count, n))) {                                          \
				pend *p = pnew(0, 0, tp, tmp, n, buf, count);                                             \
				if (p) {                                                                                   \
					rc = PMPI_##NAME(tmp, (int)n, MPI_BYTE, dest, tag, comm, request);                     \
					if (rc == MPI_SUCCESS) preg(*request, p);                                              \
					else prelease(p);                                                                      \
					return rc;                                                                             \
				}                                                                                          \
				ddt_buf_put(tmp, n);                                                                       \
			}                                                                                              \
		}                                                                                                  \
		return PMPI_##NAME(buf, count, datatype, dest, tag, comm, request);                                \
	}
ISENDLIKE(Isend, 'S')
ISENDLIKE(Issend, 's')
ISENDLIKE(Irsend, 'r')
ISENDLIKE(Ibsend, 0)

// recv_dir is a direct receive (direct.c) of count instances of ti (n bytes) as dt.
static int recv_dir(const ddt_tinfo *ti, int64_t n, void *buf, int64_t count, MPI_Datatype dt, int source, int tag,
	MPI_Comm comm, MPI_Status *status, int large) {
	MPI_Status st;
	int rc;
	DDT_COUNT(direct, 1);
#if MPI_VERSION >= 4
	if (large) rc = PMPI_Recv_c(buf, count, dt, source, tag, comm, &st);
	else
#endif
		rc = PMPI_Recv(buf, (int)count, dt, source, tag, comm, &st);
	if (pl_candidate(n)) rc = dir_done(ti, n, buf, count, comm, rc, &st);
	ddt_status_out(status, &st);
	return rc;
}

// irecv_dir posts a direct receive; one that could get packet 0 of a
// pipelined message is recorded for its completion call (dir_recvd). It
// returns 0 when it did nothing.
static int irecv_dir(const ddt_tinfo *ti, int64_t n, void *buf, int64_t count, MPI_Datatype dt, int source, int tag,
	MPI_Comm comm, MPI_Request *request, int large, int *rc) {
	pend *p = NULL;
	if (pl_candidate(n)) {
		if (!(p = pnew(1, 0, ti, NULL, 0, buf, count))) return 0;
		p->sink.kind = PL_DIR, p->sink.mem = NULL, p->sink.cap = n;
		p->comm = comm;
	}
	DDT_COUNT(direct, 1);
#if MPI_VERSION >= 4
	if (large) *rc = PMPI_Irecv_c(buf, count, dt, source, tag, comm, request);
	else
#endif
		*rc = PMPI_Irecv(buf, (int)count, dt, source, tag, comm, request);
	if (p) {
		if (*rc == MPI_SUCCESS) preg(*request, p);
		else prelease(p);
	}
	return 1;
}

// recv_raw receives into the user's memory with MPI (the type is not
// staged), through recvd when a pipelined message could arrive.
static int recv_raw(void *buf, int64_t count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
	MPI_Status *status, int large) {
	pl_sink s;
	if (!pl_raw(buf, count, datatype, &s)) {
#if MPI_VERSION >= 4
		if (large) return PMPI_Recv_c(buf, count, datatype, source, tag, comm, status);
#endif
		return PMPI_Recv(buf, (int)count, datatype, source, tag, comm, status);
	}
	MPI_Status st;
	int rc;
	void *b = pl_rbuf(&s, buf);
	int64_t c = pl_rcount(&s, count);
	MPI_Datatype t = pl_rtype(&s, datatype);
#if MPI_VERSION >= 4
	if (large) rc = PMPI_Recv_c(b, c, t, source, tag, comm, &st);
	else
#endif
		rc = PMPI_Recv(b, (int)c, t, source, tag, comm, &st);
	rc = recvd(&s, comm, rc, &st);
	pl_sink_free(&s);
	ddt_status_out(status, &st);
	return rc;
}

// irecv_raw is recv_raw's non-blocking form: a receive that could get a
// pipelined message is recorded for its completion call.
static int irecv_raw(void *buf, int64_t count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
	MPI_Request *request, int large) {
	pl_sink s;
	pend *p = NULL;
	if (request && pl_raw(buf, count, datatype, &s) && !(p = prawnew(0, &s, comm))) pl_sink_free(&s);
	int rc;
	void *b = p ? pl_rbuf(&s, buf) : buf;
	int64_t c = p ? pl_rcount(&s, count) : count;
	MPI_Datatype t = p ? pl_rtype(&s, datatype) : datatype;
#if MPI_VERSION >= 4
	if (large) rc = PMPI_Irecv_c(b, c, t, source, tag, comm, request);
	else
#endif
		rc = PMPI_Irecv(b, (int)c, t, source, tag, comm, request);
	if (p) pl_rposted(&s);
	if (p) {
		if (rc == MPI_SUCCESS) preg(*request, p);
		else prelease(p);
	}
	return rc;
}

#if MPI_VERSION >= 4
// The large-count forms (MPI-4): the staged bytes may exceed 2^31-1.
#define SENDLIKE_C(NAME, MODE)                                                                             \
	int MPI_##NAME##_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,          \
		MPI_Comm comm) {                                                                                    \
		ddt_tinfo ti;                                                                                       \
		int64_t n;                                                                                          \
		void *tmp;                                                                                          \
		if (ddt_staged(datatype, count, &ti, &n)) {                                                         \
			int rc;                                                                                         \
			MPI_Datatype dt;                                                                                \
			if (ddt_direct(&ti, n, datatype, buf, count, &dt)) {                                                                     \
				DDT_COUNT(direct, 1);                                                                       \
				return PMPI_##NAME##_c(buf, count, dt, dest, tag, comm);                                    \
			}                                                                                               \
			if (MODE && pl_send(MODE, &ti, buf, count, n, dest, tag, comm, NULL, NULL, &rc)) return rc;     \
			if ((tmp = packed(&ti, buf, count, n))) {                                                       \
				rc = PMPI_##NAME##_c(tmp, n, MPI_BYTE, dest, tag, comm);                                    \
				ddt_buf_put(tmp, n);                                                                        \
				return rc;                                                                                  \
			}                                                                                               \
		}                                                                                                   \
		return PMPI_##NAME##_c(buf, count, datatype, dest, tag, comm);                                      \
	}
SENDLIKE_C(Send, 'S')
SENDLIKE_C(Ssend, 's')
SENDLIKE_C(Rsend, 'r')
SENDLIKE_C(Bsend, 0)

#define ISENDLIKE_C(NAME, MODE)                                                                            \
	int MPI_##NAME##_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,          \
		MPI_Comm comm, MPI_Request *request) {                                                              \
		ddt_tinfo ti;                                                                                       \
		int64_t n;                                                                                          \
		void *tmp;                                                                                          \
		reap(0);                                                                                            \
		if (request && ddt_staged(datatype, count, &ti, &n)) {                                              \
			int rc;                                                                                         \
			MPI_Datatype dt;                                                                                \
			if (ddt_direct(&ti, n, datatype, buf, count, &dt)) {                                                                     \
				DDT_COUNT(direct, 1);                                                                       \
				return PMPI_##NAME##_c(buf, count, dt, dest, tag, comm, request);                           \
			}                                                                                               \
			if (isend_pl(MODE, &ti, buf, count, n, dest, tag, comm, request, &rc)) return rc;               \
			if ((tmp = packed(&ti, buf, count, n))) {                                                       \
				pend *p = pnew(0, 0, &ti, tmp, n, buf, count);                                              \
				if (p) {                                                                                    \
					rc = PMPI_##NAME##_c(tmp, n, MPI_BYTE, dest, tag, comm, request);                       \
					if (rc == MPI_SUCCESS) preg(*request, p);                                               \
					else prelease(p);                                                                       \
					return rc;                                                                              \
				}                                                                                           \
				ddt_buf_put(tmp, n);                                                                        \
			}                                                                                               \
		}                                                                                                   \
		return PMPI_##NAME##_c(buf, count, datatype, dest, tag, comm, request);                             \
	}
ISENDLIKE_C(Isend, 'S')
ISENDLIKE_C(Issend, 's')
ISENDLIKE_C(Irsend, 'r')
ISENDLIKE_C(Ibsend, 0)

int MPI_Recv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
	MPI_Status *status) {
	ddt_tinfo ti;
	int64_t n;
	void *tmp;
	held *h;
	MPI_Datatype dt;
	if (pl_holding() && (h = pl_take(comm, source, tag, 1))) return deliver(h, buf, count, datatype, comm, status);
	int staged = ddt_staged(datatype, count, &ti, &n);
	if (staged && ddt_direct(&ti, n, datatype, buf, count, &dt))
		return recv_dir(&ti, n, buf, count, dt, source, tag, comm, status, 1);
	if (staged && (tmp = ddt_buf_get(n))) {
		MPI_Status st;
		pl_sink s = rsink(&ti, tmp, n, buf, count);
		int rc = PMPI_Recv_c(tmp, s.rcount, s.rtype, source, tag, comm, &st);
		pl_rposted(&s);
		rc = recvd(&s, comm, rc, &st);
		ddt_buf_put(tmp, n);
		ddt_status_out(status, &st);
		return rc;
	}
	return recv_raw(buf, count, datatype, source, tag, comm, status, 1);
}

int MPI_Irecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
	MPI_Request *request) {
	ddt_tinfo ti;
	int64_t n;
	void *tmp;
	reap(0);
	held *h;
	if (request && pl_holding() && (h = pl_take(comm, source, tag, 1))) {
		int rc = ideliver(h, buf, count, datatype, comm, request);
		if (rc != -1) return rc;
		// out of memory: deliver in a blocking way instead
		return deliver(h, buf, count, datatype, comm, MPI_STATUS_IGNORE) == MPI_SUCCESS
			? PMPI_Irecv(NULL, 0, MPI_BYTE, MPI_PROC_NULL, 0, MPI_COMM_SELF, request)
			: MPI_ERR_TRUNCATE;
	}
	MPI_Datatype dt;
	int drc;
	int staged = ddt_staged(datatype, count, &ti, &n);
	if (request && staged && ddt_direct(&ti, n, datatype, buf, count, &dt) &&
		irecv_dir(&ti, n, buf, count, dt, source, tag, comm, request, 1, &drc))
		return drc;
	if (request && staged && (tmp = ddt_buf_get(n))) {
		pend *p = pnew(1, 0, &ti, tmp, n, buf, count);
		if (p) {
			p->comm = comm;
			int rc = PMPI_Irecv_c(tmp, p->sink.rcount, p->sink.rtype, source, tag, comm, request);
			pl_rposted(&p->sink);
			if (rc == MPI_SUCCESS) preg(*request, p);
			else prelease(p);
			return rc;
		}
		ddt_buf_put(tmp, n);
	}
	return irecv_raw(buf, count, datatype, source, tag, comm, request, 1);
}

int MPI_Bcast_c(void *buf, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm) {
	ddt_tinfo ti;
	int64_t n;
	int rank, size;
	void *tmp;
	if (ddt_staged(datatype, count, &ti, &n) && intra(comm, &rank, &size) && (tmp = ddt_buf_get(n))) {
		if (rank == root && ddt_pack(&ti, buf, count, tmp, n) != n) {
			ddt_buf_put(tmp, n);
			return PMPI_Bcast_c(buf, count, datatype, root, comm);
		}
		int rc = PMPI_Bcast_c(tmp, n, MPI_BYTE, root, comm);
		if (rank == root) count_send(n);
		else if (rc == MPI_SUCCESS && ddt_unpack(&ti, tmp, n, buf, count) == n) count_recv(n);
		ddt_buf_put(tmp, n);
		return rc;
	}
	return PMPI_Bcast_c(buf, count, datatype, root, comm);
}
#endif

int MPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status) {
	const ddt_tinfo *tp;
	int64_t n;
	void *tmp;
	held *h;
	MPI_Datatype dt;
	if (pl_holding() && (h = pl_take(comm, source, tag, 1))) return deliver(h, buf, count, datatype, comm, status);
	int staged = (tp = ddt_staged_ref(datatype, count, &n)) != NULL;
	if (staged && ddt_direct(tp, n, datatype, buf, count, &dt))
		return recv_dir(tp, n, buf, count, dt, source, tag, comm, status, 0);
	if (staged && small(n) && (tmp = ddt_buf_get(n))) {
		MPI_Status st;
		pl_sink s = rsink(tp, tmp, n, buf, count);
		int rc = PMPI_Recv(tmp, (int)s.rcount, s.rtype, source, tag, comm, &st);
		pl_rposted(&s);
		rc = recvd(&s, comm, rc, &st);
		ddt_buf_put(tmp, n);
		ddt_status_out(status, &st);
		return rc;
	}
	return recv_raw(buf, count, datatype, source, tag, comm, status, 0);
}

int MPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
	MPI_Request *request) {
	const ddt_tinfo *tp;
	int64_t n;
	void *tmp;
	reap(0);
	held *h;
	if (request && pl_holding() && (h = pl_take(comm, source, tag, 1))) {
		int rc = ideliver(h, buf, count, datatype, comm, request);
		if (rc != -1) return rc;
		// out of memory: deliver in a blocking way instead
		return deliver(h, buf, count, datatype, comm, MPI_STATUS_IGNORE) == MPI_SUCCESS
			? PMPI_Irecv(NULL, 0, MPI_BYTE, MPI_PROC_NULL, 0, MPI_COMM_SELF, request)
			: MPI_ERR_TRUNCATE;
	}
	MPI_Datatype dt;
	int drc;
	int staged = (tp = ddt_staged_ref(datatype, count, &n)) != NULL;
	if (request && staged && ddt_direct(tp, n, datatype, buf, count, &dt) &&
		irecv_dir(tp, n, buf, count, dt, source, tag, comm, request, 0, &drc))
		return drc;
	if (request && staged && small(n) && (tmp = ddt_buf_get(n))) {
		pend *p = pnew(1, 0, tp, tmp, n, buf, count);
		if (p) {
			p->comm = comm;
			int rc = PMPI_Irecv(tmp, (int)p->sink.rcount, p->sink.rtype, source, tag, comm, request);
			pl_rposted(&p->sink);
			if (rc == MPI_SUCCESS) preg(*request, p);
			else prelease(p);
			return rc;
		}
		ddt_buf_put(tmp, n);
	}
	return irecv_raw(buf, count, datatype, source, tag, comm, request, 0);
}

int MPI_Mrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Status *status) {
	ddt_tinfo ti;
	int64_t n;
	void *tmp;
	pl_sink s;
	MPI_Status st;
	held *h;
	if (message && pl_holding() && (h = pl_mheld(*message))) {
		MPI_Comm c = h->comm;
		*message = MPI_MESSAGE_NULL;
		return deliver(h, buf, count, datatype, c, status);
	}
	int staged = ddt_staged(datatype, count, &ti, &n);
	MPI_Datatype dt;
	if (staged && ddt_direct(&ti, n, datatype, buf, count, &dt)) {
		// direct (direct.c): a message of PL_L0 bytes may be packet 0 of a
		// pipelined one, which dir_recvd gathers from the user's memory
		DDT_COUNT(direct, 1);
		int rc = PMPI_Mrecv(buf, count, dt, message, &st);
		if (pl_candidate(n)) rc = dir_done(&ti, n, buf, count, MPI_COMM_NULL, rc, &st);
		ddt_status_out(status, &st);
		return rc;
	}
	if (staged && small(n) && (tmp = ddt_buf_get(n))) {
		s = rsink(&ti, tmp, n, buf, count);
		int rc = PMPI_Mrecv(tmp, (int)s.rcount, s.rtype, message, &st);
		pl_rposted(&s);
		rc = recvd(&s, MPI_COMM_NULL, rc, &st);
		ddt_buf_put(tmp, n);
		ddt_status_out(status, &st);
		return rc;
	}
	if (pl_raw(buf, count, datatype, &s)) {
		int rc = PMPI_Mrecv(pl_rbuf(&s, buf), (int)pl_rcount(&s, count), pl_rtype(&s, datatype), message, &st);
		rc = recvd(&s, MPI_COMM_NULL, rc, &st);
		pl_sink_free(&s);
		ddt_status_out(status, &st);
		return rc;
	}
	return PMPI_Mrecv(buf, count, datatype, message, status);
}

int MPI_Imrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Request *request) {
	ddt_tinfo ti;
	int64_t n;
	void *tmp;
	held *h;
	if (message && request && pl_holding() && (h = pl_mheld(*message))) {
		MPI_Comm c = h->comm;
		*message = MPI_MESSAGE_NULL;
		int rc = ideliver(h, buf, count, datatype, c, request);
		if (rc != -1) return rc;
		return deliver(h, buf, count, datatype, c, MPI_STATUS_IGNORE) == MPI_SUCCESS
			? PMPI_Irecv(NULL, 0, MPI_BYTE, MPI_PROC_NULL, 0, MPI_COMM_SELF, request)
			: MPI_ERR_TRUNCATE;
	}
	int staged = request && ddt_staged(datatype, count, &ti, &n);
	MPI_Datatype dt;
	if (staged && ddt_direct(&ti, n, datatype, buf, count, &dt)) {
		// direct (direct.c); one that could get packet 0 of a pipelined
		// message is recorded for its completion call (dir_recvd)
		pend *p = NULL;
		if (!pl_candidate(n) || (p = pnew(1, 0, &ti, NULL, 0, buf, count))) {
			if (p) p->sink.kind = PL_DIR, p->sink.mem = NULL, p->sink.cap = n;
			DDT_COUNT(direct, 1);
			int rc = PMPI_Imrecv(buf, count, dt, message, request);
			if (p) {
				if (rc == MPI_SUCCESS) preg(*request, p);
				else prelease(p);
			}
			return rc;
		}
	}
	if (staged && small(n) && (tmp = ddt_buf_get(n))) {
		pend *p = pnew(1, 0, &ti, tmp, n, buf, count);
		if (p) {
			int rc = PMPI_Imrecv(tmp, (int)p->sink.rcount, p->sink.rtype, message, request);
			pl_rposted(&p->sink);
			if (rc == MPI_SUCCESS) preg(*request, p);
			else prelease(p);
			return rc;
		}
		ddt_buf_put(tmp, n);
	}
	pl_sink s;
	pend *p = NULL;
	if (request && pl_raw(buf, count, datatype, &s) && !(p = prawnew(0, &s, MPI_COMM_NULL))) pl_sink_free(&s);
	int rc = p ? PMPI_Imrecv(pl_rbuf(&s, buf), (int)pl_rcount(&s, count), pl_rtype(&s, datatype), message, request)
		   : PMPI_Imrecv(buf, count, datatype, message, request);
	if (p) pl_rposted(&s);
	if (p) {
		if (rc == MPI_SUCCESS) preg(*request, p);
		else prelease(p);
	}
	return rc;
}

// sendrecv is MPI_Sendrecv's body; replace: the receive goes into the
// send's buffer (Sendrecv_replace), which is packed whole first.
static int sendrecv(const void *sendbuf, int64_t sendcount, MPI_Datatype sendtype, int dest, int sendtag,
	void *recvbuf, int64_t recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
	MPI_Status *status) {
	held *h;
	if (pl_holding() && (h = pl_take(comm, source, recvtag, 1))) {
		int rc = MPI_Send(sendbuf, (int)sendcount, sendtype, dest, sendtag, comm);
		int rc2 = deliver(h, recvbuf, recvcount, recvtype, comm, status);
		return rc != MPI_SUCCESS ? rc : rc2;
	}
	ddt_tinfo sti, rti;
	int64_t sn = 0, rn = 0;
	int ss = ddt_staged(sendtype, sendcount, &sti, &sn);
	int rs = ddt_staged(recvtype, recvcount, &rti, &rn) && small(rn);
	pl_sink s;
	// direct sides (direct.c): MPI takes the user's memory as the direct type
	MPI_Datatype dt;
	int rdir = 0;
	if (ss && ddt_direct(&sti, sn, sendtype, sendbuf, sendcount, &dt)) {
		DDT_COUNT(direct, 1);
		ss = 0, sendtype = dt;
	}
	if (rs && ddt_direct(&rti, rn, recvtype, recvbuf, recvcount, &dt)) {
		DDT_COUNT(direct, 1);
		rs = 0, recvtype = dt;
		if (pl_candidate(rn)) rdir = 1, s = dirsink(&rti, rn, recvbuf, recvcount);
	}
	int rraw = !rs && !rdir && pl_raw(recvbuf, recvcount, recvtype, &s);
	MPI_Request r0 = MPI_REQUEST_NULL;
	void *p0 = NULL, *stmp = NULL, *rtmp = NULL;
	int rc, pipe = 0;
	if (ss && pl_send('S', &sti, sendbuf, sendcount, sn, dest, sendtag, comm, &r0, &p0, &rc)) {
		if (rc != MPI_SUCCESS) {
			if (rraw) pl_sink_free(&s);
			return rc;
		}
		pipe = 1;
	}
	if (!pipe && ss && !small(sn)) ss = 0;
	if (!ss && !rs && !rraw && !rdir && !pipe)
		return PMPI_Sendrecv(sendbuf, (int)sendcount, sendtype, dest, sendtag, recvbuf, (int)recvcount, recvtype,
			source, recvtag, comm, status);
	if (!pipe && ss && !(stmp = packed(&sti, sendbuf, sendcount, sn))) ss = 0;
	if (rs && !(rtmp = ddt_buf_get(rn))) rs = 0;
	if (rs) s = rsink(&rti, rtmp, rn, recvbuf, recvcount);
	MPI_Status st;
	// where the receive lands: staged for ddt, or as pl_raw says, or the user's
	void *rb = rs ? rtmp : rraw ? pl_rbuf(&s, recvbuf) : recvbuf;
	int rc_ = rs ? (int)s.rcount : rraw ? (int)pl_rcount(&s, recvcount) : (int)recvcount;
	MPI_Datatype rt = rs ? s.rtype : rraw ? pl_rtype(&s, recvtype) : recvtype;
	if (pipe) { // packet 0 is on its way: receive, then wait for it
		rc = PMPI_Recv(rb, rc_, rt, source, recvtag, comm, &st);
		int wrc = PMPI_Wait(&r0, MPI_STATUS_IGNORE);
		ddt_buf_put(p0, PL_L0);
		if (rc == MPI_SUCCESS) rc = wrc;
	} else {
		rc = PMPI_Sendrecv(ss ? stmp : sendbuf, ss ? (int)sn : (int)sendcount, ss ? MPI_BYTE : sendtype, dest,
			sendtag, rb, rc_, rt, source, recvtag, comm, &st);
	}
	if (rs || rraw) pl_rposted(&s);
	if (rs || rraw || rdir) rc = recvd(&s, comm, rc, &st);
	if (rraw) pl_sink_free(&s);
	ddt_buf_put(stmp, sn);
	ddt_buf_put(rtmp, rn);
	ddt_status_out(status, &st);
	return rc;
}

int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
	int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status *status) {
	return sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag,
		comm, status);
}

int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source,
	int recvtag, MPI_Comm comm, MPI_Status *status) {
	ddt_tinfo ti;
	int64_t n;
	void *stmp, *rtmp;
	int rc;
	held *h;
	if (pl_holding() && (h = pl_take(comm, source, recvtag, 1))) {
		rc = MPI_Send(buf, count, datatype, dest, sendtag, comm);
		int rc2 = deliver(h, buf, count, datatype, comm, status);
		return rc != MPI_SUCCESS ? rc : rc2;
	}
	MPI_Request r0;
	void *p0;
	int staged = ddt_staged(datatype, count, &ti, &n);
	MPI_Datatype dt;
	if (staged && ddt_direct(&ti, n, datatype, buf, count, &dt)) {
		// direct both ways (direct.c): MPI sends from and receives into the
		// user's memory (it keeps its own copy of what it sends); a
		// message of PL_L0 bytes may be packet 0 of a pipelined one
		MPI_Status st;
		DDT_COUNT(direct, 2);
		rc = PMPI_Sendrecv_replace(buf, count, dt, dest, sendtag, source, recvtag, comm, &st);
		if (pl_candidate(n)) rc = dir_done(&ti, n, buf, count, comm, rc, &st);
		ddt_status_out(status, &st);
		return rc;
	}
	if (staged && small(n) && (rtmp = ddt_buf_get(n))) {
		MPI_Status st;
		pl_sink s = rsink(&ti, rtmp, n, buf, count);
		if (pl_send('S', &ti, buf, count, n, dest, sendtag, comm, &r0, &p0, &rc)) {
			// every packet is packed: buf may take the receive
			if (rc == MPI_SUCCESS) {
				rc = PMPI_Recv(rtmp, (int)s.rcount, s.rtype, source, recvtag, comm, &st);
				pl_rposted(&s);
				rc = recvd(&s, comm, rc, &st);
				int wrc = PMPI_Wait(&r0, MPI_STATUS_IGNORE);
				ddt_buf_put(p0, PL_L0);
				if (rc == MPI_SUCCESS) rc = wrc;
				ddt_status_out(status, &st);
			}
			pl_rposted(&s);
			ddt_buf_put(rtmp, n);
			return rc;
		}
		if ((stmp = packed(&ti, buf, count, n))) {
			rc = PMPI_Sendrecv(stmp, (int)n, MPI_BYTE, dest, sendtag, rtmp, (int)s.rcount, s.rtype, source,
				recvtag, comm, &st);
			pl_rposted(&s);
			rc = recvd(&s, comm, rc, &st);
			ddt_buf_put(stmp, n);
			ddt_buf_put(rtmp, n);
			ddt_status_out(status, &st);
			return rc;
		}
		pl_rposted(&s);
		ddt_buf_put(rtmp, n);
	}
	return PMPI_Sendrecv_replace(buf, count, datatype, dest, sendtag, source, recvtag, comm, status);
}

// ---- persistent requests --------------------------------------------------

// recv_init_raw makes a persistent receive that MPI takes into the user's
// memory, recorded when it could get a pipelined message.
static int recv_init_raw(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
	MPI_Request *request) {
	pl_sink s;
	pend *p = NULL;
	if (request && pl_raw(buf, count, datatype, &s) && !(p = prawnew(1, &s, comm))) pl_sink_free(&s);
	int rc = p ? PMPI_Recv_init(pl_rbuf(&s, buf), (int)pl_rcount(&s, count), pl_rtype(&s, datatype), source, tag,
			     comm, request)
		   : PMPI_Recv_init(buf, count, datatype, source, tag, comm, request);
	if (p) pl_rposted(&s);
	if (p) {
		if (rc == MPI_SUCCESS) preg(*request, p);
		else prelease(p);
	}
	return rc;
}

#define INITLIKE(NAME, RECV, CONSTBUF)                                                                       \
	int MPI_##NAME(CONSTBUF void *buf, int count, MPI_Datatype datatype, int peer, int tag, MPI_Comm comm,     \
		MPI_Request *request) {                                                                              \
		ddt_tinfo ti;                                                                                        \
		int64_t n;                                                                                           \
		void *tmp;                                                                                           \
		MPI_Datatype dt;                                                                                     \
		int staged = ddt_staged(datatype, count, &ti, &n);                                                   \
		if (request && staged && ddt_direct(&ti, n, datatype, buf, count, &dt)) {                                                  \
			/* direct (direct.c); a receive that could get packet 0 of a */                                  \
			/* pipelined message is recorded for dir_recvd */                                                \
			pend *p = NULL;                                                                                  \
			if (RECV && pl_candidate(n) && (p = pnew(1, 1, &ti, NULL, 0, buf, count))) {                     \
				p->sink.kind = PL_DIR, p->sink.mem = NULL, p->sink.cap = n;                                  \
				p->comm = comm;                                                                              \
			}                                                                                                \
			if (!RECV || !pl_candidate(n) || p) {                                                            \
				DDT_COUNT(direct, 1);                                                                        \
				int rc = PMPI_##NAME(buf, count, dt, peer, tag, comm, request);                              \
				if (p && rc == MPI_SUCCESS) preg(*request, p);                                               \
				else if (p) prelease(p);                                                                     \
				return rc;                                                                                   \
			}                                                                                                \
		}                                                                                                    \
		if (request && staged && small(n) && (tmp = ddt_buf_get(n))) {                                       \
			pend *p = pnew(RECV, 1, &ti, tmp, n, buf, count);                                                \
			if (p) {                                                                                         \
				int rc = RECV ? PMPI_##NAME(tmp, (int)p->sink.rcount, p->sink.rtype, peer, tag, comm, request) \
					      : PMPI_##NAME(tmp, (int)n, MPI_BYTE, peer, tag, comm, request);                        \
				pl_rposted(&p->sink);                                                                        \
				if (rc == MPI_SUCCESS) preg(*request, p);                                                    \
				else prelease(p);                                                                            \
				return rc;                                                                                   \
			}                                                                                                \
			ddt_buf_put(tmp, n);                                                                             \
		}                                                                                                    \
		if (RECV) return recv_init_raw((void *)buf, count, datatype, peer, tag, comm, request);             \
		return PMPI_##NAME(buf, count, datatype, peer, tag, comm, request);                                  \
	}
INITLIKE(Send_init, 0, const)
INITLIKE(Ssend_init, 0, const)
INITLIKE(Rsend_init, 0, const)
INITLIKE(Bsend_init, 0, const)
INITLIKE(Recv_init, 1, )

static void start(MPI_Request r) {
	pend *p = pget(r, 0);
	if (!p) return;
	if (!p->recv) {
		if (ddtgoPack(p->pin, p->buf, p->count, p->tmp, p->n, NULL) == p->n) count_send(p->n);
	}
	p->active = 1;
}

int MPI_Start(MPI_Request *request) {
	if (tracking() && request) start(*request);
	return PMPI_Start(request);
}

int MPI_Startall(int count, MPI_Request reqs[]) {
	if (tracking() && reqs)
		for (int i = 0; i < count; i++) start(reqs[i]);
	return PMPI_Startall(count, reqs);
}

// ---- collectives ----------------------------------------------------------

static int intra(MPI_Comm comm, int *rank, int *size) {
	int inter = 1;
	if (comm == MPI_COMM_NULL || PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter) return 0;
	return PMPI_Comm_rank(comm, rank) == MPI_SUCCESS && PMPI_Comm_size(comm, size) == MPI_SUCCESS;
}

// at is the address of instance i of a type of the given extent at base.
static void *at(const void *base, int64_t i, int64_t extent) { return (char *)base + i * extent; }

int MPI_Bcast(void *buf, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
	ddt_tinfo ti;
	int64_t n;
	int rank, size;
	void *tmp;
	if (ddt_staged(datatype, count, &ti, &n) && small(n) && intra(comm, &rank, &size) && (tmp = ddt_buf_get(n))) {
		if (rank == root && ddt_pack(&ti, buf, count, tmp, n) != n) {
			ddt_buf_put(tmp, n);
			return PMPI_Bcast(buf, count, datatype, root, comm);
		}
		// every rank takes the same path: it depends on the signature only
		int rc = PMPI_Bcast(tmp, (int)n, MPI_BYTE, root, comm);
		if (rank == root) count_send(n);
		else if (rc == MPI_SUCCESS && ddt_unpack(&ti, tmp, n, buf, count) == n) count_recv(n);
		ddt_buf_put(tmp, n);
		return rc;
	}
	return PMPI_Bcast(buf, count, datatype, root, comm);
}

// blocks describes the staging of size blocks of count instances each
// (gather's receive side, scatter's send side, all-to-all).
typedef struct {
	int on;
	ddt_tinfo ti;
	int64_t blk, total; // packed bytes of a block, of all
	void *tmp;
} blocks;

static int blocks_init(blocks *b, MPI_Datatype t, int64_t count, int size) {
	memset(b, 0, sizeof *b);
	if (!ddt_staged(t, count, &b->ti, &b->blk) || !small(b->blk) || b->blk > INT64_MAX / size) return 0;
	b->total = b->blk * size;
	if (!small(b->total) || !(b->tmp = ddt_buf_get(b->total))) return 0;
	b->on = 1;
	return 1;
}

static void blocks_free(blocks *b) {
	if (b->on) ddt_buf_put(b->tmp, b->total);
	b->on = 0;
}

// pack_blocks packs count instances from buf into tmp (all blocks, or from
// block first on).
static int pack_blocks(blocks *b, const void *buf, int64_t first, int64_t nblocks, int64_t count) {
	int64_t k = ddt_pack(&b->ti, at(buf, first * count, b->ti.extent), nblocks * count,
		(char *)b->tmp + first * b->blk, nblocks * b->blk);
	if (k != nblocks * b->blk) return 0;
	count_send(k);
	return 1;
}

static void unpack_blocks(blocks *b, void *buf, int64_t nblocks, int64_t count) {
	if (ddt_unpack(&b->ti, b->tmp, nblocks * b->blk, buf, nblocks * count) >= 0) count_recv(nblocks * b->blk);
}

int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
	MPI_Datatype recvtype, int root, MPI_Comm comm) {
	int rank, size;
	if (!ddt_on || !intra(comm, &rank, &size))
		return PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
	int inplace = sendbuf == MPI_IN_PLACE;
	blocks s, r;
	memset(&r, 0, sizeof r);
	if (inplace || !blocks_init(&s, sendtype, sendcount, 1)) memset(&s, 0, sizeof s);
	if (rank == root) blocks_init(&r, recvtype, recvcount, size);
	if (!s.on && !r.on)
		return PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
	if ((s.on && !pack_blocks(&s, sendbuf, 0, 1, sendcount)) || (r.on && inplace && !pack_blocks(&r, recvbuf, rank, 1, recvcount))) {
		blocks_free(&s), blocks_free(&r);
		return PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
	}
	int rc = PMPI_Gather(s.on ? s.tmp : sendbuf, s.on ? (int)s.blk : sendcount, s.on ? MPI_BYTE : sendtype,
		r.on ? r.tmp : recvbuf, r.on ? (int)r.blk : recvcount, r.on ? MPI_BYTE : recvtype, root, comm);
	if (r.on && rc == MPI_SUCCESS) unpack_blocks(&r, recvbuf, size, recvcount);
	blocks_free(&s), blocks_free(&r);
	return rc;
}

int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
	MPI_Datatype recvtype, MPI_Comm comm) {
	int rank, size;
	if (!ddt_on || !intra(comm, &rank, &size))
		return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
	int inplace = sendbuf == MPI_IN_PLACE;
	blocks s, r;
	if (inplace || !blocks_init(&s, sendtype, sendcount, 1)) memset(&s, 0, sizeof s);
	blocks_init(&r, recvtype, recvcount, size);
	if (!s.on && !r.on) return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
	if ((s.on && !pack_blocks(&s, sendbuf, 0, 1, sendcount)) || (r.on && inplace && !pack_blocks(&r, recvbuf, rank, 1, recvcount))) {
		blocks_free(&s), blocks_free(&r);
		return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
	}
	int rc = PMPI_Allgather(s.on ? s.tmp : sendbuf, s.on ? (int)s.blk : sendcount, s.on ? MPI_BYTE : sendtype,
		r.on ? r.tmp : recvbuf, r.on ? (int)r.blk : recvcount, r.on ? MPI_BYTE : recvtype, comm);
	if (r.on && rc == MPI_SUCCESS) unpack_blocks(&r, recvbuf, size, recvcount);
	blocks_free(&s), blocks_free(&r);
	return rc;
}

int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
	MPI_Datatype recvtype, int root, MPI_Comm comm) {
	int rank, size;
	if (!ddt_on || !intra(comm, &rank, &size))
		return PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
	int inplace = recvbuf == MPI_IN_PLACE;
	blocks s, r;
	memset(&s, 0, sizeof s);
	if (rank == root) blocks_init(&s, sendtype, sendcount, size);
	if (inplace || !blocks_init(&r, recvtype, recvcount, 1)) memset(&r, 0, sizeof r);
	if (!s.on && !r.on)
		return PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
	if (s.on && !pack_blocks(&s, sendbuf, 0, size, sendcount)) {
		blocks_free(&s), blocks_free(&r);
		return PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
	}
	int rc = PMPI_Scatter(s.on ? s.tmp : sendbuf, s.on ? (int)s.blk : sendcount, s.on ? MPI_BYTE : sendtype,
		r.on ? r.tmp : recvbuf, r.on ? (int)r.blk : recvcount, r.on ? MPI_BYTE : recvtype, root, comm);
	if (r.on && rc == MPI_SUCCESS) unpack_blocks(&r, recvbuf, 1, recvcount);
	blocks_free(&s), blocks_free(&r);
	return rc;
}

int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
	MPI_Datatype recvtype, MPI_Comm comm) {
	int rank, size;
	if (!ddt_on || !intra(comm, &rank, &size))
		return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
	int inplace = sendbuf == MPI_IN_PLACE;
	blocks s, r;
	if (inplace || !blocks_init(&s, sendtype, sendcount, size)) memset(&s, 0, sizeof s);
	blocks_init(&r, recvtype, recvcount, size);
	if (!s.on && !r.on) return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
	if ((s.on && !pack_blocks(&s, sendbuf, 0, size, sendcount)) || (r.on && inplace && !pack_blocks(&r, recvbuf, 0, size, recvcount))) {
		blocks_free(&s), blocks_free(&r);
		return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
	}
	int rc = PMPI_Alltoall(s.on ? s.tmp : sendbuf, s.on ? (int)s.blk : sendcount, s.on ? MPI_BYTE : sendtype,
		r.on ? r.tmp : recvbuf, r.on ? (int)r.blk : recvcount, r.on ? MPI_BYTE : recvtype, comm);
	if (r.on && rc == MPI_SUCCESS) unpack_blocks(&r, recvbuf, size, recvcount);
	blocks_free(&s), blocks_free(&r);
	return rc;
}

// vblocks stages blocks of varying counts at displacements (in extents of
// the type, or in bytes for alltoallw) as consecutive bytes.
typedef struct {
	int on;
	ddt_tinfo ti;
	int *cnt, *dsp; // byte counts and displacements in tmp
	int64_t total;
	void *tmp;
} vblocks;

static int vblocks_init(vblocks *v, MPI_Datatype t, const int counts[], int size) {
	memset(v, 0, sizeof *v);
	if (!ddt_served(t, &v->ti) || v->ti.size == 0 || !counts) return 0;
	// staged unless every block is one contiguous piece
	int64_t one;
	ddt_tinfo ti2;
	if (!ddt_staged(t, 2, &ti2, &one)) return 0;
	int64_t total = 0;
	for (int i = 0; i < size; i++) {
		if (counts[i] < 0) return 0;
		total += (int64_t)counts[i] * v->ti.size;
		if (!small(total)) return 0;
	}
	v->cnt = malloc(2 * sizeof(int) * (size_t)size);
	if (!v->cnt) return 0;
	v->dsp = v->cnt + size;
	if (!(v->tmp = ddt_buf_get(total))) {
		free(v->cnt);
		return 0;
	}
	int64_t off = 0;
	for (int i = 0; i < size; i++) {
		v->cnt[i] = (int)(counts[i] * v->ti.size);
		v->dsp[i] = (int)off;
		off += v->cnt[i];
	}
	v->total = total;
	v->on = 1;
	return 1;
}

static void vblocks_free(vblocks *v) {
	if (!v->on) return;
	ddt_buf_put(v->tmp, v->total);
	free(v->cnt);
	v->on = 0;
}

static int vpack(vblocks *v, const void *buf, const int counts[], const int displs[], int first, int n) {
	int64_t sum = 0;
	for (int i = first; i < first + n; i++) {
		if (!counts[i]) continue;
		if (ddt_pack(&v->ti, at(buf, displs[i], v->ti.extent), counts[i], (char *)v->tmp + v->dsp[i], v->cnt[i]) != v->cnt[i])
			return 0;
		sum += v->cnt[i];
	}
	if (sum) count_send(sum); // one operation
	return 1;
}

static void vunpack(vblocks *v, void *buf, const int counts[], const int displs[], int size) {
	int64_t sum = 0;
	for (int i = 0; i < size; i++) {
		if (!counts[i]) continue;
		if (ddt_unpack(&v->ti, (char *)v->tmp + v->dsp[i], v->cnt[i], at(buf, displs[i], v->ti.extent), counts[i]) >= 0)
			sum += v->cnt[i];
	}
	if (sum) count_recv(sum);
}

int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
	const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm) {
	int rank, size;
	if (!ddt_on || !intra(comm, &rank, &size))
		return PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm);
	int inplace = sendbuf == MPI_IN_PLACE;
	blocks s;
	vblocks r;
	memset(&r, 0, sizeof r);
	if (inplace || !blocks_init(&s, sendtype, sendcount, 1)) memset(&s, 0, sizeof s);
	if (rank == root && displs) vblocks_init(&r, recvtype, recvcounts, size);
	if (!s.on && !r.on)
		return PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm);
	if ((s.on && !pack_blocks(&s, sendbuf, 0, 1, sendcount)) || (r.on && inplace && !vpack(&r, recvbuf, recvcounts, displs, rank, 1))) {
		blocks_free(&s), vblocks_free(&r);
		return PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm);
	}
	int rc = PMPI_Gatherv(s.on ? s.tmp : sendbuf, s.on ? (int)s.blk : sendcount, s.on ? MPI_BYTE : sendtype,
		r.on ? r.tmp : recvbuf, r.on ? r.cnt : recvcounts, r.on ? r.dsp : displs, r.on ? MPI_BYTE : recvtype, root, comm);
	if (r.on && rc == MPI_SUCCESS) vunpack(&r, recvbuf, recvcounts, displs, size);
	blocks_free(&s), vblocks_free(&r);
	return rc;
}

int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
	const int displs[], MPI_Datatype recvtype, MPI_Comm comm) {
	int rank, size;
	if (!ddt_on || !intra(comm, &rank, &size) || !displs)
		return PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
	int inplace = sendbuf == MPI_IN_PLACE;
	blocks s;
	vblocks r;
	if (inplace || !blocks_init(&s, sendtype, sendcount, 1)) memset(&s, 0, sizeof s);
	vblocks_init(&r, recvtype, recvcounts, size);
	if (!s.on && !r.on)
		return PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
	if ((s.on && !pack_blocks(&s, sendbuf, 0, 1, sendcount)) || (r.on && inplace && !vpack(&r, recvbuf, recvcounts, displs, rank, 1))) {
		blocks_free(&s), vblocks_free(&r);
		return PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
	}
	int rc = PMPI_Allgatherv(s.on ? s.tmp : sendbuf, s.on ? (int)s.blk : sendcount, s.on ? MPI_BYTE : sendtype,
		r.on ? r.tmp : recvbuf, r.on ? r.cnt : recvcounts, r.on ? r.dsp : displs, r.on ? MPI_BYTE : recvtype, comm);
	if (r.on && rc == MPI_SUCCESS) vunpack(&r, recvbuf, recvcounts, displs, size);
	blocks_free(&s), vblocks_free(&r);
	return rc;
}

int MPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
	void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
	int rank, size;
	if (!ddt_on || !intra(comm, &rank, &size))
		return PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm);
	int inplace = recvbuf == MPI_IN_PLACE;
	vblocks s;
	blocks r;
	memset(&s, 0, sizeof s);
	if (rank == root && displs) vblocks_init(&s, sendtype, sendcounts, size);
	if (inplace || !blocks_init(&r, recvtype, recvcount, 1)) memset(&r, 0, sizeof r);
	if (!s.on && !r.on)
		return PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm);
	if (s.on && !vpack(&s, sendbuf, sendcounts, displs, 0, size)) {
		vblocks_free(&s), blocks_free(&r);
		return PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm);
	}
	int rc = PMPI_Scatterv(s.on ? s.tmp : sendbuf, s.on ? s.cnt : sendcounts, s.on ? s.dsp : displs,
		s.on ? MPI_BYTE : sendtype, r.on ? r.tmp : recvbuf, r.on ? (int)r.blk : recvcount, r.on ? MPI_BYTE : recvtype,
		root, comm);
	if (r.on && rc == MPI_SUCCESS) unpack_blocks(&r, recvbuf, 1, recvcount);
	vblocks_free(&s), blocks_free(&r);
	return rc;
}

int MPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
	void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
	int rank, size;
	if (!ddt_on || sendbuf == MPI_IN_PLACE || !sdispls || !rdispls || !intra(comm, &rank, &size))
		return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm);
	vblocks s, r;
	vblocks_init(&s, sendtype, sendcounts, size);
	vblocks_init(&r, recvtype, recvcounts, size);
	if (!s.on && !r.on)
		return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm);
	if (s.on && !vpack(&s, sendbuf, sendcounts, sdispls, 0, size)) {
		vblocks_free(&s), vblocks_free(&r);
		return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm);
	}
	int rc = PMPI_Alltoallv(s.on ? s.tmp : sendbuf, s.on ? s.cnt : sendcounts, s.on ? s.dsp : sdispls,
		s.on ? MPI_BYTE : sendtype, r.on ? r.tmp : recvbuf, r.on ? r.cnt : recvcounts, r.on ? r.dsp : rdispls,
		r.on ? MPI_BYTE : recvtype, comm);
	if (r.on && rc == MPI_SUCCESS) vunpack(&r, recvbuf, recvcounts, rdispls, size);
	vblocks_free(&s), vblocks_free(&r);
	return rc;
}

// Alltoallw: when some block's type is served, every block travels as
// bytes (ddt packs the served types, PMPI_Pack the others) through one
// MPI_Alltoallv.
int MPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[],
	void *recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
	int rank, size;
	if (!ddt_on || sendbuf == MPI_IN_PLACE || !sendcounts || !sdispls || !sendtypes || !recvcounts || !rdispls ||
		!recvtypes || !intra(comm, &rank, &size))
		goto pass;
	int any = 0;
	int64_t stot = 0, rtot = 0;
	for (int i = 0; i < size; i++) {
		ddt_tinfo ti;
		int64_t n;
		MPI_Count sz;
		if (sendcounts[i] < 0 || recvcounts[i] < 0) goto pass;
		any |= ddt_staged(sendtypes[i], sendcounts[i], &ti, &n) || ddt_staged(recvtypes[i], recvcounts[i], &ti, &n);
		if (sendcounts[i]) {
			if (PMPI_Type_size_x(sendtypes[i], &sz) != MPI_SUCCESS) goto pass;
			stot += sz * sendcounts[i];
		}
		if (recvcounts[i]) {
			if (PMPI_Type_size_x(recvtypes[i], &sz) != MPI_SUCCESS) goto pass;
			rtot += sz * recvcounts[i];
		}
		if (!small(stot) || !small(rtot)) goto pass;
	}
	if (!any) goto pass;
	int *arr = malloc(4 * sizeof(int) * (size_t)size);
	void *stmp = ddt_buf_get(stot), *rtmp = ddt_buf_get(rtot);
	if (!arr || !stmp || !rtmp) {
		free(arr), ddt_buf_put(stmp, stot), ddt_buf_put(rtmp, rtot);
		goto pass;
	}
	int *sc = arr, *sd = arr + size, *rc_ = arr + 2 * size, *rd = arr + 3 * size;
	int pos = 0;
	int64_t ssum = 0, rsum = 0;
	for (int i = 0; i < size; i++) {
		sd[i] = pos;
		if (sendcounts[i]) {
			ddt_tinfo ti;
			const char *b = (const char *)sendbuf + sdispls[i];
			int64_t k = -1;
			if (ddt_served(sendtypes[i], &ti)) k = ddt_pack(&ti, b, sendcounts[i], (char *)stmp + pos, stot - pos);
			if (k >= 0) {
				ssum += k;
				pos += (int)k;
			} else if (PMPI_Pack(b, sendcounts[i], sendtypes[i], stmp, (int)stot, &pos, comm) != MPI_SUCCESS) {
				free(arr), ddt_buf_put(stmp, stot), ddt_buf_put(rtmp, rtot);
				goto pass;
			}
		}
		sc[i] = pos - sd[i];
	}
	int off = 0;
	for (int i = 0; i < size; i++) {
		MPI_Count sz = 0;
		if (recvcounts[i]) PMPI_Type_size_x(recvtypes[i], &sz);
		rd[i] = off;
		rc_[i] = (int)(sz * recvcounts[i]);
		off += rc_[i];
	}
	if (ssum) count_send(ssum);
	int rc = PMPI_Alltoallv(stmp, sc, sd, MPI_BYTE, rtmp, rc_, rd, MPI_BYTE, comm);
	if (rc == MPI_SUCCESS) {
		for (int i = 0; i < size; i++) {
			if (!recvcounts[i]) continue;
			ddt_tinfo ti;
			char *b = (char *)recvbuf + rdispls[i];
			if (ddt_served(recvtypes[i], &ti) &&
				ddt_unpack(&ti, (char *)rtmp + rd[i], rc_[i], b, recvcounts[i]) >= 0) {
				rsum += rc_[i];
			} else {
				int p = rd[i];
				PMPI_Unpack(rtmp, (int)rtot, &p, b, recvcounts[i], recvtypes[i], comm);
			}
		}
	}
	if (rsum) count_recv(rsum);
	free(arr), ddt_buf_put(stmp, stot), ddt_buf_put(rtmp, rtot);
	return rc;
pass:
	return PMPI_Alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm);
}
