/*
 * strip.c - removes exactly what cedit.c inserted, giving back the
 * original bytes.
 *
 * Every fragment has one fixed shape (see cedit.c): the marked #include
 * line (with its #line directive, or alone on a line that was empty), a
 * START-RUN after '{', "{ END-RUN stmt }" around an exit, a hoisted return
 * "{ T dft_ret_ = (expr); END-RUN return dft_ret_; }", "END-RUN }" at the
 * closing brace, and a RUN line followed by a marked #line directive.  A
 * RUN is a sequence of DFTRACER_*(...); separated by single spaces; in the
 * one of a C++ main, DFT_MAIN_GUARD (byte for byte) may follow the INIT.
 * The scan works on tokens, so text in comments and literals is never
 * touched.
 */
#include <stdlib.h>
#include <string.h>

#include "annotate.h"

/*
 * The '(' token of a RUN item at token i: DFTRACER_*( , or the named START
 * of a C++ method, "DFTracer profiler_dft_fn(" (cedit.c's cpp_start); 0
 * when none starts there.
 */
static size_t
item_paren(const struct lexed *lx, size_t i)
{
	if (i >= lx->nt || lx->t[i].kind != TK_ID)
		return 0;
	if (lx->t[i].len > 9 &&
	    memcmp(lx->s + lx->t[i].off, "DFTRACER_", 9) == 0 &&
	    tok_is(lx, i + 1, "("))
		return i + 1;
	if (tok_is(lx, i, "DFTracer") && tok_is(lx, i + 1, "profiler_dft_fn") &&
	    tok_is(lx, i + 2, "("))
		return i + 2;
	return 0;
}

static int
is_dft_macro(const struct lexed *lx, size_t i)
{
	return item_paren(lx, i) != 0;
}

/*
 * A RUN starting at token i: *end = offset one past its last ';', *next =
 * the token after it. 0, or -1 when it is not a well-formed run.
 */
static int
run_at(const struct lexed *lx, size_t i, size_t *end, size_t *next)
{
	size_t m, gl = strlen(DFT_MAIN_GUARD);
	int items = 0, init;

	while (is_dft_macro(lx, i)) {
		if (items && lx->t[i].off != *end + 1)
			break;
		init = tok_is(lx, i, "DFTRACER_CPP_INIT");
		m = tok_match(lx, item_paren(lx, i));
		if (m >= lx->nt || !tok_is(lx, m + 1, ";"))
			return -1;
		*end = lx->t[m + 1].off + 1;
		i = m + 2;
		items++;
		if (!(*end < lx->n && lx->s[*end] == ' '))
			break;
		if (init && lx->n - *end - 1 >= gl &&
		    memcmp(lx->s + *end + 1, DFT_MAIN_GUARD, gl) == 0) {
			*end += 1 + gl;
			i = tok_at(lx, *end);
			if (!(*end < lx->n && lx->s[*end] == ' '))
				break;
		}
	}
	*next = i;
	return items ? 0 : -1;
}

static int
starts_run(const struct lexed *lx, size_t i)
{
	static const char *const starts[] = {
		"DFTRACER_C_INIT", "DFTRACER_C_FUNCTION_START",
		"DFTRACER_CPP_INIT", "DFTRACER_CPP_FUNCTION",
		"DFTRACER_CPP_REGION_START", "DFTracer", NULL
	};
	int k;

	for (k = 0; starts[k]; k++)
		if (tok_is(lx, i, starts[k]))
			return 1;
	return 0;
}

static size_t
line_end(const char *s, size_t n, size_t off)
{
	while (off < n && s[off] != '\n')
		off++;
	return off < n ? off + 1 : n;
}

/* 1 when the line at off is "#line N <mark>" (any EOL). */
static int
is_line_mark(const char *s, size_t n, size_t off)
{
	size_t e = line_end(s, n, off), ml = strlen(DFT_LINE_MARK);

	if (e - off < 6 || memcmp(s + off, "#line ", 6) != 0)
		return 0;
	while (e > off && (s[e - 1] == '\n' || s[e - 1] == '\r'))
		e--;
	return e - off > ml && memcmp(s + e - ml, DFT_LINE_MARK, ml) == 0;
}

char *
c_strip(const char *s, size_t n, size_t *outlen, const char **why)
{
	struct lexed lx;
	struct edits e = { NULL, 0, 0 };
	size_t i, off, il = strlen(DFT_INCLUDE_LINE);
	char *out;

	*why = NULL;
	/* whole lines: the include and RUN lines before a #line mark */
	for (off = 0; off < n; off = line_end(s, n, off)) {
		size_t nx = line_end(s, n, off);

		if (nx < n && is_line_mark(s, n, nx)) {
			edits_add(&e, off, line_end(s, n, nx) - off,
				  dft_xstrdup(""));
			off = nx;
			continue;
		}
		if (n - off >= il && memcmp(s + off, DFT_INCLUDE_LINE, il) == 0)
			edits_add(&e, off, il, dft_xstrdup(""));
	}
	lex_file(&lx, s, n);
	for (i = 0; i < lx.nt; i++) {
		size_t end = 0, next, m, k;

		if (lx.t[i].kind != TK_ID)
			continue;
		if (tok_is(&lx, i, "dft_ret_") && tok_is(&lx, i + 1, "=") &&
		    tok_is(&lx, i + 2, "(")) {
			const char *tail;
			size_t b = i, e0, gap0;

			while (b > 0 && !tok_is(&lx, b, "{"))
				b--;
			m = tok_match(&lx, i + 2);
			if (!tok_is(&lx, b, "{") || m >= lx.nt ||
			    s[lx.t[b].off + 1] != ' ')
				goto damaged;
			/* "); RUN return dft_ret_; }" */
			if (!tok_is(&lx, m + 1, ";") ||
			    run_at(&lx, m + 2, &end, &next) < 0)
				goto damaged;
			tail = " return dft_ret_; }";
			if (n - end < strlen(tail) ||
			    memcmp(s + end, tail, strlen(tail)) != 0)
				goto damaged;
			e0 = end + strlen(tail);
			gap0 = lx.t[i + 1].off + 1;
			edits_add(&e, lx.t[b].off, e0 - lx.t[b].off,
				  dft_xasprintf("return%.*s%.*s;",
						(int)(lx.t[i + 2].off - gap0),
						s + gap0,
						(int)(lx.t[m].off -
						      lx.t[i + 2].off - 1),
						s + lx.t[i + 2].off + 1));
			i = tok_at(&lx, e0) - 1;
			continue;
		}
		if (!is_dft_macro(&lx, i))
			continue;
		/* inside a RUN line handled above? */
		off = lx.t[i].off;
		for (k = 0; k < e.n; k++)
			if (e.v[k].del && off >= e.v[k].off &&
			    off < e.v[k].off + e.v[k].del)
				break;
		if (k < e.n) {
			while (i + 1 < lx.nt && lx.t[i + 1].off <
			       e.v[k].off + e.v[k].del)
				i++;
			continue;
		}
		if (run_at(&lx, i, &end, &next) < 0)
			goto damaged;
		if (starts_run(&lx, i)) {
			if (off == 0 || s[off - 1] != ' ')
				goto damaged;
			edits_add(&e, off - 1, end - off + 1, dft_xstrdup(""));
		} else if (end < n && s[end] == ' ' && next < lx.nt &&
			   tok_is(&lx, next, "}") &&
			   lx.t[next].off == end + 1) {
			edits_add(&e, off, end - off + 1, dft_xstrdup(""));
		} else {
			int depth = 0;

			if (off < 2 || s[off - 1] != ' ' || s[off - 2] != '{' ||
			    end >= n || s[end] != ' ')
				goto damaged;
			for (m = next; m < lx.nt; m++) {
				if (tok_is(&lx, m, "{") || tok_is(&lx, m, "(") ||
				    tok_is(&lx, m, "["))
					depth++;
				else if (tok_is(&lx, m, ")") ||
					 tok_is(&lx, m, "]"))
					depth--;
				else if (tok_is(&lx, m, "}") && --depth < 0)
					break;
			}
			if (m >= lx.nt || s[lx.t[m].off - 1] != ' ')
				goto damaged;
			edits_add(&e, off - 2, end - off + 3, dft_xstrdup(""));
			edits_add(&e, lx.t[m].off - 1, 2, dft_xstrdup(""));
		}
		i = next - 1;
	}
	out = edits_apply(&e, s, n, outlen);
	if (!out) {
		*why = "overlapping fragments";
		goto fail;
	}
	if (memmem(out, *outlen, "DFTRACER_", 9) ||
	    memmem(out, *outlen, "profiler_dft_fn", 15) ||
	    memmem(out, *outlen, "dft_ret_", 8) ||
	    memmem(out, *outlen, "dft_main_fini_", 14) ||
	    memmem(out, *outlen, DFT_LINE_MARK, strlen(DFT_LINE_MARK))) {
		free(out);
		*why = "instrumentation left that dft-annotate did not write";
		goto fail;
	}
	lex_release(&lx);
	edits_release(&e);
	return out;
damaged:
	*why = "a fragment was edited by hand";
fail:
	lex_release(&lx);
	edits_release(&e);
	return NULL;
}
