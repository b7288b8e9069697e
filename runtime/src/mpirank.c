/*
 * mpirank.c - the process's rank from MPI itself, for a program that has
 * initialised MPI when its trace starts but was not given a rank by its
 * launcher's environment (a singleton run, a launcher rank_from_env does
 * not know).
 *
 * The runtime does not link MPI: the functions are looked up in the
 * process (dlsym RTLD_DEFAULT), once MPI_Initialized is known to be there:
 * first looked for in every loaded object's own symbol table (GNU hash),
 * as dlsym would, without dlsym's failure path, which mallocs its error
 * record in the application's heap.  MPI_COMM_WORLD is the implementation's own representation,
 * chosen from MPI_Get_library_version: Open MPI's is the address of
 * ompi_mpi_comm_world; the MPICH family's (MPICH, Intel MPI, MVAPICH,
 * Cray MPICH) is the integer 0x44000000 of the MPICH ABI.  Any other
 * library gives no rank rather than a guess.
 */
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdint.h>
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

/* Whether an object defines name (found 1), may (no GNU hash table: 2,
 * dlsym must say), or nothing was found (0: stays 0). */
struct sym_query {
	const char *name;
	uint32_t hash;
	int found;
};

static int sym_in_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct sym_query *q = arg;
	const ElfW(Dyn) *dyn = NULL;
	const uint32_t *gh = NULL;
	const ElfW(Sym) *sym = NULL;
	const char *str = NULL;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
			dyn = (const ElfW(Dyn) *)(info->dlpi_addr +
						  info->dlpi_phdr[i].p_vaddr);
	if (!dyn)
		return 0;
	for (; dyn->d_tag != DT_NULL; dyn++) {
		/* ld.so relocates these in place, but not in a read-only
		 * dynamic section (the vDSO's) */
		ElfW(Addr) a = dyn->d_un.d_ptr;

		if (a < info->dlpi_addr)
			a += info->dlpi_addr;
		if (dyn->d_tag == DT_GNU_HASH)
			gh = (const uint32_t *)a;
		else if (dyn->d_tag == DT_SYMTAB)
			sym = (const ElfW(Sym) *)a;
		else if (dyn->d_tag == DT_STRTAB)
			str = (const char *)a;
	}
	if (!sym || !str)
		return 0;
	if (!gh) {
		q->found = 2;
		return 1;
	}
	{
		uint32_t nb = gh[0], off = gh[1], bsz = gh[2], shift = gh[3];
		const ElfW(Addr) *bloom = (const ElfW(Addr) *)(gh + 4);
		const uint32_t *buckets = (const uint32_t *)(bloom + bsz);
		const uint32_t *chain = buckets + nb;
		const unsigned bits = sizeof(ElfW(Addr)) * 8;
		ElfW(Addr) word, mask;
		uint32_t i;

		if (nb == 0 || bsz == 0)
			return 0;
		word = bloom[(q->hash / bits) % bsz];
		mask = ((ElfW(Addr))1 << (q->hash % bits)) |
		       ((ElfW(Addr))1 << ((q->hash >> shift) % bits));
		if ((word & mask) != mask)
			return 0;
		for (i = buckets[q->hash % nb]; i >= off; i++) {
			uint32_t h = chain[i - off];

			if ((h | 1) == (q->hash | 1) &&
			    sym[i].st_shndx != SHN_UNDEF &&
			    strcmp(str + sym[i].st_name, q->name) == 0) {
				q->found = 1;
				return 1;
			}
			if (h & 1)
				break;
		}
	}
	return 0;
}

/* 0 when no loaded object defines name (dlsym would fail) */
static int defined(const char *name)
{
	struct sym_query q = { name, 5381, 0 };

	for (const char *c = name; *c; c++)
		q.hash = q.hash * 33 + (unsigned char)*c;
	dl_iterate_phdr(sym_in_object, &q);
	return q.found;
}

int dft_mpi_rank(void)
{
	/* without MPI no dlsym at all (its failure mallocs), and at most
	 * one failed lookup when an object has no GNU hash table */
	flag_fn initialized = defined("MPI_Initialized") ?
				      (flag_fn)lookup("MPI_Initialized") :
				      NULL;
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
