"""dftracer.python.dbg - pydftracer's debug import path; the same API."""

from . import *  # noqa: F401,F403
from . import dftracer, dft_fn, ai, log_metadata_event  # noqa: F401
