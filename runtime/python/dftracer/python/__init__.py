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

import functools
import math
import os
import threading

DFTRACER_ENABLE = os.environ.get("DFTRACER_ENABLE", "0") == "1"
DFTRACER_INIT = os.environ.get("DFTRACER_INIT", "PRELOAD")
DFTRACER_LOG_LEVEL = os.environ.get("DFTRACER_LOG_LEVEL", "ERROR")

# Tag types for log_event arguments given as (tag, value) tuples.
TagType = type("TagType", (), {"KEY": 0, "VALUE": 1, "IGNORE": 2})
TAG_KEY, TAG_VALUE, TAG_IGNORE = 0, 1, 2

__all__ = ["dftracer", "dft_fn", "ai", "TagType", "DFTRACER_ENABLE"]

# The C library and the package's ctypes binding (.._lib) are loaded at the
# first use with tracing on; with tracing off nothing but os, threading and
# functools is imported (no ctypes, inspect or json).
_LIB = None     # the bound library, or None
_tried = False
_load_lock = threading.Lock()


def _lib_or_none():
    global _LIB, _tried
    if _tried:
        return _LIB
    if not DFTRACER_ENABLE:
        return None
    with _load_lock:    # a second thread waits for the first's answer
        if not _tried:
            from .. import _lib
            _LIB = _lib.load()
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
        return repr(v) if math.isfinite(v) else "null"
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
    __lock = threading.Lock()

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
# binding error, the call's keyword arguments).  _capturer reads a plain
# function's parameters once, from its code object, and gives the same
# answer without inspect; anything else (a callable object, a partial, a
# function that has __wrapped__ or __signature__, positional-only
# parameters given by keyword, *args or **kwargs named like one of the
# four) goes to inspect, imported then.

_AUTO = ("epoch", "step", "image_idx", "image_size")
_CO_VARARGS, _CO_VARKEYWORDS = 0x04, 0x08
_FunctionType = type(_enc)


def _auto_value(k, v, out):
    if v is not None:
        out[k] = float(v) if k == "image_size" else v


def _inspect_capturer(func):
    """capture(args, kwargs) through inspect (its signature read once)."""
    sig = []

    def capture(args, kwargs):
        import inspect
        out = {}
        try:
            if not sig:
                sig.append(inspect.signature(func))
            items = sig[0].bind_partial(*args, **kwargs).arguments.items()
        except (TypeError, ValueError):
            items = kwargs.items()
        for k, v in items:
            if k in _AUTO:
                _auto_value(k, v, out)
        return out
    return capture


def _kw_auto(kwargs):
    out = {}
    for k, v in kwargs.items():
        if k in _AUTO:
            _auto_value(k, v, out)
    return out


def _capturer(func):
    """capture(args, kwargs) -> dict for func, or None when func's calls
    can never record any of the four (no such parameter; keyword
    arguments named like them are looked at per call)."""
    code = getattr(func, "__code__", None)
    if (type(func) is not _FunctionType or code is None or
            hasattr(func, "__wrapped__") or hasattr(func, "__signature__") or
            hasattr(func, "_partialmethod")):
        return _inspect_capturer(func)
    n = code.co_argcount
    nkw = code.co_kwonlyargcount
    posonly = code.co_posonlyargcount
    flags = code.co_flags
    varargs = bool(flags & _CO_VARARGS)
    varkw = bool(flags & _CO_VARKEYWORDS)
    names = code.co_varnames[:n + nkw]
    extra = code.co_varnames[n + nkw:n + nkw + varargs + varkw]
    if any(x in _AUTO for x in extra):
        return _inspect_capturer(func)
    index = {x: i for i, x in enumerate(names)}
    autos = tuple((index[k], k) for k in sorted(
        (k for k in _AUTO if k in index), key=index.get))
    def binds(args, kwargs):
        """Whether the call binds: False where bind_partial raises
        TypeError, None where inspect has to tell (positional-only
        parameters and keyword arguments)."""
        if len(args) > n and not varargs:
            return False
        if not kwargs:
            return True
        if posonly:
            return None
        m = min(len(args), n)
        for k in kwargs:
            # an unknown keyword without **kwargs, or one given twice
            i = index.get(k)
            if i is None:
                if not varkw:
                    return False
            elif i < m:
                return False
        return True

    if not autos:
        # only a binding error can record something: the call's keyword
        # arguments named like the four
        def capture(args, kwargs):
            if not kwargs or not any(k in kwargs for k in _AUTO):
                return None
            ok = binds(args, kwargs)
            if ok is None:
                return _inspect_capturer(func)(args, kwargs)
            return None if ok else _kw_auto(kwargs)
        capture.never = True
        return capture

    def capture(args, kwargs):
        ok = binds(args, kwargs)
        if ok is None:
            return _inspect_capturer(func)(args, kwargs)
        if not ok:
            return _kw_auto(kwargs)
        m = min(len(args), n)
        out = {}
        for i, k in autos:
            if i < m:
                _auto_value(k, args[i], out)
            elif k in kwargs:
                _auto_value(k, kwargs[k], out)
        return out
    capture.never = False
    return capture


def _captured(func, args, kwargs):
    """epoch, step, image_idx, image_size among a call's arguments (the
    answer of inspect's bind_partial, see above)."""
    return _capturer(func)(args, kwargs) or {}


def _traced(func, name, cat, fixed):
    """func's wrapper: one region per call, named name, with the fixed
    arguments and the ones the call binds (see _capturer)."""
    lib = _lib_or_none()
    if lib is None:
        return None
    ini = lib.initialize_region
    fin = lib.finalize_region
    bname, bcat = _enc(name), _enc(cat)
    fixed = dict(fixed)
    # the capturer is made at the first call: most decorated functions of
    # a program run rarely or never, and a program decorates them all as
    # it imports them
    capture = None
    always = True

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        nonlocal capture, always
        if capture is None:
            capture = _capturer(func)
            # a function none of whose parameters is one of the four
            # needs looking at only when it gets keyword arguments
            always = not getattr(capture, "never", False)
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
    return wrapper


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
        self._local = threading.local()

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
        capture = _capturer(init)

        @functools.wraps(init)
        def wrapper(obj, *args, **kwargs):
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

        return wrapper

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
