"""The locked pencil's eigenvalues and the platform compliance from ONE
Cholesky factor of the stiffness, block by block (issue 21, the workspace
map's rate).

With the actuators locked the eigenproblem (11.34) is ``K_cc x = lambda
M_cc x`` and the compliance of :mod:`flexpkm.algorithms.compliance` is
``C = J_p,c K_cc^-1 J_p,c^T``: both need ``K_cc``. Per uncoupled block b of
the pencil (index sets known in advance: no search), with ``K_b = L L^T``
(LAPACK ``dpotrf``):

* the flexibility form ``L^-1 M_b L^-T y = mu y``, ``mu = 1 / lambda``
  (``dsygst`` itype 1 with the factor of K, then ``dsytrd`` + ``dsterf``,
  eigenvalues only): the lowest frequencies come from the largest ``mu``
  and keep their relative accuracy (the stiffness form's error is
  ``eps lambda_max``, the flexibility form's ``eps mu_max``: the
  largest eigenvalues, and so ``cond_pencil``, are the ones known to
  ``eps cond_pencil`` relative here, as in
  :func:`flexpkm.algorithms.eigen.graded_generalized_eigh`);
* ``C += X^T X`` with ``X = L^-1 J_p,b^T`` (``dtrtrs``).

A pose whose block of K is not positive definite (a zero-stiffness
motion: Type 2 singular, or beyond) is solved in the stiffness form by
``dsygvd`` as :func:`flexpkm.algorithms.eigen.generalized_eigh` does (the
same eigenvalues), its compliance NaN; a mass block that is not positive
definite raises :class:`flexpkm.errors.IndefiniteMassMatrixError` as there.
Measured (NaVARo, 51 + 39 blocks, values only, load 1.1): dpotrf +
dsygst + dsytrd + dsterf 0.261 ms per pose vs ``dsygvd`` 0.310, and the
compliance's own Cholesky of the whole 90 x 90 K_cc (0.13 ms per pose with
its solves) is gone.
"""
from __future__ import annotations

import numpy as np

from flexpkm.errors import IndefiniteMassMatrixError

#: a C loop's status of a pose whose pencil ``blocks`` do not split
#: (:mod:`flexpkm.compiled.locked_loop`)
COUPLED = 3


def resplit(K, M, blocks) -> list:
    """The uncoupled blocks of the pencils K, M (B, m, m) over the
    coordinates of ``blocks`` (their union), searched on these pencils
    (:func:`flexpkm.algorithms.eigen.decoupled_blocks`)."""
    from flexpkm.algorithms.eigen import decoupled_blocks
    idx = np.sort(np.concatenate(blocks))
    sub = np.ix_(range(K.shape[0]), idx, idx)
    return [idx[b] for b in decoupled_blocks(K[sub], M[sub])]


def _lapack(K):
    from scipy.linalg import get_lapack_funcs   # on use (start-up: docs/design.md)
    return get_lapack_funcs(("potrf", "sygst", "sytrd", "sterf", "trtrs", "sygvd"), (K[0],))


def eigen_and_compliance(K, M, J_p, blocks, where="M_cc", loop=None):
    """``(lam (B, n) ascending, C (B, n_p, n_p), ok (B,))`` of the pencils
    ``K x = lambda M x`` over the coordinates ``blocks`` (index arrays into
    the last axes of K, M (B, m, m) symmetric, n = their total: the pencil,
    exactly zero between two blocks) and the compliance ``C = J_p K^-1
    J_p^T`` of the rows ``J_p`` (B, n_p, m) (module doc); ``ok`` False (C
    NaN) where K is not positive definite. ``loop``: the same loop in C
    (:class:`flexpkm.compiled.locked_loop.LockedLoop` or
    :class:`flexpkm.compiled.locked_eigen.EigenLoop`), the poses it flags
    done here; where it finds ``blocks`` coupled (an entry between two not
    zero: :data:`COUPLED`) the batch's own split (:func:`resplit`) is used.
    Raises :class:`IndefiniteMassMatrixError` naming ``where`` when M is
    not positive definite."""
    B, n = K.shape[0], sum(len(i) for i in blocks)
    if loop is not None:
        lam, C, status = loop(K, M, J_p, blocks)
        if (status == COUPLED).any():               # these pencils' own split, once
            blocks = resplit(K, M, blocks)
            lam, C, status = loop(K, M, J_p, blocks)
        redo = np.flatnonzero(status)
    else:
        lam, C, redo = np.empty((B, n)), np.zeros((B, J_p.shape[1], J_p.shape[1])), range(B)
    ok = np.ones(B, bool)
    funcs = _lapack(K) if len(redo) else None
    for b in redo:
        C[b], col = 0.0, 0
        for idx in blocks:
            sub = np.ix_(idx, idx)
            lam[b, col:col + len(idx)], X = _block(funcs, K[b][sub], M[b][sub],
                                                   np.ascontiguousarray(J_p[b][:, idx].T), where)
            if X is None:
                ok[b] = False
            else:
                C[b] += X.T @ X
            col += len(idx)
    lam.sort(axis=1)
    C[~ok] = np.nan
    return lam, C, ok


def _block(funcs, K, M, J, where):
    """``(lambda (nb,), X = L^-1 J (nb, n_p) or None)`` of one pose's block:
    the flexibility form from the Cholesky factor L of K (K positive
    definite), else the stiffness form (``dsygvd``) and None; ``dsygvd``
    too where the flexibility form's mu is not positive (M not positive
    definite: it raises)."""
    potrf, sygst, sytrd, sterf, trtrs, sygvd = funcs
    L, info = potrf(K.T, lower=1, clean=1)            # K symmetric: K.T is its Fortran view
    X = None
    if info == 0:
        X, _ = trtrs(L, J, lower=1)
        A, _ = sygst(M.T, L, itype=1, lower=1)
        _, d, e, _, _ = sytrd(A, lower=1, overwrite_a=1)
        mu, info = sterf(d, e, overwrite_d=1, overwrite_e=1) if len(d) > 1 else (d, 0)
        if info == 0 and mu[0] > 0:
            return 1.0 / mu[::-1], X
    w, _, info = sygvd(K, M, jobz="N")
    if info:
        raise IndefiniteMassMatrixError(f"{where} is not positive definite (dsygvd info {info}); "
                                        "a coordinate carries no inertia")
    return w, X
