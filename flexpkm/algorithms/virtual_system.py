"""Elastodynamic model of the virtual system: the flexible tree structure plus
the free platform (Briot & Khalil Sections 10.3.4 and 11.2).

``M_t = sum_ij J_ij^T M_ij J_ij`` (10.99, 11.19) with the body Jacobian
``J_ij = [J_tij; O_qeij]`` (10.80); the stiffness ``K_tot`` gathers the bodies'
``K_ee`` (11.22) and the joint springs; the platform adds ``^0M_p`` (10.102).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from flexpkm.elements import newton_euler as ne

from flexpkm.spatial import cross
from flexpkm.algorithms.platform import platform_mass_matrix, platform_wrench, selection
from flexpkm.algorithms.tree import as_batch, frame_columns, tree_kinematics


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
    columns = frame_columns(robot)
    if undeformed:                      # one constant block per frame (11.11)
        terms = [(j, sl, Mj) for j, sl, Mj in robot.cached("frame_mass_matrices_0", _frame_blocks)]
    else:
        terms = [(j, sl, ne.mass_matrix(body.invariants, q[:, sl] if sl is not None else None))
                 for j, _, body, sl in bodies_of(robot)]
    for j, sl, Mj in terms:
        cols = columns[j] if sl is None else np.union1d(columns[j], np.arange(sl.start, sl.stop))
        J = body_jacobian(kin, j, sl, layout.n_t)[:, :, cols]       # only the non-zero columns
        M[:, cols[:, None], cols] += np.swapaxes(J, -1, -2) @ (Mj @ J)
    for name, inertia in robot.rotor_inertia.items():
        c = layout.joint_index[name]
        M[:, c, c] += inertia
    return M


def _frame_blocks(robot):
    """``[(frame, elastic slice, sum of the M_ij0 of its bodies)]``: the bodies
    carried by one frame share its body Jacobian, so their undeformed mass
    matrices (11.11) add (rigid ones into the 6 x 6 corner)."""
    out = {}
    for (j, _, body, sl), Mj in zip(bodies_of(robot), _undeformed_blocks(robot)):
        if j not in out:
            out[j] = [None, np.zeros((6, 6))]
        if sl is not None:
            out[j][0] = sl
            Mj = Mj.copy()
            Mj[:6, :6] += out[j][1]
            out[j][1] = Mj
        else:
            out[j][1][:6, :6] += Mj
    return [(j, sl, Mj) for j, (sl, Mj) in out.items()]


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
    st = robot.cached("stacked_bodies", _stacked_bodies)
    Rt = np.swapaxes(kin.R, -1, -2)
    Jt_all = np.concatenate([Rt @ kin.Jv, Rt @ kin.Jw], axis=2)              # (B, nf, 6, n_t)
    bias_all = np.concatenate([(Rt @ kin.a_bias[..., None])[..., 0],
                               (Rt @ kin.alpha_bias[..., None])[..., 0]], axis=2)
    nr = st.n_rows
    J = np.zeros((B, nr, layout.n_t))
    J[:, st.rows6] = Jt_all[:, st.frames].reshape(B, -1, layout.n_t)      # (10.78)
    J[:, st.erows, st.ecols] = 1.0                                          # O_qe (10.80)
    acc = np.zeros((B, nr))
    acc[:, st.rows6] = bias_all[:, st.frames].reshape(B, -1)
    t_all = (J @ qd[:, :, None])[..., 0]
    Mb = np.broadcast_to(st.M_rigid, (B, nr, nr)).copy()
    vel = np.zeros((B, nr))
    w = t_all[:, st.rigid_w]                                                # rigid bodies at once
    vel[:, st.rigid_f] = cross(w, cross(w, st.ms_r))
    vel[:, st.rigid_c] = cross(w, (st.I_rr @ w[..., None])[..., 0])
    for k, body, sl in st.flexible:
        n = 6 + body.n_e
        qe, qde = q[:, sl], qd[:, sl]
        Mb[:, k:k + n, k:k + n], vel[:, k:k + n] = ne.mass_and_velocity_terms(
            body.invariants, t_all[:, k + 3:k + 6], qe, qde)
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


@dataclass(frozen=True)
class StackedBodies:
    """Row layout of all bodies' ``[t_j; qd_ej]`` stacked (constant per robot)."""

    n_rows: int
    frames: np.ndarray      # frame of each body (nb,)
    rows6: np.ndarray       # rows of the twists (6 nb,)
    erows: np.ndarray       # rows of the elastic velocities
    ecols: np.ndarray       # their columns in q_t
    M_rigid: np.ndarray     # block-diagonal mass of the rigid bodies (n_rows, n_rows)
    rigid_w: np.ndarray     # (nr, 3) rows of the rigid bodies' omega
    rigid_f: np.ndarray     # (nr, 3) rows of their forces
    rigid_c: np.ndarray     # (nr, 3) rows of their moments
    ms_r: np.ndarray        # (nr, 3)
    I_rr: np.ndarray        # (nr, 3, 3)
    flexible: tuple         # (row offset, body, elastic slice) of the flexible bodies


def _stacked_bodies(robot):
    frames, rows6, erows, ecols, flexible = [], [], [], [], []
    rigid = []
    k = 0
    for j, _, body, sl in bodies_of(robot):
        frames.append(j)
        rows6 += list(range(k, k + 6))
        if sl is None:
            rigid.append((k, body.invariants))
        else:
            erows += list(range(k + 6, k + 6 + body.n_e))
            ecols += list(range(sl.start, sl.stop))
            flexible.append((k, body, sl))
        k += 6 + body.n_e
    M = np.zeros((k, k))
    for r, inv in rigid:
        M[r:r + 6, r:r + 6] = ne.mass_matrix(inv)
    rows = lambda off: np.array([[r + off + i for i in range(3)] for r, _ in rigid], dtype=int).reshape(-1, 3)
    return StackedBodies(k, np.array(frames), np.array(rows6), np.array(erows, dtype=int),
                         np.array(ecols, dtype=int), M, rows(3), rows(0), rows(3),
                         np.array([inv.ms_r for _, inv in rigid]).reshape(-1, 3),
                         np.array([inv.I_rr for _, inv in rigid]).reshape(-1, 3, 3), tuple(flexible))


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
