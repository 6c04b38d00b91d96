"""Exact derivatives of the locked reduced matrices ``M_cc``, ``K_cc``
(11.26)-(11.27) along a change of the robot's geometry: the frame constants
of Step 0 (the MDH transforms ``R_fix``, ``p_att``, ``r`` and the tip shapes
``Phi_d``, ``Phi_r`` of (10.8), that carry a flexible body's deflection to
its successors) and the platform's joint frames. For the design
sensitivities (:mod:`flexpkm.compiled.sensitivity`).

The constants that change are made CasADi symbols ``theta`` in a copy of the
model (:func:`symbolic_view`); the frame-by-frame symbolic model
(:func:`flexpkm.compiled.full.symbolic_dynamics`) then gives ``M_cc(q, theta)``,
``K_cc(q, theta)`` and the loop equations ``Phi(q, theta)``. The
configuration follows the change with the held coordinates fixed (the
platform pose, or ``q_a``; the elastic ones at 0): ``Phi_q dq + Phi_theta
dtheta = 0`` (least squares over every row: redundant rows are consistent),
and ``dM_cc = dM_cc/dq dq + dM_cc/dtheta dtheta`` (forward AD, ``jtimes``).
"""
from __future__ import annotations

from dataclasses import replace

import casadi as ca
import numpy as np

from flexpkm.compiled.full import symbolic_dynamics
from flexpkm.errors import SingularConfigurationError


def frame_vector(model) -> np.ndarray:
    """``theta`` (n,): per frame ``R_fix`` (9, row by row), ``p_att`` (3),
    ``r``, then ``Phi_d``, ``Phi_r`` (3 N each, row by row) when its
    antecedent is flexible; per closure to the platform its
    ``platform_point`` (3) and ``platform_rotation`` (3)."""
    parts = []
    for fc in model.frame_constants:
        parts += [np.ravel(fc.R_fix), np.ravel(fc.p_att), [fc.r]]
        if fc.shapes is not None:
            parts += [np.ravel(fc.shapes[1]), np.ravel(fc.shapes[2])]
    for c in model.closures:
        if c.other is None:
            parts += [np.asarray(c.platform_point, float), np.asarray(c.platform_rotation, float)]
    return np.concatenate(parts).astype(float)


class _RobotView:
    """A :class:`flexpkm.model.Robot` with other ``closures`` (symbolic)."""

    def __init__(self, robot, closures):
        self._robot, self.closures = robot, closures

    def __getattr__(self, name):
        return getattr(self._robot, name)


def symbolic_view(model, theta0, moving):
    """``(view, theta)``: a copy of ``model`` whose entries of
    :func:`frame_vector` are SX: the symbols ``theta`` (n_moving,) where
    ``moving`` (bool (n,)) is True, the numbers ``theta0`` elsewhere."""
    theta = ca.SX.sym("theta", int(np.count_nonzero(moving)))
    values = [ca.SX(float(x)) for x in theta0]
    for k, i in enumerate(np.flatnonzero(moving)):
        values[i] = theta[k]
    it = iter(values)

    def take(n):
        return ca.vertcat(*[next(it) for _ in range(n)])
    frames = []
    for fc in model.frame_constants:
        R, p, r = ca.reshape(take(9), 3, 3).T, take(3), take(1)
        shapes = None
        if fc.shapes is not None:
            sl, N = fc.shapes[0], fc.shapes[1].shape[1]
            shapes = (sl, ca.reshape(take(3 * N), N, 3).T, ca.reshape(take(3 * N), N, 3).T)
        frames.append(replace(fc, R_fix=R, p_att=p, r=r, shapes=shapes))
    closures = tuple(replace(c, platform_point=take(3), platform_rotation=take(3))
                     if c.other is None else c for c in model.closures)
    return replace(model, frame_constants=tuple(frames),
                   robot=_RobotView(model.robot, closures)), theta


def held_columns(model, hold):
    """q_tot columns that stay fixed when the geometry changes: the elastic
    ones and the commanded platform pose (``hold="pose"``; the dependent
    platform coordinates of a completed platform follow the loops) or ``q_a``
    (``"q_a"``)."""
    layout = model.layout
    fixed = [i for sl in layout.elastic_slice.values() for i in range(sl.start, sl.stop)]
    fixed += list(layout.commanded) if hold == "pose" else list(layout.actuated)
    return np.array(sorted(set(fixed)), dtype=int)


def frame_derivatives(model, q_tot, red, dthetas, hold):
    """``[(dM_cc, dK_cc)]`` (n_c, n_c each), one per row of ``dthetas`` (k,
    n) (units of :func:`frame_vector` per unit of a parameter), at the
    assembled configuration ``q_tot`` (n_tot,; q_e = 0), over the q_dep and
    the rows of the :class:`flexpkm.algorithms.modal.ReducedMatrices` ``red``;
    the configuration re-assembled holding ``hold`` (:func:`held_columns`).
    One symbolic model for all (symbols where any row moves).
    Raises :class:`SingularConfigurationError` when the held coordinates do
    not determine the configuration."""
    dthetas = np.atleast_2d(dthetas)
    moving = np.any(dthetas != 0.0, axis=0)
    view, theta = symbolic_view(model, frame_vector(model), moving)
    kept = None if red.rows is None or not len(red.rows.dropped) else red.rows.kept
    sm = symbolic_dynamics(view, red.dep, kept)
    q = sm.q
    na = red.n_a
    M_cc = sm.M[na:, na:]
    K_cc = (sm.J.T @ ca.SX(model.K_tot) @ sm.J)[na:, na:]
    x = ca.vertcat(q, theta)
    dx = ca.SX.sym("dx", x.shape[0])
    F = ca.Function("geometric", [q, theta, dx],
                    [sm.residual, ca.jacobian(sm.residual, q), ca.jacobian(sm.residual, theta),
                     ca.jtimes(M_cc, x, dx), ca.jtimes(K_cc, x, dx)])
    q0 = np.array(q_tot, float)
    for sl in model.layout.elastic_slice.values():
        q0[sl] = 0.0
    th0 = frame_vector(model)[moving]
    _, Phi_q, Phi_th = (np.array(v) for v in F(q0, th0, np.zeros(x.shape[0]))[:3])
    free = np.setdiff1d(np.arange(len(q0)), held_columns(model, hold))
    out = []
    for dth in dthetas[:, moving]:
        dq = np.zeros(len(q0))
        dq[free], _, rank, _ = np.linalg.lstsq(Phi_q[:, free], -Phi_th @ dth, rcond=1e-10)
        if rank < len(free):
            raise SingularConfigurationError(
                f"holding {hold} leaves {len(free) - rank} degree(s) of freedom of the "
                f"configuration undetermined: no derivative with respect to the geometry here")
        rhs = Phi_th @ dth
        if np.linalg.norm(Phi_q[:, free] @ dq[free] + rhs) > 1e-8 * max(np.linalg.norm(rhs), 1e-300):
            raise SingularConfigurationError(
                f"holding {hold}, the loops cannot stay closed when this parameter changes "
                f"(an overconstrained mechanism whose redundant constraints it breaks): "
                f"no derivative with respect to the geometry here")
        res = F(q0, th0, np.concatenate([dq, dth]))
        out.append((np.array(res[3]), np.array(res[4])))
    return out
