"""Actuator elasticity in time (Briot & Khalil Section 10.5, Eqs.
10.125-10.126; flexpkm.analysis.motors): convergence to the rigid-actuator
model as k_a grows, energy conservation with the springs' and rotors'
energy, and the linearised frequencies against the modal analysis with
actuator stiffness (Section 11.4), an independent code path."""
import numpy as np
import pytest

import flexpkm as fp
from flexpkm.analysis.drives import EffortHistory, Free, PDControl, PrescribedMotion
from flexpkm.analysis.simulate import simulate
from flexpkm.analysis.simulation_options import SimulationOptions
from flexpkm.analysis.trajectories import Trajectory
from flexpkm.cases import rigid_five_bar as five_bar

from ..algorithms import book_five_bar as bk


def _five_bar(gravity=(0.0, -9.81, 0.0)):
    m = fp.build_model(bk.robot(gravity=gravity))
    q0 = five_bar.configuration(m, 0.0, 0.24)
    full = fp.full_dynamics(m, q0, 0.0)
    return m, q0, full.indep[:full.n_a]


def test_motion_and_efforts_tend_to_the_rigid_actuators():
    """Prescribed motor motion (quintic, 0.1 rad in 25 ms): q_a -> q_a_rigid
    as 1/k_a (quasi-static deflection tau / k_a); tau -> tau_rigid +
    I_a qdd_M more slowly (~ k_a^-1/2: the quintic's jerk steps excite the
    transmission mode, whose force amplitude is M_aa |jerk step| / omega_a)."""
    m, q0, a = _five_bar()
    traj = Trajectory(np.array([q0[a], q0[a] + 0.1]), (0.025,), (0.005,))
    drive, Ia = PrescribedMotion(traj), np.array([1e-4, 2e-4])
    kw = dict(h=5e-4, dt_out=1e-3, friction=False, backend="numpy")
    rigid = simulate(m, q0, 0.03, drive, **kw)
    qdd = traj(rigid.t)[2]
    dq, dtau = [], []
    for k in (1e4, 1e5, 1e6):
        r = simulate(m, q0, 0.03, drive, actuator_stiffness=k, motor_inertia=Ia, **kw)
        np.testing.assert_allclose(r.q_m, traj(r.t)[0], atol=1e-14)      # motors prescribed
        dq.append(np.abs(r.q[:, a] - rigid.q[:, a]).max())
        dtau.append(np.abs(r.tau - rigid.tau - Ia * qdd).max())
        print(f"k_a = {k:.0e} N m/rad: max|q_a - q_a_rigid| = {dq[-1]:.3e} rad, "
              f"max|tau - tau_rigid| = {dtau[-1]:.3e} N m (max|tau_rigid| = "
              f"{np.abs(rigid.tau).max():.3g})")
    ratios = np.array(dq[:-1]) / np.array(dq[1:])
    assert np.all((ratios > 7) & (ratios < 14))                  # ~ 1/k_a
    assert dq[-1] < 5e-5
    assert dtau[0] > dtau[1] > dtau[2] and dtau[2] < 0.15 * np.abs(rigid.tau).max()


def test_free_motion_conserves_the_energy_with_springs_and_rotors():
    """A motor torque pulse (5 ms), then free motors (tau = 0), no gravity
    nor friction, Newmark (alpha = 0): after the pulse, robot kinetic +
    rotors' kinetic + 1/2 k_a (q_M - q_a)^2 is constant to the trapezoidal
    rule's O(h^2), while energy flows through the springs."""
    m, q0, a = _five_bar(gravity=(0.0, 0.0, 0.0))
    k = np.array([50.0, 80.0])
    pulse = EffortHistory(lambda t: np.array([0.05, -0.03]) * (t < 0.005 - 1e-9))
    kw = dict(friction=False, hht_alpha=0.0, tol=1e-9, iterations=12, backend="numpy",
              actuator_stiffness=k, motor_inertia=[2e-4, 3e-4])
    runs = [simulate(m, q0, 0.03, pulse, h=h, dt_out=1e-3, **kw) for h in (1e-3, 5e-4)]
    after = runs[1].t >= 0.005
    drift = [np.abs(r.energies.total[after] - r.energies.total[after][0]).max()
             / r.energies.total[after][0] for r in runs]
    spring = 0.5 * (k * (runs[1].q_m - runs[1].q[:, a]) ** 2).sum(axis=1)
    print(f"energy drift after the pulse: {drift[0]:.2e} (h = 1 ms), {drift[1]:.2e} (0.5 ms); "
          f"spring energy up to {spring[after].max() / runs[1].energies.total[-1]:.0%} of the total")
    assert spring[after].max() > 0.1 * runs[1].energies.total[-1]    # the springs take energy
    assert drift[1] < 1e-7 and drift[0] > 3 * drift[1]                # O(h^2)
    np.testing.assert_allclose(runs[1].energies.total, runs[1].energy, rtol=1e-12)


def test_linearised_frequencies_equal_the_modal_analysis_with_actuator_stiffness():
    """The flexible five-bar at its reference pose, motors held (prescribed
    at rest): the stiffness of the simulated model by central finite
    differences of its forces (the motor evaluator, springs included) with
    its mass matrix gives the natural frequencies of
    ``natural_frequencies(actuator_stiffness=k)`` (11.38-11.42). Tolerance
    1e-6 relative: the finite differences' truncation (eps^2 ~ 1e-12 times
    the third derivatives) and the loop projection's 1e-12."""
    from flexpkm.algorithms.closure import project_on_loops
    from flexpkm.analysis.motors import motor_evaluator
    from flexpkm.analysis.simulation_options import motors_of
    m = fp.build_model(fp.load_robot("cases/examples/five_bar.toml"))
    q0 = m.reference_state.q_tot
    full = fp.full_dynamics(m, q0, 0.0, gravity=(0.0, 0.0, 0.0))
    k = np.array([300.0, 500.0])
    o = SimulationOptions(actuator_stiffness=k, gravity=(0.0, 0.0, 0.0), friction=False)
    drive = PrescribedMotion(lambda t: (np.atleast_2d(q0[full.indep[:2]]),) + (np.zeros((1, 2)),) * 2)
    n_r = len(full.indep)
    evaluate = motor_evaluator(m, drive, full.dep, n_r, motors_of(o, ["q11", "q21"], drive), o)
    q_m, eps = q0[full.indep[:2]], 1e-6

    def g(dq):
        q, _ = project_on_loops(m, q0 + full.J @ dq, full.dep)
        return evaluate(0.0, np.concatenate([q, q_m]), np.zeros(n_r + 2)).g[:n_r]
    K = np.column_stack([(g(eps * e) - g(-eps * e)) / (2 * eps) for e in np.eye(n_r)])
    K = 0.5 * (K + K.T)
    lam = np.sort(np.real(np.linalg.eigvals(np.linalg.solve(full.M, K))))
    f_sim = np.sqrt(lam) / (2 * np.pi)
    f_modal = fp.natural_frequencies(m, q0, actuator_stiffness=k, backend="numpy").frequencies_hz
    np.testing.assert_allclose(f_sim, np.sort(f_modal), rtol=1e-6)


def test_bad_settings_are_refused_and_the_compiled_backend_says_why():
    m, q0, a = _five_bar()
    pd = PDControl(lambda t: (np.atleast_2d(q0[a]),) + (np.zeros((1, 2)),) * 2, 10.0, 1.0)
    with pytest.raises(fp.InvalidArgumentError, match="motor_inertia must be > 0"):
        simulate(m, q0, 0.01, pd, actuator_stiffness=1e3, backend="numpy")
    with pytest.raises(fp.InvalidArgumentError, match="actuator_stiffness must be"):
        simulate(m, q0, 0.01, Free(), actuator_stiffness=[1e3, -1.0], motor_inertia=1e-4)
    with pytest.raises(fp.InvalidArgumentError, match="motor_inertia needs actuator_stiffness"):
        simulate(m, q0, 0.01, Free(), motor_inertia=1e-4)
    with pytest.raises(fp.BackendUnavailableError, match="point-acceleration sensors only"):
        simulate(m, q0, 0.01, Free(), backend="compiled", actuator_stiffness=1e3,
                 motor_inertia=1e-4, sensors={"s": lambda model, full, qdd: 0.0})


def test_motor_torques_of_the_inverse_problem_reproduce_its_motion():
    """Inverse then direct problem on the motor side: the motor torques of a
    prescribed motor motion, given back as an EffortHistory, move the motors
    and the robot along the same motion (both start with the springs
    carrying tau(0)), up to the trapezoidal rule's O(h^2) on q_M (the
    prescribed run takes the law's exact q_M(t))."""
    m, q0, a = _five_bar()
    traj = Trajectory(np.array([q0[a], q0[a] + 0.05]), (0.02,), (0.0,))
    errors = []
    for h in (5e-4, 2.5e-4):
        kw = dict(h=h, dt_out=h, tol=1e-12, iterations=12, friction=False, hht_alpha=0.0,
                  backend="numpy", actuator_stiffness=[2e3, 3e3], motor_inertia=[1e-3, 2e-3])
        inv = simulate(m, q0, 0.02, PrescribedMotion(traj), **kw)
        tau = lambda t: np.array([np.interp(t, inv.t, inv.tau[:, k]) for k in range(2)])
        direct = simulate(m, inv.q[0], 0.02, EffortHistory(tau), **kw)
        errors.append(max(np.abs(direct.q_m - inv.q_m).max(), np.abs(direct.q - inv.q).max()))
    print(f"max|q - q_inv| (motors and robot) = {errors[0]:.2e} (h = 0.5 ms), "
          f"{errors[1]:.2e} (0.25 ms)")
    assert errors[1] < 5e-6 and errors[0] > 3 * errors[1]          # O(h^2), 0.05 rad moved
    res = simulate(m, q0, 0.002, Free(), actuator_stiffness=1e3, motor_inertia=1e-4,
                   sensors={"s": lambda model, full, qdd: 0.0})
    assert res.backend == "numpy" and "sensors only (not: s)" in res.backend_reason   # says why
