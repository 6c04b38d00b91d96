"""Assembly of configurations (flexpkm.algorithms.assembly, Chapter 7) against
the closed-form geometric models of the shipped robots, the two silent traps
of issue 9 (open loops; the platform pose taken from one closure), and the
independence of the result from the order of the legs and of the closures."""
from dataclasses import replace

import numpy as np
import pytest

import flexpkm as fp
from flexpkm.cases import dualemps as D
from flexpkm.cases import navaro as N
from flexpkm.model import files

EXAMPLES = files.Path(D.__file__).parent / "examples"


def _wrapped(a):
    return (np.asarray(a) + np.pi) % (2 * np.pi) - np.pi


@pytest.mark.parametrize("q_a", [(0.0, 0.0), (0.1, 0.05), (0.2, 0.2), (0.0, 0.15)])
def test_dualemps_forward_problem_is_the_direct_geometric_model(q_a):
    model = fp.build_model(D.robot())
    np.testing.assert_allclose(fp.assemble(model, q_a=q_a), D.configuration(model, *q_a),
                               atol=1e-11)


def test_navaro_inverse_and_forward_problems_are_the_closed_forms():
    model = fp.build_model(N.robot())
    poses = [[0.0, 0.0, 0.0], [0.0, 0.0, -1.0472], [0.117, 0.068, -1.0472],
             [-0.182, 0.105, -1.0472], [0.0, -0.21, -1.0472]]
    closed = N.pose_configurations(model, poses)
    n_t = model.layout.n_t
    for q_ref in closed:                          # each from the reference (pose 1)
        q = fp.assemble(model, pose=q_ref[n_t:])
        assert np.abs(_wrapped(q - q_ref)).max() < 1e-9
    # forward problem, one actuated joint per leg (actuation mode 1-1-1, well
    # conditioned at these poses; 1-2-1 is near a Type 2 singularity at pose 3): its
    # assembly modes are several; a guess near the wanted one selects it
    model = fp.build_model(N.robot(actuation=(1, 1, 1)))
    rng = np.random.default_rng(0)
    for q_ref in N.pose_configurations(model, poses):
        guess = q_ref.copy()
        joints = list(model.layout.joint_index.values())
        guess[joints] += 0.02 * rng.normal(size=len(joints))
        q = fp.assemble(model, q_a=q_ref[list(model.layout.actuated)], guess=guess)
        assert np.abs(_wrapped(q - q_ref)).max() < 1e-9


def test_unreachable_pose_names_the_closure_and_the_residual():
    model = fp.build_model(D.robot())
    with pytest.raises(fp.UnreachablePoseError, match=r"closure O25=O15 \(leg 2\).*residual"):
        fp.assemble(model, q_a=[0.1, 1.5])
    # x = 0.15 m: out of reach by 0.079 m, and a third of the continuation steps of x = 0.5
    with pytest.raises(fp.UnreachablePoseError, match="leg"):
        fp.assemble(fp.build_model(N.robot()), pose=[0.15, 0.0, 0.0, 0.0, 0.0, 0.0])


def test_undetermined_coordinate_is_a_singular_configuration():
    """A five-bar whose platform also has a rotation that no closure fixes
    (a revolute at P): the assembly is not isolated."""
    rob = files.load(EXAMPLES / "five_bar.toml")
    rob = replace(rob, platform=fp.Platform(dofs=(0, 1, 5), dof_names=("x_P", "y_P", "rz")))
    with pytest.raises(fp.SingularConfigurationError, match="condition number") as err:
        fp.assemble(rob, q_a=[1.9, 1.2])
    assert err.value.matrix == "J_free" and err.value.cond > 1e9


def test_bad_arguments():
    model = fp.build_model(D.robot())
    with pytest.raises(fp.InvalidArgumentError, match="exactly one"):
        fp.assemble(model)
    with pytest.raises(fp.InvalidArgumentError, match="2 values"):
        fp.assemble(model, q_a=[0.1])
    with pytest.raises(fp.InvalidArgumentError, match="finite"):
        fp.assemble(model, q_a=[np.nan, 0.0])


# ---- trap (a): a configuration whose loops are open ---------------------------
def test_open_loops_are_refused_by_every_analysis():
    """An actuator turned by 5 cm without re-assembling used to give
    frequencies 1-7 % off without a word."""
    model = fp.build_model(D.robot())
    q = D.configuration(model, 0.0, 0.0)
    q[model.layout.index("q11")] += 0.05
    for run in (lambda: fp.natural_frequencies(model, q),
                lambda: fp.reduced_matrices(model, q),
                lambda: fp.full_dynamics(model, q, np.zeros(11)),
                lambda: fp.simulate(model, q, 0.01, fp.Free())):
        with pytest.raises(fp.OpenLoopError, match=r"closure .* is open by 0\.0\d+ m") as err:
            run()
        assert err.value.gap > 0.01
    # the re-assembled configuration is accepted and differs
    q_ok = fp.assemble(model, q_a=[0.05, 0.0])
    assert fp.natural_frequencies(model, q_ok).frequencies_hz[0] > 0


# ---- trap (b): the platform pose and the order of legs and closures ------------
def _three_rrr_revolute_cuts(rob):
    """The 3-RRR written the natural way: legs RR, the third revolute of each
    leg a cut joint between C_i (a fixed frame) and the platform point C_i."""
    frames, closures = [], []
    for f in rob.frames:
        if f.name.endswith("P"):
            continue
        if f.name.endswith("3"):
            f = replace(f, sigma=fp.FIXED)
            g = np.radians({"1": 90, "2": 210, "3": 330}[f.leg])
            closures.append(fp.Closure(f.name, None, "revolute", leg=f.leg, name=f"C{f.leg}",
                                       platform_point=(0.1 * np.cos(g), 0.1 * np.sin(g), 0.0)))
        frames.append(f)
    reference = {k: v for k, v in rob.reference.items() if not k.endswith("3")}
    return replace(rob, frames=tuple(frames), closures=tuple(closures), reference=reference)


def _permuted(rob, legs, closure_order):
    frames = tuple(f for leg in legs for f in rob.frames if f.leg == leg)
    return replace(rob, frames=frames, closures=tuple(rob.closures[i] for i in closure_order))


def test_platform_pose_does_not_depend_on_the_order_of_legs_or_closures():
    """Revolute cut joints at the platform points used to give frequencies
    27 % wrong that changed with the order of the legs: now the same as the
    weld formulation, for every order."""
    welded = files.load(EXAMPLES / "three_rrr.toml")
    cut = _three_rrr_revolute_cuts(welded)
    pose = [0.02, -0.01, 0.0, 0.0, 0.0, 0.1]
    f_weld = fp.natural_frequencies(welded, fp.assemble(welded, pose=pose), shapes=False,
                                    backend="numpy").frequencies_hz
    for legs, order in (("123", (0, 1, 2)), ("312", (2, 0, 1)), ("213", (1, 2, 0))):
        rob = _permuted(cut, legs, order)
        f = fp.natural_frequencies(rob, fp.assemble(rob, pose=pose), shapes=False,
                                   backend="numpy").frequencies_hz
        np.testing.assert_allclose(f, f_weld[:len(f)], rtol=1e-9)
