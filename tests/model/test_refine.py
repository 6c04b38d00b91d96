"""Mesh refinement (flexpkm.model.refine): DualEMPS at q11 = q21 = 0 against the
independent OpenSeesPy frame model with the same subdivision, convergence,
and the rigid-body move checked by the parallel-axis theorem by hand."""
import numpy as np
import pytest

import flexpkm as fp
from flexpkm.cases import dualemps
from flexpkm.errors import InvalidDescriptionError
from flexpkm.model.refine import refine, translated_rigid


def _freqs(rob, n_modes=6):
    q = dualemps.configuration(rob, 0.0, 0.0)
    return fp.natural_frequencies(rob, q, shapes=False, backend="numpy").frequencies_hz[:n_modes]


@pytest.mark.parametrize("n", [1, 2, 4, 8, 16])
def test_dualemps_refined_matches_opensees(n):
    pytest.importorskip("openseespy")
    from tests.independent.opensees_dualemps import dualemps_frequencies
    f = _freqs(refine(dualemps.robot(), n))
    f_os = dualemps_frequencies(0.0, 0.0, n_modes=6, n_el=n)
    np.testing.assert_allclose(f, f_os, rtol=1e-4)


def test_refinement_converges_and_n1_is_identity():
    rob = dualemps.robot()
    assert refine(rob, 1) is rob
    f = {n: _freqs(refine(rob, n)) for n in (1, 4, 8, 16)}
    # f6: 436 Hz with one element, ~188.5 Hz converged (issue 9)
    assert f[1][5] > 400 and abs(f[16][5] - 188.5) < 0.5
    assert np.all(np.abs(f[16] - f[8]) < np.abs(f[8] - f[4]) + 1e-9)


def test_refined_tree_structure():
    rob = refine(dualemps.robot(), 3)
    names = [fr.name for fr in rob.frames]
    i = names.index("13")
    assert names[i + 1:i + 3] == ["13.1", "13.2"]
    f14 = rob.frames[names.index("14")]
    assert f14.antecedent == "13.2" and f14.d == pytest.approx(0.4505 / 3)
    assert rob.layout.n_t == dualemps.robot().layout.n_t + 3 * 2 * 3


def test_translated_rigid_parallel_axis():
    m, c = 2.0, np.array([0.3, 0.1, -0.2])
    body = fp.RigidBody.point_mass(m, c)
    moved = translated_rigid(body, (0.25, 0.0, 0.0))
    ref = fp.RigidBody.point_mass(m, c - [0.25, 0, 0])
    np.testing.assert_allclose(moved.invariants.I_rr, ref.invariants.I_rr, atol=1e-14)
    np.testing.assert_allclose(moved.invariants.ms_r, ref.invariants.ms_r, atol=1e-14)


def test_refine_rejects_bad_counts():
    rob = dualemps.robot()
    for bad in (0, -1, 2.5, True):
        with pytest.raises(InvalidDescriptionError):
            refine(rob, bad)
    with pytest.raises(InvalidDescriptionError):
        refine(rob, {"12": 2})


CANTILEVER = '''
name = "cantilever"
plane_normal = [0.0, 0.0, 1.0]
[[legs]]
name = "1"
[[legs.frames]]
j = "1"
sigma = 0
mu = 1
[[legs.frames.bodies]]
type = "beam"
planar = true
length = 0.5
section = {shape = "rectangle", b_y = 0.004, h_z = 0.05}
material = {E = 74e9, rho = 2800.0}
'''


def test_refined_cantilever_converges_to_analytic():
    """A locked revolute carrying one planar beam is a cantilever: the first
    four bending frequencies tend to the Euler-Bernoulli roots. The limit
    differs by the rotary inertia rho*I flexpkm keeps (Rayleigh's correction
    -(beta_k r)^2 / 2, 3.2e-4 for the 4th mode), hence rtol 6e-4 at n = 16."""
    from flexpkm.model import files
    from tests.independent.analytic_beams import cantilever_frequencies
    b, h = 0.004, 0.05
    f_ref = cantilever_frequencies(74e9, h * b ** 3 / 12, 2800.0, b * h, 0.5, 4)
    err = {}
    for n in (2, 4, 8, 16):
        rob = files.loads(CANTILEVER, elements=n)
        f = fp.natural_frequencies(rob, np.zeros(rob.layout.n_t), shapes=False,
                                   backend="numpy").frequencies_hz
        err[n] = np.abs(f[:4] / f_ref - 1)
    np.testing.assert_array_less(err[16], 6e-4)
    assert err[8][3] < err[4][3] < err[2][3]
    assert err[2][0] < 1e-3 and err[2][3] > 0.5     # n = 2 has no 4th bending mode yet
