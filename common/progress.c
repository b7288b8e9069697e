/*
 * progress.c - a one-line progress meter on stderr, drawn only when stderr
 * is a terminal, at most ten times a second, so logs and pipes stay clean.
 */
#include <unistd.h>

#include "progress.h"

/* Draws "label: done/total" on stderr at most 10 times a second, only when
 * stderr is a terminal; dft_progress_done() erases the line. */
void
dft_progress_init(struct dft_progress *p, const char *label, uint64_t total)
{
	p->label = label;
	p->total = total;
	p->last = 0;
	p->tty = isatty(STDERR_FILENO);
}

void
dft_progress_update(struct dft_progress *p, uint64_t done)
{
	double now;

	if (!p->tty)
		return;
	now = dft_monotonic();
	if (now - p->last < 0.1 && !(p->total && done == p->total))
		return;
	p->last = now;
	if (p->total)
		fprintf(stderr, "\r%s: %llu/%llu (%d%%)\033[K", p->label,
			(unsigned long long)done, (unsigned long long)p->total,
			(int)(100.0 * (double)done / (double)p->total));
	else
		fprintf(stderr, "\r%s: %llu\033[K", p->label,
			(unsigned long long)done);
	fflush(stderr);
}

void
dft_progress_done(struct dft_progress *p)
{
	if (p->tty && p->last > 0) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
}
