"""Writes docs/file-format.md, the reference of the description file, from
the schema (:mod:`flexpkm.model.schema`): every table and key the schema
admits, with its type and whether it is required read from the schema, and
its unit, default, meaning and an example from :data:`KEYS` below (the
values :mod:`flexpkm.model.files` and :mod:`flexpkm.model.files_body` apply).

    python docs/scripts/file_format.py           # rewrite docs/file-format.md
    python docs/scripts/file_format.py --check   # exit 1 if it is out of date

A key added to the schema without a line in :data:`KEYS` stops the script
(and tests/test_file_format.py) with the key's name.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from flexpkm.model import schema

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "file-format.md"
#: the page's hand-written head (conventions), before the generated tables
INTRO = Path(__file__).with_name("file_format_intro.md")

#: the tables of the file in the page's order: schema object -> title
TABLES = {"ROBOT": "Top level", "LEG": "Legs", "FRAME": "Frames: one MDH row each",
          "BODY": "Bodies", "RIGID": 'Body type = "rigid"',
          "RIGID_CENTRE": 'Body type = "rigid_centre"', "POINT": 'Body type = "point"',
          "CYLINDER": 'Body type = "cylinder"', "BEAM": 'Body type = "beam"',
          "SECTION": "Beam section", "MATERIAL": "Beam material", "PLATFORM": "Platform",
          "CLOSURE": "Closures (cut joints)", "LIMB": "Limbs (Müller Section 7)",
          "PLACEMENT": "Placements of a limb", "PLACEMENT.mount": "Mount frame of a placement"}

_POSE = "platform pose"
#: (table, key) -> (unit, default, meaning, example: the TOML after ``key =``)
KEYS = {
    # ---- top level
    ("ROBOT", "name"): ("", "", "the robot's name (printed by every command)",
                        '"flexible five-bar"'),
    ("ROBOT", "format"): ("", "1", "version of the file format", "1"),
    ("ROBOT", "gravity"): ("m/s^2", "[0, 0, 0]", "gravity vector in the base frame F_0",
                           "[0.0, 0.0, -9.81]"),
    ("ROBOT", "plane_normal"): ("", "none (spatial)", "unit normal of the plane of motion of a "
                                "planar model, in F_0; every cut frame's z axis lies along it",
                                "[0.0, 0.0, 1.0]"),
    ("ROBOT", "q_dep"): ("", "chosen at the reference", "names of the dependent coordinates "
                         "to try first (the book's choice); a rank-revealing choice replaces "
                         "them when they are singular", '["q12", "q22"]'),
    ("ROBOT", "elements"): ("", "each beam's `elements`", "number of finite elements of every "
                            "beam (overrides each beam's `elements`; `--elements` overrides "
                            "this)", "2"),
    ("ROBOT", "legs"): ("", "", "the legs written out frame by frame ([Legs](#legs)); "
                        "`legs` or `placements` is required", "(array of tables)"),
    ("ROBOT", "limbs"): ("", "", "representative limbs by name, placed by `placements` "
                         "([Limbs](#limbs-muller-section-7))", "(tables `[limbs.RL]`)"),
    ("ROBOT", "placements"): ("", "", "the limbs placed as legs "
                              "([Placements](#placements-of-a-limb))", "(array of tables)"),
    ("ROBOT", "platform"): ("", "none", "the moving platform, a free body "
                            "([Platform](#platform))", "(table)"),
    ("ROBOT", "closures"): ("", "none", "cut joints closing the loops "
                            "([Closures](#closures-cut-joints))", "(array of tables)"),
    ("ROBOT", "reference"): ("rad or m", "absent coordinates: 0", "coordinate name "
                             "(`q11`, `x`, `phi`...) -> value: the start of the assembly, near "
                             "the assembly mode and working modes wanted", "{q11 = 0.0, q21 = "
                             "\"90 deg\"}"),
    ("ROBOT", "reference_fixed"): ("", '"q_a"', "what the assembly holds at the reference's "
                                   'values: `"q_a"` the actuated coordinates (forward problem) '
                                   'or `"pose"` the commanded platform coordinates (inverse '
                                   "problem); the other values are a rough guess", '"pose"'),
    ("ROBOT", "working_modes"): ("", "the reference's", 'leg name (or `"assembly"`) -> '
                                 '`"+"`/`"-"` (or 1/-1): the working mode kept by the assembly '
                                 "(signs of Section 7.5)", '{"1" = "+", "2" = "-"}'),
    ("ROBOT", "variants"): ("", "none", "`[variants.NAME]`: overrides applied by `--variant "
                            "NAME` (`name`; per frame `\"j\" = {mu, bodies, add_bodies, joint "
                            "values}`; `limbs`; `placements`), see flexpkm.model.variants",
                            '{rigid = {name = "rigid Delta"}}'),
    # ---- legs and frames
    ("LEG", "name"): ("", "", "the leg's name (messages, `working_modes`)", '"1"'),
    ("LEG", "frames"): ("", "", "the leg's MDH frames, antecedents first", "(array of tables)"),
    ("FRAME", "j"): ("", "", "the frame's name; its joint coordinate is `q` + name (`q11`), "
                     "its beam's elastic coordinates `qe` + name + `_k`", '"11"'),
    ("FRAME", "a"): ("", "the base frame F_0", "name of the antecedent frame a(j)", '"11"'),
    ("FRAME", "sigma"): ("", "", "joint type: 0 revolute (q adds to theta), 1 prismatic "
                         "(q adds to r), 2 fixed (no coordinate)", "0"),
    ("FRAME", "mu"): ("", "0", "1 actuated joint, 0 passive", "1"),
    ("FRAME", "gamma"): ("rad", "0", "rotation about z_a(j) (tree structures)", '"90 deg"'),
    ("FRAME", "b"): ("m", "0", "translation along z_a(j) (tree structures)", "0.05"),
    ("FRAME", "alpha"): ("rad", "0", "rotation about x", '"-90 deg"'),
    ("FRAME", "d"): ("m", "0", "translation along x", "0.3"),
    ("FRAME", "theta"): ("rad", "0", "rotation about the joint axis z_j (plus q for a "
                         "revolute)", "0.0"),
    ("FRAME", "r"): ("m", "0", "translation along the joint axis z_j (plus q for a "
                     "prismatic joint)", "0.0"),
    ("FRAME", "rotor_inertia"): ("kg m^2 (revolute) or kg (prismatic)", "0",
                                 "inertia of the joint's rotor (I_a)", "1e-4"),
    ("FRAME", "viscous_friction"): ("N m s/rad or N s/m", "0", "viscous friction F_v of the "
                                    "joint", "0.01"),
    ("FRAME", "coulomb_friction"): ("N m or N", "0", "Coulomb friction F_s of the joint "
                                    "(simulation)", "0.1"),
    ("FRAME", "joint_stiffness"): ("N m/rad or N/m", "0", "spring between the joint's two "
                                   "bodies", "500.0"),
    ("FRAME", "actuator_stiffness"): ("N m/rad or N/m", "none (actuator locked)",
                                      "stiffness of the actuator of this joint in the modal "
                                      "analyses (Eqs. 11.38-11.42); > 0", "2.0e4"),
    ("FRAME", "bodies"): ("", "none (massless)", "the bodies carried by the frame: at most one "
                          "beam, any number of rigid bodies and point masses "
                          "([Bodies](#bodies))", "(array of tables)"),
    # ---- bodies
    ("BODY", "type"): ("", "", "the body model, one of the five tables below", '"beam"'),
    **{("RIGID", k): ("kg m^2", "0", f"Khalil's standard parameter {k} (inertia at the "
                      "frame origin, in F_j)", "1.2e-3") for k in ("XX", "XY", "XZ", "YY",
                                                                   "YZ", "ZZ")},
    **{("RIGID", k): ("kg m", "0", f"first moment {k} = M times the centre's "
                      f"{k[1].lower()} in F_j", "0.012") for k in ("MX", "MY", "MZ")},
    ("RIGID", "type"): ("", "", "Khalil's standard inertial parameters at the frame origin",
                        '"rigid"'),
    ("RIGID", "name"): ("", '"rigid"', "the body's name (mode pictures, messages)", '"link"'),
    ("RIGID", "M"): ("kg", "", "mass, >= 0", "0.272"),
    ("RIGID_CENTRE", "type"): ("", "", "mass, centre and inertia at the centre "
                               "(Huygens-Steiner to the frame origin)", '"rigid_centre"'),
    ("RIGID_CENTRE", "name"): ("", '"rigid"', "the body's name", '"platform"'),
    ("RIGID_CENTRE", "mass"): ("kg", "", "mass, >= 0", "1.0"),
    ("RIGID_CENTRE", "centre"): ("m", "", "centre of mass in F_j", "[0.15, 0.0, 0.0]"),
    ("RIGID_CENTRE", "inertia"): ("kg m^2", "[0, 0, 0, 0, 0, 0]", "inertia at the centre, "
                                  "axes of F_j: XX, YY, ZZ, XY, XZ, YZ (positive "
                                  "semi-definite)", "[0.004, 0.004, 0.008, 0.0, 0.0, 0.0]"),
    ("POINT", "type"): ("", "", "a point mass", '"point"'),
    ("POINT", "name"): ("", '"point_mass"', "the body's name", '"payload"'),
    ("POINT", "mass"): ("kg", "", "mass, >= 0", "0.5"),
    ("POINT", "position"): ("m", "[0, 0, 0]", "position in F_j", "[0.3, 0.0, 0.0]"),
    ("CYLINDER", "type"): ("", "", "a solid cylinder, its inertia computed: m = rho pi D^2 L "
                           "/ 4, m D^2 / 8 about its axis, m (3 D^2 / 4 + L^2) / 12 across",
                           '"cylinder"'),
    ("CYLINDER", "name"): ("", '"cylinder"', "the body's name", '"upper arm"'),
    ("CYLINDER", "length"): ("m", "", "length L, > 0", "0.35"),
    ("CYLINDER", "diameter"): ("m", "", "diameter D, > 0", "0.030"),
    ("CYLINDER", "rho"): ("kg/m^3", "", "density, > 0", "2700.0"),
    ("CYLINDER", "axis"): ("", '"x"', "the axis of F_j it lies along", '"x"'),
    ("CYLINDER", "centre"): ("m", "[0, 0, 0]", "its centre in F_j", "[0.175, 0.0, 0.0]"),
    ("BEAM", "type"): ("", "", "a clamped-free Euler-Bernoulli beam along x_j from the origin "
                       "of F_j (Section 10.2, Appendix F)", '"beam"'),
    ("BEAM", "name"): ("", '"beam"', "the body's name", '"proximal 1"'),
    ("BEAM", "planar"): ("", "false", "true: planar beam in the x_j-y_j plane (u_x, u_y, "
                         "theta_z; 3 coordinates per element); false: 3D beam (6 per "
                         "element, needs `nu` or `G`)", "true"),
    ("BEAM", "length"): ("m", "", "length along x_j, > 0", "0.3"),
    ("BEAM", "elements"): ("", "1", "number of finite elements (the file's `elements` and "
                           "`--elements` override it)", "3"),
    ("BEAM", "section"): ("", "", "the cross-section ([Beam section](#beam-section))",
                          '{shape = "rectangle", b_y = 0.01, h_z = 0.02}'),
    ("BEAM", "material"): ("", "", "the material ([Beam material](#beam-material))",
                           "{E = 2.1e11, rho = 7800.0, nu = 0.3}"),
    ("SECTION", "shape"): ("", "none (A, Iy, Iz, J given)", '`"rectangle"` (b_y, h_z), '
                           '`"circle"` (diameter) or `"tube"` (outer, inner)', '"rectangle"'),
    ("SECTION", "b_y"): ("m", "", "rectangle side along y_j: in the plane of motion of a "
                         "planar beam (Iz = h_z b_y^3 / 12 bends it there)", "0.01"),
    ("SECTION", "h_z"): ("m", "", "rectangle side along z_j: across the plane of a planar "
                         "beam, along the joint axes of a planar robot (Iy = b_y h_z^3 / 12)",
                         "0.02"),
    ("SECTION", "diameter"): ("m", "", "diameter of a circle", "0.008"),
    ("SECTION", "outer"): ("m", "", "outer diameter of a tube", "0.02"),
    ("SECTION", "inner"): ("m", "", "inner diameter of a tube, < outer", "0.016"),
    ("SECTION", "A"): ("m^2", "", "area (without `shape`)", "2.0e-4"),
    ("SECTION", "Iy"): ("m^4", "", "second moment about y_j: bending in the x_j-z_j plane",
                        "6.67e-9"),
    ("SECTION", "Iz"): ("m^4", "", "second moment about z_j: bending in the x_j-y_j plane",
                        "1.67e-9"),
    ("SECTION", "J"): ("m^4", "", "torsion constant (not the polar moment)", "4.6e-9"),
    ("MATERIAL", "E"): ("Pa", "", "Young's modulus, > 0", "2.1e11"),
    ("MATERIAL", "rho"): ("kg/m^3", "", "density, > 0", "7800.0"),
    ("MATERIAL", "nu"): ("", "", "Poisson's ratio, -1 < nu < 0.5 (G = E / (2 (1 + nu)))",
                         "0.3"),
    ("MATERIAL", "G"): ("Pa", "", "shear modulus, > 0 (instead of nu)", "8.1e10"),
    # ---- platform, closures
    ("PLATFORM", "dofs"): ("", "", "the platform coordinates among the base-frame twist "
                           "components of P: 0 v_x, 1 v_y, 2 v_z, 3 w_x, 4 w_y, 5 w_z",
                           "[0, 1, 5]"),
    ("PLATFORM", "dof_names"): ("", 'from "x", "y", "z", "rx", "ry", "rz"', "one name per dof "
                                "(coordinate names of `reference`, `--pose`)",
                                '["x", "y", "phi"]'),
    ("PLATFORM", "commanded"): ("", "every dof", "the dofs the user commands (the pose of "
                                "the inverse problem); the others are solved", "[0, 1]"),
    ("PLATFORM", "body"): ("", "none (massless)", "a rigid body at P in the platform frame "
                           "F_p: a `rigid`, `rigid_centre`, `point` or `cylinder` table",
                           '{type = "point", mass = 0.272}'),
    ("CLOSURE", "frame"): ("", "", "the cut frame (a tree frame); the constraint rows are "
                           "written in it", '"13"'),
    ("CLOSURE", "other"): ("", "", "the tree frame it is cut from (or `platform = true`)",
                           '"23"'),
    ("CLOSURE", "platform"): ("", "", "true: cut from the platform (the attachment at "
                              "`platform_point`)", "true"),
    ("CLOSURE", "joint"): ("", "", "the cut joint: weld (6 rows in space, 3 in the plane), "
                           "revolute, prismatic, universal or spherical", '"revolute"'),
    ("CLOSURE", "leg"): ("", '""', "the leg it belongs to (named in messages)", '"1"'),
    ("CLOSURE", "name"): ("", '""', "its name (messages)", '"P1"'),
    ("CLOSURE", "platform_point"): ("m", "[0, 0, 0]", "the attachment in F_p (with "
                                    "`platform = true`)", "[0.1, 0.0, 0.0]"),
    ("CLOSURE", "platform_rotation"): ("rad", "[0, 0, 0]", "rotation vector of the "
                                       "platform-side cut frame in F_p (with `platform = "
                                       "true`)", '[0.0, 0.0, "120 deg"]'),
    # ---- limbs and placements
    ("LIMB", "frames"): ("", "", "the limb's frames with local names; a root frame (no `a`) "
                         "sits on the placement's mount frame", "(array of tables)"),
    ("LIMB", "closures"): ("", "none", "the limb's own cut joints, local names",
                           "(array of tables)"),
    ("PLACEMENT", "limb"): ("", "", "name of the limb in `[limbs]`", '"RL"'),
    ("PLACEMENT", "leg"): ("", "", "the leg's name; its frames are named leg + local name",
                           '"1"'),
    ("PLACEMENT", "mount"): ("", "identity", "the mount frame of this leg on the base "
                             "([Mount](#mount-frame-of-a-placement))", '{gamma = "120 deg"}'),
    ("PLACEMENT", "actuated"): ("", "the limb's `mu`", "local names of the actuated joints of "
                                "this leg", '["1"]'),
    **{("PLACEMENT.mount", k): (u, "0", f"MDH {k} of the mount frame in F_0", e)
       for k, u, e in (("gamma", "rad", '"120 deg"'), ("b", "m", "0.0"),
                       ("alpha", "rad", "0.0"), ("d", "m", "0.2"), ("theta", "rad", "0.0"),
                       ("r", "m", "0.0"))},
    ("PLACEMENT.mount", "platform_rotation"): ("rad", "none", "rotation vector of the "
                                               "platform mount frame in F_p (applied to the "
                                               "limb's `platform_point`s)",
                                               '[0.0, 0.0, "120 deg"]'),
}


def named_objects() -> dict:
    """name -> table of the schema (its module-level tables, and
    ``PLACEMENT.mount``, the one inline table with keys)."""
    tables = {k: v for k, v in vars(schema).items() if isinstance(v, dict) and "properties" in v}
    tables["PLACEMENT.mount"] = schema.PLACEMENT["properties"]["mount"]
    return tables


def walk(node, path, found, names):
    """Fill ``found``: object name -> the key paths where the schema admits
    it (``legs[].frames[]``)."""
    if not isinstance(node, dict):
        return
    if "properties" in node:
        name = names.get(id(node))
        if name is None:
            raise SystemExit(f"file_format.py: the schema has an unnamed table at {path}: "
                             "name it in flexpkm/model/schema.py or in named_objects()")
        if path in found.setdefault(name, []):
            return
        found[name].append(path)
        for key, sub in node["properties"].items():
            walk(sub, f"{path}.{key}".lstrip("."), found, names)
    if isinstance(node.get("items"), dict):
        walk(node["items"], path + "[]", found, names)
    if isinstance(node.get("additionalProperties"), dict):
        walk(node["additionalProperties"], path + ".NAME", found, names)
    for branch in node.get("allOf", ()):
        walk(branch.get("then"), path, found, names)
    for branch in [*node.get("anyOf", ()), *node.get("oneOf", ())]:
        walk(branch, path, found, names)


def header(path: str) -> str:
    """``legs[].frames[]`` -> ``[[legs.frames]]``; ``platform`` -> ``[platform]``."""
    if not path:
        return "top level"
    bare = path.replace("[]", "")
    return f"`[[{bare}]]`" if path.endswith("[]") else f"`[{bare}]`"


def code(default: str) -> str:
    """A default as code when it is a value (``[0, 0, 0]``), as words else."""
    value = default and (not default[0].isalpha() or default in ("true", "false"))
    return f"`{default}`" if value else default


def toml(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return f'"{value}"' if isinstance(value, str) else repr(value)


def type_of(s, names) -> str:
    """The schema's type of a key, in words."""
    if s is schema.ANGLE:
        return 'angle: number (rad) or "x deg"'
    if "const" in s:
        return toml(s["const"])
    if "enum" in s:
        return "one of " + ", ".join(toml(v) for v in s["enum"])
    if "anyOf" in s:
        return "table: " + ", ".join(names[id(b)].lower() for b in s["anyOf"]) + " body"
    kind = s.get("type")
    if kind == "array":
        item = type_of(s.get("items", {}), names)
        size = s.get("minItems")
        if size is not None and size == s.get("maxItems"):
            return f"array of {size} ({item})"
        return f"array of ({item})" + (f", at least {size}" if size else "") \
            + (", unique" if s.get("uniqueItems") else "")
    if kind == "object":
        extra = s.get("additionalProperties")
        if id(s) in names:
            return "table"
        if isinstance(extra, dict):
            return f"table of NAME = ({type_of(extra, names)})"
        return "table"
    if kind == "integer" and "minimum" in s:
        return f"integer >= {s['minimum']}"
    if kind == "string" and s.get("minLength"):
        return "string, not empty"
    return kind if isinstance(kind, str) else " or ".join(kind)


def alternatives(obj) -> str:
    """The schema's 'one of these keys' rules of a table, in words."""
    out = []
    for word, rule in (("one of", "oneOf"), ("at least one of", "anyOf")):
        sets = [b["required"] for b in obj.get(rule, ()) if "required" in b]
        if sets:
            out.append(f"Requires {word}: " + "; ".join(
                " + ".join(f"`{k}`" for k in keys) for keys in sets) + ".")
    return " ".join(out)


def table(name, obj, paths, names) -> list:
    """The page's section of one schema table."""
    required = set(obj.get("required", ()))
    where = ", ".join(header(p) for p in paths)
    lines = [f"## {TABLES[name]}", "", f"Where: {where}.", ""]
    if alternatives(obj):
        lines += [alternatives(obj), ""]
    lines += ["| key | type | required | unit | default | meaning | example |",
              "|---|---|---|---|---|---|---|"]
    for key, sub in obj["properties"].items():
        if (name, key) not in KEYS:
            raise SystemExit(f"file_format.py: the schema key {name}.{key} is not documented: "
                             f"add ({name!r}, {key!r}) to KEYS in docs/scripts/file_format.py")
        unit, default, meaning, example = KEYS[name, key]
        cells = [f"`{key}`", type_of(sub, names), "yes" if key in required else "", unit,
                 code(default), meaning, example if example[0] == "(" else f"`{key} = {example}`"]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return lines + [""]


def render() -> str:
    """The text of docs/file-format.md."""
    tables = named_objects()
    names = {id(v): k for k, v in tables.items()}
    found = {}
    walk(schema.ROBOT, "", found, names)
    missing = set(found) - set(TABLES)
    if missing:
        raise SystemExit(f"file_format.py: tables {sorted(missing)} have no title in TABLES")
    stale = {k for k in KEYS if k[0] not in found
             or k[1] not in tables[k[0]]["properties"]}
    if stale:
        raise SystemExit(f"file_format.py: KEYS documents keys the schema no longer has: "
                         f"{sorted(stale)}")
    lines = [HEAD + INTRO.read_text(encoding="utf-8")]
    for name in TABLES:
        lines += table(name, tables[name], found[name], names)
    return "\n".join(lines).rstrip() + "\n"




HEAD = """\
<!-- Generated by docs/scripts/file_format.py from flexpkm/model/schema.py and
     docs/scripts/file_format_intro.md: do not edit; run
     `python docs/scripts/file_format.py` after changing the schema. -->
"""


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--check", action="store_true", help="exit 1 if the page is out of date")
    args = p.parse_args(argv)
    text = render()
    if args.check:
        same = PAGE.exists() and PAGE.read_text(encoding="utf-8") == text
        print("docs/file-format.md is " + ("up to date" if same else "out of date"))
        return 0 if same else 1
    PAGE.write_text(text, encoding="utf-8")
    print(f"wrote {PAGE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
