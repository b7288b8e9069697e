/*
 * dft-compare - an honest before/after comparison of two runs.
 *
 * BEFORE and AFTER are record streams of dft-analyze (summary, layer,
 * view, bottleneck records; when a stream holds several analyses the
 * last one counts) or directories of dftracer traces, which it analyzes
 * first by running dft-analyze.  It aligns the two runs by stable keys
 * (I/O class, category and function, layer, file pattern with digits
 * folded, process rank), prints one `delta` record per metric and key,
 * the bottleneck set changes, and one `verdict`: improved, regressed or
 * unchanged within a tolerance, judged on the raw write rate and the
 * observed completion time, the two numbers the optimization loop stops
 * on.  With --fail-on-regression a regressed verdict exits 3.
 *
 * It does not read traces itself, and it does not judge a change it
 * cannot measure: without write events and without a time span the
 * verdict is "unchanged" and says why.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dft.h"

#define EXIT_REGRESSION 3

struct opts {
	double tolerance;	/* percent */
	double threshold;	/* percent: smallest |pct| printed */
	int fail_on_regression;
	const char *label_before, *label_after;
	const char *applied;
	int top;
};

/* One analysed run. */
struct side {
	const char *label;
	json_object *summary;	/* last summary record */
	json_object *layers;	/* array */
	json_object *views;	/* array */
	json_object *bottlenecks;	/* array */
	json_object *metrics;	/* "group\tkey\tmetric" -> double */
	json_object *windows;	/* metric name -> array of per-window values */
	int bad;
};

static const char usage_text[] =
	"usage: dft-compare [--tolerance PCT] [--threshold PCT] "
	"[--fail-on-regression]\n"
	"                   [--before-label NAME] [--after-label NAME] "
	"[--applied IDS]\n"
	"                   [--top N] BEFORE AFTER\n"
	"       dft-compare -h | --help | -V | --version\n";

static void
usage(int code)
{
	fputs(usage_text, code == 0 ? stdout : stderr);
	exit(code);
}

static void
side_init(struct side *s, const char *label)
{
	memset(s, 0, sizeof(*s));
	s->label = label;
	s->layers = json_object_new_array();
	s->views = json_object_new_array();
	s->bottlenecks = json_object_new_array();
	s->metrics = json_object_new_object();
	s->windows = json_object_new_object();
}

static void
side_release(struct side *s)
{
	json_object_put(s->summary);
	json_object_put(s->layers);
	json_object_put(s->views);
	json_object_put(s->bottlenecks);
	json_object_put(s->metrics);
	json_object_put(s->windows);
}

/* ---- reading ------------------------------------------------------------ */

static int
read_stream(struct dft_reader *r, void *ctx)
{
	struct side *s = ctx;
	json_object *rec;
	int rc;

	while ((rc = dft_reader_next(r, &rec)) == 1) {
		const char *t = dft_record_type(rec);

		if (strcmp(t, "summary") == 0) {
			/* a new analysis starts: the last one counts */
			json_object_put(s->summary);
			s->summary = rec;
			json_object_put(s->layers);
			json_object_put(s->views);
			json_object_put(s->bottlenecks);
			s->layers = json_object_new_array();
			s->views = json_object_new_array();
			s->bottlenecks = json_object_new_array();
			continue;
		}
		if (strcmp(t, "layer") == 0)
			json_object_array_add(s->layers, rec);
		else if (strcmp(t, "view") == 0)
			json_object_array_add(s->views, rec);
		else if (strcmp(t, "bottleneck") == 0)
			json_object_array_add(s->bottlenecks, rec);
		else
			json_object_put(rec);
	}
	return rc < 0 ? DFT_EXIT_FATAL : DFT_EXIT_OK;
}

static int
is_trace(const char *name)
{
	return dft_has_suffix(name, ".pfw") || dft_has_suffix(name, ".pfw.gz");
}

static int
strcmp_p(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *
analyzer_path(void)
{
	char *dir = dft_exe_dir();
	char *p = dft_path_join(dir, "dft-analyze");

	free(dir);
	if (access(p, X_OK) == 0)
		return p;
	free(p);
	return dft_xstrdup("dft-analyze");
}

/*
 * A trace directory: runs dft-analyze over its *.pfw and *.pfw.gz files
 * (not recursive) with every view row kept, into a temporary file.
 * Returns the file's path (caller removes and frees) or NULL.
 */
static char *
analyze_dir(const char *dir, const char *tmpdir, int top)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **files = NULL, *out, *exe;
	const char **argv;
	int n = 0, status = 0, fd;
	struct dft_proc_opts po;
	char *errlog;
	char topbuf[24];

	if (d == NULL) {
		dft_warn("cannot open '%s':", dir);
		return NULL;
	}
	while ((e = readdir(d)) != NULL)
		if (is_trace(e->d_name)) {
			files = dft_xreallocarray(files, (size_t)n + 1,
						  sizeof(char *));
			files[n++] = dft_path_join(dir, e->d_name);
		}
	closedir(d);
	if (n == 0) {
		dft_warn("'%s': no *.pfw or *.pfw.gz trace files", dir);
		free(files);
		return NULL;
	}
	qsort(files, (size_t)n, sizeof(char *), strcmp_p);
	out = dft_path_join(tmpdir, "analysis.XXXXXX");
	fd = mkstemp(out);
	if (fd < 0) {
		dft_warn("cannot create a file in '%s':", tmpdir);
		free(out);
		out = NULL;
		goto done;
	}
	close(fd);
	exe = analyzer_path();
	argv = dft_xcalloc((size_t)n + 5, sizeof(char *));
	argv[0] = exe;
	snprintf(topbuf, sizeof(topbuf), "%d", top > 0 ? top : 1000000);
	argv[1] = "--top";
	argv[2] = topbuf;
	for (int i = 0; i < n; i++)
		argv[3 + i] = files[i];
	memset(&po, 0, sizeof(po));
	errlog = dft_xasprintf("%s.err", out);
	/* dft-analyze writes records to stdout; keep its stderr apart */
	{
		const char *sh[] = { "/bin/sh", "-c",
			"out=$1; err=$2; shift 2; exec \"$@\" >\"$out\" "
			"2>\"$err\"", "sh", out, errlog, NULL };
		const char **full = dft_xcalloc((size_t)n + 12,
						sizeof(char *));
		int k = 0;

		for (int i = 0; sh[i] != NULL; i++)
			full[k++] = sh[i];
		for (int i = 0; argv[i] != NULL; i++)
			full[k++] = argv[i];
		if (dft_run(full, &po, &status) != 0) {
			dft_warn("cannot run '%s':", exe);
			status = -1;
		}
		free(full);
	}
	if (status != 0 && status != 1) {
		char *msg = dft_read_file(errlog, NULL);

		dft_warn("dft-analyze failed on '%s' (status %d)%s%s", dir,
			 status, msg != NULL && *msg ? ": " : "",
			 msg != NULL ? msg : "");
		free(msg);
		unlink(out);
		free(out);
		out = NULL;
	} else if (status == 1) {
		dft_warn("dft-analyze reported bad input in '%s'", dir);
	}
	unlink(errlog);
	free(errlog);
	free(argv);
	free(exe);
done:
	for (int i = 0; i < n; i++)
		free(files[i]);
	free(files);
	return out;
}

static int
load_side(struct side *s, const char *operand, const char *tmpdir, int top)
{
	char *path = NULL;
	char *argv[1];
	int st;

	if (strcmp(operand, "-") != 0 && dft_is_dir(operand)) {
		path = analyze_dir(operand, tmpdir, top);
		if (path == NULL)
			return DFT_EXIT_DATA;
		argv[0] = path;
	} else {
		argv[0] = (char *)operand;
	}
	st = dft_each_input(1, argv, read_stream, s);
	if (path != NULL) {
		unlink(path);
		free(path);
	}
	if (st == DFT_EXIT_OK && s->summary == NULL) {
		dft_warn("'%s': no summary record (is it dft-analyze output?)",
			 operand);
		st = DFT_EXIT_DATA;
	}
	return st;
}

/* ---- metrics ------------------------------------------------------------ */

static void
put(struct side *s, const char *group, const char *key, const char *metric,
    double v)
{
	char *k = dft_xasprintf("%s\t%s\t%s", group, key, metric);
	json_object *old;

	if (json_object_object_get_ex(s->metrics, k, &old))
		v += json_object_get_double(old);
	json_object_object_add(s->metrics, k, json_object_new_double(v));
	free(k);
}

static void
put_cts(struct side *s, const char *group, const char *key, json_object *o)
{
	if (o == NULL)
		return;
	put(s, group, key, "count", dft_json_double(o, "count", 0));
	put(s, group, key, "time_s", dft_json_double(o, "time_s", 0));
	put(s, group, key, "bytes", dft_json_double(o, "bytes", 0));
}

static double
rate(json_object *o)
{
	double t = dft_json_double(o, "time_s", 0);

	return t > 0 ? dft_json_double(o, "bytes", 0) / t : 0;
}

/* Digits folded: "/out/ckpt_0012.h5" -> "/out/ckpt_#.h5". */
static char *
fold_digits(const char *s)
{
	struct dft_buf b;

	dft_buf_init(&b);
	for (; *s != '\0'; s++) {
		if (isdigit((unsigned char)*s)) {
			dft_buf_addc(&b, '#');
			while (isdigit((unsigned char)s[1]))
				s++;
		} else {
			dft_buf_addc(&b, *s);
		}
	}
	return dft_buf_detach(&b);
}

struct proc_row {
	const char *host;
	long pid;
	json_object *row;
};

static int
proc_cmp(const void *a, const void *b)
{
	const struct proc_row *x = a, *y = b;
	int c = strcmp(x->host, y->host);

	if (c != 0)
		return c;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static void
add_window(struct side *s, const char *metric, double v)
{
	json_object *a;

	if (!json_object_object_get_ex(s->windows, metric, &a)) {
		a = json_object_new_array();
		json_object_object_add(s->windows, metric, a);
	}
	json_object_array_add(a, json_object_new_double(v));
}

static void
derive(struct side *s)
{
	json_object *io, *arr, *cls;
	static const char *const classes[] = { "read", "write", "metadata",
		"sync", NULL };
	struct proc_row *procs = NULL;
	int np = 0;
	size_t n;

	if (s->summary == NULL)
		return;
	put(s, "run", "all", "completion_time_s",
	    dft_json_double(s->summary, "span_s", 0));
	put(s, "run", "all", "events", dft_json_double(s->summary, "events",
						       0));
	if (json_object_object_get_ex(s->summary, "io", &io)) {
		put_cts(s, "io", "all", io);
		put(s, "io", "all", "bw_b_s", rate(io));
		for (int i = 0; classes[i] != NULL; i++)
			if (json_object_object_get_ex(io, classes[i], &cls)) {
				put_cts(s, "io", classes[i], cls);
				if (i < 2)
					put(s, "io", classes[i], "bw_b_s",
					    rate(cls));
			}
	}
	if (json_object_object_get_ex(s->summary, "functions", &arr)) {
		n = json_object_array_length(arr);
		for (size_t i = 0; i < n; i++) {
			json_object *f = json_object_array_get_idx(arr, i);
			char *k = dft_xasprintf("%s:%s",
				dft_json_str(f, "cat", "?"),
				dft_json_str(f, "name", "?"));

			put_cts(s, "function", k, f);
			free(k);
		}
	}
	n = json_object_array_length(s->layers);
	for (size_t i = 0; i < n; i++) {
		json_object *l = json_object_array_get_idx(s->layers, i);
		const char *name = dft_json_str(l, "layer", "?");

		put_cts(s, "layer", name, l);
		put(s, "layer", name, "bw_mb_s", dft_json_double(l, "bw_mb_s",
								 0));
	}
	n = json_object_array_length(s->views);
	for (size_t i = 0; i < n; i++) {
		json_object *v = json_object_array_get_idx(s->views, i);
		const char *view = dft_json_str(v, "view", "");

		if (strcmp(view, "file") == 0) {
			char *k = fold_digits(dft_json_str(v, "key", "?"));

			put_cts(s, "file", k, v);
			free(k);
		} else if (strcmp(view, "process") == 0) {
			const char *key = dft_json_str(v, "key", "?");
			const char *hash = strrchr(key, '#');

			procs = dft_xreallocarray(procs, (size_t)np + 1,
						  sizeof(*procs));
			procs[np].host = key;
			procs[np].pid = hash != NULL ?
				strtol(hash + 1, NULL, 10) : 0;
			procs[np].row = v;
			np++;
		} else if (strcmp(view, "time") == 0) {
			json_object *w;
			double t = dft_json_double(v, "time_s", 0);

			add_window(s, "count", dft_json_double(v, "count", 0));
			add_window(s, "time_s", t);
			add_window(s, "bytes", dft_json_double(v, "bytes", 0));
			if (t > 0)
				add_window(s, "bw_b_s", rate(v));
			if (json_object_object_get_ex(v, "write", &w) &&
			    dft_json_double(w, "time_s", 0) > 0)
				add_window(s, "write_bw_b_s", rate(w));
		}
	}
	/* processes by rank: host, then pid order (pids differ per run) */
	qsort(procs, (size_t)np, sizeof(*procs), proc_cmp);
	for (int i = 0; i < np; i++) {
		char k[32];

		snprintf(k, sizeof(k), "rank%d", i);
		put_cts(s, "process", k, procs[i].row);
	}
	free(procs);
}

/* ---- statistics --------------------------------------------------------- */

static void
mean_var(json_object *a, int *n, double *mean, double *var)
{
	double s = 0, ss = 0;

	*n = a != NULL ? (int)json_object_array_length(a) : 0;
	for (int i = 0; i < *n; i++)
		s += json_object_get_double(json_object_array_get_idx(a,
							(size_t)i));
	*mean = *n > 0 ? s / *n : 0;
	for (int i = 0; i < *n; i++) {
		double d = json_object_get_double(json_object_array_get_idx(a,
							(size_t)i)) - *mean;
		ss += d * d;
	}
	*var = *n > 0 ? ss / *n : 0;	/* population variance */
}

/*
 * Cohen's d of the per-window values: (mean_after - mean_before) /
 * sqrt((var_before + var_after) / 2); 0 when a side has fewer than two
 * windows or the pooled deviation is under 1e-15.
 */
static double
cohens_d(json_object *b, json_object *a, int *nb, int *na)
{
	double mb, vb, ma, va, pooled;

	mean_var(b, nb, &mb, &vb);
	mean_var(a, na, &ma, &va);
	if (*nb < 2 || *na < 2)
		return 0;
	pooled = sqrt((vb + va) / 2);
	if (pooled < 1e-15)
		return 0;
	return (ma - mb) / pooled;
}

static const char *
significance(double d)
{
	double a = fabs(d);

	return a > 0.8 ? "LARGE" : a > 0.5 ? "MEDIUM" : a > 0.2 ? "SMALL" :
	       "NEGLIGIBLE";
}

static double
pct_change(double before, double after)
{
	if (before == 0)
		return after != 0 ? 100 : 0;
	return (after - before) / fabs(before) * 100;
}

/* bandwidth falls = worse; count, time and size grow = worse */
static int
higher_is_better(const char *metric)
{
	return dft_has_prefix(metric, "bw") || strstr(metric, "_bw") != NULL;
}

static int
is_judged(const char *metric)
{
	return strcmp(metric, "count") == 0 || strcmp(metric, "time_s") == 0 ||
	       strcmp(metric, "bytes") == 0 ||
	       strcmp(metric, "completion_time_s") == 0 ||
	       higher_is_better(metric);
}

/* ---- output ------------------------------------------------------------- */

static int
emit_delta(struct side *b, struct side *a, const char *k,
	   const struct opts *o, int *regressions)
{
	char *grp = dft_xstrdup(k), *key, *metric;
	json_object *vb, *va, *rec;
	double before = 0, after = 0, delta, pct;
	int has_b, has_a, regression;

	key = strchr(grp, '\t');
	*key++ = '\0';
	metric = strchr(key, '\t');
	*metric++ = '\0';
	has_b = json_object_object_get_ex(b->metrics, k, &vb);
	has_a = json_object_object_get_ex(a->metrics, k, &va);
	if (has_b)
		before = json_object_get_double(vb);
	if (has_a)
		after = json_object_get_double(va);
	delta = after - before;
	pct = pct_change(before, after);
	if ((before == 0 && after == 0) || fabs(pct) < o->threshold) {
		free(grp);
		return 0;
	}
	regression = is_judged(metric) &&
		     (higher_is_better(metric) ? delta < 0 : delta > 0);
	if (regression && fabs(pct) > o->tolerance)
		(*regressions)++;
	rec = json_object_new_object();
	json_object_object_add(rec, "type", dft_jstr("delta"));
	json_object_object_add(rec, "v", dft_jint(1));
	json_object_object_add(rec, "group", dft_jstr(grp));
	json_object_object_add(rec, "key", dft_jstr(key));
	json_object_object_add(rec, "metric", dft_jstr(metric));
	json_object_object_add(rec, "before", has_b ? dft_jdouble(before) :
			       NULL);
	json_object_object_add(rec, "after", has_a ? dft_jdouble(after) :
			       NULL);
	json_object_object_add(rec, "delta", dft_jdouble(delta));
	json_object_object_add(rec, "pct", dft_jdouble(pct));
	json_object_object_add(rec, "regression",
			       json_object_new_boolean(regression));
	if (strcmp(grp, "io") == 0 && (strcmp(key, "all") == 0 ||
	    (strcmp(key, "write") == 0 && strcmp(metric, "bw_b_s") == 0))) {
		json_object *wb = NULL, *wa = NULL;
		const char *wm = strcmp(key, "write") == 0 ? "write_bw_b_s" :
				 metric;
		int nb, na;
		double d;

		json_object_object_get_ex(b->windows, wm, &wb);
		json_object_object_get_ex(a->windows, wm, &wa);
		d = cohens_d(wb, wa, &nb, &na);
		if (nb >= 2 && na >= 2) {
			json_object_object_add(rec, "cohens_d", dft_jdouble(d));
			json_object_object_add(rec, "significance",
					       dft_jstr(significance(d)));
		} else {
			json_object_object_add(rec, "cohens_d", NULL);
			json_object_object_add(rec, "significance", NULL);
		}
		json_object_object_add(rec, "windows_before", dft_jint(nb));
		json_object_object_add(rec, "windows_after", dft_jint(na));
	}
	dft_emit_put(stdout, rec);
	free(grp);
	return 1;
}

static char *
bottleneck_key(json_object *bn)
{
	char *scope = fold_digits(dft_json_str(bn, "scope", ""));
	char *k = dft_xasprintf("%s:%s:%s", dft_json_str(bn, "metric", "?"),
				dft_json_str(bn, "view", "?"), scope);

	free(scope);
	return k;
}

/* The highest score per bottleneck key. */
static json_object *
bottleneck_map(struct side *s)
{
	json_object *m = json_object_new_object();
	size_t n = json_object_array_length(s->bottlenecks);

	for (size_t i = 0; i < n; i++) {
		json_object *bn = json_object_array_get_idx(s->bottlenecks, i);
		char *k = bottleneck_key(bn);
		json_object *old;

		if (!json_object_object_get_ex(m, k, &old) ||
		    dft_json_int(old, "score", 0) < dft_json_int(bn, "score",
								  0))
			json_object_object_add(m, k, json_object_get(bn));
		free(k);
	}
	return m;
}

static void
bottleneck_delta(const char *key, json_object *before, json_object *after,
		 const char *change, json_object *lists)
{
	json_object *rec = json_object_new_object(), *l;

	json_object_object_add(rec, "type", dft_jstr("delta"));
	json_object_object_add(rec, "v", dft_jint(1));
	json_object_object_add(rec, "group", dft_jstr("bottleneck"));
	json_object_object_add(rec, "key", dft_jstr(key));
	json_object_object_add(rec, "metric", dft_jstr("score"));
	json_object_object_add(rec, "before", before ?
		dft_jint(dft_json_int(before, "score", 0)) : NULL);
	json_object_object_add(rec, "after", after ?
		dft_jint(dft_json_int(after, "score", 0)) : NULL);
	json_object_object_add(rec, "before_label", dft_jstr(before ?
		dft_json_str(before, "label", NULL) : NULL));
	json_object_object_add(rec, "after_label", dft_jstr(after ?
		dft_json_str(after, "label", NULL) : NULL));
	json_object_object_add(rec, "change", dft_jstr(change));
	json_object_object_add(rec, "regression",
			       json_object_new_boolean(
				       strcmp(change, "new") == 0 ||
				       strcmp(change, "regressed") == 0));
	dft_emit_put(stdout, rec);
	json_object_object_get_ex(lists, change, &l);
	json_object_array_add(l, dft_jstr(key));
}

/*
 * Bottleneck sets (score 4 or more is a bottleneck): resolved, new,
 * persisting (same score), improved and regressed (score changed while
 * it stayed a bottleneck).
 */
static json_object *
compare_bottlenecks(struct side *b, struct side *a)
{
	static const char *const names[] = { "resolved", "new", "persisting",
		"improved", "regressed", NULL };
	json_object *mb = bottleneck_map(b), *ma = bottleneck_map(a);
	json_object *lists = json_object_new_object();

	for (int i = 0; names[i] != NULL; i++)
		json_object_object_add(lists, names[i],
				       json_object_new_array());
	json_object_object_foreach(mb, kb, vb) {
		json_object *va = NULL;
		int sb = (int)dft_json_int(vb, "score", 0), sa;

		json_object_object_get_ex(ma, kb, &va);
		sa = va != NULL ? (int)dft_json_int(va, "score", 0) : 0;
		if (sb < 4)
			continue;
		if (sa < 4)
			bottleneck_delta(kb, vb, va, "resolved", lists);
		else if (sa < sb)
			bottleneck_delta(kb, vb, va, "improved", lists);
		else if (sa > sb)
			bottleneck_delta(kb, vb, va, "regressed", lists);
		else
			bottleneck_delta(kb, vb, va, "persisting", lists);
	}
	json_object_object_foreach(ma, ka, va2) {
		json_object *vb2 = NULL;

		json_object_object_get_ex(mb, ka, &vb2);
		if (dft_json_int(va2, "score", 0) >= 4 &&
		    (vb2 == NULL || dft_json_int(vb2, "score", 0) < 4))
			bottleneck_delta(ka, vb2, va2, "new", lists);
	}
	json_object_put(mb);
	json_object_put(ma);
	return lists;
}

static double
metric_of(struct side *s, const char *k, int *has)
{
	json_object *v;

	*has = json_object_object_get_ex(s->metrics, k, &v);
	return *has ? json_object_get_double(v) : 0;
}

static json_object *
pair_json(double before, double after, int has, const char *unit)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "before", has ? dft_jdouble(before) : NULL);
	json_object_object_add(o, "after", has ? dft_jdouble(after) : NULL);
	json_object_object_add(o, "pct", has && before != 0 ?
			       dft_jdouble(pct_change(before, after)) : NULL);
	json_object_object_add(o, "unit", dft_jstr(unit));
	return o;
}

static int
emit_verdict(struct side *b, struct side *a, const struct opts *o,
	     json_object *lists, int regressions)
{
	int hb, ha, hcb, hca;
	double wb = metric_of(b, "io\twrite\tbw_b_s", &hb);
	double wa = metric_of(a, "io\twrite\tbw_b_s", &ha);
	double cb = metric_of(b, "run\tall\tcompletion_time_s", &hcb);
	double ca = metric_of(a, "run\tall\tcompletion_time_s", &hca);
	int rate_ok = hb && ha && wb > 0 && wa > 0;
	int time_ok = hcb && hca && cb > 0 && ca > 0;
	double tol = o->tolerance;
	const char *verdict = "unchanged";
	struct dft_buf why;
	json_object *rec, *l, *ap;
	int regressed = 0, improved = 0;
	char line[256];

	dft_buf_init(&why);
	if (rate_ok) {
		double p = pct_change(wb, wa);

		if (p < -tol) {
			regressed = 1;
			dft_buf_addf(&why, "raw write rate %.1f %% lower; ", -p);
		} else if (p > tol) {
			improved = 1;
			dft_buf_addf(&why, "raw write rate %.1f %% higher; ", p);
		} else {
			dft_buf_addf(&why, "raw write rate within %g %%; ",
				     tol);
		}
	} else {
		dft_buf_adds(&why, "no write rate in both runs; ");
	}
	if (time_ok) {
		double p = pct_change(cb, ca);

		if (p > tol) {
			regressed = 1;
			dft_buf_addf(&why, "completion time %.1f %% longer",
				     p);
		} else if (p < -tol) {
			improved = 1;
			dft_buf_addf(&why, "completion time %.1f %% shorter",
				     -p);
		} else {
			dft_buf_addf(&why, "completion time within %g %%", tol);
		}
	} else {
		dft_buf_adds(&why, "no completion time in both runs");
	}
	if (regressed)
		verdict = "regressed";
	else if (improved)
		verdict = "improved";

	rec = json_object_new_object();
	json_object_object_add(rec, "type", dft_jstr("verdict"));
	json_object_object_add(rec, "v", dft_jint(1));
	json_object_object_add(rec, "before", dft_jstr(b->label));
	json_object_object_add(rec, "after", dft_jstr(a->label));
	json_object_object_add(rec, "verdict", dft_jstr(verdict));
	json_object_object_add(rec, "tolerance_pct", dft_jdouble(tol));
	json_object_object_add(rec, "raw_write_rate",
			       pair_json(wb, wa, hb && ha, "B/s"));
	json_object_object_add(rec, "completion_time",
			       pair_json(cb, ca, hcb && hca, "s"));
	json_object_object_add(rec, "reason", dft_jstr(why.s));
	json_object_object_add(rec, "bottlenecks", json_object_get(lists));
	json_object_object_add(rec, "metric_regressions",
			       dft_jint(regressions));
	ap = json_object_new_array();
	if (o->applied != NULL) {
		char *s = dft_xstrdup(o->applied), *p = s, *c;

		while (p != NULL && *p != '\0') {
			c = strchr(p, ',');
			if (c != NULL)
				*c++ = '\0';
			if (*p != '\0')
				json_object_array_add(ap, dft_jstr(p));
			p = c;
		}
		free(s);
	}
	json_object_object_add(rec, "applied", ap);
	json_object_object_get_ex(lists, "resolved", &l);
	{
		json_object *nw;
		int nres = (int)json_object_array_length(l), nnew;

		json_object_object_get_ex(lists, "new", &nw);
		nnew = (int)json_object_array_length(nw);
		if (rate_ok)
			snprintf(line, sizeof(line), "resolved=%d bottlenecks, "
				 "new=%d, raw_rate %.3g\xe2\x86\x92%.3g GB/s "
				 "(comparator: %s)", nres, nnew, wb / 1e9,
				 wa / 1e9, verdict);
		else
			snprintf(line, sizeof(line), "resolved=%d bottlenecks, "
				 "new=%d, raw_rate n/a (comparator: %s)", nres,
				 nnew, verdict);
	}
	json_object_object_add(rec, "line", dft_jstr(line));
	dft_emit_put(stdout, rec);
	dft_buf_release(&why);
	return regressed;
}

enum {
	O_TOL = 256, O_THRESH, O_FAIL, O_LB, O_LA, O_APPLIED, O_TOP,
};

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "tolerance", required_argument, NULL, O_TOL },
		{ "threshold", required_argument, NULL, O_THRESH },
		{ "fail-on-regression", no_argument, NULL, O_FAIL },
		{ "before-label", required_argument, NULL, O_LB },
		{ "after-label", required_argument, NULL, O_LA },
		{ "applied", required_argument, NULL, O_APPLIED },
		{ "top", required_argument, NULL, O_TOP },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct opts o;
	struct side b, a;
	struct dft_step step;
	json_object *lists, *keys;
	char *tmpdir;
	const char *td;
	int c, status, regressions = 0, regressed;
	long v;

	dft_init("dft-compare");
	memset(&o, 0, sizeof(o));
	o.tolerance = 5;
	while ((c = getopt_long(argc, argv, "hV", longopts, NULL)) != -1) {
		switch (c) {
		case O_TOL:
			if (dft_parse_double(optarg, &o.tolerance) != 0 ||
			    o.tolerance < 0)
				dft_usage_error(usage_text, "--tolerance: not a "
						"percentage: '%s'", optarg);
			break;
		case O_THRESH:
			if (dft_parse_double(optarg, &o.threshold) != 0 ||
			    o.threshold < 0)
				dft_usage_error(usage_text, "--threshold: not a "
						"percentage: '%s'", optarg);
			break;
		case O_FAIL: o.fail_on_regression = 1; break;
		case O_LB: o.label_before = optarg; break;
		case O_LA: o.label_after = optarg; break;
		case O_APPLIED: o.applied = optarg; break;
		case O_TOP:
			if (dft_parse_long(optarg, 0, 1000000, &v) != 0)
				dft_usage_error(usage_text, "--top: expected a "
						"count, got '%s'", optarg);
			o.top = (int)v;
			break;
		case 'h': usage(0); break;
		case 'V': dft_print_version(); return 0;
		default: usage(DFT_EXIT_FATAL);
		}
	}
	if (argc - optind != 2)
		dft_usage_error(usage_text, "expected two operands, BEFORE and "
				"AFTER, got %d", argc - optind);
	if (strcmp(argv[optind], "-") == 0 && strcmp(argv[optind + 1], "-") == 0)
		dft_usage_error(usage_text, "only one of BEFORE and AFTER can "
				"be standard input");

	dft_step_begin(&step, "compare");
	td = getenv("TMPDIR");
	tmpdir = dft_xstrdup(td != NULL && *td != '\0' ? td : "/tmp");
	side_init(&b, o.label_before ? o.label_before : argv[optind]);
	side_init(&a, o.label_after ? o.label_after : argv[optind + 1]);
	status = load_side(&b, argv[optind], tmpdir, o.top);
	status = dft_worst(status, load_side(&a, argv[optind + 1], tmpdir,
					     o.top));
	if (b.summary == NULL || a.summary == NULL) {
		dft_emit_put(stdout, dft_step_end(&step, "failed"));
		status = dft_worst(DFT_EXIT_DATA, dft_close_stdout());
		goto out;
	}
	derive(&b);
	derive(&a);
	/* keys in the before run's order, then keys only the after run has */
	keys = json_object_new_object();
	{
		json_object_object_foreach(b.metrics, kb, vb) {
			(void)vb;
			json_object_object_add(keys, kb, NULL);
		}
	}
	{
		json_object_object_foreach(a.metrics, ka, va) {
			(void)va;
			if (!json_object_object_get_ex(keys, ka, NULL))
				json_object_object_add(keys, ka, NULL);
		}
	}
	{
		json_object_object_foreach(keys, k, unused) {
			(void)unused;
			emit_delta(&b, &a, k, &o, &regressions);
		}
	}
	json_object_put(keys);
	lists = compare_bottlenecks(&b, &a);
	regressed = emit_verdict(&b, &a, &o, lists, regressions);
	json_object_put(lists);
	dft_emit_put(stdout, dft_step_end(&step, status == 0 ? "ok" :
					  "partial"));
	status = dft_worst(status, dft_close_stdout());
	if (status == DFT_EXIT_OK && regressed && o.fail_on_regression)
		status = EXIT_REGRESSION;
out:
	side_release(&b);
	side_release(&a);
	free(tmpdir);
	return status;
}
