"""Sub-commands ``modes`` and ``sweep`` (mode shapes, exports, frequency sweeps)::

    flexpkm modes CASE [pose options] [--modes 1-6] [--png DIR] [--gif]
                  [--vtu DIR] [--xdmf FILE] [--scale S] [--fraction F]
                  [--view auto|normal|iso] [--normalize mass|max]
    flexpkm sweep CASE --from P1 [P2 ...] --to P1 [P2 ...] [--steps N]
                  [--modes N] [--plot FILE.png] [--csv FILE] [--[no-]progress]

The pose components of a sweep are the case's (DualEMPS: q11 q21 in m;
NaVARo: x y in m, theta in rad, see :func:`pose_configurator`); the case
module provides ``add_pose_arguments``, ``from_cli`` and
``configuration(robot, <pose components>, ...)``. In a sweep the case's
pose options select the model (e.g. NaVARo ``--actuation``, ``--refined``,
``--working-modes``); the pose given there is replaced by the path.
Bad input raises :class:`flexpkm.errors.FlexPKMError` (one line on stderr,
exit status 2, see :mod:`flexpkm.cli.app`).
"""
from __future__ import annotations

import argparse
import inspect

from flexpkm.errors import FlexPKMError

#: units of the usual pose components (a case may define POSE_UNITS)
POSE_UNITS = {"q11": "m", "q21": "m", "x": "m", "y": "m", "z": "m", "theta": "rad"}


def parse_mode_numbers(text: str) -> list:
    """``"1-6"`` / ``"1,3,5"`` / ``"2-4,7"`` -> sorted unique 1-based ints.
    Raises FlexPKMError for anything else."""
    out = set()
    try:
        for item in text.split(","):
            lo, _, hi = item.strip().partition("-")
            lo, hi = int(lo), int(hi or lo)
            if lo < 1 or hi < lo:
                raise ValueError
            out.update(range(lo, hi + 1))
    except ValueError:
        raise FlexPKMError(f"bad mode list {text!r}: use e.g. 1-6, 1,3,5 or 2-4,7") from None
    return sorted(out)


def _case(name):
    from flexpkm.cli.app import _case as get
    return get(name)


def pose_configurator(case, robot, pose):
    """(component names, ``configure(values) -> q_t``) of a case's sweeps.

    The swept components are the parameters of ``case.configuration(robot,
    ...)`` that are keys of the case's pose dict (from ``from_cli``), in the
    signature's order (DualEMPS: q11, q21; NaVARo: x, y, theta). The other
    parameters found in the pose dict keep their value; ``working_modes``
    is taken from the pose's ``s1, s2, s3`` when present.
    Raises FlexPKMError when the case has no such configuration function.
    """
    config = getattr(case, "configuration", None)
    params = list(inspect.signature(config).parameters)[1:] if config else []
    names = tuple(p for p in params if p in pose)
    if not names:
        raise FlexPKMError(f"case {case.__name__} has no configuration(robot, <pose>) to sweep")
    fixed = {p: pose[p] for p in params if p not in names and p in pose}
    if "working_modes" in params and all(f"s{i}" in pose for i in (1, 2, 3)):
        fixed["working_modes"] = tuple(int(pose[f"s{i}"]) for i in (1, 2, 3))
    return names, lambda values: config(robot, **dict(zip(names, values)), **fixed)


def cmd_modes(args) -> int:
    from flexpkm.io.export import write_modes_vtu, write_modes_xdmf
    from flexpkm.algorithms.modal import natural_frequencies
    from flexpkm.io.viz import render_modes
    case = _case(args.case)
    robot, q_t, pose = case.from_cli(args)
    numbers = parse_mode_numbers(args.modes)
    if not (args.png or args.vtu or args.xdmf):
        raise FlexPKMError("nothing to write: give --png DIR, --vtu DIR and/or --xdmf FILE")
    if args.gif and not args.png:
        raise FlexPKMError("--gif writes next to the PNGs: give --png DIR")
    modes = natural_frequencies(robot, q_t, n_modes=max(numbers))
    n = modes.frequencies_hz.shape[-1]
    if numbers[-1] > n:
        raise FlexPKMError(f"{robot.name} has {n} modes; cannot draw mode {numbers[-1]}")
    view = args.view or getattr(case, "VIEW", "auto")
    written = []
    try:
        if args.png:
            written += render_modes(robot, q_t, modes, numbers, args.png, args.case,
                                    fraction=args.fraction, scale=args.scale, gif=args.gif,
                                    pose=pose, view=view)
        if args.vtu:
            written += write_modes_vtu(robot, q_t, modes, numbers, args.vtu, args.case,
                                       normalize=args.normalize)
        if args.xdmf:
            written.append(write_modes_xdmf(robot, q_t, modes, numbers, args.xdmf,
                                            normalize=args.normalize))
    except ValueError as e:
        raise FlexPKMError(str(e)) from None
    print(f"{robot.name} at {', '.join(f'{k} = {v:g}' for k, v in pose.items())}")
    for k in numbers:
        print(f"  mode {k}: {modes.frequencies_hz[k - 1]:.3f} Hz")
    for path in written:
        print(f"wrote {path}")
    return 0


def cmd_sweep(args) -> int:
    from flexpkm.analysis.sweep import frequency_sweep
    from flexpkm.io.plots import plot_sweep
    case = _case(args.case)
    robot, _, pose = case.from_cli(args)
    names, configure = pose_configurator(case, robot, pose)
    for what, values in (("--from", args.start), ("--to", args.stop)):
        if len(values) != len(names):
            raise FlexPKMError(f"{what} needs {len(names)} values ({' '.join(names)}) "
                               f"for {args.case}, got {len(values)}")
    if not (args.plot or args.csv):
        raise FlexPKMError("nothing to write: give --plot FILE.png and/or --csv FILE")
    try:
        result = frequency_sweep(robot, configure, args.start,
                                 args.stop, args.steps, n_modes=args.modes, names=names,
                                 progress=args.progress)
    except ValueError as e:
        raise FlexPKMError(str(e)) from None
    if args.plot:
        units = getattr(case, "POSE_UNITS", POSE_UNITS)
        print(f"wrote {plot_sweep(result, args.plot, args.modes, robot.name, units)}")
    if args.csv:
        print(f"wrote {result.to_csv(args.csv)}")
    return 0


def register(subparsers):
    """Add the sub-commands ``modes`` and ``sweep`` to the ``flexpkm`` parser."""
    from flexpkm import cases
    m = subparsers.add_parser("modes", help="pictures and meshes of mode shapes at a pose")
    m.add_argument("case", choices=cases.CASES)
    for name in cases.CASES:
        cases.get(name).add_pose_arguments(m)
    m.add_argument("--modes", default="1-6", help="mode numbers, e.g. 1-6 or 1,3,5 (default 1-6)")
    m.add_argument("--png", metavar="DIR", help="write DIR/CASE_mode_K.png")
    m.add_argument("--gif", action="store_true", help="also write DIR/CASE_mode_K.gif (with --png)")
    m.add_argument("--vtu", metavar="DIR", help="write DIR/CASE_mode_K.vtu (meshio)")
    m.add_argument("--xdmf", metavar="FILE", help="write the modes as the time steps of one XDMF file")
    m.add_argument("--scale", type=float, default=None,
                   help="displacement factor of the pictures (default: automatic)")
    m.add_argument("--fraction", type=float, default=0.1,
                   help="automatic scale: largest displacement / robot size (default 0.1)")
    m.add_argument("--view", choices=("auto", "normal", "iso"), default=None,
                   help="camera: along the plane normal, or isometric from above")
    m.add_argument("--normalize", choices=("mass", "max"), default="mass",
                   help="exported field: mass-normalised mode, or largest displacement = 1 m")
    m.set_defaults(func=cmd_modes)

    s = subparsers.add_parser(
        "sweep", help="natural frequencies along a straight path of poses",
        description="Natural frequencies along the straight path --from -> --to. The case's "
                    "pose options select the model (e.g. --actuation, --refined, "
                    "--working-modes); the pose itself is replaced by the path.")
    s.add_argument("case", choices=cases.CASES)
    for name in cases.CASES:        # model options (the pose itself is swept)
        cases.get(name).add_pose_arguments(s)
    s.add_argument("--from", dest="start", nargs="+", type=float, required=True, metavar="P",
                   help="start pose (dualemps: q11 q21 in m; navaro: x y theta in m, rad)")
    s.add_argument("--to", dest="stop", nargs="+", type=float, required=True, metavar="P",
                   help="end pose, same components")
    s.add_argument("--steps", type=int, default=50, help="number of poses (default 50)")
    s.add_argument("--modes", type=int, default=5, help="number of frequencies (default 5)")
    s.add_argument("--plot", metavar="FILE.png", help="plot of the frequencies along the path")
    s.add_argument("--csv", metavar="FILE", help="table of the frequencies")
    s.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="progress bar on stderr (default: on a terminal for 50 poses or more)")
    s.set_defaults(func=cmd_sweep)
