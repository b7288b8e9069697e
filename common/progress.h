/*
 * progress.h - a one-line progress meter on stderr (progress.c), drawn
 * only when stderr is a terminal: "label: done/total", at most ten times
 * a second; dft_progress_done() erases the line.
 */
#ifndef DFT_PROGRESS_H
#define DFT_PROGRESS_H

#include "dft.h"

struct dft_progress {
	const char *label;
	uint64_t total;		/* 0: unknown */
	double last;
	int tty;
};
void dft_progress_init(struct dft_progress *p, const char *label,
		       uint64_t total);
void dft_progress_update(struct dft_progress *p, uint64_t done);
void dft_progress_done(struct dft_progress *p);

#endif
