"""Platform compliance (flexpkm.algorithms.compliance): the batched
Cholesky and pose-by-pose triangular solves equal the textbook formula
``C = J_p K_ff^-1 J_p^T`` with the whole J of (10.114) and an explicit
inverse, actuators locked and elastic, and a Type 2 cell is flagged."""
import numpy as np
import pytest

import flexpkm as fp
from flexpkm import cases
from flexpkm.algorithms.compliance import platform_compliance, rows_of_J
from flexpkm.algorithms.modal import reduced_matrices


@pytest.fixture(scope="module")
def navaro():
    case = cases.get("navaro")
    options = {o.name: o.default for o in case.options}
    model = fp.build_model(case.robot(options))
    q = case.configure(model, np.array([[0.0, 0.0, 0.0], [0.02, 0.01, -0.1],
                                        [-0.03, 0.02, -0.5]]), options)
    return model, reduced_matrices(model, q)


def test_rows_of_J_are_the_rows_of_J(navaro):
    model, red = navaro
    rows = list(range(model.layout.n_t, model.layout.n_tot)) + list(model.layout.actuated)
    np.testing.assert_array_equal(rows_of_J(red, rows), red.J[:, rows])


@pytest.mark.parametrize("stiffness", [None, [2e5, 3e5, 4e5, 2.5e5, 3.5e5, 4.5e5]])
def test_compliance_is_the_textbook_formula(navaro, stiffness):
    model, red = navaro
    C, eig, ok = platform_compliance(model, red, stiffness)
    n_a, act = red.n_a, list(model.layout.actuated)
    K = np.array(red.K_r)
    if stiffness is None:
        free = slice(n_a, None)
    else:
        K[:, range(n_a), range(n_a)] += stiffness
        free = slice(None)
    J_p = red.J[:, model.layout.n_t:, free]
    expected = J_p @ np.linalg.inv(K[:, free, free]) @ np.swapaxes(J_p, 1, 2)
    assert ok.all() and len(act) == n_a
    np.testing.assert_allclose(C, expected, rtol=1e-9, atol=1e-12 * np.abs(expected).max())
    np.testing.assert_allclose(eig, np.linalg.eigvalsh(expected), rtol=1e-9,
                               atol=1e-12 * np.abs(expected).max())


def test_not_positive_definite_is_flagged(navaro):
    model, red = navaro
    K = np.array(red.K_r)
    K[1, red.n_a, :] = K[1, :, red.n_a] = 0.0           # a motion without stiffness
    from dataclasses import replace
    C, eig, ok = platform_compliance(model, replace(red, K_r=K))
    assert ok.tolist() == [True, False, True]
    assert np.isnan(C[1]).all() and np.isnan(eig[1]).all() and np.isfinite(C[[0, 2]]).all()
