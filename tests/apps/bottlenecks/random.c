/*
 * random.c - 2000 lookups of one 4 KiB block each, in a shuffled order,
 * in a 64 MiB input that is not in the page cache (dropped with
 * posix_fadvise first).  Every block is read once.  In file order the same
 * requests are served by read-ahead; shuffled, each one waits for the disk
 * (ground truth: random.truth; "random DIR sequential" reads the same
 * blocks in file order, for the comparison).  The input, DIR/input.dat, is
 * made and synced before the run.
 *
 * usage: random DIR [sequential]
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BLOCK 4096
#define LOOKUPS 2000

/* The bottleneck: one pread per block at the offsets given, in order. */
static long
random_lookup(int fd, const long *blocks, int n, uint64_t *sum)
{
	unsigned char buf[BLOCK];
	long bytes = 0;

	for (int i = 0; i < n; i++) {
		ssize_t r = pread(fd, buf, sizeof(buf), (off_t)blocks[i] * BLOCK);

		if (r < 0)
			return -1;
		bytes += r;
		*sum += buf[0];
	}
	return bytes;
}

static int
cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

int
main(int argc, char **argv)
{
	char path[4096];
	long nblocks, *order, n;
	uint64_t sum = 0;
	uint32_t seed = 12345;
	off_t size;
	int fd;

	if (argc < 2 || argc > 3 ||
	    (argc == 3 && strcmp(argv[2], "sequential") != 0)) {
		fprintf(stderr, "usage: random DIR [sequential]\n");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/input.dat", argv[1]);
	fd = open(path, O_RDONLY);
	if (fd < 0 || (size = lseek(fd, 0, SEEK_END)) < (off_t)LOOKUPS * BLOCK) {
		perror("random");
		return 1;
	}
	nblocks = (long)(size / BLOCK);
	order = malloc((size_t)nblocks * sizeof(*order));
	if (order == NULL)
		return 1;
	/* a fixed shuffle (Fisher-Yates, LCG), the first LOOKUPS taken */
	for (long i = 0; i < nblocks; i++)
		order[i] = i;
	for (long i = nblocks - 1; i > 0; i--) {
		long j, t;

		seed = seed * 1103515245u + 12345u;
		j = (long)((seed >> 8) % (uint32_t)(i + 1));
		t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	if (argc == 3)
		qsort(order, LOOKUPS, sizeof(*order), cmp_long);
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	n = random_lookup(fd, order, LOOKUPS, &sum);
	close(fd);
	free(order);
	if (n < 0) {
		perror("random");
		return 1;
	}
	printf("random: %ld bytes in %d lookups, sum %llu\n", n, LOOKUPS,
	       (unsigned long long)sum);
	return 0;
}
