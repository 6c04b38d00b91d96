"""The optional dependencies, installed by the extras of flexpkm
(pyproject.toml): ``viz`` (pyvista/VTK, matplotlib, h5py: pictures, plots,
XDMF series) and ``compiled`` (CasADi: the generated C models), ``cluster`` (Dask:
studies on a cluster), ``optimise`` (pymoo: Pareto fronts by NSGA-II). The core
install (numpy, scipy, meshio...) computes frequencies, sweeps, simulations
and VTU meshes; a feature that needs an extra imports its module through
:func:`require`, which says in one line what to install."""
from __future__ import annotations

import importlib

from flexpkm.errors import MissingDependencyError

#: module -> the extra of flexpkm that installs it (read-only tuple of pairs)
EXTRAS = (("pyvista", "viz"), ("vtk", "viz"), ("matplotlib", "viz"), ("h5py", "viz"),
          ("casadi", "compiled"), ("xarray", "data"), ("pandas", "data"),
          ("dask", "cluster"), ("distributed", "cluster"), ("pymoo", "optimise"))


def require(module: str, purpose: str):
    """The imported ``module`` (e.g. ``"pyvista"``, ``"matplotlib.figure"``),
    or :class:`flexpkm.errors.MissingDependencyError` naming the extra that
    installs it: ``pyvista is not installed (needed for mode pictures):
    pip install 'flexpkm[viz]'`` (``cannot be imported (...)`` when it is
    there but one of its own dependencies is not). ``purpose`` says what
    needs it."""
    top = module.split(".")[0]
    extra = dict(EXTRAS).get(top, "all")
    try:
        return importlib.import_module(module)
    except ImportError as err:
        state = ("is not installed" if (err.name or top).split(".")[0] == top
                 else f"cannot be imported ({err})")
        raise MissingDependencyError(f"{top} {state} (needed for {purpose}): "
                                     f"pip install 'flexpkm[{extra}]'",
                                     module=top, extra=extra) from None
