"""Sanity tests of the independent OpenSeesPy model of the DualEMPS robot.

These tests never import flexpkm; they check the OpenSees model itself
(geometry, DOF count, pin/rigid-body treatments, mesh convergence, the book's
Table 11.1 and a cantilever against the analytical solution).
"""

import math

import numpy as np
import pytest

pytest.importorskip("openseespy.opensees")

from .analytic_beams import cantilever_frequencies  # noqa: E402
from .opensees_dualemps import (A_SEC, BOOK_TABLE_11_1, E_DURAL,  # noqa: E402
                                I_SEC, RHO_DURAL, dualemps_eigen,
                                dualemps_frequencies, dualemps_geometry)


def test_geometry_home():
    g = dualemps_geometry(0.0, 0.0)
    np.testing.assert_allclose(g["O15"], [0.2, math.sqrt(0.36 - 0.04)], atol=1e-12)
    np.testing.assert_allclose(g["O25"], g["O15"], atol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(g["P"] - g["O12"]), 0.84)
    np.testing.assert_allclose(np.linalg.norm(g["O24"] - g["O22"]), 0.518)


@pytest.mark.parametrize("q", [(0.1, 0.0), (0.05, 0.2), (-0.3, 0.4)])
def test_geometry_closure(q):
    g = dualemps_geometry(*q)
    assert np.linalg.norm(g["O15"] - g["O12"]) == pytest.approx(0.6)
    assert np.linalg.norm(g["O25"] - g["O22"]) == pytest.approx(0.6)
    np.testing.assert_allclose(g["O25"], g["O15"], atol=1e-12)
    assert g["O15"][1] > min(g["O12"][1], g["O22"][1])


def test_geometry_unassemblable():
    with pytest.raises(ValueError):
        dualemps_geometry(0.0, 1.2)


def test_nine_finite_modes_with_one_element():
    lam, info = dualemps_eigen(0.0, 0.0, n_el=1)
    assert info["n_equations"] == 11  # before the 2 pin equations
    assert info["n_finite"] == 9
    assert np.all(lam > 0)


def test_book_table_11_1():
    f = dualemps_frequencies(0.0, 0.0, n_modes=9, n_el=1)
    np.testing.assert_allclose(f[:5], BOOK_TABLE_11_1[:5], rtol=0.05)
    np.testing.assert_allclose(f[5], BOOK_TABLE_11_1[5], rtol=0.05)


def test_mesh_convergence():
    f1 = [dualemps_frequencies(0.0, 0.0, n_modes=5, n_el=n)[0]
          for n in (1, 2, 4, 8)]
    assert all(a > b for a, b in zip(f1[:-1], f1[1:])), f1
    assert abs(f1[-1] - f1[-2]) / f1[-1] < 1e-4
    assert abs(f1[0] - f1[-1]) / f1[-1] < 5e-3


@pytest.mark.parametrize("q", [(0.0, 0.0), (0.05, 0.2)])
def test_pure_opensees_eigen_matches_exact(q):
    """OpenSees eigen (fullGenLapack) with a stiff zeroLength pin."""
    f_ex = dualemps_frequencies(*q)
    f_os = dualemps_frequencies(*q, method="opensees", pin_k=1e12)
    np.testing.assert_allclose(f_os, f_ex, rtol=5e-5)


def test_stiff_elements_match_rigid_links():
    """Rigid bodies as stiff massless elements: error ~ 1/stiff_factor."""
    f_ex = dualemps_frequencies()
    e3 = np.abs(dualemps_frequencies(rigid="stiff", stiff_factor=1e3) / f_ex - 1)
    e4 = np.abs(dualemps_frequencies(rigid="stiff", stiff_factor=1e4) / f_ex - 1)
    assert e4.max() < 1e-3
    assert e4.max() < 0.2 * e3.max()


def test_opensees_cantilever_vs_analytic():
    """elasticBeamColumn + cMass cantilever (16 elements) vs analytical."""
    ops = pytest.importorskip("openseespy.opensees")
    L, n = 0.4505, 16
    ops.wipe()
    ops.model("basic", "-ndm", 2, "-ndf", 3)
    ops.geomTransf("Linear", 1)
    for i in range(n + 1):
        ops.node(i + 1, L * i / n, 0.0)
    ops.fix(1, 1, 1, 1)
    for i in range(n):
        ops.element("elasticBeamColumn", i + 1, i + 1, i + 2, A_SEC, E_DURAL,
                    I_SEC, 1, "-mass", RHO_DURAL * A_SEC, "-cMass")
    lam = np.array(ops.eigen("-fullGenLapack", 4))
    ops.wipe()
    f = np.sqrt(lam) / (2 * math.pi)
    fa = cantilever_frequencies(E_DURAL, I_SEC, RHO_DURAL, A_SEC, L, 3)
    np.testing.assert_allclose(f[:3], fa, rtol=1e-4)
