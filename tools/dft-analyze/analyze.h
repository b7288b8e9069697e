/*
 * analyze.h - shared state of dft-analyze: the mergeable aggregate, the
 * thresholds, the preset layers, and the entry points of its files:
 *
 *   agg.c      one streaming pass over a trace into an aggregate, merging
 *   thresholds.c  names, defaults, the file reader, the JSON form
 *   rules.c    bottleneck findings from a finished aggregate: the
 *              descriptor table of the insights, one function each
 *   out.c      summary, layer, view and bottleneck records; --format table
 *   partial.c  --partial / --merge (aggregates as JSON)
 *   main.c     options, inputs, worker threads
 *
 * Every aggregate is a set of int64 counters (scalars, fixed layer arrays
 * and string-keyed tables of int64 rows), so two aggregates merge by adding
 * (or taking the minimum/maximum of the few fields marked so) and a merged
 * aggregate equals the aggregate of all inputs at once.
 */
#ifndef ANALYZE_H
#define ANALYZE_H

#include "dft.h"
#include "trace.h"

/* ---- thresholds ----------------------------------------------------------- */
enum thr_id {
	T_IMBALANCE_OPERATIONS, T_SMALL_BYTES, T_SMALL_REQUESTS,
	T_SMALL_REQUESTS_ABS, T_MISALIGNED_REQUESTS, T_FILE_ALIGNMENT,
	T_METADATA_TIME_RANK, T_RANDOM_OPERATIONS, T_RANDOM_OPERATIONS_ABS,
	T_IMBALANCE_STRAGGLERS, T_IMBALANCE_SIZE, T_INTERFACE_STDIO,
	T_COLLECTIVE_OPERATIONS, T_COLLECTIVE_OPERATIONS_ABS,
	T_WISIO_METADATA_TIME, T_WISIO_OPERATION_IMBALANCE, T_WISIO_RANDOM,
	T_WISIO_SIZE_IMBALANCE, T_WISIO_SMALL_TIME, T_WISIO_SMALL_SIZE,
	T_WISIO_UNOVERLAPPED, T_VIEW_MIN_SHARE, T_TIME_BIN_S,
	T_DLIO_FETCH_PRESSURE, T_DLIO_EPOCH_STRAGGLER, T_DLIO_CHECKPOINT_TIME,
	T_DLIO_FS_BW_MB_S,
	T_METADATA_TIME_SHARE, T_SYNC_TIME_SHARE, T_SYNC_REQUESTS_ABS,
	T_REDUNDANT_READ_RATIO, T_REDUNDANT_READ_BYTES, T_DEFAULT_BW_MB_S,
	T_SYSTEM_DOMINATES, T_FINDINGS_SHOWN, T_INTERVALS_MAX,
	T_VERDICT_IO_BOUND, T_VERDICT_PARTLY, T_HDF5_METADATA_OPS_ABS,
	T_STALL_FACTOR, T_SMALL_FILES_MIN,
	T_N
};
extern const char *const thr_name[T_N];
extern double thr[T_N];
/* Reads "name = value" lines (# comments). 0, or -1 after a message. */
int thr_load(const char *path, int must_exist);

/* ---- I/O classes ------------------------------------------------------- */
enum ioc { IOC_NONE = -1, IOC_READ = 0, IOC_WRITE, IOC_META, IOC_SYNC,
	   IOC_OTHER, IOC_N };
extern const char *const ioc_name[IOC_N];
#define NBINS 9
extern const char *const bin_label[NBINS];
int size_bin(int64_t bytes);

/* Event kinds of a function name (agg.c keeps them per name). */
enum {
	FN_IO = 1, FN_STDIO = 2, FN_MPIIO = 4, FN_APP = 8, FN_OPEN = 16,
	FN_CLOSE = 32, FN_SEEK = 64, FN_STAT = 128, FN_POSITIONAL = 256,
	FN_ELEMENTS = 512, FN_FORK = 1024, FN_COLLECTIVE = 2048,
	FN_MPI = 4096, FN_DIRFN = 8192, FN_HDF5 = 16384, FN_NONBLOCK = 32768,
	FN_REMOVE = 65536,	/* unlink, remove, rename: the path's file goes */
	FN_TRUNCATE = 131072	/* truncate, ftruncate: the file's size set */
};

/* ---- the per-row counters of an I/O sum (files, processes, bins) ------ */
enum {
	S_N, S_T, S_B,
	S_RN, S_RT, S_RB, S_WN, S_WT, S_WB, S_MN, S_MT, S_YN, S_YT, S_ON, S_OT,
	S_SMALL_R, S_SMALL_W, S_SMALL_RT, S_SMALL_WT,
	S_SEQ_R, S_SEQ_W, S_CONS_R, S_CONS_W, S_RND_R, S_RND_W,
	S_MISAL, S_ALIGN_CHECKED,
	/* STDIO's calls, their data time (reads, writes, flushing closes,
	 * syncs: not opens, stats or clean closes) and bytes */
	S_STDIO_N, S_STDIO_T, S_STDIO_B,
	S_SMALL_RB, S_SMALL_WB, S_RND_T, S_RND_B, S_MISAL_T, S_MISAL_B,
	S_MISAL_SMALL_T, S_MISAL_PAGE_T, S_NONCONS_T, S_NONCONS_B,
	S_SMALL_NONCONS_T, S_REREAD_N, S_REREAD_T, S_REREAD_B, S_DISTINCT_RB,
	/* closes of a file its process wrote since its last close or sync:
	 * the flush of the data written (not metadata); the reads' part of
	 * the misaligned and random requests' time */
	S_FLUSH_N, S_FLUSH_T, S_MISAL_RT, S_RND_RT,
	S_HIST_R, S_HIST_W = S_HIST_R + NBINS,
	S_NF = S_HIST_W + NBINS
};

/* M_FILEPROC's metadata calls by kind from column FPM_OPEN: opens, closes
 * (not flushing), stats, seeks, each calls and time; then all its
 * metadata calls and their time (FPM_META: the kinds and the other calls,
 * ftruncate, unlink, mkdir, rename, ...) */
enum { FPM_OPEN = 5, FPM_CLOSE = 7, FPM_STAT = 9, FPM_SEEK = 11,
       FPM_META = 13, FP_NF = 15 };

/* attribution classes: offending-request kinds a finding can blame */
enum cls {
	C_IO, C_READ, C_WRITE, C_META, C_SMALL_R, C_SMALL_W, C_RAND_R,
	C_RAND_W, C_STDIO, C_MISAL, C_SYNC, C_REREAD, C_CKPT, C_FLUSH, C_N
};
#define ATTR_NF (2 * C_N)	/* per class: count, time */

/* ---- layers ------------------------------------------------------------ */
enum layer_id {
	L_POSIX,
	L_APP, L_TRAINING, L_COMPUTE, L_FETCH, L_LOADER, L_LOADER_FORK,
	L_READER, L_READER_POSIX, L_CKPT, L_CKPT_POSIX, L_OTHER_POSIX,
	L_MPIIO, L_HDF5,
	L_N
};
#define NDER 10
enum { LF_N, LF_T, LF_B, LF_RN, LF_RT, LF_RB, LF_WN, LF_WT, LF_WB,
       LF_MN, LF_MT, LF_MB, LF_DER, LF_NF = LF_DER + 3 * NDER };
struct layer_def {
	const char *name;
	int parent;		/* -1 at the root */
	const char *query;
	int posix_derived;	/* derived set: 1 posix, 2 loader, 3 reader,
				 * 4 mpiio, 5 hdf5 */
};
extern const struct layer_def layer_defs[L_N];
extern const char *const der_posix[NDER];
extern const char *const der_loader[NDER];
extern const char *const der_reader[NDER];
extern const char *const der_mpiio[NDER];
extern const char *const der_hdf5[NDER];

/* MPI-IO data calls of one file (M_MPIFILE): per direction (MF_W + x for
 * writes) calls, time and bytes: all, collective, independent, small
 * (under small_bytes); and the non-blocking calls. */
enum { MF_N, MF_T, MF_B, MF_COLL_N, MF_COLL_T, MF_COLL_B, MF_IND_N,
       MF_IND_T, MF_IND_B, MF_NB_N, MF_SMALL_N, MF_SMALL_T, MF_SMALL_B,
       MF_W, MF_NF = 2 * MF_W };

/* ---- the aggregate ----------------------------------------------------- */
enum {
	G_LINES, G_EVENTS, G_CALLS, G_META_EVENTS, G_BAD_LINES, G_TRUNCATED,
	G_FILES_READ, G_GEN0, G_GEN1, G_GEN2, G_GEN3, G_TS_MIN, G_TS_MAX,
	G_UNATTR_T, G_MPI_EVENTS, G_MPIIO_N, G_MPIIO_COLL, G_FETCH_ITER,
	G_MPIIO_INNER_T, G_HDF5_INNER_T,
	G_IO_S, G_NF = G_IO_S + S_NF
};
/* First times are kept as SPAN_BIG - ts in maximum-merged rows (M_PROCT,
 * M_FILEPROCT), so a zero row means "none" and merging takes the minimum. */
#define SPAN_BIG ((int64_t)1 << 62)
/* Interval sets (iset.c): sorted, disjoint, at most `limit` intervals. */
struct ival {
	int64_t s, e;
};
struct iset {
	struct ival *v;
	size_t n, cap, limit;
	int64_t slack;		/* gap length joined by compaction */
	int strict;		/* keep touching intervals apart (epochs) */
};
void iset_init(struct iset *s, size_t limit);
void iset_release(struct iset *s);
/* Adds [a, b); returns how much of it was covered already. */
int64_t iset_add(struct iset *s, int64_t a, int64_t b);
int64_t iset_total(const struct iset *s);
/* Length of the set's part within [a, b). */
int64_t iset_within(const struct iset *s, int64_t a, int64_t b);

enum map_id {
	M_CAT,		/* cat -> n t b */
	M_FUNC,		/* name \x1f cat -> n t b, flushing closes n t, records */
	M_FILE,		/* file -> S_* */
	M_FILEX,	/* file -> max read end, max write end (max) */
	M_FILEPROC,	/* file \x1e proc -> n t b rb wb, then FPM_* */
	M_PROC,		/* proc -> S_* */
	M_THREAD,	/* thread -> n */
	M_HOST,		/* host -> n */
	M_BIN,		/* bin -> S_* */
	M_BINPROC,	/* bin \x1e proc -> n */
	M_BINFILE,	/* bin \x1e file -> n */
	M_LAYERTHR,	/* layer \x1e thread -> n */
	M_EPOCH,	/* epoch \x1e thread -> reader time */
	M_ATTR_F,	/* func \x1e file -> ATTR_NF */
	M_ATTR_P,	/* func \x1e proc -> ATTR_NF */
	M_IFACE,	/* posix|stdio|mpiio -> n t b */
	M_PROCT,	/* proc -> -first ts, last end (max) */
	M_PROCIO,	/* proc -> union of its I/O intervals (us) */
	M_FILEPROCT,	/* file \x1e proc -> -first, last data I/O (max) */
	M_LOOP,		/* epoch \x1e thread -> wait, compute, span, steps,
			 * derived */
	M_MPIFILE,	/* file -> MF_* (MPI-IO data calls) */
	M_MPIFILEPROC,	/* file \x1e proc -> MPI-IO data calls */
	M_MPIGAP,	/* proc -> time after its blocking MPI-IO data
			 * calls until its next MPI-IO call (us) */
	M_MPICB,	/* file \x1e host -> the largest cb_nodes hint of
			 * its MPI_File_open calls there (max; 0: none) */
	M_DURH,		/* call \x1e class -> calls and time per
			 * duration bucket [2^b, 2^(b+1)) us (b 0: [0, 2)) */
	M_SLOW,		/* call \x1e class \x1e proc \x1e file \x1e bin \x1e
			 * thread \x1e ts -> SL_* (max): the slowest
			 * single calls of each stream, SLOW_K a group */
	M_FILEC,	/* file -> opens that truncate it (O_TRUNC with write
			 * access, creat, fopen "w"), removals (unlink,
			 * remove, rename away), truncations to 0
			 * (truncate, ftruncate), truncations to a size
			 * below what was written and the sum of their
			 * sizes: its contents, file_allowance */
	M_FILECM,	/* file -> MPI_File_set_size calls to 0, to a
			 * size, the sum of those sizes: per process (a
			 * collective call: every rank makes it) (max) */
	M_PROCEND,	/* proc -> its tracer's start record seen (1), its
			 * end record's ts + 1 (0: none) (max) */
	M_PROCSIG,	/* proc \x1e signal name -> 1, the signal's number:
			 * the runtime's "signal" record, the process
			 * killed by it (max) */
	M_N
};
#define NDB 40
#define SLOW_K 8
enum { SL_DUR, SL_IOC, SL_MASK, SL_BYTES, SL_HBIN, SL_FPM, SL_STDIO, SL_NF };
struct map_def {
	const char *name;
	int nf;
	int max;		/* merge by maximum instead of sum */
	const char *parts;	/* key components: F file, P proc, T thread,
				 * H host, S plain */
};
extern const struct map_def map_defs[M_N];

struct agg {
	int64_t g[G_NF];
	int64_t layer[L_N][LF_NF];
	struct dft_tmap m[M_N];
	/* agg_finalize: the application I/O sums before the stalls were
	 * taken out of the judged rows, and the stalls (calls, time taken
	 * out in us) */
	int64_t io_raw[S_NF];
	int64_t stall_n, stall_t;
};
void agg_init(struct agg *a);
void agg_release(struct agg *a);
/* dst += src (keys taken as they are). */
void agg_merge(struct agg *dst, const struct agg *src);
/* Derived layer rows (other_posix); once, before rules and output. */
void agg_finalize(struct agg *a);
/* Reads one trace into a (per-trace state is local). Returns the exit
 * status; records (lines with a string "type") are handed to
 * rec(line, len, ctx) in order. When t ends, next(t, nctx) may continue it
 * with the following chunk of the same trace (dft_trace_chain) and return
 * 1: the chunks are one stream (enclosing functions, file positions and
 * names carry over). next is called once more at the very end (its return
 * is then ignored by a caller that has nothing left); NULL: one file. */
typedef void (*rec_fn)(const char *line, size_t len, long lineno, void *ctx);
typedef int (*next_fn)(struct dft_trace *t, int status, void *ctx);
int agg_trace(struct agg *a, struct dft_trace *t, rec_fn rec, void *ctx,
	      next_fn next, void *nctx);
int64_t *agg_row(struct agg *a, int map, const char *k, size_t n);
/* The bytes the file of key k can move without moving one twice, its
 * highest offset in that direction being extent (M_FILEX): extent once
 * per contents it held (M_FILEC, M_FILECM: its truncating opens plus its
 * truncations to 0, its removals, or 1 plus its MPI_File_set_size calls
 * to 0, whichever are more; at least 1), and the part of extent past the
 * size of each truncation to a size once more. */
int64_t file_allowance(struct agg *a, const char *k, size_t kn,
		       int64_t extent);
void layer_add(struct agg *a, int l, int ioc, int64_t n, int64_t dur,
	       int64_t bytes);
void der_add(struct agg *a, int l, int slot, int64_t n, int64_t dur,
	     int64_t b);

/* ---- the MPI-IO and HDF5 layers (mpiio.c) ------------------------------ */
/* FN_* bits and *ioc of an MPIIO (hdf5 = 0) or HDF5 call. */
int mpiio_kind(const char *name, size_t n, int hdf5, int *ioc);
/* One MPI-IO or HDF5 call as agg.c hands it to mpiio.c. */
struct upper_ev {
	const struct dft_trace_ev *ev;
	int kind, ioc;
	int64_t n, dur;
	int64_t inner;		/* lower layers' time inside it (us) */
	const char *file;	/* local file key, NULL: none */
	size_t filen;
	const char *proc;	/* local process key */
	size_t procn;
};
/* Counts the call into its layer, interface, file and process rows;
 * returns its bytes. */
int64_t upper_add(struct agg *a, const struct upper_ev *u);
int fn_kind(const char *name, size_t n, const char *cat, size_t cn,
	    int *ioc);

/* ---- results ------------------------------------------------------------ */
struct finding {
	const char *metric, *layer, *view;
	char *scope;
	double value, threshold;
	const char *op;
	int score;
	const char *component;
	const char *insight, *source, *title;
	const struct insight *d;	/* its row of the table */
	char *description;
	const char *recommendation;
	json_object *evidence;	/* owned */
	json_object *functions;	/* owned */
	double io_share;
	int forced;
	/* judgement (rules.c consolidate) */
	const char *cls;	/* catalogue class */
	double time_s, saving_s, wall_share, io_time_share, saving_share;
	char *saving_model;
	int no_gain;		/* the trace's own rate is no faster */
	int saving_unknown;	/* the model cannot estimate a saving */
	char *rec_own;		/* recommendation built for this run (owned;
				 * recommendation points to it) */
	const char *severity;
	json_object *facets, *insights, *files, *calls;	/* owned */
	int64_t files_more;
	int raw;		/* a rule's row, before consolidation */
};
struct results {
	struct finding *f;
	size_t n, cap;
};
struct run_info {
	const char *preset;	/* "posix" or "dlio" */
	char *preset_reason;
	json_object *inputs;	/* array of names */
	int top;
	/* chunk series read: id -> {"source": path, "parts": [1, 2, ...]} */
	json_object *series;
	int all;		/* --all: every finding */
	int include_system;	/* --include-system */
	struct dft_tmap *funcs;	/* name -> struct fnloc (function records) */
	/* filled by rules_run for out.c */
	double wall_s, proc_wall_s, io_wall_s, io_wall_share;
	const char *verdict;
	char *verdict_text;
	json_object *processes_io;	/* array, owned */
	json_object *ok_insights;	/* array, owned */
	int64_t processes_io_more;
	/* how the processes ended: counts by way, one sentence, the first 8
	 * that did not finish (owned) and the number left out */
	json_object *ends, *unfinished;
	char *ends_text;
	int64_t unfinished_more;
	int64_t sys_n, sys_t, sys_b, sys_files;
	size_t findings_total, findings_shown;
};
/* A function record's location (--functions, or records on stdin). */
struct fnloc {
	char *file, *qualname;
	int64_t line;
	int64_t defs;		/* definitions at other places (overloads, one
				 * main per program): the location is unknown */
	int quals;		/* more than one qualified name */
};
/* Whether p[0..n) contains / starts with lit (judge.c). */
int str_has(const char *p, size_t n, const char *lit);
int str_starts(const char *p, size_t n, const char *lit);
/* Whether a path is a system or runtime file (diagnosis-rules.md §8). */
int is_system_path(const char *p, size_t n);
void rules_run(struct agg *a, struct run_info *ri, struct results *res);
/*
 * The insights (rules.c's descriptor table): one row per code, naming its
 * catalogue class, level, threshold and the function that computes it.
 * Levels are Drishti's; a finding's score is HIGH 4 (5 at four times the
 * threshold), WARN 3, INFO 2, OK 1; LV_RULE: the rule scores it (WisIO's
 * row share, dlio's bands).
 */
enum level { LV_RULE, LV_OK, LV_INFO, LV_WARN, LV_HIGH };
struct rules_ctx;
struct insight {
	const char *code;
	const char *cls;	/* catalogue class; NULL: no finding */
	const char *source;	/* drishti, wisio, dft, dlio */
	const char *metric, *layer, *view;
	enum level level;
	int thr;		/* thr[] index; T_N: thr_fixed */
	double thr_fixed;
	int aux;		/* auxiliary threshold's index, or T_N */
	const char *op;
	int w;			/* the write (second) form of a pair */
	int under;		/* fires at or below the threshold */
	const char *title, *recommendation;
	void (*run)(struct rules_ctx *c, const struct insight *d);
};
extern const struct insight insights[];
extern const size_t ninsights;
/* The row of a code; dies on an unknown code (a programming error). */
const struct insight *insight_find(const char *code);
struct finding *finding_add(struct results *r, const struct insight *d,
			    const char *scope, double value, int score);
/* The threshold an insight's value is compared with; its auxiliary one
 * (an absolute count, a size, a time; 0 without). */
double insight_thr(const struct insight *d);
double insight_aux(const struct insight *d);
/* A score from a level: HIGH 4, 5 at four times the threshold; WARN 3,
 * INFO 2, OK 1. */
int insight_score(const struct insight *d, enum level lv, double v);
void finding_evi(struct finding *f, const char *k, int64_t v);
void finding_evd(struct finding *f, const char *k, double v);
/* What the insights of one run share: the run's I/O sums, the shared
 * files (P15/P16, P18/P19, P21/P22) and the application's sums and files
 * (dft's own rules). */
struct rules_ctx {
	struct agg *a;
	struct results *r;
	const int64_t *g;	/* the run's I/O sums */
	struct dft_tmap np;	/* shared file -> processes with data I/O */
	struct dft_tmap shared;	/* the shared files, as a set */
	struct dft_tmap st;	/* shared file -> struct strag */
	int64_t nshared;
	int64_t app[S_NF];	/* the sums without system files */
	struct dft_tmap appf;	/* the application files */
};
/* mpiio.c's insights (rows of the table) */
void i_mpiio_collective(struct rules_ctx *c, const struct insight *d);
void i_mpiio_uses_collective(struct rules_ctx *c, const struct insight *d);
void i_mpiio_blocking(struct rules_ctx *c, const struct insight *d);
void i_mpiio_shared_small(struct rules_ctx *c, const struct insight *d);
void i_hdf5_metadata(struct rules_ctx *c, const struct insight *d);
/* Sums of the MPI-IO data calls (MF_* of one direction: w = 0 reads, 1
 * writes) over the application's files; shared: only files two or more
 * processes call MPI-IO data functions on. Returns the number of files. */
int64_t mpiio_sums(struct agg *a, int w, int shared, int64_t *out);
/* M08-M10: a file MPI_File_open opened, its cb_nodes hint (0: none) and
 * the number of hosts that opened it */
struct mpi_cb {
	const char *file;
	size_t filen;
	int64_t cb_nodes, nodes;
};
int64_t mpiio_cb_files(struct agg *a, struct mpi_cb *out, size_t max);
/* -1 fewer aggregators than nodes, 0 as many, 1 more */
int mpiio_cb_rel(const struct mpi_cb *f);
void i_mpiio_aggregators(struct rules_ctx *c, const struct insight *d);
/* rules.c helpers shared with judge.c and mpiio.c */
extern int rules_include_system;
/* A file the rules leave out: a system or runtime file (unless
 * --include-system). */
int skip_file(const char *k, size_t n);
/* File i of the file view: its sums, or NULL for a file skip_file() leaves
 * out; its key in *k, *kn when they are not NULL. */
const int64_t *app_file(struct agg *a, size_t i, const char **k, size_t *kn);
void app_sums(struct agg *a, int64_t *out);
/* A candidate row to rank: value, highest first, then key (cmp_cand). */
struct cand {
	double v;
	const char *k;
	size_t i;	/* its index in the map it came from */
};
int cmp_cand(const void *x, const void *y);
void app_files(struct agg *a, struct dft_tmap *set);
void shared_files(struct agg *a, struct dft_tmap *np);
struct strag {
	int64_t mxb, mnb, totb, mxt, mnt, tott, n;
};
void shared_stats(struct agg *a, const struct dft_tmap *shared,
		  struct dft_tmap *st);
/* the I/O calls of class ioc (IOC_META, IOC_SYNC) by time, at most 8:
 * [{name, cat, count, time_s}] */
json_object *calls_of(struct agg *a, int ioc);
json_object *functions_for(struct agg *a, uint32_t cmask,
			   const struct dft_tmap *files, const char *proc);
/* judge.c: verdict, time at stake, one finding per cause, ranking */
void judge(struct agg *a, struct run_info *ri, struct results *res);
void run_info_release(struct run_info *ri);
void results_release(struct results *res);
void finding_release(struct finding *f);
int score_frac(double v);
const char *score_label(int s);
const char *choose_preset(struct agg *a, char **reason);

void out_records(FILE *out, struct agg *a, const struct run_info *ri,
		 struct results *res);
void out_table(FILE *out, struct agg *a, const struct run_info *ri,
	       struct results *res);
json_object *thresholds_json(void);
/* layer helpers shared by out.c and rules.c */
double layer_time(struct agg *a, int l);

json_object *partial_json(struct agg *a, const struct run_info *ri);
/* Adds a partial record into a. 0, or -1 with a message in *why. */
int partial_load(struct agg *a, json_object *rec, json_object *inputs,
		 const char **why);

#endif
