"""Where the compiled simulation's time goes at refinement (issue 18,
"run time at refinement"): the DualEMPS ``square`` maneuver with N
elements per flexible body on the kernel graph's step (modified Newton,
kept inverse iteration matrix, :mod:`flexpkm.compiled.modified_newton`).

Per N: coordinates, the step state's length, CPU s per simulated s of the
whole ``simulate`` call (median of ``REPEATS``, BLAS on one thread) and of
its compiled blocks alone (no set-up), Newton evaluations per step, the
refreshes of the kept matrix (the samples whose state's ``age`` fell back,
one per sample at most: ``n_sub`` = 4 steps per sample), the CPU us of one
refresh (the driver's: the iteration matrix by generated code and its
LAPACK inverse, median) and the blocks' CPU per step without the refreshes
(the "cost per step excluding the factorisation" of the acceptance); then
the fitted exponents in the coordinates. The first use (compile) is not
timed: see ``bench_scaling.py``.

Run: ``python benchmarks/bench_sim_refinement.py [N ...]`` (default 2 4 8;
16 compiles for ~1.5 min of gcc on an empty cache); ``--span S``: simulated
seconds per run (default 0.5).
"""
from __future__ import annotations

import os
import statistics
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from flexpkm.algorithms.dynamics import full_dynamics   # noqa: E402
from flexpkm.analysis import compiled_simulate as cs    # noqa: E402
from flexpkm.analysis.simulate import simulate          # noqa: E402
from flexpkm.cases import dualemps as D                 # noqa: E402
from flexpkm.cli.simulate import _refined               # noqa: E402

REPEATS = 3
H = 2.5e-4


def _argument(flag, default):
    args = sys.argv[1:]
    return float(args[args.index(flag) + 1]) if flag in args else default


class _Probe:
    """The compiled blocks' CPU time and each sample's ``age`` of the kept
    matrix (the driver's kept rows with the state's last three entries
    before J: S_h, age, evals), by wrapping the driver's functions."""

    def __init__(self):
        self.blocks, self.ages, self._kept, self._block = 0.0, [], cs.kept_rows, cs._block
        self._call = cs._Store.__call__
        probe = self

        def kept_rows(cm):
            rows, out = probe._kept(cm)
            age = cm.state_slices()["age"].start
            return np.concatenate([rows, [age]]), out

        def block(cm, config):
            run = probe._block(cm, config)

            def timed(*args):
                c0 = time.process_time()
                out = run(*args)
                probe.blocks += time.process_time() - c0
                return out
            return timed

        def store(self, rows, recs, k0):
            probe.ages.append(rows[-1].copy())
            return probe._call(self, rows, recs, k0)
        cs.kept_rows, cs._block, cs._Store.__call__ = kept_rows, block, store

    def reset(self):
        self.blocks, self.ages = 0.0, []

    def refreshes(self) -> int:
        """Samples whose age fell back (a refresh within them)."""
        age = np.concatenate(self.ages)
        return int(np.count_nonzero(np.diff(age) < 0) + (age[0] < 4))


def refresh_cost(cm, q, repeats=7, calls=20):
    """CPU us of one refresh, the driver's: the iteration matrix by generated
    code (:meth:`flexpkm.compiled.robot.CompiledRobot.iteration`) and its
    LAPACK inverse (:func:`flexpkm.analysis.kept_matrix.formed`), median of
    ``repeats``; ``q`` an assembled state (n_tot,)."""
    from flexpkm.analysis import kept_matrix as km
    config = next(iter(cm.blocks))
    iteration = cm.iteration(config[0], config[1], config[4], config[5])
    n_r, n_a = len(cm.indep), cm.n_a
    par = np.asarray(cm.parameters(np.zeros(n_a), np.zeros(n_a), H, 0.05, cm.model.gravity,
                                   1.0, 1e-3), float)
    ref = full_dynamics(cm.model, q, 0.0, dep=cm.dep)
    x = cm.pack(q, np.zeros(n_r), np.zeros(n_r), np.zeros(n_r), ref.J, ref.b)
    unknown, at, h = km.where(cm, config[0])
    times = []
    for _ in range(repeats):
        c0 = time.process_time()
        for _ in range(calls):
            km.formed(np.array(iteration(x, par)), unknown, n_r, x.copy(), at, par[h])
        times.append((time.process_time() - c0) / calls)
    return 1e6 * statistics.median(times)


def row(n, span, probe):
    model, q0, drive, sensors = D.simulation_setup("square")
    if n > 1:
        model, q0 = _refined(model, q0, n)

    def run(T):
        return simulate(model, q0, T, drive, h=H, dt_out=1e-3, coulomb_smoothing=1e-3,
                        sensors=sensors, backend="compiled")
    run(0.002)                                         # first use: compile or load
    total, blocks, refreshes = [], [], []
    for _ in range(REPEATS):
        probe.reset()
        c0 = time.process_time()
        res = run(span)
        total.append(time.process_time() - c0)
        blocks.append(probe.blocks)
        refreshes.append(probe.refreshes())
    steps = res.cost["steps"]
    cm = next(cm for cm in model.compiled.simulate.values() if hasattr(cm, "blocks"))
    t_refresh = refresh_cost(cm, np.asarray(q0, float))
    b = statistics.median(blocks)
    per_step = (b - statistics.median(refreshes) * t_refresh * 1e-6) / steps * 1e6
    return dict(n_tot=model.layout.n_tot, n_x=cm.state_slices()["J"].stop,
                total=statistics.median(total) / span,
                blocks=b / span, evals=res.cost["newton_iterations"] / steps,
                refreshes=statistics.median(refreshes), t_refresh=t_refresh, per_step=per_step)


def exponent(x, y):
    return float(np.polyfit(np.log(x), np.log(y), 1)[0])


def main():
    ns = [int(a) for a in sys.argv[1:] if a.isdigit()] or [2, 4, 8]
    span = _argument("--span", 0.5)
    warnings.simplefilter("ignore")
    probe = _Probe()
    rows = []
    with threadpool_limits(1):
        print(f"{'DualEMPS square':<16s} {'n_tot':>5s} {'n_x':>6s} {'s/s':>7s} {'blocks':>7s} "
              f"{'evals/step':>10s} {'refreshes':>9s} {'refresh us':>10s} {'us/step w/o':>11s}"
              f"   (CPU, {span} s simulated, load {os.getloadavg()[0]:.1f})")
        for n in ns:
            r = row(n, span, probe)
            rows.append(r)
            print(f"{'N = %d' % n:<16s} {r['n_tot']:5d} {r['n_x']:6d} {r['total']:7.3f} "
                  f"{r['blocks']:7.3f} {r['evals']:10.3f} {r['refreshes']:9.0f} "
                  f"{r['t_refresh']:10.0f} {r['per_step']:11.1f}   (load "
                  f"{os.getloadavg()[0]:.1f})", flush=True)
    if len(rows) > 1:
        x = [r["n_tot"] for r in rows]
        print(f"exponents from N = {ns[0]}: s/s ~ n^{exponent(x, [r['total'] for r in rows]):.2f}"
              f", blocks ~ n^{exponent(x, [r['blocks'] for r in rows]):.2f}, per step without "
              f"the refreshes ~ n^{exponent(x, [r['per_step'] for r in rows]):.2f}, one refresh"
              f" ~ n^{exponent(x, [r['t_refresh'] for r in rows]):.2f}")
    print(time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime()), f"load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
