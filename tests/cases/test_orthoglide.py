"""The Orthoglide's description file (cases/orthoglide.toml) against the
book's closed forms (cases/orthoglide.py): IGM (7.28)-(7.35), FGM
(7.49)-(7.50), to 1e-10; its mobility (Appendix A.4.3) is 3."""
from pathlib import Path

import numpy as np
import pytest

import flexpkm as fp
from flexpkm.algorithms.mobility import mobility
from flexpkm.cases import orthoglide as og
from flexpkm.model import files

FILE = Path(fp.cases.__file__).parent / "orthoglide.toml"


@pytest.fixture(scope="module")
def model():
    return fp.build_model(files.load(FILE))


def _poses(n, seed=0):
    return np.array([0.1, 0.1, 0.2]) + np.random.default_rng(seed).uniform(-0.05, 0.05, (n, 3))


def _wrap(a):
    return (np.asarray(a) + np.pi) % (2 * np.pi) - np.pi


def test_inverse_geometric_model_is_the_assembly(model):
    L = model.layout
    for pose in _poses(5):
        q = fp.assemble(model, pose=pose)
        np.testing.assert_allclose(q[list(L.actuated)], og.igm(pose), atol=1e-10)
        for name, value in og.passive(pose, og.igm(pose)).items():
            assert abs(_wrap(q[L.index(name)] - value)) < 1e-10, name


def test_forward_geometric_model_is_the_assembly(model):
    L = model.layout
    for pose in _poses(5, seed=1):
        q_a = og.igm(pose)
        q = fp.assemble(model, q_a=q_a)
        x = q[list(L.commanded)]
        np.testing.assert_allclose(x, pose, atol=1e-10)
        # the assembly mode of the file's reference is the "-" root of (7.50)
        np.testing.assert_allclose(og.fgm(q_a, mode=-1), x, atol=1e-10)
        assert np.linalg.norm(og.fgm(q_a, mode=1) - x) > 1e-3


def test_unreachable_pose_is_refused():
    with pytest.raises(fp.UnreachablePoseError, match="leg"):
        og.igm((0.0, 0.0, 0.0))


def test_mobility_is_three():
    """Appendix A.4.3: N_dof = 3, the platform's three translations."""
    m = mobility(files.load(FILE))
    assert (m.n_dof, m.n_platform, m.n_rigid) == (3, 3, 18)
