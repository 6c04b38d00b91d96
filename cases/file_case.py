"""A robot described by a file (:mod:`flexpkm.model.files`) as a
:class:`flexpkm.cases.Case`, so that every front end works on it as on the
shipped robots: ``flexpkm modal my_robot.toml --q-a ...``.

Its pose is the platform pose (``--pose``, the components ``Platform.dofs``
of ``[P; rotation vector]``, m and rad), or without a platform the actuated
coordinates; ``--q-a`` gives the actuated coordinates instead. Either way the
configuration is assembled numerically (:func:`flexpkm.assemble`, Chapter
7) from the file's ``[reference]`` configuration; with neither option, the
reference configuration itself is assembled (its actuated coordinates held,
or its platform coordinates with ``reference_fixed = "pose"``).

Every shipped robot takes this route too (:func:`flexpkm.cases.get`), its
module then adding what a file cannot hold; :func:`shipped_robot` reads a
shipped robot's file.
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np

from flexpkm.algorithms.assembly import assemble, assemble_reference
from flexpkm.cases.case import Case, Option
from flexpkm.errors import InvalidArgumentError
from flexpkm.model import files

#: unit of each platform coordinate (index into [v; omega])
_UNITS = ("m", "m", "m", "rad", "rad", "rad")


def from_file(path, variant=None, name=None) -> Case:
    """The :class:`Case` of a description file, named ``name`` (default the
    file's stem); ``extra["file"]`` and ``extra["source"]`` are its path.
    Raises :class:`flexpkm.errors.InvalidDescriptionError` naming the file,
    the key and what is wrong."""
    path = Path(path)
    robot = files.load(path, variant=variant)
    layout = robot.layout
    q_a_names = tuple(layout.names[i] for i in layout.actuated)
    q_a_units = tuple("m" if robot.frames[robot.frame_index[layout.frame_of(c)]].sigma == 1
                      else "rad" for c in layout.actuated)
    options = [Option("variant", "a [variants.NAME] table of the file (default: none)",
                      kind="text", default=variant)]
    if robot.platform is not None and q_a_names:
        options.append(Option("q_a", "actuated coordinates " + " ".join(q_a_names) +
                              " (m or rad) instead of --pose: the forward problem",
                              kind="floats", nargs=len(q_a_names), default=None, flag="--q-a"))
    if robot.platform is not None:
        pose = ("pose", tuple(robot.platform.dof_names),
                tuple(_UNITS[d] for d in robot.platform.dofs))
    else:
        pose = ("q-a", q_a_names, q_a_units)

    def _robot(opts):
        if opts.get("variant") == variant:
            return robot
        return files.load(path, variant=opts.get("variant"))

    def _configure(model, values, opts):
        return configure(model, values, opts.get("q_a"), platform=robot.platform is not None,
                         guess=opts.get("guess"))

    return Case(name=name or path.stem, title=f"{robot.name} (from {path.name})", pose_option=pose[0],
                pose_names=pose[1], pose_units=pose[2], pose_default=None, robot=_robot,
                configure=_configure, options=tuple(options),
                view="normal" if robot.plane_normal is not None else "auto",
                extra={"file": str(path), "source": str(path), "idm": robot.platform is not None})


def shipped_robot(name, variant=None, gravity=None):
    """The :class:`flexpkm.Robot` of the shipped case ``name`` read from its
    description file (:func:`flexpkm.cases.file_of`) with ``variant``;
    ``gravity`` (3,) m/s^2 replaces the file's when given. Raises what
    :func:`flexpkm.model.files.load` raises."""
    from flexpkm.cases.shipped import file_of
    robot = files.load(file_of(name), variant=variant)
    return robot if gravity is None else replace(robot, gravity=tuple(float(g) for g in gravity))


def configure(model, pose, q_a=None, platform=True, guess=None):
    """``q_tot`` of a file's robot: assembled at the platform pose ``pose``
    (or at the actuated coordinates when the robot has no platform), at
    ``q_a`` instead, or at the reference configuration when both are None.
    pose : (k,) or (B, k); guess : (n_tot,) the start (a neighbouring pose's
    configuration: continuation, its modes kept) or None (the reference).
    Raises :class:`InvalidArgumentError` when both are given, and what
    :func:`flexpkm.assemble` raises."""
    if pose is not None and q_a is not None:
        raise InvalidArgumentError("give the pose or the actuated coordinates (--q-a), not both")
    if pose is None and q_a is None:
        return assemble_reference(model)
    if q_a is not None:
        return assemble(model, q_a=np.asarray(q_a, float), guess=guess)
    if platform:
        return assemble(model, pose=np.asarray(pose, float), guess=guess)
    return assemble(model, q_a=np.asarray(pose, float), guess=guess)
