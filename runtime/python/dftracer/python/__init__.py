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
                             _enc(_m()._fragment(int_args, string_args,
                                                    float_args)
                                  if int_args or string_args or float_args
                                  else None))

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
    return _m()._capturer(func)


def _captured(func, args, kwargs):
    """epoch, step, image_idx, image_size among a call's arguments (the
    answer of inspect's bind_partial)."""
    return _m()._captured(func, args, kwargs)


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


# the attributes functools.wraps sets, in its order: the extension's wrap
# and _more._wraps set them without functools (its import costs a traced
# process more than the package)
_ASSIGNED = ("__module__", "__name__", "__qualname__", "__doc__",
             "__annotations__") + (("__type_params__",)
                                   if _sys.version_info >= (3, 12) else ())


def _m():
    """dftracer.python._more: argument capture and the paths a decorated
    call does not take (region arguments, the context manager, log_event's
    arguments, log_init, the Python wrapper)."""
    from . import _more
    return _more


def _update_handle(handle, args):
    _m()._update(_LIB, handle, args)


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
    return _m()._py_traced(lib, func, bname, bcat, fixed)


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
            self._stack().append(_m()._Open(self._name or "region", self._cat,
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
                st.append(_m()._Open(self._name or "region", self._cat,
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
        return _m()._log_init(self, init)

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
