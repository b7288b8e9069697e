"""dftracer - Python API of the dft bundled tracer (pure Python over ctypes).

Import what applications use from ``dftracer.python``::

    from dftracer.python import dftracer, dft_fn, ai

The C library is libdftracer_core.so from the dft runtime; when the process
runs under LD_PRELOAD=libdftracer_preload.so its copy is used, so Python
events and the intercepted POSIX/STDIO calls land in the same trace file.
"""

__version__ = "2.0.2"
