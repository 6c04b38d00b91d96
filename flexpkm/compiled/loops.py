"""The simulation's Newton-Euler model as LOOPS over chains of identical
frames (issue 18, item 1): the generated C holds each fused kernel's body
once and calls it for each frame of each :class:`flexpkm.compiled.chains.Chain`
(:meth:`LoopKernels.fold`: one call statement of a few lines per frame, its
inputs read in place; ``map`` over a cut frame's ancestors), so that its
size grows with the elements of a refined body by a few lines each, not by
their expanded expressions.

Same model as :func:`flexpkm.compiled.modified_newton.model_function` (the
recursive Newton-Euler products of :mod:`flexpkm.compiled.newton_euler` on
the kernel graph of :mod:`flexpkm.compiled.recursive`), with the same
kernels (:class:`flexpkm.compiled.kernels.Kernels`) composed on SX symbols
into one fused SX kernel per step and frame type ``(sigma, n_c, n_b)``:

1. pose fold: parent pose -> ``R_j``, ``O_j``, ``d_j = O_j - O_a``, ``L_v``, ``L_w``;
2. the cut joints' rows ``J_tot`` without per-frame Jacobians: the column
   block of an ancestor frame a of a cut frame c is ``C_v (L_v,a - hat(O_c -
   O_a) L_w,a) + C_w L_w,a`` (a ``map`` over the ancestors), ``C = [C_v,
   C_w]`` the cut kernel's velocity rows; ``J_d`` limb by limb
   (:func:`flexpkm.compiled.recursive.dependent_solve`), ``b`` (10.119);
3. motion fold at ``qdd = 0`` (twist, acceleration; base acceleration
   ``-g``) with the body's ``M_j``, ``F_j`` (:meth:`Kernels.body`);
4. Newton-Euler forward fold, linear in K columns of ``qdd_tot`` (the first
   with the velocity and gravity terms when ``bias``), with the body
   wrenches; backward fold (reverse) projecting the subtree wrenches on
   ``[q_j; q_ea]``.

The MX graph around the folds only gathers and scatters (index copies,
:mod:`flexpkm.compiled.chains`) and holds the platform and cut-joint calls.
"""
from __future__ import annotations

import casadi as ca

from flexpkm.compiled import symbolic as sym

SX = ca.SX
FLAT_PRODUCT = 500     # multiply-adds of a product generated flat (C lines alike)
SPECIAL_GAIN = 0.2     # share of a kernel's operations a specialisation must save


def _pose_args(x):
    return ca.reshape(x[:9], 3, 3), x[9:12]


def _geometry(u, k, n):
    """``(d (3,), L_v (3, n), L_w (3, n))`` packed at ``u[k:]`` as the pose
    kernel's second output ``[d; vec L_v; vec L_w]``."""
    return (u[k:k + 3], ca.reshape(u[k + 3:k + 3 + 3 * n], 3, n),
            ca.reshape(u[k + 3 + 3 * n:k + 3 + 6 * n], 3, n))


def _inputs(*sizes):
    """``(symbols, u)``: one SX input per part of the packed step input
    ``u`` (their concatenation), so that the MX graph passes the parts as
    they are (an MX vertcat of matrices is two transposes and a copy)."""
    parts = [SX.sym(f"u{i}", n) for i, n in enumerate(sizes)]
    return parts, ca.vertcat(*parts)


def _folded(v, fixed):
    """The SX vector ``v`` with its entries ``fixed`` (``((index, value),
    ...)``) replaced by their numbers: the kernels then simplify on them
    (zeros and +-1 of the constants shared by every frame of a chain)."""
    if not fixed:
        return v
    out = [v[i] for i in range(v.shape[0])]
    for i, value in fixed:
        out[i] = SX(value)
    return ca.vertcat(*out)


def _function(name, ins, outs):
    """The kernel ``name``, its outputs dense (no projections around the calls)."""
    return ca.Function(name, ins, [ca.densify(o) for o in ca.cse(outs)])


def constants(v):
    """``((index, value), ...)``: the entries of the SX vector ``v`` that
    are numbers (after CasADi's simplification of its graph)."""
    return tuple((i, float(ca.evalf(v[i]))) for i in range(v.numel()) if v[i].is_constant())


def _fold(F, m, reverse=False):
    """The fold of ``F`` over m columns (from the last one when ``reverse``)
    as an MX function of the m calls, whose inputs' columns are read in
    place: its C holds one call statement per column and F's body once
    (CasADi's ``mapaccum``, a C loop, copied the small inputs, and reversing
    inputs and outputs around it copied them all)."""
    x0 = x = ca.MX.sym("x", F.sparsity_in(0))
    U = [ca.MX.sym(f"u{i}", F.size1_in(i), m) for i in range(1, F.n_in())]
    outs = [[None] * m for _ in range(F.n_out())]
    for i in (reversed(range(m)) if reverse else range(m)):
        res = F.call([x] + [u[:, i] for u in U])
        for j, r in enumerate(res):
            outs[j][i] = r
        x = res[0]
    return ca.Function(f"{F.name()}_{'r' if reverse else 'x'}{m}", [x0] + U,
                       [ca.horzcat(*o) for o in outs])


class LoopKernels:
    """The fused per-step kernels of one graph (SX Functions by structure),
    built from the graph's :class:`flexpkm.compiled.kernels.Kernels`."""

    def __init__(self, ks):
        self.ks, self.made = ks, {}

    def get(self, kind, *key):
        if (kind,) + key not in self.made:
            self.made[(kind,) + key] = getattr(self, "_" + kind)(*key)
        return self.made[(kind,) + key]

    def _pose(self, sigma, n_c, fixed=()):
        """``([R_a; O_a] (12), [q_loc; const]) -> ([R_j; O_j], [d; L_v; L_w])``."""
        pose = self.ks.frame(sigma, n_c)[0]
        n_k = 13 + 6 * n_c
        x, (us, u), z = SX.sym("x", 12), _inputs(1 + n_c, n_k), SX.zeros(3)
        R, O, d, L_v, L_w = pose(*_pose_args(x), z, z, z, z, u[0], 0, u[1:1 + n_c],
                                 SX.zeros(n_c), _folded(u[1 + n_c:], fixed))
        return _function(f"loop_pose{sigma}_{n_c}_{len(self.made)}", [x, *us],
                         [ca.vertcat(ca.vec(R), O), ca.vertcat(d, ca.vec(L_v), ca.vec(L_w))])

    def _motion(self, sigma, n_c, n_b, n_inv, fixed=(), fixed_inv=()):
        """``([v; w; a; al] of the parent, [parent pose; pose; q_loc; qd_loc;
        const; q_b; qd_b; inv]) -> ([v; w; a; al], [vec M_j; F_j])``."""
        motion = self.ks.frame(sigma, n_c)[1]
        n, n_k, b = 1 + n_c, 13 + 6 * n_c, max(n_b, 0)
        x = SX.sym("x", 12)
        us, u = _inputs(12, 12, n, n, n_k, *((b, b, n_inv) if n_b >= 0 else ()))
        q, qd, k = u[24:24 + n], u[24 + n:24 + 2 * n], 24 + 2 * n
        v, w, a, al = motion(*_pose_args(u[:12]), x[:3], x[3:6], x[6:9], x[9:12], q[0], qd[0],
                             q[1:], qd[1:], _folded(u[k:k + n_k], fixed))
        outs = [ca.vertcat(v, w, a, al)]
        if n_b >= 0:
            k += n_k
            M, F = self.ks.body(n_b)(ca.reshape(u[12:21], 3, 3), v, w, a, al, u[k:k + b],
                                      u[k + b:k + 2 * b], _folded(u[k + 2 * b:], fixed_inv))
            outs.append(ca.vertcat(ca.vec(M), F))
        return _function(f"loop_motion{sigma}_{n_c}_{n_b + 1}_{len(self.made)}", [x, *us], outs)

    def _forward(self, n_c, n_b, K, bias):
        """``([da; dal] (6, K) of the parent, [d; L_v; L_w; qdd_loc; pose;
        M_j; F_j; qdd_b]) -> ([da; dal], [f; n] (6, K) base frame about O_j
        and F_e (n_b, K))``: the accelerations' part linear in ``qdd`` and
        the body's wrench (its velocity terms F_j in the first column when
        ``bias``)."""
        n, b = 1 + n_c, max(n_b, 0)
        x = SX.sym("x", 6 * K)
        us, u = _inputs(3 + 6 * n, n * K, *((12, (6 + b) ** 2 + 6 + b, b * K) if n_b >= 0 else ()))
        acc = ca.reshape(x, 6, K)
        d, L_v, L_w = _geometry(u, 0, n)
        k = 3 + 6 * n
        qdd = ca.reshape(u[k:k + n * K], n, K)
        k += n * K
        da = acc[:3, :] - ca.mtimes(sym.hat(d), acc[3:, :]) + ca.mtimes(L_v, qdd)
        dal = acc[3:, :] + ca.mtimes(L_w, qdd)
        if n_b < 0:
            wrench = SX.zeros(6 * K)
        else:
            R = ca.reshape(u[k:k + 9], 3, 3)
            k += 12
            M = ca.reshape(u[k:k + (6 + b) ** 2], 6 + b, 6 + b)
            k += (6 + b) ** 2
            F = u[k:k + 6 + b]
            qdd_b = ca.reshape(u[k + 6 + b:], b, K)
            W = ca.mtimes(M, ca.vertcat(ca.mtimes(R.T, da), ca.mtimes(R.T, dal), qdd_b))
            if bias:
                W[:, 0] = W[:, 0] + F
            wrench = ca.vertcat(ca.vec(ca.vertcat(ca.mtimes(R, W[:3, :]), ca.mtimes(R, W[3:6, :]))),
                                ca.vec(W[6:, :]))
        return _function(f"loop_forward{n_c}_{n_b + 1}_{K}_{int(bias)}", [x, *us],
                         [ca.vec(ca.vertcat(da, dal)), wrench])

    def _backward(self, n_c, K):
        """``([f; n] (6, K) from the chain's child about O_j, [load (6, K); d;
        L_v; L_w]) -> ([f; n + d x f] about O_a, L_v^T f + L_w^T n)``."""
        n = 1 + n_c
        x = SX.sym("x", 6 * K)
        us, u = _inputs(6 * K, 3 + 6 * n)
        W = ca.reshape(x + u[:6 * K], 6, K)
        k = 6 * K
        d, L_v, L_w = _geometry(u, k, n)
        f, m = W[:3, :], W[3:, :]
        out = ca.vertcat(f, m + ca.mtimes(sym.hat(d), f))
        gen = ca.mtimes(L_v.T, f) + ca.mtimes(L_w.T, m)
        return _function(f"loop_backward{n_c}_{K}", [x, *us], [ca.vec(out), ca.vec(gen)])

    def _cut_block(self, r, n):
        """``(C (r, 6), O_c, O_a, L_v, L_w (3, n)) -> (r, n)``: an ancestor's
        block of a cut frame's velocity rows."""
        us, u = _inputs(6 * r, 3, 3, 6 * n)
        C = ca.reshape(u[:6 * r], r, 6)
        O_c, O_a = u[6 * r:6 * r + 3], u[6 * r + 3:6 * r + 6]
        L_v = ca.reshape(u[6 * r + 6:6 * r + 6 + 3 * n], 3, n)
        L_w = ca.reshape(u[6 * r + 6 + 3 * n:], 3, n)
        blk = (ca.mtimes(C[:, :3], L_v - ca.mtimes(sym.hat(O_c - O_a), L_w))
               + ca.mtimes(C[:, 3:], L_w))
        return _function(f"loop_cut{r}_{n}", us, [ca.vec(blk.T)])

    def product(self, A, B, transpose=False):
        """``A B`` (``A^T B`` when ``transpose``), MX, by the flat kernel
        :meth:`_product` (A densified) on blocks of ``w`` columns of B, ``w
        m k`` <= ``FLAT_PRODUCT`` multiply-adds: one call for B's
        columns when they fit (J_d's products with the Newton correction's
        and the recorder's few columns), else a ``map`` over the blocks (A
        not repeated) and one call for the last columns (J_d = -A^-1 B, 5 x
        5 x 74 at 8 elements per body; the mass matrix's n_r columns);
        CasADi's product when one column of B is already too many
        (Gough-Stewart: J_d 18 x 42). CasADi's ``casadi_mtimes_dense``
        costs ~10 machine instructions per multiply-add, the flat code ~2."""
        (m, k), n = A.shape, B.shape[1]
        if n == 0:
            return ca.MX(k if transpose else m, 0)
        if m * k > FLAT_PRODUCT:             # one column too big for flat code
            return ca.mtimes(A.T if transpose else A, B)
        A, B = ca.densify(A), ca.densify(B)
        w = min(n, FLAT_PRODUCT // max(m * k, 1))
        blocks, rest = divmod(n, w)
        F = self.get("product", m, k, w, bool(transpose))
        if blocks == 1:
            out = [F(A, B[:, :w])]
        else:
            key = ("map", F.name(), blocks)
            if key not in self.made:
                self.made[key] = F.map(f"{F.name()}_map{blocks}", "serial", blocks, [0], [])
            out = [self.made[key](A, B[:, :blocks * w])]
        if rest:
            out.append(self.get("product", m, k, rest, bool(transpose))(A, B[:, blocks * w:]))
        return ca.horzcat(*out)

    def sparse_product(self, A, x, transpose=False):
        """``A x`` (``A^T x`` when ``transpose``) for a sparse MX ``A`` (its
        non-zeros read as they are) by a flat kernel on A's pattern (the
        springs ``K_tot q``: a runtime transpose and sparse product cost
        ~20 machine instructions per non-zero)."""
        key = ("sparse_product", A.sparsity().hash(), A.shape, x.shape, bool(transpose))
        if key not in self.made:
            As, xs = SX.sym("A", A.sparsity()), SX.sym("x", x.shape)
            self.made[key] = _function(f"loop_sparse_product{len(self.made)}", [As, xs],
                                       [ca.mtimes(As.T if transpose else As, xs)])
        return self.made[key](A, ca.densify(x))

    def _product(self, m, k, n, transpose):
        """``(A (m, k), B) -> A B`` (``A^T B`` when ``transpose``, B (m, n)),
        dense, as flat code: CasADi's generic ``casadi_mtimes_dense`` loop
        costs ~10 machine instructions per multiply-add (the J_d products:
        a third of the MX glue's instructions at 8 elements per body)."""
        A, B = SX.sym("A", m, k), SX.sym("B", m if transpose else k, n)
        return _function(f"loop_product{m}_{k}_{n}_{int(transpose)}", [A, B],
                         [ca.mtimes(A.T if transpose else A, B)])

    def special(self, F, known):
        """``(G, constants of each output)``: ``F`` with the entries
        ``known[i]`` (``((index, value), ...)``) of its vector input i
        replaced by their numbers before generation, so that CasADi's
        simplification drops the products by the zeros and ones they hold
        (the structural zeros of a planar robot, that a flat expanded graph
        gets for free); G has F's inputs and outputs. G is F itself (its C
        shared) unless it saves ``SPECIAL_GAIN`` of F's operations: the
        limbs of a spatial robot, each with its own few zeros, would
        otherwise each get their own copy of every kernel (Gough-Stewart:
        +14 % first use); the constants of the outputs are G's either way
        (F computes them exactly: products by 0 and 1, sums of zeros)."""
        key = ("special", F.name(), tuple(known))
        if key not in self.made:
            ins = [SX.sym(f"i{i}", F.size1_in(i)) for i in range(F.n_in())]
            outs = F(*[_folded(s, k) for s, k in zip(ins, known)])
            outs = [ca.densify(o) for o in (outs if isinstance(outs, tuple) else (outs,))]
            G = _function(f"{F.name()}_s{len(self.made)}", ins, outs)
            if G.n_instructions() > (1 - SPECIAL_GAIN) * F.n_instructions():
                G = F            # same numbers at the known entries: x 0 = 0, x 1 = x
            self.made[key] = (G, [constants(o) for o in outs])
        return self.made[key]

    def settled(self, F, known, steps):
        """:meth:`special` for a fold's kernel over ``steps`` frames: the
        accumulator's known entries ``known[0]`` (those of the parent's
        column) narrowed, for more than one step, to those that its first
        output keeps with the same number (the greatest fixed point: then
        they hold at every step of the fold)."""
        kx = tuple(sorted(known[0]))
        if steps == 1:
            return self.special(F, (kx,) + tuple(known[1:]))
        while True:
            G, kout = self.special(F, (kx,) + tuple(known[1:]))
            new = tuple(sorted(set(kx) & set(kout[0])))
            if new == kx:
                return G, kout
            kx = new

    def fold(self, F, x0, *U, reverse=False):
        """``(X, Y...)`` of ``F`` over the columns of ``U`` (:func:`_fold`,
        one per kernel, length and direction): ``X[:, i]`` the accumulator
        after step i; ``reverse``: from the last column."""
        m = U[0].shape[1]
        if m > 1:
            key = ("fold", F.name(), m, reverse)
            if key not in self.made:
                self.made[key] = _fold(F, m, reverse)
            F = self.made[key]
        out = F(x0, *U)
        return tuple(out) if F.n_out() > 1 else (out,)

    def mapped(self, F, m, *U):
        """``F`` on the m columns of ``U`` (CasADi ``map``, serial: a C loop;
        a single column is repeated)."""
        if m == 1:
            return F(*U)
        key = ("map", F.name(), m)
        if key not in self.made:
            self.made[key] = F.map(m, "serial")
        return self.made[key](*U)
