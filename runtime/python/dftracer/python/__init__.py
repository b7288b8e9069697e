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
import inspect
import json
import math
import os
import threading

from .. import _lib

DFTRACER_ENABLE = os.environ.get("DFTRACER_ENABLE", "0") == "1"
DFTRACER_INIT = os.environ.get("DFTRACER_INIT", "PRELOAD")
DFTRACER_LOG_LEVEL = os.environ.get("DFTRACER_LOG_LEVEL", "ERROR")

# Tag types for log_event arguments given as (tag, value) tuples.
TagType = type("TagType", (), {"KEY": 0, "VALUE": 1, "IGNORE": 2})
TAG_KEY, TAG_VALUE, TAG_IGNORE = 0, 1, 2

__all__ = ["dftracer", "dft_fn", "ai", "TagType", "DFTRACER_ENABLE"]


def _lib_or_none():
    if not DFTRACER_ENABLE:
        return None
    return _lib.load()


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
    return json.dumps(str(v))


def _fragment(*dicts):
    parts = []
    for d in dicts:
        if not d:
            continue
        for k, v in d.items():
            j = _value(v)
            if j is not None:
                parts.append(",%s:%s" % (json.dumps(str(k)), j))
    return "".join(parts) or None


class dftracer:
    """The process-wide logger (pydftracer's ``dftracer`` singleton)."""

    __instance = None
    __lock = threading.Lock()

    def __init__(self):
        self.logger = None
        self._lib = None

    @classmethod
    def get_instance(cls):
        with cls.__lock:
            if cls.__instance is None:
                cls.__instance = dftracer()
            return cls.__instance

    @staticmethod
    def initialize_log(logfile=None, data_dir=None, process_id=-1):
        log = dftracer.get_instance()
        lib = _lib_or_none()
        if lib is not None and not lib.dft_rt_active():
            lib.dft_rt_initialize(_lib.enc(logfile), _lib.enc(data_dir),
                                  int(process_id if process_id is not None
                                      else -1))
        log._lib = lib
        log.logger = lib
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
        lib.dft_rt_log_event(_lib.enc(name), _lib.enc(cat), int(start_time),
                             int(duration),
                             _lib.enc(_fragment(int_args, string_args,
                                                float_args)))

    def log_metadata_event(self, key, value):
        lib = self._active()
        if lib is not None:
            lib.dft_rt_log_metadata(_lib.enc(key), _lib.enc(value))

    def finalize(self):
        lib = self._lib or _lib_or_none()
        if lib is not None:
            lib.finalize()


def _logger():
    return dftracer.get_instance()


class _Open:
    """One open region in the C runtime."""

    __slots__ = ("handle",)

    def __init__(self, name, cat, args):
        lib = _logger()._active()
        self.handle = None
        if lib is None:
            return
        self.handle = lib.initialize_region(_lib.enc(name), _lib.enc(cat), 0)
        self.update(args)

    def update(self, args):
        if not self.handle or not args:
            return
        lib = _lib.load()
        for k, v in args.items():
            if isinstance(v, tuple) and len(v) == 2 and isinstance(v[0], int):
                if v[0] == TAG_IGNORE:
                    continue
                v = v[1]
            if v is None:
                continue
            if isinstance(v, bool):
                lib.update_metadata_string(self.handle, _lib.enc(k),
                                           b"true" if v else b"false")
            elif isinstance(v, int) and -2**31 <= v < 2**31:
                lib.update_metadata_int(self.handle, _lib.enc(k), v)
            elif isinstance(v, (int, float)):
                lib.dft_rt_update_double(self.handle, _lib.enc(k), float(v))
            else:
                lib.update_metadata_string(self.handle, _lib.enc(k),
                                           _lib.enc(v))

    def close(self):
        if self.handle:
            _lib.load().finalize_region(self.handle)
            self.handle = None


_AUTO = ("epoch", "step", "image_idx", "image_size")


def _captured(func, args, kwargs):
    """epoch, step, image_idx, image_size among a call's arguments."""
    out = {}
    try:
        bound = inspect.signature(func).bind_partial(*args, **kwargs)
        items = bound.arguments.items()
    except (TypeError, ValueError):
        items = kwargs.items()
    for k, v in items:
        if k in _AUTO and v is not None:
            out[k] = float(v) if k == "image_size" else v
    return out


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
    def _wrap(self, func, name):
        if not self._enable:
            return func
        cat = self._cat
        fixed = dict(self._arguments)

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            a = dict(fixed)
            a.update(_captured(func, args, kwargs))
            region = _Open(name, cat, a)
            try:
                return func(*args, **kwargs)
            finally:
                region.close()

        return wrapper

    def log(self, func):
        return self._wrap(func, self._name or func.__qualname__)

    def log_static(self, func):
        return self._wrap(func, self._name or func.__qualname__)

    def log_init(self, init):
        if not self._enable:
            return init
        cat = self._cat
        name = self._name or init.__qualname__
        fixed = dict(self._arguments)

        @functools.wraps(init)
        def wrapper(obj, *args, **kwargs):
            a = dict(fixed)
            a.update(_captured(init, (obj,) + args, kwargs))
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


# -- AI profiling API (pydftracer >= 2) -------------------------------------

class _AINode:
    """A named event in an AI category: decorator, context manager, or
    start()/stop()."""

    def __init__(self, name, cat, children=()):
        self.name = name
        self.cat = cat
        self._enabled = True
        self._args = {}
        self._local = threading.local()
        for child in children:
            setattr(self, child, _AINode(child, cat))

    def _on(self):
        return self._enabled and ai._enabled and DFTRACER_ENABLE

    def _stack(self):
        st = getattr(self._local, "stack", None)
        if st is None:
            st = self._local.stack = []
        return st

    def enable(self):
        self._enabled = True
        return self

    def disable(self):
        self._enabled = False
        return self

    def derive(self, name):
        return _AINode("%s.%s" % (self.name, name), self.cat)

    def update(self, **kwargs):
        self._args.update(kwargs)
        st = self._stack()
        if st:
            st[-1].update(kwargs)
        return self

    def start(self, metadata=False):
        if not self._on():
            return self
        if metadata:
            log = _logger()
            log.log_metadata_event(self.name + ".start", str(log.get_time()))
        self._stack().append(_Open(self.name, self.cat, self._args))
        return self

    def stop(self, metadata=False):
        if not self._on():
            return self
        st = self._stack()
        if st:
            st.pop().close()
        if metadata:
            log = _logger()
            log.log_metadata_event(self.name + ".end", str(log.get_time()))
        return self

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
        return False

    def __call__(self, func=None, **kwargs):
        if func is None:  # @ai.compute.forward(args...) form
            if kwargs:
                self._args.update(kwargs)
            return self
        node = self

        @functools.wraps(func)
        def wrapper(*args, **kw):
            if not node._on():
                return func(*args, **kw)
            a = dict(node._args)
            a.update(_captured(func, args, kw))
            region = _Open(node.name, node.cat, a)
            try:
                return func(*args, **kw)
            finally:
                region.close()

        return wrapper

    def iter(self, iterable, include_block=True):
        """Yields items, logging <name>.iter (fetching) and <name>.block
        (the consumer) with args.count."""
        if not self._on():
            yield from iterable
            return
        log = _logger()
        n = 1
        start = log.get_time()
        for v in iterable:
            end = log.get_time()
            log.log_event(self.name + ".iter", self.cat, start, end - start,
                          int_args={"count": n})
            t0 = log.get_time()
            yield v
            if include_block:
                t1 = log.get_time()
                log.log_event(self.name + ".block", self.cat, t0, t1 - t0,
                              int_args={"count": n})
            n += 1
            start = log.get_time()


class _AI(_AINode):
    """``ai``: the root (cat and name ai_root) and its categories."""

    def __init__(self):
        super().__init__("ai_root", "ai_root")
        self.compute = _AINode("compute", "compute",
                               ("forward", "backward", "step"))
        self.data = _AINode("data", "data", ("preprocess", "item"))
        self.dataloader = _AINode("dataloader", "dataloader", ("fetch",))
        self.comm = _AINode("comm", "comm",
                            ("send", "receive", "barrier", "bcast", "reduce",
                             "all_reduce", "gather", "all_gather", "scatter",
                             "reduce_scatter", "all_to_all"))
        self.device = _AINode("device", "device", ("transfer",))
        self.checkpoint = _AINode("checkpoint", "checkpoint",
                                  ("capture", "restart"))
        self.pipeline = _AINode("pipeline", "pipeline",
                                ("epoch", "train", "evaluate", "test"))

    def _on(self):
        return self._enabled and DFTRACER_ENABLE


ai = _AI()
dft_ai = ai


def log_metadata_event(key, value):
    _logger().log_metadata_event(key, value)


initialize_log = dftracer.initialize_log
