"""Small generated kernels of the recursion of Section 10.3-10.4, one CasADi
``Function`` (SX) per *structure* (joint type, number of shape functions of
the carrying body, number of body coordinates, closure rows), taking the
numbers (MDH constants, tip shapes ``Phi_d``/``Phi_r``, body invariants) as
INPUTS: a robot-level graph (:mod:`flexpkm.compiled.recursive`) calls them
frame by frame, the generated C holds each kernel once, and a new section,
material, mass or length changes only the numbers passed to them.

* :meth:`Kernels.frame` -- the frame-to-frame step: the pose of F_j from
  its antecedent's (``R_0j = R_0a R_e R_fix Rot(z, theta_j)``, ``O_j = O_a +
  R_0a (p_att + Phi_d q_ea) + r_j z_j``, ``R_e = rot(x,phi) rot(y,theta)
  rot(z,psi)``, ``(phi, theta, psi) = Phi_r q_ea``, (10.4)-(10.6)), its
  twist and acceleration at ``qdd = 0`` as the exact first and second time
  derivatives (AD along ``R_a(t)``, ``O_a(t)``, ``q(t) = q + t qd``), and the
  local Jacobian columns ``d(v_j, w_j)/d(qd_j, qd_ea)``;
* :meth:`Kernels.body` -- the body's generalized Newton-Euler terms (10.61):
  ``M_j(q_e)`` and the wrench ``F_j = M_j xdot_0 + Mdot_j x + [W x p_v;
  W x p_w + V x p_v; -dT/dq_e]`` (Kirchhoff's equations in the body frame,
  ``x = [V; W; qd_e] = [R^T v; R^T w; qd_e]``, ``p = M_j x``, the
  acceleration ``xdot_0`` at ``qdd = 0`` with the base acceleration ``-g``);
* :meth:`Kernels.closure` -- the cut-joint rows (10.107) of
  :mod:`flexpkm.algorithms.cut_joints`: geometric residual, velocity-row
  coefficients on the twists of both sides, and ``b'`` (10.117).
"""
from __future__ import annotations

from types import SimpleNamespace

import casadi as ca
import numpy as np

from flexpkm.algorithms.cut_joints import rotation_row
from flexpkm.compiled import symbolic as sym
from flexpkm.model.description import PRISMATIC, REVOLUTE

#: inputs of a frame kernel (the antecedent's pose, twist, acceleration at
#: qdd = 0; the joint and elastic coordinates and rates; the constants)
FRAME_IN = ("R_a", "O_a", "v_a", "w_a", "a_a", "al_a", "q_j", "qd_j", "q_e", "qd_e", "const")
POSE_OUT = ("R_j", "O_j", "d", "L_v", "L_w")
MOTION_OUT = ("v_j", "w_j", "a_j", "al_j")


def frame_constants(fc) -> np.ndarray:
    """The numbers of a frame kernel: ``[R_fix (9, column-major); p_att (3);
    r; Phi_d (3 N); Phi_r (3 N)]``."""
    shapes = () if fc.shapes is None else (np.ravel(fc.shapes[1], "F"), np.ravel(fc.shapes[2], "F"))
    return np.concatenate([np.ravel(fc.R_fix, "F"), np.ravel(fc.p_att), [float(fc.r)], *shapes])


def invariant_vector(inv) -> np.ndarray:
    """The numbers of a body kernel (SI): ``[m; ms_r; I_rr; MS_de; beta; lam;
    I_re; I_ee; M_ee]`` flattened (C order) from the invariants and their
    derived terms (:func:`flexpkm.elements.newton_euler.derived`)."""
    d = inv.derived
    parts = (inv.m, inv.ms_r, inv.I_rr, inv.MS_de, d.beta, d.lam, d.I_re, d.I_ee, d.M_ee)
    return np.concatenate([np.ravel(np.asarray(x, float)) for x in parts])


def _take(v, k, shape):
    """``(SX of shape, k + size)`` from the flat SX ``v`` at ``k`` (C order)."""
    n = int(np.prod(shape))
    flat = v[k:k + n]
    if len(shape) <= 1:
        return flat, k + n
    rows, cols = shape
    return ca.reshape(flat, cols, rows).T, k + n


def _symbolic_invariants(v, n):
    """An invariants-like namespace of SX taken from the flat ``v``
    (:func:`invariant_vector` order) for :func:`flexpkm.compiled.symbolic.body_mass_matrix`."""
    k = 0
    m, k = _take(v, k, (1,))
    ms_r, k = _take(v, k, (3,))
    I_rr, k = _take(v, k, (3, 3))
    MS_de, k = _take(v, k, (3, n))
    beta, k = _take(v, k, (n, 3))
    lam, I_re, I_ee = {}, [], {}
    for a in range(n):
        for b in range(n):
            lam[a, b], k = _take(v, k, (3,))
    for a in range(n):
        M, k = _take(v, k, (3, 3))
        I_re.append(M)
    for a in range(n):
        for b in range(n):
            I_ee[a, b], k = _take(v, k, (3, 3))
    M_ee, k = _take(v, k, (n, n))
    derived = SimpleNamespace(beta=beta, lam=lam, I_re=I_re, I_ee=I_ee, M_ee=M_ee)
    return SimpleNamespace(n_e=n, m=m, ms_r=ms_r, I_rr=I_rr, MS_de=MS_de, derived=derived)


def _time_series(x0, x1, x2, t):
    """``x0 + t x1 + t^2/2 x2`` (SX)."""
    return x0 + t * x1 + 0.5 * t * t * x2


def _rates(expr, t):
    """First and second derivatives of ``expr(t)`` at t = 0 (SX)."""
    d1 = ca.jacobian(ca.vec(expr), t)
    d2 = ca.jacobian(d1, t)
    zero = ca.SX(0)
    return (ca.reshape(ca.substitute(d1, t, zero), expr.shape),
            ca.reshape(ca.substitute(d2, t, zero), expr.shape))


class Kernels:
    """The kernels of one generated graph, made once per structure and
    shared by every frame, body and closure of that structure (codegen then
    emits each once). Held by the graph being built (no module state)."""

    def __init__(self):
        self.made = {}

    def _get(self, key, build):
        if key not in self.made:
            self.made[key] = build()
        return self.made[key]

    def frame(self, sigma, n_e):
        """The frame step for joint type ``sigma`` (0 revolute, 1 prismatic,
        2 fixed) carried by a body with ``n_e`` shape functions at the
        attachment (0: rigid or base); inputs :data:`FRAME_IN` (R (3, 3),
        vectors (3,), q_j, qd_j scalars, q_e, qd_e (n_e,), const of
        :func:`frame_constants`); two Functions of these inputs: the pose
        (:data:`POSE_OUT`: ``d = O_j - O_a``; ``L_v``, ``L_w`` (3, 1 + n_e)
        over ``[qd_j; qd_e]``), independent of the rates, and the motion
        (:data:`MOTION_OUT`: twist and acceleration at ``qdd = 0``)."""
        return self._get(("frame", int(sigma), n_e), lambda: _frame_kernel(int(sigma), n_e))

    def body(self, n_e):
        """Body terms for ``n_e`` shape functions: ``(R, v, w, a, al, q_e,
        qd_e, inv) -> (M_j (6 + n_e, 6 + n_e), F_j (6 + n_e,))`` in F_j
        (``inv`` of :func:`invariant_vector`)."""
        return self._get(("body", n_e), lambda: _body_kernel(n_e))

    def closure(self, joint, rows):
        """Cut-joint rows ``rows`` of a ``joint``, two Functions of ``(R_k,
        O_k, v_k, w_k, a_k, al_k, R_g, O_g, v_g, w_g, a_g, al_g)``: the
        pose ``(residual, C_k (r, 6), C_g (r, 6))`` (the velocity rows are
        ``C_k [v_k; w_k] + C_g [v_g; w_g]``,
        :func:`flexpkm.compiled.symbolic.closure_rows`) and ``b'`` (r,),
        their time derivative at ``qdd = 0``."""
        rows = tuple(int(r) for r in rows)
        return self._get(("closure", joint, rows), lambda: _closure_kernel(joint, rows))


def _frame_kernel(sigma, n_e):
    X = ca.SX
    Ra, Oa, va, wa, aa, ala = X.sym("R_a", 3, 3), *(X.sym(n, 3) for n in FRAME_IN[1:6])
    qj, qdj, qe, qde = X.sym("q_j"), X.sym("qd_j"), X.sym("q_e", n_e), X.sym("qd_e", n_e)
    const = X.sym("const", 13 + 6 * n_e)
    t = X.sym("t")
    W = sym.hat(wa)
    R_t = Ra + t * (W @ Ra) + 0.5 * t * t * ((sym.hat(ala) + W @ W) @ Ra)
    O_t = _time_series(Oa, va, aa, t)
    q_t, qe_t = qj + t * qdj, qe + t * qde
    R_fix = ca.reshape(const[:9], 3, 3)
    att, r = const[9:12], const[12]
    R_loc = R_fix @ sym.rot(2, q_t) if sigma == REVOLUTE else R_fix
    r = r + q_t if sigma == PRISMATIC else r
    if n_e:
        Phid = ca.reshape(const[13:13 + 3 * n_e], 3, n_e)
        ang = ca.reshape(const[13 + 3 * n_e:], 3, n_e) @ qe_t
        R_e = R_t @ sym.rot(0, ang[0]) @ sym.rot(1, ang[1]) @ sym.rot(2, ang[2])
        att = att + Phid @ qe_t
    else:
        R_e = R_t
    Rj_t = R_e @ R_loc
    Oj_t = O_t + R_t @ att + r * Rj_t[:, 2]
    zero = X(0)
    Rj, Oj = ca.substitute(Rj_t, t, zero), ca.substitute(Oj_t, t, zero)
    (vj, aj), (Rd, Rdd) = _rates(Oj_t, t), _rates(Rj_t, t)
    wj, alj = sym.vee(Rd @ Rj.T), sym.vee(Rdd @ Rj.T)
    rates = ca.vertcat(qdj, qde)
    L_v, L_w = ca.jacobian(vj, rates), ca.jacobian(wj, rates)
    args = [Ra, Oa, va, wa, aa, ala, qj, qdj, qe, qde, const]
    pose = [Rj, Oj, Oj - Oa, L_v, L_w]
    return (ca.Function(f"fk_pose{sigma}_{n_e}", args, ca.cse(pose), list(FRAME_IN),
                        list(POSE_OUT)),
            ca.Function(f"fk_motion{sigma}_{n_e}", args, ca.cse([vj, wj, aj, alj]),
                        list(FRAME_IN), list(MOTION_OUT)))


def _body_kernel(n_e):
    X = ca.SX
    R, v, w, a, al = X.sym("R", 3, 3), X.sym("v", 3), X.sym("w", 3), X.sym("a", 3), X.sym("al", 3)
    qe, qde = X.sym("q_e", n_e), X.sym("qd_e", n_e)
    n_inv = len(invariant_vector(_zero_invariants(n_e)))
    inv_v = X.sym("inv", n_inv)
    inv = _symbolic_invariants(inv_v, n_e)
    M, _ = sym.body_mass_matrix(inv, qe)
    V, W = R.T @ v, R.T @ w
    x = ca.vertcat(V, W, qde)
    xs = X.sym("x", 6 + n_e)                         # x held fixed for dM/dq_e
    p_s = M @ xs
    Mdot_x = ca.substitute(ca.jtimes(p_s, qe, qde), xs, x) if n_e else X.zeros(6)
    dT = ca.substitute(ca.gradient(0.5 * ca.dot(xs, p_s), qe), xs, x) if n_e else X.zeros(0)
    p = M @ x
    pv, pw = p[:3], p[3:6]
    acc = ca.vertcat(R.T @ a - ca.cross(W, V), R.T @ al, X.zeros(n_e))
    kirchhoff = ca.vertcat(ca.cross(W, pv), ca.cross(W, pw) + ca.cross(V, pv), -dT)
    F = M @ acc + Mdot_x + kirchhoff
    return ca.Function(f"fk_body{n_e}", [R, v, w, a, al, qe, qde, inv_v], ca.cse([M, F]),
                       ["R", "v", "w", "a", "al", "q_e", "qd_e", "inv"], ["M", "F"])


def _zero_invariants(n):
    """Zero invariants of ``n`` shape functions (sizes only)."""
    derived = SimpleNamespace(beta=np.zeros((n, 3)), lam=np.zeros((n, n, 3)),
                              I_re=np.zeros((n, 3, 3)), I_ee=np.zeros((n, n, 3, 3)),
                              M_ee=np.zeros((n, n)))
    return SimpleNamespace(m=0.0, ms_r=np.zeros(3), I_rr=np.zeros((3, 3)),
                           MS_de=np.zeros((3, n)), derived=derived)


def _rows(joint, rows, trans, rotation):
    """The rows ``rows`` of a cut ``joint``: translation components ``trans``
    (r < 3), ``rotation(i, j, sign)`` of :func:`flexpkm.algorithms.cut_joints.rotation_row`."""
    return ca.vertcat(*[trans[r] if r < 3 else rotation(*rotation_row(joint, r)) for r in rows])


def _closure_kernel(joint, rows):
    X = ca.SX
    names = ("R", "O", "v", "w", "a", "al")
    k = [X.sym(n + "_k", 3, 3) if n == "R" else X.sym(n + "_k", 3) for n in names]
    g = [X.sym(n + "_g", 3, 3) if n == "R" else X.sym(n + "_g", 3) for n in names]
    t = X.sym("t")

    def moving(s):                    # pose and twist along t (qdd = 0)
        R, O, v, w, a, al = s
        return R + t * (sym.hat(w) @ R), O + t * v, v + t * a, w + t * al
    Rk, Ok, vk, wk = moving(k)
    Rg, Og, vg, wg = moving(g)
    vel = _rows(joint, rows, Rk.T @ (vk - vg - ca.cross(wk, Ok - Og)),
                lambda i, j, s: s * ca.dot(wk - wg, ca.cross(Rk[:, i], Rg[:, j])))
    zero = X(0)
    bprime = ca.substitute(ca.jacobian(vel, t), t, zero)
    vel0 = ca.substitute(vel, t, zero)
    C_k = ca.jacobian(vel0, ca.vertcat(k[2], k[3]))
    C_g = ca.jacobian(vel0, ca.vertcat(g[2], g[3]))
    res = _rows(joint, rows, k[0].T @ (k[1] - g[1]),
                lambda i, j, s: s * ca.dot(k[0][:, i], g[0][:, j]))
    tag, labels = f"{joint}_{''.join(map(str, rows))}", [n + s for s in ("_k", "_g") for n in names]
    return (ca.Function(f"fk_cut_{tag}", k + g, ca.cse([res, C_k, C_g]), labels,
                        ["residual", "C_k", "C_g"]),
            ca.Function(f"fk_cutbias_{tag}", k + g, [ca.cse(bprime)], labels, ["bprime"]))
