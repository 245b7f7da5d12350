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

// envsize reads a byte count (a number, optionally followed by k or K)
// from the environment variable name, or returns def.
static int64_t envsize(const char *name, int64_t def) {
	const char *e = getenv(name);
	if (e && *e) {
		char *end;
		long long x = strtoll(e, &end, 10);
		if (*end == 'k' || *end == 'K') x <<= 10, end++;
		if (!*end && x >= 0) return x;
	}
	return def;
}

static int64_t direct_run(void) {
	int64_t v = drun;
	if (v >= 0) return v;
	return drun = envsize("DDT_MPI_DIRECT", DIRECT_RUN);
}

static int64_t direct_min(void) {
	int64_t v = dmin;
	if (v >= 0) return v;
	return dmin = envsize("DDT_MPI_DIRECT_MIN", DIRECT_MIN);
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

int ddt_direct(const ddt_tinfo *ti, int64_t n, MPI_Datatype *dt) {
	if (n < direct_min()) return 0;
	if (ti->dstate == 1) {
		*dt = ti->dtype;
		return 1;
	}
	if (ti->dstate < 0 || ti->key == 0) return 0;
	MPI_Datatype t = MPI_DATATYPE_NULL;
	int ok = build(ti, &t);
	MPI_Datatype mine = t;
	int32_t st = ddt_tset_direct(ti->key, ok ? 1 : -1, &t);
	if (ok && (st != 1 || t != mine)) PMPI_Type_free(&mine); // another thread was first
	if (st != 1) return 0;
	*dt = t;
	return 1;
}
