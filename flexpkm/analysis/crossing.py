"""Crossing Type 2 and LPJTS singularities with finite efforts (Briot &
Khalil Chapter 9), for a rigid robot moved along a law of n_dof of its
coordinates: the platform's ``x_p`` when they are its pose (a translating
platform: the five-bar's P), or coordinates that stay independent through
the singularity (an LPJTS one: a passive joint of the singular leg, the
Tripteron's q12 and the platform's y, z, as the book's law on A13 (9.111)).

The rigid IDM of the virtual system with its Lagrange multipliers
(9.1)-(9.3), in the coordinates of the model ``q_tot = [q_t; x_p]``::

    A [tau; lambda] = w,   A = [E_a^T  J^T]  (n_tot, n_a + c),
    w = M_tot qdd_tot + c_tot                  (all bodies, gravity, friction)

with J the independent constraint rows (10.107). ``A`` is singular exactly
when ``[E_a; J]`` has a null vector ``n``: a motion with the actuators
locked that keeps the loops closed. Its platform part is the uncontrollable
twist ``t_s`` of a Type 2 singularity (9.9) (zero: an LPJTS singularity,
``n`` is then the passive legs' ``qd_d^s`` (9.13)). The IDM is consistent
there iff ``n^T w = 0``: the power of the efforts along the uncontrollable
motion vanishes. With the actuators locked, ``n^T w = t_s^T w_d`` (9.5),
(9.11) for a Type 2 singularity and ``qd_d^s^T tau_td`` (9.15) for an LPJTS
one: one criterion for both, evaluated from the whole model (not the
book's end-effector mass (9.38)).

At the singular sample the efforts are the limit of the regular ones:
the consistent system is solved in least squares (minimum norm) and the
free component along the null vector ``v`` of ``A`` comes from the time
derivative of ``A x = w`` (``u^T A' x = u^T w'``, first order).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from flexpkm.algorithms.closure import constraint_jacobian
from flexpkm.algorithms.constraint_rows import select_rows
from flexpkm.algorithms.dynamics import full_dynamics
from flexpkm.algorithms.platform import platform_pose
from flexpkm.algorithms.reference import build_model
from flexpkm.algorithms.tree import tree_kinematics
from flexpkm.analysis.idm import IdmResult
from flexpkm.errors import InvalidArgumentError, SingularConfigurationError

#: below this reciprocal condition number of ``A`` a sample's efforts are its limit
RCOND_LIMIT = 1e-8
#: the criterion ``|n^T w| / |w|`` above which a crossing is refused
CRITERION_TOL = 1e-6
#: samples per batch of the model (memory)
CHUNK = 20000


@dataclass(frozen=True)
class Singularity:
    """The singularity met at one state.

    kind : ``"Type 2"`` (the platform moves, (9.9)) or ``"LPJTS"`` (only legs, (9.13))
    motion : (n_tot,) unit null vector ``n`` of ``[E_a; J]`` (q_tot rates)
    t_s : (n_p,) its platform part, the uncontrollable twist (x_p rates)
    criterion : ``n^T w``, W for a unit ``n`` (9.11)/(9.15): 0 to cross
    relative : ``|n^T w| / |w|``;  rcond : reciprocal condition number of ``A``
    """

    kind: str
    motion: np.ndarray
    t_s: np.ndarray
    criterion: float
    relative: float
    rcond: float


def effort_matrix(model, q_tot, kept=None):
    """``(A (B, n_tot, n_tot), kept)``: ``A = [E_a^T J^T]`` at states
    ``q_tot`` (B, n_tot) with the constraint rows ``kept`` (chosen at the
    first state when None). Raises :class:`InvalidArgumentError` for a
    flexible robot (the crossing is planned on the rigid one) or one with
    actuation redundancy (``A`` not square)."""
    if model.layout.elastic_slice:
        raise InvalidArgumentError(f"{model.name}: crossing singularities needs a rigid model "
                                   f"({len(model.layout.elastic_slice)} flexible bodies)")
    n_t = model.layout.n_t
    kin = tree_kinematics(model, q_tot[:, :n_t])
    J, labels = constraint_jacobian(model, kin, platform_pose(model, q_tot))
    kept = select_rows(J, labels).kept if kept is None else kept
    act = np.array(model.layout.actuated, dtype=int)
    E = np.zeros((len(q_tot), model.layout.n_tot, len(act)))
    E[:, act, np.arange(len(act))] = 1.0
    A = np.concatenate([E, np.swapaxes(J[:, kept], -1, -2)], axis=2)
    if A.shape[1] != A.shape[2]:
        raise InvalidArgumentError(f"{model.name}: {len(act)} actuators and {len(kept)} "
                                   f"independent constraints for {A.shape[1]} coordinates: "
                                   "crossing singularities needs a non-redundant robot")
    return A, kept


def singular_measure(A) -> np.ndarray:
    """``det A`` over the product of its rows' norms, (B,): dimensionless,
    in [-1, 1], zero exactly at a Type 2 or LPJTS singularity, and changing
    sign across one."""
    return np.linalg.det(A / np.linalg.norm(A, axis=1, keepdims=True))


def law_states(model, state, law, t, friction=True, coords=None):
    """The states along a law at times t (m,): ``(x, q, qd, qdd, w)`` with
    ``w = M_tot qdd_tot + c_tot`` (m, n_tot).

    law : ``t -> (x, xd, xdd)`` of the coordinates ``coords`` (q_tot
    columns, ascending, none actuated; default the platform's, the pose);
    ``state(values (m, k)) -> q_tot (m, n_tot)`` (a closed-form geometric
    model). The other coordinates' rates come from the loops with those
    coordinates independent (regular at a Type 2 singularity for the
    platform's; at an LPJTS one for coordinates of the singular leg).
    Raises :class:`InvalidArgumentError` when ``state`` does not give the
    law's values to them, and what ``state`` and :func:`flexpkm.full_dynamics`
    raise (a Type 1 singularity: the loops' matrix singular)."""
    layout = model.layout
    coords = _coordinates(model, coords)
    x, xd, xdd = law(t)
    q = state(x)
    if not np.allclose(q[:, coords], x, atol=1e-12, rtol=0):
        raise InvalidArgumentError(f"{model.name}: the states do not hold the law's coordinates "
                                   f"{[layout.names[i] for i in coords]}")
    dep = np.setdiff1d(np.arange(layout.n_tot), coords)
    full = full_dynamics(model, q, xd, dep=dep, friction=friction)
    qd = (full.J @ xd[..., None])[..., 0]
    qdd = (full.J @ xdd[..., None])[..., 0] + full.b
    w = (full.M_tot @ qdd[..., None])[..., 0] + full.c_tot
    return x, q, qd, qdd, w


def _coordinates(model, coords):
    """The law's q_tot columns (default the platform's), checked."""
    layout = model.layout
    coords = np.arange(layout.n_t, layout.n_tot) if coords is None else np.asarray(coords, int)
    if np.any(np.diff(coords) <= 0) or set(coords.tolist()) & set(layout.actuated):
        raise InvalidArgumentError(f"{model.name}: the law's coordinates must be ascending "
                                   "q_tot columns, none actuated")
    return coords


def classify(model, A, w) -> Singularity:
    """The :class:`Singularity` of one state from ``A`` (n, n) and ``w`` (n,)."""
    U, S, _ = np.linalg.svd(A)
    n = U[:, -1]
    n_t = model.layout.n_t
    t_s = n[n_t:]
    kind = "Type 2" if np.linalg.norm(t_s) > 1e-6 * np.linalg.norm(n) else "LPJTS"
    value = float(n @ w)
    return Singularity(kind=kind, motion=n, t_s=t_s, criterion=value,
                       relative=abs(value) / max(np.linalg.norm(w), 1e-300),
                       rcond=float(S[-1] / S[0]))


def _limit(model, state, law, t, kept, friction, coords):
    """``[tau; lambda]`` at a singular time t: the limit of the regular
    solutions (see the module). Raises :class:`SingularConfigurationError`
    when the criterion is not met there."""
    d = 1e-5 * law.duration
    times = np.array([t - d, t, t + d])
    _, q, _, _, w = law_states(model, state, law, times, friction, coords)
    A, _ = effort_matrix(model, q, kept)
    sing = classify(model, A[1], w[1])
    if sing.relative > CRITERION_TOL:
        raise _refusal(model, sing, t, q[1])
    U, _, Vt = np.linalg.svd(A[1])
    u, v = U[:, -1], Vt[-1]
    x0 = np.linalg.lstsq(A[1], w[1] - u * (u @ w[1]), rcond=1e-10)[0]
    dA, dw = (A[2] - A[0]) / (2 * d), (w[2] - w[0]) / (2 * d)
    return x0 + v * (u @ dw - u @ dA @ x0) / (u @ dA @ v)


def _refusal(model, sing, t, q):
    n_t = model.layout.n_t
    book = "t_s^T w_d = 0 (9.11)" if sing.kind == "Type 2" else "qd_d^s^T tau_td = 0 (9.15)"
    return SingularConfigurationError(
        f"{model.name}: {sing.kind} singularity at t = {t:.6g} s, x_p = "
        f"{np.round(q[n_t:], 6).tolist()}: the criterion {book} is not met "
        f"(|n^T w| / |w| = {sing.relative:.3g}); the efforts are infinite there: plan the "
        "law with plan_crossing (flexpkm plan --cross)", matrix="[E_a; J]", where=sing.kind,
        cond=1 / max(sing.rcond, 1e-300))


def _crossings(model, state, law, t, measure, kept, friction, coords):
    """Check the criterion where the measure changes sign between samples
    (a crossing the samples step over); raise when it is not met."""
    from scipy.optimize import brentq
    for k in np.flatnonzero(measure[:-1] * measure[1:] < 0):
        def f(s):
            return singular_measure(effort_matrix(model, state(law(np.array([s]))[0]), kept)[0])[0]
        ts = brentq(f, t[k], t[k + 1], xtol=1e-14 * law.duration)
        _, q, _, _, w = law_states(model, state, law, np.array([ts]), friction, coords)
        sing = classify(model, effort_matrix(model, q, kept)[0][0], w[0])
        if sing.relative > CRITERION_TOL:
            raise _refusal(model, sing, ts, q[0])


def law_inverse_dynamics(model, state, law, rate=1000.0, friction=True, coords=None) -> IdmResult:
    """Rigid IDM along a law of n_dof coordinates (the platform's by
    default), through Type 2 and LPJTS singularities that the law crosses
    with the criterion met ((9.1)-(9.3) with the criteria (9.11), (9.15);
    the module doc).

    model : Model or Robot (rigid, no actuation redundancy); state :
    ``values (m, k) -> q_tot (m, n_tot)`` (a closed-form geometric model,
    one working mode); law : callable ``t (m,) -> (x, xd, xdd)`` each
    (m, k) with a ``duration`` (s), e.g. a
    :class:`flexpkm.analysis.polynomial_laws.PolynomialLaw` or
    :attr:`CrossingPlan.law`; rate : Hz, both ends sampled; coords : the
    law's q_tot columns (default the platform's, :func:`law_states`).
    Returns an :class:`flexpkm.analysis.idm.IdmResult` (``x_p`` the
    platform coordinates; no ground reactions nor energies). Samples with
    ``rcond(A) < RCOND_LIMIT`` get the limit.
    Raises :class:`SingularConfigurationError` where the law crosses a
    singularity without meeting the criterion (the unplanned quintic), and
    :class:`InvalidArgumentError` for a bad rate or robot."""
    model = build_model(model)
    if not rate > 0:
        raise InvalidArgumentError(f"the sampling rate ({rate} Hz) must be positive")
    t = np.linspace(0.0, law.duration, int(round(law.duration * rate)) + 1)
    layout = model.layout
    act = np.array(layout.actuated, dtype=int)
    out = {k: [] for k in ("x", "q", "qd", "qdd", "tau", "m")}
    kept = effort_matrix(model, state(law(t[:1])[0]))[1]
    for lo in range(0, len(t), CHUNK):
        tc = t[lo:lo + CHUNK]
        _, q, qd, qdd, w = law_states(model, state, law, tc, friction, coords)
        A, _ = effort_matrix(model, q, kept)
        S = np.linalg.svd(A, compute_uv=False)
        bad = S[:, -1] < RCOND_LIMIT * S[:, 0]
        sol = np.zeros_like(w)
        ok = ~bad
        sol[ok] = np.linalg.solve(A[ok], w[ok, :, None])[..., 0]
        for k in np.flatnonzero(bad):
            sol[k] = _limit(model, state, law, tc[k], kept, friction, coords)
        values = (q[:, layout.n_t:], q[:, act], qd[:, act], qdd[:, act], sol[:, :len(act)],
                  singular_measure(A))
        for key, val in zip(out, values):
            out[key].append(val)
    out = {k: np.concatenate(v) for k, v in out.items()}
    _crossings(model, state, law, t, out["m"], kept, friction, coords)
    return IdmResult(t=t, x_p=out["x"], q_a=out["q"], qd_a=out["qd"], qdd_a=out["qdd"],
                     tau=out["tau"], names=tuple(layout.names[i] for i in act),
                     backend="numpy", backend_reason="crossing: numpy only")
