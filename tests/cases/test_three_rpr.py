"""The 3-RPR's description file (cases/three_rpr.toml) against the book's
closed forms (cases/three_rpr.py): IGM (7.20)-(7.22) and FGM (the sextic
(7.48)), to 1e-10; its mobility (Appendix A.4.2) is 3."""
from pathlib import Path

import numpy as np
import pytest

import flexpkm as fp
from flexpkm.algorithms.mobility import mobility
from flexpkm.cases import three_rpr as rpr
from flexpkm.model import files

FILE = Path(fp.cases.__file__).parent / "three_rpr.toml"
REFERENCE = np.array([0.03, 0.02, 0.4])


@pytest.fixture(scope="module")
def model():
    return fp.build_model(files.load(FILE))


def _poses(n, seed):
    return REFERENCE + np.random.default_rng(seed).uniform(-0.05, 0.05, (n, 3))


def _wrap(a):
    return (np.asarray(a) + np.pi) % (2 * np.pi) - np.pi


def test_inverse_geometric_model_is_the_assembly(model):
    L = model.layout
    for pose in _poses(5, 0):
        q = fp.assemble(model, pose=pose)
        for name, value in rpr.igm(pose).items():
            assert abs(_wrap(q[L.index(name)] - value)) < 1e-10, name


def test_forward_geometric_model_is_the_assembly(model):
    L = model.layout
    for pose in _poses(5, 1):
        q_a = [rpr.igm(pose)[f"q{i}2"] for i in (1, 2, 3)]
        x = fp.assemble(model, q_a=q_a)[list(L.commanded)]
        np.testing.assert_allclose(x, pose, atol=1e-10)
        modes = rpr.fgm(q_a)
        assert 2 <= len(modes) <= 6
        best = np.argmin(np.abs(_wrap(modes - x)).max(axis=1))
        assert np.abs(_wrap(modes[best] - x)).max() < 1e-10
        # every other assembly mode closes the loops too: (7.19) at each
        for m in modes:
            q = rpr.igm(m)
            np.testing.assert_allclose([q[f"q{i}2"] for i in (1, 2, 3)], q_a, atol=1e-10)


def test_mobility_is_three():
    """Appendix A.4.2: N_dof = 3 (Tx, Ty, Rz)."""
    m = mobility(files.load(FILE))
    assert (m.n_dof, m.n_platform, m.n_rigid) == (3, 3, 12)
