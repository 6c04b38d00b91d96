"""Inverse dynamics along a straight path: sampling, the quintic law, rates
by finite differences, efforts against the book's five-bar IDM (8.125)."""
import numpy as np
import pytest

import flexpkm as fp
from flexpkm.analysis.idm import path_inverse_dynamics, straight_path
from flexpkm.cases import dualv as V
from flexpkm.cases import rigid_five_bar as F
from flexpkm.errors import InvalidArgumentError, NearSingularWarning, UnreachablePoseError

from ..cases.test_rigid_five_bar import book_idm


def run(mod, a, b, T, **kw):
    m = fp.build_model(mod.robot())
    case = fp.cases.get(mod.__name__.rsplit(".", 1)[1])
    return path_inverse_dynamics(m, lambda p: case.configure(m, p, {}), a, b, T, **kw)


def test_path_law_and_sampling():
    t, s, sd, sdd = straight_path([0, 0], [1, 1], 0.2)
    assert len(t) == 201 and t[1] == pytest.approx(1e-3)
    np.testing.assert_allclose([s[0], s[-1], sd[0], sd[-1], sdd[0], sdd[-1]], [0, 1, 0, 0, 0, 0],
                               atol=1e-12)
    tau = t / 0.2
    np.testing.assert_allclose(s, 10 * tau ** 3 - 15 * tau ** 4 + 6 * tau ** 5, atol=1e-14)
    with pytest.raises(InvalidArgumentError):
        straight_path([0], [1], 0.0)


def test_five_bar_efforts_match_the_book_along_the_path():
    a, b = np.array([-0.02, 0.2]), np.array([0.05, 0.27])
    # this path crosses the Type 2 singularity near (-0.013, 0.207) (issue 19): refused
    # by default; with singular=0 flagged only, the samples below are away from it
    with pytest.warns(NearSingularWarning, match="type 2"):
        r = run(F, a, b, 0.3, rate=2e4, singular=0.0)
    assert r.tau.shape == (6001, 2)
    np.testing.assert_allclose(np.gradient(r.q_a, r.t, axis=0)[1:-1], r.qd_a[1:-1],
                               atol=1e-5 * np.abs(r.qd_a).max())
    np.testing.assert_allclose(np.gradient(r.qd_a, r.t, axis=0)[1:-1], r.qdd_a[1:-1],
                               atol=1e-4 * np.abs(r.qdd_a).max())
    _, sd, sdd = straight_path(a, b, 0.3, rate=2e4)[1:]
    for k in (170, 1500, 5200):
        tau_book, _ = book_idm(r.x_p[k], sd[k] * (b - a), sdd[k] * (b - a))
        np.testing.assert_allclose(r.tau[k], tau_book, rtol=1e-9)


def test_dualv_path_and_unreachable_pose():
    r = run(V, [0.0, 0.0], [0.04, -0.02], 0.1)
    assert r.tau.shape == (101, 4) and r.names == ("q11", "q21", "q31", "q41")
    np.testing.assert_allclose(r.x_p[:, 2], 0.0)
    with pytest.raises(UnreachablePoseError):
        run(V, [0.0, 0.0], [0.6, 0.0], 0.1)


def test_ground_reactions_and_energy_along_the_path():
    """Issue 20: the five-bar's ground reaction at every sample equals
    (8.207)-(8.215) in the plane (the printed forms: the book's parameters);
    with a wrench that changes in time and no friction, the energy's rate
    (central differences of the samples) is the power of the efforts and of
    the wrench."""
    from ..algorithms import book_five_bar as bk
    a, b = np.array([-0.02, 0.2]), np.array([0.05, 0.27])
    wrench = lambda t: [2.0 * np.sin(20 * t), -3.0 + t, 0, 0, 0, 0]
    m = fp.build_model(F.robot(gravity=(0.0, -9.81, 0.0)))
    with pytest.warns(NearSingularWarning):         # crosses Type 2 (see above)
        r = path_inverse_dynamics(m, lambda p: fp.cases.get("rigid_five_bar").configure(m, p, {}),
                                  a, b, 0.3, rate=4e3, friction=False, wrench=wrench, singular=0.0)
    assert r.ground.total.shape == (1201, 6) and r.wrench[10] == pytest.approx(wrench(r.t[10]))
    np.testing.assert_allclose(sum(r.ground.legs.values()), r.ground.total, atol=1e-10)
    links = bk.links_of(m.robot)
    g0 = fp.build_model(F.robot(gravity=(0.0, 0.0, 0.0)))
    for k in (100, 600, 1100):
        q = F.configuration(g0, *r.x_p[k])
        full = fp.full_dynamics(g0, q, r.qd_a[k])
        name = lambda v: dict(zip(g0.layout.names, v))
        qd, qdd = full.J @ r.qd_a[k], full.J @ r.qdd_a[k] + full.b
        inertial = bk.ground_wrench(name(q), name(qd), name(qdd), np.r_[q[-2:], 0], qdd[-2:],
                                    links, printed=True)
        # gravity along -y adds the weight and its moment; the wrench is taken off
        m_tot = F.M4 + sum(p[0] + p[4] for p in links.values())
        moment = -np.cross(np.r_[q[-2:], 0], F.M4 * np.array([0, -9.81, 0]))
        for leg, p in links.items():
            for j, mass, ms in ((f"{leg}1", p[0], p[1:3]), (f"{leg}2", p[4], p[5:7])):
                i = g0.frame_index[j]
                c = mass * full.kin.p[0, i] + full.kin.R[0, i] @ np.r_[ms, 0.0]
                moment -= np.cross(c, [0, -9.81, 0])
        w = np.asarray(wrench(r.t[k]))
        expected = inertial + np.r_[0, 9.81 * m_tot, 0, 0, 0, moment[2]] - \
            np.r_[w[:3], np.cross(np.r_[q[-2:], 0], w[:3])]
        np.testing.assert_allclose(r.ground.total[k][[0, 1, 5]], expected[[0, 1, 5]],
                                   rtol=0, atol=1e-10 * np.abs(expected).max())
    H = r.energy.total
    dH = (H[2:] - H[:-2]) / (r.t[2] - r.t[0])
    xd = straight_path(a, b, 0.3, rate=4e3)[2][:, None] * (b - a)
    power = np.sum(r.tau * r.qd_a, axis=1) + np.sum(r.wrench[:, :2] * xd, axis=1)
    np.testing.assert_allclose(dH, power[1:-1], atol=2e-5 * np.abs(power).max())
