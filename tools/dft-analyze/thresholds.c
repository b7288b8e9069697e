/*
 * thresholds.c - the thresholds of dft-analyze: their names, the defaults
 * (Drishti's, WisIO's, dlio's and dft's own; dft-analyze(1) THRESHOLDS),
 * the 'name = value' file reader and the JSON form the summary and the
 * partial records carry. Which insight reads which threshold is named in
 * rules.c's descriptor table.
 *
 * Does not decide anything: rules.c and judge.c compare against thr[].
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analyze.h"

const char *const thr_name[T_N] = {
	"imbalance_operations", "small_bytes", "small_requests",
	"small_requests_absolute", "misaligned_requests", "file_alignment",
	"metadata_time_rank", "random_operations",
	"random_operations_absolute", "imbalance_stragglers",
	"imbalance_size", "interface_stdio", "collective_operations",
	"collective_operations_absolute", "wisio_metadata_time",
	"wisio_operation_imbalance", "wisio_random", "wisio_size_imbalance",
	"wisio_small_time", "wisio_small_size", "wisio_unoverlapped",
	"view_min_share", "time_bin_s", "dlio_fetch_pressure",
	"dlio_epoch_straggler", "dlio_checkpoint_time", "dlio_fs_bw_mb_s",
	"metadata_time_share", "sync_time_share", "sync_requests_absolute",
	"redundant_read_ratio", "redundant_read_bytes", "default_bw_mb_s",
	"system_dominates", "findings_shown", "intervals_max",
	"verdict_io_bound", "verdict_partly",
	"hdf5_metadata_operations_absolute", "stall_factor",
	"small_files_min",
};

double thr[T_N] = {
	0.1, 1048576, 0.1, 1000, 0.1, 4096, 30, 0.2, 1000, 0.15, 0.3, 0.1,
	0.5, 1000, 0.5, 0.1, 0.5, 0.1, 0.5, 1048576, 0.5, 0.1, 1, 0.25,
	0.15, 0.1, 1000,
	0.2, 0.1, 10, 1.5, 1048576, 500, 0.5, 5, 65536, 0.5, 0.1, 1000,
	16, 16,
};

int
thr_load(const char *path, int must_exist)
{
	FILE *fp = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	long ln = 0;
	int bad = 0;

	if (fp == NULL) {
		if (!must_exist && errno == ENOENT)
			return 0;
		dft_warn("cannot open '%s':", path);
		return -1;
	}
	struct stat st;

	if (fstat(fileno(fp), &st) == 0 && !S_ISREG(st.st_mode)) {
		dft_warn("'%s' is not a regular file", path);
		fclose(fp);
		return -1;
	}
	while (getline(&line, &cap, fp) != -1) {
		char *p = line, *eq, *end;
		int i;

		ln++;
		p[strcspn(p, "#\n")] = '\0';
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '\0')
			continue;
		eq = strchr(p, '=');
		if (eq == NULL) {
			dft_warn_at(path, ln, "expected 'name = value'");
			bad = 1;
			continue;
		}
		end = eq;
		while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
			end--;
		*end = '\0';
		for (i = 0; i < T_N; i++)
			if (strcmp(p, thr_name[i]) == 0)
				break;
		char *v = eq + 1;

		while (*v == ' ' || *v == '\t')
			v++;
		char *ve = v + strlen(v);

		while (ve > v && (ve[-1] == ' ' || ve[-1] == '\t' ||
				  ve[-1] == '\r'))
			*--ve = '\0';
		double d;

		if (i == T_N) {
			dft_warn_at(path, ln, "unknown threshold '%s'", p);
			bad = 1;
		} else if (i == T_TIME_BIN_S ?
			   dft_parse_double_range(v, 1e-6, 1e9, &d) != 0 :
			   dft_parse_double_range(v, 0, 1e15, &d) != 0) {
			dft_warn_at(path, ln, "bad value '%s' for %s (%s)", v,
				    p, i == T_TIME_BIN_S ? "1e-06 to 1e+09 s" :
				    "0 to 1e+15");
			bad = 1;
		} else {
			thr[i] = d;
		}
	}
	free(line);
	fclose(fp);
	return bad ? -1 : 0;
}

json_object *
thresholds_json(void)
{
	json_object *o = json_object_new_object();

	for (int i = 0; i < T_N; i++) {
		double v = thr[i];

		if (v == floor(v) && fabs(v) < 9e15)
			json_object_object_add(o, thr_name[i],
					       dft_jint((int64_t)v));
		else
			json_object_object_add(o, thr_name[i], dft_jdouble(v));
	}
	return o;
}
