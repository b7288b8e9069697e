/*
 * py.c - Python files (placeholder until the line-preserving decorator
 * pass lands).
 */
#include <string.h>

#include "annotate.h"
#include "banned.h"

int
py_is_annotated(const char *s, size_t n)
{
	return memmem(s, n, "# dft-annotate", 14) != NULL;
}

char *
py_strip(const char *s, size_t n, size_t *outlen, const char **why)
{
	(void)s;
	(void)n;
	(void)outlen;
	*why = "Python strip is not implemented yet";
	return NULL;
}

int
py_annotate(const char *path, const char *s, size_t n, json_object *funcs,
	    const char *style, char **out, size_t *outlen, struct fresult *r)
{
	(void)path, (void)s, (void)n, (void)funcs, (void)style;
	*out = NULL;
	*outlen = 0;
	r->refused = dft_xstrdup("Python annotation is not implemented yet");
	return -1;
}
