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

from flexpkm.errors import FlexPKMError
from flexpkm.algorithms.modal import natural_frequencies
from flexpkm.cli.progress import ProgressBar


@dataclass
class SweepResult:
    """Frequencies along a path (N poses, n modes).

    names : pose component names (k,)
    poses : (N, k) pose components along the path
    parameter : (N,) s in [0, 1]
    frequencies_hz : (N, n), NaN where a pose failed (``on_error="nan"``)
    """

    names: tuple
    poses: np.ndarray
    parameter: np.ndarray
    frequencies_hz: np.ndarray

    def to_csv(self, path) -> Path:
        """Write ``s, <pose names>, f1_hz, ..., fn_hz`` (one row per pose)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        n = self.frequencies_hz.shape[1]
        header = ",".join(["s", *self.names, *[f"f{i + 1}_hz" for i in range(n)]])
        data = np.column_stack([self.parameter, self.poses, self.frequencies_hz])
        np.savetxt(path, data, delimiter=",", header=header, comments="", fmt="%.10g")
        return path


def path_poses(start, stop, steps: int):
    """(s (N,), poses (N, k)) of the straight path start -> stop.
    Raises ValueError for steps < 2 or start/stop of different lengths."""
    start, stop = np.atleast_1d(np.asarray(start, float)), np.atleast_1d(np.asarray(stop, float))
    if start.shape != stop.shape or start.ndim != 1:
        raise ValueError(f"start {start.tolist()} and stop {stop.tolist()} must have the same length")
    if int(steps) < 2:
        raise ValueError(f"a sweep needs at least 2 steps, got {steps}")
    s = np.linspace(0.0, 1.0, int(steps))
    return s, start + s[:, None] * (stop - start)


def configurations(configure, poses, progress=None) -> np.ndarray:
    """``q_t`` (N, n_t) of the poses (N, k): ``configure(pose)`` for each
    pose (a case's geometric model; it raises for unreachable poses).
    ``progress`` : a :class:`ProgressBar` or None."""
    out = []
    for pose in poses:
        out.append(np.asarray(configure(pose), float))
        if progress is not None:
            progress.update(1)
    return np.stack(out)


def frequency_sweep(robot, configure, start, stop, steps: int, n_modes: int | None = 5,
                    names=None, chunk: int | None = 256, on_error: str = "raise",
                    progress=None, **modal_options) -> SweepResult:
    """Natural frequencies along the straight path start -> stop.

    robot : :class:`flexpkm.model.description.Robot`
    configure : pose (k,) -> q_t (n_t,)
    start, stop : (k,) pose components; steps : N >= 2 poses
    n_modes : number of frequencies kept (None: all)
    chunk : poses per call of :func:`flexpkm.algorithms.modal.natural_frequencies`
            (None: the whole batch in one call)
    on_error : ``"raise"`` (a :class:`flexpkm.errors.FlexPKMError` of any
            pose propagates) or ``"nan"`` (such poses get NaN frequencies)
    progress : None (a bar on stderr when it is a terminal and N >= 50),
            True / False, or a stream
    modal_options : passed to natural_frequencies (actuator_stiffness, ...)
    """
    s, poses = path_poses(start, stop, steps)
    N = len(s)
    names = tuple(names) if names is not None else tuple(f"p{i + 1}" for i in range(poses.shape[1]))
    chunk = N if not chunk else int(chunk)
    with _bar(progress, N) as bar:
        q = configurations(configure, poses, bar)
        parts = []
        for b in range(0, N, chunk):
            parts.append(_chunk(robot, q[b:b + chunk], n_modes, on_error, modal_options))
            bar.update(len(parts[-1]))
    width = max(p.shape[1] for p in parts)
    f = np.concatenate([np.pad(p, ((0, 0), (0, width - p.shape[1])), constant_values=np.nan)
                        for p in parts])
    return SweepResult(names, poses, s, f)


def _bar(progress, N) -> ProgressBar:
    """Bar over the N configurations then the N eigenproblems."""
    if hasattr(progress, "write"):
        return ProgressBar(2 * N, "sweep", stream=progress, enabled=True)
    enabled = (None if N >= 50 else False) if progress is None else bool(progress)
    return ProgressBar(2 * N, "sweep", enabled=enabled)


def _chunk(robot, q, n_modes, on_error, options) -> np.ndarray:
    """Frequencies (b, n) of a batch; per pose (NaN on error) when the
    batch fails and ``on_error == "nan"``."""
    try:
        return natural_frequencies(robot, q, n_modes=n_modes, shapes=False, **options).frequencies_hz
    except FlexPKMError:
        if on_error != "nan":
            raise
    rows = []
    for qi in q:
        try:
            rows.append(natural_frequencies(robot, qi, n_modes=n_modes, shapes=False,
                                            **options).frequencies_hz)
        except FlexPKMError:
            rows.append(None)
    n = max((len(r) for r in rows if r is not None), default=n_modes or 1)
    return np.array([r if r is not None else np.full(n, np.nan) for r in rows])
