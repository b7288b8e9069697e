/*
 * ioapis.c - the table of I/O APIs (share/dft/io-apis.tsv) that makes a
 * function io_direct.  Loaded once before the worker threads start;
 * read-only afterwards, so lookups need no lock.
 */
#include <stdlib.h>
#include <string.h>

#include "funcs.h"

struct api {
	char *name;
	char *family;
	int prefix;
	int py;
};

static struct api *apis;
static size_t napis;

static int
cmp_api(const void *a, const void *b)
{
	const struct api *x = a, *y = b;

	if (x->py != y->py)
		return x->py - y->py;
	return strcmp(x->name, y->name);
}

int
io_apis_load(const char *path)
{
	char *text = dft_read_file(path, NULL), *line, *save = NULL;

	if (!text)
		return -1;
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *tab, *tab2;
		struct api *a;

		if (line[0] == '#' || line[0] == '\0')
			continue;
		tab = strchr(line, '\t');
		if (!tab)
			continue;
		*tab++ = '\0';
		tab2 = strchr(tab, '\t');
		if (tab2)
			*tab2++ = '\0';
		apis = dft_xreallocarray(apis, napis + 1, sizeof(*apis));
		a = &apis[napis++];
		a->prefix = line[strlen(line) - 1] == '*';
		if (a->prefix)
			line[strlen(line) - 1] = '\0';
		a->name = dft_xstrdup(line);
		a->family = dft_xstrdup(tab);
		a->py = tab2 && strcmp(tab2, "py") == 0;
	}
	free(text);
	qsort(apis, napis, sizeof(*apis), cmp_api);
	return 0;
}

static const char *
lookup(const char *name, int py)
{
	struct api key = { (char *)name, NULL, 0, py }, *hit;
	size_t i;

	hit = bsearch(&key, apis, napis, sizeof(*apis), cmp_api);
	if (hit && !hit->prefix)
		return hit->family;
	for (i = 0; i < napis; i++)
		if (apis[i].prefix && apis[i].py == py &&
		    dft_has_prefix(name, apis[i].name))
			return apis[i].family;
	return NULL;
}

const char *
io_api_family(const char *name)
{
	return lookup(name, 0);
}

const char *
io_api_family_py(const char *name)
{
	return lookup(name, 1);
}
