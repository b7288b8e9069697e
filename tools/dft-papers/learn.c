/*
 * learn.c - the memory of which proposals worked here: an append-only
 * NDJSON store of "learn" records (one per applied proposal and verdict),
 * read back as counts per (class, strategy, system context).
 */
#include <stdlib.h>
#include <string.h>

#include "papers.h"

char *
learn_default_path(void)
{
	const char *x = getenv("XDG_DATA_HOME");
	const char *home = getenv("HOME");

	if (x != NULL && *x == '/')
		return dft_path_join(x, "dft/learn.ndjson");
	if (home == NULL || *home == '\0')
		home = "/tmp";
	return dft_xasprintf("%s/.local/share/dft/learn.ndjson", home);
}

static struct learn_count *
slot(struct learn_store *s, const char *cls, const char *strategy,
     const char *context)
{
	for (int i = 0; i < s->n; i++)
		if (strcmp(s->c[i].cls, cls) == 0 &&
		    strcmp(s->c[i].strategy, strategy) == 0 &&
		    strcmp(s->c[i].context, context) == 0)
			return &s->c[i];
	s->c = dft_xreallocarray(s->c, (size_t)s->n + 1, sizeof(*s->c));
	memset(&s->c[s->n], 0, sizeof(s->c[0]));
	s->c[s->n].cls = dft_xstrdup(cls);
	s->c[s->n].strategy = dft_xstrdup(strategy);
	s->c[s->n].context = dft_xstrdup(context);
	return &s->c[s->n++];
}

/* A missing store is empty; unreadable lines are skipped. */
int
learn_load(struct learn_store *s, const char *path)
{
	struct dft_reader r;
	json_object *rec;

	memset(s, 0, sizeof(*s));
	if (!dft_exists(path))
		return 0;
	if (dft_reader_open(&r, path) != 0)
		return -1;
	while (dft_reader_next(&r, &rec) == 1) {
		const char *cls = dft_json_str(rec, "class", NULL);
		const char *st = dft_json_str(rec, "strategy", NULL);
		const char *ctx = dft_json_str(rec, "context", "generic");
		const char *out = dft_json_str(rec, "outcome", "");
		struct learn_count *c;

		if (strcmp(dft_record_type(rec), "learn") == 0 &&
		    cls != NULL && st != NULL) {
			c = slot(s, cls, st, ctx);
			if (strcmp(out, "improved") == 0)
				c->improved++;
			else if (strcmp(out, "regressed") == 0)
				c->regressed++;
			else
				c->unchanged++;
		}
		json_object_put(rec);
	}
	dft_reader_release(&r);
	return 0;
}

void
learn_release(struct learn_store *s)
{
	for (int i = 0; i < s->n; i++) {
		free(s->c[i].cls);
		free(s->c[i].strategy);
		free(s->c[i].context);
	}
	free(s->c);
	memset(s, 0, sizeof(*s));
}

const struct learn_count *
learn_find(const struct learn_store *s, const char *cls,
	   const char *strategy, const char *context)
{
	for (int i = 0; i < s->n; i++)
		if (strcmp(s->c[i].cls, cls) == 0 &&
		    strcmp(s->c[i].strategy, strategy) == 0 &&
		    strcmp(s->c[i].context, context) == 0)
			return &s->c[i];
	return NULL;
}
