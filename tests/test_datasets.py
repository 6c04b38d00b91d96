"""Results in the scientific stack (flexpkm/datasets.py): each result's
``to_xarray()`` survives a NetCDF round trip (scipy's netcdf3 engine) with
its values, dimensions, units and provenance; ``to_dataframe()`` has one row
per pose or sample; the reprs are short; a missing extra is named."""
import sys

import numpy as np
import pytest

import flexpkm as fp
from flexpkm.datasets import coordinate_units, effort_unit
from flexpkm.errors import MissingDependencyError as MissingExtraError

xr = pytest.importorskip("xarray")
pd = pytest.importorskip("pandas")

FIVE_BAR = "cases/examples/five_bar.toml"
POSE = [0.15, 0.45]


@pytest.fixture(scope="module")
def model():
    from pathlib import Path
    return fp.build_model(fp.load_robot(Path(__file__).resolve().parents[1] / FIVE_BAR))


@pytest.fixture(scope="module")
def q(model):
    return fp.assemble(model, pose=POSE)


@pytest.fixture(scope="module")
def idm():
    from flexpkm.cases import rigid_five_bar
    m = fp.build_model(rigid_five_bar.robot())
    case = fp.cases.get("rigid_five_bar")
    with pytest.warns(fp.errors.NearSingularWarning):    # crosses Type 2: issue 19
        res = fp.path_inverse_dynamics(m, lambda p: case.configure(m, p, {}), [-0.02, 0.2],
                                       [0.05, 0.27], 0.3, rate=100.0, singular=0.0)
    return m, res


def round_trip(ds, tmp_path):
    """``ds`` written to NetCDF 3 and read back (values, dims, attrs identical)."""
    path = tmp_path / "result.nc"
    ds.to_netcdf(path, engine="scipy")
    with xr.open_dataset(path, engine="scipy") as back:
        back = back.load()
    xr.testing.assert_identical(ds, back)
    return back


def test_coordinate_units_follow_the_joint_types():
    five = fp.load_robot(__file__.rsplit("/tests/", 1)[0] + "/" + FIVE_BAR)
    units = dict(zip(five.layout.names, coordinate_units(five)))
    assert units["q11"] == "rad" and units["qe11_1"] == "1" and units["x_P"] == "m"
    rpr = fp.load_robot(__file__.rsplit("/tests/", 1)[0] + "/cases/examples/three_rpr_flexible.toml")
    units = dict(zip(rpr.layout.names, coordinate_units(rpr)))
    assert [units[rpr.layout.names[i]] for i in rpr.layout.actuated] == ["m", "m", "m"]
    assert units["q11"] == "rad"
    assert effort_unit("rad") == "N m" and effort_unit("m") == "N"


def test_modes_round_trip(model, q, tmp_path):
    modes = fp.natural_frequencies(model, q, n_modes=3, backend="numpy")
    back = round_trip(modes.to_xarray(model), tmp_path)
    np.testing.assert_array_equal(back.frequencies_hz, modes.frequencies_hz)
    np.testing.assert_array_equal(back.shapes_tot.transpose("coordinate", "mode"), modes.shapes_tot)
    assert back.frequencies_hz.dims == ("mode",) and back.frequencies_hz.attrs["units"] == "Hz"
    assert list(back.coordinate_r.values) == list(modes.names)
    assert back.unit.sel(coordinate="q11").item() == "rad"
    assert back.unit.sel(coordinate="x_P").item() == "m"
    assert back.attrs["robot"] == "five-bar" and back.attrs["backend"] == "numpy"
    assert back.attrs["flexpkm_version"] == fp.__version__


def test_batch_modes_have_a_pose_dimension(model, q, tmp_path):
    modes = fp.natural_frequencies(model, np.stack([q, q]), n_modes=2, backend="numpy",
                                   shapes=False)
    back = round_trip(modes.to_xarray(), tmp_path)
    assert back.frequencies_hz.dims == ("pose", "mode") and back.sizes["pose"] == 2
    assert "shapes_q" not in back and back.attrs["robot"] == ""


def test_sweep_round_trip_and_table(model, tmp_path):
    sweep = fp.frequency_sweep(model, lambda p: fp.assemble(model, pose=p), POSE, [0.2, 0.45], 3,
                               n_modes=2, backend="numpy")
    back = round_trip(sweep.to_xarray(model), tmp_path)
    np.testing.assert_array_equal(back.frequencies_hz, sweep.frequencies_hz)
    assert back.frequencies_hz.dims == ("pose", "mode")
    assert list(back.status.values) == list(sweep.status) and back.attrs["complete"] == 1
    df = sweep.to_dataframe()
    assert isinstance(df, pd.DataFrame) and df.shape == (3, 1 + 2 + 2 + 3 + 1)
    assert list(df.columns[:5]) == ["s", *sweep.names, "f1_hz", "f2_hz"]
    assert df["status"].tolist() == ["ok"] * 3
    np.testing.assert_array_equal(df["f2_hz"], sweep.frequencies_hz[:, 1])


def test_simulation_round_trip_and_table(model, q, tmp_path):
    res = fp.simulate(model, q, 0.004, fp.Free(), backend="numpy")
    back = round_trip(res.to_xarray(model), tmp_path)
    np.testing.assert_array_equal(back.q, res.q)
    np.testing.assert_array_equal(back.time, res.t)
    assert back.q.dims == ("time", "coordinate") and back.tau.dims == ("time", "actuator")
    assert back.tau.attrs["units"] == "N m" and back.time.attrs["units"] == "s"
    assert back.total_energy.attrs["units"] == "J"
    np.testing.assert_array_equal(back.drift, res.drift)
    df = res.to_dataframe()
    assert df.shape == (len(res.t), 1 + 2 + 2 + len(res.names))
    assert {"t", "tau_q11", "drift", "energy", "q11", "qe11_1"} <= set(df.columns)


def test_idm_round_trip_and_table(idm, tmp_path):
    m, res = idm
    back = round_trip(res.to_xarray(m), tmp_path)
    np.testing.assert_array_equal(back.tau, res.tau)
    np.testing.assert_array_equal(back.ground, res.ground.total)
    assert back.tau.dims == ("time", "actuator") and list(back.unit.values) == ["rad", "rad"]
    assert list(back.platform.values) == ["x", "y"] and back.attrs["result"] == "IdmResult"
    assert back.distance.dims == ("time", "singularity") and back.singularity.values[0] == "type 2"
    np.testing.assert_array_equal(back.distance, res.distances)
    df = res.to_dataframe()
    assert df.shape == (len(res.t), 1 + 4 * 2 + 1 + 6)
    np.testing.assert_array_equal(df["tau_q21"], res.tau[:, 1])


def test_reprs_are_short(model, q, idm):
    modes = fp.natural_frequencies(model, q, n_modes=3, backend="numpy")
    for res in (modes, idm[1]):
        text = repr(res)
        assert len(text) < 300 and text.startswith(type(res).__name__ + "(")
        assert "array(" not in text
        assert res._repr_html_().startswith("<table>")
    assert f"{modes.frequencies_hz[0]:.4g}" in repr(modes)


def test_a_missing_extra_is_named(model, q, monkeypatch):
    modes = fp.natural_frequencies(model, q, n_modes=1, backend="numpy", shapes=False)
    monkeypatch.setitem(sys.modules, "xarray", None)
    with pytest.raises(MissingExtraError, match=r"flexpkm\[data\]"):
        modes.to_xarray()


def test_modes_table_has_one_row_per_pose(model, q):
    modes = fp.natural_frequencies(model, np.stack([q, q, q]), n_modes=2, backend="numpy",
                                   shapes=False)
    df = modes.to_dataframe()
    assert df.shape == (3, 2 + 3) and list(df.columns[:2]) == ["f1_hz", "f2_hz"]
    np.testing.assert_array_equal(df["f2_hz"], modes.frequencies_hz[:, 1])


def test_map_dataset_and_netcdf_without_importing_dask_array_and_distributed(tmp_path):
    """In a fresh process the map's Dataset and NetCDF file (xarray's probes
    for dask arrays and a distributed scheduler) do not import dask.array
    nor distributed; after, they import and xarray takes dask arrays."""
    import subprocess
    import sys
    pytest.importorskip("xarray")
    code = f"""
import sys, numpy as np, xarray as xr
from flexpkm.datasets import dask_unprobed
from flexpkm.io.map_output import write_netcdf
with dask_unprobed():
    ds = xr.Dataset({{"f": (("x",), np.arange(3.0))}}, coords={{"x": [0.0, 1.0, 2.0]}})
write_netcdf(ds, {str(tmp_path / "m.nc")!r})
print(sorted(m for m in ("dask.array", "distributed") if m in sys.modules))
print(xr.open_dataset({str(tmp_path / "m.nc")!r}).f.values.tolist())
try:
    import dask.array as da
except ImportError:
    print("no dask")
else:
    print(type(xr.DataArray(da.zeros(4, chunks=2)).data).__name__)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    lines = out.stdout.split("\n")
    assert lines[0] == "[]" and lines[1] == "[0.0, 1.0, 2.0]"
    assert lines[2] in ("Array", "no dask")
