//go:build ddtinterpose

// Declarations shared by shim.c and comm.c.
#ifndef DDT_SHIMINT_H
#define DDT_SHIMINT_H
#include <stdatomic.h>
#include "shim.h"

// ddt_tinfo is what the C layer keeps of a served type.
typedef struct {
	int32_t pin;
	int64_t size, lb, extent, true_lb, true_extent;
} ddt_tinfo;

// ddt_stat are the counters of the statistics line.
typedef struct {
	atomic_long types, mirrored, fallback, packs, unpacks, sends, recvs, bytes;
} ddt_stat;
extern ddt_stat ddt_st;

void ddt_init(void);
int ddt_served(MPI_Datatype t, ddt_tinfo *out);
int ddt_staged(MPI_Datatype t, int64_t count, ddt_tinfo *ti, int64_t *n);
void *ddt_buf_get(int64_t n);
void ddt_buf_put(void *p, int64_t n);
void ddt_reap(void);
#endif
