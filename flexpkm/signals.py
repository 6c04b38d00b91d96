"""SIGTERM and SIGHUP handled as Ctrl-C: they raise :class:`Stopped` (a
KeyboardInterrupt), so that ``finally`` clauses run and what was computed is
kept. Used by the command line around a whole command
(:mod:`flexpkm.cli.runs`, exit status 128 + signum) and by the compiler
driver around a build (:mod:`flexpkm.compiled.codegen`: no build folder
left behind)."""
from __future__ import annotations

import contextlib
import signal
import threading

#: the signals handled as Ctrl-C besides SIGINT (those this platform has)
STOP_SIGNALS = tuple(getattr(signal, n) for n in ("SIGTERM", "SIGHUP") if hasattr(signal, n))


class Stopped(KeyboardInterrupt):
    """SIGTERM or SIGHUP during a command (a timeout, a batch scheduler, a
    container stopping, a closed terminal): handled as Ctrl-C, the complete
    part written; ``signum`` gives the exit status 128 + signum."""

    def __init__(self, signum):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def raise_stopped(signum, frame):
    """The handler of :data:`STOP_SIGNALS` inside :func:`stop_on_signals`."""
    raise Stopped(signum)


@contextlib.contextmanager
def stop_on_signals():
    """In the block, SIGTERM and SIGHUP raise :class:`Stopped` (a
    KeyboardInterrupt) as SIGINT raises KeyboardInterrupt, so that what was
    computed is kept. Only in the main thread and only for a signal left to
    its default action: an ignored SIGHUP (``nohup``) stays ignored, and an
    outer block's handler stays in place (nested blocks are harmless)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {}
    for sig in STOP_SIGNALS:
        if signal.getsignal(sig) is signal.SIG_DFL:
            previous[sig] = signal.signal(sig, raise_stopped)
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
