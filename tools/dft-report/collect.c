/*
 * collect.c - reading the records of a run: each record is sorted into
 * struct run as it comes (collect), and the numbers and iteration rows
 * the sections print are computed from them once (run_counts,
 * run_iterations).  It writes nothing but the records passed through and
 * the --counts record.
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

static struct seg *
cur_seg(struct run *r)
{
	return r->nsegs > 0 ? &r->segs[r->nsegs - 1] : NULL;
}

static void
new_seg(struct run *r, json_object *summary)
{
	struct seg *s;

	r->segs = dft_xreallocarray(r->segs, (size_t)r->nsegs + 1,
				    sizeof(*r->segs));
	s = &r->segs[r->nsegs++];
	s->summary = summary;
	s->layers = json_object_new_array();
	s->views = json_object_new_array();
	s->bottlenecks = json_object_new_array();
	s->proposals = json_object_new_array();
}

static void
cite(struct run *r, json_object *c)
{
	const char *k = dft_json_str(c, "doi", NULL);
	json_object *rel;

	if (k == NULL)
		k = dft_json_str(c, "arxiv", NULL);
	if (k == NULL)
		k = dft_json_str(c, "title", NULL);
	if (k == NULL || json_object_object_get_ex(r->cited, k, NULL))
		return;
	json_object_object_get_ex(c, "relevance", &rel);
	json_object_object_add(r->cited, k, json_object_new_double(
		dft_json_double(rel, "score", 0)));
}

static void
collect(struct run *r, json_object *rec)
{
	const char *t = dft_record_type(rec);
	struct seg *s = cur_seg(r);
	static const char *const known[] = { "session", "pipeline", "loop",
		"step", "annotation", "function", "diagnostic", "chunk",
		"summary", "layer", "view", "bottleneck", "literature",
		"paper", "proposal", "delta", "verdict", "iteration",
		"pitfall", NULL };

	for (int i = 0; known[i] != NULL; i++)
		if (strcmp(t, known[i]) == 0)
			r->known++;
	diag_collect(&r->diag, rec);

	if (strcmp(t, "session") == 0) {
		if (r->session == NULL)
			r->session = json_object_get(rec);
	} else if (strcmp(t, "pipeline") == 0) {
		json_object_put(r->pipeline);
		r->pipeline = json_object_get(rec);
	} else if (strcmp(t, "loop") == 0) {
		json_object_put(r->loop);
		r->loop = json_object_get(rec);
	} else if (strcmp(t, "step") == 0) {
		const char *st = dft_json_str(rec, "step", "");

		if (dft_has_prefix(st, "step_")) {
			json_object *all;

			json_object_object_add(r->steps, st,
					       json_object_get(rec));
			if (!json_object_object_get_ex(r->attempts, st, &all)) {
				all = json_object_new_array();
				json_object_object_add(r->attempts, st, all);
			}
			json_object_array_add(all, json_object_get(rec));
		}
	} else if (strcmp(t, "annotation") == 0) {
		json_object_array_add(r->annotations, json_object_get(rec));
	} else if (strcmp(t, "function") == 0) {
		json_object *dec = dft_json_path(rec, "decision"), *an;

		r->functions++;
		if (dec != NULL &&
		    json_object_object_get_ex(dec, "annotate", &an) &&
		    json_object_is_type(an, json_type_boolean) &&
		    !json_object_get_boolean(an)) {
			char *k = dft_xasprintf("%s\037%s\037%lld",
				dft_json_str(rec, "file", ""),
				dft_json_str(rec, "name", ""),
				(long long)dft_json_int(rec, "line", 0));

			if (!json_object_object_get_ex(r->fn_seen, k, NULL)) {
				json_object_object_add(r->fn_seen, k, NULL);
				r->cost_skipped++;
			}
			free(k);
		}
	} else if (strcmp(t, "diagnostic") == 0) {
		r->diagnostics++;
	} else if (strcmp(t, "chunk") == 0) {
		json_object_array_add(r->chunks, json_object_get(rec));
	} else if (strcmp(t, "summary") == 0) {
		new_seg(r, json_object_get(rec));
	} else if (strcmp(t, "layer") == 0 && s != NULL) {
		json_object_array_add(s->layers, json_object_get(rec));
	} else if (strcmp(t, "view") == 0 && s != NULL) {
		json_object_array_add(s->views, json_object_get(rec));
	} else if (strcmp(t, "bottleneck") == 0 && s != NULL) {
		json_object_array_add(s->bottlenecks, json_object_get(rec));
	} else if (strcmp(t, "proposal") == 0) {
		const char *id = dft_json_str(rec, "id", NULL);
		const char *sid = dft_json_str(rec, "strategy", NULL);
		json_object *cs;

		if (s != NULL)
			json_object_array_add(s->proposals,
					      json_object_get(rec));
		if (id != NULL)
			json_object_object_add(r->by_id, id,
					       json_object_get(rec));
		if (sid != NULL)
			json_object_object_add(r->by_strategy, sid,
					       json_object_get(rec));
		if (json_object_object_get_ex(rec, "citations", &cs))
			for (size_t i = 0; i < json_object_array_length(cs);
			     i++)
				cite(r, json_object_array_get_idx(cs, i));
	} else if (strcmp(t, "verdict") == 0) {
		json_object_array_add(r->verdicts, json_object_get(rec));
	} else if (strcmp(t, "iteration") == 0) {
		json_object_array_add(r->iterations, json_object_get(rec));
	} else if (strcmp(t, "pitfall") == 0) {
		json_object_array_add(r->pitfalls, json_object_get(rec));
	}
}

int
process_stream(struct dft_reader *rd, void *ctx)
{
	struct run *r = ctx;
	json_object *rec;
	int rc;

	while ((rc = dft_reader_next(rd, &rec)) == 1) {
		if (!r->counts_only)
			dft_pass(stdout, rd);
		collect(r, rec);
		json_object_put(rec);
	}
	return rc < 0 ? DFT_EXIT_FATAL : DFT_EXIT_OK;
}

/* --functions FILE: function records that give findings their file:line.
 * They are read, not passed through (they are not this run's history). */
int
function_stream(struct dft_reader *rd, void *ctx)
{
	struct run *r = ctx;
	json_object *rec;
	int rc;

	while ((rc = dft_reader_next(rd, &rec)) == 1) {
		if (strcmp(dft_record_type(rec), "function") == 0)
			diag_collect(&r->diag, rec);
		json_object_put(rec);
	}
	return rc < 0 ? DFT_EXIT_FATAL : DFT_EXIT_OK;
}

void
run_init(struct run *r)
{
	memset(r, 0, sizeof(*r));
	r->steps = json_object_new_object();
	r->attempts = json_object_new_object();
	r->annotations = json_object_new_array();
	r->fn_seen = json_object_new_object();
	r->iterations = json_object_new_array();
	r->pitfalls = json_object_new_array();
	r->verdicts = json_object_new_array();
	r->chunks = json_object_new_array();
	r->by_id = json_object_new_object();
	r->by_strategy = json_object_new_object();
	r->cited = json_object_new_object();
	r->not_run = json_object_new_array();
	diag_init(&r->diag);
}

void
run_release(struct run *r)
{
	json_object_put(r->session);
	json_object_put(r->pipeline);
	json_object_put(r->loop);
	json_object_put(r->steps);
	json_object_put(r->attempts);
	json_object_put(r->annotations);
	json_object_put(r->fn_seen);
	json_object_put(r->iterations);
	json_object_put(r->pitfalls);
	json_object_put(r->verdicts);
	json_object_put(r->chunks);
	json_object_put(r->by_id);
	json_object_put(r->by_strategy);
	json_object_put(r->cited);
	json_object_put(r->not_run);
	diag_release(&r->diag);
	for (int i = 0; i < r->nsegs; i++) {
		json_object_put(r->segs[i].summary);
		json_object_put(r->segs[i].layers);
		json_object_put(r->segs[i].views);
		json_object_put(r->segs[i].bottlenecks);
		json_object_put(r->segs[i].proposals);
	}
	free(r->segs);
}

/*
 * Reads a workspace's records: records/all.ndjson (what dft-pipeline
 * assembles), else every .ndjson file of records/ in name order.
 */
int
read_workspace(struct run *r, const char *ws)
{
	char *all = dft_xasprintf("%s/records/all.ndjson", ws);
	char *argv[1];
	int st = 0;

	if (dft_exists(all)) {
		argv[0] = all;
		st = dft_each_input(1, argv, process_stream, r);
	} else {
		const char *subs[] = { "records", NULL };
		struct dirent **ents;
		char *dir = dft_path_join(ws, subs[0]);
		int n = scandir(dir, &ents, NULL, alphasort);

		if (n < 0) {
			dft_warn("cannot open '%s':", dir);
			st = DFT_EXIT_DATA;
		}
		for (int i = 0; i < n; i++) {
			if (dft_has_suffix(ents[i]->d_name, ".ndjson") &&
			    strcmp(ents[i]->d_name, "all.ndjson") != 0) {
				char *p = dft_path_join(dir, ents[i]->d_name);

				argv[0] = p;
				st = dft_worst(st, dft_each_input(1, argv,
					process_stream, r));
				free(p);
			}
			free(ents[i]);
		}
		if (n >= 0)
			free(ents);
		free(dir);
	}
	free(all);
	return st;
}

/* The workspace: the one given (--workspace), else the one the session or
 * pipeline record names; NULL when none. */
const char *
run_workspace(struct run *r, const char *given)
{
	const char *w = given;

	if (w == NULL && r->session != NULL)
		w = dft_json_str(r->session, "workspace", NULL);
	if (w == NULL && r->pipeline != NULL)
		w = dft_json_str(r->pipeline, "workspace", NULL);
	return w;
}

int
severity_rank(json_object *bn)
{
	const char *s = dft_json_str(bn, "severity", NULL);

	if (s != NULL) {
		if (strcmp(s, "critical") == 0) return 5;
		if (strcmp(s, "high") == 0) return 4;
		if (strcmp(s, "medium") == 0) return 3;
		if (strcmp(s, "low") == 0) return 2;
		return 1;
	}
	return (int)dft_json_int(bn, "score", 1);
}

static void
applied_levels(json_object *it, int l[3])
{
	json_object *ap;

	if (!json_object_object_get_ex(it, "applied", &ap) ||
	    !json_object_is_type(ap, json_type_array))
		return;
	for (size_t k = 0; k < json_object_array_length(ap); k++) {
		json_object *a = json_object_array_get_idx(ap, k);
		const char *id = json_object_is_type(a, json_type_string) ?
			json_object_get_string(a) : dft_json_str(a, "id", "");
		const char *lv = json_object_is_type(a, json_type_string) ?
			NULL : dft_json_str(a, "level", NULL);

		if (lv == NULL)
			lv = strstr(id, ".L1.") ? "L1" : strstr(id, ".L2.") ?
			     "L2" : strstr(id, ".L3.") ? "L3" : "";
		if (lv[0] == 'L' && lv[1] >= '1' && lv[1] <= '3')
			l[lv[1] - '1']++;
	}
}

void
run_counts(struct run *r, struct counts *c)
{
	struct seg *base = r->nsegs > 0 ? &r->segs[0] : NULL;
	size_t na = json_object_array_length(r->annotations);

	memset(c, 0, sizeof(*c));
	for (size_t i = 0; base != NULL &&
	     i < json_object_array_length(base->bottlenecks); i++) {
		switch (severity_rank(json_object_array_get_idx(
			base->bottlenecks, i))) {
		case 5: c->critical++; break;
		case 4: c->high++; break;
		case 3: c->medium++; break;
		case 2: c->low++; break;
		default: c->info++; break;
		}
		c->findings++;
	}
	c->bottlenecks = c->critical + c->high;
	for (size_t i = 0; i < na; i++) {
		json_object *a = json_object_array_get_idx(r->annotations, i);
		json_object *sk;
		long f = (long)dft_json_int(a, "functions", 0);

		if (strcmp(dft_json_str(a, "status", ""), "annotated") == 0 &&
		    f > 0)
			c->files++;
		c->functions += f;
		if (json_object_object_get_ex(a, "skipped", &sk)) {
			if (json_object_is_type(sk, json_type_array))
				c->skipped_annotate += (long)
					json_object_array_length(sk);
			else if (json_object_is_type(sk, json_type_int))
				c->skipped_annotate += (long)
					json_object_get_int64(sk);
		}
	}
	c->skipped_cost = r->cost_skipped;
	c->papers = json_object_object_length(r->cited);
	c->proposals = base != NULL ?
		(int)json_object_array_length(base->proposals) : 0;
	c->loop_ran = r->loop != NULL;
	c->iterations = r->loop != NULL ?
		(int)dft_json_int(r->loop, "iterations", 0) :
		json_object_array_length(r->iterations) > 1 ?
		(int)json_object_array_length(r->iterations) - 1 : 0;
	for (size_t i = 0; i < json_object_array_length(r->iterations); i++)
		applied_levels(json_object_array_get_idx(r->iterations, i),
			       c->applied);
}

/* --counts: one counts record, the numbers as the report prints them. */
void
emit_counts(const struct counts *c)
{
	json_object *o = json_object_new_object(), *ap = json_object_new_object();

	json_object_object_add(o, "type", dft_jstr("counts"));
	json_object_object_add(o, "v", dft_jint(1));
	json_object_object_add(o, "findings", dft_jint(c->findings));
	json_object_object_add(o, "critical", dft_jint(c->critical));
	json_object_object_add(o, "high", dft_jint(c->high));
	json_object_object_add(o, "medium", dft_jint(c->medium));
	json_object_object_add(o, "low", dft_jint(c->low));
	json_object_object_add(o, "info", dft_jint(c->info));
	json_object_object_add(o, "bottlenecks", dft_jint(c->bottlenecks));
	json_object_object_add(o, "files_annotated", dft_jint(c->files));
	json_object_object_add(o, "functions_annotated",
			       dft_jint(c->functions));
	json_object_object_add(o, "skipped_by_cost", dft_jint(c->skipped_cost));
	json_object_object_add(o, "skipped_by_annotate",
			       dft_jint(c->skipped_annotate));
	json_object_object_add(o, "papers", dft_jint(c->papers));
	json_object_object_add(o, "proposals", dft_jint(c->proposals));
	json_object_object_add(o, "iterations", dft_jint(c->iterations));
	json_object_object_add(ap, "L1", dft_jint(c->applied[0]));
	json_object_object_add(ap, "L2", dft_jint(c->applied[1]));
	json_object_object_add(ap, "L3", dft_jint(c->applied[2]));
	json_object_object_add(o, "applied", ap);
	dft_emit_put(stdout, o);
}

static int
iter_cmp(const void *a, const void *b)
{
	json_object *x = *(json_object *const *)a, *y = *(json_object *const *)b;

	return (int)(dft_json_int(x, "iteration", 0) -
		     dft_json_int(y, "iteration", 0));
}

/* The iteration rows: pipeline iteration records, else verdicts. */
int
run_iterations(struct run *r, json_object **out)
{
	size_t n = json_object_array_length(r->iterations);
	json_object *arr = json_object_new_array();

	if (n > 0) {
		json_object **v = dft_xcalloc(n, sizeof(*v));

		for (size_t i = 0; i < n; i++)
			v[i] = json_object_array_get_idx(r->iterations, i);
		qsort(v, n, sizeof(*v), iter_cmp);
		for (size_t i = 0; i < n; i++)
			json_object_array_add(arr, json_object_get(v[i]));
		free(v);
		*out = arr;
		return (int)n;
	}
	n = json_object_array_length(r->verdicts);
	for (size_t i = 0; i < n; i++) {
		json_object *v = json_object_array_get_idx(r->verdicts, i);
		json_object *it = json_object_new_object(), *bl, *x;

		if (i == 0) {
			json_object *z = json_object_new_object();

			json_object_object_add(z, "iteration", dft_jint(0));
			json_object_object_add(z, "status", dft_jstr("baseline"));
			json_object_object_add(z, "raw_write_rate_gbs",
				dft_jdouble(dft_json_double(dft_json_path(v,
				"raw_write_rate"), "before", 0) / 1e9));
			json_object_object_add(z, "completion_s", dft_jdouble(
				dft_json_double(dft_json_path(v,
				"completion_time"), "before", 0)));
			json_object_array_add(arr, z);
		}
		json_object_object_add(it, "iteration", dft_jint((int64_t)i + 1));
		json_object_object_add(it, "status", dft_jstr("compared"));
		if (json_object_object_get_ex(v, "applied", &x))
			json_object_object_add(it, "applied",
					       json_object_get(x));
		if (json_object_object_get_ex(v, "bottlenecks", &bl)) {
			if (json_object_object_get_ex(bl, "new", &x))
				json_object_object_add(it, "new",
						       json_object_get(x));
			if (json_object_object_get_ex(bl, "resolved", &x))
				json_object_object_add(it, "resolved",
						       json_object_get(x));
		}
		json_object_object_add(it, "raw_write_rate_gbs", dft_jdouble(
			dft_json_double(dft_json_path(v, "raw_write_rate"),
					"after", 0) / 1e9));
		json_object_object_add(it, "completion_s", dft_jdouble(
			dft_json_double(dft_json_path(v, "completion_time"),
					"after", 0)));
		json_object_object_add(it, "verdict", dft_jstr(dft_json_str(v,
			"verdict", NULL)));
		/* the test of the comparison, as in an iteration record */
		if (dft_json_path(v, "test") != NULL) {
			json_object *t = json_object_new_object(), *p;

			if (json_object_object_get_ex(dft_json_path(v, "test"),
						      "p", &p))
				json_object_object_add(t, "p",
						       json_object_get(p));
			json_object_object_add(t, "significant",
				json_object_new_boolean(dft_json_bool(
					dft_json_path(v, "test"),
					"significant", 0)));
			json_object_object_add(t, "pct", dft_jdouble(
				dft_json_double(dft_json_path(v,
					"completion_time"), "pct", 0)));
			json_object_object_add(it, "test", t);
		}
		json_object_array_add(arr, it);
	}
	*out = arr;
	return (int)json_object_array_length(arr);
}
