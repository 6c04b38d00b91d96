"""CPU seconds per simulated second of the DualEMPS ``square`` maneuver on
the compiled backend (issue 18, acceptance: <= 0.1 at one element per
body): the whole 12-s maneuver, one element per body (16 coordinates),
prescribed, friction on with Coulomb smoothing 1e-3, h = 2.5e-4, dt_out =
1e-3, the accelerometer recorded (``bench_scaling.py --simulation``'s N = 1
row, over the whole maneuver instead of 0.5 s); optionally the same in
another source tree, interleaved, for an A/B ratio measured side by side.

Run: ``python benchmarks/bench_square.py [--rounds K] [--repeats R]
[--t-end T] [--against DIR]``. Each round runs one fresh process per tree
(this checkout, then DIR: another checkout or an extracted ``git archive``
of the commit to compare, its ``flexpkm`` first on ``PYTHONPATH``): one
run to compile or load the library, then R timed runs (``time.process_time``,
BLAS on one thread; each run includes its set-up: model, assembly, initial
state, the libraries loaded, ~0.04 s CPU, i.e. 0.003 s per simulated
second over 12 s). Prints every run, the Newton evaluations per step, the
median per tree, their ratio and the load average (the 2 cores are shared:
compare ratios, not absolute figures of different loads).
"""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]


def child(t_end, repeats):
    """The timed runs in this process: prints JSON ``{"runs": [...], "evals": ...}``."""
    sys.path.insert(0, os.environ.get("BENCH_TREE", str(HERE)))
    from threadpoolctl import threadpool_limits
    from flexpkm.analysis.simulate import simulate
    from flexpkm.cases import dualemps as D
    robot, q0, drive, sensors = D.simulation_setup("square")

    def run(T):
        return simulate(robot, q0, T, drive, h=2.5e-4, dt_out=1e-3, coulomb_smoothing=1e-3,
                        sensors=sensors, backend="compiled")
    runs = []
    with threadpool_limits(1):
        run(0.01)                                   # compile or load the library
        for _ in range(repeats):
            c0 = time.process_time()
            res = run(t_end)
            runs.append((time.process_time() - c0) / t_end)
    print(json.dumps({"runs": runs, "evals": res.cost["newton_iterations"] / res.cost["steps"]}))


def load():
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def measure(tree, t_end, repeats):
    env = dict(os.environ, OMP_NUM_THREADS="1", BENCH_TREE=str(tree),
               PYTHONPATH=os.pathsep.join([str(tree), os.environ.get("PYTHONPATH", "")]))
    out = subprocess.run([sys.executable, __file__, "--child", str(t_end), str(repeats)],
                         env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv):
    def option(name, default, kind):
        return kind(argv[argv.index(name) + 1]) if name in argv else default
    rounds, repeats = option("--rounds", 3, int), option("--repeats", 2, int)
    t_end, against = option("--t-end", 12.0, float), option("--against", None, str)
    trees = {"this": HERE} if against is None else {"this": HERE, "against": Path(against)}
    runs = {name: [] for name in trees}
    for _ in range(rounds):
        for name, tree in trees.items():
            got = measure(tree, t_end, repeats)
            runs[name] += got["runs"]
            print(f"{name:8s} {' '.join(f'{r:.4f}' for r in got['runs'])} s/s  "
                  f"evaluations/step {got['evals']:.3f}  load {load()}", flush=True)
    medians = {name: statistics.median(r) for name, r in runs.items()}
    for name, m in medians.items():
        print(f"{name:8s} median {m:.4f} CPU s per simulated s ({len(runs[name])} runs)")
    if against is not None:
        print(f"ratio this / against {medians['this'] / medians['against']:.3f}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        child(float(sys.argv[2]), int(sys.argv[3]))
    else:
        main(sys.argv[1:])
