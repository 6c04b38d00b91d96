"""The locked loop with Eigen's Cholesky, solves and tridiagonalization
(flexpkm.compiled.locked_eigen) equals the LAPACK loop
(flexpkm.compiled.locked_loop) and SciPy's dense solver, on random pencils
and on a map's cells; without Eigen's headers the map keeps the LAPACK loop."""
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
import scipy.linalg as sla

import flexpkm as fp
from flexpkm import cases
from flexpkm.algorithms.flexibility import COUPLED, eigen_and_compliance
from flexpkm.compiled import locked_eigen, modal_flat
from flexpkm.compiled.locked_loop import LockedLoop
from flexpkm.errors import BackendUnavailableError
from tests.algorithms.test_eigen import block_pencil
from tests.algorithms.test_flexibility import _blocks

FIVE_BAR = Path(cases.__file__).parent / "examples" / "five_bar.toml"


def _equal(lam, *others, rtol=1e-12):
    """``lam`` (B, n) ascending equals each of ``others``: the 5 lowest to
    ``rtol`` relative, all as ``mu = 1 / lambda`` to ``rtol`` of the largest ``mu``."""
    for other in others:
        assert np.abs(lam[:, :5] / other[:, :5] - 1).max() <= rtol
        assert (np.abs(1 / lam - 1 / other) <= rtol / other[:, :1]).all()


@pytest.fixture(scope="module")
def eigen_loop():
    try:
        return locked_eigen.EigenLoop()
    except BackendUnavailableError as err:      # no g++ or no Eigen headers here
        pytest.skip(str(err))


def test_eigen_loop_equals_lapack_loop_and_scipy(eigen_loop):
    """20 poses of shuffled blocks (6, 11, 1) with a graded stiffness (1 to
    1e8): the 5 lowest eigenvalues of the Eigen loop equal the LAPACK
    loop's and those of SciPy's ``eigh`` of each pose's whole pencil in the
    flexibility form (``M x = mu K x``: its stiffness form ``dsygvd`` is off
    by 1e-9 on this grading, both loops within 1e-14 of a 40-digit mpmath
    reference) to 1e-12 relative, all of them in the flexibility form's measure (``mu = 1 /
    lambda`` to 1e-12 of the largest ``mu``: the largest ``lambda`` to
    ``eps cond_pencil``), the compliance the LAPACK loop's to 1e-12 of its
    largest entry; a pose with a block of K not positive definite gets
    status 1 in both."""
    K, M, perm, sizes = block_pencil((6, 11, 1), B=20, seed=4)
    grade = np.logspace(0, 4, K.shape[-1])
    K = K * grade[:, None] * grade[None, :]
    blocks = _blocks(perm, sizes)
    idx = blocks[0]
    K[7][np.ix_(idx, idx)] -= 2 * np.linalg.eigvalsh(K[7][np.ix_(idx, idx)])[0] * np.eye(6)
    J_p = np.random.default_rng(5).standard_normal((20, 3, K.shape[-1]))
    lam_e, C_e, st_e = eigen_loop(K, M, J_p, blocks)
    lam_l, C_l, st_l = LockedLoop()(K, M, J_p, blocks)
    assert st_e.tolist() == st_l.tolist() and np.flatnonzero(st_e).tolist() == [7]
    good = np.flatnonzero(st_e == 0)
    lam_e, lam_l = np.sort(lam_e[good], axis=1), np.sort(lam_l[good], axis=1)
    ref = np.stack([1 / sla.eigh(M[t], K[t], eigvals_only=True)[::-1] for t in good])
    _equal(lam_e, lam_l, ref)
    assert np.abs(lam_e / ref - 1).max() > 1e-12        # graded: the largest are not relative
    assert np.abs(C_e[good] - C_l[good]).max() <= 1e-12 * np.abs(C_l[good]).max()


def test_eigen_loop_on_map_cells(eigen_loop):
    """Five-bar, the reduced matrices of 3 poses by the fast path (one block
    of 12, cond(K) ~1e7): the locked pencil's 5 lowest eigenvalues equal the
    LAPACK loop's and SciPy's ``eigh`` (flexibility form) to 1e-10 relative
    (each of the three within 5e-11 of a 40-digit mpmath reference on these
    cells), all of them in the flexibility form's measure (1e-10 of the
    largest ``mu``), the platform compliance to 1e-10 of its largest entry
    (as tests/analysis/test_map_cells.py; 5e-12 here)."""
    from flexpkm.algorithms.compliance import rows_of_J
    from flexpkm.compiled import modal
    model = fp.build_model(fp.load_robot(FIVE_BAR))
    q = np.stack([fp.assemble(model, pose=p) for p in ([0.1, 0.35], [0.05, 0.4], [0.15, 0.3])])
    red = modal_flat.fast_reduced_matrices(model, q)
    blocks = modal_flat.locked_blocks(modal.compiled_robot(model)[0])
    J_p = rows_of_J(red, range(model.layout.n_t, model.layout.n_tot))
    lam_e, C_e, st_e = eigen_loop(red.K_r, red.M_r, J_p, blocks)
    lam_l, C_l, st_l = LockedLoop()(red.K_r, red.M_r, J_p, blocks)
    assert st_e.tolist() == st_l.tolist() == [0, 0, 0]
    na, sub = red.n_a, np.concatenate(blocks)
    ref = np.stack([1 / sla.eigh(m[np.ix_(sub, sub)], k[np.ix_(sub, sub)],
                                 eigvals_only=True)[::-1] for k, m in zip(red.K_r, red.M_r)])
    assert sub.min() >= na
    _equal(np.sort(lam_e, axis=1), np.sort(lam_l, axis=1), ref, rtol=1e-10)
    assert np.abs(C_e - C_l).max() <= 1e-10 * np.abs(C_l).max()


def test_without_eigen_headers_the_map_keeps_the_lapack_loop(monkeypatch):
    """No Eigen headers found: EigenLoop raises BackendUnavailableError and
    the fast path's loop is the LAPACK one (nothing announced)."""
    monkeypatch.setattr(locked_eigen, "eigen_include", lambda: None)
    with pytest.raises(BackendUnavailableError, match="Eigen"):
        locked_eigen.EigenLoop()
    cm = SimpleNamespace(functions={"flexpkm_modal_flat_plan": {}})
    assert type(modal_flat.locked_loop(cm)) is LockedLoop


def test_eigen_include_finds_the_headers():
    """The lookup returns a folder with Eigen's Cholesky header, or None."""
    folder = locked_eigen.eigen_include()
    assert folder is None or (folder / "Eigen" / "Cholesky").is_file()


@pytest.mark.parametrize("which", ["eigen", "lapack"])
def test_coupled_blocks_flagged_and_resplit(which, eigen_loop):
    """An entry between two of the given blocks at one pose (pose 3; 1e-3
    in M): both loops flag that pose (status 3, COUPLED) and no other;
    eigen_and_compliance then runs the batch's own split and its
    eigenvalues equal SciPy's ``eigh`` of each whole pencil to 1e-12."""
    K, M, perm, sizes = block_pencil((6, 11, 1), B=8, seed=2)
    blocks = _blocks(perm, sizes)
    i, j = blocks[1][0], blocks[0][2]
    M[3, i, j] = M[3, j, i] = 1e-3
    J_p = np.random.default_rng(3).standard_normal((8, 2, K.shape[-1]))
    loop = eigen_loop if which == "eigen" else LockedLoop()
    status = loop(K, M, J_p, blocks)[2]
    assert np.flatnonzero(status).tolist() == [3] and status[3] == COUPLED
    lam, C, ok = eigen_and_compliance(K, M, J_p, blocks, loop=loop)
    ref = np.stack([sla.eigh(k, m, eigvals_only=True) for k, m in zip(K, M)])
    assert ok.all() and np.abs(lam / ref - 1).max() <= 1e-12
