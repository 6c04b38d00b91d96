"""The tables and pictures of docs/crossing.md: the five-bar crossing its
Type 2 singularity (Section 9.4) and the Tripteron crossing leg 1's LPJTS
singularity (Section 9.5), max |tau| along the planned laws as the sampling
goes from 1 kHz to 1 MHz, and along the unplanned quintic (the reduced IDM
of flexpkm.analysis.idm, which does not refuse it).

Run: ``python docs/scripts/crossing.py [MAX_RATE [MAX_RATE_TRIPTERON]]``
(default 1e6 Hz for both; a 1 MHz row takes minutes: the five-bar's ~4 min,
the Tripteron's ~10 min of one core). Prints markdown tables; writes
docs/img/crossing_five_bar.png and docs/img/crossing_tripteron.png.
"""
from __future__ import annotations

import sys
import time
import warnings
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

import flexpkm as fp
from flexpkm.analysis.crossing import effort_matrix, law_inverse_dynamics, law_states
from flexpkm.analysis.crossing_plan import plan_crossing
from flexpkm.analysis.idm import path_inverse_dynamics
from flexpkm.cases import get
from flexpkm.cases import tripteron as tr
from flexpkm.cases.shipped import file_of
from flexpkm.io.plots import figure
from flexpkm.model import files

IMG = Path(__file__).resolve().parents[1] / "img"
RATES = (1e3, 1e4, 1e5, 1e6)


def five_bar():
    case = get("rigid_five_bar")
    model = fp.build_model(case.robot({}))
    return model, (lambda poses: case.configure(model, poses, {}))


def tripteron():
    model = fp.build_model(files.load(file_of("tripteron"), variant="leg1"))
    return model, (lambda v: tr.elbow_state(model, v)), [model.layout.index(n)
                                                         for n in ("q12", "y", "z")]


def table(title, rows, names):
    print(f"\n{title}\n")
    print("| rate (Hz) | samples | " + " | ".join(f"max abs tau {n}" for n in names)
          + " | wall (s) |")
    print("|---|---|" + "---|" * len(names) + "---|")
    for rate, n, peak, wall in rows:
        print(f"| {rate:.0e} | {n} | " + " | ".join(f"{v:.7g}" for v in peak) + f" | {wall:.1f} |")


def sweep(run, rates):
    rows, last = [], None
    for rate in rates:
        t0 = time.perf_counter()
        last = run(rate)
        rows.append((rate, len(last.t), np.abs(last.tau).max(axis=0), time.perf_counter() - t0))
    return rows, last


def five_bar_part(max_rate):
    model, state = five_bar()
    plan = plan_crossing(model, state, [0.0, 0.338], [0.1, 0.1], 1.5, crossing_time=0.75,
                         through=[np.nan, 0.2])
    print(f"five-bar: {plan.kind} at t_s = {plan.t_s} s, x_s = {plan.x_s}, xd_s = {plan.xd_s}, "
          f"xdd_s = {plan.xdd_s}, criterion {plan.criterion:.2e} (quintic {plan.unplanned:.3g})")
    print("coefficients per t:", np.round(plan.law.coefficients.T / 1.5 ** np.arange(9), 5))
    rates = [r for r in RATES if r <= max_rate]
    planned, res = sweep(lambda r: law_inverse_dynamics(model, state, plan.law, rate=r), rates)
    table("five-bar, planned law (degree 8, t_s = 0.75 s)", planned, res.names)
    with warnings.catch_warnings():          # the quintic crosses: its refusal switched off
        warnings.simplefilter("ignore", fp.NearSingularWarning)
        unplanned, bad = sweep(lambda r: path_inverse_dynamics(
            model, state, [0.0, 0.338], [0.1, 0.1], 1.5, rate=r, singular=0.0), rates[:3])
    table("five-bar, unplanned quintic (reduced IDM, no refusal)", unplanned, res.names)
    fig = figure(figsize=(7.5, 5.0), dpi=110)
    ax = fig.subplots()
    ax.plot(bad.t, bad.tau, lw=0.8, ls="--")
    ax.plot(res.t, res.tau, lw=1.2)
    ax.set_ylim(-40, 40)
    ax.set_xlabel("t (s)")
    ax.set_ylabel("tau (N m)")
    ax.legend([f"{n}, quintic" for n in res.names] + [f"{n}, planned" for n in res.names],
              fontsize=8)
    ax.axvline(0.75, color="k", lw=0.5)
    ax.set_title("five-bar through its Type 2 singularity (Section 9.4)")
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    fig.savefig(IMG / "crossing_five_bar.png")


def tripteron_part(max_rate):
    model, state, coords = tripteron()
    start, stop = np.array([0.78, 0.31100091, 0.25]), np.array([1.08, 0.27100091, 0.25])
    plan = plan_crossing(model, state, start, stop, 1.0, crossing_time=0.5, coords=coords)
    print(f"\nTripteron: {plan.kind} at t_s = {plan.t_s} s, (q12, y, z) = {plan.x_s}, "
          f"xdd_s = {plan.xdd_s}, criterion {plan.criterion:.2e} (quintic {plan.unplanned:.3g})")
    rates = [r for r in RATES if r <= max_rate]
    planned, res = sweep(lambda r: law_inverse_dynamics(model, state, plan.law, rate=r,
                                                        coords=coords), rates)
    table("Tripteron, planned law (degree 8, t_s = 0.5 s)", planned, res.names)
    rows = []
    for rate in rates[:3]:                 # the quintic's efforts, the crossing sample skipped
        t = np.linspace(0, 1, int(rate) + 1)
        keep = np.abs(t - 0.4462543) > 0.5 / rate
        peak = np.zeros(3)
        for chunk in np.array_split(t[keep], max(1, len(t) // 20000)):
            _, qq, _, _, w = law_states(model, state, plan.quintic, chunk, coords=coords)
            A, _ = effort_matrix(model, qq)
            tau = np.linalg.solve(A, w[..., None])[:, :3, 0]
            peak = np.maximum(peak, np.abs(tau).max(axis=0))
        rows.append((rate, int(keep.sum()), peak, 0.0))
    table("Tripteron, unplanned quintic (samples off the crossing)", rows, res.names)
    fig = figure(figsize=(7.5, 4.2), dpi=110)
    ax = fig.subplots()
    ax.plot(res.t, res.tau)
    ax.axvline(0.5, color="k", lw=0.5)
    ax.set_xlabel("t (s)")
    ax.set_ylabel("tau (N)")
    ax.legend(res.names, fontsize=8)
    ax.set_title("Tripteron through leg 1's LPJTS singularity (Section 9.5)")
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    fig.savefig(IMG / "crossing_tripteron.png")


if __name__ == "__main__":
    top = float(sys.argv[1]) if len(sys.argv) > 1 else 1e6
    top_tripteron = float(sys.argv[2]) if len(sys.argv) > 2 else top
    with threadpool_limits(1):
        five_bar_part(top)
        tripteron_part(top_tripteron)
