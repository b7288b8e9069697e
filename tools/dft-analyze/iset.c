/*
 * iset.c - bounded sets of half-open int64 intervals [s, e), kept sorted
 * and disjoint. They measure unions: the I/O time of a process without
 * double counting overlapping threads, the distinct bytes a process read
 * from a file, the time a training loop waited within an epoch.
 *
 * A set holds at most its limit of intervals. When an insertion would pass
 * it, the neighbours separated by the smallest gaps are joined (the gap is
 * then counted as covered) until the set is at half its limit, so memory is
 * bounded and a union can only be overestimated, by at most the joined
 * gaps, which iset_slack() reports. Intervals mostly arrive in increasing
 * order; appending at the end costs O(1).
 */
#include <stdlib.h>
#include <string.h>

#include "analyze.h"

void
iset_init(struct iset *s, size_t limit)
{
	memset(s, 0, sizeof(*s));
	s->limit = limit < 4 ? 4 : limit;
}

void
iset_release(struct iset *s)
{
	free(s->v);
	memset(s, 0, sizeof(*s));
}

/* The k-th smallest of v[0..n) (0-based), reordering v: quickselect. */
static int64_t
select_k(int64_t *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1;

	while (lo < hi) {
		int64_t a = v[lo], b = v[(lo + hi) / 2], c = v[hi];
		int64_t p = a < b ? (b < c ? b : a < c ? c : a) :
				    (a < c ? a : b < c ? c : b);
		size_t i = lo, j = hi;

		while (i <= j) {
			while (v[i] < p)
				i++;
			while (v[j] > p)
				j--;
			if (i <= j) {
				int64_t t = v[i];

				v[i] = v[j];
				v[j] = t;
				i++;
				if (j == 0)
					break;
				j--;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			return v[k];
	}
	return v[k];
}

/* Joins neighbours across the smallest gaps until n <= limit / 2. */
static void
compact(struct iset *s)
{
	size_t n = s->n, want = s->limit / 2;

	if (n < 2 || n <= want)
		return;
	int64_t *gap = dft_xcalloc(n - 1, sizeof(*gap));

	for (size_t i = 0; i + 1 < n; i++)
		gap[i] = s->v[i + 1].s - s->v[i].e;
	/* join every gap up to the (n - want)-th smallest */
	int64_t lim = select_k(gap, n - 1, n - want - 1);

	free(gap);
	size_t w = 0;

	for (size_t r = 0; r < n; r++) {
		if (w > 0 && s->v[r].s - s->v[w - 1].e <= lim &&
		    n - (r - w) > want) {
			s->slack += s->v[r].s - s->v[w - 1].e;
			if (s->v[r].e > s->v[w - 1].e)
				s->v[w - 1].e = s->v[r].e;
		} else {
			s->v[w++] = s->v[r];
		}
	}
	s->n = w;
}

/* First index whose end is >= x. */
static size_t
lower(const struct iset *s, int64_t x)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (s->v[mid].e < x || (s->strict && s->v[mid].e == x))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int64_t
iset_add(struct iset *s, int64_t a, int64_t b)
{
	int64_t covered = 0;

	if (b <= a)
		return 0;
	/* the common case: after the last interval, or extending it */
	if (s->n > 0 && a >= s->v[s->n - 1].s) {
		struct ival *l = &s->v[s->n - 1];

		if (a < l->e || (a == l->e && !s->strict)) {
			covered = (b < l->e ? b : l->e) - a;
			if (b > l->e)
				l->e = b;
			return covered;
		}
	} else if (s->n > 0) {
		size_t i = lower(s, a), j = i;
		int64_t ns = a, ne = b;

		/* intervals i..j-1 touch [a, b) */
		while (j < s->n && (s->v[j].s < b ||
				    (s->v[j].s == b && !s->strict))) {
			int64_t os = s->v[j].s > a ? s->v[j].s : a;
			int64_t oe = s->v[j].e < b ? s->v[j].e : b;

			if (oe > os)
				covered += oe - os;
			if (s->v[j].s < ns)
				ns = s->v[j].s;
			if (s->v[j].e > ne)
				ne = s->v[j].e;
			j++;
		}
		if (j > i) {
			s->v[i].s = ns;
			s->v[i].e = ne;
			memmove(s->v + i + 1, s->v + j,
				(s->n - j) * sizeof(*s->v));
			s->n -= j - i - 1;
			return covered;
		}
		/* a new interval before v[i] */
		if (s->n == s->cap) {
			s->cap = s->cap ? 2 * s->cap : 8;
			s->v = dft_xreallocarray(s->v, s->cap, sizeof(*s->v));
		}
		memmove(s->v + i + 1, s->v + i, (s->n - i) * sizeof(*s->v));
		s->v[i].s = a;
		s->v[i].e = b;
		s->n++;
		if (s->n > s->limit)
			compact(s);
		return 0;
	}
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 8;
		s->v = dft_xreallocarray(s->v, s->cap, sizeof(*s->v));
	}
	s->v[s->n].s = a;
	s->v[s->n].e = b;
	s->n++;
	if (s->n > s->limit)
		compact(s);
	return 0;
}

int64_t
iset_total(const struct iset *s)
{
	int64_t t = 0;

	for (size_t i = 0; i < s->n; i++)
		t += s->v[i].e - s->v[i].s;
	return t;
}

int64_t
iset_within(const struct iset *s, int64_t a, int64_t b)
{
	int64_t t = 0;

	for (size_t i = lower(s, a); i < s->n && s->v[i].s < b; i++) {
		int64_t os = s->v[i].s > a ? s->v[i].s : a;
		int64_t oe = s->v[i].e < b ? s->v[i].e : b;

		if (oe > os)
			t += oe - os;
	}
	return t;
}
