//go:build ddtinterpose

// Declarations shared by shim.c and comm.c.
#ifndef DDT_SHIMINT_H
#define DDT_SHIMINT_H
#include <stdatomic.h>
#include "shim.h"

// ddt_tinfo is what the C layer keeps of a served type.
typedef struct {
	uintptr_t key; // the MPI handle
	int32_t pin;
	int64_t size, lb, extent, true_lb, true_extent;
	ddt_native nat; // the generated code, called without entering Go
	// contig: one instance is the run of size bytes at data_lb in type-map
	// order, so count instances (count 1, or extent == size) are one memcpy
	int64_t data_lb;
	int32_t contig;
	// dstate: 0 not decided yet, 1 the type's data goes to MPI directly as
	// dtype (direct.c), -1 it is staged, -2 staged until the MPI library's
	// engine is timed against ddt's (dseen large messages so far), 2 its
	// messages go to MPI as the user's own type (the MPI library's engine
	// measured about as fast as ddt's staging: direct.c, DDT_MPI_OWN)
	int32_t dstate, dseen;
	MPI_Datatype dtype;
	// pipelining by cost (pipe.c, pl_plan): pstate 0 not decided yet (pseen
	// large messages so far), 1 messages of more than PL_L0 packed bytes
	// are pipelined (ddt's pack measured slow per byte and the type's byte
	// ranges are cheap), -1 only the size rule applies; prange 0 not known,
	// 1 ranges of one instance move about as fast as whole instances
	// (pl_whole, or runs of a few patterns: vectors, subarrays), -1 not
	int32_t pstate, pseen, prange;
	// nruns > 0: one instance is these runs of bytes in type-map order,
	// each moved by one memcpy (ddt_bounds)
	int32_t nruns;
	int64_t run_off[DDT_RUNS], run_len[DDT_RUNS];
} ddt_tinfo;

// ddt_stat are the counters of the statistics line.
typedef struct {
	atomic_long types, mirrored, fallback, packs, unpacks, sends, recvs, bytes;
	atomic_long native; // packs and unpacks done without entering Go (generated code, or one memcpy)
	atomic_long pipelined; // messages sent or received in packets (pipe.c)
	atomic_long direct;    // sends and receives MPI did in the user's memory (direct.c)
	atomic_long own;       // of those, the ones MPI did with the user's own type (DDT_MPI_OWN)
	atomic_long shm;       // of the pipelined messages, those sent through shared memory (shm.c)
} ddt_stat;
extern ddt_stat ddt_st;
extern int ddt_stats_on;
// DDT_COUNT adds v to a counter of the statistics line, only when the line
// is asked for (DDT_MPI_STATS=1): the atomic additions cost more than a
// small pack.
#define DDT_COUNT(field, v) \
	do { \
		if (ddt_stats_on) atomic_fetch_add_explicit(&ddt_st.field, (v), memory_order_relaxed); \
	} while (0)

void ddt_init(void);
int ddt_served(MPI_Datatype t, ddt_tinfo *out);
int ddt_staged(MPI_Datatype t, int64_t count, ddt_tinfo *ti, int64_t *n);
// ddt_staged_ref is ddt_staged without the copy of the record: it returns
// this thread's copy of it (or NULL where ddt_staged returns 0), which
// stays valid until the thread's next look-up of a type (the next
// ddt_served, ddt_staged or ddt_staged_ref).
const ddt_tinfo *ddt_staged_ref(MPI_Datatype t, int64_t count, int64_t *n);
// ddt_buf_get returns a staging buffer of n bytes (and DDT_BUF_SLACK
// more), or NULL; ddt_buf_put gives it back.
#define DDT_BUF_SLACK 16
void *ddt_buf_get(int64_t n);
void ddt_buf_put(void *p, int64_t n);
// ddt_rtype sets *t and *count to what a staged receive of n bytes into a
// staging buffer gives MPI: n MPI_BYTE, or on Open MPI one instance of a
// type that bounds what MPI writes (shim.c, "receive types"); then
// ddt_rfix, given the receive's status, puts its bytes in place. It
// returns 1 when *t is the caller's to free once the receive is posted.
int ddt_rtype(int64_t n, MPI_Datatype *t, int64_t *count);
void ddt_rfix(char *mem, int64_t n, const MPI_Status *st);
void ddt_reap(void);
// ddt_pending reports whether operations are pending (or freed requests owed work).
int ddt_pending(void);
// ddt_pack packs count instances at src into room bytes at dst and returns
// the bytes written, or -1; ddt_unpack unpacks the first n bytes at src
// into count instances at dst and returns the bytes used, or -1. Both run
// the type's generated code directly once it exists.
int64_t ddt_pack(const ddt_tinfo *ti, const void *src, int64_t count, void *dst, int64_t room);
int64_t ddt_unpack(const ddt_tinfo *ti, const void *src, int64_t n, void *dst, int64_t count);

// ddt_direct reports whether a message of n packed bytes (or a receive of
// that capacity) of count instances of ti (the user's type t, at buf) goes
// to MPI in the user's memory, described by the type *dt: the byte type
// built from ddt's runs of the type, or t itself when the MPI library's
// engine measured about as fast as ddt's staging (direct.c). The caller
// counts the operation as direct. ddt_tset_direct records the type's
// decision in the type table if its state there is still expect;
// ddt_tseen counts a large message of a type waiting to be timed.
int ddt_direct(const ddt_tinfo *ti, int64_t n, MPI_Datatype t, const void *buf, int64_t count, MPI_Datatype *dt);
int32_t ddt_tset_direct(uintptr_t key, int32_t expect, int32_t state, MPI_Datatype *dt);
int32_t ddt_tseen(uintptr_t key);
// ddt_tset_pipe records the type's pipelining state (pipe.c): which 0 sets
// pstate to v if it is still 0, 1 sets prange to v, 2 counts a large
// message in pseen; it returns the field's value in the table (0: the
// type left the table).
int32_t ddt_tset_pipe(uintptr_t key, int which, int32_t v);

// isr_live counts the generalized requests of MPI_Isendrecv(_replace)
// not yet complete (isendrecv.c); isr_poll advances those among reqs and
// returns how many of them are still not complete; isr_poll_all advances
// all (wait: until every one is complete).
extern atomic_long isr_live;
int isr_poll(int n, const MPI_Request *reqs);
void isr_poll_all(int wait);

// ddt_envint reads a byte count (a number, optionally followed by k, m or g)
// from the environment variable name, or returns def (pipe.c).
int64_t ddt_envint(const char *name, int64_t def);

// ---- pipelining (pipe.c) ----------------------------------------------------

// PL_THRESHOLD is the default of DDT_MPI_PIPELINE: messages of more packed
// bytes are pipelined (0 switches pipelining off). PL_PACKET is the
// default of DDT_MPI_PACKET, the bytes of packets 1.. . Packet 0 is always
// PL_L0 bytes: PL_D0 bytes of the message and a PL_TRAILER-byte trailer.
// PL_L0 is 3,968 bytes, under both MPIs' eager limits on one node (Open
// MPI 4.1's shared memory sends up to 4,040 bytes eagerly): a contiguous
// round trip of 16,416 bytes took 5.9 µs on the AMD EPYC where 4,000
// bytes took 0.5 (MPICH 6.4 and 0.5), and a message through shared memory
// (shm.c), whose packet 0 carries only the trailer, paid that for nothing
// (docs/interpose-bench.md, "Packet 0 under the eager limit"). Not a
// round number: every receive and probe looks at messages of exactly
// PL_L0 bytes (a probe takes them and holds them), so the length is one
// that programs seldom send (4,000 bytes, 500 doubles, was the first
// choice). PL_D0 is a multiple of 32, so that basic elements of up to 32
// bytes end at packet 0's end (direct.c).
#define PL_THRESHOLD (256 << 10)
#define PL_PACKET (256 << 10)
#define PL_D0 3936
#define PL_TRAILER 32
#define PL_L0 (PL_D0 + PL_TRAILER)

enum { PL_RAW = 1, PL_DDT, PL_MPI, PL_DIR };

// pl_sink is where the bytes of a receive land: in the user's memory
// (PL_RAW, a contiguous receive), or in a staging buffer that ddt unpacks
// into count instances of ti at buf (PL_DDT), or that PMPI_Unpack unpacks
// into count instances of type (of size tsize) at buf (PL_MPI: a
// non-contiguous type ddt does not serve; pl_raw allocated mem), or in the
// user's memory through the direct type of ti (PL_DIR, direct.c: mem is
// unused, cap the bytes the receive holds).
typedef struct {
	int kind;
	char *mem;
	int64_t cap;
	ddt_tinfo ti;
	void *buf;
	int64_t count;
	MPI_Datatype type;
	int64_t tsize;
	// a receive MPI makes into mem (PL_DDT, PL_MPI) is posted as rcount
	// rtype (ddt_rtype: rown, the sink's to free once posted; hole, mem
	// needs ddt_rfix when the receive completes)
	MPI_Datatype rtype;
	int64_t rcount;
	int rown, hole;
} pl_sink;

extern MPI_Comm pl_comm;
extern int64_t pl_threshold, pl_packet;
void pl_setup(void);
void pl_fini(void);
void pl_progress(int wait);
int pl_send(int mode, const ddt_tinfo *ti, const void *buf, int64_t count, int64_t n, int dest, int tag,
	MPI_Comm comm, MPI_Request *req, void **p0, int *rc);
int pl_finish(const pl_sink *s, MPI_Comm comm, MPI_Status *st, int *rc, int64_t *done);
int pl_raw(void *buf, int64_t count, MPI_Datatype t, pl_sink *s);
void pl_sink_free(pl_sink *s);
void pl_unpack_mpi(const pl_sink *s, int64_t got);
void *pl_rbuf(const pl_sink *s, void *buf);
int64_t pl_rcount(const pl_sink *s, int64_t count);
MPI_Datatype pl_rtype(const pl_sink *s, MPI_Datatype t);
int pl_candidate(int64_t cap);
int pl_would(const ddt_tinfo *ti, int64_t n);
void pl_rstage(pl_sink *s);
void pl_rposted(pl_sink *s);
int pl_packet0(const char *mem, int64_t got);

// ---- shared memory (shm.c) -----------------------------------------------

// sh_slot is a message's record in its sender's arena, 64 bytes: the bytes
// of its region the sender has packed (ready), 1 while the receiver has not
// taken it, 2 once it has (state), the region (off, n) and a generation
// that packet 0's trailer repeats.
#define SH_SLOTS 1024
typedef struct {
	_Atomic int64_t ready;
	_Atomic int32_t state;
	int32_t gen;
	int64_t off, n;
	char pad[32];
} sh_slot;
_Static_assert(sizeof(sh_slot) == 64, "slot size");
extern int sh_on;
void sh_setup(int me, int nworld, int debug);
void sh_fini(void);
int sh_local(int w);
sh_slot *sh_alloc(int64_t n, int32_t *idx, int32_t *gen, char **data);
void sh_packed(int32_t idx);
void sh_drop(int32_t idx);
void sh_publish(sh_slot *sl, int64_t upto);
sh_slot *sh_get(int src, int32_t idx, int32_t gen, int64_t n, const char **data);
void sh_done(sh_slot *sl);
int64_t sh_wait(sh_slot *sl, int64_t want);

// held is a message a probe took off MPI (pipe.c, "probes").
typedef struct held {
	MPI_Comm comm;
	int source, tag;
	char *data;
	int64_t n;
	int matched; // handed out by Mprobe: only its handle takes it
	struct held *next;
} held;
int pl_holding(void);
held *pl_take(MPI_Comm comm, int source, int tag, int take);
held *pl_mheld(MPI_Message m);
void pl_release(held *h);
void pl_hstatus(const held *h, MPI_Status *st);
// ddt_status_out copies the status of a single-completion call the library
// made for the caller into the caller's status, except MPI_ERROR: MPI sets
// that field only in the statuses of multiple-completion calls, so the
// caller's value stays (mpi4py initializes it and reads it back).
static inline void ddt_status_out(MPI_Status *user, const MPI_Status *st) {
	if (user == MPI_STATUS_IGNORE) return;
	int err = user->MPI_ERROR;
	*user = *st;
	user->MPI_ERROR = err;
}

#endif
