"""The flexible Delta (cases/delta.py: upper arms and rods as one Beam3D
each) against an independent OpenSeesPy frame model (one element per
flexible body) at two platform positions. With the sections' rotary inertia
added to OpenSees' consistent mass (its elements leave rho*I out, flexpkm's
beams keep it) the two models are the same discretisation: 1e-9; without it
they differ by ~6e-5."""
import numpy as np
import pytest

import flexpkm as fp
from flexpkm.cases import delta as D

pytest.importorskip("openseespy")
from .opensees_delta import delta_frequencies  # noqa: E402


@pytest.fixture(scope="module")
def flexible():
    return fp.build_model(D.robot(flexible=True))


@pytest.mark.parametrize("P", [(0.0, 0.0, -0.80), (0.20, 0.10, -0.95)])
def test_flexible_delta_matches_opensees(flexible, P):
    q = fp.assemble(flexible, pose=np.array(P))
    f = fp.natural_frequencies(flexible, q, shapes=False).frequencies_hz[:10]
    np.testing.assert_allclose(f, delta_frequencies(P, rotary=True), rtol=1e-9)
    plain = delta_frequencies(P)                       # OpenSees' own mass matrix
    assert 1e-5 < np.abs(f / plain - 1).max() < 2e-4
