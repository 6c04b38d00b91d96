"""plan_crossing on the five-bar of Section 9.4: the book's crossing
(t_s = 0.75 s at (0.0543, 0.200) m) and the criterion met by the law."""
import numpy as np
import pytest

from flexpkm.analysis.crossing_plan import path_crossing, plan_crossing
from flexpkm.errors import InvalidArgumentError

from .crossing_cases import P0, PF, TF, five_bar  # noqa: F401 (a fixture)


def _collinear(x, y):
    """A12, P, A22 aligned (Fig. 9.2), from the closed-form IGM (7.15)."""
    from flexpkm.cases import rigid_five_bar as fb
    q = fb.inverse_geometric_model(x, y)
    a12 = np.array([-0.14, 0]) + 0.213 * np.array([np.cos(q["q11"]), np.sin(q["q11"])])
    a22 = np.array([0.14, 0]) + 0.213 * np.array([np.cos(q["q21"]), np.sin(q["q21"])])
    u, v = np.array([x, y]) - a12, np.array([x, y]) - a22
    return (u[0] * v[1] - u[1] * v[0]) / (np.linalg.norm(u) * np.linalg.norm(v))


def test_book_crossing_time_and_point(five_bar):
    """The book's t_s = 0.75 s and y = 0.200 m, x found on the locus:
    0.05441 m (book 0.0543; its own (9.53) gives 0.054342 at 0.75 s), a
    point where A12, P, A22 are aligned to 1e-12."""
    plan = plan_crossing(*five_bar, P0, PF, TF, crossing_time=0.75, through=[np.nan, 0.2])
    assert plan.t_s == 0.75 and plan.x_s[1] == 0.2
    assert plan.x_s[0] == pytest.approx(0.0543, abs=1.5e-4)
    assert abs(_collinear(*plan.x_s)) < 1e-12
    np.testing.assert_allclose(plan.law.derivative([0.75], 0)[0], plan.x_s, atol=1e-14)
    np.testing.assert_allclose(plan.law.derivative([0.75], 2)[0], plan.xdd_s, atol=1e-11)
    assert abs(plan.criterion) < 1e-12 < abs(plan.unplanned)
    assert plan.law.degree == 8


def test_default_crossing_is_where_the_straight_path_meets_the_locus(five_bar):
    """The path's root of the measure is the closed form's collinearity;
    the time is the quintic's there."""
    model, state = five_bar
    s, _ = path_crossing(model, state, np.array(P0), np.array(PF))
    x = np.array(P0) + s * (np.array(PF) - P0)
    assert abs(_collinear(*x)) < 1e-12
    plan = plan_crossing(model, state, P0, PF, TF)
    np.testing.assert_allclose(plan.x_s, x, atol=1e-15)
    np.testing.assert_allclose(plan.quintic.derivative([plan.t_s], 0)[0], x, atol=1e-12)
    assert plan.t_s == pytest.approx(0.8183, abs=1e-4)


@pytest.mark.parametrize("kw,stop", [
    ({}, [0.05, 0.28]),                                   # no singularity on the path
    ({"crossing_time": 1.5}, PF),
    ({"through": [0.05, 0.2]}, PF),                       # nothing left free
    ({"through": [np.nan]}, PF)])
def test_bad_plans_refused(five_bar, kw, stop):
    with pytest.raises(InvalidArgumentError):
        plan_crossing(*five_bar, P0 if kw or stop != [0.05, 0.28] else [0.0, 0.22], stop, TF, **kw)
