"""First natural frequency of the flexible Delta over a horizontal slice of
its workspace (docs/img/delta_map.png): one batched call of
:func:`flexpkm.natural_frequencies` on the closed-form configurations.

Run: ``python docs/scripts/delta_map.py [z] [out.png]`` (default z = -0.85 m).
"""
import sys
import time

import numpy as np

import flexpkm as fp
from flexpkm.cases import delta as D


def frequency_map(z=-0.85, half=0.25, n=41, modes=2):
    model = fp.build_model(D.robot(flexible=True))
    x = np.linspace(-half, half, n)
    X, Y = np.meshgrid(x, x)
    P = np.stack([X.ravel(), Y.ravel(), np.full(X.size, z)], -1)
    t0 = time.perf_counter()
    f = fp.natural_frequencies(model, D.configuration(model, P), n_modes=modes,
                               shapes=False).frequencies_hz
    return X, Y, f.reshape(n, n, modes), time.perf_counter() - t0


def main():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    z = float(sys.argv[1]) if len(sys.argv) > 1 else -0.85
    out = sys.argv[2] if len(sys.argv) > 2 else "docs/img/delta_map.png"
    X, Y, f, sec = frequency_map(z)
    fig, axes = plt.subplots(1, 2, figsize=(10, 4.2), constrained_layout=True)
    for k, ax in enumerate(axes):
        c = ax.contourf(X, Y, f[..., k], 20, cmap="viridis")
        ax.contour(X, Y, f[..., k], 10, colors="k", linewidths=0.4)
        fig.colorbar(c, ax=ax, label="Hz")
        ax.set(title=f"mode {k + 1}, z = {z} m", xlabel="x (m)", ylabel="y (m)", aspect="equal")
    fig.savefig(out, dpi=90)
    print(f"{X.size} poses in {sec:.2f} s; mode 1 from {f[..., 0].min():.2f} to "
          f"{f[..., 0].max():.2f} Hz; wrote {out}")


if __name__ == "__main__":
    main()
