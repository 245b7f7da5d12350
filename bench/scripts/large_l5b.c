/* issue 21 (bench/RESULTS.md §18): L5b L pack (128^3 of 256^3 doubles, 1 KiB rows) with PREFETCHT0 rows ahead.
   gcc -O2 -march=native -o /tmp/l5b bench/scripts/large_l5b.c && bench/scripts/measure.sh /tmp/l5b   (best of the rounds, µs) */
#define _GNU_SOURCE
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <stdint.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
enum{N=256,SUB=128,ST=12};
static long L=SUB*8;
static inline void cp(char*d,const char*s,long n){long i=0;for(;i+256<=n;i+=256){__m512i a=_mm512_loadu_si512(s+i),b=_mm512_loadu_si512(s+i+64),c=_mm512_loadu_si512(s+i+128),e=_mm512_loadu_si512(s+i+192);_mm512_storeu_si512(d+i,a);_mm512_storeu_si512(d+i+64,b);_mm512_storeu_si512(d+i+128,c);_mm512_storeu_si512(d+i+192,e);}for(;i<n;i+=64){long o=i+64>n?n-64:i;_mm512_storeu_si512(d+o,_mm512_loadu_si512(s+o));}}
static void *reg(size_t n){void*p=mmap(0,n+4096,PROT_READ|PROT_WRITE,MAP_PRIVATE|MAP_ANONYMOUS,-1,0);memset(p,1,n+4096);return p;}
static char*src,*dst;
static const char*rowp(long z,long y){return src+(((ST+z)*N+ST+y)*N+ST)*8;}
static void run(int pfd,int hint){ /* pfd: rows ahead to prefetch, 0 none */
  long r=0;
  for(long z=0;z<SUB;z++)for(long y=0;y<SUB;y++,r++){
    if(pfd){long r2=r+pfd; if(r2<SUB*SUB){const char*p=rowp(r2/SUB,r2%SUB);
      for(long o=0;o<L;o+=64){ if(hint==0)_mm_prefetch(p+o,_MM_HINT_T0); else if(hint==1) _mm_prefetch(p+o,_MM_HINT_T1); else _mm_prefetch(p+o,_MM_HINT_NTA);} }}
    cp(dst+r*L,rowp(z,y),L);}
}
int main(int argc,char**argv){
  src=reg((size_t)N*N*N*8);dst=reg((size_t)SUB*SUB*L);
  char*ma=reg((size_t)SUB*SUB*L),*mb=reg((size_t)SUB*SUB*L);
  int cfg[][2]={{0,0},{1,0},{2,0},{4,0},{8,0},{16,0},{4,1},{4,2},{-1,0},{-2,0}};
  int nc=sizeof cfg/sizeof cfg[0];double best[32];for(int k=0;k<nc;k++)best[k]=1e9;
  for(int rep=0;rep<12;rep++)for(int k=0;k<nc;k++){
    double t=now();
    if(cfg[k][0]>=0)run(cfg[k][0],cfg[k][1]); else if(cfg[k][0]==-1) memcpy(mb,ma,(size_t)SUB*SUB*L); else {long r=0;for(long z=0;z<SUB;z++)for(long y=0;y<SUB;y++,r++)memcpy(dst+r*L,rowp(z,y),L);}
    t=now()-t; if(t<best[k])best[k]=t;}
  for(int k=0;k<nc;k++)printf("pf %3d hint %d  %7.0f us\n",cfg[k][0],cfg[k][1],best[k]*1e6);
}
