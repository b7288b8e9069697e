/*
 * trace.c - the dftracer trace reader shared by dft-split and dft-analyze.
 *
 * Reads .pfw and .pfw.gz files of every format generation (Gen-0 2023
 * style with numbers as strings and inline names, Gen-1 numeric hashes
 * that may exceed 2^63, Gen-2 hex-string hashes and "C" aggregated events,
 * Gen-3 NDJSON with integer ph). It follows the robust-reader rules of
 * dftracer-format.md §3.10: every gzip member is inflated, lines are
 * trimmed, brackets and short lines are skipped, a missing "]" or a cut
 * last line or gzip stream ends the file after everything readable was
 * returned, and every line that is not an event is counted (the first few
 * with their line numbers) instead of stopping the read.
 *
 * Speed: one reused output buffer, lines found with memchr, a hand scanner
 * that walks each line once and keeps slices of the fields the tools use.
 * json-c is only asked when the scanner gives up on a line.
 *
 * The chunks dft-split cuts from one trace can be read as that trace: a
 * chunk's dft_chunk line names its series and part, dft_trace_chain()
 * continues a reader with the next part and keeps the hash names.
 *
 * This does not: sort events, resolve hashes across traces (hash maps are
 * per trace, as the hashes only mean something next to their metadata
 * lines), or print anything (dft_trace_report() does, on request).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "trace.h"

#define IN_CHUNK (256 * 1024)
#define OUT_CHUNK (1024 * 1024)
#define MAX_LINE (64 * 1024 * 1024)
#define MAX_DEPTH 64

struct mem_src {
	const unsigned char *p;
	size_t n, pos;
};

/* What a reader keeps to itself: trace.c's alone. */
struct dft_trace_priv {
	/* the raw (possibly compressed) input */
	int fd;			/* -1: none (a memory input) */
	int gz, eof, in_eof;
	z_stream *zs;		/* gzip only */
	unsigned char *in;	/* raw bytes read */
	size_t in_cap;
	/* the line buffers the events point into (the scanner's) */
	char *buf;		/* uncompressed text */
	size_t buf_len, buf_pos, buf_cap;
	char *scratch;		/* unescaped strings */
	size_t scratch_cap, scratch_len;
	json_object *jobj;	/* json-c fallback object of the last line */
	struct dft_tmap names;	/* "F"/"H"/"S" + hash text -> struct dft_str */
	/* per file: dft_trace_chain starts these again */
	struct mem_src *mem;
	int member_done;
	int skipping;		/* discarding an over-long line */
	int stopped;		/* a chunk ended at its "]" (skip_late) */
};

/* ---- raw input ----------------------------------------------------------- */

static ssize_t
raw_read(struct dft_trace *t, void *dst, size_t n)
{
	struct dft_trace_priv *r = t->priv;
	struct mem_src *m = r->mem;

	if (m != NULL) {
		size_t k = m->n - m->pos < n ? m->n - m->pos : n;

		memcpy(dst, m->p + m->pos, k);
		m->pos += k;
		return (ssize_t)k;
	}
	for (;;) {
		ssize_t k = read(r->fd, dst, n);

		if (k < 0 && errno == EINTR)
			continue;
		return k;
	}
}

/* Plain text: copy more input into the line buffer. */
static int
fill_plain(struct dft_trace *t)
{
	struct dft_trace_priv *r = t->priv;
	ssize_t k = raw_read(t, r->buf + r->buf_len, r->buf_cap - r->buf_len);

	if (k < 0)
		return -1;
	r->buf_len += (size_t)k;
	return k > 0 ? 1 : 0;
}

static void
stream_problem(struct dft_trace *t, const char *what)
{
	struct dft_trace_priv *r = t->priv;

	if (t->stream_err[0] == '\0') {
		long nl = 0;

		/* the text before the problem is still in the buffer */
		for (size_t i = r->buf_pos; i < r->buf_len; i++)
			nl += r->buf[i] == '\n';
		snprintf(t->stream_err, sizeof(t->stream_err), "%s", what);
		t->stream_err_line = t->lineno + nl + 1;
	}
}

/* Makes sure at least want bytes of input are available when possible. */
static int
gz_need(struct dft_trace *t, size_t want)
{
	struct dft_trace_priv *r = t->priv;
	z_stream *zs = r->zs;

	while (zs->avail_in < want && !r->in_eof) {
		if (zs->avail_in > 0 && zs->next_in != r->in)
			memmove(r->in, zs->next_in, zs->avail_in);
		zs->next_in = r->in;
		ssize_t k = raw_read(t, r->in + zs->avail_in,
				     r->in_cap - zs->avail_in);

		if (k < 0)
			return -1;
		if (k == 0)
			r->in_eof = 1;
		zs->avail_in += (uInt)k;
	}
	return 0;
}

/* After corrupt data: look for the next gzip member header. 1 found. */
static int
gz_resync(struct dft_trace *t)
{
	struct dft_trace_priv *r = t->priv;
	z_stream *zs = r->zs;

	for (;;) {
		unsigned char *p = zs->next_in;
		size_t n = zs->avail_in;

		for (size_t i = 0; i + 2 < n; i++) {
			if (p[i] == 0x1f && p[i + 1] == 0x8b && p[i + 2] == 8) {
				zs->next_in = p + i;
				zs->avail_in = (uInt)(n - i);
				inflateReset(zs);
				return 1;
			}
		}
		/* keep the last 2 bytes: a header may straddle reads */
		size_t keep = n < 2 ? n : 2;

		zs->next_in = p + n - keep;
		zs->avail_in = (uInt)keep;
		if (r->in_eof)
			return 0;
		if (gz_need(t, keep + 1) < 0)
			return -1;
		if (zs->avail_in <= keep && r->in_eof)
			return 0;
	}
}

/* Ends the current line so text after a gap never joins it. */
static void
break_line(struct dft_trace *t)
{
	struct dft_trace_priv *r = t->priv;

	if (r->buf_len > 0 && r->buf[r->buf_len - 1] != '\n' &&
	    r->buf_len < r->buf_cap)
		r->buf[r->buf_len++] = '\n';
}

/* gzip: inflate more into the line buffer. 1 more data, 0 end, -1 error */
static int
fill_gz(struct dft_trace *t)
{
	struct dft_trace_priv *r = t->priv;
	z_stream *zs = r->zs;

	for (;;) {
		if (r->member_done) {
			if (gz_need(t, 3) < 0)
				return -1;
			if (zs->avail_in == 0)
				return 0;
			/* zero padding after a member is harmless */
			while (zs->avail_in > 0 && *zs->next_in == 0) {
				zs->next_in++;
				zs->avail_in--;
			}
			if (zs->avail_in == 0)
				continue;
			if (zs->avail_in >= 2 && zs->next_in[0] == 0x1f &&
			    zs->next_in[1] == 0x8b) {
				inflateReset(zs);
				r->member_done = 0;
				continue;
			}
			stream_problem(t, "garbage after a gzip member");
			t->corrupt++;
			break_line(t);
			int k = gz_resync(t);

			if (k < 0)
				return -1;
			if (k == 0)
				return 0;
			r->member_done = 0;
			continue;
		}
		if (zs->avail_in == 0 && !r->in_eof && gz_need(t, 1) < 0)
			return -1;
		size_t room = r->buf_cap - r->buf_len;

		zs->next_out = (unsigned char *)r->buf + r->buf_len;
		zs->avail_out = (uInt)room;
		int rc = inflate(zs, Z_NO_FLUSH);
		size_t got = room - zs->avail_out;

		r->buf_len += got;
		if (rc == Z_STREAM_END) {
			r->member_done = 1;
			if (got > 0)
				return 1;
			continue;
		}
		if (rc == Z_OK) {
			if (got > 0)
				return 1;
			continue;
		}
		if (rc == Z_BUF_ERROR && zs->avail_in == 0) {
			if (!r->in_eof) {
				if (got > 0)
					return 1;
				continue;
			}
			t->truncated = 1;
			stream_problem(t, "gzip stream is truncated");
			return got > 0 ? 1 : 0;
		}
		/* Z_DATA_ERROR, Z_NEED_DICT, Z_MEM_ERROR, Z_STREAM_ERROR */
		t->corrupt++;
		stream_problem(t, "corrupt gzip data skipped");
		break_line(t);
		int k = gz_resync(t);

		if (k < 0)
			return -1;
		if (k == 0)
			return r->buf_len > 0 || got > 0 ? 1 : 0;
		if (got > 0)
			return 1;
	}
}

static int
fill(struct dft_trace *t)
{
	return t->priv->gz ? fill_gz(t) : fill_plain(t);
}

/* The next raw line (without '\n'), or 0 at the end, -1 on read error. */
static int
next_line(struct dft_trace *t, char **s, size_t *n)
{
	struct dft_trace_priv *r = t->priv;

	for (;;) {
		char *start = r->buf + r->buf_pos;
		size_t avail = r->buf_len - r->buf_pos;
		char *nl = avail ? memchr(start, '\n', avail) : NULL;

		if (nl != NULL) {
			*s = start;
			*n = (size_t)(nl - start);
			r->buf_pos += *n + 1;
			t->lineno++;
			if (r->skipping) {
				r->skipping = 0;
				continue;
			}
			return 1;
		}
		if (r->eof) {
			if (avail == 0)
				return 0;
			*s = start;
			*n = avail;
			r->buf_pos = r->buf_len;
			t->lineno++;
			if (r->skipping) {
				r->skipping = 0;
				return 0;
			}
			return 1;
		}
		if (avail >= MAX_LINE && !r->skipping) {
			/* count the giant line once and drop it */
			t->lines++;
			t->bad++;
			if (t->bad <= DFT_TRACE_KEEP_BAD) {
				t->bad_line[t->bad - 1] = t->lineno + 1;
				t->bad_why[t->bad - 1] = "line longer than 64 MiB";
			}
			r->skipping = 1;
		}
		if (r->skipping) {
			r->buf_pos = r->buf_len = 0;
		} else if (r->buf_pos > 0) {
			memmove(r->buf, start, avail);
			r->buf_len = avail;
			r->buf_pos = 0;
		}
		if (r->buf_len + 1 >= r->buf_cap) {
			r->buf_cap *= 2;
			r->buf = dft_xrealloc(r->buf, r->buf_cap);
		}
		int k = fill(t);

		if (k < 0)
			return -1;
		if (k == 0)
			r->eof = 1;
	}
}

/* ---- open / close --------------------------------------------------------- */

static void
trace_init_common(struct dft_trace *t, const char *name, size_t in_cap,
		  size_t out_cap)
{
	struct dft_trace_priv *r = dft_xcalloc(1, sizeof(*r));

	memset(t, 0, sizeof(*t));
	t->name = name;
	t->priv = r;
	r->fd = -1;
	r->in_cap = in_cap;
	r->in = dft_xmalloc(r->in_cap);
	r->buf_cap = out_cap;
	r->buf = dft_xmalloc(r->buf_cap);
	dft_tmap_init(&r->names, sizeof(struct dft_str));
}

/* Reads the first bytes to choose between gzip and plain text. */
static int
trace_start(struct dft_trace *t)
{
	struct dft_trace_priv *r = t->priv;
	ssize_t k = raw_read(t, r->in, r->in_cap);

	if (k < 0)
		return -1;
	if (k == 0)
		r->in_eof = 1;
	if (k >= 2 && r->in[0] == 0x1f && r->in[1] == 0x8b) {
		z_stream *zs = dft_xcalloc(1, sizeof(*zs));

		if (inflateInit2(zs, 15 + 16) != Z_OK) {
			free(zs);
			errno = ENOMEM;
			return -1;
		}
		zs->next_in = r->in;
		zs->avail_in = (uInt)k;
		r->zs = zs;
		r->gz = 1;
		return 0;
	}
	if ((size_t)k > r->buf_cap)
		k = (ssize_t)r->buf_cap;
	memcpy(r->buf, r->in, (size_t)k);
	r->buf_len = (size_t)k;
	return 0;
}

/* The descriptor to read path from ("-": standard input), or -1+errno. */
static int
open_input(const char *path)
{
	int fd;
	struct stat st;

	if (strcmp(path, "-") == 0) {
		fd = 0;
	} else {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return -1;
	}
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		if (fd != 0)
			close(fd);
		errno = EISDIR;
		return -1;
	}
#ifdef POSIX_FADV_SEQUENTIAL
	posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
	return fd;
}

int
dft_trace_open(struct dft_trace *t, const char *path)
{
	int fd = open_input(path);

	if (fd < 0)
		return -1;
	trace_init_common(t, strcmp(path, "-") == 0 ? "<stdin>" : path,
			  IN_CHUNK, OUT_CHUNK);
	t->priv->fd = fd;
	if (trace_start(t) < 0) {
		int e = errno;

		dft_trace_close(t);
		errno = e;
		return -1;
	}
	return 0;
}

void
dft_trace_open_mem(struct dft_trace *t, const char *name, const void *data,
		   size_t n)
{
	struct mem_src *m;

	/* small buffers: memory inputs are small, and lines then cross
	 * buffer refills often (which fuzzing should exercise) */
	trace_init_common(t, name, 4096, 4096);
	m = dft_xcalloc(1, sizeof(*m));
	m->p = data;
	m->n = n;
	t->priv->mem = m;
	trace_start(t);
}

int
dft_trace_chain(struct dft_trace *t, const char *path)
{
	struct dft_trace_priv *r = t->priv;
	int fd = open_input(path);

	if (fd < 0)
		return -1;
	if (r->zs != NULL) {
		inflateEnd(r->zs);
		free(r->zs);
		r->zs = NULL;
	}
	if (r->fd > 0)
		close(r->fd);
	free(r->mem);
	r->mem = NULL;
	r->member_done = r->skipping = r->stopped = 0;
	if (r->jobj != NULL) {
		json_object_put(r->jobj);
		r->jobj = NULL;
	}
	free(t->chunk_source);
	t->chunk_source = NULL;
	t->chunk_series[0] = '\0';
	t->chunk_part = 0;
	t->skip_late = 0;
	t->name = path;
	r->fd = fd;
	r->gz = r->eof = r->in_eof = 0;
	r->buf_len = r->buf_pos = 0;
	t->lineno = 0;
	t->lines = t->bad = 0;
	t->truncated = t->corrupt = 0;
	t->stream_err[0] = '\0';
	t->stream_err_line = 0;
	t->files++;
	if (trace_start(t) < 0) {
		/* nothing more to read from it */
		r->eof = r->in_eof = 1;
		return -1;
	}
	return 0;
}

void
dft_trace_close(struct dft_trace *t)
{
	struct dft_trace_priv *r = t->priv;

	if (r != NULL) {
		if (r->zs != NULL) {
			inflateEnd(r->zs);
			free(r->zs);
		}
		if (r->fd > 0)
			close(r->fd);
		free(r->mem);
		free(r->in);
		free(r->buf);
		free(r->scratch);
		if (r->jobj != NULL)
			json_object_put(r->jobj);
		for (size_t i = 0; i < r->names.count; i++)
			free((char *)((struct dft_str *)dft_tmap_value(
				&r->names, i))->p);
		dft_tmap_release(&r->names);
		free(r);
	}
	free(t->chunk_source);
	memset(t, 0, sizeof(*t));
}

/* ---- the scanner ----------------------------------------------------------- */

/* A JSON value as the field setters see it. */
enum { V_STR, V_NUM, V_OTHER };
struct val {
	int kind;
	struct dft_str s;	/* string content, number text, or raw text */
	int numok;		/* num holds the value of a plain integer */
	int64_t num;
};

struct scan {
	struct dft_trace_priv *r;	/* its scratch buffer */
	struct dft_trace_ev *ev;
	const char *e;
};

static inline const char *
ws(const char *p, const char *e)
{
	/* one test for the usual case: no white space at all */
	while (p < e && (unsigned char)*p <= ' ' &&
	       (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
		p++;
	return p;
}

/*
 * Eight bytes at a time where the byte order allows it (the result must
 * not depend on it: each fast path ends where the byte loop would).
 * eq_bytes() sets the high bit of the bytes of x equal to c; the lowest
 * one set is exact (bits above it may be false), which is all the callers
 * use.
 */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define SWAR 1
#define ONES 0x0101010101010101ULL
#define HIGHS 0x8080808080808080ULL

static inline uint64_t
load8(const char *p)
{
	uint64_t x;

	memcpy(&x, p, 8);
	return x;
}

static inline uint64_t
eq_bytes(uint64_t x, unsigned char c)
{
	uint64_t y = x ^ (ONES * c);

	return (y - ONES) & ~y & HIGHS;
}

/* Nonzero in the bytes of x that are not '0'..'9': exact up to the first
 * such byte (a carry from it may mark the ones after it), 0 when all eight
 * are digits. */
static inline uint64_t
nondigits(uint64_t x)
{
	return ((x & 0xf0f0f0f0f0f0f0f0ULL) ^ 0x3030303030303030ULL) |
	       (((x + 0x0606060606060606ULL) & 0xf0f0f0f0f0f0f0f0ULL) ^
		0x3030303030303030ULL);
}

static const uint64_t pow10_u64[8] = {
	1, 10, 100, 1000, 10000, 100000, 1000000, 10000000
};

/* the value of eight decimal digits, the first the most significant */
static inline uint64_t
value8(uint64_t x)
{
	x -= 0x3030303030303030ULL;
	x = x * 10 + (x >> 8);
	x = (((x & 0x000000ff000000ffULL) * 0x000f424000000064ULL) +
	     (((x >> 16) & 0x000000ff000000ffULL) * 0x0000271000000001ULL)) >>
	    32;
	return x;
}
#endif

static const char *
hex4(const char *p, const char *e, unsigned *out)
{
	unsigned v = 0;

	if (e - p < 4)
		return NULL;
	for (int i = 0; i < 4; i++) {
		int h = dft_hex_digit((unsigned char)p[i]);

		if (h < 0)
			return NULL;
		v = v * 16 + (unsigned)h;
	}
	*out = v;
	return p + 4;
}

static const char *scan_escaped(struct scan *sc, const char *p,
				const char *q, struct dft_str *out)
	__attribute__((noinline));

/* p at '"'. Returns the position after the closing quote, or NULL. The
 * usual string (no escape) is found here, inlined in the callers. */
static inline __attribute__((always_inline)) const char *
scan_string(struct scan *sc, const char *p, struct dft_str *out)
{
	const char *e = sc->e;
	const char *q = ++p;

#ifdef SWAR
	while (e - q >= 8) {
		uint64_t x = load8(q);
		uint64_t m = eq_bytes(x, '"') | eq_bytes(x, '\\');

		if (m != 0) {
			q += __builtin_ctzll(m) >> 3;
			break;
		}
		q += 8;
	}
#endif
	while (q < e && *q != '"' && *q != '\\')
		q++;
	if (q >= e)
		return NULL;
	if (*q == '"') {
		out->p = p;
		out->n = (size_t)(q - p);
		return q + 1;
	}
	return scan_escaped(sc, p, q, out);
}

/* The rest of a string from its first backslash q (p after the '"'). */
static const char *
scan_escaped(struct scan *sc, const char *p, const char *q,
	     struct dft_str *out)
{
	const char *e = sc->e;

	/* escapes: unescape into the scratch buffer (never longer) */
	char *d = sc->r->scratch + sc->r->scratch_len;
	char *d0 = d;

	memcpy(d, p, (size_t)(q - p));
	d += q - p;

	while (q < e && *q != '"') {
		if (*q != '\\') {
			*d++ = *q++;
			continue;
		}
		if (++q >= e)
			return NULL;
		switch (*q) {
		case '"': case '\\': case '/':
			*d++ = *q++;
			break;
		case 'b': *d++ = '\b'; q++; break;
		case 'f': *d++ = '\f'; q++; break;
		case 'n': *d++ = '\n'; q++; break;
		case 'r': *d++ = '\r'; q++; break;
		case 't': *d++ = '\t'; q++; break;
		case 'u': {
			unsigned c, c2;

			q = hex4(q + 1, e, &c);
			if (q == NULL)
				return NULL;
			if (c >= 0xd800 && c < 0xdc00 && e - q >= 6 &&
			    q[0] == '\\' && q[1] == 'u' &&
			    hex4(q + 2, e, &c2) != NULL &&
			    c2 >= 0xdc00 && c2 < 0xe000) {
				c = 0x10000 + ((c - 0xd800) << 10) +
				    (c2 - 0xdc00);
				q += 6;
			}
			/* UTF-8; at most 4 bytes for at least 6 read */
			if (c < 0x80) {
				*d++ = (char)c;
			} else if (c < 0x800) {
				*d++ = (char)(0xc0 | (c >> 6));
				*d++ = (char)(0x80 | (c & 0x3f));
			} else if (c < 0x10000) {
				*d++ = (char)(0xe0 | (c >> 12));
				*d++ = (char)(0x80 | ((c >> 6) & 0x3f));
				*d++ = (char)(0x80 | (c & 0x3f));
			} else {
				*d++ = (char)(0xf0 | (c >> 18));
				*d++ = (char)(0x80 | ((c >> 12) & 0x3f));
				*d++ = (char)(0x80 | ((c >> 6) & 0x3f));
				*d++ = (char)(0x80 | (c & 0x3f));
			}
			break;
		}
		default:
			return NULL;
		}
	}
	if (q >= e)
		return NULL;
	out->p = d0;
	out->n = (size_t)(d - d0);
	sc->r->scratch_len += out->n;
	return q + 1;
}

/* A number, true, false or null: the token's end, or NULL. */
static const char *
scan_atom(const char *p, const char *e)
{
	const char *q = p;

	while (q < e && ((*q >= '0' && *q <= '9') || *q == '-' || *q == '+' ||
			 *q == '.' || *q == 'e' || *q == 'E' ||
			 (*q >= 'a' && *q <= 'z')))
		q++;
	if (q == p)
		return NULL;
	return q;
}

static const char *skip_value(struct scan *sc, const char *p, int depth);

static const char *
skip_container(struct scan *sc, const char *p, int depth)
{
	char close = *p == '{' ? '}' : ']';
	int obj = *p == '{';
	struct dft_str dummy;

	if (depth > MAX_DEPTH)
		return NULL;
	p = ws(p + 1, sc->e);
	if (p < sc->e && *p == close)
		return p + 1;
	for (;;) {
		if (obj) {
			if (p >= sc->e || *p != '"')
				return NULL;
			size_t mark = sc->r->scratch_len;

			p = scan_string(sc, p, &dummy);
			sc->r->scratch_len = mark;
			if (p == NULL)
				return NULL;
			p = ws(p, sc->e);
			if (p >= sc->e || *p != ':')
				return NULL;
			p = ws(p + 1, sc->e);
		}
		p = skip_value(sc, p, depth + 1);
		if (p == NULL)
			return NULL;
		p = ws(p, sc->e);
		if (p >= sc->e)
			return NULL;
		if (*p == close)
			return p + 1;
		if (*p != ',')
			return NULL;
		p = ws(p + 1, sc->e);
	}
}

static const char *
skip_value(struct scan *sc, const char *p, int depth)
{
	if (p >= sc->e)
		return NULL;
	if (*p == '"') {
		struct dft_str s;
		size_t mark = sc->r->scratch_len;
		const char *q = scan_string(sc, p, &s);

		sc->r->scratch_len = mark;
		return q;
	}
	if (*p == '{' || *p == '[')
		return skip_container(sc, p, depth);
	return scan_atom(p, sc->e);
}

static const char *scan_val_other(struct scan *sc, const char *p,
				  struct val *v) __attribute__((noinline));

/* Reads one value into v; objects and arrays are kept as raw text. A
 * string or a plain integer is read here, inlined in the callers. */
static inline __attribute__((always_inline)) const char *
scan_val(struct scan *sc, const char *p, struct val *v)
{
	v->numok = 0;
	if (p >= sc->e)
		return NULL;
	if (*p == '"') {
		v->kind = V_STR;
		return scan_string(sc, p, &v->s);
	}
	if ((*p >= '0' && *p <= '9') || *p == '-') {
		/* fast path: a plain integer */
		const char *d = p + (*p == '-');
		uint64_t x = 0;
		const char *d0 = d;

#ifdef SWAR
		/* eight at a time while 8 more stay within the 18 the
		 * loop below takes; the digits before the first other byte */
		while (sc->e - d >= 8 && d - d0 <= 10) {
			uint64_t w = load8(d);
			uint64_t m = nondigits(w);

			if (m == 0) {
				x = x * 100000000u + value8(w);
				d += 8;
				continue;
			}
			unsigned nd = (unsigned)__builtin_ctzll(m) >> 3;

			if (nd > 0) {
				x = x * pow10_u64[nd] +
				    value8((w << (64 - 8 * nd)) |
					   (0x3030303030303030ULL >> (8 * nd)));
				d += nd;
			}
			break;
		}
#endif
		while (d < sc->e && *d >= '0' && *d <= '9' && d - d0 < 18)
			x = x * 10 + (uint64_t)(*d++ - '0');
		if (d > d0 && (d >= sc->e || !((*d >= '0' && *d <= '9') ||
					       *d == '.' || *d == 'e' ||
					       *d == 'E'))) {
			v->kind = V_NUM;
			v->numok = 1;
			v->num = *p == '-' ? -(int64_t)x : (int64_t)x;
			v->s.p = p;
			v->s.n = (size_t)(d - p);
			return d;
		}
	}
	return scan_val_other(sc, p, v);
}

/* scan_val for the rest: containers, atoms, numbers that are no plain
 * integer */
static const char *
scan_val_other(struct scan *sc, const char *p, struct val *v)
{
	const char *q;

	if (*p == '{' || *p == '[') {
		q = skip_container(sc, p, 1);
		v->kind = V_OTHER;
	} else {
		q = scan_atom(p, sc->e);
		v->kind = (*p == '-' || (*p >= '0' && *p <= '9')) ? V_NUM :
			  V_OTHER;
	}
	if (q == NULL)
		return NULL;
	v->s.p = p;
	v->s.n = (size_t)(q - p);
	return q;
}

/* Decimal text (optionally a JSON number with fraction/exponent) to int64.
 * 0 ok, -1 not a number. Values beyond int64 are clamped. */
static int
text_int(const char *p, size_t n, int64_t *out)
{
	size_t i = 0;
	int neg = 0;
	uint64_t v = 0;
	int over = 0;

	while (i < n && (p[i] == ' ' || p[i] == '\t'))
		i++;
	if (i < n && (p[i] == '-' || p[i] == '+'))
		neg = p[i++] == '-';
	size_t d0 = i;

	while (i < n && p[i] >= '0' && p[i] <= '9') {
		unsigned dg = (unsigned)(p[i] - '0');

		if (v > (UINT64_MAX - dg) / 10)
			over = 1;
		else
			v = v * 10 + dg;
		i++;
	}
	if (i == d0)
		return -1;
	if (i < n && (p[i] == '.' || p[i] == 'e' || p[i] == 'E')) {
		char tmp[64];
		size_t k = n < sizeof(tmp) - 1 ? n : sizeof(tmp) - 1;
		char *end;

		memcpy(tmp, p, k);
		tmp[k] = '\0';
		double d = strtod(tmp, &end);

		if (end == tmp)
			return -1;
		if (d >= 9.2e18)
			*out = INT64_MAX;
		else if (d <= -9.2e18)
			*out = INT64_MIN;
		else
			*out = (int64_t)d;
		return 0;
	}
	while (i < n && (p[i] == ' ' || p[i] == '\t'))
		i++;
	if (i != n)
		return -1;
	if (over || v > (uint64_t)INT64_MAX)
		*out = neg ? INT64_MIN : INT64_MAX;
	else
		*out = neg ? -(int64_t)v : (int64_t)v;
	return 0;
}

/* A number field: JSON number or a string holding one (Gen-0). */
static int
val_int(struct dft_trace_ev *ev, const struct val *v, int64_t *out)
{
	if (v->numok) {
		*out = v->num;
		return 0;
	}
	if (v->kind == V_OTHER)
		return -1;
	if (v->kind == V_STR)
		ev->style |= DFT_STYLE_STR_NUM;
	return text_int(v->s.p, v->s.n, out);
}

static inline int
key_is(const char *k, size_t kn, const char *lit, size_t litn)
{
	return kn == litn && memcmp(k, lit, kn) == 0;
}
#define KEY(lit) key_is(k, kn, lit, sizeof(lit) - 1)

static void
set_hash(struct dft_trace_ev *ev, const struct val *v, struct dft_str *dst)
{
	if (v->kind == V_OTHER)
		return;
	*dst = v->s;
	ev->style |= v->kind == V_NUM ? DFT_STYLE_NUM_HASH : DFT_STYLE_STR_HASH;
}

static void
set_num(struct dft_trace_ev *ev, const struct val *v, int64_t *dst,
	unsigned bit)
{
	if (val_int(ev, v, dst) == 0)
		ev->has |= bit;
}

/* set_num for ts, dur and size: a value that is no number marks the line */
static void
set_num_checked(struct dft_trace_ev *ev, const struct val *v, int64_t *dst,
		unsigned bit)
{
	if (val_int(ev, v, dst) == 0)
		ev->has |= bit;
	else
		ev->has |= DFT_EV_BADNUM;
}

static void
set_arg(struct dft_trace_ev *ev, const char *k, size_t kn, const struct val *v)
{
	switch (kn) {
	case 2:
		if (KEY("fd"))
			set_num(ev, v, &ev->fd, DFT_EV_FD);
		break;
	case 3:
		if (KEY("ret"))
			set_num(ev, v, &ev->ret, DFT_EV_RET);
		else if (KEY("seq"))
			set_num(ev, v, &ev->seq, DFT_EV_AGGIO);
		else if (KEY("end"))	/* a seek's record has no seq */
			set_num(ev, v, &ev->end_ts, DFT_EV_AGGIO);
		else if (KEY("pos"))
			val_int(ev, v, &ev->pos);
		break;
	case 4:
		if (KEY("name")) {
			if (v->kind != V_OTHER || v->s.n > 0)
				ev->mname = v->s;
		} else if (KEY("size")) {
			set_num_checked(ev, v, &ev->size, DFT_EV_SIZE);
		} else if (KEY("step")) {
			set_num(ev, v, &ev->step, DFT_EV_STEP);
		} else if (KEY("file")) {
			if (v->kind == V_STR)
				ev->src_file = v->s;
		} else if (KEY("line")) {
			set_num(ev, v, &ev->src_line, DFT_EV_SRC_LINE);
		} else if (KEY("pcat")) {
			if (v->kind == V_STR)
				ev->pcat = v->s;
		} else if (KEY("mode")) {
			if (v->kind == V_STR)
				ev->fmode = v->s;
		}
		break;
	case 5:
		if (KEY("hhash"))
			set_hash(ev, v, &ev->hhash);
		else if (KEY("fhash"))
			set_hash(ev, v, &ev->fhash);
		else if (KEY("count"))
			set_num(ev, v, &ev->count, DFT_EV_COUNT);
		else if (KEY("value"))
			ev->mvalue = v->s;
		else if (KEY("fname") && v->kind == V_STR) {
			ev->fname = v->s;
			ev->style |= DFT_STYLE_INLINE;
		} else if (KEY("epoch"))
			set_num(ev, v, &ev->epoch, DFT_EV_EPOCH);
		else if (KEY("pfile") && v->kind == V_STR)
			ev->pfile = v->s;
		else if (KEY("pline"))
			set_num(ev, v, &ev->pline, DFT_EV_PLINE);
		else if (KEY("p_idx"))
			set_num(ev, v, &ev->pidx, DFT_EV_PIDX);
		else if (KEY("flags"))
			set_num(ev, v, &ev->oflags, DFT_EV_FLAGS);
		break;
	case 6:
		if (KEY("offset"))
			set_num(ev, v, &ev->offset, DFT_EV_OFFSET);
		else if (KEY("whence"))
			set_num(ev, v, &ev->whence, DFT_EV_WHENCE);
		else if (KEY("length"))
			set_num(ev, v, &ev->length, DFT_EV_LENGTH);
		else if (KEY("lineno"))
			set_num(ev, v, &ev->src_line, DFT_EV_SRC_LINE);
		else if (KEY("reread"))
			val_int(ev, v, &ev->reread);
		else if (KEY("extent"))
			val_int(ev, v, &ev->extent);
		else if (KEY("rd_end"))
			val_int(ev, v, &ev->rd_end);
		else if (KEY("wr_end"))
			val_int(ev, v, &ev->wr_end);
		else if (KEY("parent") && v->kind == V_STR)
			ev->parent = v->s;
		break;
	case 7:
		if (KEY("dft_cnt"))
			set_num(ev, v, &ev->dft_cnt, DFT_EV_CNT);
		else if (KEY("dur_sum"))
			set_num(ev, v, &ev->dur_sum, DFT_EV_DUR_SUM);
		else if (KEY("ret_sum"))
			set_num(ev, v, &ev->ret_sum, DFT_EV_RET_SUM);
		break;
	case 10:
		if (KEY("collective"))
			set_num(ev, v, &ev->collective, DFT_EV_COLLECTIVE);
		else if (KEY("misaligned"))
			val_int(ev, v, &ev->misaligned);
		break;
	case 8:
		if (KEY("hostname") && v->kind == V_STR) {
			ev->hostname = v->s;
			ev->style |= DFT_STYLE_INLINE;
		} else if (KEY("size_sum")) {
			set_num(ev, v, &ev->size_sum, DFT_EV_SIZE_SUM);
		} else if (KEY("size_min")) {
			set_num(ev, v, &ev->size_min, DFT_EV_SIZE_MIN);
		} else if (KEY("size_max")) {
			val_int(ev, v, &ev->size_max);
		} else if (KEY("cb_nodes")) {
			set_num(ev, v, &ev->cb_nodes, DFT_EV_CB_NODES);
		} else if (KEY("filename") && v->kind == V_STR) {
			ev->src_file = v->s;
		}
		break;
	}
}

static void
set_ph(struct dft_trace_ev *ev, const struct val *v)
{
	if (v->kind == V_STR) {
		if (v->s.n != 1) {
			ev->ph = DFT_PH_OTHER;
			return;
		}
		switch (v->s.p[0]) {
		case 'X': ev->ph = DFT_PH_X; break;
		case 'M': ev->ph = DFT_PH_M; break;
		case 'C': ev->ph = DFT_PH_COUNTER; break;
		default: ev->ph = DFT_PH_OTHER; break;
		}
		return;
	}
	int64_t n;

	if (v->kind == V_NUM && text_int(v->s.p, v->s.n, &n) == 0) {
		ev->style |= DFT_STYLE_INT_PH;
		switch (n) {
		case 1: ev->ph = DFT_PH_X; break;
		case 2: ev->ph = DFT_PH_COUNTER; break;
		case 3: ev->ph = DFT_PH_AGG; break;
		case 4: ev->ph = DFT_PH_M; break;
		default: ev->ph = DFT_PH_UNKNOWN; break;
		}
	}
}

/* Top-level field; returns 1 when the key is "args" (caller descends). */
static int
set_top(struct dft_trace_ev *ev, const char *k, size_t kn, const struct val *v)
{
	switch (kn) {
	case 2:
		if (KEY("id"))
			set_num(ev, v, &ev->id, DFT_EV_ID);
		else if (KEY("ts"))
			set_num_checked(ev, v, &ev->ts, DFT_EV_TS);
		else if (KEY("ph"))
			set_ph(ev, v);
		break;
	case 3:
		if (KEY("cat")) {
			if (v->kind == V_STR)
				ev->cat = v->s;
		} else if (KEY("pid")) {
			set_num(ev, v, &ev->pid, DFT_EV_PID);
		} else if (KEY("tid")) {
			set_num(ev, v, &ev->tid, DFT_EV_TID);
		} else if (KEY("dur")) {
			set_num_checked(ev, v, &ev->dur, DFT_EV_DUR);
		}
		break;
	case 4:
		if (KEY("name")) {
			if (v->kind == V_STR)
				ev->name = v->s;
		} else if (KEY("type")) {
			if (v->kind == V_NUM)
				ev->style |= DFT_STYLE_INT_PH;
			else if (v->kind == V_STR)
				ev->rtype = v->s;
		}
		break;
	}
	return 0;
}

/* Scans the args object; p at '{'. */
static const char *
scan_args(struct scan *sc, const char *p)
{
	const char *e = sc->e;
	struct val v;
	struct dft_str k;

	sc->ev->has |= DFT_EV_ARGS;
	p = ws(p + 1, e);
	if (p < e && *p == '}')
		return p + 1;
	for (;;) {
		if (p >= e || *p != '"')
			return NULL;
		p = scan_string(sc, p, &k);
		if (p == NULL)
			return NULL;
		p = ws(p, e);
		if (p >= e || *p != ':')
			return NULL;
		p = ws(p + 1, e);
		p = scan_val(sc, p, &v);
		if (p == NULL)
			return NULL;
		set_arg(sc->ev, k.p, k.n, &v);
		p = ws(p, e);
		if (p >= e)
			return NULL;
		if (*p == '}')
			return p + 1;
		if (*p != ',')
			return NULL;
		p = ws(p + 1, e);
	}
}

/* The top-level fields in the order dftracer writes them, each optional:
 * "id", "name", "cat", "pid", "tid", "ts", "dur", "ph", "args". */
enum { U_ID, U_NAME, U_CAT, U_PID, U_TID, U_TS, U_DUR, U_PH, U_N };
static const struct {
	const char *lit;	/* "key": */
	size_t n;
} usual_key[U_N] = {
	{ "\"id\":", 5 }, { "\"name\":", 7 }, { "\"cat\":", 6 },
	{ "\"pid\":", 6 }, { "\"tid\":", 6 }, { "\"ts\":", 5 },
	{ "\"dur\":", 6 }, { "\"ph\":", 5 },
};

/*
 * The usual line, read without the general loop's key comparisons: from p
 * (at the first key) the fields of usual_key in their order, each
 * "key":value directly followed by ',' (nothing between), set as set_top
 * sets them. Returns where the general loop goes on (the first field that
 * is not the next usual one; nothing of it read), or NULL when the line is
 * bad; *after is set when that is the end of args (a value just read).
 */
static const char *
scan_usual(struct scan *sc, const char *p, int *after)
{
	const char *e = sc->e;
	struct dft_trace_ev *ev = sc->ev;
	struct val v;

	*after = 0;
	/* unrolled: the key comparisons become constant-size loads */
#pragma GCC unroll 8
	for (int u = 0; u < U_N; u++) {
		size_t n = usual_key[u].n;

		if ((size_t)(e - p) <= n || memcmp(p, usual_key[u].lit, n) != 0)
			continue;
		size_t mark = sc->r->scratch_len;
		const char *q = scan_val(sc, p + n, &v);

		if (q == NULL || q >= e || *q != ',') {
			/* the general loop reads this field again */
			sc->r->scratch_len = mark;
			return p;
		}
		switch (u) {
		case U_ID: set_num(ev, &v, &ev->id, DFT_EV_ID); break;
		case U_NAME: if (v.kind == V_STR) ev->name = v.s; break;
		case U_CAT: if (v.kind == V_STR) ev->cat = v.s; break;
		case U_PID: set_num(ev, &v, &ev->pid, DFT_EV_PID); break;
		case U_TID: set_num(ev, &v, &ev->tid, DFT_EV_TID); break;
		case U_TS: set_num_checked(ev, &v, &ev->ts, DFT_EV_TS); break;
		case U_DUR: set_num_checked(ev, &v, &ev->dur, DFT_EV_DUR); break;
		case U_PH: set_ph(ev, &v); break;
		}
		p = q + 1;
	}
	if ((size_t)(e - p) > 8 && memcmp(p, "\"args\":{", 8) == 0) {
		const char *q = scan_args(sc, p + 7);

		if (q == NULL)
			return NULL;
		*after = 1;
		return q;
	}
	return p;
}

/* 0 when the line [p, e) is one JSON object and ev holds its fields. */
static int
scan_line(struct dft_trace *t, struct dft_trace_ev *ev, const char *p,
	  const char *e)
{
	struct scan sc = { t->priv, ev, e };
	struct val v;
	struct dft_str k;

	p = ws(p, e);
	if (p >= e || *p != '{')
		return -1;
	p = ws(p + 1, e);
	if (p < e && *p == '}')
		return ws(p + 1, e) == e ? 0 : -1;
	int after;

	p = scan_usual(&sc, p, &after);
	if (p == NULL)
		return -1;
	if (after)
		goto value_read;
	for (;;) {
		if (p >= e || *p != '"')
			return -1;
		p = scan_string(&sc, p, &k);
		if (p == NULL)
			return -1;
		p = ws(p, e);
		if (p >= e || *p != ':')
			return -1;
		p = ws(p + 1, e);
		if (p < e && *p == '{' && key_is(k.p, k.n, "args", 4)) {
			p = scan_args(&sc, p);
		} else {
			p = scan_val(&sc, p, &v);
			if (p != NULL)
				set_top(ev, k.p, k.n, &v);
		}
		if (p == NULL)
			return -1;
value_read:
		p = ws(p, e);
		if (p >= e)
			return -1;
		if (*p == '}')
			break;
		if (*p != ',')
			return -1;
		p = ws(p + 1, e);
	}
	return ws(p + 1, e) == e ? 0 : -1;
}

/* ---- json-c fallback ------------------------------------------------------- */

static void
jval(json_object *o, struct val *v)
{
	v->numok = 0;
	v->s.p = json_object_get_string(o);
	v->s.n = v->s.p ? strlen(v->s.p) : 0;
	switch (json_object_get_type(o)) {
	case json_type_string:
		v->kind = V_STR;
		v->s.n = (size_t)json_object_get_string_len(o);
		break;
	case json_type_int:
	case json_type_double:
		v->kind = V_NUM;
		break;
	default:
		v->kind = V_OTHER;
		if (v->s.p == NULL) {
			v->s.p = "";
			v->s.n = 0;
		}
		break;
	}
}

static int
json_line(struct dft_trace *t, struct dft_trace_ev *ev, const char *p,
	  size_t n)
{
	struct dft_trace_priv *r = t->priv;
	struct json_tokener *tok = json_tokener_new();
	json_object *o;
	struct val v;

	if (tok == NULL)
		return -1;
	o = json_tokener_parse_ex(tok, p, (int)n);
	int ok = o != NULL &&
		 json_tokener_get_error(tok) == json_tokener_success &&
		 json_object_is_type(o, json_type_object);
	size_t used = json_tokener_get_parse_end(tok);

	json_tokener_free(tok);
	if (ok && ws(p + used, p + n) != p + n)
		ok = 0;
	if (!ok) {
		json_object_put(o);
		return -1;
	}
	/* an earlier line of this call may have parsed and been dropped */
	if (r->jobj != NULL)
		json_object_put(r->jobj);
	r->jobj = o;
	json_object_object_foreach(o, key, val) {
		if (strcmp(key, "args") == 0 &&
		    json_object_is_type(val, json_type_object)) {
			ev->has |= DFT_EV_ARGS;
			json_object_object_foreach(val, ak, av) {
				jval(av, &v);
				set_arg(ev, ak, strlen(ak), &v);
			}
			continue;
		}
		jval(val, &v);
		set_top(ev, key, strlen(key), &v);
	}
	return 0;
}

/* ---- events ---------------------------------------------------------------- */

static void
note_bad(struct dft_trace *t, const char *why)
{
	if (t->bad < DFT_TRACE_KEEP_BAD) {
		t->bad_line[t->bad] = t->lineno;
		t->bad_why[t->bad] = why;
	}
	t->bad++;
}

/* Why an event cannot be true (NULL when it can): kept out of every sum. */
static const char *
impossible(const struct dft_trace_ev *ev)
{
	if (ev->has & DFT_EV_BADNUM)
		return "ts, dur or size is not a finite number";
	if ((ev->has & DFT_EV_TS) &&
	    (ev->ts < 0 || (double)ev->ts > DFT_TRACE_MAX_TS))
		return "impossible ts (negative or after the year 5100)";
	if ((ev->has & DFT_EV_DUR) &&
	    (ev->dur < 0 || (double)ev->dur > DFT_TRACE_MAX_DUR))
		return "impossible dur (negative or over 3 years)";
	if ((ev->has & DFT_EV_SIZE) &&
	    (ev->size < 0 || (double)ev->size > DFT_TRACE_MAX_SIZE))
		return "impossible size (negative or over 1 PB)";
	if (ev->name.p == NULL && ev->ph == DFT_PH_UNKNOWN &&
	    ev->rtype.p == NULL)
		return "not a trace event (no name, ph or type)";
	return NULL;
}

/* Enters an HH/FH/SH line in the names table. 1 when it repeats the name the
 * hash already had, else 0. */
static int
note_metadata(struct dft_trace *t, const struct dft_trace_ev *ev)
{
	char kind;
	char key[256];

	if (ev->name.n != 2 || ev->mname.p == NULL || ev->mvalue.p == NULL)
		return 0;
	if (memcmp(ev->name.p, "FH", 2) == 0)
		kind = 'F';
	else if (memcmp(ev->name.p, "HH", 2) == 0)
		kind = 'H';
	else if (memcmp(ev->name.p, "SH", 2) == 0)
		kind = 'S';
	else
		return 0;
	if (ev->mvalue.n + 1 > sizeof(key))
		return 0;
	key[0] = kind;
	memcpy(key + 1, ev->mvalue.p, ev->mvalue.n);
	int is_new;
	struct dft_str *s = dft_tmap_get(&t->priv->names, key,
					 ev->mvalue.n + 1, 1, &is_new);

	if (!is_new && s->n == ev->mname.n &&
	    memcmp(s->p, ev->mname.p, s->n) == 0)
		return 1;
	free((char *)s->p);
	s->p = dft_xmemdup0(ev->mname.p, ev->mname.n);
	s->n = ev->mname.n;
	t->names_gen++;
	return 0;
}

/* The args of a dft_chunk line: 0 with series, *part and (optional)
 * *source (caller frees) set, -1 when the line is not one. */
static int
chunk_line(const char *p, size_t n, char series[24], long *part,
	   char **source)
{
	json_tokener *tok = json_tokener_new();
	json_object *o = tok ? json_tokener_parse_ex(tok, p, (int)n) : NULL;
	json_object *args, *x;
	int rc = -1;

	if (tok != NULL)
		json_tokener_free(tok);
	if (o == NULL || !json_object_object_get_ex(o, "args", &args))
		goto out;
	if (!json_object_object_get_ex(args, "series", &x) ||
	    !json_object_is_type(x, json_type_string) ||
	    json_object_get_string_len(x) < 1 ||
	    json_object_get_string_len(x) > 23)
		goto out;
	memcpy(series, json_object_get_string(x),
	       (size_t)json_object_get_string_len(x) + 1);
	if (!json_object_object_get_ex(args, "part", &x) ||
	    !json_object_is_type(x, json_type_int) ||
	    json_object_get_int64(x) < 1)
		goto out;
	*part = (long)json_object_get_int64(x);
	if (source != NULL) {
		*source = NULL;
		if (json_object_object_get_ex(args, "source", &x) &&
		    json_object_is_type(x, json_type_string))
			*source = dft_xstrdup(json_object_get_string(x));
	}
	rc = 0;
out:
	if (o != NULL)
		json_object_put(o);
	return rc;
}

static int
is_chunk_line(const struct dft_trace_ev *ev)
{
	return ev->name.n == 9 && memcmp(ev->name.p, "dft_chunk", 9) == 0;
}

int
dft_trace_peek_chunk(const char *path, char series[24], long *part)
{
	unsigned char in[16384];
	char text[16384];
	size_t tn = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t k;

	struct stat st;

	series[0] = '\0';
	*part = 0;
	if (fd < 0)
		return -1;
	/* a pipe would lose what is read here */
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return 0;
	}
	do
		k = read(fd, in, sizeof(in));
	while (k < 0 && errno == EINTR);
	close(fd);
	if (k < 0)
		return -1;
	if (k >= 2 && in[0] == 0x1f && in[1] == 0x8b) {
		z_stream zs;

		memset(&zs, 0, sizeof(zs));
		if (inflateInit2(&zs, 15 + 16) != Z_OK)
			return 0;
		zs.next_in = in;
		zs.avail_in = (uInt)k;
		zs.next_out = (unsigned char *)text;
		zs.avail_out = sizeof(text) - 1;
		inflate(&zs, Z_SYNC_FLUSH);
		tn = sizeof(text) - 1 - zs.avail_out;
		inflateEnd(&zs);
	} else {
		tn = (size_t)k < sizeof(text) - 1 ? (size_t)k : sizeof(text) - 1;
		memcpy(text, in, tn);
	}
	/* the first lines: "[" then the dft_chunk line */
	const char *p = text, *e = text + tn;

	for (int line = 0; line < 3 && p < e; line++) {
		const char *nl = memchr(p, '\n', (size_t)(e - p));

		if (nl == NULL)
			break;
		if (memmem(p, (size_t)(nl - p), "\"dft_chunk\"", 11) != NULL)
			return chunk_line(p, (size_t)(nl - p), series, part,
					  NULL) == 0;
		p = nl + 1;
	}
	return 0;
}

const struct dft_str *
dft_trace_lookup(struct dft_trace *t, char kind, const char *h, size_t n)
{
	char key[256];

	if (n + 1 > sizeof(key))
		return NULL;
	key[0] = kind;
	memcpy(key + 1, h, n);
	return dft_tmap_get(&t->priv->names, key, n + 1, 0, NULL);
}

static inline int
is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

int
dft_trace_next(struct dft_trace *t, struct dft_trace_ev *ev)
{
	struct dft_trace_priv *r = t->priv;
	char *s;
	size_t n;

	if (r->jobj != NULL) {
		json_object_put(r->jobj);
		r->jobj = NULL;
	}
	if (r->stopped)
		return 0;
	for (;;) {
		int k = next_line(t, &s, &n);

		if (k < 0) {
			char msg[128];
			int e = errno;

			snprintf(msg, sizeof(msg), "read error: %s", strerror(e));
			stream_problem(t, msg);
			errno = e;
			return -1;
		}
		if (k == 0)
			return 0;
		while (n > 0 && is_space(*s)) {
			s++;
			n--;
		}
		while (n > 0 && is_space(s[n - 1]))
			n--;
		/* a chunk read as part of a stream ends at its "]" */
		if (n == 1 && s[0] == ']' && t->skip_late &&
		    t->chunk_part > 0) {
			r->stopped = 1;
			return 0;
		}
		/* a JSON-array framing: "[{...}", "{...},", "{...}]" */
		if (n > 0 && s[0] == '[') {
			s++;
			n--;
			while (n > 0 && is_space(*s)) {
				s++;
				n--;
			}
		}
		while (n > 0 && (s[n - 1] == ',' || s[n - 1] == ']' ||
				 is_space(s[n - 1])))
			n--;
		if (n > 0 && s[0] != '{' && t->raw_lines) {
			memset(ev, 0, sizeof(*ev));
			ev->line = s;
			ev->len = n;
			ev->lineno = t->lineno;
			ev->has = DFT_EV_NOTJSON;
			return 1;
		}
		if (n == 0)
			continue;
		t->lines++;
		if (s[0] != '{') {
			note_bad(t, "not a JSON object");
			continue;
		}
		if (n + 1 > r->scratch_cap) {
			free(r->scratch);
			r->scratch_cap = n + 1 > 4096 ? n + 1 : 4096;
			r->scratch = dft_xmalloc(r->scratch_cap);
		}
		r->scratch_len = 0;
		memset(ev, 0, sizeof(*ev));
		ev->line = s;
		ev->len = n;
		ev->lineno = t->lineno;
		if (scan_line(t, ev, s, s + n) != 0) {
			memset(ev, 0, sizeof(*ev));
			ev->line = s;
			ev->len = n;
			ev->lineno = t->lineno;
			if (json_line(t, ev, s, n) != 0) {
				int last = r->eof &&
					   r->buf_pos == r->buf_len;

				/* dftracer 2.0.x prints non-string PR metadata
				 * (core_affinity) as invalid JSON: a known
				 * defect, skipped without complaint */
				if (!last && memmem(s, n, "\"name\":\"PR\"", 11) &&
				    memmem(s, n, "\"ph\":\"M\"", 8)) {
					continue;
				}

				if (last)
					t->truncated = 1;
				note_bad(t, last ? "truncated last line" :
					 "malformed JSON");
				continue;
			}
		}
		const char *why = impossible(ev);

		if (why != NULL) {
			note_bad(t, why);
			continue;
		}
		if (ev->ph == DFT_PH_COUNTER && (ev->has & DFT_EV_CNT))
			ev->ph = DFT_PH_AGG;
		if (ev->ph == DFT_PH_M && is_chunk_line(ev)) {
			t->lines--;
			if (t->chunk_part == 0) {
				free(t->chunk_source);
				t->chunk_source = NULL;
				if (chunk_line(s, n, t->chunk_series,
					       &t->chunk_part,
					       &t->chunk_source) != 0)
					t->chunk_part = 0;
			}
			continue;
		}
		if (ev->ph == DFT_PH_M && note_metadata(t, ev) &&
		    t->chunk_part > 0) {
			t->lines--;
			continue;
		}
		return 1;
	}
}

int
dft_trace_generation(unsigned style)
{
	if (style & DFT_STYLE_INT_PH)
		return 3;
	if (style & DFT_STYLE_STR_HASH)
		return 2;
	if (style & DFT_STYLE_NUM_HASH)
		return 1;
	if (style & (DFT_STYLE_STR_NUM | DFT_STYLE_INLINE))
		return 0;
	return -1;
}

int
dft_trace_report(const struct dft_trace *t)
{
	long shown = t->bad < DFT_TRACE_KEEP_BAD ? t->bad : DFT_TRACE_KEEP_BAD;

	for (long i = 0; i < shown; i++)
		dft_warn_at(t->name, t->bad_line[i], "%s; line skipped",
			    t->bad_why[i]);
	if (t->bad > shown)
		dft_warn("%s: %ld more bad lines skipped", t->name,
			 t->bad - shown);
	if (t->stream_err[0] != '\0')
		dft_warn_at(t->name, t->stream_err_line,
			    "%s; read what was readable", t->stream_err);
	return t->bad > 0 || t->stream_err[0] != '\0';
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int
dft_trace_list_dir(const char *dir, char ***out)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **v = NULL;
	size_t n = 0;

	*out = NULL;
	if (d == NULL)
		return -1;
	while ((de = readdir(d)) != NULL) {
		if (!dft_has_suffix(de->d_name, ".pfw") &&
		    !dft_has_suffix(de->d_name, ".pfw.gz"))
			continue;
		v = dft_xreallocarray(v, n + 1, sizeof(*v));
		v[n++] = dft_path_join(dir, de->d_name);
	}
	closedir(d);
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_str);
	*out = v;
	return (int)n;
}
