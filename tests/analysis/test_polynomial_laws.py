"""Polynomial laws through conditions (Appendix D, n_c > 6): against the
closed-form quintic (D.13) and the book's printed polynomials of Chapter 9."""
import numpy as np
import pytest

from flexpkm.analysis.polynomial_laws import polynomial_law, rest_to_rest
from flexpkm.analysis.trajectories import quintic
from flexpkm.errors import InvalidArgumentError


def test_rest_to_rest_is_the_quintic():
    t = np.linspace(0.0, 1.5, 31)
    law = rest_to_rest([0.0, 0.338], [0.1, 0.1], 1.5)
    s, ds, dds = quintic(t / 1.5)
    delta = np.array([0.1, -0.238])
    x, xd, xdd = law(t)
    np.testing.assert_allclose(x, [0.0, 0.338] + s[:, None] * delta, atol=1e-14)
    np.testing.assert_allclose(xd, ds[:, None] * delta / 1.5, atol=1e-13)
    np.testing.assert_allclose(xdd, dds[:, None] * delta / 1.5 ** 2, atol=1e-12)
    assert law.degree == 5


def test_book_quintics_945_946():
    """(9.45)-(9.46): x = 0.296296 t^3 - 0.296296 t^4 + 0.079012 t^5,
    y = 0.338175 - 0.705704 t^3 + 0.705704 t^4 - 0.188188 t^5."""
    law = rest_to_rest([0.0, 0.338175], [0.1, 0.1], 1.5)
    per_t = law.coefficients.T / 1.5 ** np.arange(6)
    np.testing.assert_allclose(per_t[0, 3:], [0.296296, -0.296296, 0.079012], atol=6e-7)
    np.testing.assert_allclose(per_t[1, 3:], [-0.705704, 0.705704, -0.188188], atol=6e-7)


def test_interior_conditions_give_the_book_eighth_degree_9117():
    """(9.113)-(9.115) (velocity and acceleration at t_s swapped in print,
    docs/crossing.md) give the eighth degree (9.117) to its printed
    conditions' digits: within 2e-5 m of it over [0, 1] s."""
    law = rest_to_rest([0.33818], [0.08782], 1.0,
                       [(0.5, 0, 0.20213), (0.5, 1, -0.69324), (0.5, 2, 0.14709)])
    book = np.array([0.33818, 0, 0, 3.05172, -23.59052, 43.55897, -26.66084, -0.25459, 3.64490])
    t = np.linspace(0, 1, 101)
    assert law.degree == 8
    assert np.abs(law(t)[0][:, 0] - np.polynomial.polynomial.polyval(t, book)).max() < 2e-5
    for k, v in ((0, 0.20213), (1, -0.69324), (2, 0.14709)):
        assert law.derivative([0.5], k)[0, 0] == pytest.approx(v, abs=1e-12)


def test_outside_the_law_it_rests():
    law = rest_to_rest([0.0], [1.0], 2.0)
    x, xd, xdd = law([-1.0, 3.0])
    np.testing.assert_allclose(x[:, 0], [0.0, 1.0], atol=1e-14)
    assert not xd.any() and not xdd.any()


@pytest.mark.parametrize("duration,conditions", [
    (0.0, [(0.0, 0, [0.0])]),
    (1.0, [(2.0, 0, [0.0])]),
    (1.0, [(0.5, 3, [0.0])]),
    (1.0, [(0.0, 0, [0.0]), (0.0, 0, [1.0])]),
    (1.0, [(0.0, 0, [0.0]), (1.0, 0, [1.0, 2.0])]),
    (1.0, [])])
def test_bad_conditions_refused(duration, conditions):
    with pytest.raises(InvalidArgumentError):
        polynomial_law(duration, conditions)
