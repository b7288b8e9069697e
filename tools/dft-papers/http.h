/*
 * http.h - HTTP GET with per-host rate limits, retries and a cache
 * (http.c, over libcurl): the literature search of dft-papers.
 */
#ifndef DFT_PAPERS_HTTP_H
#define DFT_PAPERS_HTTP_H

#include "dft.h"

struct dft_http_opts {
	double timeout_s;	/* whole transfer (30) */
	double connect_timeout_s; /* (10) */
	int retries;		/* extra attempts on 429, 5xx, resets (3) */
	double max_backoff_s;	/* cap on backoff and Retry-After (60) */
	const char *cache_dir;	/* NULL: no cache */
	double cache_ttl_s;	/* (86400) */
	int offline;		/* answer from the cache only, any age */
	int refresh;		/* skip the cache read for this request */
	const char *user_agent;
	size_t max_body;	/* bytes of body, after decompression: a
				 * larger answer fails (16 MiB) */
};
struct dft_http_resp {
	long status;		/* HTTP status, 0 without an answer */
	char *body;		/* NUL-terminated; released by _release */
	size_t len;
	int from_cache;
	double cached_at;	/* epoch s of the cache entry */
	double fetched_at;	/* epoch s of a network answer */
	int attempts;
	double waited_s;	/* time spent backing off */
	int unreachable;	/* could not resolve or connect */
	char error[256];	/* why it failed */
};
void dft_http_opts_init(struct dft_http_opts *o);
/* Minimum seconds between request starts to host ("host[:port]"). */
void dft_http_set_interval(const char *host, double seconds);
/* 0 with a 2xx body, -1 with r->error set.  headers: NULL-terminated. */
int dft_http_get(struct dft_http_resp *r, const char *url,
		 const char *const *headers, const struct dft_http_opts *o);
void dft_http_resp_release(struct dft_http_resp *r);
void dft_http_cache_drop(const char *url, const struct dft_http_opts *o);
char *dft_url_escape(const char *s);	/* RFC 3986 unreserved kept */

#endif
