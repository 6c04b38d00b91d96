"""Workspace maps (issue 21 item 1): every computed cell equals the
single-pose analysis at its configuration, every configuration equals the
one-pose assembly (the batch changes the speed, not the answer), the masked
cells are those the one-pose assembly refuses, and the platform compliance
of the five-bar equals an independent static FE model (OpenSeesPy)."""
from pathlib import Path

import numpy as np
import pytest

import flexpkm as fp
from flexpkm import cases
from flexpkm.analysis.grid import Grid, fronts, make_grid
from flexpkm.analysis.workspace_map import cause, workspace_map
from flexpkm.errors import InvalidArgumentError, UnreachablePoseError
from flexpkm.model import files

FIVE_BAR = Path(cases.__file__).parent / "examples" / "five_bar.toml"


@pytest.fixture(scope="module")
def five_bar():
    return fp.build_model(files.load(FIVE_BAR))


@pytest.fixture(scope="module")
def five_bar_map(five_bar):
    """7 x 5 cells, the upper rows beyond reach (|P A_i| > 0.6 m)."""
    return workspace_map(five_bar, ["-0.2:0.4:7", "0.3:0.62:5"], n_modes=3, backend="numpy")


def test_cells_equal_the_single_pose_analysis(five_bar, five_bar_map):
    m = five_bar_map
    ok = np.argwhere(np.isin(m.status, ["ok", "near-singular"]))
    assert len(ok) >= 15
    rng = np.random.default_rng(1)
    for i, j in ok[rng.choice(len(ok), 6, replace=False)]:
        one = fp.natural_frequencies(five_bar, m.q_tot[i, j], n_modes=3, shapes=False,
                                     backend="numpy")
        np.testing.assert_allclose(m.frequencies_hz[i, j], one.frequencies_hz, rtol=1e-12)
        assert m.measures["singularity_measure"][i, j] == pytest.approx(
            float(one.singularity_measure), rel=1e-10)
        assert m.measures["cond_closure"][i, j] == pytest.approx(float(one.cond_closure),
                                                                 rel=1e-10)


def test_configurations_equal_the_one_pose_assembly(five_bar, five_bar_map):
    m = five_bar_map
    poses = m.grid.poses().reshape(m.status.shape + (2,))
    for i, j in [(0, 0), (3, 2), (6, 1), (2, 3)]:
        assert m.status[i, j] == "ok"
        q = fp.assemble(five_bar, pose=poses[i, j])
        np.testing.assert_allclose(m.q_tot[i, j], q, atol=1e-9)


def test_masked_cells_are_refused_alone(five_bar, five_bar_map):
    m = five_bar_map
    counts = m.counts()
    assert counts.get("unreachable", 0) >= 3 and sum(counts.values()) == 35
    poses = m.grid.poses().reshape(m.status.shape + (2,))
    masked = np.argwhere(m.status != "ok")
    for i, j in masked[[0, -1]]:
        assert cause(m.status[i, j]) == "unreachable"
        assert np.isnan(m.frequencies_hz[i, j]).all()
        below = max(k for k in range(j) if m.status[i, k] == "ok")     # its solved neighbour
        with pytest.raises(UnreachablePoseError):
            fp.assemble(five_bar, pose=poses[i, j], guess=m.q_tot[i, below])


def test_compliance_matches_opensees_at_three_poses(five_bar):
    """C (2 x 2, m/N) of the map times a force equals OpenSees' linear static
    displacement of P (tests/independent/opensees_five_bar.py, the same
    Euler-Bernoulli frame): 1e-6 relative."""
    pytest.importorskip("openseespy")
    from tests.independent.opensees_five_bar import five_bar_static_deflection
    m = workspace_map(five_bar, [[0.0, 0.1, 0.2], [0.4]], n_modes=1, backend="numpy")
    force = np.array([3.0, -5.0])
    for k in range(3):
        q = m.q_tot[k, 0]
        q11, q21 = q[five_bar.layout.index("q11")], q[five_bar.layout.index("q21")]
        u = five_bar_static_deflection(q11, q21, force, n_el=1)
        np.testing.assert_allclose(m.compliance[k, 0] @ force, u, rtol=1e-6,
                                   atol=1e-6 * np.abs(u).max())
        C = m.compliance[k, 0]
        np.testing.assert_allclose(C, C.T, rtol=1e-12, atol=1e-12 * np.abs(C).max())
        np.testing.assert_allclose(m.compliance_eigenvalues[k, 0], np.linalg.eigvalsh(C))


def test_navaro_closed_form_map_equals_single_poses():
    """The NaVARo's closed-form pose (x, y, theta) in batches: 3 x 2 x 2 cells."""
    case = cases.get("navaro")
    options = {o.name: o.default for o in case.options}
    model = fp.build_model(case.robot(options))
    m = workspace_map(model, ["-0.02:0.02:3", "0.0:0.02:2", "-0.1:0.1:2"], n_modes=4,
                      configure=lambda p: case.configure(model, p, options),
                      names=case.pose_names, backend="numpy")
    assert m.counts() == {"ok": 12}
    pose = m.grid.poses()[7]
    one = fp.natural_frequencies(model, case.configure(model, pose, options), n_modes=4,
                                 shapes=False, backend="numpy")
    np.testing.assert_allclose(m.frequencies_hz.reshape(12, 4)[7], one.frequencies_hz,
                               rtol=1e-12)
    assert m.compliance.shape == (3, 2, 2, 6, 6)


def test_navaro_3d_map_masked_closed_form_equals_single_poses():
    """A 4 x 4 x 3 NaVARo map (x, y, theta) over the workspace's edge through
    the case's masked closed form (one call per chunk): random computed cells
    equal the single-pose modal analysis to 1e-12, every masked cell is
    refused by the closed form alone with that status, and the map equals
    the one through the raising closed form (batches bisected) and the one
    solved by 2 worker processes (chunks of 7 cells; its cells assembled job
    by job as the jobs are sent, :func:`stream_cells`)."""
    case = cases.get("navaro")
    options = {o.name: o.default for o in case.options}
    model = fp.build_model(case.robot(options))
    masked = case.extra["masked_configure"]
    grid = ["-0.15:0.15:4", "-0.15:0.15:4", "-0.5:0.5:3"]
    m = workspace_map(model, grid, n_modes=4, configure=lambda p: masked(model, p, options),
                      names=case.pose_names, backend="numpy", chunk=7)
    assert m.counts() == {"ok": 16, "unreachable": 32}
    poses, f = m.grid.poses(), m.frequencies_hz.reshape(48, 4)
    status = m.status.ravel()
    ok = np.flatnonzero(status == "ok")
    for k in np.random.default_rng(1).choice(ok, 4, replace=False):
        one = fp.natural_frequencies(model, case.configure(model, poses[k], options), n_modes=4,
                                     shapes=False, backend="numpy")
        np.testing.assert_allclose(f[k], one.frequencies_hz, rtol=1e-12)
    for k in np.flatnonzero(status != "ok"):
        with pytest.raises(UnreachablePoseError) as e:
            case.configure(model, poses[k], options)
        assert status[k] == f"UnreachablePoseError: {e.value}" and np.isnan(f[k]).all()
    bisected = workspace_map(model, grid, n_modes=4, names=case.pose_names, backend="numpy",
                             configure=lambda p: case.configure(model, p, options), chunk=7)
    np.testing.assert_array_equal(bisected.frequencies_hz, m.frequencies_hz)
    np.testing.assert_array_equal(bisected.causes(), m.causes())
    parallel = workspace_map(model, grid, n_modes=4, names=case.pose_names, backend="numpy",
                             configure=lambda p: masked(model, p, options), chunk=7, workers=2)
    np.testing.assert_array_equal(parallel.frequencies_hz, m.frequencies_hz)
    np.testing.assert_array_equal(parallel.compliance, m.compliance)
    np.testing.assert_array_equal(parallel.q_tot, m.q_tot)      # assembled as the jobs are sent
    assert parallel.status.tolist() == m.status.tolist()

def test_dataset_and_netcdf(five_bar_map, tmp_path):
    xr = pytest.importorskip("xarray")
    from flexpkm.io.map_output import write_netcdf
    ds = five_bar_map.to_xarray()
    assert ds.frequencies_hz.dims == ("x_P", "y_P", "mode")
    assert ds.x_P.attrs["units"] == "m" and ds.frequencies_hz.attrs["units"] == "Hz"
    assert ds.attrs["robot"] == "five-bar" and ds.attrs["cells_ok"] == \
        five_bar_map.counts()["ok"]
    write_netcdf(ds, tmp_path / "m.nc")
    back = xr.open_dataset(tmp_path / "m.nc", engine="scipy")
    np.testing.assert_array_equal(back.frequencies_hz.values, ds.frequencies_hz.values)
    assert list(back.cause.values.ravel()) == list(ds.cause.values.ravel())
    back.close()


def test_fronts_start_every_cell_from_a_solved_neighbour():
    shape = (4, 3, 2)
    seen = set()
    for cells, starts in fronts(shape):
        for c, s in zip(cells, starts):
            assert c not in seen
            if s >= 0:
                assert s in seen
                a, b = np.unravel_index(c, shape), np.unravel_index(s, shape)
                assert np.abs(np.subtract(a, b)).sum() == 1
        seen.update(cells.tolist())
    assert seen == set(range(24))


@pytest.mark.parametrize("grid", [["0:1"], ["a:b:3"], ["0:1:0"], ["0:1:2"] * 4,
                                  [[0.0, np.nan]]])
def test_bad_grids_are_refused(grid):
    with pytest.raises(InvalidArgumentError):
        make_grid(grid, ("x", "y", "z"))


def test_grid_axes():
    g = make_grid(["0:1:3", (2.0, 3.0, 2)], ("x", "y"))
    assert isinstance(g, Grid) and g.shape == (3, 2)
    np.testing.assert_allclose(g.poses()[1], [0.0, 3.0])


def test_bad_fixed_is_refused(five_bar):
    with pytest.raises(InvalidArgumentError, match="fixed"):
        workspace_map(five_bar, ["0:0.1:2"], fixed=[0.4, 1.0])


def _small_navaro_map(backend, **options):
    """The NaVARo's 3 x 3 x 2 map (11 cells reachable, chunks of 4): ``(map,
    model, keywords, grid)`` (``options``: workers, client)."""
    case = cases.get("navaro")
    opts = {o.name: o.default for o in case.options}
    model = fp.build_model(case.robot(opts))
    masked = case.extra["masked_configure"]
    kw = dict(n_modes=3, configure=lambda p: masked(model, p, opts), names=case.pose_names,
              backend=backend, chunk=4)
    grid = ["-0.05:0.05:3", "-0.05:0.05:3", "-0.2:0.2:2"]
    return workspace_map(model, grid, **kw, **options), model, kw, grid


def _same_map(a, b):
    assert a.status.tolist() == b.status.tolist()
    np.testing.assert_array_equal(a.frequencies_hz, b.frequencies_hz)
    np.testing.assert_array_equal(a.compliance, b.compliance)


def test_compiled_map_on_workers_that_keep_the_model_equals_this_process():
    """The NaVARo's compiled map (18 cells, 11 reachable, chunks of 4) on 2 worker
    processes, each keeping the model and its loaded generated code for
    its chunks, equals the map solved here (to the bit), whose cells equal
    the single-pose analysis of a fresh model."""
    pytest.importorskip("casadi")
    here, model, kw, grid = _small_navaro_map("compiled")
    parallel = workspace_map(model, grid, workers=2, **kw)
    assert here.counts() == {"ok": 11, "unreachable": 7} and parallel.backend == "compiled"
    _same_map(parallel, here)
    fresh = fp.build_model(cases.get("navaro").robot({o.name: o.default
                                                      for o in cases.get("navaro").options}))
    k = int(np.flatnonzero(here.status.ravel() == "ok")[-1])
    one = fp.natural_frequencies(fresh, here.q_tot.reshape(18, -1)[k], n_modes=3, shapes=False,
                                 backend="compiled")
    np.testing.assert_allclose(here.frequencies_hz.reshape(18, 3)[k], one.frequencies_hz,
                               rtol=1e-12)


def test_map_on_a_dask_cluster_equals_this_process():
    """The NaVARo's map (chunks of 4 cells) on a 2-worker Dask LocalCluster
    (threads: each keeps its own copy of the model) equals this process's."""
    distributed = pytest.importorskip("distributed")
    here, model, kw, grid = _small_navaro_map("numpy")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        there = workspace_map(model, grid, client=client, **kw)
    _same_map(there, here)
