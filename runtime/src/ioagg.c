/*
 * ioagg.c - hot small I/O folded into aggregated records.
 *
 * The throttle of functions (core.c) extended to intercepted I/O calls:
 * a read or write call name and category (fwrite STDIO, pread POSIX, ...)
 * that has had DFTRACER_THROTTLE_CALLS complete events on a thread, more
 * than half of them under DFTRACER_THROTTLE_US, is aggregated on that
 * thread from then on (DFTRACER_THROTTLE_IO=0: never).  Its calls are
 * timed by the cheap clock (tick.c) and counted into records of dftracer's
 * aggregated form ("ph":"C", args.dft_cnt, <field>_min/_max/_sum), one per
 * interval and key:
 *
 *   name, cat, file           what dft-analyze sums per function and file
 *   the enclosing function    the innermost open region that is not an
 *                             MPI-IO/HDF5 span, folded or not (it is not
 *                             named for this: a folded XMLPrinter::Write
 *                             around each fwrite stays folded); written
 *                             as parent, pcat, pfile, pline
 *   size class                floor(log2(bytes)): finer than the analysis'
 *                             size bins (powers of 4 from 4 KiB) and its
 *                             small-request threshold (1 MiB)
 *   access kind               what dft-analyze's position model says of
 *                             each call (consecutive, sequential, random;
 *                             misaligned to 4 KiB; a re-read), computed
 *                             here with the same model (dft_model_*)
 *
 * so every call of a record is alike for each rule, and dft-analyze adds
 * the record where it would add its calls.  A record also carries the
 * model's state after its last call (pos, rd_end, wr_end), the first
 * start and the extent it covered, and the end of its last call.  The
 * records of a file are written together, in the order of their last
 * calls, before any complete event on that file from the same thread (an
 * fclose, a seek that is not aggregated), at the end of an interval, at
 * thread exit, exec and finalize: the analysis then meets them where it
 * would have met their calls, and its model continues from their state.
 * Seeks and tells (lseek, fseek, ftell: Python's tell() is an lseek per
 * call) fold the same way into records of their name, file and enclosing
 * function (class DFT_IO_SEEK): no bytes, no access kind, the model's
 * state after the last (dft_io_agg_seek).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "core.h"
#include "ioagg.h"

/* ---- the position model (dft-analyze agg.c io_event) ------------------- */

/*
 * The model is the calling thread's, one per file: each thread positions
 * a file apart, as the analysis judges each thread's calls in its own
 * order (two threads positioning one file in one model would make the
 * answer depend on how their calls interleave, which the trace, a buffer
 * per thread, does not keep).  A thread's models are an open-addressed
 * table by file, first in the thread itself, then in memory of blk_alloc
 * (no malloc on an intercepted path), grown by doubling, freed at thread
 * exit; a fork child starts without (a new process to the analysis).
 */
static size_t mtab_bytes(size_t cap)
{
	return (cap * sizeof(struct dft_model) + 4095) & ~(size_t)4095;
}

static struct dft_model *mtab_slot(struct dft_model *e, size_t cap,
				   const struct dft_file *f)
{
	size_t i = ((uintptr_t)f >> 4) * 0x9e3779b97f4a7c15ull >> 20;

	for (;; i++) {
		struct dft_model *m = &e[i & (cap - 1)];

		if (!m->f || m->f == f)
			return m;
	}
}

/* t's model of f, made (at 0) the first time; NULL without memory */
struct dft_model *dft_model_find(struct dft_thread *t,
				 const struct dft_file *f)
{
	struct dft_model *m;

	if (!t->mt) {
		t->mt = t->m0;
		t->mcap = DFT_MODEL0;
	}
	m = mtab_slot(t->mt, t->mcap, f);
	if (!m->f) {
		if (2 * (t->mn + 1) > t->mcap) {	/* grow, then again */
			size_t cap = 2 * t->mcap;
			struct dft_model *g = (struct dft_model *)blk_alloc(
				mtab_bytes(cap), 0);

			if (!g)
				return NULL;
			for (size_t i = 0; i < t->mcap; i++)
				if (t->mt[i].f)
					*mtab_slot(g, cap, t->mt[i].f) =
						t->mt[i];
			if (t->mt != t->m0)
				blk_free((char *)t->mt, mtab_bytes(t->mcap));
			t->mt = g;
			t->mcap = cap;
			m = mtab_slot(g, cap, f);
		}
		m->f = f;
		t->mn++;
	}
	t->mlast = m;
	return m;
}

void dft_model_free(struct dft_thread *t)
{
	if (t->mt && t->mt != t->m0)
		blk_free((char *)t->mt, mtab_bytes(t->mcap));
	memset(t->m0, 0, sizeof(t->m0));
	t->mt = t->mlast = NULL;
	t->mcap = t->mn = 0;
}

/* the calling thread's model of f, or NULL */
static struct dft_model *model_self(const struct dft_file *f)
{
	struct dft_thread *t;
	struct dft_model *m = NULL;

	DFT_PENDING_CHECK();
	dft_guard++;
	t = dft_self();
	if (t)
		m = dft_model_of(t, f);
	dft_guard--;
	return m;
}

void dft_model_open(struct dft_file *f)
{
	struct dft_model *m = model_self(f);

	if (m)
		m->pos = m->end_r = m->end_w = 0;
}

/* lseek and ftell set the position they return; fseek (which returns 0)
 * the offset it was given from SEEK_SET; fseeko returns 0 too and the
 * analysis takes that as the position: so does the model */
void dft_model_seek(struct dft_file *f, const char *name, long long ret,
		    int has_off, int whence, long long offset)
{
	struct dft_model *m = model_self(f);

	if (!m)
		return;
	if (ret >= 0 && strcmp(name, "fseek") != 0)
		m->pos = ret;
	else if (has_off && whence == 0)
		m->pos = offset;
}

/* Adds [a, b) to the bytes read of f (sorted disjoint ranges, at most 16:
 * past that the two closest are joined, so the set can only grow) and
 * returns how many of its bytes were in it before: exact while a file's
 * reads leave at most 16 holes, as the analysis' own set is exact up to
 * its intervals_max. */
int64_t dft_rd_add(struct dft_model *f, int64_t a, int64_t b)
{
	int64_t cov = 0, lo = a, hi = b;
	unsigned i, j, k = 0, n = f->nrd;
	int64_t (*r)[2] = f->rd;

	/* the usual cases: streaming on from the last range, or inside one */
	if (n > 0 && a == r[n - 1][1]) {
		r[n - 1][1] = b;
		return 0;
	}
	if (n == 1 && a >= r[0][0] && b <= r[0][1])
		return b - a;
	for (i = 0; i < n; i++) {
		int64_t x = r[i][0] > a ? r[i][0] : a;
		int64_t y = r[i][1] < b ? r[i][1] : b;

		if (y > x)
			cov += y - x;
	}
	/* ranges before, touching, after [lo, hi) */
	while (k < n && r[k][1] < lo)
		k++;
	for (j = k; j < n && r[j][0] <= hi; j++) {
		if (r[j][0] < lo)
			lo = r[j][0];
		if (r[j][1] > hi)
			hi = r[j][1];
	}
	/* r[k..j) merge into [lo, hi) */
	if (j > k) {
		r[k][0] = lo;
		r[k][1] = hi;
		memmove(r + k + 1, r + j, (n - j) * sizeof(*r));
		f->nrd = n - (j - k - 1);
		return cov;
	}
	if (n == 16) {	/* join the closest two first */
		unsigned m = 0;

		for (i = 1; i + 1 < n; i++)
			if (r[i + 1][0] - r[i][1] < r[m + 1][0] - r[m][1])
				m = i;
		r[m][1] = r[m + 1][1];
		memmove(r + m + 1, r + m + 2, (n - m - 2) * sizeof(*r));
		n--;
		if (k > m)
			k--;
		/* [lo, hi) may now touch the joined range */
		f->nrd = n;
		if (k > 0 && r[k - 1][1] >= lo) {
			f->nrd = n;
			dft_rd_add(f, lo, hi);
			return cov;
		}
	}
	memmove(r + k + 1, r + k, (n - k) * sizeof(*r));
	r[k][0] = lo;
	r[k][1] = hi;
	f->nrd = n + 1;
	return cov;
}

unsigned dft_model_data(struct dft_file *f, int w, int positional,
			long long off, long long bytes, long long *start_out)
{
	struct dft_thread *t = dft_self();	/* inside ev_rw's guard */

	return model_data(t ? dft_model_of(t, f) : NULL, w, positional, off,
			  bytes, start_out);
}

/* ---- the throttle's decision -------------------------------------------- */

/* dft_io_folded's miss (internal.h): the configuration, then the table */
struct dft_thread *dft_io_folded_slow(const char *name, const char *cat)
{
	struct dft_thread *t;
	int s;

	if (!G.throttle_io || !G.throttle_calls)
		return NULL;
	t = dft_self();
	if (!t)
		return NULL;
	dft_guard++;
	s = fn_lookup(t, name, cat);
	dft_guard--;
	return s >= 0 && t->fns[s].throttled ? t : NULL;
}

void dft_io_count(struct dft_thread *t, const char *name, const char *cat,
		  uint64_t dur)
{
	struct dft_fnstat *e;
	int s;

	if (!G.throttle_io || !G.throttle_calls)
		return;
	s = fn_lookup(t, name, cat);
	if (s < 0)
		return;
	e = &t->fns[s];
	e->calls++;
	e->dur_sum += dur;
	e->shorts += dur < G.throttle_us;
	if (dft_throttle_due(e) && !e->throttled) {
		e->throttled = 1;
		rt_msg(LOG_INFO, "aggregating %s (%s): %llu calls, %.1f us a "
		       "call", e->name, e->cat, (unsigned long long)e->calls,
		       (double)e->dur_sum / (double)e->calls);
	}
}

/* ---- the enclosing function --------------------------------------------- */

/* ,"file":<file>,"line":<line> from a region's rendered args (the
 * "file" and "line" dft-annotate gives every START), as they are or
 * (parent) as ,"pfile":..,"pline":.., interned; NULL when it has neither */
const char *dft_loc_of(const char *a, size_t n, int parent)
{
	char buf[1024];
	size_t k = 0;
	const char *p, *end = a + n;

	for (p = a; p + 8 <= end; p++) {
		const char *v, *q;

		if (*p != ',' || p[1] != '"')
			continue;
		if (p + 8 <= end && memcmp(p, ",\"file\":", 8) == 0)
			v = p + 8;
		else if (p + 8 <= end && memcmp(p, ",\"line\":", 8) == 0)
			v = p + 8;
		else
			continue;
		/* the value: a string (escapes kept) or a number */
		q = v;
		if (q < end && *q == '"') {
			for (q++; q < end && *q != '"'; q++)
				if (*q == '\\')
					q++;
			q++;
		} else {
			while (q < end && *q != ',' && *q != '}')
				q++;
		}
		if (q > end || k + 9 + (size_t)(q - v) >= sizeof(buf))
			break;
		if (parent) {
			memcpy(buf + k, p[2] == 'f' ? ",\"pfile\":" :
						       ",\"pline\":", 9);
			k += 9;
		} else {
			memcpy(buf + k, p, 8);
			k += 8;
		}
		memcpy(buf + k, v, (size_t)(q - v));
		k += (size_t)(q - v);
		p = q - 1;
	}
	if (!k)
		return NULL;
	buf[k] = '\0';
	return fn_intern(buf);
}

static int is_layer(const char *cat)
{
	return (cat[0] == 'M' || cat[0] == 'H') &&
	       (strcmp(cat, "MPIIO") == 0 || strcmp(cat, "HDF5") == 0 ||
		strcmp(cat, "MPI") == 0);
}

/* ---- records ------------------------------------------------------------ */

static void rec_write(struct dft_thread *t, struct dft_iorec *x)
{
	agg_head(t, x->name, x->cat, x->first);
	DFT_LIT(t, "\",\"fhash\":\"");
	ev_raw(t, x->f->hash, 16);
	DFT_LIT(t, "\"");
	EV_INT(t, "level", x->level);
	EV_INT(t, "dft_cnt", (long long)x->cnt);
	EV_INT(t, "dur_min", (long long)dft_tick_us(x->dmin));
	EV_INT(t, "dur_max", (long long)dft_tick_us(x->dmax));
	EV_INT(t, "dur_sum", (long long)dft_tick_us(x->dsum));
	/* a seek's record: no bytes and no access kind, only the model's
	 * state after it (the reader knows it by end without seq) */
	if (!((x->cls >> 8) & DFT_IO_SEEK)) {
		EV_INT(t, "size_min", (long long)x->bmin);
		EV_INT(t, "size_max", (long long)x->bmax);
		EV_INT(t, "size_sum", (long long)x->bsum);
		EV_INT(t, "seq", (x->cls >> 8) & DFT_IO_CONS ? 2 :
				 (x->cls >> 8) & DFT_IO_SEQ ? 1 : 0);
		EV_INT(t, "misaligned", !!((x->cls >> 8) & DFT_IO_MISAL));
		EV_INT(t, "reread", !!((x->cls >> 8) & DFT_IO_REREAD));
		EV_INT(t, "offset", x->off_lo);
		EV_INT(t, "extent", x->ext);
	}
	EV_INT(t, "end", (long long)(x->anc_us +
				     dft_tick_us(x->last_tick - x->anc_tick)));
	EV_INT(t, "pos", x->pos);
	EV_INT(t, "rd_end", x->end_r);
	EV_INT(t, "wr_end", x->end_w);
	if (x->pname) {
		DFT_LIT(t, ",\"parent\":");
		put_str(t, x->pname, 0);
		DFT_LIT(t, ",\"pcat\":");
		put_str(t, x->pcat, 0);
		if (x->ploc)
			ev_raw(t, x->ploc, strlen(x->ploc));
	}
	DFT_LIT(t, "}}\n");
	x->f = NULL;
	t->nio--;
	if (t->overflow) {
		t->n = 0;
		t->overflow = 0;
		return;
	}
	commit(t);
}

/* Writes the open records of f (every file: NULL), oldest last call
 * first.  Caller holds the guard. */
static void flush_recs(struct dft_thread *t, const struct dft_file *f)
{
	for (;;) {
		struct dft_iorec *best = NULL;

		for (unsigned i = 0; i < DFT_IOREC; i++) {
			struct dft_iorec *x = &t->io[i];

			if (x->f && (!f || x->f == f) &&
			    (!best || x->seq < best->seq))
				best = x;
		}
		if (!best)
			return;
		rec_write(t, best);
	}
}

void dft_io_flush_file(struct dft_thread *t, const struct dft_file *f)
{
	if (t->nio && t->buf)
		flush_recs(t, f);
}

void dft_io_flush_all(struct dft_thread *t)
{
	if (t->nio && t->buf)
		flush_recs(t, NULL);
}

/* o's open records written through t's scratch and buffer (finalize, o
 * another thread that is not in the tracer: core.c) */
void dft_io_flush_other(struct dft_thread *t, struct dft_thread *o)
{
	if (!o->nio || !o->io || !t->buf)
		return;
	for (;;) {
		struct dft_iorec *best = NULL;

		for (unsigned i = 0; i < DFT_IOREC; i++) {
			struct dft_iorec *x = &o->io[i];

			if (x->f && (!best || x->seq < best->seq))
				best = x;
		}
		if (!best)
			return;
		t->nio++;	/* rec_write counts the record off t */
		rec_write(t, best);
		o->nio--;
	}
}

/* the records, then the cache's pointers in the room of 64 more records */
#define DFT_IO_TABLE ((DFT_IOREC + 64) * sizeof(struct dft_iorec))
_Static_assert(DFT_IOC * sizeof(struct dft_iorec *) <=
	       64 * sizeof(struct dft_iorec), "the cache fits its room");

void dft_io_release(struct dft_thread *t)
{
	blk_free((char *)t->io, DFT_IO_TABLE);
	t->io = NULL;
}

void dft_io_drop(struct dft_thread *t)
{
	if (t->io)
		memset(t->io, 0, DFT_IOREC * sizeof(*t->io));
	t->nio = 0;
	dft_model_free(t);
}

void dft_io_agg_rec(struct dft_thread *t, const char *name, const char *cat,
		    struct dft_file *f, uint64_t t0, uint64_t t1,
		    long long bytes, unsigned cls, long long start,
		    struct dft_region *p, int known)
{
	struct dft_iorec *x = NULL, *freex = NULL;
	const char *pn, *pc;
	uint64_t dk = t1 - t0, dns, h, st;
	unsigned i, ci;
	int k, e = errno;

	/* mmap: no malloc inside write() (writer.c) */
	if (!t->io && !(t->io = (struct dft_iorec *)blk_alloc(DFT_IO_TABLE, 0))) {
		errno = e;
		return;
	}
	if (known) {	/* the innermost region, or none */
		pn = p ? p->name : NULL;
		pc = p ? p->cat : NULL;
		goto parent;
	}
	/* the enclosing function: the innermost region not a layer's span */
	k = (t->depth > DFT_DEPTH ? DFT_DEPTH : t->depth) - 1;
	for (p = NULL; k >= 0; k--) {
		p = t->stack[k];
		if (!p->cat || !is_layer(p->cat))
			break;
		p = NULL;
	}
	/* names of a region's own copies are freed with it: interned */
	pn = !p ? NULL : p->own ? fn_intern(p->name) : p->name;
	pc = !p ? NULL : p->own ? fn_intern(p->cat) : p->cat;
parent:
	if (!pn || !pc)
		pn = pc = NULL;
	/* the record of the thread's latest call of this size first */
	ci = IO_SLOT(cls, pn);	/* the size class in its function */
	x = IO_CACHE(t)[ci];
	if (!x || x->f != f || x->name != name || x->cat != cat ||
	    x->cls != cls || x->pname != pn || x->pcat != pc)
		x = NULL;
	h = x ? 0 : ((uintptr_t)name >> 3) ^ ((uintptr_t)f >> 4) * 31 ^
		    ((uintptr_t)pn >> 3) * 17 ^ cls * 7;
	for (i = 0; !x && i < DFT_IOREC; i++) {
		struct dft_iorec *y = &t->io[(h + i) & (DFT_IOREC - 1)];

		if (!y->f) {
			if (!freex)
				freex = y;
			continue;
		}
		if (y->f == f && y->name == name && y->cat == cat &&
		    y->cls == cls && y->pname == pn && y->pcat == pc) {
			x = y;
			break;
		}
	}
	if (x) {	/* the call's start, estimated; the clock confirms */
		if (t0 < x->anc_tick || t0 >= x->lim_tick) {
			dns = dft_tick_ns(dk);
			st = dft_now() - (dns + 500) / 1000;
			if (st < x->iv || st - x->iv >= G.interval_us) {
				flush_recs(t, f);
				x = NULL;
				freex = NULL;
			} else {	/* still inside: a closer anchor */
				x->anc_us = st;
				x->anc_tick = t0;
				x->lim_tick = t0 + dft_ns_ticks(
					(x->iv + G.interval_us - st) * 1000);
			}
		}
	}
	if (!x) {
		if (!freex) {
			for (i = 0; i < DFT_IOREC && t->io[i].f; i++)
				;
			if (i == DFT_IOREC) {	/* full: write them all */
				flush_recs(t, NULL);
				i = 0;
			}
			freex = &t->io[i];
		}
		x = freex;
		memset(x, 0, sizeof(*x));
		dft_tick_anchor();
		dns = dft_tick_ns(dk);
		st = dft_now() - (dns + 500) / 1000;
		x->name = name;
		x->cat = cat;
		x->f = f;
		x->cls = cls;
		x->first = x->anc_us = st;
		x->anc_tick = t0;
		x->iv = st - st % G.interval_us;
		x->lim_tick = t0 + dft_ns_ticks((x->iv + G.interval_us - st) *
						1000);
		x->level = t->depth + 1;
		x->dmin = dk;
		x->bmin = (uint64_t)bytes;
		x->off_lo = start;
		if (pn) {
			x->pname = pn;
			x->pcat = pc;
			if (p->magic == DFT_R_FULL && p->alen)
				x->ploc = dft_loc_of(p->args, p->alen, 1);
			else if (p->slot >= 0 &&
				 (unsigned)p->slot < t->fncap &&
				 t->fns[p->slot].hash == p->fhash)
				x->ploc = t->fns[p->slot].ploc;
		}
		t->nio++;
	}
	iorec_count(t, x, dft_model_of(t, f), dk, t1, bytes, start);
	IO_CACHE(t)[ci] = x;
	errno = e;
}

void dft_io_agg_cold(struct dft_thread *t, int w, const char *name,
		     const char *cat, struct dft_file *f, uint64_t t0,
		     uint64_t t1, long long bytes, int positional,
		     long long off)
{
	int e = errno;
	long long start;
	unsigned cls;

	DFT_PENDING_CHECK();
	dft_guard++;
	if (t->buf && dft_on_any) {
		cls = dft_size_class(bytes) |
		      model_data(dft_model_of(t, f), w, positional, off, bytes,
				 &start) << 8;
		dft_io_agg_rec(t, name, cat, f, t0, t1, bytes, cls, start,
			       NULL, 0);
	}
	dft_guard--;
	errno = e;
}

void dft_io_agg_seek(struct dft_thread *t, const char *name, const char *cat,
		     struct dft_file *f, uint64_t t0, uint64_t t1)
{
	int e = errno;

	DFT_PENDING_CHECK();
	dft_guard++;
	if (t->buf && dft_on_any)	/* the enclosing function looked for */
		dft_io_agg_rec(t, name, cat, f, t0, t1, 0, DFT_IO_SEEK << 8, 0,
			       NULL, 0);
	dft_guard--;
	errno = e;
}
