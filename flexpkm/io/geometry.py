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
  with the pose of :func:`flexpkm.algorithms.platform.platform_pose`.

Poses come from :func:`flexpkm.algorithms.tree.tree_kinematics` (exact, any elastic
coordinates). :func:`robot_geometry` evaluates a state against a reference
state; :func:`mode_geometry` gives the *linearised* displacement field of a
mode shape (central difference of the exact geometry, so that the loop
closures hold exactly to first order), to be multiplied by a scale from
:func:`auto_scale`. All lengths are in m, angles in rad, vectors in F_0.
"""
from __future__ import annotations

import numpy as np

from flexpkm.errors import InvalidArgumentError
from flexpkm.algorithms.tree import as_batch
from flexpkm.io.mesh import (KINDS, Mesh, Part, RobotGeometry, hexahedra,  # noqa: F401 (re-exported)
                             rotation_vector)
from flexpkm.io.parts import Poses, Style, specs as _specs
from flexpkm.model.description import Robot


def as_states(robot: Robot, q) -> np.ndarray:
    """States ``q_tot`` (n_tot,)/(B, n_tot) as (B, n_tot). Raises
    InvalidArgumentError for another length."""
    return as_batch(q, robot.layout.n_tot)


def _evaluate(spec, poses: Poses):
    """Nodes (B, n, 3), node triads (B, n, 3, 3) and cells (m, 8) of a spec."""
    centres, triads = spec.stations(poses)
    ny, nz = spec.section.shape[:2]
    local = np.zeros((ny, nz, 3))
    local[..., 1:] = spec.section
    nodes = centres[:, :, None, None] + np.einsum("bsij,ykj->bsyki", triads, local)
    B, ns = centres.shape[:2]
    tri = np.broadcast_to(triads[:, :, None, None], (B, ns, ny, nz, 3, 3))
    return (nodes.reshape(B, -1, 3), tri.reshape(B, -1, 3, 3), hexahedra(ns, ny, nz))



def robot_size(robot: Robot, q_tot) -> float:
    """Characteristic size (m): the largest side of the bounding box of the
    frame origins and platform point at ``q_tot`` (first state of a batch),
    at least the longest body; 1 m for a robot reduced to a point."""
    poses = Poses(robot, as_states(robot, q_tot)[:1])
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
    poses = Poses(robot, states)
    out = []
    for s in specs:
        nodes, triads, cells = _evaluate(s, poses)
        ref, disp, rot = frames(nodes, triads)
        out.append(Part(s.name, s.kind, s.frame, ref, cells, disp, rot))
    return tuple(out)


def robot_geometry(robot: Robot, q_tot, reference=None, style: Style | None = None) -> RobotGeometry:
    """Geometry of the robot at the state ``q_tot`` (exact poses).

    q_tot : (n_tot,) state (joint, elastic, platform
            coordinates; :class:`flexpkm.model.description.CoordinateLayout`).
    reference : state of the undeformed geometry (same lengths); default
            ``q_tot`` with its elastic coordinates set to 0.
    Displacements and rotation vectors are those of the nodes from the
    reference state to ``q_tot``. Raises InvalidArgumentError for a wrong length.
    """
    q = as_states(robot, q_tot)[:1]
    q0 = _reference_state(robot, q) if reference is None else as_states(robot, reference)[:1]
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
    to draw it. Raises InvalidArgumentError when the lengths disagree.
    """
    q0 = as_states(robot, q_nominal)[:1]
    s = as_states(robot, shape)[:1]
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
    at its nominal state ``q_tot``. Raises InvalidArgumentError for a number outside
    1..n_modes."""
    n = modes.frequencies_hz.shape[-1]
    out = []
    for k in numbers:
        if not 1 <= k <= n:
            raise InvalidArgumentError(f"mode {k} is not available (1..{n})")
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
    Raises InvalidArgumentError when nothing moves.
    """
    umax = geometry.max_displacement
    if not umax > 0:
        raise InvalidArgumentError("the displacement field is zero: no scale can be chosen")
    scale = fraction * float(np.ptp(geometry.bounds(), axis=0).max()) / umax
    rmax = geometry.max_rotation
    if max_rotation is not None and rmax * scale > max_rotation:
        scale = max_rotation / rmax
    return scale
