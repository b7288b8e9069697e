/*
 * ndjson.c - reading and writing newline-delimited JSON records, the
 * pass-through rule, the checked close of stdout, and typed getters.
 *
 * The reader is the one place that reports malformed input lines, so that
 * every tool words them the same: "dft-x: FILE:LINE: not a JSON object".
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dft.h"
#include "trace.h"

int dft_unbuffered;

static void
dft_reader_init_fp(struct dft_reader *r, FILE *fp, const char *name)
{
	memset(r, 0, sizeof(*r));
	r->fp = fp;
	r->name = name;
	r->tok = json_tokener_new();
	if (r->tok == NULL)
		dft_die("out of memory");
}

int
dft_reader_open(struct dft_reader *r, const char *path)
{
	FILE *fp;

	if (path == NULL || strcmp(path, "-") == 0) {
		dft_reader_init_fp(r, stdin, "<stdin>");
		return 0;
	}
	fp = fopen(path, "r");
	if (fp == NULL)
		return -1;
	dft_reader_init_fp(r, fp, path);
	r->owns_fp = 1;
	return 0;
}

void
dft_reader_release(struct dft_reader *r)
{
	if (r->owns_fp && r->fp != NULL)
		fclose(r->fp);
	free(r->buf);
	if (r->tok != NULL)
		json_tokener_free(r->tok);
	memset(r, 0, sizeof(*r));
}

static int
is_blank(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
			return 0;
	return 1;
}

/* Length of the valid UTF-8 sequence at p (n > 0 bytes left), or 0. */
static size_t
utf8_seq(const unsigned char *p, size_t n)
{
	unsigned c = p[0];
	size_t len, i;
	unsigned lo = 0x80, hi = 0xbf;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4;
	else
		return 0;
	if (n < len)
		return 0;
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;	/* no UTF-16 surrogates */
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (i = 2; i < len; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return len;
}

/* 1 when s[0..n) is valid UTF-8 (NUL bytes included), else 0. */
static int
dft_utf8_valid(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;

	while (i < n) {
		size_t k;

		if (p[i] < 0x80) {
			i++;
			continue;
		}
		k = utf8_seq(p + i, n - i);
		if (k == 0)
			return 0;
		i += k;
	}
	return 1;
}

/*
 * Appends s[0..n) for a human reader (a terminal, Markdown): control
 * characters (C0 but tab, DEL, C1) and bytes that are not UTF-8 as \xHH,
 * so an escape sequence from a trace string cannot act on a terminal.
 * A newline is kept when newlines is set, else it becomes a space.
 */
void
dft_buf_add_visible(struct dft_buf *b, const char *s, size_t n, int newlines)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;

	while (i < n) {
		size_t k = p[i] < 0x80 ? 1 : utf8_seq(p + i, n - i);

		if (p[i] == '\n') {
			dft_buf_addc(b, newlines ? '\n' : ' ');
		} else if (k == 0 || (p[i] < 0x20 && p[i] != '\t') ||
			   p[i] == 0x7f) {
			dft_buf_addf(b, "\\x%02x", p[i]);
			k = 1;
		} else if (k == 2 && p[i] == 0xc2 && p[i + 1] < 0xa0) {
			/* C1 controls U+0080..U+009F (CSI is U+009B) */
			dft_buf_addf(b, "\\x%02x\\x%02x", p[i], p[i + 1]);
		} else {
			dft_buf_add(b, s + i, k);
		}
		i += k;
	}
}

/*
 * Byte strings that are not UTF-8 (file names, trace strings): every writer
 * of JSON text (dft_emit, dft_pass, dft_json_save) writes each byte that is
 * not part of a valid UTF-8 sequence as the escape \udcXX (XX the byte, 80
 * to ff: Python's surrogateescape), and every reader (dft_reader_next,
 * dft_json_load, dft_trace_input_line) turns those escapes back into the
 * byte. See man dft(7), ENCODING.
 */
static void
dft_json_text_encode(struct dft_buf *b, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, start = 0;

	while (i < n) {
		size_t k = p[i] < 0x80 ? 1 : utf8_seq(p + i, n - i);

		if (k > 0) {
			i += k;
			continue;
		}
		dft_buf_add(b, s + start, i - start);
		dft_buf_addf(b, "\\udc%02x", p[i]);
		start = ++i;
	}
	dft_buf_add(b, s + start, n - start);
}

/* Decodes the \udcXX escapes of JSON text s[0..n) in place; new length. */
static size_t
dft_json_text_decode(char *s, size_t n)
{
	size_t i = 0, o = 0;

	if (memchr(s, '\\', n) == NULL)
		return n;
	while (i < n) {
		if (s[i] != '\\' || i + 1 >= n) {
			s[o++] = s[i++];
			continue;
		}
		if (s[i + 1] == 'u' && i + 5 < n &&
		    (s[i + 2] == 'd' || s[i + 2] == 'D') &&
		    (s[i + 3] == 'c' || s[i + 3] == 'C') &&
		    dft_hex_digit(s[i + 4]) >= 8 && dft_hex_digit(s[i + 5]) >= 0) {
			s[o++] = (char)(dft_hex_digit(s[i + 4]) * 16 +
					dft_hex_digit(s[i + 5]));
			i += 6;
			continue;
		}
		/* any other escape, an escaped backslash included, as it is */
		s[o++] = s[i++];
		s[o++] = s[i++];
	}
	if (o < n)
		s[o] = '\0';
	return o;
}

/*
 * A reader over getline(3) that tracks the input's name and line number and
 * reuses one json_tokener. Blank lines are skipped silently. A line that is
 * not one JSON object is reported as "dft-x: NAME:LINE: ..." on stderr,
 * counted in r->bad, and skipped (style rule 11).
 */
/*
 * 1: *out is the next record (caller puts it); 0: end of input;
 * -1: read error (errno set, message printed).
 */
int
dft_reader_next(struct dft_reader *r, json_object **out)
{
	ssize_t n;

	for (;;) {
		errno = 0;
		n = getline(&r->buf, &r->cap, r->fp);
		if (n < 0) {
			if (ferror(r->fp)) {
				dft_warn("%s: read error:", r->name);
				return -1;
			}
			return 0;
		}
		r->line++;
		if (n > 0 && r->buf[n - 1] == '\n')
			r->buf[--n] = '\0';
		r->len = (size_t)n;
		if (is_blank(r->buf, r->len))
			continue;

		/* \udcXX escapes of non-UTF-8 bytes: parse a decoded copy,
		 * keep the line as it came for dft_pass */
		char *text = r->buf;
		size_t tn = r->len;

		if (memmem(r->buf, r->len, "\\udc", 4) != NULL ||
		    memmem(r->buf, r->len, "\\uDC", 4) != NULL) {
			text = dft_xmemdup0(r->buf, r->len);
			tn = dft_json_text_decode(text, r->len);
		}
		json_tokener_reset(r->tok);
		json_object *o = json_tokener_parse_ex(r->tok, text, (int)tn);
		enum json_tokener_error e = json_tokener_get_error(r->tok);
		size_t used = json_tokener_get_parse_end(r->tok);
		int blank_after = is_blank(text + used, tn - used);

		if (text != r->buf)
			free(text);
		if (o != NULL && e == json_tokener_success &&
		    json_object_is_type(o, json_type_object) && blank_after) {
			*out = o;
			return 1;
		}
		if (o != NULL && e == json_tokener_success)
			dft_warn_at(r->name, r->line,
				    "not a single JSON object; line skipped");
		else
			dft_warn_at(r->name, r->line,
				    "malformed JSON (%s); line skipped",
				    e == json_tokener_continue ?
				    "unexpected end of line" :
				    json_tokener_error_desc(e));
		json_object_put(o);
		r->bad++;
	}
}

int
dft_worst(int a, int b)
{
	return a > b ? a : b;
}

/*
 * Runs fn over every input: each operand in argv[0..argc) ("-" = stdin), or
 * stdin when argc == 0. A file that cannot be opened is reported and makes
 * the result DFT_EXIT_DATA; the others still run. fn returns an exit code;
 * the result is the worst of them (malformed lines count as DFT_EXIT_DATA).
 */
int
dft_each_input(int argc, char **argv, dft_input_fn fn, void *ctx)
{
	static char *dash[] = { "-" };
	int status = DFT_EXIT_OK;

	if (argc == 0) {
		argc = 1;
		argv = dash;
	}
	for (int i = 0; i < argc; i++) {
		struct dft_reader r;

		if (dft_reader_open(&r, argv[i]) < 0) {
			dft_warn("cannot open '%s':", argv[i]);
			status = dft_worst(status, DFT_EXIT_DATA);
			continue;
		}
		status = dft_worst(status, fn(&r, ctx));
		if (r.bad > 0)
			status = dft_worst(status, DFT_EXIT_DATA);
		dft_reader_release(&r);
	}
	return status;
}

const char *
dft_record_type(json_object *rec)
{
	json_object *t;

	if (rec != NULL && json_object_object_get_ex(rec, "type", &t) &&
	    json_object_is_type(t, json_type_string))
		return json_object_get_string(t);
	return "";
}

int64_t
dft_function_line(json_object *rec)
{
	static const char *const at[] = { "name_pos.line", "lines.start",
					  "line", "signature.line", NULL };

	for (int i = 0; at[i] != NULL; i++) {
		json_object *v = dft_json_path(rec, at[i]);

		if (v != NULL && json_object_is_type(v, json_type_int) &&
		    json_object_get_int64(v) > 0)
			return json_object_get_int64(v);
	}
	return 0;
}

static void
write_failed(void)
{
	if (errno == EPIPE)
		exit(DFT_EXIT_FATAL);	/* reader went away: stop quietly */
	dft_die("write error:");
}

static void
emit_line(FILE *out, const char *s, size_t n)
{
	static struct dft_buf enc;

	if (!dft_utf8_valid(s, n)) {
		dft_buf_reset(&enc);
		dft_json_text_encode(&enc, s, n);
		s = enc.s;
		n = enc.len;
	}
	if (fwrite(s, 1, n, out) != n || putc('\n', out) == EOF)
		write_failed();
	if (dft_unbuffered && fflush(out) == EOF)
		write_failed();
}

/* Writes rec as one compact line. Dies (exit 2) on a write error. */
void
dft_emit(FILE *out, json_object *rec)
{
	size_t n;
	const char *s = json_object_to_json_string_length(rec,
	    JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, &n);

	emit_line(out, s, n);
}

void
dft_emit_put(FILE *out, json_object *rec)
{
	dft_emit(out, rec);
	json_object_put(rec);
}

void
dft_pass(FILE *out, const struct dft_reader *r)
{
	emit_line(out, r->buf, r->len);
}

/*
 * Flushes and closes stdout: write error -> "dft-x: write error: ..." and
 * returns DFT_EXIT_FATAL; EPIPE -> quiet, returns DFT_EXIT_FATAL; else 0.
 * Use as: status |= ...; return worst of status.
 */
int
dft_close_stdout(void)
{
	int err = fflush(stdout) == EOF || ferror(stdout);
	int saved = errno;

	if (fclose(stdout) == EOF && !err) {
		err = 1;
		saved = errno;
	}
	if (!err)
		return DFT_EXIT_OK;
	if (saved != EPIPE) {
		errno = saved;
		dft_warn("write error:");
	}
	return DFT_EXIT_FATAL;
}

static json_object *
get(json_object *o, const char *key)
{
	json_object *v;

	if (o == NULL || !json_object_object_get_ex(o, key, &v))
		return NULL;
	return v;
}

/* Typed getters: def when the key is absent or of another type. */
const char *
dft_json_str(json_object *o, const char *key, const char *def)
{
	json_object *v = get(o, key);

	if (v == NULL || !json_object_is_type(v, json_type_string))
		return def;
	return json_object_get_string(v);
}

int64_t
dft_json_int(json_object *o, const char *key, int64_t def)
{
	json_object *v = get(o, key);

	if (v == NULL)
		return def;
	if (json_object_is_type(v, json_type_int))
		return json_object_get_int64(v);
	if (json_object_is_type(v, json_type_double))
		return (int64_t)json_object_get_double(v);
	return def;
}

double
dft_json_double(json_object *o, const char *key, double def)
{
	json_object *v = get(o, key);

	if (v == NULL)
		return def;
	if (json_object_is_type(v, json_type_double) ||
	    json_object_is_type(v, json_type_int))
		return json_object_get_double(v);
	return def;
}

int
dft_json_bool(json_object *o, const char *key, int def)
{
	json_object *v = get(o, key);

	if (v == NULL || !json_object_is_type(v, json_type_boolean))
		return def;
	return json_object_get_boolean(v);
}

json_object *
dft_json_path(json_object *o, const char *dotted)
{
	char *copy = dft_xstrdup(dotted), *p = copy, *dot;

	while (o != NULL) {
		dot = strchr(p, '.');
		if (dot != NULL)
			*dot = '\0';
		o = get(o, p);
		if (dot == NULL)
			break;
		p = dot + 1;
	}
	free(copy);
	return o;
}

json_object *
dft_jstr(const char *s)
{
	json_object *o;

	if (s == NULL)
		return NULL;	/* json-c's NULL is JSON null */
	o = json_object_new_string(s);
	if (o == NULL)
		dft_die("out of memory");
	return o;
}

json_object *
dft_jint(int64_t v)
{
	json_object *o = json_object_new_int64(v);

	if (o == NULL)
		dft_die("out of memory");
	return o;
}

/* Serialises with "%.6g"-like precision so records stay short and stable. */
static int
double_to_string(json_object *o, struct printbuf *pb, int level, int flags)
{
	double d = json_object_get_double(o);
	char tmp[64];

	if (!isfinite(d))
		return printbuf_memappend(pb, "null", 4);
	if (d == (double)(int64_t)d && fabs(d) < 1e15)
		snprintf(tmp, sizeof(tmp), "%lld", (long long)d);
	else
		snprintf(tmp, sizeof(tmp), "%.6g", d);
	return printbuf_memappend(pb, tmp, (int)strlen(tmp));
}

static json_object *
new_double(double v, json_object_to_json_string_fn *fn)
{
	json_object *o = json_object_new_double(v);

	if (o == NULL)
		dft_die("out of memory");
	json_object_set_serializer(o, fn, NULL, NULL);
	return o;
}

json_object *
dft_jdouble(double v)
{
	return new_double(v, double_to_string);
}

/* A computed number as jq writes it: an integral value without ".0", else
 * the shortest text that reads back the same. */
static int
number_to_string(json_object *o, struct printbuf *pb, int level, int flags)
{
	double d = json_object_get_double(o);
	char tmp[40];

	(void)level;
	(void)flags;
	if (!isfinite(d))
		snprintf(tmp, sizeof(tmp), "null");
	else if (d == floor(d) && fabs(d) < 1e17)
		snprintf(tmp, sizeof(tmp), "%.0f", d);
	else
		for (int p = 1; p <= 17; p++) {
			snprintf(tmp, sizeof(tmp), "%.*g", p, d);
			if (strtod(tmp, NULL) == d)
				break;
		}
	return printbuf_memappend(pb, tmp, (int)strlen(tmp));
}

json_object *
dft_jnumber(double d)
{
	return new_double(d, number_to_string);
}

/* Every number below o written as jq writes it (records that jq made
 * before, where a copied "100.0" is 100). */
void
dft_jq_numbers(json_object *o)
{
	switch (json_object_get_type(o)) {
	case json_type_double:
		json_object_set_serializer(o, number_to_string, NULL, NULL);
		break;
	case json_type_array:
		for (size_t i = 0; i < json_object_array_length(o); i++)
			dft_jq_numbers(json_object_array_get_idx(o, i));
		break;
	case json_type_object: {
		json_object_object_foreach(o, k, v) {
			(void)k;
			dft_jq_numbers(v);
		}
		break;
	}
	default:
		break;
	}
}

json_object *
dft_json_load(const char *path)
{
	size_t len;
	char *s = dft_read_file(path, &len);
	json_object *o;
	json_tokener *tok;

	if (s == NULL)
		return NULL;
	len = dft_json_text_decode(s, len);
	tok = json_tokener_new_ex(JSON_TOKENER_DEFAULT_DEPTH);
	if (tok == NULL)
		dft_die("out of memory");
	o = json_tokener_parse_ex(tok, s, (int)len);
	if (o == NULL || json_tokener_get_error(tok) != json_tokener_success) {
		json_object_put(o);
		o = NULL;
		errno = EINVAL;
	}
	json_tokener_free(tok);
	free(s);
	return o;
}

/* Writes o as indent-2 JSON atomically (temp + rename). 0 or -1. */
int
dft_json_save(const char *path, json_object *o)
{
	size_t n;
	const char *s = json_object_to_json_string_length(o,
	    JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
	    JSON_C_TO_STRING_NOSLASHESCAPE, &n);
	struct dft_buf b;
	int rc;

	dft_buf_init(&b);
	dft_json_text_encode(&b, s, n);
	dft_buf_addc(&b, '\n');
	rc = dft_write_file_atomic(path, b.s, b.len);
	dft_buf_release(&b);
	return rc;
}

int
dft_trace_input_line(const char *line, size_t len, char **path,
		     json_object **rec)
{
	char *copy = dft_xstrndup(line, len);
	json_object *o;
	const char *p;

	*path = NULL;
	*rec = NULL;
	if (len > 0 && line[0] != '{') {
		if (dft_exists(copy) && !dft_is_dir(copy)) {
			*path = copy;
			return 1;
		}
		free(copy);
		return -1;
	}
	dft_json_text_decode(copy, len);
	o = json_tokener_parse(copy);
	free(copy);
	p = dft_json_str(o, "path", NULL);
	if (p != NULL && strcmp(dft_record_type(o), "chunk") == 0) {
		*path = dft_xstrdup(p);
		json_object_put(o);
		return 1;
	}
	*rec = o;
	return 0;
}
