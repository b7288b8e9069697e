/*
 * trace.h - reading dftracer traces (trace.c, trace_map.c,
 * trace_inputs.c): the event reader, chunk streams, the trace operands
 * of a tool, and the string-keyed table the reader keeps names in.
 */
#ifndef DFT_TRACE_H
#define DFT_TRACE_H

#include "dft.h"

/*
 * One line of a trace tool's standard input, which may name traces as well
 * as carry records: a plain line is a trace path, a `chunk` record with a
 * path names one. 1: *path is a trace to read (caller frees); 0: any other
 * line, *rec is its record (caller puts; NULL when not JSON) to consume or
 * pass through; -1: a plain line that is not an existing file.
 */
int dft_trace_input_line(const char *line, size_t len, char **path,
			 json_object **rec);
/*
 * String-keyed table (trace_map.c): keys are byte strings copied into the
 * table; values are fixed-size, zeroed on creation, at stable addresses;
 * entries are numbered 0..count-1 in insertion order (deterministic walks).
 */
struct dft_tmap {
	size_t vsize, count, cap;	/* cap: slots, a power of two */
	uint32_t *slots;		/* entry index + 1, 0 = empty */
	uint64_t *hashes;		/* per entry */
	char **keys;			/* per entry, NUL-terminated */
	size_t *klens;
	char **vblocks;			/* values in blocks of 256 */
	size_t nblocks;
};
void dft_tmap_init(struct dft_tmap *m, size_t vsize);
void dft_tmap_release(struct dft_tmap *m);
/* Value of key k[0..n); created (zeroed) when absent and create is set,
 * else NULL. *is_new (optional) tells which. Borrowed, stable. */
void *dft_tmap_get(struct dft_tmap *m, const char *k, size_t n, int create,
		   int *is_new);
void *dft_tmap_value(const struct dft_tmap *m, size_t i);
const char *dft_tmap_key(const struct dft_tmap *m, size_t i, size_t *n);
uint64_t dft_hash_bytes(const void *p, size_t n);

/*
 * dftracer trace reader (trace.c): .pfw or .pfw.gz (any number of gzip
 * members), every format generation (see dftracer-format.md §3.10). One
 * reused line buffer; a hand scanner extracts the fields below, json-c only
 * for lines the scanner cannot take. Strings in an event point into the
 * reader's buffers and are valid until the next dft_trace_next().
 */
struct dft_str {
	const char *p;
	size_t n;
};
enum dft_ph {
	DFT_PH_UNKNOWN = 0, DFT_PH_X, DFT_PH_COUNTER, DFT_PH_AGG, DFT_PH_M,
	DFT_PH_OTHER
};
enum {	/* dft_trace_ev.has */
	DFT_EV_ID = 1 << 0, DFT_EV_TS = 1 << 1, DFT_EV_DUR = 1 << 2,
	DFT_EV_RET = 1 << 3, DFT_EV_COUNT = 1 << 4, DFT_EV_OFFSET = 1 << 5,
	DFT_EV_SIZE = 1 << 6, DFT_EV_WHENCE = 1 << 7, DFT_EV_FD = 1 << 8,
	DFT_EV_EPOCH = 1 << 9, DFT_EV_STEP = 1 << 10, DFT_EV_CNT = 1 << 11,
	DFT_EV_DUR_SUM = 1 << 12, DFT_EV_RET_SUM = 1 << 13,
	DFT_EV_SIZE_SUM = 1 << 14, DFT_EV_SRC_LINE = 1 << 15,
	DFT_EV_PID = 1 << 16, DFT_EV_TID = 1 << 17, DFT_EV_ARGS = 1 << 18,
	DFT_EV_NOTJSON = 1 << 19,	/* raw line (only with t->raw_lines) */
	DFT_EV_BADNUM = 1 << 20,	/* ts, dur or size not a number (the
					 * reader counts such a line as bad) */
	DFT_EV_COLLECTIVE = 1 << 21,	/* args.collective (MPI-IO, HDF5) */
	DFT_EV_CB_NODES = 1 << 22,	/* args.cb_nodes (MPI_File_open) */
	DFT_EV_AGGIO = 1 << 23,		/* args.seq or args.end: an
					 * aggregated I/O record of the dft
					 * runtime (dft(7)) */
	DFT_EV_SIZE_MIN = 1 << 24,	/* args.size_min */
	DFT_EV_PLINE = 1 << 25,		/* args.pline */
	DFT_EV_PIDX = 1 << 26,		/* args.p_idx (the parent's id) */
	DFT_EV_FLAGS = 1 << 27,		/* args.flags (open's O_* flags) */
	DFT_EV_LENGTH = 1 << 28,	/* args.length (truncate's size) */
};
enum {	/* dft_trace_ev.style: what the line looked like */
	DFT_STYLE_STR_NUM = 1,		/* numbers as JSON strings (Gen-0) */
	DFT_STYLE_INLINE = 2,		/* args.hostname / args.fname (Gen-0) */
	DFT_STYLE_NUM_HASH = 4,		/* numeric hashes (Gen-1) */
	DFT_STYLE_STR_HASH = 8,		/* string hashes (Gen-2) */
	DFT_STYLE_INT_PH = 16,		/* integer ph / type column (Gen-3) */
};
struct dft_trace_ev {
	const char *line;	/* the trimmed line */
	size_t len;
	long lineno;		/* 1-based, of the uncompressed text */
	int ph;			/* enum dft_ph */
	unsigned has;		/* DFT_EV_* */
	unsigned style;		/* DFT_STYLE_* */
	struct dft_str name, cat;
	struct dft_str rtype;		/* a string "type": a dft record */
	int64_t id, pid, tid;
	int64_t ts, dur;
	/* args; hashes as their text (opaque), numbers parsed */
	struct dft_str hhash, fhash, hostname, fname;
	struct dft_str mname, mvalue;	/* metadata: args.name, args.value */
	struct dft_str src_file;	/* args.file or args.filename */
	int64_t src_line;		/* args.line or args.lineno */
	int64_t ret, count, offset, size, whence, fd, epoch, step;
	int64_t dft_cnt, dur_sum, ret_sum, size_sum;
	int64_t pidx;			/* args.p_idx: -1 at the top level */
	int64_t collective;
	int64_t cb_nodes;		/* the open's cb_nodes hint */
	/* an aggregated I/O record (DFT_EV_AGGIO): every call alike in size
	 * class and access kind; the position model after its last call;
	 * its enclosing function */
	int64_t size_min, size_max;
	int64_t seq, misaligned, reread;	/* seq: 0 random, 1 sequential,
						 * 2 consecutive */
	int64_t extent, end_ts, pos, rd_end, wr_end;
	struct dft_str parent, pcat, pfile;
	int64_t pline;
	int64_t oflags;			/* args.flags of an open */
	int64_t length;			/* args.length of a truncate */
	struct dft_str fmode;		/* args.mode of fopen, a string */
};
#define DFT_TRACE_KEEP_BAD 5	/* bad lines remembered for messages */
struct dft_trace_priv;		/* input, gzip state, line buffers: trace.c's */
struct dft_trace {
	const char *name;
	struct dft_trace_priv *priv;
	long lineno;
	int raw_lines;		/* set: return non-JSON lines as DFT_EV_NOTJSON */
	/* statistics */
	long lines;		/* valid lines (dftracer-utils event count) */
	long bad;		/* lines not readable as an event */
	int truncated;		/* gzip stream or last line cut short */
	int corrupt;		/* gzip data errors skipped */
	/* what dft_trace_report prints (a copy of the struct keeps it) */
	long bad_line[DFT_TRACE_KEEP_BAD];
	const char *bad_why[DFT_TRACE_KEEP_BAD];
	char stream_err[160];	/* first gzip-level problem, or "" */
	long stream_err_line;
	unsigned long names_gen;	/* bumped when a name is (re)defined */
	/* a dft-split chunk: its dft_chunk line (not returned, not counted) */
	char chunk_series[24];	/* "" when the file has no such line */
	long chunk_part;	/* 1-based place in the series, 0 if none */
	char *chunk_source;	/* the trace the chunk came from */
	int skip_late;		/* set by the caller: end a chunk at its "]" */
	long files;		/* files read so far (dft_trace_chain) */
};
/* 0, or -1 with errno (nothing to release). path "-" is stdin. */
int dft_trace_open(struct dft_trace *t, const char *path);
/* Memory only (fuzzing, tests): the data is not copied, keep it alive. */
void dft_trace_open_mem(struct dft_trace *t, const char *name,
			const void *data, size_t n);
/* 1: *ev is the next event line; 0: end; -1: read error (errno). Lines
 * that are not events are counted in t->bad and skipped: not JSON, JSON
 * that is not an object or an object with neither name, ph nor type, and
 * events with an impossible number (a ts, dur or size that is negative,
 * not a finite number, or beyond DFT_TRACE_MAX_TS, _DUR, _SIZE), so no
 * aggregate sees them. HH/FH/SH metadata lines are also entered in
 * the reader's name table (dft_trace_lookup), then returned. */
#define DFT_TRACE_MAX_TS 1e17	/* us: about the year 5100 */
#define DFT_TRACE_MAX_DUR 1e14	/* us: about 3 years */
#define DFT_TRACE_MAX_SIZE 1e15	/* bytes in one operation: 1 PB */
int dft_trace_next(struct dft_trace *t, struct dft_trace_ev *ev);
/* kind 'F', 'H' or 'S'; the name for hash h, or NULL. Borrowed. */
const struct dft_str *dft_trace_lookup(struct dft_trace *t, char kind,
				       const char *h, size_t n);
void dft_trace_close(struct dft_trace *t);
/*
 * Chunk streams. dft-split writes, second in every chunk, one metadata line
 *   {"name":"dft_chunk","ph":"M",...,"args":{"series":S,"part":K,"source":P}}
 * (series: 16 hex digits naming the chunks of one source; part: 1, 2, ...
 * in the order of the source). The reader takes it into t->chunk_*; in
 * such a file HH/FH/SH lines that repeat the name a hash already has are
 * skipped (dft-split copies them into every chunk that needs them), and
 * with t->skip_late set the text after the closing "]" (the copies
 * dft-split appends for names defined later in the source) is not read.
 *
 * dft_trace_chain continues t with the next file of a stream after
 * dft_trace_next returned 0: the names and their generation are kept, the
 * per-file statistics (lines, bad, truncated, corrupt, lineno, chunk_*,
 * skip_late) start again. 0, or -1 with errno (t then still ends where it
 * was and can be closed).
 */
int dft_trace_chain(struct dft_trace *t, const char *path);
/* The dft_chunk line of a chunk file, from its first few KiB: 1 with
 * series (24 bytes) and *part filled, 0 when there is none or path is
 * not a regular file (a pipe is left unread), -1 + errno. */
int dft_trace_peek_chunk(const char *path, char series[24], long *part);
/*
 * The streams among trace files paths[0..n) (trace_inputs.c): the chunks
 * of one series, in part order, are one stream; every other file is one
 * alone. Streams come in the order of their first file. idx[] are indexes
 * into paths, part[] the chunk parts (0: not a chunk). A part given twice
 * starts another stream.
 */
struct dft_trace_stream {
	size_t *idx;
	long *part;
	size_t n;
};
size_t dft_trace_streams(char *const *paths, size_t n,
			 struct dft_trace_stream **out);
/* Frees the members of v[0..n), and v itself when array is set. */
void dft_trace_streams_free(struct dft_trace_stream *v, size_t n, int array);
/* Prints the first bad lines and the stream problem as "FILE:LINE: ..."
 * warnings plus a count of the rest; returns 1 when there was any. */
int dft_trace_report(const struct dft_trace *t);
/* The *.pfw and *.pfw.gz files of a directory (not recursive), sorted:
 * *out is a caller-freed array of caller-freed paths. Count, or -1+errno. */
int dft_trace_list_dir(const char *dir, char ***out);
/* The trace operands ops[0..n) (trace_inputs.c): a file as it is, a
 * directory for its traces (dft_trace_list_dir), warned about when it
 * cannot be read. A FIFO, socket or device (which would block) is warned
 * about and skipped, except an operand /dev/fd/N (a process substitution). *paths is a NULL-terminated array (dft_strv_free) of
 * *npaths paths, NULL when there are none. DFT_EXIT_OK or DFT_EXIT_DATA. */
int dft_trace_inputs(int n, char *const *ops, char ***paths,
		     size_t *npaths);
/* Generation 0..3 guessed from DFT_STYLE_* bits, -1 when unknown. */
int dft_trace_generation(unsigned style_seen);

#endif
