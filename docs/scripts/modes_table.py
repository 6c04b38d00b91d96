"""The table of docs/modes.md: every assembly mode (at the reference's
actuated coordinates) and every working mode (at the reference's pose) of
each shipped rigid robot, by :func:`flexpkm.assembly_modes` and
:func:`flexpkm.working_modes` with their default 1024 starts: the count,
the distinct platform poses, the starts used, the bound and the time.

Run: ``python docs/scripts/modes_table.py`` from the project root (about a
minute; BLAS on one thread).
"""
from __future__ import annotations

import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402

import flexpkm as fp  # noqa: E402

ROBOTS = ("rigid_five_bar", "three_rpr", "tripteron", "orthoglide", "dualv", "gough_stewart")


def row(model, solve, values):
    t0 = time.perf_counter()
    try:
        found = solve(model, values)
    except fp.FlexPKMError as e:
        return f"refused: {e}"
    dt = time.perf_counter() - t0
    poses = len(np.unique(np.round(found.x_p, 6), axis=0))
    return (f"{len(found)} | {poses} | {found.starts} | {found.bound or '-'} | "
            f"{'yes' if found.complete else ('saturated' if found.saturated else 'no')} | {dt:.2f}")


def main():
    print("| robot | problem | solutions | platform poses | starts | bound | complete | s |")
    print("|---|---|---|---|---|---|---|---|")
    for name in ROBOTS:
        case = fp.cases.get(name)
        model = fp.build_model(case.robot({o.name: o.default for o in case.options}))
        q = fp.reference_configuration(model)
        fp.assembly_modes(model, q[list(model.layout.actuated)], starts=1)    # imports
        L = model.layout
        print(f"| {name} | forward | {row(model, fp.assembly_modes, q[list(L.actuated)])} |")
        print(f"| {name} | inverse | {row(model, fp.working_modes, q[list(L.commanded)])} |")


if __name__ == "__main__":
    main()
