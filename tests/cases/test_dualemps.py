"""DualEMPS natural frequencies (Section 11.6.1): Table 11.1 'Model' row and
an independent OpenSeesPy frame model of the same structure."""
import numpy as np
import pytest

from flexpkm.cases import dualemps as D
from flexpkm.errors import UnreachablePoseError
from flexpkm.algorithms.modal import reduced_matrices
from flexpkm.analysis.modal import natural_frequencies


def freqs(q11=0.0, q21=0.0):
    robot = D.robot()
    return natural_frequencies(robot, D.configuration(robot, q11, q21)).frequencies_hz


def test_table_11_1_model_row():
    f = freqs()
    book = np.array(D.TABLE_11_1["Model"])
    rel = np.abs(f[:6] - book) / book
    tol = np.array([0.006, 0.006, 0.006, 0.006, 0.015, 0.035])
    assert f.size == 9
    assert np.all(rel < tol), rel


@pytest.mark.parametrize("q", [(0.0, 0.0), (0.1, 0.0), (0.05, 0.2), (-0.02, 0.15)])
def test_independent_opensees_model(q):
    ops = pytest.importorskip("tests.independent.opensees_dualemps")
    f_ops = ops.dualemps_frequencies(*q, n_modes=9)
    f = freqs(*q)
    np.testing.assert_allclose(f, f_ops, rtol=3e-3)


def test_reduced_matrices_are_symmetric_definite():
    robot = D.robot()
    red = reduced_matrices(robot, D.configuration(robot, 0.05, 0.1))
    M, K = red.M_r, red.K_r
    np.testing.assert_allclose(M, M.T, atol=1e-15)
    np.testing.assert_allclose(K, K.T, atol=1e-9 * np.abs(K).max())
    assert np.linalg.eigvalsh(M).min() > 0
    assert np.linalg.eigvalsh(K).min() > -1e-9 * np.abs(K).max()
    assert red.names[:2] == ("q11", "q21") and len(red.names) == 11


def test_geometric_models_round_trip():
    q11, q21 = np.array([0.0, 0.1, -0.02]), np.array([0.0, 0.05, 0.18])
    g = D.direct_geometric_model(q11, q21)
    b11, b21 = D.inverse_geometric_model(g["P"][:, 0], g["P"][:, 1])
    np.testing.assert_allclose(b11, q11, atol=1e-12)
    np.testing.assert_allclose(b21, q21, atol=1e-12)


def test_outside_stroke_raises():
    with pytest.raises(UnreachablePoseError, match="stroke"):
        freqs(0.5, 0.0)


def test_actuator_elasticity_limits():
    """(11.38)-(11.42): a stiff gearbox gives back the locked spectrum plus two
    high modes; a soft one gives two slow modes of the sliders."""
    robot = D.robot()
    q = D.configuration(robot, 0.0, 0.0)
    locked = natural_frequencies(robot, q).frequencies_hz
    stiff = natural_frequencies(robot, q, actuator_stiffness=[1e13, 1e13]).frequencies_hz
    assert stiff.size == 11
    np.testing.assert_allclose(stiff[:9], locked, rtol=1e-4)
    soft = natural_frequencies(robot, q, actuator_stiffness=[1e2, 1e2]).frequencies_hz
    m_slider = D.RIGID["11"][0]          # the 95 kg sliders on 100 N/m springs
    np.testing.assert_allclose(soft[:2], np.sqrt(1e2 / m_slider) / (2 * np.pi), rtol=0.05)
    np.testing.assert_allclose(soft[2:7], locked[:5], rtol=1e-2)
