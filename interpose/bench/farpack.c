/* farpack: pack of single doubles far apart, in one process, the plain
 * loop (one load and one store per element) against the loop storing
 * each element 2, 3, 4 or 6 times (the repeats of the native code's
 * throttleOf, internal/engine/jit/gen.go) and the MPI library's
 * PMPI_Pack of the same type; samples interleaved, medians.
 * docs/interpose-bench.md, "Pack cells below 1, third pass".
 *
 *   mpicc.openmpi -O2 -o farpack interpose/bench/farpack.c    (or mpicc.mpich)
 *   ./farpack STRIDE [OUTER]
 *
 * The layout is NAS_MG_x M's at STRIDE bytes (default 2064): 128 x 128
 * doubles, rows of 128 STRIDE apart, rows 130 * STRIDE apart; with OUTER,
 * OUTER rows of 128, evenly STRIDE apart (one vector). x86-64 only (the
 * loops are inline assembly). Prints the median time of each variant and
 * the plain loop's time over each. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

static long NI = 128, NO = 128, SI = 2064, SO;
static unsigned char *img;
static uint64_t *buf;
static MPI_Datatype T;

static void f_pmpi(void)
{
    int p = 0;
    PMPI_Pack(img, 1, T, buf, (int)(NI * NO * 8), &p, MPI_COMM_SELF);
}

/* a loop over the rows, four elements per iteration, BODY moving one
   element from s to o */
#define LOOP(NAME, ...)                                                        \
    __attribute__((noinline)) static void NAME(void)                           \
    {                                                                          \
        uint64_t *o = buf;                                                     \
        for (long j = 0; j < NO; j++) {                                        \
            unsigned char *b = img + j * SO;                                   \
            for (long i = 0; i < NI; i += 4) {                                 \
                { const unsigned char *s = b; __VA_ARGS__ }                    \
                { const unsigned char *s = b + SI; __VA_ARGS__ }               \
                { const unsigned char *s = b + 2 * SI; __VA_ARGS__ }           \
                { const unsigned char *s = b + 3 * SI; __VA_ARGS__ }           \
                b += 4 * SI;                                                   \
            }                                                                  \
        }                                                                      \
    }
#define LD uint64_t v; __asm__ volatile("mov (%1),%0" : "=r"(v) : "r"(s));
#define ST(N) __asm__ volatile(N : : "r"(o), "r"(v) : "memory"); o++;
#define S1 "mov %1,(%0)\n\t"
LOOP(f_loop, LD ST(S1))
LOOP(f_st2, LD ST(S1 S1))
LOOP(f_st3, LD ST(S1 S1 S1))
LOOP(f_st4, LD ST(S1 S1 S1 S1))
LOOP(f_st6, LD ST(S1 S1 S1 S1 S1 S1))

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc > 1)
        SI = atol(argv[1]);
    SO = SI * 130;
    if (argc > 2) {
        NO = atol(argv[2]);
        SO = SI * NI;
    }
    if (SI < 8 || SI % 8 || NO < 1) {
        fprintf(stderr, "usage: farpack STRIDE [OUTER] (STRIDE a multiple of 8)\n");
        MPI_Finalize();
        return 2;
    }
    MPI_Datatype row;
    MPI_Type_vector((int)NI, 1, (int)(SI / 8), MPI_DOUBLE, &row);
    MPI_Type_create_hvector((int)NO, 1, SO, row, &T);
    MPI_Type_commit(&T);
    MPI_Type_free(&row);
    size_t n = (size_t)SO * NO + 64;
    img = malloc(n);
    buf = malloc(NI * NO * 8);
    if (!img || !buf) {
        fprintf(stderr, "farpack: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (size_t k = 0; k + 8 <= n; k += 8) {
        double d = (double)(k / 8);
        memcpy(img + k, &d, 8);
    }
    const char *names[] = {"pmpi", "loop", "st2", "st3", "st4", "st6"};
    void (*fn[])(void) = {f_pmpi, f_loop, f_st2, f_st3, f_st4, f_st6};
    enum { K = 6, R = 21, CALLS = 30 };
    double s[K][R];
    for (int k = 0; k < K; k++)
        for (int i = 0; i < CALLS; i++)
            fn[k]();
    for (int r = 0; r < R; r++)
        for (int j = 0; j < K; j++) {
            int k = (r + j) % K;
            double t0 = now();
            for (int i = 0; i < CALLS; i++)
                fn[k]();
            s[k][r] = (now() - t0) / CALLS;
        }
    printf("stride %ld, %ld doubles:", SI, NI * NO);
    for (int k = 0; k < K; k++) {
        for (int a = 0; a < R; a++)
            for (int b = a + 1; b < R; b++)
                if (s[k][b] < s[k][a]) {
                    double t = s[k][a];
                    s[k][a] = s[k][b];
                    s[k][b] = t;
                }
        printf(" %s %.1f us", names[k], s[k][R / 2] * 1e6);
    }
    printf("\nloop/x:");
    for (int k = 0; k < K; k++)
        printf(" %s %.2f", names[k], s[1][R / 2] / s[k][R / 2]);
    printf("\n");
    MPI_Type_free(&T);
    MPI_Finalize();
    return 0;
}
