/*
 * diagnosis.c - the Diagnosis section of the report: where the run's time
 * went, from the first analysis's summary and bottleneck records (dft.7,
 * v 2): the verdict first, then each finding with its time at stake, its
 * evidence, its functions with file:line, the recommendation and its best
 * cited proposal (dft-papers' proposal records, else its paper records).
 * The HTML adds a chart of the time at stake per finding.
 *
 * A value a record does not carry is said to be "not recorded"; nothing is
 * computed here that the analysis did not measure.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

void
diag_init(struct diag *g)
{
	memset(g, 0, sizeof(*g));
	g->papers = json_object_new_array();
	g->funcs = json_object_new_object();
	g->same = json_object_new_object();
}

void
diag_release(struct diag *g)
{
	json_object_put(g->papers);
	json_object_put(g->funcs);
	json_object_put(g->same);
}

void
diag_collect(struct diag *g, json_object *rec)
{
	const char *t = dft_record_type(rec);

	if (strcmp(t, "summary") == 0) {
		g->summaries++;
	} else if (strcmp(t, "paper") == 0 && g->summaries == 1) {
		json_object_array_add(g->papers, json_object_get(rec));
	} else if (strcmp(t, "literature") == 0 && g->summaries == 1 &&
		   dft_json_str(rec, "same_as", NULL) != NULL &&
		   dft_json_str(rec, "bottleneck", NULL) != NULL) {
		json_object_object_add(g->same,
			dft_json_str(rec, "bottleneck", NULL),
			dft_jstr(dft_json_str(rec, "same_as", NULL)));
	} else if (strcmp(t, "function") == 0) {
		/* dft-funcs, dft-cost and dft-lint repeat the same function;
		 * a name defined at other places too (a main per program)
		 * has no location by name */
		const char *keys[] = { dft_json_str(rec, "qualified_name", NULL),
				       dft_json_str(rec, "name", NULL) };
		const char *file = dft_json_str(rec, "file", NULL);

		if (file == NULL)
			return;
		for (int i = 0; i < 2; i++) {
			json_object *loc;

			if (keys[i] == NULL)
				continue;
			if (json_object_object_get_ex(g->funcs, keys[i],
						      &loc)) {
				if (strcmp(dft_json_str(loc, "file", ""),
					   file) != 0 ||
				    dft_json_int(loc, "line", 0) !=
				    dft_function_line(rec))
					json_object_object_add(loc, "ambiguous",
						json_object_new_boolean(1));
				continue;
			}
			loc = json_object_new_object();
			json_object_object_add(loc, "file", dft_jstr(file));
			json_object_object_add(loc, "line",
					       dft_jint(dft_function_line(rec)));
			json_object_object_add(g->funcs, keys[i], loc);
		}
	}
}

/* ---- helpers -------------------------------------------------------------- */

static int
has_num(json_object *o, const char *key, double *v)
{
	double x = dft_json_double(o, key, NAN);

	if (isnan(x))
		return 0;
	*v = x;
	return 1;
}

static const char *
severity(json_object *bn)
{
	return dft_json_str(bn, "severity", dft_json_str(bn, "label", "?"));
}

/* Findings above "info" are shown, the others counted; a v 1 record (no
 * severity) is shown when it is a bottleneck (score 4 or 5). */
static int
shown(json_object *bn)
{
	const char *s = dft_json_str(bn, "severity", NULL);

	if (s == NULL)
		return dft_json_bool(bn, "bottleneck", 0);
	return strcmp(s, "info") != 0;
}

static const char *
base_name(const char *p)
{
	const char *sl = strrchr(p, '/');

	return sl != NULL ? sl + 1 : p;
}

/* "name (file:line)" of one entry of a finding's functions, file and line
 * from the entry, else from the function records. */
static char *
func_where(struct diag *g, json_object *f)
{
	const char *name = dft_json_str(f, "name", "?");
	const char *q = dft_json_str(f, "qualname", NULL);
	const char *file = dft_json_str(f, "file", NULL);
	int64_t line = dft_json_int(f, "line", 0);
	json_object *loc = NULL;

	if ((file == NULL || *file == '\0') &&
	    !(q != NULL && json_object_object_get_ex(g->funcs, q, &loc)))
		json_object_object_get_ex(g->funcs, name, &loc);
	if (loc != NULL && (dft_json_bool(loc, "ambiguous", 0) ||
			    dft_json_int(f, "definitions", 0) > 1))
		return dft_xasprintf("%s (defined at several places; the trace "
				     "does not say which ran)",
				     q != NULL ? q : name);
	if (loc != NULL) {
		file = dft_json_str(loc, "file", NULL);
		line = dft_json_int(loc, "line", 0);
	}
	if (q != NULL && strcmp(q, name) != 0)
		name = q;
	if (name[0] == '(')		/* "(no enclosing function)" */
		return dft_xstrdup(name);
	if (file == NULL || *file == '\0')
		return dft_xasprintf("%s (file:line not recorded)", name);
	if (line > 0)
		return dft_xasprintf("%s (%s:%lld)", name, base_name(file),
				     (long long)line);
	return dft_xasprintf("%s (%s)", name, base_name(file));
}

static char *
functions_text(struct diag *g, json_object *bn)
{
	json_object *fs = dft_json_path(bn, "functions");
	struct dft_buf b;
	size_t n = fs != NULL && json_object_is_type(fs, json_type_array) ?
		   json_object_array_length(fs) : 0;
	int listed = 0;

	if (n == 0)
		return NULL;
	dft_buf_init(&b);
	for (size_t i = 0; i < n && listed < 3; i++) {
		json_object *f = json_object_array_get_idx(fs, i);
		char *w;
		double share, t;

		/* as in the pipeline flow: shares under 0.5 % are left out */
		if (i > 0 && has_num(f, "share", &share) && share < 0.005)
			continue;
		w = func_where(g, f);
		if (listed++ > 0)
			dft_buf_adds(&b, "; ");
		dft_buf_adds(&b, w);
		if (has_num(f, "share", &share)) {
			dft_buf_addf(&b, " %.0f %%", share * 100);
			if (has_num(f, "time_s", &t))
				dft_buf_addf(&b, ", %.3f s", t);
		}
		free(w);
	}
	if (n > (size_t)listed)
		dft_buf_addf(&b, "; and %zu more", n - (size_t)listed);
	return dft_buf_detach(&b);
}

static char *
files_text(json_object *bn)
{
	json_object *fs = dft_json_path(bn, "files");
	struct dft_buf b;
	size_t n = fs != NULL && json_object_is_type(fs, json_type_array) ?
		   json_object_array_length(fs) : 0;
	int64_t more = dft_json_int(bn, "files_more", 0);

	if (n == 0)
		return NULL;
	dft_buf_init(&b);
	for (size_t i = 0; i < n; i++) {
		json_object *f = json_object_array_get_idx(fs, i);
		double t;

		if (i > 0)
			dft_buf_adds(&b, ", ");
		dft_buf_adds(&b, dft_json_str(f, "file", "?"));
		if (has_num(f, "time_s", &t))
			dft_buf_addf(&b, " (%.3f s)", t);
	}
	if (more > 0)
		dft_buf_addf(&b, " and %lld more", (long long)more);
	return dft_buf_detach(&b);
}

/* A metadata or sync finding's calls: "fseek x62 (0.002 s), ..." (the
 * first four), or NULL */
static char *
calls_text(json_object *bn)
{
	json_object *cs = dft_json_path(bn, "calls");
	struct dft_buf b;
	size_t n = cs != NULL && json_object_is_type(cs, json_type_array) ?
		   json_object_array_length(cs) : 0;

	if (n == 0)
		return NULL;
	dft_buf_init(&b);
	for (size_t i = 0; i < n && i < 4; i++) {
		json_object *c = json_object_array_get_idx(cs, i);

		dft_buf_addf(&b, "%s%s x%lld (%.3f s)", i ? ", " : "",
			     dft_json_str(c, "name", "?"),
			     (long long)dft_json_int(c, "count", 0),
			     dft_json_double(c, "time_s", 0));
	}
	if (n > 4)
		dft_buf_addf(&b, " and %zu more", n - 4);
	return dft_buf_detach(&b);
}

/* The evidence object as "key=value" pairs (numbers and strings). */
static char *
evidence_pairs(json_object *bn)
{
	json_object *ev = dft_json_path(bn, "evidence");
	struct dft_buf b;

	if (ev == NULL || !json_object_is_type(ev, json_type_object))
		return NULL;
	dft_buf_init(&b);
	json_object_object_foreach(ev, k, v) {
		if (json_object_is_type(v, json_type_int))
			dft_buf_addf(&b, "%s%s=%lld", b.len ? ", " : "", k,
				     (long long)json_object_get_int64(v));
		else if (json_object_is_type(v, json_type_double))
			dft_buf_addf(&b, "%s%s=%.6g", b.len ? ", " : "", k,
				     json_object_get_double(v));
		else if (json_object_is_type(v, json_type_string))
			dft_buf_addf(&b, "%s%s=%s", b.len ? ", " : "", k,
				     json_object_get_string(v));
	}
	if (b.len == 0) {
		dft_buf_release(&b);
		return NULL;
	}
	return dft_buf_detach(&b);
}

static char *
join_array(json_object *a)
{
	struct dft_buf b;

	if (a == NULL || !json_object_is_type(a, json_type_array) ||
	    json_object_array_length(a) == 0)
		return NULL;
	dft_buf_init(&b);
	for (size_t i = 0; i < json_object_array_length(a); i++) {
		json_object *e = json_object_array_get_idx(a, i);

		if (i > 0)
			dft_buf_adds(&b, ", ");
		dft_buf_adds(&b, json_object_is_type(e, json_type_string) ?
			     json_object_get_string(e) : "?");
	}
	return dft_buf_detach(&b);
}

static double
cite_score(json_object *c)
{
	return dft_json_double(dft_json_path(c, "relevance"), "score", -1);
}

/* "title, year, doi:X" (or arXiv:Y, or the URL) of a citation. */
static char *
cite_text(json_object *c)
{
	const char *doi = dft_json_str(c, "doi", NULL);
	const char *ax = dft_json_str(c, "arxiv", NULL);
	int64_t year = dft_json_int(c, "year", 0);
	char y[24] = "year not recorded";

	if (year > 0)
		snprintf(y, sizeof(y), "%lld", (long long)year);
	if (doi != NULL)
		return dft_xasprintf("%s, %s, doi:%s",
				     dft_json_str(c, "title", "?"), y, doi);
	if (ax != NULL)
		return dft_xasprintf("%s, %s, arXiv:%s",
				     dft_json_str(c, "title", "?"), y, ax);
	return dft_xasprintf("%s, %s, %s", dft_json_str(c, "title", "?"), y,
			     dft_json_str(c, "url", "no DOI or arXiv id"));
}

/*
 * The finding's top cited proposal: of the proposals for its id, the one
 * whose first citation has the highest relevance score (the first of
 * equals in record order); without a proposal, its best paper record.
 */
static char *
proposal_of(struct diag *g, const char *id, json_object *props)
{
	json_object *best = NULL, *bc = NULL;
	double bs = -2;

	if (id == NULL)
		return NULL;
	for (size_t i = 0; props != NULL && i < json_object_array_length(props);
	     i++) {
		json_object *p = json_object_array_get_idx(props, i);
		json_object *cs = dft_json_path(p, "citations");
		json_object *c = cs != NULL && json_object_is_type(cs,
			json_type_array) && json_object_array_length(cs) > 0 ?
			json_object_array_get_idx(cs, 0) : NULL;

		if (strcmp(dft_json_str(p, "bottleneck", ""), id) != 0 ||
		    c == NULL)
			continue;
		if (cite_score(c) > bs) {
			best = p;
			bc = c;
			bs = cite_score(c);
		}
	}
	if (best != NULL) {
		char *ct = cite_text(bc), *s;

		s = dft_xasprintf("%s (%s: %s) — cites %s", dft_json_str(best,
			"title", "?"), dft_json_str(best, "level", "?"),
			dft_json_str(best, "change", "?"), ct);
		free(ct);
		return s;
	}
	for (size_t i = 0; i < json_object_array_length(g->papers); i++) {
		json_object *p = json_object_array_get_idx(g->papers, i);

		if (strcmp(dft_json_str(p, "bottleneck", ""), id) != 0)
			continue;
		if (best == NULL || cite_score(p) > bs) {
			best = p;
			bs = cite_score(p);
		}
	}
	if (best != NULL) {
		char *ct = cite_text(best), *s;

		s = dft_xasprintf("no proposal; best paper: %s", ct);
		free(ct);
		return s;
	}
	return NULL;
}

/*
 * proposal_of the finding; for a later finding of a metric and view
 * dft-papers answered with an earlier one (literature same_as: another
 * file, process or code path), that one's proposal by reference and
 * where it applies here: the finding's first function.
 */
static char *
proposal_text(struct diag *g, json_object *bn, json_object *props)
{
	const char *id = dft_json_str(bn, "id", NULL);
	char *s = proposal_of(g, id, props), *p, *w = NULL;
	json_object *to, *fs;

	if (s != NULL || id == NULL ||
	    !json_object_object_get_ex(g->same, id, &to))
		return s;
	p = proposal_of(g, json_object_get_string(to), props);
	fs = dft_json_path(bn, "functions");
	if (fs != NULL && json_object_is_type(fs, json_type_array) &&
	    json_object_array_length(fs) > 0)
		w = func_where(g, json_object_array_get_idx(fs, 0));
	s = dft_xasprintf("as for %s (the same metric and view; dft-papers "
			  "answers it once): %s%s%s",
			  json_object_get_string(to),
			  p != NULL ? p : "none either",
			  w != NULL ? "; here it applies to " : "",
			  w != NULL ? w : "");
	free(p);
	free(w);
	return s;
}

/* ---- the section ------------------------------------------------------------ */

static void
verdict(struct doc *d, json_object *sum)
{
	const char *vt = dft_json_str(sum, "verdict_text", NULL);
	double share, io, wall;
	json_object *pr = dft_json_path(sum, "processes_io"), *sys, *ends;
	int unfinished = 0;
	size_t np = pr != NULL && json_object_is_type(pr, json_type_array) ?
		    json_object_array_length(pr) : 0;

	if (vt == NULL) {
		doc_line(d, "Verdict: not recorded (the analysis has no "
			 "verdict; dft-analyze before summary v 2).");
		return;
	}
	if (dft_json_int(sum, "v", 0) >= 3 &&
	    has_num(sum, "io_wall_share", &share) &&
	    has_num(sum, "io_wall_s", &io) &&
	    has_num(sum, "process_wall_s", &wall))
		/* summary v 3: one time base, the summed process spans */
		doc_line(d, "Verdict: %s (io_wall_share %.3f: %.3f s of I/O "
			 "in %.3f s of process time).", vt, share, io, wall);
	else if (has_num(sum, "io_wall_share", &share) &&
	    has_num(sum, "io_wall_s", &io) && has_num(sum, "wall_s", &wall))
		doc_line(d, "Verdict: %s (io_wall_share %.3f: %.3f s of I/O "
			 "on the critical path in %.3f s of wall time).", vt,
			 share, io, wall);
	else
		doc_line(d, "Verdict: %s.", vt);
	/* summary v 7: a run killed by a signal or whose trace has no end
	 * is said where its verdict is: both cover only what ran */
	ends = dft_json_path(sum, "ends");
	if (ends != NULL && dft_json_str(sum, "ends_text", NULL) != NULL) {
		int64_t ks = dft_json_int(ends, "signal", 0);
		int64_t ne = dft_json_int(ends, "no_end", 0);

		if (ks + ne > 0) {
			const char *et = dft_json_str(sum, "ends_text", "");

			unfinished = 1;
			doc_blank(d);
			doc_line(d, "Run end: %s. The verdict and the "
				 "findings are of the part %s.",
				 et,
				 ne > 0 ? "the traces hold" : "that ran");
		}
	}
	if (np > 1) {
		static const char *const head[] = { "Process", "Wall (s)",
			"I/O (s)", "I/O share of wall", "End" };
		int64_t more = dft_json_int(sum, "processes_io_more", 0);
		int nc = unfinished ? 5 : 4;

		doc_blank(d);
		doc_table(d, nc, head);
		for (size_t i = 0; i < np; i++) {
			json_object *p = json_object_array_get_idx(pr, i);
			char w[32], o[32], s[32], e[96];
			const char *row[] = { dft_json_str(p, "process", "?"),
					      w, o, s, e };
			const char *how = dft_json_str(p, "end", "");

			snprintf(w, sizeof(w), "%.3f",
				 dft_json_double(p, "wall_s", 0));
			snprintf(o, sizeof(o), "%.3f",
				 dft_json_double(p, "io_s", 0));
			snprintf(s, sizeof(s), "%.1f %%", 100 *
				 dft_json_double(p, "io_wall_share", 0));
			if (strcmp(how, "signal") == 0)
				snprintf(e, sizeof(e), "killed by %s",
					 dft_json_str(p, "signal", "a signal"));
			else if (strcmp(how, "no-end") == 0)
				snprintf(e, sizeof(e), "no end (trace stops)");
			else if (strcmp(how, "finished") == 0)
				snprintf(e, sizeof(e), "finished");
			else
				snprintf(e, sizeof(e), "not known");
			doc_row(d, nc, row);
		}
		doc_end_table(d);
		if (more > 0)
			doc_line(d, "%lld more processes not listed.",
				 (long long)more);
	}
	sys = dft_json_path(sum, "system_io");
	if (sys != NULL && dft_json_int(sys, "count", 0) > 0) {
		doc_blank(d);
		doc_line(d, "System and runtime I/O (not ranked): %lld "
			 "requests, %.3f s, %lld files, %.1f %% of I/O time.",
			 (long long)dft_json_int(sys, "count", 0),
			 dft_json_double(sys, "time_s", 0),
			 (long long)dft_json_int(sys, "files", 0),
			 100 * dft_json_double(sys, "share", 0));
	}
}

static void
finding(struct doc *d, struct diag *g, json_object *bn, json_object *props)
{
	double t, ios, ws, sv;
	char *s;
	const char *cls = dft_json_str(bn, "class", NULL);
	const char *desc = dft_json_str(bn, "description", NULL);

	doc_blank(d);
	doc_h(d, 3, "%s — %s (%s)", dft_json_str(bn, "id", "?"),
	      dft_json_str(bn, "title", dft_json_str(bn, "metric", "?")),
	      severity(bn));
	s = join_array(dft_json_path(bn, "facets"));
	if (cls != NULL)
		doc_uli(d, "Class: `%s`%s%s", cls, s != NULL ? "; facets: " :
			"", s != NULL ? s : "");
	else
		doc_uli(d, "Class: not recorded (metric `%s`)",
			dft_json_str(bn, "metric", "?"));
	free(s);
	if (has_num(bn, "time_s", &t)) {
		char a[48] = "share of I/O not recorded";
		char b[48] = "share of wall not recorded";

		if (has_num(bn, "io_share", &ios))
			snprintf(a, sizeof(a), "%.1f %% of I/O time", 100 * ios);
		if (has_num(bn, "wall_share", &ws))
			snprintf(b, sizeof(b), "%.1f %% of wall time",
				 100 * ws);
		doc_uli(d, "Time at stake: %.3f s (%s, %s)", t, a, b);
	} else {
		doc_uli(d, "Time at stake: not recorded");
	}
	if (has_num(bn, "saving_s", &sv))
		doc_uli(d, "Estimated saving: %.3f s — %s", sv,
			dft_json_str(bn, "saving_model", "model not recorded"));
	else
		doc_uli(d, "Estimated saving: not recorded");
	s = evidence_pairs(bn);
	if (desc != NULL || s != NULL)
		doc_uli(d, "Evidence: %s%s%s%s", desc != NULL ? desc : "",
			desc != NULL && s != NULL ? " (" : "",
			s != NULL ? s : "", desc != NULL && s != NULL ? ")" : "");
	else
		doc_uli(d, "Evidence: not recorded");
	free(s);
	s = functions_text(g, bn);
	doc_uli(d, "Functions: %s", s != NULL ? s : "not recorded");
	free(s);
	s = files_text(bn);
	if (s != NULL)
		doc_uli(d, "Files: %s", s);
	free(s);
	s = calls_text(bn);
	if (s != NULL)
		doc_uli(d, "Calls of this kind (whole run): %s", s);
	free(s);
	doc_uli(d, "Recommendation: %s", dft_json_str(bn, "recommendation",
						      "not recorded"));
	s = proposal_text(g, bn, props);
	doc_uli(d, "Proposal: %s", s != NULL ? s :
		"none (dft-papers did not run for this finding)");
	free(s);
}

void
diag_section(struct doc *d, struct diag *g, json_object *summary,
	     json_object *bns, json_object *props)
{
	size_t n = bns != NULL ? json_object_array_length(bns) : 0;
	int above = 0, below = 0;

	doc_blank(d);
	doc_h(d, 2, "Diagnosis");
	if (summary == NULL) {
		doc_line(d, "Diagnosis — not run (no trace analysis in the "
			 "records).");
		return;
	}
	verdict(d, summary);
	for (size_t i = 0; i < n; i++) {
		json_object *bn = json_object_array_get_idx(bns, i);

		if (shown(bn)) {
			finding(d, g, bn, props);
			above++;
		} else {
			below++;
		}
	}
	doc_blank(d);
	const char *vd = dft_json_str(summary, "verdict", "");

	if (above == 0 && (strcmp(vd, "io-bound") == 0 ||
			   strcmp(vd, "partly") == 0)) {
		/* I/O-bound, and no rule faults the requests: the time is
		 * the storage's and the bytes', not the access pattern's */
		double rb = 0, wb = 0;
		json_object *io = dft_json_path(summary, "io");

		if (io != NULL) {
			json_object *r = dft_json_path(io, "read");
			json_object *w = dft_json_path(io, "write");

			rb = r != NULL ? dft_json_double(r, "bytes", 0) : 0;
			wb = w != NULL ? dft_json_double(w, "bytes", 0) : 0;
		}
		doc_line(d, "No finding above \"info\": the run is %s, but no "
			 "rule faults how its requests are made; what would "
			 "shorten its I/O is faster storage or fewer bytes "
			 "(%.1f MB read, %.1f MB written), not the access "
			 "pattern.", strcmp(vd, "partly") == 0 ?
			 "partly I/O-bound" : "I/O-bound", rb / 1e6, wb / 1e6);
	} else if (above == 0) {
		doc_line(d, "No finding above \"info\": nothing in this run "
			 "is worth fixing.");
	}
	if (below > 0)
		doc_line(d, "%d more finding%s below the bottleneck level "
			 "(\"info\") %s in the analysis records.", below,
			 below == 1 ? "" : "s", below == 1 ? "is" : "are");
	/* the chart: HTML only */
	{
		const char **lab = dft_xcalloc(n + 1, sizeof(char *));
		char **keep = dft_xcalloc(n + 1, sizeof(char *));
		double *ts = dft_xcalloc(n + 1, sizeof(double));
		double *sv = dft_xcalloc(n + 1, sizeof(double));
		struct dft_buf b;
		int k = 0;

		for (size_t i = 0; i < n; i++) {
			json_object *bn = json_object_array_get_idx(bns, i);
			json_object *f0 = dft_json_path(bn, "functions");
			double t, s = 0;

			if (!shown(bn) || !has_num(bn, "time_s", &t))
				continue;
			f0 = f0 != NULL && json_object_is_type(f0,
				json_type_array) && json_object_array_length(
				f0) > 0 ? json_object_array_get_idx(f0, 0) :
				NULL;
			keep[k] = dft_xasprintf("%s %s%s%s%s",
				dft_json_str(bn, "id", "?"),
				dft_json_str(bn, "class", dft_json_str(bn,
					"metric", "?")),
				f0 != NULL ? " (" : "",
				f0 != NULL ? dft_json_str(f0, "name", "?") : "",
				f0 != NULL ? ")" : "");
			lab[k] = keep[k];
			ts[k] = t;
			if (has_num(bn, "saving_s", &s))
				sv[k] = s;
			k++;
		}
		dft_buf_init(&b);
		chart_stake(&b, lab, ts, sv, k);
		doc_html(d, b.s != NULL ? b.s : "");
		dft_buf_release(&b);
		for (int i = 0; i < k; i++)
			free(keep[i]);
		free(keep);
		free(lab);
		free(ts);
		free(sv);
	}
}
