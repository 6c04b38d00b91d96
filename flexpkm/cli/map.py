"""``flexpkm map CASE|FILE.toml --grid X0:X1:NX [Y0:Y1:NY [Z0:Z1:NZ]]
[--over pose|q_a] [--fixed V ...] [--modes N] [--netcdf FILE.nc] [--plot
FILE.png] [--workers N]``: a workspace map (:func:`flexpkm.analysis.workspace_map.workspace_map`)
of the first natural frequencies, the Type 2 measure, condition numbers and
the platform compliance over a grid of the case's pose components; masked
cells counted by cause."""
from __future__ import annotations

import re

from flexpkm.cli.common import (actuator_stiffness, add_actuator_stiffness, add_backend,
                                case_command, backend_text, count, emit, finite, options_of,
                                progress_callback)
from flexpkm.cli.runs import add_force, interrupted, interrupts_deferred, start_file_run
from flexpkm.errors import InvalidArgumentError


def register(subparsers, files=()):
    case_command(subparsers, "map", _options, run,
                 help="workspace map: frequencies, Type 2 measure and compliance over a grid",
                 description="Natural frequencies, the Type 2 measure, condition numbers and the "
                             "platform's static compliance over a grid of poses (1 to 3 axes, the "
                             "first pose components), assembled by continuation; unreachable, "
                             "singular and other-mode cells masked and counted by cause.",
                 pose=False,
                 files=files)


#: a value that starts with "-" but is a number or a grid axis (-0.1:0.1:21)
NEGATIVE_VALUE = re.compile(r"^-(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?(:[-+.\deE]*)*$")


def _options(p, case):
    p._negative_number_matcher = NEGATIVE_VALUE         # --grid -0.2:0.4:13 is a value
    names = " ".join(case.pose_names)
    p.add_argument("--grid", nargs="+", required=True, metavar="X0:X1:N",
                   help=f"1 to 3 axes over the pose components in order ({names}; SI units), "
                        "each from:to:number of values")
    p.add_argument("--over", choices=("pose", "q_a"), default="pose",
                   help="map over the platform pose (default) or the actuated coordinates "
                        "(a description file's robot)")
    p.add_argument("--fixed", nargs="+", type=finite, default=None, metavar="V",
                   help="values of the pose components after the mapped ones (default: the "
                        "reference configuration's, or 0 for a closed-form pose)")
    p.add_argument("--modes", type=count, default=5, metavar="N",
                   help="number of frequencies, lowest first (default 5)")
    p.add_argument("--netcdf", metavar="FILE.nc", help="the map as a NetCDF file (xarray)")
    p.add_argument("--plot", metavar="FILE.png", help="contours of f1 (slices of a 3D map)")
    p.add_argument("--chunk", type=count, default=128, metavar="N",      # workspace_map.CHUNK
                   help="cells per eigensolver call (default 128)")
    p.add_argument("--workers", type=count, default=None, metavar="N",
                   help="processes of the eigenproblems, chunk by chunk (default: every core; "
                        "1: in this process; a map of one chunk runs here)")
    add_backend(p)
    add_actuator_stiffness(p)
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_force(p)


def map_inputs(case, model, options, over="pose"):
    """``(configure, names, units, over)`` of a case's map: configure None
    (the numerical assembly of
    :class:`flexpkm.analysis.grid_assembly.NumericalAssembler`) when the
    case's pose is the model's commanded platform coordinates or its
    actuated ones (a robot without a platform: over q_a), else the case's
    batched closed form (the NaVARo's x, y, theta) over its pose components,
    its ``masked_configure`` when it has one (refused poses as NaN rows and
    statuses: no bisection of a batch)."""
    from flexpkm.analysis.grid_assembly import NumericalAssembler
    from flexpkm.datasets import unit_of
    over = "q_a" if model.platform is None else over
    numerical = NumericalAssembler(model, over)
    if over == "q_a" or tuple(case.pose_names) == numerical.names:
        names = numerical.names
        return None, names, tuple(unit_of(model, n) for n in names), over
    masked = case.extra.get("masked_configure")         # NaN rows, not exceptions
    configure = case.configure if masked is None else masked
    return (lambda poses: configure(model, poses, options)), tuple(case.pose_names), \
        tuple(case.pose_units), over


def run(args) -> int:
    from dataclasses import replace

    from flexpkm.algorithms.reference import build_model
    from flexpkm.analysis.workspace_map import workspace_map
    from flexpkm.io.map_output import plot_map, write_netcdf
    from flexpkm.model.refine import refine
    if not (args.netcdf or args.plot):
        raise InvalidArgumentError("nothing to write: give --netcdf FILE.nc and/or --plot FILE.png")
    if args.plot:
        from flexpkm.io.plots import image_format
        image_format(args.plot)
    if args.netcdf:
        from flexpkm.optional import require
        require("xarray", "map NetCDF files")
    case, options = args.case, options_of(args)
    robot = case.robot(options)
    robot = refine(robot, args.elements) if args.elements > 1 else robot
    stiffness = actuator_stiffness(args, robot)
    run_ = start_file_run([args.netcdf, args.plot], args, robot)
    try:
        model = build_model(robot)
        configure, names, units, over = map_inputs(case, model, options, args.over)
        result = workspace_map(model, args.grid, n_modes=args.modes, configure=configure,
                               names=names, over=over, fixed=args.fixed,
                               actuator_stiffness=stiffness, chunk=args.chunk,
                               backend=args.backend, progress=progress_callback(args, "map"),
                               workers=args.workers)
        result = replace(result, units=units[:len(result.grid.axes)])
        written = []
        with interrupts_deferred():
            if args.netcdf:
                written.append(run_.add(write_netcdf(result.to_xarray(), args.netcdf)))
            if args.plot:
                written.append(run_.add(plot_map(result, args.plot)))
    except KeyboardInterrupt as e:
        return interrupted(run_, "interrupted: no map written", e)
    except BaseException as e:
        run_.fail(e)
        raise
    counts = result.counts()
    run_.note(cells=int(result.status.size), **{k.replace("-", "_"): n for k, n in counts.items()})
    run_.finish("completed")
    text = ", ".join(f"{n} {k}" for k, n in sorted(counts.items()))
    emit(args, {"case": case.name, "cells": int(result.status.size), "counts": counts,
                "backend": result.backend, "backend_reason": result.backend_reason,
                "written": [str(p) for p in written]},
         [f"wrote {p}" for p in written] + [f"{result.status.size} cells: {text}",
                                            backend_text(result)])
    return 0
