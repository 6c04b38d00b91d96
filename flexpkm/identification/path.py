"""The forward geometric model along a densely sampled path of the
actuated coordinates (Briot & Khalil Section 7.3), for the samples of a
measured or exciting trajectory: :func:`flexpkm.assemble` at the first
sample (working and assembly modes kept), Gauss-Newton from node to node
at one sample in ``stride`` (continuation), the others started from the linear interpolation of their neighbours and closed
together by a few batched Gauss-Newton steps on the loop equations. Each
sample ends with loop residuals below ``tol`` or the path is refused."""
from __future__ import annotations

import numpy as np

from flexpkm.algorithms.assembly import assemble, free_columns
from flexpkm.algorithms.closure import apply_step, closure_residual, constraint_jacobian
from flexpkm.algorithms.platform import platform_pose
from flexpkm.algorithms.tree import tree_kinematics
from flexpkm.errors import UnreachablePoseError


def assemble_path(model, q_a, stride=25, tol=1e-11, max_iter=10, guess=None) -> np.ndarray:
    """``q_tot`` (n, n_tot) of the actuated coordinates ``q_a`` (n, n_a)
    (m, rad; order of ``model.layout.actuated``), a path sampled densely
    enough for the linear interpolation over ``stride`` samples to start
    Newton (the first sample by :func:`flexpkm.assemble`, its modes kept,
    then every ``stride``-th by Newton from the previous one). ``guess``: the start of the first sample (default: the
    reference configuration). Raises :class:`UnreachablePoseError` naming
    the first sample whose loops stay open, and what ``assemble`` raises."""
    q_a = np.atleast_2d(np.asarray(q_a, float))
    n = len(q_a)
    nodes = np.unique(np.r_[np.arange(0, n, stride), n - 1])
    act = list(model.layout.actuated)
    q_nodes = [assemble(model, q_a=q_a[0], guess=guess)]
    for k in nodes[1:]:                         # continuation from node to node
        start = q_nodes[-1].copy()
        start[act] = q_a[k]
        q_nodes.append(_close(model, start[None], act, tol, max_iter, k)[0])
    q_nodes = np.array(q_nodes)
    q = np.empty((n, model.layout.n_tot))
    for col in range(model.layout.n_tot):
        q[:, col] = np.interp(np.arange(n), nodes, q_nodes[:, col])
    q[:, act] = q_a
    return _close(model, q, act, tol, max_iter)


def newton_batch(model, q, fixed, tol=1e-11, max_iter=10):
    """``(q (B, n_tot), err (B,))``: Gauss-Newton steps on the loop
    equations of every configuration of ``q`` at once, the columns
    ``fixed`` held (actuated: the forward problem; commanded platform
    coordinates: the inverse one); ``err`` the largest loop residual left."""
    layout = model.layout
    free = free_columns(model, fixed)
    for _ in range(max_iter):
        kin = tree_kinematics(model, q[:, :layout.n_t])
        r = closure_residual(model, q, kin)
        err = np.abs(r).max(axis=1)
        if not err.max() >= tol:                 # all closed (or a NaN: stop)
            break
        J = constraint_jacobian(model, kin, platform_pose(model, q))[0][:, :, free]
        dx = -np.linalg.lstsq(J[0], r[0], rcond=None)[0][None] if len(q) == 1 else \
            -(np.linalg.pinv(J) @ r[..., None])[..., 0]
        q = apply_step(model, q, free, dx)
    else:
        err = np.abs(closure_residual(model, q)).max(axis=1)
    return q, np.where(np.isfinite(err), err, np.inf)


def _close(model, q, fixed, tol, max_iter, first=0):
    """:func:`newton_batch`, refused when a configuration stays open."""
    q, err = newton_batch(model, q, fixed, tol, max_iter)
    if err.max() < tol:
        return q
    bad = int(np.argmax(err))
    raise UnreachablePoseError(f"the loops of sample {first + bad} of the path stay open "
                               f"(residual {err[bad]:.3g} after {max_iter} Newton steps): the "
                               f"path leaves the workspace or is sampled too coarsely")
