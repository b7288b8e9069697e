/*
 * pyext.c - dftracer._cext, the Python package's binding of the runtime's C
 * library: the functions the package calls, without ctypes (whose import
 * costs a traced Python process ~6 M instructions, this module ~0.5 M with
 * the library).
 *
 * Built with the stable ABI (Py_LIMITED_API: one _cext.abi3.so for every
 * Python 3 from 3.7), when Python.h is installed; the package falls back to
 * ctypes without it.  The library is not linked: bind() takes the copy
 * already in the process (the preload library, or a program linked with
 * libdftracer_core.so), else dlopen()s a path the package gives, as
 * ctypes.CDLL(None) and ctypes.CDLL(path) did.  Strings are bytes or None;
 * region handles are integers, None for NULL.
 */
#define Py_LIMITED_API 0x03070000
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <dlfcn.h>
#include <limits.h>

struct DFTracerData;

static struct {
	int (*present)(void);
	int (*active)(void);
	void (*initialize)(const char *, const char *, int);
	unsigned long long (*get_time)(void);
	void (*log_event)(const char *, const char *, unsigned long long,
			  unsigned long long, const char *);
	void (*log_metadata)(const char *, const char *);
	struct DFTracerData *(*region)(const char *, const char *, int);
	void (*region_end)(struct DFTracerData *);
	void (*update_int)(struct DFTracerData *, const char *, int);
	void (*update_string)(struct DFTracerData *, const char *,
			      const char *);
	void (*update_double)(struct DFTracerData *, const char *, double);
	void (*finalize)(void);
} F;
static int bound;

/* one symbol of h into *slot; 0 when missing */
static int sym(void *h, const char *name, void *slot)
{
	void *p = dlsym(h, name);

	memcpy(slot, &p, sizeof(p));
	return p != NULL;
}

static int bind_from(void *h)
{
	return sym(h, "dft_rt_present", &F.present) &&
	       sym(h, "dft_rt_active", &F.active) &&
	       sym(h, "dft_rt_initialize", &F.initialize) &&
	       sym(h, "dft_rt_get_time", &F.get_time) &&
	       sym(h, "dft_rt_log_event", &F.log_event) &&
	       sym(h, "dft_rt_log_metadata", &F.log_metadata) &&
	       sym(h, "initialize_region", &F.region) &&
	       sym(h, "finalize_region", &F.region_end) &&
	       sym(h, "update_metadata_int", &F.update_int) &&
	       sym(h, "update_metadata_string", &F.update_string) &&
	       sym(h, "dft_rt_update_double", &F.update_double) &&
	       sym(h, "finalize", &F.finalize);
}

/* O& converter: bytes or None to a C string (NULL for None) */
static int cstr(PyObject *o, void *out)
{
	const char **s = out;

	if (o == Py_None) {
		*s = NULL;
		return 1;
	}
	*s = PyBytes_AsString(o);
	return *s != NULL;
}

/* O& converter: an integer handle or None */
static int handle(PyObject *o, void *out)
{
	struct DFTracerData **d = out;

	if (o == Py_None) {
		*d = NULL;
		return 1;
	}
	*d = PyLong_AsVoidPtr(o);
	return !PyErr_Occurred();
}

/* The hot calls (a region per decorated call, its integer arguments) take
 * their arguments from the tuple themselves: PyArg_ParseTuple's format walk
 * was ~500 of the ~900 instructions of initialize_region's binding.  The
 * errors are PyArg_ParseTuple's: TypeError for a wrong count or type,
 * OverflowError for an int out of range. */
static int nargs(PyObject *args, Py_ssize_t n)
{
	if (PyTuple_Size(args) == n)
		return 1;
	PyErr_Format(PyExc_TypeError,
		     "function takes exactly %d arguments (%zd given)", (int)n,
		     PyTuple_Size(args));
	return 0;
}

static int arg_cstr(PyObject *args, Py_ssize_t i, const char **s)
{
	PyObject *o = PyTuple_GetItem(args, i);

	return o && cstr(o, s);
}

static int arg_int(PyObject *args, Py_ssize_t i, int *v)
{
	PyObject *o = PyTuple_GetItem(args, i);
	long l;

	if (!o)
		return 0;
	l = PyLong_AsLong(o);
	if (l == -1 && PyErr_Occurred())
		return 0;
	if (l < INT_MIN || l > INT_MAX) {
		PyErr_SetString(PyExc_OverflowError,
				l > INT_MAX ? "signed integer is greater than maximum"
					    : "signed integer is less than minimum");
		return 0;
	}
	*v = (int)l;
	return 1;
}

/* bind(path): binds the library already in the process (path None) or the
 * one at path; True when every function was found */
static PyObject *m_bind(PyObject *self, PyObject *args)
{
	const char *path;
	void *h;

	if (!PyArg_ParseTuple(args, "O&", cstr, &path))
		return NULL;
	if (bound)
		Py_RETURN_TRUE;
	if (!path) {	/* RTLD_DEFAULT is NULL in glibc */
		bound = bind_from(RTLD_DEFAULT);
		return PyBool_FromLong(bound);
	}
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (h && bind_from(h)) {
		bound = 1;
		Py_RETURN_TRUE;
	}
	if (h)
		dlclose(h);
	Py_RETURN_FALSE;
}

#define NEED_BOUND()                                                          \
	do {                                                                  \
		if (!bound) {                                                 \
			PyErr_SetString(PyExc_RuntimeError,                   \
					"dftracer._cext: library not bound"); \
			return NULL;                                          \
		}                                                             \
	} while (0)

static PyObject *m_present(PyObject *self, PyObject *unused)
{
	NEED_BOUND();
	return PyLong_FromLong(F.present());
}

static PyObject *m_active(PyObject *self, PyObject *unused)
{
	NEED_BOUND();
	return PyLong_FromLong(F.active());
}

static PyObject *m_initialize(PyObject *self, PyObject *args)
{
	const char *lf, *dd;
	int pid;

	NEED_BOUND();
	if (!PyArg_ParseTuple(args, "O&O&i", cstr, &lf, cstr, &dd, &pid))
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	F.initialize(lf, dd, pid);
	Py_END_ALLOW_THREADS
	Py_RETURN_NONE;
}

static PyObject *m_get_time(PyObject *self, PyObject *unused)
{
	NEED_BOUND();
	return PyLong_FromUnsignedLongLong(F.get_time());
}

static PyObject *m_log_event(PyObject *self, PyObject *args)
{
	const char *name, *cat, *frag;
	unsigned long long ts, dur;

	NEED_BOUND();
	if (!PyArg_ParseTuple(args, "O&O&KKO&", cstr, &name, cstr, &cat, &ts,
			      &dur, cstr, &frag))
		return NULL;
	F.log_event(name, cat, ts, dur, frag);
	Py_RETURN_NONE;
}

static PyObject *m_log_metadata(PyObject *self, PyObject *args)
{
	const char *k, *v;

	NEED_BOUND();
	if (!PyArg_ParseTuple(args, "O&O&", cstr, &k, cstr, &v))
		return NULL;
	F.log_metadata(k, v);
	Py_RETURN_NONE;
}

static PyObject *m_region(PyObject *self, PyObject *args)
{
	const char *name, *cat;
	int type;
	struct DFTracerData *d;

	NEED_BOUND();
	if (!nargs(args, 3) || !arg_cstr(args, 0, &name) ||
	    !arg_cstr(args, 1, &cat) || !arg_int(args, 2, &type))
		return NULL;
	d = F.region(name, cat, type);
	if (!d)
		Py_RETURN_NONE;
	return PyLong_FromVoidPtr(d);
}

static PyObject *m_region_end(PyObject *self, PyObject *h)
{
	struct DFTracerData *d;

	NEED_BOUND();
	if (!handle(h, &d))
		return NULL;
	F.region_end(d);
	Py_RETURN_NONE;
}

static PyObject *m_update_int(PyObject *self, PyObject *args)
{
	struct DFTracerData *d;
	const char *k;
	int v;

	NEED_BOUND();
	if (!nargs(args, 3) || !handle(PyTuple_GetItem(args, 0), &d) ||
	    !arg_cstr(args, 1, &k) || !arg_int(args, 2, &v))
		return NULL;
	F.update_int(d, k, v);
	Py_RETURN_NONE;
}

static PyObject *m_update_string(PyObject *self, PyObject *args)
{
	struct DFTracerData *d;
	const char *k, *v;

	NEED_BOUND();
	if (!PyArg_ParseTuple(args, "O&O&O&", handle, &d, cstr, &k, cstr, &v))
		return NULL;
	F.update_string(d, k, v);
	Py_RETURN_NONE;
}

static PyObject *m_update_double(PyObject *self, PyObject *args)
{
	struct DFTracerData *d;
	const char *k;
	double v;

	NEED_BOUND();
	if (!PyArg_ParseTuple(args, "O&O&d", handle, &d, cstr, &k, &v))
		return NULL;
	F.update_double(d, k, v);
	Py_RETURN_NONE;
}

static PyObject *m_finalize(PyObject *self, PyObject *unused)
{
	NEED_BOUND();
	Py_BEGIN_ALLOW_THREADS
	F.finalize();
	Py_END_ALLOW_THREADS
	Py_RETURN_NONE;
}

/* the names of the C functions, as the ctypes binding has them */
static PyMethodDef methods[] = {
	{"bind", m_bind, METH_VARARGS, "bind(path or None) -> bool"},
	{"dft_rt_present", m_present, METH_NOARGS, NULL},
	{"dft_rt_active", m_active, METH_NOARGS, NULL},
	{"dft_rt_initialize", m_initialize, METH_VARARGS, NULL},
	{"dft_rt_get_time", m_get_time, METH_NOARGS, NULL},
	{"dft_rt_log_event", m_log_event, METH_VARARGS, NULL},
	{"dft_rt_log_metadata", m_log_metadata, METH_VARARGS, NULL},
	{"initialize_region", m_region, METH_VARARGS, NULL},
	{"finalize_region", m_region_end, METH_O, NULL},
	{"update_metadata_int", m_update_int, METH_VARARGS, NULL},
	{"update_metadata_string", m_update_string, METH_VARARGS, NULL},
	{"dft_rt_update_double", m_update_double, METH_VARARGS, NULL},
	{"finalize", m_finalize, METH_NOARGS, NULL},
	{NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
	PyModuleDef_HEAD_INIT, "_cext",
	"The dft runtime's C library for the dftracer package (internal).",
	-1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__cext(void)
{
	return PyModule_Create(&module);
}
