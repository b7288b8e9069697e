/*
 * mpi.c - the MPI layer of libdftracer_preload.so: events of cat "MPI"
 * (dftracer's MPI layer, no file) for MPI_Init, MPI_Init_thread and
 * MPI_Finalize and their PMPI_ twins (what Fortran's bindings call),
 * traced whenever MPI-IO is.
 *
 * Only in the preload library: a program linked with libdftracer_core
 * starts tracing after MPI_Init and stops before MPI_Finalize (the
 * annotated main), so it would never trace them; and a definition of
 * MPI_Init in a library linked before libmpi makes an --as-needed link
 * drop libmpi from a program that calls nothing else of it.
 */
#include <errno.h>

#include "internal.h"

/* ---- MPI: initialisation and finalisation ------------------------------- */

/*
 * cat "MPI" (dftracer's MPI layer), traced whenever MPI-IO is (no file).
 * When MPI_Init returns, a trace that has no rank yet (no launcher
 * variable) gets its PR and process_name records.
 */
#define MPI_ON() (DFT_UNLIKELY(dft_on_mpiio) && !dft_guard && !dft_in_mpi)

#define P_INIT (int *argc, char ***argv)
#define MPI_INIT(sym) \
	LIB_WRAP(int, sym, P_INIT); \
	DFT_API int sym P_INIT \
	{ \
		struct dft_region *r; \
		int ret, e; \
		if (!MPI_ON()) \
			return LIB_REAL(sym)(argc, argv); \
		r = dft_span_begin("MPI_Init", "MPI"); \
		ret = MPI_CALL(sym, (argc, argv)); \
		e = errno; \
		{ \
			struct dft_kv kv[] = { KI("ret", ret) }; \
			dft_span_end(r, kv, 1, NULL); \
		} \
		if (ret == 0) \
			dft_rank_late(); \
		errno = e; \
		return ret; \
	}
MPI_INIT(MPI_Init)
MPI_INIT(PMPI_Init)

#define P_INIT_T (int *argc, char ***argv, int required, int *provided)
#define MPI_INIT_THREAD(sym) \
	LIB_WRAP(int, sym, P_INIT_T); \
	DFT_API int sym P_INIT_T \
	{ \
		struct dft_region *r; \
		int ret, e; \
		if (!MPI_ON()) \
			return LIB_REAL(sym)(argc, argv, required, provided); \
		r = dft_span_begin("MPI_Init_thread", "MPI"); \
		ret = MPI_CALL(sym, (argc, argv, required, provided)); \
		e = errno; \
		{ \
			struct dft_kv kv[] = { \
				KI("required", required), \
				KI("provided", provided && ret == 0 ? \
					       *provided : -1), \
				KI("ret", ret) \
			}; \
			dft_span_end(r, kv, 3, NULL); \
		} \
		if (ret == 0) \
			dft_rank_late(); \
		errno = e; \
		return ret; \
	}
MPI_INIT_THREAD(MPI_Init_thread)
MPI_INIT_THREAD(PMPI_Init_thread)

#define MPI_FINALIZE(sym) \
	LIB_WRAP(int, sym, (void)); \
	DFT_API int sym(void) \
	{ \
		if (!MPI_ON()) \
			return LIB_REAL(sym)(); \
		MPI_SPAN(sym, "MPI_Finalize", "MPI", NULL, ()); \
	}
MPI_FINALIZE(MPI_Finalize)
MPI_FINALIZE(PMPI_Finalize)
