//go:build ddtinterpose

// The C layer of the interposition library: tables, the type life cycle,
// pack and unpack. Point-to-point, completion and collectives are in
// comm.c; the constructors are generated into zconstruct.c.
#include "shim.h"
#include "shimint.h"
#include "_cgo_export.h"
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>

int ddt_on = 1;
int ddt_stats_on;
static pthread_once_t ddt_once = PTHREAD_ONCE_INIT;

ddt_stat ddt_st;

// ---- types: handle -> served type's bounds and pin ----------------------

typedef struct tnode {
	uintptr_t key;
	ddt_tinfo info;
	struct tnode *next;
} tnode;

static pthread_rwlock_t tlock = PTHREAD_RWLOCK_INITIALIZER;
static tnode **tbuckets;
static size_t tcap, tcount;
atomic_long ddt_nserved;

// tgen counts the changes of the table (under tlock); each thread keeps the
// last type it looked up with the generation it saw, so that the calls of a
// loop over one type take no lock (a type freed, or its handle reused,
// changes the generation first).
static atomic_ulong tgen;
static __thread __attribute__((tls_model("initial-exec"))) struct {
	uintptr_t key;
	unsigned long gen;
	int valid;
	ddt_tinfo info;
} tlast;

static size_t hash(uintptr_t k, size_t cap) {
	uint64_t x = (uint64_t)k * 0x9E3779B97F4A7C15ull;
	return (size_t)(x >> 32) & (cap - 1);
}

static void tgrow(void) {
	size_t ncap = tcap ? 2 * tcap : 256;
	tnode **nb = calloc(ncap, sizeof *nb);
	if (!nb) return;
	for (size_t i = 0; i < tcap; i++) {
		for (tnode *n = tbuckets[i], *next; n; n = next) {
			next = n->next;
			size_t j = hash(n->key, ncap);
			n->next = nb[j];
			nb[j] = n;
		}
	}
	free(tbuckets);
	tbuckets = nb;
	tcap = ncap;
}

static void tinsert(uintptr_t key, const ddt_tinfo *info) {
	tnode *n = malloc(sizeof *n);
	if (!n) return;
	n->key = key;
	n->info = *info;
	pthread_rwlock_wrlock(&tlock);
	if (tcount >= 2 * tcap) tgrow();
	if (!tcap) { pthread_rwlock_unlock(&tlock); free(n); return; }
	size_t j = hash(key, tcap);
	n->next = tbuckets[j];
	tbuckets[j] = n;
	tcount++;
	atomic_fetch_add(&ddt_nserved, 1);
	atomic_fetch_add_explicit(&tgen, 1, memory_order_release);
	pthread_rwlock_unlock(&tlock);
}

static void tremove(uintptr_t key) {
	pthread_rwlock_wrlock(&tlock);
	if (tcap) {
		for (tnode **p = &tbuckets[hash(key, tcap)]; *p; p = &(*p)->next) {
			if ((*p)->key == key) {
				tnode *n = *p;
				*p = n->next;
				if (n->info.dstate == 1) PMPI_Type_free(&n->info.dtype); // MPI keeps it for pending operations
				free(n);
				tcount--;
				atomic_fetch_sub(&ddt_nserved, 1);
				atomic_fetch_add_explicit(&tgen, 1, memory_order_release);
				break;
			}
		}
	}
	pthread_rwlock_unlock(&tlock);
}

// tlookup returns the served type of t, or NULL: a pointer to this thread's
// copy (tlast.info), valid until the thread's next look-up. The calls of a
// loop over one type take no lock and copy nothing.
static inline const ddt_tinfo *tlookup(MPI_Datatype t) {
	if (!ddt_on || atomic_load_explicit(&ddt_nserved, memory_order_relaxed) == 0) return NULL;
	uintptr_t key = DDT_H(t);
	unsigned long gen = atomic_load_explicit(&tgen, memory_order_acquire);
	if (__builtin_expect(tlast.valid && tlast.key == key && tlast.gen == gen, 1)) return &tlast.info;
	int found = 0;
	pthread_rwlock_rdlock(&tlock);
	if (tcap) {
		for (tnode *n = tbuckets[hash(key, tcap)]; n; n = n->next) {
			if (n->key == key) {
				tlast.info = n->info;
				found = 1;
				break;
			}
		}
	}
	pthread_rwlock_unlock(&tlock);
	if (!found) return NULL;
	tlast.key = key, tlast.gen = gen, tlast.valid = 1;
	return &tlast.info;
}

int ddt_served(MPI_Datatype t, ddt_tinfo *out) {
	const ddt_tinfo *ti = tlookup(t);
	if (!ti) return 0;
	*out = *ti;
	return 1;
}

// tset_native records the generated code of the type of key.
static void tset_native(uintptr_t key, const ddt_native *nat) {
	pthread_rwlock_wrlock(&tlock);
	if (tcap) {
		for (tnode *n = tbuckets[hash(key, tcap)]; n; n = n->next) {
			if (n->key == key) {
				n->info.nat = *nat;
				atomic_fetch_add_explicit(&tgen, 1, memory_order_release);
				break;
			}
		}
	}
	pthread_rwlock_unlock(&tlock);
}

// ddt_tset_direct records the direct state of the type of key (direct.c)
// if it is still expect (another thread may have decided first); it
// returns the state in the table (0: the type left the table) and sets *dt
// to its direct type.
int32_t ddt_tset_direct(uintptr_t key, int32_t expect, int32_t state, MPI_Datatype *dt) {
	int32_t got = 0;
	pthread_rwlock_wrlock(&tlock);
	if (tcap) {
		for (tnode *n = tbuckets[hash(key, tcap)]; n; n = n->next) {
			if (n->key == key) {
				if (n->info.dstate == expect) {
					n->info.dstate = state;
					if (state == 1) n->info.dtype = *dt;
					atomic_fetch_add_explicit(&tgen, 1, memory_order_release);
				}
				got = n->info.dstate, *dt = n->info.dtype;
				break;
			}
		}
	}
	pthread_rwlock_unlock(&tlock);
	return got;
}

// ddt_tseen counts a large message of the type of key while it waits to
// be timed (dstate -2) and returns the count (0: not in the table).
int32_t ddt_tseen(uintptr_t key) {
	int32_t got = 0;
	pthread_rwlock_wrlock(&tlock);
	if (tcap) {
		for (tnode *n = tbuckets[hash(key, tcap)]; n; n = n->next) {
			if (n->key == key) {
				got = ++n->info.dseen;
				atomic_fetch_add_explicit(&tgen, 1, memory_order_release);
				break;
			}
		}
	}
	pthread_rwlock_unlock(&tlock);
	return got;
}

int32_t ddt_tset_pipe(uintptr_t key, int which, int32_t v) {
	int32_t got = 0;
	pthread_rwlock_wrlock(&tlock);
	if (tcap) {
		for (tnode *n = tbuckets[hash(key, tcap)]; n; n = n->next) {
			if (n->key == key) {
				if (which == 0) {
					if (n->info.pstate == 0) n->info.pstate = v;
					got = n->info.pstate;
				} else if (which == 1) {
					got = n->info.prange = v;
				} else {
					got = ++n->info.pseen;
				}
				atomic_fetch_add_explicit(&tgen, 1, memory_order_release);
				break;
			}
		}
	}
	pthread_rwlock_unlock(&tlock);
	return got;
}

#if defined(__x86_64__)
// jit_call runs generated code (see ddt.Committed.NativeCode) on n
// instances: Go's register ABI, RCX the count, RDI the memory, RSI the
// packed bytes, R8 b0 (a listed block entry's first block, a step's; 0
// for whole-message entries), X15 zero; it may change every register but RSP,
// RBP and R14, and the call steps over the red zone of this frame.
static void jit_call(uintptr_t fn, int64_t n, uintptr_t mem, uintptr_t pk, int64_t b0) {
	register int64_t r8 __asm__("r8") = b0;
	uintptr_t a = 0, b = 0;
	__asm__ volatile("vpxor %%xmm15, %%xmm15, %%xmm15\n\t"
			 "lea -128(%%rsp), %%rsp\n\t"
			 "call *%%rdx\n\t"
			 "lea 128(%%rsp), %%rsp"
			 : "+a"(a), "+b"(b), "+c"(n), "+D"(mem), "+S"(pk), "+d"(fn), "+r"(r8)
			 :
			 : "r9", "r10", "r11", "r12", "r13", "r15", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5",
			 "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15",
			 "memory", "cc");
}

// direct runs fn on count instances in pieces of at most max.
static void direct(uintptr_t fn, int64_t max, int64_t count, int64_t extent, int64_t size, const void *mem,
	const void *pk) {
	uintptr_t m = (uintptr_t)mem, p = (uintptr_t)pk;
	while (count > 0) {
		int64_t k = count < max ? count : max;
		jit_call(fn, k, m, p, 0);
		m += (uintptr_t)(k * extent);
		p += (uintptr_t)(k * size);
		count -= k;
	}
}

// run_steps moves count instances by the steps of one (ddt_native.steps),
// instance by instance: instance k's memory at mem+k*extent, its packed
// bytes at pk+k*size; pack copies memory into the packed bytes.
static void run_steps(const ddt_step *s, int32_t ns, int pack, int64_t count, int64_t extent, int64_t size,
	char *mem, char *pk) {
	for (int64_t k = 0; k < count; k++, mem += extent, pk += size) {
		for (int32_t j = 0; j < ns; j++) {
			char *m = mem + s[j].mem, *p = pk + s[j].packed;
			if (s[j].fn)
				jit_call(s[j].fn, s[j].n, (uintptr_t)m, (uintptr_t)p, s[j].b0);
			else if (pack)
				memcpy(p, m, (size_t)s[j].n);
			else
				memcpy(m, p, (size_t)s[j].n);
		}
	}
}
#define HAVE_DIRECT 1
#else
#define HAVE_DIRECT 0
static void direct(uintptr_t fn, int64_t max, int64_t count, int64_t extent, int64_t size, const void *mem,
	const void *pk) {}
static void run_steps(const ddt_step *s, int32_t ns, int pack, int64_t count, int64_t extent, int64_t size,
	char *mem, char *pk) {}
#endif

// has_native reports whether nat holds a type's generated code (entries
// or steps): the C layer then no longer asks the Go side for it.
static inline int has_native(const ddt_native *nat) { return nat->pack || nat->nsteps[0]; }

// one_run reports whether count instances of ti are one run of *bytes
// bytes, which a memcpy moves faster than any call into Go. (No division
// on this path: a 64-bit idiv costs more than the memcpy of a small type.)
static inline int one_run(const ddt_tinfo *ti, int64_t count, int64_t *bytes) {
	return ti->contig && count > 0 && (count == 1 || ti->extent == ti->size) &&
	       !__builtin_mul_overflow(count, ti->size, bytes);
}

// runs_pack packs count instances of a type of ti->nruns runs (a few long
// runs of bytes) with one memcpy per run, in type-map order; runs_unpack
// is its inverse. The caller has checked that count*size bytes fit and
// that the span of count instances does not overflow (the MPI library
// accepted the buffer; ddt checked Span at commit for one instance, and
// instance i starts i*extent bytes after the origin).
static void runs_pack(const ddt_tinfo *ti, const char *src, int64_t count, char *dst) {
	for (int64_t i = 0; i < count; i++, src += ti->extent) {
		for (int32_t j = 0; j < ti->nruns; j++) {
			memcpy(dst, src + ti->run_off[j], (size_t)ti->run_len[j]);
			dst += ti->run_len[j];
		}
	}
}

static void runs_unpack(const ddt_tinfo *ti, const char *src, int64_t count, char *dst) {
	for (int64_t i = 0; i < count; i++, dst += ti->extent) {
		for (int32_t j = 0; j < ti->nruns; j++) {
			memcpy(dst + ti->run_off[j], src, (size_t)ti->run_len[j]);
			src += ti->run_len[j];
		}
	}
}

int64_t ddt_pack(const ddt_tinfo *ti, const void *src, int64_t count, void *dst, int64_t room) {
	int64_t bytes;
	if (one_run(ti, count, &bytes) && room >= bytes) {
		memcpy(dst, (const char *)src + ti->data_lb, (size_t)bytes);
		DDT_COUNT(native, 1);
		return bytes;
	}
	if (ti->nruns && count > 0 && !__builtin_mul_overflow(count, ti->size, &bytes) && room >= bytes) {
		runs_pack(ti, (const char *)src, count, (char *)dst);
		DDT_COUNT(native, 1);
		return bytes;
	}
	if (HAVE_DIRECT && ti->nat.pack && count > 0 && !__builtin_mul_overflow(count, ti->size, &bytes) &&
		room >= bytes) {
		direct(ti->nat.pack, ti->nat.max, count, ti->extent, ti->size, src, dst);
		DDT_COUNT(native, 1);
		return bytes;
	}
	if (HAVE_DIRECT && ti->nat.nsteps[0] && count > 0 && !__builtin_mul_overflow(count, ti->size, &bytes) &&
		room >= bytes) {
		run_steps(ti->nat.steps[0], ti->nat.nsteps[0], 1, count, ti->extent, ti->size, (char *)src, (char *)dst);
		DDT_COUNT(native, 1);
		return bytes;
	}
	uintptr_t key = ti->key;
	ddt_native nat = {0};
	int64_t k = ddtgoPack(ti->pin, (void *)src, count, dst, room, has_native(&ti->nat) ? NULL : &nat);
	if (has_native(&nat)) tset_native(key, &nat);
	return k;
}

int64_t ddt_unpack(const ddt_tinfo *ti, const void *src, int64_t n, void *dst, int64_t count) {
	int64_t bytes;
	if (one_run(ti, count, &bytes) && n >= bytes) {
		memcpy((char *)dst + ti->data_lb, src, (size_t)bytes);
		DDT_COUNT(native, 1);
		return bytes;
	}
	if (ti->nruns && count > 0 && !__builtin_mul_overflow(count, ti->size, &bytes) && n >= bytes) {
		runs_unpack(ti, (const char *)src, count, (char *)dst);
		DDT_COUNT(native, 1);
		return bytes;
	}
	if (HAVE_DIRECT && ti->nat.unpack && count > 0 && !__builtin_mul_overflow(count, ti->size, &bytes) &&
		n >= bytes) {
		direct(ti->nat.unpack, ti->nat.max, count, ti->extent, ti->size, dst, src);
		DDT_COUNT(native, 1);
		return bytes;
	}
	if (HAVE_DIRECT && ti->nat.nsteps[1] && count > 0 && !__builtin_mul_overflow(count, ti->size, &bytes) &&
		n >= bytes) {
		run_steps(ti->nat.steps[1], ti->nat.nsteps[1], 0, count, ti->extent, ti->size, (char *)dst, (char *)src);
		DDT_COUNT(native, 1);
		return bytes;
	}
	uintptr_t key = ti->key;
	ddt_native nat = {0};
	int64_t k = ddtgoUnpack(ti->pin, (void *)src, n, dst, count, has_native(&ti->nat) ? NULL : &nat);
	if (has_native(&nat)) tset_native(key, &nat);
	return k;
}

// ddt_staged reports whether count instances of t are served by ddt and
// must be packed (not one contiguous block, which MPI takes directly), and
// sets *n to their packed size.
int ddt_staged(MPI_Datatype t, int64_t count, ddt_tinfo *ti, int64_t *n) {
	const ddt_tinfo *p = ddt_staged_ref(t, count, n);
	if (!p) return 0;
	*ti = *p;
	return 1;
}

const ddt_tinfo *ddt_staged_ref(MPI_Datatype t, int64_t count, int64_t *n) {
	if (count <= 0) return NULL;
	const ddt_tinfo *ti = tlookup(t);
	if (!ti || ti->size == 0) return NULL;
	if (ti->size == ti->true_extent && (count == 1 || ti->extent == ti->size)) return NULL;
	if (count > INT64_MAX / ti->size) return NULL;
	*n = count * ti->size;
	return ti;
}

// ---- staging buffers ----------------------------------------------------

// Freed buffers are kept per power-of-two class so that messages do not
// fault in fresh pages every time (at most ddt_pool_max bytes kept).
#define NCLASS 48
#define PERCLASS 4
static void *pool[NCLASS][PERCLASS];
static int npool[NCLASS];
static size_t pooled;
static const size_t ddt_pool_max = 256u << 20;
static pthread_mutex_t plock = PTHREAD_MUTEX_INITIALIZER;

static int sclass(size_t n) {
	int c = 6;
	while (c < NCLASS - 1 && ((size_t)1 << c) < n) c++;
	return c;
}

// Every staging buffer has DDT_BUF_SLACK bytes more than asked: room for
// the byte a staged receive on Open MPI puts past its n bytes (ddt_rtype).
void *ddt_buf_get(int64_t n) {
	if (n < 0 || (uint64_t)n > SIZE_MAX - DDT_BUF_SLACK) return NULL;
	int c = sclass((size_t)n);
	if (((size_t)1 << c) < (size_t)n) return malloc((size_t)n + DDT_BUF_SLACK);
	void *p = NULL;
	pthread_mutex_lock(&plock);
	if (npool[c] > 0) {
		p = pool[c][--npool[c]];
		pooled -= (size_t)1 << c;
	}
	pthread_mutex_unlock(&plock);
	return p ? p : malloc(((size_t)1 << c) + DDT_BUF_SLACK);
}

void ddt_buf_put(void *p, int64_t n) {
	if (!p) return;
	int c = sclass((size_t)n);
	if (((size_t)1 << c) < (size_t)n) { free(p); return; }
	pthread_mutex_lock(&plock);
	if (npool[c] < PERCLASS && pooled + ((size_t)1 << c) <= ddt_pool_max) {
		pool[c][npool[c]++] = p;
		pooled += (size_t)1 << c;
		p = NULL;
	}
	pthread_mutex_unlock(&plock);
	free(p);
}

// ---- receive types --------------------------------------------------------

// Open MPI 4.1 (ob1 with a BTL that reads the sender's memory, vader's
// single copy) receives a rendezvous message into a receive it sees as one
// contiguous block by reading the whole message there, whatever the
// receive holds: a truncated receive of plain bytes writes past its
// buffer. A receive whose type has a hole goes through Open MPI's
// convertor, which stops at the end of the type. So on Open MPI a staged
// receive of n bytes takes bytes 0..n-2 and n of its buffer (byte n-1 is
// the hole), and ddt_rfix moves the last byte in place once it arrived.
// The types are kept per n in a small table (the first RSLOTS sizes met in
// each slot group); a receive of another size gets a type of its own that
// its caller frees once the receive is posted.
#ifdef OMPI_MAJOR_VERSION
#define RSLOTS 256
#define RWAYS 4
static struct {
	int64_t n;
	MPI_Datatype t;
} rtab[RSLOTS];
static pthread_mutex_t rlock = PTHREAD_MUTEX_INITIALIZER;

// rbuild makes the type of a receive of n bytes (n >= 2) with its hole.
static int rbuild(int64_t n, MPI_Datatype *t) {
	int64_t m = n - 1; // bytes before the hole
	int rc;
	if (m <= INT_MAX) {
		int bl[2] = {(int)m, 1};
		MPI_Aint d[2] = {0, (MPI_Aint)n};
		rc = PMPI_Type_create_hindexed(2, bl, d, MPI_BYTE, t);
	} else {
		const int64_t chunk = (int64_t)1 << 30;
		MPI_Datatype c;
		if (m / chunk > INT_MAX || PMPI_Type_contiguous((int)chunk, MPI_BYTE, &c) != MPI_SUCCESS) return 0;
		int bl[3] = {(int)(m / chunk), (int)(m % chunk), 1};
		MPI_Aint d[3] = {0, (MPI_Aint)(m / chunk * chunk), (MPI_Aint)n};
		MPI_Datatype ts[3] = {c, MPI_BYTE, MPI_BYTE};
		rc = PMPI_Type_create_struct(3, bl, d, ts, t);
		PMPI_Type_free(&c);
	}
	if (rc != MPI_SUCCESS) return 0;
	if (PMPI_Type_commit(t) != MPI_SUCCESS) {
		PMPI_Type_free(t);
		return 0;
	}
	return 1;
}
#endif

int ddt_rtype(int64_t n, MPI_Datatype *t, int64_t *count) {
	*t = MPI_BYTE, *count = n;
#ifdef OMPI_MAJOR_VERSION
	if (n < 2) return 0; // a staged type has two bytes or more (ddt_staged)
	size_t h = (size_t)(((uint64_t)n * 0x9E3779B97F4A7C15ull) >> 32) % (RSLOTS / RWAYS) * RWAYS;
	MPI_Datatype nt;
	pthread_mutex_lock(&rlock);
	for (size_t i = h; i < h + RWAYS; i++) {
		if (rtab[i].n == n) {
			*t = rtab[i].t, *count = 1;
			pthread_mutex_unlock(&rlock);
			return 0;
		}
		if (rtab[i].n == 0) {
			if (rbuild(n, &nt)) rtab[i].n = n, rtab[i].t = nt, *t = nt, *count = 1;
			pthread_mutex_unlock(&rlock);
			return 0;
		}
	}
	pthread_mutex_unlock(&rlock);
	if (!rbuild(n, &nt)) return 0;
	*t = nt, *count = 1;
	return 1;
#else
	return 0;
#endif
}

void ddt_rfix(char *mem, int64_t n, const MPI_Status *st) {
#ifdef OMPI_MAJOR_VERSION
	MPI_Count c = 0;
	if (n >= 2 && PMPI_Get_elements_x(st, MPI_BYTE, &c) == MPI_SUCCESS && c != MPI_UNDEFINED && c >= n)
		mem[n - 1] = mem[n];
#else
	(void)mem, (void)n, (void)st;
#endif
}

// ---- set-up -------------------------------------------------------------

static void predef(MPI_Datatype t, const char *name) {
	if (t != MPI_DATATYPE_NULL) ddtgoPredef(DDT_H(t), (char *)name);
}

static void ddt_setup(void) {
	const char *e = getenv("DDT_MPI");
	if (e && strcmp(e, "0") == 0) ddt_on = 0;
	e = getenv("DDT_MPI_STATS");
	ddt_stats_on = e && strcmp(e, "1") == 0;
	if (!ddt_on) return;
	pthread_rwlock_wrlock(&tlock);
	tgrow();
	pthread_rwlock_unlock(&tlock);
#define P(t, n) predef(t, n);
	P(MPI_CHAR, "char") P(MPI_SIGNED_CHAR, "signed_char") P(MPI_UNSIGNED_CHAR, "unsigned_char")
	P(MPI_BYTE, "byte") P(MPI_PACKED, "byte") P(MPI_C_BOOL, "c_bool") P(MPI_INT8_T, "int8_t")
	P(MPI_UINT8_T, "uint8_t") P(MPI_SHORT, "short") P(MPI_UNSIGNED_SHORT, "unsigned_short")
	P(MPI_INT16_T, "int16_t") P(MPI_UINT16_T, "uint16_t") P(MPI_INT, "int") P(MPI_UNSIGNED, "unsigned")
	P(MPI_FLOAT, "float") P(MPI_WCHAR, "wchar") P(MPI_INT32_T, "int32_t") P(MPI_UINT32_T, "uint32_t")
	P(MPI_LONG, "long") P(MPI_UNSIGNED_LONG, "unsigned_long") P(MPI_LONG_LONG, "long_long")
	P(MPI_LONG_LONG_INT, "long_long") P(MPI_UNSIGNED_LONG_LONG, "unsigned_long_long")
	P(MPI_DOUBLE, "double") P(MPI_INT64_T, "int64_t") P(MPI_UINT64_T, "uint64_t") P(MPI_AINT, "aint")
	P(MPI_OFFSET, "offset") P(MPI_COUNT, "count") P(MPI_C_FLOAT_COMPLEX, "c_float_complex")
	P(MPI_C_COMPLEX, "c_float_complex") P(MPI_LONG_DOUBLE, "long_double")
	P(MPI_C_DOUBLE_COMPLEX, "c_double_complex") P(MPI_C_LONG_DOUBLE_COMPLEX, "c_long_double_complex")
	P(MPI_FLOAT_INT, "float_int") P(MPI_DOUBLE_INT, "double_int") P(MPI_LONG_INT, "long_int")
	P(MPI_2INT, "two_int") P(MPI_SHORT_INT, "short_int") P(MPI_LONG_DOUBLE_INT, "long_double_int")
	// Fortran types by their C equivalents (the commit-time comparison
	// with the MPI library catches any difference of size or alignment).
	P(MPI_CHARACTER, "char") P(MPI_LOGICAL, "int") P(MPI_INTEGER, "int") P(MPI_REAL, "float")
	P(MPI_DOUBLE_PRECISION, "double") P(MPI_COMPLEX, "c_float_complex")
	P(MPI_DOUBLE_COMPLEX, "c_double_complex") P(MPI_2INTEGER, "two_int")
	P(MPI_INTEGER1, "int8_t") P(MPI_INTEGER2, "int16_t") P(MPI_INTEGER4, "int32_t")
	P(MPI_INTEGER8, "int64_t") P(MPI_REAL4, "float") P(MPI_REAL8, "double")
	P(MPI_COMPLEX8, "c_float_complex") P(MPI_COMPLEX16, "c_double_complex")
	P(MPI_CXX_BOOL, "c_bool") P(MPI_CXX_FLOAT_COMPLEX, "c_float_complex")
	P(MPI_CXX_DOUBLE_COMPLEX, "c_double_complex")
#ifdef MPI_LOGICAL1
	P(MPI_LOGICAL1, "int8_t")
#endif
#ifdef MPI_LOGICAL2
	P(MPI_LOGICAL2, "int16_t")
#endif
#ifdef MPI_LOGICAL4
	P(MPI_LOGICAL4, "int32_t")
#endif
#ifdef MPI_LOGICAL8
	P(MPI_LOGICAL8, "int64_t")
#endif
#ifdef MPI_CXX_LONG_DOUBLE_COMPLEX
	P(MPI_CXX_LONG_DOUBLE_COMPLEX, "c_long_double_complex")
#endif
#undef P
}

void ddt_init(void) { pthread_once(&ddt_once, ddt_setup); }

// ---- constructors -------------------------------------------------------

void ddt_args_init(ddt_args *a, int64_t ni, int64_t na, int64_t nt) {
	ddt_init();
	memset(a, 0, offsetof(ddt_args, ibuf));
	a->ints = ni <= 32 ? a->ibuf : malloc((size_t)ni * sizeof(int64_t));
	a->addrs = na <= 16 ? a->abuf : malloc((size_t)na * sizeof(int64_t));
	a->types = nt <= 16 ? a->tbuf : malloc((size_t)nt * sizeof(uintptr_t));
	a->bad = ni < 0 || na < 0 || nt < 0 || !a->ints || !a->addrs || !a->types;
	if (a->bad) {
		// keep ddt_put_* harmless
		a->ints = a->ibuf; a->addrs = a->abuf; a->types = a->tbuf;
	}
	a->ni = a->na = a->nt = 0;
}

void ddt_put_int(ddt_args *a, int64_t v) { if (!a->bad) a->ints[a->ni++] = v; }
void ddt_put_addr(ddt_args *a, int64_t v) { if (!a->bad) a->addrs[a->na++] = v; }
void ddt_put_type(ddt_args *a, MPI_Datatype t) { if (!a->bad) a->types[a->nt++] = DDT_H(t); }

int64_t ddt_order(int o) { return o == MPI_ORDER_FORTRAN ? 1 : 0; }
int64_t ddt_distrib(int d) {
	if (d == MPI_DISTRIBUTE_CYCLIC) return 1;
	if (d == MPI_DISTRIBUTE_NONE) return 2;
	return 0;
}
int64_t ddt_darg(int d) { return d == MPI_DISTRIBUTE_DFLT_DARG ? -1 : d; }

// mpi_bounds reads the size and bounds MPI reports for t (size -1 when MPI
// cannot say).
static void mpi_bounds(MPI_Datatype t, ddt_bounds *b) {
	MPI_Count size, lb, ext, tlb, text;
	if (PMPI_Type_size_x(t, &size) != MPI_SUCCESS || PMPI_Type_get_extent_x(t, &lb, &ext) != MPI_SUCCESS ||
		PMPI_Type_get_true_extent_x(t, &tlb, &text) != MPI_SUCCESS || size == MPI_UNDEFINED) {
		size = -1, lb = ext = tlb = text = 0;
	}
	memset(b, 0, sizeof *b);
	b->size = size, b->lb = lb, b->extent = ext, b->true_lb = tlb, b->true_extent = text;
}

void ddt_construct(int combiner, MPI_Datatype t, ddt_args *a) {
	ddt_init(); // reads DDT_MPI_STATS, which the count needs
	DDT_COUNT(types, 1);
	if (a->bad) {
		ddtgoConstruct(0, DDT_H(t), NULL, 0, NULL, 0, NULL, 0, NULL);
	} else {
		// MPI's bounds of the new type, so that the mirror can take MPI's
		// extent where only its padding differs (mirror_bounds)
		ddt_bounds b;
		mpi_bounds(t, &b);
		ddtgoConstruct(combiner, DDT_H(t), (int64_t *)a->ints, a->ni, (int64_t *)a->addrs, a->na,
			(uintptr_t *)a->types, a->nt, &b);
	}
	if (a->ints != a->ibuf) free(a->ints);
	if (a->addrs != a->abuf) free(a->addrs);
	if (a->types != a->tbuf) free(a->types);
}

int MPI_Type_commit(MPI_Datatype *datatype) {
	int rc = PMPI_Type_commit(datatype);
	if (rc != MPI_SUCCESS || !ddt_on) return rc;
	ddt_init();
	MPI_Datatype t = *datatype;
	ddt_bounds b;
	mpi_bounds(t, &b);
	int first = 0;
	int32_t pin = ddtgoCommit(DDT_H(t), &b, &first);
	if (pin == -2 || !first) return rc;
	if (pin >= 0) {
		ddt_tinfo ti = {DDT_H(t), pin, b.size, b.lb, b.extent, b.true_lb, b.true_extent, {0, 0, 0}, b.data_lb, b.contig};
		if (b.nruns >= 2 && b.nruns <= DDT_RUNS) {
			ti.nruns = b.nruns;
			memcpy(ti.run_off, b.run_off, sizeof ti.run_off);
			memcpy(ti.run_len, b.run_len, sizeof ti.run_len);
		}
		tinsert(DDT_H(t), &ti);
		DDT_COUNT(mirrored, 1);
	} else {
		DDT_COUNT(fallback, 1);
	}
	return rc;
}

// MPI_Type_free drops the mirror before MPI frees the type: once MPI has
// freed it, another thread may get the same handle for a new type.
int MPI_Type_free(MPI_Datatype *datatype) {
	if (ddt_on && datatype && *datatype != MPI_DATATYPE_NULL && ddtgoFree(DDT_H(*datatype))) tremove(DDT_H(*datatype));
	return PMPI_Type_free(datatype);
}

static void ref_types(int n, MPI_Datatype *ts) {
	for (int i = 0; ts && i < n; i++) ddtgoRef(DDT_H(ts[i]));
}

int MPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses, int max_datatypes,
	int array_of_integers[], MPI_Aint array_of_addresses[], MPI_Datatype array_of_datatypes[]) {
	int rc = PMPI_Type_get_contents(datatype, max_integers, max_addresses, max_datatypes, array_of_integers,
		array_of_addresses, array_of_datatypes);
	if (rc == MPI_SUCCESS && ddt_on) ref_types(max_datatypes, array_of_datatypes);
	return rc;
}

#if MPI_VERSION >= 4
int MPI_Type_get_contents_c(MPI_Datatype datatype, MPI_Count max_integers, MPI_Count max_addresses,
	MPI_Count max_large_counts, MPI_Count max_datatypes, int array_of_integers[], MPI_Aint array_of_addresses[],
	MPI_Count array_of_large_counts[], MPI_Datatype array_of_datatypes[]) {
	int rc = PMPI_Type_get_contents_c(datatype, max_integers, max_addresses, max_large_counts, max_datatypes,
		array_of_integers, array_of_addresses, array_of_large_counts, array_of_datatypes);
	if (rc == MPI_SUCCESS && ddt_on) ref_types((int)max_datatypes, array_of_datatypes);
	return rc;
}
#endif

// ---- pack and unpack ----------------------------------------------------

static int comm_ok(MPI_Comm c) { return c != MPI_COMM_NULL; }

// pack and unpack serve MPI_Pack and MPI_Unpack (and their _c forms): they
// return 0 when the call is the MPI library's (a type ddt does not serve,
// bad arguments, a buffer too small: MPI then raises its own error).
static inline int pack(const void *inbuf, int64_t incount, MPI_Datatype t, void *outbuf, int64_t outsize,
	int64_t *position, MPI_Comm comm) {
	const ddt_tinfo *ti = tlookup(t);
	if (!ti || incount < 0 || *position < 0 || *position > outsize || !comm_ok(comm)) return 0;
	int64_t n = ddt_pack(ti, inbuf, incount, (char *)outbuf + *position, outsize - *position);
	if (n < 0) return 0;
	*position += n;
	DDT_COUNT(packs, 1);
	DDT_COUNT(bytes, n);
	return 1;
}

static inline int unpack(const void *inbuf, int64_t insize, int64_t *position, void *outbuf, int64_t outcount,
	MPI_Datatype t, MPI_Comm comm) {
	const ddt_tinfo *ti = tlookup(t);
	if (!ti || outcount < 0 || *position < 0 || *position > insize || !comm_ok(comm)) return 0;
	int64_t need;
	if (__builtin_mul_overflow(outcount, ti->size, &need) || need > insize - *position) return 0; // MPI reports it
	int64_t n = ddt_unpack(ti, (char *)inbuf + *position, insize - *position, outbuf, outcount);
	if (n < 0) return 0;
	*position += n;
	DDT_COUNT(unpacks, 1);
	DDT_COUNT(bytes, n);
	return 1;
}

int MPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize, int *position,
	MPI_Comm comm) {
	if (position) {
		int64_t pos = *position;
		if (pack(inbuf, incount, datatype, outbuf, outsize, &pos, comm)) {
			*position = (int)pos;
			return MPI_SUCCESS;
		}
	}
	return PMPI_Pack(inbuf, incount, datatype, outbuf, outsize, position, comm);
}

int MPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount, MPI_Datatype datatype,
	MPI_Comm comm) {
	if (position) {
		int64_t pos = *position;
		if (unpack(inbuf, insize, &pos, outbuf, outcount, datatype, comm)) {
			*position = (int)pos;
			return MPI_SUCCESS;
		}
	}
	return PMPI_Unpack(inbuf, insize, position, outbuf, outcount, datatype, comm);
}

int MPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size) {
	const ddt_tinfo *ti;
	int64_t n;
	if (size && incount >= 0 && comm_ok(comm) && (ti = tlookup(datatype)) &&
		!__builtin_mul_overflow((int64_t)incount, ti->size, &n) && n <= INT_MAX) {
		*size = (int)n;
		return MPI_SUCCESS;
	}
	return PMPI_Pack_size(incount, datatype, comm, size);
}

static int ext32(const char *datarep) { return datarep && strcmp(datarep, "external32") == 0; }

static int pack_ext(const char *datarep, const void *inbuf, int64_t incount, MPI_Datatype t, void *outbuf,
	int64_t outsize, int64_t *position) {
	ddt_tinfo ti;
	if (!ext32(datarep) || !ddt_served(t, &ti) || incount < 0 || *position < 0 || *position > outsize) return 0;
	int64_t n = ddtgoExtPack(ti.pin, (void *)inbuf, incount, (char *)outbuf + *position, outsize - *position);
	if (n < 0) return 0;
	*position += n;
	DDT_COUNT(packs, 1);
	DDT_COUNT(bytes, n);
	return 1;
}

static int unpack_ext(const char *datarep, const void *inbuf, int64_t insize, int64_t *position, void *outbuf,
	int64_t outcount, MPI_Datatype t) {
	ddt_tinfo ti;
	if (!ext32(datarep) || !ddt_served(t, &ti) || outcount < 0 || *position < 0 || *position > insize) return 0;
	int64_t need = ddtgoExtSize(ti.pin, outcount);
	if (need < 0 || need > insize - *position) return 0;
	int64_t n = ddtgoExtUnpack(ti.pin, (char *)inbuf + *position, insize - *position, outbuf, outcount);
	if (n < 0) return 0;
	*position += n;
	DDT_COUNT(unpacks, 1);
	DDT_COUNT(bytes, n);
	return 1;
}

int MPI_Pack_external(const char datarep[], const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf,
	MPI_Aint outsize, MPI_Aint *position) {
	if (position) {
		int64_t pos = *position;
		if (pack_ext(datarep, inbuf, incount, datatype, outbuf, outsize, &pos)) {
			*position = pos;
			return MPI_SUCCESS;
		}
	}
	return PMPI_Pack_external(datarep, inbuf, incount, datatype, outbuf, outsize, position);
}

int MPI_Unpack_external(const char datarep[], const void *inbuf, MPI_Aint insize, MPI_Aint *position,
	void *outbuf, int outcount, MPI_Datatype datatype) {
	if (position) {
		int64_t pos = *position;
		if (unpack_ext(datarep, inbuf, insize, &pos, outbuf, outcount, datatype)) {
			*position = pos;
			return MPI_SUCCESS;
		}
	}
	return PMPI_Unpack_external(datarep, inbuf, insize, position, outbuf, outcount, datatype);
}

int MPI_Pack_external_size(const char datarep[], int incount, MPI_Datatype datatype, MPI_Aint *size) {
	ddt_tinfo ti;
	if (size && ext32(datarep) && incount >= 0 && ddt_served(datatype, &ti)) {
		int64_t n = ddtgoExtSize(ti.pin, incount);
		if (n >= 0) {
			*size = n;
			return MPI_SUCCESS;
		}
	}
	return PMPI_Pack_external_size(datarep, incount, datatype, size);
}

#if MPI_VERSION >= 4
int MPI_Pack_c(const void *inbuf, MPI_Count incount, MPI_Datatype datatype, void *outbuf, MPI_Count outsize,
	MPI_Count *position, MPI_Comm comm) {
	if (position) {
		int64_t pos = *position;
		if (pack(inbuf, incount, datatype, outbuf, outsize, &pos, comm)) {
			*position = pos;
			return MPI_SUCCESS;
		}
	}
	return PMPI_Pack_c(inbuf, incount, datatype, outbuf, outsize, position, comm);
}

int MPI_Unpack_c(const void *inbuf, MPI_Count insize, MPI_Count *position, void *outbuf, MPI_Count outcount,
	MPI_Datatype datatype, MPI_Comm comm) {
	if (position) {
		int64_t pos = *position;
		if (unpack(inbuf, insize, &pos, outbuf, outcount, datatype, comm)) {
			*position = pos;
			return MPI_SUCCESS;
		}
	}
	return PMPI_Unpack_c(inbuf, insize, position, outbuf, outcount, datatype, comm);
}

int MPI_Pack_size_c(MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm, MPI_Count *size) {
	const ddt_tinfo *ti;
	int64_t n;
	if (size && incount >= 0 && comm_ok(comm) && (ti = tlookup(datatype)) &&
		!__builtin_mul_overflow((int64_t)incount, ti->size, &n)) {
		*size = n;
		return MPI_SUCCESS;
	}
	return PMPI_Pack_size_c(incount, datatype, comm, size);
}

int MPI_Pack_external_c(const char datarep[], const void *inbuf, MPI_Count incount, MPI_Datatype datatype,
	void *outbuf, MPI_Count outsize, MPI_Count *position) {
	if (position) {
		int64_t pos = *position;
		if (pack_ext(datarep, inbuf, incount, datatype, outbuf, outsize, &pos)) {
			*position = pos;
			return MPI_SUCCESS;
		}
	}
	return PMPI_Pack_external_c(datarep, inbuf, incount, datatype, outbuf, outsize, position);
}

int MPI_Unpack_external_c(const char datarep[], const void *inbuf, MPI_Count insize, MPI_Count *position,
	void *outbuf, MPI_Count outcount, MPI_Datatype datatype) {
	if (position) {
		int64_t pos = *position;
		if (unpack_ext(datarep, inbuf, insize, &pos, outbuf, outcount, datatype)) {
			*position = pos;
			return MPI_SUCCESS;
		}
	}
	return PMPI_Unpack_external_c(datarep, inbuf, insize, position, outbuf, outcount, datatype);
}

int MPI_Pack_external_size_c(const char datarep[], MPI_Count incount, MPI_Datatype datatype, MPI_Count *size) {
	ddt_tinfo ti;
	if (size && ext32(datarep) && incount >= 0 && ddt_served(datatype, &ti)) {
		int64_t n = ddtgoExtSize(ti.pin, incount);
		if (n >= 0) {
			*size = n;
			return MPI_SUCCESS;
		}
	}
	return PMPI_Pack_external_size_c(datarep, incount, datatype, size);
}
#endif

// ---- finalize -----------------------------------------------------------

int MPI_Finalize(void) {
	if (ddt_on) {
		ddt_reap();
		pl_fini();
		if (ddt_stats_on) {
			// what the program wrote to stdout goes first, whole, so that
			// the line never lands inside a line of the program's
			fflush(stdout);
			int rank = -1;
			PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
			fprintf(stderr,
				"ddt-mpi: rank=%d types=%ld mirrored=%ld fallback=%ld packs=%ld unpacks=%ld sends=%ld recvs=%ld bytes=%ld native=%ld pipelined=%ld direct=%ld own=%ld shm=%ld\n",
				rank, atomic_load(&ddt_st.types), atomic_load(&ddt_st.mirrored), atomic_load(&ddt_st.fallback),
				atomic_load(&ddt_st.packs), atomic_load(&ddt_st.unpacks), atomic_load(&ddt_st.sends),
				atomic_load(&ddt_st.recvs), atomic_load(&ddt_st.bytes), atomic_load(&ddt_st.native),
				atomic_load(&ddt_st.pipelined), atomic_load(&ddt_st.direct), atomic_load(&ddt_st.own),
				atomic_load(&ddt_st.shm));
			fflush(stderr);
		}
	}
	return PMPI_Finalize();
}
