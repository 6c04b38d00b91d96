"""The locked pencil's eigenvalues and the compliance from one Cholesky
factor of K per block (flexpkm.algorithms.flexibility) against SciPy's
dense generalized solver on the whole pencil and a dense solve of K."""
import numpy as np
import pytest
import scipy.linalg as sla

from flexpkm.algorithms.flexibility import eigen_and_compliance, resplit
from flexpkm.errors import IndefiniteMassMatrixError
from tests.algorithms.test_eigen import block_pencil


def _blocks(perm, sizes):
    cuts = np.cumsum((0,) + tuple(sizes))
    return [np.sort(perm[a:b]) for a, b in zip(cuts[:-1], cuts[1:])]


def _reference(K, M, J_p):
    lam = np.stack([sla.eigh(k, m, eigvals_only=True) for k, m in zip(K, M)])
    C = np.stack([j @ np.linalg.solve(k, j.T) for k, j in zip(K, J_p)])
    return lam, C


def test_blocks_give_the_whole_pencils_eigenvalues_and_compliance():
    """Three shuffled blocks (4, 9, 2), 3 poses: the eigenvalues equal SciPy's
    on the whole pencil to 1e-12 of the largest, the compliance equals
    J_p K^-1 J_p^T (np.linalg.solve) to 1e-12."""
    K, M, perm, sizes = block_pencil((4, 9, 2))
    J_p = np.random.default_rng(1).standard_normal((3, 2, K.shape[-1]))
    lam, C, ok = eigen_and_compliance(K, M, J_p, _blocks(perm, sizes))
    ref_lam, ref_C = _reference(K, M, J_p)
    assert ok.all()
    assert np.abs(lam - ref_lam).max() <= 1e-12 * ref_lam.max()
    assert np.abs(C - ref_C).max() <= 1e-12 * np.abs(ref_C).max()


def test_lowest_eigenvalues_keep_their_digits_in_a_graded_pencil():
    """Stiffness over 8 decades: the lowest eigenvalue (the flexibility form's
    largest mu) to 1e-13 relative of the exact one (a diagonal pencil)."""
    k = np.logspace(0, 8, 6)
    m = np.linspace(1.0, 2.0, 6)
    K, M = np.diag(k)[None], np.diag(m)[None]
    lam, C, ok = eigen_and_compliance(K, M, np.eye(6)[None, :1], [np.arange(6)])
    np.testing.assert_allclose(lam[0], np.sort(k / m), rtol=1e-13)
    assert C[0, 0, 0] == pytest.approx(1.0, rel=1e-15)


def test_stiffness_not_positive_definite_falls_back_and_masks_the_compliance():
    """A pose whose block of K has a zero eigenvalue: its eigenvalues from
    the stiffness form (SciPy's), its compliance NaN, ok False; the other
    poses unchanged."""
    K, M, perm, sizes = block_pencil((5, 3))
    idx = _blocks(perm, sizes)[1]
    K[1][np.ix_(idx, idx)] -= np.linalg.eigvalsh(K[1][np.ix_(idx, idx)])[0] * np.eye(3)
    J_p = np.ones((3, 1, K.shape[-1]))
    lam, C, ok = eigen_and_compliance(K, M, J_p, _blocks(perm, sizes))
    ref_lam, ref_C = _reference(K[[0, 2]], M[[0, 2]], J_p[[0, 2]])
    assert ok.tolist() == [True, False, True] and np.isnan(C[1]).all()
    np.testing.assert_allclose(C[[0, 2]], ref_C, rtol=1e-12)
    full = sla.eigh(K[1], M[1], eigvals_only=True)
    assert np.abs(lam[1] - full).max() <= 1e-12 * full.max()


def test_indefinite_mass_is_refused():
    K, M, perm, sizes = block_pencil((4,), B=1)
    M[0, 0, 0] = -10.0
    with pytest.raises(IndefiniteMassMatrixError, match="M_cc"):
        eigen_and_compliance(K, M, np.ones((1, 1, 4)), [np.arange(4)])


def test_resplit():
    """The blocks (3, 2) given as one block of their union, or as a wrong
    split, are found again on the pencils: one entry between them at one
    pose of the batch (1e-300) couples them."""
    K, M, perm, sizes = block_pencil((3, 2))
    blocks = _blocks(perm, sizes)
    wrong = [np.sort(perm[:2]), np.sort(perm[2:])]
    for given in (wrong, [np.arange(5)]):
        assert sorted(map(tuple, resplit(K, M, given))) == sorted(map(tuple, blocks))
    M[2, blocks[0][0], blocks[1][1]] = M[2, blocks[1][1], blocks[0][0]] = 1e-300
    assert [b.tolist() for b in resplit(K, M, wrong)] == [list(range(5))]
