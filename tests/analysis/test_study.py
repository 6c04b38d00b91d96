"""Design studies (issue 21 items 2 and 5): the designs, a design's
objectives against a map of the file edited by hand, the same results in
this process, in local worker processes and on a 2-worker Dask
LocalCluster, and an interrupted study resumed equal to an uninterrupted one."""
from pathlib import Path

import numpy as np
import pytest

import flexpkm as fp
from flexpkm import cases
from flexpkm.analysis.study import Parameter, design_study, read_study, sample_designs
from flexpkm.analysis.workspace_map import workspace_map
from flexpkm.errors import InvalidArgumentError, OutputError
from flexpkm.model import files

pytest.importorskip("xarray")
FIVE_BAR = Path(cases.__file__).parent / "examples" / "five_bar.toml"
SECTION = "legs[{}].frames[0].bodies[0].section.b_y"
PARAMETERS = [{"name": "proximal b_y", "paths": [SECTION.format(0), SECTION.format(1)],
               "low": 0.004, "high": 0.006, "number": 2},
              {"name": "distal b_y", "paths": ["legs[0].frames[1].bodies[1].section.b_y",
                                               "legs[1].frames[1].bodies[1].section.b_y"],
               "low": 0.004, "high": 0.006, "number": 2}]
GRID = ["0.0:0.2:3", "0.35:0.5:2"]


def _study(folder=None, **kw):
    return design_study(FIVE_BAR, PARAMETERS, GRID, n_modes=2, folder=folder, chunk=1,
                        **{"workers": 1, **kw})


@pytest.fixture(scope="module")
def reference():
    return _study()


def test_objectives_equal_a_map_of_the_file_edited_by_hand(reference):
    text = FIVE_BAR.read_text().replace("b_y = 0.005", "b_y = 0.006")   # all four links
    model = fp.build_model(files.loads(text))
    m = workspace_map(model, GRID, n_modes=2, backend="numpy")
    k = 3                                           # (0.006, 0.006): the last grid design
    np.testing.assert_allclose(reference.value[k].values, [0.006, 0.006])
    assert float(reference.min_f1_hz[k]) == pytest.approx(np.nanmin(m.frequencies_hz[..., 0]),
                                                          rel=1e-12)
    beams = 4 * 0.3 * 0.006 * 0.030 * 7800.0
    assert float(reference.mass_kg[k]) == pytest.approx(beams + 0.4, rel=1e-12)
    assert float(reference.max_compliance[k]) == pytest.approx(
        np.nanmax(m.compliance_eigenvalues[..., -1]), rel=1e-12)


def test_local_processes_equal_in_process(reference):
    ds = _study(workers=2)
    np.testing.assert_array_equal(ds.frequencies_hz.values, reference.frequencies_hz.values)


def test_interrupted_and_resumed_equals_uninterrupted(reference, tmp_path):
    def stop_halfway(done, total):
        if done == 2:
            raise KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt):
        _study(tmp_path, progress=stop_halfway)
    assert len(list((tmp_path / "chunks").glob("chunk-*.npz"))) == 2
    with pytest.raises(OutputError, match="resume"):
        _study(tmp_path)
    calls = []
    ds = _study(tmp_path, resume=True, progress=lambda d, t: calls.append(d))
    assert calls[0] == 2                              # two chunks read, not computed
    for name in ("frequencies_hz", "min_f1_hz", "mass_kg", "compliance", "cause"):
        np.testing.assert_array_equal(ds[name].values, reference[name].values)
    assert (tmp_path / "study.nc").stat().st_size > 0


def test_another_study_in_the_folder_is_refused(tmp_path):
    _study(tmp_path)
    with pytest.raises(OutputError, match="another study"):
        design_study(FIVE_BAR, PARAMETERS[:1], GRID, n_modes=2, folder=tmp_path, workers=1,
                     resume=True)


def test_dask_local_cluster_equals_in_process(reference):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        ds = _study(client=client)
    np.testing.assert_array_equal(ds.frequencies_hz.values, reference.frequencies_hz.values)


def test_latin_hypercube_has_one_sample_per_stratum():
    p = [Parameter("a", ("x",), 0.0, 1.0), Parameter("b", ("y",), 10.0, 20.0)]
    d = sample_designs(p, "lhs", samples=8, seed=3)
    assert d.shape == (8, 2)
    assert sorted(np.floor(d[:, 0] * 8).astype(int)) == list(range(8))
    assert sorted(np.floor((d[:, 1] - 10) / 10 * 8).astype(int)) == list(range(8))
    assert sample_designs(p, "grid").shape == (4, 2)


def test_study_file(tmp_path):
    f = tmp_path / "s.toml"
    f.write_text('sampling = "lhs"\nsamples = 5\n[poses]\ngrid = ["0:0.1:2"]\n'
                 '[[parameters]]\npath = "legs[0].frames[0].d"\nlow = 0.1\nhigh = 0.2\n')
    kw = read_study(f)
    assert kw["samples"] == 5 and kw["grid"] == ["0:0.1:2"]
    f.write_text('[poses]\ngrid = ["0:0.1:2"]\nbogus = 1\n')
    with pytest.raises(InvalidArgumentError, match="bogus"):
        read_study(f)


def test_a_compiled_study_builds_one_library_for_every_design(reference, tmp_path, monkeypatch):
    """Issue 21 item 4: the design parameters are inputs of the generated
    modal function, so the four designs share one compiled library (a
    private, empty cache holds one after the study) and give numpy's
    frequencies."""
    pytest.importorskip("casadi")
    cache = tmp_path / "cache"
    monkeypatch.setenv("FLEXPKM_CACHE", str(cache))
    ds = _study(backend="compiled")
    libraries = [p for p in cache.rglob("*.so")]
    assert len(libraries) == 1, libraries
    np.testing.assert_allclose(ds.frequencies_hz.values, reference.frequencies_hz.values,
                               rtol=1e-9, equal_nan=True)
