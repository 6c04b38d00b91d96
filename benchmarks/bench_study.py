"""Benchmark of workspace maps and design studies (issue 21 item 6).

    OMP_NUM_THREADS=1 python benchmarks/bench_study.py [--quick] [--navaro-full] [--only-workers]

Prints (and writes benchmarks/bench_study.json):

* the NaVARo map (closed-form pose x, y, theta, in batches) in poses/s on
  one core, numpy and compiled backends, and its split between
  configuring and the eigenproblems;
* the five-bar design study (file robot, numerical assembly by batched
  continuation): poses/s in this process through the plain in-process batch
  (workspace_map in a loop), through :func:`flexpkm.design_study` with 1
  worker (the chunk machinery: overhead per chunk) and with 2 worker
  processes (speed-up);
* the memory of a map per cell (tracemalloc peak over 2 sizes: the
  chunked work is bounded, the result grows linearly) and 10^6 poses
  extrapolated;
* the cost of a 1,000-design x 1,000-pose study and of the NaVARo 50 x 50
  x 20 map on this machine, extrapolated (``--navaro-full`` runs the map).
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np

import flexpkm as fp
from flexpkm import cases
from flexpkm.analysis.grid import make_grid
from flexpkm.analysis.study import design_study
from flexpkm.analysis import workspace_map as wm
from flexpkm.analysis.workspace_map import workspace_map
from flexpkm.model import files

HERE = Path(__file__).parent
FIVE_BAR = Path(cases.__file__).parent / "examples" / "five_bar.toml"
SECTION = "legs[{}].frames[{}].bodies[{}].section.b_y"
PARAMETERS = [{"name": "proximal b_y", "paths": [SECTION.format(i, 0, 0) for i in (0, 1)],
               "low": 0.004, "high": 0.006},
              {"name": "distal b_y", "paths": [SECTION.format(i, 1, 1) for i in (0, 1)],
               "low": 0.004, "high": 0.006}]


def _navaro():
    """The NaVARo model, its masked closed form (poses -> q_tot, statuses) and case."""
    case = cases.get("navaro")
    options = {o.name: o.default for o in case.options}
    model = fp.build_model(case.robot(options))
    masked = case.extra["masked_configure"]
    return model, (lambda p: masked(model, p, options)), case, options


def _cpu():
    """CPU seconds of this process and its reaped children (the workers)."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + r.ru_utime + r.ru_stime


def navaro(grid, backend, repeats=3):
    """Poses per CPU-second of the NaVARo map (one BLAS thread, in this
    process), medians of ``repeats`` runs interleaved with the parts: the
    closed form alone, the modal step alone (natural_frequencies on the
    reachable cells: the map without the compliance) and the map."""
    model, configure, case, _ = _navaro()
    kw = dict(n_modes=5, configure=configure, names=case.pose_names, backend=backend)
    workspace_map(model, ["0:0:1", "0:0:1", "0:0:1"], **kw)           # compile / warm up
    poses = make_grid(grid, case.pose_names).poses()
    runs = {"map": [], "configure": [], "modal": []}
    for _ in range(repeats):
        t0 = time.process_time()
        m = workspace_map(model, grid, **kw)
        runs["map"].append(time.process_time() - t0)
        t0 = time.process_time()
        parts = [configure(poses[b:b + 256]) for b in range(0, len(poses), 256)]
        runs["configure"].append(time.process_time() - t0)
        q = np.concatenate([p[0] for p in parts])
        q = q[np.isfinite(q).all(axis=1)]
        t0 = time.process_time()
        for b in range(0, len(q), 256):
            fp.natural_frequencies(model, q[b:b + 256], n_modes=5, shapes=False,
                                   allow_zero=True, backend=backend)
        runs["modal"].append(time.process_time() - t0)
    med = {k: float(np.median(v)) for k, v in runs.items()}
    n, ok = m.status.size, int((m.status == "ok").sum())
    return {"cells": n, "ok_cells": ok, "cpu_s": med["map"], "cells_per_cpu_s": n / med["map"],
            "ok_cells_per_cpu_s": ok / med["map"],
            "modal_only_ok_per_cpu_s": ok / med["modal"],
            "configure_share": med["configure"] / med["map"],
            "compliance_and_rest_share": 1 - (med["modal"] + med["configure"]) / med["map"],
            "counts": m.counts(), "backend": m.backend, "load_average": os.getloadavg()}


def timed_solve_chunk(model, job):
    """:func:`flexpkm.analysis.workspace_map.solve_chunk` with the CPU
    seconds of the job and the worker's pid (the workers inherit this
    module: fork)."""
    t0 = time.process_time()
    out = _SOLVE_CHUNK(model, job)
    return dict(out, cpu=np.array([time.process_time() - t0]), pid=np.array([os.getpid()]))


_SOLVE_CHUNK, _RUN_CHUNKS = wm.solve_chunk, wm.run_chunks


def navaro_workers(grid, backend, repeats=3, chunk=256):
    """Wall and CPU seconds (this process and its reaped workers) of the map
    with 1 and 2 worker processes (chunks of ``chunk`` cells), interleaved;
    the speed-up is the median wall ratio. Load-independent beside it: the
    CPU efficiency ``cpu_1 / cpu_2`` (1: the workers add no work) and the
    CPU-bound speed-up ``cpu_1 / (cpu of this process + the busier worker's
    jobs)``, what 2 free cores would give (the jobs timed in the workers).
    On a kernel with ``sched_autogroup_enabled`` the cores are shared
    between sessions, so under other sessions' load the wall ratio stays
    near 1 whatever the workers do."""
    model, configure, case, _ = _navaro()
    kw = dict(n_modes=5, configure=configure, names=case.pose_names, backend=backend,
              chunk=chunk)
    workspace_map(model, ["0:0:1", "0:0:1", "0:0:1"], **kw)
    runs = {1: [], 2: []}
    bound = []
    for _ in range(repeats):
        for w in (1, 2):
            t0, c0, m0, jobs = time.perf_counter(), _cpu(), time.process_time(), {}

            def timed_run(task, chunks, *a, **k):
                parts = _RUN_CHUNKS(timed_solve_chunk, chunks, *a, **k)
                for p in parts:
                    jobs[int(p["pid"][0])] = jobs.get(int(p["pid"][0]), 0.0) + float(p["cpu"][0])
                return parts
            if w == 2:
                wm.solve_chunk, wm.run_chunks = timed_solve_chunk, timed_run
            try:
                m = workspace_map(model, grid, workers=w, **kw)
            finally:
                wm.solve_chunk, wm.run_chunks = _SOLVE_CHUNK, _RUN_CHUNKS
            wall, cpu, here = time.perf_counter() - t0, _cpu() - c0, time.process_time() - m0
            runs[w].append((wall, cpu, os.getloadavg()[0]))
            if w == 2:
                bound.append((runs[1][-1][1], here, max(jobs.values())))
    med = {w: np.median(np.array(v), axis=0) for w, v in runs.items()}
    pairs = [a[0] / b[0] for a, b in zip(runs[1], runs[2])]
    return {"grid": grid, "cells": m.status.size, "ok_cells": int((m.status == "ok").sum()),
            "chunk": chunk, "runs": {w: v for w, v in runs.items()},
            "wall_s": {w: float(m[0]) for w, m in med.items()},
            "cpu_s": {w: float(m[1]) for w, m in med.items()},
            "speedup_2_workers": float(med[1][0] / med[2][0]),
            "speedup_per_pair": pairs,
            "cpu_efficiency_2_workers": float(med[1][1] / med[2][1]),
            "cpu_bound_speedup_2_workers": float(np.median([c1 / (h + b) for c1, h, b in bound])),
            "cpu_this_process_and_busier_worker": [[h, b] for _, h, b in bound],
            "load_average": os.getloadavg()}


def cli_rate(grid, repeats=3):
    """Poses per CPU-second of ``flexpkm map navaro --workers 1 --backend
    compiled`` (a subprocess: its CPU from the reaped children, one BLAS
    thread), all cells and reachable ones, with and without the start-up (a
    1-cell map's CPU: imports, model, library), against the bare
    eigensolver on the same locked pencils (frequencies only,
    :func:`flexpkm.algorithms.eigen.generalized_eigh` in batches of 256):
    medians of ``repeats`` interleaved runs."""
    import subprocess
    import sys
    from flexpkm.algorithms.eigen import generalized_eigh
    model, configure, case, _ = _navaro()
    poses = make_grid(grid, case.pose_names).poses()
    q = np.concatenate([configure(poses[b:b + 256])[0] for b in range(0, len(poses), 256)])
    q = q[np.isfinite(q).all(axis=1)]
    red = [fp.natural_frequencies(model, q[b:b + 256], shapes=False, backend="compiled").reduced
           for b in range(0, len(q), 256)]
    exe = [sys.executable, "-m", "flexpkm", "map", "navaro", "--workers", "1", "--backend",
           "compiled", "--no-progress", "--modes", "5", "--force", "--grid"]
    runs = {"cli": [], "start": [], "eig": []}
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(repeats):
            for key, g in (("cli", grid), ("start", ["0:0:1"] * 3)):
                c0 = _cpu()
                subprocess.run(exe + list(g) + ["--netcdf", str(Path(tmp) / "m.nc")], check=True,
                               capture_output=True, env=dict(os.environ, OMP_NUM_THREADS="1"))
                runs[key].append(_cpu() - c0)
            t0 = time.process_time()
            for r in red:
                na = r.n_a
                generalized_eigh(r.K_r[:, na:, na:], r.M_r[:, na:, na:], vectors=False)
            runs["eig"].append(time.process_time() - t0)
    med = {k: float(np.median(v)) for k, v in runs.items()}
    n = len(poses)
    return {"grid": grid, "cells": n, "ok_cells": len(q), "cpu_s": med,
            "cells_per_cpu_s": n / med["cli"], "ok_cells_per_cpu_s": len(q) / med["cli"],
            "cells_per_cpu_s_without_start": n / (med["cli"] - med["start"]),
            "ok_cells_per_cpu_s_without_start": len(q) / (med["cli"] - med["start"]),
            "bare_eigensolver_poses_per_cpu_s": len(q) / med["eig"], "runs": runs,
            "load_average": os.getloadavg()}


def navaro_full(grid, backend="compiled", workers=2, picture=None, checks=20):
    """The NaVARo 3D map on ``workers`` processes: wall time, cells by
    cause, ``checks`` random computed cells against the single-pose modal
    analysis of the same backend and of numpy (largest relative
    difference), the picture."""
    model, configure, case, options = _navaro()
    workspace_map(model, ["0:0:1", "0:0:1", "0:0:1"], n_modes=5, configure=configure,
                  names=case.pose_names, backend=backend)
    t0, c0 = time.perf_counter(), _cpu()
    m = workspace_map(model, grid, n_modes=5, configure=configure, names=case.pose_names,
                      backend=backend, workers=workers)
    wall, cpu = time.perf_counter() - t0, _cpu() - c0
    poses, f = m.grid.poses(), m.frequencies_hz.reshape(-1, m.frequencies_hz.shape[-1])
    ok = np.flatnonzero(m.status.ravel() == "ok")
    worst = {backend: 0.0, "numpy": 0.0}
    for k in np.random.default_rng(0).choice(ok, min(checks, ok.size), replace=False):
        for b in worst:
            one = fp.natural_frequencies(model, case.configure(model, poses[k], options),
                                         n_modes=5, shapes=False, backend=b).frequencies_hz
            worst[b] = max(worst[b], float(np.max(np.abs(f[k] - one) / one)))
    if picture is not None:
        from dataclasses import replace
        from flexpkm.io.map_output import plot_map
        plot_map(replace(m, units=case.pose_units), picture,
                 title=f"NaVARo f1, {' x '.join(map(str, m.grid.shape))} map")
    return {"grid": grid, "cells": m.status.size, "workers": workers, "wall_s": wall,
            "cpu_s": cpu, "cells_per_wall_s": m.status.size / wall, "counts": m.counts(),
            "checked_cells": int(min(checks, ok.size)), "max_rel_diff_single_pose": worst,
            "f1_hz_range": [float(np.nanmin(f[:, 0])), float(np.nanmax(f[:, 0]))],
            "backend": m.backend, "load_average": os.getloadavg()}


def study_rates(designs, grid, chunk):
    n_poses = int(np.prod([int(a.split(":")[2]) for a in grid]))
    params = [dict(p, number=n) for p, n in zip(PARAMETERS, designs)]
    n_designs = int(np.prod(designs))
    with tempfile.TemporaryDirectory() as tmp:          # warm-up: imports (xarray...), caches
        design_study(FIVE_BAR, params[:1], grid[:1], n_modes=3, folder=tmp, workers=1)
    t0 = time.perf_counter()
    data = FIVE_BAR.read_text()
    for bp in np.linspace(0.004, 0.006, designs[0]):          # the plain in-process batch
        for bd in np.linspace(0.004, 0.006, designs[1]):
            parts = data.split("b_y = 0.005")      # proximal 1, distal 1, proximal 2, distal 2
            text = "".join(p + (f"b_y = {float(v)!r}" if v is not None else "")
                           for p, v in zip(parts, [bp, bd, bp, bd, None]))
            workspace_map(fp.build_model(files.loads(text)), grid, n_modes=3, backend="numpy")
    plain = time.perf_counter() - t0
    out = {"designs": n_designs, "poses_per_design": n_poses,
           "in_process_batch_poses_per_s": n_designs * n_poses / plain}
    for workers in (1, 2):
        with tempfile.TemporaryDirectory() as tmp:
            t0 = time.perf_counter()
            design_study(FIVE_BAR, params, grid, n_modes=3, folder=tmp, chunk=chunk,
                         workers=workers)
            dt = time.perf_counter() - t0
        out[f"workers_{workers}_poses_per_s"] = n_designs * n_poses / dt
        out[f"workers_{workers}_seconds"] = dt
    chunks = -(-n_designs // chunk)
    out["overhead_per_chunk_s"] = (out["workers_1_seconds"] - plain) / chunks
    out["overhead_per_pose_fraction"] = out["workers_1_seconds"] / plain - 1
    out["speedup_2_workers"] = out["workers_1_seconds"] / out["workers_2_seconds"]
    return out


def memory(grid_small, grid_big, chunk=256):
    """Peak traced memory of two maps larger than a chunk: the growth per
    cell is the result's (the chunk's work is bounded)."""
    model = fp.build_model(files.load(FIVE_BAR))
    peaks = []
    for g in (grid_small, grid_big):
        tracemalloc.start()
        m = workspace_map(model, g, n_modes=3, backend="numpy", chunk=chunk)
        peaks.append((m.status.size, tracemalloc.get_traced_memory()[1]))
        tracemalloc.stop()
    (n1, p1), (n2, p2) = peaks
    per_cell = (p2 - p1) / (n2 - n1)
    return {"cells": [n1, n2], "peak_bytes": [p1, p2], "bytes_per_cell": per_cell,
            "extrapolated_1e6_poses_GB": (p1 + per_cell * (1e6 - n1)) / 1e9}


#: the map of the 1 vs 2 workers speed-up: large enough to amortise the pool's start
WORKERS = ["-0.05:0.05:20", "-0.05:0.05:20", "-0.2:0.2:10"]
#: the NaVARo 3D map of issue 21 (x, y in m, theta in rad)
FULL = ["-0.1:0.1:50", "-0.1:0.1:50", "-1.1:0.1:20"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small sizes (a minute)")
    ap.add_argument("--navaro-full", action="store_true", help="run the 50 x 50 x 20 map")
    ap.add_argument("--only-full", action="store_true", help="only the 50 x 50 x 20 map")
    ap.add_argument("--only-cli", action="store_true",
                    help="only the CLI map's rate on one core (NaVARo 20 x 20 x 10, compiled)")
    ap.add_argument("--only-workers", action="store_true",
                    help="only the 1 vs 2 workers NaVARo map (20 x 20 x 10, compiled)")
    args = ap.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    q = args.quick
    res = {"cores": os.cpu_count(), "load_average": os.getloadavg()}
    if args.only_cli:
        res["navaro_cli"] = cli_rate(WORKERS)
        print(json.dumps(res, indent=1, default=str))
        (HERE / "bench_cli.json").write_text(json.dumps(res, indent=1, default=str) + "\n")
        return
    if args.only_workers:
        res["navaro_workers"] = navaro_workers(WORKERS, "compiled")
        print(json.dumps(res, indent=1, default=str))
        (HERE / "bench_workers.json").write_text(json.dumps(res, indent=1, default=str) + "\n")
        return
    if args.only_full:
        res["navaro_50x50x20"] = navaro_full(FULL, picture=HERE.parent / "docs" / "img" /
                                             "navaro_map_3d.png")
        print(json.dumps(res, indent=1, default=str))
        (HERE / "bench_navaro_full.json").write_text(json.dumps(res, indent=1, default=str) + "\n")
        return
    nav = ["-0.05:0.05:10", "-0.05:0.05:10", "-0.2:0.2:4"] if q else \
        ["-0.05:0.05:20", "-0.05:0.05:20", "-0.2:0.2:5"]
    res["navaro_numpy"] = navaro(nav, "numpy")
    res["navaro_compiled"] = navaro(nav, "compiled")
    res["navaro_workers"] = navaro_workers(nav if q else WORKERS, "compiled")
    rate = max(res["navaro_numpy"]["cells_per_cpu_s"], res["navaro_compiled"]["cells_per_cpu_s"])
    res["navaro_50x50x20_extrapolated_s_2_cores"] = 50_000 / rate / 2
    if args.navaro_full:
        res["navaro_50x50x20"] = navaro_full(FULL, picture=HERE.parent / "docs" / "img" /
                                             "navaro_map_3d.png")
    res["study"] = study_rates((2, 2) if q else (4, 4), ["0.0:0.2:10", "0.35:0.5:10"],
                               chunk=2)
    s = res["study"]
    res["study_1000x1000_extrapolated_h"] = 1e6 / s["workers_2_poses_per_s"] / 3600
    res["memory"] = memory(["0.0:0.2:40", "0.35:0.5:20"], ["0.0:0.2:80", "0.35:0.5:40"])
    print(json.dumps(res, indent=1, default=str))
    (HERE / "bench_study.json").write_text(json.dumps(res, indent=1, default=str) + "\n")


if __name__ == "__main__":
    main()
