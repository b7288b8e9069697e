/*
 * control.c - the clean control: about 0.3 s of arithmetic, then one
 * 64 KiB result written with one write(2).  I/O is well under 1 % of the
 * run; nothing here is worth fixing (ground truth: control.truth).
 *
 * usage: control DIR
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define ROUNDS 150000000L
#define OUT (64 << 10)

/* The work: an integer hash chain, all in registers. */
static uint64_t
crunch(void)
{
	uint64_t h = 1469598103934665603ULL;

	for (long i = 0; i < ROUNDS; i++) {
		h ^= (uint64_t)i;
		h *= 1099511628211ULL;
	}
	return h;
}

static int
save_result(const char *dir, uint64_t h)
{
	static char buf[OUT];
	char path[4096];
	int fd;

	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (char)('a' + (h >> (i % 57)) % 26);
	snprintf(path, sizeof(path), "%s/result.dat", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return -1;
	if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf)) {
		close(fd);
		return -1;
	}
	return close(fd);
}

int
main(int argc, char **argv)
{
	uint64_t h;

	if (argc != 2) {
		fprintf(stderr, "usage: control DIR\n");
		return 2;
	}
	h = crunch();
	if (save_result(argv[1], h) != 0) {
		perror("control");
		return 1;
	}
	printf("control: %016llx\n", (unsigned long long)h);
	return 0;
}
