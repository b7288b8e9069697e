/*
 * catalogue.c - the bundled bibliography (share/dft/papers.ndjson) and the
 * proposal catalogue (share/dft/proposals.ndjson: "class" records naming
 * the bottleneck classes, "strategy" records the L1/L2/L3 proposals).
 */
#include <stdlib.h>
#include <string.h>

#include "papers.h"

static char *
jdup(json_object *o, const char *key)
{
	const char *s = dft_json_str(o, key, NULL);

	return s != NULL ? dft_xstrdup(s) : NULL;
}

static char **
jstrs(json_object *o, const char *key, int *n)
{
	json_object *a;
	char **v;
	int len;

	*n = 0;
	if (!json_object_object_get_ex(o, key, &a) ||
	    !json_object_is_type(a, json_type_array))
		return NULL;
	len = (int)json_object_array_length(a);
	v = dft_xcalloc((size_t)len + 1, sizeof(*v));
	for (int i = 0; i < len; i++) {
		const char *s = json_object_get_string(
			json_object_array_get_idx(a, (size_t)i));
		if (s != NULL)
			v[(*n)++] = dft_xstrdup(s);
	}
	return v;
}

/* Shared with plan.c: the catalogue's lists and the plan's words are
 * counted arrays, not NULL-terminated ones (dft_strv_free). */
void
strs_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void
paper_release(struct paper *p)
{
	free(p->key);
	free(p->title);
	strs_free(p->authors, p->nauthors);
	free(p->venue);
	free(p->doi);
	free(p->arxiv);
	free(p->url);
	free(p->abstract);
	free(p->finding);
	free(p->source);
	free(p->query);
	free(p->for_class);
	free(p->retrieved);
	strs_free(p->classes, p->nclasses);
	strs_free(p->related, p->nrelated);
	free(p->sys_class);
	strs_free(p->sys_terms, p->nsys_terms);
	memset(p, 0, sizeof(*p));
}

static int
load_bib(struct catalogue *c, const char *path)
{
	struct dft_reader r;
	json_object *rec;
	int rc, cap = 0;

	if (dft_reader_open(&r, path) != 0)
		return -1;
	while ((rc = dft_reader_next(&r, &rec)) == 1) {
		struct paper *p;
		json_object *sys;

		if (strcmp(dft_record_type(rec), "bib") != 0) {
			json_object_put(rec);
			continue;
		}
		if (c->nbib == cap) {
			cap = cap ? cap * 2 : 32;
			c->bib = dft_xreallocarray(c->bib, (size_t)cap,
						   sizeof(*c->bib));
		}
		p = &c->bib[c->nbib++];
		memset(p, 0, sizeof(*p));
		p->key = jdup(rec, "key");
		p->title = jdup(rec, "title");
		p->authors = jstrs(rec, "authors", &p->nauthors);
		p->year = (int)dft_json_int(rec, "year", 0);
		p->venue = jdup(rec, "venue");
		p->doi = jdup(rec, "doi");
		p->arxiv = jdup(rec, "arxiv");
		p->url = jdup(rec, "url");
		p->finding = jdup(rec, "finding");
		p->source = dft_xstrdup("bibliography");
		p->citations = -1;
		p->classes = jstrs(rec, "classes", &p->nclasses);
		p->related = jstrs(rec, "related", &p->nrelated);
		if (json_object_object_get_ex(rec, "system", &sys)) {
			p->sys_class = jdup(sys, "class");
			p->sys_terms = jstrs(sys, "terms", &p->nsys_terms);
		}
		json_object_put(rec);
	}
	dft_reader_release(&r);
	return rc < 0 ? -1 : 0;
}

static int
load_catalogue(struct catalogue *c, const char *path)
{
	struct dft_reader r;
	json_object *rec;
	int rc, ccap = 0, scap = 0;

	if (dft_reader_open(&r, path) != 0)
		return -1;
	while ((rc = dft_reader_next(&r, &rec)) == 1) {
		const char *t = dft_record_type(rec);

		if (strcmp(t, "class") == 0) {
			struct bclass *b;
			json_object *terms, *pairs;

			if (c->nclasses == ccap) {
				ccap = ccap ? ccap * 2 : 32;
				c->classes = dft_xreallocarray(c->classes,
					(size_t)ccap, sizeof(*c->classes));
			}
			b = &c->classes[c->nclasses++];
			memset(b, 0, sizeof(*b));
			b->name = jdup(rec, "class");
			b->component = jdup(rec, "component");
			b->match = jstrs(rec, "match", &b->nmatch);
			b->insights = jstrs(rec, "insights", &b->ninsights);
			if (json_object_object_get_ex(rec, "terms", &terms)) {
				b->exact = jstrs(terms, "exact", &b->nexact);
				b->relterms = jstrs(terms, "related",
						    &b->nrelterms);
			}
			if (json_object_object_get_ex(rec, "queries", &pairs)) {
				int n = (int)json_object_array_length(pairs);

				for (int i = 0; i < n && i < 5; i++) {
					json_object *pr = json_object_array_get_idx(
						pairs, (size_t)i);
					const char *a = json_object_get_string(
						json_object_array_get_idx(pr, 0));
					const char *bb = json_object_get_string(
						json_object_array_get_idx(pr, 1));

					if (a == NULL || bb == NULL)
						continue;
					b->pairs[b->npairs][0] = dft_xstrdup(a);
					b->pairs[b->npairs][1] = dft_xstrdup(bb);
					b->npairs++;
				}
			}
			json_object_put(rec);
		} else if (strcmp(t, "strategy") == 0) {
			struct strategy *s;

			if (c->nstrats == scap) {
				scap = scap ? scap * 2 : 64;
				c->strats = dft_xreallocarray(c->strats,
					(size_t)scap, sizeof(*c->strats));
			}
			s = &c->strats[c->nstrats++];
			s->rec = rec;
			s->id = dft_json_str(rec, "id", "");
			s->cls = dft_json_str(rec, "class", "");
			s->level = dft_json_str(rec, "level", "");
		} else {
			json_object_put(rec);
		}
	}
	dft_reader_release(&r);
	return rc < 0 ? -1 : 0;
}

int
catalogue_load(struct catalogue *c, const char *bib_path,
	       const char *cat_path)
{
	memset(c, 0, sizeof(*c));
	if (load_bib(c, bib_path) != 0)
		return -1;
	return load_catalogue(c, cat_path);
}

void
catalogue_release(struct catalogue *c)
{
	for (int i = 0; i < c->nbib; i++)
		paper_release(&c->bib[i]);
	free(c->bib);
	for (int i = 0; i < c->nclasses; i++) {
		struct bclass *b = &c->classes[i];

		free(b->name);
		free(b->component);
		strs_free(b->match, b->nmatch);
		strs_free(b->insights, b->ninsights);
		strs_free(b->exact, b->nexact);
		strs_free(b->relterms, b->nrelterms);
		for (int k = 0; k < b->npairs; k++) {
			free(b->pairs[k][0]);
			free(b->pairs[k][1]);
		}
	}
	free(c->classes);
	for (int i = 0; i < c->nstrats; i++)
		json_object_put(c->strats[i].rec);
	free(c->strats);
	memset(c, 0, sizeof(*c));
}

/*
 * The class of a finding: its insight code first (the rule that fired
 * says most precisely what it is), then the first class, in catalogue
 * order, with a match fragment contained in the metric name.
 */
const struct bclass *
catalogue_class_for(const struct catalogue *c, const char *metric,
		    const char *insight)
{
	if (insight != NULL && *insight != '\0')
		for (int i = 0; i < c->nclasses; i++)
			for (int k = 0; k < c->classes[i].ninsights; k++)
				if (strcmp(c->classes[i].insights[k],
					   insight) == 0)
					return &c->classes[i];
	if (metric == NULL)
		return NULL;
	for (int i = 0; i < c->nclasses; i++)
		for (int k = 0; k < c->classes[i].nmatch; k++)
			if (strstr(metric, c->classes[i].match[k]) != NULL)
				return &c->classes[i];
	return NULL;
}

const struct bclass *
catalogue_class(const struct catalogue *c, const char *name)
{
	for (int i = 0; i < c->nclasses; i++)
		if (strcmp(c->classes[i].name, name) == 0)
			return &c->classes[i];
	return NULL;
}

const struct paper *
catalogue_bib(const struct catalogue *c, const char *key)
{
	for (int i = 0; i < c->nbib; i++)
		if (strcmp(c->bib[i].key, key) == 0)
			return &c->bib[i];
	return NULL;
}

/* The citation object used in proposals and reports. */
json_object *
paper_citation(const struct paper *p)
{
	json_object *o = json_object_new_object();
	json_object *a = json_object_new_array();

	json_object_object_add(o, "key", dft_jstr(p->key));
	json_object_object_add(o, "title", dft_jstr(p->title));
	for (int i = 0; i < p->nauthors; i++)
		json_object_array_add(a, dft_jstr(p->authors[i]));
	json_object_object_add(o, "authors", a);
	json_object_object_add(o, "year",
			       p->year ? dft_jint(p->year) : NULL);
	json_object_object_add(o, "venue", dft_jstr(p->venue));
	json_object_object_add(o, "doi", dft_jstr(p->doi));
	json_object_object_add(o, "arxiv", dft_jstr(p->arxiv));
	json_object_object_add(o, "url", dft_jstr(p->url));
	json_object_object_add(o, "source", dft_jstr(p->source));
	return o;
}
