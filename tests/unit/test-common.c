/*
 * test-common.c - unit checks of common/ that are easier in C than in sh.
 * Usage: test-common NAME; prints what it computed, exits 0 when the
 * checks of NAME hold. tests/common.bats runs each.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dft.h"
#include "compdb.h"

static int failures;

static void
expect_str(const char *what, const char *got, const char *want)
{
	if (strcmp(got, want) != 0) {
		fprintf(stderr, "FAIL %s: got '%s', want '%s'\n", what, got,
			want);
		failures++;
	}
}

static void
expect_int(const char *what, long got, long want)
{
	if (got != want) {
		fprintf(stderr, "FAIL %s: got %ld, want %ld\n", what, got,
			want);
		failures++;
	}
}

static void
check_norm(const char *in, const char *want)
{
	char *n = dft_path_normalize(in);

	expect_str(in, n, want);
	free(n);
}

static void
test_paths(void)
{
	char *j;

	check_norm("/a/b/../c", "/a/c");
	check_norm("a//b/./c/", "a/b/c");
	check_norm("/../x", "/x");
	check_norm("../a/../../b", "../../b");
	check_norm("a/..", ".");
	check_norm("/", "/");
	check_norm("", ".");
	j = dft_path_join("/ws/", "/source");
	expect_str("join", j, "/ws/source");
	free(j);
	j = dft_path_join("/", "x");
	expect_str("join root", j, "/x");
	free(j);
	expect_int("inside self", dft_path_is_inside("/ws", "/ws"), 1);
	expect_int("inside child", dft_path_is_inside("/ws", "/ws/a/b"), 1);
	expect_int("sibling prefix", dft_path_is_inside("/ws", "/wsx/a"), 0);
	expect_int("escape", dft_path_is_inside("/ws", "/ws/a/../../etc"), 0);
	expect_int("root", dft_path_is_inside("/", "/etc"), 1);
	expect_str("base", dft_path_base("/a/b.c"), "b.c");
}

static void
test_numbers(void)
{
	long v = 0;
	double d = 0;

	expect_int("parse ok", dft_parse_long("42", 0, 100, &v), 0);
	expect_int("parse value", v, 42);
	expect_int("parse range", dft_parse_long("420", 0, 100, &v), -1);
	expect_int("parse junk", dft_parse_long("4x", 0, 100, &v), -1);
	expect_int("parse empty", dft_parse_long("", 0, 100, &v), -1);
	expect_int("double ok", dft_parse_double("1.5", &d), 0);
	expect_int("double junk", dft_parse_double("1.5s", &d), -1);
}

static void
test_buf(void)
{
	struct dft_buf b;
	char *s;

	dft_buf_init(&b);
	for (int i = 0; i < 1000; i++)
		dft_buf_addf(&b, "%d,", i);
	expect_int("buf len", (long)b.len, 3890);
	s = dft_buf_detach(&b);
	expect_str("buf head", (char[]){ s[0], s[1], s[2], s[3], 0 }, "0,1,");
	free(s);
	expect_int("buf reset", (long)b.len, 0);
}

static void
test_time(void)
{
	char buf[32];

	dft_iso_time(1796000000.25, buf, sizeof(buf));
	expect_str("iso", buf, "2026-11-30T00:53:20.250Z");
	expect_int("monotonic", dft_monotonic() > 0, 1);
}

static void
test_atomic(const char *dir)
{
	char *p = dft_path_join(dir, "f.txt");
	size_t n;
	char *s;

	expect_int("write", dft_write_file_atomic(p, "one\n", 4), 0);
	expect_int("rewrite", dft_write_file_atomic(p, "two\n", 4), 0);
	s = dft_read_file(p, &n);
	expect_str("read back", s, "two\n");
	free(s);
	free(p);
	p = dft_path_join(dir, "no/such/dir/f");
	errno = 0;
	expect_int("write into missing dir", dft_write_file_atomic(p, "x", 1),
		   -1);
	free(p);
}

static void
test_proc(const char *dir)
{
	const char *echo[] = { "sh", "-c", "echo \"$DFT_T\"; pwd; exit 3",
			       NULL };
	const char *sleeper[] = { "sleep", "30", NULL };
	const char *missing[] = { "/no/such/program", NULL };
	const char *env[] = { "DFT_T=overlay", NULL };
	char *out = dft_path_join(dir, "out.txt");
	struct dft_proc_opts o = { .cwd = "/", .env = env,
				   .output_path = out };
	int st = -1;
	char *s;
	double t0;

	expect_int("run", dft_run(echo, &o, &st), 0);
	expect_int("status", st, 3);
	s = dft_read_file(out, NULL);
	expect_str("captured", s, "overlay\n/\n");
	free(s);
	o.timeout_s = 0.3;
	t0 = dft_monotonic();
	expect_int("run sleeper", dft_run(sleeper, &o, &st), 0);
	expect_int("timeout status", st, 124);
	expect_int("timeout quick", dft_monotonic() - t0 < 5, 1);
	expect_int("missing", dft_run(missing, NULL, &st), -1);
	expect_int("missing errno", errno, ENOENT);
	free(out);
}

static void
test_copy(const char *dir)
{
	char *src = dft_path_join(dir, "src"), *dst = dft_path_join(dir, "dst");
	char *f = dft_path_join(src, "a/b/c.txt");
	char *d = dft_path_join(src, "a/b");
	char *l = dft_path_join(src, "link");
	char *got = dft_path_join(dst, "a/b/c.txt");
	char *gl = dft_path_join(dst, "link");
	char target[64];
	ssize_t n;

	expect_int("mkdir_p", dft_mkdir_p(d, 0755), 0);
	expect_int("mkdir_p again", dft_mkdir_p(d, 0755), 0);
	dft_write_file_atomic(f, "c\n", 2);
	expect_int("symlink", symlink("a/b/c.txt", l), 0);
	expect_int("copy", dft_copy_tree(src, dst), 0);
	expect_int("copied file", dft_exists(got), 1);
	n = readlink(gl, target, sizeof(target) - 1);
	target[n > 0 ? n : 0] = '\0';
	expect_str("copied link", target, "a/b/c.txt");
	expect_int("rm_rf", dft_rm_rf(dst), 0);
	expect_int("gone", dft_exists(dst), 0);
	free(src); free(dst); free(f); free(d); free(l); free(got); free(gl);
}

/* --prefix-map on a database entry for DIR/old: paths and arguments. */
static void
test_compdb_map(const char *dir)
{
	static const char *const mk[] = {
		"old/src", "old/inc", "old/gen", "new/src", "new/inc", NULL
	};
	struct dft_prefix_map *maps = NULL;
	struct dft_compdb db;
	struct dft_buf want, got;
	size_t nmaps = 0;
	char *p, *json, *arg;
	int i;

	for (i = 0; mk[i]; i++) {
		p = dft_path_join(dir, mk[i]);
		expect_int(mk[i], dft_mkdir_p(p, 0755), 0);
		free(p);
	}
	json = dft_xasprintf(
		"[{\"directory\":\"%s/old/src\",\"file\":\"a.c\","
		"\"arguments\":[\"cc\",\"-DX\",\"-I../inc\",\"-iquote\","
		"\"../gen\",\"-isystem/abs\",\"-include\",\"cfg.h\","
		"\"-c\",\"a.c\"]},"
		"{\"directory\":\"/elsewhere\",\"file\":\"b.c\","
		"\"command\":\"cc -Iinc -c b.c\"}]", dir);
	p = dft_path_join(dir, "compile_commands.json");
	expect_int("write db", dft_write_file_atomic(p, json, strlen(json)),
		   0);
	dft_compdb_init(&db);
	expect_int("load", dft_compdb_load(&db, p), 0);
	free(p);
	free(json);
	expect_int("bad: no =", dft_prefix_maps_add(&maps, &nmaps, "x"), -1);
	expect_int("bad: empty OLD", dft_prefix_maps_add(&maps, &nmaps, "=x"),
		   -1);
	expect_int("bad: empty NEW", dft_prefix_maps_add(&maps, &nmaps, "x="),
		   -1);
	arg = dft_xasprintf("%s=%s/nowhere", dir, dir);
	expect_int("short map", dft_prefix_maps_add(&maps, &nmaps, arg), 0);
	free(arg);
	arg = dft_xasprintf("%s/old/=%s/new", dir, dir);
	expect_int("long map", dft_prefix_maps_add(&maps, &nmaps, arg), 0);
	free(arg);
	expect_int("maps", (long)nmaps, 2);
	dft_compdb_map(&db, maps, nmaps);
	expect_int("short map hits", (long)maps[0].hits, 0);
	expect_int("long map hits", (long)maps[1].hits, 1);

	p = dft_xasprintf("%s/new/src/a.c", dir);
	expect_str("file", db.cmds[0].file, p);
	free(p);
	p = dft_xasprintf("%s/new/src", dir);
	expect_str("directory", db.cmds[0].directory, p);
	free(p);
	dft_buf_init(&want);
	dft_buf_init(&got);
	dft_buf_addf(&want, "cc -DX -I%s/new/inc -iquote %s/old/gen "
		     "-isystem/abs -include %s/old/src/cfg.h -c a.c "
		     "-I%s/old/src -I%s/old/inc", dir, dir, dir, dir, dir);
	for (i = 0; i < db.cmds[0].argc; i++)
		dft_buf_addf(&got, "%s%s", i ? " " : "", db.cmds[0].argv[i]);
	expect_str("arguments", got.s, want.s);
	expect_int("argv ends", db.cmds[0].argv[db.cmds[0].argc] == NULL, 1);
	/* an entry under no OLD is left as it is */
	expect_str("other file", db.cmds[1].file, "/elsewhere/b.c");
	expect_int("other argc", db.cmds[1].argc, 4);
	dft_buf_release(&want);
	dft_buf_release(&got);
	dft_prefix_maps_free(maps, nmaps);
	dft_compdb_release(&db);
}

int
main(int argc, char **argv)
{
	dft_init("test-common");
	if (argc < 2)
		dft_usage_error("usage: test-common NAME [DIR]\n", "no test");
	if (strcmp(argv[1], "paths") == 0)
		test_paths();
	else if (strcmp(argv[1], "numbers") == 0)
		test_numbers();
	else if (strcmp(argv[1], "buf") == 0)
		test_buf();
	else if (strcmp(argv[1], "time") == 0)
		test_time();
	else if (strcmp(argv[1], "atomic") == 0 && argc > 2)
		test_atomic(argv[2]);
	else if (strcmp(argv[1], "proc") == 0 && argc > 2)
		test_proc(argv[2]);
	else if (strcmp(argv[1], "copy") == 0 && argc > 2)
		test_copy(argv[2]);
	else if (strcmp(argv[1], "compdb-map") == 0 && argc > 2)
		test_compdb_map(argv[2]);
	else
		dft_usage_error("usage: test-common NAME [DIR]\n",
				"unknown test '%s'", argv[1]);
	return failures ? 1 : 0;
}
