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
 * region handles are integers, None for NULL.  Traced (wrap()) is the
 * decorators' wrapper of a function, its region made in C around each call
 * (the package's Python wrapper without the extension).
 */
#define Py_LIMITED_API 0x03070000
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <structmember.h>

#include <dlfcn.h>
#include <limits.h>
#include <stddef.h>

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

/* ---- the decorator's wrapper ------------------------------------------ */

/*
 * Traced: what dft_fn(...).log makes of a function when this module binds
 * the library (dftracer.python._traced): a callable whose call makes the
 * region in C, one crossing instead of the Python wrapper's frame, its
 * packed arguments and the two bound calls (initialize_region,
 * finalize_region).  What the Python wrapper does, in the same order:
 * the call's arguments read by capture (a Python function of the package,
 * called on every call when always is set, else on a call whose keywords
 * name one of the four), the fixed arguments under them, the region
 * opened, its arguments added by the package's update, the function
 * called, the region closed however it returns.  capture is NULL until
 * the first call, which asks the package's first(func) for (capture,
 * always).  A descriptor as a function is (bound methods), with the
 * method-descriptor flag so that obj.meth(...) calls it with obj first
 * without making a bound method; its __dict__ holds what functools.wraps
 * would set.
 */
typedef struct {
	PyObject_HEAD
	PyObject *func;
	PyObject *name, *cat;	/* bytes: the region's name and category */
	const char *cname, *ccat;
	PyObject *fixed;	/* a non-empty dict, or NULL */
	PyObject *capture;	/* NULL before the first call */
	int always;
	PyObject *dict;
	PyObject *weaklist;
} Traced;

static PyObject *traced_type;
static PyObject *hook_first, *hook_update, *method_type, *assigned;
static PyObject *auto_keys[4];
static PyObject *s_dict, *s_wrapped;	/* interned names */

static int traced_first(Traced *w)
{
	PyObject *r = PyObject_CallFunctionObjArgs(hook_first, w->func, NULL);
	PyObject *c;
	int always;

	if (!r)
		return -1;
	if (!PyTuple_Check(r) || PyTuple_Size(r) != 2) {
		Py_DECREF(r);
		PyErr_SetString(PyExc_TypeError,
				"dftracer._cext: first() must give (capture, always)");
		return -1;
	}
	c = PyTuple_GetItem(r, 0);
	always = PyObject_IsTrue(PyTuple_GetItem(r, 1));
	if (always < 0) {
		Py_DECREF(r);
		return -1;
	}
	Py_INCREF(c);
	Py_XDECREF(w->capture);
	w->capture = c;
	w->always = always;
	Py_DECREF(r);
	return 0;
}

/* whether a call's keywords name one of the four */
static int names_auto(PyObject *kw)
{
	for (int i = 0; i < 4; i++) {
		int r = PyDict_Contains(kw, auto_keys[i]);

		if (r)
			return r;	/* 1, or -1 on error */
	}
	return 0;
}

/* the call's arguments for its region: a new reference, NULL on error,
 * None when there are none */
static PyObject *traced_args(Traced *w, PyObject *args, PyObject *kw)
{
	PyObject *a = NULL;
	int need = w->always;

	if (!need && kw && PyDict_Size(kw) > 0) {
		need = names_auto(kw);
		if (need < 0)
			return NULL;
	}
	if (need) {
		PyObject *k = kw;

		/* held: another thread's first call may replace it */
		PyObject *cap = w->capture;

		if (!k && !(k = PyDict_New()))
			return NULL;
		Py_INCREF(cap);
		a = PyObject_CallFunctionObjArgs(cap, args, k, NULL);
		Py_DECREF(cap);
		if (k != kw)
			Py_DECREF(k);
		if (!a)
			return NULL;
	}
	if (w->fixed) {
		int t = a ? PyObject_IsTrue(a) : 0;

		if (t < 0) {
			Py_DECREF(a);
			return NULL;
		}
		if (t) {	/* dict(fixed, **a) */
			PyObject *m = PyDict_Copy(w->fixed);

			if (!m || PyDict_Update(m, a) < 0) {
				Py_XDECREF(m);
				Py_DECREF(a);
				return NULL;
			}
			Py_DECREF(a);
			return m;
		}
		Py_XDECREF(a);
		Py_INCREF(w->fixed);
		return w->fixed;
	}
	if (!a) {
		Py_INCREF(Py_None);
		return Py_None;
	}
	return a;
}

static PyObject *traced_call(PyObject *self, PyObject *args, PyObject *kw)
{
	Traced *w = (Traced *)self;
	struct DFTracerData *h;
	PyObject *a, *res;
	int t;

	if (!w->func) {
		PyErr_SetString(PyExc_RuntimeError,
				"dftracer._cext: wrapper cleared");
		return NULL;
	}
	if (!w->capture && traced_first(w) < 0)
		return NULL;
	if (!(a = traced_args(w, args, kw)))
		return NULL;
	h = F.region(w->cname, w->ccat, 0);
	if (!h) {
		Py_DECREF(a);
		return PyObject_Call(w->func, args, kw);
	}
	t = a == Py_None ? 0 : PyObject_IsTrue(a);
	if (t > 0) {
		PyObject *ph = PyLong_FromVoidPtr(h), *r = NULL;

		if (ph)
			r = PyObject_CallFunctionObjArgs(hook_update, ph, a,
							 NULL);
		Py_XDECREF(ph);
		if (!r)
			t = -1;
		Py_XDECREF(r);
	}
	Py_DECREF(a);
	if (t < 0) {
		F.region_end(h);
		return NULL;
	}
	res = PyObject_Call(w->func, args, kw);
	F.region_end(h);
	return res;
}

/* a function's __get__: the wrapper itself from the class, a bound method
 * from an instance */
static PyObject *traced_get(PyObject *self, PyObject *obj, PyObject *type)
{
	if (!obj || obj == Py_None) {
		Py_INCREF(self);
		return self;
	}
	return PyObject_CallFunctionObjArgs(method_type, self, obj, NULL);
}

static int traced_traverse(PyObject *self, visitproc visit, void *arg)
{
	Traced *w = (Traced *)self;

	Py_VISIT(Py_TYPE(self));
	Py_VISIT(w->func);
	Py_VISIT(w->fixed);
	Py_VISIT(w->capture);
	Py_VISIT(w->dict);
	return 0;
}

static int traced_clear(PyObject *self)
{
	Traced *w = (Traced *)self;

	Py_CLEAR(w->func);
	Py_CLEAR(w->fixed);
	Py_CLEAR(w->capture);
	Py_CLEAR(w->dict);
	return 0;
}

static void traced_dealloc(PyObject *self)
{
	Traced *w = (Traced *)self;
	PyTypeObject *tp = Py_TYPE(self);
	freefunc fr = (freefunc)PyType_GetSlot(tp, Py_tp_free);

	PyObject_GC_UnTrack(self);
	if (w->weaklist)
		PyObject_ClearWeakRefs(self);
	traced_clear(self);
	Py_CLEAR(w->name);
	Py_CLEAR(w->cat);
	fr(self);
	Py_DECREF(tp);
}

static PyObject *traced_getdict(PyObject *self, void *unused)
{
	Traced *w = (Traced *)self;

	if (!w->dict && !(w->dict = PyDict_New()))
		return NULL;
	Py_INCREF(w->dict);
	return w->dict;
}

static int traced_setdict(PyObject *self, PyObject *v, void *unused)
{
	Traced *w = (Traced *)self;

	if (!v || !PyDict_Check(v)) {
		PyErr_SetString(PyExc_TypeError,
				"__dict__ must be set to a dictionary");
		return -1;
	}
	Py_INCREF(v);
	Py_XDECREF(w->dict);
	w->dict = v;
	return 0;
}

/* pickled by reference, as a function: pickle looks the name up in
 * __module__ and finds the wrapper there */
static PyObject *traced_reduce(PyObject *self, PyObject *unused)
{
	return PyObject_GetAttrString(self, "__qualname__");
}

static PyObject *traced_repr(PyObject *self)
{
	PyObject *q = PyObject_GetAttrString(self, "__qualname__"), *r;

	if (!q) {
		PyErr_Clear();
		return PyUnicode_FromFormat("<function at %p>", self);
	}
	r = PyUnicode_FromFormat("<function %S at %p>", q, self);
	Py_DECREF(q);
	return r;
}

static PyMemberDef traced_members[] = {
	{"__dictoffset__", T_PYSSIZET, offsetof(Traced, dict), READONLY, NULL},
	{"__weaklistoffset__", T_PYSSIZET, offsetof(Traced, weaklist), READONLY,
	 NULL},
	{NULL, 0, 0, 0, NULL},
};

static PyGetSetDef traced_getset[] = {
	{"__dict__", traced_getdict, traced_setdict, NULL, NULL},
	{NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef traced_methods[] = {
	{"__reduce__", traced_reduce, METH_NOARGS, NULL},
	{NULL, NULL, 0, NULL},
};

static PyType_Slot traced_slots[] = {
	{Py_tp_call, traced_call},
	{Py_tp_descr_get, traced_get},
	{Py_tp_traverse, traced_traverse},
	{Py_tp_clear, traced_clear},
	{Py_tp_dealloc, traced_dealloc},
	{Py_tp_repr, traced_repr},
	{Py_tp_members, traced_members},
	{Py_tp_getset, traced_getset},
	{Py_tp_methods, traced_methods},
	{0, NULL},
};

#ifndef Py_TPFLAGS_METHOD_DESCRIPTOR	/* 3.8's, not in the limited API */
#define Py_TPFLAGS_METHOD_DESCRIPTOR (1UL << 17)
#endif

static PyType_Spec traced_spec = {
	"dftracer._cext.Traced", sizeof(Traced), 0,
	Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_METHOD_DESCRIPTOR,
	traced_slots,
};

/* setup(first, update, method_type, assigned): the package's functions the
 * wrappers call (first(func) -> (capture, always); update(handle, dict)),
 * types.MethodType and the names functools.wraps assigns
 * (WRAPPER_ASSIGNMENTS); makes the wrapper type */
static PyObject *m_setup(PyObject *self, PyObject *args)
{
	static const char *const keys[4] = {"epoch", "step", "image_idx",
					    "image_size"};
	PyObject *first, *update, *mt, *names;

	if (!PyArg_ParseTuple(args, "OOOO!", &first, &update, &mt,
			      &PyTuple_Type, &names))
		return NULL;
	for (int i = 0; i < 4; i++)
		if (!auto_keys[i] &&
		    !(auto_keys[i] = PyUnicode_InternFromString(keys[i])))
			return NULL;
	if (!s_dict && !(s_dict = PyUnicode_InternFromString("__dict__")))
		return NULL;
	if (!s_wrapped &&
	    !(s_wrapped = PyUnicode_InternFromString("__wrapped__")))
		return NULL;
	if (!traced_type && !(traced_type = PyType_FromSpec(&traced_spec)))
		return NULL;
	Py_INCREF(first);
	Py_INCREF(update);
	Py_INCREF(mt);
	Py_INCREF(names);
	Py_XDECREF(hook_first);
	Py_XDECREF(hook_update);
	Py_XDECREF(method_type);
	Py_XDECREF(assigned);
	hook_first = first;
	hook_update = update;
	method_type = mt;
	assigned = names;
	Py_RETURN_NONE;
}

/* what functools.update_wrapper(w, func) does: the assigned attributes
 * func has, func's __dict__, __wrapped__.  Straight into w's dict: the
 * type has no descriptor of these names (setattr's type lookup would
 * find nothing).  In C: 3 k instructions less a decorated function than
 * the package's loop, and a program decorates every traced function as
 * it imports it. */
static int traced_wraps(Traced *w, PyObject *func)
{
	PyObject *d = PyDict_New(), *fd;
	Py_ssize_t n = PyTuple_Size(assigned);

	if (!d)
		return -1;
	w->dict = d;
	for (Py_ssize_t i = 0; i < n; i++) {
		PyObject *k = PyTuple_GetItem(assigned, i);
		PyObject *v = PyObject_GetAttr(func, k);
		int r;

		if (!v) {
			if (!PyErr_ExceptionMatches(PyExc_AttributeError))
				return -1;
			PyErr_Clear();
			continue;
		}
		r = PyDict_SetItem(d, k, v);
		Py_DECREF(v);
		if (r < 0)
			return -1;
	}
	fd = PyObject_GetAttr(func, s_dict);
	if (!fd) {
		if (!PyErr_ExceptionMatches(PyExc_AttributeError))
			return -1;
		PyErr_Clear();
	} else {
		int r = PyDict_Check(fd) ? PyDict_Update(d, fd) :
			PyDict_Merge(d, fd, 1);

		Py_DECREF(fd);
		if (r < 0)
			return -1;
	}
	return PyDict_SetItem(d, s_wrapped, func);
}

/* wrap(func, name, cat, fixed): func's Traced wrapper, with func's
 * attributes as functools.wraps sets them; name and cat are bytes, fixed
 * a dict or None */
static PyObject *m_wrap(PyObject *self, PyObject *args)
{
	PyObject *func, *name, *cat, *fixed;
	Traced *w;

	NEED_BOUND();
	if (!traced_type || !hook_first) {
		PyErr_SetString(PyExc_RuntimeError,
				"dftracer._cext: setup() not called");
		return NULL;
	}
	if (!PyArg_ParseTuple(args, "OSSO", &func, &name, &cat, &fixed))
		return NULL;
	if (fixed != Py_None && !PyDict_Check(fixed)) {
		PyErr_SetString(PyExc_TypeError, "fixed must be a dict or None");
		return NULL;
	}
	w = (Traced *)PyType_GenericAlloc((PyTypeObject *)traced_type, 0);
	if (!w)
		return NULL;
	Py_INCREF(func);
	w->func = func;
	Py_INCREF(name);
	w->name = name;
	Py_INCREF(cat);
	w->cat = cat;
	w->cname = PyBytes_AsString(name);
	w->ccat = PyBytes_AsString(cat);
	if (fixed != Py_None && PyDict_Size(fixed) > 0) {
		Py_INCREF(fixed);
		w->fixed = fixed;
	}
	if (traced_wraps(w, func) < 0) {
		Py_DECREF(w);
		return NULL;
	}
	return (PyObject *)w;
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
	{"setup", m_setup, METH_VARARGS,
	 "setup(first, update, method_type, assigned): the wrapper's hooks"},
	{"wrap", m_wrap, METH_VARARGS,
	 "wrap(func, name, cat, fixed) -> the traced wrapper of func"},
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
