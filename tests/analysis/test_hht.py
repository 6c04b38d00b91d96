"""The HHT step's Newton iterations (flexpkm/analysis/hht.py): the relative
residual, convergence in one correction when the iteration matrix is the
exact derivative, and an honest report on a nonlinear problem."""
from types import SimpleNamespace

import numpy as np
import pytest

from flexpkm.analysis.hht import HHT, Evaluation, StepState, hht_step, relative_residual


def test_relative_residual_scales_each_force_by_its_own_size():
    res, inertial = np.array([1e-6, -2e-6]), np.array([0.0, 0.0])
    forces = np.array([[5.0, -1.0],                     # c: gravity ...
                       [-5.0, 1.0],                     # ... held by the efforts: g = 0
                       [0.0, 0.0]])
    assert relative_residual(res, inertial, forces) == pytest.approx(2e-6 / 10)
    assert relative_residual(np.zeros(2), inertial, 0 * forces) == 0.0
    assert relative_residual(res, inertial, 0 * forces) == np.inf
    assert relative_residual(np.array([np.nan, 0.0]), inertial, forces) == np.inf
    assert relative_residual(np.zeros(0), np.zeros(0), np.zeros((3, 0))) == 0.0


def oscillator(k3=0.0, m=2.0, k=800.0):
    """``m x'' + k x + k3 x^3 = 0``; the iteration matrix has only k (the
    cubic term's derivative is left out, as the full model leaves out
    d c / d q)."""
    model = SimpleNamespace(J=np.eye(1), b=np.zeros(1), M=np.array([[m]]))

    def evaluate(t, q, v):
        f = k * q + k3 * q ** 3
        return Evaluation(model, f, np.zeros((1, 1)), np.array([[k]]), np.stack([f, 0 * q, k * q]))
    state = StepState(0.0, np.array([1.0]), np.zeros(1), np.array([-(k + k3) / m]),
                      np.array([k + k3]), model)
    return evaluate, state, model


def params(tol, iterations, h=0.01):
    return HHT(h, 0.05, np.array([0]), np.array([], int), np.array([], int), tol=tol,
               iterations=iterations)


def test_exact_iteration_matrix_converges_in_one_correction():
    evaluate, s, _ = oscillator()
    new, info = hht_step(params(1e-12, 8), s, s.a, evaluate)
    assert info.converged and info.iterations == 2 and info.residual < 1e-14
    _, once = hht_step(params(1e-12, 1), s, s.a, evaluate)      # the guess is not the solution
    assert not once.converged and once.iterations == 1 and once.residual > 1e-3


def test_nonlinear_step_meets_its_tolerance_or_says_so():
    """The returned accelerations satisfy the averaged equation of motion
    to tol relative to the forces (checked here from the returned state,
    independently of the step's own residual)."""
    k3 = 3000.0
    evaluate, s, _ = oscillator(k3)
    p = params(1e-10, 30)
    new, info = hht_step(p, s, s.a, evaluate)
    assert info.converged and 2 < info.iterations < 30           # linear convergence
    x = new.q[0]
    f1 = 800.0 * x + k3 * x ** 3                                  # the forces at the returned state
    R = 2.0 * new.a[0] + (1 - p.alpha) * f1 + p.alpha * s.g[0]
    assert abs(R) <= 1e-10 * (abs(2.0 * new.a[0]) + abs(f1) + 800.0 * abs(x))
    _, short = hht_step(params(1e-10, 2), s, s.a, evaluate)
    assert not short.converged and short.residual > 1e-10
