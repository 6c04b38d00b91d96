"""Full model (10.115)-(10.124) on the DualEMPS with q_e != 0: b against a
numerically solved constrained path, M and c against Lagrange's equations in
the independent coordinates, inverse-direct consistency."""
import numpy as np
import scipy.optimize as so

from flexpkm.cases import dualemps as D
from flexpkm.algorithms.dynamics import (direct_dynamics, full_dynamics, inverse_dynamics,
                                         point_acceleration)

from .test_closure import loop_residual


def deformed_state(robot, seed=0):
    """An assembled DualEMPS state with q_e != 0: independent elastic
    coordinates set, dependent ones solved from the loop equations."""
    layout = robot.layout
    q = D.configuration(robot, 0.03, 0.08)
    m = full_dynamics(robot, q, np.zeros(11))
    rng = np.random.default_rng(seed)
    for i in m.indep:
        if layout.names[i].startswith("qe"):
            q[i] = 1e-3 * rng.normal()
    return solve_dep(robot, q, m.dep), m.dep, m.indep


def solve_dep(robot, q, dep):
    def f(x):
        qq = q.copy()
        qq[dep] = x
        return loop_residual(robot, qq)
    out = q.copy()
    out[dep] = so.fsolve(f, q[dep], xtol=1e-13)
    return out


def test_b_is_second_derivative_of_constrained_path():
    robot = D.robot()
    q, dep, r = deformed_state(robot)
    rng = np.random.default_rng(3)
    qd_r = rng.normal(size=len(r)) * 0.3
    full = full_dynamics(robot, q, qd_r, dep=dep, gravity=np.zeros(3))
    eps = 1e-4

    def path(t):
        qq = q.copy()
        qq[r] = q[r] + t * qd_r
        return solve_dep(robot, qq, dep)

    qdd_fd = (path(eps) - 2 * q + path(-eps)) / eps ** 2
    qd_fd = (path(eps) - path(-eps)) / (2 * eps)
    np.testing.assert_allclose(full.J @ qd_r, qd_fd, atol=1e-7)
    np.testing.assert_allclose(full.b[dep], qdd_fd[dep], atol=2e-4 * np.abs(qdd_fd).max())


def test_inverse_then_direct_roundtrip():
    robot = D.robot()
    q, dep, r = deformed_state(robot, seed=1)
    qd_r = np.random.default_rng(4).normal(size=len(r)) * 0.2
    full = full_dynamics(robot, q, qd_r, dep=dep)
    qdd_a = np.array([0.7, -0.3])
    tau, qdd_c = inverse_dynamics(full, qdd_a)
    qdd = direct_dynamics(full, tau)
    np.testing.assert_allclose(qdd[:2], qdd_a, atol=1e-8)
    np.testing.assert_allclose(qdd[2:], qdd_c, rtol=1e-8, atol=1e-8)


def test_power_balance_of_full_dynamics():
    """tau.qd_a = dE/dt: qd_r . c = 1/2 qd_r^T dM/dt qd_r + dU/dt (no gravity,
    no friction) along the constrained motion."""
    robot = D.robot(gravity=(0.0, 0.0, 0.0))
    q, dep, r = deformed_state(robot, seed=2)
    qd_r = np.random.default_rng(5).normal(size=len(r)) * 0.2
    m0 = full_dynamics(robot, q, qd_r, dep=dep, friction=False)
    eps = 1e-5
    qp = q.copy(); qp[r] += eps * qd_r; qp = solve_dep(robot, qp, dep)
    qm = q.copy(); qm[r] -= eps * qd_r; qm = solve_dep(robot, qm, dep)
    Mdot = (full_dynamics(robot, qp, qd_r, dep=dep).M - full_dynamics(robot, qm, qd_r, dep=dep).M) / (2 * eps)
    from flexpkm.model import build_structure
    K = build_structure(robot).K_tot
    Udot = (0.5 * qp @ K @ qp - 0.5 * qm @ K @ qm) / (2 * eps)
    lhs = qd_r @ m0.c
    rhs = 0.5 * qd_r @ Mdot @ qd_r + Udot
    assert abs(lhs - rhs) < 1e-5 * max(abs(rhs), 1e-9) + 1e-9


def test_one_pose_in_one_pose_out_and_batch():
    """full_dynamics, inverse/direct dynamics and point_acceleration: one state
    gives arrays without the batch axis, a batch of two gives the same
    numbers with the axis (computed independently, pose by pose)."""
    robot = D.robot()
    states = [deformed_state(robot, seed=s) for s in (6, 7)]
    dep = states[0][1]
    q = np.stack([states[0][0], states[1][0]])
    qd = np.random.default_rng(8).normal(size=(2, 11)) * 0.2
    qdd_a = np.array([[0.7, -0.3], [-0.2, 0.4]])
    batch = full_dynamics(robot, q, qd, dep=dep)
    assert batch.M.shape == (2, 11, 11) and batch.J.shape == (2, 16, 11)
    tau_b, qdd_c_b = inverse_dynamics(batch, qdd_a)
    acc_b = point_acceleration(robot, batch, np.hstack([qdd_a, qdd_c_b]), "18")
    for k in range(2):
        one = full_dynamics(robot, q[k], qd[k], dep=dep)
        assert one.M.shape == (11, 11) and one.c.shape == (11,)
        assert one.J.shape == (16, 11) and one.b.shape == (16,)
        for x, y in ((one.M, batch.M[k]), (one.c, batch.c[k]), (one.J, batch.J[k]),
                     (one.b, batch.b[k])):
            np.testing.assert_allclose(x, y, rtol=1e-10, atol=1e-10 * np.abs(y).max())
        tau, qdd_c = inverse_dynamics(one, qdd_a[k])
        assert tau.shape == (2,) and qdd_c.shape == (9,)
        np.testing.assert_allclose(tau, tau_b[k], rtol=1e-10)
        qdd = direct_dynamics(one, tau)
        assert qdd.shape == (11,)
        np.testing.assert_allclose(qdd[:2], qdd_a[k], atol=1e-8)
        acc = point_acceleration(robot, one, qdd, "18")
        assert acc.shape == (3,)
        np.testing.assert_allclose(acc, acc_b[k], rtol=1e-7, atol=1e-9)
        a_y = point_acceleration(robot, one, qdd, "18", axis_frame="17", axis=(0.0, 1.0, 0.0))
        assert np.ndim(a_y) == 0
