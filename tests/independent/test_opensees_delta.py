"""The flexible Delta (cases/delta.toml: upper arms and rods as Beam3D) against
an independent OpenSeesPy frame model whose platform is FREE in all six
directions (it does not share flexpkm's assumptions about the platform), at
the two positions of docs/delta.md, with one and with sixteen elements per
flexible body. With the sections' rotary inertia added to OpenSees'
consistent mass (its elements leave rho*I out, flexpkm's beams keep it) the
two models are the same discretisation.

Tolerances: 1e-9 at one element (measured 7.4e-12, 8.6e-12). At sixteen
elements (852 locked coordinates) the pencil's lambda_max / lambda_min is
9e7-1.4e8 and a one-ulp relative perturbation of M_r and K_r moves the first
ten frequencies by up to 1.7e-9 (test_round_off_floor_at_sixteen_elements):
that is the floor of any two correct solutions of this eigenproblem, and the
measured differences (1.2e-9, 1.7e-9) sit on it. Since the reference
configuration is assembled from the file's rough guess (issue 17 item 1)
rather than copied from the closed form, the same configuration differs by
roundoff and one copy of the triple frequency at 31.24 Hz (P = (0, 0, -0.8))
moves by 3.5e-9: the bound is 5e-9."""
import numpy as np
import pytest

import flexpkm as fp
from flexpkm.algorithms.eigen import generalized_eigh
from flexpkm.cases import delta as D

pytest.importorskip("openseespy")
from .opensees_delta import delta_frequencies  # noqa: E402

POSITIONS = [(0.0, 0.0, -0.80), (0.20, 0.10, -0.95)]
#: relative tolerance on the first ten frequencies per number of elements
TOLERANCE = {1: 1e-9, 16: 5e-9}


@pytest.fixture(scope="module")
def models():
    return {n: fp.build_model(fp.refine(D.robot(flexible=True), n)) for n in TOLERANCE}


@pytest.mark.parametrize("n_el", sorted(TOLERANCE))
@pytest.mark.parametrize("P", POSITIONS)
def test_flexible_delta_matches_opensees_with_a_free_platform(models, P, n_el):
    model = models[n_el]
    assert model.layout.names[-6:] == ("x", "y", "z", "rx", "ry", "rz")
    q = fp.assemble(model, pose=np.array(P))
    f = fp.natural_frequencies(model, q, shapes=False, backend="numpy").frequencies_hz[:10]
    np.testing.assert_allclose(f, delta_frequencies(P, n_el=n_el, rotary=True),
                               rtol=TOLERANCE[n_el])
    if n_el == 1:                                      # OpenSees' own mass matrix
        plain = delta_frequencies(P)
        assert 1e-5 < np.abs(f / plain - 1).max() < 2e-4


def test_the_old_translating_platform_was_stiffer(models):
    """What the check now sees: the platform's rotations locked (the shipped
    model before issue 16, whose f1 was 29.396 and 23.540 Hz) make f1 3.2 %
    and 5.0 % high at the two positions. Locking them here = removing the
    independent coordinates rx, ry, rz from M_r, K_r."""
    model = models[1]
    for P, high in zip(POSITIONS, (0.032, 0.050)):
        q = fp.assemble(model, pose=np.array(P))
        red = fp.reduced_matrices(model, q[None])
        free = fp.natural_frequencies(model, q, shapes=False, backend="numpy").frequencies_hz[0]
        keep = [i for i, c in enumerate(red.indep) if c not in model.layout.platform_dependent]
        assert len(keep) == len(red.indep) - 3            # rx, ry, rz are independent here
        M, K = red.M_r[:, keep][:, :, keep], red.K_r[:, keep][:, :, keep]
        na = red.n_a
        lam = generalized_eigh(K[:, na:, na:], M[:, na:, na:], vectors=False)[0][0, 0]
        assert abs(np.sqrt(lam) / (2 * np.pi) / free - 1 - high) < 0.002


def test_round_off_floor_at_sixteen_elements(models):
    """Why 16 elements cannot agree to 1e-9: one ulp of M_r, K_r moves the
    first ten frequencies by about that much."""
    model = models[16]
    q = fp.assemble(model, pose=np.array(POSITIONS[0]))
    red = fp.reduced_matrices(model, q[None])
    na = red.n_a
    M, K = red.M_r[:, na:, na:], red.K_r[:, na:, na:]
    E = np.random.default_rng(1).standard_normal(M.shape)
    E = 2.2e-16 * (E + np.swapaxes(E, 1, 2)) / 2
    lam = generalized_eigh(K, M, vectors=False)[0][0, :10]
    lam_p = generalized_eigh(K * (1 + E), M * (1 - E), vectors=False)[0][0, :10]
    assert (np.abs(lam_p - lam) / lam).max() / 2 > 5e-10
