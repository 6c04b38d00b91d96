"""The design problem of the optimiser (issue 21 items 2-3): a description
file, design parameters (key paths) and poses; the criteria of a design
``x`` (n_p,) and their gradients.

Criteria (the names of ``objective`` and of the constraints in an
optimisation file):

* ``"min_f<k>"`` (``min_f1``, ``min_f2``...): the worst-pose k-th natural
  frequency (actuators locked, (11.34)), Hz; larger is better. Per pose
  ``f_k`` and its exact gradient ``df_k/dp`` (mass-normalised modes,
  :func:`flexpkm.compiled.sensitivity.modal_derivatives`).
* ``"mass"``: the mass of the bodies and the platform, kg; smaller is
  better. Gradient: the sum of the bodies' ``dm/dp`` of
  :func:`flexpkm.compiled.sensitivity.matrix_derivatives` (central
  differences of what Step 0 builds, exact to round-off: the mass is at
  most quadratic in any one number of the file).
* ``"max_compliance"``: the largest principal compliance of the platform
  over the poses (the largest eigenvalue ``c`` of ``C = J_p K_cc^-1
  J_p^T``, actuators locked, :mod:`flexpkm.algorithms.compliance`); smaller
  is better. Its gradient is exact for the parameters that do not move
  frames (sections, materials, masses: J_p is fixed and ``dC/dp = -J_p
  K^-1 dK_cc/dp K^-1 J_p^T``, so ``dc/dp = -u^T dK_cc/dp u`` with ``u =
  K_cc^-1 J_p^T v``, v the unit eigenvector of c, a simple eigenvalue;
  ``dK_cc/dp`` from :func:`flexpkm.compiled.sensitivity.matrix_derivatives`)
  and by central differences of re-built, re-assembled models
  (:meth:`DesignProblem.values`, relative step 1e-4) for those that move
  frames (lengths, MDH constants: J_p changes too).

A criterion is evaluated per pose (rows: poses; the mass: one row); the
worst row is the criterion's value. :func:`gradient_check` compares a
gradient with Richardson-extrapolated central differences of
:meth:`DesignProblem.values`, which computes the frequencies by
:func:`flexpkm.natural_frequencies` and the compliance by
:func:`flexpkm.algorithms.compliance.platform_compliance` on re-built,
re-assembled models (an independent route).
"""
from __future__ import annotations

import copy
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from flexpkm.analysis.study import robot_mass
from flexpkm.errors import InvalidArgumentError
from flexpkm.model.key_paths import get_number, set_number


def criterion(name) -> tuple:
    """``(kind, k, sense)`` of a criterion's name: ``("f", k, +1)`` for
    ``min_f<k>``, ``("mass", 0, -1)``, ``("compliance", 0, -1)``; sense +1
    when larger is better. Raises :class:`InvalidArgumentError`."""
    m = re.fullmatch(r"min_f([1-9][0-9]*)", str(name))
    if m:
        return "f", int(m.group(1)), 1.0
    if name == "mass":
        return "mass", 0, -1.0
    if name == "max_compliance":
        return "compliance", 0, -1.0
    raise InvalidArgumentError(f"unknown criterion {name!r}: 'min_f1' (or min_f2, ...), "
                               "'mass' or 'max_compliance'")


UNITS = {"f": "Hz", "mass": "kg", "compliance": "x_p per N or N m"}


@dataclass(frozen=True)
class Evaluation:
    """The criteria of one design (SI; P poses, n modes, n_p parameters).

    f, df : (P, n) Hz, (P, n, n_p) Hz per unit; mass, dmass : kg, (n_p,);
    compliance, dcompliance : (P,), (P, n_p) (None when not asked)"""

    f: np.ndarray
    df: np.ndarray
    mass: float
    dmass: np.ndarray
    compliance: np.ndarray | None = None
    dcompliance: np.ndarray | None = None

    def rows(self, name) -> tuple:
        """``(values (R,), gradients (R, n_p))`` of a criterion (R = P, or 1
        for the mass)."""
        kind, k, _ = criterion(name)
        if kind == "mass":
            return np.array([self.mass]), self.dmass[None]
        if kind == "compliance":
            return self.compliance, self.dcompliance
        return self.f[:, k - 1], self.df[:, k - 1]

    def worst(self, name) -> float:
        """The criterion's value: min over the poses (frequencies), max (the rest)."""
        values = self.rows(name)[0]
        return float(np.min(values) if criterion(name)[2] > 0 else np.max(values))


class DesignProblem:
    """A description (dict), its parameters and poses: the criteria of a
    design ``x`` (n_p,), SI, and their gradients (module doc).

    data : the description (:func:`flexpkm.model.files.parse`)
    parameters : dict key path (or tuple of key paths) -> (lower, upper)
    poses : (P, n_c) commanded platform coordinates (m, rad), columns
        ``model.layout.commanded``
    n_modes : modes solved per pose; compliance : evaluate the compliance
    Raises :class:`InvalidArgumentError` (a key path, bounds, poses)."""

    def __init__(self, data, parameters, poses, n_modes=1, variant=None, source="<data>",
                 compliance=False):
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
        self.n_modes, self.compliance = int(n_modes), bool(compliance)
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

    @property
    def evaluations(self) -> int:
        """How many designs :meth:`evaluate` has computed (its cache)."""
        return len(self._cache)

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
        """(P, n_modes) Hz at every pose by :func:`flexpkm.natural_frequencies`
        (no sensitivities)."""
        return self.values(x, "min_f1", frequencies=True)

    def values(self, x, name, frequencies=False) -> np.ndarray:
        """The rows of the criterion ``name`` at ``x`` by the independent route
        (module doc): (P,) or (1,); ``frequencies``: (P, n_modes) instead."""
        if frequencies:
            return self.criteria(x, ["min_f1"], frequencies=True)["min_f1"]
        return self.criteria(x, [name])[name]

    def criteria(self, x, names, frequencies=False) -> dict:
        """name -> rows of each criterion at ``x`` (one model built and
        assembled): frequencies by :func:`flexpkm.natural_frequencies`, the
        compliance by :func:`flexpkm.algorithms.compliance.platform_compliance`."""
        from flexpkm.algorithms.compliance import platform_compliance
        from flexpkm.algorithms.modal import reduced_matrices
        from flexpkm.analysis.modal import natural_frequencies
        kinds = {n: criterion(n) for n in names}
        model = self.model(x)
        out = {n: np.array([robot_mass(model)]) for n, c in kinds.items() if c[0] == "mass"}
        if len(out) == len(names):
            return out
        q = self.configurations(model)
        n_f = max([c[1] for c in kinds.values()] + [self.n_modes])
        f = natural_frequencies(model, q, n_modes=n_f, shapes=False, backend="numpy"
                                ).frequencies_hz if any(c[0] == "f" for c in kinds.values()) \
            else None
        for n, (kind, k, _) in kinds.items():
            if kind == "f":
                out[n] = f[:, :self.n_modes] if frequencies else f[:, k - 1]
            elif kind == "compliance":
                out[n] = platform_compliance(model, reduced_matrices(model, q))[1][:, -1]
        return out

    def mass(self, x) -> float:
        return robot_mass(self.model(x))

    def _central(self, x, k, name, rel_step):
        """Central difference of the rows of ``name`` along parameter k."""
        e = np.zeros(len(x))
        e[k] = rel_step * (abs(x[k]) or self.upper[k] - self.lower[k])
        return (self.values(x + e, name) - self.values(x - e, name)) / (2 * e[k])

    def evaluate(self, x) -> Evaluation:
        """The :class:`Evaluation` at ``x`` (exact gradients), cached."""
        from flexpkm.compiled.sensitivity import matrix_derivatives, modal_derivatives
        x = np.asarray(x, float)
        key = tuple(x)
        if key in self._cache:
            return self._cache[key]
        data, model = self.design(x), self.model(x)
        paths = [p for g in self.groups for p in g]
        cols = np.cumsum([0] + [len(g) for g in self.groups])
        group_of = np.repeat(np.arange(len(self.groups)), np.diff(cols))
        f, df, c, dc = [], [], [], []
        for q in self.configurations(model):
            d = matrix_derivatives(data, paths, q, hold="pose")
            fq, dfq = modal_derivatives(d, self.n_modes)
            f.append(fq)
            df.append(np.add.reduceat(dfq, cols[:-1], axis=1))
            if self.compliance:
                cq, dcq = _compliance_derivative(model, d)
                c.append(cq)
                dc.append(np.add.reduceat(dcq, cols[:-1]))
        moved = sorted({int(group_of[k]) for k in d.moves}) if self.compliance else []
        dc = np.array(dc) if self.compliance else None
        for k in moved:                               # J_p moves: central differences
            dc[:, k] = self._central(x, k, "max_compliance", 1e-4)
        ev = Evaluation(f=np.array(f), df=np.array(df), mass=robot_mass(model),
                        dmass=np.add.reduceat(d.dmass, cols[:-1]),
                        compliance=np.array(c) if c else None, dcompliance=dc)
        self._cache[key] = ev
        return ev


def design_problem(description, parameters, poses, n_modes=1, variant=None,
                   compliance=False) -> DesignProblem:
    """The :class:`DesignProblem` of a description file (path) or its dict.
    Raises :class:`InvalidArgumentError` (an unreadable file, and as
    :class:`DesignProblem`)."""
    if isinstance(description, dict):
        return DesignProblem(description, parameters, poses, n_modes, variant,
                             compliance=compliance)
    from flexpkm.model.files import Where, parse
    path = Path(description)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise InvalidArgumentError(f"{path}: cannot read the description ({e})") from None
    return DesignProblem(parse(text, Where(str(path))), parameters, poses, n_modes, variant,
                         source=str(path), compliance=compliance)


def _compliance_derivative(model, d) -> tuple:
    """``(c, dc (n_paths,))``: the largest principal compliance at the pose of
    the :class:`flexpkm.compiled.sensitivity.MatrixDerivatives` ``d`` and
    ``-u^T dK_cc/dp u`` (module doc; NaN for the parameters that move frames)."""
    na = d.reduced.n_a
    J_p = d.reduced.J[model.layout.n_t:, na:]
    KiJ = np.linalg.solve(d.K_cc, J_p.T)
    lam, V = np.linalg.eigh(J_p @ KiJ)
    u = KiJ @ V[:, -1]
    dc = -np.einsum("i,kij,j->k", u, d.dK, u)
    dc[list(d.moves)] = np.nan
    return float(lam[-1]), dc


def gradient_check(problem: DesignProblem, x, name="min_f1", rel_step=1e-3) -> float:
    """The largest relative difference ``|dg/dp - D| / max|dg/dp|`` over the
    rows (poses) and parameters of the criterion ``name``, D the Richardson
    extrapolation ``(4 D(h/2) - D(h)) / 3`` of central differences of
    :meth:`DesignProblem.values` (step ``h = rel_step |x_k|``, or
    ``rel_step (upper - lower)`` at ``x_k = 0``)."""
    x = np.asarray(x, float)
    exact = problem.evaluate(x).rows(name)[1]
    err = 0.0
    for k in range(len(x)):
        rich = (4 * problem._central(x, k, name, rel_step / 2)
                - problem._central(x, k, name, rel_step)) / 3
        err = max(err, float(np.max(np.abs(exact[:, k] - rich)) / np.max(np.abs(exact[:, k]))))
    return err
