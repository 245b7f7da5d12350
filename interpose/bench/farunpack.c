/* farunpack: unpack (and pack) of strided elements in one process, loop
 * patterns against the MPI library's PMPI_Unpack / PMPI_Pack of the same
 * type; samples interleaved, medians. docs/interpose-bench.md,
 * "Far-apart doubles, unpack (far2)"; farpack.c is the pack experiment
 * before it.
 *
 *   mpicc.mpich -O2 -mavx512f -mavx512bw -o farunpack interpose/bench/farunpack.c
 *   ./farunpack unpack|pack NI SI NO SO L
 *
 * The type: hvector(NO, 1, SO, vector(NI, L/8, SI/8, MPI_DOUBLE)), the
 * image NO*SO bytes; L 8 (single doubles) or a multiple of 64 (blocks).
 * The cells of the task:
 *   L3 M        unpack 362 2896 362 1048352 8
 *   NAS_MG_x L  unpack 724 144 724 104544 8      (and pack)
 *   L8 M        unpack 8192 256 1 2097152 128
 * x86-64 only (the loops of single doubles are inline assembly, the
 * block loops AVX-512 intrinsics). Prints the median time of each
 * variant and the plain loop's time over each (> 1: faster than the
 * plain loop; f_pmpi's column is the MPI library against the plain loop,
 * f_mpi's MPI_Pack / MPI_Unpack: with LD_PRELOAD=libddtmpi the library). */
#include <immintrin.h>
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

static long NI, SI, NO, SO, L;
static unsigned char *img;
static unsigned char *buf;
static MPI_Datatype T;
static int packing;

static void f_pmpi(void)
{
    int p = 0;
    if (packing)
        PMPI_Pack(img, 1, T, buf, (int)(NI * NO * L), &p, MPI_COMM_SELF);
    else
        PMPI_Unpack(buf, (int)(NI * NO * L), &p, img, 1, T, MPI_COMM_SELF);
}

/* MPI_Pack / MPI_Unpack: the library preloaded (LD_PRELOAD), else the
   MPI library's again */
static void f_mpi(void)
{
    int p = 0;
    if (packing)
        MPI_Pack(img, 1, T, buf, (int)(NI * NO * L), &p, MPI_COMM_SELF);
    else
        MPI_Unpack(buf, (int)(NI * NO * L), &p, img, 1, T, MPI_COMM_SELF);
}

/* Single doubles. m: the element's memory address, p: its packed one.
   Each variant is a loop over rows and elements; BODY moves element (s
   memory, o packed), PRE runs before it (a prefetch k elements ahead in
   the row: past the row's end it touches the gap or the next row, as
   the code of a flat loop would). */
#define LOOP8(NAME, STEP, ...)                                                 \
    __attribute__((noinline)) static void NAME(void)                           \
    {                                                                          \
        unsigned char *o = buf;                                                \
        for (long j = 0; j < NO; j++) {                                        \
            unsigned char *m = img + j * SO;                                   \
            long i = 0;                                                        \
            for (; i + STEP <= NI; i += STEP) {                                \
                __VA_ARGS__;                                                       \
                m += STEP * SI;                                                \
                o += STEP * 8;                                                 \
            }                                                                  \
            for (; i < NI; i++) {                                              \
                if (packing)                                                   \
                    memcpy(o, m, 8);                                           \
                else                                                           \
                    memcpy(m, o, 8);                                           \
                m += SI;                                                       \
                o += 8;                                                        \
            }                                                                  \
        }                                                                      \
    }

/* unpack: load packed o+8k, store to m+k*SI */
#define U1(k) { uint64_t v; __asm__ volatile("mov %c2(%1),%0\n\tmov %0,(%3)" : "=&r"(v) : "r"(o), "i"(8 * (k)), "r"(m + (k) * SI) : "memory"); }
#define PFW(k, d) __asm__ volatile("prefetchw (%0)" : : "r"(m + ((k) + (d)) * SI));
#define PT0(k, d) __asm__ volatile("prefetcht0 (%0)" : : "r"(m + ((k) + (d)) * SI));
#define TCH(k, d) { uint64_t t; __asm__ volatile("mov (%1),%0" : "=r"(t) : "r"(m + ((k) + (d)) * SI)); }
#define NT1(k) { uint64_t v; __asm__ volatile("mov %c2(%1),%0\n\tmovnti %0,(%3)" : "=&r"(v) : "r"(o), "i"(8 * (k)), "r"(m + (k) * SI) : "memory"); }

LOOP8(u_loop, 1, U1(0))
LOOP8(u_u4, 4, {
    uint64_t a, b, c, d;
    __asm__ volatile("mov (%4),%0\n\tmov 8(%4),%1\n\tmov 16(%4),%2\n\tmov 24(%4),%3\n\t"
                     "mov %0,(%5)\n\tmov %1,(%5,%6)\n\tmov %2,(%5,%6,2)\n\tmov %3,(%7)"
                     : "=&r"(a), "=&r"(b), "=&r"(c), "=&r"(d)
                     : "r"(o), "r"(m), "r"(SI), "r"(m + 3 * SI)
                     : "memory");
})
LOOP8(u_pfw2, 1, PFW(0, 2) U1(0))
LOOP8(u_pfw4, 1, PFW(0, 4) U1(0))
LOOP8(u_pfw8, 1, PFW(0, 8) U1(0))
LOOP8(u_pfw16, 1, PFW(0, 16) U1(0))
LOOP8(u_pfw32, 1, PFW(0, 32) U1(0))
LOOP8(u_pt8, 1, PT0(0, 8) U1(0))
LOOP8(u_tch8, 1, TCH(0, 8) U1(0))
LOOP8(u_nt, 1, NT1(0))
/* batch of 8: prefetchw the next batch's 8, then the 8 moves */
LOOP8(u_bpf8, 8, {
    PFW(0, 8) PFW(1, 8) PFW(2, 8) PFW(3, 8) PFW(4, 8) PFW(5, 8) PFW(6, 8) PFW(7, 8)
    U1(0) U1(1) U1(2) U1(3) U1(4) U1(5) U1(6) U1(7)
})
/* each store twice (farpack's repeats, for unpack) */
LOOP8(u_st2, 1, { uint64_t v; __asm__ volatile("mov (%1),%0\n\tmov %0,(%2)\n\tmov %0,(%2)" : "=&r"(v) : "r"(o), "r"(m) : "memory"); })
/* an LFENCE every 16 elements (bounds the elements in flight) */
LOOP8(u_lf16, 16, {
    U1(0) U1(1) U1(2) U1(3) U1(4) U1(5) U1(6) U1(7) U1(8) U1(9) U1(10) U1(11) U1(12) U1(13) U1(14) U1(15)
    __asm__ volatile("lfence" ::: "memory");
})

/* pack: load m+k*SI, store packed o+8k */
#define P1(k) { uint64_t v; __asm__ volatile("mov (%3),%0\n\tmov %0,%c2(%1)" : "=&r"(v) : "r"(o), "i"(8 * (k)), "r"(m + (k) * SI) : "memory"); }
LOOP8(p_loop, 1, P1(0))
LOOP8(p_st3, 1, { uint64_t v; __asm__ volatile("mov (%1),%0\n\tmov %0,(%2)\n\tmov %0,(%2)\n\tmov %0,(%2)" : "=&r"(v) : "r"(m), "r"(o) : "memory"); })
LOOP8(p_pt8, 1, PT0(0, 8) P1(0))
LOOP8(p_pt16, 1, PT0(0, 16) P1(0))
LOOP8(p_g8, 4, {
    __m256d x = _mm256_castpd128_pd256(_mm_load_sd((double *)m));
    x = _mm256_blend_pd(x, _mm256_broadcast_sd((double *)(m + SI)), 2);
    x = _mm256_blend_pd(x, _mm256_broadcast_sd((double *)(m + 2 * SI)), 4);
    x = _mm256_blend_pd(x, _mm256_broadcast_sd((double *)(m + 3 * SI)), 8);
    _mm256_storeu_pd((double *)o, x);
})

/* Blocks of L bytes (a multiple of 64). */
#define LOOPB(NAME, ...)                                                       \
    __attribute__((noinline)) static void NAME(void)                           \
    {                                                                          \
        unsigned char *o = buf;                                                \
        for (long j = 0; j < NO; j++) {                                        \
            unsigned char *m = img + j * SO;                                   \
            for (long i = 0; i < NI; i++) {                                    \
                __VA_ARGS__;                                                       \
                m += SI;                                                       \
                o += L;                                                        \
            }                                                                  \
        }                                                                      \
    }
#define Z64(t) for (long k = 0; k < L; k += 64) _mm512_storeu_si512(m + k, _mm512_loadu_si512(o + k))
LOOPB(b_z64, Z64(0))
LOOPB(b_z64m, {
    __mmask64 km = ~0ULL;
    for (long k = 0; k < L; k += 64)
        _mm512_mask_storeu_epi8(m + k, km, _mm512_maskz_loadu_epi8(km, o + k));
})
LOOPB(b_y32, for (long k = 0; k < L; k += 32) _mm256_storeu_si256((__m256i *)(m + k), _mm256_loadu_si256((__m256i *)(o + k))))
LOOPB(b_memcpy, memcpy(m, o, L))
LOOPB(b_movsb, { void *d = m; const void *s = o; size_t n = L; __asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(n) : : "memory"); })
LOOPB(b_pfw1, { for (long k = 0; k < L; k += 64) _mm_prefetch((const char *)(m + SI + k), _MM_HINT_ET0); Z64(0); })
LOOPB(b_pfw4, { for (long k = 0; k < L; k += 64) _mm_prefetch((const char *)(m + 4 * SI + k), _MM_HINT_ET0); Z64(0); })
LOOPB(b_pfw8, { for (long k = 0; k < L; k += 64) _mm_prefetch((const char *)(m + 8 * SI + k), _MM_HINT_ET0); Z64(0); })
LOOPB(b_pfw16, { for (long k = 0; k < L; k += 64) _mm_prefetch((const char *)(m + 16 * SI + k), _MM_HINT_ET0); Z64(0); })
/* PREFETCHW of every line the block D rows ahead covers (its last
   byte's line too: a block not on a line boundary covers one more) */
#define PFWE(D) { for (long k = 0; k < L; k += 64) _mm_prefetch((const char *)(m + D * SI + k), _MM_HINT_ET0); \
                  _mm_prefetch((const char *)(m + D * SI + L - 1), _MM_HINT_ET0); }
LOOPB(b_pfe4, { PFWE(4) Z64(0); })
LOOPB(b_pfe8, { PFWE(8) Z64(0); })
LOOPB(b_pfe16, { PFWE(16) Z64(0); })

/* long blocks as memcpy moves them: one unaligned 64-byte move at the
   start, then 64-byte moves whose stores are on line boundaries (the
   loads not), the last one unaligned, overlapping (L >= 128) */
LOOPB(b_dal, {
    long a = (64 - ((uintptr_t)m & 63)) & 63;
    __m512i h = _mm512_loadu_si512(o), t = _mm512_loadu_si512(o + L - 64);
    for (long k = a; k + 64 <= L; k += 64)
        _mm512_store_si512((void *)(m + k), _mm512_loadu_si512(o + k));
    _mm512_storeu_si512(m, h);
    _mm512_storeu_si512(m + L - 64, t);
})
/* the same with the loop 4 moves an iteration, loads before stores */
LOOPB(b_dal4, {
    long a = (64 - ((uintptr_t)m & 63)) & 63;
    __m512i h = _mm512_loadu_si512(o), t = _mm512_loadu_si512(o + L - 64);
    long k = a;
    for (; k + 256 <= L; k += 256) {
        __m512i x0 = _mm512_loadu_si512(o + k), x1 = _mm512_loadu_si512(o + k + 64);
        __m512i x2 = _mm512_loadu_si512(o + k + 128), x3 = _mm512_loadu_si512(o + k + 192);
        _mm512_store_si512((void *)(m + k), x0);
        _mm512_store_si512((void *)(m + k + 64), x1);
        _mm512_store_si512((void *)(m + k + 128), x2);
        _mm512_store_si512((void *)(m + k + 192), x3);
    }
    for (; k + 64 <= L; k += 64)
        _mm512_store_si512((void *)(m + k), _mm512_loadu_si512(o + k));
    _mm512_storeu_si512(m, h);
    _mm512_storeu_si512(m + L - 64, t);
})

/* stores aligned to the destination's lines: a masked store for the
   part of each line the block covers, the loads from the packed bytes
   at the same offsets (masked, unaligned) */
LOOPB(b_al, {
    uintptr_t a = (uintptr_t)m & 63;
    unsigned char *d = m - a;
    const unsigned char *q = o - a;
    long end = a + L;
    for (long k = 0; k < end; k += 64) {
        __mmask64 km = ~0ULL;
        if (k == 0)
            km &= ~0ULL << a;
        if (end - k < 64)
            km &= ~0ULL >> (64 - (end - k));
        _mm512_mask_storeu_epi8(d + k, km, _mm512_maskz_loadu_epi8(km, q + k));
    }
})
LOOPB(b_nt, for (long k = 0; k < L; k += 64) _mm512_stream_si512((void *)(m + k), _mm512_loadu_si512(o + k)))
LOOPB(p_b_z64, for (long k = 0; k < L; k += 64) _mm512_storeu_si512(o + k, _mm512_loadu_si512(m + k)))

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc != 7) {
        fprintf(stderr, "usage: farunpack unpack|pack NI SI NO SO L\n");
        MPI_Finalize();
        return 2;
    }
    packing = strcmp(argv[1], "pack") == 0;
    NI = atol(argv[2]), SI = atol(argv[3]), NO = atol(argv[4]), SO = atol(argv[5]), L = atol(argv[6]);
    if (SI % 8 || SO < 1 || L % 8 || (L != 8 && L % 64)) {
        fprintf(stderr, "farunpack: SI a multiple of 8, L 8 or a multiple of 64\n");
        MPI_Finalize();
        return 2;
    }
    MPI_Datatype row;
    MPI_Type_vector((int)NI, (int)(L / 8), (int)(SI / 8), MPI_DOUBLE, &row);
    MPI_Type_create_hvector((int)NO, 1, SO, row, &T);
    MPI_Type_commit(&T);
    MPI_Type_free(&row);
    size_t n = (size_t)SO * NO + (size_t)NI * SI + 4096;
    /* FAROFF=bytes: both buffers that far past a page boundary (malloc's
       large blocks start 16 bytes past one) */
    long off = getenv("FAROFF") ? atol(getenv("FAROFF")) : 0;
    img = aligned_alloc(4096, (n + off + 4095) / 4096 * 4096);
    buf = aligned_alloc(4096, (NI * NO * L + off + 4095) / 4096 * 4096);
    if (img && buf)
        img += off, buf += off;
    if (!img || !buf) {
        fprintf(stderr, "farunpack: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (size_t k = 0; k + 8 <= n; k += 8) {
        double d = (double)(k / 8);
        memcpy(img + k, &d, 8);
    }
    for (long k = 0; k < NI * NO * L; k += 8) {
        double d = -(double)k;
        memcpy(buf + k, &d, 8);
    }
    const char *names[32];
    void (*fn[32])(void);
    int K = 0;
    /* FARVARS=a,b,...: only these variants (and the MPI calls) */
    const char *only = getenv("FARVARS");
#define V(f) ((k < 2 || !only || strstr(only, #f)) ? (void)(names[K] = #f, fn[K++] = f) : (void)0), k++
    int k = 0;
    V(f_pmpi);
    V(f_mpi);
    if (L == 8 && !packing) {
        V(u_loop), V(u_u4), V(u_pfw2), V(u_pfw4), V(u_pfw8), V(u_pfw16), V(u_pfw32), V(u_pt8), V(u_tch8), V(u_nt);
        V(u_bpf8), V(u_st2), V(u_lf16);
    } else if (L == 8) {
        V(p_loop), V(p_st3), V(p_pt8), V(p_pt16), V(p_g8);
    } else if (!packing) {
        V(b_z64), V(b_z64m), V(b_y32), V(b_memcpy), V(b_movsb), V(b_pfw1), V(b_pfw4), V(b_pfw8), V(b_pfw16), V(b_al), V(b_pfe4), V(b_pfe8), V(b_pfe16), V(b_dal), V(b_dal4);
        if (off % 64 == 0)
            V(b_nt);
    } else {
        V(p_b_z64);
    }
    /* every variant must produce what PMPI does */
    {
        size_t bn = NI * NO * L;
        unsigned char *want = malloc(n), *save = malloc(bn);
        memcpy(save, buf, bn);
        f_pmpi();
        memcpy(want, packing ? buf : img, packing ? bn : n);
        for (int j = 1; j < K; j++) {
            fn[j]();
            if (memcmp(want, packing ? buf : img, packing ? bn : n) != 0)
                fprintf(stderr, "farunpack: %s differs from PMPI\n", names[j]);
        }
        free(want);
        free(save);
    }
    int CALLS = (int)(2e8 / (NI * NO * (L == 8 ? 64 : L) + 1));
    if (CALLS < 3)
        CALLS = 3;
    if (CALLS > 200)
        CALLS = 200;
    enum { R = 15 };
    static double s[32][R];
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
    printf("%s %ld x %ld at %ld, rows %ld apart, L %ld, %d calls a sample:\n", packing ? "pack" : "unpack", NO, NI, SI, SO, L, CALLS);
    for (int k = 0; k < K; k++) {
        for (int a = 0; a < R; a++)
            for (int b = a + 1; b < R; b++)
                if (s[k][b] < s[k][a]) {
                    double t = s[k][a];
                    s[k][a] = s[k][b];
                    s[k][b] = t;
                }
    }
    for (int k = 0; k < K; k++)
        printf("  %-9s %9.1f us  loop/x %.2f  (q1-q3 %.1f-%.1f)\n", names[k], s[k][R / 2] * 1e6, s[2][R / 2] / s[k][R / 2],
               s[k][R / 4] * 1e6, s[k][3 * R / 4] * 1e6);
    MPI_Type_free(&T);
    MPI_Finalize();
    return 0;
}
