"""Elastodynamic model of the virtual system: the flexible tree structure plus
the free platform (Briot & Khalil Sections 10.3.4 and 11.2).

``M_t = sum_ij J_ij^T M_ij J_ij`` (10.99, 11.19) with the body Jacobian
``J_ij = [J_tij; O_qeij]`` (10.80); the stiffness ``K_tot`` gathers the bodies'
``K_ee`` (11.22) and the joint springs; the platform adds ``^0M_p`` (10.102).
"""
from __future__ import annotations

import numpy as np

from flexpkm.elements import newton_euler as ne

from flexpkm.spatial import cross
from flexpkm.algorithms.platform import platform_mass_matrix, platform_wrench, selection
from flexpkm.algorithms.tree import as_batch, tree_kinematics
from flexpkm.model.build import build_structure


def body_jacobian(kin, j, sl, n_t) -> np.ndarray:
    """``J_ij = [J_tij; O_qeij]`` (10.80), (B, 6 + N, n_t)."""
    Jt = kin.body_jacobian(j)
    if sl is None:
        return Jt
    B = Jt.shape[0]
    O = np.zeros((B, sl.stop - sl.start, n_t))
    O[:, :, sl] = np.eye(sl.stop - sl.start)
    return np.concatenate([Jt, O], axis=1)


def tree_mass_matrix(model, q_t, kin=None, undeformed=False) -> np.ndarray:
    """``M_t = sum J_ij^T M_ij(q_e) J_ij + I_t`` (10.99, 10.103, 11.19, 11.23),
    (B, n_t, n_t), joint then elastic coordinates; includes rotor inertia.

    ``undeformed=True`` uses the constant ``M_ij0`` of Eq. (11.11) (q_e = 0,
    the modal analysis).
    """
    model = build_structure(model)
    layout = model.layout
    q = as_batch(q_t, layout.n_t)
    kin = kin or tree_kinematics(model, q)
    B = q.shape[0]
    M = np.zeros((B, layout.n_t, layout.n_t))
    columns = model.frame_columns
    if undeformed:                      # one constant block per frame (11.11)
        terms = [(fm.frame, fm.elastic, fm.M) for fm in model.frame_mass]
    else:
        terms = [(e.frame, e.elastic, ne.mass_matrix(e.body.invariants,
                                                     q[:, e.elastic] if e.elastic is not None else None))
                 for e in model.body_entries]
    for j, sl, Mj in terms:
        cols = columns[j] if sl is None else np.union1d(columns[j], np.arange(sl.start, sl.stop))
        J = body_jacobian(kin, j, sl, layout.n_t)[:, :, cols]       # only the non-zero columns
        M[:, cols[:, None], cols] += np.swapaxes(J, -1, -2) @ (Mj @ J)
    return add_rotor_inertia(model, M)


def add_rotor_inertia(model, M):
    """``M + I_t``: the rotor inertia of the actuated joints on the diagonal
    (10.103), (B, n, n) with n >= n_t (q_t columns first). Returns a new array."""
    M = M.copy()
    for name, inertia in model.rotor_inertia.items():
        c = model.layout.joint_index[name]
        M[:, c, c] += inertia
    return M


def virtual_mass_matrix(model, q_t, R_0p, kin=None, undeformed=False, M_t=None) -> np.ndarray:
    """``M_tot`` (10.102)-(10.103), (11.21)-(11.23): (B, n_tot, n_tot) over
    ``q_tot = [q_t; x_p]``; ``R_0p`` (B, 3, 3) platform orientation; ``M_t``
    the tree's mass matrix when already computed."""
    layout = model.layout
    Mt = tree_mass_matrix(model, q_t, kin, undeformed) if M_t is None else M_t
    B = Mt.shape[0]
    M = np.zeros((B, layout.n_tot, layout.n_tot))
    M[:, :layout.n_t, :layout.n_t] = Mt
    if model.platform is not None:
        S = selection(model.platform)
        M[:, layout.n_t:, layout.n_t:] = S.T @ platform_mass_matrix(model.platform, R_0p) @ S
    return M


def tree_dynamics(model, q_t, qd_t, kin=None, gravity=None, friction=True,
                  coulomb_smoothing=0.0):
    """``M_t`` and ``c_t`` of Eqs. (10.99)-(10.103) in one pass:
    ``M_t = J^T diag(M_ij) J + I_t`` and ``c_t = J^T (diag(M_ij) g^s + c_in)
    + K q + friction``, with the bodies' Jacobians stacked in J (10.80).

    q_t, qd_t : (n_t,) or (B, n_t). Gravity enters through the base
    acceleration ``-g`` (model 10.68). ``coulomb_smoothing`` > 0 replaces
    sign(qd) by tanh(qd / smoothing). Returns (M_t (B, n_t, n_t), c_t (B, n_t)).
    """
    model = build_structure(model)
    layout = model.layout
    q = as_batch(q_t, layout.n_t)
    B = q.shape[0]
    qd = as_batch(qd_t, layout.n_t) * np.ones((B, 1))
    if kin is None or kin.a_bias is None:
        kin = tree_kinematics(model, q, qd, gravity=gravity)
    st = model.stacked
    Rt = np.swapaxes(kin.R, -1, -2)
    Jv, Jw = Rt @ kin.Jv, Rt @ kin.Jw                                       # (B, nf, 3, n_t)
    bias_all = np.concatenate([(Rt @ kin.a_bias[..., None])[..., 0],
                               (Rt @ kin.alpha_bias[..., None])[..., 0]], axis=2)
    nr = st.n_rows
    J = np.zeros((B, nr, layout.n_t))
    for r, f in zip(st.rows6[::6], st.frames):      # (10.78), by slices: 4x cheaper than
        J[:, r:r + 3], J[:, r + 3:r + 6] = Jv[:, f], Jw[:, f]   # one scattered write
    J[:, st.erows, st.ecols] = 1.0                                          # O_qe (10.80)
    acc = np.zeros((B, nr))
    acc[:, st.rows6] = bias_all[:, st.frames].reshape(B, -1)
    t_all = (J @ qd[:, :, None])[..., 0]
    # the block-diagonal mass of the stacked bodies, block by block (never
    # the dense nr x nr matrix: memory linear in the bodies), each block on
    # the columns its rows can depend on (ColumnGroups)
    rows = st.rigid_rows                                                    # rigid entries at once
    groups = ColumnGroups(model, B) if B >= COLUMN_GROUPS_BATCH else DenseSum(B, layout.n_t)
    for r, M_k in zip(rows[:, 0], st.M_rigid):
        groups.add(r, J[:, r:r + 6], M_k)
    force = np.zeros((B, nr))
    w = t_all[:, rows[:, 3:]]
    force[:, rows] = np.einsum("kij,bkj->bki", st.M_rigid, acc[:, rows])
    force[:, rows[:, :3]] += cross(w, cross(w, st.ms_r))
    force[:, rows[:, 3:]] += cross(w, (st.I_rr @ w[..., None])[..., 0])
    for k, body, sl in st.flexible:
        n = 6 + body.n_e
        qe, qde = q[:, sl], qd[:, sl]
        Mk, vel = ne.mass_and_velocity_terms(body.invariants, t_all[:, k + 3:k + 6], qe, qde)
        groups.add(k, J[:, k:k + n], Mk)
        force[:, k:k + n] = (Mk @ acc[:, k:k + n, None])[..., 0] + vel
    c = (force[:, None, :] @ J)[:, 0]
    c += q @ model.K_tot[:layout.n_t, :layout.n_t]
    M = add_rotor_inertia(model, groups.total(layout.n_t))
    if friction:
        for name, fv in model.viscous_friction.items():
            col = layout.joint_index[name]
            c[:, col] += fv * qd[:, col]
        for name, fs in model.coulomb_friction.items():
            col = layout.joint_index[name]
            v = qd[:, col]
            c[:, col] += fs * (np.tanh(v / coulomb_smoothing) if coulomb_smoothing > 0 else np.sign(v))
    return M, c


#: from this batch size on, :func:`tree_dynamics` sums M_t on each body's
#: columns (:class:`ColumnGroups`); below, on all n_t columns
#: (:class:`DenseSum`: fewer numpy calls, which dominate for a few states)
COLUMN_GROUPS_BATCH = 8


class DenseSum:
    """``M_t = sum_j J_j^T M_j J_j`` (10.99) on all n_t columns, the
    interface of :class:`ColumnGroups`."""

    def __init__(self, B, n_t):
        self.M = np.zeros((B, n_t, n_t))

    def add(self, r, J_k, M_k):
        """Add ``J_k^T M_k J_k`` (the entry's row offset ``r`` unused)."""
        self.M += np.swapaxes(J_k, -1, -2) @ (M_k @ J_k)

    def total(self, n_t):
        """``M_t`` (B, n_t, n_t)."""
        return self.M


class ColumnGroups:
    """``M_t = sum_j J_j^T M_j J_j`` (10.99) accumulated leg by leg on the
    columns each stacked entry can depend on (``model.stacked.columns``,
    :mod:`flexpkm.model.columns`): an entry of a serial chain on its leg's
    leading block (a slice, no scattered writes), each leg's block added to
    ``M_t`` once. B the batch size."""

    def __init__(self, model, B):
        self.B, self.columns = B, model.stacked.columns
        self.blocks = [np.zeros((B, len(U), len(U))) for U in self.columns.groups]

    def add(self, r, J_k, M_k):
        """Add ``J_k^T M_k J_k`` of the entry at row offset ``r``: J_k (B, n,
        n_t) its rows of the stacked Jacobian, M_k (n, n) or (B, n, n)."""
        g, cols, at = self.columns.entries[int(r)]
        Jc = J_k[:, :, cols]
        X = np.swapaxes(Jc, -1, -2) @ (M_k @ Jc)
        if isinstance(at, int):
            self.blocks[g][:, :at, :at] += X
        else:
            self.blocks[g][:, at[:, None], at] += X

    def total(self, n_t):
        """``M_t`` (B, n_t, n_t): the legs' blocks summed."""
        out = np.zeros((self.B, n_t, n_t))
        for U, M in zip(self.columns.groups, self.blocks):
            out[:, U[:, None], U] += M
        return out


def friction_damping(model, qd_tot, coulomb_smoothing=0.0) -> np.ndarray:
    """Diagonal of ``d(friction)/d(qd)`` over q_tot (n_tot,): viscous
    coefficients plus ``fs / eps * sech^2(qd / eps)`` of the smoothed Coulomb
    friction (eps = ``coulomb_smoothing``; nothing for an unsmoothed sign)."""
    layout = model.layout
    d = np.zeros(layout.n_tot)
    for name, fv in model.viscous_friction.items():
        d[layout.joint_index[name]] += fv
    if coulomb_smoothing > 0:
        for name, fs in model.coulomb_friction.items():
            col = layout.joint_index[name]
            d[col] += fs / coulomb_smoothing * (1.0 - np.tanh(qd_tot[col] / coulomb_smoothing) ** 2)
    return d


def tree_bias_forces(model, q_t, qd_t, kin=None, gravity=None, friction=True,
                     coulomb_smoothing=0.0) -> np.ndarray:
    """``c_t`` of Eqs. (10.99)-(10.100), (10.103), (B, n_t), N or N m
    (see :func:`tree_dynamics`)."""
    return tree_dynamics(model, q_t, qd_t, kin, gravity, friction, coulomb_smoothing)[1]


def platform_bias_forces(model, R_0p, t_p, gravity=None) -> np.ndarray:
    """``S_p^T ^0c_p`` (10.101), (B, n_p): platform wrench at zero acceleration."""
    g = np.asarray(model.gravity if gravity is None else gravity, float)
    w = platform_wrench(model.platform, R_0p, t_p, np.zeros_like(t_p), g)
    return w @ selection(model.platform)
