/*
 * small_write.c - 20000 records of 64 bytes, each its own write(2): 1.2 MiB
 * in requests 16384 times smaller than the 1 MiB that counts as large
 * (ground truth: small_write.truth).
 *
 * usage: small_write DIR
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define RECORDS 20000
#define RECORD_SIZE 64

/* The bottleneck: one write per 64-byte record, no buffering. */
static long
append_records(const char *dir)
{
	char path[4096], rec[RECORD_SIZE];
	long bytes = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/records.dat", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return -1;
	for (int i = 0; i < RECORDS; i++) {
		int n = snprintf(rec, sizeof(rec), "record %08d", i);

		memset(rec + n, '.', sizeof(rec) - (size_t)n - 1);
		rec[sizeof(rec) - 1] = '\n';
		if (write(fd, rec, sizeof(rec)) != (ssize_t)sizeof(rec)) {
			close(fd);
			return -1;
		}
		bytes += RECORD_SIZE;
	}
	if (close(fd) != 0)
		return -1;
	return bytes;
}

int
main(int argc, char **argv)
{
	long n;

	if (argc != 2) {
		fprintf(stderr, "usage: small_write DIR\n");
		return 2;
	}
	n = append_records(argv[1]);
	if (n < 0) {
		perror("small_write");
		return 1;
	}
	printf("small_write: %ld bytes in %d writes\n", n, RECORDS);
	return 0;
}
