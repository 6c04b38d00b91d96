"""Robots shipped with flexpkm: one description file each (``*.toml``
beside this module, :mod:`flexpkm.model.files`), the only source of each
robot. A case name (``flexpkm modal dualemps``) and its file (``flexpkm
modal cases/dualemps.toml``) take the same route: :func:`get` reads the file
(:func:`flexpkm.cases.file_case.from_file`) and, for a robot with a module
``flexpkm.cases.<name>``, adds what a file cannot hold (``extend``): its
closed-form pose parametrisation, published tables (Table 11.1, 11.4),
maneuvers. Those modules never build the robot: the tests use their closed
forms as oracles of the files (tests/cases/).

DualEMPS (Briot & Khalil Section 10.7, Table 11.1), NaVARo (Section
11.6.2, Table 11.4), the rigid five-bar and the DualV (Chapter 8), Müller's
Delta (docs/delta.md), and two examples with an independent finite-element
check (the flexible five-bar of docs/tutorial.md and a 3-RRR).
"""
from __future__ import annotations

import importlib

from flexpkm.cases.case import Case, Option  # noqa: F401  (re-exported)
from flexpkm.cases.shipped import CASES, FILES, MODULES, file_of  # noqa: F401  (re-exported)


def get(name: str) -> Case:
    """The :class:`Case` named ``name`` (its file's case, extended by its
    module), or of the description file ``name`` (ending in ``.toml``).
    Raises :class:`InvalidArgumentError` naming the available cases, and
    what :func:`flexpkm.cases.file_case.from_file` raises."""
    from flexpkm.cases.file_case import from_file
    if name.endswith(".toml"):
        return from_file(name)
    case = from_file(file_of(name), name=name)
    if name in MODULES:
        case = importlib.import_module(f"flexpkm.cases.{name}").extend(case)
    return case


def __getattr__(name: str):
    """The case modules as attributes (``fp.cases.dualemps``), imported on
    first use: running one case imports no other (start-up time)."""
    if name in MODULES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
