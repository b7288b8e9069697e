/*
 * meta.c - the metadata-heavy phase: create, stat and unlink many tiny
 * files, as a checkpoint or log directory scan would.
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sample.h"

int
scan_metadata(const char *dir, long *files, long *bytes)
{
	char sub[4096], path[4200];
	struct stat st;

	snprintf(sub, sizeof(sub), "%s/meta", dir);
	if (mkdir(sub, 0755) < 0 && stat(sub, &st) < 0)
		return -1;
	*files = 0;
	*bytes = 0;
	for (int i = 0; i < META_FILES; i++) {
		char line[32];
		int fd, n;

		snprintf(path, sizeof(path), "%s/f%04d", sub, i);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0)
			return -1;
		n = snprintf(line, sizeof(line), "file %d\n", i);
		if (write(fd, line, (size_t)n) != n) {
			close(fd);
			return -1;
		}
		close(fd);
	}
	for (int i = 0; i < META_FILES; i++) {
		snprintf(path, sizeof(path), "%s/f%04d", sub, i);
		if (stat(path, &st) < 0)
			return -1;
		*files += 1;
		*bytes += st.st_size;
	}
	for (int i = 0; i < META_FILES; i++) {
		snprintf(path, sizeof(path), "%s/f%04d", sub, i);
		if (unlink(path) < 0)
			return -1;
	}
	return rmdir(sub);
}
