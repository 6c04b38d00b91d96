"""XDMF time series written incrementally: heavy data in HDF5 (h5py), one
group per time step written as it is computed, the light XML written at the
end. Memory does not grow with the number of steps (meshio's in-memory XML
series held every value as text: 1.2 GB for a 60 s simulation).

Layout of ``NAME.h5`` (beside ``NAME.xdmf``, which refers to it by its base
name): ``/mesh/points`` (n, 3) m, ``/mesh/cells`` (m, 8) hexahedra,
``/mesh/part``, ``/mesh/kind`` (m,) cell data, ``/time`` (T,) s and
``/step_K/displacement``, ``/step_K/rotation`` (n, 3) (m, rad). Readable by
ParaView and ``meshio.xdmf.TimeSeriesReader``. Both files are written under
temporary names and renamed when complete (``.h5`` first).
"""
from __future__ import annotations

import os
from pathlib import Path
from xml.sax.saxutils import quoteattr

import numpy as np

from flexpkm.io.run_files import PART, atomic_write

NUMBER = {np.dtype("float64"): ('Float', 8), np.dtype("int64"): ('Int', 8),
          np.dtype("int32"): ('Int', 4), np.dtype("float32"): ('Float', 4)}


def _item(h5name, dataset, array) -> str:
    """An HDF ``DataItem`` pointing to ``h5name:dataset`` of ``array``'s type and shape."""
    kind, size = NUMBER[np.asarray(array).dtype]
    dims = " ".join(str(d) for d in np.shape(array))
    return (f'<DataItem DataType="{kind}" Precision="{size}" Dimensions="{dims}" Format="HDF">'
            f'{h5name}:{dataset}</DataItem>')


class XdmfSeries:
    """``with XdmfSeries(path, points (n, 3), cells (m, 8), cell_data) as s:
    s.write(t, point_data)`` writes an XDMF time series step by step.

    point_data : name -> (n, 3) or (n,) float arrays (the same names at every
    step). On an exception nothing appears under ``path``.
    """

    def __init__(self, path, points, cells, cell_data=None):
        import h5py
        self.path = Path(path)
        self.h5path = self.path.with_suffix(".h5")
        self._tmp_h5 = self.h5path.with_name(f"{PART}{os.getpid()}-{self.h5path.name}")
        self.file = h5py.File(self._tmp_h5, "w")
        self.points, self.cells = np.asarray(points, float), np.asarray(cells, np.int64)
        self.cell_data = {k: np.asarray(v) for k, v in (cell_data or {}).items()}
        self.file["mesh/points"], self.file["mesh/cells"] = self.points, self.cells
        for k, v in self.cell_data.items():
            self.file[f"mesh/{k}"] = v
        self.times, self.shapes = [], {}

    def write(self, t: float, point_data: dict):
        """Add the step ``t`` (s): its arrays go to the HDF5 file now."""
        k = len(self.times)
        for name, value in point_data.items():
            value = np.asarray(value, float)
            self.file[f"step_{k}/{name}"] = value
            self.shapes[name] = value.shape
        self.times.append(float(t))
        self.file.flush()

    def _grid(self, k, t) -> str:
        h5 = self.h5path.name
        m = len(self.cells)
        lines = [f'<Grid Name="step {k}" GridType="Uniform"><Time Value="{t!r}"/>',
                 f'<Topology TopologyType="Hexahedron" NumberOfElements="{m}">'
                 f'{_item(h5, "/mesh/cells", self.cells)}</Topology>',
                 f'<Geometry GeometryType="XYZ">{_item(h5, "/mesh/points", self.points)}</Geometry>']
        for name, shape in self.shapes.items():
            kind = "Vector" if len(shape) == 2 else "Scalar"
            lines.append(f'<Attribute Name={quoteattr(name)} AttributeType="{kind}" Center="Node">'
                         f'{_item(h5, f"/step_{k}/{name}", np.zeros(shape))}</Attribute>')
        for name, value in self.cell_data.items():
            lines.append(f'<Attribute Name={quoteattr(name)} AttributeType="Scalar" Center="Cell">'
                         f'{_item(h5, f"/mesh/{name}", value)}</Attribute>')
        return "\n".join(lines) + "\n</Grid>"

    def close(self, complete=True):
        """Write the XML and rename both files (``complete``), or remove the
        temporary HDF5 file."""
        self.file["time"] = np.array(self.times, float)
        self.file.close()
        if not complete:
            self._tmp_h5.unlink(missing_ok=True)
            return
        os.replace(self._tmp_h5, self.h5path)
        with atomic_write(self.path) as tmp, open(tmp, "w") as f:   # streamed, grid by grid
            f.write('<?xml version="1.0"?>\n<Xdmf Version="3.0"><Domain>\n'
                    '<Grid Name="TimeSeries" GridType="Collection" CollectionType="Temporal">\n')
            for k, t in enumerate(self.times):
                f.write(self._grid(k, t) + "\n")
            f.write("</Grid>\n</Domain></Xdmf>\n")

    def __enter__(self):
        return self

    def __exit__(self, kind, value, tb):
        self.close(complete=kind is None)
        return False
