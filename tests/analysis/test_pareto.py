"""Pareto fronts (flexpkm.analysis.pareto): the flexible five-bar's worst f1
vs mass over its proximal and distal section sides at one pose. Checks:
every epsilon-constraint point is a KKT point of its problem and no point
of a local grid around it on the feasible side is better; the NSGA-II
front (pymoo, a small population) and the epsilon-constraint front do not
dominate each other beyond tolerance; the table and the picture; the
refusals (pymoo absent: one line naming the extra)."""
import csv
import json
import sys

import numpy as np
import pytest

from flexpkm.analysis.pareto import (Front, dominance_margin, epsilon_front, nsga2_front,
                                     plot_fronts)
from flexpkm.errors import InvalidArgumentError, MissingDependencyError
from tests.analysis.optimisation_cases import five_bar_problem

pytest.importorskip("casadi")


@pytest.fixture(scope="module")
def problem():
    return five_bar_problem(poses=[[0.15, 0.3]])


@pytest.fixture(scope="module")
def front(problem):
    return epsilon_front(problem, 4)


def test_front_ends_and_order(problem, front):
    assert front.success.all() and front.values.shape == (4, 2)
    # the lightest design: every side at its lower bound (the mass grows with both)
    assert front.x[0] == pytest.approx(problem.lower)
    assert front.values[0, 1] == pytest.approx(problem.mass(problem.lower), rel=1e-9)
    # along the front: more mass buys more f1
    assert (np.diff(front.values, axis=0) > 0).all()
    assert np.isnan(front.limits[[0, -1]]).all()


def test_epsilon_points_are_kkt_points(problem, front):
    # interior points: the mass limit active, grad f1 = lam grad m on the
    # free sides (lam > 0), and a side at its lower bound would not pay
    for x, limit in zip(front.x[1:-1], front.limits[1:-1]):
        ev = problem.evaluate(x)
        assert ev.mass == pytest.approx(limit, rel=1e-6)
        g, a = ev.df[0, 0], ev.dmass
        free = (x > problem.lower * (1 + 1e-6)) & (x < problem.upper * (1 - 1e-6))
        lam = g[free] @ a[free] / (a[free] @ a[free])
        assert lam > 0
        if free.sum() == 2:
            assert g == pytest.approx(lam * a, rel=1e-4)
        assert (g[~free] - lam * a[~free] <= 1e-9 * abs(lam * a[~free])).all()


def test_epsilon_points_not_beaten_by_a_local_grid(problem, front):
    # a 3 x 3 grid of +-1 % around each interior point: no feasible point
    # better than the point by more than the grid's resolution
    for x, (f1, _), limit in zip(front.x[1:-1], front.values[1:-1], front.limits[1:-1]):
        df = problem.evaluate(x).df[0, 0]
        steps = 0.01 * x
        for a in (-1, 0, 1):
            for b in (-1, 0, 1):
                y = np.clip(x + steps * [a, b], problem.lower, problem.upper)
                if problem.values(y, "mass")[0] <= limit:
                    assert problem.values(y, "min_f1")[0] <= f1 + 1e-3 * np.abs(df) @ steps


def test_nsga2_and_epsilon_fronts_agree(problem, front):
    pytest.importorskip("pymoo")
    nsga = nsga2_front(problem, population=12, generations=8, seed=1)
    assert nsga.method == "nsga2" and len(nsga.x) >= 4
    assert ((nsga.x >= problem.lower) & (nsga.x <= problem.upper)).all()
    # no NSGA-II design beats an epsilon-constraint design (the gradient
    # method's optima), and the small population is within 5 % of them
    assert dominance_margin(nsga, front) < 1e-3
    assert dominance_margin(front, nsga) < 0.05


def test_dominance_margin_by_hand():
    a = Front(criteria=("min_f1", "mass"), method="a", names=("p",), x=np.zeros((1, 1)),
              values=np.array([[10.0, 1.0]]), success=np.ones(1, bool))
    b = Front(criteria=("min_f1", "mass"), method="b", names=("p",), x=np.zeros((2, 1)),
              values=np.array([[9.0, 1.1], [11.0, 0.9]]), success=np.ones(2, bool))
    # a beats b[0] by min(1/9, 0.1/1.1) = 0.0909; b[1] beats a by 0.1 in both
    assert dominance_margin(a, b) == pytest.approx(0.1 / 1.1)
    assert dominance_margin(b, a) == pytest.approx(0.1)


def test_table_and_picture(front, tmp_path):
    front.write(tmp_path / "f.csv")
    front.write(tmp_path / "f.json")
    rows = list(csv.DictReader((tmp_path / "f.csv").open(encoding="utf-8")))
    assert [float(r["min_f1"]) for r in rows] == pytest.approx(front.values[:, 0], rel=1e-12)
    data = json.loads((tmp_path / "f.json").read_text(encoding="utf-8"))
    assert data["units"] == {"min_f1": "Hz", "mass": "kg"} and len(data["points"]) == 4
    pytest.importorskip("matplotlib")
    assert plot_fronts([front], tmp_path / "f.png").stat().st_size > 1000


def test_refusals(problem, monkeypatch):
    with pytest.raises(InvalidArgumentError, match="at least 2"):
        epsilon_front(problem, 1)
    with pytest.raises(InvalidArgumentError, match="two different criteria"):
        epsilon_front(problem, 3, ("mass", "mass"))
    with pytest.raises(InvalidArgumentError, match="cannot be limited"):
        epsilon_front(problem, 3, constraints={"mass": 2.0})
    monkeypatch.setitem(sys.modules, "pymoo", None)
    monkeypatch.setitem(sys.modules, "pymoo.core", None)
    monkeypatch.setitem(sys.modules, "pymoo.core.problem", None)
    with pytest.raises(MissingDependencyError, match=r"flexpkm\[optimise\]"):
        nsga2_front(problem)
