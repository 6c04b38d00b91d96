"""Checks of the independent Exudyn model of the flexible DualEMPS.

Never imports flexpkm.  Skipped if exudyn is not installed.  Run time about
10 s (the two `edge` runs at dt = 2e-4 and 1e-4 s dominate).
"""

import math

import numpy as np
import pytest

pytest.importorskip("exudyn")
pytest.importorskip("sympy")

from .exudyn_dualemps import (E_DURAL, SLIDER_MASS,  # noqa: E402
                              maneuver_law, natural_frequencies, quintic,
                              simulate_prescribed)
from .rigid_dualemps import rigid_acc_P_y17, rigid_idm  # noqa: E402

# opensees_dualemps.dualemps_frequencies(0, 0, 9, n_el=1) (exact method)
OPENSEES_HOME_HZ = np.array([14.20684428, 25.0420587, 48.15596344,
                             91.9073272, 110.32590669])


@pytest.fixture(scope="module")
def edge_runs():
    return {dt: simulate_prescribed("edge", dt=dt) for dt in (2e-4, 1e-4)}


def test_quintic_law():
    t_move = 1.8
    t = np.linspace(-0.1, 2.0, 2101)
    s, sd, sdd = quintic(t, t_move)
    assert s[0] == 0.0 and s[-1] == 1.0
    assert quintic(0.9, t_move)[0] == pytest.approx(0.5)
    h = t[1] - t[0]
    np.testing.assert_allclose(np.gradient(s, h)[1:-1], sd[1:-1], atol=1e-4)
    np.testing.assert_allclose(np.gradient(sd, h)[1:-1], sdd[1:-1], atol=3e-3)
    assert np.abs(sd).max() == pytest.approx(15.0 / 8.0 / t_move)
    _, law = maneuver_law("fast")
    tt = np.array([0.05, 0.1, 0.3])
    for order in range(3):
        ref = law(tt)[order]
        got = [[law.scalar(x, c, order) for c in range(2)] for x in tt]
        np.testing.assert_allclose(got, ref, atol=1e-12)


def test_frequencies_match_opensees():
    f = natural_frequencies(0.0, 0.0, n_modes=5)
    np.testing.assert_allclose(f, OPENSEES_HOME_HZ, rtol=1e-3)
    # in fact the same structure: agreement to ~1e-9
    np.testing.assert_allclose(f, OPENSEES_HOME_HZ, rtol=1e-6)


def test_frequencies_match_opensees_live():
    pytest.importorskip("openseespy.opensees")
    from .opensees_dualemps import dualemps_frequencies
    for q, n_el in (((0.05, 0.2), 1), ((0.1, 0.0), 2)):
        f_ex = natural_frequencies(*q, n_modes=5, n_el=n_el)
        f_os = dualemps_frequencies(*q, n_modes=5, n_el=n_el)
        np.testing.assert_allclose(f_ex, f_os, rtol=1e-6)


def test_rigid_limit_edge():
    """E x 1e4: the Exudyn actuator forces equal the rigid inverse dynamic
    model (1e-3 relative to max|tau| and also to the legs' share of tau)."""
    r = simulate_prescribed("edge", dt=1e-3, E=1e4 * E_DURAL)
    q, qd, qdd = r["law"](r["t"])
    np.testing.assert_allclose(r["q_a"], q, atol=1e-6)  # index-2 drift
    tau_r = rigid_idm(q, qd, qdd)
    err = np.abs(r["tau"] - tau_r).max()
    assert err < 1e-3 * np.abs(tau_r).max()
    legs = np.abs(tau_r - SLIDER_MASS * qdd).max()
    assert err < 1e-3 * legs, (err, legs)
    acc_r = rigid_acc_P_y17(q, qd, qdd)
    assert np.abs(r["acc_P_y17"] - acc_r).max() < 2e-3 * np.abs(acc_r).max()


def test_edge_step_convergence(edge_runs):
    a, b = edge_runs[2e-4], edge_runs[1e-4]
    tb = b["t"]
    tau_a = np.column_stack([np.interp(tb, a["t"], a["tau"][:, i])
                             for i in range(2)])
    acc_a = np.interp(tb, a["t"], a["acc_P_y17"])
    assert np.abs(tau_a - b["tau"]).max() < 1e-2          # N (max|tau| 35 N)
    assert np.abs(acc_a - b["acc_P_y17"]).max() < 1e-2    # m/s^2 (max 0.67)


def test_edge_flexible_response(edge_runs):
    """Starts at rest; the elastic part of tau is small; the free vibration
    after the motion is at the first natural frequency of the final pose."""
    r = edge_runs[1e-4]
    q, qd, qdd = r["law"](r["t"])
    assert abs(r["t"][-1] - 3.0) < 1e-9
    np.testing.assert_allclose(r["tau"][0], 0.0, atol=1e-6)
    tau_r = rigid_idm(q, qd, qdd)
    legs = np.abs(tau_r - SLIDER_MASS * qdd).max()
    d = np.abs(r["tau"] - tau_r).max()
    assert 1e-3 * legs < d < 0.05 * legs
    sel = r["t"] > 1.85
    x = r["acc_P_y17"][sel] - r["acc_P_y17"][sel].mean()
    assert 0.01 < np.abs(x).max() < 0.2
    X = np.abs(np.fft.rfft(x * np.hanning(x.size)))
    f = np.fft.rfftfreq(x.size, r["t"][1] - r["t"][0])
    i = int(np.argmax(X))
    la, lb, lc = np.log(X[i - 1:i + 2])
    f_peak = f[i] + 0.5 * (la - lc) / (la - 2 * lb + lc) * (f[1] - f[0])
    f1 = natural_frequencies(0.2, 0.0, n_modes=1)[0]
    assert f_peak == pytest.approx(f1, rel=5e-3)


def test_fast_runs():
    r = simulate_prescribed("fast", dt=1e-4)
    q, qd, qdd = r["law"](r["t"])
    assert r["t"].size == 10001
    np.testing.assert_allclose(r["q_a"], q, atol=1e-7)
    tau_r = rigid_idm(q, qd, qdd)
    # slider inertia dominates; the elastic part is a few N
    assert np.abs(r["tau"] - tau_r).max() < 0.01 * np.abs(tau_r).max()
    assert np.isfinite(r["acc_P_y17"]).all()
    assert 10.0 < np.abs(r["acc_P_y17"]).max() < 20.0


def test_generalized_alpha_option():
    """Index-3 generalized-alpha: same rigid-limit forces up to its O(dt)
    multiplier noise (documented)."""
    r = simulate_prescribed("edge", t_end=0.5, dt=1e-3, E=1e4 * E_DURAL,
                            integrator="generalized_alpha")
    q, qd, qdd = r["law"](r["t"])
    tau_r = rigid_idm(q, qd, qdd)
    assert np.abs(r["tau"] - tau_r).max() < 0.05 * np.abs(tau_r).max()
    with pytest.raises(ValueError):
        simulate_prescribed("edge", t_end=0.01, integrator="rk4")
    assert math.isfinite(r["cpu_s"])
