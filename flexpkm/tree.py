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

from dataclasses import dataclass

import numpy as np

from .description import PRISMATIC, REVOLUTE, Robot
from .spatial import (euler_xyz, euler_xyz_rate_bias, euler_xyz_rate_matrix,
                      mdh_transform, skew)


@dataclass
class TreeKinematics:
    """Result of :func:`tree_kinematics` (batch axis B first; nf frames).

    R : (B, nf, 3, 3)   ^0R_j
    p : (B, nf, 3)      ^0O_j, m
    Jv, Jw : (B, nf, 3, n_t)  velocity of O_j and angular velocity of F_j,
                        base-frame components, per unit qd_t
    a_bias, alpha_bias : (B, nf, 3) or None  accelerations at qdd_t = 0
                        (including -g), base frame, m/s^2 and rad/s^2
    """

    R: np.ndarray
    p: np.ndarray
    Jv: np.ndarray
    Jw: np.ndarray
    a_bias: np.ndarray = None
    alpha_bias: np.ndarray = None

    def body_jacobian(self, j):
        """J_tj of Eq. (10.78): ``^j t_j = J_tj qd_t``, twist of F_j at O_j
        projected in F_j. Returns (B, 6, n_t)."""
        Rt = np.swapaxes(self.R[:, j], -1, -2)
        return np.concatenate([Rt @ self.Jv[:, j], Rt @ self.Jw[:, j]], axis=-2)

    def body_bias(self, j):
        """``^j g_j`` of Eq. (10.84): ``^j tdot_j = J_tj qdd_t + ^j g_j``
        (absolute accelerations projected in F_j), (B, 6)."""
        Rt = np.swapaxes(self.R[:, j], -1, -2)
        return np.concatenate([np.einsum("bij,bj->bi", Rt, self.a_bias[:, j]),
                               np.einsum("bij,bj->bi", Rt, self.alpha_bias[:, j])], axis=-1)


def as_batch(x, n):
    """Return ``x`` as a float array (B, n); a single vector gets B = 1."""
    x = np.asarray(x, dtype=float)
    if x.ndim == 1:
        x = x[None]
    if x.shape[-1] != n:
        raise ValueError(f"expected vectors of length {n}, got shape {x.shape}")
    return x


def attachment_shapes(robot: Robot):
    """Step 0 constants: for every frame j whose antecedent carries a flexible
    body, ``(slice of q_e(a), Phi_d(A_j), Phi_r(A_j))`` with A_j the joint's
    attachment point in F_a (Eq. 10.8). Returns a list (None where rigid)."""
    layout = robot.layout
    out = []
    for f in robot.frames:
        body = robot.flexible_body(f.antecedent) if f.antecedent else None
        if body is None:
            out.append(None)
            continue
        _, p_att, _, _ = mdh_transform(f.gamma, f.b, f.alpha, f.d, 0.0, 0.0)
        out.append((layout.elastic_slice[f.antecedent], body.phi_d(p_att), body.phi_r(p_att)))
    return out


def tree_kinematics(robot: Robot, q_t, qd_t=None, gravity=None) -> TreeKinematics:
    """Forward recurrence of Section 10.3.2-10.3.3 (Step 1 of Section 10.6).

    q_t : (n_t,) or (B, n_t) joint then elastic coordinates
          (:class:`flexpkm.description.CoordinateLayout`), m / rad.
    qd_t : same shape or None; when given, the acceleration bias is computed.
    gravity : base-frame gravity (3,), default ``robot.gravity``; enters as
          the base acceleration ``-g``.
    """
    layout = robot.layout
    n_t = layout.n_t
    q = as_batch(q_t, n_t)
    B = q.shape[0]
    qd = None if qd_t is None else as_batch(qd_t, n_t) * np.ones((B, 1))
    idx = robot.frame_index
    nf = len(robot.frames)
    R = np.zeros((B, nf, 3, 3))
    p = np.zeros((B, nf, 3))
    Jv = np.zeros((B, nf, 3, n_t))
    Jw = np.zeros((B, nf, 3, n_t))
    if qd is not None:
        g = np.asarray(robot.gravity if gravity is None else gravity, dtype=float)
        a_b = np.zeros((B, nf, 3))
        al_b = np.zeros((B, nf, 3))
    shapes = attachment_shapes(robot)
    eye = np.broadcast_to(np.eye(3), (B, 3, 3))
    zero3 = np.zeros((B, 3))
    zeroJ = np.zeros((B, 3, n_t))
    for j, f in enumerate(robot.frames):
        if f.antecedent is None:
            Ra, pa, Jva, Jwa = eye, zero3, zeroJ, zeroJ
            if qd is not None:
                aa, ala, wa = np.broadcast_to(-g, (B, 3)), zero3, zero3
        else:
            a = idx[f.antecedent]
            Ra, pa, Jva, Jwa = R[:, a], p[:, a], Jv[:, a], Jw[:, a]
            if qd is not None:
                aa, ala = a_b[:, a], al_b[:, a]
                wa = np.einsum("bij,bj->bi", Jwa, qd)
        qj = q[:, layout.joint_index[f.name]] if f.has_coordinate else np.zeros(B)
        theta = f.theta + (qj if f.sigma == REVOLUTE else 0.0)
        r = f.r + (qj if f.sigma == PRISMATIC else np.zeros(B))
        R_att, p_att, R_joint, r = mdh_transform(f.gamma, f.b, f.alpha, f.d, theta, r)
        R_att = np.broadcast_to(R_att, (B, 3, 3))
        sh = shapes[j]
        if sh is not None:
            sl, Phid, Phir = sh
            qe = q[:, sl]
            u = qe @ Phid.T
            ang = qe @ Phir.T
            Re = euler_xyz(ang)
            RaE = Ra @ euler_xyz_rate_matrix(ang)
            RaPhid = Ra @ Phid
            RaEPhir = RaE @ Phir
        else:
            u = 0.0
            Re = eye
        Rj = Ra @ Re @ R_att @ R_joint
        z = Rj[:, :, 2]
        s = np.einsum("bij,bj->bi", Ra, p_att + u)
        rho = r[:, None] * z
        R[:, j] = Rj
        p[:, j] = pa + s + rho
        Jv[:, j] = Jva - skew(s + rho) @ Jwa
        Jw[:, j] = Jwa
        if sh is not None:
            Jw[:, j, :, sl] += RaEPhir
            Jv[:, j, :, sl] += RaPhid - skew(rho) @ RaEPhir
        if f.has_coordinate:
            col = layout.joint_index[f.name]
            if f.sigma == PRISMATIC:
                Jv[:, j, :, col] += z
            else:
                Jw[:, j, :, col] += z
        if qd is not None:
            if sh is not None:
                qde = qd[:, sl]
                w_e = np.einsum("bij,bj->bi", RaEPhir, qde)
                udot = np.einsum("bij,bj->bi", RaPhid, qde)
                w_bias = np.cross(wa, w_e) + np.einsum(
                    "bij,bj->bi", Ra, euler_xyz_rate_bias(ang, qde @ Phir.T))
            else:
                w_e = udot = w_bias = zero3
            wA = wa + w_e
            qdj = qd[:, layout.joint_index[f.name]][:, None] if f.has_coordinate else 0.0
            sig = 1.0 if f.sigma == PRISMATIC else 0.0
            sigbar = 1.0 if f.sigma == REVOLUTE else 0.0
            wAxz = np.cross(wA, z)
            al_b[:, j] = ala + w_bias + sigbar * qdj * wAxz
            a_b[:, j] = (aa + np.cross(ala, s + rho) + np.cross(wa, np.cross(wa, s) + 2 * udot)
                         + np.cross(w_bias, rho) + np.cross(wA, np.cross(wA, rho))
                         + 2 * sig * qdj * wAxz)
    kin = TreeKinematics(R, p, Jv, Jw)
    if qd is not None:
        kin.a_bias, kin.alpha_bias = a_b, al_b
    return kin
