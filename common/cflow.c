/*
 * cflow.c - which calls do not return and which statements cannot
 * complete (see cflow.h), shared by dft-funcs and dft-lint.
 *
 * It does: name lists of the C library, noreturn attributes (in the type,
 * among the specifiers, or written before the declaration), functions of
 * the same translation unit whose every path ends in a call that does not
 * return or an infinite loop (memoised by USR, recursion counts as
 * "returns"), and the statements that cannot complete.
 * It does not: follow calls into other translation units, function
 * pointers, member functions (unless the name list says so), or decide
 * whether a switch can complete (the callers walk switches themselves).
 */
#include <stdlib.h>
#include <string.h>

#include "dft.h"
#include "cflow.h"

struct memo {
	char *usr;
	int noret;		/* 0 returns (or in progress), 1 does not */
};

struct dft_cflow {
	CXTranslationUnit tu;
	struct memo *m;
	size_t n, cap;
};

static const char *const exit_family[] = {
	"exit", "_exit", "_Exit", "quick_exit", "abort", NULL
};
static const char *const longjmp_family[] = {
	"longjmp", "siglongjmp", "_longjmp", "__longjmp_chk", NULL
};
static const char *const known_noreturn[] = {
	"pthread_exit", "thrd_exit", "err", "errx", "verr", "verrx",
	"__builtin_abort", "__builtin_exit", NULL
};
/* noreturn by declaration, but a death of the process that needs no END */
static const char *const deaths[] = {
	"__assert_fail", "__assert_perror_fail", "__assert", "__assert_rtn",
	"__builtin_unreachable", "__builtin_trap", "__stack_chk_fail",
	"__cxa_throw", "__cxa_rethrow", "_wassert", NULL
};

char *
dft_cflow_string(CXString s)
{
	const char *c = clang_getCString(s);
	char *r = dft_xstrdup(c ? c : "");

	clang_disposeString(s);
	return r;
}

char *
dft_cflow_spelling(CXCursor c)
{
	return dft_cflow_string(clang_getCursorSpelling(c));
}

int
dft_cflow_is_function(enum CXCursorKind k)
{
	return k == CXCursor_FunctionDecl || k == CXCursor_CXXMethod ||
	       k == CXCursor_Constructor || k == CXCursor_Destructor ||
	       k == CXCursor_ConversionFunction ||
	       k == CXCursor_FunctionTemplate;
}

int
dft_cflow_holds_functions(enum CXCursorKind k)
{
	switch (k) {
	case CXCursor_Namespace:
	case CXCursor_LinkageSpec:
	case CXCursor_UnexposedDecl:	/* extern "C" { } in libclang 14 */
	case CXCursor_ClassDecl:
	case CXCursor_StructDecl:
	case CXCursor_UnionDecl:
	case CXCursor_ClassTemplate:
	case CXCursor_ClassTemplatePartialSpecialization:
		return 1;
	default:
		return 0;
	}
}

struct dft_cflow *
dft_cflow_new(CXTranslationUnit tu)
{
	struct dft_cflow *c = dft_xcalloc(1, sizeof(*c));

	c->tu = tu;
	return c;
}

void
dft_cflow_free(struct dft_cflow *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->n; i++)
		free(c->m[i].usr);
	free(c->m);
	free(c);
}

/* ---- children ------------------------------------------------------------ */

static enum CXChildVisitResult
kid_visit(CXCursor c, CXCursor parent, CXClientData d)
{
	struct dft_kids *k = d;

	(void)parent;
	if (k->n == k->cap) {
		k->cap = k->cap ? k->cap * 2 : 8;
		k->v = dft_xreallocarray(k->v, k->cap, sizeof(*k->v));
	}
	k->v[k->n++] = c;
	return CXChildVisit_Continue;
}

void
dft_cflow_kids(CXCursor c, struct dft_kids *k)
{
	memset(k, 0, sizeof(*k));
	clang_visitChildren(c, kid_visit, k);
}

/* Code of another function: a lambda, a block, a local class's. */
static int
other_function(enum CXCursorKind k)
{
	return k == CXCursor_LambdaExpr || k == CXCursor_BlockExpr ||
	       k == CXCursor_FunctionDecl || k == CXCursor_CXXMethod ||
	       k == CXCursor_ClassDecl || k == CXCursor_StructDecl;
}

/* c without the implicit casts, parentheses and (void) casts around it. */
CXCursor
dft_cflow_unwrap(CXCursor c)
{
	for (;;) {
		enum CXCursorKind k = clang_getCursorKind(c);
		struct dft_kids kd;

		if (k != CXCursor_UnexposedExpr && k != CXCursor_ParenExpr &&
		    k != CXCursor_CStyleCastExpr)
			return c;
		dft_cflow_kids(c, &kd);
		if (kd.n != 1) {
			free(kd.v);
			return c;
		}
		c = kd.v[0];
		free(kd.v);
	}
}

/* ---- declarations -------------------------------------------------------- */

int
dft_cflow_global(CXCursor d)
{
	CXCursor p = clang_getCursorSemanticParent(d);

	while (!clang_Cursor_isNull(p)) {
		enum CXCursorKind k = clang_getCursorKind(p);
		char *s;
		int std;

		if (k == CXCursor_TranslationUnit || clang_isInvalid(k))
			return 1;
		if (k == CXCursor_LinkageSpec || k == CXCursor_UnexposedDecl) {
			p = clang_getCursorSemanticParent(p);
			continue;
		}
		if (k != CXCursor_Namespace)
			return 0;
		s = dft_cflow_spelling(p);
		std = !strcmp(s, "std") || !strcmp(s, "__gnu_cxx");
		free(s);
		if (!std)
			return 0;
		p = clang_getCursorSemanticParent(p);
	}
	return 1;
}

/* _Noreturn, noreturn, __noreturn__, [[noreturn]], __attribute__((noreturn)) */
static int
has_noreturn_attr(struct dft_cflow *c, CXCursor d)
{
	CXString ts = clang_getTypeSpelling(
		clang_getCanonicalType(clang_getCursorType(d)));
	CXToken *toks = NULL;
	unsigned nt = 0, k;
	int v = strstr(clang_getCString(ts) ? clang_getCString(ts) : "",
		       "noreturn") != NULL;

	clang_disposeString(ts);
	if (!v) {
		/* specifiers come before the name: tokenize only those */
		clang_tokenize(c->tu, clang_getRange(
			clang_getRangeStart(clang_getCursorExtent(d)),
			clang_getCursorLocation(d)), &toks, &nt);
		for (k = 0; k < nt && !v; k++) {
			CXString s;
			const char *p;

			if (clang_getTokenKind(toks[k]) != CXToken_Keyword &&
			    clang_getTokenKind(toks[k]) != CXToken_Identifier)
				continue;
			s = clang_getTokenSpelling(c->tu, toks[k]);
			p = clang_getCString(s) ? clang_getCString(s) : "";
			v = !strcmp(p, "_Noreturn") || !strcmp(p, "noreturn") ||
			    !strcmp(p, "__noreturn__");
			clang_disposeString(s);
		}
		if (toks)
			clang_disposeTokens(c->tu, toks, nt);
	}
	if (!v) {
		/* [[noreturn]] and leading attributes are outside the extent */
		CXFile f = NULL;
		unsigned off = 0;
		size_t len = 0, p;
		const char *b;

		clang_getExpansionLocation(clang_getRangeStart(
			clang_getCursorExtent(d)), &f, NULL, NULL, &off);
		b = f ? clang_getFileContents(c->tu, f, &len) : NULL;
		if (b && off <= len) {
			p = off;
			while (p > 0 && off - p < 256 && b[p - 1] != ';' &&
			       b[p - 1] != '}' && b[p - 1] != '{')
				p--;
			v = memmem(b + p, off - p, "noreturn", 8) != NULL;
		}
	}
	return v;
}

static enum CXChildVisitResult
return_visit(CXCursor c, CXCursor parent, CXClientData d)
{
	int *found = d;

	(void)parent;
	if (clang_getCursorKind(c) == CXCursor_ReturnStmt) {
		*found = 1;
		return CXChildVisit_Break;
	}
	if (other_function(clang_getCursorKind(c)))
		return CXChildVisit_Continue;	/* not this function's */
	return CXChildVisit_Recurse;
}

/* The definition's every path ends without returning. */
static int
never_returns(struct dft_cflow *c, CXCursor def)
{
	struct dft_kids kd;
	CXCursor body = clang_getNullCursor();
	size_t i;
	int ret = 0;

	dft_cflow_kids(def, &kd);
	for (i = 0; i < kd.n; i++)
		if (clang_getCursorKind(kd.v[i]) == CXCursor_CompoundStmt)
			body = kd.v[i];
	free(kd.v);
	if (clang_Cursor_isNull(body))
		return 0;
	clang_visitChildren(body, return_visit, &ret);
	return !ret && dft_cflow_cannot_complete(c, body);
}

/* 1 when the function declared by d does not return (memoised). */
static int
decl_noreturn(struct dft_cflow *c, CXCursor d)
{
	CXString us = clang_getCursorUSR(d);
	const char *usr = clang_getCString(us) ? clang_getCString(us) : "";
	CXCursor def;
	size_t i, me;
	int v;

	if (!*usr) {
		clang_disposeString(us);
		return has_noreturn_attr(c, d);
	}
	for (i = 0; i < c->n; i++)
		if (!strcmp(c->m[i].usr, usr)) {
			clang_disposeString(us);
			return c->m[i].noret;
		}
	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 32;
		c->m = dft_xreallocarray(c->m, c->cap, sizeof(*c->m));
	}
	me = c->n++;
	c->m[me].usr = dft_xstrdup(usr);
	c->m[me].noret = 0;	/* while in progress: a recursive call returns */
	clang_disposeString(us);
	v = has_noreturn_attr(c, d);
	if (!v) {
		def = clang_getCursorDefinition(d);
		v = !clang_Cursor_isNull(def) &&
		    clang_getCursorKind(def) == CXCursor_FunctionDecl &&
		    never_returns(c, def);
	}
	c->m[me].noret = v;
	return v;
}

const char *
dft_cflow_call(struct dft_cflow *c, CXCursor call)
{
	CXCursor r;
	const char *k = NULL;
	char *name;

	call = dft_cflow_unwrap(call);
	if (clang_getCursorKind(call) != CXCursor_CallExpr)
		return NULL;
	r = clang_getCursorReferenced(call);
	if (!clang_Cursor_isNull(r) &&
	    clang_getCursorKind(r) != CXCursor_FunctionDecl)
		return NULL;	/* methods, constructors, function pointers */
	name = dft_cflow_spelling(clang_Cursor_isNull(r) ? call : r);
	if (clang_Cursor_isNull(r) || dft_cflow_global(r)) {
		if ((k = dft_in_list(name, exit_family)) != NULL)
			;
		else if (dft_in_list(name, longjmp_family))
			k = "longjmp";
		else if (dft_in_list(name, known_noreturn))
			k = "noreturn";
		else if (dft_in_list(name, deaths))
			k = "die";
	}
	if (!k && !clang_Cursor_isNull(r) && decl_noreturn(c, r))
		k = "noreturn";
	free(name);
	return k;
}

/* ---- statements ----------------------------------------------------------- */

/* Expansion offset of a location (0 when it has none). */
static unsigned
offset_of(CXSourceLocation l)
{
	CXFile f;
	unsigned off = 0;

	clang_getExpansionLocation(l, &f, NULL, NULL, &off);
	return off;
}

struct out_ctx {
	unsigned lo, hi;	/* the loop's extent */
	int breaks;		/* look for breaks of the loop itself */
	int conts;		/* ... or for its continues */
	int found;
};

static enum CXChildVisitResult
out_visit(CXCursor c, CXCursor parent, CXClientData d)
{
	struct out_ctx *o = d;
	enum CXCursorKind k = clang_getCursorKind(c);
	CXCursor l;
	unsigned off;

	(void)parent;
	if (other_function(k))
		return CXChildVisit_Continue;
	switch (k) {
	case CXCursor_BreakStmt:
		o->found |= o->breaks;
		break;
	case CXCursor_ContinueStmt:
		o->found |= o->conts;
		break;
	case CXCursor_IndirectGotoStmt:
		o->found = 1;
		break;
	case CXCursor_GotoStmt:
		l = clang_getCursorReferenced(c);
		off = clang_Cursor_isNull(l) ? 0 : offset_of(
			clang_getRangeStart(clang_getCursorExtent(l)));
		if (clang_Cursor_isNull(l) || off < o->lo || off >= o->hi)
			o->found = 1;
		break;
	case CXCursor_ForStmt:
	case CXCursor_WhileStmt:
	case CXCursor_DoStmt:
	case CXCursor_CXXForRangeStmt:
	case CXCursor_SwitchStmt: {
		/* their breaks (and a nested loop's continues) are theirs;
		 * a goto out of them may still leave ours */
		struct out_ctx in = *o;

		in.breaks = 0;
		if (k != CXCursor_SwitchStmt)
			in.conts = 0;
		in.found = 0;
		clang_visitChildren(c, out_visit, &in);
		o->found |= in.found;
		return o->found ? CXChildVisit_Break : CXChildVisit_Continue;
	}
	default:
		break;
	}
	return o->found ? CXChildVisit_Break : CXChildVisit_Recurse;
}

/* A break of the loop, a goto out of it or (conts) a continue of it. */
static int
leaves_loop(CXCursor loop, int conts)
{
	CXSourceRange r = clang_getCursorExtent(loop);
	struct out_ctx o;

	o.lo = offset_of(clang_getRangeStart(r));
	o.hi = offset_of(clang_getRangeEnd(r));
	o.breaks = 1;
	o.conts = conts;
	o.found = 0;
	clang_visitChildren(loop, out_visit, &o);
	return o.found;
}

/* The tokens of c's extent; caller disposes. */
static CXToken *
tokens(struct dft_cflow *c, CXCursor cur, unsigned *n)
{
	CXToken *t = NULL;

	*n = 0;
	clang_tokenize(c->tu, clang_getCursorExtent(cur), &t, n);
	return t;
}

static int
tok_is(struct dft_cflow *c, CXToken t, const char *s)
{
	CXString sp = clang_getTokenSpelling(c->tu, t);
	int r = clang_getCString(sp) && !strcmp(clang_getCString(sp), s);

	clang_disposeString(sp);
	return r;
}

static int constant_int(CXCursor cond, long long *v);

static int
always_true(CXCursor cond)
{
	long long v;

	return constant_int(cond, &v) && v != 0;
}

/* the constant value of cond in *v; 0 when it has none */
static int
constant_int(CXCursor cond, long long *v)
{
	CXEvalResult r = clang_Cursor_Evaluate(cond);
	int ok = 0;

	if (r) {
		if (clang_EvalResult_getKind(r) == CXEval_Int) {
			*v = clang_EvalResult_getAsLongLong(r);
			ok = 1;
		}
		clang_EvalResult_dispose(r);
	}
	return ok;
}

int
dft_cflow_runs_once(CXCursor loop)
{
	struct dft_kids kd;
	long long v;

	if (clang_getCursorKind(loop) != CXCursor_DoStmt)
		return 0;
	dft_cflow_kids(loop, &kd);
	return kd.n == 2 && constant_int(kd.v[1], &v) && v == 0;
}

int
dft_cflow_loop_forever(struct dft_cflow *c, CXCursor loop)
{
	struct dft_kids kd;
	int v = 0;

	dft_cflow_kids(loop, &kd);
	switch (clang_getCursorKind(loop)) {
	case CXCursor_WhileStmt:
		v = kd.n == 2 && always_true(kd.v[0]);
		break;
	case CXCursor_DoStmt:
		v = kd.n == 2 && always_true(kd.v[1]);
		break;
	case CXCursor_ForStmt: {
		/* only the parts written are children: find the condition
		 * between the two ';' of "for (init; cond; step)" */
		unsigned nt, i, semi[2], ns = 0, a, b;
		CXToken *t = tokens(c, loop, &nt);
		int depth = 0;
		size_t k;

		if (nt < 2 || !tok_is(c, t[0], "for") || !tok_is(c, t[1], "(")) {
			if (t)
				clang_disposeTokens(c->tu, t, nt);
			break;
		}
		for (i = 1; i < nt && ns < 2; i++) {
			if (tok_is(c, t[i], "(") || tok_is(c, t[i], "[") ||
			    tok_is(c, t[i], "{"))
				depth++;
			else if (tok_is(c, t[i], ")") || tok_is(c, t[i], "]") ||
				 tok_is(c, t[i], "}")) {
				if (--depth == 0)
					break;
			} else if (depth == 1 && tok_is(c, t[i], ";"))
				semi[ns++] = i;
		}
		if (ns == 2 && semi[1] == semi[0] + 1) {
			v = 1;	/* no condition */
		} else if (ns == 2) {
			a = offset_of(clang_getTokenLocation(c->tu, t[semi[0]]));
			b = offset_of(clang_getTokenLocation(c->tu, t[semi[1]]));
			for (k = 0; k < kd.n; k++) {
				unsigned o = offset_of(clang_getRangeStart(
					clang_getCursorExtent(kd.v[k])));

				if (o > a && o < b)
					v = always_true(kd.v[k]);
			}
		}
		clang_disposeTokens(c->tu, t, nt);
		break;
	}
	default:
		break;
	}
	free(kd.v);
	return v;
}

/* An if with an else: the keyword between its last two children. */
static int
has_else(struct dft_cflow *c, CXCursor a, CXCursor b)
{
	CXToken *t = NULL;
	unsigned nt = 0, i;
	int v = 0;

	clang_tokenize(c->tu, clang_getRange(
		clang_getRangeEnd(clang_getCursorExtent(a)),
		clang_getRangeStart(clang_getCursorExtent(b))), &t, &nt);
	for (i = 0; i < nt && !v; i++)
		v = clang_getTokenKind(t[i]) == CXToken_Keyword &&
		    tok_is(c, t[i], "else");
	if (t)
		clang_disposeTokens(c->tu, t, nt);
	return v;
}

int
dft_cflow_cannot_complete(struct dft_cflow *c, CXCursor s)
{
	struct dft_kids kd;
	int r = 0;

	switch (clang_getCursorKind(s)) {
	case CXCursor_ReturnStmt:
	case CXCursor_GotoStmt:
	case CXCursor_IndirectGotoStmt:
	case CXCursor_CXXThrowExpr:
		return 1;
	case CXCursor_CallExpr:
		return dft_cflow_call(c, s) != NULL;
	case CXCursor_UnexposedExpr:
	case CXCursor_ParenExpr:
	case CXCursor_CStyleCastExpr: {
		CXCursor u = dft_cflow_unwrap(s);

		return !clang_equalCursors(u, s) &&
		       dft_cflow_cannot_complete(c, u);
	}
	case CXCursor_CompoundStmt:
	case CXCursor_LabelStmt:
	case CXCursor_CaseStmt:
	case CXCursor_DefaultStmt:
		dft_cflow_kids(s, &kd);
		r = kd.n > 0 && dft_cflow_cannot_complete(c, kd.v[kd.n - 1]);
		break;
	case CXCursor_IfStmt:
		/* [init] [variable] cond then [else] */
		dft_cflow_kids(s, &kd);
		r = kd.n >= 3 && has_else(c, kd.v[kd.n - 2], kd.v[kd.n - 1]) &&
		    dft_cflow_cannot_complete(c, kd.v[kd.n - 1]) &&
		    dft_cflow_cannot_complete(c, kd.v[kd.n - 2]);
		break;
	case CXCursor_WhileStmt:
	case CXCursor_ForStmt:
		dft_cflow_kids(s, &kd);
		r = kd.n > 0 && dft_cflow_loop_forever(c, s) &&
		    !leaves_loop(s, 0);
		break;
	case CXCursor_DoStmt:
		dft_cflow_kids(s, &kd);
		r = kd.n == 2 && !leaves_loop(s, 0) &&
		    (dft_cflow_loop_forever(c, s) ||
		     (dft_cflow_cannot_complete(c, kd.v[0]) &&
		      !leaves_loop(s, 1)));
		break;
	default:
		return 0;
	}
	free(kd.v);
	return r;
}
