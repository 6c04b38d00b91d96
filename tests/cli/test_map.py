"""``flexpkm map`` and ``flexpkm study`` (issue 21): outputs written, counts
by cause, one-line refusals (exit 2), resume."""
from pathlib import Path

import numpy as np
import pytest

from flexpkm import cases
from flexpkm.cli.app import main

pytest.importorskip("xarray")
FIVE_BAR = str(Path(cases.__file__).parent / "examples" / "five_bar.toml")


def test_map_writes_netcdf_and_picture(tmp_path, capsys):
    import xarray as xr
    status = main(["map", FIVE_BAR, "--grid", "-0.1:0.3:5", "0.3:0.62:3", "--modes", "2",
                   "--backend", "numpy", "--netcdf", str(tmp_path / "m.nc"),
                   "--plot", str(tmp_path / "m.png")])
    out, err = capsys.readouterr()
    assert status == 0, err
    assert "15 cells:" in out and "unreachable" in out
    assert (tmp_path / "m.png").stat().st_size > 1000
    with xr.open_dataset(tmp_path / "m.nc", engine="scipy") as ds:
        assert ds.frequencies_hz.shape == (5, 3, 2)
        assert np.isfinite(ds.frequencies_hz.values[:, 0]).all()
        assert ds.attrs["cells_ok"] + ds.attrs["cells_unreachable"] == 15


def test_navaro_map_on_two_workers_equals_one(tmp_path, capsys):
    """``flexpkm map navaro``: the masked closed form (cells beyond reach
    counted, not raised) and the eigenproblems on 2 worker processes (chunks
    of 4 cells) equal to the bit those run in the command's process."""
    import xarray as xr
    grid = ["--grid", "-0.1:0.1:3", "-0.05:0.05:3", "0.1:0.1:1", "--modes", "3",
            "--chunk", "4", "--backend", "numpy", "--no-progress"]
    values = []
    for workers in ("1", "2"):
        path = tmp_path / f"w{workers}.nc"
        assert main(["map", "navaro", *grid, "--workers", workers, "--netcdf", str(path)]) == 0
        out = capsys.readouterr().out
        assert "9 cells:" in out and "unreachable" in out and " ok" in out, out
        with xr.open_dataset(path, engine="scipy") as ds:
            values.append((ds.frequencies_hz.values, ds.compliance.values))
    for a, b in zip(*values):
        np.testing.assert_array_equal(a, b)

@pytest.mark.parametrize("argv, message", [
    (["--grid", "0:1", "--plot", "x.png"], "x0:x1:n"),
    (["--grid", "0:0.1:2"], "nothing to write"),
    (["--grid", "0:0.1:2", "0:1:2", "0:1:2", "0:1:2", "--plot", "x.png"], "1 to 3 axes"),
])
def test_map_refusals_are_one_line(argv, message, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    status = main(["map", FIVE_BAR, *argv])
    err = capsys.readouterr().err
    assert status == 2 and message in err and len(err.strip().splitlines()) == 1, err
    assert not list(tmp_path.iterdir())


def test_study_runs_and_resumes(tmp_path, capsys):
    study = tmp_path / "study.toml"
    study.write_text('modes = 2\nchunk = 1\n[poses]\ngrid = ["0.0:0.2:2", "0.4:0.45:2"]\n'
                     '[[parameters]]\nname = "b_y"\n'
                     'paths = ["legs[0].frames[0].bodies[0].section.b_y", '
                     '"legs[1].frames[0].bodies[0].section.b_y"]\n'
                     'low = 0.004\nhigh = 0.006\nnumber = 2\n')
    out_dir = tmp_path / "out"
    argv = ["study", FIVE_BAR, str(study), "--out", str(out_dir), "--workers", "1"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "2 designs x 4 poses" in out and "b_y = 0.006" in out
    assert main(argv) == 2                          # a finished study there: refused
    assert len(capsys.readouterr().err.strip().splitlines()) == 1
    assert main(argv + ["--resume"]) == 0
