"""The twin contained (issue 17 item 4): the declared table of the functions
that exist twice, once in numpy (:mod:`flexpkm.algorithms`,
:mod:`flexpkm.analysis.hht`, :mod:`flexpkm.spatial`: the reference) and once
in CasADi (:mod:`flexpkm.compiled`: symbolic, generated C code).

:data:`PAIRS` drives the parity tests (``tests/analysis/test_parity.py``):
each pair is evaluated on the shipped robots at a random state by its
``values`` adapter (the same numbers to both sides) and must agree to
round-off. A public function of :mod:`flexpkm.compiled` that has the name of
a numpy function and is not in the table fails a test, and so does a
function of the twin's modules (``symbolic``, ``full``) that is neither a
pair nor declared in :data:`COVERED`. Paired functions of one name take the
same arguments in the same order (``kin``, ``full`` are then the symbolic
counterparts of TreeKinematics and FullDynamics), unless ``signature`` says why
not.

The table sits in the analysis layer, the lowest one that sees both twins
and the numpy time step (:mod:`flexpkm.analysis.hht`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import casadi as ca
import numpy as np

from flexpkm.algorithms import closure, dynamics, modal, platform, tree, virtual_system
from flexpkm.algorithms.assembly import reference_configuration
from flexpkm.analysis import hht
from flexpkm.compiled import full, recursive, step, symbolic
from flexpkm.compiled import modal as compiled_modal
from flexpkm.compiled.robot import CompiledRobot
from flexpkm import spatial


@dataclass(frozen=True, kw_only=True)
class Pair:
    """One mirrored function.

    numpy : the reference function; compiled : its CasADi twin;
    values : ``values(model, state) -> [(what, numpy array, compiled array)]``,
        both sides evaluated on the same numbers (:class:`State`): the
        argument adapter;
    signature : ``"same"`` (same argument names and order) or why not.
    """

    numpy: Callable
    compiled: Callable
    values: Callable
    signature: str = "same"


@dataclass(frozen=True)
class State:
    """A random state of a model: q_open (n_tot,) near its reference
    configuration (joint coordinates 0.01 off, elastic coordinates 1e-3:
    the loops open), q the same with the loops closed (the dependent
    coordinates moved), qd_r, qdd_r (n_r,), the numpy full model at (q,
    qd_r) (its q_dep and kept rows) and the twin for them (virtual machine)."""

    q: np.ndarray
    q_open: np.ndarray
    qd_r: np.ndarray
    qdd_r: np.ndarray
    full: object
    twin: CompiledRobot


def random_state(model, rng) -> State:
    """A :class:`State` of ``model`` (a Model with its reference state)."""
    q_open = reference_configuration(model).copy()
    q_open[:model.layout.n_t] += 0.01 * rng.standard_normal(model.layout.n_t)
    for sl in model.layout.elastic_slice.values():
        q_open[sl] = 1e-3 * rng.standard_normal(sl.stop - sl.start)
    fm = dynamics.full_dynamics(model, reference_configuration(model), 0.0)
    q = closure.project_on_loops(model, q_open, fm.dep)[0]
    n_r = len(fm.indep)
    qd_r, qdd_r = rng.standard_normal(n_r), rng.standard_normal(n_r)
    fm = dynamics.full_dynamics(model, q, qd_r, dep=fm.dep, loop_tol=None, coulomb_smoothing=1e-3)
    kept = None if fm.rows is None or not len(fm.rows.dropped) else fm.rows.kept
    return State(q, q_open, qd_r, qdd_r, fm,
                 CompiledRobot(model, dep=fm.dep, kept=kept, compile=False))


def evaluated(inputs, outputs, values) -> list:
    """The SX ``outputs`` of the SX symbols ``inputs`` at the numbers ``values``."""
    fn = ca.Function("parity", list(inputs), list(outputs))
    return [np.array(v) for v in fn(*values)] if len(outputs) > 1 else [np.array(fn(*values))]


def _q_t(model):
    return ca.SX.sym("q_t", model.layout.n_t)


def _tree_dynamics(model, s: State):
    n_t, g = model.layout.n_t, np.asarray(model.gravity, float)
    q, qd = _q_t(model), ca.SX.sym("qd_t", n_t)
    qd_t = (s.full.J @ s.qd_r)[:n_t]
    M, c = virtual_system.tree_dynamics(model, s.q[:n_t], qd_t, gravity=g, coulomb_smoothing=1e-3)
    M_sx, c_sx = symbolic.tree_dynamics(model, q, qd, gravity=ca.SX(g), coulomb_smoothing=1e-3)
    M_c, c_c = evaluated([q, qd], [M_sx, c_sx], [s.q[:n_t], qd_t])
    return [("M_t", M[0], M_c), ("c_t", c[0], c_c[:, 0])]


def _closure_residual(model, s: State):
    q = ca.SX.sym("q", model.layout.n_tot)
    h = evaluated([q], [symbolic.closure_residual(model, q)], [s.q_open])[0]
    return [("h", closure.closure_residual(model, s.q_open)[0], h[:, 0])]


def _point_acceleration(model, s: State):
    frame = model.robot.frames[-1].name
    sm = s.twin.symbolic
    qdd = ca.SX.sym("qdd_r", len(s.qdd_r))
    a = full.point_acceleration(model, sm, qdd, frame)
    args = [s.q, s.qd_r, model.gravity, 1.0, 1e-3, s.qdd_r]
    a_c = evaluated(sm.inputs + [qdd], [a], args)[0]
    return [("a", dynamics.point_acceleration(model, s.full, s.qdd_r, frame), a_c[:, 0])]


def _kernel_graph(model, s: State):
    """The kernel graph (:mod:`flexpkm.compiled.recursive`) for the state's
    q_dep and kept rows, and its inputs' numbers at the state."""
    kept = None if s.full.rows is None or not len(s.full.rows.dropped) else s.full.rows.kept
    km = recursive.kernel_dynamics(model, s.full.dep, kept)
    return km, [s.q, s.qd_r, model.gravity, 1.0, 1e-3]


def _kernel_tree_dynamics(model, s: State):
    km, args = _kernel_graph(model, s)
    n_t, g = model.layout.n_t, np.asarray(model.gravity, float)
    qd_t = (s.full.J @ s.qd_r)[:n_t]
    M, c = virtual_system.tree_dynamics(model, s.q[:n_t], qd_t, gravity=g, coulomb_smoothing=1e-3)
    M_c, c_c = evaluated(km.inputs, [km.M_tot[:n_t, :n_t], km.c_tot[:n_t]], args)
    return [("M_t", M[0], M_c), ("c_t", c[0], c_c[:, 0])]


def _kernel_point_acceleration(model, s: State):
    frame = model.robot.frames[-1].name
    km, args = _kernel_graph(model, s)
    qdd = ca.MX.sym("qdd_r", len(s.qdd_r))
    a_c = evaluated(km.inputs + [qdd], [recursive.point_acceleration(model, km, qdd, frame)],
                    args + [s.qdd_r])[0]
    return [("a", dynamics.point_acceleration(model, s.full, s.qdd_r, frame), a_c[:, 0])]


def _full_dynamics(model, s: State):
    out = s.twin.evaluate(s.q, s.qd_r, coulomb_smoothing=1e-3)
    return [(k, getattr(s.full, k), out[k]) for k in ("M", "c", "J", "b")]


def _reduced_matrices(model, s: State):
    if compiled_modal.modal_problem(model) is not None:
        return []
    q = reference_configuration(model)
    ours, ref = compiled_modal.reduced_matrices(model, q), modal.reduced_matrices(model, q)
    return [(k, getattr(ref, k), getattr(ours, k)) for k in ("M_r", "K_r", "J_d")]


def _relative_residual(model, s: State):
    rng = np.random.default_rng(len(s.q))
    res, inertial, forces = (rng.standard_normal(sh) for sh in ((5,), (5,), (3, 5)))
    rho = step.relative_residual(ca.DM(res), ca.DM(inertial), ca.DM(forces.T))
    return [("rho", np.array(hht.relative_residual(res, inertial, forces)), np.array(rho))]


def _newmark(model, s: State):
    fm, n_a, n_r = s.full, s.full.n_a, len(s.qd_r)
    a = s.qdd_r
    p = hht.HHT(h=1e-3, alpha=0.05, unknown=np.arange(n_r), fixed_q=np.arange(0),
                fixed_r=np.arange(0))
    a1 = a + 0.1
    q1, v1 = hht.newmark(p, hht.StepState(0.0, s.q, s.qd_r, a, np.zeros(n_r), fm),
                         (fm.J @ s.qd_r, fm.J @ a + fm.b), a1, fm)
    x = s.twin.pack(s.q, s.qd_r, a, np.zeros(n_r), fm.J, fm.b, dense=True)
    par = s.twin.parameters(np.zeros(n_a), np.zeros(n_a), p.h, p.alpha, model.gravity, 1.0, 1e-3)
    dims = step.Dims(model.layout.n_tot, n_r, n_a, tuple(int(i) for i in fm.indep))
    q1_c, v1_c = step.newmark(dims, ca.DM(x), ca.DM(a1), ca.DM(fm.J), ca.DM(fm.b),
                              ca.DM.zeros(3 * n_a), ca.DM(par), False)
    return [("q1", q1, np.array(q1_c)[:, 0]), ("v1", v1, np.array(v1_c)[:, 0])]


def _skew(model, s: State):
    v = s.q[:3] if len(s.q) >= 3 else np.array([0.1, -0.2, 0.3])
    return [("skew", spatial.skew(v), np.array(symbolic.hat(ca.DM(v))))]


def _rotation_matrix(model, s: State):
    r = np.array([0.3, -0.2, 0.5]) * (1 + s.qd_r[0])
    return [("R", spatial.rotation_matrix(r), np.array(ca.evalf(symbolic.rodrigues(ca.DM(r)))))]


def _frame_poses(model, s: State):
    n_t = model.layout.n_t
    q = _q_t(model)
    R, p = symbolic.frame_poses(model, q)
    out = evaluated([q], [ca.vertcat(*[ca.vec(r) for r in R]), ca.vertcat(*p)], [s.q[:n_t]])
    kin = tree.tree_kinematics(model, s.q[:n_t])
    R_c = out[0][:, 0].reshape(-1, 3, 3).transpose(0, 2, 1)       # column-major blocks
    return [("R_0j", kin.R[0], R_c), ("O_j", kin.p[0], out[1][:, 0].reshape(-1, 3))]


def _closure_rows(model, s: State):
    n_t, n_tot = model.layout.n_t, model.layout.n_tot
    q, qd = ca.SX.sym("q", n_tot), ca.SX.sym("qd", n_tot)
    R, p = symbolic.frame_poses(model, q[:n_t])
    vel = [symbolic.twist(Rj, pj, q[:n_t], qd[:n_t]) for Rj, pj in zip(R, p)]
    R_p, P, t_p = ca.SX.eye(3), ca.SX.zeros(3, 1), None
    if model.platform is not None:
        R_p, P, t_p = symbolic.platform_dynamics(model, q[n_t:], qd[n_t:], ca.SX.zeros(3))[2:]
    rows = symbolic.closure_rows(model, R, p, vel, R_p, P, t_p)
    J_c = evaluated([q, qd], [ca.jacobian(rows, qd)], [s.q, np.zeros(n_tot)])[0]
    kin = tree.tree_kinematics(model, s.q[None, :n_t])
    pose = platform.platform_pose(model, s.q[None])
    return [("J_tot", closure.constraint_jacobian(model, kin, pose)[0][0], J_c)]


def _platform_dynamics(model, s: State):
    pl = model.platform
    if pl is None:
        return []
    n_t = model.layout.n_t
    x, xd = ca.SX.sym("x_p", len(pl.dofs)), ca.SX.sym("xd_p", len(pl.dofs))
    M_c = evaluated([x, xd], [symbolic.platform_dynamics(model, x, xd, ca.SX(model.gravity))[0]],
                    [s.q[n_t:], np.zeros(len(pl.dofs))])[0]
    R_0p = platform.platform_pose(model, s.q[None]).R
    S = np.eye(6)[:, list(pl.dofs)]
    return [("M_p", S.T @ platform.platform_mass_matrix(pl, R_0p)[0] @ S, M_c)]


def _dependent_solve(model, s: State):
    fm = s.full
    if not len(fm.dep):
        return []
    J_tot = fm.J_tot
    rhs = J_tot[:, list(fm.indep)]
    kept = None if fm.rows is None or not len(fm.rows.dropped) else list(fm.rows.kept)
    out = np.array(ca.evalf(symbolic.dependent_solve(model, ca.DM(J_tot[:, list(fm.dep)]),
                                                     ca.DM(rhs), fm.dep, kept)))
    return [("J_d", fm.J[list(fm.dep)], -out)]


#: the mirrored pairs (numpy, CasADi), each with its argument adapter
PAIRS = (
    Pair(numpy=modal.reduced_matrices, compiled=compiled_modal.reduced_matrices,
         values=_reduced_matrices),
    Pair(numpy=virtual_system.tree_dynamics, compiled=symbolic.tree_dynamics,
         values=_tree_dynamics),
    Pair(numpy=closure.closure_residual, compiled=symbolic.closure_residual,
         values=_closure_residual),
    Pair(numpy=dynamics.point_acceleration, compiled=full.point_acceleration,
         values=_point_acceleration),
    Pair(numpy=virtual_system.tree_dynamics, compiled=recursive.tree_dynamics,
         values=_kernel_tree_dynamics,
         signature="the kernel graph's: its kernels and frames (built once by kernel_dynamics) "
                   "and the q_tot columns; checked through kernel_dynamics' M_tot, c_tot"),
    Pair(numpy=dynamics.point_acceleration, compiled=recursive.point_acceleration,
         values=_kernel_point_acceleration),
    Pair(numpy=dynamics.full_dynamics, compiled=CompiledRobot.evaluate, values=_full_dynamics,
         signature="a method of the CompiledRobot, which holds q_dep and the kept rows"),
    Pair(numpy=hht.relative_residual, compiled=step.relative_residual, values=_relative_residual),
    Pair(numpy=hht.newmark, compiled=step.newmark, values=_newmark,
         signature="the generated step works on the packed state vector x "
                   "(compiled.step.layout) and the parameter vector par"),
    Pair(numpy=spatial.skew, compiled=symbolic.hat, values=_skew,
         signature="one 3-vector (no batch)"),
    Pair(numpy=spatial.rotation_matrix, compiled=symbolic.rodrigues, values=_rotation_matrix,
         signature="one rotation vector (no batch)"),
    Pair(numpy=tree.tree_kinematics, compiled=symbolic.frame_poses, values=_frame_poses,
         signature="the poses only: the twists are AD derivatives of them"),
    Pair(numpy=closure.constraint_jacobian, compiled=symbolic.closure_rows,
         values=_closure_rows, signature="the rows J_tot qd_tot, whose AD Jacobian is J_tot"),
    Pair(numpy=platform.platform_mass_matrix, compiled=symbolic.platform_dynamics,
         values=_platform_dynamics,
         signature="the platform's mass matrix, bias wrench and pose in one"),
    Pair(numpy=closure.solve_closure, compiled=symbolic.dependent_solve,
         values=_dependent_solve, signature="J_t^f^-1 rhs for a fixed q_dep (no choice)"),
)

#: the twin's public functions without a numpy function of their own, and
#: where they are checked
COVERED = {
    symbolic.vee: "inverse of hat; in the cut joints' rows (closure_rows, closure_residual)",
    symbolic.rot: "in frame_poses",
    symbolic.twist: "in closure_rows and full_dynamics (the frames' twists by AD)",
    symbolic.body_mass_matrix: "in tree_dynamics",
    symbolic.tree_lagrangian: "in tree_dynamics",
    symbolic.joint_friction: "in tree_dynamics and full_dynamics (both graphs)",
    symbolic.left_jacobian: "in full_dynamics (the Delta's rotational platform, both graphs)",
    symbolic.rotation_vector_rate: "in full_dynamics (b') of the Delta's rotational platform",
    full.virtual_system: "in full_dynamics",
    full.position_rates: "in full_dynamics",
    full.symbolic_dynamics: "in full_dynamics, point_acceleration",
}
