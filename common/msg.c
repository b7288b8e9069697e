/*
 * msg.c - the suite's diagnostics: "dft-x: message" on stderr.
 * A format ending in ':' appends ": strerror(errno)" (sbase convention).
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "dft.h"

const char *dft_progname = "dft";

/* At the top of main: sets dft_progname, the default SIGPIPE action. */
void
dft_init(const char *progname)
{
	dft_progname = progname;
	/* Die quietly on a closed pipe, as cat(1) does: `dft-x | head`. */
	signal(SIGPIPE, SIG_DFL);
}

void
dft_vwarn(const char *fmt, va_list ap)
{
	int saved = errno;
	size_t n = strlen(fmt);

	fprintf(stderr, "%s: ", dft_progname);
	vfprintf(stderr, fmt, ap);
	if (n > 0 && fmt[n - 1] == ':')
		fprintf(stderr, " %s", strerror(saved));
	fputc('\n', stderr);
	errno = saved;
}

void
dft_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	dft_vwarn(fmt, ap);
	va_end(ap);
}

void
dft_die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	dft_vwarn(fmt, ap);
	va_end(ap);
	exit(DFT_EXIT_FATAL);
}

/* "dft-x: file:line: message": a problem in one input record. */
void
dft_warn_at(const char *file, long line, const char *fmt, ...)
{
	va_list ap;
	int saved = errno;
	size_t n = strlen(fmt);

	fprintf(stderr, "%s: %s:%ld: ", dft_progname, file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (n > 0 && fmt[n - 1] == ':')
		fprintf(stderr, " %s", strerror(saved));
	fputc('\n', stderr);
	errno = saved;
}

/* The message, then the usage text on stderr; exits 2. */
void
dft_usage_error(const char *usage, const char *fmt, ...)
{
	va_list ap;

	if (fmt != NULL && *fmt != '\0') {
		va_start(ap, fmt);
		dft_vwarn(fmt, ap);
		va_end(ap);
	}
	fputs(usage, stderr);
	exit(DFT_EXIT_FATAL);
}
