"""Elastodynamic model of the virtual system: the flexible tree structure plus
the free platform (Briot & Khalil Sections 10.3.4 and 11.2).

``M_t = sum_ij J_ij^T M_ij J_ij`` (10.99, 11.19) with the body Jacobian
``J_ij = [J_tij; O_qeij]`` (10.80); the stiffness ``K_tot`` gathers the bodies'
``K_ee`` (11.22) and the joint springs; the platform adds ``^0M_p`` (10.102).
"""
from __future__ import annotations

import numpy as np

from elements import newton_euler as ne

from .platform import platform_mass_matrix, platform_wrench, selection
from .tree import as_batch, frame_columns, tree_kinematics


def bodies_of(robot):
    """[(frame index, frame name, body, elastic slice or None)] of all bodies."""
    return robot.cached("bodies_of", _bodies_of)


def _bodies_of(robot):
    layout = robot.layout
    out = []
    for j, f in enumerate(robot.frames):
        for body in robot.bodies.get(f.name, ()):
            sl = layout.elastic_slice.get(f.name) if body.n_e > 0 else None
            out.append((j, f.name, body, sl))
    return out


def body_jacobian(kin, j, sl, n_t) -> np.ndarray:
    """``J_ij = [J_tij; O_qeij]`` (10.80), (B, 6 + N, n_t)."""
    Jt = kin.body_jacobian(j)
    if sl is None:
        return Jt
    B = Jt.shape[0]
    O = np.zeros((B, sl.stop - sl.start, n_t))
    O[:, :, sl] = np.eye(sl.stop - sl.start)
    return np.concatenate([Jt, O], axis=1)


def tree_mass_matrix(robot, q_t, kin=None, undeformed=False) -> np.ndarray:
    """``M_t = sum J_ij^T M_ij(q_e) J_ij + I_t`` (10.99, 10.103, 11.19, 11.23),
    (B, n_t, n_t), joint then elastic coordinates; includes rotor inertia.

    ``undeformed=True`` uses the constant ``M_ij0`` of Eq. (11.11) (q_e = 0,
    the modal analysis).
    """
    layout = robot.layout
    q = as_batch(q_t, layout.n_t)
    kin = kin or tree_kinematics(robot, q)
    B = q.shape[0]
    M = np.zeros((B, layout.n_t, layout.n_t))
    blocks = robot.cached("body_mass_matrices_0", _undeformed_blocks) if undeformed else None
    columns = frame_columns(robot)
    for k, (j, _, body, sl) in enumerate(bodies_of(robot)):
        cols = columns[j] if sl is None else np.union1d(columns[j], np.arange(sl.start, sl.stop))
        J = body_jacobian(kin, j, sl, layout.n_t)[:, :, cols]       # only the non-zero columns
        if undeformed:
            Mj = blocks[k]
        else:
            qe = q[:, sl] if sl is not None else np.zeros((B, 0))
            Mj = ne.mass_matrix(body.invariants, qe)
        M[:, cols[:, None], cols] += np.swapaxes(J, -1, -2) @ (Mj @ J)
    for name, inertia in robot.rotor_inertia.items():
        c = layout.joint_index[name]
        M[:, c, c] += inertia
    return M


def _undeformed_blocks(robot):
    """The constant ``M_ij0`` (11.11) of every body, in :func:`bodies_of` order."""
    return [ne.mass_matrix(b.invariants, np.zeros(b.n_e)) for _, _, b, _ in bodies_of(robot)]


def tree_stiffness_matrix(robot) -> np.ndarray:
    """``sum O_qe^T K_ee O_qe`` (11.18) plus joint springs, (n_t, n_t), N/m, N m/rad."""
    layout = robot.layout
    K = np.zeros((layout.n_t, layout.n_t))
    for _, name, body, sl in bodies_of(robot):
        if sl is not None:
            K[sl, sl] += body.invariants.K_ee
    for name, k in robot.joint_stiffness.items():
        c = layout.joint_index[name]
        K[c, c] += k
    return K


def virtual_mass_matrix(robot, q_t, R_0p, kin=None, undeformed=False, M_t=None) -> np.ndarray:
    """``M_tot`` (10.102)-(10.103), (11.21)-(11.23): (B, n_tot, n_tot) over
    ``q_tot = [q_t; x_p]``; ``R_0p`` (B, 3, 3) platform orientation; ``M_t``
    the tree's mass matrix when already computed."""
    layout = robot.layout
    Mt = tree_mass_matrix(robot, q_t, kin, undeformed) if M_t is None else M_t
    B = Mt.shape[0]
    M = np.zeros((B, layout.n_tot, layout.n_tot))
    M[:, :layout.n_t, :layout.n_t] = Mt
    if robot.platform is not None:
        S = selection(robot.platform)
        M[:, layout.n_t:, layout.n_t:] = S.T @ platform_mass_matrix(robot.platform, R_0p) @ S
    return M


def virtual_stiffness_matrix(robot) -> np.ndarray:
    """``K_tot`` of Eq. (11.22), (n_tot, n_tot)."""
    layout = robot.layout
    K = np.zeros((layout.n_tot, layout.n_tot))
    K[:layout.n_t, :layout.n_t] = tree_stiffness_matrix(robot)
    return K


def tree_dynamics(robot, q_t, qd_t, kin=None, gravity=None, friction=True,
                  coulomb_smoothing=0.0):
    """``M_t`` and ``c_t`` of Eqs. (10.99)-(10.103) in one pass:
    ``M_t = J^T diag(M_ij) J + I_t`` and ``c_t = J^T (diag(M_ij) g^s + c_in)
    + K q + friction``, with the bodies' Jacobians stacked in J (10.80).

    q_t, qd_t : (n_t,) or (B, n_t). Gravity enters through the base
    acceleration ``-g`` (model 10.68). ``coulomb_smoothing`` > 0 replaces
    sign(qd) by tanh(qd / smoothing). Returns (M_t (B, n_t, n_t), c_t (B, n_t)).
    """
    layout = robot.layout
    q = as_batch(q_t, layout.n_t)
    B = q.shape[0]
    qd = as_batch(qd_t, layout.n_t) * np.ones((B, 1))
    if kin is None or kin.a_bias is None:
        kin = tree_kinematics(robot, q, qd, gravity=gravity)
    bodies = bodies_of(robot)
    J = np.concatenate([body_jacobian(kin, j, sl, layout.n_t) for j, _, _, sl in bodies], axis=1)
    nr = J.shape[1]
    Mb = np.zeros((B, nr, nr))
    acc = np.zeros((B, nr))
    vel = np.zeros((B, nr))
    k = 0
    t_all = (J @ qd[:, :, None])[..., 0]
    rigid_blocks = robot.cached("body_mass_matrices_0", _undeformed_blocks)
    for i, (j, _, body, sl) in enumerate(bodies):
        n = 6 + body.n_e
        qe = q[:, sl] if sl is not None else np.zeros((B, 0))
        qde = qd[:, sl] if sl is not None else np.zeros((B, 0))
        Mb[:, k:k + n, k:k + n] = (rigid_blocks[i] if sl is None
                                   else ne.mass_matrix(body.invariants, qe))
        acc[:, k:k + 6] = kin.body_bias(j)
        vel[:, k:k + n] = ne.velocity_terms(body.invariants, t_all[:, k + 3:k + 6], qe, qde)
        k += n
    Jt = np.swapaxes(J, -1, -2)
    M = Jt @ Mb @ J
    c = (Jt @ ((Mb @ acc[:, :, None])[..., 0] + vel)[:, :, None])[..., 0]
    c += q @ tree_stiffness_matrix(robot).T
    for name, inertia in robot.rotor_inertia.items():
        col = layout.joint_index[name]
        M[:, col, col] += inertia
    if friction:
        for name, fv in robot.viscous_friction.items():
            col = layout.joint_index[name]
            c[:, col] += fv * qd[:, col]
        for name, fs in robot.coulomb_friction.items():
            col = layout.joint_index[name]
            v = qd[:, col]
            c[:, col] += fs * (np.tanh(v / coulomb_smoothing) if coulomb_smoothing > 0 else np.sign(v))
    return M, c


def friction_damping(robot, qd_tot, coulomb_smoothing=0.0) -> np.ndarray:
    """Diagonal of ``d(friction)/d(qd)`` over q_tot (n_tot,): viscous
    coefficients plus ``fs / eps * sech^2(qd / eps)`` of the smoothed Coulomb
    friction (eps = ``coulomb_smoothing``; nothing for an unsmoothed sign)."""
    layout = robot.layout
    d = np.zeros(layout.n_tot)
    for name, fv in robot.viscous_friction.items():
        d[layout.joint_index[name]] += fv
    if coulomb_smoothing > 0:
        for name, fs in robot.coulomb_friction.items():
            col = layout.joint_index[name]
            d[col] += fs / coulomb_smoothing * (1.0 - np.tanh(qd_tot[col] / coulomb_smoothing) ** 2)
    return d


def tree_bias_forces(robot, q_t, qd_t, kin=None, gravity=None, friction=True,
                     coulomb_smoothing=0.0) -> np.ndarray:
    """``c_t`` of Eqs. (10.99)-(10.100), (10.103), (B, n_t), N or N m
    (see :func:`tree_dynamics`)."""
    return tree_dynamics(robot, q_t, qd_t, kin, gravity, friction, coulomb_smoothing)[1]


def platform_bias_forces(robot, R_0p, t_p, gravity=None) -> np.ndarray:
    """``S_p^T ^0c_p`` (10.101), (B, n_p): platform wrench at zero acceleration."""
    g = np.asarray(robot.gravity if gravity is None else gravity, float)
    w = platform_wrench(robot.platform, R_0p, t_p, np.zeros_like(t_p), g)
    return w @ selection(robot.platform)
