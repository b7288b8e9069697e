/*
 * dft-analyze - read dftracer traces and say what is slow and which code
 * causes it.
 *
 * Input: trace files (.pfw, .pfw.gz, any generation) as operands, or on
 * standard input a trace stream, `chunk` records of dft-split naming trace
 * files, plain lines naming trace files, or `partial` records of earlier
 * --partial runs. Other records pass through unchanged, first.
 * Output: one `summary`, the preset's `layer` records, `view` rows and the
 * `bottleneck` findings (man dft(7)); or with --partial one `partial`
 * record; or with --format table a report for a terminal. Then a `step`.
 *
 * Files are read in parallel (-j), each in one streaming pass; the chunks
 * dft-split cut from one trace are read in order as one stream (on one
 * thread), so their numbers are those of the whole trace. Memory is
 * bounded by distinct keys (functions, files, processes, time bins).
 * It does not read index sidecars (.zindex, .idx) or sort events.
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze.h"
#include "options.h"

static const char usage_text[] =
	"usage: dft-analyze [-j jobs] [-p posix|dlio] [-c file] [-t top]\n"
	"                   [-f json|table] [--all] [--include-system]\n"
	"                   [--functions file] [--partial | --merge]\n"
	"                   [--shard K/N] [trace ...]\n"
	"       dft-analyze --thresholds [-c file]\n";

struct opts {
	int jobs;
	const char *preset;
	const char *config;
	int top;
	int table;
	int partial;
	int merge;
	int thresholds;
	long shard_k, shard_n;	/* --shard K/N; 0/0 without */
	int all;
	int include_system;
	const char *functions;
};

struct input {
	char *path;
	int status;
	int opened;
	int64_t lines;
	long nrec;		/* JSON record lines among them */
	char series[24];	/* a chunk: its series and part, else part 0 */
	long part;
	char *source;
	struct dft_buf recs;	/* records found in the file, one per line */
	char *err;		/* cannot open: message */
	struct dft_trace rep;	/* copy kept for the report */
};

struct inputs {
	struct input *v;
	size_t n, cap;
};

/* The inputs [from, ...) as streams: the chunks of one trace in order. */
struct pool {
	struct inputs *in;
	size_t from;
	struct dft_trace_stream *st;
	size_t nst;
	atomic_size_t next;
};

/* One stream being read: which of its files is the current one. */
struct sread {
	struct inputs *in;
	size_t from;
	const struct dft_trace_stream *st;
	size_t cur;
};

static const char help_text[] =
	"\n"
	"  -j, --jobs N        files read in parallel (default: cores)\n"
	"  -p, --preset NAME   posix or dlio (default: from the categories)\n"
	"  -c, --config FILE   thresholds, 'name = value' lines\n"
	"  -t, --top N         rows per view (default 10)\n"
	"  -f, --format FMT    json (records, default) or table\n"
	"      --partial       print one mergeable partial record\n"
	"      --merge         inputs are partial records to combine\n"
	"      --shard K/N     read only the K-th of every N traces (chunks "
	"of one\n"
	"                      trace count as one)\n"
	"      --all           print every finding (default: the first "
	"findings_shown)\n"
	"      --include-system  rank I/O on system and runtime files too\n"
	"      --functions FILE  function records (dft-funcs) giving "
	"file:line\n"
	"      --thresholds    print the thresholds in force\n"
	"  -h, --help          this help\n"
	"  -V, --version       print the version\n";

static void
inputs_add(struct inputs *in, const char *path)
{
	if (in->n == in->cap) {
		in->cap = in->cap ? 2 * in->cap : 16;
		in->v = dft_xreallocarray(in->v, in->cap, sizeof(*in->v));
	}
	struct input *x = &in->v[in->n++];

	memset(x, 0, sizeof(*x));
	x->path = dft_xstrdup(path);
	dft_buf_init(&x->recs);
}

static struct input *
sread_input(const struct sread *r, size_t j)
{
	return &r->in->v[r->from + r->st->idx[j]];
}

static void
keep_rec(const char *line, size_t len, long lineno, void *ctx)
{
	struct input *x = sread_input(ctx, ((struct sread *)ctx)->cur);

	(void)lineno;
	if (len > 0 && line[0] == '{')
		x->nrec++;
	dft_buf_add(&x->recs, line, len);
	dft_buf_addc(&x->recs, '\n');
}

/* A chunk whose successor in the stream is the next part ends at its
 * "]": the names appended after it are defined again where they occur. */
static void
set_skip_late(struct dft_trace *t, const struct sread *r, size_t j)
{
	t->skip_late = j + 1 < r->st->n && r->st->part[j] > 0 &&
		       r->st->part[j + 1] == r->st->part[j] + 1;
}

/* Opens file j of the stream: with t NULL as a new trace into *fresh,
 * else by chaining t. 0, or -1 with the input's error set. */
static int
sread_open(struct sread *r, size_t j, struct dft_trace *t,
	   struct dft_trace *fresh)
{
	struct input *x = sread_input(r, j);
	int rc = t != NULL ? dft_trace_chain(t, x->path) :
		 dft_trace_open(fresh, x->path);

	if (rc < 0) {
		x->err = dft_xasprintf("cannot open '%s': %s", x->path,
				       strerror(errno));
		x->status = DFT_EXIT_DATA;
		return -1;
	}
	x->opened = 1;
	r->cur = j;
	set_skip_late(t != NULL ? t : fresh, r, j);
	return 0;
}

/* The end of the current file: keep its numbers, go on with the next. */
static int
sread_next(struct dft_trace *t, int status, void *ctx)
{
	struct sread *r = ctx;
	struct input *x = sread_input(r, r->cur);

	x->status = status;
	x->lines = t->lines - x->nrec;
	if (t->chunk_part > 0) {
		memcpy(x->series, t->chunk_series, sizeof(x->series));
		x->part = t->chunk_part;
		x->source = dft_xstrdup(t->chunk_source ? t->chunk_source : "");
	}
	x->rep = *t;		/* statistics only */
	x->rep.name = x->path;
	for (size_t j = r->cur + 1; j < r->st->n; j++)
		if (sread_open(r, j, t, NULL) == 0)
			return 1;
	return 0;
}

static void
run_stream(struct inputs *in, size_t from, const struct dft_trace_stream *st,
	   struct agg *a)
{
	struct dft_trace t;
	struct sread r = { in, from, st, 0 };
	size_t j = 0;

	while (j < st->n && sread_open(&r, j, NULL, &t) < 0)
		j++;
	if (j == st->n)
		return;
	agg_trace(a, &t, keep_rec, &r, sread_next, &r);
	dft_trace_close(&t);
}

struct wctx {
	struct pool *p;
	struct agg *a;
};

static void *
work(void *arg)
{
	struct wctx *w = arg;

	for (;;) {
		size_t i = atomic_fetch_add(&w->p->next, 1);

		if (i >= w->p->nst)
			break;
		run_stream(w->p->in, w->p->from, &w->p->st[i], w->a);
	}
	return NULL;
}

/* Keeps the streams of shard k of n (1-based); *seq numbers the streams
 * of every round. */
static void
shard_streams(struct pool *p, long k, long n, size_t *seq)
{
	size_t w = 0;

	for (size_t i = 0; i < p->nst; i++) {
		if (n == 0 || (long)((*seq)++ % (size_t)n) == k - 1)
			p->st[w++] = p->st[i];
		else
			dft_trace_streams_free(p->st + i, 1, 0);
	}
	p->nst = w;
}

/* Reads inputs [from, n) with up to jobs threads into a: the chunks of one
 * trace as one stream, streams in parallel; with a shard, only its
 * streams. */
static void
run_pool(struct inputs *in, size_t from, int jobs, struct agg *a,
	 const struct opts *o, size_t *seq)
{
	size_t todo = in->n - from;

	if (todo == 0)
		return;
	char **paths = dft_xcalloc(todo, sizeof(*paths));

	for (size_t i = 0; i < todo; i++)
		paths[i] = in->v[from + i].path;

	struct pool p = { in, from, NULL, 0, 0 };

	p.nst = dft_trace_streams(paths, todo, &p.st);
	free(paths);
	shard_streams(&p, o->shard_k, o->shard_n, seq);
	if ((size_t)jobs > p.nst)
		jobs = (int)p.nst;
	if (jobs <= 1) {
		for (size_t i = 0; i < p.nst; i++)
			run_stream(in, from, &p.st[i], a);
		dft_trace_streams_free(p.st, p.nst, 1);
		return;
	}
	struct wctx *w = dft_xcalloc((size_t)jobs, sizeof(*w));
	pthread_t *th = dft_xcalloc((size_t)jobs, sizeof(*th));
	struct agg *aggs = dft_xcalloc((size_t)jobs, sizeof(*aggs));

	atomic_init(&p.next, 0);
	for (int i = 0; i < jobs; i++) {
		agg_init(&aggs[i]);
		w[i].p = &p;
		w[i].a = &aggs[i];
		if (pthread_create(&th[i], NULL, work, &w[i]) != 0)
			dft_die("cannot start a thread:");
	}
	for (int i = 0; i < jobs; i++) {
		pthread_join(th[i], NULL);
		agg_merge(a, &aggs[i]);
		agg_release(&aggs[i]);
	}
	free(aggs);
	free(th);
	free(w);
	dft_trace_streams_free(p.st, p.nst, 1);
}

/*
 * Keeps a function record's location under its qualified name and its
 * name. A name defined at more than one place (a main per program of the
 * repository, overloads, static functions of one name) has no location
 * by name: the trace's own file and line args give it. Returns 1 for a
 * function record.
 */
static int
add_function(struct dft_tmap *funcs, json_object *o)
{
	const char *file = dft_json_str(o, "file", NULL);
	const char *qn = dft_json_str(o, "qualified_name", NULL);
	const char *nm = dft_json_str(o, "name", NULL);
	int64_t line = dft_function_line(o);

	if (strcmp(dft_record_type(o), "function") != 0)
		return 0;
	const char *keys[2] = { qn, nm };

	for (int i = 0; i < 2; i++) {
		int is_new;

		if (keys[i] == NULL || *keys[i] == '\0' ||
		    (i == 1 && keys[0] != NULL && strcmp(keys[0], keys[1]) == 0))
			continue;
		struct fnloc *l = dft_tmap_get(funcs, keys[i], strlen(keys[i]),
					       1, &is_new);

		if (!is_new) {
			if ((file != NULL) != (l->file != NULL) ||
			    (file != NULL && strcmp(file, l->file) != 0) ||
			    line != l->line)
				l->defs++;
			if (strcmp(qn ? qn : keys[i], l->qualname) != 0)
				l->quals = 1;
			continue;
		}
		l->file = file ? dft_xstrdup(file) : NULL;
		l->qualname = dft_xstrdup(qn ? qn : keys[i]);
		l->line = line;
	}
	return 1;
}

static int
load_functions(struct dft_tmap *funcs, const char *path)
{
	struct dft_reader r;
	json_object *o;
	int k;

	if (dft_reader_open(&r, path) < 0) {
		dft_warn("cannot open '%s':", path);
		return DFT_EXIT_FATAL;
	}
	while ((k = dft_reader_next(&r, &o)) == 1) {
		add_function(funcs, o);
		json_object_put(o);
	}
	int st = k < 0 || r.bad > 0 ? DFT_EXIT_DATA : DFT_EXIT_OK;

	dft_reader_release(&r);
	return st;
}

/* A record line found in the input: chunk, partial, or pass-through. */
struct recctx {
	struct inputs *in;
	struct agg *a;
	json_object *inputs;
	int status;
	int merged;
	const char *name;
	long json_recs;		/* record lines seen (counted as lines) */
	/* the chunk series read here and in the partials merged: id ->
	 * {source, parts, owner (0 here, k for the k-th partial), split} */
	json_object *series;
	int partials;
	struct dft_tmap *funcs;
};

/* Notes part of series id, read here (owner 0) or by partial owner. */
static void
series_note(struct recctx *rc, const char *id, const char *source,
	    long part, int owner)
{
	json_object *e;

	if (!json_object_object_get_ex(rc->series, id, &e)) {
		e = json_object_new_object();
		json_object_object_add(e, "source", dft_jstr(source));
		json_object_object_add(e, "parts", json_object_new_array());
		json_object_object_add(e, "owner", dft_jint(owner));
		json_object_object_add(rc->series, id, e);
	} else if (dft_json_int(e, "owner", 0) != owner) {
		json_object_object_add(e, "split",
				       json_object_new_boolean(1));
	}
	json_object *parts = json_object_object_get(e, "parts");

	json_object_array_add(parts, dft_jint(part));
}

static int
cmp_part(const void *a, const void *b)
{
	int64_t x = json_object_get_int64(*(json_object *const *)a);
	int64_t y = json_object_get_int64(*(json_object *const *)b);

	return x < y ? -1 : x > y;
}

/* The series for the partial record; warns about series whose chunks
 * were read apart. */
static json_object *
series_finish(struct recctx *rc)
{
	json_object *out = json_object_new_object();

	json_object_object_foreach(rc->series, id, e) {
		json_object *parts = json_object_object_get(e, "parts");
		json_object *o = json_object_new_object();

		json_object_array_sort(parts, cmp_part);
		if (dft_json_bool(e, "split", 0))
			dft_warn("the chunks of '%s' (series %s) were "
				 "analyzed apart, in several --partial runs: "
				 "functions and file positions near the cuts "
				 "are approximate (keep the chunks of a trace "
				 "in one shard, see --shard)",
				 dft_json_str(e, "source", "?"), id);
		json_object_object_add(o, "source", json_object_get(
			json_object_object_get(e, "source")));
		json_object_object_add(o, "parts", json_object_get(parts));
		json_object_object_add(out, id, o);
	}
	return out;
}

static void
handle_record(struct recctx *rc, const char *line, size_t len, long lineno)
{
	char *path;
	json_object *o;
	int kind = dft_trace_input_line(line, len, &path, &o);

	if (kind < 0) {
		dft_warn_at(rc->name, lineno,
			    "not a record or a trace file: '%.*s'", (int)len,
			    line);
		rc->status = dft_worst(rc->status, DFT_EXIT_DATA);
		return;
	}
	if (len == 0 || line[0] == '{')
		rc->json_recs++;
	if (kind > 0) {
		inputs_add(rc->in, path);
		free(path);
		return;
	}
	const char *type = o ? dft_record_type(o) : "";

	if (strcmp(type, "chunk") == 0) {
		dft_warn_at(rc->name, lineno, "chunk record without a path");
		rc->status = dft_worst(rc->status, DFT_EXIT_DATA);
	} else if (strcmp(type, "partial") == 0) {
		const char *why;

		if (partial_load(rc->a, o, rc->inputs, &why) != 0) {
			dft_warn_at(rc->name, lineno, "%s", why);
			rc->status = dft_worst(rc->status, DFT_EXIT_DATA);
		} else {
			json_object *sr;

			rc->merged = 1;
			rc->partials++;
			if (json_object_object_get_ex(o, "series", &sr) &&
			    json_object_is_type(sr, json_type_object)) {
				json_object_object_foreach(sr, id, e) {
					json_object *ps = json_object_object_get(
						e, "parts");
					size_t np = ps && json_object_is_type(ps,
						json_type_array) ?
						json_object_array_length(ps) : 0;

					for (size_t i = 0; i < np; i++)
						series_note(rc, id,
							dft_json_str(e, "source",
								     "?"),
							(long)json_object_get_int64(
							json_object_array_get_idx(
								ps, i)),
							rc->partials);
				}
			}
		}
	} else {
		/* function records give file:line, and pass through */
		if (o != NULL)
			add_function(rc->funcs, o);
		fwrite(line, 1, len, stdout);
		fputc('\n', stdout);
	}
	json_object_put(o);
}

static void
stdin_rec(const char *line, size_t len, long lineno, void *ctx)
{
	handle_record(ctx, line, len, lineno);
}

static void
parse_opts(int argc, char **argv, struct opts *o)
{
	enum { OPT_PARTIAL = 256, OPT_MERGE, OPT_THRESHOLDS, OPT_SHARD, OPT_ALL,
	       OPT_SYSTEM, OPT_FUNCTIONS };
	static const struct option lo[] = {
		{ "jobs", required_argument, NULL, 'j' },
		{ "preset", required_argument, NULL, 'p' },
		{ "config", required_argument, NULL, 'c' },
		{ "top", required_argument, NULL, 't' },
		{ "format", required_argument, NULL, 'f' },
		{ "partial", no_argument, NULL, OPT_PARTIAL },
		{ "merge", no_argument, NULL, OPT_MERGE },
		{ "thresholds", no_argument, NULL, OPT_THRESHOLDS },
		{ "shard", required_argument, NULL, OPT_SHARD },
		{ "all", no_argument, NULL, OPT_ALL },
		{ "include-system", no_argument, NULL, OPT_SYSTEM },
		{ "functions", required_argument, NULL, OPT_FUNCTIONS },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	while ((c = dft_getopt(argc, argv, "j:p:c:t:f:hV", lo)) != -1) {
		switch (c) {
		case 'j':
			o->jobs = (int)dft_opt_long(usage_text, "--jobs", optarg,
						    1, 1024);
			break;
		case 'p':
			if (strcmp(optarg, "posix") != 0 &&
			    strcmp(optarg, "dlio") != 0)
				dft_bad_value(usage_text, "--preset", optarg,
					      "posix or dlio");
			o->preset = optarg;
			break;
		case 'c':
			o->config = optarg;
			break;
		case 't':
			o->top = (int)dft_opt_long(usage_text, "--top", optarg,
						   0, 1000000);
			break;
		case 'f':
			if (strcmp(optarg, "table") == 0)
				o->table = 1;
			else if (strcmp(optarg, "json") == 0)
				o->table = 0;
			else
				dft_bad_value(usage_text, "--format", optarg,
					      "json or table");
			break;
		case OPT_PARTIAL:
			o->partial = 1;
			break;
		case OPT_MERGE:
			o->merge = 1;
			break;
		case OPT_THRESHOLDS:
			o->thresholds = 1;
			break;
		case OPT_SHARD: {
			char *sl = strchr(optarg, '/');

			if (sl == NULL)
				dft_bad_value(usage_text, "--shard", optarg,
					      "K/N, 1 <= K <= N");
			*sl = '\0';
			if (dft_parse_long(sl + 1, 1, 1000000, &o->shard_n) != 0 ||
			    dft_parse_long(optarg, 1, o->shard_n,
					   &o->shard_k) != 0) {
				*sl = '/';
				dft_bad_value(usage_text, "--shard", optarg,
					      "K/N, 1 <= K <= N");
			}
			*sl = '/';
			break;
		}
		case OPT_ALL:
			o->all = 1;
			break;
		case OPT_SYSTEM:
			o->include_system = 1;
			break;
		case OPT_FUNCTIONS:
			o->functions = optarg;
			break;
		case 'h':
			exit(dft_help(usage_text, help_text));
		case 'V':
			exit(dft_version());
		default:
			dft_option_error(usage_text, c, argv, lo);
		}
	}
	if (o->partial && o->merge)
		dft_usage_error(usage_text,
				"--partial and --merge exclude each other");
	if (o->partial && o->table)
		dft_usage_error(usage_text,
				"--partial writes a record, not a table");
}

/*
 * The table for a terminal: control characters that came from trace
 * strings (escape sequences) are shown as \xHH, not sent.
 */
static void
table_visible(struct agg *a, const struct run_info *ri,
	      struct results *res)
{
	char *text = NULL;
	size_t n = 0;
	FILE *m = open_memstream(&text, &n);
	struct dft_buf v;

	if (m == NULL)
		dft_die("out of memory");
	out_table(m, a, ri, res);
	if (fclose(m) != 0)
		dft_die("out of memory");
	dft_buf_init(&v);
	dft_buf_add_visible(&v, text, n, 1);
	if (fwrite(v.s, 1, v.len, stdout) != v.len)
		dft_die("write error:");
	dft_buf_release(&v);
	free(text);
}

int
main(int argc, char **argv)
{
	struct opts o = { 0 };
	struct dft_step step;
	struct agg a;
	struct inputs in = { 0 };
	int status = DFT_EXIT_OK;
	json_object *inputs = json_object_new_array();

	dft_init("dft-analyze");
	o.top = 10;
	o.jobs = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (o.jobs < 1)
		o.jobs = 1;
	parse_opts(argc, argv, &o);
	/* thresholds: the shipped defaults file, then --config */
	char *def = dft_share_path("thresholds.conf");

	if (def != NULL && thr_load(def, 0) != 0)
		status = DFT_EXIT_DATA;
	free(def);
	if (o.config != NULL && thr_load(o.config, 1) != 0)
		return DFT_EXIT_FATAL;
	if (o.thresholds) {
		for (int i = 0; i < T_N; i++) {
			if (thr[i] == (double)(long long)thr[i])
				printf("%s = %lld\n", thr_name[i],
				       (long long)thr[i]);
			else
				printf("%s = %g\n", thr_name[i], thr[i]);
		}
		return dft_worst(status, dft_close_stdout());
	}
	dft_step_begin(&step, "analyze");
	agg_init(&a);

	struct dft_tmap funcs;

	dft_tmap_init(&funcs, sizeof(struct fnloc));
	if (o.functions != NULL) {
		int st = load_functions(&funcs, o.functions);

		if (st == DFT_EXIT_FATAL)
			return DFT_EXIT_FATAL;
		status = dft_worst(status, st);
	}
	struct recctx rc = { &in, &a, inputs, DFT_EXIT_OK, 0, "<stdin>", 0,
			     json_object_new_object(), 0, &funcs };
	int analyzed = 0;

	if (optind == argc) {
		/* standard input: records, trace paths, or a trace stream */
		struct dft_trace t;

		if (dft_trace_open(&t, "-") < 0)
			dft_die("cannot read standard input:");
		t.raw_lines = 1;
		int st = agg_trace(&a, &t, stdin_rec, &rc, NULL, NULL);

		status = dft_worst(status, st);
		dft_trace_report(&t);
		if (t.lines - rc.json_recs > 0) {
			json_object_array_add(inputs, dft_jstr("<stdin>"));
			analyzed = 1;
		}
		dft_trace_close(&t);
	} else {
		char **ops;
		size_t nops;

		status = dft_worst(status, dft_trace_inputs(argc - optind,
			argv + optind, &ops, &nops));
		for (size_t i = 0; i < nops; i++)
			inputs_add(&in, ops[i]);
		dft_strv_free(ops);
	}
	fflush(stdout);
	/* rounds: chunk records inside files may name more files */
	size_t done = 0, seq = 0;

	while (done < in.n) {
		size_t from = done;

		run_pool(&in, from, o.jobs, &a, &o, &seq);
		done = in.n;
		for (size_t i = from; i < done; i++) {
			struct input *x = &in.v[i];

			if (x->err != NULL) {
				dft_warn("%s", x->err);
			} else {
				if (x->lines > 0)
					analyzed = 1;
				dft_trace_report(&x->rep);
				if (x->lines > 0)
					json_object_array_add(inputs,
							      dft_jstr(x->path));
				if (x->part > 0)
					series_note(&rc, x->series, x->source,
						    x->part, 0);
			}
			status = dft_worst(status, x->status);
			rc.name = x->path;
			/* records of the file, in order */
			char *p = x->recs.s;

			for (size_t off = 0; off < x->recs.len;) {
				char *nl = memchr(p + off, '\n',
						  x->recs.len - off);
				size_t len = (size_t)(nl - (p + off));

				p[off + len] = '\0';
				handle_record(&rc, p + off, len, 0);
				off += len + 1;
			}
		}
	}
	status = dft_worst(status, rc.status);
	if (rc.merged)
		analyzed = 1;

	if (analyzed) {
		struct run_info ri = { 0 };
		struct results res = { 0 };

		ri.inputs = inputs;
		ri.top = o.top;
		ri.series = series_finish(&rc);
		ri.all = o.all;
		ri.include_system = o.include_system;
		ri.funcs = &funcs;
		if (o.preset != NULL) {
			ri.preset = o.preset;
			ri.preset_reason = dft_xstrdup("option");
		} else {
			ri.preset = choose_preset(&a, &ri.preset_reason);
		}
		if (o.partial) {
			dft_emit_put(stdout, partial_json(&a, &ri));
		} else {
			agg_finalize(&a);
			rules_run(&a, &ri, &res);
			if (o.table)
				table_visible(&a, &ri, &res);
			else
				out_records(stdout, &a, &ri, &res);
		}
		results_release(&res);
		run_info_release(&ri);
		free(ri.preset_reason);
		json_object_put(ri.series);
	}
	if (!o.table)
		dft_emit_put(stdout, dft_step_end(&step, status == 0 ? "ok" :
						  "partial"));
	for (size_t i = 0; i < in.n; i++) {
		free(in.v[i].path);
		free(in.v[i].err);
		free(in.v[i].source);
		dft_buf_release(&in.v[i].recs);
	}
	free(in.v);
	for (size_t i = 0; i < funcs.count; i++) {
		struct fnloc *l = dft_tmap_value(&funcs, i);

		free(l->file);
		free(l->qualname);
	}
	dft_tmap_release(&funcs);
	json_object_put(inputs);
	json_object_put(rc.series);
	agg_release(&a);
	return dft_worst(status, dft_close_stdout());
}
