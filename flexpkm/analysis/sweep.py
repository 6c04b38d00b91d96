"""Natural frequencies along a straight path of poses and their CSV.

The plot lives in :mod:`flexpkm.io.plots`. The path is ``pose(s) = start + s (stop - start)``, s in [0, 1], in the
case's own pose components (DualEMPS: actuator positions q11, q21 in m;
NaVARo: x, y in m and theta in rad). A ``configure(pose) -> q_tot`` function
(the case's geometric model) gives the assembled configuration of every
pose; the batch (B, n_tot) goes to :func:`flexpkm.analysis.modal.natural_frequencies`
in one call (or in chunks of ``chunk`` poses, with a progress bar on
stderr: tqdm is not needed).
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from flexpkm.algorithms.conditioning import check_modes_count
from flexpkm.analysis.backend import DEFAULT_BACKEND, choose_backend
from flexpkm.analysis.modal import natural_frequencies
from flexpkm.errors import FlexPKMError, Interrupted, InvalidArgumentError, with_context
from flexpkm.algorithms.reference import build_model


@dataclass(kw_only=True)
class SweepResult:
    """Frequencies along a path (N poses, n modes).

    names : pose component names (k,)
    poses : (N, k) pose components along the path
    parameter : (N,) s in [0, 1]
    frequencies_hz : (N, n), NaN where a pose failed (``on_error="nan"``)
    status : (N,) ``"ok"``, ``"near-singular"`` (computed, see the measures)
             or why the pose failed (unreachable, singular...)
    measures : name -> (N,) ``cond_closure``, ``cond_pencil``,
             ``singularity_measure`` of :class:`flexpkm.algorithms.modal.Modes`
             (NaN where the pose failed)
    complete : False when the sweep was interrupted (the poses are the
             finished ones, from the start of the path)
    backend : what computed the reduced matrices: ``"numpy"``,
             ``"compiled"``, or ``"compiled+numpy"`` (``"auto"``: chunks where
             the compiled q_dep was ill-conditioned ran on numpy)
    backend_reason : why (``"asked"``, ``"auto: ..."``, one per distinct reason)
    """

    names: tuple
    poses: np.ndarray
    parameter: np.ndarray
    frequencies_hz: np.ndarray
    status: tuple = ()
    measures: dict = None
    complete: bool = True
    backend: str = "numpy"
    backend_reason: str = ""

    def to_csv(self, path) -> Path:
        """Write ``s, <pose names>, f1_hz, ..., fn_hz, <measures>, status``
        (one row per pose; NaN frequencies where ``status`` says why). The
        file is written under a temporary name in its folder and renamed
        when complete: a file under ``path`` is never a partial table."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        n = self.frequencies_hz.shape[1]
        measures = self.measures or {}
        header = ",".join(["s", *self.names, *[f"f{i + 1}_hz" for i in range(n)], *measures,
                           "status"])
        data = np.column_stack([self.parameter, self.poses, self.frequencies_hz,
                                *measures.values()])
        status = self.status or ("ok",) * len(data)
        lines = [header] + [",".join(f"{v:.10g}" for v in row) + "," + _csv_text(st)
                            for row, st in zip(data, status)]
        tmp = path.with_name(f".part-{os.getpid()}-{path.name}")
        try:
            tmp.write_text("\n".join(lines) + "\n")
            os.replace(tmp, path)
        finally:
            tmp.unlink(missing_ok=True)
        return path


def _csv_text(text: str) -> str:
    """One CSV field: quoted, inner quotes doubled, on one line."""
    return '"' + " ".join(str(text).split()).replace('"', '""') + '"'


#: the largest number of poses of a sweep (checked before anything is allocated)
MAX_POSES = 1_000_000


def path_poses(start, stop, steps: int):
    """(s (N,), poses (N, k)) of the straight path start -> stop.
    Raises InvalidArgumentError for steps < 2 or > MAX_POSES, start/stop of
    different lengths or not finite."""
    start, stop = np.atleast_1d(np.asarray(start, float)), np.atleast_1d(np.asarray(stop, float))
    if start.shape != stop.shape or start.ndim != 1:
        raise InvalidArgumentError(f"start {start.tolist()} and stop {stop.tolist()} must have the same length")
    if int(steps) < 2:
        raise InvalidArgumentError(f"a sweep needs at least 2 steps, got {steps}")
    if int(steps) > MAX_POSES:
        raise InvalidArgumentError(f"a sweep has at most {MAX_POSES} poses, got {steps}")
    if not (np.isfinite(start).all() and np.isfinite(stop).all()):
        raise InvalidArgumentError(f"start {start.tolist()} and stop {stop.tolist()} must be "
                                   "finite")
    s = np.linspace(0.0, 1.0, int(steps))
    return s, start + s[:, None] * (stop - start)


def configurations(configure, poses, on_error="raise", progress=None, first=0):
    """``q_tot`` (N, n_tot) of the poses (N, k): ``configure(pose)`` for each
    pose (a case's geometric model; it raises for unreachable poses), and a
    status per pose (``"ok"`` or the error's message; the row is NaN).

    on_error : ``"raise"`` or ``"nan"`` (see :func:`frequency_sweep`)
    progress : ``progress(done, total)`` callback or None.
    first : index of ``poses[0]`` in the whole path (for the messages).
    """
    rows, status = [], []
    for k, pose in enumerate(poses):
        try:
            q = np.asarray(configure(pose), float)
            if q.ndim != 1 or not np.isfinite(q).all():
                raise InvalidArgumentError(f"the configuration is not a finite vector: {q}")
            rows.append(q)
            status.append("ok")
        except FlexPKMError as e:
            if on_error != "nan":
                raise with_context(e, f"pose {first + k} "
                                      f"({', '.join(f'{v:.6g}' for v in pose)})") from None
            rows.append(None)
            status.append(f"{type(e).__name__}: {e}")
        if progress is not None:
            progress(k + 1, 2 * len(poses))
    good = [r for r in rows if r is not None]
    n_tot = good[0].shape[-1] if good else 0
    return np.stack([r if r is not None else np.full(n_tot, np.nan) for r in rows]), status


def frequency_sweep(model, configure, start, stop, steps: int, n_modes: int | None = 5,
                    names=None, chunk: int | None = 256, on_error: str = "raise",
                    progress=None, backend: str = DEFAULT_BACKEND,
                    **modal_options) -> SweepResult:
    """Natural frequencies along the straight path start -> stop.

    model : :class:`flexpkm.model.Model` (or a Robot, built once here)
    configure : pose (k,) -> q_tot (n_tot,)
    start, stop : (k,) pose components; steps : N >= 2 poses
    n_modes : number of frequencies kept (None: all)
    chunk : poses per call of :func:`flexpkm.natural_frequencies`
            (None: the whole batch in one call); each chunk is configured
            then solved before the next one starts
    on_error : ``"raise"`` (a :class:`flexpkm.errors.FlexPKMError` of any
            pose propagates, naming the pose) or ``"nan"`` (such poses get
            NaN frequencies and their reason in ``status``)
    progress : ``progress(done, total)`` callback (configurations, then
            eigenproblems, chunk by chunk: total = 2 N) or None
    backend : ``"auto"`` (default), ``"numpy"`` (the reference) or
            ``"compiled"`` (the reduced matrices from generated C code,
            :mod:`flexpkm.compiled.modal`: compiled once per robot, 1-40 s,
            cached on disk; then about twice as fast; same results to
            round-off); the rule: :mod:`flexpkm.analysis.backend`
    modal_options : passed to natural_frequencies (actuator_stiffness, ...)
    Raises :class:`flexpkm.errors.Interrupted` on Ctrl-C, its ``partial``
    the SweepResult of the finished chunks (``complete`` False);
    :class:`flexpkm.errors.BackendUnavailableError` before any pose when
    ``"compiled"`` cannot run (with ``on_error="nan"``, a pose where its q_dep
    is ill-conditioned gets NaN and the reason in its status).
    """
    model = build_model(model)
    s, poses = path_poses(start, stop, steps)
    n_modes = check_modes_count(n_modes)
    if on_error not in ("raise", "nan"):
        raise InvalidArgumentError(f"on_error must be 'raise' or 'nan', got {on_error!r}")
    choose_backend(backend, "frequency_sweep", model)      # refused before any pose
    ran = {}                                                # backend -> reasons
    modal_options = dict(modal_options, backend=backend, ran=ran)
    N = len(s)
    names = tuple(names) if names is not None else tuple(f"p{i + 1}" for i in range(poses.shape[1]))
    chunk = N if not chunk else int(chunk)
    parts, status, done = [], [], 0
    try:
        for b in range(0, N, chunk):
            step = None if progress is None else (lambda d, _, b=b: progress(2 * b + d, 2 * N))
            q, st = configurations(configure, poses[b:b + chunk], on_error, step, first=b)
            parts.append(_chunk(model, q, b, n_modes, on_error, st, modal_options))
            status += st
            done = len(status)
            if progress is not None:
                progress(2 * done, 2 * N)
    except KeyboardInterrupt:
        partial = _result(names, poses[:done], s[:done], parts, status, ran, complete=False)
        raise Interrupted(f"interrupted after {done} of {N} poses", partial) from None
    return _result(names, poses, s, parts, status, ran)


def _result(names, poses, s, parts, status, ran, complete=True) -> SweepResult:
    """The SweepResult of the chunks ``parts`` [(f (b, n), measures)] (a chunk
    where no pose could be computed has n = 0; it is padded with NaN)."""
    width = max((p[0].shape[1] for p in parts), default=0)
    f = np.concatenate([np.pad(p[0], ((0, 0), (0, width - p[0].shape[1])),
                               constant_values=np.nan) for p in parts]) if parts \
        else np.zeros((0, width))
    measures = {k: np.concatenate([p[1][k] for p in parts]) if parts else np.zeros(0)
                for k in MEASURES}
    reasons = [r for b in sorted(ran) for r in dict.fromkeys(ran[b])]
    return SweepResult(names=names, poses=poses, parameter=s, frequencies_hz=f,
                       status=tuple(status), measures=measures, complete=complete,
                       backend="+".join(sorted(ran)) or "numpy", backend_reason="; ".join(reasons))


#: the trust indicators of :class:`flexpkm.algorithms.modal.Modes` kept per pose
MEASURES = ("cond_closure", "cond_pencil", "singularity_measure")


def _frequencies(model, q, n_modes, options):
    options = dict(options)
    ran = options.pop("ran")
    m = natural_frequencies(model, q, n_modes=n_modes, shapes=False, **options)
    ran.setdefault(m.backend, []).append(m.backend_reason)
    return m.frequencies_hz, {k: np.atleast_1d(getattr(m, k)) for k in MEASURES}, \
        np.atleast_1d(m.near_singular)


def _chunk(model, q, first, n_modes, on_error, status, options):
    """``(f (b, n), measures)`` of the poses ``first ...`` of the path; pose
    by pose (NaN and a status on error) when the batch fails and ``on_error
    == "nan"``; errors name the pose's index in the whole path. ``status``
    (the chunk's) is updated in place."""
    ok = np.array([st == "ok" for st in status])
    rows = None
    if ok.all():
        try:
            rows = [_frequencies(model, q, n_modes, options)]
        except FlexPKMError:
            pass
    if rows is None:
        rows = [_one(model, qi, first + k, n_modes, on_error, status, k, options) if ok[k]
                else None for k, qi in enumerate(q)]
        n = max((len(r[0]) for r in rows if r is not None), default=0)   # no mode: no column
        nan = (np.full(n, np.nan), {k: np.full(1, np.nan) for k in MEASURES}, np.zeros(1, bool))
        rows = [r if r is not None else nan for r in rows]
        rows = [(np.array([r[0] for r in rows]),
                 {k: np.concatenate([r[1][k] for r in rows]) for k in MEASURES},
                 np.concatenate([r[2] for r in rows]))]
    f, measures, near = rows[0]
    for k in np.flatnonzero(near):
        if status[k] == "ok":
            status[k] = "near-singular"
    return f, measures


def _one(model, qi, index, n_modes, on_error, status, k, options):
    """One pose's ``_frequencies`` (1-row arrays), or None with its status."""
    try:
        f, m, near = _frequencies(model, qi, n_modes, options)
        return f, m, near
    except FlexPKMError as e:
        if on_error != "nan":
            raise with_context(e, f"pose {index} of the path") from None
        status[k] = f"{type(e).__name__}: {e}"
        return None
