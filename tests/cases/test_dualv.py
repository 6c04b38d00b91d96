"""The DualV (Section 8.5.3) against the book's closed forms.

Independent model written here from the book (no flexpkm recursion): the
loop closures (8.183)-(8.184), (8.188); J_inv = -B^-1 A_r (8.146),
(8.189)-(8.190); J_r (8.147) from (8.194)-(8.196); the tree IDM (8.201),
the platform (8.202)-(8.204), the IDM (8.205) = (8.145) and its
minimum-norm solution (8.148). The printed (8.189), (8.190), (8.195) are
corrected (docs/typos.md); the corrected forms are checked against finite
differences of the inverse geometric model below.
"""
import numpy as np
import pytest

import flexpkm as fp
from flexpkm.cases import dualv as V

from .book_legs import leg_idm

A = V.base_points()
D2, D3, RP = V.D2, V.D3, V.DP
ZZ1R, ZZ2, MX2, MY2 = V.LEG_PARAMETERS
M45, MX45, MY45, ZZ45 = V.PLATFORM
K = (0, 0, 1, 1)                      # k of (8.183): legs 1, 2 -> 0, legs 3, 4 -> 1


def points_C(x, y, phi):
    """(8.183): C_i = (x - r_p sin(phi + k pi), y + r_p cos(phi + k pi))."""
    return [np.array([x - RP * np.sin(phi + k * np.pi), y + RP * np.cos(phi + k * np.pi)])
            for k in K]


def book_igm(x, y, phi):
    """(q_i1, q_i2) per leg from (8.184) (half-angle solution as (7.15)) and (8.188),
    the sign giving the case's working modes."""
    out = []
    for i, C in enumerate(points_C(x, y, phi)):
        u = C - A[i]
        a, b, c = -2 * D2 * u[0], -2 * D2 * u[1], u @ u + D2 ** 2 - D3 ** 2
        for sign in (1, -1):
            q1 = 2 * np.arctan((-b + sign * np.sqrt(b * b - c * c + a * a)) / (c - a))
            Bp = A[i] + D2 * np.array([np.cos(q1), np.sin(q1)])
            if np.sign(u[0] * (Bp - A[i])[1] - u[1] * (Bp - A[i])[0]) == V.WORKING_MODES[i]:
                q2 = np.arctan2(*(C - Bp)[::-1]) - q1                                 # (8.188)
                out.append((q1, np.angle(np.exp(1j * q2))))
    return out


def book_jacobians(q, phi):
    """J_inv (4, 3) = -B^-1 A_r (8.146), (8.189)-(8.190) corrected, and
    J_r (8, 3) = J_td^-1 (J_t - J_ta J_inv) (8.147), (8.194)-(8.200),
    (8.195) corrected."""
    A_r, B = np.zeros((4, 3)), np.zeros((4, 4))
    J_t, J_ta, J_td = np.zeros((8, 3)), np.zeros((8, 4)), np.zeros((8, 8))
    for i, (q1, q2) in enumerate(q):
        c12, s12 = np.cos(q1 + q2), np.sin(q1 + q2)
        cp, sp = np.cos(phi + K[i] * np.pi), np.sin(phi + K[i] * np.pi)
        A_r[i] = D3 * np.array([c12, s12, -RP * (sp * s12 + cp * c12)])                # (8.189)
        B[i, i] = -D2 * D3 * np.sin(q2)                                                # (8.190)
        jt23 = s12 * RP * cp - c12 * RP * sp
        J_t[2 * i:2 * i + 2] = [[-s12, c12, jt23], [0, 0, 1]]                         # (8.194)
        J_ta[2 * i:2 * i + 2, i] = [D2 * np.cos(q2) + D3, 1.0]                        # (8.195)
        J_td[2 * i:2 * i + 2, 2 * i:2 * i + 2] = [[D3, 0], [1, 1]]                    # (8.196)
    J_inv = -np.linalg.solve(B, A_r)
    return J_inv, np.linalg.solve(J_td, J_t - J_ta @ J_inv)


def leg_second_order(q1, q2, C_dd, qd):
    """q_dd of an RR leg from its tip acceleration (as (7.184)-(7.186))."""
    s1, c1, s12, c12 = np.sin(q1), np.cos(q1), np.sin(q1 + q2), np.cos(q1 + q2)
    Ji = np.array([[-D2 * s1 - D3 * s12, -D3 * s12], [D2 * c1 + D3 * c12, D3 * c12]])
    w = qd[0] + qd[1]
    bp = -np.array([D2 * c1 * qd[0] ** 2 + D3 * c12 * w ** 2, D2 * s1 * qd[0] ** 2 + D3 * s12 * w ** 2])
    return np.linalg.solve(Ji, C_dd - bp)


def book_state(p, t, td):
    """Joint (q, qd, qdd) per leg (q_i1, q_i2, q_i3 rates) at pose p, twist t, acceleration td."""
    q = book_igm(*p)
    J_inv, J_r = book_jacobians(q, p[2])
    qd_a, qd_d = J_inv @ t, (J_r @ t).reshape(4, 2)
    out = []
    for i, (q1, q2) in enumerate(q):
        sgn = 1 - 2 * K[i]
        r = sgn * RP * np.array([-np.sin(p[2]), np.cos(p[2])])                  # C_i - P
        C_dd = td[:2] + td[2] * np.array([-r[1], r[0]]) - t[2] ** 2 * r
        qd = np.array([qd_a[i], qd_d[i, 0]])
        qdd = leg_second_order(q1, q2, C_dd, qd)
        out.append((np.array([q1, q2]), np.array([*qd, qd_d[i, 1]]),
                    np.array([*qdd, td[2] - qdd.sum()])))
    return out, J_inv, J_r


def tree_idm(q, qd, qdd):
    """(8.201) without friction: (tau_i1, tau_i2, tau_i3)."""
    return (*leg_idm(ZZ1R, ZZ2, MX2, MY2, D2, q, qd, qdd), 0.0)


def platform_wrench(phi, t, td):
    """(8.202)-(8.204)."""
    s, c, w, wd = np.sin(phi), np.cos(phi), t[2], td[2]
    return np.array([
        M45 * td[0] - MX45 * (wd * s + w * w * c) + MY45 * (-wd * c + w * w * s),
        M45 * td[1] + MX45 * (wd * c - w * w * s) - MY45 * (wd * s + w * w * c),
        ZZ45 * wd + MX45 * (td[1] * c - td[0] * s) - MY45 * (td[1] * s + td[0] * c)])


def book_rhs(p, t, td):
    """Right-hand side of (8.205): w_r + J_inv^T tau_ta + J_r^T tau_td; with J_inv, state."""
    legs, J_inv, J_r = book_state(p, t, td)
    tt = [tree_idm(*leg) for leg in legs]
    tau_ta = np.array([x[0] for x in tt])
    tau_td = np.array([v for x in tt for v in x[1:]])
    return platform_wrench(p[2], t, td) + J_inv.T @ tau_ta + J_r.T @ tau_td, J_inv, legs, tau_ta, J_r, tau_td


def random_states(n, seed):
    rng = np.random.default_rng(seed)
    for _ in range(n):
        p = np.array([rng.uniform(-0.06, 0.06), rng.uniform(-0.05, 0.05), rng.uniform(-0.3, 0.3)])
        yield p, rng.normal(size=3) * [0.5, 0.5, 2.0], rng.normal(size=3) * [20, 20, 60]


@pytest.fixture(scope="module")
def model():
    return fp.build_model(V.robot())


def flexpkm_model(model, p, legs):
    q = V.configuration(model, *p)
    qd_all = np.array([leg[1][0] for leg in legs])
    qdd_all = np.array([leg[2][0] for leg in legs])
    probe = fp.full_dynamics(model, q, np.zeros(3))
    pick = [list(probe.actuated).index(c) for c in probe.indep]
    return fp.full_dynamics(model, q, qd_all[pick], dep=probe.dep), qd_all, qdd_all


def test_corrected_jacobians_match_finite_differences():
    h = 1e-6
    for p, t, _ in random_states(5, 0):
        q = lambda s: np.array(book_igm(*(p + s * t))).ravel()
        fd = (q(h) - q(-h)) / (2 * h)
        J_inv, J_r = book_jacobians(book_igm(*p), p[2])
        np.testing.assert_allclose(J_inv @ t, fd[0::2], rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose((J_r @ t)[0::2], fd[1::2], rtol=1e-6, atol=1e-8)


def test_configuration_matches_book_igm(model):
    for p, _, _ in random_states(5, 1):
        q = V.configuration(model, *p)
        np.testing.assert_allclose(q[[0, 1, 3, 4, 6, 7, 9, 10]], np.ravel(book_igm(*p)), atol=1e-12)
        kin = fp.tree_kinematics(model, q[:model.layout.n_t])
        for leg in V.LEGS:                                 # every leg's frame ip is the platform
            k = model.frame_index[f"{leg}p"]
            np.testing.assert_allclose(kin.p[0, k, :2], p[:2], atol=1e-12)
            assert np.angle(np.exp(1j * (np.arctan2(kin.R[0, k, 1, 0], kin.R[0, k, 0, 0]) - p[2]))) \
                == pytest.approx(0, abs=1e-12)


def test_minimum_norm_idm_matches_book_8_205(model):
    errors = []
    for p, t, td in random_states(50, 2):
        rhs, J_inv, legs, *_ = book_rhs(p, t, td)
        tau_book = np.linalg.pinv(J_inv.T) @ rhs                                     # (8.148), min norm
        full, _, qdd_all = flexpkm_model(model, p, legs)
        assert full.n_a == 3 and len(full.actuated) == 4
        tau, qdd_c = fp.inverse_dynamics(full, qdd_all)
        errors.append(np.abs(tau - tau_book).max() / np.abs(tau_book).max())
    assert max(errors) < 1e-9, max(errors)


def test_weighted_idm_and_the_book_eta_zero_solution(model):
    W = np.diag([1.0, 2.0, 3.0, 4.0])
    for p, t, td in random_states(5, 3):
        rhs, J_inv, legs, tau_ta, J_r, tau_td = book_rhs(p, t, td)
        full, _, qdd_all = flexpkm_model(model, p, legs)
        Wi = np.linalg.inv(W)
        tau_w = Wi @ J_inv @ np.linalg.solve(J_inv.T @ Wi @ J_inv, rhs)
        np.testing.assert_allclose(fp.inverse_dynamics(full, qdd_all, weights=W)[0], tau_w,
                                   rtol=1e-9, atol=1e-9 * np.abs(tau_w).max())
        np.testing.assert_allclose(fp.inverse_dynamics(full, qdd_all, weights=np.diag(W))[0],
                                   tau_w, rtol=1e-9, atol=1e-9 * np.abs(tau_w).max())
        # (8.148) with eta = 0 solves (8.145) but is not the minimum norm unless tau_ta is
        # in the range of J_inv (docs/typos.md)
        tau_148 = tau_ta + np.linalg.pinv(J_inv.T) @ (platform_wrench(p[2], t, td) + J_r.T @ tau_td)
        np.testing.assert_allclose(J_inv.T @ tau_148, rhs, rtol=1e-9, atol=1e-9)
        tau_min = np.linalg.pinv(J_inv.T) @ rhs
        null = tau_ta - np.linalg.pinv(J_inv.T) @ (J_inv.T @ tau_ta)      # (1 - J^T+ J^T) tau_ta
        np.testing.assert_allclose(tau_148 - tau_min, null, atol=1e-9 * np.abs(rhs).max())
        assert np.linalg.norm(null) > 1e-3 * np.linalg.norm(tau_ta)


def test_direct_model_satisfies_book_8_180(model):
    """(8.162) <=> (8.180): for any tau, flexpkm's qdd_r gives a platform
    acceleration td with J_inv^T tau = rhs(8.205)(td)."""
    rng = np.random.default_rng(5)
    for p, t, td in random_states(5, 4):
        _, _, legs, *_ = book_rhs(p, t, td)
        full, _, _ = flexpkm_model(model, p, legs)
        tau = rng.normal(size=4) * 5
        qdd_r = fp.direct_dynamics(full, tau)
        td_p = fp.algorithms.dynamics.accelerations_tot(full, qdd_r)[-3:]
        rhs, J_inv, *_ = book_rhs(p, t, td_p)
        np.testing.assert_allclose(J_inv.T @ tau, rhs, rtol=1e-9, atol=1e-9 * np.abs(rhs).max())
        # back through the inverse model: the minimum-norm efforts of the same motion are
        # the projection of tau on the range of J_inv (its overconstraint removed)
        np.testing.assert_allclose(fp.inverse_dynamics(full, qdd_r)[0],
                                   np.linalg.pinv(J_inv.T) @ (J_inv.T @ tau), rtol=1e-9, atol=1e-9)


def test_idm_with_first_moments_along_y(monkeypatch):
    """The data have my_i2 = my_4 = my_5 = 0: the my terms of (8.201)-(8.204)
    checked with non-zero values."""
    import sys
    here = sys.modules[__name__]
    from .edit import edited_robot

    def edit(data):
        for leg in data["legs"]:
            leg["frames"][1]["bodies"][0]["MY"] = 0.004
        data["platform"]["body"]["MY"] = 0.03
    monkeypatch.setattr(here, "MY2", 0.004)
    monkeypatch.setattr(here, "MY45", 0.03)
    model = fp.build_model(edited_robot("dualv", edit))
    for p, t, td in random_states(5, 6):
        rhs, J_inv, legs, *_ = book_rhs(p, t, td)
        full, _, qdd_all = flexpkm_model(model, p, legs)
        np.testing.assert_allclose(fp.inverse_dynamics(full, qdd_all)[0],
                                   np.linalg.pinv(J_inv.T) @ rhs, rtol=1e-9, atol=1e-12)


def test_natural_frequencies_with_elastic_actuators(model):
    """Rigid DualV on four actuator springs k: ``K_x = k J_inv^T J_inv`` and
    ``M_red`` of (8.180) (the book's rhs is affine in the platform
    acceleration at zero velocity) give the frequencies."""
    k = 2.0e4
    for p, _, _ in random_states(3, 8):
        rhs = lambda td: book_rhs(p, np.zeros(3), td)[0]
        M_red = np.column_stack([rhs(e) - rhs(np.zeros(3)) for e in np.eye(3)])
        J_inv = book_jacobians(book_igm(*p), p[2])[0]
        lam = np.sort(np.linalg.eigvals(np.linalg.solve(M_red, k * J_inv.T @ J_inv)).real)
        q = V.configuration(model, *p)
        f = fp.natural_frequencies(model, q, actuator_stiffness=[k] * 4).frequencies_hz
        np.testing.assert_allclose(f, np.sqrt(lam) / (2 * np.pi), rtol=1e-9)
