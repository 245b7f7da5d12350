// Types shared by the C layer and the Go side of the interposition library.
// This header must not include mpi.h: the Go side knows nothing of MPI.
#ifndef DDTGO_H
#define DDTGO_H
#include <stdint.h>

// DDT_RUNS is the most byte runs per instance that the C layer moves with
// one memcpy each (ddt_bounds.nruns).
#define DDT_RUNS 8

// ddt_bounds are the size and bounds of one type instance, as MPI reports
// them (MPI_Type_size_x, MPI_Type_get_extent_x, MPI_Type_get_true_extent_x);
// the Go side adds contig (one instance is the single run of size bytes
// from data_lb, in type-map order) and data_lb, and, for a type whose
// instance is 2 to DDT_RUNS runs of bytes, each long enough that memcpy
// moves it at least as fast as generated code, those runs in type-map
// order (nruns, run_off relative to the instance's origin, run_len).
typedef struct {
	int64_t size, lb, extent, true_lb, true_extent;
	int64_t data_lb;
	int32_t contig;
	int32_t nruns;
	int64_t run_off[DDT_RUNS], run_len[DDT_RUNS];
} ddt_bounds;

// ddt_step is one step of moving a whole instance by generated code
// (ddt.Committed.NativeSteps): a call of the code at fn on n units, its
// memory mem bytes from the instance's origin, its packed bytes packed
// bytes from the instance's first packed byte, b0 in R8; fn 0 is a memcpy
// of n bytes between the two.
typedef struct {
	uintptr_t fn;
	int64_t mem, packed, n, b0;
} ddt_step;

// ddt_native is the generated code of a served type, which the C layer
// calls directly: its whole-message entries (ddt.Committed.NativeCode),
// pack 0 until that code exists; or, for types whose instances are too
// large for such entries, the steps that move one instance, pack's then
// unpack's (nsteps 0 until the code exists; the memory is the Go side's
// and lives as long as the type's entry there).
typedef struct {
	uintptr_t pack, unpack;
	int64_t max;
	const ddt_step *steps[2];
	int32_t nsteps[2];
} ddt_native;

#endif
