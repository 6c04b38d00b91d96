"""Elastic transmissions on the compiled time step (flexpkm.compiled.motors)
against the numpy path (flexpkm.analysis.motors, same HHT scheme, both
Newton iterations converged): positions, motor positions, motor torques and
energies and a point-acceleration sensor on the five-bar (three drives,
motor viscous and Coulomb friction; the DualEMPS's check, whose compile takes ~30 s, is
benchmarks/motors_compiled.py); the convergence to the rigid-actuator model on
the compiled path; the refusal that remains (sensors without a compiled form)."""
import numpy as np
import pytest

import flexpkm as fp
from flexpkm.algorithms.dynamics import point_acceleration
from flexpkm.analysis.drives import EffortHistory, PDControl, PrescribedMotion
from flexpkm.analysis.simulate import simulate
from flexpkm.analysis.trajectories import Trajectory
from flexpkm.cases import rigid_five_bar as five_bar

from ..algorithms import book_five_bar as bk

pytest.importorskip("casadi")
#: the five-bar's motors (N m/rad, kg m^2, N m s/rad, N m)
MOTORS = dict(actuator_stiffness=[1e4, 2e4], motor_inertia=[1e-4, 2e-4],
              motor_viscous=[1e-3, 2e-3], motor_coulomb=[2e-3, 1e-3])


def _five_bar():
    m = fp.build_model(bk.robot(gravity=(0.0, -9.81, 0.0)))
    q0 = five_bar.configuration(m, 0.0, 0.24)
    full = fp.full_dynamics(m, q0, 0.0)
    a = full.indep[:full.n_a]
    return m, q0, a, Trajectory(np.array([q0[a], q0[a] + 0.1]), (0.025,), (0.005,))


def acc_13(model, full, qdd_r):
    """Acceleration of O13 along x12, m/s^2 (a point sensor: compiled too)."""
    return point_acceleration(model, full, qdd_r, "13", axis_frame="12", axis=(1.0, 0.0, 0.0))


acc_13.point = ("13", "12", (1.0, 0.0, 0.0))


def both(model, q0, T, drive, **kw):
    return tuple(simulate(model, q0, T, drive, backend=b, **kw) for b in ("compiled", "numpy"))


@pytest.mark.parametrize("kind", ["prescribed", "effort", "pd"])
def test_five_bar_with_motors_agrees_with_numpy(kind):
    m, q0, a, traj = _five_bar()
    drive = {"prescribed": lambda: PrescribedMotion(traj),
             "effort": lambda: EffortHistory(lambda t: np.array([0.05, -0.03]) * (t < 0.005)),
             "pd": lambda: PDControl(traj, 10.0, 1.0)}[kind]()
    c, n = both(m, q0, 0.03, drive, h=5e-4, tol=1e-12, iterations=10, hht_alpha=0.0,
                friction=False, sensors={"acc_13": acc_13}, **MOTORS)
    assert c.backend == "compiled" and n.backend == "numpy"
    assert np.abs(c.q - n.q).max() < 1e-9 and np.abs(c.q_m - n.q_m).max() < 1e-9
    assert np.abs(c.qd_m - n.qd_m).max() < 1e-8 * max(np.abs(n.qd_m).max(), 1.0)
    assert np.abs(c.tau - n.tau).max() < 1e-9 * np.abs(n.tau).max()
    np.testing.assert_allclose(c.energies.total, n.energies.total, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(c.energies.elastic, n.energies.elastic, rtol=1e-9, atol=1e-12)
    acc = n.sensors["acc_13"]
    assert np.abs(c.sensors["acc_13"] - acc).max() < 1e-8 * np.abs(acc).max()


def test_motion_tends_to_the_rigid_actuators_on_the_compiled_path():
    """The convergence table of tests/analysis/test_actuator_elasticity.py
    on the compiled path (two stiffnesses: each set of motors compiles
    once; the whole table in benchmarks/motors_compiled.py): max|q_a -
    q_a_rigid| falls as 1/k_a (the quasi-static deflection tau / k_a), and
    each run equals numpy's. Newton's tol 1e-10: at 1e-12 the stiff
    springs' round-off stalls the relative residual (k_a = 1e6: 9.8e-12)
    and both paths retry steps."""
    m, q0, a, traj = _five_bar()
    drive, Ia = PrescribedMotion(traj), np.array([1e-4, 2e-4])
    kw = dict(h=5e-4, dt_out=1e-3, friction=False, tol=1e-10, iterations=10)
    rigid = simulate(m, q0, 0.03, drive, backend="numpy", **kw)
    dq = []
    for k in (1e5, 1e6):
        c, n = both(m, q0, 0.03, drive, actuator_stiffness=k, motor_inertia=Ia, **kw)
        dq.append(np.abs(c.q[:, a] - rigid.q[:, a]).max())
        assert np.abs(c.q - n.q).max() < 1e-9
        print(f"k_a = {k:.0e} N m/rad: max|q_a - q_a_rigid| = {dq[-1]:.3e} rad (compiled), "
              f"compiled - numpy {np.abs(c.q - n.q).max():.1e}")
    assert 7 < dq[0] / dq[1] < 14 and dq[1] < 5e-5


def test_sensors_with_motors_are_refused_by_name():
    m, q0, a, traj = _five_bar()
    acc = {"acc": lambda model, full, qdd: float(qdd[0])}
    with pytest.raises(fp.BackendUnavailableError, match="point-acceleration sensors only.*acc"):
        simulate(m, q0, 0.002, PrescribedMotion(traj), backend="compiled", sensors=acc, **MOTORS)
    res = simulate(m, q0, 0.002, PrescribedMotion(traj), sensors=acc, **MOTORS)
    assert res.backend == "numpy" and "point-acceleration sensors only" in res.backend_reason
