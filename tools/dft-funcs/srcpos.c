/*
 * srcpos.c - positions in a source file as records print them: the path
 * relative to the root, and offset/line/col from a byte offset through a
 * table of line starts.
 * It does not read files; callers pass the buffer they hold.
 */
#include <stdlib.h>
#include <string.h>

#include "funcs.h"

char *
rel_path(const struct fopts *o, const char *abs)
{
	size_t n = strlen(o->root);

	if (strcmp(o->root, "/") == 0)
		return dft_xstrdup(abs + 1);
	if (strncmp(abs, o->root, n) == 0 && abs[n] == '/')
		return dft_xstrdup(abs + n + 1);
	return dft_xstrdup(abs);
}

size_t *
line_table(const char *buf, size_t len, size_t *nlines)
{
	size_t n = 1, i, k = 0, *t;

	for (i = 0; i < len; i++)
		n += buf[i] == '\n';
	t = dft_xreallocarray(NULL, n, sizeof(*t));
	t[k++] = 0;
	for (i = 0; i < len; i++)
		if (buf[i] == '\n')
			t[k++] = i + 1;
	*nlines = n;
	return t;
}

json_object *
jpos(const char *buf, size_t len, const size_t *lines, size_t nlines,
     size_t off)
{
	size_t lo = 0, hi = nlines;
	json_object *p = json_object_new_object();

	(void)buf;
	if (off > len)
		off = len;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;

		if (lines[mid] <= off)
			lo = mid;
		else
			hi = mid;
	}
	json_object_object_add(p, "offset", dft_jint((int64_t)off));
	json_object_object_add(p, "line", dft_jint((int64_t)lo + 1));
	json_object_object_add(p, "col", dft_jint((int64_t)(off - lines[lo]) + 1));
	return p;
}
