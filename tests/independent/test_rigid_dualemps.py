"""Checks of the independent rigid inverse dynamic model of the DualEMPS.

Never imports flexpkm.  The model (Lagrange, sympy) is checked against
* the static case (no gravity: zero velocity and acceleration -> tau = 0);
* the power balance tau . qd = dT/dt along a trajectory;
* a virtual-work (d'Alembert) computation with finite differences of the
  body positions given by the OpenSees module's own geometric model;
* finite differences of the leg angles and of the position of P.
"""

import math

import numpy as np
import pytest

pytest.importorskip("sympy")

from .opensees_dualemps import RIGID, S1, S2, dualemps_geometry  # noqa: E402
from .rigid_dualemps import (SLIDER_MASS, body_parameters,  # noqa: E402
                             kinetic_energy, leg_angle_rates, leg_angles,
                             leg_parameters, mass_matrix, rigid_acc_P_y17,
                             rigid_idm)

POSES = np.array([[0.0, 0.0], [0.1, 0.0], [0.05, 0.2], [-0.1, 0.15],
                  [0.2, -0.05]])


def trajectory(t):
    """A smooth test trajectory (n, 2) with its derivatives."""
    w1, w2 = 2.0 * math.pi * 0.7, 2.0 * math.pi * 1.1
    q = np.column_stack([0.1 * np.sin(w1 * t), 0.08 * np.sin(w2 * t + 0.4)])
    qd = np.column_stack([0.1 * w1 * np.cos(w1 * t),
                          0.08 * w2 * np.cos(w2 * t + 0.4)])
    qdd = np.column_stack([-0.1 * w1**2 * np.sin(w1 * t),
                           -0.08 * w2**2 * np.sin(w2 * t + 0.4)])
    return q, qd, qdd


def test_parameters():
    par = body_parameters()
    # flexible links as uniform bars: Table 10.2 (13: 0.252, 0.057, 0.017)
    m, mx, zz, s0 = par["13"]
    assert m == pytest.approx(0.252, abs=1e-3)
    assert mx == pytest.approx(0.057, abs=1e-3)
    assert zz == pytest.approx(0.017, abs=1e-3)
    assert s0 == S1["O13"]
    assert par["16"][0] == pytest.approx(0.078, abs=1e-3)
    assert par["23"][3] == S2["O23"]
    legs = leg_parameters()
    m1 = sum(RIGID[b][0] for b in ("12", "14", "17")) + par["13"][0] \
        + par["16"][0]
    assert legs["1"][0] == pytest.approx(m1)


def test_leg_angles_match_geometry():
    a = leg_angles(POSES)
    for (q11, q21), (a1, a2) in zip(POSES, a):
        g = dualemps_geometry(q11, q21)
        np.testing.assert_allclose([math.cos(a1), math.sin(a1)], g["e1"],
                                   atol=1e-12)
        np.testing.assert_allclose([math.cos(a2), math.sin(a2)], g["e2"],
                                   atol=1e-12)


def test_static_zero_force():
    z = np.zeros_like(POSES)
    np.testing.assert_allclose(rigid_idm(POSES, z, z), 0.0, atol=1e-12)


def test_mass_matrix_spd_and_energy():
    M = mass_matrix(POSES)
    np.testing.assert_allclose(M, np.transpose(M, (0, 2, 1)), atol=1e-12)
    assert np.all(np.linalg.eigvalsh(M) > SLIDER_MASS)
    rng = np.random.default_rng(0)
    qd = rng.normal(size=POSES.shape)
    T = kinetic_energy(POSES, qd)
    np.testing.assert_allclose(T, 0.5 * np.einsum("ni,nij,nj->n", qd, M, qd),
                               rtol=1e-12)
    # tau is linear in qdd with the matrix M
    base = rigid_idm(POSES, qd, np.zeros_like(qd))
    for j in range(2):
        e = np.zeros_like(qd)
        e[:, j] = 1.0
        np.testing.assert_allclose(rigid_idm(POSES, qd, e) - base, M[:, :, j],
                                   rtol=1e-12, atol=1e-12)


def test_power_balance():
    """tau . qd = dT/dt (no gravity, no friction), dT/dt by central
    differences (step 1e-5 s) along a smooth trajectory."""
    t = np.linspace(0.0, 2.0, 41)
    h = 1e-5
    q, qd, qdd = trajectory(t)
    tau = rigid_idm(q, qd, qdd)
    power = np.sum(tau * qd, axis=1)
    Tp = kinetic_energy(*trajectory(t + h)[:2])
    Tm = kinetic_energy(*trajectory(t - h)[:2])
    dT = (Tp - Tm) / (2.0 * h)
    scale = np.abs(power).max()
    assert scale > 1.0
    np.testing.assert_allclose(power, dT, atol=1e-7 * scale)


def _bodies(q11, q21):
    """COM positions (k, 2) and angles (k,) of all moving bodies from the
    OpenSees module's geometric model (sliders included)."""
    g = dualemps_geometry(q11, q21)
    ang = {"1": math.atan2(g["e1"][1], g["e1"][0]),
           "2": math.atan2(g["e2"][1], g["e2"][0])}
    base = {"1": g["O12"], "2": g["O22"]}
    edir = {"1": g["e1"], "2": g["e2"]}
    pos, th = [g["O12"], g["O22"]], [0.0, 0.0]
    for b, (m, mx, zz, s0) in body_parameters().items():
        pos.append(base[b[0]] + (s0 + mx / m) * edir[b[0]])
        th.append(ang[b[0]])
    return np.array(pos), np.array(th)


def test_virtual_work_finite_differences():
    """tau_j = sum_b (m_b a_Gb . dr_Gb/dq_j + I_Gb alpha_b dth_b/dq_j) with
    positions from dualemps_geometry and finite-difference kinematics."""
    par = body_parameters()
    masses = [SLIDER_MASS, SLIDER_MASS] + [p[0] for p in par.values()]
    inert = [0.0, 0.0] + [p[2] - p[1] ** 2 / p[0] for p in par.values()]
    masses, inert = np.array(masses), np.array(inert)
    ht, hq = 1e-4, 1e-6
    for t in (0.13, 0.61, 1.37):
        q, qd, qdd = (x[0] for x in trajectory(np.array([t])))
        qm, qp = trajectory(np.array([t - ht]))[0][0], \
            trajectory(np.array([t + ht]))[0][0]
        (p0, a0), (pm, am), (pp, ap) = (_bodies(*x) for x in (q, qm, qp))
        acc = (pp - 2 * p0 + pm) / ht**2
        alpha = (ap - 2 * a0 + am) / ht**2
        tau = np.zeros(2)
        for j in range(2):
            dq = np.zeros(2)
            dq[j] = hq
            (pj, aj), (pk, ak) = _bodies(*(q + dq)), _bodies(*(q - dq))
            Jp, Ja = (pj - pk) / (2 * hq), (aj - ak) / (2 * hq)
            tau[j] = np.sum(masses * np.sum(acc * Jp, axis=1)) \
                + np.sum(inert * alpha * Ja)
        ref = rigid_idm(q[None], qd[None], qdd[None])[0]
        np.testing.assert_allclose(tau, ref, rtol=1e-5, atol=1e-5)


def test_angle_rates_and_acc_P():
    t = np.array([0.2, 0.9, 1.5])
    ht = 1e-4
    q, qd, qdd = trajectory(t)
    a, w, wd = leg_angle_rates(q, qd, qdd)
    ap = leg_angles(trajectory(t + ht)[0])
    am = leg_angles(trajectory(t - ht)[0])
    np.testing.assert_allclose(w, (ap - am) / (2 * ht), rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(wd, (ap - 2 * a + am) / ht**2, rtol=1e-5,
                               atol=1e-6)

    def P(x):
        return np.array([dualemps_geometry(*qq)["P"] for qq in x])

    accP = (P(trajectory(t + ht)[0]) - 2 * P(q) + P(trajectory(t - ht)[0])) \
        / ht**2
    y17 = np.column_stack([-np.sin(a[:, 0]), np.cos(a[:, 0])])
    np.testing.assert_allclose(rigid_acc_P_y17(q, qd, qdd),
                               np.sum(accP * y17, axis=1), rtol=1e-5,
                               atol=1e-5)
