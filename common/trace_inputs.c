/*
 * trace_inputs.c - the trace operands of dft-split and dft-analyze: files
 * as they are, a directory for its *.pfw and *.pfw.gz files in name order.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "trace.h"

static void
strv_push(char ***v, size_t *n, size_t *cap, const char *s)
{
	if (*n + 1 >= *cap) {
		*cap = *cap ? 2 * *cap : 16;
		*v = dft_xreallocarray(*v, *cap, sizeof(**v));
	}
	(*v)[(*n)++] = dft_xstrdup(s);
	(*v)[*n] = NULL;
}

/*
 * 1 when path can be read as a trace: a regular file, or (an operand) the
 * pipe of a process substitution (/dev/fd/N). A FIFO, socket or device
 * would block or never end: warned about and skipped (0).
 */
static int
readable(const char *path, int operand)
{
	struct stat st;

	if (stat(path, &st) < 0 || S_ISREG(st.st_mode))
		return 1;	/* a missing file is reported when opened */
	if (operand && S_ISFIFO(st.st_mode) &&
	    (dft_has_prefix(path, "/dev/fd/") ||
	     dft_has_prefix(path, "/proc/self/fd/")))
		return 1;
	dft_warn("'%s' is not a regular file; skipped", path);
	return 0;
}

int
dft_trace_inputs(int n, char *const *ops, char ***paths, size_t *npaths)
{
	char **out = NULL;
	size_t len = 0, cap = 0;
	int status = DFT_EXIT_OK;

	for (int i = 0; i < n; i++) {
		char **v;
		int k;

		if (!dft_is_dir(ops[i])) {
			if (strcmp(ops[i], "-") != 0 && !readable(ops[i], 1))
				status = dft_worst(status, DFT_EXIT_DATA);
			else
				strv_push(&out, &len, &cap, ops[i]);
			continue;
		}
		/* a directory: its traces */
		k = dft_trace_list_dir(ops[i], &v);
		if (k < 0) {
			dft_warn("cannot read '%s':", ops[i]);
			status = dft_worst(status, DFT_EXIT_DATA);
		}
		for (int j = 0; j < k; j++) {
			if (readable(v[j], 0))
				strv_push(&out, &len, &cap, v[j]);
			else
				status = dft_worst(status, DFT_EXIT_DATA);
			free(v[j]);
		}
		free(v);
	}
	*paths = out;
	*npaths = len;
	return status;
}

struct member {
	size_t idx;
	long part;
	size_t group;		/* first input of its series */
};

static int
member_cmp(const void *a, const void *b)
{
	const struct member *x = a, *y = b;

	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	if (x->part != y->part)
		return x->part < y->part ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

size_t
dft_trace_streams(char *const *paths, size_t n, struct dft_trace_stream **out)
{
	struct member *m = dft_xcalloc(n ? n : 1, sizeof(*m));
	struct dft_tmap first;	/* series -> index of its first input + 1 */
	struct dft_trace_stream *v = NULL;
	size_t nv = 0;

	dft_tmap_init(&first, sizeof(size_t));
	for (size_t i = 0; i < n; i++) {
		char series[24];
		long part;

		m[i].idx = i;
		m[i].group = i;
		if (dft_trace_peek_chunk(paths[i], series, &part) != 1)
			continue;
		size_t *g = dft_tmap_get(&first, series, strlen(series), 1,
					 NULL);

		if (*g == 0)
			*g = i + 1;
		m[i].group = *g - 1;
		m[i].part = part;
	}
	dft_tmap_release(&first);
	qsort(m, n, sizeof(*m), member_cmp);
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;

		/* a series runs while its parts rise; a part given twice
		 * starts a stream of its own */
		while (j < n && m[j].group == m[i].group &&
		       m[j].part > m[j - 1].part)
			j++;
		v = dft_xreallocarray(v, nv + 1, sizeof(*v));
		v[nv].n = j - i;
		v[nv].idx = dft_xcalloc(j - i, sizeof(size_t));
		v[nv].part = dft_xcalloc(j - i, sizeof(long));
		for (size_t k = i; k < j; k++) {
			v[nv].idx[k - i] = m[k].idx;
			v[nv].part[k - i] = m[k].part;
		}
		nv++;
		i = j;
	}
	free(m);
	*out = v;
	return nv;
}

void
dft_trace_streams_free(struct dft_trace_stream *v, size_t n, int array)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].idx);
		free(v[i].part);
	}
	if (array)
		free(v);
}
