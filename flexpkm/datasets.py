"""Results in the scientific stack: xarray Datasets, pandas DataFrames, short
reprs and HTML tables of :class:`flexpkm.algorithms.modal.Modes`,
:class:`flexpkm.analysis.sweep.SweepResult`,
:class:`flexpkm.analysis.simulate.SimulationResult` and
:class:`flexpkm.analysis.idm.IdmResult` (their ``to_xarray``,
``to_dataframe``, ``__repr__`` and ``_repr_html_`` call these functions).

xarray and pandas are the optional extra ``flexpkm[data]``: they are imported
inside the functions that need them, and a missing one raises
:class:`flexpkm.errors.MissingDependencyError` naming the extra. The module sits in the lowest
layer and reads the results and the model by their attributes (no import of
the layers above).

Dimensions: ``pose``, ``mode``, ``time``, ``coordinate`` (``q_tot``),
``coordinate_r`` (``q_r``), ``actuator``, ``component`` (the pose's),
``platform`` (``x_p``), ``axis`` (the wrench components ``f_x .. m_z``). Every variable has a
``units`` attribute; a coordinate axis carries the coordinate ``unit`` (m or
rad per coordinate from the joint types: revolute rad, prismatic m, elastic
``1`` (per unit of the shape function), platform x, y, z m and rx, ry, rz rad)
when the model is given. Provenance attributes: ``flexpkm_version``,
``robot``, ``backend``, ``backend_reason``, ``result``.
"""
from __future__ import annotations

import contextlib
import html
import sys

import numpy as np

from flexpkm.version import __version__

#: base-frame wrench components ``[f; m]`` (N, N m)
WRENCH = ("f_x", "f_y", "f_z", "m_x", "m_y", "m_z")
_WRENCH_UNITS = ("N",) * 3 + ("N m",) * 3


def _require(name: str):
    """Import the optional module ``name`` (xarray, pandas) or raise
    :class:`flexpkm.errors.MissingDependencyError` in one line naming the
    extra ``data`` (:func:`flexpkm.optional.require`)."""
    from flexpkm.optional import require
    return require(name, "results as xarray Datasets / pandas DataFrames")


# -- units ----------------------------------------------------------------

def coordinate_units(model) -> tuple:
    """Unit of each coordinate of ``q_tot`` (``model.layout.names`` order):
    ``"rad"`` for a revolute joint and a platform rotation, ``"m"`` for a
    prismatic joint and a platform translation, ``"1"`` for an elastic
    coordinate (per unit of its shape function). ``model`` : a Model or a
    Robot (anything with ``layout`` and the robot's ``frames``/``platform``)."""
    robot = getattr(model, "robot", model)
    layout = model.layout
    units = ["1"] * layout.n_tot
    sigma = {f.name: f.sigma for f in robot.frames}
    for frame, column in layout.joint_index.items():
        units[column] = "m" if sigma[frame] == 1 else "rad"
    if layout.n_p:
        for i, dof in enumerate(robot.platform.dofs):
            units[layout.n_t + i] = "m" if dof < 3 else "rad"
    return tuple(units)


def unit_of(model, name: str, default: str = "") -> str:
    """Unit of the coordinate ``name`` of ``model`` (``default`` without a
    model or for a name that is not a coordinate)."""
    if model is None or name not in model.layout.names:
        return default
    return coordinate_units(model)[model.layout.names.index(name)]


def effort_unit(unit: str) -> str:
    """Effort conjugate to a coordinate unit: ``rad -> "N m"``, ``m -> "N"``."""
    return {"rad": "N m", "m": "N"}.get(unit, "N or N m")


def _attrs(res, model, kind: str) -> dict:
    robot = getattr(model, "robot", model)
    return {"result": kind, "flexpkm_version": __version__,
            "robot": str(getattr(robot, "name", "") or "") if model is not None else "",
            "backend": str(getattr(res, "backend", "")),
            "backend_reason": str(getattr(res, "backend_reason", ""))}


def _units(model, names, default="") -> list:
    return [unit_of(model, n, default) for n in names]


# -- Datasets -------------------------------------------------------------

def modes_dataset(modes, model=None):
    """xarray.Dataset of :class:`flexpkm.algorithms.modal.Modes`:
    ``frequencies_hz`` (pose, mode) Hz, ``shapes_q`` (pose, coordinate_r,
    mode) over q_r, ``shapes_tot`` (pose, coordinate, mode) over q_tot (the
    layout's names with ``model``), the conditioning measures (pose,);
    one pose has no ``pose`` dimension. Raises :class:`flexpkm.errors.MissingDependencyError`."""
    xr = _require("xarray")
    f = np.asarray(modes.frequencies_hz)
    one = f.ndim == 1
    lead = () if one else ("pose",)
    n = f.shape[-1]
    data = {"frequencies_hz": (lead + ("mode",), f, {"units": "Hz"})}
    coords = {"mode": ("mode", np.arange(1, n + 1))}
    if modes.shapes_q is not None:
        data["shapes_q"] = (lead + ("coordinate_r", "mode"), modes.shapes_q,
                            {"units": "1", "description": "mass-normalised, over q_r"})
        coords["coordinate_r"] = ("coordinate_r", list(modes.names))
        coords["unit_r"] = ("coordinate_r", _units(model, modes.names, "?"))
    if modes.shapes_tot is not None:
        n_tot = modes.shapes_tot.shape[-2]
        names = list(model.layout.names) if model is not None else [f"c{i}" for i in range(n_tot)]
        data["shapes_tot"] = (lead + ("coordinate", "mode"), modes.shapes_tot,
                              {"units": "1", "description": "mass-normalised, over q_tot"})
        coords["coordinate"] = ("coordinate", names)
        coords["unit"] = ("coordinate", _units(model, names, "?"))
    for name in ("cond_closure", "cond_pencil", "singularity_measure"):
        v = getattr(modes, name)
        if v is not None:
            data[name] = (lead, np.asarray(v, float), {"units": "1"})
    if modes.near_singular is not None:
        data["near_singular"] = (lead, np.asarray(modes.near_singular, np.int8), {"units": "1"})
    if modes.repeated is not None:
        data["repeated"] = (lead + ("mode",), np.asarray(modes.repeated, np.int8), {"units": "1"})
    return xr.Dataset(_vars(data), coords=coords, attrs=_attrs(modes, model, "Modes"))


def _vars(data: dict) -> dict:
    return {k: (dims, np.asarray(v), attrs) for k, (dims, v, attrs) in data.items()}


def sweep_dataset(sweep, model=None):
    """xarray.Dataset of :class:`flexpkm.analysis.sweep.SweepResult`:
    ``s`` (pose,) the path parameter, ``poses`` (pose, component),
    ``frequencies_hz`` (pose, mode) Hz (NaN where a pose failed),
    ``status`` (pose,) and the measures (pose,). Raises :class:`flexpkm.errors.MissingDependencyError`."""
    xr = _require("xarray")
    f = np.asarray(sweep.frequencies_hz)
    N, n = f.shape
    status = list(sweep.status) if sweep.status else ["ok"] * N
    data = {"s": (("pose",), sweep.parameter, {"units": "1"}),
            "poses": (("pose", "component"), sweep.poses, {"units": "per component"}),
            "frequencies_hz": (("pose", "mode"), f, {"units": "Hz"}),
            "status": (("pose",), np.array(status, dtype=str), {"units": ""})}
    for k, v in (sweep.measures or {}).items():
        data[k] = (("pose",), np.asarray(v, float), {"units": "1"})
    coords = {"pose": ("pose", np.arange(N)), "mode": ("mode", np.arange(1, n + 1)),
              "component": ("component", list(sweep.names)),
              "unit": ("component", _units(model, sweep.names, "?"))}
    attrs = _attrs(sweep, model, "SweepResult") | {"complete": int(bool(sweep.complete))}
    return xr.Dataset(_vars(data), coords=coords, attrs=attrs)


def simulation_dataset(res, model=None):
    """xarray.Dataset of :class:`flexpkm.analysis.simulate.SimulationResult`
    over ``time`` (s): ``q`` (time, coordinate), ``qd_r`` (time,
    coordinate_r), ``tau`` (time, actuator) N or N m, ``drift``, ``energy``,
    ``residual`` and, when present, ``kinetic``, ``gravity_energy``,
    ``elastic_energy``, ``total_energy`` (J), ``ground`` (time, axis) and
    each sensor. Raises :class:`flexpkm.errors.MissingDependencyError`."""
    xr = _require("xarray")
    names, r_names = list(res.names), list(res.r_names)
    act = r_names[:res.tau.shape[1]]
    units, r_units = _units(model, names, "?"), _units(model, r_names, "?")
    data = {"q": (("time", "coordinate"), res.q, {"units": "per coordinate (unit)"}),
            "qd_r": (("time", "coordinate_r"), res.qd_r, {"units": "per coordinate_r (unit_r) per s"}),
            "tau": (("time", "actuator"), res.tau,
                    {"units": " ".join(sorted({effort_unit(u) for u in _units(model, act, "?")}))})}
    for k, unit in (("drift", "m or rad"), ("energy", "J"), ("residual", "1")):
        if getattr(res, k) is not None:
            data[k] = (("time",), getattr(res, k), {"units": unit})
    data.update(_energies(res.energies))
    if res.ground is not None:
        data["ground"] = (("time", "axis"), res.ground.total, {"units": "N, N m"})
    for k, v in res.sensors.items():
        data[k] = (("time",), v, {"units": ""})
    coords = {"time": ("time", res.t, {"units": "s"}), "coordinate": ("coordinate", names),
              "unit": ("coordinate", units), "coordinate_r": ("coordinate_r", r_names),
              "unit_r": ("coordinate_r", r_units), "actuator": ("actuator", act),
              "axis": ("axis", list(WRENCH))}
    attrs = _attrs(res, model, "SimulationResult") | {"retried_steps": int(res.retried_steps)}
    return xr.Dataset(_vars(data), coords=coords, attrs=attrs)


def _energies(e) -> dict:
    if e is None:
        return {}
    return {k: (("time",), np.asarray(v, float), {"units": "J"})
            for k, v in (("kinetic", e.kinetic), ("gravity_energy", e.gravity),
                         ("elastic_energy", e.elastic), ("total_energy", e.total))}


def idm_dataset(res, model=None):
    """xarray.Dataset of :class:`flexpkm.analysis.idm.IdmResult` over
    ``time`` (s): ``x_p`` (time, platform), ``q_a``, ``qd_a``, ``qdd_a``,
    ``tau`` (time, actuator), ``ground`` and ``wrench`` (time, axis) N,
    N m, the energies (time,) J, ``distance`` (time, singularity) to the
    singularities (:mod:`flexpkm.algorithms.singularity`). Raises
    :class:`flexpkm.errors.MissingDependencyError`."""
    xr = _require("xarray")
    act = list(res.names)
    a_units = _units(model, act, "?")
    n_p = res.x_p.shape[1]
    plat = (list(model.layout.names[model.layout.n_t:]) if model is not None
            else [f"x_p{i + 1}" for i in range(n_p)])
    data = {"x_p": (("time", "platform"), res.x_p, {"units": "per platform coordinate"}),
            "q_a": (("time", "actuator"), res.q_a, {"units": "per actuator (unit)"}),
            "qd_a": (("time", "actuator"), res.qd_a, {"units": "per actuator (unit) per s"}),
            "qdd_a": (("time", "actuator"), res.qdd_a, {"units": "per actuator (unit) per s^2"}),
            "tau": (("time", "actuator"), res.tau,
                    {"units": " ".join(sorted({effort_unit(u) for u in a_units}))})}
    if res.ground is not None:
        data["ground"] = (("time", "axis"), res.ground.total, {"units": "N, N m"})
    if res.wrench is not None:
        data["wrench"] = (("time", "axis"), res.wrench, {"units": "N, N m"})
    data.update(_energies(res.energy))
    if getattr(res, "distances", None) is not None:
        data["distance"] = (("time", "singularity"), res.distances, {"units": "1 (scale-free)"})
    coords = {"time": ("time", res.t, {"units": "s"}), "actuator": ("actuator", act),
              "unit": ("actuator", a_units), "platform": ("platform", plat),
              "unit_p": ("platform", _units(model, plat, "?")), "axis": ("axis", list(WRENCH))}
    if "distance" in data:
        coords["singularity"] = ("singularity", list(res.distance_names))
    return xr.Dataset(_vars(data), coords=coords, attrs=_attrs(res, model, "IdmResult"))


# -- DataFrames -----------------------------------------------------------

def map_dataset(result):
    """xarray.Dataset of a :class:`flexpkm.analysis.workspace_map.WorkspaceMap`:
    dimensions the grid's axes (their names, values in SI, ``units``
    attributes), ``mode``, ``row``/``column`` (the platform coordinates x_p
    of the compliance) and ``principal``; variables ``frequencies_hz`` (Hz),
    ``cond_closure``, ``cond_pencil``, ``singularity_measure`` (1),
    ``compliance``, ``compliance_eigenvalues``, ``status`` (text) and
    ``cause`` (``ok``, ``near-singular``, ``unreachable``, ``other-mode``,
    ``singular``, ``failed``); attributes: the provenance, the held
    components (``held_<name>``) and the counts by cause (``cells_<cause>``).
    Raises :class:`flexpkm.errors.MissingDependencyError` without xarray."""
    xr = _require("xarray")
    dims = tuple(result.grid.names)
    unit = dict(m="N", rad="N m")
    rows = [f"{n} [{u}/{unit.get(u, '?')}]" for n, u in zip(result.platform_names,
                                                          result.platform_units)]
    data = {"frequencies_hz": (dims + ("mode",), result.frequencies_hz, {"units": "Hz"}),
            "compliance": (dims + ("row", "column"), result.compliance,
                           {"units": "x_p row per unit generalized force of column",
                            "description": "C = J_p K^-1 J_p^T, dx_p = C S_p^T w"}),
            "compliance_eigenvalues": (dims + ("principal",), result.compliance_eigenvalues,
                                       {"units": "mixed (see compliance)"}),
            "status": (dims, np.asarray(result.status, dtype=str), {"units": ""}),
            "cause": (dims, result.causes(), {"units": ""})}
    for k, v in result.measures.items():
        data[k] = (dims, v, {"units": "1"})
    coords = {name: (name, values, {"units": u})
              for name, values, u in zip(dims, result.grid.axes, result.units)}
    coords.update(mode=("mode", np.arange(1, result.frequencies_hz.shape[-1] + 1)),
                  row=("row", list(result.platform_names)),
                  column=("column", list(result.platform_names)),
                  principal=("principal", np.arange(1, result.compliance_eigenvalues.shape[-1] + 1)),
                  row_units=("row", rows))
    attrs = _attrs(result, None, "WorkspaceMap") | {"robot": result.robot}
    attrs.update({f"held_{k}": float(v) for k, v in result.fixed.items()})
    attrs.update({f"cells_{k.replace('-', '_')}": int(n) for k, n in result.counts().items()})
    return xr.Dataset({k: (d, np.asarray(v), a) for k, (d, v, a) in data.items()},
                      coords=coords, attrs=attrs)


def modes_frame(modes):
    """pandas.DataFrame, one row per pose: ``f1_hz .. fn_hz`` and the
    conditioning measures (the shapes are in :func:`modes_dataset`). Raises
    :class:`flexpkm.errors.MissingDependencyError`."""
    pd = _require("pandas")
    f = np.atleast_2d(modes.frequencies_hz)
    cols = {f"f{i + 1}_hz": f[:, i] for i in range(f.shape[1])}
    for name in ("cond_closure", "cond_pencil", "singularity_measure"):
        if getattr(modes, name) is not None:
            cols[name] = np.atleast_1d(getattr(modes, name))
    return pd.DataFrame(cols)


def sweep_frame(sweep):
    """pandas.DataFrame, one row per pose: ``s``, the pose components,
    ``f1_hz .. fn_hz``, the measures, ``status`` (the columns of
    :meth:`SweepResult.to_csv`). Raises :class:`flexpkm.errors.MissingDependencyError`."""
    pd = _require("pandas")
    f = np.asarray(sweep.frequencies_hz)
    cols = {"s": sweep.parameter}
    cols.update({n: sweep.poses[:, i] for i, n in enumerate(sweep.names)})
    cols.update({f"f{i + 1}_hz": f[:, i] for i in range(f.shape[1])})
    cols.update(sweep.measures or {})
    cols["status"] = list(sweep.status) if sweep.status else ["ok"] * len(f)
    return pd.DataFrame(cols)


def simulation_frame(res):
    """pandas.DataFrame, one row per sample: ``t``, ``tau_<actuator>``, the
    sensors, ``drift``, ``energy``, then every coordinate of ``q`` by name.
    Raises :class:`flexpkm.errors.MissingDependencyError`."""
    pd = _require("pandas")
    cols = {"t": res.t}
    cols.update({f"tau_{n}": res.tau[:, i] for i, n in enumerate(res.r_names[:res.tau.shape[1]])})
    cols.update(res.sensors)
    for k in ("drift", "energy"):
        if getattr(res, k) is not None:
            cols[k] = getattr(res, k)
    cols.update({n: res.q[:, i] for i, n in enumerate(res.names)})
    return pd.DataFrame(cols)


def idm_frame(res):
    """pandas.DataFrame, one row per sample: ``t``, ``<actuator>``,
    ``qd_<actuator>``, ``qdd_<actuator>``, ``tau_<actuator>``, the total
    energy and the ground wrench (``ground_f_x`` ..) when present. Raises
    :class:`flexpkm.errors.MissingDependencyError`."""
    pd = _require("pandas")
    cols = {"t": res.t}
    for prefix, v in (("", res.q_a), ("qd_", res.qd_a), ("qdd_", res.qdd_a), ("tau_", res.tau)):
        cols.update({f"{prefix}{n}": v[:, i] for i, n in enumerate(res.names)})
    if res.energy is not None:
        cols["energy"] = res.energy.total
    if res.ground is not None:
        cols.update({f"ground_{c}": res.ground.total[:, i] for i, c in enumerate(WRENCH)})
    return pd.DataFrame(cols)


# -- reprs ----------------------------------------------------------------

def _fmt(values, k=3) -> str:
    v = np.asarray(values, float).ravel()
    head = ", ".join(f"{x:.4g}" for x in v[:k])
    return f"[{head}{', ...' if v.size > k else ''}]"


def summary(res) -> list:
    """``[(label, text), ...]``: the key numbers of a result (shapes, first
    frequencies, time span, extremes), for its repr and its HTML table."""
    kind = type(res).__name__
    rows = []
    if hasattr(res, "shapes_tot"):                                  # Modes
        f = np.asarray(res.frequencies_hz)
        rows += [("poses", str(1 if f.ndim == 1 else f.shape[0])), ("modes", str(f.shape[-1])),
                 ("f (Hz)", _fmt(f if f.ndim == 1 else f[0])), ("q_r", str(len(res.names)))]
    elif hasattr(res, "parameter"):                                 # SweepResult
        f = np.asarray(res.frequencies_hz)
        ok = sum(s == "ok" for s in res.status) if res.status else len(f)
        rows += [("poses", f"{f.shape[0]} ({ok} ok)"), ("modes", str(f.shape[1])),
                 ("f1 (Hz)", f"{np.nanmin(f[:, 0]):.4g} .. {np.nanmax(f[:, 0]):.4g}"
                  if np.isfinite(f[:, 0]).any() else "nan"), ("pose", ", ".join(res.names))]
    else:                                                           # simulation, IDM
        t = np.asarray(res.t)
        rows += [("samples", str(len(t))), ("t (s)", f"{t[0]:.4g} .. {t[-1]:.4g}" if len(t) else "-"),
                 ("actuators", ", ".join(res.r_names[:res.tau.shape[1]] if hasattr(res, "r_names")
                                         else res.names)),
                 ("max |tau|", f"{np.abs(res.tau).max():.4g}" if res.tau.size else "-")]
        if getattr(res, "drift", None) is not None and len(res.drift):
            rows.append(("max drift", f"{np.nanmax(res.drift):.2g}"))
    return [(kind, "")] + rows


def short_repr(res) -> str:
    """One line, under 300 characters: the result's kind and key numbers
    (the backend is in :func:`html_table` and in the Dataset's attributes)."""
    (kind, _), *rows = summary(res)
    text = f"{kind}(" + ", ".join(f"{k}={v}" for k, v in rows) + ")"
    return text if len(text) < 300 else text[:295] + "...)"


def html_table(res) -> str:
    """A small HTML table of :func:`summary` (Jupyter's ``_repr_html_``)."""
    (kind, _), *rows = summary(res)
    rows.append(("backend", str(getattr(res, "backend", ""))))
    body = "".join(f"<tr><th style='text-align:left'>{html.escape(k)}</th>"
                   f"<td style='text-align:left'>{html.escape(v)}</td></tr>" for k, v in rows)
    return f"<table><caption>{html.escape(kind)}</caption>{body}</table>"


class ResultViews:
    """Mixin of the result classes (Modes, SweepResult, SimulationResult,
    IdmResult): ``to_xarray``, ``to_dataframe``, a short ``repr`` and an
    HTML table. A subclass names its two converters of this module in
    ``_views = (dataset, frame)`` and is declared ``@dataclass(repr=False)``
    so that it keeps this repr."""

    __slots__ = ()
    _views = ("", "")

    def to_xarray(self, model=None):
        """This result as an ``xarray.Dataset``: named dimensions, units per
        variable, provenance attributes (:func:`modes_dataset`,
        :func:`sweep_dataset`, :func:`simulation_dataset`, :func:`idm_dataset`);
        ``model`` (the Model or Robot it comes from) adds the coordinates'
        units and the robot's name. Raises :class:`flexpkm.errors.MissingDependencyError`
        without ``flexpkm[data]``."""
        return globals()[self._views[0]](self, model)

    def to_dataframe(self):
        """This result as a ``pandas.DataFrame``, one row per pose or sample
        (:func:`modes_frame`, :func:`sweep_frame`, :func:`simulation_frame`,
        :func:`idm_frame`). Raises :class:`flexpkm.errors.MissingDependencyError` without
        ``flexpkm[data]``."""
        return globals()[self._views[1]](self)

    def __repr__(self):
        return short_repr(self)

    def _repr_html_(self):
        return html_table(self)


#: what xarray imports to ask whether an array is a dask array or a dask
#: scheduler is running (``dask.array``: 0.17 s, ``distributed``: 0.23 s of
#: CPU), when they are installed: neither can be so before they are imported
UNPROBED = ("dask.array", "distributed")


@contextlib.contextmanager
def dask_unprobed():
    """Within it, xarray's probes for dask arrays and a distributed
    scheduler (building a Dataset, writing NetCDF) do not import
    :data:`UNPROBED` when they are not imported yet (then no array is a
    dask array and no client runs): 0.4 s of CPU of a map's start-up (the
    CLI map; issue 21). Those modules read as not installed for the
    duration (``sys.modules`` entries None, as Python's own way to block an
    import); the entries, and xarray's cached answer about dask arrays
    (``xarray.namedarray.pycompat``) when it was made inside, are removed
    after: a later ``import distributed`` and dask arrays work as before."""
    blocked = [m for m in UNPROBED if m not in sys.modules]
    for m in blocked:
        sys.modules[m] = None
    try:
        yield
    finally:
        for m in blocked:
            if sys.modules.get(m, 0) is None:
                del sys.modules[m]
        if "dask.array" in blocked:
            _forget_dask_probe()


def _forget_dask_probe():
    """Drop xarray's cached "dask arrays: not available" (made while
    ``dask.array`` was blocked), if any."""
    pycompat = sys.modules.get("xarray.namedarray.pycompat")
    cache = getattr(pycompat, "_cached_duck_array_modules", None)
    if isinstance(cache, dict) and "dask" in cache and not cache["dask"].available:
        del cache["dask"]
