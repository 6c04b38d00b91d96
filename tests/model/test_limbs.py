"""Modular limbs (flexpkm.limbs, Müller Section 7): a placed copy of a
representative limb is the limb seen through its mount frame, with renamed
frames, bodies, closures and joint tables."""
import numpy as np
import pytest

from flexpkm.elements.beam import Beam3D, Material, Section
from flexpkm.elements.rigid import RigidBody
from flexpkm.model.description import FIXED, Closure, Frame, Platform, Robot
from flexpkm.errors import InvalidDescriptionError
from flexpkm.model.limbs import Limb, Mount, combine_limbs
from flexpkm.analysis.modal import natural_frequencies
from flexpkm.spatial import mdh_transform
from flexpkm.algorithms.tree import tree_kinematics

STEEL = Material(E=2.1e11, rho=7800.0, nu=0.3)
SEC = Section.rectangle(0.02, 0.03)


def rl(root_attached=False):
    """A small spatial RL: two root revolutes (the first one with or without
    an attachment of its own), a flexible link, a loop cut and a platform cut."""
    extra = dict(gamma=0.2, b=0.05, alpha=0.3, d=0.1) if root_attached else {}
    frames = (
        Frame("1", None, sigma=0, mu=1, theta=0.1, **extra),
        Frame("2", "1", sigma=0, alpha=np.pi / 2, d=0.4),
        Frame("3", "2", sigma=1, d=0.3, r=0.02),
        Frame("3E", "3", sigma=FIXED, d=0.25),
        Frame("4", None, sigma=0, d=0.2),
    )
    bodies = {"1": (Beam3D(0.4, SEC, STEEL),), "2": (Beam3D(0.3, SEC, STEEL),),
              "3": (RigidBody.point_mass(0.5, (0.1, 0, 0)),)}
    closures = (Closure("3E", "4", "spherical", name="L"),
                Closure("3E", None, "spherical", name="P", platform_point=(0.1, 0.0, 0.0)))
    return Limb(frames, bodies, closures, joint_stiffness={"2": 50.0},
                viscous_friction={"1": 0.3}, q_dep=("q2", "qe2_3"))


def homogeneous(R, p):
    T = np.eye(4)
    T[:3, :3], T[:3, 3] = R, p
    return T


def mount_transform(m):
    """^0T_mount, 4x4, from the MDH transform of flexpkm.spatial."""
    R_att, p_att, R_j, r = mdh_transform(m.gamma, m.b, m.alpha, m.d, m.theta, m.r)
    return homogeneous(R_att @ R_j, p_att + r * R_att[:, 2])


MOUNTS = {
    "general": Mount(gamma=0.7, b=0.1, alpha=0.4, d=0.3, theta=-0.5, r=0.05),
    "about_z": Mount.about_z(2 * np.pi / 3, b=0.2),
    "identity": Mount(),
}


@pytest.mark.parametrize("root_attached", [False, True])
@pytest.mark.parametrize("mount", list(MOUNTS))
def test_placed_limb_is_the_limb_seen_through_its_mount(mount, root_attached):
    """Every frame pose of the placed copy = T_mount @ pose in the RL, for
    random joint AND elastic coordinates (the mount is a rigid base change)."""
    limb, m = rl(root_attached), MOUNTS[mount]
    local = combine_limbs("rl", [limb.place("7")], platform=Platform())
    placed = combine_limbs("copy", [limb.place("7", m)], platform=Platform())
    assert placed.layout.names == local.layout.names
    q = np.random.default_rng(3).uniform(-1, 1, local.layout.n_t)
    q[local.layout.n_t - 12:] *= 0.01
    k0, k1 = tree_kinematics(local, q), tree_kinematics(placed, q)
    T = mount_transform(m)
    for name, j in local.frame_index.items():
        j1 = placed.frame_index[name]
        np.testing.assert_allclose(T[:3, :3] @ k0.R[0, j], k1.R[0, j1], atol=1e-12)
        np.testing.assert_allclose(T[:3, :3] @ k0.p[0, j] + T[:3, 3], k1.p[0, j1], atol=1e-12)


def test_mount_composes_into_mdh_when_exact():
    """Bare root frames absorb any mount; a rotation about z is added to gamma;
    otherwise a fixed mount frame "<leg>0" is inserted."""
    frames = {f.name: f for f in rl().place("2", MOUNTS["general"]).frames}
    f1 = frames["21"]
    assert (f1.antecedent, f1.gamma, f1.b, f1.alpha, f1.d, f1.theta, f1.r) == (
        None, 0.7, 0.1, 0.4, 0.3, 0.1 - 0.5, 0.05)
    assert frames["24"].antecedent == "20" and frames["20"].sigma == FIXED
    frames = {f.name: f for f in rl(True).place("2", MOUNTS["about_z"]).frames}
    assert "20" not in frames
    assert frames["21"].gamma == pytest.approx(0.2 + 2 * np.pi / 3)
    assert frames["24"].gamma == pytest.approx(2 * np.pi / 3) and frames["24"].b == 0.2


def test_renaming_of_frames_bodies_closures_and_tables():
    p = rl().place("3", MOUNTS["about_z"], actuated=("4",))
    assert [f.name for f in p.frames] == ["31", "32", "33", "33E", "34"]
    assert {f.leg for f in p.frames} == {"3"}
    assert [f.mu for f in p.frames] == [0, 0, 0, 0, 1]
    assert set(p.bodies) == {"31", "32", "33"}
    assert [(c.frame, c.other, c.name, c.leg) for c in p.closures] == [
        ("33E", "34", "L3", "3"), ("33E", None, "P3", "3")]
    assert p.joint_stiffness == {"32": 50.0} and p.viscous_friction == {"31": 0.3}
    assert p.q_dep == ("q32", "qe32_3")
    custom = rl().place("a", rename=lambda leg, n: f"{n}.{leg}")
    assert custom.frames[2].name == "3.a" and custom.frames[2].antecedent == "2.a"


def test_platform_mount_places_the_platform_points():
    R = np.array([[0.0, -1, 0], [1, 0, 0], [0, 0, 1]])
    p = rl().place("1", Mount(platform_rotation=R, platform_offset=(0, 0, 0.1)))
    np.testing.assert_allclose(p.closures[1].platform_point, (0.0, 0.1, 0.1))
    assert p.closures[0].platform_point == (0.0, 0.0, 0.0)    # leg-internal cut


def test_assemble_three_copies_mounted_about_z():
    """Three copies of one RL mounted 120 deg apart: the assembled robot is
    valid, its tables and q_dep merge, and the copies are rotated images."""
    limb = rl()
    legs = [limb.place(str(k + 1), Mount.about_z(2 * np.pi * k / 3)) for k in range(3)]
    rob = combine_limbs("tripod", legs, platform=Platform(body=RigidBody(
        XX=0.01, YY=0.01, ZZ=0.02, M=2.0)), joint_stiffness={"11": 10.0})
    assert isinstance(rob, Robot)
    assert rob.joint_stiffness == {"12": 50.0, "22": 50.0, "32": 50.0, "11": 10.0}
    assert rob.q_dep == ("q12", "qe12_3", "q22", "qe22_3", "q32", "qe32_3")
    assert len(rob.closures) == 6 and len(rob.frames) == 15
    q = np.zeros(rob.layout.n_t)
    for leg in "123":
        q[rob.layout.index(f"q{leg}2")] = 0.3
    kin = tree_kinematics(rob, q)
    ends = kin.p[0, [rob.frame_index[f"{leg}3E"] for leg in "123"]]
    rot = np.array([[np.cos(2 * np.pi / 3), -np.sin(2 * np.pi / 3), 0],
                    [np.sin(2 * np.pi / 3), np.cos(2 * np.pi / 3), 0], [0, 0, 1]])
    np.testing.assert_allclose(rot @ ends[0], ends[1], atol=1e-12)
    np.testing.assert_allclose(rot @ ends[1], ends[2], atol=1e-12)


def test_navaro_is_assembled_from_limbs_with_table_11_2():
    from flexpkm.cases import navaro

    rob = navaro.robot()
    for leg, g in zip("123", navaro.GAMMA):
        for j in "12":
            f = rob.frames[rob.frame_index[leg + j]]
            assert (f.antecedent, f.gamma, f.d, f.theta, f.mu) == (None, g, 0.4041, -g, 1)
        f3 = rob.frames[rob.frame_index[leg + "3"]]
        assert (f3.antecedent, f3.d, f3.mu) == (leg + "2", 0.21, 0)
    f = natural_frequencies(rob, navaro.configuration(rob), 3).frequencies_hz
    assert f[0] == pytest.approx(f[1], rel=1e-9)


def test_errors_name_the_problem():
    with pytest.raises(InvalidDescriptionError, match="unknown local frame 'X'"):
        rl().place("1", actuated=("X",))
    bad = Limb(rl().frames, closures=(Closure("3E", "nope", "weld"),))
    with pytest.raises(InvalidDescriptionError, match="nope"):
        bad.place("1")
    with pytest.raises(InvalidDescriptionError, match="defined twice"):
        combine_limbs("dup", [rl().place("1"), rl().place("1")], platform=Platform())
    with pytest.raises(InvalidDescriptionError, match="not a coordinate"):
        Limb(rl().frames, q_dep=("x2",)).place("1")
