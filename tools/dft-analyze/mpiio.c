/*
 * mpiio.c - the MPI-IO and HDF5 layers of dft-analyze: which calls of
 * the MPIIO and HDF5 categories read, write, open or sync; their layer,
 * interface, file and process counts (agg.c hands every such call here
 * with the time of the lower layers inside it); and the Drishti MPI-IO
 * insights they support: M02/M03 (no collective reads / writes), M04/M05
 * (collectives used), M06/M07 (blocking calls only, or non-blocking used),
 * M08-M10 (aggregators per node, from the open's cb_nodes hint),
 * P15/P16 on the MPI-IO layer (small requests to shared files), and dft's
 * X05 (HDF5 metadata-dominated: many file, group, dataset and attribute
 * calls taking most of the HDF5 layer's time).
 *
 * The POSIX layer stays the data layer: an MPI-IO or HDF5 call is never
 * added to the I/O sums (it encloses the POSIX calls it causes, which are
 * counted there), so no time or byte is counted twice.
 *
 * Does not compute HDF5 insights other than X05 (the layer is reported;
 * its MPI-IO calls feed the MPI-IO insights), or M08-M10 for a file whose
 * opens carry no cb_nodes hint (Open MPI's ompio chooses its aggregators
 * itself and reports none).
 */
#include <string.h>

#include "analyze.h"

const char *const der_mpiio[NDER] = {
	"read_collective", "read_independent", "read_nonblocking",
	"write_collective", "write_independent", "write_nonblocking",
	"open", "close", "sync", "other"
};
const char *const der_hdf5[NDER] = {
	"file", "dataset", "group", "read", "write", "read_collective",
	"write_collective", "fapl_mpio", "other", "attribute"
};

/*
 * MPI-IO: reads and writes are the MPI_File_*read* / *write* calls, but
 * the _end half of a split collective is only its completion (the _begin
 * half carries the request); *sync* syncs; the rest (open, close,
 * set_view, set_size, seek, ...) is metadata. Collective: _all and
 * _ordered forms (an event's args.collective decides when present);
 * non-blocking: MPI_File_iread* / iwrite* and the _begin halves of the
 * split collectives (MPI's restricted nonblocking collectives).
 * HDF5: H5Dread* reads, H5Dwrite* writes, H5Fflush syncs,
 * H5Pset_fapl_mpio is a property call (other), the rest is metadata:
 * file, group and dataset create/open/close, and every attribute call
 * (H5A*, H5Aread and H5Awrite too: an attribute is stored with the
 * object's header, in HDF5's metadata, and written at the next flush).
 */
int
mpiio_kind(const char *name, size_t n, int hdf5, int *ioc)
{
	int k = hdf5 ? FN_HDF5 : FN_MPIIO;

	if (hdf5) {
		if (str_starts(name, n, "H5Dread"))
			*ioc = IOC_READ;
		else if (str_starts(name, n, "H5Dwrite"))
			*ioc = IOC_WRITE;
		else if (str_starts(name, n, "H5Fflush"))
			*ioc = IOC_SYNC;
		else if (str_starts(name, n, "H5P"))
			*ioc = IOC_OTHER;
		else
			*ioc = IOC_META;
		if (str_starts(name, n, "H5Fopen") || str_starts(name, n, "H5Fcreate"))
			k |= FN_OPEN;
		else if (str_starts(name, n, "H5Fclose"))
			k |= FN_CLOSE;
		return k;
	}
	if (str_has(name, n, "_end"))
		*ioc = IOC_OTHER;
	else if (str_has(name, n, "read"))
		*ioc = IOC_READ;
	else if (str_has(name, n, "write"))
		*ioc = IOC_WRITE;
	else if (str_has(name, n, "sync"))
		*ioc = IOC_SYNC;
	else
		*ioc = IOC_META;
	if (str_has(name, n, "_open"))
		k |= FN_OPEN;
	else if (str_has(name, n, "_close"))
		k |= FN_CLOSE;
	if (str_has(name, n, "_all") || str_has(name, n, "_ordered"))
		k |= FN_COLLECTIVE;
	if (str_starts(name, n, "MPI_File_iread") ||
	    str_starts(name, n, "MPI_File_iwrite") ||
	    str_has(name, n, "_begin"))
		k |= FN_NONBLOCK;
	return k;
}

/* The derived slot of an HDF5 call. */
static int
hdf5_slot(const struct upper_ev *u)
{
	const struct dft_str *nm = &u->ev->name;

	if (str_starts(nm->p, nm->n, "H5Pset_fapl_mpio"))
		return 7;
	if (str_starts(nm->p, nm->n, "H5A"))
		return 9;
	if (str_starts(nm->p, nm->n, "H5F"))
		return 0;
	if (str_starts(nm->p, nm->n, "H5G"))
		return 2;
	if (str_starts(nm->p, nm->n, "H5D") && u->ioc != IOC_READ &&
	    u->ioc != IOC_WRITE)
		return 1;
	return u->ioc == IOC_READ || u->ioc == IOC_WRITE ? -1 : 8;
}

/* An MPI_File_open: its host in the file's M_MPICB rows, with the
 * cb_nodes hint when the event has one. */
static void
cb_open(struct agg *a, const struct upper_ev *u)
{
	const char *sep = memchr(u->proc, '\x1f', u->procn);
	size_t hn = sep ? (size_t)(sep - u->proc) : u->procn;
	int64_t cb = (u->ev->has & DFT_EV_CB_NODES) && u->ev->cb_nodes > 0 ?
		     u->ev->cb_nodes : 0;
	struct dft_buf k;

	dft_buf_init(&k);
	dft_buf_add(&k, u->file, u->filen);
	dft_buf_addc(&k, '\x1e');
	dft_buf_add(&k, u->proc, hn);
	int64_t *r = agg_row(a, M_MPICB, k.s, k.len);

	if (cb > r[0])
		r[0] = cb;
	dft_buf_release(&k);
}

int64_t
upper_add(struct agg *a, const struct upper_ev *u)
{
	const struct dft_trace_ev *ev = u->ev;
	int hdf5 = (u->kind & FN_HDF5) != 0;
	int l = hdf5 ? L_HDF5 : L_MPIIO;
	int data = u->ioc == IOC_READ || u->ioc == IOC_WRITE;
	int w = u->ioc == IOC_WRITE;
	int agg_ev = ev->ph == DFT_PH_AGG;
	int64_t n = u->n, dur = u->dur, bytes = 0;
	int coll = (ev->has & DFT_EV_COLLECTIVE) ? ev->collective != 0 :
		   (u->kind & FN_COLLECTIVE) != 0;

	/* the call's bytes (H5Aread/H5Awrite's too) */
	int64_t sz = agg_ev ? ((ev->has & DFT_EV_SIZE_SUM) ? ev->size_sum : 0) :
		     (ev->has & DFT_EV_SIZE) ? ev->size : 0;

	if (sz < 0)
		sz = 0;
	if (data)
		bytes = sz;
	layer_add(a, l, u->ioc, n, dur, bytes);
	a->g[hdf5 ? G_HDF5_INNER_T : G_MPIIO_INNER_T] += u->inner;
	int64_t *ifc = agg_row(a, M_IFACE, hdf5 ? "hdf5" : "mpiio",
			       hdf5 ? 4 : 5);

	ifc[0] += n;
	ifc[1] += dur;
	ifc[2] += bytes;
	if (hdf5) {
		int s = hdf5_slot(u);

		/* an attribute's bytes (H5Aread, H5Awrite) are metadata: only
		 * in derived.attribute, not in the layer's data bytes */
		if (s >= 0)
			der_add(a, l, s, n, dur, s == 9 ? sz : bytes);
		if (data) {
			der_add(a, l, w ? 4 : 3, n, dur, bytes);
			if (coll)
				der_add(a, l, w ? 6 : 5, n, dur, bytes);
		}
		return bytes;
	}
	a->g[G_MPIIO_N] += n;
	if ((u->kind & FN_OPEN) && u->file != NULL)
		cb_open(a, u);
	if (!data) {
		der_add(a, l, u->kind & FN_OPEN ? 6 : u->kind & FN_CLOSE ? 7 :
			u->ioc == IOC_SYNC ? 8 : 9, n, dur, bytes);
		/* MPI_File_set_size to 0 empties the file: what is written
		 * again is new contents (to a size: the part past it); the
		 * POSIX ftruncate under it, where traced, says the same */
		if (u->file != NULL && !agg_ev && (ev->has & DFT_EV_SIZE) &&
		    ev->size >= 0 &&
		    ((ev->name.n == 17 &&
		      memcmp(ev->name.p, "MPI_File_set_size", 17) == 0) ||
		     (ev->name.n == 18 &&
		      memcmp(ev->name.p, "PMPI_File_set_size", 18) == 0))) {
			int64_t *t = agg_row(a, M_FILECM, u->file, u->filen);

			if (ev->size == 0) {
				t[0] += n;
			} else {
				t[1] += n;
				t[2] += ev->size;
			}
		}
		return bytes;
	}
	if (coll)
		a->g[G_MPIIO_COLL] += n;
	der_add(a, l, 3 * w + (coll ? 0 : 1), n, dur, bytes);
	if (u->kind & FN_NONBLOCK)
		der_add(a, l, 3 * w + 2, n, dur, bytes);
	if (u->file == NULL)
		return bytes;
	int64_t *r = agg_row(a, M_MPIFILE, u->file, u->filen) + MF_W * w;

	r[MF_N] += n;
	r[MF_T] += dur;
	r[MF_B] += bytes;
	if (coll) {
		r[MF_COLL_N] += n;
		r[MF_COLL_T] += dur;
		r[MF_COLL_B] += bytes;
	} else {
		r[MF_IND_N] += n;
		r[MF_IND_T] += dur;
		r[MF_IND_B] += bytes;
	}
	if (u->kind & FN_NONBLOCK)
		r[MF_NB_N] += n;
	if (!agg_ev && bytes < (int64_t)thr[T_SMALL_BYTES]) {
		r[MF_SMALL_N] += n;
		r[MF_SMALL_T] += dur;
		r[MF_SMALL_B] += bytes;
	}
	struct dft_buf k;

	dft_buf_init(&k);
	dft_buf_add(&k, u->file, u->filen);
	dft_buf_addc(&k, '\x1e');
	dft_buf_add(&k, u->proc, u->procn);
	agg_row(a, M_MPIFILEPROC, k.s, k.len)[0] += n;
	dft_buf_release(&k);
	return bytes;
}

/* ---- sums ----------------------------------------------------------------- */

/* How many processes call MPI-IO data functions on file k. */
static int64_t
mpi_procs(struct agg *a, const char *k, size_t kn)
{
	int64_t n = 0;

	for (size_t i = 0; i < a->m[M_MPIFILEPROC].count; i++) {
		size_t jn;
		const char *j = dft_tmap_key(&a->m[M_MPIFILEPROC], i, &jn);

		if (jn > kn && j[kn] == '\x1e' && memcmp(j, k, kn) == 0)
			n++;
	}
	return n;
}

int64_t
mpiio_sums(struct agg *a, int w, int shared, int64_t *out)
{
	int64_t nf = 0;

	memset(out, 0, sizeof(*out) * MF_W);
	for (size_t i = 0; i < a->m[M_MPIFILE].count; i++) {
		size_t kn;
		const char *k = dft_tmap_key(&a->m[M_MPIFILE], i, &kn);
		const int64_t *r = (const int64_t *)dft_tmap_value(
			&a->m[M_MPIFILE], i) + MF_W * w;

		if (skip_file(k, kn) || r[MF_N] == 0 ||
		    (shared && mpi_procs(a, k, kn) < 2))
			continue;
		for (int j = 0; j < MF_W; j++)
			out[j] += r[j];
		nf++;
	}
	return nf;
}

/* The files (at most 5, by the time of column col of direction w) and a
 * set of all files with col > 0; shared: only shared files. */
static json_object *
mpi_files(struct agg *a, int w, int col, int shared, struct dft_tmap *set)
{
	struct dft_tmap *m = &a->m[M_MPIFILE];
	struct { double v; const char *k; } *c =
		dft_xcalloc(m->count + 1, sizeof(*c));
	size_t nc = 0;
	json_object *arr = json_object_new_array();

	for (size_t i = 0; i < m->count; i++) {
		size_t kn;
		const char *k = dft_tmap_key(m, i, &kn);
		const int64_t *r = (const int64_t *)dft_tmap_value(m, i) +
				   MF_W * w;

		if (skip_file(k, kn) || r[col] <= 0 ||
		    (shared && mpi_procs(a, k, kn) < 2))
			continue;
		dft_tmap_get(set, k, kn, 1, NULL);
		size_t j = nc++;

		/* insertion by time, then name */
		while (j > 0 && (c[j - 1].v < (double)r[MF_T] ||
				 (c[j - 1].v == (double)r[MF_T] &&
				  strcmp(c[j - 1].k, k) > 0))) {
			c[j] = c[j - 1];
			j--;
		}
		c[j].v = (double)r[MF_T];
		c[j].k = k;
	}
	for (size_t i = 0; i < nc && i < 5; i++)
		json_object_array_add(arr, dft_jstr(c[i].k));
	free(c);
	return arr;
}

/* ---- insights ------------------------------------------------------------- */

/*
 * M02 / M03 (d->w): MPI-IO reads (writes) and none of them collective,
 * with more than collective_operations_absolute of them (Drishti HIGH).
 * The files listed are those whose independent share of the direction's
 * calls is above collective_operations.
 */
void
i_mpiio_collective(struct rules_ctx *c, const struct insight *d)
{
	int64_t s[MF_W];
	int w = d->w;
	struct dft_tmap files;

	mpiio_sums(c->a, w, 0, s);
	if (s[MF_N] == 0 || s[MF_COLL_N] != 0 || s[MF_N] <= insight_aux(d))
		return;
	double v = (double)s[MF_IND_N] / (double)s[MF_N];

	if (v <= insight_thr(d))
		return;
	struct finding *f = finding_add(c->r, d, "all", v,
					insight_score(d, d->level, v));

	dft_tmap_init(&files, sizeof(int64_t));
	finding_evi(f, w ? "mpiio_writes" : "mpiio_reads", s[MF_N]);
	finding_evi(f, "independent", s[MF_IND_N]);
	finding_evi(f, "collective", s[MF_COLL_N]);
	finding_evd(f, "independent_time_s", s[MF_IND_T] / 1e6);
	finding_evi(f, "independent_bytes", s[MF_IND_B]);
	finding_evi(f, "collective_operations_absolute",
		    (int64_t)insight_aux(d));
	json_object_object_add(f->evidence, "files",
			       mpi_files(c->a, w, MF_IND_N, 0, &files));
	f->functions = functions_for(c->a, 1u << (w ? C_WRITE : C_READ),
				     &files, NULL);
	dft_tmap_release(&files);
	f->description = dft_xasprintf(
		"the application uses MPI-IO but no collective %s: %lld "
		"independent %s calls (%.1f%%) in %.3f s", w ? "writes" :
		"reads", (long long)s[MF_IND_N], w ? "write" : "read",
		100 * v, s[MF_IND_T] / 1e6);
}

/* M04 / M05 (d->w): collective MPI-IO reads (writes) are used (OK). */
void
i_mpiio_uses_collective(struct rules_ctx *c, const struct insight *d)
{
	int64_t s[MF_W];
	int w = d->w;

	mpiio_sums(c->a, w, 0, s);
	if (s[MF_COLL_N] == 0)
		return;
	double v = (double)s[MF_COLL_N] / (double)s[MF_N];
	struct finding *f = finding_add(c->r, d, "all", v,
					insight_score(d, d->level, v));

	finding_evi(f, w ? "mpiio_writes" : "mpiio_reads", s[MF_N]);
	finding_evi(f, "collective", s[MF_COLL_N]);
	finding_evd(f, "collective_time_s", s[MF_COLL_T] / 1e6);
	f->functions = json_object_new_array();
	f->description = dft_xasprintf(
		"%lld of %lld MPI-IO %s calls (%.1f%%) are collective",
		(long long)s[MF_COLL_N], (long long)s[MF_N],
		w ? "write" : "read", 100 * v);
}

/*
 * M06 / M07 (d->w): MPI-IO reads (writes), none non-blocking (Drishti
 * WARN); d->under: some are non-blocking (OK).
 */
void
i_mpiio_blocking(struct rules_ctx *c, const struct insight *d)
{
	int64_t s[MF_W];
	int w = d->w;

	mpiio_sums(c->a, w, 0, s);
	if (s[MF_N] == 0 || (s[MF_NB_N] > 0) != d->under)
		return;
	double v = (double)s[MF_NB_N] / (double)s[MF_N];
	struct finding *f = finding_add(c->r, d, "all", v,
					insight_score(d, d->level, v));

	finding_evi(f, w ? "mpiio_writes" : "mpiio_reads", s[MF_N]);
	finding_evi(f, "nonblocking", s[MF_NB_N]);
	finding_evd(f, w ? "write_time_s" : "read_time_s", s[MF_T] / 1e6);
	finding_evi(f, "hdf5_over_mpiio",
		    c->a->layer[L_HDF5][LF_DER + 3 * 7]);
	f->functions = functions_for(c->a, 1u << (w ? C_WRITE : C_READ),
				     NULL, NULL);
	f->description = d->under ?
		dft_xasprintf("%lld of %lld MPI-IO %s calls are non-blocking",
			      (long long)s[MF_NB_N], (long long)s[MF_N],
			      w ? "write" : "read") :
		dft_xasprintf("all %lld MPI-IO %s calls are blocking (%.3f s): "
			      "non-blocking calls could overlap them with "
			      "computation", (long long)s[MF_N],
			      w ? "write" : "read", s[MF_T] / 1e6);
}

/*
 * P15 / P16 (d->w) on the MPI-IO layer: MPI-IO data calls under
 * small_bytes on files two or more processes call MPI-IO data functions
 * on, their share over small_requests (HIGH; WARN up to
 * small_requests_absolute of them).
 */
void
i_mpiio_shared_small(struct rules_ctx *c, const struct insight *d)
{
	int64_t s[MF_W];
	int w = d->w;
	int64_t nf = mpiio_sums(c->a, w, 1, s);
	struct dft_tmap files;

	if (s[MF_N] == 0)
		return;
	double v = (double)s[MF_SMALL_N] / (double)s[MF_N];

	if (v <= insight_thr(d))
		return;
	int abs_ok = s[MF_SMALL_N] > insight_aux(d);
	struct finding *f = finding_add(c->r, d, "shared files", v,
		insight_score(d, abs_ok ? d->level : LV_WARN, v));

	dft_tmap_init(&files, sizeof(int64_t));
	finding_evi(f, w ? "small_writes" : "small_reads", s[MF_SMALL_N]);
	finding_evi(f, w ? "mpiio_writes" : "mpiio_reads", s[MF_N]);
	finding_evd(f, "small_time_s", s[MF_SMALL_T] / 1e6);
	finding_evi(f, "small_bytes", (int64_t)thr[T_SMALL_BYTES]);
	finding_evi(f, "shared_files", nf);
	finding_evi(f, "independent", s[MF_IND_N]);
	json_object_object_add(f->evidence, "files",
			       mpi_files(c->a, w, MF_SMALL_N, 1, &files));
	f->functions = functions_for(c->a, 1u << (w ? C_WRITE : C_READ),
				     &files, NULL);
	dft_tmap_release(&files);
	f->description = dft_xasprintf(
		"%lld of %lld MPI-IO %s calls on %lld shared file(s) are "
		"smaller than %lld bytes%s", (long long)s[MF_SMALL_N],
		(long long)s[MF_N], w ? "write" : "read", (long long)nf,
		(long long)thr[T_SMALL_BYTES],
		abs_ok ? "" : "; below the absolute count threshold");
}

/* ---- aggregators per node (M08-M10) -------------------------------------- */

/*
 * The files MPI_File_open opened, at most max of them in out: per file
 * the cb_nodes hint (the largest its opens carry; 0: none) and its nodes
 * (the hosts whose processes opened it). Returns how many.
 */
int64_t
mpiio_cb_files(struct agg *a, struct mpi_cb *out, size_t max)
{
	struct dft_tmap *m = &a->m[M_MPICB];
	size_t nf = 0;

	for (size_t i = 0; i < m->count; i++) {
		size_t kn;
		const char *k = dft_tmap_key(m, i, &kn);
		const char *sep = memchr(k, '\x1e', kn);
		size_t fn = sep ? (size_t)(sep - k) : kn;
		int64_t cb = *(const int64_t *)dft_tmap_value(m, i);
		size_t j;

		if (skip_file(k, fn))
			continue;
		for (j = 0; j < nf; j++)
			if (out[j].filen == fn && memcmp(out[j].file, k, fn) == 0)
				break;
		if (j == nf) {
			if (nf == max)
				continue;
			out[nf].file = k;
			out[nf].filen = fn;
			out[nf].cb_nodes = 0;
			out[nf].nodes = 0;
			nf++;
		}
		out[j].nodes++;
		if (cb > out[j].cb_nodes)
			out[j].cb_nodes = cb;
	}
	return (int64_t)nf;
}

/* -1, 0, 1: the code's relation of cb_nodes to nodes (M08, M10, M09) */
static int
cb_rel(const struct insight *d)
{
	return strcmp(d->code, "M08") == 0 ? -1 :
	       strcmp(d->code, "M09") == 0 ? 1 : 0;
}

int
mpiio_cb_rel(const struct mpi_cb *f)
{
	return f->cb_nodes < f->nodes ? -1 : f->cb_nodes > f->nodes;
}

/*
 * M08 / M09 / M10: the files whose cb_nodes hint is below (M08, intra-node
 * aggregators, OK), above (M09, inter-node aggregators, HIGH) or equal to
 * (M10, one per node, OK) the number of nodes that opened them, as
 * Drishti compares cb_nodes with the job's compute nodes. Files without
 * the hint are not judged.
 */
void
i_mpiio_aggregators(struct rules_ctx *c, const struct insight *d)
{
	size_t max = c->a->m[M_MPICB].count + 1;
	struct mpi_cb *cf = dft_xcalloc(max, sizeof(*cf));
	int64_t n = mpiio_cb_files(c->a, cf, max), hit = 0, cb = 0, nodes = 0;
	int rel = cb_rel(d);
	double v = 0;
	json_object *files = json_object_new_array();
	int64_t s[MF_W];

	for (int64_t i = 0; i < n; i++) {
		double r;

		if (cf[i].cb_nodes <= 0 || mpiio_cb_rel(&cf[i]) != rel)
			continue;
		r = (double)cf[i].cb_nodes / (double)cf[i].nodes;
		/* the file furthest from one per node speaks for them */
		if (hit == 0 || (rel > 0 ? r > v : r < v)) {
			v = r;
			cb = cf[i].cb_nodes;
			nodes = cf[i].nodes;
		}
		if (hit < 5)
			json_object_array_add(files,
				json_object_new_string_len(cf[i].file,
							   (int)cf[i].filen));
		hit++;
	}
	free(cf);
	if (hit == 0) {
		json_object_put(files);
		return;
	}
	struct finding *f = finding_add(c->r, d, "all", v,
					insight_score(d, d->level, v));

	finding_evi(f, "cb_nodes", cb);
	finding_evi(f, "nodes", nodes);
	finding_evi(f, "files_with_hint", hit);
	json_object_object_add(f->evidence, "files", files);
	if (rel > 0) {
		mpiio_sums(c->a, 1, 0, s);
		finding_evi(f, "collective_writes", s[MF_COLL_N]);
		int64_t rd[MF_W];

		mpiio_sums(c->a, 0, 0, rd);
		finding_evi(f, "collective_reads", rd[MF_COLL_N]);
	}
	f->functions = json_object_new_array();
	f->description = rel > 0 ?
		dft_xasprintf("%lld file(s) opened with cb_nodes=%lld on %lld "
			      "node(s): the collective buffering aggregators "
			      "are more than the nodes, so their transfers "
			      "cross the network", (long long)hit,
			      (long long)cb, (long long)nodes) :
		dft_xasprintf("%lld file(s) opened with cb_nodes=%lld on %lld "
			      "node(s): %s", (long long)hit, (long long)cb,
			      (long long)nodes, rel < 0 ?
			      "intra-node aggregators (fewer than the nodes)" :
			      "one aggregator per node");
}

/*
 * X05: X01's rule on the HDF5 layer. HDF5 metadata calls (file, group
 * and dataset create/open/close, every attribute call) take at least
 * metadata_time_share of the HDF5 calls' time, and there are at least
 * hdf5_metadata_operations_absolute of them (a handful of creates and
 * closes is what any HDF5 program makes). The evidence splits them by
 * kind, largest time first (WisIO's "dominant operation"), with the
 * attributes' bytes.
 */
void
i_hdf5_metadata(struct rules_ctx *c, const struct insight *d)
{
	static const struct {
		const char *name;
		int slot;
	} kinds[] = { { "attribute", 9 }, { "file", 0 }, { "dataset", 1 },
		      { "group", 2 } };
	const int64_t *l = c->a->layer[L_HDF5];
	double v = l[LF_T] > 0 ? (double)l[LF_MT] / (double)l[LF_T] : 0;
	int top = 0;

	if (l[LF_MN] <= 0 || l[LF_MN] < insight_aux(d) || v < insight_thr(d))
		return;
	struct finding *f = finding_add(c->r, d, "all", v,
					insight_score(d, d->level, v));
	json_object *by = json_object_new_array();

	for (int i = 0; i < 4; i++) {
		const int64_t *k = l + LF_DER + 3 * kinds[i].slot;
		json_object *o = json_object_new_object();

		if (k[1] > l[LF_DER + 3 * kinds[top].slot + 1])
			top = i;
		json_object_object_add(o, "kind", dft_jstr(kinds[i].name));
		json_object_object_add(o, "count", dft_jint(k[0]));
		json_object_object_add(o, "time_s", dft_jdouble(k[1] / 1e6));
		json_object_array_add(by, o);
	}
	const int64_t *at = l + LF_DER + 3 * 9;

	finding_evi(f, "hdf5_metadata_ops", l[LF_MN]);
	finding_evd(f, "hdf5_metadata_time_s", l[LF_MT] / 1e6);
	finding_evd(f, "hdf5_time_s", l[LF_T] / 1e6);
	finding_evi(f, "attribute_ops", at[0]);
	finding_evi(f, "attribute_bytes", at[2]);
	finding_evi(f, "hdf5_metadata_operations_absolute",
		    (int64_t)insight_aux(d));
	json_object_object_add(f->evidence, "by_kind", by);
	json_object_object_add(f->evidence, "dominant",
			       dft_jstr(kinds[top].name));
	f->functions = json_object_new_array();
	f->description = dft_xasprintf(
		"%.1f%% of the HDF5 time (%.3f of %.3f s) is metadata: %lld "
		"file, group, dataset and attribute calls, most time in %s "
		"calls (%lld attribute calls moving %lld bytes)", 100 * v,
		l[LF_MT] / 1e6, l[LF_T] / 1e6, (long long)l[LF_MN],
		kinds[top].name, (long long)at[0], (long long)at[2]);
}
