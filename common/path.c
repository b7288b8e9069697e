/*
 * path.c - path arithmetic (lexical, never following links unless said),
 * directory creation and removal, whole-file reads, atomic writes, and a
 * recursive copy that keeps symlinks as symlinks.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tree.h"

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

/* Lexical clean-up: "//", "/./", "x/.." removed; never touches the disk. */
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

/* Absolute and normalized against the working directory. Caller frees. */
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

/* 1 when path (after normalization) is dir itself or below it, else 0. */
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

/* Whole file into memory (NUL-terminated), *len optional. NULL+errno. */
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

/* The temporary of path: PATH.dft-tmp.PID.XXXXXX (see remove_stale). */
static char *
tmp_name(const char *path)
{
	return dft_xasprintf("%s.dft-tmp.%ld.XXXXXX", path, (long)getpid());
}

/*
 * Atomic write: temp file in the same directory, fsync, rename over path,
 * keeping the old file's mode when it exists. 0 or -1 (nothing half-written).
 */
int
dft_write_file_atomic(const char *path, const void *data, size_t len)
{
	char *tmp = tmp_name(path);
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

/* Recursive copy preserving symlinks and modes; 0 or -1. */
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

char *
dft_path_under(const char *root, const char *rel)
{
	char *n, *p;

	if (rel[0] == '/')
		return NULL;
	n = dft_path_normalize(rel);
	if (strcmp(n, "..") == 0 || dft_has_prefix(n, "../")) {
		free(n);
		return NULL;
	}
	p = strcmp(n, ".") == 0 ? dft_path_normalize(root) :
				  dft_path_join(root, n);
	free(n);
	return p;
}

/*
 * The real location of p (absolute, normalized): the longest existing
 * prefix through realpath(3), the components that do not exist yet
 * appended as they are. NULL when a component cannot be resolved.
 */
static char *
real_location(const char *p)
{
	char *cur = dft_path_absolute(p), *tail = dft_xstrdup("");

	for (;;) {
		char *r = realpath(cur, NULL), *sl, *t;

		if (r != NULL) {
			t = *tail ? dft_path_join(r, tail) : dft_xstrdup(r);
			free(r);
			free(cur);
			free(tail);
			return t;
		}
		if ((errno != ENOENT && errno != ENOTDIR) ||
		    strcmp(cur, "/") == 0)
			break;
		sl = strrchr(cur, '/');
		t = *tail ? dft_xasprintf("%s/%s", sl + 1, tail) :
			    dft_xstrdup(sl + 1);
		free(tail);
		tail = t;
		if (sl == cur)
			sl[1] = '\0';
		else
			*sl = '\0';
	}
	free(cur);
	free(tail);
	return NULL;
}

int
dft_path_real_inside(const char *root, const char *path)
{
	char *r = realpath(root, NULL), *p = real_location(path);
	int in = r != NULL && p != NULL && dft_path_is_inside(r, p);

	free(r);
	free(p);
	return in;
}

char *
dft_read_snap(const char *path, size_t *lenp, struct dft_file_snap *s)
{
	for (int tries = 0; ; tries++) {
		struct stat a, b;
		size_t n = 0;
		char *text;

		memset(s, 0, sizeof(*s));
		if (stat(path, &a) < 0)
			return NULL;
		text = dft_read_file(path, &n);
		if (text == NULL)
			return NULL;
		if (stat(path, &b) < 0) {
			free(text);
			return NULL;
		}
		if ((a.st_ino == b.st_ino && a.st_size == b.st_size &&
		     a.st_mtim.tv_sec == b.st_mtim.tv_sec &&
		     a.st_mtim.tv_nsec == b.st_mtim.tv_nsec &&
		     (off_t)n == b.st_size) || tries == 3) {
			s->valid = 1;
			s->dev = b.st_dev;
			s->ino = b.st_ino;
			s->size = (off_t)n;
			s->mtime_s = (long)b.st_mtim.tv_sec;
			s->mtime_ns = b.st_mtim.tv_nsec;
			s->hash = dft_fnv1a64(text, n);
			if (lenp != NULL)
				*lenp = n;
			return text;
		}
		free(text);
	}
}

/* Whether the file at path still is what s says (0) or not (-1). */
static int
snap_same(const char *path, const struct dft_file_snap *s)
{
	struct dft_file_snap now;
	size_t n;
	char *text = dft_read_snap(path, &n, &now);
	int same;

	if (text == NULL)
		return -1;
	free(text);
	same = now.dev == s->dev && now.ino == s->ino &&
	       now.size == s->size && now.mtime_s == s->mtime_s &&
	       now.mtime_ns == s->mtime_ns && now.hash == s->hash;
	return same ? 0 : -1;
}

/*
 * Removes PATH.dft-tmp.PID.XXXXXX files whose PID is no longer running
 * (left by a writer killed between its temporary and its rename).
 */
static void
remove_stale(const char *path)
{
	char *dir = dft_xstrdup(path), *sl = strrchr(dir, '/');
	const char *base = sl ? sl + 1 : path;
	char *pre;
	DIR *d;
	struct dirent *e;

	if (sl == dir)
		dir[1] = '\0';
	else if (sl)
		*sl = '\0';
	else {
		free(dir);
		dir = dft_xstrdup(".");
	}
	pre = dft_xasprintf("%s.dft-tmp.", base);
	d = opendir(dir);
	while (d != NULL && (e = readdir(d)) != NULL) {
		const char *t;
		char *end, *f;
		long pid;

		if (!dft_has_prefix(e->d_name, pre))
			continue;
		t = e->d_name + strlen(pre);
		pid = strtol(t, &end, 10);
		if (end == t || *end != '.' || strlen(end + 1) != 6 || pid <= 0)
			continue;
		if (pid == (long)getpid() || kill((pid_t)pid, 0) == 0 ||
		    errno != ESRCH)
			continue;
		f = dft_path_join(dir, e->d_name);
		if (unlink(f) == 0)
			dft_warn("removed '%s', a stale temporary of pid %ld "
				 "(killed before it finished)", f, pid);
		free(f);
	}
	if (d != NULL)
		closedir(d);
	free(pre);
	free(dir);
}

/* Copies the temporary's bytes into path itself (keeps hard links). */
static int
rewrite_in_place(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return -1;
	if (write_all(fd, data, len) < 0 || fsync(fd) < 0) {
		int saved = errno;

		close(fd);
		errno = saved;
		return -1;
	}
	return close(fd);
}

int
dft_replace_file(const char *root, const char *path0, const void *data,
		 size_t len, const struct dft_file_snap *was,
		 const char **why)
{
	char *path = dft_path_absolute(path0), *tmp = NULL;
	struct stat st;
	int fd = -1, exists, saved;

	*why = NULL;
	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
		char *t = realpath(path, NULL);

		if (t == NULL) {
			*why = "it is a symbolic link that does not resolve";
			goto fail;
		}
		free(path);
		path = t;
	}
	if (root != NULL && !dft_path_real_inside(root, path)) {
		*why = "its real location is outside the tree being written "
		       "(a symbolic link or '..' leads out of it)";
		errno = EXDEV;
		goto fail;
	}
	exists = lstat(path, &st) == 0;
	if (exists && !S_ISREG(st.st_mode)) {
		*why = "it is not a regular file";
		errno = EINVAL;
		goto fail;
	}
	remove_stale(path);
	tmp = tmp_name(path);
	fd = mkstemp(tmp);
	if (fd < 0) {
		*why = "cannot create its temporary";
		goto fail;
	}
	if (write_all(fd, data, len) < 0 || fsync(fd) < 0) {
		*why = "cannot write its temporary";
		goto fail;
	}
	if (exists) {
		/* owner first: chown may clear the set-id bits chmod restores */
		if (fchown(fd, st.st_uid, st.st_gid) < 0) {
			/* not permitted: the file becomes the caller's */
		}
		fchmod(fd, st.st_mode & 07777);
	} else {
		mode_t um = umask(022);

		umask(um);
		fchmod(fd, 0666 & ~um);
	}
	if (close(fd) < 0) {
		fd = -1;
		*why = "cannot write its temporary";
		goto fail;
	}
	fd = -1;
	if (was != NULL && was->valid && snap_same(path, was) < 0) {
		*why = "it changed while annotating (it is left as it is now)";
		errno = EAGAIN;
		goto fail;
	}
	if (exists && st.st_nlink > 1) {
		if (rewrite_in_place(path, data, len) < 0) {
			*why = "cannot rewrite it in place (it has hard links)";
			goto fail;
		}
		unlink(tmp);
	} else if (rename(tmp, path) < 0) {
		*why = "cannot rename its temporary over it";
		goto fail;
	}
	free(tmp);
	free(path);
	return 0;
fail:
	saved = errno;
	if (fd >= 0)
		close(fd);
	if (tmp != NULL)
		unlink(tmp);
	free(tmp);
	free(path);
	errno = saved;
	return -1;
}

/* The path from directory dir to target, both relative to one root. */
static char *
relative_to(const char *dir, const char *target)
{
	size_t i = 0, last = 0;
	struct dft_buf b;
	const char *d;

	if (strcmp(dir, ".") == 0)
		return dft_xstrdup(target);
	while (dir[i] && dir[i] == target[i]) {
		if (dir[i] == '/')
			last = i + 1;
		i++;
	}
	if (dir[i] == '\0' && (target[i] == '/' || target[i] == '\0'))
		last = target[i] ? i + 1 : i;
	dft_buf_init(&b);
	for (d = dir + last; *d; d++)
		if (*d == '/')
			dft_buf_adds(&b, "../");
	if (dir[last])
		dft_buf_adds(&b, "../");
	dft_buf_adds(&b, target[last] ? target + last : ".");
	return dft_buf_detach(&b);
}

/* One link: rel is its place below root. -1 error, 1 removed, 0 kept. */
static int
confine_link(const char *root, const char *rfrom, const char *link,
	     const char *rel)
{
	char target[PATH_MAX], *dir, *t, *sl;
	ssize_t n = readlink(link, target, sizeof(target) - 1);
	int rc = 0;

	if (n < 0)
		return -1;
	target[n] = '\0';
	sl = strrchr(rel, '/');
	dir = sl ? dft_xstrndup(rel, (size_t)(sl - rel)) : dft_xstrdup(".");
	if (target[0] == '/') {
		char *nt = dft_path_normalize(target);
		const char *from = rfrom;

		if (from && dft_path_is_inside(from, nt)) {
			const char *in = nt + strlen(from);
			char *inrel, *r;

			while (*in == '/')
				in++;
			inrel = dft_xstrdup(*in ? in : ".");
			r = relative_to(dir, inrel);
			if (unlink(link) < 0 || symlink(r, link) < 0)
				rc = -1;
			free(inrel);
			free(r);
		}
		free(nt);
		if (rc < 0 || (n = readlink(link, target, sizeof(target) - 1)) < 0) {
			free(dir);
			return -1;
		}
		target[n] = '\0';
	}
	if (target[0] == '/') {
		t = dft_xstrdup(target);
	} else {
		char *ld = dft_path_join(root, dir);

		t = dft_path_join(ld, target);
		free(ld);
	}
	if (!dft_path_real_inside(root, t)) {
		if (unlink(link) < 0)
			rc = -1;
		else {
			dft_warn("removed the symbolic link '%s' -> '%s': it "
				 "leads outside the source tree", rel, target);
			rc = 1;
		}
	}
	free(t);
	free(dir);
	return rc;
}

static int
confine_walk(const char *root, const char *rfrom, const char *dir,
	     const char *rel, int depth)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int removed = 0;

	if (d == NULL)
		return -1;
	while ((e = readdir(d)) != NULL) {
		struct stat st;
		char *p, *r;
		int k = 0;

		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		p = dft_path_join(dir, e->d_name);
		r = *rel ? dft_path_join(rel, e->d_name) :
			   dft_xstrdup(e->d_name);
		if (lstat(p, &st) == 0) {
			if (S_ISLNK(st.st_mode))
				k = confine_link(root, rfrom, p, r);
			else if (S_ISDIR(st.st_mode) && depth < 256)
				k = confine_walk(root, rfrom, p, r, depth + 1);
		}
		free(p);
		free(r);
		if (k < 0) {
			removed = -1;
			break;
		}
		removed += k;
	}
	closedir(d);
	return removed;
}

int
dft_tree_confine_links(const char *root, const char *from)
{
	char *rroot = realpath(root, NULL), *rfrom;
	int n;

	if (rroot == NULL)
		return -1;
	rfrom = realpath(from ? from : root, NULL);
	if (rfrom == NULL)
		rfrom = dft_path_absolute(from ? from : root);
	n = confine_walk(rroot, rfrom, rroot, "", 0);
	free(rroot);
	free(rfrom);
	return n;
}
