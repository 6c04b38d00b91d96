"""Immutable description of a flexible parallel robot (Briot & Khalil Ch. 4
and Section 10.3): the *virtual tree structure* as modified Denavit-Hartenberg
(MDH) frames with antecedents a(j), the bodies carried by the frames, a rigid
(possibly massless) platform and the closures that rebuild the actual robot.

Data only: everything computed lives in the arrays returned by
:mod:`flexpkm.algorithms.tree`, :mod:`flexpkm.algorithms.closure`, :mod:`flexpkm.algorithms.modal`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Optional

import numpy as np

from flexpkm.errors import InvalidDescriptionError, NameCollisionError

REVOLUTE, PRISMATIC, FIXED = 0, 1, 2

#: twist components [v_x, v_y, v_z, w_x, w_y, w_z] constrained by each cut
#: joint, in the cut frame, when the two cut frames are aligned (joint axis =
#: z of the cut frame; universal joint: rotations about z and x free). They
#: name the rows; the rows at any configuration are derived from the joint's
#: geometry in :mod:`flexpkm.algorithms.cut_joints` (universal: the row
#: "w_y" is the perpendicularity z_k . x_g = 0 of the cross axes).
CUT_JOINT_ROWS = {
    "weld": (0, 1, 2, 3, 4, 5),
    "revolute": (0, 1, 2, 3, 4),
    "prismatic": (0, 1, 3, 4, 5),
    "universal": (0, 1, 2, 4),
    "spherical": (0, 1, 2),
}
#: in-plane twist components of a planar model (cut frame z normal to the plane)
PLANAR_ROWS = (0, 1, 5)


@dataclass(frozen=True, kw_only=True)
class MDHParameters:
    """The six modified Denavit-Hartenberg parameters of Ch. 4 (rad, m):
    ``Rot(z, gamma) Trans(z, b) Rot(x, alpha) Trans(x, d) Rot(z, theta)
    Trans(z, r)`` (gamma, b for tree structures)."""

    gamma: float = 0.0
    b: float = 0.0
    alpha: float = 0.0
    d: float = 0.0
    theta: float = 0.0
    r: float = 0.0


@dataclass(frozen=True)
class Frame(MDHParameters):
    """One MDH frame F_j of the virtual tree and the joint that moves it.

    Parameters (Khalil-Kleinfinger MDH, Ch. 4, keywords): ``gamma, b, alpha,
    d`` place the joint on the antecedent a(j), ``theta, r`` are the rotation
    about and offset along the joint axis z_j. The joint coordinate ``q``
    adds to ``theta`` (revolute, sigma = 0) or to ``r`` (prismatic,
    sigma = 1); a fixed joint (sigma = 2) has no coordinate. ``mu = 1`` marks
    an actuated joint.

    name : str             e.g. ``"12"``
    antecedent : str/None  name of a(j); None for the base (frame 0)
    leg : str              the leg the frame belongs to (for messages and
                           the limb-wise closure)
    """

    name: str
    antecedent: Optional[str]
    sigma: int
    mu: int = 0
    leg: str = ""

    @property
    def has_coordinate(self) -> bool:
        return self.sigma in (REVOLUTE, PRISMATIC)


@dataclass(frozen=True)
class Platform:
    """The rigid moving platform, a free body detached from the tree.

    body : a rigid body model (inertial parameters at P, in the platform
           frame), or None for a massless platform / point.
    dofs : indices into the base-frame twist ``[v_x, v_y, v_z, w_x, w_y, w_z]``
           of P that are platform coordinates (all 6 for a spatial robot; the
           in-plane ones for a planar one).
    dof_names : one name per dof (e.g. ``("x", "y")``).
    commanded : the dofs (a subset of ``dofs``) that the user commands, the
           pose of the inverse problem (``flexpkm.assemble(model, pose=...)``,
           ``--pose``); the other dofs are dependent coordinates that the
           assembly solves. None: every dof is commanded. A flexible model
           gets its platform completed by :func:`flexpkm.model.completion.complete_platform`
           (the description's dofs become the commanded ones).
    """

    body: object = None
    dofs: tuple = (0, 1, 2, 3, 4, 5)
    dof_names: tuple = ("x", "y", "z", "rx", "ry", "rz")
    commanded: Optional[tuple] = None

    @property
    def commanded_dofs(self) -> tuple:
        """The commanded dofs (``commanded``, or every dof), in ``dofs`` order."""
        if self.commanded is None:
            return tuple(self.dofs)
        return tuple(d for d in self.dofs if d in set(self.commanded))


@dataclass(frozen=True)
class Closure:
    """A cut joint that closes a loop of the virtual tree.

    frame : the cut frame (a tree frame). The constraint rows are named by the
            relative twist components of :data:`CUT_JOINT_ROWS` in this frame,
            at its origin (their values at aligned cut frames; at any
            configuration see :mod:`flexpkm.algorithms.cut_joints`).
    other : another tree frame, or None for the platform.
    joint : ``"weld" | "revolute" | "prismatic" | "universal" | "spherical"``.
    leg   : the leg this closure belongs to (named in singularity messages).
    platform_point : position of the attachment in the platform frame (m);
            used only with ``other=None``.
    platform_rotation : rotation vector (rad) of the platform-side cut frame
            in the platform frame F_p: at assembly the cut frame's axes are
            ``R_0p exp(hat(platform_rotation))`` (only with ``other=None``;
            matters for the rotation rows, e.g. of a weld).
    """

    frame: str
    other: Optional[str]
    joint: str
    leg: str = ""
    name: str = ""
    platform_point: tuple = (0.0, 0.0, 0.0)
    platform_rotation: tuple = (0.0, 0.0, 0.0)

    @property
    def label(self) -> str:
        return self.name or f"{self.frame}-{self.other or 'platform'}"


@dataclass(frozen=True)
class Robot:
    """A flexible parallel robot: virtual tree + platform + closures.

    frames   : MDH frames, antecedents before descendants.
    bodies   : frame name -> sequence of bodies carried by that frame (at most
               one flexible body per frame; rigid bodies and point masses may
               be added freely).
    platform : :class:`Platform` or None.
    closures : :class:`Closure` list.
    plane_normal : for a planar model, the base-frame unit normal of the plane
               of motion (every cut frame's z axis must be along it); None for a
               spatial model.
    q_dep    : names of the dependent coordinates chosen by the book (tried
               first; a rank-revealing choice is used when singular).
    gravity  : base-frame gravity vector, m/s^2.
    rotor_inertia, viscous_friction, coulomb_friction, joint_stiffness :
               joint name -> value (kg m^2 or kg; N s/m or N m s/rad; N or N m;
               N/m or N m/rad for a spring between the joint's two bodies).
    reference : coordinate name (``q_tot`` names, e.g. ``"q12"``, ``"x_P"``)
               -> value (rad or m): a configuration near the assembly mode and
               working modes wanted, the start of :func:`flexpkm.assemble`
               (absent coordinates are 0).
    reference_fixed : what :func:`flexpkm.algorithms.assembly.assemble_reference`
               holds at the reference's values: ``"q_a"`` (default: the actuated
               coordinates, the forward problem; the other values are a rough
               guess) or ``"pose"`` (the commanded platform coordinates, the
               inverse problem; the joint values are a rough guess).
    working_modes : leg name (or ``"assembly"``) -> +1 / -1: the working
               modes (assembly mode) :func:`flexpkm.assemble` keeps, the signs
               of :mod:`flexpkm.algorithms.modes` (Section 7.5); absent legs
               keep the reference's.
    """

    name: str
    frames: tuple
    bodies: Mapping = field(default_factory=dict)
    platform: Optional[Platform] = None
    closures: tuple = ()
    plane_normal: Optional[tuple] = None
    q_dep: Optional[tuple] = None
    gravity: tuple = (0.0, 0.0, 0.0)
    rotor_inertia: Mapping = field(default_factory=dict)
    viscous_friction: Mapping = field(default_factory=dict)
    coulomb_friction: Mapping = field(default_factory=dict)
    joint_stiffness: Mapping = field(default_factory=dict)
    reference: Mapping = field(default_factory=dict)
    working_modes: Mapping = field(default_factory=dict)
    reference_fixed: str = "q_a"

    def __post_init__(self):
        validate(self)

    @property
    def frame_index(self) -> dict:
        """Frame name -> position in ``frames`` (computed on each access; a
        :class:`flexpkm.model.Model` holds it once)."""
        return {f.name: i for i, f in enumerate(self.frames)}

    def flexible_body(self, frame_name):
        """The flexible body carried by a frame, or None."""
        for body in self.bodies.get(frame_name, ()):
            if body.n_e > 0:
                return body
        return None

    @property
    def layout(self) -> "CoordinateLayout":
        """The :class:`flexpkm.model.layout.CoordinateLayout` (computed on each
        access; a :class:`flexpkm.model.Model` holds it once)."""
        from flexpkm.model.layout import CoordinateLayout
        return CoordinateLayout.of(self)


def validate(robot: Robot) -> None:
    """Raise :class:`InvalidDescriptionError` naming the first inconsistency
    (values and types first: :func:`flexpkm.model.checks.check_values`)."""
    from flexpkm.model.checks import check_values
    check_values(robot)
    seen = set()
    for f in robot.frames:
        if f.name in seen:
            raise NameCollisionError(f"frame {f.name!r} is defined twice", name=f.name,
                                     things=(("frame", f.name), ("frame", f.name)))
        if f.antecedent is not None and f.antecedent not in seen:
            raise InvalidDescriptionError(
                f"frame {f.name!r}: antecedent {f.antecedent!r} is not defined before it")
        if f.sigma not in (REVOLUTE, PRISMATIC, FIXED):
            raise InvalidDescriptionError(f"frame {f.name!r}: sigma must be 0, 1 or 2, got {f.sigma}")
        if f.mu and not f.has_coordinate:
            raise InvalidDescriptionError(f"frame {f.name!r}: a fixed joint cannot be actuated")
        seen.add(f.name)
    for name, bodies in robot.bodies.items():
        if name not in seen:
            raise InvalidDescriptionError(f"bodies given for unknown frame {name!r}")
        if sum(b.n_e > 0 for b in bodies) > 1:
            raise InvalidDescriptionError(f"frame {name!r} carries more than one flexible body")
    labels = {}   # a name given to a closure is unique (default labels may repeat)
    for i, c in enumerate(robot.closures):
        first = labels.setdefault(c.label, i)
        if first != i and (c.name or robot.closures[first].name):
            raise NameCollisionError(f"closures {first} and {i} are both named {c.label!r}",
                                     name=c.label, things=(("closure", first), ("closure", i)))
        if c.joint not in CUT_JOINT_ROWS:
            raise InvalidDescriptionError(
                f"closure {c.label}: unknown cut joint {c.joint!r} "
                f"(use one of {', '.join(CUT_JOINT_ROWS)})")
        for fr in (c.frame, c.other):
            if fr is not None and fr not in seen:
                raise InvalidDescriptionError(f"closure {c.label}: unknown frame {fr!r}")
        if c.other is None and robot.platform is None:
            raise InvalidDescriptionError(f"closure {c.label} reaches a platform but the robot has none")
    if robot.platform is not None and not any(c.other is None for c in robot.closures):
        raise InvalidDescriptionError(f"robot {robot.name!r} has a platform but no closure "
                                      "reaches it (give closures with other = None / "
                                      "platform = true)")
    if robot.plane_normal is not None:
        n = np.asarray(robot.plane_normal, float)
        if n.shape != (3,) or abs(np.linalg.norm(n) - 1) > 1e-9:
            raise InvalidDescriptionError("plane_normal must be a unit 3-vector")
    if robot.reference_fixed not in ("q_a", "pose") or (
            robot.reference_fixed == "pose" and robot.platform is None):
        raise InvalidDescriptionError(f"reference_fixed must be 'q_a' or, with a platform, "
                                      f"'pose'; got {robot.reference_fixed!r}")
    layout = robot.layout   # unique coordinate names (NameCollisionError)
    if robot.q_dep is not None or robot.reference:
        for nm in robot.q_dep or ():
            layout.index(nm)
        for nm, value in robot.reference.items():
            layout.index(nm)
            if not np.isfinite(value):
                raise InvalidDescriptionError(f"reference {nm} = {value!r} is not a finite number")


def constrained_rows(robot: Robot, closure: Closure) -> tuple:
    """Twist components (in the cut frame) constrained by a closure: those of
    its joint type, restricted to the plane's components for a planar model."""
    rows = CUT_JOINT_ROWS[closure.joint]
    if robot.plane_normal is not None:
        rows = tuple(r for r in rows if r in PLANAR_ROWS)
    return rows
