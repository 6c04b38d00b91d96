"""The rigid five-bar (Section 8.4.3.1) against the book's closed forms.

Independent model, written here from the book's equations (no flexpkm
recursion): inverse geometric model (7.11)-(7.16) with the half-angle
formula, first and second order kinematics of each leg (7.96)-(7.102),
(7.184)-(7.186), the FKM Jacobian J = -A_r^-1 B (7.104)-(7.113), the
tree IDM (8.116)-(8.122), the platform (8.124), the IDM (8.125), the
mass matrix (8.127)-(8.131), (8.140). Typos met are in docs/typos.md.
"""
import numpy as np
import pytest

import flexpkm as fp
from flexpkm.cases import rigid_five_bar as F

from .book_legs import leg_idm, leg_mass_matrix

D = {i: F.D[str(i)] for i in (1, 2)}
PAR = {i: F.PARAMETERS[str(i)] for i in (1, 2)}


def book_igm(x, y):
    """(7.11)-(7.16): {i: (q_i1, q_i2)} with the sign of (7.15) giving the
    case's working mode (elbow left of A_i1 -> P for leg 1, right for leg 2)."""
    out = {}
    for i, mode in zip((1, 2), F.WORKING_MODES):
        d1, d2, d3 = D[i]
        a, b, c = -2 * d2 * (x - d1), -2 * d2 * y, (x - d1) ** 2 + y ** 2 + d2 ** 2 - d3 ** 2
        for sign in (1, -1):
            q1 = 2 * np.arctan((-b + sign * np.sqrt(b * b - c * c + a * a)) / (c - a))
            q2 = np.arctan2(y - d2 * np.sin(q1), x - d1 - d2 * np.cos(q1)) - q1     # (7.16)
            Bx, By = d1 + d2 * np.cos(q1), d2 * np.sin(q1)
            if np.sign((x - d1) * By - y * (Bx - d1)) == mode:
                out[i] = (q1, np.angle(np.exp(1j * q2)))
    return out


def leg_jacobian(i, q1, q2):
    """Position rows of [$_i1 $_i2] (7.98)-(7.99), (7.101)-(7.102)."""
    _, d2, d3 = D[i]
    s1, c1, s12, c12 = np.sin(q1), np.cos(q1), np.sin(q1 + q2), np.cos(q1 + q2)
    return np.array([[-d2 * s1 - d3 * s12, -d3 * s12], [d2 * c1 + d3 * c12, d3 * c12]])


def book_state(x, xd, xdd):
    """All joint positions, velocities, accelerations {i: (q, qd, qdd)} of
    leg i's (q_i1, q_i2) for the pose x, xd, xdd of P (7.184)-(7.186)."""
    out = {}
    for i, (q1, q2) in book_igm(*x).items():
        _, d2, d3 = D[i]
        Ji = leg_jacobian(i, q1, q2)
        qd = np.linalg.solve(Ji, xd)
        c1, s1, c12, s12 = np.cos(q1), np.sin(q1), np.cos(q1 + q2), np.sin(q1 + q2)
        bp = (np.array([-d2 * qd[0] * c1 - d3 * c12 * (qd[0] + qd[1]),
                        -d2 * qd[0] * s1 - d3 * s12 * (qd[0] + qd[1])]) * qd[0]
              + np.array([-d3 * c12, -d3 * s12]) * qd[1] * (qd[0] + qd[1]))          # (7.186)
        out[i] = (np.array([q1, q2]), qd, np.linalg.solve(Ji, xdd - bp))
    return out


def tree_idm(i, q, qd, qdd, friction=True):
    """(8.116)-(8.117) / (8.120)-(8.121): (tau_ti1, tau_ti2)."""
    zz1R, zz2, mx2, my2, fv1, fs1 = PAR[i]
    t1, t2 = leg_idm(zz1R, zz2, mx2, my2, D[i][1], q, qd, qdd)
    if friction:
        t1 += fs1 * np.sign(qd[0]) + fv1 * qd[0]
    return t1, t2


def jacobians(st):
    """J = dx/dq_a = -A_r^-1 B (7.104), (7.111), (7.113) and J_d = d[q12, q22]/dq_a."""
    A_r = np.array([[np.cos(st[i][0].sum()), np.sin(st[i][0].sum())] for i in (1, 2)])
    B = -np.diag([D[i][1] * np.sin(st[i][0][1]) for i in (1, 2)])
    J = -np.linalg.solve(A_r, B)
    J_d = np.array([np.linalg.solve(leg_jacobian(i, *st[i][0]), J)[1] for i in (1, 2)])
    return J, J_d


def book_idm(x, xd, xdd, friction=True):
    """(8.125): tau = tau_ta + J^T w_r + J_d^T tau_td (tau_t13 = 0, (8.118))."""
    st = book_state(x, xd, xdd)
    t = {i: tree_idm(i, *st[i], friction=friction) for i in (1, 2)}
    J, J_d = jacobians(st)
    w_r = F.M4 * np.asarray(xdd)                                                    # (8.124)
    return np.array([t[1][0], t[2][0]]) + J.T @ w_r + J_d.T @ np.array([t[1][1], t[2][1]]), st


def random_states(n, seed):
    rng = np.random.default_rng(seed)
    for _ in range(n):
        x = np.array([rng.uniform(-0.08, 0.08), rng.uniform(0.18, 0.30)])
        yield x, rng.normal(size=2) * 0.5, rng.normal(size=2) * 5.0


@pytest.fixture(scope="module")
def model():
    return fp.build_model(F.robot())


def flexpkm_state(model, x, st):
    q = F.configuration(model, *x)
    return q, np.array([st[1][1][0], st[2][1][0]]), np.array([st[1][2][0], st[2][2][0]])


def test_configuration_matches_book_igm(model):
    for x, _, _ in random_states(5, 0):
        q = F.configuration(model, *x)
        st = book_igm(*x)
        np.testing.assert_allclose(q[[0, 1, 2, 3]], [*st[1], *st[2]], atol=1e-12)
        np.testing.assert_allclose(fp.closure_residual(model, q), 0, atol=1e-12)


def test_idm_matches_book_8_116_to_8_125(model):
    errors = []
    for x, xd, xdd in random_states(50, 1):
        tau_book, st = book_idm(x, xd, xdd)
        q, qd_a, qdd_a = flexpkm_state(model, x, st)
        full = fp.full_dynamics(model, q, qd_a)
        assert full.names == ("q11", "q21")
        tau, qdd_c = fp.inverse_dynamics(full, qdd_a)
        assert qdd_c.shape == (0,)
        errors.append(np.abs(tau - tau_book).max() / np.abs(tau_book).max())
    assert max(errors) < 1e-9, max(errors)


def test_direct_matches_book_8_140_and_8_142(model):
    """M of (8.140) with M_t of (8.127)-(8.131) (my terms' sign corrected,
    (8.130) mx12 read mx22); c = the IDM at qdd_a = 0;
    (8.142) qdd_a = M^-1 (tau - c) against flexpkm's direct model."""
    rng = np.random.default_rng(7)
    for x, xd, xdd in random_states(10, 2):
        _, st = book_idm(x, xd, xdd)
        J, J_d = jacobians(st)
        q12, q22 = st[1][0][1], st[2][0][1]
        M_leg = {i: leg_mass_matrix(*PAR[i][:4], D[i][1], qi2) for i, qi2 in ((1, q12), (2, q22))}
        # q_t = [q11, q12, q21, q22] (q13 massless); columns of [1; J_d] per leg
        rows = {i: np.vstack([np.eye(2)[i - 1], J_d[i - 1]]) for i in (1, 2)}  # (q_i1, q_i2)
        M_book = sum(rows[i].T @ M_leg[i] @ rows[i] for i in (1, 2)) + F.M4 * J.T @ J
        qd_a = np.array([st[1][1][0], st[2][1][0]])
        qdd_a = np.array([st[1][2][0], st[2][2][0]])
        tau_book, _ = book_idm(x, xd, xdd)
        c_book = tau_book - M_book @ qdd_a
        tau = rng.normal(size=2) * 3.0
        q = F.configuration(model, *x)
        full = fp.full_dynamics(model, q, qd_a)
        np.testing.assert_allclose(full.M, M_book, rtol=1e-10, atol=1e-14)
        np.testing.assert_allclose(full.c, c_book, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(fp.direct_dynamics(full, tau),
                                   np.linalg.solve(M_book, tau - c_book), rtol=1e-9)


def test_direct_then_inverse_roundtrip(model):
    rng = np.random.default_rng(3)
    for x, xd, xdd in random_states(5, 3):
        _, st = book_idm(x, xd, xdd)
        q, qd_a, _ = flexpkm_state(model, x, st)
        full = fp.full_dynamics(model, q, qd_a)
        tau = rng.normal(size=2)
        qdd = fp.direct_dynamics(full, tau)
        np.testing.assert_allclose(fp.inverse_dynamics(full, qdd)[0], tau, rtol=1e-10, atol=1e-12)


def test_power_balance_along_a_trajectory(model):
    """sum tau_i qd_ai = dE/dt without friction, E from the book's M_t
    (8.127)-(8.131) and the end-effector mass (8.139), d/dt by central
    differences of E along the path."""
    x0, v, a = np.array([0.01, 0.22]), np.array([0.3, -0.2]), np.array([-1.0, 2.0])
    path = lambda t: (x0 + v * t + a * t * t / 2, v + a * t, a)

    def energy(t):
        x, xd, xdd = path(t)
        st = book_state(x, xd, xdd)
        E = 0.5 * F.M4 * xd @ xd
        for i in (1, 2):
            q, qd, _ = st[i]
            E += 0.5 * qd @ leg_mass_matrix(*PAR[i][:4], D[i][1], q[1]) @ qd
        return E, st

    h = 1e-5
    for t in (0.0, 0.05, 0.1):
        x, xd, xdd = path(t)
        _, st = energy(t)
        q, qd_a, qdd_a = flexpkm_state(model, x, st)
        tau, _ = fp.inverse_dynamics(fp.full_dynamics(model, q, qd_a, friction=False), qdd_a)
        dE = (energy(t + h)[0] - energy(t - h)[0]) / (2 * h)
        assert tau @ qd_a == pytest.approx(dE, rel=1e-7)


def test_idm_with_first_moments_along_y(monkeypatch):
    """The data have my_i2 = 0; the my terms of (8.116)-(8.121) checked with my_i2 != 0."""
    from .edit import edited_robot
    for leg, my in (("1", 0.005), ("2", -0.004)):
        p = list(F.PARAMETERS[leg])
        p[3] = my
        monkeypatch.setitem(PAR, int(leg), tuple(p))

    def edit(data):
        for k, my in enumerate((0.005, -0.004)):
            data["legs"][k]["frames"][1]["bodies"][0]["MY"] = my
    model = fp.build_model(edited_robot("rigid_five_bar", edit))
    for x, xd, xdd in random_states(5, 9):
        tau_book, st = book_idm(x, xd, xdd)
        q, qd_a, qdd_a = flexpkm_state(model, x, st)
        tau, _ = fp.inverse_dynamics(fp.full_dynamics(model, q, qd_a), qdd_a)
        np.testing.assert_allclose(tau, tau_book, rtol=1e-9)
