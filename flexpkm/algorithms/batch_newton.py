"""Newton's method on the loop equations ``h(q_tot) = 0`` (Chapter 7) from
many starts at once, for :mod:`flexpkm.algorithms.all_modes`: one batch
through the vectorised :func:`flexpkm.algorithms.tree.tree_kinematics` and
:func:`flexpkm.algorithms.closure.constraint_jacobian`, each start with its
own trust radius; and the scale-free distance of a root to the
singularity that ends its isolation."""
from __future__ import annotations

import numpy as np

from flexpkm.algorithms.closure import apply_step, closure_residual, constraint_jacobian
from flexpkm.algorithms.platform import platform_pose
from flexpkm.algorithms.tree import tree_kinematics

#: largest change of any coordinate per Newton step (m, rad)
TRUST = 0.3


def batch_newton(model, q, free, tol, max_iter):
    """Gauss-Newton on the loop equations from B starts at once (normal
    equations with a 1e-12 relative Levenberg-Marquardt damping, that
    redundant rows and a singular ``J`` do not break):
    ``q`` (B, n_tot) moved on the columns ``free``; each start has its trust
    radius (at most :data:`TRUST`, m or rad per coordinate), doubled after
    a step that lowers ``|h|``, quartered (the step refused) after one that
    does not; a start whose radius falls below 1e-9 is at a local minimum
    of ``|h|``, not a root (error inf). Returns (q (B, n_tot), max |h| (B,))."""
    layout = model.layout
    q = np.array(q, dtype=float)
    if not len(q):
        return q, np.zeros(0)
    r, err = loop_error(model, q)
    radius = np.full(len(q), TRUST)
    for _ in range(max_iter):
        active = np.nonzero(np.isfinite(err) & (err >= tol))[0]
        if not len(active):
            break
        qa = q[active]
        kin = tree_kinematics(model, qa[:, :layout.n_t])
        J = constraint_jacobian(model, kin, platform_pose(model, qa))[0][:, :, free]
        JtJ = np.einsum("bki,bkj->bij", J, J)
        damping = 1e-12 * np.trace(JtJ, axis1=1, axis2=2)[:, None, None] + 1e-300
        dx = -np.linalg.solve(JtJ + damping * np.eye(len(free)),
                              np.einsum("bki,bk->bi", J, r[active])[..., None])[..., 0]
        dx *= np.minimum(1.0, radius[active] / np.maximum(np.abs(dx).max(axis=1), 1e-300))[:, None]
        trial = apply_step(model, qa, free, dx)
        r_new, e_new = loop_error(model, trial)
        ok = np.linalg.norm(r_new, axis=1) < np.linalg.norm(r[active], axis=1)
        good, bad = active[ok], active[~ok]
        q[good], r[good], err[good] = trial[ok], r_new[ok], e_new[ok]
        radius[good] = np.minimum(2 * radius[good], TRUST)
        radius[bad] /= 4
        err[bad[radius[bad] < 1e-9]] = np.inf
    return q, err


def loop_error(model, q):
    """(h (B, c), max |h| (B,), inf where not finite) of ``q`` (B, n_tot)."""
    r = closure_residual(model, q)
    err = np.abs(r).max(axis=1) if r.shape[1] else np.zeros(len(q))
    return r, np.where(np.isfinite(err), err, np.inf)


def distance_to_singularity(model, q, free) -> np.ndarray:
    """(B,) smallest singular value of the columns ``free`` of ``J_tot`` at
    ``q`` (B, n_tot), rows and columns scaled to unit norm (zero rows left
    zero): 0 where the solution is not isolated, at most 1."""
    layout = model.layout
    kin = tree_kinematics(model, q[:, :layout.n_t])
    A = constraint_jacobian(model, kin, platform_pose(model, q))[0][:, :, free]
    if A.shape[2] == 0:
        return np.ones(len(q))
    A = A / np.maximum(np.linalg.norm(A, axis=2, keepdims=True), 1e-300)
    A = A / np.maximum(np.linalg.norm(A, axis=1, keepdims=True), 1e-300)
    sv = np.linalg.svd(A, compute_uv=False)
    n = A.shape[2]
    return sv[:, n - 1] if sv.shape[1] >= n else np.zeros(len(q))
