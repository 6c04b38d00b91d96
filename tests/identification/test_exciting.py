"""Exciting trajectories: the Fourier series and its derivatives, the
excursion, and the optimisation lowering cond(W_b)."""
import numpy as np
import pytest

import flexpkm as fp
from flexpkm import cases
from flexpkm.errors import InvalidArgumentError
from flexpkm.identification.base import base_parameters
from flexpkm.identification.exciting import ExcitingTrajectory, criterion, exciting_trajectory


def test_fourier_series_derivatives_and_period():
    rng = np.random.default_rng(0)
    tr = ExcitingTrajectory(np.array([0.1, -0.2]), rng.normal(size=(2, 3)),
                            rng.normal(size=(2, 3)), 0.7, ("a", "b"))
    t = np.linspace(0, 0.7, 701)
    q, qd, qdd = tr.states(t)
    h = 1e-6
    assert np.allclose((tr.states(t + h)[0] - tr.states(t - h)[0]) / (2 * h), qd, atol=1e-6)
    assert np.allclose((tr.states(t + h)[1] - tr.states(t - h)[1]) / (2 * h), qdd, atol=1e-5)
    assert np.allclose(q[0], tr.q0) and np.allclose(q[-1], q[0]) and np.allclose(qd[-1], qd[0])


def test_optimisation_lowers_the_condition_number():
    model = fp.build_model(fp.load_robot(cases.file_of("rigid_five_bar")))
    bp = base_parameters(model)
    start = exciting_trajectory(model, period=1.0, amplitude=0.03, evaluations=1, samples=24, base=bp)
    best = exciting_trajectory(model, period=1.0, amplitude=0.03, evaluations=6, samples=24, base=bp)
    assert best.cond < start.cond
    assert best.cond == pytest.approx(criterion(model, best, bp, samples=24), rel=1e-12)
    q = best.states(np.linspace(0, 1.0, 400))[0]
    assert np.allclose(np.abs(q - best.q0).max(axis=0), 0.03, rtol=0.02)   # the excursion
    with pytest.raises(InvalidArgumentError, match="must be positive"):
        exciting_trajectory(model, period=-1.0, base=bp)
