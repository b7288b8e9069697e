/*
 * hdf5.c - HDF5 interception: events of cat "HDF5" for the file, dataset
 * group and attribute calls (H5Fcreate/open/close/flush, H5Dcreate2/
 * open2/read/write/close, H5Gcreate2/open2/close, H5Acreate2/
 * create_by_name/open/open_by_name/open_by_idx/read/write/close, and
 * HDF5 1.8's H5Dcreate1, H5Dopen1, H5Gcreate1, H5Gopen1, H5Acreate1,
 * H5Aopen_name, H5Aopen_idx, which 1.10+ still export and programs built
 * with H5_USE_18_API-style macros call) on a file under
 * DFTRACER_DATA_DIR,
 * and H5Pset_fapl_mpio (no file: it says the program does HDF5 over
 * MPI-IO).
 *
 * Each wrapper is an exported definition of the H5 symbol; the real one is
 * libhdf5's, found at the first call (libsym.c), as are the helpers that
 * give an event its fields (H5Fget_name, H5Sget_select_npoints,
 * H5Tget_size, H5Dget_space, H5Aget_space, H5Sclose, H5Pget_dxpl_mpio).  The runtime
 * does not link libhdf5 and includes no hdf5.h: a program without HDF5
 * never calls these, and the runtime builds where HDF5 is absent.
 *
 * Types are HDF5's ABI since 1.10, declared here: hid_t is int64_t,
 * herr_t int, hssize_t long long; H5P_DEFAULT and H5S_ALL are 0, and
 * H5FD_MPIO_COLLECTIVE is 1 (H5FD_mpio_xfer_t).  MPI_Comm and MPI_Info
 * are passed through as opaque pointers (Open MPI's ABI, see mpiio.c).
 *
 * An object's file is found by H5Fget_name, before the call (so H5Dclose
 * and H5Fclose still have it); the event is open while the real call runs,
 * so the MPI-IO and POSIX calls HDF5 makes are traced with it as their
 * parent.  The helpers run under the guard: the tracer's own HDF5 calls
 * are never traced.
 *
 * Does not: trace the asynchronous (_async) calls of HDF5
 * 1.13+, or a library of HDF5 1.8 itself (its hid_t is 32 bits).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

typedef int64_t h5_hid;
typedef int h5_herr;
#define H5_DEFAULT ((h5_hid)0)	/* H5P_DEFAULT, H5S_ALL */
#define H5_MPIO_COLLECTIVE 1

/* ---- the real functions ------------------------------------------------- */


static struct {
	int looked;
	ssize_t (*fget_name)(h5_hid, char *, size_t);
	long long (*sget_select_npoints)(h5_hid);
	size_t (*tget_size)(h5_hid);
	h5_hid (*dget_space)(h5_hid);
	h5_hid (*aget_space)(h5_hid);
	h5_herr (*sclose)(h5_hid);
	h5_herr (*pget_dxpl_mpio)(h5_hid, int *);	/* parallel HDF5 only */
} H;

/* looks the helpers up once; caller holds the guard */
static void helpers(void)
{
	if (H.looked)
		return;
	H.fget_name = (__typeof__(H.fget_name))dft_lib_sym("H5Fget_name");
	H.sget_select_npoints = (__typeof__(H.sget_select_npoints))
		dft_lib_sym("H5Sget_select_npoints");
	H.tget_size = (__typeof__(H.tget_size))dft_lib_sym("H5Tget_size");
	H.dget_space = (__typeof__(H.dget_space))dft_lib_sym("H5Dget_space");
	H.aget_space = (__typeof__(H.aget_space))dft_lib_sym("H5Aget_space");
	H.sclose = (__typeof__(H.sclose))dft_lib_sym("H5Sclose");
	H.pget_dxpl_mpio = (__typeof__(H.pget_dxpl_mpio))
		dft_lib_sym("H5Pget_dxpl_mpio");
	H.looked = 1;
}

/* the traced file an object (file, group, dataset) belongs to, or NULL */
static struct dft_file *obj_file(h5_hid id)
{
	char name[DFT_PATH];
	ssize_t n = -1;

	dft_guard++;
	helpers();
	if (H.fget_name)
		n = H.fget_name(id, name, sizeof(name));
	dft_guard--;
	if (n <= 0 || (size_t)n >= sizeof(name))
		return NULL;
	return dft_layer_file(name);
}

/* bytes an H5Dread/H5Dwrite moves: selected points of the memory space
 * (else the file space, else the whole dataset) times the memory type's
 * size; -1 when HDF5 does not say */
static long long xfer_size(h5_hid dset, h5_hid mtype, h5_hid mspace,
			   h5_hid fspace)
{
	long long pts = -1;
	size_t ts = 0;

	dft_guard++;
	helpers();
	if (H.sget_select_npoints && H.tget_size) {
		h5_hid s = mspace != H5_DEFAULT ? mspace : fspace;

		if (s != H5_DEFAULT) {
			pts = H.sget_select_npoints(s);
		} else if (H.dget_space && H.sclose &&
			   (s = H.dget_space(dset)) >= 0) {
			pts = H.sget_select_npoints(s);
			H.sclose(s);
		}
		ts = H.tget_size(mtype);
	}
	dft_guard--;
	return pts >= 0 && ts > 0 ? pts * (long long)ts : -1;
}

static int collective(h5_hid dxpl)
{
	int mode = 0;

	if (dxpl == H5_DEFAULT)
		return 0;
	dft_guard++;
	helpers();
	if (!H.pget_dxpl_mpio || H.pget_dxpl_mpio(dxpl, &mode) < 0)
		mode = 0;
	dft_guard--;
	return mode == H5_MPIO_COLLECTIVE;
}

#define H5_ON() (DFT_UNLIKELY(dft_on_hdf5) && !dft_guard)

/* H5Dread, H5Dwrite: the dataset's traced file (NULL: not traced), and
 * the transfer's size and collective flag */
static struct dft_file *xfer(h5_hid dset, h5_hid mtype, h5_hid mspace,
			     h5_hid fspace, h5_hid dxpl, long long *size,
			     int *coll)
{
	struct dft_file *f = H5_ON() ? obj_file(dset) : NULL;

	*size = f ? xfer_size(dset, mtype, mspace, fspace) : 0;
	*coll = f ? collective(dxpl) : 0;
	return f;
}

/* The body of a wrapper whose file is f (NULL: not traced) */
#define H5_CALL(ret_t, sym, f, args, ...) \
	do { \
		if (!(f)) \
			return LIB_REAL(sym) args; \
		LIB_SPAN(ret_t, sym, "HDF5", f, args, __VA_ARGS__); \
	} while (0)

/* ---- files -------------------------------------------------------------- */

LIB_WRAP(h5_hid, H5Fcreate, (const char *filename, unsigned flags,
			      h5_hid fcpl_id, h5_hid fapl_id));

DFT_API h5_hid H5Fcreate(const char *filename, unsigned flags, h5_hid fcpl_id,
			 h5_hid fapl_id)
{
	struct dft_file *f = H5_ON() ? dft_layer_file(filename) : NULL;

	H5_CALL(h5_hid, H5Fcreate, f, (filename, flags, fcpl_id, fapl_id),
		KI("flags", flags),);
}

LIB_WRAP(h5_hid, H5Fopen, (const char *filename, unsigned flags,
			    h5_hid fapl_id));

DFT_API h5_hid H5Fopen(const char *filename, unsigned flags, h5_hid fapl_id)
{
	struct dft_file *f = H5_ON() ? dft_layer_file(filename) : NULL;

	H5_CALL(h5_hid, H5Fopen, f, (filename, flags, fapl_id),
		KI("flags", flags),);
}

LIB_WRAP(h5_herr, H5Fclose, (h5_hid file_id));

DFT_API h5_herr H5Fclose(h5_hid file_id)
{
	struct dft_file *f = H5_ON() ? obj_file(file_id) : NULL;

	H5_CALL(h5_herr, H5Fclose, f, (file_id));
}

LIB_WRAP(h5_herr, H5Fflush, (h5_hid object_id, int scope));

DFT_API h5_herr H5Fflush(h5_hid object_id, int scope)
{
	struct dft_file *f = H5_ON() ? obj_file(object_id) : NULL;

	H5_CALL(h5_herr, H5Fflush, f, (object_id, scope), KI("scope", scope),);
}

/* ---- datasets ----------------------------------------------------------- */

LIB_WRAP(h5_hid, H5Dcreate2, (h5_hid loc_id, const char *name,
			       h5_hid type_id, h5_hid space_id,
			       h5_hid lcpl_id, h5_hid dcpl_id,
			       h5_hid dapl_id));

DFT_API h5_hid H5Dcreate2(h5_hid loc_id, const char *name, h5_hid type_id,
			  h5_hid space_id, h5_hid lcpl_id, h5_hid dcpl_id,
			  h5_hid dapl_id)
{
	struct dft_file *f = H5_ON() ? obj_file(loc_id) : NULL;

	H5_CALL(h5_hid, H5Dcreate2, f, (loc_id, name, type_id, space_id,
					lcpl_id, dcpl_id, dapl_id));
}

LIB_WRAP(h5_hid, H5Dopen2, (h5_hid loc_id, const char *name,
			     h5_hid dapl_id));

DFT_API h5_hid H5Dopen2(h5_hid loc_id, const char *name, h5_hid dapl_id)
{
	struct dft_file *f = H5_ON() ? obj_file(loc_id) : NULL;

	H5_CALL(h5_hid, H5Dopen2, f, (loc_id, name, dapl_id));
}

/* HDF5 1.8's forms, kept as deprecated symbols since 1.10 */
LIB_WRAP(h5_hid, H5Dcreate1, (h5_hid loc_id, const char *name,
			       h5_hid type_id, h5_hid space_id,
			       h5_hid dcpl_id));

DFT_API h5_hid H5Dcreate1(h5_hid loc_id, const char *name, h5_hid type_id,
			  h5_hid space_id, h5_hid dcpl_id)
{
	struct dft_file *f = H5_ON() ? obj_file(loc_id) : NULL;

	H5_CALL(h5_hid, H5Dcreate1, f, (loc_id, name, type_id, space_id,
					dcpl_id));
}

LIB_WRAP(h5_hid, H5Dopen1, (h5_hid loc_id, const char *name));

DFT_API h5_hid H5Dopen1(h5_hid loc_id, const char *name)
{
	struct dft_file *f = H5_ON() ? obj_file(loc_id) : NULL;

	H5_CALL(h5_hid, H5Dopen1, f, (loc_id, name));
}

LIB_WRAP(h5_herr, H5Dread, (h5_hid dset_id, h5_hid mem_type_id,
			     h5_hid mem_space_id, h5_hid file_space_id,
			     h5_hid dxpl_id, void *buf));

DFT_API h5_herr H5Dread(h5_hid dset_id, h5_hid mem_type_id,
			h5_hid mem_space_id, h5_hid file_space_id,
			h5_hid dxpl_id, void *buf)
{
	long long size;
	int coll;
	struct dft_file *f = xfer(dset_id, mem_type_id, mem_space_id,
				  file_space_id, dxpl_id, &size, &coll);

	H5_CALL(h5_herr, H5Dread, f, (dset_id, mem_type_id, mem_space_id,
				      file_space_id, dxpl_id, buf),
		KI("size", size), KI("collective", coll),);
}

LIB_WRAP(h5_herr, H5Dwrite, (h5_hid dset_id, h5_hid mem_type_id,
			      h5_hid mem_space_id, h5_hid file_space_id,
			      h5_hid dxpl_id, const void *buf));

DFT_API h5_herr H5Dwrite(h5_hid dset_id, h5_hid mem_type_id,
			 h5_hid mem_space_id, h5_hid file_space_id,
			 h5_hid dxpl_id, const void *buf)
{
	long long size;
	int coll;
	struct dft_file *f = xfer(dset_id, mem_type_id, mem_space_id,
				  file_space_id, dxpl_id, &size, &coll);

	H5_CALL(h5_herr, H5Dwrite, f, (dset_id, mem_type_id, mem_space_id,
				       file_space_id, dxpl_id, buf),
		KI("size", size), KI("collective", coll),);
}

LIB_WRAP(h5_herr, H5Dclose, (h5_hid dset_id));

DFT_API h5_herr H5Dclose(h5_hid dset_id)
{
	struct dft_file *f = H5_ON() ? obj_file(dset_id) : NULL;

	H5_CALL(h5_herr, H5Dclose, f, (dset_id));
}

/* ---- groups ------------------------------------------------------------- */

LIB_WRAP(h5_hid, H5Gcreate2, (h5_hid loc_id, const char *name,
			       h5_hid lcpl_id, h5_hid gcpl_id,
			       h5_hid gapl_id));

DFT_API h5_hid H5Gcreate2(h5_hid loc_id, const char *name, h5_hid lcpl_id,
			  h5_hid gcpl_id, h5_hid gapl_id)
{
	struct dft_file *f = H5_ON() ? obj_file(loc_id) : NULL;

	H5_CALL(h5_hid, H5Gcreate2, f, (loc_id, name, lcpl_id, gcpl_id,
					gapl_id));
}

LIB_WRAP(h5_hid, H5Gopen2, (h5_hid loc_id, const char *name,
			     h5_hid gapl_id));

DFT_API h5_hid H5Gopen2(h5_hid loc_id, const char *name, h5_hid gapl_id)
{
	struct dft_file *f = H5_ON() ? obj_file(loc_id) : NULL;

	H5_CALL(h5_hid, H5Gopen2, f, (loc_id, name, gapl_id));
}

LIB_WRAP(h5_hid, H5Gcreate1, (h5_hid loc_id, const char *name,
			       size_t size_hint));

DFT_API h5_hid H5Gcreate1(h5_hid loc_id, const char *name, size_t size_hint)
{
	struct dft_file *f = H5_ON() ? obj_file(loc_id) : NULL;

	H5_CALL(h5_hid, H5Gcreate1, f, (loc_id, name, size_hint));
}

LIB_WRAP(h5_hid, H5Gopen1, (h5_hid loc_id, const char *name));

DFT_API h5_hid H5Gopen1(h5_hid loc_id, const char *name)
{
	struct dft_file *f = H5_ON() ? obj_file(loc_id) : NULL;

	H5_CALL(h5_hid, H5Gopen1, f, (loc_id, name));
}

LIB_WRAP(h5_herr, H5Gclose, (h5_hid group_id));

DFT_API h5_herr H5Gclose(h5_hid group_id)
{
	struct dft_file *f = H5_ON() ? obj_file(group_id) : NULL;

	H5_CALL(h5_herr, H5Gclose, f, (group_id));
}

/* ---- attributes -------------------------------------------------------- */

/* bytes an H5Aread/H5Awrite moves: the points of the attribute's
 * dataspace (an attribute is always read and written whole) times the
 * memory type's size; -1 when HDF5 does not say */
static long long attr_size(h5_hid attr, h5_hid mtype)
{
	long long pts = -1;
	size_t ts = 0;
	h5_hid s;

	dft_guard++;
	helpers();
	if (H.sget_select_npoints && H.tget_size && H.aget_space &&
	    H.sclose && (s = H.aget_space(attr)) >= 0) {
		pts = H.sget_select_npoints(s);
		H.sclose(s);
		ts = H.tget_size(mtype);
	}
	dft_guard--;
	return pts >= 0 && ts > 0 ? pts * (long long)ts : -1;
}

LIB_WRAP(h5_hid, H5Acreate2, (h5_hid loc_id, const char *attr_name,
			       h5_hid type_id, h5_hid space_id,
			       h5_hid acpl_id, h5_hid aapl_id));

DFT_API h5_hid H5Acreate2(h5_hid loc_id, const char *attr_name,
			  h5_hid type_id, h5_hid space_id, h5_hid acpl_id,
			  h5_hid aapl_id)
{
	struct dft_file *f = H5_ON() ? obj_file(loc_id) : NULL;

	H5_CALL(h5_hid, H5Acreate2, f, (loc_id, attr_name, type_id, space_id,
					acpl_id, aapl_id));
}

LIB_WRAP(h5_hid, H5Acreate_by_name, (h5_hid loc_id, const char *obj_name,
				      const char *attr_name, h5_hid type_id,
				      h5_hid space_id, h5_hid acpl_id,
				      h5_hid aapl_id, h5_hid lapl_id));

DFT_API h5_hid H5Acreate_by_name(h5_hid loc_id, const char *obj_name,
				 const char *attr_name, h5_hid type_id,
				 h5_hid space_id, h5_hid acpl_id,
				 h5_hid aapl_id, h5_hid lapl_id)
{
	struct dft_file *f = H5_ON() ? obj_file(loc_id) : NULL;

	H5_CALL(h5_hid, H5Acreate_by_name, f, (loc_id, obj_name, attr_name,
					       type_id, space_id, acpl_id,
					       aapl_id, lapl_id));
}

LIB_WRAP(h5_hid, H5Acreate1, (h5_hid loc_id, const char *name,
			       h5_hid type_id, h5_hid space_id,
			       h5_hid acpl_id));

DFT_API h5_hid H5Acreate1(h5_hid loc_id, const char *name, h5_hid type_id,
			  h5_hid space_id, h5_hid acpl_id)
{
	struct dft_file *f = H5_ON() ? obj_file(loc_id) : NULL;

	H5_CALL(h5_hid, H5Acreate1, f, (loc_id, name, type_id, space_id,
					acpl_id));
}

LIB_WRAP(h5_hid, H5Aopen, (h5_hid obj_id, const char *attr_name,
			    h5_hid aapl_id));

DFT_API h5_hid H5Aopen(h5_hid obj_id, const char *attr_name, h5_hid aapl_id)
{
	struct dft_file *f = H5_ON() ? obj_file(obj_id) : NULL;

	H5_CALL(h5_hid, H5Aopen, f, (obj_id, attr_name, aapl_id));
}

LIB_WRAP(h5_hid, H5Aopen_by_name, (h5_hid loc_id, const char *obj_name,
				    const char *attr_name, h5_hid aapl_id,
				    h5_hid lapl_id));

DFT_API h5_hid H5Aopen_by_name(h5_hid loc_id, const char *obj_name,
			       const char *attr_name, h5_hid aapl_id,
			       h5_hid lapl_id)
{
	struct dft_file *f = H5_ON() ? obj_file(loc_id) : NULL;

	H5_CALL(h5_hid, H5Aopen_by_name, f, (loc_id, obj_name, attr_name,
					     aapl_id, lapl_id));
}

/* idx_type (H5_index_t) and order (H5_iter_order_t) are C enums (int);
 * n is an hsize_t */
LIB_WRAP(h5_hid, H5Aopen_by_idx, (h5_hid loc_id, const char *obj_name,
				   int idx_type, int order,
				   unsigned long long n, h5_hid aapl_id,
				   h5_hid lapl_id));

DFT_API h5_hid H5Aopen_by_idx(h5_hid loc_id, const char *obj_name,
			      int idx_type, int order, unsigned long long n,
			      h5_hid aapl_id, h5_hid lapl_id)
{
	struct dft_file *f = H5_ON() ? obj_file(loc_id) : NULL;

	H5_CALL(h5_hid, H5Aopen_by_idx, f, (loc_id, obj_name, idx_type, order,
					    n, aapl_id, lapl_id));
}

LIB_WRAP(h5_hid, H5Aopen_name, (h5_hid loc_id, const char *name));

DFT_API h5_hid H5Aopen_name(h5_hid loc_id, const char *name)
{
	struct dft_file *f = H5_ON() ? obj_file(loc_id) : NULL;

	H5_CALL(h5_hid, H5Aopen_name, f, (loc_id, name));
}

LIB_WRAP(h5_hid, H5Aopen_idx, (h5_hid loc_id, unsigned idx));

DFT_API h5_hid H5Aopen_idx(h5_hid loc_id, unsigned idx)
{
	struct dft_file *f = H5_ON() ? obj_file(loc_id) : NULL;

	H5_CALL(h5_hid, H5Aopen_idx, f, (loc_id, idx));
}

LIB_WRAP(h5_herr, H5Aread, (h5_hid attr_id, h5_hid type_id, void *buf));

DFT_API h5_herr H5Aread(h5_hid attr_id, h5_hid type_id, void *buf)
{
	struct dft_file *f = H5_ON() ? obj_file(attr_id) : NULL;
	long long size = f ? attr_size(attr_id, type_id) : 0;

	H5_CALL(h5_herr, H5Aread, f, (attr_id, type_id, buf),
		KI("size", size),);
}

LIB_WRAP(h5_herr, H5Awrite, (h5_hid attr_id, h5_hid type_id,
			      const void *buf));

DFT_API h5_herr H5Awrite(h5_hid attr_id, h5_hid type_id, const void *buf)
{
	struct dft_file *f = H5_ON() ? obj_file(attr_id) : NULL;
	long long size = f ? attr_size(attr_id, type_id) : 0;

	H5_CALL(h5_herr, H5Awrite, f, (attr_id, type_id, buf),
		KI("size", size),);
}

LIB_WRAP(h5_herr, H5Aclose, (h5_hid attr_id));

DFT_API h5_herr H5Aclose(h5_hid attr_id)
{
	struct dft_file *f = H5_ON() ? obj_file(attr_id) : NULL;

	H5_CALL(h5_herr, H5Aclose, f, (attr_id));
}

/* ---- HDF5 over MPI-IO --------------------------------------------------- */

LIB_WRAP(h5_herr, H5Pset_fapl_mpio, (h5_hid fapl_id, void *comm,
				      void *info));

DFT_API h5_herr H5Pset_fapl_mpio(h5_hid fapl_id, void *comm, void *info)
{
	if (!H5_ON())
		return LIB_REAL(H5Pset_fapl_mpio)(fapl_id, comm, info);
	LIB_SPAN(h5_herr, H5Pset_fapl_mpio, "HDF5", NULL,
		 (fapl_id, comm, info));
}
