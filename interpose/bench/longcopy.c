/* longcopy: copying runs of bytes, the long blocks of the generated code,
 * four ways in one process, samples interleaved, medians: glibc's memcpy
 * (what MPI libraries call for such blocks), a loop of four unaligned
 * 64-byte moves (the generator's long-block loop before d5bb79f), the
 * same loop with its stores aligned to lines (gen.blockNT without
 * non-temporal stores), and REP MOVSB. docs/interpose-bench.md, "Long
 * blocks".
 *
 *   gcc -O2 -mavx512f -o longcopy interpose/bench/longcopy.c
 *   ./longcopy RUN GAP N [DMIS]
 *
 * N runs of RUN bytes, GAP bytes apart in the source, packed one after
 * the other DMIS bytes past a page boundary in the destination. Prints
 * each way's median time and memcpy's time over it (> 1: faster than
 * memcpy). x86-64 with AVX-512 only. */
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

static void by_memcpy(char *d, const char *s, size_t n) { memcpy(d, s, n); }

/* four unaligned 64-byte moves per iteration, the rest by 64-byte moves,
 * the last one overlapping (n >= 64) */
static void by_loop(char *d, const char *s, size_t n) {
	size_t i = 0;
	for (; i + 256 <= n; i += 256) {
		__m512i a = _mm512_loadu_si512(s + i), b = _mm512_loadu_si512(s + i + 64);
		__m512i c = _mm512_loadu_si512(s + i + 128), e = _mm512_loadu_si512(s + i + 192);
		_mm512_storeu_si512(d + i, a), _mm512_storeu_si512(d + i + 64, b);
		_mm512_storeu_si512(d + i + 128, c), _mm512_storeu_si512(d + i + 192, e);
	}
	for (; i < n; i += 64) {
		size_t o = i + 64 > n ? n - 64 : i;
		_mm512_storeu_si512(d + o, _mm512_loadu_si512(s + o));
	}
}

/* one unaligned head line, the destination rounded up to a line, aligned
 * stores over whole lines, an unaligned last line (n >= 384) */
static void by_aligned(char *d, const char *s, size_t n) {
	if (n < 384) {
		by_loop(d, s, n);
		return;
	}
	_mm512_storeu_si512(d, _mm512_loadu_si512(s));
	size_t delta = 64 - ((size_t)d & 63), m = n - delta - 64, i = 0;
	char *dd = d + delta;
	const char *ss = s + delta;
	for (; i + 256 <= m; i += 256) {
		__m512i a = _mm512_loadu_si512(ss + i), b = _mm512_loadu_si512(ss + i + 64);
		__m512i c = _mm512_loadu_si512(ss + i + 128), e = _mm512_loadu_si512(ss + i + 192);
		_mm512_store_si512(dd + i, a), _mm512_store_si512(dd + i + 64, b);
		_mm512_store_si512(dd + i + 128, c), _mm512_store_si512(dd + i + 192, e);
	}
	for (; i < m; i += 64) _mm512_storeu_si512(dd + i, _mm512_loadu_si512(ss + i));
	_mm512_storeu_si512(d + n - 64, _mm512_loadu_si512(s + n - 64));
}

static void by_rep(char *d, const char *s, size_t n) {
	__asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
}

int main(int argc, char **argv) {
	if (argc < 4) {
		fprintf(stderr, "usage: longcopy RUN GAP N [DMIS]\n");
		return 2;
	}
	size_t run = strtoul(argv[1], 0, 10), gap = strtoul(argv[2], 0, 10), nr = strtoul(argv[3], 0, 10);
	size_t dmis = argc > 4 ? strtoul(argv[4], 0, 10) : 0;
	if (run < 64 || nr == 0 || dmis > 4096) {
		fprintf(stderr, "longcopy: RUN must be at least 64, N positive, DMIS at most 4096\n");
		return 2;
	}
	char *src = aligned_alloc(4096, ((run + gap) * nr + 4095) / 4096 * 4096);
	char *dst = aligned_alloc(4096, (run * nr + 2 * 4096) / 4096 * 4096);
	if (!src || !dst) {
		fprintf(stderr, "longcopy: out of memory\n");
		return 1;
	}
	memset(src, 1, (run + gap) * nr);
	memset(dst, 0, run * nr + dmis);
	enum { WAYS = 4, ROUNDS = 41 };
	void (*way[WAYS])(char *, const char *, size_t) = {by_memcpy, by_loop, by_aligned, by_rep};
	const char *name[WAYS] = {"memcpy", "loop", "aligned", "repmovsb"};
	static double t[WAYS][ROUNDS];
	for (int r = 0; r < ROUNDS; r++)
		for (int k = 0; k < WAYS; k++) {
			int i = (k + r) % WAYS;
			double t0 = now();
			for (size_t j = 0; j < nr; j++) way[i](dst + dmis + j * run, src + j * (run + gap), run);
			t[i][r] = now() - t0;
		}
	for (int i = 0; i < WAYS; i++)
		for (int a = 1; a < ROUNDS; a++)
			for (int b = a; b > 0 && t[i][b - 1] > t[i][b]; b--) {
				double x = t[i][b];
				t[i][b] = t[i][b - 1], t[i][b - 1] = x;
			}
	printf("run %zu gap %zu n %zu dmis %zu:", run, gap, nr, dmis);
	for (int i = 0; i < WAYS; i++) printf("  %s %.0f us (%.2f)", name[i], t[i][ROUNDS / 2] / 1e3, t[0][ROUNDS / 2] / t[i][ROUNDS / 2]);
	printf("\n");
	free(src), free(dst);
	return 0;
}
