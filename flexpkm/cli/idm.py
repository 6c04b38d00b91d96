"""``flexpkm idm CASE --from POSE --to POSE --duration T [--rate HZ]
[--weights W ...] [--no-friction] [--wrench FX FY FZ MX MY MZ] --out DIR
[--force]``: actuator efforts along a straight platform path with the
quintic law (rigid models, Sections 8.4-8.5; minimum-norm efforts with
actuation redundancy, Eq. 8.148), under an optional constant wrench on the
platform (at P, base frame; Section 6.4), with the ground reactions (8.206)
and the energies (8.218)-(8.220) in ``idm.npz``, with the distances to the
singularities (:mod:`flexpkm.algorithms.singularity`) per sample: a warning
line near one, exit status 3 at one or across one. A case
may fix options for it (``extra["idm_options"]``: the Delta's rigid model).
The output folder follows the rules of every writing command (its
``run.json``, lock, ``--force``: docs/robustness.md)."""
from __future__ import annotations

import time

from flexpkm.cli.common import (add_backend, case_command, add_path_options, add_wrench,
                                backend_text, can_plot, emit, options_of, positive)
from flexpkm.cli.runs import add_force, interrupts_deferred, start_run

#: the files of ``idm`` in its output folder (replaced with --force)
OWNED = ("idm.*",)


def register(subparsers, files=()):
    case_command(subparsers, "idm", _options, run,
                 help="actuator efforts along a straight platform path (rigid robots)",
                 description="Inverse dynamic model along the straight path --from -> --to of the "
                             "platform, s = 10 tau^3 - 15 tau^4 + 6 tau^5, sampled at --rate.",
                 pose=False,
                 only=lambda c: c.extra.get("idm", False),
                 files=files)


def _options(p, case):
    add_path_options(p, case)
    p.add_argument("--duration", type=positive, required=True, help="duration of the motion, s")
    p.add_argument("--rate", type=positive, default=1000.0, help="sampling rate, Hz (default 1000)")
    p.add_argument("--weights", nargs="+", type=positive, default=None, metavar="W",
                   help="diagonal of W of the weighted minimum-norm efforts (actuation "
                        "redundancy; default: W = 1, the minimum norm)")
    p.add_argument("--no-friction", action="store_true", help="no joint friction (default: on)")
    add_wrench(p)
    p.add_argument("--out", default="out", help="output directory (default out)")
    add_backend(p)
    add_force(p)


def run(args) -> int:
    from flexpkm.algorithms.reference import build_model
    from flexpkm.analysis.idm import path_inverse_dynamics
    from flexpkm.io.idm_output import write_idm
    case = args.case
    options = {**options_of(args), **case.extra.get("idm_options", {})}
    robot = case.robot(options)
    plot = can_plot("idm.png")
    run_ = start_run(args.out, args, robot, OWNED)          # before computing
    try:
        model = build_model(robot)
        t0 = time.perf_counter()
        res = path_inverse_dynamics(model, lambda poses: case.configure(model, poses, options),
                                    args.start, args.stop, args.duration, rate=args.rate,
                                    weights=args.weights, friction=not args.no_friction,
                                    wrench=args.wrench,
                                    backend=args.backend)
        wall = time.perf_counter() - t0
        run_.note(samples=len(res.t), backend=res.backend, backend_reason=res.backend_reason)
        with interrupts_deferred():
            files = write_idm(res, args.out, model.name, run=run_, plot=plot)
    except BaseException as e:
        run_.fail(e)
        raise
    run_.finish("completed")
    tau_max = abs(res.tau).max(axis=0)
    peak = ", ".join(f"{n} {v:.4g}" for n, v in zip(res.names, tau_max))
    near = {n: float(d) for n, d in zip(res.distance_names, res.distances.min(axis=0))}
    emit(args, {"case": case.name, "samples": len(res.t), "duration_s": args.duration,
                "seconds": wall, "tau_max": dict(zip(res.names, tau_max)),
                "smallest_distance": near,
                "backend": res.backend, "backend_reason": res.backend_reason, "written": files},
         [f"{model.name}: {len(res.t)} samples over {args.duration:g} s in {wall:.2f} s; "
          f"max |tau|: {peak}",
          "smallest distance to a singularity: "
          + (", ".join(f"{n} {d:.3g}" for n, d in near.items()) or "none measured"),
          backend_text(res)] + [f"wrote {f}" for f in files])
    return 0
