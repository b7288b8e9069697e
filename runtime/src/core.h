/*
 * core.h - the state shared by core.c, writer.c, config.c and api.c; not
 * installed.  io.c sees it only through ioagg.h (the aggregated call's
 * hot path reads the enclosing region).
 */
#ifndef DFT_RT_CORE_H
#define DFT_RT_CORE_H

#include <pthread.h>
#include <string.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include <zlib.h>

#include "../include/dftracer/dftracer.h"
#include "internal.h"

#define t_self dft_tself

/* A region handle: the public struct comes first, then a tag that tells
 * a full region from a folded call of a throttled function.  Both are
 * pushed on the thread's stack, so the events inside get the right level
 * and parent.  A full region has its id from START; a folded call has id
 * 0 until an event written inside it names it as parent (top_id), and
 * then it is written as a complete event at END, so every p_idx refers
 * to a written event. */
#define DFT_R_FULL 0x46554c4cu
#define DFT_R_AGG 0x41474752u
struct dft_region {
	struct DFTracerData pub;
	unsigned magic;
	int slot;		/* its dft_fnstat on the thread, or -1 */
	uint64_t fhash;
	long long id;
	uint64_t ts;		/* start (us, CLOCK_REALTIME); a folded call:
				 * 0 until it is named (frame_id) */
	uint64_t tick;		/* a folded call: its start tick (tick.c) */
	uint64_t anc_us, anc_tick;	/* a named folded call: the clock and
					 * the tick when it was named */
	uint64_t cend;		/* latest end of an event written inside */
	int meta;		/* DF_METADATA_EVENT */
	int level;
	long long p_idx;
	char *name, *cat;
	int own;		/* name and cat are copies freed with it (else
				 * interned by fn_intern, never freed) */
	char *args;		/* rendered ,"k":v pairs */
	size_t alen, acap;
	size_t *poff;		/* start of each pair in args */
	size_t npairs, pcap;
	int emitted;		/* written by finalize (left open at exit) */
	uint64_t kids;		/* time in the traced functions it called */
	struct dft_thread *t;	/* folded: the thread it started on */
	struct dft_region *next;	/* in the thread's free list */
};

/* The runtime's state (core.c); one per process. */
struct dft_state {
	pthread_mutex_t init_lock;
	int inited, finalized;
	unsigned gen;
	pid_t pid;		/* written in events */
	pid_t ospid;		/* getpid() of the traced process */
	int pid_given;
	char host[256];
	char hhash[17];
	char exec_name[256];
	char cmd[DFT_PATH];
	char prefix[DFT_PATH - 64];
	char path[DFT_PATH];
	char suffix[16];
	int explicit_log;
	int fd;
	int compress, metadata, tids, bind, bind_signals, term_signals, log_level;
	int io, posix, stdio, mpiio, hdf5;
	size_t bufsize;
	uint64_t throttle_calls, throttle_us, interval_us;
	uint64_t throttle_early;	/* DFTRACER_THROTTLE_EARLY (0: none) */
	int throttle_io;	/* DFTRACER_THROTTLE_IO: hot I/O aggregated */
	_Atomic long long next_id;
	pthread_mutex_t file_lock, reg_lock, intern_lock;
	z_stream z;
	int z_ready;		/* compressor made (1), not yet (0), failed (-1) */
	int want_open;		/* path named, file not made yet (trace_create) */
	int fd_hi;		/* the descriptor taken for it, or -1 */
	unsigned char *zout;
	size_t zcap;
	struct dft_tbuf *bufs;
	struct dft_file **tab;
	size_t tabcap, tabn;
	pthread_key_t key;
	int key_made, atexit_done, atfork_done, warned;
	struct dft_file **child_old;	/* parent's files, until the child starts */
	size_t child_oldcap;
	int forked;			/* a child: renumber its open regions */
	uint64_t start_ts;		/* when tracing began (the start event) */
	time_t start_time;
	int rank;
};
extern struct dft_state G;

enum { LOG_ERROR, LOG_WARN, LOG_INFO, LOG_DEBUG };

/* core.c */
int write_all(int fd, const void *p, size_t n);
void rt_msg(int level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int env_is(const char *name, const char *val);
size_t norm_path(const char *base, const char *path, char *out, size_t cap);
struct dft_file *intern(const char *p, size_t n);
void agg_flush_thread(struct dft_thread *t);
uint64_t fn_hash(const char *name, const char *cat);
int fn_slot(struct dft_thread *t, const char *name, const char *cat,
	    uint64_t h);
void agg_add(struct dft_thread *t, struct dft_region *r, uint64_t dns);
void agg_head(struct dft_thread *t, const char *name, const char *cat,
	      uint64_t first);
/* one more folded call of dns nanoseconds in e's open record: agg_add and
 * finalize_region's inline fast path */
static inline void fnstat_count(struct dft_fnstat *e, uint64_t dns)
{
	e->cnt++;
	e->dsum += dns;
	if (dns < e->dmin)
		e->dmin = dns;
	if (dns > e->dmax)
		e->dmax = dns;
}
int fn_lookup_miss(struct dft_thread *t, const char *name, const char *cat,
		   unsigned i);
/* The slot of (name, cat) through the thread's pointer cache: the same
 * literal pointers as a recent call (an annotated function's __func__)
 * and the same strings (a caller may reuse a buffer for another name).
 * The hit inline: START's hot path. */
static inline int fn_lookup(struct dft_thread *t, const char *name,
			    const char *cat)
{
	unsigned i = fn_cache_index(name, cat);
	const struct dft_fncache *c = fn_cache_at(t, i, name, cat);

	if (DFT_LIKELY(c->name == name && c->cat == cat && c->slot >= 0)) {
		const struct dft_fnstat *e = &t->fns[c->slot];

		if (DFT_LIKELY(c->lit || (strcmp(e->name, name) == 0 &&
					  strcmp(e->cat, cat) == 0)))
			return c->slot;
	}
	return fn_lookup_miss(t, name, cat, i);
}
const char *fn_intern(const char *s);
void fn_free(struct dft_thread *t);
struct dft_region *region_get(struct dft_thread *t);
void region_put(struct dft_thread *t, struct dft_region *r);
void region_thread_release(struct dft_thread *t);
void fn_count(struct dft_thread *t, struct dft_region *r, uint64_t dur);

/* The throttle's decision once a call has been counted into e (fn_count,
 * dft_io_count): at DFTRACER_THROTTLE_CALLS calls when more than half of
 * them were short (the median under DFTRACER_THROTTLE_US), or early, at
 * DFTRACER_THROTTLE_EARLY calls (default DFT_THROTTLE_EARLY; only below
 * the limit), when nine in ten of them were: with 23 of 25 calls short,
 * a median that is not short is as unlikely as 1 in 10,000 (binomial, p
 * 1/2), and each complete event it saves costs ~1,000 instructions and
 * ~230 trace bytes (tinyxml2's Write and fwrite).  0 decides at the limit
 * only. */
#define DFT_THROTTLE_EARLY 25
static inline int dft_throttle_due(const struct dft_fnstat *e)
{
	return (e->calls >= G.throttle_calls && 2 * e->shorts > e->calls) ||
	       (e->calls == G.throttle_early &&
		10 * e->shorts >= 9 * e->calls);
}

/* ioagg.c: a region's file and line (its args) as ,"file":..,"line":..
 * or (parent) ,"pfile":..,"pline":.. (interned), NULL when it has neither */
const char *dft_loc_of(const char *args, size_t n, int parent);

/* writer.c: mappings of n bytes (zeroed; populate: faulted in now) */
char *blk_alloc(size_t n, int populate);
void blk_free(char *p, size_t n);
void tbuf_release(struct dft_tbuf *b);
void thread_exit(void *p);
void out_write(const char *data, size_t len);
void tbuf_flush_locked(struct dft_tbuf *b);
void commit(struct dft_thread *t);
void writer_stop(void);
void writer_reset_child(void);
void writer_resume(void);
void writer_start_early(void);
int writer_busy(void);
void writer_lock(void);
void writer_unlock(void);
void put_str(struct dft_thread *t, const char *s, int upstream);
void put_key(struct dft_thread *t, const char *key);
long long frame_id(struct dft_thread *t, int k);
void ev_meta_line(struct dft_thread *t, const char *rec, const char *name,
		  const char *value);
void ev_meta(struct dft_thread *t, const char *rec, const char *name,
	     int name_upstream, const char *value);
int open_and_write_header(void);
void trace_release_fd(void);
void trace_reserve_fd(void);

/* config.c */
void env_take(void);
void env_drop(void);
const char *env_get(const char *name);
void read_config(const char *data_dirs);
void read_cmdline(void);
void rank_from_env(void);

/* api.c */
int region_format(struct dft_thread *t, struct dft_region *r, uint64_t end);
void region_emit(struct dft_thread *t, struct dft_region *r, uint64_t end);
/* the end of a named folded call: its naming clock reading plus the ticks
 * since, rounded up, and no earlier than what was written inside it */
uint64_t fold_end(const struct dft_region *r, uint64_t tick);

#endif
