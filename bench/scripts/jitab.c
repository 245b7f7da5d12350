/* issue 21 (bench/RESULTS.md §23): times the generated code of two builds
   (or settings) of one type in one C process, interleaved, beside gcc's
   loop when the type is one of the anchors' layouts (-DLAYOUT_*).
   Built and run by bench/scripts/jitab.sh, which extracts the first pack
   and unpack entries of `ddt dame --asm` as a.S and b.S; the entries take
   RDI = memory (the type's origin), RSI = packed bytes, RCX = units.
   Arguments: span (bytes of memory), packed bytes, units, rounds.
   Prints per entry the 10th, 50th and 90th percentile of ns per call
   over the rounds (each round: every entry, order rotated, enough calls
   for about 0.1 ms). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
void a_pack(void), a_unpack(void), b_pack(void), b_unpack(void);
static void call(void *f, void *m, void *p, long n)
{
	register void *rdi __asm__("rdi") = m;
	register void *rsi __asm__("rsi") = p;
	register long rcx __asm__("rcx") = n;
	__asm__ volatile("call *%3" : "+r"(rdi), "+r"(rsi), "+r"(rcx) : "r"(f)
			 : "rax", "rbx", "rdx", "r8", "r9", "r10", "r11", "r12", "r13", "r15", "memory",
			   "xmm0", "xmm1", "xmm2", "xmm3");
}
/* gcc's loops of the anchors (mpipack.c's m_face_* and m_vec1_*) */
__attribute__((noinline)) static void face_pack(const double *restrict s, double *restrict d)
{ for (long z = 0; z < 32; z++) { const double *sz = s + z * 32 * 32; for (long y = 0; y < 32; y++) *d++ = sz[y * 32]; } }
__attribute__((noinline)) static void face_unpack(const double *restrict p, double *restrict d)
{ for (long z = 0; z < 32; z++) { double *dz = d + z * 32 * 32; for (long y = 0; y < 32; y++) dz[y * 32] = *p++; } }
__attribute__((noinline)) static void vec1_pack(const double *restrict s, double *restrict d)
{ for (long i = 0; i < 256; i++) d[i] = s[24 * i]; }
__attribute__((noinline)) static void vec1_unpack(const double *restrict p, double *restrict d)
{ for (long i = 0; i < 256; i++) d[24 * i] = p[i]; }
static int cmp(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return x < y ? -1 : x > y; }
int main(int argc, char **argv)
{
	if (argc < 5) { fprintf(stderr, "usage: jitab SPAN PACKED UNITS ROUNDS [GCC: face|vec1]\n"); return 2; }
	long span = atol(argv[1]), packed = atol(argv[2]), units = atol(argv[3]);
	int R = atoi(argv[4]);
	const char *gcc = argc > 5 ? argv[5] : "";
	char *m = aligned_alloc(4096, (span + 4095) / 4096 * 4096), *p = aligned_alloc(4096, (packed + 4095) / 4096 * 4096);
	memset(m, 1, span); memset(p, 2, packed);
	int ne = *gcc ? 6 : 4;
	const char *nm[] = {"a pack", "b pack", "a unpack", "b unpack", "gcc pack", "gcc unpack"};
	double *t = malloc(sizeof(double) * 6 * R);
	long it = 100000 / (packed / 64 + 1) + 1;
	for (int r = 0; r < R; r++)
		for (int kk = 0; kk < ne; kk++) {
			int k = (kk + r) % ne;
			double t0 = now();
			for (long j = 0; j < it; j++) {
				switch (k) {
				case 0: call(a_pack, m, p, units); break;
				case 1: call(b_pack, m, p, units); break;
				case 2: call(a_unpack, m, p, units); break;
				case 3: call(b_unpack, m, p, units); break;
				case 4: if (!strcmp(gcc, "face")) face_pack((double *)m, (double *)p); else vec1_pack((double *)m, (double *)p); break;
				case 5: if (!strcmp(gcc, "face")) face_unpack((double *)p, (double *)m); else vec1_unpack((double *)p, (double *)m); break;
				}
				__asm__ volatile("" ::: "memory");
			}
			t[k * R + r] = (now() - t0) / it * 1e9;
		}
	for (int k = 0; k < ne; k++) {
		qsort(t + k * R, R, sizeof(double), cmp);
		printf("%-11s q10 %9.1f  median %9.1f  q90 %9.1f ns\n", nm[k], t[k * R + R / 10], t[k * R + R / 2], t[k * R + R * 9 / 10]);
	}
	printf("b/a median: pack %.3f unpack %.3f\n", t[1 * R + R / 2] / t[0 * R + R / 2], t[3 * R + R / 2] / t[2 * R + R / 2]);
	return 0;
}
