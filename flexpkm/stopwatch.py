"""The wall time spent building compiled models (generating and compiling C,
:func:`flexpkm.compiled.codegen.compiled`), summed for a caller that asks for
it: the command line keeps a first run's one-time compilation out of its
speed figures (s per simulated second). The sum lives in a context variable
set by :func:`counting` (nothing module-wide is written)."""
from __future__ import annotations

import contextlib
import contextvars
import functools
import time

#: the running sum of the innermost :func:`counting` ([seconds]), or None
_SPENT = contextvars.ContextVar("flexpkm_build_seconds", default=None)


@contextlib.contextmanager
def counting():
    """``with counting() as spent: ...``: ``spent()`` is the wall time (s)
    spent in :func:`timed` functions inside the block so far."""
    total = [0.0]
    token = _SPENT.set(total)
    try:
        yield lambda: total[0]
    finally:
        _SPENT.reset(token)


def timed(function):
    """Decorator: the wall time of each call of ``function`` is added to the
    sum of the enclosing :func:`counting` (if any; nested calls once)."""
    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        total = _SPENT.get()
        if total is None:
            return function(*args, **kwargs)
        _SPENT.set(None)                        # a nested timed call is inside this one
        t0 = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            total[0] += time.perf_counter() - t0
            _SPENT.set(total)
    return wrapper
