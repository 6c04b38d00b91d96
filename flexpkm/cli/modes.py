"""``flexpkm modes CASE [pose] [--modes N | --mode-numbers LIST] [--png DIR]
[--gif] [--vtu DIR] [--xdmf FILE] ...``: pictures and meshes of mode shapes."""
from __future__ import annotations

from pathlib import Path

from flexpkm.cli.common import (actuator_stiffness, add_actuator_stiffness, add_backend,
                                case_command, backend_text, count, emit, pose_text, positive,
                                resolve)
from flexpkm.cli.runs import add_force, interrupts_deferred
from flexpkm.errors import InvalidArgumentError


def parse_mode_numbers(text: str) -> list:
    """``"1-6"`` / ``"1,3,5"`` / ``"2-4,7"`` -> [(lo, hi), ...] 1-based
    inclusive ranges (not expanded: the largest number is checked against
    the model before anything is allocated). Raises InvalidArgumentError."""
    ranges = []
    try:
        for item in text.split(","):
            lo, _, hi = item.strip().partition("-")
            lo, hi = int(lo), int(hi or lo)
            if lo < 1 or hi < lo:
                raise ValueError
            ranges.append((lo, hi))
    except ValueError:
        raise InvalidArgumentError(
            f"--mode-numbers {text!r}: use e.g. 1-6, 1,3,5 or 2-4,7 (1-based)") from None
    return ranges


def mode_numbers(args, n_available: int) -> list:
    """The sorted 1-based mode numbers asked for, at most ``n_available``."""
    if args.mode_numbers is None:
        return list(range(1, min(args.modes, n_available) + 1))
    ranges = parse_mode_numbers(args.mode_numbers)
    top = max(hi for _, hi in ranges)
    if top > n_available:
        raise InvalidArgumentError(f"cannot draw mode {top}: the robot has at most {n_available} modes")
    return sorted({k for lo, hi in ranges for k in range(lo, hi + 1)})


def register(subparsers, files=()):
    case_command(subparsers, "modes", _options, run,
                 help="pictures and meshes of mode shapes at a pose",
                 description="Mode shapes at a pose: PNG (and GIF) pictures, "
                             "VTU meshes, an XDMF series.",
                 files=files)


def _options(p, case):
    which = p.add_mutually_exclusive_group()
    which.add_argument("--modes", type=count, default=6, metavar="N",
                       help="the N lowest modes (default 6)")
    which.add_argument("--mode-numbers", metavar="LIST", default=None,
                       help="mode numbers instead, e.g. 1-6, 1,3,5 or 2-4,7")
    p.add_argument("--png", metavar="DIR", help=f"write DIR/{case.name}_mode_K.png")
    p.add_argument("--gif", action="store_true",
                   help=f"also write DIR/{case.name}_mode_K.gif (with --png)")
    p.add_argument("--vtu", metavar="DIR", help=f"write DIR/{case.name}_mode_K.vtu (meshio)")
    p.add_argument("--xdmf", metavar="FILE", help="write the modes as the time steps of one XDMF file")
    p.add_argument("--scale", type=positive, default=None,
                   help="displacement factor of the pictures (default: automatic)")
    p.add_argument("--fraction", type=positive, default=0.1,
                   help="automatic scale: largest displacement / robot size (default 0.1)")
    p.add_argument("--view", choices=("auto", "normal", "iso"), default=case.view,
                   help=f"camera: along the plane normal, or isometric from above (default {case.view})")
    p.add_argument("--normalize", choices=("mass", "max"), default="mass",
                   help="exported field: mass-normalised mode, or largest displacement = 1 m "
                        "(default mass)")
    add_actuator_stiffness(p)
    add_backend(p)
    add_force(p)


def run(args) -> int:
    from flexpkm.analysis.modal import natural_frequencies
    if not (args.png or args.vtu or args.xdmf):
        raise InvalidArgumentError("nothing to write: give --png DIR, --vtu DIR and/or --xdmf FILE")
    if args.gif and not args.png:
        raise InvalidArgumentError("--gif writes next to the PNGs: give --png DIR")
    case, model, options, pose, q_tot = resolve(args)
    numbers = mode_numbers(args, model.layout.n_tot)
    stiffness = actuator_stiffness(args, model)
    run_ = _start(args, case, model)                       # outputs checked before computing
    try:
        modes = natural_frequencies(model, q_tot, n_modes=max(numbers),
                                    actuator_stiffness=stiffness, backend=args.backend)
        run_.note(backend=modes.backend, backend_reason=modes.backend_reason)
        n = modes.frequencies_hz.shape[-1]
        if args.mode_numbers is None:
            numbers = [k for k in numbers if k <= n]        # "the N lowest": at most all of them
        if numbers[-1] > n:
            raise InvalidArgumentError(f"{model.name} has {n} modes; cannot draw mode {numbers[-1]}")
        with interrupts_deferred():
            written = [run_.add(p) for p in _write(args, case, model, q_tot, modes, numbers, pose,
                                                   options)]
    except BaseException as e:
        run_.fail(e)
        raise
    run_.finish("completed")
    f = modes.frequencies_hz
    emit(args, {"case": case.name, "pose": case.pose_dict(pose, options),
                "modes": {str(k): f[k - 1] for k in numbers},
                "backend": modes.backend, "backend_reason": modes.backend_reason,
                "written": written},
         [f"{model.name} at {pose_text(case, pose, options)}; {backend_text(modes)}"]
         + [f"  mode {k}: {f[k - 1]:.3f} Hz" for k in numbers]
         + [f"wrote {path}" for path in written])
    return 0


def _start(args, case, model):
    """The run manifest: ``run.json`` in the PNG (else VTU) folder, else
    ``FILE.run.json`` beside the XDMF file; the other outputs checked."""
    from flexpkm.cli.runs import start_file_run, start_run
    from flexpkm.io.run_files import check_output_file, check_writable
    if args.xdmf:
        check_output_file(args.xdmf)
    folders = [d for d in (args.png, args.vtu) if d]
    for d in folders:
        check_writable(d)
    if not folders:
        return start_file_run([args.xdmf], args, model.robot)
    owned = [f"{case.name}_mode_*.png", f"{case.name}_mode_*.gif", f"{case.name}_mode_*.vtu"]
    elsewhere = [p for d in folders[1:] for pattern in owned for p in Path(d).glob(pattern)]
    return start_run(folders[0], args, model.robot, owned,          # --vtu in another folder
                     targets=elsewhere + ([Path(args.xdmf)] if args.xdmf else []))


def _write(args, case, model, q_tot, modes, numbers, pose, options) -> list:
    from flexpkm.io.export import write_modes_vtu, write_modes_xdmf
    from flexpkm.io.viz import render_modes
    written = []
    if args.png:
        written += render_modes(model, q_tot, modes, numbers, args.png, case.name,
                                fraction=args.fraction, scale=args.scale, gif=args.gif,
                                pose=case.pose_dict(pose, options), view=args.view)
    if args.vtu:
        written += write_modes_vtu(model, q_tot, modes, numbers, args.vtu, case.name,
                                   normalize=args.normalize)
    if args.xdmf:
        written.append(write_modes_xdmf(model, q_tot, modes, numbers, args.xdmf,
                                        normalize=args.normalize))
    return written
