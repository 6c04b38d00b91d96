"""Wall seconds per simulated second of the DualEMPS time simulation,
flexpkm beside the independent Exudyn model on the same maneuver, measured in
one run, with flexpkm's cost split by step (tree, closure, solve); then the
BLAS threading: ``simulate`` limits numpy's BLAS to one thread
(threadpoolctl), measured beside the default threading (medians of
``REPEATS`` runs of 0.3 s).

Run: ``python benchmarks/bench_simulate.py [edge|fast|square] [T_END]``
(default ``edge``, 3 s; Exudyn models the one-segment maneuvers only).
"""
from __future__ import annotations

import contextlib
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import flexpkm.algorithms.dynamics as dyn          # noqa: E402
import flexpkm.analysis.simulate as sim          # noqa: E402
from flexpkm.cases import dualemps as D         # noqa: E402

COST = defaultdict(float)


def timed(module, name, bucket):
    """Wrap ``module.name`` to add its wall time to ``COST[bucket]``."""
    f = getattr(module, name)

    def wrapper(*a, **k):
        t0 = time.perf_counter()
        try:
            return f(*a, **k)
        finally:
            COST[bucket] += time.perf_counter() - t0
    setattr(module, name, wrapper)


REPEATS = 5


def threading(maneuver, t_end=0.3):
    """Median wall seconds per simulated second with BLAS on one thread (as
    ``simulate`` runs) and with the default threading (limit removed)."""
    robot, q0, drive, sensors = D.simulation_setup(maneuver, gravity=(0.0, 0.0, 0.0))
    limited = sim.threadpool_limits
    out = {}
    for label, limit in (("BLAS 1 thread (simulate's default)", limited),
                         ("BLAS default threading", lambda n: contextlib.nullcontext())):
        sim.threadpool_limits = limit
        runs = []
        for _ in range(REPEATS):
            t0 = time.perf_counter()
            sim.simulate(robot, q0, t_end, drive, friction=False, sensors=sensors)
            runs.append((time.perf_counter() - t0) / t_end)
        out[label] = statistics.median(runs)
    sim.threadpool_limits = limited
    print(f"\nthreading, '{maneuver}' {t_end:g} s, median of {REPEATS}:")
    for label, v in out.items():
        print(f"  {label:36s} {v:6.2f} s per simulated s")


def main(maneuver="edge", t_end=None):
    for name in ("tree_kinematics", "add_acceleration_bias", "tree_dynamics"):
        timed(dyn, name, "tree (kinematics, M_t, c_t)")
    for name in ("constraint_jacobian", "solve_closure", "constraint_bias"):
        timed(dyn, name, "closure (J_tot, J_d, b)")
    timed(sim, "project_on_loops", "loop projection")
    robot, q0, drive, sensors = D.simulation_setup(maneuver, gravity=(0.0, 0.0, 0.0))
    T = t_end or D.duration(maneuver)
    t0 = time.perf_counter()
    res = sim.simulate(robot, q0, T, drive, friction=False, sensors=sensors)
    wall = time.perf_counter() - t0
    print(f"DualEMPS '{maneuver}', {T:g} s, prescribed actuators, no friction")
    print(f"{'':34s} {'wall s':>8s} {'s per sim. s':>13s}")
    print(f"{'flexpkm (h = 0.25 ms, HHT)':34s} {wall:8.1f} {wall / T:13.2f}")
    try:
        from tests.independent.exudyn_dualemps import simulate_prescribed
        if maneuver in ("edge", "fast"):
            t1 = time.perf_counter()
            simulate_prescribed(maneuver, t_end=T, dt=1e-4, output_every=10)
            we = time.perf_counter() - t1
            print(f"{'Exudyn (ANCF, dt = 0.1 ms)':34s} {we:8.1f} {we / T:13.2f}")
    except ImportError:
        pass
    print(f"\nflexpkm cost split ({res.cost['steps']} steps, "
          f"{res.cost['newton_iterations']} Newton iterations):")
    accounted = 0.0
    for k, v in COST.items():
        print(f"  {k:32s} {v:8.1f} s  {v / wall:5.0%}")
        accounted += v
    print(f"  {'solve, Newmark, outputs':32s} {wall - accounted:8.1f} s  {(wall - accounted) / wall:5.0%}")
    threading(maneuver)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "edge",
         float(sys.argv[2]) if len(sys.argv) > 2 else None)
