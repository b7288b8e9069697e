/*
 * require.c - whether this machine and application meet one "requires"
 * entry of a catalogue action (dft-papers --plan), and if not, why.
 *
 * Application facts come from the trace of the accepted configuration:
 * the first summary record of its analysis (the interfaces and functions
 * the traced run called), never from the source.  Machine facts are the
 * --fact values the pipeline gathered with commands (findmnt, stat -f,
 * uname, command -v); the names are fact_names below, man dft-papers(1).
 *
 * It does not run commands, read the machine or decide anything but one
 * requirement; plan.c does the rest.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "papers.h"

const char *const fact_names[F_N] = {
	[F_DATA_DIR] = "data_dir",
	[F_LOCAL_DIR] = "local_dir",
	[F_PHYSICAL_CORES] = "physical_cores",
	[F_TUNE_LIB] = "tune_lib",
	[F_WORK_DIR] = "work_dir",
	[F_ENV_SCRIPT] = "env_script",
	[F_OS] = "os",
	[F_FS] = "fs",
	[F_FS_TYPE] = "fs_type",
	[F_NUMACTL] = "numactl",
	[F_NUMA_NODES] = "numa_nodes",
	[F_MPI] = "mpi",
	[F_OPENMP] = "openmp",
	[F_MPI_IO] = "mpi_io",
};

int
facts_set(struct facts *f, const char *arg)
{
	const char *eq = strchr(arg, '=');

	if (eq == NULL)
		return -1;
	for (int i = 0; i < F_N; i++)
		if (strlen(fact_names[i]) == (size_t)(eq - arg) &&
		    strncmp(fact_names[i], arg, (size_t)(eq - arg)) == 0) {
			f->v[i] = eq + 1;
			return 0;
		}
	return -1;
}

const char *
fact(const struct facts *f, enum fact k)
{
	return f->v[k] != NULL ? f->v[k] : "";
}

/* A whole number as test(1) reads it, else 0. */
static long
whole(json_object *o)
{
	if (o == NULL)
		return 0;
	if (json_object_is_type(o, json_type_int))
		return (long)json_object_get_int64(o);
	if (json_object_is_type(o, json_type_double)) {
		double d = json_object_get_double(o);

		return d == (double)(long)d ? (long)d : 0;
	}
	if (json_object_is_type(o, json_type_string)) {
		long v;

		if (dft_parse_long(json_object_get_string(o), -2147483647L,
				   2147483647L, &v) == 0)
			return v;
	}
	return 0;
}

static int
in_words(const char *w, const char *words)
{
	size_t n = strlen(w);

	for (const char *p = words; *p != '\0';) {
		size_t m = strcspn(p, " ");

		if (m == n && strncmp(p, w, n) == 0)
			return 1;
		p += m;
		p += strspn(p, " ");
	}
	return 0;
}

/*
 * How many calls the trace made of the functions NAMES (space-separated)
 * of category CAT, counting a function only when its mean transfer is
 * under maxavg bytes (0: any size).
 */
static int64_t
trace_calls(const struct facts *f, const char *cat, const char *names,
	    double maxavg)
{
	json_object *fns = NULL;
	int64_t n = 0;

	if (f->summary == NULL ||
	    !json_object_object_get_ex(f->summary, "functions", &fns) ||
	    !json_object_is_type(fns, json_type_array))
		return 0;
	for (size_t i = 0; i < json_object_array_length(fns); i++) {
		json_object *fn = json_object_array_get_idx(fns, i);
		const char *c = dft_json_str(fn, "cat", NULL);
		const char *name = dft_json_str(fn, "name", NULL);
		double count = dft_json_double(fn, "count", 0);
		double bytes = dft_json_double(fn, "bytes", 0);

		if (c == NULL || name == NULL || strcasecmp(c, cat) != 0 ||
		    !in_words(name, names))
			continue;
		if (maxavg == 0 || count == 0 || bytes / count < maxavg)
			n += (int64_t)count;
	}
	return n;
}

static long
interface_count(const struct facts *f, const char *path)
{
	return f->summary != NULL ? whole(dft_json_path(f->summary, path)) : 0;
}

static int
prefix(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

/* The data directory's file system writes a file's data before its new
 * size: ext4 or ext3 but not data=writeback, xfs, btrfs. */
static char *
ordered_fs(const struct facts *f)
{
	const char *fm = fact(f, F_FS);

	if ((prefix(fm, "ext4") || prefix(fm, "ext3")) &&
	    strstr(fm, "data=writeback") != NULL)
		;
	else if (prefix(fm, "ext4") || prefix(fm, "ext3") ||
		 prefix(fm, "xfs") || prefix(fm, "btrfs"))
		return NULL;
	return dft_xasprintf("the data directory's file system (%.*s) may "
			     "make a new size durable before its data",
			     (int)strcspn(fm, " "), fm);
}

/*
 * ROMIO, for the actions that pass hints through ROMIO_HINTS: the MPI-IO
 * of the MPICH family, and in Open MPI one of its io components beside
 * the default ompio, which ignores ROMIO_HINTS (the actions select it
 * with OMPI_MCA_io=^ompio).  mpi_io is the io components ompi_info
 * lists.  NULL when met (*found: what was found), else why not.
 */
static char *
romio_unmet(const struct facts *f, char **found)
{
	const char *mpi = fact(f, F_MPI), *io = fact(f, F_MPI_IO), *c;

	if (strcmp(mpi, "MPICH") == 0 || strcmp(mpi, "MVAPICH") == 0) {
		*found = dft_xasprintf("ROMIO: the MPI-IO of %s", mpi);
		return NULL;
	}
	if (strcmp(mpi, "Open MPI") != 0)
		return *mpi == '\0' ?
		       dft_xstrdup("no MPI library was found, so no ROMIO") :
		       dft_xasprintf("the MPI (%s) is not known to have ROMIO",
				     mpi);
	for (c = io; (c = strstr(c, "romio")) != NULL; c++)
		if (c == io || c[-1] == ' ') {
			*found = dft_xasprintf("ROMIO: Open MPI's %.*s io "
					       "component, selected over ompio "
					       "with OMPI_MCA_io=^ompio",
					       (int)strcspn(c, " "), c);
			return NULL;
		}
	return dft_xasprintf("Open MPI without a romio io component (ompi_info "
			     "lists: %s), and its ompio ignores ROMIO_HINTS",
			     *io != '\0' ? io : "none");
}

/*
 * ompio, for the actions that set its MCA parameters (OMPI_MCA_io_ompio_*,
 * OMPI_MCA_fcoll): Open MPI's own io component, which the actions select
 * with OMPI_MCA_io=ompio (over a romio component an earlier action
 * chose).  NULL when met (*found: what was found), else why not.
 */
static char *
ompio_unmet(const struct facts *f, char **found)
{
	const char *mpi = fact(f, F_MPI), *io = fact(f, F_MPI_IO);

	if (strcmp(mpi, "Open MPI") != 0)
		return *mpi == '\0' ?
		       dft_xstrdup("no MPI library was found, so no ompio") :
		       dft_xasprintf("the MPI (%s) has no ompio: its MPI-IO "
				     "ignores Open MPI's MCA parameters", mpi);
	if (in_words("ompio", io)) {
		*found = dft_xstrdup("ompio: Open MPI's ompio io component, "
				     "selected with OMPI_MCA_io=ompio");
		return NULL;
	}
	return dft_xasprintf("Open MPI without an ompio io component "
			     "(ompi_info lists: %s)", *io != '\0' ? io : "none");
}

/* The MPI-IO implementation an mpi-io requirement names: romio_unmet or
 * ompio_unmet, NULL for any MPI-IO. */
static char *(*impl_check(const char *r))(const struct facts *, char **)
{
	if (strstr(r, "ROMIO") != NULL)
		return romio_unmet;
	if (strstr(r, "ompio") != NULL)
		return ompio_unmet;
	return NULL;
}

char *
requirement_found(const struct facts *f, const char *r)
{
	char *found = NULL, *why;
	char *(*check)(const struct facts *, char **);

	if (!(prefix(r, "mpi-io") || prefix(r, "MPI-IO")) ||
	    (check = impl_check(r)) == NULL)
		return NULL;
	if ((why = requirement_unmet(f, r)) != NULL) {
		free(why);
		return NULL;
	}
	why = check(f, &found);
	free(why);
	return found;
}

char *
requirement_unmet(const struct facts *f, const char *r)
{
	long n, m;

	if (strcmp(r, "the dft tuning library") == 0)
		return *fact(f, F_TUNE_LIB) != '\0' ? NULL :
		       dft_xstrdup("the dft tuning library (libdft_tune.so) "
				   "is not built: make");
	if (strcmp(r, "small POSIX write() calls in the trace") == 0)
		return trace_calls(f, "POSIX", "write pwrite pwrite64",
				   65536) > 0 ? NULL :
		       dft_xstrdup("the trace has no POSIX write() calls "
				   "under 64 KiB");
	if (strcmp(r, "small POSIX read() calls in the trace") == 0)
		return trace_calls(f, "POSIX", "read pread pread64",
				   65536) > 0 ? NULL :
		       dft_xstrdup("the trace has no POSIX read() calls "
				   "under 64 KiB");
	if (strcmp(r, "POSIX read() calls in the trace") == 0)
		return trace_calls(f, "POSIX", "read pread pread64 readv",
				   0) > 0 ? NULL :
		       dft_xstrdup("the trace has no POSIX read() calls");
	if (strcmp(r, "STDIO calls in the trace") == 0)
		return trace_calls(f, "STDIO", "fopen fopen64 fwrite fread "
				   "fprintf fputs fgets", 0) > 0 ? NULL :
		       dft_xstrdup("the trace has no STDIO calls");
	if (strcmp(r, "fopen and small fwrite calls in the trace") == 0)
		return trace_calls(f, "STDIO", "fopen fopen64", 0) > 0 &&
		       trace_calls(f, "STDIO", "fwrite fputs fprintf fputc "
				   "putc", 65536) > 0 ? NULL :
		       dft_xstrdup("the trace has no fopen with fwrite calls "
				   "under 64 KiB");
	if (strcmp(r, "open and read calls in the trace") == 0)
		return trace_calls(f, "POSIX", "open open64 openat openat64",
				   0) > 0 &&
		       trace_calls(f, "POSIX", "read pread pread64", 0) > 0 ?
		       NULL :
		       dft_xstrdup("the trace has no open() with read() "
				   "calls");
	if (prefix(r, "a data directory whose file system writes the data "
		   "before the new size"))
		return ordered_fs(f);
	if (strcmp(r, "fsync calls in the trace") == 0)
		return trace_calls(f, "POSIX", "fsync", 0) > 0 ? NULL :
		       dft_xstrdup("the trace has no fsync calls");
	if (strcmp(r, "Linux") == 0)
		return strcmp(fact(f, F_OS), "Linux") == 0 ? NULL :
		       dft_xstrdup("this is not Linux");
	if (prefix(r, "lustre"))
		return strstr(fact(f, F_FS_TYPE), "lustre") != NULL ? NULL :
		       dft_xstrdup("the data directory is not on Lustre");
	if (prefix(r, "mpi-io") || prefix(r, "MPI-IO")) {
		/* the trace's MPI-IO layer as dft-analyze counts it: MPIIO
		 * calls, and HDF5 files opened over MPI-IO (H5Pset_fapl_mpio);
		 * never the source: IOR has an MPI-IO backend that a -a POSIX
		 * run never calls, and h5bench's MPI-IO happens inside HDF5 */
		n = interface_count(f, "interfaces.mpiio.count");
		m = interface_count(f, "interfaces.hdf5.over_mpiio");
		if (n <= 0 && m <= 0)
			return dft_xstrdup("the traced run made no MPI-IO calls");
		char *(*check)(const struct facts *, char **) = impl_check(r);

		if (check != NULL) {
			char *found = NULL, *why = check(f, &found);

			free(found);
			return why;
		}
		return NULL;
	}
	if (prefix(r, "hdf5") || prefix(r, "HDF5")) {
		/* the trace's HDF5 layer first; the library's features
		 * cannot be checked here */
		if (interface_count(f, "interfaces.hdf5.count") <= 0)
			return dft_xstrdup("the traced run made no HDF5 calls");
		return dft_xasprintf("cannot check here: %s", r);
	}
	if (prefix(r, "MPICH"))
		return strcmp(fact(f, F_MPI), "MPICH") == 0 ? NULL :
		       dft_xstrdup("the MPI is not MPICH");
	if (prefix(r, "OpenMP"))
		return strcmp(fact(f, F_OPENMP), "true") == 0 ? NULL :
		       dft_xstrdup("the application does not use OpenMP");
	if (strcmp(r, "numactl") == 0)
		return *fact(f, F_NUMACTL) != '\0' ? NULL :
		       dft_xstrdup("numactl is not installed");
	if (strcmp(r, "more than one NUMA node") == 0) {
		if (dft_parse_long(fact(f, F_NUMA_NODES), 0, 1L << 20, &n) ==
		    0 && n > 1)
			return NULL;
		return dft_xstrdup("this machine has one NUMA node");
	}
	return dft_xasprintf("cannot check here: %s", r);
}
