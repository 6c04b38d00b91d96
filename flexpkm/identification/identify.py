"""Identification of the base dynamic parameters from a measured
trajectory by weighted least squares (Gautier 1991, Gautier & Poignet 2001;
Briot & Khalil Section 8.7, Briot & Gautier 2014).

The measured ``q_a(t)`` is smoothed and differentiated
(:mod:`flexpkm.identification.data`), the dependent coordinates come from
the forward geometric model (:mod:`flexpkm.identification.path`), and the
samples stack ``Y = W_b chi_b + rho`` with ``W_b`` the base columns of the
regressor (:mod:`flexpkm.identification.regressor`,
:mod:`flexpkm.identification.base`), one block of rows per actuator.

1. ordinary least squares: ``chi_OLS = W_b^+ Y``;
2. per actuator j, the error variance of its ``r_j`` rows
   ``sigma_j^2 = |rho_j|^2 / (r_j - n_b / n_a)`` (the degrees of freedom
   shared between the actuators);
3. rows weighted by ``1 / sigma_j``: ``chi = (G W_b)^+ G Y``, covariance
   ``C = ((G W_b)^T (G W_b))^-1``, standard deviations ``sigma_chi_k =
   sqrt(C_kk)`` and relative ones ``100 sigma_chi_k / |chi_k|`` (%);
4. the condition number of the weighted observation matrix ``G W_b``
   (2-norm), the figure an exciting trajectory minimises.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from flexpkm.algorithms.reference import build_model
from flexpkm.errors import InvalidArgumentError
from flexpkm.identification.base import BaseParameters, base_parameters
from flexpkm.identification.data import (ORDER, WINDOW, Measurement, actuator_names,
                                         differentiate, read_csv)
from flexpkm.identification.path import assemble_path
from flexpkm.identification.regressor import regressor, require_rigid

#: samples kept for the least squares (decimation) at most
MAX_SAMPLES = 200


@dataclass(frozen=True, eq=False)
class Identification:
    """The identified base parameters.

    base : :class:`flexpkm.identification.base.BaseParameters` (symbols,
        groupings, the file's values ``base.values``)
    values, std : (n_b,) identified ``chi_b`` and standard deviations (SI)
    relative_std : (n_b,) ``100 std / |values|``, %
    cond : condition number of the weighted observation matrix
    sigma : (n_a,) estimated error standard deviation per actuator (N, N m)
    residual_rms : (n_a,) rms of ``tau - W_b chi_b`` per actuator (N, N m)
    samples : samples used (after decimation); names : actuated coordinates
    """

    base: BaseParameters
    values: np.ndarray
    std: np.ndarray
    relative_std: np.ndarray
    cond: float
    sigma: np.ndarray
    residual_rms: np.ndarray
    samples: int
    names: tuple

    def to_dict(self) -> dict:
        return {"samples": self.samples, "condition_number": float(self.cond),
                "sigma": dict(zip(self.names, map(float, self.sigma))),
                "residual_rms": dict(zip(self.names, map(float, self.residual_rms))),
                "parameters": [{"symbol": s, "value": float(v), "std": float(d),
                                "relative_std_percent": float(p), "file_value": float(f),
                                "relation": self.base.relation(i)}
                               for i, (s, v, d, p, f) in enumerate(zip(
                                   self.base.symbols, self.values, self.std,
                                   self.relative_std, self.base.values))]}

    def lines(self) -> list:
        """A table: symbol, identified value, std, relative std, the file's value."""
        out = [f"{'parameter':<12} {'identified':>13} {'std':>11} {'std %':>8} {'file':>13}"]
        for s, v, d, p, f in zip(self.base.symbols, self.values, self.std, self.relative_std,
                                 self.base.values):
            out.append(f"{s:<12} {v:>13.6g} {d:>11.3g} {p:>8.3g} {f:>13.6g}")
        return out


def observation(model, data: Measurement, base: BaseParameters, window=WINDOW, order=ORDER,
                decimate=None, friction=True):
    """``(W_b (m, n_a, n_b), tau (m, n_a))`` of the measurement's samples
    after smoothing, differentiation (``window``, ``order``), the removal of
    half a window at each end and decimation (every ``decimate``-th
    sample; default: at most :data:`MAX_SAMPLES`)."""
    q, qd, qdd = differentiate(data, window, order)
    h = int(window) // 2
    keep = np.arange(h, len(data.t) - h)
    step = decimate or max(1, -(-len(keep) // MAX_SAMPLES))
    if not (isinstance(step, (int, np.integer)) and step >= 1):
        raise InvalidArgumentError(f"identify: decimate must be a positive integer, got {step!r}")
    keep = keep[::step]
    if len(keep) * len(data.names) <= base.n_b:
        raise InvalidArgumentError(f"identify: {len(keep)} samples of {len(data.names)} "
                                   f"actuators cannot determine {base.n_b} base parameters")
    q_tot = assemble_path(model, q[keep], stride=max(2, 25 // step))
    W = regressor(model, q_tot, qd[keep], qdd[keep], friction=friction)[..., base.base]
    return W, data.tau[keep]


def _weighted_least_squares(W, tau, symbols):
    """``(chi, std, cond, sigma, rms)`` of the steps of the module."""
    m, n_a, n_b = W.shape
    A = np.swapaxes(W, 0, 1).reshape(-1, n_b)
    Y = tau.T.reshape(-1)
    scale = np.linalg.norm(A, axis=0)
    s = np.linalg.svd(A / np.where(scale > 0, scale, 1.0), compute_uv=False)
    if scale.min() == 0 or s[-1] < 1e-10 * s[0]:
        k = int(np.argmin(scale)) if scale.min() == 0 else None
        raise InvalidArgumentError(
            "identify: the trajectory does not excite every base parameter (observation "
            f"matrix of rank < {n_b}{f'; no effect of {symbols[k]}' if k is not None else ''}); "
            "use a richer trajectory (exciting_trajectory)")
    chi = np.linalg.lstsq(A, Y, rcond=None)[0]
    rho = (Y - A @ chi).reshape(n_a, m)
    dof = m - n_b / n_a
    sigma = np.sqrt(np.sum(rho ** 2, axis=1) / dof)
    sigma = np.where(sigma > 0, sigma, np.finfo(float).tiny ** 0.25)
    g = np.repeat(1.0 / sigma, m)
    Aw = A * g[:, None]
    chi = np.linalg.lstsq(Aw, Y * g, rcond=None)[0]
    C = np.linalg.inv(Aw.T @ Aw)
    rms = np.sqrt(np.mean((Y - A @ chi).reshape(n_a, m) ** 2, axis=1))
    return chi, np.sqrt(np.diag(C)), np.linalg.cond(Aw), sigma, rms


def identify(model, data, base=None, window=WINDOW, order=ORDER, decimate=None,
             friction=True) -> Identification:
    """Weighted least-squares identification of the base parameters
    (Briot & Khalil Section 8.7: the IDM linear in the base parameters,
    (8.231) with the grouping (8.266)-(8.274), stacked over the samples).

    model : Model or Robot (rigid, no actuation redundancy): its geometry,
        and its standard parameters as the a priori values shown beside.
    data : a :class:`flexpkm.identification.data.Measurement` or the path of
        its CSV file (t, q_a, tau; :mod:`flexpkm.identification.data`).
    base : :class:`BaseParameters` (default: :func:`base_parameters`).
    window, order : the Savitzky-Golay filter; decimate : keep every k-th sample.
    friction : False identifies without the FV, FS parameters.
    Returns :class:`Identification`. Raises :class:`InvalidArgumentError`
    (flexible model, bad file or columns, a trajectory that does not excite
    every base parameter), :class:`flexpkm.errors.UnreachablePoseError`
    (a sample the forward geometric model cannot assemble).
    """
    model = build_model(model)
    require_rigid(model, "identify")
    if isinstance(data, (str, Path)):
        data = read_csv(data, model)
    names = actuator_names(model)
    if tuple(data.names) != names:
        raise InvalidArgumentError(f"identify: the measurement's actuators {list(data.names)} "
                                   f"are not {model.name}'s {list(names)}")
    base = base or base_parameters(model, friction=friction)
    W, tau = observation(model, data, base, window, order, decimate, friction)
    chi, std, cond, sigma, rms = _weighted_least_squares(W, tau, base.symbols)
    with np.errstate(divide="ignore"):
        relative = 100 * std / np.abs(chi)
    return Identification(base=base, values=chi, std=std, relative_std=relative, cond=cond,
                          sigma=sigma, residual_rms=rms, samples=len(tau), names=names)
