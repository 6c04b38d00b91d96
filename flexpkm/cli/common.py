"""What every sub-command shares: the parser class (one-line errors,
negative numbers as values, finite floats), one sub-parser per case with
the case's pose and model options (:class:`flexpkm.cases.Case`), and the
resolution of the parsed arguments into a model and a configuration."""
from __future__ import annotations

import argparse
import math
import re
import sys

import numpy as np

from flexpkm import cases
from flexpkm.model.build import build_model

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


def add_case_parsers(subparsers, command: str, add_options, pose: bool = True,
                     only=lambda case: True):
    """One sub-parser ``flexpkm COMMAND CASE`` per shipped case: the case's
    pose option (when ``pose``) and model options, then the command's own
    options ``add_options(parser, case)``. The case is stored in
    ``args.case``."""
    sub = subparsers.add_subparsers(dest="case", required=True, metavar="CASE",
                                    parser_class=Parser)
    for name in cases.CASES:
        case = cases.get(name)
        if not only(case):
            continue
        p = sub.add_parser(name, help=case.title, description=case.title)
        if pose:
            units = ", ".join(f"{n} in {u}" for n, u in zip(case.pose_names, case.pose_units))
            default = " ".join(f"{v:g}" for v in case.pose_default)
            p.add_argument(f"--{case.pose_option}", dest="pose", nargs=len(case.pose_names),
                           type=finite, metavar=tuple(n.upper() for n in case.pose_names),
                           default=case.pose_default, help=f"pose: {units} (default {default})")
        for opt in case.options:
            _add_option(p, opt)
        add_options(p, case)
        p.set_defaults(case=case)
    return sub


def _add_option(parser, opt):
    flag = "--" + opt.name.replace("_", "-")
    if opt.kind == "flag":
        parser.add_argument(flag, dest=opt.name, action="store_true", help=opt.help)
    elif opt.kind == "ints":
        parser.add_argument(flag, dest=opt.name, nargs=opt.nargs, type=int, default=opt.default,
                            choices=opt.choices or None, help=opt.help)
    else:
        parser.add_argument(flag, dest=opt.name, default=opt.default,
                            choices=opt.choices or None, help=opt.help)


def options_of(args) -> dict:
    """The case's model options from the parsed arguments."""
    return {o.name: getattr(args, o.name) for o in args.case.options}


def resolve(args):
    """``(case, model, options, pose (k,), q_t (n_t,))`` of parsed arguments.
    Raises the case's :class:`flexpkm.errors.FlexPKMError` (unreachable
    pose, invalid option...)."""
    case = args.case
    options = options_of(args)
    model = build_model(case.robot(options))
    pose = np.asarray(getattr(args, "pose", case.pose_default), float)
    return case, model, options, pose, case.configure(model, pose, options)


def pose_text(case, pose, options) -> str:
    return ", ".join(f"{k} = {v:g}" if isinstance(v, float) else f"{k} = {v}"
                     for k, v in case.pose_dict(pose, options).items())


def progress_callback(args, label: str):
    """A ``progress(done, total)`` bar on stderr when it is a terminal and
    ``--no-progress`` was not given; else None."""
    if getattr(args, "no_progress", False) or not sys.stderr.isatty():
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
