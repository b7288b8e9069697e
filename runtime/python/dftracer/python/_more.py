"""dftracer.python._more - what a decorated call seldom needs (internal).

The arguments a decorated call records (epoch, step, image_idx and
image_size), and the paths the extension's wrapper of a function with none
of them does not take: a region's arguments, the context manager,
log_event's arguments, log_init, and the Python wrapper of a package bound
by ctypes.  Imported at the first call of a decorated function that can
record one of the four (a parameter of that name, or a keyword argument
named so: dftracer.python tells those apart from the code object alone)
or at the first use of one of those paths, never by a program whose
traced functions have none of them.
"""

import sys

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
_FunctionType = type(lambda: None)


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


# -- what the package imports here when it needs it -------------------------

_pkg = sys.modules[__package__]
TAG_IGNORE = _pkg.TAG_IGNORE
_enc = _pkg._enc
_lib_or_none = _pkg._lib_or_none
_first = _pkg._first
_ASSIGNED = _pkg._ASSIGNED


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
            _update(_pkg._LIB, self.handle, args)

    def close(self):
        if self.handle:
            _pkg._LIB.finalize_region(self.handle)
            self.handle = None


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


def _py_traced(lib, func, bname, bcat, fixed):
    """The Python wrapper (without the extension): what
    dftracer._cext.Traced does."""
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


def _log_init(fn, init):
    """dft_fn.log_init's wrapper of init."""
    cat = fn._cat
    name = fn._name or init.__qualname__
    fixed = dict(fn._arguments)
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
