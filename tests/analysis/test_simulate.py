"""Time simulation of the DualEMPS (short spans; the long runs are in the
benchmarks and the resolve notes): energy of a free vibration, inverse then
direct problem, loop-closure drift."""
import numpy as np

from flexpkm.cases import dualemps as D
from flexpkm.algorithms.closure import project_on_loops
from flexpkm.algorithms.dynamics import full_dynamics
from flexpkm.algorithms.modal import reduced_matrices
from flexpkm.analysis.drives import EffortHistory, Free
from flexpkm.analysis.simulate import simulate


def statically_deflected(robot, force=1.0):
    """Assembled state deflected by a force (N) at P along x0, actuators locked."""
    q0 = D.initial_state(robot)
    red = reduced_matrices(robot, q0)
    K, J = red.K_r[2:, 2:], red.J[:, 2:]
    f = np.zeros(robot.layout.n_tot)
    f[robot.layout.index("x_P")] = force
    q = q0 + J @ np.linalg.solve(K, J.T @ f)
    return project_on_loops(robot, q, full_dynamics(robot, q0, 0.0).dep)[0]


def test_free_vibration_conserves_energy():
    robot = D.robot(gravity=(0.0, 0.0, 0.0))
    q = statically_deflected(robot)
    coarse = simulate(robot, q, 0.05, Free(), friction=False, hht_alpha=0.0)
    fine = simulate(robot, q, 0.05, Free(), friction=False, hht_alpha=0.0, h=3.125e-5)
    e_coarse, e_fine = (np.abs(r.energy - r.energy[0]).max() / r.energy[0] for r in (coarse, fine))
    assert coarse.energy[0] > 1e-5
    assert e_fine < 1e-6                       # the trapezoidal rule's O(h^2) error ...
    assert e_coarse > 10 * e_fine              # ... shrinks with the step: the model conserves energy
    assert max(coarse.drift.max(), fine.drift.max()) < 1e-9


def test_inverse_then_direct_reproduces_motion():
    robot, q0, drive, _ = D.simulation_setup("fast")
    h = 2.5e-4
    kw = dict(h=h, dt_out=h, iterations=6, tol=1e-13, hht_alpha=0.0)
    inv = simulate(robot, q0, 0.04, drive, **kw)
    tau = lambda t: np.array([np.interp(t, inv.t, inv.tau[:, k]) for k in range(2)])
    direct = simulate(robot, q0, 0.04, EffortHistory(tau), **kw)
    assert np.abs(direct.q - inv.q).max() < 1e-6
    assert max(inv.drift.max(), direct.drift.max()) < 1e-9


def test_pd_tracks_the_maneuver():
    robot, q0, drive, sensors = D.simulation_setup("fast", drive="pd")
    res = simulate(robot, q0, 0.05, drive, sensors=sensors, backend="numpy")
    q_ref = drive.trajectory(res.t)[0]
    qa = res.q[:, list(robot.layout.actuated)]
    assert np.abs(qa - q_ref).max() < 5e-3
    assert np.all(np.isfinite(res.sensors["acc_P_y17"]))


def test_hht_step_on_a_linear_oscillator():
    """The pure HHT step with alpha = 0 (Newmark average acceleration) on
    m x'' + k x = 0: the energy is conserved exactly and the phase advances by
    2 arctan(omega h / 2) per step (the trapezoidal rule's known period error)."""
    from types import SimpleNamespace
    from flexpkm.analysis.hht import HHT, Evaluation, StepState, hht_step
    m, k, h = 2.0, 800.0, 0.01
    w = np.sqrt(k / m)
    model = SimpleNamespace(J=np.eye(1), b=np.zeros(1), M=np.array([[m]]))

    def evaluate(t, q, v):
        return Evaluation(model, k * q, np.zeros((1, 1)), np.array([[k]]))
    p = HHT(h, 0.0, np.array([0]), np.array([], int), np.array([], int), tol=1e-14,
            iterations=5)
    s = StepState(0.0, np.array([1.0]), np.zeros(1), np.array([-k / m]), np.array([k]), model)
    q0 = s.q.copy()
    n = 100
    for _ in range(n):
        s, _ = hht_step(p, s, s.a, evaluate)
    assert np.array_equal(q0, [1.0])                      # the step did not modify its input
    energy = 0.5 * m * s.v[0] ** 2 + 0.5 * k * s.q[0] ** 2
    assert abs(energy - 0.5 * k) < 1e-10 * k
    phase = n * 2 * np.arctan(w * h / 2)
    assert abs(s.q[0] - np.cos(phase)) < 1e-10
    assert abs(s.v[0] + w * np.sin(phase)) < 1e-9 * w


def test_drives_and_progress_callback():
    from flexpkm.analysis.drives import PDControl, PrescribedMotion
    from flexpkm.errors import InvalidArgumentError
    import pytest
    robot, q0, drive, _ = D.simulation_setup("fast")
    assert isinstance(drive, PrescribedMotion) and drive.prescribes_actuators
    with pytest.raises(InvalidArgumentError):
        drive.efforts(0.0, np.zeros(2), np.zeros(2))
    assert isinstance(D.simulation_setup("fast", drive="pd")[2], PDControl)
    with pytest.raises(InvalidArgumentError):
        D.simulation_setup("fast", drive="sideways")
    with pytest.raises(InvalidArgumentError):
        simulate(robot, q0, 0.003, "prescribed")
    calls = []
    simulate(robot, q0, 0.003, drive, progress=lambda done, total: calls.append((done, total)))
    assert calls == [(1, 3), (2, 3), (3, 3)]


def test_free_motion_conserves_the_total_energy_with_gravity_and_a_wrench():
    """Issue 20: a free rigid five-bar falling under in-plane gravity and a
    constant force at P (its potential is ``-F . P``), no friction, Newmark
    (alpha = 0): kinetic + gravity + elastic - F . P is constant."""
    import flexpkm as fp
    from ..algorithms import book_five_bar as bk
    from flexpkm.cases import rigid_five_bar as five_bar
    robot = fp.build_model(bk.robot(gravity=(0.0, -9.81, 0.0)))
    q = five_bar.configuration(robot, 0.0, 0.24)
    F = np.array([2.0, 1.0, 0, 0, 0, 0])
    res = simulate(robot, q, 0.05, Free(), friction=False, hht_alpha=0.0, h=2.5e-4, tol=1e-9,
                   wrench=F, backend="numpy")
    e = res.energies
    assert e.kinetic[-1] > 0.04                               # it moved (0.047 J)
    H = e.total - res.q[:, -2:] @ F[:2]
    assert np.abs(H - H[0]).max() < 1e-5 * e.kinetic.max()
    np.testing.assert_allclose(e.kinetic + e.elastic, res.energy, rtol=1e-12)


def test_wrench_in_time_and_the_compiled_backend_refuses_it():
    """The power of a wrench f(t) goes into the energy (trapezoid rule over
    the samples); the compiled backend refuses a wrench instead of ignoring it."""
    import pytest
    import flexpkm as fp
    from ..algorithms import book_five_bar as bk
    from flexpkm.cases import rigid_five_bar as five_bar
    robot = fp.build_model(bk.robot(gravity=(0.0, -9.81, 0.0)))
    q = five_bar.configuration(robot, 0.0, 0.24)
    wrench = lambda t: [3.0 * np.cos(40 * t), 1.0, 0, 0, 0, 0]
    res = simulate(robot, q, 0.04, Free(), friction=False, hht_alpha=0.0, h=1e-4, dt_out=1e-4,
                   tol=1e-9, wrench=wrench)
    full = [fp.full_dynamics(robot, res.q[k], res.qd_r[k]) for k in range(len(res.t))]
    power = np.array([np.asarray(wrench(t))[:2] @ (m.J @ v)[-2:]
                      for t, m, v in zip(res.t, full, res.qd_r)])
    work = np.sum(0.5 * (power[1:] + power[:-1]) * np.diff(res.t))
    H = res.energies.total
    assert H[-1] - H[0] == pytest.approx(work, rel=1e-4)
    with pytest.raises(fp.BackendUnavailableError, match="does not take an external wrench"):
        simulate(robot, q, 0.01, Free(), backend="compiled", wrench=[1.0, 0, 0, 0, 0, 0])
    with pytest.raises(fp.InvalidArgumentError, match="Mz"):
        simulate(robot, q, 0.01, Free(), wrench=[1.0, 0, 0, 0, 0, 0.5])
