"""Sub-command ``flexpkm simulate CASE --maneuver NAME [--prescribed | --pd |
--free] [--no-friction] [--t-end T] [--out DIR]``: time simulation of the
full elastodynamic model (Sections 10.4-10.7) and its outputs."""
from __future__ import annotations

import time


def register(subparsers):
    """Add ``simulate`` to the ``flexpkm`` parser."""
    p = subparsers.add_parser("simulate", help="elastodynamic time simulation of a case")
    p.add_argument("case", choices=("dualemps",))
    p.add_argument("--maneuver", required=True, choices=("edge", "square", "fast", "circle"))
    g = p.add_mutually_exclusive_group()
    g.add_argument("--prescribed", dest="drive", action="store_const", const="prescribed",
                   help="actuator motion prescribed, efforts computed (default)")
    g.add_argument("--pd", dest="drive", action="store_const", const="pd",
                   help="joint PD control (100 rad/s) tracking the maneuver")
    g.add_argument("--free", dest="drive", action="store_const", const="free",
                   help="no actuator effort")
    p.add_argument("--no-friction", action="store_true")
    p.add_argument("--t-end", type=float, default=None, help="simulated time, s (default: the maneuver's)")
    p.add_argument("--step", type=float, default=2.5e-4, help="integration step, s")
    p.add_argument("--out", default="out", help="output directory")
    p.add_argument("--no-xdmf", action="store_true", help="skip the XDMF time series")
    p.set_defaults(func=cmd_simulate, drive="prescribed")


def cmd_simulate(args) -> int:
    from flexpkm import cases
    from flexpkm.io.sim_output import write_outputs
    from flexpkm.analysis.simulate import simulate
    from flexpkm.cli.progress import ProgressBar
    case = cases.get(args.case)
    robot, q0, drive, sensors = case.simulation_setup(args.maneuver, args.drive)
    t_end = args.t_end if args.t_end is not None else case.duration(args.maneuver)
    t0 = time.perf_counter()
    with ProgressBar(1, "simulate") as bar:          # drawn only on a terminal
        def progress(done, total):
            """Draw the analysis' progress (output samples) on the bar."""
            bar.total = max(int(total), 1)
            bar.update(done - bar.done)
        res = simulate(robot, q0, t_end, drive, h=args.step, friction=not args.no_friction,
                       coulomb_smoothing=1e-3, sensors=sensors, progress=progress)
    wall = time.perf_counter() - t0
    files = write_outputs(robot, res, args.out, xdmf=not args.no_xdmf)
    print(f"{robot.name}: {args.maneuver}, {args.drive}, {t_end:g} s simulated in {wall:.1f} s "
          f"({wall / max(t_end, 1e-12):.2f} s per simulated second), "
          f"{res.cost['steps']} steps, {res.cost['newton_iterations']} Newton iterations")
    print(f"max loop-closure drift {res.drift.max():.2e}; max |tau| = {abs(res.tau).max(axis=0)} N")
    for f in files:
        print(f"wrote {f}")
    return 0
