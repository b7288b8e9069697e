"""Finds and binds the runtime's C library (internal).

Imported only when tracing is on (DFTRACER_ENABLE=1): ctypes is loaded
here, never by a process that does not trace.  Region handles are plain
integers (c_void_p), None for NULL.
"""

import ctypes
import os

_lib = None
_tried = False


def _candidates():
    env = os.environ.get("DFTRACER_LIB")
    if env:
        yield env
    try:
        from . import _paths  # written by `make install`

        yield os.path.join(_paths.LIBDIR, "libdftracer_core.so")
    except ImportError:
        pass
    here = os.path.dirname(os.path.abspath(__file__))
    yield os.path.join(here, "..", "..", "build", "lib", "libdftracer_core.so")
    yield "libdftracer_core.so"


def _bind(lib):
    vp, cp, i, ull = (ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int,
                      ctypes.c_ulonglong)
    lib.dft_rt_present.restype = i
    lib.dft_rt_active.restype = i
    lib.dft_rt_initialize.argtypes = [cp, cp, i]
    lib.dft_rt_get_time.restype = ull
    lib.dft_rt_log_event.argtypes = [cp, cp, ull, ull, cp]
    lib.dft_rt_log_metadata.argtypes = [cp, cp]
    lib.initialize_region.argtypes = [cp, cp, i]
    lib.initialize_region.restype = vp
    lib.finalize_region.argtypes = [vp]
    lib.update_metadata_int.argtypes = [vp, cp, i]
    lib.update_metadata_string.argtypes = [vp, cp, cp]
    lib.dft_rt_update_double.argtypes = [vp, cp, ctypes.c_double]
    lib.finalize.argtypes = []
    return lib


def load():
    """Returns the bound library, or None when it cannot be found."""
    global _lib, _tried
    if _tried:
        return _lib
    _tried = True
    try:  # preloaded: use the copy that intercepts the process's I/O
        glob = ctypes.CDLL(None)
        glob.dft_rt_present
        _lib = _bind(glob)
        return _lib
    except (AttributeError, OSError):
        pass
    for path in _candidates():
        try:
            _lib = _bind(ctypes.CDLL(path))
            return _lib
        except (AttributeError, OSError):
            continue
    return None

