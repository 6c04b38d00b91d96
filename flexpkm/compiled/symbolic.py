"""A second, symbolic implementation of Steps 1-3 of Section 10.6 with CasADi
``SX`` scalars, frame by frame (the numpy modules of
:mod:`flexpkm.algorithms` are vectorised with einsum and stay the reference).

It is deliberately written another way than the reference, so that the
agreement of the two is a check of both:

* the tree (Section 10.3): only the poses are written by hand, frame by
  frame, as in :func:`flexpkm.algorithms.tree.tree_kinematics`
  (``R_0j = R_0a R_e R_fix Rot(z, theta_j)``, ``O_j = O_a + s + r_j z_j``);
  the twists and their time derivatives are exact derivatives by AD;
* the virtual tree's dynamics ``M_t``, ``c_t`` (10.99)-(10.103) come from
  Lagrange's equations of the kinetic energy
  ``T = sum_j 1/2 [t_j; qd_ej]^T M_j(q_ej) [t_j; qd_ej]`` (10.61) and the
  potential ``V = 1/2 q_t^T K q_t - g . sum_j (m_j O_j + R_0j ms_j(q_ej))``:
  ``M_t = d2T/dqd2``, ``c_t = d/dt(dT/dqd)|_(qdd=0) - dT/dq + dV/dq``, which
  equals the projected Newton-Euler model of the reference because the
  twists are the exact derivatives of the poses (Kane = Lagrange);
* the platform: Newton-Euler (8.97), (10.101) in the base frame;
* the closures (10.107): the rows of :mod:`flexpkm.algorithms.cut_joints`
  (position residuals and their exact time derivatives), rows of
  ``model.closure_rows``;
  ``J_tot`` is its Jacobian with respect to ``qd_tot`` and ``b'`` its time
  derivative at ``qdd = 0`` (AD);
* ``J_d = -(J_t^f)^-1 J_t^0`` (10.110) limb by limb, ``b_dep = -(J_t^f)^-1
  b'`` (10.118), ``M = J^T M_tot J``, ``c = J^T (M_tot b + c_tot)`` (10.123).

The dependent coordinates ``dep`` are fixed when the expressions are built.
"""
from __future__ import annotations

import casadi as ca
import numpy as np

from flexpkm.algorithms.closure import row_labels
from flexpkm.algorithms.cut_joints import rotation_row
from flexpkm.algorithms.dependent import limb_blocks
from flexpkm.elements.newton_euler import derived
from flexpkm.model.description import PRISMATIC, REVOLUTE
from flexpkm.spatial import rotation_matrix


def hat(v):
    """``hat(v)`` (3, 3) SX of a 3-vector (cross-product matrix)."""
    return ca.vertcat(ca.horzcat(0, -v[2], v[1]), ca.horzcat(v[2], 0, -v[0]),
                      ca.horzcat(-v[1], v[0], 0))


def vee(W):
    """The vector of the skew-symmetric part of a (3, 3) matrix."""
    return 0.5 * ca.vertcat(W[2, 1] - W[1, 2], W[0, 2] - W[2, 0], W[1, 0] - W[0, 1])


def rot(axis, angle):
    """Rotation about the x (0), y (1) or z (2) axis, (3, 3) SX."""
    c, s = ca.cos(angle), ca.sin(angle)
    i, j = [(1, 2), (2, 0), (0, 1)][axis]
    R = ca.SX.eye(3)
    R[i, i], R[i, j], R[j, i], R[j, j] = c, -s, s, c
    return R


def rodrigues(r):
    """``exp(hat(r))`` (3, 3) SX, smooth at r = 0 (angle regularised by 1e-60
    under the square root, which changes nothing in double precision)."""
    th = ca.sqrt(ca.dot(r, r) + 1e-60)
    K = hat(r)
    half = ca.sin(th / 2) / (th / 2)
    return ca.SX.eye(3) + ca.sin(th) / th * K + 0.5 * half ** 2 * (K @ K)


def frame_poses(model, q_t):
    """``(R_0j, O_j)`` of every frame (lists of SX (3, 3), (3, 1)) for the
    symbolic ``q_t`` (n_t,): the forward recurrence of Section 10.3.2 with the
    deformed attachment ``R_e = rot(x,phi) rot(y,theta) rot(z,psi)``,
    ``(phi, theta, psi) = Phi_r q_ea``, ``u = Phi_d q_ea`` (10.4)-(10.6)."""
    R, p = [], []
    for fc in model.frame_constants:
        a = fc.antecedent
        Ra, pa = (ca.SX.eye(3), ca.SX.zeros(3, 1)) if a < 0 else (R[a], p[a])
        R_loc, r = ca.SX(fc.R_fix), fc.r
        if fc.sigma == REVOLUTE:
            R_loc = R_loc @ rot(2, q_t[fc.col])
        elif fc.sigma == PRISMATIC:
            r = r + q_t[fc.col]
        att = ca.SX(fc.p_att)
        if fc.shapes is not None:
            sl, Phid, Phir = fc.shapes
            qe = q_t[sl.start:sl.stop]
            ang = ca.SX(Phir) @ qe
            Ra_e = Ra @ rot(0, ang[0]) @ rot(1, ang[1]) @ rot(2, ang[2])
            att = att + ca.SX(Phid) @ qe
        else:
            Ra_e = Ra
        Rj = Ra_e @ R_loc
        R.append(Rj)
        p.append(pa + Ra @ att + r * Rj[:, 2])
    return R, p


def twist(R, p, q, qd):
    """Absolute velocity of O_j and angular velocity of F_j, base frame:
    the exact time derivatives ``dO_j/dt`` and ``vee(dR/dt R^T)`` (AD)."""
    Rd = ca.jtimes(R, q, qd)
    return ca.jtimes(p, q, qd), vee(Rd @ R.T)


def body_mass_matrix(inv, qe):
    """``M_j(q_e)`` of (10.61), (6 + N, 6 + N) SX, frame F_j, written from
    (10.40), (10.43), (10.46), (10.50) with the derived invariants."""
    n = inv.n_e
    d = derived(inv)
    ms, I_O = ca.SX(inv.ms_r), ca.SX(inv.I_rr)
    MS_re = ca.SX(d.beta.T)
    for k in range(n):
        ms = ms + inv.MS_de[:, k] * qe[k]
        I_O = I_O + (d.I_re[k] + d.I_re[k].T) * qe[k]
        MS_re = MS_re + ca.horzcat(*[ca.SX(d.lam[k, i]) for i in range(n)]) * qe[k]
        for i in range(n):
            I_O = I_O + d.I_ee[i, k] * (qe[i] * qe[k])
    S = hat(ms)
    top = ca.horzcat(inv.m * ca.SX.eye(3), S.T, ca.SX(inv.MS_de))
    mid = ca.horzcat(S, I_O, MS_re)
    low = ca.horzcat(ca.SX(inv.MS_de.T), MS_re.T, ca.SX(d.M_ee))
    return ca.vertcat(top, mid, low), ms


def tree_lagrangian(model, q_t, qd_t, g, R, p):
    """``(T, V)``: kinetic energy of all the bodies (10.61) (``x_j = [R_0j^T
    v_j; R_0j^T w_j; qd_ej]``) plus the rotor inertia (10.103), and the
    potential of the joint and body springs (11.22) and of gravity ``g``
    (SX (3,)); J."""
    n_t = model.layout.n_t
    T = 0
    V = 0.5 * ca.bilin(ca.SX(model.K_tot[:n_t, :n_t]), q_t, q_t)
    for e in model.body_entries:
        j = e.frame
        inv = e.body.invariants
        v, w = twist(R[j], p[j], q_t, qd_t)
        if e.elastic is not None:
            qe, qde = q_t[e.elastic.start:e.elastic.stop], qd_t[e.elastic.start:e.elastic.stop]
        else:
            qe, qde = ca.SX.zeros(0, 1), ca.SX.zeros(0, 1)
        Mj, ms = body_mass_matrix(inv, qe)
        x = ca.vertcat(R[j].T @ v, R[j].T @ w, qde)
        T = T + 0.5 * ca.bilin(Mj, x, x)
        V = V - ca.dot(g, inv.m * p[j] + R[j] @ ms)
    for name, inertia in model.rotor_inertia.items():
        c = model.layout.joint_index[name]
        T = T + 0.5 * inertia * qd_t[c] ** 2
    return T, V


def tree_dynamics(model, q_t, qd_t, kin=None, gravity=None, friction=True,
                  coulomb_smoothing=0.0):
    """``M_t`` (n_t, n_t) and ``c_t`` (n_t,) from Lagrange's equations of
    :func:`tree_lagrangian`, plus viscous and (smoothed, ``coulomb_smoothing``
    > 0) Coulomb friction times ``friction`` (0 or 1): the twin of
    :func:`flexpkm.algorithms.virtual_system.tree_dynamics`, same arguments
    (SX or numbers; ``kin`` = ``(R, p)`` of :func:`frame_poses`, made when
    None; ``gravity`` (3,) default the model's)."""
    R, p = kin if kin is not None else frame_poses(model, q_t)
    g = ca.SX(np.asarray(model.gravity, float)) if gravity is None else gravity
    smoothing = ca.fmax(coulomb_smoothing, 1e-300)
    T, V = tree_lagrangian(model, q_t, qd_t, g, R, p)
    dT = ca.gradient(T, qd_t)
    M_t = ca.jacobian(dT, qd_t)
    c_t = ca.jtimes(dT, q_t, qd_t) - ca.gradient(T, q_t) + ca.gradient(V, q_t)
    for c, force in joint_friction(model, qd_t, friction, smoothing):
        c_t[c] = c_t[c] + force
    return M_t, c_t


def joint_friction(model, qd, friction, smoothing):
    """``[(column, force)]``: the viscous and (smoothed) Coulomb friction of
    the joints at the rates ``qd`` (SX or MX), times ``friction`` (0 or 1)."""
    index = model.layout.joint_index
    return ([(index[n], friction * fv * qd[index[n]]) for n, fv in model.viscous_friction.items()]
            + [(index[n], friction * fs * ca.tanh(qd[index[n]] / smoothing))
               for n, fs in model.coulomb_friction.items()])


def platform_dynamics(model, x_p, xd_p, g, inertia=None):
    """``(S^T M_p S, S^T c_p, R_0p, P, t_p)``: the platform's Newton-Euler
    model (8.97), (10.101) at P in the base frame, its pose from ``x_p``
    (``R_0p = exp(hat(r))``) and twist ``t_p = S xd_p``; ``inertia``: SX
    ``[m; ms_r (3); I_rr (9, C order)]`` instead of the body's numbers
    (:func:`flexpkm.compiled.design.platform_inertia`)."""
    pl = model.platform
    pose = [ca.SX(0)] * 6
    tp = [ca.SX(0)] * 6
    for k, d in enumerate(pl.dofs):
        pose[d], tp[d] = x_p[k], xd_p[k]
    R, P = rodrigues(ca.vertcat(*pose[3:])), ca.vertcat(*pose[:3])
    v, w = ca.vertcat(*tp[:3]), ca.vertcat(*tp[3:])
    S = ca.SX(np.eye(6)[:, list(pl.dofs)])
    if pl.body is None:
        n = len(pl.dofs)
        return ca.SX.zeros(n, n), ca.SX.zeros(n, 1), R, P, (v, w)
    inv = pl.body.invariants
    m, ms_r, I_rr = ((inv.m, ca.SX(inv.ms_r), ca.SX(inv.I_rr)) if inertia is None else
                     (inertia[0], inertia[1:4], ca.reshape(inertia[4:13], 3, 3).T))
    ms, I_O = R @ ms_r, R @ I_rr @ R.T
    M = ca.vertcat(ca.horzcat(m * ca.SX.eye(3), hat(ms).T), ca.horzcat(hat(ms), I_O))
    c = ca.vertcat(-m * g + ca.cross(w, ca.cross(w, ms)),
                   -ca.cross(ms, g) + ca.cross(w, I_O @ w))
    return S.T @ M @ S, S.T @ c, R, P, (v, w)


def _cut_sides(model, c, R, p, vel, R_p, P, t_p):
    """``(O_k, R_k, v_k, w_k, O_g, R_g, v_g, w_g)`` of a closure: the cut
    frame and the other side (a tree frame, or the platform-side frame
    ``O_g = P + R_0p platform_point``, ``R_g = R_0p exp(hat(platform_rotation))``
    moving with the platform twist ``t_p``), base frame."""
    k = model.frame_index[c.frame]
    vk, wk = vel[k] if vel is not None else (None, None)
    if c.other is None:       # numbers, or SX (design sensitivities, flexpkm.compiled.geometric)
        pp, pr = c.platform_point, c.platform_rotation
        Og = P + R_p @ (pp if isinstance(pp, ca.SX) else ca.SX(np.asarray(pp, float)))
        Rg = R_p @ (rodrigues(pr) if isinstance(pr, ca.SX) else
                    ca.SX(rotation_matrix(np.asarray(pr, float))))
        vg, wg = (None, None) if t_p is None else (t_p[0] + ca.cross(t_p[1], Og - P), t_p[1])
    else:
        g = model.frame_index[c.other]
        Og, Rg = p[g], R[g]
        vg, wg = vel[g] if vel is not None else (None, None)
    return p[k], R[k], vk, wk, Og, Rg, vg, wg


def _rows(c, rows, trans, rotation):
    return [trans[r] if r < 3 else rotation(*rotation_row(c.joint, r)) for r in rows]


def closure_rows(model, R, p, vel, R_p, P, t_p):
    """The velocity rows of the cut joints, ``J_tot qd_tot`` of (10.107)
    (SX (c,)), the exact time derivatives of :func:`closure_residual`
    (:mod:`flexpkm.algorithms.cut_joints`): ``R_k^T (v_k - v_g - w_k x d)``
    and ``sign (w_k - w_g) . (a_k x b_g)``.
    vel : per frame ``(v_j, w_j)``; R_p, P, t_p : platform pose and twist."""
    out = []
    for c, rows in zip(model.closures, model.closure_rows):
        Ok, Rk, vk, wk, Og, Rg, vg, wg = _cut_sides(model, c, R, p, vel, R_p, P, t_p)
        trans = Rk.T @ (vk - vg - ca.cross(wk, Ok - Og))
        out += _rows(c, rows, trans, lambda i, j, sign: sign * ca.dot(
            wk - wg, ca.cross(Rk[:, i], Rg[:, j])))
    return ca.vertcat(*out) if out else ca.SX.zeros(0, 1)


def closure_residual(model, q_tot, kin=None):
    """Geometric loop equations (SX (c,), m and dimensionless), the twin of
    :func:`flexpkm.algorithms.closure.closure_residual` (same arguments and
    rows): ``R_k^T (O_k - O_g)`` and ``sign a_k . b_g``
    (:mod:`flexpkm.algorithms.cut_joints`). ``kin`` = ``(R, p, R_p, P)``, the
    frames' and the platform's poses, made from ``q_tot`` when None."""
    if kin is None:
        n_t = model.layout.n_t
        R, p = frame_poses(model, q_tot[:n_t])
        R_p, P = ca.SX.eye(3), ca.SX.zeros(3, 1)
        if model.platform is not None:
            x_p = q_tot[n_t:]
            R_p, P = platform_dynamics(model, x_p, ca.SX.zeros(x_p.shape[0], 1), ca.SX.zeros(3, 1))[2:4]
        kin = (R, p, R_p, P)
    R, p, R_p, P = kin
    out = []
    for c, rows in zip(model.closures, model.closure_rows):
        Ok, Rk, _, _, Og, Rg, _, _ = _cut_sides(model, c, R, p, None, R_p, P, None)
        out += _rows(c, rows, Rk.T @ (Ok - Og),
                     lambda i, j, sign: sign * ca.dot(Rk[:, i], Rg[:, j]))
    return ca.vertcat(*out) if out else ca.SX.zeros(0, 1)


def rotation_vector_rate(r, w):
    """``dr/dt`` of a rotation vector r (3,) whose rotation ``exp(hat(r))``
    turns with the base-frame angular velocity w: ``J_l(r)^-1 w`` with
    ``J_l = I + (1 - cos t)/t^2 hat(r) + (t - sin t)/t^3 hat(r)^2``, t = |r|
    (series below 1e-4 rad)."""
    return ca.solve(left_jacobian(r), w)


def left_jacobian(r):
    """``J_l(r)`` (3, 3) SX of :func:`rotation_vector_rate` (``w = J_l dr/dt``)."""
    t2 = ca.dot(r, r)
    t = ca.sqrt(t2 + 1e-300)
    small = t2 < 1e-8
    a = ca.if_else(small, 0.5 - t2 / 24, (1 - ca.cos(t)) / (t2 + 1e-300))
    b = ca.if_else(small, 1.0 / 6 - t2 / 120, (t - ca.sin(t)) / (t2 * t + 1e-300))
    K = hat(r)
    return ca.SX.eye(3) + a * K + b * (K @ K)


def dependent_solve(model, J_f, rhs, dep, kept=None):
    """``J_f^-1 rhs`` limb by limb when ``J_t^f`` is block-diagonal by limb
    (Müller 3.3.2, :func:`flexpkm.algorithms.dependent.limb_blocks`), else
    with one symbolic QR solve. J_f (c, c), rhs (c, m) SX over the
    constraint rows ``kept`` (indices of :func:`row_labels`; default all)."""
    labels = row_labels(model)
    labels = labels if kept is None else [labels[i] for i in kept]
    blocks = limb_blocks(model, labels, dep) or [(np.arange(len(dep)),) * 2]
    out = ca.SX.zeros(rhs.shape[0], rhs.shape[1])
    for rows, cols in blocks:
        rows, cols = [int(i) for i in rows], [int(i) for i in cols]
        out[cols, :] = ca.solve(J_f[rows, cols], rhs[rows, :])
    return out
