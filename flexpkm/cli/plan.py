"""``flexpkm plan CASE|FILE --from POSE --to POSE --duration T [--cross
[--crossing-time TS] [--through C ...]] [--rate HZ] [--no-friction] --out
DIR [--force]``: a rest-to-rest law of the platform along the path
--from -> --to and the rigid actuator efforts along it (Briot & Khalil
Chapter 9, Appendix D). Without ``--cross`` the law is the quintic (D.13),
refused (exit 3) where it crosses a Type 2 or LPJTS singularity without
meeting the criterion; with ``--cross`` it is planned through the
singularity the straight path meets (:func:`flexpkm.analysis.crossing_plan.plan_crossing`).
Writes ``DIR/plan.csv`` (t, the pose, q_a, tau per sample) and
``DIR/plan.json`` (the crossing and the law's coefficients), under the
rules of every writing command (docs/robustness.md)."""
from __future__ import annotations

import json

from flexpkm.cli.common import (case_command, add_path_options, emit, json_safe, options_of,
                                positive)
from flexpkm.cli.runs import add_force, interrupts_deferred, start_run

#: the files of ``plan`` in its output folder (replaced with --force)
OWNED = ("plan.*",)


def register(subparsers, files=()):
    case_command(subparsers, "plan", _options, run,
                 help="a law along a platform path, through a singularity with --cross",
                 description="Rest-to-rest law --from -> --to in --duration s and the rigid efforts "
                             "along it; --cross plans it through the Type 2 or LPJTS singularity on "
                             "the straight path with finite efforts (Chapter 9).",
                 pose=False,
                 only=lambda c: c.extra.get("idm", False),
                 files=files)


def _point(text: str) -> float:
    return float("nan") if text == "free" else float(text)


def _options(p, case):
    add_path_options(p, case)
    p.add_argument("--duration", type=positive, required=True, help="duration of the motion, s")
    p.add_argument("--cross", action="store_true",
                   help="plan the law through the singularity on the path (default: quintic)")
    p.add_argument("--crossing-time", type=positive, default=None, metavar="TS",
                   help="time of the crossing, s (default: the quintic's time at the path's "
                        "crossing)")
    p.add_argument("--through", nargs=len(case.pose_names), type=_point, default=None,
                   metavar=tuple(n.upper() for n in case.pose_names),
                   help="crossing point: the pose with one component 'free', found on the "
                        "singular locus (default: where the straight path meets it)")
    p.add_argument("--rate", type=positive, default=1000.0, help="sampling rate, Hz (default 1000)")
    p.add_argument("--no-friction", action="store_true", help="no joint friction (default: on)")
    p.add_argument("--out", default="out", help="output directory (default out)")
    add_force(p)


def _compute(args, case, model):
    from flexpkm.analysis.crossing import law_inverse_dynamics
    from flexpkm.analysis.crossing_plan import plan_crossing
    from flexpkm.analysis.polynomial_laws import rest_to_rest
    options = options_of(args)
    state = lambda poses: case.configure(model, poses, options)
    plan = None
    if args.cross:
        plan = plan_crossing(model, state, args.start, args.stop, args.duration,
                             crossing_time=args.crossing_time, through=args.through,
                             friction=not args.no_friction)
    law = plan.law if plan else rest_to_rest(args.start, args.stop, args.duration)
    res = law_inverse_dynamics(model, state, law, rate=args.rate, friction=not args.no_friction)
    return plan, law, res


def _summary(case, plan, law, res) -> dict:
    """The run's facts; ``coefficients`` (n_p, degree + 1) in t (s), not
    the scaled time, like the book's (9.53)-(9.54)."""
    import numpy as np
    out = {"case": case.name, "samples": len(res.t), "degree": law.degree,
           "coefficients": law.coefficients.T / law.duration ** np.arange(law.degree + 1),
           "tau_max": dict(zip(res.names, abs(res.tau).max(axis=0)))}
    if plan is not None:
        out.update(kind=plan.kind, t_s=plan.t_s, x_s=plan.x_s, xd_s=plan.xd_s, xdd_s=plan.xdd_s,
                   t_s_vector=plan.t_s_vector, criterion=plan.criterion)
    return json_safe(out)


def _write(args, case, res, summary, run_):
    import numpy as np
    from flexpkm.io.run_files import atomic_write
    from pathlib import Path
    d = Path(args.out)
    d.mkdir(parents=True, exist_ok=True)
    cols = ["t"] + list(case.pose_names) + list(res.names) + [f"tau_{n}" for n in res.names]
    table = np.column_stack([res.t, res.x_p, res.q_a, res.tau])
    files = [d / "plan.csv", d / "plan.json"]
    with atomic_write(files[0]) as tmp, open(tmp, "wb") as f:
        np.savetxt(f, table, delimiter=",", header=",".join(cols), comments="")
    with atomic_write(files[1]) as tmp:
        Path(tmp).write_text(json.dumps(summary, indent=1) + "\n")
    for f in files:
        run_.add(f)
    return files


def run(args) -> int:
    from flexpkm.algorithms.reference import build_model
    case = args.case
    robot = case.robot(options_of(args))
    run_ = start_run(args.out, args, robot, OWNED)          # before computing
    try:
        model = build_model(robot)
        plan, law, res = _compute(args, case, model)
        summary = _summary(case, plan, law, res)
        run_.note(samples=len(res.t))
        with interrupts_deferred():
            files = _write(args, case, res, summary, run_)
    except BaseException as e:
        run_.fail(e)
        raise
    run_.finish("completed")
    peak = ", ".join(f"{n} {v:.4g}" for n, v in summary["tau_max"].items())
    lines = [f"{model.name}: degree-{law.degree} law, {len(res.t)} samples; max |tau|: {peak}"]
    if plan is not None:
        lines.insert(0, f"{plan.kind} singularity crossed at t = {plan.t_s:.4g} s, x_p = "
                        + " ".join(f"{v:.4f}" for v in plan.x_s))
    emit(args, {**summary, "written": [str(f) for f in files]},
         lines + [f"wrote {f}" for f in files])
    return 0
