"""Swept-solid meshes of a robot's parts as plain numpy arrays: the
containers :class:`Part`, :class:`Mesh`, :class:`RobotGeometry` and the
section grids. All lengths in m, rotations as rotation vectors in rad, F_0.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from flexpkm.errors import InvalidArgumentError
from flexpkm.spatial import rotation_vector  # noqa: F401 (part of the mesh vocabulary)

BEAM, LINK, JOINT, PLATFORM = "beam", "link", "joint", "platform"
#: part kinds in a fixed order (integer codes of :meth:`RobotGeometry.mesh`)
KINDS = (BEAM, LINK, JOINT, PLATFORM)
#: bars shorter than this (m) are not drawn


@dataclass(frozen=True)
class Part:
    """One named solid of the robot (hexahedral mesh, n nodes, m cells).

    name : e.g. ``"beam 13"``, ``"link 12-13"``, ``"joint 22"``
    kind : one of :data:`KINDS`
    frame : the frame that carries it (``""`` for the platform)
    reference : (n, 3) node positions at the reference (undeformed) state, m
    cells : (m, 8) int hexahedra (VTK order) into the nodes
    displacement : (n, 3) node displacement from the reference, m
    rotation : (n, 3) rotation vector of the local triad relative to the
               reference, rad
    """

    name: str
    kind: str
    frame: str
    reference: np.ndarray
    cells: np.ndarray
    displacement: np.ndarray
    rotation: np.ndarray

    @property
    def points(self) -> np.ndarray:
        """(n, 3) deformed node positions ``reference + displacement``, m."""
        return self.reference + self.displacement


@dataclass(frozen=True)
class Mesh:
    """All parts merged into one mesh (see :class:`Part` for the arrays).

    cell_part : (m,) index of each cell's part in ``part_names``
    cell_kind : (m,) index of each cell's kind in :data:`KINDS`
    """

    reference: np.ndarray
    cells: np.ndarray
    displacement: np.ndarray
    rotation: np.ndarray
    cell_part: np.ndarray
    cell_kind: np.ndarray
    part_names: tuple

    @property
    def points(self) -> np.ndarray:
        """(n, 3) deformed node positions, m."""
        return self.reference + self.displacement


@dataclass(frozen=True)
class RobotGeometry:
    """The robot's parts and its characteristic size ``size`` (m)."""

    parts: tuple
    size: float

    def mesh(self) -> Mesh:
        """Merge the parts into one :class:`Mesh` (cells renumbered)."""
        offsets = np.cumsum([0] + [len(p.reference) for p in self.parts])
        cat = lambda name: np.concatenate([getattr(p, name) for p in self.parts])
        counts = [len(p.cells) for p in self.parts]
        return Mesh(cat("reference"),
                    np.concatenate([p.cells + o for p, o in zip(self.parts, offsets)]),
                    cat("displacement"), cat("rotation"),
                    np.repeat(np.arange(len(self.parts)), counts),
                    np.repeat([KINDS.index(p.kind) for p in self.parts], counts),
                    tuple(p.name for p in self.parts))

    def scaled(self, scale: float) -> "RobotGeometry":
        """Same geometry with displacements and rotations times ``scale``
        (meaningful for the linear field of :func:`mode_geometry`)."""
        return replace(self, parts=tuple(
            replace(p, displacement=scale * p.displacement, rotation=scale * p.rotation)
            for p in self.parts))

    def part(self, name: str) -> Part:
        """The part called ``name``; :class:`InvalidArgumentError` naming the known parts."""
        for p in self.parts:
            if p.name == name:
                return p
        raise InvalidArgumentError(f"no part {name!r}; parts: {', '.join(p.name for p in self.parts)}")

    def bounds(self, deformed: bool = False) -> np.ndarray:
        """(2, 3) lower and upper corners of the nodes' bounding box, m."""
        pts = np.concatenate([p.points if deformed else p.reference for p in self.parts])
        return np.stack([pts.min(axis=0), pts.max(axis=0)])

    @property
    def max_displacement(self) -> float:
        """Largest node displacement, m."""
        return max(float(np.linalg.norm(p.displacement, axis=-1).max()) for p in self.parts)

    @property
    def max_rotation(self) -> float:
        """Largest node rotation angle, rad."""
        return max(float(np.linalg.norm(p.rotation, axis=-1).max()) for p in self.parts)



def rectangle(b_y: float, h_z: float, n: int = 2) -> np.ndarray:
    """Section grid (n, n, 2) of a b_y x h_z rectangle centred on the axis."""
    y, z = np.meshgrid(np.linspace(-b_y / 2, b_y / 2, n), np.linspace(-h_z / 2, h_z / 2, n),
                       indexing="ij")
    return np.stack([y, z], axis=-1)


def disk(radius: float, n: int = 7) -> np.ndarray:
    """Section grid (n, n, 2) of a disk (the square [-1, 1]^2 mapped onto
    the disk by ``(u sqrt(1 - v^2 / 2), v sqrt(1 - u^2 / 2))``)."""
    uv = rectangle(2.0, 2.0, n)
    u, v = uv[..., 0], uv[..., 1]
    return radius * np.stack([u * np.sqrt(1 - v * v / 2), v * np.sqrt(1 - u * u / 2)], axis=-1)


def hexahedra(ns: int, ny: int, nz: int) -> np.ndarray:
    """(m, 8) VTK hexahedra of a (ns, ny, nz) structured block of nodes
    (node index ``(s * ny + i) * nz + k``)."""
    idx = np.arange(ns * ny * nz).reshape(ns, ny, nz)
    quad = lambda s: np.stack([s[:, :-1, :-1], s[:, 1:, :-1], s[:, 1:, 1:], s[:, :-1, 1:]], axis=-1)
    return np.concatenate([quad(idx[:-1]), quad(idx[1:])], axis=-1).reshape(-1, 8)
