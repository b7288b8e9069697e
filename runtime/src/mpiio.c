/*
 * mpiio.c - MPI-IO interception: events of cat "MPIIO", one per call of
 * MPI_File_open/close, the read/write family (_at, _all, _at_all,
 * _shared, _ordered and the nonblocking i* forms), set_view, sync and
 * set_size, on a file under DFTRACER_DATA_DIR.
 *
 * Each wrapper is an exported definition of the MPI symbol; the real one
 * is libmpi's, found at the first call (libsym.c).  The runtime does not
 * link libmpi and includes no mpi.h: a program without MPI never calls
 * these and pays nothing, and the runtime builds where MPI is absent.
 *
 * The handle types are Open MPI's ABI, declared here as opaque pointers:
 * MPI_Comm, MPI_Info, MPI_File, MPI_Datatype and MPI_Request are all
 * pointers to incomplete structs, MPI_Offset is long long, and MPI_Status
 * is only passed by address.  (MPICH's integer handles travel in the same
 * registers and 8-byte stack slots on x86-64 and aarch64, so passing them
 * through works as well, but only Open MPI is tested.)
 *
 * The event is open while the real call runs (dft_span_begin), so the
 * POSIX calls MPI-IO makes are traced as POSIX events with it as their
 * parent; the tracer's own work runs under the guard and is never traced.
 * Sizes: args.size = count * MPI_Type_size(datatype), as the call asked,
 * not what the status says was done.
 *
 * Does not: trace the split collectives (_begin/_end), MPI_File_seek,
 * preallocate or the info calls, Fortran's bindings (Open MPI's call
 * PMPI_* directly), or MPI itself.  (The rank: the launcher's variables
 * or mpirank.c when the trace starts; a trace that began before MPI_Init
 * with neither gets its PR record at the first MPI_File_open.)
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

typedef struct dft_mpi_comm *mpi_comm;
typedef struct dft_mpi_info *mpi_info;
typedef struct dft_mpi_file *mpi_file;
typedef struct dft_mpi_datatype *mpi_datatype;
typedef struct dft_mpi_request *mpi_request;
typedef struct dft_mpi_status mpi_status;
typedef long long mpi_offset;

/* ---- helpers ------------------------------------------------------------ */

/* An int that the MPI function called name (PMPI_Type_size, PMPI_Comm_size:
 * PMPI_, so a profiling layer between is not asked) gives for handle h,
 * or -1; *fn keeps the function found. */
static long long mpi_query(int (**fn)(void *, int *), const char *name,
			   void *h)
{
	int n = 0;

	dft_guard++;
	if (!*fn)
		*(void **)fn = dft_lib_sym(name);
	if (!*fn || (*fn)(h, &n) != 0)
		n = -1;
	dft_guard--;
	return n;
}

static int (*type_size_fn)(void *, int *), (*comm_size_fn)(void *, int *);
#define type_size(d) mpi_query(&type_size_fn, "PMPI_Type_size", (d))
#define comm_size(c) mpi_query(&comm_size_fn, "PMPI_Comm_size", (c))

/* ---- open files: handle -> traced file ---------------------------------- */

struct fh_ent {
	mpi_file fh;
	struct dft_file *f;
};

static struct {
	pthread_mutex_t lock;
	struct fh_ent *e;
	size_t n, cap;
} FH = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void fh_put(mpi_file fh, struct dft_file *f)
{
	pthread_mutex_lock(&FH.lock);
	if (FH.n == FH.cap) {
		size_t cap = FH.cap ? FH.cap * 2 : 16;
		struct fh_ent *e = realloc(FH.e, cap * sizeof(*e));

		if (!e) {
			pthread_mutex_unlock(&FH.lock);
			return;
		}
		FH.e = e;
		FH.cap = cap;
	}
	FH.e[FH.n].fh = fh;
	FH.e[FH.n].f = f;
	FH.n++;
	pthread_mutex_unlock(&FH.lock);
}

/* the traced file of fh, or NULL; del: forget it (close) */
static struct dft_file *fh_get(mpi_file fh, int del)
{
	struct dft_file *f = NULL;
	size_t i;

	pthread_mutex_lock(&FH.lock);
	for (i = FH.n; i-- > 0;)
		if (FH.e[i].fh == fh) {
			f = FH.e[i].f;
			if (del)
				FH.e[i] = FH.e[--FH.n];
			break;
		}
	pthread_mutex_unlock(&FH.lock);
	return f;
}

/* one load and a branch while not tracing MPI-IO */
#define MPI_TRACED(fh, f) \
	(DFT_UNLIKELY(dft_on_mpiio) && !dft_guard && ((f) = fh_get((fh), 0)))

/* ---- open, close -------------------------------------------------------- */

LIB_WRAP(int, MPI_File_open, (mpi_comm comm, const char *filename, int amode,
			       mpi_info info, mpi_file *fh));

DFT_API int MPI_File_open(mpi_comm comm, const char *filename, int amode,
			  mpi_info info, mpi_file *fh)
{
	struct dft_region *r;
	struct dft_file *f;
	int ret, e;

	if (DFT_LIKELY(!dft_on_mpiio) || dft_guard ||
	    !(f = dft_layer_file(filename)))
		return LIB_REAL(MPI_File_open)(comm, filename, amode, info, fh);
	dft_rank_late();
	r = dft_span_begin("MPI_File_open", "MPIIO");
	ret = LIB_REAL(MPI_File_open)(comm, filename, amode, info, fh);
	e = errno;
	if (ret == 0 && fh)
		fh_put(*fh, f);
	{
		struct dft_kv kv[] = { KI("amode", amode),
				       KI("comm_size", comm_size(comm)),
				       KI("ret", ret) };

		dft_span_end(r, kv, 3, f);
	}
	errno = e;
	return ret;
}

LIB_WRAP(int, MPI_File_close, (mpi_file *fh));

DFT_API int MPI_File_close(mpi_file *fh)
{
	struct dft_file *f;

	if (!fh)
		return LIB_REAL(MPI_File_close)(fh);
	if (DFT_LIKELY(!dft_on_mpiio) || dft_guard) {
		if (FH.n)	/* opened while tracing: forget it all the same */
			fh_get(*fh, 1);
		return LIB_REAL(MPI_File_close)(fh);
	}
	if (!(f = fh_get(*fh, 1)))
		return LIB_REAL(MPI_File_close)(fh);
	LIB_SPAN(int, MPI_File_close, "MPIIO", f, (fh));
}

/* ---- reads and writes --------------------------------------------------- */

/* Ends a data call's span: count, dtype_size, size, [offset], collective,
 * nonblocking, ret (MPIIO-EVENTS order). */
static void rw_end(struct dft_region *r, struct dft_file *f, int count,
		   mpi_datatype dtype, int has_off, mpi_offset off, int coll,
		   int nb, int ret)
{
	long long ts = type_size(dtype);
	long long size = ts >= 0 ? (long long)count * ts : -1;
	struct dft_kv kv[] = {
		KI("count", count), KI("dtype_size", ts), KI("size", size),
		KI("offset", off), KI("collective", coll),
		KI("nonblocking", nb), KI("ret", ret),
	};

	if (has_off) {
		dft_span_end(r, kv, 7, f);
	} else {
		kv[3] = kv[4];
		kv[4] = kv[5];
		kv[5] = kv[6];
		dft_span_end(r, kv, 6, f);
	}
}

/*
 * One wrapper: sym with parameters params and the argument list args;
 * OFF is the offset argument or 0, HAS_OFF whether there is one, COLL and
 * NB the collective and nonblocking flags of the form.
 */
#define MPI_RW(sym, params, args, HAS_OFF, OFF, COLL, NB) \
	LIB_WRAP(int, sym, params); \
	DFT_API int sym params \
	{ \
		struct dft_region *r; \
		struct dft_file *f; \
		int ret, e; \
		if (!MPI_TRACED(fh, f)) \
			return LIB_REAL(sym) args; \
		r = dft_span_begin(#sym, "MPIIO"); \
		ret = LIB_REAL(sym) args; \
		e = errno; \
		rw_end(r, f, count, datatype, HAS_OFF, OFF, COLL, NB, ret); \
		errno = e; \
		return ret; \
	}

#define P_RD (mpi_file fh, void *buf, int count, mpi_datatype datatype, \
	      mpi_status *status)
#define P_WR (mpi_file fh, const void *buf, int count, mpi_datatype datatype, \
	      mpi_status *status)
#define A_RW (fh, buf, count, datatype, status)
#define P_RD_AT (mpi_file fh, mpi_offset offset, void *buf, int count, \
		 mpi_datatype datatype, mpi_status *status)
#define P_WR_AT (mpi_file fh, mpi_offset offset, const void *buf, int count, \
		 mpi_datatype datatype, mpi_status *status)
#define A_RW_AT (fh, offset, buf, count, datatype, status)
#define P_IRD (mpi_file fh, void *buf, int count, mpi_datatype datatype, \
	       mpi_request *request)
#define P_IWR (mpi_file fh, const void *buf, int count, \
	       mpi_datatype datatype, mpi_request *request)
#define A_IRW (fh, buf, count, datatype, request)
#define P_IRD_AT (mpi_file fh, mpi_offset offset, void *buf, int count, \
		  mpi_datatype datatype, mpi_request *request)
#define P_IWR_AT (mpi_file fh, mpi_offset offset, const void *buf, int count, \
		  mpi_datatype datatype, mpi_request *request)
#define A_IRW_AT (fh, offset, buf, count, datatype, request)

MPI_RW(MPI_File_read, P_RD, A_RW, 0, 0, 0, 0)
MPI_RW(MPI_File_read_all, P_RD, A_RW, 0, 0, 1, 0)
MPI_RW(MPI_File_read_shared, P_RD, A_RW, 0, 0, 0, 0)
MPI_RW(MPI_File_read_ordered, P_RD, A_RW, 0, 0, 1, 0)
MPI_RW(MPI_File_read_at, P_RD_AT, A_RW_AT, 1, offset, 0, 0)
MPI_RW(MPI_File_read_at_all, P_RD_AT, A_RW_AT, 1, offset, 1, 0)
MPI_RW(MPI_File_write, P_WR, A_RW, 0, 0, 0, 0)
MPI_RW(MPI_File_write_all, P_WR, A_RW, 0, 0, 1, 0)
MPI_RW(MPI_File_write_shared, P_WR, A_RW, 0, 0, 0, 0)
MPI_RW(MPI_File_write_ordered, P_WR, A_RW, 0, 0, 1, 0)
MPI_RW(MPI_File_write_at, P_WR_AT, A_RW_AT, 1, offset, 0, 0)
MPI_RW(MPI_File_write_at_all, P_WR_AT, A_RW_AT, 1, offset, 1, 0)
MPI_RW(MPI_File_iread, P_IRD, A_IRW, 0, 0, 0, 1)
MPI_RW(MPI_File_iread_all, P_IRD, A_IRW, 0, 0, 1, 1)
MPI_RW(MPI_File_iread_shared, P_IRD, A_IRW, 0, 0, 0, 1)
MPI_RW(MPI_File_iread_at, P_IRD_AT, A_IRW_AT, 1, offset, 0, 1)
MPI_RW(MPI_File_iread_at_all, P_IRD_AT, A_IRW_AT, 1, offset, 1, 1)
MPI_RW(MPI_File_iwrite, P_IWR, A_IRW, 0, 0, 0, 1)
MPI_RW(MPI_File_iwrite_all, P_IWR, A_IRW, 0, 0, 1, 1)
MPI_RW(MPI_File_iwrite_shared, P_IWR, A_IRW, 0, 0, 0, 1)
MPI_RW(MPI_File_iwrite_at, P_IWR_AT, A_IRW_AT, 1, offset, 0, 1)
MPI_RW(MPI_File_iwrite_at_all, P_IWR_AT, A_IRW_AT, 1, offset, 1, 1)

/* ---- view, sync, size --------------------------------------------------- */

LIB_WRAP(int, MPI_File_set_view, (mpi_file fh, mpi_offset disp,
				   mpi_datatype etype, mpi_datatype filetype,
				   const char *datarep, mpi_info info));

DFT_API int MPI_File_set_view(mpi_file fh, mpi_offset disp, mpi_datatype etype,
			      mpi_datatype filetype, const char *datarep,
			      mpi_info info)
{
	struct dft_file *f;

	if (!MPI_TRACED(fh, f))
		return LIB_REAL(MPI_File_set_view)(fh, disp, etype, filetype,
						   datarep, info);
	LIB_SPAN(int, MPI_File_set_view, "MPIIO", f,
		 (fh, disp, etype, filetype, datarep, info), KI("disp", disp),
		 KI("etype_size", type_size(etype)),);
}

LIB_WRAP(int, MPI_File_sync, (mpi_file fh));

DFT_API int MPI_File_sync(mpi_file fh)
{
	struct dft_file *f;

	if (!MPI_TRACED(fh, f))
		return LIB_REAL(MPI_File_sync)(fh);
	LIB_SPAN(int, MPI_File_sync, "MPIIO", f, (fh));
}

LIB_WRAP(int, MPI_File_set_size, (mpi_file fh, mpi_offset size));

DFT_API int MPI_File_set_size(mpi_file fh, mpi_offset size)
{
	struct dft_file *f;

	if (!MPI_TRACED(fh, f))
		return LIB_REAL(MPI_File_set_size)(fh, size);
	LIB_SPAN(int, MPI_File_set_size, "MPIIO", f, (fh, size),
		 KI("size", size),);
}
