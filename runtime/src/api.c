/*
 * api.c - the dftracer C API of the bundled runtime: regions
 * (initialize_region/finalize_region and their metadata, behind
 * DFTRACER_C_FUNCTION_START/END), the INIT/FINI entry points
 * (initialize_main, initialize_no_bind, finalize) and the extras of the
 * Python package.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../include/dftracer/dftracer.h"
#include "internal.h"
#include "core.h"

/* ---- regions (the dftracer C API) --------------------------------------- */

/*
 * START, UPDATE and END call no malloc: a thread's first malloc makes its
 * malloc arena (a 128 MiB reservation, unmaps, mprotect: the address-space
 * lock, while the program's other threads fault their memory in), and a
 * signal handler that mallocs may interrupt annotated code.  Region
 * handles and their memory (args, pair offsets, own name copies) come from
 * dft_perm, never freed, and are kept for reuse: on their thread (handles
 * up to DFT_NFREE, blocks of 64 << k bytes up to DFT_TM_KEEP a class), the
 * rest on process-wide lists, lock-free: a push by compare-and-swap, a take
 * of the whole list by exchange (no ABA), safe in a signal handler and in
 * a forked child.
 */
struct tm_blk {
	struct tm_blk *next;
};
#define DFT_TM_MAX (64u << (DFT_NCLS - 1))	/* the largest block */
#define DFT_TM_KEEP 32

static struct dft_region *_Atomic spare_regions;
static struct tm_blk *_Atomic spare_blk[DFT_NCLS];

static unsigned tm_class(size_t n)
{
	unsigned k = 0;

	while ((size_t)64 << k < n)
		k++;
	return k;
}

/* pushes the chain first..last (linked by next) onto *head */
#define SPARE_PUSH(head, first, last)                                       \
	do {                                                                \
		__typeof__(first) old_ = atomic_load(head);                 \
		do                                                          \
			(last)->next = old_;                                \
		while (!atomic_compare_exchange_weak(head, &old_, (first))); \
	} while (0)

/* pushes the chain starting at first onto *head */
#define SPARE_PUSH_ALL(head, first)                                         \
	do {                                                                \
		__typeof__(first) last_ = (first);                          \
		while (last_->next)                                         \
			last_ = last_->next;                                \
		SPARE_PUSH(head, (first), last_);                           \
	} while (0)

/* out = the whole list *head, taken at once (NULL when empty): its first
 * entry for the caller, the others kept on the thread's list *tlist
 * (counted in *tcount), or pushed back when there is no thread (tlist
 * NULL) */
#define SPARE_TAKE(out, head, tlist, tcount)                                \
	do {                                                                \
		(out) = atomic_exchange(head, NULL);                        \
		if ((out) && (out)->next) {                                 \
			__typeof__(out) rest_ = (out)->next, last_ = rest_; \
			unsigned c_ = 1;                                    \
			for (; last_->next; last_ = last_->next)            \
				c_++;                                       \
			if (tlist) {                                        \
				last_->next = *(tlist);                     \
				*(tlist) = rest_;                           \
				*(tcount) += c_;                            \
			} else {                                            \
				SPARE_PUSH(head, rest_, last_);             \
			}                                                   \
		}                                                           \
	} while (0)

/* a block of at least n bytes (*cap set to its size); NULL past
 * DFT_TM_MAX or out of memory */
static void *tm_get(struct dft_thread *t, size_t n, size_t *cap)
{
	unsigned k;
	struct tm_blk *b;

	if (n > DFT_TM_MAX)
		return NULL;
	k = tm_class(n);
	*cap = (size_t)64 << k;
	if (t && (b = t->tm[k])) {
		t->tm[k] = b->next;
		t->tmn[k]--;
		return b;
	}
	SPARE_TAKE(b, &spare_blk[k], t ? &t->tm[k] : NULL,
		   t ? &t->tmn[k] : NULL);
	return b ? (void *)b : dft_perm(*cap);
}

/* p, of cap bytes (as tm_get set it), back for reuse */
static void tm_put(struct dft_thread *t, void *p, size_t cap)
{
	unsigned k = tm_class(cap);
	struct tm_blk *b = p;

	if (!b)
		return;
	if (t && t->tmn[k] < DFT_TM_KEEP) {
		b->next = t->tm[k];
		t->tm[k] = b;
		t->tmn[k]++;
		return;
	}
	SPARE_PUSH(&spare_blk[k], b, b);
}

/* A thread's kept handles and blocks to the process-wide lists (its exit) */
void region_thread_release(struct dft_thread *t)
{
	struct dft_region *r = t->free;

	if (r) {
		SPARE_PUSH_ALL(&spare_regions, r);
		t->free = NULL;
		t->nfree = 0;
	}
	for (unsigned k = 0; k < DFT_NCLS; k++) {
		struct tm_blk *b = t->tm[k];

		if (!b)
			continue;
		SPARE_PUSH_ALL(&spare_blk[k], b);
		t->tm[k] = NULL;
		t->tmn[k] = 0;
	}
}

/* Appends a rendered pair whose key part (,"key":) is klen bytes long,
 * replacing an earlier pair with the same key. */
static void region_args_add(struct dft_thread *t, struct dft_region *r,
			    const char *frag, size_t n, size_t klen)
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
	/* the blocks grow by classes (tm_get); past the largest the pair is
	 * dropped (the event, longer than a line, would be anyway) */
	if (r->npairs == r->pcap) {
		size_t cap;
		size_t *p = tm_get(t, (r->npairs + 1) * sizeof(*p), &cap);

		if (!p)
			return;
		if (r->npairs)
			memcpy(p, r->poff, r->npairs * sizeof(*p));
		tm_put(t, r->poff, r->pcap * sizeof(*p));
		r->poff = p;
		r->pcap = cap / sizeof(*p);
	}
	if (r->alen + n + 1 > r->acap) {
		size_t cap;
		char *p = tm_get(t, r->alen + n + 1, &cap);

		if (!p)
			return;
		if (r->alen)
			memcpy(p, r->args, r->alen);
		tm_put(t, r->args, r->acap);
		r->args = p;
		r->acap = cap;
	}
	r->poff[r->npairs++] = r->alen;
	memcpy(r->args + r->alen, frag, n);
	r->alen += n;
}

/* Renders one ,"key":value pair through the thread's line scratch. */
static __attribute__((noinline)) void
region_update_full(struct dft_region *r, const char *key, const char *sval,
		   long long ival, double dval, int kind)
{
	struct dft_thread *t;
	size_t save, klen;

	if (!key || r->meta || !G.metadata || !dft_on_any || dft_guard)
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
		region_args_add(t, r, t->line + save, t->n - save, klen);
	t->n = save;
	t->overflow = 0;
	dft_guard--;
}

/* An UPDATE: a folded call (a throttled function's START) keeps no args,
 * so its UPDATEs return at once, inline in the API functions */
static inline __attribute__((always_inline)) void
region_update(struct DFTracerData *d, const char *key, const char *sval,
	      long long ival, double dval, int kind)
{
	struct dft_region *r = (struct dft_region *)d;

	if (r && r->magic == DFT_R_FULL)
		region_update_full(r, key, sval, ival, dval, kind);
}

/* r starts now, inside the thread's innermost open region (whose id is
 * taken first: a folded call gets its id when something names it) */
static void region_open(struct dft_thread *t, struct dft_region *r)
{
	r->p_idx = top_id(t);
	r->id = dft_next_id();
	r->level = t->depth + 1;
	if (t->depth < DFT_DEPTH)
		t->stack[t->depth] = r;
	t->depth++;
	r->ts = dft_now();
}

/* Region handles come from a short per-thread free list, else the
 * process-wide one, else dft_perm: a START/END pair costs no malloc or
 * free. */
#define DFT_NFREE 32

/* a handle, not cleared */
static struct dft_region *region_raw(struct dft_thread *t)
{
	struct dft_region *r = t ? t->free : NULL;

	if (r) {
		t->free = r->next;
		t->nfree--;
		return r;
	}
	SPARE_TAKE(r, &spare_regions, t ? &t->free : NULL,
		   t ? &t->nfree : NULL);
	return r ? r : dft_perm(sizeof(*r));
}

/* a region's own copies of its name and category: one block */
static size_t own_size(const struct dft_region *r)
{
	return strlen(r->name) + strlen(r->cat) + 2;
}

struct dft_region *region_get(struct dft_thread *t)
{
	struct dft_region *r = region_raw(t);

	if (r)
		memset(r, 0, sizeof(*r));
	return r;
}

static inline void agg_clean(struct dft_region *r);

/* r back for reuse: on t's list, else the process's (a handle there may
 * come back to any thread's list: left as a folded START finds it) */
void region_put(struct dft_thread *t, struct dft_region *r)
{
	if (r->own) {
		tm_put(t, r->name, own_size(r));
		r->own = 0;
	}
	if (DFT_UNLIKELY(r->args || r->poff)) {
		tm_put(t, r->args, r->acap);
		tm_put(t, r->poff, r->pcap * sizeof(*r->poff));
		r->args = NULL;
		r->poff = NULL;
		r->alen = r->acap = r->npairs = r->pcap = 0;
	}
	if (r->magic == DFT_R_AGG)
		agg_clean(r);
	if (t && t->nfree < DFT_NFREE) {
		r->next = t->free;
		t->free = r;
		t->nfree++;
		return;
	}
	SPARE_PUSH(&spare_regions, r, r);
}

/* initialize_region but its fast path */
static __attribute__((noinline)) struct DFTracerData *
region_start(const char *name, const char *cat, int event_type)
{
	struct dft_region *r;
	struct dft_thread *t;
	int slot = -1, meta = event_type == DF_METADATA_EVENT;

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
	if (G.throttle_calls && !meta)
		slot = fn_lookup(t, name, cat);
	if (slot >= 0 && t->fns[slot].throttled) {
		/* folded: on the stack, no id until something inside
		 * names it as parent; only the fields it uses are set */
		struct dft_fnstat *e = &t->fns[slot];

		r = region_raw(t);
		if (!r)
			goto none;
		r->magic = DFT_R_AGG;
		r->slot = slot;
		r->fhash = e->hash;
		r->id = 0;
		r->meta = 0;
		r->name = (char *)e->name;
		r->cat = (char *)e->cat;
		r->own = 0;
		r->args = NULL;
		r->poff = NULL;
		r->alen = 0;
		r->emitted = 0;
		r->kids = 0;
		r->t = t;
		r->p_idx = -1;
		r->level = t->depth + 1;
		r->cend = 0;
		if (t->depth < DFT_DEPTH)
			t->stack[t->depth] = r;
		t->depth++;
		/* the cheap clock: a start time only if it is named */
		r->ts = 0;
		r->tick = dft_tick();
		/* keeps no args: the header's UPDATEs make no call
		 * (DFTRACER_KEEPS_ARGS); a folded START reuses the handle as
		 * it is */
		r->pub.profiler = NULL;
		dft_guard--;
		return &r->pub;
	}
	r = region_get(t);
	if (!r)
		goto none;
	r->slot = slot;
	if (slot >= 0) {
		struct dft_fnstat *e = &t->fns[slot];

		r->fhash = e->hash;
		r->name = (char *)e->name;
		r->cat = (char *)e->cat;
	} else {
		size_t nl = strlen(name) + 1, cl = strlen(cat) + 1, cap;
		char *p = tm_get(t, nl + cl, &cap);

		if (!p) {	/* longer than a line, or out of memory */
			region_put(t, r);
			goto none;
		}
		memcpy(p, name, nl);
		memcpy(p + nl, cat, cl);
		r->own = 1;
		r->name = p;
		r->cat = p + nl;
	}
	r->magic = DFT_R_FULL;
	r->meta = meta;
	if (!meta)
		region_open(t, r);
	r->pub.profiler = r;
	dft_guard--;
	return &r->pub;
none:
	dft_guard--;
	return NULL;
}

/*
 * A folded call's START, the hot path: a throttled function named by
 * literals of the executable (the pointer cache's hit needs no strcmp)
 * and a handle on the free list that a folded call's END left there,
 * which has every field a folded call does not set here as a folded
 * START sets it (magic, id 0, no args, p_idx -1, ts 0, not emitted: see
 * agg_clean).  Anything else goes to region_start.  No call but the
 * tick; the guard held while the list and the stack change.
 */
DFT_API struct DFTracerData *initialize_region(const char *name,
					       const char *cat, int event_type)
{
	struct dft_thread *t;

	if (!dft_on_any)	/* tracing off: nothing else read */
		return NULL;
	t = dft_tself;
	if (DFT_LIKELY(t && !dft_guard && !dft_pending && t->gen == dft_gen &&
		       event_type != DF_METADATA_EVENT)) {
		const struct dft_fncache *c = &t->fc[fn_cache_index(name, cat)];
		struct dft_region *r;
		struct dft_fnstat *e;
		int d;

		if (DFT_UNLIKELY(c->name != name || c->cat != cat)) {
			c += DFT_FNC;	/* the other way (fn_cache_at) */
			if (c->name != name || c->cat != cat)
				goto slow;
		}
		if (DFT_UNLIKELY(!c->lit || c->slot < 0))
			goto slow;
		e = &t->fns[c->slot];
		if (DFT_UNLIKELY(!e->throttled))
			goto slow;
		dft_guard++;
		r = t->free;
		if (DFT_UNLIKELY(!r || r->magic != DFT_R_AGG)) {
			dft_guard--;
			goto slow;
		}
		t->free = r->next;
		t->nfree--;
		r->slot = c->slot;
		r->fhash = e->hash;
		r->name = (char *)e->name;
		r->cat = (char *)e->cat;
		r->kids = 0;
		r->t = t;
		d = t->depth;
		r->level = d + 1;
		if (d < DFT_DEPTH)
			t->stack[d] = r;
		t->depth = d + 1;
		r->tick = dft_tick();
		dft_guard--;
		return &r->pub;
	}
slow:
	return region_start(name, cat, event_type);
}

/* The head of r's event up to its p_idx and level; returns whether it
 * has args. */
static int region_head(struct dft_thread *t, struct dft_region *r,
		       uint64_t end)
{
	/* names that are not the region's own copies stay put: interned
	 * or literals (spans) */
	int args = r->own ? ev_begin(t, r->id, r->name, r->cat, r->ts,
				     end - r->ts) :
			    ev_begin_lit(t, r->id, r->name, r->cat, r->ts,
					 end - r->ts);

	if (args) {
		DFT_LIT(t, ",\"p_idx\":");
		put_i64(t, r->p_idx);
		DFT_LIT(t, ",\"level\":");
		put_i64(t, r->level);
	}
	return args;
}

int region_format(struct dft_thread *t, struct dft_region *r,
			 uint64_t end)
{
	int args = region_head(t, r, end);

	if (args) {
		if (r->alen) {
			ev_raw(t, r->args, r->alen);
		} else if (r->magic == DFT_R_AGG && r->slot >= 0 &&
			   (unsigned)r->slot < t->fncap &&
			   t->fns[r->slot].hash == r->fhash &&
			   t->fns[r->slot].loc) {
			/* a folded call written whole: where it is */
			const char *l = t->fns[r->slot].loc;

			ev_raw(t, l, strlen(l));
		}
		DFT_LIT(t, "}}\n");
	} else {
		DFT_LIT(t, "}\n");
	}
	return args;
}

void region_emit(struct dft_thread *t, struct dft_region *r,
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

/* A folded call's handle goes back on the free list as a folded START
 * finds it (initialize_region): what naming it or writing it changed is
 * reset */
static inline void agg_clean(struct dft_region *r)
{
	if (DFT_UNLIKELY(r->id || r->emitted || r->ts || r->cend ||
			 r->p_idx != -1)) {
		r->id = 0;
		r->ts = 0;
		r->p_idx = -1;
		r->emitted = 0;
		r->cend = 0;
	}
}

/* A folded call of dns nanoseconds on its own thread t: agg_add's common
 * case inline (the open record of its slot, its interval not over: a tick
 * compare), agg_add for the rest */
static inline __attribute__((always_inline)) void
fold_count(struct dft_thread *t, struct dft_region *r, uint64_t dns)
{
	if (DFT_LIKELY((unsigned)r->slot < t->fncap)) {
		struct dft_fnstat *e = &t->fns[r->slot];

		if (DFT_LIKELY(e->hash == r->fhash && e->cnt &&
			       r->tick >= e->anc_tick &&
			       r->tick < e->lim_tick)) {
			fnstat_count(e, dns);
			return;
		}
	}
	agg_add(t, r, dns);
}

/* finalize_region but its fast path */
static __attribute__((noinline)) void region_end(struct dft_region *r)
{
	struct dft_thread *t;
	int quiet;

	/* after finalize the stack stays as it is and the handle is kept:
	 * finalize on another thread may be reading them
	 * (others_open_regions) */
	if (DFT_UNLIKELY(!dft_on_any))
		return;
	/* inside the tracer (a signal handler that interrupted it): the
	 * region is dropped, not written */
	quiet = dft_guard;
	dft_guard++;
	if (!quiet)
		DFT_PENDING_CHECK();
	t = dft_self();
	if (r->meta) {
		if (t && !quiet && dft_on_any)
			ev_meta(t, "CM", r->name, 0, r->cat);
	} else if (r->magic == DFT_R_AGG) {
		/* a folded call: its duration from the cheap clock */
		uint64_t tk = dft_tick(), dns = dft_tick_ns(tk - r->tick);

		if (t && t->depth > 0) {
			t->depth--;
			if (t->depth > 0 && t->depth <= DFT_DEPTH)
				t->stack[t->depth - 1]->kids +=
					(dns + 500) / 1000;
		}
		if (!t || quiet || !dft_on_any) {
			;
		} else if (r->id) {	/* named: written whole */
			uint64_t end = fold_end(r, tk);

			if (t->buf)
				region_emit(t, r, end);
			dft_child_end(t, end);
		} else {
			if (DFT_LIKELY(t->buf && r->t == t))
				fold_count(t, r, dns);
			else
				agg_add(t, r, dns);
		}
	} else {
		uint64_t end = dft_now();

		if (t && t->depth > 0) {
			t->depth--;
			/* the caller's own time excludes this call */
			if (t->depth > 0 && t->depth <= DFT_DEPTH)
				t->stack[t->depth - 1]->kids += end - r->ts;
			dft_child_end(t, end);
		}
		if (!t || quiet || !dft_on_any) {
			;
		} else if (!r->emitted) {
			region_emit(t, r, end);
			if (G.throttle_calls)
				fn_count(t, r, end - r->ts);
		}
	}
	/* region_put's common case inline: a folded call's handle owns
	 * nothing.  Under the guard: a signal handler's START in between
	 * would take a handle from the list being changed */
	if (DFT_LIKELY(!r->own && !r->args && !r->poff && t &&
		       t->nfree < DFT_NFREE)) {
		if (r->magic == DFT_R_AGG)
			agg_clean(r);
		r->next = t->free;
		t->free = r;
		t->nfree++;
	} else {
		region_put(t, r);
	}
	dft_guard--;
}

/*
 * A folded call's END, the hot path: nothing named it, it ends on the
 * thread it began on, inside its record's interval (a tick compare);
 * the handle goes back on the free list as it is (agg_clean has nothing
 * to reset).  Anything else goes to region_end.
 */
DFT_API void finalize_region(struct DFTracerData *d)
{
	struct dft_region *r = (struct dft_region *)d;
	struct dft_thread *t = dft_tself;

	if (!r)
		return;
	if (DFT_LIKELY(t && r->magic == DFT_R_AGG && r->t == t && !r->id &&
		       !dft_guard && dft_on_any && !dft_pending &&
		       t->gen == dft_gen && t->buf && t->nfree < DFT_NFREE)) {
		uint64_t tk, dns;
		int dp;

		dft_guard++;
		tk = dft_tick();
		dns = dft_tick_ns(tk - r->tick);
		dp = t->depth;
		if (DFT_LIKELY(dp > 0)) {
			t->depth = --dp;
			if (dp > 0 && dp <= DFT_DEPTH)
				t->stack[dp - 1]->kids += (dns + 500) / 1000;
		}
		fold_count(t, r, dns);
		r->next = t->free;
		t->free = r;
		t->nfree++;
		dft_guard--;
		return;
	}
	region_end(r);
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

/* ---- spans of the interposed layers (mpiio.c, hdf5.c) ------------------- */

struct dft_region *dft_span_begin(const char *name, const char *cat)
{
	struct dft_region *r = NULL;
	struct dft_thread *t;

	if (!dft_on_any || dft_guard)
		return NULL;
	dft_guard++;
	DFT_PENDING_CHECK();
	t = dft_self();
	if (t && dft_on_any && (r = region_get(t))) {
		r->magic = DFT_R_FULL;
		r->slot = -1;
		r->name = (char *)name;	/* literals: never freed */
		r->cat = (char *)cat;
		r->pub.profiler = r;
		region_open(t, r);
	}
	dft_guard--;
	return r;
}

void dft_span_end(struct dft_region *r, const struct dft_kv *kv, int n,
		  const struct dft_file *f)
{
	uint64_t end = dft_now();
	struct dft_thread *t;
	int args;

	if (!r || !dft_on_any)	/* after finalize: as region_end */
		return;
	dft_guard++;
	t = dft_self();
	if (t && t->depth > 0) {
		t->depth--;
		dft_child_end(t, end);
	}
	if (t && dft_on_any && !r->emitted) {
		args = region_head(t, r, end);
		if (args) {
			ev_kv(t, kv, n);
			if (f)
				ev_hash(t, "fhash", f->hash);
		}
		ev_end(t, args);
	}
	region_put(t, r);	/* under the guard, as finalize_region */
	dft_guard--;
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
		top_id_at(t, ts);	/* the parent's id first */
		a = ev_begin(t, dft_next_id(), name ? name : "",
			     cat ? cat : "", ts, dur);
		if (a) {
			ev_plevel(t);
			if (args)
				ev_raw(t, args, strlen(args));
		}
		ev_end(t, a);
		dft_child_end(t, ts + dur);
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

