"""A spatial test tree: flexible 3D beams, revolute and prismatic joints,
non-zero MDH offsets (gamma, b, alpha, d, r) and a branch."""
import numpy as np
import pytest

from flexpkm.elements.beam import Beam3D, Material, Section
from flexpkm.elements.rigid import RigidBody
from flexpkm.model.description import Frame, Robot

STEEL = Material(E=2.1e11, rho=7800.0, nu=0.3)


def spatial_tree(gravity=(0.0, 0.0, -9.81), **kw):
    sec = Section.rectangle(0.02, 0.03)
    frames = (
        Frame("1", None, sigma=0, mu=1, gamma=0.3, b=0.1, alpha=0.2, d=0.05, theta=0.1),
        Frame("2", "1", sigma=0, alpha=np.pi / 2, d=0.5, theta=0.2),
        Frame("3", "2", sigma=1, alpha=-np.pi / 3, d=0.2, r=0.1),
        Frame("4", "2", sigma=0, gamma=0.4, b=0.05, d=0.4, r=0.03),
        Frame("5", "4", sigma=2, alpha=0.3, d=0.3),
    )
    bodies = {
        "1": (Beam3D(0.5, sec, STEEL, name="b1"),),
        "2": (Beam3D(0.4, Section.rectangle(0.015, 0.025), STEEL, name="b2"),),
        "3": (RigidBody(XX=0.02, XY=0.001, XZ=-0.002, YY=0.03, YZ=0.003, ZZ=0.025,
                        MX=0.05, MY=-0.02, MZ=0.03, M=1.5, name="r3"),),
        "4": (Beam3D(0.3, sec, STEEL, name="b4"),),
        "5": (RigidBody(XX=0.01, XY=0, XZ=0, YY=0.01, YZ=0, ZZ=0.01,
                        MX=0.01, MY=0.0, MZ=0.0, M=0.5, name="r5"),
              RigidBody.point_mass(0.3)),
    }
    return Robot(name="tree", frames=frames, bodies=bodies, gravity=gravity, **kw)


@pytest.fixture
def tree_robot():
    return spatial_tree()


def random_state(robot, seed=0, qe_scale=0.02):
    rng = np.random.default_rng(seed)
    layout = robot.layout
    q = rng.uniform(-1, 1, layout.n_t)
    qd = rng.uniform(-1, 1, layout.n_t)
    qdd = rng.uniform(-1, 1, layout.n_t)
    for sl in layout.elastic_slice.values():
        q[sl] *= qe_scale
    return q, qd, qdd
