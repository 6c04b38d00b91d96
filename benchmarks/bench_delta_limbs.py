"""Müller's per-limb evaluation of the Delta's inverse dynamics (Section 8.2,
Fig. 13, Eq. 144; Table 1) against the monolithic evaluation, per time sample.

Both evaluations are vectorised over the 501 samples of the quintic straight
line of docs/delta.md (0.5 s at 1 kHz) and include the closed-form inverse
geometry: *monolithic* = :func:`flexpkm.cases.delta.idm_path` (IK, full
model (10.123) of the whole robot twice: J for ``qd_a = J_x^-1 xd``, then
at the velocities, inverse problem (10.124)); *monolithic, one full model*
= IK, one full model and the inverse problem (the velocities given);
*per limb* = one limb's IK and Eq. (144) on its own one-limb model
(:func:`flexpkm.cases.delta_limbs.limb_contribution`), the part one node of
Fig. 13 runs; *all limbs* = the three limbs one after the other plus the
final combination (:func:`flexpkm.cases.delta_limbs.idm_per_limb`). BLAS is
limited to one thread (threadpoolctl); times are medians.

Müller's Table 1 (C code generated from closed forms, i7-8700): 2.74 (IK +
ID, monolithic), 0.97 / 0.83 / 0.83 (IK + Eq. 144 of limb 1 / 2 / 3), i.e. a
limb costs 0.30-0.35 of the monolithic evaluation.

Run: ``python benchmarks/bench_delta_limbs.py [--quick]`` from the project root.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from flexpkm.cases import delta as D, delta_limbs as L                       # noqa: E402
from flexpkm.algorithms.dynamics import full_dynamics, inverse_dynamics      # noqa: E402
from flexpkm.algorithms.reference import build_model                          # noqa: E402
from flexpkm.threads import one_blas_thread                                 # noqa: E402
from bench_modal import median_of                                           # noqa: E402  (same folder)

TABLE_1 = {"monolithic": 2.74, "limb 1": 0.97, "limb 2": 0.83, "limb 3": 0.83}


def main():
    model = build_model(D.robot())
    start, stop = np.array([0.0, 0.0, -0.80]), np.array([0.20, 0.10, -0.95])
    _, P, Pd, Pdd = D.straight_line(start, stop, 0.5)
    n = len(P)
    limbs = L.limb_models()
    m_p = model.robot.platform.body.invariants.m
    t_, q_a, _ = D.idm_path(model, start, stop, 0.5)
    qd_a = np.gradient(q_a, t_, axis=0)                 # any velocities: timing only
    dep = full_dynamics(model, D.configuration(model, P[:1]), qd_a[:1]).dep

    def one_model():
        fm = full_dynamics(model, D.configuration(model, P), qd_a, dep=dep)
        return inverse_dynamics(fm, np.zeros_like(qd_a))

    with one_blas_thread():
        t = {"monolithic": median_of(lambda: D.idm_path(model, start, stop, 0.5)),
             "monolithic, one full model": median_of(one_model)}
        for k, limb in enumerate(limbs):
            t[f"limb {k + 1}"] = median_of(lambda: L.limb_contribution(limb, P, Pd, Pdd))
        t["all limbs + combination"] = median_of(lambda: L.idm_per_limb(limbs, P, Pd, Pdd, m_p))
    print(f"Delta inverse dynamics, {n} samples per call, BLAS one thread, medians")
    print(f"{'evaluation':26s} {'us/sample':>10s} {'ratio':>7s} {'Table 1':>8s} {'ratio':>6s}")
    for name, sec in t.items():
        ref = TABLE_1.get(name)
        ref_txt = f"{ref:8.2f} {ref / TABLE_1['monolithic']:6.2f}" if ref else ""
        print(f"{name:26s} {1e6 * sec / n:10.2f} {sec / t['monolithic']:7.2f} {ref_txt}")


if __name__ == "__main__":
    main()
