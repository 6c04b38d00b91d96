"""Pareto fronts of two design criteria (issue 21 item 3's option), e.g. the
worst-pose first frequency vs the mass, by two independent methods:

* :func:`epsilon_front` (no extra): the epsilon-constraint method with the
  gradient optimiser (:func:`flexpkm.analysis.optimisation.solve`): the
  range of the second criterion from its own optimum to its value at the
  first criterion's optimum, then the first criterion optimised under
  ``n - 2`` limits evenly spaced in between (each start: the previous
  optimum); every point is a KKT point of its problem.
* :func:`nsga2_front` (the ``optimise`` extra, pymoo): NSGA-II on the
  criteria's values only (no gradients), the non-dominated set of the last
  population.

:func:`dominance_margin` compares two fronts: the largest relative margin by
which a point of one beats a point of the other in both criteria (0 when no
point of B is dominated by one of A). A :class:`Front` writes its table
(CSV, JSON) and :func:`plot_fronts` a picture (matplotlib, ``viz`` extra).
"""
from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from flexpkm.analysis.design_problem import UNITS, DesignProblem, criterion, design_problem
from flexpkm.errors import InvalidArgumentError


@dataclass(repr=False)
class Front:
    """Points of a Pareto front (SI).

    criteria : the two criteria (``("min_f1", "mass")``); method :
        ``"epsilon"`` or ``"nsga2"``; names : the parameters (key paths)
    x : (N, n_p) the designs; values : (N, 2) the criteria's values (worst
        pose), sorted by the second; success : (N,) the optimiser's flag
        (epsilon) or True; limits : (N,) the second criterion's limit of each
        epsilon-constraint problem (NaN at the two ends), None for NSGA-II
    """

    criteria: tuple
    method: str
    names: tuple
    x: np.ndarray
    values: np.ndarray
    success: np.ndarray
    limits: np.ndarray | None = None

    def __repr__(self):
        return (f"Front({self.method}, {len(self.x)} points, {self.criteria[0]} "
                f"{self.values[:, 0].min():.6g}..{self.values[:, 0].max():.6g}, "
                f"{self.criteria[1]} {self.values[:, 1].min():.6g}..{self.values[:, 1].max():.6g})")

    def rows(self) -> list:
        """One dict per point: the criteria, the parameters, success, limit."""
        out = []
        for k in range(len(self.x)):
            row = {"method": self.method, self.criteria[0]: self.values[k, 0],
                   self.criteria[1]: self.values[k, 1]}
            row.update(zip(self.names, self.x[k]))
            row["success"] = bool(self.success[k])
            row["limit"] = None if self.limits is None or np.isnan(self.limits[k]) \
                else float(self.limits[k])
            out.append({k2: (float(v) if isinstance(v, np.floating) else v)
                        for k2, v in row.items()})
        return out

    def write(self, path) -> Path:
        """The table to ``path`` (:func:`write_fronts`)."""
        return write_fronts([self], path)


def write_fronts(fronts, path) -> Path:
    """The points of ``fronts`` (same criteria) as one table: CSV (``.csv``)
    or JSON (any other suffix, with the criteria's units)."""
    path = Path(path)
    rows = [r for f in fronts for r in f.rows()]
    if path.suffix.lower() == ".csv":
        with path.open("w", newline="", encoding="utf-8") as fh:
            w = csv.DictWriter(fh, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)
    else:
        criteria = fronts[0].criteria
        units = {c: UNITS[criterion(c)[0]] for c in criteria}
        path.write_text(json.dumps({"criteria": list(criteria), "units": units,
                                    "points": rows}, indent=1), encoding="utf-8")
    return path


def _sorted(front: Front) -> Front:
    order = np.argsort(front.values[:, 1], kind="stable")
    return Front(criteria=front.criteria, method=front.method, names=front.names,
                 x=front.x[order], values=front.values[order], success=front.success[order],
                 limits=None if front.limits is None else front.limits[order])


def _check(problem, criteria, constraints):
    if len(criteria) != 2 or criteria[0] == criteria[1]:
        raise InvalidArgumentError(f"a front needs two different criteria, got {criteria!r}")
    for name in criteria:
        criterion(name)
        if name in (constraints or {}):
            raise InvalidArgumentError(f"{name}: a criterion of the front cannot be limited")
    if not isinstance(problem, DesignProblem):
        raise InvalidArgumentError("problem: a flexpkm.analysis.design_problem.DesignProblem")


def epsilon_front(problem: DesignProblem, n_points, criteria=("min_f1", "mass"),
                  constraints=None, tol=1e-8, max_iter=100) -> Front:
    """The front of ``criteria`` (a, b) by the epsilon-constraint method
    (module doc): ``n_points`` (>= 2) designs, a optimised under limits on b.

    problem : :class:`flexpkm.analysis.design_problem.DesignProblem` (with
        ``compliance=True`` when a criterion is ``max_compliance``);
    constraints : limits on other criteria (:func:`flexpkm.analysis.
        optimisation.optimise_design`), kept at every point.
    Returns :class:`Front`. Raises :class:`InvalidArgumentError` (criteria,
    ``n_points``)."""
    from flexpkm.analysis.optimisation import solve
    _check(problem, criteria, constraints)
    if int(n_points) < 2:
        raise InvalidArgumentError(f"a front has at least 2 points, got {n_points!r}")
    a, b = criteria
    cons = dict(constraints or {})
    best_a = solve(problem, a, cons, tol=tol, max_iter=max_iter, check=False)
    best_b = solve(problem, b, cons, tol=tol, max_iter=max_iter, check=False)
    ends = (best_a.after.worst(b), best_b.after.worst(b))
    results, limits, start = [best_a], [np.nan], best_a.x
    for limit in np.linspace(*ends, int(n_points))[1:-1]:
        r = solve(problem, a, {**cons, b: float(limit)}, start=start, tol=tol, max_iter=max_iter,
                  check=False)
        results.append(r)
        limits.append(limit)
        start = r.x
    results.append(best_b)
    limits.append(np.nan)
    return _sorted(Front(criteria=tuple(criteria), method="epsilon", names=problem.names,
                         x=np.array([r.x for r in results]),
                         values=np.array([[r.after.worst(a), r.after.worst(b)] for r in results]),
                         success=np.array([r.success for r in results]),
                         limits=np.array(limits, float)))


def nsga2_front(problem: DesignProblem, criteria=("min_f1", "mass"), constraints=None,
                population=40, generations=40, seed=0) -> Front:
    """The front of ``criteria`` by NSGA-II (pymoo, the ``optimise`` extra):
    the non-dominated designs of the last population, the criteria by the
    independent route (:meth:`DesignProblem.criteria`: re-built,
    re-assembled models, no gradients); ``constraints`` as inequality
    constraints. Costs ``population x generations`` model evaluations.
    Returns :class:`Front`. Raises
    :class:`flexpkm.errors.MissingDependencyError` without pymoo,
    :class:`InvalidArgumentError` (criteria, sizes) or when no design
    satisfies the constraints."""
    from flexpkm.optional import require
    _check(problem, criteria, constraints)
    if int(population) < 4 or int(generations) < 1:
        raise InvalidArgumentError("NSGA-II: population >= 4 and generations >= 1, got "
                                   f"{population!r}, {generations!r}")
    pm_problem = require("pymoo.core.problem", "Pareto fronts by NSGA-II")
    nsga2 = require("pymoo.algorithms.moo.nsga2", "Pareto fronts by NSGA-II").NSGA2
    pm_minimize = require("pymoo.optimize", "Pareto fronts by NSGA-II").minimize
    cons = dict(constraints or {})
    names = list(criteria) + list(cons)
    signs = np.array([criterion(n)[2] for n in names])

    def worst(x):
        rows = problem.criteria(x, names)
        return np.array([np.min(rows[n]) if s > 0 else np.max(rows[n])
                         for n, s in zip(names, signs)])

    class _Problem(pm_problem.Problem):
        def _evaluate(self, X, out, *args, **kwargs):
            W = np.array([worst(x) for x in X])
            out["F"] = -signs[:2] * W[:, :2]
            if cons:
                bounds = np.array(list(cons.values()))
                out["G"] = -signs[2:] * (W[:, 2:] - bounds) / np.abs(bounds)

    p = _Problem(n_var=len(problem.lower), n_obj=2, n_ieq_constr=len(cons),
                 xl=problem.lower, xu=problem.upper)
    res = pm_minimize(p, nsga2(pop_size=int(population)), ("n_gen", int(generations)),
                      seed=int(seed), verbose=False)
    if res.X is None:
        raise InvalidArgumentError("NSGA-II: no design of the last population satisfies the "
                                   f"constraints {cons}")
    X = np.atleast_2d(res.X)
    F = np.atleast_2d(res.F)
    return _sorted(Front(criteria=tuple(criteria), method="nsga2", names=problem.names, x=X,
                         values=-signs[:2] * F, success=np.ones(len(X), bool)))


def dominance_margin(A: Front, B: Front) -> float:
    """The largest relative margin by which a point of A beats a point of B in
    both criteria: ``max_b max_a min_j s_j (a_j - b_j) / |b_j|`` (s_j = +1
    when larger is better), clipped at 0: 0 when no point of B is dominated
    by a point of A; 0.01 when some point of A is better than some point of
    B by at least 1 % in both criteria."""
    if A.criteria != B.criteria:
        raise InvalidArgumentError(f"fronts of different criteria {A.criteria} and {B.criteria}")
    s = np.array([criterion(c)[2] for c in A.criteria])
    gain = s * (A.values[:, None, :] - B.values[None, :, :]) / np.abs(B.values[None, :, :])
    return max(0.0, float(np.max(np.min(gain, axis=-1))))


def plot_fronts(fronts, path, title=None) -> Path:
    """A picture of one or more fronts of the same criteria (matplotlib,
    the ``viz`` extra), PNG/SVG/PDF by the suffix of ``path``."""
    from flexpkm.optional import require
    figure = require("matplotlib.figure", "the picture of a Pareto front")
    fig = figure.Figure(figsize=(6, 4.2))
    ax = fig.add_subplot()
    style = {"epsilon": dict(marker="o", ls="-", ms=5), "nsga2": dict(marker="x", ls="", ms=5)}
    for front in fronts:
        label = {"epsilon": "epsilon-constraint (SLSQP, exact gradients)",
                 "nsga2": "NSGA-II (pymoo)"}.get(front.method, front.method)
        ax.plot(front.values[:, 1], front.values[:, 0], label=label,
                **style.get(front.method, {}))
    a, b = fronts[0].criteria
    ax.set_xlabel(f"{b} ({UNITS[criterion(b)[0]]})")
    ax.set_ylabel(f"{a} ({UNITS[criterion(a)[0]]})")
    ax.grid(True, alpha=0.3)
    ax.legend()
    if title:
        ax.set_title(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    return Path(path)


def pareto_front(description, parameters, poses, points=5, objective="min_f1", against="mass",
                 method="epsilon", constraints=None, n_modes=1, variant=None, population=40,
                 generations=40, seed=0) -> list:
    """The Pareto front of ``objective`` vs ``against`` for the robot of
    ``description`` (a path or a dict; ``parameters``, ``poses``,
    ``constraints``, ``n_modes``, ``variant`` as in
    :func:`flexpkm.analysis.optimisation.optimise_design`) by ``method``:
    ``"epsilon"`` (:func:`epsilon_front`, ``points`` designs), ``"nsga2"``
    (:func:`nsga2_front`) or ``"both"``. Returns a list of :class:`Front`.
    Raises :class:`InvalidArgumentError` (an unknown method and as the
    functions called)."""
    if method not in ("epsilon", "nsga2", "both"):
        raise InvalidArgumentError(f"front method: 'epsilon', 'nsga2' or 'both', got {method!r}")
    criteria = (objective, against)
    names = [*criteria, *(constraints or {})]
    k = max([criterion(n)[1] for n in names] + [int(n_modes)])
    problem = design_problem(description, parameters, poses, k, variant,
                             "max_compliance" in names)
    out = []
    if method in ("epsilon", "both"):
        out.append(epsilon_front(problem, points, criteria, constraints))
    if method in ("nsga2", "both"):
        out.append(nsga2_front(problem, criteria, constraints, population, generations, seed))
    return out
