/* bench - a stand-in benchmark: writes blocks to -o FILE, prints numbers
 * that change from run to run, and with --fail fails the way an MPI
 * benchmark with a bad configuration does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "vendor/vlib.h"

static int
write_blocks(const char *path, int n)
{
	FILE *f = fopen(path, "w");

	if (f == NULL)
		return -1;
	for (int i = 0; i < n; i++) {
		fprintf(f, "block %d %s\n", i, vlib_tag(i));
		fflush(f);
	}
	return fclose(f);
}

int
main(int argc, char **argv)
{
	const char *out = "bench.dat";
	int fail = 0;
	struct timespec a, b;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-o") == 0 && i + 1 < argc)
			out = argv[++i];
		else if (strcmp(argv[i], "--fail") == 0)
			fail = 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	if (write_blocks(out, 300) < 0) {
		fprintf(stderr, "ERROR: cannot write %s\n", out);
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("bench pid %d, buffer at %p\n", (int)getpid(), (void *)&a);
	printf("wrote 300 blocks in %.9f s\n", (double)(b.tv_sec - a.tv_sec) +
	       (double)(b.tv_nsec - a.tv_nsec) / 1e9);
	if (fail) {
		fputs("--------------------------------------------------------------------------\n"
		      "Primary job  terminated normally, but 1 process returned\n"
		      "a non-zero exit code. Per user-direction, the job has been aborted.\n"
		      "--------------------------------------------------------------------------\n"
		      "ERROR: invalid configuration: block size 0 (bench.c:42)\n"
		      "--------------------------------------------------------------------------\n"
		      "You can avoid this message by specifying -quiet on the mpirun command line.\n",
		      stderr);
		return 3;
	}
	return 0;
}
