"""Step 0 of Section 10.6 (and 11.5) of Briot & Khalil: everything about a
robot that does not depend on its state, computed once by
:func:`build_structure` and held by an immutable :class:`Model`.

The algorithms (:mod:`flexpkm.algorithms`) read a model and never modify
it; the description (:class:`flexpkm.model.description.Robot`) is never
written to.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Optional

import numpy as np

from flexpkm.elements import newton_euler as ne
from flexpkm.errors import InvalidArgumentError
from flexpkm.model.checks import body_rows, check_model_size
from flexpkm.model.columns import EntryColumns, entry_columns
from flexpkm.model.completion import complete_platform
from flexpkm.model.description import PRISMATIC, REVOLUTE, Robot, constrained_rows
from flexpkm.model.layout import CoordinateLayout
from flexpkm.spatial import mdh_transform

_ARRAY = dict(frozen=True, eq=False)


@dataclass(**_ARRAY)
class FrameConstants:
    """One frame's constants (Step 0): what does not depend on q.

    antecedent : index of a(j) or -1 (base)
    sigma : 0 revolute, 1 prismatic, 2 fixed
    R_fix : (3, 3) ``R_att Rot(z, theta)`` of the MDH transform with the joint
            variable at 0; p_att (3,) the attachment point A_j in F_a, m
    r : MDH offset along z_j, m
    col : column of the joint coordinate in q_t, or -1
    shapes : (slice of q_e(a), Phi_d(A_j) (3, N), Phi_r(A_j) (3, N)) when the
            antecedent carries a flexible body (Eq. 10.8), else None
    """

    antecedent: int
    sigma: int
    R_fix: np.ndarray
    p_att: np.ndarray
    r: float
    col: int
    shapes: Optional[tuple] = None


@dataclass(**_ARRAY)
class TreeStructure:
    """Constant index arrays of the virtual tree (nf frames).

    antecedent : (nf,) index of a(j), ``nf`` at the base (a zero row)
    joint_column : (nf,) column of the joint coordinate in q_t, -1 for none
    sigma, sigma_bar : (nf,) 1.0 for prismatic / revolute joints
    ancestors : (nf, nf) ``A[j, k] = 1`` when k is j or an ancestor of j, so
                that a recurrence ``x_j = x_a(j) + l_j`` is ``x = A l``
    """

    antecedent: np.ndarray
    joint_column: np.ndarray
    sigma: np.ndarray
    sigma_bar: np.ndarray
    ancestors: np.ndarray


@dataclass(**_ARRAY)
class BodyEntry:
    """A body of the virtual tree: carried by frame ``frame`` (index) named
    ``frame_name``; ``elastic`` its slice of q_t (None for a rigid body)."""

    frame: int
    frame_name: str
    body: object
    elastic: Optional[slice]


@dataclass(**_ARRAY)
class FrameMass:
    """The undeformed mass matrix ``M_ij0`` (11.11) of all the bodies carried
    by one frame (they share its body Jacobian, so their matrices add; rigid
    ones into the 6 x 6 corner): (6 + N, 6 + N), N = ``elastic`` length."""

    frame: int
    elastic: Optional[slice]
    M: np.ndarray


@dataclass(**_ARRAY)
class StackedBodies:
    """Row layout of the bodies' ``[t_j; qd_ej]`` stacked (Step 0 of the
    one-pass ``M_t``, ``c_t`` of :func:`flexpkm.algorithms.virtual_system.tree_dynamics`).
    The rigid bodies of one frame share its twist: they are one entry (their
    mass matrices, first and second moments summed), so that the rows grow
    with the frames, not with the point masses; the mass is kept as 6 x 6
    blocks (memory linear in the bodies, not quadratic)."""

    n_rows: int
    frames: np.ndarray      # frame of each entry (ne,)
    rows6: np.ndarray       # rows of the twists (6 ne,)
    erows: np.ndarray       # rows of the elastic velocities
    ecols: np.ndarray       # their columns in q_t
    rigid_rows: np.ndarray  # (nr, 6) rows of each rigid entry's twist
    M_rigid: np.ndarray     # (nr, 6, 6) mass matrix of each rigid entry
    ms_r: np.ndarray        # (nr, 3)
    I_rr: np.ndarray        # (nr, 3, 3)
    flexible: tuple         # (row offset, body, elastic slice) of the flexible bodies
    columns: EntryColumns = None    # the q_t columns of each entry's rows, by leg


@dataclass(**_ARRAY)
class ReferenceState:
    """What Step 0 computes at the robot's reference configuration (its
    ``reference`` assembled, :func:`flexpkm.algorithms.reference.reference_state`),
    once per model; every field None when the robot gives no reference, has
    no closure, or its reference does not assemble.

    q_tot : (n_tot,) the assembled reference configuration (m, rad)
    J_tot : (n_rows, n_tot) its constraint Jacobian (10.107), all rows
    solution : its :class:`flexpkm.algorithms.closure.ClosureSolution`: the
            q_dep choice (``dep``, ``choice``, hence the order of the
            reduced coordinates) and the kept constraint rows (``rows``)
    blocks : the limb blocks of its ``J_t^f``
            (:func:`flexpkm.algorithms.dependent.limb_blocks`), or None
    modes : its working / assembly modes (leg name or ``"assembly"`` -> +1/-1,
            :mod:`flexpkm.algorithms.modes`)
    """

    q_tot: Optional[np.ndarray] = None
    J_tot: Optional[np.ndarray] = None
    solution: object = None
    blocks: Optional[list] = None
    modes: Optional[Mapping] = None


class CompiledFunctions:
    """The one mutable part of a :class:`Model`: a slot, made per model, that
    the compiled backends fill on first use so that a model's generated
    functions are built once and live as long as the model (no module-level
    cache). ``modal``: the :class:`flexpkm.compiled.robot.CompiledRobot` of
    the modal analysis (None: not made yet; False: the numpy path);
    ``simulate``: (dep, kept rows) -> CompiledRobot of the simulations."""

    __slots__ = ("modal", "simulate")

    def __init__(self):
        self.modal = None
        self.simulate = {}


@dataclass(**_ARRAY)
class Model:
    """A robot prepared for the algorithms (Step 0 of Section 10.6), built
    once by :func:`build_structure`; never modified.

    robot : the :class:`Robot` description it was built from
    layout : :class:`CoordinateLayout` of ``q_tot = [q_t; x_p]``
    frame_index : frame name -> index
    frame_constants : :class:`FrameConstants` per frame (MDH transforms,
             shape functions at the joints)
    frame_columns : per frame, the sorted q_t columns its Jacobian can
             depend on (Jacobian sparsity)
    structure : :class:`TreeStructure`
    body_entries : :class:`BodyEntry` per body (frame order)
    frame_mass : :class:`FrameMass` per frame carrying bodies (11.11)
    stacked : :class:`StackedBodies`
    K_tot : (n_tot, n_tot) stiffness of the virtual system (11.18), (11.22):
            the bodies' ``K_ee`` and the joint springs, N/m, N m/rad
    column_legs : (n_tot,) the leg of each column of q_tot (None for the
            platform's and for frames without a leg)
    closure_rows : per closure, the constrained twist components (in the cut frame)
    closure_columns : per closure, the q_tot columns its rows can depend on
            (structural sparsity of ``J_tot``, Eq. 10.107)
    reference_state : :class:`ReferenceState`, filled by
            :func:`flexpkm.build_model` (the model layer's :func:`build_structure`
            leaves it None: it needs the assembly, a layer above)
    compiled : :class:`CompiledFunctions`, the generated functions of this model
    """

    robot: Robot
    layout: CoordinateLayout
    frame_index: Mapping
    frame_constants: tuple
    frame_columns: tuple
    structure: TreeStructure
    body_entries: tuple
    frame_mass: tuple
    stacked: StackedBodies
    K_tot: np.ndarray
    column_legs: tuple
    closure_rows: tuple
    closure_columns: tuple
    reference_state: Optional[ReferenceState] = None
    compiled: CompiledFunctions = field(default_factory=CompiledFunctions)

    # ---- the description's fields, read through the model ---------------
    @property
    def name(self) -> str:
        return self.robot.name

    @property
    def frames(self) -> tuple:
        """The description's :class:`Frame` tuple."""
        return self.robot.frames

    @property
    def bodies(self) -> Mapping:
        """The description's frame name -> bodies."""
        return self.robot.bodies

    @property
    def closures(self) -> tuple:
        return self.robot.closures

    @property
    def platform(self):
        return self.robot.platform

    @property
    def plane_normal(self):
        return self.robot.plane_normal

    @property
    def gravity(self) -> tuple:
        return self.robot.gravity

    @property
    def q_dep(self):
        return self.robot.q_dep

    @property
    def rotor_inertia(self) -> Mapping:
        return self.robot.rotor_inertia

    @property
    def viscous_friction(self) -> Mapping:
        return self.robot.viscous_friction

    @property
    def coulomb_friction(self) -> Mapping:
        return self.robot.coulomb_friction

    @property
    def joint_stiffness(self) -> Mapping:
        return self.robot.joint_stiffness

    @property
    def reference(self) -> Mapping:
        """Coordinate name -> value of the reference configuration."""
        return self.robot.reference

    def flexible_body(self, frame_name):
        """The flexible body carried by a frame, or None."""
        return self.robot.flexible_body(frame_name)


def build_structure(robot) -> Model:
    """Step 0 of Section 10.6, the structural part: the constant data of
    ``robot`` (see :class:`Model`) but the reference state, which
    :func:`flexpkm.build_model` (:func:`flexpkm.algorithms.reference.build_model`)
    adds. A :class:`Model` given instead is returned as is. A
    flexible robot's platform is first completed
    (:func:`flexpkm.model.completion.complete_platform`: ``Model.robot`` is
    then the completed description).

    Raises :class:`flexpkm.errors.InvalidDescriptionError` when the
    description is inconsistent (checked by :class:`Robot` itself).
    """
    if isinstance(robot, Model):
        return robot
    if not isinstance(robot, Robot):
        raise InvalidArgumentError(f"expected a Robot or a Model, got {type(robot).__name__} "
                                   f"{robot!r:.60}")
    robot = complete_platform(robot)
    layout = robot.layout
    check_model_size(layout.n_tot, body_rows(robot), what=f"robot {robot.name!r}")
    frame_index = robot.frame_index
    frames = tuple(_frame_constants(robot, layout, frame_index))
    columns = tuple(_frame_columns(frames))
    bodies = tuple(BodyEntry(j, f.name, body, layout.elastic_slice.get(f.name) if body.n_e else None)
                   for j, f in enumerate(robot.frames) for body in robot.bodies.get(f.name, ()))
    legs = tuple(_column_legs(robot, layout))
    rows = tuple(constrained_rows(robot, c) for c in robot.closures)
    return Model(robot, layout, frame_index, frames, columns, _tree_structure(frames), bodies,
                 tuple(_frame_mass(bodies)),
                 _stacked_bodies(bodies, columns, [f.leg for f in robot.frames]),
                 _stiffness(robot, layout, bodies),
                 legs, rows, tuple(_closure_columns(robot, layout, frame_index, columns)))


def _frame_constants(robot, layout, frame_index):
    for f in robot.frames:
        R_att, p_att, R_joint, r = mdh_transform(f.gamma, f.b, f.alpha, f.d, f.theta, f.r)
        body = robot.flexible_body(f.antecedent) if f.antecedent else None
        shapes = None if body is None else (
            layout.elastic_slice[f.antecedent], body.phi_d(p_att), body.phi_r(p_att))
        yield FrameConstants(frame_index[f.antecedent] if f.antecedent else -1, f.sigma,
                             R_att @ R_joint, p_att, float(r), layout.joint_index.get(f.name, -1),
                             shapes)


def _frame_columns(frames):
    """Columns of q_t each frame's Jacobian can depend on: its joint, its
    ancestors' joints and the elastic coordinates of the bodies carrying it."""
    cols = []
    for fc in frames:
        c = set(cols[fc.antecedent]) if fc.antecedent >= 0 else set()
        if fc.col >= 0:
            c.add(fc.col)
        if fc.shapes is not None:
            c.update(range(fc.shapes[0].start, fc.shapes[0].stop))
        cols.append(sorted(c))
    return [np.array(c, dtype=int) for c in cols]


def _tree_structure(frames) -> TreeStructure:
    nf = len(frames)
    ant = np.array([fc.antecedent if fc.antecedent >= 0 else nf for fc in frames], dtype=int)
    A = np.zeros((nf, nf))
    for j, fc in enumerate(frames):
        if fc.antecedent >= 0:
            A[j] = A[fc.antecedent]
        A[j, j] = 1.0
    return TreeStructure(ant, np.array([fc.col for fc in frames], dtype=int),
                         np.array([float(fc.sigma == PRISMATIC) for fc in frames]),
                         np.array([float(fc.sigma == REVOLUTE) for fc in frames]), A)


def _frame_mass(bodies):
    out = {}
    for e in bodies:
        Mj = ne.mass_matrix(e.body.invariants, np.zeros(e.body.n_e))
        sl, acc = out.get(e.frame, (None, np.zeros((6, 6))))
        if e.elastic is not None:
            Mj = Mj.copy()
            Mj[:6, :6] += acc
            out[e.frame] = (e.elastic, Mj)
        else:
            acc = acc.copy()
            acc[:6, :6] += Mj
            out[e.frame] = (sl, acc)
    return [FrameMass(j, sl, M) for j, (sl, M) in out.items()]


def _stacked_bodies(bodies, frame_columns, frame_legs) -> StackedBodies:
    frames, rows6, erows, ecols, flexible = [], [], [], [], []
    rigid = {}                      # frame -> [row offset, M (6, 6), ms_r, I_rr] summed
    k = 0
    for e in bodies:
        if e.elastic is None and e.frame in rigid:
            acc, inv = rigid[e.frame], e.body.invariants
            acc[1] = acc[1] + ne.mass_matrix(inv)
            acc[2], acc[3] = acc[2] + inv.ms_r, acc[3] + inv.I_rr
            continue
        frames.append(e.frame)
        rows6 += list(range(k, k + 6))
        if e.elastic is None:
            inv = e.body.invariants
            rigid[e.frame] = [k, ne.mass_matrix(inv), np.asarray(inv.ms_r, float),
                              np.asarray(inv.I_rr, float)]
        else:
            erows += list(range(k + 6, k + 6 + e.body.n_e))
            ecols += list(range(e.elastic.start, e.elastic.stop))
            flexible.append((k, e.body, e.elastic))
        k += 6 + e.body.n_e
    entries = list(rigid.values())
    return StackedBodies(k, np.array(frames, dtype=int), np.array(rows6, dtype=int),
                         np.array(erows, dtype=int), np.array(ecols, dtype=int),
                         np.array([r + np.arange(6) for r, *_ in entries], dtype=int).reshape(-1, 6),
                         np.array([m for _, m, _, _ in entries]).reshape(-1, 6, 6),
                         np.array([ms for _, _, ms, _ in entries]).reshape(-1, 3),
                         np.array([I for *_, I in entries]).reshape(-1, 3, 3), tuple(flexible),
                         entry_columns(rows6[::6], frames, flexible, frame_columns, frame_legs))


def _stiffness(robot, layout, bodies) -> np.ndarray:
    """``K_tot`` (11.18), (11.22): bodies' ``K_ee`` plus joint springs."""
    K = np.zeros((layout.n_tot, layout.n_tot))
    for e in bodies:
        if e.elastic is not None:
            K[e.elastic, e.elastic] += e.body.invariants.K_ee
    for name, k in robot.joint_stiffness.items():
        c = layout.joint_index[name]
        K[c, c] += k
    K.setflags(write=False)
    return K


def _column_legs(robot, layout):
    legs = [None] * layout.n_tot
    for f in robot.frames:
        if f.name in layout.joint_index:
            legs[layout.joint_index[f.name]] = f.leg or None
        sl = layout.elastic_slice.get(f.name)
        if sl is not None:
            for c in range(sl.start, sl.stop):
                legs[c] = f.leg or None
    return legs


def _closure_columns(robot, layout, frame_index, columns):
    """Structural non-zero columns of each closure's rows of ``J_tot``."""
    platform = np.arange(layout.n_t, layout.n_tot)
    for c in robot.closures:
        cols = [columns[frame_index[c.frame]]]
        cols.append(platform if c.other is None else columns[frame_index[c.other]])
        yield np.union1d(*cols).astype(int)
