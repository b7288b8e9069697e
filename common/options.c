/*
 * options.c - the command-line front end of every tool (options.h):
 * getopt_long without getopt's own messages, one message per kind of
 * usage error, one bad-value form, and --help / --version that end
 * through the checked stdout close.
 *
 * It does not parse options itself (getopt_long does) nor know any
 * tool's options beyond the struct option table it is handed.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"

int
dft_getopt(int argc, char **argv, const char *shortopts,
	   const struct option *longopts)
{
	char spec[128];
	int n;

	n = snprintf(spec, sizeof(spec), ":%s", shortopts);
	if (n < 0 || (size_t)n >= sizeof(spec))
		dft_die("dft_getopt: option string too long");
	opterr = 0;
	return getopt_long(argc, argv, spec, longopts, NULL);
}

/* The length of the option name in "--name" or "--name=value". */
static size_t
long_name_len(const char *arg)
{
	return strcspn(arg + 2, "=");
}

/*
 * The entries of longopts that "--name" (abbreviated or not) selects:
 * an exact match alone, else every entry it is a prefix of.
 */
static size_t
long_matches(const struct option *longopts, const char *arg,
	     const struct option **out, size_t max)
{
	const char *name = arg + 2;
	size_t len = long_name_len(arg), n = 0;
	const struct option *p;

	for (p = longopts; p != NULL && p->name != NULL; p++) {
		if (strncmp(p->name, name, len) != 0)
			continue;
		if (p->name[len] == '\0') {
			out[0] = p;
			return 1;
		}
		if (n < max)
			out[n] = p;
		n++;
	}
	return n < max ? n : max;
}

void
dft_option_error(const char *usage, int c, char **argv,
		 const struct option *longopts)
{
	/*
	 * A long option is always the whole word just before optind (getopt
	 * has stepped over it); a short one may sit inside a cluster such
	 * as -xt, so it is named from optopt.
	 */
	const char *arg = optind > 0 ? argv[optind - 1] : "";
	const struct option *m[8], *hit = NULL;
	int is_long = arg != NULL && strncmp(arg, "--", 2) == 0 &&
		      arg[2] != '\0';
	size_t n = 0, len = 0, i;
	struct dft_buf list;

	if (is_long) {
		len = long_name_len(arg);
		n = long_matches(longopts, arg, m, 8);
		for (i = 0; i < n && hit == NULL; i++)
			if (optopt != 0 && m[i]->val == optopt)
				hit = m[i];
		/* -x after a long option word: the short one is at fault */
		if (c == '?' && optopt != 0 && hit == NULL)
			is_long = 0;
	}
	if (c == ':') {
		if (is_long && hit != NULL)
			dft_usage_error(usage,
					"option requires an argument: --%s",
					hit->name);
		dft_usage_error(usage, "option requires an argument: -%c",
				optopt);
	}
	if (!is_long)
		dft_usage_error(usage, "unknown option: -%c", optopt);
	if (hit != NULL)
		dft_usage_error(usage, "option takes no argument: --%s",
				hit->name);
	if (n > 1) {
		dft_buf_init(&list);
		for (i = 0; i < n; i++)
			dft_buf_addf(&list, "%s--%s", i ? ", " : "",
				     m[i]->name);
		dft_usage_error(usage, "ambiguous option: --%.*s (%s)",
				(int)len, arg + 2, list.s);
	}
	dft_usage_error(usage, "unknown option: --%.*s", (int)len, arg + 2);
}

void
dft_bad_value(const char *usage, const char *option, const char *value,
	      const char *expected, ...)
{
	char *what;
	va_list ap;

	va_start(ap, expected);
	if (vasprintf(&what, expected, ap) < 0)
		dft_die("out of memory");
	va_end(ap);
	dft_usage_error(usage, "%s: bad value '%s' (expected %s)", option,
			value, what);
}

long
dft_opt_long(const char *usage, const char *option, const char *value,
	     long min, long max)
{
	long v;

	if (dft_parse_long(value, min, max, &v) != 0)
		dft_bad_value(usage, option, value,
			      "an integer from %ld to %ld", min, max);
	return v;
}

double
dft_opt_double(const char *usage, const char *option, const char *value,
	       double min, double max)
{
	double v;

	if (dft_parse_double_range(value, min, max, &v) != 0)
		dft_bad_value(usage, option, value,
			      "a number from %g to %g", min, max);
	return v;
}

int
dft_help(const char *usage, const char *text)
{
	fputs(usage, stdout);
	if (text != NULL)
		fputs(text, stdout);
	return dft_close_stdout();
}

int
dft_version(void)
{
	printf("%s %s\n", dft_progname, DFT_VERSION);
	return dft_close_stdout();
}
