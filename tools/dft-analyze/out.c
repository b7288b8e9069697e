/*
 * out.c - the summary, layer, view and bottleneck records (man dft(7)),
 * and the --format table report for a terminal.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"

static json_object *
io3(int64_t n, int64_t t, int64_t b)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "count", dft_jint(n));
	json_object_object_add(o, "time_s", dft_jdouble(t / 1e6));
	json_object_object_add(o, "bytes", dft_jint(b));
	return o;
}

static double
frac(double a, double b)
{
	return b > 0 ? a / b : 0;
}

/* Entries of a table ordered by a column (descending), then by key. */
struct ord {
	const struct dft_tmap *m;
	int col;
};

static const struct ord *cur_ord;

static int
cmp_ord(const void *x, const void *y)
{
	size_t i = *(const size_t *)x, j = *(const size_t *)y;
	const int64_t *a = dft_tmap_value(cur_ord->m, i);
	const int64_t *b = dft_tmap_value(cur_ord->m, j);

	if (a[cur_ord->col] != b[cur_ord->col])
		return a[cur_ord->col] > b[cur_ord->col] ? -1 : 1;
	return strcmp(dft_tmap_key(cur_ord->m, i, NULL),
		      dft_tmap_key(cur_ord->m, j, NULL));
}

static size_t *
order(const struct dft_tmap *m, int col)
{
	size_t *ix = dft_xcalloc(m->count ? m->count : 1, sizeof(*ix));
	struct ord o = { m, col };

	for (size_t i = 0; i < m->count; i++)
		ix[i] = i;
	cur_ord = &o;
	qsort(ix, m->count, sizeof(*ix), cmp_ord);
	cur_ord = NULL;
	return ix;
}

/* Number of keys "prefix \x1e ..." per prefix, in a new table. */
static void
count_by_part(const struct dft_tmap *src, int second, struct dft_tmap *out)
{
	dft_tmap_init(out, sizeof(int64_t));
	for (size_t i = 0; i < src->count; i++) {
		size_t kn;
		const char *k = dft_tmap_key(src, i, &kn);
		const char *sep = memchr(k, '\x1e', kn);

		if (sep == NULL)
			continue;
		int64_t *v = second ?
			dft_tmap_get(out, sep + 1, kn - (size_t)(sep + 1 - k), 1,
				     NULL) :
			dft_tmap_get(out, k, (size_t)(sep - k), 1, NULL);

		(*v)++;
	}
}

static int64_t
count_of(struct dft_tmap *m, const char *k)
{
	int64_t *v = dft_tmap_get(m, k, strlen(k), 0, NULL);

	return v ? *v : 0;
}

/* ---- summary -------------------------------------------------------------- */

static json_object *
summary(struct agg *a, const struct run_info *ri)
{
	json_object *o = json_object_new_object();
	const int64_t *g = a->io_raw;	/* as measured, stalls in */
	int64_t t0 = a->g[G_TS_MIN], t1 = a->g[G_TS_MAX];

	if (t0 > t1)
		t0 = t1 = 0;
	json_object_object_add(o, "type", dft_jstr("summary"));
	json_object_object_add(o, "v", dft_jint(7));
	json_object_object_add(o, "wall_s", dft_jdouble(ri->wall_s));
	json_object_object_add(o, "io_wall_s", dft_jdouble(ri->io_wall_s));
	json_object_object_add(o, "io_wall_share",
			       dft_jdouble(ri->io_wall_share));
	json_object_object_add(o, "verdict", dft_jstr(ri->verdict));
	json_object_object_add(o, "verdict_text", dft_jstr(ri->verdict_text));
	json_object_object_add(o, "processes_io",
			       json_object_get(ri->processes_io));
	json_object_object_add(o, "processes_io_more",
			       dft_jint(ri->processes_io_more));
	json_object_object_add(o, "process_wall_s",
			       dft_jdouble(ri->proc_wall_s));
	json_object_object_add(o, "ends", json_object_get(ri->ends));
	json_object_object_add(o, "ends_text", dft_jstr(ri->ends_text));
	json_object_object_add(o, "unfinished",
			       json_object_get(ri->unfinished));
	json_object_object_add(o, "unfinished_more",
			       dft_jint(ri->unfinished_more));
	{
		json_object *sy = json_object_new_object();
		int64_t all = a->g[G_IO_S + S_T];

		json_object_object_add(sy, "count", dft_jint(ri->sys_n));
		json_object_object_add(sy, "time_s",
				       dft_jdouble(ri->sys_t / 1e6));
		json_object_object_add(sy, "bytes", dft_jint(ri->sys_b));
		json_object_object_add(sy, "files", dft_jint(ri->sys_files));
		json_object_object_add(sy, "share", dft_jdouble(
			all > 0 ? (double)ri->sys_t / (double)all : 0));
		json_object_object_add(sy, "ranked", json_object_new_boolean(
			ri->include_system ||
			(all > 0 && (double)ri->sys_t / (double)all >=
			 thr[T_SYSTEM_DOMINATES])));
		json_object_object_add(o, "system_io", sy);
	}
	json_object_object_add(o, "ok_insights", ri->ok_insights ?
			       json_object_get(ri->ok_insights) :
			       json_object_new_array());
	json_object_object_add(o, "findings_total",
			       dft_jint((int64_t)ri->findings_total));
	json_object_object_add(o, "findings_shown",
			       dft_jint((int64_t)ri->findings_shown));
	json_object_object_add(o, "preset", dft_jstr(ri->preset));
	json_object_object_add(o, "preset_reason", dft_jstr(ri->preset_reason));
	json_object_object_add(o, "inputs", json_object_get(ri->inputs));
	json_object *fm = json_object_new_object();

	for (int i = 0; i < 4; i++) {
		char k[8];

		snprintf(k, sizeof(k), "gen%d", i);
		json_object_object_add(fm, k, dft_jint(a->g[G_GEN0 + i]));
	}
	json_object_object_add(o, "formats", fm);
	json_object_object_add(o, "lines", dft_jint(a->g[G_LINES]));
	json_object_object_add(o, "events", dft_jint(a->g[G_EVENTS]));
	json_object_object_add(o, "calls", dft_jint(a->g[G_CALLS]));
	json_object_object_add(o, "metadata_events",
			       dft_jint(a->g[G_META_EVENTS]));
	json_object_object_add(o, "bad_lines", dft_jint(a->g[G_BAD_LINES]));
	json_object_object_add(o, "truncated_files",
			       dft_jint(a->g[G_TRUNCATED]));
	json_object_object_add(o, "processes",
			       dft_jint((int64_t)a->m[M_PROC].count));
	json_object_object_add(o, "threads",
			       dft_jint((int64_t)a->m[M_THREAD].count));
	json_object_object_add(o, "hosts",
			       dft_jint((int64_t)a->m[M_HOST].count));
	json_object_object_add(o, "files",
			       dft_jint((int64_t)a->m[M_FILE].count));
	json_object_object_add(o, "time_start_us", dft_jint(t0));
	json_object_object_add(o, "time_end_us", dft_jint(t1));
	json_object_object_add(o, "span_s", dft_jdouble((t1 - t0) / 1e6));

	json_object *io = io3(g[S_N], g[S_T], g[S_B]);

	json_object_object_add(io, "read", io3(g[S_RN], g[S_RT], g[S_RB]));
	json_object_object_add(io, "write", io3(g[S_WN], g[S_WT], g[S_WB]));
	json_object_object_add(io, "metadata", io3(g[S_MN], g[S_MT], 0));
	json_object_object_add(io, "flush", io3(g[S_FLUSH_N], g[S_FLUSH_T],
						 0));
	json_object_object_add(io, "sync", io3(g[S_YN], g[S_YT], 0));
	json_object_object_add(io, "other", io3(g[S_ON], g[S_OT], 0));
	json_object_object_add(o, "io", io);
	{
		json_object *st = json_object_new_object();

		json_object_object_add(st, "count", dft_jint(a->stall_n));
		json_object_object_add(st, "time_s",
				       dft_jdouble(a->stall_t / 1e6));
		json_object_object_add(o, "stalls", st);
	}

	json_object *ifc = json_object_new_object();
	static const char *const ifn[4] = { "posix", "stdio", "mpiio",
					    "hdf5" };

	for (int i = 0; i < 4; i++) {
		const int64_t *r = dft_tmap_get(&a->m[M_IFACE], ifn[i],
						strlen(ifn[i]), 0, NULL);

		json_object_object_add(ifc, ifn[i], r ? io3(r[0], r[1], r[2]) :
						    io3(0, 0, 0));
	}
	/* HDF5 over MPI-IO: its H5Pset_fapl_mpio calls */
	json_object *h5;

	if (json_object_object_get_ex(ifc, "hdf5", &h5))
		json_object_object_add(h5, "over_mpiio", dft_jint(
			a->layer[L_HDF5][LF_DER + 3 * 7]));
	json_object_object_add(o, "interfaces", ifc);

	json_object *cats = json_object_new_array();
	size_t *ix = order(&a->m[M_CAT], 1);

	for (size_t i = 0; i < a->m[M_CAT].count; i++) {
		const int64_t *r = dft_tmap_value(&a->m[M_CAT], ix[i]);
		json_object *c = json_object_new_object();

		json_object_object_add(c, "cat",
			dft_jstr(dft_tmap_key(&a->m[M_CAT], ix[i], NULL)));
		json_object_object_add(c, "count", dft_jint(r[0]));
		json_object_object_add(c, "time_s", dft_jdouble(r[1] / 1e6));
		json_object_object_add(c, "bytes", dft_jint(r[2]));
		json_object_array_add(cats, c);
	}
	free(ix);
	json_object_object_add(o, "categories", cats);

	json_object *fns = json_object_new_array();
	/* the I/O calls each function is the innermost traced function of,
	 * and their time:
	 * the attribution rows (name \x1f cat \x1f file \x1f line \x1e
	 * process) summed per name \x1f cat */
	struct dft_tmap fio;

	dft_tmap_init(&fio, 2 * sizeof(int64_t));
	for (size_t i = 0; i < a->m[M_ATTR_P].count; i++) {
		size_t kn;
		const char *k = dft_tmap_key(&a->m[M_ATTR_P], i, &kn);
		const char *s1 = memchr(k, '\x1f', kn);
		const char *s2 = s1 ? memchr(s1 + 1, '\x1f', kn - (size_t)(s1 + 1 - k)) :
				 NULL;
		const int64_t *r = dft_tmap_value(&a->m[M_ATTR_P], i);

		if (s2 != NULL) {
			int64_t *v = dft_tmap_get(&fio, k, (size_t)(s2 - k), 1,
						  NULL);

			v[0] += r[2 * C_IO];
			v[1] += r[2 * C_IO + 1];
		}
	}

	ix = order(&a->m[M_FUNC], 1);
	for (size_t i = 0; i < a->m[M_FUNC].count; i++) {
		size_t kn;
		const char *k = dft_tmap_key(&a->m[M_FUNC], ix[i], &kn);
		const char *sep = memchr(k, '\x1f', kn);
		const int64_t *r = dft_tmap_value(&a->m[M_FUNC], ix[i]);
		json_object *c = json_object_new_object();
		size_t nn = sep ? (size_t)(sep - k) : kn;
		const char *cat = sep ? sep + 1 : "";
		int ioc;
		int kind = fn_kind(k, nn, cat, strlen(cat), &ioc);

		json_object_object_add(c, "name",
				       json_object_new_string_len(k, (int)nn));
		json_object_object_add(c, "cat", dft_jstr(cat));
		json_object_object_add(c, "io_cat",
			dft_jstr(kind & (FN_IO | FN_MPIIO | FN_HDF5) ? ioc_name[ioc] :
				 kind & FN_APP ? "app" : "none"));
		json_object_object_add(c, "count", dft_jint(r[0]));
		json_object_object_add(c, "events", dft_jint(r[5]));
		json_object_object_add(c, "time_s", dft_jdouble(r[1] / 1e6));
		json_object_object_add(c, "bytes", dft_jint(r[2]));
		if (kind & FN_APP) {
			const int64_t *n = dft_tmap_get(&fio, k, kn, 0, NULL);

			json_object_object_add(c, "io_calls",
					       dft_jint(n ? n[0] : 0));
			json_object_object_add(c, "io_time_s",
					       dft_jdouble(n ? n[1] / 1e6 : 0));
		}
		json_object_array_add(fns, c);
	}
	free(ix);
	dft_tmap_release(&fio);
	json_object_object_add(o, "functions", fns);

	json_object *h = json_object_new_object();
	json_object *bl = json_object_new_array();
	json_object *hr = json_object_new_array();
	json_object *hw = json_object_new_array();

	for (int i = 0; i < NBINS; i++) {
		json_object_array_add(bl, dft_jstr(bin_label[i]));
		json_object_array_add(hr, dft_jint(g[S_HIST_R + i]));
		json_object_array_add(hw, dft_jint(g[S_HIST_W + i]));
	}
	json_object_object_add(h, "bins", bl);
	json_object_object_add(h, "read", hr);
	json_object_object_add(h, "write", hw);
	json_object_object_add(o, "size_histogram", h);

	json_object *acc = json_object_new_object();

	for (int w = 0; w < 2; w++) {
		json_object *x = json_object_new_object();

		json_object_object_add(x, "sequential",
				       dft_jint(g[w ? S_SEQ_W : S_SEQ_R]));
		json_object_object_add(x, "consecutive",
				       dft_jint(g[w ? S_CONS_W : S_CONS_R]));
		json_object_object_add(x, "random",
				       dft_jint(g[w ? S_RND_W : S_RND_R]));
		json_object_object_add(acc, w ? "write" : "read", x);
	}
	json_object_object_add(o, "access", acc);

	struct dft_tmap np;
	int64_t sf = 0, pf = 0, sb = 0, pb = 0;

	dft_tmap_init(&np, sizeof(int64_t));
	shared_files(a, &np);
	for (size_t i = 0; i < a->m[M_FILE].count; i++) {
		const char *k = dft_tmap_key(&a->m[M_FILE], i, NULL);
		const int64_t *s = dft_tmap_value(&a->m[M_FILE], i);

		if (count_of(&np, k) > 1) {
			sf++;
			sb += s[S_B];
		} else {
			pf++;
			pb += s[S_B];
		}
	}
	dft_tmap_release(&np);
	json_object *sh = json_object_new_object();

	json_object_object_add(sh, "shared_files", dft_jint(sf));
	json_object_object_add(sh, "per_process_files", dft_jint(pf));
	json_object_object_add(sh, "shared_bytes", dft_jint(sb));
	json_object_object_add(sh, "per_process_bytes", dft_jint(pb));
	json_object_object_add(o, "sharing", sh);

	json_object *imb = json_object_new_object();

	for (int k = 0; k < 2; k++) {
		int64_t mn = INT64_MAX, mx = INT64_MIN, sum = 0, n = 0;

		for (size_t i = 0; i < a->m[M_PROC].count; i++) {
			const int64_t *s = dft_tmap_value(&a->m[M_PROC], i);
			int64_t v = k ? s[S_T] : s[S_B];

			if (s[S_N] == 0)
				continue;
			mn = v < mn ? v : mn;
			mx = v > mx ? v : mx;
			sum += v;
			n++;
		}
		json_object *x = json_object_new_object();
		double sc = k ? 1e6 : 1;

		if (n == 0)
			mn = mx = 0;
		json_object_object_add(x, "min", k ? dft_jdouble(mn / sc) :
					  dft_jint(mn));
		json_object_object_add(x, "max", k ? dft_jdouble(mx / sc) :
					  dft_jint(mx));
		json_object_object_add(x, "mean",
				       dft_jdouble(n ? sum / (double)n / sc : 0));
		json_object_object_add(x, "ratio",
				       dft_jdouble(mx > 0 ?
						   (double)(mx - mn) / mx : 0));
		json_object_object_add(imb, k ? "time" : "bytes", x);
	}
	json_object_object_add(o, "imbalance", imb);
	json_object_object_add(o, "unattributed_io_time_s",
			       dft_jdouble(a->g[G_UNATTR_T] / 1e6));
	json_object_object_add(o, "thresholds", thresholds_json());
	return o;
}

/* ---- layers --------------------------------------------------------------- */

/* The layers of a preset: posix, or dlio's; in both the MPI-IO and HDF5
 * layers when the trace has their calls. */
static int
preset_has(struct agg *a, const char *preset, int l)
{
	if (l == L_MPIIO || l == L_HDF5)
		return a->layer[l][LF_N] > 0;
	if (strcmp(preset, "dlio") == 0)
		return l != L_POSIX;
	return l == L_POSIX;
}

static json_object *
layer_rec(struct agg *a, const char *preset, int l)
{
	const struct layer_def *d = &layer_defs[l];
	const int64_t *r = a->layer[l];
	json_object *o = json_object_new_object();
	double t = layer_time(a, l);
	int dlio = strcmp(preset, "dlio") == 0;

	json_object_object_add(o, "type", dft_jstr("layer"));
	json_object_object_add(o, "v", dft_jint(1));
	json_object_object_add(o, "preset", dft_jstr(preset));
	json_object_object_add(o, "layer", dft_jstr(d->name));
	json_object_object_add(o, "parent", d->parent >= 0 ?
			       dft_jstr(layer_defs[d->parent].name) : NULL);
	json_object_object_add(o, "query", dft_jstr(d->query));
	json_object_object_add(o, "derived_from",
			       l == L_FETCH && a->g[G_FETCH_ITER] == 0 ?
			       dft_jstr("training - compute") : NULL);
	json_object_object_add(o, "count", dft_jint(r[LF_N]));
	json_object_object_add(o, "time_s", dft_jdouble(t));
	json_object_object_add(o, "bytes", dft_jint(r[LF_B]));
	json_object_object_add(o, "read", io3(r[LF_RN], r[LF_RT], r[LF_RB]));
	json_object_object_add(o, "write", io3(r[LF_WN], r[LF_WT], r[LF_WB]));
	json_object_object_add(o, "metadata", io3(r[LF_MN], r[LF_MT], 0));

	json_object *der = json_object_new_object();
	const char *const *names = d->posix_derived == 1 ? der_posix :
				   d->posix_derived == 2 ? der_loader :
				   d->posix_derived == 3 ? der_reader :
				   d->posix_derived == 4 ? der_mpiio :
				   d->posix_derived == 5 ? der_hdf5 : NULL;

	for (int i = 0; names && i < NDER && names[i]; i++) {
		const int64_t *x = r + LF_DER + 3 * i;

		json_object_object_add(der, names[i], io3(x[0], x[1], x[2]));
	}
	json_object_object_add(o, "derived", der);

	int64_t threads = 0;
	size_t ln = strlen(d->name);

	for (size_t i = 0; i < a->m[M_LAYERTHR].count; i++) {
		size_t kn;
		const char *k = dft_tmap_key(&a->m[M_LAYERTHR], i, &kn);

		if (kn > ln && k[ln] == '\x1e' && memcmp(k, d->name, ln) == 0)
			threads++;
	}
	json_object_object_add(o, "threads", dft_jint(threads));
	json_object_object_add(o, "ops_per_s",
			       dft_jdouble(t > 0 ? r[LF_N] / t : 0));
	json_object_object_add(o, "bw_mb_s",
			       dft_jdouble(t > 0 ? r[LF_B] / t / 1e6 : 0));
	double child = 0;

	for (int c = 0; c < L_N; c++)
		if (layer_defs[c].parent == l && preset_has(a, preset, c))
			child += layer_time(a, c);
	if (l == L_MPIIO || l == L_HDF5) {
		/* the lower layers' time inside the calls, once */
		double in = a->g[l == L_MPIIO ? G_MPIIO_INNER_T :
				 G_HDF5_INNER_T] / 1e6;
		json_object *io = json_object_new_object();

		json_object_object_add(io, "layer", dft_jstr(
			l == L_MPIIO ? "posix" : "mpiio+posix"));
		json_object_object_add(io, "time_s", dft_jdouble(in));
		json_object_object_add(o, "inner", io);
		child = in;
	}
	json_object_object_add(o, "overhead_s",
			       dft_jdouble(t - child > 0 ? t - child : 0));
	json_object *sc = json_object_new_object();

	if (d->parent >= 0) {
		double pt = layer_time(a, d->parent);
		double fp = pt > 0 ? t / pt : 0;

		json_object_object_add(o, "time_frac_parent", dft_jdouble(fp));
		json_object_object_add(sc, "time_frac_parent",
				       dft_jint(score_frac(fp)));
	} else {
		json_object_object_add(o, "time_frac_parent", NULL);
	}
	if (dlio && (l == L_COMPUTE || l == L_FETCH || l == L_CKPT)) {
		double u = t / (layer_time(a, L_APP) + 1e-9);

		json_object_object_add(o, "util", dft_jdouble(u));
		json_object_object_add(sc, "util",
				       dft_jint(score_frac(1 - u)));
	} else {
		json_object_object_add(o, "util", NULL);
	}
	json_object_object_add(o, "scores", sc);
	return o;
}

/* ---- views ------------------------------------------------------------------ */

static void
time_key(struct agg *a, const char *k, char *out, size_t n, double *s0,
	 double *s1)
{
	double bin = thr[T_TIME_BIN_S] > 0 ? thr[T_TIME_BIN_S] : 1;
	long long b = strtoll(k, NULL, 10);
	double base = (double)a->g[G_TS_MIN] / 1e6;

	*s0 = (double)b * bin - base;
	*s1 = (double)(b + 1) * bin - base;
	if (*s0 < 0)
		*s0 = 0;
	snprintf(out, n, "%g-%g", *s0, *s1);
}

static void
views(FILE *out, struct agg *a, int top)
{
	static const int maps[3] = { M_FILE, M_PROC, M_BIN };
	static const char *const names[3] = { "file", "process", "time" };
	int64_t total = a->g[G_IO_S + S_T];
	struct dft_tmap fproc, pfile, bproc, bfile;

	count_by_part(&a->m[M_FILEPROC], 0, &fproc);
	count_by_part(&a->m[M_FILEPROC], 1, &pfile);
	count_by_part(&a->m[M_BINPROC], 0, &bproc);
	count_by_part(&a->m[M_BINFILE], 0, &bfile);
	for (int v = 0; v < 3; v++) {
		struct dft_tmap *m = &a->m[maps[v]];
		size_t *ix = order(m, S_T);

		for (size_t i = 0; i < m->count && (int)i < top; i++) {
			const char *k = dft_tmap_key(m, ix[i], NULL);
			const int64_t *s = dft_tmap_value(m, ix[i]);
			json_object *o = json_object_new_object();
			char key[64];
			double s0 = 0, s1 = 0;

			json_object_object_add(o, "type", dft_jstr("view"));
			json_object_object_add(o, "v", dft_jint(2));
			json_object_object_add(o, "view", dft_jstr(names[v]));
			if (v == 2)
				time_key(a, k, key, sizeof(key), &s0, &s1);
			json_object_object_add(o, "key", dft_jstr(v == 2 ? key :
								  k));
			json_object_object_add(o, "rank", dft_jint((int64_t)i + 1));
			json_object_object_add(o, "rows",
					       dft_jint((int64_t)m->count));
			json_object_object_add(o, "count", dft_jint(s[S_N]));
			json_object_object_add(o, "time_s",
					       dft_jdouble(s[S_T] / 1e6));
			json_object_object_add(o, "bytes", dft_jint(s[S_B]));
			json_object_object_add(o, "read",
					       io3(s[S_RN], s[S_RT], s[S_RB]));
			json_object_object_add(o, "write",
					       io3(s[S_WN], s[S_WT], s[S_WB]));
			json_object_object_add(o, "metadata",
					       io3(s[S_MN], s[S_MT], 0));
			json_object_object_add(o, "flush",
					       io3(s[S_FLUSH_N], s[S_FLUSH_T],
						   0));
			json_object_object_add(o, "small_reads",
					       dft_jint(s[S_SMALL_R]));
			json_object_object_add(o, "small_writes",
					       dft_jint(s[S_SMALL_W]));
			json_object_object_add(o, "sequential",
				dft_jint(s[S_SEQ_R] + s[S_SEQ_W]));
			json_object_object_add(o, "random",
				dft_jint(s[S_RND_R] + s[S_RND_W]));
			if (v == 0)
				json_object_object_add(o, "processes",
					dft_jint(count_of(&fproc, k)));
			if (v == 1)
				json_object_object_add(o, "files",
					dft_jint(count_of(&pfile, k)));
			if (v == 2) {
				json_object_object_add(o, "processes",
					dft_jint(count_of(&bproc, k)));
				json_object_object_add(o, "files",
					dft_jint(count_of(&bfile, k)));
				json_object_object_add(o, "time_start_s",
						       dft_jdouble(s0));
				json_object_object_add(o, "time_end_s",
						       dft_jdouble(s1));
			}
			double share = frac((double)s[S_T], (double)total);
			double t = s[S_T] / 1e6;

			json_object_object_add(o, "time_per", dft_jdouble(share));
			json_object_object_add(o, "ops_per_s",
					       dft_jdouble(t > 0 ? s[S_N] / t : 0));
			json_object_object_add(o, "bw_mb_s",
				dft_jdouble(t > 0 ? s[S_B] / t / 1e6 : 0));
			json_object_object_add(o, "score",
					       dft_jint(score_frac(share)));
			dft_emit_put(out, o);
		}
		free(ix);
	}
	dft_tmap_release(&fproc);
	dft_tmap_release(&pfile);
	dft_tmap_release(&bproc);
	dft_tmap_release(&bfile);
}

static json_object *
finding_rec(const struct finding *f, size_t i)
{
	json_object *o = json_object_new_object();
	char id[32];

	snprintf(id, sizeof(id), "B%zu", i + 1);
	json_object_object_add(o, "type", dft_jstr("bottleneck"));
	json_object_object_add(o, "v", dft_jint(5));
	json_object_object_add(o, "class", dft_jstr(f->cls));
	json_object_object_add(o, "time_s", dft_jdouble(f->time_s));
	json_object_object_add(o, "io_share", dft_jdouble(f->io_time_share));
	json_object_object_add(o, "wall_share", dft_jdouble(f->wall_share));
	json_object_object_add(o, "saving_s", dft_jdouble(f->saving_s));
	json_object_object_add(o, "saving_share",
			       dft_jdouble(f->saving_share));
	json_object_object_add(o, "saving_model", dft_jstr(f->saving_model));
	json_object_object_add(o, "severity", dft_jstr(f->severity));
	json_object_object_add(o, "facets", f->facets ?
			       json_object_get(f->facets) :
			       json_object_new_array());
	json_object_object_add(o, "insights", f->insights ?
			       json_object_get(f->insights) :
			       json_object_new_array());
	json_object_object_add(o, "files", f->files ?
			       json_object_get(f->files) :
			       json_object_new_array());
	json_object_object_add(o, "files_more", dft_jint(f->files_more));
	if (f->calls != NULL)
		json_object_object_add(o, "calls", json_object_get(f->calls));
	json_object_object_add(o, "id", dft_jstr(id));
	json_object_object_add(o, "rank", dft_jint((int64_t)i + 1));
	json_object_object_add(o, "metric", dft_jstr(f->metric));
	json_object_object_add(o, "layer", dft_jstr(f->layer));
	json_object_object_add(o, "view", dft_jstr(f->view));
	json_object_object_add(o, "scope", dft_jstr(f->scope));
	json_object_object_add(o, "value", dft_jdouble(f->value));
	json_object_object_add(o, "threshold", dft_jdouble(f->threshold));
	json_object_object_add(o, "op", dft_jstr(f->op));
	json_object_object_add(o, "score", dft_jint(f->score));
	json_object_object_add(o, "label", dft_jstr(f->severity ?
						    f->severity :
						    score_label(f->score)));
	json_object_object_add(o, "bottleneck",
			       json_object_new_boolean(f->score >= 4));
	json_object_object_add(o, "component", dft_jstr(f->component));
	json_object_object_add(o, "insight", dft_jstr(f->insight));
	json_object_object_add(o, "source", dft_jstr(f->source));
	json_object_object_add(o, "title", dft_jstr(f->title));
	json_object_object_add(o, "description", dft_jstr(f->description));
	json_object_object_add(o, "recommendation",
			       dft_jstr(f->recommendation));
	json_object_object_add(o, "evidence", json_object_get(f->evidence));
	json_object_object_add(o, "io_time_share", dft_jdouble(f->io_share));
	json_object_object_add(o, "functions",
			       f->functions ? json_object_get(f->functions) :
					      json_object_new_array());
	json_object_object_add(o, "forced", json_object_new_boolean(f->forced));
	return o;
}

void
out_records(FILE *out, struct agg *a, const struct run_info *ri,
	    struct results *res)
{
	dft_emit_put(out, summary(a, ri));
	for (int l = 0; l < L_N; l++)
		if (preset_has(a, ri->preset, l))
			dft_emit_put(out, layer_rec(a, ri->preset, l));
	views(out, a, ri->top);
	for (size_t i = 0; i < res->n; i++)
		dft_emit_put(out, finding_rec(&res->f[i], i));
}

/* ---- table ------------------------------------------------------------------ */

static const char *
human(double b, char *buf, size_t n)
{
	static const char *const u[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	int i = 0;

	while (b >= 1024 && i < 4) {
		b /= 1024;
		i++;
	}
	snprintf(buf, n, i ? "%.1f %s" : "%.0f %s", b, u[i]);
	return buf;
}

/* The code of a finding's facet: the first of its insights whose row of
 * the table has that metric (one metric can belong to two codes, P01 and
 * W02, and one code to two metrics, P16 on POSIX and on MPI-IO). */
static const char *
facet_code(const struct finding *f, const char *metric)
{
	size_t n = f->insights ? json_object_array_length(f->insights) : 0;

	for (size_t i = 0; i < n; i++) {
		const char *c = json_object_get_string(
			json_object_array_get_idx(f->insights, i));

		for (size_t j = 0; j < ninsights; j++)
			if (strcmp(insights[j].code, c) == 0 &&
			    strcmp(insights[j].metric, metric) == 0)
				return c;
	}
	return NULL;
}

static void
table_findings(FILE *out, const struct run_info *ri, struct results *res)
{
	char b1[32];

	fprintf(out, "\nFindings by time at stake (%zu shown of %zu%s)\n",
		res->n, ri->findings_total, ri->all ? ", --all" : "");
	if (res->n == 0)
		fprintf(out, "  none\n");
	for (size_t i = 0; i < res->n; i++) {
		const struct finding *f = &res->f[i];

		fprintf(out, "  %zu. [%s] %s: %s\n", i + 1,
			f->severity ? f->severity : score_label(f->score),
			f->cls ? f->cls : f->insight, f->title);
		fprintf(out, "      %.3f s at stake (%.1f%% of I/O time, %.1f%% "
			"of %s time); est. saving %.3f s (%.1f%%)\n",
			f->time_s, 100 * f->io_time_share,
			100 * f->wall_share,
			ri->processes_io != NULL &&
			json_object_array_length(ri->processes_io) > 1 ?
			"process" : "wall",
			f->saving_s, 100 * f->saving_share);
		fprintf(out, "      %s\n", f->description ? f->description :
			"");
		size_t nfa = f->facets ? json_object_array_length(f->facets) : 0;

		fprintf(out, "      rules:");
		for (size_t k = 0; k < nfa; k++) {
			const char *m = json_object_get_string(
				json_object_array_get_idx(f->facets, k));

			fprintf(out, "%s %s", k ? "," : "", m);
			const char *code = facet_code(f, m);

			if (code != NULL)
				fprintf(out, " (%s)", code);
		}
		fprintf(out, "; %s = %.4g (threshold %s %.4g)\n", f->metric,
			f->value, f->op, f->threshold);
		size_t nfl = f->files ? json_object_array_length(f->files) : 0;

		for (size_t k = 0; k < nfl && k < 3; k++) {
			json_object *x = json_object_array_get_idx(f->files, k);

			fprintf(out, "      %s %s (%.3f s)\n", k ? "     " :
				"files:", dft_json_str(x, "file", "?"),
				dft_json_double(x, "time_s", 0));
		}
		if (nfl > 3 || f->files_more > 0)
			fprintf(out, "             ... and %lld more\n",
				(long long)(nfl > 3 ? nfl - 3 : 0) +
				(long long)f->files_more);
		size_t nc = f->calls ? json_object_array_length(f->calls) : 0;

		if (nc > 0) {
			fprintf(out, "      calls:");
			for (size_t k = 0; k < nc && k < 4; k++) {
				json_object *x = json_object_array_get_idx(
					f->calls, k);

				fprintf(out, "%s %s x%lld (%.3f s)", k ? "," : "",
					dft_json_str(x, "name", "?"),
					(long long)dft_json_int(x, "count", 0),
					dft_json_double(x, "time_s", 0));
			}
			fputc('\n', out);
		}
		size_t nf = f->functions ?
			json_object_array_length(f->functions) : 0;

		for (size_t j = 0; j < nf && j < 3; j++) {
			json_object *fn = json_object_array_get_idx(f->functions,
								    j);
			const char *file = dft_json_str(fn, "file", NULL);
			int64_t line = dft_json_int(fn, "line", -1);

			fprintf(out, "      -> %s (%s) %.1f%%", dft_json_str(fn,
				"qualname", dft_json_str(fn, "name", "?")),
				dft_json_str(fn, "cat", "-"),
				100 * dft_json_double(fn, "share", 0));
			if (file != NULL && line > 0)
				fprintf(out, " at %s:%lld", file,
					(long long)line);
			else if (file != NULL)
				fprintf(out, " in %s", file);
			else if (dft_json_int(fn, "definitions", 0) > 1)
				fprintf(out, " (defined at %lld places; the "
					"trace does not say which ran)",
					(long long)dft_json_int(fn,
						"definitions", 0));
			fputc('\n', out);
		}
		if (f->saving_model)
			fprintf(out, "      saving: %s\n", f->saving_model);
		if (f->score >= 2 && f->recommendation)
			fprintf(out, "      fix: %s\n", f->recommendation);
	}
	(void)b1;
}

void
out_table(FILE *out, struct agg *a, const struct run_info *ri,
	  struct results *res)
{
	const int64_t *g = a->io_raw;	/* as measured */
	char b1[32], b2[32];
	int64_t t0 = a->g[G_TS_MIN], t1 = a->g[G_TS_MAX];

	if (t0 > t1)
		t0 = t1 = 0;
	fprintf(out, "dft-analyze: %zu input(s), preset %s (%s)\n",
		json_object_array_length(ri->inputs), ri->preset,
		ri->preset_reason);
	fprintf(out, "  events %lld (%lld metadata), %zu processes, %zu "
		"threads, %zu hosts, %zu files, span %.3f s\n",
		(long long)a->g[G_EVENTS], (long long)a->g[G_META_EVENTS],
		a->m[M_PROC].count, a->m[M_THREAD].count, a->m[M_HOST].count,
		a->m[M_FILE].count, (t1 - t0) / 1e6);
	if (a->g[G_BAD_LINES] || a->g[G_TRUNCATED])
		fprintf(out, "  bad lines %lld, truncated files %lld\n",
			(long long)a->g[G_BAD_LINES],
			(long long)a->g[G_TRUNCATED]);
	fprintf(out, "\nVerdict: %s\n", ri->verdict_text);
	fprintf(out, "  ends: %s\n", ri->ends_text);
	fprintf(out, "  process time %.3f s (span %.3f s); I/O %.3f s (per "
		"process the union of its I/O intervals, summed)\n",
		ri->proc_wall_s, ri->wall_s, ri->io_wall_s);
	size_t npi = ri->processes_io ?
		json_object_array_length(ri->processes_io) : 0;

	for (size_t i = 0; i < npi; i++) {
		json_object *x = json_object_array_get_idx(ri->processes_io, i);

		const char *how = dft_json_str(x, "end", "");

		fprintf(out, "  %-32s wall %9.3f s  I/O %9.3f s  %5.1f%%%s%s\n",
			dft_json_str(x, "process", "?"),
			dft_json_double(x, "wall_s", 0),
			dft_json_double(x, "io_s", 0),
			100 * dft_json_double(x, "io_wall_share", 0),
			strcmp(how, "signal") == 0 ? "  killed by " :
			strcmp(how, "no-end") == 0 ? "  no end" : "",
			strcmp(how, "signal") == 0 ?
			dft_json_str(x, "signal", "?") : "");
	}
	if (ri->processes_io_more > 0)
		fprintf(out, "  ... and %lld more processes\n",
			(long long)ri->processes_io_more);
	if (ri->sys_n > 0)
		fprintf(out, "  system/runtime files: %lld requests, %.3f s, "
			"%lld files (%.1f%% of I/O time)%s\n",
			(long long)ri->sys_n, ri->sys_t / 1e6,
			(long long)ri->sys_files,
			g[S_T] > 0 ? 100.0 * ri->sys_t / g[S_T] : 0,
			ri->include_system ? "" : ", not ranked "
			"(--include-system)");
	table_findings(out, ri, res);
	fprintf(out, "\nI/O          count     time (s)        bytes\n");
	fprintf(out, "  total %11lld %12.6f %12s\n", (long long)g[S_N],
		g[S_T] / 1e6, human((double)g[S_B], b1, sizeof(b1)));
	fprintf(out, "  read  %11lld %12.6f %12s\n", (long long)g[S_RN],
		g[S_RT] / 1e6, human((double)g[S_RB], b1, sizeof(b1)));
	fprintf(out, "  write %11lld %12.6f %12s\n", (long long)g[S_WN],
		g[S_WT] / 1e6, human((double)g[S_WB], b2, sizeof(b2)));
	fprintf(out, "  meta  %11lld %12.6f\n", (long long)g[S_MN],
		g[S_MT] / 1e6);
	fprintf(out, "  flush %11lld %12.6f\n", (long long)g[S_FLUSH_N],
		g[S_FLUSH_T] / 1e6);
	fprintf(out, "  sync  %11lld %12.6f\n", (long long)g[S_YN],
		g[S_YT] / 1e6);

	fprintf(out, "\nTransfer sizes      reads     writes\n");
	for (int i = 0; i < NBINS; i++)
		if (g[S_HIST_R + i] || g[S_HIST_W + i])
			fprintf(out, "  %-14s %9lld %10lld\n", bin_label[i],
				(long long)g[S_HIST_R + i],
				(long long)g[S_HIST_W + i]);

	fprintf(out, "\nLayers (%s)              count     time (s)  frac "
		"parent\n", ri->preset);
	for (int l = 0; l < L_N; l++) {
		if (!preset_has(a, ri->preset, l))
			continue;
		const struct layer_def *d = &layer_defs[l];
		double t = layer_time(a, l);
		double pt = d->parent >= 0 ? layer_time(a, d->parent) : 0;

		fprintf(out, "  %-22s %9lld %12.6f  %s\n", d->name,
			(long long)a->layer[l][LF_N], t,
			d->parent >= 0 && pt > 0 ?
			(snprintf(b1, sizeof(b1), "%.2f", t / pt), b1) : "-");
	}

	fprintf(out, "\nTop functions by time\n");
	size_t *ix = order(&a->m[M_FUNC], 1);

	for (size_t i = 0; i < a->m[M_FUNC].count && i < 10; i++) {
		const char *k = dft_tmap_key(&a->m[M_FUNC], ix[i], NULL);
		const int64_t *r = dft_tmap_value(&a->m[M_FUNC], ix[i]);
		const char *sep = strchr(k, '\x1f');

		fprintf(out, "  %-32.*s %-10s %9lld %12.6f\n",
			(int)(sep ? sep - k : (long)strlen(k)), k,
			sep ? sep + 1 : "", (long long)r[0], r[1] / 1e6);
	}
	free(ix);

}
