"""The Orthoglide's rigid IDM (cases/orthoglide.toml, Table 8.1's
parameters; flexpkm's (8.57) with the loops projected) along a straight
quintic path equals the independent Kane model of rigid_orthoglide.py (the
book's closed-form IGM differentiated symbolically) to 1e-9 of max |tau|
(measured 4e-13), with and without friction."""
from pathlib import Path

import numpy as np
import pytest

import flexpkm as fp
from flexpkm.analysis.idm import straight_path
from flexpkm.model import files
from tests.independent import rigid_orthoglide as ro

FILE = Path(fp.cases.__file__).parent / "orthoglide.toml"
START, STOP = np.array([0.1, 0.1, 0.2]), np.array([0.15, 0.05, 0.25])


@pytest.mark.parametrize("friction", [False, True])
def test_idm_equals_the_independent_model(friction):
    model = fp.build_model(files.load(FILE))
    state = lambda poses: np.array([fp.assemble(model, pose=p) for p in poses])
    res = fp.path_inverse_dynamics(model, state, START, STOP, 0.5, rate=40, friction=friction)
    _, s, sd, sdd = straight_path(START, STOP, 0.5, 40)
    d = STOP - START
    ref = np.array([ro.tau(START + a * d, b * d, c * d, friction=friction)
                    for a, b, c in zip(s, sd, sdd)])
    assert res.tau.shape == (21, 3) and np.abs(ref).max() > 30.0       # N
    assert np.abs(res.tau - ref).max() < 1e-9 * np.abs(ref).max()
