"""Working modes and assembly mode of a configuration (Briot & Khalil
Section 7.5), as the signs of the determinants that vanish on the
singularities between them.

* **working mode of a leg** (one solution of the leg's inverse geometric
  model): the sign of ``det A_l``, ``A_l`` the rows of the leg's closures
  (``Closure.leg``) of ``J_tot`` (10.107) w.r.t. the leg's joint coordinates
  (actuated included) when that block is square, else w.r.t. its passive
  joint coordinates when that one is; ``det A_l = 0`` is the leg's serial
  (LPJTS, Type 1) singularity, which a leg crosses to change its working
  mode (a five-bar's elbow: ``det A_l ~ sin q_i2``).
* **assembly mode** (one solution of the direct geometric model): the sign
  of ``det A_p``, ``A_p`` all the rows w.r.t. every non-actuated joint and
  platform coordinate (the actuators fixed), when square; ``det A_p = 0``
  is the parallel (Type 2) singularity.

The elastic coordinates are not columns (the rigid robot's modes). Rows and
columns are scaled to unit norm before the determinant (its sign does not
change, and metres and radians are then comparable): a scaled ``|det|``
below :data:`SINGULAR_TOL` is a singularity, sign 0. A leg whose block is
square in neither way has no working mode here (it is not in the signature).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from flexpkm.algorithms.closure import constraint_jacobian, row_labels
from flexpkm.algorithms.platform import platform_pose
from flexpkm.algorithms.tree import as_batch, tree_kinematics
from flexpkm.errors import InvalidArgumentError
from flexpkm.model.build import build_structure

#: a determinant of unit-norm rows and columns below this is a singularity
SINGULAR_TOL = 1e-9
#: a row whose norm is below this fraction of the largest is a zero row
ZERO_ROW = 1e-12


@dataclass(frozen=True, kw_only=True)
class ModeSignature:
    """Working modes and assembly mode of B configurations.

    legs : names of the legs that have a working mode (square block)
    working : (B, len(legs)) int, +1 / -1 the sign of ``det A_l``, 0 singular
    assembly : (B,) int, sign of ``det A_p`` (0 singular or no square block)
    """

    legs: tuple
    working: np.ndarray
    assembly: np.ndarray

    def at(self, b: int) -> dict:
        """Pose ``b`` as a dict: leg name -> sign, and ``"assembly"`` -> sign."""
        out = {leg: int(s) for leg, s in zip(self.legs, self.working[b])}
        out["assembly"] = int(self.assembly[b])
        return out


def mode_signature(model, q_tot) -> ModeSignature:
    """:class:`ModeSignature` of ``q_tot`` (n_tot,) or (B, n_tot) (m, rad;
    an assembled configuration, :func:`flexpkm.assemble`): the signs of the
    determinants of the legs' blocks and of the Type 2 block of ``J_tot``
    (10.107; Section 7.5, module doc), evaluated in one batch with the
    seeded :func:`generic_configuration` that tells structural zero rows.
    Raises :class:`flexpkm.errors.InvalidArgumentError` for a ``q_tot`` of
    another shape or with non-finite values."""
    model = build_structure(model)
    layout = model.layout
    q = np.concatenate([as_batch(q_tot, layout.n_tot), generic_configuration(model)])
    kin = tree_kinematics(model, q[:, :layout.n_t])
    J = constraint_jacobian(model, kin, platform_pose(model, q))[0]
    J, J_generic = J[:-1], J[-1:]
    legs, blocks = leg_blocks(model, J_generic)
    working = np.zeros((J.shape[0], len(legs)), dtype=int)
    for i, (rows, cols) in enumerate(blocks):
        working[:, i] = _sign_det(J[:, rows][:, :, cols])
    joints = set(layout.joint_index.values()) - set(layout.actuated)
    cols = sorted(joints) + list(range(layout.n_t, layout.n_tot))
    rows = _nonzero_rows(J_generic, np.arange(J.shape[1]), cols)
    assembly = (_sign_det(J[:, rows][:, :, cols]) if len(rows) == len(cols) and cols
                else np.zeros(J.shape[0], dtype=int))
    return ModeSignature(legs=tuple(legs), working=working, assembly=assembly)


def generic_configuration(model) -> np.ndarray:
    """(1, n_tot) joint and platform coordinates drawn at random (seeded),
    elastic ones 0: where a row of ``J_tot`` that is zero is zero by the
    robot's structure (the out-of-plane rows of a planar loop), not by a
    singularity of the configuration (a stretched leg)."""
    layout = model.layout
    q = np.zeros((1, layout.n_tot))
    rng = np.random.default_rng(7)
    cols = sorted(layout.joint_index.values()) + list(range(layout.n_t, layout.n_tot))
    q[0, cols] = rng.uniform(-1.0, 1.0, len(cols))
    return q


def leg_blocks(model, J_tot):
    """(leg names, [(rows, columns)]) of the square blocks ``A_l`` of the
    legs that have one (see the module's docstring), in the order of the
    legs' first rows; rows that are zero on the block's columns in ``J_tot``
    (1, c, n_tot) at :func:`generic_configuration` are left out (the
    out-of-plane rows of a planar leg in a spatial model)."""
    model = build_structure(model)
    layout = model.layout
    labels = row_labels(model)
    legs, blocks = [], []
    for leg in dict.fromkeys(lab[1] for lab in labels if lab[1]):
        leg_rows = [i for i, lab in enumerate(labels) if lab[1] == leg]
        joints = [c for c in sorted(layout.joint_index.values()) if model.column_legs[c] == leg]
        passive = [c for c in joints if c not in layout.actuated]
        for cols in (joints, passive):
            rows = _nonzero_rows(J_tot, leg_rows, cols)
            if cols and len(cols) == len(rows):
                legs.append(leg)
                blocks.append((np.array(rows), np.array(cols)))
                break
    return legs, blocks


def _nonzero_rows(J, rows, cols):
    """The rows of ``J[:, rows][:, :, cols]`` that are not zero at pose 0."""
    A = J[0][np.ix_(rows, cols)]
    norms = np.linalg.norm(A, axis=1) if A.size else np.zeros(len(rows))
    return [r for r, n in zip(rows, norms) if n > ZERO_ROW * max(norms.max(initial=0.0), 1e-300)]


def _sign_det(A):
    """Sign of ``det A`` (B, n, n), 0 when the determinant of A with rows
    and columns scaled to unit norm is below :data:`SINGULAR_TOL`."""
    A = A / np.maximum(np.linalg.norm(A, axis=2, keepdims=True), 1e-300)
    A = A / np.maximum(np.linalg.norm(A, axis=1, keepdims=True), 1e-300)
    sign, logdet = np.linalg.slogdet(A)
    return np.where(logdet > np.log(SINGULAR_TOL), sign, 0.0).astype(int)


def mode_text(modes: dict) -> str:
    """``leg 1 +, leg 2 -, assembly +`` of a dict of :meth:`ModeSignature.at`."""
    sym = {1: "+", -1: "-", 0: "0 (singular)"}
    return ", ".join(f"{'assembly' if k == 'assembly' else f'leg {k}'} {sym[v]}"
                     for k, v in modes.items())


def parse_modes(text_or_dict, signature_legs) -> dict:
    """Working modes wanted, from ``{"1": 1, "2": -1}`` or a list of signs
    (``["+", "-"]``, ``[1, -1]``) in the order of ``signature_legs``; an
    ``"assembly"`` entry may be given in a dict. Raises
    :class:`InvalidArgumentError` for an unknown leg, a count that does not
    match or a sign that is not +1/-1."""
    if isinstance(text_or_dict, dict):
        items = dict(text_or_dict)
    else:
        values = list(text_or_dict)
        if len(values) != len(signature_legs):
            raise InvalidArgumentError(
                f"working modes: {len(values)} given, the robot has {len(signature_legs)} legs "
                f"with a working mode ({', '.join(signature_legs) or 'none'})")
        items = dict(zip(signature_legs, values))
    out = {}
    for leg, v in items.items():
        if leg != "assembly" and leg not in signature_legs:
            raise InvalidArgumentError(f"working modes: unknown leg {leg!r}; legs with a "
                                       f"working mode: {', '.join(signature_legs) or 'none'}")
        sign = {"+": 1, "-": -1, "+1": 1, "-1": -1}.get(v, v) if isinstance(v, str) else v
        if sign not in (1, -1):
            raise InvalidArgumentError(f"working modes: leg {leg}: {v!r} is not + or - (+1/-1)")
        out[leg] = int(sign)
    return out
