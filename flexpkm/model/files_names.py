"""Unique names in a description file (issue 16 item 6): the legs of
``[[legs]]`` and ``[[placements]]``, and the key paths of the two owners of a
:class:`flexpkm.errors.NameCollisionError` raised while the Robot is made."""
from __future__ import annotations

import copy

from flexpkm.errors import NameCollisionError


def key_path(path) -> str:
    """``["legs", 2, "frames", 3, "alpha"]`` -> ``legs[2].frames[3].alpha``."""
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out or "<top>"


def unique_legs(data, where) -> None:
    """Leg names of ``legs`` and ``placements`` are unique (NameCollisionError)."""
    seen = {}
    paths = ([["legs", i, "name"] for i in range(len(data.get("legs", ())))]
             + [["placements", i, "leg"] for i in range(len(data.get("placements", ())))])
    for path in paths:
        name = data[path[0]][path[1]][path[2]]
        if name in seen:
            raise NameCollisionError(f"{where.source}: {key_path(path)}: leg {name!r} is already "
                                     f"named at {key_path(seen[name])}", name=name,
                                     things=(("leg", name), ("leg", name)))
        seen[name] = path


def located(exc, data):
    """``exc`` with the key paths of a :class:`NameCollisionError`'s two
    owners appended (frames of ``legs``, ``platform.dof_names``, ``closures``)."""
    if not isinstance(exc, NameCollisionError):
        return exc
    rows = [(row["j"], ["legs", i, "frames", k]) for i, leg in enumerate(data.get("legs", ()))
            for k, row in enumerate(leg["frames"])]
    found = []
    for kind, key in exc.things:
        if kind == "platform":
            found.append(["platform", "dof_names", key])
        elif kind == "closure" and key < len(data.get("closures", ())):
            found.append(["closures", key])
        elif kind in ("frame", "elastic"):
            paths = [path + (["j"] if kind == "frame" else ["bodies"]) for j, path in rows
                     if j == key and path + ["j"] not in found]
            found += paths[:1]
    if not found:
        return exc
    new = copy.copy(exc)
    new.args = (f"{exc} (at {' and '.join(key_path(p) for p in found)})",) + exc.args[1:]
    return new
