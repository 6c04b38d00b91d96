"""Where each coordinate sits in ``q_tot = [q_t; x_p]`` (Briot & Khalil
Section 10.3: joint coordinates, then elastic coordinates, then the platform's)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from flexpkm.errors import InvalidArgumentError, InvalidDescriptionError, NameCollisionError


@dataclass(frozen=True)
class CoordinateLayout:
    """Where each coordinate sits in ``q_tot = [q_t; x_p]``.

    ``q_t`` = joint coordinates (frames with sigma 0/1, in frame order) then
    the elastic coordinates of the flexible bodies (frame order); ``x_p`` =
    the platform coordinates; ``commanded`` the columns of the commanded
    ones (``Platform.commanded_dofs``: the pose of the inverse problem), the
    other platform columns (:attr:`platform_dependent`) are solved by the
    assembly.
    """

    names: tuple
    joint_index: Mapping      # frame name -> column of its joint coordinate
    elastic_slice: Mapping    # frame name -> slice of its elastic coordinates
    n_t: int
    n_p: int
    actuated: tuple           # columns of the actuated joints (mu = 1)
    commanded: tuple = ()     # columns of the commanded platform coordinates

    @property
    def n_tot(self) -> int:
        return self.n_t + self.n_p

    @staticmethod
    def of(robot) -> "CoordinateLayout":
        names, joint_index, elastic_slice, actuated = [], {}, {}, []
        for f in robot.frames:
            if f.has_coordinate:
                joint_index[f.name] = len(names)
                if f.mu:
                    actuated.append(len(names))
                names.append(f"q{f.name}")
        for f in robot.frames:
            body = robot.flexible_body(f.name)
            if body is not None:
                start = len(names)
                names += [f"qe{f.name}_{k + 1}" for k in range(body.n_e)]
                elastic_slice[f.name] = slice(start, len(names))
        n_t = len(names)
        n_p, commanded = 0, ()
        if robot.platform is not None:
            dofs = list(robot.platform.dofs)
            names += list(robot.platform.dof_names)
            n_p = len(dofs)
            commanded = tuple(n_t + dofs.index(d) for d in robot.platform.commanded_dofs)
        unique_names(names, _owners(robot, joint_index, elastic_slice))
        return CoordinateLayout(tuple(names), joint_index, elastic_slice,
                                n_t, n_p, tuple(actuated), commanded)

    @property
    def platform_dependent(self) -> tuple:
        """Columns of the platform coordinates that are not commanded (the
        assembly solves them, like the passive joints)."""
        return tuple(c for c in range(self.n_t, self.n_tot) if c not in self.commanded)

    def frame_of(self, column: int) -> str:
        """Name of the frame that owns the joint coordinate (or the elastic
        coordinates) at ``column`` of ``q_tot``: e.g. the frame of an actuated
        column, whose motor's ``rotor_inertia`` is keyed by it. Raises
        :class:`InvalidArgumentError` for a platform column or a column out of
        ``range(n_t)``."""
        for frame, c in self.joint_index.items():
            if c == column:
                return frame
        for frame, sl in self.elastic_slice.items():
            if sl.start <= column < sl.stop:
                return frame
        raise InvalidArgumentError(f"column {column!r} of q_tot is not a joint or elastic "
                                   f"coordinate (q_t has {self.n_t} columns)")

    def index(self, name: str) -> int:
        try:
            return self.names.index(name)
        except ValueError:
            raise InvalidDescriptionError(
                f"unknown coordinate {name!r}; known: {', '.join(self.names)}") from None


def _owners(robot, joint_index, elastic_slice) -> list:
    """``(kind, key, text)`` of each coordinate of ``names``, in order."""
    out = [("frame", f, f"the joint coordinate of frame {f!r}") for f in joint_index]
    for f, sl in elastic_slice.items():
        out += [("elastic", f, f"elastic coordinate {k + 1} of frame {f!r}")
                for k in range(sl.stop - sl.start)]
    if robot.platform is not None:
        out += [("platform", i, f"platform coordinate dof_names[{i}]")
                for i in range(len(robot.platform.dof_names))]
    return out


def unique_names(names, owners) -> None:
    """Raise :class:`NameCollisionError` naming both owners of the first
    name given twice (``owners[i] = (kind, key, text)`` of ``names[i]``)."""
    seen = {}
    for name, owner in zip(names, owners):
        if name in seen:
            first = seen[name]
            raise NameCollisionError(f"coordinate name {name!r} is given twice: {first[2]} and "
                                     f"{owner[2]}", name=name, things=(first[:2], owner[:2]))
        seen[name] = owner
