"""``flexpkm assemble CASE|FILE.toml [--q-a ... | --pose ...] [--all]
[--starts N] [--bound N] [--json]``: the configuration the robot assembles
in (Chapter 7: the loops closed, its working and assembly modes, Section
7.5), or with ``--all`` every real solution of the geometric problem at
that input (:mod:`flexpkm.algorithms.all_modes`): at ``--q-a`` the forward
problem (the assembly modes), at ``--pose`` the inverse one (the working
modes), with neither the forward problem at the reference's actuated
coordinates (the inverse one at the case's default pose for a shipped case
that has one)."""
from __future__ import annotations

import numpy as np

from flexpkm.cli.common import case_command, count, emit, model_of, options_of, resolve
from flexpkm.errors import InvalidArgumentError


def register(subparsers, files=()):
    case_command(subparsers, "assemble", _options, run,
                 help="the assembled configuration, or every assembly "
                      "and working mode (--all)",
                 description=__doc__.splitlines()[0],
                 files=files)


def _options(p, case):
    p.add_argument("--all", action="store_true",
                   help="every real solution: the assembly modes at the actuated coordinates, "
                        "the working modes at a pose (a certified multi-start, docs/modes.md)")
    p.add_argument("--starts", type=count, default=None, metavar="N",
                   help="with --all: at most N Newton starts (default 1024)")
    p.add_argument("--bound", type=count, default=None, metavar="N",
                   help="with --all: the known number of solutions, to say whether all were "
                        "found (default: the book's for its robots, else none)")


def run(args) -> int:
    if args.all:
        return _run_all(args)
    if args.starts is not None or args.bound is not None:
        raise InvalidArgumentError("--starts and --bound go with --all (every mode)")
    from flexpkm.algorithms.modes import mode_signature, mode_text
    case, model, options, pose, q = resolve(args)
    layout = model.layout
    modes = mode_signature(model, q).at(0)
    values = _named(model, q)
    emit(args, {"case": case.name, "robot": model.name, "modes": modes, "q_tot": values},
         [f"{model.name}: assembled, loops closed; modes {mode_text(modes)}"]
         + [f"  {name:>8} = {v:.9g} {_unit(model, layout.index(name))}" for name, v in values.items()])
    return 0


def _run_all(args):
    from flexpkm.algorithms.all_modes import assembly_modes, working_modes
    case, model = args.case, model_of(args)
    problem, target = _problem(args, case, model)
    solve = assembly_modes if problem == "forward" else working_modes
    found = solve(model, target, starts=args.starts or 1024, bound=args.bound)
    layout = model.layout
    given = _given_names(model, problem)
    shown = list(layout.commanded) if problem == "forward" else list(layout.actuated)
    names = [layout.names[c] for c in shown]
    rows = [f"  {'#':>2}  " + "  ".join(f"{n:>11}" for n in names) + f"  {'distance':>8}  modes"]
    for k in range(len(found)):
        rows.append(f"  {k + 1:>2}  " + "  ".join(f"{v:>11.6g}" for v in found.q_tot[k, shown])
                    + f"  {found.distance[k]:>8.3g}  {found.labels()[k]}")
    at = ", ".join(f"{n} = {v:g}" for n, v in zip(given, target))
    data = {"case": case.name, "robot": model.name, "problem": problem,
            "given": dict(zip(given, target)), "count": len(found), "starts": found.starts,
            "bound": found.bound, "complete": found.complete, "saturated": found.saturated,
            "solutions": [{"modes": found.modes[k], "distance": found.distance[k],
                           "residual": found.residual[k], "q_tot": _named(model, found.q_tot[k])}
                          for k in range(len(found))]}
    emit(args, data, [f"{model.name} at {at}: {found.summary()}"] + rows
         + ["  distance: to the nearest singularity (smallest singular value of the scaled "
            "loop Jacobian, 0 singular); --json gives every coordinate"])
    return 0


def _problem(args, case, model):
    """("forward", q_a) or ("inverse", commanded pose) of the command line
    (see the module doc)."""
    layout = model.layout
    pose = None if args.pose is None else np.asarray(args.pose, float)
    if getattr(args, "q_a", None) is not None:
        return "forward", np.asarray(args.q_a, float)
    if pose is not None and case.extra.get("file"):            # the file's own coordinates
        return ("forward" if model.platform is None else "inverse"), pose
    q = case.configure(model, pose, options_of(args))          # a shipped case's parameters
    if (pose is None or case.pose_option == "q-a") and layout.actuated:
        return "forward", q[list(layout.actuated)]
    return "inverse", q[list(layout.commanded)]


def _given_names(model, problem):
    layout = model.layout
    cols = layout.actuated if problem == "forward" else layout.commanded
    return [layout.names[c] for c in cols]


def _named(model, q) -> dict:
    """Joint and platform coordinates of ``q`` (n_tot,) by name (elastic
    ones left out)."""
    layout = model.layout
    cols = sorted(layout.joint_index.values()) + list(range(layout.n_t, layout.n_tot))
    return {layout.names[c]: float(q[c]) for c in cols}


def _unit(model, c):
    """``m`` or ``rad`` of the coordinate column ``c``."""
    layout = model.layout
    if c >= layout.n_t:
        dof = model.platform.dofs[c - layout.n_t]
        return "m" if dof < 3 else "rad"
    frame = model.frames[model.frame_index[layout.frame_of(c)]]
    return "m" if frame.sigma == 1 else "rad"
