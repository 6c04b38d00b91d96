"""The simulation's Newton-Euler model as loops over chains
(:mod:`flexpkm.compiled.loop_functions`) against the flat expanded one
(:func:`flexpkm.compiled.modified_newton.model_function` expanded), DualEMPS
refined to N elements per body (issue 18, item 1): C lines, gcc CPU time,
CPU microseconds per evaluation (median of interleaved batches of a
``map(REPEAT, "serial")`` compiled with it: no Python call overhead) and
the largest relative difference of the outputs at a random state.

    OMP_NUM_THREADS=1 python benchmarks/bench_loops.py 1 2 4 8 16 [--flat 1 2 4 8] [--opt=-O2,-O1]

The flat function is built only for the sizes after ``--flat`` (its gcc
time is ~0.5 ms per C line: 25 s at N = 8 -O2).
"""
from __future__ import annotations

import argparse
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import casadi as ca
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from flexpkm.compiled import loop_functions, modified_newton  # noqa: E402
from flexpkm.compiled.robot import CompiledRobot  # noqa: E402
from tests.compiled.test_newton_euler import _refined_dualemps  # noqa: E402

REPEAT = 50


def child_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def build(fn, opt, folder):
    """``(external fn, external map, C lines, gcc CPU s)``."""
    rep = fn.map(REPEAT, "serial")
    gen = ca.CodeGenerator(f"{fn.name()}.c", {"with_header": False})
    gen.add(fn)
    gen.add(rep)
    code = gen.dump()
    src = folder / f"{fn.name()}{opt[1:]}_{len(list(folder.iterdir()))}.c"
    src.write_text(code)
    lib = src.with_suffix(".so")
    t0 = child_cpu()
    subprocess.run(["gcc", opt, "-fPIC", "-shared", src.name, "-o", lib.name, "-lm"], cwd=folder,
                   check=True)
    return (ca.external(fn.name(), str(lib)), ca.external(rep.name(), str(lib)),
            code.count("\n"), child_cpu() - t0)


def state(cm, model, q0, rng):
    n_r, n_a = len(cm.indep), cm.n_a
    q = q0 + 1e-3 * rng.standard_normal(len(q0))
    par = cm.parameters(np.ones(n_a), np.ones(n_a), 1e-4, 0.05, model.gravity, 1.0, 1e-3,
                        design=cm.design)
    return [q, rng.uniform(-1, 1, n_r), rng.uniform(-1, 1, n_r), rng.uniform(-1, 1, 3 * n_a), par]


def per_call(reps, args, rounds=7):
    """Median CPU microseconds per evaluation, rounds interleaved over ``reps``."""
    times = {k: [] for k in reps}
    batch = [ca.DM(np.tile(np.asarray(a, float).reshape(-1, 1), (1, REPEAT))) for a in args]
    for _ in range(rounds):
        for k, rep in reps.items():
            t0 = time.process_time()
            for _ in range(20):
                rep(*batch)
            times[k].append((time.process_time() - t0) / (20 * REPEAT) * 1e6)
    return {k: statistics.median(v) for k, v in times.items()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("sizes", type=int, nargs="+")
    ap.add_argument("--flat", type=int, nargs="*", default=[])
    ap.add_argument("--opt", default="-O2", help="levels, comma-separated: --opt=-O2,-O1")
    args = ap.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="bench_loops"))
    with open("/proc/loadavg") as f:
        print("load", f.read().split()[:3])
    try:
        for N in args.sizes:
            model, q0 = _refined_dualemps(N)
            cm = CompiledRobot(model, q_ref=q0, compile=False)
            kd = cm.simulation_kernels
            x = state(cm, model, q0, np.random.default_rng(N))
            fns = {"loops": loop_functions.model_function(kd, False)}
            if N in args.flat:
                fns["flat"] = modified_newton.model_function(kd, False).expand()
            reps, ref = {}, None
            for name, fn in fns.items():
                for opt in args.opt.split(","):
                    ext, rep, lines, cpu = build(fn, opt, folder)
                    out = [np.array(ca.densify(o)) for o in ext(*x)]
                    ref = ref or out
                    err = max(float(np.abs(a - b).max() / max(np.abs(b).max(), 1e-300))
                              for a, b in zip(out, ref))
                    reps[f"{name}{opt}"] = rep
                    print(f"N={N} n_tot={model.layout.n_tot} {name} {opt}: {lines} C lines, "
                          f"gcc {cpu:.2f} s CPU, max rel diff {err:.1e}", flush=True)
            for k, us in per_call(reps, x).items():
                print(f"N={N} {k}: {us:.1f} us per evaluation (CPU, median)", flush=True)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    with open("/proc/loadavg") as f:
        print("load", f.read().split()[:3])


if __name__ == "__main__":
    main()
