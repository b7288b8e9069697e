/*
 * funcs.h - internal interface of dft-funcs (not part of libdft).
 *
 * main.c builds a list of parse jobs (one per file and flag set), runs them
 * on worker threads, merges what they found per function, computes I/O
 * reachability over the call graph and prints the records.  cfuncs.c
 * extracts C/C++ functions with libclang, pyfuncs.c Python functions with
 * a tokenizer of our own, ioapis.c knows the I/O API table.  job.c holds
 * what a job collects, srcpos.c (srcpos.h) source positions and paths.
 */
#ifndef DFT_FUNCS_H
#define DFT_FUNCS_H

#include "dft.h"
#include "compdb.h"
#include "srcpos.h"

/* One function found by one job. */
struct fn {
	json_object *rec;	/* the function record being built */
	char *key;		/* file + body offset: identity for merging */
	char *usr;
	char *name;
	int is_python;
	int io_direct;
	char **callees;		/* C: callee USRs; Python: callee names */
	size_t ncallees, capcallees;
	/* filled by main.c */
	int dist;
	long via;
};

struct job {
	char *file;		/* absolute */
	char **args;		/* libclang arguments, NULL-terminated */
	const char *lang;	/* "c", "cpp", "python" */
	int is_main_of_db;	/* listed in the compile database */
	/* results */
	struct fn *fns;
	size_t nfns, capfns;
	json_object **diags;
	size_t ndiags, capdiags;
	/* functions that run after the tracer is finalized, by USR:
	 * after_why[i] is "atexit" or "static-destructor" */
	char **after_usr;
	const char **after_why;
	size_t nafter, capafter;
	int failed;		/* could not be parsed at all */
	int errors;		/* parse errors reported */
	int parsed;		/* 1 when the job ran */
};

struct fopts {
	const char *root;	/* absolute */
	int jobs;
	int all_headers;	/* report functions from headers outside root */
};

/* ioapis.c */
int io_apis_load(const char *path);
/* family of an I/O API name ("posix", "stdio", ...) or NULL */
const char *io_api_family(const char *name);
const char *io_api_family_py(const char *name);

/* job.c: what a job collects */
struct fn *job_add_fn(struct job *j);
void job_add_after(struct job *j, const char *usr, const char *why);
void fn_add_callee(struct fn *f, const char *s);
void job_add_diag(struct job *j, const struct fopts *o, const char *file,
		  long line, long col, const char *rule, const char *severity,
		  const char *msg);

/* cfuncs.c, pyfuncs.c */
void c_extract(struct job *j, const struct fopts *o, void *cxindex);
void py_extract(struct job *j, const struct fopts *o);

#endif
