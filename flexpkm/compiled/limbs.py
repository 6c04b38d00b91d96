"""Limbs in parallel (Müller, Section 8.2, Fig. 13; issue 18 item 2): the
modal function of :mod:`flexpkm.compiled.modal` built from ONE generated
function per limb type, mapped over the robot's identical limbs with CasADi
``map(n_limbs, "thread", threads)`` (pthreads in the generated C).

A limb is the set of frames of one ``leg`` of the description (every frame
of the tree has one, the limb rooted at the base). Its function takes the
limb's coordinates ``q_l`` (its frames' joint and elastic columns, in
q_tot order) and its blocks of the design parameters ``p_l``
(:mod:`flexpkm.compiled.design`) and gives, in its local columns, every
frame's pose and Jacobians ``Jv``, ``Jw`` (3, n_l) (the pose pass of
:mod:`flexpkm.compiled.recursive`) and the limb's block of ``M_tot`` at
rest (the bodies' generalized Newton-Euler mass matrices (10.61) projected,
(10.80)). Two limbs share the function when their structure (joint types,
shape-function counts, local columns) is the same, as the three legs of the
Delta and of the NaVARo. The robot level then places the blocks
(``E_l^T M_l E_l``), adds the rotor inertia and the platform (10.101), and
runs the cut joints and ``J_d`` (:func:`limb_modal_terms`); the products
of the modal function follow (:func:`flexpkm.compiled.modal.limb_modal_graph`):
the same outputs, to round-off.

Measured (benchmarks/bench_scaling.py ``--threads``, docs/modal_scaling.md):
on this shared 2-core machine at a load of 11, 1 -> 2 threads gave 1.17x
(Delta), 1.29x (NaVARo) and 0.63x (NaVARo N = 2) in wall time for 25-40 %
more CPU: an option, not the default.
"""
from __future__ import annotations

from dataclasses import dataclass

import casadi as ca
import numpy as np

from flexpkm.compiled.design import design_layout
from flexpkm.compiled.kernels import Kernels
from flexpkm.compiled.recursive import (FIXED, GraphFrame, child_frame, closure_equations,
                                        cut_frames, dependent_solve, design_matrices,
                                        frame_columns, platform_graph, selection_matrix)
from flexpkm.errors import BackendUnavailableError


@dataclass(frozen=True)
class LimbBlock:
    """One limb: its frames (indices of ``model.frame_constants``), bodies
    (indices of ``model.body_entries``), q_tot columns ``cols`` (sorted) and
    the slices of ``p`` it reads (frames', then bodies'); ``signature`` is
    what its generated function depends on (equal for identical limbs)."""

    leg: str
    frames: tuple
    bodies: tuple
    cols: tuple
    blocks: tuple
    signature: tuple


def limb_partition(model) -> list:
    """The :class:`LimbBlock` of every leg of ``model`` (a built model), in
    the order of their first frame. Raises :class:`BackendUnavailableError`
    when a frame has no leg or hangs from another leg's frame."""
    lay = design_layout(model)
    legs = [f.leg for f in model.robot.frames]
    if not legs or any(not leg for leg in legs):
        raise BackendUnavailableError("limbs", f"{model.name} has frames without a leg")
    order = list(dict.fromkeys(legs))
    out = []
    for leg in order:
        idx = [k for k, g in enumerate(legs) if g == leg]
        fcs = [model.frame_constants[k] for k in idx]
        if any(fc.antecedent >= 0 and legs[fc.antecedent] != leg for fc in fcs):
            raise BackendUnavailableError("limbs", f"leg {leg} of {model.name} hangs "
                                          "from another leg")
        bodies = [b for b, e in enumerate(model.body_entries) if e.frame in set(idx)]
        cols = sorted({c for fc in fcs for c in [frame_columns(fc)[0]] + frame_columns(fc)[1]
                       if c >= 0})
        local = {c: i for i, c in enumerate(cols)}
        where = {k: i for i, k in enumerate(idx)}
        sig_f = tuple((where.get(fc.antecedent, -1), int(fc.sigma) if frame_columns(fc)[0] >= 0
                       else FIXED, local.get(frame_columns(fc)[0], -1),
                       tuple(local[c] for c in frame_columns(fc)[1])) for fc in fcs)
        sig_b = tuple((where[model.body_entries[b].frame],
                       tuple(local[c] for c in _elastic(model.body_entries[b]))) for b in bodies)
        blocks = tuple(lay.frames[k] for k in idx) + tuple(lay.bodies[b] for b in bodies)
        sizes = tuple(b.stop - b.start for b in blocks)
        out.append(LimbBlock(leg, tuple(idx), tuple(bodies), tuple(cols), blocks,
                             (sig_f, sig_b, len(cols), sizes)))
    return out


def _elastic(entry):
    return list(range(entry.elastic.start, entry.elastic.stop)) if entry.elastic is not None else []


def limb_function(model, ks, limb: LimbBlock) -> ca.Function:
    """``(q_l (n_l,), p_l) -> (R (3, 3K), O (3, K), Jv (3, K n_l), Jw (3, K
    n_l), M_l (n_l, n_l))`` of ``limb`` (K frames): its frames' poses and
    Jacobians over its columns, and its block of ``M_tot`` at rest (kg, kg m,
    kg m^2; base frame for the poses, body frames for ``M_j``)."""
    n_l = len(limb.cols)
    local = {c: i for i, c in enumerate(limb.cols)}
    q, p = ca.MX.sym("q_l", n_l), ca.MX.sym("p_l", sum(b.stop - b.start for b in limb.blocks))
    parts, k = [], 0
    for b in limb.blocks:
        parts.append(p[k:k + b.stop - b.start])
        k += b.stop - b.start
    zero = ca.MX(3, n_l)
    base = GraphFrame(ca.MX.eye(3), ca.MX.zeros(3), zero, zero)
    frames = {}
    for j, k in enumerate(limb.frames):
        fc = model.frame_constants[k]
        col, ecols = frame_columns(fc)
        cols = [local.get(col, -1)] + [local[c] for c in ecols]
        q_j = q[cols[0]] if col >= 0 else 0
        q_e = q[cols[1:]] if ecols else ca.MX.zeros(0)
        parent = frames.get(fc.antecedent, base)
        frames[k] = child_frame(ks, parent, fc.sigma if col >= 0 else FIXED, len(ecols), q_j,
                                q_e, parts[j], cols)
    Js, Ms, z3 = [], [], ca.MX.zeros(3)
    for i, b in enumerate(limb.bodies):
        e = model.body_entries[b]
        f, ecols = frames[e.frame], [local[c] for c in _elastic(e)]
        n_e = len(ecols)
        q_e = q[ecols] if ecols else ca.MX.zeros(0)
        M_j, _ = ks.body(n_e)(f.R, z3, z3, z3, z3, q_e, ca.MX.zeros(n_e),
                              parts[len(limb.frames) + i])
        Js.append(ca.vertcat(f.R.T @ f.Jv, f.R.T @ f.Jw, ca.MX(selection_matrix(n_l, ecols))))
        Ms.append(M_j)
    J = ca.vertcat(*Js)
    M_l = J.T @ (ca.diagcat(*Ms) @ J) if Js else ca.MX(n_l, n_l)
    fs = [frames[k] for k in limb.frames]
    return ca.Function(f"limb_{limb.leg}", [q, p],
                       [ca.horzcat(*[f.R for f in fs]), ca.horzcat(*[f.O for f in fs]),
                        ca.horzcat(*[f.Jv for f in fs]), ca.horzcat(*[f.Jw for f in fs]), M_l],
                       ["q_l", "p_l"], ["R", "O", "Jv", "Jw", "M_l"])


def limb_frames(model, ks, q, p, threads=1):
    """``(frames, M_tree)``: every frame of the tree (list of
    :class:`flexpkm.compiled.recursive.GraphFrame`, global columns) and the
    limbs' part of ``M_tot`` (n_tot, n_tot), from one generated function
    per limb type mapped over its limbs (``threads`` > 1: CasADi
    ``map(n, "thread", threads)``; else ``"serial"``)."""
    n_tot = model.layout.n_tot
    frames = [None] * len(model.frame_constants)
    M = ca.MX(n_tot, n_tot)
    groups = {}
    for limb in limb_partition(model):
        groups.setdefault(limb.signature, []).append(limb)
    for limbs in groups.values():
        fn = limb_function(model, ks, limbs[0])
        L, K, n_l = len(limbs), len(limbs[0].frames), len(limbs[0].cols)
        mapped = fn.map(L, "thread", threads) if threads > 1 else fn.map(L, "serial")
        R, O, Jv, Jw, M_l = mapped(ca.horzcat(*[q[list(lb.cols)] for lb in limbs]),
                                   ca.horzcat(*[ca.vertcat(*[p[b] for b in lb.blocks])
                                                for lb in limbs]))
        for i, lb in enumerate(limbs):
            E = ca.MX(selection_matrix(n_tot, list(lb.cols)))
            for j, k in enumerate(lb.frames):
                c = (i * K + j) * n_l
                frames[k] = GraphFrame(R[:, 3 * (i * K + j):3 * (i * K + j + 1)],
                                       O[:, i * K + j], Jv[:, c:c + n_l] @ E,
                                       Jw[:, c:c + n_l] @ E)
            M = M + E.T @ M_l[:, i * n_l:(i + 1) * n_l] @ E
    return frames, M


def limb_modal_terms(cm, threads=1) -> dict:
    """The terms the modal function is made of
    (:func:`flexpkm.compiled.modal.modal_outputs`), with the tree's pose pass
    and mass blocks evaluated limb by limb (:func:`limb_frames`): MX
    expressions of the symbols ``q`` (n_tot,) (elastic entries ignored) and
    ``p`` (the design parameters): ``J`` (n_tot, n_r), ``M_tot``, ``K_tot``,
    ``rotor`` (the actuated joints' rotor inertia, list), ``J_f``,
    ``residual`` (all rows: the modal robots have no redundant one)."""
    model = cm.model
    lay = design_layout(model)
    n_tot, n_t = model.layout.n_tot, model.layout.n_t
    q_in, p = ca.MX.sym("q", n_tot), ca.MX.sym("p", lay.size)
    elastic = {i for sl in model.layout.elastic_slice.values() for i in range(sl.start, sl.stop)}
    q = ca.vertcat(*[0 if i in elastic else q_in[i] for i in range(n_tot)])
    ks = Kernels()
    frames, M_tot = limb_frames(model, ks, q, p, threads)
    K_tot, rotor = design_matrices(model, p, lay)
    M_tot = M_tot + rotor
    inertia = None if lay.platform is None else p[lay.platform]
    plat = platform_graph(model, q, ca.MX.zeros(n_tot), ca.MX.zeros(3), inertia)
    if plat is not None:
        P_p = ca.MX(ca.sparsify(selection_matrix(n_tot, list(range(n_t, n_tot))).T))
        M_tot = M_tot + P_p @ plat[1] @ P_p.T
    residual, J_tot = closure_equations(model, ks, cut_frames(
        model, ks, frames, plat[0] if plat else None, p, lay), moving=False)
    dep, indep = cm.dep.tolist(), [int(i) for i in cm.indep]
    J = ca.MX(selection_matrix(n_tot, indep).T)
    if dep:
        J_d = -dependent_solve(model, J_tot[:, dep], J_tot[:, indep], cm.dep)
        J = J + ca.MX(ca.sparsify(selection_matrix(n_tot, dep).T)) @ J_d
    return dict(q=q_in, p=p, J=J, M_tot=M_tot, K_tot=K_tot,
                rotor=[rotor[i, i] for i in model.layout.actuated], J_f=J_tot[:, dep],
                residual=residual)
