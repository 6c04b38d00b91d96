"""The batched generalized eigensolver and its split into decoupled blocks
(flexpkm.algorithms.eigen) against scipy's dense solver on the whole pencil."""
import numpy as np
import pytest
import scipy.linalg as sla

from flexpkm.algorithms.eigen import (LOOP_SIZE, decoupled_blocks, dense_generalized_eigh,
                                      generalized_eigh)
from flexpkm.errors import IndefiniteMassMatrixError


def block_pencil(sizes, B=3, seed=0):
    """(K, M) (B, n, n): SPD blocks of ``sizes`` on the diagonal, rows and
    columns shuffled so that no block is contiguous."""
    rng = np.random.default_rng(seed)
    n = sum(sizes)
    perm = rng.permutation(n)
    K, M = np.zeros((B, n, n)), np.zeros((B, n, n))
    start = 0
    for m in sizes:
        idx = perm[start:start + m]
        for A in (K, M):
            G = rng.standard_normal((B, m, m))
            A[np.ix_(range(B), idx, idx)] = G @ np.swapaxes(G, 1, 2) + m * np.eye(m)
        start += m
    return K, M, perm, sizes


@pytest.mark.parametrize("sizes", [(LOOP_SIZE, 3, 1), (LOOP_SIZE + 3, 7), (LOOP_SIZE + 6,)])
def test_split_solution_is_the_whole_pencils(sizes):
    K, M, perm, _ = block_pencil(sizes)
    blocks = decoupled_blocks(K, M)
    assert sorted(len(b) for b in blocks) == sorted(sizes)
    lam, X = generalized_eigh(K, M)
    for b in range(K.shape[0]):
        ref = sla.eigh(K[b], M[b], eigvals_only=True)
        assert np.allclose(lam[b], ref, rtol=1e-12, atol=0)
        assert np.allclose(X[b].T @ M[b] @ X[b], np.eye(len(ref)), atol=1e-11)
        assert np.allclose(K[b] @ X[b], M[b] @ X[b] * lam[b], atol=1e-9 * np.abs(K[b]).max())
    lam_only, none = generalized_eigh(K, M, vectors=False)
    assert none is None and np.allclose(lam_only, lam, rtol=1e-12)


def test_a_coupling_at_one_pose_joins_the_blocks():
    K, M, perm, sizes = block_pencil((LOOP_SIZE, 4))
    i, j = perm[0], perm[-1]                     # one in each block
    K[1, i, j] = K[1, j, i] = 0.5
    assert len(decoupled_blocks(K, M)) == 1
    lam = generalized_eigh(K, M, vectors=False)[0]
    assert np.allclose(lam[1], sla.eigh(K[1], M[1], eigvals_only=True), rtol=1e-12)


@pytest.mark.parametrize("n", [5, LOOP_SIZE + 1])
def test_indefinite_mass_matrix_is_named(n):
    K, M, _, _ = block_pencil((n,))
    M[2, 0, 0] = -1e3
    with pytest.raises(IndefiniteMassMatrixError, match="pose 2"):
        dense_generalized_eigh(K, M, "M_cc")


@pytest.mark.parametrize("k2", [1e3, 1e12, 1e19])
def test_graded_pencil_keeps_the_lowest_eigenvalue(k2):
    """A gearbox k2 grounding mass 1, a spring k1 = 1 (the structure) from
    mass 1 to mass 2, unit masses: lambda = (s -+ sqrt(s^2 - 4 k1 k2)) / 2
    with s = k2 + 2 k1; the lowest from det / lambda_max = k1 k2 / lambda_max
    (no cancellation), -> k1 as k2 grows: kept to 1e-12 (the robot case,
    where the plain solver lost 1.6e-4, is in tests/algorithms/test_modal.py)."""
    from flexpkm.algorithms.eigen import graded_generalized_eigh
    k1 = 1.0
    K = np.array([[[k2 + k1, -k1], [-k1, k1]]])
    M = np.eye(2)[None]
    s = k2 + 2 * k1
    hi = (s + np.sqrt(s * s - 4 * k1 * k2)) / 2
    lam, X = graded_generalized_eigh(K, M)
    np.testing.assert_allclose(lam[0], [k1 * k2 / hi, hi], rtol=1e-12)
    np.testing.assert_allclose(np.swapaxes(X, 1, 2) @ M @ X, np.eye(2)[None], atol=1e-12)
    assert abs(X[0, 0, 0] / X[0, 1, 0]) < 2 / k2            # the gearbox barely moves


def test_graded_pencil_falls_back_when_K_is_singular():
    from flexpkm.algorithms.eigen import graded_generalized_eigh
    K = np.array([[[1.0, -1.0], [-1.0, 1.0]]])      # a free motion: K not definite
    lam, _ = graded_generalized_eigh(K, np.eye(2)[None])
    np.testing.assert_allclose(lam[0], [0.0, 2.0], atol=1e-14)


def test_frequencies_only_equal_lapacks_subset_solver_on_the_navaro():
    """The maps' eigenvalues-only path (dsygvd without vectors, on the 51 +
    39 decoupled blocks of the NaVARo's locked 90 x 90 pencil) against
    LAPACK's subset solver dsygvx on the whole pencil (the first 6): equal
    to 1e-10 of the largest frequency (measured: 2e-14)."""
    import flexpkm as fp
    from flexpkm.cases import navaro
    model = fp.build_model(navaro.robot())
    q = np.stack([navaro.configuration(model, x, 0.0, t) for x, t in [(0.0, 0.0), (0.03, -0.2)]])
    red = fp.reduced_matrices(model, q)
    na = red.n_a
    K, M = red.K_r[:, na:, na:], red.M_r[:, na:, na:]
    assert sorted(len(b) for b in decoupled_blocks(K, M)) == [39, 51]
    lam = generalized_eigh(K, M, vectors=False)[0]
    for b in range(len(q)):
        ref = sla.eigh(K[b], M[b], eigvals_only=True, subset_by_index=[0, 5], driver="gvx")
        f, f_ref = np.sqrt(lam[b, :6]), np.sqrt(ref)
        assert np.abs(f - f_ref).max() <= 1e-10 * np.sqrt(lam[b, -1])


def test_solve_spd_both_routes_solve_and_refuse():
    """solve_spd below and from CHO_SOLVE_SIZE (numpy on the factor, SciPy's
    cho_solve): the residual of M x = rhs at rounding level, one state or a
    batch; an indefinite M refused by name."""
    from flexpkm.algorithms.eigen import CHO_SOLVE_SIZE, solve_spd
    from flexpkm.errors import IndefiniteMassMatrixError
    rng = np.random.default_rng(4)
    for n in (CHO_SOLVE_SIZE - 5, CHO_SOLVE_SIZE + 30):
        A = rng.normal(size=(7, n, n))
        M = A @ np.swapaxes(A, -1, -2) + n * np.eye(n)
        rhs = rng.normal(size=(7, n))
        x = solve_spd(M, rhs, "M")
        assert x.shape == (7, n)
        assert abs((M @ x[..., None])[..., 0] - rhs).max() < 1e-12 * abs(rhs).max() * n
        np.testing.assert_allclose(solve_spd(M[2], rhs[2], "M"), x[2], rtol=1e-12)
        with pytest.raises(IndefiniteMassMatrixError, match="M_cc is not positive definite"):
            solve_spd(-M, rhs, "M_cc")
