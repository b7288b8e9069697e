/*
 * sync.c - a journal that calls fsync(2) after every 4 KiB record: 100
 * records, 100 syncs.  On a disk-backed file system the syncs are the time
 * (ground truth: sync.truth).
 *
 * usage: sync DIR
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define RECORDS 100
#define RECORD_SIZE 4096

/* The bottleneck: one write and one fsync per record. */
static long
journal_append(const char *dir)
{
	char path[4096], rec[RECORD_SIZE];
	long bytes = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/journal.log", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return -1;
	for (int i = 0; i < RECORDS; i++) {
		memset(rec, 'a' + i % 26, sizeof(rec));
		if (write(fd, rec, sizeof(rec)) != (ssize_t)sizeof(rec) ||
		    fsync(fd) != 0) {
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
		fprintf(stderr, "usage: sync DIR\n");
		return 2;
	}
	n = journal_append(argv[1]);
	if (n < 0) {
		perror("sync");
		return 1;
	}
	printf("sync: %ld bytes in %d synced records\n", n, RECORDS);
	return 0;
}
