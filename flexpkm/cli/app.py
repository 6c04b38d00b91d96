"""flexpkm: natural frequencies, mode shapes and elastodynamic simulation of flexible parallel robots.

Sub-commands: ``modal`` (this module), ``modes`` and ``sweep``
(:mod:`flexpkm.cli.modes`), ``simulate`` (:mod:`flexpkm.cli.simulate`).
Errors of the model (:class:`flexpkm.errors.FlexPKMError`) become one line on
stderr and exit status 2; no traceback.
"""
from __future__ import annotations

import argparse
import importlib
import json
import sys
import time


from flexpkm.errors import FlexPKMError

#: modules adding sub-commands; each has ``register(subparsers)``
EXTRA_COMMANDS = ("flexpkm.cli.modes", "flexpkm.cli.simulate")


def _case(name):
    from flexpkm import cases
    try:
        return cases.get(name)
    except KeyError as e:
        raise FlexPKMError(str(e.args[0])) from None


def cmd_modal(args) -> int:
    from flexpkm.algorithms.modal import natural_frequencies
    case = _case(args.case)
    robot, q_t, pose = case.from_cli(args)
    t0 = time.perf_counter()
    modes = natural_frequencies(robot, q_t, n_modes=args.modes,
                                actuator_stiffness=args.actuator_stiffness)
    elapsed = time.perf_counter() - t0
    f = modes.frequencies_hz
    if args.json:
        out = {"case": args.case, "pose": pose, "frequencies_hz": [float(x) for x in f],
               "independent_coordinates": list(modes.names),
               "dependent_choice": modes.reduced.choice,
               "dependent_coordinates": list(modes.reduced.dep_names),
               "seconds": elapsed}
        print(json.dumps(out))
        return 0
    print(f"{robot.name} natural frequencies at {', '.join(f'{k} = {v:g}' for k, v in pose.items())}")
    dep = modes.reduced.dep_names
    shown = ", ".join(dep[:8]) + (f", ... ({len(dep)} in all)" if len(dep) > 8 else "")
    state = "actuators locked" if args.actuator_stiffness is None else "elastic actuators"
    print(f"({len(modes.names)} independent coordinates, {state}; "
          f"q_dep chosen {modes.reduced.choice}: {shown})")
    ref = (getattr(case, "reference_frequencies", lambda pose: None)(pose)
           if args.actuator_stiffness is None else None)
    print(" mode   f (Hz)" + ("   book (Hz)   diff" if ref is not None else ""))
    n_show = len(f) if args.modes is not None else min(len(f), 20)
    for i, fi in enumerate(f[:n_show]):
        line = f"{i + 1:5d} {fi:9.3f}"
        if ref is not None and i < len(ref):
            line += f"   {ref[i]:9.2f}  {100 * (fi - ref[i]) / ref[i]:+6.2f} %"
        print(line)
    if n_show < len(f):
        print(f"  ... {len(f) - n_show} more (use --modes N)")
    print(f"computed in {1e3 * elapsed:.1f} ms")
    return 0


def build_parser() -> argparse.ArgumentParser:
    from flexpkm import cases
    p = argparse.ArgumentParser(prog="flexpkm", description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="command", required=True)
    m = sub.add_parser("modal", help="natural frequencies of a case at a pose")
    m.add_argument("case", choices=cases.CASES)
    m.add_argument("--modes", type=int, default=None, help="number of modes (default: all)")
    m.add_argument("--json", action="store_true", help="one JSON object on stdout")
    m.add_argument("--actuator-stiffness", nargs="+", type=float, default=None, metavar="K",
                   help="gearbox stiffness of each actuator (N/m or N m/rad): the actuators "
                        "become elastic instead of locked (Eqs. 11.36-11.42)")
    for name in cases.CASES:
        cases.get(name).add_pose_arguments(m)
    m.set_defaults(func=cmd_modal)
    for module in EXTRA_COMMANDS:
        importlib.import_module(module).register(sub)
    return p


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except FlexPKMError as e:
        print(f"flexpkm: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
