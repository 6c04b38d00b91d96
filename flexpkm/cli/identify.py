"""``flexpkm identify CASE|FILE.toml DATA.csv [--window W] [--order K]
[--decimate N] [--json]``: weighted least-squares identification of the
base dynamic parameters of a rigid robot from a measured trajectory (CSV
``t, q_a..., tau_q_a...``; :mod:`flexpkm.identification.data`), with the
relative standard deviations and the condition number of the observation
matrix (:mod:`flexpkm.identification.identify`). ``--simulate NOISE``
instead identifies a measurement simulated by the IDM along an optimised
exciting trajectory with Gaussian noise of NOISE times the rms effort (a
check of a planned identification; ``--write-csv PATH`` keeps it).
A flexible robot is refused (exit 2)."""
from __future__ import annotations

from flexpkm.cli.base_parameters import add_sampling, base_of
from flexpkm.cli.common import case_command, count, emit, model_of, positive
from flexpkm.errors import InvalidArgumentError


def register(subparsers, files=()):
    case_command(subparsers, "identify", _options, run,
                 help="identify the base dynamic parameters from a measured trajectory",
                 description=__doc__.splitlines()[0],
                 pose=False,
                 files=files)


def _options(p, case):
    p.add_argument("data", nargs="?", default=None, metavar="DATA.csv",
                   help="the measurement: t, q_a and tau_<q_a> columns")
    p.add_argument("--window", type=count, default=21,
                   help="Savitzky-Golay window, samples, odd (default 21)")
    p.add_argument("--order", type=count, default=4, help="its polynomial order (default 4)")
    p.add_argument("--decimate", type=count, default=None, metavar="N",
                   help="keep every N-th sample (default: at most 200 samples)")
    p.add_argument("--simulate", type=float, default=None, metavar="NOISE",
                   help="identify a simulated measurement (IDM along an exciting trajectory, "
                        "relative noise NOISE, e.g. 0.01) instead of DATA.csv")
    p.add_argument("--period", type=positive, default=1.0,
                   help="the simulated trajectory's period, s (default 1)")
    p.add_argument("--amplitude", type=positive, default=0.02,
                   help="its excursion of each actuated coordinate, m or rad (default 0.02)")
    p.add_argument("--evaluations", type=count, default=10, metavar="N",
                   help="criterion evaluations of its optimisation (default 10)")
    p.add_argument("--write-csv", default=None, metavar="PATH",
                   help="write the simulated measurement there (a new file)")
    add_sampling(p)


def _simulated(args, model, base):
    from pathlib import Path
    from flexpkm.identification.data import write_csv
    from flexpkm.identification.exciting import exciting_trajectory, simulate_measurement
    from flexpkm.io.output_paths import atomic_write, check_output_file
    if not 0 <= args.simulate < 1:
        raise InvalidArgumentError(f"--simulate: the relative noise must be in [0, 1), got "
                                   f"{args.simulate}")
    if args.write_csv:                          # checked before computing
        if Path(args.write_csv).exists():
            raise InvalidArgumentError(f"--write-csv: {args.write_csv} exists (not replaced)")
        check_output_file(args.write_csv)
    trajectory = exciting_trajectory(model, period=args.period, amplitude=args.amplitude,
                                     evaluations=args.evaluations, seed=args.seed,
                                     base=base)
    data = simulate_measurement(model, trajectory, duration=2 * args.period, rate=500.0,
                                noise=args.simulate, seed=args.seed)
    if args.write_csv:
        with atomic_write(args.write_csv) as tmp:      # whole or not at all
            write_csv(tmp, data)
    return data, [args.write_csv] if args.write_csv else []


def run(args) -> int:
    from flexpkm.identification.identify import identify
    if (args.data is None) == (args.simulate is None):
        raise InvalidArgumentError("identify: give either DATA.csv or --simulate NOISE")
    model = model_of(args)
    base = base_of(args, model)
    data, written = (args.data, []) if args.simulate is None else _simulated(args, model, base)
    res = identify(model, data, base=base, window=args.window, order=args.order,
                   decimate=args.decimate, friction=not args.no_friction)
    source = args.data or f"a simulated measurement ({args.simulate:g} noise)"
    lines = [f"{model.name}: {res.base.n_b} base parameters from {res.samples} samples of "
             f"{source}; condition number {res.cond:.4g}", *res.lines(),
             "error std per actuator: " + ", ".join(f"{n} {s:.3g}" for n, s in
                                                     zip(res.names, res.sigma))]
    lines += [f"wrote {w}" for w in written]
    emit(args, {"case": args.case.name, **res.to_dict(), "written": written}, lines)
    return 0
