"""Polynomial laws of motion through given conditions (Briot & Khalil
Appendix D, end: ``n_c`` conditions need a polynomial of degree ``n_c - 1``).

A condition fixes the position, velocity or acceleration of every
coordinate at one time; the ends of a point-to-point motion give six of
them (D.4)-(D.9) and the quintic (D.13) (corrected, docs/typos.md), interior
conditions (a crossing of a singularity, Chapter 9: (9.47)-(9.52)) raise
the degree. Each coordinate gets its own polynomial in ``tau = t / t_f``
(scaled time: the conditions' matrix stays well conditioned).
"""
from __future__ import annotations

from dataclasses import dataclass
from math import factorial

import numpy as np

from flexpkm.errors import InvalidArgumentError


@dataclass(frozen=True)
class PolynomialLaw:
    """``x(t) = sum_k a_k (t / t_f)^k`` per coordinate, ``t`` in [0, t_f].

    coefficients : (n_c, n) in scaled time, column per coordinate;
    duration : t_f, s. Outside [0, t_f] the law holds its end values
    (velocity and acceleration zero)."""

    coefficients: np.ndarray
    duration: float

    @property
    def degree(self) -> int:
        return len(self.coefficients) - 1

    def derivative(self, t, order: int) -> np.ndarray:
        """``d^order x / dt^order`` at times t (m,) -> (m, n), SI."""
        t = np.atleast_1d(np.asarray(t, float))
        inside = (t >= 0) & (t <= self.duration)
        tau = np.clip(t, 0.0, self.duration) / self.duration
        rows = _rows(tau, order, self.degree + 1) / self.duration ** order
        out = rows @ self.coefficients
        if order:
            out[~inside] = 0.0
        return out

    def __call__(self, t):
        """``(x, xd, xdd)`` at times t (m,), each (m, n)."""
        return tuple(self.derivative(t, k) for k in range(3))


def _rows(tau, order, n_c):
    """``d^order/dtau^order`` of ``tau^k``, k < n_c, at each tau: (m, n_c)."""
    k = np.arange(n_c)
    coef = np.array([factorial(j) / factorial(j - order) if j >= order else 0.0 for j in k])
    power = np.maximum(k - order, 0)
    return coef * np.asarray(tau, float)[:, None] ** power


def polynomial_law(duration, conditions) -> PolynomialLaw:
    """The polynomial of lowest degree meeting ``conditions``.

    duration : t_f > 0, s. conditions : iterable of ``(t, order, value)``:
    at time t in [0, t_f] the derivative of that order (0 position, 1
    velocity, 2 acceleration) equals value (n,) (SI). Raises
    :class:`InvalidArgumentError` for a time outside [0, t_f], an order
    outside 0..2, values of different lengths, or conditions that do not
    determine the polynomial (e.g. the same one twice)."""
    if not duration > 0:
        raise InvalidArgumentError(f"polynomial law: the duration ({duration} s) must be positive")
    conditions = [(float(t), int(k), np.atleast_1d(np.asarray(v, float)))
                  for t, k, v in conditions]
    sizes = {v.size for _, _, v in conditions}
    if not conditions or len(sizes) != 1:
        raise InvalidArgumentError(f"polynomial law: conditions of one size needed, got sizes "
                                   f"{sorted(sizes)}")
    for t, k, _ in conditions:
        if not 0 <= t <= duration or k not in (0, 1, 2):
            raise InvalidArgumentError(f"polynomial law: condition (t = {t} s, order {k}) is "
                                       f"outside [0, {duration}] s or not a position, velocity "
                                       f"or acceleration")
    n_c = len(conditions)
    A = np.vstack([_rows([t / duration], k, n_c) / duration ** k for t, k, _ in conditions])
    if np.linalg.matrix_rank(A) < n_c:
        raise InvalidArgumentError("polynomial law: the conditions do not determine the "
                                   "polynomial (a condition repeated or implied by others)")
    values = np.vstack([v for _, _, v in conditions])
    return PolynomialLaw(np.linalg.solve(A, values), float(duration))


def rest_to_rest(start, stop, duration, interior=()) -> PolynomialLaw:
    """From rest at ``start`` (n,) to rest at ``stop`` (n,) in ``duration``
    s (D.4)-(D.9), plus ``interior`` conditions ``(t, order, value)``: the
    quintic (D.13) without them, degree ``5 + len(interior)`` with them
    ((9.47)-(9.52): the eighth degree of Section 9.4 with three)."""
    start, stop = np.asarray(start, float), np.asarray(stop, float)
    zero = np.zeros_like(start)
    ends = [(0.0, 0, start), (0.0, 1, zero), (0.0, 2, zero),
            (duration, 0, stop), (duration, 1, zero), (duration, 2, zero)]
    return polynomial_law(duration, ends + list(interior))
