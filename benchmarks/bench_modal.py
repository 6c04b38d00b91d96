"""Time of one modal analysis, flexpkm vs an OpenSeesPy model of the same
robot, measured side by side in this run; and the time per pose when many
poses are evaluated in one batched call, next to the bare eigensolver.

Run: ``python benchmarks/bench_modal.py [--quick]`` (from the project root;
``--quick``: one round and small batches, to check that it runs). Times are
medians; the batch is timed with BLAS limited to one thread (as
:func:`flexpkm.natural_frequencies` does) and with BLAS's default threading.
"""
from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from flexpkm.cases import dualemps as D                                   # noqa: E402
from flexpkm.algorithms.eigen import (decoupled_blocks, dense_generalized_eigh,  # noqa: E402
                                      generalized_eigh)
from flexpkm.algorithms.modal import reduced_matrices, solve_modes  # noqa: E402
from flexpkm.analysis.modal import natural_frequencies as switched  # noqa: E402
from flexpkm.algorithms.reference import build_model                          # noqa: E402
from flexpkm.threads import one_blas_thread                                 # noqa: E402


#: one round and small batches (``--quick``)
QUICK = "--quick" in sys.argv[1:]


def median_of(fn, repeat=7, number=5):
    """Median over ``repeat`` rounds of the mean wall time of ``number`` calls
    of ``fn()``, s, after one untimed call (imports, caches, first-call set-up:
    OpenSeesPy's first NaVARo model costs 4x the next ones)."""
    if QUICK:
        repeat, number = 1, 1
    else:
        fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - t0) / number)
    return float(np.median(times))


def natural_frequencies(model, q, **options):
    """The numpy reference (the compiled path is timed on its own rows)."""
    return switched(model, q, backend="numpy", **options)


def compiled_frequencies(model, q, **options):
    return switched(model, q, backend="compiled", **options)


def row(label, a, b):
    """flexpkm time a, reference time b (s) printed in ms, and b / a."""
    print(f"{label:<48s} {1e3 * a:10.3f} {1e3 * b:10.3f}   {b / a:7.1f} x")


def dualemps():
    model = build_model(D.robot())
    q = D.configuration(model, 0.05, 0.1)
    t_flex = median_of(lambda: natural_frequencies(model, q))
    try:
        from tests.independent.opensees_dualemps import dualemps_frequencies
        t_ops = median_of(lambda: dualemps_frequencies(0.05, 0.1, method="opensees"))
    except ImportError:
        t_ops = np.nan
    print(f"{'DualEMPS (9 modes)':<48s} {'flexpkm':>10s} {'OpenSees':>10s}   speed-up")
    row("one pose, ms", t_flex, t_ops)
    # batch over a grid of poses in one call
    q11, q21 = np.meshgrid(*[np.linspace(0, 0.2, 4 if QUICK else 20)] * 2)
    batch_rows(model, np.stack([D.configuration(model, a, b) for a, b in zip(q11.ravel(), q21.ravel())]))


def navaro():
    from flexpkm.cases import navaro as N
    model = build_model(N.robot())
    q = N.configuration(model, 0.02, 0.01, 0.1)
    t_flex = median_of(lambda: natural_frequencies(model, q), repeat=5, number=3)
    try:
        from tests.independent.opensees_navaro import navaro_frequencies
        t_ops = median_of(lambda: navaro_frequencies(0.02, 0.01, 0.1), repeat=3, number=1)
    except ImportError:
        t_ops = np.nan
    print(f"{'NaVARo (90 coordinates, clutches locked)':<48s} {'flexpkm':>10s} {'OpenSees':>10s}   speed-up")
    row("one pose, ms", t_flex, t_ops)
    n = 10 if QUICK else 200
    poses = np.column_stack([np.zeros(n), np.linspace(0, 0.02, n), np.linspace(0, -np.pi / 3, n)])
    batch_rows(model, N.pose_configurations(model, poses), t_ops)


def first_use(model, qs):
    """Seconds to generate and compile the modal function, in an empty cache
    (not with ``--quick``: then the cache is used)."""
    if QUICK:
        compiled_frequencies(model, qs, shapes=False)
        return "cache"
    old = os.environ.get("FLEXPKM_CACHE")
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["FLEXPKM_CACHE"] = tmp
        fresh = build_model(model.robot)            # its own slot of compiled functions
        t0 = time.perf_counter()
        compiled_frequencies(fresh, qs, shapes=False)
        total = time.perf_counter() - t0
    if old is None:
        os.environ.pop("FLEXPKM_CACHE")
    else:
        os.environ["FLEXPKM_CACHE"] = old
    compiled_frequencies(model, qs, shapes=False)       # the cached one again
    return f"{total:.1f} s to generate and compile, then cached"


def eig_times(K, M, B):
    """ms/pose of the bare dense eigensolver (LAPACK on the whole pencil) and
    of flexpkm's (split into decoupled blocks), with and without vectors."""
    out = {}
    with one_blas_thread():
        for vectors in (True, False):
            out["dense", vectors] = median_of(lambda: dense_generalized_eigh(K, M, vectors=vectors),
                                              repeat=7, number=1) / B
            out["split", vectors] = median_of(lambda: generalized_eigh(K, M, vectors=vectors),
                                              repeat=7, number=1) / B
    return out


def batch_rows(model, qs, t_ops=np.nan):
    """Per-pose time of one batched call, with and without mode shapes, next
    to the bare dense generalized eigensolver on the same matrices."""
    B = len(qs)
    natural_frequencies(model, qs[:2])
    red = natural_frequencies(model, qs).reduced
    na = red.n_a
    M, K = np.ascontiguousarray(red.M_r[:, na:, na:]), np.ascontiguousarray(red.K_r[:, na:, na:])
    eig = eig_times(K, M, B)
    blocks = "+".join(str(len(b)) for b in decoupled_blocks(K, M))
    print(f"{f'{B} poses in one batched call, ms/pose':<48s} {'flexpkm':>10s} {'dense eig':>10s}"
          f"   ratio")
    rows = [("  eigensolver alone, blocks " + blocks, lambda v: eig["split", v])]
    rows.append(("  numpy M_r, K_r", lambda v: median_of(
        lambda: natural_frequencies(model, qs, shapes=v), repeat=5, number=1) / B))
    try:
        from flexpkm.compiled import modal as compiled_modal
        first = first_use(model, qs[:2])
        rows.append(("  generated M_r, K_r (C)", lambda v: median_of(
            lambda: compiled_frequencies(model, qs, shapes=v), repeat=7,
            number=1) / B))
    except ImportError:
        compiled_modal = None
    for label, time_of in rows:
        for vectors in (False, True):
            t = time_of(vectors)
            what = "shapes" if vectors else "frequencies"
            print(f"{label + ', ' + what:<48s} {1e3 * t:10.3f} {1e3 * eig['dense', vectors]:10.3f}"
                  f"   {t / eig['dense', vectors]:5.2f} x")
            if label.startswith("  generated") and not vectors:
                tc = t
    if compiled_modal is not None:
        ta = median_of(lambda: compiled_modal.reduced_matrices(model, qs), repeat=7, number=1) / B
        print(f"{'    of which M_r, K_r, J_d, cond(J_t^f), loop check':<48s} {1e3 * ta:10.3f}"
              f"{'':>10s}    (first use: {first})")
        if np.isfinite(t_ops):
            print(f"{'    against the OpenSeesPy model (one pose)':<48s} {1e3 * tc:10.3f} "
                  f"{1e3 * t_ops:10.3f}   {t_ops / tc:5.1f} x faster")
    t1 = median_of(lambda: natural_frequencies(model, qs, shapes=False), repeat=5, number=1) / B
    td = median_of(lambda: solve_modes(model, reduced_matrices(model, qs), shapes=False),
                   repeat=5, number=1) / B
    print(f"{'  numpy, frequencies, BLAS default threads':<48s} {1e3 * td:10.3f} {'':>10s}   "
          f"one thread: {1e3 * t1:.3f} ({td / t1:.1f} x faster)")
    print()


if __name__ == "__main__":
    dualemps()
    navaro()
