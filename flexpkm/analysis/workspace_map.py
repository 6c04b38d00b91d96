"""Workspace maps (issue 21 item 1): over a 1-3D grid of poses, the first k
natural frequencies, the Type 2 measure and condition numbers
(:class:`flexpkm.algorithms.modal.Modes`) and the static compliance of the
platform (:mod:`flexpkm.algorithms.compliance`), each cell with a status.

The grid is assembled by continuation in batches
(:mod:`flexpkm.analysis.grid`, :mod:`flexpkm.analysis.grid_assembly`), then
solved in chunks of ``chunk`` cells by :func:`flexpkm.natural_frequencies`
(one backend switch, :mod:`flexpkm.analysis.backend`) with
``allow_zero=True``: a Type 2 singular cell (measure <= ``ZERO_STIFFNESS``)
is masked with the status ``"singular"``, not raised. Causes of a masked
cell (:data:`CAUSES`): ``unreachable`` (the loops do not close),
``other-mode`` (only in another working / assembly mode than the one kept),
``singular`` (assembly not isolated, or Type 2), ``failed`` (anything
else); ``near-singular`` cells are computed and counted. Results:
:class:`WorkspaceMap`, its Dataset (:func:`flexpkm.datasets.map_dataset`),
NetCDF file and picture (:mod:`flexpkm.io.map_output`).
"""
from __future__ import annotations

import os
import sys
from collections import Counter
from dataclasses import dataclass, field, replace

import numpy as np

from flexpkm.algorithms.compliance import platform_compliance
from flexpkm.algorithms.conditioning import check_modes_count
from flexpkm.algorithms.modal import ZERO_STIFFNESS
from flexpkm.algorithms.reference import build_model
from flexpkm.analysis.backend import DEFAULT_BACKEND, choose_backend
from flexpkm.analysis.execution import run_chunks
from flexpkm.analysis.grid import Grid, fronts, make_grid
from flexpkm.analysis.grid_assembly import BatchConfigure, NumericalAssembler, status_of
from flexpkm.analysis.modal import natural_frequencies
from flexpkm.errors import FlexPKMError, InvalidArgumentError
from flexpkm.model.build import CompiledFunctions

#: the causes of a masked cell, from the error class of its status
CAUSES = {"UnreachablePoseError": "unreachable", "OpenLoopError": "unreachable",
          "WorkingModeError": "other-mode", "SingularConfigurationError": "singular",
          "singular": "singular"}
#: the per-cell trust indicators kept from the modal results
MEASURES = ("cond_closure", "cond_pencil", "singularity_measure")
#: default cells per eigensolver call: larger batches leave the cache (NaVARo,
#: compiled, modal step + compliance per pose: 1.14 ms at 32, 1.00 at 128,
#: 0.98 at 256, 1.33 at 1,024 cells; load 3.6); on the fast modal path
#: (:data:`FLAT_MIN`) 128: at 256 the chunk's (256, 96, 96) matrices are
#: mapped afresh from the kernel at each chunk (46,000 page faults, 0.3 s
#: of system time on a 4,000-cell map; 4,000 at 128)
CHUNK = 128
#: on workers, the cells are cut into this many jobs per worker at least (the
#: workers keep their model: a job costs its cells only), of ``chunk`` cells
#: at most and :data:`MIN_JOB` at least (3,507 cells in jobs of 1,024 on 2
#: workers: 2,048 on one, 1.71x at best; in 14 jobs of 256 or fewer: 1,792, 1.96x)
JOBS_PER_WORKER = 4
MIN_JOB = 32
#: a compiled map of at least this many reachable cells runs the fast modal
#: path (:mod:`flexpkm.compiled.modal_flat`: 0.28 instead of 0.73 ms per
#: reachable NaVARo cell, load 4.9) when its library is cached; its compile
#: (NaVARo: 7-17 s of gcc -O1 by the load, announced on stderr) is paid by
#: a map of :data:`FLAT_COLD` reachable cells or more (~0.5 ms saved per
#: cell: the compile pays back within such a map, or the next ones)
FLAT_MIN = 2000
FLAT_COLD = 10000


def cause(status: str) -> str:
    """``"ok"``, ``"near-singular"`` or the cause of a masked cell (:data:`CAUSES`)."""
    if status in ("ok", "near-singular"):
        return status
    return CAUSES.get(status.split(":")[0], "failed")


@dataclass(kw_only=True, repr=False)
class WorkspaceMap:
    """A workspace map over ``grid`` (shape G = n_0 [x n_1 [x n_2]]).

    grid : :class:`flexpkm.analysis.grid.Grid` (axis names and values, SI)
    fixed : name -> value of the pose components held (not mapped)
    frequencies_hz : (*G, n) Hz, NaN where masked
    measures : name -> (*G,) ``cond_closure``, ``cond_pencil``,
               ``singularity_measure`` (NaN where masked)
    compliance : (*G, n_p, n_p) platform compliance in x_p
                 (:func:`flexpkm.algorithms.compliance.platform_compliance`)
    compliance_eigenvalues : (*G, n_p) ascending
    platform_names, platform_units : x_p names and units (``m``, ``rad``)
    status : (*G,) str, ``"ok"``, ``"near-singular"`` or why masked
    q_tot : (*G, n_tot) the assembled configurations (NaN where unreachable)
    backend, backend_reason : what computed the reduced matrices
    robot : the robot's name; units : unit of each grid axis
    """

    grid: Grid
    frequencies_hz: np.ndarray
    measures: dict
    compliance: np.ndarray
    compliance_eigenvalues: np.ndarray
    status: np.ndarray
    q_tot: np.ndarray
    platform_names: tuple = ()
    platform_units: tuple = ()
    units: tuple = ()
    fixed: dict = field(default_factory=dict)
    backend: str = "numpy"
    backend_reason: str = ""
    robot: str = ""

    def counts(self) -> dict:
        """Cells by cause (:func:`cause`)."""
        return dict(Counter(cause(s) for s in self.status.ravel()))

    def causes(self) -> np.ndarray:
        """(*G,) str: the cause of each cell (:func:`cause`)."""
        return np.vectorize(cause, otypes=[str])(self.status)

    def to_xarray(self):
        """The map as an xarray Dataset (:func:`flexpkm.datasets.map_dataset`)."""
        from flexpkm.datasets import dask_unprobed, map_dataset
        with dask_unprobed():                   # 0.65 s of imports saved
            return map_dataset(self)


def workspace_map(model, grid, n_modes: int | None = 5, configure=None, names=None,
                  over: str = "pose", fixed=None, actuator_stiffness=None, chunk: int = CHUNK,
                  backend: str = DEFAULT_BACKEND, modes=None, progress=None, workers=1,
                  client=None) -> WorkspaceMap:
    """The workspace map of ``model`` over ``grid`` (module doc).

    model : a Model or Robot (:func:`flexpkm.build_model`)
    grid : 1-3 axes, each ``"x0:x1:n"``, ``(x0, x1, n)`` or values (SI), over
           the first pose components (a :class:`Grid` is taken as is)
    n_modes : frequencies kept per cell (None: all)
    configure : None (a description file's robot: numerical assembly
           over the commanded platform coordinates, ``over="pose"``, or the
           actuated ones, ``over="q_a"``) or a batched closed form
           ``poses (B, k) -> q_tot (B, n_tot)`` with ``names`` (k,) its components
    fixed : values (SI) of the components after the mapped ones (default:
           the reference configuration's for the numerical assembly, 0 for
           ``configure``)
    actuator_stiffness : (n_a,) N/m or N m/rad (None: actuators locked)
    chunk : cells per call of the eigensolver; modes : working / assembly
           modes kept (:func:`flexpkm.assemble`; None: the reference's)
    progress : ``progress(done, total)`` or None (assembly, then eigenproblems)
    workers : processes of the eigenproblems and compliances, chunk by chunk
           (:func:`flexpkm.analysis.execution.run_chunks`: 1, in this process;
           N; None, every core; a map of one chunk runs here); client : a
           ``dask.distributed.Client`` instead. The assembly runs here.
    Raises :class:`InvalidArgumentError` (grid, names, fixed, chunk),
    :class:`flexpkm.errors.BackendUnavailableError` before any cell when
    ``backend="compiled"`` cannot run; a masked cell never raises.
    """
    model = build_model(model)
    n_modes = check_modes_count(n_modes)
    choose_backend(backend, "frequency_sweep", model)
    if int(chunk) < 1:
        raise InvalidArgumentError(f"chunk must be >= 1, got {chunk}")
    if configure is None:
        assembler = NumericalAssembler(model, over, modes)
        names = assembler.names
        held = assembler.reference[assembler.fixed]
    else:
        if names is None:
            raise InvalidArgumentError("workspace_map: give the names of configure's pose components")
        assembler = BatchConfigure(configure, names)
        held = np.zeros(len(names))
    grid = make_grid(grid, tuple(names))
    poses = full_poses(grid, tuple(names), held, fixed)
    if configure is not None and (workers != 1 or client is not None):
        q, out = stream_cells(model, assembler, poses, n_modes, chunk, backend,
                              actuator_stiffness, progress, workers, client)
        return _result(model, grid, tuple(names), poses, q, out)
    q, status = assemble_grid(assembler, grid.shape, poses, configure is not None, chunk,
                              progress)
    out = solve_cells(model, q, status, n_modes, chunk, backend, actuator_stiffness,
                      None if progress is None else (lambda d, t: progress(len(q) + d, 2 * len(q))),
                      workers, client)
    return _result(model, grid, tuple(names), poses, q, out)


def full_poses(grid, names, held, fixed) -> np.ndarray:
    """(N, k) the grid's cells with the components after the mapped ones at
    ``fixed`` (or ``held``)."""
    d, k = len(grid.axes), len(names)
    rest = np.asarray(held[d:] if fixed is None else fixed, float).ravel()
    if rest.shape != (k - d,) or not np.isfinite(rest).all():
        raise InvalidArgumentError(f"fixed: {k - d} finite values for {', '.join(names[d:])}, "
                                   f"got {rest.tolist()}")
    cells = grid.poses()
    return np.column_stack([cells, np.broadcast_to(rest, (len(cells), k - d))])


def assemble_grid(assembler, shape, poses, closed_form, chunk, progress=None):
    """``(q (N, n_tot), statuses)`` of the cells: a closed form in chunks,
    a numerical assembly by continuation (:func:`flexpkm.analysis.grid.fronts`)."""
    N = len(poses)
    status = [""] * N
    if closed_form:
        parts = []
        for b in range(0, N, chunk):
            qb, st = assembler(poses[b:b + chunk])
            parts.append(qb)
            status[b:b + chunk] = st
            if progress is not None:
                progress(min(b + chunk, N), 2 * N)
        return np.concatenate(parts), status
    q = np.full((N, assembler.model.layout.n_tot), np.nan)
    done = 0
    for cells, starts in fronts(shape):
        start = np.where((starts >= 0)[:, None], q[np.maximum(starts, 0)], np.nan)
        start = _nearest_solved(q, shape, cells, start)
        q[cells], st = assembler(poses[cells], start)
        for c, s in zip(cells, st):
            status[c] = s
        done += len(cells)
        if progress is not None:
            progress(done, 2 * N)
    return q, status


def _nearest_solved(q, shape, cells, start):
    """``start`` with the rows of cells whose neighbour is masked (NaN) taken
    from the nearest solved cell of the grid (index distance), when the
    whole step has no solved neighbour (else the assembler takes the
    nearest start of the step); NaN when no cell is solved yet."""
    if np.isfinite(start).all(axis=1).any():
        return start
    solved = np.flatnonzero(np.isfinite(q).all(axis=1))[-4096:]     # the latest: near
    if not solved.size:
        return start
    here = np.array(np.unravel_index(cells, shape)).T
    there = np.array(np.unravel_index(solved, shape)).T
    nearest = solved[np.abs(here[:, None, :] - there[None]).sum(-1).argmin(axis=1)]
    return q[nearest]


def solve_cells(model, q, status, n_modes, chunk, backend, actuator_stiffness, progress=None,
                workers=1, client=None):
    """The modal and static results of the assembled cells (``status`` "ok"),
    in chunks of ``chunk`` cells run by
    :func:`flexpkm.analysis.execution.run_chunks` (``workers`` 1: in this
    process; N or None: local processes; ``client``: a Dask client); returns
    a dict of (N, ...) arrays and the updated statuses. On workers, jobs
    of :data:`JOBS_PER_WORKER` per worker (balance)."""
    ok = np.flatnonzero([s == "ok" for s in status])
    per = _job_size(len(ok), chunk, workers, client)
    flat = _fast_path(model, backend, len(ok))
    idx = [ok[b:b + per] for b in range(0, len(ok), per)]
    jobs = _Jobs(idx, lambda i: (q[i], n_modes, backend, actuator_stiffness, chunk, flat))
    return _run_jobs(model, jobs, idx, list(status), workers, client,
                     None if progress is None else
                     (lambda d, t: progress(min(d * per, len(ok)), len(ok))))


def stream_cells(model, assembler, poses, n_modes, chunk, backend, actuator_stiffness,
                 progress=None, workers=None, client=None):
    """``(q (N, n_tot), results as solve_cells')`` of the cells ``poses``
    (N, k) of a closed form (``assembler`` a
    :class:`flexpkm.analysis.grid_assembly.BatchConfigure`) on workers: the
    cells cut into jobs of :func:`_job_size` cells, each job's cells
    assembled here when it is sent and its reachable ones solved by a
    worker (:func:`solve_chunk`), so that the assembly runs while the
    workers solve the jobs sent before (NaVARo 50 x 50 x 20 on 2 workers:
    2.3 s of assembly no longer before the first job). The cells, their
    results and statuses are those of :func:`assemble_grid` then
    :func:`solve_cells`; the fast modal path is chosen on the number of
    cells (the reachable ones are not known yet)."""
    N = len(poses)
    q = np.full((N, model.layout.n_tot), np.nan)
    status = [""] * N
    per = _job_size(N, chunk, workers, client)
    flat = _fast_path(model, backend, N)
    idx = [None] * -(-N // per)

    def make(k):
        cells = np.arange(k * per, min((k + 1) * per, N))
        q[cells], st = assembler(poses[cells])
        status[cells[0]:cells[-1] + 1] = st
        idx[k] = cells[[s == "ok" for s in st]]
        if progress is not None:
            progress(cells[-1] + 1, 2 * N)
        return q[idx[k]], n_modes, backend, actuator_stiffness, chunk, flat

    jobs = _Jobs(range(len(idx)), make)
    return q, _run_jobs(model, jobs, idx, status, workers, client,
                        None if progress is None else
                        (lambda d, t: progress(N + min(d * per, N), 2 * N)))


def _job_size(cells, chunk, workers, client) -> int:
    """Cells per job: ``chunk`` in this process; on workers
    :data:`JOBS_PER_WORKER` jobs per worker at least, of :data:`MIN_JOB`
    cells at least."""
    if workers == 1 and client is None:
        return chunk
    n = len(client.ncores()) if client is not None else (workers or os.cpu_count() or 1)
    return min(chunk, max(MIN_JOB, -(-cells // (JOBS_PER_WORKER * max(n, 1)))))


def _run_jobs(model, jobs, idx, status, workers, client, progress):
    """:func:`solve_chunk` on each of ``jobs`` (here, on local processes or
    a Dask client) and its results put at its cells ``idx[k]`` (filled by
    the time a job is made); ``status`` (N,) the cells' statuses, updated."""
    N, n_p = len(status), model.layout.n_p
    out = {"f": None, "C": np.full((N, n_p, n_p), np.nan), "eig": np.full((N, n_p), np.nan),
           **{m: np.full(N, np.nan) for m in MEASURES}, "ran": {}}
    pool = len(jobs) > 1 and (workers != 1 or client is not None)
    # the model goes once to each worker and is kept there with its loaded
    # generated code (run_chunks' shared); generated code is not pickled
    shared = replace(model, compiled=CompiledFunctions()) if pool else model
    parts = run_chunks(solve_chunk, jobs, None, workers, client, progress, shared=shared)
    width = max((p["f"].shape[1] for p in parts), default=0)
    out["f"] = np.full((N, width), np.nan)
    for i, p in zip(idx, parts):
        out["f"][i, :p["f"].shape[1]] = p["f"]
        out["C"][i], out["eig"][i] = p["C"], p["eig"]
        for k in MEASURES:
            out[k][i] = p[k]
        for b, s in zip(i, p["status"]):
            status[b] = str(s)
        for name, reason in zip(p["backend"], p["reason"]):
            out["ran"].setdefault(str(name), set()).add(str(reason))
    out["status"] = status
    return out


def _fast_path(model, backend, cells) -> bool:
    """Whether the map's cells run the fast modal path on the compiled
    backend: :data:`FLAT_MIN` cells or more and its library cached, or
    :data:`FLAT_COLD` or more (its library made here, the compile announced
    on stderr with its time); False when it cannot run."""
    from flexpkm.errors import BackendUnavailableError
    if cells < FLAT_MIN or choose_backend(backend, "natural_frequencies", model).name != "compiled":
        return False
    try:
        from flexpkm.compiled.modal_flat import prepare
        seconds = prepare(model, cells, FLAT_COLD)
    except BackendUnavailableError:
        return False
    if seconds is None:
        return False
    if seconds > 0:
        sys.stderr.write(f"flexpkm: the fast modal function of {model.name} for maps of "
                         f">= {FLAT_MIN} cells compiled in {seconds:.1f} s (once per topology)\n")
    return True


class _Jobs:
    """The chunks' arguments, each made when asked (``run_chunks`` takes a
    sequence): in this process one chunk's copy of q at a time."""

    def __init__(self, idx, make):
        self.idx, self.make = idx, make

    def __len__(self):
        return len(self.idx)

    def __getitem__(self, k):
        return self.make(self.idx[k])


def solve_chunk(model, job) -> dict:
    """The results of the cells ``job = (q (b, n_tot), n_modes, backend,
    actuator_stiffness, chunk, flat)`` of ``model``, ``chunk`` cells per
    eigensolver call, ``flat``: the fast modal path (:data:`FLAT_MIN`) (a
    module-level function: it runs in the workers, ``model`` kept by each
    worker with its generated code, loaded at its first chunk:
    :func:`flexpkm.analysis.execution.run_chunks`' ``shared``): a dict of
    arrays ``f`` (b, n) Hz, ``C``, ``eig``, the :data:`MEASURES`, ``status``
    (b,) and the ``backend`` / ``reason`` pairs that ran."""
    q, n_modes, backend, stiffness, chunk, flat = job
    b, n_p = len(q), model.layout.n_p
    out = {"C": np.full((b, n_p, n_p), np.nan), "eig": np.full((b, n_p), np.nan),
           **{m: np.full(b, np.nan) for m in MEASURES}, "ran": {}}
    status = ["ok"] * b
    out["f"] = _padded([_chunk(model, q[s:s + chunk], np.arange(s, min(s + chunk, b)), status,
                               n_modes, backend, stiffness, out, flat) for s in range(0, b, chunk)])
    ran = sorted((k, r) for k, v in out.pop("ran").items() for r in v)
    out.update(status=np.array(status, dtype=str), backend=np.array([k for k, _ in ran], dtype=str),
               reason=np.array([r for _, r in ran], dtype=str))
    return out


def _padded(parts) -> np.ndarray:
    """The frequency blocks ``parts`` (b_i, n_i) stacked, NaN-padded to the widest."""
    width = max((p.shape[1] for p in parts), default=0)
    return np.concatenate([np.pad(p, ((0, 0), (0, width - p.shape[1])), constant_values=np.nan)
                           for p in parts]) if parts else np.full((0, 0), np.nan)


def _chunk(model, q, idx, status, n_modes, backend, stiffness, out, flat=False):
    """Frequencies (b, n) of one chunk; the measures and compliance into
    ``out``; a chunk that raises is solved cell by cell (their errors are
    their statuses)."""
    comp = None
    try:
        if flat and stiffness is None:     # one Cholesky of K_cc per block for both
            from flexpkm.analysis.map_cells import locked_cells
            m, comp = locked_cells(model, q, n_modes, backend)
        else:
            m = natural_frequencies(model, q, n_modes=n_modes, shapes=False, allow_zero=True,
                                    backend=backend, actuator_stiffness=stiffness, flat=flat)
    except FlexPKMError as e:
        if len(q) == 1:
            status[idx[0]] = status_of(e)
            return np.full((1, 0), np.nan)
        half = len(q) // 2
        return _padded([_chunk(model, q[s], idx[s], status, n_modes, backend, stiffness, out, flat)
                        for s in (slice(None, half), slice(half, None))])
    out["ran"].setdefault(m.backend, set()).add(m.backend_reason)
    f = np.array(m.frequencies_hz)
    for k in MEASURES:
        out[k][idx] = getattr(m, k)
    C, eig, good = comp or platform_compliance(model, m.reduced, stiffness)
    out["C"][idx], out["eig"][idx] = C, eig
    singular = ~(m.singularity_measure > ZERO_STIFFNESS) | ~good
    for k in np.flatnonzero(singular):
        status[idx[k]] = (f"singular: a zero-stiffness motion (Type 2 measure "
                          f"{m.singularity_measure[k]:.3g} <= {ZERO_STIFFNESS:g})")
    for k in np.flatnonzero(m.near_singular & ~singular):
        status[idx[k]] = "near-singular"
    f[singular] = np.nan
    out["C"][idx[singular]], out["eig"][idx[singular]] = np.nan, np.nan
    return f


def _result(model, grid, names, poses, q, out) -> WorkspaceMap:
    from flexpkm.datasets import coordinate_units, unit_of
    G = grid.shape
    layout = model.layout
    units = coordinate_units(model)
    ran = out["ran"]
    return WorkspaceMap(
        grid=grid, frequencies_hz=out["f"].reshape(G + (-1,)),
        measures={k: out[k].reshape(G) for k in MEASURES},
        compliance=out["C"].reshape(G + out["C"].shape[1:]),
        compliance_eigenvalues=out["eig"].reshape(G + (-1,)),
        status=np.array(out["status"], dtype=object).reshape(G), q_tot=q.reshape(G + (-1,)),
        platform_names=tuple(layout.names[layout.n_t:]), platform_units=units[layout.n_t:],
        units=tuple(unit_of(model, n, "") for n in grid.names),
        fixed=dict(zip(names[len(grid.axes):], poses[0, len(grid.axes):].tolist())) if len(poses) else {},
        backend="+".join(sorted(ran)) or "numpy",
        backend_reason="; ".join(sorted({r for v in ran.values() for r in v})),
        robot=model.name)
