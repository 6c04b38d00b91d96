"""Natural frequencies along a straight path of poses and their CSV.

The plot lives in :mod:`flexpkm.io.plots`. The path is ``pose(s) = start + s (stop - start)``, s in [0, 1], in the
case's own pose components (DualEMPS: actuator positions q11, q21 in m;
NaVARo: x, y in m and theta in rad). A ``configure(pose) -> q_t`` function
(the case's geometric model) gives the assembled configuration of every
pose; the batch (B, n_t) goes to :func:`flexpkm.algorithms.modal.natural_frequencies`
in one call (or in chunks of ``chunk`` poses, with a progress bar on
stderr: tqdm is not needed).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from flexpkm.errors import InvalidArgumentError

from flexpkm.errors import FlexPKMError, with_context
from flexpkm.algorithms.modal import natural_frequencies
from flexpkm.model.build import build_model


@dataclass
class SweepResult:
    """Frequencies along a path (N poses, n modes).

    names : pose component names (k,)
    poses : (N, k) pose components along the path
    parameter : (N,) s in [0, 1]
    frequencies_hz : (N, n), NaN where a pose failed (``on_error="nan"``)
    status : (N,) ``"ok"`` or why the pose failed (unreachable, singular...)
    """

    names: tuple
    poses: np.ndarray
    parameter: np.ndarray
    frequencies_hz: np.ndarray
    status: tuple = ()

    def to_csv(self, path) -> Path:
        """Write ``s, <pose names>, f1_hz, ..., fn_hz, status`` (one row per
        pose; NaN frequencies where ``status`` says why)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        n = self.frequencies_hz.shape[1]
        header = ",".join(["s", *self.names, *[f"f{i + 1}_hz" for i in range(n)], "status"])
        data = np.column_stack([self.parameter, self.poses, self.frequencies_hz])
        status = self.status or ("ok",) * len(data)
        lines = [header] + [",".join(f"{v:.10g}" for v in row) + "," + _csv_text(st)
                            for row, st in zip(data, status)]
        path.write_text("\n".join(lines) + "\n")
        return path


def _csv_text(text: str) -> str:
    """One CSV field: quoted, inner quotes doubled, on one line."""
    return '"' + " ".join(str(text).split()).replace('"', '""') + '"'


def path_poses(start, stop, steps: int):
    """(s (N,), poses (N, k)) of the straight path start -> stop.
    Raises ValueError for steps < 2 or start/stop of different lengths."""
    start, stop = np.atleast_1d(np.asarray(start, float)), np.atleast_1d(np.asarray(stop, float))
    if start.shape != stop.shape or start.ndim != 1:
        raise InvalidArgumentError(f"start {start.tolist()} and stop {stop.tolist()} must have the same length")
    if int(steps) < 2:
        raise InvalidArgumentError(f"a sweep needs at least 2 steps, got {steps}")
    s = np.linspace(0.0, 1.0, int(steps))
    return s, start + s[:, None] * (stop - start)


def configurations(configure, poses, on_error="raise", progress=None):
    """``q_t`` (N, n_t) of the poses (N, k): ``configure(pose)`` for each
    pose (a case's geometric model; it raises for unreachable poses), and a
    status per pose (``"ok"`` or the error's message; the row is NaN).

    on_error : ``"raise"`` or ``"nan"`` (see :func:`frequency_sweep`)
    progress : ``progress(done, total)`` callback or None.
    """
    rows, status = [], []
    for k, pose in enumerate(poses):
        try:
            rows.append(np.asarray(configure(pose), float))
            status.append("ok")
        except FlexPKMError as e:
            if on_error != "nan":
                raise with_context(e, f"pose {k} ({', '.join(f'{v:.6g}' for v in pose)})") from None
            rows.append(None)
            status.append(f"{type(e).__name__}: {e}")
        if progress is not None:
            progress(k + 1, 2 * len(poses))
    good = [r for r in rows if r is not None]
    n_t = good[0].shape[-1] if good else 0
    return np.stack([r if r is not None else np.full(n_t, np.nan) for r in rows]), status


def frequency_sweep(model, configure, start, stop, steps: int, n_modes: int | None = 5,
                    names=None, chunk: int | None = 256, on_error: str = "raise",
                    progress=None, **modal_options) -> SweepResult:
    """Natural frequencies along the straight path start -> stop.

    model : :class:`flexpkm.model.Model` (or a Robot, built once here)
    configure : pose (k,) -> q_t (n_t,)
    start, stop : (k,) pose components; steps : N >= 2 poses
    n_modes : number of frequencies kept (None: all)
    chunk : poses per call of :func:`flexpkm.algorithms.modal.natural_frequencies`
            (None: the whole batch in one call)
    on_error : ``"raise"`` (a :class:`flexpkm.errors.FlexPKMError` of any
            pose propagates, naming the pose) or ``"nan"`` (such poses get
            NaN frequencies and their reason in ``status``)
    progress : ``progress(done, total)`` callback (configurations, then
            eigenproblems: total = 2 N) or None
    modal_options : passed to natural_frequencies (actuator_stiffness, ...)
    """
    model = build_model(model)
    s, poses = path_poses(start, stop, steps)
    N = len(s)
    names = tuple(names) if names is not None else tuple(f"p{i + 1}" for i in range(poses.shape[1]))
    chunk = N if not chunk else int(chunk)
    q, status = configurations(configure, poses, on_error, progress)
    parts = []
    for b in range(0, N, chunk):
        parts.append(_chunk(model, q[b:b + chunk], b, n_modes, on_error, status, modal_options))
        if progress is not None:
            progress(N + min(b + chunk, N), 2 * N)
    width = max(p.shape[1] for p in parts)
    f = np.concatenate([np.pad(p, ((0, 0), (0, width - p.shape[1])), constant_values=np.nan)
                        for p in parts])
    return SweepResult(names, poses, s, f, tuple(status))


def _frequencies(model, q, n_modes, options):
    return natural_frequencies(model, q, n_modes=n_modes, shapes=False, **options).frequencies_hz


def _chunk(model, q, first, n_modes, on_error, status, options) -> np.ndarray:
    """Frequencies (b, n) of the poses ``first ...`` of the path; pose by
    pose (NaN and a status on error) when the batch fails and ``on_error ==
    "nan"``; errors name the pose's index in the whole path."""
    ok = np.isfinite(q).all(axis=1)
    if ok.all():
        try:
            return _frequencies(model, q, n_modes, options)
        except FlexPKMError:
            pass
    rows = []
    for k, qi in enumerate(q):
        try:
            rows.append(_frequencies(model, qi, n_modes, options) if ok[k] else None)
        except FlexPKMError as e:
            if on_error != "nan":
                raise with_context(e, f"pose {first + k} of the path") from None
            status[first + k] = f"{type(e).__name__}: {e}"
            rows.append(None)
    n = max((len(r) for r in rows if r is not None), default=n_modes or 1)
    return np.array([r if r is not None else np.full(n, np.nan) for r in rows])
