"""QR with column pivoting in numpy: LAPACK's ``dgeqp3`` (unblocked,
``dlaqp2``: Householder reflections, the column of largest remaining norm
first, norms downdated and recomputed on cancellation) for the
rank-revealing choices of :mod:`flexpkm.algorithms.dependent`,
:mod:`flexpkm.algorithms.constraint_rows` and
:mod:`flexpkm.algorithms.mobility`.

numpy has no pivoted QR, and importing :mod:`scipy.linalg` for it cost
``flexpkm modal`` 0.3 s of start-up (scipy 1.17 imports numpy.f2py,
numpy.testing and numpy.ma through its array-API layer), far more than the
choice itself; docs/design.md. The same steps in the same order as
LAPACK's give the same column order as :func:`scipy.linalg.qr` with
``pivoting=True``, except where remaining norms tie to :data:`TIE`: the
first column is taken, where LAPACK's choice is the round-off of its BLAS
(tests/algorithms/test_pivoted_qr.py: random, graded, tied and
rank-deficient matrices, and the shipped robots' choices). Per call it is
7-16x slower than LAPACK on these small blocks (0.2-2 ms).
"""
from __future__ import annotations

import math

import numpy as np

#: LAPACK's ``tol3z = sqrt(dlamch('Epsilon'))``: a norm downdated below this
#: relative size is recomputed
_TOL3Z = math.sqrt(np.finfo(float).eps / 2)
#: remaining norms within this relative distance of the largest are a tie,
#: decided for the first column
TIE = 1e-12


def pivoted_qr(A) -> tuple:
    """``A P = Q R`` with the columns in order of decreasing remaining norm.

    A : (m, n) real matrix (not modified).
    Returns ``(r, piv)``: ``r`` (min(m, n),) the absolute diagonal of R
    (non-increasing: the rank is the count above a tolerance times
    ``r[0]``), ``piv`` (n,) int the column order (``A[:, piv]`` = Q R), as
    ``scipy.linalg.qr(A, pivoting=True)[2]``."""
    R = np.array(A, dtype=float)
    m, n = R.shape
    piv = np.arange(n)
    vn1 = np.linalg.norm(R, axis=0)             # remaining column norms
    vn2 = vn1.copy()                            # their last exact values
    r = np.zeros(min(m, n))
    for i in range(r.size):
        p = i + _largest(vn1[i:])
        if p != i:
            R[:, [i, p]] = R[:, [p, i]]
            piv[[i, p]] = piv[[p, i]]
            vn1[p], vn2[p] = vn1[i], vn2[i]
        r[i] = _reflect(R, i)
        _downdate(R, i, vn1, vn2)
    return r, piv


def _largest(norms) -> int:
    """Position of the largest norm, the first of those within :data:`TIE`
    of it (LAPACK's ``idamax`` takes the first largest as rounded: exact
    ties of symmetric limbs would be decided by round-off)."""
    return int(np.argmax(norms >= norms.max() * (1.0 - TIE)))


def _reflect(R, i) -> float:
    """Householder reflection (``dlarfg``) of column i below row i, applied
    to the columns after it (``dlarf``); returns ``|R_ii|``."""
    alpha, xnorm = R[i, i], np.linalg.norm(R[i + 1:, i])
    if xnorm == 0.0:                            # H = I
        return abs(alpha)
    beta = -math.copysign(math.hypot(alpha, xnorm), alpha)
    tau = (beta - alpha) / beta
    v = np.concatenate(([1.0], R[i + 1:, i] / (alpha - beta)))
    C = R[i:, i + 1:]
    C -= np.outer(tau * v, v @ C)
    R[i, i], R[i + 1:, i] = beta, 0.0
    return abs(beta)


def _downdate(R, i, vn1, vn2) -> None:
    """The remaining norms of the columns after i, less their row i
    (``dlaqp2``): recomputed when cancellation leaves less than
    :data:`_TOL3Z` of the last exact value."""
    cols = i + 1 + np.flatnonzero(vn1[i + 1:] != 0.0)
    temp = np.maximum(1.0 - (np.abs(R[i, cols]) / vn1[cols]) ** 2, 0.0)
    exact = temp * (vn1[cols] / vn2[cols]) ** 2 <= _TOL3Z
    for j in cols[exact]:
        vn1[j] = vn2[j] = np.linalg.norm(R[i + 1:, j])
    vn1[cols[~exact]] *= np.sqrt(temp[~exact])
