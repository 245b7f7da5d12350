//go:build ddtinterpose

// Internal declarations of the C layer of the interposition library.
#ifndef DDT_SHIM_H
#define DDT_SHIM_H
#include <mpi.h>
#include <stdint.h>
#include <stddef.h>
#include "ddtgo.h"

#define DDT_H(t) ((uintptr_t)(t))

// ddt_on is 0 when DDT_MPI=0: every wrapper goes straight to PMPI.
extern int ddt_on;

// ddt_args collects a constructor's arguments in MPI_Type_get_contents
// order for the Go side.
typedef struct {
	int64_t *ints, *addrs;
	uintptr_t *types;
	int64_t ni, na, nt;
	int64_t ibuf[32], abuf[16];
	uintptr_t tbuf[16];
	int bad;
} ddt_args;

void ddt_args_init(ddt_args *a, int64_t ni, int64_t na, int64_t nt);
void ddt_put_int(ddt_args *a, int64_t v);
void ddt_put_addr(ddt_args *a, int64_t v);
void ddt_put_type(ddt_args *a, MPI_Datatype t);
int64_t ddt_order(int o);
int64_t ddt_distrib(int d);
int64_t ddt_darg(int d);
// ddt_construct hands the arguments of a new derived type to the Go side
// and releases them.
void ddt_construct(int combiner, MPI_Datatype t, ddt_args *a);
#endif
