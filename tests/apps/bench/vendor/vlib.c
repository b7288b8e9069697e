#include <stdio.h>
#include "vlib.h"

/* vendored: never annotated, although it does I/O */
const char *
vlib_tag(int i)
{
	static char buf[32];
	FILE *f = fopen("/dev/null", "w");

	if (f != NULL) {
		fprintf(f, "%d", i);
		fclose(f);
	}
	snprintf(buf, sizeof(buf), "t%d", i % 7);
	return buf;
}
