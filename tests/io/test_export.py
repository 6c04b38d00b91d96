"""meshio export of mode shapes (flexpkm.export): VTU per mode and XDMF
time series, read back with meshio."""
import meshio
import numpy as np
import pytest

from flexpkm.cases import dualemps as D
from flexpkm.io import export
from flexpkm.io.geometry import KINDS, auto_scale, mode_geometry
from flexpkm.analysis.modal import natural_frequencies


@pytest.fixture(scope="module")
def case():
    robot = D.robot()
    q = D.configuration(robot, 0.0, 0.0)
    modes = natural_frequencies(robot, q, n_modes=3)
    geos = [mode_geometry(robot, q, modes.shapes_tot[:, k]) for k in range(3)]
    return robot, q, modes, geos


def test_vtu_round_trip(tmp_path, case):
    robot, q, modes, geos = case
    paths = export.write_modes_vtu(robot, q, modes, [1, 3], tmp_path, "de")
    assert [p.name for p in paths] == ["de_mode_1.vtu", "de_mode_3.vtu"]
    for path, geo, k in zip(paths, (geos[0], geos[2]), (1, 3)):
        mesh = meshio.read(path)
        ref = geo.mesh()
        np.testing.assert_allclose(mesh.points, ref.reference)
        np.testing.assert_array_equal(mesh.cells_dict["hexahedron"], ref.cells)
        np.testing.assert_allclose(mesh.point_data["displacement"], ref.displacement)
        np.testing.assert_allclose(mesh.point_data["rotation"], ref.rotation)
        np.testing.assert_array_equal(mesh.cell_data["kind"][0], ref.cell_kind)
        assert mesh.field_data["mode"][0] == k
        assert mesh.field_data["frequency_hz"][0] == pytest.approx(modes.frequencies_hz[k - 1])
        assert mesh.field_data["suggested_scale"][0] == pytest.approx(auto_scale(geo))


def test_vtu_normalised_to_one_metre(tmp_path, case):
    robot, q, modes, geos = case
    path, = export.write_modes_vtu(robot, q, modes, [2], tmp_path, "de", normalize="max")
    u = meshio.read(path).point_data["displacement"]
    assert np.linalg.norm(u, axis=1).max() == pytest.approx(1.0)
    with pytest.raises(ValueError, match="normalisation"):
        export.amplitude(geos[0], "huge")
    with pytest.raises(ValueError, match="not available"):
        export.write_modes_vtu(robot, q, modes, [4], tmp_path, "de")


def read_series(path):
    with meshio.xdmf.TimeSeriesReader(path) as reader:
        points, cells = reader.read_points_cells()
        steps = [reader.read_data(k) for k in range(reader.num_steps)]
    return points, cells, steps


def test_xdmf_modes_as_time_steps(tmp_path, case):
    robot, q, modes, geos = case
    path = export.write_modes_xdmf(robot, q, modes, [1, 2, 3], tmp_path / "modes.xdmf")
    points, cells, steps = read_series(path)
    np.testing.assert_allclose(points, geos[0].mesh().reference)
    assert cells[0].type == "hexahedron"
    assert [t for t, _, _ in steps] == [1.0, 2.0, 3.0]
    for (_, pd, cd), geo in zip(steps, geos):
        np.testing.assert_allclose(pd["displacement"], geo.mesh().displacement)
        np.testing.assert_allclose(pd["rotation"], geo.mesh().rotation)
        assert set(np.unique(cd["kind"][0])) <= set(range(len(KINDS)))


def test_xdmf_animation(tmp_path, case):
    _, _, modes, geos = case
    f = modes.frequencies_hz[0]
    path = export.write_animation_xdmf(geos[0], 0.05, tmp_path / "anim.xdmf", n_frames=8,
                                       frequency_hz=f)
    _, _, steps = read_series(path)
    t = np.array([s[0] for s in steps])
    np.testing.assert_allclose(t, np.arange(8) / (8 * f))
    u = geos[0].mesh().displacement
    for ti, pd, _ in steps:
        np.testing.assert_allclose(pd["displacement"], 0.05 * np.sin(2 * np.pi * f * ti) * u,
                                   atol=1e-12)
