/*
 * papers.h - internal interface of dft-papers (not part of libdft).
 */
#ifndef DFT_PAPERS_H
#define DFT_PAPERS_H

#include "dft.h"
#include "http.h"

#define MAX_QUERIES 10

/* One candidate paper, from the bibliography or a search answer. */
struct paper {
	char *key;		/* bibliography key, NULL for found papers */
	char *title;
	char **authors;
	int nauthors;
	int year;		/* 0 unknown */
	char *venue;
	char *doi;
	char *arxiv;
	char *url;
	char *abstract;		/* search answers only */
	char *finding;		/* bibliography only */
	char *source;		/* "bibliography", "arxiv", "semantic_scholar" */
	char *query;		/* the query that found it */
	char *for_class;	/* the class it was searched for */
	char *retrieved;	/* ISO date of the answer */
	int cached;		/* answer came from the cache */
	long citations;		/* -1 unknown */
	char **classes;		/* bibliography: exact classes */
	int nclasses;
	char **related;
	int nrelated;
	char *sys_class;	/* "pfs", "hpc", "dl", "node", or NULL */
	char **sys_terms;
	int nsys_terms;
};

/* A bottleneck class of the catalogue (share/dft/proposals.ndjson). */
struct bclass {
	char *name;
	char *component;	/* io, comm, mem, cpu */
	char **match;
	int nmatch;
	char **insights;
	int ninsights;
	char **exact;		/* relevance terms */
	int nexact;
	char **relterms;
	int nrelterms;
	char *pairs[5][2];	/* query ladder synonym pairs */
	int npairs;
};

/* One proposal strategy of the catalogue. */
struct strategy {
	json_object *rec;	/* the catalogue record (owned) */
	const char *id, *cls, *level;
};

struct catalogue {
	struct paper *bib;
	int nbib;
	struct bclass *classes;
	int nclasses;
	struct strategy *strats;
	int nstrats;
};

/* The system context a run is scored against. */
struct context {
	char *text;		/* as given, e.g. "x86_64 Lustre InfiniBand HPC" */
	char *key;		/* normalised: sorted specific terms or "generic" */
	char *cls;		/* "pfs", "dl", "hpc" */
	char **terms;		/* specific lower-case terms */
	int nterms;
};

struct relevance {
	int bottleneck, system, recency, total, age;
};

/* A paper and its relevance to one bottleneck. */
struct cand {
	const struct paper *p;
	struct relevance r;
};

/* catalogue.c */
int catalogue_load(struct catalogue *c, const char *bib_path,
		   const char *cat_path);
void catalogue_release(struct catalogue *c);
void strs_free(char **v, size_t n);	/* a counted array of strings */
const struct bclass *catalogue_class_for(const struct catalogue *c,
					 const char *metric,
					 const char *insight);
const struct bclass *catalogue_class(const struct catalogue *c,
				     const char *name);
const struct paper *catalogue_bib(const struct catalogue *c, const char *key);
void paper_release(struct paper *p);
json_object *paper_citation(const struct paper *p);

/* rank.c */
void context_init(struct context *ctx, const char *text, int dl);
void context_release(struct context *ctx);
struct relevance paper_relevance(const struct paper *p,
				 const struct bclass *bc,
				 const struct catalogue *cat,
				 const struct context *ctx, int now_year);
int relevance_cmp(const struct relevance *a, const struct paper *pa,
		  const struct relevance *b, const struct paper *pb);
int ladder_build(char *out[MAX_QUERIES], const struct bclass *bc,
		 const struct context *ctx, int max);

/* search.c */
struct search_opts {
	const char *arxiv_url;
	const char *s2_url;
	const char *s2_key;
	int use_arxiv, use_s2;
	int max_results;
	struct dft_http_opts http;
	int offline;		/* set when the network turned out absent */
	char now_date[16];
};
/* Failure of one source for one query, for the literature record. */
struct search_fail {
	char source[24];
	char error[256];
};
/*
 * Runs query on every enabled source; appends found papers (with an id)
 * to *out.  Returns the number of papers added.  Failures are appended to
 * fails (up to 4).
 */
int search_query(struct paper **out, int *nout, const char *query,
		 struct search_opts *so, struct search_fail *fails,
		 int *nfails, int *dropped);

/* learn.c */
struct learn_count {
	char *cls, *strategy, *context;
	int improved, regressed, unchanged;
};
struct learn_store {
	struct learn_count *c;
	int n;
};
char *learn_default_path(void);	/* caller frees */
int learn_load(struct learn_store *s, const char *path);
void learn_release(struct learn_store *s);
const struct learn_count *learn_find(const struct learn_store *s,
				     const char *cls, const char *strategy,
				     const char *context);
int learn_append(const char *store, const char *ctx_key, const char *now_iso,
		 json_object *proposals, json_object *verdicts);

/* box.c: the box of bottleneck b on standard output: with unsupported,
 * that text alone; else the best paper (and caveat) and the first
 * proposal text of each level (lines[l] NULL: nothing applicable). */
void print_box(json_object *b, const struct cand *best, const char *caveat,
	       const char *unsupported, json_object *lines[3]);

/* require.c: the facts --plan decides on, and one requirement */
enum fact {
	F_DATA_DIR, F_LOCAL_DIR, F_PHYSICAL_CORES, F_TUNE_LIB, F_WORK_DIR,
	F_ENV_SCRIPT, F_OS, F_FS, F_FS_TYPE, F_NUMACTL, F_NUMA_NODES, F_MPI,
	F_OPENMP, F_MPI_IO, F_N
};
extern const char *const fact_names[F_N];
struct facts {
	const char *v[F_N];	/* --fact NAME=VALUE; NULL: not given */
	json_object *summary;	/* the analysis' first summary, or NULL */
};
int facts_set(struct facts *f, const char *name_value);	/* -1: unknown */
const char *fact(const struct facts *f, enum fact k);	/* "" when none */
/* NULL when met, else why not (caller frees). */
char *requirement_unmet(const struct facts *f, const char *requirement);
/* What a met requirement found, worth saying (ROMIO: which MPI-IO
 * implementation), else NULL (caller frees). */
char *requirement_found(const struct facts *f, const char *requirement);

/* plan.c: the --plan mode */
struct plan_opts {
	int rewrites;			/* --rewrites: the L1 rewrites */
	int rollback;			/* --rollback: the rollback commands */
	const char *run_dir;		/* where the plan is written */
	const char *tried;		/* strategies tried, one a line */
	const char *failed;		/* "ID[<TAB>REASON]" lines */
	const char *analysis;		/* the accepted configuration's */
	const char *env;		/* the exports so far */
	const char **earlier;		/* earlier configurations' papers */
	size_t nearlier;
	struct facts facts;
};
int plan_run(struct plan_opts *o, int argc, char **argv);

/* text helpers (rank.c) */
char *norm_title(const char *t);	/* lower-case alphanumerics, caller frees */
int text_has(const char *hay_lower, const char *needle_lower);
char *lower_dup(const char *s);

#endif
