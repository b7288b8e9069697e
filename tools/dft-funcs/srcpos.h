/*
 * srcpos.h - source positions of dft-funcs (srcpos.c): printed paths and
 * offset/line/col objects.  Used by the extractors and main.c.
 */
#ifndef DFT_FUNCS_SRCPOS_H
#define DFT_FUNCS_SRCPOS_H

#include <stddef.h>

#include "dft.h"

struct fopts;

/* path as printed: relative to root when inside, else absolute; caller frees */
char *rel_path(const struct fopts *o, const char *abs);
/* offsets of the line starts of buf; *nlines is their number; caller frees */
size_t *line_table(const char *buf, size_t len, size_t *nlines);
/* {"offset","line","col"} of byte offset off (clamped to len) */
json_object *jpos(const char *buf, size_t len, const size_t *lines,
		  size_t nlines, size_t off);

#endif
