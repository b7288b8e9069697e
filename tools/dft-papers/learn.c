/*
 * learn.c - the memory of which proposals worked here: an append-only
 * NDJSON store of "learn" records (one per applied proposal and verdict),
 * read back as counts per (class, strategy, system context), and the
 * --learn mode that appends to it.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/*
 * The learn record of one applied proposal: from its proposal record when
 * the stream has it, else from the id itself ("B1.small_io.L2.cb" or the
 * strategy id "small_io.L2.cb", as dft-pipeline passes to --applied).
 */
static json_object *
learn_record(const char *ctx_key, const char *now_iso, const char *id,
	     json_object *p, json_object *verdict)
{
	json_object *o, *cites = json_object_new_array(), *pc;
	const char *outcome = dft_json_str(verdict, "verdict", "unchanged");
	const char *ctx = dft_json_str(p, "context", NULL);
	char *strategy, *cls, *dot;

	if (p != NULL && dft_json_str(p, "strategy", NULL) != NULL) {
		strategy = dft_xstrdup(dft_json_str(p, "strategy", ""));
	} else {
		const char *s = id;

		if (s[0] == 'B' && strchr(s, '.') != NULL &&
		    strspn(s + 1, "0123456789") == (size_t)(strchr(s, '.') -
							    s - 1))
			s = strchr(s, '.') + 1;
		strategy = dft_xstrdup(s);
	}
	cls = dft_xstrdup(dft_json_str(p, "class", strategy));
	if (p == NULL || dft_json_str(p, "class", NULL) == NULL) {
		dot = strchr(cls, '.');
		if (dot != NULL)
			*dot = '\0';
	}
	if (strstr(strategy, ".L1.") == NULL &&
	    strstr(strategy, ".L2.") == NULL &&
	    strstr(strategy, ".L3.") == NULL) {
		dft_warn("--learn: '%s' is not a proposal or strategy id", id);
		free(strategy);
		free(cls);
		json_object_put(cites);
		return NULL;
	}
	if (json_object_object_get_ex(p, "citations", &pc))
		for (size_t k = 0; k < json_object_array_length(pc); k++) {
			json_object *c = json_object_array_get_idx(pc, k);

			json_object_array_add(cites, dft_jstr(dft_json_str(c,
				"doi", dft_json_str(c, "arxiv", NULL))));
		}
	o = json_object_new_object();
	json_object_object_add(o, "type", dft_jstr("learn"));
	json_object_object_add(o, "v", dft_jint(1));
	json_object_object_add(o, "class", dft_jstr(cls));
	json_object_object_add(o, "strategy", dft_jstr(strategy));
	json_object_object_add(o, "metric", dft_jstr(dft_json_str(p, "metric",
								  NULL)));
	json_object_object_add(o, "context", dft_jstr(ctx != NULL ? ctx :
						      ctx_key));
	json_object_object_add(o, "proposal", dft_jstr(id));
	json_object_object_add(o, "outcome", dft_jstr(outcome));
	json_object_object_add(o, "citations", cites);
	json_object_object_add(o, "run", dft_jstr(dft_json_str(verdict, "after",
							       NULL)));
	json_object_object_add(o, "at", dft_jstr(now_iso));
	free(strategy);
	free(cls);
	return o;
}

static void
learn_add(struct dft_buf *b, json_object *o)
{
	if (o == NULL)
		return;
	dft_buf_adds(b, json_object_to_json_string_ext(o,
		JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	dft_buf_addc(b, '\n');
	json_object_put(o);
}

/*
 * --learn: appends a learn record for every applied proposal of every
 * verdict (proposals: id -> proposal record of the stream) to the store
 * (NULL: learn_default_path()).
 */
int
learn_append(const char *store, const char *ctx_key, const char *now_iso,
	     json_object *proposals, json_object *verdicts)
{
	char *path = store != NULL ? dft_xstrdup(store) :
		     learn_default_path();
	char *dir = dft_xstrdup(path);
	char *slash = strrchr(dir, '/');
	struct dft_buf b;
	int fd, ret = 0;
	size_t nv = json_object_array_length(verdicts);

	dft_buf_init(&b);
	for (size_t i = 0; i < nv; i++) {
		json_object *v = json_object_array_get_idx(verdicts, i);
		json_object *applied = NULL, *listed = json_object_new_object();

		if (json_object_object_get_ex(v, "applied", &applied) &&
		    json_object_is_type(applied, json_type_array))
			for (size_t k = 0; k < json_object_array_length(applied);
			     k++) {
				const char *id = json_object_get_string(
					json_object_array_get_idx(applied, k));
				json_object *p = NULL;

				if (id == NULL || *id == '\0' ||
				    json_object_object_get_ex(listed, id, NULL))
					continue;
				json_object_object_add(listed, id, NULL);
				json_object_object_get_ex(proposals, id, &p);
				learn_add(&b, learn_record(ctx_key, now_iso, id, p, v));
			}
		json_object_object_foreach(proposals, id, p) {
			if (!dft_json_bool(p, "applied", 0) ||
			    json_object_object_get_ex(listed, id, NULL))
				continue;
			learn_add(&b, learn_record(ctx_key, now_iso, id, p, v));
		}
		json_object_put(listed);
	}
	if (b.len == 0)
		goto out;
	if (slash != NULL) {
		*slash = '\0';
		(void)dft_mkdir_p(dir, 0755);
	}
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
	if (fd < 0 || write(fd, b.s, b.len) != (ssize_t)b.len) {
		dft_warn("cannot write the learning store '%s':", path);
		ret = DFT_EXIT_FATAL;
	}
	if (fd >= 0 && close(fd) != 0 && ret == 0) {
		dft_warn("cannot write the learning store '%s':", path);
		ret = DFT_EXIT_FATAL;
	}
out:
	dft_buf_release(&b);
	free(dir);
	free(path);
	return ret;
}
