"""JSON schema of the robot description file (TOML, see
:mod:`flexpkm.model.files`). Structure and types only; the values (finite
numbers, positive sizes, angles with a ``deg`` suffix, antecedents defined
before use) are checked while the :class:`Robot` is built."""
from __future__ import annotations

NUMBER = {"type": "number"}
#: an angle: radians, or a string "<x> deg"
ANGLE = {"type": ["number", "string"]}
VEC3 = {"type": "array", "items": NUMBER, "minItems": 3, "maxItems": 3}
NAME = {"type": "string", "minLength": 1}

_RIGID_KEYS = {k: NUMBER for k in ("XX", "XY", "XZ", "YY", "YZ", "ZZ", "MX", "MY", "MZ", "M")}

RIGID = {
    "type": "object", "additionalProperties": False, "required": ["type", "M"],
    "properties": {"type": {"const": "rigid"}, "name": {"type": "string"}, **_RIGID_KEYS},
}
#: mass, centre of mass in F_j and inertia at the centre (XX, YY, ZZ, XY, XZ, YZ)
RIGID_CENTRE = {
    "type": "object", "additionalProperties": False, "required": ["type", "mass", "centre"],
    "properties": {"type": {"const": "rigid_centre"}, "name": {"type": "string"},
                   "mass": NUMBER, "centre": VEC3,
                   "inertia": {"type": "array", "items": NUMBER, "minItems": 6, "maxItems": 6}},
}
POINT = {
    "type": "object", "additionalProperties": False, "required": ["type", "mass"],
    "properties": {"type": {"const": "point"}, "name": {"type": "string"}, "mass": NUMBER,
                   "position": VEC3},
}
#: a solid cylinder of density rho along the carrying frame's x, y or z, its
#: centre in F_j (its inertia computed, not written)
CYLINDER = {
    "type": "object", "additionalProperties": False,
    "required": ["type", "length", "diameter", "rho"],
    "properties": {"type": {"const": "cylinder"}, "name": {"type": "string"},
                   "length": NUMBER, "diameter": NUMBER, "rho": NUMBER,
                   "axis": {"enum": ["x", "y", "z"]}, "centre": VEC3},
}
SECTION = {
    "type": "object", "additionalProperties": False,
    "properties": {"shape": {"enum": ["rectangle", "circle", "tube"]},
                   "b_y": NUMBER, "h_z": NUMBER, "diameter": NUMBER, "outer": NUMBER,
                   "inner": NUMBER, "A": NUMBER, "Iy": NUMBER, "Iz": NUMBER, "J": NUMBER},
    "oneOf": [{"required": ["shape"]}, {"required": ["A", "Iy", "Iz", "J"],
                                        "not": {"required": ["shape"]}}],
}
MATERIAL = {
    "type": "object", "additionalProperties": False, "required": ["E", "rho"],
    "properties": {"E": NUMBER, "rho": NUMBER, "nu": NUMBER, "G": NUMBER},
}
BEAM = {
    "type": "object", "additionalProperties": False,
    "required": ["type", "length", "section", "material"],
    "properties": {"type": {"const": "beam"}, "name": {"type": "string"},
                   "planar": {"type": "boolean"}, "length": NUMBER,
                   "elements": {"type": "integer", "minimum": 1},
                   "section": SECTION, "material": MATERIAL},
}
BODY = {"type": "object", "required": ["type"],
        "properties": {"type": {"enum": ["rigid", "rigid_centre", "point", "beam", "cylinder"]}},
        "allOf": [{"if": {"properties": {"type": {"const": t}}}, "then": s}
                  for t, s in (("rigid", RIGID), ("rigid_centre", RIGID_CENTRE),
                               ("point", POINT), ("beam", BEAM), ("cylinder", CYLINDER))]}

JOINT_VALUES = ("rotor_inertia", "viscous_friction", "coulomb_friction", "joint_stiffness")
FRAME = {
    "type": "object", "additionalProperties": False, "required": ["j", "sigma"],
    "properties": {
        "j": NAME, "a": NAME, "sigma": {"enum": [0, 1, 2]}, "mu": {"enum": [0, 1]},
        "gamma": ANGLE, "b": NUMBER, "alpha": ANGLE, "d": NUMBER, "theta": ANGLE, "r": NUMBER,
        **{k: NUMBER for k in JOINT_VALUES}, "actuator_stiffness": NUMBER,
        "bodies": {"type": "array", "items": BODY},
    },
}
LEG = {
    "type": "object", "additionalProperties": False, "required": ["name", "frames"],
    "properties": {"name": {"type": "string"},
                   "frames": {"type": "array", "items": FRAME, "minItems": 1}},
}
CLOSURE = {
    "type": "object", "additionalProperties": False, "required": ["frame", "joint"],
    "properties": {"frame": NAME, "other": NAME, "platform": {"type": "boolean"},
                   "joint": {"enum": ["weld", "revolute", "prismatic", "universal", "spherical"]},
                   "leg": {"type": "string"}, "name": {"type": "string"},
                   "platform_point": VEC3,
                   "platform_rotation": {"type": "array", "items": ANGLE, "minItems": 3,
                                         "maxItems": 3}},
    "oneOf": [{"required": ["other"]}, {"required": ["platform"]}],
}
PLATFORM = {
    "type": "object", "additionalProperties": False, "required": ["dofs"],
    "properties": {"dofs": {"type": "array", "items": {"enum": [0, 1, 2, 3, 4, 5]},
                            "minItems": 1, "maxItems": 6, "uniqueItems": True},
                   "dof_names": {"type": "array", "items": NAME},
                   "commanded": {"type": "array", "items": {"enum": [0, 1, 2, 3, 4, 5]},
                                 "minItems": 1, "maxItems": 6, "uniqueItems": True},
                   "body": {"anyOf": [RIGID, RIGID_CENTRE, POINT, CYLINDER]}},
}
#: a representative limb (Müller Section 7): local frame names; its root frames
#: (no ``a``) sit on the mount frame of each placement
LIMB = {
    "type": "object", "additionalProperties": False, "required": ["frames"],
    "properties": {"frames": {"type": "array", "items": FRAME, "minItems": 1},
                   "closures": {"type": "array", "items": CLOSURE}},
}
PLACEMENT = {
    "type": "object", "additionalProperties": False, "required": ["limb", "leg"],
    "properties": {"limb": NAME, "leg": NAME,
                   "mount": {"type": "object", "additionalProperties": False,
                             "properties": {"gamma": ANGLE, "b": NUMBER, "alpha": ANGLE,
                                            "d": NUMBER, "theta": ANGLE, "r": NUMBER,
                                            "platform_rotation": {
                                                "type": "array", "items": ANGLE,
                                                "minItems": 3, "maxItems": 3}}},
                   "actuated": {"type": "array", "items": NAME}},
}
ROBOT = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object", "additionalProperties": False, "required": ["name"],
    "anyOf": [{"required": ["legs"]}, {"required": ["placements"]}],
    "properties": {
        "name": {"type": "string"}, "format": {"const": 1},
        "gravity": VEC3, "plane_normal": VEC3,
        "q_dep": {"type": "array", "items": NAME},
        "elements": {"type": "integer", "minimum": 1},
        "legs": {"type": "array", "items": LEG, "minItems": 1},
        "limbs": {"type": "object", "additionalProperties": LIMB},
        "placements": {"type": "array", "items": PLACEMENT, "minItems": 1},
        "platform": PLATFORM,
        "closures": {"type": "array", "items": CLOSURE},
        "reference": {"type": "object", "additionalProperties": ANGLE},
        "reference_fixed": {"enum": ["q_a", "pose"]},
        "working_modes": {"type": "object", "additionalProperties": {"enum": ["+", "-", 1, -1]}},
        "variants": {"type": "object"},
    },
}
