"""``flexpkm optimise FILE.toml|CASE OPT.toml``: the design of the largest
worst-pose first natural frequency under a mass limit
(:func:`flexpkm.analysis.optimisation.optimise_design`, exact gradients);
prints the optimum, the gain and the gradient check. Writes nothing."""
from __future__ import annotations

from flexpkm.cli.common import emit


def register(subparsers, files=()):
    p = subparsers.add_parser(
        "optimise", help="design optimisation: max worst-pose f1 under a mass limit",
        description="Design optimisation: the parameters of the optimisation file (key paths "
                    "of the robot's description file, bounds) that maximise the worst first "
                    "natural frequency over its poses, under its mass limit or at equal mass "
                    "(SLSQP with exact gradients df1/dp; docs/maps.md).")
    p.add_argument("robot", metavar="FILE.toml|CASE", help="the robot's description file or a "
                                                           "shipped case")
    p.add_argument("optimisation", metavar="OPT.toml", help="the optimisation file (docs/maps.md)")
    p.set_defaults(func=run)


def run(args) -> int:
    from flexpkm.analysis.optimisation import optimise_design, read_optimisation
    from flexpkm.cli.study import robot_file
    r = optimise_design(robot_file(args.robot), **read_optimisation(args.optimisation))
    emit(args, {"parameters": list(r.names), "x0": r.x0, "x": r.x, "f1_before_hz": r.f1_before,
                "f1_after_hz": r.f1_after, "gain": r.gain, "mass_before_kg": r.mass_before,
                "mass_after_kg": r.mass_after, "active": r.active, "iterations": r.iterations,
                "success": r.success, "gradient_error": r.gradient_error},
         [f"worst f1 {r.worst_before:.6g} -> {r.worst_after:.6g} Hz ({100 * r.gain:+.4g} %), "
          f"mass {r.mass_before:.6g} -> {r.mass_after:.6g} kg, {r.iterations} iterations"
          + ("" if r.success else f" (SLSQP: {r.message})")]
         + [f"{n} = {v:.6g} (was {v0:.6g})" for n, v, v0 in zip(r.names, r.x, r.x0)]
         + [f"active poses {r.active.tolist()}; gradient vs central differences "
            f"{r.gradient_error:.2e}"])
    return 0
