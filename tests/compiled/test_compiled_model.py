"""The generated model (flexpkm.compiled: frame-by-frame CasADi symbols,
Lagrange's equations and AD) against the numpy reference implementation
(vectorised recursion, projected Newton-Euler) at random states with
q_e != 0 and random velocities: DualEMPS (compiled C), NaVARo (loops inside
the legs, 6-dof platform; CasADi's virtual machine), the flexible Delta
(spatial loops inside the limbs), a spatial open tree;
the fall-back without a C compiler."""
import numpy as np
import pytest

import flexpkm as fp
from flexpkm.cases import delta, dualemps, navaro
from flexpkm.compiled import codegen
from flexpkm.compiled.robot import CompiledRobot
from tests.conftest import spatial_tree

pytest.importorskip("casadi")


def random_states(model, q_ref, n_r, seed, scale):
    """States near q_ref (loops not closed: the formulas hold at any state),
    elastic coordinates and platform coordinates perturbed, random velocities."""
    rng = np.random.default_rng(seed)
    for _ in range(3):
        q = q_ref + scale * rng.standard_normal(len(q_ref))
        yield q, rng.uniform(-1.0, 1.0, n_r)


def assert_agree(model, cm, q, v, friction=True, smoothing=1e-3, tol=1e-12):
    ref = fp.full_dynamics(model, q, v, dep=cm.dep, friction=friction,
                           coulomb_smoothing=smoothing, loop_tol=None)
    out = cm.evaluate(q, v, friction=friction, coulomb_smoothing=smoothing)
    assert np.array_equal(ref.indep, cm.indep)
    res = fp.closure_residual(model, q)[0]
    for name, expected in (("M", ref.M), ("c", ref.c), ("J", ref.J), ("b", ref.b),
                           ("J_tot", ref.J_tot), ("residual", res)):
        if not np.size(expected):
            assert np.size(out[name]) == 0
            continue
        floor = 1e-3 if name == "residual" else 1e-300    # closed loops: residual ~1e-16 m
        err = np.abs(out[name] - expected).max() / max(np.abs(expected).max(), floor)
        assert err < tol, (name, err)


def test_dualemps_compiled_agrees_with_numpy():
    model = fp.build_model(dualemps.robot())
    q0 = dualemps.initial_state(model)
    cm = CompiledRobot(model, q_ref=q0)
    assert fp.full_dynamics(model, q0, 0.0).dep.tolist() == cm.dep.tolist()
    for k, (q, v) in enumerate(random_states(model, q0, len(cm.indep), 1, 1e-3)):
        assert_agree(model, cm, q, v, friction=k % 2 == 0)


@pytest.mark.parametrize("n", [2, 4])
def test_refined_dualemps_kernel_graph_agrees_with_numpy(n):
    """n elements per flexible body (25 and 43 coordinates, above
    UNROLLED_MAX): the graph calling the per-structure kernels
    (flexpkm.compiled.recursive), frame by frame, equals the numpy model."""
    from flexpkm.cli.simulate import _refined
    from flexpkm.compiled.robot import UNROLLED_MAX
    base = fp.build_model(dualemps.robot())
    model, q0 = _refined(dualemps.robot(), dualemps.initial_state(base), n)
    cm = CompiledRobot(model, q_ref=q0, compile=False)
    assert model.layout.n_tot > UNROLLED_MAX and cm.graph is cm.kernels
    for k, (q, v) in enumerate(random_states(model, q0, len(cm.indep), 7 + n, 1e-3)):
        assert_agree(model, cm, q, v, friction=k % 2 == 0)


def test_kernel_code_is_shared_and_linear_in_the_bodies():
    """One kernel per structure: the generated C of the refined DualEMPS's
    full model grows by less than 2x from 2 to 8 elements per body (4x the
    bodies), and the kernels are the same Functions for every frame."""
    import casadi as ca
    from flexpkm.cli.simulate import _refined
    from flexpkm.compiled.recursive import kernel_dynamics
    base = fp.build_model(dualemps.robot())
    lines = []
    for n in (2, 8):
        model, q0 = _refined(dualemps.robot(), dualemps.initial_state(base), n)
        km = kernel_dynamics(model, fp.full_dynamics(model, q0, 0.0).dep)
        gen = ca.CodeGenerator("f.c", {"with_header": False})
        gen.add(km.function("f", [km.M, km.c, km.J, km.b], "Mcjb"))
        code = gen.dump()
        lines.append(code.count("\n"))
        assert code.count("/* fk_pose2_3:") == 1          # one elastic frame kernel
    assert lines[1] < 2 * lines[0], lines


def test_navaro_agrees_with_numpy_on_the_virtual_machine():
    model = fp.build_model(navaro.robot())
    q0 = navaro.pose_configurations(model, [[0.05, 0.03, -0.5]])[0]
    cm = CompiledRobot(model, q_ref=q0, compile=False)
    for q, v in random_states(model, q0, len(cm.indep), 2, 1e-3):
        assert_agree(model, cm, q, v)


def test_flexible_delta_agrees_with_numpy_on_the_virtual_machine():
    """Müller's 3RR[2RR]R Delta with flexible upper arms: loops inside the
    limbs (the parallelograms' cut joints), spatial closures, 30 rows."""
    model = fp.build_model(delta.robot(flexible=True))
    q0 = delta.configuration(model, np.array([0.05, -0.03, -0.85]))
    cm = CompiledRobot(model, q_ref=q0, compile=False)
    for q, v in random_states(model, q0, len(cm.indep), 3, 1e-3):
        assert_agree(model, cm, q, v)


def test_overconstrained_rigid_delta_on_its_independent_rows():
    """The rigid Delta: 15 of 30 constraint rows kept (Müller's Remark 2);
    J and b from the kept rows alone, at assembled states (where the dropped
    rows are redundant), equal the numpy ones."""
    model = fp.build_model(delta.robot(flexible=False))
    Ps = np.array([[0.05, -0.03, -0.85], [0.1, 0.05, -0.9], [-0.08, 0.02, -0.8]])
    cm = CompiledRobot(model, q_ref=delta.configuration(model, Ps[0]), compile=False)
    assert cm.kept is not None and len(cm.kept) == 15
    rng = np.random.default_rng(4)
    for P in Ps:
        assert_agree(model, cm, delta.configuration(model, P), rng.uniform(-1, 1, len(cm.indep)))


def test_spatial_tree_and_sign_friction():
    """3D beams, prismatic joint, MDH offsets, a branch, no closure; the
    unsmoothed Coulomb sign."""
    robot = spatial_tree(viscous_friction={"1": 0.3}, coulomb_friction={"2": 0.7},
                         rotor_inertia={"1": 0.01})
    model = fp.build_model(robot)
    cm = CompiledRobot(model, dep=[], compile=False)
    for q, v in random_states(model, np.zeros(model.layout.n_tot), model.layout.n_t, 3, 0.3):
        assert_agree(model, cm, q, v, smoothing=0.0)


def test_without_compiler_runs_on_the_virtual_machine(monkeypatch, tmp_path):
    monkeypatch.setenv("FLEXPKM_CC", "")
    monkeypatch.setenv("FLEXPKM_CACHE", str(tmp_path))
    model = fp.build_model(dualemps.robot())
    q0 = dualemps.initial_state(model)
    cm = CompiledRobot(model, q_ref=q0)
    with pytest.warns(UserWarning, match="no C compiler"):
        fn = cm.full
    assert fn.class_name() == "SXFunction"               # CasADi's virtual machine
    assert not list(tmp_path.iterdir())                 # nothing compiled, nothing cached
    q, v = next(random_states(model, q0, len(cm.indep), 4, 1e-3))
    assert_agree(model, cm, q, v)


def test_cache_key_follows_the_description():
    a, b = fp.build_model(dualemps.robot()), fp.build_model(dualemps.robot(gravity=(0, 0, 0)))
    assert codegen.description_key(a, "x") == codegen.description_key(
        fp.build_model(dualemps.robot()), "x")
    assert codegen.description_key(a, "x") != codegen.description_key(b, "x")
    assert codegen.description_key(a, "x") != codegen.description_key(a, "y")


def test_sensor_and_loop_derivatives():
    """The accelerometer against the numpy point_acceleration, its exact
    derivatives and the loop Jacobian against central differences."""
    model = fp.build_model(dualemps.robot())
    q0 = dualemps.initial_state(model)
    cm = CompiledRobot(model, q_ref=q0, compile=False)
    q, v = next(random_states(model, q0, len(cm.indep), 5, 1e-3))
    qdd = np.random.default_rng(6).uniform(-1, 1, len(cm.indep))
    args = (model.gravity, 1.0, 1e-3)
    sensor = cm.sensor("18", "17", (0.0, 1.0, 0.0))
    value, dq, dv, da = (np.array(x) for x in sensor(q, v, qdd, *args))
    full = fp.full_dynamics(model, q, v, dep=cm.dep, coulomb_smoothing=1e-3, loop_tol=None)
    assert abs(value[0, 0] - dualemps.acc_P_y17(model, full, qdd)) < 1e-12 * abs(value[0, 0])
    f = lambda q_, v_, a_: float(sensor(q_, v_, a_, *args)[0])    # noqa: E731
    state = (q, v, qdd)
    for i, d in enumerate((dq, dv, da)):
        for k in range(len(state[i])):
            e = np.zeros(len(state[i]))
            e[k] = 1e-6
            plus = [x + e if j == i else x for j, x in enumerate(state)]
            minus = [x - e if j == i else x for j, x in enumerate(state)]
            fd = (f(*plus) - f(*minus)) / 2e-6
            assert abs(fd - d[0, k]) < 1e-6 * max(1.0, abs(d).max()), (i, k, fd, d[0, k])
    res, jac = (np.array(x) for x in cm.loops(q))
    for k in range(len(q)):
        e = np.zeros(len(q))
        e[k] = 1e-7
        fd = (np.array(cm.loops(q + e)[0]) - np.array(cm.loops(q - e)[0]))[:, 0] / 2e-7
        assert np.abs(fd - jac[:, k]).max() < 1e-6


def test_unwritable_cache_compiles_in_a_private_folder(monkeypatch, tmp_path):
    """A cache path that cannot be a folder: one warning, the library built
    in a private temporary folder (removed once loaded), the right values."""
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("FLEXPKM_CACHE", str(blocker / "cache"))
    model = fp.build_model(dualemps.robot())
    q0 = dualemps.initial_state(model)
    cm = CompiledRobot(model, q_ref=q0)
    with pytest.warns(UserWarning, match="cannot write the cache"):
        assert cm.loops.class_name() != "SXFunction"
    ref = CompiledRobot(model, q_ref=q0, compile=False)
    q = q0 + 1e-3 * np.random.default_rng(3).standard_normal(len(q0))
    for a, b in zip(cm.loops(q), ref.loops(q)):
        assert np.abs(np.array(a) - np.array(b)).max() < 1e-13
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]
