"""The Savitzky-Golay differentiator of a measurement against scipy's
savgol_filter (an independent implementation) and exact on polynomials."""
import numpy as np
import pytest
from scipy.signal import savgol_filter

from flexpkm.errors import InvalidArgumentError
from flexpkm.identification.data import Measurement, differentiate, savitzky_golay


@pytest.mark.parametrize("window, order", [(21, 4), (11, 2), (7, 3)])
def test_equals_scipy(window, order):
    x = np.random.default_rng(window).normal(size=(150, 3)).cumsum(axis=0)
    for k in range(3):
        ours = savitzky_golay(x, window, order, k, 0.002)
        ref = savgol_filter(x, window, order, deriv=k, delta=0.002, axis=0, mode="interp")
        assert np.abs(ours - ref).max() <= 1e-10 * np.abs(ref).max()


def test_exact_on_a_polynomial():
    t = np.arange(300) * 1e-3
    q = np.column_stack([1 + 2 * t - 3 * t ** 2 + 0.5 * t ** 4, np.full_like(t, 0.3)])
    data = Measurement(t, q, np.zeros_like(q), ("q1", "q2"))
    pos, vel, acc = differentiate(data)
    assert np.allclose(pos, q, atol=1e-12)
    assert np.allclose(vel[:, 0], 2 - 6 * t + 2 * t ** 3, atol=1e-9)
    assert np.allclose(acc[:, 0], -6 + 6 * t ** 2, atol=1e-6) and np.allclose(acc[:, 1], 0)
    with pytest.raises(InvalidArgumentError, match="must be odd"):
        differentiate(data, window=20)
