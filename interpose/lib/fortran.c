//go:build ddtinterpose

// Fortran entry points (gfortran's names: mpif.h and the mpi module). The
// Fortran bindings of MPICH and Open MPI call PMPI directly, so the C
// wrappers never see a Fortran program's calls: these wrappers convert the
// handles and call the C wrappers for the types ddt mirrors (Fortran's
// MPI_BOTTOM becomes C's: fbuf), and hand everything else, unchanged, to
// the MPI library's own Fortran function (pmpi_*_, found with dlsym),
// which keeps Fortran's MPI_IN_PLACE and every other detail as MPI has
// them.
#define _GNU_SOURCE
#include "shimint.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

// ORIG finds the MPI library's own Fortran function name (the next
// definition after this library's) as fn_; without one (never seen: a
// Fortran program links it) the call fails with MPI_ERR_INTERN.
#define ORIG(name, ...)                                          \
	typedef void (*fn_t)(__VA_ARGS__);                           \
	static fn_t fn_;                                             \
	if (!fn_) fn_ = (fn_t)dlsym(RTLD_NEXT, name);                \
	if (!fn_) {                                                  \
		*ierr = MPI_ERR_INTERN;                                  \
		return;                                                  \
	}

#define T(f) MPI_Type_f2c(*(f))
#define C(f) MPI_Comm_f2c(*(f))

// fbuf gives in *c the C buffer for the Fortran buffer f of a call of a
// served type and reports whether the C wrapper can take the call: the
// MPI library's Fortran MPI_BOTTOM marker becomes C's MPI_BOTTOM (a
// struct of absolute addresses is then ddt's work, as from C), while
// MPI_IN_PLACE and a null buffer go to the MPI library's own Fortran
// function.
static void *fbottom, *finplace;
static pthread_once_t fonce = PTHREAD_ONCE_INIT;
static void fsetup(void) {
	void **p;
	if ((p = dlsym(RTLD_DEFAULT, "MPIR_F_MPI_BOTTOM"))) fbottom = *p; // MPICH: pointers to the markers
	if ((p = dlsym(RTLD_DEFAULT, "MPIR_F_MPI_IN_PLACE"))) finplace = *p;
	if (!fbottom) fbottom = dlsym(RTLD_DEFAULT, "mpi_fortran_bottom_"); // Open MPI: the markers
	if (!finplace) finplace = dlsym(RTLD_DEFAULT, "mpi_fortran_in_place_");
}
static int fbuf(void *f, void **c) {
	pthread_once(&fonce, fsetup);
	*c = f;
	if (f == NULL || (finplace && f == finplace)) return 0;
	if (fbottom && f == fbottom) *c = MPI_BOTTOM;
	return 1;
}

// served reports whether ddt serves the type of Fortran handle f.
static int served(MPI_Fint *f) {
	ddt_tinfo ti;
	return ddt_on && ddt_served(T(f), &ti);
}

// fstatus_in starts the C status of a call from the caller's Fortran
// status, so that the field MPI leaves alone in single-completion calls
// (MPI_ERROR) goes back to the caller as it came.
static void fstatus_in(MPI_Fint *f, MPI_Status *st) {
	if (f != MPI_F_STATUS_IGNORE) MPI_Status_f2c(f, st);
}

static void fstatus(MPI_Status *st, MPI_Fint *f) {
	if (f != MPI_F_STATUS_IGNORE) MPI_Status_c2f(st, f);
}

// ---- constructors: through the C wrappers, which call PMPI and mirror ----

#define NEWTYPE(call)                                \
	MPI_Datatype t_;                                 \
	*ierr = (call);                                  \
	if (*ierr == MPI_SUCCESS) *newtype = MPI_Type_c2f(t_);

void mpi_type_contiguous_(MPI_Fint *count, MPI_Fint *old, MPI_Fint *newtype, MPI_Fint *ierr) {
	NEWTYPE(MPI_Type_contiguous(*count, T(old), &t_))
}

void mpi_type_vector_(MPI_Fint *count, MPI_Fint *bl, MPI_Fint *stride, MPI_Fint *old, MPI_Fint *newtype,
	MPI_Fint *ierr) {
	NEWTYPE(MPI_Type_vector(*count, *bl, *stride, T(old), &t_))
}

void mpi_type_create_hvector_(MPI_Fint *count, MPI_Fint *bl, MPI_Aint *stride, MPI_Fint *old, MPI_Fint *newtype,
	MPI_Fint *ierr) {
	NEWTYPE(MPI_Type_create_hvector(*count, *bl, *stride, T(old), &t_))
}

void mpi_type_hvector_(MPI_Fint *count, MPI_Fint *bl, MPI_Fint *stride, MPI_Fint *old, MPI_Fint *newtype,
	MPI_Fint *ierr) {
	NEWTYPE(MPI_Type_create_hvector(*count, *bl, (MPI_Aint)*stride, T(old), &t_))
}

void mpi_type_indexed_(MPI_Fint *count, MPI_Fint *bls, MPI_Fint *displs, MPI_Fint *old, MPI_Fint *newtype,
	MPI_Fint *ierr) {
	NEWTYPE(MPI_Type_indexed(*count, bls, displs, T(old), &t_))
}

void mpi_type_create_hindexed_(MPI_Fint *count, MPI_Fint *bls, MPI_Aint *displs, MPI_Fint *old, MPI_Fint *newtype,
	MPI_Fint *ierr) {
	NEWTYPE(MPI_Type_create_hindexed(*count, bls, displs, T(old), &t_))
}

void mpi_type_hindexed_(MPI_Fint *count, MPI_Fint *bls, MPI_Fint *displs, MPI_Fint *old, MPI_Fint *newtype,
	MPI_Fint *ierr) {
	MPI_Aint *d = malloc(sizeof(MPI_Aint) * (*count > 0 ? *count : 1));
	for (int i = 0; d && i < *count; i++) d[i] = displs[i];
	if (!d) {
		*ierr = MPI_ERR_NO_MEM;
		return;
	}
	NEWTYPE(MPI_Type_create_hindexed(*count, bls, d, T(old), &t_))
	free(d);
}

void mpi_type_create_indexed_block_(MPI_Fint *count, MPI_Fint *bl, MPI_Fint *displs, MPI_Fint *old,
	MPI_Fint *newtype, MPI_Fint *ierr) {
	NEWTYPE(MPI_Type_create_indexed_block(*count, *bl, displs, T(old), &t_))
}

void mpi_type_create_hindexed_block_(MPI_Fint *count, MPI_Fint *bl, MPI_Aint *displs, MPI_Fint *old,
	MPI_Fint *newtype, MPI_Fint *ierr) {
	NEWTYPE(MPI_Type_create_hindexed_block(*count, *bl, displs, T(old), &t_))
}

static void fstruct(MPI_Fint *count, MPI_Fint *bls, MPI_Aint *displs, MPI_Fint *types, MPI_Fint *newtype,
	MPI_Fint *ierr) {
	int n = *count > 0 ? *count : 1;
	MPI_Datatype *ts = malloc(sizeof(MPI_Datatype) * n);
	if (!ts) {
		*ierr = MPI_ERR_NO_MEM;
		return;
	}
	for (int i = 0; i < *count; i++) ts[i] = MPI_Type_f2c(types[i]);
	NEWTYPE(MPI_Type_create_struct(*count, bls, displs, ts, &t_))
	free(ts);
}

void mpi_type_create_struct_(MPI_Fint *count, MPI_Fint *bls, MPI_Aint *displs, MPI_Fint *types, MPI_Fint *newtype,
	MPI_Fint *ierr) {
	fstruct(count, bls, displs, types, newtype, ierr);
}

void mpi_type_struct_(MPI_Fint *count, MPI_Fint *bls, MPI_Fint *displs, MPI_Fint *types, MPI_Fint *newtype,
	MPI_Fint *ierr) {
	MPI_Aint *d = malloc(sizeof(MPI_Aint) * (*count > 0 ? *count : 1));
	if (!d) {
		*ierr = MPI_ERR_NO_MEM;
		return;
	}
	for (int i = 0; i < *count; i++) d[i] = displs[i];
	fstruct(count, bls, d, types, newtype, ierr);
	free(d);
}

void mpi_type_create_subarray_(MPI_Fint *ndims, MPI_Fint *sizes, MPI_Fint *subs, MPI_Fint *starts, MPI_Fint *order,
	MPI_Fint *old, MPI_Fint *newtype, MPI_Fint *ierr) {
	NEWTYPE(MPI_Type_create_subarray(*ndims, sizes, subs, starts, *order, T(old), &t_))
}

void mpi_type_create_darray_(MPI_Fint *size, MPI_Fint *rank, MPI_Fint *ndims, MPI_Fint *gs, MPI_Fint *ds,
	MPI_Fint *da, MPI_Fint *ps, MPI_Fint *order, MPI_Fint *old, MPI_Fint *newtype, MPI_Fint *ierr) {
	NEWTYPE(MPI_Type_create_darray(*size, *rank, *ndims, gs, ds, da, ps, *order, T(old), &t_))
}

void mpi_type_create_resized_(MPI_Fint *old, MPI_Aint *lb, MPI_Aint *extent, MPI_Fint *newtype, MPI_Fint *ierr) {
	NEWTYPE(MPI_Type_create_resized(T(old), *lb, *extent, &t_))
}

void mpi_type_dup_(MPI_Fint *old, MPI_Fint *newtype, MPI_Fint *ierr) { NEWTYPE(MPI_Type_dup(T(old), &t_)) }

void mpi_type_commit_(MPI_Fint *type, MPI_Fint *ierr) {
	MPI_Datatype t = T(type);
	*ierr = MPI_Type_commit(&t);
	if (*ierr == MPI_SUCCESS) *type = MPI_Type_c2f(t);
}

void mpi_type_free_(MPI_Fint *type, MPI_Fint *ierr) {
	MPI_Datatype t = T(type);
	*ierr = MPI_Type_free(&t);
	if (*ierr == MPI_SUCCESS) *type = MPI_Type_c2f(t);
}

// ---- pack and unpack --------------------------------------------------------

void mpi_pack_(void *inbuf, MPI_Fint *incount, MPI_Fint *type, void *outbuf, MPI_Fint *outsize, MPI_Fint *position,
	MPI_Fint *comm, MPI_Fint *ierr) {
	void *c_;
	if (served(type) && fbuf(inbuf, &c_)) {
		int pos = *position;
		*ierr = MPI_Pack(c_, *incount, T(type), outbuf, *outsize, &pos, C(comm));
		*position = pos;
		return;
	}
	ORIG("pmpi_pack_", void *, MPI_Fint *, MPI_Fint *, void *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *)
	fn_(inbuf, incount, type, outbuf, outsize, position, comm, ierr);
}

void mpi_unpack_(void *inbuf, MPI_Fint *insize, MPI_Fint *position, void *outbuf, MPI_Fint *outcount, MPI_Fint *type,
	MPI_Fint *comm, MPI_Fint *ierr) {
	void *c_;
	if (served(type) && fbuf(outbuf, &c_)) {
		int pos = *position;
		*ierr = MPI_Unpack(inbuf, *insize, &pos, c_, *outcount, T(type), C(comm));
		*position = pos;
		return;
	}
	ORIG("pmpi_unpack_", void *, MPI_Fint *, MPI_Fint *, void *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *)
	fn_(inbuf, insize, position, outbuf, outcount, type, comm, ierr);
}

// ---- point-to-point -----------------------------------------------------------

#define FSEND(name, cfn)                                                                                  \
	void mpi_##name##_(void *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *dest, MPI_Fint *tag,          \
		MPI_Fint *comm, MPI_Fint *ierr) {                                                                  \
		void *c_;                                                                                           \
		if (served(type) && fbuf(buf, &c_)) {                                                               \
			*ierr = cfn(c_, *count, T(type), *dest, *tag, C(comm));                                        \
			return;                                                                                        \
		}                                                                                                  \
		ORIG("pmpi_" #name "_", void *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *) \
		fn_(buf, count, type, dest, tag, comm, ierr);                                                      \
	}
FSEND(send, MPI_Send)
FSEND(ssend, MPI_Ssend)
FSEND(rsend, MPI_Rsend)
FSEND(bsend, MPI_Bsend)

void mpi_recv_(void *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *src, MPI_Fint *tag, MPI_Fint *comm,
	MPI_Fint *status, MPI_Fint *ierr) {
	void *c_;
	if (served(type) && fbuf(buf, &c_)) {
		MPI_Status st;
		fstatus_in(status, &st);
		*ierr = MPI_Recv(c_, *count, T(type), *src, *tag, C(comm), &st);
		fstatus(&st, status);
		return;
	}
	ORIG("pmpi_recv_", void *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *)
	fn_(buf, count, type, src, tag, comm, status, ierr);
}

void mpi_sendrecv_(void *sbuf, MPI_Fint *scount, MPI_Fint *stype, MPI_Fint *dest, MPI_Fint *stag, void *rbuf,
	MPI_Fint *rcount, MPI_Fint *rtype, MPI_Fint *src, MPI_Fint *rtag, MPI_Fint *comm, MPI_Fint *status,
	MPI_Fint *ierr) {
	void *cs_, *cr_;
	if ((served(stype) || served(rtype)) && fbuf(sbuf, &cs_) && fbuf(rbuf, &cr_)) {
		MPI_Status st;
		fstatus_in(status, &st);
		*ierr = MPI_Sendrecv(cs_, *scount, T(stype), *dest, *stag, cr_, *rcount, T(rtype), *src, *rtag, C(comm), &st);
		fstatus(&st, status);
		return;
	}
	ORIG("pmpi_sendrecv_", void *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, void *, MPI_Fint *,
				   MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *)
	fn_(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, src, rtag, comm, status, ierr);
}

void mpi_sendrecv_replace_(void *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *dest, MPI_Fint *stag, MPI_Fint *src,
	MPI_Fint *rtag, MPI_Fint *comm, MPI_Fint *status, MPI_Fint *ierr) {
	void *c_;
	if (served(type) && fbuf(buf, &c_)) {
		MPI_Status st;
		fstatus_in(status, &st);
		*ierr = MPI_Sendrecv_replace(c_, *count, T(type), *dest, *stag, *src, *rtag, C(comm), &st);
		fstatus(&st, status);
		return;
	}
	ORIG("pmpi_sendrecv_replace_", void *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *,
					   MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *)
	fn_(buf, count, type, dest, stag, src, rtag, comm, status, ierr);
}

// ---- collectives --------------------------------------------------------------

void mpi_bcast_(void *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr) {
	void *c_;
	if (served(type) && fbuf(buf, &c_)) {
		*ierr = MPI_Bcast(c_, *count, T(type), *root, C(comm));
		return;
	}
	ORIG("pmpi_bcast_", void *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *)
	fn_(buf, count, type, root, comm, ierr);
}

#define FCOLL(name, cfn)                                                                                      \
	void mpi_##name##_(void *sbuf, MPI_Fint *scount, MPI_Fint *stype, void *rbuf, MPI_Fint *rcount,            \
		MPI_Fint *rtype, MPI_Fint *comm, MPI_Fint *ierr) {                                                     \
		void *cs_, *cr_;                                                                                           \
		if ((served(stype) || served(rtype)) && fbuf(sbuf, &cs_) && fbuf(rbuf, &cr_)) {                            \
			*ierr = cfn(cs_, *scount, T(stype), cr_, *rcount, T(rtype), C(comm));                             \
			return;                                                                                            \
		}                                                                                                      \
		ORIG("pmpi_" #name "_", void *, MPI_Fint *, MPI_Fint *, void *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *) \
		fn_(sbuf, scount, stype, rbuf, rcount, rtype, comm, ierr);                                             \
	}
FCOLL(allgather, MPI_Allgather)
FCOLL(alltoall, MPI_Alltoall)

#define FROOTED(name, cfn)                                                                                    \
	void mpi_##name##_(void *sbuf, MPI_Fint *scount, MPI_Fint *stype, void *rbuf, MPI_Fint *rcount,            \
		MPI_Fint *rtype, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr) {                                     \
		void *cs_, *cr_;                                                                                           \
		if ((served(stype) || served(rtype)) && fbuf(sbuf, &cs_) && fbuf(rbuf, &cr_)) {                            \
			*ierr = cfn(cs_, *scount, T(stype), cr_, *rcount, T(rtype), *root, C(comm));                      \
			return;                                                                                            \
		}                                                                                                      \
		ORIG("pmpi_" #name "_", void *, MPI_Fint *, MPI_Fint *, void *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *) \
		fn_(sbuf, scount, stype, rbuf, rcount, rtype, root, comm, ierr);                                       \
	}
FROOTED(gather, MPI_Gather)
FROOTED(scatter, MPI_Scatter)

void mpi_finalize_(MPI_Fint *ierr) { *ierr = MPI_Finalize(); }

// ---- non-blocking point-to-point and completion -------------------------------
//
// A non-blocking operation of a served type must be completed by the C
// completion wrappers (a receive is unpacked there), so the Fortran
// completion calls go through them whenever operations are pending, and
// straight to MPI otherwise.

#ifdef MPI_F_STATUS_SIZE
#define FSTATUS_SIZE MPI_F_STATUS_SIZE
#else
#define FSTATUS_SIZE ((int)(sizeof(MPI_Status) / sizeof(MPI_Fint)))
#endif

#define FISEND(name, cfn)                                                                                  \
	void mpi_##name##_(void *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *dest, MPI_Fint *tag,          \
		MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr) {                                               \
		void *c_;                                                                                           \
		if (served(type) && fbuf(buf, &c_)) {                                                               \
			MPI_Request r;                                                                                 \
			*ierr = cfn(c_, *count, T(type), *dest, *tag, C(comm), &r);                                    \
			if (*ierr == MPI_SUCCESS) *request = MPI_Request_c2f(r);                                       \
			return;                                                                                        \
		}                                                                                                  \
		ORIG("pmpi_" #name "_", void *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *) \
		fn_(buf, count, type, dest, tag, comm, request, ierr);                                             \
	}
FISEND(isend, MPI_Isend)
FISEND(issend, MPI_Issend)
FISEND(irsend, MPI_Irsend)
FISEND(ibsend, MPI_Ibsend)
FISEND(irecv, MPI_Irecv)

// fpending reports whether C completion wrappers have work to do.
static int fpending(void) { return ddt_on && ddt_pending(); }

void mpi_wait_(MPI_Fint *request, MPI_Fint *status, MPI_Fint *ierr) {
	if (!fpending()) {
		ORIG("pmpi_wait_", MPI_Fint *, MPI_Fint *, MPI_Fint *)
		fn_(request, status, ierr);
		return;
	}
	MPI_Request r = MPI_Request_f2c(*request);
	MPI_Status st;
	fstatus_in(status, &st);
	*ierr = MPI_Wait(&r, &st);
	*request = MPI_Request_c2f(r);
	fstatus(&st, status);
}

void mpi_test_(MPI_Fint *request, MPI_Fint *flag, MPI_Fint *status, MPI_Fint *ierr) {
	if (!fpending()) {
		ORIG("pmpi_test_", MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *)
		fn_(request, flag, status, ierr);
		return;
	}
	MPI_Request r = MPI_Request_f2c(*request);
	MPI_Status st;
	fstatus_in(status, &st);
	int f = 0;
	*ierr = MPI_Test(&r, &f, &st);
	*request = MPI_Request_c2f(r);
	*flag = f;
	if (f) fstatus(&st, status);
}

void mpi_request_free_(MPI_Fint *request, MPI_Fint *ierr) {
	if (!fpending()) {
		ORIG("pmpi_request_free_", MPI_Fint *, MPI_Fint *)
		fn_(request, ierr);
		return;
	}
	MPI_Request r = MPI_Request_f2c(*request);
	*ierr = MPI_Request_free(&r);
	*request = MPI_Request_c2f(r);
}

// freqs converts n Fortran requests and makes room for n C statuses (none
// when the caller ignores them).
typedef struct {
	MPI_Request *r;
	MPI_Status *st; // MPI_STATUSES_IGNORE (NULL on Open MPI) when ignore
	int ignore;
} fconv;

static int fconv_init(fconv *c, int n, MPI_Fint *reqs, MPI_Fint *statuses) {
	int k = n > 0 ? n : 1;
	c->ignore = statuses == MPI_F_STATUSES_IGNORE;
	c->r = malloc(sizeof(MPI_Request) * k);
	c->st = c->ignore ? MPI_STATUSES_IGNORE : malloc(sizeof(MPI_Status) * k);
	if (!c->r || (!c->ignore && !c->st)) {
		free(c->r);
		if (!c->ignore) free(c->st);
		return 0;
	}
	for (int i = 0; i < n; i++) c->r[i] = MPI_Request_f2c(reqs[i]);
	return 1;
}

// fconv_done writes the requests back, and the statuses 0..nst-1.
static void fconv_done(fconv *c, int n, MPI_Fint *reqs, MPI_Fint *statuses, int nst) {
	for (int i = 0; i < n; i++) reqs[i] = MPI_Request_c2f(c->r[i]);
	if (!c->ignore) {
		for (int i = 0; i < nst; i++) MPI_Status_c2f(&c->st[i], statuses + (size_t)i * FSTATUS_SIZE);
		free(c->st);
	}
	free(c->r);
}

void mpi_waitall_(MPI_Fint *count, MPI_Fint *reqs, MPI_Fint *statuses, MPI_Fint *ierr) {
	fconv c;
	if (!fpending() || !fconv_init(&c, *count, reqs, statuses)) {
		ORIG("pmpi_waitall_", MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *)
		fn_(count, reqs, statuses, ierr);
		return;
	}
	*ierr = MPI_Waitall(*count, c.r, c.st);
	fconv_done(&c, *count, reqs, statuses, *count);
}

void mpi_testall_(MPI_Fint *count, MPI_Fint *reqs, MPI_Fint *flag, MPI_Fint *statuses, MPI_Fint *ierr) {
	fconv c;
	if (!fpending() || !fconv_init(&c, *count, reqs, statuses)) {
		ORIG("pmpi_testall_", MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *)
		fn_(count, reqs, flag, statuses, ierr);
		return;
	}
	int f = 0;
	*ierr = MPI_Testall(*count, c.r, &f, c.st);
	*flag = f;
	fconv_done(&c, *count, reqs, statuses, f ? *count : 0);
}

// Fortran indices count from 1.
void mpi_waitany_(MPI_Fint *count, MPI_Fint *reqs, MPI_Fint *index, MPI_Fint *status, MPI_Fint *ierr) {
	fconv c;
	if (!fpending() || !fconv_init(&c, *count, reqs, MPI_F_STATUSES_IGNORE)) {
		ORIG("pmpi_waitany_", MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *)
		fn_(count, reqs, index, status, ierr);
		return;
	}
	int i;
	MPI_Status st;
	fstatus_in(status, &st);
	*ierr = MPI_Waitany(*count, c.r, &i, &st);
	*index = i == MPI_UNDEFINED ? MPI_UNDEFINED : i + 1;
	fconv_done(&c, *count, reqs, NULL, 0);
	fstatus(&st, status);
}

void mpi_testany_(MPI_Fint *count, MPI_Fint *reqs, MPI_Fint *index, MPI_Fint *flag, MPI_Fint *status, MPI_Fint *ierr) {
	fconv c;
	if (!fpending() || !fconv_init(&c, *count, reqs, MPI_F_STATUSES_IGNORE)) {
		ORIG("pmpi_testany_", MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *)
		fn_(count, reqs, index, flag, status, ierr);
		return;
	}
	int i = MPI_UNDEFINED, f = 0;
	MPI_Status st;
	fstatus_in(status, &st);
	*ierr = MPI_Testany(*count, c.r, &i, &f, &st);
	*flag = f;
	*index = i == MPI_UNDEFINED ? MPI_UNDEFINED : i + 1;
	fconv_done(&c, *count, reqs, NULL, 0);
	if (f) fstatus(&st, status);
}

static void fsome(int test, MPI_Fint *incount, MPI_Fint *reqs, MPI_Fint *outcount, MPI_Fint *indices,
	MPI_Fint *statuses, MPI_Fint *ierr) {
	fconv c;
	int n = *incount;
	int *ind = malloc(sizeof(int) * (n > 0 ? n : 1));
	if (!ind || !fconv_init(&c, n, reqs, statuses)) {
		free(ind);
		if (test) {
			ORIG("pmpi_testsome_", MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *)
			fn_(incount, reqs, outcount, indices, statuses, ierr);
		} else {
			ORIG("pmpi_waitsome_", MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *)
			fn_(incount, reqs, outcount, indices, statuses, ierr);
		}
		return;
	}
	int out = 0;
	*ierr = test ? MPI_Testsome(n, c.r, &out, ind, c.st) : MPI_Waitsome(n, c.r, &out, ind, c.st);
	*outcount = out;
	for (int k = 0; out != MPI_UNDEFINED && k < out; k++) indices[k] = ind[k] + 1;
	fconv_done(&c, n, reqs, statuses, out == MPI_UNDEFINED ? 0 : out);
	free(ind);
}

void mpi_waitsome_(MPI_Fint *incount, MPI_Fint *reqs, MPI_Fint *outcount, MPI_Fint *indices, MPI_Fint *statuses,
	MPI_Fint *ierr) {
	if (!fpending()) {
		ORIG("pmpi_waitsome_", MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *)
		fn_(incount, reqs, outcount, indices, statuses, ierr);
		return;
	}
	fsome(0, incount, reqs, outcount, indices, statuses, ierr);
}

void mpi_testsome_(MPI_Fint *incount, MPI_Fint *reqs, MPI_Fint *outcount, MPI_Fint *indices, MPI_Fint *statuses,
	MPI_Fint *ierr) {
	if (!fpending()) {
		ORIG("pmpi_testsome_", MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *)
		fn_(incount, reqs, outcount, indices, statuses, ierr);
		return;
	}
	fsome(1, incount, reqs, outcount, indices, statuses, ierr);
}
