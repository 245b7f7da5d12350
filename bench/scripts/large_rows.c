/* issue 21 (bench/RESULTS.md §18): L5a L pack (1448 rows of 11584 bytes, 11776 apart) by per-row methods, and a whole-buffer memcpy.
   gcc -O2 -march=native -o /tmp/rows bench/scripts/large_rows.c && bench/scripts/measure.sh /tmp/rows   (best of the rounds, µs)
   The argument is the packed buffer's offset from a page (0, 16). */
#define _GNU_SOURCE
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <stdint.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
enum{N=1472,SUB=1448,ST=12};
static long L=SUB*8, SS=N*8;
typedef void (*rowfn)(char*d,const char*s,long n);
static void r_memcpy(char*d,const char*s,long n){memcpy(d,s,n);}
static void r_movsb(char*d,const char*s,long n){__asm__ volatile("rep movsb":"+D"(d),"+S"(s),"+c"(n)::"memory");}
static void r_avx512(char*d,const char*s,long n){long i=0;for(;i+256<=n;i+=256){__m512i a=_mm512_loadu_si512(s+i),b=_mm512_loadu_si512(s+i+64),c=_mm512_loadu_si512(s+i+128),e=_mm512_loadu_si512(s+i+192);_mm512_storeu_si512(d+i,a);_mm512_storeu_si512(d+i+64,b);_mm512_storeu_si512(d+i+128,c);_mm512_storeu_si512(d+i+192,e);}for(;i<n;i+=64){long o=i+64>n?n-64:i;_mm512_storeu_si512(d+o,_mm512_loadu_si512(s+o));}}
static void r_avx2(char*d,const char*s,long n){long i=0;for(;i+128<=n;i+=128){__m256i a=_mm256_loadu_si256((void*)(s+i)),b=_mm256_loadu_si256((void*)(s+i+32)),c=_mm256_loadu_si256((void*)(s+i+64)),e=_mm256_loadu_si256((void*)(s+i+96));_mm256_storeu_si256((void*)(d+i),a);_mm256_storeu_si256((void*)(d+i+32),b);_mm256_storeu_si256((void*)(d+i+64),c);_mm256_storeu_si256((void*)(d+i+96),e);}for(;i<n;i+=32){long o=i+32>n?n-32:i;_mm256_storeu_si256((void*)(d+o),_mm256_loadu_si256((void*)(s+o)));}}
/* dst aligned: head 64 unaligned, then aligned stores */
static void r_avx512da(char*d,const char*s,long n){_mm512_storeu_si512(d,_mm512_loadu_si512(s));long a=64-((uintptr_t)d&63);if(a==64)a=0;long i=a;for(;i+256<=n;i+=256){__m512i x=_mm512_loadu_si512(s+i),b=_mm512_loadu_si512(s+i+64),c=_mm512_loadu_si512(s+i+128),e=_mm512_loadu_si512(s+i+192);_mm512_store_si512(d+i,x);_mm512_store_si512(d+i+64,b);_mm512_store_si512(d+i+128,c);_mm512_store_si512(d+i+192,e);}for(;i<n;i+=64){long o=i+64>n?n-64:i;_mm512_storeu_si512(d+o,_mm512_loadu_si512(s+o));}}
/* src aligned */
static void r_avx512sa(char*d,const char*s,long n){_mm512_storeu_si512(d,_mm512_loadu_si512(s));long a=64-((uintptr_t)s&63);if(a==64)a=0;long i=a;for(;i+256<=n;i+=256){__m512i x=_mm512_load_si512(s+i),b=_mm512_load_si512(s+i+64),c=_mm512_load_si512(s+i+128),e=_mm512_load_si512(s+i+192);_mm512_storeu_si512(d+i,x);_mm512_storeu_si512(d+i+64,b);_mm512_storeu_si512(d+i+128,c);_mm512_storeu_si512(d+i+192,e);}for(;i<n;i+=64){long o=i+64>n?n-64:i;_mm512_storeu_si512(d+o,_mm512_loadu_si512(s+o));}}
static void r_avx512pf(char*d,const char*s,long n){long i=0;for(;i+256<=n;i+=256){_mm_prefetch(s+i+1024,_MM_HINT_T0);_mm_prefetch(s+i+1024+64,_MM_HINT_T0);_mm_prefetch(s+i+1024+128,_MM_HINT_T0);_mm_prefetch(s+i+1024+192,_MM_HINT_T0);__m512i a=_mm512_loadu_si512(s+i),b=_mm512_loadu_si512(s+i+64),c=_mm512_loadu_si512(s+i+128),e=_mm512_loadu_si512(s+i+192);_mm512_storeu_si512(d+i,a);_mm512_storeu_si512(d+i+64,b);_mm512_storeu_si512(d+i+128,c);_mm512_storeu_si512(d+i+192,e);}for(;i<n;i+=64){long o=i+64>n?n-64:i;_mm512_storeu_si512(d+o,_mm512_loadu_si512(s+o));}}
static void *reg(size_t n){void*p=mmap(0,n+4096,PROT_READ|PROT_WRITE,MAP_PRIVATE|MAP_ANONYMOUS,-1,0);memset(p,1,n+4096);return p;}
int main(int argc,char**argv){
  int doff=argc>1?atoi(argv[1]):0;
  char*src=reg((size_t)N*N*8),*dst0=reg((size_t)SUB*L+64),*dst=dst0+doff;
  char*ma=reg((size_t)SUB*L),*mb=reg((size_t)SUB*L);
  const char*names[]={"memcpy","movsb","avx512","avx2","avx512-dalign","avx512-salign","avx512-pf","whole-memcpy","whole-movsb"};
  rowfn fns[]={r_memcpy,r_movsb,r_avx512,r_avx2,r_avx512da,r_avx512sa,r_avx512pf};
  double best[9];for(int k=0;k<9;k++)best[k]=1e9;
  for(int rep=0;rep<15;rep++)for(int k=0;k<9;k++){
    double t=now();
    if(k<7){for(long r=0;r<SUB;r++)fns[k](dst+r*L,src+((ST+r)*N+ST)*8,L);}
    else if(k==7)memcpy(mb,ma,(size_t)SUB*L); else r_movsb(mb,ma,(long)SUB*L);
    t=now()-t; if(t<best[k])best[k]=t;}
  for(int k=0;k<9;k++)printf("%-14s %7.0f us\n",names[k],best[k]*1e6);
}
