/*
 * dft-cost - decide which functions are worth tracing.
 *
 * Reads `function` records (from dft-funcs) and adds `cost` (the reference
 * pipeline's counters and score) and `decision` (annotate or not, the comp
 * category, the rule that decided and a reason a person can check).
 * Every other record passes through unchanged.  At the end it prints one
 * `cost_summary` record and its `step` record.
 * The reference rules are kept exactly (score formula, threshold 20, R6
 * lifecycle suffixes, R7 vendor prefixes and calls, main always, the
 * Python generic and AI/ML tables); our refinements come in between, each
 * named in `rule` and each switchable with --no-rule.
 * It does not look at source files: everything it needs is in the record.
 * It reads all its input before writing: the call-frequency rules (hot-*)
 * need every caller's calls_in_loops to judge a callee.
 */
#include <fnmatch.h>
#include <math.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "dft.h"
#include "options.h"

struct pat {
	char **v;
	size_t n;
};

struct prof {
	char *name;
	double count;
	double events;		/* records naming it in the profile's trace */
	double mean_us;
	int app;		/* an application function (io_cat "app") */
	int io;			/* an I/O call (io_cat neither app nor none) */
	int other;		/* neither (io_cat none: the tracer's own) */
	int rw;			/* a read or write call (io_cat read, write) */
	double io_calls;	/* I/O it is the innermost function of, or -1 */
	double io_time_s;	/* their time */
	int over_budget;	/* profile-volume */
	int over_overhead;	/* profile-overhead */
};

struct opts {
	long threshold;
	long reach;		/* io_reach at most this is never skipped */
	long leaf_nodes;	/* tiny-leaf: fewer nodes than this */
	const char *py_model;	/* auto, generic, ml */
	struct pat excl;	/* --exclude */
	struct pat comp_pat;	/* --comp NAME=comp: NAME */
	char **comp_val;
	struct pat no_rule;	/* --no-rule */
	int reference;		/* --reference: no refinements */
	/* --select */
	struct pat inc_fn, exc_fn, inc_file, exc_file;
	int has_inc_fn, has_inc_file;
	/* --profile */
	struct prof *prof;
	size_t nprof;
	int has_profile;
	double event_bytes;
	double throttle_calls, throttle_us;	/* profile-throttle */
	double event_ratio;	/* profile-volume: events per I/O event */
	double event_margin;	/* ... of the I/O events less this share */
	double io_early;	/* the tracer's early decision (calls) */
	double io_events, budget;
	/* --overhead-profile: profile-overhead */
	struct prof *oprof;
	size_t noprof;
	int has_oprof;
	double ov_traced, ov_untraced, ov_budget_pct, ov_call_us;
	double ov_fn_s;		/* every application function's estimate */
	double ov_saved_s;	/* the skipped ones' */
	long ov_skip;
	/* name called inside a loop of another function -> that caller */
	json_object *loop_callee;
	/* io-wrapper: usr (or qualified name) of each 1:1 I/O wrapper ->
	 * its io_reach (0: it makes the I/O call), and by qualified name */
	json_object *wrap_usr, *wrap_qual;
};

struct summary {
	long functions, annotate, skip;
	json_object *by_rule, *by_comp;
	double est_events;
};

static const char usage_text[] =
	"usage: dft-cost [-t N] [--select FILE] [--comp NAME=COMP] "
	"[--exclude NAME]\n"
	"                [--profile FILE] [--throttle-calls N] [--throttle-us US]\n"
	"                [--event-ratio R] [--event-margin F] [--io-early N]\n"
	"                [--overhead-profile FILE]\n"
	"                [--overhead-traced S] [--overhead-untraced S]\n"
	"                [--overhead-budget PCT] [--overhead-call-us US]\n"
	"                [--no-rule RULE] [--reference] [--io-reach N]\n"
	"                [--python-model MODEL] [--unbuffered] [file ...]\n";

enum {
	OPT_SELECT = 256, OPT_COMP, OPT_EXCLUDE, OPT_PROFILE, OPT_NO_RULE,
	OPT_REFERENCE, OPT_REACH, OPT_PYMODEL, OPT_UNBUF, OPT_TCALLS, OPT_TUS,
	OPT_RATIO, OPT_OPROF, OPT_OTRACED, OPT_OUNTRACED, OPT_OBUDGET,
	OPT_OCALL, OPT_MARGIN, OPT_IOEARLY
};

static const struct option longopts[] = {
	{ "threshold", required_argument, NULL, 't' },
	{ "select", required_argument, NULL, OPT_SELECT },
	{ "comp", required_argument, NULL, OPT_COMP },
	{ "exclude", required_argument, NULL, OPT_EXCLUDE },
	{ "profile", required_argument, NULL, OPT_PROFILE },
	{ "throttle-calls", required_argument, NULL, OPT_TCALLS },
	{ "throttle-us", required_argument, NULL, OPT_TUS },
	{ "event-ratio", required_argument, NULL, OPT_RATIO },
	{ "event-margin", required_argument, NULL, OPT_MARGIN },
	{ "io-early", required_argument, NULL, OPT_IOEARLY },
	{ "overhead-profile", required_argument, NULL, OPT_OPROF },
	{ "overhead-traced", required_argument, NULL, OPT_OTRACED },
	{ "overhead-untraced", required_argument, NULL, OPT_OUNTRACED },
	{ "overhead-budget", required_argument, NULL, OPT_OBUDGET },
	{ "overhead-call-us", required_argument, NULL, OPT_OCALL },
	{ "no-rule", required_argument, NULL, OPT_NO_RULE },
	{ "reference", no_argument, NULL, OPT_REFERENCE },
	{ "io-reach", required_argument, NULL, OPT_REACH },
	{ "python-model", required_argument, NULL, OPT_PYMODEL },
	{ "unbuffered", no_argument, NULL, OPT_UNBUF },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 }
};

static const char help_text[] =
	"\n"
	"Adds cost and decision to every function record.\n"
	"\n"
	"  -t, --threshold N      annotate at score >= N (default 20)\n"
	"      --select FILE      TAU-style include/exclude lists of functions\n"
	"                         and files\n"
	"      --comp NAME=COMP   force comp (io, comm, mem, cpu) of NAME\n"
	"      --exclude NAME     never annotate NAME (a glob; repeatable)\n"
	"      --profile FILE     dft-analyze output: throttle hot tiny functions\n"
	"                         and estimate the trace size\n"
	"      --throttle-calls N the profile throttle: more than N calls\n"
	"                         (default 100000) ...\n"
	"      --throttle-us US   ... under US microseconds each (default 10)\n"
	"      --event-ratio R    the profile's event budget: R events per I/O\n"
	"                         event (default 1.5, 0 off) ...\n"
	"      --event-margin F   ... of the profile's I/O events less the share F\n"
	"                         (default 0.2) a re-annotated run may not hold\n"
	"      --io-early N       the tracer's early decision (default 25, 0 off):\n"
	"                         short reads and writes the profile wrote whole\n"
	"                         past N calls count as N + 1 I/O events\n"
	"      --overhead-profile FILE  dft-analyze output of a traced run over\n"
	"                         the overhead budget: skip its costliest functions\n"
	"      --overhead-traced S, --overhead-untraced S  that run's medians\n"
	"      --overhead-budget PCT  the overhead allowed (default 5)\n"
	"      --overhead-call-us US  the tracing cost of one annotated call\n"
	"      --no-rule RULE     switch one refinement off (repeatable)\n"
	"      --reference        the reference rules only, no refinements\n"
	"      --io-reach N       never skip functions that reach I/O in <= N\n"
	"                         calls (default 1)\n"
	"      --python-model M   auto, generic or ml (default auto)\n"
	"      --unbuffered       flush after every record\n"
	"  -h, --help             show this help\n"
	"  -V, --version          show the version\n";

/* ---- tables of the reference pipeline ------------------------------------ */

static const char *const c_io[] = {
	"open", "close", "read", "write", "pread", "pwrite", "fopen", "fclose",
	"fread", "fwrite", "fputs", "fgets", "fgetc", "fputc", "stat", "fstat",
	"lstat", "lseek", "lseek64", "mmap", "munmap", "mmap2", "fsync",
	"fdatasync", "fallocate", "posix_fallocate", "posix_fadvise", "ioctl",
	"sendfile", "sendfile64", "rename", "unlink", "mkdir", "rmdir",
	"creat", "openat", "readdir", "opendir", "closedir", "ftruncate",
	"truncate", "ftruncate64", "pread64", "pwrite64", "AIO_Read",
	"AIO_Write", NULL
};
/* mmap is I/O only: the reference listed it twice (defect D10) */
static const char *const c_mem[] = {
	"malloc", "calloc", "realloc", "free", "memcpy", "memmove", "memset",
	NULL
};
/* MPI calls that do not communicate: not "comm" by themselves */
static const char *const mpi_aux[] = {
	"MPI_Abort", "MPI_Comm_rank", "MPI_Comm_size", "MPI_Wtime",
	"MPI_Wtick", "MPI_Initialized", "MPI_Finalized", "MPI_Error_string",
	"MPI_Get_processor_name", "MPI_Error_class", NULL
};
static const char *const vendor_prefix[] = {
	"gpfs_", "beegfs_", "llapi_", "cuFile", "hdfs_", "daos_", "ceph_",
	"gfarm_", NULL
};
static const char *const lifecycle[] = {
	"_init", "_final", "_initialize", "_finalize", "_open", "_close",
	"_create", "_destroy", "_open_backend", "_close_backend", "_sync",
	"_flush", "_fsync", "_delete", "_rename", "_stat", "_mknod",
	"_getFileSize", NULL
};
static const char *const py_io[] = {
	"open", "read", "write", "close", "seek", "flush", "readline",
	"readlines", "writelines", "stat", "rename", "unlink", "mkdir",
	"rmdir", "listdir", "scandir", "glob", "walk", "send", "recv",
	"sendall", "sendto", "recvfrom", NULL
};
static const char *const py_mpi[] = {
	"Send", "Recv", "Bcast", "Gather", "Scatter", "Allreduce", "Reduce",
	"Allgather", "Alltoall", "Barrier", "Sendrecv", "Isend", "Irecv",
	"Wait", "Waitall", NULL
};
static const char *const ml_io[] = {
	"open", "read", "write", "close", "readlines", "writelines", "load",
	"save", "savez", "savez_compressed", "loadtxt", "savetxt", "fromfile",
	"tofile", "memmap", "read_csv", "read_parquet", "read_json",
	"read_hdf", "to_csv", "to_parquet", "to_hdf", "imread", "imwrite",
	"imsave", "File", "create_dataset", "dump", "dumps", "loads",
	"download", "upload", "get_object", "put_object", "decode", "encode",
	NULL
};
static const char *const ml_ckpt[] = {
	"state_dict", "load_state_dict", "save_checkpoint", "load_checkpoint",
	"from_pretrained", "save_pretrained", "save_model", "load_model",
	"torch_save", "torch_load", NULL
};
static const char *const ml_comm[] = {
	"all_reduce", "all_gather", "all_to_all", "reduce_scatter",
	"broadcast", "barrier", "reduce", "scatter", "gather", "send", "recv",
	"isend", "irecv", "init_process_group", "Send", "Recv", "Bcast",
	"Gather", "Scatter", "Allreduce", "Reduce", "Allgather", "Alltoall",
	"Barrier", "Sendrecv", "Isend", "Irecv", "Wait", "Waitall", NULL
};
static const char *const ml_data[] = {
	"DataLoader", "Dataset", "IterableDataset", "collate_fn",
	"default_collate", "prefetch", "shuffle", "batch", "map", "sampler",
	"next", "iter", NULL
};
static const char *const ml_compute[] = {
	"backward", "step", "zero_grad", "forward", "no_grad", "autocast",
	"scale", "unscale_", "clip_grad_norm_", "synchronize", NULL
};
static const char *const ml_xfer[] = {
	"to", "cuda", "cpu", "numpy", "item", "detach", "clone", "pin_memory",
	"contiguous", "from_numpy", "as_tensor", NULL
};
static const char *const dunders[] = {
	"__repr__", "__str__", "__len__", "__eq__", "__ne__", "__hash__",
	"__format__", "__bool__", "__lt__", "__gt__", "__le__", "__ge__", NULL
};
static const char *const py_lifecycle[] = {
	"_load", "_save", "_read", "_write", "_fetch", "_push", "_dump",
	"load_", "save_", "read_", "write_", "checkpoint", "_init",
	"_finalize", "train_step", "training_step", "validation_step",
	"test_step", NULL
};
static const char *const ml_frameworks[] = {
	"torch", "tensorflow", "jax", "keras", "flax", "mxnet", "horovod",
	"deepspeed", "megatron", "lightning", "pytorch_lightning", "dali",
	"dlio_benchmark", "transformers", NULL
};

static int
vendor_name(const char *s)
{
	int i;

	for (i = 0; vendor_prefix[i]; i++)
		if (strncasecmp(s, vendor_prefix[i],
				strlen(vendor_prefix[i])) == 0)
			return 1;
	return 0;
}

static const char *
lifecycle_suffix(const char *s)
{
	size_t n = strlen(s);
	int i;

	for (i = 0; lifecycle[i]; i++) {
		size_t m = strlen(lifecycle[i]);

		if (n >= m && strcasecmp(s + n - m, lifecycle[i]) == 0)
			return lifecycle[i];
	}
	return NULL;
}

/* ---- patterns ----------------------------------------------------------------- */

static void
pat_add(struct pat *p, const char *s)
{
	char *c = dft_xstrdup(s), *q;

	for (q = c; *q; q++)	/* TAU writes # for "anything" */
		if (*q == '#')
			*q = '*';
	p->v = dft_xreallocarray(p->v, p->n + 1, sizeof(char *));
	p->v[p->n++] = c;
}

static long
pat_match(const struct pat *p, const char *a, const char *b)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		if ((a && fnmatch(p->v[i], a, 0) == 0) ||
		    (b && fnmatch(p->v[i], b, 0) == 0))
			return (long)i;
	return -1;
}

static int
rule_on(const struct opts *o, const char *rule)
{
	if (o->reference)
		return 0;
	return pat_match(&o->no_rule, rule, NULL) < 0;
}

/* TAU selective instrumentation file. */
static void
load_select(struct opts *o, const char *path)
{
	char *text = dft_read_file(path, NULL), *line, *save = NULL;
	struct pat *cur = NULL;

	if (!text)
		dft_die("cannot open '%s':", path);
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *e;

		while (*line == ' ' || *line == '\t')
			line++;
		e = line + strlen(line);
		while (e > line && (e[-1] == ' ' || e[-1] == '\t' ||
				    e[-1] == '\r'))
			*--e = '\0';
		if (!*line || *line == '#')
			continue;
		if (strcmp(line, "BEGIN_INCLUDE_LIST") == 0) {
			cur = &o->inc_fn;
			o->has_inc_fn = 1;
		} else if (strcmp(line, "BEGIN_EXCLUDE_LIST") == 0) {
			cur = &o->exc_fn;
		} else if (strcmp(line, "BEGIN_FILE_INCLUDE_LIST") == 0) {
			cur = &o->inc_file;
			o->has_inc_file = 1;
		} else if (strcmp(line, "BEGIN_FILE_EXCLUDE_LIST") == 0) {
			cur = &o->exc_file;
		} else if (dft_has_prefix(line, "END_")) {
			cur = NULL;
		} else if (cur) {
			/* "int foo(int)" -> "foo": keep the name only */
			char *paren = strchr(line, '(');
			char *nm;

			if (cur == &o->inc_fn || cur == &o->exc_fn) {
				if (paren) {
					*paren = '\0';
					e = paren;
					while (e > line && e[-1] == ' ')
						*--e = '\0';
				}
				nm = strrchr(line, ' ');
				nm = nm ? nm + 1 : line;
				while (*nm == '*' && nm[1])
					nm++;
				pat_add(cur, nm);
			} else {
				pat_add(cur, line);
			}
		} else {
			dft_die("%s: '%s' is outside a BEGIN_..._LIST block",
				path, line);
		}
	}
	free(text);
}

/* Per-function counts and mean durations from dft-analyze output, added to
 * the array *vp of *np entries. */
static int
load_profile(struct prof **vp, size_t *np, const char *path)
{
	struct dft_reader r;
	json_object *rec;
	int rc;

	if (dft_reader_open(&r, path) < 0)
		dft_die("cannot open '%s':", path);
	while ((rc = dft_reader_next(&r, &rec)) == 1) {
		json_object *fns = NULL;
		size_t i, n;

		if (json_object_object_get_ex(rec, "functions", &fns) &&
		    json_object_is_type(fns, json_type_array)) {
			n = json_object_array_length(fns);
			for (i = 0; i < n; i++) {
				json_object *f = json_object_array_get_idx(fns, i);
				const char *nm = dft_json_str(f, "name", NULL);
				const char *ic = dft_json_str(f, "io_cat", "");
				double cnt = dft_json_double(f, "count", 0);
				double t = dft_json_double(f, "time_s", 0);
				struct prof *p;

				if (!nm || cnt <= 0)
					continue;
				*vp = dft_xreallocarray(*vp, *np + 1,
							sizeof(**vp));
				p = &(*vp)[(*np)++];
				memset(p, 0, sizeof(*p));
				p->name = dft_xstrdup(nm);
				p->count = cnt;
				/* older dft-analyze: one record a call */
				p->events = dft_json_double(f, "events", cnt);
				if (p->events <= 0)
					p->events = cnt;
				p->mean_us = t / cnt * 1e6;
				p->app = strcmp(ic, "app") == 0;
				p->io = *ic && !p->app && strcmp(ic, "none") != 0;
				p->other = strcmp(ic, "none") == 0;
				p->rw = strcmp(ic, "read") == 0 ||
					strcmp(ic, "write") == 0;
				p->io_calls = dft_json_double(f, "io_calls", -1);
				p->io_time_s = dft_json_double(f, "io_time_s", 0);
			}
		} else if (dft_json_str(rec, "name", NULL) &&
			   dft_json_double(rec, "count", 0) > 0) {
			struct prof *p;
			double cnt = dft_json_double(rec, "count", 0);

			*vp = dft_xreallocarray(*vp, *np + 1, sizeof(**vp));
			p = &(*vp)[(*np)++];
			memset(p, 0, sizeof(*p));
			p->io_calls = -1;
			p->name = dft_xstrdup(dft_json_str(rec, "name", ""));
			p->count = cnt;
			p->events = dft_json_double(rec, "events", cnt);
			if (p->events <= 0)
				p->events = cnt;
			p->mean_us = dft_json_double(rec, "mean_us",
				dft_json_double(rec, "time_s", 0) / cnt * 1e6);
		}
		json_object_put(rec);
	}
	rc = r.bad ? -1 : 0;
	dft_reader_release(&r);
	return rc;
}

static int
by_count(const void *a, const void *b)
{
	const struct prof *x = *(const struct prof *const *)a;
	const struct prof *y = *(const struct prof *const *)b;

	if (x->count != y->count)
		return x->count < y->count ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The fewest events first, then the fewest calls, then by name. */
static int
by_events(const void *a, const void *b)
{
	const struct prof *x = *(const struct prof *const *)a;
	const struct prof *y = *(const struct prof *const *)b;

	if (x->events != y->events)
		return x->events < y->events ? -1 : 1;
	return by_count(a, b);
}

/* The most I/O time first, then the most I/O calls, the fewest calls. */
static int
by_io_time(const void *a, const void *b)
{
	const struct prof *x = *(const struct prof *const *)a;
	const struct prof *y = *(const struct prof *const *)b;

	if (x->io_time_s != y->io_time_s)
		return x->io_time_s > y->io_time_s ? -1 : 1;
	if (x->io_calls != y->io_calls)
		return x->io_calls > y->io_calls ? -1 : 1;
	return by_count(a, b);
}

/*
 * profile-volume: the analyzed trace should hold at most event_ratio events
 * per I/O event of the profile: (ratio - 1) x the I/O events for the rest,
 * less the events that stay whatever the annotation (the tracer's own,
 * io_cat "none", and main). Events are the records of the profile's trace
 * (its "events": an aggregated record is one, whatever its calls; one a
 * call from an older dft-analyze), the volume the trace holds.
 * Functions profile-throttle skips take no part. The application functions
 * that are the innermost function of some I/O (the diagnosis names them)
 * come first, the most I/O time first; the one with the most is always
 * kept, and when it alone leaves room, the others are kept while they fit
 * (their I/O then goes to a traced caller), else all of them are kept:
 * dropping them would lose their names and still miss the budget. The
 * budget left goes to the functions around no I/O, the fewest events
 * first; the ones that do not fit are over the budget. Profiles without
 * io_calls (older dft-analyze) throttle nothing.
 * The I/O events are taken less event_margin of them: the re-annotated run
 * holds fewer I/O records than the profile's where a function left out
 * of it enclosed aggregated I/O (its records join its caller's: tinyxml2's
 * 360 I/O records were 315), and the budget is for that run.
 */
/*
 * The I/O events of p, an I/O call of the profile, that the re-annotated
 * run will hold at least.  A read or write the tracer wrote whole past its
 * early decision (io_early calls, DFTRACER_THROTTLE_EARLY), one event a
 * call, though short on average (under throttle_us), missed the decision
 * by a few slow first calls (a cold buffer, page faults) and is likely
 * aggregated in a lighter run: after io_early complete events, one record
 * at least.  Counted by its profile's events, the budget then holds a
 * wrapper around it that the next run's I/O no longer pays for (zlib's
 * minigzip: fread's 72 calls were 72 events in one first run, 28 in the
 * next, and gz_load's 26 events took the run to 1.69 events per I/O
 * event).  Calls already aggregated in the profile stay so.
 */
static double io_events_next(const struct opts *o, const struct prof *p)
{
	if (o->io_early > 0 && p->rw && p->count > o->io_early &&
	    p->events >= p->count && p->mean_us < o->throttle_us)
		return o->io_early + 1;
	return p->events;
}

/* profile-throttle's test: many calls, short ones, around no I/O */
static int
throttled(const struct opts *o, const struct prof *p)
{
	return rule_on(o, "profile-throttle") && p->count > o->throttle_calls &&
	       p->mean_us < o->throttle_us && !(p->io_calls > 0);
}

static void
profile_budget(struct opts *o)
{
	struct prof **v = dft_xreallocarray(NULL, o->nprof + 1, sizeof(*v));
	struct prof **in = dft_xreallocarray(NULL, o->nprof + 1, sizeof(*in));
	size_t n = 0, nin = 0;
	double used = 0, fixed = 0;

	o->io_events = 0;
	for (size_t i = 0; i < o->nprof; i++) {
		struct prof *p = &o->prof[i];

		if (p->io)
			o->io_events += io_events_next(o, p);
		else if (p->other || (p->app && strcmp(p->name, "main") == 0))
			fixed += p->events;
		else if (throttled(o, p))
			continue;	/* skipped anyway */
		else if (p->app && p->io_calls > 0)
			in[nin++] = p;
		else if (p->app && p->io_calls == 0)
			v[n++] = p;
	}
	o->budget = (o->event_ratio - 1) * o->io_events *
		    (1 - o->event_margin) - fixed;
	qsort(in, nin, sizeof(*in), by_io_time);
	if (nin > 0 && o->event_ratio > 0 && in[0]->events <= o->budget) {
		for (size_t i = 0; i < nin; i++) {
			if (i > 0 && used + in[i]->events > o->budget)
				in[i]->over_budget = 1;
			else
				used += in[i]->events;
		}
	} else {
		for (size_t i = 0; i < nin; i++)
			used += in[i]->events;
	}
	qsort(v, n, sizeof(*v), by_events);
	for (size_t i = 0; i < n; i++) {
		if (o->event_ratio > 0 && used + v[i]->events > o->budget)
			v[i]->over_budget = 1;
		else
			used += v[i]->events;
	}
	free(in);
	free(v);
}

/* the budget's margin in a reason: "" when there is none */
static const char *
margin_text(const struct opts *o)
{
	static char buf[64];

	if (!(o->event_margin > 0))
		return "";
	snprintf(buf, sizeof(buf), " less a %g %% margin",
		 round(o->event_margin * 1000) / 10);
	return buf;
}

/* The largest estimated tracing cost first, then by name. */
static int
by_cost(const void *a, const void *b)
{
	const struct prof *x = *(const struct prof *const *)a;
	const struct prof *y = *(const struct prof *const *)b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->name, y->name);
}

/*
 * profile-overhead: a traced run whose measured overhead, traced minus
 * untraced median, is over the budget (ov_budget_pct of the untraced
 * median). Each application function of its profile but main costs an
 * estimated count x ov_call_us of tracing; the ones under one percentage
 * point of the overhead (1 % of the untraced median) are not to blame.
 * The costliest of the others are skipped until the estimate left is
 * within the budget: the functions around no I/O first when they alone
 * can make it, else the ones around I/O, the costliest first, until the
 * rest can, then the rest. When all of them cannot, all of them are
 * skipped (each is at least a point). The I/O calls themselves are not
 * annotated functions: their cost stays.
 */
static void
overhead_budget(struct opts *o)
{
	struct prof **io = dft_xreallocarray(NULL, o->noprof + 1, sizeof(*io));
	struct prof **no = dft_xreallocarray(NULL, o->noprof + 1, sizeof(*no));
	size_t nio = 0, nno = 0, i;
	double call_s = o->ov_call_us / 1e6;
	double over = o->ov_traced - o->ov_untraced;
	double excess = over - o->ov_budget_pct / 100 * o->ov_untraced;
	double point = o->ov_untraced / 100, sum_no = 0;

	o->ov_fn_s = 0;
	o->ov_saved_s = 0;
	for (i = 0; i < o->noprof; i++) {
		struct prof *p = &o->oprof[i];

		if (!p->app)
			continue;
		o->ov_fn_s += p->count * call_s;
		if (strcmp(p->name, "main") == 0 || p->count * call_s < point)
			continue;
		if (p->io_calls > 0) {
			io[nio++] = p;
		} else {
			no[nno++] = p;
			sum_no += p->count * call_s;
		}
	}
	qsort(io, nio, sizeof(*io), by_cost);
	qsort(no, nno, sizeof(*no), by_cost);
	if (excess > 0 && rule_on(o, "profile-overhead")) {
		for (i = 0; sum_no < excess && i < nio &&
		     o->ov_saved_s + sum_no < excess; i++) {
			io[i]->over_overhead = 1;
			o->ov_saved_s += io[i]->count * call_s;
			o->ov_skip++;
		}
		for (i = 0; i < nno && o->ov_saved_s < excess; i++) {
			no[i]->over_overhead = 1;
			o->ov_saved_s += no[i]->count * call_s;
			o->ov_skip++;
		}
	}
	free(io);
	free(no);
}

/*
 * A function's entry in profile V: by its qualified name, the event name
 * dft-annotate gives C++ methods and namespaced functions, else by its
 * name (a profile of events named by __FUNCTION__).
 */
static const struct prof *
entry_of(const struct prof *v, size_t n, const char *name, const char *qual)
{
	size_t i;

	for (i = 0; qual && i < n; i++)
		if (strcmp(v[i].name, qual) == 0)
			return &v[i];
	for (i = 0; i < n; i++)
		if (strcmp(v[i].name, name) == 0)
			return &v[i];
	return NULL;
}

static const struct prof *
profile_of(const struct opts *o, const char *name, const char *qual)
{
	return entry_of(o->prof, o->nprof, name, qual);
}

/* ---- cost ---------------------------------------------------------------------- */

struct cost {
	long io, mpi, mpiio, mpiaux, mem, vendor, loops, branches, calls, nodes;
	long ckpt, comm, data, compute, xfer;
	long score;
	const char *model;
};

static long
min20(long nodes)
{
	return nodes / 5 < 20 ? nodes / 5 : 20;
}

static void
cost_c(json_object *rec, struct cost *c)
{
	json_object *calls = json_object_object_get(rec, "calls");

	memset(c, 0, sizeof(*c));
	c->model = "c";
	if (calls) {
		json_object_object_foreach(calls, name, cnt) {
			long n = json_object_get_int(cnt);
			const char *bare = strrchr(name, ':');

			bare = bare ? bare + 1 : name;
			if (dft_in_list(bare, c_io))
				c->io += n;
			else if (dft_has_prefix(bare, "MPI_") ||
				 dft_has_prefix(bare, "PMPI_") ||
				 dft_has_prefix(bare, "NCMPI_") ||
				 dft_has_prefix(bare, "ncmpi_")) {
				c->mpi += n;
				if (dft_has_prefix(bare, "MPI_File_") ||
				    dft_has_prefix(bare, "ncmpi_") ||
				    dft_has_prefix(bare, "NCMPI_"))
					c->mpiio += n;
				else if (dft_in_list(bare, mpi_aux))
					c->mpiaux += n;
			} else if (dft_in_list(bare, c_mem))
				c->mem += n;
			else if (vendor_name(bare))
				c->vendor += n;
		}
	}
	c->loops = dft_json_int(rec, "loops", 0);
	c->branches = dft_json_int(rec, "branches", 0);
	c->calls = dft_json_int(rec, "call_count", 0);
	c->nodes = dft_json_int(rec, "nodes", 0);
	c->score = 30 * c->io + 25 * c->mpi + 15 * c->mem + 30 * c->vendor +
		   10 * c->loops + 3 * c->branches + 2 * c->calls +
		   min20(c->nodes);
}

static int
uses_ml(json_object *rec)
{
	json_object *ml = json_object_object_get(rec, "ml_imports");
	size_t i;

	for (i = 0; ml && i < json_object_array_length(ml); i++)
		if (dft_in_list(json_object_get_string(
			    json_object_array_get_idx(ml, i)), ml_frameworks))
			return 1;
	return 0;
}

static void
cost_py(json_object *rec, const struct opts *o, struct cost *c)
{
	json_object *calls = json_object_object_get(rec, "calls");
	int ml = strcmp(o->py_model, "ml") == 0 ||
		 (strcmp(o->py_model, "auto") == 0 && uses_ml(rec));

	memset(c, 0, sizeof(*c));
	c->model = ml ? "ml" : "generic";
	if (calls) {
		json_object_object_foreach(calls, name, cnt) {
			long n = json_object_get_int(cnt);

			if (!ml) {
				if (dft_in_list(name, py_io))
					c->io += n;
				else if (dft_in_list(name, py_mpi) ||
					 dft_has_prefix(name, "MPI_"))
					c->mpi += n;
				else if (dft_in_list(name, c_mem))
					c->mem += n;
			} else if (dft_in_list(name, ml_ckpt)) {
				c->ckpt += n;
			} else if (dft_in_list(name, ml_io)) {
				c->io += n;
			} else if (dft_in_list(name, ml_comm)) {
				c->comm += n;
			} else if (dft_in_list(name, ml_data)) {
				c->data += n;
			} else if (dft_in_list(name, ml_compute)) {
				c->compute += n;
			} else if (dft_in_list(name, ml_xfer)) {
				c->xfer += n;
			}
		}
	}
	c->loops = dft_json_int(rec, "loops", 0);
	c->branches = dft_json_int(rec, "branches", 0);
	c->calls = dft_json_int(rec, "call_count", 0);
	c->nodes = dft_json_int(rec, "nodes", 0);
	if (ml)
		c->score = 30 * c->io + 35 * c->ckpt + 25 * c->comm +
			   20 * c->data + 12 * c->xfer + 10 * c->compute +
			   8 * c->loops + 3 * c->branches + 2 * c->calls +
			   min20(c->nodes);
	else
		c->score = 30 * c->io + 25 * c->mpi + 15 * c->mem +
			   10 * c->loops + 3 * c->branches + 2 * c->calls +
			   min20(c->nodes);
}

static json_object *
cost_json(const struct cost *c, long threshold)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "model", dft_jstr(c->model));
	json_object_object_add(o, "io_calls", dft_jint(c->io));
	if (strcmp(c->model, "ml") == 0) {
		json_object_object_add(o, "ckpt_calls", dft_jint(c->ckpt));
		json_object_object_add(o, "comm_calls", dft_jint(c->comm));
		json_object_object_add(o, "data_calls", dft_jint(c->data));
		json_object_object_add(o, "compute_calls", dft_jint(c->compute));
		json_object_object_add(o, "xfer_calls", dft_jint(c->xfer));
	} else {
		json_object_object_add(o, "mpi_calls", dft_jint(c->mpi));
		json_object_object_add(o, "mem_calls", dft_jint(c->mem));
		json_object_object_add(o, "vendor_calls", dft_jint(c->vendor));
	}
	json_object_object_add(o, "loops", dft_jint(c->loops));
	json_object_object_add(o, "branches", dft_jint(c->branches));
	json_object_object_add(o, "calls", dft_jint(c->calls));
	json_object_object_add(o, "nodes", dft_jint(c->nodes));
	json_object_object_add(o, "score", dft_jint(c->score));
	json_object_object_add(o, "threshold", dft_jint(threshold));
	return o;
}

/* "1 I/O call, 2 loops, 35 nodes": the non-zero terms of the score */
static void
terms(struct dft_buf *b, const struct cost *c)
{
	struct {
		const char *what;
		long n;
	} t[] = {
		{ "I/O call", c->io }, { "MPI call", c->mpi },
		{ "memory call", c->mem }, { "vendor call", c->vendor },
		{ "checkpoint call", c->ckpt }, { "comm call", c->comm },
		{ "data call", c->data }, { "compute call", c->compute },
		{ "transfer call", c->xfer }, { "loop", c->loops },
		{ "branch", c->branches }, { "call", c->calls },
	};
	size_t i;
	int first = 1;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		if (!t[i].n)
			continue;
		dft_buf_addf(b, "%s%ld %s%s", first ? "" : ", ", t[i].n,
			     t[i].what, t[i].n == 1 ? "" :
			     strcmp(t[i].what, "branch") == 0 ? "es" : "s");
		first = 0;
	}
	dft_buf_addf(b, "%s%ld nodes", first ? "" : ", ", c->nodes);
}

static const char *
derive_comp(const struct cost *c, json_object *rec, int reference)
{
	if (strcmp(c->model, "ml") == 0) {
		if (c->comm)
			return "comm";
		if (c->ckpt || c->io || c->data)
			return "io";
		if (c->xfer)
			return "mem";
		return "cpu";
	}
	/* refinement: MPI-IO is I/O, not communication */
	if (c->mpi > c->mpiio + c->mpiaux || (c->mpi && reference))
		return "comm";
	if (c->vendor || c->io || c->mpiio)
		return "io";
	if (!reference && dft_json_bool(rec, "io_direct", 0))
		return "io";
	if (c->mem)
		return "mem";
	return "cpu";
}

/* ---- call frequency, statically -------------------------------------------------- */

/*
 * A static cost model sees a function's shape, not how often it runs.
 * These rules guess that it runs often and cheaply, and lower its score;
 * each is named, each switchable with --no-rule, and they apply only to
 * functions that reach no I/O:
 *   hot-loop-callee  called inside a loop of another function (that
 *                    caller's calls_in_loops)                       -15
 *   hot-small-leaf   no loop and fewer than 30 nodes                -10
 *   hot-inline       static inline, or defined in a header          -10
 *   hot-idiom        a hash, checksum or read/write-word helper by
 *                    name (hash, crc, adler, xxh, read32, readLE...),
 *                    without a loop                                 -15
 */
struct hot {
	long total;
	const char *rule;	/* the largest penalty's rule */
	long best;
	struct dft_buf why;
};

static const char *const hot_idioms[] = {
	"hash", "crc", "adler", "checksum", "cksum", "xxh", "murmur", "fnv",
	"siphash", "read16", "read32", "read64", "readle", "readbe", "write16",
	"write32", "write64", "writele", "writebe", "load16", "load32",
	"load64", "store16", "store32", "store64", "get16", "get32", "get64",
	"put16", "put32", "put64", "rotl", "rotr", "bswap", "byteswap",
	"swap16", "swap32", "swap64", "popcount", "nbcommon", NULL
};

static void
hot_add(struct hot *h, const char *rule, long pts, const char *what)
{
	if (h->why.len)
		dft_buf_adds(&h->why, ", ");
	dft_buf_addf(&h->why, "%s (%s -%ld)", what, rule, pts);
	h->total += pts;
	if (pts > h->best) {
		h->best = pts;
		h->rule = rule;
	}
}

static const char *
hot_idiom(const char *name)
{
	char low[256];
	size_t i;
	int k;

	for (i = 0; name[i] && i + 1 < sizeof(low); i++)
		low[i] = (char)(name[i] >= 'A' && name[i] <= 'Z' ?
				name[i] - 'A' + 'a' : name[i]);
	low[i] = '\0';
	for (k = 0; hot_idioms[k]; k++)
		if (strstr(low, hot_idioms[k]))
			return hot_idioms[k];
	return NULL;
}

/* The frequency penalty of a C or C++ function; its reasons into h. */
static long
hot_penalty(const struct opts *o, json_object *rec, const struct cost *c,
	    struct hot *h)
{
	const char *name = dft_json_str(rec, "name", "");
	const char *qual = dft_json_str(rec, "qualified_name", name);
	const char *idiom;
	json_object *caller = NULL;

	if (c->io || c->mpi || c->vendor)
		return 0;
	if (rule_on(o, "hot-loop-callee") && o->loop_callee &&
	    (json_object_object_get_ex(o->loop_callee, qual, &caller) ||
	     json_object_object_get_ex(o->loop_callee, name, &caller))) {
		char *w = dft_xasprintf("called inside a loop of %s",
					json_object_get_string(caller));

		hot_add(h, "hot-loop-callee", 15, w);
		free(w);
	}
	if (rule_on(o, "hot-small-leaf") && c->loops == 0 && c->nodes < 30) {
		char *w = dft_xasprintf("leaf of %ld nodes, no loop", c->nodes);

		hot_add(h, "hot-small-leaf", 10, w);
		free(w);
	}
	if (rule_on(o, "hot-inline") &&
	    ((dft_json_bool(rec, "inline", 0) &&
	      strcmp(dft_json_str(rec, "storage", ""), "static") == 0) ||
	     dft_json_bool(rec, "in_header", 0)))
		hot_add(h, "hot-inline", 10,
			dft_json_bool(rec, "in_header", 0) ?
			"defined in a header" : "static inline");
	if (rule_on(o, "hot-idiom") && c->loops == 0 &&
	    (idiom = hot_idiom(name))) {
		char *w = dft_xasprintf("'%s' helper by name", idiom);

		hot_add(h, "hot-idiom", 15, w);
		free(w);
	}
	return h->total;
}

/* Collects the names called inside loops, from every function record. */
static void
note_loop_calls(struct opts *o, json_object *rec)
{
	json_object *lc = json_object_object_get(rec, "calls_in_loops");
	const char *caller = dft_json_str(rec, "qualified_name",
					  dft_json_str(rec, "name", "?"));

	if (!lc || !json_object_is_type(lc, json_type_object))
		return;
	if (!o->loop_callee)
		o->loop_callee = json_object_new_object();
	json_object_object_foreach(lc, callee, cnt) {
		(void)cnt;
		if (strcmp(callee, caller) == 0)
			continue;	/* recursion is not a loop of a caller */
		if (!json_object_object_get_ex(o->loop_callee, callee, NULL))
			json_object_object_add(o->loop_callee, callee,
					       dft_jstr(caller));
	}
}

/*
 * io-wrapper: a 1:1 I/O wrapper is a short function whose body is one
 * traced I/O call (tinyxml2's XMLPrinter::Write around fwrite), or one call
 * of such a wrapper: no loop, no MPI or vendor call, at most WRAP_CALLS
 * calls and fewer than WRAP_NODES nodes. Tracing it doubles each call's
 * cost and events and says nothing the I/O record does not: its callers
 * are traced instead (io-reach counts the wrapper as the I/O call).
 */
#define WRAP_CALLS 3
#define WRAP_NODES 50

static int
wrap_shape(json_object *rec, const struct cost *c)
{
	return c->loops == 0 && c->mpi == 0 && c->vendor == 0 &&
	       c->calls <= WRAP_CALLS && c->nodes < WRAP_NODES &&
	       !dft_json_bool(rec, "is_entry", 0) &&
	       dft_json_bool(rec, "parse_ok", 1) &&
	       strcmp(dft_json_str(rec, "language", "c"), "python") != 0;
}

static const char *
wrap_key(json_object *rec)
{
	return dft_json_str(rec, "usr", dft_json_str(rec, "qualified_name",
				dft_json_str(rec, "name", "")));
}

static void cost_c(json_object *rec, struct cost *c);

/* One call of a wrapper of level reach - 1 (the one it reaches I/O
 * through), and no other callee that reaches I/O (reach: every function's
 * io_reach by qualified name). */
static int
wraps_wrapper(const struct opts *o, json_object *rec, json_object *reach)
{
	json_object *calls = json_object_object_get(rec, "calls");
	json_object *via_o = json_object_object_get(rec, "io_via"), *w;
	const char *via = via_o ? json_object_get_string(via_o) : NULL;
	long r = dft_json_int(rec, "io_reach", -1);

	if (!via || r < 1 || dft_json_bool(rec, "io_direct", 0) || !calls ||
	    !json_object_object_get_ex(o->wrap_qual, via, &w) ||
	    json_object_get_int(w) > r - 1)
		return 0;
	json_object_object_foreach(calls, callee, cnt) {
		if (strcmp(callee, via) == 0) {
			if (json_object_get_int(cnt) != 1)
				return 0;
		} else if (json_object_object_get_ex(reach, callee, NULL)) {
			return 0;
		}
	}
	return 1;
}

/* rec is a wrapper of level lvl; by qualified name the highest level (C++
 * overloads share one: tinyxml2's Write(const char *, size_t) around
 * fwrite and its inline Write(const char *) around that one) */
static void
wrap_note(struct opts *o, json_object *rec, int lvl)
{
	const char *q = dft_json_str(rec, "qualified_name",
				     dft_json_str(rec, "name", ""));
	json_object *w;

	json_object_object_add(o->wrap_usr, wrap_key(rec),
			       json_object_new_int(lvl));
	if (!json_object_object_get_ex(o->wrap_qual, q, &w) ||
	    json_object_get_int(w) < lvl)
		json_object_object_add(o->wrap_qual, q,
				       json_object_new_int(lvl));
}

/* Finds the 1:1 I/O wrappers among all the function records. */
static void
note_wrappers(struct opts *o, json_object **fns, size_t n)
{
	json_object *reach = json_object_new_object();
	int more = 1;

	o->wrap_usr = json_object_new_object();
	o->wrap_qual = json_object_new_object();
	for (size_t i = 0; i < n; i++) {
		json_object *r = json_object_object_get(fns[i], "io_reach");

		if (r && json_object_is_type(r, json_type_int))
			json_object_object_add(reach, dft_json_str(fns[i],
				"qualified_name", dft_json_str(fns[i], "name",
							       "")),
				json_object_new_int(json_object_get_int(r)));
	}
	for (size_t i = 0; i < n; i++) {
		struct cost c;

		cost_c(fns[i], &c);
		if (dft_json_bool(fns[i], "io_direct", 0) && c.io == 1 &&
		    wrap_shape(fns[i], &c))
			wrap_note(o, fns[i], 0);
	}
	/* wrappers of wrappers, a level at a time */
	for (int lvl = 1; more && lvl < 8; lvl++) {
		more = 0;
		for (size_t i = 0; i < n; i++) {
			struct cost c;
			const char *k = wrap_key(fns[i]);

			if (json_object_object_get_ex(o->wrap_usr, k, NULL) ||
			    dft_json_int(fns[i], "io_reach", -1) != lvl)
				continue;
			cost_c(fns[i], &c);
			if (c.io != 0 || !wrap_shape(fns[i], &c) ||
			    !wraps_wrapper(o, fns[i], reach))
				continue;
			wrap_note(o, fns[i], lvl);
			more = 1;
		}
	}
	json_object_put(reach);
}

/* ---- the decision ------------------------------------------------------------------ */

struct verdict {
	int annotate;
	const char *rule;
	struct dft_buf reason;
};

/*
 * Rule after-finalize: a function registered with atexit() or the
 * destructor of an object with static storage duration (dft-funcs'
 * after_finalize) runs after FINI, when no event can be written.
 * 1 when it decided (skip).
 */
static int
after_finalize(const struct opts *o, json_object *rec, struct verdict *v)
{
	const char *why = dft_json_str(rec, "after_finalize", NULL);

	if (!why || !rule_on(o, "after-finalize"))
		return 0;
	dft_buf_addf(&v->reason, "runs after finalize: %s",
		     !strcmp(why, "atexit") ? "registered with atexit"
					    : "destructor of a static object");
	v->annotate = 0;
	v->rule = "after-finalize";
	return 1;
}

static void
decide(const struct opts *o, json_object *rec, const struct cost *c,
       struct verdict *v)
{
	const char *name = dft_json_str(rec, "name", "");
	const char *qual = dft_json_str(rec, "qualified_name", name);
	const char *file = dft_json_str(rec, "file", "");
	const char *lang = dft_json_str(rec, "language", "c");
	int py = strcmp(lang, "python") == 0;
	int entry = dft_json_bool(rec, "is_entry", 0);
	int io_direct = dft_json_bool(rec, "io_direct", 0);
	json_object *reach_o = json_object_object_get(rec, "io_reach");
	long reach = reach_o ? json_object_get_int(reach_o) : -1;
	long nmacro = dft_json_int(rec, "returns_in_macro", 0);
	const char *suffix;
	const struct prof *pf;
	long k;
	struct dft_buf *r = &v->reason;
	struct hot hot;
	json_object *wl;

	memset(&hot, 0, sizeof(hot));
	dft_buf_init(&hot.why);

#define SKIP(rl) do { v->annotate = 0; v->rule = rl; return; } while (0)
#define TAKE(rl) do { v->annotate = 1; v->rule = rl; return; } while (0)

	if (!dft_json_bool(rec, "parse_ok", 1)) {
		dft_buf_adds(r, "the file did not parse cleanly; "
			     "it must not be edited");
		SKIP("parse-error");
	}
	if (o->has_inc_file && pat_match(&o->inc_file, file, NULL) < 0) {
		dft_buf_addf(r, "file %s is not in the select file's include list",
			     file);
		SKIP("select");
	}
	if ((k = pat_match(&o->exc_file, file, NULL)) >= 0) {
		dft_buf_addf(r, "file matches excluded pattern '%s'",
			     o->exc_file.v[k]);
		SKIP("select");
	}
	if ((k = pat_match(&o->exc_fn, qual, name)) >= 0) {
		dft_buf_addf(r, "function matches excluded pattern '%s'",
			     o->exc_fn.v[k]);
		SKIP("select");
	}
	if ((k = pat_match(&o->excl, qual, name)) >= 0) {
		dft_buf_addf(r, "excluded by --exclude '%s'", o->excl.v[k]);
		SKIP("exclude");
	}
	if (o->has_inc_fn && pat_match(&o->inc_fn, qual, name) < 0 && !entry) {
		dft_buf_adds(r, "not in the select file's include list");
		SKIP("select");
	}
	if (dft_json_bool(rec, "body_from_macro", 0)) {
		dft_buf_adds(r, "the body comes from a macro expansion; "
			     "it cannot be edited in place");
		SKIP("macro-body");
	}
	if (nmacro > 0 && !py &&
	    (strcmp(lang, "c") == 0 || entry)) {
		dft_buf_addf(r, "%ld return%s spelled inside a macro: END could "
			     "not be placed before %s", nmacro,
			     nmacro == 1 ? "" : "s", nmacro == 1 ? "it" : "them");
		SKIP("macro-return");
	}
	if (!entry && after_finalize(o, rec, v))
		return;
	if (entry) {
		dft_buf_adds(r, py ? "program entry point: always traced "
				     "(initializes and finalizes the tracer)"
				   : "main: always traced (INIT and FINI)");
		TAKE("main");
	}
	if (py && dft_json_bool(rec, "jit", 0)) {
		dft_buf_adds(r, "JIT-compiled (numba, cuda.jit, torch.jit): "
			     "a tracer call would break compilation");
		SKIP("py-jit");
	}
	if (py && strcmp(name, "__len__") == 0 &&
	    dft_json_bool(rec, "is_method", 0)) {
		dft_buf_adds(r, "__len__ is called by the data loader for every "
			     "batch and must stay cheap");
		SKIP("py-dataset-len");
	}
	if (o->has_inc_fn && pat_match(&o->inc_fn, qual, name) >= 0) {
		dft_buf_adds(r, "in the select file's include list");
		TAKE("select");
	}
	if (o->has_profile && (pf = profile_of(o, name, qual)) &&
	    throttled(o, pf)) {
		dft_buf_addf(r, "called %.0f times at %.2f us each in the "
			     "profile (over %.0f calls under %g us)",
			     pf->count, pf->mean_us, o->throttle_calls,
			     o->throttle_us);
		SKIP("profile-throttle");
	}
	if (!py && o->has_profile && rule_on(o, "profile-volume") &&
	    (pf = profile_of(o, name, qual)) && pf->over_budget) {
		if (pf->io_calls > 0)
			dft_buf_addf(r, "called %.0f time%s in the profile "
				     "(%.0f event%s) around %.0f I/O call%s "
				     "(%.6f s), less I/O time than the "
				     "functions kept: over the event budget "
				     "(%g events per I/O event, %.0f I/O "
				     "events%s); its I/O goes to a traced "
				     "caller", pf->count,
				     pf->count == 1 ? "" : "s", pf->events,
				     pf->events == 1 ? "" : "s", pf->io_calls,
				     pf->io_calls == 1 ? "" : "s",
				     pf->io_time_s, o->event_ratio,
				     o->io_events, margin_text(o));
		else
			dft_buf_addf(r, "called %.0f time%s in the profile "
				     "(%.0f event%s), around no I/O call: over "
				     "the event budget (%g events per I/O "
				     "event, %.0f I/O events%s)", pf->count,
				     pf->count == 1 ? "" : "s", pf->events,
				     pf->events == 1 ? "" : "s",
				     o->event_ratio, o->io_events,
				     margin_text(o));
		SKIP("profile-volume");
	}
	if (o->has_oprof &&
	    (pf = entry_of(o->oprof, o->noprof, name, qual)) &&
	    pf->over_overhead) {
		double est = pf->count * o->ov_call_us / 1e6;

		dft_buf_addf(r, "called %.0f time%s in the traced run at an "
			     "estimated %.3g us of tracing each: %.3g ms, %.1f "
			     "points of its %.1f %% overhead, over the %g %% "
			     "budget", pf->count, pf->count == 1 ? "" : "s",
			     o->ov_call_us, est * 1e3,
			     est / o->ov_untraced * 100,
			     (o->ov_traced - o->ov_untraced) / o->ov_untraced
			     * 100, o->ov_budget_pct);
		if (pf->io_calls > 0)
			dft_buf_addf(r, "; its %.0f I/O call%s go%s to a "
				     "traced caller", pf->io_calls,
				     pf->io_calls == 1 ? "" : "s",
				     pf->io_calls == 1 ? "es" : "");
		SKIP("profile-overhead");
	}
	if (!py && (suffix = lifecycle_suffix(name))) {
		dft_buf_addf(r, "lifecycle function: name ends in %s (R6)",
			     suffix);
		TAKE("R6-lifecycle");
	}
	if (!py && vendor_name(name)) {
		dft_buf_adds(r, "vendor file-system function by name (R7)");
		TAKE("R7-vendor-name");
	}
	if (!py && c->vendor > 0) {
		dft_buf_addf(r, "%ld vendor file-system call%s in the body (R7)",
			     c->vendor, c->vendor == 1 ? "" : "s");
		TAKE("R7-vendor-call");
	}
	if (py) {
		int prop = dft_json_bool(rec, "is_property", 0);
		int sig = c->io || c->ckpt || c->comm || c->mpi;
		int ml = strcmp(c->model, "ml") == 0;
		int i;

		if ((prop || dft_in_list(name, dunders)) && !sig &&
		    !io_direct) {
			dft_buf_addf(r, "%s without I/O (rule 0)",
				     prop ? "property" : "trivial dunder");
			SKIP("py-rule0");
		}
		if (ml && (strcmp(name, "__getitem__") == 0 ||
			   strcmp(name, "__iter__") == 0 ||
			   strcmp(name, "__next__") == 0)) {
			dft_buf_addf(r, "%s: data item access", name);
			TAKE("py-data");
		}
		if (ml && c->ckpt) {
			dft_buf_adds(r, "checkpoint call in the body");
			TAKE("py-ckpt");
		}
		if (ml && c->io) {
			dft_buf_addf(r, "%ld I/O call%s in the body", c->io,
				     c->io == 1 ? "" : "s");
			TAKE("py-io");
		}
		if (ml && c->comm) {
			dft_buf_adds(r, "collective or point-to-point "
				     "communication in the body");
			TAKE("py-comm");
		}
		for (i = 0; ml && py_lifecycle[i]; i++)
			if (strstr(name, py_lifecycle[i])) {
				dft_buf_addf(r, "lifecycle name (contains %s)",
					     py_lifecycle[i]);
				TAKE("py-lifecycle");
			}
		if (ml && dft_json_int(rec, "statements", 0) <= 5 &&
		    c->loops == 0 && !c->io && !io_direct) {
			long st = (long)dft_json_int(rec, "statements", 0);

			dft_buf_addf(r, "small: %ld statement%s, no loop, no I/O",
				     st, st == 1 ? "" : "s");
			SKIP("py-small");
		}
	}
	if (!py && rule_on(o, "io-wrapper") && o->wrap_usr &&
	    json_object_object_get_ex(o->wrap_usr, wrap_key(rec), &wl)) {
		json_object *apis = json_object_object_get(rec, "io_apis");

		if (json_object_get_int(wl) == 0)
			dft_buf_addf(r, "1:1 I/O wrapper: its body is one traced "
				     "I/O call (%s)", apis &&
				     json_object_array_length(apis) ?
				     json_object_get_string(
					     json_object_array_get_idx(apis,
								       0)) :
				     "?");
		else
			dft_buf_addf(r, "1:1 I/O wrapper: its body is one call of "
				     "%s, a wrapper of I/O",
				     dft_json_str(rec, "io_via", "?"));
		dft_buf_addf(r, ", no loop, %ld call%s, %ld nodes (< %d): "
			     "tracing it would double each call's cost and "
			     "events and say nothing the I/O record does not; "
			     "its callers are traced instead", c->calls,
			     c->calls == 1 ? "" : "s", c->nodes, WRAP_NODES);
		SKIP("io-wrapper");
	}
	if (io_direct && rule_on(o, "io-direct")) {
		json_object *apis = json_object_object_get(rec, "io_apis");

		dft_buf_addf(r, "calls I/O directly (%s)",
			     apis && json_object_array_length(apis) ?
			     json_object_get_string(
				     json_object_array_get_idx(apis, 0)) : "?");
		if (apis && json_object_array_length(apis) > 1)
			dft_buf_addf(r, " and %zu more",
				     json_object_array_length(apis) - 1);
		TAKE("io-direct");
	}
	/* through a 1:1 I/O wrapper: the wrapper's call is the I/O call */
	if (reach > 0 && !py && rule_on(o, "io-wrapper") && o->wrap_qual &&
	    json_object_object_get_ex(o->wrap_qual,
				      dft_json_str(rec, "io_via", ""), &wl) &&
	    reach - json_object_get_int(wl) > 0 &&
	    reach - json_object_get_int(wl) <= o->reach &&
	    rule_on(o, "io-reach")) {
		long wr = reach - json_object_get_int(wl);

		dft_buf_addf(r, "reaches I/O in %ld call%s through %s, a 1:1 "
			     "I/O wrapper", wr, wr == 1 ? "" : "s",
			     dft_json_str(rec, "io_via", "?"));
		TAKE("io-reach");
	}
	if (reach > 0 && reach <= o->reach && rule_on(o, "io-reach")) {
		dft_buf_addf(r, "reaches I/O in %ld call%s through %s", reach,
			     reach == 1 ? "" : "s",
			     dft_json_str(rec, "io_via", "?"));
		TAKE("io-reach");
	}
	if (!py && rule_on(o, "header-accessor") &&
	    dft_json_bool(rec, "in_header", 0) &&
	    dft_json_bool(rec, "inline", 0) && c->loops == 0 &&
	    dft_json_int(rec, "statements", 0) <= 3 && reach < 0) {
		long st = (long)dft_json_int(rec, "statements", 0);

		dft_buf_addf(r, "inline accessor in a header (%ld statement%s, "
			     "no loop, no I/O)", st, st == 1 ? "" : "s");
		SKIP("header-accessor");
	}
	if (!py && rule_on(o, "tiny-leaf") && c->loops == 0 &&
	    c->calls == 0 && c->nodes < o->leaf_nodes && reach < 0) {
		dft_buf_addf(r, "tiny leaf: no calls, no loop, %ld nodes (< %ld)",
			     c->nodes, o->leaf_nodes);
		SKIP("tiny-leaf");
	}
	/* the lowered score stops at 0, as the reference's scores do, so
	 * -t 0 still annotates everything */
	if (!py && reach < 0 && c->score >= o->threshold &&
	    hot_penalty(o, rec, c, &hot) > 0 &&
	    (c->score > hot.total ? c->score - hot.total : 0) < o->threshold) {
		dft_buf_addf(r, "called often, cheap per call: score %ld - %ld "
			     "= %ld < %ld (", c->score, hot.total,
			     c->score > hot.total ? c->score - hot.total : 0,
			     o->threshold);
		dft_buf_adds(r, hot.why.s);
		dft_buf_adds(r, "; ");
		terms(r, c);
		dft_buf_addc(r, ')');
		dft_buf_release(&hot.why);
		SKIP(hot.rule);
	}
	dft_buf_release(&hot.why);
	if (c->score >= o->threshold) {
		dft_buf_addf(r, "score %ld >= %ld (", c->score, o->threshold);
		terms(r, c);
		dft_buf_addc(r, ')');
		TAKE("score");
	}
	dft_buf_addf(r, "score %ld < %ld (", c->score, o->threshold);
	terms(r, c);
	dft_buf_addc(r, ')');
	SKIP("score");
#undef SKIP
#undef TAKE
}

static const char *
form_of(json_object *rec, int annotate)
{
	const char *lang = dft_json_str(rec, "language", "c");

	if (!annotate)
		return NULL;
	if (dft_json_bool(rec, "is_entry", 0))
		return "main";
	if (strcmp(lang, "python") == 0)
		return dft_json_bool(rec, "is_staticmethod", 0) ||
		       dft_json_bool(rec, "is_classmethod", 0) ||
		       dft_json_bool(rec, "is_property", 0) ? "rebind"
							    : "decorator";
	return strcmp(lang, "cpp") == 0 ? "raii" : "macro";
}

static void
count_rule(json_object *by, const char *rule, int annotate)
{
	json_object *o;

	if (!json_object_object_get_ex(by, rule, &o)) {
		o = json_object_new_object();
		json_object_object_add(o, "annotate", dft_jint(0));
		json_object_object_add(o, "skip", dft_jint(0));
		json_object_object_add(by, rule, o);
	}
	o = json_object_object_get(o, annotate ? "annotate" : "skip");
	json_object_set_int64(o, json_object_get_int64(o) + 1);
}

static void
on_function(const struct opts *o, struct summary *s, json_object *rec)
{
	struct cost c;
	struct verdict v;
	const char *comp, *name = dft_json_str(rec, "name", "");
	const char *qual = dft_json_str(rec, "qualified_name", name);
	json_object *d;
	long k;
	const struct prof *pf;

	if (strcmp(dft_json_str(rec, "language", "c"), "python") == 0)
		cost_py(rec, o, &c);
	else
		cost_c(rec, &c);
	memset(&v, 0, sizeof(v));
	dft_buf_init(&v.reason);
	decide(o, rec, &c, &v);
	comp = derive_comp(&c, rec, o->reference);
	if (dft_json_bool(rec, "is_entry", 0) &&
	    strcmp(dft_json_str(rec, "language", "c"), "python") != 0)
		comp = "cpu";	/* the reference: main is cpu */
	if ((k = pat_match(&o->comp_pat, qual, name)) >= 0)
		comp = o->comp_val[k];
	json_object_object_add(rec, "cost", cost_json(&c, o->threshold));
	d = json_object_new_object();
	json_object_object_add(d, "annotate",
			       json_object_new_boolean(v.annotate));
	json_object_object_add(d, "comp", dft_jstr(comp));
	json_object_object_add(d, "rule", dft_jstr(v.rule));
	json_object_object_add(d, "reason", dft_jstr(v.reason.s));
	json_object_object_add(d, "form", dft_jstr(form_of(rec, v.annotate)));
	json_object_object_add(rec, "decision", d);
	dft_buf_release(&v.reason);

	s->functions++;
	if (v.annotate) {
		json_object *n;

		s->annotate++;
		if (!json_object_object_get_ex(s->by_comp, comp, &n))
			json_object_object_add(s->by_comp, comp, dft_jint(1));
		else
			json_object_set_int64(n, json_object_get_int64(n) + 1);
		if (o->has_profile && (pf = profile_of(o, name, qual)))
			s->est_events += pf->events;
	} else {
		s->skip++;
	}
	count_rule(s->by_rule, v.rule, v.annotate);
}

/* The input, kept until all of it is read: function records parsed, the
 * others as their raw lines (passed through unchanged). */
struct item {
	json_object *fn;
	char *raw;
	size_t len;
};

struct ctx {
	struct opts *o;
	struct summary *s;
	struct item *v;
	size_t n;
};

static int
process(struct dft_reader *r, void *arg)
{
	struct ctx *cx = arg;
	json_object *rec;
	int rc;

	while ((rc = dft_reader_next(r, &rec)) == 1) {
		struct item *it;

		cx->v = dft_xreallocarray(cx->v, cx->n + 1, sizeof(*cx->v));
		it = &cx->v[cx->n++];
		memset(it, 0, sizeof(*it));
		if (strcmp(dft_record_type(rec), "function") == 0) {
			note_loop_calls(cx->o, rec);
			it->fn = rec;
			continue;
		}
		it->raw = dft_xmalloc(r->len + 1);
		memcpy(it->raw, r->buf, r->len);
		it->raw[r->len] = '\0';
		it->len = r->len;
		json_object_put(rec);
	}
	return rc < 0 ? DFT_EXIT_FATAL : DFT_EXIT_OK;
}

static void
emit_all(struct ctx *cx)
{
	json_object **fns = dft_xreallocarray(NULL, cx->n + 1, sizeof(*fns));
	size_t i, nf = 0;

	for (i = 0; i < cx->n; i++)
		if (cx->v[i].fn)
			fns[nf++] = cx->v[i].fn;
	note_wrappers(cx->o, fns, nf);
	free(fns);

	for (i = 0; i < cx->n; i++) {
		struct item *it = &cx->v[i];

		if (it->fn) {
			on_function(cx->o, cx->s, it->fn);
			dft_emit(stdout, it->fn);
			json_object_put(it->fn);
		} else {
			struct dft_reader fake;

			memset(&fake, 0, sizeof(fake));
			fake.buf = it->raw;
			fake.len = it->len;
			dft_pass(stdout, &fake);
			free(it->raw);
		}
	}
	free(cx->v);
}

int
main(int argc, char **argv)
{
	struct opts o;
	struct summary s;
	struct ctx cx;
	struct dft_step step;
	json_object *sum;
	int c, status;
	size_t i;

	dft_init("dft-cost");
	memset(&o, 0, sizeof(o));
	o.threshold = 20;
	o.reach = 1;
	o.leaf_nodes = 100;
	o.py_model = "auto";
	o.event_bytes = 160;
	o.throttle_calls = 100000;
	o.throttle_us = 10;
	o.event_ratio = 1.5;
	o.event_margin = 0.2;
	o.io_early = 25;
	o.ov_budget_pct = 5;
	while ((c = dft_getopt(argc, argv, "t:hV", longopts)) != -1) {
		switch (c) {
		case 't':
			o.threshold = dft_opt_long(usage_text, "--threshold",
						   optarg, 0, 1000000);
			break;
		case OPT_SELECT:
			load_select(&o, optarg);
			break;
		case OPT_COMP: {
			char *eq = strchr(optarg, '=');

			if (!eq || eq == optarg ||
			    (strcmp(eq + 1, "io") && strcmp(eq + 1, "comm") &&
			     strcmp(eq + 1, "mem") && strcmp(eq + 1, "cpu")))
				dft_bad_value(usage_text, "--comp", optarg,
					      "NAME=io|comm|mem|cpu");
			*eq = '\0';
			pat_add(&o.comp_pat, optarg);
			o.comp_val = dft_xreallocarray(o.comp_val,
				o.comp_pat.n, sizeof(char *));
			o.comp_val[o.comp_pat.n - 1] = eq + 1;
			break;
		}
		case OPT_EXCLUDE:
			pat_add(&o.excl, optarg);
			break;
		case OPT_TCALLS:
			o.throttle_calls = (double)dft_opt_long(usage_text,
				"--throttle-calls", optarg, 0, 1000000000000L);
			break;
		case OPT_TUS: {
			char *end;
			double d = strtod(optarg, &end);

			if (end == optarg || *end || !(d >= 0))
				dft_bad_value(usage_text, "--throttle-us",
					      optarg, "a number >= 0");
			o.throttle_us = d;
			break;
		}
		case OPT_RATIO: {
			char *end;
			double d = strtod(optarg, &end);

			if (end == optarg || *end || !(d == 0 || d >= 1) ||
			    d > 1e9)
				dft_bad_value(usage_text, "--event-ratio",
					      optarg, "0 or a number >= 1");
			o.event_ratio = d;
			break;
		}
		case OPT_MARGIN:
			o.event_margin = dft_opt_double(usage_text,
				"--event-margin", optarg, 0, 0.9);
			break;
		case OPT_IOEARLY:
			o.io_early = (double)dft_opt_long(usage_text,
				"--io-early", optarg, 0, 1000000000L);
			break;
		case OPT_PROFILE:
			if (load_profile(&o.prof, &o.nprof, optarg) < 0)
				dft_die("%s: bad profile records", optarg);
			o.has_profile = 1;
			break;
		case OPT_OPROF:
			if (load_profile(&o.oprof, &o.noprof, optarg) < 0)
				dft_die("%s: bad profile records", optarg);
			o.has_oprof = 1;
			break;
		case OPT_OTRACED:
			o.ov_traced = dft_opt_double(usage_text,
				"--overhead-traced", optarg, 0, 1e9);
			break;
		case OPT_OUNTRACED:
			o.ov_untraced = dft_opt_double(usage_text,
				"--overhead-untraced", optarg, 0, 1e9);
			break;
		case OPT_OBUDGET:
			o.ov_budget_pct = dft_opt_double(usage_text,
				"--overhead-budget", optarg, -100, 1e6);
			break;
		case OPT_OCALL:
			o.ov_call_us = dft_opt_double(usage_text,
				"--overhead-call-us", optarg, 0, 1e9);
			break;
		case OPT_NO_RULE: {
			static const char *const known[] = {
				"io-direct", "io-reach", "header-accessor",
				"tiny-leaf", "io-wrapper", "profile-throttle",
				"profile-volume",
				"profile-overhead", "after-finalize", "hot-loop-callee",
				"hot-small-leaf", "hot-inline", "hot-idiom",
				NULL
			};

			if (!dft_in_list(optarg, known))
				dft_bad_value(usage_text, "--no-rule", optarg,
					"io-direct, io-reach, header-accessor, "
					"tiny-leaf, io-wrapper, profile-throttle, "
					"profile-volume, "
					"profile-overhead, after-finalize, "
					"hot-loop-callee, "
					"hot-small-leaf, hot-inline or hot-idiom");
			pat_add(&o.no_rule, optarg);
			break;
		}
		case OPT_REFERENCE:
			o.reference = 1;
			break;
		case OPT_REACH:
			o.reach = dft_opt_long(usage_text, "--io-reach", optarg,
					       0, 1000);
			break;
		case OPT_PYMODEL:
			if (strcmp(optarg, "auto") && strcmp(optarg, "generic") &&
			    strcmp(optarg, "ml"))
				dft_bad_value(usage_text, "--python-model",
					      optarg, "auto, generic or ml");
			o.py_model = optarg;
			break;
		case OPT_UNBUF:
			dft_unbuffered = 1;
			break;
		case 'h':
			return dft_help(usage_text, help_text);
		case 'V':
			return dft_version();
		default:
			dft_option_error(usage_text, c, argv, longopts);
		}
	}
	if (o.has_oprof && !(o.ov_untraced > 0 && o.ov_call_us > 0 &&
			     o.ov_traced > 0))
		dft_usage_error(usage_text, "--overhead-profile needs "
				"--overhead-traced, --overhead-untraced and "
				"--overhead-call-us over 0");
	if (o.has_profile)
		profile_budget(&o);
	if (o.has_oprof)
		overhead_budget(&o);
	dft_step_begin(&step, "cost");
	memset(&s, 0, sizeof(s));
	s.by_rule = json_object_new_object();
	s.by_comp = json_object_new_object();
	cx.o = &o;
	cx.s = &s;
	cx.v = NULL;
	cx.n = 0;
	status = dft_each_input(argc - optind, argv + optind, process, &cx);
	emit_all(&cx);

	sum = json_object_new_object();
	json_object_object_add(sum, "type", dft_jstr("cost_summary"));
	json_object_object_add(sum, "v", dft_jint(1));
	json_object_object_add(sum, "functions", dft_jint(s.functions));
	json_object_object_add(sum, "annotate", dft_jint(s.annotate));
	json_object_object_add(sum, "skip", dft_jint(s.skip));
	json_object_object_add(sum, "by_rule", s.by_rule);
	json_object_object_add(sum, "by_comp", s.by_comp);
	json_object_object_add(sum, "threshold", dft_jint(o.threshold));
	if (o.has_profile) {
		json_object_object_add(sum, "est_events",
				       dft_jint((int64_t)s.est_events));
		json_object_object_add(sum, "est_bytes", dft_jint(
			(int64_t)(s.est_events * o.event_bytes)));
	}
	if (o.has_oprof) {
		json_object *ov = json_object_new_object();
		double u = o.ov_untraced;

		json_object_object_add(ov, "overhead_pct", dft_jdouble(
			round((o.ov_traced - u) / u * 1000) / 10));
		json_object_object_add(ov, "budget_pct",
				       dft_jdouble(o.ov_budget_pct));
		json_object_object_add(ov, "call_cost_us",
				       dft_jdouble(o.ov_call_us));
		json_object_object_add(ov, "functions_pct", dft_jdouble(
			round(o.ov_fn_s / u * 1000) / 10));
		json_object_object_add(ov, "skip", dft_jint(o.ov_skip));
		json_object_object_add(ov, "estimate_pct", dft_jdouble(
			fmax(0, round((o.ov_traced - u - o.ov_saved_s) / u *
				      1000) / 10)));
		json_object_object_add(sum, "overhead", ov);
	}
	if (s.functions > 0)
		dft_emit_put(stdout, sum);
	else
		json_object_put(sum);
	dft_emit_put(stdout, dft_step_end(&step, status == DFT_EXIT_OK ? "ok"
								 : "partial"));
	json_object_put(o.loop_callee);
	for (i = 0; i < o.nprof; i++)
		free(o.prof[i].name);
	free(o.prof);
	for (i = 0; i < o.noprof; i++)
		free(o.oprof[i].name);
	free(o.oprof);
	return dft_worst(status, dft_close_stdout());
}
