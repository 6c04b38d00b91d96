"""The virtual tree structure (Briot & Khalil Section 10.3): poses, body
Jacobians and acceleration bias of every frame, for any ``q_t``, ``qd_t``
and elastic coordinates ``q_e`` (not only ``q_e = 0``).

Recursion (frame j, antecedent a = a(j), carried by the flexible body B_a or
by the base). The joint of frame j sits at the material point A_j of B_a
(MDH attachment ``Rot(z,gamma) Trans(z,b) Rot(x,alpha) Trans(x,d)``). B_a's
deformation moves A_j by ``u = Phi_d(A_j) q_ea`` and turns its triad by
``R_e = rot(x,phi) rot(y,theta) rot(z,psi)``, ``(phi,theta,psi) = Phi_r(A_j)
q_ea`` (10.4)-(10.6). Hence (base-frame components)::

    R_0j = R_0a R_e R_att Rot(z, theta_j)          O_j = O_a + s + rho
    s = R_0a (p_att + u),  rho = r_j z_j
    omega_j = omega_a + w_e + sigma_bar qd_j z_j,  w_e = R_0a E(p) Phi_r qd_ea
    v_j = v_a + omega_a x s + R_0a Phi_d qd_ea + (omega_a + w_e) x rho + sigma qd_j z_j

which is Eq. (10.76)/(10.78) written at the origin of each frame, with one
deliberate refinement: the elastic angular velocity is ``E(p) Phi_r qd_e``
(E of :func:`flexpkm.spatial.euler_xyz_rate_matrix`) instead of
``Phi_r qd_e``. Both agree at ``q_e = 0`` (the modal analysis is the book's),
and with E the twists are the exact time derivatives of the poses for any
``q_e`` (see docs/typos.md). The acceleration bias (10.81)-(10.85) is the time
derivative of the same expressions with ``qdd = 0``, initialised with the
base acceleration ``-g`` (footnote 2 of Section 10.3.3, model (10.68)).
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from flexpkm.errors import InvalidArgumentError

from flexpkm.model.build import Model, build_structure
from flexpkm.model.description import PRISMATIC, REVOLUTE
from flexpkm.spatial import (euler_xyz, euler_xyz_rate_bias, euler_xyz_rate_matrix,
                      cross, mdh_transform, rot_z, skew)


@dataclass(frozen=True, eq=False, kw_only=True)
class TreeKinematics:
    """Result of :func:`tree_kinematics` (batch axis B first; nf frames).

    R : (B, nf, 3, 3)   ^0R_j
    p : (B, nf, 3)      ^0O_j, m
    Jv, Jw : (B, nf, 3, n_t)  velocity of O_j and angular velocity of F_j,
                        base-frame components, per unit qd_t
    a_bias, alpha_bias : (B, nf, 3) or None  accelerations at qdd_t = 0
                        (including -g), base frame, m/s^2 and rad/s^2
    gravity : (3,) the g used for a_bias
    s : (B, nf, 3)     vectors O_a -> A_j (deformed attachment), m
    rho : (B, nf, 3)   vectors A_j -> O_j (``r_j z_j``), m
    elastic : tuple of (frame index, R_0a (B, 3, 3), elastic angles (B, 3))
                        of the frames carried by flexible bodies (10.6)
    """

    R: np.ndarray
    p: np.ndarray
    Jv: np.ndarray
    Jw: np.ndarray
    s: np.ndarray
    rho: np.ndarray
    elastic: tuple
    a_bias: np.ndarray = None
    alpha_bias: np.ndarray = None
    gravity: np.ndarray = None

    def body_jacobian(self, j):
        """J_tj of Eq. (10.78): ``^j t_j = J_tj qd_t``, twist of F_j at O_j
        projected in F_j. Returns (B, 6, n_t)."""
        Rt = np.swapaxes(self.R[:, j], -1, -2)
        return np.concatenate([Rt @ self.Jv[:, j], Rt @ self.Jw[:, j]], axis=-2)


def as_batch(x, n, name="the coordinates"):
    """Return ``x`` as a float array (B, n); a single vector gets B = 1.
    Raises InvalidArgumentError (naming ``name``) for a non-numeric value,
    another shape (scalar, 3-D, wrong length), an empty batch or a
    non-finite value (with the first such pose's index and values)."""
    try:
        x = np.asarray(x, dtype=float)
    except (TypeError, ValueError):
        raise InvalidArgumentError(f"{name}: numbers expected, got {x!r:.80}") from None
    shape = x.shape
    if x.ndim == 1:
        x = x[None]
    if x.ndim != 2 or x.shape[-1] != n or x.shape[0] == 0:
        raise InvalidArgumentError(f"{name}: expected shape ({n},) or (B >= 1, {n}), "
                                   f"got {shape}")
    bad = ~np.isfinite(x).all(axis=1)
    if bad.any():
        b = int(np.argmax(bad))
        raise InvalidArgumentError(f"{name}: non-finite value at pose {b}: "
                                   f"{np.array2string(x[b], precision=6, threshold=12)}")
    return x


def tree_kinematics(model: Model, q_t, qd_t=None, gravity=None,
                    jacobians: bool = True) -> TreeKinematics:
    """Forward recurrence of Section 10.3.2-10.3.3 (Step 1 of Section 10.6).

    q_t : (n_t,) or (B, n_t) joint then elastic coordinates
          (:class:`flexpkm.model.description.CoordinateLayout`), m / rad; a
          whole state ``q_tot`` (n_tot,)/(B, n_tot) is accepted too (the
          platform coordinates do not enter the tree).
    qd_t : (n_t,)/(B, n_t) or None; when given, the acceleration bias is computed
          (:func:`add_acceleration_bias`).
    gravity : base-frame gravity (3,), default ``robot.gravity``; enters as
          the base acceleration ``-g``.
    model : :class:`flexpkm.model.Model` (a Robot is built on each call).
    jacobians : False: ``Jv``, ``Jw`` are not computed (None; the frames'
          poses only, 4x faster: the NaVARo's closed-form configurations,
          :func:`flexpkm.algorithms.closure.with_platform`); ``qd_t`` must be None.
    Raises :class:`InvalidArgumentError` on wrong shapes, or ``qd_t`` without
    the Jacobians.
    """
    if qd_t is not None and not jacobians:
        raise InvalidArgumentError("tree_kinematics: the acceleration bias (qd_t) needs "
                                   "the Jacobians (jacobians=True)")
    model = build_structure(model)
    n_t = model.layout.n_t
    q_t = np.asarray(q_t, dtype=float)
    if q_t.ndim and q_t.shape[-1] == model.layout.n_tot:
        q_t = q_t[..., :n_t]
    q = as_batch(q_t, n_t)
    B = q.shape[0]
    nf = len(model.frame_constants)
    R = np.empty((B, nf, 3, 3))
    p = np.empty((B, nf, 3))
    Jv = np.zeros((B, nf, 3, n_t if jacobians else 0))
    Jw = np.zeros((B, nf, 3, n_t if jacobians else 0))
    eye = np.broadcast_to(np.eye(3), (B, 3, 3))
    zero3 = np.zeros((B, 3))
    zeroJ = np.zeros((B, 3, n_t if jacobians else 0))
    S = np.empty((B, nf, 3))
    RHO = np.empty((B, nf, 3))
    elastic_frames = []
    for j, fc in enumerate(model.frame_constants):
        a = fc.antecedent
        if a < 0:
            Ra, pa, Jva, Jwa = eye, zero3, zeroJ, zeroJ
        else:
            Ra, pa, Jva, Jwa = R[:, a], p[:, a], Jv[:, a], Jw[:, a]
        R_loc = fc.R_fix
        r = np.full(B, fc.r)
        if fc.sigma == REVOLUTE:
            R_loc = fc.R_fix @ rot_z(q[:, fc.col])
        elif fc.sigma == PRISMATIC:
            r = r + q[:, fc.col]
        sh = fc.shapes
        if sh is not None:
            sl, Phid, Phir = sh
            qe = q[:, sl]
            ang = qe @ Phir.T
            Rj = Ra @ euler_xyz(ang) @ R_loc
            s = (Ra @ (fc.p_att + qe @ Phid.T)[:, :, None])[..., 0]
            elastic_frames.append((j, Ra, ang))
        else:
            Rj = Ra @ R_loc
            s = Ra @ fc.p_att
        z = Rj[:, :, 2]
        rho = r[:, None] * z
        R[:, j] = Rj
        p[:, j] = pa + s + rho
        S[:, j] = s
        RHO[:, j] = rho
        if not jacobians:
            continue
        Jv[:, j] = Jva - skew(s + rho) @ Jwa
        Jw[:, j] = Jwa
        if sh is not None:
            RaEPhir = Ra @ euler_xyz_rate_matrix(ang) @ Phir
            Jw[:, j, :, sl] += RaEPhir
            Jv[:, j, :, sl] += Ra @ Phid - skew(rho) @ RaEPhir
        if fc.sigma == PRISMATIC:
            Jv[:, j, :, fc.col] += z
        elif fc.sigma == REVOLUTE:
            Jw[:, j, :, fc.col] += z
    if not jacobians:
        Jv = Jw = None
    kin = TreeKinematics(R=R, p=p, Jv=Jv, Jw=Jw, s=S, rho=RHO, elastic=tuple(elastic_frames))
    return kin if qd_t is None else add_acceleration_bias(model, kin, qd_t, gravity)


def add_acceleration_bias(model: Model, kin: TreeKinematics, qd_t, gravity=None):
    """Second pass of the recurrence: accelerations at ``qdd_t = 0``
    ((10.81)-(10.85) with the base acceleration ``-g``).

    All frames at once: with the velocities ``omega_j``, ``v_j`` of every
    frame (``J qd``), the angular velocity of the antecedent's triad at the
    joint is ``omega_A = omega_j - sigma_bar qd_j z_j``, its elastic part
    ``w_e = omega_A - omega_a`` and the elastic velocity of the attachment
    ``u_dot = v_j - v_a - omega_a x s - omega_A x rho - sigma qd_j z_j``; the
    local terms of the recurrence are then summed along the tree.

    qd_t : (n_t,) or (B, n_t). Returns a copy of ``kin`` with ``a_bias``,
    ``alpha_bias`` and ``gravity`` set.
    """
    B, nf = kin.R.shape[:2]
    qd = as_batch(qd_t, model.layout.n_t) * np.ones((B, 1))
    g = np.asarray(model.gravity if gravity is None else gravity, dtype=float)
    st = model.structure
    ant, col, sig, sigbar, A = st.antecedent, st.joint_column, st.sigma, st.sigma_bar, st.ancestors
    zero = np.zeros((B, 1, 3))
    omega = np.concatenate([(kin.Jw @ qd[:, None, :, None])[..., 0], zero], axis=1)
    vel = np.concatenate([(kin.Jv @ qd[:, None, :, None])[..., 0], zero], axis=1)
    wa, va, wj, vj = omega[:, ant], vel[:, ant], omega[:, :nf], vel[:, :nf]
    qdj = np.where(col >= 0, qd[:, np.maximum(col, 0)], 0.0)[..., None]       # (B, nf, 1)
    z = kin.R[..., 2]
    s, rho = kin.s, kin.rho
    wA = wj - sigbar[:, None] * qdj * z
    w_e = wA - wa
    udot = vj - va - cross(wa, s) - cross(wA, rho) - sig[:, None] * qdj * z
    w_bias = cross(wa, w_e)
    for j, Ra, ang in kin.elastic:                  # d E / dt of the elastic rotation
        sl, _, Phir = model.frame_constants[j].shapes
        w_bias[:, j] += (Ra @ euler_xyz_rate_bias(ang, qd[:, sl] @ Phir.T)[:, :, None])[..., 0]
    wAxz = cross(wA, z)
    alpha = np.einsum("jk,bkx->bjx", A, w_bias + sigbar[:, None] * qdj * wAxz)
    alpha_a = np.concatenate([alpha, zero], axis=1)[:, ant]
    lin = (cross(alpha_a, s + rho) + cross(wa, cross(wa, s) + 2 * udot) + cross(w_bias, rho)
           + cross(wA, cross(wA, rho)) + 2 * sig[:, None] * qdj * wAxz)
    return replace(kin, a_bias=np.einsum("jk,bkx->bjx", A, lin) - g, alpha_bias=alpha, gravity=g)
