"""Closing the loops (Briot & Khalil Section 10.4.1; Müller Section 3.3).

Every cut joint of the virtual tree (leg end to platform, a frame of one leg
to a frame of another leg, or a loop inside a leg) gives rows of the
constraint Jacobian ``J_tot = [J_t, -J_p]`` of Eq. (10.107):
``J_tot qd_tot = 0``, one row per twist component constrained by the cut
joint (in the cut frame at its origin when the cut frames are aligned; at
any configuration the exact derivative of the joint's position residual,
:mod:`flexpkm.algorithms.cut_joints`). Redundant rows are dropped first
(:mod:`flexpkm.algorithms.constraint_rows`). The coordinates are split
into dependent ``q_dep`` (c of them) and independent ``q`` ones:
``qd_dep = J_d qd`` with ``J_d = -(J_t^f)^-1 J_t^0`` (10.110) and
``qd_tot = J qd`` (10.114).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from flexpkm.errors import InvalidDescriptionError, OpenLoopError, SingularConfigurationError
from flexpkm.algorithms.platform import platform_increment, platform_pose
from flexpkm.spatial import rotation_matrix, rotation_vector
from flexpkm.algorithms import cut_joints as cj
from flexpkm.algorithms.constraint_rows import select_for_columns, select_rows
from flexpkm.algorithms.dependent import (RCOND_SINGULAR, assert_invertible, choose_dependent,
                                          limb_blocks)
from flexpkm.algorithms.tree import as_batch, tree_kinematics
from flexpkm.model.build import build_structure



#: a row dropped at pose 0 of a batch must stay redundant at the other poses:
#: ``|J_dropped J| <= DROPPED_GAP |J_dropped|``
DROPPED_GAP = 1e-6
#: largest loop gap (m, rad) an analysis accepts (:func:`check_loops`)
LOOP_TOL = 1e-6


def constraint_jacobian(model, kin, pose):
    """``J_tot`` of Eq. (10.107) for all closures: the exact derivative of
    :func:`closure_residual` (rows of :mod:`flexpkm.algorithms.cut_joints`;
    at aligned cut frames the relative twist components the joint blocks,
    in the cut frame).

    kin : :class:`flexpkm.algorithms.tree.TreeKinematics` (B poses).
    pose : :class:`flexpkm.algorithms.platform.PlatformPose` ``(R_p, P)``
    (:func:`flexpkm.algorithms.platform.platform_pose`): R_p (B, 3, 3)
    platform orientation, P (B, 3) origin, m; R_p may be None
    at an assembled configuration unless a universal or prismatic joint
    reaches the platform (:class:`InvalidArgumentError`).
    Returns (J_tot (B, c, n_tot), labels: list of ``(closure label, leg,
    row name)``). Columns follow ``model.layout`` (``q_tot = [q_t; x_p]``).
    """
    model = build_structure(model)
    B = kin.R.shape[0]
    blocks = []
    for c, rows in zip(model.closures, model.closure_rows):
        _check_planar_cut(model, kin, c, model.frame_index[c.frame])
        blocks.append(cj.jacobian_rows(c, rows, cj.cut_sides(model, kin, c, pose)))
    labels = row_labels(model)
    if not blocks:
        return np.zeros((B, 0, model.layout.n_tot)), labels
    return np.concatenate(blocks, axis=1), labels


def constraint_bias(model, kin, qd_tot, pose):
    """``dJ_tot/dt qd_tot`` (the ``b'`` of Eqs. 10.116-10.117): the
    constraint rows' time derivative at zero accelerations, same rows as
    :func:`constraint_jacobian` (the second time derivative of
    :func:`closure_residual` minus ``J_tot qdd_tot``).

    kin : tree kinematics computed with ``qd_t`` (acceleration bias present).
    qd_tot : (B, n_tot) velocities of all coordinates; pose :
    :class:`flexpkm.algorithms.platform.PlatformPose` as in :func:`constraint_jacobian`.
    Returns (B, c).
    """
    model = build_structure(model)
    B = kin.R.shape[0]
    g_add = np.asarray(kin.gravity, float)          # a_bias contains -g: add it back
    acc = lambda j: (kin.a_bias[:, j] + g_add, kin.alpha_bias[:, j])
    out = []
    for c, rows in zip(model.closures, model.closure_rows):
        s = cj.cut_sides(model, kin, c, pose)
        acc_g = (acc(model.frame_index[c.other]) if c.other is not None
                 else cj.platform_point_acceleration(s, qd_tot, pose.P))
        out.append(cj.bias_rows(c, rows, s, qd_tot, acc(model.frame_index[c.frame]), acc_g))
    return np.concatenate(out, axis=1) if out else np.zeros((B, 0))


def closure_residual(model, q_tot, kin=None):
    """Geometric loop equations ``h(q_tot)``, whose derivative is
    :func:`constraint_jacobian` (same rows): for each closure, the position
    of O_k relative to the other side's origin in F_k and the products of
    cut-frame axes of :mod:`flexpkm.algorithms.cut_joints` (zero on the
    joint's whole motion manifold).

    The other side is a tree frame g, or the platform frame F_p placed by the
    platform coordinates of ``q_tot`` (point ``P + R_0p platform_point``, axes
    ``R_0p exp(hat(platform_rotation))``): the cut frames coincide at assembly
    up to the joint's motion.
    q_tot : (n_tot,) or (B, n_tot). Returns (B, c): m for v rows,
    dimensionless (sines of the angle errors) for w rows.
    """
    model = build_structure(model)
    layout = model.layout
    q = as_batch(q_tot, layout.n_tot)
    kin = kin or tree_kinematics(model, q[:, :layout.n_t])
    pose = platform_pose(model, q)
    out = [cj.residual_rows(c, rows, cj.cut_sides(model, kin, c, pose))
           for c, rows in zip(model.closures, model.closure_rows)]
    return np.concatenate(out, axis=1) if out else np.zeros((q.shape[0], 0))


def with_platform(model, q_t, closure=None):
    """States ``q_tot`` (B, n_tot) from tree coordinates ``q_t`` (n_t,)/(B, n_t)
    of an assembled robot: the platform coordinates are those that close the
    given platform closure (label; default the first one) exactly, i.e. F_p
    placed so that ``P + R_0p platform_point = O_k`` and ``R_0p
    exp(hat(platform_rotation)) = R_k``. For
    a closed-form inverse geometric model; the other closures are not
    looked at (:func:`check_loops` does). Without a platform: ``q_t``."""
    model = build_structure(model)
    layout = model.layout
    q_t = as_batch(q_t, layout.n_t)
    if model.platform is None:
        return q_t
    cuts = [c for c in model.closures if c.other is None and (closure in (None, c.label))]
    if not cuts:
        raise InvalidDescriptionError(f"no closure {closure or ''} reaches the platform")
    kin = tree_kinematics(model, q_t, jacobians=False)
    k = model.frame_index[cuts[0].frame]
    R = kin.R[:, k] @ rotation_matrix(cuts[0].platform_rotation).T
    pose = np.concatenate([kin.p[:, k] - R @ np.asarray(cuts[0].platform_point, float),
                           rotation_vector(R)], -1)
    return np.concatenate([q_t, pose[:, list(model.platform.dofs)]], -1)


_COMPONENTS = ("v_x", "v_y", "v_z", "w_x", "w_y", "w_z")


def row_labels(model) -> list:
    """``(closure label, leg, twist component)`` of each constraint row."""
    return [(c.label, c.leg, _COMPONENTS[r])
            for c, rows in zip(model.closures, model.closure_rows) for r in rows]


def check_loops(model, q_tot, kin=None, tol=LOOP_TOL, what="q"):
    """Raise :class:`OpenLoopError` when a closure of a state ``q_tot``
    (n_tot,)/(B, n_tot) is open by more than ``tol`` (m for the position
    rows, rad for the rotation rows), naming the closure, its leg, the pose
    index and the gap. Returns the largest gap of each pose (B,)."""
    model = build_structure(model)
    r = closure_residual(model, q_tot, kin)
    if not r.size:
        return np.zeros(r.shape[0])
    gap = np.abs(r).max(axis=1)
    if not np.all(gap <= tol):                  # NaN too
        b = int(np.argmax(~(gap <= tol)))
        row = int(np.nanargmax(np.abs(r[b]))) if np.isfinite(r[b]).any() else 0
        label, leg, comp = row_labels(model)[row]
        unit = "rad" if comp.startswith("w") else "m"
        pose = f" at pose {b}" if r.shape[0] > 1 else ""
        raise OpenLoopError(
            f"{what}: the loops are not closed{pose}: closure {label}"
            f"{f' (leg {leg})' if leg and f'leg {leg}' not in label else ''} is open by {abs(r[b, row]):.3g} {unit} "
            f"along {comp} (tolerance {tol:g}); assemble the configuration first "
            f"(flexpkm.assemble)", closure=label, gap=float(abs(r[b, row])))
    flips = half_turns(model, q_tot, kin)
    if flips:
        b, label, leg, axes, dot = flips[0]
        pose = f" at pose {b}" if r.shape[0] > 1 else ""
        raise OpenLoopError(
            f"{what}: the loops are not closed{pose}: the cut frame of closure {label}"
            f"{f' (leg {leg})' if leg and f'leg {leg}' not in label else ''} is half-turned "
            f"({axes} = {dot:.3g}, +1 when closed); assemble the configuration first "
            f"(flexpkm.assemble)", closure=label, gap=float(np.pi))
    return gap


def half_turns(model, q_tot, kin=None) -> list:
    """Closures whose rows vanish with the cut frame half-turned (Section
    :mod:`flexpkm.algorithms.cut_joints`): ``(pose, closure label, leg,
    "z_k . z_g", dot product)`` for each pose and closure where an axis the
    joint keeps aligned points the other way (dot product < 0), pose order.
    q_tot : (n_tot,) or (B, n_tot)."""
    model = build_structure(model)
    layout = model.layout
    q = as_batch(q_tot, layout.n_tot)
    kin = kin or tree_kinematics(model, q[:, :layout.n_t])
    pose = platform_pose(model, q)
    out = []
    for c, rows in zip(model.closures, model.closure_rows):
        axes = cj.aligned_axes(c, rows)
        if not axes:
            continue
        dots = cj.alignment(c, rows, cj.cut_sides(model, kin, c, pose))
        for b, i in zip(*np.nonzero(~(dots > 0))):
            name = "xyz"[axes[i]]
            out.append((int(b), c.label, c.leg, f"{name}_k . {name}_g", float(dots[b, i])))
    return sorted(out, key=lambda f: f[0])


def project_on_loops(model, q_tot, dep=None, tol=1e-12, max_iter=20):
    """Correct the dependent coordinates so that the loops close:
    Gauss-Newton iterations on :func:`closure_residual` with the columns
    ``dep`` of ``J_tot`` (its exact derivative), all rows by least squares
    so that redundant rows (Müller Remark 2) do no harm; platform
    coordinates updated by :func:`flexpkm.algorithms.platform.platform_increment`.

    q_tot : (n_tot,) ; dep : dependent columns (default: chosen at q_tot as
    in :func:`flexpkm.algorithms.dependent.choose_dependent`).
    Returns (q_tot, residual norm).
    Raises :class:`SingularConfigurationError` when it does not converge.
    """
    model = build_structure(model)
    layout = model.layout
    q = np.array(q_tot, float).reshape(1, layout.n_tot)
    for _ in range(max_iter):
        kin = tree_kinematics(model, q[:, :layout.n_t])
        r = closure_residual(model, q, kin)
        err = np.abs(r).max() if r.size else 0.0
        if err < tol:
            return q[0], err
        J_tot, labels = constraint_jacobian(model, kin, platform_pose(model, q))
        if dep is None:
            kept = select_rows(J_tot, labels).kept      # the independent rows only
            dep = choose_dependent(model, J_tot[:, kept], [labels[i] for i in kept])[0]
        # all rows, least squares: redundant rows are consistent (Gauss-Newton)
        q = apply_step(model, q, dep, -np.linalg.lstsq(J_tot[0][:, dep], r[0], rcond=None)[0])
    raise SingularConfigurationError(
        f"the loops cannot be closed (residual {err:.3g} after {max_iter} iterations)",
        matrix="J_t^f")


def apply_step(model, q_tot, cols, dx):
    """``q_tot`` (B, n_tot) moved by ``dx`` (B, len(cols)), or (len(cols),)
    for every row, on the columns ``cols``: added to joint coordinates,
    composed on the platform pose
    (:func:`flexpkm.algorithms.platform.platform_increment`)."""
    n_t = model.layout.n_t
    q = np.array(q_tot, dtype=float)
    cols = np.asarray(cols, dtype=int)
    dx = np.broadcast_to(dx, (len(q), len(cols)))
    tree = cols < n_t
    q[:, cols[tree]] += dx[:, tree]
    if (~tree).any():
        dx_p = np.zeros((len(q), model.layout.n_p))
        dx_p[:, cols[~tree] - n_t] = dx[:, ~tree]
        q = platform_increment(model, q, dx_p)
    return q


def _check_planar_cut(model, kin, c, k):
    if model.plane_normal is None:
        return
    z = kin.R[0, k][:, 2]
    if abs(abs(z @ np.asarray(model.plane_normal)) - 1) > 1e-6:
        raise InvalidDescriptionError(
            f"closure {c.label}: in a planar model the cut frame {c.frame}'s z axis "
            f"must be normal to the plane of motion (z = {np.round(z, 6)})")


@dataclass(kw_only=True)
class ClosureSolution:
    """Dependent / independent split and ``J`` of Eq. (10.114).

    dep, indep : column indices of q_dep and q in q_tot
    J_d : (B, c, n_q)      ``qd_dep = J_d qd`` (10.110)
    J   : (B, n_tot, n_q)  ``qd_tot = J qd`` (built on first use)
    choice : ``"book"``, ``"rank-revealing"``, ``"requested"``...
    rows : :class:`flexpkm.algorithms.constraint_rows.RowSelection`, the
           independent rows of ``J_tot`` that ``J_t^f`` is made of (the
           redundant ones dropped, Müller Remark 2); None: all rows
    """

    dep: np.ndarray
    indep: np.ndarray
    J_d: np.ndarray
    choice: str
    rows: object = None

    @property
    def kept(self) -> np.ndarray:
        """Indices of the independent rows of ``J_tot`` (all when ``rows`` is None)."""
        return self.rows.kept if self.rows is not None else slice(None)

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


def solve_closure(model, J_tot, labels, q_dep=None, dep=None, rows=None) -> ClosureSolution:
    """``J_d`` (10.110) and ``J`` (10.114) for every pose of the batch.

    J_tot : (B, n_rows, n_tot) with its row ``labels``; its independent rows
    are selected first (:func:`flexpkm.algorithms.constraint_rows.select_rows`,
    at pose 0; or ``rows``, a RowSelection, given) and ``J_t^f`` is made of
    them only. With ``dep`` given (kept along a simulation) and a state off
    its loops by a drift, where the redundant rows are independent at the
    level of the drift, the ``len(dep)`` rows best conditioned on ``dep`` are
    kept (:func:`flexpkm.algorithms.constraint_rows.select_for_columns`).
    ``q_dep`` is chosen at the robot's reference configuration
    (``model.reference_state``, :func:`flexpkm.build_model`) when neither
    ``q_dep`` nor ``dep`` is given; at the batch's first pose for a model
    without it.
    Raises :class:`SingularConfigurationError` when ``J_t^f`` is singular, or
    when a dropped row is not redundant at another pose of the batch."""
    model = build_structure(model)
    layout = model.layout
    sel = select_rows(J_tot, labels) if rows is None else rows
    if rows is None and dep is not None and len(sel.kept) != len(dep):
        sel = select_for_columns(J_tot, labels, dep)     # off the loops by a drift
    full, full_labels = J_tot, labels
    J_tot, labels = J_tot[:, sel.kept], [labels[i] for i in sel.kept]
    choice = "given"
    if dep is None:
        dep, choice = _choose(model, J_tot, labels, q_dep, sel)
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
    sol = ClosureSolution(dep=dep, indep=indep, J_d=J_d, choice=choice, rows=sel)
    if len(sel.dropped):
        _check_dropped(full, full_labels, sol)
    return sol


#: the reference configuration's choice of q_dep is kept at a pose while its
#: J_t^f has a reciprocal condition number above this
RCOND_KEEP_REFERENCE = 1e-8


def _choose(model, J_tot, labels, q_dep, sel):
    """The dependent columns and how they were chosen: made at the robot's
    reference configuration (:attr:`flexpkm.model.build.Model.reference_state`,
    filled once by :func:`flexpkm.build_model`), so that the choice of a pose
    does not depend on the other poses of its batch, unless ``J_t^f`` of that
    choice has a reciprocal condition number below
    :data:`RCOND_KEEP_REFERENCE` at a pose of the batch (or the model has no
    reference state): then at the batch's first pose
    (:func:`flexpkm.algorithms.dependent.choose_dependent`)."""
    state = model.reference_state
    ref = None if q_dep is not None or state is None else state.J_tot
    if ref is not None and ref.shape[0] == sel.kept.size + sel.dropped.size:
        dep, choice = _reference_choice(model, state, labels, sel)
        if dep is not None:
            sv = np.linalg.svd(J_tot[:, :, dep], compute_uv=False)
            if len(dep) == 0 or np.all(sv[:, -1] > RCOND_KEEP_REFERENCE * sv[:, 0]):
                return dep, choice
    return choose_dependent(model, J_tot, labels, q_dep)


def _reference_choice(model, state, labels, sel):
    """``(dep, choice)`` made at the reference configuration for the rows
    ``sel`` kept at this batch: the state's own solution when it kept the
    same rows, else chosen from its ``J_tot`` on these rows; (None, None)
    when singular there."""
    sol = state.solution
    if sol is not None and np.array_equal(np.arange(state.J_tot.shape[0])[sol.kept], sel.kept):
        return sol.dep, sol.choice
    try:
        dep, choice = choose_dependent(model, state.J_tot[None, sel.kept], labels)
    except SingularConfigurationError:
        return None, None
    return dep, f"{choice} at the reference configuration"


def _check_dropped(J_tot, labels, sol):
    """The dropped rows stay redundant at every pose: ``J_dropped J = 0``,
    relative to the largest entry of all rows at that pose (rows that are
    zero up to round-off, as the out-of-plane rows of a mechanism whose axes
    are all parallel, are not judged against their own round-off)."""
    A = J_tot[1:, sol.rows.dropped]                    # pose 0 chose them
    scale = np.maximum(np.abs(J_tot[1:]).max(axis=(1, 2)), 1e-300)
    gap = np.abs(A @ sol.J[1:]).max(axis=(1, 2)) / scale
    bad = 1 + np.flatnonzero(~(gap <= DROPPED_GAP))
    if bad.size:
        raise SingularConfigurationError(
            f"the constraint rows dropped as redundant at pose 0 "
            f"({', '.join(f'{lab}:{comp}' for lab, _, comp in sol.rows.dropped_labels)}) "
            f"are not redundant at pose {bad[0]} (relative gap {gap[bad[0] - 1]:.3g}); "
            f"solve these poses separately", matrix="J_tot")
