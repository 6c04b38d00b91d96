"""Deformed geometry (flexpkm.geometry): reference geometry on the frames,
beams swept with their own shape functions (tip = next frame of
tree_kinematics), linearised mode fields that respect the closures, the
automatic scale."""
import numpy as np
import pytest

from flexpkm.cases import dualemps as D
from flexpkm.io.geometry import (KINDS, Style, auto_scale, mode_geometry, robot_geometry,
                              robot_size, rotation_vector)
from flexpkm.analysis.modal import natural_frequencies
from flexpkm.algorithms.tree import tree_kinematics
from tests.conftest import spatial_tree


def station_centres(part, per_station=4):
    """Mean of each station's nodes (= the centre line for a 2x2 section)."""
    return part.points.reshape(-1, per_station, 3).mean(axis=1)


def reference_centres(part, per_station=4):
    return part.reference.reshape(-1, per_station, 3).mean(axis=1)


@pytest.fixture(scope="module")
def dualemps():
    robot = D.robot()
    return robot, D.configuration(robot, 0.0, 0.0)


@pytest.fixture(scope="module")
def dualemps_modes(dualemps):
    robot, q = dualemps
    return natural_frequencies(robot, q, n_modes=6)


def random_elastic(robot, q, seed=1, amplitude=1e-3):
    q = np.array(q, float)
    rng = np.random.default_rng(seed)
    for sl in robot.layout.elastic_slice.values():
        q[sl] = amplitude * rng.uniform(-1, 1, sl.stop - sl.start)
    return q


def test_reference_geometry_on_frames(dualemps):
    robot, q = dualemps
    geo = robot_geometry(robot, q)
    kin = tree_kinematics(robot, q)
    idx = robot.frame_index
    for name, length in D.FLEXIBLE.items():
        c = reference_centres(geo.part(f"beam {name}"))
        np.testing.assert_allclose(c[0], kin.p[0, idx[name]], atol=1e-12)
        np.testing.assert_allclose(np.linalg.norm(c[-1] - c[0]), length, rtol=1e-12)
        np.testing.assert_allclose(np.diff(c, axis=0).sum(axis=0) / length,
                                   kin.R[0, idx[name]][:, 0], atol=1e-12)
    # a rigid link goes from its frame to the next one
    link = reference_centres(geo.part("link 14-15"))
    np.testing.assert_allclose(link, kin.p[0, [idx["14"], idx["15"]]], atol=1e-12)
    # no elastic coordinate: nothing moves
    assert geo.max_displacement == 0.0 and geo.max_rotation == 0.0
    assert {p.kind for p in geo.parts} <= set(KINDS)


def test_beam_section_is_the_real_one(dualemps):
    robot, q = dualemps
    beam = robot_geometry(robot, q).part("beam 13")
    corners = beam.reference[:4]                      # station 0: (y, z) = (-+b/2, -+h/2)
    sides = sorted(np.linalg.norm(corners[[1, 2]] - corners[0], axis=1))
    np.testing.assert_allclose(sides, [0.004, 0.050], rtol=1e-12)
    assert beam.cells.shape == (Style().beam_stations - 1, 8)


@pytest.mark.parametrize("make", ["dualemps", "tree"])
def test_beam_tip_is_next_frame_of_tree(make):
    """The centre line at x = L, swept with the body's own Phi_d/Phi_r, is
    the origin of the next frame computed by tree_kinematics with the same
    elastic coordinates, and the tip section's triad is that frame's
    attachment triad."""
    if make == "dualemps":
        robot = D.robot()
        q0 = D.configuration(robot, 0.05, 0.1)
        pairs = [("13", "14"), ("16", "17"), ("23", "24")]
    else:
        robot = spatial_tree()
        q0 = np.random.default_rng(0).uniform(-1, 1, robot.layout.n_t)
        pairs = [("1", "2")]
    q = random_elastic(robot, q0, amplitude=0.02)
    geo = robot_geometry(robot, q)
    kin = tree_kinematics(robot, q)
    idx = robot.frame_index
    for beam, nxt in pairs:
        part = geo.part(f"beam {beam}")
        tip = station_centres(part)[-1]
        np.testing.assert_allclose(tip, kin.p[0, idx[nxt]], atol=1e-12)
        f = robot.frames[idx[nxt]]
        if f.gamma == f.alpha == f.theta == 0.0 and not f.has_coordinate:
            y_axis = (part.points[-2] - part.points[-4])     # +y side minus -y side at the tip
            np.testing.assert_allclose(y_axis / np.linalg.norm(y_axis),
                                       kin.R[0, idx[nxt]][:, 1], atol=1e-12)


def test_connector_reaches_off_axis_attachment():
    """Spatial tree: frame 4 sits off the axis of beam 2 (gamma, b); its
    connector ends at the joint's attachment point A_4 = O_4 - r_4 z_4 (to
    first order in q_e: the section is turned by Euler angles)."""
    robot = spatial_tree()
    q = random_elastic(robot, np.random.default_rng(3).uniform(-1, 1, robot.layout.n_t),
                       amplitude=1e-4)
    geo = robot_geometry(robot, q)
    kin = tree_kinematics(robot, q)
    j = robot.frame_index["4"]
    A4 = kin.p[0, j] - robot.frames[j].r * kin.R[0, j][:, 2]
    np.testing.assert_allclose(station_centres(geo.part("link 2-4"))[-1], A4, atol=1e-7)


def test_displacement_and_rotation_fields(dualemps):
    robot, q = dualemps
    qe = random_elastic(robot, q, amplitude=0.01)
    geo = robot_geometry(robot, qe)
    ref = robot_geometry(robot, q)
    for p, p0 in zip(geo.parts, ref.parts):
        np.testing.assert_allclose(p.reference, p0.reference, atol=1e-15)
        np.testing.assert_allclose(p.points, p.reference + p.displacement)
    # rotation vector of the tip of beam 13 = that of frame 14 from the reference
    kin, kin0 = tree_kinematics(robot, qe), tree_kinematics(robot, q)
    j = robot.frame_index["14"]
    expected = rotation_vector(kin.R[0, j] @ kin0.R[0, j].T)
    np.testing.assert_allclose(geo.part("beam 13").rotation[-1], expected, atol=1e-12)


def test_hexahedra_have_positive_volume(dualemps):
    robot, q = dualemps
    mesh = robot_geometry(robot, q).mesh()
    P = mesh.reference[mesh.cells]                   # (m, 8, 3), VTK order
    vol = np.einsum("mi,mi->m", P[:, 1] - P[:, 0],
                    np.cross(P[:, 3] - P[:, 0], P[:, 4] - P[:, 0]))
    assert np.all(vol > 0)
    assert mesh.cells.max() < len(mesh.reference)
    assert len(mesh.cell_part) == len(mesh.cells) == len(mesh.cell_kind)


def test_mode_field_is_linearisation(dualemps, dualemps_modes):
    robot, q = dualemps
    shape = dualemps_modes.shapes_tot[:, 0]
    lin = mode_geometry(robot, q, shape)
    eps = 1e-5
    exact = robot_geometry(robot, q + eps * shape, reference=q)
    for a, b in zip(lin.parts, exact.parts):
        np.testing.assert_allclose(eps * a.displacement, b.displacement, atol=1e-8)
        np.testing.assert_allclose(eps * a.rotation, b.rotation, atol=1e-8)


def test_mode_field_respects_the_closures(dualemps, dualemps_modes):
    """The weld O25 = O15 and the revolute at P move together in every mode."""
    robot, q = dualemps
    for k in range(6):
        geo = mode_geometry(robot, q, dualemps_modes.shapes_tot[:, k])
        d = lambda name: geo.part(name).displacement.reshape(-1, 4, 3).mean(axis=1)[-1]
        u = geo.max_displacement
        np.testing.assert_allclose(d("link 14-15"), d("link 24-25"), atol=1e-7 * u)
        # the beam 16 - link 17-18 chain ends where the platform point P is
        P = geo.part("cut joint P").displacement.mean(axis=0)
        np.testing.assert_allclose(d("link 17-18"), P, atol=1e-7 * u)


def test_navaro_mode_closures():
    nav = pytest.importorskip("cases.navaro")
    robot = nav.robot()
    q = nav.configuration(robot, 0.0, 0.0, 0.0)
    modes = natural_frequencies(robot, q, n_modes=2)
    geo = mode_geometry(robot, q, modes.shapes_tot[:, 0])
    tol = 1e-7 * geo.max_displacement
    for leg in "123":
        # revolute cut at D_i: end of beam i1 (link A_i D_i) = marker on frame i4D
        tip = geo.part(f"beam {leg}1").displacement.reshape(-1, 4, 3).mean(axis=1)[-1]
        np.testing.assert_allclose(tip, geo.part(f"cut joint D{leg}").displacement.mean(axis=0),
                                   atol=tol)
        # weld at P: end of beam i5 = platform hub
        tip5 = geo.part(f"beam {leg}5").displacement.reshape(-1, 4, 3).mean(axis=1)[-1]
        np.testing.assert_allclose(tip5, geo.part("platform hub").displacement.mean(axis=0),
                                   atol=tol)


def test_auto_scale(dualemps, dualemps_modes):
    robot, q = dualemps
    geo = mode_geometry(robot, q, dualemps_modes.shapes_tot[:, 1])
    extent = np.ptp(geo.bounds(), axis=0).max()
    s = auto_scale(geo, 0.1, max_rotation=None)
    np.testing.assert_allclose(geo.scaled(s).max_displacement, 0.1 * extent)
    s2 = auto_scale(geo, 0.1, max_rotation=0.05)
    assert s2 < s and np.isclose(geo.scaled(s2).max_rotation, 0.05)
    with pytest.raises(ValueError, match="zero"):
        auto_scale(robot_geometry(robot, q))


def test_size_and_bad_state(dualemps):
    robot, q = dualemps
    assert 0.7 < robot_size(robot, q) < 0.9             # |P| height 0.792 m
    with pytest.raises(ValueError):
        robot_geometry(robot, q[:-1])
