"""Converged time steps, shared by the numpy and the compiled simulation.

Every HHT step iterates Newton until the residual of the equation of motion,
relative to the step's forces, is at most ``tol``
(:func:`flexpkm.analysis.hht.relative_residual`), within ``iterations``
model evaluations. An output sample (``n_sub`` steps of h) holding a step
that does not converge (or diverges) is computed again from its start with
steps of h/2, then h/4, ... (at most :data:`MAX_HALVINGS` times); the next
sample goes back to h. A sample that does not converge with h /
2^MAX_HALVINGS stops the run with :class:`flexpkm.errors.StepConvergenceError`
(the time, the residual reached and the tolerance).

The whole sample is redone, not only the failed step, so that both backends
(the compiled one runs the steps of a sample in one call) take the same
steps and give the same numbers.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from flexpkm.errors import InvalidArgumentError, StepConvergenceError

#: a sample whose steps do not converge is redone with h/2, h/4, ... at most
#: this many times
MAX_HALVINGS = 4
#: largest Newton iteration limit accepted
MAX_ITERATIONS = 100
#: Newton's relative residual tolerance and iteration limit by default
DEFAULT_TOL = 1e-6
DEFAULT_ITERATIONS = 8


def check_newton(tol, iterations):
    """``(tol, iterations)`` checked (defaults for None): tol a finite float
    in (0, 1), iterations a whole number in [1, MAX_ITERATIONS]; raises
    :class:`flexpkm.errors.InvalidArgumentError` naming the argument."""
    tol = DEFAULT_TOL if tol is None else tol
    iterations = DEFAULT_ITERATIONS if iterations is None else iterations
    if isinstance(tol, bool) or not isinstance(tol, (int, float, np.number)) \
            or not 0 < tol < 1:
        raise InvalidArgumentError(f"simulate: tol (Newton's residual relative to the step's "
                                   f"forces) must be a number in (0, 1), got {tol!r}")
    if isinstance(iterations, bool) or not isinstance(iterations, (int, np.integer)) \
            or not 1 <= iterations <= MAX_ITERATIONS:
        raise InvalidArgumentError(f"simulate: iterations (Newton's limit per step) must be a "
                                   f"whole number in [1, {MAX_ITERATIONS}], got {iterations!r}")
    return float(tol), int(iterations)


@dataclass
class StepLog:
    """What the steps of a run cost: Newton ``iterations`` (model
    evaluations, failed attempts included) and ``retried_steps`` (steps
    computed again with a smaller step: the steps of each redone sample)."""

    iterations: int = 0
    retried_steps: int = 0


@dataclass(frozen=True)
class Attempt:
    """One attempt at a sample: ``result`` (what the backend carries on
    with), ``residual`` the largest relative residual of its steps,
    ``iterations``, and ``failed_at`` the time of its first step that did
    not converge (None: all converged)."""

    result: object
    residual: float
    iterations: int
    failed_at: float = None


def converged_sample(advance, n_sub, h, tol, log: StepLog):
    """``(result, residual)`` of the first converged attempt at a sample:
    ``advance(level) -> Attempt`` computes it with ``n_sub 2^level`` steps
    of ``h / 2^level`` from the sample's start, for level = 0, 1, ...,
    MAX_HALVINGS. Counts into ``log``; raises StepConvergenceError (without
    ``partial``; the driver adds it) when the last level fails too."""
    for level in range(MAX_HALVINGS + 1):
        attempt = advance(level)
        log.iterations += attempt.iterations
        if attempt.failed_at is None:
            return attempt.result, attempt.residual
        log.retried_steps += n_sub << level
    residual = attempt.residual
    raise StepConvergenceError(
        f"the time step does not converge at t = {attempt.failed_at:.6g} s: Newton's relative "
        f"residual {residual:.3g} > tol = {tol:g} with the step halved {MAX_HALVINGS} times "
        f"(h = {h / (1 << MAX_HALVINGS):.3g} s); a smaller step, a larger tol or more "
        "iterations may help", attempt.failed_at, residual, tol)
