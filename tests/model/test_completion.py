"""flexpkm.model.completion: the platform of a flexible model moves in every
direction of its space that a closure constrains (issue 16)."""
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

import flexpkm as fp
from flexpkm.algorithms.assembly import assemble_reference
from flexpkm.algorithms.closure import constraint_jacobian
from flexpkm.algorithms.platform import platform_pose
from flexpkm.algorithms.tree import tree_kinematics
from flexpkm.cases import delta as D
from flexpkm.cases import dualemps, navaro
from flexpkm.errors import NameCollisionError
from flexpkm.model.completion import added_directions, complete_platform, space_directions
from flexpkm.model.description import Platform

CASES = Path(D.__file__).parent


def _robots():
    return {"delta": D.robot(flexible=True), "rigid delta": D.robot(), "dualemps": dualemps.robot(),
            "navaro": navaro.robot(), "five_bar": fp.load_robot(CASES / "examples" / "five_bar.toml"),
            "three_rrr": fp.load_robot(CASES / "examples" / "three_rrr.toml"),
            "dualv": fp.load_robot(CASES / "dualv.toml")}


def test_only_the_flexible_delta_gets_directions():
    added = {name: added_directions(r) for name, r in _robots().items()}
    assert added == {"delta": (3, 4, 5), "rigid delta": (), "dualemps": (), "navaro": (),
                     "five_bar": (), "three_rrr": (), "dualv": ()}
    rigid, nav = D.robot(), navaro.robot()
    assert complete_platform(rigid) is rigid and complete_platform(nav) is nav


def _platform_rank(robot):
    """Rank of J_tot's platform columns with EVERY direction of the robot's
    space as a platform coordinate, at its assembled reference
    configuration (the description's model assembled, the other platform
    coordinates 0): the numerical counterpart of the structural rule."""
    model = fp.build_model(robot)
    q = assemble_reference(model)
    pl = model.platform
    space = space_directions(robot)
    full = replace(model.robot, reference={}, q_dep=None,
                   platform=Platform(body=pl.body, dofs=space, commanded=space,
                                     dof_names=tuple(f"p{k}" for k in space)))
    big = fp.build_model(full)
    qf = np.zeros(big.layout.n_tot)
    qf[:model.layout.n_t] = q[:model.layout.n_t]
    for col, d in zip(range(model.layout.n_t, model.layout.n_tot), pl.dofs):
        qf[big.layout.n_t + space.index(d)] = q[col]
    kin = tree_kinematics(big, qf[None, :big.layout.n_t])
    J = constraint_jacobian(big, kin, platform_pose(big, qf[None]))[0][0][:, big.layout.n_t:]
    s = np.linalg.svd(J, compute_uv=False)
    return int(np.sum(s > 1e-9 * s[0]))


@pytest.mark.parametrize("name", ["delta", "dualemps", "five_bar", "three_rrr"])
def test_structural_rule_matches_the_rank_of_J_tot(name):
    """The directions kept (description's + added) are as many as the rank
    of J_tot's platform columns at the assembled reference configuration:
    the Delta's closures fix all six, the five-bar's and the DualEMPS's
    revolutes at a point leave its rotation free."""
    robot = _robots()[name]
    rank = _platform_rank(robot)
    assert len(robot.platform.dofs) + len(added_directions(robot)) == rank
    assert rank == {"delta": 6, "dualemps": 2, "five_bar": 2, "three_rrr": 6}[name]


def test_the_completed_delta_platform():
    model = fp.build_model(D.robot(flexible=True))
    pl = model.platform
    assert pl.dofs == (0, 1, 2, 3, 4, 5) and pl.commanded == (0, 1, 2)
    assert model.layout.names[-6:] == ("x", "y", "z", "rx", "ry", "rz")
    n_t = model.layout.n_t
    assert model.layout.commanded == (n_t, n_t + 1, n_t + 2)
    assert model.layout.platform_dependent == (n_t + 3, n_t + 4, n_t + 5)
    assert complete_platform(model.robot) is model.robot          # idempotent
    q = fp.assemble(model, pose=[0.1, -0.05, -0.9])
    np.testing.assert_allclose(q[n_t:n_t + 3], [0.1, -0.05, -0.9], atol=1e-14)
    assert np.abs(q[n_t + 3:]).max() < 1e-12                      # rigid geometry: no rotation
    with pytest.raises(fp.InvalidArgumentError, match="3 values"):
        fp.assemble(model, pose=np.zeros(6))
    rigid = fp.build_model(D.robot())
    assert rigid.platform.dofs == (0, 1, 2) and rigid.layout.n_p == 3


def test_the_completed_description_survives_a_file_round_trip():
    model = fp.build_model(D.robot(flexible=True))
    again = fp.build_model(fp.loads_robot(fp.dumps_robot(model.robot)))
    assert again.layout.names == model.layout.names
    assert again.layout.commanded == model.layout.commanded
    text = fp.dumps_robot(fp.load_robot(CASES / "delta.toml"))
    assert "commanded" not in text                                 # the file as written


def test_bad_commanded_and_name_collisions_are_refused():
    with pytest.raises(fp.InvalidDescriptionError, match="commanded"):
        replace(D.robot(), platform=Platform(dofs=(0, 1, 2), dof_names=("x", "y", "z"),
                                             commanded=(0, 5)))
    robot = D.robot(flexible=True)
    clash = replace(robot, platform=replace(robot.platform, dof_names=("x", "rx", "z")),
                    reference={})
    with pytest.raises(NameCollisionError, match="'rx'.*rename") as e:
        fp.build_model(clash)
    assert e.value.name == "rx"


def test_a_file_may_state_the_commanded_dofs():
    text = fp.dumps_robot(D.robot(flexible=True))
    two = fp.build_model(fp.loads_robot(text.replace("dofs = [0, 1, 2]",
                                                     "dofs = [0, 1, 2]\ncommanded = [0, 1]", 1)))
    assert two.platform.commanded == (0, 1) and two.layout.names[-6:-4] == ("x", "y")
    assert two.layout.commanded == (two.layout.n_t, two.layout.n_t + 1)
    with pytest.raises(fp.InvalidDescriptionError, match=r"platform.commanded: expected dofs"):
        fp.loads_robot(text.replace("dofs = [0, 1, 2]", "dofs = [0, 1, 2]\ncommanded = [0, 5]", 1))
