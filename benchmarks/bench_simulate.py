"""Wall seconds per simulated second of the DualEMPS time simulation, side by
side in one run: flexpkm's compiled backend (generated C, issue 10), the
numpy reference backend and the independent Exudyn model (compiled C++),
at h = 2.5e-4 and 2.5e-5; the compiled backend's cost split and its
first-use compile time (empty cache). BLAS on one thread throughout.

Run: ``python benchmarks/bench_simulate.py [MANEUVER ...] [T_END]``
(default ``square fast``; T_END caps every run, s; Exudyn models the
one-segment maneuvers ``edge``/``fast`` only, so ``square`` is compared with
Exudyn's cost per simulated second on ``fast``). Medians of ``REPEATS`` runs
for the compiled backend; the numpy backend runs at most ``NUMPY_SPAN`` s
(it costs ~10 s per simulated second).
"""
from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import flexpkm.analysis.compiled_simulate as csim   # noqa: E402
from flexpkm.analysis.simulate import simulate      # noqa: E402
from flexpkm.cases import dualemps as D            # noqa: E402
from flexpkm.compiled import codegen               # noqa: E402

REPEATS = 3
NUMPY_SPAN = 0.5
STEPS = (2.5e-4, 2.5e-5)
COST = defaultdict(float)


def setup(maneuver):
    return D.simulation_setup(maneuver, gravity=(0.0, 0.0, 0.0))


def per_second(maneuver, T, h, backend, repeats=1):
    """Median wall s per simulated s of ``repeats`` runs (and the last result)."""
    robot, q0, drive, sensors = setup(maneuver)
    runs = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        res = simulate(robot, q0, T, drive, h=h, dt_out=max(h, 1e-3), friction=False,
                       sensors=sensors, backend=backend)
        runs.append((time.perf_counter() - t0) / T)
    return statistics.median(runs), res


def first_use(maneuver):
    """Seconds of code generation + compilation into an empty cache."""
    old = os.environ.get("FLEXPKM_CACHE")
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["FLEXPKM_CACHE"] = tmp
        codegen.COMPILE_SECONDS["total"] = 0.0
        t0 = time.perf_counter()
        per_second(maneuver, 0.01, STEPS[0], "compiled")
        wall = time.perf_counter() - t0
    if old is None:
        os.environ.pop("FLEXPKM_CACHE")
    else:
        os.environ["FLEXPKM_CACHE"] = old
    return wall, codegen.COMPILE_SECONDS["total"]


def exudyn(maneuver, T, h):
    """Exudyn's wall s per simulated s, or None (not installed / maneuver)."""
    try:
        from tests.independent.exudyn_dualemps import simulate_prescribed
    except ImportError:
        return None
    if maneuver not in ("edge", "fast"):
        return None
    t0 = time.perf_counter()
    simulate_prescribed(maneuver, t_end=T, dt=h, output_every=max(1, round(1e-3 / h)))
    return (time.perf_counter() - t0) / T


def cost_split(maneuver, T):
    """Wall time of the compiled blocks vs the rest of the driver (Python:
    drive tables, outputs; numpy: initial state)."""
    block, table = csim._block, csim.drive_table
    calls = {"compiled blocks (C)": 0.0, "drive tables": 0.0}

    def timed(fn, name):
        def wrapper(*a):
            t0 = time.perf_counter()
            try:
                return fn(*a)
            finally:
                calls[name] += time.perf_counter() - t0
        return wrapper
    csim.drive_table = timed(table, "drive tables")
    csim._block = lambda *a: timed(block(*a), "compiled blocks (C)")
    robot, q0, drive, sensors = setup(maneuver)
    t0 = time.perf_counter()
    simulate(robot, q0, T, drive, friction=False, sensors=sensors, backend="compiled")
    wall = time.perf_counter() - t0
    csim._block, csim.drive_table = block, table
    calls["initial state, outputs, Python"] = wall - sum(calls.values())
    return wall, calls


def main(maneuvers=("square", "fast"), t_cap=None):
    with threadpool_limits(1):
        wall, comp = first_use(maneuvers[0])
        print(f"first use (empty cache): {wall:.1f} s, of which C generation + gcc {comp:.1f} s\n")
        print(f"{'maneuver':9s} {'h, s':>8s} {'T, s':>6s} {'compiled':>9s} {'numpy':>8s} "
              f"{'Exudyn':>8s} {'numpy/comp':>11s} {'Exudyn/comp':>12s} {'Newton':>7s}   "
              "(wall s per simulated s; Newton: compiled evaluations per step)")
        exu = {}
        for maneuver in maneuvers:
            T = min(D.duration(maneuver), t_cap or 1e9)
            other = maneuver if maneuver in ("edge", "fast") else "fast"
            for h in STEPS:
                Th = T if h >= 1e-4 else min(T, 1.0)
                c, res = per_second(maneuver, Th, h, "compiled", REPEATS)
                evals = res.cost["newton_iterations"] / res.cost["steps"]
                n, _ = per_second(maneuver, min(Th, NUMPY_SPAN * h / STEPS[0]), h, "numpy")
                if (other, h) not in exu:
                    exu[other, h] = exudyn(other, min(D.duration(other), Th, 1.0), h)
                e = exu[other, h]
                es = f"{e:8.3f}" if e else f"{'-':>8s}"
                ratio = f"{e / c:12.1f}" if e else f"{'-':>12s}"
                print(f"{maneuver:9s} {h:8.1e} {Th:6.2f} {c:9.4f} {n:8.2f} {es} {n / c:11.0f} "
                      f"{ratio} {evals:7.2f}{'' if other == maneuver else '   (Exudyn: fast)'}")
        wall, calls = cost_split(maneuvers[0], min(D.duration(maneuvers[0]), t_cap or 1e9))
        print(f"\ncompiled cost split, '{maneuvers[0]}' ({wall:.2f} s wall):")
        for k, v in calls.items():
            print(f"  {k:34s} {v:7.3f} s  {v / wall:5.0%}")


if __name__ == "__main__":
    args = sys.argv[1:]
    cap = float(args.pop()) if args and args[-1].replace(".", "", 1).isdigit() else None
    main(tuple(args) or ("square", "fast"), cap)
