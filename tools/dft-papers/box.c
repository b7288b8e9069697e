/*
 * box.c - the proposal box of --format box (user-facing-formats.md
 * section 5): one box per bottleneck, the best paper and the first
 * proposal of each level, wrapped to a fixed width on standard output.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "papers.h"

#define BOX_W 59

static size_t
u8len(const char *s, size_t n)
{
	size_t w = 0;

	for (size_t i = 0; i < n; i++)
		if (((unsigned char)s[i] & 0xC0) != 0x80)
			w++;
	return w;
}

static void
box_rule(const char *l, const char *r)
{
	fputs(l, stdout);
	for (int i = 0; i < BOX_W + 2; i++)
		fputs("─", stdout);
	fputs(r, stdout);
	fputc('\n', stdout);
}

/* One logical line, wrapped at spaces to the box width. */
static void
box_line(const char *text)
{
	const char *p = text;

	do {
		size_t n = strlen(p), cut = n, w;

		if (u8len(p, n) > BOX_W) {
			size_t i = 0, cols = 0, lastsp = 0;

			while (p[i] != '\0' && cols < BOX_W) {
				if (p[i] == ' ')
					lastsp = i;
				i++;
				while (((unsigned char)p[i] & 0xC0) == 0x80)
					i++;
				cols++;
			}
			cut = lastsp > 0 ? lastsp : i;
		}
		w = u8len(p, cut);
		fputs("│ ", stdout);
		fwrite(p, 1, cut, stdout);
		for (size_t i = w; i < BOX_W; i++)
			fputc(' ', stdout);
		fputs(" │\n", stdout);
		p += cut;
		while (*p == ' ')
			p++;
	} while (*p != '\0');
}

static char *
authors_short(const struct paper *p)
{
	if (p->nauthors == 0)
		return dft_xstrdup("unknown authors");
	if (p->nauthors == 1)
		return dft_xstrdup(p->authors[0]);
	if (p->nauthors == 2)
		return dft_xasprintf("%s and %s", p->authors[0],
				     p->authors[1]);
	return dft_xasprintf("%s et al.", p->authors[0]);
}

void
print_box(json_object *b, const struct cand *best, const char *caveat,
	  const char *unsupported, json_object *lines[3])
{
	static const char *const names[3] = { "L1 (application)",
		"L2 (middleware)", "L3 (filesystem)" };
	char *s;

	box_rule("┌", "┐");
	s = dft_xasprintf("OPTIMIZATION PROPOSAL — %s (%s)",
			  dft_json_str(b, "metric", "?"),
			  dft_json_str(b, "label", "?"));
	box_line(s);
	free(s);
	box_rule("├", "┤");
	if (unsupported != NULL) {
		box_line(unsupported);
		box_rule("└", "┘");
		return;
	}
	{
		char *au = authors_short(best->p);

		s = dft_xasprintf("Evidence: %s, %s, %d", best->p->title, au,
				  best->p->year);
		box_line(s);
		free(s);
		free(au);
	}
	s = dft_xasprintf("URL: %s", best->p->url != NULL ? best->p->url :
			  "(none)");
	box_line(s);
	free(s);
	s = dft_xasprintf("Relevance score: %d/100 (bottleneck=%d, system=%d,"
			  " age=%d)", best->r.total, best->r.bottleneck,
			  best->r.system, best->r.recency);
	box_line(s);
	free(s);
	if (caveat != NULL)
		box_line(caveat);
	box_rule("├", "┤");
	for (int l = 0; l < 3; l++) {
		const char *first = lines[l] != NULL ?
			json_object_get_string(json_object_array_get_idx(
				lines[l], 0)) : "nothing applicable in the "
			"catalogue";

		s = dft_xasprintf("%s: %s", names[l], first);
		box_line(s);
		free(s);
	}
	box_rule("└", "┘");
}
