"""Full elastodynamic model of the actual parallel robot (Briot & Khalil
Sections 10.4.2-10.5; Steps 2-4 of Section 10.6).

At a state (all coordinates ``q_tot`` assembled, independent velocities
``qd_r = [qd_a; qd_c]``):

* ``qd_tot = J qd_r`` (10.114), ``qdd_tot = J qdd_r + b`` (10.119) with
  ``b_dep = -(J_t^f)^-1 b'`` (10.118, sign corrected: docs/typos.md);
* ``M = J^T M_tot J``, ``c = J^T (M_tot b + c_tot)`` (10.123);
* inverse problem: ``qdd_c = -M_cc^-1 (M_ca qdd_a + c_c)``,
  ``tau = M_aa qdd_a + M_ac qdd_c + c_a`` (10.124);
* direct problem: ``qdd_r = M^-1 ([tau; 0] - c)``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from flexpkm.algorithms.closure import (LOOP_TOL, check_loops, constraint_bias,
                                        constraint_jacobian, solve_closure)
from flexpkm.algorithms.eigen import solve_spd
from flexpkm.algorithms.platform import external_wrench, platform_pose, selection
from flexpkm.algorithms.tree import add_acceleration_bias, as_batch, tree_kinematics
from flexpkm.algorithms.reference import build_model
from flexpkm.algorithms.virtual_system import platform_bias_forces, tree_dynamics, virtual_mass_matrix


@dataclass(kw_only=True)
class FullDynamics:
    """``M qdd_r + c = [tau; 0]`` at one state or a batch of states (10.123).

    One state: M (n_r, n_r), c (n_r,) over ``q_r = [q_a; q_c]`` (``names``),
    J (n_tot, n_r) ``qd_tot = J qd_r``, b (n_tot,) (10.119); a batch keeps a
    leading axis B on each.
    indep : columns of q_r in q_tot;  dep : columns of q_dep
    n_a : number of actuated coordinates
    kin : the tree kinematics of the state(s) (with its acceleration bias),
        always with a batch axis
    actuated : q_tot columns of all the actuators (n_A,); ``n_A > n_a`` for
        a robot with actuation redundancy (Section 8.5), whose dependent
        actuators appear in ``M qdd_r + c = J^T E_A tau``
        (:mod:`flexpkm.algorithms.redundancy`)
    M_tot, c_tot, J_tot, labels : the virtual system (10.102)-(10.103), (n_tot,
        n_tot), (n_tot,), and the closures' ``J_tot`` (c, n_tot) (10.107) with
        its independent rows' labels, for the joint reactions
        (:mod:`flexpkm.algorithms.reactions`); batched like ``M``
    rows : the independent constraint rows used
        (:class:`flexpkm.algorithms.constraint_rows.RowSelection`)
    wrench : the external wrench on the platform in ``c_tot`` (B, 6), or
        None (see :func:`full_dynamics`)
    """

    M: np.ndarray
    c: np.ndarray
    J: np.ndarray
    b: np.ndarray
    indep: np.ndarray
    dep: np.ndarray
    n_a: int
    names: tuple
    kin: object = None
    actuated: object = None
    M_tot: object = None
    c_tot: object = None
    J_tot: object = None
    labels: tuple = ()
    rows: object = None
    wrench: object = None

    def batched(self):
        """``((M, c, J, b), single)``: the arrays with a batch axis (one
        state gets B = 1), and whether the model is one state."""
        single = self.c.ndim == 1
        arrays = (self.M, self.c, self.J, self.b)
        return tuple(x[None] for x in arrays) if single else arrays, single

    def reactions(self, qdd_r, tau):
        """Joint reactions (cut-joint wrenches) at this state for
        accelerations ``qdd_r`` and all actuator efforts ``tau``: see
        :func:`flexpkm.algorithms.reactions.joint_reactions`."""
        from flexpkm.algorithms.reactions import joint_reactions
        return joint_reactions(self, qdd_r, tau)


def r_ordering(model, indep):
    """``E_q``: q_tot columns of ``q_r = [q_a; q_c]`` from the independent ones."""
    act = [i for i in indep if i in model.layout.actuated]
    return np.array(act + [i for i in indep if i not in model.layout.actuated]), len(act)


def full_dynamics(model, q_tot, qd_r, dep=None, gravity=None, friction=True,
                  coulomb_smoothing=0.0, loop_tol=LOOP_TOL, wrench=None) -> FullDynamics:
    """Steps 1-3 of Section 10.6 at a state: ``M``, ``c`` (10.123), ``J``, ``b`` (10.119).

    q_tot : (n_tot,) or (B, n_tot) all coordinates (must satisfy the loops).
    qd_r  : (n_r,) or (B, n_r) independent velocities, order of ``r_ordering``.
    Returns a :class:`FullDynamics` of one state for a q_tot of shape (n_tot,),
    of B states for (B, n_tot).
    dep   : dependent columns (default: chosen as in
            :func:`flexpkm.algorithms.closure.choose_dependent`; keep it fixed along a
            simulation).
    loop_tol : largest loop gap accepted (m, rad; :class:`OpenLoopError`
            above); None skips the check (inside a time step, where the
            state is projected on the loops afterwards).
    wrench : (6,) or (B, 6) external wrench ``[F; M]`` (N, N m) exerted on
            the platform at its point P, base-frame components (Section
            6.4); it enters ``c_tot`` as ``-S_p^T w`` on ``x_p``, hence ``c``,
            the efforts and the reactions. None: no wrench. Raises
            :class:`InvalidArgumentError` for a component along no platform
            coordinate (:func:`flexpkm.algorithms.platform.external_wrench`).
    """
    model = build_model(model)
    layout = model.layout
    q = as_batch(q_tot, layout.n_tot)
    n_t = layout.n_t
    kin0 = tree_kinematics(model, q[:, :n_t])
    if loop_tol is not None:
        check_loops(model, q, kin0, tol=loop_tol, what="full_dynamics")
    pose = platform_pose(model, q)
    J_tot, labels = constraint_jacobian(model, kin0, pose)
    sol = solve_closure(model, J_tot, labels, dep=dep)
    indep, n_a = r_ordering(model, sol.indep)
    col = {i: k for k, i in enumerate(sol.indep)}
    J = sol.J[:, :, [col[i] for i in indep]]
    qd_r = as_batch(np.broadcast_to(qd_r, qd_r.shape if np.ndim(qd_r) else (len(indep),)),
                    len(indep)) * np.ones((q.shape[0], 1))
    qd_tot = (J @ qd_r[:, :, None])[..., 0]
    kin = add_acceleration_bias(model, kin0, qd_tot[:, :n_t], gravity=gravity)
    bprime = constraint_bias(model, kin, qd_tot, pose)
    b = np.zeros_like(qd_tot)
    if len(sol.dep):
        b[:, sol.dep] = -np.linalg.solve(J_tot[:, sol.kept][:, :, sol.dep],
                                         bprime[:, sol.kept, None])[..., 0]
    M_t, c_t = tree_dynamics(model, q[:, :n_t], qd_tot[:, :n_t], kin=kin, friction=friction,
                             coulomb_smoothing=coulomb_smoothing)
    M_tot = virtual_mass_matrix(model, None, pose.R, M_t=M_t)
    c_tot = np.zeros_like(qd_tot)
    c_tot[:, :n_t] = c_t
    if model.platform is not None:
        t_p = qd_tot[:, n_t:] @ selection(model.platform).T
        c_tot[:, n_t:] = platform_bias_forces(model, pose.R, t_p, kin.gravity)
    if wrench is not None:
        wrench, Q_p = external_wrench(model, wrench, q.shape[0], "full_dynamics: wrench")
        c_tot[:, n_t:] -= Q_p
    Jt = np.swapaxes(J, -1, -2)
    M = Jt @ M_tot @ J
    c = (Jt @ ((M_tot @ b[:, :, None])[..., 0] + c_tot)[:, :, None])[..., 0]
    M = 0.5 * (M + np.swapaxes(M, -1, -2))
    if np.ndim(q_tot) == 1:                      # one pose in, one pose out
        M, c, J, b, M_tot, c_tot, J_tot = (x[0] for x in (M, c, J, b, M_tot, c_tot, J_tot))
        wrench = None if wrench is None else wrench[0]
    return FullDynamics(M=M, c=c, J=J, b=b, indep=indep, dep=sol.dep, n_a=n_a,
                        names=tuple(layout.names[i] for i in indep), kin=kin,
                        actuated=np.array(layout.actuated, dtype=int), M_tot=M_tot, c_tot=c_tot,
                        J_tot=J_tot[..., sol.kept, :], labels=tuple(labels[i] for i in sol.kept),
                        rows=sol.rows, wrench=wrench)


def actuator_efforts(full: FullDynamics, qdd_r):
    """First row of (10.124): ``tau = M_a qdd_r + c_a`` (n_a,) or (B, n_a),
    N or N m, for accelerations ``qdd_r`` (n_r,) or (B, n_r) satisfying the
    passive rows."""
    na = full.n_a
    return (full.M[..., :na, :] @ np.asarray(qdd_r, float)[..., None])[..., 0] + full.c[..., :na]


def inverse_dynamics(full: FullDynamics, qdd_a, weights=None):
    """Inverse problem of Section 10.4.3 (10.124): given ``qdd_a`` (n_a,)
    (or (B, n_a) for a batched ``full``), return ``(tau (n_a,), qdd_c (n_c,))``
    (batched: (B, n_a), (B, n_c)): ``qdd_c = -M_cc^-1 (M_ca qdd_a + c_c)``,
    then ``tau = M_a [qdd_a; qdd_c] + c_a``.
    With actuation redundancy (``len(full.actuated) > n_a``), ``tau`` is
    the (weighted) minimum-norm solution of all n_A actuators, Eqs.
    (8.145)-(8.148): see :func:`flexpkm.algorithms.redundancy.redundant_inverse_dynamics`
    (``weights``: W (n_A,) or (n_A, n_A); ignored without redundancy, where
    the solution is unique).
    An external wrench on the platform is in ``model`` (``full_dynamics(...,
    wrench=w)``: in ``c``), hence in ``tau``.
    Raises :class:`flexpkm.errors.IndefiniteMassMatrixError` if M_cc is not
    positive definite."""
    from flexpkm.algorithms.redundancy import is_redundant, redundant_inverse_dynamics
    if is_redundant(full):
        return redundant_inverse_dynamics(full, qdd_a, weights)
    na = full.n_a
    (M, c, _, _), single = full.batched()
    qdd_a = np.asarray(qdd_a, float).reshape(c.shape[0], na)
    rhs = -(c[:, na:] + (M[:, na:, :na] @ qdd_a[:, :, None])[..., 0])
    qdd_c = solve_spd(M[:, na:, na:], rhs, "M_cc")
    tau = actuator_efforts(full, np.concatenate([qdd_a, qdd_c], axis=-1)[0 if single else ...])
    return (tau, qdd_c[0]) if single else (tau, qdd_c)


def direct_dynamics(full: FullDynamics, tau):
    """Direct problem of Section 10.4.3: ``qdd_r`` (n_r,) (batched: (B, n_r))
    for actuator efforts ``tau`` (n_a,) (batched: (B, n_a)), N or N m, from
    (10.123): ``qdd_r = M^-1 ([tau; 0] - c)``.
    With actuation redundancy ``tau`` holds all n_A actuators and
    ``qdd_r = M^-1 (J^T E_A tau - c)`` (8.162)-(8.165), in the independent
    coordinates ``q_r``.
    Raises :class:`flexpkm.errors.IndefiniteMassMatrixError` if M is not
    positive definite."""
    from flexpkm.algorithms.redundancy import is_redundant, redundant_direct_dynamics
    if is_redundant(full):
        return redundant_direct_dynamics(full, tau)
    (M, c, _, _), single = full.batched()
    rhs = -c.copy()
    rhs[:, :full.n_a] += np.asarray(tau, float).reshape(c.shape[0], full.n_a)
    qdd = solve_spd(M, rhs, "M")
    return qdd[0] if single else qdd


def accelerations_tot(full: FullDynamics, qdd_r):
    """``qdd_tot = J qdd_r + b`` (10.119), (n_tot,) or (B, n_tot)."""
    return (full.J @ np.asarray(qdd_r, float)[..., None])[..., 0] + full.b


def point_acceleration(model, full: FullDynamics, qdd_r, frame, axis_frame=None, axis=None):
    """Absolute acceleration of the origin of ``frame`` (m/s^2, base frame):
    (3,) for one state, (B, 3) for a batch; or its component along ``axis``
    (3,) of ``axis_frame``: a scalar, or (B,)."""
    kin = full.kin
    j = model.frame_index[frame]
    (_, _, J, b), single = full.batched()
    qdd_r = np.asarray(qdd_r, float).reshape(J.shape[0], J.shape[2])
    qdd_t = ((J @ qdd_r[..., None])[..., 0] + b)[:, :model.layout.n_t]
    a = (kin.Jv[:, j] @ qdd_t[:, :, None])[..., 0] + kin.a_bias[:, j] + kin.gravity
    if axis_frame is not None:
        u = kin.R[:, model.frame_index[axis_frame]] @ np.asarray(axis, float)
        a = np.sum(a * u, axis=-1)
    return a[0] if single else a
