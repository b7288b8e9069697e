/*
 * dft-report - the session report of a run: session_report.md (the
 * structure users asked for, user-facing-formats.md section 8) and
 * report.html (the same text plus inline SVG charts, self-contained).
 *
 * Reads every record of a run (files, stdin, or a workspace's records/),
 * copies them to standard output unchanged, writes the two files and
 * emits one `report` record and its `step` record.  Every value comes
 * from a record or from a file of the workspace; a section without data
 * says "not run".  It does not run anything and does not guess.
 *
 * main.c holds the options and the flow; collect.c reads the records,
 * sections.c, diagnosis.c, doc.c and charts.c write the report.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "report.h"

struct opts {
	const char *output;
	const char *html;
	int no_html;
	const char *workspace;
	int counts;
	const char *functions;
};

static const char usage_text[] =
	"usage: dft-report [-o FILE] [--html FILE | --no-html] "
	"[--workspace DIR] [--counts]\n"
	"                  [--functions FILE] [file ...]\n"
	"       dft-report -h | --help | -V | --version\n";

static const char help_text[] =
	"\n"
	"Writes the session report of a run (Markdown and HTML) from its\n"
	"records (the files, stdin, or the workspace's records/), passes the\n"
	"records through and prints a report record.\n"
	"\n"
	"  -o, --output FILE     the Markdown report (default:\n"
	"                        session_report.md in the workspace, else here)\n"
	"      --html FILE       the HTML report (default: report.html beside it)\n"
	"      --no-html         write no HTML report\n"
	"      --workspace DIR   the run's workspace: its records/ when no file\n"
	"                        is given, and where the report goes\n"
	"      --counts          write no report, print one counts record\n"
	"      --functions FILE  function records that give findings file:line\n"
	"  -h, --help            show this help\n"
	"  -V, --version         show the version\n";

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "html", required_argument, NULL, 256 },
		{ "no-html", no_argument, NULL, 257 },
		{ "workspace", required_argument, NULL, 258 },
		{ "counts", no_argument, NULL, 259 },
		{ "functions", required_argument, NULL, 260 },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct opts o;
	struct run r;
	struct counts cnt;
	struct doc d;
	struct dft_step stp;
	json_object *its = NULL, *rec;
	char *md = NULL, *html = NULL, *title;
	const char *ws, *run_id;
	int c, status, n;

	dft_init("dft-report");
	memset(&o, 0, sizeof(o));
	while ((c = dft_getopt(argc, argv, "o:hV", longopts)) != -1) {
		switch (c) {
		case 'o': o.output = optarg; break;
		case 256: o.html = optarg; break;
		case 257: o.no_html = 1; break;
		case 258: o.workspace = optarg; break;
		case 259: o.counts = 1; break;
		case 260: o.functions = optarg; break;
		case 'h': return dft_help(usage_text, help_text);
		case 'V': return dft_version();
		default: dft_option_error(usage_text, c, argv, longopts);
		}
	}
	if (o.html != NULL && o.no_html)
		dft_usage_error(usage_text, "--html and --no-html exclude each "
				"other");
	if (o.workspace != NULL && !dft_is_dir(o.workspace))
		dft_bad_value(usage_text, "--workspace", o.workspace,
			      "a directory");

	if (!o.counts)
		dft_step_begin(&stp, "report");
	run_init(&r);
	r.counts_only = o.counts;
	if (o.functions != NULL) {
		char *fa[] = { (char *)o.functions, NULL };

		status = dft_each_input(1, fa, function_stream, &r);
		if (status == DFT_EXIT_FATAL)
			return status;
	} else {
		status = DFT_EXIT_OK;
	}
	if (o.workspace != NULL && argc - optind == 0)
		status = dft_worst(status, read_workspace(&r, o.workspace));
	else
		status = dft_worst(status, dft_each_input(argc - optind,
				   argv + optind, process_stream, &r));

	if (o.counts) {
		run_counts(&r, &cnt);
		emit_counts(&cnt);
		run_release(&r);
		return dft_worst(status, dft_close_stdout());
	}
	ws = run_workspace(&r, o.workspace);
	if (o.output != NULL)
		md = dft_xstrdup(o.output);
	else if (ws != NULL && dft_is_dir(ws))
		md = dft_path_join(ws, "session_report.md");
	else
		md = dft_xstrdup("session_report.md");
	if (!o.no_html) {
		if (o.html != NULL) {
			html = dft_xstrdup(o.html);
		} else {
			char *dir = dft_xstrdup(md), *sl = strrchr(dir, '/');

			if (sl != NULL) {
				*sl = '\0';
				html = dft_path_join(*dir ? dir : "/",
						     "report.html");
			} else {
				html = dft_xstrdup("report.html");
			}
			free(dir);
		}
	}

	run_id = dft_json_str(r.session, "run_id",
			      dft_json_str(r.pipeline, "run_id", NULL));
	doc_init(&d);
	title = dft_xasprintf("DFTracer Session Report — %s",
			      run_id != NULL ? run_id : "unknown run");
	report_header(&d, &r, title);
	run_counts(&r, &cnt);
	flow(&d, &r, &cnt);
	n = run_iterations(&r, &its);
	charts(&d, &r, its, n);
	iteration_table(&d, &r, its, n);
	iteration_sections(&d, &r, its, n);
	diag_section(&d, &r.diag, r.nsegs > 0 ? r.segs[0].summary : NULL,
		     r.nsegs > 0 ? r.segs[0].bottlenecks : NULL,
		     r.nsegs > 0 ? r.segs[0].proposals : NULL);
	pitfalls(&d, &r);
	summary_table(&d, &r, its, n, &cnt);
	step_timings(&d, &r, ws);
	artifacts(&d, &r, ws, md);

	status = dft_worst(status, doc_write(&d, md, html, title));

	/*
	 * The report record says what was written; it is left out when no
	 * record of a run came in (an empty stream reports nothing).
	 */
	rec = json_object_new_object();
	json_object_object_add(rec, "type", dft_jstr("report"));
	json_object_object_add(rec, "v", dft_jint(1));
	json_object_object_add(rec, "run_id", dft_jstr(run_id));
	json_object_object_add(rec, "markdown", dft_jstr(md));
	json_object_object_add(rec, "html", dft_jstr(html));
	json_object_object_add(rec, "analyses", dft_jint(r.nsegs));
	json_object_object_add(rec, "iterations", dft_jint(n > 0 ? n - 1 : 0));
	json_object_object_add(rec, "bottlenecks", dft_jint(cnt.bottlenecks));
	json_object_object_add(rec, "papers_cited", dft_jint(cnt.papers));
	json_object_object_add(rec, "not_run", json_object_get(r.not_run));
	if (r.known > 0)
		dft_emit_put(stdout, rec);
	else
		json_object_put(rec);
	rec = dft_step_end(&stp, status == 0 ? "ok" : "partial");
	json_object_object_add(rec, "markdown", dft_jstr(md));
	json_object_object_add(rec, "html", dft_jstr(html));
	dft_emit_put(stdout, rec);
	status = dft_worst(status, dft_close_stdout());

	json_object_put(its);
	free(title);
	doc_release(&d);
	run_release(&r);
	free(md);
	free(html);
	return status;
}
