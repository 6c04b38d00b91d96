"""A measured trajectory for identification: time, actuated coordinates
and actuator efforts, as a CSV file, and the velocities and accelerations
of the actuated coordinates by a Savitzky-Golay filter.

CSV: a header line, then one row per sample, comma-separated::

    t,q11,q21,tau_q11,tau_q21
    0.0,1.7453,1.3963,0.0123,-0.0456

``t`` in s (uniform sampling), one column per actuated coordinate named as
in the model (``model.layout`` names: ``q11``, m or rad) and one effort per
actuator, ``tau_`` + its name (N or N m), in any order; other columns are
ignored.

Differentiation (Savitzky & Golay 1964; the smoothing differentiator of
identification practice, Gautier 1997): a polynomial of degree ``order``
fitted by least squares over ``window`` samples centred on each sample
(:func:`savitzky_golay`, the ends by the first and last windows' fits) gives the
smoothed position and its first two derivatives. A polynomial of degree
<= order is kept exactly. The efforts are not filtered: their noise is the
least-squares error, and a filter would smear the jumps of Coulomb
friction where a velocity changes sign (``tau`` filtered alone, without
the regressor's sign columns, was biased by several standard deviations on
the five-bar).
"""
from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from flexpkm.errors import InvalidArgumentError

#: default Savitzky-Golay window (samples, odd) and polynomial order
WINDOW, ORDER = 21, 4


@dataclass(frozen=True, eq=False)
class Measurement:
    """t (n,) s; q_a (n, n_a) m or rad; tau (n, n_a) N or N m; names (n_a,)
    the actuated coordinates (``model.layout`` names)."""

    t: np.ndarray
    q_a: np.ndarray
    tau: np.ndarray
    names: tuple

    @property
    def dt(self) -> float:
        """The sampling period, s. Raises :class:`InvalidArgumentError`
        for fewer than 3 samples or a non-uniform sampling."""
        steps = np.diff(self.t)
        if len(steps) < 2 or not steps.min() > 0 or np.ptp(steps) > 1e-6 * steps.mean():
            raise InvalidArgumentError(
                f"measurement: the times must be uniformly increasing (at least 3 samples); got "
                f"{len(self.t)} samples, steps from {steps.min(initial=0):.6g} to "
                f"{steps.max(initial=0):.6g} s")
        return float(steps.mean())


def actuator_names(model) -> tuple:
    """The names of ``model``'s actuated coordinates, in layout order."""
    return tuple(model.layout.names[i] for i in model.layout.actuated)


def read_csv(path, model) -> Measurement:
    """The :class:`Measurement` of a CSV file (see the module) for ``model``.
    Raises :class:`InvalidArgumentError` naming the file and the missing
    column or the row and column of a value that is not a finite number."""
    path = Path(path)
    names = actuator_names(model)
    try:
        with path.open(newline="", encoding="utf-8") as f:
            rows = list(csv.reader(f))
    except (OSError, UnicodeDecodeError) as e:
        raise InvalidArgumentError(f"{path}: cannot read the measurement ({e})") from None
    if not rows:
        raise InvalidArgumentError(f"{path}: empty file (a header t,{','.join(names)},... expected)")
    header = [h.strip() for h in rows[0]]
    wanted = ["t", *names, *(f"tau_{n}" for n in names)]
    missing = [w for w in wanted if w not in header]
    if missing:
        raise InvalidArgumentError(f"{path}: no column {', '.join(missing)} (the header has "
                                   f"{', '.join(header)}; {model.name} needs {', '.join(wanted)})")
    cols = [header.index(w) for w in wanted]
    data = np.empty((len(rows) - 1, len(cols)))
    for i, row in enumerate(rows[1:]):
        for k, c in enumerate(cols):
            try:
                data[i, k] = float(row[c])
            except (ValueError, IndexError):
                data[i, k] = np.nan
            if not np.isfinite(data[i, k]):
                raise InvalidArgumentError(f"{path}: line {i + 2}, column {wanted[k]}: not a "
                                           f"finite number ({row[c] if c < len(row) else ''!r})")
    n_a = len(names)
    return Measurement(data[:, 0], data[:, 1:1 + n_a], data[:, 1 + n_a:], names)


def write_csv(path, data: Measurement) -> Path:
    """Write ``data`` as the CSV of :func:`read_csv` (17 significant digits)."""
    path = Path(path)
    header = ["t", *data.names, *(f"tau_{n}" for n in data.names)]
    table = np.column_stack([data.t, data.q_a, data.tau])
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows([[repr(float(x)) for x in row] for row in table])
    return path


def differentiate(data: Measurement, window=WINDOW, order=ORDER):
    """``(q_a, qd_a, qdd_a)`` (n, n_a) each: the Savitzky-Golay smoothed
    positions, velocities and accelerations (see the module). Raises
    :class:`InvalidArgumentError` for an even or too long window, an order
    not below the window, or a bad sampling."""
    dt = data.dt
    window, order = int(window), int(order)
    if window % 2 == 0 or window > len(data.t) or not 2 <= order < window:
        raise InvalidArgumentError(f"differentiation: the window ({window} samples) must be odd "
                                   f"and at most the {len(data.t)} samples, the order ({order}) "
                                   f"at least 2 and below the window")
    return tuple(savitzky_golay(data.q_a, window, order, k, dt) for k in range(3))


def savitzky_golay(x, window, order, deriv, dt):
    """The ``deriv``-th derivative (n, m) of the samples ``x`` (n, m) at
    period ``dt`` by local least-squares polynomials of degree ``order``
    over ``window`` samples: centred inside, the first and last windows'
    polynomials at the ends (scipy.signal.savgol_filter's ``mode="interp"``,
    without importing scipy.signal, 3 s here)."""
    h = window // 2
    s = np.arange(-h, h + 1, dtype=float)
    V = s[:, None] ** np.arange(order + 1)                 # (window, order + 1)
    fit = np.linalg.pinv(V)                                 # polynomial coefficients
    powers = np.arange(order + 1)
    falling = np.array([np.prod(np.arange(p - deriv + 1, p + 1)) if p >= deriv else 0.0
                        for p in powers])                   # d^k s^p / ds^k = falling s^(p-k)
    at = lambda u: falling * np.where(powers >= deriv, u, 1.0) ** np.maximum(powers - deriv, 0)
    scale = dt ** -deriv
    centre = at(0.0) @ fit                                  # (window,) the filter taps
    n = len(x)
    out = np.empty_like(np.asarray(x, float))
    windows = np.lib.stride_tricks.sliding_window_view(x, window, axis=0)   # (n-2h, m, window)
    out[h:n - h] = scale * windows @ centre
    ends = np.stack([at(u) for u in s]) @ fit               # (window, window)
    out[:h] = scale * (ends[:h] @ x[:window])
    out[n - h:] = scale * (ends[h + 1:] @ x[n - window:])
    return out
