"""The standard dynamic parameters of a rigid robot (Briot & Khalil
(8.232), (8.262)): per link ``ij`` of the virtual tree ``chi_ij^st = [XX XY
XZ YY YZ ZZ MX MY MZ M IA FV FS]`` (Khalil's convention, at O_ij in F_ij,
:mod:`flexpkm.elements.rigid`), and the platform's ten ``chi_p``.

The symbols are the parameter's name followed by the file's frame name
(``ZZ11``, ``MX12``, ``FV32``...) or ``P`` for the platform (``MP``).
Every moving frame (revolute or prismatic joint) is a link, whether or not
the file gives it a body (its parameters are then 0); a fixed frame is one
only when it carries a body. ``IA`` is the rotor inertia of each actuated
joint (and of any joint the file gives one), ``FV``, ``FS`` the viscous
and Coulomb friction of every joint (8.261).

The columns are ordered as (8.274): the platform first, then, for legs of
one structure, each parameter of a leg's links for every leg in turn (the
symmetric base parameters of Section 8.7.4); legs of different structures
are taken leg after leg.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from flexpkm.errors import InvalidArgumentError
from flexpkm.model.description import FIXED

#: the ten inertial parameters of a body (8.232), in order
INERTIAL = ("XX", "XY", "XZ", "YY", "YZ", "ZZ", "MX", "MY", "MZ", "M")
#: the joint parameters of a link (8.262): rotor inertia, viscous and Coulomb friction
JOINT = ("IA", "FV", "FS")
#: the platform's symbol suffix
PLATFORM = "P"


@dataclass(frozen=True, eq=False)
class StandardParameters:
    """The standard parameters of a model, in the column order of the
    regressor.

    symbols : (n_st,) e.g. ``"ZZ11"``, ``"MP"``
    values : (n_st,) the file's values (SI: kg m^2, kg m, kg, N s/m or
        N m s/rad, N or N m)
    kinds : (n_st,) ``"XX" ... "FS"``
    frames : (n_st,) frame index of a link's parameter, -1 for the platform
    """

    symbols: tuple
    values: np.ndarray
    kinds: tuple
    frames: tuple

    def index(self, symbol: str) -> int:
        """The column of ``symbol``. Raises :class:`InvalidArgumentError`."""
        try:
            return self.symbols.index(symbol)
        except ValueError:
            raise InvalidArgumentError(f"no standard parameter {symbol!r} (the model has "
                                       f"{', '.join(self.symbols[:6])}...)") from None


def link_frames(model) -> list:
    """Indices of the frames that are links: every joint, and the fixed
    frames carrying a body."""
    return [j for j, f in enumerate(model.frames)
            if f.sigma != FIXED or model.bodies.get(f.name)]


def _leg_groups(model, links) -> list:
    """Links grouped by leg, in frame order (frames of no leg: one group each)."""
    groups, where = [], {}
    for j in links:
        leg = model.frames[j].leg
        if not leg:
            groups.append([j])
        elif leg in where:
            groups[where[leg]].append(j)
        else:
            where[leg] = len(groups)
            groups.append([j])
    return groups


def _joint_kinds(model, j) -> tuple:
    f = model.frames[j]
    if f.sigma == FIXED:
        return ()
    ia = ("IA",) if f.mu == 1 or f.name in model.rotor_inertia else ()
    return ia + ("FV", "FS")


def _link_value(model, j, kind) -> float:
    name = model.frames[j].name
    if kind == "IA":
        return float(model.rotor_inertia.get(name, 0.0))
    if kind in ("FV", "FS"):
        table = model.viscous_friction if kind == "FV" else model.coulomb_friction
        return float(table.get(name, 0.0))
    return sum(body.standard_parameters[kind] for body in model.bodies.get(name, ()))


def standard_parameters(model) -> StandardParameters:
    """The :class:`StandardParameters` of a rigid model (see the module)."""
    links = link_frames(model)
    groups = _leg_groups(model, links)
    per_link = {j: [*INERTIAL, *_joint_kinds(model, j)] for j in links}
    same = len({tuple(tuple(per_link[j]) for j in g) for g in groups}) == 1 and len(groups) > 1
    order = []                                   # (frame, kind)
    if same:                                     # (8.274): parameter k of every leg in turn
        for pos in range(len(groups[0])):
            for kind in per_link[groups[0][pos]]:
                order += [(g[pos], kind) for g in groups]
    else:
        order = [(j, kind) for g in groups for j in g for kind in per_link[j]]
    plat = [(-1, kind) for kind in INERTIAL] if model.platform is not None else []
    body = model.platform.body if model.platform is not None else None
    p_values = [body.standard_parameters[k] if body is not None else 0.0 for _, k in plat]
    symbols = tuple(f"{k}{PLATFORM}" for _, k in plat) \
        + tuple(f"{k}{model.frames[j].name}" for j, k in order)
    values = np.array(p_values + [_link_value(model, j, k) for j, k in order], dtype=float)
    entries = plat + order
    return StandardParameters(symbols, values, tuple(k for _, k in entries),
                              tuple(j for j, _ in entries))
