"""Where the shipped robots are: case name -> its description file inside
the installed package (:mod:`importlib.resources`). In a module of its own
so that the case modules find their file without importing the package
that lists them."""
from __future__ import annotations

from importlib import resources
from pathlib import Path

from flexpkm.errors import InvalidArgumentError

#: case name -> its description file, relative to the package flexpkm.cases
FILES = {"dualemps": "dualemps.toml", "navaro": "navaro.toml",
         "rigid_five_bar": "rigid_five_bar.toml", "dualv": "dualv.toml", "delta": "delta.toml",
         "three_rpr": "three_rpr.toml", "tripteron": "tripteron.toml",
         "orthoglide": "orthoglide.toml", "gough_stewart": "gough_stewart.toml",
         "irsbot2": "irsbot2.toml",
         "five_bar": "examples/five_bar.toml", "three_rrr": "examples/three_rrr.toml",
         "three_rpr_flexible": "examples/three_rpr_flexible.toml",
         "tripteron_flexible": "examples/tripteron_flexible.toml",
         "orthoglide_flexible": "examples/orthoglide_flexible.toml",
         "gough_stewart_flexible": "examples/gough_stewart_flexible.toml",
         "irsbot2_flexible": "examples/irsbot2_flexible.toml"}
#: the shipped cases, by name
CASES = tuple(FILES)
#: the cases with a module ``flexpkm.cases.<name>`` that extends the file's case
MODULES = ("dualemps", "navaro", "rigid_five_bar", "dualv", "delta")


def file_of(name: str) -> Path:
    """The description file of the shipped case ``name``, from the installed
    package. Raises :class:`InvalidArgumentError` naming the available cases."""
    if name not in FILES:
        raise InvalidArgumentError(f"unknown case {name!r}; available: {', '.join(CASES)}")
    return Path(str(resources.files("flexpkm.cases").joinpath(FILES[name])))
