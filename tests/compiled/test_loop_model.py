"""The simulation's model as loops over chains of identical frames
(flexpkm.compiled.loop_model, loop_functions, chains): the chains found
on a refined model against the element frames that refine() names; the
loop model's outputs against the flat expanded model of the kernel graph
(tests/compiled/test_newton_euler.py checks that one against numpy) and
its mass matrix against numpy's M_r (the projected Newton-Euler equations,
an independent formulation), at random states, on CasADi's virtual
machine; a short simulation on the loops against the numpy one."""
import casadi as ca
import numpy as np
import pytest

import flexpkm as fp
from flexpkm.analysis.simulate import simulate
from flexpkm.cases import dualemps
from flexpkm.cli.simulate import _refined
from flexpkm.compiled import loop_functions, modified_newton, robot, step
from flexpkm.compiled.chains import find_chains
from flexpkm.compiled.recursive import point_acceleration
from flexpkm.compiled.robot import CompiledRobot
from flexpkm.model.build import build_structure
from flexpkm.model.refine import element_frame_name
from tests.compiled.test_newton_euler import _delta, _refined_dualemps

pytest.importorskip("casadi")


def _rel(ours, ref):
    ours, ref = (np.array(ca.densify(ca.DM(x))) for x in (ours, ref))
    return np.abs(ours - ref).max() / max(np.abs(ref).max(), 1e-300)


@pytest.mark.parametrize("n", [2, 4])
def test_chains_of_a_refined_model_are_its_element_frames(n):
    """refine() chains each beam's elements on frames ``<frame>.1 ..
    <frame>.(n-1)``: each such run is one chain (same joint type and
    number of shape functions), the chains partition the frames in order."""
    base = dualemps.robot()
    model = build_structure(_refined_dualemps(n)[0])
    chains = find_chains(model)
    assert [k for c in chains for k in c.frames] == list(range(len(model.frame_constants)))
    index = model.frame_index
    beams = [f.name for f in base.frames if base.flexible_body(f.name) is not None]
    assert beams
    for name in beams:
        run = tuple(index[element_frame_name(name, k)] for k in range(1, n))
        assert any(c.frames == run for c in chains), name
    assert max(len(c) for c in chains) == n - 1


@pytest.mark.parametrize("robot_name", ["dualemps_N2", "delta_flexible"])
def test_loop_model_equals_the_flat_model(robot_name):
    """``(M a, g, J, b, forces)``, the projection's loop equations, the
    recorder's terms with two sensors (point and axis) and the refresh's
    mass matrix by the loops equal the flat model's to 1e-12 (relative to
    each output's largest entry), M also numpy's M_r, at a state with q_e
    != 0 and random rates, accelerations and drive input: a planar robot
    refined to two elements per link, and the spatial Delta (a platform,
    loops inside the limbs)."""
    model, q0 = _refined_dualemps(2) if robot_name == "dualemps_N2" else _delta()
    cm = CompiledRobot(model, q_ref=q0, compile=False)
    kd = cm.simulation_kernels
    rng = np.random.default_rng(11)
    n_r, n_a = len(cm.indep), cm.n_a
    q = q0 + 1e-3 * rng.standard_normal(len(q0))
    v, a, u = rng.uniform(-1, 1, n_r), rng.uniform(-1, 1, n_r), rng.uniform(-1, 1, 3 * n_a)
    par = cm.parameters(np.ones(n_a), np.ones(n_a), 1e-4, 0.05, model.gravity, 1.0, 1e-3,
                        design=cm.design)
    ours = loop_functions.model_function(kd, False)(q, v, a, u, par)
    flat = modified_newton.model_function(kd, False).expand()(q, v, a, u, par)
    for x, y in zip(ours, flat):
        assert _rel(x, y) <= 1e-12
    equations = loop_functions.loop_equations(kd)(q, cm.design)
    flat_res = ca.Function("res", [kd.q, kd.design],
                           [kd.residual, kd.jacobian[:, [int(i) for i in cm.dep]]])(q, cm.design)
    assert _rel(equations[2], flat_res[0]) <= 1e-12 and _rel(equations[1], flat_res[1]) <= 1e-12
    frame = list(model.frame_index)[5]
    sensors = ((frame, None, None), (frame, frame, (0.0, 0.0, 1.0)))
    args = step.graph_arguments(kd, ca.DM(q), ca.DM(v), ca.DM(par))
    record = loop_functions.record_function(kd, sensors)(*args, a, v)
    M = loop_functions.mass_matrix_function(kd)(*args)
    ref = fp.full_dynamics(model, q, v, dep=cm.dep, loop_tol=None)
    assert _rel(M, ref.M) <= 1e-12
    assert _rel(record[0], ref.M @ a) <= 1e-12 and _rel(record[1], ref.M @ v) <= 1e-12
    assert _rel(record[2], ref.c) <= 1e-12
    qdd = ca.MX.sym("qdd", n_r)
    for s, value in zip(sensors, record[3:]):
        expected = ca.Function("s", step.graph_inputs(kd) + [qdd],
                               [point_acceleration(model, kd, qdd, *s)])(*args, a)
        assert _rel(value, expected) <= 1e-12


def test_simulation_on_the_loops_agrees_with_numpy(monkeypatch, tmp_path):
    """DualEMPS ``square`` at two elements per link with the loop model
    forced (LOOPS_MIN and PLANAR_LOOPS_MIN 0; compiled once, ~5 s of gcc, in a fresh cache): the
    numpy step's Newton evaluations, efforts and energy to 1e-8, positions
    to 1e-10, the accelerometer to 1e-7 (as the flat model,
    test_newton_euler.py)."""
    monkeypatch.setattr(robot, "LOOPS_MIN", 0)
    monkeypatch.setattr(robot, "PLANAR_LOOPS_MIN", 0)
    monkeypatch.setenv("FLEXPKM_CACHE", str(tmp_path))
    model, q0, drive, sensors = dualemps.simulation_setup("square")
    model, q0 = _refined(model, q0, 2)
    assert CompiledRobot(model, q_ref=q0, compile=False).on_loops
    kw = dict(h=2.5e-4, dt_out=1e-3, coulomb_smoothing=1e-3, sensors=sensors)
    c, n = (simulate(model, q0, 0.01, drive, backend=b, **kw) for b in ("compiled", "numpy"))
    assert c.cost["newton_iterations"] == n.cost["newton_iterations"]
    assert _rel(c.tau, n.tau) < 1e-8 and _rel(c.energy, n.energy) < 1e-8
    assert np.abs(c.q - n.q).max() < 1e-10
    for name in n.sensors:
        assert _rel(c.sensors[name], n.sensors[name]) < 1e-7, name
