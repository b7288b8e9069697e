/*
 * charts.c - inline SVG charts for report.html: bars, the transfer-size
 * histogram, before/after bars, and the I/O timeline per process drawn
 * from the trace files themselves.  Everything is drawn from the numbers
 * given; a chart without data says "not run" and why.
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "report.h"
#include "trace.h"

#define W 760
#define COL_READ "#2b7bb9"
#define COL_WRITE "#d9612b"
#define COL_META "#7a9a3a"
#define COL_BEFORE "#9aa5b1"
#define COL_AFTER "#2b7bb9"

static void
fig_begin(struct dft_buf *b, const char *title, int h)
{
	dft_buf_adds(b, "<figure>\n<figcaption>");
	html_escape(b, title);
	dft_buf_addf(b, "</figcaption>\n<svg xmlns=\"http://www.w3.org/2000/"
		     "svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		     "role=\"img\">\n", W, h, W, h);
	dft_buf_addf(b, "<title>");
	html_escape(b, title);
	dft_buf_adds(b, "</title>\n");
}

static void
fig_end(struct dft_buf *b)
{
	dft_buf_adds(b, "</svg>\n</figure>\n");
}

static void
text(struct dft_buf *b, double x, double y, const char *anchor,
     const char *cls, const char *s)
{
	dft_buf_addf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" "
		     "class=\"%s\">", x, y, anchor, cls);
	html_escape(b, s);
	dft_buf_adds(b, "</text>\n");
}

void
chart_not_run(struct dft_buf *b, const char *title, const char *why)
{
	dft_buf_adds(b, "<figure class=\"empty\">\n<figcaption>");
	html_escape(b, title);
	dft_buf_adds(b, "</figcaption>\n<p class=\"notrun\">not run: ");
	html_escape(b, why);
	dft_buf_adds(b, "</p>\n</figure>\n");
}

static void
fmt_num(char *out, size_t n, double v)
{
	if (v != 0 && (fabs(v) >= 1e6 || fabs(v) < 1e-3))
		snprintf(out, n, "%.3g", v);
	else if (v == floor(v))
		snprintf(out, n, "%.0f", v);
	else
		snprintf(out, n, "%.3f", v);
}

void
chart_hbars(struct dft_buf *b, const char *id, const char *title,
	    const char *const *labels, const double *values, int n,
	    const char *unit)
{
	double max = 0;
	int lw = 230, bw = W - lw - 110, rh = 20, h;

	(void)id;
	for (int i = 0; i < n; i++)
		if (values[i] > max)
			max = values[i];
	if (n == 0 || max <= 0) {
		chart_not_run(b, title, "no data in the records");
		return;
	}
	h = 30 + n * rh + 10;
	fig_begin(b, title, h);
	for (int i = 0; i < n; i++) {
		double y = 30 + i * rh;
		double len = values[i] / max * bw;
		char v[64], lab[80];

		snprintf(lab, sizeof(lab), "%.36s%s", labels[i],
			 strlen(labels[i]) > 36 ? "..." : "");
		text(b, lw - 6, y + 14, "end", "lab", lab);
		dft_buf_addf(b, "<rect x=\"%d\" y=\"%.1f\" width=\"%.1f\" "
			     "height=\"%d\" fill=\"%s\"/>\n", lw, y + 3,
			     len < 1 ? 1 : len, rh - 6, COL_READ);
		fmt_num(v, sizeof(v), values[i]);
		snprintf(lab, sizeof(lab), "%s %s", v, unit);
		text(b, lw + (len < 1 ? 1 : len) + 5, y + 14, "start", "val",
		     lab);
	}
	text(b, lw, 18, "start", "axis", unit);
	fig_end(b);
}

static const char *const read_write[2] = { COL_READ, COL_WRITE };
static const char *const before_after[2] = { COL_BEFORE, COL_AFTER };

/* One slot of a paired bar chart: bars v[0] and v[1] side by side from x,
 * each bw wide and scaled to max, with their values above them (a zero
 * value unlabelled when skip_zero is set). */
static void
bar_pair(struct dft_buf *b, double x, double bw, int base, int top,
	 double max, const double v[2], const char *const col[2],
	 int skip_zero)
{
	double h[2];
	char s[48];

	for (int k = 0; k < 2; k++) {
		h[k] = v[k] / max * (base - top);
		dft_buf_addf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
			     "height=\"%.1f\" fill=\"%s\"/>\n", x + k * bw,
			     base - h[k], bw, h[k], col[k]);
	}
	for (int k = 0; k < 2; k++) {
		if (skip_zero && !(v[k] > 0))
			continue;
		fmt_num(s, sizeof(s), v[k]);
		text(b, x + bw * (k ? 1.5 : 0.5), base - h[k] - 3, "middle",
		     "val", s);
	}
}

/* The two colours of a paired bar chart and their names, gap apart. */
static void
legend2(struct dft_buf *b, int left, int gap, const char *const col[2],
	const char *name0, const char *name1)
{
	for (int k = 0; k < 2; k++) {
		dft_buf_addf(b, "<rect x=\"%d\" y=\"8\" width=\"10\" "
			     "height=\"10\" fill=\"%s\"/>\n", left + k * gap,
			     col[k]);
		text(b, left + k * gap + 14, 17, "start", "lab",
		     k ? name1 : name0);
	}
}

void
chart_histogram(struct dft_buf *b, json_object *hist)
{
	json_object *bins, *rd, *wr;
	int n, h = 260, top = 30, base = 200, left = 60;
	double max = 0, slot;
	const char *title = "Transfer-size histogram (requests per size bin)";

	if (hist == NULL || !json_object_object_get_ex(hist, "bins", &bins) ||
	    !json_object_object_get_ex(hist, "read", &rd) ||
	    !json_object_object_get_ex(hist, "write", &wr)) {
		chart_not_run(b, title, "no summary.size_histogram in the "
			      "records");
		return;
	}
	n = (int)json_object_array_length(bins);
	for (int i = 0; i < n; i++) {
		double r = json_object_get_double(json_object_array_get_idx(rd,
							(size_t)i));
		double w = json_object_get_double(json_object_array_get_idx(wr,
							(size_t)i));
		if (r > max)
			max = r;
		if (w > max)
			max = w;
	}
	if (n == 0 || max <= 0) {
		chart_not_run(b, title, "no read or write requests");
		return;
	}
	fig_begin(b, title, h);
	slot = (double)(W - left - 20) / n;
	dft_buf_addf(b, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
		     "class=\"ax\"/>\n", left, base, W - 20, base);
	for (int i = 0; i < n; i++) {
		double r = json_object_get_double(json_object_array_get_idx(rd,
							(size_t)i));
		double w = json_object_get_double(json_object_array_get_idx(wr,
							(size_t)i));
		double x = left + i * slot;
		const double v[2] = { r, w };

		bar_pair(b, x + slot * 0.12, slot * 0.36, base, top, max, v,
			 read_write, 1);
		text(b, x + slot / 2, base + 16, "middle", "lab",
		     json_object_get_string(json_object_array_get_idx(bins,
							(size_t)i)));
	}
	legend2(b, left, 60, read_write, "read", "write");
	text(b, left - 6, base, "end", "axis", "0");
	{
		char v[32];

		fmt_num(v, sizeof(v), max);
		text(b, left - 6, top + 8, "end", "axis", v);
	}
	fig_end(b);
}

void
chart_before_after(struct dft_buf *b, const char *title,
		   const char *const *labels, const double *before,
		   const double *after, int n, const char *unit)
{
	double max = 0, slot;
	int h = 250, top = 34, base = 200, left = 60;

	for (int i = 0; i < n; i++) {
		if (before[i] > max)
			max = before[i];
		if (after[i] > max)
			max = after[i];
	}
	if (n == 0 || max <= 0) {
		chart_not_run(b, title, "no optimization iteration was "
			      "measured");
		return;
	}
	fig_begin(b, title, h);
	slot = (double)(W - left - 20) / n;
	if (slot > 160)
		slot = 160;
	dft_buf_addf(b, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
		     "class=\"ax\"/>\n", left, base, W - 20, base);
	for (int i = 0; i < n; i++) {
		double x = left + i * slot;
		const double v[2] = { before[i], after[i] };

		bar_pair(b, x + slot * 0.14, slot * 0.34, base, top, max, v,
			 before_after, 0);
		text(b, x + slot / 2, base + 16, "middle", "lab", labels[i]);
	}
	legend2(b, left, 70, before_after, "before", "after");
	text(b, W - 20, 17, "end", "axis", unit);
	fig_end(b);
}

/* ---- the I/O timeline per process ------------------------------------- */

#define TL_COLS 600
#define TL_LANES 32

struct lane {
	int64_t pid;
	char host[64];
	double busy[TL_COLS][3];	/* read, write, metadata µs */
};

static int
io_class(const struct dft_str *name)
{
	static const char *const rd[] = { "read", "pread", "pread64", "preadv",
		"preadv2", "readv", "fread", NULL };
	static const char *const wr[] = { "write", "pwrite", "pwrite64",
		"pwritev", "pwritev2", "writev", "fwrite", NULL };
	char n[32];

	if (name->n == 0 || name->n >= sizeof(n))
		return 2;
	memcpy(n, name->p, name->n);
	n[name->n] = '\0';
	for (int i = 0; rd[i] != NULL; i++)
		if (strcmp(n, rd[i]) == 0)
			return 0;
	for (int i = 0; wr[i] != NULL; i++)
		if (strcmp(n, wr[i]) == 0)
			return 1;
	return 2;
}

static int
is_io_cat(const struct dft_str *cat)
{
	return (cat->n == 5 && strncasecmp(cat->p, "posix", 5) == 0) ||
	       (cat->n == 5 && strncasecmp(cat->p, "stdio", 5) == 0);
}

void
chart_timeline(struct dft_buf *b, json_object *inputs, double t0_us,
	       double t1_us, const char *base_dir)
{
	const char *title = "I/O timeline per process (share of each time "
			    "slice spent in I/O)";
	struct lane *lanes = NULL;
	int nl = 0, hidden = 0, nfiles = 0, missing = 0;
	int64_t *hid = NULL;
	size_t n = inputs != NULL ? json_object_array_length(inputs) : 0;
	double span = t1_us - t0_us, col_us;
	char first_missing[256] = "";
	int lh = 22, left = 120, h;

	if (n == 0 || span <= 0) {
		chart_not_run(b, title, "no traced run in the records");
		return;
	}
	col_us = span / TL_COLS;
	for (size_t i = 0; i < n; i++) {
		const char *p = json_object_get_string(
			json_object_array_get_idx(inputs, i));
		struct dft_trace t;
		struct dft_trace_ev ev;
		char *path;

		if (p == NULL)
			continue;
		path = p[0] == '/' || base_dir == NULL ? dft_xstrdup(p) :
		       dft_path_join(base_dir, p);
		if (!dft_exists(path)) {
			free(path);
			path = dft_xstrdup(p);
		}
		if (dft_trace_open(&t, path) != 0) {
			if (missing++ == 0)
				snprintf(first_missing, sizeof(first_missing),
					 "%s", p);
			free(path);
			continue;
		}
		nfiles++;
		while (dft_trace_next(&t, &ev) == 1) {
			int cls, li = -1;
			double s, e;

			if ((ev.ph != DFT_PH_X && ev.ph != DFT_PH_AGG) ||
			    !is_io_cat(&ev.cat) || !(ev.has & DFT_EV_TS))
				continue;
			for (int k = 0; k < nl; k++)
				if (lanes[k].pid == ev.pid) {
					li = k;
					break;
				}
			if (li < 0) {
				if (nl == TL_LANES) {
					int seen = 0;

					for (int q = 0; q < hidden; q++)
						if (hid[q] == ev.pid)
							seen = 1;
					if (!seen) {
						hid = dft_xreallocarray(hid,
							(size_t)hidden + 1,
							sizeof(*hid));
						hid[hidden++] = ev.pid;
					}
					continue;
				}
				lanes = dft_xreallocarray(lanes, (size_t)nl + 1,
							  sizeof(*lanes));
				memset(&lanes[nl], 0, sizeof(lanes[nl]));
				lanes[nl].pid = ev.pid;
				li = nl++;
			}
			cls = io_class(&ev.name);
			s = (double)ev.ts - t0_us;
			e = s + (double)(ev.dur > 0 ? ev.dur : 0);
			if (s < 0)
				s = 0;
			if (e > span)
				e = span;
			for (int c = (int)(s / col_us); c < TL_COLS &&
			     c * col_us < e; c++) {
				double cs = c * col_us, ce = cs + col_us;
				double ov = (e < ce ? e : ce) - (s > cs ? s : cs);

				if (ov > 0)
					lanes[li].busy[c][cls] += ov;
			}
		}
		dft_trace_close(&t);
		free(path);
	}
	if (nl == 0) {
		char why[400];

		if (nfiles == 0)
			snprintf(why, sizeof(why), "trace files not found "
				 "(%s)", first_missing);
		else
			snprintf(why, sizeof(why), "no POSIX or STDIO events "
				 "in %d trace file(s)", nfiles);
		chart_not_run(b, title, why);
		free(lanes);
		free(hid);
		return;
	}
	h = 40 + nl * lh + 40;
	fig_begin(b, title, h);
	for (int k = 0; k < nl; k++) {
		double y = 30 + k * lh;
		char lab[48];

		snprintf(lab, sizeof(lab), "pid %lld", (long long)lanes[k].pid);
		text(b, left - 6, y + 15, "end", "lab", lab);
		dft_buf_addf(b, "<rect x=\"%d\" y=\"%.1f\" width=\"%d\" "
			     "height=\"%d\" class=\"lane\"/>\n", left, y + 1,
			     TL_COLS, lh - 2);
		for (int c = 0; c < TL_COLS; c++) {
			double *bz = lanes[k].busy[c];
			double tot = bz[0] + bz[1] + bz[2];
			int dom = bz[1] >= bz[0] && bz[1] >= bz[2] ? 1 :
				  bz[0] >= bz[2] ? 0 : 2;
			double op;

			if (tot <= 0)
				continue;
			/* any I/O in the slice shows; more I/O, darker */
			op = tot / col_us;
			op = 0.35 + 0.65 * (op > 1 ? 1 : op);
			dft_buf_addf(b, "<rect x=\"%d\" y=\"%.1f\" width=\"1\" "
				     "height=\"%d\" fill=\"%s\" "
				     "fill-opacity=\"%.2f\"/>\n", left + c,
				     y + 1, lh - 2, dom == 0 ? COL_READ :
				     dom == 1 ? COL_WRITE : COL_META, op);
		}
	}
	{
		double y = 30 + nl * lh + 14;
		char lab[64];

		text(b, left, y, "start", "axis", "0 s");
		snprintf(lab, sizeof(lab), "%.3g s", span / 1e6);
		text(b, left + TL_COLS, y, "end", "axis", lab);
		dft_buf_addf(b, "<rect x=\"%d\" y=\"8\" width=\"10\" "
			     "height=\"10\" fill=\"%s\"/>\n", left, COL_READ);
		text(b, left + 14, 17, "start", "lab", "read");
		dft_buf_addf(b, "<rect x=\"%d\" y=\"8\" width=\"10\" "
			     "height=\"10\" fill=\"%s\"/>\n", left + 60,
			     COL_WRITE);
		text(b, left + 74, 17, "start", "lab", "write");
		dft_buf_addf(b, "<rect x=\"%d\" y=\"8\" width=\"10\" "
			     "height=\"10\" fill=\"%s\"/>\n", left + 124,
			     COL_META);
		text(b, left + 138, 17, "start", "lab", "metadata/other");
		if (hidden > 0) {
			snprintf(lab, sizeof(lab), "%d more processes not "
				 "shown", hidden);
			text(b, left + TL_COLS, 17, "end", "axis", lab);
		}
	}
	fig_end(b);
	free(lanes);
	free(hid);
}

/*
 * Time at stake per finding (diagnosis.c): one bar per finding, its
 * length the time at stake, the estimated saving drawn over it from the
 * left in a darker shade.
 */
void
chart_stake(struct dft_buf *b, const char *const *labels,
	    const double *stake, const double *saving, int n)
{
	const char *title = "Time at stake per finding";
	double max = 0;
	int lw = 230, bw = W - lw - 170, rh = 22, h;

	for (int i = 0; i < n; i++)
		if (stake[i] > max)
			max = stake[i];
	if (n == 0 || max <= 0) {
		chart_not_run(b, title, "no finding above info with a time at "
			      "stake in the records");
		return;
	}
	h = 34 + n * rh + 10;
	fig_begin(b, title, h);
	dft_buf_addf(b, "<rect x=\"%d\" y=\"8\" width=\"10\" height=\"10\" "
		     "fill=\"%s\"/>\n", lw, COL_BEFORE);
	text(b, lw + 14, 17, "start", "lab", "time at stake");
	dft_buf_addf(b, "<rect x=\"%d\" y=\"8\" width=\"10\" height=\"10\" "
		     "fill=\"%s\"/>\n", lw + 110, COL_WRITE);
	text(b, lw + 124, 17, "start", "lab", "estimated saving");
	for (int i = 0; i < n; i++) {
		double y = 34 + i * rh;
		double len = stake[i] / max * bw;
		double sl = saving[i] > 0 ? (saving[i] > stake[i] ? stake[i] :
					     saving[i]) / max * bw : 0;
		char v[64], s[64], lab[160];

		snprintf(lab, sizeof(lab), "%.36s%s", labels[i],
			 strlen(labels[i]) > 36 ? "..." : "");
		text(b, lw - 6, y + 14, "end", "lab", lab);
		dft_buf_addf(b, "<rect x=\"%d\" y=\"%.1f\" width=\"%.1f\" "
			     "height=\"%d\" fill=\"%s\"/>\n", lw, y + 3,
			     len < 1 ? 1 : len, rh - 6, COL_BEFORE);
		if (sl > 0)
			dft_buf_addf(b, "<rect x=\"%d\" y=\"%.1f\" width=\"%.1f\""
				     " height=\"%d\" fill=\"%s\"/>\n", lw,
				     y + 3, sl < 1 ? 1 : sl, rh - 6, COL_WRITE);
		fmt_num(v, sizeof(v), stake[i]);
		fmt_num(s, sizeof(s), saving[i]);
		snprintf(lab, sizeof(lab), "%s s (saving %s s)", v, s);
		text(b, lw + (len < 1 ? 1 : len) + 5, y + 14, "start", "val",
		     lab);
	}
	fig_end(b);
}
