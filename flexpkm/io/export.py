"""Mode shapes as meshes for ParaView & co. (meshio): the robot's hexahedral
mesh at the nominal pose (:mod:`flexpkm.io.geometry`) with point data

* ``displacement`` (n, 3): node displacement, m, base frame F_0,
* ``rotation`` (n, 3): rotation vector of the node's local triad, rad,

and cell data ``part`` (index into the geometry's part names) and ``kind``
(index into :data:`flexpkm.io.geometry.KINDS`).

Amplitude convention (``normalize``): ``"mass"`` keeps the mass-normalised
eigenvector (the field per unit modal coordinate, ``Modes.shapes_tot``),
``"max"`` divides it so that the largest displacement is 1 m (then a
ParaView *Warp By Vector* factor is the drawn amplitude in m), a number
multiplies the mass-normalised field by it.

Files: one VTU per mode (:func:`write_modes_vtu`), or one XDMF time series
(:func:`write_modes_xdmf`: the modes as time steps t = 1, 2, ...;
:func:`write_animation_xdmf`: one period of one mode). XDMF is written with
its data inline (``data_format="XML"``) by default, which needs no h5py.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from flexpkm.errors import InvalidArgumentError
from flexpkm.io.geometry import RobotGeometry, auto_scale, mode_geometries
from flexpkm.io.run_files import atomic_write

HEX = "hexahedron"


def amplitude(geometry: RobotGeometry, normalize="mass") -> float:
    """Factor applied to a mode's field (see the module docstring).
    Raises InvalidArgumentError for an unknown ``normalize`` or a zero field with
    ``"max"``."""
    if normalize == "mass":
        return 1.0
    if normalize == "max":
        umax = geometry.max_displacement
        if not umax > 0:
            raise InvalidArgumentError("the displacement field is zero: cannot normalise it to 1 m")
        return 1.0 / umax
    if isinstance(normalize, (int, float)):
        return float(normalize)
    raise InvalidArgumentError(f"unknown normalisation {normalize!r} (use 'mass', 'max' or a number)")


def point_data(geometry: RobotGeometry, scale: float = 1.0) -> dict:
    """``{"displacement": (n, 3), "rotation": (n, 3)}`` of the merged mesh,
    times ``scale``."""
    mesh = geometry.mesh()
    return {"displacement": scale * mesh.displacement, "rotation": scale * mesh.rotation}


def cell_data(geometry: RobotGeometry) -> dict:
    """``{"part": [(m,)], "kind": [(m,)]}`` (one block of hexahedra)."""
    mesh = geometry.mesh()
    return {"part": [mesh.cell_part], "kind": [mesh.cell_kind]}


def to_meshio(geometry: RobotGeometry, scale: float = 1.0):
    """A ``meshio.Mesh``: reference nodes, hexahedra, :func:`point_data`
    times ``scale``, :func:`cell_data`."""
    import meshio
    mesh = geometry.mesh()
    return meshio.Mesh(mesh.reference, [(HEX, mesh.cells)],
                       point_data=point_data(geometry, scale), cell_data=cell_data(geometry))


def write_modes_vtu(robot, q_tot, modes, numbers, directory, prefix: str,
                    normalize="mass") -> list:
    """One ``directory/{prefix}_mode_{k}.vtu`` per mode number k (1-based).

    q_tot : nominal state (n_tot,) or (n_t,) of the first pose of ``modes``
    (:class:`flexpkm.algorithms.modal.Modes`). Field data: ``mode``, ``frequency_hz``,
    ``amplitude`` (the factor of ``normalize``) and ``suggested_scale``
    (:func:`flexpkm.io.geometry.auto_scale` of the written field, for a
    Warp By Vector). Returns the paths.
    """
    import meshio
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for k, f, geo in mode_geometries(robot, q_tot, modes, numbers):
        a = amplitude(geo, normalize)
        path = directory / f"{prefix}_mode_{k}.vtu"
        with atomic_write(path) as tmp:
            meshio.write(tmp, to_meshio(geo, a), file_format="vtu")
            add_vtu_field_data(tmp, {"mode": k, "frequency_hz": f, "amplitude": a,
                                     "suggested_scale": auto_scale(geo) / a})
        paths.append(path)
    return paths


def add_vtu_field_data(path, values: dict) -> None:
    """Insert ``<FieldData>`` (one Float64 value per name, ascii) into a VTU
    file; meshio 5 reads it (``Mesh.field_data``) but does not write it.
    Raises InvalidArgumentError when the file is not a VTU UnstructuredGrid."""
    import xml.etree.ElementTree as ET
    tree = ET.parse(path)
    grid = tree.getroot().find("UnstructuredGrid")
    if grid is None:
        raise InvalidArgumentError(f"{path}: not a VTU UnstructuredGrid file")
    fd = ET.Element("FieldData")
    for name, v in values.items():
        da = ET.SubElement(fd, "DataArray", type="Float64", Name=str(name),
                           NumberOfTuples="1", format="ascii")
        da.text = repr(float(v))
    grid.insert(0, fd)
    tree.write(path, xml_declaration=True, encoding="utf-8")


def write_xdmf_series(path, steps, data_format: str = "XML") -> Path:
    """An XDMF time series on one reference mesh.

    steps : iterable of (time, geometry, scale); the mesh is the first
    geometry's, each step's point data :func:`point_data` (geometry, scale)
    (the geometries must share the reference mesh: same robot and nominal
    pose, e.g. several modes). ``data_format``: ``"XML"`` (inline, no h5py),
    ``"Binary"`` or ``"HDF"`` (needs h5py). Returns the path; InvalidArgumentError
    when a geometry has another number of nodes.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if data_format != "XML":                # the heavy-data file is named after the XML file
        return _write_series(path, steps, data_format)
    with atomic_write(path) as tmp:
        _write_series(tmp, steps, data_format)
    return path


def _write_series(path, steps, data_format) -> Path:
    import meshio
    with meshio.xdmf.TimeSeriesWriter(path, data_format=data_format) as writer:
        n = None
        for t, geo, s in steps:
            if n is None:
                mesh = geo.mesh()
                n = len(mesh.reference)
                writer.write_points_cells(mesh.reference, [(HEX, mesh.cells)])
            data = point_data(geo, s)
            if len(data["displacement"]) != n:
                raise InvalidArgumentError("the steps of an XDMF series must share the reference mesh")
            writer.write_data(float(t), point_data=data, cell_data=cell_data(geo))
    return path


def write_modes_xdmf(robot, q_tot, modes, numbers, path, normalize="mass",
                     data_format: str = "XML") -> Path:
    """The modes ``numbers`` as the time steps t = k of one XDMF file
    (point data of each mode as in :func:`write_modes_vtu`)."""
    items = mode_geometries(robot, q_tot, modes, numbers)
    return write_xdmf_series(path, [(k, geo, amplitude(geo, normalize)) for k, _, geo in items],
                             data_format)


def write_animation_xdmf(geometry: RobotGeometry, scale: float, path, n_frames: int = 24,
                         frequency_hz: float = 1.0, data_format: str = "XML") -> Path:
    """One period of a mode as an XDMF time series: at t_i = i / (n_frames
    f) (s) the field is ``scale sin(2 pi f t_i)`` times the mode's."""
    f = float(frequency_hz) if frequency_hz > 0 else 1.0
    t = np.arange(int(n_frames)) / (n_frames * f)
    return write_xdmf_series(path, [(ti, geometry, scale * np.sin(2 * np.pi * f * ti)) for ti in t],
                             data_format)
