"""Design studies (issue 21 item 2): parameters named by their key paths in
the robot's description file (as ``flexpkm modal --sensitivities``), sampled
on a grid or a Latin hypercube (:mod:`scipy.stats.qmc`), each design
evaluated over a grid of poses by :func:`flexpkm.analysis.workspace_map.workspace_map`,
with derived objectives per design:

* ``min_f1_hz``: the lowest first natural frequency over the computed cells;
* ``mass_kg``: the robot's mass (bodies and platform, kg);
* ``max_compliance``: the largest principal platform compliance over the cells;
* ``cells_ok``: the cells computed (``ok`` or ``near-singular``).

A parameter may set several key paths to one value (both legs' section:
``paths = [...]``). Designs run in chunks of ``chunk`` designs through
:mod:`flexpkm.analysis.execution` (local processes by default, a Dask
client for a cluster), each chunk written to the output folder as it
arrives; ``resume=True`` continues an interrupted study.
"""
from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from flexpkm.analysis.execution import prepare_folder, run_chunks, write_whole
from flexpkm.analysis.workspace_map import cause
from flexpkm.errors import InvalidArgumentError
from flexpkm.model.key_paths import set_number

#: the objectives of a design (module doc)
OBJECTIVES = ("min_f1_hz", "mass_kg", "max_compliance", "cells_ok")
#: cause codes of the per-cell ``cause`` variable
CAUSE_CODES = ("ok", "near-singular", "unreachable", "other-mode", "singular", "failed")


@dataclass(frozen=True)
class Parameter:
    """A design parameter: ``name``, the key ``paths`` it sets (one value for
    all), and its ``low``, ``high`` bounds (SI) and grid ``number``."""

    name: str
    paths: tuple
    low: float
    high: float
    number: int = 2


def sample_designs(parameters, sampling="grid", samples=None, seed=0) -> np.ndarray:
    """(D, p) the designs: the full grid of each parameter's ``number``
    values from low to high, or ``samples`` points of a scrambled Latin
    hypercube (seeded) scaled to the bounds."""
    lows = np.array([p.low for p in parameters])
    highs = np.array([p.high for p in parameters])
    if not (np.isfinite(lows).all() and np.isfinite(highs).all()) or (lows > highs).any():
        raise InvalidArgumentError("parameters: finite bounds with low <= high")
    if sampling == "grid":
        axes = [np.linspace(p.low, p.high, int(p.number)) for p in parameters]
        return np.stack([m.ravel() for m in np.meshgrid(*axes, indexing="ij")], -1)
    if sampling in ("lhs", "latin-hypercube"):
        from scipy.stats import qmc
        if not samples or int(samples) < 1:
            raise InvalidArgumentError("sampling 'lhs' needs samples >= 1")
        unit = qmc.LatinHypercube(d=len(parameters), seed=seed).random(int(samples))
        return qmc.scale(unit, lows, highs) if (highs > lows).all() else lows + unit * (highs - lows)
    raise InvalidArgumentError(f"sampling must be 'grid' or 'lhs', got {sampling!r}")


def evaluate_chunk(job) -> dict:
    """The per-design arrays of a chunk of designs (run in a worker):
    ``job`` = (spec, designs (d, p)); see :func:`design_study`."""
    spec, designs = job
    from flexpkm.algorithms.reference import build_model
    from flexpkm.analysis.workspace_map import workspace_map
    from flexpkm.model.files import from_dict
    out = {k: [] for k in ("f", "compliance", "cause") + OBJECTIVES}
    for values in designs:
        data = copy.deepcopy(spec["data"])
        for paths, v in zip(spec["paths"], values):
            for p in paths:
                set_number(data, p, v)
        model = build_model(from_dict(data, source=spec["source"], variant=spec["variant"]))
        m = workspace_map(model, spec["grid"], n_modes=spec["n_modes"], over=spec["over"],
                          fixed=spec["fixed"], chunk=spec["chunk_poses"], backend=spec["backend"])
        _append(out, m, model, spec["n_modes"])
    return {k: np.array(v) for k, v in out.items()}


def _append(out, m, model, n_modes):
    f = np.full(m.status.shape + (n_modes,), np.nan)
    f[..., :m.frequencies_hz.shape[-1]] = m.frequencies_hz
    c = m.compliance_eigenvalues[..., -1]
    causes = np.array([CAUSE_CODES.index(cause(s)) for s in m.status.ravel()], np.int8)
    out["f"].append(f.reshape(-1, n_modes))
    out["compliance"].append(c.ravel())
    out["cause"].append(causes)
    good = np.isfinite(f[..., 0])
    out["min_f1_hz"].append(np.min(f[..., 0][good]) if good.any() else np.nan)
    out["max_compliance"].append(np.max(c[good]) if good.any() else np.nan)
    out["mass_kg"].append(robot_mass(model))
    out["cells_ok"].append(int(good.sum()))


def robot_mass(model) -> float:
    """The mass of the robot's bodies and platform body, kg."""
    bodies = [e.body for e in model.body_entries]
    if model.platform is not None and model.platform.body is not None:
        bodies.append(model.platform.body)
    return float(sum(b.invariants.m for b in bodies))


def parameters_of(items) -> list:
    """:class:`Parameter` list from dicts ``{name, paths | path, low, high,
    number}`` (or Parameters). Raises :class:`InvalidArgumentError`."""
    out = []
    for k, p in enumerate(items):
        if isinstance(p, Parameter):
            out.append(p)
            continue
        try:
            paths = tuple(p["paths"]) if "paths" in p else (p["path"],)
            out.append(Parameter(name=str(p.get("name", paths[0])), paths=paths,
                                 low=float(p["low"]), high=float(p["high"]),
                                 number=int(p.get("number", 2))))
        except (KeyError, TypeError, ValueError) as e:
            raise InvalidArgumentError(f"parameters[{k}]: needs path (or paths), low, high "
                                       f"(and number for a grid): {e}") from None
    if not out:
        raise InvalidArgumentError("a study needs at least one parameter")
    return out


def design_study(description, parameters, grid, n_modes: int = 3, sampling: str = "grid",
                 samples=None, seed: int = 0, over: str = "pose", fixed=None, variant=None,
                 folder=None, chunk: int = 8, workers=None, client=None, resume: bool = False,
                 backend: str = "numpy", chunk_poses: int = 1024, progress=None):
    """A design study of the robot of the description file ``description``
    (module doc); returns an xarray Dataset (:func:`study_dataset`), also
    written to ``folder/study.nc`` when ``folder`` is given.

    parameters : dicts ``{name, paths | path, low, high, number}`` or
        :class:`Parameter`; the key paths of the file (``legs[0].frames[0].
        bodies[0].section.b_y``), SI values
    grid : the pose grid of every design (:func:`flexpkm.analysis.workspace_map.workspace_map`:
        1-3 axes over the commanded platform coordinates, or ``over="q_a"``)
    sampling : ``"grid"`` (every combination of ``number`` values per
        parameter) or ``"lhs"`` (``samples`` designs, Latin hypercube, ``seed``)
    folder : the output folder (chunks, spec.json, study.nc); None: nothing
        written, no resume
    chunk : designs per chunk; workers : local processes (None: every core,
        1: in this process); client : a ``dask.distributed.Client``
    resume : continue the study already in ``folder`` (its chunks are read)
    backend : of the modal step (``"numpy"`` default; ``"compiled"`` builds
        one library for every design of the study: the design parameters are
        inputs of the generated modal function, :mod:`flexpkm.compiled.design`)
    Raises :class:`InvalidArgumentError` (parameters, sampling, key paths),
    :class:`flexpkm.errors.OutputError` (folder), what the description raises.
    """
    from flexpkm.analysis.grid import make_grid
    from flexpkm.model.files import Where, parse
    path = Path(description)
    data = parse(path.read_text(encoding="utf-8"), Where(str(path)))
    params = parameters_of(parameters)
    designs = sample_designs(params, sampling, samples, seed)
    check = copy.deepcopy(data)
    for p in params:
        for key in p.paths:
            set_number(check, key, p.low)     # every key path refused before any work
    from flexpkm.model.files import from_dict
    layout = from_dict(data, source=str(path), variant=variant).layout
    if over not in ("pose", "q_a"):
        raise InvalidArgumentError(f"over must be 'pose' or 'q_a', got {over!r}")
    cols = layout.commanded if over == "pose" else layout.actuated
    g = make_grid(grid, tuple(layout.names[c] for c in cols))
    spec = {"data": data, "source": str(path), "variant": variant,
            "paths": [list(p.paths) for p in params], "grid": [a.tolist() for a in g.axes],
            "n_modes": int(n_modes), "over": over, "fixed": fixed, "backend": backend,
            "chunk_poses": int(chunk_poses)}
    identity = dict(spec, designs=designs.tolist(), chunk=int(chunk))
    if folder is not None:
        folder = prepare_folder(folder, identity, resume)
    jobs = [(spec, designs[b:b + int(chunk)]) for b in range(0, len(designs), int(chunk))]
    parts = run_chunks(evaluate_chunk, jobs, folder, workers, client, progress)
    ds = study_dataset(params, designs, g, parts, path, n_modes)
    if folder is not None:
        write_whole(folder / "study.nc", lambda tmp: ds.to_netcdf(tmp, engine="scipy"))
    return ds


def study_dataset(params, designs, grid, parts, source, n_modes):
    """The Dataset of a study: ``value`` (design, parameter), the objectives
    (design,), ``frequencies_hz`` (design, cell, mode) Hz, ``compliance``
    (design, cell) the largest principal compliance, ``cause`` (design,
    cell) codes of :data:`CAUSE_CODES`; the cells' pose components as
    coordinates (cell, component)."""
    from flexpkm.optional import require
    from flexpkm.version import __version__
    xr = require("xarray", "design studies (their Dataset)")
    cat = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
    poses = grid.poses()
    data = {"value": (("design", "parameter"), designs, {"units": "SI (the file's)"}),
            "frequencies_hz": (("design", "cell", "mode"), cat["f"], {"units": "Hz"}),
            "compliance": (("design", "cell"), cat["compliance"],
                           {"units": "largest principal compliance (x_p per N or N m)"}),
            "cause": (("design", "cell"), cat["cause"],
                      {"flag_values": list(range(len(CAUSE_CODES))),
                       "flag_meanings": " ".join(CAUSE_CODES)}),
            "min_f1_hz": (("design",), cat["min_f1_hz"], {"units": "Hz"}),
            "mass_kg": (("design",), cat["mass_kg"], {"units": "kg"}),
            "max_compliance": (("design",), cat["max_compliance"], {"units": "see compliance"}),
            "cells_ok": (("design",), cat["cells_ok"], {"units": "1"})}
    coords = {"parameter": ("parameter", [p.name for p in params]),
              "paths": ("parameter", [" ".join(p.paths) for p in params]),
              "mode": ("mode", np.arange(1, n_modes + 1)),
              "component": ("component", list(grid.names)),
              "cell_pose": (("cell", "component"), poses)}
    attrs = {"result": "DesignStudy", "flexpkm_version": __version__, "source": str(source),
             "designs": len(designs), "grid_shape": list(grid.shape)}
    return xr.Dataset({k: (d, np.asarray(v), a) for k, (d, v, a) in data.items()},
                      coords=coords, attrs=attrs)


def read_study(path) -> dict:
    """The keyword arguments of :func:`design_study` from a study file
    (TOML: ``sampling``, ``samples``, ``seed``, ``modes``, ``chunk``,
    ``variant``, ``[poses]`` with ``grid``, ``over``, ``fixed``, and
    ``[[parameters]]``; docs/maps.md). Raises :class:`InvalidArgumentError`
    naming the file."""
    try:
        import tomllib
    except ImportError:                                 # Python 3.10
        import tomli as tomllib
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise InvalidArgumentError(f"{path}: cannot read the study file ({e})") from None
    known = {"sampling", "samples", "seed", "modes", "chunk", "variant", "poses", "parameters",
             "backend"}
    poses = data.get("poses", {})
    unknown = (set(data) - known) | {f"poses.{k}" for k in set(poses) - {"grid", "over", "fixed"}}
    if unknown or "grid" not in poses or "parameters" not in data:
        raise InvalidArgumentError(f"{path}: a study file has [poses] grid = [...] and "
                                   f"[[parameters]]" + (f"; unknown keys {sorted(unknown)}"
                                                        if unknown else ""))
    out = {"parameters": data["parameters"], "grid": poses["grid"],
           "over": poses.get("over", "pose"), "fixed": poses.get("fixed"),
           "n_modes": int(data.get("modes", 3)), "sampling": data.get("sampling", "grid"),
           "samples": data.get("samples"), "seed": int(data.get("seed", 0)),
           "chunk": int(data.get("chunk", 8)), "variant": data.get("variant")}
    if "backend" in data:
        out["backend"] = data["backend"]
    json.dumps(out)                                          # plain values only
    return out
