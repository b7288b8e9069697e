/*
 * share.c - where the running tool finds its data files: an override, the
 * source tree it was built in, or the installed prefix.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dft.h"

#ifndef DFT_DATADIR
#define DFT_DATADIR "/usr/local/share/dft"
#endif

char *
dft_exe_dir(void)
{
	char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
	char *slash;

	if (n <= 0)
		return dft_xstrdup(".");
	buf[n] = '\0';
	slash = strrchr(buf, '/');
	if (slash != NULL)
		*slash = '\0';
	return dft_xstrdup(buf);
}

/*
 * Finds a data file of share/dft: $DFT_SHARE_DIR, then the source tree next
 * to the running binary (build/bin/../../share/dft), then the installed
 * DFT_DATADIR. Returns the first existing path (caller frees) or NULL.
 */
char *
dft_share_path(const char *rel)
{
	const char *env = getenv("DFT_SHARE_DIR");
	char *exe = dft_exe_dir();
	char *cands[3];
	char *found = NULL;
	int n = 0;

	if (env != NULL && *env != '\0')
		cands[n++] = dft_path_join(env, rel);
	/* build/bin/dft-x -> <tree>/share/dft */
	char *tree = dft_path_join(exe, "../../share/dft");
	cands[n++] = dft_path_join(tree, rel);
	free(tree);
	cands[n++] = dft_path_join(DFT_DATADIR, rel);
	for (int i = 0; i < n; i++) {
		if (found == NULL && dft_exists(cands[i]))
			found = dft_path_normalize(cands[i]);
		free(cands[i]);
	}
	free(exe);
	return found;
}
