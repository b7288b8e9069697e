/*
 * core.c - state, configuration, trace writer and the dftracer C API of the
 * bundled runtime.
 *
 * Writer: every thread formats its events into its own line scratch and
 * appends them to its own buffer (a per-buffer mutex that only finalize and
 * fork ever contend for).  When a buffer reaches DFTRACER_WRITE_BUFFER_SIZE
 * it is written to the trace under the file lock, deflated as one
 * independent gzip member when compression is on, so a file cut short by a
 * crash or SIGKILL stays readable up to its last flush.  The file header
 * ("[" and the init records) is flushed at once so it always comes first;
 * finalize appends the end event and "]".
 *
 * Internal I/O uses raw system calls, never the intercepted libc symbols.
 */
#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <zlib.h>

#include "../include/dftracer/dftracer.h"
#include "internal.h"
#include "pathfilter.h"

/* page-aligned so that it and the real-function pointers after it in
 * the section (io.c) share a page */
struct dft_hot dft_hot DFT_HOT_DATA __attribute__((aligned(4096)));
int dft_trace_fd = -1;
__thread int dft_guard DFT_TLS;
__thread struct dft_thread *dft_tself DFT_TLS;
unsigned dft_gen;
#define t_self dft_tself

/* A region handle: the public struct comes first, then a tag that tells
 * a full region from a throttled one (struct dft_aregion). */
#define DFT_R_FULL 0x46554c4cu
#define DFT_R_AGG 0x41474752u
struct dft_region {
	struct DFTracerData pub;
	unsigned magic;
	int slot;		/* its dft_fnstat on the thread, or -1 */
	uint64_t fhash;
	long long id;
	uint64_t ts;
	int meta;		/* DF_METADATA_EVENT */
	int level;
	long long p_idx;
	char *name, *cat;
	char *args;		/* rendered ,"k":v pairs */
	size_t alen, acap;
	size_t *poff;		/* start of each pair in args */
	size_t npairs, pcap;
	int emitted;		/* written by finalize (left open at exit) */
};

/* A call of a throttled function: only its start time is kept. */
struct dft_aregion {
	struct DFTracerData pub;
	unsigned magic;
	int slot;
	uint64_t fhash;
	struct dft_thread *t;
	uint64_t ts;
};

static void region_emit(struct dft_thread *t, struct dft_region *r,
			uint64_t end);
static void agg_flush_thread(struct dft_thread *t);
static int region_format(struct dft_thread *t, struct dft_region *r,
			 uint64_t end);

static struct {
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
	int compress, metadata, tids, bind, bind_signals, log_level;
	int io, posix, stdio;
	size_t bufsize;
	uint64_t throttle_calls, throttle_us, interval_us;
	_Atomic long long next_id;
	pthread_mutex_t file_lock, reg_lock, intern_lock;
	z_stream z;
	int z_ready;
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
} G = {
	.init_lock = PTHREAD_MUTEX_INITIALIZER,
	.file_lock = PTHREAD_MUTEX_INITIALIZER,
	.reg_lock = PTHREAD_MUTEX_INITIALIZER,
	.intern_lock = PTHREAD_MUTEX_INITIALIZER,
	.fd = -1,
	.rank = -1,
};

enum { LOG_ERROR, LOG_WARN, LOG_INFO, LOG_DEBUG };

/* ---- small helpers ------------------------------------------------------ */

static ssize_t sys_write(int fd, const void *p, size_t n)
{
	return syscall(SYS_write, fd, p, n);
}

static int write_all(int fd, const void *p, size_t n)
{
	const char *c = p;

	while (n > 0) {
		ssize_t w = sys_write(fd, c, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

static void rt_msg(int level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void rt_msg(int level, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	int n;

	if (level > G.log_level)
		return;
	n = snprintf(buf, sizeof(buf), "dftracer: ");
	va_start(ap, fmt);
	n += vsnprintf(buf + n, sizeof(buf) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(buf) - 2)
		n = (int)sizeof(buf) - 2;
	buf[n++] = '\n';
	write_all(2, buf, (size_t)n);
}

uint64_t dft_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static int env_is(const char *name, const char *val)
{
	const char *v = getenv(name);

	return v && strcmp(v, val) == 0;
}

long long dft_next_id(void)
{
	return atomic_fetch_add_explicit(&G.next_id, 1, memory_order_relaxed);
}

int dft_metadata(void)
{
	return G.metadata;
}

/* ---- threads and buffers ------------------------------------------------ */

/*
 * Buffers are blocks of DFT_CHUNK bytes that circulate between the threads
 * and the writer and are reused, never grown: the first touch of a fresh
 * page is expensive (on a virtual machine with shadow page tables it costs
 * microseconds, more than formatting the events that fill it), so the
 * tracer keeps writing into the same few hot pages.  A flush hands a block
 * of at most DFT_CHUNK - DFT_LINE bytes to the writer (or less, with a
 * smaller DFTRACER_WRITE_BUFFER_SIZE).
 */
#define DFT_BLOCK0 (128u << 10)
#define DFT_CHUNK (128u << 10)

static char *blk_alloc(size_t n)
{
	void *p = (void *)syscall(SYS_mmap, NULL, n, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
				  -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static void blk_free(char *p, size_t n)
{
	if (p)
		syscall(SYS_munmap, p, n);
}

/* bytes a buffer of capacity cap may hold before it is flushed */
static size_t flush_at(size_t cap)
{
	size_t room = cap - DFT_LINE;

	return G.bufsize < room ? G.bufsize : room;
}

static size_t next_cap(size_t cap)
{
	if (G.bufsize + DFT_LINE <= cap || cap >= DFT_CHUNK)
		return cap;
	return cap * 2 < DFT_CHUNK ? cap * 2 : DFT_CHUNK;
}

static void tbuf_flush_locked(struct dft_tbuf *b);
static int tbuf_flush_async(struct dft_tbuf *b);

static void thread_exit(void *p)
{
	struct dft_thread *t = p;
	struct dft_tbuf *b;

	if (!t)
		return;
	if (t->gen != G.gen || !G.inited || G.finalized || !t->buf)
		goto out;
	dft_guard++;
	agg_flush_thread(t);
	b = t->buf;
	pthread_mutex_lock(&b->lock);
	if (b->len)
		tbuf_flush_async(b);
	b->dead = 1;
	pthread_mutex_unlock(&b->lock);
	dft_guard--;
out:
	if (t_self == t)
		t_self = NULL;
	for (unsigned i = 0; i < t->fncap; i++)
		if (t->fns[i].hash) {
			free(t->fns[i].name);
			free(t->fns[i].cat);
		}
	free(t->fns);
	free(t);
}

struct dft_thread *dft_thread_new(struct dft_thread *t)
{
	struct dft_tbuf *b;

	if (!t) {
		t = calloc(1, sizeof(*t));
		if (!t)
			return NULL;
		t_self = t;
	}
	b = calloc(1, sizeof(*b));
	if (!b)
		return NULL;
	pthread_mutex_init(&b->lock, NULL);
	b->cap = DFT_BLOCK0;
	b->data = blk_alloc(b->cap);
	if (!b->data) {
		free(b);
		return NULL;
	}
	t->buf = b;	/* depth survives fork: the child is still inside */
	t->n = 0;
	t->gen = G.gen;
	t->tid = G.tids ? (pid_t)syscall(SYS_gettid) : 0;
	t->pidtid_len = (unsigned)snprintf(t->pidtid, sizeof(t->pidtid),
					   ",\"pid\":%d,\"tid\":%d",
					   (int)G.pid, (int)t->tid);
	pthread_mutex_lock(&G.reg_lock);
	/* drop buffers of exited threads that were already flushed */
	for (struct dft_tbuf **pp = &G.bufs; *pp;) {
		struct dft_tbuf *o = *pp;

		if (o->dead && o->len == 0) {
			*pp = o->next;
			blk_free(o->data, o->cap);
			free(o);
		} else {
			pp = &o->next;
		}
	}
	b->next = G.bufs;
	G.bufs = b;
	pthread_mutex_unlock(&G.reg_lock);
	if (G.key_made)
		pthread_setspecific(G.key, t);
	return t;
}


static void zout_reserve(size_t n)
{
	if (n > G.zcap) {
		unsigned char *p = realloc(G.zout, n);

		if (!p)
			return;
		G.zout = p;
		G.zcap = n;
	}
}

/* Writes data as is or as one gzip member.  Caller holds file_lock. */
static void out_write(const char *data, size_t len)
{
	if (G.fd < 0 || len == 0)
		return;
	if (!G.compress || !G.z_ready) {
		if (write_all(G.fd, data, len) < 0)
			rt_msg(LOG_ERROR, "cannot write '%s': %s", G.path,
			       strerror(errno));
		return;
	}
	zout_reserve(deflateBound(&G.z, len) + 64);
	if (deflateReset(&G.z) != Z_OK)
		return;
	G.z.next_in = (unsigned char *)data;
	G.z.avail_in = (uInt)len;
	G.z.next_out = G.zout;
	G.z.avail_out = (uInt)G.zcap;
	while (deflate(&G.z, Z_FINISH) == Z_OK) {
		/* out of room: write what we have and continue */
		write_all(G.fd, G.zout, G.zcap - G.z.avail_out);
		G.z.next_out = G.zout;
		G.z.avail_out = (uInt)G.zcap;
	}
	if (write_all(G.fd, G.zout, G.zcap - G.z.avail_out) < 0)
		rt_msg(LOG_ERROR, "cannot write '%s': %s", G.path,
		       strerror(errno));
}

static void tbuf_flush_locked(struct dft_tbuf *b)
{
	if (b->len == 0)
		return;
	pthread_mutex_lock(&G.file_lock);
	out_write(b->data, b->len);
	pthread_mutex_unlock(&G.file_lock);
	b->len = 0;
}

/*
 * The background writer: a full thread buffer is handed over as a job and
 * the thread goes on with a fresh block, so deflate runs off the traced
 * thread.  At most two jobs wait; past that the thread waits for the
 * writer (bounded memory; order kept: a thread's blocks are written in
 * the order it filled them).  Started on the first
 * full buffer, so short processes never have it; after fork the child
 * starts its own.
 */
struct dft_job {
	char *data;
	size_t len, cap;
	struct dft_job *next;
};

static struct {
	pthread_mutex_t lock;
	pthread_cond_t work, done;
	struct dft_job *head, *tail, *spare;
	int pending, nspare, stop, started, failed;
	pthread_t th;
} W = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.work = PTHREAD_COND_INITIALIZER,
	.done = PTHREAD_COND_INITIALIZER,
};

static void *writer_main(void *arg)
{
	sigset_t all;

	(void)arg;
	dft_guard = 1;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	pthread_mutex_lock(&W.lock);
	for (;;) {
		struct dft_job *j;

		while (!W.head && !W.stop)
			pthread_cond_wait(&W.work, &W.lock);
		if (!W.head)
			break;
		j = W.head;
		W.head = j->next;
		if (!W.head)
			W.tail = NULL;
		pthread_mutex_unlock(&W.lock);
		pthread_mutex_lock(&G.file_lock);
		out_write(j->data, j->len);
		pthread_mutex_unlock(&G.file_lock);
		pthread_mutex_lock(&W.lock);
		W.pending--;
		if (W.nspare < 2) {
			j->next = W.spare;
			W.spare = j;
			W.nspare++;
		} else {
			blk_free(j->data, j->cap);
			free(j);
		}
		pthread_cond_broadcast(&W.done);
	}
	pthread_mutex_unlock(&W.lock);
	return NULL;
}

/* Hands b's data to the writer; 0 on success. Caller holds b->lock. */
static int tbuf_flush_async(struct dft_tbuf *b)
{
	struct dft_job *j, *fresh;
	size_t want;

	pthread_mutex_lock(&W.lock);
	if (W.failed || W.stop)
		goto inline_write;
	/* back-pressure: wait rather than write past the queued jobs */
	while (W.started && W.pending >= 2)
		pthread_cond_wait(&W.done, &W.lock);
	if (!W.started) {
		pthread_attr_t a;
		sigset_t all, old;
		int rc;

		pthread_attr_init(&a);
		pthread_attr_setstacksize(&a, 256 << 10);
		sigfillset(&all);
		pthread_sigmask(SIG_BLOCK, &all, &old);
		rc = pthread_create(&W.th, &a, writer_main, NULL);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		pthread_attr_destroy(&a);
		if (rc != 0) {
			W.failed = 1;
			goto inline_write;
		}
		W.started = 1;
	}
	want = next_cap(b->cap);
	fresh = W.spare;
	if (fresh && fresh->cap >= want) {
		W.spare = fresh->next;
		W.nspare--;
	} else {
		fresh = calloc(1, sizeof(*fresh));
		if (fresh)
			fresh->data = blk_alloc(want);
		if (!fresh || !fresh->data) {
			free(fresh);
			goto inline_write;
		}
		fresh->cap = want;
	}
	j = fresh;
	/* swap: the job takes b's block, b takes the fresh one */
	{
		char *d = j->data;
		size_t c = j->cap;

		j->data = b->data;
		j->cap = b->cap;
		j->len = b->len;
		b->data = d;
		b->cap = c;
		b->len = 0;
	}
	j->next = NULL;
	if (W.tail)
		W.tail->next = j;
	else
		W.head = j;
	W.tail = j;
	W.pending++;
	pthread_cond_signal(&W.work);
	pthread_mutex_unlock(&W.lock);
	return 0;
inline_write:
	pthread_mutex_unlock(&W.lock);
	tbuf_flush_locked(b);
	return -1;
}

/* Waits until the writer has written every queued job. */
static void writer_drain(void)
{
	pthread_mutex_lock(&W.lock);
	while (W.started && W.pending > 0)
		pthread_cond_wait(&W.done, &W.lock);
	pthread_mutex_unlock(&W.lock);
}

static void writer_stop(void)
{
	int join;

	pthread_mutex_lock(&W.lock);
	join = W.started;
	W.stop = 1;
	pthread_cond_signal(&W.work);
	pthread_mutex_unlock(&W.lock);
	if (join)
		pthread_join(W.th, NULL);
	pthread_mutex_lock(&W.lock);
	W.started = 0;		/* W.stop stays set: writes are inline now */
	pthread_mutex_unlock(&W.lock);
}

/* In a forked child: the parent's jobs are the parent's to write. */
static void writer_reset_child(void)
{
	struct dft_job *j, *n;

	pthread_mutex_init(&W.lock, NULL);
	pthread_cond_init(&W.work, NULL);
	pthread_cond_init(&W.done, NULL);
	for (j = W.head; j; j = n) {
		n = j->next;
		blk_free(j->data, j->cap);
		free(j);
	}
	W.head = W.tail = NULL;
	W.pending = 0;
	W.started = 0;
	W.stop = 0;
}

/*
 * Lines are short; copy them with plain 8-byte moves.  glibc's memcpy picks
 * AVX-512 on this class of machine, and the first wide-register use after
 * each system call made the copy cost more than formatting the event.
 */
static void copy_line(char *dst, const char *src, size_t n)
{
	while (n >= 8) {
		uint64_t v;

		__builtin_memcpy(&v, src, 8);
		__builtin_memcpy(dst, &v, 8);
		dst += 8;
		src += 8;
		n -= 8;
	}
	while (n--)
		*dst++ = *src++;
}

static void commit(struct dft_thread *t)
{
	struct dft_tbuf *b = t->buf;

	pthread_mutex_lock(&b->lock);
	if (DFT_UNLIKELY(b->len + t->n > b->cap))
		tbuf_flush_locked(b);	/* cannot happen: flush_at leaves room */
	copy_line(b->data + b->len, t->line, t->n);
	b->len += t->n;
	if (DFT_UNLIKELY(b->len >= flush_at(b->cap)))
		tbuf_flush_async(b);
	pthread_mutex_unlock(&b->lock);
	t->n = 0;
	t->overflow = 0;
}

void dft_flush_all(int final)
{
	struct dft_tbuf *b;

	if (final != 2)
		writer_drain();
	pthread_mutex_lock(&G.reg_lock);
	for (b = G.bufs; b; b = b->next) {
		if (final == 2) {	/* from a signal: never block */
			if (pthread_mutex_trylock(&b->lock) != 0)
				continue;
		} else {
			pthread_mutex_lock(&b->lock);
		}
		tbuf_flush_locked(b);
		pthread_mutex_unlock(&b->lock);
	}
	pthread_mutex_unlock(&G.reg_lock);
}

/* ---- line formatting ---------------------------------------------------- */


static const char digits2[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233"
	"34353637383940414243444546474849505152535455565758596061626364656667"
	"6869707172737475767778798081828384858687888990919293949596979899";

void put_u64(struct dft_thread *t, uint64_t v)
{
	char tmp[24];
	int i = 24;

	while (v >= 100) {
		unsigned d = (unsigned)(v % 100) * 2;

		v /= 100;
		tmp[--i] = digits2[d + 1];
		tmp[--i] = digits2[d];
	}
	if (v >= 10) {
		unsigned d = (unsigned)v * 2;

		tmp[--i] = digits2[d + 1];
		tmp[--i] = digits2[d];
	} else {
		tmp[--i] = (char)('0' + v);
	}
	ev_raw(t, tmp + i, (size_t)(24 - i));
}

void put_i64(struct dft_thread *t, long long v)
{
	if (v < 0) {
		DFT_LIT(t, "-");
		put_u64(t, 0 - (uint64_t)v);
	} else {
		put_u64(t, (uint64_t)v);
	}
}

/* Length of a valid UTF-8 sequence at s (1..4), or 0 if invalid. */
static int utf8_len(const unsigned char *s)
{
	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		return (s[1] & 0xc0) == 0x80 ? 2 : 0;
	if (s[0] >= 0xe0 && s[0] <= 0xef) {
		if ((s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80)
			return 0;
		if (s[0] == 0xe0 && s[1] < 0xa0)
			return 0;
		if (s[0] == 0xed && s[1] >= 0xa0)
			return 0;
		return 3;
	}
	if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		if ((s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80 ||
		    (s[3] & 0xc0) != 0x80)
			return 0;
		if (s[0] == 0xf0 && s[1] < 0x90)
			return 0;
		if (s[0] == 0xf4 && s[1] >= 0x90)
			return 0;
		return 4;
	}
	return 0;
}

/* 1: must be escaped (control, quote, backslash, non-ASCII, and NUL which
 * ends the scan); 2: replaced by a space in dftracer's hashed names */
static const unsigned char esc_tab[256] = {
	[0 ... 31] = 1, ['"'] = 1, ['\\'] = 1, [128 ... 255] = 1,
	['('] = 2, [')'] = 2, ['\''] = 2, ['|'] = 2,
};

/*
 * A JSON string.  Always valid JSON: control characters and bytes that are
 * not UTF-8 become \u00XX.  With upstream != 0 the characters dftracer
 * replaces in hashed names ( ) \ " ' | become spaces, as dftracer 2.0.x
 * writes them.
 */
static void put_str(struct dft_thread *t, const char *s, int upstream)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;
	const unsigned char mask = upstream ? 3 : 1;
	size_t room, k;
	char *o;

	DFT_LIT(t, "\"");
	for (k = 0; !(esc_tab[p[k]] & mask); k++)
		;
	if (!p[k]) {		/* nothing to escape: the common case */
		ev_raw(t, s, k);
		DFT_LIT(t, "\"");
		return;
	}
	room = DFT_LINE - 128 - t->n;
	o = t->line + t->n;
	while (*p && room > 8) {
		unsigned char c = *p;
		int l;

		if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
			if (upstream && (c == '(' || c == ')' || c == '\'' ||
					 c == '|'))
				c = ' ';
			*o++ = (char)c;
			room--;
			p++;
			continue;
		}
		if (upstream && (c == '"' || c == '\\')) {
			*o++ = ' ';
			room--;
			p++;
			continue;
		}
		if (c == '"' || c == '\\') {
			*o++ = '\\';
			*o++ = (char)c;
			room -= 2;
			p++;
			continue;
		}
		l = c >= 0x80 ? utf8_len(p) : 0;
		if (l > 0) {
			memcpy(o, p, (size_t)l);
			o += l;
			room -= (size_t)l;
			p += l;
			continue;
		}
		if (c == '\n' || c == '\t' || c == '\r') {
			*o++ = '\\';
			*o++ = c == '\n' ? 'n' : c == '\t' ? 't' : 'r';
			room -= 2;
		} else {
			memcpy(o, "\\u00", 4);
			o[4] = hex[c >> 4];
			o[5] = hex[c & 15];
			o += 6;
			room -= 6;
		}
		p++;
	}
	t->n = (size_t)(o - t->line);
	DFT_LIT(t, "\"");
}

static void put_key(struct dft_thread *t, const char *key)
{
	DFT_LIT(t, ",");
	put_str(t, key, 0);
	DFT_LIT(t, ":");
}

/* keys of the runtime's own args: plain ASCII, no escaping needed */
static void put_key_plain(struct dft_thread *t, const char *key)
{
	size_t n = strlen(key);

	DFT_LIT(t, ",\"");
	ev_raw(t, key, n);
	DFT_LIT(t, "\":");
}

void ev_int(struct dft_thread *t, const char *key, long long v)
{
	put_key_plain(t, key);
	put_i64(t, v);
}

void ev_str(struct dft_thread *t, const char *key, const char *v)
{
	put_key_plain(t, key);
	put_str(t, v ? v : "", 0);
}

void ev_hash(struct dft_thread *t, const char *key, const char *h)
{
	put_key_plain(t, key);
	DFT_LIT(t, "\"");
	ev_raw(t, h, 16);
	DFT_LIT(t, "\"");
}

static long long top_id(struct dft_thread *t)
{
	if (t->depth <= 0)
		return -1;
	return t->stack[(t->depth > DFT_DEPTH ? DFT_DEPTH : t->depth) - 1]->id;
}

void ev_pidx(struct dft_thread *t)
{
	DFT_LIT(t, ",\"p_idx\":");
	put_i64(t, top_id(t));
}

void ev_level(struct dft_thread *t)
{
	DFT_LIT(t, ",\"level\":");
	put_i64(t, t->depth + 1);
}

void ev_plevel(struct dft_thread *t)
{
	ev_pidx(t);
	ev_level(t);
}

static void put_head(struct dft_thread *t, long long id, const char *name,
		     const char *cat)
{
	DFT_LIT(t, "{\"id\":");
	put_i64(t, id);
	DFT_LIT(t, ",\"name\":");
	put_str(t, name, 0);
	DFT_LIT(t, ",\"cat\":");
	put_str(t, cat, 0);
	ev_raw(t, t->pidtid, t->pidtid_len);
}

int ev_begin(struct dft_thread *t, long long id, const char *name,
	     const char *cat, uint64_t ts, uint64_t dur)
{
	t->n = 0;
	t->overflow = 0;
	put_head(t, id, name, cat);
	DFT_LIT(t, ",\"ts\":");
	put_u64(t, ts);
	DFT_LIT(t, ",\"dur\":");
	put_u64(t, dur);
	DFT_LIT(t, ",\"ph\":\"X\"");
	if (!G.metadata)
		return 0;
	DFT_LIT(t, ",\"args\":{\"hhash\":\"");
	ev_raw(t, G.hhash, 16);
	DFT_LIT(t, "\"");
	return 1;
}

void ev_end(struct dft_thread *t, int args)
{
	if (args)
		DFT_LIT(t, "}}\n");
	else
		DFT_LIT(t, "}\n");
	if (DFT_UNLIKELY(t->overflow)) {
		t->n = 0;
		t->overflow = 0;
		return;
	}
	commit(t);
}

/* A "ph":"M" record; value is a hash when is_hash. */
static void ev_meta(struct dft_thread *t, const char *rec, const char *name,
		    int name_upstream, const char *value)
{
	t->n = 0;
	t->overflow = 0;
	put_head(t, dft_next_id(), rec, "dftracer");
	DFT_LIT(t, ",\"ph\":\"M\",\"args\":{\"hhash\":\"");
	ev_raw(t, G.hhash, 16);
	DFT_LIT(t, "\",\"name\":");
	put_str(t, name, name_upstream);
	DFT_LIT(t, ",\"value\":");
	put_str(t, value, 0);
	DFT_LIT(t, "}}\n");
	if (t->overflow) {
		t->n = 0;
		t->overflow = 0;
		return;
	}
	commit(t);
}

/* ---- paths -------------------------------------------------------------- */

void *dft_hot_alloc(size_t n)
{
	size_t want = (n + 7) & ~(size_t)7;
	size_t at = atomic_fetch_add(&dft_hot.arena_used, want);

	if (at + want <= sizeof(dft_hot.arena))
		return dft_hot.arena + at;
	return malloc(n);	/* arena full: a program that chdirs a lot */
}

static struct dft_cwd *dup_cwd(void)
{
	char buf[DFT_PATH];
	struct dft_cwd *copy;
	size_t n;

	if (!getcwd(buf, sizeof(buf)))
		strcpy(buf, "/");
	n = strlen(buf);
	copy = dft_hot_alloc(sizeof(*copy) + n + 1);
	if (!copy) {	/* out of memory: "/" rather than a NULL to check */
		static union {
			struct dft_cwd c;
			char room[sizeof(struct dft_cwd) + 2];
		} root;

		copy = &root.c;
		n = 1;
		strcpy(buf, "/");
	}
	copy->len = n;
	memcpy(copy->path, buf, n + 1);
	return copy;
}

void dft_set_cwd(void)
{
	/* the old copy stays: readers may still hold it */
	atomic_store(&dft_hot.cwd, dup_cwd());
}

/*
 * Lexically normalises base + "/" + path (base ignored when path is
 * absolute) into out: no "." or empty components, ".." removed with its
 * parent.  Returns the length, or 0 if it does not fit.
 */
static size_t norm_path(const char *base, const char *path, char *out,
			size_t cap)
{
	size_t n = 0;
	const char *parts[2] = { path[0] == '/' ? "" : base, path };

	out[0] = '/';
	n = 1;
	for (int k = 0; k < 2; k++) {
		const char *p = parts[k];

		while (*p) {
			const char *s;
			size_t l;

			while (*p == '/')
				p++;
			if (!*p)
				break;
			s = p;
			while (*p && *p != '/')
				p++;
			l = (size_t)(p - s);
			if (l == 1 && s[0] == '.')
				continue;
			if (l == 2 && s[0] == '.' && s[1] == '.') {
				while (n > 1 && out[n - 1] != '/')
					n--;
				if (n > 1)
					n--;
				continue;
			}
			if (n + l + 2 >= cap)
				return 0;
			if (n > 1)
				out[n++] = '/';
			memcpy(out + n, s, l);
			n += l;
		}
	}
	out[n] = '\0';
	return n;
}

static const char *const excl_prefix[] = {
	"/proc/", "/sys/", "/dev/", "/pipe", "/socket", "anon_inode", "socket",
};

static int excluded(const char *p, size_t n)
{
	size_t i;

	for (i = 0; i < sizeof(excl_prefix) / sizeof(*excl_prefix); i++)
		if (strncmp(p, excl_prefix[i], strlen(excl_prefix[i])) == 0)
			return 1;
	if ((n >= 4 && memcmp(p + n - 4, ".pfw", 4) == 0) ||
	    (n >= 7 && memcmp(p + n - 7, ".pfw.gz", 7) == 0) ||
	    (n >= 3 && memcmp(p + n - 3, ".py", 3) == 0))
		return 1;
	return 0;
}

static size_t str_hash(const char *s, size_t n)
{
	size_t h = 1469598103934665603ull;

	while (n--)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

/* Interns an absolute path, emitting FH the first time. */
static struct dft_file *intern(const char *p, size_t n)
{
	struct dft_file *f;
	size_t h, i;

	pthread_mutex_lock(&G.intern_lock);
	if (G.tabn * 2 >= G.tabcap) {
		size_t cap = G.tabcap ? G.tabcap * 2 : 1024;
		struct dft_file **nt = calloc(cap, sizeof(*nt));

		if (!nt) {
			pthread_mutex_unlock(&G.intern_lock);
			return NULL;
		}
		for (i = 0; i < G.tabcap; i++) {
			struct dft_file *o = G.tab[i];
			size_t j;

			if (!o)
				continue;
			j = str_hash(o->path, o->len) & (cap - 1);
			while (nt[j])
				j = (j + 1) & (cap - 1);
			nt[j] = o;
		}
		free(G.tab);
		G.tab = nt;
		G.tabcap = cap;
	}
	h = str_hash(p, n);
	for (i = h & (G.tabcap - 1); (f = G.tab[i]); i = (i + 1) & (G.tabcap - 1))
		if (f->len == n && memcmp(f->path, p, n) == 0) {
			pthread_mutex_unlock(&G.intern_lock);
			return f;
		}
	f = malloc(sizeof(*f) + n + 1);
	if (!f) {
		pthread_mutex_unlock(&G.intern_lock);
		return NULL;
	}
	memcpy(f->path, p, n);
	f->path[n] = '\0';
	f->len = (unsigned)n;
	dft_hash16(p, n, f->hash);
	G.tab[i] = f;
	G.tabn++;
	ev_meta(dft_self(), "FH", f->path, 1, f->hash);
	pthread_mutex_unlock(&G.intern_lock);
	return f;
}

/* Puts an existing entry into the table (after fork), emitting its FH. */
static void reintern(struct dft_file *f)
{
	struct dft_file *g = intern(f->path, f->len);

	(void)g;	/* the new entry has the same hash; fds keep the old one */
}

static size_t fd_dir(int dirfd, char *out, size_t cap)
{
	char link[64];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", dirfd);
	n = syscall(SYS_readlinkat, AT_FDCWD, link, out, cap - 1);
	if (n <= 0 || out[0] != '/')
		return 0;
	out[n] = '\0';
	return (size_t)n;
}

struct dft_file *dft_path_file(int dirfd, const char *path)
{
	char abs[DFT_PATH], base[DFT_PATH];
	size_t n;

	if (!path || !*path)
		return NULL;
	if (path[0] == '/') {	/* dft_path_maybe has filtered it already */
		n = norm_path("", path, abs, sizeof(abs));
	} else if (dirfd == AT_FDCWD) {
		n = norm_path(atomic_load(&dft_hot.cwd)->path, path, abs,
			      sizeof(abs));
	} else {
		if (!fd_dir(dirfd, base, sizeof(base)))
			return NULL;
		n = norm_path(base, path, abs, sizeof(abs));
	}
	if (n == 0 || !dft_dir_match(abs, n) || excluded(abs, n))
		return NULL;
	DFT_PENDING_CHECK();	/* a traced file: the trace starts here */
	return intern(abs, n);
}

static void fds_alloc(void)
{
	struct rlimit rl;
	long n = 65536;

	if (dft_fds)
		return;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    (long)rl.rlim_cur > n)
		n = (long)rl.rlim_cur > (1L << 20) ? (1L << 20) : (long)rl.rlim_cur;
	dft_fds = calloc((size_t)n, sizeof(*dft_fds));
	if (dft_fds)
		dft_nfds = (int)n;
}

void dft_fd_set(int fd, struct dft_file *f)
{
	if ((unsigned)fd < DFT_FD_LOW)
		atomic_store_explicit(&dft_hot.fd_low[fd], f,
				      memory_order_relaxed);
	else if (fd >= 0 && fd < dft_nfds)
		atomic_store_explicit(&dft_fds[fd], f, memory_order_relaxed);
}

/* ---- configuration ------------------------------------------------------ */

/* DFTRACER_DATA_DIR ("a:b", or "all") into the packed list that
 * dft_dir_match reads; entries made absolute against the working directory
 * and normalised.  A replaced list is never freed: another thread's
 * intercepted call may still be reading it. */
static void parse_dirs(const char *s)
{
	const char *p = s;
	char *cwd = atomic_load(&dft_hot.cwd)->path;
	char *block = NULL;
	size_t used = 0;

	dft_hot.all = 0;
	if (!s || !*s) {
		atomic_store_explicit(&dft_hot.dirs, NULL, memory_order_release);
		return;
	}
	if (strcmp(s, "all") == 0) {
		dft_hot.all = 1;
		return;
	}
	while (*p) {
		const char *e = strchr(p, ':');
		size_t l = e ? (size_t)(e - p) : strlen(p);
		char one[DFT_PATH], abs[DFT_PATH];
		size_t n;

		if (l > 0 && l < sizeof(one)) {
			memcpy(one, p, l);
			one[l] = '\0';
			if (strcmp(one, "all") == 0)
				dft_hot.all = 1;
			n = norm_path(cwd, one, abs, sizeof(abs));
			if (n > 0) {
				/* room for this entry and the end marker */
				char *grown = realloc(block, used + DFT_DIR_SIZE(n) +
							     DFT_DIR_SIZE(0));
				struct dft_dir *d;

				if (!grown)
					break;
				block = grown;
				d = (struct dft_dir *)(block + used);
				d->len = (unsigned)n;
				memcpy(d->path, abs, n + 1);
				used += DFT_DIR_SIZE(n);
				d = (struct dft_dir *)(block + used);
				d->len = 0;
				d->path[0] = '\0';
			}
		}
		p += l;
		if (*p == ':')
			p++;
	}
	if (block) {	/* into the hot page when it fits */
		char *hot;

		used += DFT_DIR_SIZE(0);	/* the end marker */
		hot = dft_hot_alloc(used);

		if (hot) {
			memcpy(hot, block, used);
			free(block);
			block = hot;
		}
	}
	atomic_store_explicit(&dft_hot.dirs, (const struct dft_dir *)block,
			      memory_order_release);
}

static void warn_unsupported(void)
{
	static const char *const names[] = {
		"DFTRACER_CONFIGURATION", "DFTRACER_ENABLE_AGGREGATION",
		"DFTRACER_AGGREGATION_TYPE", "DFTRACER_AGGREGATION_FILE",
		"DFTRACER_SET_CORE_AFFINITY", "DFTRACER_ENABLE_PAPI_TRACING",
		"DFTRACER_PAPI_EVENTS", "DFTRACER_TIME_METRIC",
		"DFTRACER_ERROR", "DFTRACER_ENABLE_FTRACING",
	};
	char list[512] = "";
	size_t i;

	if (G.warned)
		return;
	G.warned = 1;
	for (i = 0; i < sizeof(names) / sizeof(*names); i++) {
		const char *v = getenv(names[i]);

		if (!v || !*v || strcmp(v, "0") == 0)
			continue;
		if (strcmp(names[i], "DFTRACER_TIME_METRIC") == 0 &&
		    strcmp(v, "US") == 0)
			continue;
		if (strlen(list) + strlen(names[i]) + 3 < sizeof(list)) {
			if (*list)
				strcat(list, ", ");
			strcat(list, names[i]);
		}
	}
	if (*list) {
		char msg[700];
		int n = snprintf(msg, sizeof(msg),
				 "dftracer: warning: the dft bundled runtime "
				 "ignores %s (not supported; see "
				 "dftracer-runtime(7))\n", list);

		write_all(2, msg, (size_t)n);
	}
}

/* a non-negative integer variable, or def when unset or not a number */
static uint64_t env_u64(const char *name, uint64_t def)
{
	const char *v = getenv(name);
	char *end;
	unsigned long long n;

	if (!v || !*v)
		return def;
	n = strtoull(v, &end, 10);
	if (*end != '\0' || *v == '-') {
		rt_msg(LOG_ERROR, "ignoring %s=%s", name, v);
		return def;
	}
	return n;
}

static void read_config(const char *data_dirs)
{
	const char *v;

	v = getenv("DFTRACER_LOG_LEVEL");
	G.log_level = LOG_ERROR;
	if (v) {
		if (strcasecmp(v, "WARN") == 0 || strcasecmp(v, "WARNING") == 0)
			G.log_level = LOG_WARN;
		else if (strcasecmp(v, "INFO") == 0)
			G.log_level = LOG_INFO;
		else if (strcasecmp(v, "DEBUG") == 0)
			G.log_level = LOG_DEBUG;
	}
	G.metadata = env_is("DFTRACER_INC_METADATA", "1");
	G.compress = !env_is("DFTRACER_TRACE_COMPRESSION", "0");
	G.io = !env_is("DFTRACER_DISABLE_IO", "1");
	G.posix = !env_is("DFTRACER_DISABLE_POSIX", "1");
	G.stdio = !env_is("DFTRACER_DISABLE_STDIO", "1");
	/* dftracer's quirk: "0" disables tids; "1" does too. */
	G.tids = !(env_is("DFTRACER_DISABLE_TIDS", "0") ||
		   env_is("DFTRACER_DISABLE_TIDS", "1"));
	G.bind_signals = env_is("DFTRACER_BIND_SIGNALS", "1");
	G.bufsize = 16u << 20;
	v = getenv("DFTRACER_WRITE_BUFFER_SIZE");
	if (v && *v) {
		char *end;
		unsigned long long n = strtoull(v, &end, 10);

		if (*end == '\0')
			G.bufsize = n > (1ull << 30) ? (1u << 30) : (size_t)n;
		else
			rt_msg(LOG_ERROR, "ignoring DFTRACER_WRITE_BUFFER_SIZE=%s",
			       v);
	}
	G.throttle_calls = env_u64("DFTRACER_THROTTLE_CALLS", 100000);
	G.throttle_us = env_u64("DFTRACER_THROTTLE_US", 10);
	G.interval_us = env_u64("DFTRACER_TRACE_INTERVAL_MS", 1000) * 1000;
	if (G.interval_us == 0)
		G.interval_us = 1000000;
	if (!data_dirs)
		data_dirs = getenv("DFTRACER_DATA_DIR");
	parse_dirs(data_dirs);
	warn_unsupported();
}

/* argv from /proc/self/cmdline: cmd = argv joined by ';' for SH, and
 * dftracer's exec name (first argument, except the last, that does not
 * start with '-' and contains neither "python" nor "env"; else DEFAULT). */
static void read_cmdline(void)
{
	char buf[DFT_PATH];
	ssize_t n = 0, r;
	int fd = (int)syscall(SYS_openat, AT_FDCWD, "/proc/self/cmdline",
			      O_RDONLY | O_CLOEXEC);
	char *args[256];
	int argc = 0, i;
	size_t k = 0;

	strcpy(G.exec_name, "DEFAULT");
	G.cmd[0] = '\0';
	if (fd < 0)
		return;
	while ((r = syscall(SYS_read, fd, buf + n, sizeof(buf) - 1 - (size_t)n)) > 0)
		n += r;
	syscall(SYS_close, fd);
	buf[n] = '\0';
	for (ssize_t p = 0; p < n && argc < 256; p += (ssize_t)strlen(buf + p) + 1)
		args[argc++] = buf + p;
	for (i = 0; i < argc; i++) {
		size_t l = strlen(args[i]);

		if (k + l + 2 >= sizeof(G.cmd))
			break;
		if (i > 0)
			G.cmd[k++] = ';';
		memcpy(G.cmd + k, args[i], l);
		k += l;
		G.cmd[k] = '\0';
	}
	for (i = 0; i + 1 < argc; i++) {
		const char *a = args[i], *b;

		if (a[0] == '-' || strstr(a, "python") || strstr(a, "env"))
			continue;
		b = strrchr(a, '/');
		b = b ? b + 1 : a;
		snprintf(G.exec_name, sizeof(G.exec_name), "%s", b);
		break;
	}
}

static void mkdir_parents(const char *path)
{
	char tmp[DFT_PATH];
	char *p;

	snprintf(tmp, sizeof(tmp), "%s", path);
	for (p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		syscall(SYS_mkdirat, AT_FDCWD, tmp, 0755);
		*p = '/';
	}
}

static int open_trace(void)
{
	char name[128];
	char hash[17];
	int n;

	n = snprintf(name, sizeof(name), "%s-%s-%d", G.exec_name, G.host,
		     (int)G.pid);
	dft_hash16(name, (size_t)n, hash);
	if (G.explicit_log)
		snprintf(G.path, sizeof(G.path), "%s.pfw%s", G.prefix,
			 G.compress ? ".gz" : "");
	else
		snprintf(G.path, sizeof(G.path), "%s-%s-%s.pfw%s", G.prefix,
			 hash, G.suffix, G.compress ? ".gz" : "");
	mkdir_parents(G.path);
	G.fd = (int)syscall(SYS_openat, AT_FDCWD, G.path,
			    O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (G.fd < 0) {
		rt_msg(LOG_ERROR, "cannot open trace file '%s': %s", G.path,
		       strerror(errno));
		return -1;
	}
	/* out of the way of programs that close or reuse low descriptors */
	{
		int hi = (int)syscall(SYS_fcntl, G.fd, F_DUPFD_CLOEXEC, 900);

		if (hi >= 0) {
			syscall(SYS_close, G.fd);
			G.fd = hi;
		}
	}
	dft_trace_fd = G.fd;
	rt_msg(LOG_INFO, "writing '%s'", G.path);
	return 0;
}

/* The rank the launcher gave this process: MPI launchers' variables
 * first, then the task rank of schedulers' launchers (srun, flux run,
 * Cray PALS and ALPS, LSF jsrun), which non-MPI tasks get too. */
static void rank_from_env(void)
{
	static const char *const vars[] = {
		"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK",
		"MV2_COMM_WORLD_RANK", "MPI_RANKID", "PALS_RANKID",
		"ALPS_APP_PE", "JSM_NAMESPACE_RANK", "FLUX_TASK_RANK",
		"SLURM_PROCID",
	};
	size_t i;

	G.rank = -1;
	for (i = 0; i < sizeof(vars) / sizeof(*vars); i++) {
		const char *v = getenv(vars[i]);

		if (v && *v && isdigit((unsigned char)*v)) {
			G.rank = atoi(v);
			return;
		}
	}
}

/* Records every file starts with: "[", HH, thread_name, FH of the working
 * directory, SH of the command line and exec name, start. */
static void write_header(void)
{
	struct dft_thread *t = dft_self();
	char num[32], date[64];
	char cmdh[17], exech[17];
	struct dft_file *cwd;
	struct tm tm;
	time_t now = G.start_time;
	int args;
	long long id;

	if (!t)
		return;
	t->n = 0;
	DFT_LIT(t, "[\n");
	commit(t);
	ev_meta(t, "HH", G.host, 1, G.hhash);
	snprintf(num, sizeof(num), "%d", (int)G.pid);
	ev_meta(t, "thread_name", num, 0, "thread_name");
	{
		char *c = atomic_load(&dft_hot.cwd)->path;

		cwd = intern(c, strlen(c));
	}
	dft_hash16(G.cmd, strlen(G.cmd), cmdh);
	dft_hash16(G.exec_name, strlen(G.exec_name), exech);
	ev_meta(t, "SH", G.cmd, 1, cmdh);
	if (strcmp(G.cmd, G.exec_name) != 0)
		ev_meta(t, "SH", G.exec_name, 1, exech);
	if (G.rank < 0)		/* no launcher said: ask MPI, if it is up */
		G.rank = dft_mpi_rank();
	if (G.rank >= 0) {
		char r[32], rn[48];

		snprintf(r, sizeof(r), "%d", G.rank);
		snprintf(rn, sizeof(rn), "Rank %d", G.rank);
		ev_meta(t, "PR", "rank", 0, r);
		ev_meta(t, "process_name", rn, 0, "process_name");
	}
	localtime_r(&now, &tm);
	asctime_r(&tm, date);
	date[strcspn(date, "\n")] = '\0';
	id = dft_next_id();
	args = ev_begin(t, id, "start", "dftracer", G.start_ts, 0);
	if (args) {
		DFT_LIT(t, ",\"p_idx\":-1,\"level\":1");
		ev_int(t, "ppid", (long long)getppid());
		ev_hash(t, "cmd_hash", cmdh);
		ev_hash(t, "exec_hash", exech);
		ev_int(t, "version", DFT_RT_VERSION_INT);
		ev_str(t, "date", date);
		if (cwd)
			ev_hash(t, "cwd", cwd->hash);
	}
	ev_end(t, args);
	pthread_mutex_lock(&t->buf->lock);
	tbuf_flush_locked(t->buf);
	pthread_mutex_unlock(&t->buf->lock);
}

static void set_switches(void)
{
	int on = G.inited && !G.finalized;

	dft_on_any = on;
	dft_on_posix = on && G.bind && G.io && G.posix && dft_fds;
	dft_on_stdio = on && G.bind && G.io && G.stdio && dft_fds;
}

static void at_exit(void)
{
	dft_fini();
}

/* Takes a lock from a signal handler without risking a deadlock: gives up
 * after about a second. */
static int sig_lock(pthread_mutex_t *m)
{
	struct timespec ms = { 0, 1000000 };
	int i;

	for (i = 0; i < 1000; i++) {
		if (pthread_mutex_trylock(m) == 0)
			return 0;
		nanosleep(&ms, NULL);
	}
	return -1;
}

/*
 * A fatal signal with DFTRACER_BIND_SIGNALS=1: let the writer finish its
 * queue, write every buffer that is not in use, then the end event and
 * "]", and let the signal take its course.  Best effort: locks are only
 * tried, never waited for indefinitely.
 */
static void on_signal(int sig)
{
	int saved = errno;

	if (G.inited && !G.finalized && !dft_pending &&
	    getpid() == G.ospid) {
		struct timespec ms = { 0, 1000000 };
		struct dft_thread *t = t_self;
		int i;

		dft_guard++;
		dft_on_posix = dft_on_stdio = dft_on_any = 0;
		for (i = 0; i < 1000 && W.started && W.pending > 0; i++)
			nanosleep(&ms, NULL);
		if (sig_lock(&G.file_lock) == 0) {
			for (struct dft_tbuf *b = G.bufs; b; b = b->next) {
				if (pthread_mutex_trylock(&b->lock) != 0)
					continue;
				out_write(b->data, b->len);
				b->len = 0;
				pthread_mutex_unlock(&b->lock);
			}
			if (t && t->gen == G.gen) {
				long long id;
				uint64_t now = dft_now();
				int k = t->depth > DFT_DEPTH ? DFT_DEPTH : t->depth;

				while (--k >= 0) {	/* the regions left open */
					struct dft_region *r = t->stack[k];

					if (!r || r->emitted)
						continue;
					region_format(t, r, now);
					if (!t->overflow)
						out_write(t->line, t->n);
					r->emitted = 1;
				}
				id = dft_next_id();
				int args = ev_begin(t, id, "end", "dftracer",
						    dft_now(), 0);

				if (args) {
					DFT_LIT(t, ",\"p_idx\":-1,\"level\":1");
					ev_int(t, "num_events", id - 1);
				}
				if (args)
					DFT_LIT(t, "}}\n]");
				else
					DFT_LIT(t, "}\n]");
				out_write(t->line, t->n);
				t->n = 0;
			}
			G.finalized = 1;
			pthread_mutex_unlock(&G.file_lock);
		}
	}
	errno = saved;
	signal(sig, SIG_DFL);
	raise(sig);
}

static void bind_signals(void)
{
	static const int sigs[] = { SIGSEGV, SIGABRT, SIGHUP, SIGTERM, SIGINT,
				    SIGBUS, SIGFPE, SIGILL, SIGUSR1 };
	size_t i;

	for (i = 0; i < sizeof(sigs) / sizeof(*sigs); i++) {
		struct sigaction sa, old;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_signal;
		sigemptyset(&sa.sa_mask);
		sa.sa_flags = SA_RESETHAND;
		if (sigaction(sigs[i], NULL, &old) == 0 &&
		    old.sa_handler != SIG_DFL)
			continue;	/* keep the application's handler */
		sigaction(sigs[i], &sa, NULL);
	}
}

/*
 * Tracing begins at initialisation (ids, the start time), but the file is
 * opened and its header written at the first record (dft_pending_start):
 * a process that traces nothing, like a shell that only forks and execs,
 * leaves no file, as dftracer deletes its near-empty files.
 */
static void begin_trace(void)
{
	atomic_store(&G.next_id, 1);
	pthread_mutex_lock(&W.lock);
	W.stop = 0;
	pthread_mutex_unlock(&W.lock);
	G.start_ts = dft_now();
	G.start_time = time(NULL);
	G.gen++;
	dft_gen = G.gen;
	G.inited = 1;
	G.finalized = 0;
	dft_pending = 1;
	set_switches();
}

static int open_and_write_header(void)
{
	if (open_trace() < 0)
		return -1;
	if (G.compress && !G.z_ready) {
		memset(&G.z, 0, sizeof(G.z));
		if (deflateInit2(&G.z, Z_BEST_SPEED, Z_DEFLATED, 31, 8,
				 Z_DEFAULT_STRATEGY) == Z_OK)
			G.z_ready = 1;
		else
			G.compress = 0;
	}
	write_header();
	return 0;
}

void dft_init(const char *log_file, const char *data_dirs, const int *pid,
	      int bind, const char *suffix)
{
	const char *v;

	if (!env_is("DFTRACER_ENABLE", "1"))
		return;
	dft_guard++;
	pthread_mutex_lock(&G.init_lock);
	if (G.inited) {
		if (bind && !G.bind && !G.finalized) {
			G.bind = 1;
			set_switches();
		}
		goto out;
	}
	if (!G.key_made && pthread_key_create(&G.key, thread_exit) == 0)
		G.key_made = 1;
	dft_hot.cwd = dup_cwd();
	read_config(data_dirs);
	G.bind = bind;
	G.pid_given = pid && *pid >= 0;
	G.ospid = getpid();
	G.pid = G.pid_given ? (pid_t)*pid : G.ospid;
	if (gethostname(G.host, sizeof(G.host)) != 0)
		strcpy(G.host, "localhost");
	G.host[sizeof(G.host) - 1] = '\0';
	dft_hash16(G.host, strlen(G.host), G.hhash);
	snprintf(G.suffix, sizeof(G.suffix), "%s", suffix);
	read_cmdline();
	rank_from_env();
	if (log_file && *log_file) {
		char *dot, *slash;

		snprintf(G.prefix, sizeof(G.prefix), "%s", log_file);
		dot = strrchr(G.prefix, '.');
		slash = strrchr(G.prefix, '/');
		if (dot && (!slash || dot > slash + 1))
			*dot = '\0';
		G.explicit_log = 1;
	} else {
		v = getenv("DFTRACER_LOG_FILE");
		snprintf(G.prefix, sizeof(G.prefix), "%s",
			 v && *v ? v : "./trace");
		G.explicit_log = 0;
	}
	fds_alloc();
	begin_trace();
	if (!G.atexit_done) {
		atexit(at_exit);
		G.atexit_done = 1;
	}
	if (!G.atfork_done) {
		pthread_atfork(dft_fork_prepare, dft_fork_parent, dft_fork_child);
		G.atfork_done = 1;
	}
	if (G.bind_signals)
		bind_signals();
out:
	pthread_mutex_unlock(&G.init_lock);
	dft_guard--;
}

void dft_fini(void)
{
	struct dft_thread *t;
	int args;

	dft_guard++;
	pthread_mutex_lock(&G.init_lock);
	if (!G.inited || G.finalized || getpid() != G.ospid)
		goto out;
	G.finalized = 1;
	set_switches();
	if (dft_pending) {	/* a process that traced nothing: no file */
		dft_pending = 0;
		goto out;
	}
	t = dft_self();
	/* everything else first, so "end" and "]" close the file */
	writer_stop();
	pthread_mutex_lock(&G.reg_lock);
	for (struct dft_tbuf *b = G.bufs; b; b = b->next) {
		if (t && b == t->buf)
			continue;
		pthread_mutex_lock(&b->lock);
		tbuf_flush_locked(b);
		pthread_mutex_unlock(&b->lock);
	}
	pthread_mutex_unlock(&G.reg_lock);
	if (t) {
		long long id;
		uint64_t now = dft_now();

		agg_flush_thread(t);
		/* regions this thread left open (exit inside a function): write
		 * them as they stand, so their I/O has its parents */
		for (int k = (t->depth > DFT_DEPTH ? DFT_DEPTH : t->depth) - 1;
		     k >= 0; k--) {
			struct dft_region *r = t->stack[k];

			if (r && !r->emitted) {
				region_emit(t, r, now);
				r->emitted = 1;
			}
		}
		id = dft_next_id();
		args = ev_begin(t, id, "end", "dftracer", dft_now(), 0);
		if (args) {
			DFT_LIT(t, ",\"p_idx\":-1,\"level\":1");
			ev_int(t, "num_events", id - 1);
		}
		ev_end(t, args);
		t->n = 0;
		DFT_LIT(t, "]");
		commit(t);
		pthread_mutex_lock(&t->buf->lock);
		tbuf_flush_locked(t->buf);
		pthread_mutex_unlock(&t->buf->lock);
	}
	pthread_mutex_lock(&G.file_lock);
	if (G.fd >= 0)
		syscall(SYS_close, G.fd);
	G.fd = -1;
	pthread_mutex_unlock(&G.file_lock);
out:
	pthread_mutex_unlock(&G.init_lock);
	dft_guard--;
}

/* ---- process lifecycle -------------------------------------------------- */

static void renumber_open_regions(void);

void dft_fork_prepare(void)
{
	/* keep the child from inheriting a lock held mid-flush */
	pthread_mutex_lock(&G.init_lock);
	pthread_mutex_lock(&G.intern_lock);
	pthread_mutex_lock(&G.file_lock);
	pthread_mutex_lock(&W.lock);
}

void dft_fork_parent(void)
{
	pthread_mutex_unlock(&W.lock);
	pthread_mutex_unlock(&G.file_lock);
	pthread_mutex_unlock(&G.intern_lock);
	pthread_mutex_unlock(&G.init_lock);
}

/* The child gets its own trace file with its own header; buffers inherited
 * from the parent belong to the parent's file and are dropped. */
void dft_fork_child(void)
{
	struct dft_tbuf *b, *next;

	pthread_mutex_init(&G.file_lock, NULL);
	pthread_mutex_init(&G.intern_lock, NULL);
	pthread_mutex_init(&G.init_lock, NULL);
	pthread_mutex_init(&G.reg_lock, NULL);
	writer_reset_child();
	if (!G.inited || G.finalized) {
		G.inited = 0;
		set_switches();
		return;
	}
	for (b = G.bufs; b; b = next) {
		next = b->next;
		blk_free(b->data, b->cap);
		free(b);
	}
	G.bufs = NULL;
	if (t_self) {
		t_self->buf = NULL;
		/* the open aggregated records are the parent's */
		for (unsigned i = 0; i < t_self->fncap; i++)
			t_self->fns[i].cnt = 0;
	}
	if (G.fd >= 0)
		syscall(SYS_close, G.fd);
	G.fd = -1;
	G.ospid = getpid();
	if (!G.pid_given)
		G.pid = G.ospid;
	G.inited = 0;
	set_switches();
	/* the file opens at the child's first event (dft_pending_start); a
	 * child forked before its parent traced anything keeps the list */
	if (!dft_pending) {
		G.child_old = G.tab;
		G.child_oldcap = G.tabcap;
		G.tab = NULL;
		G.tabcap = G.tabn = 0;
	}
	G.forked = 1;
	begin_trace();
}

void dft_pending_start(void)
{
	dft_guard++;
	pthread_mutex_lock(&G.init_lock);
	if (dft_pending && G.inited && !G.finalized && getpid() == G.ospid) {
		struct dft_file **old = G.child_old;
		size_t i;

		G.child_old = NULL;
		if (open_and_write_header() == 0) {
			/* a child's file names every file it may reference */
			if (old)
				for (i = 0; i < G.child_oldcap; i++)
					if (old[i])
						reintern(old[i]);
			if (G.forked)
				renumber_open_regions();
		} else {
			G.finalized = 1;
			set_switches();
		}
		/* only now: other threads wait here until the header is out */
		dft_pending = 0;
		free(old);
	}
	pthread_mutex_unlock(&G.init_lock);
	dft_guard--;
}

/* The regions the forking thread is inside continue in the child; they
 * get ids in the child's file so its events have their parents there. */
static void renumber_open_regions(void)
{
	struct dft_thread *t = t_self;
	int k, n;

	if (!t)
		return;
	n = t->depth > DFT_DEPTH ? DFT_DEPTH : t->depth;
	for (k = 0; k < n; k++) {
		struct dft_region *r = t->stack[k];

		r->id = dft_next_id();
		r->p_idx = k > 0 ? t->stack[k - 1]->id : -1;
		r->level = k + 1;
		r->emitted = 0;
	}
}

/* exit paths that skip atexit: _exit, _Exit */
void dft_exit_hook(void)
{
	if (G.inited && !G.finalized && getpid() == G.ospid)
		dft_fini();
}

/* exec replaces the image: write out what is buffered first */
void dft_exec_hook(void)
{
	if (G.inited && !G.finalized && !dft_pending &&
	    getpid() == G.ospid) {
		dft_guard++;
		if (t_self && t_self->gen == G.gen)
			agg_flush_thread(t_self);
		dft_guard--;
		dft_flush_all(0);
	}
}

/* ---- the throttle ------------------------------------------------------- */

/*
 * TAU's throttle, applied by the runtime itself: a function (name and
 * category) that has had DFTRACER_THROTTLE_CALLS complete events on a
 * thread with a mean duration under DFTRACER_THROTTLE_US stops getting
 * complete events there.  Its calls are folded into one dftracer 2.0.x
 * aggregated record per DFTRACER_TRACE_INTERVAL_MS interval ("ph":"C",
 * args.dft_cnt and dur_min/_max/_sum; ts is the start of the first call
 * folded in, not the interval's start, so that the trace's span stays that
 * of the run), so a
 * first traced run of a program with a two-million-call helper stays
 * small.  The tables are per thread: no locks.
 */
#define DFT_FN_MAX 4096		/* functions tracked per thread */

static uint64_t fn_hash(const char *name, const char *cat)
{
	uint64_t h = 1469598103934665603ull;
	const unsigned char *p;

	for (p = (const unsigned char *)name; *p; p++)
		h = (h ^ *p) * 1099511628211ull;
	h = (h ^ 0xff) * 1099511628211ull;
	for (p = (const unsigned char *)cat; *p; p++)
		h = (h ^ *p) * 1099511628211ull;
	return h ? h : 1;
}

static int fn_grow(struct dft_thread *t)
{
	unsigned cap = t->fncap ? t->fncap * 2 : 64, i;
	struct dft_fnstat *nt = calloc(cap, sizeof(*nt));

	if (!nt)
		return -1;
	for (i = 0; i < t->fncap; i++) {
		unsigned j;

		if (!t->fns[i].hash)
			continue;
		for (j = (unsigned)t->fns[i].hash & (cap - 1); nt[j].hash;
		     j = (j + 1) & (cap - 1))
			;
		nt[j] = t->fns[i];
	}
	free(t->fns);
	t->fns = nt;
	t->fncap = cap;
	return 0;
}

/* The slot of (name, cat) on this thread, made on first use; -1 when the
 * table is full or out of memory (the function is then never throttled). */
static int fn_slot(struct dft_thread *t, const char *name, const char *cat,
		   uint64_t h)
{
	unsigned i;

	if (t->fncap == 0 && fn_grow(t) < 0)
		return -1;
	for (i = (unsigned)h & (t->fncap - 1); t->fns[i].hash;
	     i = (i + 1) & (t->fncap - 1))
		if (t->fns[i].hash == h && strcmp(t->fns[i].name, name) == 0 &&
		    strcmp(t->fns[i].cat, cat) == 0)
			return (int)i;
	if (t->fnn >= DFT_FN_MAX)
		return -1;
	if ((t->fnn + 1) * 2 > t->fncap) {
		if (fn_grow(t) < 0)
			return -1;
		return fn_slot(t, name, cat, h);
	}
	t->fns[i].name = strdup(name);
	t->fns[i].cat = strdup(cat);
	if (!t->fns[i].name || !t->fns[i].cat) {
		free(t->fns[i].name);
		free(t->fns[i].cat);
		t->fns[i].name = t->fns[i].cat = NULL;
		return -1;
	}
	t->fns[i].hash = h;
	t->fnn++;
	return (int)i;
}

/* the entry a handle refers to, if it is still there on this thread */
static struct dft_fnstat *fn_at(struct dft_thread *t, int slot, uint64_t h)
{
	if (!t || slot < 0 || (unsigned)slot >= t->fncap ||
	    t->fns[slot].hash != h)
		return NULL;
	return &t->fns[slot];
}

/* Writes e's open aggregated record.  Caller holds the guard. */
static void agg_flush(struct dft_thread *t, struct dft_fnstat *e)
{
	if (!e->cnt)
		return;
	t->n = 0;
	t->overflow = 0;
	DFT_LIT(t, "{\"name\":");
	put_str(t, e->name, 0);
	DFT_LIT(t, ",\"cat\":");
	put_str(t, e->cat, 0);
	DFT_LIT(t, ",\"ts\":");
	put_u64(t, e->first);
	DFT_LIT(t, ",\"ph\":\"C\"");
	ev_raw(t, t->pidtid, t->pidtid_len);
	/* always with args: without dft_cnt a reader sees a counter */
	DFT_LIT(t, ",\"args\":{\"hhash\":\"");
	ev_raw(t, G.hhash, 16);
	DFT_LIT(t, "\",\"dft_cnt\":");
	put_u64(t, e->cnt);
	DFT_LIT(t, ",\"dur_min\":");
	put_u64(t, e->dmin);
	DFT_LIT(t, ",\"dur_max\":");
	put_u64(t, e->dmax);
	DFT_LIT(t, ",\"dur_sum\":");
	put_u64(t, e->dsum);
	DFT_LIT(t, "}}\n");
	e->cnt = 0;
	if (t->overflow) {
		t->n = 0;
		t->overflow = 0;
		return;
	}
	commit(t);
}

static void agg_flush_thread(struct dft_thread *t)
{
	unsigned i;

	if (!t || !t->buf)
		return;
	for (i = 0; i < t->fncap; i++)
		if (t->fns[i].hash && t->fns[i].cnt)
			agg_flush(t, &t->fns[i]);
}

/* a throttled call ends: into the interval's record */
static void agg_add(struct dft_thread *t, struct dft_aregion *a)
{
	struct dft_fnstat *e = fn_at(t, a->slot, a->fhash);
	uint64_t end = dft_now(), dur = end - a->ts, iv;

	if (!e || a->t != t || !t->buf)
		return;
	iv = a->ts / G.interval_us;
	if (e->cnt && iv != e->iv)
		agg_flush(t, e);
	if (!e->cnt) {
		e->iv = iv;
		e->first = a->ts;
		e->dmin = e->dmax = dur;
		e->dsum = 0;
	}
	e->cnt++;
	e->dsum += dur;
	if (dur < e->dmin)
		e->dmin = dur;
	if (dur > e->dmax)
		e->dmax = dur;
}

/* a complete event was written: count it, throttle past the limit */
static void fn_count(struct dft_thread *t, struct dft_region *r, uint64_t dur)
{
	struct dft_fnstat *e = fn_at(t, r->slot, r->fhash);

	if (!e)
		return;
	e->calls++;
	e->dur_sum += dur;
	if (e->calls >= G.throttle_calls &&
	    e->dur_sum < e->calls * G.throttle_us) {
		e->throttled = 1;
		rt_msg(LOG_INFO, "throttled %s (%s): %llu calls, mean %.1f us",
		       e->name, e->cat, (unsigned long long)e->calls,
		       (double)e->dur_sum / (double)e->calls);
	}
}

/* ---- regions (the dftracer C API) --------------------------------------- */

/* Appends a rendered pair whose key part (,"key":) is klen bytes long,
 * replacing an earlier pair with the same key. */
static void region_args_add(struct dft_region *r, const char *frag, size_t n,
			    size_t klen)
{
	size_t i;

	for (i = 0; i < r->npairs; i++) {
		size_t s = r->poff[i];
		size_t e = i + 1 < r->npairs ? r->poff[i + 1] : r->alen;

		if (e - s >= klen && memcmp(r->args + s, frag, klen) == 0) {
			memmove(r->args + s, r->args + e, r->alen - e);
			r->alen -= e - s;
			for (size_t j = i + 1; j < r->npairs; j++)
				r->poff[j - 1] = r->poff[j] - (e - s);
			r->npairs--;
			break;
		}
	}
	if (r->npairs == r->pcap) {
		size_t cap = r->pcap ? r->pcap * 2 : 8;
		size_t *p = realloc(r->poff, cap * sizeof(*p));

		if (!p)
			return;
		r->poff = p;
		r->pcap = cap;
	}
	if (r->alen + n + 1 > r->acap) {
		size_t cap = r->acap ? r->acap * 2 : 128;
		char *p;

		while (cap < r->alen + n + 1)
			cap *= 2;
		p = realloc(r->args, cap);
		if (!p)
			return;
		r->args = p;
		r->acap = cap;
	}
	r->poff[r->npairs++] = r->alen;
	memcpy(r->args + r->alen, frag, n);
	r->alen += n;
}

/* Renders one ,"key":value pair through the thread's line scratch. */
static void region_update(struct DFTracerData *d, const char *key,
			  const char *sval, long long ival, double dval,
			  int kind)
{
	struct dft_region *r = (struct dft_region *)d;
	struct dft_thread *t;
	size_t save, klen;

	if (!r || !key || r->magic != DFT_R_FULL || r->meta || !G.metadata ||
	    !dft_on_any || dft_guard)
		return;
	dft_guard++;
	DFT_PENDING_CHECK();
	t = dft_self();
	if (!t) {
		dft_guard--;
		return;
	}
	save = t->n;
	put_key(t, key);
	klen = t->n - save;
	if (kind == 0) {
		put_i64(t, ival);
	} else if (kind == 1) {
		put_str(t, sval ? sval : "", 0);
	} else {
		char num[64];

		snprintf(num, sizeof(num), "%.17g", dval);
		if (strpbrk(num, "ni"))		/* nan, inf: not JSON */
			strcpy(num, "null");
		else if (!strpbrk(num, ".e"))	/* keep it a float */
			strcat(num, ".0");
		ev_raw(t, num, strlen(num));
	}
	if (!t->overflow)
		region_args_add(r, t->line + save, t->n - save, klen);
	t->n = save;
	t->overflow = 0;
	dft_guard--;
}

DFT_API struct DFTracerData *initialize_region(const char *name,
					       const char *cat, int event_type)
{
	struct dft_region *r;
	struct dft_thread *t;
	int slot = -1;
	uint64_t h = 0;

	if (!dft_on_any)
		return NULL;
	/* called while the tracer works (a library the tracer itself uses,
	 * a signal handler): pass through */
	if (DFT_UNLIKELY(dft_guard))
		return NULL;
	dft_guard++;
	DFT_PENDING_CHECK();
	t = dft_self();
	if (!t || !dft_on_any)
		goto none;
	if (!name)
		name = "";
	if (!cat)
		cat = "";
	if (G.throttle_calls && event_type != DF_METADATA_EVENT) {
		h = fn_hash(name, cat);
		slot = fn_slot(t, name, cat, h);
		if (slot >= 0 && t->fns[slot].throttled) {
			struct dft_aregion *a = malloc(sizeof(*a));

			if (!a)
				goto none;
			a->pub.profiler = a;
			a->magic = DFT_R_AGG;
			a->slot = slot;
			a->fhash = h;
			a->t = t;
			a->ts = dft_now();
			dft_guard--;
			return &a->pub;
		}
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		goto none;
	r->magic = DFT_R_FULL;
	r->slot = slot;
	r->fhash = h;
	r->name = strdup(name);
	r->cat = strdup(cat);
	r->meta = event_type == DF_METADATA_EVENT;
	if (!r->meta) {
		r->id = dft_next_id();
		r->level = t->depth + 1;
		r->p_idx = top_id(t);
		if (t->depth < DFT_DEPTH)
			t->stack[t->depth] = r;
		t->depth++;
		r->ts = dft_now();
	}
	r->pub.profiler = r;
	dft_guard--;
	return &r->pub;
none:
	dft_guard--;
	return NULL;
}

/* Formats a region's event into t->line; returns whether it has args. */
static int region_format(struct dft_thread *t, struct dft_region *r,
			 uint64_t end)
{
	int args = ev_begin(t, r->id, r->name, r->cat, r->ts, end - r->ts);

	if (args) {
		DFT_LIT(t, ",\"p_idx\":");
		put_i64(t, r->p_idx);
		DFT_LIT(t, ",\"level\":");
		put_i64(t, r->level);
		if (r->alen)
			ev_raw(t, r->args, r->alen);
		DFT_LIT(t, "}}\n");
	} else {
		DFT_LIT(t, "}\n");
	}
	return args;
}

static void region_emit(struct dft_thread *t, struct dft_region *r,
			uint64_t end)
{
	region_format(t, r, end);
	if (t->overflow) {
		t->n = 0;
		t->overflow = 0;
		return;
	}
	commit(t);
}

DFT_API void finalize_region(struct DFTracerData *d)
{
	struct dft_region *r = (struct dft_region *)d;
	struct dft_thread *t;
	int quiet;

	if (!r)
		return;
	if (r->magic == DFT_R_AGG) {
		if (dft_on_any && !dft_guard) {
			dft_guard++;
			agg_add(t_self, (struct dft_aregion *)r);
			dft_guard--;
		}
		free(r);
		return;
	}
	/* inside the tracer (a signal handler that interrupted it): the
	 * region is dropped, not written */
	quiet = dft_guard || !dft_on_any;
	dft_guard++;
	if (!quiet)
		DFT_PENDING_CHECK();
	t = dft_self();
	if (r->meta) {
		if (t && !quiet && dft_on_any)
			ev_meta(t, "CM", r->name, 0, r->cat);
	} else {
		uint64_t end = dft_now();

		if (t && t->depth > 0)
			t->depth--;
		if (t && !quiet && dft_on_any && !r->emitted) {
			region_emit(t, r, end);
			if (G.throttle_calls)
				fn_count(t, r, end - r->ts);
		}
	}
	dft_guard--;
	free(r->name);
	free(r->cat);
	free(r->args);
	free(r->poff);
	free(r);
}

DFT_API void finalize_region_cleanup(struct DFTracerData **d)
{
	if (d && *d) {
		finalize_region(*d);
		*d = NULL;
	}
}

DFT_API void update_metadata_int(struct DFTracerData *d, const char *key,
				 int value)
{
	region_update(d, key, NULL, value, 0, 0);
}

DFT_API void update_metadata_string(struct DFTracerData *d, const char *key,
				    const char *value)
{
	region_update(d, key, value, 0, 0, 1);
}

DFT_API void update_metadata_int_type(struct DFTracerData *d, const char *key,
				      int value, int type)
{
	if (type != MT_IGNORE)
		region_update(d, key, NULL, value, 0, 0);
}

DFT_API void update_metadata_string_type(struct DFTracerData *d,
					 const char *key, const char *value,
					 int type)
{
	if (type != MT_IGNORE)
		region_update(d, key, value, 0, 0, 1);
}

DFT_API void initialize_main(const char *log_file, const char *data_dirs,
			     int *process_id)
{
	const char *mode = getenv("DFTRACER_INIT");

	if (mode && *mode && strcmp(mode, "FUNCTION") != 0)
		return;		/* PRELOAD: the preload library owns init */
	dft_init(log_file, data_dirs, process_id, 1, "app");
}

DFT_API void initialize_no_bind(const char *log_file, const char *data_dirs,
				int *process_id)
{
	const char *mode = getenv("DFTRACER_INIT");

	if (mode && *mode && strcmp(mode, "FUNCTION") != 0)
		return;
	dft_init(log_file, data_dirs, process_id, 0, "app");
}

DFT_API void finalize(void)
{
	dft_fini();
}

/* ---- extras for the Python package (not in dftracer's header) ----------- */

DFT_API int dft_rt_present(void)
{
	return DFT_RT_VERSION_INT;
}

DFT_API int dft_rt_active(void)
{
	return dft_on_any;
}

/* Initialises without interception (Python): suffix "app". */
DFT_API void dft_rt_initialize(const char *log_file, const char *data_dirs,
			       int process_id)
{
	int pid = process_id;

	dft_init(log_file, data_dirs, &pid, 0, "app");
}

DFT_API unsigned long long dft_rt_get_time(void)
{
	return dft_now();
}

DFT_API void dft_rt_update_double(struct DFTracerData *d, const char *key,
				  double value)
{
	region_update(d, key, NULL, 0, value, 2);
}

/* A complete event with explicit times; args is a rendered fragment of
 * ,"key":value pairs (may be NULL). */
DFT_API void dft_rt_log_event(const char *name, const char *cat,
			      unsigned long long ts, unsigned long long dur,
			      const char *args)
{
	struct dft_thread *t;
	int a;

	if (!dft_on_any || dft_guard)
		return;
	dft_guard++;
	DFT_PENDING_CHECK();
	if ((t = dft_self()) && dft_on_any) {
		a = ev_begin(t, dft_next_id(), name ? name : "",
			     cat ? cat : "", ts, dur);
		if (a) {
			ev_plevel(t);
			if (args)
				ev_raw(t, args, strlen(args));
		}
		ev_end(t, a);
	}
	dft_guard--;
}

DFT_API void dft_rt_log_metadata(const char *key, const char *value)
{
	struct dft_thread *t;

	if (!dft_on_any || dft_guard)
		return;
	dft_guard++;
	DFT_PENDING_CHECK();
	if ((t = dft_self()) && dft_on_any)
		ev_meta(t, "CM", key ? key : "", 0, value ? value : "");
	dft_guard--;
}

/* The 16-hex-digit dftracer 2.0.x hash of a string (tests, Python). */
DFT_API void dft_rt_hash(const char *s, char out[17])
{
	dft_hash16(s ? s : "", s ? strlen(s) : 0, out);
}
