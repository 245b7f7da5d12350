/* Shared helpers of interpose/test's programs (tests the peers' datatype
 * suites taught, written for this project). Each program checks its own
 * results, prints "ok NAME" on rank 0 per check, "PASS" at the end, and
 * aborts with a message on the first failure. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>

static int me, np;

#define CHECK(cond, ...)                                                          \
    do {                                                                          \
        if (!(cond)) {                                                            \
            fprintf(stderr, "rank %d: FAIL %s:%d: ", me, __FILE__, __LINE__);     \
            fprintf(stderr, __VA_ARGS__);                                         \
            fprintf(stderr, "\n");                                                \
            MPI_Abort(MPI_COMM_WORLD, 1);                                         \
        }                                                                         \
    } while (0)

static void ok(const char *name)
{
    if (me == 0)
        printf("ok %s\n", name);
}

static void begin(int *argc, char ***argv)
{
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
}

static int end(void)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0)
        printf("PASS\n");
    MPI_Finalize();
    return 0;
}

static inline int right(void) { return (me + 1) % np; }
static inline int left(void) { return (me + np - 1) % np; }
