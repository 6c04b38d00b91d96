"""The Gough-Stewart platform's description file (cases/gough_stewart.toml)
against the book's closed-form IGM (7.37) (cases/gough_stewart.py), to
1e-10, with the U joint angles derived from Table 7.5; its mobility is 6."""
from pathlib import Path

import numpy as np
import pytest

import flexpkm as fp
from flexpkm.algorithms.mobility import mobility
from flexpkm.cases import gough_stewart as gs
from flexpkm.model import files

FILE = Path(fp.cases.__file__).parent / "gough_stewart.toml"
REFERENCE = np.array([0.02, -0.01, 0.6, 0.05, -0.03, 0.1])


@pytest.fixture(scope="module")
def model():
    return fp.build_model(files.load(FILE))


def _poses(n, seed):
    return REFERENCE + np.random.default_rng(seed).uniform(-0.05, 0.05, (n, 6))


def _wrap(a):
    return (np.asarray(a) + np.pi) % (2 * np.pi) - np.pi


def test_inverse_geometric_model_is_the_assembly(model):
    L = model.layout
    for pose in _poses(4, 0):
        q = fp.assemble(model, pose=pose)
        np.testing.assert_allclose(q[list(L.actuated)], gs.igm(pose), atol=1e-10)
        for name, value in gs.universal_angles(pose).items():
            assert abs(_wrap(q[L.index(name)] - value)) < 1e-10, name


def test_forward_problem_inverts_the_closed_form(model):
    """The assembly from q_a = IGM(pose) (a numerical FGM; the book gives no
    closed form, Section 7.2.2.5) returns the pose."""
    L = model.layout
    for pose in _poses(3, 1):
        q = fp.assemble(model, q_a=gs.igm(pose))
        np.testing.assert_allclose(q[list(L.commanded)], pose, atol=1e-10)


def test_mobility_is_six():
    m = mobility(files.load(FILE))
    assert (m.n_dof, m.n_platform, m.n_rigid) == (6, 6, 24)
