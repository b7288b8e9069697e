"""dftracer.python._more - the arguments a decorated call records (internal).

Imported at the first call of a decorated function that can record one
of epoch, step, image_idx and image_size (a parameter of that name, or a
keyword argument named so), never by a program whose traced functions
have none: dftracer.python tells those apart from the code object alone.
"""

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
