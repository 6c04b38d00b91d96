"""Modular limbs (Müller, "complex hybrid limbs", Section 7): a robot's
description assembled from copies of one *representative limb* (RL).

The RL is written once with local frame names: its MDH frames (the root
frames, ``antecedent=None``, sit on the RL's *construction frame* at the
base), the bodies they carry, its internal cut joints (e.g. the cut of a
parallelogram loop) and its cut joints to the platform (``other=None``),
its joint springs, rotor inertia and friction. Each leg is a copy of the RL

* renamed: local frame ``"3"`` of leg ``"2"`` becomes ``"23"`` (default
  ``leg + local``; any ``rename(leg, local)`` may be given), so that the
  coordinates are ``q23``, ``qe23_1``... as in the book;
* placed by a :class:`Mount`, the base *mount frame* of Müller's Section 7
  (the construction frame of the RL is identified with the mount frame of
  leg k): the homogeneous transform ``^0T_mount`` from the base frame F_0,
  itself written as MDH parameters ``(gamma, b, alpha, d, theta, r)``.

The mount is composed *into* the root frames' MDH parameters whenever that is
exact, so that the assembled tree has exactly the book's frames (e.g. Table
11.2 of Briot & Khalil, ``gamma_i``, ``d``, ``theta = q_i1 - gamma_i``):

* a root frame without attachment (``gamma = b = alpha = d = 0``) takes the
  mount's ``gamma, b, alpha, d`` and adds its ``theta, r`` to the mount's;
* a mount that is a rotation about and a shift along z_0 only
  (``alpha = d = theta = r = 0``) adds to the root frame's ``gamma, b``;
* otherwise a fixed frame (sigma = 2) named ``rename(leg, "0")`` carrying the
  mount is inserted as the antecedent of the root frames.

Cut joints to the platform are placed on the platform side by the limb's
platform mount: ``platform_point`` is mapped by ``platform_rotation`` (3x3,
platform frame) and ``platform_offset`` (3,), m, and the closure's own
``platform_rotation`` (the cut frame's axes in the platform mount frame) is
turned by the mount's.

Everything here is pure data manipulation: the returned
:class:`flexpkm.model.description.Robot` is validated as usual
(:class:`flexpkm.errors.InvalidDescriptionError` names the first problem).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable, Mapping, Optional, Sequence

import numpy as np

from flexpkm.model.description import FIXED, Frame, MDHParameters, Robot
from flexpkm.errors import InvalidDescriptionError
from flexpkm.spatial import rotation_matrix, rotation_vector

_ATTACHMENT = ("gamma", "b", "alpha", "d")


def default_rename(leg: str, local: str) -> str:
    """``"2", "3" -> "23"``: the book's numbering ``ij`` of frame j of leg i."""
    return f"{leg}{local}"


@dataclass(frozen=True)
class Mount(MDHParameters):
    """Base mount frame of one limb instance: ``^0T_mount = Rot(z, gamma)
    Trans(z, b) Rot(x, alpha) Trans(x, d) Rot(z, theta) Trans(z, r)`` (rad, m),
    the MDH transform of Ch. 4 of Briot & Khalil. The identity by default.

    platform_rotation : (3, 3) or None, rotation of the platform mount frame
        w.r.t. the platform frame F_p (applied to ``platform_point`` of the
        limb's platform cut joints).
    platform_offset : (3,), origin of the platform mount frame in F_p, m.
    """

    platform_rotation: Optional[tuple] = None
    platform_offset: tuple = (0.0, 0.0, 0.0)

    @classmethod
    def about_z(cls, angle: float, **kw) -> "Mount":
        """Rotation of the base by ``angle`` (rad) about z_0 (e.g. 2 pi k / 3
        for the k-th leg of a symmetric planar robot)."""
        return cls(gamma=float(angle), **kw)

    def compose(self, frame: Frame) -> Optional[Frame]:
        """The root ``frame`` seen from F_0 once the limb is mounted, or None
        when the composition is not an MDH frame (then a fixed mount frame
        is needed)."""
        if all(getattr(frame, k) == 0.0 for k in _ATTACHMENT):
            return replace(frame, gamma=self.gamma, b=self.b, alpha=self.alpha, d=self.d,
                           theta=frame.theta + self.theta, r=frame.r + self.r)
        if self.alpha == self.d == self.theta == self.r == 0.0:
            return replace(frame, gamma=frame.gamma + self.gamma, b=frame.b + self.b)
        return None

    def place_point(self, point) -> tuple:
        """``platform_point`` of the RL (in the platform mount frame) -> F_p, m."""
        p = np.asarray(point, float)
        if self.platform_rotation is not None:
            p = np.asarray(self.platform_rotation, float) @ p
        return tuple(float(x) for x in p + np.asarray(self.platform_offset, float))

    def place_rotation(self, rotvec) -> tuple:
        """``platform_rotation`` (rotation vector, rad) of an RL's cut frame in
        the platform mount frame -> in F_p."""
        if self.platform_rotation is None:
            return tuple(float(x) for x in rotvec)
        R = np.asarray(self.platform_rotation, float) @ rotation_matrix(rotvec)
        return tuple(float(x) for x in rotation_vector(R))


@dataclass(frozen=True)
class Limb:
    """A representative limb (RL) with local names.

    frames   : :class:`Frame` tuple, antecedents first; root frames
               (``antecedent=None``) sit on the construction frame. Their
               ``leg`` field is overwritten by the instance's leg label.
    bodies   : local frame name -> sequence of bodies (the *same* body
               objects are shared by every instance; they are immutable).
    closures : :class:`Closure` tuple; ``frame``/``other`` are local names,
               ``other=None`` reaches the platform. ``name`` (if any) is
               suffixed by the leg label.
    joint_stiffness, rotor_inertia, viscous_friction, coulomb_friction :
               local frame name -> value (see :class:`Robot`).
    q_dep    : local coordinate names (``"q3"``, ``"qe4D_2"``...) preferred as
               dependent coordinates, or empty.
    """

    frames: tuple
    bodies: Mapping = field(default_factory=dict)
    closures: tuple = ()
    joint_stiffness: Mapping = field(default_factory=dict)
    rotor_inertia: Mapping = field(default_factory=dict)
    viscous_friction: Mapping = field(default_factory=dict)
    coulomb_friction: Mapping = field(default_factory=dict)
    q_dep: tuple = ()

    def place(self, leg: str, mount: Mount = Mount(), actuated: Optional[Sequence[str]] = None,
              rename: Callable[[str, str], str] = default_rename) -> "PlacedLimb":
        """One instance of the RL: leg label ``leg``, base mount ``mount``.

        actuated : local names of the actuated joints of this instance
                   (``mu = 1``); None keeps the RL's ``mu``. Lets the legs of
                   one robot have different actuation modes.
        Raises :class:`InvalidDescriptionError` for an unknown local name.
        """
        local = [f.name for f in self.frames]
        name = {n: rename(leg, n) for n in local}

        def glob(n, what):
            if n not in name:
                raise InvalidDescriptionError(
                    f"limb {leg}: {what} refers to unknown local frame {n!r} "
                    f"(frames: {', '.join(local)})")
            return name[n]

        if actuated is not None:
            for n in actuated:
                glob(n, "actuated")
        frames, mount_frame = [], None
        for f in self.frames:
            mu = f.mu if actuated is None else int(f.name in actuated)
            g = replace(f, name=name[f.name], leg=leg, mu=mu,
                        antecedent=None if f.antecedent is None else glob(f.antecedent, f"frame {f.name}"))
            if f.antecedent is None:
                placed = mount.compose(g)
                if placed is None:
                    if mount_frame is None:
                        mount_frame = Frame(rename(leg, "0"), None, sigma=FIXED, gamma=mount.gamma,
                                            b=mount.b, alpha=mount.alpha, d=mount.d,
                                            theta=mount.theta, r=mount.r, leg=leg)
                        frames.insert(0, mount_frame)
                    placed = replace(g, antecedent=mount_frame.name)
                g = placed
            frames.append(g)
        closures = tuple(
            replace(c, frame=glob(c.frame, "a closure"),
                    other=None if c.other is None else glob(c.other, "a closure"),
                    leg=leg, name=f"{c.name}{leg}" if c.name else "",
                    platform_point=mount.place_point(c.platform_point) if c.other is None
                    else c.platform_point,
                    platform_rotation=mount.place_rotation(c.platform_rotation) if c.other is None
                    else c.platform_rotation)
            for c in self.closures)

        def remap(table, what):
            return {glob(k, what): v for k, v in table.items()}

        q_dep = tuple(_rename_coordinate(c, leg, rename, glob) for c in self.q_dep)
        return PlacedLimb(leg, tuple(frames), remap(self.bodies, "bodies"), closures,
                          remap(self.joint_stiffness, "joint_stiffness"),
                          remap(self.rotor_inertia, "rotor_inertia"),
                          remap(self.viscous_friction, "viscous_friction"),
                          remap(self.coulomb_friction, "coulomb_friction"), q_dep)


def _rename_coordinate(coord, leg, rename, glob):
    """``"q3" -> "q23"``, ``"qe4D_2" -> "qe24D_2"`` (local to global)."""
    if coord.startswith("qe"):
        frame, _, k = coord[2:].rpartition("_")
        return f"qe{glob(frame, 'q_dep')}_{k}"
    if coord.startswith("q"):
        return f"q{glob(coord[1:], 'q_dep')}"
    raise InvalidDescriptionError(f"limb {leg}: {coord!r} is not a coordinate name")


@dataclass(frozen=True)
class PlacedLimb:
    """One instance of a :class:`Limb` with global names (see
    :meth:`Limb.place`); the fields mirror those of :class:`Robot`."""

    leg: str
    frames: tuple
    bodies: dict
    closures: tuple
    joint_stiffness: dict
    rotor_inertia: dict
    viscous_friction: dict
    coulomb_friction: dict
    q_dep: tuple = ()


def combine_limbs(name: str, limbs: Sequence[PlacedLimb], platform=None, closures=(),
             **robot_kwargs) -> Robot:
    """The :class:`Robot` made of the placed limbs (frames in limb order),
    the ``platform`` and extra ``closures`` (e.g. between legs).

    robot_kwargs : other :class:`Robot` fields (``plane_normal``,
        ``gravity``...); ``joint_stiffness`` etc. given here are added to the
        limbs' ones. ``q_dep`` defaults to the limbs' q_dep (None when empty).
    Raises :class:`InvalidDescriptionError` (e.g. two limbs with the same
    frame name).
    """
    frames, bodies, all_closures = [], {}, []
    tables = {k: {} for k in ("joint_stiffness", "rotor_inertia",
                              "viscous_friction", "coulomb_friction")}
    q_dep = []
    for limb in limbs:
        frames += limb.frames
        bodies.update(limb.bodies)
        all_closures += limb.closures
        for k, table in tables.items():
            table.update(getattr(limb, k))
        q_dep += limb.q_dep
    for k, table in tables.items():
        table.update(robot_kwargs.pop(k, {}))
    robot_kwargs.setdefault("q_dep", tuple(q_dep) or None)
    return Robot(name=name, frames=tuple(frames), bodies=bodies, platform=platform,
                 closures=tuple(all_closures) + tuple(closures), **tables, **robot_kwargs)
