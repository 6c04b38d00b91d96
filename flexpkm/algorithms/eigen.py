"""The generalized symmetric eigenproblem ``K x = lambda M x`` of Step 4 of
Section 11.5 (11.34), batched over poses, and split into the blocks that
do not couple.

A coordinate set that ``K`` and ``M`` never couple to the rest (their
entries between the two are exactly zero at every pose of the batch) is an
eigenproblem of its own: a planar robot's in-plane and out-of-plane
motions (the NaVARo's 90 locked coordinates: 51 + 39), or legs decoupled
by locked actuators. The eigenvalues of a block-diagonal pencil are those
of its blocks, and LAPACK's cost grows as n^3: the NaVARo's pencil costs a
third as two blocks. Only exact zeros split (no tolerance: the result is
the same pencil's).
"""
from __future__ import annotations

import numpy as np

from flexpkm.errors import IndefiniteMassMatrixError

#: from this size on, LAPACK's generalized solver pose by pose (``dsygvd``)
#: beats the batched Cholesky reduction in numpy (measured, frequencies
#: only: 90 x 90, 0.26 vs 0.36 ms per pose; 39 x 39, 0.054 vs 0.070);
#: below it the batch wins (9 x 9: 5 us vs 30 us)
LOOP_SIZE = 32


def _sym(A):
    return 0.5 * (A + np.swapaxes(A, -1, -2))


def decoupled_blocks(K, M=None) -> list:
    """Index arrays of the coordinates of each block of the pencil (B, n, n):
    the connected components of the graph of the entries of K or M (None:
    K alone) that are non-zero at some pose (one block when everything couples)."""
    from scipy.sparse import csr_matrix           # on use: 0.05 s of the CLI's start-up
    from scipy.sparse.csgraph import connected_components
    coupled = (K != 0).any(axis=0)          # faster than np.any's cast of the floats
    if M is not None:
        coupled |= (M != 0).any(axis=0)
    n_blocks, label = connected_components(csr_matrix(coupled), directed=False)
    return [np.flatnonzero(label == b) for b in range(n_blocks)]


def generalized_eigh(K, M, where="M", vectors=True):
    """Batched ``K x = lambda M x`` for symmetric K and SPD M, (B, n, n),
    block by block (:func:`decoupled_blocks`; from :data:`LOOP_SIZE`
    coordinates on).

    Returns (lambda (B, n) ascending, X (B, n, n) with ``X^T M X = 1``, or
    None when ``vectors`` is False: eigenvalues only, faster).
    Raises :class:`IndefiniteMassMatrixError` when M is not positive definite.
    """
    K, M = np.asarray(K), np.asarray(M)
    if K.shape[-1] < LOOP_SIZE:                 # small: the search would cost more
        return dense_generalized_eigh(K, M, where, vectors)
    blocks = decoupled_blocks(K, M)
    if len(blocks) == 1:
        return dense_generalized_eigh(K, M, where, vectors)
    B, n = K.shape[0], K.shape[-1]
    lam = np.empty((B, n))
    X = np.zeros((B, n, n)) if vectors else None
    col = 0
    for idx in blocks:
        lam_b, X_b = dense_generalized_eigh(K[:, idx[:, None], idx], M[:, idx[:, None], idx],
                                            where, vectors)
        cols = slice(col, col + len(idx))
        lam[:, cols] = lam_b
        if vectors:
            X[:, idx, cols] = X_b
        col += len(idx)
    order = np.argsort(lam, axis=1, kind="stable")
    lam = np.take_along_axis(lam, order, axis=1)
    if vectors:
        X = np.take_along_axis(X, order[:, None, :], axis=2)
    return lam, X


def graded_generalized_eigh(K, M, where="M", vectors=True):
    """:func:`generalized_eigh` for a pencil whose stiffness spans many
    decades (a gearbox spring of 1e19 N m/rad beside beams of 1e8): the
    eigenvalues below ``sqrt(lambda_min lambda_max)`` come from the
    flexibility form ``M y = mu K y`` (``lambda = 1/mu``: Cholesky of K, whose
    absolute error ``eps mu_max`` leaves the lowest lambda their relative
    accuracy), the others from the stiffness form (LAPACK's error
    ``eps lambda_max`` would swamp the lowest ones: 1.6e-4 of f1 for the
    DualEMPS at 1e19). Falls back to the stiffness form alone when K is
    not positive definite (a singular configuration). Same returns and
    errors as :func:`generalized_eigh`."""
    lam, X = generalized_eigh(K, M, where, vectors)
    try:
        mu, Y = generalized_eigh(M, K, "K", vectors)
    except (IndefiniteMassMatrixError, np.linalg.LinAlgError):   # scipy's is numpy's
        return lam, X
    if not np.all(mu > 0):
        return lam, X
    low = 1.0 / mu[:, ::-1]                                      # ascending
    use = low < np.sqrt(np.abs(lam[:, :1] * lam[:, -1:]))
    lam = np.where(use, low, lam)
    if vectors:
        Z = Y[:, :, ::-1] / np.sqrt(mu[:, None, ::-1])           # Z^T M Z = 1
        X = np.where(use[:, None, :], Z, X)
    return lam, X


#: from this size on, :func:`solve_spd` solves with the Cholesky factor by
#: SciPy's ``cho_solve`` (triangular solves) rather than two general numpy
#: solves on it: 128 states of 74 coordinates 15.1 -> 2.3 ms, equal to
#: 1.3e-15; below it numpy's batched LU on the factor is cheaper (128 x 11:
#: 0.65 against 1.1 ms)
CHO_SOLVE_SIZE = 16


def solve_spd(M, rhs, what):
    """``x = M^-1 rhs`` by Cholesky: M (..., n, n) symmetric positive definite,
    rhs (..., n) -> x (..., n). Raises :class:`IndefiniteMassMatrixError`
    naming ``what`` (e.g. ``"M_cc"``) when M is not positive definite."""
    try:
        L = np.linalg.cholesky(M)
    except np.linalg.LinAlgError:
        raise IndefiniteMassMatrixError(f"{what} is not positive definite") from None
    if M.shape[-1] >= CHO_SOLVE_SIZE:
        from scipy.linalg import cho_solve
        try:                                  # triangular solves (SciPy >= 1.16 batches them)
            return cho_solve((L, True), rhs[..., None], check_finite=False)[..., 0]
        except ValueError:                    # older SciPy: one matrix at a time only
            pass
    y = np.linalg.solve(L, rhs[..., None])
    return np.linalg.solve(np.swapaxes(L, -1, -2), y)[..., 0]


def dense_generalized_eigh(K, M, where="M", vectors=True):
    """:func:`generalized_eigh` on the whole pencil: LAPACK ``dsygvd`` pose
    by pose from :data:`LOOP_SIZE` on, else a batched Cholesky reduction."""
    K, M = np.asarray(K, dtype=float), np.asarray(M, dtype=float)   # LAPACK copies each pose
    try:
        if M.shape[-1] >= LOOP_SIZE:
            return _pose_by_pose(K, M, vectors)
        L = np.linalg.cholesky(M)
    except np.linalg.LinAlgError:              # scipy's LinAlgError is numpy's
        w = np.linalg.eigvalsh(M)
        bad = int(np.argmin(w.min(axis=-1)))
        raise IndefiniteMassMatrixError(
            f"{where} is not positive definite (pose {bad}: smallest eigenvalue "
            f"{w[bad].min():.3g}); a coordinate carries no inertia") from None
    Linv = np.linalg.inv(L)
    A = _sym(Linv @ K @ np.swapaxes(Linv, -1, -2))
    if not vectors:
        return np.linalg.eigvalsh(A), None
    lam, V = np.linalg.eigh(A)
    return lam, np.swapaxes(Linv, -1, -2) @ V


def _pose_by_pose(K, M, vectors):
    """LAPACK ``dsygvd`` (itype 1, lower triangles) on each pose, called
    directly (scipy's ``eigh`` checks and queries add ~10 % at 50 x 50).
    Raises ``LinAlgError`` when M is not positive definite."""
    from scipy.linalg import get_lapack_funcs   # on use: 0.15-0.3 s of start-up (docs/design.md)
    sygvd = get_lapack_funcs("sygvd", (K[0],))
    n = K.shape[-1]
    lam = np.empty(K.shape[:2])
    X = np.empty(K.shape) if vectors else None
    jobz = "V" if vectors else "N"
    for b in range(K.shape[0]):
        w, v, info = sygvd(K[b], M[b], jobz=jobz)
        if info:
            raise np.linalg.LinAlgError(f"dsygvd info {info}" + (
                " (M not positive definite)" if info > n else ""))
        lam[b] = w
        if vectors:
            X[b] = v
    return lam, X
