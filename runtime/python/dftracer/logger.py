"""dftracer 1.0.x import path: ``from dftracer.logger import dftracer, dft_fn``."""

from .python import dftracer, dft_fn  # noqa: F401
