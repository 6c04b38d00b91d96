"""Shared geometry of the planar RR legs of the rigid cases (five-bar,
DualV): the inverse geometric model of one leg, Briot & Khalil (7.14)-(7.16)
in circle-intersection form."""
from __future__ import annotations

import numpy as np

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


def with_reference(robot, q_tot):
    """``robot`` with its ``reference`` configuration: the joint and platform
    coordinates of the state ``q_tot`` (n_tot,) (the start of
    :func:`flexpkm.assemble` for a description file of it)."""
    from dataclasses import replace
    layout = robot.layout
    cols = list(layout.joint_index.values()) + list(range(layout.n_t, layout.n_tot))
    return replace(robot, reference={layout.names[i]: float(q_tot[i]) for i in cols})


def planar_case(name, title, robot, configuration, home) -> Case:
    """The :class:`Case` of a rigid planar robot whose pose is P's (x, y)
    (m): ``configuration(model, x, y) -> q_tot`` gives ``configure``; the
    case offers the inverse dynamic model along paths (``extra["idm"]``)."""
    def configure(model, pose, options):
        pose = np.asarray(pose, float)
        return configuration(model, pose[..., 0], pose[..., 1])

    return Case(name=name, title=title, pose_option="pose", pose_names=("x", "y"),
                pose_units=("m", "m"), pose_default=tuple(home), robot=lambda options: robot(),
                configure=configure, view="normal", extra={"idm": True})
