"""``flexpkm study FILE.toml|CASE STUDY.toml --out FOLDER [--workers N |
--scheduler ADDRESS] [--resume]``: a design study
(:func:`flexpkm.analysis.study.design_study`): the designs of the study file
over its pose grid, in chunks written to FOLDER as they arrive; prints the
best designs by the worst-pose first frequency."""
from __future__ import annotations

from pathlib import Path

from flexpkm.cli.common import count, emit, progress_callback
from flexpkm.cli.runs import add_force, interrupted, start_run


def register(subparsers, files=()):
    p = subparsers.add_parser(
        "study", help="design study: parameters of the file sampled, each design mapped",
        description="Design study: the parameters of the study file (key paths of the "
                    "robot's description file) sampled on a grid or a Latin hypercube, each "
                    "design evaluated over the study's pose grid (min f1, mass, largest "
                    "compliance); local worker processes by default, a Dask cluster with "
                    "--scheduler; results written per chunk into --out, --resume continues.")
    p.add_argument("robot", metavar="FILE.toml|CASE", help="the robot's description file or a "
                                                           "shipped case")
    p.add_argument("study", metavar="STUDY.toml", help="the study file (docs/maps.md)")
    p.add_argument("--out", required=True, metavar="FOLDER",
                   help="output folder: chunks/, spec.json, study.nc")
    p.add_argument("--workers", type=count, default=None, metavar="N",
                   help="local worker processes (default: every core; 1: in this process)")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="a Dask scheduler (tcp://host:8786) instead of local processes "
                        "(pip install 'flexpkm[cluster]')")
    p.add_argument("--resume", action="store_true",
                   help="continue the study already in --out (its chunks are kept)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_force(p)
    p.set_defaults(func=run)


def robot_file(name) -> Path:
    """The description file of ``name``: a path, or a shipped case's file."""
    if name.endswith(".toml") or Path(name).exists():
        return Path(name)
    from flexpkm.cases.shipped import file_of
    return Path(file_of(name))


def run(args) -> int:
    from flexpkm.analysis.study import design_study, read_study
    from flexpkm.optional import require
    require("xarray", "design studies")
    kwargs = read_study(args.study)
    client = None
    if args.scheduler:
        from flexpkm.analysis.execution import connect
        client = connect(args.scheduler)
    args.force = args.force or args.resume          # study.nc of the run resumed is replaced
    run_ = start_run(args.out, args, owned=("study.nc",))
    try:
        ds = design_study(robot_file(args.robot), folder=args.out, workers=args.workers,
                          client=client, resume=args.resume,
                          progress=progress_callback(args, "study"), **kwargs)
    except KeyboardInterrupt as e:
        return interrupted(run_, f"interrupted; the finished chunks are in {args.out}: "
                                 "--resume continues", e)
    except BaseException as e:
        run_.fail(e)
        raise
    finally:
        if client is not None:
            client.close()
    run_.add(Path(args.out) / "study.nc")
    run_.finish("completed")
    order = ds.min_f1_hz.fillna(-1.0).argsort().values[::-1][:3]
    best = [f"design {int(k)}: min f1 {float(ds.min_f1_hz[k]):.4g} Hz, mass "
            f"{float(ds.mass_kg[k]):.4g} kg, " + ", ".join(
                f"{p} = {float(v):.4g}" for p, v in zip(ds.parameter.values, ds.value[k].values))
            for k in order]
    emit(args, {"designs": int(ds.sizes["design"]), "cells": int(ds.sizes["cell"]),
                "written": str(Path(args.out) / "study.nc"),
                "best": [int(k) for k in order]},
         [f"wrote {Path(args.out) / 'study.nc'}",
          f"{ds.sizes['design']} designs x {ds.sizes['cell']} poses; best by min f1:"] + best)
    return 0
