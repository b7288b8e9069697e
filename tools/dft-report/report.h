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
	int summaries;
};

void diag_init(struct diag *g);
void diag_release(struct diag *g);
void diag_collect(struct diag *g, json_object *rec);
/* Writes the section from the first analysis (summary NULL: not run). */
void diag_section(struct doc *d, struct diag *g, json_object *summary,
		  json_object *bottlenecks, json_object *proposals);

#endif
