"""A workspace map (:class:`flexpkm.analysis.workspace_map.WorkspaceMap`)
as a NetCDF file and a picture. The Dataset is
:func:`flexpkm.datasets.map_dataset`; NetCDF is written by xarray's scipy
engine (NetCDF 3, no extra dependency) through
:func:`flexpkm.io.output_paths.atomic_write`.
"""
from __future__ import annotations

import numpy as np

from flexpkm.io.output_paths import atomic_write


def write_netcdf(dataset, path):
    """``dataset`` to the NetCDF file ``path`` (whole or not at all); returns the path."""
    from flexpkm.datasets import dask_unprobed
    with dask_unprobed(), atomic_write(path) as tmp:
        dataset.to_netcdf(tmp, engine="scipy")
    return path


def plot_map(result, path, what="f1", title=None):
    """A picture of ``result`` at ``path`` (PNG...): filled contours of
    ``what`` (``"f1"``, the lowest frequency in Hz, or ``"compliance"``, the
    log10 of the largest principal compliance) over a 2D map; over a 3D map one panel per
    slice of the last axis (at most 6, evenly chosen); a 1D map is a curve.
    Masked cells are blank. Raises MissingDependencyError without matplotlib."""
    from flexpkm.io.plots import image_format
    from flexpkm.optional import require
    image_format(path)
    Figure = require("matplotlib.figure", "map pictures").Figure
    with np.errstate(divide="ignore", invalid="ignore"):
        values = result.frequencies_hz[..., 0] if what == "f1" else \
            np.log10(result.compliance_eigenvalues[..., -1])
    label = "f1 (Hz)" if what == "f1" else "log10 largest principal compliance"
    g = result.grid
    cuts = [None] if len(g.axes) < 3 else \
        sorted(set(np.linspace(0, len(g.axes[2]) - 1, min(6, len(g.axes[2]))).round().astype(int)))
    fig = Figure(figsize=(4.2 * min(len(cuts), 3), 3.6 * ((len(cuts) + 2) // 3)),
                 layout="constrained")
    axes = fig.subplots((len(cuts) + 2) // 3, min(len(cuts), 3), squeeze=False).ravel()
    names = [f"{n} ({u})" if u else n for n, u in zip(g.names, result.units)]
    for ax, cut in zip(axes, cuts):
        v = values if cut is None else values[..., cut]
        if len(g.axes) == 1:
            ax.plot(g.axes[0], v)
            ax.set_xlabel(names[0])
            ax.set_ylabel(label)
            continue
        data = np.ma.masked_invalid(v.T)
        if data.count() >= 4:
            cs = ax.contourf(g.axes[0], g.axes[1], data, levels=14)
            fig.colorbar(cs, ax=ax, label=label)
        else:
            ax.text(0.5, 0.5, "no computed cell", ha="center", transform=ax.transAxes)
        ax.set_xlabel(names[0])
        ax.set_ylabel(names[1])
        if cut is not None:
            ax.set_title(f"{g.names[2]} = {g.axes[2][cut]:.4g}")
    for ax in axes[len(cuts):]:
        ax.set_visible(False)
    fig.suptitle(title or f"{result.robot}: {label}")
    with atomic_write(path) as tmp:
        fig.savefig(tmp, dpi=110, format=image_format(path))
    return path
