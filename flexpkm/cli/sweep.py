"""``flexpkm sweep CASE --from P ... --to P ... [--steps N] [--modes N]
[--plot FILE.png] [--csv FILE]``: natural frequencies along a straight path
of poses. Unreachable or singular poses are kept as NaN rows with their
reason in the CSV's ``status`` column."""
from __future__ import annotations

from collections import Counter


from flexpkm.cli.common import (actuator_stiffness, add_actuator_stiffness, add_backend,
                                case_command, add_path_options, backend_text, count, emit,
                                options_of, progress_callback)
from flexpkm.cli.runs import add_force, interrupted, interrupts_deferred, start_file_run
from flexpkm.errors import FlexPKMError, Interrupted, InvalidArgumentError
from flexpkm.io.run_files import atomic_write


def register(subparsers, files=()):
    case_command(subparsers, "sweep", _options, run,
                 help="natural frequencies along a straight path of poses",
                 description="Natural frequencies along the straight path --from -> --to, in the case's "
                             "pose components. The case's options select the model.",
                 pose=False,
                 files=files)


def _options(p, case):
    add_path_options(p, case)
    p.add_argument("--steps", type=count, default=50, help="number of poses (default 50)")
    p.add_argument("--modes", type=count, default=5, metavar="N",
                   help="number of frequencies, lowest first (default 5)")
    p.add_argument("--plot", metavar="FILE.png", help="plot of the frequencies along the path")
    p.add_argument("--csv", metavar="FILE", help="table of the frequencies (with a status column)")
    add_backend(p)
    add_actuator_stiffness(p)
    p.add_argument("--no-progress", action="store_true",
                   help="no progress bar (default: a bar when stderr is a terminal)")
    add_force(p)


def run(args) -> int:
    from flexpkm.algorithms.reference import build_model
    from flexpkm.analysis.sweep import frequency_sweep
    from flexpkm.io.plots import image_format
    from flexpkm.model.refine import refine
    if not (args.plot or args.csv):
        raise InvalidArgumentError("nothing to write: give --plot FILE.png and/or --csv FILE")
    if args.steps < 2:
        raise InvalidArgumentError(f"--steps: a sweep needs at least 2 poses, got {args.steps}")
    case = args.case
    options = options_of(args)
    robot = case.robot(options)
    robot = refine(robot, args.elements) if args.elements > 1 else robot
    stiffness = actuator_stiffness(args, robot)
    if args.plot:
        image_format(args.plot)
    run_ = start_file_run([args.csv, args.plot], args, robot)   # before computing
    try:
        model = build_model(robot)
        result = frequency_sweep(model, continuing(case, model, options),
                                 args.start, args.stop, args.steps, n_modes=args.modes,
                                 names=case.pose_names, on_error="nan",
                                 progress=progress_callback(args, "sweep"),
                                 backend=args.backend, actuator_stiffness=stiffness)
    except Interrupted as e:
        written = _write(e.partial, args, case, model, run_)
        emit(args, {"case": case.name, "complete": False, "poses": len(e.partial.status),
                    "written": written}, [f"wrote {p}" for p in written])
        return interrupted(run_, f"{e}; wrote the finished poses", e)
    except BaseException as e:
        run_.fail(e)
        raise
    written = _write(result, args, case, model, run_)
    run_.finish("completed")
    counts = Counter(s.split(":")[0] for s in result.status)
    bad = [k for k, s in enumerate(result.status) if s not in ("ok", "near-singular")]
    summary = (f"{len(bad)} of {len(result.status)} poses failed (masked rows, see the status "
               f"column), {counts.get('near-singular', 0)} near-singular: "
               + ", ".join(f"{n} {k}" for k, n in counts.items())
               + (f"; e.g. pose {bad[0]}: {result.status[bad[0]]}" if bad else ""))
    failed = len(bad) == len(result.status)
    emit(args, {"case": case.name, "complete": True, "poses": len(result.status),
                "failed": len(bad), "status": dict(counts), "backend": result.backend,
                "backend_reason": result.backend_reason, "written": written},
         [f"wrote {p}" for p in written] + [backend_text(result)]
         + ([summary] if (len(counts) > 1 or "ok" not in counts) and not failed else []))
    if failed:
        raise SweepFailed(f"no pose of the sweep could be computed: {summary}")
    return 0


def continuing(case, model, options):
    """``configure(pose)`` of a path: each pose's assembly starts from the
    last configured pose (continuation: the modes of the path are kept, and
    one Newton solve per pose instead of a continuation from the reference)."""
    last = {}

    def configure(pose):
        q = case.configure(model, pose, dict(options, guess=last.get("q")))
        last["q"] = q
        return q
    return configure


class SweepFailed(FlexPKMError):
    """Every pose of a sweep failed (the CSV is written all the same)."""

    exit_status = 3


def _write(result, args, case, model, run_):
    """The CSV first, then the plot (Ctrl-C deferred until both are
    complete); returns the written paths."""
    from flexpkm.io.plots import plot_sweep
    run_.note(rows=len(result.status), poses_failed=sum(s not in ("ok", "near-singular")
                                                        for s in result.status),
              backend=result.backend, backend_reason=result.backend_reason)
    written = []
    try:
        with interrupts_deferred():
            if args.csv:
                with atomic_write(args.csv) as tmp:      # a FIFO or /dev/null: written into
                    result.to_csv(tmp)
                written.append(run_.add(args.csv))
            if args.plot and len(result.status):
                units = dict(zip(case.pose_names, case.pose_units))
                written.append(run_.add(plot_sweep(result, args.plot, args.modes, model.name,
                                                   units)))
    except BaseException as e:               # a full disk...: the manifest says which files are whole
        run_.fail(e)
        raise
    return written
