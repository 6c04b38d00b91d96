"""The ``run.json`` manifest of every run, and the lock of its folder
(docs/robustness.md); the output paths themselves are
:mod:`flexpkm.io.output_paths` (re-exported here).

* :class:`Run` records a run: ``run.json`` holds the command, the process,
  the package version, the description hash, the options, the start and
  end times, the status (``running``, ``completed``, ``interrupted``,
  ``failed``) and the list of complete files (name, bytes, sha256). While
  it runs the manifest is locked (``filelock``, the lock file
  ``.run.json.lock`` beside it): a second run into the folder is refused,
  naming the first. It refuses a folder that holds another run's outputs
  unless ``force``, which removes only the files the previous manifest
  lists inside the folder and whose sha256 still matches.
"""
from __future__ import annotations

import contextlib
import datetime
import json
import math
import os
from pathlib import Path

from flexpkm.checksums import file_sha256
from flexpkm.errors import OutputError
from flexpkm.io.output_paths import (PART, atomic_write, check_output_file,  # noqa: F401
                                     check_writable, holds_data, output_kind)
from flexpkm.version import __version__

#: name of the manifest in an output folder
MANIFEST = "run.json"


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

    ``Run(folder, command, options, force=False, owned=patterns,
    targets=paths)``: checks the folder (:func:`check_writable`), locks the
    manifest (OutputError naming the run that holds it: pid, start time,
    command), then looks for another run's outputs: the files the previous
    manifest lists, the files matching one of the glob ``patterns`` (the
    files this command writes) and the named output files ``targets``
    (which may lie outside the folder), each one holding data. Without
    ``force`` any of them is refused (OutputError); with ``force`` the files
    the previous manifest lists inside the folder (relative names, no
    ``..``, no link leading out) whose sha256 still matches are removed, a
    target whose recorded sha256 matches will be replaced, and any other
    file in the way is refused (nothing is removed then). Then writes
    ``run.json`` with status ``running``.

    ``manifest`` : the manifest's file name (``run.json``; a command whose
    output is one named file uses ``NAME.run.json`` beside it).
    ``run.add(path)`` records a complete file; ``run.finish(status)``
    rewrites the manifest (status, end time, files) and unlocks it;
    ``run.fail()`` ends a run stopped by an error. A manifest left
    ``running`` and unlocked is a killed run.
    """

    def __init__(self, folder, command: str, options: dict, force=False, owned=(),
                 description: str = "", manifest: str = MANIFEST, targets=()):
        self.created = not Path(folder).exists()
        self.folder = check_writable(folder)
        self.path = self.folder / manifest
        if self.path.is_symlink() or (self.path.exists() and not self.path.is_file()):
            raise OutputError(f"{str(self.path)!r} is not a regular file: not a run's manifest; "
                              "remove it or use another folder")
        new_lock = not _lock_path(self.path).exists()
        self._lock = _lock(self.path)
        try:
            self._clear(force, owned, [Path(t) for t in targets])
            self.data = {"command": command, "pid": os.getpid(), "version": __version__,
                         "description_sha256": description,
                         "options": {k: _plain(v) for k, v in options.items()},
                         "started": _now(), "ended": None, "status": "running", "files": []}
            self._write()
        except BaseException:
            self._unlock(remove=new_lock)       # a refused run leaves no lock file of its own
            raise

    def _clear(self, force, owned, targets):
        stale = {p for p in self.folder.glob(f"{PART}*") if not _writer_alive(p)}
        entries = self._previous_entries()
        listed = [self.folder / e["name"] for e in entries if not Path(e["name"]).is_absolute()
                  and _inside(self.folder, self.folder / e["name"])]
        mine = [p for pattern in owned for p in self.folder.glob(pattern)] + targets
        found = _with_data(mine + listed)
        if found and not force:
            raise OutputError(f"{str(self.folder)!r} holds the outputs of another run "
                              f"({_names(found)}): use --force to replace them, or another "
                              "folder")
        verified = {Path(os.path.abspath(p)) for e in entries
                    if (p := _verified(self.folder, e, targets)) is not None}
        blocking = [p for p in _with_data(mine) if p not in verified]    # would be overwritten
        if blocking:
            raise OutputError(f"--force replaces only the files that a run's manifest ("
                              f"{self.path.name}) lists in its folder, unchanged since (sha256); "
                              f"not {_names(blocking)}: move or remove it yourself, or use "
                              "another folder")
        own = {Path(os.path.abspath(q)) for q in (self.path, _lock_path(self.path))}
        inside = [p for p in verified if _inside(self.folder, p) and p not in own]
        for p in sorted(stale) + sorted(inside) + [self.path]:
            with contextlib.suppress(OSError):
                p.unlink()

    def _previous_entries(self) -> list:
        """The file entries of the manifest found in the folder ([] if none
        or unreadable)."""
        try:
            files = json.loads(self.path.read_text())["files"]
            return [f for f in files if isinstance(f, dict) and isinstance(f.get("name"), str)
                    and f["name"]]
        except (OSError, ValueError, KeyError, TypeError):
            return []

    def add(self, path) -> Path:
        """Record the complete file ``path`` (in the run's folder or below,
        else by its absolute path; a stream by its name, without hash)."""
        path = Path(path)
        if output_kind(path) == "stream":
            entry = {"name": str(path), "stream": True}
        else:
            try:
                name = str(path.resolve().relative_to(self.folder.resolve()))
            except ValueError:
                name = str(path.resolve())
            entry = {"name": name, "bytes": path.stat().st_size, "sha256": file_sha256(path)}
        self.data["files"] = [f for f in self.data["files"] if f["name"] != entry["name"]]
        self.data["files"].append(entry)
        self._write()
        return path

    def note(self, **values):
        """Add or replace top-level entries of the manifest (rows, steps...)."""
        self.data.update({k: _plain(v) for k, v in values.items()})
        self._write()

    def finish(self, status: str = "completed"):
        """Write the final status and the end time; unlock the manifest."""
        try:
            self.data.update(status=status, ended=_now())
            self._write()
        finally:
            self._unlock()

    def fail(self, error=None):
        """The run stopped on ``error``: the manifest says ``failed`` (or
        ``interrupted`` for a KeyboardInterrupt); a run that wrote no file
        leaves nothing (its manifest and lock file removed, its folder too
        if the run created it and it is empty)."""
        if self.data["files"]:
            self.finish("interrupted" if isinstance(error, KeyboardInterrupt) else "failed")
            return
        with contextlib.suppress(OSError):
            self.path.unlink()
        self._unlock(remove=True)
        with contextlib.suppress(OSError):
            if self.created:
                self.folder.rmdir()

    def _unlock(self, remove=False):
        if self._lock is not None:
            if remove:                  # before unlocking: no other run holds it meanwhile
                with contextlib.suppress(OSError):
                    _lock_path(self.path).unlink()
            self._lock.release(force=True)
            self._lock = None

    def _write(self):
        text = json.dumps(self.data, indent=1, allow_nan=False) + "\n"
        try:
            with atomic_write(self.path) as tmp:
                tmp.write_text(text)
        except OSError:
            if not _overwrite(self.path, text.encode()):
                raise


def _overwrite(path, data: bytes) -> bool:
    """Rewrite the manifest in place (a full disk leaves no room for a
    temporary file, the old manifest's blocks are reused); never through a
    link. Whether it worked."""
    try:
        fd = os.open(path, os.O_RDWR | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return False
    try:
        os.write(fd, data)
        os.ftruncate(fd, len(data))
        return True
    except OSError:
        return False
    finally:
        os.close(fd)


def _lock_path(manifest) -> Path:
    return manifest.with_name(f".{manifest.name}.lock")


def _lock(manifest):
    """The manifest's lock (``filelock.FileLock`` on ``.NAME.lock``, not
    waiting); OutputError naming the run that holds it."""
    from filelock import FileLock, Timeout
    lock = FileLock(_lock_path(manifest), timeout=0)
    try:
        lock.acquire()
    except Timeout:
        raise OutputError(f"{str(manifest.parent)!r} is being written by another run "
                          f"({_holder(manifest)}): wait for it to end, or use another "
                          "folder") from None
    except OSError as e:
        raise OutputError(f"cannot lock {str(_lock_path(manifest))!r}: {e.strerror or e}") from None
    return lock


def _holder(manifest) -> str:
    """``pid N, started T: COMMAND`` of the run whose manifest it is."""
    try:
        run = json.loads(manifest.read_text())
        return f"pid {run['pid']}, started {run['started']}: {run['command']}"
    except (OSError, ValueError, KeyError, TypeError):
        return "it is starting"


def _inside(folder, path) -> bool:
    """``path``, links resolved, lies in ``folder`` (resolved)."""
    return Path(path).resolve().is_relative_to(Path(folder).resolve())


def _verified(folder, entry, targets):
    """The path of a previous manifest's ``entry`` if it may be replaced: a
    relative name without ``..`` whose file (links resolved) lies inside
    ``folder``, or an absolute name that this run names again in
    ``targets``; a regular file whose sha256 is still the recorded one.
    Else None."""
    name, digest = Path(entry["name"]), entry.get("sha256")
    if not isinstance(digest, str):
        return None
    if name.is_absolute():
        if name.resolve() not in {Path(t).resolve() for t in targets}:
            return None
        path = name
    elif ".." in name.parts or not _inside(folder, folder / name):
        return None
    else:
        path = folder / name
    try:
        return path if path.resolve().is_file() and file_sha256(path) == digest else None
    except OSError:
        return None


def _with_data(paths) -> list:
    """The absolute paths among ``paths`` that hold data (sorted, unique)."""
    return sorted({Path(os.path.abspath(p)) for p in paths if holds_data(p)})


def _names(paths) -> str:
    return ", ".join(p.name for p in paths[:3]) + (", ..." if len(paths) > 3 else "")


class Unrecorded:
    """The run of a command whose every output is a stream (a FIFO, a
    terminal, /dev/null): no folder of its own, so no manifest and no lock;
    the same methods as :class:`Run`, which record nothing."""

    def __init__(self):
        self.data = {"files": []}

    def add(self, path) -> Path:
        return Path(path)

    def note(self, **values):
        pass

    def finish(self, status: str = "completed"):
        pass

    def fail(self, error=None):
        pass


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
