"""The on-disk cache of compiled models: where it is, whether it can be
trusted, what its keys cover, how big it may grow.

A cached model is a shared library ``NAME_KEY.so`` and its record
``NAME_KEY.so.sha256`` (the library's SHA-256 and size, written atomically
after the library when it was built). A library is loaded only

* from a folder that the user owns and others cannot write (created
  ``0700``; a group- or world-writable folder, or one owned by someone else,
  is not used: :func:`private_folder`), and
* after its bytes hash to its record (:func:`verify`): a truncated, garbled
  or foreign library (no record, another hash) is rebuilt, never loaded.

The key of a library (:func:`library_key`) covers the model's numbers (given
by the caller), the source of the whole installed package
(:func:`source_digest`: every ``.py`` of ``flexpkm``, ``flexpkm.elements``
and ``flexpkm.cases``), the compiler (its path and ``--version``) and its
flags. The cache keeps the most recently used libraries up to
``$FLEXPKM_CACHE_MAX_MB`` (:func:`evict`; a use touches the library).

Environment: ``FLEXPKM_CACHE`` (folder, default ``~/.cache/flexpkm``),
``FLEXPKM_CACHE_MAX_MB`` (default :data:`DEFAULT_MAX_MB`),
``FLEXPKM_CC_TIMEOUT`` (seconds, default :data:`DEFAULT_TIMEOUT`).
"""
from __future__ import annotations

import hashlib
import os
import re
import shutil
import stat
import subprocess
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from flexpkm.checksums import file_sha256
from flexpkm.settings import positive_setting

#: default bound of the cache (MB of libraries and records)
DEFAULT_MAX_MB = 500.0
#: default time limit of one compilation (s)
DEFAULT_TIMEOUT = 600.0
#: flexpkm's own files in the cache folder: libraries, their records, build folders
OWN_FILE = re.compile(r"^[A-Za-z0-9_]+_[0-9a-f]{24}\.so(\.sha256)?$")
BUILD_PREFIX = "flexpkm-build-"
RECORD = ".sha256"


def cache_dir() -> Path:
    """The cache folder: ``$FLEXPKM_CACHE`` or ``~/.cache/flexpkm``."""
    return Path(os.environ.get("FLEXPKM_CACHE") or Path.home() / ".cache" / "flexpkm")


def max_bytes() -> int:
    """Bound of the cache in bytes (``$FLEXPKM_CACHE_MAX_MB``; 0 keeps only
    the library just built)."""
    return int(positive_setting("FLEXPKM_CACHE_MAX_MB", DEFAULT_MAX_MB, allow_zero=True) * 1e6)


def compile_timeout() -> float:
    """Time limit of one compilation in seconds (``$FLEXPKM_CC_TIMEOUT``)."""
    return positive_setting("FLEXPKM_CC_TIMEOUT", DEFAULT_TIMEOUT)


# ---------------------------------------------------------------- trust
def folder_problem(folder: Path) -> str | None:
    """Why ``folder`` cannot hold trusted libraries (not a folder, not the
    user's, writable by group or others), or None."""
    st = os.stat(folder)
    if not stat.S_ISDIR(st.st_mode):
        return f"the cache {folder} is not a folder"
    if st.st_uid != os.geteuid():
        return f"the cache folder {folder} belongs to another user (uid {st.st_uid})"
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return (f"the cache folder {folder} is writable by others (mode "
                f"{stat.S_IMODE(st.st_mode):04o})")
    return None


def private_folder() -> tuple[Path | None, str | None]:
    """``(folder, None)``: the cache folder, created ``0700`` if missing,
    owned by the user and not writable by others; or ``(None, why)``."""
    folder = cache_dir()
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        problem = folder_problem(folder)
    except OSError as err:
        return None, f"cannot write the cache {folder} ({err.strerror or err})"
    return (None, problem) if problem else (folder, None)


def record_path(lib: Path) -> Path:
    return lib.with_name(lib.name + RECORD)


def write_record(lib: Path, digest: str) -> None:
    """Record ``digest`` (the SHA-256 of the library's bytes) beside ``lib``,
    atomically (a temporary file renamed)."""
    rec = record_path(lib)
    tmp = rec.with_name(f"{BUILD_PREFIX}{rec.name}.{os.getpid()}")
    try:
        with open(tmp, "w") as f:
            f.write(f"{digest} {lib.stat().st_size}\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, rec)
    finally:
        tmp.unlink(missing_ok=True)


def verify(lib: Path) -> str | None:
    """None when ``lib`` is a regular file whose SHA-256 is its record's,
    else why not (``"missing"`` when there is no library)."""
    try:
        st = os.lstat(lib)
    except FileNotFoundError:
        return "missing"
    if not stat.S_ISREG(st.st_mode):
        return "is not a regular file"
    try:
        digest, size = record_path(lib).read_text().split()
    except FileNotFoundError:
        return "has no record of its hash (foreign)"
    except (OSError, ValueError, UnicodeDecodeError):
        return "has an unreadable record"
    if size != str(st.st_size):
        return f"has {st.st_size} bytes instead of {size} (truncated or replaced)"
    try:
        if file_sha256(lib) != digest:
            return "does not match the hash recorded when it was built"
    except OSError as err:
        return f"cannot be read ({err.strerror or err})"
    return None


def touch(lib: Path) -> None:
    """Mark ``lib`` as just used (least-recently-used eviction)."""
    try:
        os.utime(lib)
    except OSError:
        pass


def remove(lib: Path) -> None:
    """Remove a library and its record (missing ones ignored)."""
    for p in (lib, record_path(lib)):
        p.unlink(missing_ok=True)


# ---------------------------------------------------------------- keys
def package_sources() -> dict:
    """The source folders of the installed package: ``{package: folder}``
    for ``flexpkm`` and the separately installed ``flexpkm.elements`` and
    ``flexpkm.cases`` (the repository's ``elements/`` and ``cases/``),
    located without importing them (``cases`` is a higher layer)."""
    from importlib.util import find_spec
    names = ("flexpkm", "flexpkm.elements", "flexpkm.cases")
    return {n: Path(find_spec(n).submodule_search_locations[0]) for n in names}


def tree_digest(roots: dict) -> str:
    """SHA-256 of every ``.py`` file under the folders ``roots``
    (``{package: folder}``), with its package-relative name; a sub-folder
    that is also a root is hashed as that root."""
    h = hashlib.sha256()
    folders = {Path(f).resolve() for f in roots.values()}
    for pkg in sorted(roots):
        root = Path(roots[pkg]).resolve()
        files = [p for p in root.rglob("*.py") if "__pycache__" not in p.parts
                 and not any(parent in folders and parent != root for parent in p.parents)]
        for src in sorted(files):
            h.update(f"\0{pkg}/{src.relative_to(root).as_posix()}\0".encode())
            h.update(src.read_bytes())
    return h.hexdigest()


@lru_cache(maxsize=1)
def source_digest() -> str:
    """:func:`tree_digest` of the installed package (once per process)."""
    return tree_digest(package_sources())


@lru_cache(maxsize=8)
def compiler_identity(cc: str) -> str:
    """The compiler's resolved path and the first line of ``cc --version``
    (once per process and compiler)."""
    try:
        run = subprocess.run([cc, "--version"], capture_output=True, text=True, timeout=30)
        version = (run.stdout or run.stderr).strip().splitlines()[:1]
    except (OSError, subprocess.SubprocessError) as err:
        version = [f"unknown ({err})"]
    return f"{os.path.realpath(cc)} {' '.join(version)}"


def library_key(key: str, cc: str, flags) -> str:
    """The file key of a library: ``key`` (model, options, source, versions)
    with the compiler's identity and ``flags``."""
    h = hashlib.sha256(key.encode())
    h.update(f"\0{compiler_identity(cc)}\0{' '.join(map(str, flags))}".encode())
    return h.hexdigest()[:24]


def library_path(folder: Path, name: str, key: str, cc: str, flags) -> Path:
    """The library file of ``name`` in ``folder``: ``<name>_<library_key>.so``
    (:func:`library_key` of ``key``, the compiler ``cc`` and ``flags``)."""
    return Path(folder) / f"{name}_{library_key(key, cc, flags)}.so"


# ---------------------------------------------------------------- size
@dataclass(frozen=True)
class Entries:
    """flexpkm's files in a cache folder: ``libraries`` (paths, least
    recently used first), ``size`` (bytes of libraries and records),
    ``others`` (flexpkm's other files: orphan records, build folders and
    unfinished records of a killed process)."""
    libraries: tuple
    size: int
    others: tuple


def entries(folder: Path) -> Entries:
    """The flexpkm files of ``folder`` (an empty listing when it is missing)."""
    libs, others, size = [], [], 0
    try:
        names = os.listdir(folder)
    except (FileNotFoundError, NotADirectoryError):
        names = []
    for name in names:
        p = folder / name
        try:
            st = os.lstat(p)
        except FileNotFoundError:
            continue
        if OWN_FILE.match(name) and stat.S_ISREG(st.st_mode):
            size += st.st_size
            if name.endswith(".so"):
                libs.append((st.st_mtime, p))
            elif not (folder / name[:-len(RECORD)]).exists():
                others.append(p)
        elif name.startswith(BUILD_PREFIX) and (stat.S_ISDIR(st.st_mode)
                                                or stat.S_ISREG(st.st_mode)):
            others.append(p)
    return Entries(tuple(p for _, p in sorted(libs)), size, tuple(sorted(others)))


def _size(lib: Path) -> int:
    return sum(p.stat().st_size for p in (lib, record_path(lib)) if p.exists())


def evict(folder: Path, keep: Path | None = None, stale_after: float | None = None) -> None:
    """Remove the least recently used libraries of ``folder`` beyond
    :func:`max_bytes` (never ``keep``), orphan records and build folders
    older than ``stale_after`` seconds (default twice the compile time limit:
    left by a killed process)."""
    found = entries(folder)
    size, limit = found.size, max_bytes()
    for lib in found.libraries:
        if size <= limit:
            break
        if lib != keep:
            size -= _size(lib)
            remove(lib)
    old = time.time() - (2 * compile_timeout() if stale_after is None else stale_after)
    for p in found.others:
        try:
            if p.lstat().st_mtime < old:
                shutil.rmtree(p) if p.is_dir() else p.unlink()
        except FileNotFoundError:
            pass


def clear(folder: Path) -> tuple[int, int]:
    """Remove flexpkm's own files from ``folder`` (libraries, records, build
    folders; nothing else); returns (libraries removed, bytes freed)."""
    found = entries(folder)
    for lib in found.libraries:
        remove(lib)
    for p in found.others:
        shutil.rmtree(p, ignore_errors=True) if p.is_dir() else p.unlink(missing_ok=True)
    return len(found.libraries), found.size
