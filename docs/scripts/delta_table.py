"""The natural-frequency table of docs/delta.md: the flexible Delta (platform
free, issue 16) at its two documented positions with 1, 8 and 16 elements
per flexible body, against the independent OpenSeesPy frame model
(tests/independent/opensees_delta.py, platform free in six directions, with
the sections' rotary inertia), and the model as shipped before issue 16
(platform rotations locked: rx, ry, rz removed from M_r, K_r).

Run from the repository's root: ``python docs/scripts/delta_table.py``
(needs openseespy; about a minute).
"""
import sys
from pathlib import Path

import numpy as np

import flexpkm as fp
from flexpkm.algorithms.eigen import generalized_eigh
from flexpkm.cases import delta as D

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from tests.independent.opensees_delta import delta_frequencies  # noqa: E402

POSITIONS = [(0.0, 0.0, -0.80), (0.20, 0.10, -0.95)]


def locked_rotations(model, q, n=8):
    """Frequencies with the platform's rotations locked (the old model)."""
    red = fp.reduced_matrices(model, q[None])
    keep = [i for i, c in enumerate(red.indep) if c not in model.layout.platform_dependent]
    M, K = red.M_r[:, keep][:, :, keep], red.K_r[:, keep][:, :, keep]
    na = red.n_a
    lam = generalized_eigh(K[:, na:, na:], M[:, na:, na:], vectors=False)[0][0, :n]
    return np.sqrt(lam) / (2 * np.pi)


def row(label, f):
    return f"| {label} | " + " | ".join(f"{x:.3f}" for x in f[:8]) + " |"


def main():
    for P in POSITIONS:
        for n in (1, 8, 16):
            model = fp.build_model(fp.refine(D.robot(flexible=True), n))
            q = fp.assemble(model, pose=np.array(P))
            f = fp.natural_frequencies(model, q, shapes=False).frequencies_hz[:10]
            fe = delta_frequencies(P, n_el=n, rotary=True)
            old = locked_rotations(model, q)
            print(row(f"{P}, {n} el., flexpkm", f))
            print(row(f"{P}, {n} el., OpenSeesPy + rotary inertia", fe))
            print(row(f"{P}, {n} el., rotations locked (before)", old))
            print(f"   max |f/f_FE - 1| = {np.abs(f / fe - 1).max():.2g}; "
                  f"locked f1 {100 * (old[0] / f[0] - 1):+.2f} %")
            if n == 1:
                print(row(f"{P}, 1 el., OpenSeesPy as is", delta_frequencies(P)))


if __name__ == "__main__":
    main()
