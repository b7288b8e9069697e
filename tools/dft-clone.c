/*
 * dft-clone - clone an application into a new workspace and print its
 * session record.
 *
 * Input: none (the operand is a URL or a local path).
 * Output: one `session` record (man dft(7)) then one `step` record.
 *
 * This does: clone with libgit2 (https, ssh, file://, a local repository),
 * or copy a local directory that is not a repository; check out a branch,
 * tag or commit; initialise submodules recursively; lay out the workspace
 * <root>/<app>/<YYYYMMDD_HHMMSS>/ with source/ baseline/ annotated/ traces/
 * artifacts/ tmp/ and session.json; point <root>/<app>/.current_run at it;
 * detect the build tool, languages, features and analysis preset.
 * --resume reopens a workspace and prints its stored session record.
 *
 * This does not: run the git command, hooks or filter drivers (libgit2 has
 * none), build anything, or leave a half-made workspace when it fails.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <regex.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <git2.h>

#include "dft.h"
#include "banned.h"

#define SCAN_BUDGET 5000000	/* bytes of source text scanned for features */
#define MAX_DEPTH 64		/* directory and submodule nesting limit */

struct opts {
	const char *root;	/* -w, DFT_WORKSPACES, ./workspaces */
	const char *ref;	/* -r */
	const char *name;	/* -n: run directory name instead of a stamp */
	const char *resume;	/* --resume RUN_ID */
	int copy;		/* --copy */
	int print_app_name;	/* --print-app-name */
};

/* What was created, so a failure can remove exactly that. */
struct cleanup {
	char *root;		/* created by us (rmdir when empty) */
	char *appdir;		/* created by us (rmdir when empty) */
	char *ws;		/* created by us (removed recursively) */
};

struct clone_ctx {
	struct dft_progress fetch;
	struct dft_progress checkout;
	int fetch_started;
	int cred_tries;
};

static const char usage_text[] =
	"usage: dft-clone [-w root] [-r ref] [-n name] [--copy] url\n"
	"       dft-clone [-w root] --resume run_id [url]\n"
	"       dft-clone --print-app-name url\n";

static const char help_text[] =
	"Clone an application into a new workspace and print its session "
	"record.\n"
	"\n"
	"  -w, --workspaces root  workspace root (default $DFT_WORKSPACES, "
	"else ./workspaces)\n"
	"  -r, --ref ref          branch, tag or commit to check out "
	"(default: remote HEAD)\n"
	"  -n, --name name        run directory name instead of "
	"YYYYMMDD_HHMMSS\n"
	"      --copy             copy a local directory even when it is a "
	"repository\n"
	"      --resume run_id    reopen an existing workspace "
	"(app/stamp, stamp with url, or app)\n"
	"      --print-app-name   print the application name derived from "
	"url and exit\n"
	"  -h, --help             print this help and exit\n"
	"  -V, --version          print the version and exit\n";

enum {
	OPT_COPY = 256,
	OPT_RESUME,
	OPT_PRINT_APP_NAME,
};

static const struct option long_options[] = {
	{ "workspaces", required_argument, NULL, 'w' },
	{ "ref", required_argument, NULL, 'r' },
	{ "name", required_argument, NULL, 'n' },
	{ "copy", no_argument, NULL, OPT_COPY },
	{ "resume", required_argument, NULL, OPT_RESUME },
	{ "print-app-name", no_argument, NULL, OPT_PRINT_APP_NAME },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

static struct cleanup cleanup;
static volatile sig_atomic_t interrupted;
static int cwd_fd = -1;		/* the starting directory, for fchdir */

static DFT_NORETURN void fail(const char *fmt, ...) DFT_PRINTF(1, 2);

/* ---- app name ------------------------------------------------------------ */

/*
 * The reference pipeline's derivation: strip trailing slashes and ".git",
 * keep the text after the last ':' and then its last path component, drop
 * everything from the first '.', lowercase, collapse runs of characters
 * other than [a-z0-9] to '_', trim '_'; empty gives "app". Caller frees.
 */
static char *
app_name(const char *url)
{
	char *s = dft_xstrdup(url), *p, *out, *o;
	size_t n = strlen(s);

	while (n > 0 && s[n - 1] == '/')
		s[--n] = '\0';
	if (n >= 4 && strcmp(s + n - 4, ".git") == 0) {
		n -= 4;
		s[n] = '\0';
		while (n > 0 && s[n - 1] == '/')
			s[--n] = '\0';
	}
	p = strrchr(s, ':');
	p = p ? p + 1 : s;
	if (strrchr(p, '/') != NULL)
		p = strrchr(p, '/') + 1;
	if (strchr(p, '.') != NULL)
		*strchr(p, '.') = '\0';
	out = dft_xmalloc(strlen(p) + 1);
	o = out;
	for (; *p; p++) {
		char c = *p;

		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))
			*o++ = c;
		else if (o > out && o[-1] != '_')
			*o++ = '_';
	}
	while (o > out && o[-1] == '_')
		o--;
	*o = '\0';
	free(s);
	if (out[0] == '\0') {
		free(out);
		return dft_xstrdup("app");
	}
	return out;
}

/*
 * git's rule: a URL with "://" or an scp-like "host:path" (a colon before
 * any slash) is remote; anything else is a local path.
 */
static int
is_local_path(const char *url)
{
	const char *colon = strchr(url, ':'), *slash = strchr(url, '/');

	if (strstr(url, "://") != NULL)
		return 0;
	return colon == NULL || (slash != NULL && slash < colon);
}

/* The app name used for url: local directories by their absolute path. */
static char *
app_name_for(const char *url)
{
	char *abs, *name;

	if (!is_local_path(url) || !dft_is_dir(url))
		return app_name(url);
	abs = realpath(url, NULL);
	if (abs == NULL)
		abs = dft_path_absolute(url);
	name = app_name(abs);
	free(abs);
	return name;
}

/* ---- failure and cleanup --------------------------------------------------- */

static void
cleanup_run(void)
{
	if (cleanup.ws != NULL)
		dft_rm_rf(cleanup.ws);
	if (cleanup.appdir != NULL)
		rmdir(cleanup.appdir);
	if (cleanup.root != NULL)
		rmdir(cleanup.root);
	free(cleanup.ws);
	free(cleanup.appdir);
	free(cleanup.root);
	memset(&cleanup, 0, sizeof(cleanup));
}

/* Prints "dft-clone: message", removes what this run created, exits 2. */
static void
fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	dft_vwarn(fmt, ap);
	va_end(ap);
	cleanup_run();
	git_libgit2_shutdown();
	exit(DFT_EXIT_FATAL);
}

/* libgit2's own reason for the last failure. */
static const char *
lg2_msg(int rc)
{
	const git_error *e = git_error_last();

	if (e != NULL && e->message != NULL)
		return e->message;
	return rc == GIT_EUSER ? "interrupted" : "unknown libgit2 error";
}

static void
on_signal(int sig)
{
	interrupted = sig;
}

static void
catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/* After a step that may have been interrupted: clean up and die by it. */
static void
check_interrupted(void)
{
	int sig = interrupted;

	if (sig == 0)
		return;
	dft_warn("interrupted; removing the unfinished workspace");
	cleanup_run();
	signal(sig, SIG_DFL);
	raise(sig);
	exit(DFT_EXIT_FATAL);
}

/* ---- libgit2 callbacks ------------------------------------------------------ */

static int
on_transfer(const git_indexer_progress *st, void *payload)
{
	struct clone_ctx *c = payload;

	if (interrupted)
		return -1;
	if (!c->fetch_started) {
		dft_progress_init(&c->fetch, "receiving objects",
				  st->total_objects);
		c->fetch_started = 1;
	}
	c->fetch.total = st->total_objects;
	dft_progress_update(&c->fetch, st->received_objects);
	return 0;
}

static void
on_checkout(const char *path, size_t done, size_t total, void *payload)
{
	struct clone_ctx *c = payload;

	(void)path;
	c->checkout.total = total;
	dft_progress_update(&c->checkout, done);
}

static int
on_checkout_notify(git_checkout_notify_t why, const char *path,
		   const git_diff_file *baseline, const git_diff_file *target,
		   const git_diff_file *workdir, void *payload)
{
	(void)why, (void)path, (void)baseline, (void)target, (void)workdir;
	(void)payload;
	return interrupted ? -1 : 0;
}

/* ssh: ask the agent; https: no prompting, so no credentials. */
static int
on_credentials(git_credential **out, const char *url, const char *user,
	       unsigned int allowed, void *payload)
{
	struct clone_ctx *c = payload;

	(void)url;
	if (interrupted || c->cred_tries++ >= 3)
		return GIT_PASSTHROUGH;
	if (allowed & GIT_CREDENTIAL_SSH_KEY)
		return git_credential_ssh_key_from_agent(out,
		    user != NULL ? user : "git");
	if (allowed & GIT_CREDENTIAL_USERNAME)
		return git_credential_username_new(out,
		    user != NULL ? user : "git");
	return GIT_PASSTHROUGH;
}

static void
set_fetch_opts(git_fetch_options *f, struct clone_ctx *c)
{
	f->callbacks.transfer_progress = on_transfer;
	f->callbacks.credentials = on_credentials;
	f->callbacks.payload = c;
	f->proxy_opts.type = GIT_PROXY_AUTO;
}

static void
set_checkout_opts(git_checkout_options *o, struct clone_ctx *c,
		  unsigned int strategy)
{
	o->checkout_strategy = strategy;
	o->progress_cb = on_checkout;
	o->progress_payload = c;
	o->notify_flags = GIT_CHECKOUT_NOTIFY_ALL;
	o->notify_cb = on_checkout_notify;
	o->notify_payload = c;
}

/* ---- checkout of --ref -------------------------------------------------- */

static void
oid_hex(const git_oid *id, char *buf, size_t n)
{
	git_oid_tostr(buf, n, id);
}

/*
 * Checks out ref in a clone made without a checkout: a remote branch
 * (becomes a local branch), a tag, or anything git_revparse understands
 * (a full or abbreviated commit id). Sets *kind. Fails on error.
 */
static void
checkout_ref(git_repository *repo, const char *ref, struct clone_ctx *c,
	     const char **kind)
{
	git_checkout_options co;
	git_reference *rb = NULL, *lb = NULL;
	git_object *obj = NULL;
	git_commit *commit = NULL;
	char *name = NULL;
	int rc;

	git_checkout_options_init(&co, GIT_CHECKOUT_OPTIONS_VERSION);
	set_checkout_opts(&co, c, GIT_CHECKOUT_FORCE);
	name = dft_xasprintf("origin/%s", ref);
	if (git_branch_lookup(&rb, repo, name, GIT_BRANCH_REMOTE) == 0) {
		*kind = "branch";
		rc = git_reference_peel(&obj, rb, GIT_OBJECT_COMMIT);
	} else {
		free(name);
		name = dft_xasprintf("refs/tags/%s", ref);
		if (git_reference_lookup(&rb, repo, name) == 0) {
			*kind = "tag";
			rc = git_reference_peel(&obj, rb, GIT_OBJECT_COMMIT);
		} else {
			git_object *any = NULL;

			*kind = "commit";
			rc = git_revparse_single(&any, repo, ref);
			if (rc == 0) {
				rc = git_object_peel(&obj, any,
						     GIT_OBJECT_COMMIT);
				git_object_free(any);
			}
		}
	}
	if (rc < 0)
		fail("ref '%s' not found: %s", ref, lg2_msg(rc));
	rc = git_checkout_tree(repo, obj, &co);
	check_interrupted();
	if (rc < 0)
		fail("cannot check out '%s': %s", ref, lg2_msg(rc));
	if (strcmp(*kind, "branch") == 0) {
		free(name);
		name = dft_xasprintf("refs/heads/%s", ref);
		if (git_reference_lookup(&lb, repo, name) < 0) {
			rc = git_commit_lookup(&commit, repo,
					       git_object_id(obj));
			if (rc == 0)
				rc = git_branch_create(&lb, repo, ref, commit,
						       0);
			if (rc == 0)
				rc = git_branch_set_upstream(lb,
				    git_reference_shorthand(rb));
			if (rc < 0)
				fail("cannot create branch '%s': %s", ref,
				     lg2_msg(rc));
		}
		rc = git_repository_set_head(repo, name);
	} else {
		rc = git_repository_set_head_detached(repo,
						      git_object_id(obj));
	}
	if (rc < 0)
		fail("cannot set HEAD to '%s': %s", ref, lg2_msg(rc));
	git_commit_free(commit);
	git_reference_free(lb);
	git_reference_free(rb);
	git_object_free(obj);
	free(name);
}

/* HEAD's commit id into buf ("" when unborn) and its branch (or NULL). */
static void
head_info(git_repository *repo, char *buf, size_t n, char **branch)
{
	git_reference *head = NULL;
	const git_oid *id;

	buf[0] = '\0';
	if (branch != NULL)
		*branch = NULL;
	if (git_repository_head(&head, repo) < 0)
		return;
	id = git_reference_target(head);
	if (id != NULL)
		oid_hex(id, buf, n);
	if (branch != NULL && git_reference_is_branch(head))
		*branch = dft_xstrdup(git_reference_shorthand(head));
	git_reference_free(head);
}

/* ---- submodules ------------------------------------------------------------ */

struct names {
	char **v;
	size_t n;
};

static int
collect_submodule(git_submodule *sm, const char *name, void *payload)
{
	struct names *ns = payload;

	(void)sm;
	ns->v = dft_xreallocarray(ns->v, ns->n + 1, sizeof(*ns->v));
	ns->v[ns->n++] = dft_xstrdup(name);
	return 0;
}

/*
 * Initialises and checks out every submodule of repo, then theirs.
 * Appends {path,url,commit,status} to list; returns how many failed
 * (each reported with a warning).
 */
static int
update_submodules(git_repository *repo, const char *prefix,
		  struct clone_ctx *c, json_object *list, int depth)
{
	struct names ns = { NULL, 0 };
	int failed = 0, rc;

	rc = git_submodule_foreach(repo, collect_submodule, &ns);
	if (rc < 0) {
		dft_warn("cannot list submodules of '%s': %s",
			 prefix[0] ? prefix : ".", lg2_msg(rc));
		return 1;
	}
	for (size_t i = 0; i < ns.n; i++) {
		git_submodule_update_options uo;
		git_submodule *sm = NULL;
		git_repository *sub = NULL;
		json_object *rec = json_object_new_object();
		char *path = NULL, hex[GIT_OID_HEXSZ + 1] = "";
		const char *status = "ok";

		git_submodule_update_options_init(&uo,
		    GIT_SUBMODULE_UPDATE_OPTIONS_VERSION);
		set_fetch_opts(&uo.fetch_opts, c);
		set_checkout_opts(&uo.checkout_opts, c, GIT_CHECKOUT_SAFE);
		rc = git_submodule_lookup(&sm, repo, ns.v[i]);
		path = dft_xasprintf("%s%s", prefix,
				     rc == 0 ? git_submodule_path(sm)
					     : ns.v[i]);
		/*
		 * libgit2 1.5 checks the submodule's path relative to the
		 * working directory of the process, so run from the
		 * superproject's work tree.
		 */
		if (rc == 0 && chdir(git_repository_workdir(repo)) < 0) {
			git_error_set_str(GIT_ERROR_OS, strerror(errno));
			rc = -1;
		}
		if (rc == 0)
			rc = git_submodule_update(sm, 1, &uo);
		if (fchdir(cwd_fd) < 0)
			fail("cannot return to the working directory:");
		check_interrupted();
		if (rc == 0)
			rc = git_submodule_open(&sub, sm);
		if (rc < 0) {
			dft_warn("submodule '%s': %s", path, lg2_msg(rc));
			status = "failed";
			failed++;
		} else {
			head_info(sub, hex, sizeof(hex), NULL);
		}
		json_object_object_add(rec, "path", dft_jstr(path));
		json_object_object_add(rec, "url", dft_jstr(
		    sm != NULL ? git_submodule_url(sm) : NULL));
		json_object_object_add(rec, "commit",
				       dft_jstr(hex[0] ? hex : NULL));
		json_object_object_add(rec, "status", dft_jstr(status));
		json_object_array_add(list, rec);
		if (sub != NULL && depth < MAX_DEPTH) {
			char *sp = dft_xasprintf("%s/", path);

			failed += update_submodules(sub, sp, c, list,
						    depth + 1);
			free(sp);
		}
		git_repository_free(sub);
		git_submodule_free(sm);
		free(path);
		free(ns.v[i]);
	}
	free(ns.v);
	return failed;
}

/* ---- detection ------------------------------------------------------------- */

enum lang { LANG_C, LANG_CPP, LANG_FORTRAN, LANG_PYTHON, NLANG };
static const char *const lang_names[NLANG] = {
	"c", "cpp", "fortran", "python",
};

struct pattern {
	const char *name;
	const char *re;
	int icase;
	regex_t rx;
	int found;
};

#define IMPORT(m) "^[[:space:]]*(import|from)[[:space:]]+" m "\\b"

/* Features of the reference detector (pipeline-behaviour.md §1.3). */
static struct pattern features[] = {
	{ "mpi", "mpi\\.h|MPI_Init|MPI_Comm|mpi4py", 1, { 0 }, 0 },
	{ "hdf5", "hdf5\\.h|H5Fopen|H5Fcreate|H5Dread|H5Dwrite|h5py", 1,
	  { 0 }, 0 },
	{ "openmp", "omp\\.h|#pragma[[:space:]]+omp|import openmp", 1,
	  { 0 }, 0 },
	{ "hip", "hip/hip_runtime|hipMalloc|hipLaunchKernel|"
	  "find_package\\(HIP|enable_language\\(HIP", 0, { 0 }, 0 },
	{ "posix_io", "\\b(open|fopen|read|write)[[:space:]]*\\(", 0,
	  { 0 }, 0 },
};

/* ML frameworks: imports in Python, includes in C/C++. */
static struct pattern frameworks[] = {
	{ "pytorch", IMPORT("torch") "|#include[[:space:]]*[<\"]torch/", 0,
	  { 0 }, 0 },
	{ "tensorflow", IMPORT("tensorflow")
	  "|#include[[:space:]]*[<\"]tensorflow/", 0, { 0 }, 0 },
	{ "jax", IMPORT("jax"), 0, { 0 }, 0 },
	{ "keras", IMPORT("(tf_)?keras") "|tensorflow\\.keras|"
	  "from[[:space:]]+tensorflow[[:space:]]+import[[:space:]]+keras",
	  0, { 0 }, 0 },
	{ "flax", IMPORT("flax"), 0, { 0 }, 0 },
	{ "mxnet", IMPORT("mxnet"), 0, { 0 }, 0 },
	{ "horovod", IMPORT("horovod")
	  "|#include[[:space:]]*[<\"]horovod/", 0, { 0 }, 0 },
	{ "deepspeed", IMPORT("deepspeed"), 0, { 0 }, 0 },
	{ "megatron", IMPORT("megatron"), 0, { 0 }, 0 },
	{ "fsdp", "FullyShardedDataParallel|torch\\.distributed\\.fsdp", 0,
	  { 0 }, 0 },
	{ "dali", "nvidia\\.dali", 0, { 0 }, 0 },
	{ "dlio", IMPORT("dlio(_benchmark)?"), 0, { 0 }, 0 },
	{ "lightning", IMPORT("(pytorch_)?lightning"), 0, { 0 }, 0 },
};

#define NFEATURES (sizeof(features) / sizeof(features[0]))
#define NFRAMEWORKS (sizeof(frameworks) / sizeof(frameworks[0]))

struct detect {
	int lang[NLANG];
	int hip_file;
	size_t budget;		/* bytes of text still to scan */
};

static void
compile_patterns(struct pattern *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int fl = REG_EXTENDED | REG_NOSUB | REG_NEWLINE;

		if (p[i].icase)
			fl |= REG_ICASE;
		if (regcomp(&p[i].rx, p[i].re, fl) != 0)
			dft_die("internal error: bad pattern for '%s'",
				p[i].name);
		p[i].found = 0;
	}
}

static void
free_patterns(struct pattern *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		regfree(&p[i].rx);
}

static int
suffix_in(const char *name, const char *const *list)
{
	const char *dot = strrchr(name, '.');

	if (dot == NULL)
		return 0;
	for (; *list != NULL; list++)
		if (strcmp(dot, *list) == 0)
			return 1;
	return 0;
}

static const char *const c_sfx[] = { ".c", ".h", NULL };
static const char *const cpp_sfx[] = {
	".cpp", ".cxx", ".cc", ".hpp", ".hxx", NULL,
};
static const char *const f_sfx[] = {
	".f90", ".f95", ".f03", ".f", ".for", ".f77", ".F90", ".F", NULL,
};
static const char *const py_sfx[] = { ".py", NULL };
static const char *const scan_sfx[] = {
	".c", ".h", ".cpp", ".cxx", ".cc", ".hpp", ".hxx", ".py", ".f90",
	".f", ".F90", ".F", ".hip", ".cu", ".cuh", NULL,
};
static const char *const scan_names[] = {
	"CMakeLists.txt", "Makefile", "GNUmakefile", "makefile",
	"configure.ac", "meson.build", NULL,
};

/* Up to max bytes of a file, NUL-terminated; NULL when unreadable. */
static char *
read_head(const char *path, size_t max, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	char *buf;
	size_t n = 0;

	if (fd < 0)
		return NULL;
	buf = dft_xmalloc(max + 1);
	while (n < max) {
		ssize_t r = read(fd, buf + n, max - n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	*len = n;
	return buf;
}

static void
scan_text(struct detect *d, const char *path, int code)
{
	size_t len, max = d->budget < 1048576 ? d->budget : 1048576;
	char *text;

	if (max == 0)
		return;
	text = read_head(path, max, &len);
	if (text == NULL)
		return;
	d->budget -= len;
	for (size_t i = 0; i < NFEATURES; i++)
		if (!features[i].found &&
		    regexec(&features[i].rx, text, 0, NULL, 0) == 0)
			features[i].found = 1;
	for (size_t i = 0; code && i < NFRAMEWORKS; i++)
		if (!frameworks[i].found &&
		    regexec(&frameworks[i].rx, text, 0, NULL, 0) == 0)
			frameworks[i].found = 1;
	free(text);
}

static void
scan_file(struct detect *d, const char *path, const char *name)
{
	int code = suffix_in(name, scan_sfx);

	if (suffix_in(name, c_sfx))
		d->lang[LANG_C] = 1;
	if (suffix_in(name, cpp_sfx))
		d->lang[LANG_CPP] = 1;
	if (suffix_in(name, f_sfx))
		d->lang[LANG_FORTRAN] = 1;
	if (suffix_in(name, py_sfx))
		d->lang[LANG_PYTHON] = 1;
	if (dft_has_suffix(name, ".hip"))
		d->hip_file = 1;
	if (code)
		scan_text(d, path, 1);
	else
		for (const char *const *n = scan_names; *n; n++)
			if (strcmp(name, *n) == 0)
				scan_text(d, path, 0);
}

/* Walks dir without following links, skipping .git; sorted for a stable
 * scan order (the budget makes the order matter). */
static void
walk(struct detect *d, const char *dir, int depth)
{
	struct dirent **ents = NULL;
	int n;

	if (depth > MAX_DEPTH)
		return;
	n = scandir(dir, &ents, NULL, alphasort);
	if (n < 0)
		return;
	for (int i = 0; i < n; i++) {
		const char *name = ents[i]->d_name;
		struct stat st;
		char *p;

		if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0 ||
		    strcmp(name, ".git") == 0) {
			free(ents[i]);
			continue;
		}
		p = dft_path_join(dir, name);
		if (lstat(p, &st) == 0) {
			if (S_ISDIR(st.st_mode))
				walk(d, p, depth + 1);
			else if (S_ISREG(st.st_mode))
				scan_file(d, p, name);
		}
		free(p);
		free(ents[i]);
	}
	free(ents);
}

/* Build tool from root-level files only, first match in this order. */
static const char *
build_tool(const char *src)
{
	static const struct {
		const char *file;
		const char *tool;
	} markers[] = {
		{ "CMakeLists.txt", "cmake" },
		{ "configure.ac", "autotools" },
		{ "configure.in", "autotools" },
		{ "configure", "autotools" },
		{ "meson.build", "meson" },
		{ "setup.py", "python" },
		{ "pyproject.toml", "python" },
		{ "setup.cfg", "python" },
		{ "Makefile", "make" },
		{ "makefile", "make" },
		{ "GNUmakefile", "make" },
	};

	for (size_t i = 0; i < sizeof(markers) / sizeof(markers[0]); i++) {
		char *p = dft_path_join(src, markers[i].file);
		struct stat st;
		int hit = stat(p, &st) == 0 && S_ISREG(st.st_mode);

		free(p);
		if (hit)
			return markers[i].tool;
	}
	return "unknown";
}

/* Adds build_tool, languages, features and preset to the session. */
static void
detect(json_object *sess, const char *src)
{
	struct detect d;
	json_object *langs = json_object_new_array();
	json_object *feat = json_object_new_object();
	json_object *ml = json_object_new_array();

	memset(&d, 0, sizeof(d));
	d.budget = SCAN_BUDGET;
	compile_patterns(features, NFEATURES);
	compile_patterns(frameworks, NFRAMEWORKS);
	walk(&d, src, 0);
	for (int i = 0; i < NLANG; i++)
		if (d.lang[i])
			json_object_array_add(langs, dft_jstr(lang_names[i]));
	for (size_t i = 0; i < NFEATURES; i++) {
		int on = features[i].found;

		if (strcmp(features[i].name, "hip") == 0)
			on |= d.hip_file;
		json_object_object_add(feat, features[i].name,
				       json_object_new_boolean(on));
	}
	json_object_object_add(feat, "python",
			       json_object_new_boolean(d.lang[LANG_PYTHON]));
	for (size_t i = 0; i < NFRAMEWORKS; i++)
		if (frameworks[i].found)
			json_object_array_add(ml,
					      dft_jstr(frameworks[i].name));
	json_object_object_add(feat, "ml_frameworks", ml);
	json_object_object_add(sess, "build_tool", dft_jstr(build_tool(src)));
	json_object_object_add(sess, "languages", langs);
	json_object_object_add(sess, "features", feat);
	json_object_object_add(sess, "preset", dft_jstr(
	    json_object_array_length(ml) > 0 ? "dlio" : "posix"));
	free_patterns(features, NFEATURES);
	free_patterns(frameworks, NFRAMEWORKS);
}

/* ---- workspace ------------------------------------------------------------- */

static const char *const layout[] = {
	"source", "baseline", "annotated", "traces", "artifacts", "tmp",
};
#define NLAYOUT (sizeof(layout) / sizeof(layout[0]))

/* The workspace root, absolute: -w, then $DFT_WORKSPACES, ./workspaces. */
static char *
root_path(const struct opts *o)
{
	const char *r = o->root;

	if (r == NULL || r[0] == '\0')
		r = getenv("DFT_WORKSPACES");
	if (r == NULL || r[0] == '\0')
		r = "workspaces";
	return dft_path_absolute(r);
}

/* Refuses path unless it is strictly inside root, lexically and on disk. */
static void
check_inside(const char *root, const char *path)
{
	char rr[PATH_MAX], rp[PATH_MAX];

	if (!dft_path_is_inside(root, path) || strcmp(root, path) == 0)
		fail("refusing workspace '%s': outside the workspace root "
		     "'%s'", path, root);
	if (realpath(root, rr) != NULL && realpath(path, rp) != NULL &&
	    (!dft_path_is_inside(rr, rp) || strcmp(rr, rp) == 0))
		fail("refusing workspace '%s': resolves to '%s', outside "
		     "the workspace root '%s'", path, rp, rr);
}

/* mkdir -p that records which directory it created, for the clean-up. */
static void
make_dir(const char *path, char **created)
{
	if (dft_is_dir(path))
		return;
	if (dft_mkdir_p(path, 0777) < 0)
		fail("cannot create '%s':", path);
	*created = dft_xstrdup(path);
}

/*
 * Creates <root>/<app>/<name> exclusively. Without -n the name is the UTC
 * stamp; a run in the same second gets "_2", "_3", ... appended. With -n
 * an existing directory is an error. Returns the run directory name.
 */
static char *
make_run_dir(const char *appdir, const char *name, char **ws)
{
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;

	if (name != NULL) {
		*ws = dft_path_join(appdir, name);
		if (mkdir(*ws, 0777) < 0) {
			if (errno == EEXIST)
				fail("workspace '%s' already exists", *ws);
			fail("cannot create '%s':", *ws);
		}
		cleanup.ws = dft_xstrdup(*ws);
		return dft_xstrdup(name);
	}
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d_%H%M%S", &tm);
	for (int i = 1; i < 100; i++) {
		char *n = i == 1 ? dft_xstrdup(stamp)
				 : dft_xasprintf("%s_%d", stamp, i);

		*ws = dft_path_join(appdir, n);
		if (mkdir(*ws, 0777) == 0) {
			cleanup.ws = dft_xstrdup(*ws);
			return n;
		}
		if (errno != EEXIST)
			fail("cannot create '%s':", *ws);
		free(*ws);
		free(n);
	}
	fail("too many runs of '%s' in one second", appdir);
}

/* A run name given with -n: one plain path component. */
static int
valid_name(const char *n)
{
	if (n[0] == '\0' || n[0] == '.' || strlen(n) > 200)
		return 0;
	for (const char *p = n; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '_' || *p == '-' ||
		      *p == '.'))
			return 0;
	return 1;
}

static void
write_current_run(const char *appdir, const char *run_id)
{
	char *p = dft_path_join(appdir, ".current_run");
	char *text = dft_xasprintf("%s\n", run_id);

	if (dft_write_file_atomic(p, text, strlen(text)) < 0)
		fail("cannot write '%s':", p);
	free(text);
	free(p);
}

/* ---- the two modes ---------------------------------------------------------- */

static void
emit_step(struct dft_step *st, int resumed, const char *status)
{
	json_object *rec = dft_step_end(st, status);

	if (resumed)
		json_object_object_add(rec, "resumed",
				       json_object_new_boolean(1));
	dft_emit_put(stdout, rec);
}

/* Reads a non-empty first line of path into a new string, or NULL. */
static char *
read_line(const char *path)
{
	char *s = dft_read_file(path, NULL);
	size_t n;

	if (s == NULL)
		return NULL;
	n = strcspn(s, "\r\n");
	s[n] = '\0';
	if (n == 0) {
		free(s);
		return NULL;
	}
	return s;
}

static int
resume(const struct opts *o, const char *url)
{
	struct dft_step st;
	char *root = root_path(o), *run_id, *ws, *sp, *appdir, *slash;
	json_object *sess;

	dft_step_begin(&st, "clone");
	if (strchr(o->resume, '/') != NULL) {
		run_id = dft_xstrdup(o->resume);
	} else if (url != NULL) {
		char *app = app_name_for(url);

		run_id = dft_xasprintf("%s/%s", app, o->resume);
		free(app);
	} else {
		char *cur = dft_path_join(root, o->resume);
		char *ptr = dft_path_join(cur, ".current_run");

		check_inside(root, cur);
		run_id = read_line(ptr);
		if (run_id == NULL)
			fail("cannot resume '%s': no '%s'", o->resume, ptr);
		free(ptr);
		free(cur);
	}
	sp = dft_path_join(root, run_id);
	ws = dft_path_normalize(sp);
	free(sp);
	check_inside(root, ws);
	sp = dft_path_join(ws, "session.json");
	sess = dft_json_load(sp);
	if (sess == NULL)
		fail("cannot resume '%s': cannot read '%s':", run_id, sp);
	if (!json_object_is_type(sess, json_type_object))
		fail("cannot resume '%s': '%s' is not a JSON object", run_id,
		     sp);
	/* The pointer names the run by its canonical app/stamp id. */
	appdir = dft_path_normalize(ws);
	slash = strrchr(appdir, '/');
	if (slash != NULL && slash != appdir)
		*slash = '\0';
	write_current_run(appdir, dft_json_str(sess, "run_id", run_id));
	dft_emit_put(stdout, sess);
	emit_step(&st, 1, "ok");
	free(appdir);
	free(sp);
	free(ws);
	free(run_id);
	free(root);
	return DFT_EXIT_OK;
}

static void
add_paths(json_object *sess, const char *ws)
{
	json_object *paths = json_object_new_object();

	for (size_t i = 0; i < NLAYOUT; i++) {
		char *p = dft_path_join(ws, layout[i]);

		json_object_object_add(paths, layout[i], dft_jstr(p));
		free(p);
	}
	json_object_object_add(sess, "paths", paths);
}

/* Clones url into src; sets ref, ref kind and commit in sess. */
static int
clone_git(const char *url, const char *src, const struct opts *o,
	  json_object *sess, json_object *subs)
{
	git_clone_options co;
	struct clone_ctx c;
	git_repository *repo = NULL;
	char hex[GIT_OID_HEXSZ + 1];
	char *branch = NULL;
	const char *kind = "branch";
	int rc, failed;

	memset(&c, 0, sizeof(c));
	git_clone_options_init(&co, GIT_CLONE_OPTIONS_VERSION);
	dft_progress_init(&c.checkout, "checking out", 0);
	set_fetch_opts(&co.fetch_opts, &c);
	set_checkout_opts(&co.checkout_opts, &c,
			  o->ref != NULL ? GIT_CHECKOUT_NONE
					 : GIT_CHECKOUT_SAFE);
	rc = git_clone(&repo, url, src, &co);
	if (c.fetch_started)
		dft_progress_done(&c.fetch);
	check_interrupted();
	if (rc < 0)
		fail("cannot clone '%s': %s", url, lg2_msg(rc));
	if (o->ref != NULL)
		checkout_ref(repo, o->ref, &c, &kind);
	dft_progress_done(&c.checkout);
	head_info(repo, hex, sizeof(hex), &branch);
	if (o->ref == NULL && branch == NULL)
		kind = hex[0] ? "commit" : NULL;
	json_object_object_add(sess, "ref", dft_jstr(
	    o->ref != NULL ? o->ref : branch));
	json_object_object_add(sess, "ref_kind", dft_jstr(kind));
	json_object_object_add(sess, "commit", dft_jstr(hex[0] ? hex : NULL));
	failed = update_submodules(repo, "", &c, subs, 1);
	dft_progress_done(&c.checkout);
	free(branch);
	git_repository_free(repo);
	return failed ? DFT_EXIT_DATA : DFT_EXIT_OK;
}

/*
 * dft_copy_tree(from, to) except the directory skip (the workspace root,
 * when it lies inside the directory being copied).
 */
static int
copy_skipping(const char *from, const char *to, const char *skip)
{
	struct dirent **ents = NULL;
	struct stat st;
	int n, rc = 0;

	if (!dft_path_is_inside(from, skip))
		return dft_copy_tree(from, to);
	if (lstat(from, &st) < 0 || mkdir(to, st.st_mode & 07777) < 0)
		return -1;
	n = scandir(from, &ents, NULL, alphasort);
	if (n < 0)
		return -1;
	for (int i = 0; i < n; i++) {
		const char *name = ents[i]->d_name;

		if (strcmp(name, ".") != 0 && strcmp(name, "..") != 0) {
			char *f = dft_path_join(from, name);
			char *t = dft_path_join(to, name);

			if (strcmp(f, skip) != 0 &&
			    copy_skipping(f, t, skip) < 0)
				rc = -1;
			free(f);
			free(t);
		}
		free(ents[i]);
	}
	free(ents);
	return rc;
}

/* Copies a local directory; a repository's HEAD is still recorded. */
static void
copy_dir(const char *dir, const char *src, const char *root,
	 json_object *sess)
{
	git_repository *repo = NULL;
	char hex[GIT_OID_HEXSZ + 1] = "";
	char rr[PATH_MAX];
	char *branch = NULL;

	if (realpath(root, rr) == NULL)
		fail("cannot resolve '%s':", root);
	if (copy_skipping(dir, src, rr) < 0) {
		int saved = errno;

		check_interrupted();
		errno = saved;
		fail("cannot copy '%s' to '%s':", dir, src);
	}
	check_interrupted();
	if (git_repository_open_ext(&repo, dir,
				    GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) == 0)
		head_info(repo, hex, sizeof(hex), &branch);
	json_object_object_add(sess, "ref", dft_jstr(branch));
	json_object_object_add(sess, "ref_kind",
			       dft_jstr(branch ? "branch" : NULL));
	json_object_object_add(sess, "commit", dft_jstr(hex[0] ? hex : NULL));
	free(branch);
	git_repository_free(repo);
}

static int
clone_new(const struct opts *o, const char *url)
{
	struct dft_step st;
	char created[32];
	char *root = root_path(o), *app, *appdir, *ws = NULL, *name, *src;
	char *run_id, *sp, *local = NULL, *display;
	json_object *sess, *subs;
	int copy = 0, status = DFT_EXIT_OK;

	dft_step_begin(&st, "clone");
	dft_iso_now(created, sizeof(created));
	if (is_local_path(url)) {
		git_repository *probe = NULL;
		struct stat sb;

		if (stat(url, &sb) < 0)
			fail("cannot access '%s':", url);
		if (!S_ISDIR(sb.st_mode))
			fail("'%s' is not a directory", url);
		local = realpath(url, NULL);
		if (local == NULL)
			fail("cannot resolve '%s':", url);
		copy = o->copy || git_repository_open_ext(&probe, local,
		    GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) < 0;
		git_repository_free(probe);
		if (copy && o->ref != NULL)
			fail("'%s' is copied, not cloned: --ref needs a "
			     "repository", url);
	} else if (o->copy) {
		fail("--copy needs a local directory, not '%s'", url);
	}
	app = app_name_for(url);
	display = local != NULL ? local : dft_xstrdup(url);
	appdir = dft_path_join(root, app);
	make_dir(root, &cleanup.root);
	make_dir(appdir, &cleanup.appdir);
	check_inside(root, appdir);
	name = make_run_dir(appdir, o->name, &ws);
	check_inside(root, ws);
	run_id = dft_xasprintf("%s/%s", app, name);

	sess = json_object_new_object();
	subs = json_object_new_array();
	json_object_object_add(sess, "type", dft_jstr("session"));
	json_object_object_add(sess, "v", dft_jint(1));
	json_object_object_add(sess, "run_id", dft_jstr(run_id));
	json_object_object_add(sess, "app", dft_jstr(app));
	json_object_object_add(sess, "url", dft_jstr(display));
	src = dft_path_join(ws, "source");
	if (copy) {
		copy_dir(local, src, root, sess);
	} else {
		status = clone_git(local != NULL ? local : url, src, o, sess,
				   subs);
	}
	json_object_object_add(sess, "source_kind",
			       dft_jstr(copy ? "copy" : "git"));
	json_object_object_add(sess, "created_at", dft_jstr(created));
	json_object_object_add(sess, "workspace", dft_jstr(ws));
	add_paths(sess, ws);
	for (size_t i = 1; i < NLAYOUT; i++) {
		char *p = dft_path_join(ws, layout[i]);

		if (mkdir(p, 0777) < 0)
			fail("cannot create '%s':", p);
		free(p);
	}
	detect(sess, src);
	json_object_object_add(sess, "submodules", subs);
	check_interrupted();
	sp = dft_path_join(ws, "session.json");
	if (dft_json_save(sp, sess) < 0)
		fail("cannot write '%s':", sp);
	dft_emit_put(stdout, sess);
	emit_step(&st, 0, status == DFT_EXIT_OK ? "ok" : "partial");
	/* A run nobody was told about is removed like any failed one. */
	if (fflush(stdout) == EOF || ferror(stdout))
		fail("write error:");
	write_current_run(appdir, run_id);
	/* From here on the workspace is complete: keep it. */
	free(cleanup.ws);
	free(cleanup.appdir);
	free(cleanup.root);
	memset(&cleanup, 0, sizeof(cleanup));
	free(sp);
	free(src);
	free(run_id);
	free(name);
	free(ws);
	free(appdir);
	free(display);
	free(app);
	free(root);
	return status;
}

int
main(int argc, char **argv)
{
	struct opts o;
	const char *url;
	int c, status;

	dft_init("dft-clone");
	memset(&o, 0, sizeof(o));
	while ((c = getopt_long(argc, argv, "w:r:n:hV", long_options,
				NULL)) != -1) {
		switch (c) {
		case 'w':
			o.root = optarg;
			break;
		case 'r':
			o.ref = optarg;
			break;
		case 'n':
			o.name = optarg;
			break;
		case OPT_COPY:
			o.copy = 1;
			break;
		case OPT_RESUME:
			o.resume = optarg;
			break;
		case OPT_PRINT_APP_NAME:
			o.print_app_name = 1;
			break;
		case 'h':
			fputs(usage_text, stdout);
			fputs("\n", stdout);
			fputs(help_text, stdout);
			return dft_close_stdout();
		case 'V':
			dft_print_version();
			return dft_close_stdout();
		default:
			dft_usage_error(usage_text, NULL);
		}
	}
	argc -= optind;
	argv += optind;

	/* Combinations, before any work. */
	if (argc > 1)
		dft_usage_error(usage_text, "too many operands");
	if (argc == 0 && o.resume == NULL)
		dft_usage_error(usage_text, "missing url operand");
	url = argc > 0 ? argv[0] : NULL;
	if (url != NULL && url[0] == '\0' && !o.print_app_name)
		dft_usage_error(usage_text, "empty url operand");
	if (o.print_app_name && (o.resume || o.ref || o.name || o.copy ||
				 o.root))
		dft_usage_error(usage_text, "--print-app-name takes only a "
				"url");
	if (o.resume != NULL && (o.ref || o.name || o.copy))
		dft_usage_error(usage_text, "--resume cannot be combined "
				"with --ref, --name or --copy");
	if (o.resume != NULL && o.resume[0] == '\0')
		dft_usage_error(usage_text, "empty run id");
	if (o.name != NULL && !valid_name(o.name))
		dft_usage_error(usage_text, "invalid run name '%s' (letters, "
				"digits, '_', '-', '.'; not starting with "
				"'.')", o.name);
	if (o.ref != NULL && o.ref[0] == '\0')
		dft_usage_error(usage_text, "empty ref");

	if (o.print_app_name) {
		char *app = app_name_for(url);

		puts(app);
		free(app);
		return dft_close_stdout();
	}
	cwd_fd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (cwd_fd < 0)
		dft_die("cannot open the working directory:");
	if (git_libgit2_init() < 0)
		dft_die("cannot initialise libgit2: %s", lg2_msg(-1));
	catch_signals();
	/* Whatever way this process exits early, it leaves no half run. */
	atexit(cleanup_run);
	if (o.resume != NULL)
		status = resume(&o, url);
	else
		status = clone_new(&o, url);
	git_libgit2_shutdown();
	return dft_worst(status, dft_close_stdout());
}
