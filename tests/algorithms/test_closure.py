"""Closure (Section 10.4.1) on the DualEMPS: J_tot J = 0, the loop equations
stay satisfied to second order along J's columns, J_d equals the derivative of
a numerical solution of the geometric loop equations, singular choices raise."""
import numpy as np
import pytest
import scipy.optimize as so

from flexpkm.cases import dualemps as D
from flexpkm.algorithms.closure import constraint_jacobian, solve_closure
from flexpkm.algorithms.platform import PlatformPose, platform_pose
from flexpkm.errors import SingularConfigurationError
from flexpkm.algorithms.tree import tree_kinematics


def loop_residual(robot, q_tot):
    """Geometric loop equations of the DualEMPS (planar components):
    O25 = O15, x25 = x15 (weld), O18 = P."""
    layout = robot.layout
    k = tree_kinematics(robot, q_tot[:layout.n_t])
    i = robot.frame_index
    R25, R15 = k.R[0, i["25"]], k.R[0, i["15"]]
    d = k.p[0, i["25"]] - k.p[0, i["15"]]
    P = np.array([q_tot[layout.index("x_P")], 0.0, q_tot[layout.index("z_P")]])
    e = k.p[0, i["18"]] - P
    return np.array([d[0], d[2], R15[:, 0] @ R25[:, 1], e[0], e[2]])


def assembled(robot, q11=0.02, q21=0.05, seed=0):
    return D.configuration(robot, q11, q21)


def jacobian(robot, q_tot):
    """(J_tot, labels) of Eq. (10.107) at one state."""
    kin = tree_kinematics(robot, q_tot)
    P = platform_pose(robot, np.atleast_2d(q_tot)).P
    return constraint_jacobian(robot, kin, PlatformPose(None, P))


@pytest.fixture
def setup():
    robot = D.robot()
    q_tot = assembled(robot)
    J_tot, labels = jacobian(robot, q_tot)
    sol = solve_closure(robot, J_tot, labels)
    return robot, q_tot, J_tot, sol


def test_assembled_configuration_satisfies_loops(setup):
    robot, q_tot, _, _ = setup
    assert np.abs(loop_residual(robot, q_tot)).max() < 1e-12


def test_constraint_jacobian_annihilates_J(setup):
    robot, _, J_tot, sol = setup
    assert J_tot.shape[1] == 5
    assert np.abs(J_tot[0] @ sol.J[0]).max() < 1e-10


def test_loops_stay_closed_along_J(setup):
    robot, q_tot, _, sol = setup
    rng = np.random.default_rng(1)
    dq = sol.J[0] @ rng.normal(size=sol.J.shape[2])
    for eps in (1e-3, 1e-4):
        r = np.abs(loop_residual(robot, q_tot + eps * dq)).max()
        assert r < 50 * eps ** 2          # first-order closure: O(eps^2) residual


def test_J_d_matches_numerical_loop_solution(setup):
    robot, q_tot, _, sol = setup
    dep, indep = sol.dep, sol.indep
    eps = 1e-6

    def solve_dep(q_ind):
        def f(x):
            q = q_tot.copy()
            q[indep] = q_ind
            q[dep] = x
            return loop_residual(robot, q)
        return so.fsolve(f, q_tot[dep], xtol=1e-12)

    for k in range(len(indep)):
        qp = q_tot[indep].copy()
        qm = q_tot[indep].copy()
        qp[k] += eps
        qm[k] -= eps
        col = (solve_dep(qp) - solve_dep(qm)) / (2 * eps)
        np.testing.assert_allclose(col, sol.J_d[0][:, k], atol=1e-5 * max(1, np.abs(col).max()))


def test_book_choice_is_singular_and_replaced(setup):
    robot, _, J_tot, sol = setup
    assert sol.choice.split(" at ")[0] in ("rank-revealing", "per limb")
    with pytest.raises(SingularConfigurationError, match="leg 1"):
        solve_closure(robot, J_tot, jacobian(robot, D.configuration(robot, 0.02, 0.05))[1],
                      q_dep=D.Q_DEP_BOOK)


def test_closure_residual_matches_test_loop_equations_and_projection(setup):
    from flexpkm.algorithms.closure import closure_residual, project_on_loops
    robot, q_tot, J_tot, sol = setup
    assert np.abs(closure_residual(robot, q_tot)).max() < 1e-12
    rng = np.random.default_rng(7)
    q = q_tot + 1e-3 * rng.normal(size=q_tot.size)
    # same zero set as the hand-written loop equations, same rows to first order
    r1 = closure_residual(robot, q)[0]
    assert np.abs(r1).max() > 1e-5
    qp, err = project_on_loops(robot, q, sol.dep)
    assert err < 1e-12 and np.abs(loop_residual(robot, qp)).max() < 1e-11
    np.testing.assert_array_equal(qp[sol.indep], q[sol.indep])


@pytest.mark.parametrize("joint, free", [("weld", ()), ("revolute", (5,)), ("prismatic", (2,)),
                                         ("universal", (3, 5)), ("spherical", (3, 4, 5))])
def test_cut_joint_types_block_exactly_their_twist_components(joint, free):
    """Two 6-joint chains closed by a cut joint: the closed mechanism's
    relative twist at the cut (in the cut frame) has zero constrained
    components and spans exactly the joint's free directions."""
    from flexpkm.model.description import CUT_JOINT_ROWS
    from flexpkm.spatial import skew
    from tests.algorithms.chains import closed_chains
    robot, q = closed_chains(joint, np.eye(4))          # aligned cut frames
    kin = tree_kinematics(robot, q)
    J_tot, labels = constraint_jacobian(robot, kin, PlatformPose(None, np.zeros((1, 3))))
    assert J_tot.shape[1] == len(CUT_JOINT_ROWS[joint]) == 6 - len(free)
    sol = solve_closure(robot, J_tot, labels)
    i, g = robot.frame_index["A5"], robot.frame_index["Bc"]
    Rt = kin.R[0, i].T
    rel_v = kin.Jv[0, i] - kin.Jv[0, g] + skew(kin.p[0, i] - kin.p[0, g]) @ kin.Jw[0, g]
    rel = np.vstack([Rt @ rel_v, Rt @ (kin.Jw[0, i] - kin.Jw[0, g])]) @ sol.J[0]
    blocked = [r for r in range(6) if r not in free]
    assert np.abs(rel[blocked]).max() < 1e-10
    assert np.linalg.matrix_rank(rel[list(free)], tol=1e-8) == len(free)


def test_limb_partitioning_of_the_navaro():
    """Müller 3.3.2: dependent coordinates chosen limb by limb, the same
    pattern in the three identical legs, J_t^f block-diagonal, per-limb
    solves equal to the global solve."""
    from flexpkm.cases import navaro as N
    from flexpkm.algorithms.dependent import limb_blocks
    from flexpkm.model import build_structure
    robot = N.robot()
    J_tot, labels = jacobian(robot, N.configuration(robot, 0.01, 0.02, 0.1))
    sol = solve_closure(robot, J_tot, labels)
    assert sol.choice.startswith("per limb")
    names = [robot.layout.names[i] for i in sol.dep]
    per_leg = [sorted(n.replace(f"{leg}", "i", 1) for n in names if n[1 + n.startswith("qe"):][0] == leg)
               for leg in "123"]
    assert per_leg[0] == per_leg[1] == per_leg[2] and len(per_leg[0]) == 11
    assert limb_blocks(build_structure(robot), labels, sol.dep) is not None
    glob = -np.linalg.solve(J_tot[0][:, sol.dep], J_tot[0][:, sol.indep])
    np.testing.assert_allclose(sol.J_d[0], glob, atol=1e-10 * np.abs(glob).max())
