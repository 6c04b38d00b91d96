"""Where one compiled HHT step's cost goes (issue 18), by callgrind
instruction counts (load-independent): the DualEMPS ``square`` maneuver
with N elements per flexible body, the samples' compiled calls only
(``--toggle-collect`` on CasADi's buffer evaluation: no Python, no set-up),
split by the generated functions' names into

* **model**: the model evaluations of the Newton corrections (the loop
  model's ``model_loops``; on the flat and unrolled graphs the model is
  fused with the correction, reported as such);
* **factorisation**: the refreshes of the kept iteration matrix
  (``flexpkm_iteration``: the mass matrix's n_r columns and the iteration
  matrix, generated; its inverse by LAPACK in the driver, not in the
  profile: 0.07 ms each at N = 8, :mod:`flexpkm.analysis.kept_matrix`;
  ``refresh``: the matrices of a slow step's full Newton corrections, and
  of the kept inverse before the eighth session, CasADi's LDL^T) and the
  solves with a kept factor where the library has them
  (``ldl_solve<n_r>``); the product by the kept inverse is part of the
  Newton correction's MX call and counted in **rest**;
* **rest**: everything else (Newmark update, residual, state copies, the
  conditionals, the recorder and the loop projection once per output
  sample, CasADi's virtual machine around the sample function).

The generated functions' names are read from the library's C (captured
while it is built in an empty cache, then loaded by the profiled run),
compiled with ``-fno-inline-functions-called-once`` (else gcc folds a
function called from one place into its caller and its cost is lost).
``uniform``: every N on the kernel graph's loop model (``design_input``,
``robot.LOOPS_MIN = robot.PLANAR_LOOPS_MIN = 0``), the same functions at every size, so that the
split compares; else the shipped choice (N = 1 unrolled, N = 2 flat).

Run alone: ``python benchmarks/step_split.py [--shipped] [N ...]``
(default 1 2 4 8); ``bench_scaling.py --split`` prints the same table.
Needs valgrind.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(os.environ.get("FLEXPKM_SRC", Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(ROOT))

#: simulated seconds profiled (after a 2-ms run that loads the library):
#: 500 steps of 0.25 ms, two refreshes of the kept matrix at 16 elements
SPAN = 0.125
H = 2.5e-4
#: the function names of each part (regular expressions on the C's names)
PARTS = {"model": r"model_loops|model_ne|newton_ne|newton",
         "refresh": r"refresh|flexpkm_iteration\d",
         "solve": r"ldl_solve\d+"}


def child(n, span, uniform, capture=None):
    """In the profiled process: the 2-ms run, then ``span`` s (the
    library built on first use; ``capture``: its C written there)."""
    warnings.simplefilter("ignore")
    from flexpkm.analysis.simulate import simulate
    from flexpkm.cases import dualemps as D
    from flexpkm.cli.simulate import _refined
    from flexpkm.compiled import codegen, robot
    if uniform:
        robot.LOOPS_MIN = robot.PLANAR_LOOPS_MIN = 0
    #: the library's functions kept apart (gcc inlines a static function
    #: called once, e.g. the model into the Newton correction at N = 4)
    codegen.FLAGS = codegen.FLAGS + ("-fno-inline-functions-called-once",)
    if capture:
        write = codegen.write_source

        def keep(path, code):
            Path(capture).write_text(code)
            return write(path, code)
        codegen.write_source = keep
    model, q0, drive, sensors = D.simulation_setup("square")
    if n > 1:
        model, q0 = _refined(model, q0, n)
    for t in (0.002, span):
        r = simulate(model, q0, t, drive, h=H, dt_out=1e-3, coulomb_smoothing=1e-3,
                     sensors=sensors, backend="compiled", design_input=uniform)
    print(f"RESULT {model.layout.n_tot} {r.cost['newton_iterations']} {r.cost['steps']}")


def _names(code):
    """fNN -> the generated function's name, from the C."""
    return {int(m.group(2)): m.group(1) for m in re.finditer(
        r"/\* (\w+):\([^\n]*\*/\n(?:static )?\w+ casadi_f(\d+)\(", code)}


def _inclusive(out, names):
    """``(total, {name: instructions})`` from a callgrind file: the
    inclusive cost of each generated function (its gcc clones: the largest)."""
    text = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", out],
                          capture_output=True, text=True, check=True).stdout
    total = int(re.search(r"([\d,]+) \(100\.0%\)\s+PROGRAM TOTALS", text).group(1).replace(",", ""))
    cost = {}
    for m in re.finditer(r"^\s*([\d,]+) \([^)]*\)\s+\?\?\?:\w+?_f(\d+)[.\w]* \[", text, re.M):
        name = names.get(int(m.group(2)))
        if name is not None:
            cost[name] = max(cost.get(name, 0), int(m.group(1).replace(",", "")))
    return total, cost


def split(n, span=SPAN, uniform=True):
    """Per step, thousands of machine instructions: ``{"n_tot", "model",
    "refresh", "solve", "rest", "total", "evals"}`` (evals: Newton
    evaluations per step) for N = ``n``."""
    env = dict(os.environ, OMP_NUM_THREADS="1",
               FLEXPKM_CACHE=tempfile.mkdtemp(prefix="flexpkm-split-"))
    with tempfile.TemporaryDirectory() as tmp:
        code, out = Path(tmp) / "lib.c", Path(tmp) / "callgrind.out"
        args = [str(n), str(span)] + (["--uniform"] if uniform else [])
        subprocess.run([sys.executable, __file__, "--child", *args, "--capture", str(code)],
                       env=env, check=True, capture_output=True)
        run = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                              "--toggle-collect=casadi::FunctionBuffer::_eval()",
                              sys.executable, __file__, "--child", *args],
                             env=env, check=True, capture_output=True, text=True)
        n_tot, evals, steps = (int(v) for v in run.stdout.split("RESULT")[1].split())
        total, cost = _inclusive(out, _names(code.read_text()))
    steps = steps + round(0.002 / H)              # the 2-ms run is profiled too
    parts = {k: sum(v for name, v in cost.items() if re.fullmatch(p, name))
             for k, p in PARTS.items()}
    if parts["model"] and cost.get("model_loops"):
        parts["model"] = cost["model_loops"]
    res = {k: v / steps / 1e3 for k, v in parts.items()}
    res.update(n_tot=n_tot, total=total / steps / 1e3, evals=evals / (steps - 8))
    res["rest"] = res["total"] - res["model"] - res["refresh"] - res["solve"]
    return res


def exponent(x, y):
    """The slope of log y over log x (least squares)."""
    return float(np.polyfit(np.log(x), np.log(y), 1)[0])


def table(ns, uniform=True, span=SPAN):
    """Print the split per N and the fitted exponents; the rows."""
    print(f"{'DualEMPS square':<16s} {'n_tot':>5s} {'evals':>6s} {'model':>8s} {'refresh':>8s} "
          f"{'solves':>7s} {'rest':>7s} {'total':>8s} {'w/o fact.':>9s}   (k instructions "
          f"per step, callgrind; {'loop model at every N' if uniform else 'shipped graphs'})")
    rows = []
    for n in ns:
        r = split(n, span, uniform)
        rows.append(r)
        print(f"{'N = %d' % n:<16s} {r['n_tot']:5d} {r['evals']:6.2f} {r['model']:8.1f} "
              f"{r['refresh']:8.1f} {r['solve']:7.1f} {r['rest']:7.1f} {r['total']:8.1f} "
              f"{r['total'] - r['refresh'] - r['solve']:9.1f}", flush=True)
    if len(rows) > 1:
        x = [r["n_tot"] for r in rows]
        print(f"exponents N = {ns[0]}..{ns[-1]}: total ~ n^{exponent(x, [r['total'] for r in rows]):.2f}"
              f", without the factorisation ~ n^"
              f"{exponent(x, [r['total'] - r['refresh'] - r['solve'] for r in rows]):.2f}, "
              f"model ~ n^{exponent(x, [r['model'] for r in rows]):.2f}")
    return rows


if __name__ == "__main__":
    argv = sys.argv[1:]
    if "--child" in argv:
        i = argv.index("--child")
        capture = argv[argv.index("--capture") + 1] if "--capture" in argv else None
        child(int(argv[i + 1]), float(argv[i + 2]), "--uniform" in argv, capture)
    else:
        table([int(a) for a in argv if a.isdigit()] or [1, 2, 4, 8], "--shipped" not in argv)
