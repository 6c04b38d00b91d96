"""The pictures of docs/maps.md: the five-bar's map of f1 and of its
largest principal platform compliance (docs/img/five_bar_map.png,
docs/img/five_bar_compliance.png), and slices of the NaVARo's 3D map over
(x, y, theta) (docs/img/navaro_map.png), by :func:`flexpkm.workspace_map`.

Run: ``OMP_NUM_THREADS=1 python docs/scripts/maps.py`` (about a minute).
"""
import time
from pathlib import Path

import flexpkm as fp
from flexpkm import cases
from flexpkm.io.map_output import plot_map
from flexpkm.model import files

IMG = Path(__file__).resolve().parents[1] / "img"
FIVE_BAR = Path(cases.__file__).parent / "examples" / "five_bar.toml"


def main():
    model = fp.build_model(files.load(FIVE_BAR))
    t0 = time.perf_counter()
    m = fp.workspace_map(model, ["-0.25:0.45:36", "0.15:0.65:26"], n_modes=3)
    print(f"five-bar 36 x 26: {time.perf_counter() - t0:.1f} s, {m.counts()}")
    plot_map(m, IMG / "five_bar_map.png")
    plot_map(m, IMG / "five_bar_compliance.png", "compliance",
             title="five-bar: log10 of the largest principal compliance of P (m/N)")
    case = cases.get("navaro")
    options = {o.name: o.default for o in case.options}
    navaro = fp.build_model(case.robot(options))
    t0 = time.perf_counter()
    m = fp.workspace_map(navaro, ["-0.1:0.1:21", "-0.1:0.1:21", "-0.6:0.15:6"], n_modes=3,
                         configure=lambda p: case.extra["masked_configure"](navaro, p, options),
                         names=case.pose_names)
    print(f"NaVARo 21 x 21 x 6: {time.perf_counter() - t0:.1f} s, {m.counts()}, {m.backend}")
    from dataclasses import replace
    plot_map(replace(m, units=case.pose_units), IMG / "navaro_map.png")


if __name__ == "__main__":
    main()
