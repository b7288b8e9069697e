/*
 * main.c - sample: run the I/O phases and print a deterministic summary.
 *
 * usage: sample [outdir]    (default ./out)
 *
 * The summary on stdout (sizes and FNV-1a checksums) is the same on every
 * run, so the output of a baseline and an annotated build can be compared.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "sample.h"

uint64_t
fnv1a(uint64_t h, const void *buf, size_t n)
{
	const unsigned char *p = buf;

	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

static int
fail(const char *what, const char *dir)
{
	fprintf(stderr, "sample: %s in '%s': %s\n", what, dir,
		strerror(errno));
	return 1;
}

int
main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "out";
	long wbytes, rbytes, ibytes, files, mbytes;
	uint64_t rsum, isum;

	if (argc > 2) {
		fprintf(stderr, "usage: sample [outdir]\n");
		return 2;
	}
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return fail("cannot create output directory", dir);
	if (write_records(dir, &wbytes) < 0)
		return fail("write_records failed", dir);
	if (write_index(dir, RECORD_COUNT) < 0)
		return fail("write_index failed", dir);
	if (read_records(dir, &rsum, &rbytes) < 0)
		return fail("read_records failed", dir);
	if (read_index(dir, &isum, &ibytes) < 0)
		return fail("read_index failed", dir);
	if (scan_metadata(dir, &files, &mbytes) < 0)
		return fail("scan_metadata failed", dir);
	printf("records: %d x %d bytes written=%ld read=%ld "
	       "checksum=%016llx\n", RECORD_COUNT, RECORD_SIZE, wbytes,
	       rbytes, (unsigned long long)rsum);
	printf("index: bytes=%ld checksum=%016llx\n", ibytes,
	       (unsigned long long)isum);
	printf("metadata: files=%ld bytes=%ld\n", files, mbytes);
	return 0;
}
