/*
 * ioagg.h - an aggregated I/O call's hot path, inline in io.c's wrappers:
 * the position model's class of the call, its enclosing function and the
 * record of the thread's latest call of its size class; the rest (a new
 * record, the table, an interval's end, a layer's span around the call)
 * in ioagg.c (dft_io_agg_rec).  Shared by io.c and ioagg.c only.
 */
#ifndef DFT_RT_IOAGG_H
#define DFT_RT_IOAGG_H

#include "internal.h"
#include "core.h"	/* struct dft_region: the enclosing function */

#define DFT_IOREC 64		/* open records per thread */
/* After them in the same block (the room of 64 more records): the record
 * of the thread's latest call of each size class, class bits and
 * enclosing function, checked before the table is probed (a loop's calls
 * alternate a few sizes: tinyxml2's Write; and its printer's callers
 * alternate around the same sizes, so a slot by size class alone missed a
 * third of their calls, and 64 slots by all three still a fifth when two
 * keys that alternate shared one) */
#define DFT_IOC 256
#define IO_CACHE(t) ((struct dft_iorec **)((t)->io + DFT_IOREC))
/* the cache slot of class cls (size class | bits << 8) inside the
 * function named pn (NULL: none); a hit still compares the whole key */
#define IO_SLOT(cls, pn) \
	((unsigned)(((uint32_t)(uintptr_t)(pn) ^ (uint32_t)(cls) * 0x85EBCA77u) * \
		    0x9E3779B1u >> 24) & (DFT_IOC - 1))

struct dft_iorec {
	const char *name, *cat;		/* literals */
	const struct dft_file *f;	/* NULL: a free slot */
	const char *pname, *pcat;	/* the enclosing function, or NULL */
	const char *ploc;		/* its ,"pfile":..,"pline":.., or NULL */
	int level;
	unsigned cls;			/* size class | DFT_IO_* bits << 8 */
	uint64_t cnt, dmin, dmax, dsum;	/* durations in ticks */
	uint64_t bmin, bmax, bsum;	/* bytes */
	uint64_t first, iv;		/* first start, its interval (us) */
	uint64_t anc_us, anc_tick;	/* a clock reading and its tick */
	uint64_t lim_tick;		/* the tick its interval ends at */
	uint64_t last_tick;		/* end of its last call */
	int64_t off_lo, ext;		/* lowest start, highest end */
	uint64_t seq;			/* order of its last call */
	int64_t pos, end_r, end_w;	/* the model after its last call */
};

enum {	/* the class bits of a data call */
	DFT_IO_SEQ = 1,		/* starts at or after the last one's end */
	DFT_IO_CONS = 2,	/* exactly there */
	DFT_IO_MISAL = 4,	/* start not a multiple of 4 KiB */
	DFT_IO_REREAD = 8,	/* half or more of its bytes read before */
	DFT_IO_SEEK = 16,	/* a seek or tell: no bytes, no access kind */
};

int64_t dft_rd_add(struct dft_model *f, int64_t a, int64_t b);

/* t's position model of f, made (at 0) the first time; NULL without
 * memory (ioagg.c) */
struct dft_model *dft_model_find(struct dft_thread *t,
				 const struct dft_file *f);
static inline __attribute__((always_inline)) struct dft_model *
dft_model_of(struct dft_thread *t, const struct dft_file *f)
{
	if (DFT_LIKELY(t->mlast && t->mlast->f == f))
		return t->mlast;
	return dft_model_find(t, f);
}

/* the position model's data call, inline in the aggregated call's path */
static inline __attribute__((always_inline)) unsigned
model_data(struct dft_model *f, int w, int positional, long long off,
	   long long bytes, long long *start_out)
{
	int64_t start, *last;
	unsigned c = 0;

	if (DFT_UNLIKELY(!f)) {	/* no memory: judged from 0, not kept */
		*start_out = positional ? off : 0;
		return DFT_IO_SEQ | DFT_IO_CONS;
	}
	start = positional ? off : f->pos;

	if (!positional)
		f->pos += bytes;
	last = w ? &f->end_w : &f->end_r;
	if (start >= *last) {
		c |= DFT_IO_SEQ;
		if (start == *last)
			c |= DFT_IO_CONS;
	}
	*last = start + bytes;
	if (start % 4096 != 0)
		c |= DFT_IO_MISAL;
	if (!w && bytes > 0) {
		unsigned n = f->nrd;
		int64_t cov;

		/* rd_add's usual cases inline: streaming on from the last
		 * range, or inside the only one */
		if (n > 0 && start == f->rd[n - 1][1]) {
			f->rd[n - 1][1] = start + bytes;
			cov = 0;
		} else if (n == 1 && start >= f->rd[0][0] &&
			   start + bytes <= f->rd[0][1]) {
			cov = bytes;
		} else {
			cov = dft_rd_add(f, start, start + bytes);
		}
		if (2 * cov >= bytes)
			c |= DFT_IO_REREAD;
	}
	*start_out = start;
	return c;
}

static inline unsigned dft_size_class(long long b)
{
	return b > 0 ? 63u - (unsigned)__builtin_clzll((unsigned long long)b) :
		       0;
}

/* one more call in x: dk ticks ending at tick t1, bytes from start; the
 * model's state after it and its order */
static inline __attribute__((always_inline)) void
iorec_count(struct dft_thread *t, struct dft_iorec *x,
	    const struct dft_model *m, uint64_t dk, uint64_t t1,
	    long long bytes, long long start)
{
	x->cnt++;
	x->dsum += dk;
	if (dk < x->dmin)
		x->dmin = dk;
	if (dk > x->dmax)
		x->dmax = dk;
	x->bsum += (uint64_t)bytes;
	if ((uint64_t)bytes < x->bmin)
		x->bmin = (uint64_t)bytes;
	if ((uint64_t)bytes > x->bmax)
		x->bmax = (uint64_t)bytes;
	if (start < x->off_lo)
		x->off_lo = start;
	if (start + bytes > x->ext)
		x->ext = start + bytes;
	x->last_tick = t1;
	x->seq = ++t->ioseq;
	if (DFT_LIKELY(m != NULL)) {
		x->pos = m->pos;
		x->end_r = m->end_r;
		x->end_w = m->end_w;
	}
}

/* the rest of dft_io_agg: the call classified (cls, start), p the
 * innermost region (known: it is the enclosing function, or there is
 * none), else the enclosing function is looked for; errno kept */
void dft_io_agg_rec(struct dft_thread *t, const char *name, const char *cat,
		    struct dft_file *f, uint64_t t0, uint64_t t1,
		    long long bytes, unsigned cls, long long start,
		    struct dft_region *p, int known);

/* dft_io_agg when the trace is still to be started (its errno kept) */
void dft_io_agg_cold(struct dft_thread *t, int w, const char *name,
		     const char *cat, struct dft_file *f, uint64_t t0,
		     uint64_t t1, long long bytes, int positional,
		     long long off);

/* a folded seek or tell of thread t from tick t0 to t1 on f, the
 * position model already moved (dft_model_seek); errno kept */
void dft_io_agg_seek(struct dft_thread *t, const char *name, const char *cat,
		     struct dft_file *f, uint64_t t0, uint64_t t1);

/* a folded call of thread t (dft_io_folded) from tick t0 to t1 on f: w a
 * write, ret as returned, size the stdio element size (-1: none),
 * positional with off */
static inline __attribute__((always_inline)) void
dft_io_agg(struct dft_thread *t, int w, const char *name, const char *cat,
	   struct dft_file *f, uint64_t t0, uint64_t t1, long long ret,
	   long long size, int positional, long long off)
{
	long long bytes = dft_io_bytes(ret, size), start;
	struct dft_region *p = NULL;
	struct dft_iorec *x;
	struct dft_model *m;
	const char *pn = NULL, *pc = NULL;
	unsigned cls;
	int k, known = 1;

	if (DFT_UNLIKELY(dft_pending || !t->buf || !dft_on_any)) {
		dft_io_agg_cold(t, w, name, cat, f, t0, t1, bytes, positional,
				off);
		return;
	}
	dft_guard++;
	m = dft_model_of(t, f);
	cls = dft_size_class(bytes) |
	      model_data(m, w, positional, off, bytes, &start) << 8;
	/* the enclosing function: usually the innermost region, with
	 * interned or literal names, not a layer's span (MPIIO, HDF5).
	 * A record names its function by literal or interned (never
	 * freed) pointers and never a span, so the cached record's names
	 * equal to the innermost region's say that region is the one:
	 * what it is needs looking at only on a miss */
	k = (t->depth > DFT_DEPTH ? DFT_DEPTH : t->depth) - 1;
	if (DFT_LIKELY(k >= 0)) {
		p = t->stack[k];
		pn = p->name;
		pc = p->cat;
	}
	x = DFT_LIKELY(t->io != NULL) ? IO_CACHE(t)[IO_SLOT(cls, pn)] :
					NULL;
	if (DFT_LIKELY(x && x->f == f && x->name == name && x->cat == cat &&
		       x->cls == cls && x->pname == pn && x->pcat == pc &&
		       t0 >= x->anc_tick && t0 < x->lim_tick)) {
		iorec_count(t, x, m, t1 - t0, t1, bytes, start);
	} else {
		if (p)
			known = !p->own && pc && pc[0] != 'M' && pc[0] != 'H';
		dft_io_agg_rec(t, name, cat, f, t0, t1, bytes, cls, start, p,
			       known);
	}
	dft_guard--;
}

#endif
