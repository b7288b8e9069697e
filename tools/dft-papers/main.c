/*
 * dft-papers - cited optimization proposals for bottleneck records.
 *
 * Reads a record stream, passes every record through unchanged and in
 * order, and after each `bottleneck` record it works on (severity medium
 * or more, the first --top of them plus the forced deep-learning
 * dimensions) emits one `literature` record (how the search went), up to
 * --papers `paper` records ranked by the relevance rubric, and the
 * `proposal` records of the catalogue's L1/L2/L3 strategies for the
 * bottleneck's class, each citing the best paper and the strategy's own
 * references.  A bottleneck without any relevant paper gets no proposal:
 * its literature record says "unsupported".
 *
 * Sources: the bundled bibliography always; the arXiv export API and the
 * Semantic Scholar Graph API unless --offline (or the network is
 * unreachable, which switches to offline for the rest of the run and
 * says so); answers are cached for 24 h.
 *
 * With --plan it instead plans the next iteration of dft-pipeline's
 * optimization loop from the proposals (plan.c, require.c).
 *
 * With --learn it instead records the outcome of applied proposals
 * (proposal records with "applied":true, or listed in a verdict's
 * "applied") from dft-compare's verdicts in the learning store, which
 * later runs use to rank proposals that worked here first.
 *
 * It does not apply anything: actions are data for dft-pipeline.
 *
 * main.c holds the options, the stream and the work on one bottleneck;
 * box.c prints the proposal box, plan.c and require.c make --plan's
 * decisions, learn.c keeps the learning store and
 * writes --learn's records; catalogue.c, rank.c and search.c as named.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

#include "options.h"
#include "papers.h"

struct opts {
	int offline;
	int box;
	int learn;
	int top;
	int min_score;
	int npapers;
	int per_level;
	int max_queries;
	const char *context;
	const char *store;
	const char *bibliography;
	const char *catalogue;
	const char *cache_dir;
	int no_cache;
	struct search_opts so;
};

struct state {
	struct opts *o;
	struct catalogue cat;
	struct context ctx;
	int ctx_ready;
	int dl;			/* dlio preset seen */
	int handled;		/* metric:view pairs worked on */
	json_object *topkeys;	/* those pairs */
	int now_year;
	char now_iso[32];
	struct paper *found;	/* papers found by searches this run */
	int nfound;
	char **seen;		/* dedupe keys: doi:, arxiv:, title: */
	int nseen, capseen;
	char **searched;	/* classes already searched */
	int nsearched;
	int offline_said;
	struct learn_store learned;
	/* --learn */
	json_object *proposals;	/* id -> proposal record */
	json_object *verdicts;	/* array */
	int status;
};

static const char usage_text[] =
	"usage: dft-papers [--offline] [--format records|box] "
	"[--context TEXT] [--top N]\n"
	"                  [--min-score N] [--papers N] [--per-level N] "
	"[--max-queries N]\n"
	"                  [--max-results N] [--sources LIST] "
	"[--arxiv-url URL] [--s2-url URL]\n"
	"                  [--arxiv-interval S] [--s2-interval S] "
	"[--timeout S] [--retries N]\n"
	"                  [--max-backoff S] [--cache-dir DIR] [--no-cache] "
	"[--store FILE]\n"
	"                  [--bibliography FILE] [--catalogue FILE] "
	"[--unbuffered] [file ...]\n"
	"       dft-papers --learn [--store FILE] [--context TEXT] "
	"[file ...]\n"
	"       dft-papers --plan [--rewrites | --rollback] --run-dir DIR "
	"[--tried FILE]\n"
	"                  [--failed FILE] [--analysis FILE] [--env FILE] "
	"[--earlier FILE]\n"
	"                  [--fact NAME=VALUE] [file ...]\n"
	"       dft-papers -h | --help | -V | --version\n";

static const char help_text[] =
	"\n"
	"Reads bottleneck records (dft-analyze) and prints cited optimization\n"
	"proposals: paper and proposal records, or one box per bottleneck.\n"
	"\n"
	"      --offline             only the bibliography and the cache\n"
	"      --format records|box  NDJSON (default) or boxes for people\n"
	"      --context TEXT        the system context (default: detected)\n"
	"      --top N               at most N findings (default 5)\n"
	"      --min-score N         smallest score worked on, 0 to 5 "
	"(default 3)\n"
	"      --papers N            paper records per bottleneck (default 3)\n"
	"      --per-level N         proposals per level per bottleneck "
	"(default 3)\n"
	"      --max-queries N       queries in the ladder, 1 to 10 "
	"(default 10)\n"
	"      --max-results N       papers per source per query (default 5)\n"
	"      --sources LIST        arxiv,s2 (default both)\n"
	"      --arxiv-url URL       the arXiv query endpoint\n"
	"      --s2-url URL          the Semantic Scholar Graph API base\n"
	"      --arxiv-interval S    seconds between arXiv requests "
	"(default 3)\n"
	"      --s2-interval S       seconds between Semantic Scholar "
	"requests (default 1)\n"
	"      --timeout S           longest time for one request "
	"(default 30)\n"
	"      --retries N           extra attempts after a retryable "
	"failure (default 3)\n"
	"      --max-backoff S       longest wait between attempts "
	"(default 60)\n"
	"      --cache-dir DIR       where answers are cached\n"
	"      --no-cache            neither read nor write the cache\n"
	"      --store FILE          the learning store\n"
	"      --bibliography FILE   the bibliography (default "
	"share/dft/papers.ndjson)\n"
	"      --catalogue FILE      classes and strategies (default "
	"share/dft/proposals.ndjson)\n"
	"      --unbuffered          flush after every record\n"
	"      --learn               record verdicts in the learning store\n"
	"      --plan                plan the optimization loop's next "
	"iteration\n"
	"      --rewrites            --plan: the L1 rewrites, not the "
	"environment\n"
	"      --rollback            --plan: the rollback commands of "
	"applied actions\n"
	"      --run-dir DIR         --plan: where the plan is written\n"
	"      --tried FILE          --plan: the strategies tried so far\n"
	"      --failed FILE         --plan: actions whose commands failed\n"
	"      --analysis FILE       --plan: the accepted configuration's "
	"analysis\n"
	"      --env FILE            --plan: the exports so far\n"
	"      --earlier FILE        --plan: an earlier configuration's "
	"papers\n"
	"      --fact NAME=VALUE     --plan: a fact of this machine\n"
	"  -h, --help                show this help\n"
	"  -V, --version             show the version\n";

/* ---- dedupe ------------------------------------------------------------ */

static int
seen_has(struct state *st, const char *k)
{
	for (int i = 0; i < st->nseen; i++)
		if (strcmp(st->seen[i], k) == 0)
			return 1;
	return 0;
}

static void
seen_add(struct state *st, char *k)
{
	if (seen_has(st, k)) {
		free(k);
		return;
	}
	if (st->nseen == st->capseen) {
		st->capseen = st->capseen ? st->capseen * 2 : 64;
		st->seen = dft_xreallocarray(st->seen, (size_t)st->capseen,
					     sizeof(char *));
	}
	st->seen[st->nseen++] = k;
}

static int
paper_keys(const struct paper *p, char *keys[3])
{
	int n = 0;
	char *t;

	if (p->doi != NULL && *p->doi != '\0') {
		char *d = lower_dup(p->doi);

		keys[n++] = dft_xasprintf("doi:%s", d);
		free(d);
	}
	if (p->arxiv != NULL && *p->arxiv != '\0')
		keys[n++] = dft_xasprintf("arxiv:%s", p->arxiv);
	t = norm_title(p->title);
	if (*t != '\0')
		keys[n++] = dft_xasprintf("title:%s", t);
	free(t);
	return n;
}

/* 1 when p was not seen before (and is now remembered). */
static int
remember(struct state *st, const struct paper *p)
{
	char *keys[3];
	int n = paper_keys(p, keys), dup = 0;

	for (int i = 0; i < n; i++)
		if (seen_has(st, keys[i]))
			dup = 1;
	for (int i = 0; i < n; i++) {
		if (dup)
			free(keys[i]);
		else
			seen_add(st, keys[i]);
	}
	return !dup;
}

/* ---- context ----------------------------------------------------------- */

/* The machine's own context: file-system types and InfiniBand. */
static char *
detect_context(void)
{
	static const char *const fs[][2] = {
		{ " lustre ", "Lustre" }, { " gpfs ", "GPFS" },
		{ " beegfs ", "BeeGFS" }, { " nfs ", "NFS" },
		{ " nfs4 ", "NFS" }, { " ceph ", "Ceph" },
		{ " xfs ", "XFS" }, { " zfs ", "ZFS" },
		{ " ext4 ", "ext4" }, { " btrfs ", "btrfs" },
	};
	struct dft_buf b;
	char *mounts = dft_read_file("/proc/mounts", NULL);
	struct utsname u;

	dft_buf_init(&b);
	if (uname(&u) == 0)
		dft_buf_addf(&b, "%s", u.machine);
	for (size_t i = 0; mounts != NULL && i < sizeof(fs) / sizeof(fs[0]);
	     i++)
		if (strstr(mounts, fs[i][0]) != NULL &&
		    strstr(b.s, fs[i][1]) == NULL)
			dft_buf_addf(&b, "%s%s", b.len ? " " : "", fs[i][1]);
	free(mounts);
	if (dft_is_dir("/sys/class/infiniband"))
		dft_buf_adds(&b, " InfiniBand");
	dft_buf_adds(&b, b.len ? " HPC" : "HPC");
	return dft_buf_detach(&b);
}

static void
ensure_context(struct state *st)
{
	char *text;

	if (st->ctx_ready)
		return;
	text = st->o->context != NULL ? dft_xstrdup(st->o->context) :
	       detect_context();
	context_init(&st->ctx, text, st->dl);
	free(text);
	st->ctx_ready = 1;
}

/* ---- ranking ----------------------------------------------------------- */

static int
cand_cmp(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	return relevance_cmp(&x->r, x->p, &y->r, y->p);
}

/* 1 when a search for class cls returned p. */
static int
found_for(const struct paper *p, const char *cls)
{
	char pat[64];

	if (p->for_class == NULL)
		return 0;
	snprintf(pat, sizeof(pat), ",%s,", cls);
	return strstr(p->for_class, pat) != NULL;
}

/* A search for cls returned dup again: remember that on the kept copy. */
static void
mark_found(struct state *st, const struct paper *dup, const char *cls)
{
	char *dk[3], *fk[3];
	int nd = paper_keys(dup, dk);

	for (int i = 0; i < st->nfound; i++) {
		struct paper *f = &st->found[i];
		int nf = paper_keys(f, fk), same = 0;

		for (int a = 0; a < nd; a++)
			for (int b = 0; b < nf; b++)
				if (strcmp(dk[a], fk[b]) == 0)
					same = 1;
		for (int b = 0; b < nf; b++)
			free(fk[b]);
		if (same && !found_for(f, cls)) {
			char *n = dft_xasprintf("%s%s,", f->for_class, cls);

			free(f->for_class);
			f->for_class = n;
		}
		if (same)
			break;
	}
	for (int a = 0; a < nd; a++)
		free(dk[a]);
}

/* Scores the bibliography and every found paper; only related ones. */
static int
rank_all(struct state *st, const struct bclass *bc, struct cand **out)
{
	int n = 0;
	struct cand *c = dft_xcalloc((size_t)(st->cat.nbib + st->nfound + 1),
				     sizeof(*c));

	for (int i = 0; i < st->cat.nbib + st->nfound; i++) {
		const struct paper *p = i < st->cat.nbib ? &st->cat.bib[i] :
					&st->found[i - st->cat.nbib];
		struct relevance r = paper_relevance(p, bc, &st->cat,
						     &st->ctx, st->now_year);

		/*
		 * A bibliography entry must address the bottleneck's class
		 * or component; a paper a search returned for this class is
		 * a candidate whatever it scores (then a low best score
		 * gives the caveat).
		 */
		if (r.total == 0 || (r.bottleneck == 0 &&
		    !found_for(p, bc->name)))
			continue;
		c[n].p = p;
		c[n].r = r;
		n++;
	}
	qsort(c, (size_t)n, sizeof(*c), cand_cmp);
	*out = c;
	return n;
}

static json_object *
relevance_json(const struct relevance *r)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "score", dft_jint(r->total));
	json_object_object_add(o, "bottleneck", dft_jint(r->bottleneck));
	json_object_object_add(o, "system", dft_jint(r->system));
	json_object_object_add(o, "recency", dft_jint(r->recency));
	json_object_object_add(o, "age", r->age >= 0 ? dft_jint(r->age) :
				NULL);
	return o;
}

static json_object *
citation_json(const struct cand *c)
{
	json_object *o = paper_citation(c->p);

	json_object_object_add(o, "relevance", relevance_json(&c->r));
	return o;
}

/* ---- search ------------------------------------------------------------ */

struct lit {
	json_object *queries;	/* [{query, new}] */
	json_object *failures;
	int passes;
	int dropped;
};

static int
class_searched(struct state *st, const char *cls)
{
	for (int i = 0; i < st->nsearched; i++)
		if (strcmp(st->searched[i], cls) == 0)
			return 1;
	st->searched = dft_xreallocarray(st->searched,
					 (size_t)st->nsearched + 1,
					 sizeof(char *));
	st->searched[st->nsearched++] = dft_xstrdup(cls);
	return 0;
}

/*
 * Walks the query ladder: each rung asks every source (or the cache when
 * offline); it stops at the first rung that brings a new paper, unless
 * the best paper then still scores under 20, in which case it goes on
 * to the next rung (another pass).
 */
static void
search_class(struct state *st, const struct bclass *bc, struct lit *lit)
{
	char *ladder[MAX_QUERIES];
	int nq = ladder_build(ladder, bc, &st->ctx, st->o->max_queries);

	for (int i = 0; i < nq; i++) {
		struct paper *got = NULL;
		int ngot = 0, fresh = 0, nf = 0, best = 0;
		struct search_fail fails[4];
		json_object *q = json_object_new_object();
		struct cand *c;

		search_query(&got, &ngot, ladder[i], &st->o->so, fails, &nf,
			     &lit->dropped);
		for (int k = 0; k < ngot; k++) {
			if (remember(st, &got[k])) {
				got[k].for_class = dft_xasprintf(",%s,",
								 bc->name);
				st->found = dft_xreallocarray(st->found,
					(size_t)st->nfound + 1,
					sizeof(*st->found));
				st->found[st->nfound++] = got[k];
				fresh++;
			} else {
				mark_found(st, &got[k], bc->name);
				paper_release(&got[k]);
			}
		}
		free(got);
		for (int k = 0; k < nf; k++) {
			json_object *f = json_object_new_object();

			json_object_object_add(f, "source",
					       dft_jstr(fails[k].source));
			json_object_object_add(f, "query", dft_jstr(ladder[i]));
			json_object_object_add(f, "error",
					       dft_jstr(fails[k].error));
			json_object_array_add(lit->failures, f);
		}
		json_object_object_add(q, "query", dft_jstr(ladder[i]));
		json_object_object_add(q, "new_papers", dft_jint(fresh));
		json_object_array_add(lit->queries, q);
		lit->passes++;
		if (st->o->so.offline && !st->offline_said &&
		    !st->o->offline) {
			dft_warn("network unreachable: offline, using the "
				 "bundled bibliography and the cache");
			st->offline_said = 1;
		}
		if (fresh == 0)
			continue;
		if (rank_all(st, bc, &c) > 0)
			best = c[0].r.total;
		free(c);
		if (best >= 20)
			break;
	}
	for (int i = 0; i < nq; i++)
		free(ladder[i]);
}

/* ---- proposals --------------------------------------------------------- */

static int
strat_net(const struct state *st, const struct strategy *s,
	  const struct learn_count **lc)
{
	*lc = learn_find(&st->learned, s->cls, s->id, st->ctx.key);
	return *lc != NULL ? (*lc)->improved - (*lc)->regressed : 0;
}

static json_object *
learned_json(const struct learn_count *lc, const char *ctxkey)
{
	json_object *o;
	int total;

	if (lc == NULL)
		return NULL;
	total = lc->improved + lc->regressed + lc->unchanged;
	o = json_object_new_object();
	json_object_object_add(o, "improved", dft_jint(lc->improved));
	json_object_object_add(o, "regressed", dft_jint(lc->regressed));
	json_object_object_add(o, "unchanged", dft_jint(lc->unchanged));
	json_object_object_add(o, "context", dft_jstr(ctxkey));
	json_object_object_add(o, "note", json_object_new_string(
		lc->improved > lc->regressed ?
		"ranked first: it improved this metric here before" :
		lc->regressed > lc->improved ?
		"ranked last: it regressed this metric here before" :
		"tried here before without a clear result"));
	json_object_object_add(o, "summary", dft_jstr(NULL));
	{
		char buf[96];

		snprintf(buf, sizeof(buf), "improved %d, regressed %d, "
			 "unchanged %d of %d run%s", lc->improved,
			 lc->regressed, lc->unchanged, total,
			 total == 1 ? "" : "s");
		json_object_object_add(o, "summary",
				       json_object_new_string(buf));
	}
	return o;
}

struct ranked {
	const struct strategy *s;
	int net, order;
	int fit;	/* 2 saves a part of this finding, 1 unknown, 0 none */
	double fit_saving_s;
	const struct learn_count *lc;
};

/*
 * How well a strategy fits the finding: a strategy that names the part of
 * the time it saves ("addresses", a key of dft-analyze's evidence.parts)
 * fits when that part saves something in this finding and does not when it
 * saves nothing; without either side's word it is unknown.  The demo's
 * 256 tiny files are 94 % of their metadata time and the repeated stats 0.1
 * %: "cache stat and existence checks" first would point the user at the
 * wrong code.
 */
static int
strategy_fit(const struct strategy *s, json_object *b, double *saving_s)
{
	const char *part = dft_json_str(s->rec, "addresses", NULL);
	json_object *parts = dft_json_path(b, "evidence.parts"), *p;

	*saving_s = 0;
	if (part == NULL || parts == NULL ||
	    !json_object_is_type(parts, json_type_object))
		return 1;
	if (!json_object_object_get_ex(parts, part, &p))
		return 0;
	*saving_s = dft_json_double(p, "saving_s", 0);
	return *saving_s > 0 ? 2 : 0;
}

static int
ranked_cmp(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;
	int gx = x->net > 0 ? 0 : x->net == 0 ? 1 : 2;
	int gy = y->net > 0 ? 0 : y->net == 0 ? 1 : 2;

	/* what this finding's own time says first, then what was learned */
	if (x->fit != y->fit)
		return y->fit - x->fit;
	if (x->fit_saving_s != y->fit_saving_s)
		return x->fit_saving_s < y->fit_saving_s ? 1 : -1;
	if (gx != gy)
		return gx - gy;
	if (x->net != y->net)
		return y->net - x->net;
	return x->order - y->order;
}

/* Whether a strategy's action requires MPI-IO (an "mpi-io ..." entry). */
static int
needs_mpiio(const struct strategy *s)
{
	json_object *a, *req;

	if (!json_object_object_get_ex(s->rec, "action", &a) ||
	    !json_object_object_get_ex(a, "requires", &req) ||
	    !json_object_is_type(req, json_type_array))
		return 0;
	for (size_t i = 0; i < json_object_array_length(req); i++) {
		const char *r = json_object_get_string(
			json_object_array_get_idx(req, i));

		if (r != NULL && (strncmp(r, "mpi-io", 6) == 0 ||
				  strncmp(r, "MPI-IO", 6) == 0))
			return 1;
	}
	return 0;
}

static int
mpiio_metric(const char *m)
{
	return strncmp(m, "mpiio_", 6) == 0;
}

static int
mpiio_insight(const char *c)
{
	return c[0] == 'M' && strcmp(c, "M01") != 0;
}

/* Whether a string of the array b[key] satisfies pred. */
static int
any_of(json_object *b, const char *key, int (*pred)(const char *))
{
	json_object *a;

	if (!json_object_object_get_ex(b, key, &a) ||
	    !json_object_is_type(a, json_type_array))
		return 0;
	for (size_t i = 0; i < json_object_array_length(a); i++) {
		const char *v = json_object_get_string(
			json_object_array_get_idx(a, i));

		if (v != NULL && pred(v))
			return 1;
	}
	return 0;
}

/* Whether a bottleneck shows MPI-IO: its layer, a facet of the MPI-IO
 * layer (dft-analyze's mpiio_* metrics) or an MPI-IO insight M02-M10
 * (M01 says there is none). */
static int
shows_mpiio(json_object *b)
{
	return strcmp(dft_json_str(b, "layer", ""), "mpiio") == 0 ||
	       mpiio_metric(dft_json_str(b, "metric", "")) ||
	       any_of(b, "facets", mpiio_metric) ||
	       any_of(b, "insights", mpiio_insight);
}

/*
 * The first max of the n ranked strategies of one level, in their order;
 * when there are more and the bottleneck shows no MPI-IO, the strategies
 * that need MPI-IO give way first (the ROMIO and ompio families are
 * alternatives: on a run without MPI-IO neither applies).  Returns how
 * many are kept, moved to the front of rk.
 */
static int
keep_per_level(struct ranked *rk, int n, int max, json_object *b)
{
	int other = 0, mpi_room, k = 0;

	if (n <= max)
		return n;
	if (shows_mpiio(b))
		return max;
	for (int i = 0; i < n; i++)
		other += !needs_mpiio(rk[i].s);
	mpi_room = max - (other < max ? other : max);
	for (int i = 0, kept_other = 0; i < n && k < max; i++) {
		int mpi = needs_mpiio(rk[i].s);

		if (mpi ? mpi_room-- > 0 : kept_other++ < max)
			rk[k++] = rk[i];
	}
	return k;
}

static void
emit_proposals(struct state *st, json_object *b, const struct bclass *bc,
	       const struct cand *best, const char *caveat,
	       json_object *box_lines[3])
{
	static const char *const levels[3] = { "L1", "L2", "L3" };
	const char *bid = dft_json_str(b, "id", "");

	for (int l = 0; l < 3; l++) {
		struct ranked *rk = dft_xcalloc((size_t)st->cat.nstrats + 1,
						sizeof(*rk));
		int n = 0;

		for (int i = 0; i < st->cat.nstrats; i++) {
			const struct strategy *s = &st->cat.strats[i];

			if (strcmp(s->cls, bc->name) != 0 ||
			    strcmp(s->level, levels[l]) != 0)
				continue;
			rk[n].s = s;
			rk[n].order = i;
			rk[n].net = strat_net(st, s, &rk[n].lc);
			rk[n].fit = strategy_fit(s, b, &rk[n].fit_saving_s);
			n++;
		}
		qsort(rk, (size_t)n, sizeof(*rk), ranked_cmp);
		n = keep_per_level(rk, n, st->o->per_level, b);
		for (int i = 0; i < n; i++) {
			const struct strategy *s = rk[i].s;
			json_object *p = json_object_new_object();
			json_object *cites = json_object_new_array();
			json_object *sc, *act;
			char *id = dft_xasprintf("%s.%s", bid, s->id);

			json_object_array_add(cites, citation_json(best));
			if (json_object_object_get_ex(s->rec, "cite", &sc))
				for (size_t k = 0;
				     k < json_object_array_length(sc); k++) {
					const char *key = json_object_get_string(
						json_object_array_get_idx(sc, k));
					const struct paper *bp =
						catalogue_bib(&st->cat, key);
					struct cand c;

					if (bp == NULL || bp == best->p)
						continue;
					c.p = bp;
					c.r = paper_relevance(bp, bc, &st->cat,
							      &st->ctx,
							      st->now_year);
					json_object_array_add(cites,
							      citation_json(&c));
				}
			json_object_object_add(p, "type", dft_jstr("proposal"));
			json_object_object_add(p, "v", dft_jint(1));
			json_object_object_add(p, "id", dft_jstr(id));
			json_object_object_add(p, "bottleneck", dft_jstr(bid));
			json_object_object_add(p, "metric", dft_jstr(
				dft_json_str(b, "metric", NULL)));
			json_object_object_add(p, "view", dft_jstr(
				dft_json_str(b, "view", NULL)));
			json_object_object_add(p, "scope", dft_jstr(
				dft_json_str(b, "scope", NULL)));
			json_object_object_add(p, "class", dft_jstr(bc->name));
			json_object_object_add(p, "component",
					       dft_jstr(bc->component));
			json_object_object_add(p, "severity", dft_jstr(
				dft_json_str(b, "label", NULL)));
			json_object_object_add(p, "level", dft_jstr(s->level));
			json_object_object_add(p, "rank", dft_jint(i + 1));
			json_object_object_add(p, "strategy", dft_jstr(s->id));
			json_object_object_add(p, "title", dft_jstr(
				dft_json_str(s->rec, "title", NULL)));
			json_object_object_add(p, "change", dft_jstr(
				dft_json_str(s->rec, "change", NULL)));
			json_object_object_add(p, "expected_gain", dft_jstr(
				dft_json_str(s->rec, "expected_gain", NULL)));
			json_object_object_add(p, "risk", dft_jstr(
				dft_json_str(s->rec, "risk", NULL)));
			json_object_object_add(p, "citations", cites);
			json_object_object_add(p, "evidence",
					       citation_json(best));
			if (json_object_object_get_ex(s->rec, "action", &act))
				json_object_object_add(p, "action",
					json_object_get(act));
			else
				json_object_object_add(p, "action", NULL);
			json_object_object_add(p, "caveat", dft_jstr(caveat));
			json_object_object_add(p, "context",
					       dft_jstr(st->ctx.key));
			json_object_object_add(p, "learned",
				learned_json(rk[i].lc, st->ctx.key));
			if (box_lines != NULL) {
				if (box_lines[l] == NULL)
					box_lines[l] = json_object_new_array();
				json_object_array_add(box_lines[l], dft_jstr(
					dft_json_str(s->rec, "change", "")));
				json_object_put(p);
			} else {
				dft_emit_put(stdout, p);
			}
			free(id);
		}
		free(rk);
	}
}

/* ---- one bottleneck ---------------------------------------------------- */

/*
 * A later finding of a metric:view pair already answered: one literature
 * record pointing at the first, no papers or proposals of its own.
 */
static void
emit_same_as(json_object *b, json_object *first)
{
	json_object *l = json_object_new_object();

	json_object_object_add(l, "type", dft_jstr("literature"));
	json_object_object_add(l, "v", dft_jint(1));
	json_object_object_add(l, "bottleneck",
			       dft_jstr(dft_json_str(b, "id", NULL)));
	json_object_object_add(l, "metric",
			       dft_jstr(dft_json_str(b, "metric", NULL)));
	json_object_object_add(l, "class",
			       dft_jstr(dft_json_str(first, "class", NULL)));
	json_object_object_add(l, "severity",
			       dft_jstr(dft_json_str(b, "label", NULL)));
	json_object_object_add(l, "status",
			       dft_jstr(dft_json_str(first, "status", NULL)));
	json_object_object_add(l, "same_as",
			       dft_jstr(dft_json_str(first, "id", NULL)));
	json_object_object_add(l, "note", json_object_new_string(
		"same metric and view as an earlier finding: see its papers "
		"and proposals"));
	dft_emit_put(stdout, l);
}

static void
handle_bottleneck(struct state *st, json_object *b)
{
	const char *metric = dft_json_str(b, "metric", NULL);
	const char *insight = dft_json_str(b, "insight", NULL);
	int score = (int)dft_json_int(b, "score", 0);
	int forced = dft_json_bool(b, "forced", 0);
	const struct bclass *bc;
	struct lit lit = { 0 };
	struct cand *c = NULL;
	int nc = 0;
	json_object *lrec;
	char *caveat = NULL, *unsupported = NULL, *topkey = NULL;
	const char *status;

	/*
	 * The top set counts distinct metric:view pairs: the same finding
	 * on several files or processes shares one slot (and one search).
	 */
	{
		char *key = dft_xasprintf("%s:%s", metric != NULL ? metric : "",
					  dft_json_str(b, "view", ""));
		json_object *first = NULL;

		json_object_object_get_ex(st->topkeys, key, &first);
		if (score < st->o->min_score && !forced) {
			free(key);
			return;
		}
		if (first != NULL) {
			/* answered with the first finding of this pair */
			if (!st->o->box)
				emit_same_as(b, first);
			free(key);
			return;
		}
		if (!forced && st->handled >= st->o->top) {
			free(key);
			return;
		}
		if (!forced)
			st->handled++;
		topkey = key;
	}
	ensure_context(st);
	/* the finding's own class (dft-analyze v2) when the catalogue has
	 * it, else the class its insight code or metric name points to */
	bc = dft_json_str(b, "class", NULL) != NULL ?
	     catalogue_class(&st->cat, dft_json_str(b, "class", NULL)) : NULL;
	if (bc == NULL)
		bc = catalogue_class_for(&st->cat, metric, insight);
	lit.queries = json_object_new_array();
	lit.failures = json_object_new_array();
	if (bc != NULL) {
		if (!class_searched(st, bc->name))
			search_class(st, bc, &lit);
		nc = rank_all(st, bc, &c);
	}
	if (bc == NULL) {
		unsupported = dft_xasprintf("No proposal: metric '%s' is not a "
			"bottleneck class the catalogue knows (unsupported).",
			metric != NULL ? metric : "?");
		status = "unsupported";
	} else if (nc == 0) {
		unsupported = dft_xasprintf("No proposal: no paper addresses "
			"%s (unsupported). Manual expert guidance recommended.",
			bc->name);
		status = "unsupported";
	} else if (c[0].r.total < 20) {
		caveat = dft_xasprintf("Best available citation scores %d/100 "
			"for this bottleneck (title: %s, year: %d). Proceeding "
			"with caveat.", c[0].r.total, c[0].p->title,
			c[0].p->year);
		status = "caveat";
	} else {
		status = "cited";
	}
	if (unsupported != NULL)
		dft_warn("%s %s: %s", dft_json_str(b, "id", "?"),
			 metric != NULL ? metric : "?", unsupported);
	{
		json_object *f = json_object_new_object();

		json_object_object_add(f, "id", dft_jstr(dft_json_str(b, "id",
								      NULL)));
		json_object_object_add(f, "status", dft_jstr(status));
		json_object_object_add(f, "class", dft_jstr(bc ? bc->name :
							    NULL));
		json_object_object_add(st->topkeys, topkey, f);
		free(topkey);
	}

	lrec = json_object_new_object();
	json_object_object_add(lrec, "type", dft_jstr("literature"));
	json_object_object_add(lrec, "v", dft_jint(1));
	json_object_object_add(lrec, "bottleneck",
			       dft_jstr(dft_json_str(b, "id", NULL)));
	json_object_object_add(lrec, "metric", dft_jstr(metric));
	json_object_object_add(lrec, "class", dft_jstr(bc ? bc->name : NULL));
	json_object_object_add(lrec, "component",
			       dft_jstr(bc ? bc->component : NULL));
	json_object_object_add(lrec, "severity",
			       dft_jstr(dft_json_str(b, "label", NULL)));
	json_object_object_add(lrec, "forced", json_object_new_boolean(forced));
	json_object_object_add(lrec, "mode", dft_jstr(st->o->so.offline ?
						      "offline" : "online"));
	json_object_object_add(lrec, "offline_reason", dft_jstr(
		st->o->offline ? "--offline" : st->o->so.offline ?
		"network unreachable" : NULL));
	json_object_object_add(lrec, "context", dft_jstr(st->ctx.text));
	json_object_object_add(lrec, "context_key", dft_jstr(st->ctx.key));
	json_object_object_add(lrec, "queries", lit.queries);
	json_object_object_add(lrec, "passes", dft_jint(lit.passes));
	json_object_object_add(lrec, "failures", lit.failures);
	json_object_object_add(lrec, "dropped_without_id",
			       dft_jint(lit.dropped));
	json_object_object_add(lrec, "candidates", dft_jint(nc));
	json_object_object_add(lrec, "best", nc > 0 ? citation_json(&c[0]) :
			       NULL);
	json_object_object_add(lrec, "status", dft_jstr(status));
	json_object_object_add(lrec, "note", dft_jstr(unsupported != NULL ?
		unsupported : caveat));

	if (st->o->box) {
		json_object *lines[3] = { NULL, NULL, NULL };

		json_object_put(lrec);
		if (unsupported == NULL)
			emit_proposals(st, b, bc, &c[0], caveat, lines);
		print_box(b, nc > 0 ? &c[0] : NULL, caveat, unsupported,
			  lines);
		for (int l = 0; l < 3; l++)
			json_object_put(lines[l]);
		goto out;
	}
	dft_emit_put(stdout, lrec);
	for (int i = 0; i < nc && i < st->o->npapers; i++) {
		const struct paper *p = c[i].p;
		json_object *o = json_object_new_object();
		json_object *a = json_object_new_array();

		for (int k = 0; k < p->nauthors; k++)
			json_object_array_add(a, dft_jstr(p->authors[k]));
		json_object_object_add(o, "type", dft_jstr("paper"));
		json_object_object_add(o, "v", dft_jint(1));
		json_object_object_add(o, "bottleneck",
				       dft_jstr(dft_json_str(b, "id", NULL)));
		json_object_object_add(o, "metric", dft_jstr(metric));
		json_object_object_add(o, "class", dft_jstr(bc->name));
		json_object_object_add(o, "rank", dft_jint(i + 1));
		json_object_object_add(o, "key", dft_jstr(p->key));
		json_object_object_add(o, "title", dft_jstr(p->title));
		json_object_object_add(o, "authors", a);
		json_object_object_add(o, "year", p->year ? dft_jint(p->year) :
				       NULL);
		json_object_object_add(o, "venue", dft_jstr(p->venue));
		json_object_object_add(o, "doi", dft_jstr(p->doi));
		json_object_object_add(o, "arxiv", dft_jstr(p->arxiv));
		json_object_object_add(o, "url", dft_jstr(p->url));
		json_object_object_add(o, "source", dft_jstr(p->source));
		json_object_object_add(o, "query", dft_jstr(p->query));
		json_object_object_add(o, "retrieved", dft_jstr(p->retrieved));
		json_object_object_add(o, "cached",
				       json_object_new_boolean(p->cached));
		json_object_object_add(o, "citation_count", p->citations >= 0 ?
				       dft_jint(p->citations) : NULL);
		json_object_object_add(o, "finding", dft_jstr(p->finding));
		json_object_object_add(o, "relevance", relevance_json(&c[i].r));
		dft_emit_put(stdout, o);
	}
	if (unsupported == NULL)
		emit_proposals(st, b, bc, &c[0], caveat, NULL);
out:
	free(c);
	free(caveat);
	free(unsupported);
}

/* ---- the stream --------------------------------------------------------- */

static int
process_stream(struct dft_reader *r, void *ctx)
{
	struct state *st = ctx;
	json_object *rec;
	int rc;

	while ((rc = dft_reader_next(r, &rec)) == 1) {
		const char *t = dft_record_type(rec);

		if (!st->o->box)
			dft_pass(stdout, r);
		if (strcmp(t, "summary") == 0 || strcmp(t, "session") == 0) {
			if (strcmp(dft_json_str(rec, "preset", ""), "dlio") == 0)
				st->dl = 1;
		} else if (st->o->learn && strcmp(t, "proposal") == 0) {
			const char *id = dft_json_str(rec, "id", NULL);

			if (id != NULL) {
				json_object_object_add(st->proposals, id, rec);
				continue;
			}
		} else if (st->o->learn && strcmp(t, "verdict") == 0) {
			json_object_array_add(st->verdicts, rec);
			continue;
		} else if (!st->o->learn && strcmp(t, "bottleneck") == 0) {
			handle_bottleneck(st, rec);
		}
		json_object_put(rec);
	}
	return rc < 0 ? DFT_EXIT_FATAL : DFT_EXIT_OK;
}

/* up to 1e7 s (115 days): converted to int64 ms further on */
static double
opt_seconds(const char *arg, const char *name)
{
	return dft_opt_double(usage_text, name, arg, 0, 1e7);
}

static int
opt_int(const char *arg, const char *name, long min, long max)
{
	return (int)dft_opt_long(usage_text, name, arg, min, max);
}

static char *
host_of(const char *url)
{
	const char *p = strstr(url, "://");
	size_t n;

	p = p != NULL ? p + 3 : url;
	n = strcspn(p, "/?#");
	return dft_xstrndup(p, n);
}

static char *
default_cache_dir(void)
{
	const char *x = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");

	if (x != NULL && *x == '/')
		return dft_path_join(x, "dft/papers");
	if (home == NULL || *home == '\0')
		return NULL;
	return dft_xasprintf("%s/.cache/dft/papers", home);
}

enum {
	O_OFFLINE = 256, O_FORMAT, O_CONTEXT, O_TOP, O_MIN_SCORE, O_PAPERS,
	O_PER_LEVEL, O_MAX_QUERIES, O_MAX_RESULTS, O_SOURCES, O_ARXIV_URL,
	O_S2_URL, O_ARXIV_INT, O_S2_INT, O_TIMEOUT, O_RETRIES, O_BACKOFF,
	O_CACHE_DIR, O_NO_CACHE, O_STORE, O_BIB, O_CAT, O_UNBUF, O_LEARN,
	O_PLAN, O_REWRITES, O_RUN_DIR, O_TRIED, O_FAILED, O_ANALYSIS, O_ENV,
	O_EARLIER, O_FACT, O_ROLLBACK,
};

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "offline", no_argument, NULL, O_OFFLINE },
		{ "format", required_argument, NULL, O_FORMAT },
		{ "context", required_argument, NULL, O_CONTEXT },
		{ "top", required_argument, NULL, O_TOP },
		{ "min-score", required_argument, NULL, O_MIN_SCORE },
		{ "papers", required_argument, NULL, O_PAPERS },
		{ "per-level", required_argument, NULL, O_PER_LEVEL },
		{ "max-queries", required_argument, NULL, O_MAX_QUERIES },
		{ "max-results", required_argument, NULL, O_MAX_RESULTS },
		{ "sources", required_argument, NULL, O_SOURCES },
		{ "arxiv-url", required_argument, NULL, O_ARXIV_URL },
		{ "s2-url", required_argument, NULL, O_S2_URL },
		{ "arxiv-interval", required_argument, NULL, O_ARXIV_INT },
		{ "s2-interval", required_argument, NULL, O_S2_INT },
		{ "timeout", required_argument, NULL, O_TIMEOUT },
		{ "retries", required_argument, NULL, O_RETRIES },
		{ "max-backoff", required_argument, NULL, O_BACKOFF },
		{ "cache-dir", required_argument, NULL, O_CACHE_DIR },
		{ "no-cache", no_argument, NULL, O_NO_CACHE },
		{ "store", required_argument, NULL, O_STORE },
		{ "bibliography", required_argument, NULL, O_BIB },
		{ "catalogue", required_argument, NULL, O_CAT },
		{ "unbuffered", no_argument, NULL, O_UNBUF },
		{ "learn", no_argument, NULL, O_LEARN },
		{ "plan", no_argument, NULL, O_PLAN },
		{ "rewrites", no_argument, NULL, O_REWRITES },
		{ "rollback", no_argument, NULL, O_ROLLBACK },
		{ "run-dir", required_argument, NULL, O_RUN_DIR },
		{ "tried", required_argument, NULL, O_TRIED },
		{ "failed", required_argument, NULL, O_FAILED },
		{ "analysis", required_argument, NULL, O_ANALYSIS },
		{ "env", required_argument, NULL, O_ENV },
		{ "earlier", required_argument, NULL, O_EARLIER },
		{ "fact", required_argument, NULL, O_FACT },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct opts o;
	struct plan_opts po;
	int plan = 0, plan_only = 0;
	struct state st;
	struct dft_step step;
	double arxiv_int = 3, s2_int = 1;
	char *bib = NULL, *cat = NULL, *cache = NULL, *store = NULL, *ua;
	const char *sde;
	time_t now;
	struct tm tm;
	int c, status;

	dft_init("dft-papers");
	memset(&o, 0, sizeof(o));
	memset(&po, 0, sizeof(po));
	o.top = 5;
	o.min_score = 3;
	o.npapers = 3;
	o.per_level = 3;
	o.max_queries = 10;
	o.so.arxiv_url = "https://export.arxiv.org/api/query";
	o.so.s2_url = "https://api.semanticscholar.org/graph/v1";
	o.so.use_arxiv = o.so.use_s2 = 1;
	o.so.max_results = 5;
	dft_http_opts_init(&o.so.http);
	while ((c = dft_getopt(argc, argv, "hV", longopts)) != -1) {
		switch (c) {
		case O_OFFLINE: o.offline = 1; break;
		case O_FORMAT:
			if (strcmp(optarg, "box") == 0)
				o.box = 1;
			else if (strcmp(optarg, "records") != 0)
				dft_bad_value(usage_text, "--format", optarg,
					      "records or box");
			break;
		case O_CONTEXT: o.context = optarg; break;
		case O_TOP: o.top = opt_int(optarg, "--top", 0, 1000); break;
		case O_MIN_SCORE:
			o.min_score = opt_int(optarg, "--min-score", 0, 5);
			break;
		case O_PAPERS:
			o.npapers = opt_int(optarg, "--papers", 0, 100);
			break;
		case O_PER_LEVEL:
			o.per_level = opt_int(optarg, "--per-level", 0, 100);
			break;
		case O_MAX_QUERIES:
			o.max_queries = opt_int(optarg, "--max-queries", 1,
						MAX_QUERIES);
			break;
		case O_MAX_RESULTS:
			o.so.max_results = opt_int(optarg, "--max-results", 1,
						   100);
			break;
		case O_SOURCES:
			o.so.use_arxiv = o.so.use_s2 = 0;
			for (const char *p = optarg; *p != '\0';) {
				size_t n = strcspn(p, ",");

				if (n == 5 && !strncmp(p, "arxiv", n))
					o.so.use_arxiv = 1;
				else if ((n == 2 && !strncmp(p, "s2", n)) ||
					 (n == 16 &&
					  !strncmp(p, "semantic_scholar", n)))
					o.so.use_s2 = 1;
				else if (n > 0)
					dft_bad_value(usage_text, "--sources",
						      optarg, "arxiv,s2");
				p += n + (p[n] == ',');
			}
			break;
		case O_ARXIV_URL: o.so.arxiv_url = optarg; break;
		case O_S2_URL: o.so.s2_url = optarg; break;
		case O_ARXIV_INT:
			arxiv_int = opt_seconds(optarg, "--arxiv-interval");
			break;
		case O_S2_INT:
			s2_int = opt_seconds(optarg, "--s2-interval");
			break;
		case O_TIMEOUT:
			o.so.http.timeout_s = opt_seconds(optarg, "--timeout");
			if (o.so.http.timeout_s <= 0)
				dft_bad_value(usage_text, "--timeout", optarg,
					      "a number above 0, up to 1e+07");
			if (o.so.http.connect_timeout_s > o.so.http.timeout_s)
				o.so.http.connect_timeout_s =
					o.so.http.timeout_s;
			break;
		case O_RETRIES:
			o.so.http.retries = opt_int(optarg, "--retries", 0, 20);
			break;
		case O_BACKOFF:
			o.so.http.max_backoff_s = opt_seconds(optarg,
							      "--max-backoff");
			break;
		case O_CACHE_DIR: o.cache_dir = optarg; break;
		case O_NO_CACHE: o.no_cache = 1; break;
		case O_STORE: o.store = optarg; break;
		case O_BIB: o.bibliography = optarg; break;
		case O_CAT: o.catalogue = optarg; break;
		case O_UNBUF: dft_unbuffered = 1; break;
		case O_LEARN: o.learn = 1; break;
		case O_PLAN: plan = 1; break;
		case O_REWRITES: po.rewrites = 1; plan_only = 1; break;
		case O_ROLLBACK: po.rollback = 1; plan_only = 1; break;
		case O_RUN_DIR: po.run_dir = optarg; plan_only = 1; break;
		case O_TRIED: po.tried = optarg; plan_only = 1; break;
		case O_FAILED: po.failed = optarg; plan_only = 1; break;
		case O_ANALYSIS: po.analysis = optarg; plan_only = 1; break;
		case O_ENV: po.env = optarg; plan_only = 1; break;
		case O_EARLIER:
			po.earlier = dft_xreallocarray(po.earlier,
						       po.nearlier + 1,
						       sizeof(char *));
			po.earlier[po.nearlier++] = optarg;
			plan_only = 1;
			break;
		case O_FACT:
			if (facts_set(&po.facts, optarg) != 0)
				dft_bad_value(usage_text, "--fact", optarg,
					      "NAME=VALUE, NAME one of "
					      "data_dir, local_dir, "
					      "physical_cores, tune_lib, "
					      "work_dir, env_script, os, fs, "
					      "fs_type, numactl, numa_nodes, "
					      "mpi, openmp, mpi_io");
			plan_only = 1;
			break;
		case 'h': return dft_help(usage_text, help_text);
		case 'V': return dft_version();
		default: dft_option_error(usage_text, c, argv, longopts);
		}
	}
	if (plan_only && !plan)
		dft_usage_error(usage_text, "--rewrites, --rollback, --run-dir, "
				"--tried, --failed, --analysis, --env, --earlier "
				"and --fact go with --plan");
	if (plan && (o.learn || o.box))
		dft_usage_error(usage_text, "--plan and %s exclude each other",
				o.learn ? "--learn" : "--format box");
	if (plan && po.run_dir == NULL)
		dft_usage_error(usage_text, "--plan needs --run-dir");
	if ((po.rewrites || po.rollback) && (po.env != NULL ||
					     po.nearlier > 0))
		dft_usage_error(usage_text, "--env and --earlier do not go "
				"with --rewrites or --rollback");
	if (po.rewrites && po.rollback)
		dft_usage_error(usage_text, "--rewrites and --rollback exclude "
				"each other");
	if (plan) {
		status = plan_run(&po, argc - optind, argv + optind);
		free(po.earlier);
		return dft_worst(status, dft_close_stdout());
	}
	if (o.learn && o.box)
		dft_usage_error(usage_text, "--learn and --format box exclude "
				"each other");
	if (o.no_cache && o.cache_dir != NULL)
		dft_usage_error(usage_text, "--no-cache and --cache-dir exclude "
				"each other");
	if (!o.so.use_arxiv && !o.so.use_s2 && !o.offline)
		dft_usage_error(usage_text, "--sources: no source selected");

	memset(&st, 0, sizeof(st));
	st.o = &o;
	st.topkeys = json_object_new_object();
	now = time(NULL);
	sde = getenv("SOURCE_DATE_EPOCH");
	if (sde != NULL && *sde != '\0') {
		long v;

		if (dft_parse_long(sde, 0, 4102444800L, &v) == 0)
			now = (time_t)v;
	}
	gmtime_r(&now, &tm);
	st.now_year = tm.tm_year + 1900;
	dft_iso_time((double)now, st.now_iso, sizeof(st.now_iso));
	snprintf(o.so.now_date, sizeof(o.so.now_date), "%.10s", st.now_iso);
	o.so.offline = o.offline;
	o.so.s2_key = getenv("S2_API_KEY");
	{
		/* a descriptive User-Agent with a contact (arXiv, Crossref) */
		const char *who = getenv("DFT_CONTACT");

		ua = dft_xasprintf("dft-papers/%s (dft I/O diagnosis suite; "
				   "mailto:%s)", DFT_VERSION,
				   who != NULL && *who != '\0' ? who :
				   "unknown");
		o.so.http.user_agent = ua;
	}
	if (!o.no_cache) {
		cache = o.cache_dir != NULL ? dft_xstrdup(o.cache_dir) :
			default_cache_dir();
		o.so.http.cache_dir = cache;
	}
	{
		char *h = host_of(o.so.arxiv_url);

		dft_http_set_interval(h, arxiv_int);
		free(h);
		h = host_of(o.so.s2_url);
		dft_http_set_interval(h, s2_int);
		free(h);
	}

	dft_step_begin(&step, "papers");
	if (o.learn) {
		st.proposals = json_object_new_object();
		st.verdicts = json_object_new_array();
	} else {
		bib = o.bibliography != NULL ? dft_xstrdup(o.bibliography) :
		      dft_share_path("papers.ndjson");
		cat = o.catalogue != NULL ? dft_xstrdup(o.catalogue) :
		      dft_share_path("proposals.ndjson");
		if (bib == NULL || cat == NULL)
			dft_die("cannot find share/dft/%s (set DFT_SHARE_DIR)",
				bib == NULL ? "papers.ndjson" :
				"proposals.ndjson");
		if (catalogue_load(&st.cat, bib, cat) != 0)
			dft_die("cannot read '%s' or '%s':", bib, cat);
		store = o.store != NULL ? dft_xstrdup(o.store) :
			learn_default_path();
		if (learn_load(&st.learned, store) != 0)
			dft_warn("cannot read the learning store '%s':", store);
		for (int i = 0; i < st.cat.nbib; i++)
			(void)remember(&st, &st.cat.bib[i]);
	}
	status = dft_each_input(argc - optind, argv + optind, process_stream,
				&st);
	if (o.learn) {
		ensure_context(&st);
		status = dft_worst(status, learn_append(o.store, st.ctx.key, st.now_iso,
						    st.proposals, st.verdicts));
	}
	if (!o.box)
		dft_emit_put(stdout, dft_step_end(&step, status == 0 ? "ok" :
						  "partial"));
	status = dft_worst(status, dft_close_stdout());

	if (st.ctx_ready)
		context_release(&st.ctx);
	for (int i = 0; i < st.nfound; i++)
		paper_release(&st.found[i]);
	free(st.found);
	for (int i = 0; i < st.nseen; i++)
		free(st.seen[i]);
	free(st.seen);
	for (int i = 0; i < st.nsearched; i++)
		free(st.searched[i]);
	free(st.searched);
	json_object_put(st.proposals);
	json_object_put(st.verdicts);
	json_object_put(st.topkeys);
	learn_release(&st.learned);
	catalogue_release(&st.cat);
	free(bib);
	free(cat);
	free(cache);
	free(store);
	free(ua);
	return status;
}
