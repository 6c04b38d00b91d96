"""The settings of a time simulation (:func:`flexpkm.simulate`), one frozen
object validated once when it is made (issue 17 item 6: ``simulate`` had
18 parameters).

>>> opts = SimulationOptions(h=1e-4, dt_out=1e-3, hht_alpha=0.0)
>>> fp.simulate(model, q0, 0.5, drive, options=opts)
>>> fp.simulate(model, q0, 0.5, drive, h=1e-4)      # the same keywords, one at a time
"""
from __future__ import annotations

from dataclasses import dataclass, fields, replace

import numpy as np

from flexpkm.analysis.step_control import DEFAULT_ITERATIONS, DEFAULT_TOL, check_newton
from flexpkm.errors import InvalidArgumentError

#: at most this many integration steps per output sample (h >= dt_out / MAX_SUBSTEPS)
MAX_SUBSTEPS = 10_000
#: the values of ``project``
PROJECTIONS = ("output", "step")


@dataclass(frozen=True, kw_only=True)
class SimulationOptions:
    """How :func:`flexpkm.simulate` integrates (SI units).

    h : integration step, s (made a divisor of ``dt_out``: ``dt_out /
        round(dt_out / h)``); dt_out : output period, s (>= h, at most
        :data:`MAX_SUBSTEPS` steps per sample).
    hht_alpha : numerical damping of the HHT scheme, in [0, 1/3]; 0 is
        Newmark's average acceleration (energy checks); default 0.05
        (docs/simulation.md).
    tol, iterations : Newton iterates each step until its residual relative
        to the step's forces is at most ``tol`` (in (0, 1), default 1e-6),
        within ``iterations`` model evaluations (1..100, default 8), on both
        backends (:mod:`flexpkm.analysis.step_control`).
    project : ``"output"`` closes the loops geometrically at every output
        sample, ``"step"`` at every step (very stiff models).
    exact_tangent : compiled backend only: Newton with the exact derivative
        of the step residual (AD) instead of the iteration matrix.
    friction : joint friction of the model on (True) or off;
    coulomb_smoothing : velocity (m/s or rad/s, >= 0) below which the
        Coulomb friction is smoothed (``tanh(qd / s)``).
    gravity : (3,) m/s^2 in the base frame, or None (the model's).

    Raises :class:`InvalidArgumentError` naming the setting for a value out
    of its range (when made, or by :meth:`with_settings`).
    """

    h: float = 2.5e-4
    dt_out: float = 1e-3
    hht_alpha: float = 0.05
    tol: float = DEFAULT_TOL
    iterations: int = DEFAULT_ITERATIONS
    project: str = "output"
    exact_tangent: bool = False
    friction: bool = True
    coulomb_smoothing: float = 1e-3
    gravity: tuple | None = None

    def __post_init__(self):
        for name in ("h", "dt_out"):
            _positive(name, getattr(self, name))
        if self.dt_out < self.h:
            raise InvalidArgumentError(f"simulate: the output period dt_out = {self.dt_out} s is "
                                       f"shorter than the step h = {self.h} s")
        if self.dt_out / self.h > MAX_SUBSTEPS:
            raise InvalidArgumentError(f"simulate: h = {self.h} s gives {self.dt_out / self.h:.3g} "
                                       f"steps per output sample (dt_out = {self.dt_out} s); "
                                       f"at most {MAX_SUBSTEPS}")
        check_newton(self.tol, self.iterations)
        if not _number(self.hht_alpha) or not 0 <= self.hht_alpha <= 1 / 3:
            raise InvalidArgumentError(f"simulate: hht_alpha must be in [0, 1/3], "
                                       f"got {self.hht_alpha!r}")
        if self.project not in PROJECTIONS:
            raise InvalidArgumentError(f"simulate: project must be 'output' or 'step', "
                                       f"got {self.project!r}")
        for name in ("exact_tangent", "friction"):
            if not isinstance(getattr(self, name), (bool, np.bool_)):
                raise InvalidArgumentError(f"simulate: {name} must be True or False, "
                                           f"got {getattr(self, name)!r}")
        if not _number(self.coulomb_smoothing) or not 0 <= self.coulomb_smoothing < np.inf:
            raise InvalidArgumentError(f"simulate: coulomb_smoothing must be a finite number "
                                       f">= 0 (m/s or rad/s), got {self.coulomb_smoothing!r}")
        g = self.gravity
        if g is not None and (np.shape(g) != (3,) or not np.isfinite(np.asarray(g, float)).all()):
            raise InvalidArgumentError(f"simulate: gravity must be a finite 3-vector (m/s^2), "
                                       f"got {g!r}")

    def with_settings(self, **settings) -> "SimulationOptions":
        """A copy with ``settings`` (names of the fields) changed and checked;
        :class:`InvalidArgumentError` for an unknown name."""
        names = {f.name for f in fields(self)}
        unknown = sorted(set(settings) - names)
        if unknown:
            raise InvalidArgumentError(f"simulate: unknown setting {', '.join(unknown)}; the "
                                       f"settings are {', '.join(sorted(names))}")
        return replace(self, **settings)


def _number(x) -> bool:
    return not isinstance(x, bool) and isinstance(x, (int, float, np.number))


def _positive(name, value):
    if not _number(value) or not np.isfinite(value) or not value > 0:
        raise InvalidArgumentError(f"simulate: {name} must be a positive finite number "
                                   f"(s), got {value!r}")
