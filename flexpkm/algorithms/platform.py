"""The rigid moving platform: its pose from its own coordinates and its
Newton-Euler model, Eqs. (8.57), (8.97), (8.98), used as the free body of
the virtual system (10.101).

The platform frame F_p has its origin at P. Its coordinates ``x_p`` (the last
``n_p`` entries of ``q_tot``) are the components of the base-frame pose
``[P; r]`` selected by ``Platform.dofs`` (``r`` = rotation vector of
``R_0p = exp(hat(r))``; components not selected are 0). The platform's
twist ``^0t_p = [v_P; omega_p]`` is taken at P and projected in the base
frame, ``^0t_p = S_p xd_p``: exact for translations and for rotations about
one fixed axis (planar robots); with several rotational coordinates ``xd_p``
holds the angular-velocity components (quasi-velocities) and the rotation
vector is updated by composition (:func:`platform_increment`).
"""
from __future__ import annotations

from typing import NamedTuple, Optional

import numpy as np

from flexpkm.elements import newton_euler as ne
from flexpkm.errors import InvalidArgumentError

from flexpkm.spatial import block_rotation, rotation_matrix, rotation_vector


class PlatformPose(NamedTuple):
    """Pose of the platform frame F_p in the base frame (one order everywhere:
    R, then P). R : (B, 3, 3) ``R_0p`` (None where an analysis may omit it,
    :func:`flexpkm.algorithms.cut_joints.cut_sides`); P : (B, 3) origin, m."""
    R: Optional[np.ndarray]
    P: np.ndarray


def selection(platform) -> np.ndarray:
    """S_p (6, n_p): ``^0t_p = S_p xd_p``."""
    S = np.zeros((6, len(platform.dofs)))
    S[list(platform.dofs), range(len(platform.dofs))] = 1.0
    return S


def platform_pose(model, q_tot):
    """Pose of the platform frame F_p from the platform coordinates of
    ``q_tot`` (B, n_tot): returns :class:`PlatformPose` (R = R_0p (B, 3, 3),
    P (B, 3), m). Without a
    platform: identity and zeros. Raises :class:`InvalidArgumentError` for
    another shape or a non-numeric ``q_tot``."""
    try:
        q = np.asarray(q_tot, float)
    except (TypeError, ValueError):
        raise InvalidArgumentError(f"platform_pose: q_tot must be numbers, got {q_tot!r:.60}") from None
    if q.ndim != 2 or q.shape[1] != model.layout.n_tot:
        raise InvalidArgumentError(f"platform_pose: q_tot must have shape (B, "
                                   f"{model.layout.n_tot}), got {q.shape}")
    B = q.shape[0]
    pose = np.zeros((B, 6))
    if model.platform is not None:
        pose[:, list(model.platform.dofs)] = q[:, model.layout.n_t:]
    return PlatformPose(rotation_matrix(pose[:, 3:]), pose[:, :3])


def platform_increment(model, q_tot, dx_p):
    """``q_tot`` (B, n_tot) with its platform coordinates moved by the small
    twist-like increment ``dx_p`` (B, n_p) (components of ``[dP; dphi]``,
    base frame): ``P + dP`` and ``R_0p <- exp(hat(dphi)) R_0p``. Returns a new
    array; equal to ``x_p + dx_p`` for a rotation about one fixed axis."""
    q = np.array(q_tot, float)
    if model.platform is None:
        return q
    dofs = list(model.platform.dofs)
    R, P = platform_pose(model, q)
    step = np.zeros((q.shape[0], 6))
    step[:, dofs] = dx_p
    pose = np.concatenate([P + step[:, :3], rotation_vector(rotation_matrix(step[:, 3:]) @ R)], -1)
    rot = [d for d in dofs if d >= 3]
    if len(rot) == 1:                           # one fixed axis: the angle adds, unwrapped
        k = rot[0]
        pose[:, k] = q[:, model.layout.n_t + dofs.index(k)] + step[:, k]
    q[:, model.layout.n_t:] = pose[:, dofs]
    return q


def platform_mass_matrix(platform, R_0p) -> np.ndarray:
    """``^0M_p`` of Eq. (8.97), at P in the base frame, (B, 6, 6) for
    R_0p (B, 3, 3); zeros for a massless platform."""
    B = R_0p.shape[0]
    if platform.body is None:
        return np.zeros((B, 6, 6))
    M = ne.mass_matrix(platform.body.invariants, np.zeros((B, 0)))
    Rb = block_rotation(R_0p)
    return Rb @ M @ np.swapaxes(Rb, -1, -2)


def platform_wrench(platform, R_0p, t_p, tdot_p, gravity) -> np.ndarray:
    """``^0w_p = ^0M_p ^0tdot_p + ^0c_p`` of Eqs. (8.57)/(10.101), (B, 6).

    t_p, tdot_p : (B, 6) twist and absolute acceleration at P, base frame.
    gravity : (3,) base frame, m/s^2.
    """
    B = R_0p.shape[0]
    if platform.body is None:
        return np.zeros((B, 6))
    Rt = np.swapaxes(R_0p, -1, -2)
    to_p = lambda x: np.einsum("bij,bj->bi", Rt, x)
    w = ne.ne_wrench(platform.body.invariants,
                     np.concatenate([to_p(tdot_p[:, :3]), to_p(tdot_p[:, 3:])], -1),
                     np.zeros((B, 0)), to_p(t_p[:, 3:]), np.zeros((B, 0)), np.zeros((B, 0)),
                     g=to_p(np.broadcast_to(gravity, (B, 3))))
    back = lambda x: np.einsum("bij,bj->bi", R_0p, x)
    return np.concatenate([back(w[:, :3]), back(w[:, 3:6])], -1)


def external_wrench(model, wrench, B, what="wrench"):
    """An external wrench on the platform checked and batched: ``(w (B, 6),
    Q_p (B, n_p))`` with ``Q_p = S_p^T w`` its generalized force on ``x_p``.

    wrench : (6,) or (B, 6) ``[F_x, F_y, F_z, M_x, M_y, M_z]`` (N, N m)
    exerted by the environment on the platform, at the platform point P, in
    base-frame components (the frame of ``^0t_p``). Raises
    :class:`InvalidArgumentError` (naming ``what``) for another shape, a
    non-finite value, a robot without a platform, or a non-zero component
    along a direction that is not a platform coordinate (e.g. F_z or M_z on
    a translating planar platform: the model could not take it).
    """
    try:
        w = np.asarray(wrench, float)
    except (TypeError, ValueError):
        raise InvalidArgumentError(f"{what}: 6 numbers expected, got {wrench!r:.60}") from None
    if w.shape not in ((6,), (B, 6)) or not np.isfinite(w).all():
        raise InvalidArgumentError(f"{what}: a finite (6,) or ({B}, 6) wrench [Fx, Fy, Fz, Mx, "
                                   f"My, Mz] expected (N, N m), got shape {w.shape}")
    if model.platform is None:
        raise InvalidArgumentError(f"{what}: {model.name} has no platform to apply it to")
    w = np.broadcast_to(w, (B, 6))
    free = [k for k in range(6) if k not in model.platform.dofs and np.any(w[:, k] != 0)]
    if free:
        names = ("Fx", "Fy", "Fz", "Mx", "My", "Mz")
        raise InvalidArgumentError(
            f"{what}: {', '.join(names[k] for k in free)} of the wrench acts along no platform "
            f"coordinate of {model.name} (the components it takes: "
            f"{', '.join(names[k] for k in model.platform.dofs)}); it would be ignored")
    return w, w @ selection(model.platform)
