"""Start-up time of the command line beside ``python -c "import numpy"``
(issue 22 item 5): medians of N interleaved runs, wall and CPU (user + sys
of the child) time.

    python benchmarks/bench_startup.py            # N = 5
    python benchmarks/bench_startup.py --runs 9

Each command runs twice per round: as this shell runs it, and with Python's
bytecode cache on (``PYTHONDONTWRITEBYTECODE`` unset, the cache under a
temporary ``PYTHONPYCACHEPREFIX``), as after ``pip install .``, which
compiles the package's bytecode. A shell with ``PYTHONDONTWRITEBYTECODE=1``
and an editable install compiles every flexpkm module on every run.
Nothing is written outside the temporary folder.
"""
from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

FLEXPKM = str(Path(sys.executable).with_name("flexpkm"))
#: label -> argv
COMMANDS = {
    "python -c 'import numpy'": [sys.executable, "-c", "import numpy"],
    # what modal dualemps imports besides numpy (no scipy, no jsonschema: docs/design.md)
    "libraries of modal dualemps": [sys.executable, "-c", "import numpy, casadi"],
    "flexpkm --help": [FLEXPKM, "--help"],
    "flexpkm modal dualemps": [FLEXPKM, "modal", "dualemps"],
    "  ... --backend numpy": [FLEXPKM, "modal", "dualemps", "--backend", "numpy"],
}
#: the reference of the target: each command within 0.3 s of it (issue 22)
NUMPY = "python -c 'import numpy'"


def timed(argv, env) -> tuple:
    """(wall, CPU) seconds of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=5, help="rounds (default 5)")
    args = p.parse_args(argv)
    cache = tempfile.mkdtemp(prefix="flexpkm-pyc-")
    try:
        shell = dict(os.environ, OMP_NUM_THREADS="1")
        pyc = {k: v for k, v in shell.items() if k != "PYTHONDONTWRITEBYTECODE"}
        pyc["PYTHONPYCACHEPREFIX"] = cache
        envs = {"as run": shell, "bytecode": pyc}
        runs = [(label, cmd, mode) for label, cmd in COMMANDS.items() for mode in envs]
        for _, cmd, mode in runs:                  # warm the caches (and write the bytecode)
            timed(cmd, envs[mode])
        times = {(label, mode): [] for label, _, mode in runs}
        for _ in range(args.runs):
            for label, cmd, mode in runs:
                times[label, mode].append(timed(cmd, envs[mode]))
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    print(f"medians of {args.runs} (wall / CPU, s); PYTHONDONTWRITEBYTECODE="
          f"{os.environ.get('PYTHONDONTWRITEBYTECODE', '')!r} as run; load "
          f"{os.getloadavg()[0]:.2f}")
    med = {k: [statistics.median(v[i] for v in values) for i in (0, 1)]
           for k, values in times.items()}
    print(f"  {'':30s} {'':9s} {'wall':>6s} / {'CPU':>6s}   minus numpy's")
    for (label, mode), (wall, cpu) in med.items():
        ref_wall, ref_cpu = med[NUMPY, mode]
        print(f"  {label:30s} {mode:9s} {wall:6.3f} / {cpu:6.3f}   {wall - ref_wall:+6.3f} / "
              f"{cpu - ref_cpu:+6.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
