"""What is drawn of a robot (see :mod:`flexpkm.io.geometry`): one *spec*
per part (beams along their shape functions, rigid links, joint markers,
cut joints, the platform), each a function of the poses of B states and a
section grid, and the poses (:class:`Poses`) they are evaluated on.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from functools import partial

import numpy as np

from flexpkm.algorithms.platform import platform_pose
from flexpkm.algorithms.tree import tree_kinematics
from flexpkm.io.mesh import BEAM, JOINT, LINK, PLATFORM, disk, rectangle
from flexpkm.model.description import PRISMATIC, REVOLUTE, Robot
from flexpkm.spatial import euler_xyz, mdh_transform

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



class Poses:
    """Poses of the frames, beam sections and platform for B states
    ``q_tot`` (B, n_tot)."""

    def __init__(self, robot: Robot, q_tot: np.ndarray):
        self.robot, self.q = robot, q_tot
        self.kin = tree_kinematics(robot, q_tot[:, :robot.layout.n_t])
        self.R_p, self.P = platform_pose(robot, q_tot)
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
        pose = partial(Poses.frame, name=f.name)
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
    pose = partial(Poses.frame, name=f.name)
    rad, half = style.joint_radius * size, style.joint_length * size / 2
    if f.sigma == REVOLUTE:
        return [_along_z(f"joint {f.name}", f.name, pose, half, disk(rad, style.disk_nodes))]
    if f.sigma == PRISMATIC:
        rail = partial(Poses.attachment, name=f.name)
        return [_along_z(f"joint {f.name}", f.name, pose, 1.5 * half, rectangle(2 * rad, 2 * rad)),
                _along_z(f"rail {f.name}", f.name, rail, style.rail_length * size / 2,
                         rectangle(0.45 * rad, 0.45 * rad))]
    return []


def _closure_specs(robot: Robot, size: float, style: Style):
    """Markers of the cut joints and the platform's bars and hub."""
    rad, half = style.joint_radius * size, style.joint_length * size / 2
    specs = []
    for c in robot.closures:
        pose = partial(Poses.frame, name=c.frame)
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
    specs += [_bar(f"platform bar {k + 1}", PLATFORM, "", Poses.platform, np.zeros(3), p, w)
              for k, p in enumerate(pts)]
    if len(pts) >= 3:
        specs += [_bar(f"platform edge {k + 1}", PLATFORM, "", Poses.platform, p, pts[(k + 1) % len(pts)], w)
                  for k, p in enumerate(pts)]
    if robot.platform.body is None and len(pts) == 1 and not pts[0].any():
        return specs            # a massless point at a cut joint: marked already
    hub = _along_z("platform hub", "", Poses.platform, half, disk(1.5 * rad, style.disk_nodes))
    return specs + [replace(hub, kind=PLATFORM)]


def specs(robot: Robot, size: float, style: Style):
    """All part specs, with unique names (a repeated name gets its frame)."""
    stations = max(2, int(style.beam_stations))
    specs = [s for s in _frame_specs(robot, size, style, stations) + _closure_specs(robot, size, style)
             if s is not None]
    names = [s.name for s in specs]
    return [replace(s, name=f"{s.name} ({s.frame})") if names.count(s.name) > 1 else s
            for s in specs]


