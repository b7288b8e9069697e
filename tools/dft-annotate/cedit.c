/*
 * cedit.c - plans the instrumentation of one C or C++ file.
 *
 * Everything is an insertion on an existing line (or a replacement of a
 * `return' statement by an equivalent block on the same lines), so line
 * numbers do not move; the one new line, the #include, is followed by a
 * #line directive unless it can take an empty line.  Each fragment has one
 * fixed shape that strip.c recognises (see dft-annotate(1), FRAGMENTS):
 *
 *   after the body's '{'      " START-RUN"          (C, C++ RAII, main)
 *   C++ main, no MPI_Finalize " INIT; GUARD REGION; UPDATE;", and at
 *                              its exits only "{ FINI; abort(); }" (and
 *                              _exit, quick_exit): DFT_MAIN_GUARD
 *                              finalizes after main's locals are gone
 *   before an exit            "{ END-RUN " stmt " }"
 *   return with a value       "{ T dft_ret_ =" gap "(" expr "); END-RUN
 *                              return dft_ret_; }"
 *   before the closing '}'    "END-RUN " '}'
 *
 * A function whose exits cannot all be covered is skipped whole, with the
 * reason; nothing is ever half instrumented.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "annotate.h"

struct fn {
	json_object *rec;
	const char *name;	/* qualified: the event's name */
	size_t sig, open, close;
	int cpp;
	int is_main;
	const char *comp;
};

struct runs {
	char *start;		/* " START-RUN" */
	char *end;		/* "END-RUN" */
	int guard;		/* C++ main's FINI guard: END-RUN (FINI) only
				 * before the exits that skip exit handlers */
};

/*
 * An exit-family call that ends the process without running the exit
 * handlers, where the runtime finalizes (or _exit, which it may not see).
 */
static int
skips_exit_handlers(const char *kind)
{
	return !strcmp(kind, "abort") || !strcmp(kind, "quick_exit") ||
	       !strcmp(kind, "_exit") || !strcmp(kind, "_Exit");
}

static long
pos_off(json_object *rec, const char *path)
{
	json_object *p = dft_json_path(rec, path);

	if (!p)
		return -1;
	if (json_object_is_type(p, json_type_int))
		return (long)json_object_get_int64(p);
	return (long)dft_json_int(p, "offset", -1);
}

int
c_is_annotated(const char *s, size_t n)
{
	return memmem(s, n, DFT_INCLUDE_LINE, strlen(DFT_INCLUDE_LINE)) !=
	       NULL;
}

int
c_has_foreign(const char *s, size_t n)
{
	return !c_is_annotated(s, n) && memmem(s, n, "DFTRACER_", 9) != NULL;
}

static const char *
comp_of(json_object *rec)
{
	const char *c = dft_json_str(dft_json_path(rec, "decision"), "comp",
				     NULL);
	const char *p;

	if (!c || !*c)
		return "cpu";
	for (p = c; *p; p++)
		if (!islower((unsigned char)*p) && *p != '_')
			return "cpu";
	return c;
}

/* s as a C string literal (quotes and backslashes escaped). */
static char *
c_literal(const char *s)
{
	struct dft_buf b;

	dft_buf_init(&b);
	dft_buf_addc(&b, '"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			dft_buf_addc(&b, '\\');
		if ((unsigned char)*s < 0x20)
			dft_buf_addf(&b, "\\%03o", (unsigned char)*s);
		else
			dft_buf_addc(&b, *s);
	}
	dft_buf_addc(&b, '"');
	return dft_buf_detach(&b);
}

/*
 * The START event's source location, so the diagnosis names the traced
 * binary's own function (one main per program of a repository, static
 * functions of one name, overloads): UPDATEs of "file" (the record's path
 * under the root) and "line" (its name's line), after the comp UPDATE.
 * upd_str and upd_int are the UPDATE macros for a string and an int
 * value up to their key ("DFTRACER_CPP_REGION_UPDATE(main, " for main's
 * C++ region). Empty without a file and line.
 */
static char *
where_of(const struct fn *f, const char *upd_str, const char *upd_int)
{
	const char *file = dft_json_str(f->rec, "file", NULL);
	long line = (long)dft_function_line(f->rec);
	char *lf, *r;

	if (!file || !*file || line <= 0)
		return dft_xstrdup("");
	lf = c_literal(file);
	r = dft_xasprintf(" %s\"file\", %s); %s\"line\", %ld);", upd_str, lf,
			  upd_int, line);
	free(lf);
	return r;
}

/*
 * A C++ function's START. A method or a namespaced function gets its
 * qualified name, which __FUNCTION__ (DFTRACER_CPP_FUNCTION) does not give:
 * the same stack object, built with dftracer's public C++ API (the
 * DFTracer class and CPP_LOG_CATEGORY).
 */
static char *
cpp_start(const struct fn *f)
{
	const char *bare = dft_json_str(f->rec, "name", f->name);
	char *q, *r;

	if (strcmp(f->name, bare) == 0)
		return dft_xstrdup("DFTRACER_CPP_FUNCTION();");
	q = c_literal(f->name);
	r = dft_xasprintf("DFTracer profiler_dft_fn(%s, CPP_LOG_CATEGORY);", q);
	free(q);
	return r;
}

/* 1 when an identifier token equal to name occurs in tokens [a, b). */
static int
has_ident(const struct lexed *lx, size_t a, size_t b, const char *name)
{
	size_t i;

	for (i = a; i < b; i++)
		if (lx->t[i].kind == TK_ID && tok_is(lx, i, name))
			return 1;
	return 0;
}

/* Token index of the first call NAME( in [a, b), or b. */
static size_t
find_call(const struct lexed *lx, size_t a, size_t b, const char *name)
{
	size_t i;

	for (i = a; i + 1 < b; i++)
		if (lx->t[i].kind == TK_ID && tok_is(lx, i, name) &&
		    tok_is(lx, i + 1, "("))
			return i;
	return b;
}

/*
 * A return value that needs no hoisting: no call, assignment, increment
 * or statement expression, so evaluating it after END changes nothing.
 */
static int
value_is_simple(const struct lexed *lx, size_t a, size_t b)
{
	size_t i;

	for (i = a; i < b; i++) {
		const char *p = lx->s + lx->t[i].off;

		if (lx->t[i].kind != TK_PUNCT)
			continue;
		if (*p == '(' && i > a &&
		    (lx->t[i - 1].kind == TK_ID ||
		     tok_is(lx, i - 1, ")") || tok_is(lx, i - 1, "]") ||
		     tok_is(lx, i - 1, ">")))
			return 0;
		if (*p == '{')
			return 0;
		if (*p == '=' && !(i > a && lx->t[i - 1].off + 1 ==
				   lx->t[i].off &&
				   strchr("=!<>", lx->s[lx->t[i - 1].off])) &&
		    !(i + 1 < b && tok_is(lx, i + 1, "=") &&
		      lx->t[i + 1].off == lx->t[i].off + 1))
			return 0;
		if ((*p == '+' || *p == '-') && i + 1 < b &&
		    lx->t[i + 1].off == lx->t[i].off + 1 &&
		    lx->s[lx->t[i + 1].off] == *p)
			return 0;
	}
	return 1;
}

/* 1 when [a, b) contains a line that starts with a directive. */
static int
has_directive(const char *s, size_t a, size_t b)
{
	size_t i;

	for (i = a; i < b; i++) {
		if (s[i] != '\n')
			continue;
		i++;
		while (i < b && (s[i] == ' ' || s[i] == '\t'))
			i++;
		if (i < b && s[i] == '#')
			return 1;
		i--;
	}
	return 0;
}

static char *
type_for_temp(const char *t)
{
	if (!t || !*t || strstr(t, "(unnamed") || strstr(t, "(anonymous") ||
	    strstr(t, "lambda") || strstr(t, "<dependent"))
		return NULL;
	if (strchr(t, '(') || strchr(t, '['))
		return dft_xasprintf("__typeof__(%s)", t);
	return dft_xstrdup(t);
}

/*
 * Covers one exit record with END-RUN. kind "return" may hoist its value.
 * Returns 0 (covered), 1 (not coverable but harmless: exit-family call in
 * an expression or a macro), -1 (the function must be skipped; *why).
 */
static int
cover_exit(const struct lexed *lx, const struct fn *f, json_object *x,
	   const char *endrun, const char *rtype, int rvoid,
	   struct edits *e, const char **why)
{
	const char *s = lx->s;
	const char *kind = dft_json_str(x, "kind", "");
	long off = dft_json_int(x, "offset", -1);
	long end = dft_json_int(x, "end", -1);
	int is_ret = !strcmp(kind, "return");
	const char *parent = dft_json_str(x, "parent", "compound");

	if (dft_json_bool(x, "in_macro", 0)) {
		if (is_ret) {
			*why = "a return is hidden in a macro";
			return -1;
		}
		return 1;
	}
	if (off > 0 && (size_t)off > f->close) {
		/* only a function-try-block has exits past its body */
		*why = "an exit in a handler of a function-try-block";
		return -1;
	}
	if (off < 0 || end <= off || (size_t)end > lx->n ||
	    (size_t)off < f->open || (size_t)end > f->close) {
		*why = "an exit position is outside the body";
		return -1;
	}
	if (!strcmp(parent, "other")) {
		if (is_ret) {
			*why = "a return in an unsupported position";
			return -1;
		}
		return 1;
	}
	if (s[end - 1] != ';') {
		if (is_ret) {
			*why = "a return statement does not end in ';'";
			return -1;
		}
		return 1;
	}
	if (is_ret && (end - off < 6 || memcmp(s + off, "return", 6) != 0)) {
		*why = "the record's return position is not a return";
		return -1;
	}
	if (has_directive(s, (size_t)off, (size_t)end)) {
		*why = "a directive inside an exit statement";
		return -1;
	}
	if (is_ret && dft_json_bool(x, "has_value", 0) && !rvoid) {
		long vs = pos_off(x, "value");
		size_t a, b;
		char *t;

		if (vs < off + 6 || vs >= end) {
			*why = "the record's return value range is wrong";
			return -1;
		}
		a = tok_at(lx, (size_t)vs);
		b = tok_at(lx, (size_t)end - 1);
		if (!value_is_simple(lx, a, b)) {
			t = type_for_temp(rtype);
			if (!t) {
				*why = "the return type cannot be named";
				return -1;
			}
			edits_add(e, (size_t)off, (size_t)(end - off),
				  dft_xasprintf("{ %s dft_ret_ =%.*s(%.*s); %s "
						"return dft_ret_; }", t,
						(int)(vs - off - 6), s + off + 6,
						(int)(end - 1 - vs), s + vs,
						endrun));
			free(t);
			return 0;
		}
	}
	edits_add(e, (size_t)off, 0, dft_xasprintf("{ %s ", endrun));
	edits_add(e, (size_t)end, 0, dft_xstrdup(" }"));
	return 0;
}

/* Offset of the start of the line holding off. */
static size_t
line_start(const char *s, size_t off)
{
	while (off > 0 && s[off - 1] != '\n')
		off--;
	return off;
}

static const char *
eol_at(const char *s, size_t n, size_t off)
{
	while (off < n && s[off] != '\n')
		off++;
	return off > 0 && off < n && s[off - 1] == '\r' ? "\r\n" : "\n";
}

/* Finalize point of main: where END-RUN goes and what it dominates. */
struct fin {
	size_t call;		/* offset of the MPI_Finalize token */
	size_t dom_lo, dom_hi;	/* exits in (dom_lo, dom_hi) are covered */
};

/*
 * The #if group enclosing token index ti, outermost one whose opening
 * directive is in context ctx; returns the directive or NULL.
 */
static const struct directive *
group_opener(const struct lexed *lx, size_t off, int ctx)
{
	size_t k = lx->nd;
	int depth = 0;

	while (k-- > 0) {
		const struct directive *d = &lx->d[k];

		if (d->off >= off)
			continue;
		if (!strcmp(d->name, "endif"))
			depth++;
		else if (!strcmp(d->name, "if") || !strcmp(d->name, "ifdef") ||
			 !strcmp(d->name, "ifndef")) {
			if (depth > 0) {
				depth--;
				continue;
			}
			if (lx->line_ctx[d->line] == ctx)
				return d;
		}
	}
	return NULL;
}

static int
plan_main(const struct lexed *lx, const struct fn *f, const struct runs *r,
	  struct edits *e, struct fresult *res, const char **why)
{
	const char *s = lx->s;
	size_t to = tok_at(lx, f->open), tc = tok_at(lx, f->close);
	size_t init_off = f->open + 1, i, k;
	int body_ctx = lx->t[to].ctx;
	struct stmts st;
	struct fin fins[16];
	int nfin = 0, parsed, rc;
	json_object *exits;

	parsed = stmt_parse(lx, to, &st) == 0;
	/* INIT: after MPI_Init and the rank/size queries right behind it */
	i = find_call(lx, to, tc, "MPI_Init");
	k = find_call(lx, to, tc, "MPI_Init_thread");
	if (k < i)
		i = k;
	/* a goto could jump over a START in the middle of main: not then */
	if (i < tc && parsed && dft_json_int(f->rec, "gotos", 0) == 0) {
		size_t a = 0, j;

		for (j = 1; j < st.n; j++)
			if (st.v[j].block == 0 && st.v[j].t0 <= i &&
			    i < st.v[j].t1)
				a = j;
		if (a) {
			for (j = a + 1; j < st.n; j++) {
				if (st.v[j].block != 0)
					continue;
				if (find_call(lx, st.v[j].t0, st.v[j].t1,
					      "MPI_Comm_rank") < st.v[j].t1 ||
				    find_call(lx, st.v[j].t0, st.v[j].t1,
					      "MPI_Comm_size") < st.v[j].t1)
					a = j;
				else
					break;
			}
			k = st.v[a].t1;	/* token after the anchor */
			if (lx->t[k - 1].ctx == body_ctx) {
				init_off = lx->t[k - 1].off +
					   lx->t[k - 1].len;
			} else {
				/* under #if: after the group, in both builds */
				while (k < tc && lx->t[k].ctx != body_ctx)
					k++;
				init_off = lx->t[k].off;
			}
		}
	}
	edits_add(e, init_off, 0, dft_xstrdup(r->start));
	res->fragments++;

	/* END + FINI before each MPI_Finalize after INIT */
	for (i = to; i < tc && parsed; i++) {
		size_t j, best = 0;
		const struct stmt *sp;

		if (!(lx->t[i].kind == TK_ID && tok_is(lx, i, "MPI_Finalize") &&
		      tok_is(lx, i + 1, "(")) || lx->t[i].off < init_off)
			continue;
		for (j = 1; j < st.n; j++)
			if (!st.v[j].is_compound && st.v[j].t0 <= i &&
			    i < st.v[j].t1 &&
			    (!best || st.v[j].t1 - st.v[j].t0 <
				      st.v[best].t1 - st.v[best].t0))
				best = j;
		if (!best || nfin == 16) {
			*why = "MPI_Finalize in an unsupported position";
			goto fail;
		}
		sp = &st.v[best];
		fins[nfin].call = lx->t[i].off;
		if (sp->parent == SP_COMPOUND && sp->block >= 0)
			fins[nfin].dom_hi =
				lx->t[st.v[sp->block].t1 - 1].off;
		else
			fins[nfin].dom_hi = lx->t[sp->t1 - 1].off;
		if (lx->t[sp->t0].ctx == body_ctx &&
		    lx->t[sp->t1 - 1].ctx == body_ctx) {
			fins[nfin].dom_lo = lx->t[sp->t0].off;
			edits_add(e, lx->t[sp->t0].off, 0,
				  dft_xasprintf("{ %s ", r->end));
			edits_add(e, lx->t[sp->t1 - 1].off +
				  lx->t[sp->t1 - 1].len, 0, dft_xstrdup(" }"));
		} else {
			/* under #if: a line of its own before the group */
			const struct directive *d =
				group_opener(lx, lx->t[sp->t0].off, body_ctx);
			size_t ls;

			if (!d || d->off < init_off) {
				*why = "MPI_Finalize under an #if that "
				       "cannot be followed";
				goto fail;
			}
			ls = line_start(s, d->off);
			fins[nfin].dom_lo = ls;
			edits_add(e, ls, 0,
				  dft_xasprintf("%s%s#line %d %s%s", r->end,
						eol_at(s, lx->n, ls), d->line,
						DFT_LINE_MARK,
						eol_at(s, lx->n, ls)));
			res->lines_inserted += 2;
		}
		res->fragments++;
		nfin++;
		/* skip the rest of this call */
		i = tok_match(lx, i + 1);
		if (i >= tc)
			break;
	}
	if (!parsed && find_call(lx, to, tc, "MPI_Finalize") < tc) {
		*why = "the statements of main could not be followed";
		goto fail;
	}

	exits = dft_json_path(f->rec, "exits");
	for (k = 0; exits && k < json_object_array_length(exits); k++) {
		json_object *x = json_object_array_get_idx(exits, k);
		long off = dft_json_int(x, "offset", -1);
		long end = dft_json_int(x, "end", -1);
		int dom = 0, c;

		if (off < 0 || (size_t)off < init_off)
			continue;
		if (r->guard &&
		    !skips_exit_handlers(dft_json_str(x, "kind", "")))
			continue;
		for (c = 0; c < nfin; c++)
			if (((size_t)off > fins[c].dom_lo &&
			     (size_t)off < fins[c].dom_hi &&
			     (size_t)off > fins[c].call) ||
			    ((size_t)off <= fins[c].call &&
			     (size_t)end > fins[c].call))
				dom = 1;
		if (dom)
			continue;
		rc = cover_exit(lx, f, x, r->end, "int", 0, e, why);
		if (rc < 0)
			goto fail;
		if (rc > 0)
			res->uncovered_exits++;
		else
			res->fragments++;
	}
	if (!r->guard && dft_json_bool(f->rec, "falls_through", 1)) {
		int dom = 0, c;

		for (c = 0; c < nfin; c++)
			if (fins[c].dom_hi == f->close)
				dom = 1;
		if (!dom) {
			edits_add(e, f->close, 0, dft_xasprintf("%s ",
								r->end));
			res->fragments++;
		}
	}
	if (parsed)
		stmts_release(&st);
	return 0;
fail:
	if (parsed)
		stmts_release(&st);
	return -1;
}

/* 0 when the record's body can be edited, else -1 with *why. */
static int
body_ok(const struct lexed *lx, const struct fn *f, const char **why)
{
	const char *s = lx->s;
	size_t to, tc;

	if (dft_json_bool(f->rec, "body_from_macro", 0)) {
		*why = "the body comes from a macro";
		return -1;
	}
	if (dft_json_bool(f->rec, "in_header", 0)) {
		*why = "the definition is in a header";
		return -1;
	}
	if (f->open >= lx->n || f->close >= lx->n || f->open >= f->close ||
	    s[f->open] != '{' || s[f->close] != '}') {
		*why = "the record's body braces are not at the given offsets";
		return -1;
	}
	to = tok_at(lx, f->open);
	tc = tok_at(lx, f->close);
	if (to >= lx->nt || lx->t[to].off != f->open || tc >= lx->nt ||
	    lx->t[tc].off != f->close) {
		*why = "the body braces are inside a comment or literal";
		return -1;
	}
	return 0;
}

/*
 * main whose region cannot be closed: INIT at the start of its body and
 * FINI from the runtime's exit handler (it finalizes at exit), so the
 * program is still traced. FINI goes only before the exits that run no
 * exit handler. Not with MPI (FINI must come before MPI_Finalize, INIT
 * after MPI_Init). 0, or -1 with *why.
 */
static int
plan_init_only(const struct lexed *lx, const struct fn *f,
	       const struct copts *o, struct edits *e, struct fresult *res,
	       const char **why)
{
	size_t to = tok_at(lx, f->open), tc = tok_at(lx, f->close), k;
	const char *fini = f->cpp ? "DFTRACER_CPP_FINI();"
				  : "DFTRACER_C_FINI();";
	json_object *exits = dft_json_path(f->rec, "exits");
	int rc;

	if (body_ok(lx, f, why) < 0)
		return -1;
	/* the names c_strip() takes for instrumentation left behind */
	if (has_ident(lx, to, tc, "dft_ret_") ||
	    has_ident(lx, to, tc, "dft_main_fini_") ||
	    has_ident(lx, to, tc, "dft_main_fini_t")) {
		*why = "the body uses a name the instrumentation needs";
		return -1;
	}
	if (find_call(lx, to, tc, "MPI_Init") < tc ||
	    find_call(lx, to, tc, "MPI_Init_thread") < tc ||
	    find_call(lx, to, tc, "MPI_Finalize") < tc) {
		*why = "MPI in main (FINI must come before MPI_Finalize)";
		return -1;
	}
	edits_add(e, f->open + 1, 0,
		  dft_xasprintf(" DFTRACER_%s_INIT(%s);", f->cpp ? "CPP" : "C",
				o->init_args));
	res->fragments++;
	for (k = 0; exits && k < json_object_array_length(exits); k++) {
		json_object *x = json_object_array_get_idx(exits, k);

		if (!skips_exit_handlers(dft_json_str(x, "kind", "")))
			continue;
		rc = cover_exit(lx, f, x, fini, "int", 0, e, why);
		if (rc < 0)
			return -1;
		if (rc > 0)
			res->uncovered_exits++;
		else
			res->fragments++;
	}
	return 0;
}

/* Plans one function into e; -1 with *why when it must be skipped. */
static int
plan_fn(const struct lexed *lx, struct fn *f, const struct copts *o,
	struct edits *e, struct fresult *res, const char **why)
{
	size_t to, tc, i;
	struct runs r = { NULL, NULL, 0 };
	int rc = -1;
	static const char *const reserved[] = {
		"data_fn", "dft_ret_", "profiler_dft_fn", "profiler_main",
		"dft_main_fini_t", "dft_main_fini_", "co_return", "co_await",
		"co_yield", NULL
	};

	if (body_ok(lx, f, why) < 0)
		return -1;
	if (dft_json_int(f->rec, "returns_in_macro", 0) > 0) {
		*why = "a return is hidden in a macro";
		return -1;
	}
	to = tok_at(lx, f->open);
	tc = tok_at(lx, f->close);
	/*
	 * the handlers of a function-try-block run after the try body's
	 * locals are gone and outside any region opened in it; an END in
	 * them could run without START (c_plan falls back to INIT only)
	 */
	if (f->cpp && f->is_main && tok_is(lx, to - 1, "try")) {
		*why = "its body is a function-try-block (the handlers run "
		       "outside the region)";
		return -1;
	}
	for (i = 0; reserved[i]; i++)
		if (has_ident(lx, to, tc, reserved[i])) {
			*why = "the body uses a name the instrumentation "
			       "needs";
			return -1;
		}
	if (f->sig < f->open) {
		size_t ts = tok_at(lx, f->sig);

		if (has_ident(lx, ts, to, "constexpr") ||
		    has_ident(lx, ts, to, "consteval")) {
			*why = "constexpr functions cannot hold a tracer";
			return -1;
		}
	}
	/*
	 * C++ main: FINI from a guard destroyed after every local of main,
	 * except when FINI must come before MPI_Finalize, or in a
	 * function-try-block (its handlers run after the block's locals, so
	 * the guard would end the trace before them): then FINI at the exits
	 */
	r.guard = f->cpp && f->is_main && !tok_is(lx, to - 1, "try") &&
		  find_call(lx, to, tc, "MPI_Finalize") == tc;
	if (r.guard) {
		char *w = where_of(f, "DFTRACER_CPP_REGION_UPDATE(main, ",
				   "DFTRACER_CPP_REGION_UPDATE(main, ");

		r.start = dft_xasprintf(" DFTRACER_CPP_INIT(%s); "
					DFT_MAIN_GUARD " "
					"DFTRACER_CPP_REGION(main); "
					"DFTRACER_CPP_REGION_UPDATE(main, "
					"\"comp\", \"%s\");%s", o->init_args,
					f->comp, w);
		free(w);
		r.end = dft_xstrdup("DFTRACER_CPP_FINI();");
	} else if (f->cpp && f->is_main) {
		char *w = where_of(f, "DFTRACER_CPP_REGION_DYN_UPDATE(main, ",
				   "DFTRACER_CPP_REGION_DYN_UPDATE(main, ");

		r.start = dft_xasprintf(" DFTRACER_CPP_INIT(%s); "
					"DFTRACER_CPP_REGION_START(main); "
					"DFTRACER_CPP_REGION_DYN_UPDATE(main, "
					"\"comp\", \"%s\");%s", o->init_args,
					f->comp, w);
		free(w);
		r.end = dft_xstrdup("DFTRACER_CPP_REGION_END(main); "
				    "DFTRACER_CPP_FINI();");
	} else if (f->is_main) {
		char *w = where_of(f, "DFTRACER_C_FUNCTION_UPDATE_STR(",
				   "DFTRACER_C_FUNCTION_UPDATE_INT(");

		r.start = dft_xasprintf(" DFTRACER_C_INIT(%s); "
					"DFTRACER_C_FUNCTION_START(); "
					"DFTRACER_C_FUNCTION_UPDATE_STR("
					"\"comp\", \"%s\");%s", o->init_args,
					f->comp, w);
		free(w);
		r.end = dft_xstrdup("DFTRACER_C_FUNCTION_END(); "
				    "DFTRACER_C_FINI();");
	} else if (f->cpp) {
		char *w = where_of(f, "DFTRACER_CPP_FUNCTION_UPDATE(",
				   "DFTRACER_CPP_FUNCTION_UPDATE(");
		char *st = cpp_start(f);

		edits_add(e, f->open + 1, 0,
			  dft_xasprintf(" %s DFTRACER_CPP_FUNCTION_UPDATE("
					"\"comp\", \"%s\");%s", st, f->comp,
					w));
		free(st);
		free(w);
		res->fragments++;
		return 0;
	} else {
		char *w = where_of(f, "DFTRACER_C_FUNCTION_UPDATE_STR(",
				   "DFTRACER_C_FUNCTION_UPDATE_INT(");

		r.start = dft_xasprintf(" DFTRACER_C_FUNCTION_START(); "
					"DFTRACER_C_FUNCTION_UPDATE_STR("
					"\"comp\", \"%s\");%s", f->comp, w);
		free(w);
		r.end = dft_xstrdup("DFTRACER_C_FUNCTION_END();");
	}
	if (f->is_main) {
		rc = plan_main(lx, f, &r, e, res, why);
	} else {
		json_object *exits = dft_json_path(f->rec, "exits");
		const char *rt = dft_json_str(f->rec, "return_type", NULL);
		int rvoid = dft_json_bool(f->rec, "returns_void", 0);
		size_t k;

		edits_add(e, f->open + 1, 0, dft_xstrdup(r.start));
		res->fragments++;
		rc = 0;
		for (k = 0; exits && k < json_object_array_length(exits);
		     k++) {
			int c = cover_exit(lx, f,
					   json_object_array_get_idx(exits, k),
					   r.end, rt, rvoid, e, why);

			if (c < 0) {
				rc = -1;
				break;
			}
			if (c > 0)
				res->uncovered_exits++;
			else
				res->fragments++;
		}
		if (rc == 0 && dft_json_bool(f->rec, "falls_through", 1)) {
			edits_add(e, f->close, 0, dft_xasprintf("%s ", r.end));
			res->fragments++;
		}
	}
	free(r.start);
	free(r.end);
	return rc;
}

static void
skip(struct fresult *r, const char *name, const char *why)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "name", dft_jstr(name));
	json_object_object_add(o, "reason", dft_jstr(why));
	json_object_array_add(r->skipped, o);
}

/* Where the #include goes; inserts it into e. -1 when nowhere. */
static int
plan_include(const struct lexed *lx, size_t first_sig, struct edits *e,
	     struct fresult *res)
{
	const char *s = lx->s;
	size_t k, ti = 0, at;
	int depth = 0, best = -1, line;
	const char *eol;

	for (k = 0; k < lx->nd && lx->d[k].off < first_sig; k++) {
		const struct directive *d = &lx->d[k];

		for (; ti < lx->nt && lx->t[ti].off < d->off; ti++) {
			if (tok_is(lx, ti, "{"))
				depth++;
			else if (tok_is(lx, ti, "}"))
				depth--;
		}
		if (!strcmp(d->name, "include") && depth == 0 &&
		    lx->line_ctx[d->line] == 0)
			best = (int)k;
	}
	if (best >= 0) {
		const struct directive *d = &lx->d[best];

		if (d->end >= lx->n)
			return -1;
		at = d->end + 1;
		line = d->last_line + 1;
		eol = s[d->end - (d->end > 0)] == '\r' ? "\r\n" : "\n";
		if (at < lx->n && s[at] == '\n') {
			edits_add(e, at, 0, dft_xstrdup(DFT_INCLUDE_LINE));
			return 0;
		}
		if (at + 1 < lx->n && s[at] == '\r' && s[at + 1] == '\n') {
			edits_add(e, at, 0, dft_xstrdup(DFT_INCLUDE_LINE));
			return 0;
		}
	} else {
		/* no include at file scope: before the first function */
		at = line_start(s, first_sig);
		for (k = at; k < first_sig; k++)
			if (s[k] != ' ' && s[k] != '\t')
				at = 0;
		line = 1;
		for (k = 0; k < at; k++)
			line += s[k] == '\n';
		if (lx->line_ctx[line] != 0)
			at = 0, line = 1;
		eol = eol_at(s, lx->n, at);
	}
	/* a #line of ours would undo the file's own line mapping */
	for (k = 0; k < lx->nd && lx->d[k].off < at; k++)
		if (!strcmp(lx->d[k].name, "line") ||
		    (!lx->d[k].name[0] &&
		     memchr("0123456789", lx->s[lx->d[k].off + 1 +
					    (lx->s[lx->d[k].off + 1] == ' ')],
			    10)))
			return -1;
	edits_add(e, at, 0, dft_xasprintf("%s%s#line %d %s%s",
					  DFT_INCLUDE_LINE, eol, line,
					  DFT_LINE_MARK, eol));
	res->lines_inserted += 2;
	return 0;
}

int
c_plan(const char *s, size_t n, json_object *funcs, int cpp,
       const struct copts *o, struct edits *e, struct fresult *res)
{
	struct lexed lx;
	size_t k, first_sig = n;
	int nann = 0;

	lex_file(&lx, s, n);
	if (lx.error) {
		res->refused = dft_xstrdup("an unterminated comment or "
					   "literal");
		lex_release(&lx);
		return -1;
	}
	for (k = 0; k < json_object_array_length(funcs); k++) {
		json_object *rec = json_object_array_get_idx(funcs, k);
		json_object *dec = dft_json_path(rec, "decision");
		struct fn f;
		struct edits fe = { NULL, 0, 0 };
		const char *why = NULL;
		struct fresult tmp = *res;
		size_t j;

		memset(&f, 0, sizeof(f));
		f.rec = rec;
		f.name = dft_json_str(rec, "qualified_name",
				      dft_json_str(rec, "name", "?"));
		f.is_main = dft_json_bool(rec, "is_entry", 0) &&
			    !strcmp(dft_json_str(rec, "name", ""), "main");
		if (!f.is_main && !dft_json_bool(dec, "annotate", 0))
			continue;
		f.cpp = cpp;
		f.comp = comp_of(rec);
		f.sig = (size_t)pos_off(rec, "signature");
		f.open = (size_t)pos_off(rec, "body.open");
		f.close = (size_t)pos_off(rec, "body.close");
		tmp.fragments = tmp.lines_inserted = tmp.uncovered_exits = 0;
		if (plan_fn(&lx, &f, o, &fe, &tmp, &why) < 0) {
			const char *why2 = NULL;
			char *msg;

			edits_release(&fe);
			if (!f.is_main) {
				skip(res, f.name, why ? why : "cannot be "
				     "covered");
				continue;
			}
			/* every program with an entry point gets INIT */
			tmp.fragments = tmp.lines_inserted = 0;
			tmp.uncovered_exits = 0;
			if (plan_init_only(&lx, &f, o, &fe, &tmp, &why2) < 0) {
				edits_release(&fe);
				skip(res, f.name, why ? why : "cannot be "
				     "covered");
				continue;
			}
			msg = dft_xasprintf("main's region: %s; INIT only, "
					    "the runtime's exit handler "
					    "finalizes", why ? why :
					    "cannot be covered");
			skip(res, f.name, msg);
			free(msg);
		} else {
			json_object_array_add(res->annotated,
					      dft_jstr(f.name));
		}
		for (j = 0; j < fe.n; j++)
			edits_add(e, fe.v[j].off, fe.v[j].del, fe.v[j].text);
		free(fe.v);
		res->fragments += tmp.fragments;
		res->lines_inserted += tmp.lines_inserted;
		res->uncovered_exits += tmp.uncovered_exits;
		if (f.sig < first_sig)
			first_sig = f.sig;
		nann++;
	}
	if (nann && plan_include(&lx, first_sig, e, res) < 0) {
		res->refused = dft_xstrdup("no place for the #include (no "
					   "empty line after the last include "
					   "and the file has its own #line "
					   "directives)");
		lex_release(&lx);
		return -1;
	}
	lex_release(&lx);
	return 0;
}
