/*
 * rank.c - the relevance rubric of diagnosis-rules.md section 6
 * (bottleneck 50/35/20/0 + system 30/20/10/0 + recency 20/15/10/5/0) and
 * the query ladder of pipeline-behaviour.md section 9.3.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "papers.h"

/* System words that name a specific context (the 30-point tier). */
static const char *const specific_terms[] = {
	"lustre", "gpfs", "spectrum scale", "beegfs", "daos", "orangefs",
	"pvfs", "panfs", "nfs", "glusterfs", "ceph", "xfs", "zfs", "ext4",
	"btrfs", "infiniband", "slingshot", "omni-path", "nvme", "ssd",
	"gpu", "tmpfs", "burst buffer", "hdfs", "blue gene", NULL
};
static const char *const pfs_terms[] = {
	"lustre", "gpfs", "spectrum scale", "beegfs", "daos", "orangefs",
	"pvfs", "panfs", NULL
};

/* Words that place a found paper in a component (the 20-point tier). */
static const char *const component_terms[][8] = {
	{ "io", "i/o", "storage", "file system", "filesystem", "disk",
	  "checkpoint", NULL },
	{ "comm", "mpi", "communication", "collective", "interconnect",
	  "allreduce", "network", NULL },
	{ "mem", "memory", "cache", "numa", "dram", NULL },
	{ "cpu", "compute", "flops", "vectoriz", "simd", "roofline",
	  "processor", NULL },
};

char *
lower_dup(const char *s)
{
	char *d = dft_xstrdup(s != NULL ? s : "");

	for (char *p = d; *p != '\0'; p++)
		*p = (char)tolower((unsigned char)*p);
	return d;
}

char *
norm_title(const char *t)
{
	struct dft_buf b;

	dft_buf_init(&b);
	for (; t != NULL && *t != '\0'; t++)
		if (isalnum((unsigned char)*t))
			dft_buf_addc(&b, (char)tolower((unsigned char)*t));
	return dft_buf_detach(&b);
}

/* needle found in hay starting at a word boundary. */
int
text_has(const char *hay, const char *needle)
{
	size_t n = strlen(needle);

	if (n == 0)
		return 0;
	for (const char *p = hay; (p = strstr(p, needle)) != NULL; p++)
		if (p == hay || !isalnum((unsigned char)p[-1]))
			return 1;
	return 0;
}

static int
in_list(const char *const *list, const char *s)
{
	for (; *list != NULL; list++)
		if (strcmp(*list, s) == 0)
			return 1;
	return 0;
}

static int
strcmp_p(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void
context_init(struct context *ctx, const char *text, int dl)
{
	char *low;
	struct dft_buf key;

	memset(ctx, 0, sizeof(*ctx));
	ctx->text = dft_xstrdup(text != NULL && *text != '\0' ? text : "HPC");
	low = lower_dup(ctx->text);
	ctx->terms = dft_xcalloc(sizeof(specific_terms) /
				 sizeof(specific_terms[0]), sizeof(char *));
	for (int i = 0; specific_terms[i] != NULL; i++)
		if (text_has(low, specific_terms[i]))
			ctx->terms[ctx->nterms++] =
				dft_xstrdup(specific_terms[i]);
	qsort(ctx->terms, (size_t)ctx->nterms, sizeof(char *), strcmp_p);
	ctx->cls = dft_xstrdup("hpc");
	for (int i = 0; i < ctx->nterms; i++)
		if (in_list(pfs_terms, ctx->terms[i])) {
			free(ctx->cls);
			ctx->cls = dft_xstrdup("pfs");
		}
	if (dl || text_has(low, "deep learning") || text_has(low, "dl")) {
		free(ctx->cls);
		ctx->cls = dft_xstrdup("dl");
	}
	dft_buf_init(&key);
	for (int i = 0; i < ctx->nterms; i++) {
		if (i > 0)
			dft_buf_addc(&key, ' ');
		dft_buf_adds(&key, ctx->terms[i]);
	}
	if (key.len == 0)
		dft_buf_adds(&key, "generic");
	ctx->key = dft_buf_detach(&key);
	free(low);
}

void
context_release(struct context *ctx)
{
	free(ctx->text);
	free(ctx->key);
	free(ctx->cls);
	for (int i = 0; i < ctx->nterms; i++)
		free(ctx->terms[i]);
	free(ctx->terms);
}

static const char *
component_of(const struct catalogue *cat, const char *cls)
{
	const struct bclass *b = catalogue_class(cat, cls);

	return b != NULL ? b->component : "";
}

static int
component_index(const char *comp)
{
	for (int i = 0; i < 4; i++)
		if (strcmp(component_terms[i][0], comp) == 0)
			return i;
	return -1;
}

static int
bib_bottleneck(const struct paper *p, const struct bclass *bc,
	       const struct catalogue *cat)
{
	for (int i = 0; i < p->nclasses; i++)
		if (strcmp(p->classes[i], bc->name) == 0)
			return 50;
	for (int i = 0; i < p->nrelated; i++)
		if (strcmp(p->related[i], bc->name) == 0)
			return 35;
	for (int i = 0; i < p->nclasses; i++)
		if (strcmp(component_of(cat, p->classes[i]),
			   bc->component) == 0)
			return 20;
	for (int i = 0; i < p->nrelated; i++)
		if (strcmp(component_of(cat, p->related[i]),
			   bc->component) == 0)
			return 20;
	return 0;
}

static int
text_bottleneck(const char *text, const struct bclass *bc)
{
	int ci = component_index(bc->component);

	for (int i = 0; i < bc->nexact; i++)
		if (text_has(text, bc->exact[i]))
			return 50;
	for (int i = 0; i < bc->nrelterms; i++)
		if (text_has(text, bc->relterms[i]))
			return 35;
	if (ci >= 0)
		for (int i = 1; component_terms[ci][i] != NULL; i++)
			if (text_has(text, component_terms[ci][i]))
				return 20;
	return 0;
}

static const char *
text_sys_class(const char *text)
{
	static const char *const dl[] = { "deep learning", "neural",
		"dnn", "machine learning", "training", NULL };
	static const char *const pfs[] = { "file system", "filesystem",
		"lustre", "gpfs", "storage", "parallel i/o", NULL };
	static const char *const hpc[] = { "hpc", "high performance",
		"high-performance", "supercomput", "mpi", "cluster",
		"parallel", NULL };
	static const char *const node[] = { "multicore", "memory", "cpu",
		"processor", NULL };

	for (int i = 0; dl[i] != NULL; i++)
		if (text_has(text, dl[i]))
			return "dl";
	for (int i = 0; pfs[i] != NULL; i++)
		if (text_has(text, pfs[i]))
			return "pfs";
	for (int i = 0; hpc[i] != NULL; i++)
		if (text_has(text, hpc[i]))
			return "hpc";
	for (int i = 0; node[i] != NULL; i++)
		if (text_has(text, node[i]))
			return "node";
	return NULL;
}

static int
system_score(const struct paper *p, const char *text,
	     const struct context *ctx)
{
	const char *cls;

	for (int i = 0; i < ctx->nterms; i++) {
		if (text != NULL && text_has(text, ctx->terms[i]))
			return 30;
		for (int k = 0; k < p->nsys_terms; k++)
			if (strcmp(p->sys_terms[k], ctx->terms[i]) == 0)
				return 30;
	}
	cls = p->sys_class != NULL ? p->sys_class :
	      text != NULL ? text_sys_class(text) : NULL;
	if (cls == NULL)
		return 0;
	if (strcmp(cls, ctx->cls) == 0 ||
	    (strcmp(cls, "hpc") == 0 && strcmp(ctx->cls, "pfs") == 0))
		return 20;
	return 10;
}

static int
recency_score(int age)
{
	if (age <= 2)
		return 20;
	if (age <= 5)
		return 15;
	if (age <= 10)
		return 10;
	if (age <= 15)
		return 5;
	return 0;
}

struct relevance
paper_relevance(const struct paper *p, const struct bclass *bc,
		const struct catalogue *cat, const struct context *ctx,
		int now_year)
{
	struct relevance r;
	char *text = NULL;

	memset(&r, 0, sizeof(r));
	if (p->key == NULL) {
		struct dft_buf b;

		dft_buf_init(&b);
		dft_buf_adds(&b, p->title != NULL ? p->title : "");
		dft_buf_addc(&b, ' ');
		dft_buf_adds(&b, p->abstract != NULL ? p->abstract : "");
		text = lower_dup(b.s);
		dft_buf_release(&b);
		r.bottleneck = text_bottleneck(text, bc);
	} else {
		r.bottleneck = bib_bottleneck(p, bc, cat);
	}
	r.system = system_score(p, text, ctx);
	if (p->year > 0) {
		r.age = now_year - p->year;
		if (r.age < 0)
			r.age = 0;
		r.recency = recency_score(r.age);
	} else {
		r.age = -1;
	}
	r.total = r.bottleneck + r.system + r.recency;
	free(text);
	return r;
}

/* Rubric order: total, then bottleneck, system, citations, year, title. */
int
relevance_cmp(const struct relevance *a, const struct paper *pa,
	      const struct relevance *b, const struct paper *pb)
{
	if (a->total != b->total)
		return b->total - a->total;
	if (a->bottleneck != b->bottleneck)
		return b->bottleneck - a->bottleneck;
	if (a->system != b->system)
		return b->system - a->system;
	if (pa->citations != pb->citations)
		return pb->citations > pa->citations ? 1 : -1;
	if (pa->year != pb->year)
		return pb->year - pa->year;
	return strcmp(pa->title != NULL ? pa->title : "",
		      pb->title != NULL ? pb->title : "");
}

static void
ladder_add(char *out[MAX_QUERIES], int *n, int max, char *q)
{
	for (int i = 0; i < *n; i++)
		if (strcmp(out[i], q) == 0) {
			free(q);
			return;
		}
	if (*n >= max) {
		free(q);
		return;
	}
	out[(*n)++] = q;
}

/*
 * The query ladder: q1 = pair0.a + context; q2 = pair0.a + " parallel
 * filesystem optimization"; then per later pair a + context and b +
 * " optimization" up to 8; pair0.b twice if room; then the three generic
 * queries.  De-duplicated, order kept, at most max (<= 10).
 */
int
ladder_build(char *out[MAX_QUERIES], const struct bclass *bc,
	     const struct context *ctx, int max)
{
	int n = 0;
	const char *sys = ctx->text;

	if (max > MAX_QUERIES)
		max = MAX_QUERIES;
	if (bc->npairs > 0) {
		ladder_add(out, &n, max, dft_xasprintf("%s %s",
			   bc->pairs[0][0], sys));
		ladder_add(out, &n, max, dft_xasprintf(
			   "%s parallel filesystem optimization",
			   bc->pairs[0][0]));
	}
	for (int i = 1; i < bc->npairs && n < 8 && n < max; i++) {
		ladder_add(out, &n, max < 8 ? max : 8,
			   dft_xasprintf("%s %s", bc->pairs[i][0], sys));
		ladder_add(out, &n, max < 8 ? max : 8,
			   dft_xasprintf("%s optimization", bc->pairs[i][1]));
	}
	if (bc->npairs > 0 && n + 2 <= max - 3) {
		ladder_add(out, &n, max, dft_xasprintf("%s %s",
			   bc->pairs[0][1], sys));
		ladder_add(out, &n, max, dft_xasprintf("%s optimization",
			   bc->pairs[0][1]));
	}
	ladder_add(out, &n, max, dft_xasprintf("I/O optimization %s storage",
					       sys));
	ladder_add(out, &n, max, dft_xstrdup(
		"I/O performance optimization parallel filesystem HPC"));
	ladder_add(out, &n, max, dft_xstrdup(
		"storage optimization high performance computing"));
	return n;
}
