/*
 * mpiio.c - MPI-IO interception: events of cat "MPIIO", one per call of
 * MPI_File_open/close, the read/write family (_at, _all, _at_all,
 * _shared, _ordered, the nonblocking i* forms and the split collectives'
 * _begin/_end halves), set_view, sync and set_size, on a file under
 * DFTRACER_DATA_DIR (mpi.c adds the MPI layer to the preload library).
 *
 * Each wrapper is an exported definition of the MPI symbol and of its
 * PMPI_ twin (what Fortran's bindings call); the real one is libmpi's,
 * found at the first call (libsym.c).  The runtime does not
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
 * The open event also carries the file's hints as MPI_File_get_info
 * gives them after the open (args.hints "key=value;...", args.cb_nodes
 * when that hint is a number): the effective hints under MPICH's ROMIO,
 * only the ones the program passed under Open MPI 4.1 (its get_info
 * returns the open's info, whichever io component runs).
 *
 * Does not: trace MPI_File_seek, preallocate or the info calls, or MPI
 * calls other than the three above.  (The rank: the launcher's variables or
 * mpirank.c when the trace starts; a trace that began before MPI_Init
 * with neither gets its PR record when MPI_Init returns, else at the
 * first MPI_File_open.)
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

/*
 * The hints of an open file, "key=value;..." in buf (at most n bytes,
 * whole pairs only), from PMPI_File_get_info; *cb_nodes is the cb_nodes
 * hint when it is a number, else -1.  Under the guard.
 */
static void file_hints(mpi_file fh, char *buf, size_t n, long long *cb_nodes)
{
	static int (*get_info)(mpi_file, mpi_info *), (*nkeys)(mpi_info, int *),
		(*nthkey)(mpi_info, int, char *),
		(*get)(mpi_info, const char *, int, char *, int *),
		(*info_free)(mpi_info *);
	mpi_info info = NULL;
	char key[256], val[1024];
	size_t len = 0;
	int nk = 0, i, flag;

	*buf = '\0';
	*cb_nodes = -1;
	dft_guard++;
	if (!get_info) {
		*(void **)&nkeys = dft_lib_sym("PMPI_Info_get_nkeys");
		*(void **)&nthkey = dft_lib_sym("PMPI_Info_get_nthkey");
		*(void **)&get = dft_lib_sym("PMPI_Info_get");
		*(void **)&info_free = dft_lib_sym("PMPI_Info_free");
		*(void **)&get_info = dft_lib_sym("PMPI_File_get_info");
	}
	if (!get_info || !nkeys || !nthkey || !get || !info_free ||
	    get_info(fh, &info) != 0) {
		dft_guard--;
		return;
	}
	if (nkeys(info, &nk) != 0)
		nk = 0;
	for (i = 0; i < nk; i++) {
		size_t kl, vl;

		flag = 0;
		if (nthkey(info, i, key) != 0 ||
		    get(info, key, (int)sizeof(val) - 1, val, &flag) != 0 ||
		    !flag)
			continue;
		key[sizeof(key) - 1] = val[sizeof(val) - 1] = '\0';
		if (strcmp(key, "cb_nodes") == 0) {
			char *e;
			long long v = strtoll(val, &e, 10);

			if (e != val && *e == '\0' && v > 0)
				*cb_nodes = v;
		}
		kl = strlen(key);
		vl = strlen(val);
		if (len + (len > 0) + kl + 1 + vl + 1 > n)
			continue;
		if (len > 0)
			buf[len++] = ';';
		memcpy(buf + len, key, kl);
		len += kl;
		buf[len++] = '=';
		memcpy(buf + len, val, vl);
		len += vl;
		buf[len] = '\0';
	}
	info_free(&info);
	dft_guard--;
}

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

/*
 * Each wrapper exists twice: as MPI_X, which C programs call, and as
 * PMPI_X, which the Fortran bindings call (Open MPI's libmpi_mpifh and,
 * through it, mpi_f08 call PMPI_File_* directly), both traced under the
 * name MPI_X.  In libmpi MPI_X is an alias of PMPI_X, so a C call meets
 * only the first; a profiling layer between (its MPI_X calling PMPI_X)
 * would meet both, hence dft_in_mpi: the thread is inside a traced MPI call,
 * and the MPI calls made from there pass through (dft_in_mpi, with
 * MPI_CALL and MPI_SPAN in internal.h, shared with mpi.c).
 */
__thread int dft_in_mpi DFT_TLS;

/* one load and a branch while not tracing MPI-IO */
#define MPI_TRACED(fh, f) \
	(DFT_UNLIKELY(dft_on_mpiio) && !dft_guard && !dft_in_mpi && \
	 ((f) = fh_get((fh), 0)))

/* ---- open, close -------------------------------------------------------- */

#define P_OPEN (mpi_comm comm, const char *filename, int amode, \
		mpi_info info, mpi_file *fh)
#define A_OPEN (comm, filename, amode, info, fh)

#define MPI_OPEN(sym) \
	LIB_WRAP(int, sym, P_OPEN); \
	DFT_API int sym P_OPEN \
	{ \
		struct dft_region *r; \
		struct dft_file *f; \
		int ret, e; \
		if (DFT_LIKELY(!dft_on_mpiio) || dft_guard || dft_in_mpi || \
		    !(f = dft_layer_file(filename))) \
			return LIB_REAL(sym) A_OPEN; \
		dft_rank_late(); \
		r = dft_span_begin("MPI_File_open", "MPIIO"); \
		ret = MPI_CALL(sym, A_OPEN); \
		e = errno; \
		open_end(r, f, comm, amode, fh, ret); \
		errno = e; \
		return ret; \
	}

/* Ends MPI_File_open's span: amode, comm_size, ret, and the file's hints
 * (hints, cb_nodes) when it opened; remembers the handle. */
static void open_end(struct dft_region *r, struct dft_file *f, mpi_comm comm,
		     int amode, mpi_file *fh, int ret)
{
	char hints[1024] = "";
	long long cb = -1;
	struct dft_kv kv[] = { KI("amode", amode),
			       KI("comm_size", comm_size(comm)),
			       KI("ret", ret), KS("hints", hints),
			       KI("cb_nodes", 0) };

	if (ret == 0 && fh)
		fh_put(*fh, f);
	if (ret == 0 && fh && r)
		file_hints(*fh, hints, sizeof(hints), &cb);
	kv[4].i = cb;
	dft_span_end(r, kv, *hints ? (cb > 0 ? 5 : 4) : 3, f);
}

MPI_OPEN(MPI_File_open)
MPI_OPEN(PMPI_File_open)

#define MPI_CLOSE(sym) \
	LIB_WRAP(int, sym, (mpi_file *fh)); \
	DFT_API int sym(mpi_file *fh) \
	{ \
		struct dft_file *f; \
		if (!fh) \
			return LIB_REAL(sym)(fh); \
		if (DFT_LIKELY(!dft_on_mpiio) || dft_guard || dft_in_mpi) { \
			/* opened while tracing: forget it all the same */ \
			if (FH.n) \
				fh_get(*fh, 1); \
			return LIB_REAL(sym)(fh); \
		} \
		if (!(f = fh_get(*fh, 1))) \
			return LIB_REAL(sym)(fh); \
		MPI_SPAN(sym, "MPI_File_close", "MPIIO", f, (fh)); \
	}

MPI_CLOSE(MPI_File_close)
MPI_CLOSE(PMPI_File_close)

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
 * One wrapper: sym (MPI_ or PMPI_ name) with parameters params and the
 * argument list args, traced as name; OFF is the offset argument or 0,
 * HAS_OFF whether there is one, COLL and NB the collective and
 * nonblocking flags of the form.
 */
#define MPI_RW1(sym, name, params, args, HAS_OFF, OFF, COLL, NB) \
	LIB_WRAP(int, sym, params); \
	DFT_API int sym params \
	{ \
		struct dft_region *r; \
		struct dft_file *f; \
		int ret, e; \
		if (!MPI_TRACED(fh, f)) \
			return LIB_REAL(sym) args; \
		r = dft_span_begin(name, "MPIIO"); \
		ret = MPI_CALL(sym, args); \
		e = errno; \
		rw_end(r, f, count, datatype, HAS_OFF, OFF, COLL, NB, ret); \
		errno = e; \
		return ret; \
	}
/* MPI_base and PMPI_base, traced as MPI_base */
#define MPI_RW(base, params, args, HAS_OFF, OFF, COLL, NB) \
	MPI_RW1(MPI_##base, "MPI_" #base, params, args, HAS_OFF, OFF, COLL, \
		NB) \
	MPI_RW1(PMPI_##base, "MPI_" #base, params, args, HAS_OFF, OFF, COLL, \
		NB)

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

MPI_RW(File_read, P_RD, A_RW, 0, 0, 0, 0)
MPI_RW(File_read_all, P_RD, A_RW, 0, 0, 1, 0)
MPI_RW(File_read_shared, P_RD, A_RW, 0, 0, 0, 0)
MPI_RW(File_read_ordered, P_RD, A_RW, 0, 0, 1, 0)
MPI_RW(File_read_at, P_RD_AT, A_RW_AT, 1, offset, 0, 0)
MPI_RW(File_read_at_all, P_RD_AT, A_RW_AT, 1, offset, 1, 0)
MPI_RW(File_write, P_WR, A_RW, 0, 0, 0, 0)
MPI_RW(File_write_all, P_WR, A_RW, 0, 0, 1, 0)
MPI_RW(File_write_shared, P_WR, A_RW, 0, 0, 0, 0)
MPI_RW(File_write_ordered, P_WR, A_RW, 0, 0, 1, 0)
MPI_RW(File_write_at, P_WR_AT, A_RW_AT, 1, offset, 0, 0)
MPI_RW(File_write_at_all, P_WR_AT, A_RW_AT, 1, offset, 1, 0)
MPI_RW(File_iread, P_IRD, A_IRW, 0, 0, 0, 1)
MPI_RW(File_iread_all, P_IRD, A_IRW, 0, 0, 1, 1)
MPI_RW(File_iread_shared, P_IRD, A_IRW, 0, 0, 0, 1)
MPI_RW(File_iread_at, P_IRD_AT, A_IRW_AT, 1, offset, 0, 1)
MPI_RW(File_iread_at_all, P_IRD_AT, A_IRW_AT, 1, offset, 1, 1)
MPI_RW(File_iwrite, P_IWR, A_IRW, 0, 0, 0, 1)
MPI_RW(File_iwrite_all, P_IWR, A_IRW, 0, 0, 1, 1)
MPI_RW(File_iwrite_shared, P_IWR, A_IRW, 0, 0, 0, 1)
MPI_RW(File_iwrite_at, P_IWR_AT, A_IRW_AT, 1, offset, 0, 1)
MPI_RW(File_iwrite_at_all, P_IWR_AT, A_IRW_AT, 1, offset, 1, 1)

/*
 * Split collectives: the _begin half starts a collective transfer that
 * the _end half completes (MPI's restricted form of a nonblocking
 * collective), so _begin carries the sizes with collective and
 * nonblocking 1, and _end only the flags and ret: its sizes would count
 * the bytes twice.
 */
#define P_RD_B (mpi_file fh, void *buf, int count, mpi_datatype datatype)
#define P_WR_B (mpi_file fh, const void *buf, int count, \
		mpi_datatype datatype)
#define A_RW_B (fh, buf, count, datatype)
#define P_RD_AT_B (mpi_file fh, mpi_offset offset, void *buf, int count, \
		   mpi_datatype datatype)
#define P_WR_AT_B (mpi_file fh, mpi_offset offset, const void *buf, \
		   int count, mpi_datatype datatype)
#define A_RW_AT_B (fh, offset, buf, count, datatype)
#define P_RD_E (mpi_file fh, void *buf, mpi_status *status)
#define P_WR_E (mpi_file fh, const void *buf, mpi_status *status)
#define A_RW_E (fh, buf, status)

#define MPI_SPLIT_END1(sym, name, params, args) \
	LIB_WRAP(int, sym, params); \
	DFT_API int sym params \
	{ \
		struct dft_file *f; \
		if (!MPI_TRACED(fh, f)) \
			return LIB_REAL(sym) args; \
		MPI_SPAN(sym, name, "MPIIO", f, args, KI("collective", 1), \
			 KI("nonblocking", 1),); \
	}
#define MPI_SPLIT_END(base, params, args) \
	MPI_SPLIT_END1(MPI_##base, "MPI_" #base, params, args) \
	MPI_SPLIT_END1(PMPI_##base, "MPI_" #base, params, args)

MPI_RW(File_read_all_begin, P_RD_B, A_RW_B, 0, 0, 1, 1)
MPI_SPLIT_END(File_read_all_end, P_RD_E, A_RW_E)
MPI_RW(File_read_at_all_begin, P_RD_AT_B, A_RW_AT_B, 1, offset, 1, 1)
MPI_SPLIT_END(File_read_at_all_end, P_RD_E, A_RW_E)
MPI_RW(File_read_ordered_begin, P_RD_B, A_RW_B, 0, 0, 1, 1)
MPI_SPLIT_END(File_read_ordered_end, P_RD_E, A_RW_E)
MPI_RW(File_write_all_begin, P_WR_B, A_RW_B, 0, 0, 1, 1)
MPI_SPLIT_END(File_write_all_end, P_WR_E, A_RW_E)
MPI_RW(File_write_at_all_begin, P_WR_AT_B, A_RW_AT_B, 1, offset, 1, 1)
MPI_SPLIT_END(File_write_at_all_end, P_WR_E, A_RW_E)
MPI_RW(File_write_ordered_begin, P_WR_B, A_RW_B, 0, 0, 1, 1)
MPI_SPLIT_END(File_write_ordered_end, P_WR_E, A_RW_E)

/* ---- view, sync, size --------------------------------------------------- */

#define P_VIEW (mpi_file fh, mpi_offset disp, mpi_datatype etype, \
		mpi_datatype filetype, const char *datarep, mpi_info info)
#define A_VIEW (fh, disp, etype, filetype, datarep, info)
#define MPI_SET_VIEW(sym) \
	LIB_WRAP(int, sym, P_VIEW); \
	DFT_API int sym P_VIEW \
	{ \
		struct dft_file *f; \
		if (!MPI_TRACED(fh, f)) \
			return LIB_REAL(sym) A_VIEW; \
		MPI_SPAN(sym, "MPI_File_set_view", "MPIIO", f, A_VIEW, \
			 KI("disp", disp), KI("etype_size", type_size(etype)),); \
	}
MPI_SET_VIEW(MPI_File_set_view)
MPI_SET_VIEW(PMPI_File_set_view)

#define MPI_SYNC(sym) \
	LIB_WRAP(int, sym, (mpi_file fh)); \
	DFT_API int sym(mpi_file fh) \
	{ \
		struct dft_file *f; \
		if (!MPI_TRACED(fh, f)) \
			return LIB_REAL(sym)(fh); \
		MPI_SPAN(sym, "MPI_File_sync", "MPIIO", f, (fh)); \
	}
MPI_SYNC(MPI_File_sync)
MPI_SYNC(PMPI_File_sync)

#define MPI_SET_SIZE(sym) \
	LIB_WRAP(int, sym, (mpi_file fh, mpi_offset size)); \
	DFT_API int sym(mpi_file fh, mpi_offset size) \
	{ \
		struct dft_file *f; \
		if (!MPI_TRACED(fh, f)) \
			return LIB_REAL(sym)(fh, size); \
		MPI_SPAN(sym, "MPI_File_set_size", "MPIIO", f, (fh, size), \
			 KI("size", size),); \
	}
MPI_SET_SIZE(MPI_File_set_size)
MPI_SET_SIZE(PMPI_File_set_size)
