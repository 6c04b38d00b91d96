"""Benchmark of workspace maps and design studies (issue 21 item 6).

    OMP_NUM_THREADS=1 python benchmarks/bench_study.py [--quick] [--navaro-full]

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
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np

import flexpkm as fp
from flexpkm import cases
from flexpkm.analysis.study import design_study
from flexpkm.analysis.workspace_map import workspace_map
from flexpkm.model import files

HERE = Path(__file__).parent
FIVE_BAR = Path(cases.__file__).parent / "examples" / "five_bar.toml"
SECTION = "legs[{}].frames[{}].bodies[{}].section.b_y"
PARAMETERS = [{"name": "proximal b_y", "paths": [SECTION.format(i, 0, 0) for i in (0, 1)],
               "low": 0.004, "high": 0.006},
              {"name": "distal b_y", "paths": [SECTION.format(i, 1, 1) for i in (0, 1)],
               "low": 0.004, "high": 0.006}]


def navaro(grid, backend):
    case = cases.get("navaro")
    options = {o.name: o.default for o in case.options}
    model = fp.build_model(case.robot(options))
    configure = lambda p: case.configure(model, p, options)   # noqa: E731
    workspace_map(model, ["0:0:1", "0:0:1", "0:0:1"], n_modes=5, configure=configure,
                  names=case.pose_names, backend=backend)           # compile / warm up
    t0 = time.perf_counter()
    m = workspace_map(model, grid, n_modes=5, configure=configure, names=case.pose_names,
                      backend=backend, chunk=1024)
    total = time.perf_counter() - t0
    from flexpkm.analysis.grid import make_grid
    from flexpkm.analysis.grid_assembly import BatchConfigure
    poses = make_grid(grid, case.pose_names).poses()
    batch = BatchConfigure(configure, case.pose_names)
    t0 = time.perf_counter()
    for b in range(0, len(poses), 1024):
        batch(poses[b:b + 1024])
    conf = time.perf_counter() - t0
    n = m.status.size
    return {"poses": n, "seconds": total, "poses_per_s": n / total,
            "configure_share": conf / total, "counts": m.counts(), "backend": m.backend}


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


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small sizes (a minute)")
    ap.add_argument("--navaro-full", action="store_true", help="run the 50 x 50 x 20 map")
    args = ap.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    q = args.quick
    res = {"cores": os.cpu_count(), "load_average": os.getloadavg()}
    nav = ["-0.05:0.05:10", "-0.05:0.05:10", "-0.2:0.2:4"] if q else \
        ["-0.05:0.05:20", "-0.05:0.05:20", "-0.2:0.2:5"]
    res["navaro_numpy"] = navaro(nav, "numpy")
    res["navaro_compiled"] = navaro(nav, "compiled")
    rate = max(res["navaro_numpy"]["poses_per_s"], res["navaro_compiled"]["poses_per_s"])
    res["navaro_50x50x20_extrapolated_s_2_cores"] = 50_000 / rate / 1.7
    if args.navaro_full:
        res["navaro_50x50x20"] = navaro(["-0.1:0.1:50", "-0.1:0.1:50", "-0.5:0.5:20"],
                                        "compiled")
    res["study"] = study_rates((2, 2) if q else (4, 4), ["0.0:0.2:10", "0.35:0.5:10"],
                               chunk=2)
    s = res["study"]
    res["study_1000x1000_extrapolated_h"] = 1e6 / s["workers_2_poses_per_s"] / 3600
    res["memory"] = memory(["0.0:0.2:40", "0.35:0.5:20"], ["0.0:0.2:80", "0.35:0.5:40"])
    print(json.dumps(res, indent=1, default=str))
    (HERE / "bench_study.json").write_text(json.dumps(res, indent=1, default=str) + "\n")


if __name__ == "__main__":
    main()
