"""The compiled simulation's functions take the design vector p as an input
(flexpkm.compiled.robot.CompiledRobot.simulation on the parametric kernel
graph, issue 18 item 3): two designs of one topology simulate with one
library, each equal to the numpy path for its design; the step on the
symbol p equals the step with the numbers folded in."""
import copy

import numpy as np
import pytest

import flexpkm as fp
from flexpkm.analysis import kept_matrix
from flexpkm.analysis.simulate import simulate
from flexpkm.cases import dualemps
from flexpkm.cases.file_case import configure
from flexpkm.cases.shipped import file_of
from flexpkm.cli.simulate import _refined
from flexpkm.compiled import codegen, design, modified_newton, robot
from flexpkm.compiled import step as steps
from flexpkm.compiled.robot import CompiledRobot
from flexpkm.model.files import from_dict, parse
from flexpkm.model.key_paths import set_number

pytest.importorskip("casadi")


def rel(a, b):
    return np.abs(np.asarray(a) - b).max() / np.abs(b).max()


def five_bar(changed):
    """The five-bar example (cases/examples/five_bar.toml), or with proximal
    link 1 at E + 10 % and 6 mm instead of 5 mm in the plane, and distal
    link 1 at 0.31 m instead of 0.3 (its end frame moved with it): the same
    topology. ``(model, q0, drive)``: the actuators 0.3 rad further in 20 ms."""
    from flexpkm.analysis.drives import PrescribedMotion
    from flexpkm.analysis.trajectories import Trajectory
    data = parse(file_of("five_bar").read_text(), "five_bar")
    if changed:
        data = copy.deepcopy(data)
        set_number(data, "legs[0].frames[0].bodies[0].material.E", 1.1 * 210e9)
        set_number(data, "legs[0].frames[0].bodies[0].section.b_y", 0.006)
        set_number(data, "legs[0].frames[1].bodies[1].length", 0.31)
        set_number(data, "legs[0].frames[2].d", 0.31)
    model = fp.build_model(from_dict(data))
    q0 = configure(model, None)
    q_a = q0[list(model.layout.actuated)]
    return model, q0, PrescribedMotion(Trajectory(np.array([q_a, q_a + 0.3]), (0.02,), (0.0,)))


def stiffer_dualemps():
    """The DualEMPS (cases/dualemps.toml) with E + 10 % on every link."""
    data = parse(file_of("dualemps").read_text(), "dualemps")
    for leg in data["legs"]:
        for frame in leg["frames"]:
            for body in frame.get("bodies", []):
                if "material" in body:
                    body["material"]["E"] *= 1.1
    return from_dict(data)


def builds_of(run):
    """``(result, whether this process compiled)`` of ``run()`` (the user's
    cache, as the other compiled tests: a library is built once per source
    version; other processes may add libraries to it meanwhile)."""
    before = codegen.COMPILE_SECONDS["total"]
    out = run()
    return out, codegen.COMPILE_SECONDS["total"] > before


def test_two_five_bar_designs_simulate_with_one_library():
    """The five-bar on the parametric kernel graph (``design_input=True``; by
    default its 18 coordinates take the unrolled graph, numbers folded in):
    the second design compiles nothing and adds no library, and each
    design's motion equals the numpy path's, both converged (modified
    Newton takes other iterations than numpy's Newton: tol 1e-12; efforts
    and energy to 1e-8, positions to 1e-10)."""
    kw = dict(tol=1e-12, iterations=20)
    runs, built = [], []
    for changed in (False, True):
        model, q0, drive = five_bar(changed)
        c, b = builds_of(lambda: simulate(model, q0, 0.01, drive, backend="compiled",
                                          design_input=True, **kw))
        runs.append((model, c, simulate(model, q0, 0.01, drive, backend="numpy", **kw)))
        built.append(b)
    (m1, c1, _), (m2, c2, _) = runs
    assert design.topology(m1) == design.topology(m2)
    assert np.abs(design.design_vector(m1) - design.design_vector(m2)).max() > 0
    assert not built[1] and m1.layout.n_tot <= robot.UNROLLED_MAX
    held = list(m1.compiled.simulate.values())
    assert len(held) == 1 and not held[0].unrolled and held[0].design_input
    assert rel(c1.tau, c2.tau) > 1e-3                        # two motions, not one
    for _, c, n in runs:
        assert c.backend == "compiled" and c.retried_steps == n.retried_steps == 0
        assert rel(c.tau, n.tau) < 1e-8 and np.abs(c.q - n.q).max() < 1e-10
        assert rel(c.energy, n.energy) < 1e-8


def test_refined_dualemps_stiffer_design_reuses_the_library():
    """DualEMPS ``square``, two elements per link (25 coordinates: the
    parametric kernel graph by default), E + 10 % on every link: no
    compile for the second design (the user's cache, as
    tests/compiled/test_newton_euler.py's run of the same options), each
    equal to the numpy path (efforts and energy to 1e-8, the accelerometer
    to 1e-7, positions to 1e-10), and the stiffer links change the motion."""
    base = fp.build_model(dualemps.robot())
    q_ref = dualemps.initial_state(base)
    model0, _, drive, sensors = dualemps.simulation_setup("square")
    kw = dict(h=2.5e-4, dt_out=1e-3, coulomb_smoothing=1e-3, sensors=sensors)
    out = []
    for rob in (model0, stiffer_dualemps()):
        model, q0 = _refined(rob, q_ref, 2)
        c, built = builds_of(lambda: simulate(model, q0, 0.005, drive, backend="compiled", **kw))
        out.append((model, c, simulate(model, q0, 0.005, drive, backend="numpy", **kw), built))
    assert not out[1][3]
    assert design.topology(out[0][0]) == design.topology(out[1][0])
    assert rel(out[0][1].sensors["acc_P_y17"], out[1][1].sensors["acc_P_y17"]) > 1e-3
    for _, c, n, _ in out:
        assert c.cost["newton_iterations"] == n.cost["newton_iterations"]
        assert rel(c.tau, n.tau) < 1e-8 and rel(c.energy, n.energy) < 1e-8
        assert rel(c.sensors["acc_P_y17"], n.sensors["acc_P_y17"]) < 1e-7
        assert np.abs(c.q - n.q).max() < 1e-10


def test_step_on_the_design_symbol_equals_the_folded_step():
    """The switch changes no number: the HHT step of the refined DualEMPS
    (CasADi's virtual machine) built on the symbol p, given this design's
    p, and built with the same numbers folded in (``kernel_dynamics(...,
    parametric=False)``, the simulation's graph before issue 18 item 3),
    give the same states over three steps to 1e-13 of their largest entry
    (measured: bitwise);
    ``par`` has p just before tol on the first, no p on the second."""
    model, q0 = _refined(dualemps.robot(), dualemps.initial_state(
        fp.build_model(dualemps.robot())), 2)
    cm = CompiledRobot(model, q_ref=q0, compile=False)
    ref = fp.full_dynamics(model, q0, 0.0, dep=cm.dep)
    n_r, n_a, p = len(cm.indep), cm.n_a, cm.design
    x0 = cm.pack(q0, np.zeros(n_r), np.zeros(n_r), np.zeros(n_r), ref.J, ref.b)
    args = (np.full(n_a, 50.0), np.full(n_a, 2.0), 1e-4, 0.05, model.gravity, 1.0, 1e-3, 1e-10)
    unknown, at, _ = kept_matrix.where(cm, False)

    def due(x, pr):
        return modified_newton.refresh_due(x, pr, cm.state_slices(), n_r, n_a)
    states = []
    for graph, par in ((cm.simulation_graph, cm.parameters(*args)),
                       (cm.kernels, cm.parameters(*args, design=()))):
        dims = steps.Dims.of(graph)
        assert len(par) == steps.layout(dims.n_tot, n_r, n_a, dims.n_p)[2]
        step = steps.step_function(modified_newton.newton_function(graph, False), dims, False, 4,
                                   kept=(modified_newton.refresh_function(graph, False), due))
        x = x0.copy()                       # the kept matrix formed first, as the driver does
        A = np.array(modified_newton.iteration_function(graph, False, dims)(x, par))
        S = kept_matrix.formed(A, unknown, n_r, x, at, 1e-4).reshape(n_r, n_r, order="F")
        for _ in range(3):
            x, _, _, stale = (np.array(v).ravel() for v in step(x, np.zeros(3 * n_a), par, S, 1))
            assert not stale
        states.append(x)
    assert par[-1] == 1e-10 and steps.Dims.of(cm.simulation_graph).n_p == p.size
    assert np.array_equal(cm.parameters(*args)[-p.size - 1:-1], p)
    assert np.abs(states[0] - states[1]).max() <= 1e-13 * np.abs(states[1]).max()
    assert np.abs(states[0] - x0).max() > 0


def test_planar_robots_stay_flat_up_to_their_own_threshold():
    """The loop model is chosen from LOOPS_MIN coordinates for a spatial
    robot and from PLANAR_LOOPS_MIN for a planar one (plane_normal set):
    the DualEMPS at 4 and 8 elements per link (43, 79 coordinates) runs the
    flat graph, at 16 (151) the loops; the spatial three-RRR example (51)
    the loops. No compilation (``compile=False``)."""
    assert robot.LOOPS_MIN < 43 and 79 < robot.PLANAR_LOOPS_MIN < 151
    model, q0, _, _ = dualemps.simulation_setup("square")
    for n, loops in ((4, False), (8, False), (16, True)):
        m, q = _refined(model, q0, n)
        assert m.plane_normal is not None
        assert CompiledRobot(m, q_ref=q, compile=False).on_loops is loops, n
    spatial = fp.load_robot(file_of("three_rrr"))
    assert spatial.plane_normal is None and spatial.layout.n_tot >= robot.LOOPS_MIN
    assert CompiledRobot(spatial, q_ref=configure(spatial, None), compile=False).on_loops
