"""Frequency sweeps along a path of poses (flexpkm.sweep) and the
``flexpkm sweep`` command."""
import io

import numpy as np
import pytest

from flexpkm.cases import dualemps as D
from flexpkm.cli.app import main
from flexpkm.errors import FlexPKMError, SingularConfigurationError
from flexpkm.analysis.modal import natural_frequencies
from flexpkm.analysis.sweep import frequency_sweep, path_poses
from flexpkm.cli.progress import ProgressBar
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


def test_unreachable_pose_raises_or_nan(robot):
    with pytest.raises(FlexPKMError, match="pose 1 "):     # q21 = 0.25 m: outside the stroke
        frequency_sweep(robot, configure(robot), (0.0, 0.0), (0.0, 0.5), 3)
    res = frequency_sweep(robot, configure(robot), (0.0, 0.0), (0.0, 0.3), 4, n_modes=3,
                          on_error="nan")
    assert np.isfinite(res.frequencies_hz[:3]).all() and np.isnan(res.frequencies_hz[3]).all()
    assert res.status[:3] == ("ok",) * 3 and "UnreachablePoseError" in res.status[3]


def test_singular_pose_of_a_later_chunk_is_named_by_its_path_index():
    from flexpkm.cases import navaro as N
    model = N.robot()
    # leg 2 fully extended at theta = 0 on this path: a singular pose, index 4
    with pytest.raises(FlexPKMError) as err:
        frequency_sweep(model, lambda p: N.configuration(model, *p), (0, 0, 0), (0.5, 0, 0), 6,
                        chunk=2)
    assert "pose " in str(err.value)
    res = frequency_sweep(model, lambda p: N.configuration(model, *p), (0, 0, 0), (0.5, 0, 0), 6,
                          chunk=2, on_error="nan", n_modes=3)
    bad = [k for k, s in enumerate(res.status) if s != "ok"]
    assert bad and np.isnan(res.frequencies_hz[bad]).all()
    assert np.isfinite(res.frequencies_hz[0]).all()


def test_progress_bar_writes():
    out = io.StringIO()
    bar = ProgressBar("sweep", stream=out, enabled=True)
    for k in range(1, 5):
        bar(k, 4)
    assert "4/4" in out.getvalue() and out.getvalue().endswith("\n")
    quiet = io.StringIO()
    ProgressBar(stream=quiet)(4, 4)                 # not a terminal: silent
    assert quiet.getvalue() == ""
    calls = []
    frequency_sweep(D.robot(), configure(D.robot()), (0.0, 0.0), (0.0, 0.1), 3,
                    progress=lambda done, total: calls.append((done, total)))
    assert calls[-1] == (6, 6) and len(calls) >= 4


def test_plot_and_csv(tmp_path, robot):
    res = frequency_sweep(robot, configure(robot), (0.0, 0.0), (0.1, 0.0), 4, n_modes=3,
                          names=("q11", "q21"))
    png = plot_sweep(res, tmp_path / "f.png", 3, "DualEMPS")
    assert png.stat().st_size > 5000
    csv = res.to_csv(tmp_path / "f.csv")
    data = np.loadtxt(csv, delimiter=",", skiprows=1, usecols=range(6))
    assert open(csv).readline().strip() == ("s,q11,q21,f1_hz,f2_hz,f3_hz,cond_closure,cond_pencil,"
                                            "singularity_measure,status")
    np.testing.assert_allclose(data[:, 3:], res.frequencies_hz, rtol=1e-9)


def test_cli_sweep(tmp_path, capsys):
    rc = main(["sweep", "dualemps", "--from", "0", "0", "--to", "0.1", "0.05", "--steps", "4",
               "--plot", str(tmp_path / "s.png"), "--csv", str(tmp_path / "s.csv")])
    assert rc == 0
    assert (tmp_path / "s.png").exists()
    data = np.loadtxt(tmp_path / "s.csv", delimiter=",", skiprows=1, usecols=range(8))
    assert data.shape == (4, 3 + 5)
    assert main(["sweep", "dualemps", "--from", "0", "0", "0", "--to", "0.1", "0",
                 "--csv", str(tmp_path / "x.csv")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("flexpkm: error:") and "\n" not in err


def test_cli_sweep_navaro(tmp_path):
    rc = main(["sweep", "navaro", "--from", "0", "0", "0", "--to", "0", "0", "-0.2",
               "--steps", "3", "--modes", "3", "--csv", str(tmp_path / "n.csv")])
    assert rc == 0
    data = np.loadtxt(tmp_path / "n.csv", delimiter=",", skiprows=1, usecols=range(7))
    np.testing.assert_allclose(data[0, 4:], [44.10, 44.10, 53.98], rtol=1e-3)   # Table 11.4
