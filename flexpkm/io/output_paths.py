"""Output paths: checked before any computation, written whole or not at
all, never replacing what is not a regular file (docs/robustness.md).

* :func:`output_kind` classifies an output path: ``"new"`` (nothing there),
  ``"file"`` (a regular file: replaced atomically), ``"stream"`` (a FIFO, a
  terminal, ``/dev/null``, or a symbolic link to a file or to one of these:
  written *into*, never replaced); anything else (a folder, a socket, a
  block or other device, a link to one) raises OutputError.
* :func:`check_writable` checks (and creates) an output folder: a path
  that cannot be written is one line, not a traceback after an hour of work.
* :func:`atomic_write` writes a file under a temporary name in the same
  folder (``.part-PID-NAME``) and renames it onto ``NAME``
  (:func:`os.replace`) only when complete: a file under its final name is
  always whole; a killed run leaves at most a ``.part`` file, which the
  next run removes. A stream is produced whole in a temporary file of the
  system's temporary folder first, then copied into the stream.
"""
from __future__ import annotations

import contextlib
import os
import shutil
import stat
import tempfile
from pathlib import Path

from flexpkm.errors import OutputError

#: prefix of the temporary files in an output folder (``.part-PID-NAME``)
PART = ".part-"

#: Linux device majors of terminals (tty, console, pseudo-terminals)
TERMINAL_MAJORS = frozenset({4, 5, *range(136, 144)})
_REFUSED = {stat.S_IFDIR: "a folder", stat.S_IFSOCK: "a socket", stat.S_IFBLK: "a block device",
            stat.S_IFCHR: "a character device"}


def output_kind(path) -> str:
    """``"new"``, ``"file"`` or ``"stream"`` (see the module); raises
    OutputError, naming the path and what it is, for any other existing
    path (a folder, a socket, a block device, a character device other than
    a terminal or ``/dev/null``, or a link to one)."""
    path = Path(path)
    try:
        link = path.is_symlink()
        st = path.stat()
    except FileNotFoundError:
        return "new"                            # nothing, or a link to nothing: created anew
    except OSError as e:
        raise OutputError(f"cannot write {str(path)!r}: {e.strerror or e}") from None
    mode = stat.S_IFMT(st.st_mode)
    if mode == stat.S_IFREG:
        return "stream" if link else "file"
    if mode == stat.S_IFIFO or (mode == stat.S_IFCHR and _terminal_or_null(path, st)):
        return "stream"
    what = _REFUSED.get(mode, "not a regular file")
    if mode == stat.S_IFDIR:
        raise OutputError(f"{str(path)!r} is {what}; give a file name")
    raise OutputError(f"{str(path)!r} is {what}{' (through a link)' if link else ''}: flexpkm "
                      "writes regular files, FIFOs, terminals and /dev/null, and never replaces "
                      "anything else")


def _terminal_or_null(path, st) -> bool:
    """``/dev/null`` or a terminal (Linux tty majors 4, 5 and pseudo-terminals
    136-143), judged from the device number alone: a device is never opened
    to ask (opening some, e.g. a watchdog, acts)."""
    with contextlib.suppress(OSError):
        if st.st_rdev == os.stat(os.devnull).st_rdev:
            return True
    return os.major(st.st_rdev) in TERMINAL_MAJORS


def holds_data(path) -> bool:
    """Whether ``path`` is (or links to) a regular file of at least one byte:
    something a run would lose by writing over it."""
    try:
        st = os.stat(path)
    except OSError:
        return False
    return stat.S_ISREG(st.st_mode) and st.st_size > 0


def check_writable(folder) -> Path:
    """Create ``folder`` (and its parents) if needed and check that a file
    can be created in it; returns it as a Path. Raises OutputError (one
    line: the folder and the reason)."""
    folder = Path(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / f"{PART}{os.getpid()}-probe"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as e:
        raise OutputError(f"cannot write into {str(folder)!r}: {e.strerror or e}") from None
    return folder


def check_output_file(path) -> Path:
    """``path`` must name a file (not a folder) in a writable folder (created
    now), or a stream (:func:`output_kind`; its folder is left alone).
    Raises OutputError."""
    path = Path(path)
    if str(path).endswith(os.sep) or path.name in ("", ".", ".."):
        raise OutputError(f"{str(path)!r} is a folder; give a file name")
    if output_kind(path) != "stream":
        check_writable(path.parent)
    return path


@contextlib.contextmanager
def atomic_write(path):
    """``with atomic_write(path) as tmp: write(tmp)``: the content appears
    under ``path`` only if the block completes; on any exception the
    temporary is removed and ``path`` is left as it was. A regular file or
    a new path is replaced by ``os.replace`` of a temporary in the same
    folder (created exclusively: a planted link is not followed); a stream
    (:func:`output_kind`) is written into after the block; anything else
    raises OutputError before the block runs."""
    path = Path(path)
    if output_kind(path) == "stream":
        with _stream_into(path) as tmp:
            yield tmp
        return
    tmp = path.with_name(f"{PART}{os.getpid()}-{path.name}")
    try:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()                         # a leftover (or a planted link): not followed
        os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
        yield tmp
        publish(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


def publish(tmp, path):
    """Move the complete temporary file ``tmp`` to ``path``: ``os.replace``
    for a new path or a regular file, a copy into a stream; OutputError
    (``tmp`` left to the caller) for anything else."""
    if output_kind(path) == "stream":
        _copy_into(tmp, path)
        Path(tmp).unlink()
    else:
        os.replace(tmp, path)


@contextlib.contextmanager
def _stream_into(path):
    fd, name = tempfile.mkstemp(prefix="flexpkm-", suffix=f"-{Path(path).name}")
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
        _copy_into(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def _copy_into(tmp, path):
    with open(tmp, "rb") as src, open(path, "wb") as dst:
        shutil.copyfileobj(src, dst)
