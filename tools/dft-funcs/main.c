/*
 * dft-funcs - print one `function` record per function definition.
 *
 * Input: a `session` record on stdin (its source tree is walked with its
 * compile database), or source-file operands parsed with `-p DIR`'s
 * compile_commands.json and/or the flags after `--`.  Operands that are
 * not source files are record streams: every record is passed through.
 * C and C++ are parsed with libclang (cfuncs.c), Python with a tokenizer
 * of our own (pyfuncs.c).  A file compiled several times is parsed with
 * each flag set and each function reported once.  After all files are
 * parsed, I/O reachability is computed over the project's call graph.
 * Output: the passed-through records, `diagnostic` records for parse
 * problems, `function` records, then one `step` record.
 * It does not decide what to annotate (dft-cost) and edits nothing.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <clang-c/Index.h>

#include "funcs.h"
#include "options.h"
#include "progress.h"

struct opts {
	const char *compdb;	/* -p */
	struct dft_prefix_map *maps;	/* --prefix-map */
	size_t nmaps;
	const char *root;	/* -r */
	const char *io_apis;
	int jobs;
	int all_headers;
	int no_python;
	char **extra;		/* after -- */
	int nextra;
};

static const char usage_text[] =
	"usage: dft-funcs [-j N] [-p DIR] [--prefix-map OLD=NEW] [-r DIR] "
	"[--io-apis FILE] [--all-headers] [--no-python] [file ...] "
	"[-- flags ...]\n";

static const struct option longopts[] = {
	{ "jobs", required_argument, NULL, 'j' },
	{ "compile-db", required_argument, NULL, 'p' },
	{ "prefix-map", required_argument, NULL, 'M' },
	{ "root", required_argument, NULL, 'r' },
	{ "io-apis", required_argument, NULL, 'I' },
	{ "all-headers", no_argument, NULL, 'A' },
	{ "no-python", no_argument, NULL, 'P' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 }
};

static const char help_text[] =
	"\n"
	"Finds every function definition with libclang (C, C++) or a\n"
	"Python tokenizer and prints one function record per function.\n"
	"\n"
	"  -j, --jobs N         parse N files at once (default 1)\n"
	"  -p, --compile-db DIR directory of compile_commands.json (or the file)\n"
	"      --prefix-map OLD=NEW\n"
	"                       read the database's files under OLD as under\n"
	"                       NEW (repeatable; the longest OLD wins)\n"
	"  -r, --root DIR       report paths relative to DIR (default: session\n"
	"                       source tree, else the working directory)\n"
	"      --io-apis FILE   I/O API table (default share/dft/io-apis.tsv)\n"
	"      --all-headers    also report functions in headers outside the root\n"
	"      --no-python      do not look for Python files in a session tree\n"
	"  -h, --help           show this help\n"
	"  -V, --version        show the version\n"
	"\n"
	"Operands ending in .c .h .cc .cpp .cxx .hpp .py ... are parsed;\n"
	"other operands (and stdin) are record streams passed through.\n";

/* ---- jobs ---------------------------------------------------------------- */

static struct job *jobs;
static size_t njobs;
static struct fopts fo;
static pthread_mutex_t next_lock = PTHREAD_MUTEX_INITIALIZER;
static size_t next_job;
static struct dft_progress progress;
static size_t done_jobs;

static struct job *
new_job(const char *abs, const char *lang)
{
	struct job *j;

	jobs = dft_xreallocarray(jobs, njobs + 1, sizeof(*jobs));
	j = &jobs[njobs++];
	memset(j, 0, sizeof(*j));
	j->file = dft_xstrdup(abs);
	j->lang = lang;
	return j;
}

/* CMake's compiler checks, if a database recorded them */
static int
is_cmake_probe(const struct dft_compile_cmd *c)
{
	return strstr(c->file, "/CMakeFiles/") ||
	       strstr(c->directory, "/CMakeFiles/") ||
	       strstr(c->file, "/Modules/CMake");
}

/* Default flags for a file no compile database lists. */
static char **
default_args(const char *abs, const struct opts *o, const char **lang)
{
	char **v = dft_xcalloc((size_t)o->nextra + 10, sizeof(char *));
	int n = 0, i, cxx = 0;
	char *dir = dft_xstrdup(abs), *inc;

	*strrchr(dir, '/') = '\0';
	/* C++ by its suffix: every C/C++ suffix but the C ones (.c .h .i),
	 * tested by name, not by position in the list */
	for (i = 0; dft_c_suffixes[i]; i++)
		if (dft_has_suffix(abs, dft_c_suffixes[i]) &&
		    strcmp(dft_c_suffixes[i], ".c") != 0 &&
		    strcmp(dft_c_suffixes[i], ".h") != 0 &&
		    strcmp(dft_c_suffixes[i], ".i") != 0)
			cxx = 1;
	for (i = 0; i < o->nextra; i++) {
		if (strcmp(o->extra[i], "-x") == 0 && i + 1 < o->nextra)
			cxx = strstr(o->extra[i + 1], "++") != NULL;
		v[n++] = dft_xstrdup(o->extra[i]);
	}
	v[n++] = dft_xasprintf("-I%s", dir);
	v[n++] = dft_xasprintf("-I%s", fo.root);
	inc = dft_path_join(fo.root, "include");
	if (dft_is_dir(inc))
		v[n++] = dft_xasprintf("-I%s", inc);
	free(inc);
	if (dft_has_suffix(abs, ".h") && !cxx) {
		v[n++] = dft_xstrdup("-x");
		v[n++] = dft_xstrdup("c-header");
	}
	v[n] = NULL;
	free(dir);
	*lang = cxx ? "cpp" : "c";
	return v;
}

/* Real paths of the database's files, computed when first needed. */
static char **db_real;
static char *no_real = "";

/*
 * 1 when entry i of db names the file abs (absolute, normalized): the
 * same path, or the same file through symbolic links (real is abs's
 * real path, or NULL).
 */
static int
same_file(const struct dft_compdb *db, size_t i, const char *abs,
	  const char *real)
{
	if (strcmp(db->cmds[i].file, abs) == 0)
		return 1;
	if (!real)
		return 0;
	if (!db_real)
		db_real = dft_xcalloc(db->n + 1, sizeof(*db_real));
	if (!db_real[i]) {
		db_real[i] = realpath(db->cmds[i].file, NULL);
		if (!db_real[i])
			db_real[i] = no_real;
	}
	return db_real[i] != no_real && strcmp(db_real[i], real) == 0;
}

/* 1 when some entry of db names the file abs. */
static int
db_lists(const struct dft_compdb *db, const char *abs)
{
	char *real = realpath(abs, NULL);
	size_t i;
	int r = 0;

	for (i = 0; i < db->n && !r; i++)
		r = !is_cmake_probe(&db->cmds[i]) && same_file(db, i, abs, real);
	free(real);
	return r;
}

static void
db_real_release(size_t n)
{
	size_t i;

	for (i = 0; db_real && i < n; i++)
		if (db_real[i] != no_real)
			free(db_real[i]);
	free(db_real);
	db_real = NULL;
}

static int
has_job(const char *abs)
{
	size_t k;

	for (k = 0; k < njobs; k++)
		if (strcmp(jobs[k].file, abs) == 0)
			return 1;
	return 0;
}

/* Adds the jobs for one file: each distinct compile command, or defaults. */
static void
add_file(const char *path, const struct dft_compdb *db, const struct opts *o,
	 int warn_unlisted)
{
	char *abs = dft_path_absolute(path), *real;
	size_t i, k, matched = 0;
	const char *lang;

	if (has_job(abs)) {
		free(abs);	/* a file is added once */
		return;
	}
	if (dft_has_suffix(abs, ".py")) {
		new_job(abs, "python");
		free(abs);
		return;
	}
	real = db ? realpath(abs, NULL) : NULL;
	for (i = 0; db && i < db->n; i++) {
		const struct dft_compile_cmd *c = &db->cmds[i];
		char **args;
		int dup = 0;

		if (!same_file(db, i, abs, real))
			continue;
		/* listed: never parsed with default flags, even when every
		 * entry repeats flags already seen (one file built into
		 * several targets) */
		matched++;
		args = dft_compdb_clang_args(c, &lang);
		if (o->nextra) {
			int n = 0, m;

			while (args[n])
				n++;
			args = dft_xreallocarray(args, (size_t)n + o->nextra + 1,
						 sizeof(char *));
			for (m = 0; m < o->nextra; m++)
				args[n++] = dft_xstrdup(o->extra[m]);
			args[n] = NULL;
		}
		/* identical flag sets are parsed once */
		for (k = 0; k < njobs && !dup; k++) {
			size_t a = 0;

			if (strcmp(jobs[k].file, abs) != 0 || !jobs[k].args)
				continue;
			while (args[a] && jobs[k].args[a] &&
			       strcmp(args[a], jobs[k].args[a]) == 0)
				a++;
			dup = !args[a] && !jobs[k].args[a];
		}
		if (dup) {
			dft_strv_free(args);
			continue;
		}
		new_job(abs, lang)->args = args;
		jobs[njobs - 1].is_main_of_db = 1;
	}
	if (!matched) {
		struct job *j;

		j = new_job(abs, NULL);
		j->args = default_args(abs, o, &j->lang);
		if (db && warn_unlisted)
			job_add_diag(j, &fo, abs, 0, 0, "not-in-compile-db",
				     "warning",
				     "not in the compile database; parsed with default flags");
	}
	free(real);
	free(abs);
}

static void *
worker(void *arg)
{
	CXIndex idx = clang_createIndex(0, 0);

	(void)arg;
	for (;;) {
		size_t i;
		struct job *j;

		pthread_mutex_lock(&next_lock);
		i = next_job++;
		pthread_mutex_unlock(&next_lock);
		if (i >= njobs)
			break;
		j = &jobs[i];
		if (access(j->file, R_OK) != 0) {
			char *msg = dft_xasprintf("cannot open '%s': %s",
						  j->file, strerror(errno));

			j->failed = 1;
			job_add_diag(j, &fo, j->file, 0, 0, "parse-failed",
				     "error", msg);
			free(msg);
		} else if (strcmp(j->lang, "python") == 0) {
			py_extract(j, &fo);
		} else {
			c_extract(j, &fo, idx);
		}
		pthread_mutex_lock(&next_lock);
		dft_progress_update(&progress, ++done_jobs);
		pthread_mutex_unlock(&next_lock);
	}
	clang_disposeIndex(idx);
	return NULL;
}

static void
run_jobs(int nthreads)
{
	pthread_t *th;
	int i;

	if (nthreads < 1)
		nthreads = 1;
	if ((size_t)nthreads > njobs)
		nthreads = njobs ? (int)njobs : 1;
	dft_progress_init(&progress, "dft-funcs", njobs);
	if (nthreads == 1) {
		worker(NULL);
	} else {
		th = dft_xcalloc((size_t)nthreads, sizeof(*th));
		for (i = 0; i < nthreads; i++)
			if (pthread_create(&th[i], NULL, worker, NULL) != 0)
				dft_die("cannot start a thread:");
		for (i = 0; i < nthreads; i++)
			pthread_join(th[i], NULL);
		free(th);
	}
	dft_progress_done(&progress);
}

/* ---- merging and the call graph ---------------------------------------------- */

static struct fn **all;
static size_t nall;

static int
json_int(json_object *o, const char *k)
{
	return (int)dft_json_int(o, k, 0);
}

static int
cmp_exit(const void *a, const void *b)
{
	int64_t x = dft_json_int(*(json_object *const *)a, "offset", 0);
	int64_t y = dft_json_int(*(json_object *const *)b, "offset", 0);

	return x < y ? -1 : x > y;
}

/* Folds b (same function, another flag set) into a. */
static void
merge_fn(struct fn *a, struct fn *b)
{
	json_object *ra = a->rec, *rb = b->rec, *ea, *eb, *ca, *cb;
	static const char *const maxed[] = {
		"call_count", "loops", "branches", "statements", "nodes",
		"gotos", "labels", "returns_in_macro", NULL
	};
	size_t i, k;
	int resort = 0;

	json_object_object_add(ra, "variants",
			       dft_jint(json_int(ra, "variants") + 1));
	if (!dft_json_bool(rb, "parse_ok", 1))
		json_object_object_add(ra, "parse_ok",
				       json_object_new_boolean(0));
	for (i = 0; maxed[i]; i++)
		if (json_int(rb, maxed[i]) > json_int(ra, maxed[i]))
			json_object_object_add(ra, maxed[i],
				dft_jint(json_int(rb, maxed[i])));
	/* exits: union by offset, kept in source order */
	ea = json_object_object_get(ra, "exits");
	eb = json_object_object_get(rb, "exits");
	for (i = 0; eb && i < json_object_array_length(eb); i++) {
		json_object *x = json_object_array_get_idx(eb, i);
		int64_t off = dft_json_int(x, "offset", -1);
		int have = 0;
		size_t at = json_object_array_length(ea);

		for (k = 0; k < json_object_array_length(ea); k++) {
			int64_t o2 = dft_json_int(
				json_object_array_get_idx(ea, k), "offset", -1);

			if (o2 == off &&
			    strcmp(dft_json_str(json_object_array_get_idx(ea, k),
						"kind", ""),
				   dft_json_str(x, "kind", "")) == 0)
				have = 1;
			if (o2 > off && at == json_object_array_length(ea))
				at = k;
		}
		if (!have) {
			json_object_array_add(ea, json_object_get(x));
			resort = 1;
		}
		(void)at;
	}
	if (resort)
		json_object_array_sort(ea, cmp_exit);
	/* calls, calls_in_loops: max count per callee */
	for (k = 0; k < 2; k++) {
		const char *key = k ? "calls_in_loops" : "calls";

		ca = json_object_object_get(ra, key);
		cb = json_object_object_get(rb, key);
		if (!ca || !cb)
			continue;
		json_object_object_foreach(cb, name, cnt) {
			json_object *have;

			if (!json_object_object_get_ex(ca, name, &have))
				json_object_object_add(ca, name,
						       json_object_get(cnt));
			else if (json_object_get_int(cnt) >
				 json_object_get_int(have))
				json_object_set_int(have,
						    json_object_get_int(cnt));
		}
	}
	ca = json_object_object_get(ra, "io_apis");
	cb = json_object_object_get(rb, "io_apis");
	for (i = 0; ca && cb && i < json_object_array_length(cb); i++) {
		const char *s = json_object_get_string(
			json_object_array_get_idx(cb, i));
		int have = 0;

		for (k = 0; k < json_object_array_length(ca) && !have; k++)
			have = strcmp(s, json_object_get_string(
				json_object_array_get_idx(ca, k))) == 0;
		if (!have)
			json_object_array_add(ca, dft_jstr(s));
	}
	if (b->io_direct && !a->io_direct) {
		a->io_direct = 1;
		json_object_object_add(ra, "io_direct",
				       json_object_new_boolean(1));
	}
	for (i = 0; i < b->ncallees; i++)
		fn_add_callee(a, b->callees[i]);
}

static void
free_fn(struct fn *f)
{
	size_t i;

	json_object_put(f->rec);
	free(f->key);
	free(f->usr);
	free(f->name);
	for (i = 0; i < f->ncallees; i++)
		free(f->callees[i]);
	free(f->callees);
}

/* Hash table from key to index into all[]. */
struct slot {
	const char *key;
	size_t idx;
};

static size_t
hstr(const char *s)
{
	return (size_t)dft_fnv1a64(s, strlen(s));
}

static struct slot *
tab_new(size_t n, size_t *cap)
{
	*cap = 16;
	while (*cap < n * 2 + 1)
		*cap *= 2;
	return dft_xcalloc(*cap, sizeof(struct slot));
}

static struct slot *
tab_find(struct slot *t, size_t cap, const char *key)
{
	size_t h = hstr(key) & (cap - 1);

	while (t[h].key && strcmp(t[h].key, key) != 0)
		h = (h + 1) & (cap - 1);
	return &t[h];
}

static void
merge_all(void)
{
	size_t i, k, cap, total = 0;
	struct slot *t;

	for (i = 0; i < njobs; i++)
		total += jobs[i].nfns;
	t = tab_new(total, &cap);
	all = dft_xcalloc(total + 1, sizeof(*all));
	for (i = 0; i < njobs; i++) {
		for (k = 0; k < jobs[i].nfns; k++) {
			struct fn *f = &jobs[i].fns[k];
			struct slot *s = tab_find(t, cap, f->key);

			if (s->key) {
				merge_fn(all[s->idx], f);
				free_fn(f);
				f->rec = NULL;
				continue;
			}
			s->key = f->key;
			s->idx = nall;
			all[nall++] = f;
		}
	}
	free(t);
}

static int
cmp_pyname(const void *a, const void *b)
{
	return strcmp(all[*(const size_t *)a]->name,
		      all[*(const size_t *)b]->name);
}

static void
add_caller(size_t **callers, size_t *ncallers, size_t callee, size_t caller)
{
	if (ncallers[callee] && callers[callee][ncallers[callee] - 1] == caller)
		return;
	callers[callee] = dft_xreallocarray(callers[callee],
					    ncallers[callee] + 1, sizeof(size_t));
	callers[callee][ncallers[callee]++] = caller;
}

/*
 * after_finalize of the C and C++ functions some file registers with
 * atexit() or whose class has an object of static storage duration (the
 * registration and the definition may be in different files).
 */
static void
after_finalize(void)
{
	size_t i, k, m, cap;
	struct slot *byid = tab_new(nall * 2, &cap);

	for (i = 0; i < nall; i++) {
		struct slot *s;

		if (all[i]->is_python)
			continue;
		s = tab_find(byid, cap, all[i]->usr);
		if (!s->key) {
			s->key = all[i]->usr;
			s->idx = i;
		}
	}
	for (k = 0; k < njobs; k++) {
		for (m = 0; m < jobs[k].nafter; m++) {
			struct slot *s = tab_find(byid, cap,
						  jobs[k].after_usr[m]);

			/* several definitions may share a USR (static
			 * functions of different files): all of them */
			for (i = s->key ? s->idx : nall; i < nall; i++)
				if (!all[i]->is_python &&
				    strcmp(all[i]->usr,
					   jobs[k].after_usr[m]) == 0)
					json_object_object_add(
						all[i]->rec, "after_finalize",
						dft_jstr(jobs[k].after_why[m]));
			free(jobs[k].after_usr[m]);
		}
		free(jobs[k].after_usr);
		free((void *)jobs[k].after_why);
		jobs[k].after_usr = NULL;
		jobs[k].after_why = NULL;
		jobs[k].nafter = 0;
	}
	free(byid);
}

/* Multi-source BFS from io_direct functions over reversed call edges. */
static void
io_reach(void)
{
	size_t i, k, cap, *queue, qh = 0, qt = 0, *pyidx, npy = 0;
	struct slot *byid;
	size_t **callers, *ncallers;

	byid = tab_new(nall * 2, &cap);
	/* C functions by USR; Python ones by name (several may share it) */
	for (i = 0; i < nall; i++) {
		struct slot *s = tab_find(byid, cap, all[i]->usr);

		all[i]->dist = -1;
		all[i]->via = -1;
		if (!s->key) {
			s->key = all[i]->usr;
			s->idx = i;
		}
	}
	callers = dft_xcalloc(nall + 1, sizeof(*callers));
	ncallers = dft_xcalloc(nall + 1, sizeof(*ncallers));
	/* Python functions sorted by name, for calls by name */
	pyidx = dft_xcalloc(nall + 1, sizeof(*pyidx));
	for (i = 0; i < nall; i++)
		if (all[i]->is_python)
			pyidx[npy++] = i;
	qsort(pyidx, npy, sizeof(*pyidx), cmp_pyname);
	for (i = 0; i < nall; i++) {
		for (k = 0; k < all[i]->ncallees; k++) {
			const char *callee = all[i]->callees[k];
			size_t lo = 0, hi = npy, m;
			struct slot *s;

			if (!all[i]->is_python) {
				s = tab_find(byid, cap, callee);
				if (s->key)
					add_caller(callers, ncallers, s->idx, i);
				continue;
			}
			while (lo < hi) {	/* first name >= callee */
				m = (lo + hi) / 2;
				if (strcmp(all[pyidx[m]]->name, callee) < 0)
					lo = m + 1;
				else
					hi = m;
			}
			/* by name: functions of the same file, and module-level
			 * functions of other files (a method name says too
			 * little about its class) */
			for (m = lo; m < npy &&
			     strcmp(all[pyidx[m]]->name, callee) == 0; m++) {
				json_object *g = all[pyidx[m]]->rec;

				if (strcmp(dft_json_str(g, "file", ""),
					   dft_json_str(all[i]->rec, "file", "")) &&
				    dft_json_bool(g, "is_method", 0))
					continue;
				add_caller(callers, ncallers, pyidx[m], i);
			}
		}
	}
	free(pyidx);
	queue = dft_xcalloc(nall + 1, sizeof(*queue));
	for (i = 0; i < nall; i++)
		if (all[i]->io_direct) {
			all[i]->dist = 0;
			queue[qt++] = i;
		}
	while (qh < qt) {
		size_t g = queue[qh++];

		for (k = 0; k < ncallers[g]; k++) {
			size_t f = callers[g][k];

			if (all[f]->dist >= 0)
				continue;
			all[f]->dist = all[g]->dist + 1;
			all[f]->via = (long)g;
			queue[qt++] = f;
		}
	}
	for (i = 0; i < nall; i++) {
		json_object *r = all[i]->rec;

		if (all[i]->dist >= 0)
			json_object_object_add(r, "io_reach",
					       dft_jint(all[i]->dist));
		if (all[i]->via >= 0)
			json_object_object_add(r, "io_via", dft_jstr(
				dft_json_str(all[all[i]->via]->rec,
					     "qualified_name", "")));
		free(callers[i]);
	}
	free(callers);
	free(ncallers);
	free(queue);
	free(byid);
}

/* ---- input: session records and record streams ---------------------------------- */

struct input {
	const struct opts *o;
	char *session_source;
	char *session_db;
};

static int
on_stream(struct dft_reader *r, void *ctx)
{
	struct input *in = ctx;
	json_object *rec;
	int rc;

	while ((rc = dft_reader_next(r, &rec)) == 1) {
		if (strcmp(dft_record_type(rec), "session") == 0 &&
		    !in->session_source) {
			const char *src = dft_json_str(rec, "source", NULL);
			const char *db;
			json_object *p = dft_json_path(rec, "paths.source");

			if (p && json_object_is_type(p, json_type_string))
				src = json_object_get_string(p);
			if (!src) {
				p = dft_json_path(rec, "paths.baseline_source");
				if (p && json_object_is_type(p, json_type_string))
					src = json_object_get_string(p);
			}
			db = dft_json_str(rec, "compile_db", NULL);
			p = dft_json_path(rec, "paths.compile_db");
			if (p && json_object_is_type(p, json_type_string))
				db = json_object_get_string(p);
			if (src)
				in->session_source = dft_path_absolute(src);
			if (db)
				in->session_db = dft_path_absolute(db);
			if (!src)
				dft_warn_at(r->name, r->line,
					    "session record has no source path");
			else if (!db) {
				const char *ws = dft_json_str(rec, "workspace",
							      NULL);
				const char *cands[] = {
					"baseline/compile_commands.json",
					"build/compile_commands.json",
					"baseline/build/compile_commands.json",
					NULL
				};
				int i;

				for (i = 0; ws && cands[i] && !in->session_db;
				     i++) {
					char *c = dft_path_join(ws, cands[i]);

					if (dft_exists(c))
						in->session_db = c;
					else
						free(c);
				}
				if (!in->session_db) {
					char *c = dft_path_join(
						in->session_source,
						"compile_commands.json");

					if (dft_exists(c))
						in->session_db = c;
					else
						free(c);
				}
			}
		}
		dft_pass(stdout, r);
		json_object_put(rec);
	}
	return rc < 0 ? DFT_EXIT_FATAL : DFT_EXIT_OK;
}

static int
skip_dir(const char *name)
{
	static const char *const skip[] = {
		".git", "__pycache__", "CMakeFiles", "node_modules", ".tox",
		".venv", "venv", "build", "_build", ".eggs", NULL
	};
	int i;

	for (i = 0; skip[i]; i++)
		if (strcmp(name, skip[i]) == 0)
			return 1;
	return 0;
}

/* Collects source files below dir, sorted. */
static void
walk_tree(const char *dir, int c_too, int py, char ***out, size_t *n)
{
	struct dirent **ents;
	int k, m = scandir(dir, &ents, NULL, alphasort);

	for (k = 0; k < m; k++) {
		const char *nm = ents[k]->d_name;
		char *p;
		struct stat st;

		if (nm[0] == '.' && (nm[1] == '\0' || nm[1] == '.' ||
				     strcmp(nm, ".git") == 0)) {
			free(ents[k]);
			continue;
		}
		p = dft_path_join(dir, nm);
		if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
			if (!skip_dir(nm))
				walk_tree(p, c_too, py, out, n);
		} else if (S_ISREG(st.st_mode) &&
			   ((py && dft_has_suffix(nm, ".py")) ||
			    (c_too && dft_is_c_source(nm) &&
			     !dft_has_suffix(nm, ".h") &&
			     !dft_has_suffix(nm, ".hpp") &&
			     !dft_has_suffix(nm, ".hh") &&
			     !dft_has_suffix(nm, ".hxx") &&
			     !dft_has_suffix(nm, ".H") &&
			     !dft_has_suffix(nm, ".i") &&
			     !dft_has_suffix(nm, ".ii")))) {
			*out = dft_xreallocarray(*out, *n + 1, sizeof(char *));
			(*out)[(*n)++] = p;
			p = NULL;
		}
		free(p);
		free(ents[k]);
	}
	free(ents);
}

/* ---- output ------------------------------------------------------------------- */

static int
cmp_fn(const void *a, const void *b)
{
	const struct fn *x = *(struct fn *const *)a, *y = *(struct fn *const *)b;
	int c = strcmp(dft_json_str(x->rec, "file", ""),
		       dft_json_str(y->rec, "file", ""));
	int64_t ox, oy;

	if (c)
		return c;
	ox = dft_json_int(dft_json_path(x->rec, "signature"), "offset", 0);
	oy = dft_json_int(dft_json_path(y->rec, "signature"), "offset", 0);
	if (ox != oy)
		return ox < oy ? -1 : 1;
	return strcmp(x->key, y->key);
}

int
main(int argc, char **argv)
{
	struct opts o;
	struct dft_compdb db;
	int have_db = 0, c, status = DFT_EXIT_OK, i, nsrc = 0, nstream = 0;
	char **streams, *iopath, *root_abs = NULL;
	struct input in;
	struct dft_step step;
	size_t k, nerr_files = 0, nfailed = 0, ndiag = 0;
	json_object *st;

	dft_init("dft-funcs");
	memset(&o, 0, sizeof(o));
	o.jobs = 1;
	/* compiler flags follow "--"; getopt must not see them */
	for (i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0) {
			o.extra = &argv[i + 1];
			o.nextra = argc - i - 1;
			argv[i] = NULL;
			argc = i;
			break;
		}
	while ((c = dft_getopt(argc, argv, "j:p:r:hV", longopts)) != -1) {
		switch (c) {
		case 'j':
			o.jobs = (int)dft_opt_long(usage_text, "--jobs", optarg,
						   1, 256);
			break;
		case 'p':
			o.compdb = optarg;
			break;
		case 'M':
			if (dft_prefix_maps_add(&o.maps, &o.nmaps, optarg) < 0)
				dft_bad_value(usage_text, "--prefix-map", optarg,
					      "OLD=NEW");
			break;
		case 'r':
			o.root = optarg;
			break;
		case 'I':
			o.io_apis = optarg;
			break;
		case 'A':
			o.all_headers = 1;
			break;
		case 'P':
			o.no_python = 1;
			break;
		case 'h':
			return dft_help(usage_text, help_text);
		case 'V':
			return dft_version();
		default:
			dft_option_error(usage_text, c, argv, longopts);
		}
	}
	streams = dft_xcalloc((size_t)argc + 1, sizeof(char *));
	for (i = optind; i < argc; i++) {
		if (dft_is_source(argv[i]))
			nsrc++;
		else
			streams[nstream++] = argv[i];
	}
	if (o.compdb && !dft_exists(o.compdb))
		dft_bad_value(usage_text, "--compile-db", o.compdb,
			      "compile_commands.json or its directory");

	dft_step_begin(&step, "funcs");
	iopath = o.io_apis ? dft_xstrdup(o.io_apis)
			   : dft_share_path("io-apis.tsv");
	if (!iopath || io_apis_load(iopath) < 0)
		dft_die("cannot read the I/O API table '%s':",
			iopath ? iopath : "share/dft/io-apis.tsv");
	free(iopath);

	/* records first: a session record names the tree to walk */
	memset(&in, 0, sizeof(in));
	in.o = &o;
	/* with -p and no operand, a session may still come on stdin */
	if (nstream > 0 || (nsrc == 0 && (!o.compdb || !isatty(0))))
		status = dft_each_input(nstream, streams, on_stream, &in);

	if (o.root)
		root_abs = dft_path_absolute(o.root);
	else if (in.session_source)
		root_abs = dft_xstrdup(in.session_source);
	else {
		root_abs = dft_path_absolute(".");
	}
	fo.root = root_abs;
	fo.jobs = o.jobs;
	fo.all_headers = o.all_headers;

	dft_compdb_init(&db);
	if (o.compdb || in.session_db) {
		const char *p = o.compdb ? o.compdb : in.session_db;

		if (dft_compdb_open(&db, p, NULL) < 0)
			return DFT_EXIT_FATAL;
		have_db = 1;
	}
	dft_compdb_map(&db, o.maps, o.nmaps);
	if (nsrc > 0) {
		for (i = optind; i < argc; i++) {
			if (dft_is_source(argv[i]))
				add_file(argv[i], have_db ? &db : NULL, &o, 1);
		}
	} else if (in.session_source) {
		char **files = NULL;
		size_t nf = 0;

		if (have_db) {
			for (k = 0; k < db.n; k++)
				if (!is_cmake_probe(&db.cmds[k]) &&
				    dft_path_is_inside(in.session_source,
						       db.cmds[k].file))
					add_file(db.cmds[k].file, &db, &o, 0);
		}
		/* the tree's files: with a database, only those it lists
		 * under another name (symbolic links) are parsed, with its
		 * flags; Python files need none */
		walk_tree(in.session_source, 1, !o.no_python, &files, &nf);
		for (k = 0; k < nf; k++) {
			if (has_job(files[k]))
				;	/* listed under this path: added above */
			else if (dft_has_suffix(files[k], ".py") || !have_db)
				add_file(files[k], NULL, &o, 0);
			else if (db_lists(&db, files[k]))
				add_file(files[k], &db, &o, 0);
			free(files[k]);
		}
		free(files);
	} else if (have_db) {
		for (k = 0; k < db.n; k++) {
			size_t m;
			int listed = 0;

			if (is_cmake_probe(&db.cmds[k]))
				continue;
			for (m = 0; m < njobs && !listed; m++)
				listed = strcmp(jobs[m].file,
						db.cmds[k].file) == 0;
			if (!listed)
				add_file(db.cmds[k].file, &db, &o, 0);
		}
	}

	run_jobs(o.jobs);
	merge_all();
	after_finalize();
	io_reach();
	qsort(all, nall, sizeof(*all), cmp_fn);

	/* diagnostics (deduplicated), then functions */
	{
		char **seen = NULL;
		size_t nseen = 0;

		for (k = 0; k < njobs; k++) {
			size_t m, q;

			if (jobs[k].failed)
				nfailed++;
			if (jobs[k].errors)
				nerr_files++;
			for (m = 0; m < jobs[k].ndiags; m++) {
				json_object *d = jobs[k].diags[m];
				const char *s = json_object_to_json_string_ext(
					d, JSON_C_TO_STRING_PLAIN);
				int dup = 0;

				for (q = 0; q < nseen && !dup; q++)
					dup = strcmp(seen[q], s) == 0;
				if (!dup) {
					seen = dft_xreallocarray(seen, nseen + 1,
								 sizeof(char *));
					seen[nseen++] = dft_xstrdup(s);
					dft_emit(stdout, d);
					ndiag++;
					if (strcmp(dft_json_str(d, "severity", ""),
						   "error") == 0)
						dft_warn("%s:%d:%d: %s",
							 dft_json_str(d, "file", ""),
							 (int)dft_json_int(d, "line", 0),
							 (int)dft_json_int(d, "col", 0),
							 dft_json_str(d, "message", ""));
				}
				json_object_put(d);
			}
			free(jobs[k].diags);
		}
		for (k = 0; k < nseen; k++)
			free(seen[k]);
		free(seen);
	}
	for (k = 0; k < nall; k++)
		dft_emit(stdout, all[k]->rec);
	if (nfailed || nerr_files)
		status = dft_worst(status, DFT_EXIT_DATA);
	st = dft_step_end(&step, status == DFT_EXIT_OK ? "ok" : "partial");
	json_object_object_add(st, "files", dft_jint((int64_t)njobs));
	json_object_object_add(st, "functions", dft_jint((int64_t)nall));
	json_object_object_add(st, "files_with_errors",
			       dft_jint((int64_t)nerr_files));
	json_object_object_add(st, "files_failed", dft_jint((int64_t)nfailed));
	dft_emit_put(stdout, st);

	for (k = 0; k < nall; k++)
		free_fn(all[k]);
	free(all);
	for (k = 0; k < njobs; k++) {
		free(jobs[k].file);
		dft_strv_free(jobs[k].args);
		free(jobs[k].fns);
	}
	free(jobs);
	db_real_release(db.n);
	dft_compdb_release(&db);
	dft_prefix_maps_free(o.maps, o.nmaps);
	free(streams);
	free(in.session_source);
	free(in.session_db);
	free(root_abs);
	(void)ndiag;
	return dft_worst(status, dft_close_stdout());
}
