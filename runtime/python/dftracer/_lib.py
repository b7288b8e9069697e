"""Finds and binds the runtime's C library (internal).

Imported only when tracing is on (DFTRACER_ENABLE=1) and the process has
no preload library that the C extension binds.  The binding is the
package's C extension, _cext (built by make when Python.h is installed),
else ctypes.  Either way the library is the copy already in the process
(LD_PRELOAD=libdftracer_preload.so, or a program linked with
libdftracer_core.so), else the first of _candidates() that loads.  Region
handles are integers, None for NULL.
"""

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
    import ctypes
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


def _load_cext():
    try:
        from . import _cext
    except ImportError:
        return None
    if _cext.bind(None):
        return _cext
    for path in _candidates():
        if _cext.bind(path.encode("utf-8", "surrogateescape")):
            return _cext
    return None


def _load_ctypes():
    import ctypes
    try:  # preloaded: use the copy that intercepts the process's I/O
        glob = ctypes.CDLL(None)
        glob.dft_rt_present
        return _bind(glob)
    except (AttributeError, OSError):
        pass
    for path in _candidates():
        try:
            return _bind(ctypes.CDLL(path))
        except (AttributeError, OSError):
            continue
    return None


def load():
    """Returns the bound library, or None when it cannot be found."""
    global _lib, _tried
    if not _tried:
        _tried = True
        _lib = _load_cext() or _load_ctypes()
    return _lib
