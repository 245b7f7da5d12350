//go:build ddtinterpose

// Node-local shared memory for staged messages (docs/interpose.md,
// "Shared memory"). Each process owns an arena: an anonymous memory file
// (memfd) that it maps and that every other process of its node opens
// and maps at MPI_Init through /proc/<pid>/fd/<fd>. A staged message to a
// process of the same node that pipe.c would pipeline, or of
// DDT_MPI_SHM_MIN bytes or more, is packed into a region
// of the sender's arena; packet 0 (on the user's communicator, so
// that MPI matches it) names the region's slot, and the receiver unpacks
// straight from the region as the sender publishes its bytes, then marks
// the slot done. The bytes cross between the processes once, where packets
// through MPI crossed twice (MPI's copy, then ddt's unpack of it).
//
// An arena is SH_HEAD bytes of header and slot table, then the data. Only
// its owner allocates in it (sh_alloc, under sh_lock); a slot returns to
// the owner when the receiver has marked it done and the owner has
// finished packing into it.
#include "shimint.h"
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define SH_MAGIC 0x6d68732d2d746464ull /* "ddt--shm" */
#define SH_PAGE 4096
#define SH_HEAD (SH_PAGE + SH_SLOTS * (int64_t)sizeof(sh_slot))
// SH_SIZE is the default of DDT_MPI_SHM, the bytes of an arena (virtual:
// a page takes memory once a message was packed into it); SH_PEERS bounds
// the processes of a node that use it (each keeps the others' files open)
#define SH_SIZE (1ll << 30)
#define SH_PEERS 256
// SH_KEEP: the bytes of an arena's data whose memory stays with it once
// touched; the memory of a region beyond them is given back when its slot
// returns (a process that once sent a message of 500 MB does not keep 500
// MB; messages up to SH_KEEP never fault their pages in again): the
// default of DDT_MPI_SHM_KEEP
#define SH_KEEP (64ll << 20)
static int64_t sh_keep = SH_KEEP;

typedef struct {
	uint64_t magic, token;
	int64_t size;
} sh_arena;

typedef struct {
	int fd;
	int64_t size;
	char *base; // mapped at MPI_Init (sh_setup), unchanged until MPI_Finalize
} sh_peer;

int sh_on;              // shared memory is used between the processes of this node
static int sh_fd = -1;  // this process's arena
static char *sh_base;   // its mapping
static int64_t sh_size; // its bytes
static int *sh_of;      // world rank -> index in sh_peers, or -1 (another node)
static int sh_nworld;
static sh_peer *sh_peers;
static int sh_npeers;
static pthread_mutex_t sh_lock = PTHREAD_MUTEX_INITIALIZER;
// the owner's record of its slots: busy (allocated), packing (the owner
// still writes into it); the busy ones, by offset
static struct {
	int64_t off, len;
	int busy, packing;
} sh_own[SH_SLOTS];
static int sh_busy[SH_SLOTS], sh_nbusy, sh_next;

static sh_slot *slots(char *base) { return (sh_slot *)(base + SH_PAGE); }

static uint64_t sh_random(void) {
	uint64_t x = 0;
	if (syscall(SYS_getrandom, &x, sizeof x, 0) != (long)sizeof x) {
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		x = (uint64_t)ts.tv_nsec * 0x9E3779B97F4A7C15ull ^ (uint64_t)getpid() << 32 ^ (uint64_t)ts.tv_sec;
	}
	return x | 1;
}

// sh_open opens the arena of process pid (descriptor fd there) and checks
// that it is the one announced (token); it returns its descriptor or -1.
static int sh_open(int pid, int fd, uint64_t token, int64_t *size) {
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/fd/%d", pid, fd);
	int f = open(path, O_RDWR | O_CLOEXEC);
	if (f < 0) return -1;
	sh_arena a;
	if (pread(f, &a, sizeof a, 0) != (ssize_t)sizeof a || a.magic != SH_MAGIC || a.token != token ||
		a.size < SH_HEAD + SH_PAGE) {
		close(f);
		return -1;
	}
	*size = a.size;
	return f;
}

// sh_release unmaps and closes the n peers' arenas of peers (which may be
// NULL), frees peers, and unmaps and closes this process's own arena.
static void sh_release(sh_peer *peers, int n) {
	for (int i = 0; peers && i < n; i++) {
		char *b = peers[i].base;
		if (b && b != sh_base) munmap(b, (size_t)peers[i].size);
		if (peers[i].fd >= 0) close(peers[i].fd);
	}
	free(peers);
	if (sh_base) munmap(sh_base, (size_t)sh_size);
	if (sh_fd >= 0) close(sh_fd);
	sh_base = NULL, sh_fd = -1;
}

// sh_setup runs at MPI_Init after the private communicator exists, on
// every process of MPI_COMM_WORLD (it is collective): it makes this
// process's arena and opens those of the node's other processes. If one
// process of the node cannot (DDT_MPI_SHM=0, no memfd, no access to the
// others' /proc), none of them uses shared memory. With debug it says on
// stderr which it is.
void sh_setup(int me, int nworld, int debug) {
	MPI_Comm node;
	if (PMPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, me, MPI_INFO_NULL, &node) != MPI_SUCCESS)
		return;
	int nn = 0, nr = 0;
	PMPI_Comm_size(node, &nn);
	PMPI_Comm_rank(node, &nr);
	int64_t size = ddt_envint("DDT_MPI_SHM", SH_SIZE);
	size = size / SH_PAGE * SH_PAGE;
	sh_keep = ddt_envint("DDT_MPI_SHM_KEEP", SH_KEEP) / SH_PAGE * SH_PAGE;
	int ok = size >= SH_HEAD + (1 << 20) && nn <= SH_PEERS;
	uint64_t token = sh_random();
	if (ok) {
		sh_fd = (int)syscall(SYS_memfd_create, "ddt-mpi", 1u /* MFD_CLOEXEC */);
		ok = sh_fd >= 0 && ftruncate(sh_fd, size) == 0;
		if (ok) {
			void *m = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED, sh_fd, 0);
			ok = m != MAP_FAILED;
			if (ok) {
				sh_base = m, sh_size = size;
				sh_arena a = {SH_MAGIC, token, size};
				memcpy(sh_base, &a, sizeof a);
			}
		}
	}
	// every process of the node: world rank, pid, descriptor, token (once
	// every process has its arena and the memory to hold the others')
	int64_t mine[4] = {me, getpid(), ok ? sh_fd : -1, (int64_t)token}, *all = malloc(sizeof mine * (size_t)nn);
	int *of = malloc(sizeof(int) * (size_t)nworld);
	sh_peer *peers = calloc((size_t)nn, sizeof *peers);
	if (!all || !of || !peers) ok = 0;
	for (int i = 0; peers && i < nn; i++) peers[i].fd = -1;
	int all_ok = 0;
	if (PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, node) != MPI_SUCCESS) all_ok = 0;
	ok = all_ok && PMPI_Allgather(mine, 4, MPI_INT64_T, all, 4, MPI_INT64_T, node) == MPI_SUCCESS;
	for (int i = 0; i < nn && ok; i++) {
		if (all[4 * i + 2] < 0 || all[4 * i] < 0 || all[4 * i] >= nworld) {
			ok = 0;
		} else if (i == nr) {
			peers[i].size = sh_size;
			peers[i].base = sh_base;
		} else if ((peers[i].fd = sh_open((int)all[4 * i + 1], (int)all[4 * i + 2], (uint64_t)all[4 * i + 3],
				    &peers[i].size)) < 0) {
			ok = 0;
		} else {
			// mapped now, not at the first message: a process that
			// cannot map them all (a limit on its address space)
			// switches shared memory off here, where a receive could
			// not fall back any more
			void *m = mmap(NULL, (size_t)peers[i].size, PROT_READ | PROT_WRITE, MAP_SHARED, peers[i].fd, 0);
			if (m == MAP_FAILED) ok = 0;
			else peers[i].base = m;
		}
	}
	// (a process whose first reduction failed takes part in this one too)
	if (PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, node) != MPI_SUCCESS) all_ok = 0;
	if (debug)
		fprintf(stderr, "ddt shm: rank %d: %d processes on the node, this one %s, shared memory %s\n", me, nn,
			ok ? "ready" : "not ready", all_ok ? "on" : "off");
	if (all_ok) {
		for (int i = 0; i < nworld; i++) of[i] = -1;
		for (int i = 0; i < nn; i++) of[all[4 * i]] = i;
		sh_of = of, sh_nworld = nworld, sh_peers = peers, sh_npeers = nn;
		sh_on = 1;
	} else {
		sh_release(peers, nn);
		free(of);
	}
	free(all);
	PMPI_Comm_free(&node);
}

// sh_fini runs at MPI_Finalize: the mappings and files go (a receiver
// keeps its own descriptor of a sender's arena, so a sender that finalizes
// first does not take its messages with it).
void sh_fini(void) {
	if (!sh_on) return;
	sh_on = 0;
	sh_release(sh_peers, sh_npeers);
	free(sh_of);
	sh_peers = NULL, sh_of = NULL;
}

// sh_local reports whether world rank w is on this node (and shared
// memory is used).
int sh_local(int w) { return sh_on && w >= 0 && w < sh_nworld && sh_of[w] >= 0; }

// sh_alloc allocates a region of n bytes for a message and returns its
// slot (ready 0, a new generation in *gen, the region in *data), or NULL
// when the arena has no room (the message goes through MPI).
sh_slot *sh_alloc(int64_t n, int32_t *idx, int32_t *gen, char **data) {
	if (!sh_on || n <= 0 || n > sh_size - SH_HEAD) return NULL;
	int64_t len = (n + SH_PAGE - 1) / SH_PAGE * SH_PAGE;
	sh_slot *t = slots(sh_base);
	pthread_mutex_lock(&sh_lock);
	// slots the receivers are done with come back; the memory of their
	// regions beyond sh_keep goes back to the system
	int k = 0;
	for (int j = 0; j < sh_nbusy; j++) {
		int i = sh_busy[j];
		if (!sh_own[i].packing && atomic_load_explicit(&t[i].state, memory_order_acquire) == 2) {
			sh_own[i].busy = 0;
			int64_t o = sh_own[i].off, e = o + sh_own[i].len;
			if (o < SH_HEAD + sh_keep) o = SH_HEAD + sh_keep;
			if (e > o) madvise(sh_base + o, (size_t)(e - o), MADV_REMOVE);
		} else {
			sh_busy[k++] = i;
		}
	}
	sh_nbusy = k;
	// the lowest gap of len bytes between the busy regions (first fit),
	// and a free slot
	int64_t at = -1, end = SH_HEAD;
	int pos = 0;
	for (int j = 0; j < sh_nbusy && at < 0; j++) {
		int i = sh_busy[j];
		if (sh_own[i].off - end >= len) at = end, pos = j;
		if (sh_own[i].off + sh_own[i].len > end) end = sh_own[i].off + sh_own[i].len;
	}
	if (at < 0 && sh_size - end >= len) at = end, pos = sh_nbusy;
	int s = -1;
	for (int j = 0; at >= 0 && sh_nbusy < SH_SLOTS && j < SH_SLOTS; j++) {
		int i = (sh_next + j) % SH_SLOTS;
		if (!sh_own[i].busy) {
			s = i;
			break;
		}
	}
	sh_slot *sl = NULL;
	if (s >= 0) {
		sh_next = (s + 1) % SH_SLOTS;
		sh_own[s].off = at, sh_own[s].len = len, sh_own[s].busy = 1, sh_own[s].packing = 1;
		memmove(&sh_busy[pos + 1], &sh_busy[pos], sizeof(int) * (size_t)(sh_nbusy - pos));
		sh_busy[pos] = s;
		sh_nbusy++;
		sl = &t[s];
		int32_t g = sl->gen + 1;
		if (g <= 0) g = 1;
		sl->gen = g, sl->off = at, sl->n = n;
		atomic_store_explicit(&sl->ready, 0, memory_order_relaxed);
		atomic_store_explicit(&sl->state, 1, memory_order_release);
		*idx = s, *gen = g, *data = sh_base + at;
	}
	pthread_mutex_unlock(&sh_lock);
	return sl;
}

// sh_packed tells the allocator that the owner has finished packing into
// slot idx; sh_drop returns it unused (its message was never sent).
void sh_packed(int32_t idx) {
	pthread_mutex_lock(&sh_lock);
	sh_own[idx].packing = 0;
	pthread_mutex_unlock(&sh_lock);
}

void sh_drop(int32_t idx) {
	pthread_mutex_lock(&sh_lock);
	sh_own[idx].packing = 0, sh_own[idx].busy = 0;
	int k = 0;
	for (int j = 0; j < sh_nbusy; j++)
		if (sh_busy[j] != idx) sh_busy[k++] = sh_busy[j];
	sh_nbusy = k;
	pthread_mutex_unlock(&sh_lock);
}

// sh_publish makes the first upto bytes of slot sl's region visible to
// its receiver. The fence orders the generated code's non-temporal
// stores too.
void sh_publish(sh_slot *sl, int64_t upto) {
	atomic_thread_fence(memory_order_seq_cst);
	atomic_store_explicit(&sl->ready, upto, memory_order_release);
}

// sh_get finds the region of a message of n bytes from world rank src,
// slot idx, generation gen: it returns the slot and sets *data, or NULL if
// the arena or the slot is not that message's.
sh_slot *sh_get(int src, int32_t idx, int32_t gen, int64_t n, const char **data) {
	if (!sh_local(src) || idx < 0 || idx >= SH_SLOTS) return NULL;
	sh_peer *p = &sh_peers[sh_of[src]];
	sh_slot *sl = &slots(p->base)[idx];
	int64_t off = sl->off;
	if (sl->gen != gen || sl->n != n || atomic_load(&sl->state) != 1 || off < SH_HEAD || n > p->size - off)
		return NULL;
	*data = p->base + off;
	return sl;
}

// sh_done hands slot sl back to its owner.
void sh_done(sh_slot *sl) { atomic_store_explicit(&sl->state, 2, memory_order_release); }

// sh_wait waits until the first want bytes of sl's region are published
// and returns how many are (at least want).
int64_t sh_wait(sh_slot *sl, int64_t want) {
	int64_t r;
	for (int spins = 0; (r = atomic_load_explicit(&sl->ready, memory_order_acquire)) < want; spins++) {
		if (spins < 4096) {
#if defined(__x86_64__)
			__builtin_ia32_pause();
#elif defined(__aarch64__)
			__asm__ __volatile__("yield");
#endif
		} else {
			sched_yield();
		}
	}
	return r;
}
