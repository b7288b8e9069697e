#include <stdio.h>
#include "vendor/vlib.h"

/* built only by the test target */
static int
check_tags(void)
{
	FILE *f = fopen("check.out", "w");

	if (f == NULL)
		return 1;
	for (int i = 0; i < 3; i++)
		fprintf(f, "%s\n", vlib_tag(i));
	return fclose(f) != 0;
}

int
main(void)
{
	return check_tags();
}
