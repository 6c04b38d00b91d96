"""Point-to-point trajectories with the fifth-degree polynomial law of
Briot & Khalil Appendix D, Eq. (D.13) corrected (docs/typos.md):
``s(tau) = 10 tau^3 - 15 tau^4 + 6 tau^5``, ``tau = t / t_f``.

A :class:`Trajectory` is a sequence of segments ``(q_start, q_end, t_move,
t_rest)`` in any coordinates; it evaluates position, velocity and
acceleration for arrays of times (vectorised).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from flexpkm.errors import InvalidArgumentError


def quintic(tau):
    """``(s, ds/dtau, d2s/dtau2)`` of the law (D.13) for ``tau`` in [0, 1]
    (clipped outside)."""
    t = np.clip(np.asarray(tau, float), 0.0, 1.0)
    s = t ** 3 * (10 - 15 * t + 6 * t * t)
    ds = 30 * t * t * (1 - t) ** 2
    dds = 60 * t * (1 - t) * (1 - 2 * t)
    return s, ds, dds


@dataclass(frozen=True)
class Trajectory:
    """Piecewise quintic point-to-point motion.

    waypoints : (k + 1, n) positions (SI); t_move, t_rest : (k,) seconds of
    motion, then of rest, for each of the k segments.
    """

    waypoints: np.ndarray
    t_move: tuple
    t_rest: tuple

    @property
    def duration(self) -> float:
        return float(sum(self.t_move) + sum(self.t_rest))

    def __call__(self, t):
        """``(q, qd, qdd)`` at times t (m,), each (m, n)."""
        t = np.atleast_1d(np.asarray(t, float))
        W = np.asarray(self.waypoints, float)
        q = np.repeat(W[:1], t.size, axis=0)
        qd = np.zeros_like(q)
        qdd = np.zeros_like(q)
        t0 = 0.0
        for k, (tm, tr) in enumerate(zip(self.t_move, self.t_rest)):
            active = t >= t0
            s, ds, dds = quintic((t - t0) / tm)
            delta = W[k + 1] - W[k]
            moving = active & (t < t0 + tm)
            q[active] = W[k] + s[active, None] * delta
            qd[moving] = ds[moving, None] * delta / tm
            qdd[moving] = dds[moving, None] * delta / tm ** 2
            t0 += tm + tr
        return q, qd, qdd


@dataclass(frozen=True)
class SampledTrajectory:
    """A trajectory through samples ``q`` (m, n) at times ``t`` (m,), s:
    the C2 cubic spline through them (scipy ``CubicSpline``, natural ends),
    held at the last sample after ``t[-1]``."""

    t: np.ndarray
    q: np.ndarray

    @property
    def duration(self) -> float:
        return float(self.t[-1])

    def __call__(self, t):
        """``(q, qd, qdd)`` at times t (m,), each (m, n)."""
        from scipy.interpolate import CubicSpline
        spline = CubicSpline(self.t, self.q, bc_type="natural")
        t = np.atleast_1d(np.asarray(t, float))
        inside = np.clip(t, self.t[0], self.t[-1])
        moving = ((t >= self.t[0]) & (t <= self.t[-1]))[:, None]
        return spline(inside), spline(inside, 1) * moving, spline(inside, 2) * moving


def read_trajectory_csv(path, n: int) -> SampledTrajectory:
    """A :class:`SampledTrajectory` from a CSV file: a header line, then rows
    ``t, q_1, ..., q_n`` (s, then m or rad) with increasing times from 0.
    Raises :class:`InvalidArgumentError` naming the file and what is wrong."""
    try:
        data = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)
    except (OSError, ValueError) as exc:
        raise InvalidArgumentError(f"{path}: cannot read the trajectory ({exc})") from None
    if data.shape[1] != n + 1 or len(data) < 2:
        raise InvalidArgumentError(f"{path}: expected at least 2 rows of {n + 1} columns "
                                   f"(t and {n} actuated coordinates), got {data.shape}")
    if not np.all(np.isfinite(data)) or np.any(np.diff(data[:, 0]) <= 0) or data[0, 0] != 0:
        raise InvalidArgumentError(f"{path}: times must start at 0 and increase, values be finite")
    return SampledTrajectory(data[:, 0], data[:, 1:])
