"""``flexpkm check CASE|FILE.toml [--elements N]``: validates a description
and prints its coordinate counts (tree joints, elastic, platform,
constraints, actuated, independent; Section 10.3-10.4), the platform
coordinates commanded (the pose) and dependent (solved by the assembly; a
flexible model's completed platform, docs/design.md), the independent
constraint rows (redundant ones dropped, Müller Remark 2) and the dependent
coordinates chosen at its reference configuration (assembled, Chapter 7)."""
from __future__ import annotations

from flexpkm.algorithms.modal import reduced_matrices
from flexpkm.cli.common import add_case_parsers, resolve


def register(subparsers, files=()):
    p = subparsers.add_parser("check", help="validate a robot description, count its coordinates",
                              description=__doc__.splitlines()[0])
    add_case_parsers(p, "check", lambda p, case: None, files=files)
    p.set_defaults(func=run)


def counts(model, n_c=None) -> dict:
    """Coordinate counts of a model (see the module doc); ``n_c``: the
    number of independent constraint rows (default: every row)."""
    layout = model.layout
    if n_c is None:
        n_c = sum(len(rows) for rows in model.closure_rows)
    n_e = sum(s.stop - s.start for s in layout.elastic_slice.values())
    n_a = len(layout.actuated)
    n_i = layout.n_tot - n_c
    out = {"joints": len(layout.joint_index), "elastic": n_e, "platform": layout.n_p,
           "total": layout.n_tot, "constraints": n_c, "actuated": n_a,
           "independent": n_i, "independent, actuators locked": max(n_i - n_a, 0)}
    if n_a > n_i:   # redundant actuation (the DualV): the locked robot is over-constrained
        out["redundant actuators"] = n_a - n_i
    return out


def platform_line(model):
    """``"platform coordinates: commanded ...; dependent ..."`` or None
    without a platform."""
    layout = model.layout
    if model.platform is None:
        return None
    names = lambda cols: ", ".join(layout.names[c] for c in cols) or "none"
    line = f"platform coordinates: commanded {names(layout.commanded)} (the pose)"
    if layout.platform_dependent:
        line += f"; dependent {names(layout.platform_dependent)} (solved by the assembly)"
    return line


def run(args) -> int:
    case, model, options, pose, q = resolve(args)
    red = reduced_matrices(model, q)
    print(f"{model.name}: the description is valid and its configuration assembles")
    n_c = len(red.rows.kept) if red.rows is not None else None
    print(", ".join(f"{k} {v}" for k, v in counts(model, n_c).items()))
    if platform_line(model):
        print(platform_line(model))
    dep = red.dep_names
    if red.rows is not None:
        print(red.rows.summary())
    print(f"dependent coordinates ({red.choice}, {len(dep)}): {', '.join(dep)}")
    return 0
