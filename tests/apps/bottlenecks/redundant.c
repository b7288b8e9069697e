/*
 * redundant.c - reads the same 16 MiB input 8 times in 1 MiB requests:
 * 128 MiB read for 16 MiB of distinct data (ground truth:
 * redundant.truth).  The input, DIR/input.dat, is made before the run.
 *
 * usage: redundant DIR
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define PASSES 8
#define CHUNK (1 << 20)

/* The bottleneck: every pass opens and reads the whole file again. */
static long
reread_table(const char *dir, uint64_t *sum)
{
	char path[4096];
	unsigned char *buf = malloc(CHUNK);
	long bytes = 0;

	if (buf == NULL)
		return -1;
	snprintf(path, sizeof(path), "%s/input.dat", dir);
	for (int p = 0; p < PASSES; p++) {
		int fd = open(path, O_RDONLY);
		ssize_t n;

		if (fd < 0) {
			free(buf);
			return -1;
		}
		while ((n = read(fd, buf, CHUNK)) > 0) {
			bytes += n;
			for (ssize_t i = 0; i < n; i += 4096)
				*sum += buf[i];
		}
		close(fd);
		if (n < 0) {
			free(buf);
			return -1;
		}
	}
	free(buf);
	return bytes;
}

int
main(int argc, char **argv)
{
	uint64_t sum = 0;
	long n;

	if (argc != 2) {
		fprintf(stderr, "usage: redundant DIR\n");
		return 2;
	}
	n = reread_table(argv[1], &sum);
	if (n < 0) {
		perror("redundant");
		return 1;
	}
	printf("redundant: %ld bytes read in %d passes, sum %llu\n", n, PASSES,
	       (unsigned long long)sum);
	return 0;
}
