"""Tiny checks of the analytical beam formulas (no flexpkm import)."""

import math

import numpy as np

from .analytic_beams import (axial_fixed_free_frequencies,
                             cantilever_frequencies, cantilever_roots,
                             free_free_frequencies, free_free_roots,
                             pinned_pinned_frequencies)


def test_cantilever_roots():
    np.testing.assert_allclose(cantilever_roots(3),
                               [1.8751, 4.6941, 7.8548], atol=1e-4)
    r = cantilever_roots(6)
    # scaled residual of cos(x) cosh(x) + 1 = 0
    np.testing.assert_allclose(np.cos(r) + 1 / np.cosh(r), 0.0, atol=1e-12)
    # asymptotics (2n-1) pi / 2
    assert abs(r[-1] - 11 * math.pi / 2) < 1e-4


def test_free_free_roots():
    np.testing.assert_allclose(free_free_roots(2), [4.7300, 7.8532], atol=1e-4)
    r = free_free_roots(6)
    # scaled residual of cos(x) cosh(x) - 1 = 0
    np.testing.assert_allclose(np.cos(r) - 1 / np.cosh(r), 0.0, atol=1e-12)
    assert abs(r[-1] - 13 * math.pi / 2) < 1e-4


def test_frequency_scaling():
    E, I, rho, A, L = 74e9, 0.05 * 0.004**3 / 12, 2800.0, 2e-4, 0.4505
    c = math.sqrt(E * I / (rho * A)) / (2 * math.pi * L**2)
    np.testing.assert_allclose(cantilever_frequencies(E, I, rho, A, L, 2),
                               cantilever_roots(2) ** 2 * c)
    np.testing.assert_allclose(free_free_frequencies(E, I, rho, A, L, 2),
                               free_free_roots(2) ** 2 * c)
    np.testing.assert_allclose(pinned_pinned_frequencies(E, I, rho, A, L, 1),
                               math.pi**2 * c)
    np.testing.assert_allclose(axial_fixed_free_frequencies(E, rho, L, 1),
                               math.sqrt(E / rho) / (4 * L))
