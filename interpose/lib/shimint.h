//go:build ddtinterpose

// Declarations shared by shim.c and comm.c.
#ifndef DDT_SHIMINT_H
#define DDT_SHIMINT_H
#include <stdatomic.h>
#include "shim.h"

// ddt_tinfo is what the C layer keeps of a served type.
typedef struct {
	uintptr_t key; // the MPI handle
	int32_t pin;
	int64_t size, lb, extent, true_lb, true_extent;
	ddt_native nat; // the generated code, called without entering Go
	// contig: one instance is the run of size bytes at data_lb in type-map
	// order, so count instances (count 1, or extent == size) are one memcpy
	int64_t data_lb;
	int32_t contig;
} ddt_tinfo;

// ddt_stat are the counters of the statistics line.
typedef struct {
	atomic_long types, mirrored, fallback, packs, unpacks, sends, recvs, bytes;
	atomic_long native; // packs and unpacks done without entering Go (generated code, or one memcpy)
} ddt_stat;
extern ddt_stat ddt_st;
extern int ddt_stats_on;
// DDT_COUNT adds v to a counter of the statistics line, only when the line
// is asked for (DDT_MPI_STATS=1): the atomic additions cost more than a
// small pack.
#define DDT_COUNT(field, v) \
	do { \
		if (ddt_stats_on) atomic_fetch_add_explicit(&ddt_st.field, (v), memory_order_relaxed); \
	} while (0)

void ddt_init(void);
int ddt_served(MPI_Datatype t, ddt_tinfo *out);
int ddt_staged(MPI_Datatype t, int64_t count, ddt_tinfo *ti, int64_t *n);
void *ddt_buf_get(int64_t n);
void ddt_buf_put(void *p, int64_t n);
void ddt_reap(void);
// ddt_pending reports whether operations are pending (or freed requests owed work).
int ddt_pending(void);
// ddt_pack packs count instances at src into room bytes at dst and returns
// the bytes written, or -1; ddt_unpack unpacks the first n bytes at src
// into count instances at dst and returns the bytes used, or -1. Both run
// the type's generated code directly once it exists.
int64_t ddt_pack(const ddt_tinfo *ti, const void *src, int64_t count, void *dst, int64_t room);
int64_t ddt_unpack(const ddt_tinfo *ti, const void *src, int64_t n, void *dst, int64_t count);
#endif
