"""The full model (10.123) of one robot as a CasADi ``MX`` graph that CALLS
the kernels of :mod:`flexpkm.compiled.kernels` frame by frame (Steps 1-3
of Section 10.6 with the recursion's structure): the generated C holds
each kernel once and one call per frame, body and cut joint, so that its
size and compile time grow linearly with the number of bodies, and the
products run on the sparse structure of the Jacobians (a frame's columns
are its ancestors').

1. pose pass, frame by frame: ``R_0j``, ``O_j`` and the Jacobians ``Jv_j``,
   ``Jw_j`` (3, n_tot): ``Jv_j = Jv_a - hat(O_j - O_a) Jw_a + L_v E_j``,
   ``Jw_j = Jw_a + L_w E_j`` (E_j selects ``[qd_j; qd_ea]``); the cut
   joints' residual and rows ``J_tot`` (10.107);
2. ``J_d = -(J_t^f)^-1 J_t^0`` (10.110) limb by limb (numeric sparse
   solves at run time, not symbolic ones), ``qd_tot = J qd_r`` (10.114);
3. motion pass: twists and accelerations at ``qdd = 0`` (base acceleration
   ``-g``), ``b'`` and ``b`` (10.117)-(10.119);
4. ``M_tot = sum_j J_xj^T M_j J_xj`` and ``c_tot = sum_j J_xj^T F_j + K q
   + friction`` with ``J_xj = [R_0j^T Jv_j; R_0j^T Jw_j; E_ej]`` (10.80),
   (10.99)-(10.103), the platform's Newton-Euler model (10.101); ``M = J^T
   M_tot J``, ``c = J^T (M_tot b + c_tot)`` (10.123).

The result is a :class:`KernelDynamics`, which the step functions of
:mod:`flexpkm.compiled.step` use like the SX
:class:`flexpkm.compiled.full.SymbolicDynamics` (that one, unrolled, stays for
the design sensitivities).
"""
from __future__ import annotations

from dataclasses import dataclass

import casadi as ca
import numpy as np

from flexpkm.algorithms.closure import row_labels
from flexpkm.algorithms.dependent import limb_blocks
from flexpkm.algorithms.dynamics import r_ordering
from flexpkm.compiled import symbolic as sym
from flexpkm.compiled.design import design_layout, design_vector
from flexpkm.compiled.full import SymbolicDynamics
from flexpkm.compiled.kernels import Kernels
from flexpkm.model.build import build_structure
from flexpkm.model.description import PRISMATIC, REVOLUTE

FIXED = 2


@dataclass
class KernelDynamics(SymbolicDynamics):
    """A :class:`flexpkm.compiled.full.SymbolicDynamics` of MX expressions, with
    per frame the Jacobians ``Jv``, ``Jw`` (3, n_tot) and the acceleration
    ``a_bias`` of O_j at ``qdd_r = 0`` (including ``-g``, m/s^2); its
    ``jacobian``, the exact Jacobian of the loop equations (all rows, n_tot
    columns), is the velocity rows of every cut joint, whose columns of a
    platform's rotation vector are multiplied by ``J_l``; ``design`` the symbol
    ``p`` of the design parameters (:mod:`flexpkm.compiled.design`) when the graph
    takes them as an input, else None (their numbers folded in); ``K_tot``
    (n_tot, n_tot) and ``rotor`` (n_tot,) the stiffness and rotor inertia
    of the graph (from ``p``); ``frames``, ``kernels``, ``platform`` (``(M_p,
    c_p)`` or None), ``threads``, ``design_values`` (``p``: the symbol or the
    numbers) and ``design_layout`` what the recursive Newton-Euler products of
    :mod:`flexpkm.compiled.newton_euler` call again."""

    Jv: list = None
    Jw: list = None
    a_bias: list = None
    design: ca.MX = None
    K_tot: ca.MX = None
    rotor: ca.MX = None
    frames: list = None
    kernels: object = None
    platform: tuple = None
    threads: int = 1
    design_values: ca.MX = None
    design_layout: object = None


@dataclass
class _Frame:
    """One frame of the graph: pose ``R`` (3, 3), ``O`` (3,), Jacobians ``Jv``,
    ``Jw`` (3, n_tot), the inputs ``args`` of its motion kernel ``motion``
    besides the antecedent's, and (motion pass) its twist ``v``, ``w`` and
    acceleration ``a``, ``al`` at ``qdd = 0``, base frame."""

    R: ca.MX
    O: ca.MX
    Jv: ca.MX
    Jw: ca.MX
    args: tuple = ()
    motion: ca.Function = None
    v: ca.MX = None
    w: ca.MX = None
    a: ca.MX = None
    al: ca.MX = None
    L_v: ca.MX = None
    L_w: ca.MX = None


def _selection(n_tot, cols):
    """Constant (len(cols), n_tot) selecting the columns ``cols`` (-1: a zero row)."""
    E = ca.DM(len(cols), n_tot)
    for i, c in enumerate(cols):
        if c >= 0:
            E[i, int(c)] = 1.0
    return ca.sparsify(E)


def _child(ks, parent, sigma, n_e, q_j, q_e, const, cols):
    """The pose of a frame from its antecedent ``parent`` (:meth:`Kernels.frame`)."""
    pose, motion = ks.frame(sigma, n_e)
    zero3 = ca.MX.zeros(3)
    args = (q_j, q_e, const)
    R, O, d, L_v, L_w = pose(parent.R, parent.O, zero3, zero3, zero3, zero3, q_j, 0, q_e,
                             ca.MX.zeros(n_e), const)
    E = _selection(parent.Jv.shape[1], cols)
    Jv = parent.Jv - ca.skew(d) @ parent.Jw + L_v @ E
    Jw = parent.Jw + L_w @ E
    return _Frame(R, O, Jv, Jw, args + (cols,), motion, L_v=L_v, L_w=L_w)


def _move(child, parent, qd):
    """The motion (twist, acceleration at qdd = 0) of ``child`` from its parent's."""
    q_j, q_e, const, cols = child.args
    qd_j = qd[int(cols[0])] if cols[0] >= 0 else 0
    qd_e = qd[[int(c) for c in cols[1:]]] if len(cols) > 1 else ca.MX.zeros(0)
    child.v, child.w, child.a, child.al = child.motion(
        parent.R, parent.O, parent.v, parent.w, parent.a, parent.al, q_j, qd_j, q_e, qd_e, const)


def frame_columns(fc):
    """``(col, elastic columns)`` of a frame's local coordinates ``[q_j;
    q_ea]`` in q_tot: its joint's column (-1: a fixed joint or an
    unnumbered one) and the shape functions' of the body carrying it
    (empty for a rigid one)."""
    col = fc.col if fc.sigma in (REVOLUTE, PRISMATIC) else -1
    ecols = list(range(fc.shapes[0].start, fc.shapes[0].stop)) if fc.shapes is not None else []
    return int(col), ecols


def tree_poses(model, ks, q, base, p, lay):
    """The frames of the tree (list of :class:`_Frame`), pose pass (their
    constants the blocks of the design parameters ``p``, layout ``lay``)."""
    frames = []
    for fc, block in zip(model.frame_constants, lay.frames):
        parent = base if fc.antecedent < 0 else frames[fc.antecedent]
        col, ecols = frame_columns(fc)
        q_j = q[col] if col >= 0 else 0
        q_e = q[ecols] if ecols else ca.MX.zeros(0)
        frames.append(_child(ks, parent, fc.sigma if col >= 0 else FIXED, len(ecols), q_j, q_e,
                             p[block], [col] + ecols))
    return frames


def _platform(model, q, qd, g, inertia):
    """``(frame of P (pose, Jacobians), M_p, c_p, T)`` or None without a
    platform (:func:`flexpkm.compiled.symbolic.platform_dynamics`, one small
    kernel; ``inertia`` its block of the design parameters or None); ``T``
    (n_tot, n_tot) maps d/dq_tot to the velocity coordinates:
    identity but for the rotation-vector block ``J_l``
    (:func:`flexpkm.compiled.symbolic.left_jacobian`)."""
    pl, n_t, n_tot = model.platform, model.layout.n_t, model.layout.n_tot
    if pl is None:
        return None
    n = len(pl.dofs)
    xs, xds, gs = ca.SX.sym("x_p", n), ca.SX.sym("xd_p", n), ca.SX.sym("g", 3)
    ps = ca.SX.sym("inertia", 0 if inertia is None else inertia.shape[0])
    M_p, c_p, R, P, (v, w) = sym.platform_dynamics(model, xs, xds, gs,
                                                   None if inertia is None else ps)
    rot = [k for k, d in enumerate(pl.dofs) if d >= 3]
    r = [ca.SX(0)] * 3
    for k in rot:
        r[pl.dofs[k] - 3] = xs[k]
    axes = [pl.dofs[k] - 3 for k in rot]
    J_l = sym.left_jacobian(ca.vertcat(*r))[axes, axes]
    fn = ca.Function("fk_platform", [xs, xds, gs, ps], ca.cse([M_p, c_p, R, P, v, w, J_l]))
    M_p, c_p, R, P, v, w, J_l = fn(q[n_t:], qd[n_t:], g,
                                   ca.MX(0, 1) if inertia is None else inertia)
    S = np.zeros((6, n_tot))
    for k, d in enumerate(pl.dofs):
        S[d, n_t + k] = 1.0
    frame = _Frame(R, P, ca.MX(ca.sparsify(ca.DM(S[:3]))), ca.MX(ca.sparsify(ca.DM(S[3:]))),
                   v=v, w=w, a=-g, al=ca.MX.zeros(3))     # base acceleration -g
    rates = ca.MX.eye(n_tot)                 # d q_tot / d(velocity coordinates)
    if rot:
        cols = [n_t + k for k in rot]
        P_rot = ca.MX(_selection(n_tot, cols).T)
        rates = ca.MX(ca.sparsify(ca.DM(np.diag([0.0 if i in cols else 1.0
                                                 for i in range(n_tot)])))) + P_rot @ J_l @ P_rot.T
    return frame, M_p, c_p, rates


def _cut_frames(model, ks, frames, plat, p, lay):
    """Per closure ``(k side, g side)`` frames; a platform side is a fixed
    frame on the platform (pose kernel, constants from ``p``)."""
    out = []
    for c, block in zip(model.closures, lay.closures):
        k = frames[model.frame_index[c.frame]]
        if c.other is not None:
            out.append((k, frames[model.frame_index[c.other]]))
            continue
        out.append((k, _child(ks, plat, FIXED, 0, 0, ca.MX.zeros(0), p[block], [-1])))
    return out


def _state(f, moving):
    return (f.R, f.O, f.v, f.w, f.a, f.al) if moving else (f.R, f.O) + (ca.MX.zeros(3),) * 4


def _closures(model, ks, cuts, moving):
    """``(residual, J_tot rows)`` (pose pass) or ``b'`` (``moving``), all rows."""
    res, rows, bias = [], [], []
    for c, r, (k, g) in zip(model.closures, model.closure_rows, cuts):
        pose, motion = ks.closure(c.joint, r)
        args = _state(k, moving) + _state(g, moving)
        if moving:
            bias.append(motion(*args))
            continue
        e, C_k, C_g = pose(*args)
        res.append(e)
        rows.append(C_k @ ca.vertcat(k.Jv, k.Jw) + C_g @ ca.vertcat(g.Jv, g.Jw))
    if moving:
        return ca.vertcat(*bias)
    return ca.vertcat(*res), ca.vertcat(*rows)


def dependent_solve(model, J_f, rhs, dep, kept=None, product=ca.mtimes):
    """``J_f^-1 rhs`` limb by limb (:func:`flexpkm.algorithms.dependent.limb_blocks`;
    one solve otherwise), MX: each block by :func:`block_solve`, its
    ``A^-1 B`` by ``product``."""
    labels = row_labels(model)
    labels = labels if kept is None else [labels[i] for i in kept]
    blocks = limb_blocks(model, labels, dep) or [(np.arange(len(dep)),) * 2]
    out = 0
    for rows, cols in blocks:
        rows, cols = [int(i) for i in rows], [int(i) for i in cols]
        part = block_solve(J_f[rows, cols], rhs[rows, :], product)
        out = out + ca.MX(ca.sparsify(_selection(len(dep), cols)).T) @ part
    return out


def block_solve(A, B, product=ca.mtimes):
    """``A^-1 B`` (MX): ``A^-1`` by a call of a small SX function (CasADi's
    symbolic QR of the block, a limb's few dependent columns; its code does
    not grow with the columns of B), then the product: unlike a
    linear-solver node, it can be expanded (``Function.expand``) into one
    flat SX function, so that the whole model is generated without MX glue
    (:mod:`flexpkm.compiled.modified_newton`)."""
    As = ca.SX.sym("A", A.sparsity())
    inverse = ca.Function("block_inverse", [As], [ca.solve(As, ca.SX.eye(A.shape[0]))])
    return product(inverse(A), B)


def _sparse(n, rows, cols, values):
    """(n, n) MX with the non-zeros ``values`` (MX, column-major order) at
    ``(rows, cols)``."""
    return ca.MX(ca.Sparsity.triplet(n, n, list(rows), list(cols)), values)


def design_matrices(model, p, lay):
    """``(K_tot (n_tot, n_tot), rotor inertia (n_tot, n_tot) diagonal)``,
    MX, on their structural entries, from the design parameters ``p``."""
    n_tot = model.layout.n_tot
    rows, cols = lay.stiffness
    cols_r, sl = lay.rotor
    return (_sparse(n_tot, rows, cols, p[lay.stiffness_slice]),
            _sparse(n_tot, cols_r, cols_r, p[sl]))


def _friction(lay, qd, friction, smoothing, p):
    """``[(column, force)]``: viscous and (smoothed) Coulomb friction
    (:func:`flexpkm.compiled.symbolic.joint_friction`), coefficients from ``p``."""
    (cv, sv), (cc, sc) = lay.viscous, lay.coulomb
    fv, fs = p[sv], p[sc]
    return ([(c, friction * fv[k] * qd[c]) for k, c in enumerate(cv)]
            + [(c, friction * fs[k] * ca.tanh(qd[c] / smoothing)) for k, c in enumerate(cc)])


def body_terms(model, ks, frames, q, qd, p, lay, threads=1):
    """Per body ``(frame, elastic columns, M_j, F_j)``: the body's terms
    (:meth:`Kernels.body`, in F_j, at the frames' motion of the pass at
    ``qdd = 0``), its invariants from the design parameters ``p`` (layout
    ``lay``); with ``threads`` > 1 the bodies of one structure in one call
    of the kernel mapped over them on that many threads (CasADi
    ``map(n, "thread", threads)``: Müller's limbs in parallel)."""
    calls = []
    for e, block in zip(model.body_entries, lay.bodies):
        f = frames[e.frame]
        ecols = list(range(e.elastic.start, e.elastic.stop)) if e.elastic is not None else []
        q_e, qd_e = (q[ecols], qd[ecols]) if ecols else (ca.MX.zeros(0), ca.MX.zeros(0))
        calls.append((f, ecols, (f.R, f.v, f.w, f.a, f.al, q_e, qd_e, p[block])))
    if threads <= 1:
        return [(f, ecols, *ks.body(len(ecols))(*args)) for f, ecols, args in calls]
    out = [None] * len(calls)
    for n_e in sorted({len(c[1]) for c in calls}):
        group = [k for k, c in enumerate(calls) if len(c[1]) == n_e]
        M, F = ks.body(n_e).map(len(group), "thread", threads)(
            *[ca.horzcat(*[calls[k][2][i] for k in group]) for i in range(8)])
        for i, k in enumerate(group):
            out[k] = calls[k][:2] + (M[:, i * (6 + n_e):(i + 1) * (6 + n_e)], F[:, i])
    return out


def tree_dynamics(model, ks, frames, q, qd, friction, smoothing, p, lay, threads=1):
    """``(M_t, c_t)`` over the q_tot columns (n_tot, n_tot), (n_tot,): the
    bodies' terms (:func:`body_terms`) projected, rotor inertia, springs,
    friction (numbers from the design parameters ``p``, layout ``lay``)."""
    n_tot = model.layout.n_tot
    Js, Ms, Fs = [], [], []
    for f, ecols, Mj, Fj in body_terms(model, ks, frames, q, qd, p, lay, threads):
        Js.append(ca.vertcat(f.R.T @ f.Jv, f.R.T @ f.Jw, ca.MX(_selection(n_tot, ecols))))
        Ms.append(Mj)
        Fs.append(Fj)
    J = ca.vertcat(*Js)                   # the stacked bodies (10.80): two sparse products
    M = J.T @ (ca.diagcat(*Ms) @ J)
    c = J.T @ ca.vertcat(*Fs)
    rotor, joint_forces = joint_terms(model, q, qd, friction, smoothing, p, lay)
    if rotor.nnz():
        M = M + rotor
    return M, c + joint_forces


def joint_terms(model, q, qd, friction, smoothing, p, lay, transpose_times=None):
    """``(rotor MX (n_tot, n_tot) diagonal, forces MX (n_tot,))``: the rotor
    inertia of ``M_t`` and the springs ``K_tot q`` (the joints' springs and
    the bodies' ``K_ee``) and friction, numbers from the design parameters
    ``p`` (layout ``lay``, :func:`design_matrices`, :func:`_friction`);
    ``transpose_times(K, q)``: ``K^T q`` (default CasADi's)."""
    n_tot = model.layout.n_tot
    K, rotor = design_matrices(model, p, lay)
    c = K.T @ q if transpose_times is None else transpose_times(K, q)
    forces = _friction(lay, qd, friction, smoothing, p)
    if forces:
        cols, values = zip(*forces)
        c = c + ca.MX(_selection(n_tot, cols).T) @ ca.vertcat(*values)
    return rotor, c


def kernel_dynamics(model, dep, kept=None, parametric=False, threads=1,
                    fixed=None) -> KernelDynamics:
    """The full model (10.123) as MX expressions for the dependent columns
    ``dep`` and the independent constraint rows ``kept`` (as
    :func:`flexpkm.compiled.full.symbolic_dynamics`, same symbols and
    outputs); ``parametric``: the design parameters are a symbol ``p`` of
    the expressions (:func:`flexpkm.compiled.design.design_vector` is its
    value for ``model``), else the model's numbers, folded in; ``threads``:
    the bodies' kernels on that many threads (:func:`body_terms`);
    ``fixed``: ``(indices, values)`` of ``p`` taken as constants on a
    parametric graph (:func:`flexpkm.compiled.design.fixed_entries`; the
    symbol keeps its size, those entries are not read)."""
    model = build_structure(model)
    lay = design_layout(model)
    X_p = ca.MX.sym("p", lay.size) if parametric else None
    p = X_p if parametric else ca.MX(ca.DM(design_vector(model)))
    if parametric and fixed is not None and len(fixed[0]):
        free = sorted(set(range(lay.size)) - set(fixed[0]))
        const = ca.DM.zeros(lay.size)
        const[list(fixed[0])] = ca.DM(list(fixed[1]))
        p = ca.MX(_selection(lay.size, free).T) @ X_p[free] + const
    layout = model.layout
    n_t, n_tot = layout.n_t, layout.n_tot
    dep = np.asarray(dep, dtype=int)
    indep, n_a = r_ordering(model, [i for i in range(n_tot) if i not in set(dep.tolist())])
    n_r = len(indep)
    X = ca.MX
    q, qd_r = X.sym("q", n_tot), X.sym("qd_r", n_r)
    g, friction, smoothing = X.sym("g", 3), X.sym("friction"), X.sym("smoothing")
    ks = Kernels()
    zeroJ = X(3, n_tot)
    base = _Frame(X.eye(3), X.zeros(3), zeroJ, zeroJ, v=X.zeros(3), w=X.zeros(3), a=-g,
                  al=X.zeros(3))
    inertia = None if lay.platform is None else p[lay.platform]
    frames = tree_poses(model, ks, q, base, p, lay)
    plat = _platform(model, q, X.zeros(n_tot), X.zeros(3), inertia)   # its pose (motion later)
    cuts = _cut_frames(model, ks, frames, plat[0] if plat else None, p, lay)
    residual, J_tot = _closures(model, ks, cuts, moving=False)
    jacobian = J_tot if plat is None else J_tot @ plat[3]      # d residual / d q_tot
    if kept is not None:
        kept = [int(i) for i in kept]
    J_k = J_tot if kept is None else J_tot[kept, :]
    J = X(_selection(n_tot, indep).T)
    J_d = None
    if len(dep):
        P_dep = X(ca.sparsify(_selection(n_tot, dep).T))
        J_d = -dependent_solve(model, J_k[:, dep.tolist()], J_k[:, [int(i) for i in indep]],
                               dep, kept)
        J = J + P_dep @ J_d
    qd_tot = J @ qd_r
    for k, fc in enumerate(model.frame_constants):
        _move(frames[k], base if fc.antecedent < 0 else frames[fc.antecedent], qd_tot)
    if plat is not None:
        plat = _platform(model, q, qd_tot, g, inertia)
        for c, (_, gside) in zip(model.closures, cuts):
            if c.other is None:
                _move(gside, plat[0], qd_tot)
    bprime = _closures(model, ks, cuts, moving=True)
    bprime = bprime if kept is None else bprime[kept]
    b = X(n_tot, 1)
    if len(dep):
        b = -P_dep @ dependent_solve(model, J_k[:, dep.tolist()], bprime, dep, kept)
    M_tot, c_tot = tree_dynamics(model, ks, frames, q, qd_tot, friction, ca.fmax(smoothing, 1e-300),
                                 p, lay, threads)
    if plat is not None:
        _, M_p, c_p, _ = plat
        P_p = X(ca.sparsify(_selection(n_tot, list(range(n_t, n_tot))).T))
        M_tot = M_tot + P_p @ M_p @ P_p.T
        c_tot = c_tot + P_p @ c_p
    M = J.T @ M_tot @ J
    c = J.T @ (M_tot @ b + c_tot)
    K_p, rotor = design_matrices(model, p, lay)
    return KernelDynamics(q, qd_r, g, friction, smoothing, M, c, J, b, J_k, residual, qd_tot,
                       [f.R for f in frames], [f.O for f in frames], M_tot, c_tot,
                       np.asarray(indep), dep, n_a, model, kept,
                       Jv=[f.Jv for f in frames], Jw=[f.Jw for f in frames],
                       a_bias=[f.a for f in frames], jacobian=jacobian, design=X_p,
                       K_tot=K_p, rotor=rotor, frames=frames, kernels=ks,
                       platform=None if plat is None else plat[1:3], threads=threads,
                       design_values=p, design_layout=lay)


def point_acceleration(model, full: KernelDynamics, qdd_r, frame, axis_frame=None, axis=None):
    """Absolute acceleration (MX (3,) base frame, m/s^2) of the origin of
    ``frame`` for ``qdd_r`` (n_r,): ``Jv_j (J qdd_r + b) + a_j + g``
    (:func:`flexpkm.algorithms.dynamics.point_acceleration`, same arguments;
    ``full`` the kernel graph), or its component along ``axis`` of
    ``axis_frame``."""
    km = full
    j = model.frame_index[frame]
    a = km.Jv[j] @ (km.J @ qdd_r + km.b) + km.a_bias[j] + km.g
    if axis_frame is None:
        return a
    return ca.dot(a, km.R[model.frame_index[axis_frame]] @ ca.DM(np.asarray(axis, float)))


#: the graph's steps under public names, for the per-limb graph of
#: :mod:`flexpkm.compiled.limbs` (one frame, its child, the platform's pose
#: and terms, the cut frames and their rows, a selection matrix)
GraphFrame, child_frame, platform_graph, cut_frames, closure_equations, selection_matrix = (
    _Frame, _child, _platform, _cut_frames, _closures, _selection)
