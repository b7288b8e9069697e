/*
 * http.c - a small HTTP GET client over libcurl for the literature search
 * of dft-papers (man dft-papers(1), ONLINE SEARCH).
 *
 * What it does: one request at a time, per-host minimum intervals (a token
 * bucket of one token: arXiv asks for one request per 3 s on a single
 * connection), retries on 429, 5xx, resets and timeouts honouring
 * Retry-After, otherwise capped exponential backoff with jitter, and an
 * on-disk cache keyed by the URL with a time-to-live.
 * What it does not do: redirects to other hosts' limits, POST, cookies,
 * parallel transfers.  It never prints; failures are described in
 * resp->error for the caller to report.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

#include "http.h"

#define MAX_HOSTS 16

struct host_slot {
	char host[128];
	double interval;	/* seconds between request starts */
	double last;		/* monotonic time of the last start; 0 never */
};

static struct host_slot hosts[MAX_HOSTS];
static int nhosts;
static int curl_ready;
static unsigned int jitter_seed;

static void
url_host(const char *url, char *out, size_t n)
{
	const char *p = strstr(url, "://");
	size_t len;

	p = p != NULL ? p + 3 : url;
	len = strcspn(p, "/?#");
	if (len >= n)
		len = n - 1;
	memcpy(out, p, len);
	out[len] = '\0';
}

static struct host_slot *
host_slot(const char *host, int create)
{
	for (int i = 0; i < nhosts; i++)
		if (strcmp(hosts[i].host, host) == 0)
			return &hosts[i];
	if (!create || nhosts == MAX_HOSTS)
		return NULL;
	snprintf(hosts[nhosts].host, sizeof(hosts[nhosts].host), "%s", host);
	hosts[nhosts].interval = 0;
	hosts[nhosts].last = 0;
	return &hosts[nhosts++];
}

void
dft_http_set_interval(const char *host, double seconds)
{
	struct host_slot *h = host_slot(host, 1);

	if (h != NULL)
		h->interval = seconds < 0 ? 0 : seconds;
}

static void
sleep_s(double s)
{
	struct timespec ts;

	if (s <= 0)
		return;
	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

/* Waits until the host's interval since its last request has passed. */
static void
rate_wait(const char *url)
{
	char host[128];
	struct host_slot *h;
	double now;

	url_host(url, host, sizeof(host));
	h = host_slot(host, 1);
	if (h == NULL)
		return;
	now = dft_monotonic();
	if (h->last > 0 && now - h->last < h->interval)
		sleep_s(h->interval - (now - h->last));
	h->last = dft_monotonic();
}

static uint64_t
fnv1a(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *s != '\0'; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ULL;
	}
	return h;
}

static char *
cache_file(const struct dft_http_opts *o, const char *url)
{
	char name[40];

	snprintf(name, sizeof(name), "%016llx.http",
		 (unsigned long long)fnv1a(url));
	return dft_path_join(o->cache_dir, name);
}

/*
 * Cache file: the URL on the first line, then the body.  Returns 1 and
 * fills the response when a fresh (or, with stale_ok, any) entry exists.
 */
static int
cache_read(struct dft_http_resp *r, const char *url,
	   const struct dft_http_opts *o, int stale_ok)
{
	char *path, *data, *nl;
	size_t len, ulen = strlen(url);
	struct stat st;
	int hit = 0;

	if (o->cache_dir == NULL)
		return 0;
	path = cache_file(o, url);
	if (stat(path, &st) != 0)
		goto out;
	if (!stale_ok && o->cache_ttl_s > 0 &&
	    dft_epoch_now() - (double)st.st_mtime > o->cache_ttl_s)
		goto out;
	data = dft_read_file(path, &len);
	if (data == NULL)
		goto out;
	nl = memchr(data, '\n', len);
	if (nl == NULL || (size_t)(nl - data) != ulen ||
	    memcmp(data, url, ulen) != 0) {
		free(data);
		goto out;
	}
	r->len = len - ulen - 1;
	r->body = dft_xmalloc(r->len + 1);
	memcpy(r->body, nl + 1, r->len);
	r->body[r->len] = '\0';
	r->status = 200;
	r->from_cache = 1;
	r->cached_at = (double)st.st_mtime;
	free(data);
	hit = 1;
out:
	free(path);
	return hit;
}

static void
cache_write(const char *url, const struct dft_http_resp *r,
	    const struct dft_http_opts *o)
{
	struct dft_buf b;
	char *path;

	if (o->cache_dir == NULL || dft_mkdir_p(o->cache_dir, 0755) != 0)
		return;
	dft_buf_init(&b);
	dft_buf_adds(&b, url);
	dft_buf_addc(&b, '\n');
	dft_buf_add(&b, r->body, r->len);
	path = cache_file(o, url);
	(void)dft_write_file_atomic(path, b.s, b.len);
	free(path);
	dft_buf_release(&b);
}

void
dft_http_cache_drop(const char *url, const struct dft_http_opts *o)
{
	char *path;

	if (o->cache_dir == NULL)
		return;
	path = cache_file(o, url);
	(void)unlink(path);
	free(path);
}

struct xfer {
	struct dft_buf body;
	double retry_after;	/* seconds; < 0 none */
	size_t max;		/* body cap (decompressed) */
	int too_big;		/* the cap was reached: transfer aborted */
};

static size_t
on_body(char *p, size_t size, size_t n, void *ud)
{
	struct xfer *x = ud;

	if (x->body.len + size * n > x->max) {
		x->too_big = 1;
		return 0;	/* curl stops with CURLE_WRITE_ERROR */
	}
	dft_buf_add(&x->body, p, size * n);
	return size * n;
}

/* Retry-After: delta-seconds or an HTTP-date (RFC 9110, 10.2.3). */
static double
parse_retry_after(const char *v)
{
	char *end;
	double d;
	struct tm tm;

	while (*v == ' ' || *v == '\t')
		v++;
	d = strtod(v, &end);
	if (end != v && d >= 0)
		return d;
	memset(&tm, 0, sizeof(tm));
	if (strptime(v, "%a, %d %b %Y %H:%M:%S GMT", &tm) != NULL) {
		d = (double)timegm(&tm) - dft_epoch_now();
		return d < 0 ? 0 : d;
	}
	return -1;
}

static size_t
on_header(char *p, size_t size, size_t n, void *ud)
{
	struct xfer *x = ud;
	size_t len = size * n;
	static const char key[] = "retry-after:";

	if (len > sizeof(key) - 1 &&
	    strncasecmp(p, key, sizeof(key) - 1) == 0) {
		char v[128];
		size_t vl = len - (sizeof(key) - 1);

		if (vl >= sizeof(v))
			vl = sizeof(v) - 1;
		memcpy(v, p + sizeof(key) - 1, vl);
		v[vl] = '\0';
		v[strcspn(v, "\r\n")] = '\0';
		x->retry_after = parse_retry_after(v);
	}
	return len;
}

static int
transient_curl(CURLcode c)
{
	return c == CURLE_RECV_ERROR || c == CURLE_SEND_ERROR ||
	       c == CURLE_GOT_NOTHING || c == CURLE_PARTIAL_FILE ||
	       c == CURLE_OPERATION_TIMEDOUT;
}

static int
unreachable_curl(CURLcode c)
{
	return c == CURLE_COULDNT_RESOLVE_HOST ||
	       c == CURLE_COULDNT_RESOLVE_PROXY ||
	       c == CURLE_COULDNT_CONNECT;
}

static double
backoff(int attempt, double cap)
{
	double base = cap < 1 ? cap : 1;
	double d = base * pow(2, attempt - 1);
	double j;

	if (jitter_seed == 0)
		jitter_seed = (unsigned int)time(NULL) ^ (unsigned int)getpid();
	j = 0.5 + 0.5 * ((double)rand_r(&jitter_seed) / RAND_MAX);
	if (d > cap)
		d = cap;
	return d * j;
}

void
dft_http_opts_init(struct dft_http_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->timeout_s = 30;
	o->connect_timeout_s = 10;
	o->retries = 3;
	o->max_backoff_s = 60;
	o->max_body = (size_t)16 << 20;
	o->cache_ttl_s = 86400;
	o->user_agent = "dft-papers/" DFT_VERSION
			" (https://github.com/; mailto:dft@localhost)";
}

void
dft_http_resp_release(struct dft_http_resp *r)
{
	free(r->body);
	memset(r, 0, sizeof(*r));
}

int
dft_http_get(struct dft_http_resp *r, const char *url,
	     const char *const *headers, const struct dft_http_opts *o)
{
	CURL *c = NULL;
	struct curl_slist *hl = NULL;
	struct xfer x;
	int ret = -1;

	memset(r, 0, sizeof(*r));
	if (!o->refresh && cache_read(r, url, o, o->offline))
		return 0;
	if (o->offline) {
		snprintf(r->error, sizeof(r->error), "offline, not cached");
		return -1;
	}
	if (!curl_ready) {
		if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
			snprintf(r->error, sizeof(r->error),
				 "cannot initialise libcurl");
			return -1;
		}
		curl_ready = 1;
	}
	c = curl_easy_init();
	if (c == NULL) {
		snprintf(r->error, sizeof(r->error), "cannot create handle");
		return -1;
	}
	for (const char *const *h = headers; h != NULL && *h != NULL; h++)
		hl = curl_slist_append(hl, *h);
	dft_buf_init(&x.body);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, hl);
	curl_easy_setopt(c, CURLOPT_USERAGENT, o->user_agent);
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
	curl_easy_setopt(c, CURLOPT_MAXREDIRS, 5L);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING, "");
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)(o->timeout_s * 1000));
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS,
			 (long)(o->connect_timeout_s * 1000));
	x.max = o->max_body > 0 ? o->max_body : (size_t)16 << 20;
	/* the compressed size is capped too (a declared length, or as it
	 * comes), the decompressed one by on_body */
	curl_easy_setopt(c, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)x.max);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &x);
	curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(c, CURLOPT_HEADERDATA, &x);
	/* one connection at a time, closed after use (arXiv's terms) */
	curl_easy_setopt(c, CURLOPT_FORBID_REUSE, 1L);

	for (int attempt = 1;; attempt++) {
		CURLcode cc;
		long code = 0;
		double wait;
		int retry = 0;

		dft_buf_reset(&x.body);
		x.retry_after = -1;
		x.too_big = 0;
		rate_wait(url);
		cc = curl_easy_perform(c);
		r->attempts = attempt;
		if (cc == CURLE_OK)
			curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
		r->status = code;
		if (cc == CURLE_OK && code >= 200 && code < 300) {
			r->len = x.body.len;
			r->body = dft_buf_detach(&x.body);
			r->fetched_at = dft_epoch_now();
			cache_write(url, r, o);
			ret = 0;
			break;
		}
		if (x.too_big || cc == CURLE_FILESIZE_EXCEEDED) {
			snprintf(r->error, sizeof(r->error),
				 "the answer is larger than the %zu MiB cap",
				 x.max >> 20);
			break;
		}
		if (cc != CURLE_OK) {
			snprintf(r->error, sizeof(r->error), "%s",
				 curl_easy_strerror(cc));
			if (unreachable_curl(cc)) {
				r->unreachable = 1;
				break;
			}
			retry = transient_curl(cc);
		} else {
			snprintf(r->error, sizeof(r->error), "HTTP %ld", code);
			retry = code == 429 || code >= 500;
		}
		if (!retry || attempt > o->retries)
			break;
		if (x.retry_after >= 0) {
			if (x.retry_after > o->max_backoff_s) {
				snprintf(r->error, sizeof(r->error),
					 "HTTP %ld, Retry-After %.0f s is over "
					 "the %.0f s cap", code, x.retry_after,
					 o->max_backoff_s);
				break;
			}
			wait = x.retry_after;
		} else {
			wait = backoff(attempt, o->max_backoff_s);
		}
		r->waited_s += wait;
		sleep_s(wait);
	}
	dft_buf_release(&x.body);
	curl_slist_free_all(hl);
	curl_easy_cleanup(c);
	return ret;
}

char *
dft_url_escape(const char *s)
{
	struct dft_buf b;
	static const char hex[] = "0123456789ABCDEF";

	dft_buf_init(&b);
	for (; *s != '\0'; s++) {
		unsigned char ch = (unsigned char)*s;

		if ((ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') ||
		    (ch >= '0' && ch <= '9') || ch == '-' || ch == '_' ||
		    ch == '.' || ch == '~') {
			dft_buf_addc(&b, (char)ch);
		} else {
			dft_buf_addc(&b, '%');
			dft_buf_addc(&b, hex[ch >> 4]);
			dft_buf_addc(&b, hex[ch & 15]);
		}
	}
	return dft_buf_detach(&b);
}
