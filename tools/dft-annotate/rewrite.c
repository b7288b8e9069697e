/*
 * rewrite.c - dft-annotate --rewrite: the optimization loop's application
 * changes (L1), made mechanically at the call sites inside the functions a
 * diagnosis names, and only where the pattern is recognised exactly.
 *
 * libclang parses the file (with its compile command when one is known);
 * the syntax tree says which calls are the C library's, which variable a
 * call's result went to and which statements cannot complete (cflow.c).
 * Each rewrite is an insertion on an existing line or a replacement inside
 * one, so line numbers do not move:
 *
 *   setvbuf	after `V = fopen(...)' (or `FILE *V = fopen(...)') and the
 *		`if' that tests V against NULL and cannot complete when it
 *		is: " char *dft_stdio_buf_V = (char *)malloc(SIZE);
 *		(void)setvbuf(V, dft_stdio_buf_V, _IOFBF, SIZE);" and, after
 *		the one statement of the same block that calls fclose(V),
 *		" free(dft_stdio_buf_V);".  When that `if' is where the
 *		program itself calls setvbuf(V, NULL, _IONBF or _IOLBF, ...),
 *		that call's arguments become the buffer, _IOFBF and SIZE.
 *   fadvise	after `V = open(...)' and the `if' that tests V < 0 (or
 *		== -1) and cannot complete:
 *		" (void)posix_fadvise(V, 0, 0, POSIX_FADV_ADVICE);"
 *   fdatasync	fsync(V) -> fdatasync(V)
 *   sync-last	fsync(V) in a counting loop `for (...; I < E; I++)' whose
 *		body does nothing but write to V and compute (no other call,
 *		no break, continue or goto, I and E not assigned) ->
 *		(I + 1 < (E) ? 0 : fsync(V)): one sync after the last record
 *		instead of one per record (see dft-annotate(1) for why the
 *		output and what a crash can leave stay those of the program).
 *
 * Every candidate that is not rewritten is listed with the reason.  The
 * result is parsed again; a rewrite that adds an error is refused.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clang-c/Index.h>

#include "annotate.h"
#include "cflow.h"

#define RW_MARK "/* dft-annotate --rewrite */"

struct rw_kind {
	const char *name;
	unsigned bit;
};

static const struct rw_kind kinds[] = {
	{ "setvbuf", RW_SETVBUF },
	{ "fadvise", RW_FADVISE },
	{ "fdatasync", RW_FDATASYNC },
	{ "sync-last", RW_SYNC_LAST },
	{ NULL, 0 }
};

int
rw_parse_spec(const char *spec, struct rw_opts *o)
{
	char *dup = dft_xstrdup(spec), *save = NULL, *w;
	int rc = 0;

	memset(o, 0, sizeof(*o));
	o->stdio_size = 1048576;
	o->advice = "SEQUENTIAL";
	for (w = strtok_r(dup, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		char *val = strchr(w, '=');
		size_t i;

		if (val)
			*val++ = '\0';
		for (i = 0; kinds[i].name && strcmp(kinds[i].name, w); i++)
			;
		if (!kinds[i].name) {
			rc = -1;
			break;
		}
		o->kinds |= kinds[i].bit;
		if (val && kinds[i].bit == RW_SETVBUF) {
			char *end;
			long v = strtol(val, &end, 10);

			if (*end == 'K' || *end == 'k')
				v *= 1024, end++;
			else if (*end == 'M' || *end == 'm')
				v *= 1048576, end++;
			if (*end || v < 512 || v > 1073741824L) {
				rc = -1;
				break;
			}
			o->stdio_size = v;
		} else if (val && kinds[i].bit == RW_FADVISE) {
			if (!strcmp(val, "sequential"))
				o->advice = "SEQUENTIAL";
			else if (!strcmp(val, "random"))
				o->advice = "RANDOM";
			else if (!strcmp(val, "willneed"))
				o->advice = "WILLNEED";
			else {
				rc = -1;
				break;
			}
		} else if (val) {
			rc = -1;
			break;
		}
	}
	free(dup);
	return rc < 0 || !o->kinds ? -1 : 0;
}

/* ---- the parsed file ----------------------------------------------------- */

struct rw {
	const char *path;
	const char *s;
	size_t n;
	CXTranslationUnit tu;
	struct dft_cflow *cf;
	CXFile mainf;
	const struct rw_opts *o;
	struct edits *e;
	struct fresult *r;
	int cpp;
	/* declarations the insertions need */
	int has_fdatasync, has_fadvise, has_malloc, has_free;
	/* the function being rewritten */
	const char *fname;
	int fline;
	int found;		/* candidates seen, per kind bit */
	unsigned done;		/* kinds rewritten in this function */
	unsigned seen;		/* kinds with a candidate in this function */
};

static int
name_is(CXCursor c, const char *name)
{
	CXString s = clang_getCursorSpelling(c);
	int eq = clang_getCString(s) && !strcmp(clang_getCString(s), name);

	clang_disposeString(s);
	return eq;
}

/*
 * Byte offsets [*a, *b) of c in the main file; -1 when c is not all in
 * the main file or comes from a macro expansion (nothing is rewritten
 * there: the text is not what the tree says).
 */
static int
range_of(const struct rw *w, CXCursor c, size_t *a, size_t *b)
{
	CXSourceRange ext = clang_getCursorExtent(c);
	CXSourceLocation l0 = clang_getRangeStart(ext);
	CXSourceLocation l1 = clang_getRangeEnd(ext);
	CXFile f0, f1, s0, s1;
	unsigned o0, o1, so0, so1;

	if (!clang_Location_isFromMainFile(l0) ||
	    !clang_Location_isFromMainFile(l1))
		return -1;
	clang_getExpansionLocation(l0, &f0, NULL, NULL, &o0);
	clang_getExpansionLocation(l1, &f1, NULL, NULL, &o1);
	clang_getSpellingLocation(l0, &s0, NULL, NULL, &so0);
	clang_getSpellingLocation(l1, &s1, NULL, NULL, &so1);
	if (!clang_File_isEqual(f0, s0) || !clang_File_isEqual(f1, s1) ||
	    o0 != so0 || o1 != so1 || o1 < o0 || o1 > w->n)
		return -1;
	*a = o0;
	*b = o1;
	return 0;
}

/*
 * The text range of c as written, macros included (a macro's name stands
 * for its expansion): for comparing text, never for editing.
 */
static int
loose_range(const struct rw *w, CXCursor c, size_t *a, size_t *b)
{
	CXSourceRange ext = clang_getCursorExtent(c);
	CXSourceLocation l1 = clang_getRangeEnd(ext);
	CXFile f0, f1, s1;
	unsigned o0, o1, so1;

	clang_getExpansionLocation(clang_getRangeStart(ext), &f0, NULL, NULL,
				   &o0);
	clang_getExpansionLocation(l1, &f1, NULL, NULL, &o1);
	clang_getSpellingLocation(l1, &s1, NULL, NULL, &so1);
	if (!clang_File_isEqual(f0, w->mainf) ||
	    !clang_File_isEqual(f0, f1) || o1 < o0 || o1 > w->n)
		return -1;
	if (!clang_File_isEqual(f1, s1) || so1 != o1) {
		/* ends in a macro: over its name (and its arguments) */
		while (o1 < w->n && (isalnum((unsigned char)w->s[o1]) ||
				     w->s[o1] == '_'))
			o1++;
		if (o1 < w->n && w->s[o1] == '(') {
			int d = 0;

			for (; o1 < w->n; o1++) {
				if (w->s[o1] == '(')
					d++;
				else if (w->s[o1] == ')' && --d == 0) {
					o1++;
					break;
				}
			}
		}
	}
	*a = o0;
	*b = o1;
	return 0;
}

static int
line_of(CXCursor c)
{
	unsigned line = 0;

	clang_getExpansionLocation(clang_getCursorLocation(c), NULL, &line,
				   NULL, NULL);
	return (int)line;
}

/* The text of c (caller frees), NULL when range_of fails. */
static char *
text_of(const struct rw *w, CXCursor c)
{
	size_t a, b;

	if (loose_range(w, c, &a, &b) < 0)
		return NULL;
	return dft_xstrndup(w->s + a, b - a);
}

/* Offset just past a statement that ends at b: its ';' when one follows. */
static size_t
stmt_end(const struct rw *w, size_t b)
{
	size_t i = b;

	while (i < w->n && (w->s[i] == ' ' || w->s[i] == '\t'))
		i++;
	if (i < w->n && w->s[i] == ';')
		return i + 1;
	return b;
}

/*
 * Inserts code on a new line after offset at (the end of a statement),
 * indented like the line of offset like, then a #line directive, so the
 * lines after it keep their numbers (__LINE__, the compiler's messages).
 */
static void
insert_line(struct rw *w, size_t at, size_t like, char *code)
{
	size_t ls = like, le;
	int line = 1;
	size_t i;

	while (ls > 0 && w->s[ls - 1] != '\n')
		ls--;
	for (le = ls; le < w->n && (w->s[le] == ' ' || w->s[le] == '\t'); le++)
		;
	for (i = 0; i < at; i++)
		line += w->s[i] == '\n';
	edits_add(w->e, at, 0, dft_xasprintf("\n%.*s%s " RW_MARK "\n#line %d",
					     (int)(le - ls), w->s + ls, code,
					     line + 1));
	free(code);
	w->r->lines_inserted += 2;
}

/* The global C library function a call calls, by name; NULL otherwise. */
static int
calls(CXCursor call, const char *name)
{
	CXCursor d;

	if (clang_getCursorKind(call) != CXCursor_CallExpr)
		return 0;
	d = clang_getCursorReferenced(call);
	if (clang_Cursor_isNull(d) || !name_is(d, name))
		return 0;
	return dft_cflow_global(d);
}

static int
calls_any(CXCursor call, const char *const *names)
{
	for (; *names; names++)
		if (calls(call, *names))
			return 1;
	return 0;
}

/* The callee's name of a call (caller frees), "" when indirect. */
static char *
callee_of(CXCursor call)
{
	CXCursor d = clang_getCursorReferenced(call);

	if (clang_Cursor_isNull(d))
		return dft_xstrdup("");
	return dft_cflow_string(clang_getCursorSpelling(d));
}

/* 1 when expression e (unwrapped) refers to variable v. */
static int
refers_to(CXCursor e, CXCursor v)
{
	e = dft_cflow_unwrap(e);
	return clang_getCursorKind(e) == CXCursor_DeclRefExpr &&
	       clang_equalCursors(clang_getCursorReferenced(e), v);
}

/* The operator text between the two operands of a binary operator. */
static char *
binop_of(const struct rw *w, CXCursor op, CXCursor *lhs, CXCursor *rhs)
{
	struct dft_kids k;
	size_t a0, b0, a1, b1;
	char *t = NULL;

	if (clang_getCursorKind(op) != CXCursor_BinaryOperator)
		return NULL;
	dft_cflow_kids(op, &k);
	if (k.n == 2 && loose_range(w, k.v[0], &a0, &b0) == 0 &&
	    loose_range(w, k.v[1], &a1, &b1) == 0 && b0 <= a1) {
		size_t i = b0, j = a1;

		while (i < j && isspace((unsigned char)w->s[i]))
			i++;
		while (j > i && isspace((unsigned char)w->s[j - 1]))
			j--;
		t = dft_xstrndup(w->s + i, j - i);
		*lhs = k.v[0];
		*rhs = k.v[1];
	}
	free(k.v);
	return t;
}

/*
 * Statement st stores the result of a call to one of names in a variable:
 * `V = CALL' or a declaration `T V = CALL'. *var, *call; 1 or 0.
 */
static int
stores_call(const struct rw *w, CXCursor st, const char *const *names,
	    CXCursor *var, CXCursor *call)
{
	enum CXCursorKind k = clang_getCursorKind(st);
	struct dft_kids kd;
	int ok = 0;

	if (k == CXCursor_BinaryOperator) {
		CXCursor l, r;
		char *op = binop_of(w, st, &l, &r);

		if (op && !strcmp(op, "=")) {
			l = dft_cflow_unwrap(l);
			r = dft_cflow_unwrap(r);
			if (clang_getCursorKind(l) == CXCursor_DeclRefExpr &&
			    calls_any(r, names)) {
				*var = clang_getCursorReferenced(l);
				*call = r;
				ok = 1;
			}
		}
		free(op);
		return ok;
	}
	if (k != CXCursor_DeclStmt)
		return 0;
	dft_cflow_kids(st, &kd);
	if (kd.n == 1 && clang_getCursorKind(kd.v[0]) == CXCursor_VarDecl) {
		struct dft_kids vk;
		size_t i;

		dft_cflow_kids(kd.v[0], &vk);
		for (i = 0; i < vk.n; i++) {
			CXCursor c = dft_cflow_unwrap(vk.v[i]);

			if (calls_any(c, names)) {
				*var = kd.v[0];
				*call = c;
				ok = 1;
			}
		}
		free(vk.v);
	}
	free(kd.v);
	return ok;
}

/* 1 when the text of e is a null pointer constant. */
static int
is_null_text(const struct rw *w, CXCursor e)
{
	char *t = text_of(w, e);
	int ok = t && (!strcmp(t, "NULL") || !strcmp(t, "0") ||
		       !strcmp(t, "nullptr") || !strcmp(t, "(void *)0"));

	free(t);
	return ok;
}

static int
is_text(const struct rw *w, CXCursor e, const char *want)
{
	char *t = text_of(w, e);
	int ok = t && !strcmp(t, want);

	free(t);
	return ok;
}

/*
 * The failure test of an if condition c on variable v: `v == NULL', `!v',
 * `NULL == v' (stream) or `v < 0', `v == -1' (descriptor), alone or as the
 * leftmost operand of `||'. *rest is the right operand of that `||' (null
 * cursor when there is none). 1 or 0.
 */
static int
fail_test(const struct rw *w, CXCursor c, CXCursor v, int stream,
	  CXCursor *rest)
{
	CXCursor l, r;
	char *op;
	int ok = 0;

	c = dft_cflow_unwrap(c);
	op = binop_of(w, c, &l, &r);
	if (op && !strcmp(op, "||")) {
		CXCursor dummy;

		ok = fail_test(w, l, v, stream, &dummy) &&
		     clang_Cursor_isNull(dummy);
		*rest = r;
		free(op);
		return ok;
	}
	*rest = clang_getNullCursor();
	if (op) {
		if (stream)
			ok = !strcmp(op, "==") &&
			     ((refers_to(l, v) && is_null_text(w, r)) ||
			      (refers_to(r, v) && is_null_text(w, l)));
		else
			ok = (!strcmp(op, "<") && refers_to(l, v) &&
			      is_text(w, r, "0")) ||
			     (!strcmp(op, "==") && refers_to(l, v) &&
			      is_text(w, r, "-1"));
		free(op);
		return ok;
	}
	if (stream && clang_getCursorKind(c) == CXCursor_UnaryOperator) {
		char *t = text_of(w, c);
		struct dft_kids k;

		dft_cflow_kids(c, &k);
		ok = t && t[0] == '!' && k.n == 1 && refers_to(k.v[0], v);
		free(k.v);
		free(t);
	}
	return ok;
}

/* ---- walking ------------------------------------------------------------- */

struct collect {
	CXCursor *v;
	size_t n, cap;
	const char *const *names;	/* calls to these; NULL: every call */
};

static enum CXChildVisitResult
collect_calls(CXCursor c, CXCursor parent, CXClientData data)
{
	struct collect *k = data;

	(void)parent;
	if (clang_getCursorKind(c) == CXCursor_LambdaExpr)
		return CXChildVisit_Continue;
	if (clang_getCursorKind(c) == CXCursor_CallExpr &&
	    (!k->names || calls_any(c, k->names))) {
		if (k->n == k->cap) {
			k->cap = k->cap ? k->cap * 2 : 16;
			k->v = dft_xreallocarray(k->v, k->cap, sizeof(*k->v));
		}
		k->v[k->n++] = c;
	}
	return CXChildVisit_Recurse;
}

static void
calls_in(CXCursor c, const char *const *names, struct collect *k)
{
	memset(k, 0, sizeof(*k));
	k->names = names;
	clang_visitChildren(c, collect_calls, k);
}

/* Argument i of a call (unwrapped), or a null cursor. */
static CXCursor
arg_of(CXCursor call, unsigned i)
{
	if ((int)i >= clang_Cursor_getNumArguments(call))
		return clang_getNullCursor();
	return dft_cflow_unwrap(clang_Cursor_getArgument(call, i));
}

static void
note_done(struct rw *w, unsigned kind, int line, char *from, char *to)
{
	json_object *o = json_object_new_object();
	size_t i;

	for (i = 0; kinds[i].bit != kind; i++)
		;
	json_object_object_add(o, "function", dft_jstr(w->fname));
	json_object_object_add(o, "rewrite", dft_jstr(kinds[i].name));
	json_object_object_add(o, "line", dft_jint(line));
	json_object_object_add(o, "from", dft_jstr(from));
	json_object_object_add(o, "to", dft_jstr(to));
	json_object_array_add(w->r->annotated, o);
	w->done |= kind;
	w->seen |= kind;
	free(from);
	free(to);
}

static void
note_skip(struct rw *w, unsigned kind, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void
note_skip(struct rw *w, unsigned kind, int line, const char *fmt, ...)
{
	json_object *o = json_object_new_object();
	char *why;
	va_list ap;
	size_t i;

	for (i = 0; kinds[i].bit != kind; i++)
		;
	va_start(ap, fmt);
	if (vasprintf(&why, fmt, ap) < 0)
		dft_die("out of memory");
	va_end(ap);
	json_object_object_add(o, "function", dft_jstr(w->fname));
	json_object_object_add(o, "rewrite", dft_jstr(kinds[i].name));
	json_object_object_add(o, "line", line > 0 ? dft_jint(line) : NULL);
	json_object_object_add(o, "reason", dft_jstr(why));
	json_object_array_add(w->r->skipped, o);
	w->seen |= kind;
	free(why);
}

/* 1 when no edit planned so far touches [a, b). */
static int
edit_free(const struct rw *w, size_t a, size_t b)
{
	size_t i;

	for (i = 0; i < w->e->n; i++) {
		const struct edit *x = &w->e->v[i];

		if (a < x->off + x->del && x->off < b)
			return 0;
	}
	return 1;
}

/* The variable's name (caller frees). */
static char *
var_name(CXCursor v)
{
	return dft_cflow_string(clang_getCursorSpelling(v));
}

/* ---- setvbuf ------------------------------------------------------------- */

static const char *const fopen_names[] = { "fopen", "fopen64", NULL };
static const char *const setbuf_names[] = {
	"setvbuf", "setbuf", "setbuffer", "setlinebuf", NULL
};
static const char *const fclose_names[] = { "fclose", NULL };

/* Assignments to v anywhere in fn other than at stmt: its line, or 0. */
static int
assigned_elsewhere(struct rw *w, CXCursor fn, CXCursor v, CXCursor stmt);

/* 1 when two cursors cover the same text (the same node, reached along
 * two paths of the tree). */
static int
same_place(const struct rw *w, CXCursor x, CXCursor y)
{
	size_t a, b, c, d;

	return clang_getCursorKind(x) == clang_getCursorKind(y) &&
	       loose_range(w, x, &a, &b) == 0 &&
	       loose_range(w, y, &c, &d) == 0 && a == c && b == d;
}

struct assign_find {
	struct rw *w;
	CXCursor v, skip;
	int line;
};

static enum CXChildVisitResult
assign_visit(CXCursor c, CXCursor parent, CXClientData data)
{
	struct assign_find *a = data;
	CXCursor l, r;
	char *op;

	(void)parent;
	if (same_place(a->w, c, a->skip))
		return CXChildVisit_Continue;
	op = binop_of(a->w, c, &l, &r);
	if (!op && clang_getCursorKind(c) == CXCursor_CompoundAssignOperator)
		op = dft_xstrdup("op=");
	if (op && (!strcmp(op, "=") || strchr(op, '=') == op + strlen(op) - 1) &&
	    strcmp(op, "==") && strcmp(op, "!=") && strcmp(op, "<=") &&
	    strcmp(op, ">=")) {
		struct dft_kids k;

		dft_cflow_kids(c, &k);
		if (k.n >= 1 && refers_to(k.v[0], a->v)) {
			a->line = line_of(c);
			free(k.v);
			free(op);
			return CXChildVisit_Break;
		}
		free(k.v);
	}
	free(op);
	if (clang_getCursorKind(c) == CXCursor_UnaryOperator) {
		struct dft_kids k;
		char *t = text_of(a->w, c);

		dft_cflow_kids(c, &k);
		if (t && k.n == 1 && refers_to(k.v[0], a->v) &&
		    (strstr(t, "++") || strstr(t, "--") || t[0] == '&')) {
			a->line = line_of(c);
			free(k.v);
			free(t);
			return CXChildVisit_Break;
		}
		free(k.v);
		free(t);
	}
	return CXChildVisit_Recurse;
}

static int
assigned_elsewhere(struct rw *w, CXCursor fn, CXCursor v, CXCursor stmt)
{
	struct assign_find a = { w, v, stmt, 0 };

	clang_visitChildren(fn, assign_visit, &a);
	return a.line;
}

/* The calls of names whose first argument is v, in c. */
static size_t
calls_on(CXCursor c, const char *const *names, CXCursor v, CXCursor *first)
{
	struct collect k;
	size_t i, n = 0;

	calls_in(c, names, &k);
	for (i = 0; i < k.n; i++)
		if (refers_to(arg_of(k.v[i], 0), v)) {
			if (n++ == 0 && first)
				*first = k.v[i];
		}
	free(k.v);
	return n;
}

/* 1 when cursor c lies inside cursor outer (by offsets). */
static int
inside(const struct rw *w, CXCursor c, CXCursor outer)
{
	size_t a, b, oa, ob;

	return range_of(w, c, &a, &b) == 0 &&
	       range_of(w, outer, &oa, &ob) == 0 && a >= oa && b <= ob;
}

static void
try_setvbuf(struct rw *w, CXCursor fn, struct dft_kids *blk, size_t k)
{
	CXCursor var, call, rest, own = clang_getNullCursor(), cl;
	CXCursor st = blk->v[k], chk;
	struct dft_kids ik;
	size_t a, b, ca, cb, xa, xb, j, close_at = 0;
	int line = line_of(st), other;
	char *name, *decl, *buf;
	long sz = w->o->stdio_size;

	if (!stores_call(w, st, fopen_names, &var, &call))
		return;
	w->found |= RW_SETVBUF;
	name = var_name(var);
	if (k + 1 >= blk->n ||
	    clang_getCursorKind(blk->v[k + 1]) != CXCursor_IfStmt) {
		note_skip(w, RW_SETVBUF, line, "the statement after the fopen "
			  "is not an if that tests %s", name);
		free(name);
		return;
	}
	chk = blk->v[k + 1];
	dft_cflow_kids(chk, &ik);
	if (ik.n < 2 || !fail_test(w, ik.v[0], var, 1, &rest) ||
	    !dft_cflow_cannot_complete(w->cf, ik.v[1])) {
		note_skip(w, RW_SETVBUF, line, "the if after the fopen does not "
			  "test %s == NULL and leave (return, exit, goto)",
			  name);
		goto out;
	}
	if (ik.n > 2) {
		note_skip(w, RW_SETVBUF, line, "the if after the fopen has an "
			  "else branch");
		goto out;
	}
	/* the rest of the condition: nothing, or the program's own setvbuf */
	if (!clang_Cursor_isNull(rest)) {
		CXCursor l, r;
		char *op = binop_of(w, dft_cflow_unwrap(rest), &l, &r);
		CXCursor sv = dft_cflow_unwrap(l);
		struct collect all;

		calls_in(rest, NULL, &all);
		if (!op || strcmp(op, "!=") || !is_text(w, r, "0") ||
		    !calls(sv, "setvbuf") || !refers_to(arg_of(sv, 0), var) ||
		    all.n != 1) {
			note_skip(w, RW_SETVBUF, line, "the if after the fopen "
				  "does more than test %s (only "
				  "setvbuf(%s, ...) != 0 may follow)", name,
				  name);
			free(op);
			free(all.v);
			goto out;
		}
		free(op);
		free(all.v);
		own = sv;
		if (!is_null_text(w, arg_of(sv, 1)) ||
		    !(is_text(w, arg_of(sv, 2), "_IONBF") ||
		      is_text(w, arg_of(sv, 2), "_IOLBF"))) {
			note_skip(w, RW_SETVBUF, line_of(sv), "the program "
				  "gives %s a buffer of its own", name);
			goto out;
		}
	}
	if (calls_on(fn, setbuf_names, var, NULL) !=
	    (clang_Cursor_isNull(own) ? 0u : 1u)) {
		note_skip(w, RW_SETVBUF, line, "the program sets the buffer of "
			  "%s elsewhere in %s", name, w->fname);
		goto out;
	}
	if ((other = assigned_elsewhere(w, fn, var, st)) > 0) {
		note_skip(w, RW_SETVBUF, other, "%s is assigned again at line "
			  "%d", name, other);
		goto out;
	}
	if (!clang_Cursor_isNull(own)) {
		/* the program's own setvbuf: libc's full buffer instead */
		size_t sa, sb, xa, xb;

		if (loose_range(w, clang_Cursor_getArgument(own, 1), &sa,
				&xb) < 0 ||
		    loose_range(w, clang_Cursor_getArgument(own, 3), &xa,
				&sb) < 0 || sb <= sa) {
			note_skip(w, RW_SETVBUF, line, "the setvbuf call comes "
				  "from a macro");
			goto out;
		}
		edits_add(w->e, sa, sb - sa,
			  dft_xstrdup("NULL, _IOFBF, BUFSIZ " RW_MARK));
		note_done(w, RW_SETVBUF, line_of(own), text_of(w, own),
			  dft_xasprintf("setvbuf(%s, NULL, _IOFBF, BUFSIZ)",
					name));
		goto out;
	}
	/* a buffer of SIZE, freed after the fclose */
	if (calls_on(fn, fclose_names, var, &cl) != 1) {
		note_skip(w, RW_SETVBUF, line, "%s is not closed exactly once "
			  "in %s (the buffer must be freed after fclose)",
			  name, w->fname);
		goto out;
	}
	for (j = k + 2; j < blk->n && !close_at; j++)
		if (inside(w, cl, blk->v[j]))
			close_at = j;
	if (!close_at) {
		note_skip(w, RW_SETVBUF, line_of(cl), "fclose(%s) is not in a "
			  "statement of the block of the fopen", name);
		goto out;
	}
	if (clang_getCursorKind(blk->v[close_at]) == CXCursor_ReturnStmt ||
	    dft_cflow_cannot_complete(w->cf, blk->v[close_at])) {
		note_skip(w, RW_SETVBUF, line_of(cl), "the statement with "
			  "fclose(%s) does not complete (nowhere to free the "
			  "buffer)", name);
		goto out;
	}
	if (!w->has_malloc || !w->has_free) {
		note_skip(w, RW_SETVBUF, line, "malloc and free are not "
			  "declared in this file (<stdlib.h>)");
		goto out;
	}
	if (range_of(w, st, &a, &b) < 0 || range_of(w, chk, &ca, &cb) < 0 ||
	    range_of(w, blk->v[close_at], &xa, &xb) < 0) {
		note_skip(w, RW_SETVBUF, line, "the statements come from a "
			  "macro");
		goto out;
	}
	buf = dft_xasprintf("dft_stdio_buf_%s", name);
	decl = dft_xasprintf("char *%s = (char *)malloc(%ld); "
			     "(void)setvbuf(%s, %s, _IOFBF, %ld);",
			     buf, sz, name, buf, sz);
	insert_line(w, stmt_end(w, cb), a, decl);
	insert_line(w, stmt_end(w, xb), xa, dft_xasprintf("free(%s);", buf));
	note_done(w, RW_SETVBUF, line_of(chk),
		  dft_xasprintf("%s = fopen(...)", name),
		  dft_xasprintf("setvbuf(%s, malloc(%ld), _IOFBF, %ld) after "
				"the check, free after fclose", name, sz, sz));
	free(buf);
out:
	free(ik.v);
	free(name);
}

/* ---- fadvise ------------------------------------------------------------- */

static const char *const open_names[] = {
	"open", "open64", "openat", "openat64", NULL
};

static void
try_fadvise(struct rw *w, CXCursor fn, struct dft_kids *blk, size_t k)
{
	CXCursor var, call, rest, chk;
	struct dft_kids ik;
	size_t a, b;
	int line = line_of(blk->v[k]);
	char *name;

	(void)fn;
	if (!stores_call(w, blk->v[k], open_names, &var, &call))
		return;
	w->found |= RW_FADVISE;
	name = var_name(var);
	if (k + 1 >= blk->n ||
	    clang_getCursorKind(blk->v[k + 1]) != CXCursor_IfStmt) {
		note_skip(w, RW_FADVISE, line, "the statement after the open "
			  "is not an if that tests %s", name);
		free(name);
		return;
	}
	chk = blk->v[k + 1];
	dft_cflow_kids(chk, &ik);
	if (ik.n != 2 || !fail_test(w, ik.v[0], var, 0, &rest) ||
	    !clang_Cursor_isNull(rest) ||
	    !dft_cflow_cannot_complete(w->cf, ik.v[1])) {
		note_skip(w, RW_FADVISE, line, "the if after the open does not "
			  "only test %s < 0 and leave (return, exit, goto)",
			  name);
	} else if (!w->has_fadvise) {
		note_skip(w, RW_FADVISE, line, "posix_fadvise is not declared "
			  "in this file (<fcntl.h>, _POSIX_C_SOURCE >= "
			  "200112L)");
	} else if (range_of(w, chk, &a, &b) < 0) {
		note_skip(w, RW_FADVISE, line, "the check comes from a macro");
	} else {
		insert_line(w, stmt_end(w, b), a,
			    dft_xasprintf("(void)posix_fadvise(%s, 0, 0, "
					  "POSIX_FADV_%s);", name,
					  w->o->advice));
		note_done(w, RW_FADVISE, line_of(chk),
			  dft_xasprintf("%s = open(...)", name),
			  dft_xasprintf("posix_fadvise(%s, 0, 0, POSIX_FADV_%s) "
					"after the check", name,
					w->o->advice));
	}
	free(ik.v);
	free(name);
}

/* ---- fdatasync ----------------------------------------------------------- */

static const char *const fsync_names[] = { "fsync", NULL };

/* The offsets of the callee's name of a call: [*a, *b). */
static int
callee_range(const struct rw *w, CXCursor call, size_t *a, size_t *b)
{
	struct dft_kids k;
	int rc = -1;

	dft_cflow_kids(call, &k);
	if (k.n >= 1) {
		CXCursor f = dft_cflow_unwrap(k.v[0]);

		if (clang_getCursorKind(f) == CXCursor_DeclRefExpr)
			rc = range_of(w, f, a, b);
	}
	free(k.v);
	return rc;
}

static void
do_fdatasync(struct rw *w, CXCursor fn)
{
	struct collect k;
	size_t i, a, b;

	calls_in(fn, fsync_names, &k);
	for (i = 0; i < k.n; i++) {
		int line = line_of(k.v[i]);

		w->found |= RW_FDATASYNC;
		if (!w->has_fdatasync)
			note_skip(w, RW_FDATASYNC, line, "fdatasync is not "
				  "declared in this file (<unistd.h>)");
		else if (callee_range(w, k.v[i], &a, &b) < 0 || b - a != 5 ||
			 memcmp(w->s + a, "fsync", 5))
			note_skip(w, RW_FDATASYNC, line, "the call is written "
				  "through a macro");
		else if (!edit_free(w, a, b))
			note_skip(w, RW_FDATASYNC, line, "the call is rewritten "
				  "already (sync-last)");
		else {
			edits_add(w->e, a, b - a, dft_xstrdup("fdatasync"));
			note_done(w, RW_FDATASYNC, line, text_of(w, k.v[i]),
				  dft_xstrdup("fdatasync(...)"));
		}
	}
	free(k.v);
}

/* ---- sync-last ----------------------------------------------------------- */

/* Calls a loop body may make: they compute, or write to the descriptor. */
static const char *const pure_names[] = {
	"memset", "memcpy", "memmove", "snprintf", "sprintf", "strlen",
	"strcpy", "strncpy", "strcat", "strncat", "memcmp", "strcmp", NULL
};
static const char *const write_names[] = {
	"write", "pwrite", "pwrite64", "close", NULL
};

/* The identifiers of a for loop's header part [a, b): 1 when the text is
 * IDENT (ws) OP (ws) REST; *id, *rest (caller frees). */
static int
split_head(const char *s, size_t a, size_t b, const char *op, char **id,
	   char **rest)
{
	size_t i = a, j;

	while (i < b && isspace((unsigned char)s[i]))
		i++;
	j = i;
	while (j < b && (isalnum((unsigned char)s[j]) || s[j] == '_'))
		j++;
	if (j == i || isdigit((unsigned char)s[i]))
		return 0;
	*id = dft_xstrndup(s + i, j - i);
	while (j < b && isspace((unsigned char)s[j]))
		j++;
	if (b - j < strlen(op) || memcmp(s + j, op, strlen(op)) ||
	    (s[j + strlen(op)] == '=' && strcmp(op, "<") == 0)) {
		free(*id);
		return 0;
	}
	j += strlen(op);
	while (j < b && isspace((unsigned char)s[j]))
		j++;
	while (b > j && isspace((unsigned char)s[b - 1]))
		b--;
	*rest = dft_xstrndup(s + j, b - j);
	return 1;
}

/* 1 when word (an identifier) occurs in text as a whole word. */
static int
has_word(const char *text, size_t n, const char *word)
{
	size_t l = strlen(word), i;

	for (i = 0; i + l <= n; i++)
		if (!memcmp(text + i, word, l) &&
		    (i == 0 || !(isalnum((unsigned char)text[i - 1]) ||
				 text[i - 1] == '_')) &&
		    (i + l == n || !(isalnum((unsigned char)text[i + l]) ||
				     text[i + l] == '_')))
			return 1;
	return 0;
}

/* The identifiers of an expression text that could change: "" when it is
 * made of identifiers, numbers, sizeof and operators only; else NULL (a
 * call). Fills ids (space-separated, caller frees). */
static char *
bound_ids(const char *e)
{
	struct dft_buf ids;
	size_t i = 0, n = strlen(e);

	dft_buf_init(&ids);
	while (i < n) {
		if (isalpha((unsigned char)e[i]) || e[i] == '_') {
			size_t j = i, k;

			while (j < n && (isalnum((unsigned char)e[j]) ||
					 e[j] == '_'))
				j++;
			k = j;
			while (k < n && isspace((unsigned char)e[k]))
				k++;
			if (k < n && e[k] == '(' &&
			    !(j - i == 6 && !memcmp(e + i, "sizeof", 6))) {
				dft_buf_release(&ids);
				return NULL;
			}
			if (!(j - i == 6 && !memcmp(e + i, "sizeof", 6))) {
				dft_buf_addf(&ids, "%.*s ", (int)(j - i), e + i);
			}
			i = j;
		} else if (strchr("+-*/%()<>&|^~ \t0123456789xXuUlL.", e[i])) {
			i++;
		} else {
			dft_buf_release(&ids);
			return NULL;
		}
	}
	return ids.s ? ids.s : dft_xstrdup("");
}

static void
try_sync_last(struct rw *w, CXCursor fn, CXCursor call, CXCursor loop)
{
	CXCursor fd = arg_of(call, 0), body;
	struct dft_kids lk;
	struct collect all;
	size_t la, lb, ba, bb, hp, h1, h2, ca, cb, i;
	char *iv = NULL, *bound = NULL, *ids = NULL, *inc_id = NULL;
	char *inc_rest = NULL, *name = NULL, *bad = NULL;
	int line = line_of(call), depth;
	const char *why = NULL;

	w->found |= RW_SYNC_LAST;
	dft_cflow_kids(loop, &lk);
	memset(&all, 0, sizeof(all));
	if (clang_getCursorKind(fd) != CXCursor_DeclRefExpr) {
		why = "its argument is not a variable";
		goto out;
	}
	name = var_name(clang_getCursorReferenced(fd));
	if (clang_getCursorKind(loop) != CXCursor_ForStmt || lk.n < 1) {
		why = "the loop around it is not a for loop";
		goto out;
	}
	body = lk.v[lk.n - 1];
	if (range_of(w, loop, &la, &lb) < 0 || range_of(w, body, &ba, &bb) < 0 ||
	    range_of(w, call, &ca, &cb) < 0) {
		why = "the loop comes from a macro";
		goto out;
	}
	/* the header: for (INIT; I < E; I++) */
	for (hp = la; hp < ba && w->s[hp] != '('; hp++)
		;
	depth = 0;
	h1 = h2 = 0;
	for (i = hp; i < ba; i++) {
		if (w->s[i] == '(')
			depth++;
		else if (w->s[i] == ')' && --depth == 0)
			break;
		else if (w->s[i] == ';' && depth == 1) {
			if (!h1)
				h1 = i;
			else if (!h2)
				h2 = i;
		}
	}
	if (!h1 || !h2 || i >= ba ||
	    !split_head(w->s, h1 + 1, h2, "<", &iv, &bound)) {
		why = "the loop's condition is not I < BOUND";
		goto out;
	}
	if (!split_head(w->s, h2 + 1, i, "++", &inc_id, &inc_rest) ||
	    strcmp(inc_id, iv) || *inc_rest) {
		free(inc_id);
		free(inc_rest);
		inc_id = inc_rest = NULL;
		{
			size_t p = h2 + 1;

			while (p < i && isspace((unsigned char)w->s[p]))
				p++;
			if (!(i - p >= 2 && !memcmp(w->s + p, "++", 2) &&
			      split_head(w->s, p + 2, i, "", &inc_id,
					 &inc_rest) &&
			      !strcmp(inc_id, iv) && !*inc_rest)) {
				why = "the loop does not step by I++";
				goto out;
			}
		}
	}
	ids = bound_ids(bound);
	if (!ids) {
		why = "the loop's bound is not a constant expression or variables "
		      "(it calls a function)";
		goto out;
	}
	/* the body: no way out but the end or a return, nothing assigned
	 * that the condition reads */
	if (has_word(w->s + ba, bb - ba, "break") ||
	    has_word(w->s + ba, bb - ba, "continue") ||
	    has_word(w->s + ba, bb - ba, "goto") ||
	    has_word(w->s + ba, bb - ba, "for") ||
	    has_word(w->s + ba, bb - ba, "while") ||
	    has_word(w->s + ba, bb - ba, "do") ||
	    has_word(w->s + ba, bb - ba, "switch")) {
		why = "the loop body has break, continue, goto, a switch or "
		      "another loop";
		goto out;
	}
	{
		char *save = NULL, *dup = dft_xasprintf("%s %s", iv, ids), *t;

		for (t = strtok_r(dup, " ", &save); t && !why;
		     t = strtok_r(NULL, " ", &save)) {
			/* an assignment in the body to a name of the header */
			{
				size_t p, l = strlen(t);

				for (p = ba; p + l <= bb; p++) {
					size_t q;

					if (memcmp(w->s + p, t, l) ||
					    (p > ba &&
					     (isalnum((unsigned char)w->s[p - 1]) ||
					      w->s[p - 1] == '_')) ||
					    isalnum((unsigned char)w->s[p + l]) ||
					    w->s[p + l] == '_')
						continue;
					q = p + l;
					while (q < bb &&
					       isspace((unsigned char)w->s[q]))
						q++;
					if ((q + 1 < bb && w->s[q] != '=' &&
					     w->s[q + 1] == '=' &&
					     strchr("+-*/%&|^", w->s[q])) ||
					    (q < bb && w->s[q] == '=' &&
					     w->s[q + 1] != '=') ||
					    (q + 1 < bb &&
					     (!memcmp(w->s + q, "++", 2) ||
					      !memcmp(w->s + q, "--", 2))) ||
					    (p >= 2 &&
					     (!memcmp(w->s + p - 2, "++", 2) ||
					      !memcmp(w->s + p - 2, "--", 2))) ||
					    (p >= 1 && w->s[p - 1] == '&' &&
					     (p < 2 || w->s[p - 2] != '&')))
						why = "the loop body changes a "
						      "variable of its condition";
				}
			}
		}
		free(dup);
		if (why)
			goto out;
	}
	/* every call in the body computes or writes to the descriptor */
	calls_in(body, NULL, &all);
	{
		int nsync = 0;

		for (i = 0; i < all.n && !bad; i++) {
			CXCursor c = all.v[i];

			if (calls(c, "fsync") || calls(c, "fdatasync")) {
				if (!refers_to(arg_of(c, 0),
					       clang_getCursorReferenced(fd)))
					bad = dft_xstrdup("a sync of another "
							  "descriptor");
				nsync++;
			} else if (calls_any(c, write_names)) {
				if (!refers_to(arg_of(c, 0),
					       clang_getCursorReferenced(fd)))
					bad = dft_xasprintf(
						"%s on another descriptor",
						callee_of(c));
			} else if (!calls_any(c, pure_names)) {
				char *cn = callee_of(c);

				bad = dft_xasprintf("%s(), which may make the "
						    "records visible before "
						    "they are synced",
						    *cn ? cn : "an indirect call");
				free(cn);
			}
		}
		if (!bad && nsync != 1)
			bad = dft_xstrdup("more than one sync");
	}
	if (bad) {
		note_skip(w, RW_SYNC_LAST, line, "the loop body calls %s", bad);
		goto out;
	}
	if (!edit_free(w, ca, cb)) {
		why = "the call is rewritten already";
		goto out;
	}
	{
		char *call_text = dft_xstrndup(w->s + ca, cb - ca);

		edits_add(w->e, ca, cb - ca,
			  dft_xasprintf("(%s + 1 < (%s) ? 0 : %s " RW_MARK ")",
					iv, bound, call_text));
		note_done(w, RW_SYNC_LAST, line, call_text,
			  dft_xasprintf("%s only when %s + 1 == %s (after the "
					"last record)", "the sync", iv,
					bound));
	}
out:
	if (why)
		note_skip(w, RW_SYNC_LAST, line, "%s", why);
	free(lk.v);
	free(all.v);
	free(iv);
	free(bound);
	free(ids);
	free(inc_id);
	free(inc_rest);
	free(name);
	free(bad);
}

/* The innermost loop statement around each fsync call (recursive). */
static void
fsync_loops(struct rw *w, CXCursor fn, CXCursor c, CXCursor loop)
{
	struct dft_kids k;
	size_t i;
	enum CXCursorKind kind = clang_getCursorKind(c);

	if (kind == CXCursor_LambdaExpr)
		return;
	if (kind == CXCursor_ForStmt || kind == CXCursor_WhileStmt ||
	    kind == CXCursor_DoStmt)
		loop = c;
	if (kind == CXCursor_CallExpr && calls(c, "fsync")) {
		if (clang_Cursor_isNull(loop))
			note_skip(w, RW_SYNC_LAST, line_of(c), "the sync is not "
				  "in a loop");
		else
			try_sync_last(w, fn, c, loop);
		return;
	}
	dft_cflow_kids(c, &k);
	for (i = 0; i < k.n; i++)
		fsync_loops(w, fn, k.v[i], loop);
	free(k.v);
}

/* ---- the statements of the function -------------------------------------- */

static void
walk_blocks(struct rw *w, CXCursor fn, CXCursor c)
{
	struct dft_kids k;
	size_t i;
	enum CXCursorKind kind = clang_getCursorKind(c);

	if (kind == CXCursor_LambdaExpr)
		return;
	dft_cflow_kids(c, &k);
	if (kind == CXCursor_CompoundStmt) {
		for (i = 0; i < k.n; i++) {
			if (w->o->kinds & RW_SETVBUF)
				try_setvbuf(w, fn, &k, i);
			if (w->o->kinds & RW_FADVISE)
				try_fadvise(w, fn, &k, i);
		}
	}
	for (i = 0; i < k.n; i++)
		walk_blocks(w, fn, k.v[i]);
	free(k.v);
}

static void
rewrite_function(struct rw *w, CXCursor fn)
{
	static const char *const what[] = {
		"no fopen() whose result is stored in a variable",
		"no open() whose result is stored in a variable",
		"no fsync() call", "no fsync() call"
	};
	CXCursor body = clang_getNullCursor();
	struct dft_kids k;
	size_t i;
	unsigned b;

	dft_cflow_kids(fn, &k);
	for (i = 0; i < k.n; i++)
		if (clang_getCursorKind(k.v[i]) == CXCursor_CompoundStmt)
			body = k.v[i];
	free(k.v);
	if (clang_Cursor_isNull(body))
		return;
	w->found = 0;
	w->done = 0;
	w->seen = 0;
	walk_blocks(w, fn, body);
	if (w->o->kinds & RW_SYNC_LAST)
		fsync_loops(w, body, body, clang_getNullCursor());
	if (w->o->kinds & RW_FDATASYNC)
		do_fdatasync(w, body);
	for (b = 0; kinds[b].name; b++)
		if ((w->o->kinds & kinds[b].bit) && !(w->seen & kinds[b].bit))
			note_skip(w, kinds[b].bit, w->fline, "%s has %s",
				  w->fname, what[b]);
}

/* ---- the translation unit ------------------------------------------------ */

struct top {
	struct rw *w;
	json_object *targets;
	CXCursor *fns;
	size_t n, cap;
	int *tline;
	const char **tname;
};

static enum CXChildVisitResult
top_visit(CXCursor c, CXCursor parent, CXClientData data)
{
	struct top *t = data;
	enum CXCursorKind k = clang_getCursorKind(c);
	size_t i;

	(void)parent;
	/* extern "C" blocks (an unexposed declaration to older libclang)
	 * and namespaces hold declarations too */
	if (k == CXCursor_LinkageSpec || k == CXCursor_Namespace ||
	    k == CXCursor_UnexposedDecl)
		return CXChildVisit_Recurse;
	if (k != CXCursor_FunctionDecl && k != CXCursor_CXXMethod)
		return CXChildVisit_Continue;
	if (name_is(c, "fdatasync"))
		t->w->has_fdatasync = 1;
	else if (name_is(c, "posix_fadvise"))
		t->w->has_fadvise = 1;
	else if (name_is(c, "malloc"))
		t->w->has_malloc = 1;
	else if (name_is(c, "free"))
		t->w->has_free = 1;
	if (!clang_isCursorDefinition(c) ||
	    !clang_Location_isFromMainFile(clang_getCursorLocation(c)))
		return CXChildVisit_Continue;
	for (i = 0; i < json_object_array_length(t->targets); i++) {
		json_object *tg = json_object_array_get_idx(t->targets, i);
		const char *nm = dft_json_str(tg, "name", "");
		const char *last = nm;
		long line = (long)dft_json_int(tg, "line", 0);
		CXSourceRange ext = clang_getCursorExtent(c);
		unsigned l0, l1;

		clang_getExpansionLocation(clang_getRangeStart(ext), NULL, &l0,
					   NULL, NULL);
		clang_getExpansionLocation(clang_getRangeEnd(ext), NULL, &l1,
					   NULL, NULL);
		/* a C++ method's finding names it qualified (its event name);
		 * the cursor spells the last part, the line tells overloads */
		for (const char *p = nm; (p = strstr(p, "::")) != NULL; p += 2)
			last = p + 2;
		if (!name_is(c, last) ||
		    (line > 0 && (line < (long)l0 || line > (long)l1)))
			continue;
		if (t->n == t->cap) {
			t->cap = t->cap ? t->cap * 2 : 8;
			t->fns = dft_xreallocarray(t->fns, t->cap,
						   sizeof(*t->fns));
		}
		t->fns[t->n++] = c;
		json_object_object_add(tg, "_found", json_object_new_boolean(1));
	}
	return CXChildVisit_Continue;
}

/* Errors in the main file; the first one's text in *first (caller frees). */
static int
main_errors(CXTranslationUnit tu, char **first)
{
	unsigned i, nd = clang_getNumDiagnostics(tu);
	int n = 0;

	for (i = 0; i < nd; i++) {
		CXDiagnostic d = clang_getDiagnostic(tu, i);

		if (clang_getDiagnosticSeverity(d) >= CXDiagnostic_Error &&
		    clang_Location_isFromMainFile(
			    clang_getDiagnosticLocation(d))) {
			if (n++ == 0 && first)
				*first = dft_cflow_string(clang_formatDiagnostic(
					d, CXDiagnostic_DisplaySourceLocation |
					   CXDiagnostic_DisplayColumn));
		}
		clang_disposeDiagnostic(d);
	}
	return n;
}

static CXTranslationUnit
parse(CXIndex idx, const char *path, const char *s, size_t n, char **args)
{
	struct CXUnsavedFile uf = { path, s, (unsigned long)n };
	CXTranslationUnit tu = NULL;
	int argc = 0;
	const char **argv;

	while (args && args[argc])
		argc++;
	argv = dft_xcalloc((size_t)argc + 3, sizeof(*argv));
	memcpy(argv, args, (size_t)argc * sizeof(*argv));
	argv[argc++] = "-w";
	argv[argc++] = "-Wno-everything";
	if (clang_parseTranslationUnit2(idx, path, argv, argc, &uf, 1,
					CXTranslationUnit_KeepGoing, &tu) !=
	    CXError_Success)
		tu = NULL;
	free(argv);
	return tu;
}

char *
rw_rewrite(const char *path, const char *s, size_t n, char **args, int cpp,
	   json_object *targets, const struct rw_opts *o, size_t *outlen,
	   struct fresult *r)
{
	CXIndex idx = clang_createIndex(0, 0);
	struct edits e = { NULL, 0, 0 };
	struct rw w;
	struct top t;
	char *out = NULL, *first = NULL;
	int err0;
	size_t i;

	memset(&w, 0, sizeof(w));
	memset(&t, 0, sizeof(t));
	w.path = path;
	w.s = s;
	w.n = n;
	w.o = o;
	w.e = &e;
	w.r = r;
	w.cpp = cpp;
	w.tu = parse(idx, path, s, n, args);
	if (!w.tu) {
		r->refused = dft_xstrdup("libclang could not parse the file");
		goto done;
	}
	err0 = main_errors(w.tu, NULL);
	w.mainf = clang_getFile(w.tu, path);
	w.cf = dft_cflow_new(w.tu);
	t.w = &w;
	t.targets = targets;
	clang_visitChildren(clang_getTranslationUnitCursor(w.tu), top_visit,
			    &t);
	for (i = 0; i < json_object_array_length(targets); i++) {
		json_object *tg = json_object_array_get_idx(targets, i);

		if (!dft_json_bool(tg, "_found", 0)) {
			json_object *sk = json_object_new_object();

			json_object_object_add(sk, "function",
				dft_jstr(dft_json_str(tg, "name", "")));
			json_object_object_add(sk, "line",
				dft_json_int(tg, "line", 0) > 0 ?
				dft_jint(dft_json_int(tg, "line", 0)) : NULL);
			json_object_object_add(sk, "reason",
				dft_jstr("no definition of this function in "
					 "the file"));
			json_object_array_add(r->skipped, sk);
		}
		json_object_object_del(tg, "_found");
	}
	for (i = 0; i < t.n; i++) {
		char *nm = dft_cflow_string(clang_getCursorSpelling(t.fns[i]));

		w.fname = nm;
		w.fline = line_of(t.fns[i]);
		rewrite_function(&w, t.fns[i]);
		free(nm);
		w.fname = NULL;
	}
	if (e.n == 0)
		goto done;
	out = edits_apply(&e, s, n, outlen);
	if (!out) {
		r->refused = dft_xstrdup("two rewrites overlap");
		goto done;
	}
	/* the result must parse as well as the original did */
	{
		CXTranslationUnit tu2 = parse(idx, path, out, *outlen, args);
		int err1 = tu2 ? main_errors(tu2, &first) : -1;

		if (!tu2 || err1 > err0) {
			r->refused = dft_xasprintf(
				"the rewritten file does not compile: %s",
				first ? first : "libclang could not parse it");
			free(out);
			out = NULL;
			/* nothing was rewritten */
			while (json_object_array_length(r->annotated) > 0)
				json_object_array_del_idx(r->annotated, 0, 1);
		}
		if (tu2)
			clang_disposeTranslationUnit(tu2);
	}
	r->fragments = (int)e.n;
done:
	free(first);
	free(t.fns);
	edits_release(&e);
	dft_cflow_free(w.cf);
	if (w.tu)
		clang_disposeTranslationUnit(w.tu);
	clang_disposeIndex(idx);
	return out;
}
