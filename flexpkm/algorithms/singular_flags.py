"""Singularity flags along a sampled motion (issue 19 item 1): the
distances of :mod:`flexpkm.algorithms.singularity` per sample, a warning
near a singularity, a refusal at one or across one (a sign change of a
block's determinant between two samples). Used by the rigid IDM
(:func:`flexpkm.analysis.idm.path_inverse_dynamics`)."""
from __future__ import annotations

import warnings

import numpy as np

from flexpkm.algorithms.singularity import NEAR, SINGULAR, block_measures, blocks
from flexpkm.errors import NearSingularWarning, SingularConfigurationError


def check_samples(model, q_tot, t=None, near=NEAR, singular=SINGULAR, what="path"):
    """Per-sample distances of the Type 2 and per-leg LPJTS blocks along a
    sampled motion ``q_tot`` (n, n_tot) at times ``t`` (n,) s: returns
    ``(names, distances (n, k))``. Warns (:class:`flexpkm.errors.NearSingularWarning`)
    at the first sample below ``near``; raises :class:`SingularConfigurationError`
    at the first sample at or below ``singular``, or where the sign of a
    square block's determinant changes between two samples (the motion
    crosses the singularity between them, where its efforts are unbounded
    unless planned for it: Chapter 9). ``singular = 0`` refuses nothing: a
    crossing is then in the warning."""
    wanted = [b.name for b in blocks(model) if b.kind in ("type 2", "LPJTS")]
    raw = block_measures(model, q_tot, which=wanted)
    names = tuple(raw)
    d = np.stack([raw[n][0] for n in names], axis=1) if names else np.zeros((len(q_tot), 0))
    t = np.arange(len(d)) if t is None else np.asarray(t)
    unit = " s" if t.dtype.kind == "f" else ""
    crossed = None
    event = _first_event(raw, singular)
    if event is not None:
        first, n, is_hit = event
        where = (f"at t = {t[first]:g}{unit} (distance {raw[n][0][first]:.3g} <= {singular:g})"
                 if is_hit else f"between t = {t[first]:g}{unit} and "
                 f"{t[first + 1]:g}{unit} (the sign of its determinant changes)")
        if singular > 0:
            raise SingularConfigurationError(
                f"{what} reaches a {n} singularity {where}: the inverse dynamic model "
                f"degenerates there (Section 9.2), its efforts are unbounded", matrix=n,
                where=where)
        crossed = f"; it crosses the {n} singularity {where}"
    if (d.size and d.min() < near) or crossed:
        k, j = np.unravel_index(np.argmin(d) if crossed and not d.min() < near
                                else np.argmax(d < near), d.shape)
        warnings.warn(NearSingularWarning(
            f"{what} comes near a {names[j]} singularity from t = {t[k]:g}{unit} (distance "
            f"{d[k, j]:.3g}; smallest {d.min():.3g} at t = {t[np.argmin(d.min(1))]:g}{unit})"
            + (crossed or "")), stacklevel=2)
    return names, d


def _first_event(raw, singular):
    """``(sample, block name, at-or-below-threshold)`` of the earliest sample
    at or below ``singular`` (none when 0) or before a sign change of a
    block's determinant; on a tie an LPJTS block before the Type 2 one (the
    Type 2 block loses rank with it: the leg is the more precise answer).
    None when there is no event."""
    best = None
    for n, (dist, sign, _) in raw.items():
        flips = np.flatnonzero(sign[:-1] * sign[1:] < 0)
        hit = np.flatnonzero(dist <= singular) if singular > 0 else np.zeros(0, int)
        first = min([*flips, *hit], default=None)
        if first is None:
            continue
        key = (int(first), n.startswith("type 2"))
        if best is None or key < best[0]:
            best = (key, (int(first), n, bool(np.isin(first, hit))))
    return None if best is None else best[1]
