"""``flexpkm check CASE|FILE.toml [--elements N]``: validates a description
and prints its coordinate counts (tree joints, elastic, platform,
constraints, actuated, independent; Section 10.3-10.4), its mobility
(Appendix A: the generic rank over random configurations), the platform
coordinates commanded (the pose) and dependent (solved by the assembly; a
flexible model's completed platform, docs/design.md), the independent
constraint rows (redundant ones dropped, Müller Remark 2) and the dependent
coordinates chosen at its reference configuration (assembled, Chapter 7).
For a file with ``--pose`` (``--working-modes`` + or - per leg: other working
modes than the reference's, Section 7.5) it also prints the configuration's
working modes and a ``[reference]`` table of it, to paste into the file."""
from __future__ import annotations

import numpy as np

from flexpkm.cli.common import case_command, emit, model_of, options_of, resolve
from flexpkm.errors import InvalidArgumentError


def register(subparsers, files=()):
    case_command(subparsers, "check", _add_options, run,
                 help="validate a robot description, count its coordinates",
                 description=__doc__.splitlines()[0],
                 files=files)


def _add_options(p, case):
    if case.extra.get("file"):
        p.add_argument("--working-modes", dest="modes_wanted", nargs="+", choices=("+", "-"), metavar="+|-",
                       help="working mode of each leg at --pose (+ or -, the sign of the "
                            "determinant of the leg's Jacobian, Section 7.5; default the "
                            "reference's)")


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


def mobility_line(model, n_c=None) -> str:
    """The mobility (Appendix A: the generic rank of J_c over random
    configurations, :func:`flexpkm.algorithms.mobility.mobility`), and, for
    a rigid model, a warning when this configuration's independent rows
    ``n_c`` are fewer than the generic rank (a singular configuration)."""
    from flexpkm.algorithms.mobility import mobility
    from flexpkm.errors import SingularConfigurationError
    try:
        m = mobility(model)
    except SingularConfigurationError as e:     # loops closed at < 2 random configurations
        return f"mobility (Appendix A): not determined ({e})"
    line = m.summary()
    if not model.layout.elastic_slice and n_c is not None and n_c < m.rank:
        line += (f"; at this configuration J_c has rank {n_c} < {m.rank}: a singular "
                 f"configuration (the count here would be {m.n_rigid - n_c})")
    return line


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
    from flexpkm.algorithms.assembly import assemble, reference_configuration
    from flexpkm.algorithms.modal import reduced_matrices
    from flexpkm.algorithms.modes import mode_signature, mode_text, parse_modes
    if getattr(args, "modes_wanted", None):
        if args.pose is None:
            raise InvalidArgumentError(f"--working-modes needs --{args.case.pose_option}")
        case, model, options, pose = args.case, model_of(args), options_of(args), args.pose
        wanted = parse_modes(args.modes_wanted, mode_signature(model, reference_configuration(model)).legs)
        problem = "pose" if model.platform is not None else "q_a"
        q = assemble(model, modes=wanted, **{problem: np.asarray(pose, float)})
    else:
        case, model, options, pose, q = resolve(args)
    red = reduced_matrices(model, q)
    n_c = len(red.rows.kept) if red.rows is not None else None
    dep = red.dep_names
    mobility = mobility_line(model, n_c)
    lines = [f"{model.name}: the description is valid and its configuration assembles",
             f"checked: {checked(case)}",
             ", ".join(f"{k} {v}" for k, v in counts(model, n_c).items()), mobility]
    lines += [platform_line(model)] if platform_line(model) else []
    lines += [red.rows.summary()] if red.rows is not None else []
    lines.append(f"dependent coordinates ({red.choice}, {len(dep)}): {', '.join(dep)}")
    data = {"case": case.name, "robot": model.name, "valid": True, "checked": checked(case),
            "counts": counts(model, n_c), "mobility": mobility, "dependent_choice": red.choice,
            "dependent_coordinates": list(dep)}
    if pose is not None and case.extra.get("file"):
        data["working_modes"] = mode_text(mode_signature(model, q).at(0))
        data["reference"] = reference_table(model, q)
        lines += [f"modes at this pose: {data['working_modes']}", data["reference"]]
    emit(args, data, lines)
    return 0


def reference_table(model, q_tot) -> str:
    """A ``[reference]`` TOML table of the configuration ``q_tot`` (n_tot,):
    the joint and platform coordinates (revolute angles in (-pi, pi], rad;
    m), 17 significant digits; elastic coordinates left out (0)."""
    layout = model.layout
    lines = ["[reference]"]
    revolute = {layout.joint_index[f.name] for f in model.frames
                if f.name in layout.joint_index and f.sigma == 0}
    for c in sorted(layout.joint_index.values()) + list(range(layout.n_t, layout.n_tot)):
        v = float(q_tot[c])
        if c in revolute:
            v = float(np.pi - (np.pi - v) % (2 * np.pi))
        lines.append(f"{layout.names[c]} = {v!r}")
    return "\n".join(lines)


def checked(case) -> str:
    """Which robot ``check`` checked: the file named on the command line,
    or the shipped case's name and its file in the package."""
    from flexpkm.cases.shipped import FILES, file_of
    if case.name in FILES and case.source == str(file_of(case.name)):
        return f"the shipped case {case.name} (flexpkm/cases/{FILES[case.name]})"
    return f"the description file {case.source}"
