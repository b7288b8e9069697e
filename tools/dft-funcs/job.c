/*
 * job.c - what one parse job collects: its functions, their callees, the
 * functions that run after the tracer is finalized, and its diagnostics.
 * The extractors (cfuncs.c, pyfuncs.c) fill a job through these; main.c
 * runs the jobs and merges them.  Nothing here is shared between threads:
 * a job belongs to the worker that runs it.
 * It does not parse, merge or print.
 */
#include <stdlib.h>
#include <string.h>

#include "funcs.h"

struct fn *
job_add_fn(struct job *j)
{
	struct fn *f;

	if (j->nfns == j->capfns) {
		j->capfns = j->capfns ? j->capfns * 2 : 16;
		j->fns = dft_xreallocarray(j->fns, j->capfns, sizeof(*j->fns));
	}
	f = &j->fns[j->nfns++];
	memset(f, 0, sizeof(*f));
	return f;
}

void
job_add_after(struct job *j, const char *usr, const char *why)
{
	size_t i;

	for (i = 0; i < j->nafter; i++)
		if (strcmp(j->after_usr[i], usr) == 0)
			return;
	if (j->nafter == j->capafter) {
		j->capafter = j->capafter ? j->capafter * 2 : 8;
		j->after_usr = dft_xreallocarray(j->after_usr, j->capafter,
						 sizeof(char *));
		j->after_why = dft_xreallocarray(j->after_why, j->capafter,
						 sizeof(char *));
	}
	j->after_usr[j->nafter] = dft_xstrdup(usr);
	j->after_why[j->nafter++] = why;
}

void
fn_add_callee(struct fn *f, const char *s)
{
	size_t i;

	for (i = 0; i < f->ncallees; i++)
		if (strcmp(f->callees[i], s) == 0)
			return;
	if (f->ncallees == f->capcallees) {
		f->capcallees = f->capcallees ? f->capcallees * 2 : 8;
		f->callees = dft_xreallocarray(f->callees, f->capcallees,
					       sizeof(char *));
	}
	f->callees[f->ncallees++] = dft_xstrdup(s);
}

void
job_add_diag(struct job *j, const struct fopts *o, const char *file,
	     long line, long col, const char *rule, const char *severity,
	     const char *msg)
{
	json_object *d = json_object_new_object();
	char *rel = rel_path(o, file);

	json_object_object_add(d, "type", dft_jstr("diagnostic"));
	json_object_object_add(d, "v", dft_jint(1));
	json_object_object_add(d, "tool", dft_jstr("dft-funcs"));
	json_object_object_add(d, "file", dft_jstr(rel));
	json_object_object_add(d, "root", dft_jstr(o->root));
	json_object_object_add(d, "line", dft_jint(line));
	json_object_object_add(d, "col", dft_jint(col));
	json_object_object_add(d, "rule", dft_jstr(rule));
	json_object_object_add(d, "severity", dft_jstr(severity));
	json_object_object_add(d, "message", dft_jstr(msg));
	free(rel);
	if (j->ndiags == j->capdiags) {
		j->capdiags = j->capdiags ? j->capdiags * 2 : 8;
		j->diags = dft_xreallocarray(j->diags, j->capdiags,
					     sizeof(*j->diags));
	}
	j->diags[j->ndiags++] = d;
}
