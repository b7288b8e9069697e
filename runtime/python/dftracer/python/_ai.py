"""dftracer.python._ai - the AI profiling API of pydftracer >= 2 (internal).

``from dftracer.python import ai`` (or dft_ai) imports it at the first use.
"""

import _thread

from . import DFTRACER_ENABLE, _capturer, _logger, _m


# -- AI profiling API (pydftracer >= 2) -------------------------------------

class _AINode:
    """A named event in an AI category: decorator, context manager, or
    start()/stop()."""

    def __init__(self, name, cat, children=()):
        self.name = name
        self.cat = cat
        self._enabled = True
        self._args = {}
        self._local = None
        for child in children:
            setattr(self, child, _AINode(child, cat))

    def _on(self):
        return self._enabled and ai._enabled and DFTRACER_ENABLE

    def _stack(self):
        loc = self._local
        if loc is None:
            loc = self._local = _thread._local()
        st = getattr(loc, "stack", None)
        if st is None:
            st = loc.stack = []
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
        self._stack().append(_m()._Open(self.name, self.cat, self._args))
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
        if not DFTRACER_ENABLE:
            return func
        node = self
        capture = []

        def wrapper(*args, **kw):
            if not node._on():
                return func(*args, **kw)
            a = dict(node._args)
            if not capture:
                capture.append(_capturer(func))
            c = capture[0](args, kw)
            if c:
                a.update(c)
            region = _m()._Open(node.name, node.cat, a)
            try:
                return func(*args, **kw)
            finally:
                region.close()

        return _m()._wraps(wrapper, func)

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
