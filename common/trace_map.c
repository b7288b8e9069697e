/*
 * trace_map.c - the string-keyed table behind the trace reader and the
 * analysis: open addressing over entry numbers, keys and values kept in
 * insertion order so walks are deterministic, values at stable addresses
 * (allocated in blocks) so callers may keep pointers to them.
 */
#include <stdlib.h>
#include <string.h>

#include "trace.h"

#define VBLOCK 256

uint64_t
dft_hash_bytes(const void *p, size_t n)
{
	/* FNV-1a with a final avalanche; keys are short. */
	const unsigned char *s = p;
	uint64_t h = 1469598103934665603ULL;

	for (size_t i = 0; i < n; i++) {
		h ^= s[i];
		h *= 1099511628211ULL;
	}
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	return h;
}

void
dft_tmap_init(struct dft_tmap *m, size_t vsize)
{
	memset(m, 0, sizeof(*m));
	m->vsize = vsize ? vsize : 1;
}

void
dft_tmap_release(struct dft_tmap *m)
{
	for (size_t i = 0; i < m->count; i++)
		free(m->keys[i]);
	for (size_t i = 0; i < m->nblocks; i++)
		free(m->vblocks[i]);
	free(m->slots);
	free(m->hashes);
	free(m->keys);
	free(m->klens);
	free(m->vblocks);
	dft_tmap_init(m, m->vsize);
}

static void
tmap_grow(struct dft_tmap *m)
{
	size_t ncap = m->cap ? m->cap * 2 : 64;
	uint32_t *ns = dft_xcalloc(ncap, sizeof(*ns));

	for (size_t i = 0; i < m->count; i++) {
		size_t j = m->hashes[i] & (ncap - 1);

		while (ns[j] != 0)
			j = (j + 1) & (ncap - 1);
		ns[j] = (uint32_t)(i + 1);
	}
	free(m->slots);
	m->slots = ns;
	m->cap = ncap;
	/* entry arrays grow with the slot array (load <= 1/2) */
	m->hashes = dft_xreallocarray(m->hashes, ncap / 2, sizeof(*m->hashes));
	m->keys = dft_xreallocarray(m->keys, ncap / 2, sizeof(*m->keys));
	m->klens = dft_xreallocarray(m->klens, ncap / 2, sizeof(*m->klens));
}

void *
dft_tmap_value(const struct dft_tmap *m, size_t i)
{
	return m->vblocks[i / VBLOCK] + (i % VBLOCK) * m->vsize;
}

const char *
dft_tmap_key(const struct dft_tmap *m, size_t i, size_t *n)
{
	if (n != NULL)
		*n = m->klens[i];
	return m->keys[i];
}

void *
dft_tmap_get(struct dft_tmap *m, const char *k, size_t n, int create,
	     int *is_new)
{
	uint64_t h = dft_hash_bytes(k, n);
	size_t j;

	if (is_new != NULL)
		*is_new = 0;
	if (m->cap != 0) {
		j = h & (m->cap - 1);
		while (m->slots[j] != 0) {
			size_t i = m->slots[j] - 1;

			if (m->hashes[i] == h && m->klens[i] == n &&
			    memcmp(m->keys[i], k, n) == 0)
				return dft_tmap_value(m, i);
			j = (j + 1) & (m->cap - 1);
		}
	}
	if (!create)
		return NULL;
	if ((m->count + 1) * 2 > m->cap) {
		tmap_grow(m);
	}
	j = h & (m->cap - 1);
	while (m->slots[j] != 0)
		j = (j + 1) & (m->cap - 1);
	size_t i = m->count++;

	m->slots[j] = (uint32_t)(i + 1);
	m->hashes[i] = h;
	m->keys[i] = dft_xmalloc(n + 1);
	memcpy(m->keys[i], k, n);
	m->keys[i][n] = '\0';
	m->klens[i] = n;
	if (i / VBLOCK >= m->nblocks) {
		m->vblocks = dft_xreallocarray(m->vblocks, m->nblocks + 1,
					       sizeof(*m->vblocks));
		m->vblocks[m->nblocks++] = dft_xcalloc(VBLOCK, m->vsize);
	}
	if (is_new != NULL)
		*is_new = 1;
	return dft_tmap_value(m, i);
}
