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

A write error (a full disk: ENOSPC) is one OSError, the temporary removed:
the HDF5 bytes go through a Python file object (h5py's ``fileobj``
driver, :class:`_GuardedFile`) that keeps the first error and drops the
later writes, so HDF5 itself never sees a failed write (after one, HDF5
crashed the process with a segmentation fault at the next flush).
"""
from __future__ import annotations

import os
from pathlib import Path
from xml.sax.saxutils import quoteattr

import numpy as np

from flexpkm.io.output_paths import PART, atomic_write, publish

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
        from flexpkm.optional import require
        h5py = require("h5py", "XDMF time series")
        self.path = Path(path)
        self.h5path = self.path.with_suffix(".h5")
        self._tmp_h5 = self.h5path.with_name(f"{PART}{os.getpid()}-{self.h5path.name}")
        self._bytes = _GuardedFile(self._tmp_h5)
        self.file = h5py.File(self._bytes, "w")
        self.points, self.cells = np.asarray(points, float), np.asarray(cells, np.int64)
        self.cell_data = {k: np.asarray(v) for k, v in (cell_data or {}).items()}
        self.file["mesh/points"], self.file["mesh/cells"] = self.points, self.cells
        for k, v in self.cell_data.items():
            self.file[f"mesh/{k}"] = v
        self.times, self.shapes = [], {}
        self._check()

    def write(self, t: float, point_data: dict):
        """Add the step ``t`` (s): its arrays go to the HDF5 file now."""
        k = len(self.times)
        for name, value in point_data.items():
            value = np.asarray(value, float)
            self.file[f"step_{k}/{name}"] = value
            self.shapes[name] = value.shape
        self.times.append(float(t))
        self.file.flush()
        self._check()

    def _check(self):
        """Raise the first write error of the HDF5 bytes (OSError)."""
        if self._bytes.error is not None:
            raise self._bytes.error

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
        try:
            try:
                self.file["time"] = np.array(self.times, float)
                self.file.close()
            finally:
                self._bytes.close()
            if complete:
                self._check()
        except BaseException:
            self._tmp_h5.unlink(missing_ok=True)
            raise
        if not complete:
            self._tmp_h5.unlink(missing_ok=True)
            return
        publish(self._tmp_h5, self.h5path)
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


class _GuardedFile:
    """The HDF5 file's bytes for h5py's ``fileobj`` driver: a file opened
    unbuffered whose first write error (``error``) is kept; every later
    write or truncation is dropped (reported as done), so HDF5 never sees a
    failure and closes cleanly; the caller raises ``error``."""

    def __init__(self, path):
        self.f = open(path, "w+b", buffering=0)
        self.error = None

    def write(self, data) -> int:
        view = memoryview(data).cast("B")
        done = 0
        while self.error is None and done < len(view):
            try:
                done += self.f.write(view[done:]) or 0
            except OSError as e:
                self.error = e
        return len(view)

    def truncate(self, size=None):
        if self.error is None:
            try:
                return self.f.truncate(size)
            except OSError as e:
                self.error = e
        return size

    def flush(self):
        pass                                # unbuffered

    def read(self, n=-1):
        return self.f.read(n)

    def readinto(self, buffer):
        return self.f.readinto(buffer)

    def seek(self, offset, whence=0):
        return self.f.seek(offset, whence)

    def tell(self):
        return self.f.tell()

    def close(self):
        self.f.close()
