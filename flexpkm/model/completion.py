"""The platform of a flexible model moves in every direction of its space
(issue 16): Step 0 completes the description's platform coordinates.

In a rigid model the loops may keep the platform from moving in some
directions (the Delta's parallelograms keep it from turning), and the
description may leave those directions out. With flexible bodies the same
loops deform: leaving a direction out adds a constraint that the robot does
not have (the Delta's f1 was 3-5 % high). So in a model with elastic
coordinates the platform gets every direction of its space (six; in a planar
model the two in-plane translations and the rotation about the normal) that
some closure constrains; the description's dofs are the **commanded** ones
(the pose of the inverse problem), the added ones are dependent coordinates
that the assembly solves, like the passive joints.

Which directions: a direction is added when it raises the rank of the
platform columns of ``J_tot`` (10.107), taken structurally: at an assembled
configuration the cut frames of a closure are aligned, so its rows act on
the platform twist ``[v_P; omega_p]`` (base frame, at P) as the translation
rows ``a . (v_P + omega_p x r)`` along the axes ``a`` of the platform-side
cut frame at its point ``r = R_0p platform_point``, and the rotation rows
``b . omega_p`` about its axes (``R_0g = R_0p exp(hat(platform_rotation))``,
``R_0p`` at the reference). A direction that no closure constrains (the
rotation of a massless platform point joined by revolutes: DualEMPS, the
five-bars) would be an undetermined, massless coordinate and is not added.
Rigid models keep their description as is (their loops determine the
missing directions: Müller's rigid Delta keeps its 15 rows).
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from flexpkm.errors import NameCollisionError
from flexpkm.model.description import Platform, Robot, constrained_rows
from flexpkm.spatial import rotation_matrix

#: default name of each platform direction (components of [v_P; omega_p])
DEFAULT_NAMES = ("x", "y", "z", "rx", "ry", "rz")
#: relative singular value below which a platform direction adds no rank
RANK_TOL = 1e-9
#: the rotation row of each constrained twist component at aligned cut frames:
#: the axis of the cut frame it acts about (universal ``w_y``: ``z_k x x_g = y``)
_ROTATION_AXIS = {3: 0, 4: 1, 5: 2}


def is_flexible(robot: Robot) -> bool:
    """True when some body has elastic coordinates."""
    return any(b.n_e > 0 for bodies in robot.bodies.values() for b in bodies)


def space_directions(robot: Robot) -> tuple:
    """Components of ``[v_P; omega_p]`` (0..5) in the robot's space: all six,
    or for a planar model the translations along base axes in the plane and
    the rotation about a base axis along ``plane_normal``."""
    if robot.plane_normal is None:
        return tuple(range(6))
    n = np.abs(np.asarray(robot.plane_normal, float))
    return tuple(k for k in range(3) if n[k] < 1e-12) + tuple(3 + k for k in range(3)
                                                             if n[k] > 1 - 1e-12)


def platform_rows(robot: Robot) -> np.ndarray:
    """The rows of the closures that reach the platform acting on its twist
    ``[v_P; omega_p]`` (n_rows, 6), at aligned cut frames and the reference
    platform orientation (module doc)."""
    pl = robot.platform
    r = np.zeros(3)
    for d, name in zip(pl.dofs, pl.dof_names):
        if d >= 3:
            r[d - 3] = robot.reference.get(name, 0.0)
    R_0p = rotation_matrix(r)
    rows = []
    for c in robot.closures:
        if c.other is not None:
            continue
        R_g = R_0p @ rotation_matrix(np.asarray(c.platform_rotation, float))
        point = R_0p @ np.asarray(c.platform_point, float)
        for comp in constrained_rows(robot, c):
            if comp < 3:
                a = R_g[:, comp]
                rows.append(np.concatenate([a, np.cross(point, a)]))
            else:
                rows.append(np.concatenate([np.zeros(3), R_g[:, _ROTATION_AXIS[comp]]]))
    return np.array(rows).reshape(-1, 6)


def _rank(A) -> int:
    if A.size == 0:
        return 0
    s = np.linalg.svd(A, compute_uv=False)
    return int(np.sum(s > RANK_TOL * max(s[0], 1e-300)))


def added_directions(robot: Robot) -> tuple:
    """The directions :func:`complete_platform` adds to a flexible model's
    platform: those of :func:`space_directions` not in ``Platform.dofs``
    that raise the rank of :func:`platform_rows` (taken in order; () for a
    rigid model or without a platform)."""
    pl = robot.platform
    if pl is None or not is_flexible(robot):
        return ()
    A = platform_rows(robot)
    chosen = list(pl.dofs)
    rank = _rank(A[:, chosen])
    added = []
    for k in space_directions(robot):
        if k in chosen:
            continue
        if _rank(A[:, chosen + [k]]) > rank:
            chosen.append(k)
            added.append(k)
            rank += 1
    return tuple(added)


def complete_platform(robot: Robot) -> Robot:
    """The robot with its platform completed (module doc): the directions of
    :func:`added_directions` appended to ``Platform.dofs`` (default names
    ``x y z rx ry rz``), the description's dofs ``commanded``. The robot
    itself when nothing is added (rigid models, complete platforms).
    Raises :class:`NameCollisionError` (an :class:`InvalidDescriptionError`)
    when a default name is taken by another coordinate."""
    added = added_directions(robot)
    if not added:
        return robot
    pl = robot.platform
    taken = set(robot.layout.names)
    names = []
    for k in added:
        name = DEFAULT_NAMES[k]
        if name in taken:
            raise NameCollisionError(
                f"platform: the flexible model's platform gets the dependent coordinate "
                f"{name!r} (direction {k} of [v_x, v_y, v_z, w_x, w_y, w_z]), but a coordinate "
                f"of the description is already named {name!r}: rename it",
                name=name, things=(("platform", k), ("description", name)))
        names.append(name)
    platform = Platform(body=pl.body, dofs=tuple(pl.dofs) + added,
                        dof_names=tuple(pl.dof_names) + tuple(names),
                        commanded=pl.commanded_dofs)
    return replace(robot, platform=platform)
