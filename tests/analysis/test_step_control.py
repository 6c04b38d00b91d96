"""Converged steps (flexpkm/analysis/step_control.py): Newton's arguments
are checked, a sample that does not converge is redone with halved steps
and the run stops with StepConvergenceError after the last halving."""
import numpy as np
import pytest

from flexpkm.analysis.step_control import (DEFAULT_ITERATIONS, DEFAULT_TOL, MAX_HALVINGS,
                                           MAX_ITERATIONS, Attempt, StepLog, check_newton,
                                           converged_sample)
from flexpkm.errors import InvalidArgumentError, StepConvergenceError


def test_newton_defaults():
    assert check_newton(None, None) == (DEFAULT_TOL, DEFAULT_ITERATIONS) == (1e-6, 8)
    assert check_newton(1e-12, np.int64(40)) == (1e-12, 40)


@pytest.mark.parametrize("tol, iterations, match", [
    (0.0, 8, "tol"), (-1e-6, 8, "tol"), (1.0, 8, "tol"), (float("nan"), 8, "tol"),
    (float("inf"), 8, "tol"), ("1e-6", 8, "tol"), (True, 8, "tol"),
    (1e-6, 0, "iterations"), (1e-6, -2, "iterations"), (1e-6, 2.5, "iterations"),
    (1e-6, True, "iterations"), (1e-6, MAX_ITERATIONS + 1, "iterations"), (1e-6, "8", "iterations"),
])
def test_bad_newton_arguments_are_refused(tol, iterations, match):
    with pytest.raises(InvalidArgumentError, match=match):
        check_newton(tol, iterations)


def test_simulate_refuses_zero_iterations():
    """Used to end in a traceback (issue 16, item 8)."""
    from flexpkm import cases
    from flexpkm.analysis.simulate import simulate
    robot, q0, drive, _ = cases.get("dualemps").simulation("edge", "prescribed", {})
    for kw in (dict(iterations=0), dict(tol=0.0), dict(tol=float("nan"))):
        with pytest.raises(InvalidArgumentError):
            simulate(robot, q0, 0.002, drive, **kw)


def fake(converges_at, n_sub=4):
    """``advance(level)`` that converges from level ``converges_at`` on;
    records the levels asked for."""
    asked = []

    def advance(level):
        asked.append(level)
        if level >= converges_at:
            return Attempt(("state", level), 1e-8, 3 * (n_sub << level))
        return Attempt(None, 0.5, 8 * (n_sub << level), failed_at=0.01 + level)
    return advance, asked


def test_a_sample_is_redone_with_halved_steps_until_it_converges():
    advance, asked = fake(2)
    log = StepLog()
    result, residual = converged_sample(advance, 4, 1e-3, 1e-6, log)
    assert result == ("state", 2) and residual == 1e-8 and asked == [0, 1, 2]
    assert log.retried_steps == 4 + 8                         # the steps thrown away
    assert log.iterations == 8 * 4 + 8 * 8 + 3 * 16


def test_a_sample_that_never_converges_stops_the_run():
    advance, asked = fake(99)
    log = StepLog()
    with pytest.raises(StepConvergenceError, match=r"t = 4\.01 s.*0\.5 > tol = 1e-06") as e:
        converged_sample(advance, 4, 1e-3, 1e-6, log)
    assert asked == list(range(MAX_HALVINGS + 1))
    assert (e.value.t, e.value.residual, e.value.tol, e.value.partial) == (4.01, 0.5, 1e-6, None)
    assert log.retried_steps == 4 * (2 ** (MAX_HALVINGS + 1) - 1)
