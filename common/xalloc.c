/*
 * xalloc.c - allocation that exits 2 on failure, string and number helpers,
 * and the growable dft_buf.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dft.h"

static DFT_NORETURN void
oom(void)
{
	dft_die("out of memory");
}

void *
dft_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (p == NULL)
		oom();
	return p;
}

void *
dft_xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);

	if (p == NULL)
		oom();
	return p;
}

void *
dft_xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (p == NULL)
		oom();
	return p;
}

void *
dft_xreallocarray(void *p, size_t nmemb, size_t size)
{
	if (size != 0 && nmemb > SIZE_MAX / size)
		oom();
	return dft_xrealloc(p, nmemb * size);
}

char *
dft_xstrdup(const char *s)
{
	char *p = strdup(s);

	if (p == NULL)
		oom();
	return p;
}

char *
dft_xstrndup(const char *s, size_t n)
{
	char *p = strndup(s, n);

	if (p == NULL)
		oom();
	return p;
}

/* n bytes plus a NUL; unlike strndup, keeps embedded NULs. Caller frees. */
char *
dft_xmemdup0(const void *p, size_t n)
{
	char *d = dft_xmalloc(n + 1);

	if (n > 0)
		memcpy(d, p, n);
	d[n] = '\0';
	return d;
}

char *
dft_xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *p;

	va_start(ap, fmt);
	if (vasprintf(&p, fmt, ap) < 0)
		oom();
	va_end(ap);
	return p;
}

int
dft_has_prefix(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

int
dft_has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

/* The entry of the NULL-terminated list l equal to s, or NULL. */
const char *
dft_in_list(const char *s, const char *const *l)
{
	int i;

	for (i = 0; l[i]; i++)
		if (strcmp(s, l[i]) == 0)
			return l[i];
	return NULL;
}

/* strtol/strtod with whole-string and range checks: 0 ok, -1 bad. */
int
dft_parse_long(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (s[0] == '\0' || *end != '\0' || errno != 0 || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int
dft_parse_double(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (s[0] == '\0' || *end != '\0' || errno != 0 || !isfinite(v))
		return -1;
	*out = v;
	return 0;
}

int
dft_hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int
dft_parse_double_range(const char *s, double min, double max, double *out)
{
	double v;

	if (dft_parse_double(s, &v) != 0 || !(v >= min && v <= max))
		return -1;
	*out = v;
	return 0;
}

void
dft_buf_init(struct dft_buf *b)
{
	b->s = NULL;
	b->len = 0;
	b->cap = 0;
}

void
dft_buf_release(struct dft_buf *b)
{
	free(b->s);
	dft_buf_init(b);
}

void
dft_buf_reset(struct dft_buf *b)
{
	b->len = 0;
	if (b->s != NULL)
		b->s[0] = '\0';
}

static void
buf_grow(struct dft_buf *b, size_t extra)
{
	size_t need = b->len + extra + 1;

	if (need <= b->cap)
		return;
	if (b->cap == 0)
		b->cap = 64;
	while (b->cap < need)
		b->cap *= 2;
	b->s = dft_xrealloc(b->s, b->cap);
}

void
dft_buf_add(struct dft_buf *b, const void *p, size_t n)
{
	buf_grow(b, n);
	memcpy(b->s + b->len, p, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void
dft_buf_adds(struct dft_buf *b, const char *s)
{
	dft_buf_add(b, s, strlen(s));
}

void
dft_buf_addc(struct dft_buf *b, char c)
{
	dft_buf_add(b, &c, 1);
}

void
dft_buf_addf(struct dft_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	buf_grow(b, 64);
	va_start(ap, fmt);
	n = vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= b->cap - b->len) {
		buf_grow(b, (size_t)n);
		va_start(ap, fmt);
		vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
	}
	b->len += (size_t)n;
}

char *
dft_buf_detach(struct dft_buf *b)
{
	char *s = b->s ? b->s : dft_xstrdup("");

	dft_buf_init(b);
	return s;
}
