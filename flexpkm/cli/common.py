"""What every sub-command shares: the parser class (one-line errors,
negative numbers as values, finite floats), one sub-parser per case with
the case's pose and model options (:class:`flexpkm.cases.Case`), and the
resolution of the parsed arguments into a model and a configuration."""
from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import re
import sys

import numpy as np


#: a value that starts with "-" but is a number (-1, -1.5, -.5, -1e-3)
NEGATIVE_NUMBER = re.compile(r"^-(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$")


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors (``flexpkm: error: ...``, exit status 2)
    and negative numbers, exponents included, read as values."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._negative_number_matcher = NEGATIVE_NUMBER

    def error(self, message):
        where = "" if self.prog == "flexpkm" else f"{self.prog}: "
        print(f"flexpkm: error: {where}{message}", file=sys.stderr)
        sys.exit(2)


class Headlines:
    """The sub-parsers action of the commands, for a command line that runs
    ``command`` on ``case``: every command is listed (``flexpkm --help``),
    only ``command``'s parser gets its case parsers (:func:`add_case_parsers`),
    and those of ``case`` only when it names a shipped case or a file
    (:func:`flexpkm.cli.app.named_cases`), so that a run imports the modules
    of one command and one case."""

    def __init__(self, action, command=None, case=None):
        self.action, self.command, self.case = action, command, case

    def add_parser(self, name, **kwargs):
        p = self.action.add_parser(name, **kwargs)
        p.headline_only = name != self.command
        return p


def finite(text: str) -> float:
    """A finite float (argparse type)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
    return value


def positive(text: str) -> float:
    value = finite(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not positive")
    return value


def count(text: str) -> int:
    """A positive integer (argparse type): a number of modes, of steps..."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive whole number")
    return value


def case_command(subparsers, command: str, add_options, run, help: str, description: str,
                 pose: bool = True, only=lambda case: True, files=()):
    """The parser of ``flexpkm COMMAND CASE|FILE.toml ...``: ``help`` in the
    list of commands, ``description`` on its page, one sub-parser per case
    with the command's options (:func:`add_case_parsers`); ``run(args)``
    runs it."""
    p = subparsers.add_parser(command, help=help, description=description)
    add_case_parsers(p, command, add_options, pose=pose, only=only, files=files)
    p.set_defaults(func=run)
    return p


def add_case_parsers(subparsers, command: str, add_options, pose: bool = True,
                     only=lambda case: True, files=()):
    """One sub-parser ``flexpkm COMMAND NAME`` per ``(NAME, case)`` of
    ``files`` (:func:`flexpkm.cli.app.named_cases`: the shipped cases by name,
    the description files named on the command line by their path): the
    case's pose option (when ``pose``) and model options, ``--elements N``,
    then the command's own options ``add_options(parser, case)``. The case
    is stored in ``args.case``. A command parser made by :class:`Headlines`
    gets none when another command is run, and ``files`` is then never read
    (start-up time, docs/design.md)."""
    if getattr(subparsers, "headline_only", False):
        return None
    sub = subparsers.add_subparsers(dest="case", required=True, metavar="CASE|FILE.toml",
                                    parser_class=Parser)
    for name, case in files:
        if not only(case):
            continue
        p = sub.add_parser(name, help=case.title, description=case.title)
        if pose:
            _add_pose(p, case)
        for opt in case.options:
            _add_option(p, opt)
        p.add_argument("--elements", type=count, default=1, metavar="N",
                       help="clamped-free beam elements per flexible body (default 1, the "
                            "book's model)")
        add_options(p, case)
        add_output_options(p)
        p.set_defaults(case=case)
    return sub


def _add_pose(p, case):
    units = ", ".join(f"{n} in {u}" for n, u in zip(case.pose_names, case.pose_units))
    default = ("the reference configuration" if case.pose_default is None
               else " ".join(f"{v:g}" for v in case.pose_default))
    p.add_argument(f"--{case.pose_option}", dest="pose", nargs=len(case.pose_names),
                   type=finite, metavar=tuple(n.upper() for n in case.pose_names),
                   default=case.pose_default, help=f"pose: {units} (default {default})")


def _add_option(parser, opt):
    flag = "--" + opt.name.replace("_", "-")
    flag = opt.flag or flag
    if opt.kind == "flag":
        parser.add_argument(flag, dest=opt.name, action="store_true", help=opt.help)
    elif opt.kind == "floats":
        parser.add_argument(flag, dest=opt.name, nargs=opt.nargs, type=finite, default=opt.default,
                            metavar="X", help=opt.help)
    elif opt.kind == "ints":
        parser.add_argument(flag, dest=opt.name, nargs=opt.nargs, type=int, default=opt.default,
                            choices=opt.choices or None, help=opt.help)
    else:
        parser.add_argument(flag, dest=opt.name, default=opt.default,
                            choices=opt.choices or None, help=opt.help)


def options_of(args) -> dict:
    """The case's model options from the parsed arguments."""
    return {o.name: getattr(args, o.name) for o in args.case.options}


def model_of(args):
    """The model of the parsed arguments: the case's robot with its options,
    each flexible body split into ``--elements`` elements (Step 0)."""
    from flexpkm.algorithms.reference import build_model
    from flexpkm.model.refine import refine
    robot = args.case.robot(options_of(args))
    return build_model(refine(robot, args.elements) if args.elements > 1 else robot)


def resolve(args):
    """``(case, model, options, pose (k,) or None, q_tot (n_tot,))`` of
    parsed arguments. Raises the case's :class:`flexpkm.errors.FlexPKMError`
    (unreachable pose, invalid option...)."""
    case = args.case
    options = options_of(args)
    model = model_of(args)
    pose = getattr(args, "pose", case.pose_default)
    pose = None if pose is None else np.asarray(pose, float)
    return case, model, options, pose, case.configure(model, pose, options)


def pose_text(case, pose, options) -> str:
    if pose is None and not any(v not in (None, False) for v in options.values()):
        return "the reference configuration"
    return ", ".join(f"{k} = {v:g}" if isinstance(v, float) else f"{k} = {v}"
                     for k, v in case.pose_dict(pose, options).items())


def add_output_options(p, top: bool = False):
    """``--json`` (one JSON object on stdout instead of the text),
    ``-q/--quiet`` (nothing on stdout but the JSON, only errors on stderr),
    ``-v/--verbose`` (timings and versions on stderr, every warning). Given
    to the top parser (``top``: defaults False) and to each command's
    parsers (defaults suppressed, so that ``flexpkm -q modal ...`` and
    ``flexpkm modal ... -q`` both work)."""
    default = False if top else argparse.SUPPRESS
    p.add_argument("--json", action="store_true", default=default,
                   help="one JSON object on stdout instead of the text")
    g = p.add_mutually_exclusive_group()
    g.add_argument("-q", "--quiet", action="store_true", default=default,
                   help="print nothing but errors (and the JSON of --json)")
    g.add_argument("-v", "--verbose", action="store_true", default=default,
                   help="also print timings, versions and every warning on stderr")


def emit(args, data: dict, lines) -> None:
    """The result of a command on stdout: ``data`` as one JSON object with
    ``--json`` (NaN and infinities as null), else the text ``lines``."""
    if getattr(args, "json", False):
        print(json.dumps(json_safe(data), allow_nan=False))
    else:
        for line in lines:
            print(line)


def json_safe(x):
    """``x`` with numpy scalars and arrays as Python numbers and lists,
    paths as text, NaN and infinities as None."""
    if isinstance(x, dict):
        return {str(k): json_safe(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)) or (isinstance(x, np.ndarray) and x.ndim):
        return [json_safe(v) for v in x]
    if isinstance(x, (np.generic, np.ndarray)):
        x = x.item()
    if isinstance(x, float) and not math.isfinite(x):
        return None
    if isinstance(x, (str, int, float, bool)) or x is None:
        return x
    return str(x)


#: the least build time (s) announced: a child process that is not the C
#: compiler (the CLI's cached runs showed "took 0.0 s") is no build
ANNOUNCED = 0.05


@contextlib.contextmanager
def compilation_timer(name: str):
    """``with compilation_timer(robot name) as built: ...``: after the block,
    ``built["seconds"]`` is the wall time spent building compiled models in
    it (:mod:`flexpkm.stopwatch`) when a C compiler ran (a first run), else
    0; a first run's time is announced on stderr. Commands subtract it from
    their speed figures."""
    from flexpkm.stopwatch import counting
    built, c0 = {"seconds": 0.0}, children_seconds()
    with counting() as building:
        yield built
    if children_seconds() > c0 and building() >= ANNOUNCED:
        built["seconds"] = building()
        print(f"flexpkm: note: the one-time compilation of {name}'s models took "
              f"{built['seconds']:.1f} s (cached; not in the speed figure)", file=sys.stderr)


def can_plot(picture: str) -> bool:
    """Whether matplotlib (the ``viz`` extra) is installed to draw
    ``picture`` (e.g. ``"simulation.png"``); if not, a note on stderr naming
    the extra, and the command writes its other files."""
    from flexpkm.errors import MissingDependencyError
    from flexpkm.optional import require
    try:
        require("matplotlib.figure", "the plot")
    except MissingDependencyError as e:
        print(f"flexpkm: note: no {picture}: {e}", file=sys.stderr)
        return False
    return True


def children_seconds() -> float:
    """CPU seconds of the finished child processes so far (they grow when
    the C compiler ran)."""
    t = os.times()
    return t.children_user + t.children_system


def progress_callback(args, label: str):
    """A ``progress(done, total)`` bar on stderr when it is a terminal and
    neither ``--no-progress`` nor ``--quiet`` was given; else None."""
    if getattr(args, "no_progress", False) or getattr(args, "quiet", False) \
            or not sys.stderr.isatty():
        return None
    from flexpkm.cli.progress import ProgressBar
    return ProgressBar(label, enabled=True)


def add_path_options(p, case):
    """``--from`` / ``--to`` poses (the case's pose components) of a
    straight path (``args.start``, ``args.stop``)."""
    comps = " ".join(f"{n} ({u})" for n, u in zip(case.pose_names, case.pose_units))
    meta = tuple(n.upper() for n in case.pose_names)
    p.add_argument("--from", dest="start", nargs=len(meta), type=finite, required=True,
                   metavar=meta, help=f"start pose: {comps}")
    p.add_argument("--to", dest="stop", nargs=len(meta), type=finite, required=True,
                   metavar=meta, help="end pose, same components")


def add_wrench(p):
    """``--wrench FX FY FZ MX MY MZ`` (``args.wrench``, None when absent)."""
    p.add_argument("--wrench", nargs=6, type=finite, default=None,
                   metavar=("FX", "FY", "FZ", "MX", "MY", "MZ"),
                   help="constant external wrench on the platform: force (N) and moment (N m) "
                        "exerted by the environment at the platform point P, in base-frame "
                        "components (default: none); a component along no platform "
                        "coordinate is refused")
def add_backend(p):
    """``--backend auto|numpy|compiled`` (``args.backend``), the one rule of
    :mod:`flexpkm.analysis.backend` on every analysing command."""
    from flexpkm.analysis.backend import BACKENDS, DEFAULT_BACKEND
    p.add_argument("--backend", choices=BACKENDS, default=DEFAULT_BACKEND,
                   help="generated C code (compiled once per robot, cached in ~/.cache/flexpkm), "
                        "the numpy reference, or auto (default): compiled when CasADi and a C "
                        "compiler are there, else numpy")


def backend_text(result) -> str:
    """``backend: compiled (auto: ...)``: what ran and why (a result's
    ``backend`` and ``backend_reason``)."""
    return f"backend: {result.backend} ({result.backend_reason})"


def add_actuator_stiffness(p):
    """``--actuator-stiffness K ...`` (``args.actuator_stiffness``)."""
    p.add_argument("--actuator-stiffness", nargs="+", type=positive, default=None, metavar="K",
                   help="gearbox stiffness of each actuator, N/m or N m/rad: the actuators "
                        "become elastic instead of locked (Eqs. 11.36-11.42; default: the "
                        "file's actuator_stiffness, else locked)")


def actuator_stiffness(args, model):
    """The actuators' stiffness (n_a,) (N/m or N m/rad, in the order of
    ``model.layout.actuated``): ``--actuator-stiffness``, else the
    ``actuator_stiffness`` keys of the description file (positive, finite,
    one per actuated joint), else None (actuators locked). Raises
    :class:`InvalidDescriptionError` naming the file for a bad or missing value."""
    from flexpkm.errors import InvalidDescriptionError
    from flexpkm.model.files import analysis_options
    given = getattr(args, "actuator_stiffness", None)
    file = args.case.source
    if given is not None or not file:
        return given
    stiff = analysis_options(file)["actuator_stiffness"]
    if not stiff:
        return None
    layout = model.layout
    frame_of = {c: f for f, c in layout.joint_index.items()}
    actuated = [frame_of[c] for c in layout.actuated]
    missing = [f for f in actuated if f not in stiff]
    extra = [f for f in stiff if f not in actuated]
    if missing or extra:
        raise InvalidDescriptionError(
            f"{file}: actuator_stiffness must be given for each actuated joint "
            f"({', '.join(actuated)}) and no other: "
            + "; ".join(t for t in (missing and f"missing for {', '.join(missing)}",
                                    extra and f"given for {', '.join(extra)}, not actuated")
                        if t))
    return [stiff[f] for f in actuated]
