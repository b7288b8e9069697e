/*
 * records.c - the data phases: many tiny POSIX writes, a block reader with
 * pread(2), and a small STDIO index written with fprintf and read back with
 * fread.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sample.h"

static void
path_of(char *buf, size_t n, const char *dir, const char *name)
{
	snprintf(buf, n, "%s/%s", dir, name);
}

/* Fills one deterministic record. */
static void
make_record(char *rec, long i)
{
	int n = snprintf(rec, RECORD_SIZE, "record %06ld value %08lx\n", i,
			 (unsigned long)(i * 2654435761UL) & 0xffffffffUL);

	memset(rec + n, '.', RECORD_SIZE - (size_t)n - 1);
	rec[RECORD_SIZE - 1] = '\n';
}

/* The bottleneck: one write(2) per 64-byte record, no buffering. */
int
write_records(const char *dir, long *bytes)
{
	char path[4096], rec[RECORD_SIZE];
	int fd;

	path_of(path, sizeof(path), dir, "records.dat");
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return -1;
	*bytes = 0;
	for (long i = 0; i < RECORD_COUNT; i++) {
		make_record(rec, i);
		if (write(fd, rec, RECORD_SIZE) != RECORD_SIZE) {
			close(fd);
			return -1;
		}
		*bytes += RECORD_SIZE;
	}
	return close(fd);
}

/* Reads the records back in 4 KiB blocks with pread(2). */
int
read_records(const char *dir, uint64_t *sum, long *bytes)
{
	char path[4096], buf[READ_BLOCK];
	off_t off = 0;
	ssize_t n;
	int fd;

	path_of(path, sizeof(path), dir, "records.dat");
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	*sum = FNV_SEED;
	*bytes = 0;
	while ((n = pread(fd, buf, sizeof(buf), off)) > 0) {
		*sum = fnv1a(*sum, buf, (size_t)n);
		*bytes += n;
		off += n;
	}
	close(fd);
	return n < 0 ? -1 : 0;
}

/* A small text index through STDIO. */
int
write_index(const char *dir, long records)
{
	char path[4096];
	FILE *fp;

	path_of(path, sizeof(path), dir, "index.txt");
	fp = fopen(path, "w");
	if (fp == NULL)
		return -1;
	fprintf(fp, "# sample index: %ld records of %d bytes\n", records,
		RECORD_SIZE);
	for (long i = 0; i < records; i += 256)
		fprintf(fp, "%ld %ld\n", i, i * RECORD_SIZE);
	return fclose(fp) == 0 ? 0 : -1;
}

int
read_index(const char *dir, uint64_t *sum, long *bytes)
{
	char path[4096], buf[512];
	size_t n;
	FILE *fp;

	path_of(path, sizeof(path), dir, "index.txt");
	fp = fopen(path, "r");
	if (fp == NULL)
		return -1;
	*sum = FNV_SEED;
	*bytes = 0;
	while ((n = fread(buf, 1, sizeof(buf), fp)) > 0) {
		*sum = fnv1a(*sum, buf, n);
		*bytes += (long)n;
	}
	n = ferror(fp);
	fclose(fp);
	return n ? -1 : 0;
}
