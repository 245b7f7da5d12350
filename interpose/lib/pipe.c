//go:build ddtinterpose

// Pipelining of large point-to-point messages (docs/interpose.md,
// "Pipelining"). A message whose packed size exceeds the threshold
// (DDT_MPI_PIPELINE, default PL_THRESHOLD bytes) travels in packets:
//
//   - packet 0 goes on the user's communicator with the user's tag, so it
//     is matched exactly as the whole message would be (wildcards, order,
//     Ssend/Rsend semantics): it is PL_L0 bytes long, the first PL_D0
//     bytes of the packed message followed by a PL_TRAILER-byte trailer
//     (a magic number, the message's length, a private tag, a check);
//   - packets 1.. carry the rest, DDT_MPI_PACKET bytes each, on a private
//     duplicate of MPI_COMM_WORLD made at MPI_Init, to the receiver's
//     rank in MPI_COMM_WORLD, under a tag private to this message; or, for
//     a type whose instances exceed half a packet, aligned packets of
//     whole instances (a trailer of magic PL_MAGIC_A, pl_span).
//
// The sender packs packet k+1 while packets up to k are in flight; the
// receiver posts the receives of all the rest as soon as packet 0 has
// matched and unpacks packet k while k+1 arrives (a type whose ranges are
// not cheap: the whole instances that arrived). Every receive of PL_L0
// bytes or more looks for the trailer when it got exactly PL_L0 bytes:
// the receiving type need not be the sender's (a contiguous receive takes
// the rest straight into the user's memory). The sender never waits for
// packets 1.. (the receiver takes them only when it completes its
// receive, which a correct program may do after it waited for something
// else): they complete in the background and at MPI_Finalize.
#include "shimint.h"
#include "_cgo_export.h"
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

// MPI_STATUSES_IGNORE is a null array to gcc
#pragma GCC diagnostic ignored "-Wstringop-overflow"

#define PL_MAGIC 0x657069702d746464ull /* "ddt-pipe" */
// PL_MAGIC_A marks a message in aligned packets (pl_span): packet j >= 1
// ends at byte j*packet of the packed stream, a multiple of the type's size
#define PL_MAGIC_A 0x617069702d746464ull /* "ddt-pipa" */
// PL_MAGIC_S marks a message whose bytes wait in the sender's shared
// memory (shm.c): the trailer's tag is the slot, its packet the slot's
// generation, and the receiver unpacks the whole stream from the slot's
// region (packet 0's PL_D0 bytes are zeros: it goes before the packing)
#define PL_MAGIC_S 0x736d68732d747464ull /* "ddt-shms" */
// PL_SHM_UNIT: the default of DDT_MPI_SHM_UNIT, the bytes the sender
// packs into shared memory between two publications (rounded to whole
// instances where they fit)
#define PL_SHM_UNIT (32 << 10)
// PL_SHM_MIN: the default of DDT_MPI_SHM_MIN, the packed bytes from which
// a staged message to a process of this node goes through shared memory
// even when the rules above would send it whole (0: only the messages
// they pipeline). Measured on the ping-pong (docs/interpose-bench.md,
// "Shared memory"): the receiver's unpack from the sender's region saves
// MPI's copy of the message (SPECFEM3D_cm M 1.2-1.3x faster, LAMMPS_full
// L 1.2-1.7x; no layout clearly slower)
#define PL_SHM_MIN (64 << 10)
static int64_t pl_shm_unit = PL_SHM_UNIT;
static int64_t pl_shm_min = PL_SHM_MIN;

MPI_Comm pl_comm = MPI_COMM_NULL; // the private communicator; NULL: no pipelining
int64_t pl_threshold = PL_THRESHOLD, pl_packet = PL_PACKET;
static int pl_tagmax, pl_me;
static atomic_int pl_seq;
// pipelining by cost ("pipelining by cost" below): the defaults of
// DDT_MPI_PIPE_COST (ns per packed byte) and DDT_MPI_PIPE_WAIT, the bytes
// timed, the packets of the rest at least, the smallest packet
#define PL_COST 0.15
#define PL_WAIT 3
#define PL_PROBE (1 << 20)
#define PL_PACKETS 4
// PL_COST_MIN: the cost rule pipelines messages of more packed bytes only
#define PL_COST_MIN 65568
#define PL_MINPACKET (8 << 10)
#define PL_REPS 3
static double pl_cost = PL_COST;
// PL_COST_BIG: the default of DDT_MPI_PIPE_COST_BIG, the cost rule's
// threshold for a type timed on a message of PL_BIG packed bytes or more
// (the lower of it and DDT_MPI_PIPE_COST): there the packets' fixed costs
// weigh less. On Open MPI SPECFEM3D_mt.send L (4 MB, timed at 0.117-0.164
// ns/B, pipelined or not by chance under 0.15) measured 1.2-1.3x faster
// pipelined; no other of the 83 DDTBench/anchor layouts of 1 MiB or more
// is timed between 0.10 and 0.15. On MPICH no gain was seen: 0.15 there.
#define PL_BIG (1 << 20)
#ifdef OPEN_MPI
#define PL_COST_BIG 0.10
#else
#define PL_COST_BIG PL_COST
#endif
static double pl_cost_big = PL_COST_BIG;
static int64_t pl_wait = PL_WAIT;
static int pl_debug; // DDT_MPI_PIPE_DEBUG=1: print the cost rule's decisions and each message's timings; 2: each packet's
// PL_SPIN: the default of DDT_MPI_PIPE_SPIN, how long (µs) pl_send tests
// packet 0 before it packs the rest: on Open MPI packet 0 went on only
// with the sender's progress, so the receiver saw it (and posted the
// receives of the rest) only once the whole message was packed
#define PL_SPIN 30
static double pl_spin = PL_SPIN * 1e-6;
// PL_CHUNK: the default of DDT_MPI_PIPE_CHUNK, pl_pack_poll's pieces: on
// Open MPI only (MPICH's packets travel without the sender's progress,
// and there its progress calls measured no gain)
#ifdef OPEN_MPI
#define PL_CHUNK (8 << 10)
#else
#define PL_CHUNK 0
#endif
static int64_t pl_chunk = PL_CHUNK;
// pl_align: DDT_MPI_PIPE_ALIGN=0 sends no aligned packets (pl_align_packet).
// Experiments, off by default: DDT_MPI_PIPE_SUB=1 polls inside the
// instances of aligned packets too (pieces by ddt's range path, slow on
// irregular types today), DDT_MPI_PIPE_SEQ=1 posts the receive of each
// packet only once the one before is in and unpacked (on Open MPI the
// packets after the first, all posted at once, often arrived only when the
// sender had packed them all; one at a time they did not, but the
// ping-pong did not measure faster)
static int pl_align = 1, pl_sub, pl_seqrecv;

typedef struct {
	uint64_t magic;
	int64_t n;       // packed bytes of the whole message
	int32_t tag;     // tag of packets 1.. on pl_comm
	int32_t packet;  // bytes per packet of packets 1..
	int32_t src;     // the sender's rank in MPI_COMM_WORLD (and pl_comm)
	uint32_t check;
} pl_hdr;

// pl_npackets is the number of packets after packet 0 of the message of
// h; pl_span sets *off and *len to the bytes of packet j (1..) of it.
// Packets of PL_MAGIC are h->packet bytes each after packet 0's PL_D0
// (the last shorter); packets of PL_MAGIC_A (aligned) end at multiples of
// h->packet (> PL_D0): packet 1 is bytes PL_D0..packet, packet j bytes
// (j-1)*packet..j*packet, so that a sender whose packet is k instances of
// its type packs and a receiver of that type unpacks whole instances only.
static int64_t pl_npackets(const pl_hdr *h) {
	if (h->magic == PL_MAGIC_A) return (h->n + h->packet - 1) / h->packet;
	return (h->n - PL_D0 + h->packet - 1) / h->packet;
}

static void pl_span(const pl_hdr *h, int64_t j, int64_t *off, int64_t *len) {
	int64_t o, e;
	if (h->magic == PL_MAGIC_A) {
		o = j == 1 ? PL_D0 : (j - 1) * h->packet;
		e = j * h->packet;
	} else {
		o = PL_D0 + (j - 1) * h->packet;
		e = o + h->packet;
	}
	if (e > h->n) e = h->n;
	*off = o, *len = e - o;
}

_Static_assert(sizeof(pl_hdr) == PL_TRAILER, "trailer size");

static uint32_t pl_check(const pl_hdr *h) {
	uint64_t x = h->magic ^ ((uint64_t)h->n * 0x9E3779B97F4A7C15ull) ^ ((uint64_t)(uint32_t)h->tag << 32) ^
		     (uint64_t)(uint32_t)h->packet ^ ((uint64_t)(uint32_t)h->src * 0xD6E8FEB86659FD93ull);
	x ^= x >> 29;
	x *= 0xBF58476D1CE4E5B9ull;
	return (uint32_t)(x ^ (x >> 32));
}

// ddt_envint reads a byte count (k, m, g suffixes) from the environment, def
// when unset or malformed (direct.c and shm.c read theirs through it too).
int64_t ddt_envint(const char *name, int64_t def) {
	const char *e = getenv(name);
	if (!e || !*e) return def;
	char *end;
	long long v = strtoll(e, &end, 10);
	if (v < 0 || v > (INT64_MAX >> 30)) return def;
	if (*end == 'k' || *end == 'K') v <<= 10, end++;
	else if (*end == 'm' || *end == 'M') v <<= 20, end++;
	else if (*end == 'g' || *end == 'G') v <<= 30, end++;
	if (*end) return def;
	return v;
}

// pl_isend0 posts packet 0 (PL_L0 bytes at p0) in the send's mode: 's'
// synchronous, 'r' ready, else standard.
static int pl_isend0(int mode, char *p0, int dest, int tag, MPI_Comm comm, MPI_Request *r0) {
	return mode == 's' ? PMPI_Issend(p0, PL_L0, MPI_BYTE, dest, tag, comm, r0)
		: mode == 'r' ? PMPI_Irsend(p0, PL_L0, MPI_BYTE, dest, tag, comm, r0)
			      : PMPI_Isend(p0, PL_L0, MPI_BYTE, dest, tag, comm, r0);
}

// pl_setup runs after PMPI_Init: it reads the environment and makes the
// private communicator (MPI_COMM_WORLD is valid and every rank is here).
void pl_setup(void) {
	ddt_init();
	if (!ddt_on || pl_comm != MPI_COMM_NULL) return;
	pl_threshold = ddt_envint("DDT_MPI_PIPELINE", PL_THRESHOLD);
	pl_packet = ddt_envint("DDT_MPI_PACKET", PL_PACKET);
	const char *e = getenv("DDT_MPI_PIPE_COST");
	if (e && *e) {
		char *end;
		double x = strtod(e, &end);
		if (!*end && x >= 0 && x < 1e9) pl_cost = x;
	}
	e = getenv("DDT_MPI_PIPE_COST_BIG");
	if (e && *e) {
		char *end;
		double x = strtod(e, &end);
		if (!*end && x >= 0 && x < 1e9) pl_cost_big = x;
	}
	pl_wait = ddt_envint("DDT_MPI_PIPE_WAIT", PL_WAIT);
	pl_align = ddt_envint("DDT_MPI_PIPE_ALIGN", 1) != 0;
	pl_spin = 1e-6 * (double)ddt_envint("DDT_MPI_PIPE_SPIN", PL_SPIN);
	pl_chunk = ddt_envint("DDT_MPI_PIPE_CHUNK", PL_CHUNK);
	pl_sub = ddt_envint("DDT_MPI_PIPE_SUB", 0);
	pl_seqrecv = ddt_envint("DDT_MPI_PIPE_SEQ", 0);
	e = getenv("DDT_MPI_PIPE_DEBUG");
	pl_debug = e && *e ? atoi(e) : 0;
	pl_shm_unit = ddt_envint("DDT_MPI_SHM_UNIT", PL_SHM_UNIT);
	pl_shm_min = ddt_envint("DDT_MPI_SHM_MIN", PL_SHM_MIN);
	if (pl_shm_unit < 4096) pl_shm_unit = 4096;
	if (pl_packet < 4096) pl_packet = 4096;
	if (pl_packet > (1 << 30)) pl_packet = 1 << 30;
	// DDT_MPI_PIPELINE=0 stops this process's sending in packets; it
	// still receives them (the private communicator and the shared
	// memory are made on every process: both are collective)
	if (pl_threshold > 0 && pl_threshold < PL_L0) pl_threshold = PL_L0;
	int flag = 0, *ub = NULL;
	if (PMPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag) != MPI_SUCCESS || !flag || !ub || *ub < 1)
		return;
	pl_tagmax = *ub;
	MPI_Comm c;
	if (PMPI_Comm_dup(MPI_COMM_WORLD, &c) != MPI_SUCCESS) return;
	PMPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
	PMPI_Comm_rank(c, &pl_me);
	int nworld = 0;
	PMPI_Comm_size(c, &nworld);
	pl_comm = c;
	sh_setup(pl_me, nworld, pl_debug);
}

// ---- ranges of the packed stream --------------------------------------------

// pl_pack packs bytes [from, from+len) of the packed stream of count
// instances at buf into dst: whole instances by ddt_pack (the generated
// code once it exists), the pieces of instances at the ends through Go.
static int pl_pack(const ddt_tinfo *ti, const void *buf, int64_t count, int64_t from, int64_t len, char *dst) {
	int64_t sz = ti->size, to = from + len;
	int64_t i0 = (from + sz - 1) / sz, i1 = to / sz;
	if (i0 >= i1) return ddtgoPackRange(ti->pin, (void *)buf, count, from, dst, len) == len;
	int64_t head = i0 * sz - from, tail = to - i1 * sz;
	if (head && ddtgoPackRange(ti->pin, (void *)buf, count, from, dst, head) != head) return 0;
	if (ddt_pack(ti, (const char *)buf + i0 * ti->extent, i1 - i0, dst + head, (i1 - i0) * sz) != (i1 - i0) * sz)
		return 0;
	if (tail && ddtgoPackRange(ti->pin, (void *)buf, count, i1 * sz, dst + len - tail, tail) != tail) return 0;
	return 1;
}

// pl_unpack unpacks bytes [from, from+len) of the stream into count instances at buf.
static int pl_unpack(const ddt_tinfo *ti, void *buf, int64_t count, int64_t from, int64_t len, const char *src) {
	int64_t sz = ti->size, to = from + len;
	int64_t i0 = (from + sz - 1) / sz, i1 = to / sz;
	if (i0 >= i1) return ddtgoUnpackRange(ti->pin, (void *)src, len, buf, count, from) == len;
	int64_t head = i0 * sz - from, tail = to - i1 * sz;
	if (head && ddtgoUnpackRange(ti->pin, (void *)src, head, buf, count, from) != head) return 0;
	if (ddt_unpack(ti, src + head, (i1 - i0) * sz, (char *)buf + i0 * ti->extent, i1 - i0) != (i1 - i0) * sz)
		return 0;
	if (tail && ddtgoUnpackRange(ti->pin, (void *)(src + len - tail), tail, buf, count, i1 * sz) != tail)
		return 0;
	return 1;
}

// pl_whole reports whether packets of the given size are mostly whole
// instances of a type of the given size, which ddt_pack and ddt_unpack
// move with the type's generated code. A type whose instance is larger is
// moved in packets by the range path of ddt's engines, which is several
// times slower than the generated code on irregular types
// (BenchmarkPacketRanges, 256 KiB ranges of the large DDTBench layouts:
// SPECFEM3D_cm 6.7x, LAMMPS_full 6.5x, LAMMPS_atomic and SPECFEM3D_mt
// 1.8x; about 1x on vectors and subarrays); overlapping the
// packing with the transfer cannot win that back, so such messages are
// pipelined only when pl_ranges finds the type's ranges cheap.
static int pl_whole(int64_t size, int64_t packet) { return size <= packet / 2; }

// pl_ranges reports whether packets of the given size of ti move about as
// fast as whole instances: they are mostly whole instances (pl_whole), or
// the type's runs follow at most PL_PATTERNS patterns of (length, distance
// from the previous run) (vectors, subarrays, nested vectors: ddt's range
// path kept up with the whole pack on those, 0.4-1.4x). The pattern count
// is asked of ddt once per type and kept in the type table.
#define PL_PATTERNS 8
static int pl_ranges(const ddt_tinfo *ti, int64_t packet) {
	if (pl_whole(ti->size, packet)) return 1;
	if (ti->prange) return ti->prange > 0;
	if (ti->key == 0) return 0;
	int64_t runs = 0, elem = 0;
	int32_t r = ddtgoRegular(ti->pin, PL_PATTERNS, &runs, &elem) ? 1 : -1;
	ddt_tset_pipe(ti->key, 1, r);
	return r > 0;
}

// ---- pipelining by cost -------------------------------------------------------------
//
// The size rule (DDT_MPI_PIPELINE, instances in half a packet) misses the
// messages where staging loses most against the MPI library's own engine:
// single instances of 64 KB-16 MB whose data lies in short runs far apart
// (NAS_MG_x: single doubles; WRF_x_sa: 12-byte runs), which ddt packs at a
// fraction of memory speed. Staged, the receiver waits for the whole pack
// and the sender for the whole unpack; MPI's engine overlaps the two. So a
// type is also timed once (on its first message of more than PL_L0 packed
// bytes after ddt generated its native code, or its DDT_MPI_PIPE_WAIT-th,
// default PL_WAIT): ddt packs the first PL_PROBE bytes of that message
// into a scratch buffer by the path the packets would take (best of
// PL_REPS: on a loaded machine a single timing may be preempted). If that
// took DDT_MPI_PIPE_COST ns per byte or more (default PL_COST), every
// message of the type of more than PL_L0 packed bytes whose byte ranges
// are cheap (pl_ranges) is pipelined, in packets of a size that gives the
// rest of the message at least PL_PACKETS packets (pl_cost_packet).
// DDT_MPI_PIPE_COST=0 switches the rule off.

// pl_cost_packet is the packet size of a message of n bytes pipelined by
// cost: the rest after packet 0 in PL_PACKETS packets or more, each a
// multiple of 4 KiB, at least PL_MINPACKET and at most DDT_MPI_PACKET.
static int64_t pl_cost_packet(int64_t n) {
	int64_t p = (n - PL_D0 + PL_PACKETS - 1) / PL_PACKETS;
	p = (p + 4095) & ~(int64_t)4095;
	if (p < PL_MINPACKET) p = PL_MINPACKET;
	if (p > pl_packet) p = pl_packet;
	return p;
}

static double pl_now(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

// pl_costly times ddt's pack of the first bytes of the n-byte message of
// count instances of ti at buf (reading the user's buffer only) and
// reports whether it took pl_cost ns per byte or more.
static int pl_costly(const ddt_tinfo *ti, const void *buf, int64_t count, int64_t n, int64_t packet) {
	int64_t len = n < PL_PROBE ? n : PL_PROBE;
	char *tmp = ddt_buf_get(len);
	if (!tmp) return 0;
	double best = 1e30;
	int ok = 1;
	for (int r = 0; r < PL_REPS && ok; r++) {
		double t0 = pl_now();
		ok = pl_pack(ti, buf, count, 0, len, tmp);
		double t = pl_now() - t0;
		if (t < best) best = t;
	}
	ddt_buf_put(tmp, len);
	double ns = best * 1e9 / (double)len, th = n >= PL_BIG && pl_cost_big < pl_cost ? pl_cost_big : pl_cost;
	if (pl_debug)
		fprintf(stderr, "ddt pipe: type size %lld count %lld n %lld: pack %.3f ns/B (%s), packet %lld\n",
			(long long)ti->size, (long long)count, (long long)n, ns, ok && ns >= th ? "pipelined" : "staged",
			(long long)packet);
	return ok && ns >= th;
}

// pl_align_packet is the packet size of aligned packets (pl_span) of a
// message of count instances of ti, or 0: packets of k whole instances,
// k as many as fit in DDT_MPI_PACKET (at least 1, and more than PL_D0
// bytes; pl_plan asks only for instances over half a packet, so k is 1
// unless DDT_MPI_PACKET is under 2*PL_D0), for a message of at least two
// such packets.
static int64_t pl_align_packet(const ddt_tinfo *ti, int64_t count) {
	int64_t sz = ti->size;
	if (!pl_align || count < 2 || sz <= 0) return 0;
	int64_t k = pl_packet / sz;
	if (k < 1) k = 1;
	if (k * sz <= PL_D0) k = PL_D0 / sz + 1;
	if (k >= count || k * sz > (1 << 30)) return 0;
	return k * sz;
}

// pl_plan returns the packet size in which the n-byte message of count
// instances of ti at buf is pipelined, or 0 if it is sent whole: the size
// rule first (with *aligned set for a type whose instances exceed half a
// packet: packets of whole instances), then the cost rule (above).
static int64_t pl_plan(const ddt_tinfo *ti, const void *buf, int64_t count, int64_t n, int *aligned) {
	*aligned = 0;
	if (pl_comm == MPI_COMM_NULL || pl_threshold == 0 || n <= PL_L0) return 0;
	if (n > pl_threshold) {
		if (pl_whole(ti->size, pl_packet)) return pl_packet;
		int64_t p = pl_align_packet(ti, count);
		if (p) {
			*aligned = 1;
			return p;
		}
	}
	if (n <= PL_COST_MIN || pl_cost <= 0 || ti->key == 0 || ti->pstate < 0) return 0;
	int64_t packet = pl_cost_packet(n);
	if (!pl_ranges(ti, packet)) return 0;
	int32_t st = ti->pstate;
	if (st == 0) {
		if (!ti->nat.pack && ddt_tset_pipe(ti->key, 2, 0) < pl_wait) return 0;
		st = ddt_tset_pipe(ti->key, 0, pl_costly(ti, buf, count, n, packet) ? 1 : -1);
	}
	return st > 0 ? packet : 0;
}

// pl_would reports whether a message of n packed bytes of ti would be
// pipelined by its sender here (pl_plan's rules, the cost rule as far as
// it has decided for the type).
int pl_would(const ddt_tinfo *ti, int64_t n) {
	if (pl_comm == MPI_COMM_NULL || pl_threshold == 0 || n <= PL_L0) return 0;
	if (n > pl_threshold && (pl_whole(ti->size, pl_packet) || (ti->size > 0 && pl_align_packet(ti, n / ti->size))))
		return 1;
	return n > PL_COST_MIN && pl_cost > 0 && ti->pstate > 0 && pl_ranges(ti, pl_cost_packet(n));
}

// ---- ranks --------------------------------------------------------------------

// pl_world is rank r of comm (an intracommunicator) in MPI_COMM_WORLD, or -1.
static int pl_world(MPI_Comm comm, int r) {
	if (comm == MPI_COMM_WORLD) return r;
	int inter = 1, out = MPI_UNDEFINED;
	if (comm == MPI_COMM_NULL || PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter) return -1;
	MPI_Group g, w;
	if (PMPI_Comm_group(comm, &g) != MPI_SUCCESS) return -1;
	if (PMPI_Comm_group(MPI_COMM_WORLD, &w) == MPI_SUCCESS) {
		PMPI_Group_translate_ranks(g, 1, &r, w, &out);
		PMPI_Group_free(&w);
	}
	PMPI_Group_free(&g);
	return out == MPI_UNDEFINED ? -1 : out;
}

// ---- packets in flight (sender) ---------------------------------------------------

typedef struct flight {
	MPI_Request *reqs;
	int n;
	void *tmp;
	int64_t tn;
	struct flight *next;
} flight;

static flight *flights;
static atomic_long nflights;
static pthread_mutex_t flock_ = PTHREAD_MUTEX_INITIALIZER;

// pl_progress tests (wait: waits for) the packets in flight and releases
// the buffers of the messages whose packets are all gone.
void pl_progress(int wait) {
	if (atomic_load_explicit(&nflights, memory_order_relaxed) == 0) return;
	if (!wait && pthread_mutex_trylock(&flock_) != 0) return;
	if (wait) pthread_mutex_lock(&flock_);
	for (flight **q = &flights; *q;) {
		flight *f = *q;
		int done = 0;
		if (wait) {
			PMPI_Waitall(f->n, f->reqs, MPI_STATUSES_IGNORE);
			done = 1;
		} else {
			PMPI_Testall(f->n, f->reqs, &done, MPI_STATUSES_IGNORE);
		}
		if (!done) {
			q = &f->next;
			continue;
		}
		*q = f->next;
		ddt_buf_put(f->tmp, f->tn);
		free(f->reqs);
		free(f);
		atomic_fetch_sub(&nflights, 1);
	}
	pthread_mutex_unlock(&flock_);
}

// pl_fini runs at MPI_Finalize. A correct program has received every
// message by then (its receiver took all packets before its receive
// returned); packets that nobody takes after a while (the receive of an
// erroneous program failed before it saw packet 0) are cancelled.
void pl_fini(void) {
	double t0 = PMPI_Wtime();
	while (atomic_load(&nflights) > 0 && PMPI_Wtime() - t0 < 10) pl_progress(0);
	pthread_mutex_lock(&flock_);
	for (flight *f = flights; f; f = f->next)
		for (int i = 0; i < f->n; i++)
			if (f->reqs[i] != MPI_REQUEST_NULL) {
				PMPI_Cancel(&f->reqs[i]);
				PMPI_Request_free(&f->reqs[i]);
			}
	pthread_mutex_unlock(&flock_);
	pl_progress(1);
	sh_fini();
	if (pl_comm != MPI_COMM_NULL) PMPI_Comm_free(&pl_comm);
	pl_comm = MPI_COMM_NULL;
}

// pl_pack_poll is pl_pack in pieces of about pl_chunk bytes, with MPI
// progress on *r (the packet posted last) between them: on Open MPI (ob1,
// vader) a posted packet reaches the receiver only with the sender's
// progress, which a long pack held back (the packets waited for the end
// of the packing, and nothing overlapped). The pieces end at multiples of
// a multiple of the type's size where instances fit in a piece (whole
// instances stay with the generated code) and at whole instances in
// aligned packets.
static void pl_pack_poll(const ddt_tinfo *ti, const void *buf, int64_t count, int64_t off, int64_t len, char *dst,
	int aligned, MPI_Request *r) {
	int64_t sz = ti->size, c = pl_chunk;
	if (c <= 0 || len <= c || sz <= 0) {
		pl_pack(ti, buf, count, off, len, dst);
		return;
	}
	if (sz <= c) c = c / sz * sz;
	else if (aligned && !pl_sub) c = sz;
	for (int64_t o = off, e = off + len; o < e;) {
		int64_t b = (o / c + 1) * c;
		if (b > e) b = e;
		pl_pack(ti, buf, count, o, b - o, dst + (o - off));
		o = b;
		int flag;
		if (o < e && *r != MPI_REQUEST_NULL) PMPI_Request_get_status(*r, &flag, MPI_STATUS_IGNORE);
	}
}

// ---- shared memory (shm.c) --------------------------------------------------------

// pl_shm_send sends a pipelined message to a process of this node through
// the shared memory of shm.c (arguments as pl_send's): it sends packet 0
// (PL_D0 bytes of zeros and a PL_MAGIC_S trailer that names the slot) at
// once, then packs the whole stream into a region of this process's
// arena, in units of about DDT_MPI_SHM_UNIT bytes (whole instances where
// they fit; single instances for a type whose byte ranges are not cheap),
// publishing each, so that the receiver unpacks while the sender packs.
// It returns 0 when the arena has no room.
static int pl_shm_send(int mode, const ddt_tinfo *ti, const void *buf, int64_t count, int64_t n, int dest, int tag,
	MPI_Comm comm, MPI_Request *req, void **p0out, int *rc) {
	int32_t idx, gen;
	char *data;
	int64_t sz = ti->size, unit = pl_shm_unit;
	if (sz <= 0) return 0;
	sh_slot *sl = sh_alloc(n, &idx, &gen, &data);
	if (!sl) return 0;
	char *p0 = ddt_buf_get(PL_L0);
	if (!p0) {
		sh_drop(idx);
		return 0;
	}
	if (sz <= unit) unit = unit / sz * sz;
	else if (!pl_ranges(ti, unit)) unit = sz;
	double t0 = pl_debug ? pl_now() : 0;
	memset(p0, 0, PL_D0);
	pl_hdr h = {PL_MAGIC_S, n, idx, gen, pl_me, 0};
	h.check = pl_check(&h);
	memcpy(p0 + PL_D0, &h, sizeof h);
	MPI_Request r0;
	int e = pl_isend0(mode, p0, dest, tag, comm, &r0);
	if (e != MPI_SUCCESS) {
		ddt_buf_put(p0, PL_L0);
		sh_drop(idx);
		*rc = e;
		return 1;
	}
	// packet 0 may need this process's progress to reach the receiver
	// (Open MPI's rendezvous: pl_send): it is tested between the units
	int flag = 0;
	for (int64_t off = 0; off < n; off += unit) {
		int64_t len = n - off < unit ? n - off : unit;
		// the receiver waits for these bytes: a failure to pack them
		// cannot fall back any more; the bytes go as they are
		pl_pack(ti, buf, count, off, len, data + off);
		sh_publish(sl, off + len);
		if (!flag && PMPI_Request_get_status(r0, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS) flag = 1;
	}
	sh_packed(idx);
	if (pl_debug)
		fprintf(stderr, "ddt pipe shm send: n %lld size %lld count %lld unit %lld: packet 0 %s, all %.1f us (at %.1f)\n",
			(long long)n, (long long)ti->size, (long long)count, (long long)unit, flag ? "done" : "pending",
			(pl_now() - t0) * 1e6, fmod(t0, 1) * 1e6);
	DDT_COUNT(sends, 1);
	DDT_COUNT(bytes, n);
	DDT_COUNT(pipelined, 1);
	DDT_COUNT(shm, 1);
	if (req) {
		*req = r0;
		*p0out = p0;
		*rc = MPI_SUCCESS;
	} else {
		*rc = PMPI_Wait(&r0, MPI_STATUS_IGNORE);
		ddt_buf_put(p0, PL_L0);
	}
	pl_progress(0);
	return 1;
}

// pl_shm_finish completes a receive into s whose packet 0 (trailer *h)
// names a region of its sender's shared memory (pl_finish's contract): it
// unpacks (PL_DDT) or copies the bytes that land in the receive as the
// sender publishes them, from the region itself, then hands the slot back.
static int pl_shm_finish(const pl_sink *s, const pl_hdr *h, MPI_Comm comm, MPI_Status *st, int *rc, int64_t *done) {
	const char *data;
	sh_slot *sl = sh_get(h->src, h->tag, h->packet, h->n, &data);
	*done = 0;
	if (!sl) { // not this message's region: cannot happen between correct processes
		PMPI_Status_set_elements_x(st, MPI_BYTE, 0);
		PMPI_Comm_call_errhandler(comm == MPI_COMM_NULL ? MPI_COMM_SELF : comm, MPI_ERR_INTERN);
		*rc = MPI_ERR_INTERN;
		return 1;
	}
	int64_t n = h->n, keep = n <= s->cap ? n : s->cap;
	int ddt = s->kind == PL_DDT;
	int ranges = ddt && pl_ranges(&s->ti, pl_shm_unit);
	int64_t sz = ddt ? s->ti.size : 1, at = 0; // bytes taken (packet 0's are zeros)
	double t0 = pl_debug ? pl_now() : 0, tw = 0;
	while (at < keep) {
		// the next whole instance (or any byte, for cheap ranges)
		int64_t want = ranges ? at + 1 : (at / sz + 1) * sz;
		if (want > keep) want = keep;
		double t1 = pl_debug ? pl_now() : 0;
		int64_t r = sh_wait(sl, want);
		if (pl_debug) tw += pl_now() - t1;
		int64_t to = r >= keep ? keep : ranges ? r : r / sz * sz;
		if (ddt && *done >= 0) {
			if (pl_unpack(&s->ti, s->buf, s->count, at, to - at, data + at)) *done = to;
			else *done = -1;
		}
		if (!ddt || *done < 0) memcpy(s->mem + at, data + at, (size_t)(to - at));
		at = to;
	}
	if (ddt && *done < 0) { // the caller unpacks all: the bytes before at are not in s->mem
		memcpy(s->mem, data, (size_t)keep);
		*done = 0;
	}
	sh_done(sl);
	if (pl_debug)
		fprintf(stderr, "ddt pipe shm recv: n %lld size %lld %s: wait %.1f us, all %.1f us (at %.1f)\n",
			(long long)n, (long long)sz, ranges ? "ranges" : "instances", tw * 1e6, (pl_now() - t0) * 1e6,
			fmod(t0, 1) * 1e6);
	PMPI_Status_set_elements_x(st, MPI_BYTE, keep);
	*rc = MPI_SUCCESS;
	if (n > keep) {
		PMPI_Comm_call_errhandler(comm == MPI_COMM_NULL ? MPI_COMM_SELF : comm, MPI_ERR_TRUNCATE);
		*rc = MPI_ERR_TRUNCATE;
	}
	if (ddt) DDT_COUNT(pipelined, 1);
	return 1;
}

// pl_send sends the n packed bytes of count instances at buf in packets
// (mode 'S' standard, 's' synchronous, 'r' ready). With req it returns
// packet 0's request in *req and the staging of packet 0 in *p0 (released
// when that request completes); without, it waits for packet 0. It
// returns 0 when it did nothing (the caller sends the usual way), else 1
// with the MPI return code in *rc.
int pl_send(int mode, const ddt_tinfo *ti, const void *buf, int64_t count, int64_t n, int dest, int tag,
	MPI_Comm comm, MPI_Request *req, void **p0out, int *rc) {
	if (pl_comm == MPI_COMM_NULL || pl_threshold == 0 || n <= PL_L0 || dest < 0) return 0;
	int aligned;
	int64_t packet = pl_plan(ti, buf, count, n, &aligned);
	if (!packet && !(pl_shm_min > 0 && n >= pl_shm_min && sh_on)) return 0;
	int dw = pl_world(comm, dest);
	if (dw < 0) return 0;
	if (sh_local(dw) && pl_shm_send(mode, ti, buf, count, n, dest, tag, comm, req, p0out, rc)) return 1;
	if (!packet) return 0;
	pl_hdr h = {aligned ? PL_MAGIC_A : PL_MAGIC, n, 0, (int32_t)packet, pl_me, 0};
	int64_t np = pl_npackets(&h);
	if (np > INT_MAX / 2) return 0;
	// tmp holds the packed stream from byte sh on (aligned: from 0, and
	// packet 0's bytes are copied from it)
	int64_t sh = aligned ? 0 : PL_D0, tn = n - sh;
	char *p0 = ddt_buf_get(PL_L0), *tmp = ddt_buf_get(tn);
	MPI_Request *reqs = malloc(sizeof(MPI_Request) * (size_t)np);
	flight *f = malloc(sizeof *f);
	double t0 = pl_debug ? pl_now() : 0, tp = 0;
	if (!p0 || !tmp || !reqs || !f) goto fail;
	if (aligned) {
		int64_t off, len;
		pl_span(&h, 1, &off, &len);
		if (!pl_pack(ti, buf, count, 0, off + len, tmp)) goto fail;
		memcpy(p0, tmp, PL_D0);
	} else if (!pl_pack(ti, buf, count, 0, PL_D0, p0)) {
		goto fail;
	}
	if (pl_debug) tp = pl_now() - t0;
	h.tag = (int32_t)((unsigned)atomic_fetch_add(&pl_seq, 1) % (unsigned)pl_tagmax);
	h.check = pl_check(&h);
	memcpy(p0 + PL_D0, &h, sizeof h);
	MPI_Request r0;
	int e = pl_isend0(mode, p0, dest, tag, comm, &r0);
	if (e != MPI_SUCCESS) {
		ddt_buf_put(p0, PL_L0), ddt_buf_put(tmp, tn), free(reqs), free(f);
		*rc = e;
		return 1;
	}
	// packet 0 may need this process's progress to reach the receiver
	// (Open MPI's rendezvous into the receiver's staging type: the sender
	// pushes the fragments), which packing the next packets would hold
	// back: give it up to pl_spin seconds now
	if (pl_spin > 0) {
		double ts = pl_now();
		int flag = 0;
		while (!flag && PMPI_Request_get_status(r0, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS &&
			pl_now() - ts < pl_spin)
			;
	}
	if (pl_debug) tp = pl_now() - t0;
	for (int64_t j = 1; j <= np; j++) {
		int64_t off, len;
		pl_span(&h, j, &off, &len);
		char *dst = tmp + (off - sh);
		// the receiver waits for these bytes: a failure to pack them here
		// cannot fall back any more; the bytes go as they are
		if (!aligned || j > 1) pl_pack_poll(ti, buf, count, off, len, dst, aligned, j > 1 ? &reqs[j - 2] : &r0);
		MPI_Request *r = &reqs[j - 1];
		if (PMPI_Isend(dst, (int)len, MPI_BYTE, dw, h.tag, pl_comm, r) != MPI_SUCCESS) *r = MPI_REQUEST_NULL;
		int flag;
		PMPI_Test(r, &flag, MPI_STATUS_IGNORE); // progress while packing
		if (pl_debug > 1) fprintf(stderr, "  send packet %lld posted at %.1f\n", (long long)j, (pl_now() - t0) * 1e6);
	}
	if (pl_debug)
		fprintf(stderr, "ddt pipe send: n %lld size %lld count %lld packet %lld%s np %lld: first %.1f us, all %.1f us (at %.1f)\n",
			(long long)n, (long long)ti->size, (long long)count, (long long)packet, aligned ? " aligned" : "",
			(long long)np, tp * 1e6, (pl_now() - t0) * 1e6, fmod(t0, 1) * 1e6);
	DDT_COUNT(sends, 1);
	DDT_COUNT(bytes, n);
	DDT_COUNT(pipelined, 1);
	f->reqs = reqs, f->n = (int)np, f->tmp = tmp, f->tn = tn;
	pthread_mutex_lock(&flock_);
	f->next = flights;
	flights = f;
	atomic_fetch_add(&nflights, 1);
	pthread_mutex_unlock(&flock_);
	if (req) {
		*req = r0;
		*p0out = p0;
		*rc = MPI_SUCCESS;
	} else {
		*rc = PMPI_Wait(&r0, MPI_STATUS_IGNORE);
		ddt_buf_put(p0, PL_L0);
	}
	pl_progress(0);
	return 1;
fail:
	ddt_buf_put(p0, PL_L0), ddt_buf_put(tmp, tn), free(reqs), free(f);
	return 0;
}

// ---- receiver -------------------------------------------------------------------

// pl_trailer reports whether the got bytes at mem are packet 0 of a
// pipelined message, and reads its trailer into *h.
static int pl_trailer(const char *mem, int64_t got, pl_hdr *h) {
	if (got != PL_L0) return 0;
	memcpy(h, mem + PL_D0, sizeof *h);
	return (h->magic == PL_MAGIC || (h->magic == PL_MAGIC_A && h->packet > PL_D0) || h->magic == PL_MAGIC_S) &&
	       h->n > PL_L0 &&
	       h->packet > 0 && h->tag >= 0 && h->src >= 0 && h->check == pl_check(h);
}

// pl_packet0 reports whether the got bytes at mem are packet 0 of a
// pipelined message (a direct receive, direct.c, gathers them from the
// user's memory to ask).
int pl_packet0(const char *mem, int64_t got) {
	pl_hdr h;
	return pl_trailer(mem, got, &h);
}

int pl_candidate(int64_t cap) { return pl_comm != MPI_COMM_NULL && cap >= PL_L0; }

// post posts the receive of the len bytes at byte off of the message of
// h (keep of them land in the receive: a packet that crosses its end goes
// to cut, the packets after it to dump).
static void post(const pl_sink *s, const pl_hdr *h, int64_t keep, int64_t off, int64_t len, char *cut, char *dump,
	MPI_Request *r) {
	char *dst = off + len <= keep ? s->mem + off : off < keep ? cut : dump;
	if (PMPI_Irecv(dst, (int)len, MPI_BYTE, h->src, h->tag, pl_comm, r) != MPI_SUCCESS) *r = MPI_REQUEST_NULL;
}

// pl_finish completes a receive into s whose first message (status *st)
// arrived: if it is packet 0 of a pipelined message, it receives the
// rest, unpacking as packets arrive (PL_DDT), and sets the count of *st
// to the whole message. It returns 1 if the message was pipelined (then
// *rc is its MPI return code: MPI_ERR_TRUNCATE, through the
// communicator's error handler, when the message exceeds the receive).
// For PL_DDT, *done is the number of bytes already unpacked (all that
// landed in the receive). The unpacking is progressive: a type whose
// byte ranges are cheap (pl_ranges) unpacks each packet as it arrives,
// any other the whole instances that have arrived (all of each packet
// when the sender's packets are aligned to the receiver's instances).
int pl_finish(const pl_sink *s, MPI_Comm comm, MPI_Status *st, int *rc, int64_t *done) {
	*done = 0;
	MPI_Count got = 0;
	pl_hdr h;
	if (pl_comm == MPI_COMM_NULL || s->cap < PL_L0) return 0;
	if (PMPI_Get_elements_x(st, MPI_BYTE, &got) != MPI_SUCCESS || !pl_trailer(s->mem, got, &h)) return 0;
	if (h.magic == PL_MAGIC_S) return pl_shm_finish(s, &h, comm, st, rc, done);
	int64_t n = h.n, keep = n <= s->cap ? n : s->cap; // bytes that land in the receive
	int64_t np = pl_npackets(&h), maxlen = h.packet; // no packet is longer
	// all the rest's receives are posted at once (without memory for
	// their requests, one after the other)
	MPI_Request one, *reqs = np == 1 ? &one : malloc(sizeof(MPI_Request) * (size_t)np);
	int seq = !reqs || pl_seqrecv;
	if (seq && reqs != &one) free(reqs);
	if (seq) reqs = &one;
	char *cut = NULL, *dump = NULL;
	if (n > keep && (!(cut = malloc((size_t)maxlen)) || !(dump = malloc((size_t)maxlen)))) np = 0;
	for (int64_t j = 1; j <= np && !seq; j++) {
		int64_t off, len;
		pl_span(&h, j, &off, &len);
		post(s, &h, keep, off, len, cut, dump, &reqs[j - 1]);
	}
	int64_t upto = PL_D0 < keep ? PL_D0 : keep;
	// unpack as packets arrive: ranges (cheap ones) or whole instances
	int ranges = s->kind == PL_DDT && pl_ranges(&s->ti, h.packet);
	int64_t sz = s->kind == PL_DDT ? s->ti.size : 0;
	double t0 = pl_debug ? pl_now() : 0, tw = 0, tu = 0, t1;
	if (ranges && upto > 0 && pl_unpack(&s->ti, s->buf, s->count, 0, upto, s->mem)) *done = upto;
	for (int64_t j = 1; j <= np; j++) {
		int64_t off, len;
		pl_span(&h, j, &off, &len);
		MPI_Request *r = seq ? &one : &reqs[j - 1];
		if (seq) post(s, &h, keep, off, len, cut, dump, r);
		if (pl_debug) t1 = pl_now();
		PMPI_Wait(r, MPI_STATUS_IGNORE);
		if (pl_debug) {
			double t2 = pl_now();
			tw += t2 - t1;
			if (pl_debug > 1) fprintf(stderr, "  recv packet %lld at %.1f: waited %.1f us\n", (long long)j, (t2 - t0) * 1e6, (t2 - t1) * 1e6);
			t1 = t2;
		}
		if (off < keep && off + len > keep) memcpy(s->mem + off, cut, (size_t)(keep - off));
		int64_t l = off + len <= keep ? len : keep > off ? keep - off : 0;
		if (s->kind != PL_DDT || l <= 0 || *done < 0) continue;
		// the bytes up to off+l are in; unpack from *done up to there
		// (ranges) or up to the last whole instance there
		int64_t to = ranges ? off + l : (off + l) / sz * sz;
		if (to > *done) {
			if (pl_unpack(&s->ti, s->buf, s->count, *done, to - *done, s->mem + *done)) *done = to;
			else *done = -1;
		}
		if (pl_debug) tu += pl_now() - t1;
	}
	// the end of a receive that holds a piece of an instance
	if (s->kind == PL_DDT && *done >= 0 && *done < keep) {
		if (pl_unpack(&s->ti, s->buf, s->count, *done, keep - *done, s->mem + *done)) *done = keep;
		else *done = -1;
	}
	if (*done < 0) *done = 0; // the caller unpacks all
	if (pl_debug)
		fprintf(stderr, "ddt pipe recv: n %lld packet %lld%s np %lld size %lld %s: wait %.1f us, unpack %.1f us, all %.1f us (at %.1f)\n",
			(long long)n, (long long)h.packet, h.magic == PL_MAGIC_A ? " aligned" : "", (long long)np,
			(long long)sz, ranges ? "ranges" : "instances", tw * 1e6, tu * 1e6, (pl_now() - t0) * 1e6,
			fmod(t0, 1) * 1e6);
	if (reqs != &one) free(reqs);
	free(cut), free(dump);
	PMPI_Status_set_elements_x(st, MPI_BYTE, keep);
	*rc = MPI_SUCCESS;
	if (n > keep) {
		PMPI_Comm_call_errhandler(comm == MPI_COMM_NULL ? MPI_COMM_SELF : comm, MPI_ERR_TRUNCATE);
		*rc = MPI_ERR_TRUNCATE;
	}
	if (s->kind == PL_DDT) DDT_COUNT(pipelined, 1);
	return 1;
}

// pl_raw fills s for a receive of count instances of t at buf that ddt
// does not stage, and reports whether the receive could get a pipelined
// message (it holds PL_L0 bytes or more). A contiguous receive takes the
// bytes in the user's memory (PL_RAW); any other is staged and unpacked by
// PMPI_Unpack (PL_MPI), so that packet 0's trailer can be seen.
int pl_raw(void *buf, int64_t count, MPI_Datatype t, pl_sink *s) {
	if (pl_comm == MPI_COMM_NULL || count <= 0 || t == MPI_DATATYPE_NULL) return 0;
	MPI_Count size, lb, ext, tlb, text;
	if (PMPI_Type_size_x(t, &size) != MPI_SUCCESS || size <= 0 || size == MPI_UNDEFINED) return 0;
	if (count > INT64_MAX / size || count * size < PL_L0) return 0;
	if (PMPI_Type_get_true_extent_x(t, &tlb, &text) != MPI_SUCCESS) return 0;
	memset(s, 0, sizeof *s);
	s->cap = count * size;
	if (text == size && (count == 1 || (PMPI_Type_get_extent_x(t, &lb, &ext) == MPI_SUCCESS && ext == size))) {
		s->kind = PL_RAW;
		s->mem = (char *)buf + tlb;
		return 1;
	}
	if (s->cap > INT_MAX || count > INT_MAX || !(s->mem = ddt_buf_get(s->cap))) return 0;
	s->kind = PL_MPI;
	s->buf = buf, s->count = count, s->type = t, s->tsize = size;
	pl_rstage(s);
	return 1;
}

// pl_rstage sets the type and count of a receive MPI makes into s->mem
// (s->cap bytes): ddt_rtype's.
void pl_rstage(pl_sink *s) {
	s->rown = ddt_rtype(s->cap, &s->rtype, &s->rcount);
	s->hole = s->rtype != MPI_BYTE;
}

// pl_rposted frees the type of s's receive, once posted, if it is s's own.
void pl_rposted(pl_sink *s) {
	if (s->rown) PMPI_Type_free(&s->rtype);
	s->rown = 0;
}

// pl_unpack_mpi unpacks the got bytes of a PL_MPI receive (whole
// instances) with PMPI_Unpack.
void pl_unpack_mpi(const pl_sink *s, int64_t got) {
	int64_t k = got / s->tsize;
	int pos = 0;
	if (k > 0) PMPI_Unpack(s->mem, (int)(k * s->tsize), &pos, s->buf, (int)k, s->type, MPI_COMM_SELF);
}

void pl_sink_free(pl_sink *s) {
	pl_rposted(s);
	if (s->kind == PL_MPI) ddt_buf_put(s->mem, s->cap);
	s->kind = 0;
}

// The buffer, count and type to give MPI for a receive into s (the user's
// buf, count and t unless s is staged).
void *pl_rbuf(const pl_sink *s, void *buf) { return s->kind == PL_MPI ? s->mem : buf; }
int64_t pl_rcount(const pl_sink *s, int64_t count) { return s->kind == PL_MPI ? s->rcount : count; }
MPI_Datatype pl_rtype(const pl_sink *s, MPI_Datatype t) { return s->kind == PL_MPI ? s->rtype : t; }

// ---- initialization -------------------------------------------------------------

int MPI_Init(int *argc, char ***argv) {
	int rc = PMPI_Init(argc, argv);
	if (rc == MPI_SUCCESS) pl_setup();
	return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
	int rc = PMPI_Init_thread(argc, argv, required, provided);
	if (rc == MPI_SUCCESS) pl_setup();
	return rc;
}

// ---- probes -----------------------------------------------------------------------
//
// MPI_Probe must report the whole message's count, but packet 0 is all
// that is on the user's communicator. A probe (Probe, Iprobe, Mprobe,
// Improbe) that finds a message of exactly PL_L0 bytes therefore takes
// it (PMPI_Mprobe of the same source and tag, which by MPI's ordering is
// the message probed, then PMPI_Mrecv) and, if it is packet 0, the rest
// of the message, into a held message, whose status it reports. A held
// message is then served, before anything MPI has, to the receives and
// probes on its communicator that match it (the oldest first); Mprobe
// and Improbe hand out a handle of the library's own that Mrecv and
// Imrecv know.

static held *helds;
static atomic_long nheld;
static pthread_mutex_t hlock = PTHREAD_MUTEX_INITIALIZER;

int pl_holding(void) { return atomic_load_explicit(&nheld, memory_order_relaxed) > 0; }

static int hmatch(const held *h, MPI_Comm comm, int source, int tag) {
	return !h->matched && h->comm == comm && (source == MPI_ANY_SOURCE || source == h->source) &&
	       (tag == MPI_ANY_TAG || tag == h->tag);
}

// pl_take finds the oldest held message that a receive (source, tag) on
// comm matches; take removes it.
held *pl_take(MPI_Comm comm, int source, int tag, int take) {
	if (!pl_holding()) return NULL;
	held *h = NULL;
	pthread_mutex_lock(&hlock);
	for (held **q = &helds; *q; q = &(*q)->next) {
		if (hmatch(*q, comm, source, tag)) {
			h = *q;
			if (take) {
				*q = h->next;
				atomic_fetch_sub(&nheld, 1);
			}
			break;
		}
	}
	pthread_mutex_unlock(&hlock);
	return h;
}

static void hold(held *h) {
	h->next = NULL;
	pthread_mutex_lock(&hlock);
	held **q = &helds;
	while (*q) q = &(*q)->next;
	*q = h;
	atomic_fetch_add(&nheld, 1);
	pthread_mutex_unlock(&hlock);
}

void pl_release(held *h) {
	if (!h) return;
	free(h->data);
	free(h);
}

// pl_hstatus is the status of a receive of h (MPI_ERROR left alone, as
// MPI leaves it in single-completion calls).
void pl_hstatus(const held *h, MPI_Status *st) {
	if (st == MPI_STATUS_IGNORE) return;
	st->MPI_SOURCE = h->source;
	st->MPI_TAG = h->tag;
	PMPI_Status_set_cancelled(st, 0);
	PMPI_Status_set_elements_x(st, MPI_BYTE, h->n);
}

// pull takes the PL_L0-byte message of status *st on comm (msg: already
// matched by PMPI_Mprobe, else MPI_MESSAGE_NULL), and the rest of it
// when it is pipelined, into a held message.
static held *pull(MPI_Comm comm, const MPI_Status *st, MPI_Message msg) {
	held *h = calloc(1, sizeof *h);
	char *p0 = malloc(PL_L0);
	MPI_Status s2;
	if (!h || !p0) goto fail;
	// the message probed is the first of its source and tag; another
	// thread may have taken it meanwhile: then the probe reports what it saw
	int flag = 0;
	MPI_Count c = 0;
	s2 = *st;
	if (msg == MPI_MESSAGE_NULL &&
		(PMPI_Improbe(st->MPI_SOURCE, st->MPI_TAG, comm, &flag, &msg, &s2) != MPI_SUCCESS || !flag))
		goto fail;
	if (PMPI_Get_elements_x(&s2, MPI_BYTE, &c) != MPI_SUCCESS || c != PL_L0) {
		// not the message probed: leave it to the receive that comes
		h->comm = comm, h->source = s2.MPI_SOURCE, h->tag = s2.MPI_TAG;
		h->n = c;
		if (c < 0 || !(h->data = malloc(c > 0 ? (size_t)c : 1)) ||
			PMPI_Mrecv(h->data, (int)c, MPI_BYTE, &msg, &s2) != MPI_SUCCESS) {
			free(h->data);
			goto fail;
		}
		free(p0);
		return h;
	}
	if (PMPI_Mrecv(p0, PL_L0, MPI_BYTE, &msg, &s2) != MPI_SUCCESS) goto fail;
	h->comm = comm, h->source = s2.MPI_SOURCE, h->tag = s2.MPI_TAG;
	pl_hdr hd;
	if (!pl_trailer(p0, PL_L0, &hd)) {
		h->data = p0, h->n = PL_L0;
		return h;
	}
	char *d = realloc(p0, (size_t)hd.n);
	if (!d) { // cannot hold it: drain the rest and report what came
		pl_sink s = {PL_RAW, p0, PL_L0};
		int rc;
		int64_t done;
		PMPI_Status_set_elements_x(&s2, MPI_BYTE, PL_L0);
		pl_finish(&s, comm, &s2, &rc, &done);
		h->data = p0, h->n = PL_L0;
		return h;
	}
	pl_sink s = {PL_RAW, d, hd.n};
	int rc;
	int64_t done;
	PMPI_Status_set_elements_x(&s2, MPI_BYTE, PL_L0);
	pl_finish(&s, comm, &s2, &rc, &done);
	h->data = d, h->n = hd.n;
	return h;
fail:
	free(h), free(p0);
	return NULL;
}

// candidate reports whether a probed message may be packet 0.
static int candidate(MPI_Comm comm, const MPI_Status *st) {
	MPI_Count c = 0;
	int inter = 1;
	return pl_comm != MPI_COMM_NULL && st->MPI_SOURCE >= 0 &&
	       PMPI_Get_elements_x(st, MPI_BYTE, &c) == MPI_SUCCESS && c == PL_L0 &&
	       PMPI_Comm_test_inter(comm, &inter) == MPI_SUCCESS && !inter;
}

int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status) {
	if (pl_comm == MPI_COMM_NULL) return PMPI_Probe(source, tag, comm, status);
	held *h = pl_take(comm, source, tag, 0);
	if (!h) {
		MPI_Status st;
		int rc = PMPI_Probe(source, tag, comm, &st);
		if (rc != MPI_SUCCESS || !candidate(comm, &st) || !(h = pull(comm, &st, MPI_MESSAGE_NULL))) {
			ddt_status_out(status, &st);
			return rc;
		}
		hold(h);
	}
	pl_hstatus(h, status);
	return MPI_SUCCESS;
}

int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status) {
	if (pl_comm == MPI_COMM_NULL || !flag) return PMPI_Iprobe(source, tag, comm, flag, status);
	held *h = pl_take(comm, source, tag, 0);
	if (!h) {
		MPI_Status st;
		*flag = 0;
		int rc = PMPI_Iprobe(source, tag, comm, flag, &st);
		if (rc != MPI_SUCCESS || !*flag || !candidate(comm, &st) || !(h = pull(comm, &st, MPI_MESSAGE_NULL))) {
			if (*flag) ddt_status_out(status, &st);
			return rc;
		}
		hold(h);
	}
	*flag = 1;
	pl_hstatus(h, status);
	return MPI_SUCCESS;
}

// Handles of held messages that Mprobe handed out: the address of the
// held record on Open MPI (a pointer handle), an index with no MPICH
// handle kind on MPICH (an int handle).
#ifdef OPEN_MPI
static MPI_Message hhandle(held *h) { return (MPI_Message)(void *)h; }
#else
#define NHH 1024
static held *hh[NHH];
static MPI_Message hhandle(held *h) {
	pthread_mutex_lock(&hlock);
	for (int i = 0; i < NHH; i++) {
		if (!hh[i]) {
			hh[i] = h;
			pthread_mutex_unlock(&hlock);
			return (MPI_Message)(0x00100000 + i);
		}
	}
	pthread_mutex_unlock(&hlock);
	return MPI_MESSAGE_NULL;
}
#endif

// mheld returns (and forgets) the held message of an Mprobe handle.
held *pl_mheld(MPI_Message m) {
	if (m == MPI_MESSAGE_NULL || m == MPI_MESSAGE_NO_PROC) return NULL;
	held *h = NULL;
	pthread_mutex_lock(&hlock);
#ifdef OPEN_MPI
	for (held **q = &helds; *q; q = &(*q)->next) {
		if ((void *)*q == (void *)m && (*q)->matched) {
			h = *q;
			*q = h->next;
			atomic_fetch_sub(&nheld, 1);
			break;
		}
	}
#else
	int i = (int)m - 0x00100000;
	if (i >= 0 && i < NHH && hh[i]) {
		h = hh[i];
		hh[i] = NULL;
		for (held **q = &helds; *q; q = &(*q)->next) {
			if (*q == h) {
				*q = h->next;
				atomic_fetch_sub(&nheld, 1);
				break;
			}
		}
	}
#endif
	pthread_mutex_unlock(&hlock);
	return h;
}

// mprobe_held hands out a held message (h is in the table, unmatched).
static int mprobe_held(held *h, MPI_Message *message, MPI_Status *status) {
	MPI_Message m = hhandle(h);
	if (m == MPI_MESSAGE_NULL) return 0;
	pthread_mutex_lock(&hlock);
	h->matched = 1;
	pthread_mutex_unlock(&hlock);
	*message = m;
	pl_hstatus(h, status);
	return 1;
}

int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status) {
	if (pl_comm == MPI_COMM_NULL || !message) return PMPI_Mprobe(source, tag, comm, message, status);
	held *h = pl_take(comm, source, tag, 0);
	if (h && mprobe_held(h, message, status)) return MPI_SUCCESS;
	MPI_Status st;
	int rc = PMPI_Mprobe(source, tag, comm, message, &st);
	if (rc == MPI_SUCCESS && candidate(comm, &st) && (h = pull(comm, &st, *message))) {
		hold(h);
		if (mprobe_held(h, message, status)) return MPI_SUCCESS;
		*message = MPI_MESSAGE_NULL; // not reached while handles last
	}
	ddt_status_out(status, &st);
	return rc;
}

int MPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message, MPI_Status *status) {
	if (pl_comm == MPI_COMM_NULL || !message || !flag)
		return PMPI_Improbe(source, tag, comm, flag, message, status);
	held *h = pl_take(comm, source, tag, 0);
	if (h && mprobe_held(h, message, status)) {
		*flag = 1;
		return MPI_SUCCESS;
	}
	MPI_Status st;
	*flag = 0;
	int rc = PMPI_Improbe(source, tag, comm, flag, message, &st);
	if (rc == MPI_SUCCESS && *flag && candidate(comm, &st) && (h = pull(comm, &st, *message))) {
		hold(h);
		if (mprobe_held(h, message, status)) return MPI_SUCCESS;
	}
	if (*flag) ddt_status_out(status, &st);
	return rc;
}
