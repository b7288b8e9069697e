/*
 * trace_fuzz.c - libFuzzer target for the trace reader (common/trace.c)
 * and the analysis on top of it (tools/dft-analyze/agg.c, rules.c, out.c):
 * any bytes, plain or gzip, must be read without a crash, a leak or an
 * out-of-bounds access, whatever the result. Built with -DREADER_ONLY it
 * exercises the reader alone (many more inputs per second).
 */
#include <stdio.h>
#include <stdlib.h>

#include "../../tools/dft-analyze/analyze.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int
LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	static FILE *null;
	struct dft_trace t;
	struct dft_trace_ev ev;
	struct agg a;

	if (null == NULL) {
		dft_progname = "trace_fuzz";
		null = fopen("/dev/null", "w");
	}
	/* the reader alone */
	dft_trace_open_mem(&t, "fuzz", data, size);
	t.raw_lines = size > 0 && (data[0] & 1);
	while (dft_trace_next(&t, &ev) == 1) {
		if (ev.fhash.p != NULL)
			dft_trace_lookup(&t, 'F', ev.fhash.p, ev.fhash.n);
		if (ev.hhash.p != NULL)
			dft_trace_lookup(&t, 'H', ev.hhash.p, ev.hhash.n);
	}
	dft_trace_close(&t);
#ifdef READER_ONLY
	(void)a;
	return 0;
#endif

	/* the whole analysis */
	agg_init(&a);
	dft_trace_open_mem(&t, "fuzz", data, size);
	agg_trace(&a, &t, NULL, NULL, NULL, NULL);
	dft_trace_close(&t);
	agg_finalize(&a);
	struct run_info ri = { 0 };
	struct results res = { 0 };

	ri.inputs = json_object_new_array();
	ri.top = 3;
	ri.preset = choose_preset(&a, &ri.preset_reason);
	rules_run(&a, &ri, &res);
	out_records(null, &a, &ri, &res);
	out_table(null, &a, &ri, &res);
	json_object_put(partial_json(&a, &ri));
	results_release(&res);
	run_info_release(&ri);
	free(ri.preset_reason);
	json_object_put(ri.series);
	json_object_put(ri.inputs);
	agg_release(&a);
	return 0;
}
