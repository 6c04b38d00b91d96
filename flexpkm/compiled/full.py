"""The full elastodynamic model (10.123) of one robot as CasADi expressions
and functions of the state (Steps 1-3 of Section 10.6), from the frame-by-
frame symbolic implementation of :mod:`flexpkm.compiled.symbolic`.

``symbolic_dynamics(model, dep)`` builds, for the fixed dependent coordinates
``dep`` (q_tot columns), the expressions of ``M(q)``, ``c(q, qd_r)``,
``J(q)`` (10.114), ``J_d`` (10.110), ``b(q, qd_r)`` (10.119), ``J_tot``,
``b'`` and the loop residual over the symbols ``q`` (n_tot,), ``qd_r``
(n_r,), the gravity ``g`` (3,), ``friction`` (0/1) and the Coulomb
``smoothing`` (s/m or s/rad: tanh(qd / smoothing); 0 is the sign).
"""
from __future__ import annotations

from dataclasses import dataclass

import casadi as ca
import numpy as np

from flexpkm.algorithms.dynamics import r_ordering
from flexpkm.compiled import symbolic as sym
from flexpkm.model.build import build_structure

#: names of the inputs of every model function, in order
INPUTS = ("q", "qd_r", "g", "friction", "smoothing")


@dataclass
class SymbolicDynamics:
    """Symbols and expressions of :func:`symbolic_dynamics` (SX column vectors
    and matrices, shapes as in :class:`flexpkm.algorithms.dynamics.FullDynamics`).

    q (n_tot,), qd_r (n_r,), g (3,), friction, smoothing : the symbols;
    M (n_r, n_r), c (n_r,), J (n_tot, n_r), b (n_tot,), J_tot (c, n_tot),
    residual (c,), qd_tot (n_tot,) = J qd_r, R, p : frame poses (lists),
    vel : frame twists (v, w) for ``qd_tot``, a_bias : per frame the absolute
    acceleration of O_j at ``qdd_r = 0`` (with b), M_tot, c_tot;
    indep, dep, n_a : as in the FullDynamics; jacobian : d residual / d q
    when given in closed form (None: by AD).
    """

    q: ca.SX
    qd_r: ca.SX
    g: ca.SX
    friction: ca.SX
    smoothing: ca.SX
    M: ca.SX
    c: ca.SX
    J: ca.SX
    b: ca.SX
    J_tot: ca.SX
    residual: ca.SX
    qd_tot: ca.SX
    R: list
    p: list
    M_tot: ca.SX
    c_tot: ca.SX
    indep: np.ndarray
    dep: np.ndarray
    n_a: int
    model: object = None
    kept: list = None
    jacobian: object = None

    @property
    def inputs(self):
        return [self.q, self.qd_r, self.g, self.friction, self.smoothing]

    def function(self, name, outputs, names):
        """A CasADi Function of :data:`INPUTS` giving ``outputs`` (SX list)."""
        return ca.Function(name, self.inputs, outputs, list(INPUTS), list(names))


def virtual_system(model, q, qd_tot, g, friction, smoothing):
    """``(M_tot, c_tot, J_tot, b', residual, R, p)`` of the virtual system and
    its closures (10.102)-(10.103), (10.107), (10.117) at the symbols ``q``,
    ``qd_tot`` (n_tot,); the platform (if any) from its Newton-Euler model."""
    layout = model.layout
    n_t = layout.n_t
    q_t, qd_t = q[:n_t], qd_tot[:n_t]
    R, p = sym.frame_poses(model, q_t)
    M_t, c_t = sym.tree_dynamics(model, q_t, qd_t, (R, p), g, friction, smoothing)
    vel = [sym.twist(Rj, pj, q_t, qd_t) for Rj, pj in zip(R, p)]
    if model.platform is not None:
        M_p, c_p, R_p, P, t_p = sym.platform_dynamics(model, q[n_t:], qd_tot[n_t:], g)
        M_tot, c_tot = ca.diagcat(M_t, M_p), ca.vertcat(c_t, c_p)
    else:
        R_p, P, t_p = ca.SX.eye(3), ca.SX.zeros(3, 1), None
        M_tot, c_tot = M_t, c_t
    rows = sym.closure_rows(model, R, p, vel, R_p, P, t_p)
    J_tot = ca.jacobian(rows, qd_tot)
    bprime = ca.jtimes(rows, q, position_rates(model, q, qd_tot))
    return M_tot, c_tot, J_tot, bprime, sym.closure_residual(model, q, (R, p, R_p, P)), R, p


def position_rates(model, q, qd_tot):
    """``dq_tot/dt`` (SX (n_tot,)) of the velocities ``qd_tot``: equal but for
    the platform's rotation-vector coordinates, whose velocities are
    angular-velocity components (:mod:`flexpkm.algorithms.platform`)."""
    n_t = model.layout.n_t
    if model.platform is None or not any(d >= 3 for d in model.platform.dofs):
        return qd_tot
    dofs = list(model.platform.dofs)
    r, w = [ca.SX(0)] * 3, [ca.SX(0)] * 3
    for k, d in enumerate(dofs):
        if d >= 3:
            r[d - 3], w[d - 3] = q[n_t + k], qd_tot[n_t + k]
    rate = sym.rotation_vector_rate(ca.vertcat(*r), ca.vertcat(*w))
    out = [qd_tot[i] for i in range(n_t + len(dofs))]
    for k, d in enumerate(dofs):
        if d >= 3:
            out[n_t + k] = rate[d - 3]
    return ca.vertcat(*out)


def symbolic_dynamics(model, dep, kept=None) -> SymbolicDynamics:
    """Expressions of the full model (10.123) for the dependent columns
    ``dep`` (e.g. ``flexpkm.full_dynamics(model, q_ref, 0).dep``) and the
    independent constraint rows ``kept`` (indices of
    :func:`flexpkm.algorithms.closure.row_labels`, e.g. ``rows.kept`` of the
    FullDynamics; default all: Müller's Remark 2, the redundant rows of an
    overconstrained loop are left out of ``J_t``, ``b'``; the residual keeps
    them all). ``J_tot`` is over the kept rows, as the FullDynamics's."""
    model = build_structure(model)
    layout = model.layout
    dep = np.asarray(dep, dtype=int)
    indep = [i for i in range(layout.n_tot) if i not in set(dep.tolist())]
    indep, n_a = r_ordering(model, indep)
    n_r = len(indep)
    q, qd_r = ca.SX.sym("q", layout.n_tot), ca.SX.sym("qd_r", n_r)
    g, friction, smoothing = ca.SX.sym("g", 3), ca.SX.sym("friction"), ca.SX.sym("smoothing")
    qd_sym = ca.SX.sym("qd_tot", layout.n_tot)
    M_tot, c_tot, J_tot, bprime, residual, R, p = virtual_system(
        model, q, qd_sym, g, friction, ca.fmax(smoothing, 1e-300))
    if kept is not None:
        kept = [int(i) for i in kept]
        J_tot, bprime = J_tot[kept, :], bprime[kept]
    J = ca.SX.zeros(layout.n_tot, n_r)
    for k, i in enumerate(indep):
        J[int(i), k] = 1.0
    if len(dep):
        J_f, J_0 = J_tot[:, dep.tolist()], J_tot[:, [int(i) for i in indep]]
        J[dep.tolist(), :] = -sym.dependent_solve(model, J_f, J_0, dep, kept)
    qd_tot = J @ qd_r
    M_tot, c_tot, bprime = (ca.substitute(x, qd_sym, qd_tot) for x in (M_tot, c_tot, bprime))
    b = ca.SX.zeros(layout.n_tot, 1)
    if len(dep):
        b[dep.tolist()] = -sym.dependent_solve(model, J_tot[:, dep.tolist()], bprime, dep, kept)
    M = J.T @ M_tot @ J
    c = J.T @ (M_tot @ b + c_tot)
    return SymbolicDynamics(q, qd_r, g, friction, smoothing, M, c, J, b, J_tot, residual, qd_tot,
                            R, p, M_tot, c_tot, np.asarray(indep), dep, n_a, model, kept)


def point_acceleration(model, full: SymbolicDynamics, qdd_r, frame, axis_frame=None, axis=None):
    """Absolute acceleration (SX (3,) base frame, m/s^2) of the origin of
    ``frame`` for ``qdd_r`` (SX (n_r,)), or its component along ``axis`` of
    ``axis_frame``: the second time derivative of ``O_j(q)`` along
    ``qd_tot = J qd_r``, ``qdd_tot = J qdd_r + b`` (AD). The twin of
    :func:`flexpkm.algorithms.dynamics.point_acceleration`, same arguments
    (``full`` the symbolic full model instead of a FullDynamics)."""
    sm = full
    j = model.frame_index[frame]
    qd = ca.SX.sym("qd", sm.q.shape[0])
    v = ca.jtimes(sm.p[j], sm.q, qd)
    a = ca.jacobian(sm.p[j], sm.q) @ (sm.J @ qdd_r + sm.b) + ca.jtimes(v, sm.q, qd)
    a = ca.substitute(a, qd, sm.qd_tot)
    if axis_frame is None:
        return a
    return ca.dot(a, sm.R[model.frame_index[axis_frame]] @ ca.SX(np.asarray(axis, float)))
