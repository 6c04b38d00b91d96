"""Plots (PNG, matplotlib): frequencies along a sweep, simulation time
histories. Figures are made with ``matplotlib.figure.Figure`` directly, so
the process-wide backend and pyplot's state are never touched. matplotlib is
the ``viz`` extra, imported on use (:func:`figure`)."""
from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np

from flexpkm.analysis.sweep import SweepResult
from flexpkm.datasets import effort_unit
from flexpkm.errors import InvalidArgumentError
from flexpkm.io.run_files import atomic_write


def figure(**kwargs):
    """A new ``matplotlib.figure.Figure(**kwargs)`` (no pyplot); a
    :class:`flexpkm.errors.MissingDependencyError` naming the ``viz`` extra
    when matplotlib is not installed."""
    from flexpkm.optional import require
    return require("matplotlib.figure", "plots").Figure(**kwargs)


def x_axis(result: SweepResult, units=None):
    """(values (N,), label) of the plot's abscissa: the only pose component
    that changes along the path, else the path parameter s."""
    units = units or {}
    moving = [i for i in range(result.poses.shape[1]) if np.ptp(result.poses[:, i]) > 0]
    if len(moving) == 1:
        i = moving[0]
        unit = units.get(result.names[i])
        return result.poses[:, i], result.names[i] + (f" ({unit})" if unit else "")
    return result.parameter, "path parameter s (pose = start + s (stop - start))"


def sweep_axes(result: SweepResult, ax=None, n: int | None = None, title: str = "",
               units=None):
    """Draw the first ``n`` frequencies (Hz, default all) of a sweep against
    :func:`x_axis` (start of the path on the left) on the matplotlib ``ax``
    (default: the axes of a new :func:`figure`); ``title`` e.g. the robot's
    name, ``units`` {component: unit}. Returns ``ax``."""
    ax = figure(figsize=(7.5, 4.8), dpi=120).subplots() if ax is None else ax
    x, label = x_axis(result, units)
    f = result.frequencies_hz[:, :n] if n else result.frequencies_hz
    for i in range(f.shape[1]):     # dashed every other mode: double modes stay visible
        ax.plot(x, f[:, i], lw=1.8, ls="-" if i % 2 == 0 else "--", label=f"mode {i + 1}")
    if len(x) and x[-1] < x[0]:
        ax.invert_xaxis()           # the path runs from left to right
    ax.set_xlabel(label)
    ax.set_ylabel("natural frequency (Hz)")
    ax.set_title(f"{title}: natural frequencies along the path" if title
                 else "natural frequencies along the path")
    ax.grid(True, alpha=0.3)
    if f.shape[1]:                  # no pose computed: no line, no legend
        ax.legend(loc="best", fontsize=9, ncol=1 if f.shape[1] <= 6 else 2)
    return ax


def plot_sweep(result: SweepResult, path, n: int | None = None, title: str = "",
               units=None) -> Path:
    """PNG of :func:`sweep_axes` with the path's ends below (a ``Figure``
    of its own: the global backend is left alone). Returns the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig = sweep_axes(result, None, n, title, units).figure
    start = ", ".join(f"{k} = {v:.4g}" for k, v in zip(result.names, result.poses[0]))
    stop = ", ".join(f"{k} = {v:.4g}" for k, v in zip(result.names, result.poses[-1]))
    fig.text(0.01, 0.01, f"from ({start}) to ({stop}), {len(result.parameter)} poses",
             fontsize=8, color="0.3")
    with warnings.catch_warnings():             # extreme axis values: keep the default layout
        warnings.simplefilter("ignore", UserWarning)
        fig.tight_layout(rect=(0, 0.03, 1, 1))
    with atomic_write(path) as tmp:
        fig.savefig(tmp, format=image_format(path))
    return path


def image_format(path) -> str:
    """matplotlib's format of ``path`` from its suffix (``png`` without
    one); raises InvalidArgumentError for a format matplotlib cannot write."""
    fmt = Path(path).suffix[1:].lower() or "png"
    supported = figure().canvas.get_supported_filetypes()
    if fmt not in supported:
        raise InvalidArgumentError(f"{str(path)!r}: cannot write a {fmt!r} picture "
                                   f"(use {', '.join(sorted(supported))})")
    return fmt


def plot_simulation(res, data, act, path, units=None):
    """Actuator positions, efforts and sensors vs time, one PNG. ``units``:
    the actuators' units (``"rad"`` or ``"m"`` each; the axes read rad and
    N m, m and N, or both); None: ``"m or rad"``."""
    units = " or ".join(sorted(set(units))) if units else "m or rad"
    efforts = effort_unit(units)
    n = 2 + len(res.sensors)
    fig = figure(figsize=(8, 2.2 * n))
    axes = fig.subplots(n, 1, sharex=True)
    axes[0].plot(res.t, data["q_a"])
    axes[0].set_ylabel(f"q_a ({units})")
    axes[0].legend(act, loc="upper right")
    axes[1].plot(res.t, res.tau)
    axes[1].set_ylabel(f"tau ({efforts})")
    for ax, (k, v) in zip(axes[2:], res.sensors.items()):
        ax.plot(res.t, v, lw=0.6)
        ax.set_ylabel(k)
    axes[-1].set_xlabel("t (s)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
