/*
 * dft.h - the whole shared API of the dft suite (libdft.a).
 *
 * Conventions (see ../shared/reference/style.md):
 *  - functions return 0 (or a count) on success and -1 on error with errno
 *    set; they do not print, except where a comment says so (messages and
 *    the NDJSON reader, whose job is to report bad lines);
 *  - dft_S_init() prepares a struct without allocating it, dft_S_release()
 *    frees what it owns; pointers returned as values are borrowed unless the
 *    comment says "caller frees";
 *  - allocation never fails: dft_x*() exit 2 with "out of memory".
 *
 * Tools may include "banned.h" after every other header (style rule 23).
 *
 * Sections marked "owned by" are added to by the issue that needs them;
 * keep each section on one screen.
 */
#ifndef DFT_H
#define DFT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <json-c/json.h>

#ifndef DFT_VERSION
#define DFT_VERSION "0.0.0-dev"
#endif

#define DFT_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define DFT_NORETURN __attribute__((noreturn))

/* ---- exit status, suite-wide (man dft(7), EXIT STATUS) ---------------- */
enum dft_exit {
	DFT_EXIT_OK = 0,	/* all input processed */
	DFT_EXIT_DATA = 1,	/* finished, but some input was bad (reported) */
	DFT_EXIT_FATAL = 2,	/* usage error or fatal system error */
};

/* ---- messages (msg.c) --------------------------------------------------- */
/* Set once at the top of main: dft_progname = "dft-x". */
extern const char *dft_progname;
/* "dft-x: message"; a format ending in ':' appends ": strerror(errno)". */
void dft_warn(const char *fmt, ...) DFT_PRINTF(1, 2);
DFT_NORETURN void dft_die(const char *fmt, ...) DFT_PRINTF(1, 2);
/* "dft-x: file:line: message" for a problem in one input record. */
void dft_warn_at(const char *file, long line, const char *fmt, ...)
	DFT_PRINTF(3, 4);
void dft_vwarn(const char *fmt, va_list ap);
/* "dft-x: message" then the usage text on stderr; exits 2. */
DFT_NORETURN void dft_usage_error(const char *usage, const char *fmt, ...)
	DFT_PRINTF(2, 3);
/* Option errors, --help and --version: options.h. */
/*
 * Common process set-up for every tool: sets dft_progname, restores the
 * default SIGPIPE action (so `dft-x | head` stops quietly).
 */
void dft_init(const char *progname);

/* ---- allocation and strings (xalloc.c) ---------------------------------- */
void *dft_xmalloc(size_t n);
void *dft_xcalloc(size_t nmemb, size_t size);
void *dft_xrealloc(void *p, size_t n);
void *dft_xreallocarray(void *p, size_t nmemb, size_t size);
char *dft_xstrdup(const char *s);
char *dft_xstrndup(const char *s, size_t n);
/* n bytes plus a NUL; unlike strndup, keeps embedded NULs. Caller frees. */
char *dft_xmemdup0(const void *p, size_t n);
char *dft_xasprintf(const char *fmt, ...) DFT_PRINTF(1, 2);	/* caller frees */
int dft_has_prefix(const char *s, const char *prefix);
int dft_has_suffix(const char *s, const char *suffix);
/* The entry of the NULL-terminated list l equal to s, or NULL. */
const char *dft_in_list(const char *s, const char *const *l);
/* A C or C++ source or header by its suffix (dft_c_suffixes), or Python. */
extern const char *const dft_c_suffixes[];
int dft_is_c_source(const char *path);
int dft_is_source(const char *path);
/* strtol/strtod with whole-string and range checks: 0 ok, -1 bad. */
int dft_parse_long(const char *s, long min, long max, long *out);
int dft_parse_double(const char *s, double *out);
/* The value of a hexadecimal digit, or -1. */
int dft_hex_digit(int c);
/* dft_parse_double, and min <= value <= max (out of range: -1). */
int dft_parse_double_range(const char *s, double min, double max,
			   double *out);

/* Growable byte buffer, always NUL-terminated. */
struct dft_buf {
	char *s;
	size_t len;
	size_t cap;
};
void dft_buf_init(struct dft_buf *b);
void dft_buf_release(struct dft_buf *b);
void dft_buf_reset(struct dft_buf *b);		/* len = 0, keeps memory */
void dft_buf_add(struct dft_buf *b, const void *p, size_t n);
void dft_buf_adds(struct dft_buf *b, const char *s);
void dft_buf_addc(struct dft_buf *b, char c);
void dft_buf_addf(struct dft_buf *b, const char *fmt, ...) DFT_PRINTF(2, 3);
char *dft_buf_detach(struct dft_buf *b);	/* caller frees; b is reset */

/* ---- NDJSON records (ndjson.c) ------------------------------------------ */
/*
 * A reader over getline(3) that tracks the input's name and line number and
 * reuses one json_tokener. Blank lines are skipped silently. A line that is
 * not one JSON object is reported as "dft-x: NAME:LINE: ..." on stderr,
 * counted in r->bad, and skipped (style rule 11).
 */
struct dft_reader {
	FILE *fp;
	const char *name;	/* "<stdin>" for standard input */
	long line;		/* number of the line last read, from 1 */
	char *buf;		/* the raw line last read, without '\n' */
	size_t cap;
	size_t len;
	long bad;		/* lines reported as malformed */
	int owns_fp;
	struct json_tokener *tok;
};
/* path "-" or NULL means stdin. Returns 0, or -1 with errno (no message). */
int dft_reader_open(struct dft_reader *r, const char *path);
void dft_reader_init_fp(struct dft_reader *r, FILE *fp, const char *name);
/*
 * 1: *out is the next record (caller puts it); 0: end of input;
 * -1: read error (errno set, message printed).
 */
int dft_reader_next(struct dft_reader *r, json_object **out);
void dft_reader_release(struct dft_reader *r);

/*
 * Runs fn over every input: each operand in argv[0..argc) ("-" = stdin), or
 * stdin when argc == 0. A file that cannot be opened is reported and makes
 * the result DFT_EXIT_DATA; the others still run. fn returns an exit code;
 * the result is the worst of them (malformed lines count as DFT_EXIT_DATA).
 */
typedef int (*dft_input_fn)(struct dft_reader *r, void *ctx);
int dft_each_input(int argc, char **argv, dft_input_fn fn, void *ctx);

/*
 * Byte strings that are not UTF-8 (file names, trace strings): every writer
 * of JSON text (dft_emit, dft_pass, dft_json_save) writes each byte that is
 * not part of a valid UTF-8 sequence as the escape \udcXX (XX the byte, 80
 * to ff: Python's surrogateescape), and every reader (dft_reader_next,
 * dft_json_load, dft_trace_input_line) turns those escapes back into the
 * byte. See man dft(7), ENCODING.
 */
void dft_json_text_encode(struct dft_buf *b, const char *s, size_t n);
/* Decodes the \udcXX escapes of JSON text s[0..n) in place; new length. */
size_t dft_json_text_decode(char *s, size_t n);
/* 1 when s[0..n) is valid UTF-8 (NUL bytes included), else 0. */
int dft_utf8_valid(const char *s, size_t n);
/*
 * Appends s[0..n) for a human reader (a terminal, Markdown): control
 * characters (C0 but tab, DEL, C1) and bytes that are not UTF-8 as \xHH,
 * so an escape sequence from a trace string cannot act on a terminal.
 * A newline is kept when newlines is set, else it becomes a space.
 */
void dft_buf_add_visible(struct dft_buf *b, const char *s, size_t n,
			 int newlines);

/* The record's "type" string, or "" when it has none. Borrowed. */
const char *dft_record_type(json_object *rec);
/* Writes rec as one compact line. Dies (exit 2) on a write error. */
void dft_emit(FILE *out, json_object *rec);
/* Writes rec then puts it. */
void dft_emit_put(FILE *out, json_object *rec);
/* Pass-through: copies the reader's current raw line out unchanged. */
void dft_pass(FILE *out, const struct dft_reader *r);
/* --unbuffered support: flush after each record when set. */
extern int dft_unbuffered;
/*
 * Flushes and closes stdout: write error -> "dft-x: write error: ..." and
 * returns DFT_EXIT_FATAL; EPIPE -> quiet, returns DFT_EXIT_FATAL; else 0.
 * Use as: status |= ...; return worst of status.
 */
int dft_close_stdout(void);
/* max of two exit codes: the worse one wins. */
int dft_worst(int a, int b);

/* Typed getters on a record; def when absent or of another type. */
const char *dft_json_str(json_object *o, const char *key, const char *def);
int64_t dft_json_int(json_object *o, const char *key, int64_t def);
double dft_json_double(json_object *o, const char *key, double def);
int dft_json_bool(json_object *o, const char *key, int def);
/* Dotted path lookup: dft_json_path(o, "paths.source"). Borrowed or NULL. */
json_object *dft_json_path(json_object *o, const char *dotted);
/* Small constructors that never return NULL. */
json_object *dft_jstr(const char *s);	/* NULL s -> JSON null */
json_object *dft_jint(int64_t v);
json_object *dft_jdouble(double v);	/* rounded to 6 significant decimals */
/* Reads a whole JSON file (session.json, compile_commands.json); NULL+errno */
json_object *dft_json_load(const char *path);
/* Writes o as indent-2 JSON atomically (temp + rename). 0 or -1. */
int dft_json_save(const char *path, json_object *o);

/* ---- paths and files (path.c) ------------------------------------------- */
/* "a" + "b" -> "a/b" with exactly one slash. Caller frees. */
char *dft_path_join(const char *a, const char *b);
/* Lexical clean-up: "//", "/./", "x/.." removed; never touches the disk. */
char *dft_path_normalize(const char *p);
/* Absolute and normalized against the working directory. Caller frees. */
char *dft_path_absolute(const char *p);
/* 1 when path (after normalization) is dir itself or below it, else 0. */
int dft_path_is_inside(const char *dir, const char *path);
/* Last component, borrowed from p. */
const char *dft_path_base(const char *p);
int dft_mkdir_p(const char *path, mode_t mode);
int dft_rm_rf(const char *path);
int dft_is_dir(const char *path);
int dft_exists(const char *path);
/* Whole file into memory (NUL-terminated), *len optional. NULL+errno. */
char *dft_read_file(const char *path, size_t *len);
/*
 * Atomic write: temp file in the same directory, fsync, rename over path,
 * keeping the old file's mode when it exists. 0 or -1 (nothing half-written).
 */
int dft_write_file_atomic(const char *path, const void *data, size_t len);
/* Recursive copy preserving symlinks and modes; 0 or -1. */
int dft_copy_tree(const char *src, const char *dst);
/*
 * rel below root, normalized: NULL when rel is absolute or climbs above
 * root ("sub/../../x"). Never touches the disk. Caller frees.
 */
char *dft_path_under(const char *root, const char *rel);
/*
 * 1 when the real location of path (its existing part resolved through
 * symbolic links, the rest lexical) is root's real location or below it;
 * 0 when it is not or cannot be resolved.
 */
int dft_path_real_inside(const char *root, const char *path);
/*
 * Keeps every symbolic link below root from leading out of it (a copied
 * source tree): a link to an absolute place inside from (the directory
 * root was copied from; NULL: root itself) is made relative to its place
 * in root; a link whose target lies outside root is removed, with a
 * warning naming it. Returns the number removed, or -1 with errno.
 */
int dft_tree_confine_links(const char *root, const char *from);
/* Identity and content of a file when a tool read it (dft_read_snap). */
struct dft_file_snap {
	int valid;
	dev_t dev;
	ino_t ino;
	off_t size;
	long mtime_s, mtime_ns;
	uint64_t hash;		/* dft_fnv1a64 of the bytes read */
};
/* dft_read_file that also fills *s, consistent with the bytes returned. */
char *dft_read_snap(const char *path, size_t *len, struct dft_file_snap *s);
/*
 * Replaces the bytes of a file a tool was asked to edit (dft-annotate):
 *  - refused when the real location of path (or of a symbolic link's
 *    target) is not below root's (root NULL: no check);
 *  - a symbolic link is written through to its target, a file with other
 *    hard links is rewritten in place (all links see the change); mode
 *    and owner (when permitted) are kept, the mtime becomes now;
 *  - was (optional): refused when the file no longer matches it (size,
 *    mtime, inode, content) just before it is replaced;
 *  - first removes stale temporaries of an earlier run that was killed
 *    (PATH.dft-tmp.PID.XXXXXX of a dead PID), with one warning each.
 * 0, or -1 with *why set to the reason (static text; errno too).
 */
int dft_replace_file(const char *root, const char *path, const void *data,
		     size_t len, const struct dft_file_snap *was,
		     const char **why);

/* ---- time (clock.c) ----------------------------------------------------- */
/* "2026-11-30T00:06:01.123Z" into buf (>= 32 bytes); returns buf. */
char *dft_iso_now(char *buf, size_t n);
char *dft_iso_time(double epoch_s, char *buf, size_t n);
double dft_epoch_now(void);	/* wall clock, seconds */
double dft_monotonic(void);	/* seconds, for durations */

/* ---- step records (step.c) ---------------------------------------------- */
/*
 * Every tool reports its own work as
 * {"type":"step","v":1,"step":NAME,"tool":PROG,"started_at":ISO,
 *  "ended_at":ISO,"duration_s":N,"status":"ok"|"failed"|"partial"|"skipped"}
 */
struct dft_step {
	const char *name;
	char started_at[32];
	double t0;
};
void dft_step_begin(struct dft_step *s, const char *name);
/* Returns the record (caller emits/puts it); extra fields may be added. */
json_object *dft_step_end(struct dft_step *s, const char *status);

/* ---- subprocesses (proc.c) ---------------------------------------------- */
struct dft_proc_opts {
	const char *cwd;		/* NULL: inherit */
	const char *const *env;		/* overlay: "K=V" sets, "K" unsets */
	double timeout_s;		/* <= 0: none; on expiry SIGTERM then SIGKILL */
	const char *output_path;	/* stdout+stderr to this file; NULL: inherit */
	int append;			/* append to output_path instead of truncating */
	const char *input_path;		/* stdin from this file; NULL: /dev/null */
};
/*
 * Runs argv (never through a shell). Returns 0 when it ran, with *status:
 * the exit code, 128+signal when killed, 124 on timeout; -1 when it could
 * not start (errno set).
 */
int dft_run(const char *const argv[], const struct dft_proc_opts *o,
	    int *status);

/* ---- progress meter (progress.c) ---------------------------------------- */
/* Draws "label: done/total" on stderr at most 10 times a second, only when
 * stderr is a terminal; dft_progress_done() erases the line. */
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

/* ---- installation layout (share.c) -------------------------------------- */
/*
 * Finds a data file of share/dft: $DFT_SHARE_DIR, then the source tree next
 * to the running binary (build/bin/../../share/dft), then the installed
 * DFT_DATADIR. Returns the first existing path (caller frees) or NULL.
 */
char *dft_share_path(const char *rel);
/* Directory of the running executable (caller frees). */
char *dft_exe_dir(void);

/* ==== owned by issue 3 (dft-funcs, dft-cost) ============================= */
/* 64-bit FNV-1a of n bytes (the "file_hash" of function records). */
uint64_t dft_fnv1a64(const void *p, size_t n);
/* "fnv1a64:" + 16 lowercase hex digits into buf (>= 25 bytes); buf. */
char *dft_file_hash_str(const void *p, size_t n, char *buf, size_t bufsz);

/* compile_commands.json (compdb.c); paths absolute and normalized. */
struct dft_compile_cmd {
	char *directory;
	char *file;
	char *output;		/* NULL when absent */
	char **argv;		/* NULL-terminated; argv[0] is the compiler */
	int argc;
};
struct dft_compdb {
	struct dft_compile_cmd *cmds;
	size_t n;
};
void dft_compdb_init(struct dft_compdb *db);
/* Appends the entries of path to db. 0, or -1 with errno (no message). */
int dft_compdb_load(struct dft_compdb *db, const char *path);
void dft_compdb_release(struct dft_compdb *db);
/*
 * libclang arguments for one entry (NULL-terminated, caller frees with
 * dft_strv_free): no compiler, source, output or dependency options;
 * relative -I made absolute; "-x c++" when a C++ driver built a .c file.
 * *lang is "c" or "cpp".
 */
char **dft_compdb_clang_args(const struct dft_compile_cmd *c,
			     const char **lang);
/*
 * --prefix-map OLD=NEW (compdb.c), for a database written for another copy
 * of the tree. old and new are absolute and normalized; arg is the option
 * value as given; hits counts the entries dft_compdb_map rewrote with it.
 */
struct dft_prefix_map {
	char *arg, *old, *new;
	size_t hits;
};
/*
 * Appends the map arg ("OLD=NEW") to *v (*n entries). 0, or -1 when arg
 * is malformed: no '=', an empty OLD or an empty NEW (nothing is added).
 * Free the list with dft_prefix_maps_free.
 */
int dft_prefix_maps_add(struct dft_prefix_map **v, size_t *n,
			const char *arg);
void dft_prefix_maps_free(struct dft_prefix_map *v, size_t n);
/*
 * Rewrites each entry whose file is OLD or below it (the longest OLD
 * wins): file and directory move to NEW; relative include directories
 * and other path options are made absolute against the original
 * directory, which is appended as the last -I (headers generated into
 * the build copy still resolve). An include directory under an OLD that
 * does not exist here, while its NEW counterpart does, is replaced by
 * that. Counts each rewritten entry in its map's hits, and warns once
 * for each map that matched no entry.
 */
void dft_compdb_map(struct dft_compdb *db, struct dft_prefix_map *maps,
		    size_t n);
void dft_strv_free(char **v);

/* ==== owned by issue 4 (dft-annotate, dft-lint) ======================== */

/* ==== owned by issue 6 (trace reader) ==================================== */
/*
 * One line of a trace tool's standard input, which may name traces as well
 * as carry records: a plain line is a trace path, a `chunk` record with a
 * path names one. 1: *path is a trace to read (caller frees); 0: any other
 * line, *rec is its record (caller puts; NULL when not JSON) to consume or
 * pass through; -1: a plain line that is not an existing file.
 */
int dft_trace_input_line(const char *line, size_t len, char **path,
			 json_object **rec);
/*
 * String-keyed table (trace_map.c): keys are byte strings copied into the
 * table; values are fixed-size, zeroed on creation, at stable addresses;
 * entries are numbered 0..count-1 in insertion order (deterministic walks).
 */
struct dft_tmap {
	size_t vsize, count, cap;	/* cap: slots, a power of two */
	uint32_t *slots;		/* entry index + 1, 0 = empty */
	uint64_t *hashes;		/* per entry */
	char **keys;			/* per entry, NUL-terminated */
	size_t *klens;
	char **vblocks;			/* values in blocks of 256 */
	size_t nblocks;
};
void dft_tmap_init(struct dft_tmap *m, size_t vsize);
void dft_tmap_release(struct dft_tmap *m);
/* Value of key k[0..n); created (zeroed) when absent and create is set,
 * else NULL. *is_new (optional) tells which. Borrowed, stable. */
void *dft_tmap_get(struct dft_tmap *m, const char *k, size_t n, int create,
		   int *is_new);
void *dft_tmap_value(const struct dft_tmap *m, size_t i);
const char *dft_tmap_key(const struct dft_tmap *m, size_t i, size_t *n);
uint64_t dft_hash_bytes(const void *p, size_t n);

/*
 * dftracer trace reader (trace.c): .pfw or .pfw.gz (any number of gzip
 * members), every format generation (see dftracer-format.md §3.10). One
 * reused line buffer; a hand scanner extracts the fields below, json-c only
 * for lines the scanner cannot take. Strings in an event point into the
 * reader's buffers and are valid until the next dft_trace_next().
 */
struct dft_str {
	const char *p;
	size_t n;
};
enum dft_ph {
	DFT_PH_UNKNOWN = 0, DFT_PH_X, DFT_PH_COUNTER, DFT_PH_AGG, DFT_PH_M,
	DFT_PH_OTHER
};
enum {	/* dft_trace_ev.has */
	DFT_EV_ID = 1 << 0, DFT_EV_TS = 1 << 1, DFT_EV_DUR = 1 << 2,
	DFT_EV_RET = 1 << 3, DFT_EV_COUNT = 1 << 4, DFT_EV_OFFSET = 1 << 5,
	DFT_EV_SIZE = 1 << 6, DFT_EV_WHENCE = 1 << 7, DFT_EV_FD = 1 << 8,
	DFT_EV_EPOCH = 1 << 9, DFT_EV_STEP = 1 << 10, DFT_EV_CNT = 1 << 11,
	DFT_EV_DUR_SUM = 1 << 12, DFT_EV_RET_SUM = 1 << 13,
	DFT_EV_SIZE_SUM = 1 << 14, DFT_EV_SRC_LINE = 1 << 15,
	DFT_EV_PID = 1 << 16, DFT_EV_TID = 1 << 17, DFT_EV_ARGS = 1 << 18,
	DFT_EV_NOTJSON = 1 << 19,	/* raw line (only with t->raw_lines) */
	DFT_EV_BADNUM = 1 << 20,	/* ts, dur or size not a number (the
					 * reader counts such a line as bad) */
	DFT_EV_COLLECTIVE = 1 << 21,	/* args.collective (MPI-IO, HDF5) */
};
enum {	/* dft_trace_ev.style: what the line looked like */
	DFT_STYLE_STR_NUM = 1,		/* numbers as JSON strings (Gen-0) */
	DFT_STYLE_INLINE = 2,		/* args.hostname / args.fname (Gen-0) */
	DFT_STYLE_NUM_HASH = 4,		/* numeric hashes (Gen-1) */
	DFT_STYLE_STR_HASH = 8,		/* string hashes (Gen-2) */
	DFT_STYLE_INT_PH = 16,		/* integer ph / type column (Gen-3) */
};
struct dft_trace_ev {
	const char *line;	/* the trimmed line */
	size_t len;
	long lineno;		/* 1-based, of the uncompressed text */
	int ph;			/* enum dft_ph */
	unsigned has;		/* DFT_EV_* */
	unsigned style;		/* DFT_STYLE_* */
	struct dft_str name, cat;
	struct dft_str rtype;		/* a string "type": a dft record */
	int64_t id, pid, tid;
	int64_t ts, dur;
	/* args; hashes as their text (opaque), numbers parsed */
	struct dft_str hhash, fhash, hostname, fname;
	struct dft_str mname, mvalue;	/* metadata: args.name, args.value */
	struct dft_str src_file;	/* args.file or args.filename */
	int64_t src_line;		/* args.line or args.lineno */
	int64_t ret, count, offset, size, whence, fd, epoch, step;
	int64_t dft_cnt, dur_sum, ret_sum, size_sum;
	int64_t collective;
};
#define DFT_TRACE_KEEP_BAD 5	/* bad lines remembered for messages */
struct dft_trace {
	const char *name;
	int fd, gz, eof, in_eof;
	void *zs;		/* z_stream */
	void *zs_raw;		/* input state, private to trace.c */
	unsigned char *in;
	size_t in_cap;
	char *buf;		/* uncompressed text */
	size_t buf_len, buf_pos, buf_cap;
	char *scratch;		/* unescaped strings */
	size_t scratch_cap, scratch_len;
	void *jobj;		/* json-c fallback object of the last line */
	long lineno;
	int raw_lines;		/* set: return non-JSON lines as DFT_EV_NOTJSON */
	/* statistics */
	long lines;		/* valid lines (dftracer-utils event count) */
	long bad;		/* lines not readable as an event */
	long fallback;		/* lines parsed by json-c */
	long known_bad;		/* Gen-2 PR lines with a non-JSON value, skipped */
	int truncated;		/* gzip stream or last line cut short */
	int corrupt;		/* gzip data errors skipped */
	uint64_t in_bytes, out_bytes;
	long bad_line[DFT_TRACE_KEEP_BAD];
	const char *bad_why[DFT_TRACE_KEEP_BAD];
	char stream_err[160];	/* first gzip-level problem, or "" */
	long stream_err_line;
	struct dft_tmap names;	/* "F"/"H"/"S" + hash text -> struct dft_str */
	unsigned long names_gen;	/* bumped when a name is (re)defined */
	/* a dft-split chunk: its dft_chunk line (not returned, not counted) */
	char chunk_series[24];	/* "" when the file has no such line */
	long chunk_part;	/* 1-based place in the series, 0 if none */
	char *chunk_source;	/* the trace the chunk came from */
	int skip_late;		/* set by the caller: end a chunk at its "]" */
	long meta_repeats;	/* chunk lines repeating a known name, skipped */
	long files;		/* files read so far (dft_trace_chain) */
};
/* 0, or -1 with errno (nothing to release). path "-" is stdin. */
int dft_trace_open(struct dft_trace *t, const char *path);
/* Memory only (fuzzing, tests): the data is not copied, keep it alive. */
void dft_trace_open_mem(struct dft_trace *t, const char *name,
			const void *data, size_t n);
/* 1: *ev is the next event line; 0: end; -1: read error (errno). Lines
 * that are not events are counted in t->bad and skipped: not JSON, JSON
 * that is not an object or an object with neither name, ph nor type, and
 * events with an impossible number (a ts, dur or size that is negative,
 * not a finite number, or beyond DFT_TRACE_MAX_TS, _DUR, _SIZE), so no
 * aggregate sees them. HH/FH/SH metadata lines are also entered in
 * t->names, then returned. */
#define DFT_TRACE_MAX_TS 1e17	/* us: about the year 5100 */
#define DFT_TRACE_MAX_DUR 1e14	/* us: about 3 years */
#define DFT_TRACE_MAX_SIZE 1e15	/* bytes in one operation: 1 PB */
int dft_trace_next(struct dft_trace *t, struct dft_trace_ev *ev);
/* kind 'F', 'H' or 'S'; the name for hash h, or NULL. Borrowed. */
const struct dft_str *dft_trace_lookup(struct dft_trace *t, char kind,
				       const char *h, size_t n);
void dft_trace_close(struct dft_trace *t);
/*
 * Chunk streams. dft-split writes, second in every chunk, one metadata line
 *   {"name":"dft_chunk","ph":"M",...,"args":{"series":S,"part":K,"source":P}}
 * (series: 16 hex digits naming the chunks of one source; part: 1, 2, ...
 * in the order of the source). The reader takes it into t->chunk_*; in
 * such a file HH/FH/SH lines that repeat the name a hash already has are
 * skipped (dft-split copies them into every chunk that needs them), and
 * with t->skip_late set the text after the closing "]" (the copies
 * dft-split appends for names defined later in the source) is not read.
 *
 * dft_trace_chain continues t with the next file of a stream after
 * dft_trace_next returned 0: the names and their generation are kept, the
 * per-file statistics (lines, bad, truncated, corrupt, lineno, chunk_*,
 * skip_late) start again. 0, or -1 with errno (t then still ends where it
 * was and can be closed).
 */
int dft_trace_chain(struct dft_trace *t, const char *path);
/* The dft_chunk line of a chunk file, from its first few KiB: 1 with
 * series (24 bytes) and *part filled, 0 when there is none or path is
 * not a regular file (a pipe is left unread), -1 + errno. */
int dft_trace_peek_chunk(const char *path, char series[24], long *part);
/*
 * The streams among trace files paths[0..n) (trace_inputs.c): the chunks
 * of one series, in part order, are one stream; every other file is one
 * alone. Streams come in the order of their first file. idx[] are indexes
 * into paths, part[] the chunk parts (0: not a chunk). A part given twice
 * starts another stream.
 */
struct dft_trace_stream {
	size_t *idx;
	long *part;
	size_t n;
};
size_t dft_trace_streams(char *const *paths, size_t n,
			 struct dft_trace_stream **out);
/* Frees the members of v[0..n), and v itself when array is set. */
void dft_trace_streams_free(struct dft_trace_stream *v, size_t n, int array);
/* Prints the first bad lines and the stream problem as "FILE:LINE: ..."
 * warnings plus a count of the rest; returns 1 when there was any. */
int dft_trace_report(const struct dft_trace *t);
/* The *.pfw and *.pfw.gz files of a directory (not recursive), sorted:
 * *out is a caller-freed array of caller-freed paths. Count, or -1+errno. */
int dft_trace_list_dir(const char *dir, char ***out);
/* The trace operands ops[0..n) (trace_inputs.c): a file as it is, a
 * directory for its traces (dft_trace_list_dir), warned about when it
 * cannot be read. A FIFO, socket or device (which would block) is warned
 * about and skipped, except an operand /dev/fd/N (a process substitution). *paths is a NULL-terminated array (dft_strv_free) of
 * *npaths paths, NULL when there are none. DFT_EXIT_OK or DFT_EXIT_DATA. */
int dft_trace_inputs(int n, char *const *ops, char ***paths,
		     size_t *npaths);
/* Generation 0..3 guessed from DFT_STYLE_* bits, -1 when unknown. */
int dft_trace_generation(unsigned style_seen);

#endif /* DFT_H */
