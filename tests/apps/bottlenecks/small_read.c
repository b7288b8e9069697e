/*
 * small_read.c - reads a 1 MiB input 64 bytes at a time: 16384 read(2)
 * calls where one would do (ground truth: small_read.truth).  The input,
 * DIR/input.dat, is made before the run.
 *
 * usage: small_read DIR
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#define RECORD_SIZE 64

/* The bottleneck: one read per 64-byte record. */
static long
scan_records(const char *dir, uint64_t *sum)
{
	char path[4096];
	unsigned char rec[RECORD_SIZE];
	long bytes = 0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/input.dat", dir);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	while ((n = read(fd, rec, sizeof(rec))) > 0) {
		bytes += n;
		*sum += rec[0];
	}
	close(fd);
	return n < 0 ? -1 : bytes;
}

int
main(int argc, char **argv)
{
	uint64_t sum = 0;
	long n;

	if (argc != 2) {
		fprintf(stderr, "usage: small_read DIR\n");
		return 2;
	}
	n = scan_records(argv[1], &sum);
	if (n < 0) {
		perror("small_read");
		return 1;
	}
	printf("small_read: %ld bytes, sum %llu\n", n, (unsigned long long)sum);
	return 0;
}
