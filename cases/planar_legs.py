"""Shared geometry of the planar RR legs of the rigid cases (five-bar,
DualV): the inverse geometric model of one leg, Briot & Khalil (7.14)-(7.16)
in circle-intersection form, and the extension of their files' cases."""
from __future__ import annotations

import numpy as np

from dataclasses import replace

from flexpkm.cases.case import Case
from flexpkm.errors import UnreachablePoseError


def wrap(angle):
    """Angles (rad) in (-pi, pi]."""
    return np.angle(np.exp(1j * np.asarray(angle, float)))


def two_link_ik(A, C, d2, d3, mode, leg):
    """Joint angles of an RR leg from its base point A to its tip C.

    A : (2,) base point, C : (..., 2) tip points (m), base frame.
    d2, d3 : proximal and distal lengths (m). mode : +1 when the elbow B is
    on the left of A -> C (``(C - A) x (B - A) > 0``), -1 on the right (the
    sign of (7.15), the working mode of Fig. 7.4).
    Returns ``(q1, q2)`` (rad): the absolute angle of A B and the relative
    angle of B C (7.16). Raises :class:`UnreachablePoseError` naming the leg
    when |A C| is outside ``[|d2 - d3|, d2 + d3]`` (Type 1 singularity at
    the bounds).
    """
    u = np.asarray(C, float) - np.asarray(A, float)
    L = np.hypot(u[..., 0], u[..., 1])
    bad = (L >= d2 + d3) | (L <= abs(d2 - d3))
    if np.any(bad):
        k = int(np.flatnonzero(np.atleast_1d(bad))[0])
        raise UnreachablePoseError(
            f"leg {leg} cannot reach its platform point: |A C| = {np.atleast_1d(L)[k]:.4f} m "
            f"is outside ({abs(d2 - d3):.4f}, {d2 + d3:.4f}) m")
    beta = np.arccos((d2 ** 2 + L ** 2 - d3 ** 2) / (2 * d2 * L))
    q1 = wrap(np.arctan2(u[..., 1], u[..., 0]) + mode * beta)
    Bx, By = A[0] + d2 * np.cos(q1), A[1] + d2 * np.sin(q1)
    q2 = wrap(np.arctan2(C[..., 1] - By, C[..., 0] - Bx) - q1)
    return q1, q2


def fill_state(layout, values, batch_shape):
    """``q_tot`` (..., n_tot) from a dict coordinate name -> array."""
    q = np.zeros(tuple(batch_shape) + (layout.n_tot,))
    for name, v in values.items():
        q[..., layout.index(name)] = v
    return q


def planar_case(case, title, robot, configuration, home) -> Case:
    """The file's case ``case`` of a rigid planar robot, extended: its pose
    is P's (x, y) (m), ``configuration(model, x, y) -> q_tot`` (the closed
    form) gives ``configure``; ``robot()`` reads the file; the case offers the
    inverse dynamic model along paths (``extra["idm"]``)."""
    def configure(model, pose, options):
        pose = np.asarray(pose, float)
        return configuration(model, pose[..., 0], pose[..., 1])

    return replace(case, title=title, pose_option="pose", pose_names=("x", "y"),
                   pose_units=("m", "m"), pose_default=tuple(home), options=(),
                   robot=lambda options: robot(), configure=configure, view="normal",
                   extra={"idm": True, "source": case.source})
