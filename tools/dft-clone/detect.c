/*
 * detect.c - what the checked-out tree is: the build tool from root-level
 * files, languages by suffix, features and ML frameworks from the text of
 * source and build files (a bounded scan), and the analysis preset
 * (pipeline-behaviour.md section 1.3).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clone.h"

#define SCAN_BUDGET 5000000	/* bytes of source text scanned for features */

enum lang { LANG_C, LANG_CPP, LANG_FORTRAN, LANG_PYTHON, NLANG };
static const char *const lang_names[NLANG] = {
	"c", "cpp", "fortran", "python",
};

struct pattern {
	const char *name;
	const char *re;
	int icase;
	regex_t rx;
	int found;
};

#define IMPORT(m) "^[[:space:]]*(import|from)[[:space:]]+" m "\\b"

/*
 * Features of the reference detector (pipeline-behaviour.md section 1.3),
 * plus what build files say: MPI compiler wrappers, find_package(MPI),
 * find_package(HDF5), -fopenmp, find_package(OpenMP).
 */
static struct pattern features[] = {
	{ "mpi", "mpi\\.h|MPI_Init|MPI_Comm|mpi4py|"
	  "\\bmpi(cc|cxx|c\\+\\+|f90|fort)|"
	  "find_package[[:space:]]*\\([[:space:]]*MPI\\b", 1, { 0 }, 0 },
	{ "hdf5", "hdf5\\.h|H5Fopen|H5Fcreate|H5Dread|H5Dwrite|h5py|"
	  "find_package[[:space:]]*\\([[:space:]]*HDF5\\b", 1, { 0 }, 0 },
	{ "openmp", "omp\\.h|#pragma[[:space:]]+omp|import openmp|-fopenmp|"
	  "find_package[[:space:]]*\\([[:space:]]*OpenMP\\b", 1, { 0 }, 0 },
	{ "hip", "hip/hip_runtime|hipMalloc|hipLaunchKernel|"
	  "find_package\\(HIP|enable_language\\(HIP", 0, { 0 }, 0 },
	{ "posix_io", "\\b(open|fopen|read|write)[[:space:]]*\\(", 0,
	  { 0 }, 0 },
};

/* ML frameworks: imports in Python, includes in C/C++. */
static struct pattern frameworks[] = {
	{ "pytorch", IMPORT("torch") "|#include[[:space:]]*[<\"]torch/", 0,
	  { 0 }, 0 },
	{ "tensorflow", IMPORT("tensorflow")
	  "|#include[[:space:]]*[<\"]tensorflow/", 0, { 0 }, 0 },
	{ "jax", IMPORT("jax"), 0, { 0 }, 0 },
	{ "keras", IMPORT("(tf_)?keras") "|tensorflow\\.keras|"
	  "from[[:space:]]+tensorflow[[:space:]]+import[[:space:]]+keras",
	  0, { 0 }, 0 },
	{ "flax", IMPORT("flax"), 0, { 0 }, 0 },
	{ "mxnet", IMPORT("mxnet"), 0, { 0 }, 0 },
	{ "horovod", IMPORT("horovod")
	  "|#include[[:space:]]*[<\"]horovod/", 0, { 0 }, 0 },
	{ "deepspeed", IMPORT("deepspeed"), 0, { 0 }, 0 },
	{ "megatron", IMPORT("megatron"), 0, { 0 }, 0 },
	{ "fsdp", "FullyShardedDataParallel|torch\\.distributed\\.fsdp", 0,
	  { 0 }, 0 },
	{ "dali", "nvidia\\.dali", 0, { 0 }, 0 },
	{ "dlio", IMPORT("dlio(_benchmark)?"), 0, { 0 }, 0 },
	{ "lightning", IMPORT("(pytorch_)?lightning"), 0, { 0 }, 0 },
};

#define NFEATURES (sizeof(features) / sizeof(features[0]))
#define NFRAMEWORKS (sizeof(frameworks) / sizeof(frameworks[0]))

struct detect {
	int lang[NLANG];
	int hip_file;
	size_t budget;		/* bytes of text still to scan */
};

static void
compile_patterns(struct pattern *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int fl = REG_EXTENDED | REG_NOSUB | REG_NEWLINE;

		if (p[i].icase)
			fl |= REG_ICASE;
		if (regcomp(&p[i].rx, p[i].re, fl) != 0)
			dft_die("internal error: bad pattern for '%s'",
				p[i].name);
		p[i].found = 0;
	}
}

static void
free_patterns(struct pattern *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		regfree(&p[i].rx);
}

static int
suffix_in(const char *name, const char *const *list)
{
	const char *dot = strrchr(name, '.');

	if (dot == NULL)
		return 0;
	for (; *list != NULL; list++)
		if (strcmp(dot, *list) == 0)
			return 1;
	return 0;
}

static const char *const c_sfx[] = { ".c", ".h", NULL };
static const char *const cpp_sfx[] = {
	".cpp", ".cxx", ".cc", ".hpp", ".hxx", NULL,
};
static const char *const f_sfx[] = {
	".f90", ".f95", ".f03", ".f", ".for", ".f77", ".F90", ".F", NULL,
};
static const char *const py_sfx[] = { ".py", NULL };
static const char *const scan_sfx[] = {
	".c", ".h", ".cpp", ".cxx", ".cc", ".hpp", ".hxx", ".py", ".f90",
	".f", ".F90", ".F", ".hip", ".cu", ".cuh", NULL,
};
static const char *const scan_names[] = {
	"CMakeLists.txt", "Makefile", "GNUmakefile", "makefile",
	"configure.ac", "meson.build", NULL,
};

/* Up to max bytes of a file, NUL-terminated; NULL when unreadable. */
static char *
read_head(const char *path, size_t max, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	char *buf;
	size_t n = 0;

	if (fd < 0)
		return NULL;
	buf = dft_xmalloc(max + 1);
	while (n < max) {
		ssize_t r = read(fd, buf + n, max - n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	*len = n;
	return buf;
}

static void
scan_text(struct detect *d, const char *path, int code)
{
	size_t len, max = d->budget < 1048576 ? d->budget : 1048576;
	char *text;

	if (max == 0)
		return;
	text = read_head(path, max, &len);
	if (text == NULL)
		return;
	d->budget -= len;
	for (size_t i = 0; i < NFEATURES; i++)
		if (!features[i].found &&
		    regexec(&features[i].rx, text, 0, NULL, 0) == 0)
			features[i].found = 1;
	for (size_t i = 0; code && i < NFRAMEWORKS; i++)
		if (!frameworks[i].found &&
		    regexec(&frameworks[i].rx, text, 0, NULL, 0) == 0)
			frameworks[i].found = 1;
	free(text);
}

static void
scan_file(struct detect *d, const char *path, const char *name)
{
	int code = suffix_in(name, scan_sfx);

	if (suffix_in(name, c_sfx))
		d->lang[LANG_C] = 1;
	if (suffix_in(name, cpp_sfx))
		d->lang[LANG_CPP] = 1;
	if (suffix_in(name, f_sfx))
		d->lang[LANG_FORTRAN] = 1;
	if (suffix_in(name, py_sfx))
		d->lang[LANG_PYTHON] = 1;
	if (dft_has_suffix(name, ".hip"))
		d->hip_file = 1;
	if (code)
		scan_text(d, path, 1);
	else
		for (const char *const *n = scan_names; *n; n++)
			if (strcmp(name, *n) == 0)
				scan_text(d, path, 0);
}

/*
 * Directories that hold other people's code or generated files: hidden
 * ones (.git, .venv, .tox), node_modules, site-packages, __pycache__, and
 * Python virtual environments (they contain pyvenv.cfg). A virtual
 * environment with torch installed does not make the application use it.
 */
static int
skip_dir(const char *path, const char *name)
{
	char *cfg;
	int venv;

	if (name[0] == '.' || strcmp(name, "node_modules") == 0 ||
	    strcmp(name, "site-packages") == 0 ||
	    strcmp(name, "__pycache__") == 0)
		return 1;
	cfg = dft_path_join(path, "pyvenv.cfg");
	venv = dft_exists(cfg);
	free(cfg);
	return venv;
}

/* Walks dir without following links, skipping .git; sorted for a stable
 * scan order (the budget makes the order matter). */
static void
walk(struct detect *d, const char *dir, int depth)
{
	struct dirent **ents = NULL;
	int n;

	if (depth > MAX_DEPTH)
		return;
	n = scandir(dir, &ents, NULL, alphasort);
	if (n < 0)
		return;
	for (int i = 0; i < n; i++) {
		const char *name = ents[i]->d_name;
		struct stat st;
		char *p;

		if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0 ||
		    strcmp(name, ".git") == 0) {	/* .git may be a file */
			free(ents[i]);
			continue;
		}
		p = dft_path_join(dir, name);
		if (lstat(p, &st) == 0) {
			if (S_ISDIR(st.st_mode) && !skip_dir(p, name))
				walk(d, p, depth + 1);
			else if (S_ISREG(st.st_mode))
				scan_file(d, p, name);
		}
		free(p);
		free(ents[i]);
	}
	free(ents);
}

/* Build tool from root-level files only, first match in this order. */
static const char *
build_tool(const char *src)
{
	static const struct {
		const char *file;
		const char *tool;
	} markers[] = {
		{ "CMakeLists.txt", "cmake" },
		{ "configure.ac", "autotools" },
		{ "configure.in", "autotools" },
		{ "configure", "autotools" },
		{ "meson.build", "meson" },
		{ "setup.py", "python" },
		{ "pyproject.toml", "python" },
		{ "setup.cfg", "python" },
		{ "Makefile", "make" },
		{ "makefile", "make" },
		{ "GNUmakefile", "make" },
	};

	for (size_t i = 0; i < sizeof(markers) / sizeof(markers[0]); i++) {
		char *p = dft_path_join(src, markers[i].file);
		struct stat st;
		int hit = stat(p, &st) == 0 && S_ISREG(st.st_mode);

		free(p);
		if (hit)
			return markers[i].tool;
	}
	return "unknown";
}

void
detect(json_object *sess, const char *src)
{
	struct detect d;
	json_object *langs = json_object_new_array();
	json_object *feat = json_object_new_object();
	json_object *ml = json_object_new_array();

	memset(&d, 0, sizeof(d));
	d.budget = SCAN_BUDGET;
	compile_patterns(features, NFEATURES);
	compile_patterns(frameworks, NFRAMEWORKS);
	walk(&d, src, 0);
	for (int i = 0; i < NLANG; i++)
		if (d.lang[i])
			json_object_array_add(langs, dft_jstr(lang_names[i]));
	for (size_t i = 0; i < NFEATURES; i++) {
		int on = features[i].found;

		if (strcmp(features[i].name, "hip") == 0)
			on |= d.hip_file;
		json_object_object_add(feat, features[i].name,
				       json_object_new_boolean(on));
	}
	json_object_object_add(feat, "python",
			       json_object_new_boolean(d.lang[LANG_PYTHON]));
	for (size_t i = 0; i < NFRAMEWORKS; i++)
		if (frameworks[i].found)
			json_object_array_add(ml,
					      dft_jstr(frameworks[i].name));
	json_object_object_add(feat, "ml_frameworks", ml);
	json_object_object_add(sess, "build_tool", dft_jstr(build_tool(src)));
	json_object_object_add(sess, "languages", langs);
	json_object_object_add(sess, "features", feat);
	json_object_object_add(sess, "preset", dft_jstr(
	    json_object_array_length(ml) > 0 ? "dlio" : "posix"));
	free_patterns(features, NFEATURES);
	free_patterns(frameworks, NFRAMEWORKS);
}
