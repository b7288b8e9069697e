/*
 * compdb.c - compile_commands.json loader (issue 3).
 *
 * Reads a JSON compilation database (CMake, Bear, or scripts/dft-cc) into
 * absolute, normalized entries, and turns one entry into the argument list
 * libclang wants: no compiler name, no source file, no output or dependency
 * options, relative include paths made absolute against the entry's
 * directory (libclang resolves them against our working directory).
 * It does not run anything and does not read the source files.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "compdb.h"

/* Splits a shell-quoted "command" string as POSIX sh would for words. */
static char **
split_command(const char *s, int *argc)
{
	char **v = NULL;
	int n = 0, cap = 0;
	struct dft_buf w;
	int inword = 0;

	dft_buf_init(&w);
	for (;;) {
		char c = *s;

		if (c == '\0' || c == ' ' || c == '\t' || c == '\n') {
			if (inword) {
				if (n + 2 > cap) {
					cap = cap ? cap * 2 : 16;
					v = dft_xreallocarray(v, cap, sizeof(*v));
				}
				v[n++] = dft_xstrdup(w.s);
				dft_buf_reset(&w);
				inword = 0;
			}
			if (c == '\0')
				break;
			s++;
			continue;
		}
		inword = 1;
		if (c == '\\' && s[1]) {
			dft_buf_addc(&w, s[1]);
			s += 2;
		} else if (c == '\'') {
			s++;
			while (*s && *s != '\'')
				dft_buf_addc(&w, *s++);
			if (*s)
				s++;
		} else if (c == '"') {
			s++;
			while (*s && *s != '"') {
				if (*s == '\\' && (s[1] == '"' || s[1] == '\\' ||
						   s[1] == '$' || s[1] == '`'))
					s++;
				dft_buf_addc(&w, *s++);
			}
			if (*s)
				s++;
		} else {
			dft_buf_addc(&w, c);
			s++;
		}
	}
	dft_buf_release(&w);
	if (!v)
		v = dft_xcalloc(1, sizeof(*v));
	v[n] = NULL;
	*argc = n;
	return v;
}

static char *
abs_against(const char *dir, const char *p)
{
	char *j, *r;

	if (p[0] == '/')
		return dft_path_normalize(p);
	j = dft_path_join(dir, p);
	r = dft_path_normalize(j);
	free(j);
	return r;
}

void
dft_strv_free(char **v)
{
	size_t i;

	if (!v)
		return;
	for (i = 0; v[i]; i++)
		free(v[i]);
	free(v);
}

void
dft_compdb_init(struct dft_compdb *db)
{
	db->cmds = NULL;
	db->n = 0;
}

void
dft_compdb_release(struct dft_compdb *db)
{
	size_t i;

	for (i = 0; i < db->n; i++) {
		free(db->cmds[i].directory);
		free(db->cmds[i].file);
		free(db->cmds[i].output);
		dft_strv_free(db->cmds[i].argv);
	}
	free(db->cmds);
	dft_compdb_init(db);
}

int
dft_compdb_open(struct dft_compdb *db, const char *path, char **file)
{
	char *f = dft_is_dir(path) ?
		  dft_path_join(path, "compile_commands.json") :
		  dft_xstrdup(path);
	int rc = dft_compdb_load(db, f);

	if (rc < 0)
		dft_warn("cannot read the compile database '%s':", f);
	if (file != NULL)
		*file = f;
	else
		free(f);
	return rc;
}

int
dft_compdb_load(struct dft_compdb *db, const char *path)
{
	json_object *root = dft_json_load(path), *e, *args;
	char *dbdir = NULL, *abspath;
	size_t i, n;

	if (!root)
		return -1;
	if (!json_object_is_type(root, json_type_array)) {
		json_object_put(root);
		errno = EINVAL;
		return -1;
	}
	abspath = dft_path_absolute(path);
	dbdir = dft_xstrdup(abspath);
	if (strrchr(dbdir, '/') == dbdir)
		dbdir[1] = '\0';
	else
		*strrchr(dbdir, '/') = '\0';
	free(abspath);
	n = json_object_array_length(root);
	db->cmds = dft_xreallocarray(db->cmds, db->n + n + 1,
				     sizeof(*db->cmds));
	for (i = 0; i < n; i++) {
		struct dft_compile_cmd *c = &db->cmds[db->n];
		const char *dir, *file, *cmd, *out;

		e = json_object_array_get_idx(root, i);
		dir = dft_json_str(e, "directory", NULL);
		file = dft_json_str(e, "file", NULL);
		if (!file)
			continue;
		c->directory = dir ? abs_against(dbdir, dir)
				   : dft_xstrdup(dbdir);
		c->file = abs_against(c->directory, file);
		out = dft_json_str(e, "output", NULL);
		c->output = out ? abs_against(c->directory, out) : NULL;
		args = NULL;
		if (json_object_object_get_ex(e, "arguments", &args) &&
		    json_object_is_type(args, json_type_array)) {
			size_t k, na = json_object_array_length(args);

			c->argv = dft_xcalloc(na + 1, sizeof(char *));
			for (k = 0; k < na; k++) {
				const char *a = json_object_get_string(
					json_object_array_get_idx(args, k));
				c->argv[k] = dft_xstrdup(a ? a : "");
			}
			c->argc = (int)na;
		} else if ((cmd = dft_json_str(e, "command", NULL))) {
			c->argv = split_command(cmd, &c->argc);
		} else {
			c->argv = dft_xcalloc(1, sizeof(char *));
			c->argc = 0;
		}
		db->n++;
	}
	free(dbdir);
	json_object_put(root);
	return 0;
}

/* 1 when the compiler named by argv0 is a C++ driver. */
static int
is_cxx_driver(const char *argv0)
{
	const char *b = dft_path_base(argv0);
	static const char *const names[] = {
		"c++", "CC", "mpicxx", "mpic++", "mpiCC", "cxx", NULL
	};
	int i;

	for (i = 0; names[i]; i++)
		if (strcmp(b, names[i]) == 0)
			return 1;
	return strstr(b, "++") != NULL || strstr(b, "mpicxx") != NULL;
}

static int
is_cxx_suffix(const char *f)
{
	static const char *const s[] = {
		".cc", ".cpp", ".cxx", ".c++", ".C", ".CC", ".CPP", ".CXX",
		".hpp", ".hh", ".hxx", ".H", ".ii", ".cp", NULL
	};
	int i;

	for (i = 0; s[i]; i++)
		if (dft_has_suffix(f, s[i]))
			return 1;
	return 0;
}

/* Options whose value is the next argument and a path. */
static const char *const path_opts[] = {
	"-I", "-isystem", "-iquote", "-idirafter", "-include", "-imacros",
	"-isysroot", "--sysroot", "-iprefix", "-iwithprefix", "-F", NULL
};
/* Options (with a separate value) that libclang must not see. */
static const char *const drop_opts_val[] = {
	"-o", "-MF", "-MT", "-MQ", "-Xlinker", "-L", "-l", "-u",
	"--param", "-aux-info", NULL
};
/* Options (with a separate value) passed on as they are. */
static const char *const keep_opts_val[] = {
	"-D", "-U", "-target", "-arch", "-Xclang", "-mllvm",
	"-Xpreprocessor", "-std", NULL
};
static const char *const drop_opts[] = {
	"-c", "-S", "-E", "-M", "-MM", "-MD", "-MMD", "-MG", "-MP", "-pipe",
	"-save-temps", "-fsyntax-only", "-v", "-shared", "-static", "-s",
	"-rdynamic", "-pie", "-no-pie", NULL
};

char **
dft_compdb_clang_args(const struct dft_compile_cmd *c, const char **lang)
{
	char **v = dft_xcalloc((size_t)c->argc * 2 + 4, sizeof(char *));
	int i, n = 0, cxx, has_x = 0;
	cxx = c->argc > 0 && is_cxx_driver(c->argv[0]);
	if (is_cxx_suffix(c->file))
		cxx = 1;
	for (i = 1; i < c->argc; i++) {
		const char *a = c->argv[i];
		if (strcmp(a, "-x") == 0 && i + 1 < c->argc) {
			has_x = 1;
			if (strstr(c->argv[i + 1], "c++"))
				cxx = 1;
			else if (strcmp(c->argv[i + 1], "c") == 0)
				cxx = 0;
			v[n++] = dft_xstrdup(a);
			v[n++] = dft_xstrdup(c->argv[++i]);
			continue;
		}
		if (dft_in_list(a, drop_opts))
			continue;
		if (dft_in_list(a, drop_opts_val)) {
			i++;
			continue;
		}
		if ((a[0] == '-' && (a[1] == 'l' || a[1] == 'L') && a[2]) ||
		    dft_has_prefix(a, "-Wl,") || dft_has_prefix(a, "-Wa,") ||
		    dft_has_prefix(a, "-MF") || dft_has_prefix(a, "-MT") ||
		    dft_has_prefix(a, "-MQ") || dft_has_prefix(a, "-o"))
			continue;
		if (a[0] != '-')
			continue;	/* inputs: this file, others, objects */
		if (dft_in_list(a, keep_opts_val) && i + 1 < c->argc) {
			v[n++] = dft_xstrdup(a);
			v[n++] = dft_xstrdup(c->argv[++i]);
			continue;
		}
		if (dft_in_list(a, path_opts) && i + 1 < c->argc) {
			v[n++] = dft_xstrdup(a);
			v[n++] = abs_against(c->directory, c->argv[++i]);
			continue;
		}
		if (a[1] == 'I' && a[2] && a[2] != '/') {
			char *p = abs_against(c->directory, a + 2);

			v[n++] = dft_xasprintf("-I%s", p);
			free(p);
			continue;
		}
		v[n++] = dft_xstrdup(a);
	}
	if (cxx && !has_x && !is_cxx_suffix(c->file)) {
		/* a .c file built by a C++ compiler is C++ */
		v[n++] = dft_xstrdup("-x");
		v[n++] = dft_xstrdup("c++");
	}
	v[n] = NULL;
	*lang = cxx ? "cpp" : "c";
	return v;
}

/* ---- --prefix-map -------------------------------------------------------- */

int
dft_prefix_maps_add(struct dft_prefix_map **v, size_t *n, const char *arg)
{
	const char *eq = strchr(arg, '=');
	struct dft_prefix_map *m;
	char *old;

	if (!eq || eq == arg || eq[1] == '\0')
		return -1;
	old = dft_xstrdup(arg);
	old[eq - arg] = '\0';
	*v = dft_xreallocarray(*v, *n + 1, sizeof(**v));
	m = &(*v)[(*n)++];
	m->arg = dft_xstrdup(arg);
	m->old = dft_path_absolute(old);
	m->new = dft_path_absolute(eq + 1);
	m->hits = 0;
	free(old);
	return 0;
}

void
dft_prefix_maps_free(struct dft_prefix_map *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(v[i].arg);
		free(v[i].old);
		free(v[i].new);
	}
	free(v);
}

/* The map with the longest OLD that is path or above it, or NULL. */
static struct dft_prefix_map *
best_map(struct dft_prefix_map *maps, size_t n, const char *path)
{
	struct dft_prefix_map *best = NULL;
	size_t i;

	for (i = 0; i < n; i++)
		if (dft_path_is_inside(maps[i].old, path) &&
		    (!best || strlen(maps[i].old) > strlen(best->old)))
			best = &maps[i];
	return best;
}

/* path (absolute, normalized, below m->old) moved to m->new. */
static char *
remap(const struct dft_prefix_map *m, const char *path)
{
	const char *rest = strcmp(m->old, "/") ? path + strlen(m->old) : path;
	char *j, *r;

	j = dft_xasprintf("%s%s", m->new, rest);
	r = dft_path_normalize(j);
	free(j);
	return r;
}

/*
 * A path option's value p (absolute) of a rewritten entry: moved when it
 * is under some OLD and its NEW counterpart exists, else p. Takes p.
 */
static char *
map_existing(struct dft_prefix_map *maps, size_t n, char *p)
{
	struct dft_prefix_map *m = best_map(maps, n, p);
	char *moved;

	if (!m)
		return p;
	moved = remap(m, p);
	if (!dft_exists(moved)) {
		free(moved);
		return p;
	}
	free(p);
	return moved;
}

static const char *const include_dir_opts[] = {
	"-I", "-iquote", "-isystem", "-idirafter", NULL
};

/*
 * argv of an entry whose original directory was odir: every path option
 * absolute (relative ones against odir) and moved where the copy exists;
 * then -Iodir, then each moved include directory's original, with its
 * own option, so what only the build copy has is still found.
 */
static char **
map_args(struct dft_prefix_map *maps, size_t nmaps, char **argv, int *argc,
	 const char *odir)
{
	char **v = dft_xcalloc((size_t)*argc * 2 + 2, sizeof(char *));
	char **tail = dft_xcalloc((size_t)*argc + 1, sizeof(char *));
	int i, n = 0, nt = 0, k;

	for (i = 0; i < *argc; i++) {
		const char *a = argv[i], *opt = NULL, *val = NULL;
		int sep = 0;
		char *abs, *p;

		if (i > 0 && dft_in_list(a, path_opts) && i + 1 < *argc) {
			opt = a;
			val = argv[++i];
			sep = 1;
		}
		for (k = 0; i > 0 && !opt && include_dir_opts[k]; k++)
			if (dft_has_prefix(a, include_dir_opts[k]) &&
			    a[strlen(include_dir_opts[k])]) {
				opt = include_dir_opts[k];
				val = a + strlen(opt);
			}
		if (!opt) {
			v[n++] = dft_xstrdup(a);
			continue;
		}
		abs = abs_against(odir, val);
		p = map_existing(maps, nmaps, dft_xstrdup(abs));
		if (strcmp(p, abs) != 0 && dft_in_list(opt, include_dir_opts))
			tail[nt++] = dft_xasprintf("%s%s", opt, abs);
		if (sep) {
			v[n++] = dft_xstrdup(opt);
			v[n++] = p;
		} else {
			v[n++] = dft_xasprintf("%s%s", opt, p);
			free(p);
		}
		free(abs);
	}
	v[n++] = dft_xasprintf("-I%s", odir);
	for (k = 0; k < nt; k++)
		v[n++] = tail[k];
	free(tail);
	v[n] = NULL;
	*argc = n;
	return v;
}

void
dft_compdb_map(struct dft_compdb *db, struct dft_prefix_map *maps, size_t n)
{
	size_t i;

	for (i = 0; i < db->n; i++) {
		struct dft_compile_cmd *c = &db->cmds[i];
		struct dft_prefix_map *m = best_map(maps, n, c->file), *dm;
		char *odir, **argv;

		if (!m)
			continue;
		m->hits++;
		odir = c->directory;
		argv = map_args(maps, n, c->argv, &c->argc, odir);
		dft_strv_free(c->argv);
		c->argv = argv;
		dm = best_map(maps, n, odir);
		c->directory = dm ? remap(dm, odir) : dft_xstrdup(odir);
		free(odir);
		odir = c->file;
		c->file = remap(m, odir);
		free(odir);
	}
	for (i = 0; i < n; i++)
		if (!maps[i].hits)
			dft_warn("--prefix-map '%s' matched no compile "
				 "database entry", maps[i].arg);
}

/*
 * The source operands of dft-funcs and dft-lint: C and C++ sources and
 * headers (man dft-funcs(1), dft-lint(1)).
 */
const char *const dft_c_suffixes[] = {
	".c", ".cc", ".cpp", ".cxx", ".c++", ".C", ".CC", ".CPP", ".CXX",
	".cp", ".h", ".hh", ".hpp", ".hxx", ".H", ".i", ".ii", NULL
};

int
dft_is_c_source(const char *path)
{
	int i;

	for (i = 0; dft_c_suffixes[i]; i++)
		if (dft_has_suffix(path, dft_c_suffixes[i]))
			return 1;
	return 0;
}

int
dft_is_source(const char *path)
{
	return dft_is_c_source(path) || dft_has_suffix(path, ".py");
}
