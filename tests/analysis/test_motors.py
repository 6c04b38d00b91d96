"""Motor friction of the elastic transmissions (flexpkm.analysis.motors;
Briot & Khalil (10.125) with the friction model (8.31), the sign smoothed
by tanh(qd_M / eps)): the power balance of the motors and the robot, and
the static check (a torque below f_sM only creeps)."""
import numpy as np
import pytest

import flexpkm as fp
from flexpkm.analysis.drives import EffortHistory
from flexpkm.analysis.simulate import simulate
from flexpkm.cases import rigid_five_bar as five_bar

from ..algorithms import book_five_bar as bk

#: the motors: transmission stiffness, rotor inertia (joint side), friction
MOTORS = dict(actuator_stiffness=[50.0, 80.0], motor_inertia=[2e-4, 3e-4],
              motor_viscous=[2e-3, 1e-3], motor_coulomb=[4e-3, 6e-3])


def _five_bar():
    m = fp.build_model(bk.robot(gravity=(0.0, 0.0, 0.0)))
    q0 = five_bar.configuration(m, 0.0, 0.24)
    full = fp.full_dynamics(m, q0, 0.0)
    return m, q0, full.indep[:full.n_a]


def _trapezoid(y, t):
    return np.concatenate([[0.0], np.cumsum(0.5 * (y[1:] + y[:-1]) * np.diff(t))])


def test_energy_lost_equals_the_work_of_the_motor_friction():
    """A motor torque pulse (10 ms, smooth), then free motors; no gravity,
    no joint friction, Newmark (alpha = 0). The energy of the robot, the
    rotors and the springs changes by the drive's work minus the friction's,
    ``dE/dt = tau qd_M - F_vM qd_M^2 - f_sM qd_M tanh(qd_M / eps)`` (the
    power balance of (10.125)), integrated by the trapezoidal rule at every
    step: the balance closes to the scheme's O(h^2) while the friction
    takes a large part of the energy given."""
    m, q0, a = _five_bar()
    amp = np.array([0.06, -0.04])
    tau = EffortHistory(lambda t: amp * np.sin(np.pi * t / 0.01) ** 2 * (t < 0.01))
    errors, lost = [], []
    for h in (2e-4, 1e-4):
        r = simulate(m, q0, 0.03, tau, h=h, dt_out=h, friction=False, hht_alpha=0.0, tol=1e-12,
                     iterations=12, coulomb_smoothing=1e-2, backend="numpy", **MOTORS)
        fv, fc = np.array(MOTORS["motor_viscous"]), np.array(MOTORS["motor_coulomb"])
        qd = r.qd_m
        drive = _trapezoid((r.tau * qd).sum(axis=1), r.t)
        friction = _trapezoid((fv * qd ** 2 + fc * qd * np.tanh(qd / 1e-2)).sum(axis=1), r.t)
        balance = r.energies.total - r.energies.total[0] - drive + friction
        errors.append(np.abs(balance).max() / drive.max())
        lost.append(friction[-1] / drive.max())
    print(f"power balance error / work given: {errors[0]:.2e} (h = 0.2 ms), {errors[1]:.2e} "
          f"(0.1 ms); friction took {lost[1]:.0%} of the work given")
    assert lost[1] > 0.2                                  # the friction matters
    assert errors[1] < 1e-3 and 3.5 < errors[0] / errors[1] < 4.5   # O(h^2)


def test_a_torque_below_the_coulomb_friction_only_creeps():
    """A constant motor torque 0.5 f_sM: the motor creeps at most at the
    regularisation's speed eps atanh(0.5) (the spring load on it stays
    below tau: it starts at tau, the robot is free); twice f_sM moves it
    over ten times more (the spring and the robot's inertia hold it)."""
    m, q0, a = _five_bar()
    fc, eps, T = np.array(MOTORS["motor_coulomb"]), 1e-3, 0.05
    moved = []
    for ratio in (0.5, 2.0):
        drive = EffortHistory(lambda t, ratio=ratio: ratio * fc)
        r = simulate(m, q0, T, drive, h=2.5e-4, friction=False, coulomb_smoothing=eps,
                     backend="numpy", **dict(MOTORS, motor_viscous=0.0))
        moved.append(np.abs(r.q_m - r.q_m[0]).max(axis=0))
    creep = eps * np.arctanh(0.5) * T
    print(f"motor displacement: {moved[0]} rad (creep bound {creep:.2e}) at 0.5 f_sM, "
          f"{moved[1]} rad at 2 f_sM")
    assert np.all(moved[0] <= 1.05 * creep)
    assert np.all(moved[1] > 10 * creep)


def test_a_negative_coulomb_friction_is_refused():
    m, q0, a = _five_bar()
    with pytest.raises(fp.InvalidArgumentError, match="motor_coulomb must be"):
        simulate(m, q0, 0.01, EffortHistory(lambda t: np.zeros(2)), backend="numpy",
                 **dict(MOTORS, motor_coulomb=[-1.0, 0.0]))
    with pytest.raises(fp.InvalidArgumentError, match="motor_coulomb needs actuator_stiffness"):
        simulate(m, q0, 0.01, EffortHistory(lambda t: np.zeros(2)), motor_coulomb=1.0)
