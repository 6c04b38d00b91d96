"""``flexpkm simulate CASE --maneuver NAME [--prescribed | --pd | --free]
[--no-friction] [--t-end T] [--step H] [--wrench FX FY FZ MX MY MZ] [--out
DIR]``: time simulation of the full elastodynamic model (Sections
10.4-10.7) and its outputs; ``--wrench``: a constant external wrench on the
platform (at P, base frame; numpy backend).

``flexpkm simulate FILE.toml (--to Q_A ... [--duration T] | --trajectory
FILE.csv)``: a robot of a description file, its actuators prescribed from
the reference configuration to ``--to`` with the quintic law (D.13), or
along the samples of a CSV file (``t, q_a...``)."""
from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from flexpkm.cli.common import (add_backend, case_command, add_wrench, backend_text, can_plot,
                                compilation_timer, count, emit,
                                finite, model_of, positive, progress_callback)
from flexpkm.cli.runs import add_force, interrupted, interrupts_deferred, start_run
from flexpkm.errors import Interrupted, InvalidArgumentError, StepConvergenceError

#: output period of the command line, s
DT_OUT = 1e-3
#: the files of a simulation in its output folder (replaced with --force)
OWNED = ("simulation.*",)


def register(subparsers, files=()):
    case_command(subparsers, "simulate", _options, run,
                 help="elastodynamic time simulation of a robot",
                 description="Time simulation of the full elastodynamic model.",
                 pose=False,
                 only=lambda c: c.simulation is not None or "file" in c.extra,
                 files=files)


def _options(p, case):
    if "file" in case.extra:
        _file_options(p)
    else:
        p.add_argument("--maneuver", required=True, choices=case.maneuvers,
                       help="actuator motion from rest (see the case's documentation)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--prescribed", dest="drive", action="store_const", const="prescribed",
                   help="actuator motion prescribed, efforts computed (default)")
    g.add_argument("--pd", dest="drive", action="store_const", const="pd",
                   help="joint PD control tracking the maneuver")
    g.add_argument("--free", dest="drive", action="store_const", const="free",
                   help="no actuator effort")
    p.add_argument("--no-friction", action="store_true", help="no joint friction (default: on)")
    p.add_argument("--t-end", type=positive, default=None,
                   help="simulated time, s (default: the maneuver's duration)")
    p.add_argument("--step", type=positive, default=2.5e-4,
                   help="integration step, s (default 2.5e-4; made a divisor of the 1 ms output period)")
    p.add_argument("--tol", type=positive, default=None,
                   help="Newton's residual relative to the step's forces (default 1e-6)")
    p.add_argument("--iterations", type=count, default=None,
                   help="Newton's iteration limit per step (default 8; a sample that does "
                        "not converge is redone with smaller steps)")
    add_wrench(p)
    _motor_options(p)
    add_backend(p)
    p.add_argument("--out", default="out", help="output directory (default out)")
    p.add_argument("--xdmf", action="store_true",
                   help="also write the XDMF time series of the deformed robot (ParaView; "
                        "h5py; 100 frames per simulated second, ~0.07 s each)")
    p.add_argument("--no-xdmf", dest="xdmf", action="store_false", help=argparse.SUPPRESS)
    p.add_argument("--no-progress", action="store_true",
                   help="no progress bar (default: a bar when stderr is a terminal)")
    add_force(p)
    p.set_defaults(drive="prescribed")


def _motor_options(p):
    """``--actuator-stiffness K ...``, ``--motor-inertia I ...``: elastic
    transmissions with motor coordinates (Section 10.5)."""
    p.add_argument("--actuator-stiffness", nargs="+", type=positive, default=None, metavar="K",
                   help="transmission stiffness k_a of each actuator (or one for all), N m/rad "
                        "or N/m: motor coordinates q_M joined to the actuated joints by springs, "
                        "the drive on the motors (Eqs. 10.125-10.126; default: rigid)")
    p.add_argument("--motor-inertia", nargs="+", type=finite, default=None, metavar="I",
                   help="rotor inertia I_a of each motor (or one for all), kg m^2 or kg, joint "
                        "side; > 0 with --free or --pd (needs --actuator-stiffness)")
    p.add_argument("--motor-coulomb", nargs="+", type=finite, default=None, metavar="F",
                   help="Coulomb friction f_sM of each motor (or one for all), N m or N, joint "
                        "side: f_sM tanh(qd_M / 1e-3 rad/s) (needs --actuator-stiffness)")


def _motor_settings(args, model) -> dict:
    """The SimulationOptions fields of ``--actuator-stiffness``,
    ``--motor-inertia`` and ``--motor-coulomb``, given in the order of the actuated joints
    (``model.layout.actuated``), in the order of q_a (ascending columns)."""
    out = {}
    for name in ("actuator_stiffness", "motor_inertia", "motor_coulomb"):
        given = getattr(args, name)
        if given is not None and len(given) > 1:
            order = np.argsort(list(model.layout.actuated), kind="stable")
            given = [given[i] for i in order] if len(given) == len(order) else given
        if given is not None:
            out[name] = given
    return out


def _file_options(p):
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--to", nargs="+", type=finite, metavar="Q_A",
                   help="final actuated coordinates, m or rad (from the reference configuration)")
    g.add_argument("--trajectory", metavar="FILE.csv",
                   help="actuated coordinates along time: a header, then rows t, q_a...")
    p.add_argument("--duration", type=positive, default=1.0,
                   help="time of the motion to --to, s (default 1; then at rest)")


def _file_setup(args):
    """(model, q0_tot, drive, sensors, duration, label) of a file's robot."""
    from flexpkm.analysis.drives import Free, PrescribedMotion
    from flexpkm.analysis.trajectories import Trajectory, read_trajectory_csv
    model = model_of(args)
    q0 = args.case.configure(model, None, {})
    n_a = len(model.layout.actuated)
    q_a0 = q0[list(model.layout.actuated)]
    if args.trajectory:
        traj, label = read_trajectory_csv(args.trajectory, n_a), args.trajectory
        q0 = args.case.configure(model, None, {"q_a": traj(0.0)[0][0]})
    else:
        if len(args.to) != n_a:
            raise InvalidArgumentError(f"--to: {n_a} actuated coordinates expected, got {len(args.to)}")
        traj = Trajectory(np.array([q_a0, args.to]), (args.duration,), (0.0,))
        label = f"to {' '.join(f'{v:g}' for v in args.to)} in {args.duration:g} s"
    drive = {"prescribed": lambda: PrescribedMotion(traj), "free": Free}.get(args.drive)
    if drive is None:
        raise InvalidArgumentError("--pd needs gains: use --prescribed or --free with a file")
    return model, q0, drive(), {}, (traj.duration if args.trajectory else args.duration), label


def _refined(model, q0, n):
    """The model with n elements per flexible body and its state: joint and
    platform coordinates copied by name (the shipped initial states are at
    rest with q_e = 0)."""
    from flexpkm.algorithms.reference import build_model
    from flexpkm.model.refine import refine
    old = build_model(model).layout
    if any(q0[i] for s in old.elastic_slice.values() for i in range(s.start, s.stop)):
        raise InvalidArgumentError("--elements: the initial state is deformed; refine the file")
    fine = build_model(refine(model.robot if hasattr(model, "robot") else model, n))
    q = np.zeros(fine.layout.n_tot)
    for k, name in enumerate(old.names):
        if name in fine.layout.names:
            q[fine.layout.index(name)] = q0[k]
    return fine, q


def run(args) -> int:
    from flexpkm.analysis.simulate import check_times, simulate
    from flexpkm.analysis.simulation_options import SimulationOptions
    case = args.case
    if "file" in case.extra:
        model, q0, drive, sensors, duration, label = _file_setup(args)
    else:
        duration, label = case.duration(args.maneuver), args.maneuver
    t_end = args.t_end if args.t_end is not None else duration
    n_sub, _ = check_times(t_end, args.step, DT_OUT)       # before the simulation is set up
    newton = {k: v for k, v in (("tol", args.tol), ("iterations", args.iterations))
              if v is not None}
    settings = SimulationOptions(h=args.step, dt_out=DT_OUT, friction=not args.no_friction,
                                 coulomb_smoothing=1e-3, **newton)
    if "file" not in case.extra:
        model, q0, drive, sensors = case.simulation(args.maneuver, args.drive, {})
        if args.elements > 1:
            model, q0 = _refined(model, q0, args.elements)
    settings = settings.with_settings(**_motor_settings(args, model))
    plot = _optional_outputs(args)                         # before the simulation
    run_ = start_run(args.out, args, model, OWNED)
    if abs(n_sub * args.step - DT_OUT) > 1e-9 * DT_OUT:
        print(f"flexpkm: note: step {args.step:g} s -> {DT_OUT / n_sub:.6g} s "
              f"(a divisor of the {DT_OUT * 1e3:g} ms output period)", file=sys.stderr)
    t0 = time.perf_counter()
    try:
        with compilation_timer(model.name) as built:
            res = simulate(model, q0, t_end, drive, options=settings, backend=args.backend,
                           sensors=sensors, progress=progress_callback(args, "simulate"),
                           wrench=args.wrench)
        build = built["seconds"]
        wall = max(time.perf_counter() - t0 - build, 0.0)
        res = _with_ground(model, res, args)
    except Interrupted as e:
        _write(model, e.partial, args, run_, plot)
        return interrupted(run_, f"{e}; wrote the samples so far to {args.out}", e)
    except StepConvergenceError as e:
        _write(model, e.partial, args, run_, plot)
        run_.finish("failed")
        print(f"flexpkm: error: {e}; wrote the samples up to t = {e.partial.t[-1]:g} s to "
              f"{args.out}", file=sys.stderr)
        return e.exit_status
    except BaseException as e:
        run_.fail(e)
        raise
    files = _write(model, res, args, run_, plot)
    run_.finish("completed")
    speed = wall / max(t_end, 1e-12)
    emit(args, {"robot": model.name, "motion": label, "drive": args.drive, "t_end_s": t_end,
                "seconds": wall, "seconds_per_simulated_second": speed, "compile_seconds": build,
                **{k: res.cost[k] for k in ("steps", "h", "newton_iterations")},
                "newton_residual_max": res.residual.max(), "retried_steps": res.retried_steps,
                "drift_max": res.drift.max(), "tau_max": abs(res.tau).max(axis=0),
                "backend": res.backend, "backend_reason": res.backend_reason, "written": files},
         [f"{model.name}: {label}, {args.drive}, {t_end:g} s simulated in {wall:.1f} s "
          f"({speed:.2f} s per simulated second), "
          f"{res.cost['steps']} steps of {res.cost['h']:.6g} s, "
          f"{res.cost['newton_iterations']} Newton iterations",
          f"largest Newton residual {res.residual.max():.2e} (relative to the step's forces), "
          f"{res.retried_steps} steps retried with a smaller step",
          f"max loop-closure drift {res.drift.max():.2e}; "
          f"max |tau| = {abs(res.tau).max(axis=0)} (N or N m)", backend_text(res)]
         + [f"wrote {f}" for f in files])
    return 0


def _optional_outputs(args) -> bool:
    """Whether the PNG is written (:func:`flexpkm.cli.common.can_plot`);
    ``--xdmf`` without h5py: MissingDependencyError, before anything is
    computed."""
    from flexpkm.optional import require
    if args.xdmf:
        require("h5py", "the XDMF time series (--xdmf)")
    return can_plot("simulation.png")


def _with_ground(model, res, args):
    """``res`` with its ground reactions (8.206) at the samples (the run's
    friction and wrench; numpy full model again, in blocks)."""
    from dataclasses import replace
    from flexpkm.analysis.ground_history import simulation_ground_reactions
    return replace(res, ground=simulation_ground_reactions(
        model, res, friction=not args.no_friction, coulomb_smoothing=1e-3, wrench=args.wrench))


def _write(model, res, args, run_, plot=True) -> list:
    """The output files of ``res`` (Ctrl-C deferred until they are complete)."""
    from flexpkm.io.sim_output import write_outputs
    run_.note(samples=len(res.t), t_end_s=float(res.t[-1]), step_s=res.cost.get("h"),
              newton_residual_max=float(res.residual.max()), retried_steps=res.retried_steps,
              backend=res.backend, backend_reason=res.backend_reason)
    try:
        with interrupts_deferred():
            return write_outputs(model, res, args.out, xdmf=args.xdmf, run=run_, plot=plot)
    except BaseException as e:               # a full disk...: the manifest says which files are whole
        run_.fail(e)
        raise
