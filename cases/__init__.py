"""Robots shipped with flexpkm, with their published data, declared as
:class:`Case` objects: DualEMPS (Briot & Khalil Section 10.7, Table 11.1),
NaVARo (Section 11.6.2, Table 11.4) and Müller's Delta (docs/delta.md).

A case declares what a front end (the command line, a sweep) needs and
nothing about how it is parsed: its pose components with their units and
defaults, its model options, how to build the robot and configure a pose,
its reference frequencies, its maneuvers.
"""
from __future__ import annotations

import importlib

from flexpkm.cases.case import Case, Option  # noqa: F401  (re-exported)
from flexpkm.errors import InvalidArgumentError

#: the shipped cases (modules ``flexpkm.cases.<name>``, each with a ``CASE``)
CASES = ("dualemps", "navaro", "five_bar", "dualv", "delta")


def get(name: str) -> Case:
    """The :class:`Case` named ``name``, or of the description file ``name``
    (ending in ``.toml``, see :mod:`flexpkm.cases.file_case`). Raises
    :class:`InvalidArgumentError` naming the available cases."""
    if name.endswith(".toml"):
        from flexpkm.cases.file_case import from_file
        return from_file(name)
    if name not in CASES:
        raise InvalidArgumentError(f"unknown case {name!r}; available: {', '.join(CASES)}")
    return importlib.import_module(f"flexpkm.cases.{name}").CASE


def __getattr__(name: str):
    """The case modules as attributes (``fp.cases.dualemps``), imported on
    first use: running one case imports no other (start-up time)."""
    if name in CASES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
