"""Closing the loops (Briot & Khalil Section 10.4.1; Müller Section 3.3).

Every cut joint of the virtual tree (leg end to platform, a frame of one leg
to a frame of another leg, or a loop inside a leg) gives rows of the
constraint Jacobian ``J_tot = [J_t, -J_p]`` of Eq. (10.107):
``J_tot qd_tot = 0``, one row per twist component constrained by the cut
joint, expressed in the cut frame at its origin. The coordinates are split
into dependent ``q_dep`` (c of them) and independent ``q`` ones:
``qd_dep = J_d qd`` with ``J_d = -(J_t^f)^-1 J_t^0`` (10.110) and
``qd_tot = J qd`` (10.114).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from flexpkm.errors import InvalidDescriptionError, SingularConfigurationError
from flexpkm.algorithms.platform import selection
from flexpkm.spatial import cross, skew
from flexpkm.algorithms.dependent import (RCOND_SINGULAR, assert_invertible, choose_dependent,
                                          limb_blocks)
from flexpkm.algorithms.tree import tree_kinematics
from flexpkm.model.build import build_model



def platform_pose(model, kin):
    """Pose of the platform at P from the first closure that reaches it:
    ``R_0p = R_0k`` of the cut frame k and ``P = O_k - R_0p platform_point``.
    Returns (R_0p (B, 3, 3), P (B, 3)); identity / zeros without platform."""
    model = build_model(model)
    B = kin.R.shape[0]
    for c in model.closures:
        if c.other is None:
            k = model.frame_index[c.frame]
            R = kin.R[:, k]
            return R, kin.p[:, k] - R @ np.asarray(c.platform_point, float)
    return np.broadcast_to(np.eye(3), (B, 3, 3)), np.zeros((B, 3))


def constraint_jacobian(model, kin, P=None):
    """``J_tot`` of Eq. (10.107) for all closures.

    kin : :class:`flexpkm.algorithms.tree.TreeKinematics` (B poses).
    Returns (J_tot (B, c, n_tot), labels: list of ``(closure label, leg,
    row name)``). Columns follow ``model.layout`` (``q_tot = [q_t; x_p]``).
    """
    model = build_model(model)
    layout = model.layout
    B = kin.R.shape[0]
    if P is None:
        P = platform_pose(model, kin)[1]
    S = selection(model.platform) if model.platform is not None else None
    blocks, labels = [], []
    names = ("v_x", "v_y", "v_z", "w_x", "w_y", "w_z")
    for c, rows in zip(model.closures, model.closure_rows):
        k = model.frame_index[c.frame]
        Ok = kin.p[:, k]
        _check_planar_cut(model, kin, c, k)
        Jv = kin.Jv[:, k].copy()
        Jw = kin.Jw[:, k].copy()
        full = np.zeros((B, 6, layout.n_tot))
        if c.other is not None:
            g = model.frame_index[c.other]
            Jv -= kin.Jv[:, g] - skew(Ok - kin.p[:, g]) @ kin.Jw[:, g]
            Jw -= kin.Jw[:, g]
        else:
            # platform velocity at O_k: v_P + w_p x (O_k - P)   (cf. 10.105)
            Tp = np.zeros((B, 6, 6))
            Tp[:, :3, :3] = np.eye(3)
            Tp[:, 3:, 3:] = np.eye(3)
            Tp[:, :3, 3:] = -skew(Ok - P)
            full[:, :, layout.n_t:] = -(Tp @ S)
        full[:, :3, :layout.n_t] = Jv
        full[:, 3:, :layout.n_t] = Jw
        Rt = np.swapaxes(kin.R[:, k], -1, -2)
        full[:, :3] = Rt @ full[:, :3]
        full[:, 3:] = Rt @ full[:, 3:]
        blocks.append(full[:, list(rows)])
        labels += [(c.label, c.leg, names[r]) for r in rows]
    if not blocks:
        return np.zeros((B, 0, layout.n_tot)), labels
    return np.concatenate(blocks, axis=1), labels


def constraint_bias(model, kin, qd_tot, P=None):
    """``dJ_tot/dt qd_tot`` (the ``b'`` of Eqs. 10.116-10.117): the constraint
    rows' time derivative at zero accelerations, same rows as
    :func:`constraint_jacobian`.

    kin : tree kinematics computed with ``qd_t`` (acceleration bias present).
    qd_tot : (B, n_tot) velocities of all coordinates. Returns (B, c).

    For a closure between frame k and body g (another frame, or the platform
    at P) with ``D = [v_k - v_g - w_g x (O_k - O_g); w_k - w_g]`` (base frame),
    the rows are ``S R-bar_k^T D`` and their derivative is
    ``S (R-bar_k^T dD/dt - diag(hat(w_k), hat(w_k)) R-bar_k^T D)`` in F_k.
    """
    model = build_model(model)
    layout = model.layout
    B = kin.R.shape[0]
    qd_t = qd_tot[:, :layout.n_t]
    if P is None:
        P = platform_pose(model, kin)[1]
    g_add = np.asarray(kin.gravity, float)          # a_bias contains -g: add it back
    out = []
    vel = lambda J, k: (J[:, k] @ qd_t[:, :, None])[..., 0]
    for c, rows_c in zip(model.closures, model.closure_rows):
        k = model.frame_index[c.frame]
        Ok, vk, wk = kin.p[:, k], vel(kin.Jv, k), vel(kin.Jw, k)
        ak, alk = kin.a_bias[:, k] + g_add, kin.alpha_bias[:, k]
        if c.other is not None:
            g = model.frame_index[c.other]
            Og, vg, wg = kin.p[:, g], vel(kin.Jv, g), vel(kin.Jw, g)
            ag, alg = kin.a_bias[:, g] + g_add, kin.alpha_bias[:, g]
        else:
            tp = qd_tot[:, layout.n_t:] @ selection(model.platform).T
            Og, vg, wg = P, tp[:, :3], tp[:, 3:]
            ag = alg = np.zeros((B, 3))
        r = Ok - Og
        Dv = vk - vg - cross(wg, r)
        Dw = wk - wg
        dDv = ak - ag - cross(alg, r) - cross(wg, vk - vg)
        dDw = alk - alg
        Rt = np.swapaxes(kin.R[:, k], -1, -2)
        loc = lambda x: (Rt @ x[:, :, None])[..., 0]
        wl = loc(wk)
        rows = np.concatenate([loc(dDv) - cross(wl, loc(Dv)),
                               loc(dDw) - cross(wl, loc(Dw))], axis=-1)
        out.append(rows[:, list(rows_c)])
    return np.concatenate(out, axis=1) if out else np.zeros((B, 0))


def closure_residual(model, q_tot, kin=None):
    """Geometric loop equations, the position-level counterpart of
    :func:`constraint_jacobian` (same rows): for each closure, the position of
    O_k relative to the other body's point and the small rotation
    ``vee(R_k^T R_g - R_g^T R_k) / 2`` between the cut frames, in F_k.

    The cut frames must coincide at assembly. The platform point is
    ``P + R_p platform_point`` with P's translational coordinates taken from
    ``q_tot`` (its other components and R_p from the first platform closure's
    frame); rotational platform coordinates are not supported here.
    q_tot : (B, n_tot). Returns (B, c): m and rad.
    """
    model = build_model(model)
    layout = model.layout
    q = np.asarray(q_tot, float).reshape(-1, layout.n_tot)
    kin = kin or tree_kinematics(model, q[:, :layout.n_t])
    R_p, P = platform_pose(model, kin)
    if model.platform is not None:
        dofs = list(model.platform.dofs)
        if any(d >= 3 for d in dofs):
            raise InvalidDescriptionError(
                "closure_residual: rotational platform coordinates are not supported")
        P = P.copy()
        P[:, dofs] = q[:, layout.n_t:]
    out = []
    for c, rows in zip(model.closures, model.closure_rows):
        k = model.frame_index[c.frame]
        if c.other is None:
            Og, Rg = P + R_p @ np.asarray(c.platform_point, float), R_p
        else:
            g = model.frame_index[c.other]
            Og, Rg = kin.p[:, g], kin.R[:, g]
        Rk = kin.R[:, k]
        Rt = np.swapaxes(Rk, -1, -2)
        dp = (Rt @ (kin.p[:, k] - Og)[:, :, None])[..., 0]
        A = Rt @ Rg
        W = 0.5 * (A - np.swapaxes(A, -1, -2))
        rot = np.stack([W[:, 2, 1], W[:, 0, 2], W[:, 1, 0]], axis=-1)
        out.append(np.concatenate([dp, -rot], axis=-1)[:, list(rows)])
    return np.concatenate(out, axis=1) if out else np.zeros((q.shape[0], 0))


def project_on_loops(model, q_tot, dep, tol=1e-12, max_iter=20):
    """Correct the dependent coordinates so that the loops close:
    Newton iterations on :func:`closure_residual` with ``J_t^f`` (the
    velocity-level Jacobian, exact at the solution).

    q_tot : (n_tot,) ; dep : dependent columns. Returns (q_tot, residual norm).
    Raises :class:`SingularConfigurationError` when it does not converge.
    """
    model = build_model(model)
    layout = model.layout
    q = np.array(q_tot, float).reshape(1, layout.n_tot)
    for _ in range(max_iter):
        kin = tree_kinematics(model, q[:, :layout.n_t])
        r = closure_residual(model, q, kin)
        err = np.abs(r).max() if r.size else 0.0
        if err < tol:
            return q[0], err
        J_tot, _ = constraint_jacobian(model, kin)
        q[0, dep] -= np.linalg.solve(J_tot[0][:, dep], r[0])
    raise SingularConfigurationError(
        f"the loops cannot be closed (residual {err:.3g} after {max_iter} iterations)",
        matrix="J_t^f")


def _check_planar_cut(model, kin, c, k):
    if model.plane_normal is None:
        return
    z = kin.R[0, k][:, 2]
    if abs(abs(z @ np.asarray(model.plane_normal)) - 1) > 1e-6:
        raise InvalidDescriptionError(
            f"closure {c.label}: in a planar model the cut frame {c.frame}'s z axis "
            f"must be normal to the plane of motion (z = {np.round(z, 6)})")


@dataclass
class ClosureSolution:
    """Dependent / independent split and ``J`` of Eq. (10.114).

    dep, indep : column indices of q_dep and q in q_tot
    J_d : (B, c, n_q)      ``qd_dep = J_d qd`` (10.110)
    J   : (B, n_tot, n_q)  ``qd_tot = J qd`` (built on first use)
    choice : ``"book"``, ``"rank-revealing"``, ``"requested"``...
    """

    dep: np.ndarray
    indep: np.ndarray
    J_d: np.ndarray
    choice: str

    @cached_property
    def J(self) -> np.ndarray:
        return expand(self.indep, self.dep, self.J_d)


def expand(indep, dep, J_d) -> np.ndarray:
    """J_d (c, n_q) gives (n_tot, n_q).
    ``J`` of Eq. (10.114): identity on the rows ``indep`` (their columns
    in order), ``J_d`` on the rows ``dep``. J_d (B, c, n_q) -> (B, n_tot, n_q)."""
    if J_d.ndim == 2:
        return expand(indep, dep, J_d[None])[0]
    B, _, n_q = J_d.shape
    J = np.zeros((B, len(indep) + len(dep), n_q))
    J[:, indep, np.arange(n_q)] = 1.0
    J[:, dep, :] = J_d
    return J


def solve_closure(model, J_tot, labels, q_dep=None, dep=None) -> ClosureSolution:
    """``J_d`` (10.110) and ``J`` (10.114) for every pose of the batch."""
    model = build_model(model)
    layout = model.layout
    choice = "given"
    if dep is None:
        dep, choice = choose_dependent(model, J_tot, labels, q_dep)
    indep = np.array([i for i in range(layout.n_tot) if i not in set(dep)])
    Jf = J_tot[:, :, dep]
    J0 = J_tot[:, :, indep]
    if len(dep):
        blocks = limb_blocks(model, labels, dep) or [(np.arange(len(dep)),) * 2]
        J_d = np.empty((J_tot.shape[0], len(dep), len(indep)))
        for rows, cols in blocks:               # one solve per limb (Müller 3.3.2)
            Jb = Jf[:, rows][:, :, cols]
            if J_tot.shape[0] > 1:              # the choice was made at pose 0
                sv = np.linalg.svd(Jb, compute_uv=False)
                for b in np.flatnonzero(sv[:, -1] < RCOND_SINGULAR * sv[:, 0]):
                    assert_invertible(Jf[b], labels, f"J_t^f at pose {b}")
            J_d[:, cols] = -np.linalg.solve(Jb, J0[:, rows])
    else:
        J_d = np.zeros((J_tot.shape[0], 0, len(indep)))
    return ClosureSolution(dep, indep, J_d, choice)
