/*
 * annotate.h - private interface between the parts of dft-annotate.
 *
 * clex.c	a C/C++ lexer (comments, strings, raw strings, directives) and
 *		a statement splitter; enough to find statements and calls by
 *		token, never to rewrite by regular expression.
 * cedit.c	plans the insertions for one C/C++ file from its function
 *		records.
 * strip.c	removes exactly what cedit.c inserted.
 * diff.c	unified diff of two texts (Myers).
 * py.c		Python files, through share/dft/dft_pyannotate.py.
 * rewrite.c	--rewrite: the optimization loop's L1 changes (setvbuf,
 *		posix_fadvise, fdatasync, one sync per loop) at the call
 *		sites of named functions, parsed with libclang.
 */
#ifndef DFT_ANNOTATE_H
#define DFT_ANNOTATE_H

#include "dft.h"
#include "tree.h"

/* ---- lexer (clex.c) ----------------------------------------------------- */
enum tk_kind { TK_ID, TK_NUM, TK_STR, TK_CHR, TK_PUNCT };

struct tok {
	size_t off;		/* byte offset */
	size_t len;
	int line;		/* 1-based */
	int ctx;		/* innermost #if branch id, 0 outside any */
	enum tk_kind kind;
};

struct directive {
	size_t off, end;	/* from '#' to the end of its (last) line */
	int line, last_line;
	char name[16];		/* "include", "if", "endif", ... */
	int ctx_after;		/* #if context in force after it */
};

struct lexed {
	const char *s;
	size_t n;
	struct tok *t;
	size_t nt;
	struct directive *d;
	size_t nd;
	int *line_ctx;		/* per line (1-based), #if context */
	int nlines;
	int error;		/* unterminated comment or literal */
};

void lex_file(struct lexed *lx, const char *s, size_t n);
void lex_release(struct lexed *lx);
int tok_is(const struct lexed *lx, size_t i, const char *text);
/* Index of the first token at or after offset off (nt when none). */
size_t tok_at(const struct lexed *lx, size_t off);
/* i is an opening ( [ {: index of its match, or nt. */
size_t tok_match(const struct lexed *lx, size_t i);

/* Statements of a block, recursively (stmt_parse). */
enum st_parent { SP_COMPOUND, SP_IF, SP_ELSE, SP_LOOP, SP_CASE, SP_LABEL };
struct stmt {
	size_t t0, t1;		/* tokens [t0, t1) */
	int block;		/* index of the enclosing compound stmt, -1 */
	enum st_parent parent;
	int is_compound;
};
struct stmts {
	struct stmt *v;
	size_t n, cap;
};
/*
 * Parses the statements inside the braces of the compound statement whose
 * '{' is token open. 0, or -1 when the tokens do not form statements (then
 * callers fall back to the safe choice).
 */
int stmt_parse(const struct lexed *lx, size_t open, struct stmts *out);
void stmts_release(struct stmts *s);

/* ---- edits -------------------------------------------------------------- */
struct edit {
	size_t off;		/* in the original text */
	size_t del;		/* bytes of the original replaced */
	char *text;		/* inserted text (owned) */
	int seq;		/* order among edits at the same offset */
};
struct edits {
	struct edit *v;
	size_t n, cap;
};
void edits_add(struct edits *e, size_t off, size_t del, char *text);
void edits_release(struct edits *e);
/* Applies the edits (sorted here) to s; NULL when two edits overlap. */
char *edits_apply(struct edits *e, const char *s, size_t n, size_t *outlen);

/* ---- C/C++ planning (cedit.c) ------------------------------------------- */
#define DFT_INCLUDE_LINE "#include <dftracer/dftracer.h> /* dft-annotate */"
#define DFT_LINE_MARK "/* dft-annotate */"
/*
 * C++ main without MPI_Finalize: a local object declared right after INIT,
 * before main's region and every local of main, so it is destroyed last
 * and FINI runs after their destructors (whose I/O is then traced).
 */
#define DFT_MAIN_GUARD "struct dft_main_fini_t { ~dft_main_fini_t() { " \
		       "DFTRACER_CPP_FINI(); } } dft_main_fini_;"

struct copts {
	const char *init_args;	/* "NULL, NULL, NULL" */
};

/* Per-file result, filled by c_plan / py_plan. */
struct fresult {
	json_object *annotated;	/* array of names */
	json_object *skipped;	/* array of {name, reason} */
	int lines_inserted;
	int fragments;
	int uncovered_exits;
	char *refused;		/* reason the file was left alone */
};

/* 1 when s already carries dft-annotate's marker. */
int c_is_annotated(const char *s, size_t n);
/* 1 when s has dftracer instrumentation that is not ours. */
int c_has_foreign(const char *s, size_t n);
/*
 * Plans the edits for one file: funcs is the array of its function
 * records. Skipped functions and the reasons land in r. 0, or -1 when the
 * file must be refused (r->refused says why).
 */
int c_plan(const char *s, size_t n, json_object *funcs, int cpp,
	   const struct copts *o, struct edits *e, struct fresult *r);

/* ---- strip (strip.c) ---------------------------------------------------- */
/* Removes every dft-annotate fragment; caller frees. NULL if s is not ours
 * or a fragment is damaged (*why says which). */
char *c_strip(const char *s, size_t n, size_t *outlen, const char **why);

/* ---- Python (py.c) ----------------------------------------------------- */
int py_is_annotated(const char *s, size_t n);
char *py_strip(const char *s, size_t n, size_t *outlen, const char **why);
/* 0 with *out (NULL: nothing to do), -1 with r->refused. */
int py_annotate(const char *path, const char *s, size_t n, json_object *funcs,
		const char *style, char **out, size_t *outlen,
		struct fresult *r);

/* ---- L1 rewrites (rewrite.c) -------------------------------------------- */
enum { RW_SETVBUF = 1, RW_FADVISE = 2, RW_FDATASYNC = 4, RW_SYNC_LAST = 8 };
struct rw_opts {
	unsigned kinds;		/* RW_* */
	long stdio_size;	/* setvbuf=SIZE (1 MiB) */
	const char *advice;	/* fadvise=ADVICE: "SEQUENTIAL", ... */
};
/* "setvbuf[=SIZE],fadvise[=ADVICE],fdatasync,sync-last": 0 or -1. */
int rw_parse_spec(const char *spec, struct rw_opts *o);
/*
 * The rewrites o asks for in the functions targets names (array of
 * {"name", "line"}) of the file path with text s, parsed with args (NULL-
 * terminated). The new text (caller frees), or NULL: nothing rewritten,
 * or r->refused says why. r->annotated lists what was rewritten
 * ({function, rewrite, line, from, to}), r->skipped each candidate left
 * alone with the reason.
 */
char *rw_rewrite(const char *path, const char *s, size_t n, char **args,
		 int cpp, json_object *targets, const struct rw_opts *o,
		 size_t *outlen, struct fresult *r);

/* ---- diff (diff.c) ------------------------------------------------------ */
void diff_unified(struct dft_buf *out, const char *a, size_t na,
		  const char *b, size_t nb, const char *name_a,
		  const char *name_b);

#endif
