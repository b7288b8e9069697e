/*
 * core.c - the bundled runtime's state and its life: initialise and
 * finalise, fatal signals, fork and exec, the interned file table (paths),
 * and the throttle.  Beside it: writer.c (event lines, thread buffers,
 * compression, the trace file), config.c (the environment) and api.c (the
 * dftracer C API: regions, INIT/FINI entry points, the Python extras).
 *
 * Internal I/O uses raw system calls, never the intercepted libc symbols.
 */
#include <ctype.h>
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <zlib.h>

#include "../include/dftracer/dftracer.h"
#include "internal.h"
#include "core.h"
#include "pathfilter.h"

/* page-aligned so that it and the real-function pointers after it in
 * the section (io.c) share a page */
struct dft_hot dft_hot DFT_HOT_DATA __attribute__((aligned(4096)));
int dft_trace_fd = -1;
__thread int dft_guard DFT_TLS;
__thread struct dft_thread *dft_tself DFT_TLS;
unsigned dft_gen;
int dft_on_mpiio, dft_on_hdf5;

struct dft_state G = {
	.init_lock = PTHREAD_MUTEX_INITIALIZER,
	.file_lock = PTHREAD_MUTEX_INITIALIZER,
	.reg_lock = PTHREAD_MUTEX_INITIALIZER,
	.intern_lock = PTHREAD_MUTEX_INITIALIZER,
	.fd = -1,
	.fd_hi = -1,
	.rank = -1,
};

/* ---- small helpers ------------------------------------------------------ */

static ssize_t sys_write(int fd, const void *p, size_t n)
{
	return syscall(SYS_write, fd, p, n);
}

int write_all(int fd, const void *p, size_t n)
{
	const char *c = p;

	while (n > 0) {
		ssize_t w = sys_write(fd, c, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

void rt_msg(int level, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	int n;

	if (level > G.log_level)
		return;
	n = snprintf(buf, sizeof(buf), "dftracer: ");
	va_start(ap, fmt);
	n += vsnprintf(buf + n, sizeof(buf) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(buf) - 2)
		n = (int)sizeof(buf) - 2;
	buf[n++] = '\n';
	write_all(2, buf, (size_t)n);
}

uint64_t dft_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

int env_is(const char *name, const char *val)
{
	const char *v = env_get(name);

	return v && strcmp(v, val) == 0;
}

long long dft_next_id(void)
{
	return atomic_fetch_add_explicit(&G.next_id, 1, memory_order_relaxed);
}

int dft_metadata(void)
{
	return G.metadata;
}

/* ---- paths -------------------------------------------------------------- */

/*
 * Memory kept for the life of the process (interned files and names,
 * buffer and job heads), carved from 64 KiB mappings: the tracer never
 * calls malloc inside an intercepted call (writer.c).  Lock-free: a
 * thread that loses the race for a new chunk unmaps its own and retries.
 * Zeroed.  NULL when mmap fails.  The first chunk is static: a short
 * process makes no mapping for it.
 */
#define DFT_PERM_CHUNK (64u << 10)
struct perm_chunk {
	_Atomic size_t used;
	size_t cap;
	char *data;
};
static char perm0_data[16384] __attribute__((aligned(16)));
static struct perm_chunk perm0 = { 0, sizeof(perm0_data), perm0_data };
static struct perm_chunk *_Atomic perm = &perm0;

void *dft_perm(size_t n)
{
	size_t want = (n + 15) & ~(size_t)15;

	if (want > DFT_PERM_CHUNK / 4)
		return blk_alloc(want, 0);	/* big: its own mapping */
	for (;;) {
		struct perm_chunk *c = atomic_load(&perm), *nc;

		if (c) {
			size_t at = atomic_fetch_add(&c->used, want);

			if (at + want <= c->cap)
				return c->data + at;
		}
		nc = (struct perm_chunk *)blk_alloc(DFT_PERM_CHUNK, 0);
		if (!nc)
			return NULL;
		nc->cap = DFT_PERM_CHUNK - sizeof(*nc);
		nc->data = (char *)(nc + 1);
		atomic_store(&nc->used, want);
		if (atomic_compare_exchange_strong(&perm, &c, nc))
			return nc->data;
		blk_free((char *)nc, DFT_PERM_CHUNK);
	}
}

void *dft_hot_alloc(size_t n)
{
	size_t want = (n + 7) & ~(size_t)7;
	size_t at = atomic_fetch_add(&dft_hot.arena_used, want);

	if (at + want <= sizeof(dft_hot.arena))
		return dft_hot.arena + at;
	return dft_perm(n);	/* arena full: a program that chdirs a lot */
}

static struct dft_cwd *dup_cwd(void)
{
	char buf[DFT_PATH];
	struct dft_cwd *copy;
	size_t n;

	if (!getcwd(buf, sizeof(buf)))
		strcpy(buf, "/");
	n = strlen(buf);
	copy = dft_hot_alloc(sizeof(*copy) + n + 1);
	if (!copy) {	/* out of memory: "/" rather than a NULL to check */
		static union {
			struct dft_cwd c;
			char room[sizeof(struct dft_cwd) + 2];
		} root;

		copy = &root.c;
		n = 1;
		strcpy(buf, "/");
	}
	copy->len = n;
	memcpy(copy->path, buf, n + 1);
	return copy;
}

void dft_set_cwd(void)
{
	/* the old copy stays: readers may still hold it */
	atomic_store(&dft_hot.cwd, dup_cwd());
}

/*
 * Lexically normalises base + "/" + path (base ignored when path is
 * absolute) into out: no "." or empty components, ".." removed with its
 * parent.  Returns the length, or 0 if it does not fit.
 */
size_t norm_path(const char *base, const char *path, char *out,
			size_t cap)
{
	size_t n = 0;
	const char *parts[2] = { path[0] == '/' ? "" : base, path };

	out[0] = '/';
	n = 1;
	for (int k = 0; k < 2; k++) {
		const char *p = parts[k];

		while (*p) {
			const char *s;
			size_t l;

			while (*p == '/')
				p++;
			if (!*p)
				break;
			s = p;
			while (*p && *p != '/')
				p++;
			l = (size_t)(p - s);
			if (l == 1 && s[0] == '.')
				continue;
			if (l == 2 && s[0] == '.' && s[1] == '.') {
				while (n > 1 && out[n - 1] != '/')
					n--;
				if (n > 1)
					n--;
				continue;
			}
			if (n + l + 2 >= cap)
				return 0;
			if (n > 1)
				out[n++] = '/';
			memcpy(out + n, s, l);
			n += l;
		}
	}
	out[n] = '\0';
	return n;
}

static const char *const excl_prefix[] = {
	"/proc/", "/sys/", "/dev/", "/pipe", "/socket", "anon_inode", "socket",
};

static int excluded(const char *p, size_t n)
{
	size_t i;

	for (i = 0; i < sizeof(excl_prefix) / sizeof(*excl_prefix); i++)
		if (strncmp(p, excl_prefix[i], strlen(excl_prefix[i])) == 0)
			return 1;
	if ((n >= 4 && memcmp(p + n - 4, ".pfw", 4) == 0) ||
	    (n >= 7 && memcmp(p + n - 7, ".pfw.gz", 7) == 0) ||
	    (n >= 3 && memcmp(p + n - 3, ".py", 3) == 0))
		return 1;
	return 0;
}

static size_t str_hash(const char *s, size_t n)
{
	size_t h = 1469598103934665603ull;

	while (n--)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

/* The file table: mmap (it grows inside open(): no malloc there), the
 * first one static (no mapping for a short process) unless a forked
 * child still reads it as its parent's (G.child_old). */
static struct dft_file *tab0[1024];

static void tab_free(struct dft_file **tab, size_t cap)
{
	if (tab != tab0)
		blk_free((char *)tab, cap * sizeof(*tab));
}

/* Interns an absolute path, emitting FH the first time. */
struct dft_file *intern(const char *p, size_t n)
{
	struct dft_file *f;
	size_t h, i;

	pthread_mutex_lock(&G.intern_lock);
	if (G.tabn * 2 >= G.tabcap) {
		size_t cap = G.tabcap ? G.tabcap * 2 : 1024;
		struct dft_file **nt =
			cap == 1024 && G.tab != tab0 && G.child_old != tab0 ?
				memset(tab0, 0, sizeof(tab0)) :
				(struct dft_file **)blk_alloc(cap * sizeof(*nt),
							      0);

		if (!nt) {
			pthread_mutex_unlock(&G.intern_lock);
			return NULL;
		}
		for (i = 0; i < G.tabcap; i++) {
			struct dft_file *o = G.tab[i];
			size_t j;

			if (!o)
				continue;
			j = str_hash(o->path, o->len) & (cap - 1);
			while (nt[j])
				j = (j + 1) & (cap - 1);
			nt[j] = o;
		}
		tab_free(G.tab, G.tabcap);
		G.tab = nt;
		G.tabcap = cap;
	}
	h = str_hash(p, n);
	for (i = h & (G.tabcap - 1); (f = G.tab[i]); i = (i + 1) & (G.tabcap - 1))
		if (f->len == n && memcmp(f->path, p, n) == 0) {
			pthread_mutex_unlock(&G.intern_lock);
			return f;
		}
	f = dft_perm(sizeof(*f) + n + 1);
	if (!f) {
		pthread_mutex_unlock(&G.intern_lock);
		return NULL;
	}
	memcpy(f->path, p, n);
	f->path[n] = '\0';
	f->len = (unsigned)n;
	dft_hash16(p, n, f->hash);
	G.tab[i] = f;
	G.tabn++;
	if (dft_on_any)	/* not after finalize: an id its file never gets */
		ev_meta(dft_self(), "FH", f->path, 1, f->hash);
	pthread_mutex_unlock(&G.intern_lock);
	return f;
}

/* Puts an existing entry into the table (after fork), emitting its FH. */
static void reintern(struct dft_file *f)
{
	struct dft_file *g = intern(f->path, f->len);

	(void)g;	/* the new entry has the same hash; fds keep the old one */
}

static size_t fd_dir(int dirfd, char *out, size_t cap)
{
	char link[64];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", dirfd);
	n = syscall(SYS_readlinkat, AT_FDCWD, link, out, cap - 1);
	if (n <= 0 || out[0] != '/')
		return 0;
	out[n] = '\0';
	return (size_t)n;
}

struct dft_file *dft_path_file(int dirfd, const char *path)
{
	char abs[DFT_PATH], base[DFT_PATH];
	size_t n;

	if (!path || !*path)
		return NULL;
	if (path[0] == '/') {	/* dft_path_maybe has filtered it already */
		n = norm_path("", path, abs, sizeof(abs));
	} else if (dirfd == AT_FDCWD) {
		n = norm_path(atomic_load(&dft_hot.cwd)->path, path, abs,
			      sizeof(abs));
	} else {
		if (!fd_dir(dirfd, base, sizeof(base)))
			return NULL;
		n = norm_path(base, path, abs, sizeof(abs));
	}
	if (n == 0 || !dft_dir_match(abs, n) || excluded(abs, n))
		return NULL;
	DFT_PENDING_CHECK();	/* a traced file: the trace starts here */
	return intern(abs, n);
}

static void fds_alloc(void)
{
	struct rlimit rl;
	long n = 65536;

	if (dft_fds)
		return;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    (long)rl.rlim_cur > n)
		n = (long)rl.rlim_cur > (1L << 20) ? (1L << 20) : (long)rl.rlim_cur;
	dft_fds = (void *)blk_alloc((size_t)n * sizeof(*dft_fds), 0);
	if (dft_fds)
		dft_nfds = (int)n;
}

void dft_fd_set(int fd, struct dft_file *f)
{
	if ((unsigned)fd < DFT_FD_LOW)
		atomic_store_explicit(&dft_hot.fd_low[fd], f,
				      memory_order_relaxed);
	else if (fd >= 0 && fd < dft_nfds)
		atomic_store_explicit(&dft_fds[fd], f, memory_order_relaxed);
}

static void set_switches(void)
{
	int on = G.inited && !G.finalized;

	dft_on_any = on;
	dft_on_posix = on && G.bind && G.io && G.posix && dft_fds;
	dft_on_stdio = on && G.bind && G.io && G.stdio && dft_fds;
	dft_on_mpiio = on && G.bind && G.io && G.mpiio;
	dft_on_hdf5 = on && G.bind && G.io && G.hdf5;
}

static void at_exit(void)
{
	dft_fini();
}

/* Takes a lock from a signal handler without risking a deadlock: gives up
 * after about a second. */
static int sig_lock(pthread_mutex_t *m)
{
	struct timespec ms = { 0, 1000000 };
	int i;

	for (i = 0; i < 1000; i++) {
		if (pthread_mutex_trylock(m) == 0)
			return 0;
		nanosleep(&ms, NULL);
	}
	return -1;
}

/*
 * The signals that end a process by default and come from outside it:
 * Slurm's SIGTERM at a job's time limit or scancel, Ctrl-C's SIGINT, a
 * hang-up, a CPU limit, a closed pipe.  Killed by one, a process would lose
 * what its threads had buffered and its file would have no end (a process
 * of a millisecond: no file at all, the writer thread not having made it
 * yet).  From the first record on the tracer stands in for the default
 * action of each of them the program left at SIG_DFL: its handler
 * (on_term) finishes the trace as finalize() does, with a "signal" record
 * before the end, then restores the default action and raises the signal
 * again, so that the process ends as it would have (the same status, a
 * core for SIGQUIT).  The program sees none of it: sigaction() and
 * signal() (below) report the disposition it set, install a handler or
 * SIG_IGN it sets as it asks (the tracer's handler is then off that
 * signal), and put the tracer's back when it sets SIG_DFL again.  A signal
 * ignored or handled when the trace starts is left alone.
 * DFTRACER_BIND_SIGNALS=0 turns it off.
 */
static const int term_sigs[] = { SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGPIPE,
				 SIGUSR1, SIGUSR2, SIGXCPU };
#define DFT_NTERM (sizeof(term_sigs) / sizeof(*term_sigs))
#define DFT_NSIG 65
/* the disposition the program set (or had when the trace started) of the
 * signal term_sigs[k] once taken, k = sig_slot[sig] - 1 (0: not taken):
 * the tracer's handler is installed while it is SIG_DFL.  Small: its
 * pages are touched by every traced process */
static struct sigaction app_acts[DFT_NTERM];
static _Atomic unsigned char sig_slot[DFT_NSIG];
#define app_act(sig) (app_acts[sig_slot[sig] - 1])

/* libc's sigaction under its other name: no dlsym at the first record */
extern int __sigaction(int, const struct sigaction *, struct sigaction *);
#define real_sigaction() __sigaction

static void on_term(int sig, siginfo_t *si, void *uc);
static void dft_fini_signal(int sig);
static void flush_on_signal(int sig);

static void term_act(struct sigaction *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sa_sigaction = on_term;
	sigfillset(&sa->sa_mask);	/* nothing interrupts the finish */
	sa->sa_flags = SA_SIGINFO | SA_RESTART;
}

static void on_term(int sig, siginfo_t *si, void *uc)
{
	struct sigaction *a = &app_act(sig), dfl;
	int saved = errno;

	/* the program changed it a moment ago, the tracer's handler not yet
	 * replaced: as the program asked */
	if (a->sa_handler == SIG_IGN)
		return;
	if (a->sa_handler != SIG_DFL) {
		if (a->sa_flags & SA_SIGINFO)
			a->sa_sigaction(sig, si, uc);
		else
			a->sa_handler(sig);
		return;
	}
	if (G.inited && !G.finalized && !dft_pending && getpid() == G.ospid) {
		if (dft_guard == 0)
			dft_fini_signal(sig);	/* no tracer lock held here */
		else
			flush_on_signal(sig);
	}
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	real_sigaction()(sig, &dfl, NULL);
	errno = saved;
	raise(sig);	/* blocked until this returns: then it acts */
}

static int term_sig(int sig)
{
	return sig > 0 && sig < DFT_NSIG &&
	       atomic_load_explicit(&sig_slot[sig], memory_order_acquire);
}

/* At the first record: the signals of term_sigs at SIG_DFL get the
 * tracer's handler (once per process: a fork child keeps its parent's). */
static void sig_take(void)
{
	struct sigaction ours;

	if (!G.term_signals)
		return;
	term_act(&ours);
	for (size_t i = 0; i < DFT_NTERM; i++) {
		int sig = term_sigs[i];

		if (sig_slot[sig] ||
		    real_sigaction()(sig, NULL, &app_acts[i]) != 0)
			continue;
		atomic_store_explicit(&sig_slot[sig], (unsigned char)(i + 1),
				      memory_order_release);
		if (app_acts[i].sa_handler == SIG_DFL &&
		    !(app_acts[i].sa_flags & SA_SIGINFO))
			real_sigaction()(sig, &ours, NULL);
	}
}

DFT_INTERCEPT int sigaction(int sig, const struct sigaction *act,
			    struct sigaction *old)
{
	struct sigaction prev;

	if (!term_sig(sig))
		return real_sigaction()(sig, act, old);
	prev = app_act(sig);
	if (act) {
		if (act->sa_handler == SIG_DFL) {
			struct sigaction ours;

			app_act(sig) = *act;
			term_act(&ours);
			real_sigaction()(sig, &ours, NULL);
		} else {
			if (real_sigaction()(sig, act, NULL) != 0)
				return -1;
			app_act(sig) = *act;
		}
	}
	if (old)
		*old = prev;
	return 0;
}

/* signal() and its other name bsd_signal() (glibc's: BSD semantics,
 * restarting calls, sig blocked in its handler) */
static __sighandler_t bsd_signal_of(int sig, __sighandler_t h)
{
	static __sighandler_t (*real_signal)(int, __sighandler_t);
	struct sigaction sa, old;

	if (!term_sig(sig)) {
		if (!real_signal)
			real_signal = (__sighandler_t (*)(int, __sighandler_t))
				dlsym(RTLD_NEXT, "signal");
		return real_signal ? real_signal(sig, h) : SIG_ERR;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = h;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, sig);
	sa.sa_flags = SA_RESTART;
	if (sigaction(sig, &sa, &old) != 0)
		return SIG_ERR;
	return old.sa_handler;
}

DFT_INTERCEPT __sighandler_t signal(int sig, __sighandler_t h)
{
	return bsd_signal_of(sig, h);
}

DFT_INTERCEPT __sighandler_t bsd_signal(int sig, __sighandler_t h)
{
	return bsd_signal_of(sig, h);
}

/* a "signal" record (name SIGTERM, value 15) in t's line scratch */
static void signal_line(struct dft_thread *t, int sig)
{
	char name[32], num[16];
	const char *ab = sigabbrev_np(sig);

	if (ab)
		snprintf(name, sizeof(name), "SIG%s", ab);
	else
		snprintf(name, sizeof(name), "%d", sig);
	snprintf(num, sizeof(num), "%d", sig);
	ev_meta_line(t, "signal", name, num);
}

/*
 * A signal on its way to end the process while this thread was inside the
 * tracer (DFTRACER_BIND_SIGNALS=1's fatal signals, or one that interrupted
 * the tracer's own work): let the writer finish its queue, write every
 * buffer that is not in use, then the regions this thread is inside, the
 * signal record, the end event and "]".  Best effort: locks are only
 * tried, never waited for indefinitely.
 */
static void flush_on_signal(int sig)
{
	if (G.inited && !G.finalized && !dft_pending &&
	    getpid() == G.ospid) {
		struct timespec ms = { 0, 1000000 };
		struct dft_thread *t = t_self;
		int i;

		dft_guard++;
		dft_on_posix = dft_on_stdio = dft_on_any = 0;
		dft_on_mpiio = dft_on_hdf5 = 0;
		for (i = 0; i < 1000 && writer_busy(); i++)
			nanosleep(&ms, NULL);
		if (sig_lock(&G.file_lock) == 0) {
			for (struct dft_tbuf *b = G.bufs; b; b = b->next) {
				if (tb_trylock(b) != 0)
					continue;
				out_write(b->data, b->len);
				b->len = 0;
				tb_unlock(b);
			}
			if (t && t->gen == G.gen) {
				long long id;
				uint64_t now = dft_now();
				int k = t->depth > DFT_DEPTH ? DFT_DEPTH : t->depth;

				while (--k >= 0) {	/* the regions left open */
					struct dft_region *r = t->stack[k];

					if (!r || r->emitted ||
					    (r->magic == DFT_R_AGG && !r->id))
						continue;
					region_format(t, r, now);
					if (!t->overflow)
						out_write(t->line, t->n);
					r->emitted = 1;
				}
				signal_line(t, sig);
				if (!t->overflow)
					out_write(t->line, t->n);
				id = dft_next_id();
				int args = ev_begin(t, id, "end", "dftracer",
						    dft_now(), 0);

				if (args) {
					DFT_LIT(t, ",\"p_idx\":-1,\"level\":1");
					ev_int(t, "num_events", id - 1);
				}
				if (args)
					DFT_LIT(t, "}}\n]");
				else
					DFT_LIT(t, "}\n]");
				out_write(t->line, t->n);
				t->n = 0;
			}
			G.finalized = 1;
			pthread_mutex_unlock(&G.file_lock);
		}
		dft_guard--;
	}
}

/* DFTRACER_BIND_SIGNALS=1's handler of the fatal signals */
static void on_signal(int sig)
{
	int saved = errno;

	flush_on_signal(sig);
	errno = saved;
	signal(sig, SIG_DFL);
	raise(sig);
}

/* DFTRACER_BIND_SIGNALS=1: the fatal signals, where the program has no
 * handler (the ones that end a process by default are taken at the first
 * record whatever it is: sig_take) */
static void bind_signals(void)
{
	static const int sigs[] = { SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL };
	size_t i;

	for (i = 0; i < sizeof(sigs) / sizeof(*sigs); i++) {
		struct sigaction sa, old;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_signal;
		sigemptyset(&sa.sa_mask);
		sa.sa_flags = SA_RESETHAND;
		if (real_sigaction()(sigs[i], NULL, &old) == 0 &&
		    old.sa_handler != SIG_DFL)
			continue;	/* keep the application's handler */
		real_sigaction()(sigs[i], &sa, NULL);
	}
}

/*
 * Tracing begins at initialisation (ids, the start time), but the file is
 * opened and its header written at the first record (dft_pending_start):
 * a process that traces nothing, like a shell that only forks and execs,
 * leaves no file, as dftracer deletes its near-empty files.
 */
static void begin_trace(void)
{
	atomic_store(&G.next_id, 1);
	writer_resume();
	G.start_ts = dft_now();
	G.start_time = time(NULL);
	G.gen++;
	dft_gen = G.gen;
	G.inited = 1;
	G.finalized = 0;
	dft_pending = 1;
	set_switches();
}

void dft_init(const char *log_file, const char *data_dirs, const int *pid,
	      int bind, const char *suffix)
{
	const char *v;

	if (!env_is("DFTRACER_ENABLE", "1"))
		return;
	dft_guard++;
	pthread_mutex_lock(&G.init_lock);
	if (G.inited) {
		if (bind && !G.bind && !G.finalized) {
			G.bind = 1;
			set_switches();
		}
		goto out;
	}
	if (!G.key_made && pthread_key_create(&G.key, thread_exit) == 0)
		G.key_made = 1;
	dft_hot.cwd = dup_cwd();
	env_take();	/* one pass over environ, for this INIT */
	read_config(data_dirs);
	G.bind = bind;
	G.pid_given = pid && *pid >= 0;
	G.ospid = getpid();
	G.pid = G.pid_given ? (pid_t)*pid : G.ospid;
	if (gethostname(G.host, sizeof(G.host)) != 0)
		strcpy(G.host, "localhost");
	G.host[sizeof(G.host) - 1] = '\0';
	dft_hash16(G.host, strlen(G.host), G.hhash);
	snprintf(G.suffix, sizeof(G.suffix), "%s", suffix);
	read_cmdline();
	rank_from_env();
	if (log_file && *log_file) {
		char *dot, *slash;

		snprintf(G.prefix, sizeof(G.prefix), "%s", log_file);
		dot = strrchr(G.prefix, '.');
		slash = strrchr(G.prefix, '/');
		if (dot && (!slash || dot > slash + 1))
			*dot = '\0';
		G.explicit_log = 1;
	} else {
		v = env_get("DFTRACER_LOG_FILE");
		snprintf(G.prefix, sizeof(G.prefix), "%s",
			 v && *v ? v : "./trace");
		G.explicit_log = 0;
	}
	env_drop();
	fds_alloc();
	begin_trace();
	if (strcmp(suffix, "preload") != 0) {
		/* before the program allocates; the file's descriptor while
		 * the process has one thread (trace_reserve_fd) */
		trace_reserve_fd();
		writer_start_early();
	}
	if (!G.atexit_done) {
		atexit(at_exit);
		G.atexit_done = 1;
	}
	if (!G.atfork_done) {
		pthread_atfork(dft_fork_prepare, dft_fork_parent, dft_fork_child);
		G.atfork_done = 1;
	}
	if (G.bind_signals)
		bind_signals();
out:
	pthread_mutex_unlock(&G.init_lock);
	dft_guard--;
}

static int other_running(struct dft_tbuf *b, struct dft_thread *self)
{
	struct dft_thread *o = b->owner;

	return o && o != self && !b->dead && o->gen == G.gen && o->guardp;
}

/* Waits until no other thread is inside the tracer (a call begun before
 * tracing went off), so that their events are in their buffers before
 * they are written.  Caller holds G.reg_lock. */
static void others_quiesce(struct dft_thread *self)
{
	struct timespec ts = { 0, 50000 };
	int any = 0, waits = 0;

	atomic_thread_fence(memory_order_seq_cst);
	for (struct dft_tbuf *b = G.bufs; b && !any; b = b->next)
		any = other_running(b, self);
	if (!any)
		return;
	/* a thread that raised its guard as the switch went off: its store
	 * seen, and its second look at the switch made */
	nanosleep(&ts, NULL);
	for (struct dft_tbuf *b = G.bufs; b; b = b->next)
		while (other_running(b, self) &&
		       *(volatile int *)b->owner->guardp && waits < 400) {
			nanosleep(&ts, NULL);
			waits++;
		}
	atomic_thread_fence(memory_order_acquire);
}

/* o's open regions as they stand (innermost first) into t's buffer */
static void open_regions(struct dft_thread *t, struct dft_thread *o,
			 uint64_t now)
{
	for (int k = (o->depth > DFT_DEPTH ? DFT_DEPTH : o->depth) - 1; k >= 0;
	     k--) {
		struct dft_region *r = o->stack[k];

		if (r && !r->emitted && (r->magic == DFT_R_FULL || r->id)) {
			region_emit(t, r, now);
			r->emitted = 1;
		}
	}
}

/*
 * finalize on thread self while other threads still run (exit() called by
 * a thread other than main, FINI while workers are inside regions): their
 * open regions are written as they stand, so that the events they enclose
 * have their parents.  Tracing is off already (set_switches), and with it
 * off a thread's stack no longer changes (region_end and dft_span_end
 * return at once); a thread inside the tracer (its guard up: a call begun
 * before the switch) was waited for (others_quiesce), 20 ms at most in
 * all, else is left out.  The events are made in self's scratch with the
 * other thread's pid and tid, into self's buffer.  Caller holds
 * G.reg_lock (thread_exit unmaps no thread's state under it).
 */
static void agg_flush(struct dft_thread *t, struct dft_fnstat *e);

static void others_open_regions(struct dft_thread *self, uint64_t now)
{
	char own[sizeof(self->pidtid)];
	unsigned own_len = self->pidtid_len;

	memcpy(own, self->pidtid, own_len);
	for (struct dft_tbuf *b = G.bufs; b; b = b->next) {
		struct dft_thread *o = b->owner;

		if (!other_running(b, self) || *(volatile int *)o->guardp)
			continue;	/* still inside the tracer: left out */
		memcpy(self->pidtid, o->pidtid, o->pidtid_len);
		self->pidtid_len = o->pidtid_len;
		memset(self->hc, 0, sizeof(self->hc));	/* they hold pid, tid */
		open_regions(self, o, now);
		/* and its open aggregated records (its tables are its own,
		 * unlocked, but it is not in the tracer and tracing is off) */
		dft_io_flush_other(self, o);
		for (unsigned i = 0; i < o->fncap; i++)
			if (o->fns[i].hash && o->fns[i].cnt)
				agg_flush(self, &o->fns[i]);
	}
	memcpy(self->pidtid, own, own_len);
	self->pidtid_len = own_len;
	memset(self->hc, 0, sizeof(self->hc));
}

/* finalize; sig: the signal that ends the process (on_term), else 0 */
static void fini(int sig)
{
	struct dft_thread *t;
	int args;

	dft_guard++;
	pthread_mutex_lock(&G.init_lock);
	if (!G.inited || G.finalized || getpid() != G.ospid)
		goto out;
	G.finalized = 1;
	set_switches();
	if (dft_pending) {	/* a process that traced nothing: no file */
		dft_pending = 0;
		goto out;
	}
	t = dft_self();
	/* everything else first, so "end" and "]" close the file */
	writer_stop();
	pthread_mutex_lock(&G.reg_lock);
	others_quiesce(t);
	for (struct dft_tbuf *b = G.bufs; b; b = b->next) {
		if (t && b == t->buf)
			continue;
		tb_lock(b);
		tbuf_flush_locked(b);
		tb_unlock(b);
	}
	if (t)
		others_open_regions(t, dft_now());
	pthread_mutex_unlock(&G.reg_lock);
	if (t) {
		long long id;
		uint64_t now = dft_now();

		agg_flush_thread(t);
		/* regions this thread left open (exit inside a function): write
		 * them as they stand, so their I/O has its parents */
		open_regions(t, t, now);
		if (sig) {
			signal_line(t, sig);
			if (t->overflow) {
				t->n = 0;
				t->overflow = 0;
			} else {
				commit(t);
			}
		}
		id = dft_next_id();
		args = ev_begin(t, id, "end", "dftracer", dft_now(), 0);
		if (args) {
			DFT_LIT(t, ",\"p_idx\":-1,\"level\":1");
			ev_int(t, "num_events", id - 1);
		}
		ev_end(t, args);
		t->n = 0;
		DFT_LIT(t, "]");
		commit(t);
		tb_lock(t->buf);
		tbuf_flush_locked(t->buf);
		tb_unlock(t->buf);
	}
	pthread_mutex_lock(&G.file_lock);
	if (G.fd >= 0)
		syscall(SYS_close, G.fd);
	G.fd = -1;
	trace_release_fd();
	pthread_mutex_unlock(&G.file_lock);
out:
	pthread_mutex_unlock(&G.init_lock);
	dft_guard--;
}

void dft_fini(void)
{
	fini(0);
}

static void dft_fini_signal(int sig)
{
	fini(sig);
}

/* ---- process lifecycle -------------------------------------------------- */

static void renumber_open_regions(void);

/* The guard is up from prepare to the parent's or child's handler: a
 * signal that ends the process in between (on_term) finds the locks taken
 * here held by its own thread and only tries them. */
void dft_fork_prepare(void)
{
	dft_guard++;
	/* keep the child from inheriting a lock held mid-flush */
	pthread_mutex_lock(&G.init_lock);
	pthread_mutex_lock(&G.intern_lock);
	pthread_mutex_lock(&G.file_lock);
	writer_lock();
}

void dft_fork_parent(void)
{
	writer_unlock();
	pthread_mutex_unlock(&G.file_lock);
	pthread_mutex_unlock(&G.intern_lock);
	pthread_mutex_unlock(&G.init_lock);
	dft_guard--;
}

/* The child gets its own trace file with its own header; buffers inherited
 * from the parent belong to the parent's file and are dropped. */
static void fork_child(void);

void dft_fork_child(void)
{
	fork_child();
	dft_guard--;	/* raised by dft_fork_prepare */
}

static void fork_child(void)
{
	struct dft_tbuf *b, *next;
	int final = G.finalized;

	pthread_mutex_init(&G.file_lock, NULL);
	pthread_mutex_init(&G.intern_lock, NULL);
	pthread_mutex_init(&G.init_lock, NULL);
	pthread_mutex_init(&G.reg_lock, NULL);
	writer_reset_child();
	if (!G.inited) {
		set_switches();
		return;
	}
	/* a finalized parent's child traces again only if it initialises
	 * again; it then starts afresh as any child (below), but outside the
	 * parent's regions, which the parent's finalize wrote (after it, END
	 * leaves the stack as it is) */
	if (final && t_self)
		t_self->depth = 0;
	for (b = G.bufs; b; b = next) {
		next = b->next;
		blk_free(b->data, b->cap);
		tbuf_release(b);
	}
	G.bufs = NULL;
	if (t_self) {
		t_self->buf = NULL;
		/* the open aggregated records are the parent's */
		for (unsigned i = 0; i < t_self->fncap; i++)
			t_self->fns[i].cnt = 0;
		dft_io_drop(t_self);
	}
	if (G.fd >= 0)
		syscall(SYS_close, G.fd);
	G.fd = -1;
	G.want_open = 0;	/* the parent's file, if not made yet */
	trace_release_fd();
	G.ospid = getpid();
	if (!G.pid_given)
		G.pid = G.ospid;
	G.inited = 0;
	set_switches();
	/* the file opens at the child's first event (dft_pending_start); a
	 * child forked before its parent traced anything keeps the list */
	if (!dft_pending) {
		G.child_old = G.tab;
		G.child_oldcap = G.tabcap;
		G.tab = NULL;
		G.tabcap = G.tabn = 0;
	}
	if (final)
		return;
	G.forked = 1;
	begin_trace();
}

void dft_pending_start(void)
{
	dft_guard++;
	pthread_mutex_lock(&G.init_lock);
	if (dft_pending && G.inited && !G.finalized && getpid() == G.ospid) {
		struct dft_file **old = G.child_old;
		size_t i, oldcap = G.child_oldcap;

		/* kept until read: intern() must not reuse it (tab0) */
		if (open_and_write_header() == 0) {
			sig_take();	/* something to save now */
			/* a child's file names every file it may reference */
			if (old)
				for (i = 0; i < G.child_oldcap; i++)
					if (old[i])
						reintern(old[i]);
			if (G.forked)
				renumber_open_regions();
		} else {
			G.finalized = 1;
			set_switches();
		}
		/* only now: other threads wait here until the header is out */
		G.child_old = NULL;
		dft_pending = 0;
		tab_free(old, oldcap);
	}
	pthread_mutex_unlock(&G.init_lock);
	dft_guard--;
}

/* The regions the forking thread is inside continue in the child; they
 * get ids in the child's file so its events have their parents there. */
static void renumber_open_regions(void)
{
	struct dft_thread *t = t_self;
	int k, n;

	if (!t)
		return;
	n = t->depth > DFT_DEPTH ? DFT_DEPTH : t->depth;
	for (k = 0; k < n; k++) {
		struct dft_region *r = t->stack[k];

		r->level = k + 1;
		r->emitted = 0;
		if (r->magic == DFT_R_AGG) {	/* named again when needed */
			r->id = 0;
			r->p_idx = -1;
			continue;
		}
		r->p_idx = k > 0 ? frame_id(t, k - 1) : -1;
		r->id = dft_next_id();
	}
}

/* exit paths that skip atexit: _exit, _Exit */
void dft_exit_hook(void)
{
	if (G.inited && !G.finalized && getpid() == G.ospid)
		dft_fini();
}

/* exec replaces the image: write out what is buffered first */
void dft_exec_hook(void)
{
	if (G.inited && !G.finalized && !dft_pending &&
	    getpid() == G.ospid) {
		dft_guard++;
		if (t_self && t_self->gen == G.gen)
			agg_flush_thread(t_self);
		dft_guard--;
		dft_flush_all(0);
	}
}

/* ---- the throttle ------------------------------------------------------- */

/*
 * TAU's throttle, applied by the runtime itself: a function (name and
 * category) that has had DFTRACER_THROTTLE_CALLS complete events on a
 * thread, most of them (more than half) with an own time under
 * DFTRACER_THROTTLE_US, stops getting complete events there (nine in ten
 * of its first DFTRACER_THROTTLE_EARLY: then, dft_throttle_due).  Its
 * calls are folded into one dftracer 2.0.x
 * aggregated record per DFTRACER_TRACE_INTERVAL_MS interval ("ph":"C",
 * args.dft_cnt and dur_min/_max/_sum; ts is the start of the first call
 * folded in, not the interval's start, so that the trace's span stays that
 * of the run), so a first traced run of a program with a two-million-call
 * helper stays small: at most DFTRACER_THROTTLE_CALLS complete events per
 * short function, whatever its number of calls.  A folded call is still
 * on the thread's stack; when an event is written inside it (I/O, a
 * function that is not folded) it gets an id and is written as a complete
 * event at its END, so the analysis still finds the function around its
 * I/O, with the right parent and level, and the trace holds at most one
 * such event per event inside it.  The tables are per thread: no locks.
 */
#define DFT_FN_MAX 4096		/* functions tracked per thread */

uint64_t fn_hash(const char *name, const char *cat)
{
	uint64_t h = 1469598103934665603ull;
	const unsigned char *p;

	for (p = (const unsigned char *)name; *p; p++)
		h = (h ^ *p) * 1099511628211ull;
	h = (h ^ 0xff) * 1099511628211ull;
	for (p = (const unsigned char *)cat; *p; p++)
		h = (h ^ *p) * 1099511628211ull;
	return h ? h : 1;
}

/* A thread's function table comes from mmap (it grows inside
 * intercepted calls: no malloc there); the first thread's first one is
 * static (no mapping for a short process). */
static struct dft_fnstat fns0[64];
static atomic_int fns0_used;

void fn_free(struct dft_thread *t)
{
	if (t->fns != fns0)
		blk_free((char *)t->fns, t->fncap * sizeof(*t->fns));
	t->fns = NULL;
	t->fncap = 0;
}

static int fn_grow(struct dft_thread *t)
{
	unsigned cap = t->fncap ? t->fncap * 2 : 64, i;
	int no = 0;
	struct dft_fnstat *nt =
		cap == 64 && atomic_compare_exchange_strong(&fns0_used, &no, 1) ?
			fns0 :
			(struct dft_fnstat *)blk_alloc(cap * sizeof(*nt), 0);

	if (!nt)
		return -1;
	for (i = 0; i < t->fncap; i++) {
		unsigned j;

		if (!t->fns[i].hash)
			continue;
		for (j = (unsigned)t->fns[i].hash & (cap - 1); nt[j].hash;
		     j = (j + 1) & (cap - 1))
			;
		nt[j] = t->fns[i];
	}
	fn_free(t);
	t->fns = nt;
	t->fncap = cap;
	memset(t->fc, 0, sizeof(t->fc));	/* the slots moved */
	return 0;
}

/* The slot of (name, cat) on this thread, made on first use; -1 when the
 * table is full or out of memory (the function is then never throttled). */
int fn_slot(struct dft_thread *t, const char *name, const char *cat,
		   uint64_t h)
{
	unsigned i;

	if (t->fncap == 0 && fn_grow(t) < 0)
		return -1;
	for (i = (unsigned)h & (t->fncap - 1); t->fns[i].hash;
	     i = (i + 1) & (t->fncap - 1))
		if (t->fns[i].hash == h && strcmp(t->fns[i].name, name) == 0 &&
		    strcmp(t->fns[i].cat, cat) == 0)
			return (int)i;
	if (t->fnn >= DFT_FN_MAX)
		return -1;
	if ((t->fnn + 1) * 2 > t->fncap) {
		if (fn_grow(t) < 0)
			return -1;
		return fn_slot(t, name, cat, h);
	}
	t->fns[i].name = fn_intern(name);
	t->fns[i].cat = fn_intern(cat);
	if (!t->fns[i].name || !t->fns[i].cat) {
		t->fns[i].name = t->fns[i].cat = NULL;
		return -1;
	}
	t->fns[i].hash = h;
	t->fnn++;
	return (int)i;
}

/* The executable's read-only segments (PT_LOAD without PF_W), from its
 * program headers (getauxval: no loader lock, safe in a signal handler),
 * looked up once.  The executable is never unmapped, so a string there
 * (an annotated function's __func__, a literal category) never changes:
 * a cache hit on its pointer needs no strcmp.  Strings elsewhere (a
 * library's, which dlclose may unmap; a caller's buffer) are compared. */
#define DFT_RO_MAX 8
static struct {
	_Atomic int state;	/* 0 not looked up, 1 busy, 2 done */
	unsigned n;
	uintptr_t lo[DFT_RO_MAX], hi[DFT_RO_MAX];
} ro;

static void ro_find(void)
{
	const ElfW(Phdr) *ph = (const ElfW(Phdr) *)getauxval(AT_PHDR);
	size_t n = getauxval(AT_PHNUM), i;
	uintptr_t bias = 0;
	int have = 0, z = 0;

	if (!atomic_compare_exchange_strong(&ro.state, &z, 1))
		return;	/* done, or another thread (or this one) on it */
	for (i = 0; ph && i < n; i++)
		if (ph[i].p_type == PT_PHDR) {
			bias = (uintptr_t)ph - ph[i].p_vaddr;
			have = 1;
		}
	for (i = 0; have && i < n && ro.n < DFT_RO_MAX; i++)
		if (ph[i].p_type == PT_LOAD && !(ph[i].p_flags & PF_W) &&
		    ph[i].p_memsz) {
			ro.lo[ro.n] = bias + ph[i].p_vaddr;
			ro.hi[ro.n] = bias + ph[i].p_vaddr + ph[i].p_memsz;
			ro.n++;
		}
	atomic_store(&ro.state, 2);
}

/* s and its NUL lie in one of the executable's read-only segments */
static int ro_has(const char *s)
{
	uintptr_t a = (uintptr_t)s;

	if (atomic_load(&ro.state) != 2)
		ro_find();
	if (atomic_load(&ro.state) != 2)
		return 0;
	for (unsigned i = 0; i < ro.n; i++)
		if (a >= ro.lo[i] && a < ro.hi[i])
			return a + strnlen(s, ro.hi[i] - a) < ro.hi[i];
	return 0;
}

/* fn_lookup's miss (core.h): the table, and the cache entry i refilled */
int fn_lookup_miss(struct dft_thread *t, const char *name, const char *cat,
		   unsigned i)
{
	struct dft_fncache *c;
	int s = fn_slot(t, name, cat, fn_hash(name, cat));

	c = &t->fc[i];	/* fn_slot may have cleared the cache */
	/* way 0's entry moves to way 1: two names that share i then stay */
	t->fc[i + DFT_FNC] = *c;
	c->name = name;
	c->cat = cat;
	c->slot = s;
	c->lit = s >= 0 && ro_has(name) && ro_has(cat);
	return s;
}

/* Region names, kept once per process and never freed: a region may end
 * on another thread, or after the thread that started it is gone. */
const char *fn_intern(const char *s)
{
	static char *tab0[256];	/* the first table (mmap'd after) */
	static char **tab;
	static size_t cap, n;
	size_t h = str_hash(s, strlen(s)), i;
	char *p;

	pthread_mutex_lock(&G.intern_lock);
	if ((n + 1) * 2 > cap) {
		size_t nc = cap ? cap * 2 : 256;
		char **nt = nc == 256 ? tab0 :
					(char **)blk_alloc(nc * sizeof(*nt), 0);

		if (!nt) {
			pthread_mutex_unlock(&G.intern_lock);
			return NULL;
		}
		for (i = 0; i < cap; i++) {
			size_t j;

			if (!tab[i])
				continue;
			for (j = str_hash(tab[i], strlen(tab[i])) & (nc - 1);
			     nt[j]; j = (j + 1) & (nc - 1))
				;
			nt[j] = tab[i];
		}
		if (tab != tab0)
			blk_free((char *)tab, cap * sizeof(*tab));
		tab = nt;
		cap = nc;
	}
	for (i = h & (cap - 1); tab[i]; i = (i + 1) & (cap - 1))
		if (strcmp(tab[i], s) == 0) {
			pthread_mutex_unlock(&G.intern_lock);
			return tab[i];
		}
	if ((p = dft_perm(strlen(s) + 1))) {
		strcpy(p, s);
		tab[i] = p;
		n++;
	}
	pthread_mutex_unlock(&G.intern_lock);
	return p;
}

/* the entry a handle refers to, if it is still there on this thread */
static struct dft_fnstat *fn_at(struct dft_thread *t, int slot, uint64_t h)
{
	if (!t || slot < 0 || (unsigned)slot >= t->fncap ||
	    t->fns[slot].hash != h)
		return NULL;
	return &t->fns[slot];
}

/* Writes e's open aggregated record.  Caller holds the guard. */
/* The head of an aggregated record (functions here, I/O in ioagg.c), up to
 * the host hash's value, its closing quote left to the caller: a fresh line
 * in t's scratch. */
void agg_head(struct dft_thread *t, const char *name, const char *cat,
	      uint64_t first)
{
	t->n = 0;
	t->overflow = 0;
	DFT_LIT(t, "{\"name\":");
	put_str(t, name, 0);
	DFT_LIT(t, ",\"cat\":");
	put_str(t, cat, 0);
	DFT_LIT(t, ",\"ts\":");
	put_u64(t, first);
	DFT_LIT(t, ",\"ph\":\"C\"");
	ev_raw(t, t->pidtid, t->pidtid_len);
	DFT_LIT(t, ",\"args\":{\"hhash\":\"");
	ev_raw(t, G.hhash, 16);
}

static void agg_flush(struct dft_thread *t, struct dft_fnstat *e)
{
	if (!e->cnt)
		return;
	/* always with args: without dft_cnt a reader sees a counter */
	agg_head(t, e->name, e->cat, e->first);
	DFT_LIT(t, "\",\"dft_cnt\":");
	put_u64(t, e->cnt);
	/* kept in ns (tick.c), written in us */
	DFT_LIT(t, ",\"dur_min\":");
	put_u64(t, (e->dmin + 500) / 1000);
	DFT_LIT(t, ",\"dur_max\":");
	put_u64(t, (e->dmax + 500) / 1000);
	DFT_LIT(t, ",\"dur_sum\":");
	put_u64(t, (e->dsum + 500) / 1000);
	DFT_LIT(t, "}}\n");
	e->cnt = 0;
	if (t->overflow) {
		t->n = 0;
		t->overflow = 0;
		return;
	}
	commit(t);
}

void agg_flush_thread(struct dft_thread *t)
{
	unsigned i;

	if (!t || !t->buf)
		return;
	dft_io_flush_all(t);
	for (i = 0; i < t->fncap; i++)
		if (t->fns[i].hash && t->fns[i].cnt)
			agg_flush(t, &t->fns[i]);
}

uint64_t fold_end(const struct dft_region *r, uint64_t tick)
{
	uint64_t end = r->anc_us + dft_tick_us_up(tick - r->anc_tick);

	return end > r->cend ? end : r->cend;
}

/* a folded call nothing named ended, dns after it began (the cheap clock,
 * tick.c): into the interval's record, whose start is read from the
 * trace's clock once */
void agg_add(struct dft_thread *t, struct dft_region *r, uint64_t dns)
{
	struct dft_fnstat *e;
	uint64_t start;

	if (!t->buf || r->t != t)
		return;
	e = fn_at(t, r->slot, r->fhash);
	if (DFT_UNLIKELY(!e)) {	/* the table grew since START */
		int s = fn_slot(t, r->name, r->cat, r->fhash);

		if (s < 0)
			return;
		e = &t->fns[s];
	}
	/* the open record's interval: [iv, iv + interval); the call's start
	 * estimated from the ticks since the record's last clock reading
	 * (a tick compare: lim_tick is where the interval ends), and read
	 * from the clock when that says it is past the interval */
	if (e->cnt && DFT_UNLIKELY(r->tick < e->anc_tick ||
				   r->tick >= e->lim_tick)) {
		start = dft_now() - (dns + 500) / 1000;
		if (start < e->iv || start - e->iv >= G.interval_us) {
			agg_flush(t, e);
		} else {
			e->anc_us = start;
			e->anc_tick = r->tick;
			e->lim_tick = r->tick + dft_ns_ticks(
				(e->iv + G.interval_us - start) * 1000);
		}
	}
	if (DFT_UNLIKELY(!e->cnt)) {
		dft_tick_anchor();
		start = dft_now() - (dns + 500) / 1000;
		e->iv = start - start % G.interval_us;
		e->first = e->anc_us = start;
		e->anc_tick = r->tick;
		e->lim_tick = r->tick + dft_ns_ticks(
			(e->iv + G.interval_us - start) * 1000);
		e->dmin = e->dmax = dns;
		e->dsum = 0;
	}
	fnstat_count(e, dns);
}

/* a complete event was written: count it and its own time (its duration
 * less that of the traced functions it called), throttle past the limit
 * when most calls were short */
void fn_count(struct dft_thread *t, struct dft_region *r, uint64_t dur)
{
	struct dft_fnstat *e = fn_at(t, r->slot, r->fhash);
	uint64_t own;

	if (!e)
		return;
	own = dur > r->kids ? dur - r->kids : 0;
	/* where it is, for the aggregated I/O it will enclose (ioagg.c) */
	if (DFT_UNLIKELY(!e->loc) && r->alen) {
		/* "" when it has none: looked for once */
		e->loc = dft_loc_of(r->args, r->alen, 0);
		e->ploc = dft_loc_of(r->args, r->alen, 1);
		if (!e->loc)
			e->loc = e->ploc = "";
	}
	e->calls++;
	e->dur_sum += own;
	e->shorts += own < G.throttle_us;
	/* most calls short (the median own time under the limit), not the
	 * mean: one call the scheduler took the CPU from for 20 ms would
	 * keep a 1 us function unthrottled for 20,000 more calls */
	if (dft_throttle_due(e)) {
		e->throttled = 1;
		rt_msg(LOG_INFO, "throttled %s (%s): %llu calls, own time "
		       "%.1f us a call",
		       e->name, e->cat, (unsigned long long)e->calls,
		       (double)e->dur_sum / (double)e->calls);
	}
}
