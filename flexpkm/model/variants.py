"""The ``[variants.NAME]`` tables of a description file
(:mod:`flexpkm.model.files`): one file holds a robot and its variants (the
NaVARo's actuation modes and its refined model of Section 11.6.2.3, the
rigid Delta), applied by ``files.load(path, variant=NAME)``.

A variant table holds

* ``name``: the robot's name in this variant;
* ``"j" = {...}``: overrides of frame ``j`` of ``legs``: ``mu``, the joint
  values (``joint_stiffness``...), ``bodies`` (replace the frame's bodies)
  or ``add_bodies`` (appended to them);
* ``limbs = {RL = {"j" = {...}}}``: the same for the local frame ``j`` of
  limb ``RL``;
* ``placements = [{actuated = [...], mount = {...}}, ...]``: one table per
  placement, in order.

Errors are :class:`flexpkm.errors.InvalidDescriptionError` raised by
``where.error`` (the file, the key path, what is wrong).
"""
from __future__ import annotations

from flexpkm.model.schema import JOINT_VALUES

#: what a variant may change in a frame
FRAME_KEYS = {"mu", "bodies", "add_bodies", *JOINT_VALUES}


def apply_variant(data, variant, where) -> dict:
    """``data`` (a schema-checked dict, changed in place and returned) with
    the table ``[variants.<variant>]`` applied (see the module docstring).
    Raises ``where.error`` naming the variant's key for an unknown variant,
    frame, limb or key, or a placement list of the wrong length."""
    variants = data.get("variants", {})
    if variant not in variants:
        raise where.error(["variants"], f"no variant {variant!r} (have {sorted(variants)})")
    table = dict(variants[variant])
    path = ["variants", variant]
    if "name" in table:
        if not isinstance(table["name"], str):
            raise where.error(path + ["name"], "expected a string")
        data["name"] = table.pop("name")
    placements = table.pop("placements", None)
    if placements is not None:
        _placements(data, placements, path + ["placements"], where)
    for limb, frames in table.pop("limbs", {}).items():
        rows = data.get("limbs", {}).get(limb)
        if rows is None:
            raise where.error(path + ["limbs", limb], f"unknown limb {limb!r}")
        _frames(rows["frames"], frames, path + ["limbs", limb], where)
    _frames([fr for leg in data.get("legs", ()) for fr in leg["frames"]], table, path, where)
    return data


def _placements(data, placements, path, where):
    rows = data.get("placements", [])
    if not isinstance(placements, list) or len(placements) != len(rows):
        raise where.error(path, f"expected a list of {len(rows)} tables (one per placement)")
    for row, over in zip(rows, placements):
        if not isinstance(over, dict) or not set(over) <= {"actuated", "mount"}:
            raise where.error(path, "expected a table of actuated / mount per placement")
        row.update(over)


def _frames(rows, overrides, path, where):
    """Apply ``overrides`` (frame name -> table) to the frame tables ``rows``."""
    names = {fr["j"]: fr for fr in rows}
    if not isinstance(overrides, dict):
        raise where.error(path, "expected a table of frames")
    for j, over in overrides.items():
        if j not in names:
            raise where.error(path + [j], f"unknown frame {j!r}")
        if not isinstance(over, dict) or not set(over) <= FRAME_KEYS:
            raise where.error(path + [j], f"expected a table of {', '.join(sorted(FRAME_KEYS))}")
        over = dict(over)
        added = over.pop("add_bodies", [])
        names[j].update(over)
        if added:
            names[j]["bodies"] = list(names[j].get("bodies", [])) + list(added)
