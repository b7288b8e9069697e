/*
 * smallwrite - writes N records of 16 bytes to FILE, one write(2) each,
 * then prints how many it wrote and how long that took (a number that
 * changes from run to run, as benchmarks print).
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define RECORDS 100000

static int
write_records(const char *path, int n)
{
	char rec[32];
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0)
		return -1;
	for (int i = 0; i < n; i++) {
		snprintf(rec, sizeof(rec), "record %08d\n", i);
		if (write(fd, rec, strlen(rec)) < 0)
			return -1;
	}
	return close(fd);
}

int
main(int argc, char **argv)
{
	struct timespec a, b;

	if (argc < 2) {
		fprintf(stderr, "usage: smallwrite FILE\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	if (write_records(argv[1], RECORDS) != 0) {
		perror(argv[1]);
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("wrote %d records\n", RECORDS);
	printf("took %ld us\n", (long)((b.tv_sec - a.tv_sec) * 1000000 +
				     (b.tv_nsec - a.tv_nsec) / 1000));
	return 0;
}
