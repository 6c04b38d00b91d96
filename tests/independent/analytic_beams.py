"""Analytical natural frequencies of uniform beams (independent of flexpkm).

Euler-Bernoulli bending: f_n = (beta_n L)^2 / (2 pi L^2) * sqrt(E I / (rho A)),
with beta_n L the n-th positive root of

* cantilever (clamped-free):     cos(x) cosh(x) = -1
* free-free (rigid modes excluded) and clamped-clamped:  cos(x) cosh(x) = +1
* pinned-pinned:                 x = n pi

The roots are computed numerically with ``scipy.optimize.brentq`` on the
well-scaled forms cos(x) +- 1/cosh(x) = 0 (one root per bracket
[(n-1) pi, n pi] for the cantilever, [n pi, (n+1) pi] for free-free).

Axial (rod) and torsional (shaft) modes, all in Hz:

* fixed-free: f_n = (2n - 1) / (4 L) * c,   free-free / fixed-fixed: n / (2 L) * c
* c = sqrt(E / rho) (axial) or sqrt(G J / (rho I_p)) (torsion, I_p polar
  second moment of area, J torsion constant; c = sqrt(G / rho) if J = I_p).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import brentq

_XTOL = 1e-14


def cantilever_roots(n: int) -> np.ndarray:
    """First n roots beta_n L of cos(x) cosh(x) + 1 = 0."""
    g = lambda x: math.cos(x) + 1.0 / math.cosh(x)  # noqa: E731
    return np.array([brentq(g, (k - 1) * math.pi + 1e-12, k * math.pi,
                            xtol=_XTOL, rtol=4 * np.finfo(float).eps, maxiter=200)
                     for k in range(1, n + 1)])


def free_free_roots(n: int) -> np.ndarray:
    """First n non-zero roots beta_n L of cos(x) cosh(x) - 1 = 0 (also the
    clamped-clamped roots)."""
    g = lambda x: math.cos(x) - 1.0 / math.cosh(x)  # noqa: E731
    return np.array([brentq(g, k * math.pi, (k + 1) * math.pi,
                            xtol=_XTOL, rtol=4 * np.finfo(float).eps, maxiter=200)
                     for k in range(1, n + 1)])


def _bending(roots, E, I, rho, A, L):
    return roots**2 / (2.0 * math.pi * L**2) * math.sqrt(E * I / (rho * A))


def cantilever_frequencies(E, I, rho, A, L, n) -> np.ndarray:
    """First n bending frequencies (Hz) of a clamped-free Euler-Bernoulli
    beam."""
    return _bending(cantilever_roots(n), E, I, rho, A, L)


def free_free_frequencies(E, I, rho, A, L, n) -> np.ndarray:
    """First n elastic bending frequencies (Hz) of a free-free beam (the two
    rigid-body modes are excluded)."""
    return _bending(free_free_roots(n), E, I, rho, A, L)


def clamped_clamped_frequencies(E, I, rho, A, L, n) -> np.ndarray:
    """First n bending frequencies (Hz) of a clamped-clamped beam."""
    return _bending(free_free_roots(n), E, I, rho, A, L)


def pinned_pinned_frequencies(E, I, rho, A, L, n) -> np.ndarray:
    """First n bending frequencies (Hz) of a simply supported beam."""
    return _bending(math.pi * np.arange(1, n + 1), E, I, rho, A, L)


def axial_fixed_free_frequencies(E, rho, L, n) -> np.ndarray:
    """Axial (rod) frequencies (Hz), one end fixed, one free."""
    return (2 * np.arange(1, n + 1) - 1) / (4.0 * L) * math.sqrt(E / rho)


def axial_free_free_frequencies(E, rho, L, n) -> np.ndarray:
    """Axial frequencies (Hz), free-free (rigid mode excluded) or
    fixed-fixed."""
    return np.arange(1, n + 1) / (2.0 * L) * math.sqrt(E / rho)


def torsional_fixed_free_frequencies(G, J, rho, Ip, L, n) -> np.ndarray:
    """Torsional frequencies (Hz), one end fixed, one free."""
    return (2 * np.arange(1, n + 1) - 1) / (4.0 * L) * math.sqrt(
        G * J / (rho * Ip))


def torsional_free_free_frequencies(G, J, rho, Ip, L, n) -> np.ndarray:
    """Torsional frequencies (Hz), free-free (rigid mode excluded) or
    fixed-fixed."""
    return np.arange(1, n + 1) / (2.0 * L) * math.sqrt(G * J / (rho * Ip))


if __name__ == "__main__":
    print("cantilever beta_n L:", cantilever_roots(5))
    print("free-free  beta_n L:", free_free_roots(5))
