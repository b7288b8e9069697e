/*
 * report.h - internal interface of dft-report (not part of libdft).
 */
#ifndef DFT_REPORT_H
#define DFT_REPORT_H

#include "dft.h"

/* The Markdown and the HTML body, written side by side. */
struct doc {
	struct dft_buf md;
	struct dft_buf html;
	int in_list;		/* 0, 'o' or 'u' */
};

void doc_init(struct doc *d);
void doc_release(struct doc *d);
void doc_h(struct doc *d, int level, const char *fmt, ...) DFT_PRINTF(3, 4);
/* One line of text; `code` spans become <code> in HTML. */
void doc_line(struct doc *d, const char *fmt, ...) DFT_PRINTF(2, 3);
void doc_oli(struct doc *d, int n, const char *fmt, ...) DFT_PRINTF(3, 4);
void doc_uli(struct doc *d, const char *fmt, ...) DFT_PRINTF(2, 3);
void doc_end_list(struct doc *d);
void doc_blank(struct doc *d);
/* A table: ncols header cells, then rows added with doc_row. */
void doc_table(struct doc *d, int ncols, const char *const *head);
void doc_row(struct doc *d, int ncols, const char *const *cells);
void doc_end_table(struct doc *d);
/* Raw HTML only (charts). */
void doc_html(struct doc *d, const char *s);
void html_escape(struct dft_buf *b, const char *s);
int doc_write(struct doc *d, const char *md_path, const char *html_path,
	      const char *title);

/* charts.c: each appends one <figure> with an inline SVG, or a "not run"
 * note when there is no data. */
void chart_hbars(struct dft_buf *b, const char *id, const char *title,
		 const char *const *labels, const double *values, int n,
		 const char *unit);
void chart_histogram(struct dft_buf *b, json_object *hist);
void chart_before_after(struct dft_buf *b, const char *title,
			const char *const *labels, const double *before,
			const double *after, int n, const char *unit);
/* Reads the trace files (paths) and draws I/O per process over time. */
void chart_timeline(struct dft_buf *b, json_object *inputs, double t0_us,
		    double t1_us, const char *base_dir);
void chart_not_run(struct dft_buf *b, const char *title, const char *why);
/* Time at stake and estimated saving per finding, in seconds. */
void chart_stake(struct dft_buf *b, const char *const *labels,
		 const double *stake, const double *saving, int n);

/* diagnosis.c: the Diagnosis section.  diag_collect sees every record;
 * it keeps the paper records of the first analysis and the file:line of
 * every function record. */
struct diag {
	json_object *papers;	/* array */
	json_object *funcs;	/* name -> {file, line} */
	json_object *same;	/* finding id -> the id whose answer it
				 * shares (dft-papers' literature same_as) */
	int summaries;
};

void diag_init(struct diag *g);
void diag_release(struct diag *g);
void diag_collect(struct diag *g, json_object *rec);
/* Writes the section from the first analysis (summary NULL: not run). */
void diag_section(struct doc *d, struct diag *g, json_object *summary,
		  json_object *bottlenecks, json_object *proposals);

/* collect.c: the records of a run, sorted by kind as they are read. */
/* One analysis: a summary and what followed it. */
struct seg {
	json_object *summary, *layers, *views, *bottlenecks, *proposals;
};

struct run {
	json_object *session, *pipeline, *loop;
	json_object *steps;		/* label -> last step record */
	json_object *attempts;		/* label -> array of every record */
	json_object *annotations, *iterations, *pitfalls, *verdicts;
	json_object *chunks;
	json_object *by_id, *by_strategy;	/* proposals */
	json_object *cited;		/* citation key -> relevance score */
	struct seg *segs;
	int nsegs;
	long functions, diagnostics;
	/* functions dft-cost decided not to annotate, each counted once
	 * however many record files repeat its function record */
	json_object *fn_seen;
	long cost_skipped;
	long known;			/* records of a known type */
	json_object *not_run;		/* array of strings */
	struct diag diag;
	int counts_only;		/* --counts: read, do not pass through */
};

/*
 * Every number the report prints about a run, computed here once from the
 * records; the Markdown, the HTML (the same document), the report record
 * and --counts (dft-pipeline's console lines) all print these.
 */
struct counts {
	/* findings of the first analysis, by severity (the record's
	 * "severity", else its score: 5 critical, 4 high, 3 medium, 2 low,
	 * 1 info) */
	int findings, critical, high, medium, low, info;
	int bottlenecks;		/* critical + high: the active ones */
	long files, functions;		/* annotated */
	long skipped_cost, skipped_annotate;
	int papers;			/* distinct (DOI, arXiv id, title) */
	int proposals;			/* of the first analysis */
	int iterations;			/* optimization iterations run */
	int applied[3];			/* L1, L2, L3 applied */
	int loop_ran;
};

void run_init(struct run *r);
void run_release(struct run *r);
/* dft_each_input callbacks: every record of the run (passed through unless
 * counts_only); the function records of --functions (read only). */
int process_stream(struct dft_reader *rd, void *ctx);
int function_stream(struct dft_reader *rd, void *ctx);
int read_workspace(struct run *r, const char *ws);
const char *run_workspace(struct run *r, const char *given);
int severity_rank(json_object *bn);
void run_counts(struct run *r, struct counts *c);
void emit_counts(const struct counts *c);
/* The iteration rows (pipeline iteration records, else verdicts) into
 * *out, a new array; returns their number. */
int run_iterations(struct run *r, json_object **out);

/* sections.c: the sections main() writes, in its order. */
void report_header(struct doc *d, struct run *r, const char *title);
void flow(struct doc *d, struct run *r, const struct counts *c);
void charts(struct doc *d, struct run *r, json_object *its, int n);
void iteration_table(struct doc *d, struct run *r, json_object *its, int n);
void iteration_sections(struct doc *d, struct run *r, json_object *its,
			int n);
void pitfalls(struct doc *d, struct run *r);
void summary_table(struct doc *d, struct run *r, json_object *its, int n,
		   const struct counts *c);
void step_timings(struct doc *d, struct run *r, const char *ws);
void artifacts(struct doc *d, struct run *r, const char *ws, const char *md);

#endif
