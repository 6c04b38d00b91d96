"""The recursive Newton-Euler model of the kernel graph
(flexpkm.compiled.newton_euler) against the numpy reference full model
(M qdd_r + c from the projected Newton-Euler equations, an independent
formulation), and the modified-Newton step (flexpkm.compiled.modified_newton)
against the numpy simulation: same Newton iterations, same motion (the
model checks on CasADi's virtual machine; the simulation compiled once, in
the user's cache)."""
import casadi as ca
import numpy as np
import pytest

import flexpkm as fp
from flexpkm.analysis.simulate import simulate
from flexpkm.cases import delta, dualemps
from flexpkm.cli.simulate import _refined
from flexpkm.compiled import modified_newton
from flexpkm.compiled.newton_euler import recursive_dynamics
from flexpkm.compiled.recursive import kernel_dynamics
from flexpkm.compiled.robot import CompiledRobot


def _refined_dualemps(n):
    base = fp.build_model(dualemps.robot())
    return _refined(dualemps.robot(), dualemps.initial_state(base), n)


def _delta():
    model = fp.build_model(delta.robot(flexible=True))
    return model, delta.configuration(model, np.array([0.05, -0.03, -0.85]))


@pytest.mark.parametrize("robot", ["dualemps_N2", "delta_flexible"])
def test_products_equal_the_numpy_full_model(robot):
    """``M qdd_r`` and ``c`` without M equal numpy's ``M @ qdd_r`` and ``c``
    to 1e-12 at states with q_e != 0, random rates, friction on: a
    revolute planar robot refined to two elements per link, and the
    spatial Delta (loops inside the limbs)."""
    model, q0 = _refined_dualemps(2) if robot == "dualemps_N2" else _delta()
    rng = np.random.default_rng(5)
    dep = fp.full_dynamics(model, q0, 0.0).dep
    rd = recursive_dynamics(kernel_dynamics(model, dep))
    f = ca.Function("f", rd.kd.inputs + [rd.qdd_r], [rd.M_qdd, rd.c])
    n_r = rd.kd.qd_r.shape[0]
    for _ in range(2):
        q = q0 + 1e-3 * rng.standard_normal(len(q0))
        v, a = rng.uniform(-1, 1, n_r), rng.standard_normal(n_r)
        ref = fp.full_dynamics(model, q, v, dep=dep, coulomb_smoothing=1e-3, loop_tol=None)
        Ma, c = (np.array(x).ravel() for x in f(q, v, model.gravity, 1.0, 1e-3, a))
        for ours, expected in ((Ma, ref.M @ a), (c, ref.c)):
            assert np.abs(ours - expected).max() <= 1e-12 * np.abs(expected).max()


@pytest.fixture
def virtual_machine(monkeypatch, tmp_path):
    monkeypatch.setenv("FLEXPKM_CC", "")
    monkeypatch.setenv("FLEXPKM_CACHE", str(tmp_path))


def test_refined_simulation_agrees_with_numpy():
    """DualEMPS ``square``, two elements per link (25 coordinates: the
    kernel graph, its residual by the recursive model, the iteration matrix
    kept over the steps): the same Newton evaluations as the numpy step,
    efforts and energy to 1e-8, the accelerometer to 1e-7, positions to
    1e-10 (Newton's default relative residual 1e-6 on both)."""
    model, q0, drive, sensors = dualemps.simulation_setup("square")
    model, q0 = _refined(model, q0, 2)
    kw = dict(h=2.5e-4, dt_out=1e-3, coulomb_smoothing=1e-3, sensors=sensors)
    c, n = (simulate(model, q0, 0.01, drive, backend=b, **kw) for b in ("compiled", "numpy"))
    assert c.cost["newton_iterations"] == n.cost["newton_iterations"]

    def rel(x, y):
        return np.abs(np.asarray(x) - y).max() / np.abs(y).max()
    assert rel(c.tau, n.tau) < 1e-8 and rel(c.energy, n.energy) < 1e-8
    assert np.abs(c.q - n.q).max() < 1e-10
    for name in n.sensors:
        assert rel(c.sensors[name], n.sensors[name]) < 1e-7, name   # 3e-8 (tol 1e-6)


def test_kept_iteration_matrix_is_refreshed_when_stale(virtual_machine):
    """The kept iteration matrix, formed by the driver (the iteration matrix
    by generated code, its inverse by LAPACK) when the step is due: at the
    first step from the state it starts from (its inverse times the numpy
    step's matrix ``M + (1 - alpha) (gamma h D + beta h^2 K)`` with numpy's
    M is the identity), then kept (the same array; the state's age counts
    up), formed again for another h."""
    from flexpkm.analysis.kept_matrix import kept_step
    from flexpkm.compiled.step import iteration_matrix
    model, q0 = _refined_dualemps(2)
    cm = CompiledRobot(model, q_ref=q0, compile=False)
    ref = fp.full_dynamics(model, q0, 0.0, dep=cm.dep)
    n_r, n_a = len(cm.indep), cm.n_a
    sl = cm.state_slices()
    x, S = cm.pack(q0, np.zeros(n_r), np.zeros(n_r), np.zeros(n_r), ref.J, ref.b), None
    par = [cm.parameters(np.full(n_a, 50.0), np.full(n_a, 2.0), h, 0.05, model.gravity, 1.0,
                         1e-3) for h in (1e-4, 5e-5)]
    M = iteration_matrix(cm.kernels, ca.DM(ref.M), ca.DM(ref.J), ca.DM.zeros(n_r), ca.DM(par[0]))
    states = []
    for p in (par[0], par[0], par[1]):
        x, _, _, S = kept_step(cm, (False, 3, (), False), x, np.zeros(3 * n_a), p, S)
        states.append((x[sl["age"].start], x[sl["S_h"].start], S))
    assert [s[:2] for s in states] == [(0, 1e-4), (1, 1e-4), (0, 5e-5)]
    assert states[0][2] is states[1][2] and modified_newton.REFRESH_AGE > 1
    assert states[2][2] is not states[1][2]
    inverse = states[0][2].reshape(n_r, n_r, order="F")
    assert np.abs(np.array(ca.evalf(M)) @ inverse - np.eye(n_r)).max() < 1e-10