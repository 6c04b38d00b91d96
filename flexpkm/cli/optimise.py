"""``flexpkm optimise FILE.toml|CASE OPT.toml [--front N --out FOLDER]``:
the design that optimises the optimisation file's objective (the
worst-pose f1 by default, or f_k, the mass, the largest platform
compliance) under its limits
(:func:`flexpkm.analysis.optimisation.optimise_design`, exact gradients);
prints the optimum, the gain and the gradient check and writes nothing.
With ``--front N`` or a ``[front]`` table: the Pareto front of the
objective vs a second criterion (:func:`flexpkm.analysis.pareto.pareto_front`),
written to FOLDER as front.csv, front.json and front.png."""
from __future__ import annotations

from pathlib import Path

from flexpkm.cli.common import count, emit
from flexpkm.cli.runs import add_force, start_run


def register(subparsers, files=()):
    p = subparsers.add_parser(
        "optimise", help="design optimisation: max worst-pose f1 (or f_k, min mass, min "
                         "compliance) under limits; Pareto fronts",
        description="Design optimisation: the parameters of the optimisation file (key paths "
                    "of the robot's description file, bounds) that optimise its objective "
                    "(worst-pose f1 by default) over its poses under its limits (SLSQP with "
                    "exact gradients; docs/optimisation.md). --front N: the Pareto front of "
                    "the objective vs the mass (or [front] against) into --out.")
    p.add_argument("robot", metavar="FILE.toml|CASE", help="the robot's description file or a "
                                                           "shipped case")
    p.add_argument("optimisation", metavar="OPT.toml",
                   help="the optimisation file (docs/optimisation.md)")
    p.add_argument("--front", type=count, metavar="N",
                   help="a Pareto front of N epsilon-constraint designs (overrides [front] points)")
    p.add_argument("--out", metavar="FOLDER", help="output folder of a front: front.csv, "
                                                   "front.json, front.png")
    p.add_argument("--no-plot", action="store_true", help="no front.png")
    add_force(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from flexpkm.analysis.optimisation import optimise_design, read_optimisation
    from flexpkm.cli.study import robot_file
    from flexpkm.errors import InvalidArgumentError
    kwargs = read_optimisation(args.optimisation)
    front = kwargs.pop("front")
    if args.front is not None or front is not None:
        if not args.out:
            raise InvalidArgumentError("a front is written to a folder: give --out FOLDER")
        return _front(args, robot_file(args.robot), kwargs, dict(front or {}))
    r = optimise_design(robot_file(args.robot), **kwargs)
    unit = {"mass": "kg", "max_compliance": ""}.get(r.objective, "Hz")
    emit(args, {"objective": r.objective, "parameters": list(r.names), "x0": r.x0, "x": r.x,
                "objective_before": r.objective_before, "objective_after": r.objective_after,
                "f1_before_hz": r.f1_before, "f1_after_hz": r.f1_after, "gain": r.gain,
                "mass_before_kg": r.mass_before, "mass_after_kg": r.mass_after,
                "active": r.active, "iterations": r.iterations, "success": r.success,
                "gradient_error": r.gradient_error},
         ([] if r.objective == "min_f1" else
          [f"{r.objective} {r.objective_before:.6g} -> {r.objective_after:.6g} {unit} "
           f"({100 * r.gain:+.4g} %)"])
         + [f"worst f1 {r.worst_before:.6g} -> {r.worst_after:.6g} Hz "
            f"({100 * (r.worst_after / r.worst_before - 1):+.4g} %), "
            f"mass {r.mass_before:.6g} -> {r.mass_after:.6g} kg, {r.iterations} iterations"
            + ("" if r.success else f" (SLSQP: {r.message})")]
         + [f"{n} = {v:.6g} (was {v0:.6g})" for n, v, v0 in zip(r.names, r.x, r.x0)]
         + [f"active poses {r.active.tolist()}; gradient vs central differences "
            f"{r.gradient_error:.2e}"])
    return 0


def _front(args, robot, kwargs, spec) -> int:
    from flexpkm.analysis.pareto import dominance_margin, pareto_front, plot_fronts, write_fronts
    owned = ("front.csv", "front.json") + (() if args.no_plot else ("front.png",))
    run_ = start_run(args.out, args, owned=owned)
    try:
        fronts = pareto_front(
            robot, kwargs["parameters"], kwargs["poses"],
            points=args.front if args.front is not None else spec.get("points", 5),
            objective=kwargs["objective"], against=spec.get("against", "mass"),
            method=spec.get("method", "epsilon"), constraints=_limits(kwargs),
            n_modes=kwargs["n_modes"], variant=kwargs["variant"],
            population=spec.get("population", 40), generations=spec.get("generations", 40),
            seed=spec.get("seed", 0))
        folder = Path(args.out)
        written = [write_fronts(fronts, folder / "front.csv"),
                   write_fronts(fronts, folder / "front.json")]
        if not args.no_plot:
            written.append(plot_fronts(fronts, folder / "front.png"))
    except BaseException as e:
        run_.fail(e)
        raise
    for path in written:
        run_.add(path)
    run_.finish("completed")
    lines = [f"wrote {', '.join(str(p) for p in written)}"]
    for f in fronts:
        lines.append(f"{f.method}: {len(f.x)} designs; " + "; ".join(
            f"{a:.6g} / {b:.6g}" for a, b in f.values) + f" ({f.criteria[0]} / {f.criteria[1]})")
    margins = {}
    if len(fronts) == 2:
        margins = {"epsilon_over_nsga2": dominance_margin(fronts[0], fronts[1]),
                   "nsga2_over_epsilon": dominance_margin(fronts[1], fronts[0])}
        lines.append("dominance margins: epsilon over NSGA-II {epsilon_over_nsga2:.2e}, "
                     "NSGA-II over epsilon {nsga2_over_epsilon:.2e}".format(**margins))
    emit(args, {"written": [str(p) for p in written], "fronts": [
        {"method": f.method, "criteria": list(f.criteria), "values": f.values, "x": f.x}
        for f in fronts], **margins}, lines)
    return 0


def _limits(kwargs) -> dict:
    from flexpkm.errors import InvalidArgumentError
    if kwargs["equal_mass"]:
        raise InvalidArgumentError("a front varies the limit: equal_mass has no meaning there")
    out = dict(kwargs["constraints"] or {})
    if kwargs["mass_limit"] is not None:
        out["mass"] = kwargs["mass_limit"]
    return out
