/*
 * options.h - the command-line front end every tool shares (options.c).
 *
 * The shape of a tool's option loop:
 *
 *	while ((c = dft_getopt(argc, argv, "t:hV", longopts)) != -1) {
 *		switch (c) {
 *		case 't':
 *			o.top = dft_opt_long(usage_text, "--top", optarg,
 *					     1, 1000);
 *			break;
 *		case 'h':
 *			return dft_help(usage_text, help_text);
 *		case 'V':
 *			return dft_version();
 *		default:
 *			dft_option_error(usage_text, c, argv, longopts);
 *		}
 *	}
 *
 * Every usage error is one line "dft-x: <what is wrong>" followed by the
 * usage text on stderr, and exit 2 (style rules 5, 6, 13).
 */
#ifndef DFT_OPTIONS_H
#define DFT_OPTIONS_H

#include <getopt.h>

#include "dft.h"

/*
 * getopt_long(3) with opterr = 0 (getopt prints nothing) and a leading ':'
 * added to shortopts: returns ':' for a missing argument and '?' for any
 * other bad option; hand either to dft_option_error().
 */
int dft_getopt(int argc, char **argv, const char *shortopts,
	       const struct option *longopts);
/*
 * c is what dft_getopt returned. Prints one of
 *	dft-x: unknown option: --frob
 *	dft-x: option requires an argument: --top
 *	dft-x: option takes no argument: --help
 *	dft-x: ambiguous option: --th (--threshold, --throttle-us)
 * then the usage on stderr, and exits 2. A long option is named in full.
 */
DFT_NORETURN void dft_option_error(const char *usage, int c, char **argv,
				   const struct option *longopts);
/*
 * "dft-x: OPTION: bad value 'VALUE' (expected ...)" then the usage on
 * stderr; exits 2. The format describes what the option takes.
 */
DFT_NORETURN void dft_bad_value(const char *usage, const char *option,
				const char *value, const char *expected, ...)
	DFT_PRINTF(4, 5);
/*
 * The value of an option as a whole integer (or number) from min to max;
 * anything else is dft_bad_value(), "expected an integer from MIN to MAX".
 */
long dft_opt_long(const char *usage, const char *option, const char *value,
		  long min, long max);
double dft_opt_double(const char *usage, const char *option,
		      const char *value, double min, double max);
/*
 * --help: the usage then text (may be NULL) on stdout; --version:
 * "dft-x VERSION". Both return dft_close_stdout(), so a full disk is exit 2:
 * use as `return dft_help(usage_text, help_text);`.
 */
int dft_help(const char *usage, const char *text);
int dft_version(void);

#endif
