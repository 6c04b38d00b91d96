"""Off-screen pictures (flexpkm.viz) and the ``flexpkm modes`` command."""
import numpy as np
import pytest

pv = pytest.importorskip("pyvista")
from PIL import Image  # noqa: E402  (pyvista depends on Pillow)

from flexpkm.cases import dualemps as D  # noqa: E402
from flexpkm.io import viz  # noqa: E402
from flexpkm.cli.app import main  # noqa: E402
from flexpkm.io.geometry import auto_scale, mode_geometry  # noqa: E402
from flexpkm.analysis.modal import natural_frequencies  # noqa: E402

SMALL = (320, 240)


@pytest.fixture(scope="module")
def mode1():
    robot = D.robot()
    q = D.configuration(robot, 0.0, 0.0)
    modes = natural_frequencies(robot, q, n_modes=2)
    geo = mode_geometry(robot, q, modes.shapes_tot[:, 0])
    return robot, geo, auto_scale(geo), modes.frequencies_hz[0]


def not_blank(path):
    img = np.asarray(Image.open(path).convert("L"), float)
    return img.std() > 5.0 and (img < 128).mean() > 0.002


def test_png_is_rendered(tmp_path, mode1):
    robot, geo, s, f = mode1
    path = viz.render_mode(robot, geo, s, tmp_path / "sub" / "m1.png",
                           viz.mode_title(robot, 1, f), "pose", window_size=SMALL)
    assert path.exists()
    assert Image.open(path).size == SMALL
    assert not_blank(path)


def test_gif_is_animated(tmp_path, mode1):
    robot, geo, s, f = mode1
    path = viz.animate_mode(robot, geo, s, tmp_path / "m1.gif", n_frames=6, window_size=SMALL)
    im = Image.open(path)
    assert im.is_animated and im.n_frames >= 4     # Pillow merges the repeated frames
    total = 0
    for k in range(im.n_frames):
        im.seek(k)
        total += im.info["duration"]
    assert total == pytest.approx(6 * 1000 / 12, rel=0.1)  # one period, 12 frames/s (GIF: 10 ms steps)
    frames = []
    for k in (0, 1):                     # amplitude 0 and sin(60 deg): different pictures
        im.seek(k)
        frames.append(np.asarray(im.convert("L"), float))
    assert np.abs(frames[0] - frames[1]).mean() > 0.05


def test_pyvista_grid_carries_the_field(mode1):
    robot, geo, s, _ = mode1
    grid = viz.to_pyvista(geo, s)
    mesh = geo.mesh()
    assert grid.n_cells == len(mesh.cells)
    np.testing.assert_allclose(grid.points, mesh.reference + s * mesh.displacement)
    np.testing.assert_allclose(grid.point_data["displacement"], s * mesh.displacement)
    assert grid.point_data["relative |u|"].max() == pytest.approx(1.0)
    assert (grid.compute_cell_sizes()["Volume"] > 0).all()


def test_camera_views():
    robot = D.robot()
    v = viz.camera_view(robot)
    np.testing.assert_allclose(v.direction, robot.plane_normal)
    np.testing.assert_allclose(v.up, (0, 0, 1))       # the actuators' axis z_0 up
    assert v.parallel
    iso = viz.camera_view(robot, "iso")
    assert abs(np.dot(iso.up, robot.gravity)) > 0      # -gravity up
    with pytest.raises(ValueError):
        viz.camera_view(robot, "sideways")


def test_navaro_default_view_is_from_above():
    nav = pytest.importorskip("cases.navaro")
    v = viz.camera_view(nav.robot())
    np.testing.assert_allclose(v.up, (0, 0, 1))
    assert v.direction[2] > 0.4 and not v.direction[0] == v.direction[1] == 0


def test_cli_modes(tmp_path, capsys):
    rc = main(["modes", "dualemps", "--mode-numbers", "1,2", "--png", str(tmp_path / "png"), "--gif",
               "--vtu", str(tmp_path / "vtu"), "--xdmf", str(tmp_path / "all.xdmf")])
    assert rc == 0
    out = capsys.readouterr().out
    assert "mode 2: 25.0" in out
    for name in ("png/dualemps_mode_1.png", "png/dualemps_mode_2.gif",
                 "vtu/dualemps_mode_2.vtu", "all.xdmf"):
        assert (tmp_path / name).exists(), name
    assert not_blank(tmp_path / "png" / "dualemps_mode_1.png")


@pytest.mark.parametrize("argv, message", [
    (["--mode-numbers", "3-a", "--png", "x"], "--mode-numbers '3-a'"),
    (["--mode-numbers", "12", "--png", "x"], "has 9 modes"),
    (["--mode-numbers", "1-1000000000", "--png", "x"], "cannot draw mode 1000000000"),
    (["--modes", "0", "--png", "x"], "not a positive whole number"),
    (["--modes", "1"], "nothing to write"),
    (["--gif", "--vtu", "x"], "--gif"),
])
def test_cli_modes_errors(tmp_path, capsys, argv, message):
    assert main(["modes", "dualemps"] + argv) == 2
    assert message in capsys.readouterr().err


def test_no_process_wide_side_effects(tmp_path, mode1):
    """Pictures and plots leave matplotlib's backend and pyvista's globals alone."""
    import matplotlib
    import pyvista

    from flexpkm.analysis.sweep import frequency_sweep
    from flexpkm.cases import dualemps as D
    from flexpkm.io.plots import plot_sweep
    backend, off_screen = matplotlib.get_backend(), pyvista.OFF_SCREEN
    robot, geo, scale, f = mode1
    viz.render_mode(robot, geo, scale, tmp_path / "m.png", title="mode 1", window_size=SMALL)
    res = frequency_sweep(robot, lambda p: D.configuration(robot, *p), (0, 0), (0, 0.05), 3,
                          n_modes=2)
    plot_sweep(res, tmp_path / "s.png")
    assert matplotlib.get_backend() == backend and pyvista.OFF_SCREEN == off_screen


def test_pose_text_formats_tuples_and_text():
    """Issue 16 item 8: NaVARo's pose holds a tuple of working modes and a text option."""
    from flexpkm.io.viz import pose_text
    assert (pose_text({"x": 0.1, "working_modes": (-1, 1, -1), "actuation": "locked"})
            == "x = 0.1, working_modes = (-1, 1, -1), actuation = locked")
