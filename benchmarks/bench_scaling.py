"""How the generated code scales with refinement (issue 18), side by side in
one run: per number of elements per flexible body N, the coordinates, the
first-use time (model graph, C generation and gcc, empty cache), the
simulation's cost per simulated second (compiled and numpy backends, the
DualEMPS ``square`` maneuver, prescribed) and the modal analysis' cost per
pose (compiled, numpy, the bare dense eigensolver on the same M_r, K_r);
then the fitted exponents of the simulation cost in the coordinates and of
the first-use time in the bodies.

Run: ``python benchmarks/bench_scaling.py [--quick] [--modal] [N ...]``
(default N = 1 2 4 8 for the DualEMPS, those <= 4 for the NaVARo's modal
analysis; ``--modal``: the NaVARo's rows only; ``--quick``: short runs, the
NaVARo at N = 2 only, to check that it runs;
``--simulation``: the DualEMPS's table only;
``--threads``: also the full model with the bodies' kernels on 1 and 2
threads, :func:`parallel_bodies`, and the modal function with its limbs on
1 and 2 threads, :func:`parallel_limbs`; ``--split``: only the cost of one
step split into model evaluations, factorisation (refreshes, solves) and
the rest, by callgrind instruction counts, default N = 1 2 4 8 16, with
the fitted exponents: :mod:`benchmarks.step_split`, needs valgrind). CPU seconds (the process and
the compiler it waits for), BLAS on one thread, medians of ``REPEATS``: on
the shared 2-core machine the wall clock depends on the other sessions'
load (3-5x the CPU time at a load average of 7-10). Exudyn's test model of
the DualEMPS has one element per link: the refined comparison is not made.
"""
from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from flexpkm.analysis.modal import natural_frequencies       # noqa: E402
from flexpkm.algorithms.eigen import dense_generalized_eigh  # noqa: E402
from flexpkm.analysis.simulate import simulate               # noqa: E402
from flexpkm.cases import dualemps as D                      # noqa: E402
from flexpkm.cases import navaro as NV                       # noqa: E402
from flexpkm.cli.simulate import _refined                    # noqa: E402
from flexpkm.compiled import modal as compiled_modal         # noqa: E402
from flexpkm.model.refine import refine                      # noqa: E402
from flexpkm.algorithms.reference import build_model         # noqa: E402

QUICK = "--quick" in sys.argv[1:]
#: the NaVARo's modal rows only
MODAL = "--modal" in sys.argv[1:]
REPEATS = 1 if QUICK else 3
#: simulated seconds per run (compiled, numpy)
SPAN = (0.02, 0.01) if QUICK else (0.5, 0.05)


def cpu():
    """CPU seconds of this process (ns resolution) and of the compilers it
    waited for (os.times: 10 ms ticks, enough for a build)."""
    t = os.times()
    return time.process_time() + t.children_user + t.children_system


def median_cpu(fn, repeats=REPEATS):
    times = []
    for _ in range(repeats):
        t0 = cpu()
        fn()
        times.append(cpu() - t0)
    return statistics.median(times)


def dualemps(n):
    """(n_tot, bodies, first use s, compiled s/s, numpy s/s)."""
    model, q0, drive, sensors = D.simulation_setup("square")
    if n > 1:
        model, q0 = _refined(model, q0, n)

    def run(backend, T):
        return simulate(model, q0, T, drive, h=2.5e-4, dt_out=1e-3, coulomb_smoothing=1e-3,
                        sensors=sensors, backend=backend)
    first = median_cpu(lambda: run("compiled", 0.002), 1)
    compiled = median_cpu(lambda: run("compiled", SPAN[0])) / SPAN[0]
    numpy = median_cpu(lambda: run("numpy", SPAN[1]), 1) / SPAN[1]
    return model.layout.n_tot, len(build_model(model).body_entries), first, compiled, numpy


def navaro(n):
    """(n_tot, first use s, ms/pose compiled, numpy, bare eigensolver, the
    largest frequency gap compiled - numpy over the largest frequency)."""
    model = build_model(refine(NV.robot(), n) if n > 1 else NV.robot())
    rng = np.random.default_rng(0)
    B = 8 if QUICK else 40
    poses = np.column_stack([rng.uniform(-0.05, 0.05, B), rng.uniform(-0.05, 0.05, B),
                             rng.uniform(-0.55, -0.45, B)])
    qs = NV.pose_configurations(model, poses)
    first = median_cpu(lambda: natural_frequencies(model, qs[:2], shapes=False,
                                                   backend="compiled"), 1)
    ours = median_cpu(lambda: natural_frequencies(model, qs, shapes=False,
                                                  backend="compiled")) / B
    ref = median_cpu(lambda: natural_frequencies(model, qs, shapes=False, backend="numpy"), 1) / B
    red = compiled_modal.reduced_matrices(model, qs)
    eig = median_cpu(lambda: dense_generalized_eigh(red.K_r, red.M_r, vectors=False)) / B
    f = [natural_frequencies(model, qs, shapes=False, backend=b).frequencies_hz
         for b in ("compiled", "numpy")]
    gap = float(np.abs(f[0] - f[1]).max() / f[1].max())
    return model.layout.n_tot, first, 1e3 * ours, 1e3 * ref, 1e3 * eig, gap


def parallel_bodies(model, q0, repeats=5, calls=2000):
    """Item 2, Müller's limbs in parallel: the full model ``(M, c)`` of the
    kernel graph with the bodies' kernels of one structure mapped on 1 and
    2 threads (CasADi ``map(n, "thread", 2)``, pthreads in the generated
    C), compiled at -O2; (wall us per evaluation with 1 thread, with 2,
    CPU us with 1 thread, with 2 (both threads' CPU), the load average)."""
    from flexpkm.algorithms.dynamics import full_dynamics
    from flexpkm.compiled import codegen
    from flexpkm.compiled.recursive import kernel_dynamics
    dep = full_dynamics(model, q0, 0.0).dep
    out = []
    for threads in (1, 2):
        kd = kernel_dynamics(model, dep, threads=threads)
        fn = codegen.compiled(lambda kd=kd: kd.function("bench_full", [kd.M, kd.c], "Mc"),
                              f"bench_full{threads}",
                              codegen.description_key(model, "bench_full", threads), "-O2")
        buf, evaluate = fn.buffer()
        ins = [np.asarray(q0, float), np.full(fn.nnz_in(1), 0.3), np.asarray(model.gravity, float),
               np.ones(1), np.full(1, 1e-3)]
        outs = [np.zeros(fn.nnz_out(i)) for i in range(fn.n_out())]
        for i, a in enumerate(ins):
            buf.set_arg(i, memoryview(a))
        for i, a in enumerate(outs):
            buf.set_res(i, memoryview(a))
        wall, busy = [], []
        for _ in range(repeats):
            t0, c0 = time.perf_counter(), time.process_time()
            for _ in range(calls):
                evaluate()
            wall.append((time.perf_counter() - t0) / calls * 1e6)
            busy.append((time.process_time() - c0) / calls * 1e6)
        out.append((statistics.median(wall), statistics.median(busy), outs[0].copy()))
    assert np.allclose(out[0][2], out[1][2], rtol=0, atol=1e-12 * np.abs(out[0][2]).max())
    return out[0][0], out[1][0], out[0][1], out[1][1], os.getloadavg()[0]


def parallel_limbs(model, qs, repeats=5, calls=3):
    """Item 2, Müller's Fig. 13 at the grain of a limb: the modal function
    of one graph, and with one generated function per limb type mapped over
    the limbs on 1 and 2 threads (:func:`flexpkm.compiled.modal.limb_modal_graph`),
    each over the batch ``qs``; per variant (wall ms per pose, CPU ms per
    pose (every thread's), first-use CPU s), interleaved medians, and the
    largest gap to the one graph's outputs (relative to each output's
    largest entry)."""
    cm, _, _ = compiled_modal.compiled_robot(model)
    B, runs, outs = len(qs), {}, {}
    for limbs in (0, 1, 2):
        c0 = cpu()
        compiled_modal.evaluate(cm, qs, limbs)                # first use: build and load
        runs[limbs] = ([], [], cpu() - c0)
        outs[limbs] = compiled_modal.evaluate(cm, qs, limbs)
    for _ in range(repeats):
        for limbs in (0, 1, 2):
            t0, c0 = time.perf_counter(), time.process_time()
            for _ in range(calls):
                compiled_modal.evaluate(cm, qs, limbs)
            runs[limbs][0].append((time.perf_counter() - t0) / calls / B * 1e3)
            runs[limbs][1].append((time.process_time() - c0) / calls / B * 1e3)
    gap = max(float(np.abs(outs[k][o] - outs[0][o]).max() / max(np.abs(outs[0][o]).max(), 1e-300))
              for k in (1, 2) for o in outs[0])
    return {k: (statistics.median(w), statistics.median(c), f) for k, (w, c, f) in runs.items()}, gap


def limbs_table():
    """The table of :func:`parallel_limbs`: the flexible Delta, the NaVARo at
    N = 1 and 2 (N = 1 only with ``--quick``), batches of 40 poses."""
    from flexpkm.cases import delta
    print(f"\n{'modal, limbs':<18s} {'n_tot':>6s} {'variant':>14s} {'wall ms':>8s} {'CPU ms':>7s} "
          f"{'first use s':>11s}   (per pose, batch of 40)")
    dm = build_model(delta.robot(flexible=True))
    t = np.linspace(0.0, 6.0, 40)
    robots = [("Delta flexible", dm, np.stack([delta.configuration(dm, np.array(
        [0.05 * np.cos(a), 0.03 * np.sin(a), -0.85])) for a in t]))]
    for n in [1] if QUICK else [1, 2]:
        nv = build_model(refine(NV.robot(), n) if n > 1 else NV.robot())
        poses = np.column_stack([0.05 * np.cos(t), 0.05 * np.sin(t), -0.5 + 0.05 * np.sin(2 * t)])
        robots.append((f"NaVARo N = {n}", nv, NV.pose_configurations(nv, poses)))
    names = {0: "one graph", 1: "limbs, 1 thr", 2: "limbs, 2 thr"}
    for name, model, qs in robots:
        res, gap = parallel_limbs(model, qs)
        for k, (wall, busy, first) in res.items():
            print(f"{name if k == 0 else '':<18s} {model.layout.n_tot if k == 0 else '':>6} "
                  f"{names[k]:>14s} {wall:8.3f} {busy:7.3f} {first:11.1f}", flush=True)
        print(f"{'':<18s} {'':>6s} wall speed-up 1 -> 2 threads {res[1][0] / res[2][0]:.2f}, "
              f"limbs vs one graph {res[0][0] / res[2][0]:.2f}; outputs equal to {gap:.0e}; "
              f"load {os.getloadavg()[0]:.1f}", flush=True)


def exponent(x, y):
    """The slope of log y over log x (least squares)."""
    return float(np.polyfit(np.log(x), np.log(y), 1)[0])


def main():
    args = [int(a) for a in sys.argv[1:] if a.isdigit()]
    if "--split" in sys.argv[1:]:            # callgrind, load-independent
        from benchmarks.step_split import table
        table(args or [1, 2, 4, 8, 16])
        return
    ns = args or ([1, 2] if QUICK else [1, 2, 4, 8])
    os.environ["FLEXPKM_CACHE"] = tempfile.mkdtemp(prefix="flexpkm-bench-")   # first use: empty
    warnings.simplefilter("ignore")
    rows = []
    with threadpool_limits(1):
        print(f"{'DualEMPS square':<16s} {'n_tot':>6s} {'bodies':>6s} {'first use s':>12s} "
              f"{'compiled s/s':>13s} {'numpy s/s':>10s}   (CPU)")
        for n in [] if MODAL else ns:
            rows.append(dualemps(n))
            n_tot, bodies, first, comp, nump = rows[-1]
            print(f"{'N = %d' % n:<16s} {n_tot:6d} {bodies:6d} {first:12.1f} {comp:13.3f} "
                  f"{nump:10.2f}", flush=True)
        if len(rows) > 2:            # from N = 2 on: N = 1 runs the unrolled SX graph
            x = [r[0] for r in rows[1:]]
            print(f"exponents from N = {ns[1]}: compiled s/s ~ n^"
                  f"{exponent(x, [r[3] for r in rows[1:]]):.2f}, numpy ~ n^"
                  f"{exponent(x, [r[4] for r in rows[1:]]):.2f}, first use ~ bodies^"
                  f"{exponent([r[1] for r in rows[1:]], [r[2] for r in rows[1:]]):.2f}")
        print(f"\n{'NaVARo modal':<16s} {'n_tot':>6s} {'first use s':>12s} {'compiled':>9s} "
              f"{'numpy':>9s} {'eig':>9s}   (ms/pose, CPU)")
        for n in [] if "--simulation" in sys.argv[1:] else [2] if QUICK else [n for n in ns if n <= 4]:
            n_tot, first, ours, ref, eig, gap = navaro(n)
            print(f"{'N = %d' % n:<16s} {n_tot:6d} {first:12.1f} {ours:9.3f} {ref:9.3f} "
                  f"{eig:9.3f}   ({ours / eig:.2f}x the eigensolver; |f - f_numpy| <= "
                  f"{gap:.0e} f_max; load {os.getloadavg()[0]:.1f})", flush=True)
    if "--threads" in sys.argv[1:]:
        with threadpool_limits(1):
            limbs_table()
        if not MODAL:
            threads_table()
    print(f"\n{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, load average "
          f"{os.getloadavg()[0]:.1f}")


def threads_table():
    """The table of :func:`parallel_bodies` (the flexible Delta; the NaVARo
    unless ``--quick``)."""
    print(f"\n{'bodies on threads':<18s} {'n_tot':>6s} {'1 thread':>9s} {'2 threads':>10s} "
          f"{'speed-up':>9s} {'CPU 1':>7s} {'CPU 2':>7s}   (full model M, c; us per evaluation)")
    from flexpkm.cases import delta
    robots = [("Delta flexible", build_model(delta.robot(flexible=True)))]
    robots[0] += (delta.configuration(robots[0][1], np.array([0.05, -0.03, -0.85])),)
    if not QUICK:
        nv = build_model(NV.robot())
        robots.append(("NaVARo", nv, NV.pose_configurations(nv, [[0.05, 0.03, -0.5]])[0]))
    for name, model, q0 in robots:
        one, two, cpu1, cpu2, load = parallel_bodies(model, q0)
        print(f"{name:<18s} {model.layout.n_tot:6d} {one:9.1f} {two:10.1f} {one / two:9.2f} "
              f"{cpu1:7.1f} {cpu2:7.1f}   (wall; load {load:.1f})", flush=True)


if __name__ == "__main__":
    main()
