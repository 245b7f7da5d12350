/* Helpers of the interposition tests: each program checks its results
   against layouts computed by hand here, prints "ok NAME" per check and
   exits with status 1 on the first failure. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>

static int rank_, size_;

#define CHECK(cond, ...)                                            \
	do {                                                            \
		if (!(cond)) {                                              \
			fprintf(stderr, "rank %d: FAIL %s:%d: ", rank_, __FILE__, __LINE__); \
			fprintf(stderr, __VA_ARGS__);                           \
			fprintf(stderr, "\n");                                  \
			MPI_Abort(MPI_COMM_WORLD, 1);                           \
		}                                                           \
	} while (0)

static void ok(const char *name) {
	if (rank_ == 0) printf("ok %s\n", name);
}

static void start(int *argc, char ***argv) {
	MPI_Init(argc, argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
	MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

/* fill writes a pattern that depends on the byte's index and a seed. */
static void fill(void *p, size_t n, int seed) {
	unsigned char *b = p;
	for (size_t i = 0; i < n; i++) b[i] = (unsigned char)(i * 7 + seed * 31 + 1);
}
