"""Actuation redundancy (Section 8.5): choice of the independent
coordinates, minimum-norm / weighted inverse and direct problems, power
balance with an independent kinetic energy, present behaviour kept for
non-redundant robots."""
import numpy as np
import pytest

import flexpkm as fp
from flexpkm.algorithms.closure import constraint_jacobian
from flexpkm.algorithms.dependent import choose_dependent
from flexpkm.algorithms.redundancy import actuation_matrix, is_redundant
from flexpkm.cases import dualemps as DE
from flexpkm.cases import dualv as V
from flexpkm.errors import InvalidArgumentError

from ..cases.book_legs import leg_mass_matrix
from ..cases.test_dualv import D2, MX2, MY2, ZZ1R, ZZ2, book_state


@pytest.fixture(scope="module")
def model():
    return fp.build_model(V.robot())


def test_independent_coordinates_are_actuated(model):
    q = V.configuration(model, 0.03, -0.02, 0.2)
    kin = fp.tree_kinematics(model, q[:model.layout.n_t])
    P = fp.platform_pose(model, q[None]).P
    J_tot, labels = constraint_jacobian(model, kin, fp.PlatformPose(None, P))
    dep, choice = choose_dependent(model, J_tot, labels)
    indep = sorted(set(range(model.layout.n_tot)) - set(dep))
    assert choice == "redundant actuation"
    assert len(dep) == 12 and set(indep) < set(model.layout.actuated)
    s = np.linalg.svd(J_tot[0][:, dep], compute_uv=False)
    assert s[-1] / s[0] > 1e-3
    full = fp.full_dynamics(model, q, np.zeros(3))
    # the full model's choice is made at the reference configuration: three
    # of the four actuators, not necessarily those chosen at this pose
    assert is_redundant(full) and full.n_a == 3 and len(full.names) == 3
    assert set(full.names) < {model.layout.names[i] for i in model.layout.actuated}
    assert actuation_matrix(full).shape == (3, 4)


def test_all_or_independent_accelerations_and_batches(model):
    p = np.array([[0.0, 0.0, 0.0], [0.04, -0.03, 0.25]])
    q = V.configuration(model, p[:, 0], p[:, 1], p[:, 2])
    full = fp.full_dynamics(model, q, np.array([[0.1, -0.2, 0.3], [0.5, 0.1, -0.4]]))
    rng = np.random.default_rng(0)
    qdd_r = rng.normal(size=(2, 3))
    J_a = full.J[:, full.actuated, :]                      # all actuator accelerations
    qdd_all = (J_a @ qdd_r[..., None])[..., 0] + full.b[:, full.actuated]
    tau_r, _ = fp.inverse_dynamics(full, qdd_r)
    tau_all, _ = fp.inverse_dynamics(full, qdd_all)
    np.testing.assert_allclose(tau_r, tau_all, rtol=1e-10)
    one = fp.full_dynamics(model, q[1], np.array([0.5, 0.1, -0.4]), dep=full.dep)
    np.testing.assert_allclose(fp.inverse_dynamics(one, qdd_r[1])[0], tau_r[1], rtol=1e-10)
    np.testing.assert_allclose(fp.direct_dynamics(full, tau_r), qdd_r, rtol=1e-9, atol=1e-9)
    with pytest.raises(InvalidArgumentError):
        fp.inverse_dynamics(full, np.zeros((2, 2)))
    for bad in (np.ones(3), -np.ones(4), np.ones((4, 3))):
        with pytest.raises(InvalidArgumentError):
            fp.inverse_dynamics(full, qdd_r, weights=bad)


def kinetic_energy(p, t):
    """Legs as (8.127) per leg, platform + payload of (8.202)-(8.204):
    T = m v^2 / 2 + zz w^2 / 2 + w (v_y MS_x - v_x MS_y), MS in F_0."""
    legs, _, _ = book_state(p, t, np.zeros(3))
    E = 0.0
    for q, qd, _ in legs:
        E += 0.5 * qd[:2] @ leg_mass_matrix(ZZ1R, ZZ2, MX2, MY2, D2, q[1]) @ qd[:2]
    m, mx, my, zz = V.PLATFORM
    c, s = np.cos(p[2]), np.sin(p[2])
    MS = np.array([c * mx - s * my, s * mx + c * my])
    return E + 0.5 * m * t[:2] @ t[:2] + 0.5 * zz * t[2] ** 2 + t[2] * (t[1] * MS[0] - t[0] * MS[1])


@pytest.mark.parametrize("weights", [None, np.array([1.0, 3.0, 0.5, 2.0])])
def test_power_balance_along_a_trajectory(model, weights):
    """sum over the 4 actuators tau_i qd_i = dE/dt, whatever the weights
    (the overconstraint does no work)."""
    p0, v, a = np.array([0.01, -0.02, 0.1]), np.array([0.3, 0.2, -1.0]), np.array([-2.0, 1.0, 5.0])
    h = 1e-5
    for t in (0.0, 0.04, 0.08):
        p, pd = p0 + v * t + a * t * t / 2, v + a * t
        legs, _, _ = book_state(p, pd, a)
        qd_all = np.array([leg[1][0] for leg in legs])
        qdd_all = np.array([leg[2][0] for leg in legs])
        q = V.configuration(model, *p)
        probe = fp.full_dynamics(model, q, np.zeros(3))
        pick = [list(probe.actuated).index(c) for c in probe.indep]
        full = fp.full_dynamics(model, q, qd_all[pick], dep=probe.dep)
        tau, _ = fp.inverse_dynamics(full, qdd_all, weights=weights)
        dE = (kinetic_energy(p0 + v * (t + h) + a * (t + h) ** 2 / 2, v + a * (t + h))
              - kinetic_energy(p0 + v * (t - h) + a * (t - h) ** 2 / 2, v + a * (t - h))) / (2 * h)
        assert tau @ qd_all == pytest.approx(dE, rel=1e-7)


def test_non_redundant_robot_unchanged():
    rob = fp.build_model(DE.robot())
    q = DE.initial_state(rob, 0.05, 0.1)
    full = fp.full_dynamics(rob, q, np.full(11, 0.1))
    assert not is_redundant(full)
    qdd = np.linspace(-1, 1, 2)
    tau, qdd_c = fp.inverse_dynamics(full, qdd)
    tau_w, qdd_c_w = fp.inverse_dynamics(full, qdd, weights=[1.0, 5.0])
    np.testing.assert_array_equal(tau, tau_w)
    np.testing.assert_array_equal(qdd_c, qdd_c_w)


def test_elastic_coordinates_by_a_kkt_system():
    """With elastic coordinates q_c the efforts solve M qdd_r + c = A tau with
    the least tau^T W tau: the KKT system of that problem, solved directly."""
    from flexpkm.algorithms.dynamics import FullDynamics
    rng = np.random.default_rng(2)
    n_r, n_a = 4, 1
    X = rng.normal(size=(n_r, n_r))
    M, c = X @ X.T + n_r * np.eye(n_r), rng.normal(size=n_r)
    J = np.zeros((6, n_r))
    J[[0, 2, 3, 4], range(n_r)] = 1.0
    J[[1, 5]] = rng.normal(size=(2, n_r))
    full = FullDynamics(M=M, c=c, J=J, b=np.zeros(6), indep=np.array([0, 2, 3, 4]),
                        dep=np.array([1, 5]), n_a=n_a, names=("q1", "e1", "e2", "e3"),
                        actuated=np.array([0, 1]))
    W = np.diag([2.0, 0.5])
    qdd_a = np.array([0.7])
    tau, qdd_c = fp.inverse_dynamics(full, qdd_a, weights=W)
    A = J[[0, 1]].T
    # unknowns z = [tau (2), qdd_c (3)], constraint A tau - M_:c qdd_c = M_:a qdd_a + c
    C = np.hstack([A, -M[:, n_a:]])
    H = np.zeros((5, 5))
    H[:2, :2] = 2 * W
    K = np.block([[H, C.T], [C, np.zeros((n_r, n_r))]])
    z = np.linalg.lstsq(K, np.concatenate([np.zeros(5), M[:, :n_a] @ qdd_a + c]), rcond=None)[0]
    np.testing.assert_allclose(tau, z[:2], rtol=1e-10)
    np.testing.assert_allclose(qdd_c, z[2:5], rtol=1e-10)
    np.testing.assert_allclose(fp.direct_dynamics(full, tau), np.concatenate([qdd_a, qdd_c]),
                               rtol=1e-10)
