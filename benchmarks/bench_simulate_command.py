"""The whole ``flexpkm simulate dualemps [--elements N] --maneuver square
--backend compiled`` command (issue 18, sixth session: its post-processing,
the ground reactions of the 12,001 samples, the energies and the files),
per N: wall and CPU seconds of the command, the integration's wall time it
prints and the rest (CPU minus the integration: start-up, ground reactions,
energies, files) of the ``flexpkm`` this interpreter imports; optionally
the same with another source tree, interleaved, for A/B ratios measured
side by side.

Run: ``python benchmarks/bench_simulate_command.py [--elements 1,2,4,8]
[--rounds 3] [--against DIR] [--out FILE.json]``. Each run is one fresh
``python -m flexpkm`` process (DIR: another checkout or an extracted ``git
archive`` of the commit to compare, first on ``PYTHONPATH``), one BLAS
thread, its CPU from ``RUSAGE_CHILDREN``; one untimed run per tree and N
first (the compiled library built or loaded: its key holds the package's
source, so each tree has its own). Prints every run, then the medians and
the load average (the 2 cores are shared: compare ratios of one run).
Writes the output files under a temporary folder, removed at the end.
"""
from __future__ import annotations

import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time


def run(tree, n, out):
    """One command: ``{"wall", "cpu", "integration", "load"}``."""
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    if tree is not None:
        env["PYTHONPATH"] = tree
    cmd = [sys.executable, "-m", "flexpkm", "simulate", "dualemps", "--maneuver", "square",
           "--backend", "compiled", "--out", out, "--no-progress", "--force"]
    cmd[5:5] = ["--elements", str(n)] if n > 1 else []
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=out)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    found = re.search(r"simulated in ([0-9.]+) s", p.stdout)
    if p.returncode or not found:
        raise SystemExit(f"N = {n} ({tree or 'this tree'}) failed:\n{p.stdout}{p.stderr}")
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return {"wall": wall, "cpu": cpu, "integration": float(found.group(1)),
            "load": os.getloadavg()[0]}


def main(argv):
    opt = dict(zip(argv[::2], argv[1::2]))
    ns = [int(x) for x in opt.get("--elements", "1,2,4,8").split(",")]
    rounds = int(opt.get("--rounds", 3))
    trees = {"this": None} | ({"against": opt["--against"]} if "--against" in opt else {})
    runs = {}
    with tempfile.TemporaryDirectory() as out:
        for n in ns:
            for tree in trees.values():
                run(tree, n, out)
        for _ in range(rounds):
            for n in ns:
                for name, tree in trees.items():
                    r = run(tree, n, out)
                    runs.setdefault(f"{name} N={n}", []).append(r)
                    print(name, n, {k: round(v, 2) for k, v in r.items()}, flush=True)
    summary = {}
    for key, rs in runs.items():
        med = {k: statistics.median(r[k] for r in rs) for k in ("wall", "cpu", "integration")}
        med["rest"] = statistics.median(r["cpu"] - r["integration"] for r in rs)
        summary[key] = med
        print(key, {k: round(v, 2) for k, v in med.items()})
    print("load average", os.getloadavg())
    if "--out" in opt:
        with open(opt["--out"], "w") as f:
            json.dump({"runs": runs, "medians": summary, "load": os.getloadavg()}, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1:])
