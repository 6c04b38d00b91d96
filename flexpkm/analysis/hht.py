"""One step of the Hilber-Hughes-Taylor (HHT-alpha) scheme on the
independent coordinates ``q_r`` with Newmark on all coordinates.

Parameters: ``gamma = 1/2 + alpha``, ``beta = (1 + alpha)^2 / 4``,
alpha in [0, 1/3] (0: Newmark's average acceleration, no numerical damping).
From the state at t_n (``q_n`` all coordinates, ``v_n = qd_r``,
``a_n = qdd_r``, ``g_n = c - [tau; 0]`` the non-inertial generalized forces,
``J_n``, ``b_n`` of (10.119)) to t_n+1 = t_n + h, for accelerations ``a``:

* ``A = J a + b``, ``V_n = J_n v_n``, ``A_n = J_n a_n + b_n`` (10.114), (10.119);
* ``q = q_n + h V_n + h^2 ((1/2 - beta) A_n + beta A)``  (all coordinates:
  the loops stay closed to O(h^3));
* ``v = v_n + h ((1 - gamma) a_n + gamma a)``;
* the equation of motion averaged between t_n and t_n+1 (Hilber, Hughes &
  Taylor 1977), on the rows of the unknown accelerations:
  ``R(a) = M a + (1 - alpha) g(q, v) + alpha g_n = 0``;
* Newton on ``R``: ``a <- a - S^-1 R`` with the iteration matrix
  ``S = M + (1 - alpha) (gamma h D + beta h^2 K)``, ``D = J^T C J + K_d``
  (friction derivative (+ PD damping)), ``K = J^T K_tot J + K_p``
  ((11.26) + PD stiffness);
* convergence on the residual relative to the step's forces, on the rows
  ``u`` of the unknown accelerations (:func:`relative_residual`):
  ``rho = |R_u|_inf / (|(M a)_u|_inf + |c_u|_inf + |tau_u|_inf +
  |(J^T K_tot q)_u|_inf)`` (inertial, non-inertial (gravity, Coriolis,
  friction, elastic), actuator and elastic forces, each by its own norm, so
  that forces in balance do not shrink the scale); the iterate ``a_k`` is
  converged when ``rho(a_k) <= tol``; its correction ``a_k+1`` is applied
  (it only improves it) and the step ends. After ``iterations``
  evaluations without convergence the step is reported not converged.

Prescribed coordinates (the actuators of an inverse problem) take their
given positions and velocities at t_n+1 and are not iterated.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np



@dataclass(frozen=True)
class StepState:
    """State at time t: t (s), q (n_tot,) all coordinates, v (n_r,) ``qd_r``,
    a (n_r,) ``qdd_r``, g (n_r,) ``c - [tau; 0]`` and ``full`` (the
    :class:`flexpkm.algorithms.dynamics.FullDynamics` at the state, for J, b, M)."""

    t: float
    q: np.ndarray
    v: np.ndarray
    a: np.ndarray
    g: np.ndarray
    full: object


@dataclass(frozen=True)
class Evaluation:
    """What ``evaluate(t, q, v)`` returns: ``full`` (FullDynamics), g (n_r,)
    ``c - [tau; 0]``, D (n_r, n_r) damping and K (n_r, n_r) stiffness of the
    iteration matrix; ``forces`` (k, n_r): the force terms whose sizes scale
    the residual (rows ``c``, ``[tau; 0]``, ``J^T K_tot q``; None: ``g``)."""

    full: object
    g: np.ndarray
    D: np.ndarray
    K: np.ndarray
    forces: np.ndarray = None


@dataclass(frozen=True)
class Newton:
    """How the Newton iterations of one step ended: ``iterations`` (model
    evaluations), ``residual`` the relative residual of the last evaluated
    iterate (:func:`relative_residual`; inf for a diverged step), and
    whether it met the tolerance."""

    iterations: int
    residual: float
    converged: bool


@dataclass(frozen=True)
class HHT:
    """Parameters: h (s), alpha, the unknown columns of ``q_r`` (indices),
    the prescribed ones as ``(q_tot columns, q_r columns)``, tol, iterations."""

    h: float
    alpha: float
    unknown: np.ndarray
    fixed_q: np.ndarray
    fixed_r: np.ndarray
    tol: float = 1e-6
    iterations: int = 6

    @property
    def gamma(self):
        return 0.5 + self.alpha

    @property
    def beta(self):
        return 0.25 * (1.0 + self.alpha) ** 2


def newmark(p: HHT, n: StepState, VA_n, a1, full, fixed=None):
    """Positions (n_tot,) and velocities (n_r,) at t_n+1 for accelerations a1,
    ``qdd_tot = J a1 + b`` with the J, b of ``full``; ``VA_n = (V_n, A_n)``
    the velocities and accelerations of all coordinates at t_n; ``fixed`` =
    (q_a, qd_a) overrides the prescribed coordinates."""
    h, beta, gamma = p.h, p.beta, p.gamma
    Vn, An = VA_n
    A1 = full.J @ a1 + full.b
    q1 = n.q + h * Vn + h * h * ((0.5 - beta) * An + beta * A1)
    v1 = n.v + h * ((1 - gamma) * n.a + gamma * a1)
    if fixed is not None:
        q1[p.fixed_q], v1[p.fixed_r] = fixed
    return q1, v1


def relative_residual(res, inertial, forces) -> float:
    """``|res|_inf / (|inertial|_inf + sum_k |forces[k]|_inf)``: the residual
    (n,) relative to the inertial forces (n,) and the other force terms
    (k, n) of the step (module docstring); 0 for a zero residual, inf for a
    non-finite one or a positive residual on a zero scale."""
    r = np.abs(res).max(initial=0.0)
    scale = np.abs(inertial).max(initial=0.0) + np.abs(forces).max(axis=-1, initial=0.0).sum()
    if not np.isfinite(r):
        return np.inf
    return r / scale if scale > 0 else (0.0 if r == 0 else np.inf)


def hht_step(p: HHT, n: StepState, a1, evaluate, fixed=None):
    """Advance from ``n`` (t_n) to t_n+1 = t_n + h.

    a1 : (n_r,) first guess of the accelerations at t_n+1 (the prescribed
    ones exact); evaluate : ``(t, q, v) -> Evaluation``; fixed : ``(q_a,
    qd_a)`` at t_n+1 for a prescribed motion, else None.
    Returns ``(StepState at t_n+1, Newton)``: a step that did not converge
    (residual above ``p.tol`` after ``p.iterations`` evaluations, a singular
    iteration matrix, non-finite accelerations) is returned with
    ``converged = False``; the caller retries it with a smaller step
    (:mod:`flexpkm.analysis.step_control`). Pure: no argument is modified.
    """
    t, u, alpha = n.t + p.h, p.unknown, p.alpha
    full = n.full
    VA_n = (full.J @ n.v, full.J @ n.a + full.b)
    with np.errstate(all="ignore"):     # a diverging iterate is caught below, not warned
        for it in range(1, p.iterations + 1):
            q1, v1 = newmark(p, n, VA_n, a1, full, fixed)
            ev = evaluate(t, q1, v1)
            full = ev.full
            Ma = full.M @ a1
            res = Ma + (1 - alpha) * ev.g + alpha * n.g
            forces = ev.g[None] if ev.forces is None else ev.forces
            rho = relative_residual(res[u], Ma[u], forces[:, u])
            S = full.M + (1 - alpha) * (p.h * p.gamma * ev.D + p.h * p.h * p.beta * ev.K)
            try:
                da = np.linalg.solve(S[np.ix_(u, u)], res[u])
            except np.linalg.LinAlgError:
                da = np.full(len(u), np.nan)
            a1 = a1.copy()
            a1[u] -= da
            if not np.all(np.isfinite(a1)):
                rho = np.inf
                break
            if rho <= p.tol:
                break
    q1, v1 = newmark(p, n, VA_n, a1, full, fixed)
    return StepState(t, q1, v1, a1, ev.g, full), Newton(it, rho, bool(rho <= p.tol))
