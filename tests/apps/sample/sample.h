/*
 * sample.h - the bundled sample application of the dft suite.
 *
 * A small program doing real POSIX and STDIO file I/O in a few named
 * functions, with a deliberate, diagnosable bottleneck: write_records()
 * issues thousands of 64-byte write(2) calls, and scan_metadata() is a
 * metadata storm of create/stat/unlink on tiny files.
 */
#ifndef SAMPLE_H
#define SAMPLE_H

#include <stddef.h>
#include <stdint.h>

#define RECORD_SIZE 64		/* bytes per record: deliberately tiny */
#define RECORD_COUNT 4096	/* records, one write(2) each */
#define META_FILES 256		/* small files in the metadata phase */
#define READ_BLOCK 4096		/* bytes per pread(2) in the reader */

/* FNV-1a 64-bit over a buffer, continuing from h. */
uint64_t fnv1a(uint64_t h, const void *buf, size_t n);
#define FNV_SEED 0xcbf29ce484222325ULL

/* records.c */
int write_records(const char *dir, long *bytes);
int read_records(const char *dir, uint64_t *sum, long *bytes);
int write_index(const char *dir, long records);
int read_index(const char *dir, uint64_t *sum, long *bytes);

/* meta.c */
int scan_metadata(const char *dir, long *files, long *bytes);

#endif
