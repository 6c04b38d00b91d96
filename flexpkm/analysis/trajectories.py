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
