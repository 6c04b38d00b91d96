"""Inverse dynamics along a straight path: sampling, the quintic law, rates
by finite differences, efforts against the book's five-bar IDM (8.125)."""
import numpy as np
import pytest

import flexpkm as fp
from flexpkm.analysis.idm import path_inverse_dynamics, straight_path
from flexpkm.cases import dualv as V
from flexpkm.cases import rigid_five_bar as F
from flexpkm.errors import InvalidArgumentError, UnreachablePoseError

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
    r = run(F, a, b, 0.3, rate=2e4)
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
