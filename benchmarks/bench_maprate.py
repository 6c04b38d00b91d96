"""The NaVARo CLI map's rate on one core, this checkout against another
(issue 21, "CLI maps at >= 2,000 poses/s per core"): ``flexpkm map navaro
--workers 1 --backend compiled`` (20 x 20 x 10 cells, 3,507 reachable) and
its start-up (a 1-cell map) run alternately from the two source trees
(``PYTHONPATH``), CPU of the reaped children (one BLAS thread), medians of
``--repeats`` interleaved runs, the load average beside; and the
per-cell breakdown of the map in this process (cProfile groups).

    OMP_NUM_THREADS=1 python benchmarks/bench_maprate.py [--before /work/main] [--repeats 5]
    OMP_NUM_THREADS=1 python benchmarks/bench_maprate.py --breakdown
    OMP_NUM_THREADS=1 python benchmarks/bench_maprate.py --accuracy
    OMP_NUM_THREADS=1 python benchmarks/bench_maprate.py --loops
    OMP_NUM_THREADS=1 python benchmarks/bench_maprate.py --large --before /work/main --repeats 2

Writes ``benchmarks/bench_maprate.json`` (``bench_maprate_steps.json``,
``bench_maprate_accuracy.json``, ``bench_maprate_loops.json``,
``bench_maprate_large.json``).
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
GRID = ["-0.05:0.05:20", "-0.05:0.05:20", "-0.2:0.2:10"]
REACHABLE = 3507
#: the acceptance's map (44,765 reachable cells of 50,000)
LARGE = ["-0.1:0.1:50", "-0.1:0.1:50", "-1.1:0.1:20"]
#: a warm-up map of more than workspace_map.FLAT_COLD reachable cells (11,000 of 12,500)
COLD = ["-0.05:0.05:50", "-0.05:0.05:50", "-0.2:0.2:5"]


def _children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _run(tree, grid, out):
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONPATH=str(tree))
    cmd = [sys.executable, "-m", "flexpkm", "map", "navaro", "--workers", "1", "--backend",
           "compiled", "--no-progress", "--modes", "5", "--force", "--grid", *grid,
           "--netcdf", str(out)]
    c0 = _children_cpu()
    subprocess.run(cmd, check=True, capture_output=True, env=env, cwd=tempfile.gettempdir())
    return _children_cpu() - c0


def breakdown(repeats=5, chunk=128):
    """CPU per reachable cell of the map's steps in this process, medians of
    ``repeats`` interleaved runs over the 3,507 reachable cells in chunks of
    ``chunk``: the closed form, the reduced matrices by the kernel graph (the
    modal function before) and by the fast path, the bare eigensolver (locked
    pencils, frequencies only), the compliance, the two from one Cholesky of
    K_cc per block (the C loop) and the large map's cells with the actuators
    locked (``locked_cells``: the fast path, the C loop, the measures) (ms
    per cell)."""
    sys.path.insert(0, str(HERE))
    from bench_study import _navaro
    import flexpkm as fp
    from flexpkm.algorithms.compliance import platform_compliance, rows_of_J
    from flexpkm.algorithms.eigen import generalized_eigh
    from flexpkm.algorithms.flexibility import eigen_and_compliance
    from flexpkm.analysis.map_cells import locked_cells
    from flexpkm.analysis.grid import make_grid
    from flexpkm.compiled import modal, modal_flat
    model, configure, case, _ = _navaro()
    poses = make_grid(GRID, case.pose_names).poses()
    q = configure(poses)[0]
    q = q[np.isfinite(q).all(axis=1)]
    parts = [q[b:b + chunk] for b in range(0, len(q), chunk)]
    red = [modal_flat.fast_reduced_matrices(model, x) for x in parts]
    modal.reduced_matrices(model, parts[0])
    cm = modal.compiled_robot(model)[0]
    blocks, loop = modal_flat.locked_blocks(cm), modal_flat.locked_loop(cm)
    J_p = [rows_of_J(r, range(model.layout.n_t, model.layout.n_tot)) for r in red]
    steps = {
        "closed_form": lambda: [configure(poses[b:b + chunk]) for b in range(0, len(poses), chunk)],
        "modal_graph": lambda: [modal.reduced_matrices(model, x) for x in parts],
        "modal_fast": lambda: [modal_flat.fast_reduced_matrices(model, x) for x in parts],
        "eigensolver": lambda: [generalized_eigh(r.K_r[:, r.n_a:, r.n_a:], r.M_r[:, r.n_a:, r.n_a:],
                                                 vectors=False) for r in red],
        "compliance": lambda: [platform_compliance(model, r) for r in red],
        "eigen_and_compliance_one_cholesky": lambda: [eigen_and_compliance(
            r.K_r, r.M_r, j, blocks, loop=loop) for r, j in zip(red, J_p)],
        "locked_cells": lambda: [locked_cells(model, x, 5) for x in parts],
        "natural_frequencies_fast": lambda: [fp.natural_frequencies(
            model, x, n_modes=5, shapes=False, backend="compiled", flat=True) for x in parts]}
    runs = {k: [] for k in steps}
    for _ in range(repeats):
        for k, f in steps.items():
            t0 = time.process_time()
            f()
            runs[k].append(time.process_time() - t0)
    ms = {k: 1e3 * float(np.median(v)) / len(q) for k, v in runs.items()}
    return {"ms_per_reachable_cell": ms,
            "load_average": os.getloadavg()}


def loops(repeats=7, chunk=128):
    """The locked loop per pose, Eigen's (``locked_eigen.EigenLoop``) against
    LAPACK's (``locked_loop.LockedLoop``) on the same reduced matrices of the
    3,507 reachable NaVARo cells (blocks 51 + 39), in chunks of ``chunk``,
    ``repeats`` interleaved runs (ms per pose: medians and all runs), and
    the map's cells (``locked_cells``) with each loop; the largest relative
    difference of the 5 lowest eigenvalues between the two loops."""
    sys.path.insert(0, str(HERE))
    from bench_study import _navaro
    from flexpkm.algorithms.compliance import rows_of_J
    from flexpkm.analysis.grid import make_grid
    from flexpkm.analysis.map_cells import locked_cells
    from flexpkm.compiled import modal, modal_flat
    from flexpkm.compiled.locked_eigen import EigenLoop
    from flexpkm.compiled.locked_loop import LockedLoop
    from flexpkm.threads import one_blas_thread
    model, configure, case, _ = _navaro()
    q = configure(make_grid(GRID, case.pose_names).poses())[0]
    q = q[np.isfinite(q).all(axis=1)]
    parts = [q[b:b + chunk] for b in range(0, len(q), chunk)]
    red = [modal_flat.fast_reduced_matrices(model, x) for x in parts]
    cm = modal.compiled_robot(model)[0]
    plan, blocks = modal_flat.plan_of(cm), modal_flat.locked_blocks(cm)
    J_p = [rows_of_J(r, range(model.layout.n_t, model.layout.n_tot)) for r in red]
    impl = {"lapack": LockedLoop(), "eigen": EigenLoop()}
    runs = {f"{k}_{w}": [] for k in impl for w in ("loop", "cells")}
    with one_blas_thread(scipy=True):
        lam = {k: np.sort(np.concatenate([f(r.K_r, r.M_r, j, blocks)[0] for r, j in zip(red, J_p)]),
                          axis=1) for k, f in impl.items()}
        for _ in range(repeats):
            for k, f in impl.items():
                t0 = time.process_time()
                for r, j in zip(red, J_p):
                    f(r.K_r, r.M_r, j, blocks)
                t1 = time.process_time()
                plan["locked_loop"] = f
                for x in parts:
                    locked_cells(model, x, 5)
                t2 = time.process_time()
                runs[f"{k}_loop"].append(1e3 * (t1 - t0) / len(q))
                runs[f"{k}_cells"].append(1e3 * (t2 - t1) / len(q))
    plan.pop("locked_loop")
    return {"ms_per_pose_median": {k: float(np.median(v)) for k, v in runs.items()},
            "runs": runs, "cells": len(q),
            "lowest5_relative_difference": float(np.abs(lam["eigen"][:, :5] / lam["lapack"][:, :5]
                                                        - 1).max()),
            "load_average": os.getloadavg()}


def exact_check(model, q):
    """The 5 lowest frequencies of one cell ``q`` (1, n_tot) by the map
    (``locked_cells``) and by the single-pose ``dsygvd``, each against the
    same reduced matrices' eigenvalues to 40 digits (mpmath: Cholesky of M,
    ``eigsy``): largest relative differences."""
    import mpmath as mp
    import flexpkm as fp
    from flexpkm.analysis.map_cells import locked_cells
    from flexpkm.compiled import modal, modal_flat
    m, _ = locked_cells(model, q, 5)
    ref = fp.natural_frequencies(model, q, shapes=False, allow_zero=True, backend="compiled",
                                 flat=True)
    red, lam = m.reduced, []
    with mp.workdps(40):
        for b in modal_flat.locked_blocks(modal.compiled_robot(model)[0]):
            K, M = (mp.matrix(A[0][np.ix_(b, b)].tolist()) for A in (red.K_r, red.M_r))
            Li = mp.inverse(mp.cholesky(M))
            lam += [float(v) for v in mp.eigsy(Li * K * Li.T, eigvals_only=True)]
    f = np.sqrt(np.sort(lam)[:5]) / (2 * np.pi)
    return {"map": float(np.abs(m.frequencies_hz[0] / f - 1).max()),
            "dsygvd": float(np.abs(ref.frequencies_hz[0, :5] / f - 1).max())}


def accuracy(chunk=128):
    """The map's cells (``locked_cells``: the C loop) against the single-pose
    analysis of the same fast path (``natural_frequencies(..., flat=True)``:
    LAPACK's ``dsygvd`` on the locked pencil's blocks) and its compliance
    (``platform_compliance``) over the 3,507 reachable cells of the 20 x 20
    x 10 map: the largest relative difference per frequency (5 modes) and
    relative to the spectrum's largest, of the compliance (to its largest
    entry), of the Type 2 measure and ``cond_pencil``, whether the flags
    are equal, and the two cells of largest difference against 40 digits
    (:func:`exact_check`)."""
    sys.path.insert(0, str(HERE))
    from bench_study import _navaro
    import flexpkm as fp
    from flexpkm.algorithms.compliance import platform_compliance
    from flexpkm.analysis.grid import make_grid
    from flexpkm.analysis.map_cells import locked_cells
    model, configure, case, _ = _navaro()
    q = configure(make_grid(GRID, case.pose_names).poses())[0]
    q = q[np.isfinite(q).all(axis=1)]
    worst = {k: 0.0 for k in ("frequency_relative", "frequency_of_largest", "compliance",
                              "singularity_measure", "cond_pencil")}
    flags, cells = True, []
    for b in range(0, len(q), chunk):
        x = q[b:b + chunk]
        m, (C, _, ok) = locked_cells(model, x, 5)
        ref = fp.natural_frequencies(model, x, shapes=False, allow_zero=True, backend="compiled",
                                     flat=True)
        C_ref = platform_compliance(model, ref.reduced)[0]
        f, f_ref = m.frequencies_hz, ref.frequencies_hz[:, :5]
        top = ref.frequencies_hz.max(axis=1, keepdims=True)
        pairs = {"frequency_relative": np.abs(f - f_ref) / f_ref,
                 "frequency_of_largest": np.abs(f - f_ref) / top,
                 "compliance": np.abs(C - C_ref) / np.abs(C_ref).max(axis=(1, 2), keepdims=True),
                 "singularity_measure": np.abs(m.singularity_measure / ref.singularity_measure - 1),
                 "cond_pencil": np.abs(m.cond_pencil / ref.cond_pencil - 1)}
        for k, v in pairs.items():
            worst[k] = max(worst[k], float(np.max(v)))
        flags &= bool(ok.all()) and np.array_equal(m.near_singular, ref.near_singular)
        rel = pairs["frequency_relative"].max(axis=1)
        cells += [(float(rel[i]), b + int(i)) for i in np.argsort(rel)[-2:]]
    return {"cells": len(q), "largest_difference": worst, "same_flags": flags,
            "worst_cells_vs_40_digits": [exact_check(model, q[i:i + 1]) for _, i in sorted(cells)[-2:]],
            "load_average": os.getloadavg()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", default=None, help="the other source tree (e.g. /work/main)")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--grid", nargs=3, default=GRID, metavar="X0:X1:N",
                    help="the map's grid (default the 20 x 20 x 10 of bench_study.py --only-cli)")
    ap.add_argument("--large", action="store_true",
                    help="the acceptance's 50 x 50 x 20 map (bench_maprate_large.json)")
    ap.add_argument("--accuracy", action="store_true",
                    help="only the cells against single-pose dsygvd (bench_maprate_accuracy.json)")
    ap.add_argument("--loops", action="store_true",
                    help="only Eigen's locked loop against LAPACK's (bench_maprate_loops.json)")
    ap.add_argument("--breakdown", action="store_true",
                    help="only the per-cell breakdown in this process (bench_maprate_steps.json)")
    args = ap.parse_args()
    if args.large:
        args.grid = LARGE
    if args.accuracy:
        res = accuracy()
        print(json.dumps(res, indent=1))
        (HERE / "bench_maprate_accuracy.json").write_text(json.dumps(res, indent=1) + "\n")
        return
    if args.loops:
        res = loops()
        print(json.dumps({k: v for k, v in res.items() if k != "runs"}, indent=1))
        (HERE / "bench_maprate_loops.json").write_text(json.dumps(res, indent=1) + "\n")
        return
    if args.breakdown:
        res = breakdown(args.repeats)
        print(json.dumps(res, indent=1))
        (HERE / "bench_maprate_steps.json").write_text(json.dumps(res, indent=1) + "\n")
        return
    trees = {"after": HERE.parent}
    if args.before:
        trees["before"] = Path(args.before)
    runs = {k: {"map": [], "start": []} for k in trees}
    loads = [os.getloadavg()]
    with tempfile.TemporaryDirectory() as tmp:
        for name, tree in trees.items():          # warm the caches (compiles) first
            _run(tree, COLD, Path(tmp) / "w.nc")   # >= FLAT_COLD cells: the fast path's compile
            _run(tree, args.grid, Path(tmp) / "w.nc")
            _run(tree, ["0:0:1"] * 3, Path(tmp) / "w.nc")
        for _ in range(args.repeats):
            for name, tree in trees.items():
                runs[name]["map"].append(_run(tree, args.grid, Path(tmp) / "m.nc"))
                runs[name]["start"].append(_run(tree, ["0:0:1"] * 3, Path(tmp) / "s.nc"))
            loads.append(os.getloadavg())
    cells = int(np.prod([int(g.split(":")[2]) for g in args.grid]))
    reachable = REACHABLE if list(args.grid) == GRID else None
    res = {"grid": args.grid, "cells": cells, "reachable": reachable, "load_average": loads,
           "runs": runs}
    for name, r in runs.items():
        m, s = float(np.median(r["map"])), float(np.median(r["start"]))
        res[name] = {"cpu_s": m, "start_cpu_s": s, "cells_per_cpu_s": cells / m,
                     "cells_per_cpu_s_without_start": cells / (m - s),
                     "reachable_per_cpu_s_without_start": reachable and reachable / (m - s)}
    if "before" in res:
        res["ratio_without_start"] = ((res["before"]["cpu_s"] - res["before"]["start_cpu_s"])
                                      / (res["after"]["cpu_s"] - res["after"]["start_cpu_s"]))
    print(json.dumps({k: v for k, v in res.items() if k != "runs"}, indent=1))
    name = "bench_maprate.json" if list(args.grid) == GRID else "bench_maprate_large.json"
    (HERE / name).write_text(json.dumps(res, indent=1) + "\n")


if __name__ == "__main__":
    main()
