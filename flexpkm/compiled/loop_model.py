"""The full model's Newton-Euler products as folds over the chains of a
kernel graph (issue 18, item 1): :func:`loop_model` builds, from a
:class:`flexpkm.compiled.recursive.KernelDynamics` (its symbols, design
vector, kernels), the passes of :mod:`flexpkm.compiled.loops` chain by
chain, on which :mod:`flexpkm.compiled.loop_functions` builds the
simulation's functions (each kernel's C once, a few lines per element of a
refined body for its call; ``tests/compiled/test_loop_model.py``: equal to the flat
ones to 1e-12).
"""
from __future__ import annotations

from dataclasses import dataclass

import casadi as ca
import numpy as np

from flexpkm.compiled import chains as ch
from flexpkm.compiled.loop_jacobian import LoopJacobian
from flexpkm.compiled.loops import LoopKernels
from flexpkm.compiled.symbolic import hat
from flexpkm.compiled.recursive import (FIXED, dependent_solve, joint_terms,
                                        platform_graph, selection_matrix)

X = ca.MX


@dataclass
class LoopModel:
    """The loop passes of one kernel graph ``kd``: ``J_tot`` (c, n_tot) the
    cut joints' velocity rows, ``residual`` (c,), ``J`` (n_tot, n_r, a
    :class:`flexpkm.compiled.loop_jacobian.LoopJacobian`: its products), ``b``
    (n_tot,), ``qd_tot`` (n_tot,), MX of the graph's symbols; :meth:`tau`
    the Newton-Euler products."""

    kd: object
    kernels: LoopKernels
    chains: list
    J_tot: ca.MX
    residual: ca.MX
    J: object
    b: ca.MX
    qd_tot: ca.MX
    motion: list = None
    terms: list = None
    plat: tuple = None
    geo: list = None
    poses: list = None
    acc: tuple = None
    rates: ca.MX = None
    known: dict = None

    def tau(self, Q, bias, cols=1):
        """``tau_tot`` (n_tot, K) for K columns ``Q`` (n_tot, K) of
        ``qdd_tot``: ``M_tot Q`` plus, in the first column when ``bias``,
        the velocity, gravity, spring and friction terms ``c_tot``."""
        kd, model, K = self.kd, self.kd.model, Q.shape[1]
        n_tot, n_t = model.layout.n_tot, model.layout.n_t
        out, self.acc = _bodies_call(self, Q, bias, cols)
        rotor, joints = joint_terms(model, kd.q, self.qd_tot, kd.friction,
                                    ca.fmax(kd.smoothing, 1e-300), design_input(kd),
                                    kd.design_layout,
                                    lambda A, x: self.kernels.sparse_product(A, x, True))
        out = out + ca.mtimes(rotor, Q)
        first = ca.MX(n_tot, K)
        if self.plat is not None:
            _, M_p, c_p, _ = self.plat
            P = X(selection_matrix(n_tot, list(range(n_t, n_tot))).T)
            out = out + ca.mtimes(P, ca.mtimes(M_p, Q[n_t:, :]))
            first = ca.horzcat(ca.mtimes(P, c_p), X(n_tot, K - 1)) if bias else first
        if bias:
            first = first + ca.horzcat(joints, X(n_tot, K - 1))
        return out + first


def _chain_inputs(kd, c, locs, field, src):
    """Per chain the gathered inputs ``field``: 'q' (local coordinates) or
    'const' (the frame kernels' constants), from the ``src`` of
    :func:`_sources`."""
    lay = kd.design_layout
    if field == "const":
        return ch.take(src["p"], [list(range(lay.frames[k].start, lay.frames[k].stop))
                                  for k in c.frames])
    return ch.gather(src["q"], [locs[k] for k in c.frames])


def _sources(kd):
    """The gathers' sources (:func:`flexpkm.compiled.chains.extended`): q
    and the design vector :func:`design_input`."""
    if kd.design is None:
        fixed = np.array(ca.evalf(kd.design_values)).ravel()
    else:
        values = ca.Function("design_values", [kd.design], [kd.design_values])
        fixed = np.array(values(ca.DM.nan(kd.design.shape[0]))).ravel()
    return {"q": ch.extended(kd.q), "p": design_input(kd), "fixed": fixed}


def _common(src, blocks):
    """``((index, value), ...)``: the entries of the design blocks (slices,
    one per frame of a chain) that are constants of the graph with the same
    value in every block (folded into the chain's kernel)."""
    values = np.array([src["fixed"][b.start:b.stop] for b in blocks])
    same = np.all(np.isfinite(values), axis=0) & np.all(values == values[:1], axis=0)
    return tuple((int(i), float(values[0, i])) for i in np.flatnonzero(same))


def design_input(kd):
    """The design vector ``p`` as the loops read it: the graph's symbol when
    it has one, entries taken as constants included (their numbers are the
    input's: the library is keyed by them, :attr:`CompiledRobot.fixed`),
    not ``kd.design_values`` (a product and a sum over all of ``p`` per
    evaluation: 5,404 entries at 8 elements per body on the DualEMPS);
    else the numbers."""
    return kd.design_values if kd.design is None else kd.design


def frame_column(parts, where, k):
    """Frame ``k``'s column of a pass's per-chain outputs ``parts`` (list of
    MX, one (rows, chain length) block per chain), ``where[k] = (chain
    index, position in the chain)``."""
    ci, i = where[k]
    return parts[ci][:, i]


BASE_POSE = (1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0)


def _known(known, field, chains, c):
    """The entries of a pass's output ``field`` that are numbers on the
    parent of chain ``c`` (``base`` when it has none)."""
    return known["base_" + field] if c.parent < 0 else known[field][known["chain"][c.parent]]


def _poses(kd, lk, chains, locs, where, src, known):
    """Pose fold per chain: ``(poses (12, m), geo [d; L_v; L_w] (3 + 6 n, m))``;
    the entries that are numbers in ``known['pose']``, ``known['geo']``."""
    base = X(ca.DM(BASE_POSE))
    poses, geo = [], []
    known.update(pose=[], geo=[], base_pose=tuple(enumerate(map(float, BASE_POSE))))
    for c in chains:
        sigma, n_c, _ = c.kind
        x0 = base if c.parent < 0 else frame_column(poses, where, c.parent)
        fixed = _common(src, [kd.design_layout.frames[k] for k in c.frames])
        F, kout = lk.settled(lk.get("pose", sigma, n_c, fixed),
                             (_known(known, "pose", chains, c), ch.gather_zeros([locs[k] for k in c.frames]),
                              ()), len(c))
        P, G = lk.fold(F, x0, _chain_inputs(kd, c, locs, "q", src),
                       _chain_inputs(kd, c, locs, "const", src))
        poses.append(P)
        geo.append(G)
        known["pose"].append(kout[0])
        known["geo"].append(kout[1])
    return poses, geo


def _ancestors(model, k):
    out = []
    while k >= 0:
        out.append(k)
        k = model.frame_constants[k].antecedent
    return out


def _side_rows(out, lm_parts, C, O_c, k, r):
    """Adds to ``out`` the ``(velocity rows of C)^T`` (n_tot, r) on the
    tree frame ``k``: the blocks of its ancestors (one ``map`` per local size,
    its kernel specialised on the entries of ``L_v``, ``L_w`` that are numbers
    in all of them)."""
    kd, lk, poses, geo, where, locs, known = lm_parts
    model = kd.model
    anc = _ancestors(model, k)
    for n in sorted({len(locs[a]) for a in anc}):
        group = [a for a in anc if len(locs[a]) == n]
        O_a = ca.horzcat(*[frame_column(poses, where, a)[9:12] for a in group])
        L = ca.horzcat(*[frame_column(geo, where, a)[3:] for a in group])
        kL = set.intersection(*[{(i - 3, v) for i, v in known["geo"][known["chain"][a]] if i >= 3}
                                for a in group])
        F, _ = lk.special(lk.get("cut_block", r, n), ((), (), (), tuple(sorted(kL))))
        out.add(lk.mapped(F, len(group), ca.vec(C), O_c, O_a, L), [locs[a] for a in group])


def _cut_states(kd, plat, poses, where, c, block, moving, motion=None):
    """``(R, O, v, w, a, al)`` of the two sides of a closure (zeros for the
    rates unless ``moving``); a platform side by the fixed-frame kernel."""
    model, ks = kd.model, kd.kernels
    z = X.zeros(3)

    def tree(k):
        P = frame_column(poses, where, k)
        R, O = ca.reshape(P[:9], 3, 3), P[9:12]
        if not moving:
            return (R, O, z, z, z, z)
        V = frame_column(motion, where, k)
        return (R, O, V[:3], V[3:6], V[6:9], V[9:12])
    k_side = tree(model.frame_index[c.frame])
    if c.other is not None:
        return k_side, tree(model.frame_index[c.other])
    pf = plat[0]
    pose, mot = ks.frame(FIXED, 0)
    rates = (pf.v, pf.w, pf.a, pf.al) if moving else (z, z, z, z)
    args = (pf.R, pf.O, *rates, 0, 0, X.zeros(0), X.zeros(0), design_input(kd)[block])
    R, O = pose(*args)[:2]
    return k_side, (R, O, *(mot(*args) if moving else (z, z, z, z)))


def _platform_rows(out, kd, C, O_g, P):
    """Adds to ``out`` the ``(velocity rows of C)^T`` (n_tot, r) of a frame
    fixed on the platform."""
    model = kd.model
    n_t, n_tot, dofs = model.layout.n_t, model.layout.n_tot, model.platform.dofs
    S = np.zeros((6, len(dofs)))
    for i, d in enumerate(dofs):
        S[d, i] = 1.0
    S = ca.DM(S)
    Jw = S[3:, :]
    blk = ca.mtimes(C[:, :3], S[:3, :] - ca.mtimes(hat(O_g - P), Jw)) + ca.mtimes(C[:, 3:], Jw)
    out.add(ca.vec(blk.T), [list(range(n_t, n_tot))])


def _closure_rows(kd, parts, plat):
    """``(residual, J_tot)`` of every closure (all rows)."""
    model, lay = kd.model, kd.design_layout
    _, _, poses, _, where, _, _ = parts
    res, rows = [], []
    for c, r, block in zip(model.closures, model.closure_rows, lay.closures):
        ks_, gs = _cut_states(kd, plat, poses, where, c, block, False)
        e, C_k, C_g = kd.kernels.closure(c.joint, r)[0](*ks_, *gs)
        res.append(e)
        T = ch.Scatter(model.layout.n_tot, len(r))
        _side_rows(T, parts, C_k, ks_[1], model.frame_index[c.frame], len(r))
        if c.other is not None:
            _side_rows(T, parts, C_g, gs[1], model.frame_index[c.other], len(r))
        else:
            _platform_rows(T, kd, C_g, gs[1], plat[0].O)
        rows.append(T.result().T)
    return ca.vertcat(*res), ca.vertcat(*rows)


def _motions(kd, lk, chains, locs, where, poses, src, bodies, known):
    """Motion fold per chain at ``qdd = 0`` with the bodies' terms:
    ``(motion [v; w; a; al] (12, m), terms [vec M_j; F_j] or None)``; the
    entries that are numbers in ``known['motion']``, ``known['terms']``."""
    model, lay = kd.model, kd.design_layout
    base = ca.vertcat(X.zeros(6), -kd.g, X.zeros(3))
    base_pose = X(ca.DM(BASE_POSE))
    motion, terms = [], []
    known.update(motion=[], terms=[], base_motion=tuple((i, 0.0) for i in (0, 1, 2, 3, 4, 5, 9,
                                                                             10, 11)))
    for ci, c in enumerate(chains):
        sigma, n_c, n_b = c.kind
        parent = base_pose if c.parent < 0 else frame_column(poses, where, c.parent)
        P = poses[ci]
        U = [ca.horzcat(parent, P[:, :-1]), P, _chain_inputs(kd, c, locs, "q", src),
             ch.gather(src["qd"], [locs[k] for k in c.frames]),
             _chain_inputs(kd, c, locs, "const", src)]
        zeros = ch.gather_zeros([locs[k] for k in c.frames])
        up = _known(known, "pose", chains, c)        # the parent's pose, then the chain's
        kin = [_known(known, "motion", chains, c),
               up if len(c) == 1 else tuple(set(up) & set(known["pose"][ci])),
               known["pose"][ci], zeros, zeros, ()]
        n_inv, fixed = 0, (_common(src, [lay.frames[k] for k in c.frames]), ())
        if n_b >= 0:
            es = [model.body_entries[bodies[k]] for k in c.frames]
            bcols = [ch.body_columns(e) for e in es]
            blocks = [lay.bodies[bodies[k]] for k in c.frames]
            n_inv = blocks[0].stop - blocks[0].start
            fixed = (fixed[0], _common(src, blocks))
            U += [ch.gather(src["q"], bcols), ch.gather(src["qd"], bcols),
                  ch.take(src["p"], [list(range(b.start, b.stop)) for b in blocks])]
            kin += [(), (), ()]
        x0 = base if c.parent < 0 else frame_column(motion, where, c.parent)
        F, kout = lk.settled(lk.get("motion", sigma, n_c, n_b, n_inv, *fixed),
                             [tuple(sorted(k)) for k in kin], len(c))
        out = lk.fold(F, x0, *U)
        motion.append(out[0])
        terms.append(out[1] if n_b >= 0 else None)
        known["motion"].append(kout[0])
        known["terms"].append(kout[1] if n_b >= 0 else ())
    return motion, terms


def _newton_euler(lm, Q, bias):
    """The bodies' part of ``tau_tot`` (n_tot, K): forward fold (linear in
    ``Q``, the bodies' wrenches), backward fold (reverse) per chain."""
    kd, lk, chains = lm.kd, lm.kernels, lm.chains
    model, K = kd.model, Q.shape[1]
    n_tot = model.layout.n_tot
    bodies = ch.frame_bodies(model)
    locs = [ch.local_columns(fc) for fc in model.frame_constants]
    where = _where(chains)
    acc, wrenches, out, Qe = [], [], ch.Scatter(n_tot, K), ch.extended(Q)
    known = dict(lm.known, acc=[], base_acc=tuple((i, 0.0) for i in range(6 * K)))
    kw = []
    for ci, c in enumerate(chains):
        _, n_c, n_b = c.kind
        U = [lm.geo[ci], ch.gather(Qe, [locs[k] for k in c.frames])]
        kin = [_known(known, "acc", chains, c), known["geo"][ci],
               ch.gather_zeros([locs[k] for k in c.frames], K)]
        if n_b >= 0:
            bcols = [ch.body_columns(model.body_entries[bodies[k]]) for k in c.frames]
            U += [lm.poses[ci], lm.terms[ci], ch.gather(Qe, bcols)]
            kin += [known["pose"][ci], known["terms"][ci], ()]
        x0 = X.zeros(6 * K) if c.parent < 0 else frame_column(acc, where, c.parent)
        F, kout = lk.settled(lk.get("forward", n_c, n_b, K, bool(bias)), kin, len(c))
        A, W = lk.fold(F, x0, *U)
        acc.append(A)
        wrenches.append(W)
        known["acc"].append(kout[0])
        kw.append(kout[1])
        if n_b > 0:
            out.add(W[6 * K:, :], bcols)
    ext = {}
    for ci in reversed(range(len(chains))):
        c = chains[ci]
        _, n_c, _ = c.kind
        load = wrenches[ci][:6 * K, :]
        kload = tuple(x for x in kw[ci] if x[0] < 6 * K)
        if any(k in ext for k in c.frames):
            load = load + ca.horzcat(*[ext.get(k, X.zeros(6 * K)) for k in c.frames])
            kload = ()
        F, _ = lk.settled(lk.get("backward", n_c, K),
                          (tuple((i, 0.0) for i in range(6 * K)), kload, known["geo"][ci]),
                          len(c))
        Xb, gen = lk.fold(F, X.zeros(6 * K), load, lm.geo[ci], reverse=True)
        if c.parent >= 0:
            ext[c.parent] = ext.get(c.parent, 0) + Xb[:, 0]
        out.add(gen, [locs[k] for k in c.frames])
    lm.acc = (acc, where)
    return out.result()


def loop_kernels(kd):
    """The :class:`flexpkm.compiled.loops.LoopKernels` of a kernel graph, made
    once and kept by its :class:`flexpkm.compiled.kernels.Kernels` (every
    function of one library then calls the same kernels: their C once)."""
    made = kd.kernels.made
    if "loops" not in made:
        made["loops"] = LoopKernels(kd.kernels)
    return made["loops"]


def _bodies_call(lm, Q, bias, cols=1):
    """``(bodies' part of tau_tot (n_tot, K), (da per chain, where))`` by
    ONE call of an MX function of the loops (:func:`_newton_euler`, made
    once per K and ``bias`` and kept by the kernels; its inputs the per-chain
    poses, geometry and body terms by pointer): the C of the passes once;
    ``cols`` > 1: mapped over ``cols`` blocks of K columns (the mass
    matrix's n_r columns: a C loop, its other inputs copied ``cols`` times,
    ~7,000 numbers at 8 elements per body on the DualEMPS)."""
    lk, K = lm.kernels, Q.shape[1] // cols
    per = [m for ci in range(len(lm.chains)) for m in
           ((lm.geo[ci],) + ((lm.poses[ci], lm.terms[ci]) if lm.terms[ci] is not None else ()))]
    key = ("bodies", K, bool(bias))
    if key not in lk.made:
        syms = [X.sym(f"s{i}", m.sparsity()) for i, m in enumerate(per)]
        inner, it = LoopModel(lm.kd, lk, lm.chains, None, None, None, None, None), iter(syms)
        inner.known = lm.known
        inner.geo, inner.poses, inner.terms = [], [], []
        for ci in range(len(lm.chains)):
            inner.geo.append(next(it))
            has = lm.terms[ci] is not None
            inner.poses.append(next(it) if has else None)
            inner.terms.append(next(it) if has else None)
        Qs = X.sym("Q", lm.kd.model.layout.n_tot, K)
        tau = _newton_euler(inner, Qs, bias)
        acc, _ = inner.acc
        lk.made[key] = ca.Function(f"loop_bodies{K}_{int(bias)}", [Qs] + syms,
                                   [tau, ca.horzcat(*acc)])
    fn = lk.made[key]
    if cols > 1:                           # one column per call, a C loop over them
        if (key, cols) not in lk.made:
            lk.made[key, cols] = fn.map(cols, "serial")
        fn = lk.made[key, cols]
    tau, acc = fn(ca.densify(Q), *per)
    sizes = np.cumsum([0] + [len(c) for c in lm.chains])
    return tau, ([acc[:, int(a):int(b)] for a, b in zip(sizes[:-1], sizes[1:])],
                 _where(lm.chains))


def _where(chains):
    """frame -> (chain index, position in the chain)."""
    return {k: (ci, i) for ci, c in enumerate(chains) for i, k in enumerate(c.frames)}


def loop_model(kd) -> LoopModel:
    """The :class:`LoopModel` of a kernel graph ``kd``
    (:func:`flexpkm.compiled.recursive.kernel_dynamics`). Raises ValueError
    for a frame carrying two bodies (:func:`flexpkm.compiled.chains.frame_bodies`)."""
    model = kd.model
    n_tot = model.layout.n_tot
    lk, chains = loop_kernels(kd), ch.find_chains(model)
    bodies = ch.frame_bodies(model)
    locs = [ch.local_columns(fc) for fc in model.frame_constants]
    where = _where(chains)
    src = _sources(kd)
    known = {"chain": {k: ci for ci, c in enumerate(chains) for k in c.frames}}
    poses, geo = _poses(kd, lk, chains, locs, where, src, known)
    inertia = (None if kd.design_layout.platform is None
               else design_input(kd)[kd.design_layout.platform])
    plat = platform_graph(model, kd.q, X.zeros(n_tot), X.zeros(3), inertia)
    parts = (kd, lk, poses, geo, where, locs, known)
    residual, J_tot = _closure_rows(kd, parts, plat)
    kept = None if kd.kept is None else [int(i) for i in kd.kept]
    J_k = J_tot if kept is None else J_tot[kept, :]
    dep, indep = [int(i) for i in kd.dep], [int(i) for i in kd.indep]
    J = LoopJacobian(n_tot, indep, dep, dependent_solve(     # -A^-1 B: the minus on A^-1
        model, J_k[:, dep], J_k[:, indep], kd.dep, kept,
        lambda A, B: lk.product(-A, B)) if dep else None, lk)
    qd_tot = J.times(kd.qd_r)
    src["qd"] = ch.extended(qd_tot)
    motion, terms = _motions(kd, lk, chains, locs, where, poses, src, bodies, known)
    rates = None if plat is None else plat[3]
    if plat is not None:
        plat = platform_graph(model, kd.q, qd_tot, kd.g, inertia)
    b = X(n_tot, 1)
    if dep:
        bias = []
        for c, r, block in zip(model.closures, model.closure_rows, kd.design_layout.closures):
            ks_, gs = _cut_states(kd, plat, poses, where, c, block, True, motion)
            bias.append(kd.kernels.closure(c.joint, r)[1](*ks_, *gs))
        bprime = ca.vertcat(*bias)
        bprime = bprime if kept is None else bprime[kept]
        b = J.stack(X(len(indep), 1), -dependent_solve(model, J_k[:, dep], bprime, kd.dep, kept))
    return LoopModel(kd, lk, chains, J_tot, residual, J, b, qd_tot, motion, terms, plat, geo,
                     poses, rates=rates, known=known)
