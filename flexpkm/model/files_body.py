"""Bodies in description files (:mod:`flexpkm.model.files`): a TOML table
<-> a body model of :mod:`flexpkm.elements` (rigid body by Khalil's standard
inertial parameters or mass/centre/inertia, solid cylinder, point mass, planar or 3D
clamped-free beam with a section by shape or by A/Iy/Iz/J and a material by
E/nu or E/G and rho)."""
from __future__ import annotations

import math

import numpy as np

from flexpkm.elements.beam import Beam3D, Material, PlanarBeam, Section
from flexpkm.elements.rigid import RigidBody
from flexpkm.errors import InvalidDescriptionError

_STANDARD = ("XX", "XY", "XZ", "YY", "YZ", "ZZ", "MX", "MY", "MZ", "M")


def _num(table, key, path, where, positive=False, default=None):
    if key not in table:
        if default is not None:
            return default
        raise where.error(path + [key], "missing")
    v = table[key]
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise where.error(path + [key], f"expected a finite number, got {v!r}")
    if positive and v <= 0:
        raise where.error(path + [key], f"expected a positive number, got {v!r}")
    return float(v)


def body_from_table(table, path, where):
    """(body, number of elements or None) from a schema-checked body table.
    Raises InvalidDescriptionError (key path) for values the body models
    reject or that overflow (non-finite mass, stiffness or inertia)."""
    try:
        body, count = _body(table, path, where)
    except (ValueError, ArithmeticError) as exc:
        raise where.error(path, f"invalid body: {exc}") from None
    inv = body.invariants
    if not all(np.all(np.isfinite(getattr(inv, k))) for k in ("m", "ms_r", "I_rr", "K_ee", "J_ee")):
        raise where.error(path, "the body's mass, inertia or stiffness is not finite (overflow)")
    return body, count


def _body(table, path, where):
    kind = table["type"]
    if kind == "beam":
        return _beam(table, path, where), table.get("elements", 1)
    if kind == "point":
        pos = [_num({"p": v}, "p", path + ["position", i], where)
               for i, v in enumerate(table.get("position", (0.0, 0.0, 0.0)))]
        m = _num(table, "mass", path, where)
        _check_mass(m, path + ["mass"], where)
        return RigidBody.point_mass(m, pos, name=table.get("name", "point_mass")), None
    if kind == "rigid_centre":
        return _rigid_centre(table, path, where), None
    if kind == "cylinder":
        return _cylinder(table, path, where), None
    values = {k: _num(table, k, path, where, default=0.0) for k in _STANDARD}
    _check_mass(values["M"], path + ["M"], where)
    return RigidBody(**values, name=table.get("name", "rigid")), None


def _check_mass(m, path, where):
    if m < 0:
        raise where.error(path, f"expected a mass >= 0, got {m!r}")


def _rigid_centre(table, path, where):
    m = _num(table, "mass", path, where)
    _check_mass(m, path + ["mass"], where)
    xx, yy, zz, xy, xz, yz = (_num({"i": v}, "i", path + ["inertia", i], where)
                              for i, v in enumerate(table.get("inertia", [0.0] * 6)))
    I_G = np.array([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]])
    if np.linalg.eigvalsh(I_G).min() < -1e-12 * max(1.0, abs(I_G).max()):
        raise where.error(path + ["inertia"], "the inertia at the centre is not positive semi-definite")
    return _at_frame(m, _centre(table, path, where), I_G, table.get("name", "rigid"))


def _centre(table, path, where) -> np.ndarray:
    return np.array([_num({"c": v}, "c", path + ["centre", i], where)
                     for i, v in enumerate(table.get("centre", (0.0, 0.0, 0.0)))])


def _cylinder(table, path, where):
    """A solid cylinder (length L, diameter D, density rho, axis along x, y
    or z of F_j, centre c in F_j): ``m = rho pi D^2 L / 4``, at its centre
    ``m D^2 / 8`` about its axis and ``m (3 D^2 / 4 + L^2) / 12`` across."""
    length, diameter, rho = (_num(table, k, path, where, positive=True)
                             for k in ("length", "diameter", "rho"))
    r = 0.5 * diameter
    m = rho * math.pi * r ** 2 * length
    I_G = np.full(3, m * (3 * r ** 2 + length ** 2) / 12)
    I_G["xyz".index(table.get("axis", "x"))] = m * r ** 2 / 2
    return _at_frame(m, _centre(table, path, where), np.diag(I_G), table.get("name", "cylinder"))


def _at_frame(m, c, I_G, name) -> RigidBody:
    """Khalil's standard parameters at the frame origin of mass m, centre c
    (3,) and inertia I_G (3, 3) at the centre (Huygens-Steiner)."""
    I = I_G + m * (float(c @ c) * np.eye(3) - np.outer(c, c))
    return RigidBody(XX=I[0, 0], XY=I[0, 1], XZ=I[0, 2], YY=I[1, 1], YZ=I[1, 2], ZZ=I[2, 2],
                     MX=m * c[0], MY=m * c[1], MZ=m * c[2], M=m, name=name)


def _section(table, path, where) -> Section:
    shape = table.get("shape")
    pos = lambda k: _num(table, k, path, where, positive=True)   # noqa: E731
    if shape == "rectangle":
        return Section.rectangle(pos("b_y"), pos("h_z"))
    if shape in ("circle", "tube"):
        ro = (pos("diameter") if shape == "circle" else pos("outer")) / 2
        ri = 0.0 if shape == "circle" else pos("inner") / 2
        if ri >= ro:
            raise where.error(path + ["inner"], f"inner diameter {2 * ri} >= outer {2 * ro}")
        I = math.pi * (ro ** 4 - ri ** 4) / 4
        return Section(A=math.pi * (ro ** 2 - ri ** 2), Iy=I, Iz=I, I0=2 * I)
    extra = {k: pos(k) for k in ("b_y", "h_z") if k in table}
    return Section(A=pos("A"), Iy=pos("Iy"), Iz=pos("Iz"), I0=pos("J"), **extra)


def _beam(table, path, where):
    length = _num(table, "length", path, where, positive=True)
    section = _section(table["section"], path + ["section"], where)
    mt, mpath = table["material"], path + ["material"]
    nu = _num(mt, "nu", mpath, where) if "nu" in mt else None
    G = _num(mt, "G", mpath, where, positive=True) if "G" in mt else None
    if nu is not None and not -1.0 < nu < 0.5:
        raise where.error(mpath + ["nu"], f"expected -1 < nu < 0.5, got {nu!r}")
    material = Material(E=_num(mt, "E", mpath, where, positive=True),
                        rho=_num(mt, "rho", mpath, where, positive=True), nu=nu, G=G)
    planar = table.get("planar", False)
    if not planar and material.G is None:
        raise where.error(mpath, "a 3D beam needs nu or G")
    cls = PlanarBeam if planar else Beam3D
    return cls(length, section, material, name=table.get("name", "beam"))


def body_to_table(body) -> dict:
    """The TOML table of a rigid body or a beam (exact values)."""
    if isinstance(body, RigidBody):
        return {"type": "rigid", "name": body.name,
                **{k: float(v) for k, v in body.standard_parameters.items()}}
    if isinstance(body, (PlanarBeam, Beam3D)):
        s, m = body.section, body.material
        section = {"A": s.A, "Iy": s.Iy, "Iz": s.Iz, "J": s.I0}
        section.update({k: getattr(s, k) for k in ("b_y", "h_z") if getattr(s, k) is not None})
        material = {"E": m.E, "rho": m.rho}
        material.update({k: getattr(m, k) for k in ("nu", "G") if getattr(m, k) is not None})
        return {"type": "beam", "name": body.name, "planar": isinstance(body, PlanarBeam),
                "length": body.length, "elements": 1, "section": section,
                "material": material}
    raise InvalidDescriptionError(
        f"a description file cannot hold a body of type {type(body).__name__} ({body.name})")
