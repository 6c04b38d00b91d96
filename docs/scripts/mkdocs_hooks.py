"""MkDocs hooks of the docs site (mkdocs.yml ``hooks``).

The package installs ``elements/`` and ``cases/`` as ``flexpkm.elements`` and
``flexpkm.cases`` (pyproject ``package-dir``); mkdocstrings reads the source
statically and looks for sub-packages inside ``flexpkm/``. :func:`on_startup`
lays out ``build/docs-api/flexpkm`` as the installed package is (links to the
files of ``flexpkm/`` plus ``elements`` and ``cases``), and mkdocs.yml points
mkdocstrings there. Nothing outside ``build/`` is written.
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: where the package is laid out as installed (``paths`` of mkdocstrings in mkdocs.yml)
STAGE = ROOT / "build" / "docs-api"
#: sub-packages that live outside flexpkm/ (pyproject.toml ``package-dir``)
MAPPED = {"elements": ROOT / "elements", "cases": ROOT / "cases"}


def lay_out(stage: Path = STAGE) -> Path:
    """``stage/flexpkm``: a link to each entry of ``flexpkm/`` and to the
    mapped sub-packages; returns it."""
    package = stage / "flexpkm"
    if package.exists():
        shutil.rmtree(package)
    package.mkdir(parents=True)
    entries = {p.name: p for p in (ROOT / "flexpkm").iterdir() if p.name != "__pycache__"}
    entries.update(MAPPED)
    for name, target in entries.items():
        os.symlink(target, package / name, target_is_directory=target.is_dir())
    return package


def on_startup(command, dirty):  # noqa: ARG001 (MkDocs' hook signature)
    lay_out()
