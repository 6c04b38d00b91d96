"""QR with column pivoting in numpy (flexpkm.algorithms.pivoted_qr) against
LAPACK's dgeqp3 through scipy.linalg.qr, an independent implementation."""
import numpy as np
import pytest
import scipy.linalg as sla

from flexpkm.algorithms import constraint_rows, dependent, pivoted_qr as pq
from flexpkm.algorithms.reference import build_model
from flexpkm.cases.shipped import file_of
from flexpkm.model.files import load


def lapack(A):
    _, R, piv = sla.qr(A, mode="economic", pivoting=True)
    return np.abs(np.diag(R)), piv


@pytest.mark.parametrize("seed", range(4))
def test_generic_matrices_pivot_as_lapack(seed):
    rng = np.random.default_rng(seed)
    for _ in range(50):
        m, n = rng.integers(1, 40, size=2)
        A = rng.standard_normal((m, n)) * rng.uniform(1e-3, 1e3, size=n)   # graded columns
        r, piv = pq.pivoted_qr(A)
        r_ref, piv_ref = lapack(A)
        assert np.array_equal(piv, piv_ref)
        np.testing.assert_allclose(r, r_ref, rtol=1e-10, atol=1e-13 * r_ref[0])


def test_does_not_modify_its_argument_and_reconstructs():
    A = np.random.default_rng(7).standard_normal((6, 9))
    before = A.copy()
    r, piv = pq.pivoted_qr(A)
    assert np.array_equal(A, before)
    assert sorted(piv) == list(range(9))
    assert np.all(np.diff(r) <= 1e-12 * r[0])                 # non-increasing
    # |det| of the first 6 pivoted columns is the product of |R_ii|
    np.testing.assert_allclose(abs(np.linalg.det(A[:, piv[:6]])), np.prod(r), rtol=1e-10)


def test_an_exact_tie_goes_to_the_first_column():
    a = np.array([1.0, 2.0, 2.0])
    for A in (np.column_stack([a, 0.5 * a, a]), np.column_stack([a, -a, np.ones(3)])):
        assert pq.pivoted_qr(A)[1][0] == 0
    # a tie after one step: columns 1 and 2 equal once column 0 is taken out
    A = np.array([[3.0, 1.0, 1.0], [0.0, 1.0, 1.0], [0.0, 0.0, 0.0]])
    assert list(pq.pivoted_qr(A)[1][:2]) == [0, 1]


def test_rank_deficient_and_degenerate_shapes():
    rng = np.random.default_rng(3)
    A = rng.standard_normal((8, 3)) @ rng.standard_normal((3, 10))      # rank 3
    r, piv = pq.pivoted_qr(A)
    assert int(np.sum(r > 1e-10 * r[0])) == 3
    assert np.linalg.matrix_rank(A[:, piv[:3]]) == 3
    r, piv = pq.pivoted_qr(np.zeros((3, 4)))
    assert np.array_equal(r, np.zeros(3)) and sorted(piv) == [0, 1, 2, 3]
    assert pq.pivoted_qr(np.zeros((0, 2)))[0].shape == (0,)
    assert list(pq.pivoted_qr(np.array([[0.0, 2.0, -3.0]]))[1]) == [2, 1, 0]


@pytest.mark.parametrize("case", ["dualemps", "five_bar", "three_rpr", "orthoglide"])
def test_shipped_choices_are_lapacks(case, monkeypatch):
    """The reference q_dep choice and kept rows of shipped robots are those of
    scipy's pivoted QR (the others differ only where the column norms tie
    exactly, docs/design.md)."""
    model = build_model(load(file_of(case)))
    for module in (dependent, constraint_rows):
        monkeypatch.setattr(module, "pivoted_qr", lapack)
    ref = build_model(load(file_of(case)))
    ours, theirs = model.reference_state.solution, ref.reference_state.solution
    assert np.array_equal(ours.dep, theirs.dep) and ours.choice == theirs.choice
    assert np.array_equal(ours.kept, theirs.kept)
