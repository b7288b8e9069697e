/*
 * metadata.c - a metadata storm: for each of 3000 files, create it, stat
 * it, stat it again and unlink it.  No byte of data is moved: every
 * request is metadata (ground truth: metadata.truth).
 *
 * usage: metadata DIR
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#define NFILES 3000

/* The bottleneck: open + close + 2 stat + unlink per file. */
static long
metadata_storm(const char *dir)
{
	char path[4096];
	struct stat st;
	long seen = 0;

	for (int i = 0; i < NFILES; i++) {
		int fd;

		snprintf(path, sizeof(path), "%s/entry%05d.tmp", dir, i);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0)
			return -1;
		close(fd);
		if (stat(path, &st) == 0)
			seen++;
		if (stat(path, &st) == 0 && st.st_size == 0)
			seen++;
		if (unlink(path) != 0)
			return -1;
	}
	return seen;
}

int
main(int argc, char **argv)
{
	long n;

	if (argc != 2) {
		fprintf(stderr, "usage: metadata DIR\n");
		return 2;
	}
	n = metadata_storm(argv[1]);
	if (n < 0) {
		perror("metadata");
		return 1;
	}
	printf("metadata: %ld stats of %d files\n", n, NFILES);
	return 0;
}
