"""Design optimisation with exact gradients (issue 21 item 3): optimise one
criterion of the robot of a description file over a small set of poses,
subject to bounds on the design parameters and limits on the other
criteria (:mod:`flexpkm.analysis.design_problem`): maximise the worst-pose
k-th natural frequency (``"min_f1"``, ``"min_f2"``..., actuators locked,
(11.34)), minimise the mass (``"mass"``) or the largest platform compliance
over the poses (``"max_compliance"``); a mass limit (or the mass of the
file's design), a lowest worst-pose frequency, a largest compliance.

The epigraph form: ``max tau`` s.t. ``s g_i(p) / |g_0| >= tau`` for every
row i of the objective g (a pose; the mass: one row; s = +1 for a
frequency, -1 for the mass and the compliance, g_0 its value for the
file's design), ``s (h_i(p) - b) >= 0`` for every row of every limited
criterion h (bound b), ``lower <= p <= upper``, solved by
:func:`scipy.optimize.minimize` (``method="SLSQP"``) in scaled variables
(``u = (p - lower) / (upper - lower)``). The gradients are exact
(:mod:`flexpkm.analysis.design_problem`: ``df_k/dp`` of every pose by CasADi
AD of the matrices, the poses re-assembled for the parameters that move
frames; the compliance's from ``dK_cc/dp``; the mass's from the bodies'
``dm/dp``, exact to round-off).

Parameters are key paths of the file (``legs[0].frames[0].bodies[0].
section.b_y``, as ``flexpkm modal --sensitivities``); a tuple of paths sets
one value everywhere (both legs' section), its gradient the sum of theirs.
:func:`gradient_check` compares the objective's gradient with
Richardson-extrapolated central differences on an independent route.
Pareto fronts: :mod:`flexpkm.analysis.pareto`.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from flexpkm.analysis.design_problem import (DesignProblem, criterion, design_problem,
                                              gradient_check)
from flexpkm.errors import InvalidArgumentError

__all__ = ["OptimisationResult", "optimise_design", "read_optimisation", "DesignProblem",
           "gradient_check", "solve"]


@dataclass(kw_only=True, repr=False)
class OptimisationResult:
    """The result of :func:`optimise_design` (SI; frequencies in Hz).

    objective : the criterion optimised (``"min_f1"``, ``"mass"``...);
        constraints : dict criterion -> bound; equal_mass : bool
    names : the parameters (their key paths; tied paths joined by spaces)
    lower, upper, x0, x : (n_p,) bounds, the start and the optimum
    before, after : the :class:`flexpkm.analysis.design_problem.Evaluation`
        of x0 and x (per pose ``f`` (P, n_modes) Hz, ``compliance`` (P,) or
        None, ``mass`` kg)
    objective_before, objective_after : the objective's value (worst pose)
    gain : the relative improvement of the objective (``after / before - 1``
        for a frequency, ``1 - after / before`` for the mass and the compliance)
    f1_before, f1_after : (P,) the first frequency at each pose, Hz;
        worst_before, worst_after : their min; mass_before, mass_after : kg
    active : indices of the objective's rows (poses) within 1e-4 of its worst
    iterations, evaluations : SLSQP's iterations, model evaluations
    success, message : SLSQP's
    gradient_error : the largest relative difference between the
        objective's exact gradient at the optimum and central differences
        (:func:`gradient_check`), or None when not checked
    """

    objective: str
    constraints: dict
    equal_mass: bool
    names: tuple
    lower: np.ndarray
    upper: np.ndarray
    x0: np.ndarray
    x: np.ndarray
    before: object
    after: object
    iterations: int
    evaluations: int
    success: bool
    message: str
    gradient_error: float | None = None

    objective_before = property(lambda self: self.before.worst(self.objective))
    objective_after = property(lambda self: self.after.worst(self.objective))
    f1_before = property(lambda self: self.before.f[:, 0])
    f1_after = property(lambda self: self.after.f[:, 0])
    worst_before = property(lambda self: float(np.min(self.f1_before)))
    worst_after = property(lambda self: float(np.min(self.f1_after)))
    mass_before = property(lambda self: self.before.mass)
    mass_after = property(lambda self: self.after.mass)

    @property
    def gain(self) -> float:
        return criterion(self.objective)[2] * (self.objective_after / self.objective_before - 1.0)

    @property
    def active(self) -> np.ndarray:
        g = self.after.rows(self.objective)[0]
        return np.flatnonzero(np.abs(g - self.objective_after) <= 1e-4 * abs(self.objective_after))

    def __repr__(self):
        p = ", ".join(f"{n}={v:.6g}" for n, v in zip(self.names, self.x))
        return (f"OptimisationResult({self.objective} {self.objective_before:.6g} -> "
                f"{self.objective_after:.6g} ({100 * self.gain:+.3g} %), worst f1 "
                f"{self.worst_before:.6g} -> {self.worst_after:.6g} Hz, mass "
                f"{self.mass_before:.6g} -> {self.mass_after:.6g} kg, {p}, "
                f"{self.iterations} iterations)")


def optimise_design(description, parameters, poses, objective="min_f1", constraints=None,
                    mass_limit=None, equal_mass=False, n_modes=1, variant=None, tol=1e-8,
                    max_iter=100, check=True, start=None):
    """Optimise one criterion of the robot of ``description`` (module doc).

    description : a description file (path) or its dict (:func:`flexpkm.model.files.parse`)
    parameters : dict key path (or tuple of tied key paths) -> (lower, upper), SI
    poses : (P, n_c) commanded platform coordinates (m, rad)
    objective : ``"min_f<k>"`` (maximise the worst-pose f_k), ``"mass"`` or
        ``"max_compliance"`` (minimise)
    constraints : dict criterion -> bound: ``{"min_f1": 20.0}`` (every
        pose's f1 >= 20 Hz), ``{"mass": 1.8}`` (kg, <=),
        ``{"max_compliance": 1e-5}`` (every pose's largest compliance <=);
        not the objective
    mass_limit : kg, the same as ``constraints={"mass": ...}``; equal_mass :
        ``mass(p) = mass(p_0)`` (give at most one of the three)
    n_modes : modes solved per pose (raised to k for ``min_f<k>``)
    tol, max_iter : SLSQP's ``ftol`` and ``maxiter``; check : run
        :func:`gradient_check` of the objective at the optimum
    start : (n_p,) the start, or None: the file's design (inside the bounds)
    Returns :class:`OptimisationResult`.
    Raises :class:`InvalidArgumentError` (parameters, bounds, a start outside
    them, poses, an unknown criterion, the objective limited, both mass
    options), what assembling the poses raises
    (:class:`flexpkm.errors.UnreachablePoseError`...).
    """
    constraints = _constraints(objective, constraints, mass_limit, equal_mass)
    k = max([criterion(n)[1] for n in [objective, *constraints]] + [int(n_modes)])
    compliance = "max_compliance" in [objective, *constraints]
    problem = design_problem(description, parameters, poses, k, variant, compliance)
    return solve(problem, objective, constraints, equal_mass, start, tol, max_iter, check)


def _constraints(objective, constraints, mass_limit, equal_mass) -> dict:
    out = dict(constraints or {})
    criterion(objective)
    if mass_limit is not None:
        if "mass" in out or equal_mass:
            raise InvalidArgumentError("give mass_limit, constraints['mass'] or equal_mass, "
                                       "not both")
        out["mass"] = mass_limit
    if equal_mass and ("mass" in out or objective == "mass"):
        raise InvalidArgumentError("equal_mass with a mass limit or the mass objective: "
                                   "give one, not both")
    for name, bound in out.items():
        criterion(name)
        if name == objective:
            raise InvalidArgumentError(f"{name}: the objective cannot be limited too")
        if not np.isfinite(bound) or bound <= 0:
            raise InvalidArgumentError(f"{name}: the limit must be positive, got {bound!r}")
    return {n: float(b) for n, b in out.items()}


def solve(problem: DesignProblem, objective="min_f1", constraints=None, equal_mass=False,
          start=None, tol=1e-8, max_iter=100, check=True) -> OptimisationResult:
    """:func:`optimise_design` on a :class:`DesignProblem` (its cache kept:
    the Pareto fronts call it for a sequence of limits)."""
    from scipy.optimize import minimize
    constraints = _constraints(objective, constraints, None, equal_mass)
    lo, span = problem.lower, problem.upper - problem.lower
    x0 = problem.x0 if start is None else np.asarray(start, float)
    if x0.shape != lo.shape or ((x0 < lo) | (x0 > problem.upper)).any():
        raise InvalidArgumentError(f"the start {dict(zip(problem.names, x0))} is outside the "
                                   "bounds")
    before = problem.evaluate(x0)
    ref, sense = abs(before.worst(objective)), criterion(objective)[2]
    x_of = lambda z: lo + z[:-1] * span                                        # noqa: E731
    limits = dict(constraints)
    if equal_mass:
        limits["mass"] = before.mass

    def rows(z, name, bound, scale):
        g, dg = problem.evaluate(x_of(z)).rows(name)
        s = criterion(name)[2] / scale
        tau = z[-1] if bound is None else 0.0
        jac = np.hstack([s * dg * span, np.full((len(g), 1), -1.0 if bound is None else 0.0)])
        return s * (g - (0.0 if bound is None else bound)) - tau, jac

    cons = [_constraint(rows, objective, None, ref, "ineq")]
    cons += [_constraint(rows, n, b, abs(b), "eq" if equal_mass and n == "mass" else "ineq")
             for n, b in limits.items()]
    z0 = np.append((x0 - lo) / span, sense * before.worst(objective) / ref)
    tau = (0.0, None) if sense > 0 else (None, None)    # f1 unbounded: 21 iterations, not 12
    res = minimize(lambda z: -z[-1], z0, jac=lambda z: np.append(np.zeros(len(z) - 1), -1.0),
                   method="SLSQP", bounds=[(0.0, 1.0)] * len(x0) + [tau],
                   constraints=cons, options={"ftol": tol, "maxiter": int(max_iter)})
    x = np.clip(x_of(res.x), lo, problem.upper)
    return OptimisationResult(
        objective=objective, constraints=constraints, equal_mass=bool(equal_mass),
        names=problem.names, lower=lo, upper=problem.upper, x0=x0, x=x, before=before,
        after=problem.evaluate(x), iterations=int(res.nit), evaluations=problem.evaluations,
        success=bool(res.success), message=str(res.message),
        gradient_error=gradient_check(problem, x, objective) if check else None)


def _constraint(rows, name, bound, scale, kind) -> dict:
    return {"type": kind, "fun": lambda z: rows(z, name, bound, scale)[0],
            "jac": lambda z: rows(z, name, bound, scale)[1]}


def read_optimisation(path) -> dict:
    """The keyword arguments of :func:`optimise_design` from an optimisation
    file (TOML: ``poses = [[...], ...]``, ``objective`` (``"min_f1"``,
    ``"min_f2"``..., ``"mass"``, ``"max_compliance"``; default
    ``"min_f1"``), a ``[constraints]`` table (criterion = bound),
    ``mass_limit`` (kg) or ``equal_mass = true``, ``modes``, ``variant``,
    ``[[parameters]]`` with ``path`` or ``paths``, ``low``, ``high``; and
    ``front``: the ``[front]`` table (:data:`FRONT_KEYS`) or None;
    docs/optimisation.md). Raises :class:`InvalidArgumentError` naming the
    file."""
    from flexpkm.analysis.study import parameters_of
    from flexpkm.model.files import tomllib             # or tomli on Python 3.10
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise InvalidArgumentError(f"{path}: cannot read the optimisation file ({e})") from None
    unknown = set(data) - {"poses", "mass_limit", "equal_mass", "modes", "variant", "parameters",
                           "objective", "constraints", "front"}
    if unknown or "poses" not in data or "parameters" not in data:
        raise InvalidArgumentError(f"{path}: an optimisation file has poses = [[...]] and "
                                   "[[parameters]]" + (f"; unknown keys {sorted(unknown)}"
                                                       if unknown else ""))
    front = data.get("front")
    for name, table, keys in (("constraints", data.get("constraints", {}), None),
                              ("front", front or {}, FRONT_KEYS)):
        if not isinstance(table, dict) or (keys and set(table) - set(keys)):
            raise InvalidArgumentError(f"{path}: [{name}] is a table" + (
                f" of {', '.join(keys)}" if keys else " criterion = bound"))
    params = parameters_of(data["parameters"])
    return {"parameters": {p.paths: (p.low, p.high) for p in params}, "poses": data["poses"],
            "objective": data.get("objective", "min_f1"),
            "constraints": data.get("constraints"),
            "mass_limit": data.get("mass_limit"), "equal_mass": bool(data.get("equal_mass")),
            "n_modes": int(data.get("modes", 1)), "variant": data.get("variant"), "front": front}


#: the keys of an optimisation file's ``[front]`` table: ``points`` (the
#: epsilon-constraint designs), ``against`` (the second criterion, default
#: ``"mass"``), ``method`` (``"epsilon"``, ``"nsga2"`` or ``"both"``),
#: ``population``, ``generations``, ``seed`` (NSGA-II)
FRONT_KEYS = ("points", "against", "method", "population", "generations", "seed")
