"""Working and assembly modes (flexpkm.algorithms.modes) of the example
five-bar (cases/examples/five_bar.toml) against its geometry written here:
the elbow B_i of leg i is one of the two intersections of the circles
(A_i, L) and (P, L), on the left or on the right of A_i -> P (the two
working modes of Section 7.5); the signs of the determinants must follow
the side of the elbow, one sign per side for every pose."""
from pathlib import Path

import numpy as np
import pytest

import flexpkm as fp
from flexpkm.algorithms.modes import generic_configuration, leg_blocks, mode_signature, mode_text, parse_modes
from flexpkm.errors import InvalidArgumentError

FILE = Path(__file__).parents[2] / "cases" / "examples" / "five_bar.toml"
L = 0.3
A = {"1": np.array([0.0, 0.0]), "2": np.array([0.2, 0.0])}


def elbow(leg, P, side):
    """Elbow of leg ``leg`` at tip P (2,), on the ``side`` (+1 left, -1
    right) of A_i -> P (the two-circle intersection)."""
    d = P - A[leg]
    dist = np.hypot(*d)
    h = np.sqrt(max(L ** 2 - dist ** 2 / 4, 0.0))
    return A[leg] + d / 2 + side * h * np.array([-d[1], d[0]]) / dist


def configuration(model, P, sides):
    """q_tot of the rigid five-bar at tip P with the elbows on ``sides``."""
    q = np.zeros(model.layout.n_tot)
    for leg, side in zip("12", sides):
        B = elbow(leg, P, side)
        q1 = np.arctan2(*(B - A[leg])[::-1])
        q[model.layout.index(f"q{leg}1")] = q1
        q[model.layout.index(f"q{leg}2")] = np.arctan2(*(P - B)[::-1]) - q1
    q[model.layout.index("x_P")], q[model.layout.index("y_P")] = P
    return q


@pytest.fixture(scope="module")
def model():
    return fp.build_model(fp.load_robot(FILE))


def test_the_legs_blocks_are_the_two_link_jacobians(model):
    q = generic_configuration(model)
    kin = fp.tree_kinematics(model, q[:, :model.layout.n_t])
    J = fp.constraint_jacobian(model, kin, fp.platform_pose(model, q))[0]
    legs, blocks = leg_blocks(model, J)
    assert legs == ["1", "2"]
    names = [[model.layout.names[c] for c in cols] for _, cols in blocks]
    assert names == [["q11", "q12"], ["q21", "q22"]]


def test_signs_follow_the_side_of_the_elbows_at_every_pose(model):
    rng = np.random.default_rng(4)
    seen = {}
    for _ in range(12):
        P = np.array([rng.uniform(-0.05, 0.25), rng.uniform(0.15, 0.5)])
        for sides in ((1, 1), (1, -1), (-1, 1), (-1, -1)):
            q = configuration(model, P, sides)
            assert np.abs(fp.closure_residual(model, q)).max() < 1e-12
            sig = mode_signature(model, q).at(0)
            for leg, side in zip("12", sides):
                seen.setdefault((leg, side), set()).add(sig[leg])
    # one sign per side and leg, opposite on the two sides
    assert all(len(v) == 1 for v in seen.values())
    for leg in "12":
        assert seen[(leg, 1)] == {-s for s in seen[(leg, -1)]}


def test_a_stretched_leg_is_singular(model):
    P = A["1"] + np.array([np.cos(1.2), np.sin(1.2)]) * 2 * L
    q = configuration(model, P, (1, 1))
    q[model.layout.index("q11")], q[model.layout.index("q12")] = 1.2, 0.0   # stretched exactly
    assert mode_signature(model, q).at(0)["1"] == 0


def test_batch_equals_pose_by_pose(model):
    qs = np.array([configuration(model, np.array([0.1, 0.4]), s) for s in ((1, 1), (-1, 1))])
    sig = mode_signature(model, qs)
    assert [sig.at(b) for b in range(2)] == [mode_signature(model, q).at(0) for q in qs]
    assert sig.working.shape == (2, 2) and sig.assembly.shape == (2,)


def test_parse_and_text():
    assert parse_modes(["+", "-"], ("1", "2")) == {"1": 1, "2": -1}
    assert parse_modes({"2": -1, "assembly": 1}, ("1", "2")) == {"2": -1, "assembly": 1}
    assert mode_text({"1": 1, "assembly": -1}) == "leg 1 +, assembly -"
    for bad in (["+"], {"3": 1}, ["+", "x"]):
        with pytest.raises(InvalidArgumentError):
            parse_modes(bad, ("1", "2"))
