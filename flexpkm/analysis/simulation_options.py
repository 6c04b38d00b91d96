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
    design_input : compiled backend only: the generated step takes the
        design vector p as an input at every size (the parametric kernel
        graph, one library per topology: another section, material, mass
        or length compiles nothing, :mod:`flexpkm.compiled.design`); default
        False: up to :data:`flexpkm.compiled.robot.UNROLLED_MAX` coordinates
        the unrolled graph with the numbers folded in (a library per design;
        docs/design.md, "Design parameters as inputs"), above it p is an
        input anyway.
    friction : joint friction of the model on (True) or off;
    coulomb_smoothing : velocity (m/s or rad/s, >= 0) below which the
        Coulomb friction is smoothed (``tanh(qd / s)``).
    gravity : (3,) m/s^2 in the base frame, or None (the model's).
    actuator_stiffness : k_a, one value or one per actuator in the order of
        q_a (``result.r_names[:n_a]``) (N m/rad or N/m, > 0): elastic
        transmissions with motor coordinates q_M
        (Section 10.5, :mod:`flexpkm.analysis.motors`); None (default): the
        motors are rigidly joined to the actuated joints.
    motor_inertia : I_a, rotor inertias on the joint side (kg m^2 or kg,
        >= 0; > 0 unless the drive prescribes the motors); motor_viscous :
        F_vM, viscous friction of the motors and transmissions (N m s/rad or
        N s/m, >= 0). motor_coulomb : f_sM, Coulomb friction of the motors
        and transmissions (N m or N, >= 0), ``f_sM tanh(qd_M /
        coulomb_smoothing)`` (the sign of (8.31) in (10.125), smoothed as
        the joints' Coulomb friction; the sign when coulomb_smoothing = 0).
        All three need ``actuator_stiffness``.

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
    design_input: bool = False
    friction: bool = True
    coulomb_smoothing: float = 1e-3
    gravity: tuple | None = None
    actuator_stiffness: object = None
    motor_inertia: object = 0.0
    motor_viscous: object = 0.0
    motor_coulomb: object = 0.0

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
        for name in ("exact_tangent", "design_input", "friction"):
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


@dataclass(frozen=True)
class Motors:
    """The transmissions: k (n_a,) N m/rad or N/m, inertia (n_a,) kg m^2 or
    kg (rotor, joint side), viscous (n_a,) N m s/rad or N s/m (F_vM),
    coulomb (n_a,) N m or N (f_sM)."""

    k: np.ndarray
    inertia: np.ndarray
    viscous: np.ndarray
    coulomb: np.ndarray


def motors_of(o, names, drive) -> Motors | None:
    """The :class:`Motors` of the options ``o`` for the actuated coordinates
    ``names``, or None without ``actuator_stiffness``; InvalidArgumentError
    for a bad value or a zero rotor inertia under a drive that does not
    prescribe the motors."""
    if o.actuator_stiffness is None:
        for name in ("motor_inertia", "motor_viscous", "motor_coulomb"):
            if np.any(np.asarray(getattr(o, name), float) != 0):
                raise InvalidArgumentError(f"simulate: {name} needs actuator_stiffness (the "
                                           "motors are rigidly joined to the actuated joints)")
        return None
    n = len(names)
    values = [_per_actuator(o, name, n, positive) for name, positive in
              (("actuator_stiffness", True), ("motor_inertia", False), ("motor_viscous", False),
               ("motor_coulomb", False))]
    m = Motors(*values)
    if not drive.prescribes_actuators and np.any(m.inertia <= 0):
        raise InvalidArgumentError(f"simulate: motor_inertia must be > 0 for each actuator "
                                   f"({', '.join(names)}) when the drive gives the motor torque "
                                   f"({type(drive).__name__}); got {o.motor_inertia!r}")
    return m


def _per_actuator(o, name, n, positive):
    """Option ``name`` as (n,) floats (one value is repeated); InvalidArgumentError."""
    x = getattr(o, name)
    try:
        v = np.broadcast_to(np.asarray(x, float), (n,)).copy()
    except (TypeError, ValueError):
        v = None
    if v is None or not np.all(np.isfinite(v)) or np.any(v <= 0 if positive else v < 0):
        raise InvalidArgumentError(f"simulate: {name} must be one or {n} finite values "
                                   f"{'> 0' if positive else '>= 0'} (one per actuator), got {x!r}")
    return v
