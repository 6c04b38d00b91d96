"""Beyond the book (issue 19 item 5): the flexible five-bar of
cases/examples/five_bar.toml driven through its Type 2 singularity by the
elastodynamic simulation, the actuators prescribed along the law planned
on its rigid counterpart, beside the unplanned quintic (docs/crossing.md).

The rigid counterpart has each beam replaced by the rigid body of the same
mass, first moment and inertia (uniform steel link, 0.3 m); gravity is
normal to the plane, as for the book's five-bar (the file's in-plane
gravity would ask the crossing for a free fall along t_s). Path P: (0,
0.45) -> (0.2, 0.12) m in 1.5 s.

Run: ``python docs/scripts/crossing_flexible.py`` (~10 min of one core:
the numerical assembly along the laws and two numpy simulations). Prints a
markdown table; writes docs/img/crossing_flexible.png.
"""
from __future__ import annotations

import re
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

import flexpkm as fp
from flexpkm.analysis.crossing import law_inverse_dynamics, law_states
from flexpkm.analysis.crossing_plan import plan_crossing
from flexpkm.analysis.trajectories import SampledTrajectory
from flexpkm.cases import file_case
from flexpkm.errors import SingularConfigurationError
from flexpkm.io.plots import figure
from flexpkm.model import files

ROOT = Path(__file__).resolve().parents[2]
START, STOP, TF = [0.0, 0.45], [0.2, 0.12], 1.5
#: uniform steel link 0.3 m x 5 mm x 30 mm: mass, first moment, inertia at its joint
MASS = 7800.0 * 0.3 * 0.005 * 0.030
RIGID = f'type = "rigid"\nname = "\\1"\nM = {MASS}\nMX = {MASS * 0.15}\nZZ = {MASS * 0.09 / 3}'


def models():
    text = (ROOT / "cases/examples/five_bar.toml").read_text().replace(
        "gravity = [0.0, -9.81, 0.0]", "gravity = [0.0, 0.0, -9.81]")
    rigid = re.sub(r'type = "beam"\nname = "([^"]+)"\n[^\[]*?material = \{[^}]*\}', RIGID, text)
    return fp.build_model(files.loads(text)), fp.build_model(files.loads(rigid))


def run():
    flex, rigid = models()
    state = lambda poses: file_case.configure(rigid, poses)
    plan = plan_crossing(rigid, state, START, STOP, TF)
    print(f"crossing: {plan.kind} at t = {plan.t_s:.4f} s, P = {plan.x_s}, criterion "
          f"{plan.criterion:.2g} (quintic {plan.unplanned:.3g})")
    t = np.linspace(0.0, TF, 3001)
    rows, curves = [], {}
    idm = law_inverse_dynamics(rigid, state, plan.law, rate=1000)
    rows.append(("rigid, planned", np.abs(idm.tau).max(0), "-", "-", "-"))
    curves["rigid, planned"] = (idm.t, idm.tau)
    try:
        law_inverse_dynamics(rigid, state, plan.quintic, rate=1000)
    except SingularConfigurationError as e:
        print("rigid, quintic:", e)
        rows.append(("rigid, quintic", ["refused"] * 2, "-", "-", "-"))
    q0 = file_case.configure(flex, np.array(START))
    act = list(rigid.layout.actuated)
    names = list(flex.layout.names)
    bending = [i for i, n in enumerate(names) if n.startswith("qe") and n.endswith("_2")]
    plat = [names.index("x_P"), names.index("y_P")]
    for label, law in (("flexible, planned", plan.law), ("flexible, quintic", plan.quintic)):
        _, q, _, _, _ = law_states(rigid, state, law, t)
        t0 = time.perf_counter()
        sim = fp.simulate(flex, q0, TF, fp.PrescribedMotion(SampledTrajectory(t, q[:, act])),
                          backend="numpy")
        path = law(sim.t)[0]
        rows.append((label, np.abs(sim.tau).max(0), f"{1e3 * np.abs(sim.q[:, bending]).max():.3g}",
                     f"{1e3 * np.abs(sim.q[:, plat] - path).max():.3g}", f"{sim.drift.max():.1e}"))
        curves[label] = (sim.t, sim.tau)
        print(f"{label}: {time.perf_counter() - t0:.0f} s")
    print("\n| law | max abs tau q11 (N m) | max abs tau q21 (N m) | max tip deflection u_y "
          "(mm) | max abs (x_P, y_P) - law (mm) | loop drift (m) |")
    print("|---|---|---|---|---|---|")
    for label, tau, qe, dev, drift in rows:
        cells = [f"{v:.4g}" if not isinstance(v, str) else v for v in tau]
        print(f"| {label} | {cells[0]} | {cells[1]} | {qe} | {dev} | {drift} |")
    return plan, curves


def picture(plan, curves):
    fig = figure(figsize=(7.5, 4.6), dpi=110)
    axes = fig.subplots(2, 1, sharex=True)
    for (label, (t, tau)), style in zip(curves.items(), ("-", "-", "--")):
        for k, ax in enumerate(axes):
            ax.plot(t, tau[:, k], style, lw=1.0, label=label)
    for k, ax in enumerate(axes):
        ax.axvline(plan.t_s, color="k", lw=0.5)
        ax.set_ylabel(f"tau_q{k + 1}1 (N m)")
        ax.grid(True, alpha=0.3)
    axes[0].legend(fontsize=8)
    axes[1].set_xlabel("t (s)")
    axes[0].set_title("flexible five-bar through its Type 2 singularity, actuators prescribed")
    fig.tight_layout()
    fig.savefig(ROOT / "docs/img/crossing_flexible.png")


if __name__ == "__main__":
    with threadpool_limits(1):
        picture(*run())
