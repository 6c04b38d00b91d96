"""Design optimisation with exact gradients (issue 21 item 3): maximise the
worst-pose first natural frequency (actuators locked, (11.34)) of a robot of
a description file over a small set of poses, subject to bounds on the
design parameters and a mass limit (or the mass of the file's design).

The epigraph form: ``max t`` s.t. ``f1(pose_i; p) >= t`` for every pose,
``mass(p) <= limit`` (or ``= mass(p_0)``), ``lower <= p <= upper``, solved
by :func:`scipy.optimize.minimize` (``method="SLSQP"``) in scaled variables
(``u = (p - lower) / (upper - lower)``, ``tau = t / f1_worst(p_0)``). The
constraints' gradients are exact: ``df1/dp`` of every pose by
:func:`flexpkm.compiled.sensitivity.frequency_sensitivities` (11.34: CasADi
AD of the matrices, the configuration re-assembled for the parameters that
move frames), the mass gradient by central differences of the mass, exact to
round-off because the mass is at most quadratic in any one number of the file
(``rho A L``, ``A = b h`` or ``pi r^2``, point masses).

Parameters are key paths of the file (``legs[0].frames[0].bodies[0].
section.b_y``, as ``flexpkm modal --sensitivities``); a tuple of paths sets
one value everywhere (both legs' section), its gradient the sum of theirs.
:func:`gradient_check` compares the gradient with Richardson-extrapolated
central differences of the frequencies of :func:`flexpkm.natural_frequencies`
(an independent route: the eigenvalues of re-built, re-assembled models).
"""
from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from flexpkm.analysis.study import robot_mass
from flexpkm.errors import InvalidArgumentError
from flexpkm.model.key_paths import get_number, set_number


@dataclass(kw_only=True, repr=False)
class OptimisationResult:
    """The result of :func:`optimise_design` (SI; frequencies in Hz).

    names : the parameters (their key paths; tied paths joined by spaces)
    lower, upper, x0, x : (n_p,) bounds, the file's design and the optimum
    f1_before, f1_after : (P,) the first frequency at each pose, Hz
    worst_before, worst_after : min over the poses, Hz; gain : relative
        (``worst_after / worst_before - 1``)
    mass_before, mass_after : kg (bodies and platform)
    active : indices of the poses whose f1 is within ``tol`` of the worst
    iterations, evaluations : SLSQP's iterations, model evaluations
    success, message : SLSQP's
    gradient_error : the largest relative difference between the exact
        ``df1/dp`` at the optimum and central differences
        (:func:`gradient_check`), or None when not checked
    """

    names: tuple
    lower: np.ndarray
    upper: np.ndarray
    x0: np.ndarray
    x: np.ndarray
    f1_before: np.ndarray
    f1_after: np.ndarray
    mass_before: float
    mass_after: float
    active: np.ndarray
    iterations: int
    evaluations: int
    success: bool
    message: str
    gradient_error: float | None = None

    @property
    def worst_before(self) -> float:
        return float(np.min(self.f1_before))

    @property
    def worst_after(self) -> float:
        return float(np.min(self.f1_after))

    @property
    def gain(self) -> float:
        return self.worst_after / self.worst_before - 1.0

    def __repr__(self):
        p = ", ".join(f"{n}={v:.6g}" for n, v in zip(self.names, self.x))
        return (f"OptimisationResult(worst f1 {self.worst_before:.6g} -> {self.worst_after:.6g} Hz "
                f"({100 * self.gain:+.3g} %), mass {self.mass_before:.6g} -> "
                f"{self.mass_after:.6g} kg, {p}, {self.iterations} iterations)")


class DesignProblem:
    """A description (dict), its parameters and poses: f1 at every pose,
    the mass, and their exact gradients for a design ``x`` (n_p,), SI.

    data : the description (:func:`flexpkm.model.files.parse`)
    parameters : dict key path (or tuple of key paths) -> (lower, upper)
    poses : (P, n_c) commanded platform coordinates (m, rad), columns
        ``model.layout.commanded``
    Raises :class:`InvalidArgumentError` (a key path, bounds, poses)."""

    def __init__(self, data, parameters, poses, n_modes=1, variant=None, source="<data>"):
        if not isinstance(parameters, dict) or not parameters:
            raise InvalidArgumentError("parameters: a dict key path -> (lower, upper), not empty")
        self.data, self.variant, self.source = data, variant, source
        self.groups = [(k,) if isinstance(k, str) else tuple(k) for k in parameters]
        bounds = np.array([tuple(map(float, b)) for b in parameters.values()], float)
        if bounds.shape != (len(self.groups), 2) or not np.isfinite(bounds).all() \
                or (bounds[:, 0] >= bounds[:, 1]).any():
            raise InvalidArgumentError("parameters: bounds (lower, upper), finite, lower < upper")
        self.lower, self.upper = bounds[:, 0], bounds[:, 1]
        self.names = tuple(" ".join(g) for g in self.groups)
        self.n_modes = int(n_modes)
        if self.n_modes < 1:
            raise InvalidArgumentError(f"n_modes must be >= 1, got {n_modes!r}")
        self.x0 = np.array([self._value(g) for g in self.groups])
        self.poses = np.atleast_2d(np.asarray(poses, float))
        n_c = len(self.model(self.x0).layout.commanded)
        if not n_c:
            raise InvalidArgumentError("optimise_design: the poses are commanded platform "
                                       "coordinates; this robot has none (no platform)")
        if self.poses.shape[1:] != (n_c,) or not np.isfinite(self.poses).all():
            raise InvalidArgumentError(f"poses: (P, {n_c}) finite commanded platform "
                                       f"coordinates, got shape {self.poses.shape}")
        self._cache = {}

    def _value(self, group):
        values = set()
        for path in group:
            values.add(get_number(self.data, path))      # refuses a bad path
        if len(values) != 1:
            raise InvalidArgumentError(f"{' '.join(group)}: tied key paths with different "
                                       f"values in the file {sorted(values)}")
        return values.pop()

    def design(self, x) -> dict:
        """The description with the design ``x`` set."""
        data = copy.deepcopy(self.data)
        for group, v in zip(self.groups, x):
            for path in group:
                set_number(data, path, float(v))
        return data

    def model(self, x):
        from flexpkm.algorithms.reference import build_model
        from flexpkm.model.files import from_dict
        return build_model(from_dict(self.design(x), source=self.source, variant=self.variant))

    def configurations(self, model):
        """(P, n_tot) the poses assembled (continuation from the reference)."""
        from flexpkm.algorithms.assembly import assemble
        return np.atleast_2d(assemble(model, pose=self.poses))

    def frequencies(self, x) -> np.ndarray:
        """(P,) f1 at every pose by :func:`flexpkm.natural_frequencies` (no sensitivities)."""
        from flexpkm.analysis.modal import natural_frequencies
        model = self.model(x)
        q = self.configurations(model)
        return natural_frequencies(model, q, n_modes=1, shapes=False,
                                   backend="numpy").frequencies_hz[:, 0]

    def mass(self, x) -> float:
        return robot_mass(self.model(x))

    def mass_gradient(self, x) -> np.ndarray:
        """(n_p,) kg per unit: central differences, exact (mass quadratic at most)."""
        out = np.empty(len(x))
        for k in range(len(x)):
            h = 1e-3 * (self.upper[k] - self.lower[k])
            e = np.zeros(len(x))
            e[k] = h
            out[k] = (self.mass(x + e) - self.mass(x - e)) / (2 * h)
        return out

    def evaluate(self, x):
        """``(f1 (P,), df1 (P, n_p), mass, dmass (n_p,))`` at ``x``, cached."""
        from flexpkm.compiled.sensitivity import frequency_sensitivities
        key = tuple(np.asarray(x, float))
        if key not in self._cache:
            data, model = self.design(x), self.model(x)
            paths = [p for g in self.groups for p in g]
            f1, df1 = [], []
            for q in self.configurations(model):
                f, df = frequency_sensitivities(data, paths, q, n_modes=self.n_modes, hold="pose")
                f1.append(f[0])
                cols = np.cumsum([0] + [len(g) for g in self.groups])
                df1.append([df[0, a:b].sum() for a, b in zip(cols[:-1], cols[1:])])
            self._cache[key] = (np.array(f1), np.array(df1), robot_mass(model),
                                self.mass_gradient(np.asarray(x, float)))
        return self._cache[key]


def gradient_check(problem: DesignProblem, x, rel_step=1e-3) -> float:
    """The largest relative difference ``|df1/dp - D| / max|df1/dp|`` over
    the poses and parameters, D the Richardson extrapolation
    ``(4 D(h/2) - D(h)) / 3`` of central differences of
    :meth:`DesignProblem.frequencies` (step ``h = rel_step |x_k|``, or
    ``rel_step (upper - lower)`` at ``x_k = 0``)."""
    x = np.asarray(x, float)
    exact = problem.evaluate(x)[1]
    err = 0.0
    for k in range(len(x)):
        def central(h):
            e = np.zeros(len(x))
            e[k] = h
            return (problem.frequencies(x + e) - problem.frequencies(x - e)) / (2 * h)
        h = rel_step * (abs(x[k]) or problem.upper[k] - problem.lower[k])
        rich = (4 * central(h / 2) - central(h)) / 3
        err = max(err, float(np.max(np.abs(exact[:, k] - rich)) / np.max(np.abs(exact[:, k]))))
    return err


def optimise_design(description, parameters, poses, mass_limit=None, equal_mass=False,
                    n_modes=1, variant=None, tol=1e-8, max_iter=100, check=True):
    """Maximise the worst-pose f1 of the robot of ``description`` (module doc).

    description : a description file (path) or its dict (:func:`flexpkm.model.files.parse`)
    parameters : dict key path (or tuple of tied key paths) -> (lower, upper), SI;
        the start is the file's design (inside the bounds)
    poses : (P, n_c) commanded platform coordinates (m, rad)
    mass_limit : kg, ``mass(p) <= mass_limit``; equal_mass : ``mass(p) =
        mass(p_0)`` (give at most one; neither: bounds only)
    n_modes : modes solved per pose (the objective is f1)
    tol, max_iter : SLSQP's ``ftol`` and ``maxiter``; check : run
        :func:`gradient_check` at the optimum
    Returns :class:`OptimisationResult`.
    Raises :class:`InvalidArgumentError` (parameters, bounds, a start outside
    them, poses, both mass options), what assembling the poses raises
    (:class:`flexpkm.errors.UnreachablePoseError`...).
    """
    from scipy.optimize import minimize
    if mass_limit is not None and equal_mass:
        raise InvalidArgumentError("give mass_limit or equal_mass, not both")
    problem = _problem(description, parameters, poses, n_modes, variant)
    lo, span = problem.lower, problem.upper - problem.lower
    x0 = problem.x0
    if ((x0 < lo) | (x0 > problem.upper)).any():
        raise InvalidArgumentError(f"the file's design {dict(zip(problem.names, x0))} is "
                                   "outside the bounds")
    f0, _, m0, _ = problem.evaluate(x0)
    fw = float(np.min(f0))
    m_ref = m0 if equal_mass else mass_limit
    x_of = lambda z: lo + z[:-1] * span                                        # noqa: E731

    def freq(z):
        f, df = problem.evaluate(x_of(z))[:2]
        return f / fw - z[-1], np.hstack([df * span / fw, -np.ones((len(f), 1))])

    def mass(z):
        _, _, m, dm = problem.evaluate(x_of(z))
        sign = 1.0 if equal_mass else -1.0
        return sign * (m - m_ref) / m_ref, np.append(sign * dm * span / m_ref, 0.0)

    cons = [{"type": "ineq", "fun": lambda z: freq(z)[0], "jac": lambda z: freq(z)[1]}]
    if m_ref is not None:
        cons.append({"type": "eq" if equal_mass else "ineq", "fun": lambda z: mass(z)[0],
                     "jac": lambda z: mass(z)[1]})
    z0 = np.append((x0 - lo) / span, 1.0)
    res = minimize(lambda z: -z[-1], z0, jac=lambda z: np.append(np.zeros(len(z) - 1), -1.0),
                   method="SLSQP", bounds=[(0.0, 1.0)] * len(x0) + [(0.0, None)],
                   constraints=cons, options={"ftol": tol, "maxiter": int(max_iter)})
    x = np.clip(x_of(res.x), lo, problem.upper)
    f1, _, m1, _ = problem.evaluate(x)
    return OptimisationResult(
        names=problem.names, lower=lo, upper=problem.upper, x0=x0, x=x, f1_before=f0,
        f1_after=f1, mass_before=m0, mass_after=m1,
        active=np.flatnonzero(f1 <= np.min(f1) * (1 + 1e-4)), iterations=int(res.nit),
        evaluations=len(problem._cache), success=bool(res.success), message=str(res.message),
        gradient_error=gradient_check(problem, x) if check else None)


def _problem(description, parameters, poses, n_modes, variant) -> DesignProblem:
    if isinstance(description, dict):
        return DesignProblem(description, parameters, poses, n_modes, variant)
    from flexpkm.model.files import Where, parse
    path = Path(description)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise InvalidArgumentError(f"{path}: cannot read the description ({e})") from None
    return DesignProblem(parse(text, Where(str(path))), parameters, poses, n_modes, variant,
                         source=str(path))


def read_optimisation(path) -> dict:
    """The keyword arguments of :func:`optimise_design` from an optimisation
    file (TOML: ``poses = [[...], ...]``, ``mass_limit`` (kg) or
    ``equal_mass = true``, ``modes``, ``variant``, and ``[[parameters]]``
    with ``path`` or ``paths``, ``low``, ``high``; docs/maps.md). Raises
    :class:`InvalidArgumentError` naming the file."""
    from flexpkm.analysis.study import parameters_of
    from flexpkm.model.files import tomllib             # or tomli on Python 3.10
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise InvalidArgumentError(f"{path}: cannot read the optimisation file ({e})") from None
    unknown = set(data) - {"poses", "mass_limit", "equal_mass", "modes", "variant", "parameters"}
    if unknown or "poses" not in data or "parameters" not in data:
        raise InvalidArgumentError(f"{path}: an optimisation file has poses = [[...]] and "
                                   "[[parameters]]" + (f"; unknown keys {sorted(unknown)}"
                                                       if unknown else ""))
    params = parameters_of(data["parameters"])
    return {"parameters": {p.paths: (p.low, p.high) for p in params}, "poses": data["poses"],
            "mass_limit": data.get("mass_limit"), "equal_mass": bool(data.get("equal_mass")),
            "n_modes": int(data.get("modes", 1)), "variant": data.get("variant")}
