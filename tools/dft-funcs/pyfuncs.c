/*
 * pyfuncs.c - Python function definitions with a tokenizer of our own.
 *
 * No Python is needed: the file is split into tokens (names, numbers,
 * strings with every prefix and triple quotes, operators, comments
 * skipped), tokens into logical lines (brackets and backslashes join
 * lines), logical lines into simple statements (a compound header ends at
 * its colon; ';' separates).  An indentation stack gives class nesting,
 * decorators and the extent of each def.  The `if __name__ == "__main__":`
 * block is reported as a function named __main__.
 * This is not a full parser: it does not check the grammar, only
 * unterminated strings and brackets and inconsistent dedents.
 */
#include <stdlib.h>
#include <string.h>

#include "funcs.h"

#define FN(f) (&(f)->job->fns[(f)->fnidx])

enum { T_NAME, T_NUM, T_STR, T_OP };

struct tok {
	int type;
	size_t s, e;		/* byte range */
};

struct lline {
	size_t t0, nt;		/* tokens */
	int indent;
	size_t bol;		/* offset of the beginning of the line */
};

struct pyctx {
	const char *b;
	size_t len;
	size_t *lines;
	size_t nlines;
	struct tok *t;
	size_t nt, capt;
	struct lline *ll;
	size_t nll, capll;
	int err;
	size_t err_off;
	const char *err_msg;
};

static int
pid(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_' || c >= 0x80;
}

static void
add_tok(struct pyctx *p, int type, size_t s, size_t e)
{
	if (p->nt == p->capt) {
		p->capt = p->capt ? p->capt * 2 : 256;
		p->t = dft_xreallocarray(p->t, p->capt, sizeof(*p->t));
	}
	p->t[p->nt].type = type;
	p->t[p->nt].s = s;
	p->t[p->nt].e = e;
	p->nt++;
}

static void
end_line(struct pyctx *p, size_t t0, int indent, size_t bol)
{
	if (p->nt == t0)
		return;
	if (p->nll == p->capll) {
		p->capll = p->capll ? p->capll * 2 : 64;
		p->ll = dft_xreallocarray(p->ll, p->capll, sizeof(*p->ll));
	}
	p->ll[p->nll].t0 = t0;
	p->ll[p->nll].nt = p->nt - t0;
	p->ll[p->nll].indent = indent;
	p->ll[p->nll].bol = bol;
	p->nll++;
}

static void
tokenize(struct pyctx *p)
{
	const char *b = p->b;
	size_t i = 0, n = p->len, t0 = 0, bol = 0;
	int depth = 0, indent = 0, at_bol = 1;

	while (i < n) {
		unsigned char c = (unsigned char)b[i];

		if (at_bol) {
			int col = 0;

			bol = i;
			while (i < n && (b[i] == ' ' || b[i] == '\t' ||
					 b[i] == '\f')) {
				col = b[i] == '\t' ? (col / 8 + 1) * 8 : col + 1;
				i++;
			}
			indent = col;
			at_bol = 0;
			t0 = p->nt;
			continue;
		}
		if (c == '\n' || c == '\r') {
			i += (c == '\r' && i + 1 < n && b[i + 1] == '\n') ? 2 : 1;
			if (depth == 0) {
				end_line(p, t0, indent, bol);
				at_bol = 1;
			}
			continue;
		}
		if (c == ' ' || c == '\t' || c == '\f') {
			i++;
			continue;
		}
		if (c == '#') {
			while (i < n && b[i] != '\n' && b[i] != '\r')
				i++;
			continue;
		}
		if (c == '\\' && i + 1 < n && (b[i + 1] == '\n' || b[i + 1] == '\r')) {
			i += 2;
			if (b[i - 1] == '\r' && i < n && b[i] == '\n')
				i++;
			continue;
		}
		/* string, with up to two prefix letters */
		{
			size_t q = i, k = 0;

			while (k < 2 && q < n && strchr("rRbBuUfF", b[q]) &&
			       b[q] != '\0')
				q++, k++;
			if (q < n && (b[q] == '\'' || b[q] == '"') &&
			    (k == 0 || !(i > 0 && pid((unsigned char)b[i - 1])))) {
				char qc = b[q];
				int triple = q + 2 < n && b[q + 1] == qc &&
					     b[q + 2] == qc;
				size_t s = i;

				q += triple ? 3 : 1;
				for (;;) {
					if (q >= n) {
						p->err = 1;
						p->err_off = s;
						p->err_msg = "unterminated string";
						add_tok(p, T_STR, s, n);
						i = n;
						goto done;
					}
					if (b[q] == '\\') {
						q += 2;
						continue;
					}
					if (!triple && (b[q] == '\n')) {
						p->err = 1;
						p->err_off = s;
						p->err_msg = "unterminated string";
						break;
					}
					if (b[q] == qc && (!triple ||
					    (q + 2 < n && b[q + 1] == qc &&
					     b[q + 2] == qc))) {
						q += triple ? 3 : 1;
						break;
					}
					q++;
				}
				add_tok(p, T_STR, s, q);
				i = q;
				continue;
			}
		}
		if (pid(c) && !(c >= '0' && c <= '9')) {
			size_t s = i;

			while (i < n && pid((unsigned char)b[i]))
				i++;
			add_tok(p, T_NAME, s, i);
			continue;
		}
		if ((c >= '0' && c <= '9') ||
		    (c == '.' && i + 1 < n && b[i + 1] >= '0' && b[i + 1] <= '9')) {
			size_t s = i;

			while (i < n && (pid((unsigned char)b[i]) || b[i] == '.'))
				i++;
			add_tok(p, T_NUM, s, i);
			continue;
		}
		if (c == '(' || c == '[' || c == '{')
			depth++;
		else if ((c == ')' || c == ']' || c == '}') && depth > 0)
			depth--;
		if ((c == '-' && i + 1 < n && b[i + 1] == '>') ||
		    (c == ':' && i + 1 < n && b[i + 1] == '=') ||
		    (c == '*' && i + 1 < n && b[i + 1] == '*')) {
			add_tok(p, T_OP, i, i + 2);
			i += 2;
			continue;
		}
		add_tok(p, T_OP, i, i + 1);
		i++;
	}
done:
	if (!at_bol)
		end_line(p, t0, indent, bol);
	if (depth > 0 && !p->err) {
		p->err = 1;
		p->err_off = n;
		p->err_msg = "unclosed bracket at end of file";
	}
}

/* ---- the structure -------------------------------------------------------- */

static int
teq(const struct pyctx *p, size_t k, const char *s)
{
	size_t n = strlen(s);

	return k < p->nt && p->t[k].e - p->t[k].s == n &&
	       memcmp(p->b + p->t[k].s, s, n) == 0;
}

static char *
ttext(const struct pyctx *p, size_t a, size_t e)
{
	return dft_xstrndup(p->b + a, e - a);
}

struct pyfn {
	struct job *job;
	size_t fnidx;
	json_object *rec, *exits, *calls, *decos;
	int indent;		/* of the def line */
	int is_class;
	char *name, *qual;
	size_t last_end;
	long loops, branches, stmts, nodes, ncalls;
	int has_value_ret;
	int body_seen;
	size_t ioapi_n;
	json_object *ioapis;
};

static json_object *
ppos(struct pyctx *p, size_t off)
{
	return jpos(p->b, p->len, p->lines, p->nlines, off);
}

static const char *const keywords[] = {
	"if", "elif", "while", "for", "return", "not", "and", "or", "in",
	"is", "lambda", "yield", "await", "assert", "del", "print_", "with",
	"except", "raise", "import", "from", "as", "else", "class", "def",
	"global", "nonlocal", "pass", "break", "continue", "try", "finally",
	"async", "None", "True", "False", NULL
};

static int
is_kw(const struct pyctx *p, size_t k)
{
	int i;

	for (i = 0; keywords[i]; i++)
		if (teq(p, k, keywords[i]))
			return 1;
	return 0;
}

/* Counts one simple statement [a, e) of function f. */
static void
py_stmt(struct pyctx *p, struct pyfn *f, size_t a, size_t e, int own_line,
	const char *file_hint)
{
	size_t k;

	(void)file_hint;
	f->stmts++;
	if (teq(p, a, "for") || teq(p, a, "while") ||
	    (teq(p, a, "async") && teq(p, a + 1, "for")))
		f->loops++;
	if (teq(p, a, "if") || teq(p, a, "elif"))
		f->branches++;
	for (k = a; k < e; k++) {
		const struct tok *t = &p->t[k];

		if (t->type != T_OP || !strchr(",()[]{}:", p->b[t->s]))
			f->nodes++;
	}
	if (teq(p, a, "return")) {
		json_object *x = json_object_new_object(), *q = ppos(p, p->t[a].s);

		json_object_object_add(x, "kind", dft_jstr("return"));
		json_object_object_foreach(q, qk, qv)
			json_object_object_add(x, qk, json_object_get(qv));
		json_object_put(q);
		json_object_object_add(x, "end", dft_jint((int64_t)p->t[e - 1].e));
		json_object_object_add(x, "has_value",
				       json_object_new_boolean(e > a + 1));
		if (e > a + 1) {
			json_object *v = ppos(p, p->t[a + 1].s);

			json_object_object_add(v, "end",
					       dft_jint((int64_t)p->t[e - 1].e));
			json_object_object_add(x, "value", v);
			if (!(e == a + 2 && teq(p, a + 1, "None")))
				f->has_value_ret = 1;
		}
		json_object_object_add(x, "in_macro", json_object_new_boolean(0));
		json_object_object_add(x, "parent",
				       dft_jstr(own_line ? "compound" : "other"));
		json_object_array_add(f->exits, x);
	}
	/* calls: NAME ( , not after def/class */
	for (k = a; k + 1 < e; k++) {
		char *name, *dotted;
		size_t s = k;
		json_object *cnt;
		const char *fam;

		if (p->t[k].type != T_NAME || !teq(p, k + 1, "(") || is_kw(p, k))
			continue;
		if (k > a && (teq(p, k - 1, "def") || teq(p, k - 1, "class")))
			continue;
		while (s >= a + 2 && teq(p, s - 1, ".") &&
		       p->t[s - 2].type == T_NAME)
			s -= 2;
		name = ttext(p, p->t[k].s, p->t[k].e);
		dotted = ttext(p, p->t[s].s, p->t[k].e);
		f->ncalls++;
		if (json_object_object_get_ex(f->calls, name, &cnt))
			json_object_set_int64(cnt, json_object_get_int64(cnt) + 1);
		else
			json_object_object_add(f->calls, name, dft_jint(1));
		fn_add_callee(FN(f), name);
		fam = io_api_family_py(name);
		if (fam) {
			char *api = dft_xasprintf("%s:%s", fam, dotted);
			size_t i, nn = json_object_array_length(f->ioapis);
			int dup = 0;

			for (i = 0; i < nn && !dup; i++)
				dup = strcmp(api, json_object_get_string(
					json_object_array_get_idx(f->ioapis, i))) == 0;
			if (!dup)
				json_object_array_add(f->ioapis, dft_jstr(api));
			free(api);
		}
		if (strcmp(dotted, "sys.exit") == 0 ||
		    strcmp(dotted, "exit") == 0 || strcmp(dotted, "quit") == 0 ||
		    strcmp(dotted, "os._exit") == 0) {
			json_object *x = json_object_new_object();
			json_object *q = ppos(p, p->t[s].s);
			size_t close = k + 1;
			int d = 0;

			for (; close < e; close++) {
				if (teq(p, close, "("))
					d++;
				else if (teq(p, close, ")") && --d == 0)
					break;
			}
			if (close >= e)
				close = e - 1;
			json_object_object_add(x, "kind",
					       dft_jstr("raise_systemexit"));
			json_object_object_add(x, "callee", dft_jstr(dotted));
			json_object_object_foreach(q, qk, qv)
				json_object_object_add(x, qk, json_object_get(qv));
			json_object_put(q);
			json_object_object_add(x, "end",
				dft_jint((int64_t)p->t[close].e));
			json_object_object_add(x, "has_value",
					       json_object_new_boolean(0));
			json_object_object_add(x, "in_macro",
					       json_object_new_boolean(0));
			json_object_object_add(x, "parent", dft_jstr(
				own_line && s == a ? "compound" : "other"));
			json_object_array_add(f->exits, x);
		}
		free(name);
		free(dotted);
	}
}

/* The depth-0 ':' that ends a compound header in [a, e), or e. */
static size_t
header_colon(const struct pyctx *p, size_t a, size_t e)
{
	size_t k;
	int d = 0, lambdas = 0;

	for (k = a; k < e; k++) {
		char c = p->b[p->t[k].s];

		if (p->t[k].type == T_OP && (c == '(' || c == '[' || c == '{'))
			d++;
		else if (p->t[k].type == T_OP && (c == ')' || c == ']' || c == '}'))
			d--;
		else if (d == 0 && teq(p, k, "lambda"))
			lambdas++;
		else if (d == 0 && teq(p, k, ":")) {
			if (lambdas) {
				lambdas--;
				continue;
			}
			return k;
		}
	}
	return e;
}

static int
starts_compound(const struct pyctx *p, size_t a)
{
	static const char *const c[] = {
		"if", "elif", "else", "for", "while", "with", "try", "except",
		"finally", "def", "class", "async", "match", "case", NULL
	};
	int i;

	if (p->t[a].type != T_NAME)
		return 0;
	for (i = 0; c[i]; i++)
		if (teq(p, a, c[i])) {
			/* "match"/"case" are soft keywords: need a colon */
			return 1;
		}
	return 0;
}

/* Statements of a logical line [a, e) for function f (may be NULL). */
static void
py_line_stmts(struct pyctx *p, struct pyfn *f, size_t a, size_t e)
{
	int own = 1;

	while (a < e) {
		size_t s = a, k;

		if (starts_compound(p, a)) {
			size_t col = header_colon(p, a, e);

			if (f)
				py_stmt(p, f, a, col, own, NULL);
			a = col + 1;
			own = 0;
			continue;
		}
		for (k = s; k < e && !teq(p, k, ";"); k++)
			;
		if (f && k > s)
			py_stmt(p, f, s, k, own, NULL);
		a = k + 1;
		own = 0;
	}
}

static const char *const ml_names[] = {
	"torch", "tensorflow", "jax", "keras", "flax", "mxnet", "horovod",
	"deepspeed", "megatron", "lightning", "pytorch_lightning", "dali",
	"dlio_benchmark", "numpy", "h5py", "mpi4py", "transformers",
	"sklearn", "pandas", "numba", "cupy", "tensorstore", "zarr", NULL
};

static void
collect_imports(struct pyctx *p, json_object *ml)
{
	size_t l, k;
	int i;

	for (l = 0; l < p->nll; l++) {
		size_t a = p->ll[l].t0, e = a + p->ll[l].nt;

		if (!teq(p, a, "import") && !teq(p, a, "from"))
			continue;
		for (k = a + 1; k < e; k++) {
			if (p->t[k].type != T_NAME)
				continue;
			if (teq(p, a, "from") && k != a + 1)
				break;
			if (k > a + 1 && (teq(p, k - 1, ".") || teq(p, k - 1, "as")))
				continue;
			for (i = 0; ml_names[i]; i++) {
				size_t m;
				int dup = 0;

				if (!teq(p, k, ml_names[i]) &&
				    !(strcmp(ml_names[i], "dali") == 0 &&
				      teq(p, k, "nvidia") && teq(p, k + 2, "dali")))
					continue;
				for (m = 0; m < json_object_array_length(ml); m++)
					dup |= strcmp(json_object_get_string(
						json_object_array_get_idx(ml, m)),
						ml_names[i]) == 0;
				if (!dup)
					json_object_array_add(ml, dft_jstr(ml_names[i]));
			}
		}
	}
}

static void
finish_fn(struct pyctx *p, struct pyfn *f, json_object *ml)
{
	json_object *r = f->rec, *c;
	size_t end = f->last_end;
	size_t n, i;
	int st = 0, cm = 0, prop = 0, jit = 0;
	static const char *const props[] = {
		"property", "cached_property", "functools.cached_property",
		"abc.abstractproperty", NULL
	};
	static const char *const jits[] = {
		"jit", "njit", "numba.jit", "numba.njit", "numba.vectorize",
		"numba.guvectorize", "numba.cfunc", "numba.stencil",
		"vectorize", "guvectorize", "cuda.jit", "numba.cuda.jit",
		"torch.jit.script", "torch.jit.script_method", "torch.jit.trace",
		"torch.compile", "jax.jit", "tf.function", "tensorflow.function",
		"triton.jit", NULL
	};

	c = json_object_new_object();
	json_object_object_add(c, "open", json_object_get(
		json_object_object_get(r, "_open")));
	json_object_object_add(c, "close", ppos(p, end > 0 ? end - 1 : 0));
	json_object_object_del(r, "_open");
	json_object_object_add(r, "body", c);
	/* keep the field order close to the C records */
	json_object_object_add(r, "end", dft_jint((int64_t)end));
	c = json_object_new_object();
	json_object_object_add(c, "start", json_object_get(json_object_object_get(
		json_object_object_get(r, "signature"), "line")));
	json_object_object_add(c, "end", json_object_get(json_object_object_get(
		json_object_object_get(json_object_object_get(r, "body"),
				       "close"), "line")));
	json_object_object_add(r, "lines", c);
	json_object_object_add(r, "exits", f->exits);
	json_object_object_add(r, "falls_through", json_object_new_boolean(1));
	json_object_object_add(r, "returns_void",
			       json_object_new_boolean(!f->has_value_ret));
	n = json_object_array_length(f->decos);
	for (i = 0; i < n; i++) {
		const char *d = json_object_get_string(
			json_object_array_get_idx(f->decos, i));

		st |= strcmp(d, "staticmethod") == 0;
		cm |= strcmp(d, "classmethod") == 0;
		prop |= dft_in_list(d, props) != NULL ||
			dft_has_suffix(d, ".setter") ||
			dft_has_suffix(d, ".getter") ||
			dft_has_suffix(d, ".deleter");
		jit |= dft_in_list(d, jits) != NULL;
	}
	json_object_object_add(r, "decorators", f->decos);
	json_object_object_add(r, "is_staticmethod", json_object_new_boolean(st));
	json_object_object_add(r, "is_classmethod", json_object_new_boolean(cm));
	json_object_object_add(r, "is_property", json_object_new_boolean(prop));
	json_object_object_add(r, "jit", json_object_new_boolean(jit));
	json_object_object_add(r, "ml_imports", json_object_get(ml));
	json_object_object_add(r, "calls", f->calls);
	json_object_object_add(r, "call_count", dft_jint(f->ncalls));
	json_object_object_add(r, "loops", dft_jint(f->loops));
	json_object_object_add(r, "branches", dft_jint(f->branches));
	json_object_object_add(r, "statements", dft_jint(f->stmts));
	json_object_object_add(r, "nodes", dft_jint(f->nodes + 1));
	FN(f)->io_direct = json_object_array_length(f->ioapis) > 0;
	json_object_object_add(r, "io_direct",
			       json_object_new_boolean(FN(f)->io_direct));
	json_object_object_add(r, "io_apis", f->ioapis);
	json_object_object_add(r, "io_reach", NULL);
	json_object_object_add(r, "io_via", NULL);
	FN(f)->rec = r;
	free(f->name);
	free(f->qual);
}

void
py_extract(struct job *j, const struct fopts *o)
{
	struct pyctx p;
	size_t len = 0, l, k;
	char *buf = dft_read_file(j->file, &len), hash[32], *rel;
	struct pyfn *stk = NULL;
	size_t nstk = 0;
	json_object *decos = NULL, *ml;
	size_t deco_off = 0;

	j->parsed = 1;
	if (!buf) {
		j->failed = 1;
		job_add_diag(j, o, j->file, 0, 0, "parse-failed", "error",
			     "cannot read the file");
		return;
	}
	memset(&p, 0, sizeof(p));
	p.b = buf;
	p.len = len;
	p.lines = line_table(buf, len, &p.nlines);
	tokenize(&p);
	dft_file_hash_str(buf, len, hash, sizeof(hash));
	rel = rel_path(o, j->file);
	if (p.err) {
		json_object *q = ppos(&p, p.err_off);

		j->errors++;
		job_add_diag(j, o, j->file, dft_json_int(q, "line", 0),
			     dft_json_int(q, "col", 0), "parse-error", "error",
			     p.err_msg);
		json_object_put(q);
	}
	ml = json_object_new_array();
	collect_imports(&p, ml);
	stk = dft_xcalloc(p.nll + 2, sizeof(*stk));

	for (l = 0; l <= p.nll; l++) {
		struct lline *L = l < p.nll ? &p.ll[l] : NULL;
		int ind = L ? L->indent : -1;
		size_t a, e, colon, nm;
		int is_async = 0, guard = 0;
		struct pyfn *f;
		struct dft_buf q;

		/* close the blocks this line is not inside of */
		while (nstk > 0 && stk[nstk - 1].indent >= ind) {
			struct pyfn *top = &stk[--nstk];

			if (top->is_class) {
				free(top->name);
				free(top->qual);
				continue;
			}
			finish_fn(&p, top, ml);
			if (nstk > 0)
				stk[nstk - 1].last_end = top->last_end;
		}
		if (!L)
			break;
		a = L->t0;
		e = a + L->nt;
		for (k = 0; k < nstk; k++)
			stk[k].last_end = p.t[e - 1].e;
		if (teq(&p, a, "@")) {
			if (!decos) {
				decos = json_object_new_array();
				deco_off = p.t[a].s;
			}
			for (k = a + 1; k < e && !teq(&p, k, "("); k++)
				;
			json_object_array_add(decos, json_object_new_string_len(
				p.b + p.t[a + 1 < e ? a + 1 : a].s,
				(int)(p.t[k - 1].e - p.t[a + 1 < e ? a + 1 : a].s)));
			continue;
		}
		if (teq(&p, a, "async") && teq(&p, a + 1, "def"))
			is_async = 1;
		if (ind == 0 && teq(&p, a, "if") && L->nt >= 5) {
			/* if __name__ == "__main__": (either order, quotes) */
			size_t c2 = header_colon(&p, a, e);
			struct dft_buf hb;

			dft_buf_init(&hb);
			for (k = a + 1; k < c2; k++)
				if (!teq(&p, k, "(") && !teq(&p, k, ")"))
					dft_buf_add(&hb, p.b + p.t[k].s,
						    p.t[k].e - p.t[k].s);
			guard = strcmp(hb.s, "__name__==\"__main__\"") == 0 ||
				strcmp(hb.s, "__name__=='__main__'") == 0 ||
				strcmp(hb.s, "\"__main__\"==__name__") == 0 ||
				strcmp(hb.s, "'__main__'==__name__") == 0;
			dft_buf_release(&hb);
		}
		if (!guard && !teq(&p, a, "def") && !is_async &&
		    !teq(&p, a, "class")) {
			if (decos) {
				json_object_put(decos);
				decos = NULL;
			}
			/* a statement of the innermost function */
			/* class-level statements belong to no function */
			py_line_stmts(&p, nstk && !stk[nstk - 1].is_class ?
					  &stk[nstk - 1] : NULL, a, e);
			continue;
		}
		f = &stk[nstk];
		memset(f, 0, sizeof(*f));
		f->indent = ind;
		nm = guard ? a : a + 1 + is_async;
		if (teq(&p, a, "class")) {
			f->is_class = 1;
			f->name = ttext(&p, p.t[nm].s, p.t[nm].e);
			dft_buf_init(&q);
			if (nstk > 0)
				dft_buf_addf(&q, "%s.", stk[nstk - 1].qual);
			dft_buf_adds(&q, f->name);
			f->qual = dft_buf_detach(&q);
			nstk++;
			if (decos) {
				json_object_put(decos);
				decos = NULL;
			}
			continue;
		}
		job_add_fn(j);
		f->job = j;
		f->fnidx = j->nfns - 1;
		FN(f)->is_python = 1;
		f->name = guard ? dft_xstrdup("__main__")
				: ttext(&p, p.t[nm].s, p.t[nm].e);
		dft_buf_init(&q);
		if (nstk > 0)
			dft_buf_addf(&q, "%s.", stk[nstk - 1].qual);
		dft_buf_adds(&q, f->name);
		f->qual = dft_buf_detach(&q);
		f->exits = json_object_new_array();
		f->calls = json_object_new_object();
		f->ioapis = json_object_new_array();
		f->decos = decos ? decos : json_object_new_array();
		colon = header_colon(&p, a, e);
		f->rec = json_object_new_object();
		{
			json_object *r = f->rec;
			const char *cls = NULL;
			size_t ra = 0, re = 0;
			int is_method = nstk > 0 && stk[nstk - 1].is_class;

			if (is_method)
				cls = stk[nstk - 1].name;
			json_object_object_add(r, "type", dft_jstr("function"));
			json_object_object_add(r, "v", dft_jint(1));
			json_object_object_add(r, "file", dft_jstr(rel));
			json_object_object_add(r, "root", dft_jstr(o->root));
			json_object_object_add(r, "file_size", dft_jint((int64_t)len));
			json_object_object_add(r, "file_hash", dft_jstr(hash));
			json_object_object_add(r, "language", dft_jstr("python"));
			json_object_object_add(r, "parse_ok",
					       json_object_new_boolean(!p.err));
			json_object_object_add(r, "variants", dft_jint(1));
			json_object_object_add(r, "name", dft_jstr(f->name));
			json_object_object_add(r, "qualified_name", dft_jstr(f->qual));
			{
				char *usr = dft_xasprintf("py:%s:%s", rel, f->qual);

				json_object_object_add(r, "usr", dft_jstr(usr));
				FN(f)->usr = usr;
			}
			json_object_object_add(r, "kind", dft_jstr(
				guard ? "main_guard" : is_async ? "async_def" : "def"));
			json_object_object_add(r, "signature", ppos(&p, p.t[a].s));
			json_object_object_add(r, "name_pos", ppos(&p, p.t[nm].s));
			if (decos)
				json_object_object_add(r, "decorator_pos",
						       ppos(&p, deco_off));
			json_object_object_add(r, "_open", ppos(&p,
				p.t[colon < e ? colon : e - 1].s));
			/* body_first and indent */
			if (colon + 1 < e) {
				json_object_object_add(r, "body_first",
					ppos(&p, p.t[colon + 1].s));
				json_object_object_add(r, "body_indent", dft_jstr(""));
				f->body_seen = 1;
			} else if (l + 1 < p.nll && p.ll[l + 1].indent > ind) {
				struct lline *B = &p.ll[l + 1];

				json_object_object_add(r, "body_first",
					ppos(&p, p.t[B->t0].s));
				json_object_object_add(r, "body_indent",
					json_object_new_string_len(p.b + B->bol,
						(int)(p.t[B->t0].s - B->bol)));
			}
			for (k = a; k < colon; k++)
				if (teq(&p, k, "->")) {
					ra = k + 1;
					re = colon;
				}
			if (ra && re > ra) {
				char *s = ttext(&p, p.t[ra].s, p.t[re - 1].e);

				json_object_object_add(r, "return_type", dft_jstr(s));
				free(s);
			} else {
				json_object_object_add(r, "return_type", NULL);
			}
			json_object_object_add(r, "return_type_canonical", NULL);
			json_object_object_add(r, "is_entry", json_object_new_boolean(
				guard || (nstk == 0 && strcmp(f->name, "main") == 0)));
			json_object_object_add(r, "storage", dft_jstr("none"));
			json_object_object_add(r, "inline", json_object_new_boolean(0));
			json_object_object_add(r, "in_header",
					       json_object_new_boolean(0));
			json_object_object_add(r, "body_from_macro",
					       json_object_new_boolean(0));
			json_object_object_add(r, "returns_in_macro", dft_jint(0));
			json_object_object_add(r, "class", cls ? dft_jstr(cls) : NULL);
			json_object_object_add(r, "is_async",
					       json_object_new_boolean(is_async));
			json_object_object_add(r, "is_method",
					       json_object_new_boolean(is_method));
		}
		FN(f)->name = dft_xstrdup(f->name);
		FN(f)->key = dft_xasprintf("%s:%zu:py", j->file, p.t[a].s);
		f->last_end = p.t[e - 1].e;
		decos = NULL;
		nstk++;
		/* a body on the same line as the header */
		if (colon + 1 < e)
			py_line_stmts(&p, f, colon + 1, e);
	}
	if (decos)
		json_object_put(decos);
	/* the function records point into j->fns; fix up after realloc */
	json_object_put(ml);
	free(stk);
	free(p.t);
	free(p.ll);
	free(p.lines);
	free(rel);
	free(buf);
}
