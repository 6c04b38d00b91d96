"""Singular configurations of a parallel robot (Briot & Khalil Section 7.5,
9.2; Müller Remark 2), classified and measured from the constraint
Jacobian ``J_tot`` (10.107) of the rigid robot (elastic columns left out).

``J_tot qd_tot = 0`` with ``q_tot = [q_a, q_d, x_p]`` (actuated joints,
passive joints, platform coordinates). Each kind of singularity is the rank
drop of one block of ``J_tot`` (its independent rows, those kept at the
robot's reference configuration):

* **Type 2** (parallel, 7.5.1): all rows w.r.t. ``[q_d, x_p]``: with the
  actuators locked the robot keeps a motion; its platform part is the
  uncontrollable twist ``t_s`` (7.5.6.1, 9.2.1: ``A t_s = 0``).
* **serial** (Type 1, 7.5.2 case 3), per leg: the leg's rows w.r.t. its
  joints ``[q_ai, q_di]``: the leg moves while its tip stays still.
* **LPJTS** (7.5.2 case 2), per leg: the leg's rows w.r.t. its passive
  joints ``q_di`` (``J_tdi`` of (7.87)): with its actuator and tip fixed,
  the leg keeps an internal motion (9.2.2).
* **constraint** (7.5.3, Müller Remark 2): all rows w.r.t. all columns:
  the constraints become dependent, the mobility changes; the singular
  vector is then the combination of constraint rows (a wrench) that
  vanishes.
* **Type 3**: a serial and the Type 2 singularity at once (7.5.1).

**Distance** (scale-free): ``sigma_r / sigma_1`` of the block of the
dimensionally homogenised ``H = D_r J_tot D_c``, ``r`` the block's rank at
the reference configuration (so a block that is rank deficient by
structure is measured on its generic rank). Lengths are homogenised by the
robot's characteristic length ``L`` (:func:`characteristic_length`: the
mean of its non-zero MDH lengths ``|b|, |d|, |r|`` and platform points):
the position rows (m) are divided by ``L`` and the prismatic-joint and
platform-translation columns multiplied by ``L``, so that ``H`` is
dimensionless and a robot scaled by k has the same distances. 0 at a
singularity, 1 at an isotropic configuration. The **singular vector** is
the right singular vector ``r`` of the block (velocities of the block's
columns, SI units after ``D_c``, unit norm), the left one for a
constraint singularity (weights of the rows).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from flexpkm.algorithms.closure import constraint_jacobian, row_labels
from flexpkm.algorithms.constraint_rows import select_rows
from flexpkm.algorithms.platform import platform_pose
from flexpkm.algorithms.tree import as_batch, tree_kinematics
from flexpkm.errors import InvalidArgumentError

#: a distance at or below this is a singularity (refused by the rigid IDM)
SINGULAR = 1e-6
#: a distance below this is near a singularity (warned by the rigid IDM)
NEAR = 1e-2
#: relative singular values below this at the reference configuration are
#: structural rank loss (the generic rank of a block)
RANK_TOL = 1e-9


@dataclass(frozen=True)
class Block:
    """One measured block of ``J_tot``: ``kind`` (``"type 2"``, ``"serial"``,
    ``"LPJTS"``, ``"constraint"``), ``where`` (``"leg 1"`` or ``""``), its
    ``rows`` and ``cols`` in ``J_tot``, its generic ``rank``."""

    kind: str
    where: str
    rows: np.ndarray
    cols: np.ndarray
    rank: int

    @property
    def name(self) -> str:
        return f"{self.kind} {self.where}".strip()

    @property
    def square(self) -> bool:
        return len(self.rows) == len(self.cols) == self.rank


@dataclass(frozen=True)
class Measure:
    """A block's distance (scale-free, 0 singular), the sign of its
    homogenised determinant (0 when not square), its singular vector and
    the names of the vector's components (coordinates, or constraint rows
    for ``"constraint"``)."""

    kind: str
    where: str
    distance: float
    sign: int
    vector: np.ndarray
    names: tuple

    @property
    def name(self) -> str:
        return f"{self.kind} {self.where}".strip()

    def to_dict(self) -> dict:
        return {"kind": self.kind, "where": self.where, "distance": float(self.distance),
                "sign": int(self.sign), "vector": dict(zip(self.names, map(float, self.vector)))}


@dataclass(frozen=True, repr=False)
class Singularity:
    """The singularity analysis of one configuration (:func:`singularity`).

    q_tot : (n_tot,) the configuration (m, rad);  length : L (m)
    measures : every block's :class:`Measure` (Type 2, per leg serial and
        LPJTS, constraint; Type 3 added when a serial and the Type 2 one are
        both below ``near``)
    t_s : (n_p,) the uncontrollable platform twist of the Type 2 block
        (platform coordinate rates, unit norm), None without a platform
    near, singular : the thresholds used
    names : the platform coordinates' names (the components of t_s)
    """

    q_tot: np.ndarray
    length: float
    measures: tuple
    t_s: object = None
    near: float = NEAR
    singular: float = SINGULAR
    names: tuple = field(default=())

    @property
    def kinds(self) -> tuple:
        """Names of the measures at or below ``singular`` (the singularities)."""
        return tuple(m.name for m in self.measures if m.distance <= self.singular)

    @property
    def nearby(self) -> tuple:
        """Names of the measures below ``near``."""
        return tuple(m.name for m in self.measures if m.distance < self.near)

    def __getitem__(self, name) -> Measure:
        for m in self.measures:
            if m.name == name:
                return m
        raise KeyError(f"{name!r}: measures are {', '.join(m.name for m in self.measures)}")

    def lines(self) -> list:
        """The report as text lines (the command line's output)."""
        out = [f"characteristic length L = {self.length:.4g} m; distances are sigma_min / "
               f"sigma_max of the homogenised blocks (singular <= {self.singular:g}, "
               f"near < {self.near:g})"]
        for m in self.measures:
            flag = ("  SINGULAR" if m.distance <= self.singular
                    else "  near" if m.distance < self.near else "")
            vec = ", ".join(f"{n} {v:+.4f}" for n, v in zip(m.names, m.vector))
            out.append(f"  {m.name:<16} {m.distance:.3e}{flag}   vector: {vec}")
        if self.t_s is not None:
            out.append("  t_s (uncontrollable platform twist): "
                       + ", ".join(f"{n} {v:+.4f}" for n, v in zip(self.names, self.t_s)))
        out.append("singular: " + (", ".join(self.kinds) or "none")
                   + "; near: " + (", ".join(n for n in self.nearby if n not in self.kinds)
                                   or "none"))
        return out

    def __repr__(self):
        return "Singularity(\n" + "\n".join(self.lines()) + "\n)"

    def to_dict(self) -> dict:
        return {"length": self.length, "singular": list(self.kinds), "near": list(self.nearby),
                "thresholds": {"singular": self.singular, "near": self.near},
                "t_s": None if self.t_s is None else dict(zip(self.names, map(float, self.t_s))),
                "measures": [m.to_dict() for m in self.measures]}


def characteristic_length(model) -> float:
    """``L`` (m): the mean of the non-zero MDH lengths ``|b|, |d|, |r|`` of
    the frames and of the non-zero distances ``|platform_point|`` of the
    closures (1 m for a robot with none)."""
    values = [abs(v) for f in model.frames for v in (f.b, f.d, f.r)]
    values += [float(np.linalg.norm(c.platform_point)) for c in model.closures
               if c.other is None and c.platform_point is not None]
    values = [v for v in values if v > 1e-12]
    return float(np.mean(values)) if values else 1.0


def scales(model):
    """``(D_r (c,), D_c (n_tot,), rigid columns)``: the homogenising row and
    column factors of ``J_tot`` (module doc) and the columns of the rigid
    robot (joints and platform; the elastic ones left out)."""
    layout = model.layout
    L = characteristic_length(model)
    D_r = np.array([1.0 / L if comp.startswith("v") else 1.0 for _, _, comp in row_labels(model)])
    D_c = np.ones(layout.n_tot)
    sigma = {f.name: f.sigma for f in model.frames}
    for frame, col in layout.joint_index.items():
        if sigma[frame] == 1:
            D_c[col] = L
    if model.platform is not None:
        for k, dof in enumerate(model.platform.dofs):
            if dof < 3:
                D_c[layout.n_t + k] = L
    rigid = sorted(layout.joint_index.values()) + list(range(layout.n_t, layout.n_tot))
    return D_r, D_c, np.array(rigid, dtype=int)


def blocks(model) -> tuple:
    """The measured :class:`Block` s of ``model`` (a built Model): Type 2,
    then per leg serial and LPJTS, then constraint; rows are those kept at
    the reference configuration, ranks those there (else full)."""
    layout = model.layout
    labels = row_labels(model)
    state = model.reference_state
    J_ref = None if state is None else state.J_tot
    if J_ref is None:
        kept = np.arange(len(labels))
    elif state.solution is not None and state.solution.rows is not None:
        kept = np.asarray(state.solution.rows.kept)
    else:
        kept = select_rows(J_ref[None], labels).kept
    D_r, D_c, rigid = scales(model)
    joints = sorted(layout.joint_index.values())
    passive = [c for c in joints if c not in layout.actuated]
    out = [("type 2", "", kept, np.array(passive + list(range(layout.n_t, layout.n_tot))))]
    for leg in dict.fromkeys(labels[i][1] for i in kept if labels[i][1]):
        rows = np.array([i for i in kept if labels[i][1] == leg])
        cols = [c for c in joints if model.column_legs[c] == leg]
        out.append(("serial", f"leg {leg}", rows, np.array(cols)))
        out.append(("LPJTS", f"leg {leg}", rows, np.array([c for c in cols if c in passive])))
    out.append(("constraint", "", kept, rigid))
    result = []
    for kind, where, rows, cols in out:
        if not (len(rows) and len(cols)):
            continue
        rank = min(len(rows), len(cols))
        if J_ref is not None:
            s = np.linalg.svd((D_r[rows, None] * J_ref[np.ix_(rows, cols)]) * D_c[cols],
                              compute_uv=False)
            rank = int(np.sum(s > RANK_TOL * s[0])) if s.size and s[0] > 0 else 0
        if rank:
            result.append(Block(kind, where, np.asarray(rows), np.asarray(cols), rank))
    return tuple(result)


def homogenised_jacobian(model, q_tot):
    """``H = D_r J_tot D_c`` (B, c, n_tot) at ``q_tot`` (n_tot,) or (B, n_tot)."""
    layout = model.layout
    q = as_batch(q_tot, layout.n_tot)
    kin = tree_kinematics(model, q[:, :layout.n_t])
    J = constraint_jacobian(model, kin, platform_pose(model, q))[0]
    D_r, D_c, _ = scales(model)
    return D_r[:, None] * J * D_c


def block_measures(model, q_tot, which=None, zero=SINGULAR):
    """``{block name: (distance (B,), sign (B,), vector (B, k))}`` at the
    configurations ``q_tot`` (B, n_tot); ``which``: the block names wanted
    (default all); the sign of a square block's determinant is 0 where the
    distance is at most ``zero``. The vectors are in SI units (``D_c`` applied, or the row
    weights of a constraint block) with unit norm."""
    H = homogenised_jacobian(model, q_tot)
    _, D_c, _ = scales(model)
    out = {}
    for blk in blocks(model):
        if which is not None and blk.name not in which:
            continue
        A = H[:, blk.rows][:, :, blk.cols]
        U, s, Vt = np.linalg.svd(A)
        r = blk.rank - 1
        with np.errstate(invalid="ignore", divide="ignore"):
            dist = np.where(s[:, 0] > 0, s[:, r] / s[:, 0], 0.0)
        if blk.kind == "constraint":
            vec = U[:, :, r]
        else:
            vec = Vt[:, r, :] * D_c[blk.cols]
        vec = vec / np.maximum(np.linalg.norm(vec, axis=1, keepdims=True), 1e-300)
        k = np.argmax(np.abs(vec), axis=1)
        vec = vec * np.where(np.take_along_axis(vec, k[:, None], 1) < 0, -1.0, 1.0)
        sign = (np.sign(np.linalg.det(A)).astype(int) if blk.square
                else np.zeros(A.shape[0], dtype=int))
        out[blk.name] = (dist, np.where(dist > zero, sign, 0), vec)
    return out


def uncontrollable_twist(model, state) -> np.ndarray:
    """``t_s`` (n_p,) (or (B, n_p) for a batch of states (B, n_tot)): the
    platform coordinate rates (m/s, rad/s per unit, base frame) of the motion
    the robot keeps with its actuators locked, i.e. the singular vector of
    the Type 2 block (7.5.6.1, 9.2.1; exact at a Type 2 singularity, the
    nearest direction elsewhere), scaled to unit norm, largest component
    positive. ``state`` : an assembled ``q_tot`` (m, rad). Raises
    :class:`InvalidArgumentError` for a robot without platform coordinates
    or closures."""
    from flexpkm.algorithms.reference import build_model
    model = build_model(model)
    layout = model.layout
    blk = next((b for b in blocks(model) if b.kind == "type 2"), None)
    if layout.n_p == 0 or blk is None:
        raise InvalidArgumentError(f"{model.name}: no platform coordinates or no closure, "
                                   "no twist t_s")
    vec = block_measures(model, state, which=("type 2",))["type 2"][2]
    t_s = vec[:, np.isin(blk.cols, np.arange(layout.n_t, layout.n_tot))]
    t_s = t_s / np.maximum(np.linalg.norm(t_s, axis=1, keepdims=True), 1e-300)
    k = np.argmax(np.abs(t_s), axis=1)
    t_s = t_s * np.where(np.take_along_axis(t_s, k[:, None], 1) < 0, -1.0, 1.0)
    return t_s[0] if np.ndim(state) == 1 else t_s


def singularity(model, q_a=None, pose=None, q_tot=None, near=NEAR,
                singular=SINGULAR) -> Singularity:
    """Classify and measure the singularities of one configuration
    (module doc; Sections 7.5, 9.2).

    Give exactly one of ``q_a`` (n_a,) actuated coordinates (m, rad; the
    configuration is assembled, :func:`flexpkm.assemble`, keeping the
    reference modes), ``pose`` (n_c,) the commanded platform coordinates,
    or ``q_tot`` (n_tot,) an assembled configuration (its loops checked).
    ``near`` > ``singular`` >= 0: the thresholds of the report.
    Returns :class:`Singularity`. Raises :class:`InvalidArgumentError`
    (arguments), :class:`flexpkm.errors.OpenLoopError` (a ``q_tot`` whose
    loops are open), what :func:`flexpkm.assemble` raises (an unreachable
    pose; :class:`flexpkm.errors.SingularConfigurationError` when q_a gives no locally
    unique assembly, i.e. at a Type 2 singularity: give the pose)."""
    from flexpkm.algorithms.assembly import assemble
    from flexpkm.algorithms.closure import check_loops
    from flexpkm.algorithms.reference import build_model
    model = build_model(model)
    if sum(x is not None for x in (q_a, pose, q_tot)) != 1:
        raise InvalidArgumentError("singularity: give exactly one of q_a, pose and q_tot")
    if not (np.isfinite(near) and np.isfinite(singular) and 0 <= singular < near):
        raise InvalidArgumentError(f"singularity: thresholds need 0 <= singular < near, got "
                                   f"singular={singular!r}, near={near!r}")
    if q_tot is None:
        q = assemble(model, q_a=q_a, pose=pose)
    else:
        q = np.asarray(q_tot, float)
        if q.shape != (model.layout.n_tot,):
            raise InvalidArgumentError(f"singularity: q_tot must have shape "
                                       f"({model.layout.n_tot},), got {q.shape}")
        check_loops(model, q, what="singularity: q_tot")
    return _report(model, q, near, singular)


def _report(model, q, near, singular) -> Singularity:
    layout = model.layout
    labels = row_labels(model)
    raw = block_measures(model, q)
    measures = []
    for blk in blocks(model):
        dist, sign, vec = raw[blk.name]
        names = (tuple(f"{labels[i][0]}:{labels[i][2]}" for i in blk.rows)
                 if blk.kind == "constraint" else tuple(layout.names[c] for c in blk.cols))
        measures.append(Measure(blk.kind, blk.where, float(dist[0]), int(sign[0]), vec[0], names))
    by = {m.name: m for m in measures}
    t2 = by.get("type 2")
    serial = [m for m in measures if m.kind == "serial"]
    if t2 is not None and serial:
        worst = min(serial, key=lambda m: m.distance)
        measures.append(Measure("type 3", worst.where, max(worst.distance, t2.distance), 0,
                                t2.vector, t2.names))
    t_s = uncontrollable_twist(model, q) if layout.n_p and t2 is not None else None
    names = tuple(layout.names[layout.n_t:])
    return Singularity(q_tot=q, length=characteristic_length(model), measures=tuple(measures),
                       t_s=t_s, near=near, singular=singular, names=names)
