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
import scipy.linalg as sla

from flexpkm.model.description import constrained_rows
from flexpkm.errors import InvalidDescriptionError, SingularConfigurationError
from flexpkm.algorithms.platform import selection
from flexpkm.spatial import cross, skew
from flexpkm.algorithms.tree import tree_kinematics

#: J_t^f is treated as singular below this reciprocal condition number
RCOND_SINGULAR = 1e-10
#: the book's q_dep is used when its J_t^f is at most this much worse
#: conditioned than the rank-revealing choice
BOOK_RCOND_RATIO = 0.1


def platform_pose(robot, kin):
    """Pose of the platform at P from the first closure that reaches it:
    ``R_0p = R_0k`` of the cut frame k and ``P = O_k - R_0p platform_point``.
    Returns (R_0p (B, 3, 3), P (B, 3)); identity / zeros without platform."""
    B = kin.R.shape[0]
    for c in robot.closures:
        if c.other is None:
            k = robot.frame_index[c.frame]
            R = kin.R[:, k]
            return R, kin.p[:, k] - R @ np.asarray(c.platform_point, float)
    return np.broadcast_to(np.eye(3), (B, 3, 3)), np.zeros((B, 3))


def constraint_jacobian(robot, kin, P=None):
    """``J_tot`` of Eq. (10.107) for all closures.

    kin : :class:`flexpkm.algorithms.tree.TreeKinematics` (B poses).
    Returns (J_tot (B, c, n_tot), labels: list of ``(closure label, leg,
    row name)``). Columns follow ``robot.layout`` (``q_tot = [q_t; x_p]``).
    """
    layout = robot.layout
    B = kin.R.shape[0]
    if P is None:
        P = platform_pose(robot, kin)[1]
    S = selection(robot.platform) if robot.platform is not None else None
    blocks, labels = [], []
    names = ("v_x", "v_y", "v_z", "w_x", "w_y", "w_z")
    for c in robot.closures:
        k = robot.frame_index[c.frame]
        Ok = kin.p[:, k]
        _check_planar_cut(robot, kin, c, k)
        Jv = kin.Jv[:, k].copy()
        Jw = kin.Jw[:, k].copy()
        full = np.zeros((B, 6, layout.n_tot))
        if c.other is not None:
            g = robot.frame_index[c.other]
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
        rows = constrained_rows(robot, c)
        blocks.append(full[:, list(rows)])
        labels += [(c.label, c.leg, names[r]) for r in rows]
    if not blocks:
        return np.zeros((B, 0, layout.n_tot)), labels
    return np.concatenate(blocks, axis=1), labels


def constraint_bias(robot, kin, qd_tot, P=None):
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
    layout = robot.layout
    B = kin.R.shape[0]
    qd_t = qd_tot[:, :layout.n_t]
    if P is None:
        P = platform_pose(robot, kin)[1]
    g_add = np.asarray(kin.gravity, float)          # a_bias contains -g: add it back
    out = []
    vel = lambda J, k: (J[:, k] @ qd_t[:, :, None])[..., 0]
    for c in robot.closures:
        k = robot.frame_index[c.frame]
        Ok, vk, wk = kin.p[:, k], vel(kin.Jv, k), vel(kin.Jw, k)
        ak, alk = kin.a_bias[:, k] + g_add, kin.alpha_bias[:, k]
        if c.other is not None:
            g = robot.frame_index[c.other]
            Og, vg, wg = kin.p[:, g], vel(kin.Jv, g), vel(kin.Jw, g)
            ag, alg = kin.a_bias[:, g] + g_add, kin.alpha_bias[:, g]
        else:
            tp = qd_tot[:, layout.n_t:] @ selection(robot.platform).T
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
        out.append(rows[:, list(constrained_rows(robot, c))])
    return np.concatenate(out, axis=1) if out else np.zeros((B, 0))


def closure_residual(robot, q_tot, kin=None):
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
    layout = robot.layout
    q = np.asarray(q_tot, float).reshape(-1, layout.n_tot)
    kin = kin or tree_kinematics(robot, q[:, :layout.n_t])
    R_p, P = platform_pose(robot, kin)
    if robot.platform is not None:
        dofs = list(robot.platform.dofs)
        if any(d >= 3 for d in dofs):
            raise InvalidDescriptionError(
                "closure_residual: rotational platform coordinates are not supported")
        P = P.copy()
        P[:, dofs] = q[:, layout.n_t:]
    out = []
    for c in robot.closures:
        k = robot.frame_index[c.frame]
        if c.other is None:
            Og, Rg = P + R_p @ np.asarray(c.platform_point, float), R_p
        else:
            g = robot.frame_index[c.other]
            Og, Rg = kin.p[:, g], kin.R[:, g]
        Rk = kin.R[:, k]
        Rt = np.swapaxes(Rk, -1, -2)
        dp = (Rt @ (kin.p[:, k] - Og)[:, :, None])[..., 0]
        A = Rt @ Rg
        W = 0.5 * (A - np.swapaxes(A, -1, -2))
        rot = np.stack([W[:, 2, 1], W[:, 0, 2], W[:, 1, 0]], axis=-1)
        out.append(np.concatenate([dp, -rot], axis=-1)[:, list(constrained_rows(robot, c))])
    return np.concatenate(out, axis=1) if out else np.zeros((q.shape[0], 0))


def project_on_loops(robot, q_tot, dep, tol=1e-12, max_iter=20):
    """Correct the dependent coordinates so that the loops close:
    Newton iterations on :func:`closure_residual` with ``J_t^f`` (the
    velocity-level Jacobian, exact at the solution).

    q_tot : (n_tot,) ; dep : dependent columns. Returns (q_tot, residual norm).
    Raises :class:`SingularConfigurationError` when it does not converge.
    """
    layout = robot.layout
    q = np.array(q_tot, float).reshape(1, layout.n_tot)
    for _ in range(max_iter):
        kin = tree_kinematics(robot, q[:, :layout.n_t])
        r = closure_residual(robot, q, kin)
        err = np.abs(r).max() if r.size else 0.0
        if err < tol:
            return q[0], err
        J_tot, _ = constraint_jacobian(robot, kin)
        q[0, dep] -= np.linalg.solve(J_tot[0][:, dep], r[0])
    raise SingularConfigurationError(
        f"the loops cannot be closed (residual {err:.3g} after {max_iter} iterations)",
        matrix="J_t^f")


def _check_planar_cut(robot, kin, c, k):
    if robot.plane_normal is None:
        return
    z = kin.R[0, k][:, 2]
    if abs(abs(z @ np.asarray(robot.plane_normal)) - 1) > 1e-6:
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
    """``J`` of Eq. (10.114): identity on the rows ``indep`` (their columns
    in order), ``J_d`` on the rows ``dep``. J_d (B, c, n_q) -> (B, n_tot, n_q)."""
    B, _, n_q = J_d.shape
    J = np.zeros((B, len(indep) + len(dep), n_q))
    J[:, indep, np.arange(n_q)] = 1.0
    J[:, dep, :] = J_d
    return J


def choose_dependent(robot, J_tot, labels, q_dep=None):
    """Pick the c dependent columns of ``J_tot`` (first pose of the batch).

    * ``q_dep`` given (names): used as is; a singular ``J_t^f`` raises
      :class:`SingularConfigurationError` naming the closures/legs involved.
    * otherwise a rank-revealing choice is made, QR with column pivoting of
      ``J_tot`` restricted to the non-actuated columns (the actuators stay
      independent so that they can be locked or driven); the per-limb choice
      of :func:`limbwise_dependent` replaces it, and the book's choice
      ``robot.q_dep`` replaces both, when their ``J_t^f`` is not much worse
      conditioned (``BOOK_RCOND_RATIO``).
    Returns (dep indices, choice name).
    """
    layout = robot.layout
    c = J_tot.shape[1]
    A = J_tot[0]
    if c == 0:
        return np.zeros(0, dtype=int), "no closure"
    if q_dep is not None:
        dep = np.array([layout.index(n) for n in q_dep])
        _assert_invertible(A[:, dep], labels, "J_t^f (requested q_dep)")
        return dep, "requested"
    free = np.array([i for i in range(layout.n_tot) if i not in layout.actuated])
    _, R, piv = sla.qr(A[:, free], mode="economic", pivoting=True)
    dep = np.sort(free[piv[:c]])
    _assert_invertible(A[:, dep], labels, "J_tot (non-actuated columns)")
    choice, best = "rank-revealing", _rcond(A[:, dep])
    limb = limbwise_dependent(robot, A, labels)
    if limb is not None and _rcond(A[:, limb]) > BOOK_RCOND_RATIO * best:
        dep, choice = limb, "per limb"
    if robot.q_dep is not None:
        book = np.array([layout.index(n) for n in robot.q_dep])
        if len(book) == c and _rcond(A[:, book]) > BOOK_RCOND_RATIO * best:
            return book, "book"
    return dep, choice


def column_legs(robot):
    """The leg of every column of q_tot (None for the platform's); computed
    once per robot."""
    return robot.cached("column_legs", _column_legs)


def _column_legs(robot):
    layout = robot.layout
    legs = [None] * layout.n_tot
    for f in robot.frames:
        if f.name in layout.joint_index:
            legs[layout.joint_index[f.name]] = f.leg or None
        sl = layout.elastic_slice.get(f.name)
        if sl is not None:
            for c in range(sl.start, sl.stop):
                legs[c] = f.leg or None
    return legs


def limbwise_dependent(robot, A, labels):
    """Block partitioning of ``J_tot`` by limb (Müller 3.3.2; the book's
    choice of q_dep among each leg's own coordinates, Section 10.4.1): the
    rows of each leg's closures get dependent columns among that leg's
    non-actuated coordinates, by QR with column pivoting of the leg's block.
    ``J_t^f`` is then block-triangular (block-diagonal when the platform
    coordinates stay independent), each block a limb. Returns the sorted
    dependent columns, or None when a block is rank deficient or closures
    carry no leg."""
    row_legs = [leg for _, leg, _ in labels]
    if not row_legs or any(not leg for leg in row_legs):
        return None
    legs = column_legs(robot)
    actuated = set(robot.layout.actuated)
    dep, pattern = [], None
    for leg in dict.fromkeys(row_legs):
        rows = [i for i, lg in enumerate(row_legs) if lg == leg]
        cols = np.array([c for c, lg in enumerate(legs) if lg == leg and c not in actuated])
        if len(cols) < len(rows):
            return None
        _, _, piv = sla.qr(A[np.ix_(rows, cols)], mode="economic", pivoting=True)
        best = piv[:len(rows)]
        # identical limbs: keep the first limb's pattern when it is as good
        if (pattern is not None and pattern.max() < len(cols) and len(pattern) == len(rows)
                and _rcond(A[np.ix_(rows, cols[pattern])])
                > BOOK_RCOND_RATIO * _rcond(A[np.ix_(rows, cols[best])])):
            best = pattern
        pattern = best if pattern is None else pattern
        chosen = cols[best]
        if _rcond(A[np.ix_(rows, chosen)]) < RCOND_SINGULAR:
            return None
        dep += list(chosen)
    dep = np.sort(np.array(dep))
    return dep if _rcond(A[:, dep]) > RCOND_SINGULAR else None


def _rcond(A):
    s = np.linalg.svd(A, compute_uv=False)
    return s[-1] / s[0] if s.size and s[0] > 0 else 0.0


def _assert_invertible(A, labels, what):
    if A.shape[0] != A.shape[1]:
        raise SingularConfigurationError(
            f"{what}: {A.shape[0]} constraints for {A.shape[1]} dependent coordinates",
            matrix=what)
    rc = _rcond(A)
    if rc > RCOND_SINGULAR:
        return
    U, s, Vt = np.linalg.svd(A)
    weights = np.abs(U[:, -1])
    rows = [labels[i] for i in np.argsort(weights)[::-1] if weights[i] > 0.1]
    where = ", ".join(sorted({f"closure {lab} (leg {leg})" if leg else f"closure {lab}"
                              for lab, leg, _ in rows}))
    raise SingularConfigurationError(
        f"singular configuration: {what} has condition number {1 / max(rc, 1e-300):.3g}; "
        f"the constraints of {where} are degenerate", matrix=what, where=where,
        cond=1 / max(rc, 1e-300))


def solve_closure(robot, J_tot, labels, q_dep=None, dep=None) -> ClosureSolution:
    """``J_d`` (10.110) and ``J`` (10.114) for every pose of the batch."""
    layout = robot.layout
    choice = "given"
    if dep is None:
        dep, choice = choose_dependent(robot, J_tot, labels, q_dep)
    indep = np.array([i for i in range(layout.n_tot) if i not in set(dep)])
    Jf = J_tot[:, :, dep]
    J0 = J_tot[:, :, indep]
    if len(dep):
        blocks = robot.cached(("limb_blocks", tuple(dep)),          # structural: once per choice
                              lambda rob: limb_blocks(rob, Jf[0], labels, dep)
                              ) or [(np.arange(len(dep)),) * 2]
        J_d = np.empty((J_tot.shape[0], len(dep), len(indep)))
        for rows, cols in blocks:               # one solve per limb (Müller 3.3.2)
            Jb = Jf[:, rows][:, :, cols]
            if J_tot.shape[0] > 1:              # the choice was made at pose 0
                sv = np.linalg.svd(Jb, compute_uv=False)
                for b in np.flatnonzero(sv[:, -1] < RCOND_SINGULAR * sv[:, 0]):
                    _assert_invertible(Jf[b], labels, f"J_t^f at pose {b}")
            J_d[:, cols] = -np.linalg.solve(Jb, J0[:, rows])
    else:
        J_d = np.zeros((J_tot.shape[0], 0, len(indep)))
    return ClosureSolution(dep, indep, J_d, choice)


def limb_blocks(robot, Jf, labels, dep):
    """``[(rows, dep positions)]`` per limb when ``J_t^f`` (c, c) is
    block-diagonal by limb (each limb's constraint rows involve only its own
    dependent coordinates), else None. The dependent coordinates of limb L's
    block are returned in the order of the rows so that ``J_d`` rows line up."""
    row_legs = [leg for _, leg, _ in labels]
    if not row_legs or any(not leg for leg in row_legs):
        return None
    legs = column_legs(robot)
    col_legs = [legs[c] for c in dep]
    blocks = []
    scale = np.abs(Jf).max()
    for leg in dict.fromkeys(row_legs):
        rows = np.array([i for i, lg in enumerate(row_legs) if lg == leg])
        cols = np.array([k for k, lg in enumerate(col_legs) if lg == leg])
        if len(rows) != len(cols):
            return None
        others = np.setdiff1d(np.arange(len(dep)), cols)
        if others.size and np.abs(Jf[np.ix_(rows, others)]).max() > 1e-14 * scale:
            return None
        blocks.append((rows, cols))
    return blocks
