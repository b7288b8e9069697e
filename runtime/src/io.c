/*
 * io.c - POSIX and STDIO interception.
 *
 * Every wrapper is an exported definition of the libc symbol; the real
 * function comes from dlsym(RTLD_NEXT).  An annotated program linked with
 * -ldftracer_core binds to these before libc, a preloaded library does too.
 *
 * Cost model: with tracing off a wrapper is one load and a branch; on an
 * fd that is not traced it is one more table load; on a path outside
 * DFTRACER_DATA_DIR it is one scan of the path and a prefix comparison
 * (pathfilter.h), reading one data page (struct dft_hot in internal.h).
 * Only traced calls read the clock and format an event.  A thread-local
 * guard keeps the runtime's own work from being traced.
 * tests/bench/runtime.sh measures all of these.
 *
 * Argument names and their order follow dftracer 2.0.2 traces (the order
 * inside args is not significant to readers, but keeping it makes our
 * output line-for-line comparable).
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#include "internal.h"
#include "ioagg.h"
#include "pathfilter.h"

/* glibc symbols without a public declaration */
int __xstat(int ver, const char *path, struct stat *buf);
int __lxstat(int ver, const char *path, struct stat *buf);
int __fxstat(int ver, int fd, struct stat *buf);
int __fxstatat(int ver, int dirfd, const char *path, struct stat *buf,
	       int flags);
int __xstat64(int ver, const char *path, struct stat64 *buf);
int __lxstat64(int ver, const char *path, struct stat64 *buf);
int __fxstat64(int ver, int fd, struct stat64 *buf);
int __fxstatat64(int ver, int dirfd, const char *path, struct stat64 *buf,
		 int flags);
int __open_2(const char *path, int flags);
int __open64_2(const char *path, int flags);
int __openat_2(int dirfd, const char *path, int flags);
int __openat64_2(int dirfd, const char *path, int flags);
ssize_t __read_chk(int fd, void *buf, size_t n, size_t buflen);
ssize_t __pread_chk(int fd, void *buf, size_t n, off_t off, size_t buflen);
ssize_t __pread64_chk(int fd, void *buf, size_t n, off64_t off,
		      size_t buflen);
size_t __fread_chk(void *ptr, size_t ptrlen, size_t size, size_t n,
		   FILE *fp);

static void *dlnext(const char *name)
{
	void *p = dlsym(RTLD_NEXT, name);

	if (!p) {
		static const char msg[] = "dftracer: cannot find the real ";

		(void)!write(2, msg, sizeof(msg) - 1);
		(void)!write(2, name, strlen(name));
		(void)!write(2, "\n", 1);
		abort();
	}
	return p;
}

#define DECL_REAL(n) static __typeof__(&n) real_##n DFT_HOT_DATA
#define REAL(n) \
	(*({ \
		if (DFT_UNLIKELY(real_##n == NULL)) \
			real_##n = (__typeof__(real_##n))dlnext(#n); \
		real_##n; \
	}))

/*
 * REAL_TAIL(n, args): return the real n's result, the untraced path's
 * tail call.  REAL's look-up at the first call is a call whose result is
 * then called: on the path every call takes, it made the wrapper save
 * registers and a frame before its first test (read: 3 pushes, 3 pops and
 * the stack adjusted twice, 8 of the 16 instructions of its
 * pass-through).  Here the look-up is a tail call of its own (first_n, out
 * of line), so the pass-through is the tests and a jump.
 * FIRST_REAL(ret_t, n, params, args) defines first_n.
 */
#define FIRST_REAL(ret_t, n, params, args) \
	static __attribute__((noinline, cold)) ret_t first_##n params \
	{ \
		return REAL(n) args; \
	}
#define REAL_TAIL(n, args) \
	do { \
		__typeof__(real_##n) p_ = real_##n; \
		if (DFT_LIKELY(p_ != NULL)) \
			return p_ args; \
		return first_##n args; \
	} while (0)

/* ---- event shapes ------------------------------------------------------- */

/* hhash, p_idx, level, kv..., fhash */
static void ev_gen(const char *name, const char *cat, uint64_t t0,
		   uint64_t t1, const struct dft_file *f, const struct dft_kv *kv,
		   int n)
{
	struct dft_thread *t;
	int a;

	DFT_PENDING_CHECK();
	dft_guard++;
	t = dft_self();
	if (t && dft_on_any) {	/* not after finalize (others_quiesce) */
		/* aggregated calls on f first, in their order (ioagg.c) */
		if (f && DFT_UNLIKELY(t->nio))
			dft_io_flush_file(t, f);
		top_id_at(t, t0);	/* the parent's id first: a folded call's */
		a = ev_begin_lit(t, dft_next_id(), name, cat, t0, t1 - t0);
		if (a) {
			ev_plevel(t);
			ev_kv(t, kv, n);
			if (f)
				ev_hash(t, "fhash", f->hash);
		}
		ev_end(t, a);
		dft_child_end(t, t1);
	}
	dft_guard--;
}

static int is_write(const char *name)
{
	return name[0] == 'w' || ((name[0] == 'p' || name[0] == 'f') &&
				  name[1] == 'w');
}

/* read/write family: hhash, level, ret, [offset], p_idx, count, [size],
 * fhash - the order dftracer 2.0.2 writes. */
static void ev_rw(const char *name, const char *cat, uint64_t t0,
		  uint64_t t1, const struct dft_file *f, long long count,
		  long long ret, int has_off, long long off, long long size)
{
	struct dft_thread *t;
	int a;

	DFT_PENDING_CHECK();
	dft_guard++;
	t = dft_self();
	if (t && dft_on_any) {	/* not after finalize (others_quiesce) */
		long long start;

		if (DFT_UNLIKELY(t->nio))
			dft_io_flush_file(t, f);
		/* the position model the aggregated calls are classified by */
		dft_model_data((struct dft_file *)f, is_write(name), has_off, off,
			       dft_io_bytes(ret, size), &start);
		top_id_at(t, t0);	/* the parent's id first: a folded call's */
		a = ev_begin_lit(t, dft_next_id(), name, cat, t0, t1 - t0);
		if (a) {
			ev_level(t);
			EV_INT(t, "ret", ret);
			if (has_off)
				EV_INT(t, "offset", off);
			ev_pidx(t);
			EV_INT(t, "count", count);
			if (size >= 0)
				EV_INT(t, "size", size);
			ev_hash(t, "fhash", f->hash);
		}
		ev_end(t, a);
		dft_child_end(t, t1);
		dft_io_count(t, name, cat, t1 - t0);
	}
	dft_guard--;
}

/* an aggregated call (ioagg.h): timed by the cheap clock, no event; the
 * call's errno left as it is (the ticks and dft_io_agg's hot path touch
 * none; its other paths keep it) */
#define IO_FOLDED(evname, cat, f, call, ret_t, size, positional, off) \
	do { \
		struct dft_thread *t_ = dft_io_folded(evname, cat); \
		if (t_) { \
			uint64_t c0_, c1_; \
			ret_t r_; \
			c0_ = dft_tick(); \
			r_ = call; \
			c1_ = dft_tick(); \
			dft_io_agg(t_, is_write(evname), evname, cat, f, c0_, \
				   c1_, (long long)r_, size, positional, off); \
			return r_; \
		} \
	} while (0)

static void fd_clear(int fd)
{
	if (dft_fd_file(fd))	/* checks the range itself */
		dft_fd_set(fd, NULL);
}

/* A path-based candidate: NULL unless tracing and the path is traced.
 * One out-of-line copy shared by all wrappers, in .text.hot beside them. */
static __attribute__((hot, noinline)) struct dft_file *
path_file(int on, int dirfd, const char *path)
{
	struct dft_file *f;

	if (!on || !path)
		return NULL;
	if ((path[0] == '/' || dirfd == AT_FDCWD) && !dft_path_maybe(path))
		return NULL;	/* the common case: no TLS, no lock */
	if (dft_guard)
		return NULL;
	dft_guard++;
	f = dft_path_file(dirfd, path);
	dft_guard--;
	return f;
}

#define FD_TRACED(on, fd, f) ((on) && ((f) = dft_fd_file(fd)) && !dft_guard)

/*
 * The wrapper macros below split each function in two: the exported
 * wrapper does the untraced check and tail-calls the real function, and
 * the traced half lives out of line (traced_<name>, taking the file as an
 * extra first argument).  The untraced call then saves no registers and
 * touches no stack beyond the check, which is what an application pays
 * on every call outside DFTRACER_DATA_DIR.
 */
#define TRACED_HALF static __attribute__((noinline, cold))
/* a read's or write's traced half is not cold: with tracing on, every
 * aggregated call goes through it, and cold (optimized for size, its
 * helpers not inlined) it took 227 instructions an aggregated write
 * instead of 199 (leveldb's db_bench, 30,720 writes to its WAL) */
#define RW_HALF static __attribute__((noinline))
#define WITH_F(...) (struct dft_file *f, __VA_ARGS__)
#define WITH_F_ARGS(...) (f, __VA_ARGS__)

/* ---- open family -------------------------------------------------------- */

DECL_REAL(open);
DECL_REAL(open64);
DECL_REAL(openat);
DECL_REAL(openat64);
DECL_REAL(creat);
DECL_REAL(creat64);
DECL_REAL(__open_2);
DECL_REAL(__open64_2);
DECL_REAL(__openat_2);
DECL_REAL(__openat64_2);

enum { O_OPEN, O_OPEN64, O_OPENAT, O_OPENAT64, O_CREAT_, O_CREAT64,
       O_OPEN2, O_OPEN64_2, O_OPENAT2, O_OPENAT64_2 };

static int call_open(int kind, int dirfd, const char *path, int flags,
		     mode_t mode)
{
	switch (kind) {
	case O_OPEN: return REAL(open)(path, flags, mode);
	case O_OPEN64: return REAL(open64)(path, flags, mode);
	case O_OPENAT: return REAL(openat)(dirfd, path, flags, mode);
	case O_OPENAT64: return REAL(openat64)(dirfd, path, flags, mode);
	case O_CREAT_: return REAL(creat)(path, mode);
	case O_CREAT64: return REAL(creat64)(path, mode);
	case O_OPEN2: return REAL(__open_2)(path, flags);
	case O_OPEN64_2: return REAL(__open64_2)(path, flags);
	case O_OPENAT2: return REAL(__openat_2)(dirfd, path, flags);
	default: return REAL(__openat64_2)(dirfd, path, flags);
	}
}

static int has_mode(int flags)
{
#ifdef O_TMPFILE
	if ((flags & O_TMPFILE) == O_TMPFILE)
		return 1;
#endif
	return (flags & O_CREAT) != 0;
}

static int do_open(const char *name, int kind, int dirfd, const char *path,
		   int flags, mode_t mode)
{
	struct dft_file *f = path_file(dft_on_posix, dirfd, path);
	uint64_t t0, t1;
	int r, e;

	if (!f) {
		r = call_open(kind, dirfd, path, flags, mode);
		if (dft_on_posix && r >= 0)
			fd_clear(r);
		return r;
	}
	t0 = dft_now();
	r = call_open(kind, dirfd, path, flags, mode);
	e = errno;
	t1 = dft_now();
	if (r >= 0)
		dft_fd_set(r, f);
	dft_model_open(f);
	if (kind == O_CREAT_ || kind == O_CREAT64) {
		struct dft_kv kv[] = { KI("mode", mode) };

		ev_gen(name, "POSIX", t0, t1, f, kv, 1);
	} else if (has_mode(flags)) {
		struct dft_kv kv[] = { KI("flags", flags), KI("mode", mode) };

		ev_gen(name, "POSIX", t0, t1, f, kv, 2);
	} else {
		struct dft_kv kv[] = { KI("flags", flags) };

		ev_gen(name, "POSIX", t0, t1, f, kv, 1);
	}
	errno = e;
	return r;
}

#define GET_MODE(flags, mode) \
	do { \
		if (has_mode(flags)) { \
			va_list ap; \
			va_start(ap, flags); \
			mode = (mode_t)va_arg(ap, int); \
			va_end(ap); \
		} \
	} while (0)

DFT_INTERCEPT int open(const char *path, int flags, ...)
{
	mode_t mode = 0;

	GET_MODE(flags, mode);
	if (!dft_on_posix)
		return REAL(open)(path, flags, mode);
	return do_open("open", O_OPEN, AT_FDCWD, path, flags, mode);
}

DFT_INTERCEPT int open64(const char *path, int flags, ...)
{
	mode_t mode = 0;

	GET_MODE(flags, mode);
	if (!dft_on_posix)
		return REAL(open64)(path, flags, mode);
	return do_open("open64", O_OPEN64, AT_FDCWD, path, flags, mode);
}

DFT_INTERCEPT int openat(int dirfd, const char *path, int flags, ...)
{
	mode_t mode = 0;

	GET_MODE(flags, mode);
	if (!dft_on_posix)
		return REAL(openat)(dirfd, path, flags, mode);
	return do_open("openat", O_OPENAT, dirfd, path, flags, mode);
}

DFT_INTERCEPT int openat64(int dirfd, const char *path, int flags, ...)
{
	mode_t mode = 0;

	GET_MODE(flags, mode);
	if (!dft_on_posix)
		return REAL(openat64)(dirfd, path, flags, mode);
	return do_open("openat64", O_OPENAT64, dirfd, path, flags, mode);
}

DFT_INTERCEPT int creat(const char *path, mode_t mode)
{
	if (!dft_on_posix)
		return REAL(creat)(path, mode);
	return do_open("creat", O_CREAT_, AT_FDCWD, path,
		       O_CREAT | O_WRONLY | O_TRUNC, mode);
}

DFT_INTERCEPT int creat64(const char *path, mode_t mode)
{
	if (!dft_on_posix)
		return REAL(creat64)(path, mode);
	return do_open("creat64", O_CREAT64, AT_FDCWD, path,
		       O_CREAT | O_WRONLY | O_TRUNC, mode);
}

DFT_INTERCEPT int __open_2(const char *path, int flags)
{
	if (!dft_on_posix)
		return REAL(__open_2)(path, flags);
	return do_open("open", O_OPEN2, AT_FDCWD, path, flags, 0);
}

DFT_INTERCEPT int __open64_2(const char *path, int flags)
{
	if (!dft_on_posix)
		return REAL(__open64_2)(path, flags);
	return do_open("open64", O_OPEN64_2, AT_FDCWD, path, flags, 0);
}

DFT_INTERCEPT int __openat_2(int dirfd, const char *path, int flags)
{
	if (!dft_on_posix)
		return REAL(__openat_2)(dirfd, path, flags);
	return do_open("openat", O_OPENAT2, dirfd, path, flags, 0);
}

DFT_INTERCEPT int __openat64_2(int dirfd, const char *path, int flags)
{
	if (!dft_on_posix)
		return REAL(__openat64_2)(dirfd, path, flags);
	return do_open("openat64", O_OPENAT64_2, dirfd, path, flags, 0);
}

/* ---- close, read, write ------------------------------------------------- */

DECL_REAL(close);

DFT_INTERCEPT int close(int fd)
{
	struct dft_file *f;
	uint64_t t0, t1;
	int r, e;

	if (!FD_TRACED(dft_on_posix, fd, f)) {
		if (dft_on_posix) {
			if (DFT_UNLIKELY(fd == dft_trace_fd && fd >= 0))
				return 0;	/* a program closing every fd */
			fd_clear(fd);
		}
		return REAL(close)(fd);
	}
	dft_fd_set(fd, NULL);
	t0 = dft_now();
	r = REAL(close)(fd);
	e = errno;
	t1 = dft_now();
	{
		struct dft_kv kv[] = { KI("ret", r) };

		ev_gen("close", "POSIX", t0, t1, f, kv, 1);
	}
	errno = e;
	return r;
}

#define RW_WRAP(ret_t, sym, evname, params, args, cnt, has_off, off) \
	DECL_REAL(sym); \
	RW_HALF ret_t traced_##sym WITH_F params \
	{ \
		uint64_t t0, t1; \
		ret_t r; \
		int e; \
		IO_FOLDED(evname, "POSIX", f, REAL(sym) args, ret_t, -1, \
			  has_off, (long long)(off)); \
		t0 = dft_now(); \
		r = REAL(sym) args; \
		e = errno; \
		t1 = dft_now(); \
		ev_rw(evname, "POSIX", t0, t1, f, (long long)(cnt), \
		      (long long)r, has_off, (long long)(off), -1); \
		errno = e; \
		return r; \
	} \
	FIRST_REAL(ret_t, sym, params, args) \
	DFT_INTERCEPT ret_t sym params \
	{ \
		struct dft_file *f; \
		if (DFT_LIKELY(!FD_TRACED(dft_on_posix, fd, f))) \
			REAL_TAIL(sym, args); \
		return traced_##sym WITH_F_ARGS args; \
	}

RW_WRAP(ssize_t, read, "read", (int fd, void *buf, size_t count),
	(fd, buf, count), count, 0, 0)
RW_WRAP(ssize_t, write, "write", (int fd, const void *buf, size_t count),
	(fd, buf, count), count, 0, 0)
RW_WRAP(ssize_t, pread, "pread",
	(int fd, void *buf, size_t count, off_t offset),
	(fd, buf, count, offset), count, 1, offset)
RW_WRAP(ssize_t, pread64, "pread64",
	(int fd, void *buf, size_t count, off64_t offset),
	(fd, buf, count, offset), count, 1, offset)
RW_WRAP(ssize_t, pwrite, "pwrite",
	(int fd, const void *buf, size_t count, off_t offset),
	(fd, buf, count, offset), count, 1, offset)
RW_WRAP(ssize_t, pwrite64, "pwrite64",
	(int fd, const void *buf, size_t count, off64_t offset),
	(fd, buf, count, offset), count, 1, offset)
RW_WRAP(ssize_t, __read_chk, "read",
	(int fd, void *buf, size_t count, size_t buflen),
	(fd, buf, count, buflen), count, 0, 0)
RW_WRAP(ssize_t, __pread_chk, "pread",
	(int fd, void *buf, size_t count, off_t offset, size_t buflen),
	(fd, buf, count, offset, buflen), count, 1, offset)
RW_WRAP(ssize_t, __pread64_chk, "pread64",
	(int fd, void *buf, size_t count, off64_t offset, size_t buflen),
	(fd, buf, count, offset, buflen), count, 1, offset)

static long long iov_bytes(const struct iovec *iov, int n)
{
	long long s = 0;

	for (int i = 0; i < n; i++)
		s += (long long)iov[i].iov_len;
	return s;
}

RW_WRAP(ssize_t, readv, "readv", (int fd, const struct iovec *iov, int n),
	(fd, iov, n), iov_bytes(iov, n), 0, 0)
RW_WRAP(ssize_t, writev, "writev", (int fd, const struct iovec *iov, int n),
	(fd, iov, n), iov_bytes(iov, n), 0, 0)
RW_WRAP(ssize_t, preadv, "preadv",
	(int fd, const struct iovec *iov, int n, off_t offset),
	(fd, iov, n, offset), iov_bytes(iov, n), 1, offset)
RW_WRAP(ssize_t, pwritev, "pwritev",
	(int fd, const struct iovec *iov, int n, off_t offset),
	(fd, iov, n, offset), iov_bytes(iov, n), 1, offset)

/* ---- seek, sync, truncate ----------------------------------------------- */

/* a seek's complete event, counted for the throttle as a read's is */
static void seek_count(const char *name, const char *cat, uint64_t dur)
{
	struct dft_thread *t;

	DFT_PENDING_CHECK();
	dft_guard++;
	t = dft_self();
	if (t && dft_on_any)
		dft_io_count(t, name, cat, dur);
	dft_guard--;
}

/* a hot seek or tell (Python's tell() is lseek(fd, 0, SEEK_CUR) per
 * call: 4,524 of tinydb's 6,410 I/O events) folded like a read: the
 * position model on every call, then a record of its name, category,
 * file and enclosing function (ioagg.c) */
#define SEEK_FOLDED(sym, cat, f, call, ret_t, has_off, whence, offset) \
	do { \
		struct dft_thread *t_ = dft_io_folded(#sym, cat); \
		if (t_) { \
			uint64_t c0_, c1_; \
			ret_t r_; \
			int e_; \
			c0_ = dft_tick(); \
			r_ = call; \
			c1_ = dft_tick(); \
			e_ = errno; \
			dft_model_seek(f, #sym, (long long)r_, has_off, \
				       whence, (long long)(offset)); \
			dft_io_agg_seek(t_, #sym, cat, f, c0_, c1_); \
			errno = e_; \
			return r_; \
		} \
	} while (0)

#define SEEK_WRAP(sym, off_type) \
	DECL_REAL(sym); \
	DFT_INTERCEPT off_type sym(int fd, off_type offset, int whence) \
	{ \
		struct dft_file *f; \
		uint64_t t0, t1; \
		off_type r; \
		int e; \
		if (!FD_TRACED(dft_on_posix, fd, f)) \
			return REAL(sym)(fd, offset, whence); \
		SEEK_FOLDED(sym, "POSIX", f, REAL(sym)(fd, offset, whence), \
			    off_type, 1, whence, offset); \
		t0 = dft_now(); \
		r = REAL(sym)(fd, offset, whence); \
		e = errno; \
		t1 = dft_now(); \
		dft_model_seek(f, #sym, (long long)r, 1, whence, \
			       (long long)offset); \
		{ \
			struct dft_kv kv[] = { KI("ret", r), KI("whence", whence), \
					   KI("offset", offset) }; \
			ev_gen(#sym, "POSIX", t0, t1, f, kv, 3); \
		} \
		seek_count(#sym, "POSIX", t1 - t0); \
		errno = e; \
		return r; \
	}

SEEK_WRAP(lseek, off_t)
SEEK_WRAP(lseek64, off64_t)

#define FD_WRAP(sym, params, args, nkv, ...) \
	DECL_REAL(sym); \
	TRACED_HALF int traced_##sym WITH_F params \
	{ \
		uint64_t t0, t1; \
		int r, e; \
		t0 = dft_now(); \
		r = REAL(sym) args; \
		e = errno; \
		t1 = dft_now(); \
		{ \
			struct dft_kv kv[] = { __VA_ARGS__ }; \
			ev_gen(#sym, "POSIX", t0, t1, f, kv, nkv); \
		} \
		errno = e; \
		return r; \
	} \
	FIRST_REAL(int, sym, params, args) \
	DFT_INTERCEPT int sym params \
	{ \
		struct dft_file *f; \
		if (DFT_LIKELY(!FD_TRACED(dft_on_posix, fd, f))) \
			REAL_TAIL(sym, args); \
		return traced_##sym WITH_F_ARGS args; \
	}

/* dftracer 2.0.2 writes fsync without ret */
FD_WRAP(fsync, (int fd), (fd), 0, KI("ret", 0))
FD_WRAP(fdatasync, (int fd), (fd), 0, KI("ret", 0))
FD_WRAP(ftruncate, (int fd, off_t length), (fd, length), 2,
	KI("length", length), KI("ret", r))
FD_WRAP(ftruncate64, (int fd, off64_t length), (fd, length), 2,
	KI("length", length), KI("ret", r))
FD_WRAP(fstat, (int fd, struct stat *st), (fd, st), 1, KI("ret", r))
FD_WRAP(fstat64, (int fd, struct stat64 *st), (fd, st), 1, KI("ret", r))
FD_WRAP(__fxstat, (int ver, int fd, struct stat *st), (ver, fd, st), 1,
	KI("ret", r))
FD_WRAP(__fxstat64, (int ver, int fd, struct stat64 *st), (ver, fd, st), 1,
	KI("ret", r))

/* ---- path-based calls --------------------------------------------------- */

#define PATH_WRAP(sym, params, args, dirfd, path, nkv, ...) \
	DECL_REAL(sym); \
	TRACED_HALF int traced_##sym WITH_F params \
	{ \
		uint64_t t0, t1; \
		int r, e; \
		t0 = dft_now(); \
		r = REAL(sym) args; \
		e = errno; \
		t1 = dft_now(); \
		{ \
			struct dft_kv kv[] = { __VA_ARGS__ }; \
			ev_gen(#sym, "POSIX", t0, t1, f, kv, nkv); \
		} \
		errno = e; \
		return r; \
	} \
	DFT_INTERCEPT int sym params \
	{ \
		struct dft_file *f; \
		if (!dft_on_posix || \
		    !(f = path_file(dft_on_posix, dirfd, path))) \
			return REAL(sym) args; \
		return traced_##sym WITH_F_ARGS args; \
	}

PATH_WRAP(stat, (const char *path, struct stat *st), (path, st), AT_FDCWD,
	  path, 1, KI("ret", r))
PATH_WRAP(stat64, (const char *path, struct stat64 *st), (path, st),
	  AT_FDCWD, path, 1, KI("ret", r))
PATH_WRAP(lstat, (const char *path, struct stat *st), (path, st), AT_FDCWD,
	  path, 1, KI("ret", r))
PATH_WRAP(lstat64, (const char *path, struct stat64 *st), (path, st),
	  AT_FDCWD, path, 1, KI("ret", r))
PATH_WRAP(__xstat, (int ver, const char *path, struct stat *st),
	  (ver, path, st), AT_FDCWD, path, 1, KI("ret", r))
PATH_WRAP(__xstat64, (int ver, const char *path, struct stat64 *st),
	  (ver, path, st), AT_FDCWD, path, 1, KI("ret", r))
PATH_WRAP(__lxstat, (int ver, const char *path, struct stat *st),
	  (ver, path, st), AT_FDCWD, path, 1, KI("ret", r))
PATH_WRAP(__lxstat64, (int ver, const char *path, struct stat64 *st),
	  (ver, path, st), AT_FDCWD, path, 1, KI("ret", r))
PATH_WRAP(access, (const char *path, int mode), (path, mode), AT_FDCWD,
	  path, 2, KI("mode", mode), KI("ret", r))
PATH_WRAP(faccessat, (int dirfd, const char *path, int mode, int flags),
	  (dirfd, path, mode, flags), dirfd, path, 2, KI("mode", mode),
	  KI("ret", r))
PATH_WRAP(mkdir, (const char *path, mode_t mode), (path, mode), AT_FDCWD,
	  path, 2, KI("mode", mode), KI("ret", r))
PATH_WRAP(mkdirat, (int dirfd, const char *path, mode_t mode),
	  (dirfd, path, mode), dirfd, path, 2, KI("mode", mode),
	  KI("ret", r))
PATH_WRAP(rmdir, (const char *path), (path), AT_FDCWD, path, 1,
	  KI("ret", r))
PATH_WRAP(unlink, (const char *path), (path), AT_FDCWD, path, 1,
	  KI("ret", r))
PATH_WRAP(unlinkat, (int dirfd, const char *path, int flags),
	  (dirfd, path, flags), dirfd, path, 1, KI("ret", r))
PATH_WRAP(truncate, (const char *path, off_t length), (path, length),
	  AT_FDCWD, path, 2, KI("length", length), KI("ret", r))

/* stat-at forms: an empty path with AT_EMPTY_PATH means dirfd itself */
static struct dft_file *at_file(int dirfd, const char *path, int flags)
{
	if (!dft_on_posix)
		return NULL;
	if (path && !*path && (flags & AT_EMPTY_PATH))
		return dft_guard ? NULL : dft_fd_file(dirfd);
	return path_file(dft_on_posix, dirfd, path);
}

#define AT_WRAP(sym, params, args, dirfd, path, flags) \
	DECL_REAL(sym); \
	TRACED_HALF int traced_##sym WITH_F params \
	{ \
		uint64_t t0, t1; \
		int r, e; \
		t0 = dft_now(); \
		r = REAL(sym) args; \
		e = errno; \
		t1 = dft_now(); \
		{ \
			struct dft_kv kv[] = { KI("flags", flags), KI("ret", r) }; \
			ev_gen(#sym, "POSIX", t0, t1, f, kv, 2); \
		} \
		errno = e; \
		return r; \
	} \
	DFT_INTERCEPT int sym params \
	{ \
		struct dft_file *f; \
		if (!dft_on_posix || !(f = at_file(dirfd, path, flags))) \
			return REAL(sym) args; \
		return traced_##sym WITH_F_ARGS args; \
	}

AT_WRAP(fstatat, (int dirfd, const char *path, struct stat *st, int flags),
	(dirfd, path, st, flags), dirfd, path, flags)
AT_WRAP(fstatat64,
	(int dirfd, const char *path, struct stat64 *st, int flags),
	(dirfd, path, st, flags), dirfd, path, flags)
AT_WRAP(__fxstatat,
	(int ver, int dirfd, const char *path, struct stat *st, int flags),
	(ver, dirfd, path, st, flags), dirfd, path, flags)
AT_WRAP(__fxstatat64,
	(int ver, int dirfd, const char *path, struct stat64 *st, int flags),
	(ver, dirfd, path, st, flags), dirfd, path, flags)
AT_WRAP(statx,
	(int dirfd, const char *path, int flags, unsigned mask,
	 struct statx *st),
	(dirfd, path, flags, mask, st), dirfd, path, flags)

/* rename: traced when either side is; both get an FH */
static int do_rename(const char *name, int kind, int od, const char *oldp,
		     int nd, const char *newp, unsigned flags);
DECL_REAL(rename);
DECL_REAL(renameat);
DECL_REAL(renameat2);

DFT_INTERCEPT int rename(const char *oldp, const char *newp)
{
	if (!dft_on_posix)
		return REAL(rename)(oldp, newp);
	return do_rename("rename", 0, AT_FDCWD, oldp, AT_FDCWD, newp, 0);
}

DFT_INTERCEPT int renameat(int od, const char *oldp, int nd, const char *newp)
{
	if (!dft_on_posix)
		return REAL(renameat)(od, oldp, nd, newp);
	return do_rename("renameat", 1, od, oldp, nd, newp, 0);
}

DFT_INTERCEPT int renameat2(int od, const char *oldp, int nd, const char *newp,
		      unsigned flags)
{
	if (!dft_on_posix)
		return REAL(renameat2)(od, oldp, nd, newp, flags);
	return do_rename("renameat2", 2, od, oldp, nd, newp, flags);
}

static int do_rename(const char *name, int kind, int od, const char *oldp,
		     int nd, const char *newp, unsigned flags)
{
	struct dft_file *f = path_file(1, od, oldp);
	struct dft_file *g = path_file(1, nd, newp);
	uint64_t t0, t1;
	int r, e;

#define CALL_RENAME() \
	(kind == 0 ? REAL(rename)(oldp, newp) \
	 : kind == 1 ? REAL(renameat)(od, oldp, nd, newp) \
		     : REAL(renameat2)(od, oldp, nd, newp, flags))
	if (!f && !g)
		return CALL_RENAME();
	t0 = dft_now();
	r = CALL_RENAME();
	e = errno;
	t1 = dft_now();
	{
		struct dft_kv kv[] = { KI("ret", r),
				   KH("newpath_hash", g ? g->hash : NULL) };

		ev_gen(name, "POSIX", t0, t1, f ? f : g, kv, 2);
	}
	errno = e;
	return r;
#undef CALL_RENAME
}

/* chdir keeps the cached working directory that relative paths use */
DECL_REAL(chdir);
DECL_REAL(fchdir);

DFT_INTERCEPT int chdir(const char *path)
{
	struct dft_file *f;
	uint64_t t0, t1;
	int r, e;

	if (!dft_on_any)
		return REAL(chdir)(path);
	f = path_file(dft_on_posix, AT_FDCWD, path);
	t0 = dft_now();
	r = REAL(chdir)(path);
	e = errno;
	t1 = dft_now();
	if (r == 0) {
		dft_guard++;
		dft_set_cwd();
		dft_guard--;
	}
	if (f) {
		struct dft_kv kv[] = { KI("ret", r) };

		ev_gen("chdir", "POSIX", t0, t1, f, kv, 1);
	}
	errno = e;
	return r;
}

DFT_INTERCEPT int fchdir(int fd)
{
	int r = REAL(fchdir)(fd), e = errno;

	if (r == 0 && dft_on_any) {
		dft_guard++;
		dft_set_cwd();
		dft_guard--;
	}
	errno = e;
	return r;
}

/* ---- directories -------------------------------------------------------- */

DECL_REAL(opendir);
DECL_REAL(readdir);
DECL_REAL(readdir64);
DECL_REAL(closedir);

DFT_INTERCEPT DIR *opendir(const char *path)
{
	struct dft_file *f;
	uint64_t t0, t1;
	DIR *d;
	int e;

	if (!dft_on_posix || !(f = path_file(dft_on_posix, AT_FDCWD, path)))
		return REAL(opendir)(path);
	t0 = dft_now();
	d = REAL(opendir)(path);
	e = errno;
	t1 = dft_now();
	if (d)
		dft_fd_set(dirfd(d), f);
	ev_gen("opendir", "POSIX", t0, t1, f, NULL, 0);
	errno = e;
	return d;
}

#define READDIR_WRAP(sym, ent) \
	DFT_INTERCEPT struct ent *sym(DIR *d) \
	{ \
		struct dft_file *f; \
		uint64_t t0, t1; \
		struct ent *r; \
		int e; \
		if (!d || !FD_TRACED(dft_on_posix, dirfd(d), f)) \
			return REAL(sym)(d); \
		t0 = dft_now(); \
		r = REAL(sym)(d); \
		e = errno; \
		t1 = dft_now(); \
		ev_gen(#sym, "POSIX", t0, t1, f, NULL, 0); \
		errno = e; \
		return r; \
	}

READDIR_WRAP(readdir, dirent)
READDIR_WRAP(readdir64, dirent64)

DFT_INTERCEPT int closedir(DIR *d)
{
	struct dft_file *f;
	uint64_t t0, t1;
	int r, e, fd;

	if (!dft_on_posix || !d)
		return REAL(closedir)(d);
	fd = dirfd(d);
	if (!FD_TRACED(1, fd, f)) {
		fd_clear(fd);
		return REAL(closedir)(d);
	}
	dft_fd_set(fd, NULL);
	t0 = dft_now();
	r = REAL(closedir)(d);
	e = errno;
	t1 = dft_now();
	{
		struct dft_kv kv[] = { KI("ret", r) };

		ev_gen("closedir", "POSIX", t0, t1, f, kv, 1);
	}
	errno = e;
	return r;
}

/* ---- descriptors -------------------------------------------------------- */

DECL_REAL(dup);
DECL_REAL(dup2);
DECL_REAL(dup3);
DECL_REAL(fcntl);
DECL_REAL(fcntl64);

DFT_INTERCEPT int dup(int fd)
{
	struct dft_file *f;
	uint64_t t0, t1;
	int r, e;

	if (!FD_TRACED(dft_on_posix, fd, f)) {
		r = REAL(dup)(fd);
		if (dft_on_posix && r >= 0)
			fd_clear(r);
		return r;
	}
	t0 = dft_now();
	r = REAL(dup)(fd);
	e = errno;
	t1 = dft_now();
	if (r >= 0)
		dft_fd_set(r, f);
	{
		struct dft_kv kv[] = { KI("fd", fd), KI("ret", r) };

		ev_gen("dup", "POSIX", t0, t1, f, kv, 2);
	}
	errno = e;
	return r;
}

static int do_dup2(const char *name, int fd, int fd2, int flags, int three)
{
	struct dft_file *f = dft_fd_file(fd);
	uint64_t t0, t1;
	int r, e;

	if (!f || dft_guard) {
		r = three ? REAL(dup3)(fd, fd2, flags) : REAL(dup2)(fd, fd2);
		if (r >= 0)
			fd_clear(r);
		return r;
	}
	t0 = dft_now();
	r = three ? REAL(dup3)(fd, fd2, flags) : REAL(dup2)(fd, fd2);
	e = errno;
	t1 = dft_now();
	if (r >= 0)
		dft_fd_set(r, f);
	{
		struct dft_kv kv[] = { KI("fd1", fd), KI("fd2", fd2), KI("ret", r) };

		ev_gen(name, "POSIX", t0, t1, f, kv, 3);
	}
	errno = e;
	return r;
}

DFT_INTERCEPT int dup2(int fd, int fd2)
{
	if (!dft_on_posix)
		return REAL(dup2)(fd, fd2);
	return do_dup2("dup2", fd, fd2, 0, 0);
}

DFT_INTERCEPT int dup3(int fd, int fd2, int flags)
{
	if (!dft_on_posix)
		return REAL(dup3)(fd, fd2, flags);
	return do_dup2("dup3", fd, fd2, flags, 1);
}

static int do_fcntl(const char *name, int sixty4, int fd, int cmd, void *arg)
{
	struct dft_file *f;
	uint64_t t0, t1;
	int r, e, dupcmd = cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC;

#define CALL_FCNTL() \
	(sixty4 ? REAL(fcntl64)(fd, cmd, arg) : REAL(fcntl)(fd, cmd, arg))
	if (!FD_TRACED(dft_on_posix, fd, f)) {
		r = CALL_FCNTL();
		if (dupcmd && dft_on_posix && r >= 0) {
			e = errno;
			fd_clear(r);
			errno = e;
		}
		return r;
	}
	t0 = dft_now();
	r = CALL_FCNTL();
	e = errno;
	t1 = dft_now();
	if (dupcmd && r >= 0)
		dft_fd_set(r, f);
	{
		int intarg = cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC ||
			     cmd == F_SETFD || cmd == F_SETFL;
		struct dft_kv kv[] = { KI("cmd", cmd),
				   KI("arg", intarg ? (long long)(intptr_t)arg
						    : 0),
				   KI("ret", r) };

		ev_gen(name, "POSIX", t0, t1, f, kv, 3);
	}
	errno = e;
	return r;
#undef CALL_FCNTL
}

DFT_INTERCEPT int fcntl(int fd, int cmd, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, cmd);
	arg = va_arg(ap, void *);
	va_end(ap);
	return do_fcntl("fcntl", 0, fd, cmd, arg);
}

DFT_INTERCEPT int fcntl64(int fd, int cmd, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, cmd);
	arg = va_arg(ap, void *);
	va_end(ap);
	return do_fcntl("fcntl64", 1, fd, cmd, arg);
}

/* ---- mmap --------------------------------------------------------------- */

DECL_REAL(mmap);
DECL_REAL(mmap64);
DECL_REAL(munmap);

#define NMAPS 256
static struct {
	void *addr;
	struct dft_file *f;
} maps[NMAPS];
static pthread_mutex_t maps_lock = PTHREAD_MUTEX_INITIALIZER;

static void map_note(void *addr, struct dft_file *f)
{
	int i;

	pthread_mutex_lock(&maps_lock);
	for (i = 0; i < NMAPS; i++)
		if (!maps[i].addr || maps[i].addr == addr) {
			maps[i].addr = addr;
			maps[i].f = f;
			break;
		}
	pthread_mutex_unlock(&maps_lock);
}

static struct dft_file *map_take(void *addr)
{
	struct dft_file *f = NULL;
	int i;

	pthread_mutex_lock(&maps_lock);
	for (i = 0; i < NMAPS; i++)
		if (maps[i].addr == addr) {
			f = maps[i].f;
			maps[i].addr = NULL;
			break;
		}
	pthread_mutex_unlock(&maps_lock);
	return f;
}

static int maps_used;

#define MMAP_WRAP(sym, off_type) \
	DFT_INTERCEPT void *sym(void *addr, size_t len, int prot, int flags, int fd, \
			  off_type off) \
	{ \
		struct dft_file *f; \
		uint64_t t0, t1; \
		void *r; \
		int e; \
		if (fd < 0 || !FD_TRACED(dft_on_posix, fd, f)) \
			return REAL(sym)(addr, len, prot, flags, fd, off); \
		t0 = dft_now(); \
		r = REAL(sym)(addr, len, prot, flags, fd, off); \
		e = errno; \
		t1 = dft_now(); \
		if (r != MAP_FAILED) { \
			map_note(r, f); \
			maps_used = 1; \
		} \
		{ \
			struct dft_kv kv[] = { KI("length", len), KI("prot", prot), \
					   KI("flags", flags), \
					   KI("offset", off) }; \
			ev_gen(#sym, "POSIX", t0, t1, f, kv, 4); \
		} \
		errno = e; \
		return r; \
	}

MMAP_WRAP(mmap, off_t)
MMAP_WRAP(mmap64, off64_t)

DFT_INTERCEPT int munmap(void *addr, size_t len)
{
	struct dft_file *f;
	uint64_t t0, t1;
	int r, e;

	if (!maps_used || !dft_on_posix || dft_guard || !(f = map_take(addr)))
		return REAL(munmap)(addr, len);
	t0 = dft_now();
	r = REAL(munmap)(addr, len);
	e = errno;
	t1 = dft_now();
	{
		struct dft_kv kv[] = { KI("length", len), KI("ret", r) };

		ev_gen("munmap", "POSIX", t0, t1, f, kv, 2);
	}
	errno = e;
	return r;
}

/* ---- copy_file_range (cp) ---------------------------------------------- */

DECL_REAL(copy_file_range);

DFT_INTERCEPT ssize_t copy_file_range(int in, off64_t *inoff, int out,
				off64_t *outoff, size_t len, unsigned flags)
{
	struct dft_file *f = NULL, *g = NULL;
	uint64_t t0, t1;
	ssize_t r;
	int e;

	if (!dft_on_posix || dft_guard ||
	    (!(f = dft_fd_file(in)) && !(g = dft_fd_file(out))))
		return REAL(copy_file_range)(in, inoff, out, outoff, len, flags);
	if (f)
		g = dft_fd_file(out);
	t0 = dft_now();
	r = REAL(copy_file_range)(in, inoff, out, outoff, len, flags);
	e = errno;
	t1 = dft_now();
	{
		struct dft_kv kv[] = { KI("count", len), KI("ret", r),
				   KH("out_fhash", f && g ? g->hash : NULL) };

		ev_gen("copy_file_range", "POSIX", t0, t1, f ? f : g, kv, 3);
	}
	errno = e;
	return r;
}

/* ---- process lifecycle -------------------------------------------------- */

DECL_REAL(fork);
DECL_REAL(_exit);
DECL_REAL(_Exit);

DFT_INTERCEPT pid_t fork(void)
{
	uint64_t t0, t1;
	pid_t r;
	int e;

	if (!dft_on_posix)
		return REAL(fork)();
	r = REAL(fork)();
	e = errno;
	if (r != 0 && dft_on_posix) {	/* parent: timer starts after fork */
		struct dft_kv kv[] = { KI("ret", r) };

		t0 = dft_now();
		t1 = dft_now();
		ev_gen("fork", "POSIX", t0, t1, NULL, kv, 1);
	}
	errno = e;
	return r;
}

DFT_INTERCEPT void _exit(int status)
{
	dft_exit_hook();
	REAL(_exit)(status);
	__builtin_unreachable();
}

DFT_INTERCEPT void _Exit(int status)
{
	dft_exit_hook();
	REAL(_Exit)(status);
	__builtin_unreachable();
}

DECL_REAL(execve);
DECL_REAL(execv);
DECL_REAL(execvp);
DECL_REAL(execvpe);

DFT_INTERCEPT int execve(const char *path, char *const argv[], char *const envp[])
{
	dft_exec_hook();
	return REAL(execve)(path, argv, envp);
}

DFT_INTERCEPT int execv(const char *path, char *const argv[])
{
	dft_exec_hook();
	return REAL(execv)(path, argv);
}

DFT_INTERCEPT int execvp(const char *file, char *const argv[])
{
	dft_exec_hook();
	return REAL(execvp)(file, argv);
}

DFT_INTERCEPT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	dft_exec_hook();
	return REAL(execvpe)(file, argv, envp);
}

#define MAX_EXEC_ARGS 4096
#define COLLECT_ARGS(arg0, argv, ap) \
	do { \
		int n_ = 0; \
		argv[n_++] = (char *)(arg0); \
		while (n_ < MAX_EXEC_ARGS - 1 && \
		       (argv[n_] = va_arg(ap, char *)) != NULL) \
			n_++; \
		argv[n_] = NULL; \
	} while (0)

DFT_INTERCEPT int execl(const char *path, const char *arg, ...)
{
	char *argv[MAX_EXEC_ARGS];
	va_list ap;

	va_start(ap, arg);
	COLLECT_ARGS(arg, argv, ap);
	va_end(ap);
	return execv(path, argv);
}

DFT_INTERCEPT int execlp(const char *file, const char *arg, ...)
{
	char *argv[MAX_EXEC_ARGS];
	va_list ap;

	va_start(ap, arg);
	COLLECT_ARGS(arg, argv, ap);
	va_end(ap);
	return execvp(file, argv);
}

DFT_INTERCEPT int execle(const char *path, const char *arg, ...)
{
	char *argv[MAX_EXEC_ARGS];
	char *const *envp;
	va_list ap;

	va_start(ap, arg);
	COLLECT_ARGS(arg, argv, ap);
	envp = va_arg(ap, char *const *);
	va_end(ap);
	return execve(path, argv, envp);
}

/* ---- STDIO -------------------------------------------------------------- */

DECL_REAL(fopen);
DECL_REAL(fopen64);
DECL_REAL(fdopen);
DECL_REAL(fclose);
DECL_REAL(fread);
DECL_REAL(fwrite);
DECL_REAL(__fread_chk);
DECL_REAL(fseek);
DECL_REAL(fseeko);
DECL_REAL(fseeko64);
DECL_REAL(ftell);
DECL_REAL(ftello);
DECL_REAL(ftello64);
DECL_REAL(fflush);

static inline __attribute__((always_inline)) struct dft_file *
fp_file(FILE *fp)
{
	if (!fp || dft_guard)
		return NULL;
#ifdef __GLIBC__
	/* the descriptor as fileno_unlocked reads it, without its call:
	 * negative for memory and cookie streams, which are never traced */
	return dft_fd_file(fp->_fileno);
#else
	return dft_fd_file(fileno_unlocked(fp));
#endif
}

static FILE *do_fopen(const char *name, int sixty4, const char *path,
		      const char *mode)
{
	struct dft_file *f = path_file(dft_on_stdio, AT_FDCWD, path);
	uint64_t t0, t1;
	FILE *r;
	int e;

#define CALL_FOPEN() (sixty4 ? REAL(fopen64)(path, mode) : REAL(fopen)(path, mode))
	if (!f) {
		r = CALL_FOPEN();
		if (r && (dft_on_posix || dft_on_stdio))
			fd_clear(fileno_unlocked(r));
		return r;
	}
	t0 = dft_now();
	r = CALL_FOPEN();
	e = errno;
	t1 = dft_now();
	if (r)
		dft_fd_set(fileno_unlocked(r), f);
	dft_model_open(f);
	{
		struct dft_kv kv[] = { KS("mode", mode) };

		ev_gen(name, "STDIO", t0, t1, f, kv, 1);
	}
	errno = e;
	return r;
#undef CALL_FOPEN
}

DFT_INTERCEPT FILE *fopen(const char *path, const char *mode)
{
	if (!dft_on_stdio && !dft_on_posix)
		return REAL(fopen)(path, mode);
	return do_fopen("fopen", 0, path, mode);
}

DFT_INTERCEPT FILE *fopen64(const char *path, const char *mode)
{
	if (!dft_on_stdio && !dft_on_posix)
		return REAL(fopen64)(path, mode);
	return do_fopen("fopen64", 1, path, mode);
}

DFT_INTERCEPT FILE *fdopen(int fd, const char *mode)
{
	struct dft_file *f;
	uint64_t t0, t1;
	FILE *r;
	int e;

	if (!FD_TRACED(dft_on_stdio, fd, f))
		return REAL(fdopen)(fd, mode);
	t0 = dft_now();
	r = REAL(fdopen)(fd, mode);
	e = errno;
	t1 = dft_now();
	dft_model_open(f);
	{
		struct dft_kv kv[] = { KS("mode", mode) };

		ev_gen("fdopen", "STDIO", t0, t1, f, kv, 1);
	}
	errno = e;
	return r;
}

DFT_INTERCEPT int fclose(FILE *fp)
{
	struct dft_file *f;
	uint64_t t0, t1;
	int r, e;

	if ((!dft_on_stdio && !dft_on_posix) || !fp)
		return REAL(fclose)(fp);
	f = fp_file(fp);
	if (f || !dft_guard)
		fd_clear(fileno_unlocked(fp));	/* libc closes the fd */
	if (!f || !dft_on_stdio)
		return REAL(fclose)(fp);
	t0 = dft_now();
	r = REAL(fclose)(fp);
	e = errno;
	t1 = dft_now();
	ev_gen("fclose", "STDIO", t0, t1, f, NULL, 0);
	errno = e;
	return r;
}

DFT_INTERCEPT size_t fread(void *ptr, size_t size, size_t n, FILE *fp)
{
	struct dft_file *f;
	uint64_t t0, t1;
	size_t r;
	int e;

	if (!dft_on_stdio || !(f = fp_file(fp)))
		return REAL(fread)(ptr, size, n, fp);
	IO_FOLDED("fread", "STDIO", f, REAL(fread)(ptr, size, n, fp), size_t, (long long)size, 0, 0);
	t0 = dft_now();
	r = REAL(fread)(ptr, size, n, fp);
	e = errno;
	t1 = dft_now();
	ev_rw("fread", "STDIO", t0, t1, f, (long long)n, (long long)r, 0, 0,
	      (long long)size);
	errno = e;
	return r;
}

DFT_INTERCEPT size_t __fread_chk(void *ptr, size_t ptrlen, size_t size, size_t n,
			   FILE *fp)
{
	struct dft_file *f;
	uint64_t t0, t1;
	size_t r;
	int e;

	if (!dft_on_stdio || !(f = fp_file(fp)))
		return REAL(__fread_chk)(ptr, ptrlen, size, n, fp);
	IO_FOLDED("fread", "STDIO", f, REAL(__fread_chk)(ptr, ptrlen, size, n, fp), size_t, (long long)size, 0, 0);
	t0 = dft_now();
	r = REAL(__fread_chk)(ptr, ptrlen, size, n, fp);
	e = errno;
	t1 = dft_now();
	ev_rw("fread", "STDIO", t0, t1, f, (long long)n, (long long)r, 0, 0,
	      (long long)size);
	errno = e;
	return r;
}

DFT_INTERCEPT size_t fwrite(const void *ptr, size_t size, size_t n, FILE *fp)
{
	struct dft_file *f;
	uint64_t t0, t1;
	size_t r;
	int e;

	if (!dft_on_stdio || !(f = fp_file(fp)))
		return REAL(fwrite)(ptr, size, n, fp);
	IO_FOLDED("fwrite", "STDIO", f, REAL(fwrite)(ptr, size, n, fp), size_t, (long long)size, 0, 0);
	t0 = dft_now();
	r = REAL(fwrite)(ptr, size, n, fp);
	e = errno;
	t1 = dft_now();
	ev_rw("fwrite", "STDIO", t0, t1, f, (long long)n, (long long)r, 0, 0,
	      (long long)size);
	errno = e;
	return r;
}

#define FSEEK_WRAP(sym, off_type) \
	DFT_INTERCEPT int sym(FILE *fp, off_type offset, int whence) \
	{ \
		struct dft_file *f; \
		uint64_t t0, t1; \
		int r, e; \
		if (!dft_on_stdio || !(f = fp_file(fp))) \
			return REAL(sym)(fp, offset, whence); \
		SEEK_FOLDED(sym, "STDIO", f, REAL(sym)(fp, offset, whence), \
			    int, 1, whence, offset); \
		t0 = dft_now(); \
		r = REAL(sym)(fp, offset, whence); \
		e = errno; \
		t1 = dft_now(); \
		dft_model_seek(f, #sym, (long long)r, 1, whence, \
			       (long long)offset); \
		{ \
			struct dft_kv kv[] = { KI("ret", r), KI("whence", whence), \
					   KI("offset", offset) }; \
			ev_gen(#sym, "STDIO", t0, t1, f, kv, 3); \
		} \
		seek_count(#sym, "STDIO", t1 - t0); \
		errno = e; \
		return r; \
	}

FSEEK_WRAP(fseek, long)
FSEEK_WRAP(fseeko, off_t)
FSEEK_WRAP(fseeko64, off64_t)

#define FTELL_WRAP(sym, off_type) \
	DFT_INTERCEPT off_type sym(FILE *fp) \
	{ \
		struct dft_file *f; \
		uint64_t t0, t1; \
		off_type r; \
		int e; \
		if (!dft_on_stdio || !(f = fp_file(fp))) \
			return REAL(sym)(fp); \
		/* not ftello64: the analysis reads it as no seek (not \
		 * metadata either), so it stays complete */ \
		if (strcmp(#sym, "ftello64") != 0) \
			SEEK_FOLDED(sym, "STDIO", f, REAL(sym)(fp), off_type, \
				    0, 0, 0); \
		t0 = dft_now(); \
		r = REAL(sym)(fp); \
		e = errno; \
		t1 = dft_now(); \
		/* the analysis reads ftello64 as no seek */ \
		if (strcmp(#sym, "ftello64") != 0) \
			dft_model_seek(f, #sym, (long long)r, 0, 0, 0); \
		{ \
			struct dft_kv kv[] = { KI("ret", r) }; \
			ev_gen(#sym, "STDIO", t0, t1, f, kv, 1); \
		} \
		if (strcmp(#sym, "ftello64") != 0) \
			seek_count(#sym, "STDIO", t1 - t0); \
		errno = e; \
		return r; \
	}

FTELL_WRAP(ftell, long)
FTELL_WRAP(ftello, off_t)
FTELL_WRAP(ftello64, off64_t)

DFT_INTERCEPT int fflush(FILE *fp)
{
	struct dft_file *f;
	uint64_t t0, t1;
	int r, e;

	if (!dft_on_stdio || !(f = fp_file(fp)))
		return REAL(fflush)(fp);
	t0 = dft_now();
	r = REAL(fflush)(fp);
	e = errno;
	t1 = dft_now();
	{
		struct dft_kv kv[] = { KI("ret", r) };

		ev_gen("fflush", "STDIO", t0, t1, f, kv, 1);
	}
	errno = e;
	return r;
}
