"""Output files that cannot be half-written, and the ``run.json`` manifest
of every run (docs/robustness.md).

* :func:`check_writable` checks (and creates) an output folder *before* any
  computation: a path that cannot be written is one line, not a traceback
  after an hour of work.
* :func:`atomic_write` writes a file under a temporary name in the same
  folder (``.NAME.part-PID``) and renames it onto ``NAME`` (:func:`os.replace`)
  only when complete: a file under its final name is always whole; a
  killed run leaves at most a ``.part`` file, which the next run removes.
* :class:`Run` records a run: ``run.json`` holds the command, the package
  version, the description hash, the options, the start and end times, the
  status (``running``, ``completed``, ``interrupted``, ``failed``) and the
  list of complete files (name, bytes, sha256). It refuses a folder that holds
  another run's outputs unless ``force`` (which removes them first).
"""
from __future__ import annotations

import contextlib
import datetime
import hashlib
import json
import math
import os
from pathlib import Path

from flexpkm.errors import OutputError

#: name of the manifest in an output folder
MANIFEST = "run.json"
PART = ".part-"


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
    """``path`` must name a file (not a folder) in a writable folder; the
    folder is created. Raises OutputError."""
    path = Path(path)
    if path.is_dir() or str(path).endswith(os.sep) or path.name in ("", ".", ".."):
        raise OutputError(f"{str(path)!r} is a folder; give a file name")
    check_writable(path.parent)
    return path


@contextlib.contextmanager
def atomic_write(path):
    """``with atomic_write(path) as tmp: write(tmp)``: the content appears
    under ``path`` only if the block completes (``os.replace`` of a
    temporary in the same folder); on any exception the temporary is
    removed and ``path`` is left as it was."""
    path = Path(path)
    tmp = path.with_name(f"{PART}{os.getpid()}-{path.name}")
    try:
        yield tmp
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


def sha256(path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def description_hash(robot) -> str:
    """16 hex digits of the sha256 of the canonical serialisation of the
    built description's numbers
    (:func:`flexpkm.model.fingerprint.description_digest`): equal for two
    runs on the same description, in any process."""
    from flexpkm.model.fingerprint import description_digest
    return description_digest(robot)


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


class Run:
    """The manifest ``folder/run.json`` of one run of a command.

    ``Run(folder, command, options, force=False, owned=patterns)``:
    checks the folder (:func:`check_writable`); if it holds a manifest or a
    file matching one of the glob ``patterns`` (the files this command
    writes), raises OutputError unless ``force``, which removes the files
    the old manifest lists and those matching ``patterns``. Then writes
    ``run.json`` with status ``running``.

    ``manifest`` : the manifest's file name (``run.json``; a command whose
    output is one named file uses ``NAME.run.json`` beside it, and
    ``owned`` = that file's name).
    ``run.add(path)`` records a complete file; ``run.finish(status)``
    rewrites the manifest (status, end time, files); ``run.fail()`` ends a
    run stopped by an error. A manifest left ``running`` is a killed run.
    """

    def __init__(self, folder, command: str, options: dict, force=False, owned=(),
                 description: str = "", manifest: str = MANIFEST):
        self.created = not Path(folder).exists()
        self.folder = check_writable(folder)
        self.path = self.folder / manifest
        self._clear(force, owned)
        from flexpkm import __version__
        self.data = {"command": command, "version": __version__, "description_sha256": description,
                     "options": {k: _plain(v) for k, v in options.items()},
                     "started": _now(), "ended": None, "status": "running", "files": []}
        self._write()

    def _clear(self, force, owned):
        stale = {p for p in self.folder.glob(f"{PART}*") if not _writer_alive(p)}
        previous = [p for pattern in owned for p in self.folder.glob(pattern)]
        if self.path.exists():
            with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
                previous += [self.folder / f["name"]
                             for f in json.loads(self.path.read_text())["files"]]
        previous = sorted({p for p in previous if p.is_file()})
        if previous and not force:
            raise OutputError(f"{str(self.folder)!r} holds the outputs of another run "
                              f"({', '.join(p.name for p in previous[:3])}"
                              f"{', ...' if len(previous) > 3 else ''}): use --force to replace "
                              "them, or another folder")
        for p in sorted(stale) + previous + [self.path]:
            with contextlib.suppress(OSError):
                p.unlink()

    def add(self, path) -> Path:
        """Record the complete file ``path`` (in the run's folder or below)."""
        path = Path(path)
        try:
            name = str(path.resolve().relative_to(self.folder.resolve()))
        except ValueError:
            name = str(path.resolve())
        self.data["files"] = [f for f in self.data["files"] if f["name"] != name]
        self.data["files"].append({"name": name, "bytes": path.stat().st_size,
                                   "sha256": sha256(path)})
        self._write()
        return path

    def note(self, **values):
        """Add or replace top-level entries of the manifest (rows, steps...)."""
        self.data.update({k: _plain(v) for k, v in values.items()})
        self._write()

    def finish(self, status: str = "completed"):
        self.data.update(status=status, ended=_now())
        self._write()

    def fail(self, error=None):
        """The run stopped on ``error``: the manifest says ``failed`` (or
        ``interrupted`` for a KeyboardInterrupt); a run that wrote no file
        leaves nothing (its manifest removed, its folder too if the run
        created it and it is empty)."""
        if self.data["files"]:
            self.finish("interrupted" if isinstance(error, KeyboardInterrupt) else "failed")
            return
        with contextlib.suppress(OSError):
            self.path.unlink()
            if self.created:
                self.folder.rmdir()

    def _write(self):
        with atomic_write(self.path) as tmp:
            tmp.write_text(json.dumps(self.data, indent=1, allow_nan=False) + "\n")


def _writer_alive(path) -> bool:
    """Whether the process that writes the temporary file ``.part-PID-...``
    still runs (its file is then not stale)."""
    try:
        pid = int(path.name[len(PART):].split("-")[0])
        os.kill(pid, 0)
    except (ValueError, ProcessLookupError):
        return False
    except PermissionError:
        return True
    return pid != os.getpid()


def _plain(value):
    """A JSON-safe copy of an option value (paths and tuples to str / list,
    non-finite floats to strings)."""
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if hasattr(value, "item") and getattr(value, "ndim", 1) == 0:
        return _plain(value.item())
    if hasattr(value, "tolist"):
        return _plain(value.tolist())
    return str(value)


def read_manifest(folder) -> dict:
    """The parsed ``folder/run.json``."""
    return json.loads((Path(folder) / MANIFEST).read_text())
