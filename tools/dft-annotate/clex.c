/*
 * clex.c - a C/C++ lexer and statement splitter for dft-annotate.
 *
 * The function records give the exact positions of bodies and exits; this
 * lexer only serves what they do not carry: the preprocessor structure of
 * the file (where the include may go, which #if branch a position is in),
 * the statements of main (where MPI_Init and MPI_Finalize are) and the
 * exact recognition of our own fragments when stripping.  It understands
 * comments, line splices, string and character literals with prefixes,
 * C++ raw strings and directives; it does not expand macros.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "annotate.h"

static void
tok_push(struct lexed *lx, size_t *cap, size_t off, size_t len, int line,
	 int ctx, enum tk_kind k)
{
	struct tok *t;

	if (lx->nt == *cap) {
		*cap = *cap ? *cap * 2 : 256;
		lx->t = dft_xreallocarray(lx->t, *cap, sizeof(*lx->t));
	}
	t = &lx->t[lx->nt++];
	t->off = off;
	t->len = len;
	t->line = line;
	t->ctx = ctx;
	t->kind = k;
}

/* Skips a line splice at s[i]; returns the new i (and counts the line). */
static size_t
splice(const char *s, size_t n, size_t i, int *line)
{
	while (i + 1 < n && s[i] == '\\' &&
	       (s[i + 1] == '\n' || (s[i + 1] == '\r' && i + 2 < n &&
				     s[i + 2] == '\n'))) {
		i += s[i + 1] == '\n' ? 2 : 3;
		(*line)++;
	}
	return i;
}

/* Skips a comment starting at s[i] ('/' followed by '*' or '/'). */
static size_t
skip_comment(const char *s, size_t n, size_t i, int *line, int *err)
{
	if (s[i + 1] == '*') {
		i += 2;
		while (i + 1 < n && !(s[i] == '*' && s[i + 1] == '/')) {
			if (s[i] == '\n')
				(*line)++;
			i++;
		}
		if (i + 1 >= n) {
			*err = 1;
			return n;
		}
		return i + 2;
	}
	while (i < n && s[i] != '\n') {
		size_t j = splice(s, n, i, line);

		i = j != i ? j : i + 1;
	}
	return i;
}

/* Skips a quoted literal whose opening quote is s[i]. */
static size_t
skip_quoted(const char *s, size_t n, size_t i, int *line, int *err)
{
	char q = s[i++];

	while (i < n && s[i] != q) {
		if (s[i] == '\\' && i + 1 < n) {
			size_t j = splice(s, n, i, line);	/* \ LF, \ CR LF */

			i = j != i ? j : i + 2;
			continue;
		}
		if (s[i] == '\n') {	/* unterminated on this line */
			*err = 1;
			return i;
		}
		i++;
	}
	if (i >= n) {
		*err = 1;
		return n;
	}
	return i + 1;
}

/* Raw string: s[i] is the '"' after R. */
static size_t
skip_raw(const char *s, size_t n, size_t i, int *line, int *err)
{
	char delim[20];
	size_t d = 0, j = i + 1;

	while (j < n && s[j] != '(' && d < sizeof(delim) - 1)
		delim[d++] = s[j++];
	delim[d] = '\0';
	if (j >= n || s[j] != '(') {
		*err = 1;
		return n;
	}
	for (j++; j < n; j++) {
		if (s[j] == '\n')
			(*line)++;
		if (s[j] == ')' && j + 1 + d < n &&
		    memcmp(s + j + 1, delim, d) == 0 && s[j + 1 + d] == '"')
			return j + d + 2;
	}
	*err = 1;
	return n;
}

void
lex_file(struct lexed *lx, const char *s, size_t n)
{
	size_t i = 0, cap = 0, dcap = 0;
	int line = 1, bol = 1, next_id = 0, k;
	int stack[256], sp = 0, nl = 1;

	memset(lx, 0, sizeof(*lx));
	lx->s = s;
	lx->n = n;
	for (i = 0; i < n; i++)
		nl += s[i] == '\n';
	lx->nlines = nl;
	lx->line_ctx = dft_xcalloc((size_t)nl + 2, sizeof(int));
	i = 0;
	while (i < n) {
		char c = s[i];
		int ctx = sp ? stack[sp - 1] : 0;

		if (c == '\n') {
			line++;
			lx->line_ctx[line] = ctx;
			bol = 1;
			i++;
			continue;
		}
		if (c == ' ' || c == '\t' || c == '\r' || c == '\f' ||
		    c == '\v') {
			i++;
			continue;
		}
		if (c == '\\') {
			size_t j = splice(s, n, i, &line);

			if (j != i) {
				i = j;
				continue;
			}
		}
		if (c == '/' && i + 1 < n && (s[i + 1] == '*' ||
					      s[i + 1] == '/')) {
			int l0 = line;

			i = skip_comment(s, n, i, &line, &lx->error);
			for (k = l0 + 1; k <= line; k++)
				lx->line_ctx[k] = ctx;
			continue;
		}
		if (c == '#' && bol) {
			struct directive *d;
			size_t j = i + 1, w = 0;
			int l0 = line;

			if (lx->nd == dcap) {
				dcap = dcap ? dcap * 2 : 64;
				lx->d = dft_xreallocarray(lx->d, dcap,
							  sizeof(*lx->d));
			}
			d = &lx->d[lx->nd++];
			memset(d, 0, sizeof(*d));
			d->off = i;
			d->line = line;
			while (j < n && (s[j] == ' ' || s[j] == '\t'))
				j++;
			while (j < n && isalpha((unsigned char)s[j]) &&
			       w < sizeof(d->name) - 1)
				d->name[w++] = s[j++];
			d->name[w] = '\0';
			/* to the end of the logical line */
			while (j < n && s[j] != '\n') {
				if (s[j] == '\\') {
					size_t k2 = splice(s, n, j, &line);

					if (k2 != j) {
						j = k2;
						continue;
					}
				}
				if (s[j] == '/' && j + 1 < n &&
				    (s[j + 1] == '*' || s[j + 1] == '/')) {
					j = skip_comment(s, n, j, &line,
							 &lx->error);
					continue;
				}
				if (s[j] == '"' || s[j] == '\'') {
					int e = 0;

					/* <x'y.h> or a stray quote in #error */
					j = skip_quoted(s, n, j, &line, &e);
					continue;
				}
				j++;
			}
			d->end = j;
			d->last_line = line;
			if (!strcmp(d->name, "if") || !strcmp(d->name, "ifdef") ||
			    !strcmp(d->name, "ifndef")) {
				if (sp < 256)
					stack[sp++] = ++next_id;
			} else if (!strcmp(d->name, "elif") ||
				   !strcmp(d->name, "else") ||
				   !strcmp(d->name, "elifdef") ||
				   !strcmp(d->name, "elifndef")) {
				if (sp)
					stack[sp - 1] = ++next_id;
			} else if (!strcmp(d->name, "endif")) {
				if (sp)
					sp--;
			}
			d->ctx_after = sp ? stack[sp - 1] : 0;
			for (k = l0 + 1; k <= line; k++)
				lx->line_ctx[k] = ctx;
			i = j;
			continue;
		}
		bol = 0;
		if (isalpha((unsigned char)c) || c == '_' || c == '$') {
			size_t j = i;

			while (j < n && (isalnum((unsigned char)s[j]) ||
					 s[j] == '_' || s[j] == '$'))
				j++;
			/* literal prefixes: L u U u8 R LR uR UR u8R */
			if (j < n && (s[j] == '"' || s[j] == '\'') &&
			    j - i <= 3) {
				char p[4] = { 0 };
				int raw;

				memcpy(p, s + i, j - i);
				raw = p[j - i - 1] == 'R';
				if (raw && s[j] == '"' &&
				    (!strcmp(p, "R") || !strcmp(p, "LR") ||
				     !strcmp(p, "uR") || !strcmp(p, "UR") ||
				     !strcmp(p, "u8R"))) {
					int l0 = line;
					size_t e = skip_raw(s, n, j, &line,
							    &lx->error);

					tok_push(lx, &cap, i, e - i, l0, ctx,
						 TK_STR);
					for (k = l0 + 1; k <= line; k++)
						lx->line_ctx[k] = ctx;
					i = e;
					continue;
				}
				if (!raw && (!strcmp(p, "L") || !strcmp(p, "u") ||
					     !strcmp(p, "U") ||
					     !strcmp(p, "u8"))) {
					int l0 = line;
					size_t e = skip_quoted(s, n, j, &line,
							       &lx->error);

					tok_push(lx, &cap, i, e - i, l0, ctx,
						 s[j] == '"' ? TK_STR :
						 TK_CHR);
					i = e;
					continue;
				}
			}
			tok_push(lx, &cap, i, j - i, line, ctx, TK_ID);
			i = j;
			continue;
		}
		if (isdigit((unsigned char)c) ||
		    (c == '.' && i + 1 < n && isdigit((unsigned char)s[i + 1]))) {
			size_t j = i;

			while (j < n && (isalnum((unsigned char)s[j]) ||
					 s[j] == '.' || s[j] == '_' ||
					 (s[j] == '\'' && j + 1 < n &&
					  isalnum((unsigned char)s[j + 1])) ||
					 ((s[j] == '+' || s[j] == '-') &&
					  strchr("eEpP", s[j - 1]))))
				j++;
			tok_push(lx, &cap, i, j - i, line, ctx, TK_NUM);
			i = j;
			continue;
		}
		if (c == '"' || c == '\'') {
			int l0 = line;
			size_t e = skip_quoted(s, n, i, &line, &lx->error);

			tok_push(lx, &cap, i, e - i, l0, ctx,
				 c == '"' ? TK_STR : TK_CHR);
			i = e;
			continue;
		}
		if (c == ':' && i + 1 < n && s[i + 1] == ':') {
			tok_push(lx, &cap, i, 2, line, ctx, TK_PUNCT);
			i += 2;
			continue;
		}
		tok_push(lx, &cap, i, 1, line, ctx, TK_PUNCT);
		i++;
	}
}

void
lex_release(struct lexed *lx)
{
	free(lx->t);
	free(lx->d);
	free(lx->line_ctx);
	memset(lx, 0, sizeof(*lx));
}

int
tok_is(const struct lexed *lx, size_t i, const char *text)
{
	size_t l = strlen(text);

	return i < lx->nt && lx->t[i].len == l &&
	       memcmp(lx->s + lx->t[i].off, text, l) == 0;
}

size_t
tok_at(const struct lexed *lx, size_t off)
{
	size_t lo = 0, hi = lx->nt;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (lx->t[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

size_t
tok_match(const struct lexed *lx, size_t i)
{
	char open, close;
	int depth = 0;

	if (i >= lx->nt || lx->t[i].kind != TK_PUNCT)
		return lx->nt;
	open = lx->s[lx->t[i].off];
	close = open == '(' ? ')' : open == '[' ? ']' : open == '{' ? '}' : 0;
	if (!close)
		return lx->nt;
	for (; i < lx->nt; i++) {
		char c;

		if (lx->t[i].kind != TK_PUNCT || lx->t[i].len != 1)
			continue;
		c = lx->s[lx->t[i].off];
		if (c == '(' || c == '[' || c == '{')
			depth++;
		else if (c == ')' || c == ']' || c == '}') {
			depth--;
			if (depth == 0)
				return c == close ? i : lx->nt;
			if (depth < 0)
				return lx->nt;
		}
	}
	return lx->nt;
}

/* ---- statements --------------------------------------------------------- */

static int stmt_one(const struct lexed *lx, size_t i, size_t end, int block,
		    enum st_parent parent, struct stmts *out, size_t *next);

static int
push_stmt(struct stmts *out, size_t t0, int block, enum st_parent parent)
{
	if (out->n == out->cap) {
		out->cap = out->cap ? out->cap * 2 : 64;
		out->v = dft_xreallocarray(out->v, out->cap, sizeof(*out->v));
	}
	memset(&out->v[out->n], 0, sizeof(out->v[0]));
	out->v[out->n].t0 = t0;
	out->v[out->n].block = block;
	out->v[out->n].parent = parent;
	return (int)out->n++;
}

static int
is_punct(const struct lexed *lx, size_t i, char c)
{
	return i < lx->nt && lx->t[i].kind == TK_PUNCT && lx->t[i].len == 1 &&
	       lx->s[lx->t[i].off] == c;
}

/* Statements of the block between tokens (open, close). */
static int
stmt_block(const struct lexed *lx, size_t open, size_t close, int self,
	   struct stmts *out)
{
	size_t i = open + 1;

	while (i < close) {
		size_t next;

		if (stmt_one(lx, i, close, self, SP_COMPOUND, out, &next) < 0)
			return -1;
		i = next;
	}
	return 0;
}

/* ( ... ) starting at i: index after the ')' or -1. */
static long
paren_group(const struct lexed *lx, size_t i, size_t end)
{
	size_t m;

	if (!is_punct(lx, i, '('))
		return -1;
	m = tok_match(lx, i);
	if (m >= end)
		return -1;
	return (long)m + 1;
}

static int
stmt_one(const struct lexed *lx, size_t i, size_t end, int block,
	 enum st_parent parent, struct stmts *out, size_t *next)
{
	int me;
	size_t j;
	long p;

	if (i >= end)
		return -1;
	me = push_stmt(out, i, block, parent);
	if (is_punct(lx, i, '{')) {
		size_t m = tok_match(lx, i);

		if (m >= end)
			return -1;
		out->v[me].is_compound = 1;
		out->v[me].t1 = m + 1;
		if (stmt_block(lx, i, m, me, out) < 0)
			return -1;
		*next = m + 1;
		return 0;
	}
	if (tok_is(lx, i, "if")) {
		j = i + 1;
		if (tok_is(lx, j, "constexpr"))
			j++;
		p = paren_group(lx, j, end);
		if (p < 0 || stmt_one(lx, (size_t)p, end, block, SP_IF, out,
				      &j) < 0)
			return -1;
		if (tok_is(lx, j, "else") &&
		    stmt_one(lx, j + 1, end, block, SP_ELSE, out, &j) < 0)
			return -1;
		out->v[me].t1 = j;
		*next = j;
		return 0;
	}
	if (tok_is(lx, i, "for") || tok_is(lx, i, "while") ||
	    tok_is(lx, i, "switch")) {
		p = paren_group(lx, i + 1, end);
		if (p < 0 || stmt_one(lx, (size_t)p, end, block, SP_LOOP, out,
				      &j) < 0)
			return -1;
		out->v[me].t1 = j;
		*next = j;
		return 0;
	}
	if (tok_is(lx, i, "do")) {
		if (stmt_one(lx, i + 1, end, block, SP_LOOP, out, &j) < 0 ||
		    !tok_is(lx, j, "while"))
			return -1;
		p = paren_group(lx, j + 1, end);
		if (p < 0 || !is_punct(lx, (size_t)p, ';'))
			return -1;
		out->v[me].t1 = (size_t)p + 1;
		*next = (size_t)p + 1;
		return 0;
	}
	if (tok_is(lx, i, "try")) {
		size_t m;

		if (!is_punct(lx, i + 1, '{'))
			return -1;
		m = tok_match(lx, i + 1);
		if (m >= end || stmt_block(lx, i + 1, m, block, out) < 0)
			return -1;
		j = m + 1;
		while (tok_is(lx, j, "catch")) {
			p = paren_group(lx, j + 1, end);
			if (p < 0 || !is_punct(lx, (size_t)p, '{'))
				return -1;
			m = tok_match(lx, (size_t)p);
			if (m >= end || stmt_block(lx, (size_t)p, m, block,
						   out) < 0)
				return -1;
			j = m + 1;
		}
		out->v[me].t1 = j;
		*next = j;
		return 0;
	}
	if (tok_is(lx, i, "case") || tok_is(lx, i, "default")) {
		int depth = 0;

		for (j = i + 1; j < end; j++) {
			if (is_punct(lx, j, '(') || is_punct(lx, j, '['))
				depth++;
			else if (is_punct(lx, j, ')') || is_punct(lx, j, ']'))
				depth--;
			else if (depth == 0 && is_punct(lx, j, ':'))
				break;
		}
		if (j >= end)
			return -1;
		out->v[me].t1 = j + 1;
		if (j + 1 < end && !is_punct(lx, j + 1, '}'))
			return stmt_one(lx, j + 1, end, block, SP_CASE, out,
					next);
		*next = j + 1;
		return 0;
	}
	if (lx->t[i].kind == TK_ID && is_punct(lx, i + 1, ':') &&
	    !tok_is(lx, i, "public") && !tok_is(lx, i, "private") &&
	    !tok_is(lx, i, "protected")) {
		out->v[me].t1 = i + 2;
		if (i + 2 < end && !is_punct(lx, i + 2, '}'))
			return stmt_one(lx, i + 2, end, block, SP_LABEL, out,
					next);
		*next = i + 2;
		return 0;
	}
	/* expression, declaration, return, goto, break...: up to ';' */
	for (j = i; j < end; j++) {
		if (is_punct(lx, j, '(') || is_punct(lx, j, '[') ||
		    is_punct(lx, j, '{')) {
			size_t m = tok_match(lx, j);

			if (m >= end)
				return -1;
			j = m;
			continue;
		}
		if (is_punct(lx, j, ';'))
			break;
	}
	if (j >= end)
		return -1;
	out->v[me].t1 = j + 1;
	*next = j + 1;
	return 0;
}

int
stmt_parse(const struct lexed *lx, size_t open, struct stmts *out)
{
	size_t m = tok_match(lx, open);
	int me;

	memset(out, 0, sizeof(*out));
	if (m >= lx->nt)
		return -1;
	me = push_stmt(out, open, -1, SP_COMPOUND);
	out->v[me].t1 = m + 1;
	out->v[me].is_compound = 1;
	return stmt_block(lx, open, m, me, out);
}

void
stmts_release(struct stmts *s)
{
	free(s->v);
	memset(s, 0, sizeof(*s));
}

/* ---- edits -------------------------------------------------------------- */

void
edits_add(struct edits *e, size_t off, size_t del, char *text)
{
	if (e->n == e->cap) {
		e->cap = e->cap ? e->cap * 2 : 32;
		e->v = dft_xreallocarray(e->v, e->cap, sizeof(*e->v));
	}
	e->v[e->n].off = off;
	e->v[e->n].del = del;
	e->v[e->n].text = text;
	e->v[e->n].seq = (int)e->n;
	e->n++;
}

void
edits_release(struct edits *e)
{
	size_t i;

	for (i = 0; i < e->n; i++)
		free(e->v[i].text);
	free(e->v);
	memset(e, 0, sizeof(*e));
}

static int
edit_cmp(const void *a, const void *b)
{
	const struct edit *x = a, *y = b;

	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	/* a pure insertion goes before a replacement at the same offset */
	if ((x->del == 0) != (y->del == 0))
		return x->del == 0 ? -1 : 1;
	return x->seq - y->seq;
}

char *
edits_apply(struct edits *e, const char *s, size_t n, size_t *outlen)
{
	struct dft_buf b;
	size_t i, pos = 0;

	qsort(e->v, e->n, sizeof(*e->v), edit_cmp);
	dft_buf_init(&b);
	for (i = 0; i < e->n; i++) {
		if (e->v[i].off < pos || e->v[i].off + e->v[i].del > n) {
			dft_buf_release(&b);
			return NULL;
		}
		dft_buf_add(&b, s + pos, e->v[i].off - pos);
		dft_buf_adds(&b, e->v[i].text);
		pos = e->v[i].off + e->v[i].del;
	}
	dft_buf_add(&b, s + pos, n - pos);
	*outlen = b.len;
	return dft_buf_detach(&b);
}
