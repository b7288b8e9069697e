"""Finds and binds the runtime's C library (internal)."""

import ctypes
import os

_lib = None
_tried = False


class _Region(ctypes.Structure):
    _fields_ = [("profiler", ctypes.c_void_p)]


_RegionP = ctypes.POINTER(_Region)


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
    lib.dft_rt_present.restype = ctypes.c_int
    lib.dft_rt_active.restype = ctypes.c_int
    lib.dft_rt_initialize.argtypes = [ctypes.c_char_p, ctypes.c_char_p,
                                      ctypes.c_int]
    lib.dft_rt_get_time.restype = ctypes.c_ulonglong
    lib.dft_rt_log_event.argtypes = [ctypes.c_char_p, ctypes.c_char_p,
                                     ctypes.c_ulonglong, ctypes.c_ulonglong,
                                     ctypes.c_char_p]
    lib.dft_rt_log_metadata.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
    lib.initialize_region.argtypes = [ctypes.c_char_p, ctypes.c_char_p,
                                      ctypes.c_int]
    lib.initialize_region.restype = _RegionP
    lib.finalize_region.argtypes = [_RegionP]
    lib.update_metadata_int.argtypes = [_RegionP, ctypes.c_char_p,
                                        ctypes.c_int]
    lib.update_metadata_string.argtypes = [_RegionP, ctypes.c_char_p,
                                           ctypes.c_char_p]
    lib.dft_rt_update_double.argtypes = [_RegionP, ctypes.c_char_p,
                                         ctypes.c_double]
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


def enc(s):
    if s is None:
        return None
    if isinstance(s, bytes):
        return s
    return str(s).encode("utf-8", "surrogateescape")
