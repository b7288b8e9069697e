/*
 * trace_inputs.c - the trace operands of dft-split and dft-analyze: files
 * as they are, a directory for its *.pfw and *.pfw.gz files in name order.
 */
#include <stdlib.h>
#include <string.h>

#include "dft.h"

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
			strv_push(&out, &len, &cap, v[j]);
			free(v[j]);
		}
		free(v);
	}
	*paths = out;
	*npaths = len;
	return status;
}
