"""Base dynamic parameters by the QR decomposition of the observation
matrix (Briot & Khalil Section 8.7.4, Eqs. (8.266)-(8.274); Gautier 1991).

``W_tot`` stacks the regressor (:mod:`flexpkm.identification.regressor`)
at ``r`` random states (assembled configurations near the reference,
random velocities and accelerations). A parameter whose column is zero has
no effect; of the others, taken in the order (8.274) of
:mod:`flexpkm.identification.standard`, a column in the span of the ones
before it is grouped: the QR decomposition without pivoting of the columns
scaled to unit norm gives ``|R_kk|``, the sine of the angle between column
k and the span of the previous ones, and ``|R_kk| < tol`` marks it as
dependent (the book's ``alpha = eps max |R_jj|`` with unit columns). Then
``W_2 = W_1 beta`` (8.270), ``beta = W_1^+ W_2`` (8.273) and the base
parameters are ``chi_b = chi_1 + beta chi_2`` (8.272).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg

from flexpkm.algorithms.assembly import reference_configuration
from flexpkm.algorithms.reference import build_model
from flexpkm.errors import InvalidArgumentError
from flexpkm.identification.path import newton_batch
from flexpkm.identification.regressor import regressor, require_rigid
from flexpkm.identification.standard import StandardParameters, standard_parameters

#: |R_kk| of a unit column below this: the column depends on the previous ones
RANK_TOL = 1e-8
#: a column whose norm is below this fraction of the largest one has no effect
ZERO_TOL = 1e-10
#: grouping coefficients (on unit columns) below this are round-off, dropped
BETA_TOL = 1e-9


@dataclass(frozen=True, eq=False)
class BaseParameters:
    """The base parameters of a rigid model.

    standard : :class:`flexpkm.identification.standard.StandardParameters`
    base : (n_b,) standard columns kept (``chi_1``); symbols (n_b,) their
        names, with an ``R`` when other parameters are grouped in them
        (``ZZ11R``)
    grouped : (n_g,) standard columns grouped (``chi_2``); beta (n_b, n_g)
        of (8.270): ``chi_b = chi_1 + beta chi_2``
    zero : standard columns without effect on the IDM
    values : (n_b,) ``chi_b`` of the file's standard parameters (SI)
    samples : the number of random states of ``W_tot``
    """

    standard: StandardParameters
    base: np.ndarray
    symbols: tuple
    grouped: np.ndarray
    beta: np.ndarray
    zero: np.ndarray
    values: np.ndarray
    samples: int

    @property
    def n_b(self) -> int:
        return len(self.base)

    def of(self, chi) -> np.ndarray:
        """``chi_b`` (n_b,) of standard parameters ``chi`` (n_st,) (8.272)."""
        chi = np.asarray(chi, float)
        return chi[self.base] + self.beta @ chi[self.grouped]

    def relation(self, i: int, digits: int = 5) -> str:
        """The grouping relation of base parameter ``i``, e.g.
        ``"ZZ11R = ZZ11 + IA11 - 0.24158 MX12 + 0.045369 M12"``."""
        std = self.standard.symbols
        text = f"{self.symbols[i]} = {std[self.base[i]]}"
        for coef, k in zip(self.beta[i], self.grouped):
            if coef == 0:
                continue
            size = "" if abs(abs(coef) - 1) < 10 ** -digits else f"{abs(coef):.{digits}g} "
            text += f" {'-' if coef < 0 else '+'} {size}{std[k]}"
        return text

    def relations(self, digits: int = 5) -> list:
        """The relations of the grouped base parameters (those with an ``R``)."""
        return [self.relation(i, digits) for i, s in enumerate(self.symbols) if s.endswith("R")
                and s != self.standard.symbols[self.base[i]]]

    def to_dict(self) -> dict:
        std = self.standard.symbols
        return {"n_standard": len(std), "n_base": self.n_b, "samples": self.samples,
                "base": [{"symbol": s, "value": float(v), "relation": self.relation(i)}
                         for i, (s, v) in enumerate(zip(self.symbols, self.values))],
                "no_effect": [std[k] for k in self.zero]}


def random_states(model, samples, seed=0, spread=0.02):
    """``(q_tot (r, n_tot), qd_a (r, n_a), qdd_a (r, n_a))``: r random
    states, the commanded platform coordinates uniform within ``spread``
    (m or rad) of the reference configuration, assembled from it by the
    inverse geometric model (batched Newton steps,
    :func:`flexpkm.identification.path.newton_batch`; the draws whose loops
    stay open are replaced), velocities and accelerations standard normal
    (m or rad per s, per s^2). Raises :class:`InvalidArgumentError` when
    most draws fail."""
    rng = np.random.default_rng(seed)
    q0 = reference_configuration(model)
    com = list(model.layout.commanded)
    qs = np.zeros((0, len(q0)))
    for _ in range(5):
        q = np.tile(q0, (2 * samples, 1))
        q[:, com] += spread * rng.uniform(-1.0, 1.0, (2 * samples, len(com)))
        q, err = newton_batch(model, q, com, tol=1e-12, max_iter=12)
        qs = np.concatenate([qs, q[err < 1e-12]])[:samples]
        if len(qs) == samples:
            break
    else:
        raise InvalidArgumentError(f"{model.name}: only {len(qs)} of {10 * samples} random poses "
                                   f"within {spread} of the reference assemble; give a smaller "
                                   f"spread")
    shape = (samples, len(model.layout.actuated))
    return qs, rng.standard_normal(shape), rng.standard_normal(shape)


def observation_matrix(model, samples=None, seed=0, spread=0.02, friction=True):
    """``(W_tot (r n_a, n_st), standard, r)`` of (8.266)-(8.267) at random
    states (:func:`random_states`); ``samples`` r defaults to
    ``max(20, 1.5 n_st / n_a)``."""
    model = build_model(model)
    require_rigid(model, "base_parameters")
    std = standard_parameters(model)
    n_a = len(model.layout.actuated)
    r = samples or max(20, -(-3 * len(std.symbols) // (2 * n_a)))
    q, qd, qdd = random_states(model, r, seed, spread)
    W = regressor(model, q, qd, qdd, friction=friction)
    return np.swapaxes(W, 0, 1).reshape(-1, W.shape[-1]), std, r


def base_parameters(model, samples=None, seed=0, spread=0.02, tol=RANK_TOL,
                    friction=True) -> BaseParameters:
    """The base parameters of a rigid model (Section 8.7.4).

    model : Model or Robot (rigid, no actuation redundancy).
    samples : random states r (default ``max(20, 1.5 n_st / n_a)``);
    seed : of the random generator; spread : m or rad around the
    reference configuration (:func:`random_states`).
    tol : ``|R_kk|`` of unit columns below which a column is dependent.
    friction : False drops the FV, FS parameters (no effect).
    Returns :class:`BaseParameters`. Raises :class:`InvalidArgumentError`
    for a flexible model, actuation redundancy, or poses that do not assemble.
    """
    W, std, r = observation_matrix(model, samples, seed, spread, friction)
    norms = np.linalg.norm(W, axis=0)
    zero = np.flatnonzero(norms <= ZERO_TOL * norms.max())
    live = np.flatnonzero(norms > ZERO_TOL * norms.max())
    R = scipy.linalg.qr(W[:, live] / norms[live], mode="r")[0]
    independent = np.abs(np.diag(R)) >= tol
    base, grouped = live[independent], live[~independent]
    beta = np.linalg.lstsq(W[:, base], W[:, grouped], rcond=None)[0]
    beta[np.abs(beta * norms[base][:, None] / norms[grouped][None, :]) < BETA_TOL] = 0.0
    symbols = tuple(std.symbols[k] + ("R" if np.any(beta[i]) else "")
                    for i, k in enumerate(base))
    values = std.values[base] + beta @ std.values[grouped]
    return BaseParameters(std, base, symbols, grouped, beta, zero, values, r)
