"""The recursive Newton-Euler model on the kernel graph (issue 18): the
products ``M qdd_r`` and ``c`` of the full model (10.123) without forming
``M``, in O(number of frames) kernel calls and 3-vector operations.

On the virtual tree of :mod:`flexpkm.compiled.recursive` (its frames'
poses, local Jacobian columns ``L_v``, ``L_w`` and motion at ``qdd = 0``):

1. forward pass, the part of the frames' accelerations that is linear in
   ``qdd_tot`` (base frame): ``da_j = da_a - d_j x dal_a + L_v [qdd_j;
   qdd_ea]``, ``dal_j = dal_a + L_w [qdd_j; qdd_ea]`` (``d_j = O_j - O_a``;
   exact: the acceleration of F_j depends on its antecedent's as its twist
   on the antecedent's twist);
2. the bodies' generalized Newton-Euler wrenches (10.61), in F_j:
   ``F_j(qdd) = F_j(0) + M_j [R^T da_j; R^T dal_j; qdd_e]`` (the body
   kernel at ``qdd = 0`` gives ``F_j(0)`` and ``M_j``);
3. backward pass, frames in reverse order: the wrench of the subtree
   carried by F_j (base frame, about O_j), ``f_a += f_j``, ``n_a += n_j +
   d_j x f_j``, projected on the frame's coordinates ``[q_j; q_ea]`` by
   ``L_v^T f_j + L_w^T n_j``; the elastic coordinates of a body get its
   wrench's last rows;
4. ``tau_tot = M_tot qdd_tot (+ c_tot)`` with the platform, rotors,
   springs and friction; reduced by ``J^T`` as a product (10.123).

``c = J^T tau_tot(qdd_tot = b)`` with the velocity terms, ``M qdd_r = J^T
tau_tot(qdd_tot = J qdd_r)`` without them: the same numbers as the dense
``J^T M_tot J`` of :func:`flexpkm.compiled.recursive.kernel_dynamics`, at
a cost linear in the bodies (``tests/compiled/test_newton_euler.py``).
"""
from __future__ import annotations

from dataclasses import dataclass

import casadi as ca
import numpy as np

from flexpkm.compiled.recursive import KernelDynamics, body_terms, joint_terms


@dataclass
class RecursiveDynamics:
    """``M qdd_r`` and ``c`` (n_r,) as MX expressions of the kernel graph's
    symbols (``kd.inputs``) and ``qdd_r`` (n_r,): the full model (10.123)
    without its mass matrix (N, N m, per unit of the coordinates)."""

    kd: KernelDynamics
    qdd_r: ca.MX
    M_qdd: ca.MX
    c: ca.MX


def _local(v, cols):
    """``[v_j; v_ea]`` of a frame's columns ``cols`` (-1: a fixed joint, 0)."""
    first = v[int(cols[0])] if cols[0] >= 0 else ca.MX.zeros(1)
    return ca.vertcat(first, v[[int(c) for c in cols[1:]]]) if len(cols) > 1 else first


class _Steps:
    """The three SX kernels of the passes, one per size (``n`` local
    coordinates of a frame, ``n_e`` shape functions of a body), made once
    per graph: ``forward(n)``: ``(da_a, dal_a, O_j, O_a, L_v, L_w, qdd_loc)
    -> (da_j, dal_j)``; ``body(n_e)``: ``(R, M_j, F_j, da, dal, qdd_e) ->
    (f, n, F_e)`` (base frame wrench about O_j, elastic forces);
    ``backward(n)``: ``(f_j, n_j, O_j, O_a, L_v, L_w, f_a, n_a) -> (gen,
    f_a + f_j, n_a + n_j + d x f_j)``."""

    def __init__(self):
        self.made = {}

    def get(self, kind, n):
        if (kind, n) not in self.made:
            self.made[kind, n] = getattr(self, "_" + kind)(n)
        return self.made[kind, n]

    @staticmethod
    def _forward(n):
        X = ca.SX
        da, dal, O, Oa = (X.sym(k, 3) for k in ("da_a", "dal_a", "O_j", "O_a"))
        L_v, L_w, qdd = X.sym("L_v", 3, n), X.sym("L_w", 3, n), X.sym("qdd", n)
        outs = [da - ca.cross(O - Oa, dal) + L_v @ qdd, dal + L_w @ qdd]
        return ca.Function(f"ne_forward{n}", [da, dal, O, Oa, L_v, L_w, qdd], outs)

    @staticmethod
    def _body(n_e):
        X = ca.SX
        R, M, F = X.sym("R", 3, 3), X.sym("M", 6 + n_e, 6 + n_e), X.sym("F", 6 + n_e)
        da, dal, qdd = X.sym("da", 3), X.sym("dal", 3), X.sym("qdd_e", n_e)
        W = M @ ca.vertcat(R.T @ da, R.T @ dal, qdd) + F
        return ca.Function(f"ne_body{n_e}", [R, M, F, da, dal, qdd],
                           ca.cse([R @ W[:3], R @ W[3:6], W[6:]]))

    @staticmethod
    def _backward(n):
        X = ca.SX
        f, m, O, Oa, fa, ma = (X.sym(k, 3) for k in ("f", "n", "O_j", "O_a", "f_a", "n_a"))
        L_v, L_w = X.sym("L_v", 3, n), X.sym("L_w", 3, n)
        outs = [L_v.T @ f + L_w.T @ m, fa + f, ma + m + ca.cross(O - Oa, f)]
        return ca.Function(f"ne_backward{n}", [f, m, O, Oa, L_v, L_w, fa, ma], outs)


def _accelerations(model, frames, qdd, steps):
    """Per frame ``(da, dal)`` (3,), base frame: the accelerations' part linear in ``qdd``."""
    out, zero = [], ca.MX.zeros(3)
    for fc, f in zip(model.frame_constants, frames):
        loc = _local(qdd, f.args[-1])
        parent = frames[fc.antecedent].O if fc.antecedent >= 0 else zero
        da, dal = out[fc.antecedent] if fc.antecedent >= 0 else (zero, zero)
        out.append(steps.get("forward", loc.shape[0])(da, dal, f.O, parent, f.L_v, f.L_w, loc))
    return out


def tree_wrenches(model, frames, bodies, qdd, bias, steps=None):
    """``tau_tot`` (n_tot,): the bodies' terms projected on the q_tot
    columns by the backward pass, ``M_t qdd`` (``bias`` False) or ``M_t
    qdd + (bodies' velocity and gravity terms)`` (True); ``bodies`` of
    :func:`flexpkm.compiled.recursive.body_terms`; ``steps`` the kernels
    (a :class:`_Steps`, shared by the passes of one graph)."""
    steps = steps or _Steps()
    acc = _accelerations(model, frames, qdd, steps)
    index = {id(f): k for k, f in enumerate(frames)}
    zero = ca.MX.zeros(3)
    force, moment = [zero] * len(frames), [zero] * len(frames)
    cols, values = [], []
    for f, ecols, Mj, Fj in bodies:
        k = index[id(f)]
        qdd_e = qdd[ecols] if ecols else ca.MX.zeros(0)
        fk, nk, Fe = steps.get("body", len(ecols))(f.R, Mj, Fj if bias else ca.MX.zeros(Fj.shape),
                                                   *acc[k], qdd_e)
        force[k], moment[k] = force[k] + fk, moment[k] + nk
        if ecols:
            cols += ecols
            values.append(Fe)
    for k in reversed(range(len(frames))):
        f, a = frames[k], model.frame_constants[k].antecedent
        fcols = f.args[-1]
        parent = (frames[a].O, force[a], moment[a]) if a >= 0 else (zero, zero, zero)
        gen, fa, na = steps.get("backward", len(fcols))(force[k], moment[k], f.O, parent[0],
                                                        f.L_v, f.L_w, *parent[1:])
        if a >= 0:
            force[a], moment[a] = fa, na
        keep = [i for i, c in enumerate(fcols) if c >= 0]
        if keep:
            cols += [int(fcols[i]) for i in keep]
            values.append(gen[keep])
    scatter = np.zeros((model.layout.n_tot, len(cols)))
    scatter[cols, np.arange(len(cols))] = 1.0
    return ca.MX(ca.sparsify(ca.DM(scatter))) @ ca.vertcat(*values)


def recursive_dynamics(kd: KernelDynamics) -> RecursiveDynamics:
    """The :class:`RecursiveDynamics` of a kernel graph (built with its
    frames, :func:`flexpkm.compiled.recursive.kernel_dynamics`)."""
    model, n_t = kd.model, kd.model.layout.n_t
    qdd_r = ca.MX.sym("qdd_r", kd.qd_r.shape[0])
    bodies = body_terms(model, kd.kernels, kd.frames, kd.q, kd.qd_tot, kd.design_values, kd.design_layout,
                        kd.threads)
    rotor, joints = joint_terms(model, kd.q, kd.qd_tot, kd.friction,
                                ca.fmax(kd.smoothing, 1e-300), kd.design_values, kd.design_layout)
    steps = _Steps()

    def tau(qdd, bias):
        out = tree_wrenches(model, kd.frames, bodies, qdd, bias, steps) + rotor @ qdd
        if kd.platform is not None:
            M_p, c_p = kd.platform
            out[n_t:] = out[n_t:] + M_p @ qdd[n_t:] + (c_p if bias else 0)
        return out + joints if bias else out
    return RecursiveDynamics(kd, qdd_r, kd.J.T @ tau(kd.J @ qdd_r, False),
                             kd.J.T @ tau(kd.b, True))
