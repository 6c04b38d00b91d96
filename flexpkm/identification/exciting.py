"""Exciting trajectories for identification: a finite Fourier series of
each actuated coordinate (Swevers et al. 1997), periodic, starting at rest
position ``q0`` (the reference configuration), whose coefficients minimise
the condition number of the observation matrix of the base parameters
(Gautier & Khalil 1992; Briot & Gautier 2014)::

    q_j(t) = q0_j + sum_l a_jl sin(l w t) + b_jl (1 - cos(l w t)),  w = 2 pi / period

Each coordinate's excursion ``max_t |q_j - q0_j|`` is scaled to
``amplitude`` (m or rad), so the optimiser searches the shape only: a
(1+1) evolution strategy with the one-fifth success rule (Rechenberg 1973;
robust to the criterion's kinks and to the shapes that leave the
workspace, whose criterion is infinite), within a budget of evaluations. The criterion is
``cond(W_b)`` of the base columns over one period sampled at ``samples``
points (:mod:`flexpkm.identification.base`).

:func:`simulate_measurement` makes the measurement of such a trajectory
with the present IDM plus Gaussian noise: the test data of identification.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from flexpkm.algorithms.assembly import reference_configuration
from flexpkm.algorithms.dynamics import full_dynamics, inverse_dynamics
from flexpkm.algorithms.reference import build_model
from flexpkm.errors import FlexPKMError, InvalidArgumentError
from flexpkm.identification.base import BaseParameters, base_parameters
from flexpkm.identification.data import Measurement, actuator_names
from flexpkm.identification.path import assemble_path
from flexpkm.identification.regressor import actuated_order, regressor, require_rigid

#: random starts tried for one inside the workspace
STARTS = 20


@dataclass(frozen=True, eq=False)
class ExcitingTrajectory:
    """A Fourier-series trajectory of the actuated coordinates (see the
    module): q0 (n_a,), a and b (n_a, L) in m or rad, period in s;
    cond : the criterion reached (cond of the base observation matrix)."""

    q0: np.ndarray
    a: np.ndarray
    b: np.ndarray
    period: float
    names: tuple
    cond: float = float("nan")

    def states(self, t):
        """``(q_a, qd_a, qdd_a)`` (n, n_a) at times ``t`` (n,), s."""
        t = np.atleast_1d(np.asarray(t, float))
        w = 2 * np.pi / self.period * np.arange(1, self.a.shape[1] + 1)      # (L,)
        s, c = np.sin(t[:, None] * w), np.cos(t[:, None] * w)                 # (n, L)
        q = self.q0 + s @ self.a.T + (1 - c) @ self.b.T
        qd = (c * w) @ self.a.T + (s * w) @ self.b.T
        qdd = -(s * w ** 2) @ self.a.T + (c * w ** 2) @ self.b.T
        return q, qd, qdd


def _shaped(q0, x, period, amplitude, names, t):
    """The trajectory of raw coefficients ``x`` scaled to the excursion ``amplitude``."""
    n_a = len(q0)
    ab = np.asarray(x, float).reshape(n_a, 2, -1)
    raw = ExcitingTrajectory(q0, ab[:, 0], ab[:, 1], period, names)
    dev = np.abs(raw.states(t)[0] - q0).max(axis=0)
    k = (amplitude / np.where(dev > 0, dev, 1.0))[:, None]
    return ExcitingTrajectory(q0, ab[:, 0] * k, ab[:, 1] * k, period, names)


def criterion(model, trajectory, base: BaseParameters, samples=40) -> float:
    """``cond(W_b)`` over one period at ``samples`` points (inf when a
    sample does not assemble)."""
    t = np.arange(samples) * trajectory.period / samples
    q, qd, qdd = trajectory.states(t)
    try:
        q_tot = assemble_path(model, q, stride=max(2, samples // 8))
    except FlexPKMError:
        return np.inf
    W = regressor(model, q_tot, qd, qdd)[..., base.base]
    return float(np.linalg.cond(np.swapaxes(W, 0, 1).reshape(-1, base.n_b)))


def _one_plus_one(cost, x, budget, rng, step=0.3):
    """The best ``x`` of ``budget`` Gaussian mutations (step adapted by the
    one-fifth rule: x 1.5 on a success, x 1.5^-1/4 on a failure)."""
    fx = cost(x)
    for _ in range(budget):
        trial = x + step * rng.standard_normal(len(x))
        ft = cost(trial)
        if ft < fx:
            x, fx, step = trial, ft, step * 1.5
        else:
            step *= 1.5 ** -0.25
    return x


def exciting_trajectory(model, period=2.0, harmonics=3, amplitude=0.02, samples=40,
                        evaluations=60, seed=0, base=None) -> ExcitingTrajectory:
    """An optimised exciting trajectory (see the module).

    model : Model or Robot (rigid); period : s; harmonics : L;
    amplitude : excursion of each actuated coordinate (m or rad, scalar or
    (n_a,)) from the reference configuration; samples : per period for the
    criterion; evaluations : budget of criterion evaluations; seed : of
    the random start; base : :class:`BaseParameters` (default computed).
    Returns :class:`ExcitingTrajectory` with its ``cond``. Raises
    :class:`InvalidArgumentError` for bad arguments or when no start assembles.
    """
    model = build_model(model)
    require_rigid(model, "exciting_trajectory")
    if not (period > 0 and int(harmonics) >= 1 and np.all(np.asarray(amplitude) > 0)
            and int(samples) >= 4 and int(evaluations) >= 1):
        raise InvalidArgumentError("exciting_trajectory: period, harmonics, amplitude, samples "
                                   "and evaluations must be positive (samples >= 4)")
    base = base or base_parameters(model)
    names = actuator_names(model)
    q0 = reference_configuration(model)[list(model.layout.actuated)]
    t = np.linspace(0.0, period, 4 * samples, endpoint=False)
    rng = np.random.default_rng(seed)
    shaped = lambda x: _shaped(q0, x, period, amplitude, names, t)
    cost = lambda x: np.log(criterion(model, shaped(x), base, samples))
    for _ in range(STARTS):                 # a start inside the workspace
        x0 = rng.standard_normal(len(q0) * 2 * int(harmonics))
        if np.isfinite(cost(x0)):
            break
    else:
        raise InvalidArgumentError(f"exciting_trajectory: {STARTS} random starts leave "
                                   f"{model.name}'s workspace; give a smaller amplitude than "
                                   f"{amplitude}")
    best = shaped(_one_plus_one(cost, x0, int(evaluations) - 1, rng))
    return ExcitingTrajectory(best.q0, best.a, best.b, period, names,
                              cond=criterion(model, best, base, samples))


def simulate_measurement(model, trajectory: ExcitingTrajectory, duration=None, rate=200.0,
                         noise=0.01, seed=0, friction=True) -> Measurement:
    """The measurement of ``trajectory`` (``duration`` s, default one period,
    at ``rate`` Hz) by the present IDM (:func:`flexpkm.inverse_dynamics`)
    with Gaussian noise of standard deviation ``noise`` times each
    actuator's rms effort (``seed`` fixed)."""
    model = build_model(model)
    duration = trajectory.period if duration is None else duration
    t = np.arange(int(round(duration * rate)) + 1) / rate
    q, qd, qdd = trajectory.states(t)
    q_tot = assemble_path(model, q)
    probe = full_dynamics(model, q_tot[:1], 0.0)
    order = actuated_order(probe, model)
    perm = np.argsort(order)
    full = full_dynamics(model, q_tot, qd[:, perm], dep=probe.dep, friction=friction)
    tau = inverse_dynamics(full, qdd[:, perm])[0][:, order]
    rms = np.sqrt(np.mean(tau ** 2, axis=0))
    tau = tau + noise * rms * np.random.default_rng(seed).standard_normal(tau.shape)
    return Measurement(t, q, tau, trajectory.names)
