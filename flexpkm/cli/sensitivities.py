"""``flexpkm modal CASE --sensitivities PATH ...``: derivatives of the
natural frequencies (actuators locked) with respect to parameters of the
robot's description (:mod:`flexpkm.compiled.sensitivity`); a parameter that
moves frames is taken at the same pose (``--pose``) or the same actuated
coordinates (``--q-a``), as the case's pose is given."""
from __future__ import annotations

import json
from pathlib import Path

from flexpkm.errors import InvalidArgumentError


def description(case, model, args):
    """``(data, what)``: the dict the key paths refer to: the user's file as
    written (a section by its ``shape`` and sides stays so) when the robot
    comes from a file, without ``--variant`` or ``--elements``; else the TOML
    form of the robot (``flexpkm.model.files.dumps``: sections as A, Iy, Iz, J)."""
    from flexpkm.model.build import build_structure
    from flexpkm.model.files import Where, dumps, from_dict, parse
    file = (case.extra or {}).get("file")
    if file and args.elements == 1 and not getattr(args, "variant", None):
        data = parse(Path(file).read_text(encoding="utf-8"), Where(file))
        if build_structure(from_dict(data)).layout.names == model.layout.names:
            return data, file
    return parse(dumps(model.robot), Where("<robot>")), "the TOML form of the robot"


def run_sensitivities(args, case, model, pose, q_tot, pose_text) -> int:
    """Print (or write as JSON) ``f_i`` and ``df_i/dp`` for each key path of
    ``args.sensitivities`` in the robot's description (:func:`description`)."""
    from flexpkm.compiled.sensitivity import frequency_sensitivities
    if args.actuator_stiffness is not None:
        raise InvalidArgumentError("--sensitivities: with the actuators locked only "
                                   "(no --actuator-stiffness)")
    data, what = description(case, model, args)
    paths = list(args.sensitivities)
    try:
        f, df = frequency_sensitivities(data, paths, q_tot, n_modes=args.modes,
                                        hold="q_a" if case.pose_option == "q-a" else "pose")
    except (KeyError, IndexError, TypeError) as err:
        raise InvalidArgumentError(f"--sensitivities: no number at that key path in {what} "
                                   f"({err}); paths read like "
                                   "legs[0].frames[2].bodies[0].material.E") from None
    if args.json:
        print(json.dumps({"case": case.name, "frequencies_hz": [float(x) for x in f],
                          "sensitivities": {p: [float(x) for x in df[:, k]]
                                            for k, p in enumerate(paths)}}))
        return 0
    held = "actuated coordinates" if case.pose_option == "q-a" else "platform pose"
    print(f"{model.name} natural frequencies at {pose_text}, actuators locked, and their "
          f"derivatives (Hz per unit of the parameter; same {held})")
    for k, p in enumerate(paths):
        print(f"  p{k + 1} = {p}")
    print(" mode   f (Hz)" + "".join(f"   {f'df/dp{k + 1}':>12s}" for k in range(len(paths))))
    for i, fi in enumerate(f):
        print(f"{i + 1:5d} {fi:9.3f}" + "".join(f"   {x:12.5g}" for x in df[i]))
    return 0
