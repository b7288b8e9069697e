/*
 * sections.c - the sections of the report: the header, the pipeline flow,
 * the charts, the iterations, the pitfalls, the summary, the step timings
 * and the artifacts (main() calls them in the document's order; the
 * Diagnosis section is diagnosis.c's).  Each prints what the records
 * collected in struct run say, or "not run" and a not_run entry.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "report.h"

static const char *NR = "not run";

static void
said_not_run(struct run *r, const char *what)
{
	json_object_array_add(r->not_run, dft_jstr(what));
}

static json_object *
step(struct run *r, const char *label)
{
	json_object *s = NULL;

	json_object_object_get_ex(r->steps, label, &s);
	return s;
}

static char *
join_strings(json_object *arr, const char *sep, const char *empty)
{
	struct dft_buf b;
	size_t n = arr != NULL && json_object_is_type(arr, json_type_array) ?
		   json_object_array_length(arr) : 0;

	if (n == 0)
		return dft_xstrdup(empty);
	dft_buf_init(&b);
	for (size_t i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(arr, i);
		const char *s = json_object_is_type(e, json_type_string) ?
			json_object_get_string(e) : dft_json_str(e, "id",
			json_object_get_string(e));

		if (i > 0)
			dft_buf_adds(&b, sep);
		dft_buf_adds(&b, s != NULL ? s : "?");
	}
	return dft_buf_detach(&b);
}

/*
 * At BUF + K (of SIZE bytes): the first 8 names of the array ARR, each
 * quoted as code, then how many more (a long list would hide the rest);
 * returns the new K, which may reach SIZE (the text is then cut).
 */
static size_t
names_text(char *buf, size_t size, size_t k, json_object *arr)
{
	size_t n = json_object_array_length(arr);

	for (size_t i = 0; i < n && i < 8 && k < size; i++)
		k += (size_t)snprintf(buf + k, size - k, "%s `%.80s`",
			i ? "," : "", json_object_get_string(
			json_object_array_get_idx(arr, i)));
	if (n > 8 && k < size)
		k += (size_t)snprintf(buf + k, size - k, " and %zu more",
				      n - 8);
	return k;
}

static char *
authors_short(json_object *c)
{
	json_object *a;
	size_t n;
	const char *first;

	if (!json_object_object_get_ex(c, "authors", &a) ||
	    (n = json_object_array_length(a)) == 0)
		return dft_xstrdup("unknown authors");
	first = json_object_get_string(json_object_array_get_idx(a, 0));
	if (n == 1)
		return dft_xstrdup(first);
	if (n == 2)
		return dft_xasprintf("%s and %s", first,
			json_object_get_string(json_object_array_get_idx(a, 1)));
	return dft_xasprintf("%s et al.", first);
}

static char *
evidence_text(json_object *p)
{
	json_object *ev, *rel;
	char *au, *s;

	if (p == NULL || !json_object_object_get_ex(p, "evidence", &ev) ||
	    ev == NULL)
		return NULL;
	json_object_object_get_ex(ev, "relevance", &rel);
	au = authors_short(ev);
	s = dft_xasprintf("%s, %s, %lld, score=%lld/100 — %s",
			  dft_json_str(ev, "title", "?"), au,
			  (long long)dft_json_int(ev, "year", 0),
			  (long long)dft_json_int(rel, "score", 0),
			  dft_json_str(ev, "url", "(no url)"));
	free(au);
	return s;
}

static int
step_cmp(const void *a, const void *b)
{
	json_object *x = *(json_object *const *)a, *y = *(json_object *const *)b;

	return strcmp(dft_json_str(x, "started_at", ""),
		      dft_json_str(y, "started_at", ""));
}

/* "18 findings: 3 critical, 9 high, 2 medium, 4 low, 0 info" */
static char *
findings_text(const struct counts *c)
{
	return dft_xasprintf("%d finding%s: %d critical, %d high, %d medium, "
			     "%d low, %d info", c->findings,
			     c->findings == 1 ? "" : "s", c->critical, c->high,
			     c->medium, c->low, c->info);
}

/* The application functions responsible for a bottleneck, from its own
 * "functions" array: "name share%[ at file:line]", largest share first (the
 * order of the record), at most 3, leaving out those under 0.5%; NULL when
 * there are none. */
static char *
bottleneck_functions(json_object *bn)
{
	json_object *fs;
	struct dft_buf b;
	int shown = 0;

	if (!json_object_object_get_ex(bn, "functions", &fs) ||
	    !json_object_is_type(fs, json_type_array))
		return NULL;
	dft_buf_init(&b);
	for (size_t i = 0; i < json_object_array_length(fs) && shown < 3;
	     i++) {
		json_object *f = json_object_array_get_idx(fs, i);
		const char *name = dft_json_str(f, "name", NULL);
		const char *file = dft_json_str(f, "file", NULL);
		double share = dft_json_double(f, "share", 0);
		int64_t line = dft_json_int(f, "line", 0);

		if (name == NULL || share < 0.005)
			continue;
		if (b.len > 0)
			dft_buf_adds(&b, ", ");
		/* "(no enclosing function)" reads as such inside parentheses */
		if (name[0] == '(' && name[strlen(name) - 1] == ')')
			dft_buf_addf(&b, "%.*s %.0f%%", (int)strlen(name) - 2,
				     name + 1, share * 100);
		else
			dft_buf_addf(&b, "%s %.0f%%", name, share * 100);
		if (file != NULL && *file != '\0') {
			const char *sl = strrchr(file, '/');

			dft_buf_addf(&b, " at %s", sl != NULL ? sl + 1 : file);
			if (line > 0)
				dft_buf_addf(&b, ":%lld", (long long)line);
		}
		shown++;
	}
	if (b.len == 0) {
		dft_buf_release(&b);
		return NULL;
	}
	return dft_buf_detach(&b);
}

/* Unique "metric" list of the bottlenecks (score 4+), in order; without the
 * view, each metric is followed by the functions responsible for its first
 * (highest-scored) bottleneck, e.g. "small_write_pct (write_records 100%)". */
static char *
bottleneck_list(json_object *bns, int with_view)
{
	json_object *seen = json_object_new_object();
	struct dft_buf b;

	dft_buf_init(&b);
	for (size_t i = 0; bns != NULL && i < json_object_array_length(bns);
	     i++) {
		json_object *bn = json_object_array_get_idx(bns, i);
		char *k;

		if (severity_rank(bn) < 4)
			continue;
		k = with_view ? dft_xasprintf("%s:%s",
			dft_json_str(bn, "metric", "?"),
			dft_json_str(bn, "view", "?")) :
			dft_xstrdup(dft_json_str(bn, "metric", "?"));
		if (!json_object_object_get_ex(seen, k, NULL)) {
			char *fn = with_view ? NULL :
				   bottleneck_functions(bn);

			json_object_object_add(seen, k, NULL);
			if (b.len > 0)
				dft_buf_adds(&b, ", ");
			dft_buf_adds(&b, k);
			if (fn != NULL)
				dft_buf_addf(&b, " (%s)", fn);
			free(fn);
		}
		free(k);
	}
	json_object_put(seen);
	return dft_buf_detach(&b);
}

/* The title and the lines under it: application, date, platform. */
void
report_header(struct doc *d, struct run *r, const char *title)
{
	char when[96];

	doc_h(d, 1, "%s", title);
	{
		const char *url = dft_json_str(r->session, "url",
			dft_json_str(r->pipeline, "url", NULL));
		const char *ref = dft_json_str(r->session, "ref",
			dft_json_str(r->pipeline, "ref", NULL));
		const char *created = dft_json_str(r->session, "created_at",
						   NULL);

		const char *commit = dft_json_str(r->session, "commit",
			dft_json_str(r->pipeline, "commit", NULL));

		if (ref != NULL && *ref == '\0')
			ref = NULL;
		if (commit != NULL && *commit == '\0')
			commit = NULL;
		if (url != NULL && ref != NULL && commit != NULL)
			doc_line(d, "Application: %s @ %s (commit %.12s)", url,
				 ref, commit);
		else if (url != NULL)
			doc_line(d, "Application: %s @ %s", url,
				 ref != NULL ? ref : commit != NULL ? commit :
				 "default branch (commit not recorded)");
		else
			doc_line(d, "Application: %s", NR);
		if (created != NULL) {
			snprintf(when, sizeof(when), "%.10s %.5s UTC", created,
				 strlen(created) > 11 ? created + 11 : "");
		} else {
			time_t now = time(NULL);
			const char *sde = getenv("SOURCE_DATE_EPOCH");
			long v;
			struct tm tm;

			if (sde != NULL && dft_parse_long(sde, 0, 4102444800L,
							  &v) == 0)
				now = (time_t)v;
			gmtime_r(&now, &tm);
			strftime(when, sizeof(when), "%Y-%m-%d %H:%M UTC "
				 "(report written; run date not recorded)", &tm);
		}
		doc_line(d, "Date: %s", when);
		doc_line(d, "Platform: %s", dft_json_str(r->pipeline, "platform",
							  "not recorded"));
	}
	doc_blank(d);
}

void
flow(struct doc *d, struct run *r, const struct counts *c)
{
	json_object *s4 = step(r, "step_4_build_install");
	json_object *s5 = step(r, "step_5_smoke_test");
	json_object *s6 = step(r, "step_6_copy_annotated");
	json_object *s9 = step(r, "step_9_build_annotated");
	json_object *s10 = step(r, "step_10_trace_run");
	json_object *tr = dft_json_path(r->pipeline, "tracer");
	struct seg *base = r->nsegs > 0 ? &r->segs[0] : NULL;
	const char *bt = dft_json_str(r->pipeline, "build_tool",
				      dft_json_str(r->session, "build_tool",
						   NULL));

	doc_h(d, 2, "What Ran Correctly (Pipeline Flow)");
	if (dft_json_path(r->pipeline, "failed_baseline") != NULL) {
		json_object *fb = dft_json_path(r->pipeline, "failed_baseline");

		doc_line(d, "**Warning:** the baseline smoke test failed (exit "
			 "%lld: %s); every step after it was measured on a "
			 "failed run (--keep-going).",
			 (long long)dft_json_int(fb, "exit", 0),
			 dft_json_str(fb, "error", "no error line"));
		doc_blank(d);
	}
	/* 1 */
	if (r->session != NULL) {
		const char *how = strcmp(dft_json_str(r->session,
			"source_kind", "git"), "copy") == 0 ? "copied" :
			"cloned";
		const char *st4 = dft_json_str(s4, "status", NULL);

		if (st4 == NULL)
			doc_oli(d, 1, "Session setup — %s %s, build not run",
				how, dft_json_str(r->session, "url", "?"));
		else if (strcmp(st4, "ok") == 0)
			doc_oli(d, 1, "Session setup — %s %s, built with %s",
				how, dft_json_str(r->session, "url", "?"),
				bt != NULL ? bt : "unknown build tool");
		else
			doc_oli(d, 1, "Session setup — %s %s, build with %s "
				"%s", how, dft_json_str(r->session, "url", "?"),
				bt != NULL ? bt : "unknown build tool", st4);
	} else {
		doc_oli(d, 1, "Session setup — %s", NR);
		said_not_run(r, "session setup");
	}
	/* 2 */
	if (tr != NULL && json_object_is_type(tr, json_type_object)) {
		const char *kind = dft_json_str(tr, "kind", "");

		const char *ver = dft_json_str(tr, "version", NULL);

		/* the bundled runtime is dft's own, no dftracer release: it
		 * has no dftracer version to print */
		if (strcmp(kind, "bundled") == 0)
			doc_oli(d, 2, "dftracer install — the bundled dft "
				"runtime (dftracer's interface, no dftracer "
				"release) at %s", dft_json_str(tr, "dir", "?"));
		else
			doc_oli(d, 2, "dftracer install — %s%s, installed to "
				"%s%s", ver != NULL ? "version " :
				"version not recorded", ver != NULL ? ver : "",
				dft_json_str(tr, "dir", "?"),
				strcmp(kind, "system") == 0 ?
				" (found on the system)" : "");
	} else {
		doc_oli(d, 2, "dftracer install — %s", NR);
		said_not_run(r, "dftracer install");
	}
	/* 3 */
	if (s6 != NULL && dft_json_path(s6, "files") != NULL)
		doc_oli(d, 3, "Source copy — %lld files copied to annotated/",
			(long long)dft_json_int(s6, "files", 0));
	else if (s6 != NULL)
		doc_oli(d, 3, "Source copy — %s (file count not recorded)",
			dft_json_str(s6, "status", "?"));
	else {
		doc_oli(d, 3, "Source copy — %s", NR);
		said_not_run(r, "source copy");
	}
	/* 4 */
	if (json_object_array_length(r->annotations) > 0) {
		/* counted as the pipeline's annotation box counts them:
		 * dft-cost's "do not annotate" decisions plus the functions
		 * dft-annotate skipped */
		doc_oli(d, 4, "Annotation — %ld files annotated (%ld functions), "
			"%ld functions skipped (%ld by dft-cost, %ld by "
			"dft-annotate)", c->files, c->functions,
			c->skipped_cost + c->skipped_annotate, c->skipped_cost,
			c->skipped_annotate);
	} else {
		doc_oli(d, 4, "Annotation — %s", NR);
		said_not_run(r, "annotation");
	}
	/* 5 */
	if (s9 != NULL) {
		const char *st = dft_json_str(s9, "status", "?");

		if (strcmp(st, "ok") == 0 && bt != NULL &&
		    strcmp(bt, "python") == 0) {
			const char *w = run_workspace(r, NULL);
			char *p = w != NULL ? dft_path_join(w, "install_ann") :
				  NULL;

			if (p != NULL && dft_is_dir(p))
				doc_oli(d, 5, "Build — Python application: the "
					"annotated copy installed into %s", p);
			else
				doc_oli(d, 5, "Build — Python application: "
					"nothing to build, the annotated "
					"sources run as they are");
			free(p);
		} else if (strcmp(st, "ok") == 0) {
			const char *w = run_workspace(r, NULL);
			char *p = w != NULL ? dft_path_join(w, "build_ann") :
				  NULL;

			doc_oli(d, 5, "Build — annotated binary built "
				"successfully at %s", p != NULL &&
				dft_is_dir(p) ? p : "(path not recorded)");
			free(p);
		}
		else
			doc_oli(d, 5, "Build — annotated build %s", st);
	} else {
		doc_oli(d, 5, "Build — %s", NR);
		said_not_run(r, "annotated build");
	}
	/* 6 */
	if (s5 != NULL) {
		const char *cmd = dft_json_str(s5, "command",
			dft_json_str(r->pipeline, "smoke_cmd", "?"));
		double secs = dft_json_double(s5, "run_s",
			dft_json_double(s5, "duration_s", 0));
		long rc = (long)dft_json_int(s5, "exit", 0);

		if (rc == 0)
			doc_oli(d, 6, "Smoke test — ran `%s`, completed in "
				"%.3f s", cmd, secs);
		else
			doc_oli(d, 6, "Smoke test — ran `%s`, failed with exit "
				"%ld after %.3f s", cmd, rc, secs);
	} else {
		doc_oli(d, 6, "Smoke test — %s", NR);
		said_not_run(r, "smoke test");
	}
	/* 7 */
	if (s10 != NULL && dft_json_path(s10, "trace_files") != NULL) {
		char ovh[2048] = "";
		json_object *th = dft_json_path(s10, "throttled");
		json_object *ot = dft_json_path(s10, "overhead_throttle");
		json_object *of = ot ? dft_json_path(ot, "functions") : NULL;
		const char *note = dft_json_str(s10, "overhead_note", NULL);

		/* the tracing overhead the pipeline measured, and what the
		 * throttle took out to keep it low */
		if (dft_json_path(s10, "overhead_pct") != NULL) {
			size_t k = (size_t)snprintf(ovh, sizeof(ovh),
				"; tracing overhead %.1f %% (smoke test traced "
				"%.3f s, untraced %.3f s, medians of %lld runs)",
				dft_json_double(s10, "overhead_pct", 0),
				dft_json_double(s10, "traced_median_s", 0),
				dft_json_double(s10, "untraced_median_s", 0),
				(long long)dft_json_int(s10, "timing_runs", 0));

			if (th != NULL && json_object_is_type(th, json_type_array) &&
			    k < sizeof(ovh)) {
				/* the most called 8 by name */
				k += (size_t)snprintf(ovh + k, sizeof(ovh) - k,
					"; throttled before the analysis:");
				k = names_text(ovh, sizeof(ovh), k, th);
				if (k < sizeof(ovh) &&
				    dft_json_path(s10, "overhead_before_throttle_pct"))
					k += (size_t)snprintf(ovh + k, sizeof(ovh) - k,
						 " (overhead before: %.1f %%)",
						 dft_json_double(s10,
						 "overhead_before_throttle_pct", 0));
			}
			/* the overhead budget's round: which of them, why */
			if (of != NULL && json_object_is_type(of, json_type_array) &&
			    json_object_array_length(of) > 0 && k < sizeof(ovh)) {
				k += (size_t)snprintf(ovh + k, sizeof(ovh) - k,
					"; over the %g %% budget at %.1f %%, by "
					"their estimated tracing cost (%.3g us a "
					"call):", dft_json_double(ot, "budget_pct", 0),
					dft_json_double(ot, "overhead_pct", 0),
					dft_json_double(ot, "call_cost_us", 0));
				k = names_text(ovh, sizeof(ovh), k, of);
				if (k < sizeof(ovh))
					k += (size_t)snprintf(ovh + k, sizeof(ovh) - k,
						" (estimated %.1f %% without them)",
						dft_json_double(ot, "estimate_pct", 0));
			}
			if (note != NULL && k < sizeof(ovh))
				snprintf(ovh + k, sizeof(ovh) - k, "; %s", note);
		}
		doc_oli(d, 7, "Trace collection — %lld trace files, %lld "
			"events, %.1f KB%s",
			(long long)dft_json_int(s10, "trace_files", 0),
			(long long)dft_json_int(s10, "events", 0),
			dft_json_double(s10, "trace_bytes", 0) / 1024, ovh);
	} else if (base != NULL) {
		json_object *in = NULL;
		size_t n = 0;
		double bytes = 0;
		int sized = 1;

		if (json_object_object_get_ex(base->summary, "inputs", &in))
			n = json_object_array_length(in);
		for (size_t i = 0; i < n; i++) {
			struct stat st;
			const char *p = json_object_get_string(
				json_object_array_get_idx(in, i));

			if (p != NULL && stat(p, &st) == 0)
				bytes += (double)st.st_size;
			else
				sized = 0;
		}
		if (sized && n > 0)
			doc_oli(d, 7, "Trace collection — %zu trace files, "
				"%lld events, %.1f KB", n,
				(long long)dft_json_int(base->summary, "events",
							0), bytes / 1024);
		else
			doc_oli(d, 7, "Trace collection — %zu trace files, "
				"%lld events, size not recorded", n,
				(long long)dft_json_int(base->summary, "events",
							0));
	} else {
		doc_oli(d, 7, "Trace collection — %s", NR);
		said_not_run(r, "trace collection");
	}
	/* 8 */
	if (base != NULL) {
		char *l = bottleneck_list(base->bottlenecks, 0);
		char *ft = findings_text(c);

		doc_oli(d, 8, "Trace analysis — %d bottleneck%s (critical or "
			"high) of %s%s%s", c->bottlenecks,
			c->bottlenecks == 1 ? "" : "s", ft,
			c->bottlenecks > 0 ? "; " : "",
			c->bottlenecks > 0 ? l : "");
		free(ft);
		free(l);
	} else {
		doc_oli(d, 8, "Trace analysis — %s", NR);
		said_not_run(r, "trace analysis");
	}
	/* 9 */
	if (r->loop != NULL) {
		doc_oli(d, 9, "Optimization loop — %lld iterations (stopped: "
			"%s); best speedup at iter %lld",
			(long long)dft_json_int(r->loop, "iterations", 0),
			dft_json_str(r->loop, "stop_reason", "?"),
			(long long)dft_json_int(r->loop, "best_iteration", 0));
	} else if (json_object_array_length(r->verdicts) > 0) {
		doc_oli(d, 9, "Optimization loop — %zu comparisons, stop "
			"reason not recorded",
			json_object_array_length(r->verdicts));
	} else {
		doc_oli(d, 9, "Optimization loop — %s", NR);
		said_not_run(r, "optimization loop");
	}
	doc_blank(d);
}

/* The last iteration before row i that was not rolled back, or NULL. */
static json_object *
prev_accepted(json_object *its, int i)
{
	for (int j = i - 1; j >= 0; j--) {
		json_object *p = json_object_array_get_idx(its, (size_t)j);

		if (strcmp(dft_json_str(p, "status", ""), "rolled_back") != 0)
			return p;
	}
	return NULL;
}

/* Applied proposal ids of one level, or "—". */
static char *
applied_level(json_object *it, const char *level)
{
	json_object *ap, *sel = json_object_new_array();
	char *s;

	if (json_object_object_get_ex(it, "applied", &ap) &&
	    json_object_is_type(ap, json_type_array))
		for (size_t i = 0; i < json_object_array_length(ap); i++) {
			json_object *a = json_object_array_get_idx(ap, i);
			const char *lv = json_object_is_type(a,
				json_type_string) ? NULL :
				dft_json_str(a, "level", NULL);
			const char *id = json_object_is_type(a,
				json_type_string) ? json_object_get_string(a) :
				dft_json_str(a, "id", "?");
			char pat[8];

			snprintf(pat, sizeof(pat), ".%s.", level);
			if ((lv != NULL && strcmp(lv, level) == 0) ||
			    (lv == NULL && strstr(id, pat) != NULL))
				json_object_array_add(sel, dft_jstr(id));
		}
	s = join_strings(sel, ", ", "—");
	json_object_put(sel);
	return s;
}

static json_object *
proposal_for(struct run *r, const char *id)
{
	json_object *p = NULL;

	if (!json_object_object_get_ex(r->by_id, id, &p))
		json_object_object_get_ex(r->by_strategy, id, &p);
	return p;
}

/* How many actions iteration it applied. */
static size_t
n_applied(json_object *it)
{
	json_object *ap;

	return json_object_object_get_ex(it, "applied", &ap) &&
	       json_object_is_type(ap, json_type_array) ?
	       json_object_array_length(ap) : 0;
}

/* Whether proposal p is for a bottleneck one of it's applied actions
 * names (by metric). */
static int
for_applied(json_object *it, json_object *p)
{
	json_object *ap = json_object_object_get(it, "applied");
	size_t n = n_applied(it);

	for (size_t i = 0; i < n; i++) {
		json_object *a = json_object_array_get_idx(ap, i);
		const char *m = json_object_is_type(a, json_type_object) ?
				dft_json_str(a, "bottleneck", NULL) : NULL;

		if (m == NULL || strcmp(m, dft_json_str(p, "metric", "")) == 0)
			return 1;
	}
	return 0;
}

/*
 * The L1 proposal listed for people beside iteration it. When it applied
 * actions: the first of the ids listed with the configuration its change
 * was chosen from (prev), then its own, whose bottleneck is the one its
 * actions were applied for; its own analysis may lead with another
 * finding (leveldb: the gathered writes left the syncs first, and the
 * iteration of small_write.L2.tune_gather listed "move fsync out of the
 * record loop"). Else the first it lists.
 */
static json_object *
listed_l1(struct run *r, json_object *it, json_object *prev, const char **id)
{
	int acts = n_applied(it) > 0;
	json_object *src[2] = { acts ? prev : NULL, it };

	for (int k = 0; k < 2; k++) {
		json_object *lst;

		if (src[k] == NULL ||
		    !json_object_object_get_ex(src[k], "listed_l1", &lst) ||
		    !json_object_is_type(lst, json_type_array))
			continue;
		for (size_t i = 0; i < json_object_array_length(lst); i++) {
			const char *x = json_object_get_string(
				json_object_array_get_idx(lst, i));
			json_object *p = x != NULL ? proposal_for(r, x) : NULL;

			if (!acts || (p != NULL && for_applied(it, p))) {
				*id = x;
				return p;
			}
		}
	}
	return NULL;
}

/* "change" texts of the applied proposals of one level. */
static char *
applied_changes(struct run *r, json_object *it, const char *level,
		json_object **first)
{
	json_object *ap;
	struct dft_buf b;

	dft_buf_init(&b);
	if (json_object_object_get_ex(it, "applied", &ap) &&
	    json_object_is_type(ap, json_type_array))
		for (size_t i = 0; i < json_object_array_length(ap); i++) {
			json_object *a = json_object_array_get_idx(ap, i);
			const char *id = json_object_is_type(a,
				json_type_string) ? json_object_get_string(a) :
				dft_json_str(a, "id", "?");
			json_object *p = proposal_for(r, id);
			const char *lv = json_object_is_type(a,
				json_type_string) ? dft_json_str(p, "level", "") :
				dft_json_str(a, "level", "");
			const char *ch;

			if (strcmp(lv, level) != 0)
				continue;
			ch = json_object_is_type(a, json_type_string) ? NULL :
			     dft_json_str(a, "change", NULL);
			if (ch == NULL)
				ch = dft_json_str(p, "change", id);
			if (b.len > 0)
				dft_buf_adds(&b, "; ");
			dft_buf_addf(&b, "%s (`%s`)", ch, id);
			if (first != NULL && *first == NULL && p != NULL)
				*first = p;
		}
	return dft_buf_detach(&b);
}

/* The change of an iteration: its own words, else what it applied. */
static char *
iteration_change(struct run *r, json_object *it)
{
	const char *ch = dft_json_str(it, "change", NULL);
	struct dft_buf b;

	if (ch != NULL && *ch)
		return dft_xstrdup(ch);
	dft_buf_init(&b);
	for (int l = 1; l <= 3; l++) {
		char lv[4];
		char *s;

		snprintf(lv, sizeof(lv), "L%d", l);
		s = applied_level(it, lv);
		if (strcmp(s, "—") != 0)
			dft_buf_addf(&b, "%s%s: %s", b.len ? "; " : "", lv, s);
		free(s);
	}
	(void)r;
	if (b.len == 0)
		dft_buf_adds(&b, "—");
	return dft_buf_detach(&b);
}

/* "median ±half-range %" of the timed runs, or the one traced run's. */
static void
iteration_median(json_object *it, char *out, size_t n)
{
	json_object *sm = dft_json_path(it, "samples");
	double c = dft_json_double(it, "completion_s", 0);

	if (sm != NULL && json_object_is_type(sm, json_type_object))
		snprintf(out, n, "%.3f s ±%.1f %%",
			 dft_json_double(sm, "median_s", 0),
			 dft_json_double(sm, "spread_pct", 0) / 2);
	else if (c > 0)
		snprintf(out, n, "%.3f s (one traced run)", c);
	else
		snprintf(out, n, "—");
}

/* The accepted configuration's median as the loop timed it next to
 * candidate it (test.before_s), or 0 when the record has none. */
static double
timed_beside_s(json_object *it)
{
	return dft_json_double(dft_json_path(it, "test"), "before_s", 0);
}

/*
 * The completion time a candidate was judged against: the accepted
 * configuration's median as the loop timed it next to the candidate
 * (test.before_s), else, for records without it, the accepted iteration's
 * own median.  The two differ when the machine's speed drifts between
 * iterations: the baseline timed at iteration 0 can be half of what it takes
 * while iteration 2 runs, and a report that set 0.106 s beside 0.202 s under
 * "unchanged" would contradict its own test.
 */
static double
judged_before_s(json_object *it, json_object *prev)
{
	double b = timed_beside_s(it);

	return b > 0 ? b : dft_json_double(prev, "completion_s", 0);
}

/* The test against the accepted configuration:
 * "-20.8 % against 0.318 s, p = 0.0079". */
static void
iteration_test(json_object *it, char *out, size_t n)
{
	json_object *t = dft_json_path(it, "test"), *p = NULL;
	double b = timed_beside_s(it);
	char against[48] = "";

	if (t == NULL || !json_object_is_type(t, json_type_object) ||
	    !json_object_object_get_ex(t, "p", &p) || p == NULL) {
		snprintf(out, n, "—");
		return;
	}
	if (b > 0)
		snprintf(against, sizeof(against), " against %.3f s", b);
	snprintf(out, n, "%+.1f %%%s, p = %.2g%s",
		 dft_json_double(t, "pct", 0), against,
		 json_object_get_double(p),
		 dft_json_bool(t, "significant", 0) ? "" : " (not significant)");
}

/* baseline, accepted (verdict), rolled back (why), or the verdict. */
static char *
iteration_decision(json_object *it)
{
	const char *st = dft_json_str(it, "status", "");
	const char *vd = dft_json_str(it, "verdict", NULL);
	const char *why = dft_json_str(it, "reason", NULL);

	if (strcmp(st, "baseline") == 0)
		return dft_xstrdup("baseline");
	if (strcmp(st, "accepted") == 0)
		return dft_xasprintf("accepted (%s)", vd ? vd : "improved");
	if (strcmp(st, "rolled_back") == 0)
		return why ? dft_xasprintf("rolled back: %s", why) :
		       vd ? dft_xasprintf("rolled back (%s)", vd) :
			    dft_xstrdup("rolled back");
	return dft_xstrdup(vd ? vd : "—");
}

void
iteration_table(struct doc *d, struct run *r, json_object *its, int n)
{
	static const char *const head[] = { "Iter", "Change",
		"Median ± spread", "Test", "Decision", "New bottlenecks",
		"Resolved" };

	doc_table(d, 7, head);
	if (n == 0) {
		struct seg *base = r->nsegs > 0 ? &r->segs[0] : NULL;
		char *bl = base != NULL ? bottleneck_list(base->bottlenecks, 1) :
			   NULL;

		if (base != NULL) {
			const char *row[] = { "0", "baseline", NR, "—",
				"baseline", *bl ? bl : "—", "—" };
			doc_row(d, 7, row);
		} else {
			const char *row[] = { "0", NR, NR, NR, NR, NR, "—" };
			doc_row(d, 7, row);
		}
		free(bl);
		doc_end_table(d);
		return;
	}
	for (int i = 0; i < n; i++) {
		json_object *it = json_object_array_get_idx(its, (size_t)i);
		int k = (int)dft_json_int(it, "iteration", i);
		char num[16], med[64], test[64];
		char *ch, *dc, *nw, *rs;
		json_object *x = NULL;

		snprintf(num, sizeof(num), "%d", k);
		iteration_median(it, med, sizeof(med));
		iteration_test(it, test, sizeof(test));
		dc = iteration_decision(it);
		if (k == 0) {
			ch = dft_xstrdup("baseline");
			json_object_object_get_ex(it, "bottlenecks", &x);
			nw = join_strings(x, ", ", "—");
			rs = dft_xstrdup("—");
		} else {
			ch = iteration_change(r, it);
			json_object_object_get_ex(it, "new", &x);
			nw = join_strings(x, ", ", "—");
			x = NULL;
			json_object_object_get_ex(it, "resolved", &x);
			rs = join_strings(x, ", ", "—");
		}
		{
			const char *row[] = { num, ch, med, test, dc, nw, rs };

			doc_row(d, 7, row);
		}
		free(ch);
		free(dc);
		free(nw);
		free(rs);
	}
	doc_end_table(d);
}

void
iteration_sections(struct doc *d, struct run *r, json_object *its, int n)
{
	for (int i = 0; i < n; i++) {
		json_object *it = json_object_array_get_idx(its, (size_t)i);
		int k = (int)dft_json_int(it, "iteration", i);
		json_object *prev = NULL, *first = NULL, *l1 = NULL;
		char *c1, *c2, *c3, *ev;
		double b, a, cb, ca;

		if (k == 0)
			continue;
		prev = prev_accepted(its, i);
		c2 = applied_changes(r, it, "L2", &first);
		c3 = applied_changes(r, it, "L3", &first);
		c1 = applied_changes(r, it, "L1", &first);
		doc_blank(d);
		{
			char *s1 = applied_level(it, "L1");
			char *s2 = applied_level(it, "L2");
			char *s3 = applied_level(it, "L3");

			doc_h(d, 3, "Iteration %d — L1: %s; L2: %s; L3: %s%s", k,
			      s1, s2, s3, strcmp(dft_json_str(it, "status", ""),
						 "rolled_back") == 0 ?
			      " (rolled back)" : "");
			free(s1);
			free(s2);
			free(s3);
		}
		if (*c1 == '\0') {
			const char *id = NULL;

			l1 = listed_l1(r, it, prev, &id);
			if (l1 != NULL)
				doc_uli(d, "L1 (app): not applied automatically; "
					"listed for people: %s (`%s`)",
					dft_json_str(l1, "change", "?"), id);
			else
				doc_uli(d, "L1 (app): none applied");
		} else {
			doc_uli(d, "L1 (app): %s", c1);
		}
		doc_uli(d, "L2 (middleware): %s", *c2 ? c2 : "none applied");
		doc_uli(d, "L3 (filesystem): %s", *c3 ? c3 : "none applied");
		ev = evidence_text(first != NULL ? first : l1);
		doc_uli(d, "Evidence: %s", ev != NULL ? ev :
			"none (no cited proposal was applied)");
		b = dft_json_double(prev, "raw_write_rate_gbs", 0);
		a = dft_json_double(it, "raw_write_rate_gbs", 0);
		cb = judged_before_s(it, prev);
		ca = dft_json_double(it, "completion_s", 0);
		if (prev != NULL && b > 0)
			doc_uli(d, "Result: Before: raw_write_rate=%.3f GB/s, "
				"After: raw_write_rate=%.3f GB/s, Δ = %+.1f%% "
				"(completion %.3f s → %.3f s%s%s%s)", b, a,
				(a - b) / b * 100, cb, ca,
				timed_beside_s(it) > 0 ? ", timed side by side" :
				"",
				dft_json_str(it, "verdict", NULL) ? ", verdict " :
				"", dft_json_str(it, "verdict", ""));
		else
			doc_uli(d, "Result: Before: raw_write_rate=%s, After: "
				"raw_write_rate=%.3f GB/s, Δ = %s",
				prev != NULL ? "0 (no writes)" : NR, a, NR);
		if (i == n - 1 && r->loop != NULL)
			doc_uli(d, "Stop reason: %s",
				dft_json_str(r->loop, "stop_reason", "?"));
		free(c1);
		free(c2);
		free(c3);
		free(ev);
	}
}

void
pitfalls(struct doc *d, struct run *r)
{
	size_t n = json_object_array_length(r->pitfalls);

	doc_blank(d);
	doc_h(d, 2, "Lessons Learned (Pitfalls)");
	if (n == 0) {
		doc_line(d, "No pitfall recorded.");
		return;
	}
	for (size_t i = 0; i < n; i++) {
		json_object *p = json_object_array_get_idx(r->pitfalls, i), *x;
		char *files, *tags, *err;

		json_object_object_get_ex(p, "lesson_files", &x);
		files = join_strings(x, ", ", "not recorded");
		x = NULL;
		json_object_object_get_ex(p, "tags", &x);
		tags = join_strings(x, ", ", "none");
		err = dft_xstrdup(dft_json_str(p, "error", ""));
		for (char *c = err; *c != '\0'; c++)
			if (*c == '`' || *c == '\n')
				*c = *c == '`' ? '\'' : ' ';
		if (i > 0)
			doc_blank(d);
		doc_h(d, 3, "Pitfall: %s", dft_json_str(p, "title", "?"));
		doc_uli(d, "Step: %s", dft_json_str(p, "step", "?"));
		doc_uli(d, "Error: (verbatim excerpt) `%s`", err);
		doc_uli(d, "Root cause: %s", dft_json_str(p, "root_cause", "?"));
		doc_uli(d, "Fix: %s", dft_json_str(p, "fix", "?"));
		doc_uli(d, "Lesson added to: %s as tag `%s`", files, tags);
		free(files);
		free(tags);
		free(err);
	}
}

void
summary_table(struct doc *d, struct run *r, json_object *its, int n,
	      const struct counts *c)
{
	static const char *const head[] = { "Category", "Value" };
	struct seg *base = r->nsegs > 0 ? &r->segs[0] : NULL;
	size_t na = json_object_array_length(r->annotations);
	char v[8][200];
	json_object *best = NULL, *it0 = n > 0 ?
		json_object_array_get_idx(its, 0) : NULL;

	if (na > 0) {
		snprintf(v[0], sizeof(v[0]), "%ld", c->files);
		snprintf(v[1], sizeof(v[1]), "%ld", c->functions);
	} else {
		snprintf(v[0], sizeof(v[0]), "%s", NR);
		snprintf(v[1], sizeof(v[1]), "%s", NR);
	}
	if (base != NULL) {
		char *ft = findings_text(c);

		snprintf(v[2], sizeof(v[2]), "%d bottleneck%s (critical or "
			 "high) of %s", c->bottlenecks,
			 c->bottlenecks == 1 ? "" : "s", ft);
		free(ft);
	} else {
		snprintf(v[2], sizeof(v[2]), "%s", NR);
	}
	if (r->loop != NULL)
		snprintf(v[3], sizeof(v[3]), "%d (max 10, stopped: %s)",
			 c->iterations,
			 dft_json_str(r->loop, "stop_reason", "?"));
	else if (n > 1)
		snprintf(v[3], sizeof(v[3]), "%d (max 10, stop reason not "
			 "recorded)", c->iterations);
	else
		snprintf(v[3], sizeof(v[3]), "%s", NR);
	for (int i = 1; i < n; i++) {
		json_object *it = json_object_array_get_idx(its, (size_t)i);

		if (strcmp(dft_json_str(it, "status", ""), "rolled_back") != 0 &&
		    (best == NULL || dft_json_double(it, "raw_write_rate_gbs",
			0) > dft_json_double(best, "raw_write_rate_gbs", 0)))
			best = it;
	}
	/* a loop that ran and applied nothing applied none of each level */
	if (n > 1 || c->loop_ran)
		snprintf(v[4], sizeof(v[4]), "L1=%d, L2=%d, L3=%d",
			 c->applied[0], c->applied[1], c->applied[2]);
	else
		snprintf(v[4], sizeof(v[4]), "%s", NR);
	if (best != NULL && dft_json_double(it0, "raw_write_rate_gbs", 0) > 0) {
		double r0 = dft_json_double(it0, "raw_write_rate_gbs", 0);
		double rb = dft_json_double(best, "raw_write_rate_gbs", 0);

		snprintf(v[5], sizeof(v[5]), "%+.1f %% (iter 0 → iter %lld)",
			 (rb - r0) / r0 * 100,
			 (long long)dft_json_int(best, "iteration", 0));
	} else if (n > 1 && best == NULL) {
		snprintf(v[5], sizeof(v[5]), "none (no iteration was "
			 "accepted)");
	} else {
		snprintf(v[5], sizeof(v[5]), "%s", NR);
	}
	if (best != NULL && dft_json_double(it0, "completion_s", 0) > 0) {
		/*
		 * Each accepted step's own ratio, timed side by side, chained
		 * from iteration 0 to the best: the iterations' medians were
		 * timed minutes apart and drift with the machine's load.
		 */
		double c0 = dft_json_double(it0, "completion_s", 0), ratio = 1;
		int side = 0;

		for (int i = 1; i < n; i++) {
			json_object *it = json_object_array_get_idx(its,
								    (size_t)i);
			double b;

			if (strcmp(dft_json_str(it, "status", ""),
				   "rolled_back") == 0)
				continue;
			b = judged_before_s(it, prev_accepted(its, i));
			side |= timed_beside_s(it) > 0;
			if (b > 0)
				ratio *= dft_json_double(it, "completion_s", 0) /
					 b;
			if (it == best)
				break;
		}
		snprintf(v[6], sizeof(v[6]), "%+.1f %% (%.3f s → %.3f s%s)",
			 (1 - ratio) * 100, c0, c0 * ratio,
			 side ? ", each step timed side by side" : "");
	} else if (n > 1 && best == NULL) {
		snprintf(v[6], sizeof(v[6]), "none (no iteration was "
			 "accepted)");
	} else {
		snprintf(v[6], sizeof(v[6]), "%s", NR);
	}
	{
		double sum = 0;

		json_object_object_foreach(r->cited, k, sc) {
			(void)k;
			sum += json_object_get_double(sc);
		}
		if (c->papers > 0)
			snprintf(v[7], sizeof(v[7]), "%d (avg %.0f/100)",
				 c->papers, sum / c->papers);
		else
			snprintf(v[7], sizeof(v[7]), "%s", NR);
	}
	doc_blank(d);
	doc_h(d, 2, "Summary");
	doc_table(d, 2, head);
	{
		const char *rows[][2] = {
			{ "Files annotated", v[0] },
			{ "Functions annotated", v[1] },
			{ "Bottlenecks diagnosed", v[2] },
			{ "Optimization iterations", v[3] },
			{ "Optimizations applied", v[4] },
			{ "Raw write rate improvement", v[5] },
			{ "Observed completion improvement", v[6] },
			{ "Papers cited (avg relevance score)", v[7] },
		};
		char pit[32];
		size_t np = json_object_array_length(r->pitfalls);
		long fixed = 0;

		for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
			doc_row(d, 2, rows[i]);
		for (size_t i = 0; i < np; i++)
			if (*dft_json_str(json_object_array_get_idx(
				r->pitfalls, i), "fix", "") != '\0')
				fixed++;
		if (np == 0 && r->pipeline == NULL &&
		    json_object_object_length(r->steps) == 0)
			snprintf(pit, sizeof(pit), "%s", NR);
		else
			snprintf(pit, sizeof(pit), "%ld", fixed);
		{
			const char *row[] = { "Pitfalls resolved", pit };

			doc_row(d, 2, row);
		}
	}
	doc_end_table(d);
}

static json_object *
timings_from_file(const char *ws)
{
	char *p;
	json_object *a;

	if (ws == NULL)
		return NULL;
	p = dft_path_join(ws, "step_timings.json");
	a = dft_exists(p) ? dft_json_load(p) : NULL;
	free(p);
	if (a != NULL && !json_object_is_type(a, json_type_array)) {
		json_object_put(a);
		a = NULL;
	}
	return a;
}

/* "Previous attempts: step_4_build_install 2 (failed 748.7 s, failed
 * 120.1 s)": the attempts of each step before the one in the table. */
static void
previous_attempts(struct doc *d, struct run *r, json_object **v, size_t n)
{
	struct dft_buf b;
	long total = 0;

	dft_buf_init(&b);
	for (size_t i = 0; i < n; i++) {
		const char *st = dft_json_str(v[i], "step", "?");
		json_object *all = NULL;
		size_t k;

		if (!json_object_object_get_ex(r->attempts, st, &all) ||
		    (k = json_object_array_length(all)) < 2)
			continue;
		dft_buf_addf(&b, "%s%s %zu (", b.len > 0 ? "; " : "", st,
			     k - 1);
		for (size_t j = 0; j + 1 < k; j++) {
			json_object *a = json_object_array_get_idx(all, j);

			dft_buf_addf(&b, "%s%s %.1f s", j > 0 ? ", " : "",
				     dft_json_str(a, "status", "?"),
				     dft_json_double(a, "duration_s", 0));
		}
		dft_buf_adds(&b, ")");
		total += (long)k - 1;
	}
	if (total > 0) {
		doc_blank(d);
		doc_line(d, "Previous attempts (%ld): %s", total, b.s);
	}
	dft_buf_release(&b);
}

/* The steps measured after a failed baseline smoke test (--keep-going). */
static void
failed_run_steps(struct doc *d, struct run *r, json_object **v, size_t n)
{
	struct dft_buf b;
	json_object *fb = dft_json_path(r->pipeline, "failed_baseline");

	dft_buf_init(&b);
	for (size_t i = 0; i < n; i++)
		if (dft_json_bool(v[i], "on_failed_run", 0))
			dft_buf_addf(&b, "%s%s", b.len > 0 ? ", " : "",
				     dft_json_str(v[i], "step", "?"));
	if (b.len > 0) {
		doc_blank(d);
		doc_line(d, "Steps measured on a failed run (the baseline "
			 "smoke test failed%s%s): %s",
			 fb != NULL ? ": " : "",
			 fb != NULL ? dft_json_str(fb, "error", "exit status "
				"not zero") : "", b.s);
	}
	dft_buf_release(&b);
}

void
step_timings(struct doc *d, struct run *r, const char *ws)
{
	static const char *const head[] = { "Step", "Started at", "Ended at",
		"Duration (s)" };
	json_object **v = NULL, *file = NULL;
	size_t n = 0;

	json_object_object_foreach(r->steps, k, s) {
		(void)k;
		v = dft_xreallocarray(v, n + 1, sizeof(*v));
		v[n++] = s;
	}
	if (n == 0 && (file = timings_from_file(ws)) != NULL) {
		for (size_t i = 0; i < json_object_array_length(file); i++) {
			v = dft_xreallocarray(v, n + 1, sizeof(*v));
			v[n++] = json_object_array_get_idx(file, i);
		}
	}
	if (n > 1)	/* v is NULL without steps: not for qsort */
		qsort(v, n, sizeof(*v), step_cmp);
	doc_blank(d);
	doc_h(d, 2, "Step Timings");
	doc_table(d, 4, head);
	for (size_t i = 0; i < n; i++) {
		char dur[32];
		const char *row[4];

		snprintf(dur, sizeof(dur), "%.3f",
			 dft_json_double(v[i], "duration_s", 0));
		row[0] = dft_json_str(v[i], "step", "?");
		row[1] = dft_json_str(v[i], "started_at", "");
		row[2] = dft_json_str(v[i], "ended_at", "");
		row[3] = dur;
		doc_row(d, 4, row);
	}
	if (n == 0) {
		const char *row[] = { NR, "", "", "" };

		doc_row(d, 4, row);
		said_not_run(r, "step timings");
	}
	doc_end_table(d);
	previous_attempts(d, r, v, n);
	failed_run_steps(d, r, v, n);
	free(v);
	json_object_put(file);
}

void
artifacts(struct doc *d, struct run *r, const char *ws, const char *md)
{
	static const char *const head[] = { "Artifact", "Path" };
	const char *names[] = { "Annotated source", "Annotated build",
		"Trace files", "Split traces", "Step timings",
		"Session report" };
	const char *rel[] = { "annotated/", "build_ann/", "traces/",
		"traces_split/", "step_timings.json", NULL };

	doc_blank(d);
	doc_h(d, 2, "Artifacts");
	doc_table(d, 2, head);
	for (int i = 0; i < 6; i++) {
		char *p = NULL;
		const char *row[2];

		if (i == 5)
			p = dft_xstrdup(md);
		else if (ws != NULL) {
			p = dft_path_join(ws, rel[i]);
			if (rel[i][strlen(rel[i]) - 1] == '/' && p[0] != '\0' &&
			    p[strlen(p) - 1] != '/') {
				char *q = dft_xasprintf("%s/", p);

				free(p);
				p = q;
			}
			if (!dft_exists(p)) {
				free(p);
				p = NULL;
			}
		}
		row[0] = names[i];
		row[1] = p != NULL ? p : NR;
		doc_row(d, 2, row);
		free(p);
	}
	doc_end_table(d);
	(void)r;
}

void
charts(struct doc *d, struct run *r, json_object *its, int n)
{
	struct seg *base = r->nsegs > 0 ? &r->segs[0] : NULL;
	struct dft_buf b;
	const char *ws = run_workspace(r, NULL);

	dft_buf_init(&b);
	dft_buf_adds(&b, "<h2>Charts</h2>\n");
	if (base != NULL) {
		chart_timeline(&b, dft_json_path(base->summary, "inputs"),
			       dft_json_double(base->summary, "time_start_us",
					       0),
			       dft_json_double(base->summary, "time_end_us", 0),
			       ws);
	} else {
		chart_not_run(&b, "I/O timeline per process",
			      "no trace analysis in the records");
		said_not_run(r, "I/O timeline chart");
	}
	/* time by layer */
	{
		size_t nl = base != NULL ? json_object_array_length(
			base->layers) : 0;
		const char **lab = dft_xcalloc(nl + 1, sizeof(char *));
		double *val = dft_xcalloc(nl + 1, sizeof(double));

		for (size_t i = 0; i < nl; i++) {
			json_object *l = json_object_array_get_idx(base->layers,
								   i);
			lab[i] = dft_json_str(l, "layer", "?");
			val[i] = dft_json_double(l, "time_s", 0);
		}
		chart_hbars(&b, "layers", "Time by layer", lab, val, (int)nl,
			    "s");
		if (nl == 0)
			said_not_run(r, "time by layer chart");
		free(lab);
		free(val);
	}
	/* time by function */
	{
		json_object *fs = base != NULL ?
			dft_json_path(base->summary, "functions") : NULL;
		size_t nf = fs != NULL ? json_object_array_length(fs) : 0;
		const char **lab;
		double *val;
		char **keep;
		int k = 0;

		if (nf > 15)
			nf = 15;
		lab = dft_xcalloc(nf + 1, sizeof(char *));
		val = dft_xcalloc(nf + 1, sizeof(double));
		keep = dft_xcalloc(nf + 1, sizeof(char *));
		for (size_t i = 0; i < nf; i++) {
			json_object *f = json_object_array_get_idx(fs, i);

			if (dft_json_double(f, "time_s", 0) <= 0)
				continue;
			keep[k] = dft_xasprintf("%s (%s)",
				dft_json_str(f, "name", "?"),
				dft_json_str(f, "cat", "?"));
			lab[k] = keep[k];
			val[k] = dft_json_double(f, "time_s", 0);
			k++;
		}
		chart_hbars(&b, "functions", "Time by function (top 15)", lab,
			    val, k, "s");
		if (k == 0)
			said_not_run(r, "time by function chart");
		for (int i = 0; i < k; i++)
			free(keep[i]);
		free(keep);
		free(lab);
		free(val);
	}
	chart_histogram(&b, base != NULL ? dft_json_path(base->summary,
		"size_histogram") : NULL);
	if (base == NULL || dft_json_path(base->summary,
					  "size_histogram") == NULL)
		said_not_run(r, "transfer-size histogram");
	/* before/after per iteration */
	{
		const char **lab = dft_xcalloc((size_t)n + 1, sizeof(char *));
		char **keep = dft_xcalloc((size_t)n + 1, sizeof(char *));
		double *rb = dft_xcalloc((size_t)n + 1, sizeof(double));
		double *ra = dft_xcalloc((size_t)n + 1, sizeof(double));
		double *cb = dft_xcalloc((size_t)n + 1, sizeof(double));
		double *ca = dft_xcalloc((size_t)n + 1, sizeof(double));
		int k = 0;

		for (int i = 1; i < n; i++) {
			json_object *it = json_object_array_get_idx(its,
								    (size_t)i);
			json_object *prev = prev_accepted(its, i);

			keep[k] = dft_xasprintf("iter %lld",
				(long long)dft_json_int(it, "iteration", i));
			lab[k] = keep[k];
			rb[k] = dft_json_double(prev, "raw_write_rate_gbs", 0);
			ra[k] = dft_json_double(it, "raw_write_rate_gbs", 0);
			cb[k] = judged_before_s(it, prev);
			ca[k] = dft_json_double(it, "completion_s", 0);
			k++;
		}
		chart_before_after(&b, "Raw write rate before and after each "
				   "iteration", lab, rb, ra, k, "GB/s");
		chart_before_after(&b, "Completion time before and after each "
				   "iteration", lab, cb, ca, k, "s");
		if (k == 0)
			said_not_run(r, "before/after charts");
		for (int i = 0; i < k; i++)
			free(keep[i]);
		free(keep);
		free(lab);
		free(rb);
		free(ra);
		free(cb);
		free(ca);
	}
	doc_html(d, b.s != NULL ? b.s : "");
	dft_buf_release(&b);
}
