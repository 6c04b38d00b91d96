"""``flexpkm sweep CASE --from P ... --to P ... [--steps N] [--modes N]
[--plot FILE.png] [--csv FILE]``: natural frequencies along a straight path
of poses. Unreachable or singular poses are kept as NaN rows with their
reason in the CSV's ``status`` column."""
from __future__ import annotations

import numpy as np

from flexpkm.analysis.sweep import frequency_sweep
from flexpkm.cli.common import (add_case_parsers, add_path_options, count, model_of, options_of,
                                progress_callback)
from flexpkm.errors import InvalidArgumentError


def register(subparsers, files=()):
    p = subparsers.add_parser(
        "sweep", help="natural frequencies along a straight path of poses",
        description="Natural frequencies along the straight path --from -> --to, in the case's "
                    "pose components. The case's options select the model.")
    add_case_parsers(p, "sweep", _options, pose=False, files=files)
    p.set_defaults(func=run)


def _options(p, case):
    add_path_options(p, case)
    p.add_argument("--steps", type=count, default=50, help="number of poses (default 50)")
    p.add_argument("--modes", type=count, default=5, metavar="N",
                   help="number of frequencies, lowest first (default 5)")
    p.add_argument("--plot", metavar="FILE.png", help="plot of the frequencies along the path")
    p.add_argument("--csv", metavar="FILE", help="table of the frequencies (with a status column)")
    p.add_argument("--no-progress", action="store_true",
                   help="no progress bar (default: a bar when stderr is a terminal)")


def run(args) -> int:
    from flexpkm.io.plots import plot_sweep
    if not (args.plot or args.csv):
        raise InvalidArgumentError("nothing to write: give --plot FILE.png and/or --csv FILE")
    if args.steps < 2:
        raise InvalidArgumentError(f"--steps: a sweep needs at least 2 poses, got {args.steps}")
    case = args.case
    options = options_of(args)
    model = model_of(args)
    result = frequency_sweep(model, lambda pose: case.configure(model, pose, options),
                             args.start, args.stop, args.steps, n_modes=args.modes,
                             names=case.pose_names, on_error="nan",
                             progress=progress_callback(args, "sweep"))
    failed = [k for k, s in enumerate(result.status) if s != "ok"]
    if args.csv:
        print(f"wrote {result.to_csv(args.csv)}")
    if args.plot:
        units = dict(zip(case.pose_names, case.pose_units))
        print(f"wrote {plot_sweep(result, args.plot, args.modes, model.name, units)}")
    if failed:
        print(f"{len(failed)} of {len(result.status)} poses failed (NaN), e.g. pose {failed[0]}: "
              f"{result.status[failed[0]]}")
    return 0 if np.isfinite(result.frequencies_hz).any() else 2
