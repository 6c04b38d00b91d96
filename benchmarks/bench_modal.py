"""Time of one modal analysis, flexpkm vs an OpenSeesPy model of the same
robot, measured side by side in this run; and the time per pose when many
poses are evaluated in one batched call, next to the bare eigensolver.

Run: ``python benchmarks/bench_modal.py`` (from the project root).
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cases import dualemps as D                                   # noqa: E402
from flexpkm.modal import generalized_eigh, natural_frequencies  # noqa: E402


def best_of(fn, repeat=7, number=5):
    """Best mean wall time of ``fn()`` over ``repeat`` rounds of ``number`` calls, s."""
    best = np.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - t0) / number)
    return best


def row(label, a, b, unit="ms"):
    print(f"{label:<48s} {1e3 * a:10.3f} {1e3 * b:10.3f}   {b / a:7.1f} x")


def dualemps():
    robot = D.robot()
    q = D.configuration(robot, 0.05, 0.1)
    t_flex = best_of(lambda: natural_frequencies(robot, q))
    try:
        from tests.independent.opensees_dualemps import dualemps_frequencies
        t_ops = best_of(lambda: dualemps_frequencies(0.05, 0.1, method="opensees"))
    except ImportError:
        t_ops = np.nan
    print(f"{'DualEMPS (9 modes)':<48s} {'flexpkm':>10s} {'OpenSees':>10s}   ratio")
    row("one pose, ms", t_flex, t_ops)
    # batch over a grid of poses in one call
    q11, q21 = np.meshgrid(np.linspace(0, 0.2, 20), np.linspace(0, 0.2, 20))
    qs = np.stack([D.configuration(robot, a, b) for a, b in zip(q11.ravel(), q21.ravel())])
    B = len(qs)
    t_batch = best_of(lambda: natural_frequencies(robot, qs), repeat=3, number=1) / B
    red = natural_frequencies(robot, qs).reduced
    M, K = red.M_r[:, 2:, 2:], red.K_r[:, 2:, 2:]
    t_eig = best_of(lambda: generalized_eigh(K, M), repeat=3, number=1) / B
    print(f"{'':<48s} {'per pose':>10s} {'eig only':>10s}")
    row(f"{B} poses in one batched call, ms/pose", t_batch, t_eig)
    print()


if __name__ == "__main__":
    dualemps()
    try:
        import cases.navaro  # noqa: F401
    except ImportError:
        sys.exit(0)
    from benchmarks_navaro import navaro  # noqa: E402
    navaro()
