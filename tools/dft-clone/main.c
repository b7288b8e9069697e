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
 *
 * main.c holds the options, the workspace and --resume; run.c what a
 * failure removes, the signals and the messages; source.c the clone or
 * copy; detect.c the detection (clone.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <git2.h>

#include "clone.h"
#include "options.h"

static const char usage_text[] =
	"usage: dft-clone [-w root] [-r ref] [-n name] [--copy] "
	"[--no-submodules]\n"
	"                 [--allow-file-submodules] url\n"
	"       dft-clone [-w root] --resume run_id [url]\n"
	"       dft-clone --print-app-name url\n";

static const char help_text[] =
	"\n"
	"Clone an application into a new workspace and print its session "
	"record.\n"
	"\n"
	"  -w, --workspaces root  workspace root ($DFT_WORKSPACES, else "
	"./workspaces)\n"
	"  -r, --ref ref          branch, tag or commit (default: the "
	"remote's HEAD)\n"
	"  -n, --name name        run directory name instead of "
	"YYYYMMDD_HHMMSS\n"
	"      --copy             copy a local directory even if it is a "
	"repository\n"
	"      --no-submodules    do not fetch submodules (listed as "
	"skipped)\n"
	"      --allow-file-submodules  check out submodules with file:// "
	"URLs\n"
	"      --resume run_id    reopen a workspace: app/stamp, stamp with "
	"url, app\n"
	"      --print-app-name   print the application name for url and "
	"exit\n"
	"  -h, --help             print this help and exit\n"
	"  -V, --version          print the version and exit\n";

enum {
	OPT_COPY = 256,
	OPT_RESUME,
	OPT_PRINT_APP_NAME,
	OPT_NO_SUBMODULES,
	OPT_ALLOW_FILE_SUBMODULES,
};

static const struct option long_options[] = {
	{ "workspaces", required_argument, NULL, 'w' },
	{ "ref", required_argument, NULL, 'r' },
	{ "name", required_argument, NULL, 'n' },
	{ "copy", no_argument, NULL, OPT_COPY },
	{ "resume", required_argument, NULL, OPT_RESUME },
	{ "print-app-name", no_argument, NULL, OPT_PRINT_APP_NAME },
	{ "no-submodules", no_argument, NULL, OPT_NO_SUBMODULES },
	{ "allow-file-submodules", no_argument, NULL,
	  OPT_ALLOW_FILE_SUBMODULES },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

/*
 * "warnings": one sentence per submodule that could not be fetched (the
 * clone went on without it).
 */
static void
add_warnings(json_object *sess, json_object *subs)
{
	json_object *w = json_object_new_array();

	for (size_t i = 0; i < json_object_array_length(subs); i++) {
		json_object *s = json_object_array_get_idx(subs, i);

		if (strcmp(dft_json_str(s, "status", ""), "failed") != 0 &&
		    strcmp(dft_json_str(s, "status", ""), "refused") != 0)
			continue;
		char *m = dft_xasprintf("submodule '%s' from '%s' could not "
		    "be fetched (%s); the workspace has no copy of it",
		    dft_json_str(s, "path", "?"), dft_json_str(s, "url", "?"),
		    dft_json_str(s, "error", "no reason given"));

		json_object_array_add(w, dft_jstr(m));
		free(m);
	}
	json_object_object_add(sess, "warnings", w);
}

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

/* ---- workspace ----------------------------------------------------------- */

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

/*
 * mkdir -p that records the highest directory it created, for the
 * clean-up. path is absolute and normalized.
 */
static void
make_dir(const char *path, char **created)
{
	char *top;

	if (dft_is_dir(path))
		return;
	top = dft_xstrdup(path);
	for (;;) {
		char *slash = strrchr(top, '/');

		if (slash == NULL || slash == top)
			break;
		*slash = '\0';
		if (dft_exists(top)) {
			*slash = '/';
			break;
		}
	}
	if (dft_mkdir_p(path, 0777) < 0) {
		free(top);
		fail("cannot create '%s':", path);
	}
	*created = top;
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
		clone_cleanup.ws = dft_xstrdup(*ws);
		return dft_xstrdup(name);
	}
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d_%H%M%S", &tm);
	for (int i = 1; i < 100; i++) {
		char *n = i == 1 ? dft_xstrdup(stamp)
				 : dft_xasprintf("%s_%d", stamp, i);

		*ws = dft_path_join(appdir, n);
		if (mkdir(*ws, 0777) == 0) {
			clone_cleanup.ws = dft_xstrdup(*ws);
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

/* ---- the two modes ------------------------------------------------------- */

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
	display = local != NULL ? local : redact_url(url);
	appdir = dft_path_join(root, app);
	make_dir(root, &clone_cleanup.root);
	if (clone_cleanup.root != NULL)
		clone_cleanup.root_leaf = dft_xstrdup(root);
	make_dir(appdir, &clone_cleanup.appdir);
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
	/* no write may follow a link of the source out of the workspace */
	if (dft_tree_confine_links(src, local ? local : src) < 0)
		fail("cannot check the symbolic links of '%s':", src);
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
	add_warnings(sess, subs);
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
	free(clone_cleanup.ws);
	free(clone_cleanup.appdir);
	free(clone_cleanup.root);
	free(clone_cleanup.root_leaf);
	memset(&clone_cleanup, 0, sizeof(clone_cleanup));
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
	while ((c = dft_getopt(argc, argv, "w:r:n:hV", long_options)) != -1) {
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
		case OPT_NO_SUBMODULES:
			o.no_submodules = 1;
			break;
		case OPT_ALLOW_FILE_SUBMODULES:
			o.allow_file_submodules = 1;
			break;
		case 'h':
			return dft_help(usage_text, help_text);
		case 'V':
			return dft_version();
		default:
			dft_option_error(usage_text, c, argv, long_options);
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
		dft_usage_error(usage_text, "--resume and %s exclude each other",
				o.ref ? "--ref" : o.name ? "--name" : "--copy");
	if (o.resume != NULL && o.resume[0] == '\0')
		dft_bad_value(usage_text, "--resume", o.resume,
			      "a run id: app/stamp, stamp or app");
	if (o.name != NULL && !valid_name(o.name))
		dft_bad_value(usage_text, "--name", o.name, "letters, digits, "
			      "'_', '-', '.'; not starting with '.'");
	if (o.ref != NULL && o.ref[0] == '\0')
		dft_bad_value(usage_text, "--ref", o.ref,
			      "a branch, tag or commit");

	if (o.print_app_name) {
		char *app = app_name_for(url);

		puts(app);
		free(app);
		return dft_close_stdout();
	}
	clone_cwd_fd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (clone_cwd_fd < 0)
		dft_die("cannot open the working directory:");
	if (git_libgit2_init() < 0)
		dft_die("cannot initialise libgit2: %s", lg2_msg(-1));
	/*
	 * A repository owned by someone else (a colleague's shared project)
	 * is cloned, not mistaken for a plain directory: the ownership check
	 * guards against running programs named in its configuration, and
	 * libgit2 runs none.
	 */
	git_libgit2_opts(GIT_OPT_SET_OWNER_VALIDATION, 0);
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

