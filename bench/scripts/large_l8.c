/* issue 21 (bench/RESULTS.md §18): L8 L (131072 blocks of 128 bytes, 256 apart) pack/unpack: zmm vs ymm moves, PREFETCHT0/PREFETCHW distances.
   gcc -O2 -march=native -o /tmp/l8 bench/scripts/large_l8.c && bench/scripts/measure.sh /tmp/l8   (best of the rounds, µs) */
#define _GNU_SOURCE
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <stdint.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static void *reg(size_t n){void*p=mmap(0,n+4096,PROT_READ|PROT_WRITE,MAP_PRIVATE|MAP_ANONYMOUS,-1,0);memset(p,1,n+4096);return p;}
#define NB 131072
static char *mem,*pk,*ma,*mb;
static void pz(long pf){for(long i=0;i<NB;i++){const char*s=mem+256*i;char*d=pk+128*i; if(pf)_mm_prefetch(s+pf,_MM_HINT_T0),_mm_prefetch(s+pf+64,_MM_HINT_T0);
 __m512i a=_mm512_loadu_si512(s),b=_mm512_loadu_si512(s+64);_mm512_storeu_si512(d,a);_mm512_storeu_si512(d+64,b);}}
static void py(long pf){for(long i=0;i<NB;i++){const char*s=mem+256*i;char*d=pk+128*i; if(pf)_mm_prefetch(s+pf,_MM_HINT_T0),_mm_prefetch(s+pf+64,_MM_HINT_T0);
 __m256i a=_mm256_loadu_si256((void*)s),b=_mm256_loadu_si256((void*)(s+32)),c=_mm256_loadu_si256((void*)(s+64)),e=_mm256_loadu_si256((void*)(s+96));_mm256_storeu_si256((void*)d,a);_mm256_storeu_si256((void*)(d+32),b);_mm256_storeu_si256((void*)(d+64),c);_mm256_storeu_si256((void*)(d+96),e);}}
static void uz(long pf){for(long i=0;i<NB;i++){char*d=mem+256*i;const char*s=pk+128*i; if(pf)_m_prefetchw(d+pf),_m_prefetchw(d+pf+64);
 __m512i a=_mm512_loadu_si512(s),b=_mm512_loadu_si512(s+64);_mm512_storeu_si512(d,a);_mm512_storeu_si512(d+64,b);}}
static void uy(long pf){for(long i=0;i<NB;i++){char*d=mem+256*i;const char*s=pk+128*i; if(pf)_m_prefetchw(d+pf),_m_prefetchw(d+pf+64);
 __m256i a=_mm256_loadu_si256((void*)s),b=_mm256_loadu_si256((void*)(s+32)),c=_mm256_loadu_si256((void*)(s+64)),e=_mm256_loadu_si256((void*)(s+96));_mm256_storeu_si256((void*)d,a);_mm256_storeu_si256((void*)(d+32),b);_mm256_storeu_si256((void*)(d+64),c);_mm256_storeu_si256((void*)(d+96),e);}}
static void mc(long pf){(void)pf;memcpy(mb,ma,NB*128);}
static void hand(long pf){(void)pf;for(long i=0;i<NB;i++)memcpy(pk+128*i,mem+256*i,128);}
int main(){
  mem=reg(NB*256);pk=reg(NB*128);ma=reg(NB*128);mb=reg(NB*128);
  struct{const char*n;void(*f)(long);long pf;}v[]={{"memcpy",mc,0},{"hand",hand,0},{"pack zmm",pz,0},{"pack ymm",py,0},{"pack zmm pf2k",pz,2048},{"pack zmm pf4k",pz,4096},{"pack zmm pf8k",pz,8192},
   {"unpack zmm",uz,0},{"unpack ymm",uy,0},{"unpack zmm pfw2k",uz,2048},{"unpack zmm pfw4k",uz,4096},{"unpack zmm pfw8k",uz,8192}};
  int n=sizeof v/sizeof v[0]; double t[64][40];
  for(int r=0;r<30;r++)for(int k=0;k<n;k++){int kk=(k+r)%n;double t0=now();v[kk].f(v[kk].pf);t[kk][r]=now()-t0;}
  for(int k=0;k<n;k++){double mn=1e9;double s[40];memcpy(s,t[k],sizeof s);for(int i=0;i<30;i++)for(int j=i+1;j<30;j++)if(s[j]<s[i]){double x=s[i];s[i]=s[j];s[j]=x;}printf("%-18s min %6.0f med %6.0f\n",v[k].n,s[0]*1e6,s[15]*1e6);}
}
