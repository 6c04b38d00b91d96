"""SHA-256 of a file's bytes, shared by the compile cache's records
(:mod:`flexpkm.compiled.cache`) and the run manifests
(:mod:`flexpkm.io.run_files`)."""
from __future__ import annotations

import hashlib


def file_sha256(path) -> str:
    """SHA-256 (64 hex digits) of the bytes of the file at ``path``, read in
    1 MiB blocks. Raises OSError when the file cannot be read."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()
