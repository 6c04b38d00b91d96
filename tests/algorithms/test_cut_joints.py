"""Cut joints at NON-aligned configurations (flexpkm.algorithms.cut_joints):
two random 6-joint chains closed by each joint type at a random point of the
joint's motion manifold. The closed mechanism's relative twist at the cut
spans exactly the joint's free directions (computed here from the joint's
geometry); the position residual vanishes on the motion manifold and not off
it; the velocity rows and b' are the first and second time derivatives of
the position residual (finite differences), with a 6-dof platform too."""
import numpy as np
import pytest

from flexpkm.algorithms.closure import (apply_step, closure_residual, constraint_bias,
                                        constraint_jacobian)
from flexpkm.algorithms.platform import PlatformPose, platform_pose
from flexpkm.algorithms.tree import tree_kinematics
from flexpkm.errors import InvalidArgumentError
from flexpkm.model import build_structure
from flexpkm.model.description import Closure, Platform, Robot
from flexpkm.spatial import skew
from tests.algorithms.chains import chain_frames, closed_chains, joint_motion, rx, rz, transform

JOINTS = ("weld", "revolute", "prismatic", "universal", "spherical")


def free_directions(joint, Rk, Rg):
    """Base-frame relative twists [v; w] (at O_k) the joint lets through."""
    z, xg = Rk[:, 2], Rg[:, 0]
    V = lambda v: np.r_[v, np.zeros(3)]
    W = lambda w: np.r_[np.zeros(3), w]
    return {"weld": [], "revolute": [W(z)], "prismatic": [V(z)], "universal": [W(z), W(xg)],
            "spherical": [W(e) for e in np.eye(3)]}[joint]


@pytest.mark.parametrize("joint", JOINTS)
@pytest.mark.parametrize("seed", [11, 12])
def test_relative_twist_spans_exactly_the_free_directions(joint, seed):
    rng = np.random.default_rng(seed)
    robot, q = closed_chains(joint, joint_motion(joint, rng))
    assert np.abs(closure_residual(robot, q)).max() < 1e-12
    kin = tree_kinematics(robot, q)
    J_tot = constraint_jacobian(robot, kin, PlatformPose(None, np.zeros((1, 3))))[0][0]
    k, g = robot.frame_index["A5"], robot.frame_index["Bc"]
    rel = np.vstack([kin.Jv[0, k] - kin.Jv[0, g] + skew(kin.p[0, k] - kin.p[0, g]) @ kin.Jw[0, g],
                     kin.Jw[0, k] - kin.Jw[0, g]])
    null = np.linalg.svd(J_tot)[2][np.linalg.matrix_rank(J_tot, tol=1e-10):].T
    twists = rel @ null                                  # relative twists of the closed chains
    free = np.array(free_directions(joint, kin.R[0, k], kin.R[0, g])).reshape(-1, 6).T
    assert J_tot.shape[0] == np.linalg.matrix_rank(J_tot, tol=1e-10) == 6 - free.shape[1]
    if free.shape[1]:
        Q = np.linalg.qr(free)[0]
        twists_out = twists - Q @ (Q.T @ twists)
    else:
        twists_out = twists
    assert np.abs(twists_out).max() < 1e-10 * max(1.0, np.abs(twists).max())
    assert np.linalg.matrix_rank(twists, tol=1e-8) == free.shape[1]


@pytest.mark.parametrize("joint", JOINTS)
def test_residual_vanishes_on_the_motion_manifold_only(joint):
    rng = np.random.default_rng(5)
    for _ in range(4):
        robot, q = closed_chains(joint, joint_motion(joint, rng))
        assert np.abs(closure_residual(robot, q)).max() < 1e-12
    # off the manifold: a small motion along a blocked direction opens the loop
    e = 1e-3
    off = {"weld": transform(rx(e), np.zeros(3)),
           "revolute": transform(rz(0.8) @ rx(e), np.zeros(3)),
           "prismatic": transform(np.eye(3), [e, 0, 0.05]),
           "universal": transform(rz(0.8) @ rx(0.5) @ rz(0.5 * np.pi) @ rx(e) @ rz(-0.5 * np.pi)
                                  @ rx(0.4), np.zeros(3)),
           "spherical": transform(rz(0.8), [0, e, 0])}[joint]
    robot, q = closed_chains(joint, off)
    assert np.abs(closure_residual(robot, q)).max() > 0.5 * e


def platform_robot(joint, seed=3):
    """Chain A reaches a 6-dof platform by ``joint`` (platform-side frame
    turned by ``platform_rotation``), chain B is welded to it."""
    frames, q = chain_frames(seed)
    rng = np.random.default_rng(seed + 100)
    closures = (Closure("A5", None, joint, leg="A", platform_point=tuple(rng.normal(size=3) * 0.1),
                        platform_rotation=tuple(rng.normal(size=3))),
                Closure("B5", None, "weld", leg="B", platform_point=(0.05, 0.0, 0.02)))
    robot = Robot("chains on a platform", frames, {}, platform=Platform(), closures=closures)
    q_tot = np.r_[q, rng.normal(size=3) * 0.2, rng.normal(size=3)]
    return build_structure(robot), q_tot, rng


@pytest.mark.parametrize("joint", JOINTS)
def test_velocity_rows_and_bias_are_derivatives_of_the_residual(joint):
    model, q0, rng = platform_robot(joint)                # NOT assembled: rows everywhere
    n = model.layout.n_tot
    cols = np.arange(n)
    qd = rng.normal(size=n)
    path = lambda t: closure_residual(model, apply_step(model, q0[None], cols, t * qd))[0]
    kin = tree_kinematics(model, q0[None, :model.layout.n_t], qd[None, :model.layout.n_t])
    pose = platform_pose(model, q0[None])
    J = constraint_jacobian(model, kin, pose)[0][0]
    h = 1e-5
    np.testing.assert_allclose(J @ qd, (path(h) - path(-h)) / (2 * h), atol=1e-8)
    h = 1e-4
    second = (path(h) - 2 * path(0.0) + path(-h)) / h ** 2
    np.testing.assert_allclose(constraint_bias(model, kin, qd[None], pose)[0], second,
                               atol=1e-5 * max(1, np.abs(second).max()))


def test_platform_rotation_is_required_where_it_matters():
    model, q0, _ = platform_robot("universal")
    kin = tree_kinematics(model, q0[None, :model.layout.n_t])
    with pytest.raises(InvalidArgumentError, match="R_p"):
        constraint_jacobian(model, kin, PlatformPose(None, platform_pose(model, q0[None]).P))


def ry(a):
    return rz(np.pi / 2) @ rx(a) @ rz(-np.pi / 2)


#: half-turns of the cut frame that a joint's rows cannot see, per joint:
#: refused (not a motion of the joint) or accepted (a motion of the joint)
HALF_TURNS = {"x": rx(np.pi), "y": ry(np.pi), "z": rz(np.pi)}
REFUSED = {"weld": "xyz", "prismatic": "xyz", "revolute": "xy", "universal": "", "spherical": ""}


@pytest.mark.parametrize("joint", JOINTS)
@pytest.mark.parametrize("axis", "xyz")
def test_a_half_turned_cut_frame_is_refused_unless_a_motion_of_the_joint(joint, axis):
    from flexpkm.algorithms.assembly import assemble
    from flexpkm.algorithms.closure import check_loops, half_turns
    from flexpkm.errors import OpenLoopError, UnreachablePoseError
    rng = np.random.default_rng(8)
    T_rel = joint_motion(joint, rng) @ transform(HALF_TURNS[axis], np.zeros(3))
    robot, q = closed_chains(joint, T_rel)
    assert np.abs(closure_residual(robot, q)).max() < 1e-12     # the rows cannot see it
    if axis in REFUSED[joint]:
        assert half_turns(robot, q)[0][1] == "A5-Bc"
        with pytest.raises(OpenLoopError, match="half-turned"):
            check_loops(robot, q)
        with pytest.raises(UnreachablePoseError, match="half-turned"):
            assemble(robot, q_a=np.zeros(0), guess=q)
    else:
        assert half_turns(robot, q) == []
        assert check_loops(robot, q).max() < 1e-12
