"""Constraint rows of the cut joints at any configuration (Briot & Khalil
Section 10.4.1, Eq. 10.107; Müller Section 3.3), at position, velocity and
acceleration level, each level the exact time derivative of the previous.

A closure joins the cut frame F_k (a tree frame; origin O_k, axes
``x_k, y_k, z_k``) to the other side's frame F_g (a tree frame, or the
platform-side frame ``O_g = P + R_0p platform_point``, ``R_0g = R_0p
exp(hat(platform_rotation))``); the joint axis is z (a universal joint: z_k
on the k side, x_g on the g side). With ``d = O_k - O_g``:

=========  ==============================  ======================================
row        position residual h             velocity row dh/dt
=========  ==============================  ======================================
v_x..v_z   ``R_0k^T d`` (x, y, z)          ``R_0k^T (v_k - v_g - w_k x d)``
w_x        ``y_k . z_g``                   ``(w_k - w_g) . (y_k x z_g)``
w_y        ``-x_k . z_g``                  ``-(w_k - w_g) . (x_k x z_g)``
w_y (U)    ``z_k . x_g``                   ``(w_k - w_g) . (z_k x x_g)``
w_z        ``x_k . y_g``                   ``(w_k - w_g) . (x_k x y_g)``
=========  ==============================  ======================================

(``v_g`` the velocity of O_g, ``w`` angular velocities, base frame.) When the
cut frames coincide each row is the twist component of its name in F_k, the
rows of the aligned description (:data:`flexpkm.model.description.CUT_JOINT_ROWS`
names them): weld v, w; revolute v, w_x, w_y (z_g stays along z_k);
prismatic v_x, v_y, w (O_g slides on z_k); universal v and ``z_k . x_g = 0``
(the two cross axes stay perpendicular, so the relative angular velocity
``a' z_k + b' x_g`` is free whatever the angles); spherical v. Each residual
vanishes on the joint's whole motion manifold, not only at alignment, and
the velocity rows are its exact derivative (the Newton steps of
:func:`flexpkm.assemble` converge quadratically). The rotation rows also
vanish when the cut frame is half-turned (``z_g = -z_k``, or ``x_g = -x_k``):
:func:`alignment` tells the two apart (``a_k . a_g`` +1 or -1).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from flexpkm.algorithms.platform import selection
from flexpkm.errors import InvalidArgumentError
from flexpkm.spatial import cross, rotation_matrix, skew

#: rotation rows: (component, axis of F_k, axis of F_g, sign); component 4 of
#: a universal joint is the perpendicularity of its cross axes
_ROTATION = {3: (1, 2, 1.0), 4: (0, 2, -1.0), 5: (0, 1, 1.0)}
_UNIVERSAL = (2, 0, 1.0)


def rotation_row(joint, component):
    """(axis index on F_k, axis index on F_g, sign) of a rotation row
    ``sign * a_k . b_g``."""
    if joint == "universal" and component == 4:
        return _UNIVERSAL
    return _ROTATION[component]


@dataclass
class CutSides:
    """Both sides of a closure at B poses (base frame, batch first).

    Ok, Og : (B, 3) origins (m); Rk, Rg : (B, 3, 3) axes
    Vk, Wk, Vg, Wg : (B, 3, n_tot) velocity of O_k / O_g and angular
    velocities per unit ``qd_tot``
    """

    Ok: np.ndarray
    Rk: np.ndarray
    Og: np.ndarray
    Rg: np.ndarray
    Vk: np.ndarray
    Wk: np.ndarray
    Vg: np.ndarray
    Wg: np.ndarray


def needs_platform_rotation(closure):
    """True when a platform closure's rows need R_0p even at an assembled
    configuration (universal: the g-side cross axis; prismatic: the gap)."""
    return closure.other is None and closure.joint in ("universal", "prismatic")


def cut_sides(model, kin, closure, pose) -> CutSides:
    """:class:`CutSides` of ``closure``. pose :
    :class:`flexpkm.algorithms.platform.PlatformPose` (R_p (B, 3, 3) or None,
    P (B, 3)); without R_p the platform-side frame is taken at its
    assembled place (``O_g = O_k``, ``R_0g = R_0k``), exact for the rows of
    weld, revolute and spherical closures at an assembled configuration.
    Raises :class:`InvalidArgumentError` when R_p is needed and absent."""
    R_p, P = pose
    layout = model.layout
    B = kin.R.shape[0]
    k = model.frame_index[closure.frame]
    zeros = lambda: np.zeros((B, 3, layout.n_tot))
    Vk, Wk, Vg, Wg = zeros(), zeros(), zeros(), zeros()
    Vk[:, :, :layout.n_t], Wk[:, :, :layout.n_t] = kin.Jv[:, k], kin.Jw[:, k]
    Ok, Rk = kin.p[:, k], kin.R[:, k]
    if closure.other is not None:
        g = model.frame_index[closure.other]
        Og, Rg = kin.p[:, g], kin.R[:, g]
        Vg[:, :, :layout.n_t], Wg[:, :, :layout.n_t] = kin.Jv[:, g], kin.Jw[:, g]
        return CutSides(Ok, Rk, Og, Rg, Vk, Wk, Vg, Wg)
    if R_p is None:
        if needs_platform_rotation(closure):
            raise InvalidArgumentError(
                f"closure {closure.label}: a {closure.joint} joint to the platform needs the "
                f"platform orientation R_p (pass pose=platform_pose(model, q_tot))")
        Og, Rg = Ok, Rk
    else:
        Og = P + R_p @ np.asarray(closure.platform_point, float)
        Rg = R_p @ rotation_matrix(closure.platform_rotation)
    S = selection(model.platform)
    Vg[:, :, layout.n_t:] = S[:3] - skew(Og - P) @ S[3:]
    Wg[:, :, layout.n_t:] = np.broadcast_to(S[3:], (B, 3, S.shape[1]))
    return CutSides(Ok, Rk, Og, Rg, Vk, Wk, Vg, Wg)


def _stack_rows(closure, rows, trans, rotation):
    """Row r of ``trans`` (B, 3, ...) for the v rows, ``rotation(i, j, sign)``
    (B, ...) for the w rows (axes of :func:`rotation_row`); (B, n_rows, ...)."""
    out = [trans[:, r] if r < 3 else rotation(*rotation_row(closure.joint, r)) for r in rows]
    return np.stack(out, 1) if out else np.zeros(trans.shape[:1] + (0,) + trans.shape[2:])


def residual_rows(closure, rows, s: CutSides):
    """Position residual (B, len(rows)): m for v rows, dimensionless
    (sine-like) for w rows."""
    trans = np.einsum("bji,bj->bi", s.Rk, s.Ok - s.Og)
    return _stack_rows(closure, rows, trans,
                       lambda a, b, sign: sign * np.sum(s.Rk[:, :, a] * s.Rg[:, :, b], -1))


def jacobian_rows(closure, rows, s: CutSides):
    """Velocity rows (B, len(rows), n_tot): the exact ``dh/dq_tot`` of
    :func:`residual_rows` (platform columns: twist components of P)."""
    d = s.Ok - s.Og
    trans = np.swapaxes(s.Rk, -1, -2) @ (s.Vk - s.Vg + skew(d) @ s.Wk)
    W = s.Wk - s.Wg
    return _stack_rows(closure, rows, trans, lambda a, b, sign: np.einsum(
        "bi,bin->bn", sign * cross(s.Rk[:, :, a], s.Rg[:, :, b]), W))


def bias_rows(closure, rows, s: CutSides, qd_tot, acc_k, acc_g):
    """``d/dt(velocity rows) qd_tot`` at zero accelerations (B, len(rows)).

    acc_k, acc_g : (a, alpha) of O_k / F_k and of O_g / F_g at zero
    accelerations (B, 3) each, base frame, gravity excluded."""
    vel = lambda J: np.einsum("bin,bn->bi", J, qd_tot)
    vk, wk, vg, wg = vel(s.Vk), vel(s.Wk), vel(s.Vg), vel(s.Wg)
    (ak, alk), (ag, alg) = acc_k, acc_g
    d, dd = s.Ok - s.Og, vk - vg
    trans = (ak - ag - cross(alk, d) - 2 * cross(wk, dd) + cross(wk, cross(wk, d)))
    trans = np.einsum("bji,bj->bi", s.Rk, trans)

    def rotation(i, j, sign):
        a, b = s.Rk[:, :, i], s.Rg[:, :, j]
        c_dot = cross(cross(wk, a), b) + cross(a, cross(wg, b))
        return sign * (np.sum((alk - alg) * cross(a, b), -1) + np.sum((wk - wg) * c_dot, -1))
    return _stack_rows(closure, rows, trans, rotation)


def aligned_axes(closure, rows) -> tuple:
    """Axes (0 x, 2 z) that the joint keeps parallel *and* pointing the same
    way: the rotation rows vanish at ``a_k . a_g = +1`` and at ``-1`` alike
    (a half-turn of the cut frame), so the sign is checked apart
    (:func:`alignment`). Revolute: z (rows w_x, w_y); weld, prismatic: z and
    x (w_z, then ``R_kg`` is the identity); a planar model's rows: x when w_z
    is a row. A universal or spherical joint has no such axis: every
    orientation that its rows allow is a motion of the joint (a half-turn
    about y of a universal joint is its two angles at pi)."""
    axes = []
    if closure.joint != "universal" and 3 in rows and 4 in rows:
        axes.append(2)
    if 5 in rows:
        axes.append(0)
    return tuple(axes)


def alignment(closure, rows, s: CutSides) -> np.ndarray:
    """``a_k . a_g`` (B, len(axes)) for the axes of :func:`aligned_axes`:
    +1 at a closure, -1 for a cut frame closed half-turned."""
    axes = aligned_axes(closure, rows)
    if not axes:
        return np.zeros((s.Rk.shape[0], 0))
    return np.stack([np.sum(s.Rk[:, :, a] * s.Rg[:, :, a], -1) for a in axes], 1)


def platform_point_acceleration(s: CutSides, qd_tot, P):
    """(a, alpha) of the platform-side point O_g at zero platform
    accelerations: ``w_p x (w_p x (O_g - P))``, 0."""
    wg = np.einsum("bin,bn->bi", s.Wg, qd_tot)
    return cross(wg, cross(wg, s.Og - P)), np.zeros_like(wg)
