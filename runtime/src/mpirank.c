/*
 * mpirank.c - the process's rank from MPI itself, for a program that has
 * initialised MPI when its trace starts but was not given a rank by its
 * launcher's environment (a singleton run, a launcher rank_from_env does
 * not know).
 *
 * The runtime does not link MPI: the functions are looked up in the
 * process (dlsym RTLD_DEFAULT), so a program without MPI pays one failed
 * lookup.  MPI_COMM_WORLD is the implementation's own representation,
 * chosen from MPI_Get_library_version: Open MPI's is the address of
 * ompi_mpi_comm_world; the MPICH family's (MPICH, Intel MPI, MVAPICH,
 * Cray MPICH) is the integer 0x44000000 of the MPICH ABI.  Any other
 * library gives no rank rather than a guess.
 */
#include <dlfcn.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"

#define MPICH_COMM_WORLD 0x44000000

typedef int (*flag_fn)(int *);
typedef int (*version_fn)(char *, int *);
typedef int (*rank_ptr_fn)(void *, int *);
typedef int (*rank_int_fn)(int, int *);

/* A failed dlsym leaves an error record (malloc'd) that libc frees at the
 * thread's next successful dlsym: one now, or that free would happen
 * inside an intercepted call's first lookup of its real function (io.c),
 * where the tracer must not call malloc or free. */
static void *lookup(const char *name)
{
	void *p = dlsym(RTLD_DEFAULT, name);

	if (!p)
		(void)dlsym(RTLD_DEFAULT, "dlsym");
	return p;
}

int dft_mpi_rank(void)
{
	/* without MPI one failed lookup, not four (each a walk of every
	 * loaded object's symbols and an error record) */
	flag_fn initialized = (flag_fn)lookup("MPI_Initialized");
	flag_fn finalized;
	version_fn version;
	void *comm_rank;
	char ver[8192];		/* MPICH's MPI_MAX_LIBRARY_VERSION_STRING */
	int flag = 0, len = 0, rank = -1;

	if (!initialized)
		return -1;
	finalized = (flag_fn)lookup("MPI_Finalized");
	version = (version_fn)lookup("MPI_Get_library_version");
	comm_rank = lookup("MPI_Comm_rank");
	if (!version || !comm_rank)
		return -1;
	/* MPI_Comm_rank is for the thread that initialised MPI, which under
	 * MPI_THREAD_SINGLE or FUNNELED is the main thread */
	if (syscall(SYS_gettid) != getpid())
		return -1;
	if (initialized(&flag) != 0 || !flag)
		return -1;
	if (finalized && (finalized(&flag) != 0 || flag))
		return -1;
	if (version(ver, &len) != 0)
		return -1;
	ver[len > 0 && len < (int)sizeof(ver) ? len : (int)sizeof(ver) - 1] = '\0';
	if (strstr(ver, "Open MPI")) {
		void *world = lookup("ompi_mpi_comm_world");

		if (!world || ((rank_ptr_fn)comm_rank)(world, &rank) != 0)
			return -1;
	} else if (strstr(ver, "MPICH") || strstr(ver, "Intel(R) MPI") ||
		   strstr(ver, "MVAPICH")) {
		if (((rank_int_fn)comm_rank)(MPICH_COMM_WORLD, &rank) != 0)
			return -1;
	} else {
		return -1;
	}
	return rank >= 0 ? rank : -1;
}
