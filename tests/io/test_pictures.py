"""Pictures from Python (flexpkm.io.pictures): ``fp.plot_mode`` returns a
pyvista plotter of a mode (off-screen PNG or on screen), ``fp.plot_sweep``
matplotlib axes; no VTK display warning off-screen."""
import os
import re
import subprocess
import sys

import numpy as np
import pytest

pv = pytest.importorskip("pyvista")
pytest.importorskip("matplotlib")
from PIL import Image  # noqa: E402  (pyvista depends on Pillow)

import flexpkm as fp  # noqa: E402
from flexpkm.cases import dualemps as D  # noqa: E402

SMALL = (320, 240)
#: Table 11.1 of Briot & Khalil, "Model" row (Hz), at q11 = q21 = 0
BOOK = (14.22, 25.09, 48.22)


@pytest.fixture(scope="module")
def dualemps():
    model = fp.build_model(D.robot())
    return model, D.configuration(model, 0.0, 0.0)


def texts(plotter) -> str:
    """The texts shown by a plotter (title, subtitle: corner annotations)."""
    return " | ".join(str(a.GetText(k)) for a in plotter.actors.values()
                      if hasattr(a, "GetText") for k in range(8) if a.GetText(k))


def test_plot_mode_is_a_plotter_titled_with_the_book_frequency(dualemps, tmp_path):
    model, q = dualemps
    for mode in (1, 2):
        pl = fp.plot_mode(model, q, mode=mode, window_size=SMALL,
                          screenshot=tmp_path / "sub" / f"m{mode}.png")
        assert isinstance(pl, pv.Plotter) and pl.off_screen
        f = float(re.search(rf"mode {mode}: ([0-9.]+) Hz", texts(pl)).group(1))
        assert f == pytest.approx(BOOK[mode - 1], rel=3e-3)       # the published table
        pl.close()
    a, b = (np.asarray(Image.open(tmp_path / "sub" / f"m{k}.png").convert("L"), float)
            for k in (1, 2))
    assert a.shape == (SMALL[1], SMALL[0]) and a.std() > 5.0
    assert np.abs(a - b).mean() > 1.0                 # two modes, two pictures


def largest_drawn_displacement(plotter) -> float:
    """The largest displacement (m) of the opaque meshes (the deformed robot;
    the ghost is the undeformed one, translucent)."""
    return max(float(np.linalg.norm(a.mapper.dataset.point_data["displacement"], axis=1).max())
               for a in plotter.actors.values()
               if getattr(a, "mapper", None) is not None and a.prop.opacity == 1.0
               and "displacement" in a.mapper.dataset.point_data)


def test_plot_mode_scale_sets_the_largest_displacement(dualemps):
    """The drawn robot is the reference moved by scale x the mode: doubling
    the scale doubles the largest drawn displacement, and the default scale
    keeps it at most 10 % of the robot's size (auto_scale's fraction)."""
    model, q = dualemps
    u1, u2, auto = [], [], []
    for scale, out in ((0.01, u1), (0.02, u2), (None, auto)):
        pl = fp.plot_mode(model, q, mode=1, scale=scale, window_size=SMALL)
        out.append(largest_drawn_displacement(pl))
        size = max(np.ptp(np.vstack([m.points for m in pl.meshes]), axis=0))
        pl.close()
    assert u1[0] > 0 and u2[0] == pytest.approx(2 * u1[0], rel=1e-9)
    assert 0 < auto[0] <= 0.1 * size * 1.01


def test_plot_mode_refuses(dualemps, tmp_path):
    model, q = dualemps
    with pytest.raises(fp.InvalidArgumentError, match="off_screen"):
        fp.plot_mode(model, q, off_screen=False, screenshot=tmp_path / "x.png")
    with pytest.raises(fp.InvalidArgumentError, match="mode 99"):
        fp.plot_mode(model, q, mode=99, modes=fp.natural_frequencies(model, q))


def test_no_display_warning_off_screen(tmp_path):
    """Without a display, VTK prints nothing (it used to try X first and log
    "bad X server connection"); the variable used for it is restored."""
    code = ("import os, flexpkm as fp\nfrom flexpkm.cases import dualemps as D\n"
            "m = fp.build_model(D.robot())\n"
            "fp.plot_mode(m, D.configuration(m, 0.0, 0.0), window_size=(200, 150),"
            " screenshot='m.png').close()\n"
            "assert 'VTK_DEFAULT_OPENGL_WINDOW' not in os.environ\n")
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY",
                                                            "VTK_DEFAULT_OPENGL_WINDOW")}
    r = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                       text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "m.png").exists()
    assert r.stderr == "", r.stderr


def test_plot_sweep_draws_the_frequencies_on_given_axes(dualemps):
    from matplotlib.figure import Figure
    model, _ = dualemps
    sweep = fp.frequency_sweep(model, lambda p: D.configuration(model, *p), [0.0, 0.0],
                               [0.05, 0.0], 4, n_modes=3, names=("q11", "q21"))
    ax = Figure().subplots()
    assert fp.plot_sweep(sweep, ax, n_modes=2, units={"q11": "m"}) is ax
    lines = ax.get_lines()
    assert len(lines) == 2
    for i, line in enumerate(lines):
        np.testing.assert_array_equal(line.get_ydata(), sweep.frequencies_hz[:, i])
        np.testing.assert_array_equal(line.get_xdata(), sweep.poses[:, 0])
    assert ax.get_xlabel() == "q11 (m)"
    np.testing.assert_allclose(sweep.frequencies_hz[0], BOOK, rtol=3e-3)   # Table 11.1


def test_plot_sweep_makes_its_own_figure_without_pyplot(tmp_path):
    code = ("import sys, numpy as np, flexpkm as fp\n"
            "s = fp.SweepResult(names=('x',), poses=np.linspace(0, 1, 3)[:, None],"
            " parameter=np.linspace(0, 1, 3), frequencies_hz=np.ones((3, 2)), status=('ok',) * 3)\n"
            "ax = fp.plot_sweep(s)\nax.figure.savefig('s.png')\n"
            "print(len(ax.get_lines()), 'matplotlib.pyplot' in sys.modules)")
    r = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["2", "False"] and (tmp_path / "s.png").exists()
