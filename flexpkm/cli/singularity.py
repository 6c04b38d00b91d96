"""``flexpkm singularity CASE|FILE.toml [--pose X ... | --q-a Q ...]
[--near D] [--singular D] [--json]``: the singularity analysis of one
configuration (Briot & Khalil Section 7.5, :mod:`flexpkm.algorithms.singularity`):
the scale-free distance to each kind of singularity (Type 2, per leg serial
and LPJTS, constraint, Type 3), its singular vector and the uncontrollable
platform twist t_s. Exit status 0 with the report (also at a singular
configuration); 2 for bad input; 3 when ``--q-a`` gives no locally unique
assembly (a Type 2 singularity: give ``--pose``)."""
from __future__ import annotations

import numpy as np

from flexpkm.cli.common import (case_command, emit, finite, model_of, options_of, positive)
from flexpkm.errors import InvalidArgumentError


def register(subparsers, files=()):
    case_command(subparsers, "singularity", _options, run,
                 help="distances to the singularities at a configuration (Section 7.5)",
                 description="Type 2, serial (Type 1), LPJTS, constraint and Type 3 singularities at a "
                             "pose or actuator position: scale-free distances and singular vectors.",
                 pose=False,
                 files=files)


def _options(p, case):
    from flexpkm.algorithms.singularity import NEAR, SINGULAR
    p.add_argument("--pose", nargs="+", type=finite, default=None, metavar="X",
                   help="commanded platform coordinates (m, rad) (default: the case's pose)")
    if not any(o.name == "q_a" for o in case.options):        # a file's case has its own
        p.add_argument("--q-a", dest="q_a", nargs="+", type=finite, default=None, metavar="Q",
                       help="actuated coordinates (m, rad), assembled in the reference modes")
    p.add_argument("--near", type=positive, default=NEAR,
                   help=f"distance below which a singularity is near (default {NEAR:g})")
    p.add_argument("--singular", type=finite, default=SINGULAR,
                   help=f"distance at or below which it is singular (default {SINGULAR:g})")


def configuration(args, case, model, options):
    """``(q_tot, text)`` of ``--pose`` / ``--q-a`` (the case's closed form when
    its pose option is that one, else :func:`flexpkm.assemble`), else the
    case's default pose. Raises InvalidArgumentError for a wrong count or
    both options."""
    from flexpkm.algorithms.assembly import assemble
    layout = model.layout
    if args.pose is not None and args.q_a is not None:
        raise InvalidArgumentError("give --pose or --q-a, not both")
    own = "q_a" in options                  # the case reads q_a itself (a file's case)
    for given, option, cols in ((args.pose, "pose", layout.commanded),
                                (args.q_a, "q-a", layout.actuated)):
        if given is None:
            continue
        names = (list(case.pose_names) if case.pose_option == option
                 else [layout.names[c] for c in cols])
        if len(given) != len(names):
            raise InvalidArgumentError(f"--{option}: {len(names)} values expected "
                                       f"({', '.join(names)}), got {len(given)}")
        text = ", ".join(f"{k} = {v:g}" for k, v in zip(names, given))
        values = np.asarray(given, float)
        if case.pose_option == option:
            return case.configure(model, values, options), text
        if own and option == "q-a":
            return case.configure(model, None, options), text
        return assemble(model, **{option.replace("-", "_"): values}), text
    pose = None if case.pose_default is None else np.asarray(case.pose_default, float)
    return case.configure(model, pose, options), ("the reference configuration" if pose is None
                                                  else ", ".join(f"{k} = {v:g}" for k, v in
                                                                 zip(case.pose_names, pose)))


def run(args) -> int:
    from flexpkm.algorithms.singularity import singularity
    case = args.case
    options = options_of(args)
    model = model_of(args)
    q, where = configuration(args, case, model, options)
    res = singularity(model, q_tot=q, near=args.near, singular=args.singular)
    emit(args, {"case": case.name, "configuration": where, "q_tot": dict(zip(model.layout.names, q)),
                **res.to_dict()},
         [f"{model.name} at {where}"] + res.lines())
    return 0
