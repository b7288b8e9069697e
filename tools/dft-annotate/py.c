/*
 * py.c - Python files, through share/dft/dft_pyannotate.py (Python's own
 * ast and tokenize parse Python far better than a C lexer could).  The
 * helper keeps every line where it was: see its header comment.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "annotate.h"

int
py_is_annotated(const char *s, size_t n)
{
	static const char h[] = "from dftracer.python import dftracer, "
				"dft_fn as DFTracerFn";

	return memmem(s, n, h, sizeof(h) - 1) != NULL &&
	       memmem(s, n, "_dft = DFTracerFn(\"", 19) != NULL;
}

/* Runs the helper: argv[2..], stdin from in (or /dev/null), output. */
static char *
run_helper(const char *cmd, const char *path, const char *arg,
	   const char *in, size_t *len, int *status)
{
	char *helper = dft_share_path("dft_pyannotate.py");
	char out[] = "/tmp/dft-annotate-py.XXXXXX";
	char inp[] = "/tmp/dft-annotate-in.XXXXXX";
	const char *argv[7];
	struct dft_proc_opts po;
	char *res = NULL;
	int fd, i = 0;

	if (!helper) {
		errno = ENOENT;
		return NULL;
	}
	fd = mkstemp(out);
	if (fd < 0)
		goto out;
	close(fd);
	memset(&po, 0, sizeof(po));
	if (in) {
		fd = mkstemp(inp);
		if (fd < 0 || write(fd, in, strlen(in)) != (ssize_t)strlen(in)) {
			if (fd >= 0)
				close(fd);
			goto out;
		}
		close(fd);
		po.input_path = inp;
	}
	argv[i++] = "python3";
	argv[i++] = helper;
	argv[i++] = cmd;
	argv[i++] = path;
	if (arg)
		argv[i++] = arg;
	argv[i] = NULL;
	po.output_path = out;
	po.timeout_s = 300;
	if (dft_run(argv, &po, status) == 0)
		res = dft_read_file(out, len);
out:
	unlink(out);
	if (in)
		unlink(inp);
	free(helper);
	return res;
}

char *
py_strip(const char *s, size_t n, size_t *outlen, const char **why)
{
	char tmpl[] = "/tmp/dft-strip-XXXXXX.py";
	char *res;
	int fd, status = 0;

	*why = NULL;
	fd = mkstemps(tmpl, 3);
	if (fd < 0 || write(fd, s, n) != (ssize_t)n) {
		if (fd >= 0)
			close(fd);
		*why = "cannot write a temporary file";
		return NULL;
	}
	close(fd);
	res = run_helper("strip", tmpl, NULL, NULL, outlen, &status);
	unlink(tmpl);
	if (!res || status != 0) {
		free(res);
		*why = "the Python helper could not strip it";
		return NULL;
	}
	return res;
}

int
py_annotate(const char *path, const char *s, size_t n, json_object *funcs,
	    const char *style, char **out, size_t *outlen, struct fresult *r)
{
	const char *recs = json_object_to_json_string_ext(funcs,
							  JSON_C_TO_STRING_PLAIN);
	json_object *res, *v;
	char *txt;
	size_t len;
	int status = 0;

	(void)s;
	(void)n;
	*out = NULL;
	*outlen = 0;
	txt = run_helper("annotate", path, style, recs, &len, &status);
	if (!txt || status != 0) {
		r->refused = dft_xasprintf("the Python helper failed%s%.200s",
					   txt ? ": " : "", txt ? txt : "");
		free(txt);
		return -1;
	}
	res = json_tokener_parse(txt);
	free(txt);
	if (!res) {
		r->refused = dft_xstrdup("the Python helper gave no result");
		return -1;
	}
	if (json_object_object_get_ex(res, "refused", &v)) {
		r->refused = dft_xstrdup(json_object_get_string(v));
		json_object_put(res);
		return -1;
	}
	if (json_object_object_get_ex(res, "annotated", &v)) {
		size_t k;

		for (k = 0; k < json_object_array_length(v); k++)
			json_object_array_add(r->annotated,
					      json_object_get(
						      json_object_array_get_idx(
							      v, k)));
	}
	if (json_object_object_get_ex(res, "skipped", &v)) {
		size_t k;

		for (k = 0; k < json_object_array_length(v); k++)
			json_object_array_add(r->skipped,
					      json_object_get(
						      json_object_array_get_idx(
							      v, k)));
	}
	r->fragments += (int)dft_json_int(res, "fragments", 0);
	if (json_object_object_get_ex(res, "text", &v)) {
		*outlen = (size_t)json_object_get_string_len(v);
		*out = dft_xstrndup(json_object_get_string(v), *outlen);
	}
	json_object_put(res);
	return 0;
}
