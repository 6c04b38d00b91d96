"""``flexpkm modal CASE --sensitivities PATH ...``: derivatives of the
natural frequencies (actuators locked) with respect to parameters of the
robot's description file, the shipped one for a case (:mod:`flexpkm.compiled.sensitivity`); a parameter that
moves frames is taken at the same pose (``--pose``) or the same actuated
coordinates (``--q-a``), as the case's pose is given."""
from __future__ import annotations

import json
from pathlib import Path

from flexpkm.cli.common import options_of
from flexpkm.errors import InvalidArgumentError


def description(case, model, args):
    """``(data, what)``: the dict the key paths refer to: the robot's
    description file as written (:attr:`flexpkm.cases.Case.source`; a
    section by its ``shape`` and sides stays so), with the case's variant
    (:attr:`flexpkm.cases.Case.variant`: ``--variant``, the NaVARo's
    ``--refined``...) and ``--elements`` applied. Raises
    :class:`InvalidArgumentError` for a robot without a description file."""
    from flexpkm.model.files import Where, check_schema, parse
    from flexpkm.model.variants import apply_variant
    file = case.source
    if not file:
        raise InvalidArgumentError(f"--sensitivities: case {case.name} has no description file")
    where = Where(file)
    data = parse(Path(file).read_text(encoding="utf-8"), where)
    variant = case.variant(options_of(args))
    if variant is not None:
        data = check_schema(apply_variant(data, variant, where), where)
    if args.elements > 1:
        data["elements"] = args.elements
    return data, file


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
