"""Elastic transmissions (Section 10.5, Eq. 10.125) on both backends of the
time simulation: agreement and speed of the compiled motor step
(:mod:`flexpkm.compiled.motors`) against the numpy one
(:mod:`flexpkm.analysis.motors`), and the convergence table to the
rigid-actuator model on the compiled path.

* DualEMPS, fast maneuver, first 40 ms (``--quick``: 10 ms), one element
  per link (16 coordinates, unrolled graph) and two (25, kernel graph),
  belts k_a = 2e6 N/m, 0.5 kg, F_vM = 20 N s/m, f_sM = 5 N; h = 0.25 ms,
  Newton tol 1e-12, the accelerometer acc_P_y17 recorded: max
  |q_compiled - q_numpy|, the efforts' and accelerometer's relative gaps, CPU
  times (``time.process_time``, medians of interleaved runs, after the
  compile; the load of the machine printed beside), and the compiled run
  without motors (rigid transmissions) beside.
* Book five-bar (rigid), quintic of 0.1 rad in 25 ms on the motors,
  k_a = 1e3 .. 1e8 N m/rad: max |q_a - q_a_rigid| (compiled) and the
  compiled - numpy difference (Newton's tol max(1e-10, 1e-15 k_a): the
  springs' round-off, ~1e-16 k_a |q| / |tau|, stalls the relative residual
  below it on both backends).

Run: ``python benchmarks/bench_motors.py [--quick | --convergence]`` from
the project root
(the first run compiles one library per robot and set of motors, 20-40 s
each for the DualEMPS).
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import flexpkm as fp  # noqa: E402
from flexpkm.analysis.drives import PrescribedMotion  # noqa: E402
from flexpkm.analysis.simulate import simulate  # noqa: E402
from flexpkm.analysis.trajectories import Trajectory  # noqa: E402
from flexpkm.cases import dualemps as D  # noqa: E402
from flexpkm.cases import rigid_five_bar as five_bar  # noqa: E402
from tests.algorithms import book_five_bar as bk  # noqa: E402

BELTS = dict(actuator_stiffness=2e6, motor_inertia=0.5, motor_viscous=20.0, motor_coulomb=5.0)


def load():
    return Path("/proc/loadavg").read_text().split()[0] if Path("/proc/loadavg").exists() else "?"


def rel(a, b):
    return np.abs(a - b).max() / np.abs(b).max()


def dualemps(elements, T, repeats):
    robot = fp.load_robot("cases/dualemps.toml", elements=elements)
    q0, drive = D.initial_state(robot), PrescribedMotion(D.maneuver("fast"))
    model = fp.build_model(robot)
    rigid = dict(h=2.5e-4, tol=1e-12, iterations=8, sensors={"acc_P_y17": D.acc_P_y17})
    kw = dict(rigid, **BELTS)
    res = {b: simulate(model, q0, T, drive, backend=b, **kw) for b in ("compiled", "numpy")}
    runs = {"compiled": ("compiled", kw), "numpy": ("numpy", kw), "rigid": ("compiled", rigid)}
    simulate(model, q0, T, drive, backend="compiled", **rigid)      # its compile
    cpu = {name: [] for name in runs}
    for _ in range(repeats):                          # interleaved
        for name, (b, options) in runs.items():
            t = time.process_time()
            simulate(model, q0, T, drive, backend=b, **options)
            cpu[name].append(time.process_time() - t)
    c, n = res["compiled"], res["numpy"]
    tc, tn, tr = (np.median(cpu[name]) for name in ("compiled", "numpy", "rigid"))
    print(f"DualEMPS, {elements} element(s)/link, n_tot = {model.layout.n_tot}, {T * 1e3:g} ms: "
          f"max|q_c - q_n| = {np.abs(c.q - n.q).max():.1e}, max|tau_c - tau_n| / max|tau| = "
          f"{np.abs(c.tau - n.tau).max() / np.abs(n.tau).max():.1e}, accelerometer "
          f"{rel(c.sensors['acc_P_y17'], n.sensors['acc_P_y17']):.1e}; CPU compiled {tc:.3f} s, "
          f"numpy {tn:.3f} s ({tn / tc:.0f}x), compiled without motors {tr:.3f} s, "
          f"load {load()}")


def convergence(ks):
    m = fp.build_model(bk.robot(gravity=(0.0, -9.81, 0.0)))
    q0 = five_bar.configuration(m, 0.0, 0.24)
    full = fp.full_dynamics(m, q0, 0.0)
    a = full.indep[:full.n_a]
    drive = PrescribedMotion(Trajectory(np.array([q0[a], q0[a] + 0.1]), (0.025,), (0.005,)))
    kw = dict(h=5e-4, dt_out=1e-3, friction=False, iterations=10)
    rigid = simulate(m, q0, 0.03, drive, backend="numpy", tol=1e-10, **kw)
    print("k_a (N m/rad) | tol | max|q_a - q_a_rigid| compiled (rad) | compiled - numpy (rad)")
    for k in ks:
        tol = max(1e-10, 1e-15 * k)        # above the springs' round-off, ~1e-16 k |q| / |tau|
        c, n = (simulate(m, q0, 0.03, drive, backend=b, actuator_stiffness=k, tol=tol,
                         motor_inertia=[1e-4, 2e-4], **kw) for b in ("compiled", "numpy"))
        print(f"{k:.0e} | {tol:.0e} | {np.abs(c.q[:, a] - rigid.q[:, a]).max():.3e} | "
              f"{np.abs(c.q - n.q).max():.1e}")


if __name__ == "__main__":
    quick = "--quick" in sys.argv
    if "--convergence" in sys.argv:
        convergence((1e3, 1e4, 1e5, 1e6, 1e7, 1e8))
        sys.exit()
    T, repeats = (0.01, 3) if quick else (0.04, 5)
    for elements in (1, 2):
        dualemps(elements, T, repeats)
    convergence((1e4, 1e6) if quick else (1e3, 1e4, 1e5, 1e6, 1e7, 1e8))
