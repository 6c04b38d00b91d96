"""Pictures from Python: a mode shape as a pyvista plotter
(:func:`plot_mode`, off-screen PNG or interactive window) and the
frequencies of a sweep on matplotlib axes (:func:`plot_sweep`). They wrap
what ``flexpkm modes --png`` and ``flexpkm sweep --plot`` draw
(:mod:`flexpkm.io.viz`, :mod:`flexpkm.io.plots`); both need the ``viz``
extra (``pip install 'flexpkm[viz]'``)."""
from __future__ import annotations

from pathlib import Path

from flexpkm.analysis.modal import natural_frequencies
from flexpkm.algorithms.reference import build_model
from flexpkm.errors import InvalidArgumentError
from flexpkm.io.geometry import auto_scale, mode_geometries
from flexpkm.io.plots import sweep_axes
from flexpkm.io.run_files import atomic_write
from flexpkm.io.viz import mode_title, scale_text, scene_plotter


def plot_mode(model, q_tot, mode: int = 1, *, modes=None, scale: float | None = None,
              fraction: float = 0.1, view: str = "auto", ghost: bool = True,
              off_screen: bool = True, screenshot=None, window_size=None,
              actuator_stiffness=None):
    """A ``pyvista.Plotter`` showing mode ``mode`` (1-based, lowest first)
    of ``model`` at the configuration ``q_tot`` (n_tot,): the robot deformed
    by ``scale`` times the mode (default :func:`flexpkm.io.geometry.auto_scale`
    with ``fraction``, the largest displacement over the robot's size),
    coloured by its relative displacement, the undeformed robot as a ghost;
    title: mode number and frequency (Hz); camera: :func:`flexpkm.io.viz.camera_view`.

    model : a :class:`flexpkm.model.build.Model` (or a Robot, built here);
    modes : the :class:`flexpkm.algorithms.modal.Modes` of ``q_tot`` (default:
    computed, actuators locked or ``actuator_stiffness`` (n_a,) N/m or N m/rad).
    off_screen : True (default) renders without a display; False opens a
    window on ``plotter.show()``. screenshot : a PNG path written now
    (off-screen only; folders made; returned plotter still usable).
    Raises InvalidArgumentError for a mode number outside 1..n_modes, a
    screenshot asked on screen; MissingDependencyError without pyvista.
    """
    if screenshot is not None and not off_screen:
        raise InvalidArgumentError("plot_mode: screenshot= needs off_screen=True")
    model = build_model(model)
    if modes is None:
        modes = natural_frequencies(model, q_tot, n_modes=mode,
                                    actuator_stiffness=actuator_stiffness)
    [(k, f, geometry)] = mode_geometries(model, q_tot, modes, [int(mode)])
    s = auto_scale(geometry, fraction) if scale is None else float(scale)
    pl, _, _ = scene_plotter(model, geometry, s, mode_title(model, k, f), scale_text(geometry, s),
                      view, ghost, window_size, off_screen=off_screen)
    if screenshot is not None:
        path = Path(screenshot)
        path.parent.mkdir(parents=True, exist_ok=True)
        with atomic_write(path) as tmp:
            pl.screenshot(str(tmp))
    return pl


def plot_sweep(sweep, ax=None, *, n_modes: int | None = None, title: str = "", units=None):
    """The frequencies (Hz) of a :class:`flexpkm.analysis.sweep.SweepResult`
    along its path, one line per mode (the first ``n_modes``, default all),
    on the matplotlib axes ``ax`` (default: a new ``Figure``'s, pyplot left
    alone: ``ax.figure.savefig("sweep.png")``); abscissa: the one pose
    component that changes (with its unit from ``units`` {name: unit}), else
    the path parameter s. Returns the axes. Raises MissingDependencyError
    without matplotlib."""
    return sweep_axes(sweep, ax, n_modes, title, units)
