"""Static Cartesian compliance of the platform (the stiffness map of a PKM
designer), from the reduced stiffness ``K_r`` of (11.27) and the actuator
stiffness (Section 11.4, (11.38)); batched over poses.

A wrench ``w`` on the platform (environment on platform, at P, base-frame
components, :mod:`flexpkm.algorithms.statics`) has the generalized force
``Q_r = J_p^T S_p^T w`` on ``q_r = [q_a; q_c]`` (``J_p``: the platform rows
``x_p`` of ``J E_q^T``, (10.114)); the linear static deflection solves
``K dq_r = Q_r`` and moves the platform by ``dx_p = J_p dq_r``. Hence the
compliance in the platform coordinates x_p (n_p x n_p: 6 x 6 for a spatial
platform, 2 x 2 or 3 x 3 for a planar one)::

    C = J_p,f  K_ff^-1  J_p,f^T,     dx_p = C (S_p^T w)

with ``f`` the free coordinates: ``q_c`` with the actuators locked
(``K_ff = K_cc``), all of ``q_r`` with actuator stiffness ``k_a``
(``K_ff = K_r + diag(k_a, 0)``; with actuation redundancy the springs act on
``qd_A = J_A qd_r``: ``K_r + J_A^T diag(k_a) J_A``, as in
:func:`flexpkm.algorithms.modal.solve_modes`). Column j of C is the platform displacement
under a unit force (N) or moment (N m) along x_p component j. The stiffness
is ``C^-1`` where C is invertible. Gravity is not included (superpose it).
"""
from __future__ import annotations

import numpy as np
from scipy.linalg import solve_triangular

from flexpkm.algorithms.conditioning import check_actuator_stiffness


def platform_compliance(model, reduced, actuator_stiffness=None):
    """``(C, eigenvalues, ok)`` of the poses of ``reduced`` (a batched
    :class:`flexpkm.algorithms.modal.ReducedMatrices` of ``model``).

    C : (B, n_p, n_p) compliance in the platform coordinates x_p (m/N,
        rad/(N m), m/(N m)...: the unit of x_p component i per unit of the
        generalized force along component j; see the module);
    eigenvalues : (B, n_p) ascending eigenvalues of C (principal compliances);
    ok : (B,) False where ``K_ff`` is not positive definite (a motion without
        stiffness: a Type 2 singularity, or a rigid robot with locked
        actuators); C and its eigenvalues are NaN there.
    actuator_stiffness : (n_a,) N/m or N m/rad, or None (actuators locked).
    Raises :class:`flexpkm.errors.InvalidArgumentError` for a bad
    ``actuator_stiffness``.
    """
    layout = model.layout
    na = reduced.n_a
    K = np.array(reduced.K_r, float)
    act = list(layout.actuated)
    if actuator_stiffness is None:
        free = slice(na, None)
    else:
        k_a = check_actuator_stiffness(actuator_stiffness, [layout.names[c] for c in act], None)
        if len(act) > na:           # actuation redundancy: springs on qd_A = J_A qd_r
            J_A = rows_of_J(reduced, act)
            K += np.swapaxes(J_A, -1, -2) @ (k_a[:, None] * J_A)
        else:
            K[:, range(na), range(na)] += k_a
        free = slice(0, None)
    J_p = rows_of_J(reduced, range(layout.n_t, layout.n_tot))[:, :, free]
    K_ff = K[:, free, free]
    B, n_p = K.shape[0], layout.n_p
    C = np.full((B, n_p, n_p), np.nan)
    eig = np.full((B, n_p), np.nan)
    ok = np.zeros(B, bool)
    if K_ff.shape[-1] == 0:
        return C, eig, ok
    ok, L = _cholesky(K_ff)
    if ok.any():
        Jt = np.swapaxes(J_p, -1, -2)
        X = np.stack([solve_triangular(L[b], Jt[b], lower=True, check_finite=False)
                      for b in np.flatnonzero(ok)])                # L^-1 J_p^T
        C[ok] = np.swapaxes(X, -1, -2) @ X
        eig[ok] = np.linalg.eigvalsh(C[ok])
    return C, eig, ok


def rows_of_J(reduced, rows) -> np.ndarray:
    """(B, len(rows), n_q) the rows ``rows`` (q_tot indices) of ``J E_q^T``
    (10.114) of ``reduced`` without building the whole (B, n_tot, n_q) J
    (:func:`flexpkm.algorithms.closure.expand`; 100 MB for 1,000 NaVARo
    poses): a unit row for a coordinate of q_r, a row of ``J_d`` for a
    dependent one."""
    J_d = np.asarray(reduced.J_d, float)
    indep, dep = [int(i) for i in reduced.indep], [int(i) for i in reduced.dep]
    out = np.zeros((J_d.shape[0], len(rows), J_d.shape[-1]))
    for k, r in enumerate(rows):
        if r in indep:
            out[:, k, indep.index(r)] = 1.0
        else:
            out[:, k] = J_d[:, dep.index(r)]
    return out


def _cholesky(K):
    """``(ok (B,), L (B, n, n))``: the lower Cholesky factors of the
    symmetric matrices K (B, n, n), ``ok`` False (and L zero) where K is
    not positive definite. One batched factorisation, pose by pose only when
    it fails. (The triangular solves above run pose by pose: LAPACK
    ``dtrtrs`` at 26 us per pose for n = 96, n_p = 3, against 107 us for
    numpy's batched LU solve and 37 us for SciPy's batched
    ``solve_triangular``, which needs SciPy >= 1.15.)"""
    try:
        return np.ones(len(K), bool), np.linalg.cholesky(K)
    except np.linalg.LinAlgError:
        pass
    ok, L = np.ones(len(K), bool), np.zeros_like(K)
    for b in range(len(K)):
        try:
            L[b] = np.linalg.cholesky(K[b])
        except np.linalg.LinAlgError:
            ok[b] = False
    return ok, L
