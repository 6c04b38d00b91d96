"""How the actuators are driven in a time simulation (Section 10.4.3).

A drive says which independent accelerations ``qdd_r = [qdd_a; qdd_c]`` are
unknown and what the actuator efforts ``tau`` are:

* :class:`PrescribedMotion` -- ``q_a(t)`` given, ``tau`` computed: the
  inverse problem (10.124); only ``qdd_c`` is integrated;
* :class:`PDControl` -- joint PD control tracking ``q_a(t)``:
  ``tau = kp (q_a_ref - q_a) + kd (qd_a_ref - qd_a)``, the direct problem;
* :class:`Free` -- ``tau = 0``;
* :class:`EffortHistory` -- a given ``tau(t)``.

Common interface (read by :func:`flexpkm.analysis.simulate.simulate`):
``prescribes_actuators`` (bool); ``actuator_state(t)`` -> ``(q_a, qd_a,
qdd_a)`` each (n_a,) for a prescribed motion; ``efforts(t, q_a, qd_a)`` ->
tau (n_a,) for the other drives; ``gains(n_a)`` -> ``(kp, kd)`` (n_a,), the
derivatives ``-d tau / d q_a`` and ``-d tau / d qd_a`` that enter the
iteration matrix.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from flexpkm.errors import InvalidArgumentError


def _first(trajectory, t):
    """``(q_a, qd_a, qdd_a)`` (n_a,) each from a trajectory ``t -> (m, n_a)`` x 3."""
    return tuple(x[0] for x in trajectory(t))


def _callable(drive, name):
    if not callable(getattr(drive, name)):
        raise InvalidArgumentError(f"{type(drive).__name__}: {name} must be a function of the "
                                   f"time t (s), got {getattr(drive, name)!r:.60}")


class _Drive:
    """Defaults of a drive that computes its efforts (direct problem)."""

    prescribes_actuators = False

    def actuator_state(self, t):
        raise InvalidArgumentError(f"{type(self).__name__} does not prescribe the actuators")

    def gains(self, n_a):
        """``(kp, kd)`` (n_a,): zero for an effort that does not depend on the state."""
        return np.zeros(n_a), np.zeros(n_a)


@dataclass
class PrescribedMotion(_Drive):
    """Actuator motion prescribed, efforts computed (inverse problem, 10.124).

    trajectory : callable ``t -> (q_a, qd_a, qdd_a)``, each (m, n_a) for m
        times (m, rad; /s; /s^2), e.g. :class:`flexpkm.analysis.trajectories.Trajectory`.
    """

    trajectory: object
    prescribes_actuators = True

    def __post_init__(self):
        _callable(self, "trajectory")

    def actuator_state(self, t):
        """``(q_a, qd_a, qdd_a)`` (n_a,) each at time t (s)."""
        return _first(self.trajectory, t)

    def efforts(self, t, q_a, qd_a):
        raise InvalidArgumentError("PrescribedMotion: the efforts are unknowns of the "
                                   "inverse problem (flexpkm.inverse_dynamics)")


@dataclass
class PDControl(_Drive):
    """Joint PD control tracking a trajectory (direct problem).

    trajectory : as for :class:`PrescribedMotion`;
    kp : (n_a,) N/m or N m/rad; kd : (n_a,) N s/m or N m s/rad.
    """

    trajectory: object
    kp: np.ndarray
    kd: np.ndarray

    def __post_init__(self):
        _callable(self, "trajectory")
        for name in ("kp", "kd"):
            g = np.asarray(getattr(self, name), float)
            if g.ndim > 1 or not np.all(np.isfinite(g)) or np.any(g < 0):
                raise InvalidArgumentError(f"PDControl: {name} must be finite and >= 0 (one "
                                           f"value or one per actuator), got {getattr(self, name)!r}")

    def efforts(self, t, q_a, qd_a):
        """``kp (q_ref - q_a) + kd (qd_ref - qd_a)`` (n_a,), N or N m."""
        q_ref, qd_ref, _ = self.trajectory(t)
        return self.kp * (q_ref[0] - q_a) + self.kd * (qd_ref[0] - qd_a)

    def gains(self, n_a):
        return (np.broadcast_to(np.asarray(self.kp, float), (n_a,)),
                np.broadcast_to(np.asarray(self.kd, float), (n_a,)))


@dataclass
class Free(_Drive):
    """No actuator effort: ``tau = 0``."""

    def efforts(self, t, q_a, qd_a):
        return np.zeros_like(q_a)


@dataclass
class EffortHistory(_Drive):
    """Given actuator efforts: ``tau_of_t`` callable ``t -> tau`` (n_a,), N or N m."""

    tau_of_t: object

    def __post_init__(self):
        _callable(self, "tau_of_t")

    def efforts(self, t, q_a, qd_a):
        return np.asarray(self.tau_of_t(t), float)
