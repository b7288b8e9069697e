/*
 * writer.c - the trace writer of the bundled runtime: event lines, thread
 * buffers, the background writer, compression and the trace file.
 *
 * Every thread formats its events into its own line scratch and
 * appends them to its own buffer (a per-buffer lock flag that only
 * finalize, fork and signals ever contend for).  When a buffer reaches
 * DFTRACER_WRITE_BUFFER_SIZE it is written to the trace under the file
 * lock, deflated as independent gzip members of whole lines when
 * compression is on, so a file cut short by a
 * crash or SIGKILL stays readable up to its last flush.  The file header
 * ("[" and the init records) is the writer's first job, so it always comes
 * first; the writer creates the file then, off the traced thread;
 * finalize appends the end event and "]".
 *
 * Internal I/O uses raw system calls, never the intercepted libc symbols.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <zlib.h>

#include "../include/dftracer/dftracer.h"
#include "internal.h"
#include "core.h"

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
_Static_assert(DFT_BLOCK0 == DFT_CHUNK, "buf_alloc gives DFT_CHUNK bytes");

/*
 * The blocks, zlib's memory and the tracer's small mappings (a thread's
 * state and tables, blk_alloc up to DFT_ZSLOT) come from one mapping made
 * at the first use (INIT, or the first record: usually while the process
 * has one thread): an mmap or munmap at a thread's first record, or at its
 * exit, takes the address space's lock for writing while the program's
 * other threads fault pages in under it (lz4's decompressor: 4 MiB
 * buffers, three threads), and each that waits sleeps and is woken again:
 * in 20 traced runs 83 such waits, 190 with a mapping for each thread's
 * state, 0 untraced.  A block of the pool freed goes back to it (its pages
 * stay, hot); a small slot is given back to the kernel first (madvise,
 * which takes that lock only for reading), so it is zero again as a fresh
 * mapping is; past the pool's slots each is mapped alone.
 */
#define DFT_POOL 16
#define DFT_ZMEM (512u << 10)
#define DFT_ZSLOT (64u << 10)
#define DFT_ZSLOTS 64

static struct {
	char *base;		/* DFT_POOL blocks of DFT_CHUNK, zlib's, then
				 * DFT_ZSLOTS slots of DFT_ZSLOT */
	char *slots;
	atomic_uint used;	/* bit k: block k is taken */
	atomic_uint touched;	/* bit k: block k was handed out before */
	atomic_ullong zused;	/* bit k: slot k is taken */
	atomic_int state;	/* 0 not yet, 1 mapping, 2 mapped, -1 failed */
} P;

static char *pool(void)
{
	int s = atomic_load_explicit(&P.state, memory_order_acquire);

	if (s == 0 && atomic_compare_exchange_strong(&P.state, &s, 1)) {
		size_t big = (size_t)DFT_POOL * DFT_CHUNK + DFT_ZMEM;
		void *p = (void *)syscall(SYS_mmap, NULL,
					  big + (size_t)DFT_ZSLOTS * DFT_ZSLOT,
					  PROT_READ | PROT_WRITE,
					  MAP_PRIVATE | MAP_ANONYMOUS |
						  MAP_NORESERVE, -1, 0);

		P.base = p == MAP_FAILED ? NULL : p;
		P.slots = P.base ? P.base + big : NULL;
		atomic_store_explicit(&P.state, P.base ? 2 : -1,
				      memory_order_release);
		return P.base;
	}
	return s == 2 ? P.base : NULL;	/* another thread mapping: not used */
}

/*
 * n bytes of zero memory, a fresh mapping (or a slot of the pool: see
 * above).  populate: fault every page in now (MAP_POPULATE).
 */
char *blk_alloc(size_t n, int populate)
{
	void *p;

	if (n <= DFT_ZSLOT && !populate && pool()) {
		unsigned long long u = atomic_load_explicit(&P.zused,
							    memory_order_relaxed);

		while (~u) {
			unsigned k = (unsigned)__builtin_ctzll(~u);

			if (atomic_compare_exchange_weak(&P.zused, &u,
							 u | (1ull << k)))
				return P.slots + (size_t)k * DFT_ZSLOT;
		}
	}
	p = (void *)syscall(SYS_mmap, NULL, n, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS |
			    (populate ? MAP_POPULATE : 0), -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

/*
 * A buffer's block (DFT_CHUNK bytes, not cleared: a block of the pool
 * handed out before holds old lines), from the pool while it has one.
 * populate: for the blocks of a thread that has filled one already, fault
 * every page in now; a thread's first block is faulted in as it fills:
 * populating 128 KiB cost ~80-110 us here (32 page faults done up front),
 * for a short process that writes a few KiB of events all of its life.
 * A block of the pool handed out before is faulted in already.
 */
static char *buf_alloc(int populate)
{
	char *base = pool();

	if (base) {
		unsigned u = atomic_load_explicit(&P.used, memory_order_relaxed);

		while (u != (1u << DFT_POOL) - 1) {
			unsigned k = (unsigned)__builtin_ctz(~u);

			if (atomic_compare_exchange_weak(&P.used, &u,
							 u | (1u << k))) {
				char *b = base + (size_t)k * DFT_CHUNK;
				unsigned was = atomic_fetch_or(&P.touched,
							       1u << k);

				if (populate && !(was & (1u << k)))
					syscall(SYS_madvise, b, DFT_CHUNK,
						MADV_POPULATE_WRITE);
				return b;
			}
		}
	}
	return blk_alloc(DFT_CHUNK, populate);
}

/* n bytes from blk_alloc or buf_alloc back */
void blk_free(char *p, size_t n)
{
	if (P.base && p >= P.base && p < P.base + (size_t)DFT_POOL * DFT_CHUNK) {
		atomic_fetch_and(&P.used,
				 ~(1u << (unsigned)((p - P.base) / DFT_CHUNK)));
	} else if (P.slots && p >= P.slots &&
		   p < P.slots + (size_t)DFT_ZSLOTS * DFT_ZSLOT) {
		/* zero again for the next: the whole slot, whatever n says */
		syscall(SYS_madvise, p, DFT_ZSLOT, MADV_DONTNEED);
		atomic_fetch_and(&P.zused,
				 ~(1ull << (unsigned)((p - P.slots) / DFT_ZSLOT)));
	} else if (p) {
		syscall(SYS_munmap, p, n);
	}
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

static int tbuf_flush_async(struct dft_tbuf *b, int last);

/* A thread buffer's lock is held (by its owner, mid-event or waiting for
 * the writer): poll, sleeping, until it is free. */
void tb_lock_wait(struct dft_tbuf *b)
{
	struct timespec ts = { 0, 20000 };

	while (atomic_exchange_explicit(&b->lock, 1, memory_order_acquire))
		nanosleep(&ts, NULL);
}

/*
 * Nothing the tracer does inside an intercepted call may call malloc: a
 * signal handler that interrupts write() (async-signal-safe) may itself
 * call malloc, and would wait for good on an arena lock its own thread
 * holds.  A thread's state, its buffer's head and the writer's jobs come
 * from mmap (blk_alloc) or dft_perm; the first thread's state is static.
 * Dead buffers' heads are kept for the next threads (under reg_lock).
 */
static struct dft_thread thread0;
static atomic_int thread0_used;
static struct dft_tbuf *tb_spare;

/* b's head back for reuse; b->data already unmapped.  Caller holds
 * G.reg_lock, or is a forked child's only thread. */
void tbuf_release(struct dft_tbuf *b)
{
	b->next = tb_spare;
	tb_spare = b;
}

void thread_exit(void *p)
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
	tb_lock(b);
	if (b->len)
		tbuf_flush_async(b, 1);
	b->dead = 1;
	tb_unlock(b);
	dft_guard--;
out:
	if (t_self == t)
		t_self = NULL;
	/* from now on finalize (others_open_regions) must not read t; the
	 * guard up while this thread holds the lock (on_term) */
	dft_guard++;
	pthread_mutex_lock(&G.reg_lock);
	if (t->buf && t->buf->owner == t)
		t->buf->owner = NULL;
	pthread_mutex_unlock(&G.reg_lock);
	dft_guard--;
	/* the names are interned, shared, kept */
	fn_free(t);
	dft_io_release(t);
	dft_model_free(t);
	region_thread_release(t);	/* its spare handles, for others */
	if (t != &thread0)
		blk_free((char *)t, sizeof(*t));
}

struct dft_thread *dft_thread_new(struct dft_thread *t)
{
	struct dft_tbuf *b;

	if (!t) {
		int no = 0;

		/* zero (static, or a fresh mapping) and touched as used: the
		 * 32 KiB line scratch only as long lines need it */
		if (atomic_compare_exchange_strong(&thread0_used, &no, 1))
			t = &thread0;
		else if (!(t = (struct dft_thread *)blk_alloc(sizeof(*t), 0)))
			return NULL;
		t_self = t;
	}
	pthread_mutex_lock(&G.reg_lock);
	if ((b = tb_spare))
		tb_spare = b->next;
	pthread_mutex_unlock(&G.reg_lock);
	if (!b && !(b = dft_perm(sizeof(*b))))
		return NULL;
	memset(b, 0, sizeof(*b));
	b->cap = DFT_BLOCK0;
	b->data = buf_alloc(0);
	if (!b->data) {
		pthread_mutex_lock(&G.reg_lock);
		tbuf_release(b);
		pthread_mutex_unlock(&G.reg_lock);
		return NULL;
	}
	t->buf = b;	/* depth survives fork: the child is still inside */
	b->owner = t;
	t->guardp = &dft_guard;
	t->n = 0;
	t->gen = G.gen;
	t->tid = G.tids ? (pid_t)syscall(SYS_gettid) : 0;
	t->pidtid_len = (unsigned)snprintf(t->pidtid, sizeof(t->pidtid),
					   ",\"pid\":%d,\"tid\":%d",
					   (int)G.pid, (int)t->tid);
	memset(t->hc, 0, sizeof(t->hc));	/* they hold pid and tid */
	/* a new generation may have a new configuration: dft_io_folded's
	 * hits stand for the old one */
	memset(t->fc, 0, sizeof(t->fc));
	t->iofn = t->iofc = NULL;
	pthread_mutex_lock(&G.reg_lock);
	/* drop buffers of exited threads that were already flushed */
	for (struct dft_tbuf **pp = &G.bufs; *pp;) {
		struct dft_tbuf *o = *pp;

		if (o->dead && o->len == 0) {
			*pp = o->next;
			blk_free(o->data, o->cap);
			tbuf_release(o);
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


static int trace_create(void);

/*
 * A gzip member holds at most this much input, cut after a newline:
 * below zlib's 64 KiB window-slide point (2 x 32 KiB - MIN_LOOKAHEAD),
 * so deflate never slides its window and rehashes (at level 1 that
 * slide was 40 % of the compression's instructions).
 */
#define DFT_MEMBER 65000u

/*
 * zlib's memory (its state, window and hash, ~150 KiB, and the output
 * buffer) comes from one mapping, the pool's end, faulted in as used and
 * never freed: the writer thread then never calls malloc, which would make
 * it a malloc arena of its own (a 128 MiB reservation, unmaps and four
 * mprotects, each a TLB shootdown to the traced thread's CPU).
 */

static struct {
	char *base;
	size_t used;
} ZM;

static voidpf z_alloc(voidpf opaque, uInt items, uInt size)
{
	size_t n = ((size_t)items * size + 63) & ~(size_t)63;
	char *p;

	(void)opaque;
	if (!ZM.base && pool())
		ZM.base = P.base + (size_t)DFT_POOL * DFT_CHUNK;
	if (!ZM.base) {
		p = (char *)syscall(SYS_mmap, NULL, DFT_ZMEM,
				    PROT_READ | PROT_WRITE,
				    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return Z_NULL;
		ZM.base = p;
	}
	if (n > DFT_ZMEM - ZM.used)
		return Z_NULL;
	p = ZM.base + ZM.used;
	ZM.used += n;
	return p;
}

static void z_free(voidpf opaque, voidpf p)
{
	(void)opaque;
	(void)p;	/* the compressor lives as long as the process */
}

static void zout_reserve(size_t n)
{
	if (n > G.zcap) {
		size_t want = deflateBound(&G.z, DFT_MEMBER) + 64;
		unsigned char *p;

		if (want < n)
			want = n;
		p = z_alloc(NULL, (uInt)want, 1);
		if (!p)
			return;
		G.zout = p;
		G.zcap = want;
	}
}


/*
 * CRC-32 of the gzip members.  zlib's (1.2.13 here) costs ~3.9
 * instructions a byte, a fifth of the writer's work on a trace of short
 * events; with PCLMULQDQ (glibc's CPU features say so: no CPUID, which
 * traps on some VMs) the 16-byte blocks are folded as Intel's "Fast CRC
 * Computation for Generic Polynomials Using PCLMULQDQ" (Gopal et al.,
 * 2009) shows, with its constants for the gzip polynomial, ~0.15 a byte;
 * zlib's takes the rest.
 */
#if (defined(__x86_64__) || defined(__i386__)) && \
	__has_include(<sys/platform/x86.h>)
#include <immintrin.h>
#include <sys/platform/x86.h>
#define DFT_CLMUL 1

/* the CRC register (inverted) after len bytes, len >= 64 and a multiple
 * of 16 */
__attribute__((target("pclmul,sse4.1"))) static uint32_t
crc_clmul(const unsigned char *buf, size_t len, uint32_t crc)
{
	static const uint64_t k1k2[2] __attribute__((aligned(16))) = { 0x0154442bd4, 0x01c6e41596 };
	static const uint64_t k3k4[2] __attribute__((aligned(16))) = { 0x01751997d0, 0x00ccaa009e };
	static const uint64_t k5k0[2] __attribute__((aligned(16))) = { 0x0163cd6124, 0x0000000000 };
	static const uint64_t poly[2] __attribute__((aligned(16))) = { 0x01db710641, 0x01f7011641 };
	__m128i x0, x1, x2, x3, x4, x5, x6, x7, x8, y5, y6, y7, y8;

	x1 = _mm_loadu_si128((const __m128i *)(buf + 0x00));
	x2 = _mm_loadu_si128((const __m128i *)(buf + 0x10));
	x3 = _mm_loadu_si128((const __m128i *)(buf + 0x20));
	x4 = _mm_loadu_si128((const __m128i *)(buf + 0x30));
	x1 = _mm_xor_si128(x1, _mm_cvtsi32_si128((int)crc));
	x0 = _mm_load_si128((const __m128i *)k1k2);
	buf += 64;
	len -= 64;
	while (len >= 64) {
		x5 = _mm_clmulepi64_si128(x1, x0, 0x00);
		x6 = _mm_clmulepi64_si128(x2, x0, 0x00);
		x7 = _mm_clmulepi64_si128(x3, x0, 0x00);
		x8 = _mm_clmulepi64_si128(x4, x0, 0x00);
		x1 = _mm_clmulepi64_si128(x1, x0, 0x11);
		x2 = _mm_clmulepi64_si128(x2, x0, 0x11);
		x3 = _mm_clmulepi64_si128(x3, x0, 0x11);
		x4 = _mm_clmulepi64_si128(x4, x0, 0x11);
		y5 = _mm_loadu_si128((const __m128i *)(buf + 0x00));
		y6 = _mm_loadu_si128((const __m128i *)(buf + 0x10));
		y7 = _mm_loadu_si128((const __m128i *)(buf + 0x20));
		y8 = _mm_loadu_si128((const __m128i *)(buf + 0x30));
		x1 = _mm_xor_si128(_mm_xor_si128(x1, x5), y5);
		x2 = _mm_xor_si128(_mm_xor_si128(x2, x6), y6);
		x3 = _mm_xor_si128(_mm_xor_si128(x3, x7), y7);
		x4 = _mm_xor_si128(_mm_xor_si128(x4, x8), y8);
		buf += 64;
		len -= 64;
	}
	x0 = _mm_load_si128((const __m128i *)k3k4);
	x5 = _mm_clmulepi64_si128(x1, x0, 0x00);
	x1 = _mm_clmulepi64_si128(x1, x0, 0x11);
	x1 = _mm_xor_si128(_mm_xor_si128(x1, x2), x5);
	x5 = _mm_clmulepi64_si128(x1, x0, 0x00);
	x1 = _mm_clmulepi64_si128(x1, x0, 0x11);
	x1 = _mm_xor_si128(_mm_xor_si128(x1, x3), x5);
	x5 = _mm_clmulepi64_si128(x1, x0, 0x00);
	x1 = _mm_clmulepi64_si128(x1, x0, 0x11);
	x1 = _mm_xor_si128(_mm_xor_si128(x1, x4), x5);
	while (len >= 16) {
		x2 = _mm_loadu_si128((const __m128i *)buf);
		x5 = _mm_clmulepi64_si128(x1, x0, 0x00);
		x1 = _mm_clmulepi64_si128(x1, x0, 0x11);
		x1 = _mm_xor_si128(_mm_xor_si128(x1, x2), x5);
		buf += 16;
		len -= 16;
	}
	x2 = _mm_clmulepi64_si128(x1, x0, 0x10);
	x3 = _mm_setr_epi32(~0, 0, ~0, 0);
	x1 = _mm_srli_si128(x1, 8);
	x1 = _mm_xor_si128(x1, x2);
	x0 = _mm_loadl_epi64((const __m128i *)k5k0);
	x2 = _mm_srli_si128(x1, 4);
	x1 = _mm_and_si128(x1, x3);
	x1 = _mm_clmulepi64_si128(x1, x0, 0x00);
	x1 = _mm_xor_si128(x1, x2);
	x0 = _mm_load_si128((const __m128i *)poly);
	x2 = _mm_and_si128(x1, x3);
	x2 = _mm_clmulepi64_si128(x2, x0, 0x10);
	x2 = _mm_and_si128(x2, x3);
	x2 = _mm_clmulepi64_si128(x2, x0, 0x00);
	x1 = _mm_xor_si128(x1, x2);
	return (uint32_t)_mm_extract_epi32(x1, 1);
}
#endif

static uLong dft_crc32(const char *data, size_t len)
{
	const unsigned char *p = (const unsigned char *)data;
	uLong crc = 0;

#ifdef DFT_CLMUL
	/* 0 not looked up, 1 no, 2 yes: the same answer whoever asks */
	static atomic_int have;
	int h = atomic_load_explicit(&have, memory_order_relaxed);

	if (!h) {
		h = CPU_FEATURE_ACTIVE(PCLMULQDQ) &&
			    CPU_FEATURE_ACTIVE(SSE4_1) ? 2 : 1;
		atomic_store_explicit(&have, h, memory_order_relaxed);
	}
	if (h == 2 && len >= 64) {
		size_t m = len & ~(size_t)15;

		crc = (uint32_t)~crc_clmul(p, m, 0xffffffffu);
		p += m;
		len -= m;
	}
#endif
	return len ? crc32(crc, p, (uInt)len) : crc;
}

/*
 * A small piece (the header, the last records of a short process) as a
 * gzip member of one stored block: deflate would build Huffman trees for
 * it, about 100,000 instructions per member, to save a few hundred bytes.
 * At finalize (writer_stop: exit, _exit) a piece up to DFT_STORED_TAIL is
 * stored too: the exiting thread would deflate it while the process waits,
 * ~330,000 instructions and the first touch of zlib's window and hash for
 * the ~10 KB a 20 ms process leaves (lz4), for ~8 KB more in the file.
 */
#define DFT_STORED_MAX 4096u
#define DFT_STORED_TAIL 16384u

/* finalize: store pieces up to DFT_STORED_TAIL (a writer mid-job may see
 * it too: a stored member is as valid) */
static atomic_int store_tail;

/*
 * A last piece (an exiting thread's, finalize's) is stored, whatever its
 * size, while the file holds less than DFT_STORED_PROC bytes of events: by
 * the exiting thread itself, not handed to the writer (tbuf_flush_async),
 * whose deflate of it, ~330,000 instructions and ~30 first page faults of
 * zlib's state for the 27 KB of lz4 -d's output thread, the exit would
 * wait for; for ~25 KB more in the file.  out_total counts the file's
 * events (trace_name resets it); store_last is set, under file_lock, for
 * such a piece.
 */
#define DFT_STORED_PROC (256u << 10)
static atomic_size_t out_total;
static int store_last;

/* a last piece of len bytes is stored */
static int last_fits(size_t len)
{
	return atomic_load_explicit(&out_total, memory_order_relaxed) + len <=
	       DFT_STORED_PROC;
}

static void stored_member(const char *data, size_t len)
{
	unsigned char head[15], tail[8];
	uLong crc = dft_crc32(data, len);
	struct iovec v[3];
	size_t n, total;
	ssize_t w;

	static const unsigned char gz[10] = { 0x1f, 0x8b, 8, 0, 0, 0, 0, 0,
					      0, 3 };
	memcpy(head, gz, 10);
	head[10] = 1;	/* BFINAL, stored */
	head[11] = (unsigned char)(len & 0xff);
	head[12] = (unsigned char)(len >> 8);
	head[13] = (unsigned char)(~len & 0xff);
	head[14] = (unsigned char)((~len >> 8) & 0xff);
	for (int i = 0; i < 4; i++)
		tail[i] = (unsigned char)(crc >> (8 * i));
	for (int i = 0; i < 4; i++)
		tail[4 + i] = (unsigned char)(len >> (8 * i));
	v[0].iov_base = head;
	v[0].iov_len = sizeof(head);
	v[1].iov_base = (void *)data;
	v[1].iov_len = len;
	v[2].iov_base = tail;
	v[2].iov_len = sizeof(tail);
	total = sizeof(head) + len + sizeof(tail);
	do
		w = syscall(SYS_writev, G.fd, v, 3);
	while (w < 0 && errno == EINTR);
	/* a short write: the rest piece by piece */
	n = w > 0 ? (size_t)w : 0;
	for (int i = 0; w >= 0 && n < total && i < 3; i++) {
		if (n >= v[i].iov_len) {
			n -= v[i].iov_len;
			total -= v[i].iov_len;
			continue;
		}
		if (write_all(G.fd, (const char *)v[i].iov_base + n,
			      v[i].iov_len - n) < 0)
			w = -1;
		total -= v[i].iov_len;
		n = 0;
	}
	if (w < 0)
		rt_msg(LOG_ERROR, "cannot write '%s': %s", G.path,
		       strerror(errno));
}

/*
 * The compressor, made at the first piece to deflate: a short process,
 * whose pieces are all stored, never makes it (its memory, ~150 KiB
 * touched, and the hash table cleared).  0 when it is there.  Caller
 * holds file_lock.
 */
static int z_make(void)
{
	if (G.z_ready)
		return G.z_ready > 0 ? 0 : -1;
	/* level 1; memLevel 5: a 4096-entry hash table, cleared at each
	 * member (8 KiB, not 64), the same ratio on traces */
	memset(&G.z, 0, sizeof(G.z));
	G.z.zalloc = z_alloc;
	G.z.zfree = z_free;
	/* raw: deflate_member writes the gzip header and trailer */
	G.z_ready = deflateInit2(&G.z, Z_BEST_SPEED, Z_DEFLATED, -15, 5,
				 Z_DEFAULT_STRATEGY) == Z_OK ? 1 : -1;
	return G.z_ready > 0 ? 0 : -1;
}

static void deflate_member(const char *data, size_t len, int store)
{
	/* without a compressor every piece is stored (at most 65000
	 * bytes: one stored block) */
	if (store || len <= DFT_STORED_MAX ||
	    (len <= DFT_STORED_TAIL &&
	     atomic_load_explicit(&store_tail, memory_order_relaxed)) ||
	    z_make() != 0) {
		stored_member(data, len);
		return;
	}
	/* a raw deflate stream between the gzip header zlib would write at
	 * level 1 (XFL 4, OS 3) and the trailer: the same bytes, with the
	 * CRC computed here (dft_crc32) */
	static const unsigned char gz[10] = { 0x1f, 0x8b, 8, 0, 0, 0, 0, 0,
					      4, 3 };
	uLong crc = dft_crc32(data, len);
	unsigned char tail[8];

	zout_reserve(deflateBound(&G.z, len) + 64);
	if (G.zcap < 64 || deflateReset(&G.z) != Z_OK)
		return;
	memcpy(G.zout, gz, sizeof(gz));
	G.z.next_in = (unsigned char *)data;
	G.z.avail_in = (uInt)len;
	G.z.next_out = G.zout + sizeof(gz);
	G.z.avail_out = (uInt)(G.zcap - sizeof(gz));
	while (deflate(&G.z, Z_FINISH) == Z_OK) {
		/* out of room: write what we have and continue */
		write_all(G.fd, G.zout, G.zcap - G.z.avail_out);
		G.z.next_out = G.zout;
		G.z.avail_out = (uInt)G.zcap;
	}
	for (int i = 0; i < 4; i++)
		tail[i] = (unsigned char)(crc >> (8 * i));
	for (int i = 0; i < 4; i++)
		tail[4 + i] = (unsigned char)(len >> (8 * i));
	if (G.z.avail_out < sizeof(tail)) {
		write_all(G.fd, G.zout, G.zcap - G.z.avail_out);
		G.z.next_out = G.zout;
		G.z.avail_out = (uInt)G.zcap;
	}
	memcpy(G.z.next_out, tail, sizeof(tail));
	G.z.avail_out -= (uInt)sizeof(tail);
	if (write_all(G.fd, G.zout, G.zcap - G.z.avail_out) < 0)
		rt_msg(LOG_ERROR, "cannot write '%s': %s", G.path,
		       strerror(errno));
}

/* Writes data as is or as gzip members of whole lines.  Caller holds
 * file_lock. */
void out_write(const char *data, size_t len)
{
	int store;

	if (len == 0)
		return;
	if (DFT_UNLIKELY(G.fd < 0) && (!G.want_open || trace_create() < 0))
		return;
	/* a last piece of a short file: stored (see last_fits) */
	store = (store_last ||
		 atomic_load_explicit(&store_tail, memory_order_relaxed)) &&
		last_fits(len);
	atomic_fetch_add_explicit(&out_total, len, memory_order_relaxed);
	if (!G.compress) {
		if (write_all(G.fd, data, len) < 0)
			rt_msg(LOG_ERROR, "cannot write '%s': %s", G.path,
			       strerror(errno));
		return;
	}
	while (len > DFT_MEMBER) {
		const char *nl = memrchr(data, '\n', DFT_MEMBER);
		size_t n = nl ? (size_t)(nl - data) + 1 : DFT_MEMBER;

		deflate_member(data, n, store);
		data += n;
		len -= n;
	}
	deflate_member(data, len, store);
}

void tbuf_flush_locked(struct dft_tbuf *b)
{
	if (b->len == 0)
		return;
	pthread_mutex_lock(&G.file_lock);
	out_write(b->data, b->len);
	pthread_mutex_unlock(&G.file_lock);
	b->len = 0;
}

/* tbuf_flush_locked of an exiting thread's last piece, stored */
static void tbuf_flush_last(struct dft_tbuf *b)
{
	if (b->len == 0)
		return;
	pthread_mutex_lock(&G.file_lock);
	store_last = 1;
	out_write(b->data, b->len);
	store_last = 0;
	pthread_mutex_unlock(&G.file_lock);
	b->len = 0;
}

/*
 * The background writer: a full thread buffer is handed over as a job and
 * the thread goes on with a fresh block, so deflate runs off the traced
 * thread.  At most two jobs wait; past that the thread waits for the
 * writer (bounded memory; order kept: a thread's blocks are written in
 * the order it filled them).  Started at the first record, whose header
 * is its first job: it creates the trace file (trace_create) while the
 * program goes on; after fork the child starts its own.
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
	struct dft_job *heads;	/* unused job heads (dft_perm, kept) */
	int pending, nspare, stop, started, failed;
	int active;		/* a job is being written (by whoever took it) */
	unsigned gen;		/* a writer whose generation is past exits */
	pthread_t th;
} W = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.work = PTHREAD_COND_INITIALIZER,
	.done = PTHREAD_COND_INITIALIZER,
};

/* the header's job (queue_copy), when it fits */
static struct dft_job hdr_job;
static char hdr_data[16384];
static int hdr_busy;

/* A job head, from the unused ones or dft_perm (no malloc: flushes
 * happen inside intercepted calls).  Caller holds W.lock. */
static struct dft_job *job_new_locked(void)
{
	struct dft_job *j = W.heads;

	if (j)
		W.heads = j->next;
	else if (!(j = dft_perm(sizeof(*j))))
		return NULL;
	memset(j, 0, sizeof(*j));
	return j;
}

/* j's data unmapped (a block of cap bytes, or a copy of len), j's head
 * kept.  Caller holds W.lock, or is a forked child's only thread. */
static void job_free(struct dft_job *j)
{
	blk_free(j->data, j->cap ? j->cap : j->len);
	j->next = W.heads;
	W.heads = j;
}

/* j was written: back to the spares, or freed.  Caller holds W.lock. */
static void job_done_locked(struct dft_job *j)
{
	W.pending--;
	if (j == &hdr_job) {
		hdr_busy = 0;
	} else if (j->cap && W.nspare < 2) {
		j->next = W.spare;
		W.spare = j;
		W.nspare++;
	} else {
		job_free(j);	/* a copy (queue_copy), or a spare too many */
	}
}

static void *writer_main(void *arg)
{
	unsigned my = (unsigned)(uintptr_t)arg;
	sigset_t all;

	dft_guard = 1;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	pthread_mutex_lock(&W.lock);
	for (;;) {
		struct dft_job *j;

		while (W.gen == my && (W.active || (!W.head && !W.stop)))
			pthread_cond_wait(&W.work, &W.lock);
		if (W.gen != my || !W.head)
			break;
		j = W.head;
		W.head = j->next;
		if (!W.head)
			W.tail = NULL;
		W.active = 1;
		pthread_mutex_unlock(&W.lock);
		pthread_mutex_lock(&G.file_lock);
		out_write(j->data, j->len);
		pthread_mutex_unlock(&G.file_lock);
		pthread_mutex_lock(&W.lock);
		W.active = 0;
		job_done_locked(j);
		pthread_cond_broadcast(&W.done);
	}
	pthread_mutex_unlock(&W.lock);
	return NULL;
}

/*
 * Writes the queued jobs on the calling thread, in order, after the one
 * the writer may be writing; with stop, the writer is then let go (it
 * exits when it next runs, touching nothing but W).  Finalize and exec
 * call this instead of waiting for the writer: a writer thread that has
 * not been given a CPU yet (a loaded machine, a process of a millisecond)
 * would otherwise delay the exit by a scheduling round; its jobs, the
 * header among them, are written here instead, as they were before the
 * writer existed.
 */
static void writer_take(int stop)
{
	struct dft_job *mine, *j, *n;
	pthread_t th;
	int let_go = 0;

	pthread_mutex_lock(&W.lock);
	while (W.active)
		pthread_cond_wait(&W.done, &W.lock);
	mine = W.head;
	W.head = W.tail = NULL;
	W.active = mine != NULL;
	if (stop) {
		W.stop = 1;
		if (W.started) {
			W.gen++;
			W.started = 0;
			th = W.th;
			let_go = 1;
		}
		pthread_cond_broadcast(&W.work);
	}
	pthread_mutex_unlock(&W.lock);
	if (let_go)
		pthread_detach(th);
	if (!mine)
		return;
	pthread_mutex_lock(&G.file_lock);
	for (j = mine; j; j = j->next)
		out_write(j->data, j->len);
	pthread_mutex_unlock(&G.file_lock);
	pthread_mutex_lock(&W.lock);
	for (j = mine; j; j = n) {
		n = j->next;
		job_done_locked(j);
	}
	W.active = 0;
	pthread_cond_broadcast(&W.done);
	pthread_cond_broadcast(&W.work);
	pthread_mutex_unlock(&W.lock);
}

/* Starts the writer thread if it is not running; 0 when it runs.
 * Caller holds W.lock. */
static int writer_start_locked(void)
{
	pthread_attr_t a;
	sigset_t all, old;
	int rc;

	if (W.started)
		return 0;
	if (W.failed)
		return -1;
	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, 256 << 10);
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	rc = pthread_create(&W.th, &a, writer_main, (void *)(uintptr_t)W.gen);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&a);
	if (rc != 0) {
		W.failed = 1;
		return -1;
	}
	W.started = 1;
	return 0;
}

/* Queues j after the jobs already queued.  Caller holds W.lock. */
static void writer_enqueue_locked(struct dft_job *j)
{
	j->next = NULL;
	if (W.tail)
		W.tail->next = j;
	else
		W.head = j;
	W.tail = j;
	W.pending++;
	pthread_cond_signal(&W.work);
}

/* Hands b's data to the writer; 0 on success. Caller holds b->lock.
 * last: b's thread is exiting (thread_exit): b needs no block after this,
 * so the job takes b's block and b is left with none (a fresh block would
 * be mapped and faulted in, 32 pages, only to be unmapped again; a spare
 * is kept for a live thread). */
static int tbuf_flush_async(struct dft_tbuf *b, int last)
{
	struct dft_job *j, *fresh;
	size_t want;

	pthread_mutex_lock(&W.lock);
	if (W.failed || W.stop)
		goto inline_write;
	if (last && !W.head && !W.active && last_fits(b->len)) {
		/* written, stored, by the exiting thread (see last_fits);
		 * only once nothing waits for the writer: the header, its
		 * first job, comes first, and a thread's pieces in order */
		pthread_mutex_unlock(&W.lock);
		tbuf_flush_last(b);
		return -1;
	}
	/* back-pressure: wait rather than write past the queued jobs.  A
	 * finalize or exec may stop the writer meanwhile (writer_take): then
	 * write inline, never start a writer after the stop (it would find
	 * the queue empty and leave with W.started set, and every later
	 * flush would wait here for it, finalize waiting for their buffers) */
	while (W.started && W.pending >= 2 && !W.stop)
		pthread_cond_wait(&W.done, &W.lock);
	if (W.failed || W.stop || writer_start_locked() != 0)
		goto inline_write;
	want = next_cap(b->cap);
	fresh = W.spare;
	if (last) {
		fresh = job_new_locked();	/* data NULL, cap 0 */
		if (!fresh)
			goto inline_write;
	} else if (fresh && fresh->cap >= want) {
		W.spare = fresh->next;
		W.nspare--;
	} else {
		fresh = job_new_locked();
		if (!fresh)
			goto inline_write;
		if (!(fresh->data = buf_alloc(1))) {
			job_free(fresh);
			goto inline_write;
		}
		fresh->cap = DFT_CHUNK;
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
	writer_enqueue_locked(j);
	pthread_mutex_unlock(&W.lock);
	return 0;
inline_write:
	pthread_mutex_unlock(&W.lock);
	tbuf_flush_locked(b);
	return -1;
}

/* Hands a copy of b's data to the writer (the header: the thread keeps
 * its block, and a short process never needs a second one).  Caller holds
 * b->lock. */
static void queue_copy(struct dft_tbuf *b)
{
	struct dft_job *j;

	if (b->len == 0)
		return;
	pthread_mutex_lock(&W.lock);
	if (W.failed || W.stop || writer_start_locked() != 0)
		goto inline_write;
	if (!hdr_busy && b->len <= sizeof(hdr_data)) {
		/* static: the writer frees nothing it did not allocate */
		j = &hdr_job;
		j->data = hdr_data;
		hdr_busy = 1;
	} else {
		j = job_new_locked();
		if (!j)
			goto inline_write;
		if (!(j->data = blk_alloc(b->len, 0))) {
			job_free(j);
			goto inline_write;
		}
	}
	memcpy(j->data, b->data, b->len);
	j->len = b->len;
	j->cap = 0;	/* not a block */
	b->len = 0;
	writer_enqueue_locked(j);
	pthread_mutex_unlock(&W.lock);
	return;
inline_write:
	pthread_mutex_unlock(&W.lock);
	tbuf_flush_locked(b);
}

/* Every queued job written (by the caller, if the writer has not taken
 * it). */
static void writer_drain(void)
{
	writer_take(0);
}

/* Every queued job written, and the writer gone: writes are inline now
 * (W.stop stays set until writer_resume). */
void writer_stop(void)
{
	atomic_store_explicit(&store_tail, 1, memory_order_relaxed);
	writer_take(1);
}

/*
 * A program's own INIT (annotated main, not the preload library's
 * constructor) starts the writer thread there, before the program has
 * allocated: pthread_create callocs the new thread's DTV (320 bytes, kept)
 * in the calling thread's arena, and a chunk kept from the middle of a
 * run decides which of the program's freed chunks stay in glibc's
 * per-thread cache and where the top of the heap ends after a large
 * free, and so how often glibc trims and regrows the heap: tinyxml2's
 * xmltest made 58 brk calls untraced, 122 with the writer started at its
 * first full buffer, and a program whose first record comes in the middle
 * of its allocations made 8 against 1,363 with it started there (its
 * heap never given back: the heap test of tests/runtime.bats).  The
 * preload library's processes (a shell, cp, Python) start it at their
 * first record, so one that records nothing makes no thread.
 */
void writer_start_early(void)
{
	pthread_mutex_lock(&W.lock);
	if (!W.stop)
		writer_start_locked();
	pthread_mutex_unlock(&W.lock);
}

/* Tracing (re)starts: writes go to the writer thread again. */
void writer_resume(void)
{
	pthread_mutex_lock(&W.lock);
	W.stop = 0;
	atomic_store_explicit(&store_tail, 0, memory_order_relaxed);
	pthread_mutex_unlock(&W.lock);
}

/* Jobs wait to be written (read without the lock: from a signal handler). */
int writer_busy(void)
{
	return W.started && W.pending > 0;
}

/* fork: the child must not inherit the writer's lock held */
void writer_lock(void)
{
	pthread_mutex_lock(&W.lock);
}

void writer_unlock(void)
{
	pthread_mutex_unlock(&W.lock);
}

/* In a forked child: the parent's jobs are the parent's to write. */
void writer_reset_child(void)
{
	struct dft_job *j, *n;

	pthread_mutex_init(&W.lock, NULL);
	pthread_cond_init(&W.work, NULL);
	pthread_cond_init(&W.done, NULL);
	for (j = W.head; j; j = n) {
		n = j->next;
		if (j != &hdr_job)
			job_free(j);
	}
	hdr_busy = 0;
	W.head = W.tail = NULL;
	W.pending = 0;
	W.started = 0;
	W.stop = 0;
	W.active = 0;
}

/*
 * Lines are short; copy them with plain 8-byte moves.  glibc's memcpy picks
 * AVX-512 on this class of machine, and the first wide-register use after
 * each system call made the copy cost more than formatting the event.
 */
static void copy_line(char *dst, const char *src, size_t n)
{
	while (n >= 32) {
		uint64_t a, b, c, d;

		__builtin_memcpy(&a, src, 8);
		__builtin_memcpy(&b, src + 8, 8);
		__builtin_memcpy(&c, src + 16, 8);
		__builtin_memcpy(&d, src + 24, 8);
		__builtin_memcpy(dst, &a, 8);
		__builtin_memcpy(dst + 8, &b, 8);
		__builtin_memcpy(dst + 16, &c, 8);
		__builtin_memcpy(dst + 24, &d, 8);
		dst += 32;
		src += 32;
		n -= 32;
	}
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

void commit(struct dft_thread *t)
{
	struct dft_tbuf *b = t->buf;

	tb_lock(b);
	if (DFT_UNLIKELY(b->len + t->n > b->cap))
		tbuf_flush_locked(b);	/* cannot happen: flush_at leaves room */
	copy_line(b->data + b->len, t->line, t->n);
	b->len += t->n;
	if (DFT_UNLIKELY(b->len >= flush_at(b->cap)))
		tbuf_flush_async(b, 0);
	tb_unlock(b);
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
			if (tb_trylock(b) != 0)
				continue;
		} else {
			tb_lock(b);
		}
		tbuf_flush_locked(b);
		tb_unlock(b);
	}
	pthread_mutex_unlock(&G.reg_lock);
}

/* ---- line formatting ---------------------------------------------------- */


static const char digits2[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233"
	"34353637383940414243444546474849505152535455565758596061626364656667"
	"6869707172737475767778798081828384858687888990919293949596979899";

/* v < 10^8 as digits ending at end; returns the first */
static char *u32_digits(char *end, uint32_t v)
{
	while (v >= 100) {
		uint32_t d = (v % 100) * 2;

		v /= 100;
		*--end = digits2[d + 1];
		*--end = digits2[d];
	}
	if (v >= 10) {
		*--end = digits2[v * 2 + 1];
		*--end = digits2[v * 2];
	} else {
		*--end = (char)('0' + v);
	}
	return end;
}

/* exactly 8 digits of v < 10^8 ending at end */
static void u32_8digits(char *end, uint32_t v)
{
	uint32_t hi = v / 10000, lo = v % 10000;

	__builtin_memcpy(end - 2, digits2 + (lo % 100) * 2, 2);
	__builtin_memcpy(end - 4, digits2 + (lo / 100) * 2, 2);
	__builtin_memcpy(end - 6, digits2 + (hi % 100) * 2, 2);
	__builtin_memcpy(end - 8, digits2 + (hi / 100) * 2, 2);
}

/*
 * Decimal digits.  Most numbers in an event are small (level, p_idx,
 * sizes) or 16-digit microsecond timestamps: those go 8 digits at a time
 * in 32-bit arithmetic, not a 64-bit division per digit pair.
 */
void put_u64(struct dft_thread *t, uint64_t v)
{
	char tmp[24], *p;

	if (DFT_LIKELY(v < 10)) {
		char c = (char)('0' + v);

		ev_raw(t, &c, 1);
		return;
	}
	if (v < 100000000u) {
		p = u32_digits(tmp + 24, (uint32_t)v);
	} else {
		uint64_t hi = v / 100000000u;

		u32_8digits(tmp + 24, (uint32_t)(v % 100000000u));
		if (hi < 100000000u) {
			p = u32_digits(tmp + 16, (uint32_t)hi);
		} else {
			u32_8digits(tmp + 16, (uint32_t)(hi % 100000000u));
			p = u32_digits(tmp + 8, (uint32_t)(hi / 100000000u));
		}
	}
	ev_raw(t, p, (size_t)(tmp + 24 - p));
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

/* The length of s's leading run of 8-byte words that need no escaping
 * (no control byte or NUL, quote, backslash or non-ASCII byte), read a
 * word at a time while the word stays inside s's page. */
static size_t plain_prefix(const unsigned char *s)
{
	const uint64_t ones = 0x0101010101010101ull, high = ones * 0x80;
	size_t k = 0;

	while ((((uintptr_t)(s + k)) & 4095) <= 4096 - 8) {
		uint64_t v, q, b;

		__builtin_memcpy(&v, s + k, 8);
		q = v ^ (ones * '"');
		b = v ^ (ones * '\\');
		if ((((v - ones * 0x20) & ~v) | ((q - ones) & ~q) |
		     ((b - ones) & ~b) | v) & high)
			break;
		k += 8;
	}
	return k;
}

/*
 * A JSON string.  Always valid JSON: control characters and bytes that are
 * not UTF-8 become \u00XX.  With upstream != 0 the characters dftracer
 * replaces in hashed names ( ) \ " ' | become spaces, as dftracer 2.0.x
 * writes them.
 */
void put_str(struct dft_thread *t, const char *s, int upstream)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;
	const unsigned char mask = upstream ? 3 : 1;
	size_t room, k;
	char *o;

	DFT_LIT(t, "\"");
	k = upstream ? 0 : plain_prefix(p);
	for (; !(esc_tab[p[k]] & mask); k++)
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

void put_key(struct dft_thread *t, const char *key)
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

/* the args of kv, in order; a hash that is NULL is left out */
void ev_kv(struct dft_thread *t, const struct dft_kv *kv, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		if (kv[i].kind == KV_INT)
			ev_int(t, kv[i].k, kv[i].i);
		else if (kv[i].kind == KV_STR)
			ev_str(t, kv[i].k, kv[i].s);
		else if (kv[i].s)
			ev_hash(t, kv[i].k, kv[i].s);
	}
}

/*
 * The id of the open region at stack index k.  A folded call of a
 * throttled function has none until an event is written inside it (this
 * call, made before that event takes its own id); it then gets one, and
 * so do the folded calls around it that have none, outermost first, so
 * each is written as a complete event at its END and every p_idx names
 * a written event.
 */
long long frame_id(struct dft_thread *t, int k)
{
	struct dft_region *r = t->stack[k];
	uint64_t anc_tick = 0, anc_us = 0;
	int j, anc = 0;

	if (DFT_LIKELY(r->id))
		return r->id;
	for (j = k; j > 0 && !t->stack[j - 1]->id; j--)
		;
	for (; j <= k; j++) {
		struct dft_region *f = t->stack[j];

		f->p_idx = j > 0 ? t->stack[j - 1]->id : -1;
		f->id = dft_next_id();
		/* its start on the trace's clock: now less its ticks,
		 * rounded so that it encloses what is written inside.
		 * One reading of the clock and the tick for all of them:
		 * a thread preempted between two readings would put an
		 * outer call's start after an inner one's */
		if (f->magic == DFT_R_AGG && !f->ts) {
			if (!anc) {
				anc_tick = dft_tick();
				anc_us = dft_now();
				anc = 1;
			}
			f->anc_tick = anc_tick;
			f->anc_us = anc_us;
			f->ts = f->anc_us - dft_tick_us_up(f->anc_tick -
							   f->tick);
			/* not after the event that names it began: the
			 * ratio of ticks to time may be a little off */
			if (t->child_t0 && f->ts > t->child_t0)
				f->ts = t->child_t0;
		}
	}
	return r->id;
}

long long top_id(struct dft_thread *t)
{
	if (t->depth <= 0)
		return -1;
	return frame_id(t, (t->depth > DFT_DEPTH ? DFT_DEPTH : t->depth) - 1);
}

long long top_id_at(struct dft_thread *t, uint64_t t0)
{
	long long id;

	t->child_t0 = t0;
	id = top_id(t);
	t->child_t0 = 0;
	return id;
}

void dft_child_end(struct dft_thread *t, uint64_t t1)
{
	if (t->depth > 0 && t->depth <= DFT_DEPTH) {
		struct dft_region *p = t->stack[t->depth - 1];

		if (t1 > p->cend)
			p->cend = t1;
	}
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

/* A timestamp: its digits above the last 8 change every 100 s, so the
 * thread keeps them rendered. */
static void put_ts(struct dft_thread *t, uint64_t ts)
{
	uint64_t hi = ts / 100000000u;
	char lo[8];

	if (DFT_UNLIKELY(hi == 0 || hi >= 100000000u)) {
		put_u64(t, ts);
		return;
	}
	if (DFT_UNLIKELY(hi != t->ts_hi)) {
		char *p = u32_digits(t->ts_s + sizeof(t->ts_s), (uint32_t)hi);

		t->ts_len = (unsigned)(t->ts_s + sizeof(t->ts_s) - p);
		memmove(t->ts_s, p, t->ts_len);
		t->ts_hi = hi;
	}
	ev_raw(t, t->ts_s, t->ts_len);
	u32_8digits(lo + 8, (uint32_t)(ts % 100000000u));
	ev_raw(t, lo, 8);
}

static int ev_tail(struct dft_thread *t, uint64_t ts, uint64_t dur)
{
	DFT_LIT(t, ",\"ts\":");
	put_ts(t, ts);
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

int ev_begin(struct dft_thread *t, long long id, const char *name,
	     const char *cat, uint64_t ts, uint64_t dur)
{
	t->n = 0;
	t->overflow = 0;
	put_head(t, id, name, cat);
	return ev_tail(t, ts, dur);
}

/* ev_begin for a name and category that never change at their address
 * (literals, interned names): the rendered ,"name":..,"cat":..,"pid":..,
 * "tid":.. comes from the thread's small cache. */
int ev_begin_lit(struct dft_thread *t, long long id, const char *name,
		 const char *cat, uint64_t ts, uint64_t dur)
{
	unsigned i = (unsigned)(((uintptr_t)name >> 3) ^ ((uintptr_t)cat >> 6)) &
		     (DFT_HEADC - 1);
	struct dft_headc *c = &t->hc[i];

	t->n = 0;
	t->overflow = 0;
	DFT_LIT(t, "{\"id\":");
	put_i64(t, id);
	if (DFT_LIKELY(c->name == name && c->cat == cat)) {
		ev_raw(t, c->s, c->len);
	} else {
		size_t at = t->n;

		DFT_LIT(t, ",\"name\":");
		put_str(t, name, 0);
		DFT_LIT(t, ",\"cat\":");
		put_str(t, cat, 0);
		ev_raw(t, t->pidtid, t->pidtid_len);
		if (!t->overflow && t->n - at <= sizeof(c->s)) {
			memcpy(c->s, t->line + at, t->n - at);
			c->len = (unsigned)(t->n - at);
			c->name = name;
			c->cat = cat;
		}
	}
	return ev_tail(t, ts, dur);
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
static void meta_line(struct dft_thread *t, const char *rec, const char *name,
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
}

/* a metadata record in t's line scratch, not committed (t->overflow set
 * when it did not fit) */
void ev_meta_line(struct dft_thread *t, const char *rec, const char *name,
		  const char *value)
{
	meta_line(t, rec, name, 0, value);
}

void ev_meta(struct dft_thread *t, const char *rec, const char *name,
		    int name_upstream, const char *value)
{
	meta_line(t, rec, name, name_upstream, value);
	if (t->overflow) {
		t->n = 0;
		t->overflow = 0;
		return;
	}
	commit(t);
}

/* ---- the trace file ---------------------------------------------------- */

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

/*
 * The trace's name, fixed at the first record (absolute: the program may
 * chdir before the file is made).  The file itself is created by the
 * first write (trace_create), in the background writer: creating a file
 * cost 0.1-1.5 ms of system time on this ext4 (its inode allocator skips
 * recently deleted inodes), the largest part of a short traced process's
 * cost, and it now overlaps the program instead of delaying it.
 */
static void trace_name(void)
{
	char name[128], cwd[DFT_PATH];
	char hash[17];
	const char *dir = "";
	int n;

	n = snprintf(name, sizeof(name), "%s-%s-%d", G.exec_name, G.host,
		     (int)G.pid);
	dft_hash16(name, (size_t)n, hash);
	if (G.prefix[0] != '/' && syscall(SYS_getcwd, cwd, sizeof(cwd)) > 0 &&
	    cwd[0] == '/') {
		strcat(cwd, "/");
		dir = cwd;
	}
	if (G.explicit_log)
		snprintf(G.path, sizeof(G.path), "%s%s.pfw%s", dir, G.prefix,
			 G.compress ? ".gz" : "");
	else
		snprintf(G.path, sizeof(G.path), "%s%s-%s-%s.pfw%s", dir,
			 G.prefix, hash, G.suffix, G.compress ? ".gz" : "");
	G.want_open = 1;
	atomic_store_explicit(&out_total, 0, memory_order_relaxed);
	trace_reserve_fd();
}

/*
 * The descriptor the file will have, out of the way of programs that
 * close or reuse low ones: taken at the first record, or at INIT before
 * the writer thread starts there (a duplicate of one of the standard
 * descriptors), replaced by the file with dup3.  Growing the descriptor
 * table past 900 once the process has two threads waits for an RCU grace
 * period (the kernel does that for a shared table): 10-20 ms here, so it
 * is taken while the process has one.
 */
void trace_reserve_fd(void)
{
	if (G.fd_hi >= 0)
		return;
	for (int k = 2; k >= 0 && G.fd_hi < 0; k--)
		G.fd_hi = (int)syscall(SYS_fcntl, k, F_DUPFD_CLOEXEC, 900);
	if (G.fd_hi >= 0)
		dft_trace_fd = G.fd_hi;
}

/* Closes the descriptor trace_name took, if the file never took it over
 * (the file could not be made; a child of a process whose file was not
 * made yet). */
void trace_release_fd(void)
{
	if (G.fd_hi >= 0) {
		syscall(SYS_close, G.fd_hi);
		if (dft_trace_fd == G.fd_hi)
			dft_trace_fd = -1;
	}
	G.fd_hi = -1;
}

/* Creates the trace file named by trace_name, and the compressor.  Caller
 * holds file_lock.  On failure tracing stops (what is buffered is lost). */
static int trace_create(void)
{
	G.want_open = 0;
	/* the directory usually exists: make it only when the open says not */
	G.fd = (int)syscall(SYS_openat, AT_FDCWD, G.path,
			    O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (G.fd < 0 && errno == ENOENT) {
		mkdir_parents(G.path);
		G.fd = (int)syscall(SYS_openat, AT_FDCWD, G.path,
				    O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
				    0644);
	}
	if (G.fd < 0) {
		rt_msg(LOG_ERROR, "cannot open trace file '%s': %s", G.path,
		       strerror(errno));
		dft_on_posix = dft_on_stdio = dft_on_any = 0;
		dft_on_mpiio = dft_on_hdf5 = 0;
		G.finalized = 1;
		trace_release_fd();
		return -1;
	}
	/* out of the way of programs that close or reuse low descriptors:
	 * onto the descriptor taken for it (trace_name), else one >= 900 */
	{
		int hi = G.fd_hi >= 0 &&
			 syscall(SYS_dup3, G.fd, G.fd_hi, O_CLOEXEC) == G.fd_hi ?
			 G.fd_hi :
			 (int)syscall(SYS_fcntl, G.fd, F_DUPFD_CLOEXEC, 900);

		if (hi >= 0) {
			syscall(SYS_close, G.fd);
			G.fd = hi;
		}
		if (G.fd_hi >= 0 && hi != G.fd_hi)
			syscall(SYS_close, G.fd_hi);
		G.fd_hi = -1;
	}
	dft_trace_fd = G.fd;
	rt_msg(LOG_INFO, "writing '%s'", G.path);
	return 0;
}

/* PR and process_name, when the rank is known */
static void rank_records(struct dft_thread *t)
{
	char r[32], rn[48];

	if (G.rank < 0)
		return;
	snprintf(r, sizeof(r), "%d", G.rank);
	snprintf(rn, sizeof(rn), "Rank %d", G.rank);
	ev_meta(t, "PR", "rank", 0, r);
	ev_meta(t, "process_name", rn, 0, "process_name");
}

/* A trace that started before MPI_Init with no launcher's rank: the rank
 * records once MPI is up (called by the MPI-IO layer, which knows MPI is
 * there; the header asked too early). */
void dft_rank_late(void)
{
	struct dft_thread *t;

	if (DFT_LIKELY(G.rank >= 0) || !dft_on_any || dft_pending || dft_guard)
		return;
	dft_guard++;
	pthread_mutex_lock(&G.init_lock);
	if (G.rank < 0 && (G.rank = dft_mpi_rank()) >= 0 && (t = dft_self()))
		rank_records(t);
	pthread_mutex_unlock(&G.init_lock);
	dft_guard--;
}

/*
 * The start record's date, local time in asctime's form, as localtime_r
 * and asctime_r give it, without them when the zone is a TZif file:
 * libc's time zone code mallocs (a FILE and its 4 KiB buffer to read
 * /etc/localtime, kept strings), and the first record would leave those
 * chunks in the application's heap (see store_inline).  Read here: TZ
 * unset (/etc/localtime) or ":/absolute/file"; a file without leap
 * seconds whose transitions cover now, or whose zone has no daylight
 * saving rule after them.  Anything else (a POSIX TZ string, a zone name,
 * a rule needed for now) goes to libc.  0 when done.
 */
static int32_t be32(const unsigned char *p)
{
	return (int32_t)((uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
			 (uint32_t)p[2] << 8 | p[3]);
}

static int tz_offset(time_t t, long *off)
{
	const char *tz = getenv("TZ");
	const char *path = "/etc/localtime";
	unsigned char d[6144];	/* the largest zone file is under 4 KB */
	ssize_t n = 0, r;
	int fd, rc = -1;

	if (tz) {
		if (tz[0] != ':' || tz[1] != '/')
			return -1;
		path = tz + 1;
	}
	fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	while (n < (ssize_t)sizeof(d) &&
	       (r = syscall(SYS_read, fd, d + n, sizeof(d) - n)) > 0)
		n += r;
	syscall(SYS_close, fd);
	if (n >= 44 && n < (ssize_t)sizeof(d) && memcmp(d, "TZif", 4) == 0) {
		const unsigned char *h = d, *p, *end = d + n;
		int v2 = d[4] >= '2', tsz = 4;
		long isut, isstd, leap, tcnt, types, chars;

		for (;;) {
			isut = be32(h + 20);
			isstd = be32(h + 24);
			leap = be32(h + 28);
			tcnt = be32(h + 32);
			types = be32(h + 36);
			chars = be32(h + 40);
			if (isut < 0 || isstd < 0 || leap < 0 || tcnt < 0 ||
			    types <= 0 || chars < 0 || types > 256)
				goto out;
			p = h + 44;
			if (!v2 || tsz == 8)
				break;
			/* the 64-bit data after the version 1 block */
			h = p + tcnt * 5 + types * 6 + chars + leap * 8 + isstd +
			    isut;
			if (h + 44 > end || memcmp(h, "TZif", 4) != 0)
				goto out;
			tsz = 8;
		}
		{
			const unsigned char *times = p, *idx = p + tcnt * tsz;
			const unsigned char *ti = idx + tcnt, *foot;
			long k = -1, lo = 0, hi = tcnt - 1;
			int64_t last = 0;

			foot = ti + types * 6 + chars + leap * (tsz + 4) + isstd +
			       isut;
			if (leap > 0 || foot > end)
				goto out;
#define TZ_AT(i)                                                          \
	(tsz == 8 ? (int64_t)((uint64_t)(uint32_t)be32(times + 8 * (i)) << 32 | \
			      (uint32_t)be32(times + 8 * (i) + 4)) :           \
		    (int64_t)be32(times + 4 * (i)))
			if (tcnt > 0)
				last = TZ_AT(tcnt - 1);
			if (tcnt > 0 && (int64_t)t >= last) {
				/* past the transitions: the footer's rule
				 * governs; only a rule without daylight saving
				 * (no ',') is read here */
				const unsigned char *f = foot;

				if (v2) {
					if (f >= end || *f != '\n')
						goto out;
					for (f++; f < end && *f != '\n'; f++)
						if (*f == ',')
							goto out;
				}
				k = idx[tcnt - 1];
			} else if (tcnt > 0 && (int64_t)t >= TZ_AT(0)) {
				while (lo < hi) {	/* last transition <= t */
					long mid = (lo + hi + 1) / 2;

					if (TZ_AT(mid) <= (int64_t)t)
						lo = mid;
					else
						hi = mid - 1;
				}
				k = idx[lo];
			} else {
				/* before the first transition (or none): the
				 * first standard time type, as glibc does */
				for (k = 0; k < types && ti[k * 6 + 4]; k++)
					;
				if (k == types)
					k = 0;
			}
#undef TZ_AT
			if (k < 0 || k >= types)
				goto out;
			*off = be32(ti + k * 6);
			rc = 0;
		}
	}
out:
	return rc;
}

/* "Wed Dec  2 05:07:00 2026", as asctime_r of localtime_r */
static void local_date(time_t t, char *out, size_t cap)
{
	static const char wd[] = "SunMonTueWedThuFriSat";
	static const char mo[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
	struct tm tm;
	long off;

	if (tz_offset(t, &off) == 0) {
		/* days to a civil date (H. Hinnant's algorithm) */
		long long s = (long long)t + off;
		long long days = s >= 0 ? s / 86400 : -((-s + 86399) / 86400);
		long long sec = s - days * 86400, z = days + 719468;
		long long era = (z >= 0 ? z : z - 146096) / 146097;
		long long doe = z - era * 146097;
		long long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) /
				365;
		long long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
		long long mp = (5 * doy + 2) / 153;
		long long dd = doy - (153 * mp + 2) / 5 + 1;
		long long mm = mp < 10 ? mp + 3 : mp - 9;
		long long yy = yoe + era * 400 + (mm <= 2);
		int w = (int)((days % 7 + 11) % 7);	/* 1970-01-01: Thursday */

		snprintf(out, cap, "%.3s %.3s%3d %.2d:%.2d:%.2d %lld",
			 wd + 3 * w, mo + 3 * (mm - 1), (int)dd,
			 (int)(sec / 3600), (int)(sec / 60 % 60), (int)(sec % 60),
			 yy);
		return;
	}
	localtime_r(&t, &tm);
	asctime_r(&tm, out);
	out[strcspn(out, "\n")] = '\0';
}

/* Records every file starts with: "[", HH, thread_name, FH of the working
 * directory, SH of the command line and exec name, start. */
static void write_header(void)
{
	struct dft_thread *t = dft_self();
	char num[32], date[64];
	char cmdh[17], exech[17];
	struct dft_file *cwd;
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
	rank_records(t);
	local_date(now, date, sizeof(date));
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
	/* the writer's first job: it creates the file and writes this */
	tb_lock(t->buf);
	queue_copy(t->buf);
	tb_unlock(t->buf);
}

int open_and_write_header(void)
{
	trace_name();
	write_header();
	return 0;
}
