"""Joint reactions (cut-joint wrenches) on the rigid five-bar with in-plane
gravity, checked by Newton-Euler equations written here for single bodies:

* the end-effector point mass: ``m4 a_P = m4 g - F_1 - F_2`` (it receives
  ``-lambda`` from each leg);
* body i2 about A_i2 (passive, frictionless joint): ``zz_i2 alpha + (MS x a_A)_z
  = ((A_13 - A_i2) x F_i)_z + (MS x g)_z`` with the standard parameters at
  A_i2 (Khalil's Newton-Euler form), MS the first moment in the base frame.

The kinematics (positions, accelerations of A_i2) are closed forms of the
leg angles, the states come from the book-form model of test_rigid_five_bar.
"""
import numpy as np
import pytest

import flexpkm as fp
from flexpkm.algorithms.reactions import joint_reactions
from flexpkm.cases import rigid_five_bar as F
from flexpkm.errors import InvalidArgumentError

from ..cases.test_rigid_five_bar import book_state, random_states

G = np.array([0.0, -9.81, 0.0])


def cross_z(a, b):
    return a[0] * b[1] - a[1] * b[0]


@pytest.fixture(scope="module")
def model():
    return fp.build_model(F.robot(gravity=G))


def state(model, x, xd, xdd):
    st = book_state(x, xd, xdd)
    q = F.configuration(model, *x)
    qd_a = np.array([st[1][1][0], st[2][1][0]])
    qdd_a = np.array([st[1][2][0], st[2][2][0]])
    full = fp.full_dynamics(model, q, qd_a)
    tau, _ = fp.inverse_dynamics(full, qdd_a)
    return st, full, qdd_a, tau


def forces(model, full, lam):
    """Force of the end effector on each leg's tip, base frame, {i: (2,)}."""
    out = {}
    for i in (1, 2):
        k = model.frame_index[f"{i}3"]
        f = np.zeros(3)
        f[:2] = lam.of(f"A13 (leg {i})")
        out[i] = (full.kin.R[0, k] @ f)[:2]
    return out


@pytest.mark.parametrize("moving", [False, True])
def test_reactions_satisfy_single_body_equations(model, moving):
    for x, xd, xdd in random_states(5, 8):
        if not moving:
            xd, xdd = np.zeros(2), np.zeros(2)
        st, full, qdd_a, tau = state(model, x, xd, xdd)
        lam = joint_reactions(full, qdd_a, tau)
        np.testing.assert_allclose(lam.residual, 0, atol=1e-10)
        Fi = forces(model, full, lam)
        np.testing.assert_allclose(F.M4 * xdd, F.M4 * G[:2] - Fi[1] - Fi[2], atol=1e-10)
        for i in (1, 2):
            d1, d2, _ = F.D[str(i)]
            zz2, mx2, my2 = F.PARAMETERS[str(i)][1:4]
            (q1, q2), (qd1, qd2), (qdd1, qdd2) = st[i]
            u1 = np.array([np.cos(q1), np.sin(q1)])
            A2 = np.array([d1, 0.0]) + d2 * u1
            a_A2 = d2 * (qdd1 * np.array([-u1[1], u1[0]]) - qd1 ** 2 * u1)
            c, s = np.cos(q1 + q2), np.sin(q1 + q2)
            MS = np.array([c * mx2 - s * my2, s * mx2 + c * my2])
            lhs = zz2 * (qdd1 + qdd2) + cross_z(MS, a_A2)
            rhs = cross_z(x - A2, Fi[i]) + cross_z(MS, G[:2])
            assert lhs == pytest.approx(rhs, abs=1e-10)


def test_reactions_of_a_batch_and_errors(model):
    xs = np.array([[0.0, 0.22], [0.03, 0.25]])
    q = F.configuration(model, xs[:, 0], xs[:, 1])
    full = fp.full_dynamics(model, q, np.zeros((2, 2)))
    tau, _ = fp.inverse_dynamics(full, np.zeros((2, 2)))
    lam = joint_reactions(full, np.zeros((2, 2)), tau)
    assert lam.lam.shape == (2, 4) and lam.of("A13 (leg 2)").shape == (2, 2)
    one = fp.full_dynamics(model, q[1], np.zeros(2)).reactions(np.zeros(2), tau[1])
    np.testing.assert_allclose(one.lam, lam.lam[1], rtol=1e-12)
    with pytest.raises(InvalidArgumentError):
        lam.of("nowhere")
    with pytest.raises(InvalidArgumentError):
        joint_reactions(full, np.zeros((2, 2)), np.zeros((2, 3)))
