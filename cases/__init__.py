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
from importlib import resources
from pathlib import Path

from flexpkm.cases.case import Case, Option  # noqa: F401  (re-exported)
from flexpkm.errors import InvalidArgumentError

#: case name -> its description file, relative to this package
FILES = {"dualemps": "dualemps.toml", "navaro": "navaro.toml",
         "rigid_five_bar": "rigid_five_bar.toml", "dualv": "dualv.toml", "delta": "delta.toml",
         "five_bar": "examples/five_bar.toml", "three_rrr": "examples/three_rrr.toml"}
#: the shipped cases, by name
CASES = tuple(FILES)
#: the cases with a module ``flexpkm.cases.<name>`` that extends the file's case
MODULES = ("dualemps", "navaro", "rigid_five_bar", "dualv", "delta")


def file_of(name: str) -> Path:
    """The description file of the shipped case ``name``, from the installed
    package (:mod:`importlib.resources`). Raises :class:`InvalidArgumentError`
    naming the available cases."""
    if name not in FILES:
        raise InvalidArgumentError(f"unknown case {name!r}; available: {', '.join(CASES)}")
    return Path(str(resources.files(__name__).joinpath(FILES[name])))


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


from flexpkm.cases import delta, dualemps, dualv, navaro, rigid_five_bar  # noqa: E402  (as fp.cases.dualemps ...)
