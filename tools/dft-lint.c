/*
 * dft-lint - check instrumented sources: syntax with the real compile flags
 * and a stub <dftracer/dftracer.h>, and the placement rules of the dftracer
 * macros, from the syntax tree (libclang), never from text.
 *
 * Input: source files as operands, and/or NDJSON records (operands that
 * are not sources, or stdin): `annotation' records name the files to check,
 * `function' records carry dft-cost's decisions (rule L8), `session'
 * records say where the compile database is.  Every record is passed
 * through; one `diagnostic' record per problem follows, then a `step'.
 * Diagnostics also go to stderr as "file:line:col: severity: message
 * [rule]".  Exit 1 when any diagnostic is an error.
 *
 * Rules (stable ids, see dft-lint(1)):
 *   syntax  the file does not compile with the stub header
 *   L1      main: INIT before the first START (and INIT present)
 *   L2      START followed by its "comp" UPDATE
 *   L3      main: FINI before MPI_Finalize and on every exit after INIT
 *           (in C++, a local whose destructor calls FINI, declared at
 *           main's scope after INIT and before main's region, does it)
 *   L4      no END right before a macro that hides a return
 *   L5      START at function scope (same scope as every END)
 *   L6      END on every path out of a START: return, exit family,
 *           fall-through
 *   L7      no END that is unreachable or without an open START
 *   L8      no instrumentation in a function dft-cost skipped
 *   PL1-PL4 Python (share/dft/dft_pyannotate.py does the parsing)
 *
 * It does a path-sensitive walk of each function body (if/else, loops,
 * switch, goto, break/continue, &&, ||, ?:, try: a handler may start from
 * any state inside its try block); longjmp is not followed.
 */
#include <clang-c/CXCompilationDatabase.h>
#include <clang-c/Index.h>
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dft.h"
#include "compdb.h"
#include "cflow.h"
#include "options.h"

static const char usage_text[] =
	"usage: dft-lint [-hV] [-p dir] [--prefix-map old=new] [file ...] "
	"[-- flags ...]\n";

static const char help_text[] =
	"\n"
	"Checks instrumented C, C++ and Python sources against the dftracer\n"
	"placement rules: source operands directly, the files named by the\n"
	"annotation records of the other operands (or of stdin). Records pass\n"
	"through, then one diagnostic record per problem and a step record.\n"
	"\n"
	"  -p, --compile-db DIR      compile_commands.json (or its directory);\n"
	"                            default: the session record's\n"
	"      --prefix-map OLD=NEW  read a database written for a copy of the\n"
	"                            tree at OLD as if it were at NEW\n"
	"                            (repeatable)\n"
	"  -- flags ...              more compiler flags for C and C++ files\n"
	"  -h, --help                show this help\n"
	"  -V, --version             show the version\n";

struct opts {
	const char *compdb;
	struct dft_prefix_map *maps;	/* --prefix-map */
	size_t nmaps;
	char **extra;
	int nextra;
};

/* ---- collected input ---------------------------------------------------- */
struct target {
	char *path;		/* file to check (absolute) */
	char *src;		/* original source path for the compile db */
	char *file, *root;	/* as in the records */
};

static struct target *targets;
static size_t ntargets;
static json_object *decisions;	/* "file\nname\nline" -> annotate bool */
static char *session_db;
static int nerrors, nwarnings;
static json_object *diags;	/* array of records, emitted at the end */

static void
add_target(const char *path, const char *src, const char *file,
	   const char *root)
{
	char *abs = dft_path_absolute(path);
	size_t i;

	for (i = 0; i < ntargets; i++)
		if (!strcmp(targets[i].path, abs)) {
			free(abs);
			return;
		}
	targets = dft_xreallocarray(targets, ntargets + 1, sizeof(*targets));
	targets[ntargets].path = abs;
	targets[ntargets].src = src ? dft_path_absolute(src) : NULL;
	targets[ntargets].file = dft_xstrdup(file ? file : path);
	targets[ntargets].root = root ? dft_xstrdup(root) : NULL;
	ntargets++;
}

static int
on_input(struct dft_reader *r, void *ctx)
{
	json_object *rec;
	int rc;

	(void)ctx;
	while ((rc = dft_reader_next(r, &rec)) == 1) {
		const char *type = dft_record_type(rec);

		dft_pass(stdout, r);
		if (!strcmp(type, "annotation")) {
			const char *st = dft_json_str(rec, "status", "");
			const char *path = dft_json_str(rec, "path", NULL);
			const char *file = dft_json_str(rec, "file", NULL);
			const char *root = dft_json_str(rec, "root", NULL);
			char *src = NULL;

			if (file && root && file[0] != '/')
				src = dft_path_join(root, file);
			if (path && (!strcmp(st, "annotated") ||
				     !strcmp(st, "already_annotated")))
				add_target(path, src ? src : file, file, root);
			free(src);
		} else if (!strcmp(type, "function")) {
			json_object *d = dft_json_path(rec, "decision");
			char *key;

			if (d) {
				key = dft_xasprintf(
					"%s\n%s\n%lld",
					dft_json_str(rec, "file", ""),
					dft_json_str(rec, "name", ""),
					(long long)dft_json_int(
						dft_json_path(rec, "lines"),
						"start", 0));
				json_object_object_add(
					decisions, key,
					json_object_new_boolean(dft_json_bool(
						d, "annotate", 0)));
				free(key);
			}
		} else if (!strcmp(type, "session") && !session_db) {
			const char *db = dft_json_str(rec, "compile_db", NULL);
			const char *ws = dft_json_str(rec, "workspace", NULL);

			if (!db)
				db = dft_json_str(dft_json_path(rec, "paths"),
						  "compile_db", NULL);
			if (db)
				session_db = dft_xstrdup(db);
			else if (ws) {
				char *c = dft_path_join(
					ws, "baseline/compile_commands.json");

				if (dft_exists(c))
					session_db = c;
				else
					free(c);
			}
		}
		json_object_put(rec);
	}
	return rc < 0 ? DFT_EXIT_FATAL : DFT_EXIT_OK;
}

/* ---- diagnostics -------------------------------------------------------- */
struct file_ctx {
	const struct target *t;
	const char *text;	/* the file's bytes */
	size_t n;
	CXFile file;
	CXTranslationUnit tu;
	struct dft_cflow *flow;	/* calls that do not return (common/) */
	const char *fn;		/* qualified name of the function */
	int report;		/* 0 while iterating to a fixpoint */
	json_object *seen;	/* "rule:line:col" already reported */
};

static void
diag(struct file_ctx *fc, unsigned line, unsigned col, const char *rule,
     const char *sev, const char *fmt, ...) DFT_PRINTF(6, 7);

static void
diag(struct file_ctx *fc, unsigned line, unsigned col, const char *rule,
     const char *sev, const char *fmt, ...)
{
	json_object *o;
	char msg[512], key[64];
	va_list ap;

	if (!fc->report)
		return;
	snprintf(key, sizeof(key), "%s:%u:%u", rule, line, col);
	if (json_object_object_get_ex(fc->seen, key, NULL))
		return;
	json_object_object_add(fc->seen, key, NULL);
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	o = json_object_new_object();
	json_object_object_add(o, "type", dft_jstr("diagnostic"));
	json_object_object_add(o, "v", dft_jint(1));
	json_object_object_add(o, "tool", dft_jstr("dft-lint"));
	json_object_object_add(o, "file", dft_jstr(fc->t->file));
	json_object_object_add(o, "root", dft_jstr(fc->t->root));
	json_object_object_add(o, "path", dft_jstr(fc->t->path));
	json_object_object_add(o, "line", dft_jint(line));
	json_object_object_add(o, "col", dft_jint(col));
	json_object_object_add(o, "rule", dft_jstr(rule));
	json_object_object_add(o, "severity", dft_jstr(sev));
	json_object_object_add(o, "message", dft_jstr(msg));
	if (fc->fn)
		json_object_object_add(o, "function", dft_jstr(fc->fn));
	json_object_array_add(diags, o);
	fprintf(stderr, "%s:%u:%u: %s: %s [%s]\n", fc->t->path, line, col, sev,
		msg, rule);
	if (!strcmp(sev, "error"))
		nerrors++;
	else if (!strcmp(sev, "warning"))
		nwarnings++;
}

/* ---- a small tree of the body ------------------------------------------- */
struct node {
	enum CXCursorKind kind;
	CXCursor cur;
	unsigned off, end;	/* expansion offsets in the main file */
	unsigned line, col;
	int in_macro;		/* the node's first token is not in the text */
	struct node **kid;
	int nkid, cap;
};

static void
loc_of(struct file_ctx *fc, CXSourceLocation l, unsigned *off, unsigned *line,
       unsigned *col, int *mainfile)
{
	CXFile f;

	clang_getExpansionLocation(l, &f, line, col, off);
	*mainfile = f && clang_File_isEqual(f, fc->file);
}

static enum CXChildVisitResult build_visit(CXCursor c, CXCursor parent,
					   CXClientData data);

static struct node *
node_new(struct file_ctx *fc, CXCursor c)
{
	struct node *n = dft_xcalloc(1, sizeof(*n));
	CXSourceRange r = clang_getCursorExtent(c);
	unsigned l2, c2;
	int m1, m2;
	CXSourceLocation sp = clang_getRangeStart(r);
	CXFile sf = NULL;
	unsigned soff = 0;

	n->kind = clang_getCursorKind(c);
	n->cur = c;
	loc_of(fc, clang_getRangeStart(r), &n->off, &n->line, &n->col, &m1);
	loc_of(fc, clang_getRangeEnd(r), &n->end, &l2, &c2, &m2);
	/*
	 * Written where it is expanded, or produced by a macro? libclang 14's
	 * spelling locations are not reliable, so look at the text: a return
	 * or a call that is really written there starts with its keyword or
	 * callee name.
	 */
	(void)sp, (void)sf, (void)soff;
	n->in_macro = !m1;
	if (m1 && n->kind == CXCursor_ReturnStmt)
		n->in_macro = n->off + 6 > fc->n ||
			      memcmp(fc->text + n->off, "return", 6) != 0;
	else if (m1 && n->kind == CXCursor_CallExpr) {
		char *nm = dft_cflow_spelling(c);
		size_t l = strlen(nm), q = n->off;

		/* a qualified name (std::abort) starts with its qualifier */
		while (q < fc->n && (fc->text[q] == ':' || fc->text[q] == '_' ||
				     isalnum((unsigned char)fc->text[q])) &&
		       !(q + l <= fc->n && !memcmp(fc->text + q, nm, l) &&
			 (q == n->off || fc->text[q - 1] == ':')))
			q++;
		n->in_macro = l && (q + l > fc->n ||
				    memcmp(fc->text + q, nm, l) != 0);
		free(nm);
	} else if (m1 && n->kind == CXCursor_CompoundStmt)
		n->in_macro = n->off >= fc->n || fc->text[n->off] != '{';
	return n;
}

struct build_ctx {
	struct file_ctx *fc;
	struct node *parent;
};

static enum CXChildVisitResult
build_visit(CXCursor c, CXCursor parent, CXClientData data)
{
	struct build_ctx *b = data;
	struct node *n;
	enum CXCursorKind k = clang_getCursorKind(c);
	struct build_ctx sub;

	(void)parent;
	if (k == CXCursor_LambdaExpr || k == CXCursor_BlockExpr)
		return CXChildVisit_Continue;
	n = node_new(b->fc, c);
	if (b->parent->nkid == b->parent->cap) {
		b->parent->cap = b->parent->cap ? b->parent->cap * 2 : 4;
		b->parent->kid = dft_xreallocarray(b->parent->kid,
						   (size_t)b->parent->cap,
						   sizeof(*b->parent->kid));
	}
	b->parent->kid[b->parent->nkid++] = n;
	/* the member functions of a local class do not run here */
	if (dft_cflow_is_function(k) || k == CXCursor_TypeRef ||
	    k == CXCursor_TemplateRef)
		return CXChildVisit_Continue;
	sub.fc = b->fc;
	sub.parent = n;
	clang_visitChildren(c, build_visit, &sub);
	return CXChildVisit_Continue;
}

static void
node_free(struct node *n)
{
	int i;

	for (i = 0; i < n->nkid; i++)
		node_free(n->kid[i]);
	free(n->kid);
	free(n);
}

/* Name of the function a CallExpr calls ("" when unknown); caller frees. */
static char *
callee_name(CXCursor call)
{
	CXCursor d = clang_getCursorReferenced(call);

	if (clang_Cursor_isNull(d))
		return dft_cflow_spelling(call);
	return dft_cflow_spelling(d);
}

/* ---- the path walk ------------------------------------------------------ */
/*
 * A state is one combination of: the function's region (none, open,
 * closed), main's tracer (not initialised, initialised, finalised,
 * finalised by a guard at main's end) and MPI (running, finalised). A set
 * of states is a bitmask of 24 bits.
 */
enum { R_NONE, R_OPEN, R_CLOSED };
enum { I_NO, I_YES, I_FINI, I_GUARD };
#define ST_BITS 24
#define ST(r, i, m) (1u << ((r) * 8 + (i) * 2 + (m)))
#define ST_R(b) ((b) / 8)
#define ST_I(b) (((b) / 2) % 4)
#define ST_M(b) ((b) % 2)
typedef unsigned stset;

struct walk {
	struct file_ctx *fc;
	int is_main;
	int in_switch;
	stset brk, cont;	/* states reaching break / continue */
	stset sw_entry;		/* state at the switch's head */
	json_object *labels;	/* label offset -> states (int) */
	int labels_changed;
	int starts;		/* START seen */
	int raii_starts;	/* of them RAII (ended at the closing brace) */
	int inits;
	int try_depth;		/* inside a try block */
	stset try_seen;		/* states inside it: where a throw may go */
	int init_only;		/* main with INIT and no region of its own:
				 * the runtime's exit handler finalizes */
	struct node *tail[4];	/* instrumentation closing the body */
	int ntail;
	int next_is_exit;	/* the statement after this one is an exit */
};

static int
any(stset s, int what, int val)
{
	int b;

	for (b = 0; b < ST_BITS; b++)
		if ((s & (1u << b)) &&
		    (what == 0 ? ST_R(b) : what == 1 ? ST_I(b) : ST_M(b)) ==
			    val)
			return 1;
	return 0;
}

/* Maps every state through f(r, i, m) -> new (r, i, m). */
static stset
set_r(stset s, int r)
{
	stset o = 0;
	int b;

	for (b = 0; b < ST_BITS; b++)
		if (s & (1u << b))
			o |= ST(r, ST_I(b), ST_M(b));
	return o;
}

static stset
set_i(stset s, int i)
{
	stset o = 0;
	int b;

	for (b = 0; b < ST_BITS; b++)
		if (s & (1u << b))
			o |= ST(ST_R(b), i, ST_M(b));
	return o;
}

static stset
set_m(stset s, int m)
{
	stset o = 0;
	int b;

	for (b = 0; b < ST_BITS; b++)
		if (s & (1u << b))
			o |= ST(ST_R(b), ST_I(b), m);
	return o;
}

static stset walk_stmt(struct walk *w, struct node *n, stset s);

/* A call that does not return (dft-funcs gives annotate the same). */
static int
is_exit_stmt(struct file_ctx *fc, struct node *n)
{
	return n->kind == CXCursor_CallExpr &&
	       dft_cflow_call(fc->flow, n->cur) != NULL;
}

/* The last child: the statement of a label, case or default. */
static struct node *
last_kid(struct node *n)
{
	return n->nkid ? n->kid[n->nkid - 1] : NULL;
}

static int
contains_macro_return(struct node *n)
{
	int i;

	if (n->kind == CXCursor_ReturnStmt && n->in_macro)
		return 1;
	for (i = 0; i < n->nkid; i++)
		if (contains_macro_return(n->kid[i]))
			return 1;
	return 0;
}

/*
 * A START: `data_fn' from the stub, main's heap region, or the RAII
 * objects (the C++ function's, main's stack region).
 */
static int
is_start_decl(struct node *n, int *raii)
{
	char *name;
	int r = 0;

	*raii = 0;
	if (n->kind != CXCursor_VarDecl)
		return 0;
	name = dft_cflow_spelling(n->cur);
	if (!strcmp(name, "data_fn"))
		r = 1;
	else if (!strcmp(name, "profiler_main"))
		r = 1, *raii = clang_getCursorType(n->cur).kind !=
			       CXType_Pointer;
	else if (!strcmp(name, "profiler_dft_fn"))
		r = 1, *raii = 1;
	free(name);
	return r;
}

static enum CXChildVisitResult
fini_visit(CXCursor c, CXCursor parent, CXClientData data)
{
	int *found = data;
	char *name;

	(void)parent;
	if (clang_getCursorKind(c) == CXCursor_CallExpr) {
		name = callee_name(c);
		*found |= !strcmp(name, "dft_stub_fini");
		free(name);
	}
	return *found ? CXChildVisit_Break : CXChildVisit_Recurse;
}

static enum CXChildVisitResult
dtor_visit(CXCursor c, CXCursor parent, CXClientData data)
{
	(void)parent;
	if (clang_getCursorKind(c) == CXCursor_Destructor)
		clang_visitChildren(c, fini_visit, data);
	return CXChildVisit_Continue;
}

/* A FINI guard: a variable whose class's destructor calls FINI. */
static int
is_fini_guard(struct node *n)
{
	CXCursor d;
	int found = 0;

	if (n->kind != CXCursor_VarDecl)
		return 0;
	d = clang_getTypeDeclaration(clang_getCursorType(n->cur));
	if (!clang_Cursor_isNull(d))
		clang_visitChildren(d, dtor_visit, &found);
	return found;
}

static int
is_region_end(struct node *n)
{
	char *name;
	int r = 0;

	if (n->kind == CXCursor_CallExpr) {
		name = callee_name(n->cur);
		r = !strcmp(name, "dft_stub_function_end");
		free(name);
		return r;
	}
	if (n->kind == CXCursor_CXXDeleteExpr && n->nkid > 0) {
		CXCursor d = clang_getCursorReferenced(n->kid[0]->cur);

		if (n->kid[0]->nkid > 0 && clang_Cursor_isNull(d))
			d = clang_getCursorReferenced(n->kid[0]->kid[0]->cur);
		name = dft_cflow_spelling(d);
		r = !strcmp(name, "profiler_main");
		free(name);
	}
	return r;
}

static stset
walk_kids(struct walk *w, struct node *n, stset s)
{
	int i;

	for (i = 0; i < n->nkid; i++)
		s = walk_stmt(w, n->kid[i], s);
	return s;
}

static void
on_end(struct walk *w, struct node *n, stset s)
{
	struct file_ctx *fc = w->fc;

	int k, tail = 0;

	for (k = 0; k < w->ntail; k++)
		tail |= w->tail[k] == n;
	if (!s && tail)
		diag(fc, n->line, n->col, "L7", "note",
		     "END at the closing brace is unreachable (harmless)");
	else if (!s && w->next_is_exit)
		diag(fc, n->line, n->col, "L7", "note",
		     "END before a return that cannot be reached (harmless)");
	else if (!s)
		diag(fc, n->line, n->col, "L7", "error",
		     "END is unreachable (after a return or exit): the event "
		     "is never written");
	else if (any(s, 0, R_NONE))
		diag(fc, n->line, n->col, "L7", "error",
		     "END without a START on some path");
	else if (any(s, 0, R_CLOSED))
		diag(fc, n->line, n->col, "L7", "error",
		     "END after END on some path (the region is finalised "
		     "twice)");
}

static void
on_exit_point(struct walk *w, struct node *n, stset s, const char *what,
	      int soft)
{
	struct file_ctx *fc = w->fc;

	if (any(s, 0, R_OPEN))
		diag(fc, n->line, n->col, "L6", soft ? "warning" : "error",
		     "%s without END: the function's event is never written",
		     what);
	if (w->is_main && any(s, 1, I_YES) && !w->init_only)
		diag(fc, n->line, n->col, "L3", soft ? "warning" : "error",
		     "%s in main after INIT without FINI", what);
	/* the guard covers returns, the runtime's exit handler exit() */
	if (w->is_main && (any(s, 1, I_GUARD) ||
			   (w->init_only && any(s, 1, I_YES))) &&
	    (!strcmp(what, "abort") || !strcmp(what, "quick_exit") ||
	     !strcmp(what, "_exit") || !strcmp(what, "_Exit")))
		diag(fc, n->line, n->col, "L3", soft ? "warning" : "error",
		     "%s in main without FINI: it skips the %sexit "
		     "handlers", what, w->init_only ? "" : "FINI guard and "
		     "the ");
}

static stset
walk_call(struct walk *w, struct node *n, stset s)
{
	struct file_ctx *fc = w->fc;
	const char *end;
	char *name;

	s = walk_kids(w, n, s);
	name = callee_name(n->cur);
	if (!strcmp(name, "dft_stub_function_end")) {
		on_end(w, n, s);
		s = set_r(s, R_CLOSED);
	} else if (!s) {
		;	/* unreachable: only END is worth a word */
	} else if (!strcmp(name, "dft_stub_init") ||
		   !strcmp(name, "dft_stub_init_no_bind")) {
		w->inits++;
		if (!w->is_main)
			diag(fc, n->line, n->col, "L1", "warning",
			     "INIT outside main");
		if (any(s, 0, R_OPEN) || any(s, 0, R_CLOSED))
			diag(fc, n->line, n->col, "L1", "error",
			     "INIT after the first START: main's event "
			     "starts before the tracer");
		s = set_i(s, I_YES);
	} else if (!strcmp(name, "dft_stub_fini")) {
		if (any(s, 2, 1))
			diag(fc, n->line, n->col, "L3", "error",
			     "FINI after MPI_Finalize");
		if (any(s, 0, R_OPEN))
			diag(fc, n->line, n->col, "L3", "error",
			     "FINI while the function's region is open (END "
			     "first)");
		s = set_i(s, I_FINI);
	} else if (!strcmp(name, "MPI_Finalize")) {
		if (w->is_main && any(s, 1, I_YES))
			diag(fc, n->line, n->col, "L3", "error",
			     "MPI_Finalize before FINI");
		if (w->is_main && any(s, 1, I_GUARD))
			diag(fc, n->line, n->col, "L3", "error",
			     "MPI_Finalize before the FINI of a guard (which "
			     "runs at main's end): FINI after MPI_Finalize");
		s = set_m(s, 1);
	} else if ((end = dft_cflow_call(fc->flow, n->cur)) != NULL) {
		/* an exit inside a macro (assert) cannot be covered: the
		 * process ends, the program's behaviour is the same; nor
		 * does a death such as __builtin_trap need an END */
		if (s && !n->in_macro && strcmp(end, "die"))
			on_exit_point(w, n, s, name, 0);
		s = 0;
	}
	free(name);
	return s;
}

/* forever: the loop has no condition or a constant true one, so it is
 * left only by break (or goto, return, exits) */
static stset
walk_loop(struct walk *w, struct node *body, struct node **pre, int npre,
	  struct node **post, int npost, stset s, int do_loop, int forever)
{
	stset head = s, out, save_b = w->brk, save_c = w->cont, prev;
	int report = w->fc->report, i, it;
	int save_sw = w->in_switch;

	/* fixpoint of the loop head, silently */
	w->fc->report = 0;
	for (it = 0; it < 8; it++) {
		stset x = head;

		prev = head;
		w->brk = w->cont = 0;
		w->in_switch = 0;
		if (!do_loop)
			for (i = 0; i < npre; i++)
				x = walk_stmt(w, pre[i], x);
		x = walk_stmt(w, body, x) | w->cont;
		for (i = 0; i < npost; i++)
			x = walk_stmt(w, post[i], x);
		head = s | x;
		if (head == prev)
			break;
	}
	w->fc->report = report;
	/* once more, reporting */
	w->brk = w->cont = 0;
	w->in_switch = 0;
	out = head;
	if (!do_loop)
		for (i = 0; i < npre; i++)
			out = walk_stmt(w, pre[i], out);
	{
		stset cond = out, b = walk_stmt(w, body, out) | w->cont;

		for (i = 0; i < npost; i++)
			b = walk_stmt(w, post[i], b);
		out = (forever ? 0 : do_loop ? b : cond) | w->brk;
	}
	w->brk = save_b;
	w->cont = save_c;
	w->in_switch = save_sw;
	return out;
}

/* Is there an `else' keyword between the end of a and the start of b? */
static int
else_between(struct file_ctx *fc, struct node *a, struct node *b)
{
	unsigned i;

	if (a->in_macro || b->in_macro || a->end >= b->off || b->off > fc->n)
		return -1;
	for (i = a->end; i + 4 <= b->off; i++)
		if (!memcmp(fc->text + i, "else", 4))
			return 1;
	return 0;
}

static stset
walk_stmt(struct walk *w, struct node *n, stset s)
{
	struct file_ctx *fc = w->fc;
	int i, raii;

	if (w->try_depth)
		w->try_seen |= s;
	switch ((int)n->kind) {
	case CXCursor_CompoundStmt: {
		for (i = 0; i < n->nkid; i++) {
			struct node *k = n->kid[i];

			/* L4: END right before a hidden return */
			if (i + 1 < n->nkid && s && is_region_end(k) &&
			    contains_macro_return(n->kid[i + 1]))
				diag(fc, k->line, k->col, "L4", "error",
				     "END before a macro that may return: "
				     "the region ends twice or never");
			w->next_is_exit = i + 1 < n->nkid &&
					  (n->kid[i + 1]->kind ==
						   CXCursor_ReturnStmt ||
					   is_exit_stmt(fc, n->kid[i + 1]));
			s = walk_stmt(w, k, s);
			w->next_is_exit = 0;
		}
		return s;
	}
	case CXCursor_DeclStmt:
		for (i = 0; i < n->nkid; i++) {
			struct node *v = n->kid[i];

			s = walk_kids(w, v, s);
			if (w->is_main && s && is_fini_guard(v)) {
				if (any(s, 1, I_NO) || w->inits == 0)
					diag(fc, v->line, v->col, "L3",
					     "error",
					     "FINI guard before INIT");
				if (w->raii_starts)
					diag(fc, v->line, v->col, "L3",
					     "error",
					     "FINI guard after main's region: "
					     "FINI runs before the region "
					     "ends");
				s = set_i(s, I_GUARD);
			}
			if (is_start_decl(v, &raii)) {
				w->starts++;
				w->raii_starts += raii;
				if (!s)
					diag(fc, v->line, v->col, "L7", "error",
					     "START is unreachable");
				if (w->is_main &&
				    (any(s, 1, I_NO) || w->inits == 0))
					diag(fc, v->line, v->col, "L1",
					     "error",
					     "START in main before INIT");
				if (!raii && any(s, 0, R_OPEN))
					diag(fc, v->line, v->col, "L5",
					     "error",
					     "START while a START is open");
				if (!raii)
					s = set_r(s, R_OPEN);
			}
		}
		return s;
	case CXCursor_ReturnStmt:
		s = walk_kids(w, n, s);
		if (s)
			on_exit_point(w, n, s, "return", 0);
		return 0;
	case CXCursor_CallExpr:
		return walk_call(w, n, s);
	case CXCursor_CXXDeleteExpr:
		s = walk_kids(w, n, s);
		if (is_region_end(n)) {
			on_end(w, n, s);
			s = set_r(s, R_CLOSED);
		}
		return s;
	case CXCursor_IfStmt: {
		struct node *then, *els = NULL;
		int nc = n->nkid, conds, e;
		stset a, b;

		if (nc < 2)
			return walk_kids(w, n, s);
		e = nc >= 3 ? else_between(fc, n->kid[nc - 2], n->kid[nc - 1])
			    : 0;
		if (e < 0)
			e = nc == 3;
		if (e) {
			then = n->kid[nc - 2];
			els = n->kid[nc - 1];
			conds = nc - 2;
		} else {
			then = n->kid[nc - 1];
			conds = nc - 1;
		}
		for (i = 0; i < conds; i++)
			s = walk_stmt(w, n->kid[i], s);
		a = walk_stmt(w, then, s);
		b = els ? walk_stmt(w, els, s) : s;
		return a | b;
	}
	case CXCursor_WhileStmt:
		if (n->nkid < 2)
			return walk_kids(w, n, s);
		return walk_loop(w, n->kid[n->nkid - 1], n->kid, n->nkid - 1,
				 NULL, 0, s, 0,
				 dft_cflow_loop_forever(fc->flow, n->cur));
	case CXCursor_ForStmt:
	case CXCursor_CXXForRangeStmt: {
		/* init; cond; inc; body - children present only when written */
		if (n->nkid < 1)
			return s;
		return walk_loop(w, n->kid[n->nkid - 1], n->kid, n->nkid - 1,
				 NULL, 0, s, 0,
				 n->kind == CXCursor_ForStmt &&
				 dft_cflow_loop_forever(fc->flow, n->cur));
	}
	case CXCursor_DoStmt:
		if (n->nkid < 2)
			return walk_kids(w, n, s);
		return walk_loop(w, n->kid[0], NULL, 0, n->kid + 1,
				 n->nkid - 1, s, 1,
				 dft_cflow_loop_forever(fc->flow, n->cur));
	case CXCursor_SwitchStmt: {
		stset save_b = w->brk, save_e = w->sw_entry, out;
		int save_sw = w->in_switch, has_default;
		struct node *body = last_kid(n);
		char *t;

		for (i = 0; i + 1 < n->nkid; i++)
			s = walk_stmt(w, n->kid[i], s);
		w->brk = 0;
		w->sw_entry = s;
		w->in_switch = 1;
		out = walk_stmt(w, body, 0);
		/* default: present when the text has the keyword */
		t = dft_xstrndup(fc->text + body->off,
				 body->end > body->off && body->end <= fc->n ?
					 body->end - body->off : 0);
		has_default = strstr(t, "default") != NULL;
		free(t);
		out |= w->brk;
		if (!has_default)
			out |= s;
		w->brk = save_b;
		w->sw_entry = save_e;
		w->in_switch = save_sw;
		return out;
	}
	case CXCursor_CaseStmt:
	case CXCursor_DefaultStmt:
		s |= w->sw_entry;
		return n->nkid ? walk_stmt(w, last_kid(n), s) : s;
	case CXCursor_BreakStmt:
		w->brk |= s;
		return 0;
	case CXCursor_ContinueStmt:
		w->cont |= s;
		return 0;
	case CXCursor_LabelStmt: {
		char key[32];
		json_object *v;

		snprintf(key, sizeof(key), "%u", n->off);
		if (json_object_object_get_ex(w->labels, key, &v))
			s |= (stset)json_object_get_int64(v);
		return n->nkid ? walk_stmt(w, last_kid(n), s) : s;
	}
	case CXCursor_GotoStmt: {
		CXCursor l = clang_getCursorReferenced(n->cur);
		char key[32];
		json_object *v;
		stset old = 0;
		unsigned off, line, col;
		int mf;

		if (clang_Cursor_isNull(l))
			return 0;
		loc_of(fc, clang_getRangeStart(clang_getCursorExtent(l)),
		       &off, &line, &col, &mf);
		snprintf(key, sizeof(key), "%u", off);
		if (json_object_object_get_ex(w->labels, key, &v))
			old = (stset)json_object_get_int64(v);
		if ((old | s) != old) {
			json_object_object_add(w->labels, key,
					       dft_jint((int64_t)(old | s)));
			w->labels_changed = 1;
		}
		return 0;
	}
	case CXCursor_IndirectGotoStmt:
		return 0;
	case CXCursor_CXXThrowExpr:
		walk_kids(w, n, s);
		return 0;	/* exceptions are not followed */
	case CXCursor_ConditionalOperator:
		if (n->nkid == 3) {
			s = walk_stmt(w, n->kid[0], s);
			return walk_stmt(w, n->kid[1], s) |
			       walk_stmt(w, n->kid[2], s);
		}
		return walk_kids(w, n, s);
	case CXCursor_BinaryOperator:
		if (n->nkid == 2) {
			/* && and ||: the right side may not run */
			unsigned k;
			int logical = 0;

			for (k = n->kid[0]->end; k + 1 < n->kid[1]->off &&
			     k + 1 < fc->n && !n->in_macro; k++)
				if ((fc->text[k] == '&' &&
				     fc->text[k + 1] == '&') ||
				    (fc->text[k] == '|' &&
				     fc->text[k + 1] == '|'))
					logical = 1;
			s = walk_stmt(w, n->kid[0], s);
			if (logical)
				return s | walk_stmt(w, n->kid[1], s);
			return walk_stmt(w, n->kid[1], s);
		}
		return walk_kids(w, n, s);
	case CXCursor_CXXTryStmt: {
		/* a handler starts from any state inside the try block */
		stset all = s, out, save = w->try_seen;

		if (n->nkid < 1)
			return s;
		w->try_seen = 0;
		w->try_depth++;
		out = walk_stmt(w, n->kid[0], s);
		w->try_depth--;
		all |= out | w->try_seen;
		w->try_seen |= save;
		for (i = 1; i < n->nkid; i++)
			out |= walk_stmt(w, n->kid[i], all);
		return out;
	}
	default:
		return walk_kids(w, n, s);
	}
}

/* ---- per function ------------------------------------------------------- */

/* L2 and L5 on the body's statements; returns 1 when instrumented. */
static int
check_starts(struct file_ctx *fc, struct node *body, int is_main)
{
	int i, j, found = 0;

	(void)is_main;
	for (i = 0; i < body->nkid; i++) {
		struct node *k = body->kid[i];
		int raii = 0, has_start = 0;

		if (k->kind == CXCursor_DeclStmt)
			for (j = 0; j < k->nkid; j++)
				if (is_start_decl(k->kid[j], &raii))
					has_start = 1;
		if (!has_start)
			continue;
		found = 1;
		for (j = i + 1; j < body->nkid && j <= i + 3; j++) {
			struct node *u = body->kid[j];

			if (u->end > u->off && u->end <= fc->n &&
			    memmem(fc->text + u->off, u->end - u->off,
				   "\"comp\"", 6))
				break;
		}
		if (j > i + 3 || j >= body->nkid)
			diag(fc, k->line, k->col, "L2", "error",
			     "START without its \"comp\" UPDATE right after "
			     "it");
	}
	return found;
}

/* START anywhere below a nested scope: L5. */
static void
check_nested(struct file_ctx *fc, struct node *n, int depth, int *found)
{
	int i, raii;

	if (n->kind == CXCursor_VarDecl && is_start_decl(n, &raii)) {
		*found = 1;
		if (depth > 1)
			diag(fc, n->line, n->col, "L5", "error",
			     "START in a nested scope: START and every END "
			     "must be in the function's own scope");
	}
	if (depth > 1 && is_fini_guard(n))
		diag(fc, n->line, n->col, "L3", "error",
		     "FINI guard in a nested scope: FINI runs at the end "
		     "of that block");
	for (i = 0; i < n->nkid; i++)
		check_nested(fc, n->kid[i],
			     depth + (n->kid[i]->kind == CXCursor_CompoundStmt),
			     found);
}

static int
has_instr_call(struct node *n)
{
	int i;

	if (n->kind == CXCursor_CallExpr) {
		char *nm = callee_name(n->cur);
		int r = dft_has_prefix(nm, "dft_stub_");

		free(nm);
		if (r)
			return 1;
	}
	for (i = 0; i < n->nkid; i++)
		if (has_instr_call(n->kid[i]))
			return 1;
	return 0;
}

static void
check_function(struct file_ctx *fc, CXCursor fn)
{
	struct node *root, *body = NULL, *top = NULL;
	struct build_ctx b;
	struct walk w;
	char *name = dft_cflow_spelling(fn);
	int i, is_main, found = 0, it;
	stset end;
	CXString q;

	root = node_new(fc, fn);
	b.fc = fc;
	b.parent = root;
	clang_visitChildren(fn, build_visit, &b);
	/* the body, or the try block of a function-try-block (top: what
	 * the walk starts from, the try statement with its handlers) */
	for (i = 0; i < root->nkid; i++)
		if (root->kid[i]->kind == CXCursor_CompoundStmt)
			body = top = root->kid[i];
		else if (root->kid[i]->kind == CXCursor_CXXTryStmt &&
			 root->kid[i]->nkid > 0 &&
			 root->kid[i]->kid[0]->kind == CXCursor_CompoundStmt)
			top = root->kid[i], body = top->kid[0];
	if (!body || body->in_macro) {
		free(name);
		node_free(root);
		return;
	}
	q = clang_getCursorDisplayName(fn);
	clang_disposeString(q);
	fc->fn = name;
	is_main = !strcmp(name, "main") &&
		  clang_getCursorKind(clang_getCursorSemanticParent(fn)) ==
			  CXCursor_TranslationUnit;
	check_nested(fc, body, 1, &found);
	if (!found && !has_instr_call(body)) {
		fc->fn = NULL;
		free(name);
		node_free(root);
		return;
	}
	check_starts(fc, body, is_main);
	/* L8: dft-cost said no */
	if (!is_main && found) {
		char *key = dft_xasprintf("%s\n%s\n%u", fc->t->file, name,
					  root->line);
		json_object *v;

		if (json_object_object_get_ex(decisions, key, &v) &&
		    !json_object_get_boolean(v))
			diag(fc, root->line, root->col, "L8", "error",
			     "instrumented although dft-cost decided to skip "
			     "it");
		free(key);
	}
	memset(&w, 0, sizeof(w));
	w.fc = fc;
	w.is_main = is_main;
	w.init_only = is_main && !found;
	for (i = body->nkid - 1; i >= 0 && w.ntail < 4; i--) {
		struct node *k = body->kid[i];

		if (is_region_end(k))
			w.tail[w.ntail++] = k;
		else if (k->kind != CXCursor_CallExpr || !has_instr_call(k))
			break;
	}
	w.labels = json_object_new_object();
	fc->report = 0;
	for (it = 0; it < 6; it++) {
		w.labels_changed = 0;
		w.starts = w.inits = w.raii_starts = 0;
		walk_stmt(&w, top, ST(R_NONE, I_NO, 0));
		if (!w.labels_changed)
			break;
	}
	fc->report = 1;
	w.starts = w.inits = w.raii_starts = 0;
	end = walk_stmt(&w, top, ST(R_NONE, I_NO, 0));
	if (end) {
		unsigned line = 0, col = 0, off;
		int mf;

		loc_of(fc, clang_getRangeEnd(clang_getCursorExtent(top->cur)),
		       &off, &line, &col, &mf);
		if (col > 1)
			col--;
		if (any(end, 0, R_OPEN))
			diag(fc, line, col, "L6", "error",
			     "falls through the closing brace without END");
		if (is_main && any(end, 1, I_YES) && !w.init_only)
			diag(fc, line, col, "L3", "error",
			     "main falls through after INIT without FINI");
	}
	if (is_main && w.starts && !w.inits)
		diag(fc, root->line, root->col, "L1", "error",
		     "main is instrumented but never calls INIT");
	json_object_put(w.labels);
	fc->fn = NULL;
	free(name);
	node_free(root);
}

static enum CXChildVisitResult
top_visit(CXCursor c, CXCursor parent, CXClientData data)
{
	struct file_ctx *fc = data;
	enum CXCursorKind k = clang_getCursorKind(c);

	(void)parent;
	if (!clang_Location_isFromMainFile(clang_getCursorLocation(c)))
		return CXChildVisit_Continue;
	if (dft_cflow_holds_functions(k))
		return CXChildVisit_Recurse;
	if (dft_cflow_is_function(k) && clang_isCursorDefinition(c))
		check_function(fc, c);
	return CXChildVisit_Continue;
}

/* ---- per file ----------------------------------------------------------- */

static char *stub_dir;

static int
make_stub_dir(void)
{
	char tmpl[] = "/tmp/dft-lint.XXXXXX";
	char *stub = dft_share_path("dftracer_stub.h"), *d, *l;

	if (!stub) {
		dft_warn("cannot find share/dft/dftracer_stub.h");
		return -1;
	}
	if (!mkdtemp(tmpl)) {
		dft_warn("cannot create a temporary directory:");
		free(stub);
		return -1;
	}
	stub_dir = dft_xstrdup(tmpl);
	d = dft_path_join(stub_dir, "dftracer");
	l = dft_path_join(d, "dftracer.h");
	if (mkdir(d, 0700) < 0 || symlink(stub, l) < 0) {
		dft_warn("cannot prepare the stub header:");
		free(stub), free(d), free(l);
		return -1;
	}
	free(stub), free(d), free(l);
	return 0;
}

static char **
args_for(const struct target *t, const struct dft_compdb *db,
	 const struct opts *o, int *argc)
{
	char **base = NULL, **v;
	const char *lang;
	size_t i;
	int n = 0, k;

	for (i = 0; db && i < db->n && !base; i++)
		if (!strcmp(db->cmds[i].file, t->path) ||
		    (t->src && !strcmp(db->cmds[i].file, t->src)))
			base = dft_compdb_clang_args(&db->cmds[i], &lang);
	if (!base) {
		char *dir = dft_xstrdup(t->path);

		*strrchr(dir, '/') = '\0';
		base = dft_xcalloc(4, sizeof(char *));
		base[0] = dft_xasprintf("-I%s", dir);
		if (t->src) {
			char *sd = dft_xstrdup(t->src);

			*strrchr(sd, '/') = '\0';
			base[1] = dft_xasprintf("-I%s", sd);
			free(sd);
		}
		free(dir);
	}
	while (base[n])
		n++;
	v = dft_xcalloc((size_t)n + (size_t)o->nextra + 4, sizeof(char *));
	*argc = 0;
	v[(*argc)++] = dft_xasprintf("-I%s", stub_dir);
	for (k = 0; k < n; k++)
		v[(*argc)++] = base[k];
	for (k = 0; k < o->nextra; k++)
		v[(*argc)++] = dft_xstrdup(o->extra[k]);
	free(base);
	return v;
}

static int py_lint(struct file_ctx *fc);

static void
lint_file(const struct target *t, CXIndex idx, const struct dft_compdb *db,
	  const struct opts *o)
{
	struct file_ctx fc;
	char **argv;
	int argc, k;
	unsigned d, nd;
	enum CXErrorCode err;

	memset(&fc, 0, sizeof(fc));
	fc.t = t;
	fc.report = 1;
	fc.seen = json_object_new_object();
	fc.text = dft_read_file(t->path, &fc.n);
	if (!fc.text) {
		diag(&fc, 0, 0, "syntax", "error", "cannot read the file: %s",
		     strerror(errno));
		json_object_put(fc.seen);
		return;
	}
	if (dft_has_suffix(t->path, ".py")) {
		py_lint(&fc);
		goto out;
	}
	argv = args_for(t, db, o, &argc);
	err = clang_parseTranslationUnit2(idx, t->path,
					  (const char *const *)argv, argc,
					  NULL, 0, CXTranslationUnit_KeepGoing,
					  &fc.tu);
	for (k = 0; k < argc; k++)
		free(argv[k]);
	free(argv);
	if (err != CXError_Success || !fc.tu) {
		diag(&fc, 0, 0, "syntax", "error",
		     "libclang could not parse the file (error %d)", (int)err);
		goto out;
	}
	fc.file = clang_getFile(fc.tu, t->path);
	nd = clang_getNumDiagnostics(fc.tu);
	for (d = 0; d < nd; d++) {
		CXDiagnostic g = clang_getDiagnostic(fc.tu, d);
		enum CXDiagnosticSeverity sev = clang_getDiagnosticSeverity(g);

		if (sev >= CXDiagnostic_Error) {
			CXString s = clang_getDiagnosticSpelling(g);
			const char *m = clang_getCString(s);

			/* flags only GCC knows: about the command, not the file */
			if (m && (dft_has_prefix(m, "unknown argument") ||
				  dft_has_prefix(m, "unsupported option") ||
				  dft_has_prefix(m, "optimization flag") ||
				  dft_has_prefix(m, "argument unused"))) {
				clang_disposeString(s);
				clang_disposeDiagnostic(g);
				continue;
			}
			CXFile f;
			unsigned line, col, off;

			clang_getExpansionLocation(clang_getDiagnosticLocation(g),
						   &f, &line, &col, &off);
			diag(&fc, line, col, "syntax", "error", "%s%s",
			     f && !clang_File_isEqual(f, fc.file) ?
				     "(in an included file) " : "",
			     clang_getCString(s));
			clang_disposeString(s);
		}
		clang_disposeDiagnostic(g);
	}
	fc.flow = dft_cflow_new(fc.tu);
	clang_visitChildren(clang_getTranslationUnitCursor(fc.tu), top_visit,
			    &fc);
	dft_cflow_free(fc.flow);
	clang_disposeTranslationUnit(fc.tu);
out:
	free((char *)fc.text);
	json_object_put(fc.seen);
}

/* ---- Python ------------------------------------------------------------- */

static int
py_lint(struct file_ctx *fc)
{
	char *helper = dft_share_path("dft_pyannotate.py");
	char out[] = "/tmp/dft-lint-py.XXXXXX";
	const char *argv[6];
	struct dft_proc_opts po;
	int fd, status = 0;
	char *res;
	size_t len;

	if (!helper) {
		diag(fc, 0, 0, "syntax", "error",
		     "cannot find share/dft/dft_pyannotate.py");
		return -1;
	}
	fd = mkstemp(out);
	if (fd < 0) {
		free(helper);
		return -1;
	}
	close(fd);
	argv[0] = "python3";
	argv[1] = helper;
	argv[2] = "lint";
	argv[3] = fc->t->path;
	argv[4] = NULL;
	memset(&po, 0, sizeof(po));
	po.output_path = out;
	po.timeout_s = 120;
	if (dft_run(argv, &po, &status) < 0) {
		diag(fc, 0, 0, "syntax", "error", "cannot run python3: %s",
		     strerror(errno));
		unlink(out);
		free(helper);
		return -1;
	}
	res = dft_read_file(out, &len);
	unlink(out);
	free(helper);
	if (res) {
		char *line = res, *nl;

		for (; *line; line = nl ? nl + 1 : line + strlen(line)) {
			json_object *o;

			nl = strchr(line, '\n');
			if (nl)
				*nl = '\0';
			o = json_tokener_parse(line);
			if (!o)
				continue;
			diag(fc, (unsigned)dft_json_int(o, "line", 0),
			     (unsigned)dft_json_int(o, "col", 0),
			     dft_json_str(o, "rule", "syntax"),
			     dft_json_str(o, "severity", "error"), "%s",
			     dft_json_str(o, "message", ""));
			json_object_put(o);
			if (!nl)
				break;
		}
		free(res);
	}
	return 0;
}

/* ---- main --------------------------------------------------------------- */

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "compile-db", required_argument, NULL, 'p' },
		{ "prefix-map", required_argument, NULL, 'M' },
		{ NULL, 0, NULL, 0 }
	};
	struct opts o = { NULL, NULL, 0, NULL, 0 };
	struct dft_step step;
	struct dft_compdb db;
	char **streams;
	int nstreams = 0, nsrc = 0, c, i, status = DFT_EXIT_OK, dashdash = -1;
	size_t k;
	CXIndex idx;
	json_object *st;

	dft_init("dft-lint");
	/* flags after "--" go to the compiler; find them before getopt */
	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--")) {
			dashdash = i;
			break;
		}
	if (dashdash > 0) {
		o.extra = argv + dashdash + 1;
		o.nextra = argc - dashdash - 1;
		argc = dashdash;
	}
	while ((c = dft_getopt(argc, argv, "hVp:", longopts)) != -1) {
		switch (c) {
		case 'h':
			return dft_help(usage_text, help_text);
		case 'V':
			return dft_version();
		case 'p':
			o.compdb = optarg;
			break;
		case 'M':
			if (dft_prefix_maps_add(&o.maps, &o.nmaps, optarg) < 0)
				dft_bad_value(usage_text, "--prefix-map", optarg,
					      "OLD=NEW");
			break;
		default:
			dft_option_error(usage_text, c, argv, longopts);
		}
	}
	if (o.compdb && !dft_exists(o.compdb))
		dft_bad_value(usage_text, "--compile-db", o.compdb,
			      "compile_commands.json or its directory");
	decisions = json_object_new_object();
	diags = json_object_new_array();
	dft_step_begin(&step, "lint");
	streams = dft_xcalloc((size_t)argc + 1, sizeof(char *));
	for (i = optind; i < argc; i++) {
		if (dft_is_source(argv[i])) {
			add_target(argv[i], NULL, argv[i], NULL);
			nsrc++;
		} else {
			streams[nstreams++] = argv[i];
		}
	}
	if (nstreams > 0 || nsrc == 0)
		status = dft_each_input(nstreams, streams, on_input, NULL);
	free(streams);

	dft_compdb_init(&db);
	{
		const char *p = o.compdb ? o.compdb : session_db;

		/* the database of the records is a hint; --compile-db not */
		if (p && dft_compdb_open(&db, p, NULL) < 0 && o.compdb)
			return DFT_EXIT_FATAL;
	}
	dft_compdb_map(&db, o.maps, o.nmaps);
	if (ntargets && make_stub_dir() < 0)
		return DFT_EXIT_FATAL;
	idx = clang_createIndex(0, 0);
	for (k = 0; k < ntargets; k++)
		lint_file(&targets[k], idx, &db, &o);
	clang_disposeIndex(idx);
	for (k = 0; k < json_object_array_length(diags); k++)
		dft_emit(stdout, json_object_array_get_idx(diags, k));
	if (nerrors)
		status = dft_worst(status, DFT_EXIT_DATA);
	st = dft_step_end(&step, nerrors ? "failed" : status ? "partial" : "ok");
	json_object_object_add(st, "files", dft_jint((int64_t)ntargets));
	json_object_object_add(st, "errors", dft_jint(nerrors));
	json_object_object_add(st, "warnings", dft_jint(nwarnings));
	dft_emit_put(stdout, st);
	if (stub_dir) {
		dft_rm_rf(stub_dir);
		free(stub_dir);
	}
	for (k = 0; k < ntargets; k++) {
		free(targets[k].path);
		free(targets[k].src);
		free(targets[k].file);
		free(targets[k].root);
	}
	free(targets);
	free(session_db);
	json_object_put(decisions);
	json_object_put(diags);
	dft_compdb_release(&db);
	dft_prefix_maps_free(o.maps, o.nmaps);
	return dft_worst(status, dft_close_stdout());
}
