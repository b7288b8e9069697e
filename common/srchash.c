/*
 * srchash.c - content hash of source files.
 *
 * dft-funcs records "file_hash" for every file it parses so that a tool
 * that edits the file later (dft-annotate) can refuse when it changed.
 * FNV-1a is enough for that: it detects edits, it is not a security hash.
 */
#include "compdb.h"

uint64_t
dft_fnv1a64(const void *p, size_t n)
{
	const unsigned char *s = p;
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= s[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

char *
dft_file_hash_str(const void *p, size_t n, char *buf, size_t bufsz)
{
	snprintf(buf, bufsz, "fnv1a64:%016llx",
		 (unsigned long long)dft_fnv1a64(p, n));
	return buf;
}
