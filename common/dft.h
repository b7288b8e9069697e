/*
 * dft.h - the core of libdft: messages, allocation and strings, buffers,
 * NDJSON records, paths and files, time, step records, processes.
 * Elsewhere: trace.h (trace reader), compdb.h (compile database), tree.h
 * (source trees a tool copies or edits), options.h (command line).
 *
 * Conventions (../shared/reference/style.md): 0 (or a count) on success,
 * -1 with errno on error, no printing unless a comment says so; S_init()
 * prepares a struct, S_release() frees what it owns; returned pointers
 * are borrowed unless "caller frees"; dft_x*() never fail (they exit 2
 * with "out of memory"). Includes banned.h (style rule 23): include dft.h
 * after the system headers.
 */
#ifndef DFT_H
#define DFT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include <json-c/json.h>

#ifndef DFT_VERSION
#define DFT_VERSION "0.0.0-dev"
#endif

#define DFT_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define DFT_NORETURN __attribute__((noreturn))

/* Exit status, suite-wide (man dft(7), EXIT STATUS). */
enum dft_exit {
	DFT_EXIT_OK = 0,	/* all input processed */
	DFT_EXIT_DATA = 1,	/* finished, but some input was bad (reported) */
	DFT_EXIT_FATAL = 2,	/* usage error or fatal system error */
};

/* ---- messages (msg.c): "dft-x: ..."; a format ending in ':' appends
 * ": strerror(errno)" ---------------------------------------------------- */
extern const char *dft_progname;
/* At the top of main: sets dft_progname, the default SIGPIPE action. */
void dft_init(const char *progname);
void dft_warn(const char *fmt, ...) DFT_PRINTF(1, 2);
void dft_vwarn(const char *fmt, va_list ap);
DFT_NORETURN void dft_die(const char *fmt, ...) DFT_PRINTF(1, 2);
/* "dft-x: file:line: message": a problem in one input record. */
void dft_warn_at(const char *file, long line, const char *fmt, ...)
	DFT_PRINTF(3, 4);
/* The message, then the usage text on stderr; exits 2. */
DFT_NORETURN void dft_usage_error(const char *usage, const char *fmt, ...)
	DFT_PRINTF(2, 3);

/* ---- allocation and strings (xalloc.c, srchash.c) ----------------------- */
void *dft_xmalloc(size_t n);
void *dft_xcalloc(size_t nmemb, size_t size);
void *dft_xrealloc(void *p, size_t n);
void *dft_xreallocarray(void *p, size_t nmemb, size_t size);
char *dft_xstrdup(const char *s);
char *dft_xstrndup(const char *s, size_t n);
char *dft_xmemdup0(const void *p, size_t n);	/* n bytes + NUL, NULs kept */
char *dft_xasprintf(const char *fmt, ...) DFT_PRINTF(1, 2);
void dft_strv_free(char **v);			/* a NULL-terminated array */
int dft_has_prefix(const char *s, const char *prefix);
int dft_has_suffix(const char *s, const char *suffix);
/* The entry of the NULL-terminated list l equal to s, or NULL. */
const char *dft_in_list(const char *s, const char *const *l);
/* Whole string, in range: 0 ok, -1 bad. */
int dft_parse_long(const char *s, long min, long max, long *out);
int dft_parse_double(const char *s, double *out);
int dft_parse_double_range(const char *s, double min, double max,
			   double *out);
int dft_hex_digit(int c);			/* its value, or -1 */
uint64_t dft_fnv1a64(const void *p, size_t n);
/* "fnv1a64:" + 16 hex digits (a record's "file_hash"), buf >= 25 bytes. */
char *dft_file_hash_str(const void *p, size_t n, char *buf, size_t bufsz);

/* Growable byte buffer, always NUL-terminated. */
struct dft_buf {
	char *s;
	size_t len, cap;
};
void dft_buf_init(struct dft_buf *b);
void dft_buf_release(struct dft_buf *b);
void dft_buf_reset(struct dft_buf *b);		/* len = 0, keeps memory */
void dft_buf_add(struct dft_buf *b, const void *p, size_t n);
void dft_buf_adds(struct dft_buf *b, const char *s);
void dft_buf_addc(struct dft_buf *b, char c);
void dft_buf_addf(struct dft_buf *b, const char *fmt, ...) DFT_PRINTF(2, 3);
char *dft_buf_detach(struct dft_buf *b);	/* caller frees; b is reset */
/* s[0..n) for a human reader: control bytes and bytes that are not UTF-8
 * as \xHH; a newline is kept when newlines is set, else a space. */
void dft_buf_add_visible(struct dft_buf *b, const char *s, size_t n,
			 int newlines);

/* ---- NDJSON records (ndjson.c) ------------------------------------------ */
/* Bytes that are not UTF-8 are written as \udcXX and read back as the byte
 * (man dft(7), ENCODING). The reader skips blank lines and reports a line
 * that is not one JSON object as "dft-x: NAME:LINE: ...", counted in bad. */
struct dft_reader {
	FILE *fp;
	const char *name;	/* "<stdin>" for standard input */
	long line;		/* number of the line last read, from 1 */
	char *buf;		/* the raw line last read, without '\n' */
	size_t cap, len;
	long bad;		/* lines reported as malformed */
	int owns_fp;
	struct json_tokener *tok;
};
int dft_reader_open(struct dft_reader *r, const char *path);	/* "-": stdin */
/* 1: *out is the next record (caller puts); 0: end; -1: read error. */
int dft_reader_next(struct dft_reader *r, json_object **out);
void dft_reader_release(struct dft_reader *r);
/* fn over each operand ("-" = stdin; none: stdin); the worst exit code. */
typedef int (*dft_input_fn)(struct dft_reader *r, void *ctx);
int dft_each_input(int argc, char **argv, dft_input_fn fn, void *ctx);

const char *dft_record_type(json_object *rec);	/* "" when none */
void dft_emit(FILE *out, json_object *rec);	/* one line; dies on error */
void dft_emit_put(FILE *out, json_object *rec);
void dft_pass(FILE *out, const struct dft_reader *r);	/* the raw line */
extern int dft_unbuffered;		/* --unbuffered: flush each record */
int dft_close_stdout(void);		/* 0, or DFT_EXIT_FATAL (reported) */
int dft_worst(int a, int b);		/* the worse of two exit codes */

/* Typed getters: def when absent or of another type. */
const char *dft_json_str(json_object *o, const char *key, const char *def);
int64_t dft_json_int(json_object *o, const char *key, int64_t def);
double dft_json_double(json_object *o, const char *key, double def);
int dft_json_bool(json_object *o, const char *key, int def);
json_object *dft_json_path(json_object *o, const char *dotted);	/* "a.b" */
json_object *dft_jstr(const char *s);		/* NULL: JSON null */
json_object *dft_jint(int64_t v);
json_object *dft_jdouble(double v);		/* 6 significant decimals */
json_object *dft_json_load(const char *path);
int dft_json_save(const char *path, json_object *o);	/* atomic */

/* ---- paths and files (path.c): lexical unless said ---------------------- */
char *dft_path_join(const char *a, const char *b);	/* caller frees */
char *dft_path_normalize(const char *p);	/* "//", "/./", "x/.." */
char *dft_path_absolute(const char *p);
int dft_path_is_inside(const char *dir, const char *path);
const char *dft_path_base(const char *p);
int dft_mkdir_p(const char *path, mode_t mode);
int dft_rm_rf(const char *path);
int dft_is_dir(const char *path);
int dft_exists(const char *path);
char *dft_read_file(const char *path, size_t *len);	/* NUL-terminated */
/* Temporary file, fsync, rename: nothing half-written; mode kept. */
int dft_write_file_atomic(const char *path, const void *data, size_t len);
int dft_copy_tree(const char *src, const char *dst);	/* links, modes */

/* ---- time (clock.c), steps (step.c) ------------------------------------- */
char *dft_iso_now(char *buf, size_t n);	/* "2026-11-30T00:06:01.123Z" */
char *dft_iso_time(double epoch_s, char *buf, size_t n);
double dft_epoch_now(void);		/* wall clock, seconds */
double dft_monotonic(void);		/* seconds, for durations */
/* A tool's own `step` record (man dft(7)). */
struct dft_step {
	const char *name;
	char started_at[32];
	double t0;
};
void dft_step_begin(struct dft_step *s, const char *name);
json_object *dft_step_end(struct dft_step *s, const char *status);

/* ---- processes (proc.c), progress (progress.c), data (share.c) ---------- */
struct dft_proc_opts {
	const char *cwd;		/* NULL: inherit */
	const char *const *env;		/* overlay: "K=V" sets, "K" unsets */
	double timeout_s;		/* <= 0: none; then SIGTERM, SIGKILL */
	const char *output_path;	/* stdout+stderr; NULL: inherit */
	int append;			/* to output_path */
	const char *input_path;		/* stdin; NULL: /dev/null */
};
/* No shell. 0 with *status (exit code, 128+signal, 124 timeout), or -1. */
int dft_run(const char *const argv[], const struct dft_proc_opts *o,
	    int *status);
/* "label: done/total" on a terminal's stderr, at most 10 times a second. */
struct dft_progress {
	const char *label;
	uint64_t total;		/* 0: unknown */
	double last;
	int tty;
};
void dft_progress_init(struct dft_progress *p, const char *label,
		       uint64_t total);
void dft_progress_update(struct dft_progress *p, uint64_t done);
void dft_progress_done(struct dft_progress *p);
char *dft_share_path(const char *rel);	/* a file of share/dft, or NULL */
char *dft_exe_dir(void);

#include "banned.h"

#endif /* DFT_H */
