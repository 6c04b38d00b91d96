"""Recursive poses, Jacobians and accelerations of the virtual tree vs finite
differences of the forward geometric model, with q_e != 0 (Section 10.3)."""
import numpy as np

from flexpkm.algorithms.tree import tree_kinematics

from tests.conftest import random_state


def poses(robot, q):
    k = tree_kinematics(robot, q)
    return k.R[0], k.p[0]


def test_jacobians_match_finite_differences_of_poses(tree_robot):
    q, qd, _ = random_state(tree_robot, seed=1)
    kin = tree_kinematics(tree_robot, q)
    eps = 1e-6
    Rp, pp = poses(tree_robot, q + eps * qd)
    Rm, pm = poses(tree_robot, q - eps * qd)
    v_fd = (pp - pm) / (2 * eps)
    dR = (Rp - Rm) / (2 * eps)
    W = dR @ np.swapaxes(kin.R[0], -1, -2)            # skew(omega)
    w_fd = np.stack([W[:, 2, 1], W[:, 0, 2], W[:, 1, 0]], axis=-1)
    v = kin.Jv[0] @ qd
    w = kin.Jw[0] @ qd
    assert np.max(np.abs(v - v_fd)) < 1e-8 * max(1, np.abs(v).max())
    assert np.max(np.abs(w - w_fd)) < 1e-8 * max(1, np.abs(w).max())
    # the elastic rotations matter here: the test is not trivial
    assert np.abs(q[tree_robot.layout.n_t - 1]) > 0


def test_acceleration_bias_is_time_derivative_of_twists(tree_robot):
    q, qd, qdd = random_state(tree_robot, seed=2)
    kin = tree_kinematics(tree_robot, q, qd, gravity=np.zeros(3))
    eps = 1e-5

    def twist(t):
        qt = q + t * qd + 0.5 * t * t * qdd
        k = tree_kinematics(tree_robot, qt)
        qdt = qd + t * qdd
        return k.Jv[0] @ qdt, k.Jw[0] @ qdt

    vp, wp = twist(eps)
    vm, wm = twist(-eps)
    a_fd, al_fd = (vp - vm) / (2 * eps), (wp - wm) / (2 * eps)
    a = kin.Jv[0] @ qdd + kin.a_bias[0]
    al = kin.Jw[0] @ qdd + kin.alpha_bias[0]
    assert np.max(np.abs(a - a_fd)) < 1e-6 * np.abs(a).max()
    assert np.max(np.abs(al - al_fd)) < 1e-6 * np.abs(al).max()


def test_gravity_enters_as_base_acceleration(tree_robot):
    q, qd, _ = random_state(tree_robot, seed=3)
    g = np.array([0.0, 0.0, -9.81])
    k0 = tree_kinematics(tree_robot, q, qd, gravity=np.zeros(3))
    kg = tree_kinematics(tree_robot, q, qd, gravity=g)
    np.testing.assert_allclose(kg.a_bias - k0.a_bias, np.broadcast_to(-g, k0.a_bias.shape), atol=1e-12)


def test_batch_equals_loop(tree_robot):
    qs = np.stack([random_state(tree_robot, seed=s)[0] for s in range(4)])
    qds = np.stack([random_state(tree_robot, seed=s)[1] for s in range(4)])
    kb = tree_kinematics(tree_robot, qs, qds)
    for b in range(4):
        k1 = tree_kinematics(tree_robot, qs[b], qds[b])
        np.testing.assert_allclose(kb.Jv[b], k1.Jv[0], atol=1e-14)
        np.testing.assert_allclose(kb.a_bias[b], k1.a_bias[0], atol=1e-12)


def test_body_jacobian_projects_in_body_frame(tree_robot):
    q, qd, _ = random_state(tree_robot, seed=4)
    kin = tree_kinematics(tree_robot, q)
    j = 3
    t = kin.body_jacobian(j)[0] @ qd
    R = kin.R[0, j]
    np.testing.assert_allclose(R @ t[:3], kin.Jv[0, j] @ qd, atol=1e-12)
    np.testing.assert_allclose(R @ t[3:], kin.Jw[0, j] @ qd, atol=1e-12)


def test_book_recursion_10_76_at_rest_shape(tree_robot):
    """At q_e = 0 our base-frame recursion equals the book's (10.76):
    ^j t_j = ^jT_a ^a t_a + ^jR_a Phi_a(O_j) qd_ea + qd_j a_j, with the 6x6
    transforms (10.97)-(10.98); Phi_a is evaluated at O_j itself (off the
    neutral axis when r_j != 0: (F.2))."""
    from flexpkm.spatial import block_rotation, twist_transform
    from flexpkm.model import build_structure
    robot = tree_robot
    q, qd, _ = random_state(robot, seed=8, qe_scale=0.0)
    kin = tree_kinematics(robot, q)
    t = [kin.body_jacobian(j)[0] @ qd for j in range(len(robot.frames))]
    for j, fc in enumerate(build_structure(robot).frame_constants):
        a = fc.antecedent
        if a < 0 or fc.shapes is None:
            continue
        R_aj = kin.R[0, a].T @ kin.R[0, j]                       # ^aR_j
        r = kin.R[0, a].T @ (kin.p[0, j] - kin.p[0, a])          # ^a r_{O_a O_j}
        sl = fc.shapes[0]
        body = robot.flexible_body(robot.frames[a].name)
        Phi = body.phi(r)                                        # Phi_a(O_j), (10.8) with (F.2)
        book = twist_transform(R_aj.T, r) @ t[a] + block_rotation(R_aj.T) @ Phi @ qd[sl]
        if fc.col >= 0:
            axis = np.array([0.0, 0.0, 1.0])
            book += qd[fc.col] * np.concatenate([axis * (fc.sigma == 1), axis * (fc.sigma == 0)])
        np.testing.assert_allclose(t[j], book, atol=1e-12)


def test_poses_without_the_jacobians_are_the_same(tree_robot):
    """``jacobians=False`` (the closed forms' platform coordinates): the same
    frame poses, s and rho to the bit, no Jacobians; with qd_t it refuses."""
    import pytest
    from flexpkm.errors import InvalidArgumentError
    q, qd, _ = random_state(tree_robot, seed=3)
    qb = np.stack([q, 0.5 * q])
    full, poses_only = tree_kinematics(tree_robot, qb), tree_kinematics(tree_robot, qb,
                                                                        jacobians=False)
    for name in ("R", "p", "s", "rho"):
        assert np.array_equal(getattr(full, name), getattr(poses_only, name)), name
    assert poses_only.Jv is None and poses_only.Jw is None
    with pytest.raises(InvalidArgumentError, match="Jacobians"):
        tree_kinematics(tree_robot, q, qd, jacobians=False)
