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
 * Repeated runs: `samples` records (dft-pipeline's timed untraced runs)
 * or several analyses on a side make that side a sample.  With samples on
 * both sides a change is judged on the medians and only counts when it is
 * beyond the tolerance and significant by an exact two-sided Mann-Whitney
 * U test (a permutation test of the rank sum, ties given mid-ranks); else
 * it is "unchanged (within noise)".
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
#include "options.h"

#define EXIT_REGRESSION 3

struct opts {
	double tolerance;	/* percent */
	double threshold;	/* percent: smallest |pct| printed */
	int fail_on_regression;
	const char *label_before, *label_after;
	const char *applied;
	int top;
	double alpha;		/* significance level of the test */
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
	/* repeated runs: wall times and write rates of the samples records'
	 * runs (exit 0 only), and per analysis its span and write rate */
	json_object *run_wall, *run_wrate, *run_rrate;
	json_object *an_span, *an_wrate;
	int nsamples, failed_runs;
	int bad;
};

static const char usage_text[] =
	"usage: dft-compare [--tolerance PCT] [--threshold PCT] "
	"[--alpha P] [--fail-on-regression]\n"
	"                   [--before-label NAME] [--after-label NAME] "
	"[--applied IDS]\n"
	"                   [--top N] BEFORE AFTER\n"
	"       dft-compare --iteration N --run RUN --status STATUS "
	"[--kind KIND]\n"
	"                   [--change TEXT] [--reason TEXT] "
	"[--previous ANALYSIS]\n"
	"                   [--actions DIR] [--papers FILE] "
	"[--samples FILE]\n"
	"                   [--compared FILE] ANALYSIS\n"
	"       dft-compare --loop --stop-reason REASON [--iterations N] "
	"[--best N]\n"
	"                   [--repeat N] [--not-applicable FILE] "
	"[ITERATIONS]\n"
	"       dft-compare -h | --help | -V | --version\n";

static const char help_text[] =
	"\n"
	"Compares two runs (dft-analyze records, samples records, or a trace\n"
	"directory each) and prints one delta record per metric and key and\n"
	"per bottleneck, then a verdict record.\n"
	"\n"
	"      --tolerance PCT       a change within PCT % is no change "
	"(default 5)\n"
	"      --threshold PCT       print only deltas of at least PCT % "
	"(default 0)\n"
	"      --alpha P             significance level of the test "
	"(default 0.05)\n"
	"      --fail-on-regression  exit 3 when the verdict is regressed\n"
	"      --before-label NAME   name of BEFORE in the verdict\n"
	"      --after-label NAME    name of AFTER in the verdict\n"
	"      --applied IDS         comma-separated ids of the proposals "
	"applied\n"
	"      --top N               view rows per view of a trace directory\n"
	"\n"
	"The optimization loop's records (see dft(7) and dft-compare(1)):\n"
	"      --iteration N         print iteration N's record from its "
	"ANALYSIS\n"
	"      --run, --status, --kind, --change, --reason TEXT   its fields\n"
	"      --previous ANALYSIS   the accepted one before (new, resolved)\n"
	"      --actions DIR         DIR/applied.ndjson, "
	"DIR/not_applicable.ndjson\n"
	"      --papers FILE         the L1 proposals listed\n"
	"      --samples FILE        its timed runs' samples record\n"
	"      --compared FILE       dft-compare's output for it "
	"(test, verdict)\n"
	"      --loop                print the loop record\n"
	"      --iterations N, --best N, --repeat N, --stop-reason REASON,\n"
	"      --not-applicable FILE its fields\n"
	"  -h, --help                show this help\n"
	"  -V, --version             show the version\n";

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
	s->run_wall = json_object_new_array();
	s->run_wrate = json_object_new_array();
	s->run_rrate = json_object_new_array();
	s->an_span = json_object_new_array();
	s->an_wrate = json_object_new_array();
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
	json_object_put(s->run_wall);
	json_object_put(s->run_wrate);
	json_object_put(s->run_rrate);
	json_object_put(s->an_span);
	json_object_put(s->an_wrate);
}

/* A samples record: its runs that exited 0 join the side's sample. */
static void
add_samples(struct side *s, json_object *rec)
{
	json_object *runs;
	size_t n;

	s->nsamples++;
	if (!json_object_object_get_ex(rec, "runs", &runs) ||
	    !json_object_is_type(runs, json_type_array))
		return;
	n = json_object_array_length(runs);
	for (size_t i = 0; i < n; i++) {
		json_object *r = json_object_array_get_idx(runs, i), *v;
		double w = dft_json_double(r, "wall_s", -1);

		if (dft_json_int(r, "rc", 0) != 0 || w <= 0) {
			s->failed_runs++;
			continue;
		}
		json_object_array_add(s->run_wall, json_object_new_double(w));
		if (json_object_object_get_ex(r, "write_bytes", &v) &&
		    v != NULL)
			json_object_array_add(s->run_wrate,
				json_object_new_double(
					json_object_get_double(v) / w));
		if (json_object_object_get_ex(r, "read_bytes", &v) &&
		    v != NULL)
			json_object_array_add(s->run_rrate,
				json_object_new_double(
					json_object_get_double(v) / w));
	}
}

/* An analysis' completion time and raw write rate, for repeated analyses. */
static void
add_analysis(struct side *s, json_object *summary)
{
	json_object *io, *w;
	double span = dft_json_double(summary, "span_s", 0);

	if (span > 0)
		json_object_array_add(s->an_span,
				      json_object_new_double(span));
	if (json_object_object_get_ex(summary, "io", &io) &&
	    json_object_object_get_ex(io, "write", &w) &&
	    dft_json_double(w, "time_s", 0) > 0)
		json_object_array_add(s->an_wrate, json_object_new_double(
			dft_json_double(w, "bytes", 0) /
			dft_json_double(w, "time_s", 0)));
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

		if (strcmp(t, "samples") == 0) {
			add_samples(s, rec);
			json_object_put(rec);
			continue;
		}
		if (strcmp(t, "summary") == 0) {
			/* a new analysis starts: the last one counts for the
			 * deltas; each one joins the repeated-analysis sample */
			add_analysis(s, rec);
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
	if (st == DFT_EXIT_OK && s->summary == NULL && s->nsamples == 0) {
		dft_warn("'%s': no summary or samples record (is it dft-analyze "
			 "or dft-pipeline output?)", operand);
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

/* ---- repeated runs: medians and the Mann-Whitney U test ---------------- */

#define MW_EXACT_MAX 20		/* n + m up to which the test is exact */

static int
dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The values of a JSON array of numbers, sorted; *n their count. */
static double *
sorted_values(json_object *a, int *n)
{
	double *v;

	*n = a != NULL ? (int)json_object_array_length(a) : 0;
	v = dft_xcalloc((size_t)*n + 1, sizeof(double));
	for (int i = 0; i < *n; i++)
		v[i] = json_object_get_double(json_object_array_get_idx(a,
							(size_t)i));
	qsort(v, (size_t)*n, sizeof(double), dbl_cmp);
	return v;
}

static double
median_of(const double *v, int n)
{
	if (n == 0)
		return 0;
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* (max - min) / median * 100 of a sorted sample */
static double
spread_of(const double *v, int n)
{
	double m = median_of(v, n);

	return n > 0 && m != 0 ? (v[n - 1] - v[0]) / fabs(m) * 100 : 0;
}

struct pooled {
	double v;
	int first;		/* from the first sample */
};

static int
pooled_cmp(const void *a, const void *b)
{
	return dbl_cmp(&((const struct pooled *)a)->v,
		       &((const struct pooled *)b)->v);
}

/* Subsets of size k of r[from..N-1] whose rank sum, added to sum, is at
 * least as far from e as dev: counted into *hits. */
static void
mw_enumerate(const double *r, int N, int from, int k, double sum, double e,
	     double dev, double *hits)
{
	if (k == 0) {
		if (fabs(sum - e) >= dev - 1e-9)
			*hits += 1;
		return;
	}
	for (int i = from; i <= N - k; i++)
		mw_enumerate(r, N, i + 1, k - 1, sum + r[i], e, dev, hits);
}

/*
 * Two-sided Mann-Whitney U test of samples x (n) and y (m): the p value
 * of a rank sum of x at least as far from its mean n (N + 1) / 2 as the
 * observed one.  Ties get mid-ranks.  Exact (every one of the C(N, n)
 * ways to split the pooled ranks) for N = n + m <= MW_EXACT_MAX, else the
 * normal approximation with the tie correction and a continuity
 * correction.  *u is U of x, *exact 1 when exact.
 */
static double
mann_whitney(const double *x, int n, const double *y, int m, double *u,
	     int *exact)
{
	int N = n + m;
	struct pooled *all = dft_xcalloc((size_t)N, sizeof(*all));
	double *rank = dft_xcalloc((size_t)N, sizeof(double));
	double w = 0, e, dev, ties = 0, p;

	for (int i = 0; i < n; i++)
		all[i] = (struct pooled){ x[i], 1 };
	for (int i = 0; i < m; i++)
		all[n + i] = (struct pooled){ y[i], 0 };
	qsort(all, (size_t)N, sizeof(*all), pooled_cmp);
	for (int i = 0; i < N;) {
		int j = i;

		while (j + 1 < N && all[j + 1].v == all[i].v)
			j++;
		for (int k = i; k <= j; k++)
			rank[k] = (i + j) / 2.0 + 1;
		ties += (double)(j - i + 1) * (j - i + 1) * (j - i + 1) -
			(j - i + 1);
		i = j + 1;
	}
	for (int i = 0; i < N; i++)
		if (all[i].first)
			w += rank[i];
	*u = w - n * (n + 1) / 2.0;
	e = n * (N + 1) / 2.0;
	dev = fabs(w - e);
	if (N <= MW_EXACT_MAX) {
		double hits = 0, total = 1;

		for (int i = 0; i < n; i++)
			total = total * (N - i) / (i + 1);
		mw_enumerate(rank, N, 0, n, 0, e, dev, &hits);
		p = hits / total;
		*exact = 1;
	} else {
		double var = (double)n * m / 12.0 *
			     ((N + 1) - ties / ((double)N * (N - 1)));
		double z = var > 0 ? (dev - 0.5) / sqrt(var) : 0;

		p = z > 0 ? erfc(z / sqrt(2)) : 1;
		*exact = 0;
	}
	free(all);
	free(rank);
	return p > 1 ? 1 : p;
}

/* One number judged on two samples. */
struct judged {
	int ok;			/* both sides have it */
	int nb, na;
	double before, after;	/* medians (the values, for single runs) */
	double spread_b, spread_a;
	double pct;
	int tested;		/* a test was run (two or more per side) */
	double p, u;
	int exact;
	int significant;
};

static void
judge(json_object *b, json_object *a, double alpha, struct judged *j)
{
	double *vb, *va;

	memset(j, 0, sizeof(*j));
	vb = sorted_values(b, &j->nb);
	va = sorted_values(a, &j->na);
	if (j->nb > 0 && j->na > 0) {
		j->ok = 1;
		j->before = median_of(vb, j->nb);
		j->after = median_of(va, j->na);
		j->spread_b = spread_of(vb, j->nb);
		j->spread_a = spread_of(va, j->na);
		j->pct = j->before != 0 ? (j->after - j->before) /
			 fabs(j->before) * 100 : 0;
		if (j->nb >= 2 && j->na >= 2) {
			j->tested = 1;
			j->p = mann_whitney(vb, j->nb, va, j->na, &j->u,
					    &j->exact);
			j->significant = j->p < alpha;
		}
	}
	free(vb);
	free(va);
}

static json_object *
judged_json(const struct judged *j, const char *unit)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "before", j->ok ? dft_jdouble(j->before) :
			       NULL);
	json_object_object_add(o, "after", j->ok ? dft_jdouble(j->after) :
			       NULL);
	json_object_object_add(o, "pct", j->ok && j->before != 0 ?
			       dft_jdouble(j->pct) : NULL);
	json_object_object_add(o, "unit", dft_jstr(unit));
	json_object_object_add(o, "n_before", dft_jint(j->nb));
	json_object_object_add(o, "n_after", dft_jint(j->na));
	json_object_object_add(o, "spread_before_pct", j->ok ?
			       dft_jdouble(j->spread_b) : NULL);
	json_object_object_add(o, "spread_after_pct", j->ok ?
			       dft_jdouble(j->spread_a) : NULL);
	json_object_object_add(o, "p", j->tested ? dft_jdouble(j->p) : NULL);
	json_object_object_add(o, "u", j->tested ? dft_jdouble(j->u) : NULL);
	json_object_object_add(o, "significant", j->tested ?
			       json_object_new_boolean(j->significant) : NULL);
	return o;
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

/*
 * One judged number into the reason ("raw write rate 16.7 % lower",
 * "completion time 3.0 % shorter (medians of 5 and 5, p = 0.0079)");
 * sets *better or *worse, or *noisy for a change beyond the tolerance the
 * test does not support.
 */
static void
weigh(const char *what, const struct judged *j, int lower_is_better,
      double tol, struct dft_buf *why, int *better, int *worse,
      int *noisy)
{
	double gain = lower_is_better ? -j->pct : j->pct;
	const char *up = lower_is_better ? "longer" : "higher";
	const char *down = lower_is_better ? "shorter" : "lower";

	if (!j->ok) {
		dft_buf_addf(why, "no %s in both runs; ", what);
		return;
	}
	if (fabs(j->pct) <= tol)
		dft_buf_addf(why, "%s within %g %%", what, tol);
	else
		dft_buf_addf(why, "%s %.1f %% %s", what, fabs(j->pct),
			     j->pct > 0 ? up : down);
	if (j->tested)
		dft_buf_addf(why, " (medians of %d and %d runs, p = %.2g%s)",
			     j->nb, j->na, j->p, fabs(j->pct) > tol &&
			     !j->significant ? ": not significant" : "");
	dft_buf_adds(why, "; ");
	if (fabs(j->pct) <= tol)
		return;
	if (j->tested && !j->significant) {
		*noisy = 1;
		return;
	}
	if (gain > 0)
		*better = 1;
	else
		*worse = 1;
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
	double tol = o->tolerance, noise = 0;
	const char *verdict = "unchanged", *basis;
	struct dft_buf why, text;
	struct judged jt, jw, jr;
	json_object *rec, *l, *ap, *test;
	int regressed = 0, improved = 0, noisy = 0, runs;
	char line[512];

	runs = json_object_array_length(b->run_wall) > 0 &&
	       json_object_array_length(a->run_wall) > 0;
	memset(&jr, 0, sizeof(jr));
	if (runs) {
		/* timed untraced runs: judged on the completion time;
		 * the rates are bytes per wall second, reported */
		basis = "untraced runs";
		judge(b->run_wall, a->run_wall, o->alpha, &jt);
		judge(b->run_wrate, a->run_wrate, o->alpha, &jw);
		judge(b->run_rrate, a->run_rrate, o->alpha, &jr);
	} else if (json_object_array_length(b->an_span) >= 2 &&
		   json_object_array_length(a->an_span) >= 2) {
		basis = "analyses";
		judge(b->an_span, a->an_span, o->alpha, &jt);
		judge(b->an_wrate, a->an_wrate, o->alpha, &jw);
	} else {
		/* one run a side: the tolerance alone, no test */
		json_object *t1 = json_object_new_array();
		json_object *t2 = json_object_new_array();
		json_object *w1 = json_object_new_array();
		json_object *w2 = json_object_new_array();

		basis = "single run";
		if (hcb && cb > 0)
			json_object_array_add(t1, json_object_new_double(cb));
		if (hca && ca > 0)
			json_object_array_add(t2, json_object_new_double(ca));
		if (hb && wb > 0)
			json_object_array_add(w1, json_object_new_double(wb));
		if (ha && wa > 0)
			json_object_array_add(w2, json_object_new_double(wa));
		judge(t1, t2, o->alpha, &jt);
		judge(w1, w2, o->alpha, &jw);
		json_object_put(t1);
		json_object_put(t2);
		json_object_put(w1);
		json_object_put(w2);
	}
	dft_buf_init(&why);
	dft_buf_init(&text);
	if (!runs)
		weigh("raw write rate", &jw, 0, tol, &why, &improved,
		      &regressed, &noisy);
	weigh("completion time", &jt, 1, tol, &why, &improved, &regressed,
	      &noisy);
	if (why.len >= 2 && why.s[why.len - 2] == ';')
		why.s[why.len -= 2] = '\0';
	if (regressed)
		verdict = "regressed";
	else if (improved)
		verdict = "improved";
	if (jt.ok)
		noise = fmax(jt.spread_b, jt.spread_a) / 2;
	if (!runs && jw.ok)
		noise = fmax(noise, fmax(jw.spread_b, jw.spread_a) / 2);
	if (strcmp(verdict, "unchanged") == 0)
		dft_buf_addf(&text, "unchanged (within noise \xc2\xb1%.1f %%)",
			     fmax(noise, noisy ? fabs(jt.pct) : 0));
	else if (jt.tested)
		dft_buf_addf(&text, "%s (completion time %+.1f %%, p = %.2g)",
			     verdict, jt.pct, jt.p);
	else
		dft_buf_adds(&text, verdict);

	rec = json_object_new_object();
	json_object_object_add(rec, "type", dft_jstr("verdict"));
	json_object_object_add(rec, "v", dft_jint(2));
	json_object_object_add(rec, "before", dft_jstr(b->label));
	json_object_object_add(rec, "after", dft_jstr(a->label));
	json_object_object_add(rec, "verdict", dft_jstr(verdict));
	json_object_object_add(rec, "verdict_text", dft_jstr(text.s));
	json_object_object_add(rec, "tolerance_pct", dft_jdouble(tol));
	json_object_object_add(rec, "basis", dft_jstr(basis));
	test = json_object_new_object();
	json_object_object_add(test, "name", dft_jstr(jt.tested ?
		(jt.exact ? "Mann-Whitney U, exact, two-sided" :
		 "Mann-Whitney U, normal approximation, two-sided") : NULL));
	json_object_object_add(test, "alpha", dft_jdouble(o->alpha));
	json_object_object_add(test, "p", jt.tested ? dft_jdouble(jt.p) :
			       NULL);
	json_object_object_add(test, "significant", jt.tested ?
			       json_object_new_boolean(jt.significant) : NULL);
	json_object_object_add(rec, "test", test);
	json_object_object_add(rec, "noise_pct", dft_jdouble(noise));
	if (runs) {
		json_object_object_add(rec, "raw_write_rate",
				       pair_json(wb, wa, hb && ha, "B/s"));
		json_object_object_add(rec, "completion_time",
				       judged_json(&jt, "s"));
		json_object_object_add(rec, "write_rate",
				       judged_json(&jw, "B/s"));
		json_object_object_add(rec, "read_rate",
				       judged_json(&jr, "B/s"));
		json_object_object_add(rec, "failed_runs",
				       dft_jint(b->failed_runs +
						a->failed_runs));
	} else {
		json_object_object_add(rec, "raw_write_rate",
				       judged_json(&jw, "B/s"));
		json_object_object_add(rec, "completion_time",
				       judged_json(&jt, "s"));
	}
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
		char pb[40] = "";

		if (jt.tested)
			snprintf(pb, sizeof(pb), ", p = %.2g", jt.p);
		if (runs && jt.ok)
			snprintf(line, sizeof(line), "resolved=%d bottlenecks, "
				 "new=%d, completion %.4g s \xc2\xb1%.1f %% "
				 "\xe2\x86\x92 %.4g s \xc2\xb1%.1f %% (%+.1f %%"
				 "%s): %s", nres, nnew, jt.before,
				 jt.spread_b / 2, jt.after, jt.spread_a / 2,
				 jt.pct, pb, text.s);
		else if (jw.ok)
			snprintf(line, sizeof(line), "resolved=%d bottlenecks, "
				 "new=%d, raw_rate %.3g\xe2\x86\x92%.3g GB/s "
				 "(comparator: %s)", nres, nnew, jw.before / 1e9,
				 jw.after / 1e9, verdict);
		else
			snprintf(line, sizeof(line), "resolved=%d bottlenecks, "
				 "new=%d, raw_rate n/a (comparator: %s)", nres,
				 nnew, verdict);
	}
	json_object_object_add(rec, "line", dft_jstr(line));
	dft_emit_put(stdout, rec);
	dft_buf_release(&why);
	dft_buf_release(&text);
	return regressed;
}

/* ---- the optimization loop's records (--iteration, --loop) ------------- */

/* What --iteration and --loop are told; see dft-compare(1). */
struct loop_opts {
	long iteration, iterations, best, repeat;
	const char *run, *status, *kind, *change, *reason;
	const char *previous, *actions, *papers, *samples, *compared;
	const char *stop_reason, *not_applicable;
};

static int
collect(struct dft_reader *r, void *ctx)
{
	json_object *rec;
	int rc;

	while ((rc = dft_reader_next(r, &rec)) == 1)
		json_object_array_add(ctx, rec);
	return rc < 0 ? DFT_EXIT_FATAL : DFT_EXIT_OK;
}

/* The records of an optional input in an array: a file that does not
 * exist holds none; bad lines make *status 1. */
static json_object *
read_all(const char *path, int *status)
{
	json_object *a = json_object_new_array();
	char *argv[1];

	if (path == NULL || (!dft_exists(path) && errno == ENOENT))
		return a;
	argv[0] = (char *)path;
	*status = dft_worst(*status, dft_each_input(1, argv, collect, a));
	return a;
}

/* The first record of type T in the array a, borrowed, or NULL. */
static json_object *
first_of(json_object *a, const char *t)
{
	size_t n = json_object_array_length(a);

	for (size_t i = 0; i < n; i++) {
		json_object *r = json_object_array_get_idx(a, i);

		if (strcmp(dft_record_type(r), t) == 0)
			return r;
	}
	return NULL;
}

/* A copy of o's member key (JSON null when absent). */
static json_object *
member(json_object *o, const char *key)
{
	json_object *v = NULL;

	if (o != NULL)
		v = dft_json_path(o, key);
	return v != NULL ? json_object_get(v) : NULL;
}

static int
str_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* One active bottleneck of an analysis: "metric:view" and the application
 * functions responsible (share >= 10 %, at most two per record). */
struct active {
	char *key;
	char **fns;
	size_t nfns;
};

static int
active_cmp(const void *a, const void *b)
{
	return strcmp(((const struct active *)a)->key,
		      ((const struct active *)b)->key);
}

/* The active bottlenecks of the records in a (score 4 or more, or marked
 * a bottleneck), one per key in key order, functions merged and sorted. */
static struct active *
active_bottlenecks(json_object *a, size_t *count)
{
	struct active *v = NULL;
	size_t n = 0, len = json_object_array_length(a), k = 0;

	for (size_t i = 0; i < len; i++) {
		json_object *r = json_object_array_get_idx(a, i), *fns, *sc;
		struct dft_buf key;
		struct active *x;
		int taken = 0;

		if (strcmp(dft_record_type(r), "bottleneck") != 0)
			continue;
		if (!dft_json_bool(r, "bottleneck", 0) &&
		    !(json_object_object_get_ex(r, "score", &sc) &&
		      (json_object_is_type(sc, json_type_int) ||
		       json_object_is_type(sc, json_type_double)) &&
		      json_object_get_double(sc) >= 4))
			continue;
		dft_buf_init(&key);
		dft_buf_addf(&key, "%s:%s", dft_json_str(r, "metric", "null"),
			     dft_json_str(r, "view", "app"));
		for (x = v; x < v + n; x++)
			if (strcmp(x->key, key.s) == 0)
				break;
		if (x == v + n) {
			v = dft_xrealloc(v, (n + 1) * sizeof(*v));
			x = &v[n++];
			x->key = dft_buf_detach(&key);
			x->fns = NULL;
			x->nfns = 0;
		}
		dft_buf_release(&key);
		if (!json_object_object_get_ex(r, "functions", &fns) ||
		    !json_object_is_type(fns, json_type_array))
			continue;
		for (size_t j = 0; j < json_object_array_length(fns) &&
		     taken < 2; j++) {
			json_object *f = json_object_array_get_idx(fns, j);
			const char *name = dft_json_str(f, "name", NULL);
			size_t m;

			if (name == NULL || name[0] == '(' ||
			    dft_json_double(f, "share", 0) < 0.1)
				continue;
			taken++;
			for (m = 0; m < x->nfns; m++)
				if (strcmp(x->fns[m], name) == 0)
					break;
			if (m < x->nfns)
				continue;
			x->fns = dft_xrealloc(x->fns,
					      (x->nfns + 1) * sizeof(char *));
			x->fns[x->nfns++] = dft_xstrdup(name);
		}
	}
	qsort(v, n, sizeof(*v), active_cmp);
	for (k = 0; k < n; k++)
		qsort(v[k].fns, v[k].nfns, sizeof(char *), str_cmp);
	*count = n;
	return v;
}

static void
actives_release(struct active *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < v[i].nfns; j++)
			free(v[i].fns[j]);
		free(v[i].fns);
		free(v[i].key);
	}
	free(v);
}

/* "metric:view (f, g)" */
static json_object *
active_show(const struct active *x)
{
	struct dft_buf b;
	json_object *s;

	dft_buf_init(&b);
	dft_buf_adds(&b, x->key);
	for (size_t j = 0; j < x->nfns; j++)
		dft_buf_addf(&b, "%s%s", j == 0 ? " (" : ", ", x->fns[j]);
	if (x->nfns > 0)
		dft_buf_addc(&b, ')');
	s = dft_jstr(b.s);
	dft_buf_release(&b);
	return s;
}

/* The shows of the entries of v whose key is not in w (w NULL: all). */
static json_object *
shows_not_in(const struct active *v, size_t n, const struct active *w,
	     size_t m)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; i < n; i++) {
		int found = 0;

		for (size_t j = 0; w != NULL && j < m && !found; j++)
			found = strcmp(v[i].key, w[j].key) == 0;
		if (!found)
			json_object_array_add(a, active_show(&v[i]));
	}
	return a;
}

static json_object *
opt_str(const char *s)
{
	return s != NULL && *s != '\0' ? dft_jstr(s) : NULL;
}

/* The iteration record of dft(7) for configuration lo->iteration. */
static int
emit_iteration(const struct loop_opts *lo, const char *analysis)
{
	int status = DFT_EXIT_OK;
	json_object *an = read_all(analysis, &status);
	json_object *prev = lo->previous != NULL ?
		read_all(lo->previous, &status) : json_object_get(an);
	json_object *pp = read_all(lo->papers, &status);
	json_object *smp_in = read_all(lo->samples, &status);
	json_object *cmp_in = read_all(lo->compared, &status);
	json_object *applied = json_object_new_array(), *na, *l1, *rec, *v;
	json_object *summary = first_of(an, "summary"), *w = NULL;
	json_object *smp = NULL, *test = NULL, *s, *vd;
	struct active *bn, *old;
	size_t nbn, nold;
	double rate = 0, comp = 0;

	if (lo->actions != NULL) {
		char *p = dft_path_join(lo->actions, "applied.ndjson");
		char *q = dft_path_join(lo->actions, "not_applicable.ndjson");

		json_object_put(applied);
		applied = read_all(p, &status);
		na = read_all(q, &status);
		free(p);
		free(q);
	} else {
		na = json_object_new_array();
	}
	l1 = json_object_new_array();
	for (size_t i = 0; i < json_object_array_length(pp); i++) {
		json_object *r = json_object_array_get_idx(pp, i);

		if (strcmp(dft_record_type(r), "proposal") == 0 &&
		    strcmp(dft_json_str(r, "level", ""), "L1") == 0)
			json_object_array_add(l1, member(r, "id"));
	}
	bn = active_bottlenecks(an, &nbn);
	old = active_bottlenecks(prev, &nold);
	if (summary != NULL) {
		double t;

		w = dft_json_path(summary, "io.write");
		t = dft_json_double(w, "time_s", 0);
		if (t > 0)
			rate = dft_json_double(w, "bytes", 0) / t / 1e9;
		comp = dft_json_double(summary, "span_s", 0);
	}
	if ((s = first_of(smp_in, "samples")) != NULL) {
		json_object *runs = dft_json_path(s, "runs");

		smp = json_object_new_object();
		json_object_object_add(smp, "median_s", member(s, "median_s"));
		json_object_object_add(smp, "min_s", member(s, "min_s"));
		json_object_object_add(smp, "max_s", member(s, "max_s"));
		json_object_object_add(smp, "spread_pct",
				       member(s, "spread_pct"));
		json_object_object_add(smp, "runs", dft_jint(
			json_object_is_type(runs, json_type_array) ?
			(int64_t)json_object_array_length(runs) : 0));
		json_object_object_add(smp, "failed", member(s, "failed"));
		json_object_object_add(smp, "read_b_s",
				       member(s, "read_b_s.median"));
		json_object_object_add(smp, "write_b_s",
				       member(s, "write_b_s.median"));
	}
	if ((vd = first_of(cmp_in, "verdict")) != NULL) {
		test = json_object_new_object();
		json_object_object_add(test, "name", member(vd, "test.name"));
		json_object_object_add(test, "p", member(vd, "test.p"));
		json_object_object_add(test, "significant",
				       member(vd, "test.significant"));
		json_object_object_add(test, "alpha", member(vd, "test.alpha"));
		json_object_object_add(test, "pct",
				       member(vd, "completion_time.pct"));
		json_object_object_add(test, "before_s",
				       member(vd, "completion_time.before"));
		json_object_object_add(test, "noise_pct",
				       member(vd, "noise_pct"));
		json_object_object_add(test, "text", member(vd, "verdict_text"));
	}
	rec = json_object_new_object();
	json_object_object_add(rec, "type", dft_jstr("iteration"));
	json_object_object_add(rec, "v", dft_jint(2));
	json_object_object_add(rec, "iteration", dft_jint(lo->iteration));
	json_object_object_add(rec, "run", dft_jstr(lo->run));
	json_object_object_add(rec, "kind", opt_str(lo->kind));
	json_object_object_add(rec, "change", opt_str(lo->change));
	json_object_object_add(rec, "applied", applied);
	json_object_object_add(rec, "not_applicable", na);
	json_object_object_add(rec, "listed_l1", l1);
	json_object_object_add(rec, "bottlenecks",
			       shows_not_in(bn, nbn, NULL, 0));
	json_object_object_add(rec, "new", shows_not_in(bn, nbn, old, nold));
	json_object_object_add(rec, "resolved",
			       shows_not_in(old, nold, bn, nbn));
	json_object_object_add(rec, "raw_write_rate_gbs", dft_jnumber(rate));
	v = summary != NULL ? dft_json_path(summary, "span_s") : NULL;
	json_object_object_add(rec, "traced_completion_s",
			       v != NULL ? json_object_get(v) : dft_jnumber(comp));
	json_object_object_add(rec, "completion_s", smp != NULL ?
			       member(smp, "median_s") :
			       (v != NULL ? json_object_get(v) : dft_jnumber(comp)));
	json_object_object_add(rec, "samples", smp);
	json_object_object_add(rec, "test", test);
	v = vd != NULL ? dft_json_path(vd, "verdict") : NULL;
	if (v == NULL && vd != NULL)
		v = dft_json_path(vd, "overall");
	json_object_object_add(rec, "verdict", v != NULL ? json_object_get(v) : NULL);
	json_object_object_add(rec, "status", dft_jstr(lo->status));
	json_object_object_add(rec, "reason", opt_str(lo->reason));
	dft_jq_numbers(rec);
	dft_emit_put(stdout, rec);
	actives_release(bn, nbn);
	actives_release(old, nold);
	json_object_put(an);
	json_object_put(prev);
	json_object_put(pp);
	json_object_put(smp_in);
	json_object_put(cmp_in);
	return dft_worst(status, dft_close_stdout());
}

/* The loop record of dft(7): the changes accepted up to the best
 * iteration, in order, from the iteration records. */
static int
emit_loop(const struct loop_opts *lo, const char *iterations)
{
	int status = DFT_EXIT_OK;
	json_object *its = read_all(iterations, &status);
	json_object *na = read_all(lo->not_applicable, &status);
	json_object *rec, *recommended = json_object_new_array();

	for (size_t i = 0; lo->best > 0 && i < json_object_array_length(its);
	     i++) {
		json_object *r = json_object_array_get_idx(its, i), *ch, *ap;

		if (strcmp(dft_record_type(r), "iteration") != 0 ||
		    dft_json_int(r, "iteration", 0) > lo->best ||
		    strcmp(dft_json_str(r, "status", ""), "accepted") != 0)
			continue;
		ch = dft_json_path(r, "change");
		if (ch != NULL && !json_object_is_type(ch, json_type_null)) {
			json_object_array_add(recommended, json_object_get(ch));
			continue;
		}
		/* no change text: each applied action's change, or its id */
		ap = dft_json_path(r, "applied");
		for (size_t j = 0; json_object_is_type(ap, json_type_array) &&
		     j < json_object_array_length(ap); j++) {
			json_object *a = json_object_array_get_idx(ap, j);

			ch = dft_json_path(a, "change");
			if (ch == NULL || json_object_is_type(ch, json_type_null))
				ch = dft_json_path(a, "id");
			json_object_array_add(recommended, ch != NULL ?
					      json_object_get(ch) : NULL);
		}
	}
	rec = json_object_new_object();
	json_object_object_add(rec, "type", dft_jstr("loop"));
	json_object_object_add(rec, "v", dft_jint(2));
	json_object_object_add(rec, "iterations", dft_jint(lo->iterations));
	json_object_object_add(rec, "stop_reason", dft_jstr(lo->stop_reason));
	json_object_object_add(rec, "best_iteration", dft_jint(lo->best));
	json_object_object_add(rec, "recommended", recommended);
	json_object_object_add(rec, "not_applicable", na);
	json_object_object_add(rec, "repeat", dft_jint(lo->repeat));
	dft_jq_numbers(rec);
	dft_emit_put(stdout, rec);
	json_object_put(its);
	return dft_worst(status, dft_close_stdout());
}

enum {
	O_TOL = 256, O_THRESH, O_FAIL, O_LB, O_LA, O_APPLIED, O_TOP, O_ALPHA,
	/* --iteration */
	O_ITER, O_RUN, O_STATUS, O_KIND, O_CHANGE, O_REASON, O_PREV,
	O_ACTIONS, O_PAPERS, O_SAMPLES, O_COMPARED,
	/* --loop */
	O_LOOP, O_ITERS, O_STOP, O_BEST, O_REPEAT, O_NA,
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
		{ "alpha", required_argument, NULL, O_ALPHA },
		{ "iteration", required_argument, NULL, O_ITER },
		{ "run", required_argument, NULL, O_RUN },
		{ "status", required_argument, NULL, O_STATUS },
		{ "kind", required_argument, NULL, O_KIND },
		{ "change", required_argument, NULL, O_CHANGE },
		{ "reason", required_argument, NULL, O_REASON },
		{ "previous", required_argument, NULL, O_PREV },
		{ "actions", required_argument, NULL, O_ACTIONS },
		{ "papers", required_argument, NULL, O_PAPERS },
		{ "samples", required_argument, NULL, O_SAMPLES },
		{ "compared", required_argument, NULL, O_COMPARED },
		{ "loop", no_argument, NULL, O_LOOP },
		{ "iterations", required_argument, NULL, O_ITERS },
		{ "stop-reason", required_argument, NULL, O_STOP },
		{ "best", required_argument, NULL, O_BEST },
		{ "repeat", required_argument, NULL, O_REPEAT },
		{ "not-applicable", required_argument, NULL, O_NA },
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
	struct loop_opts lo;
	int mode = 0;		/* O_ITER, O_LOOP or 0: the comparison */
	int mode_opt = 0;	/* an option of one mode, for a message */
	int mode_of_opt = 0;

	dft_init("dft-compare");
	memset(&o, 0, sizeof(o));
	memset(&lo, 0, sizeof(lo));
	o.tolerance = 5;
	o.alpha = 0.05;
	while ((c = dft_getopt(argc, argv, "hV", longopts)) != -1) {
		switch (c) {
		case O_TOL:
			o.tolerance = dft_opt_double(usage_text, "--tolerance",
						     optarg, 0, 1e6);
			break;
		case O_THRESH:
			o.threshold = dft_opt_double(usage_text, "--threshold",
						     optarg, 0, 1e6);
			break;
		case O_ALPHA:
			if (dft_parse_double(optarg, &o.alpha) != 0 ||
			    o.alpha <= 0 || o.alpha >= 1)
				dft_bad_value(usage_text, "--alpha", optarg,
					      "a probability in (0, 1)");
			break;
		case O_FAIL: o.fail_on_regression = 1; break;
		case O_LB: o.label_before = optarg; break;
		case O_LA: o.label_after = optarg; break;
		case O_APPLIED: o.applied = optarg; break;
		case O_TOP:
			o.top = (int)dft_opt_long(usage_text, "--top", optarg, 0,
						  1000000);
			break;
		case O_ITER:
			lo.iteration = dft_opt_long(usage_text, "--iteration",
						    optarg, 0, 1000000);
			mode = mode == O_LOOP ? -1 : O_ITER;
			break;
		case O_LOOP: mode = mode == O_ITER ? -1 : O_LOOP; break;
		case O_RUN: lo.run = optarg; goto iter_opt;
		case O_STATUS: lo.status = optarg; goto iter_opt;
		case O_KIND: lo.kind = optarg; goto iter_opt;
		case O_CHANGE: lo.change = optarg; goto iter_opt;
		case O_REASON: lo.reason = optarg; goto iter_opt;
		case O_PREV: lo.previous = optarg; goto iter_opt;
		case O_ACTIONS: lo.actions = optarg; goto iter_opt;
		case O_PAPERS: lo.papers = optarg; goto iter_opt;
		case O_SAMPLES: lo.samples = optarg; goto iter_opt;
		case O_COMPARED: lo.compared = optarg; goto iter_opt;
		iter_opt:
			mode_opt = c;
			mode_of_opt = O_ITER;
			break;
		case O_ITERS:
			lo.iterations = dft_opt_long(usage_text, "--iterations",
						     optarg, 0, 1000000);
			goto loop_opt;
		case O_BEST:
			lo.best = dft_opt_long(usage_text, "--best", optarg, 0,
					       1000000);
			goto loop_opt;
		case O_REPEAT:
			lo.repeat = dft_opt_long(usage_text, "--repeat", optarg,
						 0, 1000000);
			goto loop_opt;
		case O_STOP: lo.stop_reason = optarg; goto loop_opt;
		case O_NA: lo.not_applicable = optarg; goto loop_opt;
		loop_opt:
			mode_opt = c;
			mode_of_opt = O_LOOP;
			break;
		case 'h': return dft_help(usage_text, help_text);
		case 'V': return dft_version();
		default: dft_option_error(usage_text, c, argv, longopts);
		}
	}
	if (mode == -1)
		dft_usage_error(usage_text, "--iteration and --loop exclude "
				"each other");
	if (mode_of_opt != 0 && mode != mode_of_opt) {
		const struct option *lp = longopts;

		while (lp->val != mode_opt)
			lp++;
		dft_usage_error(usage_text, "--%s goes with %s", lp->name,
				mode_of_opt == O_ITER ? "--iteration" :
				"--loop");
	}
	if (mode == O_ITER) {
		if (lo.run == NULL || lo.status == NULL)
			dft_usage_error(usage_text, "--iteration needs --run "
					"and --status");
		if (argc - optind != 1)
			dft_usage_error(usage_text, "--iteration: expected one "
					"operand, ANALYSIS, got %d",
					argc - optind);
		return emit_iteration(&lo, argv[optind]);
	}
	if (mode == O_LOOP) {
		if (lo.stop_reason == NULL)
			dft_usage_error(usage_text, "--loop needs "
					"--stop-reason");
		if (argc - optind > 1)
			dft_usage_error(usage_text, "--loop: expected at most "
					"one operand, ITERATIONS, got %d",
					argc - optind);
		return emit_loop(&lo, argc - optind == 1 ? argv[optind] :
				 NULL);
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
	if ((b.summary == NULL && b.nsamples == 0) ||
	    (a.summary == NULL && a.nsamples == 0)) {
		dft_emit_put(stdout, dft_step_end(&step, "failed"));
		status = dft_worst(DFT_EXIT_DATA, dft_close_stdout());
		goto out;
	}
	/* metric deltas need an analysis on both sides */
	if (b.summary == NULL || a.summary == NULL) {
		json_object_put(b.summary);
		json_object_put(a.summary);
		b.summary = a.summary = NULL;
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
