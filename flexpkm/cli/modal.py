"""``flexpkm modal CASE [pose] [--modes N] [--json] [--actuator-stiffness K ...]``:
natural frequencies at a pose (Chapter 11), with the published values when
the case has them."""
from __future__ import annotations

import json
import sys
import time

import numpy as np

from flexpkm.cli.common import (actuator_stiffness, add_actuator_stiffness, add_backend,
                                case_command, backend_text, compilation_timer, count,
                                pose_text, resolve)
from flexpkm.errors import InvalidArgumentError

#: rows printed when --modes is not given
SHOWN = 20


def register(subparsers, files=()):
    case_command(subparsers, "modal", _options, run,
                 help="natural frequencies of a robot at a pose",
                 description="Natural frequencies at a pose (Eqs. 11.34-11.42).",
                 files=files)


def _options(p, case):
    p.add_argument("--modes", type=count, default=None, metavar="N",
                   help="number of modes, lowest first (default: all; 20 shown)")
    add_actuator_stiffness(p)
    add_backend(p)
    p.add_argument("--sensitivities", nargs="+", default=None, metavar="PATH",
                   help="exact derivatives df/dp of the frequencies to numbers of the "
                        "robot's file (materials, sections, masses, lengths, MDH parameters, "
                        "platform joints, joint springs; a change of geometry keeps --pose "
                        "or --q-a), e.g. legs[0].frames[2].bodies[0].material.E")


def run(args) -> int:
    from flexpkm.analysis.modal import natural_frequencies
    case, model, options, pose, q_tot = resolve(args)
    stiffness = actuator_stiffness(args, model)
    if args.sensitivities:
        from flexpkm.cli.sensitivities import run_sensitivities
        if stiffness is not None and args.actuator_stiffness is None:
            raise InvalidArgumentError("--sensitivities: with the actuators locked only; the file "
                                       "gives actuator_stiffness")
        if args.backend != "auto":
            raise InvalidArgumentError("--sensitivities: computed by AD of the symbolic model "
                                       "(CasADi), which --backend does not choose; drop "
                                       f"--backend {args.backend}")
        return run_sensitivities(args, case, model, pose, q_tot, pose_text(case, pose, options))
    t0 = time.perf_counter()
    with compilation_timer(model.name) as built:
        modes = natural_frequencies(model, q_tot, n_modes=args.modes,
                                    actuator_stiffness=stiffness, backend=args.backend)
    elapsed = max(time.perf_counter() - t0 - built["seconds"], 0.0)
    f = modes.frequencies_hz
    if args.json:
        layout = model.layout
        rigid = list(layout.joint_index.values()) + list(range(layout.n_t, layout.n_tot))
        print(json.dumps({"case": case.name, "pose": case.pose_dict(pose, options),
                          "configuration": {layout.names[i]: float(q_tot[i]) for i in rigid},
                          "frequencies_hz": [float(x) for x in f],
                          "independent_coordinates": list(modes.names),
                          "dependent_choice": modes.reduced.choice,
                          "dependent_coordinates": list(modes.reduced.dep_names),
                          **conditioning(modes), "backend": modes.backend,
                          "backend_reason": modes.backend_reason, "seconds": elapsed},
                         allow_nan=False))
        return 0
    print(f"{model.name} natural frequencies at {pose_text(case, pose, options)}")
    dep = modes.reduced.dep_names
    shown = ", ".join(dep[:8]) + (f", ... ({len(dep)} in all)" if len(dep) > 8 else "")
    state = "actuators locked" if stiffness is None else "elastic actuators"
    print(f"({len(modes.names)} independent coordinates, {state}; "
          f"q_dep chosen {modes.reduced.choice}: {shown})")
    ref = (case.reference(tuple(pose), options)
           if stiffness is None and pose is not None and args.elements == 1 else None)
    label = f"{case.reference_label} (Hz)"
    print(" mode   f (Hz)" + (f"   {label:>9s}   diff" if ref is not None else ""))
    n_show = len(f) if args.modes is not None else min(len(f), SHOWN)
    for i, fi in enumerate(f[:n_show]):
        line = f"{i + 1:5d} {fi:9.3f}"
        if ref is not None and i < len(ref):
            line += f"   {ref[i]:9.2f}  {100 * (fi - ref[i]) / ref[i]:+6.2f} %"
        print(line)
    if n_show < len(f):
        print(f"  ... {len(f) - n_show} more (use --modes N)")
    c = conditioning(modes)
    rep = [k for k in c["repeated_modes"] if k < n_show]
    print(f"cond(J_t^f) = {c['cond_closure']:.3g}, cond(K, M) = {c['cond_pencil']:.3g}, "
          f"Type 2 measure = {c['singularity_measure']:.3g}"
          + ("; repeated: modes " + ", ".join(str(k + 1) for k in rep) if rep else ""))
    print(f"computed in {1e3 * elapsed:.1f} ms; {backend_text(modes)}")
    return 0


def conditioning(modes) -> dict:
    """The trust indicators of a one-pose :class:`Modes` (JSON-safe: an
    infinite condition number is written as 1e308), and a warning line on
    stderr when it is near-singular (docs/robustness.md)."""
    from flexpkm.algorithms.conditioning import NEAR_SINGULAR_COND, NEAR_SINGULAR_MEASURE
    finite = lambda x: float(min(float(x), 1e308))
    out = {"cond_closure": finite(modes.cond_closure), "cond_pencil": finite(modes.cond_pencil),
           "singularity_measure": float(modes.singularity_measure),
           "near_singular": bool(modes.near_singular),
           "repeated_modes": [int(k) for k in np.flatnonzero(modes.repeated)]}
    if out["near_singular"]:
        print(f"flexpkm: warning: near-singular configuration (cond(J_t^f) = "
              f"{out['cond_closure']:.3g}, threshold {NEAR_SINGULAR_COND:g}; Type 2 measure "
              f"{out['singularity_measure']:.3g}, threshold {NEAR_SINGULAR_MEASURE:g}): the "
              "lowest frequencies are unreliable", file=sys.stderr)
    return out
