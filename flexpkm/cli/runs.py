"""What the writing sub-commands share: ``--force``, the run manifest of an
output folder (:class:`flexpkm.io.run_files.Run`) started before any
computation, and the interrupt protocol (docs/robustness.md): on Ctrl-C the
complete part is written, the manifest says ``interrupted``, one line goes
to stderr and the exit status is 130."""
from __future__ import annotations

import contextlib
import signal
import sys
import threading

from flexpkm.io.run_files import (MANIFEST, Run, Unrecorded, check_output_file,
                                  description_hash, output_kind)

#: exit status of an interrupted run (128 + SIGINT)
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


@contextlib.contextmanager
def sigint_deferred():
    """Inside the block, Ctrl-C does not stop the writing of the files; it is
    remembered and ``KeyboardInterrupt`` is raised when the block ends."""
    if threading.current_thread() is not threading.main_thread() \
            or signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        yield                               # not the main thread's default handler: leave it
        return
    received = []
    previous = signal.signal(signal.SIGINT, lambda *_: received.append(True))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if received:
        raise KeyboardInterrupt


def interrupted(run, message: str) -> int:
    """Close ``run`` as interrupted, print one line, return 130."""
    if run is not None:
        run.finish("interrupted")
    end_bar = "\n" if sys.stderr.isatty() else ""        # a progress bar may be on the line
    print(f"{end_bar}flexpkm: interrupted: {message}", file=sys.stderr)
    return INTERRUPTED
