/*
 * diff.c - unified diff of two texts (Myers' O(ND) algorithm, three lines
 * of context), for --diff and artifacts/annotation.patch.  Annotation
 * changes few lines, so D stays small.
 */
#include <stdlib.h>
#include <string.h>

#include "annotate.h"

struct lines {
	const char **p;
	size_t *len;
	long n;
};

static void
split(struct lines *l, const char *s, size_t n)
{
	size_t i, start = 0, cap = 64;

	l->n = 0;
	l->p = dft_xreallocarray(NULL, cap, sizeof(*l->p));
	l->len = dft_xreallocarray(NULL, cap, sizeof(*l->len));
	for (i = 0; i <= n; i++) {
		if (i < n && s[i] != '\n')
			continue;
		if (i == n && start == n)
			break;
		if ((size_t)l->n == cap) {
			cap *= 2;
			l->p = dft_xreallocarray(l->p, cap, sizeof(*l->p));
			l->len = dft_xreallocarray(l->len, cap,
						   sizeof(*l->len));
		}
		l->p[l->n] = s + start;
		l->len[l->n] = (i < n ? i + 1 : i) - start;
		l->n++;
		start = i + 1;
	}
}

static int
leq(const struct lines *a, long i, const struct lines *b, long j)
{
	return a->len[i] == b->len[j] &&
	       memcmp(a->p[i], b->p[j], a->len[i]) == 0;
}

/* op per aligned line: ' ' both, '-' only a, '+' only b */
struct op {
	char c;
	long ai, bi;
};

static void
emit_line(struct dft_buf *out, char c, const char *p, size_t len)
{
	dft_buf_addc(out, c);
	dft_buf_add(out, p, len);
	if (len == 0 || p[len - 1] != '\n')
		dft_buf_adds(out, "\n\\ No newline at end of file\n");
}

void
diff_unified(struct dft_buf *out, const char *sa, size_t na, const char *sb,
	     size_t nb, const char *name_a, const char *name_b)
{
	struct lines a, b;
	long N, M, max, d, k, x, y, **vs = NULL, nops = 0, i;
	struct op *ops;

	split(&a, sa, na);
	split(&b, sb, nb);
	N = a.n;
	M = b.n;
	max = N + M;
	vs = dft_xcalloc((size_t)max + 2, sizeof(*vs));
	for (d = 0; d <= max; d++) {
		long *v = dft_xcalloc((size_t)(2 * d + 3), sizeof(long));
		long *pv = d ? vs[d - 1] : NULL;

		vs[d] = v;	/* v[k + d + 1] holds x for diagonal k */
		for (k = -d; k <= d; k += 2) {
			if (d == 0)
				x = 0;
			else if (k == -d || (k != d &&
					     pv[k - 1 + d] < pv[k + 1 + d]))
				x = pv[k + 1 + d];	/* down: insertion */
			else
				x = pv[k - 1 + d] + 1;	/* right: deletion */
			y = x - k;
			while (x < N && y < M && leq(&a, x, &b, y))
				x++, y++;
			v[k + d + 1] = x;
			if (x >= N && y >= M)
				goto found;
		}
	}
found:
	/* backtrack from (N, M) to (0, 0) */
	ops = dft_xcalloc((size_t)(N + M + 1), sizeof(*ops));
	x = N;
	y = M;
	for (; d > 0; d--) {
		long *pv = vs[d - 1], px, py, pk, mx, my;

		k = x - y;
		if (k == -d || (k != d && pv[k - 1 + d] < pv[k + 1 + d]))
			pk = k + 1;
		else
			pk = k - 1;
		px = pv[pk + d];
		py = px - pk;
		mx = pk == k + 1 ? px : px + 1;
		my = pk == k + 1 ? py + 1 : py;
		while (x > mx && y > my) {
			x--, y--;
			ops[nops++] = (struct op){ ' ', x, y };
		}
		if (pk == k + 1)
			ops[nops++] = (struct op){ '+', px, py };
		else
			ops[nops++] = (struct op){ '-', px, py };
		x = px;
		y = py;
	}
	while (x > 0 && y > 0) {
		x--, y--;
		ops[nops++] = (struct op){ ' ', x, y };
	}
	/* reverse */
	for (i = 0; i < nops / 2; i++) {
		struct op t = ops[i];

		ops[i] = ops[nops - 1 - i];
		ops[nops - 1 - i] = t;
	}
	/* hunks with 3 lines of context */
	if (nops) {
		long s0 = 0;
		int header = 0;

		while (s0 < nops) {
			long e0, h0, h1, ca = 0, cb = 0, a0, b0, j;

			while (s0 < nops && ops[s0].c == ' ')
				s0++;
			if (s0 >= nops)
				break;
			h0 = s0 - 3 < 0 ? 0 : s0 - 3;
			e0 = s0;
			for (;;) {
				long run = 0;

				while (e0 < nops && ops[e0].c != ' ')
					e0++;
				j = e0;
				while (j < nops && ops[j].c == ' ' && run < 7)
					j++, run++;
				if (j < nops && ops[j].c != ' ' && run < 7) {
					e0 = j;
					continue;
				}
				break;
			}
			h1 = e0 + 3 > nops ? nops : e0 + 3;
			a0 = ops[h0].ai;
			b0 = ops[h0].bi;
			for (j = h0; j < h1; j++) {
				if (ops[j].c != '+')
					ca++;
				if (ops[j].c != '-')
					cb++;
			}
			if (!header) {
				dft_buf_addf(out, "--- %s\n+++ %s\n", name_a,
					     name_b);
				header = 1;
			}
			dft_buf_addf(out, "@@ -%ld,%ld +%ld,%ld @@\n",
				     ca ? a0 + 1 : a0, ca, cb ? b0 + 1 : b0,
				     cb);
			for (j = h0; j < h1; j++) {
				if (ops[j].c == '+')
					emit_line(out, '+', b.p[ops[j].bi],
						  b.len[ops[j].bi]);
				else
					emit_line(out, ops[j].c,
						  a.p[ops[j].ai],
						  a.len[ops[j].ai]);
			}
			s0 = h1;
		}
	}
	for (i = 0; i <= max; i++)
		free(vs[i]);
	free(vs);
	free(ops);
	free(a.p);
	free(a.len);
	free(b.p);
	free(b.len);
}
