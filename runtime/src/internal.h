/*
 * internal.h - shared between the runtime's source files; not installed.
 *
 * The runtime is one set of objects built twice: libdftracer_core.so (linked
 * by annotated applications) and libdftracer_preload.so (the same plus a
 * constructor, for LD_PRELOAD).  Everything here has hidden visibility; only
 * the dftracer C API and the intercepted libc symbols are exported.
 */
#ifndef DFT_RT_INTERNAL_H
#define DFT_RT_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define DFT_API __attribute__((visibility("default")))
#define DFT_LIKELY(x) __builtin_expect(!!(x), 1)
#define DFT_UNLIKELY(x) __builtin_expect(!!(x), 0)

#define DFT_RT_VERSION_INT 200002	/* dftracer 2.0.2 format */
#define DFT_DEPTH 128			/* region nesting tracked for p_idx */
#define DFT_LINE 32768			/* longest event line */
#define DFT_NCLS 11			/* size classes of a region's memory:
					 * 64 B .. 64 KiB (api.c) */
#define DFT_PATH 4096

/* A traced file, interned once per process; never freed.  pos .. rd_hi:
 * the position model dft-analyze applies to its events (ioagg.c), which
 * classifies the aggregated I/O calls as the analysis would. */
struct dft_file {
	char hash[17];
	unsigned len;
	char path[];
};

/* Per-thread output buffer; flushed to the trace as gzip members.  Its
 * lock is a flag (tb_lock): only finalize, fork, exec and signals ever
 * contend for it, and an uncontended pthread mutex cost its owner two
 * library calls per event. */
struct dft_tbuf {
	atomic_int lock;
	char *data;
	size_t len, cap;
	struct dft_tbuf *next;
	int dead;		/* owning thread has exited */
	struct dft_thread *owner;	/* while it runs (under G.reg_lock) */
};

struct dft_region;

/* A thread's position model of one traced file (ioagg.c) */
struct dft_model {
	const struct dft_file *f;	/* NULL: a free slot */
	int64_t pos, end_r, end_w;	/* position, end of the last read, write */
	unsigned nrd;			/* the bytes read: disjoint ranges */
	int64_t rd[16][2];
};
#define DFT_MODEL0 8	/* slots in the thread itself, before a mapping */

void tb_lock_wait(struct dft_tbuf *b);
static inline void tb_lock(struct dft_tbuf *b)
{
	if (DFT_UNLIKELY(atomic_exchange_explicit(&b->lock, 1,
						  memory_order_acquire)))
		tb_lock_wait(b);
}
static inline int tb_trylock(struct dft_tbuf *b)
{
	return atomic_exchange_explicit(&b->lock, 1, memory_order_acquire) ?
		       -1 : 0;
}
static inline void tb_unlock(struct dft_tbuf *b)
{
	atomic_store_explicit(&b->lock, 0, memory_order_release);
}

/* A function's call statistics on one thread (the runtime throttle, core.c):
 * past DFTRACER_THROTTLE_CALLS calls with a mean under DFTRACER_THROTTLE_US
 * its calls are folded into one aggregated record per interval. */
struct dft_fnstat {
	uint64_t hash;		/* 0: free slot */
	const char *name, *cat;	/* interned (fn_intern): never freed */
	uint64_t calls, dur_sum;	/* complete events written so far, and
					 * their own time (less their callees') */
	uint64_t shorts;	/* of those, the calls whose own time was
				 * under DFTRACER_THROTTLE_US */
	int throttled;
	const char *loc, *ploc;	/* ,"file":..,"line":.. of its complete
				 * events, and as ,"pfile":..,"pline":..
				 * (interned): a folded call written whole,
				 * the aggregated I/O it encloses */
	uint64_t iv;		/* start of the open record's interval (us) */
	uint64_t first;		/* start of its first call: the record's ts */
	uint64_t anc_us, anc_tick;	/* its latest clock reading and the
					 * tick then (tick.c) */
	uint64_t lim_tick;	/* the tick its interval ends at, estimated */
	uint64_t cnt, dmin, dmax, dsum;	/* the open record (times in ns) */
};

/* The last (name, cat) pointers a thread's START calls gave and their
 * slot: a hit costs two pointer compares and two strcmp (none for
 * literals of the executable), no hashing.  Two ways: fc[i] and, for
 * the entry a miss at i moved out, fc[i + DFT_FNC] (fn_cache_at).  With
 * one, two hot names whose pointers share i (a folded function and the
 * I/O call inside it) took each other's entry at every call: each START
 * and each aggregated call then hashed the function table and looked
 * whether its names are literals, 737 instructions more a loop pass
 * (callgrind, a folded function around one pwrite: 24.9 million for
 * 20,000 passes, 10.4 million without the collision). */
#define DFT_FNC 64
struct dft_fncache {
	const char *name, *cat;
	int slot;
	int lit;	/* both in the executable's read-only segments: the
			 * same pointers are the same strings, no strcmp */
};
static inline unsigned fn_cache_index(const char *name, const char *cat)
{
	return (unsigned)(((uintptr_t)name >> 3) ^ ((uintptr_t)cat >> 7)) &
	       (DFT_FNC - 1);
}
/* the entry of (name, cat) at index i: way 0, else way 1 (which may not
 * hold it either: the caller compares) */
#define fn_cache_at(t, i, n, k)                                           \
	(DFT_LIKELY((t)->fc[i].name == (n) && (t)->fc[i].cat == (k)) ?     \
		 &(t)->fc[i] : &(t)->fc[(i) + DFT_FNC])

/* The rendered head of a recent event name and category (ev_begin_lit) */
#define DFT_HEADC 16
struct dft_headc {
	const char *name, *cat;
	unsigned len;
	char s[116];
};

struct dft_thread {
	pid_t tid;
	unsigned gen;		/* state generation it belongs to */
	int depth;
	struct dft_region *stack[DFT_DEPTH];	/* open regions */
	struct dft_tbuf *buf;
	struct dft_fnstat *fns;	/* open-addressed by hash; fncap a power of 2 */
	unsigned fncap, fnn;
	struct dft_fncache fc[2 * DFT_FNC];	/* two ways (fn_cache_at) */
	struct dft_headc hc[DFT_HEADC];
	uint64_t ts_hi;		/* a timestamp's digits above the last 8 */
	char ts_s[12];
	unsigned ts_len;
	uint64_t child_t0;	/* the start of the event being written, while
				 * it names its parent (frame_id), else 0 */
	struct dft_iorec *io;	/* open aggregated I/O records (ioagg.c) */
	/* its position model of each file, open-addressed by file in mcap
	 * slots: m0, then a mapping (ioagg.c) */
	struct dft_model *mt, *mlast;
	size_t mcap, mn;
	struct dft_model m0[DFT_MODEL0];
	unsigned nio;		/* of DFT_IOREC slots, in use */
	uint64_t ioseq;		/* aggregated calls so far: their order */
	const char *iofn, *iofc;	/* the latest I/O call name and
					 * category found aggregated
					 * (dft_io_folded) */
	struct dft_region *free;	/* region handles to reuse */
	unsigned nfree;
	/* memory of region handles (args, names) to reuse, blocks of 64 << k
	 * bytes (api.c) */
	void *tm[DFT_NCLS];
	unsigned tmn[DFT_NCLS];
	size_t n;		/* bytes in line */
	int overflow;
	unsigned pidtid_len;
	char pidtid[64];	/* ,"pid":P,"tid":T */
	int *guardp;		/* its dft_guard, read by finalize */
	char line[DFT_LINE];
};

/* One DFTRACER_DATA_DIR entry, normalised.  The entries are packed one
 * after another in a single block, so the first ones share a cache line,
 * and an entry of length 0 ends the list: readers load one pointer and
 * see a whole list, old or new, never a count that belongs to another. */
struct dft_dir {
	unsigned len;
	char path[];		/* len bytes and a NUL */
};
#define DFT_DIR_SIZE(l) \
	((offsetof(struct dft_dir, path) + (l) + 1 + 7) & ~(size_t)7)
#define DFT_DIR_NEXT(d) \
	((const struct dft_dir *)((const char *)(d) + DFT_DIR_SIZE((d)->len)))

/* The working directory as getcwd() gives it (absolute, normalised) */
struct dft_cwd {
	size_t len;
	char path[];
};

/*
 * Everything an intercepted call reads before it knows the call is not
 * traced.  It shares one page with the real-function pointers (the
 * DFT_HOT_DATA section) and holds the DATA_DIR list and the working
 * directory in its own small arena, because on a kernel with page-table
 * isolation and no PCID every system call empties the TLB: each distinct
 * page the untraced path touches then costs a page walk on every call.
 * Wrappers are likewise grouped in .text.hot (DFT_INTERCEPT) and their
 * traced halves moved out of line.
 */
#define DFT_HOT_DATA __attribute__((section("dft_hot_data")))
#define DFT_INTERCEPT __attribute__((visibility("default"), hot))
#define DFT_HOT_ARENA 1792
#define DFT_FD_LOW 128		/* descriptors kept in the hot page */
struct dft_hot {
	/* non-zero only while tracing with interception bound */
	int on_posix, on_stdio;
	int on_any;		/* tracing active (API events) */
	/* The trace file is opened at the first record (a process that
	 * traces nothing leaves no file); every path to a record checks
	 * this first. */
	int pending;
	int nfds;
	int all;		/* DATA_DIR "all" */
	_Atomic(const struct dft_dir *) dirs;	/* NULL: none */
	_Atomic(struct dft_file *) *fds;	/* fd -> traced file, fd >= DFT_FD_LOW */
	struct dft_cwd *_Atomic cwd;	/* replaced, never changed, on chdir */
	_Atomic size_t arena_used;
	_Atomic(struct dft_file *) fd_low[DFT_FD_LOW];	/* fd < DFT_FD_LOW */
	char arena[DFT_HOT_ARENA] __attribute__((aligned(8)));
} __attribute__((aligned(64)));
/* n bytes from the arena (8-aligned, never freed), else from dft_perm */
void *dft_hot_alloc(size_t n);
/* n bytes (zeroed, 16-aligned) kept for the life of the process, never
 * from malloc (core.c); NULL when out of memory */
void *dft_perm(size_t n);
extern struct dft_hot dft_hot;
#define dft_on_posix dft_hot.on_posix
#define dft_on_stdio dft_hot.on_stdio
#define dft_on_any dft_hot.on_any
#define dft_pending dft_hot.pending
#define dft_fds dft_hot.fds
#define dft_nfds dft_hot.nfds
extern int dft_trace_fd;	/* the trace file: close() leaves it alone */
void dft_pending_start(void);
#define DFT_PENDING_CHECK() \
	do { \
		if (DFT_UNLIKELY(dft_pending)) \
			dft_pending_start(); \
	} while (0)
#define DFT_TLS __attribute__((tls_model("initial-exec")))
extern __thread int dft_guard DFT_TLS;
extern __thread struct dft_thread *dft_tself DFT_TLS;

/* mpirank.c: MPI_COMM_WORLD rank when the program has initialised MPI
 * (and is on its main thread), else -1 */
int dft_mpi_rank(void);
/* writer.c: PR and process_name once MPI is up, if the header had no rank */
void dft_rank_late(void);

/* md5.c */
void dft_md5(const void *data, size_t len, unsigned char out[16]);
void dft_hash16(const char *s, size_t len, char out[17]);

/* core.c (state, paths, lifecycle) and writer.c (threads, event lines) */
uint64_t dft_now(void);

/* tick.c: the clock of folded calls and aggregated I/O.  A tick is a TSC
 * cycle when the TSC is invariant (dft_tsc), else a CLOCK_MONOTONIC ns;
 * dft_tick_ns converts a number of ticks to nanoseconds. */
extern int dft_tsc;
uint64_t dft_mono_ns(void);
static inline uint64_t dft_tick(void)
{
#if defined(__x86_64__) || defined(__i386__)
	if (DFT_LIKELY(dft_tsc))
		return __builtin_ia32_rdtsc();
#endif
	return dft_mono_ns();
}
/* the hot path inline: a load, a compare and a multiply */
extern _Atomic uint64_t dft_tick_mult;	/* ns per tick, 32.32; 0: none yet */
uint64_t dft_tick_ns_slow(uint64_t ticks);
static inline uint64_t dft_tick_ns(uint64_t ticks)
{
	uint64_t m = atomic_load_explicit(&dft_tick_mult,
					  memory_order_relaxed);

	if (DFT_LIKELY(m && dft_tsc))
		return (uint64_t)(((unsigned __int128)ticks * m) >> 32);
	return dft_tick_ns_slow(ticks);
}
uint64_t dft_ns_ticks(uint64_t ns);	/* the inverse */
/* ticks to whole microseconds, rounded */
static inline uint64_t dft_tick_us(uint64_t ticks)
{
	return (dft_tick_ns(ticks) + 500) / 1000;
}
/* ticks to microseconds, rounded up */
static inline uint64_t dft_tick_us_up(uint64_t ticks)
{
	return (dft_tick_ns(ticks) + 999) / 1000;
}
void dft_tick_init(int want);	/* DFTRACER_TSC: 0 = clock_gettime */
void dft_tick_anchor(void);	/* a clock reading the ratio may use */
struct dft_thread *dft_thread_new(struct dft_thread *t);
extern unsigned dft_gen;
static inline struct dft_thread *dft_self(void)
{
	struct dft_thread *t = dft_tself;

	if (DFT_LIKELY(t && t->gen == dft_gen))
		return t;
	return dft_thread_new(t);
}
int dft_metadata(void);
void dft_set_cwd(void);
/* If path (as passed, relative to dirfd) is traced, return its interned
 * entry, emitting its FH record the first time; else NULL. */
struct dft_file *dft_path_file(int dirfd, const char *path);
static inline struct dft_file *dft_fd_file(int fd)
{
	if (DFT_LIKELY((unsigned)fd < DFT_FD_LOW))
		return atomic_load_explicit(&dft_hot.fd_low[fd],
					    memory_order_relaxed);
	if (fd >= 0 && fd < dft_nfds)
		return atomic_load_explicit(&dft_fds[fd], memory_order_relaxed);
	return NULL;
}
void dft_fd_set(int fd, struct dft_file *f);

/* Event lines.  ev_begin writes the common head; it returns 1 when args
 * are wanted (DFTRACER_INC_METADATA), then the caller adds args with the
 * ev_* helpers; ev_end closes and queues the line. */
int ev_begin(struct dft_thread *t, long long id, const char *name,
	     const char *cat, uint64_t ts, uint64_t dur);
int ev_begin_lit(struct dft_thread *t, long long id, const char *name,
		 const char *cat, uint64_t ts, uint64_t dur);
void ev_end(struct dft_thread *t, int args);
static inline void ev_raw(struct dft_thread *t, const char *s, size_t n)
{
	char *d;

	if (DFT_UNLIKELY(t->n + n > DFT_LINE - 64)) {
		t->overflow = 1;
		return;
	}
	d = t->line + t->n;
	t->n += n;
	if (__builtin_constant_p(n) || n > 16) {
		__builtin_memcpy(d, s, n);
	} else if (n >= 8) {	/* short and variable: no call to memcpy */
		uint64_t a, b;

		__builtin_memcpy(&a, s, 8);
		__builtin_memcpy(&b, s + n - 8, 8);
		__builtin_memcpy(d, &a, 8);
		__builtin_memcpy(d + n - 8, &b, 8);
	} else if (n >= 4) {
		uint32_t a, b;

		__builtin_memcpy(&a, s, 4);
		__builtin_memcpy(&b, s + n - 4, 4);
		__builtin_memcpy(d, &a, 4);
		__builtin_memcpy(d + n - 4, &b, 4);
	} else if (n > 0) {
		d[0] = s[0];
		d[n / 2] = s[n / 2];
		d[n - 1] = s[n - 1];
	}
}
void put_u64(struct dft_thread *t, uint64_t v);
void put_i64(struct dft_thread *t, long long v);
/* ,"key":v with a key known to need no escaping (a literal) */
#define EV_INT(t, key, v) \
	do { \
		DFT_LIT(t, ",\"" key "\":"); \
		put_i64(t, v); \
	} while (0)
void ev_int(struct dft_thread *t, const char *key, long long v);
void ev_str(struct dft_thread *t, const char *key, const char *v);
void ev_hash(struct dft_thread *t, const char *key, const char *h);
void ev_plevel(struct dft_thread *t);	/* "p_idx":..,"level":.. */
void ev_level(struct dft_thread *t);
void ev_pidx(struct dft_thread *t);
/* the id of the thread's innermost open region, -1 if none; a folded
 * call gets one here (and is then written whole at its END) */
long long top_id(struct dft_thread *t);
/* an event from t0 to t1 is being written inside the innermost open
 * region: top_id with t0 as a bound of a folded parent's start; then the
 * region's written children end no later than it (dft_child_end) */
long long top_id_at(struct dft_thread *t, uint64_t t0);
void dft_child_end(struct dft_thread *t, uint64_t t1);
long long dft_next_id(void);
void dft_flush_all(int final);
void dft_fork_child(void);
void dft_fork_prepare(void);
void dft_fork_parent(void);
void dft_exit_hook(void);
void dft_exec_hook(void);

/*
 * ioagg.c: hot small I/O aggregated.  An I/O call name and category past
 * DFTRACER_THROTTLE_CALLS complete events on a thread, most of them under
 * DFTRACER_THROTTLE_US, is folded (DFTRACER_THROTTLE_IO=0: never) into
 * records per file, enclosing function, size class and access kind.
 */
struct dft_iorec;
/* the position model, the calling thread's of f: an open, a seek-type
 * call (name as traced), a data call (returns its DFT_IO_* class bits) */
void dft_model_open(struct dft_file *f);
void dft_model_seek(struct dft_file *f, const char *name, long long ret,
		    int has_off, int whence, long long offset);
unsigned dft_model_data(struct dft_file *f, int w, int positional,
			long long off, long long bytes, long long *start);
/* the bytes a read or write moved as the analysis counts them */
static inline long long dft_io_bytes(long long ret, long long size)
{
	if (ret <= 0)
		return 0;
	if (size > 0) {	/* fread/fwrite: elements of up to 64 KiB */
		long long es = size < (1 << 16) ? size : (1 << 16);

		/* ret * es capped at 2^44, without a division (a slow
		 * instruction on every aggregated fread/fwrite): below 2^28
		 * elements of up to 2^16 bytes it cannot exceed the cap */
		if (DFT_LIKELY(ret < (1LL << 28)))
			return ret * es;
		return ret > (1LL << 44) / es ? 1LL << 44 : ret * es;
	}
	return ret;
}
/* The calling thread when its calls of (name, cat), io.c's literals, are
 * aggregated, else NULL.  The hit of the thread's pointer cache inline
 * (the wrapper's hot path): io.c's literals are filled into the cache
 * only while DFTRACER_THROTTLE_IO and _CALLS are on (dft_io_folded_slow,
 * dft_io_count), a configuration that holds for a generation of the
 * state, and the cache is cleared when a thread joins a new generation
 * (dft_thread_new), so a hit needs no look at the configuration.  A
 * call name stays aggregated for the generation: the latest one found
 * is checked first. */
struct dft_thread *dft_io_folded_slow(const char *name, const char *cat);
static inline struct dft_thread *dft_io_folded(const char *name,
					       const char *cat)
{
	struct dft_thread *t = dft_tself;

	if (DFT_LIKELY(t && t->gen == dft_gen)) {
		const struct dft_fncache *c;

		if (DFT_LIKELY(t->iofn == name && t->iofc == cat))
			return t;
		c = fn_cache_at(t, fn_cache_index(name, cat), name, cat);
		if (DFT_LIKELY(c->name == name && c->cat == cat &&
			       c->slot >= 0)) {
			if (!t->fns[c->slot].throttled)
				return NULL;
			t->iofn = name;	/* throttled for the generation */
			t->iofc = cat;
			return t;
		}
	}
	return dft_io_folded_slow(name, cat);
}
/* the aggregated call itself: dft_io_agg (ioagg.h) */
/* a complete I/O event of dur us was written: the throttle counts it */
void dft_io_count(struct dft_thread *t, const char *name, const char *cat,
		  uint64_t dur);
/* before a complete event on f: the thread's open records of f first */
void dft_io_flush_file(struct dft_thread *t, const struct dft_file *f);
void dft_io_flush_all(struct dft_thread *t);
/* a fork child: the parent's records and position models */
void dft_io_drop(struct dft_thread *t);
void dft_io_flush_other(struct dft_thread *t, struct dft_thread *o);
void dft_model_free(struct dft_thread *t);	/* at thread exit */
void dft_io_release(struct dft_thread *t);	/* its table unmapped */

/* One argument of an event: ,"k":i or ,"k":"s" (io.c, mpiio.c, hdf5.c). */
enum { KV_INT, KV_STR, KV_HASH };
struct dft_kv {
	const char *k;
	int kind;
	long long i;
	const char *s;
};
#define KI(k, v) { k, KV_INT, (long long)(v), NULL }
#define KS(k, v) { k, KV_STR, 0, v }
#define KH(k, v) { k, KV_HASH, 0, v }
void ev_kv(struct dft_thread *t, const struct dft_kv *kv, int n);

/*
 * api.c: a span of an interposed library layer (MPI-IO, HDF5): an event
 * that is open while the library's call runs, so the calls it makes
 * (MPI-IO under HDF5, POSIX under MPI-IO) get it as their parent (p_idx,
 * level).  Unlike a region it is never throttled, and its args are given
 * at the end.  begin returns NULL when it cannot trace (then end does
 * nothing); name and cat must outlive the span (literals).
 */
struct dft_region *dft_span_begin(const char *name, const char *cat);
void dft_span_end(struct dft_region *r, const struct dft_kv *kv, int n,
		  const struct dft_file *f);

/* Layers outside libc, on while tracing with interception bound (core.c,
 * DFTRACER_DISABLE_MPIIO / DFTRACER_DISABLE_HDF5).  Not in the hot page:
 * a program that never calls MPI-IO or HDF5 never reads them. */
extern int dft_on_mpiio, dft_on_hdf5;

/* libsym.c: the next definition of an interposed symbol (libmpi's,
 * libhdf5's), also when that library was loaded with RTLD_LOCAL; NULL if
 * no loaded object but this one defines it. */
void *dft_lib_sym(const char *name);
/* the same, or abort with a message naming it (a wrapper's real function) */
void *dft_lib_sym_must(const char *name);
/* Declares the exported wrapper sym and real_sym, its real function, which
 * LIB_REAL(sym) looks up at the first call. */
#define LIB_WRAP(ret, sym, params) \
	DFT_API ret sym params; \
	static __typeof__(&sym) real_##sym
#define LIB_REAL(sym) \
	(*({ \
		if (DFT_UNLIKELY(real_##sym == NULL)) \
			real_##sym = (__typeof__(real_##sym)) \
				dft_lib_sym_must(#sym); \
		real_##sym; \
	}))
/* The traced half of a wrapper: the real sym called with (args) inside a
 * span of category cat on file f (may be NULL); the event's args are the
 * KI(...), list given (each followed by a comma), then ret.  Returns. */
#define LIB_SPAN(ret_t, sym, cat, f, args, ...) \
	DFT_SPAN_AROUND(ret_t, #sym, cat, f, LIB_REAL(sym) args, __VA_ARGS__)
/* The same for any call: call is evaluated inside a span named name. */
#define DFT_SPAN_AROUND(ret_t, name, cat, f, call, ...) \
	do { \
		struct dft_region *r_ = dft_span_begin(name, cat); \
		ret_t ret_ = call; \
		int e_ = errno; \
		{ \
			struct dft_kv kv_[] = { __VA_ARGS__ KI("ret", ret_) }; \
			dft_span_end(r_, kv_, sizeof(kv_) / sizeof(*kv_), (f)); \
		} \
		errno = e_; \
		return ret_; \
	} while (0)
/* mpiio.c: this thread is inside a traced MPI call (mpiio.c, mpi.c); the
 * MPI calls made from there pass through */
extern __thread int dft_in_mpi DFT_TLS;
/* A call of the real sym with args, inside the traced call */
#define MPI_CALL(sym, args) \
	({ \
		int rc_; \
		dft_in_mpi++; \
		rc_ = LIB_REAL(sym) args; \
		dft_in_mpi--; \
		rc_; \
	})

/* The traced half of a wrapper without data: the real sym called with
 * args inside a span named name on file f; the event's args are the
 * KI(...), list given (each followed by a comma), then ret.  Returns. */
#define MPI_SPAN(sym, name, cat, f, args, ...) \
	DFT_SPAN_AROUND(int, name, cat, f, MPI_CALL(sym, args), __VA_ARGS__)

/* the traced file of a path a library was given (MPI-IO's "ufs:" style
 * prefixes removed), emitting FH the first time; NULL if not traced */
struct dft_file *dft_layer_file(const char *path);

/* preload.c / core.c: initialise in a mode; suffix "app" or "preload". */
void dft_init(const char *log_file, const char *data_dirs, const int *pid,
	      int bind, const char *suffix);
void dft_fini(void);

#define DFT_LIT(t, s) ev_raw((t), (s), sizeof(s) - 1)

#endif
