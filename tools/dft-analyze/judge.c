/*
 * judge.c - the judgement of dft-analyze (diagnosis-rules.md §8): the
 * verdict (I/O share of wall time), the time each finding puts at stake
 * and an estimated saving with its model, one finding per cause (the rules
 * that fired on the same requests become facets of one finding), severity
 * from the share of wall time, and the ranking by time at stake.
 *
 * The rules of rules.c decide whether a class fires (Drishti, WisIO, dlio
 * and dft's own thresholds); they no longer decide the rank.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "analyze.h"

/* ---- system and runtime files ------------------------------------------ */

int
str_has(const char *p, size_t n, const char *lit)
{
	return memmem(p, n, lit, strlen(lit)) != NULL;
}

int
str_starts(const char *p, size_t n, const char *lit)
{
	size_t ln = strlen(lit);

	return n >= ln && memcmp(p, lit, ln) == 0;
}

static int
ends(const char *p, size_t n, const char *lit)
{
	size_t ln = strlen(lit);

	return n >= ln && memcmp(p + n - ln, lit, ln) == 0;
}

/*
 * System and runtime files: the kernel's (/proc, /sys, /dev, including
 * /dev/shm), configuration (/etc), shared libraries (*.so, *.so.N, /lib,
 * /usr/lib), the MPI runtime's session directories (ompi.*,
 * openmpi-sessions, pmix), Python's modules and bytecode (*.py, *.pyc,
 * __pycache__, site-packages, lib/pythonX), and the tracer's output
 * (*.pfw, *.pfw.gz, index sidecars).
 */
int
is_system_path(const char *p, size_t n)
{
	static const char *const pre[] = {
		"/proc/", "/sys/", "/dev/", "/etc/", "/lib/", "/lib64/",
		"/usr/lib/", "/usr/lib64/", "/usr/libexec/", "/usr/share/",
		"/usr/local/lib/", "/run/", "/var/run/", NULL
	};
	static const char *const mid[] = {
		"/ompi.", "openmpi-sessions", "/pmix", "__pycache__/",
		"site-packages/", "dist-packages/", "/lib/python", ".so.",
		"/openmpi/", "/openmpi-", "/share/openmpi", "/etc/openmpi",
		NULL
	};
	static const char *const suf[] = {
		".so", ".py", ".pyc", ".pfw", ".pfw.gz", ".zindex", ".idx",
		NULL
	};

	if (n == 0)
		return 0;
	if ((n == 5 && memcmp(p, "/proc", 5) == 0) ||
	    (n == 4 && memcmp(p, "/sys", 4) == 0))
		return 1;
	for (int i = 0; pre[i]; i++)
		if (str_starts(p, n, pre[i]))
			return 1;
	for (int i = 0; mid[i]; i++)
		if (str_has(p, n, mid[i]))
			return 1;
	for (int i = 0; suf[i]; i++)
		if (ends(p, n, suf[i]))
			return 1;
	return 0;
}

/* ---- insight codes and classes ------------------------------------------- */

/*
 * The codes that make findings, in the order the judgement takes them:
 * classes in the order of their first code here, and within a class the
 * first code that fired is the primary (the one whose numbers the finding
 * quotes). The class of a code is in rules.c's descriptor table.
 */
static const char *const priority[] = {
	"X01", "P17", "W01", "X05",
	"X02",
	"X03", "P09",
	"P06", "W06", "P16",
	"P05", "W05", "P15",
	"P08",
	"P11", "P13", "W03",
	"S01",
	"P19", "P18",
	"P21", "P22",
	"D01", "D02",
	"D03",
	"D04",
	"P10",
	"M01", "M02", "M03", "M09",
	"M06", "M07",
	"P01", "P02", "P03", "P04", "W02", "W04",
	"X04",
	/* P12, P14 (mostly sequential) are not findings */
};
#define NCODES (sizeof(priority) / sizeof(priority[0]))

static int
code_index(const char *code)
{
	for (size_t i = 0; i < NCODES; i++)
		if (strcmp(priority[i], code) == 0)
			return (int)i;
	return -1;
}

/* ---- helpers ---------------------------------------------------------- */

static double
fr(double a, double b)
{
	return b > 0 ? a / b : 0;
}

static void
evd(struct finding *f, const char *k, double v)
{
	json_object_object_add(f->evidence, k, dft_jdouble(v));
}

static double
evget(const struct finding *f, const char *k)
{
	return dft_json_double(f->evidence, k, 0);
}

static const char *
mb(double bytes, char *buf, size_t n)
{
	if (bytes >= 1e9)
		snprintf(buf, n, "%.2f GB", bytes / 1e9);
	else if (bytes >= 1e6)
		snprintf(buf, n, "%.1f MB", bytes / 1e6);
	else if (bytes >= 1e3)
		snprintf(buf, n, "%.1f kB", bytes / 1e3);
	else
		snprintf(buf, n, "%.0f B", bytes);
	return buf;
}

/* Top 5 application files by column col (seconds) of a file-keyed map
 * (the file view, or the MPI-IO files). */
static json_object *
top_files_in(struct agg *a, int map, int col, int system, int64_t *more)
{
	size_t n = a->m[map].count, nc = 0;
	struct cand *c = dft_xcalloc(n + 1, sizeof(*c));
	json_object *arr = json_object_new_array();

	for (size_t i = 0; i < n; i++) {
		size_t kn;
		const char *k = dft_tmap_key(&a->m[map], i, &kn);
		const int64_t *s = dft_tmap_value(&a->m[map], i);
		int sys = is_system_path(k, kn);

		if (s[col] <= 0)
			continue;
		if (system ? !sys : (sys && !rules_include_system))
			continue;
		c[nc].v = (double)s[col];
		c[nc].k = k;
		nc++;
	}
	if (nc > 1)
		qsort(c, nc, sizeof(*c), cmp_cand);
	for (size_t i = 0; i < nc && i < 5; i++) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "file", dft_jstr(c[i].k));
		json_object_object_add(o, "time_s", dft_jdouble(c[i].v / 1e6));
		json_object_array_add(arr, o);
	}
	*more = nc > 5 ? (int64_t)(nc - 5) : 0;
	free(c);
	return arr;
}

static json_object *
top_files(struct agg *a, int col, int system, int64_t *more)
{
	return top_files_in(a, M_FILE, col, system, more);
}

/* Directories by metadata time (the files' parent directories). */
static json_object *
top_dirs(struct agg *a)
{
	struct dft_tmap d;	/* dir -> time, files */
	json_object *arr = json_object_new_array();

	dft_tmap_init(&d, 2 * sizeof(int64_t));
	for (size_t i = 0; i < a->m[M_FILE].count; i++) {
		size_t kn;
		const char *k;
		const int64_t *s = app_file(a, i, &k, &kn);

		if (s == NULL || s[S_MT] <= 0)
			continue;
		const char *sl = memrchr(k, '/', kn);
		size_t dn = sl == NULL ? 1 : sl == k ? 1 : (size_t)(sl - k);
		int64_t *r = dft_tmap_get(&d, sl == NULL ? "." : k, dn, 1,
					  NULL);

		r[0] += s[S_MT];
		r[1]++;
	}
	struct cand *c = dft_xcalloc(d.count + 1, sizeof(*c));

	for (size_t i = 0; i < d.count; i++) {
		const int64_t *r = dft_tmap_value(&d, i);

		c[i].v = (double)r[0];
		c[i].k = dft_tmap_key(&d, i, NULL);
		c[i].i = i;
	}
	if (d.count > 1)
		qsort(c, d.count, sizeof(*c), cmp_cand);
	for (size_t i = 0; i < d.count && i < 5; i++) {
		/* by index, not by strlen: a path may hold a NUL byte */
		const int64_t *r = dft_tmap_value(&d, c[i].i);
		json_object *o = json_object_new_object();

		json_object_object_add(o, "dir", dft_jstr(c[i].k));
		json_object_object_add(o, "time_s", dft_jdouble(r[0] / 1e6));
		json_object_object_add(o, "files", dft_jint(r[1]));
		json_object_array_add(arr, o);
	}
	free(c);
	dft_tmap_release(&d);
	return arr;
}

/*
 * Bandwidth (bytes/s) of the requests outside a subset: the trace's own
 * large, aligned or sequential requests. The default (default_bw_mb_s)
 * when fewer than one small-bytes threshold of them was moved.
 */
static double
rest_bw(int64_t bytes, int64_t us, int64_t sub_b, int64_t sub_us, int *dflt)
{
	int64_t b = bytes - sub_b, t = us - sub_us;

	if (b >= (int64_t)thr[T_SMALL_BYTES] && t > 0) {
		*dflt = 0;
		return (double)b / ((double)t / 1e6);
	}
	*dflt = 1;
	return thr[T_DEFAULT_BW_MB_S] * 1e6;
}

/* saving = time - bytes / bw, with its model sentence */
static void
bw_saving(struct finding *f, double t, int64_t bytes, double bw, int dflt,
	  const char *whose)
{
	char b1[32];
	double at = bw > 0 ? (double)bytes / bw : t;
	double cur = t > 0 ? bytes / t / 1e6 : 0;

	f->saving_s = t - at > 0 ? t - at : 0;
	/* this trace's own requests of the better kind are no faster: the
	 * pattern costs nothing measurable here */
	f->no_gain = !dflt && f->saving_s <= 0;
	f->saving_model = dft_xasprintf(
		"the same %s at %.0f MB/s (%s) instead of %.1f MB/s%s",
		mb((double)bytes, b1, sizeof(b1)), bw / 1e6,
		dflt ? "default_bw_mb_s: the trace has too few other requests"
		     : whose, cur,
		f->no_gain ? ": no faster than now, so at most low" : "");
}

/* ---- time at stake per class ------------------------------------------- */

struct jctx {
	struct agg *a;
	struct run_info *ri;
	int64_t g[S_NF];	/* application I/O sums */
	int64_t all_t;		/* all I/O time */
	double loop_wait;	/* training-loop wait (s), 0 without a loop */
	double io_union_s;	/* sum of the processes' I/O unions */
	int above_io;		/* this finding's time is not I/O time (the
				 * HDF5 layer's own metadata work) */
};

/*
 * The time at stake of one class of calls (time column tc, count column nc)
 * when each application file keeps one call at its mean cost: the class's
 * time, the saving t * (1 - 1/n) summed over the files, the top files by
 * time. The files' calls, time and number in *calls, *time and *files.
 */
static void
stake_one_per_file(struct jctx *j, struct finding *f, int tc, int nc,
		   int64_t *calls, int64_t *time, int64_t *files)
{
	struct agg *a = j->a;
	double save = 0;

	*calls = *time = *files = 0;
	for (size_t i = 0; i < a->m[M_FILE].count; i++) {
		const int64_t *s = app_file(a, i, NULL, NULL);

		if (s == NULL || s[nc] == 0)
			continue;
		save += s[tc] / 1e6 * (1 - 1.0 / (double)s[nc]);
		*calls += s[nc];
		*time += s[tc];
		(*files)++;
	}
	f->time_s = j->g[tc] / 1e6;
	f->saving_s = save;
	f->files = top_files(a, tc, 0, &f->files_more);
}

static int has_facet(const struct finding *f, const char *metric);

/*
 * X05 (HDF5 metadata): the HDF5 layer's metadata calls, which enclose the
 * POSIX metadata calls they cause, when they take longer; the saving is
 * the attribute calls beyond one at their mean cost (many attributes
 * gathered into one). Returns 0 when the POSIX metadata is larger.
 */
static int
stake_hdf5_metadata(struct jctx *j, struct finding *f)
{
	const int64_t *l = j->a->layer[L_HDF5], *at = l + LF_DER + 3 * 9;

	if (!has_facet(f, "hdf5_metadata_time_share") ||
	    l[LF_MT] <= j->g[S_MT])
		return 0;
	f->time_s = l[LF_MT] / 1e6;
	f->saving_s = at[0] > 0 ? at[1] / 1e6 * (1 - 1.0 / (double)at[0]) : 0;
	f->saving_model = dft_xasprintf(
		"HDF5 attribute calls beyond one: %lld calls in %.3f s, each "
		"at their mean cost (the attributes gathered into one array "
		"attribute); the other HDF5 metadata calls are kept",
		(long long)at[0], at[1] / 1e6);
	/* the files by their I/O time: the HDF5 files' own POSIX
	 * metadata is little of it */
	f->files = top_files(j->a, S_T, 0, &f->files_more);
	j->above_io = 1;
	return 1;
}

/*
 * The metadata class's time at stake is its calls' time; its saving is
 * what fewer calls could save, in two parts (diagnosis-rules.md §8):
 *  - many small files: the files of at most small_bytes of data that one
 *    process writes in one directory, small_files_min (16) or more (nine
 *    outputs of a test program are its results, not a pattern to merge:
 *    tinyxml2 was told to "create fewer, larger files" for nine files of up
 *    to 396 kB), held in one file
 *    instead: their metadata calls (the create, stat, unlink, ... of each)
 *    but one file's share are saved;
 *  - on every other file, the opens, closes, stats and seeks beyond one of
 *    each per process, at that file's mean for the kind (opens and stats
 *    beyond one per file).
 * One expensive call (an open that truncates a large file, an ftruncate,
 * the remove of a large file) is not saved, nor are the other calls
 * (mkdir, rename, ...): the recommendation then names them.
 */
struct sfgrp {
	int64_t files, n, t, maxb;
};

/* Whether a group holds many small files (at least two, whatever the
 * threshold says: one file is no group). */
static int
sf_many(const struct sfgrp *r)
{
	return r->files >= 2 && (double)r->files >= thr[T_SMALL_FILES_MIN];
}

/* The directory part of file key k (n bytes), or 0 when it has none. */
static size_t
dir_len(const char *k, size_t n)
{
	const char *sl = memrchr(k, '/', n);

	return sl == NULL || sl == k ? 0 : (size_t)(sl - k);
}

/* Whether M_FILEPROC row s is a small file its process wrote. */
static int
small_written(const int64_t *s)
{
	return s[4] > 0 && s[3] + s[4] < (int64_t)thr[T_SMALL_BYTES];
}

/* The (process, directory) group key of a M_FILEPROC key into b. */
static int
sf_key(struct dft_buf *b, const char *k, size_t kn)
{
	const char *sep = memchr(k, '\x1e', kn);
	size_t dn;

	if (sep == NULL || (dn = dir_len(k, (size_t)(sep - k))) == 0)
		return 0;
	dft_buf_reset(b);
	dft_buf_add(b, sep + 1, kn - (size_t)(sep + 1 - k));
	dft_buf_addc(b, '\x1e');
	dft_buf_add(b, k, dn);
	return 1;
}

/* Advice for a metadata call that is not repeated, by its name. */
static const char *
single_advice(const char *name, int kind)
{
	if (strstr(name, "truncate") != NULL)
		return "truncating a file frees the blocks of its old "
		       "contents (an existing file created again: O_TRUNC, "
		       "fopen \"w\", HDF5's H5F_ACC_TRUNC, MPI_File_set_size): "
		       "write to a new file, or remove the old one before the "
		       "part that is timed";
	if (strstr(name, "unlink") != NULL || strstr(name, "remove") != NULL ||
	    strstr(name, "rmdir") != NULL)
		return "removing a file frees its blocks (a large file, a "
		       "directory of many entries): remove old files outside "
		       "the part that is timed, or reuse them";
	if (kind & FN_OPEN)
		return "an open that creates a file or truncates an existing "
		       "one pays for its directory entry and old blocks: "
		       "fewer files, or remove old outputs before the part "
		       "that is timed";
	if (kind & FN_STAT)
		return "one per file is what looking at every file costs: "
		       "fewer files, or one directory listing (readdir, "
		       "scandir give names and types without a stat each)";
	if (kind & (FN_SEEK | FN_CLOSE))
		return "one per file: fewer files";
	return "directory and name operations (mkdir, rename, link, "
	       "chmod, ...): do them once, outside loops";
}

static void
stake_metadata(struct jctx *j, struct finding *f)
{
	static const int kind[4] = { FPM_OPEN, FPM_CLOSE, FPM_STAT, FPM_SEEK };
	static const char *const kname[4] = { "opens", "closes", "stats",
					      "seeks" };
	struct agg *a = j->a;
	struct dft_tmap g;
	struct dft_buf kb;
	int64_t calls = 0, files = 0, extra = 0, rest_other = 0;
	int64_t sfiles = 0, sdirs = 0, st = 0;
	double save = 0, ssave = 0, ksave[4] = { 0, 0, 0, 0 };
	double keep[4] = { 0, 0, 0, 0 };	/* the one call kept */
	const struct sfgrp *top = NULL;
	const char *topk = NULL;
	size_t topn = 0;

	if (stake_hdf5_metadata(j, f)) {
		if (f->calls == NULL)
			f->calls = json_object_new_array();
		return;
	}
	dft_tmap_init(&g, sizeof(struct sfgrp));
	dft_buf_init(&kb);
	/* the groups of small files written per process and directory */
	for (size_t i = 0; i < a->m[M_FILEPROC].count; i++) {
		size_t kn;
		const char *k = dft_tmap_key(&a->m[M_FILEPROC], i, &kn);
		const char *sep = memchr(k, '\x1e', kn);
		const int64_t *s = dft_tmap_value(&a->m[M_FILEPROC], i);

		if (sep == NULL || skip_file(k, (size_t)(sep - k)) ||
		    !small_written(s) || !sf_key(&kb, k, kn))
			continue;
		struct sfgrp *r = dft_tmap_get(&g, kb.s, kb.len, 1, NULL);

		r->files++;
		r->n += s[FPM_META];
		r->t += s[FPM_META + 1];
		if (s[3] + s[4] > r->maxb)
			r->maxb = s[3] + s[4];
	}
	for (size_t i = 0; i < a->m[M_FILEPROC].count; i++) {
		size_t kn;
		const char *k = dft_tmap_key(&a->m[M_FILEPROC], i, &kn);
		const char *sep = memchr(k, '\x1e', kn);
		const int64_t *s = dft_tmap_value(&a->m[M_FILEPROC], i);
		const struct sfgrp *r;
		int64_t kt = 0;

		if (sep != NULL && skip_file(k, (size_t)(sep - k)))
			continue;
		if (sep != NULL && small_written(s) && sf_key(&kb, k, kn) &&
		    (r = dft_tmap_get(&g, kb.s, kb.len, 0, NULL)) != NULL &&
		    sf_many(r))
			continue;	/* saved with its group */
		for (int x = 0; x < 4; x++) {
			int64_t n = s[kind[x]], t = s[kind[x] + 1];

			kt += t;
			if (n > 0)
				keep[x] += t / 1e6 / (double)n;
			if (n > 1) {
				ksave[x] += t / 1e6 * (1 - 1.0 / (double)n);
				extra += n - 1;
			}
		}
		rest_other += s[FPM_META + 1] - kt;
	}
	for (size_t i = 0; i < g.count; i++) {
		size_t kn;
		const char *k = dft_tmap_key(&g, i, &kn);
		const struct sfgrp *r = dft_tmap_value(&g, i);

		if (!sf_many(r))
			continue;
		ssave += r->t / 1e6 * (1 - 1.0 / (double)r->files);
		sfiles += r->files;
		st += r->t;
		sdirs++;
		/* the largest group (ties: the first key) names the advice */
		if (top == NULL || r->t > top->t ||
		    (r->t == top->t && (kn != topn ?
					kn < topn : memcmp(k, topk, kn) < 0))) {
			top = r;
			topk = k;
			topn = kn;
		}
	}
	for (int x = 0; x < 4; x++)
		save += ksave[x];
	for (size_t i = 0; i < a->m[M_FILE].count; i++) {
		const int64_t *s = app_file(a, i, NULL, NULL);

		if (s != NULL && s[S_MN] > 0) {
			calls += s[S_MN];
			files++;
		}
	}
	f->time_s = j->g[S_MT] / 1e6;
	f->saving_s = save + ssave;
	f->files = top_files(a, S_MT, 0, &f->files_more);
	char *sm = sdirs == 0 ? dft_xstrdup("") : dft_xasprintf(
		"%lld small files (under small_bytes of data each) that their "
		"process writes in %lld director%s held in one file per "
		"directory and process: their metadata calls but one file's; "
		"on the other files ", (long long)sfiles, (long long)sdirs,
		sdirs == 1 ? "y" : "ies");

	f->saving_model = dft_xasprintf(
		"%s%s opens, closes, stats and seeks beyond one of each per "
		"file and process: %lld of the %lld metadata calls on %lld "
		"files, each at its mean there; the other metadata calls are "
		"kept", sm, "the", (long long)extra,
		(long long)calls, (long long)files);
	free(sm);
	json_object_object_add(f->evidence, "directories", top_dirs(j->a));
	if (f->calls == NULL)	/* facets from W01/P17 only: the calls too */
		f->calls = calls_of(j->a, IOC_META);
	/* the parts of the time, and advice that fits the largest ones */
	double rest = f->time_s - st / 1e6 - save;

	if (rest < 0)
		rest = 0;
	json_object *parts = json_object_new_object(), *o;

	o = json_object_new_object();
	json_object_object_add(o, "files", dft_jint(sfiles));
	json_object_object_add(o, "directories", dft_jint(sdirs));
	json_object_object_add(o, "time_s", dft_jdouble(st / 1e6));
	json_object_object_add(o, "saving_s", dft_jdouble(ssave));
	json_object_object_add(parts, "small_files", o);
	o = json_object_new_object();
	json_object_object_add(o, "calls", dft_jint(extra));
	json_object_object_add(o, "saving_s", dft_jdouble(save));
	json_object_object_add(parts, "repeated", o);
	o = json_object_new_object();
	json_object_object_add(o, "time_s", dft_jdouble(rest));
	json_object_object_add(parts, "not_saved", o);
	json_object_object_add(f->evidence, "parts", parts);

	struct {
		double t;
		char *s;
	} p[3] = { { 0, NULL }, { 0, NULL }, { 0, NULL } };
	char b1[32];

	if (top != NULL) {
		const char *sep = memchr(topk, '\x1e', topn);

		p[0].t = st / 1e6;
		p[0].s = dft_xasprintf(
			"create fewer, larger files: %lld files of at most %s "
			"written by one process in %.*s%s (%.3f s of create, "
			"stat, unlink and other metadata calls) can be one "
			"file, an archive or a table in memory", (long long)
			top->files, mb((double)top->maxb, b1, sizeof(b1)),
			(int)(topn - (size_t)(sep + 1 - topk)), sep + 1,
			sdirs > 1 ? " and other directories" : "",
			top->t / 1e6);
	}
	if (save > 0) {
		int kx = 0;

		for (int x = 1; x < 4; x++)
			if (ksave[x] > ksave[kx])
				kx = x;
		p[1].t = save;
		p[1].s = dft_xasprintf(
			"%s (%lld opens, closes, stats and seeks beyond one of "
			"their kind per file, %.3f s, most of it %s)", kx == 2 ?
			"cache stat results instead of asking again" : kx == 3 ?
			"read and write at an offset (pread, pwrite) instead of "
			"seeking before each request" :
			"open each file once and keep it open", (long long)extra,
			save, kname[kx]);
	}
	if (rest > 0) {
		/* what most of the part no model saves is: the one open,
		 * close, stat or seek of a kind per file, or other calls */
		int kx = 0;

		for (int x = 1; x < 4; x++)
			if (keep[x] > keep[kx])
				kx = x;
		int other = rest_other / 1e6 >= keep[kx];
		size_t nc = json_object_array_length(f->calls);
		const char *nm = NULL;
		int64_t cn = 0;
		double ct = 0;
		int ck = 0;
		static const int kbit[4] = { FN_OPEN, FN_CLOSE, FN_STAT,
					     FN_SEEK };

		for (size_t i = 0; i < nc; i++) {
			json_object *c = json_object_array_get_idx(f->calls, i);
			const char *n = dft_json_str(c, "name", "");
			const char *cat = dft_json_str(c, "cat", "");
			int ioc, kd = fn_kind(n, strlen(n), cat, strlen(cat),
					      &ioc);

			if (other ? (kd & (FN_OPEN | FN_CLOSE | FN_STAT |
					   FN_SEEK)) != 0 : !(kd & kbit[kx]))
				continue;
			nm = n;
			cn = dft_json_int(c, "count", 0);
			ct = dft_json_double(c, "time_s", 0);
			ck = kd;
			break;	/* the calls are by time */
		}
		p[2].t = rest;
		if (nm == NULL)
			p[2].s = dft_xasprintf("%.3f s is in calls that do not "
					       "repeat", rest);
		else if (other)
			p[2].s = dft_xasprintf(
				"%.3f s is in calls that do not repeat, most in "
				"%s (x%lld, %.3f s): %s", rest, nm,
				(long long)cn, ct, single_advice(nm, ck));
		else
			p[2].s = dft_xasprintf(
				"%.3f s is in calls that do not repeat, most in "
				"the one %.*s of each file (%s): %s", rest,
				(int)strlen(kname[kx]) - 1, kname[kx], nm,
				single_advice(nm, ck));
	}
	/* the parts by time, each at least a tenth of the whole */
	struct dft_buf rb;

	dft_buf_init(&rb);
	for (int done = 0; done < 3; done++) {
		int b = -1;

		for (int x = 0; x < 3; x++)
			if (p[x].s != NULL && (b < 0 || p[x].t > p[b].t))
				b = x;
		if (b < 0)
			break;
		if (rb.len == 0 || p[b].t >= f->time_s / 10) {
			if (rb.len > 0)
				dft_buf_adds(&rb, "; ");
			dft_buf_adds(&rb, p[b].s);
		}
		free(p[b].s);
		p[b].s = NULL;
	}
	if (rb.len > 0) {
		free(f->rec_own);
		f->rec_own = dft_buf_detach(&rb);
		f->recommendation = f->rec_own;
	}
	dft_buf_release(&rb);
	dft_buf_release(&kb);
	dft_tmap_release(&g);
}

static void
stake_sync(struct jctx *j, struct finding *f)
{
	int64_t fn, ft, files;

	stake_one_per_file(j, f, S_YT, S_YN, &fn, &ft, &files);
	/* syncs that name no file (sync(2)) are one group */
	int64_t rn = j->g[S_YN] - fn, rt = j->g[S_YT] - ft;

	if (rn > 0 && rt > 0)
		f->saving_s += rt / 1e6 * (1 - 1.0 / (double)rn);
	f->saving_model = dft_xstrdup(
		"all but one sync per file over the run: each file keeps one "
		"sync at its mean cost");
}

static void
stake_redundant(struct jctx *j, struct finding *f)
{
	struct agg *a = j->a;
	int64_t rb = 0, dist = 0;
	char b1[32];

	for (size_t i = 0; i < a->m[M_FILE].count; i++) {
		const int64_t *s = app_file(a, i, NULL, NULL);

		if (s == NULL || s[S_REREAD_N] == 0)
			continue;
		rb += s[S_RB];
		dist += s[S_DISTINCT_RB];
	}
	f->time_s = j->g[S_REREAD_T] / 1e6;
	double bw = j->g[S_RT] > 0 ? j->g[S_RB] / (j->g[S_RT] / 1e6) : 0;
	double extra = (double)(rb - dist);

	f->saving_s = bw > 0 ? extra / bw : f->time_s;
	if (f->saving_s > f->time_s)
		f->saving_s = f->time_s;
	f->saving_model = dft_xasprintf(
		"the %s read beyond the distinct bytes, at the observed read "
		"bandwidth %.1f MB/s", mb(extra, b1, sizeof(b1)), bw / 1e6);
	f->files = top_files(a, S_REREAD_T, 0, &f->files_more);
	if (f->functions != NULL &&
	    strcmp(f->insight, "X03") != 0) {
		/* a P09-only finding: name the re-reading functions */
		json_object_put(f->functions);
		f->functions = NULL;
	}
	if (f->functions == NULL) {
		struct dft_tmap appf;

		dft_tmap_init(&appf, sizeof(int64_t));
		app_files(a, &appf);
		f->functions = functions_for(a, 1u << C_REREAD, &appf, NULL);
		dft_tmap_release(&appf);
	}
}

/* Whether the finding folds the rule of this metric. */
static int
has_facet(const struct finding *f, const char *metric)
{
	size_t n = f->facets ? json_object_array_length(f->facets) : 0;

	for (size_t i = 0; i < n; i++)
		if (strcmp(json_object_get_string(
				json_object_array_get_idx(f->facets, i)),
			   metric) == 0)
			return 1;
	return 0;
}

static void
stake_small(struct jctx *j, struct finding *f, int w)
{
	const int64_t *g = j->g;
	int dflt;
	double t = g[w ? S_SMALL_WT : S_SMALL_RT] / 1e6;
	int64_t b = g[w ? S_SMALL_WB : S_SMALL_RB];
	double bw = rest_bw(g[w ? S_WB : S_RB], g[w ? S_WT : S_RT], b,
			    g[w ? S_SMALL_WT : S_SMALL_RT], &dflt);

	int64_t m[MF_W];

	/* small MPI-IO calls on shared files (P15/P16 on the MPI-IO layer)
	 * enclose the POSIX requests they cause: the larger time counts */
	if (has_facet(f, w ? "mpiio_shared_small_write_pct" :
		      "mpiio_shared_small_read_pct") &&
	    (mpiio_sums(j->a, w, 1, m), m[MF_SMALL_T] / 1e6 > t)) {
		t = m[MF_SMALL_T] / 1e6;
		bw = rest_bw(m[MF_B], m[MF_T], m[MF_SMALL_B], m[MF_SMALL_T],
			     &dflt);
		f->time_s = t;
		bw_saving(f, t, m[MF_SMALL_B], bw, dflt, w ?
			  "this trace's large MPI-IO writes" :
			  "this trace's large MPI-IO reads");
		f->files = top_files_in(j->a, M_MPIFILE, MF_W * w +
					MF_SMALL_T, 0, &f->files_more);
		return;
	}
	f->time_s = t;
	bw_saving(f, t, b, bw, dflt, w ? "this trace's large writes" :
		  "this trace's large reads");
	f->files = top_files(j->a, w ? S_SMALL_WT : S_SMALL_RT, 0,
			     &f->files_more);
}

/*
 * collective_io: M02/M03 put at stake the independent MPI-IO calls of
 * the directions they fired for; the saving is those bytes at the rate
 * of this trace's large POSIX requests of the direction (what collective
 * buffering issues). M01 alone describes the workload. M09 alone
 * (inter-node aggregators) puts at stake the collective MPI-IO calls on
 * the files it names, with no saving estimated: the trace does not split
 * the aggregators' network transfers from their file I/O.
 */
static void
stake_aggregators(struct jctx *j, struct finding *f)
{
	size_t max = j->a->m[M_MPICB].count + 1;
	struct mpi_cb *cf = dft_xcalloc(max, sizeof(*cf));
	int64_t n = mpiio_cb_files(j->a, cf, max), t = 0;

	for (int64_t i = 0; i < n; i++) {
		const int64_t *r;

		if (cf[i].cb_nodes <= 0 || mpiio_cb_rel(&cf[i]) <= 0 ||
		    !(r = dft_tmap_get(&j->a->m[M_MPIFILE], cf[i].file,
				       cf[i].filen, 0, NULL)))
			continue;
		t += r[MF_COLL_T] + r[MF_W + MF_COLL_T];
	}
	free(cf);
	f->time_s = t / 1e6;
	f->saving_s = 0;
	f->saving_unknown = 1;
	f->saving_model = dft_xstrdup(
		"not estimated: the trace does not separate the aggregators' "
		"network transfers from their file I/O");
	f->files = top_files_in(j->a, M_MPIFILE, MF_COLL_T, 0,
				&f->files_more);
}

static void
stake_collective(struct jctx *j, struct finding *f)
{
	const int64_t *g = j->g;
	double t = 0;
	int64_t b = 0, pb = 0, pt = 0, sb = 0, st = 0;
	int col = -1, dflt;

	for (int w = 0; w < 2; w++) {
		int64_t m[MF_W];

		if (!has_facet(f, w ? "mpiio_independent_write_pct" :
			       "mpiio_independent_read_pct"))
			continue;
		mpiio_sums(j->a, w, 0, m);
		t += m[MF_IND_T] / 1e6;
		b += m[MF_IND_B];
		pb += g[w ? S_WB : S_RB];
		pt += g[w ? S_WT : S_RT];
		sb += g[w ? S_SMALL_WB : S_SMALL_RB];
		st += g[w ? S_SMALL_WT : S_SMALL_RT];
		col = MF_W * w + MF_IND_T;
	}
	if (col < 0 && has_facet(f, "mpiio_aggregators_per_node")) {
		stake_aggregators(j, f);
		return;
	}
	if (col < 0) {
		f->time_s = f->saving_s = 0;
		f->saving_model = dft_xstrdup(
			"none: this finding describes the workload");
		return;
	}
	double bw = rest_bw(pb, pt, sb, st, &dflt);

	f->time_s = t;
	bw_saving(f, t, b, bw, dflt, "this trace's large POSIX requests");
	f->files = top_files_in(j->a, M_MPIFILE, col, 0, &f->files_more);
}

/*
 * async_io: M06/M07 fire on blocking MPI-IO calls. A non-blocking call
 * hides its I/O only behind work the process does before it waits, at
 * the latest at its next MPI-IO call (the next request, or the close).
 * What is at stake is at most the time from the end of each blocking
 * read or write to the process's next MPI-IO call, summed: a run that
 * issues its requests back to back (IOR) has nothing to overlap. Time
 * at stake and saving: the smaller of that and the blocking calls'
 * time.
 * With both directions, the finding names both.
 */
static double
mpiio_gaps(struct agg *a)
{
	struct dft_tmap *m = &a->m[M_MPIGAP];
	double gap = 0;

	for (size_t i = 0; i < m->count; i++)
		gap += ((const int64_t *)dft_tmap_value(m, i))[0] / 1e6;
	return gap;
}

static void
stake_async(struct jctx *j, struct finding *f)
{
	double t = 0, tw[2] = { 0, 0 };
	int64_t nw[2] = { 0, 0 };
	int col = -1, dirs = 0;

	for (int w = 0; w < 2; w++) {
		int64_t m[MF_W];

		if (!has_facet(f, w ? "mpiio_nonblocking_write_pct" :
			       "mpiio_nonblocking_read_pct"))
			continue;
		mpiio_sums(j->a, w, 0, m);
		tw[w] = m[MF_T] / 1e6;
		nw[w] = m[MF_N];
		t += tw[w];
		dirs++;
		if (col < 0 || tw[w] > tw[!w])
			col = MF_W * w + MF_T;
	}
	double gap = mpiio_gaps(j->a);

	evd(f, "blocking_time_s", t);
	evd(f, "overlap_window_s", gap);
	f->time_s = t < gap ? t : gap;
	f->saving_s = f->time_s;
	f->saving_model = dft_xasprintf(
		"overlap: non-blocking calls hide the blocking MPI-IO time "
		"(%.3f s) at most behind the %.3f s the processes spend "
		"after blocking MPI-IO reads and writes before their next MPI-IO call",
		t, gap);
	if (dirs == 2) {
		f->title = "Blocking MPI-IO reads and writes only";
		free(f->description);
		f->description = dft_xasprintf(
			"all %lld MPI-IO read calls (%.3f s) and all %lld "
			"write calls (%.3f s) are blocking: non-blocking calls "
			"could overlap them with computation",
			(long long)nw[0], tw[0], (long long)nw[1], tw[1]);
		f->recommendation =
			"overlap reads and writes with computation: "
			"MPI_File_iread / iwrite (_at, _all), split "
			"collectives (MPI_File_read_all_begin/end, "
			"MPI_File_write_all_begin/end), or the HDF5 "
			"asynchronous VOL connector";
		finding_evi(f, "mpiio_writes", nw[1]);
		evd(f, "write_time_s", tw[1]);
	}
	if (col >= 0)
		f->files = top_files_in(j->a, M_MPIFILE, col, 0,
					&f->files_more);
}

static void
stake_misaligned(struct jctx *j, struct finding *f)
{
	const int64_t *g = j->g;
	int dflt;
	double t = g[S_MISAL_T] / 1e6;
	double bw = rest_bw(g[S_RB] + g[S_WB], g[S_RT] + g[S_WT], g[S_MISAL_B],
			    g[S_MISAL_T], &dflt);

	f->time_s = t;
	bw_saving(f, t, g[S_MISAL_B], bw, dflt,
		  "this trace's aligned requests");
	/* Aligning a request changes at most its two boundary blocks (the
	 * partial blocks the file system reads and rewrites); the whole
	 * blocks in between cost the same aligned or not. So the saving is
	 * at most the time share of those boundary bytes: without this a
	 * trace whose requests are all large and misaligned by a few bytes
	 * was priced at the default bandwidth for every byte. */
	double al = thr[T_FILE_ALIGNMENT];

	if (al > 0 && g[S_MISAL] > 0 && g[S_MISAL_B] > 0) {
		double edge = 2 * al * (double)g[S_MISAL] / (double)g[S_MISAL_B];
		double cap = t * (edge < 1 ? edge : 1);

		if (cap < f->saving_s) {
			char b1[32];

			f->saving_s = cap;
			free(f->saving_model);
			f->saving_model = dft_xasprintf(
				"boundary blocks: aligning changes at most 2 "
				"blocks of %.0f bytes per request; %lld "
				"misaligned requests of %s on average, so at "
				"most %.1f %% of their %.3f s",
				al, (long long)g[S_MISAL],
				mb((double)g[S_MISAL_B] / (double)g[S_MISAL],
				   b1, sizeof(b1)), 100 * edge, t);
		}
	}
	f->files = top_files(j->a, S_MISAL_T, 0, &f->files_more);
}

static void
stake_random(struct jctx *j, struct finding *f)
{
	const int64_t *g = j->g;
	int dflt;
	double t = g[S_RND_T] / 1e6;
	double bw = rest_bw(g[S_RB] + g[S_WB], g[S_RT] + g[S_WT], g[S_RND_B],
			    g[S_RND_T], &dflt);

	f->time_s = t;
	bw_saving(f, t, g[S_RND_B], bw, dflt,
		  "this trace's sequential requests");
	f->files = top_files(j->a, S_RND_T, 0, &f->files_more);
}

static void
stake_stdio(struct jctx *j, struct finding *f)
{
	const int64_t *g = j->g;
	int dflt;
	double t = g[S_STDIO_T] / 1e6;
	double bw = rest_bw(g[S_RB] + g[S_WB], g[S_RT] + g[S_WT],
			    g[S_SMALL_RB] + g[S_SMALL_WB],
			    g[S_SMALL_RT] + g[S_SMALL_WT], &dflt);

	f->time_s = t;
	bw_saving(f, t, g[S_STDIO_B], bw, dflt,
		  "this trace's large requests");
	f->files = top_files(j->a, S_STDIO_T, 0, &f->files_more);
}

/* per shared file: the busiest process's time beyond the mean */
static void
stake_shared(struct jctx *j, struct finding *f)
{
	struct agg *a = j->a;
	struct dft_tmap np, st;

	dft_tmap_init(&np, sizeof(int64_t));
	shared_files(a, &np);
	shared_stats(a, &np, &st);
	double t = 0;
	size_t nc = 0;
	struct cand *c = dft_xcalloc(st.count + 1, sizeof(*c));

	for (size_t i = 0; i < st.count; i++) {
		const struct strag *x = dft_tmap_value(&st, i);
		double ex = x->n > 0 ? (x->mxt - (double)x->tott / x->n) / 1e6 :
			    0;

		if (ex <= 0)
			continue;
		t += ex;
		c[nc].v = ex;
		c[nc].k = dft_tmap_key(&st, i, NULL);
		nc++;
	}
	if (nc > 1)
		qsort(c, nc, sizeof(*c), cmp_cand);
	f->files = json_object_new_array();
	for (size_t i = 0; i < nc && i < 5; i++) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "file", dft_jstr(c[i].k));
		json_object_object_add(o, "time_s", dft_jdouble(c[i].v));
		json_object_array_add(f->files, o);
	}
	f->files_more = nc > 5 ? (int64_t)(nc - 5) : 0;
	free(c);
	f->time_s = t;
	f->saving_s = t;
	f->saving_model = dft_xstrdup(
		"on each shared file the busiest process's I/O time beyond the "
		"processes' mean: balanced, all finish at the mean");
	dft_tmap_release(&np);
	dft_tmap_release(&st);
}

static void
stake_imbalance(struct jctx *j, struct finding *f)
{
	struct agg *a = j->a;
	int64_t mx = 0, sum = 0, n = 0;

	for (size_t i = 0; i < a->m[M_PROC].count; i++) {
		const int64_t *s = dft_tmap_value(&a->m[M_PROC], i);

		if (s[S_N] == 0)
			continue;
		mx = s[S_T] > mx ? s[S_T] : mx;
		sum += s[S_T];
		n++;
	}
	double t = n > 1 ? (mx - (double)sum / n) / 1e6 : 0;

	f->time_s = t > 0 ? t : 0;
	f->saving_s = f->time_s;
	f->saving_model = dft_xstrdup(
		"the busiest process's I/O time beyond the processes' mean");
}

static void
stake_loader(struct jctx *j, struct finding *f)
{
	struct agg *a = j->a;
	double save = 0;

	for (size_t i = 0; i < a->m[M_LOOP].count; i++) {
		const int64_t *x = dft_tmap_value(&a->m[M_LOOP], i);

		save += (x[0] < x[1] ? x[0] : x[1]) / 1e6;
	}
	f->time_s = evget(f, "wait_time_s");
	f->saving_s = save;
	f->saving_model = dft_xstrdup(
		"loading overlapped with compute (prefetching, more workers): "
		"per epoch and loop the smaller of wait and compute is hidden");
	f->files = top_files(a, S_RT, 0, &f->files_more);
}

static void
stake_ckpt(struct jctx *j, struct finding *f)
{
	double ck = evget(f, "checkpoint_time_s");
	double io = evget(f, "checkpoint_io_time_s");
	int64_t b = (int64_t)evget(f, "checkpoint_posix_bytes");
	int dflt;
	const int64_t *g = j->g;
	double bw = rest_bw(g[S_WB], g[S_WT], g[S_SMALL_WB], g[S_SMALL_WT],
			    &dflt);
	char b1[32];

	f->time_s = ck > io ? ck : io;
	double keep = bw > 0 ? b / bw : 0;

	f->saving_s = f->time_s - keep > 0 ? f->time_s - keep : 0;
	f->saving_model = dft_xasprintf(
		"asynchronous checkpointing: the loop waits only to write the "
		"%s traced under checkpoint functions once at %.0f MB/s (%s); "
		"the rest runs beside training", mb((double)b, b1, sizeof(b1)),
		bw / 1e6, dflt ? "default_bw_mb_s" : "this trace's large writes");
}

static void
stake_fsbw(struct jctx *j, struct finding *f)
{
	double t = evget(f, "read_time_s");
	double b = evget(f, "read_bytes");
	double bw = thr[T_DLIO_FS_BW_MB_S] * 1e6;
	char b1[32];

	f->time_s = t;
	f->saving_s = bw > 0 && t - b / bw > 0 ? t - b / bw : 0;
	f->saving_model = dft_xasprintf("the same %s at dlio_fs_bw_mb_s "
					"(%.0f MB/s)", mb(b, b1, sizeof(b1)),
					thr[T_DLIO_FS_BW_MB_S]);
	f->files = top_files(j->a, S_RT, 0, &f->files_more);
}

static void
stake_write_time(struct jctx *j, struct finding *f)
{
	struct agg *a = j->a;
	double t = 0;

	for (size_t i = 0; i < a->m[M_FILE].count; i++) {
		size_t kn;
		const char *k;
		const int64_t *s = app_file(a, i, &k, &kn);

		if (s == NULL)
			continue;
		const int64_t *x = dft_tmap_get(&a->m[M_FILEX], k, kn, 0, NULL);
		int64_t e = x == NULL ? 0 : file_allowance(a, k, kn, x[1]);

		if (s[S_WB] <= e || e <= 0)
			continue;
		t += s[S_WT] / 1e6 * (double)(s[S_WB] - e) / (double)s[S_WB];
	}
	f->time_s = t;
	f->saving_s = t;
	f->saving_model = dft_xstrdup(
		"per file, the write time of the bytes written beyond its "
		"highest offset (write time x redundant / written bytes)");
	f->files = top_files(a, S_WT, 0, &f->files_more);
}

static void
stake_system(struct jctx *j, struct finding *f)
{
	f->time_s = j->ri->sys_t / 1e6;
	f->saving_s = 0;
	f->saving_unknown = 1;
	f->saving_model = dft_xstrdup(
		"none estimated: the runtime's and the system's own files");
	f->files = top_files(j->a, S_T, 1, &f->files_more);
}

static void
stake(struct jctx *j, struct finding *f)
{
	const char *c = f->cls;

	j->above_io = 0;
	if (strcmp(c, "metadata") == 0)
		stake_metadata(j, f);
	else if (strcmp(c, "sync") == 0)
		stake_sync(j, f);
	else if (strcmp(c, "redundant_read") == 0)
		stake_redundant(j, f);
	else if (strcmp(c, "small_write") == 0)
		stake_small(j, f, 1);
	else if (strcmp(c, "small_read") == 0)
		stake_small(j, f, 0);
	else if (strcmp(c, "misaligned") == 0)
		stake_misaligned(j, f);
	else if (strcmp(c, "random_access") == 0)
		stake_random(j, f);
	else if (strcmp(c, "stdio") == 0)
		stake_stdio(j, f);
	else if (strcmp(c, "shared_file") == 0)
		stake_shared(j, f);
	else if (strcmp(c, "imbalance") == 0)
		stake_imbalance(j, f);
	else if (strcmp(c, "data_loader") == 0)
		stake_loader(j, f);
	else if (strcmp(c, "checkpoint") == 0)
		stake_ckpt(j, f);
	else if (strcmp(c, "fs_bw") == 0)
		stake_fsbw(j, f);
	else if (strcmp(c, "write_time") == 0)
		stake_write_time(j, f);
	else if (strcmp(c, "collective_io") == 0)
		stake_collective(j, f);
	else if (strcmp(c, "async_io") == 0)
		stake_async(j, f);
	else if (strcmp(c, "system") == 0)
		stake_system(j, f);
	else {
		f->time_s = 0;
		f->saving_s = 0;
		f->saving_model = dft_xstrdup(
			"none: this finding describes the workload");
	}
	if (f->files == NULL)
		f->files = json_object_new_array();
	/* I/O classes cannot put more at stake than the I/O time itself
	 * (summed durations can overlap inside a thread) */
	if (strcmp(c, "data_loader") != 0 && strcmp(c, "checkpoint") != 0 &&
	    !j->above_io && j->io_union_s > 0 && f->time_s > j->io_union_s)
		f->time_s = j->io_union_s;
	/*
	 * With a measured training loop, read-side I/O is done by loader
	 * workers beside the loop: it costs the run at most the time the
	 * loop waits for it.
	 */
	if (j->loop_wait > 0 && f->time_s > j->loop_wait &&
	    (strcmp(c, "fs_bw") == 0 || strcmp(c, "small_read") == 0 ||
	     strcmp(c, "redundant_read") == 0 ||
	     strcmp(c, "random_access") == 0 || strcmp(c, "metadata") == 0 ||
	     strcmp(c, "misaligned") == 0 || strcmp(c, "stdio") == 0)) {
		evd(f, "uncapped_time_s", f->time_s);
		json_object_object_add(f->evidence, "capped_by_loop_wait",
				       json_object_new_boolean(1));
		f->time_s = j->loop_wait;
	}
	if (f->saving_s > f->time_s)
		f->saving_s = f->time_s;
}

/* ---- one finding per cause --------------------------------------------- */

static void
arr_add_unique(json_object *arr, const char *s)
{
	size_t n = json_object_array_length(arr);

	for (size_t i = 0; i < n; i++)
		if (strcmp(json_object_get_string(
				json_object_array_get_idx(arr, i)), s) == 0)
			return;
	json_object_array_add(arr, dft_jstr(s));
}

/* Moves the raw finding's owned parts into a new consolidated one. */
static void
take(struct finding *dst, struct finding *src, const char *cls)
{
	*dst = *src;
	dst->cls = cls;
	dst->raw = 0;
	dst->facets = json_object_new_array();
	dst->insights = json_object_new_array();
	src->scope = NULL;
	src->description = NULL;
	src->evidence = NULL;
	src->functions = NULL;
	src->calls = NULL;
	src->saving_model = NULL;
	src->rec_own = NULL;
	src->files = src->facets = src->insights = NULL;
}

static void
fold_into(struct finding *dst, const struct finding *src)
{
	arr_add_unique(dst->facets, src->metric);
	arr_add_unique(dst->insights, src->insight);
	if (src->forced)
		dst->forced = 1;
}

static const char *
class_of(const struct finding *f)
{
	return f->d != NULL && code_index(f->insight) >= 0 ? f->d->cls : NULL;
}

static const char *
band(double share)
{
	if (share >= 0.25)
		return "critical";
	if (share >= 0.10)
		return "high";
	if (share >= 0.03)
		return "medium";
	if (share >= 0.01)
		return "low";
	return "info";
}

static int
sev_score(const char *s)
{
	static const char *const l[] = { "info", "low", "medium", "high",
		"critical" };

	for (int i = 0; i < 5; i++)
		if (strcmp(s, l[i]) == 0)
			return i + 1;
	return 1;
}

static int
cmp_stake(const void *x, const void *y)
{
	const struct finding *a = x, *b = y;

	/* the severity first (what can be saved), then the time at stake:
	 * a low finding never comes before a high one */
	if (a->score != b->score)
		return b->score - a->score;
	if (a->time_s != b->time_s)
		return a->time_s > b->time_s ? -1 : 1;
	if (a->forced != b->forced)
		return b->forced - a->forced;
	/* ties: the data-loader stall before what feeds it */
	int la = strcmp(a->cls, "data_loader") == 0;
	int lb = strcmp(b->cls, "data_loader") == 0;

	if (la != lb)
		return lb - la;
	return strcmp(a->cls, b->cls);
}

static struct finding *
find_class(struct results *out, const char *cls)
{
	for (size_t i = 0; i < out->n; i++)
		if (strcmp(out->f[i].cls, cls) == 0)
			return &out->f[i];
	return NULL;
}

/* Adds the facets of loser to winner, whose time becomes the larger of
 * its own and lt (the loser's time in winner's scope: a one-direction
 * finding takes only its direction's part of a facet that has both). */
static void
add_facets(struct finding *winner, const struct finding *loser, double lt)
{
	size_t nf = json_object_array_length(loser->facets);

	for (size_t k = 0; k < nf; k++)
		arr_add_unique(winner->facets, json_object_get_string(
			json_object_array_get_idx(loser->facets, k)));
	nf = json_object_array_length(loser->insights);
	for (size_t k = 0; k < nf; k++)
		arr_add_unique(winner->insights, json_object_get_string(
			json_object_array_get_idx(loser->insights, k)));
	if (lt > winner->time_s) {
		evd(winner, "facet_time_s", lt);
		winner->time_s = lt;
	}
	if (loser->forced)
		winner->forced = 1;
}

/* Moves the facets of the finding of class lc into the one of class wc
 * and drops it from out (pointers into out are invalid afterwards); lt
 * as add_facets, < 0: the loser's whole time. */
static void
merge_facets(struct results *out, const char *wc, const char *lc, double lt)
{
	struct finding *winner = find_class(out, wc);
	struct finding *loser = find_class(out, lc);

	if (winner == NULL || loser == NULL || winner == loser)
		return;
	add_facets(winner, loser, lt < 0 ? loser->time_s : lt);
	finding_release(loser);
	size_t li = (size_t)(loser - out->f);

	out->f[li] = out->f[--out->n];
}

/*
 * Small, misaligned and random requests on the same requests are one
 * finding. Its class is the cause the trace shows:
 *  - random_access when most of the small requests' time is in requests
 *    that do not start where the previous one ended: scattered requests
 *    cannot be coalesced, their order is the cost;
 *  - misaligned when the misaligned requests hold at least half of the
 *    small requests' time and most of their time is in requests whose size
 *    is a multiple of file_alignment: whole pages at a shifted start,
 *    which aligning the start would make whole-page I/O (requests of odd
 *    sizes are misaligned because of their size: coalescing is the cure);
 *  - otherwise the small class.
 * A random or misaligned finding whose requests are mostly not small is a
 * finding of its own.
 */
/* The misaligned requests' time of one direction (s) */
static double
dir_misal(const int64_t *g, int w)
{
	return (w ? g[S_MISAL_T] - g[S_MISAL_RT] : g[S_MISAL_RT]) / 1e6;
}

static void
same_requests(struct jctx *j, struct results *out)
{
	const int64_t *g = j->g;
	struct finding *sw = find_class(out, "small_write");
	struct finding *sr = find_class(out, "small_read");
	struct finding *sm = sw && sr ? (sw->time_s >= sr->time_s ? sw : sr) :
			     sw ? sw : sr;

	if (sm == NULL)
		return;
	int w = sm == sw;
	double st = g[w ? S_SMALL_WT : S_SMALL_RT] / 1e6;
	struct finding *rnd = find_class(out, "random_access");
	struct finding *mis = find_class(out, "misaligned");
	int to_random = 0, to_misal = 0;

	if (rnd != NULL && g[S_SMALL_NONCONS_T] * 2 >= g[S_NONCONS_T] &&
	    g[S_SMALL_NONCONS_T] / 1e6 * 2 >= st)
		to_random = 1;
	if (mis != NULL && g[S_MISAL_SMALL_T] * 2 >= g[S_MISAL_T]) {
		if (g[S_MISAL_T] / 1e6 * 2 >= st &&
		    g[S_MISAL_PAGE_T] * 2 >= g[S_MISAL_T])
			to_misal = 1;
	} else {
		mis = NULL;	/* its own cause */
	}
	if (rnd != NULL && !to_random &&
	    g[S_SMALL_NONCONS_T] * 2 < g[S_NONCONS_T])
		rnd = NULL;	/* mostly large requests: its own cause */
	const char *cls = sm->cls;	/* static: survives the merges */

	/* its own direction's, as its counts (the other direction's small
	 * requests are a finding of their own) */
	evd(sm, "small_time_s", st);
	evd(sm, "nonconsecutive_small_time_s", g[S_SMALL_NONCONS_T] / 1e6);
	evd(sm, "misaligned_time_s", dir_misal(g, w));
	evd(sm, "misaligned_page_time_s", g[S_MISAL_PAGE_T] / 1e6);
	if (to_random) {
		int dflt;
		double bw = rest_bw(g[S_RB] + g[S_WB], g[S_RT] + g[S_WT],
				    g[S_NONCONS_B], g[S_NONCONS_T], &dflt);
		double t = g[S_NONCONS_T] / 1e6;

		/* the scattered requests, forward jumps too */
		rnd->time_s = t > rnd->time_s ? t : rnd->time_s;
		free(rnd->saving_model);
		rnd->saving_model = NULL;
		bw_saving(rnd, rnd->time_s, g[S_NONCONS_B], bw, dflt,
			  "this trace's consecutive requests");
		evd(rnd, "nonconsecutive_time_s", t);
		if (mis != NULL)
			merge_facets(out, "random_access", "misaligned", -1);
		merge_facets(out, "random_access", cls, -1);
		return;
	}
	if (to_misal) {
		if (rnd != NULL)
			merge_facets(out, "misaligned", "random_access", -1);
		merge_facets(out, "misaligned", cls, -1);
		return;
	}
	/*
	 * The random and misaligned facets join the small finding(s): each
	 * small finding is about one direction, so it takes only its
	 * direction's part of their time (hacc-io: the misaligned reads' and
	 * writes' time was a small-read finding's).
	 */
	struct finding *other = sm == sw ? sr : sw;

	if (other != NULL) {
		int ow = other == sw;

		if (rnd != NULL)
			add_facets(other, rnd, ow ? (g[S_RND_T] - g[S_RND_RT])
						    / 1e6 : g[S_RND_RT] / 1e6);
		if (mis != NULL) {
			add_facets(other, mis, dir_misal(g, ow));
			evd(other, "misaligned_time_s", dir_misal(g, ow));
		}
	}
	if (rnd != NULL)
		merge_facets(out, cls, "random_access", w ?
			     (g[S_RND_T] - g[S_RND_RT]) / 1e6 :
			     g[S_RND_RT] / 1e6);
	if (mis != NULL)
		merge_facets(out, cls, "misaligned", dir_misal(g, w));
}

/* ---- the verdict --------------------------------------------------------- */

struct pcand {
	double share;
	const char *k;
	double wall, io;
	/* how it ended (END_*), the signal that killed it, when (us) */
	int how;
	const char *sig;
	int64_t sigv, at;
};

/* How a process ended, from its tracer's records: its end record
 * (finished), a "signal" record (killed by that signal, the trace finished
 * by the runtime's handler), a start record without an end (killed by
 * SIGKILL, a crash, or running still: the trace stops at its last flush),
 * or neither (a trace format or writer without them). */
enum { END_FINISHED, END_SIGNAL, END_NOEND, END_UNKNOWN, END_N };
static const char *const end_name[END_N] = {
	"finished", "signal", "no-end", "unknown"
};

static int
cmp_pend(const void *x, const void *y)
{
	const struct pcand *a = *(const struct pcand *const *)x;
	const struct pcand *b = *(const struct pcand *const *)y;

	if (a->how != b->how)
		return a->how - b->how;
	if (a->at != b->at)
		return a->at < b->at ? -1 : 1;
	return strcmp(a->k, b->k);
}

/* cmp_pend with the killed processes grouped by signal name */
static int
cmp_psig(const void *x, const void *y)
{
	const struct pcand *a = *(const struct pcand *const *)x;
	const struct pcand *b = *(const struct pcand *const *)y;

	if (a->how == END_SIGNAL && b->how == END_SIGNAL) {
		int d = strcmp(a->sig, b->sig);

		if (d != 0)
			return d;
	}
	return cmp_pend(x, y);
}

static int
cmp_pcand(const void *x, const void *y)
{
	const struct pcand *a = x, *b = y;

	if (a->share != b->share)
		return a->share > b->share ? -1 : 1;
	return strcmp(a->k, b->k);
}

static const char *
verdict_of(double share)
{
	if (share >= thr[T_VERDICT_IO_BOUND])
		return "io-bound";
	if (share >= thr[T_VERDICT_PARTLY])
		return "partly";
	return "not-io-bound";
}

static int
verdict_rank(const char *v)
{
	return strcmp(v, "io-bound") == 0 ? 2 : strcmp(v, "partly") == 0;
}

static const char *
verdict_words(const char *v)
{
	return strcmp(v, "io-bound") == 0 ? "I/O-bound" :
	       strcmp(v, "partly") == 0 ? "partly I/O-bound" : "not I/O-bound";
}

/* c[i].how, .sig, .sigv, .at of the np processes (M_PROC order) */
static void
ends_of(struct agg *a, struct pcand *c, size_t np)
{
	struct dft_tmap sig;	/* proc -> its M_PROCSIG entry + 1 */

	dft_tmap_init(&sig, sizeof(size_t));
	for (size_t j = 0; j < a->m[M_PROCSIG].count; j++) {
		size_t kn;
		const char *k = dft_tmap_key(&a->m[M_PROCSIG], j, &kn);
		const char *sep = memchr(k, '\x1e', kn);

		if (sep == NULL)
			continue;
		size_t *e = dft_tmap_get(&sig, k, (size_t)(sep - k), 1, NULL);
		const char *old = *e ? dft_tmap_key(&a->m[M_PROCSIG], *e - 1,
						    NULL) : NULL;

		/* two signals (none writes that): the first by name */
		if (old == NULL || strcmp(k, old) < 0)
			*e = j + 1;
	}
	for (size_t i = 0; i < np; i++) {
		size_t kn;
		const char *k = dft_tmap_key(&a->m[M_PROC], i, &kn);
		const int64_t *pe = dft_tmap_get(&a->m[M_PROCEND], k, kn, 0,
						 NULL);
		const int64_t *pt = dft_tmap_get(&a->m[M_PROCT], k, kn, 0, NULL);
		const size_t *e = dft_tmap_get(&sig, k, kn, 0, NULL);
		int64_t last = pt != NULL ? pt[1] : 0;

		c[i].sig = NULL;
		c[i].sigv = 0;
		if (e != NULL && *e > 0) {
			size_t sn;
			const char *sk = dft_tmap_key(&a->m[M_PROCSIG], *e - 1,
						      &sn);

			c[i].how = END_SIGNAL;
			c[i].sig = sk + kn + 1;
			c[i].sigv = ((const int64_t *)dft_tmap_value(
				&a->m[M_PROCSIG], *e - 1))[1];
			c[i].at = pe != NULL && pe[1] > 0 ? pe[1] - 1 : last;
		} else if (pe != NULL && pe[1] > 0) {
			c[i].how = END_FINISHED;
			c[i].at = pe[1] - 1;
		} else if (pe != NULL && pe[0] > 0) {
			c[i].how = END_NOEND;
			c[i].at = last;
		} else {
			c[i].how = END_UNKNOWN;
			c[i].at = last;
		}
	}
	dft_tmap_release(&sig);
}

/* " (a#1, a#2, a#3 and 2 more)": the first three of the n processes of
 * v[0..n) */
static void
name_some(struct dft_buf *b, struct pcand *const *v, size_t n)
{
	dft_buf_adds(b, " (");
	for (size_t i = 0; i < n && i < 3; i++)
		dft_buf_addf(b, "%s%s", i == 0 ? "" : i + 1 == n ? " and " :
			     ", ", v[i]->k);
	if (n > 3)
		dft_buf_addf(b, " and %zu more", n - 3);
	dft_buf_addc(b, ')');
}

/* " at 1.200 s" or " at 1.200-1.300 s": when the n processes of v ended,
 * in seconds from t0 */
static void
when_text(struct dft_buf *b, struct pcand *const *v, size_t n, int64_t t0)
{
	int64_t lo = v[0]->at, hi = v[0]->at;

	for (size_t i = 1; i < n; i++) {
		if (v[i]->at < lo)
			lo = v[i]->at;
		if (v[i]->at > hi)
			hi = v[i]->at;
	}
	char a[32], z[32];

	snprintf(a, sizeof(a), "%.3f", (lo - t0) / 1e6);
	snprintf(z, sizeof(z), "%.3f", (hi - t0) / 1e6);
	if (strcmp(a, z) == 0)	/* the same at the precision shown */
		dft_buf_addf(b, " at %s s", a);
	else
		dft_buf_addf(b, " at %s-%s s", a, z);
}

/* ri->ends, ri->ends_text, ri->unfinished: how the np processes of c
 * ended (ends_of) */
static void
process_ends(struct run_info *ri, struct pcand *c, size_t np, int64_t t0)
{
	int64_t cnt[END_N] = { 0 };
	struct pcand **v = dft_xcalloc(np + 1, sizeof(*v));
	struct dft_buf b;
	size_t nv = 0;

	for (size_t i = 0; i < np; i++) {
		cnt[c[i].how]++;
		if (c[i].how == END_SIGNAL || c[i].how == END_NOEND)
			v[nv++] = &c[i];
	}
	qsort(v, nv, sizeof(*v), cmp_pend);
	ri->ends = json_object_new_object();
	json_object_object_add(ri->ends, "finished", dft_jint(cnt[END_FINISHED]));
	json_object_object_add(ri->ends, "signal", dft_jint(cnt[END_SIGNAL]));
	json_object_object_add(ri->ends, "no_end", dft_jint(cnt[END_NOEND]));
	json_object_object_add(ri->ends, "unknown", dft_jint(cnt[END_UNKNOWN]));
	ri->unfinished = json_object_new_array();
	for (size_t i = 0; i < nv && i < 8; i++) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "process", dft_jstr(v[i]->k));
		json_object_object_add(o, "end", dft_jstr(end_name[v[i]->how]));
		if (v[i]->sig != NULL) {
			json_object_object_add(o, "signal", dft_jstr(v[i]->sig));
			json_object_object_add(o, "signal_value",
					       dft_jint(v[i]->sigv));
		}
		json_object_object_add(o, "end_us", dft_jint(v[i]->at));
		json_object_object_add(o, "at_s",
				       dft_jdouble((v[i]->at - t0) / 1e6));
		json_object_array_add(ri->unfinished, o);
	}
	ri->unfinished_more = nv > 8 ? (int64_t)(nv - 8) : 0;

	dft_buf_init(&b);
	if (np == 0) {
		dft_buf_adds(&b, "no process in the trace");
	} else if (cnt[END_UNKNOWN] == (int64_t)np) {
		dft_buf_adds(&b, np == 1 ? "the trace has" : "the traces have");
		dft_buf_adds(&b, " no start or end record of the tracer (an "
			     "older dftracer or another writer): how the "
			     "process ended is not known");
	} else if (cnt[END_FINISHED] == (int64_t)np) {
		if (np == 1)
			dft_buf_adds(&b, "the process finished: its trace ends "
				     "with the tracer's end record");
		else
			dft_buf_addf(&b, "all %zu processes finished: each "
				     "trace ends with the tracer's end record",
				     np);
	} else {
		/* the killed ones by signal (by name), then the traces
		 * without an end */
		size_t i = 0;

		qsort(v, nv, sizeof(*v), cmp_psig);
		while (i < nv && v[i]->how == END_SIGNAL) {
			const char *sn = v[i]->sig;
			size_t ng = 0;

			while (i + ng < nv && v[i + ng]->how == END_SIGNAL &&
			       strcmp(v[i + ng]->sig, sn) == 0)
				ng++;
			if (b.len > 0)
				dft_buf_adds(&b, "; ");
			if (np == 1)
				dft_buf_addf(&b, "the process was killed by %s",
					     sn);
			else
				dft_buf_addf(&b, "%zu of %zu processes %s "
					     "killed by %s", ng, np,
					     ng == 1 ? "was" : "were", sn);
			when_text(&b, v + i, ng, t0);
			if (np > 1)
				name_some(&b, v + i, ng);
			if (np == 1)
				dft_buf_adds(&b, ": the run did not finish; "
					     "its trace is whole up to the "
					     "signal");
			i += ng;
		}
		size_t ne = nv - i;

		if (ne > 0) {
			if (b.len > 0)
				dft_buf_adds(&b, "; ");
			if (np == 1)
				dft_buf_adds(&b, "the trace has no end: its "
					     "events stop");
			else
				dft_buf_addf(&b, "%zu of %zu processes' %s no "
					     "end, %s events stopping", ne, np,
					     ne == 1 ? "trace has" :
					     "traces have",
					     ne == 1 ? "its" : "their");
			when_text(&b, v + i, ne, t0);
			if (np > 1)
				name_some(&b, v + i, ne);
			dft_buf_adds(&b, np == 1 ? ", as when the process is "
				     "killed by SIGKILL, crashes or is still "
				     "running; what the tracer held after its "
				     "last flush is lost" : ", as when killed "
				     "by SIGKILL, crashed or still running");
		}
		if (np > 1 && cnt[END_FINISHED] > 0)
			dft_buf_addf(&b, "; %lld finished",
				     (long long)cnt[END_FINISHED]);
		if (np > 1 && cnt[END_UNKNOWN] > 0)
			dft_buf_addf(&b, "; %lld with no start or end record "
				     "(how they ended is not known)",
				     (long long)cnt[END_UNKNOWN]);
	}
	ri->ends_text = dft_buf_detach(&b);
	dft_buf_release(&b);
	free(v);
}

static void
verdict(struct agg *a, struct run_info *ri, double *io_union)
{
	int64_t t0 = a->g[G_TS_MIN], t1 = a->g[G_TS_MAX];
	size_t np = a->m[M_PROC].count;
	struct pcand *c = dft_xcalloc(np + 1, sizeof(*c));
	double sum_io = 0, sum_wall = 0;

	if (t0 > t1)
		t0 = t1 = 0;
	ri->wall_s = (t1 - t0) / 1e6;
	ends_of(a, c, np);
	for (size_t i = 0; i < np; i++) {
		size_t kn;
		const char *k = dft_tmap_key(&a->m[M_PROC], i, &kn);
		const int64_t *pt = dft_tmap_get(&a->m[M_PROCT], k, kn, 0, NULL);
		const int64_t *pio = dft_tmap_get(&a->m[M_PROCIO], k, kn, 0,
						  NULL);
		double w = pt && pt[0] > 0 && pt[1] > 0 ?
			   (pt[1] - (SPAN_BIG - pt[0])) / 1e6 : 0;
		double io = pio ? pio[0] / 1e6 : 0;

		if (w < 0)
			w = 0;
		if (io > w && w > 0)
			io = w;
		c[i].k = k;
		c[i].wall = w;
		c[i].io = io;
		c[i].share = fr(io, w);
		sum_io += io;
		sum_wall += w;
	}
	*io_union = sum_io;
	process_ends(ri, c, np, t0);
	/*
	 * One time base for the verdict and the findings: process time, the
	 * processes' spans summed (one process: its wall time). The verdict's
	 * I/O is the processes' I/O unions summed, so no finding (at most
	 * that sum) can take a larger share than the verdict, and a set of
	 * sequential processes is judged on the time they ran, not on the
	 * span with the gaps between them.
	 */
	ri->proc_wall_s = sum_wall > 0 ? sum_wall : ri->wall_s;
	ri->io_wall_s = sum_io;
	ri->io_wall_share = fr(sum_io, ri->proc_wall_s);
	if (ri->io_wall_share > 1)
		ri->io_wall_share = 1;
	ri->verdict = verdict_of(ri->io_wall_share);
	if (np > 1)
		qsort(c, np, sizeof(*c), cmp_pcand);
	if (np > 1) {
		/* the busiest process, when it alone is in a higher band */
		const char *vb = verdict_of(c[0].share);
		char *busy = verdict_rank(vb) > verdict_rank(ri->verdict) ?
			dft_xasprintf("; busiest process %s %.1f %%: %s",
				      c[0].k, 100 * c[0].share,
				      verdict_words(vb)) : dft_xstrdup("");

		ri->verdict_text = dft_xasprintf(
			"I/O is %.1f %% of process time (%zu processes' "
			"spans summed): %s%s", 100 * ri->io_wall_share, np,
			verdict_words(ri->verdict), busy);
		free(busy);
	} else {
		ri->verdict_text = dft_xasprintf(
			"I/O is %.1f %% of wall time: %s",
			100 * ri->io_wall_share, verdict_words(ri->verdict));
	}
	ri->processes_io = json_object_new_array();
	for (size_t i = 0; i < np && i < 8; i++) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "process", dft_jstr(c[i].k));
		json_object_object_add(o, "wall_s", dft_jdouble(c[i].wall));
		json_object_object_add(o, "io_s", dft_jdouble(c[i].io));
		json_object_object_add(o, "io_wall_share",
				       dft_jdouble(c[i].share));
		json_object_object_add(o, "end", dft_jstr(end_name[c[i].how]));
		if (c[i].sig != NULL)
			json_object_object_add(o, "signal",
					       dft_jstr(c[i].sig));
		json_object_array_add(ri->processes_io, o);
	}
	ri->processes_io_more = np > 8 ? (int64_t)(np - 8) : 0;
	free(c);
	/* system files */
	for (size_t i = 0; i < a->m[M_FILE].count; i++) {
		size_t kn;
		const char *k = dft_tmap_key(&a->m[M_FILE], i, &kn);
		const int64_t *s = dft_tmap_value(&a->m[M_FILE], i);

		if (!is_system_path(k, kn))
			continue;
		ri->sys_n += s[S_N];
		ri->sys_t += s[S_T];
		ri->sys_b += s[S_B];
		ri->sys_files++;
	}
}

/* ---- code locations ------------------------------------------------------ */

static void
locate(struct run_info *ri, json_object *fns)
{
	size_t n = fns ? json_object_array_length(fns) : 0;

	for (size_t i = 0; i < n; i++) {
		json_object *o = json_object_array_get_idx(fns, i);
		const char *name = dft_json_str(o, "name", "");
		const struct fnloc *l = NULL;

		if (ri->funcs != NULL)
			l = dft_tmap_get(ri->funcs, name, strlen(name), 0,
					 NULL);
		if (l != NULL && l->file != NULL && l->defs == 0 &&
		    dft_json_str(o, "file", NULL) == NULL) {
			json_object_object_add(o, "file", dft_jstr(l->file));
			json_object_object_add(o, "line", l->line > 0 ?
					       dft_jint(l->line) : NULL);
		} else if (l != NULL && l->defs > 0 &&
			   dft_json_str(o, "file", NULL) == NULL) {
			/* which of them ran, only the trace could say */
			json_object_object_add(o, "definitions",
					       dft_jint(l->defs + 1));
		}
		json_object_object_add(o, "qualname", dft_jstr(
			l != NULL && l->qualname != NULL && !l->quals ?
			l->qualname : name));
	}
}

/*
 * The metadata class quotes X05 (HDF5 metadata) rather than X01, P17 or
 * W01 when the HDF5 metadata calls take longer than the POSIX metadata
 * calls: then its time is the finding's (stake_hdf5_metadata).
 */
static struct finding *
hdf5_primary(const struct jctx *j, struct results *r, size_t raw_n,
	     struct finding *prim)
{
	if (prim == NULL || strcmp(prim->d->cls, "metadata") != 0 ||
	    j->a->layer[L_HDF5][LF_MT] <= j->g[S_MT])
		return prim;
	for (size_t i = 0; i < raw_n; i++)
		if (r->f[i].d != NULL && strcmp(r->f[i].insight, "X05") == 0)
			return &r->f[i];
	return prim;
}

/* ---- judge ---------------------------------------------------------------- */

void
judge(struct agg *a, struct run_info *ri, struct results *r)
{
	struct jctx j = { 0 };
	struct results out = { 0 };
	size_t raw_n = r->n;

	j.a = a;
	j.ri = ri;
	app_sums(a, j.g);
	j.all_t = a->g[G_IO_S + S_T];
	verdict(a, ri, &j.io_union_s);
	/* the system finding: with --include-system, or when it dominates */
	if (ri->sys_t > 0 && (ri->include_system ||
			      fr((double)ri->sys_t, (double)j.all_t) >=
			      thr[T_SYSTEM_DOMINATES])) {
		double sh = fr((double)ri->sys_t, (double)j.all_t);
		struct finding *f = finding_add(r, insight_find("X04"),
						"system files", sh, LV_WARN);

		f->io_share = 0;
		json_object_object_add(f->evidence, "system_requests",
				       dft_jint(ri->sys_n));
		evd(f, "system_time_s", ri->sys_t / 1e6);
		json_object_object_add(f->evidence, "system_files",
				       dft_jint(ri->sys_files));
		f->functions = json_object_new_array();
		f->description = dft_xasprintf(
			"%.1f%% of the I/O time (%.2f s) is on %lld system and "
			"runtime files", 100 * sh, ri->sys_t / 1e6,
			(long long)ri->sys_files);
	}
	/* the training loop's wait, which caps read-side findings */
	for (size_t i = 0; i < a->m[M_LOOP].count; i++)
		j.loop_wait += ((int64_t *)dft_tmap_value(&a->m[M_LOOP], i))[0]
			       / 1e6;
	/* insights at level OK (P12/P14 mostly sequential, M04/M05
	 * collectives used, M06/M07 non-blocking used) are no finding: the
	 * summary lists them */
	ri->ok_insights = json_object_new_array();
	for (size_t i = 0; i < raw_n; i++) {
		const struct finding *f = &r->f[i];

		if (f->d == NULL || f->d->level != LV_OK)
			continue;
		json_object *o = json_object_new_object();

		json_object_object_add(o, "insight", dft_jstr(f->insight));
		json_object_object_add(o, "layer", dft_jstr(f->layer));
		json_object_object_add(o, "title", dft_jstr(f->title));
		json_object_object_add(o, "description",
				       dft_jstr(f->description));
		json_object_array_add(ri->ok_insights, o);
	}
	/* one finding per class: the strongest rule is the primary, the
	 * others are facets */
	for (size_t ci = 0; ci < NCODES; ci++) {
		const char *cls = insight_find(priority[ci])->cls;
		int seen = 0;

		for (size_t k = 0; k < ci; k++)
			if (strcmp(insight_find(priority[k])->cls, cls) == 0)
				seen = 1;
		if (seen)
			continue;
		struct finding *prim = NULL;

		for (size_t i = 0; i < raw_n; i++) {
			const char *c = class_of(&r->f[i]);

			if (c == NULL || strcmp(c, cls) != 0)
				continue;
			/* the class's rules in table order: the first is
			 * the one whose numbers the finding quotes */
			if (prim == NULL || code_index(r->f[i].insight) <
			    code_index(prim->insight))
				prim = &r->f[i];
		}
		if (r->n > raw_n && strcmp(cls, "system") == 0)
			prim = &r->f[raw_n];
		prim = hdf5_primary(&j, r, raw_n, prim);
		if (prim == NULL)
			continue;
		if (out.n == out.cap) {
			out.cap = out.cap ? 2 * out.cap : 16;
			out.f = dft_xreallocarray(out.f, out.cap,
						  sizeof(*out.f));
		}
		struct finding *f = &out.f[out.n++];

		take(f, prim, cls);
		fold_into(f, f);
		for (size_t i = 0; i < r->n; i++) {
			const char *c = class_of(&r->f[i]);

			if (&r->f[i] != prim && c != NULL &&
			    strcmp(c, cls) == 0)
				fold_into(f, &r->f[i]);
		}
		stake(&j, f);
	}
	same_requests(&j, &out);
	/* severity from the share of wall time */
	double den = ri->proc_wall_s > 0 ? ri->proc_wall_s : ri->wall_s;
	int cap = strcmp(ri->verdict, "not-io-bound") == 0;

	for (size_t i = 0; i < out.n; i++) {
		struct finding *f = &out.f[i];

		f->io_time_share = fr(f->time_s, j.g[S_T] / 1e6);
		if (f->io_time_share > 1)
			f->io_time_share = 1;
		f->wall_share = fr(f->time_s, den);
		if (f->wall_share > 1)
			f->wall_share = 1;
		f->severity = band(f->wall_share);
		/* the severity is what the user can save: the band of the
		 * estimated saving, but low when that is info and the time
		 * at stake is medium or more (shown: at stake, not saved by
		 * the model); a model that cannot estimate keeps the band of
		 * the time at stake */
		f->saving_share = fr(f->saving_s, den);
		if (f->saving_share > 1)
			f->saving_share = 1;
		if (!f->saving_unknown) {
			const char *sb = band(f->saving_share);

			if (sev_score(sb) < sev_score(f->severity))
				f->severity = sev_score(f->severity) > 2 &&
					      sev_score(sb) < 2 ? "low" : sb;
		}
		if (cap && sev_score(f->severity) > 3)
			f->severity = "medium";
		f->score = sev_score(f->severity);
		locate(ri, f->functions);
	}
	if (out.n > 1)
		qsort(out.f, out.n, sizeof(*out.f), cmp_stake);
	ri->findings_total = out.n;
	/* shown: the first findings_shown, plus forced dimensions */
	size_t shown = 0, lim = (size_t)thr[T_FINDINGS_SHOWN];

	if (!ri->all) {
		size_t w = 0;

		for (size_t i = 0; i < out.n; i++) {
			if (shown < lim || out.f[i].forced) {
				out.f[w++] = out.f[i];
				shown++;
			} else {
				finding_release(&out.f[i]);
			}
		}
		out.n = w;
	}
	ri->findings_shown = out.n;
	(void)shown;
	/* the raw rows are gone: replace the results */
	results_release(r);
	*r = out;
	(void)raw_n;
}

void
run_info_release(struct run_info *ri)
{
	free(ri->verdict_text);
	free(ri->ends_text);
	json_object_put(ri->processes_io);
	json_object_put(ri->ends);
	json_object_put(ri->unfinished);
	json_object_put(ri->ok_insights);
}
