/*
 * doc.c - the report written twice at once: Markdown for
 * session_report.md and the matching HTML for report.html.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

void
doc_init(struct doc *d)
{
	dft_buf_init(&d->md);
	dft_buf_init(&d->html);
	d->in_list = 0;
}

void
doc_release(struct doc *d)
{
	dft_buf_release(&d->md);
	dft_buf_release(&d->html);
}

/* Length of the valid UTF-8 sequence at s, 0 when it is not one. */
static int
utf8_len(const unsigned char *s)
{
	int n;
	unsigned int cp;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xE0) == 0xC0) {
		n = 2;
		cp = s[0] & 0x1F;
	} else if ((s[0] & 0xF0) == 0xE0) {
		n = 3;
		cp = s[0] & 0x0F;
	} else if ((s[0] & 0xF8) == 0xF0) {
		n = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	for (int i = 1; i < n; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3F);
	}
	if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) ||
	    (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
	    (cp >= 0xD800 && cp <= 0xDFFF) || cp == 0xFFFE || cp == 0xFFFF)
		return 0;
	return n;
}

/*
 * Text for XHTML: markup characters escaped, control characters and
 * invalid UTF-8 replaced, so the page stays well-formed XML whatever the
 * records hold.
 */
void
html_escape(struct dft_buf *b, const char *s)
{
	for (; s != NULL && *s != '\0'; s++) {
		if ((unsigned char)*s >= 0x80) {
			int n = utf8_len((const unsigned char *)s);

			if (n == 0) {
				dft_buf_adds(b, "\xEF\xBF\xBD");
			} else {
				dft_buf_add(b, s, (size_t)n);
				s += n - 1;
			}
			continue;
		}
		switch (*s) {
		case '&': dft_buf_adds(b, "&amp;"); break;
		case '<': dft_buf_adds(b, "&lt;"); break;
		case '>': dft_buf_adds(b, "&gt;"); break;
		case '"': dft_buf_adds(b, "&quot;"); break;
		default:
			/* control characters are not allowed in XML 1.0 */
			if ((unsigned char)*s < 0x20 && *s != '\n' &&
			    *s != '\t')
				dft_buf_addc(b, ' ');
			else
				dft_buf_addc(b, *s);
		}
	}
}

/* Text with `code` spans to HTML. */
static void
html_inline(struct dft_buf *b, const char *s)
{
	const char *p = s;

	while (*p != '\0') {
		const char *tick = strchr(p, '`'), *end;
		char *seg;

		if (tick == NULL || (end = strchr(tick + 1, '`')) == NULL) {
			html_escape(b, p);
			return;
		}
		seg = dft_xstrndup(p, (size_t)(tick - p));
		html_escape(b, seg);
		free(seg);
		seg = dft_xstrndup(tick + 1, (size_t)(end - tick - 1));
		dft_buf_adds(b, "<code>");
		html_escape(b, seg);
		dft_buf_adds(b, "</code>");
		free(seg);
		p = end + 1;
	}
}

static char *
vfmt(const char *fmt, va_list ap)
{
	va_list aq;
	int n;
	char *s;

	va_copy(aq, ap);
	n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	s = dft_xmalloc((size_t)n + 1);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	return s;
}

/*
 * Text for Markdown that came from records (trace strings, names): control
 * characters shown as \xHH (dft_buf_add_visible), and outside `code`
 * spans '<' and '&' as entities so no raw HTML reaches a renderer; '|'
 * escaped in a table cell. One line never spans lines: newlines become
 * spaces.
 */
static void
md_text(struct dft_buf *b, const char *s, int cell)
{
	struct dft_buf v;
	int code = 0;

	dft_buf_init(&v);
	dft_buf_add_visible(&v, s, strlen(s), 0);
	for (size_t i = 0; i < v.len; i++) {
		char c = v.s[i];

		if (c == '`')
			code = !code;
		if (c == '\r')
			dft_buf_addc(b, ' ');
		else if (cell && c == '|')
			dft_buf_adds(b, "\\|");
		else if (!code && c == '<')
			dft_buf_adds(b, "&lt;");
		else if (!code && c == '&')
			dft_buf_adds(b, "&amp;");
		else
			dft_buf_addc(b, c);
	}
	dft_buf_release(&v);
}

static void
md_line(struct dft_buf *b, const char *s)
{
	md_text(b, s, 0);
}

void
doc_end_list(struct doc *d)
{
	if (d->in_list == 'o')
		dft_buf_adds(&d->html, "</ol>\n");
	else if (d->in_list == 'u')
		dft_buf_adds(&d->html, "</ul>\n");
	d->in_list = 0;
}

void
doc_blank(struct doc *d)
{
	doc_end_list(d);
	dft_buf_addc(&d->md, '\n');
}

void
doc_h(struct doc *d, int level, const char *fmt, ...)
{
	va_list ap;
	char *s;

	doc_end_list(d);
	va_start(ap, fmt);
	s = vfmt(fmt, ap);
	va_end(ap);
	for (int i = 0; i < level; i++)
		dft_buf_addc(&d->md, '#');
	dft_buf_addc(&d->md, ' ');
	md_line(&d->md, s);
	dft_buf_addc(&d->md, '\n');
	dft_buf_addf(&d->html, "<h%d>", level);
	html_inline(&d->html, s);
	dft_buf_addf(&d->html, "</h%d>\n", level);
	free(s);
}

void
doc_line(struct doc *d, const char *fmt, ...)
{
	va_list ap;
	char *s;

	doc_end_list(d);
	va_start(ap, fmt);
	s = vfmt(fmt, ap);
	va_end(ap);
	md_line(&d->md, s);
	dft_buf_addc(&d->md, '\n');
	dft_buf_adds(&d->html, "<p>");
	html_inline(&d->html, s);
	dft_buf_adds(&d->html, "</p>\n");
	free(s);
}

static void
list_item(struct doc *d, int kind, int n, char *s)
{
	if (d->in_list != kind) {
		doc_end_list(d);
		dft_buf_adds(&d->html, kind == 'o' ? "<ol>\n" : "<ul>\n");
		d->in_list = kind;
	}
	if (kind == 'o')
		dft_buf_addf(&d->md, "%d. ", n);
	else
		dft_buf_adds(&d->md, "- ");
	md_line(&d->md, s);
	dft_buf_addc(&d->md, '\n');
	if (kind == 'o')
		dft_buf_addf(&d->html, "<li value=\"%d\">", n);
	else
		dft_buf_adds(&d->html, "<li>");
	html_inline(&d->html, s);
	dft_buf_adds(&d->html, "</li>\n");
	free(s);
}

void
doc_oli(struct doc *d, int n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	list_item(d, 'o', n, vfmt(fmt, ap));
	va_end(ap);
}

void
doc_uli(struct doc *d, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	list_item(d, 'u', 0, vfmt(fmt, ap));
	va_end(ap);
}

static void
md_cell(struct dft_buf *b, const char *s)
{
	if (s != NULL)
		md_text(b, s, 1);
}

void
doc_table(struct doc *d, int ncols, const char *const *head)
{
	doc_end_list(d);
	dft_buf_addc(&d->md, '|');
	dft_buf_adds(&d->html, "<table>\n<thead><tr>");
	for (int i = 0; i < ncols; i++) {
		dft_buf_addc(&d->md, ' ');
		md_cell(&d->md, head[i]);
		dft_buf_adds(&d->md, " |");
		dft_buf_adds(&d->html, "<th>");
		html_inline(&d->html, head[i]);
		dft_buf_adds(&d->html, "</th>");
	}
	dft_buf_adds(&d->md, "\n|");
	for (int i = 0; i < ncols; i++)
		dft_buf_adds(&d->md, "---|");
	dft_buf_addc(&d->md, '\n');
	dft_buf_adds(&d->html, "</tr></thead>\n<tbody>\n");
}

void
doc_row(struct doc *d, int ncols, const char *const *cells)
{
	dft_buf_addc(&d->md, '|');
	dft_buf_adds(&d->html, "<tr>");
	for (int i = 0; i < ncols; i++) {
		const char *c = cells[i] != NULL ? cells[i] : "";

		dft_buf_addc(&d->md, ' ');
		md_cell(&d->md, c);
		dft_buf_adds(&d->md, *c ? " |" : "|");
		dft_buf_adds(&d->html, "<td>");
		html_inline(&d->html, c);
		dft_buf_adds(&d->html, "</td>");
	}
	dft_buf_addc(&d->md, '\n');
	dft_buf_adds(&d->html, "</tr>\n");
}

void
doc_end_table(struct doc *d)
{
	dft_buf_adds(&d->html, "</tbody>\n</table>\n");
}

void
doc_html(struct doc *d, const char *s)
{
	doc_end_list(d);
	dft_buf_adds(&d->html, s);
}

static const char css[] =
	"body{font-family:sans-serif;max-width:980px;margin:2em auto;"
	"color:#222;line-height:1.45}\n"
	"table{border-collapse:collapse;margin:.5em 0}\n"
	"th,td{border:1px solid #ccc;padding:3px 8px;text-align:left;"
	"vertical-align:top}\n"
	"th{background:#f2f4f7}\n"
	"code{background:#f2f4f7;padding:0 3px}\n"
	"figure{margin:1em 0}\n"
	"figcaption{font-weight:bold;margin-bottom:.3em}\n"
	"svg text{font-family:sans-serif;font-size:11px;fill:#333}\n"
	"svg text.axis{fill:#777}\n"
	"svg .ax{stroke:#999;stroke-width:1}\n"
	"svg .lane{fill:#f4f5f7}\n"
	".notrun{color:#888;font-style:italic}\n";

/* Writes the Markdown to md_path and, unless html_path is NULL, the HTML
 * page (the body, a title and the style sheet) to html_path. */
int
doc_write(struct doc *d, const char *md_path, const char *html_path,
	  const char *title)
{
	struct dft_buf h;
	int ret = 0;

	if (dft_write_file_atomic(md_path, d->md.s, d->md.len) != 0) {
		dft_warn("cannot write '%s':", md_path);
		ret = DFT_EXIT_FATAL;
	}
	if (html_path == NULL)
		return ret;
	dft_buf_init(&h);
	dft_buf_adds(&h, "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/"
		     "1999/xhtml\" lang=\"en\">\n<head>\n<meta charset=\"utf-8\""
		     "/>\n<title>");
	html_escape(&h, title);
	dft_buf_adds(&h, "</title>\n<style>\n");
	dft_buf_adds(&h, css);
	dft_buf_adds(&h, "</style>\n</head>\n<body>\n");
	dft_buf_add(&h, d->html.s, d->html.len);
	dft_buf_adds(&h, "</body>\n</html>\n");
	if (dft_write_file_atomic(html_path, h.s, h.len) != 0) {
		dft_warn("cannot write '%s':", html_path);
		ret = DFT_EXIT_FATAL;
	}
	dft_buf_release(&h);
	return ret;
}
