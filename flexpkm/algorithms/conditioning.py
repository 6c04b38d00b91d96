"""How trustworthy a modal result is, and a basis of mode shapes that does
not depend on LAPACK's whims (docs/robustness.md).

* :func:`closure_condition`: condition number of ``J_t^f`` (10.110) per pose.
* :func:`pencil_measures`: condition number of the locked (or elastic)
  stiffness/mass pencil, ``lambda_max / lambda_min``, and the Type 2
  distance measure ``lambda_min / (max diag K_tot / max |M_tot|)`` (over
  the non-actuated coordinates: independent of the q_dep choice) compared with
  :data:`flexpkm.algorithms.modal.ZERO_STIFFNESS`.
* :func:`canonical_shapes`: repeated eigenvalues flagged (relative gap
  below :data:`REPEATED`), their eigenspace given a basis that depends only
  on the eigenspace (greedy Gram-Schmidt on the shapes' rows), every
  shape signed so that its largest-magnitude component is positive.
* :func:`check_modes_count`, :func:`check_actuator_stiffness`: the
  arguments of :func:`flexpkm.natural_frequencies`.
"""
from __future__ import annotations

import numbers

import numpy as np

from flexpkm.errors import InvalidArgumentError

#: two frequencies closer than this (relative gap of their eigenvalues) are
#: one repeated frequency
REPEATED = 1e-6
#: a result whose closure condition number exceeds this, or whose Type 2
#: measure is below NEAR_SINGULAR_MEASURE, is flagged ``near_singular``. The
#: pencil's condition number is reported but not used: it grows with mesh
#: refinement ((f_max / f_1)^2: 1e9 for the DualEMPS with 16 elements per
#: beam), the measure only slowly (5e-5, 1.6e-5, 2.7e-6 for 1, 4, 16)
NEAR_SINGULAR_COND = 1e8
NEAR_SINGULAR_MEASURE = 1e-8
#: actuator stiffness outside [1 / RANGE, RANGE] times the structure's
#: largest diagonal stiffness is refused (no digit of the eigenproblem is left)
STIFFNESS_RANGE = 1e12


def check_modes_count(n_modes):
    """``n_modes``: None or a whole number >= 1 (not a bool, not 2.7).
    Returns it as int or None; raises InvalidArgumentError."""
    if n_modes is None:
        return None
    if isinstance(n_modes, bool) or not isinstance(n_modes, numbers.Integral):
        if isinstance(n_modes, bool) or not (isinstance(n_modes, numbers.Real)
                                             and float(n_modes).is_integer()):
            raise InvalidArgumentError(f"n_modes must be a whole number >= 1 or None, "
                                       f"got {n_modes!r}")
    if int(n_modes) < 1:
        raise InvalidArgumentError(f"n_modes must be >= 1, got {n_modes!r}")
    return int(n_modes)


def check_actuator_stiffness(k_a, names, K):
    """``k_a`` (n_a,) finite, positive, within :data:`STIFFNESS_RANGE` of the
    structure's stiffness scale (largest diagonal term of ``K`` (B, n, n);
    ``K = None`` skips that check). ``names`` : the actuated coordinates.
    Returns the float array; raises InvalidArgumentError."""
    try:
        k = np.atleast_1d(np.asarray(k_a, float))
    except (TypeError, ValueError):
        k = None
    if k is None or k.shape != (len(names),) or not np.all(np.isfinite(k)) or np.any(k <= 0):
        raise InvalidArgumentError(
            f"actuator_stiffness: {len(names)} positive finite values expected (one per actuated "
            f"joint {', '.join(names)}), got {k_a!r}")
    if K is None:
        return k
    scale = float(np.abs(np.diagonal(K, axis1=-2, axis2=-1)).max())
    ratio = k / scale if scale > 0 else np.ones_like(k)
    bad = np.flatnonzero((ratio > STIFFNESS_RANGE) | (ratio < 1 / STIFFNESS_RANGE))
    if bad.size:
        i = int(bad[0])
        raise InvalidArgumentError(
            f"actuator_stiffness of {names[i]} = {k[i]:.3g} is {ratio[i]:.3g} times the "
            f"structure's largest stiffness ({scale:.3g}): outside [1e-12, 1e12] the "
            "eigenproblem keeps no significant digit; "
            + ("use locked actuators (no stiffness) instead" if ratio[i] > 1 else
               "such an actuator is free (no restoring stiffness)"))
    return k


def closure_condition(J_f, blocks=None) -> np.ndarray:
    """(B,) 2-norm condition number of ``J_t^f`` (B, c, c) (1 when c = 0).
    ``blocks``: its limb blocks ``[(rows, cols)]``
    (:func:`flexpkm.algorithms.dependent.limb_blocks`) when it is block-
    diagonal: the singular values are those of the blocks (smaller SVDs)."""
    if J_f.shape[-1] == 0:
        return np.ones(J_f.shape[0])
    if blocks:
        s = [np.linalg.svd(J_f[:, r][:, :, c], compute_uv=False) for r, c in blocks]
        hi, lo = np.max([x[:, 0] for x in s], axis=0), np.min([x[:, -1] for x in s], axis=0)
    else:
        s = np.linalg.svd(J_f, compute_uv=False)
        hi, lo = s[:, 0], s[:, -1]
    with np.errstate(divide="ignore"):
        return np.where(lo > 0, hi / np.maximum(lo, 1e-300), np.inf)


def pencil_measures(lam, scale):
    """``(cond (B,), measure (B,))`` of the pencil ``K x = lambda M x``
    with eigenvalues ``lam`` (B, n): ``lambda_max / lambda_min`` (inf when
    lambda_min <= 0) and ``lambda_min / scale``, ``scale`` (B,) the ratio of
    the stiffness and inertia scales (1/s^2; :attr:`ReducedMatrices.scales`:
    from K_tot and M_tot, so that the measure does not depend on the choice
    of q_dep)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        cond = np.where(lam[:, 0] > 0, lam[:, -1] / np.where(lam[:, 0] > 0, lam[:, 0], 1), np.inf)
        measure = lam[:, 0] / scale
    return cond, measure


def repeated_flags(lam) -> np.ndarray:
    """(B, n) True where an eigenvalue is within :data:`REPEATED` (relative)
    of a neighbour."""
    scale = np.maximum(np.abs(lam), np.abs(lam).max(axis=-1, keepdims=True) * 1e-300)
    close = np.abs(np.diff(lam, axis=-1)) <= REPEATED * scale[:, 1:]
    flags = np.zeros(lam.shape, bool)
    flags[:, 1:] |= close
    flags[:, :-1] |= close
    return flags


def canonical_shapes(lam, X, T=None):
    """Mode shapes X (B, n_q, n), M-orthonormal, in the convention of this
    module, judged on ``T = J X`` (B, n_tot, n) when given (the shapes over
    every coordinate, which do not depend on the choice of q_dep), else on
    X. Returns ``(X', T', repeated (B, n))`` (T' None without T). Within a
    cluster of repeated eigenvalues, ``X' = X U`` with U orthogonal
    (:func:`_eigenspace_basis` of T's rows), so that the result depends
    only on the eigenspace; then each column is signed so that the
    largest-magnitude component of T (else X) is positive."""
    X = X.copy()
    T = None if T is None else T.copy()
    ref = X if T is None else T
    rep = repeated_flags(lam)
    for b in np.flatnonzero(rep.any(axis=-1)):
        for cols in _clusters(rep[b], lam[b]):
            U = _eigenspace_basis(ref[b][:, cols].T)
            X[b][:, cols] = X[b][:, cols] @ U
            if T is not None:
                T[b][:, cols] = T[b][:, cols] @ U
    k = np.argmax(np.abs(ref), axis=1)                                   # (B, n)
    sign = np.sign(np.take_along_axis(ref, k[:, None, :], axis=1))
    sign = np.where(sign == 0, 1.0, sign)
    return X * sign, (None if T is None else T * sign), rep


def _eigenspace_basis(Y):
    """U (m, m) orthogonal such that ``U^T Y`` depends only on the row space
    of ``Y`` (m, n): Gram-Schmidt on the columns of Y taken greedily, the
    first (lowest coordinate index) whose remaining norm is at least half
    the largest (ties between symmetric coordinates do not matter)."""
    m = Y.shape[0]
    U = np.zeros((m, 0))
    for _ in range(m):
        R = Y - U @ (U.T @ Y)
        norms = np.linalg.norm(R, axis=0)
        i = int(np.argmax(norms >= 0.5 * norms.max()))
        U = np.column_stack([U, R[:, i] / norms[i]])
    return U


def _clusters(flags, lam):
    """Lists of column indices of consecutive repeated eigenvalues."""
    out, current = [], []
    for i, f in enumerate(flags):
        if f and current and abs(lam[i] - lam[current[-1]]) <= REPEATED * max(abs(lam[i]), 1e-300):
            current.append(i)
            continue
        if len(current) > 1:
            out.append(current)
        current = [i] if f else []
    if len(current) > 1:
        out.append(current)
    return out
