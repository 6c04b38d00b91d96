"""The assembly keeps the working modes (flexpkm.algorithms.mode_keeping,
issue 16 item 2) of the example five-bar, checked against its geometry
written in tests/algorithms/test_modes.py (two-circle intersections, the
elbow on a chosen side of A_i -> P), not against flexpkm's assembly."""
import numpy as np
import pytest

import flexpkm as fp
from flexpkm.algorithms.modes import mode_signature
from flexpkm.errors import WorkingModeError
from tests.algorithms.test_modes import FILE, configuration

SIDES = ((1, 1), (1, -1), (-1, 1), (-1, -1))


@pytest.fixture(scope="module")
def model():
    return fp.build_model(fp.load_robot(FILE))


def wrapped_gap(q, q_ref):
    return np.abs((q - q_ref + np.pi) % (2 * np.pi) - np.pi).max()


def reference_sides(model):
    """The elbow sides of the file's [reference] (the geometry decides)."""
    q_ref = fp.reference_configuration(model)
    P = fp.assemble(model, q_a=q_ref[[0, 2]])[-2:]
    for sides in SIDES:
        if wrapped_gap(configuration(model, P, sides)[:4], q_ref[:4]) < 1e-9:
            return sides
    raise AssertionError("the reference is none of the four elbow combinations")


def test_a_pose_keeps_the_reference_elbows(model):
    sides = reference_sides(model)
    q = fp.assemble(model, pose=[0.2, 0.45])
    assert wrapped_gap(q, configuration(model, np.array([0.2, 0.45]), sides)) < 1e-10
    assert q[model.layout.index("q11")] == pytest.approx(1.7607, abs=1e-4)   # issue 16: not 0.5445
    f = fp.natural_frequencies(model, q, shapes=False).frequencies_hz
    assert f[0] == pytest.approx(14.497, abs=5e-4)                           # issue 16: not 7.50


def test_a_path_by_continuation_keeps_them(model):
    sides = reference_sides(model)
    poses = np.column_stack([np.linspace(0.15, 0.2, 6), np.full(6, 0.45)])
    q = fp.assemble(model, pose=poses)
    for p, qb in zip(poses, q):
        assert wrapped_gap(qb, configuration(model, p, sides)) < 1e-10


def test_a_path_across_a_leg_singularity_restarts_in_the_modes(model):
    # the straight path from the reference crosses leg 2's singularity: the
    # continuation ends in the other elbow, a mirrored start gives this one
    P = np.array([-0.03, -0.12])
    q = fp.assemble(model, pose=P)
    assert wrapped_gap(q, configuration(model, P, reference_sides(model))) < 1e-10


def test_a_pose_reached_only_in_another_mode_is_refused(model):
    # the elbows fix the configuration at a pose: the other assembly mode
    # (sign of the Type 2 determinant) is reached in other working modes only
    P = np.array([0.2, 0.45])
    found = mode_signature(model, fp.assemble(model, pose=P)).at(0)
    wanted = dict(found, assembly=-found["assembly"])
    with pytest.raises(WorkingModeError, match="another assembly mode") as e:
        fp.assemble(model, pose=P, modes=wanted)
    assert e.value.leg == "assembly" and e.value.wanted == -e.value.found
    assert isinstance(e.value, fp.UnreachablePoseError)       # handled as before by callers


def test_a_start_in_the_other_elbow_ends_in_the_modes_given(model):
    sides = reference_sides(model)
    P = np.array([0.2, 0.45])
    wanted = mode_signature(model, configuration(model, P, sides)).at(0)
    other = configuration(model, P, (-sides[0], sides[1]))
    start = other.copy()
    start[:4] += 1e-3                               # joint coordinates only
    q = fp.assemble(model, pose=P, guess=start, modes={"1": wanted["1"]})
    assert wrapped_gap(q, configuration(model, P, sides)) < 1e-10
    # without modes the start's are kept: the other elbow, exactly
    assert wrapped_gap(fp.assemble(model, pose=P, guess=start), other) < 1e-10


@pytest.mark.parametrize("sides", SIDES)
def test_assemble_in_modes_finds_each_elbow_combination(model, sides):
    P = np.array([0.2, 0.45])
    q_geo = configuration(model, P, sides)
    q = fp.assemble(model, modes={k: v for k, v in mode_signature(model, q_geo).at(0).items()
                                  if k != "assembly"}, pose=P)
    assert wrapped_gap(q, q_geo) < 1e-10


def test_modes_false_is_the_plain_newton(model):
    q = fp.assemble(model, pose=[-0.03, -0.12], modes=False)
    assert np.abs(fp.closure_residual(model, q)).max() < 1e-12
