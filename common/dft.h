/*
 * dft.h - the core of libdft: messages, memory and strings, buffers, NDJSON
 * records, paths and files, time and steps, processes. Elsewhere: options.h,
 * trace.h, compdb.h, cflow.h, tree.h, progress.h. Contracts stand above the
 * definitions (style.md): 0 or a count on success, -1 with errno on error;
 * S_init()/S_release(); pointers borrowed unless "caller frees"; dft_x*()
 * exit 2 on out of memory. Include after system headers (it has banned.h).
 */
#ifndef DFT_H
#define DFT_H

#include <stdarg.h>
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

/* Exit status (dft(7)): done; done, some input bad; usage error or fatal */
enum dft_exit { DFT_EXIT_OK = 0, DFT_EXIT_DATA = 1, DFT_EXIT_FATAL = 2 };

/* messages (msg.c): "dft-x: ..."; a format ending in ':' adds strerror */
extern const char *dft_progname;
void dft_init(const char *progname);
void dft_warn(const char *fmt, ...) DFT_PRINTF(1, 2);
void dft_vwarn(const char *fmt, va_list ap);
void dft_warn_at(const char *file, long line, const char *fmt, ...)
	DFT_PRINTF(3, 4);
DFT_NORETURN void dft_die(const char *fmt, ...) DFT_PRINTF(1, 2);
DFT_NORETURN void dft_usage_error(const char *usage, const char *fmt, ...)
	DFT_PRINTF(2, 3);

/* memory and strings (xalloc.c) */
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
const char *dft_in_list(const char *s, const char *const *l);
int dft_parse_long(const char *s, long min, long max, long *out);
int dft_parse_double(const char *s, double *out);
int dft_parse_double_range(const char *s, double min, double max,
			   double *out);
int dft_hex_digit(int c);			/* its value, or -1 */
uint64_t dft_fnv1a64(const void *p, size_t n);	/* srchash.c */

/* growable byte buffer, always NUL-terminated (xalloc.c, ndjson.c) */
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
void dft_buf_add_visible(struct dft_buf *b, const char *s, size_t n,
			 int newlines);

/* NDJSON records (ndjson.c) */
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
int dft_reader_next(struct dft_reader *r, json_object **out);
void dft_reader_release(struct dft_reader *r);
typedef int (*dft_input_fn)(struct dft_reader *r, void *ctx);
int dft_each_input(int argc, char **argv, dft_input_fn fn, void *ctx);
const char *dft_record_type(json_object *rec);	/* "" when none */
/* A function record's line, the one its events carry (dft.7): its name's
 * (name_pos.line), else lines.start, else "line", else signature.line; 0 */
int64_t dft_function_line(json_object *rec);
void dft_emit(FILE *out, json_object *rec);	/* one line; dies on error */
void dft_emit_put(FILE *out, json_object *rec);
void dft_pass(FILE *out, const struct dft_reader *r);	/* the raw line */
extern int dft_unbuffered;		/* --unbuffered: flush each record */
int dft_close_stdout(void);		/* 0, or DFT_EXIT_FATAL (reported) */
int dft_worst(int a, int b);		/* the worse of two exit codes */
const char *dft_json_str(json_object *o, const char *key, const char *def);
int64_t dft_json_int(json_object *o, const char *key, int64_t def);
double dft_json_double(json_object *o, const char *key, double def);
int dft_json_bool(json_object *o, const char *key, int def);
json_object *dft_json_path(json_object *o, const char *dotted);	/* "a.b" */
json_object *dft_jstr(const char *s);		/* NULL: JSON null */
json_object *dft_jint(int64_t v);
json_object *dft_jdouble(double v);		/* 6 significant decimals */
/* Numbers as jq writes them: integral without ".0", else the shortest
 * text that reads back the same (records jq made before). */
json_object *dft_jnumber(double v);
void dft_jq_numbers(json_object *o);		/* every number below o */
json_object *dft_json_load(const char *path);
int dft_json_save(const char *path, json_object *o);	/* atomic */

/* paths and files (path.c): lexical unless said */
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
int dft_write_file_atomic(const char *path, const void *data, size_t len);
int dft_copy_tree(const char *src, const char *dst);	/* links, modes */
char *dft_share_path(const char *rel);	/* share.c; caller frees, or NULL */
char *dft_exe_dir(void);

/* time (clock.c) and a tool's own `step` record (step.c) */
char *dft_iso_now(char *buf, size_t n);	/* "2026-11-30T00:06:01.123Z" */
char *dft_iso_time(double epoch_s, char *buf, size_t n);
double dft_epoch_now(void);		/* wall clock, seconds */
double dft_monotonic(void);		/* seconds, for durations */
struct dft_step {
	const char *name;
	char started_at[32];
	double t0;
};
void dft_step_begin(struct dft_step *s, const char *name);
json_object *dft_step_end(struct dft_step *s, const char *status);

/* processes (proc.c): no shell */
struct dft_proc_opts {
	const char *cwd;		/* NULL: inherit */
	const char *const *env;		/* overlay: "K=V" sets, "K" unsets */
	double timeout_s;		/* <= 0: none; then SIGTERM, SIGKILL */
	const char *output_path;	/* stdout+stderr; NULL: inherit */
	int append;			/* to output_path */
	const char *input_path;		/* stdin; NULL: /dev/null */
};
int dft_run(const char *const argv[], const struct dft_proc_opts *o,
	    int *status);

#include "banned.h"

#endif /* DFT_H */
