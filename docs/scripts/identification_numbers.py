"""The numbers of docs/identification.md: tau = W chi against the IDM, the
groupings of Section 8.7.5 (five-bar, Orthoglide) and the five-bar's
identification from simulated measurements with 1 % noise over seeds.

    python docs/scripts/identification_numbers.py        # about a minute
"""
import numpy as np

import flexpkm as fp
from flexpkm import cases
from flexpkm.algorithms.dynamics import full_dynamics, inverse_dynamics
from flexpkm.cases import rigid_five_bar
from flexpkm.cases.file_case import shipped_robot
from flexpkm.identification.base import random_states


def idm_check(name):
    model = fp.build_model(fp.load_robot(cases.file_of(name)))
    q, qd, qdd = random_states(model, 20, seed=1)
    tau = inverse_dynamics(full_dynamics(model, q, qd), qdd)[0]
    W = fp.regressor(model, q, qd, qdd)
    err = np.abs(W @ fp.standard_parameters(model).values - tau).max() / np.abs(tau).max()
    print(f"{name}: max |W chi - tau| / max |tau| = {err:.1e} over 20 random states")


def groupings():
    model = fp.build_model(fp.load_robot(cases.file_of("rigid_five_bar")))
    bp = fp.base_parameters(model)
    print(f"five-bar: {bp.n_b} base of {len(bp.standard.symbols)} standard parameters")
    print("\n".join("  " + r for r in bp.relations()))
    _, d2, d3 = rigid_five_bar.D["1"]
    print(f"  closed forms: d2^2/d3 = {d2 ** 2 / d3:.8f}, d2^2 = {d2 ** 2:.8f}, "
          f"d3 = {d3}, 1/d3 = {1 / d3:.8f}")
    ortho = fp.build_model(shipped_robot("orthoglide", gravity=(0.0, -9.81, 0.0)))
    bp = fp.base_parameters(ortho)
    print(f"Orthoglide (gravity along actuator 31): {bp.n_b} base of "
          f"{len(bp.standard.symbols)} standard parameters")
    print("\n".join("  " + r for r in bp.relations()))


def identification(seeds=range(10)):
    model = fp.build_model(fp.load_robot(cases.file_of("rigid_five_bar")))
    bp = fp.base_parameters(model)
    tr = fp.exciting_trajectory(model, period=1.0, amplitude=0.03, evaluations=40, base=bp)
    print(f"five-bar exciting trajectory: cond(W_b) = {tr.cond:.4g} (period 1 s, 0.03 rad)")
    z = []
    for seed in seeds:
        data = fp.simulate_measurement(model, tr, duration=2.0, rate=500.0, noise=0.01, seed=seed)
        res = fp.identify(model, data, base=bp)
        z.append((res.values - bp.values) / res.std)
        if seed == 0:
            print("\n".join("  " + line for line in res.lines()))
            print(f"  cond = {res.cond:.4g}, samples = {res.samples}")
    z = np.abs(np.array(z))
    print(f"|error| / std over {len(z)} seeds: mean {z.mean():.2f}, 95th percentile "
          f"{np.percentile(z, 95):.2f}, max {z.max():.2f}; within 1 std: "
          f"{np.mean(z < 1) * 100:.0f} %, within 2 std: {np.mean(z < 2) * 100:.0f} %")


if __name__ == "__main__":
    for name in ("rigid_five_bar", "orthoglide", "three_rpr", "tripteron"):
        idm_check(name)
    groupings()
    identification()
