/*
 * dft-split - cut dftracer traces into self-contained gzip chunks, as
 * dftracer-utils' dftracer_split does, and print a `chunk` record per
 * chunk (man dft(7)).
 *
 * Input: trace files (.pfw, .pfw.gz, any generation) as operands, or on
 * standard input trace paths, `chunk` records (their files are split
 * again) or a trace stream. Other records pass through unchanged.
 * Output: files DIR/APP-N.pfw.gz ("[", events one per line, "]"), each
 * closed when it reaches 95 % of the target size; with --by pid one series
 * per process, with --by time one per time window. Every chunk carries the
 * HH/FH/SH metadata lines its events refer to, so it can be analyzed
 * alone. Chunks never mix input files (hashes only mean something next to
 * their own metadata). Compression runs on worker threads; each chunk is
 * an independent gzip member.
 *
 * It does not: build .idx/.zindex indexes, sort events, or rewrite lines
 * (event lines are copied byte for byte, trimmed).
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "options.h"
#include "trace.h"

static const char usage_text[] =
	"usage: dft-split [-n app] [-o dir] [-s MB] [-j jobs] [--by size|pid]\n"
	"                 [--by time SECONDS] [--verify] [trace ...]\n";

enum { BY_SIZE, BY_PID, BY_TIME };

struct opts {
	const char *app;
	const char *dir;
	double mb;
	int jobs;
	int by;
	double seconds;
	int verify;
};

struct chunk {
	int index;
	long part;		/* place in its source's series, from 1 */
	char series[24];
	char *path;
	char *key;		/* pid key with --by pid */
	struct dft_buf text;
	long events, meta;
	int64_t tmin, tmax;
	const char *source;
	struct dft_tmap written;	/* metadata in the chunk: kind+hash ->
					 * the version of its line (uint64_t) */
	struct dft_tmap unres;		/* hashes whose line was not known yet */
	struct dft_buf late;		/* their lines, appended at the end */
	long late_n;
	/* results of the compression worker */
	uint64_t compressed, bytes;
	int err;
	int done;
	struct chunk *next_q;
};

struct mline {
	char *line;
	size_t len;
	uint64_t ver;		/* bumped when the hash gets a line again */
};

struct state {
	struct opts *o;
	size_t target;
	int next_index;
	struct chunk **all;
	size_t nall, capall;
	struct dft_tmap cur;		/* key -> struct chunk * */
	struct dft_buf pending;		/* metadata lines waiting for a chunk */
	long pending_n;
	struct dft_tmap pending_keys;	/* their kind+hash -> version */
	uint64_t meta_ver;
	struct chunk *last;
	/* the series of the current source (chunk stream) */
	char series[24];
	long part;
	/* verification */
	uint64_t in_sum, in_xor;
	long in_events;
	/* compression queue */
	pthread_mutex_t mu;
	pthread_cond_t cv, room;
	struct chunk *qhead, *qtail;
	int qlen, stop;
	pthread_t *th;
	int nth;
	int status;
	int dir_ready;
};

static void *compressor(void *arg);

/* The output directory and the compression threads, on first need. */
static void
start_output(struct state *s)
{
	if (s->dir_ready)
		return;
	if (dft_mkdir_p(s->o->dir, 0777) != 0)
		dft_die("cannot create '%s':", s->o->dir);
	s->nth = s->o->jobs > 1 ? s->o->jobs : 0;
	if (s->nth > 0) {
		s->th = dft_xcalloc((size_t)s->nth, sizeof(*s->th));
		for (int j = 0; j < s->nth; j++)
			if (pthread_create(&s->th[j], NULL, compressor, s) != 0)
				dft_die("cannot start a thread:");
	}
	s->dir_ready = 1;
}

static const char help_text[] =
	"\n"
	"  -n, --name APP      chunk name prefix (default app)\n"
	"  -o, --output DIR    output directory (default ./split)\n"
	"  -s, --size MB       target chunk size, uncompressed MiB (default 4)\n"
	"  -j, --jobs N        compression threads (default: cores)\n"
	"      --by KIND       size (default), pid, or time SECONDS\n"
	"      --verify        re-read the chunks and compare event counts and\n"
	"                      (pid, tid, id) sets with the input\n"
	"  -h, --help          this help\n"
	"  -V, --version       print the version\n";

/* ---- compression workers ------------------------------------------------- */

static int
write_gz(struct chunk *c)
{
	z_stream zs;
	char *tmp = dft_xasprintf("%s.tmp", c->path);
	FILE *fp = fopen(tmp, "wb");
	static const size_t OUT = 1 << 18;
	unsigned char *out;
	int rc, err = 0;

	if (fp == NULL) {
		err = errno;
		free(tmp);
		return err;
	}
	out = dft_xmalloc(OUT);
	memset(&zs, 0, sizeof(zs));
	if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK) {
		err = ENOMEM;
		goto out;
	}
	zs.next_in = (unsigned char *)c->text.s;
	zs.avail_in = (uInt)c->text.len;
	do {
		zs.next_out = out;
		zs.avail_out = (uInt)OUT;
		rc = deflate(&zs, Z_FINISH);
		size_t n = OUT - zs.avail_out;

		if (fwrite(out, 1, n, fp) != n) {
			err = errno ? errno : EIO;
			break;
		}
		c->compressed += n;
	} while (rc != Z_STREAM_END);
	deflateEnd(&zs);
out:
	if (fclose(fp) != 0 && err == 0)
		err = errno;
	if (err == 0 && rename(tmp, c->path) != 0)
		err = errno;
	if (err != 0)
		unlink(tmp);
	free(out);
	free(tmp);
	return err;
}

static void *
compressor(void *arg)
{
	struct state *s = arg;

	for (;;) {
		pthread_mutex_lock(&s->mu);
		while (s->qhead == NULL && !s->stop)
			pthread_cond_wait(&s->cv, &s->mu);
		struct chunk *c = s->qhead;

		if (c == NULL) {
			pthread_mutex_unlock(&s->mu);
			return NULL;
		}
		s->qhead = c->next_q;
		if (s->qhead == NULL)
			s->qtail = NULL;
		pthread_mutex_unlock(&s->mu);
		c->err = write_gz(c);
		pthread_mutex_lock(&s->mu);
		c->done = 1;
		/* the text is no longer needed */
		dft_buf_release(&c->text);
		s->qlen--;
		pthread_cond_broadcast(&s->room);
		pthread_mutex_unlock(&s->mu);
	}
}

static void
submit(struct state *s, struct chunk *c)
{
	dft_buf_adds(&c->text, "]\n");
	c->bytes = c->text.len;
	if (s->nth == 0) {
		c->err = write_gz(c);
		c->done = 1;
		dft_buf_release(&c->text);
		return;
	}
	pthread_mutex_lock(&s->mu);
	while (s->qlen >= 2 * s->nth)
		pthread_cond_wait(&s->room, &s->mu);
	c->next_q = NULL;
	if (s->qtail)
		s->qtail->next_q = c;
	else
		s->qhead = c;
	s->qtail = c;
	s->qlen++;
	pthread_cond_signal(&s->cv);
	pthread_mutex_unlock(&s->mu);
}

/* ---- chunks ----------------------------------------------------------- */

/* The chunk's dft_chunk line: its series, part and source (dft(7)). */
static void
chunk_mark(struct chunk *c, const char *source)
{
	json_object *o = json_object_new_object();
	json_object *args = json_object_new_object();

	json_object_object_add(o, "id", dft_jint(0));
	json_object_object_add(o, "name", dft_jstr("dft_chunk"));
	json_object_object_add(o, "cat", dft_jstr("dft"));
	json_object_object_add(o, "pid", dft_jint(0));
	json_object_object_add(o, "tid", dft_jint(0));
	json_object_object_add(o, "ph", dft_jstr("M"));
	json_object_object_add(args, "series", dft_jstr(c->series));
	json_object_object_add(args, "part", dft_jint(c->part));
	json_object_object_add(args, "source", dft_jstr(source));
	json_object_object_add(o, "args", args);
	dft_buf_adds(&c->text, json_object_to_json_string_ext(o,
		JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	dft_buf_addc(&c->text, '\n');
	json_object_put(o);
}

static struct chunk *
chunk_new(struct state *s, const char *key, const char *source)
{
	struct chunk *c = dft_xcalloc(1, sizeof(*c));

	start_output(s);
	c->index = ++s->next_index;
	c->path = dft_xasprintf("%s/%s-%d.pfw.gz", s->o->dir, s->o->app,
				c->index);
	if (s->part == 0) {
		/* names the chunks of this source: where they are written,
		 * under which name, from which trace, from which index */
		char *dir = dft_path_absolute(s->o->dir);
		char *id = dft_xasprintf("%s\x1f%s\x1f%s\x1f%d", dir, s->o->app,
					 source, c->index);

		snprintf(s->series, sizeof(s->series), "%016llx",
			 (unsigned long long)dft_hash_bytes(id, strlen(id)));
		free(id);
		free(dir);
	}
	c->part = ++s->part;
	memcpy(c->series, s->series, sizeof(c->series));
	c->key = dft_xstrdup(key);
	c->source = source;
	c->tmin = INT64_MAX;
	c->tmax = INT64_MIN;
	dft_buf_init(&c->text);
	dft_tmap_init(&c->written, sizeof(uint64_t));
	dft_tmap_init(&c->unres, 1);
	dft_buf_init(&c->late);
	dft_buf_adds(&c->text, "[\n");
	chunk_mark(c, source);
	if (s->pending.len > 0) {
		dft_buf_add(&c->text, s->pending.s, s->pending.len);
		c->meta += s->pending_n;
		dft_buf_reset(&s->pending);
		s->pending_n = 0;
	}
	for (size_t i = 0; i < s->pending_keys.count; i++) {
		size_t kn;
		const char *k = dft_tmap_key(&s->pending_keys, i, &kn);

		*(uint64_t *)dft_tmap_get(&c->written, k, kn, 1, NULL) =
			*(uint64_t *)dft_tmap_value(&s->pending_keys, i);
	}
	dft_tmap_release(&s->pending_keys);
	if (s->nall == s->capall) {
		s->capall = s->capall ? 2 * s->capall : 64;
		s->all = dft_xreallocarray(s->all, s->capall, sizeof(*s->all));
	}
	s->all[s->nall++] = c;
	return c;
}

static void
chunk_close(struct state *s, struct chunk *c)
{
	struct chunk **slot = dft_tmap_get(&s->cur, c->key, strlen(c->key), 0,
					   NULL);

	if (slot != NULL && *slot == c)
		*slot = NULL;
	if (s->last == c)
		s->last = NULL;
	dft_tmap_release(&c->written);
	submit(s, c);
}

static void
close_all(struct state *s)
{
	for (size_t i = 0; i < s->cur.count; i++) {
		struct chunk **slot = dft_tmap_value(&s->cur, i);

		if (*slot != NULL)
			chunk_close(s, *slot);
	}
}

/* Copies the metadata line for kind+hash into c unless it is there in
 * its latest version (a hash may be given another name later: with --by
 * pid that line is written to its own process' chunk, and the others get
 * it before their next event that uses the hash). */
static void
need_meta(struct state *s, struct chunk *c, struct dft_tmap *meta, char kind,
	  const struct dft_str *h)
{
	char key[256];

	(void)s;
	if (h->p == NULL || h->n + 1 > sizeof(key))
		return;
	key[0] = kind;
	memcpy(key + 1, h->p, h->n);
	int is_new;
	uint64_t *w = dft_tmap_get(&c->written, key, h->n + 1, 1, &is_new);
	struct mline *m = dft_tmap_get(meta, key, h->n + 1, 0, NULL);

	if (m == NULL) {
		/* its line may come later in the file */
		if (is_new)
			dft_tmap_get(&c->unres, key, h->n + 1, 1, NULL);
		return;
	}
	if (*w == m->ver)
		return;
	*w = m->ver;
	dft_buf_add(&c->text, m->line, m->len);
	dft_buf_addc(&c->text, '\n');
	c->meta++;
}

static uint64_t
ev_hash(const struct dft_trace_ev *ev)
{
	int64_t k[3] = { ev->pid, ev->tid, (ev->has & DFT_EV_ID) ? ev->id :
			 ev->ts };

	return dft_hash_bytes(k, sizeof(k));
}

static void
chunk_key(struct state *s, struct dft_trace *t, const struct dft_trace_ev *ev,
	  struct dft_buf *b)
{
	dft_buf_reset(b);
	if (s->o->by == BY_PID) {
		const struct dft_str *h = NULL;

		if (ev->hhash.p != NULL)
			h = dft_trace_lookup(t, 'H', ev->hhash.p, ev->hhash.n);
		if (h != NULL)
			dft_buf_add(b, h->p, h->n);
		else if (ev->hostname.p != NULL)
			dft_buf_add(b, ev->hostname.p, ev->hostname.n);
		else if (ev->hhash.p != NULL)
			dft_buf_add(b, ev->hhash.p, ev->hhash.n);
		else
			dft_buf_adds(b, "unknown");
		dft_buf_addf(b, "#%lld", (long long)ev->pid);
	} else if (s->o->by == BY_TIME) {
		int64_t w = (int64_t)(s->o->seconds * 1e6);

		dft_buf_addf(b, "%lld", (long long)(ev->ts / (w > 0 ? w : 1)));
	}
}

typedef void (*rec_cb)(const char *line, size_t len, long lineno,
		       void *ctx);

/* Splits one trace. Returns an exit status. */
static int
split_one(struct state *s, struct dft_trace *t, const char *source,
	  rec_cb rec, void *rctx)
{
	struct dft_trace_ev ev;
	struct dft_tmap meta;
	struct dft_buf key;
	int k;

	size_t first = s->nall;

	s->part = 0;		/* a new series */
	dft_tmap_init(&meta, sizeof(struct mline));
	dft_buf_init(&key);
	while ((k = dft_trace_next(t, &ev)) == 1) {
		if ((ev.has & DFT_EV_NOTJSON) ||
		    (ev.rtype.p != NULL && ev.ph == DFT_PH_UNKNOWN &&
		     ev.name.p == NULL)) {
			rec(ev.line, ev.len, ev.lineno, rctx);
			continue;
		}
		if (ev.ph == DFT_PH_M) {
			/* remember HH/FH/SH lines for later chunks */
			if (ev.name.n == 2 && ev.mvalue.p != NULL &&
			    ev.mvalue.n < 250 &&
			    (memcmp(ev.name.p, "HH", 2) == 0 ||
			     memcmp(ev.name.p, "FH", 2) == 0 ||
			     memcmp(ev.name.p, "SH", 2) == 0)) {
				char mk[256];

				mk[0] = ev.name.p[0];
				memcpy(mk + 1, ev.mvalue.p, ev.mvalue.n);
				struct mline *m = dft_tmap_get(&meta, mk,
					ev.mvalue.n + 1, 1, NULL);

				free(m->line);
				m->line = dft_xmemdup0(ev.line, ev.len);
				m->len = ev.len;
				m->ver = ++s->meta_ver;
			}
			/* write it where it is: the current chunk of its
			 * key, or the next chunk to open */
			struct chunk *c = NULL;

			if (s->o->by != BY_TIME) {
				chunk_key(s, t, &ev, &key);
				struct chunk **slot = dft_tmap_get(&s->cur,
					key.s ? key.s : "", key.len, 0, NULL);

				c = slot ? *slot : NULL;
			} else {
				c = s->last;
			}
			if (c != NULL) {
				dft_buf_add(&c->text, ev.line, ev.len);
				dft_buf_addc(&c->text, '\n');
				c->meta++;
				if (ev.name.n == 2 && ev.mvalue.p != NULL &&
				    ev.mvalue.n < 250) {
					char mk[256];

					mk[0] = ev.name.p[0];
					memcpy(mk + 1, ev.mvalue.p, ev.mvalue.n);
					*(uint64_t *)dft_tmap_get(&c->written,
						mk, ev.mvalue.n + 1, 1, NULL) =
						s->meta_ver;
				}
			} else {
				dft_buf_add(&s->pending, ev.line, ev.len);
				dft_buf_addc(&s->pending, '\n');
				s->pending_n++;
				if (ev.name.n == 2 && ev.mvalue.p != NULL &&
				    ev.mvalue.n < 250) {
					char mk[256];

					mk[0] = ev.name.p[0];
					memcpy(mk + 1, ev.mvalue.p, ev.mvalue.n);
					*(uint64_t *)dft_tmap_get(
						&s->pending_keys, mk,
						ev.mvalue.n + 1, 1, NULL) =
						s->meta_ver;
				}
			}
			continue;
		}
		chunk_key(s, t, &ev, &key);
		struct chunk **slot = dft_tmap_get(&s->cur, key.s ? key.s : "",
						   key.len, 1, NULL);

		if (*slot == NULL)
			*slot = chunk_new(s, key.s ? key.s : "", source);
		struct chunk *c = *slot;

		need_meta(s, c, &meta, 'H', &ev.hhash);
		need_meta(s, c, &meta, 'F', &ev.fhash);
		dft_buf_add(&c->text, ev.line, ev.len);
		dft_buf_addc(&c->text, '\n');
		c->events++;
		s->last = c;
		if (ev.has & DFT_EV_TS) {
			if (ev.ts < c->tmin)
				c->tmin = ev.ts;
			int64_t d = (ev.has & DFT_EV_DUR) && ev.dur > 0 ? ev.dur : 0;
			int64_t e = ev.ts > INT64_MAX - d ? INT64_MAX : ev.ts + d;

			if (e > c->tmax)
				c->tmax = e;
		}
		if (ev.ph == DFT_PH_X || ev.ph == DFT_PH_AGG ||
		    ev.ph == DFT_PH_COUNTER) {
			uint64_t h = ev_hash(&ev);

			s->in_sum += h;
			s->in_xor ^= h * 0x9e3779b97f4a7c15ULL;
			s->in_events++;
		}
		if (c->text.len >= s->target * 95 / 100)
			chunk_close(s, c);
	}
	/* trailing metadata goes to the last chunk still open */
	if (s->pending.len > 0 && s->last != NULL) {
		dft_buf_add(&s->last->text, s->pending.s, s->pending.len);
		s->last->meta += s->pending_n;
		dft_buf_reset(&s->pending);
		s->pending_n = 0;
		dft_tmap_release(&s->pending_keys);
	}
	/* chunks never mix input files */
	close_all(s);
	/* metadata lines that came after events of earlier chunks */
	for (size_t i = first; i < s->nall; i++) {
		struct chunk *c = s->all[i];

		for (size_t j = 0; j < c->unres.count; j++) {
			size_t kn;
			const char *k = dft_tmap_key(&c->unres, j, &kn);
			struct mline *m = dft_tmap_get(&meta, k, kn, 0, NULL);

			if (m == NULL)
				continue;
			dft_buf_add(&c->late, m->line, m->len);
			dft_buf_addc(&c->late, '\n');
			c->late_n++;
		}
		dft_tmap_release(&c->unres);
	}
	if (s->pending.len > 0) {
		/* metadata without any event: keep it in a chunk of its own */
		struct chunk *c = chunk_new(s, "", source);

		chunk_close(s, c);
	}
	for (size_t i = 0; i < meta.count; i++)
		free(((struct mline *)dft_tmap_value(&meta, i))->line);
	dft_tmap_release(&meta);
	dft_buf_release(&key);
	if (k < 0)
		return DFT_EXIT_DATA;
	return t->bad > 0 || t->truncated || t->corrupt ? DFT_EXIT_DATA :
	       DFT_EXIT_OK;
}

/* ---- inputs ------------------------------------------------------------ */

struct inctx {
	struct state *s;
	char **paths;
	size_t n, cap;
	const char *name;
};

static void
add_path(struct inctx *ic, const char *p, size_t n)
{
	if (ic->n == ic->cap) {
		ic->cap = ic->cap ? 2 * ic->cap : 16;
		ic->paths = dft_xreallocarray(ic->paths, ic->cap,
					      sizeof(*ic->paths));
	}
	ic->paths[ic->n++] = dft_xstrndup(p, n);
}

static void
on_record(const char *line, size_t len, long lineno, void *ctx)
{
	struct inctx *ic = ctx;
	char *path;
	json_object *o;
	int kind = dft_trace_input_line(line, len, &path, &o);

	if (kind < 0) {
		dft_warn_at(ic->name, lineno,
			    "not a record or a trace file: '%.*s'", (int)len,
			    line);
		ic->s->status = dft_worst(ic->s->status, DFT_EXIT_DATA);
	} else if (kind > 0) {
		add_path(ic, path, strlen(path));
		free(path);
	} else {
		fwrite(line, 1, len, stdout);
		fputc('\n', stdout);
		json_object_put(o);
	}
}

/* The number of chunks in c's series. */
static long
series_parts(const struct state *s, const struct chunk *c)
{
	long n = 0;

	for (size_t i = 0; i < s->nall; i++)
		if (strcmp(s->all[i]->series, c->series) == 0 &&
		    s->all[i]->part > n)
			n = s->all[i]->part;
	return n;
}

static int
verify(struct state *s, size_t from)
{
	uint64_t sum = 0, x = 0;
	long n = 0;
	int ok = 1;

	for (size_t i = from; i < s->nall; i++) {
		struct dft_trace t;
		struct dft_trace_ev ev;

		if (s->all[i]->err != 0 || dft_trace_open(&t, s->all[i]->path) < 0) {
			ok = 0;
			continue;
		}
		while (dft_trace_next(&t, &ev) == 1) {
			if (ev.ph == DFT_PH_X || ev.ph == DFT_PH_AGG ||
			    ev.ph == DFT_PH_COUNTER) {
				uint64_t h = ev_hash(&ev);

				sum += h;
				x ^= h * 0x9e3779b97f4a7c15ULL;
				n++;
			}
		}
		if (t.bad > 0)
			ok = 0;
		dft_trace_close(&t);
	}
	if (n != s->in_events || sum != s->in_sum || x != s->in_xor) {
		dft_warn("verify: the chunks hold %ld events, the input %ld%s",
			 n, s->in_events,
			 n == s->in_events ? " but a different (pid, tid, id) "
			 "set" : "");
		ok = 0;
	}
	return ok;
}

static void
parse_opts(int argc, char **argv, struct opts *o)
{
	enum { OPT_BY = 256, OPT_VERIFY };
	static const struct option lo[] = {
		{ "name", required_argument, NULL, 'n' },
		{ "output", required_argument, NULL, 'o' },
		{ "size", required_argument, NULL, 's' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "by", required_argument, NULL, OPT_BY },
		{ "verify", no_argument, NULL, OPT_VERIFY },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	while ((c = dft_getopt(argc, argv, "n:o:s:j:hV", lo)) != -1) {
		switch (c) {
		case 'n':
			if (*optarg == '\0' || strchr(optarg, '/') != NULL)
				dft_bad_value(usage_text, "--name", optarg,
					      "a name without '/'");
			o->app = optarg;
			break;
		case 'o':
			o->dir = optarg;
			break;
		case 's':
			o->mb = dft_opt_double(usage_text, "--size", optarg,
					       1e-6, 1e6);
			break;
		case 'j':
			o->jobs = (int)dft_opt_long(usage_text, "--jobs", optarg,
						    1, 1024);
			break;
		case OPT_BY:
			if (strcmp(optarg, "size") == 0) {
				o->by = BY_SIZE;
			} else if (strcmp(optarg, "pid") == 0) {
				o->by = BY_PID;
			} else if (strncmp(optarg, "time", 4) == 0) {
				const char *sec = NULL;

				if (optarg[4] == '=' || optarg[4] == ':')
					sec = optarg + 5;
				else if (optarg[4] == '\0' && optind < argc)
					sec = argv[optind++];
				if (sec == NULL)
					dft_usage_error(usage_text, "option "
							"requires an argument: "
							"--by time");
				/* a window of 1 us .. 31 years, in int64 us */
				o->seconds = dft_opt_double(usage_text,
							    "--by time", sec,
							    1e-6, 1e9);
				o->by = BY_TIME;
			} else {
				dft_bad_value(usage_text, "--by", optarg,
					      "size, pid or time SECONDS");
			}
			break;
		case OPT_VERIFY:
			o->verify = 1;
			break;
		case 'h':
			exit(dft_help(usage_text, help_text));
		case 'V':
			exit(dft_version());
		default:
			dft_option_error(usage_text, c, argv, lo);
		}
	}
}

int
main(int argc, char **argv)
{
	struct opts o = { "app", "split", 4, 0, BY_SIZE, 0, 0 };
	struct state s;
	struct dft_step step;
	struct inctx ic = { 0 };

	dft_init("dft-split");
	o.jobs = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (o.jobs < 1)
		o.jobs = 1;
	parse_opts(argc, argv, &o);
	dft_step_begin(&step, "split");
	memset(&s, 0, sizeof(s));
	s.o = &o;
	s.target = (size_t)(o.mb * 1024 * 1024);
	if (s.target < 64)
		s.target = 64;
	dft_tmap_init(&s.cur, sizeof(struct chunk *));
	dft_buf_init(&s.pending);
	dft_tmap_init(&s.pending_keys, sizeof(uint64_t));
	pthread_mutex_init(&s.mu, NULL);
	pthread_cond_init(&s.cv, NULL);
	pthread_cond_init(&s.room, NULL);
	ic.s = &s;

	size_t next = 0;
	int have_stdin = optind == argc;

	char **ops;
	size_t nops;

	s.status = dft_trace_inputs(argc - optind, argv + optind, &ops, &nops);
	for (size_t i = 0; i < nops; i++)
		add_path(&ic, ops[i], strlen(ops[i]));
	dft_strv_free(ops);
	/* inputs: stdin first (it may name more), then the list */
	for (int round = 0; have_stdin || next < ic.n; round++) {
		struct dft_trace t;
		const char *name;

		if (have_stdin) {
			have_stdin = 0;
			if (dft_trace_open(&t, "-") < 0)
				dft_die("cannot read standard input:");
			t.raw_lines = 1;
			name = "<stdin>";
		} else {
			name = ic.paths[next++];
			if (dft_trace_open(&t, name) < 0) {
				dft_warn("cannot open '%s':", name);
				s.status = dft_worst(s.status, DFT_EXIT_DATA);
				continue;
			}
		}
		ic.name = name;
		int st = split_one(&s, &t, name, on_record, &ic);

		s.status = dft_worst(s.status, st);
		dft_trace_report(&t);
		dft_trace_close(&t);
	}
	if (s.nth > 0) {
		pthread_mutex_lock(&s.mu);
		s.stop = 1;
		pthread_cond_broadcast(&s.cv);
		pthread_mutex_unlock(&s.mu);
		for (int j = 0; j < s.nth; j++)
			pthread_join(s.th[j], NULL);
	}
	/* late metadata: one more gzip member at the end of the chunk */
	for (size_t i = 0; i < s.nall; i++) {
		struct chunk *c = s.all[i];

		if (c->late.len == 0 || c->err != 0)
			continue;
		FILE *fp = fopen(c->path, "ab");
		gzFile gz = fp ? gzdopen(dup(fileno(fp)), "ab") : NULL;

		if (gz == NULL || gzwrite(gz, c->late.s, (unsigned)c->late.len) !=
		    (int)c->late.len || gzclose(gz) != Z_OK)
			c->err = errno ? errno : EIO;
		if (fp != NULL)
			fclose(fp);
		struct stat st;

		if (stat(c->path, &st) == 0)
			c->compressed = (uint64_t)st.st_size;
		c->meta += c->late_n;
		c->bytes += c->late.len;
		dft_buf_release(&c->late);
	}
	int verified = -1;

	if (o.verify && s.nall > 0)
		verified = verify(&s, 0);
	if (verified == 0)
		s.status = dft_worst(s.status, DFT_EXIT_DATA);
	for (size_t i = 0; i < s.nall; i++) {
		struct chunk *c = s.all[i];

		if (c->err != 0) {
			errno = c->err;
			dft_warn("cannot write '%s':", c->path);
			s.status = DFT_EXIT_FATAL;
			continue;
		}
		json_object *r = json_object_new_object();

		json_object_object_add(r, "type", dft_jstr("chunk"));
		json_object_object_add(r, "v", dft_jint(1));
		json_object_object_add(r, "path", dft_jstr(c->path));
		json_object_object_add(r, "app", dft_jstr(o.app));
		json_object_object_add(r, "index", dft_jint(c->index));
		json_object_object_add(r, "by", dft_jstr(o.by == BY_PID ? "pid" :
			o.by == BY_TIME ? "time" : "size"));
		json_object_object_add(r, "events", dft_jint(c->events));
		json_object_object_add(r, "metadata", dft_jint(c->meta));
		json_object_object_add(r, "bytes",
				       dft_jint((int64_t)c->bytes));
		json_object_object_add(r, "compressed_bytes",
				       dft_jint((int64_t)c->compressed));
		if (o.by == BY_PID && c->key[0] != '\0')
			json_object_object_add(r, "pid", dft_jstr(c->key));
		if (c->tmin <= c->tmax) {
			json_object_object_add(r, "time_start_us",
					       dft_jint(c->tmin));
			json_object_object_add(r, "time_end_us",
					       dft_jint(c->tmax));
		}
		json_object *src = json_object_new_array();

		json_object_array_add(src, dft_jstr(c->source));
		json_object_object_add(r, "sources", src);
		json_object_object_add(r, "series", dft_jstr(c->series));
		json_object_object_add(r, "part", dft_jint(c->part));
		json_object_object_add(r, "parts", dft_jint(series_parts(&s,
								       c)));
		if (verified >= 0)
			json_object_object_add(r, "verified",
					       json_object_new_boolean(verified));
		dft_emit_put(stdout, r);
	}
	dft_emit_put(stdout, dft_step_end(&step, s.status == 0 ? "ok" :
					  "partial"));
	for (size_t i = 0; i < s.nall; i++) {
		free(s.all[i]->path);
		free(s.all[i]->key);
		dft_buf_release(&s.all[i]->text);
		free(s.all[i]);
	}
	free(s.all);
	for (size_t i = 0; i < ic.n; i++)
		free(ic.paths[i]);
	free(ic.paths);
	free(s.th);
	dft_tmap_release(&s.cur);
	dft_buf_release(&s.pending);
	dft_tmap_release(&s.pending_keys);
	return dft_worst(s.status, dft_close_stdout());
}
