/*
 * config.c - the bundled runtime's configuration: the DFTRACER_*
 * environment, the command line and the rank the launcher gave.  Read once
 * at initialisation (dft_init, core.c) into the state G.
 */
#include <ctype.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../include/dftracer/dftracer.h"
#include "internal.h"
#include "core.h"

/* ---- configuration ------------------------------------------------------ */

/*
 * INIT reads some 50 variables (DFTRACER_*, the launchers' ranks).  getenv
 * scans the whole environment for each, ~20,000 instructions with the 40
 * to 60 entries of a shell's; instead one pass over environ (env_take)
 * keeps the entries that can be one of them, and env_get looks among
 * those, the first of a name winning as with getenv.  Only for the rest of
 * that INIT (env_drop): the program may change its environment after.
 */
#define DFT_ENV_KEPT 64
static const char *env_kept[DFT_ENV_KEPT];
static unsigned env_klen[DFT_ENV_KEPT];	/* its name's length */
static int env_nkept = -1;	/* -1: no pass taken, getenv */

#define DFT_RANK_VAR(s) { s, sizeof(s) - 1 }
static const struct {
	const char *name;
	size_t len;
} rank_vars[] = {
	DFT_RANK_VAR("OMPI_COMM_WORLD_RANK"), DFT_RANK_VAR("PMI_RANK"),
	DFT_RANK_VAR("PMIX_RANK"), DFT_RANK_VAR("MV2_COMM_WORLD_RANK"),
	DFT_RANK_VAR("MPI_RANKID"), DFT_RANK_VAR("PALS_RANKID"),
	DFT_RANK_VAR("ALPS_APP_PE"), DFT_RANK_VAR("JSM_NAMESPACE_RANK"),
	DFT_RANK_VAR("FLUX_TASK_RANK"), DFT_RANK_VAR("SLURM_PROCID"),
};

/* s ("NAME=value") may be a variable INIT reads: DFTRACER_*, or a rank
 * variable (the first letter tells most entries apart) */
static int env_wanted(const char *s)
{
	switch (s[0]) {
	case 'D':
		return strncmp(s, "DFTRACER_", 9) == 0;
	case 'A': case 'F': case 'J': case 'M': case 'O': case 'P': case 'S':
		break;
	default:
		return 0;
	}
	for (size_t i = 0; i < sizeof(rank_vars) / sizeof(*rank_vars); i++)
		if (s[0] == rank_vars[i].name[0] &&
		    strncmp(s, rank_vars[i].name, rank_vars[i].len) == 0 &&
		    s[rank_vars[i].len] == '=')
			return 1;
	return 0;
}

void env_take(void)
{
	extern char **environ;
	int k = 0;

	for (char **e = environ; e && *e; e++) {
		const char *s = *e, *eq;

		if (!env_wanted(s))
			continue;
		if (k == DFT_ENV_KEPT) {	/* more than expected: getenv */
			env_nkept = -1;
			return;
		}
		eq = strchr(s, '=');
		env_kept[k] = s;
		env_klen[k++] = eq ? (unsigned)(eq - s) : (unsigned)strlen(s);
	}
	env_nkept = k;
}

void env_drop(void)
{
	env_nkept = -1;
}

const char *env_get(const char *name)
{
	size_t l;

	if (env_nkept < 0)
		return getenv(name);
	l = strlen(name);
	for (int i = 0; i < env_nkept; i++)
		if (env_klen[i] == l && memcmp(env_kept[i], name, l) == 0 &&
		    env_kept[i][l] == '=')
			return env_kept[i] + l + 1;
	return NULL;
}

/* DFTRACER_DATA_DIR ("a:b", or "all") into the packed list that
 * dft_dir_match reads; entries made absolute against the working directory
 * and normalised.  A replaced list is never freed: another thread's
 * intercepted call may still be reading it. */
static void parse_dirs(const char *s)
{
	char *cwd = atomic_load(&dft_hot.cwd)->path;
	char *block = NULL;
	size_t need = 0;

	dft_hot.all = 0;
	if (!s || !*s) {
		atomic_store_explicit(&dft_hot.dirs, NULL, memory_order_release);
		return;
	}
	if (strcmp(s, "all") == 0) {
		dft_hot.all = 1;
		return;
	}
	/* two passes, the size then the entries, into the hot page (or the
	 * tracer's own memory): no malloc, which would leave a chunk freed
	 * in the application's heap at INIT (see store_inline, writer.c) */
	for (int pass = 0; pass < 2; pass++) {
		const char *p = s;
		size_t used = 0;

		while (*p) {
			const char *e = strchr(p, ':');
			size_t l = e ? (size_t)(e - p) : strlen(p);
			char one[DFT_PATH], abs[DFT_PATH];
			size_t n;

			if (l > 0 && l < sizeof(one)) {
				memcpy(one, p, l);
				one[l] = '\0';
				if (strcmp(one, "all") == 0)
					dft_hot.all = 1;
				n = norm_path(cwd, one, abs, sizeof(abs));
				if (n > 0) {
					if (block) {
						struct dft_dir *d =
							(struct dft_dir *)(block + used);

						d->len = (unsigned)n;
						memcpy(d->path, abs, n + 1);
					}
					used += DFT_DIR_SIZE(n);
				}
			}
			p += l;
			if (*p == ':')
				p++;
		}
		if (pass == 0) {
			if (used == 0)
				break;
			need = used + DFT_DIR_SIZE(0);	/* the end marker */
			if (!(block = dft_hot_alloc(need)))
				break;
		} else {
			struct dft_dir *d = (struct dft_dir *)(block + used);

			d->len = 0;
			d->path[0] = '\0';
		}
	}
	atomic_store_explicit(&dft_hot.dirs, (const struct dft_dir *)block,
			      memory_order_release);
}

static void warn_unsupported(void)
{
	static const char *const names[] = {
		"DFTRACER_CONFIGURATION", "DFTRACER_ENABLE_AGGREGATION",
		"DFTRACER_AGGREGATION_TYPE", "DFTRACER_AGGREGATION_FILE",
		"DFTRACER_SET_CORE_AFFINITY", "DFTRACER_ENABLE_PAPI_TRACING",
		"DFTRACER_PAPI_EVENTS", "DFTRACER_TIME_METRIC",
		"DFTRACER_ERROR", "DFTRACER_ENABLE_FTRACING",
	};
	char list[512] = "";
	size_t i;

	if (G.warned)
		return;
	G.warned = 1;
	for (i = 0; i < sizeof(names) / sizeof(*names); i++) {
		const char *v = env_get(names[i]);

		if (!v || !*v || strcmp(v, "0") == 0)
			continue;
		if (strcmp(names[i], "DFTRACER_TIME_METRIC") == 0 &&
		    strcmp(v, "US") == 0)
			continue;
		if (strlen(list) + strlen(names[i]) + 3 < sizeof(list)) {
			if (*list)
				strcat(list, ", ");
			strcat(list, names[i]);
		}
	}
	if (*list) {
		char msg[700];
		int n = snprintf(msg, sizeof(msg),
				 "dftracer: warning: the dft bundled runtime "
				 "ignores %s (not supported; see "
				 "dftracer-runtime(7))\n", list);

		write_all(2, msg, (size_t)n);
	}
}

/* a non-negative integer variable, or def when unset or not a number */
static uint64_t env_u64(const char *name, uint64_t def)
{
	const char *v = env_get(name);
	char *end;
	unsigned long long n;

	if (!v || !*v)
		return def;
	n = strtoull(v, &end, 10);
	if (*end != '\0' || *v == '-') {
		rt_msg(LOG_ERROR, "ignoring %s=%s", name, v);
		return def;
	}
	return n;
}

void read_config(const char *data_dirs)
{
	const char *v;

	v = env_get("DFTRACER_LOG_LEVEL");
	G.log_level = LOG_ERROR;
	if (v) {
		if (strcasecmp(v, "WARN") == 0 || strcasecmp(v, "WARNING") == 0)
			G.log_level = LOG_WARN;
		else if (strcasecmp(v, "INFO") == 0)
			G.log_level = LOG_INFO;
		else if (strcasecmp(v, "DEBUG") == 0)
			G.log_level = LOG_DEBUG;
	}
	G.metadata = env_is("DFTRACER_INC_METADATA", "1");
	G.compress = !env_is("DFTRACER_TRACE_COMPRESSION", "0");
	G.io = !env_is("DFTRACER_DISABLE_IO", "1");
	G.posix = !env_is("DFTRACER_DISABLE_POSIX", "1");
	G.stdio = !env_is("DFTRACER_DISABLE_STDIO", "1");
	G.mpiio = !env_is("DFTRACER_DISABLE_MPIIO", "1");
	G.hdf5 = !env_is("DFTRACER_DISABLE_HDF5", "1");
	/* dftracer's quirk: "0" disables tids; "1" does too. */
	G.tids = !(env_is("DFTRACER_DISABLE_TIDS", "0") ||
		   env_is("DFTRACER_DISABLE_TIDS", "1"));
	G.bind_signals = env_is("DFTRACER_BIND_SIGNALS", "1");
	G.term_signals = !env_is("DFTRACER_BIND_SIGNALS", "0");
	G.bufsize = 16u << 20;
	v = env_get("DFTRACER_WRITE_BUFFER_SIZE");
	if (v && *v) {
		char *end;
		unsigned long long n = strtoull(v, &end, 10);

		if (*end == '\0')
			G.bufsize = n > (1ull << 30) ? (1u << 30) : (size_t)n;
		else
			rt_msg(LOG_ERROR, "ignoring DFTRACER_WRITE_BUFFER_SIZE=%s",
			       v);
	}
	G.throttle_calls = env_u64("DFTRACER_THROTTLE_CALLS", 1000);
	G.throttle_us = env_u64("DFTRACER_THROTTLE_US", 10);
	G.throttle_early = env_u64("DFTRACER_THROTTLE_EARLY",
				   DFT_THROTTLE_EARLY);
	/* the early rule decides below the limit only */
	if (G.throttle_early >= G.throttle_calls)
		G.throttle_early = 0;
	G.throttle_io = !env_is("DFTRACER_THROTTLE_IO", "0");
	dft_tick_init(!env_is("DFTRACER_TSC", "0"));
	G.interval_us = env_u64("DFTRACER_TRACE_INTERVAL_MS", 1000) * 1000;
	if (G.interval_us == 0)
		G.interval_us = 1000000;
	if (!data_dirs)
		data_dirs = env_get("DFTRACER_DATA_DIR");
	parse_dirs(data_dirs);
	warn_unsupported();
}

/*
 * The command line's bytes, where the kernel put them: glibc passes argc
 * and argv to a library's constructors (at start-up and at dlopen alike),
 * and the strings argv[0] .. argv[argc - 1] lie one after another, the
 * span /proc/self/cmdline reads.  Kept as a span, read at INIT: the
 * program may have reordered argv's pointers by then (getopt), not the
 * bytes.  Reading them there, not /proc/self/cmdline, spares INIT four
 * system calls (~30 us, a procfs open among them).
 */
static const char *args_lo, *args_hi;

__attribute__((constructor)) static void save_args(int argc, char **argv)
{
	if (argc > 0 && argv && argv[0] && argv[argc - 1] &&
	    argv[argc - 1] >= argv[0]) {
		args_lo = argv[0];
		args_hi = argv[argc - 1] + strlen(argv[argc - 1]) + 1;
	}
}

/* argv from the span above (or /proc/self/cmdline, without it): cmd =
 * argv joined by ';' for SH, and dftracer's exec name (first argument,
 * except the last, that does not start with '-' and contains neither
 * "python" nor "env"; else DEFAULT). */
void read_cmdline(void)
{
	char buf[DFT_PATH];
	ssize_t n = 0, r;
	char *args[256];
	int argc = 0, i;
	size_t k = 0;

	strcpy(G.exec_name, "DEFAULT");
	G.cmd[0] = '\0';
	if (args_lo && args_hi > args_lo) {
		n = args_hi - args_lo < (ptrdiff_t)sizeof(buf) ?
			    args_hi - args_lo : (ssize_t)sizeof(buf) - 1;
		memcpy(buf, args_lo, (size_t)n);
	} else {
		int fd = (int)syscall(SYS_openat, AT_FDCWD,
				      "/proc/self/cmdline",
				      O_RDONLY | O_CLOEXEC);

		if (fd < 0)
			return;
		while ((r = syscall(SYS_read, fd, buf + n,
				    sizeof(buf) - 1 - (size_t)n)) > 0)
			n += r;
		syscall(SYS_close, fd);
	}
	buf[n] = '\0';
	for (ssize_t p = 0; p < n && argc < 256; p += (ssize_t)strlen(buf + p) + 1)
		args[argc++] = buf + p;
	for (i = 0; i < argc; i++) {
		size_t l = strlen(args[i]);

		if (k + l + 2 >= sizeof(G.cmd))
			break;
		if (i > 0)
			G.cmd[k++] = ';';
		memcpy(G.cmd + k, args[i], l);
		k += l;
		G.cmd[k] = '\0';
	}
	for (i = 0; i + 1 < argc; i++) {
		const char *a = args[i], *b;

		if (a[0] == '-' || strstr(a, "python") || strstr(a, "env"))
			continue;
		b = strrchr(a, '/');
		b = b ? b + 1 : a;
		snprintf(G.exec_name, sizeof(G.exec_name), "%s", b);
		break;
	}
}

/* The rank the launcher gave this process: MPI launchers' variables
 * first, then the task rank of schedulers' launchers (srun, flux run,
 * Cray PALS and ALPS, LSF jsrun), which non-MPI tasks get too. */
void rank_from_env(void)
{
	size_t i;

	G.rank = -1;
	for (i = 0; i < sizeof(rank_vars) / sizeof(*rank_vars); i++) {
		const char *v = env_get(rank_vars[i].name);

		if (v && *v && isdigit((unsigned char)*v)) {
			G.rank = atoi(v);
			return;
		}
	}
}
