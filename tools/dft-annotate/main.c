/*
 * dft-annotate - insert dftracer instrumentation into the source files
 * named by function records, without changing what the program does.
 *
 * Input: NDJSON; `session' records say where the annotated tree and the
 * artifacts are, `function' records (with dft-cost's `decision') say which
 * functions to instrument and where their bodies and exits are.  Every
 * record is copied to stdout unchanged; at the end one `annotation' record
 * per file and a `step' record follow.
 *
 * It does: C/C++ START/UPDATE/END, INIT/FINI in main around MPI, RAII in
 * C++, Python decorators, --strip back to the original bytes, atomic
 * writes, a unified diff of everything in artifacts/annotation.patch.
 * It does not: parse the sources itself (the records carry the syntax
 * tree positions; a small lexer checks them), edit headers, or touch a
 * file that changed since its records were made or did not parse.
 *
 * --rewrite KINDS is the other mode: the optimization loop's application
 * changes (rewrite.c), in the functions that `bottleneck' records name,
 * parsed with libclang; one `rewrite' record per file.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "annotate.h"
#include "compdb.h"
#include "options.h"

static const char usage_text[] =
	"usage: dft-annotate [-dhisV] [-o dir] [-p file] [--init-args args]\n"
	"                    [--style generic|ai] [file ...]\n"
	"       dft-annotate --rewrite KINDS [-di] [-o dir] [-p file] [--root dir]\n"
	"                    [--compile-db file] [--prefix-map old=new] [file ...]\n";

static const char help_text[] =
	"\n"
	"Instruments, with dftracer macros and decorators, the functions that\n"
	"dft-cost's decision records mark, in the files the function records\n"
	"name. Records pass through; one annotation record per file and a\n"
	"step record follow. By default the edited files go to the annotated\n"
	"tree of the session record's workspace, with a patch in artifacts/.\n"
	"\n"
	"  -d, --diff            print a unified diff instead, write nothing\n"
	"  -i, --in-place        edit the files where the records say they are\n"
	"  -o, --output DIR      write each edited file under DIR\n"
	"  -p, --patch FILE      also write the diff of every change to FILE\n"
	"  -s, --strip           remove what dft-annotate inserted\n"
	"      --init-args ARGS  the arguments of INIT (default "
	"\"NULL, NULL, NULL\")\n"
	"      --style STYLE     Python style: generic or ai (default: ai for\n"
	"                        the dlio preset, else generic)\n"
	"  -h, --help            show this help\n"
	"  -V, --version         show the version\n"
	"\n"
	"--diff, --in-place and --output exclude each other.\n"
	"\n"
	"With --rewrite, makes the optimization loop's application changes\n"
	"instead, in the functions that bottleneck records name; one rewrite\n"
	"record per file:\n"
	"      --rewrite KINDS   setvbuf[=SIZE], fadvise[=ADVICE], fdatasync,\n"
	"                        sync-last (comma-separated)\n"
	"      --root DIR        the directory the records' files are under\n"
	"      --compile-db FILE the compile_commands.json to parse them with\n"
	"      --prefix-map OLD=NEW  the database's paths under OLD are under NEW\n";

struct opts {
	int in_place;
	int diff;
	int strip;
	const char *output;
	const char *patch;
	const char *init_args;
	const char *style;
	const char *rewrite;	/* --rewrite KINDS */
	struct rw_opts rw;
	const char *root;	/* --root */
	const char *compdb;	/* --compile-db */
	struct dft_prefix_map *maps;
	size_t nmaps;
};

struct job {
	char *file;
	char *root;
	char *lang;
	json_object *funcs;	/* array, owned */
	int parse_bad;
	char *hash;
	long size;
};

struct state {
	struct opts *o;
	json_object *session;	/* owned, last one seen */
	struct job *jobs;
	size_t njobs, cap;
	json_object *index;	/* "root\nfile" -> job index */
	struct dft_buf patch;
	int status;
	long files_written, refused;
};

static struct job *
job_get(struct state *st, const char *root, const char *file)
{
	char *key = dft_xasprintf("%s\n%s", root ? root : "", file);
	json_object *v;
	struct job *j;

	if (json_object_object_get_ex(st->index, key, &v)) {
		free(key);
		return &st->jobs[json_object_get_int(v)];
	}
	if (st->njobs == st->cap) {
		st->cap = st->cap ? st->cap * 2 : 64;
		st->jobs = dft_xreallocarray(st->jobs, st->cap,
					     sizeof(*st->jobs));
	}
	j = &st->jobs[st->njobs];
	memset(j, 0, sizeof(*j));
	j->file = dft_xstrdup(file);
	j->root = root ? dft_xstrdup(root) : NULL;
	j->funcs = json_object_new_array();
	j->size = -1;
	json_object_object_add(st->index, key, dft_jint((int64_t)st->njobs));
	st->njobs++;
	free(key);
	return j;
}

/* --rewrite: the application functions of a bottleneck record, by file. */
static void
rewrite_targets(struct state *st, json_object *rec)
{
	json_object *fns = dft_json_path(rec, "functions");
	size_t i, k;

	for (i = 0; fns && i < json_object_array_length(fns); i++) {
		json_object *f = json_object_array_get_idx(fns, i);
		const char *file = dft_json_str(f, "file", NULL);
		const char *name = dft_json_str(f, "name", NULL);
		json_object *t;
		struct job *j;
		int dup = 0;

		if (!file || !*file || !name || !*name)
			continue;
		j = job_get(st, NULL, file);
		for (k = 0; k < json_object_array_length(j->funcs) && !dup; k++)
			dup = !strcmp(dft_json_str(json_object_array_get_idx(
						   j->funcs, k), "name", ""),
				      name);
		if (dup)
			continue;
		t = json_object_new_object();
		json_object_object_add(t, "name", dft_jstr(name));
		json_object_object_add(t, "line",
				       dft_jint(dft_json_int(f, "line", 0)));
		json_object_array_add(j->funcs, t);
	}
}

static int
on_input(struct dft_reader *r, void *ctx)
{
	struct state *st = ctx;
	json_object *rec;
	int rc;

	while ((rc = dft_reader_next(r, &rec)) == 1) {
		const char *type = dft_record_type(rec);

		if (!st->o->diff)
			dft_pass(stdout, r);
		if (!strcmp(type, "session")) {
			if (st->session)
				json_object_put(st->session);
			st->session = rec;
			continue;
		}
		if (st->o->rewrite) {
			if (!strcmp(type, "bottleneck"))
				rewrite_targets(st, rec);
			json_object_put(rec);
			continue;
		}
		if (!strcmp(type, "function") ||
		    (st->o->strip && !strcmp(type, "annotation"))) {
			const char *file = dft_json_str(rec, "file", NULL);
			struct job *j;

			if (!file || !*file) {
				dft_warn_at(r->name, r->line,
					    "%s record without \"file\"",
					    type);
				st->status = dft_worst(st->status,
						       DFT_EXIT_DATA);
				json_object_put(rec);
				continue;
			}
			j = job_get(st, dft_json_str(rec, "root", NULL), file);
			if (!j->lang && dft_json_str(rec, "language", NULL))
				j->lang = dft_xstrdup(dft_json_str(
					rec, "language", NULL));
			if (!strcmp(type, "function")) {
				if (!dft_json_bool(rec, "parse_ok", 1))
					j->parse_bad = 1;
				if (!j->hash && dft_json_str(rec, "file_hash",
							     NULL)) {
					j->hash = dft_xstrdup(dft_json_str(
						rec, "file_hash", NULL));
					j->size = (long)dft_json_int(
						rec, "file_size", -1);
				}
				json_object_array_add(j->funcs, rec);
				continue;
			}
		}
		json_object_put(rec);
	}
	return rc < 0 ? DFT_EXIT_FATAL : DFT_EXIT_OK;
}

static const char *
lang_of(const struct job *j)
{
	const char *f = j->file;

	if (j->lang)
		return j->lang;
	if (dft_has_suffix(f, ".py"))
		return "python";
	if (dft_has_suffix(f, ".c"))
		return "c";
	return "cpp";
}

/* The file the records name; NULL when ".." leads out of its root. */
static char *
src_path(const struct job *j)
{
	if (j->file[0] == '/' || !j->root)
		return dft_path_normalize(j->file);
	return dft_path_under(j->root, j->file);
}

static const char outside_root[] = "the file is outside the source root";

/*
 * Where the result goes (NULL with --diff, or with *why); caller frees.
 * *tree is the directory no write may leave (caller frees).
 */
static char *
dst_path(struct state *st, const struct job *j, const char **why,
	 char **tree)
{
	const char *ann;
	char *p;

	*tree = NULL;
	if (st->o->diff)
		return NULL;
	if (st->o->in_place) {
		p = src_path(j);
		if (!p) {
			*why = outside_root;
			return NULL;
		}
		if (j->root && dft_path_is_inside(j->root, p)) {
			*tree = dft_xstrdup(j->root);
		} else {
			char *sl;

			*tree = dft_path_absolute(p);
			sl = strrchr(*tree, '/');
			sl[sl == *tree] = '\0';
		}
		return p;
	}
	if (st->o->output) {
		p = dft_path_under(st->o->output, j->file);
		if (!p) {
			*why = outside_root;
			return NULL;
		}
		if (dft_mkdir_p(st->o->output, 0777) < 0) {
			*why = "the output directory cannot be made";
			free(p);
			return NULL;
		}
		*tree = dft_xstrdup(st->o->output);
		return p;
	}
	ann = dft_json_str(dft_json_path(st->session, "paths"), "annotated",
			   NULL);
	if (!ann) {
		*why = "no session record names an annotated tree (use "
		       "--in-place, --output or --diff)";
		return NULL;
	}
	if (j->file[0] == '/') {
		const char *src = dft_json_str(dft_json_path(st->session,
							     "paths"),
					       "source", NULL);
		char *abs = dft_path_normalize(j->file);
		size_t l = src ? strlen(src) : 0;

		if (!src || !dft_path_is_inside(src, abs)) {
			free(abs);
			*why = "the file is outside the session's source tree";
			return NULL;
		}
		p = dft_path_join(ann, abs + l);
		free(abs);
		*tree = dft_xstrdup(ann);
		return p;
	}
	p = dft_path_under(ann, j->file);
	if (!p) {
		*why = "the file is outside the session's source tree";
		return NULL;
	}
	*tree = dft_xstrdup(ann);
	if (!dft_exists(p)) {
		char *q = dft_path_join(ann, "source");
		char *r = dft_path_under(q, j->file);

		free(q);
		if (dft_exists(r)) {
			free(p);
			return r;
		}
		free(r);
	}
	return p;
}

static json_object *
new_annotation(const struct job *j, const char *lang)
{
	json_object *a = json_object_new_object();

	json_object_object_add(a, "type", dft_jstr("annotation"));
	json_object_object_add(a, "v", dft_jint(1));
	json_object_object_add(a, "file", dft_jstr(j->file));
	json_object_object_add(a, "root", dft_jstr(j->root));
	json_object_object_add(a, "language", dft_jstr(lang));
	return a;
}

static int
count_lines(const char *s, size_t n)
{
	int c = 0;
	size_t i;

	for (i = 0; i < n; i++)
		c += s[i] == '\n';
	return c;
}

/*
 * Writes or prints one result; returns 0, or -1 with *why (message
 * given). The file must still be what was read (snap) when it is
 * replaced, and stay inside tree.
 */
static int
deliver(struct state *st, const struct job *j, const char *dst,
	const char *tree, const struct dft_file_snap *snap,
	const char *old, size_t nold, const char *new, size_t nnew,
	char **why)
{
	const char *wwhy;

	char *na = dft_xasprintf("a/%s", j->file);
	char *nb = dft_xasprintf("b/%s", j->file);

	if (st->o->diff) {
		struct dft_buf d;

		dft_buf_init(&d);
		diff_unified(&d, old, nold, new, nnew, na, nb);
		fwrite(d.s, 1, d.len, stdout);
		dft_buf_release(&d);
	} else {
		diff_unified(&st->patch, old, nold, new, nnew, na, nb);
	}
	free(na);
	free(nb);
	if (!dst)
		return 0;
	if (st->o->output) {
		char *dir = dft_xstrdup(dst), *sl = strrchr(dir, '/');

		if (sl && sl != dir) {
			*sl = '\0';
			dft_mkdir_p(dir, 0755);
		}
		free(dir);
	}
	if (dft_replace_file(tree, dst, new, nnew, snap, &wwhy) < 0) {
		*why = errno == EXDEV || errno == EAGAIN || errno == EINVAL ?
			       dft_xasprintf("cannot write '%s': %s", dst,
					     wwhy) :
			       dft_xasprintf("cannot write '%s': %s: %s", dst,
					     wwhy, strerror(errno));
		dft_warn("%s", *why);
		return -1;
	}
	st->files_written++;
	return 0;
}

/* The end of a job's record, the same for annotating and rewriting: a
 * refusal (warned, counted, exit 1) or a failed write gives the reason;
 * the status is added last. Returns the status written. */
static const char *
note_outcome(struct state *st, json_object *a, const char *status,
	     const char *verb, const char *file, const char *refused,
	     const char *wfail)
{
	if (refused) {
		status = "refused";
		dft_warn("%s: not %s: %s", file, verb, refused);
		st->refused++;
		st->status = dft_worst(st->status, DFT_EXIT_DATA);
		json_object_object_add(a, "reason", dft_jstr(refused));
	} else if (wfail) {
		json_object_object_add(a, "reason", dft_jstr(wfail));
	}
	json_object_object_add(a, "status", dft_jstr(status));
	return status;
}

static json_object *
do_job(struct state *st, struct job *j)
{
	const char *lang = lang_of(j), *why = NULL;
	char *src = src_path(j), *tree = NULL;
	char *dst = dst_path(st, j, &why, &tree);
	char *text = NULL, *new = NULL, hash[32], *wfail = NULL;
	struct dft_file_snap snap = { 0 };
	size_t n = 0, nn = 0;
	json_object *a = new_annotation(j, lang);
	struct fresult r;
	struct edits e = { NULL, 0, 0 };
	const char *status = "unchanged";
	const char *read_from;

	memset(&r, 0, sizeof(r));
	r.annotated = json_object_new_array();
	r.skipped = json_object_new_array();
	if (!src || (!dst && !st->o->diff)) {
		r.refused = dft_xstrdup(why ? why : outside_root);
		goto out;
	}
	if (dst && !dft_path_real_inside(tree, dst)) {
		r.refused = dft_xasprintf("cannot write '%s': its real location "
					  "is outside '%s' (a symbolic link "
					  "leads out of it)", dst, tree);
		goto out;
	}
	/* the copy in the annotated tree is what gets edited */
	read_from = dst && !st->o->output ? dst : src;
	text = dft_read_snap(read_from, &n, &snap);
	if (!text) {
		r.refused = dft_xasprintf("cannot read '%s': %s", read_from,
					  strerror(errno));
		goto out;
	}
	if (st->o->strip) {
		if (!strcmp(lang, "python")) {
			new = py_strip(text, n, &nn, &why);
		} else if (c_is_annotated(text, n)) {
			new = c_strip(text, n, &nn, &why);
		} else {
			goto out;
		}
		if (!new) {
			if (why) {
				r.refused = dft_xasprintf("cannot strip: %s",
							  why);
				goto out;
			}
			goto out;
		}
		status = "stripped";
		json_object_object_add(a, "lines_removed",
				       dft_jint(count_lines(text, n) -
						count_lines(new, nn)));
		if (deliver(st, j, dst, tree, read_from == dst ? &snap : NULL,
			    text, n, new, nn, &wfail) < 0) {
			status = "failed";
			st->status = dft_worst(st->status, DFT_EXIT_DATA);
		}
		goto out;
	}
	if (!strcmp(lang, "python") ? py_is_annotated(text, n) :
				      c_is_annotated(text, n)) {
		status = "already_annotated";
		goto out;
	}
	if (j->parse_bad) {
		r.refused = dft_xstrdup("its parse had errors (see the "
					"diagnostic records)");
		goto out;
	}
	dft_file_hash_str(text, n, hash, sizeof(hash));
	if ((j->hash && strcmp(j->hash, hash) != 0) ||
	    (j->size >= 0 && (size_t)j->size != n)) {
		r.refused = dft_xstrdup("it changed since its records were "
					"made");
		goto out;
	}
	if (strcmp(lang, "python") && c_has_foreign(text, n)) {
		r.refused = dft_xstrdup("it already has dftracer "
					"instrumentation that dft-annotate "
					"did not write");
		goto out;
	}
	if (!strcmp(lang, "python")) {
		if (py_annotate(read_from, text, n, j->funcs, st->o->style,
				&new, &nn, &r) < 0)
			goto out;
	} else {
		struct copts co = { st->o->init_args };

		if (c_plan(text, n, j->funcs, !strcmp(lang, "cpp"), &co, &e,
			   &r) < 0)
			goto out;
		if (e.n == 0)
			goto out;
		new = edits_apply(&e, text, n, &nn);
		if (!new) {
			r.refused = dft_xstrdup("internal error: overlapping "
						"insertions");
			goto out;
		}
	}
	if (!new)
		goto out;
	/* self-check: same lines, and --strip gives the original back */
	{
		size_t sn = 0;
		char *back = !strcmp(lang, "python") ?
				     py_strip(new, nn, &sn, &why) :
				     c_strip(new, nn, &sn, &why);

		if (!back || sn != n || memcmp(back, text, n) != 0 ||
		    count_lines(new, nn) !=
			    count_lines(text, n) + r.lines_inserted) {
			r.refused = dft_xasprintf(
				"internal check failed: %s",
				!back ? (why ? why : "strip failed") :
				"strip would not restore the original");
			free(back);
			goto out;
		}
		free(back);
	}
	status = "annotated";
	if (deliver(st, j, dst, tree, read_from == dst ? &snap : NULL, text,
		    n, new, nn, &wfail) < 0) {
		status = "failed";
		st->status = dft_worst(st->status, DFT_EXIT_DATA);
	}
out:
	status = note_outcome(st, a, status, "annotated", src ? src : j->file,
			      r.refused, wfail);
	json_object_object_add(a, "already_annotated",
			       json_object_new_boolean(
				       !strcmp(status, "already_annotated")));
	json_object_object_add(a, "path", dft_jstr(dst ? dst :
						 src ? src : j->file));
	json_object_object_add(a, "functions",
			       dft_jint((int64_t)json_object_array_length(
				       r.annotated)));
	json_object_object_add(a, "annotated", r.annotated);
	json_object_object_add(a, "skipped", r.skipped);
	json_object_object_add(a, "lines_inserted", dft_jint(r.lines_inserted));
	json_object_object_add(a, "fragments", dft_jint(r.fragments));
	json_object_object_add(a, "uncovered_exits",
			       dft_jint(r.uncovered_exits));
	if (new && !strcmp(status, "annotated")) {
		dft_file_hash_str(new, nn, hash, sizeof(hash));
		json_object_object_add(a, "file_hash", dft_jstr(hash));
	}
	free(r.refused);
	free(wfail);
	free(tree);
	edits_release(&e);
	free(text);
	free(new);
	free(src);
	free(dst);
	return a;
}

/* libclang's flags for the file abs: its compile command, or defaults. */
static char **
rewrite_args(const struct dft_compdb *db, const char *abs, int *cpp)
{
	char **v;
	char *dir;
	const char *lang;
	size_t i;

	for (i = 0; db && i < db->n; i++)
		if (!strcmp(db->cmds[i].file, abs)) {
			v = dft_compdb_clang_args(&db->cmds[i], &lang);
			*cpp = !strcmp(lang, "cpp");
			return v;
		}
	*cpp = !dft_has_suffix(abs, ".c");
	v = dft_xcalloc(4, sizeof(char *));
	dir = dft_xstrdup(abs);
	*strrchr(dir, '/') = '\0';
	v[0] = dft_xasprintf("-I%s", dir);
	if (*cpp) {
		v[1] = dft_xstrdup("-x");
		v[2] = dft_xstrdup("c++");
	}
	free(dir);
	return v;
}

/* --rewrite: one file; its rewrite record (dft.7). */
static json_object *
do_rewrite(struct state *st, struct job *j, const struct dft_compdb *db)
{
	const char *why = NULL, *status = "unchanged";
	char *src, *dst, *tree = NULL, *text = NULL, *new = NULL, *abs;
	char *wfail = NULL, **args = NULL;
	struct dft_file_snap snap = { 0 };
	size_t n = 0, nn = 0;
	struct fresult r;
	json_object *a = json_object_new_object();
	int cpp = 0;

	if (!j->root) {
		const char *root = st->o->root ? st->o->root :
			dft_json_str(dft_json_path(st->session, "paths"),
				     "source", NULL);

		if (root && j->file[0] != '/')
			j->root = dft_xstrdup(root);
	}
	src = src_path(j);
	dst = dst_path(st, j, &why, &tree);
	memset(&r, 0, sizeof(r));
	r.annotated = json_object_new_array();
	r.skipped = json_object_new_array();
	json_object_object_add(a, "type", dft_jstr("rewrite"));
	json_object_object_add(a, "v", dft_jint(1));
	json_object_object_add(a, "file", dft_jstr(j->file));
	json_object_object_add(a, "root", dft_jstr(j->root));
	json_object_object_add(a, "kinds", dft_jstr(st->o->rewrite));
	if (!src || (!dst && !st->o->diff)) {
		r.refused = dft_xstrdup(why ? why : outside_root);
		goto out;
	}
	if (dst && !dft_path_real_inside(tree, dst)) {
		r.refused = dft_xasprintf("cannot write '%s': its real location "
					  "is outside '%s'", dst, tree);
		goto out;
	}
	text = dft_read_snap(src, &n, &snap);
	if (!text) {
		r.refused = dft_xasprintf("cannot read '%s': %s", src,
					  strerror(errno));
		goto out;
	}
	abs = dft_path_absolute(src);
	args = rewrite_args(db, abs, &cpp);
	new = rw_rewrite(abs, text, n, args, cpp, j->funcs, &st->o->rw, &nn,
			 &r);
	free(abs);
	if (!new)
		goto out;
	status = "rewritten";
	if (deliver(st, j, dst, tree, st->o->in_place ? &snap : NULL, text, n,
		    new, nn, &wfail) < 0) {
		status = "failed";
		st->status = dft_worst(st->status, DFT_EXIT_DATA);
	}
out:
	status = note_outcome(st, a, status, "rewritten", src ? src : j->file,
			      r.refused, wfail);
	json_object_object_add(a, "path", dft_jstr(dst ? dst :
						 src ? src : j->file));
	json_object_object_add(a, "rewritten", r.annotated);
	json_object_object_add(a, "skipped", r.skipped);
	dft_strv_free(args);
	free(r.refused);
	free(wfail);
	free(tree);
	free(text);
	free(new);
	free(src);
	free(dst);
	return a;
}

static void
job_release(struct job *j)
{
	free(j->file);
	free(j->root);
	free(j->lang);
	free(j->hash);
	json_object_put(j->funcs);
}

static char *
patch_path(struct state *st)
{
	const char *art;

	if (st->o->patch)
		return dft_xstrdup(st->o->patch);
	if (st->o->diff || st->o->in_place || st->o->output)
		return NULL;
	art = dft_json_str(dft_json_path(st->session, "paths"), "artifacts",
			   NULL);
	if (art && !st->o->rewrite)
		return dft_path_join(art, st->o->strip ? "annotation-strip.patch"
					       : "annotation.patch");
	return NULL;
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "diff", no_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ "in-place", no_argument, NULL, 'i' },
		{ "strip", no_argument, NULL, 's' },
		{ "version", no_argument, NULL, 'V' },
		{ "output", required_argument, NULL, 'o' },
		{ "patch", required_argument, NULL, 'p' },
		{ "init-args", required_argument, NULL, 1 },
		{ "style", required_argument, NULL, 2 },
		{ "rewrite", required_argument, NULL, 3 },
		{ "root", required_argument, NULL, 4 },
		{ "compile-db", required_argument, NULL, 5 },
		{ "prefix-map", required_argument, NULL, 6 },
		{ NULL, 0, NULL, 0 }
	};
	struct opts o;
	struct dft_compdb db;
	struct state st;
	struct dft_step step;
	size_t k;
	int c, modes;
	char *pp;

	dft_init("dft-annotate");
	memset(&o, 0, sizeof(o));
	o.init_args = "NULL, NULL, NULL";
	while ((c = dft_getopt(argc, argv, "dhisVo:p:", longopts)) != -1) {
		switch (c) {
		case 'd':
			o.diff = 1;
			break;
		case 'h':
			return dft_help(usage_text, help_text);
		case 'i':
			o.in_place = 1;
			break;
		case 's':
			o.strip = 1;
			break;
		case 'V':
			return dft_version();
		case 'o':
			o.output = optarg;
			break;
		case 'p':
			o.patch = optarg;
			break;
		case 1:
			o.init_args = optarg;
			break;
		case 2:
			o.style = optarg;
			break;
		case 3:
			o.rewrite = optarg;
			if (rw_parse_spec(optarg, &o.rw) < 0)
				dft_bad_value(usage_text, "--rewrite", optarg,
					      "setvbuf[=SIZE], fadvise[=sequential"
					      "|random|willneed], fdatasync or "
					      "sync-last, comma-separated");
			break;
		case 4:
			o.root = optarg;
			break;
		case 5:
			o.compdb = optarg;
			break;
		case 6:
			if (dft_prefix_maps_add(&o.maps, &o.nmaps, optarg) < 0)
				dft_bad_value(usage_text, "--prefix-map", optarg,
					      "OLD=NEW");
			break;
		default:
			dft_option_error(usage_text, c, argv, longopts);
		}
	}
	modes = o.diff + o.in_place + (o.output != NULL);
	if (modes > 1)
		dft_usage_error(usage_text, "--diff, --in-place and --output "
				"exclude each other");
	if (o.style && strcmp(o.style, "generic") && strcmp(o.style, "ai"))
		dft_bad_value(usage_text, "--style", o.style, "generic or ai");
	if (!*o.init_args || strchr(o.init_args, ';') ||
	    strchr(o.init_args, '\n'))
		dft_bad_value(usage_text, "--init-args", o.init_args,
			      "a non-empty line without ';'");

	if (!o.rewrite && (o.root || o.compdb || o.nmaps))
		dft_usage_error(usage_text, "--root, --compile-db and "
				"--prefix-map go with --rewrite");
	if (o.rewrite && o.strip)
		dft_usage_error(usage_text, "--rewrite and --strip exclude "
				"each other");
	if (o.rewrite && !modes)
		dft_usage_error(usage_text, "--rewrite needs --in-place, "
				"--output or --diff");
	if (o.compdb && !dft_exists(o.compdb))
		dft_bad_value(usage_text, "--compile-db", o.compdb,
			      "compile_commands.json or its directory");
	dft_compdb_init(&db);
	if (o.compdb && dft_compdb_open(&db, o.compdb, NULL) < 0)
		return DFT_EXIT_FATAL;
	dft_compdb_map(&db, o.maps, o.nmaps);
	memset(&st, 0, sizeof(st));
	st.o = &o;
	st.index = json_object_new_object();
	dft_buf_init(&st.patch);
	dft_step_begin(&step, o.rewrite ? "rewrite" : "annotate");
	st.status = dft_each_input(argc - optind, argv + optind, on_input,
				   &st);
	if (!o.style)
		o.style = !strcmp(dft_json_str(st.session, "preset", ""),
				  "dlio") ? "ai" : "generic";
	for (k = 0; k < st.njobs; k++) {
		json_object *a = o.rewrite ? do_rewrite(&st, &st.jobs[k], &db)
					   : do_job(&st, &st.jobs[k]);

		if (!o.diff)
			dft_emit(stdout, a);
		json_object_put(a);
		job_release(&st.jobs[k]);
	}
	pp = patch_path(&st);
	if (pp) {
		if (dft_write_file_atomic(pp, st.patch.s ? st.patch.s : "",
					  st.patch.len) < 0) {
			dft_warn("cannot write '%s':", pp);
			st.status = dft_worst(st.status, DFT_EXIT_DATA);
		}
		free(pp);
	}
	if (!o.diff)
		dft_emit_put(stdout, dft_step_end(&step, st.status ? "partial"
							      : "ok"));
	free(st.jobs);
	dft_compdb_release(&db);
	dft_prefix_maps_free(o.maps, o.nmaps);
	json_object_put(st.index);
	if (st.session)
		json_object_put(st.session);
	dft_buf_release(&st.patch);
	return dft_worst(st.status, dft_close_stdout());
}
