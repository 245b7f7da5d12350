//go:build ddtinterpose

// Direct messages: a served type whose data lies in long runs is not
// packed into a staging buffer; MPI moves it from and to the user's memory
// through a byte type built once from ddt's description of the type (the
// runs of ddt.Committed.Segments: ddt's optimized, merged I/O vector of one
// instance, as an MPI hvector or hindexed type of the widest unsigned
// integer unit that divides every run, resized to the type's lb and
// extent). The bytes on the wire are the packed stream, exactly what a
// staged message carries, so the two sides need not agree: a direct send
// may meet a staged receive and the other way round (docs/interpose.md,
// "Direct messages").
#include "shimint.h"
#include "_cgo_export.h"
#include <limits.h>
#include <stdlib.h>
#include <time.h>

// DIRECT_RUN is the default of DDT_MPI_DIRECT: a type whose runs average
// at least this many bytes is moved directly (0: never).
#define DIRECT_RUN 128
// DIRECT_MIN is the default of DDT_MPI_DIRECT_MIN: messages (or receive
// buffers) of fewer bytes are always packed by ddt. Staging measured
// faster than direct on small messages (2 KB, docs/interpose-bench.md,
// "Direct messages"); the ping-pong target starts at 64 KB.
#define DIRECT_MIN 65536
// DIRECT_MAXRUNS bounds the runs of one instance (the MPI type's size).
#define DIRECT_MAXRUNS (1 << 22)

static int64_t drun = -1, dmin = -1;

static int64_t direct_run(void) {
	int64_t v = drun;
	if (v >= 0) return v;
	return drun = ddt_envint("DDT_MPI_DIRECT", DIRECT_RUN);
}

static int64_t direct_min(void) {
	int64_t v = dmin;
	if (v >= 0) return v;
	return dmin = ddt_envint("DDT_MPI_DIRECT_MIN", DIRECT_MIN);
}

// build makes the direct type of ti, or reports that it has none.
static int build(const ddt_tinfo *ti, MPI_Datatype *dt) {
	int64_t run = direct_run();
	if (run <= 0 || ti->size <= 0) return 0;
	int64_t room = ti->size / run; // runs averaging >= run bytes are at most this many
	if (room < 1) return 0;
	if (room > DIRECT_MAXRUNS) room = DIRECT_MAXRUNS;
	int64_t *lens = malloc(sizeof(int64_t) * (size_t)room), *offs = malloc(sizeof(int64_t) * (size_t)room);
	int *ilens = NULL;
	MPI_Aint *displs = NULL;
	int ok = 0;
	int64_t elem = 1;
	int64_t k = lens && offs ? ddtgoRuns(ti->pin, room, lens, offs, &elem) : -1;
	if (k > 0 && k <= INT_MAX && (ilens = malloc(sizeof(int) * (size_t)k)) &&
		(displs = malloc(sizeof(MPI_Aint) * (size_t)k))) {
		ok = 1;
		// the unit: the widest unsigned integer that divides every run,
		// offset, the bounds and the size of the type's basic elements
		// (MPI's engines copy units, not bytes, then; on one machine the
		// bytes are the same, and a shorter message, which ends at an
		// element's end, is whole units)
		int64_t u = 8;
		while (u > 1 && elem % u) u >>= 1;
		uint64_t bits = (uint64_t)ti->lb | (uint64_t)ti->extent;
		for (int64_t i = 0; i < k; i++) bits |= (uint64_t)lens[i] | (uint64_t)offs[i];
		while (u > 1 && (bits & (uint64_t)(u - 1))) u >>= 1;
		MPI_Datatype unit = u == 8 ? MPI_UINT64_T : u == 4 ? MPI_UINT32_T : u == 2 ? MPI_UINT16_T : MPI_BYTE;
		for (int64_t i = 0; i < k && ok; i++) {
			if (lens[i] / u > INT_MAX) ok = 0;
			ilens[i] = (int)(lens[i] / u), displs[i] = (MPI_Aint)offs[i];
		}
		// runs of one length at one stride are an hvector (MPI's engines
		// have kernels for it), any others an hindexed
		int regular = 1;
		for (int64_t i = 1; i < k && regular; i++)
			regular = lens[i] == lens[0] && offs[i] - offs[i - 1] == (k > 1 ? offs[1] - offs[0] : 0);
		MPI_Datatype h = MPI_DATATYPE_NULL, v = MPI_DATATYPE_NULL;
		if (ok && regular) {
			if (PMPI_Type_create_hvector((int)k, ilens[0], k > 1 ? (MPI_Aint)(offs[1] - offs[0]) : 0, unit, &v) != MPI_SUCCESS ||
				PMPI_Type_create_hindexed(1, (int[]){1}, (MPI_Aint[]){(MPI_Aint)offs[0]}, v, &h) != MPI_SUCCESS)
				ok = 0;
			if (v != MPI_DATATYPE_NULL) PMPI_Type_free(&v);
		} else if (ok && PMPI_Type_create_hindexed((int)k, ilens, displs, unit, &h) != MPI_SUCCESS) {
			ok = 0;
		}
		if (ok && PMPI_Type_create_resized(h, (MPI_Aint)ti->lb, (MPI_Aint)ti->extent, dt) != MPI_SUCCESS) ok = 0;
		if (h != MPI_DATATYPE_NULL) PMPI_Type_free(&h);
		if (ok && PMPI_Type_commit(dt) != MPI_SUCCESS) {
			PMPI_Type_free(dt);
			ok = 0;
		}
	}
	free(lens), free(offs), free(ilens), free(displs);
	return ok;
}

// ---- the MPI library's own engine (DDT_MPI_OWN) ------------------------------
//
// Staging pays for two extra copies (the staging buffer on each side) and
// serializes what the MPI library's engine overlaps: Open MPI's ob1 packs
// a message of a derived type straight into its shared-memory fragments
// while the receiver unpacks the fragments before, and MPICH over UCX
// packs and unpacks each fragment through its engine's callbacks. A
// staged message therefore wins only where ddt packs clearly faster than
// the MPI library's engine. A type that is not direct is timed once, on
// its third large message (DDT_MPI_DIRECT_MIN bytes or more;
// DDT_MPI_OWN_WAIT) or the first after ddt has generated its native code:
// ddt's pack and the MPI library's PMPI_Pack of that message into a
// scratch buffer, best of OWN_REPS each (reading the user's buffer only:
// a receive's buffer is read, never written). Types of more than one
// basic type, or of basic elements that do not divide the trailer of a
// pipelined message's packet 0, stay staged (own_faster). If MPI took less than R
// times ddt's time, the type's large messages go to MPI as the user's own
// type from then on (dstate 2), else they stay staged (-1). On one
// machine the bytes on the wire are the packed stream either way, so each
// side decides for itself, as for direct types.
//
// R is DDT_MPI_OWN for types whose runs follow a few patterns (ddt's
// ddtgoRegular: vectors, subarrays) and DDT_MPI_OWN_IRREGULAR for the
// others whose runs average OWN_IRREGULAR_RUN bytes or more (shorter ones
// always stay staged). MPI_Pack predicts the point-to-point engine only so
// far: on irregular indexed types MPICH's point-to-point engine was 4-6x
// slower than staging where its MPI_Pack was as fast as ddt's
// (SPECFEM3D_oc M, LAMMPS_full.send L), and Open MPI's 3x slower on
// SPECFEM3D_cm L (runs of 12 bytes) where its MPI_Pack took 1.6-3.7x
// ddt's time. Messages that the library pipelines (pipe.c) stay staged:
// the packets overlap ddt's packing with the transfer (L2 M on Open MPI:
// 1.3x faster staged with MPI_Pack as fast as ddt's). Defaults, from the
// ping-pong (docs/interpose-bench.md, "Ping-pong, second pass"): 0, never,
// on both MPIs, so that ddt does the datatype work the program preloaded
// it for and the statistics say so. The choice is opt-in: on Open MPI
// DDT_MPI_OWN=2 DDT_MPI_OWN_IRREGULAR=2 measured best (irregular types of
// runs of 32 bytes or more); on MPICH no ratio helps: its point-to-point
// engine (over UCX, a pack callback per fragment that seeks into the type)
// was 1.5x faster than staging on NAS_MG_x M, but 3-5x slower on L1 M (a
// vector of 131072 doubles) with MPI_Pack as fast as ddt's; MPI_Pack does
// not predict it.
#define OWN_RATIO 0.0
#define OWN_IRREGULAR 0.0
#define OWN_WAIT 3
#define OWN_REPS 2
// OWN_PATTERNS bounds the patterns of a regular type (ddtgoRegular);
// irregular types of shorter runs than OWN_IRREGULAR_RUN bytes on average
// are always staged.
#define OWN_PATTERNS 8
#define OWN_IRREGULAR_RUN 32

static double own_ratio = -1, own_irregular = -1;
static int64_t own_wait = -1;

static double envratio(const char *name, double def) {
	const char *e = getenv(name);
	if (e && *e) {
		char *end;
		double x = strtod(e, &end);
		if (!*end && x >= 0 && x < 1e9) return x;
	}
	return def;
}

// own reports whether any type may be left to the MPI library's engine.
static int own(void) {
	if (own_ratio < 0) {
		own_irregular = envratio("DDT_MPI_OWN_IRREGULAR", OWN_IRREGULAR);
		own_ratio = envratio("DDT_MPI_OWN", OWN_RATIO);
	}
	return own_ratio > 0 || own_irregular > 0;
}

static double now(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

// own_faster times ddt's pack of count instances of ti at buf (n bytes)
// against the MPI library's PMPI_Pack of them as t, and reports whether
// MPI took less than R times ddt's time (above).
static int own_faster(const ddt_tinfo *ti, int64_t n, MPI_Datatype t, const void *buf, int64_t count) {
	if (n > INT_MAX || count > INT_MAX) return 0;
	// MPI_BOTTOM (a struct of absolute addresses): MPICH 4.0.2's MPI_Pack
	// rejects it (a fatal error on MPI_COMM_SELF), so such a type is not
	// timed and stays staged (found by DDTBench's WRF and LAMMPS types
	// under DDT_MPI_OWN)
	if (buf == MPI_BOTTOM) return 0;
	char *tmp = ddt_buf_get(n);
	if (!tmp) return 0;
	double td = 1e30, tm = 1e30;
	int ok = 1;
	for (int r = 0; r < OWN_REPS && ok; r++) {
		double t0 = now();
		ok = ddt_pack(ti, buf, count, tmp, n) == n;
		double t1 = now();
		int pos = 0;
		ok = ok && PMPI_Pack(buf, (int)count, t, tmp, (int)n, &pos, MPI_COMM_SELF) == MPI_SUCCESS && pos == n;
		double t2 = now();
		if (t1 - t0 < td) td = t1 - t0;
		if (t2 - t1 < tm) tm = t2 - t1;
	}
	ddt_buf_put(tmp, n);
	if (!ok) return 0;
	int64_t runs = 0, elem = 0;
	int regular = ddtgoRegular(ti->pin, OWN_PATTERNS, &runs, &elem);
	// a receive as the user's type may get packet 0 of a pipelined
	// message (PL_L0 bytes), whose trailer dir_recvd gathers from the
	// user's memory: its bytes must end at element boundaries (MPICH
	// fails a message that ends inside an element with MPI_ERR_TRUNCATE)
	if (elem <= 0 || PL_D0 % elem || PL_TRAILER % elem) return 0;
	if (!regular && (runs <= 0 || ti->size / runs < OWN_IRREGULAR_RUN)) return 0;
	return tm < (regular ? own_ratio : own_irregular) * td;
}

int ddt_direct(const ddt_tinfo *ti, int64_t n, MPI_Datatype t, const void *buf, int64_t count, MPI_Datatype *dt) {
	if (n < direct_min()) return 0;
	int32_t st = ti->dstate;
	if (st == 1) {
		*dt = ti->dtype;
		return 1;
	}
	if (st == -1 || ti->key == 0) return 0;
	if ((st == 2 || st == -2) && pl_would(ti, n)) return 0; // pipelined: staged
	if (st == 2) {
		DDT_COUNT(own, 1);
		*dt = t;
		return 1;
	}
	MPI_Datatype d = MPI_DATATYPE_NULL;
	if (st == 0) {
		int ok = build(ti, &d);
		MPI_Datatype mine = d;
		st = ddt_tset_direct(ti->key, 0, ok ? 1 : own() > 0 ? -2 : -1, &d);
		if (ok && (st != 1 || d != mine)) PMPI_Type_free(&mine); // another thread was first
		if (st == 1) {
			*dt = d;
			return 1;
		}
		if (st != -2 || pl_would(ti, n)) return 0;
	}
	if (st == -2) {
		// wait for ddt's native code (or a few messages) before timing it
		if (own_wait < 0) own_wait = ddt_envint("DDT_MPI_OWN_WAIT", OWN_WAIT);
		if (!ti->nat.pack && ddt_tseen(ti->key) < own_wait) return 0;
		st = ddt_tset_direct(ti->key, -2, own_faster(ti, n, t, buf, count) ? 2 : -1, &d);
		if (st == 2) {
			DDT_COUNT(own, 1);
			*dt = t;
			return 1;
		}
	}
	return 0;
}
