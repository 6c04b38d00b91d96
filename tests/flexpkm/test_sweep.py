"""Frequency sweeps along a path of poses (flexpkm.sweep) and the
``flexpkm sweep`` command."""
import io

import numpy as np
import pytest

from flexpkm.cases import dualemps as D
from flexpkm.cli.app import main
from flexpkm.errors import FlexPKMError, SingularConfigurationError
from flexpkm.algorithms.modal import natural_frequencies
from flexpkm.analysis.sweep import ProgressBar, frequency_sweep, path_poses
from flexpkm.io.plots import plot_sweep, x_axis


@pytest.fixture(scope="module")
def robot():
    return D.robot()


def configure(robot):
    return lambda p: D.configuration(robot, *p)


def test_batch_equals_loop(robot):
    res = frequency_sweep(robot, configure(robot), (0.0, 0.0), (0.1, 0.02), 7, n_modes=5,
                          names=("q11", "q21"), chunk=None)
    loop = np.array([natural_frequencies(robot, D.configuration(robot, *p), n_modes=5)
                     .frequencies_hz for p in res.poses])
    np.testing.assert_allclose(res.frequencies_hz, loop, rtol=1e-10)
    chunked = frequency_sweep(robot, configure(robot), (0.0, 0.0), (0.1, 0.02), 7, n_modes=5,
                              chunk=3)
    np.testing.assert_allclose(chunked.frequencies_hz, loop, rtol=1e-10)
    np.testing.assert_allclose(res.poses[[0, -1]], [[0, 0], [0.1, 0.02]])
    assert res.frequencies_hz.shape == (7, 5)
    np.testing.assert_allclose(res.frequencies_hz[0], D.TABLE_11_1["Model"][:5], rtol=0.015)


def test_path_and_axis(robot):
    s, poses = path_poses((0, 1, 2), (1, 1, 0), 5)
    np.testing.assert_allclose(poses[2], (0.5, 1, 1))
    with pytest.raises(ValueError):
        path_poses((0, 1), (1, 1, 0), 5)
    with pytest.raises(ValueError):
        path_poses((0,), (1,), 1)
    res = frequency_sweep(robot, configure(robot), (0.0, 0.0), (0.0, 0.1), 3, names=("q11", "q21"))
    x, label = x_axis(res, {"q21": "m"})
    np.testing.assert_allclose(x, [0, 0.05, 0.1])
    assert label == "q21 (m)"


def test_unreachable_pose_raises_or_nan(robot, monkeypatch):
    with pytest.raises(FlexPKMError):          # q21 = 0.5 m: outside the stroke
        frequency_sweep(robot, configure(robot), (0.0, 0.0), (0.0, 0.5), 3)
    import flexpkm.analysis.sweep as sweep_module
    i11 = robot.layout.index("q11")

    def failing(rob, q, **kw):                 # pretend the middle pose is singular
        if np.any(np.isclose(np.atleast_2d(q)[:, i11], 0.05)):
            raise SingularConfigurationError("singular configuration (test)")
        return natural_frequencies(rob, q, **kw)
    monkeypatch.setattr(sweep_module, "natural_frequencies", failing)
    with pytest.raises(SingularConfigurationError):
        frequency_sweep(robot, configure(robot), (0.0, 0.0), (0.1, 0.0), 3, n_modes=3)
    res = frequency_sweep(robot, configure(robot), (0.0, 0.0), (0.1, 0.0), 3, n_modes=3,
                          on_error="nan")
    assert np.isfinite(res.frequencies_hz[[0, 2]]).all()
    assert np.isnan(res.frequencies_hz[1]).all()


def test_progress_bar_writes():
    out = io.StringIO()
    with ProgressBar(4, "sweep", stream=out, enabled=True) as bar:
        for _ in range(4):
            bar.update()
    assert "4/4" in out.getvalue() and out.getvalue().endswith("\n")
    quiet = io.StringIO()
    with ProgressBar(4, stream=quiet) as bar:      # not a terminal: silent
        bar.update(4)
    assert quiet.getvalue() == ""


def test_plot_and_csv(tmp_path, robot):
    res = frequency_sweep(robot, configure(robot), (0.0, 0.0), (0.1, 0.0), 4, n_modes=3,
                          names=("q11", "q21"))
    png = plot_sweep(res, tmp_path / "f.png", 3, "DualEMPS")
    assert png.stat().st_size > 5000
    csv = res.to_csv(tmp_path / "f.csv")
    data = np.loadtxt(csv, delimiter=",", skiprows=1)
    assert open(csv).readline().strip() == "s,q11,q21,f1_hz,f2_hz,f3_hz"
    np.testing.assert_allclose(data[:, 3:], res.frequencies_hz, rtol=1e-9)


def test_cli_sweep(tmp_path, capsys):
    rc = main(["sweep", "dualemps", "--from", "0", "0", "--to", "0.1", "0.05", "--steps", "4",
               "--plot", str(tmp_path / "s.png"), "--csv", str(tmp_path / "s.csv")])
    assert rc == 0
    assert (tmp_path / "s.png").exists()
    data = np.loadtxt(tmp_path / "s.csv", delimiter=",", skiprows=1)
    assert data.shape == (4, 3 + 5)
    assert main(["sweep", "dualemps", "--from", "0", "0", "0", "--to", "0.1", "0",
                 "--csv", str(tmp_path / "x.csv")]) == 2
    assert "--from needs 2 values (q11 q21)" in capsys.readouterr().err


def test_cli_sweep_navaro(tmp_path):
    pytest.importorskip("cases.navaro")
    rc = main(["sweep", "navaro", "--from", "0", "0", "0", "--to", "0", "0", "-0.2",
               "--steps", "3", "--modes", "3", "--csv", str(tmp_path / "n.csv")])
    assert rc == 0
    data = np.loadtxt(tmp_path / "n.csv", delimiter=",", skiprows=1)
    np.testing.assert_allclose(data[0, 4:], [44.10, 44.10, 53.98], rtol=1e-3)   # Table 11.4
