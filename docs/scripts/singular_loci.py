"""The rigid five-bar's Type 2 loci over its workspace with the book's 9.4
path (docs/img/five_bar_singular_loci.png), and the IDM along that path at
several sampling rates with the refusal switched off (``singular=0``) to
show why it is refused (docs/singularities.md).

Run: ``python docs/scripts/singular_loci.py [out.png]``.
"""
import sys
import time
import warnings

import numpy as np

import flexpkm as fp

P0, PF, TF = np.array([0.0, 0.338]), np.array([0.1, 0.1]), 1.5


def loci(n=(81, 61)):
    case = fp.cases.get("rigid_five_bar")
    model = fp.build_model(case.robot({}))
    state = lambda poses: case.configure(model, poses, {})
    t0 = time.perf_counter()
    res = fp.singular_loci(model, (-0.2, 0.2, n[0]), (0.05, 0.38, n[1]), state=state)
    return model, state, res, time.perf_counter() - t0


def sampling_table(model, state, rates=(100.0, 1e3, 1e4)):
    rows = []
    for rate in rates:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            r = fp.path_inverse_dynamics(model, state, P0, PF, TF, rate=rate, singular=0.0)
        d = r.distances[:, r.distance_names.index("type 2")]
        rows.append((rate, len(r.t), np.abs(r.tau).max(), d.min(), len(caught)))
    return rows


def main():
    import matplotlib
    matplotlib.use("Agg")
    out = sys.argv[1] if len(sys.argv) > 1 else "docs/img/five_bar_singular_loci.png"
    model, state, res, wall = loci()
    print(f"{res!r} in {wall:.2f} s")
    fig = res.plot()
    ax = fig.axes[0]
    ax.plot([P0[0], PF[0]], [P0[1], PF[1]], "w-", lw=1.5, label="9.4 path P0 -> Pf")
    ax.legend(loc="lower left")
    ax.set_title("rigid five-bar: Type 2 locus, working modes (+, -)")
    ax.set_xlabel("x (m)")
    ax.set_ylabel("y (m)")
    fig.savefig(out, dpi=110)
    print(f"wrote {out}")
    print("| rate (Hz) | samples | max abs(tau) (N m), singular=0 | smallest Type 2 distance | warnings |")
    print("|---|---|---|---|---|")
    for rate, n, tau, dmin, w in sampling_table(model, state):
        print(f"| {rate:g} | {n} | {tau:.4g} | {dmin:.3g} | {w} |")


if __name__ == "__main__":
    main()
