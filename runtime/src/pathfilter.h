/*
 * pathfilter.h - the untraced fast path: could this path be inside
 * DFTRACER_DATA_DIR at all?  Every intercepted call on a path asks this
 * before the real function, so it is inline, reads only struct dft_hot
 * (one cache line) and the packed directory list, and makes no call.
 *
 * 0 means certainly not traced.  1 means maybe: dft_path_file normalises
 * the path and decides exactly.  Paths with "/." or "//" anywhere, and
 * relative ones starting with ".", always get the exact check.
 */
#ifndef DFT_RT_PATHFILTER_H
#define DFT_RT_PATHFILTER_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "internal.h"

#if defined(__SANITIZE_ADDRESS__)
#define DFT_NO_ASAN __attribute__((no_sanitize_address))
#else
#define DFT_NO_ASAN
#endif

#if defined(__SSE2__)
#include <emmintrin.h>

/*
 * strlen(path), and *irregular set when "/." or "//" occurs.  A byte loop
 * costs 2-3 cycles per character (100+ for a 40-byte path); this compares
 * 16 bytes at a time.  An aligned load may read bytes before the start or
 * after the NUL but never crosses into another page, so it cannot fault;
 * those bytes are masked off.
 */
static inline DFT_NO_ASAN size_t dft_path_scan(const char *path,
					       int *irregular)
{
	uintptr_t a = (uintptr_t)path & ~(uintptr_t)15;
	unsigned skip = (unsigned)((uintptr_t)path - a);
	const char *w = (const char *)a;
	unsigned keep = 0xffffu << skip;	/* bytes at or after path */
	unsigned carry = 0;	/* 1: the byte before this block was '/' */
	const __m128i nul = _mm_setzero_si128();
	const __m128i sl = _mm_set1_epi8('/'), dot = _mm_set1_epi8('.');

	for (;; w += 16, keep = 0xffffu) {
		__m128i x = _mm_load_si128((const __m128i *)(const void *)w);
		unsigned zero, slash, follow, pairs;

		zero = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, nul)) & keep;
		slash = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, sl)) & keep;
		follow = slash |
			 ((unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, dot)) &
			  keep);
		pairs = ((slash << 1) | carry) & follow;
		if (zero) {
			*irregular = (pairs & ((zero & -zero) - 1)) != 0;
			return (size_t)(w - path) + (size_t)__builtin_ctz(zero);
		}
		if (pairs) {	/* rare, and the exact check follows */
			*irregular = 1;
			return (size_t)(w + 16 - path) + strlen(w + 16);
		}
		carry = slash >> 15;
	}
}

#elif defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && \
	UINTPTR_MAX == UINT64_MAX

#define DFT_ONES 0x0101010101010101ULL
#define DFT_LOW7 0x7f7f7f7f7f7f7f7fULL

/* 0x80 in each byte of x equal to c, 0 elsewhere (exact: no carries
 * between bytes, unlike the shorter has-zero trick). */
static inline uint64_t dft_bytes_eq(uint64_t x, unsigned char c)
{
	uint64_t y = x ^ (DFT_ONES * c);

	return ~(((y & DFT_LOW7) + DFT_LOW7) | y | DFT_LOW7);
}

/*
 * strlen(path), and *irregular set when "/." or "//" occurs.  A byte loop
 * costs 2-3 cycles per character (100+ for a 40-byte path); this reads
 * aligned 8-byte words, about a dozen operations each.  An aligned load
 * may read bytes before the start or after the NUL but never crosses
 * into another page, so it cannot fault; those bytes are masked off.
 */
static inline DFT_NO_ASAN size_t dft_path_scan(const char *path,
					       int *irregular)
{
	uintptr_t a = (uintptr_t)path & ~(uintptr_t)7;
	unsigned skip = (unsigned)((uintptr_t)path - a);
	const char *w = (const char *)a;
	uint64_t keep = ~0ULL << (8 * skip);	/* bytes at or after path */
	uint64_t carry = 0;	/* 0x80 in byte 0: the byte before was '/' */

	for (;; w += 8, keep = ~0ULL) {
		uint64_t x, zero, slash, follow, pairs;

		__builtin_memcpy(&x, __builtin_assume_aligned(w, 8), 8);
		zero = dft_bytes_eq(x, 0) & keep;
		slash = dft_bytes_eq(x, '/') & keep;
		follow = slash | (dft_bytes_eq(x, '.') & keep);
		pairs = ((slash << 8) | carry) & follow;
		if (zero) {
			*irregular = (pairs & ((zero & -zero) - 1)) != 0;
			return (size_t)(w - path) +
			       (size_t)__builtin_ctzll(zero) / 8;
		}
		if (pairs) {	/* rare, and the exact check follows */
			*irregular = 1;
			return (size_t)(w + 8 - path) + strlen(w + 8);
		}
		carry = slash >> 56;
	}
}

#else	/* big-endian or 32-bit: the plain loop, same answer */

static inline size_t dft_path_scan(const char *path, int *irregular)
{
	size_t n;

	*irregular = 0;
	for (n = 0; path[n]; n++)
		if (path[n] == '/' && (path[n + 1] == '/' || path[n + 1] == '.'))
			*irregular = 1;
	return n;
}

#endif

/* a and b agree on their first n bytes (both at least n long); a word at
 * a time, since an equality test needs no byte order */
static inline int dft_same_prefix(const char *a, const char *b, size_t n)
{
	uint64_t x, y;

	for (; n >= 8; a += 8, b += 8, n -= 8) {
		__builtin_memcpy(&x, a, 8);
		__builtin_memcpy(&y, b, 8);
		if (x != y)
			return 0;
	}
	for (; n > 0; a++, b++, n--)
		if (*a != *b)
			return 0;
	return 1;
}

/* Is the normalised absolute path p (n bytes) inside a data directory? */
static inline int dft_dir_match(const char *p, size_t n)
{
	const struct dft_dir *d;

	if (dft_hot.all)
		return 1;
	for (d = atomic_load_explicit(&dft_hot.dirs, memory_order_acquire);
	     d && d->len; d = DFT_DIR_NEXT(d)) {
		size_t l = d->len;

		if (n >= l && dft_same_prefix(p, d->path, l) &&
		    (n == l || p[l] == '/' || d->path[l - 1] == '/'))
			return 1;
	}
	return 0;
}

/* Is cwd + "/" + path (path relative, regular, n bytes) inside a data
 * directory?  Compared piecewise, without building the string: a 4 KiB
 * buffer would put the call on another stack page. */
static inline int dft_dir_match_rel(const struct dft_cwd *cwd,
				    const char *path, size_t n)
{
	const struct dft_dir *d;
	size_t c = cwd->len == 1 ? 0 : cwd->len;	/* cwd "/": just "/" */
	size_t total = c + 1 + n;

	for (d = atomic_load_explicit(&dft_hot.dirs, memory_order_acquire);
	     d && d->len; d = DFT_DIR_NEXT(d)) {
		size_t l = d->len;
		char next;

		if (total < l)
			continue;
		if (l <= c) {	/* the directory ends inside cwd */
			if (!dft_same_prefix(cwd->path, d->path, l))
				continue;
			next = l < c ? cwd->path[l] : '/';
		} else {	/* it ends inside path */
			if (!dft_same_prefix(cwd->path, d->path, c) ||
			    d->path[c] != '/' ||
			    !dft_same_prefix(path, d->path + c + 1, l - c - 1))
				continue;
			next = l < total ? path[l - c - 1] : '\0';
		}
		if (next == '/' || next == '\0' || d->path[l - 1] == '/')
			return 1;
	}
	return 0;
}

static inline int dft_path_maybe(const char *path)
{
	size_t n;
	int irregular;

	if (dft_hot.all)
		return 1;
	n = dft_path_scan(path, &irregular);
	if (irregular)
		return 1;
	if (path[0] == '/')
		return dft_dir_match(path, n);
	if (path[0] == '.' || path[0] == '\0')
		return 1;	/* "./x", "../x", ".hidden", "": exact check */
	return dft_dir_match_rel(
		atomic_load_explicit(&dft_hot.cwd, memory_order_relaxed),
		path, n);
}

#endif
