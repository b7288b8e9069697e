/*
 * search.c - the two online sources of dft-papers: the arXiv export API
 * (Atom 1.0) and the Semantic Scholar Graph API (JSON), through the rate
 * limited, retrying, caching client of common/http.c.
 *
 * A found paper is kept only when it has a DOI or an arXiv id (no
 * citation without a verifiable identifier).  An arXiv answer with no
 * entries is suspicious (the API sometimes returns empty pages for
 * queries that match) and is asked once more, bypassing the cache.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "papers.h"

/* ---- a tolerant scanner for the Atom elements arXiv sends ------------- */

static void
xml_unescape(struct dft_buf *b, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] != '&') {
			dft_buf_addc(b, s[i]);
			continue;
		}
		if (strncmp(s + i, "&amp;", 5) == 0) {
			dft_buf_addc(b, '&');
			i += 4;
		} else if (strncmp(s + i, "&lt;", 4) == 0) {
			dft_buf_addc(b, '<');
			i += 3;
		} else if (strncmp(s + i, "&gt;", 4) == 0) {
			dft_buf_addc(b, '>');
			i += 3;
		} else if (strncmp(s + i, "&quot;", 6) == 0) {
			dft_buf_addc(b, '"');
			i += 5;
		} else if (strncmp(s + i, "&apos;", 6) == 0) {
			dft_buf_addc(b, '\'');
			i += 5;
		} else if (s[i + 1] == '#') {
			char *end;
			unsigned long cp = s[i + 2] == 'x' ?
				strtoul(s + i + 3, &end, 16) :
				strtoul(s + i + 2, &end, 10);

			if (*end != ';' || cp == 0 || cp > 0x10FFFF) {
				dft_buf_addc(b, '&');
				continue;
			}
			if (cp < 0x80) {
				dft_buf_addc(b, (char)cp);
			} else if (cp < 0x800) {
				dft_buf_addc(b, (char)(0xC0 | (cp >> 6)));
				dft_buf_addc(b, (char)(0x80 | (cp & 0x3F)));
			} else if (cp < 0x10000) {
				dft_buf_addc(b, (char)(0xE0 | (cp >> 12)));
				dft_buf_addc(b, (char)(0x80 | ((cp >> 6) & 0x3F)));
				dft_buf_addc(b, (char)(0x80 | (cp & 0x3F)));
			} else {
				dft_buf_addc(b, (char)(0xF0 | (cp >> 18)));
				dft_buf_addc(b, (char)(0x80 | ((cp >> 12) & 0x3F)));
				dft_buf_addc(b, (char)(0x80 | ((cp >> 6) & 0x3F)));
				dft_buf_addc(b, (char)(0x80 | (cp & 0x3F)));
			}
			i = (size_t)(end - s);
		} else {
			dft_buf_addc(b, '&');
		}
	}
}

/* Collapses runs of white space to one space and trims; in place. */
static void
squeeze(char *s)
{
	char *w = s;
	int sp = 1;

	for (char *r = s; *r != '\0'; r++) {
		if (isspace((unsigned char)*r)) {
			if (!sp)
				*w++ = ' ';
			sp = 1;
		} else {
			*w++ = *r;
			sp = 0;
		}
	}
	if (w > s && w[-1] == ' ')
		w--;
	*w = '\0';
}

/*
 * Text of the first element named tag (with or without a namespace
 * prefix given in tag) in [p, end); *next is set past it.  NULL when
 * absent.  Caller frees.
 */
static char *
xml_elem(const char *p, const char *end, const char *tag, const char **next)
{
	size_t tl = strlen(tag);

	while (p < end) {
		const char *lt = memchr(p, '<', (size_t)(end - p));
		const char *gt, *close;
		char ctag[64];
		struct dft_buf b;

		if (lt == NULL)
			return NULL;
		if ((size_t)(end - lt) > tl + 1 &&
		    strncmp(lt + 1, tag, tl) == 0 &&
		    (lt[tl + 1] == '>' || isspace((unsigned char)lt[tl + 1]) ||
		     lt[tl + 1] == '/')) {
			gt = memchr(lt, '>', (size_t)(end - lt));
			if (gt == NULL)
				return NULL;
			if (gt[-1] == '/') {	/* <tag ... /> */
				if (next != NULL)
					*next = gt + 1;
				return dft_xstrdup("");
			}
			snprintf(ctag, sizeof(ctag), "</%s>", tag);
			close = strstr(gt + 1, ctag);
			if (close == NULL || close > end)
				return NULL;
			dft_buf_init(&b);
			xml_unescape(&b, gt + 1, (size_t)(close - gt - 1));
			if (next != NULL)
				*next = close + strlen(ctag);
			return dft_buf_detach(&b);
		}
		p = lt + 1;
	}
	return NULL;
}

/* Value of attribute name in the start tag at p (up to '>'). */
static char *
xml_attr(const char *p, const char *name)
{
	const char *gt = strchr(p, '>');
	char pat[64];
	const char *a, *q;
	struct dft_buf b;

	snprintf(pat, sizeof(pat), " %s=\"", name);
	a = strstr(p, pat);
	if (a == NULL || gt == NULL || a > gt)
		return NULL;
	a += strlen(pat);
	q = strchr(a, '"');
	if (q == NULL)
		return NULL;
	dft_buf_init(&b);
	xml_unescape(&b, a, (size_t)(q - a));
	return dft_buf_detach(&b);
}

static char *
arxiv_id_from(const char *id_url)
{
	const char *p = strstr(id_url, "/abs/");
	char *id, *v;

	id = dft_xstrdup(p != NULL ? p + 5 : id_url);
	squeeze(id);
	if (dft_has_prefix(id, "arXiv:"))
		memmove(id, id + 6, strlen(id + 6) + 1);
	v = strrchr(id, 'v');
	if (v != NULL && v != id && isdigit((unsigned char)v[-1]) &&
	    v[1] != '\0' && strspn(v + 1, "0123456789") == strlen(v + 1))
		*v = '\0';
	return id;
}

static void
add_paper(struct paper **out, int *nout, struct paper *p)
{
	*out = dft_xreallocarray(*out, (size_t)*nout + 1, sizeof(**out));
	(*out)[(*nout)++] = *p;
}

/* 1 when the feed is an arXiv error feed (an entry titled "Error"). */
static int
arxiv_error(const char *body, char *msg, size_t n)
{
	const char *e = strstr(body, "<entry");
	char *title, *sum;

	if (e == NULL)
		return 0;
	title = xml_elem(e, e + strlen(e), "title", NULL);
	if (title == NULL || strcmp(title, "Error") != 0) {
		free(title);
		return 0;
	}
	sum = xml_elem(e, e + strlen(e), "summary", NULL);
	if (sum != NULL)
		squeeze(sum);
	snprintf(msg, n, "arXiv error: %s", sum != NULL ? sum : "?");
	free(title);
	free(sum);
	return 1;
}

static int
parse_arxiv(const char *body, const char *query, const char *date,
	    int cached, struct paper **out, int *nout)
{
	const char *p = body, *end = body + strlen(body);
	int added = 0;

	for (;;) {
		const char *e = strstr(p, "<entry"), *ee, *q;
		struct paper pp;
		char *s, *link;

		if (e == NULL)
			break;
		ee = strstr(e, "</entry>");
		if (ee == NULL)
			ee = end;
		memset(&pp, 0, sizeof(pp));
		pp.citations = -1;
		s = xml_elem(e, ee, "id", NULL);
		if (s != NULL) {
			pp.arxiv = arxiv_id_from(s);
			free(s);
		}
		pp.title = xml_elem(e, ee, "title", NULL);
		pp.abstract = xml_elem(e, ee, "summary", NULL);
		s = xml_elem(e, ee, "published", NULL);
		if (s != NULL) {
			pp.year = (int)strtol(s, NULL, 10);
			free(s);
		}
		pp.doi = xml_elem(e, ee, "arxiv:doi", NULL);
		pp.venue = xml_elem(e, ee, "arxiv:journal_ref", NULL);
		for (q = e; q < ee;) {
			const char *nx;
			char *a = xml_elem(q, ee, "author", &nx);
			char *name;

			if (a == NULL)
				break;
			name = xml_elem(a, a + strlen(a), "name", NULL);
			if (name != NULL) {
				squeeze(name);
				pp.authors = dft_xreallocarray(pp.authors,
					(size_t)pp.nauthors + 1,
					sizeof(char *));
				pp.authors[pp.nauthors++] = name;
			}
			free(a);
			q = nx;
		}
		link = NULL;
		for (q = e; q < ee && (q = strstr(q, "<link")) != NULL &&
		     q < ee; q++) {
			char *t = xml_attr(q, "title");

			if (t != NULL && strcmp(t, "doi") == 0 && pp.doi == NULL)
				pp.doi = xml_attr(q, "href");
			free(t);
		}
		free(link);
		if (pp.title != NULL)
			squeeze(pp.title);
		if (pp.abstract != NULL)
			squeeze(pp.abstract);
		if (pp.venue != NULL)
			squeeze(pp.venue);
		if (pp.doi != NULL) {
			squeeze(pp.doi);
			if (dft_has_prefix(pp.doi, "https://doi.org/"))
				memmove(pp.doi, pp.doi + 16,
					strlen(pp.doi + 16) + 1);
		}
		if (pp.venue == NULL && pp.year > 0)
			pp.venue = dft_xasprintf("arXiv %d", pp.year);
		if (pp.arxiv != NULL && *pp.arxiv != '\0' &&
		    pp.title != NULL && *pp.title != '\0') {
			pp.url = dft_xasprintf("https://arxiv.org/abs/%s",
					       pp.arxiv);
			pp.source = dft_xstrdup("arxiv");
			pp.query = dft_xstrdup(query);
			pp.retrieved = dft_xstrdup(date);
			pp.cached = cached;
			add_paper(out, nout, &pp);
			added++;
		} else {
			paper_release(&pp);
		}
		p = ee;
	}
	return added;
}

static int
parse_s2(const char *body, const char *query, const char *date, int cached,
	 struct paper **out, int *nout, int *dropped, char *err, size_t errn)
{
	json_object *root = json_tokener_parse(body), *data;
	int added = 0, n;

	if (root == NULL || !json_object_object_get_ex(root, "data", &data) ||
	    !json_object_is_type(data, json_type_array)) {
		snprintf(err, errn, "Semantic Scholar answer is not a search "
			 "result");
		json_object_put(root);
		return -1;
	}
	n = (int)json_object_array_length(data);
	for (int i = 0; i < n; i++) {
		json_object *it = json_object_array_get_idx(data, (size_t)i);
		json_object *ext = NULL, *auth = NULL, *jn = NULL;
		struct paper pp;
		const char *s;

		memset(&pp, 0, sizeof(pp));
		s = dft_json_str(it, "title", NULL);
		pp.title = s != NULL ? dft_xstrdup(s) : NULL;
		s = dft_json_str(it, "abstract", NULL);
		pp.abstract = s != NULL ? dft_xstrdup(s) : NULL;
		pp.year = (int)dft_json_int(it, "year", 0);
		pp.citations = dft_json_int(it, "citationCount", -1);
		if (json_object_object_get_ex(it, "externalIds", &ext)) {
			s = dft_json_str(ext, "DOI", NULL);
			pp.doi = s != NULL ? dft_xstrdup(s) : NULL;
			s = dft_json_str(ext, "ArXiv", NULL);
			pp.arxiv = s != NULL ? dft_xstrdup(s) : NULL;
		}
		s = dft_json_str(it, "venue", NULL);
		if ((s == NULL || *s == '\0') &&
		    json_object_object_get_ex(it, "journal", &jn))
			s = dft_json_str(jn, "name", NULL);
		pp.venue = s != NULL && *s != '\0' ? dft_xstrdup(s) : NULL;
		if (json_object_object_get_ex(it, "authors", &auth) &&
		    json_object_is_type(auth, json_type_array)) {
			int na = (int)json_object_array_length(auth);

			for (int k = 0; k < na; k++) {
				const char *nm = dft_json_str(
					json_object_array_get_idx(auth,
						(size_t)k), "name", NULL);
				if (nm == NULL)
					continue;
				pp.authors = dft_xreallocarray(pp.authors,
					(size_t)pp.nauthors + 1,
					sizeof(char *));
				pp.authors[pp.nauthors++] = dft_xstrdup(nm);
			}
		}
		if (pp.title == NULL || (pp.doi == NULL && pp.arxiv == NULL)) {
			if (pp.title != NULL)
				(*dropped)++;
			paper_release(&pp);
			continue;
		}
		pp.url = pp.doi != NULL ?
			dft_xasprintf("https://doi.org/%s", pp.doi) :
			dft_xasprintf("https://arxiv.org/abs/%s", pp.arxiv);
		pp.source = dft_xstrdup("semantic_scholar");
		pp.query = dft_xstrdup(query);
		pp.retrieved = dft_xstrdup(date);
		pp.cached = cached;
		add_paper(out, nout, &pp);
		added++;
	}
	json_object_put(root);
	return added;
}

static void
fail(struct search_fail *fails, int *nfails, const char *src,
     const char *err)
{
	if (*nfails >= 4)
		return;
	snprintf(fails[*nfails].source, sizeof(fails[*nfails].source), "%s",
		 src);
	snprintf(fails[*nfails].error, sizeof(fails[*nfails].error), "%s",
		 err);
	(*nfails)++;
}

static void
resp_date(const struct dft_http_resp *r, const struct search_opts *so,
	  char *out, size_t n)
{
	char iso[32];

	if (r->from_cache) {
		dft_iso_time(r->cached_at, iso, sizeof(iso));
		snprintf(out, n, "%.10s", iso);
	} else {
		snprintf(out, n, "%s", so->now_date);
	}
}

static int
search_arxiv(struct paper **out, int *nout, const char *query,
	     struct search_opts *so, struct search_fail *fails, int *nfails)
{
	char *q = dft_url_escape(query), *url;
	struct dft_http_resp r;
	struct dft_http_opts ho = so->http;
	char date[16], err[200];
	int added = -1;

	ho.offline = so->offline;
	url = dft_xasprintf("%s?search_query=all:%s&start=0&max_results=%d"
			    "&sortBy=relevance&sortOrder=descending",
			    so->arxiv_url, q, so->max_results);
	for (int pass = 0; pass < 2; pass++) {
		if (dft_http_get(&r, url, NULL, &ho) != 0) {
			if (r.unreachable)
				so->offline = 1;
			if (!(so->offline && !r.unreachable))
				fail(fails, nfails, "arxiv", r.error);
			dft_http_resp_release(&r);
			break;
		}
		if (arxiv_error(r.body, err, sizeof(err))) {
			fail(fails, nfails, "arxiv", err);
			dft_http_cache_drop(url, &ho);
			dft_http_resp_release(&r);
			break;
		}
		resp_date(&r, so, date, sizeof(date));
		if (strstr(r.body, "<entry") == NULL && pass == 0 &&
		    !ho.offline) {
			/* suspicious empty page: ask once more */
			dft_http_cache_drop(url, &ho);
			dft_http_resp_release(&r);
			ho.refresh = 1;
			continue;
		}
		added = parse_arxiv(r.body, query, date, r.from_cache, out,
				    nout);
		dft_http_resp_release(&r);
		break;
	}
	free(url);
	free(q);
	return added;
}

static int
search_s2(struct paper **out, int *nout, const char *query,
	  struct search_opts *so, struct search_fail *fails, int *nfails,
	  int *dropped)
{
	char *q = dft_url_escape(query), *url, *hdr = NULL;
	const char *headers[2] = { NULL, NULL };
	struct dft_http_resp r;
	struct dft_http_opts ho = so->http;
	char date[16], err[256];
	int added = -1;

	ho.offline = so->offline;
	url = dft_xasprintf("%s/paper/search?query=%s&limit=%d&fields=title,"
			    "authors,year,abstract,citationCount,url,"
			    "externalIds,venue,journal,publicationDate",
			    so->s2_url, q, so->max_results);
	if (so->s2_key != NULL && *so->s2_key != '\0') {
		hdr = dft_xasprintf("x-api-key: %s", so->s2_key);
		headers[0] = hdr;
	}
	if (dft_http_get(&r, url, headers, &ho) != 0) {
		if (r.unreachable)
			so->offline = 1;
		if (!(so->offline && !r.unreachable))
			fail(fails, nfails, "semantic_scholar", r.error);
	} else {
		resp_date(&r, so, date, sizeof(date));
		added = parse_s2(r.body, query, date, r.from_cache, out, nout,
				 dropped, err, sizeof(err));
		if (added < 0) {
			fail(fails, nfails, "semantic_scholar", err);
			dft_http_cache_drop(url, &ho);
		}
	}
	dft_http_resp_release(&r);
	free(hdr);
	free(url);
	free(q);
	return added;
}

int
search_query(struct paper **out, int *nout, const char *query,
	     struct search_opts *so, struct search_fail *fails, int *nfails,
	     int *dropped)
{
	int total = 0, n;

	if (so->use_arxiv) {
		n = search_arxiv(out, nout, query, so, fails, nfails);
		if (n > 0)
			total += n;
	}
	if (so->use_s2) {
		n = search_s2(out, nout, query, so, fails, nfails, dropped);
		if (n > 0)
			total += n;
	}
	return total;
}
