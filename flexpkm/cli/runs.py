"""What the writing sub-commands share: ``--force``, the run manifest of an
output folder (:class:`flexpkm.io.run_files.Run`) started before any
computation, and the interrupt protocol (docs/robustness.md): on Ctrl-C,
SIGTERM or SIGHUP the complete part is written, the manifest says
``interrupted``, one line goes to stderr and the exit status is 128 + the
signal's number (130, 143, 129)."""
from __future__ import annotations

import contextlib
import signal
import sys
import threading

from flexpkm.io.run_files import (MANIFEST, Run, Unrecorded, check_output_file,
                                  description_hash, output_kind)
from flexpkm.signals import STOP_SIGNALS, Stopped, raise_stopped

#: exit status of a run interrupted by Ctrl-C (128 + SIGINT)
INTERRUPTED = 130


def add_force(p):
    p.add_argument("--force", action="store_true",
                   help="replace the outputs of an earlier run in the output folder "
                        "(default: refuse such a folder)")


def command_line(args) -> str:
    return "flexpkm " + " ".join(getattr(args, "argv", None) or sys.argv[1:])


def plain_options(args) -> dict:
    """The parsed options, JSON-safe (the case object by its name, no callables)."""
    out = {}
    for k, v in vars(args).items():
        if k in ("func", "argv"):
            continue
        out[k] = getattr(v, "name", v) if k == "case" else v
    return out


def start_run(folder, args, robot=None, owned=(), manifest=MANIFEST, targets=()) -> Run:
    """The manifest of this command's run in ``folder`` (checked, created and
    locked now, before computing; OutputError for an unwritable folder, one
    that another run is writing, or one holding another run's outputs
    without ``--force``; see :class:`flexpkm.io.run_files.Run`)."""
    return Run(folder, command_line(args), plain_options(args), force=args.force, owned=owned,
               description=description_hash(robot) if robot is not None else "",
               manifest=manifest, targets=targets)


def start_file_run(paths, args, robot=None):
    """The manifest ``FIRST.run.json`` of a command that writes the named
    files ``paths`` (the first one that is not a stream anchors the
    manifest): each is checked (a file name in a writable folder, or a
    stream), an existing one holding data is refused unless ``--force`` and
    the manifest records it unchanged. Only streams: nothing is recorded
    (:class:`flexpkm.io.run_files.Unrecorded`)."""
    paths = [check_output_file(p) for p in paths if p]
    files = [p for p in paths if output_kind(p) != "stream"]
    if not files:
        return Unrecorded()
    return start_run(files[0].parent, args, robot, manifest=f"{files[0].name}.run.json",
                     targets=files)


def signal_of(error) -> int:
    """The signal that stopped a run: ``Stopped.signum`` found in ``error``
    or the exceptions it was raised from (an analysis re-raises Ctrl-C as
    :class:`flexpkm.errors.Interrupted` with the partial result), else
    SIGINT."""
    seen = set()
    while error is not None and id(error) not in seen:
        if isinstance(error, Stopped):
            return error.signum
        seen.add(id(error))
        error = error.__cause__ or error.__context__
    return signal.SIGINT


def exit_status(error) -> int:
    """128 + the signal's number: 130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP."""
    return 128 + int(signal_of(error))


@contextlib.contextmanager
def interrupts_deferred():
    """Inside the block, Ctrl-C (and SIGTERM, SIGHUP under
    :func:`flexpkm.signals.stop_on_signals`) does not stop the writing of the files; it is
    remembered and raised when the block ends."""
    if threading.current_thread() is not threading.main_thread():
        yield                               # signals are the main thread's
        return
    received = []
    previous = {}
    for sig in (signal.SIGINT, *STOP_SIGNALS):
        if signal.getsignal(sig) in (signal.default_int_handler, raise_stopped):
            previous[sig] = signal.signal(sig, lambda signum, _: received.append(signum))
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if received:
        raise KeyboardInterrupt if received[0] == signal.SIGINT else Stopped(received[0])


def interrupted(run, message: str, error=None) -> int:
    """Close ``run`` as interrupted (the signal in the manifest), print one
    line, return the exit status (130 for SIGINT, 143 SIGTERM, 129 SIGHUP)."""
    name = signal.Signals(signal_of(error)).name
    if run is not None:
        run.data["signal"] = name
        run.finish("interrupted")
    end_bar = "\n" if sys.stderr.isatty() else ""        # a progress bar may be on the line
    by = "" if name == "SIGINT" else f" ({name})"
    print(f"{end_bar}flexpkm: interrupted{by}: {message}", file=sys.stderr)
    return exit_status(error)
