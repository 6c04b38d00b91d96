"""Design parameters as inputs of the compiled SIMULATION (issue 18 item 3):
what a second design costs, and what the parametric kernel graph costs
where the unrolled graph (numbers folded in) is the default.

Per robot (the five-bar example, 18 coordinates; the DualEMPS ``square``
at one element per link, 16; the DualEMPS at two elements per link, 25)
and per path (``unrolled``: the default up to ``UNROLLED_MAX`` = 20
coordinates, numbers folded in, one library per design; ``parametric``:
the kernel graph with the design vector ``p`` an input, one library per
topology), in an empty private cache:

* first use of design 1: CPU s (model graph, C generation, gcc) and the
  libraries built;
* design 2 (the same topology; the five-bar's: E + 10 %, a section and a
  length changed, the DualEMPS': E + 10 %, tests/compiled/test_robot.py):
  the CPU s of its first 1-ms simulation and the libraries built (0 on the
  parametric path);
* the simulation's CPU s per simulated second (median of ``REPEATS``
  interleaved runs, warm).

Run: ``python benchmarks/bench_sim_design.py [--quick]``. CPU seconds (the
process and the compilers it waited for), BLAS on one thread; the load
average is printed beside the table (5 sessions share 2 cores here).
"""
from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path

from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import flexpkm as fp                                          # noqa: E402
from flexpkm.analysis.simulate import simulate               # noqa: E402
from flexpkm.cases import dualemps as D                      # noqa: E402
from flexpkm.cli.simulate import _refined                    # noqa: E402
from flexpkm.compiled import codegen                         # noqa: E402
from tests.compiled.test_robot import five_bar, stiffer_dualemps  # noqa: E402

QUICK = "--quick" in sys.argv[1:]
REPEATS = 1 if QUICK else 3
SPAN = 0.02 if QUICK else 1.0


def cpu():
    t = os.times()
    return time.process_time() + t.children_user + t.children_system


def dualemps(n, change):
    """(model, q0, drive) of the DualEMPS ``square``, ``n`` elements per
    link (``change``: E + 10 % of every link)."""
    rob, q0, drive, _ = D.simulation_setup("square")
    rob = stiffer_dualemps() if change else rob
    model, q0 = _refined(rob, q0, n) if n > 1 else (fp.build_model(rob), q0)
    return model, q0, drive


def libraries():
    return len(list(codegen.cache_dir().glob("*.so")))


class Variant:
    """One path of a robot (``parametric``: ``design_input=True``, the
    parametric kernel graph at any size), its models (built per path: a
    model holds its compiled robot)."""

    def __init__(self, make, parametric):
        self.parametric = parametric
        self.name = "parametric" if parametric else "unrolled"
        self.make, self.out, self.times = make, {}, []

    def run(self, what, span=1e-3):
        before, t0 = libraries(), cpu()
        model, q0, drive = what
        simulate(model, q0, span, drive, backend="compiled", design_input=self.parametric)
        return cpu() - t0, libraries() - before

    def first_uses(self):
        """Design 1 then design 2 (first use each), then design 2 kept for the runs."""
        for k, change in enumerate((False, True)):
            self.model = self.make(change)
            self.out[f"first{k}"], self.out[f"libs{k}"] = self.run(self.model)
        self.out["coords"] = self.model[0].layout.n_tot


def main():
    warnings.simplefilter("ignore")
    robots = [("five-bar", five_bar), ("DualEMPS N=1", lambda c: dualemps(1, c)),
              ("DualEMPS N=2", lambda c: dualemps(2, c))]
    rows = []
    with threadpool_limits(1), tempfile.TemporaryDirectory() as tmp:
        os.environ["FLEXPKM_CACHE"] = tmp
        for name, make in robots[:1] if QUICK else robots:
            paths = [Variant(make, par) for par in ((True,) if name.endswith("N=2") else
                                                 (False, True))]
            for path in paths:               # (N = 2 is above UNROLLED_MAX: parametric only)
                path.first_uses()
            for _ in range(REPEATS):         # interleaved: the load drifts alike
                for path in paths:
                    path.times.append(path.run(path.model, SPAN)[0] / SPAN)
            rows += [(name, path.name, dict(path.out, per_s=statistics.median(path.times)))
                     for path in paths]
    print(f"load average: {open('/proc/loadavg').read().strip()}")
    print("| robot | path | coordinates | first use, CPU s (libraries) | design 2, CPU s "
          "(libraries) | CPU s per simulated s |")
    print("|---|---|---|---|---|---|")
    for name, path, o in rows:
        print(f"| {name} | {path} | {o['coords']} | {o['first0']:.1f} ({o['libs0']}) | "
              f"{o['first1']:.1f} ({o['libs1']}) | {o['per_s']:.3f} |")


if __name__ == "__main__":
    main()
