/*
 * tune.c - libdft_tune.so, the I/O tuning library of the optimization loop
 * (L2: no code change, no MPI).  Preloaded like the tracer; it does nothing
 * unless a DFT_TUNE_* variable asks (dftracer-runtime(7)):
 *
 *   DFT_TUNE_STDIO_BUFFER=SIZE   a full buffer of SIZE bytes right after a
 *                                successful fopen/freopen of a regular
 *                                file, kept when the program asks for
 *                                another (setvbuf, setbuf, setlinebuf)
 *   DFT_TUNE_WRITE_BUFFER=SIZE   small sequential write()s to a regular file
 *                                gathered per descriptor into one write of
 *                                up to SIZE bytes
 *   DFT_TUNE_READ_AHEAD=SIZE     small read()s of a regular file served from
 *                                one read of SIZE bytes
 *   DFT_TUNE_FADVISE=ADVICE      posix_fadvise(fd, 0, 0, ADVICE) after open:
 *                                sequential, random, willneed or noreuse
 *   DFT_TUNE_FSYNC=fdatasync     fsync(fd) becomes fdatasync(fd)
 *   DFT_TUNE_DIR=DIR[:DIR...]    only files below these directories (default:
 *                                every regular file)
 *
 * Correctness of the two buffers: bytes a program wrote are on their way
 * to the file before anything else can look at it.  A descriptor's pending
 * writes are written, and its read-ahead given back (the file offset moved
 * back to where the program is), before any other call on that descriptor
 * (read, write of another kind, lseek, pread/pwrite, fsync, fstat,
 * ftruncate, mmap, dup, fcntl, close, fdopen, ...), and all pending writes
 * before any call that names a file (open, stat, rename, unlink, truncate),
 * before fork (pthread_atfork), exec, posix_spawn, system and popen, at
 * exit (atexit and a destructor), _exit and _Exit, and in a handler for the
 * signals that end a process when the program left them at their default.
 * A write error of a gathered write is reported by the next call on that
 * descriptor.  Calls libc makes internally (stdio's own writes), syscall()
 * and io_uring do not pass through here: a descriptor given to fdopen or
 * fileno is left alone from then on.
 *
 * Cost with every knob off: one load and a predicted branch per call,
 * measured by tests/bench/tune.sh.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#define API __attribute__((visibility("default")))
#define UNLIKELY(x) __builtin_expect(!!(x), 0)

#define MAXFD 4096		/* descriptors tuned: 0 .. MAXFD - 1 */
#define MAXDIRS 16

/* ---- configuration --------------------------------------------------- */

static int tune_on;		/* any knob set: the one load of the fast path */
static size_t stdio_buf, write_buf, read_ahead;
static int fadvise_advice = -1;
static int fsync_data;
static char *dirs[MAXDIRS];
static size_t dirlen[MAXDIRS];
static int ndirs;

/* ---- per-descriptor state (under lock) -------------------------------- */

struct fdstate {
	int tuned;		/* a regular file below DFT_TUNE_DIR */
	dev_t dev;		/* the file */
	ino_t ino;
	int wok, rok;		/* write gathering / read-ahead allowed */
	char *wbuf;		/* pending writes */
	size_t wlen;
	int werr;		/* errno of a failed gathered write, reported later */
	char *rbuf;		/* read ahead: rbuf[rpos .. rlen) not yet consumed */
	size_t rlen, rpos;
};

static struct fdstate fds[MAXFD];
static char *sbufs[MAXFD];	/* stdio buffers given by setvbuf, by fd */
static pthread_mutex_t lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static volatile sig_atomic_t pending;	/* some descriptor has a buffer */

/* ---- the real functions ----------------------------------------------- */

static void *next(const char *name)
{
	void *p = dlsym(RTLD_NEXT, name);

	if (p == NULL) {
		static const char msg[] = "dft_tune: cannot find the real ";

		(void)!write(2, msg, sizeof(msg) - 1);
		(void)!write(2, name, strlen(name));
		(void)!write(2, "\n", 1);
		abort();
	}
	return p;
}

#define DECL(n) static __typeof__(&n) real_##n
#define REAL(n) \
	(*({ \
		if (UNLIKELY(real_##n == NULL)) \
			real_##n = (__typeof__(real_##n))next(#n); \
		real_##n; \
	}))

/* glibc's stat entry points without a public declaration */
int __xstat(int ver, const char *path, struct stat *buf);
int __lxstat(int ver, const char *path, struct stat *buf);
int __fxstat(int ver, int fd, struct stat *buf);

DECL(write); DECL(read); DECL(pread); DECL(pwrite); DECL(readv);
DECL(writev); DECL(lseek); DECL(fsync); DECL(fdatasync); DECL(close);
DECL(dup); DECL(dup2); DECL(dup3); DECL(ftruncate); DECL(fstat);
DECL(mmap); DECL(open); DECL(openat); DECL(creat); DECL(stat); DECL(lstat);
DECL(rename); DECL(unlink); DECL(truncate); DECL(fopen); DECL(fdopen);
DECL(freopen); DECL(fileno); DECL(execve); DECL(execv); DECL(execvp);
DECL(execvpe); DECL(posix_spawn); DECL(posix_spawnp); DECL(system);
DECL(popen); DECL(_exit); DECL(_Exit); DECL(fcntl); DECL(__xstat);
DECL(__lxstat); DECL(__fxstat); DECL(pread64); DECL(pwrite64);
DECL(lseek64); DECL(open64); DECL(openat64); DECL(fopen64); DECL(fclose);
DECL(setvbuf); DECL(setbuf); DECL(setbuffer); DECL(setlinebuf);

/* ---- buffers ----------------------------------------------------------- */

/* Writes the pending bytes of fd (lock held); 0 or -1 with errno. */
static int wflush(int fd)
{
	struct fdstate *s = &fds[fd];
	size_t off = 0;

	while (off < s->wlen) {
		ssize_t n = REAL(write)(fd, s->wbuf + off, s->wlen - off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			s->werr = errno;
			break;
		}
		off += (size_t)n;
	}
	s->wlen = 0;
	if (s->werr) {
		errno = s->werr;
		s->werr = 0;
		return -1;
	}
	return 0;
}

/* Gives back what was read ahead of the program (lock held). */
static void rgiveback(int fd)
{
	struct fdstate *s = &fds[fd];

	if (s->rlen > s->rpos)
		REAL(lseek)(fd, -(off_t)(s->rlen - s->rpos), SEEK_CUR);
	s->rlen = s->rpos = 0;
}

/* Before another call on fd: its buffers settled. 0, or -1 with errno
 * when a gathered write had failed. */
static int settle(int fd)
{
	int rc = 0, e = errno;

	if (fd < 0 || fd >= MAXFD || !pending)
		return 0;
	pthread_mutex_lock(&lock);
	if (fds[fd].wlen || fds[fd].werr)
		rc = wflush(fd);
	if (fds[fd].rlen)
		rgiveback(fd);
	pthread_mutex_unlock(&lock);
	if (rc == 0)
		errno = e;
	return rc;
}

/* Every descriptor's pending writes written (before a call that names a
 * file, fork, exec, exit). */
static void settle_all(void)
{
	int e = errno;

	if (!pending)
		return;
	pthread_mutex_lock(&lock);
	for (int fd = 0; fd < MAXFD; fd++) {
		if (fds[fd].wlen)
			wflush(fd);
		if (fds[fd].rlen)
			rgiveback(fd);
	}
	pthread_mutex_unlock(&lock);
	errno = e;
}

/* A descriptor no longer ours (closed, or handed to stdio). */
static void forget(int fd)
{
	if (fd < 0 || fd >= MAXFD)
		return;
	pthread_mutex_lock(&lock);
	free(fds[fd].wbuf);
	free(fds[fd].rbuf);
	memset(&fds[fd], 0, sizeof(fds[fd]));
	pthread_mutex_unlock(&lock);
}

/* ---- which files ------------------------------------------------------- */

static int below_dirs(const char *path)
{
	char abs[PATH_MAX];

	if (ndirs == 0)
		return 1;
	if (path == NULL)
		return 0;
	if (path[0] != '/') {
		size_t n;

		if (getcwd(abs, sizeof(abs)) == NULL)
			return 0;
		n = strlen(abs);
		if (n + 1 + strlen(path) >= sizeof(abs))
			return 0;
		abs[n] = '/';
		strcpy(abs + n + 1, path);
		path = abs;
	}
	for (int i = 0; i < ndirs; i++)
		if (strncmp(path, dirs[i], dirlen[i]) == 0 &&
		    (path[dirlen[i]] == '/' || path[dirlen[i]] == '\0'))
			return 1;
	return 0;
}

/* A descriptor just opened: tuned when a regular file below the
 * directories; the hint given. */
static void opened(int fd, const char *path, int flags)
{
	struct stat st;
	int e = errno;

	if (fd < 0 || fd >= MAXFD)
		return;
	forget(fd);
	if (!below_dirs(path) || REAL(fstat)(fd, &st) != 0 ||
	    !S_ISREG(st.st_mode)) {
		errno = e;
		return;
	}
	pthread_mutex_lock(&lock);
	fds[fd].tuned = 1;
	fds[fd].dev = st.st_dev;
	fds[fd].ino = st.st_ino;
	fds[fd].wok = write_buf > 0 && (flags & O_ACCMODE) != O_RDONLY &&
		      !(flags & (O_DIRECT | O_SYNC | O_DSYNC));
	fds[fd].rok = read_ahead > 0 && (flags & O_ACCMODE) != O_WRONLY &&
		      !(flags & O_DIRECT);
	/* a file open twice: writes through the two descriptors keep their
	 * order only unbuffered (settle_all has just written both) */
	if (write_buf || read_ahead)
		for (int i = 0; i < MAXFD; i++)
			if (i != fd && fds[i].tuned &&
			    fds[i].dev == st.st_dev &&
			    fds[i].ino == st.st_ino) {
				fds[i].wok = fds[i].rok = 0;
				fds[fd].wok = fds[fd].rok = 0;
			}
	pthread_mutex_unlock(&lock);
	if (fadvise_advice >= 0)
		posix_fadvise(fd, 0, 0, fadvise_advice);
	errno = e;
}

/* ---- setup ------------------------------------------------------------- */

/* "4096", "64K", "1M": bytes, or 0 */
static size_t size_env(const char *name)
{
	const char *v = getenv(name);
	char *end;
	unsigned long long n;

	if (v == NULL || *v == '\0')
		return 0;
	errno = 0;
	n = strtoull(v, &end, 10);
	if (errno != 0 || end == v)
		return 0;
	switch (*end) {
	case 'k': case 'K': n <<= 10; end++; break;
	case 'm': case 'M': n <<= 20; end++; break;
	case 'g': case 'G': n <<= 30; end++; break;
	}
	if (*end != '\0' || n > (1ULL << 30))
		return 0;
	return (size_t)n;
}

static void on_signal(int sig)
{
	/* a thread holding the lock may be in the middle of a write: then
	 * the bytes it has not written yet are lost, as with stdio */
	if (pthread_mutex_trylock(&lock) == 0) {
		for (int fd = 0; fd < MAXFD; fd++)
			if (fds[fd].wlen) {
				size_t off = 0;

				while (off < fds[fd].wlen) {
					ssize_t n = REAL(write)(fd,
						fds[fd].wbuf + off,
						fds[fd].wlen - off);

					if (n <= 0)
						break;
					off += (size_t)n;
				}
				fds[fd].wlen = 0;
			}
		pthread_mutex_unlock(&lock);
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

static void at_exit(void)
{
	settle_all();
}

static void fork_prepare(void)
{
	settle_all();
	pthread_mutex_lock(&lock);
}

static void fork_parent(void)
{
	pthread_mutex_unlock(&lock);
}

/* the child's thread has another id than the one that took the lock (a
 * recursive mutex knows its owner): a fresh mutex instead */
static void fork_child(void)
{
	static const pthread_mutex_t fresh = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

	memcpy(&lock, &fresh, sizeof(lock));
}

__attribute__((constructor)) static void tune_init(void)
{
	const char *v;
	static const int sigs[] = { SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGALRM,
		SIGUSR1, SIGUSR2, SIGXCPU, SIGVTALRM, SIGPROF };

	stdio_buf = size_env("DFT_TUNE_STDIO_BUFFER");
	write_buf = size_env("DFT_TUNE_WRITE_BUFFER");
	read_ahead = size_env("DFT_TUNE_READ_AHEAD");
	v = getenv("DFT_TUNE_FADVISE");
	if (v != NULL) {
		if (strcmp(v, "sequential") == 0)
			fadvise_advice = POSIX_FADV_SEQUENTIAL;
		else if (strcmp(v, "random") == 0)
			fadvise_advice = POSIX_FADV_RANDOM;
		else if (strcmp(v, "willneed") == 0)
			fadvise_advice = POSIX_FADV_WILLNEED;
		else if (strcmp(v, "noreuse") == 0)
			fadvise_advice = POSIX_FADV_NOREUSE;
	}
	v = getenv("DFT_TUNE_FSYNC");
	fsync_data = v != NULL && strcmp(v, "fdatasync") == 0;
	v = getenv("DFT_TUNE_DIR");
	if (v != NULL && *v != '\0') {
		char *copy = strdup(v), *save = NULL;

		for (char *d = strtok_r(copy, ":", &save);
		     d != NULL && ndirs < MAXDIRS;
		     d = strtok_r(NULL, ":", &save)) {
			size_t n = strlen(d);

			while (n > 1 && d[n - 1] == '/')
				d[--n] = '\0';
			if (d[0] != '/')
				continue;
			dirs[ndirs] = d;
			dirlen[ndirs++] = n;
		}
	}
	tune_on = stdio_buf || write_buf || read_ahead ||
		  fadvise_advice >= 0 || fsync_data;
	if (!write_buf)
		return;
	atexit(at_exit);
	pthread_atfork(fork_prepare, fork_parent, fork_child);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct sigaction old;

		if (sigaction(sigs[i], NULL, &old) == 0 &&
		    old.sa_handler == SIG_DFL && !(old.sa_flags & SA_SIGINFO))
			signal(sigs[i], on_signal);
	}
}

__attribute__((destructor)) static void tune_fini(void)
{
	if (tune_on)
		settle_all();
}

/* ---- data calls --------------------------------------------------------- */

API ssize_t write(int fd, const void *buf, size_t n)
{
	struct fdstate *s;

	if (!tune_on || fd < 0 || fd >= MAXFD)
		return REAL(write)(fd, buf, n);
	if (!write_buf) {
		if (settle(fd) != 0)
			return -1;
		return REAL(write)(fd, buf, n);
	}
	pthread_mutex_lock(&lock);
	s = &fds[fd];
	if (s->rlen)
		rgiveback(fd);
	if (!s->wok) {
		pthread_mutex_unlock(&lock);
		return REAL(write)(fd, buf, n);
	}
	if (s->werr) {
		errno = s->werr;
		s->werr = 0;
		pthread_mutex_unlock(&lock);
		return -1;
	}
	if (s->wlen + n > write_buf && wflush(fd) != 0) {
		pthread_mutex_unlock(&lock);
		return -1;
	}
	if (n >= write_buf) {
		ssize_t r = REAL(write)(fd, buf, n);

		pthread_mutex_unlock(&lock);
		return r;
	}
	if (s->wbuf == NULL && (s->wbuf = malloc(write_buf)) == NULL) {
		pthread_mutex_unlock(&lock);
		return REAL(write)(fd, buf, n);
	}
	memcpy(s->wbuf + s->wlen, buf, n);
	s->wlen += n;
	pending = 1;
	pthread_mutex_unlock(&lock);
	return (ssize_t)n;
}

API ssize_t read(int fd, void *buf, size_t n)
{
	struct fdstate *s;
	size_t got = 0;

	if (!tune_on || fd < 0 || fd >= MAXFD)
		return REAL(read)(fd, buf, n);
	if (!read_ahead) {
		if (settle(fd) != 0)
			return -1;
		return REAL(read)(fd, buf, n);
	}
	pthread_mutex_lock(&lock);
	s = &fds[fd];
	if ((s->wlen || s->werr) && wflush(fd) != 0) {
		pthread_mutex_unlock(&lock);
		return -1;
	}
	if (!s->rok || n >= read_ahead) {
		ssize_t r;

		if (s->rlen)
			rgiveback(fd);
		r = REAL(read)(fd, buf, n);
		pthread_mutex_unlock(&lock);
		return r;
	}
	if (s->rbuf == NULL && (s->rbuf = malloc(read_ahead)) == NULL) {
		pthread_mutex_unlock(&lock);
		return REAL(read)(fd, buf, n);
	}
	while (got < n) {
		size_t k;

		if (s->rpos == s->rlen) {
			ssize_t r = REAL(read)(fd, s->rbuf, read_ahead);

			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0) {
				s->rlen = s->rpos = 0;
				pthread_mutex_unlock(&lock);
				return got ? (ssize_t)got : -1;
			}
			s->rlen = (size_t)r;
			s->rpos = 0;
			if (r == 0)
				break;
			pending = 1;
		}
		k = s->rlen - s->rpos;
		if (k > n - got)
			k = n - got;
		memcpy((char *)buf + got, s->rbuf + s->rpos, k);
		s->rpos += k;
		got += k;
	}
	if (s->rpos == s->rlen)
		s->rlen = s->rpos = 0;
	pthread_mutex_unlock(&lock);
	return (ssize_t)got;
}

/* the calls after which the descriptor's buffers must be settled */
#define SETTLED(fd, call) \
	do { \
		if (UNLIKELY(tune_on) && settle(fd) != 0) \
			return -1; \
		return call; \
	} while (0)

API ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	SETTLED(fd, REAL(pread)(fd, buf, n, off));
}

API ssize_t pread64(int fd, void *buf, size_t n, off64_t off)
{
	SETTLED(fd, REAL(pread64)(fd, buf, n, off));
}

API ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
	SETTLED(fd, REAL(pwrite)(fd, buf, n, off));
}

API ssize_t pwrite64(int fd, const void *buf, size_t n, off64_t off)
{
	SETTLED(fd, REAL(pwrite64)(fd, buf, n, off));
}

API ssize_t readv(int fd, const struct iovec *iov, int n)
{
	SETTLED(fd, REAL(readv)(fd, iov, n));
}

API ssize_t writev(int fd, const struct iovec *iov, int n)
{
	SETTLED(fd, REAL(writev)(fd, iov, n));
}

API off_t lseek(int fd, off_t off, int whence)
{
	SETTLED(fd, REAL(lseek)(fd, off, whence));
}

API off64_t lseek64(int fd, off64_t off, int whence)
{
	SETTLED(fd, REAL(lseek64)(fd, off, whence));
}

API int ftruncate(int fd, off_t len)
{
	SETTLED(fd, REAL(ftruncate)(fd, len));
}

API int fstat(int fd, struct stat *st)
{
	SETTLED(fd, REAL(fstat)(fd, st));
}

API int __fxstat(int ver, int fd, struct stat *st)
{
	SETTLED(fd, REAL(__fxstat)(ver, fd, st));
}

API void *mmap(void *addr, size_t len, int prot, int flags, int fd,
	       off_t off)
{
	if (UNLIKELY(tune_on) && !(flags & MAP_ANONYMOUS) && settle(fd) != 0)
		return MAP_FAILED;
	return REAL(mmap)(addr, len, prot, flags, fd, off);
}

API int fsync(int fd)
{
	if (UNLIKELY(tune_on)) {
		if (settle(fd) != 0)
			return -1;
		if (fsync_data)
			return REAL(fdatasync)(fd);
	}
	return REAL(fsync)(fd);
}

API int fdatasync(int fd)
{
	SETTLED(fd, REAL(fdatasync)(fd));
}

API int close(int fd)
{
	if (UNLIKELY(tune_on)) {
		int rc = settle(fd), e = errno;

		forget(fd);
		if (REAL(close)(fd) != 0)
			return -1;
		errno = e;
		return rc;
	}
	return REAL(close)(fd);
}

API int dup(int fd)
{
	SETTLED(fd, REAL(dup)(fd));
}

API int dup2(int fd, int to)
{
	if (UNLIKELY(tune_on)) {
		if (settle(fd) != 0 || settle(to) != 0)
			return -1;
		forget(to);
	}
	return REAL(dup2)(fd, to);
}

API int dup3(int fd, int to, int flags)
{
	if (UNLIKELY(tune_on)) {
		if (settle(fd) != 0 || settle(to) != 0)
			return -1;
		forget(to);
	}
	return REAL(dup3)(fd, to, flags);
}

API int fcntl(int fd, int cmd, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, cmd);
	arg = va_arg(ap, void *);
	va_end(ap);
	SETTLED(fd, REAL(fcntl)(fd, cmd, arg));
}

/* ---- calls that name a file ---------------------------------------------- */

static int open_mode(int flags, va_list ap)
{
	return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ?
	       va_arg(ap, int) : 0;
}

API int open(const char *path, int flags, ...)
{
	va_list ap;
	int mode, fd;

	va_start(ap, flags);
	mode = open_mode(flags, ap);
	va_end(ap);
	if (!tune_on)
		return REAL(open)(path, flags, mode);
	settle_all();
	fd = REAL(open)(path, flags, mode);
	opened(fd, path, flags);
	return fd;
}

API int open64(const char *path, int flags, ...)
{
	va_list ap;
	int mode, fd;

	va_start(ap, flags);
	mode = open_mode(flags, ap);
	va_end(ap);
	if (!tune_on)
		return REAL(open64)(path, flags, mode);
	settle_all();
	fd = REAL(open64)(path, flags, mode);
	opened(fd, path, flags);
	return fd;
}

/* opened() for the openat forms: a path relative to a directory
 * descriptor cannot be matched against DFT_TUNE_DIR, so it counts only
 * when no directory is set */
static void
opened_at(int fd, int dirfd, const char *path, int flags)
{
	opened(fd, dirfd == AT_FDCWD || path[0] == '/' ? path :
	       ndirs ? NULL : path, flags);
}

API int openat(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	int mode, fd;

	va_start(ap, flags);
	mode = open_mode(flags, ap);
	va_end(ap);
	if (!tune_on)
		return REAL(openat)(dirfd, path, flags, mode);
	settle_all();
	fd = REAL(openat)(dirfd, path, flags, mode);
	opened_at(fd, dirfd, path, flags);
	return fd;
}

API int openat64(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	int mode, fd;

	va_start(ap, flags);
	mode = open_mode(flags, ap);
	va_end(ap);
	if (!tune_on)
		return REAL(openat64)(dirfd, path, flags, mode);
	settle_all();
	fd = REAL(openat64)(dirfd, path, flags, mode);
	opened_at(fd, dirfd, path, flags);
	return fd;
}

API int creat(const char *path, mode_t mode)
{
	int fd;

	if (!tune_on)
		return REAL(creat)(path, mode);
	settle_all();
	fd = REAL(creat)(path, mode);
	opened(fd, path, O_CREAT | O_WRONLY | O_TRUNC);
	return fd;
}

#define NAMED(call) \
	do { \
		if (UNLIKELY(tune_on)) \
			settle_all(); \
		return call; \
	} while (0)

API int stat(const char *path, struct stat *st)
{
	NAMED(REAL(stat)(path, st));
}

API int lstat(const char *path, struct stat *st)
{
	NAMED(REAL(lstat)(path, st));
}

API int __xstat(int ver, const char *path, struct stat *st)
{
	NAMED(REAL(__xstat)(ver, path, st));
}

API int __lxstat(int ver, const char *path, struct stat *st)
{
	NAMED(REAL(__lxstat)(ver, path, st));
}

API int rename(const char *a, const char *b)
{
	NAMED(REAL(rename)(a, b));
}

API int unlink(const char *path)
{
	NAMED(REAL(unlink)(path));
}

API int truncate(const char *path, off_t len)
{
	NAMED(REAL(truncate)(path, len));
}

/* ---- stdio ------------------------------------------------------------- */

/* A stream just opened on a regular file: its buffer, its hint. */
static FILE *stream_opened(FILE *f, const char *path)
{
	int fd, e = errno;
	struct stat st;

	if (f == NULL)
		return NULL;
	fd = REAL(fileno)(f);
	/* stdio writes this descriptor itself, past this library */
	forget(fd);
	if (below_dirs(path) && REAL(fstat)(fd, &st) == 0 &&
	    S_ISREG(st.st_mode)) {
		/* glibc ignores the size unless given the buffer */
		if (stdio_buf && fd < MAXFD) {
			char *b = malloc(stdio_buf);

			if (b != NULL &&
			    REAL(setvbuf)(f, b, _IOFBF, stdio_buf) == 0) {
				pthread_mutex_lock(&lock);
				free(sbufs[fd]);
				sbufs[fd] = b;
				pthread_mutex_unlock(&lock);
			} else {
				free(b);
			}
		}
		if (fadvise_advice >= 0)
			posix_fadvise(fd, 0, 0, fadvise_advice);
	}
	errno = e;
	return f;
}

API FILE *fopen(const char *path, const char *mode)
{
	if (!tune_on)
		return REAL(fopen)(path, mode);
	settle_all();
	return stream_opened(REAL(fopen)(path, mode), path);
}

API FILE *fopen64(const char *path, const char *mode)
{
	if (!tune_on)
		return REAL(fopen64)(path, mode);
	settle_all();
	return stream_opened(REAL(fopen64)(path, mode), path);
}

API FILE *freopen(const char *path, const char *mode, FILE *f)
{
	if (!tune_on)
		return REAL(freopen)(path, mode, f);
	settle_all();
	return stream_opened(REAL(freopen)(path, mode, f), path);
}

/*
 * The program's own buffering of a stream on a regular file (setvbuf,
 * setbuf, setbuffer, setlinebuf, before any I/O on it, as they must be)
 * gives way to the 1 MiB (DFT_TUNE_STDIO_BUFFER) full buffer: an
 * unbuffered or line-buffered log in a file is what the knob is for.
 * Streams on terminals, pipes and sockets keep what the program asked.
 */
static int own_buffer(FILE *f)
{
	struct stat st;
	int fd, e = errno, r;

	if (!tune_on || !stdio_buf)
		return 0;
	fd = REAL(fileno)(f);
	r = fd >= 0 && fd < MAXFD && sbufs[fd] != NULL &&
	    REAL(fstat)(fd, &st) == 0 && S_ISREG(st.st_mode);
	errno = e;
	return r;
}

API int setvbuf(FILE *f, char *buf, int mode, size_t size)
{
	if (own_buffer(f))
		return 0;
	return REAL(setvbuf)(f, buf, mode, size);
}

API void setbuf(FILE *f, char *buf)
{
	if (own_buffer(f))
		return;
	REAL(setbuf)(f, buf);
}

API void setbuffer(FILE *f, char *buf, size_t size)
{
	if (own_buffer(f))
		return;
	REAL(setbuffer)(f, buf, size);
}

API void setlinebuf(FILE *f)
{
	if (own_buffer(f))
		return;
	REAL(setlinebuf)(f);
}

API int fclose(FILE *f)
{
	int fd, rc;
	char *b = NULL;

	if (!tune_on || !stdio_buf)
		return REAL(fclose)(f);
	fd = REAL(fileno)(f);
	rc = REAL(fclose)(f);
	if (fd >= 0 && fd < MAXFD) {
		pthread_mutex_lock(&lock);
		b = sbufs[fd];
		sbufs[fd] = NULL;
		pthread_mutex_unlock(&lock);
	}
	free(b);
	return rc;
}

API FILE *fdopen(int fd, const char *mode)
{
	if (!tune_on)
		return REAL(fdopen)(fd, mode);
	if (settle(fd) != 0)
		return NULL;
	forget(fd);
	return REAL(fdopen)(fd, mode);
}

API int fileno(FILE *f)
{
	int fd = REAL(fileno)(f);

	if (UNLIKELY(tune_on))
		forget(fd);
	return fd;
}

/* ---- processes ------------------------------------------------------------ */

API int execve(const char *path, char *const argv[], char *const envp[])
{
	NAMED(REAL(execve)(path, argv, envp));
}

API int execv(const char *path, char *const argv[])
{
	NAMED(REAL(execv)(path, argv));
}

API int execvp(const char *file, char *const argv[])
{
	NAMED(REAL(execvp)(file, argv));
}

API int execvpe(const char *file, char *const argv[], char *const envp[])
{
	NAMED(REAL(execvpe)(file, argv, envp));
}

API int posix_spawn(pid_t *pid, const char *path,
		    const posix_spawn_file_actions_t *fa,
		    const posix_spawnattr_t *attr, char *const argv[],
		    char *const envp[])
{
	NAMED(REAL(posix_spawn)(pid, path, fa, attr, argv, envp));
}

API int posix_spawnp(pid_t *pid, const char *file,
		     const posix_spawn_file_actions_t *fa,
		     const posix_spawnattr_t *attr, char *const argv[],
		     char *const envp[])
{
	NAMED(REAL(posix_spawnp)(pid, file, fa, attr, argv, envp));
}

API int system(const char *cmd)
{
	NAMED(REAL(system)(cmd));
}

API FILE *popen(const char *cmd, const char *type)
{
	NAMED(REAL(popen)(cmd, type));
}

API void _exit(int status)
{
	if (UNLIKELY(tune_on))
		settle_all();
	REAL(_exit)(status);
	__builtin_unreachable();
}

API void _Exit(int status)
{
	if (UNLIKELY(tune_on))
		settle_all();
	REAL(_Exit)(status);
	__builtin_unreachable();
}
