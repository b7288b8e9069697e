/*
 * libsym.c - finding the real functions of the libraries whose calls the
 * runtime interposes beyond libc (libmpi for MPI-IO, libhdf5), and the
 * traced file of a name such a library was given.
 *
 * The runtime links neither library: a wrapper looks its real function up
 * at its first call.  dlsym(RTLD_NEXT) finds it when the library is in the
 * global scope (linked by the program, or dlopen'd RTLD_GLOBAL).  A library
 * loaded with RTLD_LOCAL (Python's extension modules: mpi4py, h5py) is not
 * in that scope, yet its callers bind to the wrapper, which comes first;
 * then every loaded object is asked in turn (dlopen RTLD_NOLOAD, which
 * loads nothing) for a definition that is not this library's own.
 *
 * Does not: load a library, or cache anything (the wrappers keep what
 * they found).
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

#define DFT_MAX_OBJS 512

struct objs {
	char *name[DFT_MAX_OBJS];
	int n;
};

static int collect(struct dl_phdr_info *info, size_t size, void *data)
{
	struct objs *o = data;

	(void)size;
	if (info->dlpi_name && *info->dlpi_name && o->n < DFT_MAX_OBJS)
		o->name[o->n] = strdup(info->dlpi_name);
	if (o->n < DFT_MAX_OBJS && o->name[o->n])
		o->n++;
	return 0;
}

void *dft_lib_sym(const char *name)
{
	void *p = dlsym(RTLD_NEXT, name);
	Dl_info self, at;
	struct objs *o;
	int i;

	if (p)
		return p;
	if (!dladdr((void *)dft_lib_sym, &self))
		return NULL;
	o = calloc(1, sizeof(*o));
	if (!o)
		return NULL;
	/* names first: dlopen is not for inside dl_iterate_phdr's lock */
	dl_iterate_phdr(collect, o);
	for (i = 0; i < o->n && !p; i++) {
		void *h = dlopen(o->name[i], RTLD_LAZY | RTLD_NOLOAD);

		if (!h)
			continue;
		p = dlsym(h, name);
		if (p && dladdr(p, &at) && at.dli_fbase == self.dli_fbase)
			p = NULL;	/* our own wrapper */
		dlclose(h);
	}
	for (i = 0; i < o->n; i++)
		free(o->name[i]);
	free(o);
	return p;
}

void *dft_lib_sym_must(const char *name)
{
	void *p = dft_lib_sym(name);

	if (!p) {
		static const char msg[] = "dftracer: cannot find the real ";

		dft_guard++;
		(void)!write(2, msg, sizeof(msg) - 1);
		(void)!write(2, name, strlen(name));
		(void)!write(2, "\n", 1);
		abort();
	}
	return p;
}

/* ROMIO's file-system prefixes ("ufs:/x/y"); Open MPI's ompio takes them
 * too.  A name that only looks like one ("notes:1") is a relative path. */
static const char *strip_fs_prefix(const char *path)
{
	static const char *const fs[] = {
		"ufs:", "nfs:", "lustre:", "gpfs:", "pvfs2:", "panfs:", "xfs:",
		"daos:", "unify:", "quobyte:", "ime:", "testfs:", "beegfs:",
	};
	size_t i;

	for (i = 0; i < sizeof(fs) / sizeof(*fs); i++)
		if (strncmp(path, fs[i], strlen(fs[i])) == 0)
			return path + strlen(fs[i]);
	return path;
}

struct dft_file *dft_layer_file(const char *path)
{
	struct dft_file *f;

	if (!path || dft_guard)
		return NULL;
	dft_guard++;
	f = dft_path_file(AT_FDCWD, strip_fs_prefix(path));
	dft_guard--;
	return f;
}
