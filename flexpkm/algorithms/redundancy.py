"""Robots with actuation redundancy (Briot & Khalil Section 8.5): more
actuators n_A than degrees of freedom.

The independent coordinates ``q_r = [q_a; q_c]`` are n_a of the actuators
(picked by :func:`flexpkm.algorithms.dependent.redundant_dependent`) and the
elastic ones; the other ``n_A - n_a`` actuators are dependent. With ``E_A``
(n_tot, n_A) placing the actuator efforts in ``q_tot``, the principle of
virtual work on ``qd_tot = J qd_r`` (10.114) gives

``M qdd_r + c = A tau``,  ``A = J^T E_A = J[actuated]^T`` (n_r, n_A),

the form (8.166)/(8.180) of the book written in ``q_r`` instead of the
platform twist ``t_r``: ``J[actuated]`` plays the part of ``J_inv`` (8.146)
(times ``dt_r/dq_r``), ``M`` and ``c`` those of ``M_red``, ``c_red``
(8.163)-(8.164). ``A`` has more columns than rows: the inverse problem has
the solutions (8.148); flexpkm returns the one of least ``tau^T W tau``
(W = 1: the minimum norm, (8.148) with the overconstraint chosen so; see
docs/typos.md on the book's "eta = 0").
"""
from __future__ import annotations

import numpy as np

from flexpkm.algorithms.eigen import solve_spd
from flexpkm.errors import InvalidArgumentError, SingularConfigurationError


def is_redundant(full) -> bool:
    """True when the full model has dependent actuators (n_A > n_a)."""
    return full.actuated is not None and len(full.actuated) > full.n_a


def actuation_matrix(full) -> np.ndarray:
    """``A = J^T E_A`` (n_r, n_A), batched (B, n_r, n_A): generalized
    forces on ``q_r`` of unit actuator efforts (all n_A actuators, in the
    order of ``full.actuated``)."""
    J = full.J[..., full.actuated, :]
    return np.swapaxes(J, -1, -2)


def independent_actuators(full) -> np.ndarray:
    """Positions in ``full.actuated`` of the n_a independent actuators
    (``full.names[:n_a]``)."""
    where = {int(c): k for k, c in enumerate(full.actuated)}
    return np.array([where[int(c)] for c in full.indep[:full.n_a]], dtype=int)


def _weights_inverse(weights, n_A):
    if weights is None:
        return np.eye(n_A)
    W = np.asarray(weights, float)
    if W.shape == (n_A,):
        W = np.diag(W)
    if W.shape != (n_A, n_A) or not np.allclose(W, W.T):
        raise InvalidArgumentError(f"weights: a symmetric ({n_A}, {n_A}) matrix or ({n_A},) "
                                   f"diagonal is needed, got shape {np.shape(weights)}")
    try:
        np.linalg.cholesky(W)
    except np.linalg.LinAlgError:
        raise InvalidArgumentError("weights: W must be positive definite") from None
    return np.linalg.inv(W)


def redundant_inverse_dynamics(full, qdd_a, weights=None):
    """Inverse problem with actuation redundancy, Eqs. (8.145)-(8.148).

    full : :class:`flexpkm.algorithms.dynamics.FullDynamics` (one state or B).
    qdd_a : (n_a,) accelerations of the independent actuators
        (``full.names[:n_a]``), or (n_A,) of all actuators (the independent
        ones are read); rad/s^2 or m/s^2; batched (B, .).
    weights : W (n_A,) (diagonal) or (n_A, n_A) symmetric positive definite;
        None for W = 1.
    Eliminating ``qdd_c = M_cc^-1 (A_c tau - M_ca qdd_a - c_c)`` leaves
    ``S tau = r`` with ``S = A_a - M_ac M_cc^-1 A_c`` (n_a, n_A) and
    ``r = M_aa qdd_a + c_a - M_ac M_cc^-1 (M_ca qdd_a + c_c)``; the
    returned ``tau = W^-1 S^T (S W^-1 S^T)^-1 r`` minimises ``tau^T W tau``.
    Returns ``(tau (n_A,), qdd_c (n_c,))`` (batched (B, n_A), (B, n_c)), N m or N.
    Raises :class:`SingularConfigurationError` when ``S`` loses rank (the
    actuators cannot move the robot), :class:`InvalidArgumentError` on bad shapes.
    """
    (M, c, _, _), single = full.batched()
    A = actuation_matrix(full).reshape(c.shape[0], c.shape[1], -1)
    na, n_A = full.n_a, A.shape[-1]
    qdd = np.asarray(qdd_a, float).reshape(c.shape[0], -1)
    if qdd.shape[1] == n_A:
        qdd = qdd[:, independent_actuators(full)]
    elif qdd.shape[1] != na:
        raise InvalidArgumentError(f"qdd_a: {na} independent or {n_A} actuator accelerations "
                                   f"expected, got {qdd.shape[1]}")
    Wi = _weights_inverse(weights, n_A)
    r = (M[:, :na, :na] @ qdd[..., None])[..., 0] + c[:, :na]
    S = A[:, :na]
    if M.shape[-1] > na:                    # elastic coordinates q_c
        rhs_c = (M[:, na:, :na] @ qdd[..., None])[..., 0] + c[:, na:]
        Mcc = M[:, na:, na:]
        solve_spd(Mcc, rhs_c, "M_cc")      # raises unless M_cc is positive definite
        X = np.linalg.solve(Mcc, np.concatenate([A[:, na:], rhs_c[..., None]], -1))
        S = S - M[:, :na, na:] @ X[..., :-1]
        r = r - (M[:, :na, na:] @ X[..., -1:])[..., 0]
    G = S @ Wi @ np.swapaxes(S, -1, -2)
    sv = np.linalg.svd(G, compute_uv=False)
    if np.any(sv[:, -1] <= 1e-12 * sv[:, 0]):
        raise SingularConfigurationError(
            "the actuators cannot produce every motion here: S W^-1 S^T is singular "
            "(actuation redundancy, Eq. 8.148)", matrix="J_inv^T")
    tau = (Wi @ np.swapaxes(S, -1, -2) @ np.linalg.solve(G, r[..., None]))[..., 0]
    if M.shape[-1] > na:
        qdd_c = (X[..., :-1] @ tau[..., None])[..., 0] - X[..., -1]
    else:
        qdd_c = np.zeros((c.shape[0], 0))
    return (tau[0], qdd_c[0]) if single else (tau, qdd_c)


def redundant_direct_dynamics(full, tau):
    """Direct problem with actuation redundancy, (8.162)-(8.165) written in
    the independent coordinates: ``qdd_r = M^-1 (A tau - c)``.

    tau : (n_A,) or (B, n_A) efforts of all actuators (order of
    ``full.actuated``), N m or N. Returns qdd_r (n_r,) or (B, n_r).
    Raises :class:`flexpkm.errors.IndefiniteMassMatrixError` if M is not
    positive definite."""
    (M, c, _, _), single = full.batched()
    A = actuation_matrix(full).reshape(c.shape[0], c.shape[1], -1)
    t = np.asarray(tau, float).reshape(c.shape[0], A.shape[-1])
    qdd = solve_spd(M, (A @ t[..., None])[..., 0] - c, "M")
    return qdd[0] if single else qdd
