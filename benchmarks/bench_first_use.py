"""First use of the generated code for every shipped robot and example file
(issue 18 item 4, issue 21 item 4), one element per body: the compiled modal
function built from an empty cache (model graph, C generation, gcc -O2),
its cost per pose in a batch against the bare eigensolver on the same
matrices, and a second design of the same robot (E of every beam + 1 %)
that must reuse the library (no compile: the design parameters are an
input, flexpkm.compiled.design). ``--simulate`` adds the first use of the
compiled simulation (a free motion of 2 ms from the reference, which
compiles the step, the projection and the recorder).

Run: ``python benchmarks/bench_first_use.py [--simulate] [case ...]``.
CPU seconds of the process and of the compiler it waits for (the wall
clock on the shared 2-core machine is 2-5x longer under load), BLAS on one
thread.
"""
from __future__ import annotations

import copy
import os
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from flexpkm.algorithms.eigen import dense_generalized_eigh  # noqa: E402
from flexpkm.algorithms.reference import build_model         # noqa: E402
from flexpkm.cases.file_case import configure                # noqa: E402
from flexpkm.cases.shipped import CASES, file_of             # noqa: E402
from flexpkm.compiled import codegen                         # noqa: E402
from flexpkm.compiled import modal                           # noqa: E402
from flexpkm.model.files import from_dict, parse             # noqa: E402

SIMULATE = "--simulate" in sys.argv[1:]
B = 200


def cpu():
    """CPU seconds of this process and of the compilers it waited for."""
    t = os.times()
    return time.process_time() + t.children_user + t.children_system


def stiffer(data):
    """``data`` with every beam's E (and every material's) 1 % higher."""
    d = copy.deepcopy(data)

    def walk(node):
        if isinstance(node, dict):
            for k, v in node.items():
                if k == "E" and isinstance(v, (int, float)):
                    node[k] = 1.01 * v
                else:
                    walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)
    walk(d)
    return d


def first_modal(model, q):
    """(wall s, CPU s) of the first compiled reduced matrices, empty cache."""
    t0, c0 = time.perf_counter(), cpu()
    modal.reduced_matrices(model, q)
    return time.perf_counter() - t0, cpu() - c0


def per_pose(model, q):
    """(compiled ms/pose, eigensolver ms/pose) in a batch of B poses."""
    qs = np.repeat(q[None], B, 0)
    cm, _, _ = modal.compiled_robot(model)
    modal.evaluate(cm, qs)
    c0 = time.process_time()
    red = modal.reduced_matrices(model, qs)
    c1 = time.process_time()
    dense_generalized_eigh(red.K_r, red.M_r, vectors=False)
    c2 = time.process_time()
    return 1e3 * (c1 - c0) / B, 1e3 * (c2 - c1) / B


def first_simulation(model, q):
    from flexpkm.analysis.drives import Free
    from flexpkm.analysis.simulate import simulate
    c0 = cpu()
    simulate(model, q, 0.002, Free(), h=2.5e-4, dt_out=1e-3, backend="compiled")
    return cpu() - c0


def simulation_column(model, q):
    """The simulation's first use, or why it failed (the other cases go on)."""
    if not SIMULATE:
        return ""
    try:
        return f" {first_simulation(model, q):8.1f} |"
    except Exception as err:
        return f" {type(err).__name__}: {str(err)[:60]} |"


def row(name):
    data = parse(file_of(name).read_text(), name)
    os.environ["FLEXPKM_CACHE"] = tempfile.mkdtemp(prefix="flexpkm-first-")   # empty
    model = build_model(from_dict(data))
    q = configure(model, None)
    problem = modal.modal_problem(model)
    if problem is not None:                  # e.g. redundant rows: numpy only
        print(f"| {name:<24s} | {model.layout.n_tot:5d} | compiled modal unavailable: {problem} "
              f"| | | | |{simulation_column(model, q)}", flush=True)
        return
    wall, first = first_modal(model, q)
    ours, eig = per_pose(model, q)
    other = build_model(from_dict(stiffer(data)))
    before = codegen.COMPILE_SECONDS["total"]
    t0 = cpu()
    modal.reduced_matrices(other, configure(other, None))
    reuse = cpu() - t0
    rebuilt = codegen.COMPILE_SECONDS["total"] > before
    print(f"| {name:<24s} | {model.layout.n_tot:5d} | {first:6.1f} | {wall:6.1f} | {ours:8.3f} | "
          f"{eig:8.3f} | {reuse:5.2f}{' (rebuilt!)' if rebuilt else ''} |"
          f"{simulation_column(model, q)}", flush=True)


def main():
    names = [a for a in sys.argv[1:] if not a.startswith("--")] or list(CASES)
    warnings.simplefilter("ignore")
    print("| case | n_tot | modal first use, CPU s | wall s | compiled ms/pose | eigensolver "
          f"ms/pose | other design, CPU s |{' simulation first use, CPU s |' if SIMULATE else ''}")
    print(f"|---|---|---|---|---|---|---|{'---|' if SIMULATE else ''}")
    with threadpool_limits(1):
        for name in names:
            row(name)
    print(f"\n{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, load average "
          f"{os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
