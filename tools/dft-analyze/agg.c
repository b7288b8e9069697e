/*
 * agg.c - one streaming pass over a trace file into a mergeable aggregate.
 *
 * Per file, keys are first made from the raw hashes the events carry (the
 * FH/HH lines that name them may come later in the file), then the whole
 * file-local aggregate is folded into the caller's aggregate with every
 * hash translated to its name. Memory is bounded by the number of distinct
 * keys (functions, files, processes, threads, time bins), not by events:
 * the per-thread list of I/O requests not yet enclosed by an application
 * event is compacted when it grows and, beyond PEND_MAX entries, its
 * oldest half is folded into one bundle of sums per file and class.
 *
 * One pass may cover several files: the chunks of one split trace, read
 * as one stream (agg_trace's next callback), share this state.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "analyze.h"

const struct map_def map_defs[M_N] = {
	[M_CAT] = { "cat", 3, 0, "S" },
	[M_FUNC] = { "func", 6, 0, "S" },
	[M_FILE] = { "file", S_NF, 0, "F" },
	[M_FILEX] = { "filex", 2, 1, "F" },
	[M_FILEPROC] = { "fileproc", FP_NF, 0, "FP" },
	[M_PROC] = { "proc", S_NF, 0, "P" },
	[M_THREAD] = { "thread", 1, 0, "T" },
	[M_HOST] = { "host", 1, 0, "H" },
	[M_BIN] = { "bin", S_NF, 0, "S" },
	[M_BINPROC] = { "binproc", 1, 0, "SP" },
	[M_BINFILE] = { "binfile", 1, 0, "SF" },
	[M_LAYERTHR] = { "layerthr", 1, 0, "ST" },
	[M_EPOCH] = { "epoch", 1, 0, "ST" },
	[M_ATTR_F] = { "attr_file", ATTR_NF, 0, "SF" },
	[M_ATTR_P] = { "attr_proc", ATTR_NF, 0, "SP" },
	[M_IFACE] = { "iface", 3, 0, "S" },
	[M_PROCT] = { "proct", 2, 1, "P" },
	[M_PROCIO] = { "procio", 1, 0, "P" },
	[M_FILEPROCT] = { "fileproct", 2, 1, "FP" },
	[M_LOOP] = { "loop", 5, 0, "ST" },
	[M_MPIFILE] = { "mpifile", MF_NF, 0, "F" },
	[M_MPIFILEPROC] = { "mpifileproc", 1, 0, "FP" },
	[M_MPIGAP] = { "mpigap", 1, 0, "P" },
	[M_MPICB] = { "mpicb", 1, 1, "FH" },
	[M_DURH] = { "durh", 2 * NDB, 0, "SS" },
	[M_SLOW] = { "slow", SL_NF, 1, "SSPFSTS" },
	[M_FILEC] = { "filec", 5, 0, "F" },
	[M_FILECM] = { "filecm", 3, 1, "F" },
	[M_PROCEND] = { "procend", 2, 1, "P" },
	[M_PROCSIG] = { "procsig", 2, 1, "PS" },
};

const char *const ioc_name[IOC_N] = {
	"read", "write", "metadata", "sync", "other"
};
const char *const bin_label[NBINS] = {
	"<4KiB", "4KiB-16KiB", "16KiB-64KiB", "64KiB-256KiB", "256KiB-1MiB",
	"1MiB-4MiB", "4MiB-16MiB", "16MiB-64MiB", ">64MiB"
};

int
size_bin(int64_t b)
{
	int64_t lim = 4096;

	for (int i = 0; i < NBINS - 1; i++, lim *= 4)
		if (b < lim)
			return i;
	return NBINS - 1;
}

void
agg_init(struct agg *a)
{
	memset(a, 0, sizeof(*a));
	a->g[G_TS_MIN] = INT64_MAX;
	a->g[G_TS_MAX] = INT64_MIN;
	for (int i = 0; i < M_N; i++)
		dft_tmap_init(&a->m[i], sizeof(int64_t) * map_defs[i].nf);
}

void
agg_release(struct agg *a)
{
	for (int i = 0; i < M_N; i++)
		dft_tmap_release(&a->m[i]);
}

static void sum_io(int64_t *s, int ioc, int64_t n, int64_t dur,
		   int64_t bytes, uint32_t mask, int stdio, int hbin);

/*
 * The cap of a M_DURH group's stalls in us, or -1 when it has none: a
 * call is a stall when it takes at least stall_factor (a power of two)
 * times the upper edge of the median bucket of its call name and class
 * over the whole run, and such calls are rare there (at most one in 64,
 * at most SLOW_K): one call of many that was held up (a preemption, steal
 * time), not slow calls that the program makes again (one first write
 * per rank, cold reads beside cached ones).
 *
 * A group of 16 to 63 calls has too few calls for one in 64; there a stall
 * must also be far out (every call over the cap at least stall_factor
 * times the cap again, no tail of slowish calls) and at most one in 16.
 * Those are tinyxml2's groups: fopens of 4.4 and 24 ms among 35 of ~10 us,
 * on a loaded machine, made a critical metadata finding that the next run
 * did not have.
 */
static int64_t
stall_cap(const int64_t *h)
{
	int64_t n = 0, cum = 0, above = 0, far = 0;
	int m, lf = 0;

	for (int b = 0; b < NDB; b++)
		n += h[2 * b];
	if (n < 16 || thr[T_STALL_FACTOR] < 2)
		return -1;
	while (lf < NDB && (double)((int64_t)2 << lf) <= thr[T_STALL_FACTOR])
		lf++;
	for (m = 0; m < NDB - 1; m++) {
		cum += h[2 * m];
		if (2 * cum >= n)
			break;
	}
	int cb = m + 1 + lf;

	if (cb >= NDB)
		return -1;
	for (int b = cb; b < NDB; b++) {
		above += h[2 * b];
		if (b >= cb + lf)
			far += h[2 * b];
	}
	if (above == 0 || above > SLOW_K)
		return -1;
	if (n >= 64 ? 64 * above > n : far < above || 16 * above > n)
		return -1;
	return (int64_t)1 << cb;
}

/* The judged rows without the stalls' time beyond their cap. */
static void
stall_apply(struct agg *a)
{
	struct dft_tmap *sl = &a->m[M_SLOW];
	struct dft_buf k2;
	int64_t al = (int64_t)thr[T_FILE_ALIGNMENT];

	dft_buf_init(&k2);
	for (size_t i = 0; i < sl->count; i++) {
		size_t kn;
		const char *k = dft_tmap_key(sl, i, &kn), *p[8];
		size_t pn[7];
		const int64_t *v = dft_tmap_value(sl, i);
		int np = 0;

		p[0] = k;
		for (const char *q = k; q < k + kn && np < 7; q++)
			if (*q == '\x1e') {
				pn[np] = (size_t)(q - p[np]);
				p[++np] = q + 1;
			}
		if (np != 6)
			continue;
		pn[6] = kn - (size_t)(p[6] - k);
		const int64_t *h = dft_tmap_get(&a->m[M_DURH], k,
						(size_t)(p[2] - 1 - k), 0,
						NULL);
		int64_t cap = h != NULL ? stall_cap(h) : -1;

		if (cap < 0 || v[SL_DUR] < cap)
			continue;
		int64_t e = v[SL_DUR] - cap;
		int ioc = (int)v[SL_IOC], hb = (int)v[SL_HBIN] - 1;
		uint32_t mask = (uint32_t)v[SL_MASK];
		int64_t b = v[SL_BYTES];
		int page = (mask & (1u << C_MISAL)) && al > 0 && b >= al &&
			   b % al == 0;
		int64_t *rows[4] = {
			a->g + G_IO_S,
			pn[3] > 0 ? dft_tmap_get(&a->m[M_FILE], p[3], pn[3], 0,
						 NULL) : NULL,
			dft_tmap_get(&a->m[M_PROC], p[2], pn[2], 0, NULL),
			dft_tmap_get(&a->m[M_BIN], p[4], pn[4], 0, NULL),
		};

		for (int r = 0; r < 4; r++) {
			if (rows[r] == NULL)
				continue;
			sum_io(rows[r], ioc, 0, -e, 0, mask, (int)v[SL_STDIO],
			       hb);
			if (page)
				rows[r][S_MISAL_PAGE_T] -= e;
		}
		dft_buf_reset(&k2);
		dft_buf_add(&k2, p[3], pn[3]);
		dft_buf_addc(&k2, '\x1e');
		dft_buf_add(&k2, p[2], pn[2]);
		int64_t *fp = pn[3] > 0 ? dft_tmap_get(&a->m[M_FILEPROC], k2.s,
						       k2.len, 0, NULL) : NULL;

		if (fp != NULL) {
			int x = (int)v[SL_FPM] - 1;

			fp[1] -= e;
			if (x >= 0)
				fp[x + 1] -= e;
			if (x >= 0 && x != FPM_META)
				fp[FPM_META + 1] -= e;
		}
		a->stall_n++;
		a->stall_t += e;
	}
	dft_buf_release(&k2);
}

void
agg_finalize(struct agg *a)
{
	for (int f = 0; f < LF_NF; f++)
		a->layer[L_OTHER_POSIX][f] = a->layer[L_POSIX][f] -
			a->layer[L_READER_POSIX][f] - a->layer[L_CKPT_POSIX][f];
	memcpy(a->io_raw, a->g + G_IO_S, sizeof(a->io_raw));
	a->stall_n = a->stall_t = 0;
	stall_apply(a);
}

int64_t *
agg_row(struct agg *a, int map, const char *k, size_t n)
{
	return dft_tmap_get(&a->m[map], k, n, 1, NULL);
}

static void
row_add(int64_t *d, const int64_t *s, int nf, int max)
{
	for (int i = 0; i < nf; i++) {
		if (max)
			d[i] = s[i] > d[i] ? s[i] : d[i];
		else
			d[i] += s[i];
	}
}

void
agg_merge(struct agg *dst, const struct agg *src)
{
	for (int i = 0; i < G_NF; i++) {
		if (i == G_TS_MIN)
			dst->g[i] = src->g[i] < dst->g[i] ? src->g[i] : dst->g[i];
		else if (i == G_TS_MAX)
			dst->g[i] = src->g[i] > dst->g[i] ? src->g[i] : dst->g[i];
		else
			dst->g[i] += src->g[i];
	}
	for (int l = 0; l < L_N; l++)
		for (int f = 0; f < LF_NF; f++)
			dst->layer[l][f] += src->layer[l][f];
	for (int i = 0; i < M_N; i++) {
		const struct dft_tmap *m = &src->m[i];

		for (size_t j = 0; j < m->count; j++) {
			size_t kn;
			const char *k = dft_tmap_key(m, j, &kn);

			row_add(agg_row(dst, i, k, kn), dft_tmap_value(m, j),
				map_defs[i].nf, map_defs[i].max);
		}
	}
}

/* ---- function names ------------------------------------------------------ */

static int
name_in(const char *n, size_t len, const char *const *list)
{
	for (; *list != NULL; list++)
		if (strlen(*list) == len && memcmp(*list, n, len) == 0)
			return 1;
	return 0;
}

static int
cat_is(const char *c, size_t n, const char *lit)
{
	return strlen(lit) == n && strncasecmp(c, lit, n) == 0;
}

static int
contains(const char *s, size_t n, const char *lit)
{
	size_t ln = strlen(lit);

	for (size_t i = 0; i + ln <= n; i++)
		if (memcmp(s + i, lit, ln) == 0)
			return 1;
	return 0;
}

static const char *const rd_names[] = {
	"read", "pread", "pread64", "preadv", "preadv2", "readv", "fread",
	"fread_unlocked", NULL
};
static const char *const wr_names[] = {
	"write", "pwrite", "pwrite64", "pwritev", "pwritev2", "writev",
	"fwrite", "fwrite_unlocked", NULL
};
static const char *const sync_names[] = {
	"fsync", "fdatasync", "msync", "sync", "fflush", NULL
};
static const char *const meta_names[] = {
	"open", "open64", "openat", "openat64", "creat", "creat64", "close",
	"fopen", "fopen64", "fclose", "fdopen", "lseek", "lseek64", "fseek",
	"fseeko", "fseeko64", "ftell", "ftello", "stat", "stat64", "lstat",
	"lstat64", "fstat", "fstat64", "fstatat", "fstatat64", "newfstatat",
	"statx", "__xstat", "__xstat64", "__lxstat", "__lxstat64",
	"__fxstat", "__fxstat64", "__fxstatat", "__fxstatat64", "access",
	"faccessat", "fcntl", "ftruncate", "ftruncate64", "truncate",
	"truncate64", "link", "linkat", "unlink", "unlinkat", "mkdir",
	"mkdirat", "rmdir", "opendir", "fdopendir", "closedir", "readdir",
	"readdir64", "readlink", "readlinkat", "remove", "rename", "renameat",
	"seek", NULL
};
static const char *const remove_names[] = {
	"unlink", "unlinkat", "remove", "rename", "renameat", "renameat2",
	NULL
};
static const char *const truncate_names[] = {
	"truncate", "truncate64", "ftruncate", "ftruncate64", NULL
};
static const char *const positional[] = {
	"pread", "pread64", "preadv", "preadv2", "pwrite", "pwrite64",
	"pwritev", "pwritev2", NULL
};

/*
 * Classifies a (name, cat) pair: FN_* bits, and *ioc for I/O events.
 * I/O (the data layer) = categories POSIX and STDIO (any case); MPIIO and
 * HDF5 are layers of their own above it (mpiio.c); application = C_APP,
 * CPP_APP and every other category except the tracer's own (dftracer),
 * MPI and the service counters (sys, io, net).
 */
int
fn_kind(const char *name, size_t n, const char *cat, size_t cn, int *ioc)
{
	int k = 0;

	*ioc = IOC_NONE;
	if (cat_is(cat, cn, "mpiio") || cat_is(cat, cn, "hdf5"))
		return mpiio_kind(name, n, cat_is(cat, cn, "hdf5"), ioc);
	if (cat_is(cat, cn, "posix") || cat_is(cat, cn, "stdio")) {
		k |= FN_IO;
		if (cat_is(cat, cn, "stdio"))
			k |= FN_STDIO;
		if (name_in(name, n, rd_names))
			*ioc = IOC_READ;
		else if (name_in(name, n, wr_names))
			*ioc = IOC_WRITE;
		else if (name_in(name, n, sync_names))
			*ioc = IOC_SYNC;
		else if (name_in(name, n, meta_names))
			*ioc = IOC_META;
		else
			*ioc = IOC_OTHER;
		if (*ioc == IOC_META && !contains(name, n, "dir")) {
			if (contains(name, n, "open") ||
			    contains(name, n, "creat"))
				k |= FN_OPEN;
			else if (contains(name, n, "close"))
				k |= FN_CLOSE;
			else if (contains(name, n, "seek") ||
				 contains(name, n, "tell"))
				k |= FN_SEEK;
			else if (contains(name, n, "stat"))
				k |= FN_STAT;
		}
		if (*ioc == IOC_META && contains(name, n, "dir"))
			k |= FN_DIRFN;
		if (name_in(name, n, remove_names))
			k |= FN_REMOVE;
		if (name_in(name, n, truncate_names))
			k |= FN_TRUNCATE;
		if (name_in(name, n, positional))
			k |= FN_POSITIONAL;
		if (n == 5 && (memcmp(name, "fread", 5) == 0 ||
			       memcmp(name, "fwrite", 5) == 0))
			k |= FN_ELEMENTS;
		if (n == 6 && memcmp(name, "fwrite", 6) == 0)
			k |= FN_ELEMENTS;
		if (contains(name, n, "fork") || contains(name, n, "spawn"))
			k |= FN_FORK;
		return k;
	}
	if (cat_is(cat, cn, "dftracer") || cat_is(cat, cn, "sys") ||
	    cat_is(cat, cn, "io") || cat_is(cat, cn, "net"))
		return 0;
	if (cat_is(cat, cn, "mpi"))
		return FN_MPI;
	return FN_APP;
}

/* ---- per-file state --------------------------------------------------- */

/* mask bits beyond the attribution classes */
enum { M_SEQ_R = 20, M_SEQ_W, M_CONS_R, M_CONS_W, M_PATH_LAYER, M_BUNDLE };

/* An I/O request (or a run of alike neighbours) no function claimed yet;
 * pidx its args.p_idx, PIDX_NONE when it has none (or a run's differ). */
#define PIDX_NONE INT64_MIN
struct pend {
	int64_t ts, end, dur, bytes;
	uint32_t mask, n, file, der;
	int64_t pidx;
};

/* Requests a thread holds pending at most (about 160 KiB): beyond, the
 * oldest half is folded into one bundle entry, p[0] with M_BUNDLE, that
 * keeps their sums per file and class, so memory stays bounded however
 * many requests wait for their function. A function then claims the
 * bundle whole or not at all. */
#define PEND_MAX 4096
struct bundle {
	int64_t lay[4][3];	/* read write meta other: n dur bytes */
	int64_t der[NDER][3];
	int has_lay;		/* some request outside a path layer */
	struct bfile {
		uint32_t file;
		int64_t v[ATTR_NF];
	} *f;
	size_t nf, capf;
};

struct thr {
	struct pend *p;
	size_t n, cap;
	uint32_t proc;		/* index in the local M_PROC */
	uint32_t idx;		/* index in c->thrs */
	int64_t *proc_row;
	char *key;		/* local thread key */
	size_t keyn;
	uint32_t layers_seen;
	int64_t last_bin;
	int64_t *bin_row;
	struct bundle *bun;	/* of p[0] when it has M_BUNDLE */
	int64_t *proct_row;	/* local M_PROCT */
	int64_t *procend_row;	/* local M_PROCEND */
	int64_t io_s, io_e;	/* the running union interval of its I/O */
	int64_t mpio_e;		/* end of its last MPI-IO call, when that
				 * was a blocking read or write */
	/* the gaps after its blocking MPI-IO data calls that an HDF5 call
	 * arriving later may still enclose (async_io), in time order */
	struct ival *gap;
	size_t ngap, capgap;
	/* the HDF5 calls that arrived since its last MPI-IO call, after the
	 * end of that call when it was a blocking read or write */
	struct iset h5open;
	struct loopst *loop;
};

/* A thread's position model of a file (its process's rows) */
struct posst {
	int64_t pos, end_r, end_w;
	int64_t *fp_row;	/* local M_FILEPROC row */
	int64_t *fpt_row;	/* local M_FILEPROCT row */
	struct iset *rd;	/* byte ranges read (redundant reads) */
	uint32_t fidx, proc;
	int64_t last_bin;
	int pathclass;		/* 0 other, 1 data, 2 checkpoint */
};

/*
 * A process's state of a file for its closes: whether it wrote to the
 * file since its last close or sync there (any of its threads), and its
 * last close that found it clean, in case the writes it flushed come
 * later in the trace (another thread's buffer written after).
 */
struct pfst {
	int dirty;
	int64_t un, udur;	/* that close: calls, time (0: none) */
	int64_t *urow[4];	/* its file, process and time-bin rows, and
				 * its function's M_FUNC row */
	int64_t *ufp;		/* its M_FILEPROC row */
};

/* the part an application event plays in a training loop */
enum { LP_NONE, LP_WAIT, LP_BODY, LP_COMPUTE, LP_EPOCH };

/* per thread: the loop's intervals (data-loader stall) */
struct loopst {
	struct iset wait, body, compute, epoch;
};

struct fninfo {
	int kind, ioc;
	int loop;		/* LP_* */
	int ckpt;		/* checkpoint function */
	uint32_t layers;	/* by name and category */
	int der_loader, der_reader;	/* derived slot or -1 */
	int64_t *func_row, *cat_row;
	char *fkey;		/* name \x1f cat (for attribution keys) */
	size_t fkeyn;
	struct stallc *sc;	/* I/O names: their stall groups by class */
	int life;		/* the tracer's start (1) or end (2) record */
};

struct filest {
	int64_t *row, *xrow;
	int64_t *crow;		/* M_FILEC, made at the first such call */
	int pathclass;
	uint32_t idx;		/* entry number in c->files and local M_FILE */
};

#define FN_CACHE 256

struct ctx {
	struct agg *loc;
	struct dft_trace *t;
	struct dft_tmap fns;	/* name \x1f cat -> fninfo */
	struct dft_tmap thrs;	/* thread key -> struct thr */
	struct dft_tmap files;	/* file key -> struct filest (index = M_FILE) */
	struct dft_tmap pos;	/* thread idx, file idx -> posst */
	struct dft_tmap pf;	/* process idx, file hash or name -> pfst */
	int64_t *iface[2];
	/* caches */
	struct thr *lt;
	int64_t lt_pid, lt_tid;
	struct dft_str lt_h;
	struct fninfo *fcache[FN_CACHE];
	struct filest *lfile;
	uint32_t lfile_idx;
	struct dft_str lfile_k;
	char *lfile_copy;
	char lfile_kind;
	unsigned long lfile_gen;
	struct posst *lpos;
	uint64_t lpos_key;
	int64_t bin_us;
	struct dft_buf kb;
	struct iset *pio;	/* per local process: union of I/O intervals */
	struct iset *mpio;	/* per local process: its MPI-IO intervals */
	size_t npio;
	size_t ilimit;		/* intervals_max */
	struct dft_tmap slow;	/* M_DURH group key -> struct slowgrp */
};

/* the slowest single calls of one M_DURH group in one stream */
struct slowc {
	char *key;		/* the M_SLOW key */
	size_t kn;
	int64_t v[SL_NF];
};
struct slowgrp {
	int n;
	int mi;			/* full: the slot of the fastest */
	struct slowc c[SLOW_K];
};
/* a call name's M_DURH row and stream's slowest calls, by class */
struct stallc {
	int64_t *durh[16];
	struct slowgrp *grp[16];
};

static int
ends_with(const char *s, size_t n, const char *lit)
{
	size_t ln = strlen(lit);

	return n >= ln && memcmp(s + n - ln, lit, ln) == 0;
}

/*
 * The part an application function plays in a training loop: the wait
 * for the next batch (`X.iter` of dftracer's iterator wrappers, not an
 * epoch iterator), the loop body (`X.yield`, `X.block`), compute (category
 * compute, or ai_framework named *compute*), or an epoch (DLIO's
 * DLIOBenchmark._train, the AI API's pipeline epoch and its loop body).
 */
static int
loop_role(const char *nm, size_t nn, const char *ct, size_t cn, int ckpt)
{
	int ep = contains(nm, nn, "epoch");

	if (ckpt)
		return LP_NONE;
	if ((nn == 20 && memcmp(nm, "DLIOBenchmark._train", 20) == 0) ||
	    (ep && (ends_with(nm, nn, ".block") || ends_with(nm, nn, ".yield")))
	    || (cat_is(ct, cn, "pipeline") && nn == 5 &&
		memcmp(nm, "epoch", 5) == 0))
		return LP_EPOCH;
	if (ep)
		return LP_NONE;
	if (ends_with(nm, nn, ".iter"))
		return LP_WAIT;
	if (ends_with(nm, nn, ".yield") || ends_with(nm, nn, ".block"))
		return LP_BODY;
	if (cat_is(ct, cn, "compute") ||
	    (cat_is(ct, cn, "ai_framework") && contains(nm, nn, "compute")))
		return LP_COMPUTE;
	return LP_NONE;
}

/* The first and the last w bytes (n >= w) of x and y agree, which is all
 * n of them when n <= 2 * w. */
static inline __attribute__((always_inline)) int
ends_same(const unsigned char *x, const unsigned char *y, size_t n, size_t w)
{
	uint64_t a = 0, b = 0, c = 0, d = 0;

	memcpy(&a, x, w);
	memcpy(&b, y, w);
	memcpy(&c, x + n - w, w);
	memcpy(&d, y + n - w, w);
	return ((a ^ b) | (c ^ d)) == 0;
}

/* memcmp(a, b, n) == 0 for the short keys of the per-event caches, without
 * a library call: two overlapping loads cover 4 to 16 bytes */
static inline int
same_bytes(const void *a, const void *b, size_t n)
{
	if (n >= 8 && n <= 16)
		return ends_same(a, b, n, 8);
	if (n >= 4 && n < 8)
		return ends_same(a, b, n, 4);
	return memcmp(a, b, n) == 0;
}

static unsigned
fn_slot(const struct dft_trace_ev *ev)
{
	unsigned h = (unsigned)ev->name.n * 31u + (unsigned)ev->cat.n * 131u;

	if (ev->name.n > 0)
		h += (unsigned char)ev->name.p[0] * 7u +
		     (unsigned char)ev->name.p[ev->name.n - 1] * 13u +
		     (unsigned char)ev->name.p[ev->name.n / 2] * 17u;
	if (ev->cat.n > 0)
		h += (unsigned char)ev->cat.p[0] * 3u;
	return h & (FN_CACHE - 1);
}

static struct fninfo *fn_lookup(struct ctx *c, const struct dft_trace_ev *ev,
				 unsigned slot) __attribute__((noinline));

/* The function of an event: the cache slot, else fn_lookup (kept apart so
 * that this part is inlined in the per-event path). */
static inline struct fninfo *
fn_get(struct ctx *c, const struct dft_trace_ev *ev)
{
	unsigned slot = fn_slot(ev);
	struct fninfo *cf = c->fcache[slot];

	if (cf != NULL && ev->name.n + 1 + ev->cat.n == cf->fkeyn &&
	    same_bytes(ev->name.p, cf->fkey, ev->name.n) &&
	    cf->fkey[ev->name.n] == '\x1f' &&
	    same_bytes(ev->cat.p, cf->fkey + ev->name.n + 1, ev->cat.n))
		return cf;
	return fn_lookup(c, ev, slot);
}

static struct fninfo *
fn_lookup(struct ctx *c, const struct dft_trace_ev *ev, unsigned slot)
{
	dft_buf_reset(&c->kb);
	dft_buf_add(&c->kb, ev->name.p, ev->name.n);
	dft_buf_addc(&c->kb, '\x1f');
	dft_buf_add(&c->kb, ev->cat.p, ev->cat.n);
	int is_new;
	struct fninfo *f = dft_tmap_get(&c->fns, c->kb.s, c->kb.len, 1,
					&is_new);

	if (is_new) {
		const char *nm = ev->name.p, *ct = ev->cat.p;
		size_t nn = ev->name.n, cn = ev->cat.n;

		f->kind = fn_kind(nm, nn, ct, cn, &f->ioc);
		f->func_row = agg_row(c->loc, M_FUNC, c->kb.s, c->kb.len);
		f->cat_row = agg_row(c->loc, M_CAT, ct, cn);
		f->fkey = dft_xmemdup0(c->kb.s, c->kb.len);
		f->fkeyn = c->kb.len;
		f->der_loader = f->der_reader = -1;
		if (cat_is(ct, cn, "dftracer") && nn == 5 &&
		    memcmp(nm, "start", 5) == 0)
			f->life = 1;
		else if (cat_is(ct, cn, "dftracer") && nn == 3 &&
			 memcmp(nm, "end", 3) == 0)
			f->life = 2;
		if (f->kind & FN_IO) {
			f->sc = dft_xcalloc(1, sizeof(*f->sc));
			f->layers |= 1u << L_POSIX;
			if (f->kind & FN_FORK)
				f->layers |= 1u << L_LOADER_FORK;
		} else if (f->kind & FN_APP) {
			int ckpt = contains(nm, nn, "checkpoint") ||
				   cat_is(ct, cn, "checkpoint");

			if (nn == 17 && memcmp(nm, "DLIOBenchmark.run", 17) == 0)
				f->layers |= 1u << L_APP;
			if (nn == 20 &&
			    memcmp(nm, "DLIOBenchmark._train", 20) == 0)
				f->layers |= 1u << L_TRAINING;
			if ((cat_is(ct, cn, "ai_framework") ||
			     cat_is(ct, cn, "compute")) && !ckpt)
				f->layers |= 1u << L_COMPUTE;
			if (nn > 5 && memcmp(nm + nn - 5, ".iter", 5) == 0)
				f->layers |= 1u << L_FETCH;
			if ((cat_is(ct, cn, "data_loader") ||
			     cat_is(ct, cn, "dataloader")) &&
			    !(nn == 9 && memcmp(nm, "loop.iter", 9) == 0) &&
			    !(nn == 10 && memcmp(nm, "loop.yield", 10) == 0)) {
				f->layers |= 1u << L_LOADER;
				if (contains(nm, nn, "__getitem__") ||
				    contains(nm, nn, "item"))
					f->der_loader = 1;
				else if (contains(nm, nn, "init"))
					f->der_loader = 0;
			}
			if (cat_is(ct, cn, "reader")) {
				f->layers |= 1u << L_READER;
				if (contains(nm, nn, "open"))
					f->der_reader = 0;
				else if (contains(nm, nn, "close"))
					f->der_reader = 1;
				else if (contains(nm, nn, "preprocess"))
					f->der_reader = 2;
				else if (contains(nm, nn, "sample"))
					f->der_reader = 3;
			}
			if (ckpt)
				f->layers |= 1u << L_CKPT;
			f->ckpt = ckpt;
			f->loop = loop_role(nm, nn, ct, cn, ckpt);
		}
	}
	c->fcache[slot] = f;
	return f;
}

static void
host_key(struct dft_buf *b, const struct dft_trace_ev *ev)
{
	if (ev->hhash.p != NULL) {
		dft_buf_addc(b, 'H');
		dft_buf_add(b, ev->hhash.p, ev->hhash.n);
	} else if (ev->hostname.p != NULL) {
		dft_buf_addc(b, 'N');
		dft_buf_add(b, ev->hostname.p, ev->hostname.n);
	} else {
		dft_buf_adds(b, "N");
	}
}

static struct thr *
thr_get(struct ctx *c, const struct dft_trace_ev *ev)
{
	const struct dft_str *h = ev->hhash.p ? &ev->hhash : &ev->hostname;

	if (c->lt != NULL && ev->pid == c->lt_pid && ev->tid == c->lt_tid &&
	    h->n == c->lt_h.n && (h->n == 0 ||
				  same_bytes(h->p, c->lt_h.p, h->n)))
		return c->lt;
	dft_buf_reset(&c->kb);
	host_key(&c->kb, ev);
	dft_buf_addf(&c->kb, "\x1f%lld", (long long)ev->pid);
	size_t plen = c->kb.len;

	dft_buf_addf(&c->kb, "\x1f%lld", (long long)ev->tid);
	int is_new;
	struct thr *th = dft_tmap_get(&c->thrs, c->kb.s, c->kb.len, 1,
				      &is_new);

	if (is_new) {
		th->key = dft_xmemdup0(c->kb.s, c->kb.len);
		th->keyn = c->kb.len;
		th->idx = (uint32_t)(c->thrs.count - 1);
		agg_row(c->loc, M_THREAD, c->kb.s, c->kb.len)[0] += 1;
		int pn;

		th->proc_row = dft_tmap_get(&c->loc->m[M_PROC], c->kb.s, plen,
					    1, &pn);
		th->proc = (uint32_t)(c->loc->m[M_PROC].count - 1);
		if (!pn) {
			/* find the index of an existing process */
			for (size_t i = 0; i < c->loc->m[M_PROC].count; i++)
				if (dft_tmap_value(&c->loc->m[M_PROC], i) ==
				    th->proc_row) {
					th->proc = (uint32_t)i;
					break;
				}
		}
		/* host */
		const char *sep = memchr(c->kb.s, '\x1f', c->kb.len);

		agg_row(c->loc, M_HOST, c->kb.s,
			(size_t)(sep - c->kb.s))[0] |= 1;
		th->last_bin = INT64_MIN;
		th->proct_row = agg_row(c->loc, M_PROCT, c->kb.s, plen);
		th->procend_row = agg_row(c->loc, M_PROCEND, c->kb.s, plen);
		th->io_s = th->io_e = th->mpio_e = INT64_MIN;
		if (th->proc >= c->npio) {
			size_t nn = th->proc + 1;

			c->pio = dft_xreallocarray(c->pio, nn, sizeof(*c->pio));
			c->mpio = dft_xreallocarray(c->mpio, nn,
						    sizeof(*c->mpio));
			for (size_t i = c->npio; i < nn; i++) {
				iset_init(&c->pio[i], c->ilimit);
				iset_init(&c->mpio[i], c->ilimit);
			}
			c->npio = nn;
		}
	}
	c->lt = th;
	c->lt_pid = ev->pid;
	c->lt_tid = ev->tid;
	/* the host slice is compared against the thread key copy */
	c->lt_h.p = th->key + 1;
	c->lt_h.n = h->n;
	return th;
}

static int
path_class(const char *p, size_t n)
{
	if (contains(p, n, "/checkpoint"))
		return 2;
	if (contains(p, n, "/data"))
		return 1;
	return 0;
}

static struct filest *
file_get(struct ctx *c, const struct dft_trace_ev *ev, uint32_t *idx)
{
	const struct dft_str *k = ev->fhash.p ? &ev->fhash : &ev->fname;
	char kind = ev->fhash.p ? 'F' : 'N';

	if (k->p == NULL)
		return NULL;
	if (c->lfile != NULL && k->n == c->lfile_k.n &&
	    c->lfile_kind == kind && c->lfile_gen == c->t->names_gen &&
	    same_bytes(k->p, c->lfile_k.p, k->n)) {
		*idx = c->lfile_idx;
		return c->lfile;
	}
	/* a hash whose FH line was seen is keyed by its name at once (some
	 * traces reuse a hash for another file later); others by the hash,
	 * named when the file ends */
	const struct dft_str *nm = NULL;

	if (kind == 'F')
		nm = dft_trace_lookup(c->t, 'F', k->p, k->n);
	dft_buf_reset(&c->kb);
	if (nm != NULL) {
		dft_buf_addc(&c->kb, 'N');
		dft_buf_add(&c->kb, nm->p, nm->n);
	} else {
		dft_buf_addc(&c->kb, kind);
		dft_buf_add(&c->kb, k->p, k->n);
	}
	int is_new;
	struct filest *f = dft_tmap_get(&c->files, c->kb.s, c->kb.len, 1,
					&is_new);

	if (is_new) {
		f->idx = (uint32_t)(c->files.count - 1);
		f->row = agg_row(c->loc, M_FILE, c->kb.s, c->kb.len);
		f->xrow = agg_row(c->loc, M_FILEX, c->kb.s, c->kb.len);
		f->pathclass = c->kb.s[0] == 'N' ?
			path_class(c->kb.s + 1, c->kb.len - 1) : 0;
	}
	free(c->lfile_copy);
	c->lfile_copy = dft_xmemdup0(k->p, k->n);
	c->lfile = f;
	c->lfile_idx = f->idx;
	c->lfile_k.p = c->lfile_copy;
	c->lfile_k.n = k->n;
	c->lfile_kind = kind;
	c->lfile_gen = c->t->names_gen;
	*idx = f->idx;
	return f;
}

static struct posst *
pos_get(struct ctx *c, struct thr *th, uint32_t fidx)
{
	uint64_t key = ((uint64_t)th->idx << 32) | fidx;

	if (c->lpos != NULL && c->lpos_key == key)
		return c->lpos;
	int is_new;
	struct posst *p = dft_tmap_get(&c->pos, (const char *)&key,
				       sizeof(key), 1, &is_new);

	if (is_new) {
		size_t fkn, pkn;
		const char *fk = dft_tmap_key(&c->loc->m[M_FILE], fidx, &fkn);
		const char *pk = dft_tmap_key(&c->loc->m[M_PROC], th->proc,
					      &pkn);

		dft_buf_reset(&c->kb);
		dft_buf_add(&c->kb, fk, fkn);
		dft_buf_addc(&c->kb, '\x1e');
		dft_buf_add(&c->kb, pk, pkn);
		p->fp_row = agg_row(c->loc, M_FILEPROC, c->kb.s, c->kb.len);
		p->fpt_row = agg_row(c->loc, M_FILEPROCT, c->kb.s, c->kb.len);
		p->last_bin = INT64_MIN;
		p->fidx = fidx;
		p->proc = th->proc;
	}
	c->lpos = p;
	c->lpos_key = key;
	return p;
}

static void
set_add(struct ctx *c, int map, const char *a, size_t an, const char *b,
	size_t bn)
{
	dft_buf_reset(&c->kb);
	dft_buf_add(&c->kb, a, an);
	dft_buf_addc(&c->kb, '\x1e');
	dft_buf_add(&c->kb, b, bn);
	agg_row(c->loc, map, c->kb.s, c->kb.len)[0] |= 1;
}

static void
sum_io(int64_t *s, int ioc, int64_t n, int64_t dur, int64_t bytes,
       uint32_t mask, int stdio, int hbin)
{
	s[S_N] += n;
	s[S_T] += dur;
	s[S_B] += bytes;
	switch (ioc) {
	case IOC_READ:
		s[S_RN] += n;
		s[S_RT] += dur;
		s[S_RB] += bytes;
		if (hbin >= 0)
			s[S_HIST_R + hbin] += n;
		break;
	case IOC_WRITE:
		s[S_WN] += n;
		s[S_WT] += dur;
		s[S_WB] += bytes;
		if (hbin >= 0)
			s[S_HIST_W + hbin] += n;
		break;
	case IOC_META:
		if (mask & (1u << C_FLUSH)) {
			s[S_FLUSH_N] += n;
			s[S_FLUSH_T] += dur;
		} else {
			s[S_MN] += n;
			s[S_MT] += dur;
		}
		break;
	case IOC_SYNC:
		s[S_YN] += n;
		s[S_YT] += dur;
		break;
	default:
		s[S_ON] += n;
		s[S_OT] += dur;
		break;
	}
	if (mask & (1u << C_SMALL_R)) {
		s[S_SMALL_R] += n;
		s[S_SMALL_RT] += dur;
		s[S_SMALL_RB] += bytes;
	}
	if (mask & (1u << C_SMALL_W)) {
		s[S_SMALL_W] += n;
		s[S_SMALL_WT] += dur;
		s[S_SMALL_WB] += bytes;
	}
	if (mask & ((1u << C_RAND_R) | (1u << C_RAND_W))) {
		s[S_RND_T] += dur;
		s[S_RND_B] += bytes;
	}
	if (mask & (1u << C_RAND_R))
		s[S_RND_RT] += dur;
	if ((mask & (1u << C_MISAL)) && ioc == IOC_READ)
		s[S_MISAL_RT] += dur;
	if (mask & (1u << C_MISAL)) {
		s[S_MISAL_T] += dur;
		s[S_MISAL_B] += bytes;
		/* whole pages at a shifted offset: aligning the start would
		 * make it whole-page I/O (odd sizes are misaligned by their
		 * size, not by their start) */
		int64_t al = (int64_t)thr[T_FILE_ALIGNMENT];

		if (al > 0 && bytes >= al && bytes % al == 0)
			s[S_MISAL_PAGE_T] += dur;
		if (mask & ((1u << C_SMALL_R) | (1u << C_SMALL_W)))
			s[S_MISAL_SMALL_T] += dur;
	}
	/* data requests that do not start where the previous one ended */
	if (hbin >= 0 && !(mask & ((1u << M_CONS_R) | (1u << M_CONS_W)))) {
		s[S_NONCONS_T] += dur;
		s[S_NONCONS_B] += bytes;
		if (mask & ((1u << C_SMALL_R) | (1u << C_SMALL_W)))
			s[S_SMALL_NONCONS_T] += dur;
	}
	if (mask & (1u << C_REREAD)) {
		s[S_REREAD_N] += n;
		s[S_REREAD_T] += dur;
		s[S_REREAD_B] += bytes;
	}
	if (mask & (1u << C_RAND_R))
		s[S_RND_R] += n;
	if (mask & (1u << C_RAND_W))
		s[S_RND_W] += n;
	if (mask & (1u << C_MISAL))
		s[S_MISAL] += n;
	if (mask & (1u << M_SEQ_R))
		s[S_SEQ_R] += n;
	if (mask & (1u << M_SEQ_W))
		s[S_SEQ_W] += n;
	if (mask & (1u << M_CONS_R))
		s[S_CONS_R] += n;
	if (mask & (1u << M_CONS_W))
		s[S_CONS_W] += n;
	if (stdio) {
		s[S_STDIO_N] += n;
		s[S_STDIO_B] += bytes;
		/* the data path's time: POSIX calls in their place would
		 * still open, close and stat the files (that time is the
		 * metadata finding's), not move the bytes or flush them */
		if (ioc != IOC_META || (mask & (1u << C_FLUSH)))
			s[S_STDIO_T] += dur;
	}
}

void
layer_add(struct agg *a, int l, int ioc, int64_t n, int64_t dur,
	  int64_t bytes)
{
	int64_t *r = a->layer[l];

	r[LF_N] += n;
	r[LF_T] += dur;
	r[LF_B] += bytes;
	if (ioc == IOC_READ) {
		r[LF_RN] += n;
		r[LF_RT] += dur;
		r[LF_RB] += bytes;
	} else if (ioc == IOC_WRITE) {
		r[LF_WN] += n;
		r[LF_WT] += dur;
		r[LF_WB] += bytes;
	} else if (ioc == IOC_META) {
		r[LF_MN] += n;
		r[LF_MT] += dur;
	}
}

void
der_add(struct agg *a, int l, int slot, int64_t n, int64_t dur, int64_t b)
{
	int64_t *r = a->layer[l] + LF_DER + 3 * slot;

	r[0] += n;
	r[1] += dur;
	r[2] += b;
}

/* posix derived slots: data read write metadata open close seek stat sync
 * other */
static void
posix_derived(struct agg *a, int l, const struct fninfo *f, int64_t n,
	      int64_t dur, int64_t b)
{
	if (f->ioc == IOC_READ || f->ioc == IOC_WRITE)
		der_add(a, l, 0, n, dur, b);
	if (f->ioc == IOC_READ)
		der_add(a, l, 1, n, dur, b);
	if (f->ioc == IOC_WRITE)
		der_add(a, l, 2, n, dur, b);
	if (f->ioc == IOC_META)
		der_add(a, l, 3, n, dur, b);
	if (f->kind & FN_OPEN)
		der_add(a, l, 4, n, dur, b);
	if (f->kind & FN_CLOSE)
		der_add(a, l, 5, n, dur, b);
	if (f->kind & FN_SEEK)
		der_add(a, l, 6, n, dur, b);
	if (f->kind & FN_STAT)
		der_add(a, l, 7, n, dur, b);
	if (f->ioc == IOC_SYNC)
		der_add(a, l, 8, n, dur, b);
	if (f->ioc == IOC_OTHER)
		der_add(a, l, 9, n, dur, b);
}

static uint32_t
posix_der_mask(const struct fninfo *f)
{
	uint32_t m = 0;

	if (f->ioc == IOC_READ || f->ioc == IOC_WRITE)
		m |= 1u << 0;
	if (f->ioc == IOC_READ)
		m |= 1u << 1;
	if (f->ioc == IOC_WRITE)
		m |= 1u << 2;
	if (f->ioc == IOC_META)
		m |= 1u << 3;
	if (f->kind & FN_OPEN)
		m |= 1u << 4;
	if (f->kind & FN_CLOSE)
		m |= 1u << 5;
	if (f->kind & FN_SEEK)
		m |= 1u << 6;
	if (f->kind & FN_STAT)
		m |= 1u << 7;
	if (f->ioc == IOC_SYNC)
		m |= 1u << 8;
	if (f->ioc == IOC_OTHER)
		m |= 1u << 9;
	return m;
}

static void
thr_layer_seen(struct ctx *c, struct thr *th, int l)
{
	if (th->layers_seen & (1u << l))
		return;
	th->layers_seen |= 1u << l;
	set_add(c, M_LAYERTHR, layer_defs[l].name, strlen(layer_defs[l].name),
		th->key, th->keyn);
}

/* ---- attribution -------------------------------------------------------- */

static void
attr_add(int64_t *row, uint32_t mask, int64_t n, int64_t dur)
{
	/* the set bits only, lowest first */
	for (uint32_t m = mask & ((1u << C_N) - 1); m != 0; m &= m - 1) {
		int k = __builtin_ctz(m);

		row[2 * k] += n;
		row[2 * k + 1] += dur;
	}
}

/* The layer class of a request: read, write, meta, other. */
static int
pend_ioc(uint32_t mask)
{
	return mask & (1u << C_READ) ? IOC_READ :
	       mask & (1u << C_WRITE) ? IOC_WRITE :
	       mask & ((1u << C_META) | (1u << C_FLUSH)) ? IOC_META :
	       IOC_OTHER;
}

static void
bundle_add(struct bundle *b, const struct pend *p)
{
	size_t i;

	for (i = 0; i < b->nf && b->f[i].file != p->file; i++)
		;
	if (i == b->nf) {
		if (b->nf == b->capf) {
			b->capf = b->capf ? 2 * b->capf : 4;
			b->f = dft_xreallocarray(b->f, b->capf, sizeof(*b->f));
		}
		memset(&b->f[i], 0, sizeof(b->f[i]));
		b->f[i].file = p->file;
		b->nf++;
	}
	attr_add(b->f[i].v, p->mask, p->n, p->dur);
	if (p->mask & (1u << M_PATH_LAYER))
		return;
	int64_t *l = b->lay[pend_ioc(p->mask) == IOC_OTHER ? 3 :
			    pend_ioc(p->mask)];

	l[0] += p->n;
	l[1] += p->dur;
	l[2] += p->bytes;
	for (int k = 0; k < NDER; k++) {
		if (p->der & (1u << k)) {
			b->der[k][0] += p->n;
			b->der[k][1] += p->dur;
			b->der[k][2] += p->bytes;
		}
	}
	b->has_lay = 1;
}

/* Folds th->p[0..h) into the bundle entry p[0]. */
static void
bundle_fold(struct thr *th, size_t h)
{
	struct pend *p = th->p;
	size_t from = 0;

	if (th->bun == NULL)
		th->bun = dft_xcalloc(1, sizeof(*th->bun));
	struct bundle *b = th->bun;
	struct pend acc = p[0];

	if (p[0].mask & (1u << M_BUNDLE)) {
		from = 1;
	} else {
		struct bfile *f = b->f;
		size_t capf = b->capf;

		memset(b, 0, sizeof(*b));
		b->f = f;
		b->capf = capf;
		acc.n = 0;
		acc.dur = acc.bytes = 0;
	}
	for (size_t i = from; i < h; i++) {
		bundle_add(b, &p[i]);
		acc.n += p[i].n;
		acc.dur += p[i].dur;
		acc.bytes += p[i].bytes;
		if (p[i].end > acc.end)
			acc.end = p[i].end;
	}
	acc.mask = 1u << M_BUNDLE;
	acc.file = UINT32_MAX;
	acc.der = 0;
	acc.pidx = PIDX_NONE;
	p[0] = acc;
	memmove(p + 1, p + h, (th->n - h) * sizeof(*p));
	th->n = th->n - h + 1;
}

/* Adds a vector of attributed requests to func \x1e key (file or proc). */
static void
attr_flush(struct ctx *c, int map, const char *fk, size_t fkn, const char *k,
	   size_t kn, const int64_t *vec)
{
	dft_buf_reset(&c->kb);
	dft_buf_add(&c->kb, fk, fkn);
	dft_buf_addc(&c->kb, '\x1e');
	if (kn > 0)
		dft_buf_add(&c->kb, k, kn);
	int64_t *row = agg_row(c->loc, map, c->kb.s ? c->kb.s : "", c->kb.len);

	for (int i = 0; i < ATTR_NF; i++)
		row[i] += vec[i];
}

static const char *
file_key_of(struct ctx *c, uint32_t file, size_t *kn)
{
	if (file == UINT32_MAX) {
		*kn = 0;
		return "";
	}
	return dft_tmap_key(&c->loc->m[M_FILE], file, kn);
}

/* Charges the requests p[0..n) of thread th to function key fk: one
 * table row per file run and one for the process. */
static void
attribute_run(struct ctx *c, struct thr *th, const char *fk, size_t fkn,
	      const struct pend *p, size_t n)
{
	int64_t vf[ATTR_NF], vp[ATTR_NF];
	uint32_t cur = UINT32_MAX;
	int have = 0, any = 0;
	size_t kn;
	const char *k;

	memset(vp, 0, sizeof(vp));
	for (size_t i = 0; i < n; i++) {
		if (p[i].mask & (1u << M_BUNDLE)) {
			const struct bundle *b = th->bun;

			if (have) {
				k = file_key_of(c, cur, &kn);
				attr_flush(c, M_ATTR_F, fk, fkn, k, kn, vf);
				have = 0;
			}
			for (size_t j = 0; j < b->nf; j++) {
				k = file_key_of(c, b->f[j].file, &kn);
				attr_flush(c, M_ATTR_F, fk, fkn, k, kn,
					   b->f[j].v);
				for (int x = 0; x < ATTR_NF; x++)
					vp[x] += b->f[j].v[x];
			}
			any = 1;
			continue;
		}
		if (!have || p[i].file != cur) {
			if (have) {
				k = file_key_of(c, cur, &kn);
				attr_flush(c, M_ATTR_F, fk, fkn, k, kn, vf);
			}
			memset(vf, 0, sizeof(vf));
			cur = p[i].file;
			have = 1;
		}
		attr_add(vf, p[i].mask, p[i].n, p[i].dur);
		attr_add(vp, p[i].mask, p[i].n, p[i].dur);
		any = 1;
	}
	if (!any)
		return;
	if (have) {
		k = file_key_of(c, cur, &kn);
		attr_flush(c, M_ATTR_F, fk, fkn, k, kn, vf);
	}
	k = dft_tmap_key(&c->loc->m[M_PROC], th->proc, &kn);
	attr_flush(c, M_ATTR_P, fk, fkn, k, kn, vp);
}

/* The function key: name \x1f cat \x1f source file \x1f source line. */
static void
func_key(struct dft_buf *b, const struct dft_trace_ev *ev,
	 const struct fninfo *f)
{
	dft_buf_reset(b);
	dft_buf_add(b, f->fkey, f->fkeyn);
	dft_buf_addc(b, '\x1f');
	if (ev->src_file.p != NULL)
		dft_buf_add(b, ev->src_file.p, ev->src_file.n);
	dft_buf_addc(b, '\x1f');
	if (ev->has & DFT_EV_SRC_LINE)
		dft_buf_addf(b, "%lld", (long long)ev->src_line);
}

/*
 * Function ev claims the requests pending on its thread that began at or
 * after it (it is written after its children). Where the times cannot
 * tell, the ids do: a tracer gives each event its id from one counter no
 * later than the events inside it are written, and a request's p_idx is
 * the id of the event around it, so a request inside ev has a p_idx of at
 * least ev's id (ev's own, or that of an event inside ev: an MPI-IO or
 * HDF5 call), and one before ev (a sibling, a call of an enclosing
 * function) a smaller one. That keeps a request that ended in the
 * microsecond ev began in, or before the start of a folded call whose
 * time the runtime rounded down, with the function it belongs to.
 */
static void
app_event(struct ctx *c, struct thr *th, const struct dft_trace_ev *ev,
	  const struct fninfo *f, int64_t dur)
{
	if (th->n == 0 || th->p[th->n - 1].ts < ev->ts)
		return;
	struct dft_buf fk;
	int64_t id = ev->has & DFT_EV_ID ? ev->id : PIDX_NONE;

	dft_buf_init(&fk);
	func_key(&fk, ev, f);
	size_t top = th->n;

	while (th->n > 0 && th->p[th->n - 1].ts >= ev->ts) {
		struct pend *p = &th->p[th->n - 1];

		if (id != PIDX_NONE && p->pidx != PIDX_NONE && p->pidx < id)
			break;

		/* a compacted run that started before the function: keep
		 * it for an outer function when most of it lies outside */
		if (p->n > 1 && p->end > ev->ts + dur &&
		    (p->ts + p->end) / 2 > ev->ts + dur)
			break;
		int l = (f->layers & (1u << L_READER)) ? L_READER_POSIX :
			(f->layers & (1u << L_CKPT)) ? L_CKPT_POSIX : -1;

		if (l >= 0 && (p->mask & (1u << M_BUNDLE))) {
			const struct bundle *b = th->bun;
			static const int cls[4] = { IOC_READ, IOC_WRITE,
						    IOC_META, IOC_OTHER };

			for (int k = 0; k < 4; k++)
				if (b->lay[k][0] > 0 || b->lay[k][1] > 0)
					layer_add(c->loc, l, cls[k],
						  b->lay[k][0], b->lay[k][1],
						  b->lay[k][2]);
			for (int k = 0; k < NDER; k++)
				if (b->der[k][0] > 0 || b->der[k][1] > 0)
					der_add(c->loc, l, k, b->der[k][0],
						b->der[k][1], b->der[k][2]);
			if (b->has_lay)
				thr_layer_seen(c, th, l);
		} else if (l >= 0 && !(p->mask & (1u << M_PATH_LAYER))) {
			/* POSIX under a reader or checkpoint function */
			int ioc = pend_ioc(p->mask);

			layer_add(c->loc, l, ioc, p->n, p->dur, p->bytes);
			for (int k = 0; k < NDER; k++)
				if (p->der & (1u << k))
					der_add(c->loc, l, k, p->n, p->dur,
						p->bytes);
			thr_layer_seen(c, th, l);
		}
		if (f->ckpt)
			p->mask |= 1u << C_CKPT;
		th->n--;
	}
	attribute_run(c, th, fk.s, fk.len, th->p + th->n, top - th->n);
	dft_buf_release(&fk);
}

static void
bundle_free(struct bundle *b)
{
	if (b != NULL)
		free(b->f);
	free(b);
}

static void
pend_push(struct thr *th, const struct pend *p)
{
	if (th->n == th->cap) {
		/* compact: merge neighbours of the same kind and file */
		size_t w = 0;

		for (size_t r = 0; r < th->n; r++) {
			if (w > 0 && th->p[w - 1].mask == th->p[r].mask &&
			    th->p[w - 1].file == th->p[r].file &&
			    th->p[w - 1].der == th->p[r].der) {
				th->p[w - 1].n += th->p[r].n;
				th->p[w - 1].dur += th->p[r].dur;
				th->p[w - 1].bytes += th->p[r].bytes;
				if (th->p[r].end > th->p[w - 1].end)
					th->p[w - 1].end = th->p[r].end;
				if (th->p[r].pidx != th->p[w - 1].pidx)
					th->p[w - 1].pidx = PIDX_NONE;
			} else {
				th->p[w++] = th->p[r];
			}
		}
		th->n = w;
		if (th->cap >= PEND_MAX && th->n * 4 > th->cap * 3) {
			bundle_fold(th, th->n / 2);
		} else if (th->n * 4 > th->cap * 3 || th->cap == 0) {
			th->cap = th->cap ? th->cap * 2 : 256;
			th->p = dft_xreallocarray(th->p, th->cap,
						  sizeof(*th->p));
		}
	}
	th->p[th->n++] = *p;
}

/* ---- one event ------------------------------------------------------------ */

/*
 * The rest of an aggregated I/O record (dft(7)): its calls, one thread's,
 * never overlap, so they add their time to the process's I/O union (not an
 * interval from the first start: calls of other records fall in between),
 * and it names the function that enclosed them, which gets them as its
 * own I/O (the record is written after that function's events, so the
 * time order that attributes a complete call does not hold for it).
 */
static void
aggio_rest(struct ctx *c, struct thr *th, const struct dft_trace_ev *ev,
	   uint32_t fidx, uint32_t mask, const struct fninfo *f, int64_t n,
	   int64_t dur, int64_t bytes)
{
	static const char nf[] = "(no enclosing function)\x1f\x1f\x1f";
	int64_t vec[ATTR_NF];
	size_t kn, pkn;
	const char *k = file_key_of(c, fidx, &kn);
	const char *pk = dft_tmap_key(&c->loc->m[M_PROC], th->proc, &pkn);
	struct dft_buf fk;

	(void)f;
	(void)bytes;
	agg_row(c->loc, M_PROCIO, pk, pkn)[0] += dur;
	memset(vec, 0, sizeof(vec));
	attr_add(vec, mask, n, dur);
	dft_buf_init(&fk);
	if (ev->parent.p != NULL) {
		dft_buf_add(&fk, ev->parent.p, ev->parent.n);
		dft_buf_addc(&fk, '\x1f');
		if (ev->pcat.p != NULL)
			dft_buf_add(&fk, ev->pcat.p, ev->pcat.n);
		dft_buf_addc(&fk, '\x1f');
		if (ev->pfile.p != NULL)
			dft_buf_add(&fk, ev->pfile.p, ev->pfile.n);
		dft_buf_addc(&fk, '\x1f');
		if (ev->has & DFT_EV_PLINE)
			dft_buf_addf(&fk, "%lld", (long long)ev->pline);
	} else {
		dft_buf_add(&fk, nf, sizeof(nf) - 1);
		c->loc->g[G_UNATTR_T] += dur;
	}
	attr_flush(c, M_ATTR_F, fk.s, fk.len, k, kn, vec);
	attr_flush(c, M_ATTR_P, fk.s, fk.len, pk, pkn, vec);
	dft_buf_release(&fk);
}

/* ---- stalls ------------------------------------------------------------ */

/* The duration bucket of a call of d us: [2^b, 2^(b+1)), 0 for [0, 2). */
static int
dbucket(int64_t d)
{
	int b = d >= 2 ? 63 - __builtin_clzll((unsigned long long)d) : 0;

	return b < NDB ? b : NDB - 1;
}

/*
 * Notes one I/O event for the stall judgement (agg_finalize): its calls
 * in the duration histogram of its process, call name and class, and a
 * single call among the SLOW_K slowest of that group in this stream, with
 * what its rows need to take its time out again.
 */
static void
stall_note(struct ctx *c, struct thr *th, const struct dft_trace_ev *ev,
	   const struct fninfo *f, int64_t n, int64_t dur, int64_t bytes,
	   int ioc, uint32_t mask, int hbin, uint32_t fidx, int64_t bin,
	   int agg_ev)
{
	size_t pkn;
	const char *pk;

	if (n <= 0 || dur < 0 || f->sc == NULL ||
	    (ioc != IOC_READ && ioc != IOC_WRITE && ioc != IOC_META &&
	     ioc != IOC_SYNC))
		return;
	int cls = ioc * 4 + ((mask & ((1u << C_SMALL_R) |
				       (1u << C_SMALL_W))) ? 2 : 0) +
		  ((mask & (1u << C_FLUSH)) ? 1 : 0);
	struct stallc *sc = f->sc;

	if (sc->durh[cls] == NULL) {
		dft_buf_reset(&c->kb);
		dft_buf_add(&c->kb, ev->name.p, ev->name.n);
		dft_buf_addc(&c->kb, '\x1e');
		dft_buf_addc(&c->kb, (char)('a' + cls));
		sc->durh[cls] = agg_row(c->loc, M_DURH, c->kb.s, c->kb.len);
		sc->grp[cls] = dft_tmap_get(&c->slow, c->kb.s, c->kb.len, 1,
					    NULL);
	}
	int64_t *h = sc->durh[cls];
	int b = dbucket(dur / n);

	h[2 * b] += n;
	h[2 * b + 1] += dur;
	if (agg_ev || n != 1)
		return;
	struct slowgrp *g = sc->grp[cls];
	int slot;

	if (g->n < SLOW_K) {
		slot = g->n++;
	} else {
		if (dur <= g->c[g->mi].v[SL_DUR])
			return;
		slot = g->mi;
		free(g->c[slot].key);
	}
	dft_buf_reset(&c->kb);
	dft_buf_add(&c->kb, ev->name.p, ev->name.n);
	dft_buf_addc(&c->kb, '\x1e');
	dft_buf_addc(&c->kb, (char)('a' + cls));
	struct slowc *sl = &g->c[slot];
	size_t fkn = 0, tkn = th->keyn;
	const char *fk = fidx != UINT32_MAX ?
			 dft_tmap_key(&c->loc->m[M_FILE], fidx, &fkn) : "";

	pk = dft_tmap_key(&c->loc->m[M_PROC], th->proc, &pkn);
	dft_buf_addc(&c->kb, '\x1e');
	dft_buf_add(&c->kb, pk, pkn);
	dft_buf_addc(&c->kb, '\x1e');
	dft_buf_add(&c->kb, fk, fkn);
	dft_buf_addf(&c->kb, "\x1e%lld\x1e", (long long)bin);
	dft_buf_add(&c->kb, th->key, tkn);
	dft_buf_addf(&c->kb, "\x1e%lld", (long long)ev->ts);
	sl->key = dft_xmemdup0(c->kb.s, c->kb.len);
	sl->kn = c->kb.len;
	sl->v[SL_DUR] = dur;
	sl->v[SL_IOC] = ioc;
	sl->v[SL_MASK] = mask;
	sl->v[SL_BYTES] = bytes;
	sl->v[SL_HBIN] = hbin + 1;
	sl->v[SL_FPM] = !(mask & (1u << C_META)) ? 0 :
			f->kind & FN_OPEN ? FPM_OPEN + 1 :
			f->kind & FN_CLOSE ? FPM_CLOSE + 1 :
			f->kind & FN_STAT ? FPM_STAT + 1 :
			f->kind & FN_SEEK ? FPM_SEEK + 1 : FPM_META + 1;
	sl->v[SL_STDIO] = (f->kind & FN_STDIO) != 0;
	if (g->n == SLOW_K) {
		g->mi = 0;
		for (int i = 1; i < SLOW_K; i++)
			if (g->c[i].v[SL_DUR] < g->c[g->mi].v[SL_DUR])
				g->mi = i;
	}
}

/* The stream's slowest calls into its local M_SLOW. */
static void
stall_flush(struct ctx *c)
{
	for (size_t i = 0; i < c->slow.count; i++) {
		struct slowgrp *g = dft_tmap_value(&c->slow, i);

		for (int k = 0; k < g->n; k++) {
			int64_t *r = agg_row(c->loc, M_SLOW, g->c[k].key,
					     g->c[k].kn);

			for (int x = 0; x < SL_NF; x++)
				r[x] = g->c[k].v[x];
			free(g->c[k].key);
		}
		g->n = 0;
	}
}

/* Whether an open starts its file empty: creat, an open with O_TRUNC and
 * write access, fopen/freopen "w" or "w+" */
static int
opens_empty(const struct dft_trace_ev *ev)
{
	const char *nm = ev->name.p;
	size_t n = ev->name.n;

	if ((n == 5 && memcmp(nm, "creat", 5) == 0) ||
	    (n == 7 && memcmp(nm, "creat64", 7) == 0))
		return 1;
	if (ev->has & DFT_EV_FLAGS)
		return (ev->oflags & O_TRUNC) &&
		       (ev->oflags & O_ACCMODE) != O_RDONLY;
	return ev->fmode.n > 0 && ev->fmode.p[0] == 'w' && n >= 5 &&
	       (memcmp(nm, "fopen", 5) == 0 || memcmp(nm, "freopen", 5) == 0);
}

int64_t
file_allowance(struct agg *a, const char *k, size_t kn, int64_t extent)
{
	const int64_t *r = dft_tmap_get(&a->m[M_FILEC], k, kn, 0, NULL);
	const int64_t *q = dft_tmap_get(&a->m[M_FILECM], k, kn, 0, NULL);
	int64_t m = 1, more = 0;

	if (r != NULL) {
		/* a truncation to 0 starts new contents after the first,
		 * whether the first came by a truncating open or not */
		int64_t t = (r[0] > 1 ? r[0] : 1) + r[2];

		if (r[2] == 0)
			t = r[0];
		m = t > r[1] ? t : r[1];
		/* each truncation to a size: its part past the size */
		if (r[3] * extent - r[4] > more)
			more = r[3] * extent - r[4];
	}
	if (q != NULL) {
		if (q[0] > 0 && 1 + q[0] > m)
			m = 1 + q[0];
		if (q[1] * extent - q[2] > more)
			more = q[1] * extent - q[2];
	}
	if (m < 1)
		m = 1;
	return extent * m + more;
}

static void
io_event(struct ctx *c, struct thr *th, const struct dft_trace_ev *ev,
	 const struct fninfo *f, int64_t n, int64_t dur)
{
	struct agg *a = c->loc;
	int64_t bytes = 0;
	uint32_t mask = 1u << C_IO;
	int agg_ev = ev->ph == DFT_PH_AGG;
	int ioc = f->ioc;

	if (ioc == IOC_READ || ioc == IOC_WRITE) {
		if (agg_ev) {
			if (ev->has & DFT_EV_SIZE_SUM)
				bytes = ev->size_sum;
			else if (ev->has & DFT_EV_RET_SUM)
				bytes = ev->ret_sum;
		} else if ((ev->has & DFT_EV_RET) && ev->ret > 0) {
			bytes = ev->ret;
			/* fread/fwrite: ret elements of size bytes (an
			 * element size taken up to 64 KiB) */
			int64_t es = ev->size < (1 << 16) ? ev->size :
				     (1 << 16);

			if ((f->kind & FN_ELEMENTS) && (ev->has & DFT_EV_SIZE) &&
			    es > 0)
				bytes = bytes > ((int64_t)1 << 44) / es ?
					(int64_t)1 << 44 : bytes * es;
		}
		if (bytes < 0)
			bytes = 0;
		mask |= 1u << (ioc == IOC_READ ? C_READ : C_WRITE);
	} else if (ioc == IOC_META) {
		mask |= 1u << C_META;
	} else if (ioc == IOC_SYNC) {
		mask |= 1u << C_SYNC;
	}
	int hbin = -1;
	/* the dft runtime's aggregated I/O (dft(7)): its calls are alike in
	 * size class (a power of two, finer than the bins) and access kind,
	 * so the record counts where each of its calls would */
	int aggio = agg_ev && (ev->has & DFT_EV_AGGIO) &&
		    (ev->has & DFT_EV_SIZE_MIN) &&
		    (ioc == IOC_READ || ioc == IOC_WRITE);
	/* and its folded seeks and tells: metadata calls, with the model's
	 * state after the last one */
	int aggseek = agg_ev && (ev->has & DFT_EV_AGGIO) &&
		      (f->kind & FN_SEEK) && ioc == IOC_META;

	if ((ioc == IOC_READ || ioc == IOC_WRITE) && !agg_ev) {
		hbin = size_bin(bytes);
		if (bytes < (int64_t)thr[T_SMALL_BYTES])
			mask |= 1u << (ioc == IOC_READ ? C_SMALL_R : C_SMALL_W);
	} else if (aggio) {
		hbin = size_bin(ev->size_min);
		/* a threshold inside the class counts the record small */
		if (ev->size_min < (int64_t)thr[T_SMALL_BYTES])
			mask |= 1u << (ioc == IOC_READ ? C_SMALL_R : C_SMALL_W);
	}
	if (f->kind & FN_STDIO)
		mask |= 1u << C_STDIO;

	uint32_t fidx = UINT32_MAX;
	struct filest *fs = file_get(c, ev, &fidx);
	struct posst *ps = NULL;
	struct pfst *pf = NULL;

	/* a close of a file its process wrote since its last close or sync
	 * flushes that data (stdio's buffer; the kernel's delayed
	 * allocation, NFS's close-to-open): data time, not metadata */
	if (fs != NULL && (ioc == IOC_WRITE || ioc == IOC_SYNC ||
			   (ioc == IOC_META && (f->kind & FN_CLOSE)))) {
		/* by the event's own file key: a file's events before its
		 * FH line are keyed by hash, those after by name */
		const struct dft_str *fk = ev->fhash.p ? &ev->fhash :
					   &ev->fname;

		dft_buf_reset(&c->kb);
		dft_buf_add(&c->kb, (const char *)&th->proc, sizeof(th->proc));
		dft_buf_addc(&c->kb, ev->fhash.p ? 'F' : 'N');
		dft_buf_add(&c->kb, fk->p, fk->n);
		pf = dft_tmap_get(&c->pf, c->kb.s, c->kb.len, 1, NULL);
		if (ioc == IOC_WRITE) {
			if (bytes > 0)
				pf->dirty = 1;
			pf = NULL;
		} else if (ioc == IOC_SYNC) {
			pf->dirty = 0;
			pf = NULL;
		} else if (pf->dirty) {
			mask = (mask & ~(1u << C_META)) | (1u << C_FLUSH);
			f->func_row[3] += n;
			f->func_row[4] += dur;
			pf->dirty = 0;
			pf = NULL;
		}
	}
	/* a file truncated or removed and made again holds new contents:
	 * writing or reading them is no redundant traffic (leveldb's
	 * 000003.log, written again after DestroyDB by the next benchmark) */
	/* and so does a truncation to 0; a truncation to a size below what
	 * was written makes the part past it new (one to a size at or past
	 * the file's highest written offset so far grows it: nothing new;
	 * a truncation without its size, or failed, changes nothing) */
	int trunc = fs != NULL && (f->kind & FN_TRUNCATE) && !agg_ev &&
		    (ev->has & DFT_EV_LENGTH) && ev->length >= 0 &&
		    (!(ev->has & DFT_EV_RET) || ev->ret == 0) &&
		    (ev->length == 0 || ev->length < fs->xrow[1]);

	if (fs != NULL && ((f->kind & FN_REMOVE) || trunc ||
			   ((f->kind & FN_OPEN) && opens_empty(ev)))) {
		if (fs->crow == NULL) {
			size_t kn;
			const char *k = dft_tmap_key(&c->loc->m[M_FILE], fidx,
						     &kn);

			fs->crow = agg_row(c->loc, M_FILEC, k, kn);
		}
		if (trunc && ev->length == 0) {
			fs->crow[2] += n;
		} else if (trunc) {
			fs->crow[3] += n;
			fs->crow[4] += ev->length;
		} else {
			fs->crow[(f->kind & FN_REMOVE) ? 1 : 0] += n;
		}
	}
	if (fs != NULL) {
		ps = pos_get(c, th, fidx);
		if (f->kind & FN_OPEN) {
			ps->pos = ps->end_r = ps->end_w = 0;
		} else if (aggseek) {
			ps->pos = ev->pos;
			ps->end_r = ev->rd_end;
			ps->end_w = ev->wr_end;
		} else if ((f->kind & FN_SEEK) && !agg_ev) {
			if ((ev->has & DFT_EV_RET) && ev->ret >= 0 &&
			    !(ev->name.n == 5 &&
			      memcmp(ev->name.p, "fseek", 5) == 0))
				ps->pos = ev->ret;
			else if ((ev->has & DFT_EV_OFFSET) &&
				 (!(ev->has & DFT_EV_WHENCE) || ev->whence == 0))
				ps->pos = ev->offset;
		} else if (aggio) {
			int w = ioc == IOC_WRITE;

			if (ev->seq >= 1)
				mask |= 1u << (w ? M_SEQ_W : M_SEQ_R);
			if (ev->seq == 2)
				mask |= 1u << (w ? M_CONS_W : M_CONS_R);
			if (ev->seq == 0)
				mask |= 1u << (w ? C_RAND_W : C_RAND_R);
			/* the runtime's alignment is 4 KiB */
			if (ev->misaligned && thr[T_FILE_ALIGNMENT] > 0)
				mask |= 1u << C_MISAL;
			if (!w && ev->reread)
				mask |= 1u << C_REREAD;
			fs->row[S_ALIGN_CHECKED] += n;
			a->g[G_IO_S + S_ALIGN_CHECKED] += n;
			th->proc_row[S_ALIGN_CHECKED] += n;
			if (!w && bytes > 0 && ev->extent > ev->offset) {
				if (ps->rd == NULL) {
					ps->rd = dft_xcalloc(1, sizeof(*ps->rd));
					iset_init(ps->rd, c->ilimit);
				}
				iset_add(ps->rd, ev->offset, ev->extent);
			}
			if (ev->extent > fs->xrow[w])
				fs->xrow[w] = ev->extent;
			/* the model continues from the record's last call */
			ps->pos = ev->pos;
			ps->end_r = ev->rd_end;
			ps->end_w = ev->wr_end;
		} else if ((ioc == IOC_READ || ioc == IOC_WRITE) && !agg_ev) {
			int64_t start = ps->pos;

			if ((f->kind & FN_POSITIONAL) &&
			    (ev->has & DFT_EV_OFFSET))
				start = ev->offset;
			else
				ps->pos += bytes;
			int64_t *last = ioc == IOC_READ ? &ps->end_r :
				       &ps->end_w;
			int w = ioc == IOC_WRITE;

			if (start >= *last) {
				mask |= 1u << (w ? M_SEQ_W : M_SEQ_R);
				if (start == *last)
					mask |= 1u << (w ? M_CONS_W : M_CONS_R);
			} else {
				mask |= 1u << (w ? C_RAND_W : C_RAND_R);
			}
			*last = start + bytes;
			int64_t al = (int64_t)thr[T_FILE_ALIGNMENT];

			fs->row[S_ALIGN_CHECKED] += 1;
			a->g[G_IO_S + S_ALIGN_CHECKED] += 1;
			th->proc_row[S_ALIGN_CHECKED] += 1;
			if (al > 0 && start % al != 0)
				mask |= 1u << C_MISAL;
			if (!w && bytes > 0) {
				if (ps->rd == NULL) {
					ps->rd = dft_xcalloc(1, sizeof(*ps->rd));
					iset_init(ps->rd, c->ilimit);
				}
				int64_t cov = iset_add(ps->rd, start,
						       start + bytes);

				if (2 * cov >= bytes)
					mask |= 1u << C_REREAD;
			}
			int64_t *xr = fs->xrow;

			if (start + bytes > xr[w])
				xr[w] = start + bytes;
		}
		sum_io(fs->row, ioc, n, dur, bytes, mask, f->kind & FN_STDIO,
		       hbin);
		int64_t *fp = ps->fp_row;

		if (ioc == IOC_READ || ioc == IOC_WRITE) {
			int64_t *ft = ps->fpt_row;

			int64_t e1 = aggio && ev->end_ts >= ev->ts ?
				     ev->end_ts : ev->ts + dur;

			if (SPAN_BIG - ev->ts > ft[0])
				ft[0] = SPAN_BIG - ev->ts;
			if (e1 > ft[1])
				ft[1] = e1;
		}

		fp[0] += n;
		fp[1] += dur;
		fp[2] += bytes;
		if (ioc == IOC_READ)
			fp[3] += bytes;
		else if (ioc == IOC_WRITE)
			fp[4] += bytes;
		else if (mask & (1u << C_META)) {
			int k = f->kind & FN_OPEN ? FPM_OPEN :
				f->kind & FN_CLOSE ? FPM_CLOSE :
				f->kind & FN_STAT ? FPM_STAT :
				f->kind & FN_SEEK ? FPM_SEEK : -1;

			if (k >= 0) {
				fp[k] += n;
				fp[k + 1] += dur;
			}
			fp[FPM_META] += n;
			fp[FPM_META + 1] += dur;
		}
	}
	sum_io(a->g + G_IO_S, ioc, n, dur, bytes, mask, f->kind & FN_STDIO,
	       hbin);
	sum_io(th->proc_row, ioc, n, dur, bytes, mask, f->kind & FN_STDIO,
	       hbin);

	/* time bin */
	int64_t bin = ev->ts / c->bin_us;

	if (th->last_bin != bin) {
		char b[32];
		int bl = snprintf(b, sizeof(b), "%lld", (long long)bin);
		size_t pkn;
		const char *pk = dft_tmap_key(&a->m[M_PROC], th->proc, &pkn);

		th->bin_row = agg_row(a, M_BIN, b, (size_t)bl);
		set_add(c, M_BINPROC, b, (size_t)bl, pk, pkn);
		th->last_bin = bin;
	}
	sum_io(th->bin_row, ioc, n, dur, bytes, mask, f->kind & FN_STDIO,
	       hbin);
	stall_note(c, th, ev, f, n, dur, bytes, ioc, mask, hbin,
		   fs != NULL ? fidx : UINT32_MAX, bin, agg_ev);
	if (pf != NULL) {	/* a close that found the file clean */
		pf->un = n;
		pf->udur = dur;
		pf->urow[0] = fs->row;
		pf->urow[1] = th->proc_row;
		pf->urow[2] = th->bin_row;
		pf->urow[3] = f->func_row;
		pf->ufp = ps->fp_row;
	}
	if (ps != NULL && ps->last_bin != bin) {
		char b[32];
		int bl = snprintf(b, sizeof(b), "%lld", (long long)bin);
		size_t fkn;
		const char *fk = dft_tmap_key(&a->m[M_FILE], fidx, &fkn);

		set_add(c, M_BINFILE, b, (size_t)bl, fk, fkn);
		ps->last_bin = bin;
	}

	/* interfaces */
	int iface = (f->kind & FN_STDIO) ? 1 : 0;

	c->iface[iface][0] += n;
	c->iface[iface][1] += dur;
	c->iface[iface][2] += bytes;

	/* layers */
	layer_add(a, L_POSIX, ioc, n, dur, bytes);
	posix_derived(a, L_POSIX, f, n, dur, bytes);
	thr_layer_seen(c, th, L_POSIX);
	/* other_posix is what remains (agg_finalize) */
	int pl = L_OTHER_POSIX;

	if (fs != NULL && fs->pathclass == 1)
		pl = L_READER_POSIX;
	else if (fs != NULL && fs->pathclass == 2)
		pl = L_CKPT_POSIX;
	if (pl != L_OTHER_POSIX) {
		layer_add(a, pl, ioc, n, dur, bytes);
		posix_derived(a, pl, f, n, dur, bytes);
		mask |= 1u << M_PATH_LAYER;
	}
	thr_layer_seen(c, th, pl);
	if (f->kind & FN_FORK) {
		layer_add(a, L_LOADER_FORK, ioc, n, dur, bytes);
		thr_layer_seen(c, th, L_LOADER_FORK);
	}

	if (aggio || aggseek) {
		aggio_rest(c, th, ev, fidx, mask, f, n, dur, bytes);
		return;
	}
	/* the union of the thread's I/O intervals, then of its process */
	int64_t e = ev->ts + dur;

	if (th->io_e == INT64_MIN) {
		th->io_s = ev->ts;
		th->io_e = e;
	} else if (ev->ts <= th->io_e && e >= th->io_s) {
		if (e > th->io_e)
			th->io_e = e;
		if (ev->ts < th->io_s)
			th->io_s = ev->ts;
	} else if (ev->ts > th->io_e) {
		iset_add(&c->pio[th->proc], th->io_s, th->io_e);
		th->io_s = ev->ts;
		th->io_e = e;
	} else {
		iset_add(&c->pio[th->proc], ev->ts, e);	/* earlier, apart */
	}

	/* pending attribution */
	struct pend p = { ev->ts, ev->ts + dur, dur, bytes, mask, (uint32_t)n,
			  fidx, posix_der_mask(f),
			  ev->has & DFT_EV_PIDX ? ev->pidx : PIDX_NONE };

	pend_push(th, &p);
}

/*
 * async_io's overlap window: the time from the end of a blocking MPI-IO
 * read or write to the thread's next MPI-IO call, except the time inside
 * an HDF5 call of the same thread. HDF5's own work between the MPI-IO
 * calls of one H5Dwrite is not the application's to overlap (only the
 * asynchronous VOL connector could). A trace is in end order, so the
 * HDF5 call arrives after the gaps it encloses: they wait in th->gap,
 * are cut by each HDF5 interval of the thread, and count (gaps_flush)
 * at the end of the stream, or when more than the interval limit wait
 * (the oldest half: an HDF5 call around that many MPI-IO calls is not
 * looked for). A gap begins where an earlier MPI-IO call ended, maybe
 * inside an HDF5 call that has arrived since (the H5Dwrite around that
 * call): th->h5open holds those, and a new gap is only what they leave.
 * Only the thread's own events decide, so chunks and -j give the whole
 * trace's numbers.
 */
static void
gaps_flush(struct ctx *c, struct thr *th, size_t upto)
{
	int64_t t = 0;
	size_t kn;
	const char *k;

	if (upto == 0)
		return;
	for (size_t i = 0; i < upto; i++)
		t += th->gap[i].e - th->gap[i].s;
	memmove(th->gap, th->gap + upto, (th->ngap - upto) * sizeof(*th->gap));
	th->ngap -= upto;
	k = dft_tmap_key(&c->loc->m[M_PROC], th->proc, &kn);
	agg_row(c->loc, M_MPIGAP, k, kn)[0] += t;
}

static void
gap_piece(struct ctx *c, struct thr *th, int64_t a, int64_t b)
{
	if (th->ngap == th->capgap) {
		th->capgap = th->capgap ? 2 * th->capgap : 16;
		th->gap = dft_xreallocarray(th->gap, th->capgap,
					    sizeof(*th->gap));
	}
	th->gap[th->ngap].s = a;
	th->gap[th->ngap].e = b;
	th->ngap++;
	if (th->ngap > c->ilimit)
		gaps_flush(c, th, th->ngap / 2);
}

/* The gap [a, b) less the HDF5 calls that arrived since it began. */
static void
gap_add(struct ctx *c, struct thr *th, int64_t a, int64_t b)
{
	const struct iset *h = &th->h5open;
	int64_t at = a;

	for (size_t i = 0; i < h->n && h->v[i].s < b; i++) {
		if (h->v[i].e <= at)
			continue;
		if (h->v[i].s > at)
			gap_piece(c, th, at, h->v[i].s);
		at = h->v[i].e;
	}
	if (at < b)
		gap_piece(c, th, at, b);
}

/* Removes [a, b) (an HDF5 call's interval) from the waiting gaps. */
static void
gaps_cut(struct thr *th, int64_t a, int64_t b)
{
	size_t j = th->ngap;

	while (j > 0 && th->gap[j - 1].e > a)
		j--;
	for (size_t i = j; i < th->ngap && th->gap[i].s < b; i++) {
		struct ival *g = &th->gap[i];

		if (g->s >= a && g->e <= b) {
			g->e = g->s;			/* inside: gone */
		} else if (g->s < a && g->e > b) {	/* split in two */
			if (th->ngap == th->capgap) {
				th->capgap *= 2;
				th->gap = dft_xreallocarray(th->gap,
							    th->capgap,
							    sizeof(*th->gap));
				g = &th->gap[i];
			}
			memmove(g + 2, g + 1,
				(th->ngap - i - 1) * sizeof(*g));
			g[1].s = b;
			g[1].e = g->e;
			g->e = a;
			th->ngap++;
			i++;
		} else if (g->s < a) {
			g->e = a;
		} else {
			g->s = b;
		}
	}
	/* drop the emptied ones */
	size_t w = j;

	for (size_t i = j; i < th->ngap; i++)
		if (th->gap[i].e > th->gap[i].s)
			th->gap[w++] = th->gap[i];
	th->ngap = w;
}

/*
 * An MPI-IO or HDF5 call (mpiio.c counts it). The time of the lower
 * layers inside it, per process: for MPI-IO the union of the POSIX and
 * STDIO requests within its interval (those already in the process's
 * interval set and the thread's running one); for HDF5 the larger of that
 * and the MPI-IO calls within it. Inner calls end first, so a trace in end
 * order has them before the call that encloses them.
 */
static int64_t
upper_event(struct ctx *c, struct thr *th, const struct dft_trace_ev *ev,
	    const struct fninfo *f, int64_t n, int64_t dur)
{
	struct upper_ev u = { ev, f->kind, f->ioc, n, dur, 0, NULL, 0, NULL,
			      0 };
	int64_t s = ev->ts, e = ev->ts + dur;

	if (ev->ph != DFT_PH_AGG && dur > 0) {
		int64_t in = iset_within(&c->pio[th->proc], s, e);

		if (th->io_e != INT64_MIN) {
			int64_t os = th->io_s > s ? th->io_s : s;
			int64_t oe = th->io_e < e ? th->io_e : e;

			if (oe > os)
				in += oe - os;
		}
		if (f->kind & FN_HDF5) {
			int64_t m = iset_within(&c->mpio[th->proc], s, e);

			in = m > in ? m : in;
		} else {
			iset_add(&c->mpio[th->proc], s, e);
		}
		u.inner = in < dur ? in : dur;
	}
	if (ev->fhash.p != NULL || ev->fname.p != NULL) {
		uint32_t fidx;

		file_get(c, ev, &fidx);
		u.file = dft_tmap_key(&c->loc->m[M_FILE], fidx, &u.filen);
	}
	u.proc = dft_tmap_key(&c->loc->m[M_PROC], th->proc, &u.procn);
	/* the time a non-blocking form could overlap (async_io): from
	 * the end of a blocking data call to the thread's next MPI-IO
	 * call, which at the latest would have to wait for it */
	if (f->kind & FN_HDF5) {
		if (ev->ph != DFT_PH_AGG && dur > 0) {
			if (th->ngap > 0)
				gaps_cut(th, s, e);
			if (th->mpio_e != INT64_MIN && e > th->mpio_e) {
				if (th->h5open.limit == 0)
					iset_init(&th->h5open, c->ilimit);
				iset_add(&th->h5open,
					 s > th->mpio_e ? s : th->mpio_e, e);
			}
		}
	} else if (ev->ph != DFT_PH_AGG) {
		if (th->mpio_e != INT64_MIN && s > th->mpio_e)
			gap_add(c, th, th->mpio_e, s);
		th->h5open.n = 0;
		th->h5open.slack = 0;
		th->mpio_e = (f->ioc == IOC_READ || f->ioc == IOC_WRITE) &&
			     !(f->kind & FN_NONBLOCK) ? e : INT64_MIN;
	}
	thr_layer_seen(c, th, f->kind & FN_HDF5 ? L_HDF5 : L_MPIIO);
	return upper_add(c->loc, &u);
}

static void
one_event(struct ctx *c, const struct dft_trace_ev *ev)
{
	struct agg *a = c->loc;
	int agg_ev = ev->ph == DFT_PH_AGG;
	int64_t n = 1, dur = ev->dur;

	a->g[G_EVENTS]++;
	if (agg_ev) {
		n = (ev->has & DFT_EV_CNT) && ev->dft_cnt > 0 ? ev->dft_cnt : 1;
		if (ev->has & DFT_EV_DUR_SUM)
			dur = ev->dur_sum;
	}
	if (!(ev->has & (DFT_EV_DUR | DFT_EV_DUR_SUM)) || dur < 0)
		dur = 0;
	a->g[G_CALLS] += n;
	/* an aggregated I/O record ends with its last call */
	int64_t tend = agg_ev && (ev->has & DFT_EV_AGGIO) &&
		       ev->end_ts >= ev->ts ? ev->end_ts : ev->ts + dur;

	if (ev->has & DFT_EV_TS) {
		if (ev->ts < a->g[G_TS_MIN])
			a->g[G_TS_MIN] = ev->ts;
		if (tend > a->g[G_TS_MAX])
			a->g[G_TS_MAX] = tend;
	}
	if (ev->ph == DFT_PH_COUNTER)
		return;
	struct fninfo *f = fn_get(c, ev);
	struct thr *th = thr_get(c, ev);
	int64_t bytes = 0;

	if (ev->has & DFT_EV_TS) {
		int64_t *pt = th->proct_row;

		if (SPAN_BIG - ev->ts > pt[0])
			pt[0] = SPAN_BIG - ev->ts;
		if (tend > pt[1])
			pt[1] = tend;
	}
	/* how the process ended: the tracer's start and end records */
	if (f->life == 1)
		th->procend_row[0] = 1;
	else if (f->life == 2 && (ev->has & DFT_EV_TS) &&
		 ev->ts + 1 > th->procend_row[1])
		th->procend_row[1] = ev->ts + 1;

	if (f->kind & FN_IO) {
		int64_t before = a->g[G_IO_S + S_B];

		io_event(c, th, ev, f, n, dur);
		bytes = a->g[G_IO_S + S_B] - before;
	} else if (f->kind & (FN_MPIIO | FN_HDF5)) {
		bytes = upper_event(c, th, ev, f, n, dur);
	} else if (f->kind & FN_MPI) {
		a->g[G_MPI_EVENTS] += n;
	}
	f->func_row[0] += n;
	f->func_row[1] += dur;
	f->func_row[2] += bytes;
	f->func_row[5]++;	/* the records, as the trace holds them */
	f->cat_row[0] += n;
	f->cat_row[1] += dur;
	f->cat_row[2] += bytes;
	if (!(f->kind & FN_APP))
		return;
	if (!agg_ev)
		app_event(c, th, ev, f, dur);
	if (f->loop != LP_NONE && !agg_ev && dur > 0) {
		if (th->loop == NULL) {
			th->loop = dft_xcalloc(1, sizeof(*th->loop));
			iset_init(&th->loop->wait, c->ilimit);
			iset_init(&th->loop->body, c->ilimit);
			iset_init(&th->loop->compute, c->ilimit);
			iset_init(&th->loop->epoch, c->ilimit);
			th->loop->epoch.strict = 1;
		}
		struct iset *is = f->loop == LP_WAIT ? &th->loop->wait :
				  f->loop == LP_BODY ? &th->loop->body :
				  f->loop == LP_COMPUTE ? &th->loop->compute :
				  &th->loop->epoch;

		iset_add(is, ev->ts, ev->ts + dur);
	}
	for (int l = L_APP; l < L_N; l++) {
		if (!(f->layers & (1u << l)))
			continue;
		layer_add(a, l, IOC_NONE, n, dur, 0);
		thr_layer_seen(c, th, l);
		if (l == L_LOADER && f->der_loader >= 0)
			der_add(a, l, f->der_loader, n, dur, 0);
		if (l == L_READER && f->der_reader >= 0)
			der_add(a, l, f->der_reader, n, dur, 0);
		if (l == L_FETCH)
			a->g[G_FETCH_ITER] += n;
	}
	if ((f->layers & (1u << L_READER)) && (ev->has & DFT_EV_EPOCH)) {
		char b[32];
		int bl = snprintf(b, sizeof(b), "%lld", (long long)ev->epoch);

		dft_buf_reset(&c->kb);
		dft_buf_add(&c->kb, b, (size_t)bl);
		dft_buf_addc(&c->kb, '\x1e');
		dft_buf_add(&c->kb, th->key, th->keyn);
		agg_row(a, M_EPOCH, c->kb.s, c->kb.len)[0] += dur;
	}
}

static int64_t
clampv(int64_t v, int64_t lo, int64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/*
 * Keeps numbers in ranges where the sums cannot overflow: timestamps
 * within 2^60 us, durations and byte counts within 2^44 (200 days, 16 TiB
 * per call), offsets within 2^50, call counts within 2^32. Real traces are
 * far inside; a damaged line must not make the counters wrap.
 */
static void
sane(struct dft_trace_ev *ev)
{
	const int64_t T = (int64_t)1 << 60, D = (int64_t)1 << 44;
	const int64_t O = (int64_t)1 << 50, C = (int64_t)1 << 32;

	ev->ts = clampv(ev->ts, -T, T);
	ev->dur = clampv(ev->dur, 0, D);
	ev->dur_sum = clampv(ev->dur_sum, 0, D);
	ev->ret = clampv(ev->ret, -D, D);
	ev->ret_sum = clampv(ev->ret_sum, 0, D);
	ev->size_sum = clampv(ev->size_sum, 0, D);
	ev->size = clampv(ev->size, 0, D);
	ev->offset = clampv(ev->offset, -O, O);
	ev->dft_cnt = clampv(ev->dft_cnt, 0, C);
	ev->size_min = clampv(ev->size_min, 0, D);
	ev->size_max = clampv(ev->size_max, 0, D);
	ev->seq = clampv(ev->seq, 0, 2);
	ev->extent = clampv(ev->extent, -O, O);
	ev->pos = clampv(ev->pos, -O, O);
	ev->rd_end = clampv(ev->rd_end, -O, O);
	ev->wr_end = clampv(ev->wr_end, -O, O);
	ev->end_ts = clampv(ev->end_ts, -T, T);
}

/*
 * The loop rows of a thread: per epoch (an epoch interval, or the whole
 * thread when it has none) the time waiting for batches, the compute time
 * (loop bodies, else compute events), the epoch's span and the number of
 * waits. Without wait events the wait is the epoch's time outside compute
 * (DFAnalyzer's derived fetch_data), marked derived.
 */
static void
loop_rows(struct ctx *c, struct thr *th)
{
	struct loopst *l = th->loop;
	struct iset *sets[3] = { &l->wait, &l->body, &l->compute };
	int64_t lo = INT64_MAX, hi = INT64_MIN;

	for (int i = 0; i < 3; i++) {
		if (sets[i]->n == 0)
			continue;
		lo = sets[i]->v[0].s < lo ? sets[i]->v[0].s : lo;
		hi = sets[i]->v[sets[i]->n - 1].e > hi ?
		     sets[i]->v[sets[i]->n - 1].e : hi;
	}
	int derived = l->wait.n == 0;

	if (derived && (l->epoch.n == 0 || (l->compute.n == 0 &&
					    l->body.n == 0)))
		return;
	if (l->wait.n == 0 && l->body.n == 0 && l->compute.n == 0)
		return;
	size_t ne = l->epoch.n ? l->epoch.n : 1;

	for (size_t k = 0; k < ne; k++) {
		int64_t a = l->epoch.n ? l->epoch.v[k].s : lo;
		int64_t b = l->epoch.n ? l->epoch.v[k].e : hi;
		int64_t body = iset_within(&l->body, a, b);
		int64_t comp = body > 0 ? body : iset_within(&l->compute, a, b);
		int64_t wait, steps = 0;

		if (derived) {
			wait = (b - a) - comp;
		} else {
			wait = iset_within(&l->wait, a, b);
			for (size_t i = 0; i < l->wait.n; i++)
				if (l->wait.v[i].s >= a && l->wait.v[i].s < b)
					steps++;
		}
		if (wait < 0)
			wait = 0;
		if (wait == 0 && comp == 0)
			continue;
		char kb[32];
		int kl = snprintf(kb, sizeof(kb), "%zu", k + 1);

		dft_buf_reset(&c->kb);
		dft_buf_add(&c->kb, kb, (size_t)kl);
		dft_buf_addc(&c->kb, '\x1e');
		dft_buf_add(&c->kb, th->key, th->keyn);
		int64_t *r = agg_row(c->loc, M_LOOP, c->kb.s, c->kb.len);

		r[0] += wait;
		r[1] += comp;
		r[2] += b - a;
		r[3] += steps;
		r[4] |= derived;
	}
}

/* ---- folding the file-local aggregate ----------------------------------- */

static void
tr_host(struct dft_trace *t, struct dft_buf *o, const char *k, size_t n)
{
	const struct dft_str *s;

	if (n == 0 || (k[0] == 'N' && n == 1)) {
		dft_buf_adds(o, "unknown");
		return;
	}
	if (k[0] == 'N') {
		dft_buf_add(o, k + 1, n - 1);
		return;
	}
	s = dft_trace_lookup(t, 'H', k + 1, n - 1);
	if (s != NULL) {
		dft_buf_add(o, s->p, s->n);
	} else {
		dft_buf_adds(o, "hhash:");
		dft_buf_add(o, k + 1, n - 1);
	}
}

static void
tr_part(struct dft_trace *t, struct dft_buf *o, char kind, const char *k,
	size_t n)
{
	const char *sep;

	switch (kind) {
	case 'F':
		if (n == 0)
			return;
		if (k[0] == 'N') {
			dft_buf_add(o, k + 1, n - 1);
		} else {
			const struct dft_str *s =
				dft_trace_lookup(t, 'F', k + 1, n - 1);

			if (s != NULL) {
				dft_buf_add(o, s->p, s->n);
			} else {
				dft_buf_adds(o, "fhash:");
				dft_buf_add(o, k + 1, n - 1);
			}
		}
		return;
	case 'H':
		tr_host(t, o, k, n);
		return;
	case 'P':
	case 'T':
		sep = memchr(k, '\x1f', n);
		if (sep == NULL) {
			dft_buf_add(o, k, n);
			return;
		}
		tr_host(t, o, k, (size_t)(sep - k));
		for (const char *p = sep; p < k + n; p++)
			dft_buf_addc(o, *p == '\x1f' ? '#' : *p);
		return;
	default:
		dft_buf_add(o, k, n);
	}
}

static void
fold(struct agg *dst, struct agg *loc, struct dft_trace *t)
{
	struct dft_buf o;

	dft_buf_init(&o);
	for (int i = 0; i < G_NF; i++) {
		if (i == G_TS_MIN)
			dst->g[i] = loc->g[i] < dst->g[i] ? loc->g[i] : dst->g[i];
		else if (i == G_TS_MAX)
			dst->g[i] = loc->g[i] > dst->g[i] ? loc->g[i] : dst->g[i];
		else
			dst->g[i] += loc->g[i];
	}
	for (int l = 0; l < L_N; l++)
		for (int f = 0; f < LF_NF; f++)
			dst->layer[l][f] += loc->layer[l][f];
	for (int i = 0; i < M_N; i++) {
		const struct map_def *d = &map_defs[i];
		struct dft_tmap *m = &loc->m[i];

		for (size_t j = 0; j < m->count; j++) {
			size_t kn;
			const char *k = dft_tmap_key(m, j, &kn);
			const char *end = k + kn;

			dft_buf_reset(&o);
			for (const char *pt = d->parts; *pt; pt++) {
				const char *sep = pt[1] ?
					memchr(k, '\x1e', (size_t)(end - k)) :
					NULL;
				const char *pe = sep ? sep : end;

				tr_part(t, &o, *pt, k, (size_t)(pe - k));
				if (pt[1]) {
					dft_buf_addc(&o, '\x1e');
					k = sep ? sep + 1 : end;
				}
			}
			row_add(agg_row(dst, i, o.s, o.len),
				dft_tmap_value(m, j), d->nf, d->max);
		}
	}
	dft_buf_release(&o);
}

/* The exit status of the file t has just read to its end (k from
 * dft_trace_next). */
static int
file_status(const struct dft_trace *t, int k)
{
	if (k < 0)
		return DFT_EXIT_DATA;
	return t->bad > 0 || t->truncated || t->corrupt ? DFT_EXIT_DATA :
	       DFT_EXIT_OK;
}

/*
 * The dft runtime's "signal" metadata record (args.name "SIGTERM",
 * args.value "15"): the process was killed by that signal, its trace
 * finished by the tracer's handler before the signal took its default
 * action (dftracer-runtime(7)).
 */
static void
signal_record(struct ctx *c, const struct dft_trace_ev *ev)
{
	int64_t v = 0;

	if (ev->cat.p == NULL || !cat_is(ev->cat.p, ev->cat.n, "dftracer") ||
	    ev->mname.p == NULL || ev->mname.n == 0 || ev->mname.n > 64 ||
	    !(ev->has & DFT_EV_PID))
		return;
	for (size_t i = 0; ev->mvalue.p != NULL && i < ev->mvalue.n &&
	     i < 4; i++) {
		if (ev->mvalue.p[i] < '0' || ev->mvalue.p[i] > '9') {
			v = 0;
			break;
		}
		v = 10 * v + (ev->mvalue.p[i] - '0');
	}
	dft_buf_reset(&c->kb);
	host_key(&c->kb, ev);
	dft_buf_addf(&c->kb, "\x1f%lld\x1e", (long long)ev->pid);
	for (size_t i = 0; i < ev->mname.n; i++)	/* a name, not a key */
		dft_buf_addc(&c->kb, (unsigned char)ev->mname.p[i] < 0x20 ?
			     '?' : ev->mname.p[i]);
	int64_t *r = agg_row(c->loc, M_PROCSIG, c->kb.s, c->kb.len);

	r[0] = 1;
	if (v > r[1])
		r[1] = v;
}

int
agg_trace(struct agg *a, struct dft_trace *t, rec_fn rec, void *rctx,
	  next_fn next, void *nctx)
{
	struct agg loc;
	struct ctx c;
	struct dft_trace_ev ev;
	unsigned style = 0;
	int k;
	long nrec = 0;
	int status = DFT_EXIT_OK;

	agg_init(&loc);
	memset(&c, 0, sizeof(c));
	c.loc = &loc;
	c.t = t;
	dft_tmap_init(&c.fns, sizeof(struct fninfo));
	dft_tmap_init(&c.thrs, sizeof(struct thr));
	dft_tmap_init(&c.files, sizeof(struct filest));
	dft_tmap_init(&c.pos, sizeof(struct posst));
	dft_tmap_init(&c.pf, sizeof(struct pfst));
	dft_tmap_init(&c.slow, sizeof(struct slowgrp));
	dft_buf_init(&c.kb);
	c.ilimit = thr[T_INTERVALS_MAX] >= 4 ? (size_t)thr[T_INTERVALS_MAX] : 4;
	c.bin_us = (int64_t)(thr[T_TIME_BIN_S] * 1e6);
	if (c.bin_us <= 0)
		c.bin_us = 1000000;
	c.iface[0] = agg_row(&loc, M_IFACE, "posix", 5);
	c.iface[1] = agg_row(&loc, M_IFACE, "stdio", 5);
	agg_row(&loc, M_IFACE, "mpiio", 5);
	agg_row(&loc, M_IFACE, "hdf5", 4);

again:
	while ((k = dft_trace_next(t, &ev)) == 1) {
		if ((ev.has & DFT_EV_NOTJSON) ||
		    (ev.rtype.p != NULL && ev.ph == DFT_PH_UNKNOWN)) {
			if (rec != NULL)
				rec(ev.line, ev.len, ev.lineno, rctx);
			if (!(ev.has & DFT_EV_NOTJSON))
				nrec++;
			continue;
		}
		style |= ev.style;
		if (ev.ph == DFT_PH_M) {
			loc.g[G_META_EVENTS]++;
			if (ev.name.n == 6 && memcmp(ev.name.p, "signal", 6) == 0)
				signal_record(&c, &ev);
			continue;
		}
		if (ev.ph != DFT_PH_X && ev.ph != DFT_PH_AGG &&
		    ev.ph != DFT_PH_COUNTER)
			continue;
		if (ev.name.p == NULL)
			ev.name.p = "";
		if (ev.cat.p == NULL)
			ev.cat.p = "";
		sane(&ev);
		one_event(&c, &ev);
	}
	/* the file's counts; then maybe the next chunk of the stream */
	int st = file_status(t, k);

	status = dft_worst(status, st);
	loc.g[G_LINES] += t->lines - nrec;
	loc.g[G_BAD_LINES] += t->bad;
	if (t->truncated)
		loc.g[G_TRUNCATED] = 1;
	nrec = 0;
	if (next != NULL && next(t, st, nctx) == 1) {
		c.lt = NULL;
		c.lfile = NULL;
		goto again;
	}
	/* I/O no application event enclosed */
	for (size_t i = 0; i < c.thrs.count; i++) {
		struct thr *th = dft_tmap_value(&c.thrs, i);
		static const char nf[] = "(no enclosing function)\x1f\x1f\x1f";

		if (th->io_e != INT64_MIN)
			iset_add(&c.pio[th->proc], th->io_s, th->io_e);
		gaps_flush(&c, th, th->ngap);
		free(th->gap);
		iset_release(&th->h5open);
		if (th->loop != NULL) {
			loop_rows(&c, th);
			iset_release(&th->loop->wait);
			iset_release(&th->loop->body);
			iset_release(&th->loop->compute);
			iset_release(&th->loop->epoch);
			free(th->loop);
		}

		attribute_run(&c, th, nf, sizeof(nf) - 1, th->p, th->n);
		for (size_t j = 0; j < th->n; j++)
			loc.g[G_UNATTR_T] += th->p[j].dur;
		free(th->p);
		bundle_free(th->bun);
		free(th->key);
	}
	for (size_t i = 0; i < c.fns.count; i++)
	{
		free(((struct fninfo *)dft_tmap_value(&c.fns, i))->fkey);
		free(((struct fninfo *)dft_tmap_value(&c.fns, i))->sc);
	}
	for (size_t i = 0; i < c.npio; i++) {
		size_t kn;
		const char *k = dft_tmap_key(&loc.m[M_PROC], i, &kn);

		agg_row(&loc, M_PROCIO, k, kn)[0] += iset_total(&c.pio[i]);
		iset_release(&c.pio[i]);
		iset_release(&c.mpio[i]);
	}
	free(c.pio);
	free(c.mpio);
	/*
	 * A process's file still written at the end of its stream, with a
	 * close that found it clean: the writes came after that close in the
	 * trace (one thread wrote, another closed, and the writer's buffer
	 * was written later), so that close flushed them. Its sums move to
	 * the flushing closes (its function's attribution stays metadata).
	 */
	for (size_t i = 0; i < c.pf.count; i++) {
		struct pfst *pf = dft_tmap_value(&c.pf, i);

		if (!pf->dirty || pf->un == 0)
			continue;
		for (int r = 0; r < 3; r++) {
			int64_t *s = r == 0 ? pf->urow[0] : r == 1 ?
				     pf->urow[1] : pf->urow[2];

			s[S_MN] -= pf->un;
			s[S_MT] -= pf->udur;
			s[S_FLUSH_N] += pf->un;
			s[S_FLUSH_T] += pf->udur;
		}
		loc.g[G_IO_S + S_MN] -= pf->un;
		loc.g[G_IO_S + S_MT] -= pf->udur;
		pf->ufp[FPM_CLOSE] -= pf->un;
		pf->ufp[FPM_CLOSE + 1] -= pf->udur;
		pf->ufp[FPM_META] -= pf->un;
		pf->ufp[FPM_META + 1] -= pf->udur;
		loc.g[G_IO_S + S_FLUSH_N] += pf->un;
		loc.g[G_IO_S + S_FLUSH_T] += pf->udur;
		pf->urow[3][3] += pf->un;
		pf->urow[3][4] += pf->udur;
	}
	/* distinct bytes read: per process and file, the union of its
	 * threads' */
	struct dft_tmap un;

	dft_tmap_init(&un, sizeof(struct iset *));
	for (size_t i = 0; i < c.pos.count; i++) {
		struct posst *ps = dft_tmap_value(&c.pos, i);
		uint64_t key = ((uint64_t)ps->proc << 32) | ps->fidx;

		if (ps->rd == NULL)
			continue;
		struct iset **u = dft_tmap_get(&un, (const char *)&key,
					       sizeof(key), 1, NULL);

		if (*u == NULL) {
			*u = ps->rd;
			continue;
		}
		for (size_t j = 0; j < ps->rd->n; j++)
			iset_add(*u, ps->rd->v[j].s, ps->rd->v[j].e);
		iset_release(ps->rd);
		free(ps->rd);
	}
	for (size_t i = 0; i < un.count; i++) {
		struct iset *u = *(struct iset **)dft_tmap_value(&un, i);
		size_t kn;
		uint64_t key;

		memcpy(&key, dft_tmap_key(&un, i, &kn), sizeof(key));
		int64_t d = iset_total(u);

		((int64_t *)dft_tmap_value(&loc.m[M_FILE], (uint32_t)key))
			[S_DISTINCT_RB] += d;
		loc.g[G_IO_S + S_DISTINCT_RB] += d;
		iset_release(u);
		free(u);
	}
	dft_tmap_release(&un);
	if (loc.g[G_LINES] > 0) {
		loc.g[G_FILES_READ] = 1;
		int gen = dft_trace_generation(style);

		if (gen >= 0)
			loc.g[G_GEN0 + gen] = 1;
	}
	stall_flush(&c);
	fold(a, &loc, t);
	free(c.lfile_copy);
	dft_tmap_release(&c.fns);
	dft_tmap_release(&c.thrs);
	dft_tmap_release(&c.files);
	dft_tmap_release(&c.pos);
	dft_tmap_release(&c.pf);
	for (size_t i = 0; i < c.slow.count; i++) {
		struct slowgrp *g = dft_tmap_value(&c.slow, i);

		for (int k = 0; k < g->n; k++)
			free(g->c[k].key);
	}
	dft_tmap_release(&c.slow);
	dft_buf_release(&c.kb);
	agg_release(&loc);
	return status;
}
