"""Robot description files (TOML, issue 9 item 1): :func:`load`, :func:`loads`,
:func:`dump`, :func:`dumps`.

A file holds what a :class:`Robot` holds: ``[[legs]]`` with ``[[legs.frames]]``
as MDH rows with the columns of the book and of SYMORO (``j``, ``a`` = a(j),
``sigma``, ``mu``, ``gamma``, ``b``, ``alpha``, ``d``, ``theta``, ``r``; ``gamma``,
``alpha``, ``theta`` in rad or as ``"<x> deg"``), the joint's
``rotor_inertia``, ``viscous_friction``, ``coulomb_friction``,
``joint_stiffness``, and the frame's ``[[legs.frames.bodies]]`` (``type`` =
``rigid`` (Khalil's standard parameters XX..ZZ, MX, MY, MZ, M; absent ones are
0), ``rigid_centre`` (mass, centre, inertia at the centre), ``point`` (mass,
position) or ``beam`` (length, section by ``shape`` rectangle/circle/tube or by
A/Iy/Iz/J, material E, rho and nu or G, ``planar``, ``elements``)); the
``[platform]`` (dofs, dof_names, commanded, body); ``[[closures]]`` (frame, other or
``platform = true`` with ``platform_point``, joint, leg, name); ``gravity``,
``plane_normal``, ``q_dep``, a global ``elements`` override, a
``[reference]`` table of joint coordinates (initial guess / working mode;
``reference_fixed = "pose"``: its platform coordinates are held, not its
actuated ones, :attr:`Robot.reference_fixed`) and
``[variants.NAME]`` tables of overrides (:mod:`flexpkm.model.variants`:
per frame ``"j" = {mu = 0}``, bodies, placements, the name) applied by
``loads(text, variant=NAME)``. Units SI.

Every error is an :class:`InvalidDescriptionError` naming the file, the key
path and what is wrong.
"""
from __future__ import annotations

import copy
import math
import re
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:        # Python 3.10: tomllib is the tomli package, added to 3.11
    import tomli as tomllib

from flexpkm.errors import InvalidArgumentError, InvalidDescriptionError, with_context
from flexpkm.model.description import Closure, Frame, Platform, Robot
from flexpkm.model.limbs import Limb, Mount, default_rename
from flexpkm.model.files_body import body_from_table, body_to_table
from flexpkm.model.files_names import key_path, located, unique_legs
from flexpkm.model.refine import refine
from flexpkm.model.schema import JOINT_VALUES, ROBOT
from flexpkm.model.schema_check import matches
from flexpkm.model.toml_writer import to_toml
from flexpkm.model.variants import apply_variant
from flexpkm.spatial import rotation_matrix

__all__ = ["load", "loads", "from_dict", "dump", "dumps", "reference", "analysis_options",
           "key_path"]

_DEG = re.compile(r"^\s*([-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?)\s*deg\s*$")
_ANGLES = ("gamma", "alpha", "theta")
_LENGTHS = ("b", "d", "r")


class Where:
    """Builds the error messages of a description: ``source`` (the file
    name, or ``"<robot>"``) + the key path; :meth:`error` gives the
    :class:`InvalidDescriptionError` to raise. Passed to :func:`parse`."""

    def __init__(self, source):
        self.source = source

    def error(self, path, what):
        return InvalidDescriptionError(f"{self.source}: {key_path(path)}: {what}")


def angle(value, path, where) -> float:
    """A number (rad) or a string ``"<x> deg"`` -> rad (finite)."""
    if isinstance(value, str):
        m = _DEG.match(value)
        if not m:
            raise where.error(path, f'expected a number or "<x> deg", got {value!r}')
        value = math.radians(float(m.group(1)))
    return finite(value, path, where)


def finite(value, path, where) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise where.error(path, f"expected a finite number, got {value!r}")
    return float(value)


def load(path, variant=None, elements=None) -> Robot:
    """Read a description file (TOML). See :func:`loads`."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InvalidDescriptionError(f"{path}: cannot read the file ({exc.strerror})") from None
    return loads(text, source=str(path), variant=variant, elements=elements)


def loads(text: str, source="<string>", variant=None, elements=None) -> Robot:
    """A :class:`Robot` from the text of a description file.

    variant  : name of a ``[variants.NAME]`` table to apply (None: none).
    elements : int >= 1, overrides every beam's ``elements`` (and the file's
               global ``elements``); the beams are split by :func:`refine`.
    Raises :class:`InvalidDescriptionError` ``"<source>: <key path>: <what>"``.
    """
    if not isinstance(text, str):
        raise InvalidArgumentError(f"loads: the text of a description must be a str (decode "
                                   f"bytes first), got {type(text).__name__}")
    where = Where(source)
    return checked_robot(parse(text, where), where, variant, elements)


def from_dict(data: dict, source="<dict>", variant=None, elements=None) -> Robot:
    """A :class:`Robot` from the parsed contents of a description file (what
    ``tomllib`` returns). Same checks and errors as :func:`loads`."""
    where = Where(source)
    try:
        data = copy.deepcopy(data)
    except RecursionError:
        raise where.error([], "arrays or tables nested too deeply to copy") from None
    return checked_robot(check_schema(data, where), where, variant, elements)


def checked_robot(data, where, variant=None, elements=None) -> Robot:
    """The :class:`Robot` of ``data`` already checked against the schema
    (by :func:`parse` or :func:`from_dict`; checked once, 10 ms of
    jsonschema for the DualEMPS), its variant applied and checked."""
    if variant is not None:
        data = check_schema(apply_variant(data, variant, where), where)
    return build(data, where, elements)


def parse(text, where) -> dict:
    """TOML text -> dict checked against :data:`flexpkm.model.schema.ROBOT`."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InvalidDescriptionError(f"{where.source}: not valid TOML: {exc}") from None
    except RecursionError:
        raise InvalidDescriptionError(f"{where.source}: arrays or tables nested too deeply "
                                      "to read") from None
    return check_schema(data, where)


def check_schema(data, where) -> dict:
    """``data`` if it matches the schema, else jsonschema's best-matching
    error (jsonschema imported only then: :mod:`flexpkm.model.schema_check`)."""
    try:
        if matches(ROBOT, data):
            return data
        import jsonschema               # on use: 0.06-0.09 s of start-up (docs/design.md)
        err = jsonschema.exceptions.best_match(
            jsonschema.Draft202012Validator(ROBOT).iter_errors(data))
    except RecursionError:
        raise where.error([], "arrays or tables nested too deeply to check") from None
    if err is not None:
        raise where.error(list(err.absolute_path), err.message)
    return data


def build(data, where, elements=None) -> Robot:
    """A :class:`Robot` from a schema-checked dict: the ``legs`` written out,
    then the ``placements`` of representative ``limbs`` (Müller Section 7)."""
    frames, bodies, joint, counts = [], {}, {k: {} for k in JOINT_VALUES}, {}
    unique_legs(data, where)
    for i, leg in enumerate(data.get("legs", ())):
        frames += read_frames(leg["frames"], leg["name"], ["legs", i], where, bodies, joint,
                              counts)
    closures = [_closure(c, ["closures", i], where) for i, c in enumerate(data.get("closures", ()))]
    for i, placed in enumerate(_placed_limbs(data, where, counts)):
        frames += placed.frames
        bodies.update(placed.bodies)
        closures += placed.closures
        for key in JOINT_VALUES:
            joint[key].update(getattr(placed, key))
    vec = {k: tuple(finite(v, [k, n], where) for n, v in enumerate(data[k]))
           for k in ("gravity", "plane_normal") if k in data}
    n_global = elements if elements is not None else data.get("elements")
    if n_global is not None:
        counts = {j: n_global for j in counts}
    try:
        robot = Robot(name=data["name"], frames=tuple(frames), bodies=bodies,
                      platform=_platform(data.get("platform"), where), closures=tuple(closures),
                      plane_normal=vec.get("plane_normal"),
                      q_dep=tuple(data["q_dep"]) if "q_dep" in data else None,
                      gravity=vec.get("gravity", (0.0, 0.0, 0.0)),
                      reference={k: angle(v, ["reference", k], where)
                                 for k, v in data.get("reference", {}).items()},
                      reference_fixed=data.get("reference_fixed", "q_a"),
                      working_modes=_working_modes(data, frames, where), **joint)
        return refine(robot, counts) if counts else robot
    except InvalidDescriptionError as exc:
        raise with_context(located(exc, data), where.source) from None


def _working_modes(data, frames, where) -> dict:
    """The ``working_modes`` table: leg name or ``assembly`` -> +1 / -1."""
    legs = {f.leg for f in frames}
    out = {}
    for leg, sign in data.get("working_modes", {}).items():
        if leg != "assembly" and leg not in legs:
            raise where.error(["working_modes", leg], f"unknown leg {leg!r}; legs: "
                                                      f"{', '.join(sorted(legs))}")
        out[leg] = {"+": 1, "-": -1}.get(sign, sign)
    return out


def read_frames(rows, leg, path, where, bodies, joint, counts) -> list:
    """Frames of one ``frames`` array; fills ``bodies``, ``joint`` (joint
    values by kind) and ``counts`` (beam elements) by frame name."""
    frames = []
    for k, row in enumerate(rows):
        here = path + ["frames", k]
        frames.append(_frame(row, leg, here, where))
        for key in JOINT_VALUES:
            if key in row:
                joint[key][row["j"]] = finite(row[key], here + [key], where)
        if "bodies" in row:
            built = [body_from_table(b, here + ["bodies", n], where)
                     for n, b in enumerate(row["bodies"])]
            bodies[row["j"]] = tuple(b for b, _ in built)
            counts.update({row["j"]: c for _, c in built if c is not None})
    return frames


def _placed_limbs(data, where, counts) -> list:
    """:class:`PlacedLimb` of each ``[[placements]]`` row (frames renamed
    ``leg + local``, placed by the mount frame, ``actuated`` local joints)."""
    limbs, out = {}, []
    for name, table in data.get("limbs", {}).items():
        bodies, joint, local_counts = {}, {k: {} for k in JOINT_VALUES}, {}
        path = ["limbs", name]
        frames = read_frames(table["frames"], "", path, where, bodies, joint, local_counts)
        closures = tuple(_closure(c, path + ["closures", i], where)
                         for i, c in enumerate(table.get("closures", ())))
        limbs[name] = (Limb(tuple(frames), bodies, closures, **joint), local_counts)
    for i, row in enumerate(data.get("placements", ())):
        path = ["placements", i]
        if row["limb"] not in limbs:
            raise where.error(path + ["limb"], f"unknown limb {row['limb']!r} "
                              f"(have {sorted(limbs)})")
        limb, local_counts = limbs[row["limb"]]
        mount = row.get("mount", {})
        values = {k: angle(mount[k], path + ["mount", k], where) for k in _ANGLES if k in mount}
        values.update({k: finite(mount[k], path + ["mount", k], where)
                       for k in _LENGTHS if k in mount})
        if "platform_rotation" in mount:
            rv = [angle(v, path + ["mount", "platform_rotation", n], where)
                  for n, v in enumerate(mount["platform_rotation"])]
            values["platform_rotation"] = tuple(map(tuple, rotation_matrix(rv)))
        try:
            out.append(limb.place(row["leg"], Mount(**values), actuated=row.get("actuated")))
        except InvalidDescriptionError as exc:
            raise where.error(path, str(exc)) from None
        counts.update({default_rename(row["leg"], j): c for j, c in local_counts.items()})
    return out


def _frame(row, leg, path, where) -> Frame:
    values = {k: angle(row[k], path + [k], where) for k in _ANGLES if k in row}
    values.update({k: finite(row[k], path + [k], where) for k in _LENGTHS if k in row})
    return Frame(row["j"], row.get("a"), sigma=int(row["sigma"]), mu=int(row.get("mu", 0)), leg=leg,
                 **values)


def _platform(table, where):
    if table is None:
        return None
    body = None
    if "body" in table:
        body, _ = body_from_table(table["body"], ["platform", "body"], where)
    dofs = tuple(int(d) for d in table["dofs"])   # the schema's enum admits 1.0 for 1
    names = tuple(table.get("dof_names", [("x", "y", "z", "rx", "ry", "rz")[d] for d in dofs]))
    if len(names) != len(dofs):
        raise where.error(["platform", "dof_names"], f"expected {len(dofs)} names, got {len(names)}")
    commanded = tuple(table["commanded"]) if "commanded" in table else None
    if commanded is not None and not set(commanded) <= set(dofs):
        raise where.error(["platform", "commanded"], f"expected dofs among {list(dofs)}, "
                                                     f"got {list(commanded)}")
    return Platform(body=body, dofs=dofs, dof_names=names, commanded=commanded)


def _closure(table, path, where) -> Closure:
    if "platform" in table and table["platform"] is not True:
        raise where.error(path + ["platform"], "expected true (the closure ends on the platform)")
    point = tuple(finite(v, path + ["platform_point", n], where)
                  for n, v in enumerate(table.get("platform_point", (0.0, 0.0, 0.0))))
    rotation = tuple(angle(v, path + ["platform_rotation", n], where)
                     for n, v in enumerate(table.get("platform_rotation", (0.0, 0.0, 0.0))))
    return Closure(table["frame"], table.get("other"), table["joint"], leg=table.get("leg", ""),
                   name=table.get("name", ""), platform_point=point, platform_rotation=rotation)


def reference(path) -> dict:
    """The ``[reference]`` table of a file: coordinate name -> value (rad
    or m), the start of the assembly (:attr:`Robot.reference`)."""
    return dict(load(path).reference)


def analysis_options(path) -> dict:
    """What a file gives beyond the :class:`Robot`: ``actuator_stiffness`` (frame name -> N/m or
    N m/rad, the ``actuator_stiffness`` keys of the frames of ``legs``, and of
    ``limbs`` for each placement (frame ``leg + local``), for
    ``natural_frequencies(..., actuator_stiffness=...)``, Eqs. 11.38-11.42)."""
    where = Where(str(path))
    try:
        data = parse(Path(path).read_text(encoding="utf-8"), where)
    except OSError as exc:
        raise InvalidDescriptionError(f"{path}: cannot read the file ({exc.strerror})") from None
    stiff = {}
    for i, leg in enumerate(data.get("legs", ())):
        stiff.update(_stiffness_keys(leg["frames"], ["legs", i], where))
    for row in data.get("placements", ()):
        limb = data.get("limbs", {}).get(row["limb"])
        if limb is not None:
            local = _stiffness_keys(limb["frames"], ["limbs", row["limb"]], where)
            stiff.update({default_rename(row["leg"], j): v for j, v in local.items()})
    return {"actuator_stiffness": stiff}


def _stiffness_keys(rows, path, where) -> dict:
    """Frame name -> its positive finite ``actuator_stiffness``, of ``rows``."""
    out = {}
    for k, row in enumerate(rows):
        if "actuator_stiffness" in row:
            here = path + ["frames", k, "actuator_stiffness"]
            value = finite(row["actuator_stiffness"], here, where)
            if value <= 0:
                raise where.error(here, f"expected a positive stiffness, got {value!r}")
            out[row["j"]] = value
    return out


# ---- writing ---------------------------------------------------------------
def dumps(robot: Robot) -> str:
    """The description file (TOML text) of a :class:`Robot`; ``loads(dumps(r))``
    rebuilds an equal description (floats written with ``repr``, exact).
    Raises :class:`InvalidDescriptionError` for a body a file cannot hold
    (a generic shape-function body)."""
    legs = []
    for f in robot.frames:
        if not legs or legs[-1]["name"] != f.leg:
            if any(leg["name"] == f.leg for leg in legs):
                raise InvalidDescriptionError(
                    f"dumps: the frames of leg {f.leg!r} are not contiguous in {robot.name}")
            legs.append({"name": f.leg, "frames": []})
        legs[-1]["frames"].append(_frame_table(robot, f))
    data = {"format": 1, "name": robot.name, "gravity": list(robot.gravity)}
    if robot.plane_normal is not None:
        data["plane_normal"] = list(robot.plane_normal)
    if robot.q_dep is not None:
        data["q_dep"] = list(robot.q_dep)
    if robot.reference:
        data["reference"] = {k: float(v) for k, v in robot.reference.items()}
    if robot.reference_fixed != "q_a":
        data["reference_fixed"] = robot.reference_fixed
    if robot.working_modes:
        data["working_modes"] = {k: "+" if v > 0 else "-" for k, v in robot.working_modes.items()}
    if robot.platform is not None:
        p = robot.platform
        data["platform"] = {"dofs": list(p.dofs), "dof_names": list(p.dof_names)}
        if p.commanded is not None:
            data["platform"]["commanded"] = list(p.commanded)
        if p.body is not None:
            data["platform"]["body"] = body_to_table(p.body)
    data["closures"] = [_closure_table(c) for c in robot.closures]
    data["legs"] = legs
    return to_toml(data)


def _frame_table(robot, f) -> dict:
    row = {"j": f.name}
    if f.antecedent is not None:
        row["a"] = f.antecedent
    row.update(sigma=f.sigma, mu=f.mu, gamma=f.gamma, b=f.b, alpha=f.alpha, d=f.d,
               theta=f.theta, r=f.r)
    for key in JOINT_VALUES:
        table = getattr(robot, key)
        if f.name in table:
            row[key] = table[f.name]
    if f.name in robot.bodies:
        row["bodies"] = [body_to_table(b) for b in robot.bodies[f.name]]
    return row


def _closure_table(c) -> dict:
    out = {"frame": c.frame}
    if c.other is None:
        out.update(platform=True, platform_point=list(c.platform_point))
        if any(c.platform_rotation):
            out["platform_rotation"] = list(c.platform_rotation)
    else:
        out["other"] = c.other
    out.update(joint=c.joint, leg=c.leg, name=c.name)
    return out


def dump(robot: Robot, path) -> None:
    """Write :func:`dumps` of ``robot`` to ``path``."""
    Path(path).write_text(dumps(robot), encoding="utf-8")
