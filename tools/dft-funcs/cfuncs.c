/*
 * cfuncs.c - C and C++ function definitions with libclang.
 *
 * One translation unit per job, parsed with the real compile flags.  Every
 * function definition in the main file, and in headers below the root, is
 * walked once: positions are byte offsets into the buffer libclang parsed
 * (clang_getFileContents), so they are exact for the file on disk.  Tokens
 * that come from macro expansions are located at the expansion site and
 * flagged (the bytes there are checked against what the AST says).
 * This does not follow calls into other translation units; main.c joins the
 * call graph afterwards.
 */
#include <stdlib.h>
#include <string.h>

#include <clang-c/Index.h>

#include "cflow.h"
#include "funcs.h"

struct cfile {
	CXFile f;
	char *path;		/* absolute */
	const char *buf;
	size_t len;
	size_t *lines;
	size_t nlines;
	int report;
	int is_main;
	char hash[32];
};

struct tuctx {
	struct job *job;
	const struct fopts *o;
	CXTranslationUnit tu;
	struct cfile *files;
	size_t nfiles;
	int parse_ok;
	struct dft_cflow *flow;	/* calls that do not return (common/) */
};

struct exitpt {
	const char *kind;
	char *callee;
	size_t off, end;
	int has_value;
	size_t voff, vend;
	int in_macro;
	const char *parent;
};

struct walk {
	struct tuctx *t;
	struct cfile *cf;
	struct fn *fn;
	json_object *calls;	/* name -> count */
	json_object *loop_calls;	/* name -> call sites inside a loop */
	int loop_depth;
	json_object *ioapis;	/* array */
	long nodes, stmts, loops, branches, ncalls, gotos, labels, lambdas;
	int setjmp_, longjmp_, asm_;
	struct exitpt *ex;
	size_t nex, capex;
	size_t body_open;
	int aux;		/* outside the body's own statements: calls
				 * only (member initializers, default
				 * arguments, lambdas) */
};

/* ---- small helpers ----------------------------------------------------- */

static struct cfile *
file_of(struct tuctx *t, CXFile f)
{
	size_t i;
	struct cfile *cf;
	char *name, *abs;
	size_t len = 0;
	const char *buf;

	if (!f)
		return NULL;
	for (i = 0; i < t->nfiles; i++)
		if (clang_File_isEqual(t->files[i].f, f))
			return &t->files[i];
	t->files = dft_xreallocarray(t->files, t->nfiles + 1,
				     sizeof(*t->files));
	cf = &t->files[t->nfiles++];
	memset(cf, 0, sizeof(*cf));
	cf->f = f;
	name = dft_cflow_string(clang_getFileName(f));
	abs = dft_path_absolute(name);
	free(name);
	cf->path = abs;
	cf->is_main = strcmp(abs, t->job->file) == 0;
	cf->report = cf->is_main || t->o->all_headers ||
		     dft_path_is_inside(t->o->root, abs);
	if (cf->report) {
		buf = clang_getFileContents(t->tu, f, &len);
		if (!buf) {
			cf->report = 0;
			return cf;
		}
		cf->buf = buf;
		cf->len = len;
		cf->lines = line_table(buf, len, &cf->nlines);
		dft_file_hash_str(buf, len, cf->hash, sizeof(cf->hash));
	}
	return cf;
}

/* Expansion-site offset of a location, and its file. */
static size_t
loc_off(CXSourceLocation l, CXFile *f)
{
	unsigned off = 0;

	clang_getExpansionLocation(l, f, NULL, NULL, &off);
	return off;
}

static size_t
start_off(CXCursor c, CXFile *f)
{
	return loc_off(clang_getRangeStart(clang_getCursorExtent(c)), f);
}

static size_t
end_off(CXCursor c)
{
	CXFile f;

	return loc_off(clang_getRangeEnd(clang_getCursorExtent(c)), &f);
}

static int
is_ident(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_';
}

/* 1 when buf[off..] is the word w (not a prefix of a longer identifier). */
static int
word_at(const struct cfile *cf, size_t off, const char *w)
{
	size_t n = strlen(w);

	if (off + n > cf->len || memcmp(cf->buf + off, w, n) != 0)
		return 0;
	return off + n == cf->len || !is_ident(cf->buf[off + n]);
}

/* 1 when buf[off..] is w, possibly qualified: "std::w", "::w". */
static int
qword_at(const struct cfile *cf, size_t off, const char *w)
{
	for (;;) {
		size_t p = off;

		if (word_at(cf, off, w))
			return 1;
		while (p < cf->len && is_ident(cf->buf[p]))
			p++;
		if (p + 1 < cf->len && cf->buf[p] == ':' && cf->buf[p + 1] == ':')
			off = p + 2;
		else
			return 0;
	}
}

/* Skips blanks and comments forward from off. */
static size_t
skip_fwd(const struct cfile *cf, size_t off)
{
	const char *b = cf->buf;

	while (off < cf->len) {
		if (b[off] == ' ' || b[off] == '\t' || b[off] == '\n' ||
		    b[off] == '\r' || b[off] == '\f' || b[off] == '\v') {
			off++;
		} else if (b[off] == '\\' && off + 1 < cf->len &&
			   (b[off + 1] == '\n' || b[off + 1] == '\r')) {
			off += 2;
		} else if (b[off] == '/' && off + 1 < cf->len &&
			   b[off + 1] == '*') {
			const char *e = memmem(b + off + 2, cf->len - off - 2,
					       "*/", 2);
			off = e ? (size_t)(e - b) + 2 : cf->len;
		} else if (b[off] == '/' && off + 1 < cf->len &&
			   b[off + 1] == '/') {
			while (off < cf->len && b[off] != '\n')
				off++;
		} else {
			break;
		}
	}
	return off;
}

/* The statement's end: one past the ';' that follows e, else e. */
static size_t
stmt_end(const struct cfile *cf, size_t e)
{
	size_t p = skip_fwd(cf, e);

	if (p < cf->len && cf->buf[p] == ';')
		return p + 1;
	return e;
}

/* 1 when the token before off (skipping blanks and block comments) is else. */
static int
after_else(const struct cfile *cf, size_t off)
{
	const char *b = cf->buf;
	size_t p = off;

	for (;;) {
		while (p > 0 && (b[p - 1] == ' ' || b[p - 1] == '\t' ||
				 b[p - 1] == '\n' || b[p - 1] == '\r'))
			p--;
		if (p >= 2 && b[p - 1] == '/' && b[p - 2] == '*') {
			size_t q = p - 2;

			while (q >= 2 && !(b[q - 2] == '/' && b[q - 1] == '*'))
				q--;
			if (q < 2)
				return 0;
			p = q - 2;
			continue;
		}
		break;
	}
	return p >= 4 && memcmp(b + p - 4, "else", 4) == 0 &&
	       (p == 4 || !is_ident(b[p - 5]));
}

static json_object *
pos(const struct cfile *cf, size_t off)
{
	return jpos(cf->buf, cf->len, cf->lines, cf->nlines, off);
}

static json_object *
range(const struct cfile *cf, size_t off, size_t end)
{
	json_object *p = pos(cf, off);

	json_object_object_add(p, "end", dft_jint((int64_t)end));
	return p;
}

/* ---- setjmp ----------------------------------------------------------------- */

static const char *const setjmp_names[] = {
	"setjmp", "_setjmp", "sigsetjmp", "__sigsetjmp", "__builtin_setjmp",
	NULL
};

/* ---- functions that run after finalize --------------------------------------- */

static const char *const atexit_names[] = {
	"atexit", "at_quick_exit", "on_exit", NULL
};

static enum CXChildVisitResult
fnref_visit(CXCursor c, CXCursor parent, CXClientData d)
{
	CXCursor *found = d;
	CXCursor r;

	(void)parent;
	if (clang_getCursorKind(c) == CXCursor_DeclRefExpr) {
		r = clang_getCursorReferenced(c);
		if (clang_getCursorKind(r) == CXCursor_FunctionDecl) {
			*found = r;
			return CXChildVisit_Break;
		}
	}
	return CXChildVisit_Recurse;
}

/* atexit(f), at_quick_exit(f), on_exit(f, arg): f runs after FINI. */
static void
note_atexit(struct walk *w, CXCursor call, const char *bare)
{
	CXCursor a, f = clang_getNullCursor();
	char *usr;

	if (!dft_in_list(bare, atexit_names) ||
	    clang_Cursor_getNumArguments(call) < 1)
		return;
	a = clang_Cursor_getArgument(call, 0);
	if (clang_getCursorKind(a) == CXCursor_DeclRefExpr)
		fnref_visit(a, call, &f);
	else
		clang_visitChildren(a, fnref_visit, &f);
	if (clang_Cursor_isNull(f))
		return;
	usr = dft_cflow_string(clang_getCursorUSR(f));
	if (usr[0])
		job_add_after(w->t->job, usr, "atexit");
	free(usr);
}

static enum CXChildVisitResult
dtor_find(CXCursor c, CXCursor parent, CXClientData d)
{
	CXCursor *found = d;

	(void)parent;
	if (clang_getCursorKind(c) == CXCursor_Destructor) {
		*found = c;
		return CXChildVisit_Break;
	}
	return CXChildVisit_Continue;
}

/*
 * A variable of static storage duration (namespace scope, a static data
 * member, a static local; not thread_local) whose class (or array
 * element's class) declares a destructor: the destructor runs at exit,
 * after FINI.
 */
static void
note_static_object(struct tuctx *t, CXCursor v)
{
	CXCursor p = clang_getCursorSemanticParent(v), cls, d;
	enum CXCursorKind pk = clang_getCursorKind(p);
	CXType ty;
	char *usr;

	if (clang_getCursorTLSKind(v) != CXTLS_None)
		return;
	if (!(pk == CXCursor_TranslationUnit || pk == CXCursor_Namespace ||
	      pk == CXCursor_LinkageSpec || pk == CXCursor_UnexposedDecl ||
	      pk == CXCursor_ClassDecl || pk == CXCursor_StructDecl ||
	      clang_Cursor_getStorageClass(v) == CX_SC_Static))
		return;
	ty = clang_getCanonicalType(clang_getCursorType(v));
	while (ty.kind == CXType_ConstantArray ||
	       ty.kind == CXType_IncompleteArray)
		ty = clang_getCanonicalType(clang_getArrayElementType(ty));
	if (ty.kind != CXType_Record)
		return;
	cls = clang_getTypeDeclaration(ty);
	d = clang_getNullCursor();
	if (!clang_Cursor_isNull(cls))
		clang_visitChildren(cls, dtor_find, &d);
	if (clang_Cursor_isNull(d))
		return;
	usr = dft_cflow_string(clang_getCursorUSR(d));
	if (usr[0])
		job_add_after(t->job, usr, "static-destructor");
	free(usr);
}

/* ---- names ------------------------------------------------------------------ */

static void
qual_prefix(CXCursor c, struct dft_buf *b)
{
	CXCursor p = clang_getCursorSemanticParent(c);
	enum CXCursorKind k = clang_getCursorKind(p);
	char *s;

	if (clang_Cursor_isNull(p) || k == CXCursor_TranslationUnit ||
	    clang_isInvalid(k))
		return;
	qual_prefix(p, b);
	if (k == CXCursor_LinkageSpec || k == CXCursor_UnexposedDecl)
		return;
	s = dft_cflow_string(clang_getCursorSpelling(p));
	if (k == CXCursor_Namespace && !s[0])
		dft_buf_adds(b, "(anonymous namespace)");
	else if (!s[0])
		dft_buf_adds(b, "(anonymous)");
	else
		dft_buf_adds(b, s);
	dft_buf_adds(b, "::");
	free(s);
}

static char *
qual_name(CXCursor c)
{
	struct dft_buf b;
	char *s;

	dft_buf_init(&b);
	qual_prefix(c, &b);
	s = dft_cflow_string(clang_getCursorSpelling(c));
	dft_buf_adds(&b, s);
	free(s);
	return dft_buf_detach(&b);
}

/* ---- the body walk ---------------------------------------------------------- */

static void walk(struct walk *w, CXCursor c, CXCursor parent);

static struct exitpt *
add_exit(struct walk *w)
{
	struct exitpt *e;

	if (w->nex == w->capex) {
		w->capex = w->capex ? w->capex * 2 : 8;
		w->ex = dft_xreallocarray(w->ex, w->capex, sizeof(*w->ex));
	}
	e = &w->ex[w->nex++];
	memset(e, 0, sizeof(*e));
	return e;
}

/* 1 when the cursor's expansion site is in the function's own file */
static int
same_file(struct walk *w, CXCursor c)
{
	CXFile f = NULL;

	loc_off(clang_getRangeStart(clang_getCursorExtent(c)), &f);
	return f && clang_File_isEqual(f, w->cf->f);
}

static const char *
parent_name(struct walk *w, CXCursor parent, size_t off)
{
	switch (clang_getCursorKind(parent)) {
	case CXCursor_CompoundStmt:
		return "compound";
	case CXCursor_IfStmt:
		return after_else(w->cf, off) ? "else" : "if";
	case CXCursor_ForStmt:
	case CXCursor_CXXForRangeStmt:
		return "for";
	case CXCursor_WhileStmt:
		return "while";
	case CXCursor_DoStmt:
		return "do";
	case CXCursor_CaseStmt:
	case CXCursor_DefaultStmt:
		return "case";
	case CXCursor_LabelStmt:
		return "label";
	default:
		return "other";
	}
}

/* Adds "family:name" to io_apis when name is in the I/O table.  Inline
 * namespaces (std::__cxx11, std::__1) are left out of the lookup. */
static void
add_io_api(struct walk *w, const char *name)
{
	struct dft_buf b;
	const char *p = name, *fam;
	size_t i, n;
	int dup = 0;
	char *s;

	dft_buf_init(&b);
	while (*p) {
		const char *e = strstr(p, "::");
		size_t len = e ? (size_t)(e - p) : strlen(p);

		if (!(len > 2 && p[0] == '_' && p[1] == '_' && e)) {
			if (b.len)
				dft_buf_adds(&b, "::");
			dft_buf_add(&b, p, len);
		}
		p += len;
		if (e)
			p += 2;
	}
	fam = b.len ? io_api_family(b.s) : NULL;
	if (!fam) {
		dft_buf_release(&b);
		return;
	}
	s = dft_xasprintf("%s:%s", fam, b.s);
	n = json_object_array_length(w->ioapis);
	for (i = 0; i < n && !dup; i++)
		dup = strcmp(json_object_get_string(
			json_object_array_get_idx(w->ioapis, i)), s) == 0;
	if (!dup)
		json_object_array_add(w->ioapis, dft_jstr(s));
	free(s);
	dft_buf_release(&b);
}

static void
on_call(struct walk *w, CXCursor c, CXCursor parent)
{
	CXCursor r = clang_getCursorReferenced(c);
	enum CXCursorKind rk = clang_getCursorKind(r);
	char *name = NULL, *bare = NULL;
	int glob = 1;
	json_object *cnt;
	const char *kind = NULL;

	if (!clang_Cursor_isNull(r) && (rk == CXCursor_Constructor ||
					rk == CXCursor_Destructor)) {
		/* object construction, not a call; a file stream opens,
		 * and the constructor is an edge of the call graph */
		if (rk == CXCursor_Constructor) {
			char *q = qual_name(r);
			char *usr = dft_cflow_string(clang_getCursorUSR(r));

			add_io_api(w, q);
			if (usr[0])
				fn_add_callee(w->fn, usr);
			free(usr);
			free(q);
		}
		return;
	}
	bare = dft_cflow_string(clang_getCursorSpelling(c));
	if (!bare[0] && clang_Cursor_isNull(r)) {
		free(bare);
		return;		/* implicit conversion or dependent call */
	}
	w->ncalls++;
	if (!clang_Cursor_isNull(r) &&
	    (rk == CXCursor_FunctionDecl || rk == CXCursor_CXXMethod ||
	     rk == CXCursor_FunctionTemplate ||
	     rk == CXCursor_ConversionFunction)) {
		char *usr = dft_cflow_string(clang_getCursorUSR(r));

		glob = dft_cflow_global(r);
		name = glob ? dft_xstrdup(bare) : qual_name(r);
		if (usr[0])
			fn_add_callee(w->fn, usr);
		free(usr);
	} else {
		name = dft_xstrdup(bare);
	}
	if (!name[0]) {
		free(name);
		name = dft_xstrdup("(indirect)");
	}
	if (json_object_object_get_ex(w->calls, name, &cnt))
		json_object_set_int64(cnt, json_object_get_int64(cnt) + 1);
	else
		json_object_object_add(w->calls, name, dft_jint(1));
	if (w->loop_depth > 0) {
		if (json_object_object_get_ex(w->loop_calls, name, &cnt))
			json_object_set_int64(cnt,
					      json_object_get_int64(cnt) + 1);
		else
			json_object_object_add(w->loop_calls, name,
					       dft_jint(1));
	}
	if (!glob)
		add_io_api(w, name);	/* std::basic_ofstream::write ... */
	if (glob && bare[0]) {
		add_io_api(w, bare);
		note_atexit(w, c, bare);
	}
	if (!w->aux) {
		if (glob && bare[0] && dft_in_list(bare, setjmp_names))
			w->setjmp_ = 1;
		/* a process death that needs no END is no exit */
		kind = dft_cflow_call(w->t->flow, c);
		if (kind && !strcmp(kind, "die"))
			kind = NULL;
		if (kind && !strcmp(kind, "longjmp"))
			w->longjmp_ = 1;
	}
	if (kind) {
		struct exitpt *e = add_exit(w);
		CXFile f;
		size_t off = start_off(c, &f), end = end_off(c);

		e->kind = kind;
		e->callee = dft_xstrdup(bare);
		e->off = off;
		e->in_macro = !qword_at(w->cf, off, bare) || !same_file(w, c);
		e->parent = parent_name(w, parent, off);
		e->end = strcmp(e->parent, "other") == 0 ? end
							  : stmt_end(w->cf, end);
		if (!same_file(w, c)) {
			/* spelled in an #included file: no position here */
			e->off = w->body_open;
			e->end = w->body_open + 1;
		}
	}
	free(name);
	free(bare);
}

static enum CXChildVisitResult
walk_visit(CXCursor c, CXCursor parent, CXClientData d)
{
	struct walk *w = d;

	walk(w, c, parent);
	return CXChildVisit_Continue;
}

/* Walks c (with its children) for its calls only. */
static void
walk_aux(struct walk *w, CXCursor c, CXCursor parent, int self)
{
	int save = w->aux;

	w->aux = 1;
	if (self)
		walk(w, c, parent);
	else
		clang_visitChildren(c, walk_visit, w);
	w->aux = save;
}

static void
walk(struct walk *w, CXCursor c, CXCursor parent)
{
	enum CXCursorKind k = clang_getCursorKind(c);
	enum CXCursorKind pk = clang_getCursorKind(parent);

	if (w->aux) {
		if (k == CXCursor_FunctionDecl || k == CXCursor_CXXMethod ||
		    k == CXCursor_ClassDecl || k == CXCursor_StructDecl)
			return;
		if (k == CXCursor_CallExpr)
			on_call(w, c, parent);
		clang_visitChildren(c, walk_visit, w);
		return;
	}
	w->nodes++;
	if (pk == CXCursor_CompoundStmt)
		w->stmts++;
	switch (k) {
	case CXCursor_LambdaExpr:
	case CXCursor_BlockExpr:
		w->lambdas += k == CXCursor_LambdaExpr;
		/* their exits are not ours, their calls count (io_reach) */
		walk_aux(w, c, parent, 0);
		return;
	case CXCursor_FunctionDecl:
	case CXCursor_CXXMethod:
	case CXCursor_ClassDecl:
	case CXCursor_StructDecl:
		return;		/* local classes, GNU nested functions */
	case CXCursor_DoStmt:
		/* do { ... } while (0): a statement-like macro (an assert,
		 * a swap), its body runs once */
		if (dft_cflow_runs_once(c))
			break;
		/* fall through */
	case CXCursor_ForStmt:
	case CXCursor_WhileStmt:
	case CXCursor_CXXForRangeStmt:
		w->loops++;
		w->loop_depth++;
		clang_visitChildren(c, walk_visit, w);
		w->loop_depth--;
		return;
	case CXCursor_IfStmt:
	case CXCursor_SwitchStmt:
	case CXCursor_ConditionalOperator:
		w->branches++;
		break;
	case CXCursor_GotoStmt:
	case CXCursor_IndirectGotoStmt:
		w->gotos++;
		break;
	case CXCursor_LabelStmt:
		w->labels++;
		break;
	case CXCursor_AsmStmt:
	case CXCursor_MSAsmStmt:
		w->asm_ = 1;
		break;
	case CXCursor_ReturnStmt: {
		struct exitpt *e = add_exit(w);
		CXFile f;
		struct dft_kids kd;

		e->kind = "return";
		e->off = start_off(c, &f);
		e->in_macro = (!word_at(w->cf, e->off, "return") &&
			       !word_at(w->cf, e->off, "co_return")) ||
			      !same_file(w, c);
		e->parent = parent_name(w, parent, e->off);
		e->end = stmt_end(w->cf, end_off(c));
		dft_cflow_kids(c, &kd);
		if (kd.n > 0) {
			e->has_value = 1;
			e->voff = start_off(kd.v[0], &f);
			e->vend = end_off(kd.v[0]);
		}
		free(kd.v);
		if (!same_file(w, c)) {
			/* spelled in an #included file: no position here */
			e->off = e->voff = w->body_open;
			e->end = e->vend = w->body_open + 1;
		}
		break;
	}
	case CXCursor_CallExpr:
		on_call(w, c, parent);
		break;
	case CXCursor_VarDecl:
		if (clang_Cursor_getStorageClass(c) == CX_SC_Static)
			note_static_object(w->t, c);
		break;
	default:
		break;
	}
	clang_visitChildren(c, walk_visit, w);
}

/* ---- one function definition ------------------------------------------------ */

static const char *
kind_name(CXCursor c)
{
	CXCursor p;
	enum CXCursorKind pk;

	switch (clang_getCursorKind(c)) {
	case CXCursor_CXXMethod:
		return "method";
	case CXCursor_Constructor:
		return "constructor";
	case CXCursor_Destructor:
		return "destructor";
	case CXCursor_ConversionFunction:
		return "conversion";
	case CXCursor_FunctionTemplate:
		p = clang_getCursorSemanticParent(c);
		pk = clang_getCursorKind(p);
		return pk == CXCursor_ClassDecl || pk == CXCursor_StructDecl ||
		       pk == CXCursor_ClassTemplate ||
		       pk == CXCursor_ClassTemplatePartialSpecialization ||
		       pk == CXCursor_UnionDecl ? "method_template"
						 : "function_template";
	default:
		return "function";
	}
}

static int
in_class_template(CXCursor c)
{
	CXCursor p = clang_getCursorSemanticParent(c);

	while (!clang_Cursor_isNull(p)) {
		enum CXCursorKind k = clang_getCursorKind(p);

		if (k == CXCursor_ClassTemplate ||
		    k == CXCursor_ClassTemplatePartialSpecialization)
			return 1;
		if (k == CXCursor_TranslationUnit || clang_isInvalid(k))
			return 0;
		p = clang_getCursorSemanticParent(p);
	}
	return 0;
}

static int
is_header_name(const char *p)
{
	static const char *const s[] = {
		".h", ".hh", ".hpp", ".hxx", ".H", ".inc", ".inl", ".tcc",
		".ipp", NULL
	};
	int i;

	for (i = 0; s[i]; i++)
		if (dft_has_suffix(p, s[i]))
			return 1;
	return 0;
}

/* Return type as written; falls back to the text before the name. */
static char *
return_type(struct tuctx *t, CXCursor c, const struct cfile *cf,
	    size_t sig, size_t name, char **canon)
{
	CXType rt = clang_getCursorResultType(c);
	enum CXCursorKind k = clang_getCursorKind(c);

	*canon = NULL;
	if (k == CXCursor_Constructor || k == CXCursor_Destructor) {
		*canon = dft_xstrdup("void");
		return dft_xstrdup("void");
	}
	if (rt.kind != CXType_Invalid) {
		*canon = dft_cflow_string(clang_getTypeSpelling(clang_getCanonicalType(rt)));
		return dft_cflow_string(clang_getTypeSpelling(rt));
	}
	(void)t;
	if (name > sig && name <= cf->len) {
		/* template <...> static inline T name */
		struct dft_buf b;
		size_t p = sig, e = name;
		const char *drop[] = {
			"static", "inline", "extern", "constexpr", "virtual",
			"explicit", "template", NULL
		};

		if (word_at(cf, p, "template")) {
			int depth = 0;

			for (; p < e; p++) {
				if (cf->buf[p] == '<')
					depth++;
				else if (cf->buf[p] == '>' && --depth == 0) {
					p++;
					break;
				}
			}
		}
		dft_buf_init(&b);
		while (p < e) {
			int i, dropped = 0;

			p = skip_fwd(cf, p);
			if (p >= e)
				break;
			for (i = 0; drop[i]; i++)
				if (word_at(cf, p, drop[i])) {
					p += strlen(drop[i]);
					dropped = 1;
					break;
				}
			if (dropped)
				continue;
			if (b.len && (is_ident(cf->buf[p]) &&
				      is_ident(b.s[b.len - 1])))
				dft_buf_addc(&b, ' ');
			dft_buf_addc(&b, cf->buf[p++]);
		}
		/* strip a trailing "Class::" qualifier of the name */
		while (b.len && b.s[b.len - 1] == ':')
			b.s[--b.len] = '\0';
		while (b.len && (is_ident(b.s[b.len - 1]) ||
				 b.s[b.len - 1] == '<' ||
				 b.s[b.len - 1] == '>') &&
		       strchr(b.s, ':'))
			b.s[--b.len] = '\0';
		*canon = dft_xstrdup(b.s);
		return dft_buf_detach(&b);
	}
	*canon = dft_xstrdup("");
	return dft_xstrdup("");
}

/* A ':' (not '::') between the parameter list and the body. */
static int
has_init_list(const struct cfile *cf, size_t name, size_t open)
{
	size_t p;
	int depth = 0, seen_params = 0;

	for (p = name; p < open && p < cf->len; p++) {
		char ch = cf->buf[p];

		if (ch == '(') {
			depth++;
		} else if (ch == ')') {
			if (--depth == 0)
				seen_params = 1;
		} else if (ch == ':' && depth == 0 && seen_params) {
			if (p + 1 < cf->len && cf->buf[p + 1] == ':') {
				p++;
				continue;
			}
			return 1;
		}
	}
	return 0;
}

/* K&R: declarations between the parameter list's ')' and the body. */
static int
is_knr(const struct cfile *cf, size_t name, size_t open)
{
	size_t p = name;
	int depth = 0;

	while (p < open && cf->buf[p] != '(')
		p++;
	for (; p < open; p++) {
		if (cf->buf[p] == '(')
			depth++;
		else if (cf->buf[p] == ')' && --depth == 0)
			break;
	}
	if (p >= open)
		return 0;
	p = skip_fwd(cf, p + 1);
	return p < open && is_ident(cf->buf[p]) &&
	       memchr(cf->buf + p, ';', open - p) != NULL;
}

/*
 * The calls that run as part of function c outside its body: default
 * arguments (in its parameters) and a constructor's member initializers.
 * They count like the body's calls (calls, io_apis, the call graph), but
 * have no exits of the function.
 */
static void
walk_outside(struct walk *w, CXCursor c, CXCursor walkroot)
{
	struct dft_kids kd;
	size_t i;
	int ctor = clang_getCursorKind(c) == CXCursor_Constructor;

	dft_cflow_kids(c, &kd);
	for (i = 0; i < kd.n; i++) {
		enum CXCursorKind k = clang_getCursorKind(kd.v[i]);

		if (clang_equalCursors(kd.v[i], walkroot))
			continue;
		if (k == CXCursor_ParmDecl)
			walk_aux(w, kd.v[i], c, 0);
		else if (ctor && clang_isExpression(k))
			walk_aux(w, kd.v[i], c, 1);
	}
	free(kd.v);
}

static void
do_function(struct tuctx *t, CXCursor c, struct cfile *cf)
{
	struct dft_kids kd;
	CXCursor body = clang_getNullCursor(), walkroot;
	size_t i, sig, nameoff, open, close, endb;
	CXFile f;
	struct walk w;
	struct fn *fn;
	json_object *r, *o, *ex;
	char *name, *qn, *rt, *rtc, *rel, *usr;
	enum CXCursorKind k = clang_getCursorKind(c);
	CXType ft = clang_getCursorType(c);
	int knr = 0, falls, nret_macro = 0;

	dft_cflow_kids(c, &kd);
	for (i = kd.n; i-- > 0;) {
		enum CXCursorKind bk = clang_getCursorKind(kd.v[i]);

		if (bk == CXCursor_CompoundStmt) {
			body = walkroot = kd.v[i];
			break;
		}
		if (bk == CXCursor_CXXTryStmt) {
			struct dft_kids tk;

			dft_cflow_kids(kd.v[i], &tk);
			if (tk.n && clang_getCursorKind(tk.v[0]) ==
					    CXCursor_CompoundStmt) {
				body = tk.v[0];
				walkroot = kd.v[i];
			}
			free(tk.v);
			break;
		}
	}
	free(kd.v);
	if (clang_Cursor_isNull(body))
		return;		/* = default, = delete */
	sig = start_off(c, &f);
	nameoff = loc_off(clang_getCursorLocation(c), &f);
	open = start_off(body, &f);
	endb = end_off(body);
	close = endb > 0 ? endb - 1 : 0;
	if (open >= cf->len || close >= cf->len || sig > open)
		return;

	memset(&w, 0, sizeof(w));
	w.t = t;
	w.cf = cf;
	fn = job_add_fn(t->job);
	w.fn = fn;
	w.calls = json_object_new_object();
	w.loop_calls = json_object_new_object();
	w.ioapis = json_object_new_array();
	w.body_open = open;
	walk(&w, walkroot, c);
	walk_outside(&w, c, walkroot);
	falls = !dft_cflow_cannot_complete(t->flow, body);

	name = dft_cflow_string(clang_getCursorSpelling(c));
	qn = qual_name(c);
	usr = dft_cflow_string(clang_getCursorUSR(c));
	rt = return_type(t, c, cf, sig, nameoff, &rtc);
	rel = rel_path(t->o, cf->path);
	if (strcmp(t->job->lang, "c") == 0)
		knr = is_knr(cf, nameoff, open);

	r = json_object_new_object();
	json_object_object_add(r, "type", dft_jstr("function"));
	json_object_object_add(r, "v", dft_jint(1));
	json_object_object_add(r, "file", dft_jstr(rel));
	json_object_object_add(r, "root", dft_jstr(t->o->root));
	json_object_object_add(r, "file_size", dft_jint((int64_t)cf->len));
	json_object_object_add(r, "file_hash", dft_jstr(cf->hash));
	json_object_object_add(r, "language", dft_jstr(t->job->lang));
	json_object_object_add(r, "parse_ok",
			       json_object_new_boolean(t->parse_ok));
	json_object_object_add(r, "variants", dft_jint(1));
	json_object_object_add(r, "name", dft_jstr(name));
	json_object_object_add(r, "qualified_name", dft_jstr(qn));
	json_object_object_add(r, "usr", dft_jstr(usr));
	json_object_object_add(r, "kind", dft_jstr(kind_name(c)));
	json_object_object_add(r, "signature", pos(cf, sig));
	json_object_object_add(r, "name_pos", pos(cf, nameoff));
	o = json_object_new_object();
	json_object_object_add(o, "open", pos(cf, open));
	json_object_object_add(o, "close", pos(cf, close));
	json_object_object_add(r, "body", o);
	json_object_object_add(r, "end", dft_jint((int64_t)endb));
	o = json_object_new_object();
	json_object_object_add(o, "start",
		json_object_get(json_object_object_get(
			json_object_object_get(r, "signature"), "line")));
	json_object_object_add(o, "end",
		json_object_get(json_object_object_get(
			json_object_object_get(
				json_object_object_get(r, "body"), "close"),
			"line")));
	json_object_object_add(r, "lines", o);

	ex = json_object_new_array();
	for (i = 0; i < w.nex; i++) {
		struct exitpt *e = &w.ex[i];
		json_object *x = json_object_new_object(), *p = pos(cf, e->off);

		json_object_object_add(x, "kind", dft_jstr(e->kind));
		if (e->callee)
			json_object_object_add(x, "callee", dft_jstr(e->callee));
		json_object_object_foreach(p, pk, pv)
			json_object_object_add(x, pk, json_object_get(pv));
		json_object_put(p);
		json_object_object_add(x, "end", dft_jint((int64_t)e->end));
		json_object_object_add(x, "has_value",
				       json_object_new_boolean(e->has_value));
		if (e->has_value)
			json_object_object_add(x, "value",
					       range(cf, e->voff, e->vend));
		json_object_object_add(x, "in_macro",
				       json_object_new_boolean(e->in_macro));
		json_object_object_add(x, "parent", dft_jstr(e->parent));
		json_object_array_add(ex, x);
		if (e->in_macro && strcmp(e->kind, "return") == 0)
			nret_macro++;
		free(e->callee);
	}
	free(w.ex);
	json_object_object_add(r, "exits", ex);
	json_object_object_add(r, "falls_through",
			       json_object_new_boolean(falls));
	json_object_object_add(r, "return_type", dft_jstr(rt));
	json_object_object_add(r, "return_type_canonical", dft_jstr(rtc));
	json_object_object_add(r, "returns_void", json_object_new_boolean(
		strcmp(rtc, "void") == 0));
	json_object_object_add(r, "is_entry", json_object_new_boolean(
		strcmp(name, "main") == 0 && k == CXCursor_FunctionDecl &&
		dft_cflow_global(c) && strcmp(qn, "main") == 0));
	json_object_object_add(r, "storage", dft_jstr(
		clang_getCursorLinkage(c) == CXLinkage_Internal ? "static"
								 : "extern"));
	json_object_object_add(r, "inline", json_object_new_boolean(
		clang_Cursor_isFunctionInlined(c)));
	json_object_object_add(r, "in_header", json_object_new_boolean(
		!cf->is_main || is_header_name(cf->path)));
	json_object_object_add(r, "body_from_macro", json_object_new_boolean(
		cf->buf[open] != '{' || cf->buf[close] != '}'));
	json_object_object_add(r, "returns_in_macro", dft_jint(nret_macro));
	json_object_object_add(r, "gotos", dft_jint(w.gotos));
	json_object_object_add(r, "labels", dft_jint(w.labels));
	json_object_object_add(r, "setjmp", json_object_new_boolean(w.setjmp_));
	json_object_object_add(r, "longjmp",
			       json_object_new_boolean(w.longjmp_));
	json_object_object_add(r, "inline_asm",
			       json_object_new_boolean(w.asm_));
	json_object_object_add(r, "variadic", json_object_new_boolean(
		clang_isFunctionTypeVariadic(ft) == 1));
	json_object_object_add(r, "knr", json_object_new_boolean(knr));
	if (strcmp(t->job->lang, "cpp") == 0) {
		json_object_object_add(r, "is_template", json_object_new_boolean(
			k == CXCursor_FunctionTemplate || in_class_template(c)));
		json_object_object_add(r, "is_static_method",
			json_object_new_boolean(k == CXCursor_CXXMethod &&
						clang_CXXMethod_isStatic(c)));
		json_object_object_add(r, "is_virtual", json_object_new_boolean(
			(k == CXCursor_CXXMethod || k == CXCursor_Destructor) &&
			clang_CXXMethod_isVirtual(c)));
		json_object_object_add(r, "has_init_list",
			json_object_new_boolean(k == CXCursor_Constructor &&
				has_init_list(cf, nameoff, open)));
		json_object_object_add(r, "lambdas", dft_jint(w.lambdas));
	}
	json_object_object_add(r, "calls", w.calls);
	json_object_object_add(r, "calls_in_loops", w.loop_calls);
	json_object_object_add(r, "call_count", dft_jint(w.ncalls));
	json_object_object_add(r, "loops", dft_jint(w.loops));
	json_object_object_add(r, "branches", dft_jint(w.branches));
	json_object_object_add(r, "statements", dft_jint(w.stmts));
	json_object_object_add(r, "nodes", dft_jint(w.nodes));
	fn->io_direct = json_object_array_length(w.ioapis) > 0;
	json_object_object_add(r, "io_direct",
			       json_object_new_boolean(fn->io_direct));
	json_object_object_add(r, "io_apis", w.ioapis);
	json_object_object_add(r, "io_reach", NULL);
	json_object_object_add(r, "io_via", NULL);
	json_object_object_add(r, "after_finalize", NULL);

	fn->rec = r;
	fn->key = dft_xasprintf("%s:%zu:%zu", cf->path, open, nameoff);
	fn->usr = usr;
	fn->name = name;
	free(qn);
	free(rt);
	free(rtc);
	free(rel);
}

/* ---- the translation unit -------------------------------------------------- */

static enum CXChildVisitResult
top_visit(CXCursor c, CXCursor parent, CXClientData d)
{
	struct tuctx *t = d;
	enum CXCursorKind k = clang_getCursorKind(c);
	CXSourceLocation loc = clang_getCursorLocation(c);
	CXFile f = NULL;
	struct cfile *cf;

	if (clang_Location_isInSystemHeader(loc))
		return CXChildVisit_Continue;
	clang_getExpansionLocation(loc, &f, NULL, NULL, NULL);
	cf = file_of(t, f);
	/* a namespace may start in one file and go on in another */
	if (dft_cflow_holds_functions(k))
		return CXChildVisit_Recurse;
	if (dft_cflow_is_function(k)) {
		if (cf && cf->report && clang_isCursorDefinition(c))
			do_function(t, c, cf);
	} else if (k == CXCursor_VarDecl) {
		note_static_object(t, c);
	}
	return CXChildVisit_Continue;
}

static int
ignorable_diag(const char *msg)
{
	return dft_has_prefix(msg, "unknown argument") ||
	       dft_has_prefix(msg, "unsupported option") ||
	       dft_has_prefix(msg, "optimization flag") ||
	       dft_has_prefix(msg, "argument unused");
}

void
c_extract(struct job *j, const struct fopts *o, void *cxindex)
{
	CXIndex idx = cxindex;
	struct tuctx t;
	int argc = 0, nd, i;
	const char **argv;
	enum CXErrorCode err;
	size_t k;
	CXCursor root;

	memset(&t, 0, sizeof(t));
	t.job = j;
	t.o = o;
	while (j->args[argc])
		argc++;
	argv = dft_xcalloc((size_t)argc + 3, sizeof(char *));
	for (i = 0; i < argc; i++)
		argv[i] = j->args[i];
	argv[argc++] = "-w";
	argv[argc++] = "-Wno-everything";
	err = clang_parseTranslationUnit2(idx, j->file, argv, argc, NULL, 0,
		CXTranslationUnit_KeepGoing |
		CXTranslationUnit_IgnoreNonErrorsFromIncludedFiles, &t.tu);
	free(argv);
	j->parsed = 1;
	if (err != CXError_Success || !t.tu) {
		j->failed = 1;
		job_add_diag(j, o, j->file, 0, 0, "parse-failed", "error",
			     err == CXError_Crashed ? "libclang crashed"
						    : "libclang could not parse the file");
		return;
	}
	t.parse_ok = 1;
	nd = (int)clang_getNumDiagnostics(t.tu);
	for (i = 0; i < nd; i++) {
		CXDiagnostic dg = clang_getDiagnostic(t.tu, (unsigned)i);
		enum CXDiagnosticSeverity sv = clang_getDiagnosticSeverity(dg);
		CXFile f = NULL;
		unsigned line = 0, col = 0;
		char *msg, *fname = NULL;

		if (sv < CXDiagnostic_Error) {
			clang_disposeDiagnostic(dg);
			continue;
		}
		msg = dft_cflow_string(clang_getDiagnosticSpelling(dg));
		clang_getSpellingLocation(clang_getDiagnosticLocation(dg), &f,
					  &line, &col, NULL);
		if (f)
			fname = dft_cflow_string(clang_getFileName(f));
		if (!f && ignorable_diag(msg)) {
			dft_warn("%s: %s", j->file, msg);
		} else {
			char *abs = fname ? dft_path_absolute(fname)
					  : dft_xstrdup(j->file);

			t.parse_ok = 0;
			j->errors++;
			if (j->errors <= 20)
				job_add_diag(j, o, abs, line, col,
					     sv == CXDiagnostic_Fatal ||
					     strstr(msg, "file not found") ?
					     "parse-fatal" : "parse-error",
					     "error", msg);
			free(abs);
		}
		free(fname);
		free(msg);
		clang_disposeDiagnostic(dg);
	}
	t.flow = dft_cflow_new(t.tu);
	root = clang_getTranslationUnitCursor(t.tu);
	clang_visitChildren(root, top_visit, &t);
	for (k = 0; k < t.nfiles; k++) {
		free(t.files[k].path);
		free(t.files[k].lines);
	}
	free(t.files);
	dft_cflow_free(t.flow);
	clang_disposeTranslationUnit(t.tu);
}
