"""Deformed geometry of a robot for any state ``q_tot`` (mode shapes,
exports, pictures), as plain numpy arrays, independent of any viewer.

Every part of the picture is a *swept solid*: a planar section grid
``(y, z)`` carried along ``ns`` stations, each station a centre ``c`` and a
triad ``T`` (columns = the station's local x, y, z axes in the base frame
F_0), so that its nodes are ``c + T [0, y, z]``; consecutive stations are
joined by hexahedra (VTK node order). The parts are

* ``beam``: each flexible body of length L > 0 (Briot & Khalil Section
  10.2), swept along its own shape functions: at the abscissa x, in its frame
  F_j, the centre ``O_j + R_j (x e_x + Phi_d([x, 0, 0]) q_e)`` and the
  section triad ``R_j rot(Phi_r([x, 0, 0]) q_e)`` (``rot`` = the x-y-z Euler
  angles of Eq. (10.6), as :mod:`flexpkm.algorithms.tree` uses at the attachments), the
  real cross-section ``b_y x h_z`` of the body's
  :class:`flexpkm.elements.beam.Section` (an equivalent rectangle when only A, Iy, Iz
  are known, a small square otherwise);
* ``link``: rigid boxes from a frame origin O_j to the point A_c where each
  descendant's joint sits (rigid links connect a frame to its descendants),
  plus the offset ``r`` along a revolute/fixed joint axis, a connector when a
  descendant is attached off the axis of a beam, a bar to the centre of mass
  of a rigid body that has no descendant;
* ``joint``: a cylinder along z_j for each revolute joint, a box (carriage)
  on a thin rail along z_j for each prismatic joint, and markers for the cut
  joints of the closures (cylinder for ``revolute``, box for ``prismatic``,
  a short fat cylinder for ``universal``/``spherical``; nothing for ``weld``);
* ``platform``: bars from P to the closures' attachment points (and between
  consecutive points when there are three or more) and a hub at P, placed
  with the pose of :func:`flexpkm.algorithms.closure.platform_pose`.

Poses come from :func:`flexpkm.algorithms.tree.tree_kinematics` (exact, any elastic
coordinates). :func:`robot_geometry` evaluates a state against a reference
state; :func:`mode_geometry` gives the *linearised* displacement field of a
mode shape (central difference of the exact geometry, so that the loop
closures hold exactly to first order), to be multiplied by a scale from
:func:`auto_scale`. All lengths are in m, angles in rad, vectors in F_0.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from functools import partial

import numpy as np
from scipy.spatial.transform import Rotation

from flexpkm.algorithms.closure import platform_pose
from flexpkm.model.description import PRISMATIC, REVOLUTE, Robot
from flexpkm.spatial import euler_xyz, mdh_transform
from flexpkm.algorithms.tree import as_batch, tree_kinematics

BEAM, LINK, JOINT, PLATFORM = "beam", "link", "joint", "platform"
#: part kinds in a fixed order (integer codes of :meth:`RobotGeometry.mesh`)
KINDS = (BEAM, LINK, JOINT, PLATFORM)
#: bars shorter than this (m) are not drawn
_TINY = 1e-9
#: rows of the triad of a cylinder along z_j: local (x, y, z) = (z_j, x_j, y_j)
_ALONG_Z = [2, 0, 1]


@dataclass(frozen=True)
class Style:
    """Sizes of the drawn solids, as fractions of the robot's size ``size``
    (m; None: the largest side of the bounding box of the frame origins at
    the reference state, see :func:`robot_size`).

    link_width : side of the square section of rigid links
    joint_radius, joint_length : revolute joint cylinders
    rail_length : length of a prismatic joint's rail
    beam_stations : stations along each beam (>= 2)
    disk_nodes : nodes per side of a cylinder's section grid (>= 2; the
                 perimeter has 4 (n - 1) nodes)
    """

    size: float | None = None
    link_width: float = 0.016
    joint_radius: float = 0.022
    joint_length: float = 0.05
    rail_length: float = 0.5
    beam_stations: int = 25
    disk_nodes: int = 7


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
        """The part called ``name``; KeyError naming the known parts."""
        for p in self.parts:
            if p.name == name:
                return p
        raise KeyError(f"no part {name!r}; parts: {', '.join(p.name for p in self.parts)}")

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


# ---- states and poses ------------------------------------------------------
def joint_part(robot: Robot, q) -> np.ndarray:
    """``q_t`` (B, n_t) from states ``q_tot`` (n_tot,)/(B, n_tot) or ``q_t``
    (n_t,)/(B, n_t); the platform coordinates are not needed (the platform
    pose follows from the tree). Raises ValueError for another length."""
    layout = robot.layout
    q = np.asarray(q, dtype=float)
    if q.shape[-1] == layout.n_tot:
        q = q[..., :layout.n_t]
    return as_batch(q, layout.n_t)


class _Poses:
    """Poses of the frames, beam sections and platform for B states."""

    def __init__(self, robot: Robot, q_t: np.ndarray):
        self.robot, self.q = robot, q_t
        self.kin = tree_kinematics(robot, q_t)
        self.R_p, self.P = platform_pose(robot, self.kin)
        self.index = robot.frame_index

    def frame(self, name):
        """(O_j (B, 3), R_j (B, 3, 3))."""
        j = self.index[name]
        return self.kin.p[:, j], self.kin.R[:, j]

    def platform(self):
        """(P (B, 3), R_0p (B, 3, 3))."""
        return self.P, self.R_p

    def attachment(self, name):
        """Where the joint of frame ``name`` sits on its antecedent:
        ``(A_j = O_j - r_j z_j, R_j)`` with the current offset r_j."""
        O, R = self.frame(name)
        f = self.robot.frames[self.index[name]]
        r = f.r + (self.q[:, self.robot.layout.joint_index[name]] if f.sigma == PRISMATIC else 0.0)
        return O - np.asarray(r)[..., None] * R[..., :, 2], R

    def beam(self, name, x):
        """Centres (B, n, 3) and triads (B, n, 3, 3) of the sections of the
        flexible body of frame ``name`` at the abscissae x (n,), m."""
        body = self.robot.flexible_body(name)
        O, R = self.frame(name)
        pts = np.zeros((len(x), 3))
        pts[:, 0] = x
        qe = self.q[:, self.robot.layout.elastic_slice[name]]
        u = np.einsum("nij,bj->bni", body.phi_d(pts), qe)
        ang = np.einsum("nij,bj->bni", body.phi_r(pts), qe)
        centres = O[:, None] + np.einsum("bij,bnj->bni", R, pts + u)
        return centres, R[:, None] @ euler_xyz(ang)


# ---- part specifications -----------------------------------------------------
@dataclass(frozen=True)
class _Spec:
    """A part before evaluation: ``stations(poses)`` -> (centres (B, ns, 3),
    triads (B, ns, 3, 3)) and a section grid (ny, nz, 2)."""

    name: str
    kind: str
    frame: str
    stations: object
    section: np.ndarray


def _rigid(pose, centres, triad, poses):
    """Stations fixed in a moving frame: ``pose(poses)`` -> (O (B, 3),
    R (B, 3, 3)); local centres (ns, 3) and local triad (3, 3)."""
    O, R = pose(poses)
    c = O[:, None] + np.einsum("bij,sj->bsi", R, centres)
    return c, np.broadcast_to((R @ triad)[:, None], c.shape + (3,))


def _beam_stations(name, x, poses):
    return poses.beam(name, x)


def _section_pose(name, x, poses):
    """(centre (B, 3), triad (B, 3, 3)) of a beam's section at abscissa x."""
    c, T = poses.beam(name, [x])
    return c[:, 0], T[:, 0]


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


def _segment_triad(a, b, hint):
    """Local triad (3, 3) of a bar from a to b (local x along it, local z
    along the component of ``hint`` normal to it, else of another axis)."""
    x = (b - a) / np.linalg.norm(b - a)
    for h in (hint, np.eye(3)[0], np.eye(3)[1]):
        z = h - (h @ x) * x
        if np.linalg.norm(z) > 1e-6:
            z /= np.linalg.norm(z)
            return np.column_stack([x, np.cross(z, x), z])
    raise AssertionError("unreachable")


def _bar(name, kind, frame, pose, a, b, width, hint=(0.0, 0.0, 1.0)):
    """A square bar from local point a to b in a moving frame, or None when
    shorter than :data:`_TINY`."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    if np.linalg.norm(b - a) <= _TINY:
        return None
    triad = _segment_triad(a, b, np.asarray(hint, float))
    return _Spec(name, kind, frame, partial(_rigid, pose, np.stack([a, b]), triad),
                 rectangle(width, width))


def _along_z(name, frame, pose, half, section, centre=(0.0, 0.0, 0.0)):
    """A solid along the local z axis of a frame (joint marker / rail)."""
    c = np.asarray(centre, float)
    e = np.array([0.0, 0.0, half])
    return _Spec(name, JOINT, frame,
                 partial(_rigid, pose, np.stack([c - e, c + e]), np.eye(3)[:, _ALONG_Z]),
                 section)


def section_sides(body, size: float, style: Style):
    """(b_y, h_z) of a flexible body's cross-section, m: the rectangle of its
    ``section`` (:class:`flexpkm.elements.beam.Section`), else the rectangle with the
    same A, Iy, Iz, else a square of side ``style.link_width * size``."""
    sec = getattr(body, "section", None)
    if sec is not None and getattr(sec, "b_y", None) and getattr(sec, "h_z", None):
        return float(sec.b_y), float(sec.h_z)
    if sec is not None and getattr(sec, "A", 0) > 0:
        return float(np.sqrt(12 * sec.Iz / sec.A)), float(np.sqrt(12 * sec.Iy / sec.A))
    w = style.link_width * size
    return w, w


def _attachment(f):
    """A_j in the antecedent frame (MDH attachment point, theta = r = 0)."""
    return mdh_transform(f.gamma, f.b, f.alpha, f.d, 0.0, 0.0)[1]


def _frame_specs(robot: Robot, size: float, style: Style, stations: int):
    """Specs of the beams, links and tree-joint markers."""
    w = style.link_width * size
    children = {f.name: [] for f in robot.frames}
    for f in robot.frames:
        if f.antecedent is not None:
            children[f.antecedent].append(f)
    specs = []
    for f in robot.frames:
        pose = partial(_Poses.frame, name=f.name)
        body = robot.flexible_body(f.name)
        if body is not None and body.length > 0:
            specs.append(_Spec(f"beam {f.name}", BEAM, f.name,
                               partial(_beam_stations, f.name, np.linspace(0, body.length, stations)),
                               rectangle(*section_sides(body, size, style))))
        for c in children[f.name]:
            a = _attachment(c)
            if body is not None and body.length > 0:
                # connector from the beam's section at the attachment abscissa
                x = float(np.clip(a[0], 0.0, body.length))
                specs.append(_bar(f"link {f.name}-{c.name}", LINK, f.name,
                                  partial(_section_pose, f.name, x),
                                  np.zeros(3), a - [x, 0, 0], w))
            else:
                specs.append(_bar(f"link {f.name}-{c.name}", LINK, f.name, pose, np.zeros(3), a, w))
        if f.sigma != PRISMATIC and f.r:
            specs.append(_bar(f"link {f.name} offset", LINK, f.name, pose, [0, 0, -f.r], np.zeros(3), w))
        if body is None and not children[f.name]:
            specs += [_bar(f"link {f.name} body", LINK, f.name, pose, np.zeros(3),
                           b.invariants.ms_r / b.invariants.m, w)
                      for b in robot.bodies.get(f.name, ()) if b.invariants.m > 0]
        specs += _joint_specs(f, size, style)
    return specs


def _joint_specs(f, size, style):
    """Marker of the tree joint of frame f (revolute: cylinder; prismatic:
    carriage box on a rail; fixed: nothing)."""
    pose = partial(_Poses.frame, name=f.name)
    rad, half = style.joint_radius * size, style.joint_length * size / 2
    if f.sigma == REVOLUTE:
        return [_along_z(f"joint {f.name}", f.name, pose, half, disk(rad, style.disk_nodes))]
    if f.sigma == PRISMATIC:
        rail = partial(_Poses.attachment, name=f.name)
        return [_along_z(f"joint {f.name}", f.name, pose, 1.5 * half, rectangle(2 * rad, 2 * rad)),
                _along_z(f"rail {f.name}", f.name, rail, style.rail_length * size / 2,
                         rectangle(0.45 * rad, 0.45 * rad))]
    return []


def _closure_specs(robot: Robot, size: float, style: Style):
    """Markers of the cut joints and the platform's bars and hub."""
    rad, half = style.joint_radius * size, style.joint_length * size / 2
    specs = []
    for c in robot.closures:
        pose = partial(_Poses.frame, name=c.frame)
        name = f"cut joint {c.label}"
        if c.joint == "revolute":
            specs.append(_along_z(name, c.frame, pose, half, disk(rad, style.disk_nodes)))
        elif c.joint == "prismatic":
            specs.append(_along_z(name, c.frame, pose, 1.5 * half, rectangle(2 * rad, 2 * rad)))
        elif c.joint in ("universal", "spherical"):
            specs.append(_along_z(name, c.frame, pose, 1.2 * rad, disk(1.2 * rad, style.disk_nodes)))
    if robot.platform is None:
        return specs
    pts = [np.asarray(c.platform_point, float) for c in robot.closures if c.other is None]
    w = style.link_width * size
    specs += [_bar(f"platform bar {k + 1}", PLATFORM, "", _Poses.platform, np.zeros(3), p, w)
              for k, p in enumerate(pts)]
    if len(pts) >= 3:
        specs += [_bar(f"platform edge {k + 1}", PLATFORM, "", _Poses.platform, p, pts[(k + 1) % len(pts)], w)
                  for k, p in enumerate(pts)]
    if robot.platform.body is None and len(pts) == 1 and not pts[0].any():
        return specs            # a massless point at a cut joint: marked already
    hub = _along_z("platform hub", "", _Poses.platform, half, disk(1.5 * rad, style.disk_nodes))
    return specs + [replace(hub, kind=PLATFORM)]


def _specs(robot: Robot, size: float, style: Style):
    """All part specs, with unique names (a repeated name gets its frame)."""
    stations = max(2, int(style.beam_stations))
    specs = [s for s in _frame_specs(robot, size, style, stations) + _closure_specs(robot, size, style)
             if s is not None]
    names = [s.name for s in specs]
    return [replace(s, name=f"{s.name} ({s.frame})") if names.count(s.name) > 1 else s
            for s in specs]


# ---- evaluation ------------------------------------------------------------------
def _hexahedra(ns: int, ny: int, nz: int) -> np.ndarray:
    """(m, 8) VTK hexahedra of a (ns, ny, nz) structured block of nodes
    (node index ``(s * ny + i) * nz + k``)."""
    idx = np.arange(ns * ny * nz).reshape(ns, ny, nz)
    quad = lambda s: np.stack([s[:, :-1, :-1], s[:, 1:, :-1], s[:, 1:, 1:], s[:, :-1, 1:]], axis=-1)
    return np.concatenate([quad(idx[:-1]), quad(idx[1:])], axis=-1).reshape(-1, 8)


def _evaluate(spec: _Spec, poses: _Poses):
    """Nodes (B, n, 3), node triads (B, n, 3, 3) and cells (m, 8) of a spec."""
    centres, triads = spec.stations(poses)
    ny, nz = spec.section.shape[:2]
    local = np.zeros((ny, nz, 3))
    local[..., 1:] = spec.section
    nodes = centres[:, :, None, None] + np.einsum("bsij,ykj->bsyki", triads, local)
    B, ns = centres.shape[:2]
    tri = np.broadcast_to(triads[:, :, None, None], (B, ns, ny, nz, 3, 3))
    return (nodes.reshape(B, -1, 3), tri.reshape(B, -1, 3, 3), _hexahedra(ns, ny, nz))


def rotation_vector(R) -> np.ndarray:
    """Rotation vectors (..., 3) (axis times angle, rad) of rotations (..., 3, 3)."""
    R = np.asarray(R, float)
    return Rotation.from_matrix(R.reshape(-1, 3, 3)).as_rotvec().reshape(R.shape[:-1])


def robot_size(robot: Robot, q_t) -> float:
    """Characteristic size (m): the largest side of the bounding box of the
    frame origins and platform point at ``q_t`` (first state of a batch),
    at least the longest body; 1 m for a robot reduced to a point."""
    poses = _Poses(robot, joint_part(robot, q_t)[:1])
    pts = np.concatenate([poses.kin.p[0], poses.P])
    size = float(np.ptp(pts, axis=0).max())
    size = max(size, max((b.length for bs in robot.bodies.values() for b in bs), default=0.0))
    return size if size > 0 else 1.0


def _reference_state(robot, q):
    q = q.copy()
    for sl in robot.layout.elastic_slice.values():
        q[:, sl] = 0.0
    return q


def _parts(robot, specs, states, frames):
    """Evaluate specs at states (K, n_t) in one tree pass; ``frames`` maps
    each spec's (nodes (K, n, 3), triads (K, n, 3, 3)) to (reference,
    displacement, rotation)."""
    poses = _Poses(robot, states)
    out = []
    for s in specs:
        nodes, triads, cells = _evaluate(s, poses)
        ref, disp, rot = frames(nodes, triads)
        out.append(Part(s.name, s.kind, s.frame, ref, cells, disp, rot))
    return tuple(out)


def robot_geometry(robot: Robot, q_tot, reference=None, style: Style | None = None) -> RobotGeometry:
    """Geometry of the robot at the state ``q_tot`` (exact poses).

    q_tot : (n_tot,) or (n_t,) state (joint, elastic [, platform]
            coordinates; :class:`flexpkm.model.description.CoordinateLayout`).
    reference : state of the undeformed geometry (same lengths); default
            ``q_tot`` with its elastic coordinates set to 0.
    Displacements and rotation vectors are those of the nodes from the
    reference state to ``q_tot``. Raises ValueError for a wrong length.
    """
    q = joint_part(robot, q_tot)[:1]
    q0 = _reference_state(robot, q) if reference is None else joint_part(robot, reference)[:1]
    style = style or Style()
    size = style.size or robot_size(robot, q0)

    def frames(nodes, triads):
        rot = rotation_vector(triads[1] @ np.swapaxes(triads[0], -1, -2))
        return nodes[0], nodes[1] - nodes[0], rot
    return RobotGeometry(_parts(robot, _specs(robot, size, style), np.concatenate([q0, q]), frames),
                         size)


def mode_geometry(robot: Robot, q_nominal, shape, style: Style | None = None) -> RobotGeometry:
    """Linearised geometry of a mode shape at a nominal state.

    q_nominal : (n_tot,) or (n_t,) nominal state (elastic coordinates
                normally 0); shape : same length, e.g. a column of
                ``Modes.shapes_tot[b]`` (mass-normalised, so the field is
                per unit modal coordinate).
    Returns the reference geometry at ``q_nominal`` with the first-order
    displacement ``d nodes / d s`` and rotation vector of ``q_nominal + s
    shape`` at s = 0 (central difference of the exact geometry, relative
    error ~1e-10); use :meth:`RobotGeometry.scaled` with :func:`auto_scale`
    to draw it. Raises ValueError when the lengths disagree.
    """
    q0 = joint_part(robot, q_nominal)[:1]
    s = joint_part(robot, shape)[:1]
    h = 1e-6 / max(float(np.abs(s).max()), 1e-300)
    style = style or Style()
    size = style.size or robot_size(robot, q0)

    def frames(nodes, triads):
        T0 = np.swapaxes(triads[0], -1, -2)
        rot = (rotation_vector(triads[1] @ T0) - rotation_vector(triads[2] @ T0)) / (2 * h)
        return nodes[0], (nodes[1] - nodes[2]) / (2 * h), rot
    states = np.concatenate([q0, q0 + h * s, q0 - h * s])
    return RobotGeometry(_parts(robot, _specs(robot, size, style), states, frames), size)


def mode_geometries(robot: Robot, q_tot, modes, numbers, style: Style | None = None) -> list:
    """[(k, frequency (Hz), :func:`mode_geometry`)] for the 1-based mode
    numbers k of ``modes`` (one pose, (:class:`flexpkm.algorithms.modal.Modes`)
    at its nominal state ``q_tot``. Raises ValueError for a number outside
    1..n_modes."""
    n = modes.frequencies_hz.shape[-1]
    out = []
    for k in numbers:
        if not 1 <= k <= n:
            raise ValueError(f"mode {k} is not available (1..{n})")
        out.append((k, float(modes.frequencies_hz[k - 1]),
                    mode_geometry(robot, q_tot, modes.shapes_tot[:, k - 1], style)))
    return out


def auto_scale(geometry: RobotGeometry, fraction: float = 0.1,
               max_rotation: float | None = 0.35) -> float:
    """Scale factor for drawing a mode (:func:`mode_geometry`).

    The largest node displacement of ``geometry.scaled(scale)`` is
    ``fraction`` (default 10 %) of the largest side of the reference
    bounding box, unless this turns some node by more than ``max_rotation``
    (rad, default 0.35 = 20 deg): the scale is then lowered to that rotation,
    since a linearised mode drawn with larger rotations visibly distorts the
    rigid parts (``None``: displacement criterion only).
    Raises ValueError when nothing moves.
    """
    umax = geometry.max_displacement
    if not umax > 0:
        raise ValueError("the displacement field is zero: no scale can be chosen")
    scale = fraction * float(np.ptp(geometry.bounds(), axis=0).max()) / umax
    rmax = geometry.max_rotation
    if max_rotation is not None and rmax * scale > max_rotation:
        scale = max_rotation / rmax
    return scale
