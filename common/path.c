/*
 * path.c - path arithmetic (lexical, never following links unless said),
 * directory creation and removal, whole-file reads, atomic writes, and a
 * recursive copy that keeps symlinks as symlinks.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dft.h"

char *
dft_path_join(const char *a, const char *b)
{
	size_t n = strlen(a);

	if (b[0] == '\0')
		return dft_xstrdup(a);
	if (n == 0)
		return dft_xstrdup(b);
	while (n > 1 && a[n - 1] == '/')
		n--;
	while (*b == '/')
		b++;
	if (n == 1 && a[0] == '/')
		return dft_xasprintf("/%s", b);
	return dft_xasprintf("%.*s/%s", (int)n, a, b);
}

char *
dft_path_normalize(const char *p)
{
	/* Split into components, resolve "." and "..", join again. */
	size_t n = strlen(p), depth = 0, lead_ups = 0;
	const char **comp = dft_xreallocarray(NULL, n / 2 + 1, sizeof(*comp));
	size_t *clen = dft_xreallocarray(NULL, n / 2 + 1, sizeof(*clen));
	int abs = p[0] == '/';
	struct dft_buf out;

	while (*p) {
		const char *e;
		size_t cl;

		while (*p == '/')
			p++;
		if (*p == '\0')
			break;
		e = strchr(p, '/');
		cl = e ? (size_t)(e - p) : strlen(p);
		if (cl == 2 && p[0] == '.' && p[1] == '.') {
			if (depth > lead_ups)
				depth--;
			else if (!abs) {
				comp[depth] = p;	/* ".." above a relative start */
				clen[depth++] = cl;
				lead_ups++;
			}
		} else if (!(cl == 1 && p[0] == '.')) {
			comp[depth] = p;
			clen[depth++] = cl;
		}
		p += cl;
	}
	dft_buf_init(&out);
	if (abs)
		dft_buf_addc(&out, '/');
	for (size_t i = 0; i < depth; i++) {
		if (i > 0)
			dft_buf_addc(&out, '/');
		dft_buf_add(&out, comp[i], clen[i]);
	}
	if (out.len == 0)
		dft_buf_addc(&out, '.');
	free(comp);
	free(clen);
	return dft_buf_detach(&out);
}

char *
dft_path_absolute(const char *p)
{
	char cwd[PATH_MAX];
	char *j, *n;

	if (p[0] == '/')
		return dft_path_normalize(p);
	if (getcwd(cwd, sizeof(cwd)) == NULL)
		return dft_path_normalize(p);
	j = dft_path_join(cwd, p);
	n = dft_path_normalize(j);
	free(j);
	return n;
}

int
dft_path_is_inside(const char *dir, const char *path)
{
	char *d = dft_path_absolute(dir), *p = dft_path_absolute(path);
	size_t n = strlen(d);
	int inside;

	if (n == 1 && d[0] == '/')
		inside = 1;
	else
		inside = strncmp(d, p, n) == 0 &&
		    (p[n] == '\0' || p[n] == '/');
	free(d);
	free(p);
	return inside;
}

const char *
dft_path_base(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

int
dft_is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int
dft_exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

int
dft_mkdir_p(const char *path, mode_t mode)
{
	char *p = dft_xstrdup(path);
	int rc = 0;

	for (char *s = p + 1; ; s++) {
		if (*s == '/' || *s == '\0') {
			char c = *s;

			*s = '\0';
			if (mkdir(p, mode) < 0 && errno != EEXIST) {
				rc = -1;
				break;
			}
			*s = c;
			if (c == '\0')
				break;
		}
	}
	if (rc == 0 && !dft_is_dir(path)) {
		errno = ENOTDIR;
		rc = -1;
	}
	free(p);
	return rc;
}

int
dft_rm_rf(const char *path)
{
	struct stat st;
	DIR *d;
	struct dirent *e;
	int rc = 0;

	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode))
		return unlink(path);
	d = opendir(path);
	if (d == NULL)
		return -1;
	while ((e = readdir(d)) != NULL) {
		char *c;

		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		c = dft_path_join(path, e->d_name);
		if (dft_rm_rf(c) < 0)
			rc = -1;
		free(c);
	}
	closedir(d);
	if (rmdir(path) < 0)
		rc = -1;
	return rc;
}

char *
dft_read_file(const char *path, size_t *lenp)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct dft_buf b;
	char chunk[65536];
	ssize_t n;

	if (fd < 0)
		return NULL;
	dft_buf_init(&b);
	dft_buf_add(&b, "", 0);
	while ((n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			int saved = errno;

			close(fd);
			dft_buf_release(&b);
			errno = saved;
			return NULL;
		}
		dft_buf_add(&b, chunk, (size_t)n);
	}
	close(fd);
	if (lenp != NULL)
		*lenp = b.len;
	return dft_buf_detach(&b);
}

static int
write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int
dft_write_file_atomic(const char *path, const void *data, size_t len)
{
	char *tmp = dft_xasprintf("%s.dft-tmp.XXXXXX", path);
	struct stat st;
	int fd, saved;

	fd = mkstemp(tmp);
	if (fd < 0)
		goto fail;
	if (stat(path, &st) == 0)
		fchmod(fd, st.st_mode & 07777);
	else {
		/* mkstemp gives 0600; a new file gets what open(2) would. */
		mode_t um = umask(022);

		umask(um);
		fchmod(fd, 0666 & ~um);
	}
	if (write_all(fd, data, len) < 0 || fsync(fd) < 0) {
		saved = errno;
		close(fd);
		unlink(tmp);
		errno = saved;
		goto fail;
	}
	if (close(fd) < 0 || rename(tmp, path) < 0) {
		saved = errno;
		unlink(tmp);
		errno = saved;
		goto fail;
	}
	free(tmp);
	return 0;
fail:
	free(tmp);
	return -1;
}

static int
copy_file(const char *src, const char *dst, mode_t mode)
{
	int in = open(src, O_RDONLY | O_CLOEXEC), out;
	char buf[65536];
	ssize_t n;
	int rc = 0;

	if (in < 0)
		return -1;
	out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode & 07777);
	if (out < 0) {
		close(in);
		return -1;
	}
	while ((n = read(in, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			rc = -1;
			break;
		}
		if (write_all(out, buf, (size_t)n) < 0) {
			rc = -1;
			break;
		}
	}
	close(in);
	if (close(out) < 0)
		rc = -1;
	return rc;
}

int
dft_copy_tree(const char *src, const char *dst)
{
	struct stat st;
	DIR *d;
	struct dirent *e;
	int rc = 0;

	if (lstat(src, &st) < 0)
		return -1;
	if (S_ISLNK(st.st_mode)) {
		char target[PATH_MAX];
		ssize_t n = readlink(src, target, sizeof(target) - 1);

		if (n < 0)
			return -1;
		target[n] = '\0';
		return symlink(target, dst);
	}
	if (S_ISREG(st.st_mode))
		return copy_file(src, dst, st.st_mode);
	if (!S_ISDIR(st.st_mode))
		return 0;	/* sockets, fifos, devices: not source */
	if (mkdir(dst, st.st_mode & 07777) < 0 && errno != EEXIST)
		return -1;
	d = opendir(src);
	if (d == NULL)
		return -1;
	while ((e = readdir(d)) != NULL) {
		char *s, *t;

		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		s = dft_path_join(src, e->d_name);
		t = dft_path_join(dst, e->d_name);
		if (dft_copy_tree(s, t) < 0)
			rc = -1;
		free(s);
		free(t);
	}
	closedir(d);
	return rc;
}
