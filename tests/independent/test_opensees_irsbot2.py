"""The flexible IRSBot-2 (cases/examples/irsbot2_flexible.toml: proximal
links and distal bars as Beam3D) against an independent OpenSeesPy frame
model whose platform is FREE in all six directions, at two poses, with one
and four elements per beam (the OpenSees elements get the sections' rotary
inertia that flexpkm's beams keep, as for the Delta).

Measured (load 8.5 on 2 cores): the first ten frequencies agree to 4.0e-12
and 1.4e-12 (one element), 2.0e-10 and 4.4e-10 (four elements); the bounds
are 1e-9 and 5e-9. Under refinement f1..f4 at P = (0, -0.45) m go from
17.954, 45.955, 89.728, 118.163 Hz (one element) to 17.950, 45.843, 88.600,
113.445 Hz (four)."""
import numpy as np
import pytest

import flexpkm as fp
from flexpkm.cases import file_of

pytest.importorskip("openseespy")
from .opensees_irsbot2 import irsbot2_frequencies  # noqa: E402

POSES = [(0.0, -0.45), (0.08, -0.38)]
#: relative tolerance on the first ten frequencies per number of elements
TOLERANCE = {1: 1e-9, 4: 5e-9}


@pytest.fixture(scope="module")
def models():
    robot = fp.load_robot(file_of("irsbot2_flexible"))
    return {n: fp.build_model(fp.refine(robot, n)) for n in (1, 4, 8)}


def _frequencies(model, pose, n=10):
    q = fp.assemble(model, pose=np.array(pose))
    return fp.natural_frequencies(model, q, shapes=False, backend="numpy").frequencies_hz[:n]


@pytest.mark.parametrize("n_el", sorted(TOLERANCE))
@pytest.mark.parametrize("pose", POSES)
def test_flexible_irsbot2_matches_opensees_with_a_free_platform(models, pose, n_el):
    model = models[n_el]
    assert model.layout.names[-6:] == ("x", "z", "y", "rx", "ry", "rz")
    np.testing.assert_allclose(_frequencies(model, pose), irsbot2_frequencies(*pose, n_el=n_el),
                               rtol=TOLERANCE[n_el])


def test_frequencies_converge_under_refinement(models):
    """f1..f4 move less from 4 to 8 elements than from 1 to 4, and by less
    than 0.5 %: the one-element model is within 4 % of the converged one."""
    f1, f4, f8 = (_frequencies(models[n], POSES[0], 4) for n in (1, 4, 8))
    assert np.all(np.abs(f8 - f4) < np.abs(f4 - f1))
    assert np.abs(f8 / f4 - 1).max() < 5e-3
    assert np.abs(f1 / f8 - 1).max() < 0.05
