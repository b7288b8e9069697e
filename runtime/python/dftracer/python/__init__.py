"""dftracer.python - the pydftracer 2.0.x API over the dft runtime.

    from dftracer.python import dftracer, dft_fn, ai

    log = dftracer.initialize_log(logfile=None, data_dir=None, process_id=-1)

    @dft_fn("COMPUTE").log
    def train(epoch, step): ...

    with dft_fn(cat="io", name="load") as d:
        d.update(step=1)

    for batch in dft_fn("loader").iter(loader): ...

    @ai.compute.forward
    def forward(x): ...

    log.finalize()

Tracing happens only with DFTRACER_ENABLE=1 (read at import time, as
pydftracer does); otherwise every call is a no-op.  Python events are
written by the C runtime: through the preloaded library when the process
runs under LD_PRELOAD=libdftracer_preload.so (so POSIX I/O is traced too),
else through libdftracer_core.so initialised without interception.
"""

import _thread
import os
import sys as _sys

DFTRACER_ENABLE = os.environ.get("DFTRACER_ENABLE", "0") == "1"
DFTRACER_INIT = os.environ.get("DFTRACER_INIT", "PRELOAD")
DFTRACER_LOG_LEVEL = os.environ.get("DFTRACER_LOG_LEVEL", "ERROR")

# Tag types for log_event arguments given as (tag, value) tuples.
TagType = type("TagType", (), {"KEY": 0, "VALUE": 1, "IGNORE": 2})
TAG_KEY, TAG_VALUE, TAG_IGNORE = 0, 1, 2

__all__ = ["dftracer", "dft_fn", "ai", "TagType", "DFTRACER_ENABLE"]

# The C library is bound at the first use with tracing on: by the
# package's C extension (.._cext) when the preload library is in the
# process, else by .._lib (the extension or ctypes, the library found on
# its paths).  With tracing off nothing but os is imported (no ctypes,
# inspect, json, threading or functools); with it on under the preload
# library, the extension alone.
_LIB = None     # the bound library, or None
_tried = False
_load_lock = _thread.allocate_lock()


def _load():
    try:
        from .. import _cext
    except ImportError:
        _cext = None
    if _cext is not None and _cext.bind(None):
        return _cext
    from .. import _lib
    return _lib.load()


def _lib_or_none():
    global _LIB, _tried
    if _tried:
        return _LIB
    if not DFTRACER_ENABLE:
        return None
    with _load_lock:    # a second thread waits for the first's answer
        if not _tried:
            _LIB = _load()
            _tried = True
    return _LIB


def _enc(s):
    if s is None:
        return None
    if isinstance(s, bytes):
        return s
    return str(s).encode("utf-8", "surrogateescape")


def _jstr(s):
    """json.dumps(s) for a str; json is imported only for the strings
    that need escaping."""
    if s.isascii() and s.isprintable() and '"' not in s and "\\" not in s:
        return '"' + s + '"'
    import json
    return json.dumps(s)


def _value(v):
    """A JSON value; (tag, value) tuples keep their value."""
    if isinstance(v, tuple) and len(v) == 2 and isinstance(v[0], int):
        if v[0] == TAG_IGNORE:
            return None
        v = v[1]
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        # inf - inf and nan - nan are nan: not JSON
        return repr(v) if v - v == 0 else "null"
    return _jstr(str(v))


def _fragment(*dicts):
    parts = []
    for d in dicts:
        if not d:
            continue
        for k, v in d.items():
            j = _value(v)
            if j is not None:
                parts.append("," + _jstr(str(k)) + ":" + j)
    return "".join(parts) or None


def _finalize_at_os_exit(lib):
    """os._exit skips atexit, and without LD_PRELOAD nothing intercepts the
    C library's _exit in the interpreter: a forked child that leaves by it
    (multiprocessing's fork start method always does) would lose its trace.
    The runtime's finalize writes the calling process's trace only, so the
    parent's stays open when a child calls it."""
    real = os._exit
    if getattr(real, "_dft_finalizes", False):
        return

    def _exit(status, _real=real, _fin=lib.finalize):
        try:
            _fin()
        finally:
            _real(status)

    _exit._dft_finalizes = True
    _exit.__doc__ = real.__doc__
    os._exit = _exit


class dftracer:
    """The process-wide logger (pydftracer's ``dftracer`` singleton)."""

    __instance = None
    __lock = _thread.allocate_lock()

    def __init__(self):
        self.logger = None
        self._lib = None

    @classmethod
    def get_instance(cls):
        inst = cls.__instance
        if inst is not None:
            return inst
        with cls.__lock:
            if cls.__instance is None:
                cls.__instance = dftracer()
            return cls.__instance

    @staticmethod
    def initialize_log(logfile=None, data_dir=None, process_id=-1):
        log = dftracer.get_instance()
        lib = _lib_or_none()
        if lib is not None and not lib.dft_rt_active():
            lib.dft_rt_initialize(_enc(logfile), _enc(data_dir),
                                  int(process_id if process_id is not None
                                      else -1))
        log._lib = lib
        log.logger = lib
        if lib is not None:
            _finalize_at_os_exit(lib)
        return log

    def _active(self):
        lib = self._lib or _lib_or_none()
        return lib if lib is not None and lib.dft_rt_active() else None

    def get_time(self):
        lib = self._lib or _lib_or_none()
        return int(lib.dft_rt_get_time()) if lib is not None else 0

    def enter_event(self):
        pass

    def exit_event(self):
        pass

    def log_event(self, name, cat, start_time, duration, int_args=None,
                  string_args=None, float_args=None):
        lib = self._active()
        if lib is None:
            return
        lib.dft_rt_log_event(_enc(name), _enc(cat), int(start_time),
                             int(duration),
                             _enc(_fragment(int_args, string_args,
                                            float_args)))

    def log_metadata_event(self, key, value):
        lib = self._active()
        if lib is not None:
            lib.dft_rt_log_metadata(_enc(key), _enc(value))

    def finalize(self):
        lib = self._lib or _lib_or_none()
        if lib is not None:
            lib.finalize()


def _logger():
    return dftracer.get_instance()


def _update(lib, handle, args):
    """Adds args (a dict) to an open region: ints that fit 32 bits as
    ints, other numbers as doubles, the rest as strings; (tag, value)
    tuples keep their value, TAG_IGNORE and None are left out."""
    for k, v in args.items():
        if isinstance(v, tuple) and len(v) == 2 and isinstance(v[0], int):
            if v[0] == TAG_IGNORE:
                continue
            v = v[1]
        if v is None:
            continue
        if isinstance(v, bool):
            lib.update_metadata_string(handle, _enc(k),
                                       b"true" if v else b"false")
        elif isinstance(v, int) and -2**31 <= v < 2**31:
            lib.update_metadata_int(handle, _enc(k), v)
        elif isinstance(v, (int, float)):
            lib.dft_rt_update_double(handle, _enc(k), float(v))
        else:
            lib.update_metadata_string(handle, _enc(k), _enc(v))


class _Open:
    """One open region in the C runtime."""

    __slots__ = ("handle",)

    def __init__(self, name, cat, args):
        lib = _lib_or_none()
        self.handle = None
        if lib is None:
            return
        # NULL (None) when the runtime is not active
        self.handle = lib.initialize_region(_enc(name), _enc(cat), 0)
        self.update(args)

    def update(self, args):
        if self.handle and args:
            _update(_LIB, self.handle, args)

    def close(self):
        if self.handle:
            _LIB.finalize_region(self.handle)
            self.handle = None


# -- the arguments a decorated call records ----------------------------------
#
# pydftracer records epoch, step, image_idx and image_size when the call
# binds them (inspect.signature(func).bind_partial(*args, **kwargs); on a
# binding error, the call's keyword arguments): see ._more, which gives
# that answer without inspect for a plain function.  A plain function none
# of whose parameters is one of the four (nearly every function a program
# decorates) can record one only when a call gives a keyword argument of
# that name: its wrapper looks at its calls' keywords, and ._more is
# imported at the first such call.

_AUTO = ("epoch", "step", "image_idx", "image_size")
_FunctionType = type(_enc)


def _capturer(func):
    from . import _more
    return _more._capturer(func)


def _captured(func, args, kwargs):
    """epoch, step, image_idx, image_size among a call's arguments (the
    answer of inspect's bind_partial)."""
    from . import _more
    return _more._captured(func, args, kwargs)


def _none_of_four(func):
    """Whether func is a plain function none of whose parameters (nor
    *args, **kwargs) is named like one of the four."""
    if type(func) is not _FunctionType:
        return False
    d = func.__dict__
    if d and ("__wrapped__" in d or "__signature__" in d or
              "_partialmethod" in d):
        return False
    code = func.__code__
    flags = code.co_flags
    n = (code.co_argcount + code.co_kwonlyargcount + bool(flags & 0x04) +
         bool(flags & 0x08))
    for x in code.co_varnames[:n]:
        if x in _AUTO:
            return False
    return True


def _keywords_capturer(func):
    """capture(args, kwargs) of a function with none of the four: only a
    call with a keyword argument of that name (a binding error) records
    something, found by ._more."""
    full = []

    def capture(args, kwargs):
        for k in _AUTO:
            if k in kwargs:
                break
        else:
            return None
        if not full:
            full.append(_capturer(func))
        return full[0](args, kwargs)
    return capture


def _first(func):
    """(capture, always) for func's wrapper, at its first call: capture is
    called on every call when always, else on the calls with keyword
    arguments."""
    if _none_of_four(func):
        return _keywords_capturer(func), False
    capture = _capturer(func)
    return capture, not getattr(capture, "never", False)


# functools.wraps without functools (its import costs a traced process
# more than the package): the same attributes, in the same order
_ASSIGNED = ("__module__", "__name__", "__qualname__", "__doc__",
             "__annotations__") + (("__type_params__",)
                                   if _sys.version_info >= (3, 12) else ())


def _wraps(wrapper, func):
    for a in _ASSIGNED:
        try:
            v = getattr(func, a)
        except AttributeError:
            continue
        setattr(wrapper, a, v)
    wrapper.__dict__.update(getattr(func, "__dict__", {}))
    wrapper.__wrapped__ = func
    return wrapper


def _update_handle(handle, args):
    _update(_LIB, handle, args)


class _K:
    def m(self):
        pass


_MethodType = type(_K().m)  # types.MethodType, without importing types
del _K
_WRAP = None    # the extension's wrap, once set up; False without it


def _c_wrap(lib):
    """The extension's wrap(func, name, cat, fixed), or None (ctypes, or a
    Python before 3.9, whose extension types can have no __dict__)."""
    global _WRAP
    if _WRAP is None:
        _WRAP = False
        if (getattr(lib, "__name__", None) == "dftracer._cext" and
                hasattr(lib, "wrap") and _sys.version_info >= (3, 9)):
            lib.setup(_first, _update_handle, _MethodType, _ASSIGNED)
            _WRAP = lib.wrap
    return _WRAP or None


def _traced(func, name, cat, fixed):
    """func's wrapper: one region per call, named name, with the fixed
    arguments and the ones the call binds (see _first).  The extension's
    wrapper (dftracer._cext.Traced) does in C what the Python one below
    does, the same records without a Python frame per call."""
    lib = _lib_or_none()
    if lib is None:
        return None
    bname, bcat = _enc(name), _enc(cat)
    wrap = _c_wrap(lib)
    if wrap is not None:    # with func's attributes, as _wraps sets them
        return wrap(func, bname, bcat, dict(fixed) if fixed else None)
    fixed = dict(fixed)
    ini = lib.initialize_region
    fin = lib.finalize_region
    # the capturer is made at the first call: most decorated functions of
    # a program run rarely or never, and a program decorates them all as
    # it imports them
    capture = None
    always = True

    def wrapper(*args, **kwargs):
        nonlocal capture, always
        if capture is None:
            capture, always = _first(func)
        a = capture(args, kwargs) if always or kwargs else None
        if fixed:
            a = dict(fixed, **a) if a else fixed
        h = ini(bname, bcat, 0)
        if h:
            if a:
                _update(lib, h, a)
            try:
                return func(*args, **kwargs)
            finally:
                fin(h)
        return func(*args, **kwargs)
    return _wraps(wrapper, func)


class dft_fn:
    """Decorator, context manager and loop wrapper for Python regions."""

    def __init__(self, cat, name=None, epoch=None, step=None, image_idx=None,
                 image_size=None, enable=True):
        self._cat = cat
        self._name = name
        self._enable = enable and DFTRACER_ENABLE
        self._arguments = {}
        for k, v in (("epoch", epoch), ("step", step),
                     ("image_idx", image_idx), ("image_size", image_size)):
            if v is not None:
                self._arguments[k] = float(v) if k == "image_size" else v
        self._local = _thread._local()

    # -- context manager ---------------------------------------------------
    def _stack(self):
        st = getattr(self._local, "stack", None)
        if st is None:
            st = self._local.stack = []
        return st

    def __enter__(self):
        if self._enable:
            self._stack().append(_Open(self._name or "region", self._cat,
                                       self._arguments))
        return self

    def __exit__(self, *exc):
        if self._enable:
            st = self._stack()
            if st:
                st.pop().close()
        return False

    def update(self, epoch=None, step=None, image_idx=None, image_size=None,
               args=None):
        new = {}
        for k, v in (("epoch", epoch), ("step", step),
                     ("image_idx", image_idx), ("image_size", image_size)):
            if v is not None:
                new[k] = float(v) if k == "image_size" else v
        if args:
            new.update(args)
        self._arguments.update(new)
        st = self._stack() if self._enable else []
        if st:
            st[-1].update(new)
        return self

    def flush(self):
        """Ends the current region and starts the next one."""
        if self._enable:
            st = self._stack()
            if st:
                st.pop().close()
                st.append(_Open(self._name or "region", self._cat,
                                self._arguments))

    def reset(self):
        self.flush()

    def log_metadata(self, key, value):
        if self._enable:
            _logger().log_metadata_event(key, value)

    # -- decorators --------------------------------------------------------
    # With tracing off they return the function itself; with it on, a
    # wrapper that makes one START/END pair of the C runtime per call
    # (the runtime's throttle folds a hot function, as for C).
    def _wrap(self, func, name):
        if not self._enable:
            return func
        if _WRAP:   # the extension's wrapper, set up by a first _traced
            return _WRAP(func, _enc(name), _enc(self._cat),
                         dict(self._arguments) if self._arguments else None)
        return _traced(func, name, self._cat, self._arguments) or func

    def log(self, func):
        return self._wrap(func, self._name or func.__qualname__)

    def log_static(self, func):
        return self._wrap(func, self._name or func.__qualname__)

    def log_init(self, init):
        if not self._enable or _lib_or_none() is None:
            return init
        cat = self._cat
        name = self._name or init.__qualname__
        fixed = dict(self._arguments)
        capture = None

        def wrapper(obj, *args, **kwargs):
            nonlocal capture
            if capture is None:
                capture = _capturer(init)
            a = dict(fixed)
            c = capture((obj,) + args, kwargs)
            if c:
                a.update(c)
            region = _Open(name, cat, a)
            try:
                return init(obj, *args, **kwargs)
            finally:
                for k in _AUTO:
                    v = getattr(obj, k, None)
                    if isinstance(v, (int, float)) and \
                            not isinstance(v, bool):
                        region.update({k: v})
                region.close()

        return _wraps(wrapper, init)

    def iter(self, func, name=None, iter_name="step"):
        """Yields from func, logging <name>.iter (waiting for the next item)
        and <name>.yield (the loop body) per iteration."""
        base = name or self._name or "loop"
        if not self._enable:
            yield from func
            return
        log = _logger()
        n = 1
        start = log.get_time()
        for v in func:
            end = log.get_time()
            log.log_event(base + ".iter", self._cat, start, end - start,
                          int_args={iter_name: n})
            t0 = log.get_time()
            yield v
            t1 = log.get_time()
            log.log_event(base + ".yield", self._cat, t0, t1 - t0,
                          int_args={iter_name: n})
            n += 1
            start = log.get_time()


# -- AI profiling API (pydftracer >= 2): dftracer.python._ai, imported at the
# first use of ai or dft_ai (PEP 562), so a program annotated in the generic
# style does not build the ai tree (~0.45 M instructions a process)

def __getattr__(name):
    if name in ("ai", "dft_ai"):
        from . import _ai
        globals().update(ai=_ai.ai, dft_ai=_ai.ai)
        return _ai.ai
    raise AttributeError("module %r has no attribute %r" % (__name__, name))


def log_metadata_event(key, value):
    _logger().log_metadata_event(key, value)


initialize_log = dftracer.initialize_log
