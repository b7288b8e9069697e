/*
 * rules.c - preset layers and the findings: the Drishti insights the
 * trace supports, the WisIO rules on view rows, dft's own classes and the
 * dlio data-loader dimensions, each with its evidence numbers and the
 * application functions that enclose the offending requests
 * (diagnosis-rules.md §1-§5; the codes are listed in dft(7)).
 *
 * Every insight is one row of the descriptor table `insights[]` (code,
 * class, level, thresholds, title, recommendation) and, for the Drishti
 * and dft rules, one function that computes it from a rules_ctx. The
 * thresholds themselves are in thresholds.c.
 *
 * The MPI-IO insights (M02-M10, P15/P16 on the MPI-IO layer) are rows
 * here whose functions live in mpiio.c. Not computed, because a trace does
 * not carry what they need: P07 (memory alignment), W07 (unoverlapped I/O
 * needs per-interval overlap).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "analyze.h"

int
cmp_cand(const void *x, const void *y)
{
	const struct cand *a = x, *b = y;

	if (a->v != b->v)
		return a->v > b->v ? -1 : 1;
	return strcmp(a->k, b->k);
}

/* ---- presets -------------------------------------------------------------- */

const struct layer_def layer_defs[L_N] = {
	[L_POSIX] = { "posix", -1, "cat in (posix, stdio)", 1 },
	[L_APP] = { "app", -1, "name == DLIOBenchmark.run", 0 },
	[L_TRAINING] = { "training", L_APP, "name == DLIOBenchmark._train",
			 0 },
	[L_COMPUTE] = { "compute", L_TRAINING,
			"cat in (ai_framework, compute), name !~ checkpoint",
			0 },
	[L_FETCH] = { "fetch_data", L_TRAINING, "name ~ *.iter", 0 },
	[L_LOADER] = { "data_loader", L_FETCH,
		       "cat in (data_loader, dataloader) - loop.iter/yield",
		       2 },
	[L_LOADER_FORK] = { "data_loader_fork", L_FETCH,
			    "posix name ~ fork|spawn", 0 },
	[L_READER] = { "reader", L_LOADER, "cat == reader", 3 },
	[L_READER_POSIX] = { "reader_posix", L_READER,
			     "cat in (posix, stdio), path ~ /data", 1 },
	[L_CKPT] = { "checkpoint", L_TRAINING,
		     "cat == checkpoint or name ~ checkpoint", 0 },
	[L_CKPT_POSIX] = { "checkpoint_posix", L_CKPT,
			   "cat in (posix, stdio), path ~ /checkpoint", 1 },
	[L_OTHER_POSIX] = { "other_posix", -1,
			    "cat in (posix, stdio), other paths", 1 },
	[L_MPIIO] = { "mpiio", -1, "cat == MPIIO", 4 },
	[L_HDF5] = { "hdf5", -1, "cat == HDF5", 5 },
};
const char *const der_posix[NDER] = {
	"data", "read", "write", "metadata", "open", "close", "seek", "stat",
	"sync", "other"
};
const char *const der_loader[NDER] = { "init", "item" };
const char *const der_reader[NDER] = { "open", "close", "preprocess",
				       "sample" };

double
layer_time(struct agg *a, int l)
{
	if (l == L_FETCH && a->g[G_FETCH_ITER] == 0) {
		int64_t d = a->layer[L_TRAINING][LF_T] -
			    a->layer[L_COMPUTE][LF_T];

		return d > 0 ? (double)d / 1e6 : 0;
	}
	return (double)a->layer[l][LF_T] / 1e6;
}

const char *
choose_preset(struct agg *a, char **reason)
{
	static const char *const dl[] = {
		"reader", "data_loader", "dataloader", "ai_framework",
		"dlio_benchmark", "checkpoint", "ai_root", NULL
	};
	struct dft_buf b;
	size_t nc = a->m[M_CAT].count, k = 0;
	struct cand *c = dft_xcalloc(nc ? nc : 1, sizeof(*c));

	dft_buf_init(&b);
	for (size_t i = 0; i < nc; i++) {
		size_t n;
		const char *ck = dft_tmap_key(&a->m[M_CAT], i, &n);

		for (const char *const *d = dl; *d; d++) {
			if (strlen(*d) == n && strncasecmp(ck, *d, n) == 0) {
				c[k].k = ck;
				k++;
				break;
			}
		}
	}
	/* by name, so the reason does not depend on the reading order */
	if (k > 1)
		qsort(c, k, sizeof(*c), cmp_cand);
	for (size_t i = 0; i < k; i++) {
		dft_buf_adds(&b, b.len ? ", " : "categories: ");
		dft_buf_adds(&b, c[i].k);
	}
	free(c);
	if (b.len > 0) {
		*reason = dft_buf_detach(&b);
		return "dlio";
	}
	dft_buf_release(&b);
	*reason = dft_xstrdup("no data-loader categories");
	return "posix";
}

/* ---- scores ----------------------------------------------------------- */

int
score_frac(double v)
{
	if (!(v > 0))
		return 0;
	if (v <= .25)
		return 1;
	if (v <= .5)
		return 2;
	if (v <= .75)
		return 3;
	if (v <= .9)
		return 4;
	return 5;
}

const char *
score_label(int s)
{
	static const char *const l[] = {
		"none", "trivial", "low", "medium", "high", "critical"
	};

	return l[s < 0 ? 0 : s > 5 ? 5 : s];
}

/* A HIGH-severity Drishti insight whose condition holds. */
static int
score_high(double value, double threshold)
{
	return threshold > 0 && value >= 4 * threshold ? 5 : 4;
}

/* ---- application functions --------------------------------------------- */

struct fsum {
	int64_t n, t;
};

/*
 * The functions that enclose the requests of the classes in cmask: from
 * the attribution table by file (files == NULL: all files; else only the
 * files in that set) or, for a process scope, by process.
 */
json_object *
functions_for(struct agg *a, uint32_t cmask, const struct dft_tmap *files,
	      const char *proc)
{
	int map = proc ? M_ATTR_P : M_ATTR_F;
	struct dft_tmap sums;
	int64_t tot_n = 0, tot_t = 0;

	dft_tmap_init(&sums, sizeof(struct fsum));
	for (size_t i = 0; i < a->m[map].count; i++) {
		size_t kn;
		const char *k = dft_tmap_key(&a->m[map], i, &kn);
		const char *sep = memchr(k, '\x1e', kn);
		const int64_t *r = dft_tmap_value(&a->m[map], i);

		if (sep == NULL)
			continue;
		const char *rest = sep + 1;
		size_t rn = kn - (size_t)(rest - k);

		if (proc != NULL &&
		    (strlen(proc) != rn || memcmp(proc, rest, rn) != 0))
			continue;
		if (proc == NULL && files != NULL &&
		    dft_tmap_get((struct dft_tmap *)files, rest, rn, 0,
				 NULL) == NULL)
			continue;
		int64_t n = 0, t = 0;

		for (int c = 0; c < C_N; c++) {
			if (cmask & (1u << c)) {
				n += r[2 * c];
				t += r[2 * c + 1];
			}
		}
		if (n == 0)
			continue;
		struct fsum *s = dft_tmap_get(&sums, k, (size_t)(sep - k), 1,
					      NULL);

		s->n += n;
		s->t += t;
		tot_n += n;
		tot_t += t;
	}
	/* order: time (or count when no time), then name */
	size_t cnt = sums.count;
	size_t *ix = dft_xcalloc(cnt ? cnt : 1, sizeof(*ix));

	for (size_t i = 0; i < cnt; i++)
		ix[i] = i;
	for (size_t i = 1; i < cnt; i++) {
		for (size_t j = i; j > 0; j--) {
			const struct fsum *x = dft_tmap_value(&sums, ix[j - 1]);
			const struct fsum *y = dft_tmap_value(&sums, ix[j]);
			int64_t xv = tot_t ? x->t : x->n, yv = tot_t ? y->t : y->n;

			if (xv > yv || (xv == yv &&
					strcmp(dft_tmap_key(&sums, ix[j - 1],
							    NULL),
					       dft_tmap_key(&sums, ix[j],
							    NULL)) <= 0))
				break;
			size_t tmp = ix[j];

			ix[j] = ix[j - 1];
			ix[j - 1] = tmp;
		}
	}
	json_object *arr = json_object_new_array();

	for (size_t i = 0; i < cnt && i < 5; i++) {
		const struct fsum *s = dft_tmap_value(&sums, ix[i]);
		const char *k = dft_tmap_key(&sums, ix[i], NULL);
		char *parts[4] = { 0 };
		char *dup = dft_xstrdup(k), *p = dup;

		for (int j = 0; j < 4; j++) {
			parts[j] = p;
			p = p ? strchr(p, '\x1f') : NULL;
			if (p)
				*p++ = '\0';
		}
		json_object *f = json_object_new_object();

		json_object_object_add(f, "name", dft_jstr(parts[0]));
		json_object_object_add(f, "cat", dft_jstr(parts[1] &&
							   *parts[1] ?
							   parts[1] : NULL));
		json_object_object_add(f, "file", dft_jstr(parts[2] &&
							    *parts[2] ?
							    parts[2] : NULL));
		long line;

		if (parts[3] && *parts[3] &&
		    dft_parse_long(parts[3], 0, 1L << 30, &line) == 0)
			json_object_object_add(f, "line", dft_jint(line));
		else
			json_object_object_add(f, "line", NULL);
		double share = tot_t ? (double)s->t / (double)tot_t :
			       tot_n ? (double)s->n / (double)tot_n : 0;

		json_object_object_add(f, "share", dft_jdouble(share));
		json_object_object_add(f, "count", dft_jint(s->n));
		json_object_object_add(f, "time_s", dft_jdouble(s->t / 1e6));
		json_object_array_add(arr, f);
		free(dup);
	}
	free(ix);
	dft_tmap_release(&sums);
	return arr;
}

/* ---- findings ----------------------------------------------------------- */

/* The threshold an insight's value is compared with. */
double
insight_thr(const struct insight *d)
{
	return d->thr < T_N ? thr[d->thr] : d->thr_fixed;
}

/* The auxiliary threshold (an absolute count, a size, a time). */
double
insight_aux(const struct insight *d)
{
	return d->aux < T_N ? thr[d->aux] : 0;
}

/* A score from a Drishti level: HIGH is 4, 5 at four times the
 * threshold; WARN 3, INFO 2, OK 1. */
int
insight_score(const struct insight *d, enum level lv, double v)
{
	return lv == LV_HIGH ? score_high(v, insight_thr(d)) : (int)lv;
}

/*
 * A new finding of insight d: its code, source, metric, layer, view,
 * threshold, operator, title and recommendation come from the table; the
 * caller gives the scope, the value and the score and fills in the
 * evidence, the functions and the description.
 */
struct finding *
finding_add(struct results *r, const struct insight *d, const char *scope,
	    double value, int score)
{
	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 16;
		r->f = dft_xreallocarray(r->f, r->cap, sizeof(*r->f));
	}
	struct finding *f = &r->f[r->n++];

	memset(f, 0, sizeof(*f));
	f->d = d;
	f->insight = d->code;
	f->source = d->source;
	f->metric = d->metric;
	f->layer = d->layer;
	f->view = d->view;
	f->scope = dft_xstrdup(scope);
	f->value = value;
	f->threshold = insight_thr(d);
	f->op = d->op;
	f->score = score;
	f->component = "io";
	f->title = d->title;
	f->recommendation = d->recommendation;
	f->evidence = json_object_new_object();
	f->io_share = 1;
	return f;
}

/* finding_add with the table's insight of that code. */
static struct finding *
add(struct results *r, const char *code, const char *scope, double value,
    int score)
{
	return finding_add(r, insight_find(code), scope, value, score);
}

void
finding_evi(struct finding *f, const char *k, int64_t v)
{
	json_object_object_add(f->evidence, k, dft_jint(v));
}

void
finding_evd(struct finding *f, const char *k, double v)
{
	json_object_object_add(f->evidence, k, dft_jdouble(v));
}

void
finding_release(struct finding *f)
{
	free(f->scope);
	free(f->description);
	json_object_put(f->evidence);
	json_object_put(f->functions);
	free(f->saving_model);
	free(f->rec_own);
	json_object_put(f->facets);
	json_object_put(f->insights);
	json_object_put(f->files);
	json_object_put(f->calls);
	memset(f, 0, sizeof(*f));
}

void
results_release(struct results *r)
{
	for (size_t i = 0; i < r->n; i++)
		finding_release(&r->f[i]);
	free(r->f);
	memset(r, 0, sizeof(*r));
}

static double
frac(int64_t a, int64_t b)
{
	return b > 0 ? (double)a / (double)b : 0;
}

/* Files with more than 5 % of their requests small (P05/P06 evidence). */
/* Files with more than 5 % of their requests small (P05/P06 evidence),
 * the most small requests first. */
static json_object *
small_files(struct agg *a, int w)
{
	json_object *arr = json_object_new_array();
	size_t n = a->m[M_FILE].count, nc = 0;
	struct cand *c = dft_xcalloc(n ? n : 1, sizeof(*c));

	for (size_t i = 0; i < n; i++) {
		const int64_t *s = dft_tmap_value(&a->m[M_FILE], i);
		int64_t sm = s[w ? S_SMALL_W : S_SMALL_R];
		int64_t tot = s[w ? S_WN : S_RN];

		if (tot > 0 && frac(sm, tot) > 0.05) {
			c[nc].v = (double)sm;
			c[nc].k = dft_tmap_key(&a->m[M_FILE], i, NULL);
			nc++;
		}
	}
	if (nc > 1)
		qsort(c, nc, sizeof(*c), cmp_cand);
	for (size_t i = 0; i < nc && i < 5; i++)
		json_object_array_add(arr, dft_jstr(c[i].k));
	free(c);
	return arr;
}

int rules_include_system;

int
skip_file(const char *k, size_t n)
{
	return !rules_include_system && is_system_path(k, n);
}

const int64_t *
app_file(struct agg *a, size_t i, const char **k, size_t *kn)
{
	size_t n;
	const char *key = dft_tmap_key(&a->m[M_FILE], i, &n);

	if (k != NULL)
		*k = key;
	if (kn != NULL)
		*kn = n;
	return skip_file(key, n) ? NULL : dft_tmap_value(&a->m[M_FILE], i);
}

struct span {
	int64_t s, e;
};

static int
cmp_span(const void *x, const void *y)
{
	const struct span *a = x, *b = y;

	return a->s < b->s ? -1 : a->s > b->s ? 1 : (a->e > b->e) - (a->e < b->e);
}

/*
 * Shared files (diagnosis-rules.md §8): at least two processes do data
 * I/O (reads or writes) on the file within overlapping time, from the first
 * to the last data request of each process. *np gets, per shared file, the
 * number of processes with data I/O on it. System files are left out.
 */
void
shared_files(struct agg *a, struct dft_tmap *np)
{
	struct dft_tmap per;	/* file -> index in spans lists */
	struct span **sp = NULL;
	size_t *sn = NULL, nf = 0;

	dft_tmap_init(&per, sizeof(size_t));
	for (size_t i = 0; i < a->m[M_FILEPROCT].count; i++) {
		size_t kn;
		const char *k = dft_tmap_key(&a->m[M_FILEPROCT], i, &kn);
		const char *sep = memchr(k, '\x1e', kn);
		const int64_t *r = dft_tmap_value(&a->m[M_FILEPROCT], i);

		if (sep == NULL || r[1] == 0 || r[0] == 0 ||
		    skip_file(k, (size_t)(sep - k)))
			continue;
		int is_new;
		size_t *ix = dft_tmap_get(&per, k, (size_t)(sep - k), 1,
					  &is_new);

		if (is_new) {
			*ix = nf++;
			sp = dft_xreallocarray(sp, nf, sizeof(*sp));
			sn = dft_xreallocarray(sn, nf, sizeof(*sn));
			sp[*ix] = NULL;
			sn[*ix] = 0;
		}
		sp[*ix] = dft_xreallocarray(sp[*ix], sn[*ix] + 1,
					    sizeof(**sp));
		sp[*ix][sn[*ix]].s = SPAN_BIG - r[0];
		sp[*ix][sn[*ix]].e = r[1];
		sn[*ix]++;
	}
	for (size_t i = 0; i < per.count; i++) {
		size_t kn;
		const char *k = dft_tmap_key(&per, i, &kn);
		size_t ix = *(size_t *)dft_tmap_value(&per, i);
		struct span *v = sp[ix];
		size_t n = sn[ix];
		int shared = 0;

		if (n >= 2) {
			qsort(v, n, sizeof(*v), cmp_span);
			int64_t hi = v[0].e;

			for (size_t j = 1; j < n && !shared; j++) {
				if (v[j].s < hi ||
				    (v[j].s == hi && v[j].e == v[j].s))
					shared = 1;
				hi = v[j].e > hi ? v[j].e : hi;
			}
		}
		if (shared)
			*(int64_t *)dft_tmap_get(np, k, kn, 1, NULL) =
				(int64_t)n;
		free(v);
	}
	free(sp);
	free(sn);
	dft_tmap_release(&per);
}

/*
 * Per shared file (a key of *shared): the largest and smallest bytes and
 * I/O time of its processes, their totals and number (*st, struct strag
 * rows, initialised here).
 */
void
shared_stats(struct agg *a, const struct dft_tmap *shared,
	     struct dft_tmap *st)
{
	dft_tmap_init(st, sizeof(struct strag));
	for (size_t j = 0; j < a->m[M_FILEPROC].count; j++) {
		size_t jn;
		const char *jk = dft_tmap_key(&a->m[M_FILEPROC], j, &jn);
		const char *sep = memchr(jk, '\x1e', jn);

		if (sep == NULL || dft_tmap_get((struct dft_tmap *)shared, jk,
						(size_t)(sep - jk), 0,
						NULL) == NULL)
			continue;
		const int64_t *fp = dft_tmap_value(&a->m[M_FILEPROC], j);
		int is_new;
		struct strag *x = dft_tmap_get(st, jk, (size_t)(sep - jk), 1,
					       &is_new);

		if (is_new) {
			x->mxb = x->mnb = fp[2];
			x->mxt = x->mnt = fp[1];
		}
		x->mxb = fp[2] > x->mxb ? fp[2] : x->mxb;
		x->mnb = fp[2] < x->mnb ? fp[2] : x->mnb;
		x->mxt = fp[1] > x->mxt ? fp[1] : x->mxt;
		x->mnt = fp[1] < x->mnt ? fp[1] : x->mnt;
		x->totb += fp[2];
		x->tott += fp[1];
		x->n++;
	}
}

/* ---- Drishti's insights: one function per insight ------------------------ */


/* S01 STDIO share of bytes */
static void
i_stdio(struct rules_ctx *c, const struct insight *d)
{
	const int64_t *g = c->g;
	int64_t bytes = g[S_RB] + g[S_WB];
	double v = frac(g[S_STDIO_B], bytes);
	struct finding *f;

	if (bytes <= 0 || v <= insight_thr(d))
		return;
	f = finding_add(c->r, d, "all", v, insight_score(d, d->level, v));
	finding_evi(f, "stdio_bytes", g[S_STDIO_B]);
	finding_evi(f, "total_bytes", bytes);
	finding_evi(f, "stdio_requests", g[S_STDIO_N]);
	finding_evd(f, "stdio_time_s", g[S_STDIO_T] / 1e6);
	f->functions = functions_for(c->a, 1u << C_STDIO, NULL, NULL);
	f->description = dft_xasprintf(
		"%.1f%% of the bytes (%lld of %lld) go through STDIO",
		100 * v, (long long)g[S_STDIO_B], (long long)bytes);
}

/* P01 / P02 operation intensity, P03 / P04 byte intensity (d->w: the
 * writes dominate) */
static void
i_intensity(struct rules_ctx *c, const struct insight *d)
{
	int by = strcmp(d->metric, "size_imbalance_ratio") == 0;
	int64_t rn = c->g[by ? S_RB : S_RN], wn = c->g[by ? S_WB : S_WN];
	int64_t tot = rn + wn;
	double v = frac(llabs(wn - rn), tot);
	int wr = wn > rn;
	struct finding *f;

	if (tot <= 0 || v <= insight_thr(d) || wr != d->w)
		return;
	f = finding_add(c->r, d, "all", v, insight_score(d, d->level, v));
	finding_evi(f, by ? "read_bytes" : "reads", rn);
	finding_evi(f, by ? "write_bytes" : "writes", wn);
	f->functions = functions_for(c->a, 1u << (wr ? C_WRITE : C_READ),
				     NULL, NULL);
	f->description = by ?
		dft_xasprintf("%lld bytes written and %lld read: |W - R| / "
			      "bytes = %.2f", (long long)wn, (long long)rn, v) :
		dft_xasprintf("%lld writes and %lld reads: |W - R| / ops = "
			      "%.2f", (long long)wn, (long long)rn, v);
}

/* P05 / P06 (d->w) small requests; WARN below the absolute count */
static void
i_small(struct rules_ctx *c, const struct insight *d)
{
	const int64_t *g = c->g;
	int w = d->w;
	int64_t n = g[w ? S_WN : S_RN], sm = g[w ? S_SMALL_W : S_SMALL_R];
	int64_t by = g[w ? S_WB : S_RB];
	double v = frac(sm, n);
	struct finding *f;

	if (n == 0 || v <= insight_thr(d))
		return;
	int abs_ok = sm > insight_aux(d);

	f = finding_add(c->r, d, "all", v,
			insight_score(d, abs_ok ? d->level : LV_WARN, v));
	finding_evi(f, w ? "small_writes" : "small_reads", sm);
	finding_evi(f, w ? "writes" : "reads", n);
	finding_evi(f, "small_bytes", (int64_t)thr[T_SMALL_BYTES]);
	finding_evi(f, "small_requests_absolute", (int64_t)insight_aux(d));
	finding_evd(f, "small_time_s", g[w ? S_SMALL_WT : S_SMALL_RT] / 1e6);
	finding_evd(f, "io_time_s", g[S_T] / 1e6);
	finding_evi(f, w ? "write_bytes" : "read_bytes", by);
	json_object_object_add(f->evidence, "files", small_files(c->a, w));
	f->functions = functions_for(c->a, 1u << (w ? C_SMALL_W : C_SMALL_R),
				     NULL, NULL);
	f->description = dft_xasprintf(
		"%lld of %lld %s (%.1f%%) are smaller than %lld bytes "
		"(mean of all %lld: %.0f bytes)%s", (long long)sm,
		(long long)n, w ? "writes" : "reads", 100 * v,
		(long long)thr[T_SMALL_BYTES], (long long)n,
		(double)by / (double)n,
		abs_ok ? "" : "; below the absolute count threshold");
}

/* P08 misaligned file requests */
static void
i_misaligned(struct rules_ctx *c, const struct insight *d)
{
	const int64_t *g = c->g;
	double v = frac(g[S_MISAL], g[S_ALIGN_CHECKED]);
	struct finding *f;

	if (g[S_ALIGN_CHECKED] <= 0 || v <= insight_thr(d))
		return;
	f = finding_add(c->r, d, "all", v, insight_score(d, d->level, v));
	finding_evi(f, "misaligned", g[S_MISAL]);
	finding_evi(f, "requests", g[S_ALIGN_CHECKED]);
	finding_evi(f, "file_alignment", (int64_t)insight_aux(d));
	f->functions = functions_for(c->a, 1u << C_MISAL, NULL, NULL);
	f->description = dft_xasprintf(
		"%lld of %lld requests (%.1f%%) start at an offset "
		"that is not a multiple of %lld", (long long)g[S_MISAL],
		(long long)g[S_ALIGN_CHECKED], 100 * v,
		(long long)insight_aux(d));
}

/* P09 / P10 (d->w) redundant traffic (Drishti: bytes above the highest
 * offset, once per contents of the file: a file truncated or removed and
 * made again holds new data); X03 measures distinct bytes */
static void
i_redundant(struct rules_ctx *c, const struct insight *d)
{
	struct agg *a = c->a;
	int w = d->w;
	int64_t moved = 0, extent = 0, red = 0, nfiles = 0;
	struct finding *f;

	for (size_t i = 0; i < a->m[M_FILE].count; i++) {
		const int64_t *s = dft_tmap_value(&a->m[M_FILE], i);
		const char *fk = dft_tmap_key(&a->m[M_FILE], i, NULL);
		const int64_t *x = dft_tmap_get(&a->m[M_FILEX], fk, strlen(fk),
						0, NULL);
		int64_t b = s[w ? S_WB : S_RB];
		int64_t e = x ? file_allowance(a, fk, strlen(fk), x[w]) : 0;

		if (skip_file(fk, strlen(fk)))
			continue;
		if (b > 0 && e > 0 && b > e) {
			moved += b;
			extent += e;
			red += b - e;
			nfiles++;
		}
	}
	if (red == 0)
		return;
	double v = frac(moved, extent);

	f = finding_add(c->r, d, "all", v, insight_score(d, d->level, v));
	finding_evi(f, w ? "bytes_written" : "bytes_read", moved);
	finding_evi(f, "highest_offsets", extent);
	finding_evi(f, "redundant_bytes", red);
	finding_evi(f, "files", nfiles);
	f->functions = functions_for(a, 1u << (w ? C_WRITE : C_READ), NULL,
				     NULL);
	f->description = dft_xasprintf(
		"%lld bytes %s in %lld file(s) whose highest offsets "
		"sum to %lld: %lld bytes moved more than once",
		(long long)moved, w ? "written" : "read",
		(long long)nfiles, (long long)extent, (long long)red);
}

/* P11 / P13 (d->w) random requests over the threshold, HIGH (WARN below
 * the absolute count); P12 / P14 mostly sequential (d->under, OK) */
static void
i_random(struct rules_ctx *c, const struct insight *d)
{
	const int64_t *g = c->g;
	int w = d->w;
	int64_t rnd = g[w ? S_RND_W : S_RND_R];
	int64_t tot = rnd + g[w ? S_SEQ_W : S_SEQ_R];
	struct finding *f;

	if (tot == 0)
		return;
	double v = frac(rnd, tot);
	int over = v > insight_thr(d);

	if (over == d->under)
		return;
	int abs_ok = rnd > insight_aux(d);

	f = finding_add(c->r, d, "all", v,
			insight_score(d, over && !abs_ok ? LV_WARN : d->level,
				    v));
	finding_evi(f, w ? "random_writes" : "random_reads", rnd);
	finding_evi(f, w ? "sequential_writes" : "sequential_reads",
	     g[w ? S_SEQ_W : S_SEQ_R]);
	finding_evi(f, w ? "consecutive_writes" : "consecutive_reads",
	     g[w ? S_CONS_W : S_CONS_R]);
	f->functions = functions_for(c->a, 1u << (over ?
				     (w ? C_RAND_W : C_RAND_R) :
				     (w ? C_WRITE : C_READ)), NULL, NULL);
	f->description = dft_xasprintf(
		"%lld of %lld %s (%.1f%%) start before the end of the "
		"previous one on their file and process",
		(long long)rnd, (long long)tot,
		w ? "writes" : "reads", 100 * v);
}

/* P15 / P16 (d->w) small requests to shared files */
static void
i_shared_small(struct rules_ctx *c, const struct insight *d)
{
	int w = d->w;
	int64_t n = 0, sm = 0;
	struct finding *f;

	for (size_t i = 0; i < c->np.count; i++) {
		size_t kn;
		const char *k = dft_tmap_key(&c->np, i, &kn);
		const int64_t *s = dft_tmap_get(&c->a->m[M_FILE], k, kn, 0,
						NULL);

		if (s == NULL)
			continue;
		n += s[w ? S_WN : S_RN];
		sm += s[w ? S_SMALL_W : S_SMALL_R];
	}
	double v = frac(sm, n);

	if (n == 0 || v <= insight_thr(d))
		return;
	int abs_ok = sm > insight_aux(d);

	f = finding_add(c->r, d, "shared files", v,
			insight_score(d, abs_ok ? d->level : LV_WARN, v));
	finding_evi(f, w ? "small_writes" : "small_reads", sm);
	finding_evi(f, w ? "writes" : "reads", n);
	finding_evi(f, "shared_files", c->nshared);
	f->functions = functions_for(c->a, 1u << (w ? C_SMALL_W : C_SMALL_R),
				     &c->shared, NULL);
	f->description = dft_xasprintf(
		"%lld of %lld %s on %lld shared file(s) are small",
		(long long)sm, (long long)n, w ? "writes" : "reads",
		(long long)c->nshared);
}

/* P18 / P19 (d->w: time) stragglers on shared files: per file the
 * busiest and idlest process; the ten worst files are reported */
static void
i_straggler(struct rules_ctx *c, const struct insight *d)
{
	int kind = d->w;
	struct dft_tmap *st = &c->st;
	struct cand *cd = dft_xcalloc(st->count ? st->count : 1, sizeof(*cd));
	size_t nc = 0;
	double v;
	struct finding *f;

	for (size_t i = 0; i < st->count; i++) {
		const struct strag *x = dft_tmap_value(st, i);
		int64_t mx = kind ? x->mxt : x->mxb;
		int64_t mn = kind ? x->mnt : x->mnb;
		int64_t tot = kind ? x->tott : x->totb;

		if (x->n < 2 || tot == 0)
			continue;
		v = frac(mx - mn, tot);
		if (v <= insight_thr(d))
			continue;
		cd[nc].v = v;
		cd[nc].k = dft_tmap_key(st, i, NULL);
		cd[nc].i = i;
		nc++;
	}
	if (nc > 1)
		qsort(cd, nc, sizeof(*cd), cmp_cand);
	for (size_t ci = 0; ci < nc && ci < 10; ci++) {
		const struct strag *x = dft_tmap_value(st, cd[ci].i);
		const char *k = cd[ci].k;
		int64_t mx = kind ? x->mxt : x->mxb;
		int64_t mn = kind ? x->mnt : x->mnb;
		int64_t tot = kind ? x->tott : x->totb;

		v = cd[ci].v;
		f = finding_add(c->r, d, k, v, insight_score(d, d->level, v));
		if (kind) {
			finding_evd(f, "slowest_time_s", mx / 1e6);
			finding_evd(f, "fastest_time_s", mn / 1e6);
			finding_evd(f, "total_time_s", tot / 1e6);
		} else {
			finding_evi(f, "largest_bytes", mx);
			finding_evi(f, "smallest_bytes", mn);
			finding_evi(f, "total_bytes", tot);
		}
		finding_evi(f, "processes", x->n);
		finding_evi(f, "files_over_threshold", (int64_t)nc);
		struct dft_tmap one;

		dft_tmap_init(&one, sizeof(int64_t));
		dft_tmap_get(&one, k, strlen(k), 1, NULL);
		f->functions = functions_for(c->a, 1u << C_IO, &one, NULL);
		dft_tmap_release(&one);
		f->description = dft_xasprintf(
			"%lld processes share the file; the busiest "
			"and idlest differ by %.1f%% of its %s",
			(long long)x->n, 100 * v,
			kind ? "I/O time" : "bytes");
	}
	free(cd);
}

/*
 * Whether two of the processes of map m (keys: process keys, values > 0)
 * ran at the same time (M_PROCT spans). Sequential processes (a CLI that
 * compresses, then another that decompresses) move different bytes by
 * design: nobody waits on the busiest, so there is no imbalance to fix.
 */
static int
procs_overlap(struct agg *a, struct dft_tmap *m)
{
	struct span *v = dft_xcalloc(m->count + 1, sizeof(*v));
	size_t n = 0;
	int any = 0;

	for (size_t i = 0; i < m->count; i++) {
		size_t kn;
		const char *k = dft_tmap_key(m, i, &kn);
		const int64_t *pt = dft_tmap_get(&a->m[M_PROCT], k, kn, 0,
						 NULL);

		if (*(int64_t *)dft_tmap_value(m, i) <= 0)
			continue;
		if (pt == NULL || pt[0] <= 0 || pt[1] <= 0) {
			any = 1;	/* no span known: assume they did */
			break;
		}
		v[n].s = SPAN_BIG - pt[0];
		v[n].e = pt[1];
		n++;
	}
	if (!any && n > 1) {
		int64_t end;

		qsort(v, n, sizeof(*v), cmp_span);
		end = v[0].e;
		for (size_t i = 1; i < n && !any; i++) {
			if (v[i].s < end)
				any = 1;
			if (v[i].e > end)
				end = v[i].e;
		}
	}
	free(v);
	return any;
}

/* P22 / P21 (d->w) size imbalance over file-per-process files, between
 * processes that ran at the same time */
static void
i_size_imbalance(struct rules_ctx *c, const struct insight *d)
{
	struct agg *a = c->a;
	int w = d->w;
	struct dft_tmap pb;
	int64_t mx = INT64_MIN, mn = INT64_MAX, nproc = 0;
	struct finding *f;

	dft_tmap_init(&pb, sizeof(int64_t));
	for (size_t j = 0; j < a->m[M_FILEPROC].count; j++) {
		size_t jn;
		const char *jk = dft_tmap_key(&a->m[M_FILEPROC], j, &jn);
		const char *sep = memchr(jk, '\x1e', jn);

		if (sep == NULL || dft_tmap_get(&c->shared, jk,
				(size_t)(sep - jk), 0, NULL) != NULL ||
		    skip_file(jk, (size_t)(sep - jk)))
			continue;
		const int64_t *fp = dft_tmap_value(&a->m[M_FILEPROC], j);
		int64_t *x = dft_tmap_get(&pb, sep + 1,
					  jn - (size_t)(sep + 1 - jk), 1, NULL);

		*x += w ? fp[4] : fp[3];
	}
	if (!procs_overlap(a, &pb)) {
		dft_tmap_release(&pb);
		return;
	}
	for (size_t i = 0; i < pb.count; i++) {
		int64_t x = *(int64_t *)dft_tmap_value(&pb, i);

		if (x <= 0)
			continue;
		nproc++;
		mx = x > mx ? x : mx;
		mn = x < mn ? x : mn;
	}
	dft_tmap_release(&pb);
	double v = mx > 0 ? frac(mx - mn, mx) : 0;

	if (nproc < 2 || mx <= 0 || v <= insight_thr(d))
		return;
	f = finding_add(c->r, d, "all", v, insight_score(d, d->level, v));
	finding_evi(f, "largest_bytes", mx);
	finding_evi(f, "smallest_bytes", mn);
	finding_evi(f, "processes", nproc);
	f->functions = functions_for(a, 1u << (w ? C_WRITE : C_READ), NULL,
				     NULL);
	f->description = dft_xasprintf(
		"per-process %s bytes range from %lld to %lld "
		"((max - min) / max = %.2f)", w ? "written" : "read",
		(long long)mn, (long long)mx, v);
}

/* P17 metadata time per process: processes over metadata_time_rank s */
static void
i_metadata_rank(struct rules_ctx *c, const struct insight *d)
{
	struct agg *a = c->a;
	int64_t over = 0, worst = 0;
	const char *wp = NULL;
	struct finding *f;

	for (size_t i = 0; i < a->m[M_PROC].count; i++) {
		const int64_t *s = dft_tmap_value(&a->m[M_PROC], i);
		const char *pk = dft_tmap_key(&a->m[M_PROC], i, NULL);

		if (s[S_MT] > insight_aux(d) * 1e6)
			over++;
		if (s[S_MT] > worst || (s[S_MT] == worst && wp != NULL &&
					strcmp(pk, wp) < 0)) {
			worst = s[S_MT];
			wp = pk;
		}
	}
	if (over == 0)
		return;
	f = finding_add(c->r, d, "all", (double)over,
			insight_score(d, d->level, (double)over));
	finding_evi(f, "processes_over", over);
	finding_evd(f, "metadata_time_rank_s", insight_aux(d));
	finding_evd(f, "worst_metadata_time_s", worst / 1e6);
	json_object_object_add(f->evidence, "worst_process", dft_jstr(wp));
	f->functions = functions_for(a, 1u << C_META, NULL, NULL);
	f->description = dft_xasprintf(
		"%lld process(es) spend more than %.0f s in metadata calls "
		"(worst %.1f s)", (long long)over, insight_aux(d), worst / 1e6);
}

/* M01 MPI without MPI-IO: an MPI run (MPI events) with no MPI-IO call
 * and POSIX data I/O on a shared file, where MPI-IO could coordinate the
 * processes */
static void
i_no_mpiio(struct rules_ctx *c, const struct insight *d)
{
	struct agg *a = c->a;
	struct finding *f;

	if (a->g[G_MPI_EVENTS] <= 0 || a->g[G_MPIIO_N] != 0 ||
	    c->nshared == 0)
		return;
	f = finding_add(c->r, d, "all", 0, insight_score(d, d->level, 0));
	finding_evi(f, "mpi_events", a->g[G_MPI_EVENTS]);
	finding_evi(f, "shared_files", c->nshared);
	f->functions = functions_for(a, (1u << C_READ) | (1u << C_WRITE),
				     &c->shared, NULL);
	f->description = dft_xasprintf(
		"the application uses MPI (%lld events) but no MPI-IO, and "
		"its processes do POSIX data I/O on %lld shared file(s)",
		(long long)a->g[G_MPI_EVENTS], (long long)c->nshared);
}

/* ---- WisIO rules on view rows ------------------------------------------- */

/*
 * The shares of one view row in the run, each rule judging the row by the
 * quantity it is about: time (metadata, small reads and writes), data
 * requests (operation imbalance, random operations), bytes (size
 * imbalance). Counts and bytes are the program's own and the same in
 * every run of it; time shares move from run to run, and a row near
 * view_min_share by time made W02/W04 come and go between runs.
 */
enum { SH_TIME, SH_OPS, SH_BYTES, SH_PAT, SH_N };

static void
row_shares(const int64_t *s, const int64_t *g, double *sh)
{
	sh[SH_TIME] = frac(s[S_T], g[S_T]);
	sh[SH_OPS] = frac(s[S_RN] + s[S_WN], g[S_RN] + g[S_WN]);
	sh[SH_BYTES] = frac(s[S_B], g[S_B]);
	sh[SH_PAT] = frac(s[S_SEQ_R] + s[S_SEQ_W] + s[S_RND_R] + s[S_RND_W],
			  g[S_SEQ_R] + g[S_SEQ_W] + g[S_RND_R] + g[S_RND_W]);
}

/* One view row the WisIO rules look at. */
struct wrow {
	struct agg *a;
	struct results *r;
	const char *view, *key, *proc;
	const int64_t *s;
	double share;		/* of the I/O time */
	const double *sh;	/* row_shares */
	const struct dft_tmap *files;	/* the row's file, or NULL */
};

/* W02, W04: the reads and writes of one counter pair out of balance. */
struct imbalance {
	const char *code;
	int rd, wr;		/* the pair's columns */
	int limit;		/* its threshold */
	const char *rd_ev, *wr_ev;	/* their evidence names */
	int sh;			/* the row's share it is judged by */
};

static const struct imbalance op_imbalance = {
	"W02", S_RN, S_WN, T_WISIO_OPERATION_IMBALANCE, "reads", "writes",
	SH_OPS
};
static const struct imbalance size_imbalance = {
	"W04", S_RB, S_WB, T_WISIO_SIZE_IMBALANCE, "read_bytes", "write_bytes",
	SH_BYTES
};

/* The finding of w's imbalance m, recommendation set, or NULL. */
static struct finding *
wisio_imbalance(const struct wrow *w, const struct imbalance *m)
{
	int64_t rd = w->s[m->rd], wr = w->s[m->wr], sum = rd + wr;
	double v = frac(llabs(wr - rd), sum);

	if (sum <= 0 || v <= thr[m->limit] ||
	    w->sh[m->sh] < thr[T_VIEW_MIN_SHARE])
		return NULL;
	int wh = wr > rd;
	int base = score_frac(w->sh[m->sh]);
	struct finding *f = add(w->r, m->code, w->key, v,
				base < 2 ? base : 2);

	f->view = w->view;
	f->recommendation = wh ? "write-heavy" : "read-heavy";
	finding_evi(f, m->rd_ev, rd);
	finding_evi(f, m->wr_ev, wr);
	f->io_share = w->share;
	f->functions = functions_for(w->a, 1u << (wh ? C_WRITE : C_READ),
				     w->files, w->proc);
	return f;
}

static void
wisio_row(struct agg *a, struct results *r, const char *view,
	  const char *key, const int64_t *s, const double *sh,
	  const char *proc, const char *file)
{
	double share = sh[SH_TIME];
	int base = score_frac(share);
	int timed = share >= thr[T_VIEW_MIN_SHARE];
	struct finding *f;
	double v;
	struct dft_tmap one;
	const struct dft_tmap *files = NULL;

	dft_tmap_init(&one, sizeof(int64_t));
	if (file != NULL) {
		dft_tmap_get(&one, file, strlen(file), 1, NULL);
		files = &one;
	}
	const struct wrow w = { a, r, view, key, proc, s, share, sh, files };

	v = frac(s[S_MT], s[S_T]);
	if (timed && s[S_T] > 0 && v >= thr[T_WISIO_METADATA_TIME]) {
		f = add(r, "W01", key, v, base);
		f->view = view;
		finding_evi(f, "metadata_ops", s[S_MN]);
		finding_evd(f, "metadata_time_s", s[S_MT] / 1e6);
		finding_evd(f, "io_time_s", s[S_T] / 1e6);
		f->io_share = share;
		f->functions = functions_for(a, 1u << C_META, files, proc);
		f->description = dft_xasprintf(
			"%.1f%% of the I/O time of %s is metadata (%lld calls)",
			100 * v, key, (long long)s[S_MN]);
	}
	f = wisio_imbalance(&w, &op_imbalance);
	if (f != NULL)
		f->description = dft_xasprintf("%s is %s: %lld writes, %lld "
					       "reads", key, f->recommendation,
					       (long long)s[S_WN],
					       (long long)s[S_RN]);
	int64_t pat = s[S_SEQ_R] + s[S_SEQ_W] + s[S_RND_R] + s[S_RND_W];

	v = frac(s[S_RND_R] + s[S_RND_W], pat);
	if (pat > 0 && v > thr[T_WISIO_RANDOM] &&
	    sh[SH_PAT] >= thr[T_VIEW_MIN_SHARE]) {
		f = add(r, "W03", key, v, score_frac(sh[SH_PAT]));
		f->view = view;
		finding_evi(f, "random", s[S_RND_R] + s[S_RND_W]);
		finding_evi(f, "requests", pat);
		f->io_share = share;
		f->functions = functions_for(a, (1u << C_RAND_R) |
					     (1u << C_RAND_W), files, proc);
		f->description = dft_xasprintf(
			"%.1f%% of the requests of %s are random", 100 * v, key);
	}
	f = wisio_imbalance(&w, &size_imbalance);
	if (f != NULL)
		f->description = dft_xasprintf("%s moves %lld bytes written, "
					       "%lld read", key,
					       (long long)s[S_WB],
					       (long long)s[S_RB]);
	for (int w = 0; w < 2; w++) {
		int64_t n = s[w ? S_WN : S_RN], t = s[w ? S_WT : S_RT];
		int64_t by = s[w ? S_WB : S_RB];

		if (!timed || n == 0 || s[S_T] == 0)
			continue;
		v = frac(t, s[S_T]);
		double mean = (double)by / (double)n;

		if (v <= thr[T_WISIO_SMALL_TIME] ||
		    mean >= thr[T_WISIO_SMALL_SIZE])
			continue;
		f = add(r, w ? "W06" : "W05", key, v, base);
		f->view = view;
		finding_evi(f, w ? "writes" : "reads", n);
		finding_evd(f, w ? "write_time_s" : "read_time_s", t / 1e6);
		finding_evd(f, "io_time_s", s[S_T] / 1e6);
		finding_evd(f, "mean_request_bytes", mean);
		finding_evi(f, "wisio_small_size", (int64_t)thr[T_WISIO_SMALL_SIZE]);
		f->io_share = share;
		f->functions = functions_for(a, 1u << (w ? C_WRITE : C_READ),
					     files, proc);
		f->description = dft_xasprintf(
			"%s: %s take %.1f%% of the I/O time with a mean of "
			"%.0f bytes", key, w ? "writes" : "reads", 100 * v,
			mean);
	}
	dft_tmap_release(&one);
}

static void
wisio(struct agg *a, struct results *r)
{
	int64_t total = a->g[G_IO_S + S_T];
	static const int maps[3] = { M_FILE, M_PROC, M_BIN };
	static const char *const views[3] = { "file", "process", "time" };

	if (total <= 0)
		return;
	int64_t bin_us = (int64_t)(thr[T_TIME_BIN_S] * 1e6);

	if (bin_us <= 0)
		bin_us = 1000000;
	for (int v = 0; v < 3; v++) {
		struct dft_tmap *m = &a->m[maps[v]];

		/* one row is the whole run, which Drishti's rules cover */
		if (m->count < 2)
			continue;
		for (size_t i = 0; i < m->count; i++) {
			const int64_t *s = dft_tmap_value(m, i);
			const char *k = dft_tmap_key(m, i, NULL);
			double sh[SH_N];
			int any = 0;

			row_shares(s, a->g + G_IO_S, sh);
			for (int x = 0; x < SH_N; x++)
				any |= sh[x] >= thr[T_VIEW_MIN_SHARE];
			if (!any || (v == 0 && skip_file(k, strlen(k))))
				continue;
			if (v == 2) {
				long long b = strtoll(k, NULL, 10);
				double t0 = (double)b * bin_us / 1e6 -
					    (double)a->g[G_TS_MIN] / 1e6;
				char key[64];

				if (t0 < 0)
					t0 = 0;
				snprintf(key, sizeof(key), "%g-%g", t0,
					 (double)(b + 1) * bin_us / 1e6 -
					 (double)a->g[G_TS_MIN] / 1e6);
				wisio_row(a, r, views[v], key, s, sh, NULL,
					  NULL);
			} else {
				wisio_row(a, r, views[v], k, s, sh,
					  v == 1 ? k : NULL, v == 0 ? k : NULL);
			}
		}
	}
}

/* ---- dlio dimensions ----------------------------------------------------- */

static void fs_bw(struct agg *a, struct results *r);

/* Whether a function key (name \x1f cat ...) is a checkpoint function. */
static int
ckpt_key(const char *k)
{
	const char *sep = strchr(k, '\x1f');
	size_t nn = sep ? (size_t)(sep - k) : strlen(k);
	const char *cat = sep ? sep + 1 : "";
	size_t cn = strcspn(cat, "\x1f");

	for (size_t i = 0; i + 10 <= nn; i++)
		if (strncasecmp(k + i, "checkpoint", 10) == 0)
			return 1;
	return cn == 10 && strncasecmp(cat, "checkpoint", 10) == 0;
}

/*
 * D03 checkpoint time: only from checkpoint-tagged functions (name or
 * category "checkpoint") and the checkpoint path layer, never from other
 * large writes. The functions are the checkpoint functions enclosing I/O,
 * else the checkpoint functions by their own time.
 */
static void
checkpoint(struct agg *a, struct results *r, double app)
{
	if (a->layer[L_CKPT][LF_N] == 0 && a->layer[L_CKPT_POSIX][LF_N] == 0)
		return;
	double ck = layer_time(a, L_CKPT);
	double ckio = a->layer[L_CKPT_POSIX][LF_T] / 1e6;
	double base = app > 0 ? app : (a->g[G_TS_MAX] - a->g[G_TS_MIN]) / 1e6;
	double v = (ck > ckio ? ck : ckio) / (base + 1e-9);
	struct finding *f;

	f = add(r, "D03", "all", v, v > thr[T_DLIO_CHECKPOINT_TIME] ?
		score_high(v, thr[T_DLIO_CHECKPOINT_TIME]) : 2);
	finding_evd(f, "checkpoint_time_s", ck);
	finding_evd(f, "checkpoint_io_time_s", ckio);
	finding_evd(f, "app_time_s", base);
	finding_evi(f, "checkpoint_posix_bytes", a->layer[L_CKPT_POSIX][LF_B]);
	f->functions = functions_for(a, 1u << C_CKPT, NULL, NULL);
	if (json_object_array_length(f->functions) == 0) {
		/* the checkpoint functions by their own time */
		json_object *arr = f->functions;
		size_t *ix = dft_xcalloc(a->m[M_FUNC].count + 1, sizeof(*ix));
		size_t n = 0;

		for (size_t i = 0; i < a->m[M_FUNC].count; i++)
			if (ckpt_key(dft_tmap_key(&a->m[M_FUNC], i, NULL)))
				ix[n++] = i;
		for (size_t i = 0; i < n && i < 5; i++) {
			size_t kn;
			const char *k = dft_tmap_key(&a->m[M_FUNC], ix[i], &kn);
			const int64_t *x = dft_tmap_value(&a->m[M_FUNC], ix[i]);
			const char *sep = memchr(k, '\x1f', kn);
			json_object *o = json_object_new_object();

			json_object_object_add(o, "name",
				json_object_new_string_len(k, sep ?
					(int)(sep - k) : (int)kn));
			json_object_object_add(o, "cat",
					       dft_jstr(sep ? sep + 1 : NULL));
			json_object_object_add(o, "file", NULL);
			json_object_object_add(o, "line", NULL);
			json_object_object_add(o, "share", dft_jdouble(1.0 / n));
			json_object_object_add(o, "count", dft_jint(x[0]));
			json_object_object_add(o, "time_s",
					       dft_jdouble(x[1] / 1e6));
			json_object_array_add(arr, o);
		}
		free(ix);
	}
	f->description = dft_xasprintf(
		"checkpoint functions take %.1f%% of the run (%.2f s, %.2f s of "
		"it in I/O)", 100 * v, ck, ckio);
}

static void
dlio(struct agg *a, struct results *r, int dlio_preset)
{
	struct finding *f;
	double fetch = layer_time(a, L_FETCH);
	double compute = layer_time(a, L_COMPUTE);
	double app = layer_time(a, L_APP);
	double v;

	/* D01 data-loader stall: per epoch of the training loop, the time
	 * it waits for batches against its compute (agg.c loop_rows) */
	int64_t lw = 0, lc = 0, lspan = 0, lsteps = 0, lder = 0;
	struct dft_tmap ep1;	/* epoch -> wait, compute, span, steps */

	dft_tmap_init(&ep1, 4 * sizeof(int64_t));
	for (size_t i = 0; i < a->m[M_LOOP].count; i++) {
		size_t kn;
		const char *k = dft_tmap_key(&a->m[M_LOOP], i, &kn);
		const char *sep = memchr(k, '\x1e', kn);
		const int64_t *x = dft_tmap_value(&a->m[M_LOOP], i);

		lw += x[0];
		lc += x[1];
		lspan += x[2];
		lsteps += x[3];
		lder |= x[4] != 0;
		if (sep != NULL) {
			int64_t *e = dft_tmap_get(&ep1, k, (size_t)(sep - k), 1,
						  NULL);

			for (int j = 0; j < 4; j++)
				e[j] += x[j];
		}
	}
	if (dlio_preset || a->m[M_LOOP].count > 0) {
		v = lw + lc > 0 ? (double)lw / (double)(lw + lc) : 0;
		f = add(r, "D01", "all", v, v > thr[T_DLIO_FETCH_PRESSURE] ?
			score_high(v, thr[T_DLIO_FETCH_PRESSURE]) :
			score_frac(v) > 0 ? score_frac(v) : 1);
		f->forced = dlio_preset;
		finding_evd(f, "wait_time_s", lw / 1e6);
		finding_evd(f, "compute_time_s", lc / 1e6);
		finding_evd(f, "loop_time_s", lspan / 1e6);
		finding_evi(f, "waits", lsteps);
		finding_evi(f, "epochs", (int64_t)ep1.count);
		finding_evd(f, "fetch_time_s", fetch);
		finding_evd(f, "training_time_s", layer_time(a, L_TRAINING));
		json_object_object_add(f->evidence, "wait_derived",
				       json_object_new_boolean(lder));
		json_object *pe = json_object_new_array();
		struct cand *ec = dft_xcalloc(ep1.count ? ep1.count : 1,
					      sizeof(*ec));

		for (size_t i = 0; i < ep1.count; i++) {
			ec[i].k = dft_tmap_key(&ep1, i, NULL);
			ec[i].v = -strtod(ec[i].k, NULL);
			ec[i].i = i;
		}
		if (ep1.count > 1)
			qsort(ec, ep1.count, sizeof(*ec), cmp_cand);
		for (size_t i = 0; i < ep1.count && i < 20; i++) {
			const int64_t *e = dft_tmap_value(&ep1, ec[i].i);
			json_object *o = json_object_new_object();

			json_object_object_add(o, "epoch",
					       dft_jint(-(int64_t)ec[i].v));
			json_object_object_add(o, "wait_s",
					       dft_jdouble(e[0] / 1e6));
			json_object_object_add(o, "compute_s",
					       dft_jdouble(e[1] / 1e6));
			json_object_object_add(o, "span_s",
					       dft_jdouble(e[2] / 1e6));
			json_object_object_add(o, "waits", dft_jint(e[3]));
			json_object_array_add(pe, o);
		}
		free(ec);
		json_object_object_add(f->evidence, "per_epoch", pe);
		f->functions = functions_for(a, 1u << C_READ, NULL, NULL);
		f->description = lw + lc > 0 ?
			dft_xasprintf("the training loop waits for batches %.1f%% "
				      "of its loop time (%.2f s waiting, %.2f s "
				      "compute%s over %zu epoch(s))", 100 * v,
				      lw / 1e6, lc / 1e6,
				      lder ? ", wait = epoch time outside "
				      "compute" : "", ep1.count) :
			dft_xstrdup("no training-loop events (no batch wait, "
				    "loop body or compute events)");
	}
	dft_tmap_release(&ep1);
	(void)compute;

	if (!dlio_preset) {
		checkpoint(a, r, app);
		return;
	}
	/* D02 epoch straggler: reader time per thread within each epoch */
	struct dft_tmap ep;	/* epoch -> max, sum, count */

	dft_tmap_init(&ep, 3 * sizeof(int64_t));
	for (size_t i = 0; i < a->m[M_EPOCH].count; i++) {
		size_t kn;
		const char *k = dft_tmap_key(&a->m[M_EPOCH], i, &kn);
		const char *sep = memchr(k, '\x1e', kn);
		int64_t t = *(int64_t *)dft_tmap_value(&a->m[M_EPOCH], i);

		if (sep == NULL)
			continue;
		int64_t *e = dft_tmap_get(&ep, k, (size_t)(sep - k), 1, NULL);

		e[0] = t > e[0] ? t : e[0];
		e[1] += t;
		e[2]++;
	}
	double worst = 0;
	const char *wk = NULL;
	int64_t wthreads = 0, wmax = 0;
	double wmean = 0;

	for (size_t i = 0; i < ep.count; i++) {
		const int64_t *e = dft_tmap_value(&ep, i);

		if (e[2] < 2 || e[1] <= 0)
			continue;
		double mean = (double)e[1] / (double)e[2];
		double skew = ((double)e[0] - mean) / mean;

		if (skew > worst || (skew == worst && wk != NULL &&
				      strcmp(dft_tmap_key(&ep, i, NULL), wk) < 0)) {
			worst = skew;
			wk = dft_tmap_key(&ep, i, NULL);
			wthreads = e[2];
			wmax = e[0];
			wmean = mean;
		}
	}
	f = add(r, "D02", wk ? wk : "all", worst,
		worst > thr[T_DLIO_EPOCH_STRAGGLER] ?
		score_high(worst, thr[T_DLIO_EPOCH_STRAGGLER]) :
		worst > 0 ? 2 : 1);
	f->forced = 1;
	finding_evi(f, "epochs", (int64_t)ep.count);
	finding_evi(f, "threads", wthreads);
	finding_evd(f, "slowest_reader_time_s", wmax / 1e6);
	finding_evd(f, "mean_reader_time_s", wmean / 1e6);
	f->functions = functions_for(a, 1u << C_READ, NULL, NULL);
	f->description = wk ?
		dft_xasprintf("in epoch %s the slowest of %lld reader threads "
			      "took %.1f%% longer than their mean", wk,
			      (long long)wthreads, 100 * worst) :
		dft_xstrdup("no epoch with two or more reader threads");
	dft_tmap_release(&ep);

	checkpoint(a, r, app);
	if (!dlio_preset)
		return;
	fs_bw(a, r);
}

/* D04 file-system bandwidth of the reader */
static void
fs_bw(struct agg *a, struct results *r)
{
	struct finding *f;
	int l = a->layer[L_READER_POSIX][LF_RN] > 0 ? L_READER_POSIX : L_POSIX;
	int64_t rb = a->layer[l][LF_RB], rt = a->layer[l][LF_RT];
	double bw = rt > 0 ? (double)rb / ((double)rt / 1e6) / 1e6 : 0;
	double ratio = bw / (thr[T_DLIO_FS_BW_MB_S] > 0 ?
			     thr[T_DLIO_FS_BW_MB_S] : 1);
	int sc = ratio >= 1 ? 1 : ratio >= .5 ? 2 : ratio >= .25 ? 3 :
		 ratio >= .1 ? 4 : 5;

	if (rb == 0)
		sc = 1;
	f = add(r, "D04", "all", bw, sc);
	f->layer = layer_defs[l].name;
	f->forced = 1;
	finding_evi(f, "read_bytes", rb);
	finding_evd(f, "read_time_s", rt / 1e6);
	finding_evi(f, "reads", a->layer[l][LF_RN]);
	finding_evd(f, "bw_mb_s", bw);
	f->functions = functions_for(a, 1u << C_READ, NULL, NULL);
	f->description = dft_xasprintf(
		"the %s layer reads at %.1f MB/s per request time (%lld "
		"bytes in %.2f s of reads)", layer_defs[l].name, bw,
		(long long)rb, rt / 1e6);
}

/* ---- dft's own classes ---------------------------------------------------- */

/*
 * The I/O sums of the run without the system and runtime files (unless
 * --include-system): the global row minus the rows of those files.
 */
void
app_sums(struct agg *a, int64_t *out)
{
	memcpy(out, a->g + G_IO_S, sizeof(int64_t) * S_NF);
	if (rules_include_system)
		return;
	for (size_t i = 0; i < a->m[M_FILE].count; i++) {
		const int64_t *s = dft_tmap_value(&a->m[M_FILE], i);

		if (app_file(a, i, NULL, NULL) != NULL)
			continue;
		for (int j = 0; j < S_NF; j++)
			out[j] -= s[j];
	}
}

/* The calls of one I/O class (metadata, sync) by time, at most 8. */
json_object *
calls_of(struct agg *a, int want)
{
	struct cand *c = dft_xcalloc(a->m[M_FUNC].count + 1, sizeof(*c));
	size_t nc = 0;
	json_object *arr = json_object_new_array();

	for (size_t i = 0; i < a->m[M_FUNC].count; i++) {
		size_t kn;
		const char *k = dft_tmap_key(&a->m[M_FUNC], i, &kn);
		const char *sep = memchr(k, '\x1f', kn);
		const int64_t *x = dft_tmap_value(&a->m[M_FUNC], i);
		int ioc;

		if (sep == NULL)
			continue;
		int kind = fn_kind(k, (size_t)(sep - k), sep + 1,
				   kn - (size_t)(sep + 1 - k), &ioc);

		/* metadata: without the closes that flushed written data */
		int64_t xn = x[0] - (want == IOC_META ? x[3] : 0);
		int64_t xt = x[1] - (want == IOC_META ? x[4] : 0);

		if (!(kind & FN_IO) || ioc != want || xn <= 0)
			continue;
		c[nc].v = (double)xt;
		c[nc].k = k;
		c[nc].i = i;
		nc++;
	}
	if (nc > 1)
		qsort(c, nc, sizeof(*c), cmp_cand);
	for (size_t i = 0; i < nc && i < 8; i++) {
		const int64_t *x = dft_tmap_value(&a->m[M_FUNC], c[i].i);
		const char *sep = strchr(c[i].k, '\x1f');
		json_object *o = json_object_new_object();

		json_object_object_add(o, "name", json_object_new_string_len(
			c[i].k, (int)(sep - c[i].k)));
		json_object_object_add(o, "cat", dft_jstr(sep + 1));
		int64_t xn = x[0] - (want == IOC_META ? x[3] : 0);
		int64_t xt = x[1] - (want == IOC_META ? x[4] : 0);

		json_object_object_add(o, "count", dft_jint(xn));
		json_object_object_add(o, "time_s", dft_jdouble(xt / 1e6));
		json_object_array_add(arr, o);
	}
	free(c);
	return arr;
}

/* The application files (all non-system files and "no file"). */
void
app_files(struct agg *a, struct dft_tmap *set)
{
	dft_tmap_get(set, "", 0, 1, NULL);
	for (size_t i = 0; i < a->m[M_FILE].count; i++) {
		size_t kn;
		const char *k;

		if (app_file(a, i, &k, &kn) != NULL)
			dft_tmap_get(set, k, kn, 1, NULL);
	}
}

/* X01 metadata-dominated I/O */
static void
i_metadata(struct rules_ctx *c, const struct insight *d)
{
	const int64_t *g = c->app;
	double v = frac(g[S_MT], g[S_T]);
	struct finding *f;

	if (g[S_T] <= 0 || g[S_MN] <= 0 || v < insight_thr(d))
		return;
	f = finding_add(c->r, d, "all", v, insight_score(d, d->level, v));
	finding_evi(f, "metadata_ops", g[S_MN]);
	finding_evd(f, "metadata_time_s", g[S_MT] / 1e6);
	finding_evd(f, "io_time_s", g[S_T] / 1e6);
	f->calls = calls_of(c->a, IOC_META);
	f->functions = functions_for(c->a, 1u << C_META, &c->appf, NULL);
	f->description = dft_xasprintf(
		"%.1f%% of the I/O time (%.2f of %.2f s) is metadata: "
		"%lld open/stat/close/seek/... calls", 100 * v,
		g[S_MT] / 1e6, g[S_T] / 1e6, (long long)g[S_MN]);
}

/* X02 sync storm: sync time share, and at least sync_requests_absolute */
static void
i_sync(struct rules_ctx *c, const struct insight *d)
{
	const int64_t *g = c->app;
	double v = frac(g[S_YT], g[S_T]);
	struct finding *f;

	if (g[S_T] <= 0 || g[S_YN] < insight_aux(d) || v < insight_thr(d))
		return;
	double per = g[S_WN] > 0 ? (double)g[S_YN] / (double)g[S_WN] : 0;

	f = finding_add(c->r, d, "all", v, insight_score(d, d->level, v));
	finding_evi(f, "syncs", g[S_YN]);
	finding_evd(f, "sync_time_s", g[S_YT] / 1e6);
	finding_evi(f, "writes", g[S_WN]);
	finding_evd(f, "syncs_per_write", per);
	finding_evd(f, "io_time_s", g[S_T] / 1e6);
	f->calls = calls_of(c->a, IOC_SYNC);
	f->functions = functions_for(c->a, 1u << C_SYNC, &c->appf, NULL);
	f->description = dft_xasprintf(
		"%.1f%% of the I/O time (%.2f s) is in %lld "
		"fsync/fdatasync/msync calls, %.2f per write", 100 * v,
		g[S_YT] / 1e6, (long long)g[S_YN], per);
}

/* X03 redundant reads: bytes read over distinct bytes read, per process
 * and file (bounded interval sets, agg.c); at least redundant_read_bytes
 * read again */
static void
i_reread(struct rules_ctx *c, const struct insight *d)
{
	struct agg *a = c->a;
	const int64_t *g = c->app;
	int64_t rb = 0, dist = 0, nfiles = 0;
	struct finding *f;

	if (g[S_T] <= 0)
		return;
	for (size_t i = 0; i < a->m[M_FILE].count; i++) {
		const int64_t *s = app_file(a, i, NULL, NULL);

		if (s == NULL || s[S_REREAD_N] == 0)
			continue;
		rb += s[S_RB];
		dist += s[S_DISTINCT_RB];
		nfiles++;
	}
	double v = dist > 0 ? (double)rb / (double)dist : 0;

	if (rb - dist < insight_aux(d) || v < insight_thr(d))
		return;
	f = finding_add(c->r, d, "all", v, (int)d->level);
	finding_evi(f, "bytes_read", rb);
	finding_evi(f, "distinct_bytes", dist);
	finding_evi(f, "redundant_bytes", rb - dist);
	finding_evi(f, "reread_requests", g[S_REREAD_N]);
	finding_evd(f, "reread_time_s", g[S_REREAD_T] / 1e6);
	finding_evi(f, "files", nfiles);
	f->functions = functions_for(a, 1u << C_REREAD, &c->appf, NULL);
	f->description = dft_xasprintf(
		"%lld bytes read from %lld file(s) hold %lld distinct "
		"bytes: each byte is read %.1f times (%lld requests "
		"read bytes already read)", (long long)rb,
		(long long)nfiles, (long long)dist, v,
		(long long)g[S_REREAD_N]);
}

/* ---- the descriptor table ------------------------------------------------ */

#define HIGH LV_HIGH
#define WARN LV_WARN
#define INFO LV_INFO
#define OK LV_OK
#define RULE LV_RULE
#define NONE T_N

/*
 * Every insight dft-analyze computes, in the order the rules run (which
 * is the order of the raw findings the judgement folds). code, class
 * (the catalogue class judge.c gives the finding; NULL: not a finding of
 * its own), source, metric, layer, view, level, threshold (thr[] index,
 * or NONE and the fixed value), auxiliary threshold, operator, d->w
 * (writes / the second form), d->under (fires below the threshold),
 * title, recommendation, function (NULL: run by its family: WisIO's view
 * rows, the dlio dimensions, judge.c's system finding).
 */
const struct insight insights[] = {
	{ "S01", "stdio", "drishti", "stdio_bytes_pct", "posix", "app",
	  HIGH, T_INTERFACE_STDIO, 0, NONE, ">", 0, 0,
	  "High STDIO usage",
	  "switch the bulk data path to POSIX or MPI-IO with large "
	  "requests (STDIO adds a buffering layer)", i_stdio },
	{ "P01", "io_mix", "drishti", "operation_imbalance_ratio", "posix",
	  "app", INFO, T_IMBALANCE_OPERATIONS, 0, NONE, ">", 1, 0,
	  "Write-intensive by operations",
	  "informational: tune for the dominant direction", i_intensity },
	{ "P02", "io_mix", "drishti", "operation_imbalance_ratio", "posix",
	  "app", INFO, T_IMBALANCE_OPERATIONS, 0, NONE, ">", 0, 0,
	  "Read-intensive by operations",
	  "informational: tune for the dominant direction", i_intensity },
	{ "P03", "io_mix", "drishti", "size_imbalance_ratio", "posix", "app",
	  INFO, T_IMBALANCE_OPERATIONS, 0, NONE, ">", 1, 0,
	  "Write-intensive by bytes",
	  "informational: tune for the dominant direction",
	  i_intensity },
	{ "P04", "io_mix", "drishti", "size_imbalance_ratio", "posix", "app",
	  INFO, T_IMBALANCE_OPERATIONS, 0, NONE, ">", 0, 0,
	  "Read-intensive by bytes",
	  "informational: tune for the dominant direction",
	  i_intensity },
	{ "P05", "small_read", "drishti", "small_read_pct", "posix", "app",
	  HIGH, T_SMALL_REQUESTS, 0, T_SMALL_REQUESTS_ABS, ">", 0, 0,
	  "Many small read requests",
	  "read in larger contiguous blocks and serve small reads from "
	  "memory; with MPI use collective MPI_File_read_all", i_small },
	{ "P06", "small_write", "drishti", "small_write_pct", "posix", "app",
	  HIGH, T_SMALL_REQUESTS, 0, T_SMALL_REQUESTS_ABS, ">", 1, 0,
	  "Many small write requests",
	  "buffer small writes into larger contiguous requests (aggregate "
	  "in memory, write once); with MPI use collective "
	  "MPI_File_write_all", i_small },
	{ "P08", "misaligned", "drishti", "misaligned_pct", "posix", "app",
	  HIGH, T_MISALIGNED_REQUESTS, 0, T_FILE_ALIGNMENT, ">", 0, 0,
	  "Misaligned file requests",
	  "align requests to the file-system block or stripe size (HDF5 "
	  "H5Pset_alignment, Lustre stripe size)", i_misaligned },
	{ "P09", "redundant_read", "drishti", "redundant_read_ratio", "posix",
	  "app", WARN, NONE, 1, NONE, ">", 0, 0,
	  "Redundant read traffic",
	  "the same bytes are read more than once: cache them in memory or "
	  "read each block once", i_redundant },
	{ "P10", "write_time", "drishti", "redundant_write_ratio", "posix",
	  "app", WARN, NONE, 1, NONE, ">", 1, 0,
	  "Redundant write traffic",
	  "data is written more than once at the same offsets: write each "
	  "block once", i_redundant },
	{ "P11", "random_access", "drishti", "rand_read_pct", "posix", "app",
	  HIGH, T_RANDOM_OPERATIONS, 0, T_RANDOM_OPERATIONS_ABS, ">", 0, 0,
	  "High random reads",
	  "change the data layout or the access order so that requests are "
	  "consecutive; sort or batch offsets before issuing them", i_random },
	{ "P12", NULL, "drishti", "rand_read_pct", "posix", "app",
	  OK, T_RANDOM_OPERATIONS, 0, T_RANDOM_OPERATIONS_ABS, ">", 0, 1,
	  "Mostly sequential reads", "none needed", i_random },
	{ "P13", "random_access", "drishti", "rand_write_pct", "posix", "app",
	  HIGH, T_RANDOM_OPERATIONS, 0, T_RANDOM_OPERATIONS_ABS, ">", 1, 0,
	  "High random writes",
	  "change the data layout or the access order so that requests are "
	  "consecutive; sort or batch offsets before issuing them", i_random },
	{ "P14", NULL, "drishti", "rand_write_pct", "posix", "app",
	  OK, T_RANDOM_OPERATIONS, 0, T_RANDOM_OPERATIONS_ABS, ">", 1, 1,
	  "Mostly sequential writes", "none needed", i_random },
	{ "P15", "small_read", "drishti", "shared_small_read_pct", "posix",
	  "app", HIGH, T_SMALL_REQUESTS, 0, T_SMALL_REQUESTS_ABS, ">", 0, 0,
	  "Small reads from shared files",
	  "coalesce the processes' requests (MPI-IO collective buffering, "
	  "or one aggregator per node)", i_shared_small },
	{ "P16", "small_write", "drishti", "shared_small_write_pct", "posix",
	  "app", HIGH, T_SMALL_REQUESTS, 0, T_SMALL_REQUESTS_ABS, ">", 1, 0,
	  "Small writes to shared files",
	  "coalesce the processes' requests (MPI-IO collective buffering, "
	  "or one aggregator per node)", i_shared_small },
	{ "P18", "shared_file", "drishti", "shared_size_imbalance", "posix",
	  "file", HIGH, T_IMBALANCE_STRAGGLERS, 0, NONE, ">", 0, 0,
	  "Data imbalance on a shared file",
	  "rebalance the work between processes; tune stripe size and count",
	  i_straggler },
	{ "P19", "shared_file", "drishti", "shared_time_imbalance", "posix",
	  "file", HIGH, T_IMBALANCE_STRAGGLERS, 0, NONE, ">", 1, 0,
	  "Time imbalance on a shared file",
	  "rebalance the work between processes; tune stripe size and count",
	  i_straggler },
	{ "P22", "imbalance", "drishti", "read_size_imbalance", "posix",
	  "process", HIGH, T_IMBALANCE_SIZE, 0, NONE, ">", 0, 0,
	  "Read size imbalance between processes",
	  "balance the data each process writes or reads", i_size_imbalance },
	{ "P21", "imbalance", "drishti", "write_size_imbalance", "posix",
	  "process", HIGH, T_IMBALANCE_SIZE, 0, NONE, ">", 1, 0,
	  "Write size imbalance between processes",
	  "balance the data each process writes or reads", i_size_imbalance },
	{ "P17", "metadata", "drishti", "metadata_time_rank", "posix",
	  "process", HIGH, NONE, 0, T_METADATA_TIME_RANK, ">", 0, 0,
	  "High metadata time",
	  "open files once and keep them open, cache stat results, combine "
	  "small files", i_metadata_rank },
	{ "M01", "collective_io", "drishti", "mpiio_usage", "posix", "app",
	  WARN, NONE, 0, NONE, "==", 0, 0,
	  "No MPI-IO usage",
	  "consider MPI-IO (collective reads and writes) for shared data",
	  i_no_mpiio },
	/* MPI-IO (mpiio.c), from the MPIIO layer's data calls */
	{ "M02", "collective_io", "drishti", "mpiio_independent_read_pct",
	  "mpiio", "app", HIGH, T_COLLECTIVE_OPERATIONS, 0,
	  T_COLLECTIVE_OPERATIONS_ABS, ">", 0, 0,
	  "MPI-IO without collective reads",
	  "use collective reads (MPI_File_read_all, MPI_File_read_at_all) "
	  "so that MPI-IO can aggregate the processes' requests (two-phase "
	  "I/O); with HDF5, H5Pset_dxpl_mpio(H5FD_MPIO_COLLECTIVE)",
	  i_mpiio_collective },
	{ "M03", "collective_io", "drishti", "mpiio_independent_write_pct",
	  "mpiio", "app", HIGH, T_COLLECTIVE_OPERATIONS, 0,
	  T_COLLECTIVE_OPERATIONS_ABS, ">", 1, 0,
	  "MPI-IO without collective writes",
	  "use collective writes (MPI_File_write_all, "
	  "MPI_File_write_at_all) so that MPI-IO can aggregate the "
	  "processes' requests (two-phase I/O); with HDF5, "
	  "H5Pset_dxpl_mpio(H5FD_MPIO_COLLECTIVE)", i_mpiio_collective },
	{ "M04", NULL, "drishti", "mpiio_collective_read_pct", "mpiio", "app",
	  OK, NONE, 0, NONE, ">", 0, 0,
	  "Collective MPI-IO reads", "none needed", i_mpiio_uses_collective },
	{ "M05", NULL, "drishti", "mpiio_collective_write_pct", "mpiio",
	  "app", OK, NONE, 0, NONE, ">", 1, 0,
	  "Collective MPI-IO writes", "none needed",
	  i_mpiio_uses_collective },
	{ "M06", "async_io", "drishti", "mpiio_nonblocking_read_pct", "mpiio",
	  "app", WARN, NONE, 0, NONE, "==", 0, 0,
	  "Blocking MPI-IO reads only",
	  "overlap reads with computation: MPI_File_iread / iread_at / "
	  "iread_all, split collectives (MPI_File_read_all_begin/end), or "
	  "the HDF5 asynchronous VOL connector", i_mpiio_blocking },
	{ "M06", NULL, "drishti", "mpiio_nonblocking_read_pct", "mpiio",
	  "app", OK, NONE, 0, NONE, ">", 0, 1,
	  "Non-blocking MPI-IO reads", "none needed", i_mpiio_blocking },
	{ "M07", "async_io", "drishti", "mpiio_nonblocking_write_pct",
	  "mpiio", "app", WARN, NONE, 0, NONE, "==", 1, 0,
	  "Blocking MPI-IO writes only",
	  "overlap writes with computation: MPI_File_iwrite / iwrite_at / "
	  "iwrite_all, split collectives (MPI_File_write_all_begin/end), or "
	  "the HDF5 asynchronous VOL connector", i_mpiio_blocking },
	{ "M07", NULL, "drishti", "mpiio_nonblocking_write_pct", "mpiio",
	  "app", OK, NONE, 0, NONE, ">", 1, 1,
	  "Non-blocking MPI-IO writes", "none needed", i_mpiio_blocking },
	/* aggregators per node: the open's cb_nodes hint against the hosts
	 * that opened the file */
	{ "M08", NULL, "drishti", "mpiio_aggregators_per_node", "mpiio",
	  "app", OK, NONE, 1, NONE, "<", 0, 0,
	  "Intra-node MPI-IO aggregators", "none needed",
	  i_mpiio_aggregators },
	{ "M09", "collective_io", "drishti", "mpiio_aggregators_per_node",
	  "mpiio", "app", HIGH, NONE, 1, NONE, ">", 0, 0,
	  "Inter-node MPI-IO aggregators",
	  "set the cb_nodes hint to the number of compute nodes (one "
	  "aggregator per node: cb_config_list *:1 under ROMIO), so that "
	  "collective buffering does not send data across the network twice",
	  i_mpiio_aggregators },
	{ "M10", NULL, "drishti", "mpiio_aggregators_per_node", "mpiio",
	  "app", OK, NONE, 1, NONE, "==", 0, 0,
	  "One MPI-IO aggregator per node", "none needed",
	  i_mpiio_aggregators },
	{ "P15", "small_read", "drishti", "mpiio_shared_small_read_pct",
	  "mpiio", "app", HIGH, T_SMALL_REQUESTS, 0, T_SMALL_REQUESTS_ABS,
	  ">", 0, 0,
	  "Small MPI-IO reads from shared files",
	  "read larger blocks per call, or let MPI-IO coalesce the "
	  "processes' requests with collective reads (collective buffering)",
	  i_mpiio_shared_small },
	{ "P16", "small_write", "drishti", "mpiio_shared_small_write_pct",
	  "mpiio", "app", HIGH, T_SMALL_REQUESTS, 0, T_SMALL_REQUESTS_ABS,
	  ">", 1, 0,
	  "Small MPI-IO writes to shared files",
	  "write larger blocks per call, or let MPI-IO coalesce the "
	  "processes' requests with collective writes (collective "
	  "buffering)", i_mpiio_shared_small },
	/* WisIO, on every row of the file, process and time views; the
	 * level is the row's share of the I/O time (wisio_row) */
	{ "W01", "metadata", "wisio", "metadata_time_pct", "posix", NULL,
	  RULE, T_WISIO_METADATA_TIME, 0, NONE, ">=", 0, 0,
	  "Excessive metadata access",
	  "reduce open/close/stat calls: keep files open, cache metadata, "
	  "use fewer larger files", NULL },
	{ "W02", "io_mix", "wisio", "operation_imbalance_ratio", "posix", NULL,
	  RULE, T_WISIO_OPERATION_IMBALANCE, 0, NONE, ">", 0, 0,
	  "Operation imbalance", NULL /* the direction */, NULL },
	{ "W03", "random_access", "wisio", "rand_pct", "posix", NULL,
	  RULE, T_WISIO_RANDOM, 0, NONE, ">", 0, 0,
	  "Random operations",
	  "make accesses consecutive (reorder, batch, or restructure the "
	  "data layout)", NULL },
	{ "W04", "io_mix", "wisio", "size_imbalance_ratio", "posix", NULL,
	  RULE, T_WISIO_SIZE_IMBALANCE, 0, NONE, ">", 0, 0,
	  "Size imbalance", NULL /* the direction */, NULL },
	{ "W05", "small_read", "wisio", "read_time_pct", "posix", NULL,
	  RULE, T_WISIO_SMALL_TIME, 0, T_WISIO_SMALL_SIZE, ">", 0, 0,
	  "Small reads dominate the I/O time",
	  "issue fewer, larger requests", NULL },
	{ "W06", "small_write", "wisio", "write_time_pct", "posix", NULL,
	  RULE, T_WISIO_SMALL_TIME, 0, T_WISIO_SMALL_SIZE, ">", 1, 0,
	  "Small writes dominate the I/O time",
	  "issue fewer, larger requests", NULL },
	/* HDF5 (mpiio.c), from the HDF5 layer: X01's share on its calls */
	{ "X05", "metadata", "dft", "hdf5_metadata_time_share", "hdf5", "app",
	  HIGH, T_METADATA_TIME_SHARE, 0, T_HDF5_METADATA_OPS_ABS, ">=", 0, 0,
	  "HDF5 metadata-dominated",
	  "make fewer HDF5 metadata calls: gather many small attributes into "
	  "one array attribute or a small dataset, keep files, groups and "
	  "datasets open instead of reopening them; in parallel HDF5 let "
	  "metadata be written and read collectively "
	  "(H5Pset_coll_metadata_write, H5Pset_all_coll_metadata_ops) and "
	  "give it a larger metadata cache (H5Pset_mdc_config) and block "
	  "size (H5Pset_meta_block_size)", i_hdf5_metadata },
	/* dft's own classes, on the application's files */
	{ "X01", "metadata", "dft", "metadata_time_share", "posix", "app",
	  HIGH, T_METADATA_TIME_SHARE, 0, NONE, ">=", 0, 0,
	  "Metadata-dominated I/O",
	  "open each file once and keep it open, cache stat results instead "
	  "of asking again, create fewer (larger) files, avoid lseek/stat in "
	  "inner loops", i_metadata },
	{ "X02", "sync", "dft", "sync_time_share", "posix", "app",
	  HIGH, T_SYNC_TIME_SHARE, 0, T_SYNC_REQUESTS_ABS, ">=", 0, 0,
	  "Sync storm",
	  "sync once per file at the end of a phase (or per batch of "
	  "records, group commit) instead of after every write; fdatasync "
	  "where metadata need not be durable", i_sync },
	{ "X03", "redundant_read", "dft", "redundant_read_ratio", "posix",
	  "app", LV_HIGH, T_REDUNDANT_READ_RATIO, 0, T_REDUNDANT_READ_BYTES,
	  ">=", 0, 0,
	  "Redundant reads",
	  "read each block once and keep it (cache the file or the decoded "
	  "data in memory, or memory-map it) instead of reading it again",
	  i_reread },
	/* the dlio dimensions (dlio()); the level from the ratio bands */
	{ "D01", "data_loader", "dlio", "fetch_pressure", "fetch_data", "app",
	  RULE, T_DLIO_FETCH_PRESSURE, 0, NONE, ">", 0, 0,
	  "Data-loader stall",
	  "overlap data loading with compute: more loader workers, "
	  "prefetching, caching the dataset in memory or on local storage, "
	  "larger or fewer files", NULL },
	{ "D02", "data_loader", "dlio", "epoch_straggler", "reader", "time",
	  RULE, T_DLIO_EPOCH_STRAGGLER, 0, NONE, ">", 0, 0,
	  "Epoch straggler among reader threads",
	  "balance samples between loader workers; shard by size, not "
	  "count; avoid a slow storage target", NULL },
	{ "D03", "checkpoint", "dlio", "checkpoint_util", "checkpoint", "app",
	  RULE, T_DLIO_CHECKPOINT_TIME, 0, NONE, ">", 0, 0,
	  "Checkpoint time",
	  "checkpoint less often, asynchronously (copy the state, write it "
	  "in the background), or to faster local storage", NULL },
	{ "D04", "fs_bw", "dlio", "fs_bw", NULL, "app",
	  RULE, T_DLIO_FS_BW_MB_S, 0, NONE, "<", 0, 0,
	  "File-system read bandwidth",
	  "read larger blocks, use more parallel readers, stage the dataset "
	  "to node-local storage, tune striping", NULL },
	/* judge.c: I/O on system and runtime files */
	{ "X04", "system", "dft", "system_time_share", "posix", "app",
	  WARN, T_SYSTEM_DOMINATES, 0, NONE, ">=", 0, 0,
	  "I/O on system and runtime files",
	  "look at what the runtime does at start-up (MPI session files, "
	  "library loading, /proc reads); it is not the application's own "
	  "I/O", NULL },
};
const size_t ninsights = sizeof(insights) / sizeof(insights[0]);

#undef HIGH
#undef WARN
#undef INFO
#undef OK
#undef RULE
#undef NONE

const struct insight *
insight_find(const char *code)
{
	for (size_t i = 0; i < ninsights; i++)
		if (strcmp(insights[i].code, code) == 0)
			return &insights[i];
	dft_die("no insight '%s'", code);
}

/* The table's rules of one source that have a function, in table order. */
static void
run_source(struct rules_ctx *c, const char *source)
{
	for (size_t i = 0; i < ninsights; i++)
		if (insights[i].run != NULL &&
		    strcmp(insights[i].source, source) == 0)
			insights[i].run(c, &insights[i]);
}

void
rules_run(struct agg *a, struct run_info *ri, struct results *r)
{
	struct rules_ctx c = { .a = a, .r = r, .g = a->g + G_IO_S };

	rules_include_system = ri->include_system;
	dft_tmap_init(&c.np, sizeof(int64_t));
	dft_tmap_init(&c.shared, sizeof(int64_t));
	shared_files(a, &c.np);
	for (size_t i = 0; i < c.np.count; i++) {
		size_t kn;
		const char *k = dft_tmap_key(&c.np, i, &kn);

		c.nshared++;
		dft_tmap_get(&c.shared, k, kn, 1, NULL);
	}
	shared_stats(a, &c.shared, &c.st);
	app_sums(a, c.app);
	dft_tmap_init(&c.appf, sizeof(int64_t));
	app_files(a, &c.appf);

	run_source(&c, "drishti");
	wisio(a, r);
	run_source(&c, "dft");
	dlio(a, r, strcmp(ri->preset, "dlio") == 0);
	dft_tmap_release(&c.np);
	dft_tmap_release(&c.shared);
	dft_tmap_release(&c.st);
	dft_tmap_release(&c.appf);
	judge(a, ri, r);
}
