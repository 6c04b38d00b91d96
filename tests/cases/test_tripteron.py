"""The Tripteron's description file (cases/tripteron.toml) against the
book's closed forms (cases/tripteron.py): IGM (9.60)-(9.66) and FGM (9.60),
to 1e-10; its mobility (Appendix A.4.4) is 3, where the loop count (A.2)
would not give it."""

import numpy as np
import pytest

import flexpkm as fp
from flexpkm.algorithms.mobility import mobility
from flexpkm.cases import tripteron as tri

from .closed_forms import file_model, poses_near, wrap

REFERENCE = np.array([0.15, 0.12, 0.35])


@pytest.fixture(scope="module")
def model():  # the file, built once
    return file_model("tripteron.toml")


def test_forward_geometric_model_is_the_assembly(model):
    L = model.layout
    for pose in poses_near(REFERENCE, 0.04, 5, 1):
        igm = tri.igm(pose)
        q_a = [igm["q11"], igm["q21"], igm["q31"]]
        q = fp.assemble(model, q_a=q_a)
        np.testing.assert_allclose(q[list(L.commanded)], tri.fgm(q_a), atol=1e-10)
        np.testing.assert_allclose(tri.fgm(q_a), pose, atol=1e-15)


def test_unreachable_pose_is_refused():
    with pytest.raises(fp.UnreachablePoseError, match="leg 1"):
        tri.igm((0.4, 0.0, 0.35))


def test_mobility_is_three(model):
    """Appendix A.4.4: N_dof = 3 = L - sum dim E(x_j) + dim of their
    intersection = 12 - 12 + 3; (A.2) with B = 2 loops of 6 would give 0."""
    m = mobility(model)
    assert (m.n_dof, m.n_platform, m.n_rigid) == (3, 3, 15)


def test_elbow_state_closes_the_loops_and_is_the_igm(model):
    """The state of leg 1's elbow angle and y, z (the law's coordinates of
    the LPJTS crossing, docs/crossing.md) closes every loop to 1e-12 and is
    the IGM in one working mode of leg 1 on each side of the singularity
    y = (d_13 + d_14) sin q_12 (q_13 = 0), the other mode on the other."""
    values = np.array([[0.8, 0.30, 0.25], [1.0, 0.28, 0.25]])
    q = tri.elbow_state(model, values)
    assert np.abs(fp.closure_residual(model, q)).max() < 1e-12
    L = model.layout
    found = []
    for row in q:
        assert abs(row[L.index("q13")]) > 0.1
        for mode in (1, -1):
            igm = tri.igm(row[[L.index(n) for n in "xyz"]], modes=(mode, 1, 1))
            if np.abs(wrap([row[L.index(k)] - v for k, v in igm.items()])).max() < 1e-10:
                found.append(mode)
    assert sorted(found) == [-1, 1]
