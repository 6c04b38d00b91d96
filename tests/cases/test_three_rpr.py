"""The 3-RPR's description file (cases/three_rpr.toml) against the book's
closed forms (cases/three_rpr.py): IGM (7.20)-(7.22) and FGM (the sextic
(7.48)), to 1e-10; its mobility (Appendix A.4.2) is 3."""

import numpy as np
import pytest

import flexpkm as fp
from flexpkm.algorithms.mobility import mobility
from flexpkm.cases import three_rpr as rpr

from .closed_forms import file_model, poses_near, wrap

REFERENCE = np.array([0.03, 0.02, 0.4])


@pytest.fixture(scope="module")
def model():  # the file, built once
    return file_model("three_rpr.toml")


def test_forward_geometric_model_is_the_assembly(model):
    L = model.layout
    for pose in poses_near(REFERENCE, 0.05, 5, 1):
        q_a = [rpr.igm(pose)[f"q{i}2"] for i in (1, 2, 3)]
        x = fp.assemble(model, q_a=q_a)[list(L.commanded)]
        np.testing.assert_allclose(x, pose, atol=1e-10)
        modes = rpr.fgm(q_a)
        assert 2 <= len(modes) <= 6
        best = np.argmin(np.abs(wrap(modes - x)).max(axis=1))
        assert np.abs(wrap(modes[best] - x)).max() < 1e-10
        # every other assembly mode closes the loops too: (7.19) at each
        for m in modes:
            q = rpr.igm(m)
            np.testing.assert_allclose([q[f"q{i}2"] for i in (1, 2, 3)], q_a, atol=1e-10)


def test_mobility_is_three(model):
    """Appendix A.4.2: N_dof = 3 (Tx, Ty, Rz)."""
    m = mobility(model)
    assert (m.n_dof, m.n_platform, m.n_rigid) == (3, 3, 12)
